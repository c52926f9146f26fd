/* The version of berth, in one place: the compiler (berth_version), the runtime
 * (berth_runtime_version), the CLI's --version, the CMake project and the program file's
 * header all take it from here.
 *
 *   #include "berth/version.h"
 *   #if BERTH_VERSION_NUMBER < 500   // compiled against berth older than 0.5.0
 *   ...
 *   printf("headers %s, runtime %s\n", BERTH_VERSION_STRING, berth_runtime_version());
 *
 * Every program file records the version of the berth that wrote it (header bytes 36..41,
 * docs/format.md). The runtime loads files of its format version written by its own or an
 * older berth, and by a newer patch release of its own MAJOR.MINOR; a file written by a
 * newer MAJOR.MINOR is refused (BERTH_ERR_UNIMPLEMENTED) with a message naming both
 * versions, because a newer writer may give a field or an op a meaning this runtime does
 * not know. This header has macros only: it is safe for the runtime and for C++. */
#ifndef BERTH_VERSION_H
#define BERTH_VERSION_H

#define BERTH_VERSION_MAJOR 0
#define BERTH_VERSION_MINOR 4
#define BERTH_VERSION_PATCH 0

#define BERTH_VERSION_STRINGIFY_(x) #x
#define BERTH_VERSION_STRINGIFY(x) BERTH_VERSION_STRINGIFY_(x)
/* "MAJOR.MINOR.PATCH" of these headers. */
#define BERTH_VERSION_STRING                                                                                   \
  BERTH_VERSION_STRINGIFY(BERTH_VERSION_MAJOR) "." BERTH_VERSION_STRINGIFY(BERTH_VERSION_MINOR) "." BERTH_VERSION_STRINGIFY( \
      BERTH_VERSION_PATCH)
/* MAJOR * 10000 + MINOR * 100 + PATCH (0.4.0: 400), for #if comparisons. */
#define BERTH_VERSION_NUMBER (BERTH_VERSION_MAJOR * 10000 + BERTH_VERSION_MINOR * 100 + BERTH_VERSION_PATCH)

/* The program file format version this berth writes and reads (header bytes 6..7). A
 * runtime refuses every other format version. 2: conv carries its fused activation (three
 * more attributes), so a version-1 conv would be misread. */
#define BERTH_PROGRAM_FORMAT_VERSION 2

#endif
