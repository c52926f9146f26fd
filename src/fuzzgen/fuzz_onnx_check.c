/* The ONNX importer's fuzz property (berth/testing.h, berth_fuzz_onnx_check): the
 * libFuzzer target fuzz/fuzz_onnx.c and tests/test_fuzz_onnx_replay.c call it.
 *
 * Property: any bytes either fail to import with a one-line message and no program, or
 * import into a program that validates and that the planner compiles (or rejects with a
 * message). The same bytes read as a TensorProto decode or fail with a message. Nothing
 * crashes, leaks or reads out of bounds (run it with ASan/UBSan). */
#include "berth/testing.h"

#include "onnx/onnx_import.h"
#include "plan/plan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int berth_fuzz_onnx_check(const uint8_t *data, size_t size, char *why, size_t why_cap) {
  char none[1];
  if (!why || !why_cap) why = none, why_cap = sizeof none;
  why[0] = '\0';
  if (!data && size) return snprintf(why, why_cap, "berth_fuzz_onnx_check: NULL data"), 100;
  if (!data) data = (const uint8_t *)"";
  char msg[2048];
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
