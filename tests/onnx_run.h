/* Runs an ONNX model built by a test (onnx_build.h) through the whole pipeline: import,
 * plan with the verifier, run once with the sanitizer, and compare output 0 byte for byte.
 * Shared by the ONNX tests that check exact results (test_onnx_numbers.c,
 * test_onnx_quant.c). */
#ifndef BERTH_TESTS_ONNX_RUN_H
#define BERTH_TESTS_ONNX_RUN_H

#include "host/session.h"
#include "onnx/onnx_import.h"
#include "plan/plan.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

/* Imports, plans and runs once (sanitizer on); output 0 must equal want (want_bytes bytes). */
static inline void onnx_expect_run(const char *name, const uint8_t *bytes, size_t len, const void *const *inputs,
                                   const void *want, size_t want_bytes) {
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_compiled_t *c = NULL;
  berth_session_t *s = NULL;
  void *outs[8] = {0};
  berth_status_t st = berth_onnx_import(bytes, len, NULL, &p, NULL, &diag);
  CHECK_MSG(st == BERTH_OK, "%s: import: %s", name, msg);
  if (!st) {
    const berth_ir_method_t *m = &p->methods[0];
    size_t got = berth_type_bytes(&m->values[m->graphs[0].results[0]].type);
    CHECK_MSG(got == want_bytes, "%s: output has %zu bytes, expected %zu", name, got, want_bytes);
    berth_plan_options_t popt = berth_plan_options_default();
    st = berth_plan_compile(p, &popt, &c, &diag);
    if (!st) st = berth_session_create(&c->exec, true, &s, &diag);
    if (!st) st = berth_session_call(s, 0, inputs, outs, &diag);
    CHECK_MSG(st == BERTH_OK, "%s: run: %s", name, msg);
    if (!st && got == want_bytes) CHECK_MSG(memcmp(outs[0], want, want_bytes) == 0, "%s: wrong values", name);
  }
  for (int k = 0; k < 8; k++) free(outs[k]);
  berth_session_destroy(s);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
}

#endif
