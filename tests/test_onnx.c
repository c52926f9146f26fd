/* The ONNX importer on small models built here with protobuf-c: folding of shape chains,
 * If (runtime, constant, nested three deep reading outer values), Loop in every M / cond
 * mode (for, while, early exit, zero trips, scan outputs), Scan with other axes and
 * directions, narrow types at the boundary, and the errors (unsupported op, dynamic dims,
 * malformed bytes). Each model runs planned and verified through a host session.
 *
 * `test_onnx --write-corpus DIR` writes the models as DIR/NAME.onnx (the fuzz corpus). */
#define _POSIX_C_SOURCE 200809L
#include "fuzzgen/onnx_build.h"
#include "onnx_run.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *corpus_dir;

static void save(const char *name, const uint8_t *bytes, size_t len) {
  if (!corpus_dir) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.onnx", corpus_dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(bytes, 1, len, f);
  fclose(f);
}

typedef struct run {
  berth_onnx_options_t opt;
  int n_calls;
} run_t;

static int count_op(const berth_ir_program_t *p, berth_op_t op) {
  int n = 0;
  for (int32_t k = 0; k < p->methods[0].n_nodes; k++) n += p->methods[0].nodes[k].op == op;
  return n;
}

/* Imports with opt, runs planned (sanitizer on) and compares the f32 outputs within 1e-5. */
static void run_f32(const char *name, const uint8_t *bytes, size_t len, const berth_onnx_options_t *opt,
                    const void *const *inputs, int n_out, const float *const *want, const int64_t *want_n) {
  size_t nb[ONNX_RUN_MAX_OUT];
  for (int k = 0; k < n_out && k < ONNX_RUN_MAX_OUT; k++) nb[k] = (size_t)want_n[k] * sizeof(float);
  onnx_want_t w = {n_out, (const void *const *)want, nb, 1e-5, false};
  onnx_expect_outputs(name, bytes, len, opt, ONNX_PLANNED, inputs, &w);
}


/* ---- models ----------------------------------------------------------------------------- */

static void test_add_initializer(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_init_tensor(&b, g, "w", ONNX_F, "2", "10,20");
  ob_node(&b, g, "Add", "x,w", "y");
  ob_output(&b, g, "y", ONNX_F, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  save("add_init", m, len);
  float x[2] = {1, 2}, y[2] = {11, 22};
  const void *in[] = {x};
  const float *want[] = {y};
  int64_t n[] = {2};
  run_f32("add_init", m, len, NULL, in, 1, want, n);
  ob_deinit(&b);
}

/* Shape -> Gather -> Mul -> Unsqueeze -> Reshape folds to one reshape; the dynamic batch dim
 * comes from a spec. */
static void test_shape_folding(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "?,3");
  ob_node(&b, g, "Shape", "x", "s");
  ob_const(&b, g, "zero", ONNX_I64, "", "0");
  ob_node(&b, g, "Gather", "s,zero", "n");
  ob_const(&b, g, "three", ONNX_I64, "", "3");
  ob_node(&b, g, "Mul", "n,three", "t");
  ob_const(&b, g, "ax", ONNX_I64, "1", "0");
  ob_node(&b, g, "Unsqueeze", "t,ax", "u");
  ob_node(&b, g, "Reshape", "x,u", "y");
  ob_output(&b, g, "y", ONNX_F, "?");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  save("shape_fold", m, len);
  berth_onnx_input_spec_t spec = {.name = "x", .dtype = BERTH_DTYPE_F32, .rank = 2, .dims = {2, 3}};
  berth_onnx_options_t opt = berth_onnx_options_default();
  opt.inputs = &spec;
  opt.n_inputs = 1;
  berth_ir_program_t *p = onnx_import_ok("shape_fold", m, len, &opt);
  if (p) {
    CHECK_MSG(p->methods[0].n_nodes == 1 && count_op(p, BERTH_OP_RESHAPE) == 1, "shape chain not folded: %d nodes",
              (int)p->methods[0].n_nodes);
    berth_ir_program_destroy(p);
  }
  float x[6] = {1, 2, 3, 4, 5, 6};
  const void *in[] = {x};
  const float *want[] = {x};
  int64_t n[] = {6};
  run_f32("shape_fold", m, len, &opt, in, 1, want, n);
  /* without the spec: a clear error naming the input */
  onnx_expect_fail("shape_fold_nospec", m, len, NULL, BERTH_ERR_INVALID_ARGUMENT, "graph input 'x'");
  ob_deinit(&b);
}

/* If on a runtime condition; branches read outer values. */
static Onnx__GraphProto *branch(ob_t *b, const char *name, const char *op, const char *ins, const char *out) {
  Onnx__GraphProto *g = ob_graph(b, name);
  ob_node(b, g, op, ins, out);
  ob_output(b, g, out, ONNX_F, "2");
  return g;
}

static void test_if(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "c", ONNX_BOOL, "");
  ob_input(&b, g, "x", ONNX_F, "2");
  Onnx__NodeProto *n = ob_node(&b, g, "If", "c", "y");
  ob_attr_g(&b, n, "then_branch", branch(&b, "then", "Add", "x,x", "t"));
  ob_attr_g(&b, n, "else_branch", branch(&b, "else", "Neg", "x", "e"));
  ob_output(&b, g, "y", ONNX_F, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  save("if_runtime", m, len);
  uint8_t t = 1, f = 0;
  float x[2] = {1, -3}, yt[2] = {2, -6}, yf[2] = {-1, 3};
  int64_t n2[] = {2};
  const void *in1[] = {&t, x};
  const float *w1[] = {yt};
  run_f32("if_then", m, len, NULL, in1, 1, w1, n2);
  const void *in2[] = {&f, x};
  const float *w2[] = {yf};
  run_f32("if_else", m, len, NULL, in2, 1, w2, n2);
  ob_deinit(&b);
}

/* If with a constant condition: inlined, unless keep_control_flow; branches of different
 * shapes are fine once inlined and an error at run time. */
static void test_if_constant(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_const(&b, g, "c", ONNX_BOOL, "", "1");
  Onnx__NodeProto *n = ob_node(&b, g, "If", "c", "y");
  ob_attr_g(&b, n, "then_branch", branch(&b, "then", "Add", "x,x", "t"));
  Onnx__GraphProto *e = ob_graph(&b, "else");
  ob_const(&b, e, "e", ONNX_F, "3", "1,2,3");
  ob_output(&b, e, "e", ONNX_F, "3");
  ob_attr_g(&b, n, "else_branch", e);
  ob_output(&b, g, "y", ONNX_F, "");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  save("if_const", m, len);
  berth_ir_program_t *p = onnx_import_ok("if_const", m, len, NULL);
  if (p) {
    CHECK(count_op(p, BERTH_OP_COND) == 0);
    berth_ir_program_destroy(p);
  }
  float x[2] = {1, -3}, y[2] = {2, -6};
  const void *in[] = {x};
  const float *w[] = {y};
  int64_t n2[] = {2};
  run_f32("if_const", m, len, NULL, in, 1, w, n2);
  berth_onnx_options_t opt = berth_onnx_options_default();
  opt.keep_control_flow = true;
  /* --keep-control-flow cannot keep it (the branches differ in type): the If is replaced
   * by its branch after all */
  p = onnx_import_ok("if_const_keep", m, len, &opt);
  if (p) {
    CHECK(count_op(p, BERTH_OP_COND) == 0);
    berth_ir_program_destroy(p);
  }
  run_f32("if_const_keep", m, len, &opt, in, 1, w, n2);
  /* ... and likewise when the branch not taken does not build at these shapes (Silero
   * VAD's 8 kHz branch given a 512-sample frame) */
  {
    Onnx__GraphProto *e2 = ob_graph(&b, "else2");
    ob_const(&b, e2, "e3", ONNX_F, "3", "1,2,3");
    ob_node(&b, e2, "Add", "x,e3", "bad");
    ob_output(&b, e2, "bad", ONNX_F, "");
    n->attribute[1]->g = e2;
    m = ob_model(&b, g, 17, &len);
    p = onnx_import_ok("if_const_keep_bad_else", m, len, &opt);
    if (p) {
      CHECK(count_op(p, BERTH_OP_COND) == 0);
      berth_ir_program_destroy(p);
    }
    run_f32("if_const_keep_bad_else", m, len, &opt, in, 1, w, n2);
    n->attribute[0]->g = e2; /* the taken branch is the bad one: the error is its own */
    m = ob_model(&b, g, 17, &len);
    onnx_expect_fail("if_const_keep_bad_taken", m, len, &opt, BERTH_ERR_INVALID_ARGUMENT, "Add");
    n->attribute[0]->g = branch(&b, "then", "Add", "x,x", "t");
    n->attribute[1]->g = e;
  }
  /* a graph input as the condition: the importer names it, so that a caller can bind it */
  Onnx__NodeProto *cn = g->node[0];
  cn->op_type = (char *)"Identity";
  cn->n_attribute = 0;
  cn->n_input = 1;
  cn->input = ob_alloc(&b, sizeof(char *));
  cn->input[0] = (char *)"cin";
  ob_input(&b, g, "cin", ONNX_BOOL, "");
  m = ob_model(&b, g, 17, &len);
  onnx_expect_fail("if_shapes_runtime", m, len, NULL, BERTH_ERR_UNIMPLEMENTED, "depends on graph input 'cin'");
  /* a runtime If whose else_branch does not build at these shapes: the message keeps the
   * branch's error and names the input to bind */
  {
    Onnx__GraphProto *e2 = ob_graph(&b, "else3");
    ob_const(&b, e2, "e4", ONNX_F, "3", "1,2,3");
    ob_node(&b, e2, "Add", "x,e4", "bad");
    ob_output(&b, e2, "bad", ONNX_F, "");
    n->attribute[1]->g = e2;
    m = ob_model(&b, g, 17, &len);
    onnx_expect_fail("if_runtime_bad_else", m, len, NULL, BERTH_ERR_INVALID_ARGUMENT,
                "a branch does not build at these shapes (node");
    onnx_expect_fail("if_runtime_bad_else_input", m, len, NULL, BERTH_ERR_INVALID_ARGUMENT,
        "depends on graph input 'cin'");
  }
  ob_deinit(&b);
}

/* Three nested Ifs, each level reading values of every enclosing graph. */
static void test_if_nested(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "c", ONNX_BOOL, "");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_node(&b, g, "Not", "c", "nc");
  /* level 3 */
  Onnx__GraphProto *t3 = ob_graph(&b, "t3");
  ob_node(&b, t3, "Add", "x,a1", "r3");
  ob_node(&b, t3, "Add", "r3,a2", "r3b");
  ob_output(&b, t3, "r3b", ONNX_F, "2");
  Onnx__GraphProto *e3 = branch(&b, "e3", "Sub", "x,a2", "s3");
  /* level 2 */
  Onnx__GraphProto *t2 = ob_graph(&b, "t2");
  ob_node(&b, t2, "Mul", "a1,x", "a2");
  Onnx__NodeProto *i3 = ob_node(&b, t2, "If", "c", "r2");
  ob_attr_g(&b, i3, "then_branch", t3);
  ob_attr_g(&b, i3, "else_branch", e3);
  ob_output(&b, t2, "r2", ONNX_F, "2");
  Onnx__GraphProto *e2 = branch(&b, "e2", "Neg", "a1", "s2");
  /* level 1 */
  Onnx__GraphProto *t1 = ob_graph(&b, "t1");
  ob_node(&b, t1, "Add", "x,x", "a1");
  Onnx__NodeProto *i2 = ob_node(&b, t1, "If", "c", "r1");
  ob_attr_g(&b, i2, "then_branch", t2);
  ob_attr_g(&b, i2, "else_branch", e2);
  ob_output(&b, t1, "r1", ONNX_F, "2");
  Onnx__GraphProto *e1 = branch(&b, "e1", "Abs", "x", "s1");
  Onnx__NodeProto *i1 = ob_node(&b, g, "If", "c", "y");
  ob_attr_g(&b, i1, "then_branch", t1);
  ob_attr_g(&b, i1, "else_branch", e1);
  ob_node(&b, g, "Identity", "nc", "unused");
  ob_output(&b, g, "y", ONNX_F, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  save("if_nested3", m, len);
  /* c true: a1 = 2x, a2 = 2x*x, r3 = x + a1 + a2 */
  uint8_t t = 1, f = 0;
  float x[2] = {1, -2}, yt[2] = {1 + 2 + 2, -2 - 4 + 8}, yf[2] = {1, 2};
  int64_t n2[] = {2};
  const void *in1[] = {&t, x};
  const float *w1[] = {yt};
  run_f32("if_nested_t", m, len, NULL, in1, 1, w1, n2);
  const void *in2[] = {&f, x};
  const float *w2[] = {yf};
  run_f32("if_nested_f", m, len, NULL, in2, 1, w2, n2);
  ob_deinit(&b);
}

/* Loop bodies: (i, cond_in, v) -> (cond_out, v', scan...) */
static Onnx__GraphProto *loop_body(ob_t *b, bool scan, const char *cond_op) {
  Onnx__GraphProto *g = ob_graph(b, "body");
  ob_input(b, g, "i", ONNX_I64, "");
  ob_input(b, g, "cin", ONNX_BOOL, "");
  ob_input(b, g, "v", ONNX_F, "1");
  ob_node(b, g, "Add", "v,v", "v2");
  if (cond_op) {
    ob_const(b, g, "lim", ONNX_F, "1", "20");
    ob_node(b, g, cond_op, "v2,lim", "c1");
    ob_const(b, g, "sq", ONNX_I64, "1", "0");
    ob_node(b, g, "Squeeze", "c1,sq", "cout");
  } else {
    ob_node(b, g, "Identity", "cin", "cout");
  }
  ob_output(b, g, "cout", ONNX_BOOL, "");
  ob_output(b, g, "v2", ONNX_F, "1");
  if (scan) {
    ob_node(b, g, "Cast", "i", "fi");
    ob_attr_i(b, g->node[g->n_node - 1], "to", ONNX_F);
    ob_node(b, g, "Add", "v2,fi", "sv");
    ob_output(b, g, "sv", ONNX_F, "1");
  }
  return g;
}

static uint8_t *loop_model(ob_t *b, const char *ins, bool scan, const char *cond_op, const char *m_val,
                           const char *c_val, size_t *len) {
  Onnx__GraphProto *g = ob_graph(b, "main");
  ob_input(b, g, "v0", ONNX_F, "1");
  if (m_val) ob_const(b, g, "M", ONNX_I64, "", m_val);
  if (c_val) ob_const(b, g, "C", ONNX_BOOL, "", c_val);
  Onnx__NodeProto *n = ob_node(b, g, "Loop", ins, scan ? "vf,ys" : "vf");
  ob_attr_g(b, n, "body", loop_body(b, scan, cond_op));
  ob_output(b, g, "vf", ONNX_F, "1");
  if (scan) ob_output(b, g, "ys", ONNX_F, "?,1");
  return ob_model(b, g, 17, len);
}

static void test_loops(void) {
  float v0[1] = {1};
  const void *in[] = {v0};
  size_t len;
  ob_t b;
  /* for (M only): 3 iterations, scan outputs 2v + i */
  ob_init(&b);
  uint8_t *m = loop_model(&b, "M,,v0", true, NULL, "3", NULL, &len);
  save("loop_for_scan", m, len);
  {
    float vf[1] = {8}, ys[3] = {2, 5, 10};
    const float *w[] = {vf, ys};
    int64_t n[] = {1, 3};
    run_f32("loop_for_scan", m, len, NULL, in, 2, w, n);
  }
  ob_deinit(&b);
  /* while (cond only): doubles while 2v < 20 -> 1,2,4,8,16 then 32 stops */
  ob_init(&b);
  m = loop_model(&b, ",C,v0", false, "Less", NULL, "1", &len);
  save("loop_while", m, len);
  {
    float vf[1] = {32};
    const float *w[] = {vf};
    int64_t n[] = {1};
    run_f32("loop_while", m, len, NULL, in, 1, w, n);
  }
  ob_deinit(&b);
  /* M and cond: early exit at 32 before M = 10 */
  ob_init(&b);
  m = loop_model(&b, "M,C,v0", false, "Less", "10", "1", &len);
  save("loop_early_exit", m, len);
  {
    float vf[1] = {32};
    const float *w[] = {vf};
    int64_t n[] = {1};
    run_f32("loop_early_exit", m, len, NULL, in, 1, w, n);
  }
  ob_deinit(&b);
  /* zero trips, with a scan output: stacked [0, 1] */
  ob_init(&b);
  m = loop_model(&b, "M,,v0", true, NULL, "0", NULL, &len);
  save("loop_zero_trip", m, len);
  {
    float vf[1] = {1}, ys[1] = {0};
    const float *w[] = {vf, ys};
    int64_t n[] = {1, 0};
    run_f32("loop_zero_trip", m, len, NULL, in, 2, w, n);
  }
  ob_deinit(&b);
  /* a runtime condition with scan outputs: a clear error */
  ob_init(&b);
  m = loop_model(&b, "M,C,v0", true, "Less", "10", "1", &len);
  onnx_expect_fail("loop_scan_dynamic", m, len, NULL, BERTH_ERR_UNIMPLEMENTED, "--max-trip-count");
  save("loop_scan_early_exit", m, len);
  {
    /* bounded by max_trip_count: 10 rows, zero after the exit at iteration 5 */
    berth_onnx_options_t opt = berth_onnx_options_default();
    opt.max_trip_count = 10;
    float vf[1] = {32}, ys[10] = {2, 5, 10, 19, 36, 0, 0, 0, 0, 0};
    const float *w[] = {vf, ys};
    int64_t n[] = {1, 10};
    run_f32("loop_scan_bounded", m, len, &opt, in, 2, w, n);
    /* a bound at M needs no check: the loop cannot run longer */
    berth_ir_program_t *p = onnx_import_ok("loop_scan_bounded", m, len, &opt);
    CHECK(p && count_op(p, BERTH_OP_ASSERT) == 0);
    berth_ir_program_destroy(p);
    /* exactly the iterations the loop runs: the check passes, the rows are all written */
    opt.max_trip_count = 5;
    float ys5[5] = {2, 5, 10, 19, 36};
    const float *w5[] = {vf, ys5};
    int64_t n5[] = {1, 5};
    run_f32("loop_scan_bound5", m, len, &opt, in, 2, w5, n5);
    p = onnx_import_ok("loop_scan_bound5", m, len, &opt);
    CHECK(p && count_op(p, BERTH_OP_ASSERT) == 1);
    berth_ir_program_destroy(p);
    /* a bound under the real count is an error at run time, never a truncated result */
    opt.max_trip_count = 4;
    onnx_expect_check_fails("loop_scan_bound4", m, len, &opt, in,
        "Loop 'vf' needs more than --max-trip-count 4 iterations");
    opt.max_trip_count = 3;
    onnx_expect_check_fails("loop_scan_bound3", m, len, &opt, in,
        "Loop 'vf' needs more than --max-trip-count 3 iterations");
  }
  ob_deinit(&b);
}

/* Scan over axis 1, reversed, output stacked along axis 1. */
static void test_scan_axes(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *body = ob_graph(&b, "body");
  ob_input(&b, body, "s", ONNX_F, "2");
  ob_input(&b, body, "xc", ONNX_F, "2");
  ob_node(&b, body, "Add", "s,xc", "s2");
  ob_node(&b, body, "Identity", "s2", "out");
  ob_output(&b, body, "s2", ONNX_F, "2");
  ob_output(&b, body, "out", ONNX_F, "2");
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "s0", ONNX_F, "2");
  ob_input(&b, g, "x", ONNX_F, "2,3");
  Onnx__NodeProto *n = ob_node(&b, g, "Scan", "s0,x", "sf,ys");
  ob_attr_g(&b, n, "body", body);
  ob_attr_i(&b, n, "num_scan_inputs", 1);
  ob_attr_ints(&b, n, "scan_input_axes", "1");
  ob_attr_ints(&b, n, "scan_input_directions", "1");
  ob_attr_ints(&b, n, "scan_output_axes", "1");
  ob_output(&b, g, "sf", ONNX_F, "2");
  ob_output(&b, g, "ys", ONNX_F, "2,3");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  save("scan_axes", m, len);
  /* x = [[1,2,3],[4,5,6]]; columns reversed: (3,6), (2,5), (1,4) */
  float s0[2] = {0, 0}, x[6] = {1, 2, 3, 4, 5, 6};
  float sf[2] = {6, 15}, ys[6] = {3, 5, 6, 6, 11, 15};
  const void *in[] = {s0, x};
  const float *w[] = {sf, ys};
  int64_t nn[] = {2, 6};
  run_f32("scan_axes", m, len, NULL, in, 2, w, nn);
  ob_deinit(&b);
}

/* A float16 input: computed in f32, its ONNX type reported for the caller to convert. */
static void test_narrow(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "h", ONNX_F16, "2");
  Onnx__NodeProto *n = ob_node(&b, g, "Cast", "h", "y");
  ob_attr_i(&b, n, "to", ONNX_F);
  ob_output(&b, g, "y", ONNX_F, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  save("cast_f16", m, len);
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_onnx_info_t info;
  berth_status_t st = berth_onnx_import(m, len, NULL, &p, &info, &diag);
  CHECK_MSG(st == BERTH_OK, "cast_f16: %s", msg);
  if (!st) {
    CHECK(info.n_inputs == 1 && info.inputs[0].elem == BERTH_ONNX_FLOAT16 && info.inputs[0].type.dtype == BERTH_DTYPE_F32);
    CHECK(info.n_outputs == 1 && info.outputs[0].elem == BERTH_ONNX_FLOAT);
  }
  berth_onnx_info_deinit(&info);
  berth_ir_program_destroy(p);
  /* conversions: float16 rounds half to even and overflows to inf; int4 wraps */
  float src[4] = {1.0009765625f + 0.00048828125f, 65520.0f, 0.1f, -9.0f}, out[4];
  berth_onnx_convert_to_elem(BERTH_DTYPE_F32, src, BERTH_ONNX_FLOAT16, 1, 1, out, 4);
  CHECK(out[0] == 1.0009765625f || out[0] == 1.001953125f);
  CHECK(isinf(out[1]));
  CHECK(fabsf(out[2] - 0.0999755859375f) < 1e-9f);
  int8_t i4[1];
  berth_onnx_convert_to_elem(BERTH_DTYPE_F32, &src[3], BERTH_ONNX_INT4, 1, 1, i4, 1);
  CHECK(i4[0] == 7);
  ob_deinit(&b);
}

static void test_errors(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_node(&b, g, "Foo", "x", "y");
  ob_output(&b, g, "y", ONNX_F, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  save("err_unknown_op", m, len);
  onnx_expect_fail("unknown_op", m, len, NULL, BERTH_ERR_UNIMPLEMENTED,
      "berth lacks 1 op this model uses: Foo (1 node)");
  /* every truncation and a few byte flips: no crash, a message on failure */
  char msg[1024];
  for (size_t k = 0; k < len; k++) {
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    berth_ir_program_t *p = NULL;
    berth_status_t st = berth_onnx_import(m, k, NULL, &p, NULL, &diag);
    CHECK_MSG(st != BERTH_OK || p != NULL, "truncated at %zu", k);
    if (st) CHECK_MSG(msg[0] != '\0', "truncated at %zu: no message", k);
    berth_ir_program_destroy(p);
  }
  ob_deinit(&b);
  /* unsupported opset and a tensor kept in an external file */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  Onnx__TensorProto *t = ob_tensor(&b, "w", ONNX_F, "2", "");
  t->has_data_location = 1;
  t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  OB_PUSH(&b, g->initializer, g->n_initializer, t);
  ob_node(&b, g, "Add", "x,w", "y");
  ob_output(&b, g, "y", ONNX_F, "2");
  m = ob_model(&b, g, 17, &len);
  onnx_expect_fail("external", m, len, NULL, BERTH_ERR_UNIMPLEMENTED, "external file");
  m = ob_model(&b, g, 99, &len);
  onnx_expect_fail("opset", m, len, NULL, BERTH_ERR_UNIMPLEMENTED, "opset 99");
  ob_deinit(&b);
  /* deep nesting: If inside If, 40 deep */
  ob_init(&b);
  Onnx__GraphProto *inner = branch(&b, "leaf", "Neg", "x", "r");
  for (int d = 0; d < 40; d++) {
    Onnx__GraphProto *outer = ob_graph(&b, "lvl");
    Onnx__NodeProto *n = ob_node(&b, outer, "If", "c", "r");
    ob_attr_g(&b, n, "then_branch", inner);
    ob_attr_g(&b, n, "else_branch", branch(&b, "leaf", "Neg", "x", "r")); /* a tree, not a DAG */
    ob_output(&b, outer, "r", ONNX_F, "2");
    inner = outer;
  }
  inner->n_input = 0;
  ob_input(&b, inner, "c", ONNX_BOOL, "");
  ob_input(&b, inner, "x", ONNX_F, "2");
  m = ob_model(&b, inner, 17, &len);
  onnx_expect_fail("deep", m, len, NULL, BERTH_ERR_OUT_OF_RANGE, "nest");
  ob_deinit(&b);
  /* garbage */
  const uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01};
  onnx_expect_fail("junk", junk, sizeof junk, NULL, BERTH_ERR_CORRUPT_DATA, "onnx:");
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0) corpus_dir = argv[2];
  test_add_initializer();
  test_shape_folding();
  test_if();
  test_if_constant();
  test_if_nested();
  test_loops();
  test_scan_axes();
  test_narrow();
  test_errors();
  return test_finish("test_onnx");
}
