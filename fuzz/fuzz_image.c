/* libFuzzer target for the image decoders: the property is berth_fuzz_image_check
 * (berth/testing.h). tests/test_fuzz_image_replay.c replays fuzz/corpus/image and
 * tests/images through the same function.
 *
 *   CC=clang cmake -S . -B build-fuzzers -DBERTH_FUZZERS=ON && cmake --build build-fuzzers
 *   build-fuzzers/fuzz_image -max_len=4096 fuzz/out/image fuzz/corpus/image */
#include "berth/testing.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char why[4096];
  if (berth_fuzz_image_check(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_image: %s\n", why);
    abort();
  }
  return 0;
}
