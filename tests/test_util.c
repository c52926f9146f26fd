#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "berth/kernels.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int replay_select(const struct dirent *e) { return e->d_name[0] != '.' && strcmp(e->d_name, "MANIFEST") != 0; }

int test_replay_dir(const char *dir, const char *suffix, unsigned flags, test_replay_fn fn, void *ctx) {
  const char *root = dir;
  struct dirent **names = NULL;
  int count = scandir(root, &names, replay_select, alphasort);
  if (count < 0) {
    if (!(flags & TEST_REPLAY_OPTIONAL)) CHECK_MSG(0, "cannot open the corpus %s", root);
    return 0;
  }
  int n = 0;
  size_t sl = suffix ? strlen(suffix) : 0;
  for (int i = 0; i < count; i++) {
    const char *name = names[i]->d_name;
    size_t nl = strlen(name);
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", root, name);
    struct stat sb;
    if ((nl < sl || strcmp(name + nl - sl, suffix ? suffix : "") != 0) || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
      continue;
    size_t len = 0;
    char *data = test_read_file(path, &len);
    CHECK_MSG(data != NULL, "cannot read %s", path);
    if (data) {
      fn(path, name, (const unsigned char *)data, len, ctx);
      n++;
    }
    free(data);
  }
  for (int i = 0; i < count; i++) free(names[i]);
  free(names);
  return n;
}
