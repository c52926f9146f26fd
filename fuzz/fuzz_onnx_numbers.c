/* libFuzzer target: the input bytes are choices for fuzz/onnx_numgen.h, which builds a small
 * valid ONNX model with numeric edge values in its attributes and constants; the model must
 * import with a one-line error or run the same planned and in the reference interpreter.
 * Run it under UBSan (CC=clang, -DBERTH_FUZZERS=ON builds it with ASan + UBSan):
 *
 *   ./build-fuzz/fuzz_onnx_numbers -max_total_time=600 fuzz/out/numbers
 *
 * A finding's input turns into its model with
 *   build/tests/test_fuzz_onnx_numbers --model-of CRASH fuzz/corpus/onnx/NAME.onnx
 * and the corpus is replayed by ctest (test_fuzz_onnx_replay, test_fuzz_onnx_numbers). */
#include "onnx_numgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char why[4096];
  ng_t g = {data, size, 0, 0};
  ob_t b;
  ob_init(&b);
  size_t len;
  uint8_t *m = ng_model(&b, &g, &len);
  int rc = ng_check_model(&g, m, len, why, sizeof why);
  ob_free(&b);
  if (rc != 0) {
    fprintf(stderr, "fuzz_onnx_numbers: %s\n", why);
    abort();
  }
  return 0;
}
