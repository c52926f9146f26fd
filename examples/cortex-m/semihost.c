/* ARM semihosting calls: r0 = operation, r1 = argument block, `bkpt 0xab` (Thumb). */
#include "semihost.h"

#include <stdint.h>
#include <string.h>

enum {
  SYS_OPEN = 0x01,
  SYS_WRITE = 0x05,
  SYS_EXIT = 0x18,
  ADP_STOPPED_APPLICATION_EXIT = 0x20026,
  ADP_STOPPED_RUNTIME_ERROR_UNKNOWN = 0x20023,
};

static int32_t semihost_call(int32_t op, const void *arg) {
  register int32_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

/* The host's stdout / stderr: ":tt" opened for writing (mode 4, "w") / appending (mode 8,
 * "a"), as the semihosting specification asks. -1 until opened. */
static int32_t tt_handle[2] = {-1, -1};

void semihost_puts(const char *s, bool toerr) {
  int32_t *h = &tt_handle[toerr];
  if (*h < 0) {
    const uint32_t open_args[3] = {(uint32_t)(uintptr_t) ":tt", toerr ? 8u : 4u, 3u};
    *h = semihost_call(SYS_OPEN, open_args);
    if (*h < 0) return;
  }
  const uint32_t write_args[3] = {(uint32_t)*h, (uint32_t)(uintptr_t)s, (uint32_t)strlen(s)};
  semihost_call(SYS_WRITE, write_args);
}

_Noreturn void semihost_exit(bool ok) {
  /* 32-bit ARM passes the reason itself in r1; QEMU exits 0 for "application exit" only. */
  semihost_call(SYS_EXIT, (const void *)(uintptr_t)(ok ? ADP_STOPPED_APPLICATION_EXIT
                                                       : ADP_STOPPED_RUNTIME_ERROR_UNKNOWN));
  for (;;) {
  }
}
