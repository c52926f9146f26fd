/* The ONNX importer's LSTM with peepholes (input P, index 7): a bidirectional LSTM whose P
 * is an initializer, a graph input (read at run time) or an initializer of zeros (dropped:
 * the plain six-operand lstm), and a P of the wrong shape (an error naming P). Each model
 * runs planned (with the sanitizer) and in the reference interpreter against ONNX's
 * equations written out below one scalar at a time. The kernel's own tests over every
 * direction, layout and dtype: test_kernel_nn.c, test_kernel_onnx.c. */
#define _POSIX_C_SOURCE 200809L
#include "host/session.h"
#include "plan/plan.h"
#include "onnx/onnx_import.h"
/* the model builder's helpers are static; this file uses only some */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fuzzgen/onnx_build.h"
#pragma GCC diagnostic pop
#include "reference/reference.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* seq 2, batch 1, input 1, hidden 1, two directions */
enum { SEQ = 2 };
static const double X[SEQ] = {1.5, -0.5};
static const double W[2][4] = {{0.5, -0.25, 0.75, 0.3}, {-0.4, 0.6, 0.2, -0.7}}; /* i, o, f, c */
static const double R[2][4] = {{0.1, 0.2, -0.3, 0.4}, {0.35, -0.15, 0.25, 0.05}};
static const double B[2][8] = {{0.1, -0.2, 0.3, 0.05, 0.0, 0.1, -0.1, 0.2},
                               {-0.05, 0.15, 0.2, -0.3, 0.1, 0.0, 0.05, 0.1}}; /* Wb, then Rb */
static const double H0[2] = {0.2, -0.1}, C0[2] = {0.5, -0.8};
static const double P[2][3] = {{0.6, -0.9, 0.4}, {-0.3, 0.7, 1.1}}; /* Pi, Po, Pf */
#define W_S "0.5,-0.25,0.75,0.3,-0.4,0.6,0.2,-0.7"
#define R_S "0.1,0.2,-0.3,0.4,0.35,-0.15,0.25,0.05"
#define B_S "0.1,-0.2,0.3,0.05,0.0,0.1,-0.1,0.2,-0.05,0.15,0.2,-0.3,0.1,0.0,0.05,0.1"
#define P_S "0.6,-0.9,0.4,-0.3,0.7,1.1"

static double sig(double v) { return 1 / (1 + exp(-v)); }

/* Y [seq, 2, 1, 1], then Y_h and Y_c [2, 1, 1]; peep 0: P taken as zero. */
static void expected(bool peep, float y[2 * SEQ], float yh[2], float yc[2]) {
  for (int d = 0; d < 2; d++) {
    double h = H0[d], c = C0[d];
    double pi = peep ? P[d][0] : 0, po = peep ? P[d][1] : 0, pf = peep ? P[d][2] : 0;
    for (int s = 0; s < SEQ; s++) {
      int t = d == 1 ? SEQ - 1 - s : s;
      double a[4];
      for (int g = 0; g < 4; g++) a[g] = W[d][g] * X[t] + R[d][g] * h + B[d][g] + B[d][4 + g];
      double i = sig(a[0] + pi * c), f = sig(a[2] + pf * c), cc = tanh(a[3]);
      c = f * c + i * cc;
      double o = sig(a[1] + po * c); /* the new cell state */
      h = o * tanh(c);
      y[t * 2 + d] = (float)h;
    }
    yh[d] = (float)h;
    yc[d] = (float)c;
  }
}

static void attr_s(ob_t *b, Onnx__NodeProto *n, const char *name, const char *v) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  a->has_s = 1;
  a->s.data = (uint8_t *)ob_str(b, v, strlen(v));
  a->s.len = strlen(v);
}

typedef enum { P_CONST, P_ZERO, P_INPUT, P_BAD_SHAPE } p_kind_t;

static uint8_t *model(ob_t *b, p_kind_t kind, size_t *len) {
  Onnx__GraphProto *g = ob_graph(b, "main");
  ob_input(b, g, "x", ONNX_F, "2,1,1");
  if (kind == P_INPUT) ob_input(b, g, "p", ONNX_F, "2,3");
  ob_init_tensor(b, g, "w", ONNX_F, "2,4,1", W_S);
  ob_init_tensor(b, g, "r", ONNX_F, "2,4,1", R_S);
  ob_init_tensor(b, g, "bias", ONNX_F, "2,8", B_S);
  ob_init_tensor(b, g, "h0", ONNX_F, "2,1,1", "0.2,-0.1");
  ob_init_tensor(b, g, "c0", ONNX_F, "2,1,1", "0.5,-0.8");
  if (kind == P_CONST) ob_init_tensor(b, g, "p", ONNX_F, "2,3", P_S);
  if (kind == P_ZERO) ob_init_tensor(b, g, "p", ONNX_F, "2,3", "0,0,0,0,0,0");
  if (kind == P_BAD_SHAPE) ob_init_tensor(b, g, "p", ONNX_F, "1,3", "0.6,-0.9,0.4");
  Onnx__NodeProto *n = ob_node(b, g, "LSTM", "x,w,r,bias,,h0,c0,p", "y,yh,yc");
  ob_attr_i(b, n, "hidden_size", 1);
  attr_s(b, n, "direction", "bidirectional");
  ob_output(b, g, "y", ONNX_F, "2,2,1,1");
  ob_output(b, g, "yh", ONNX_F, "2,1,1");
  ob_output(b, g, "yc", ONNX_F, "2,1,1");
  return ob_model(b, g, 17, len);
}

static void compare(const char *name, const char *how, void *const outs[3], const float *const want[3]) {
  static const int n[3] = {2 * SEQ, 2, 2};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < n[k] && outs[k]; i++) {
      float got = ((const float *)outs[k])[i];
      CHECK_MSG(fabsf(got - want[k][i]) <= 1e-6f, "%s (%s): output %d[%d] = %.9g, expected %.9g", name, how, k, i,
                got, want[k][i]);
    }
}

/* Imports, checks the lstm node's operand count, runs planned and in the reference. */
static void run_case(const char *name, p_kind_t kind, int want_operands) {
  ob_t b;
  ob_init(&b);
  size_t len;
  uint8_t *m = model(&b, kind, &len);
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_onnx_import(m, len, NULL, &p, NULL, &diag);
  CHECK_MSG(st == BERTH_OK, "%s: import: %s", name, msg);
  if (st) {
    ob_deinit(&b);
    return;
  }
  int lstm = 0;
  for (int32_t k = 0; k < p->methods[0].n_nodes; k++) {
    const berth_ir_node_t *node = &p->methods[0].nodes[k];
    if (node->op != BERTH_OP_LSTM) continue;
    lstm++;
    CHECK_MSG(node->n_in == want_operands, "%s: lstm has %d operands, expected %d", name, (int)node->n_in,
              want_operands);
  }
  CHECK_MSG(lstm == 1, "%s: %d lstm nodes, expected 1", name, lstm);

  float y[2 * SEQ], yh[2], yc[2];
  expected(kind != P_ZERO, y, yh, yc);
  const float *want[3] = {y, yh, yc};
  float x[SEQ] = {(float)X[0], (float)X[1]}, pin[6];
  for (int i = 0; i < 6; i++) pin[i] = (float)P[i / 3][i % 3];
  const void *in[2] = {x, pin};

  berth_plan_options_t popt = berth_plan_options_default();
  berth_compiled_t *c = NULL;
  berth_session_t *s = NULL;
  void *outs[3] = {0};
  st = berth_plan_compile(p, &popt, &c, &diag);
  CHECK_MSG(st == BERTH_OK, "%s: plan: %s", name, msg);
  if (!st) st = berth_session_create(&c->exec, true, &s, &diag);
  if (!st) st = berth_session_call(s, 0, in, outs, &diag);
  CHECK_MSG(st == BERTH_OK, "%s: planned run: %s", name, msg);
  if (!st) compare(name, "planned", outs, want);
  for (int k = 0; k < 3; k++) free(outs[k]);
  berth_session_destroy(s);
  berth_compiled_destroy(c);

  void *routs[3] = {0};
  berth_ref_t *r = NULL;
  st = berth_ref_create(p, &r, &diag);
  if (!st) st = berth_ref_call(r, 0, in, routs, &diag);
  CHECK_MSG(st == BERTH_OK, "%s: reference: %s", name, msg);
  if (!st) compare(name, "reference", routs, want);
  for (int k = 0; k < 3; k++) free(routs[k]);
  berth_ref_destroy(r);
  berth_ir_program_destroy(p);
  ob_deinit(&b);
}

static void test_bad_shape(void) {
  ob_t b;
  ob_init(&b);
  size_t len;
  uint8_t *m = model(&b, P_BAD_SHAPE, &len);
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_onnx_import(m, len, NULL, &p, NULL, &diag);
  CHECK_MSG(st == BERTH_ERR_INVALID_ARGUMENT, "bad P: status %s (%s)", berth_status_name(st), msg);
  CHECK_MSG(p == NULL, "bad P: a failed import wrote its output");
  const char *needle = "P (operand 6) is f32[1,3], expected f32[2,3] ([dirs, 3*hidden_size])";
  CHECK_MSG(strstr(msg, needle) != NULL, "bad P: message '%s' lacks '%s'", msg, needle);
  berth_ir_program_destroy(p);
  ob_deinit(&b);
}

int main(void) {
  run_case("constant P", P_CONST, 7);
  run_case("runtime P", P_INPUT, 7);
  run_case("zero P", P_ZERO, 6);
  test_bad_shape();
  return test_finish("test_onnx_lstm");
}
