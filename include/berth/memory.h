/* Host memory for the large buffers a program runs over: a program file's bytes (its
 * constant section, read in place by every call) and a method's memory
 * (berth_method_memory_size: its arena). The runtime itself never allocates: an embedder
 * hands it memory. This is for hosts with virtual memory (libberth.so, the berth tool, the
 * Python binding), not for embedded targets.
 *
 *   uint8_t *file = berth_host_alloc(len);   // read the .berth file into it
 *   berth_program_load(file, len, ...);
 *   ...
 *   free(file);
 *
 * Why: every call of a network streams its weights through the caches (ResNet-50: ~100 MB,
 * each weight used once per call). On 4 KiB pages that is one TLB miss per page and a stop
 * of the hardware prefetcher at every page boundary, and under a hypervisor each TLB miss is
 * a two-level page walk; and each first touch of a page is a fault (20-30 us per 4 KiB page
 * on a virtual machine: the planner's own large work lists use this too). A buffer of 1 MiB
 * or more therefore starts on a 2 MiB boundary, spans whole 2 MiB pages and is marked for
 * transparent huge pages (Linux's madvise MADV_HUGEPAGE, honoured where
 * /sys/kernel/mm/transparent_hugepage/enabled is [madvise] or [always], Debian's default)
 * before it is touched. Measured (README, "Huge pages for the weights"): ResNet-50 about 25 %
 * faster per call on a 2-core Xeon VM. It is only a hint: where the system has no huge pages
 * the buffer is ordinary memory. Up to 2 MiB more than asked may become resident.
 *
 * Thread-safe; never prints. */
#ifndef BERTH_MEMORY_H
#define BERTH_MEMORY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* bytes of writable memory (at least 1), 64-byte aligned, released with free(); NULL when
 * out of memory */
void *berth_host_alloc(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
