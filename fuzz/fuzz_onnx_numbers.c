/* libFuzzer target: the input bytes are choices for berth_fuzz_onnx_numbers_model
 * (berth/testing.h), which builds a small valid ONNX model with numeric edge values in its
 * attributes and constants; the model must import with a one-line error or run the same
 * planned and in the reference interpreter (berth_fuzz_onnx_numbers_check, its inputs drawn
 * from the rest of the bytes). Run it under UBSan (CC=clang, -DBERTH_FUZZERS=ON builds it
 * with ASan + UBSan):
 *
 *   ./build-fuzz/fuzz_onnx_numbers -max_total_time=600 fuzz/out/numbers
 *
 * A finding's input turns into its model with
 *   build/tests/test_fuzz_onnx_numbers --model-of CRASH fuzz/corpus/onnx/NAME.onnx
 * and the corpus is replayed by ctest (test_fuzz_onnx_replay, test_fuzz_onnx_numbers). */
#include "berth/testing.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char why[4096];
  berth_fuzz_choices_t c = {data, size, 0, 0};
  uint8_t *m = NULL;
  size_t len = 0;
  if (berth_fuzz_onnx_numbers_model(&c, &m, &len, NULL)) return 0; /* out of memory */
  int rc = berth_fuzz_onnx_numbers_check(&c, m, len, why, sizeof why);
  free(m);
  if (rc != 0) {
    fprintf(stderr, "fuzz_onnx_numbers: %s\n", why);
    abort();
  }
  return 0;
}
