/* Replays the ONNX importer's fuzz corpus (fuzz/corpus/onnx) and berth's own ONNX test
 * models (tests/onnx) through the fuzz target's check (berth/testing.h), without libFuzzer, plus every
 * truncation and a sweep of single-byte corruptions of each file. */
#define _POSIX_C_SOURCE 200809L
#include "berth/testing.h"

#include "test_util.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char why[1 << 14];

static void check_bytes(const char *path, const uint8_t *data, size_t len, const char *what) {
  int rc = berth_fuzz_onnx_check(data, len, why, sizeof why);
  CHECK_MSG(rc == 0, "%s (%s): %s", path, what, why);
}

static int replay_dir(const char *rel, bool mutate) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", BERTH_SOURCE_DIR, rel);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e = readdir(d); e; e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    size_t len = 0;
    char *data = test_read_file(path, &len);
    CHECK_MSG(data != NULL, "cannot read %s", path);
    if (!data) continue;
    check_bytes(path, (const uint8_t *)data, len, "as is");
    if (mutate) {
      /* truncations at a stride, and single-byte corruptions */
      size_t step = len / 64 + 1;
      for (size_t k = 0; k < len; k += step) check_bytes(path, (const uint8_t *)data, k, "truncated");
      uint8_t *copy = malloc(len ? len : 1);
      for (size_t k = 0; copy && k < len; k += step) {
        memcpy(copy, data, len);
        copy[k] ^= (uint8_t)(0x5a + k);
        check_bytes(path, copy, len, "corrupted");
        copy[k] = 0xff;
        check_bytes(path, copy, len, "corrupted 0xff");
      }
      free(copy);
    }
    free(data);
    n++;
  }
  closedir(d);
  return n;
}

int main(void) {
  int n = replay_dir("fuzz/corpus/onnx", true);
  CHECK_MSG(n >= 5, "only %d corpus files", n);
  replay_dir("tests/onnx", false);
  return test_finish("test_fuzz_onnx_replay");
}
