/* The one way the ONNX tests run a model they built (fuzzgen/onnx_build.h) or read: import with
 * options, plan with the verifier, run once planned under the sanitizer and, where asked,
 * in the reference interpreter; then compare outputs or the failure's message. Shared by
 * every tests/test_onnx_*.c and the ONNX part of tests/test_kernel_spatial.c, so a change
 * to the pipeline (a new option, a new checker) lands in one place.
 *
 * Every helper reports through CHECK_MSG (test_util.h) with the case's name and frees what
 * it made. Outputs are at most ONNX_RUN_MAX_OUT. */
#ifndef BERTH_TESTS_ONNX_RUN_H
#define BERTH_TESTS_ONNX_RUN_H

#include "host/session.h"
#include "onnx/onnx_import.h"
#include "plan/plan.h"
#include "reference/reference.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ONNX_RUN_MAX_OUT = 8 };

/* Which executions a check covers. */
enum { ONNX_PLANNED = 1, ONNX_REFERENCE = 2, ONNX_BOTH = 3 };

/* Imports; NULL (after a failed CHECK) when the import fails. */
static inline berth_ir_program_t *onnx_import_ok(const char *name, const uint8_t *bytes, size_t len,
                                                 const berth_onnx_options_t *opt) {
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_onnx_import(bytes, len, opt, &p, NULL, &diag);
  CHECK_MSG(st == BERTH_OK, "%s: import: %s", name, msg);
  return st ? NULL : p;
}

/* The import must fail with status want (BERTH_OK: any failure) and a one-line message
 * holding needle, and leave no program. */
static inline void onnx_expect_fail(const char *name, const uint8_t *bytes, size_t len,
                                    const berth_onnx_options_t *opt, berth_status_t want, const char *needle) {
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_onnx_import(bytes, len, opt, &p, NULL, &diag);
  if (want != BERTH_OK)
    CHECK_MSG(st == want, "%s: status %s, expected %s (%s)", name, berth_status_name(st), berth_status_name(want),
              st ? msg : "success");
  else
    CHECK_MSG(st != BERTH_OK, "%s: imported, expected an error with '%s'", name, needle);
  CHECK_MSG(p == NULL, "%s: a failed import wrote its output", name);
  if (st) {
    CHECK_MSG(strstr(msg, needle) != NULL, "%s: message '%s' lacks '%s'", name, msg, needle);
    CHECK_MSG(strchr(msg, '\n') == NULL, "%s: message '%s' is not one line", name, msg);
  }
  berth_ir_program_destroy(p);
}

/* One call of method 0: planned (with the verifier, under the sanitizer) or in the
 * reference interpreter. outs[ONNX_RUN_MAX_OUT] get heap outputs (free with
 * onnx_outs_free); the message lands in msg. */
static inline berth_status_t onnx_call(const berth_ir_program_t *p, bool reference, const void *const *inputs,
                                       void **outs, char *msg, size_t cap) {
  berth_diag_t diag = berth_diag_make(msg, cap);
  berth_status_t st;
  if (reference) {
    berth_ref_t *r = NULL;
    st = berth_ref_create(p, &r, &diag);
    if (!st) st = berth_ref_call(r, 0, inputs, outs, &diag);
    berth_ref_destroy(r);
    return st;
  }
  berth_plan_options_t popt = berth_plan_options_default();
  berth_compiled_t *c = NULL;
  berth_session_t *s = NULL;
  st = berth_plan_compile(p, &popt, &c, &diag);
  if (!st) st = berth_session_create(&c->exec, true, &s, &diag);
  if (!st) st = berth_session_call(s, 0, inputs, outs, &diag);
  berth_session_destroy(s);
  berth_compiled_destroy(c);
  return st;
}

static inline void onnx_outs_free(void **outs) {
  for (int k = 0; k < ONNX_RUN_MAX_OUT; k++) {
    free(outs[k]);
    outs[k] = NULL;
  }
}

/* One planned call whose outputs are not wanted: its status, the message in msg. */
static inline berth_status_t onnx_run_status(const berth_ir_program_t *p, const void *const *inputs, char *msg,
                                             size_t cap) {
  void *outs[ONNX_RUN_MAX_OUT] = {0};
  berth_status_t st = onnx_call(p, false, inputs, outs, msg, cap);
  onnx_outs_free(outs);
  return st;
}

/* The type of result k of method 0. */
static inline const berth_type_t *onnx_result_type(const berth_ir_program_t *p, int k) {
  const berth_ir_method_t *m = &p->methods[0];
  return &m->values[m->graphs[0].results[k]].type;
}

/* How outputs are compared: byte for byte, or as f32 within an absolute tolerance. */
typedef struct onnx_want {
  int n_out;
  const void *const *data; /* expected bytes of each output */
  const size_t *bytes;     /* ... and their sizes */
  double f32_tol;          /* < 0: exact bytes; else outputs are f32 compared within it */
  bool first_only;         /* the program may have more results than n_out (not compared) */
} onnx_want_t;

static inline void onnx_compare(const char *name, const char *how, const berth_ir_program_t *p, void **outs,
                                const onnx_want_t *w) {
  int32_t n = p->methods[0].graphs[0].n_results;
  CHECK_MSG(w->first_only ? n >= w->n_out : n == w->n_out, "%s: %d results, expected %s%d", name, (int)n,
            w->first_only ? "at least " : "", w->n_out);
  for (int k = 0; k < w->n_out && k < p->methods[0].graphs[0].n_results; k++) {
    const berth_type_t *t = onnx_result_type(p, k);
    size_t got = berth_type_bytes(t);
    CHECK_MSG(got == w->bytes[k], "%s: %s: output %d has %zu bytes, expected %zu", name, how, k, got, w->bytes[k]);
    if (got != w->bytes[k]) continue;
    if (w->f32_tol < 0) {
      CHECK_MSG(memcmp(outs[k], w->data[k], got) == 0, "%s: %s: output %d differs", name, how, k);
      continue;
    }
    for (size_t i = 0; i < got / sizeof(float); i++) {
      float g = ((const float *)outs[k])[i], e = ((const float *)w->data[k])[i];
      CHECK_MSG(fabs((double)g - (double)e) <= w->f32_tol, "%s: %s: output %d[%zu] = %g, expected %g", name, how, k,
                i, g, e);
    }
  }
}

/* Imports with opt, runs as `how` says, compares every output with want. */
static inline void onnx_expect_outputs(const char *name, const uint8_t *bytes, size_t len,
                                       const berth_onnx_options_t *opt, int how, const void *const *inputs,
                                       const onnx_want_t *want) {
  berth_ir_program_t *p = onnx_import_ok(name, bytes, len, opt);
  if (!p) return;
  for (int pass = 0; pass < 2; pass++) {
    if (!(how & (pass ? ONNX_REFERENCE : ONNX_PLANNED))) continue;
    const char *what = pass ? "reference" : "planned";
    char msg[2048];
    void *outs[ONNX_RUN_MAX_OUT] = {0};
    berth_status_t st = onnx_call(p, pass == 1, inputs, outs, msg, sizeof msg);
    CHECK_MSG(st == BERTH_OK, "%s: %s: %s", name, what, msg);
    if (!st) onnx_compare(name, what, p, outs, want);
    onnx_outs_free(outs);
  }
  berth_ir_program_destroy(p);
}

/* Imports, plans (sanitizer on), runs once; output 0 must equal want (want_bytes bytes);
 * other outputs are not compared. */
static inline void onnx_expect_run(const char *name, const uint8_t *bytes, size_t len, const void *const *inputs,
                                   const void *want, size_t want_bytes) {
  onnx_want_t w = {1, (const void *const[]){want}, (const size_t[]){want_bytes}, -1, true};
  onnx_expect_outputs(name, bytes, len, NULL, ONNX_PLANNED, inputs, &w);
}

/* Imports; the call must fail a run-time check (BERTH_ERR_CHECK_FAILED) whose message holds
 * needle, planned and in the reference interpreter, writing no output. */
static inline void onnx_expect_check_fails(const char *name, const uint8_t *bytes, size_t len,
                                           const berth_onnx_options_t *opt, const void *const *inputs,
                                           const char *needle) {
  berth_ir_program_t *p = onnx_import_ok(name, bytes, len, opt);
  if (!p) return;
  for (int pass = 0; pass < 2; pass++) {
    char msg[2048];
    void *outs[ONNX_RUN_MAX_OUT] = {0};
    berth_status_t st = onnx_call(p, pass == 1, inputs, outs, msg, sizeof msg);
    CHECK_MSG(st == BERTH_ERR_CHECK_FAILED && strstr(msg, needle), "%s: %s: status %s, '%s' lacks '%s'", name,
              pass ? "reference" : "planned", berth_status_name(st), st ? msg : "", needle);
    for (int k = 0; k < ONNX_RUN_MAX_OUT; k++) CHECK_MSG(outs[k] == NULL, "%s: a failed call wrote output %d", name, k);
    onnx_outs_free(outs);
  }
  berth_ir_program_destroy(p);
}

#endif
