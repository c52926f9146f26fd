/* Replays the ONNX importer's fuzz corpus (fuzz/corpus/onnx) and berth's own ONNX test
 * models (tests/onnx) through the fuzz target's check (berth/testing.h), without libFuzzer, plus every
 * truncation and a sweep of single-byte corruptions of each file. */
#define _POSIX_C_SOURCE 200809L
#include "berth/testing.h"

#include "test_util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static char why[1 << 14];

static void check_bytes(const char *path, const uint8_t *data, size_t len, const char *what) {
  int rc = berth_fuzz_onnx_check(data, len, why, sizeof why);
  CHECK_MSG(rc == 0, "%s (%s): %s", path, what, why);
}

static void replay_one(const char *path, const char *name, const unsigned char *data, size_t len, void *ctx) {
  (void)name;
  check_bytes(path, data, len, "as is");
  if (!*(const bool *)ctx) return;
  /* truncations at a stride, and single-byte corruptions */
  size_t step = len / 64 + 1;
  for (size_t k = 0; k < len; k += step) check_bytes(path, data, k, "truncated");
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

int main(void) {
  bool mutate = true, as_is = false;
  int n = test_replay_dir(BERTH_SOURCE_DIR "/fuzz/corpus/onnx", NULL, 0, replay_one, &mutate);
  CHECK_MSG(n >= 5, "only %d corpus files", n);
  test_replay_dir(BERTH_SOURCE_DIR "/tests/onnx", NULL, TEST_REPLAY_OPTIONAL, replay_one, &as_is);
  return test_finish("test_fuzz_onnx_replay");
}
