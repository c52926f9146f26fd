/* The graph's own names on the imported method, the order of its nodes, and what a model
 * lacks (every missing op and unknown input in one message; a foreign domain named).
 * Results are
 * named by the graph outputs whatever computed them (an inlined or kept If, an Identity, a
 * graph input passed through, a constant, one value returned twice); nodes out of
 * topological order import as onnxruntime runs them; a cycle is a one-line error. Silero
 * VAD v5 (its outputs are `output` and `stateN`) when the npm package is installed. */
#define _POSIX_C_SOURCE 200809L
#include "host/session.h"
#include "plan/plan.h"
#include "onnx/onnx_import.h"
#include "fuzzgen/onnx_build.h"
#include "onnx_run.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The method's results are named want[0..n). */
static void expect_names(const char *name, const berth_ir_program_t *p, const char *const *want, int n) {
  if (!p) return;
  const berth_ir_method_t *m = &p->methods[0];
  CHECK_MSG(m->graphs[0].n_results == n, "%s: %d results, expected %d", name, (int)m->graphs[0].n_results, n);
  for (int k = 0; k < n && k < m->graphs[0].n_results; k++) {
    const char *got = m->values[m->graphs[0].results[k]].name;
    CHECK_MSG(got && strcmp(got, want[k]) == 0, "%s: result %d is '%s', expected '%s'", name, k, got ? got : "", want[k]);
  }
}

static Onnx__GraphProto *branch(ob_t *b, const char *name, const char *op, const char *out) {
  Onnx__GraphProto *g = ob_graph(b, name);
  ob_node(b, g, op, "x", out);
  ob_output(b, g, out, ONNX_F, "2");
  return g;
}

/* y = If(c) {Neg(x)} {Abs(x)} -> Identity -> out; also x itself, a constant and out again. */
static uint8_t *if_model(ob_t *b, bool const_cond, size_t *len) {
  Onnx__GraphProto *g = ob_graph(b, "main");
  ob_input(b, g, "x", ONNX_F, "2");
  if (const_cond) ob_const(b, g, "c", ONNX_BOOL, "", "1");
  else ob_input(b, g, "c", ONNX_BOOL, "");
  Onnx__NodeProto *n = ob_node(b, g, "If", "c", "If_0_outputs_0");
  ob_attr_g(b, n, "then_branch", branch(b, "then", "Neg", "then_inner"));
  ob_attr_g(b, n, "else_branch", branch(b, "else", "Abs", "else_inner"));
  ob_node(b, g, "Identity", "If_0_outputs_0", "out");
  ob_const(b, g, "k", ONNX_F, "2", "5,6");
  ob_node(b, g, "Identity", "k", "konst");
  ob_output(b, g, "out", ONNX_F, "2");
  ob_output(b, g, "x", ONNX_F, "2");
  ob_output(b, g, "konst", ONNX_F, "2");
  ob_output(b, g, "out", ONNX_F, "2");
  return ob_model(b, g, 17, len);
}

static void test_if_names(void) {
  static const char *const want[] = {"out", "x", "konst", "out"};
  char msg[2048];
  for (int mode = 0; mode < 3; mode++) {
    ob_t b;
    ob_init(&b);
    size_t len;
    uint8_t *m = if_model(&b, mode < 2, &len);
    berth_onnx_options_t opt = berth_onnx_options_default();
    opt.keep_control_flow = mode == 1;
    const char *name = mode == 0 ? "if_inlined" : mode == 1 ? "if_kept" : "if_runtime";
    berth_ir_program_t *p = onnx_import_ok(name, m, len, &opt);
    expect_names(name, p, want, 4);
    if (p) { /* it still runs: the renamed and cloned results hold the right values */
      void *outs[ONNX_RUN_MAX_OUT] = {0};
      float x[2] = {-1, 2};
      uint8_t cond = 1;
      const void *in[] = {x, &cond};
      berth_status_t st = onnx_call(p, false, in, outs, msg, sizeof msg);
      CHECK_MSG(st == BERTH_OK, "%s: run: %s", name, msg);
      if (!st) {
        const float *o0 = outs[0], *o1 = outs[1], *o2 = outs[2], *o3 = outs[3];
        CHECK_MSG(o0[0] == 1 && o0[1] == -2 && o1[0] == -1 && o1[1] == 2 && o2[0] == 5 && o2[1] == 6 && o3[0] == 1 &&
                      o3[1] == -2,
                  "%s: wrong values", name);
      }
      onnx_outs_free(outs);
      berth_ir_program_destroy(p);
    }
    ob_deinit(&b);
  }
}

/* Nodes listed consumers first (as a real fp16 model lists its input Casts last). */
static void test_topological_order(void) {
  char msg[2048];
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_input(&b, g, "c", ONNX_BOOL, "");
  ob_node(&b, g, "Add", "b,a", "y");
  /* an If whose branch reads 'a' (a capture) before 'a' is defined */
  Onnx__NodeProto *n = ob_node(&b, g, "If", "c", "b");
  Onnx__GraphProto *t = ob_graph(&b, "then");
  ob_node(&b, t, "Neg", "a", "tn");
  ob_output(&b, t, "tn", ONNX_F, "2");
  Onnx__GraphProto *e = ob_graph(&b, "else");
  ob_node(&b, e, "Abs", "a", "en");
  ob_output(&b, e, "en", ONNX_F, "2");
  ob_attr_g(&b, n, "then_branch", t);
  ob_attr_g(&b, n, "else_branch", e);
  ob_node(&b, g, "Mul", "x,x", "a");
  ob_output(&b, g, "y", ONNX_F, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  berth_ir_program_t *p = onnx_import_ok("out_of_order", m, len, NULL);
  if (p) {
    void *outs[ONNX_RUN_MAX_OUT] = {0};
    float x[2] = {-1, 3};
    uint8_t cond = 1;
    const void *in[] = {x, &cond};
    berth_status_t st = onnx_call(p, false, in, outs, msg, sizeof msg);
    CHECK_MSG(st == BERTH_OK, "out_of_order: run: %s", msg);
    if (!st) CHECK_MSG(((float *)outs[0])[0] == 0 && ((float *)outs[0])[1] == 0, "out_of_order: wrong values");
    onnx_outs_free(outs);
    berth_ir_program_destroy(p);
  }
  ob_deinit(&b);
  /* a cycle */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_node(&b, g, "Add", "x,q", "p");
  ob_node(&b, g, "Neg", "p", "q");
  ob_node(&b, g, "Abs", "x", "y");
  ob_output(&b, g, "y", ONNX_F, "2");
  m = ob_model(&b, g, 17, &len);
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  p = NULL;
  berth_status_t st = berth_onnx_import(m, len, NULL, &p, NULL, &diag);
  CHECK_MSG(st == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "2 nodes depend on each other in a cycle, node 'p' (Add)"),
            "cycle: status %d, '%s'", (int)st, msg);
  CHECK(p == NULL);
  ob_deinit(&b);
}

static void test_silero_v5(void) {
  const char *path = BERTH_SOURCE_DIR "/build/vad-deps/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx";
  size_t len = 0;
  char *bytes = test_read_file(path, &len);
  if (!bytes) {
    printf("silero_v5: skipped (%s not found; npm package @ricky0123/vad-web)\n", path);
    return;
  }
  static const char *const want[] = {"output", "stateN"};
  berth_onnx_input_spec_t spec[3] = {
      {.name = "input", .dtype = BERTH_DTYPE_F32, .rank = 2, .dims = {1, 512}},
      {.name = "state", .dtype = BERTH_DTYPE_F32, .rank = 3, .dims = {2, 1, 128}},
      {.name = "sr", .dtype = BERTH_DTYPE_I64, .rank = 0},
  };
  int64_t sr = 16000;
  spec[2].value = &sr;
  for (int keep = 0; keep < 2; keep++) {
    berth_onnx_options_t opt = berth_onnx_options_default();
    opt.inputs = spec;
    opt.n_inputs = 3;
    opt.keep_control_flow = keep != 0;
    berth_ir_program_t *p = onnx_import_ok(keep ? "silero_v5_keep" : "silero_v5", (const uint8_t *)bytes, len, &opt);
    expect_names(keep ? "silero_v5_keep" : "silero_v5", p, want, 2);
    berth_ir_program_destroy(p);
  }
  free(bytes);
}

/* Every op berth lacks (sub-graphs too) and every input of unknown dims, in one message;
 * a model of only a foreign domain names it. */
static void test_lacks(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "?,2");
  ob_input(&b, g, "z", ONNX_F, "3,?");
  ob_input(&b, g, "c", ONNX_BOOL, "");
  ob_node(&b, g, "Foo", "x", "a");
  ob_node(&b, g, "Foo", "a", "a2");
  Onnx__NodeProto *n = ob_node(&b, g, "If", "c", "y");
  Onnx__GraphProto *t = ob_graph(&b, "then");
  ob_node(&b, t, "Bar", "a2", "tb");
  ob_output(&b, t, "tb", ONNX_F, "2");
  ob_attr_g(&b, n, "then_branch", t);
  ob_attr_g(&b, n, "else_branch", branch(&b, "else", "Neg", "en"));
  ob_output(&b, g, "y", ONNX_F, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  onnx_expect_fail("lacks", m, len, NULL, BERTH_ERR_UNIMPLEMENTED,
              "berth lacks 2 ops this model uses: Foo (2 nodes), Bar (1 node); graph inputs 'x' float[?,2], 'z' "
              "float[3,?] have dynamic or unknown dims");
  ob_deinit(&b);
  /* two inputs of unknown dims, no op lacking */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "?,2");
  ob_input(&b, g, "z", ONNX_F, "?");
  ob_node(&b, g, "Neg", "x", "y");
  ob_output(&b, g, "y", ONNX_F, "?,2");
  m = ob_model(&b, g, 17, &len);
  onnx_expect_fail("unknown_dims", m, len, NULL, BERTH_ERR_INVALID_ARGUMENT,
                   "graph inputs 'x' float[?,2], 'z' float[?] have dynamic");
  ob_deinit(&b);
  /* only ai.onnx.ml */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_node(&b, g, "Binarizer", "x", "y")->domain = ob_str(&b, "ai.onnx.ml", 10);
  ob_output(&b, g, "y", ONNX_F, "2");
  Onnx__ModelProto mm;
  onnx__model_proto__init(&mm);
  mm.has_ir_version = 1;
  mm.ir_version = 8;
  Onnx__OperatorSetIdProto o;
  onnx__operator_set_id_proto__init(&o);
  o.domain = ob_str(&b, "ai.onnx.ml", 10);
  o.has_version = 1;
  o.version = 3;
  Onnx__OperatorSetIdProto *ops[1] = {&o};
  mm.n_opset_import = 1;
  mm.opset_import = ops;
  mm.graph = g;
  len = onnx__model_proto__get_packed_size(&mm);
  m = ob_alloc(&b, len);
  onnx__model_proto__pack(&mm, m);
  onnx_expect_fail("foreign_domain", m, len, NULL, BERTH_ERR_UNIMPLEMENTED,
              "the model imports only domain 'ai.onnx.ml' (opset 3), which berth does not implement (a foreign domain");
  ob_deinit(&b);
}

/* A translation's intermediate values do not take the graph's names: Clip-13 is max then
 * min, both named after its output 'y', and the text form must spell the result 'y'. */
static void test_intermediate_names(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_input(&b, g, "lo", ONNX_F, "");
  ob_input(&b, g, "hi", ONNX_F, "");
  ob_node(&b, g, "Clip", "x,lo,hi", "y");
  ob_node(&b, g, "Clip", "y,lo,hi", "y_1");
  ob_output(&b, g, "y", ONNX_F, "2");
  ob_output(&b, g, "y_1", ONNX_F, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 13, &len);
  berth_ir_program_t *p = onnx_import_ok("clip_names", m, len, NULL);
  static const char *const want[] = {"y", "y_1"};
  expect_names("clip_names", p, want, 2);
  char *text = p ? berth_ir_print(p) : NULL;
  CHECK_MSG(!p || (text && strstr(text, "return %y, %y_1\n")), "clip_names: text form: %s", text ? text : "(none)");
  free(text);
  berth_ir_program_destroy(p);
  ob_deinit(&b);
}

int main(void) {
  test_if_names();
  test_intermediate_names();
  test_lacks();
  test_topological_order();
  test_silero_v5();
  return test_finish("test_onnx_names");
}
