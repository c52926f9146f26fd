/* Narrow ONNX types inside a graph (onnx_import.c, onnx_ops_core.c): a Cast to float16,
 * bfloat16, int4 or float8e8m0 and back rounds (wraps) as ONNX's Cast does, from f32 and
 * f64 sources; float16 arithmetic rounds each node's result (Add chains, Sum and Mean per
 * pairwise step) while Reshape, Relu, ... add no rounding; a Cast of a constant folds to a
 * rounded constant; a float16 graph input is rounded on entry. Each model runs planned (with the sanitizer) and in the reference
 * interpreter, and the results must equal the hand-computed values bit for bit: the
 * differences are far below any float tolerance. */
#define _POSIX_C_SOURCE 200809L
/* the model builder's helpers are static; this file uses only some */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fuzzgen/onnx_build.h"
#pragma GCC diagnostic pop
#include "onnx_run.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ONNX_BF16 = 16, ONNX_F8E8M0 = 24, ONNX_I4 = 22 };

static int count_op(const berth_ir_program_t *p, berth_op_t op) {
  int n = 0;
  for (int32_t k = 0; k < p->methods[0].n_nodes; k++) n += p->methods[0].nodes[k].op == op;
  return n;
}

static void attr_s(ob_t *b, Onnx__NodeProto *n, const char *name, const char *v) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  a->has_s = 1;
  a->s.data = (uint8_t *)ob_str(b, v, strlen(v));
  a->s.len = strlen(v);
}

static bool same_float(float g, float w) {
  uint32_t a, c;
  memcpy(&a, &g, 4);
  memcpy(&c, &w, 4);
  return (isnan(g) && isnan(w)) || a == c;
}

/* Imports (checking that the program has n_round narrow_cast nodes, -1: any number), runs
 * planned and in the reference interpreter, and compares every f32 output bit for bit. */
static void run_exact(const char *name, const uint8_t *bytes, size_t len, int n_round, const void *const *inputs,
                      int n_out, const float *const *want, const int *want_n) {
  berth_ir_program_t *p = onnx_import_ok(name, bytes, len, NULL);
  if (!p) return;
  if (n_round >= 0)
    CHECK_MSG(count_op(p, BERTH_OP_NARROW_CAST) == n_round, "%s: %d narrow_cast nodes, expected %d", name,
              count_op(p, BERTH_OP_NARROW_CAST), n_round);
  CHECK_MSG(p->methods[0].graphs[0].n_results == n_out, "%s: %d results", name, (int)p->methods[0].graphs[0].n_results);
  for (int pass = 0; pass < 2; pass++) {
    char msg[2048];
    void *outs[ONNX_RUN_MAX_OUT] = {0};
    const char *how = pass ? "reference" : "planned";
    berth_status_t st = onnx_call(p, pass == 1, inputs, outs, msg, sizeof msg);
    CHECK_MSG(st == BERTH_OK, "%s: %s: %s", name, how, msg);
    for (int k = 0; !st && k < n_out && k < p->methods[0].graphs[0].n_results; k++) {
      const berth_type_t *t = onnx_result_type(p, k);
      CHECK_MSG(t->dtype == BERTH_DTYPE_F32 && berth_type_numel(t) == want_n[k], "%s: output %d is not f32[%d]", name,
                k, want_n[k]);
      if (t->dtype != BERTH_DTYPE_F32 || berth_type_numel(t) != want_n[k]) continue;
      for (int i = 0; i < want_n[k]; i++) {
        float g = ((float *)outs[k])[i];
        CHECK_MSG(same_float(g, want[k][i]), "%s: %s: output %d[%d] = %a, expected %a", name, how, k, i, g,
                  want[k][i]);
      }
    }
    onnx_outs_free(outs);
  }
  berth_ir_program_destroy(p);
}

/* Cast f32 -> T -> f32 inside the graph, for float16, bfloat16 and int4, and f64 -> float16
 * -> f32: the values come back rounded as T holds them. */
static void test_cast_roundtrip(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "8");
  ob_input(&b, g, "d", ONNX_F64, "2");
  ob_input(&b, g, "i", ONNX_F, "4");
  ob_attr_i(&b, ob_node(&b, g, "Cast", "x", "h"), "to", ONNX_F16);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "h", "y16"), "to", ONNX_F);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "x", "hb"), "to", ONNX_BF16);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "hb", "yb"), "to", ONNX_F);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "d", "hd"), "to", ONNX_F16);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "hd", "yd"), "to", ONNX_F);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "i", "h4"), "to", ONNX_I4);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "h4", "y4"), "to", ONNX_F);
  ob_output(&b, g, "y16", ONNX_F, "8");
  ob_output(&b, g, "h", ONNX_F16, "8");
  ob_output(&b, g, "yb", ONNX_F, "8");
  ob_output(&b, g, "yd", ONNX_F, "2");
  ob_output(&b, g, "y4", ONNX_F, "4");
  size_t len;
  uint8_t *m = ob_model(&b, g, 21, &len);
  /* ties to even (1 + 2^-11 -> 1; 1 + 3 * 2^-11 -> 1 + 2^-9), the largest float16 and
   * overflow to inf, a subnormal tie (1.5 * 2^-24 -> 2^-23), 0.1, -0 and NaN */
  static const float x[8] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65519.0f, 65520.0f, 3 * 0x1p-25f, 0.1f, -0.0f, NAN};
  static const float y16[8] = {1.0f, 1.0f + 0x1p-9f, 65504.0f, INFINITY, 0x1p-23f, 0x1.998p-4f, -0.0f, NAN};
  static const float yb[8] = {1.0f, 1.0f, 65536.0f, 65536.0f, 3 * 0x1p-25f, 0x1.9ap-4f, -0.0f, NAN};
  /* from f64 directly: through f32, 1 + 2^-11 + 2^-40 would become the tie and round down */
  static const double d[2] = {1.0 + 0x1p-11 + 0x1p-40, -70000.0};
  static const float yd[2] = {1.0f + 0x1p-10f, -INFINITY};
  /* int4: round half to even, then wrap modulo 16 */
  static const float i[4] = {7.5f, -9.0f, 300.7f, 2.5f};
  static const float y4[4] = {-8.0f, 7.0f, -3.0f, 2.0f};
  run_exact("cast_roundtrip", m, len, 4, (const void *[]){x, d, i}, 5, (const float *[]){y16, y16, yb, yd, y4},
            (const int[]){8, 8, 8, 2, 4});
  ob_deinit(&b);
}

/* float8e8m0 with each round_mode (opset 25). */
static void test_e8m0_round_mode(void) {
  static const char *modes[3] = {"up", "down", "nearest"};
  static const float want[3][3] = {{4, 1, 4}, {2, 0.5f, 2}, {4, 1, 2}};
  for (int k = 0; k < 3; k++) {
    ob_t b;
    ob_init(&b);
    Onnx__GraphProto *g = ob_graph(&b, "main");
    ob_input(&b, g, "x", ONNX_F, "3");
    Onnx__NodeProto *n = ob_node(&b, g, "Cast", "x", "e");
    ob_attr_i(&b, n, "to", ONNX_F8E8M0);
    attr_s(&b, n, "round_mode", modes[k]);
    ob_attr_i(&b, ob_node(&b, g, "Cast", "e", "y"), "to", ONNX_F);
    ob_output(&b, g, "y", ONNX_F, "3");
    size_t len;
    uint8_t *m = ob_model(&b, g, 25, &len);
    static const float x[3] = {3.0f, 0.75f, 2.9f};
    char name[64];
    snprintf(name, sizeof name, "e8m0_%s", modes[k]);
    run_exact(name, m, len, 1, (const void *[]){x}, 1, (const float *[]){want[k]}, (const int[]){3});
    ob_deinit(&b);
  }
  /* an unknown round_mode is refused, naming the node */
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "3");
  Onnx__NodeProto *n = ob_node(&b, g, "Cast", "x", "e");
  ob_attr_i(&b, n, "to", ONNX_F8E8M0);
  attr_s(&b, n, "round_mode", "sideways");
  ob_output(&b, g, "e", ONNX_F8E8M0, "3");
  size_t len;
  uint8_t *m = ob_model(&b, g, 25, &len);
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_onnx_import(m, len, NULL, &p, NULL, &diag);
  CHECK_MSG(st == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "node 'e' (Cast") && strstr(msg, "round_mode 'sideways'"),
            "bad round_mode: status %d, %s", (int)st, msg);
  berth_ir_program_destroy(p);
  ob_deinit(&b);
}

/* float16 arithmetic rounds each node's result: z = (a + b) + b with a + b = 1 + 2^-11
 * rounding to 1 first (computed in f32 without rounding it would be 1 + 2^-10); Sum and
 * Mean round after each pairwise step; Reshape and Relu pass values on unrounded. */
static void test_f16_arithmetic(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "a", ONNX_F16, "3");
  ob_input(&b, g, "b", ONNX_F16, "3");
  ob_node(&b, g, "Add", "a,b", "s");
  ob_node(&b, g, "Add", "s,b", "z");
  ob_node(&b, g, "Sum", "a,b,b", "sum");
  ob_node(&b, g, "Mean", "a,b,b", "mean");
  ob_const(&b, g, "shape", ONNX_I64, "2", "3,1");
  ob_node(&b, g, "Reshape", "z,shape", "zr");
  ob_node(&b, g, "Neg", "zr", "zn");
  ob_node(&b, g, "Relu", "zn", "r");
  ob_output(&b, g, "z", ONNX_F16, "3");
  ob_output(&b, g, "sum", ONNX_F16, "3");
  ob_output(&b, g, "mean", ONNX_F16, "3");
  ob_output(&b, g, "r", ONNX_F16, "3,1");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  /* inputs hold float16 values (the caller's conversion made them) */
  static const float a[3] = {1.0f, 1.0f, 2048.0f}, bb[3] = {0x1p-11f, 0x1p-10f, 1.0f};
  static const float z[3] = {1.0f, 1.0f + 0x1p-9f, 2048.0f};
  /* mean: z / 3 rounded: 0x1.554p-2 (1/3), 171/512 exactly, 682.5 */
  static const float mean[3] = {0x1.554p-2f, 0x1.56p-2f, 682.5f};
  static const float r[3] = {0.0f, 0.0f, 0.0f};
  /* the two inputs, two Adds, Sum's two steps, Mean's two steps and its division */
  run_exact("f16_arithmetic", m, len, 9, (const void *[]){a, bb}, 4, (const float *[]){z, z, mean, r},
            (const int[]){3, 3, 3, 3});
  ob_deinit(&b);
}

/* A Cast of a constant folds to the rounded constant (no narrow_cast left), and a float16
 * initializer is exact as it is: only the input, the Add and the Mul round. */
static void test_f16_constants(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "a", ONNX_F16, "3");
  ob_init_tensor(&b, g, "c", ONNX_F, "3", "0x1.002p0,65520,0.1");
  ob_init_tensor(&b, g, "k", ONNX_F16, "3", "0x3c00,0x7bff,0x0001"); /* 1, 65504, 2^-24 */
  ob_attr_i(&b, ob_node(&b, g, "Cast", "c", "hc"), "to", ONNX_F16);
  ob_node(&b, g, "Add", "a,hc", "y");
  ob_node(&b, g, "Mul", "a,k", "w");
  ob_output(&b, g, "y", ONNX_F16, "3");
  ob_output(&b, g, "w", ONNX_F16, "3");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  static const float a[3] = {0.0f, 0.0f, 1.0f};
  /* hc = {1 + 2^-11 -> 1, 65520 -> inf, 0.1 -> 0x1.998p-4}; 1 + 0x1.998p-4 = 0x1.1998p0 -> 0x1.198p0 */
  static const float y[3] = {1.0f, INFINITY, 0x1.198p0f};
  static const float w[3] = {0.0f, 0.0f, 0x1p-24f};
  run_exact("f16_constants", m, len, 3, (const void *[]){a}, 2, (const float *[]){y, w}, (const int[]){3, 3});
  ob_deinit(&b);
}

/* Pow with a float16 exponent and a float base gives a float, not rounded; with a float16
 * base it gives float16, rounded. */
static void test_pow_types(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_input(&b, g, "e", ONNX_F16, "2");
  ob_node(&b, g, "Pow", "x,e", "p");
  ob_node(&b, g, "Pow", "e,x", "q");
  ob_output(&b, g, "p", ONNX_F, "2");
  ob_output(&b, g, "q", ONNX_F16, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  static const float x[2] = {1.0f + 0x1p-20f, 3.0f}, e[2] = {1.0f, 2.0f};
  /* p = x^e, exact in f32 (as float16 the first would be 1); q = e^x = 1, 8 */
  static const float p[2] = {1.0f + 0x1p-20f, 9.0f}, q[2] = {1.0f, 8.0f};
  run_exact("pow_types", m, len, 2, (const void *[]){x, e}, 2, (const float *[]){p, q}, (const int[]){2, 2});
  ob_deinit(&b);
}

/* A float16 graph input is rounded on entry: the caller may pass any f32. */
static void test_f16_input(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "a", ONNX_F16, "3");
  ob_node(&b, g, "Identity", "a", "y");
  ob_output(&b, g, "y", ONNX_F16, "3");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  static const float a[3] = {1.0f + 0x1p-11f, 70000.0f, 0.1f}, y[3] = {1.0f, INFINITY, 0x1.998p-4f};
  run_exact("f16_input", m, len, 1, (const void *[]){a}, 1, (const float *[]){y}, (const int[]){3});
  ob_deinit(&b);
}

int main(void) {
  test_cast_roundtrip();
  test_e8m0_round_mode();
  test_f16_arithmetic();
  test_f16_constants();
  test_pow_types();
  test_f16_input();
  return test_finish("test_onnx_narrow");
}
