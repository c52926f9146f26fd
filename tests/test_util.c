#include "test_util.h"

#include "berth/kernels.h"

#include <stdlib.h>

/* BERTH_KERNELS=portable|avx2|avx512 runs a test with that kernel variant (tests/CMakeLists.txt
 * registers the kernel tests once per variant); a variant this CPU lacks skips the test. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((constructor)) static void test_pick_kernels(void) {
  const char *v = getenv("BERTH_KERNELS");
  berth_kernels_isa_t isa;
  if (!v || !*v) return;
  if (berth_kernels_isa_parse(v, &isa) != BERTH_OK) {
    fprintf(stderr, "BERTH_KERNELS=%s: unknown kernel variant\n", v);
    exit(2);
  }
  if (berth_kernels_select(isa) != BERTH_OK) {
    fprintf(stderr, "BERTH_KERNELS=%s: not in this build or on this CPU, skipped\n", v);
    exit(77);
  }
}
#endif

int test_failures = 0;
int test_checks = 0;

int test_finish(const char *name) {
  if (test_checks == 0) {
    fprintf(stderr, "%s: no checks ran\n", name);
    return 1;
  }
  fprintf(stderr, "%s: %d checks, %d failed\n", name, test_checks, test_failures);
  return test_failures ? 1 : 0;
}

char *test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) {
    buf[n] = '\0';
    if (len) *len = (size_t)n;
  }
  return buf;
}
