/* Results whose shape depends on data (--dynamic-bound N; kernel_select.c, onnx_ops_index.c):
 * the IR's `bounded(AXIS, %extent)` text and its checks, the public runtime API on a program
 * file (bounded_axis, berth_method_output_shape, the real bytes, caller output buffers, a
 * call over the bound), the runtime's own capacity check, the reference interpreter, and the
 * importer (a consumer inside the graph is refused, Identity keeps the extent, the refusal
 * without the option names it, Unique's four outputs), and an output with two bounded axes
 * (ImageDecoder's height and width: tests/bir/image_decoder.bir). */
#include "berth/compiler.h"
#include "berth/runtime.h"
#include "host/session.h"
#include "ir/ir.h"
#include "onnx/onnx_import.h"
#include "fuzzgen/onnx_build.h"
#include "plan/plan.h"
#include "program/verify.h"
#include "reference/reference.h"
#include "test_kernel_util.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#define BIR "tests/bir/dynamic_bound.bir"

/* ---- the IR text ------------------------------------------------------------------------ */

static void expect_ir_error(const char *name, const char *text, const char *needle) {
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_ir_parse(text, strlen(text), name, &p, &d);
  if (st == BERTH_OK) st = berth_ir_validate(p, &d);
  CHECK_MSG(st != BERTH_OK && strstr(msg, needle), "%s: status %d, '%s' lacks '%s'", name, (int)st, msg, needle);
  berth_ir_program_destroy(p);
}

static void test_ir_text(void) {
  size_t len;
  char *text = test_read_file(BIR, &len);
  CHECK(text != NULL);
  if (!text) return;
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  CHECK_MSG(berth_ir_parse(text, len, BIR, &p, &d) == BERTH_OK && berth_ir_validate(p, &d) == BERTH_OK, "%s", msg);
  if (p) {
    CHECK(p->methods[0].n_bounds == 1 && p->methods[0].bounds[0].result == 0 && p->methods[0].bounds[0].axis == 1);
    char *printed = berth_ir_print(p);
    CHECK(printed && strstr(printed, "return %idx bounded(1, %count), %y\n"));
    berth_ir_program_t *q = NULL;
    CHECK(printed && berth_ir_parse(printed, strlen(printed), "printed", &q, &d) == BERTH_OK);
    char *again = q ? berth_ir_print(q) : NULL;
    CHECK(again && printed && strcmp(again, printed) == 0); /* a fixed point */
    free(again);
    free(printed);
    berth_ir_program_destroy(q);
  }
  berth_ir_program_destroy(p);
  const char *head = "program {alloc_inputs = 1, alloc_outputs = 1}\n"
                     "func @forward(%x : f32[2,3]) -> (i64[2,4], f32[2,3]) {\n"
                     "  %idx, %count = nonzero_bounded(%x) {bound = 4} : i64[2,4], i64[]\n"
                     "  %y = relu(%x) : f32[2,3]\n";
  char buf[1024];
  snprintf(buf, sizeof buf, "%s  return %%idx bounded(2, %%count), %%y\n}\n", head);
  expect_ir_error("axis", buf, "bounded along axis 2, outside its rank 2");
  snprintf(buf, sizeof buf, "%s  return %%idx bounded(1, %%y), %%y\n}\n", head);
  expect_ir_error("extent dtype", buf, "is f32[2,3], expected an i64 scalar");
  snprintf(buf, sizeof buf, "%s  return %%idx bounded(9, %%count), %%y\n}\n", head);
  expect_ir_error("axis cap", buf, "an axis 0..7");
  snprintf(buf, sizeof buf, "%s  return %%idx bounded(1, %%nothing), %%y\n}\n", head);
  expect_ir_error("undefined extent", buf, "nothing");
  free(text);
}

/* ---- the public runtime API on a program file -------------------------------------------- */

typedef struct loaded {
  berth_compilation_t *c;
  void *pmem, *mmem;
  berth_program_t *prog;
  berth_method_t *m;
} loaded_t;

static bool load(const char *text, size_t len, int alloc_outputs, loaded_t *l) {
  memset(l, 0, sizeof *l);
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_compile_options_t o = berth_compile_options_default();
  o.alloc_outputs = alloc_outputs;
  bool ok = berth_compile(text, len, BIR, &o, &l->c, &d) == BERTH_OK;
  CHECK_MSG(ok, "compile: %s", msg);
  if (!ok) return false;
  size_t n;
  const uint8_t *bytes = berth_compilation_bytes(l->c, &n);
  berth_program_sizes_t sz;
  ok = berth_program_query(bytes, n, &sz, &d) == BERTH_OK;
  l->pmem = malloc(sz.program_bytes);
  void *scratch = malloc(sz.scratch_bytes);
  ok = ok && berth_program_load(bytes, n, l->pmem, sz.program_bytes, scratch, sz.scratch_bytes, &l->prog, &d) == BERTH_OK;
  free(scratch);
  CHECK_MSG(ok, "load: %s", msg);
  if (!ok) return false;
  size_t need = berth_method_memory_size(l->prog, 0);
  l->mmem = malloc(need);
  ok = berth_method_init(l->prog, 0, l->mmem, need, NULL, 0, &l->m, &d) == BERTH_OK;
  CHECK_MSG(ok, "init: %s", msg);
  return ok;
}

static void unload(loaded_t *l) {
  free(l->mmem);
  free(l->pmem);
  berth_compilation_destroy(l->c);
}

static berth_status_t call(loaded_t *l, const float *x, int64_t *idx_buf, float *y_buf, char *msg, size_t cap) {
  berth_diag_t d = berth_diag_make(msg, cap);
  berth_status_t st = berth_method_set_input(l->m, 0, x, 6 * sizeof(float), &d);
  if (!st && idx_buf) st = berth_method_set_output(l->m, 0, idx_buf, 8 * sizeof(int64_t), &d);
  if (!st && y_buf) st = berth_method_set_output(l->m, 1, y_buf, 6 * sizeof(float), &d);
  return st ? st : berth_method_execute(l->m, &d);
}

static void test_runtime_api(int alloc_outputs) {
  size_t len;
  char *text = test_read_file(BIR, &len);
  loaded_t l;
  if (!text || !load(text, len, alloc_outputs, &l)) {
    free(text);
    return;
  }
  berth_tensor_info_t info;
  CHECK(berth_program_output_info(l.prog, 0, 0, &info) == BERTH_OK && info.bounded_axis == 1 && info.type.dims[1] == 4);
  CHECK(berth_program_output_info(l.prog, 0, 1, &info) == BERTH_OK && info.bounded_axis == -1);
  CHECK(berth_program_input_info(l.prog, 0, 0, &info) == BERTH_OK && info.bounded_axis == -1);
  berth_type_t t;
  char msg[1024];
  berth_diag_t sd = berth_diag_make(msg, sizeof msg);
  CHECK(berth_method_output_shape(l.m, 0, &t, &sd) == BERTH_ERR_INVALID_ARGUMENT); /* no call yet */
  CHECK_MSG(strstr(msg, "has no outputs yet: it has not been executed"), "%s", msg);
  CHECK(berth_method_output_shape(l.m, 0, NULL, &sd) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "berth_method_output_shape: type is NULL"), "%s", msg);
  CHECK(berth_method_output_shape(NULL, 0, &t, &sd) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "berth_method_output_shape: not a method handle"), "%s", msg);
  int64_t idx_buf[8];
  float y_buf[6];
  bool caller = !alloc_outputs;
  memset(idx_buf, 0x7F, sizeof idx_buf);
  const float x[6] = {0, 1, 0, 2, 0, 3};
  CHECK_MSG(call(&l, x, caller ? idx_buf : NULL, caller ? y_buf : NULL, msg, sizeof msg) == BERTH_OK, "%s", msg);
  CHECK(berth_method_output_shape(l.m, 0, &t, NULL) == BERTH_OK && t.rank == 2 && t.dims[0] == 2 && t.dims[1] == 3);
  CHECK(berth_method_output_shape(l.m, 1, &t, NULL) == BERTH_OK && t.rank == 2 && t.dims[0] == 2 && t.dims[1] == 3);
  sd = berth_diag_make(msg, sizeof msg);
  CHECK(berth_method_output_shape(l.m, 2, &t, &sd) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "has no output 2 (2 outputs)"), "%s", msg);
  const void *data;
  size_t bytes;
  CHECK(berth_method_output(l.m, 0, &data, &bytes, NULL) == BERTH_OK && bytes == 6 * sizeof(int64_t));
  const int64_t want[8] = {0, 1, 1, 1, 0, 2, 0, 0}; /* [[0,1,1],[1,0,2]] packed, then zeros */
  CHECK(memcmp(data, want, sizeof want) == 0);
  CHECK(berth_method_output(l.m, 1, &data, &bytes, NULL) == BERTH_OK && bytes == 6 * sizeof(float));
  const float none[6] = {0};
  CHECK(call(&l, none, caller ? idx_buf : NULL, caller ? y_buf : NULL, msg, sizeof msg) == BERTH_OK);
  CHECK(berth_method_output_shape(l.m, 0, &t, NULL) == BERTH_OK && t.dims[1] == 0);
  CHECK(berth_method_output(l.m, 0, &data, &bytes, NULL) == BERTH_OK && bytes == 0);
  const float five[6] = {1, 1, 1, 0, 1, 1};
  CHECK(call(&l, five, caller ? idx_buf : NULL, caller ? y_buf : NULL, msg, sizeof msg) == BERTH_ERR_CHECK_FAILED);
  CHECK_MSG(strstr(msg, "NonZero 'nz': yields more than --dynamic-bound 4 results"), "%s", msg);
  sd = berth_diag_make(msg, sizeof msg);
  CHECK(berth_method_output_shape(l.m, 0, &t, &sd) == BERTH_ERR_INVALID_ARGUMENT); /* no outputs after a failure */
  CHECK_MSG(strstr(msg, "its last execute failed"), "%s", msg);
  unload(&l);

  /* without the importer's assert (a hand-written program), the runtime's own check refuses
   * an extent past the capacity instead of describing bytes the output does not have */
  char *weak = malloc(len + 16);
  const char *at = strstr(text, "[4]");
  if (weak && at) {
    size_t pre = (size_t)(at - text);
    memcpy(weak, text, pre);
    strcpy(weak + pre, "[100]");
    strcat(weak, at + 3);
    if (load(weak, strlen(weak), alloc_outputs, &l)) {
      CHECK(call(&l, five, caller ? idx_buf : NULL, caller ? y_buf : NULL, msg, sizeof msg) == BERTH_ERR_CHECK_FAILED);
      CHECK_MSG(strstr(msg, "output 0 has 5 entries along axis 1, outside its capacity [0, 4]"), "%s", msg);
      unload(&l);
    }
    /* the reference interpreter agrees */
    berth_ir_program_t *p = NULL;
    berth_ref_t *r = NULL;
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    CHECK(berth_ir_parse(weak, strlen(weak), "weak", &p, &d) == BERTH_OK && berth_ref_create(p, &r, &d) == BERTH_OK);
    void *outs[2] = {0};
    const void *ins[1] = {five};
    if (r) {
      CHECK(berth_ref_call(r, 0, ins, outs, &d) == BERTH_ERR_CHECK_FAILED && strstr(msg, "outside its capacity [0, 4]"));
      ins[0] = x;
      CHECK(berth_ref_call(r, 0, ins, outs, &d) == BERTH_OK);
      CHECK(berth_ref_output_shape(r, 0, 0, &t) == BERTH_OK && t.dims[1] == 3);
      CHECK(berth_ref_output_shape(r, 0, 1, &t) == BERTH_OK && t.dims[1] == 3 && t.dims[0] == 2);
      CHECK(outs[0] && memcmp(outs[0], want, sizeof want) == 0);
      free(outs[0]);
      free(outs[1]);
    }
    berth_ref_destroy(r);
    berth_ir_program_destroy(p);
  }
  free(weak);
  free(text);
}

/* ---- the importer -------------------------------------------------------------------------- */

static void expect_import_fail(const char *name, const uint8_t *m, size_t len, int64_t bound, const char *needle) {
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_onnx_options_t o = berth_onnx_options_default();
  o.dynamic_bound = bound;
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_onnx_import(m, len, &o, &p, NULL, &d);
  CHECK_MSG(st == BERTH_ERR_UNIMPLEMENTED && strstr(msg, needle) && !strchr(msg, '\n'), "%s: status %d, '%s' lacks '%s'",
            name, (int)st, msg, needle);
  berth_ir_program_destroy(p);
}

static void test_import_consumers(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2,3");
  ob_node(&b, g, "NonZero", "x", "nz")->name = "n1";
  ob_node(&b, g, "Transpose", "nz", "t")->name = "tr";
  ob_output(&b, g, "t", ONNX_I64, "");
  size_t len;
  uint8_t *m = ob_model(&b, g, 13, &len);
  expect_import_fail("consumer", m, len, 8,
                     "node 'tr' (Transpose, opset 13): input 'nz' has a data-dependent shape (--dynamic-bound); berth "
                     "supports data-dependent shapes only as graph outputs");
  expect_import_fail("no bound", m, len, 0, "--dynamic-bound N");
  ob_deinit(&b);

  /* Identity keeps the extent: the output is bounded and runs */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2,3");
  ob_node(&b, g, "NonZero", "x", "nz")->name = "n1";
  ob_node(&b, g, "Identity", "nz", "same");
  ob_output(&b, g, "same", ONNX_I64, "");
  m = ob_model(&b, g, 13, &len);
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_onnx_options_t o = berth_onnx_options_default();
  o.dynamic_bound = 5;
  berth_ir_program_t *p = NULL;
  CHECK_MSG(berth_onnx_import(m, len, &o, &p, NULL, &d) == BERTH_OK, "%s", msg);
  CHECK(p && p->methods[0].n_bounds == 1 && p->methods[0].bounds[0].axis == 1);
  berth_ir_program_destroy(p);
  ob_deinit(&b);
}

/* Unique (first-occurrence order) with a run-time input: all four outputs, planned with the
 * sanitizer and in the reference interpreter. */
static void test_unique(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_I64, "6");
  Onnx__NodeProto *n = ob_node(&b, g, "Unique", "x", "y,first,inverse,counts");
  ob_attr_i(&b, n, "sorted", 0);
  ob_output(&b, g, "y", ONNX_I64, "");
  ob_output(&b, g, "first", ONNX_I64, "");
  ob_output(&b, g, "inverse", ONNX_I64, "");
  ob_output(&b, g, "counts", ONNX_I64, "");
  size_t len;
  uint8_t *m = ob_model(&b, g, 11, &len);
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_onnx_options_t o = berth_onnx_options_default();
  o.dynamic_bound = 4;
  berth_ir_program_t *p = NULL;
  berth_compiled_t *c = NULL;
  berth_session_t *s = NULL;
  berth_ref_t *r = NULL;
  berth_plan_options_t po = berth_plan_options_default();
  CHECK_MSG(berth_onnx_import(m, len, &o, &p, NULL, &d) == BERTH_OK && berth_plan_compile(p, &po, &c, &d) == BERTH_OK &&
                berth_session_create(&c->exec, true, &s, &d) == BERTH_OK && berth_ref_create(p, &r, &d) == BERTH_OK,
            "%s", msg);
  const int64_t x[6] = {2, 1, 1, 3, 4, 3}, too_many[6] = {1, 2, 3, 4, 5, 6};
  const int64_t want_inv[6] = {0, 1, 1, 2, 3, 2};
  for (int path = 0; s && r && path < 2; path++) {
    const void *ins[1] = {x};
    void *outs[4] = {0};
    berth_status_t st = path ? berth_ref_call(r, 0, ins, outs, &d) : berth_session_call(s, 0, ins, outs, &d);
    CHECK_MSG(st == BERTH_OK, "path %d: %s", path, msg);
    berth_type_t t[4];
    for (int k = 0; k < 4 && !st; k++)
      CHECK((path ? berth_ref_output_shape(r, 0, k, &t[k]) : berth_session_output_shape(s, 0, k, &t[k], NULL)) == BERTH_OK);
    if (!st) {
      CHECK(t[0].dims[0] == 4 && t[1].dims[0] == 4 && t[2].dims[0] == 6 && t[3].dims[0] == 4); /* 4 distinct */
      const int64_t y4[4] = {2, 1, 3, 4}, f4[4] = {0, 1, 3, 4}, c4[4] = {1, 2, 2, 1};
      CHECK(memcmp(outs[0], y4, sizeof y4) == 0 && memcmp(outs[1], f4, sizeof f4) == 0);
      CHECK(memcmp(outs[2], want_inv, sizeof want_inv) == 0 && memcmp(outs[3], c4, sizeof c4) == 0);
    }
    for (int k = 0; k < 4; k++) free(outs[k]);
    ins[0] = too_many;
    st = path ? berth_ref_call(r, 0, ins, outs, &d) : berth_session_call(s, 0, ins, outs, &d);
    CHECK_MSG(st == BERTH_ERR_CHECK_FAILED && strstr(msg, "Unique 'y': yields more than --dynamic-bound 4 results"),
              "path %d: %s", path, msg);
  }
  berth_ref_destroy(r);
  berth_session_destroy(s);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  ob_deinit(&b);
}

/* ---- the kernels (kernel_select.c) --------------------------------------------------------- */

/* Runs c (n_out outputs, garbage-filled first) and compares output k with want[k] (NULL: not
 * compared, a scratch) over its whole static size: the packed real entries, then zeros. */
static void run_outs(int line, tcall_t *c, int n_out, const void *const *want) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out[8];
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, out, &d);
  CHECK_MSG(st == BERTH_OK, "line %d: infer: %s", line, msg);
  if (st) return;
  void *o[8];
  berth_tensor_ref_t ins[TC_MAX_IN], outs[8];
  for (int k = 0; k < n_out; k++) {
    size_t b = berth_type_bytes(&out[k]);
    o[k] = malloc(b ? b : 1);
    memset(o[k], 0xA5, b ? b : 1);
    outs[k] = (berth_tensor_ref_t){&out[k], o[k]};
  }
  for (int i = 0; i < c->n_in; i++) ins[i] = (berth_tensor_ref_t){&c->in[i], (void *)c->data[i]};
  berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, n_out, NULL, 0};
  c->def->run(&call);
  for (int k = 0; k < n_out; k++) {
    int64_t bad = -1;
    if (want[k])
      CHECK_MSG(tc_values_equal(out[k].dtype, berth_type_numel(&out[k]), o[k], want[k], 0, &bad),
                "line %d: output %d differs at %lld", line, k, (long long)bad);
    free(o[k]);
  }
}

static void test_kernels(void) {
  /* compress, flat, a condition shorter than the elements: positions 0 and 3, then zeros */
  tcall_t c = tc_op(&berth_op_def_compress_bounded);
  tc_int(&c, "flat", 1);
  tc_int(&c, "bound", 5);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(BERTH_DTYPE_BOOL, 1, 4), (uint8_t[]){1, 0, 0, 1});
  run_outs(__LINE__, &c, 2, (const void *[]){(float[]){1, 4, 0, 0, 0}, (int64_t[]){2}});
  /* along axis 1: the selected columns packed as f32[2, 2], then zeros */
  c = tc_op(&berth_op_def_compress_bounded);
  tc_int(&c, "axis", 1);
  tc_int(&c, "bound", 3);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(BERTH_DTYPE_BOOL, 1, 3), (uint8_t[]){0, 1, 1});
  run_outs(__LINE__, &c, 2, (const void *[]){(float[]){2, 3, 5, 6, 0, 0}, (int64_t[]){2}});
  c.in[1].dims[0] = 4; /* longer than the axis: refused (infer only) */
  EXPECT_REJECT(&c, "at most that long");
  /* nonzero over its bound: the count, and every byte of the result zero */
  c = tc_op(&berth_op_def_nonzero_bounded);
  tc_int(&c, "bound", 2);
  tc_arg(&c, ty(BERTH_DTYPE_I32, 1, 4), (int32_t[]){1, 0, 7, 9});
  run_outs(__LINE__, &c, 2, (const void *[]){(int64_t[]){0, 0}, (int64_t[]){3}});
  tc_int(&c, "bound", -1);
  EXPECT_REJECT(&c, "bound -1 is outside [0, 2^40]");
  /* unique columns (axis 1), sorted: (1,3) twice, (2,4) once; y packed as i32[2, 2] */
  c = tc_op(&berth_op_def_unique_bounded);
  tc_int(&c, "axis", 1);
  tc_int(&c, "bound", 3);
  tc_arg(&c, ty(BERTH_DTYPE_I32, 2, 2, 3), (int32_t[]){1, 2, 1, 3, 4, 3});
  run_outs(__LINE__, &c, 6,
           (const void *[]){(int32_t[]){1, 2, 3, 4, 0, 0}, (int64_t[]){0, 1, 0}, (int64_t[]){0, 1, 0},
                            (int64_t[]){2, 1, 0}, (int64_t[]){2}, NULL});
  /* nonmaxsuppression: two disjoint boxes of one class, bound 1: over it, all zero */
  c = tc_op(&berth_op_def_nms_bounded);
  tc_int(&c, "bound", 1);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 3, 1, 2, 4), (float[]){0, 0, 1, 1, 5, 5, 6, 6});
  tc_arg(&c, ty(BERTH_DTYPE_F32, 3, 1, 1, 2), (float[]){0.5f, 0.9f});
  tc_arg(&c, ty(BERTH_DTYPE_I64, 0), (int64_t[]){10});
  tc_arg(&c, ty(BERTH_DTYPE_F32, 0), (float[]){0.5f});
  tc_arg(&c, ty(BERTH_DTYPE_F32, 0), (float[]){0});
  run_outs(__LINE__, &c, 3, (const void *[]){(int64_t[]){0, 0, 0}, (int64_t[]){2}, NULL});
  tc_int(&c, "bound", 2); /* within it: the better score first */
  run_outs(__LINE__, &c, 3, (const void *[]){(int64_t[]){0, 0, 1, 0, 0, 0}, (int64_t[]){2}, NULL});
}

/* ---- two bounded axes: tests/bir/image_decoder.bir --------------------------------------- */

#define IMG_BIR "tests/bir/image_decoder.bir"

/* The IR text: both axes printed and parsed back; axes out of order or twice refused. */
static void test_two_axes_ir(const char *text, size_t len) {
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  CHECK_MSG(berth_ir_parse(text, len, IMG_BIR, &p, &d) == BERTH_OK && berth_ir_validate(p, &d) == BERTH_OK, "%s", msg);
  if (p) {
    const berth_ir_method_t *m = &p->methods[0];
    CHECK(m->n_bounds == 2 && m->bounds[0].axis == 0 && m->bounds[1].axis == 1 && m->bounds[1].result == 0);
    char *printed = berth_ir_print(p);
    CHECK(printed && strstr(printed, "return %y bounded(0, %h) bounded(1, %w)\n"));
    free(printed);
  }
  berth_ir_program_destroy(p);
  char *bad = malloc(len + 1);
  const char *at = strstr(text, "bounded(0, %h) bounded(1, %w)");
  if (bad && at) {
    memcpy(bad, text, len + 1);
    memcpy(bad + (at - text), "bounded(1, %w) bounded(0, %h)", 29);
    expect_ir_error("axes out of order", bad, "bound 1 names result 0 axis 0, expected a result (0..0) and axis after");
    memcpy(bad + (at - text), "bounded(0, %h) bounded(0, %w)", 29);
    expect_ir_error("axis twice", bad, "bound 1 names result 0 axis 0, expected a result (0..0) and axis after");
  }
  free(bad);
}

/* The exec verifier refuses the records out of axis order (the loader does too: the
 * corrupt corpus, tests/test_corrupt.c). */
static void test_two_axes_verifier(const char *text, size_t len) {
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_compiled_t *c = NULL;
  berth_plan_options_t po = berth_plan_options_default();
  CHECK(berth_ir_parse(text, len, IMG_BIR, &p, &d) == BERTH_OK && berth_plan_compile(p, &po, &c, &d) == BERTH_OK);
  if (c) {
    size_t need = berth_verify_program_scratch_size(&c->exec);
    void *scratch = malloc(need ? need : 1);
    CHECK(berth_verify_program(&c->exec, scratch, need, &d) == BERTH_OK);
    berth_exec_method_t *m = (berth_exec_method_t *)&c->exec.methods[0];
    berth_exec_bound_t *b = (berth_exec_bound_t *)m->bounds;
    CHECK(m->n_bounds == 2);
    if (m->n_bounds == 2) {
      b[1].axis = 0;
      CHECK(berth_verify_program(&c->exec, scratch, need, &d) == BERTH_ERR_CORRUPT_DATA &&
            strstr(msg, "bound 1: output 0 axis 0 is out of range [0,1) or not after the previous bound's"));
      b[1].axis = 1;
      CHECK(berth_verify_program(&c->exec, scratch, need, &d) == BERTH_OK);
    }
    free(scratch);
  }
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
}

/* The runtime API: both real extents, the packed bytes, the first bounded axis; a stream
 * no decoder takes fails the call; the reference interpreter agrees. */
static void test_two_axes_runtime(const char *text, size_t len) {
  size_t n_png, n_rgb;
  char *png = test_read_file("tests/images/png_rgb.png", &n_png), *rgb = test_read_file("tests/images/png_rgb.png.rgb", &n_rgb);
  loaded_t l;
  CHECK(png && rgb && n_png == 178 && n_rgb == 105);
  if (png && rgb && n_png == 178 && n_rgb == 105 && load(text, len, 1, &l)) {
    berth_tensor_info_t info;
    CHECK(berth_program_output_info(l.prog, 0, 0, &info) == BERTH_OK && info.bounded_axis == 0 && info.type.dims[1] == 8);
    char msg[1024];
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    CHECK(berth_method_set_input(l.m, 0, png, n_png, &d) == BERTH_OK && berth_method_execute(l.m, &d) == BERTH_OK);
    berth_type_t t;
    CHECK(berth_method_output_shape(l.m, 0, &t, &d) == BERTH_OK && t.rank == 3 && t.dims[0] == 5 && t.dims[1] == 7 && t.dims[2] == 3);
    const void *data;
    size_t bytes;
    CHECK(berth_method_output(l.m, 0, &data, &bytes, NULL) == BERTH_OK && bytes == 105);
    CHECK(memcmp(data, rgb, 105) == 0);
    size_t zeros = 0;
    for (size_t i = 105; i < 8 * 8 * 3; i++) zeros += ((const uint8_t *)data)[i] == 0;
    CHECK(zeros == 8 * 8 * 3 - 105);
    char junk[178];
    memset(junk, 0, sizeof junk);
    CHECK(berth_method_set_input(l.m, 0, junk, sizeof junk, &d) == BERTH_OK &&
          berth_method_execute(l.m, &d) == BERTH_ERR_CHECK_FAILED && strstr(msg, "ImageDecoder 'dec': no decoder accepts"));
    unload(&l);
    berth_ir_program_t *p = NULL;
    berth_ref_t *r = NULL;
    CHECK(berth_ir_parse(text, len, IMG_BIR, &p, &d) == BERTH_OK && berth_ref_create(p, &r, &d) == BERTH_OK);
    void *outs[1] = {0};
    const void *ins[1] = {png};
    if (r) {
      CHECK(berth_ref_call(r, 0, ins, outs, &d) == BERTH_OK);
      CHECK(berth_ref_output_shape(r, 0, 0, &t) == BERTH_OK && t.dims[0] == 5 && t.dims[1] == 7);
      CHECK(outs[0] && memcmp(outs[0], rgb, 105) == 0);
      free(outs[0]);
    }
    berth_ref_destroy(r);
    berth_ir_program_destroy(p);
  }
  free(png);
  free(rgb);
}

static void test_two_axes(void) {
  size_t len;
  char *text = test_read_file(IMG_BIR, &len);
  CHECK(text != NULL);
  if (!text) return;
  test_two_axes_ir(text, len);
  test_two_axes_verifier(text, len);
  test_two_axes_runtime(text, len);
  free(text);
}

int main(void) {
  test_kernels();
  test_ir_text();
  test_runtime_api(1);
  test_runtime_api(0);
  test_import_consumers();
  test_unique();
  test_two_axes();
  return test_finish("test_dynamic_bound");
}
