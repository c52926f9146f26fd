/* The ONNX importer's numeric fuzz mode without libFuzzer: models from
 * berth_fuzz_onnx_numbers_model (berth/testing.h)
 * (small valid models with NaN, inf, 3e9, INT64_MIN/MAX, 2^40 dims, negative axes in their
 * attributes and constants) for a range of seeds, each imported and, when it imports, run
 * planned and in the reference interpreter with edge-value inputs; then every model of the
 * ONNX fuzz corpus (fuzz/corpus/onnx) run the same way. Under the sanitizer build a
 * conversion with undefined behaviour stops the test (-fno-sanitize-recover).
 *
 *   test_fuzz_onnx_numbers                      seeds 1..1000 and the corpus
 *   test_fuzz_onnx_numbers --seeds A B          seeds A..B (a longer run)
 *   test_fuzz_onnx_numbers --write SEED FILE    the model of one seed
 *   test_fuzz_onnx_numbers --model-of IN FILE   the model of a libFuzzer input */
#define _POSIX_C_SOURCE 200809L
#include "berth/testing.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>

static char why[4096];

static int write_file(const char *path, const uint8_t *d, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  size_t w = fwrite(d, 1, n, f);
  int bad = fclose(f) != 0 || w != n;
  return bad;
}

static int one_seed(uint64_t seed, const char *write_to) {
  berth_fuzz_choices_t g = {NULL, 0, 0, seed * 0x2545f4914f6cdd1dull};
  uint8_t *m = NULL;
  size_t len = 0;
  if (berth_fuzz_onnx_numbers_model(&g, &m, &len, NULL)) return snprintf(why, sizeof why, "out of memory"), 1;
  int rc = 0;
  if (write_to) rc = write_file(write_to, m, len);
  else rc = berth_fuzz_onnx_numbers_check(&g, m, len, why, sizeof why);
  free(m);
  return rc;
}

static void replay_one(const char *path, const char *name, const unsigned char *data, size_t len, void *ctx) {
  (void)name;
  (void)ctx;
  berth_fuzz_choices_t g = {NULL, 0, 0, 12345};
  int rc = berth_fuzz_onnx_numbers_check(&g, data, len, why, sizeof why);
  CHECK_MSG(rc == 0, "%s: %s", path, why);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--write") == 0) return one_seed(strtoull(argv[2], NULL, 10), argv[3]);
  if (argc == 4 && strcmp(argv[1], "--model-of") == 0) {
    size_t n = 0;
    char *in = test_read_file(argv[2], &n);
    if (!in) return fprintf(stderr, "cannot read %s\n", argv[2]), 1;
    berth_fuzz_choices_t g = {(const uint8_t *)in, n, 0, 0};
    uint8_t *m = NULL;
    size_t len = 0;
    int rc = berth_fuzz_onnx_numbers_model(&g, &m, &len, NULL) || write_file(argv[3], m, len);
    free(m);
    free(in);
    return rc;
  }
  uint64_t lo = 1, hi = 1000;
  if (argc == 4 && strcmp(argv[1], "--seeds") == 0) {
    lo = strtoull(argv[2], NULL, 10);
    hi = strtoull(argv[3], NULL, 10);
  }
  for (uint64_t s = lo; s <= hi; s++) {
    int rc = one_seed(s, NULL);
    CHECK_MSG(rc == 0, "seed %llu: %s (rerun: test_fuzz_onnx_numbers --seeds %llu %llu)", (unsigned long long)s, why,
              (unsigned long long)s, (unsigned long long)s);
  }
  if (argc == 1) test_replay_dir(BERTH_SOURCE_DIR "/fuzz/corpus/onnx", ".onnx", TEST_REPLAY_OPTIONAL, replay_one, NULL);
  return test_finish("test_fuzz_onnx_numbers");
}
