/* berth/testing.h's runner: one handle over the host session (a plan: a compilation's or a
 * .berth file's) and the reference interpreter, for `berth run` and `berth onnx-test`. */
#include "berth/testing.h"

#include "base/try.h"
#include "compiler/compiler_internal.h"
#include "format/read_program.h"
#include "host/session.h"
#include "reference/reference.h"

#include <stdlib.h>

struct berth_runner {
  berth_session_t *sess; /* a plan, or NULL */
  berth_ref_t *ref;      /* the reference interpreter, or NULL */
  void *mem;             /* a loaded .berth file's decoded program (owned) */
};

static berth_status_t runner_new(berth_runner_t **r, berth_diag_t *diag) {
  *r = calloc(1, sizeof **r);
  return *r ? BERTH_OK : berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
}

/* Takes over r on failure (destroys it); on success hands it to *out. */
static berth_status_t runner_done(berth_status_t st, berth_runner_t *r, berth_runner_t **out) {
  if (st) berth_runner_destroy(r);
  else *out = r;
  return st;
}

berth_status_t berth_runner_create(const berth_compilation_t *c, bool sanitize, berth_runner_t **out, berth_diag_t *diag) {
  if (!c || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_runner_create: NULL argument");
  berth_runner_t *r;
  BERTH_TRY(runner_new(&r, diag));
  return runner_done(berth_session_create(berth_compilation_exec(c), sanitize, &r->sess, diag), r, out);
}

berth_status_t berth_runner_create_file(const void *bytes, size_t len, bool sanitize, berth_runner_t **out,
                                        berth_diag_t *diag) {
  if (!bytes || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_runner_create_file: NULL argument");
  berth_runner_t *r;
  BERTH_TRY(runner_new(&r, diag));
  const berth_format_program_t *prog = NULL;
  berth_status_t st = berth_compiler_load_file(bytes, len, true, &r->mem, &prog, diag);
  if (!st) st = berth_session_create(&prog->exec, sanitize, &r->sess, diag);
  return runner_done(st, r, out);
}

berth_status_t berth_runner_create_reference(const berth_source_t *s, berth_runner_t **out, berth_diag_t *diag) {
  if (!s || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_runner_create_reference: NULL argument");
  berth_runner_t *r;
  BERTH_TRY(runner_new(&r, diag));
  return runner_done(berth_ref_create(berth_source_ir(s), &r->ref, diag), r, out);
}

void berth_runner_set_max_steps(berth_runner_t *r, uint64_t max_steps) {
  if (r && r->ref) berth_ref_set_max_steps(r->ref, max_steps);
  if (r && r->sess) berth_session_set_max_steps(r->sess, max_steps);
}

berth_status_t berth_runner_call(berth_runner_t *r, int32_t method, const void *const *inputs, void **outputs,
                                 berth_diag_t *diag) {
  if (!r) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_runner_call: NULL runner");
  return r->ref ? berth_ref_call(r->ref, method, inputs, outputs, diag)
                : berth_session_call(r->sess, method, inputs, outputs, diag);
}

berth_status_t berth_runner_output_shape(berth_runner_t *r, int32_t method, int32_t j, berth_type_t *type,
                                         berth_diag_t *diag) {
  if (!r) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_runner_output_shape: NULL runner");
  return r->ref ? berth_ref_output_shape(r->ref, method, j, type)
                : berth_session_output_shape(r->sess, method, j, type, diag);
}

void berth_runner_destroy(berth_runner_t *r) {
  if (!r) return;
  berth_session_destroy(r->sess);
  berth_ref_destroy(r->ref);
  free(r->mem);
  free(r);
}

berth_fuzz_kind_t berth_fuzz_check_source(const berth_source_t *s, uint64_t seed, const berth_fuzz_options_t *o,
                                          berth_fuzz_stats_t *stats, char *msg, size_t cap) {
  return berth_fuzz_check_program(berth_source_ir(s), seed, o, stats, msg, cap);
}
