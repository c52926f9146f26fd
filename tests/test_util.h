/* A minimal test harness: CHECK records a failure with file:line and keeps going;
 * test_finish() returns the process exit code. Every check can fail. */
#ifndef BERTH_TESTS_TEST_UTIL_H
#define BERTH_TESTS_TEST_UTIL_H

#include <stdio.h>

extern int test_failures;
extern int test_checks;

#define CHECK(cond)                                                          \
  do {                                                                       \
    test_checks++;                                                           \
    if (!(cond)) {                                                           \
      test_failures++;                                                       \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                        \
  } while (0)

#define CHECK_MSG(cond, ...)                                              \
  do {                                                                    \
    test_checks++;                                                        \
    if (!(cond)) {                                                        \
      test_failures++;                                                    \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
    }                                                                     \
  } while (0)

/* Prints a summary and returns 0 if every check passed, else 1. */
int test_finish(const char *name);
/* Reads a whole file into a malloc'd NUL-terminated buffer; NULL if unreadable. */
char *test_read_file(const char *path, size_t *len);

/* The one corpus replay driver (fuzz corpora, corrupt files, kept fuzz failures): calls
 * fn(path, name, data, len, ctx) for every regular file of the folder dir (a path, such as
 * BERTH_SOURCE_DIR "/fuzz/corpus/load") whose name does not start with '.', is not MANIFEST, and ends with suffix
 * (NULL: any), in name order, so a replay is the same on every machine. data is the file's
 * bytes, NUL-terminated, valid during the call. Returns how many files were replayed. A
 * folder that cannot be opened, or a file that cannot be read, is a failed check, unless
 * flags has TEST_REPLAY_OPTIONAL (the folder may be absent: 0). */
typedef void (*test_replay_fn)(const char *path, const char *name, const unsigned char *data, size_t len, void *ctx);
#define TEST_REPLAY_OPTIONAL 1u
int test_replay_dir(const char *dir, const char *suffix, unsigned flags, test_replay_fn fn, void *ctx);

#endif
