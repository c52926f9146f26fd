/* Fuzz target for the ONNX importer (libFuzzer), and the same check as a plain function.
 *
 * Property: any bytes either fail to import with a one-line message and no program, or
 * import into a program that validates and that the planner compiles (or rejects with a
 * message). The same bytes read as a TensorProto decode or fail with a message. Nothing
 * crashes, leaks or reads out of bounds (run it with ASan/UBSan).
 *
 * tests/test_fuzz_onnx_replay.c compiles this file with BERTH_FUZZ_NO_ENTRY defined and
 * replays fuzz/corpus/onnx through berth_fuzz_onnx_check.
 *
 *   cmake -B build-fuzz -DCMAKE_C_COMPILER=clang -DBERTH_SANITIZE=ON && cmake --build build-fuzz
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc -Ibuild-fuzz/gen fuzz/fuzz_onnx.c \
 *         build-fuzz/libberth_compiler.a build-fuzz/libberth_runtime.a -lprotobuf-c -lm -o fuzz_onnx
 *   ./fuzz_onnx fuzz/corpus/onnx */
#include "onnx/onnx_import.h"
#include "plan/plan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns 0 when the property holds for these bytes; else nonzero with a reason in why. */
static int berth_fuzz_onnx_check(const uint8_t *data, size_t size, char *why, size_t why_cap) {
  char msg[2048];
  why[0] = '\0';
  /* as a model, with and without keeping constant-condition Ifs */
  for (int keep = 0; keep < 2; keep++) {
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    berth_onnx_options_t opt = berth_onnx_options_default();
    opt.keep_control_flow = keep != 0;
    opt.max_trip_count = 4;
    berth_ir_program_t *p = NULL;
    berth_onnx_info_t info;
    berth_status_t st = berth_onnx_import(data, size, &opt, &p, &info, &diag);
    berth_onnx_info_deinit(&info);
    if (st != BERTH_OK) {
      if (p) {
        snprintf(why, why_cap, "a failed import wrote its output");
        return 1;
      }
      if (!msg[0] || strchr(msg, '\n')) {
        snprintf(why, why_cap, "a failed import gave no one-line message: '%s'", msg);
        return 2;
      }
      continue;
    }
    if (berth_ir_validate(p, &diag) != BERTH_OK) {
      snprintf(why, why_cap, "an imported program does not validate: %s", msg);
      berth_ir_program_destroy(p);
      return 3;
    }
    berth_plan_options_t popt = berth_plan_options_default();
    berth_compiled_t *c = NULL;
    st = berth_plan_compile(p, &popt, &c, &diag);
    if (st == BERTH_ERR_VERIFY_FAILED || st == BERTH_ERR_INTERNAL) {
      snprintf(why, why_cap, "the planner fails on an imported program: %s", msg);
      berth_compiled_destroy(c);
      berth_ir_program_destroy(p);
      return 4;
    }
    berth_compiled_destroy(c);
    berth_ir_program_destroy(p);
  }
  /* as a tensor */
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_onnx_tensor_t t;
  if (berth_onnx_tensor_parse(data, size, &t, &diag) != BERTH_OK) {
    if (!msg[0]) {
      snprintf(why, why_cap, "a failed tensor parse gave no message");
      return 5;
    }
  } else {
    berth_onnx_tensor_deinit(&t);
  }
  return 0;
}

#ifndef BERTH_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char why[4096];
  if (berth_fuzz_onnx_check(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_onnx: %s\n", why);
    abort();
  }
  return 0;
}
#endif
