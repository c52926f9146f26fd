/* berth_host_alloc (berth/memory.h): large host buffers on transparent huge pages where the
 * system offers them on request. */
#define _DEFAULT_SOURCE /* madvise */
#include "berth/memory.h"

#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE_PAGE ((size_t)2 << 20)

void *berth_host_alloc(size_t bytes) {
  if (bytes == 0) bytes = 1;
#if defined(MADV_HUGEPAGE)
  if (bytes >= HUGE_PAGE / 2 && bytes <= SIZE_MAX - HUGE_PAGE) {
    const size_t rounded = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    /* glibc maps a block this large fresh (no page touched yet) unless its mmap threshold has
     * risen past it; then the hint still lets the kernel collapse the pages later */
    void *p = aligned_alloc(HUGE_PAGE, rounded);
    if (p) {
      (void)madvise(p, rounded, MADV_HUGEPAGE); /* only a hint: refused, the memory stays usable */
      return p;
    }
  }
#endif
  if (bytes > SIZE_MAX - 63) return NULL;
  return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}
