/* berth_host_alloc (berth/memory.h) and its users.
 *
 * 1. Every size gives writable memory aligned to 64 bytes; from 1 MiB on aligned to 2 MiB.
 * 2. Where the system offers transparent huge pages on request (its
 *    /sys/kernel/mm/transparent_hugepage/enabled says [madvise] or [always]), the kernel
 *    reports a large buffer's mapping as eligible for them (THPeligible in /proc/self/smaps);
 *    elsewhere that part says why it is not checked.
 * 3. The compiler writes a program file of more than 1 MiB into such a buffer: the file's
 *    bytes, whose constant section every call streams through, start on a 2 MiB boundary. */
#define _DEFAULT_SOURCE
#include "berth/compiler.h"
#include "berth/memory.h"
#include "test_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)

static void sizes(void) {
  const size_t n[] = {0, 1, 63, 64, 65, 4095, 4096, (1u << 20) - 1, 1u << 20, (3u << 20) + 5};
  for (size_t i = 0; i < sizeof n / sizeof *n; i++) {
    unsigned char *p = berth_host_alloc(n[i]);
    CHECK_MSG(p != NULL, "%zu bytes", n[i]);
    if (!p) continue;
    CHECK_MSG((uintptr_t)p % 64 == 0, "%zu bytes at %p", n[i], (void *)p);
    if (n[i] >= (1u << 20)) CHECK_MSG((uintptr_t)p % HUGE_PAGE == 0, "%zu bytes at %p: not on a 2 MiB boundary", n[i], (void *)p);
    memset(p, 0x5A, n[i] ? n[i] : 1);
    CHECK(p[n[i] ? n[i] - 1 : 0] == 0x5A);
    free(p);
  }
  CHECK(berth_host_alloc(SIZE_MAX) == NULL);
}

/* 1 when the system gives huge pages on request, 0 when not, -1 when it cannot tell */
static int thp_offered(void) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return -1;
  char line[256] = "";
  const bool ok = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  if (!ok) return -1;
  return strstr(line, "[madvise]") || strstr(line, "[always]") ? 1 : 0;
}

/* THPeligible of the mapping holding p: 0 or 1, -1 when smaps does not say */
static int thp_eligible(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  bool inside = false;
  int r = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
      inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
      continue;
    }
    int v;
    if (inside && sscanf(line, "THPeligible: %d", &v) == 1) {
      r = v;
      break;
    }
  }
  fclose(f);
  return r;
}

static void huge_pages(void) {
  const int offered = thp_offered();
  void *p = berth_host_alloc(3u << 20);
  CHECK(p != NULL);
  const int eligible = p ? thp_eligible(p) : -1;
  if (offered != 1 || eligible < 0)
    printf("  huge pages: not checked (this system %s, smaps %s THPeligible)\n",
           offered == 1 ? "offers them" : offered == 0 ? "does not offer them on request" : "does not say",
           eligible < 0 ? "lacks" : "has");
  else
    CHECK_MSG(eligible == 1, "a 3 MiB buffer is not eligible for transparent huge pages");
  free(p);
}

/* a program with 2 MiB of constants: f32[524288] */
static void program_file(void) {
  const size_t n = 524288;
  const char *head = "const @w : f32[524288] = [";
  const char *tail = "]\n\nfunc @forward(%x : f32[524288]) -> (f32[524288]) {\n  %y = add(%x, @w) : f32[524288]\n  return %y\n}\n";
  size_t len = strlen(head) + 2 * n + strlen(tail) + 1;
  char *src = malloc(len), *q = src;
  if (!src) {
    CHECK(src != NULL);
    return;
  }
  q += sprintf(q, "%s", head);
  for (size_t i = 0; i < n; i++) q += sprintf(q, i ? ",1" : "1");
  q += sprintf(q, "%s", tail);
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_compile_options_t opt = berth_compile_options_default();
  berth_compilation_t *c = NULL;
  CHECK_MSG(berth_compile(src, (size_t)(q - src), "big.bir", &opt, &c, &diag) == BERTH_OK, "%s", msg);
  if (c) {
    size_t flen = 0;
    const uint8_t *file = berth_compilation_bytes(c, &flen);
    CHECK_MSG(flen > ((size_t)2 << 20), "%zu bytes", flen);
    CHECK_MSG((uintptr_t)file % HUGE_PAGE == 0, "the program file at %p is not on a 2 MiB boundary", (const void *)file);
    berth_compilation_destroy(c);
  }
  free(src);
}

int main(void) {
  sizes();
  huge_pages();
  program_file();
  return test_finish("test_host_alloc");
}
