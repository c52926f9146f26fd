/* libFuzzer target for the ONNX importer: the property is berth_fuzz_onnx_check
 * (berth/testing.h; any bytes fail to import with a one-line message, or import into a
 * program that validates and plans; read as a TensorProto they decode or fail with a
 * message). tests/test_fuzz_onnx_replay.c replays fuzz/corpus/onnx through the same
 * function.
 *
 *   CC=clang cmake -S . -B build-fuzzers -DBERTH_FUZZERS=ON && cmake --build build-fuzzers
 *   build-fuzzers/fuzz_onnx fuzz/out/onnx fuzz/corpus/onnx */
#include "berth/testing.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char why[4096];
  if (berth_fuzz_onnx_check(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_onnx: %s\n", why);
    abort();
  }
  return 0;
}
