/* libFuzzer target for the text parser: the property is berth_fuzz_parse_check
 * (berth/testing.h; any bytes fail to parse with a message, or parse into a program whose
 * canonical print parses again into an equal program). tests/test_fuzz_parse_replay.c
 * replays fuzz/corpus/parse through the same function.
 *
 *   CC=clang cmake -S . -B build-fuzzers -DBERTH_FUZZERS=ON && cmake --build build-fuzzers
 *   build-fuzzers/fuzz_parse -max_len=8192 fuzz/out/parse fuzz/corpus/parse */
#include "berth/testing.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char why[1 << 16];
  if (berth_fuzz_parse_check(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_parse: %s\n", why);
    abort();
  }
  return 0;
}
