#include "test_util.h"

#include <stdlib.h>

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
