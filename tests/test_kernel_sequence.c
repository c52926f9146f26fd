/* Hand-computed cases of the sequence family's kernels (kernel_loss.c, kernel_rotary.c,
 * kernel_rnn.c) where the ONNX suite does not reach: the `ok` result on out-of-range class
 * indices, position ids and sequence lengths (read nothing out of bounds, under ASan),
 * ignore_index, sequence lengths with zeros past the end, activations with alpha / beta,
 * clip, GRU's linear_before_reset both ways, tfidf's skips, empty levels and weights, and the
 * infer-time rejections. */
#include "test_kernel_util.h"

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64
#define I32 BERTH_DTYPE_I32
#define I64 BERTH_DTYPE_I64

/* Infers and runs a call with several results into fresh buffers (filled with garbage). */
typedef struct mres {
  int n;
  berth_type_t t[3];
  void *buf[3];
} mres_t;

static bool mrun(int line, tcall_t *c, int n_out, mres_t *r) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  memset(r, 0, sizeof *r);
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, r->t, &d);
  CHECK_MSG(st == BERTH_OK, "line %d: %s infer failed: %s", line, c->def->name, msg);
  if (st != BERTH_OK) return false;
  berth_tensor_ref_t ins[TC_MAX_IN], outs[3];
  for (int i = 0; i < c->n_in; i++) {
    ins[i].type = &c->in[i];
    ins[i].data = (void *)c->data[i];
  }
  r->n = n_out;
  for (int i = 0; i < n_out; i++) {
    size_t bytes = berth_type_bytes(&r->t[i]);
    r->buf[i] = malloc(bytes ? bytes : 1);
    memset(r->buf[i], 0xA5, bytes ? bytes : 1);
    outs[i].type = &r->t[i];
    outs[i].data = r->buf[i];
  }
  uint64_t sb;
  void *scratch = tc_scratch(c->def, c->attrs, c->in, c->n_in, &sb);
  berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, n_out, scratch, sb};
  c->def->run(&call);
  free(scratch);
  return true;
}

static void mfree(mres_t *r) {
  for (int i = 0; i < r->n; i++) free(r->buf[i]);
}

static void near_f32(int line, const float *got, const double *want, int n, double tol) {
  for (int i = 0; i < n; i++)
    CHECK_MSG(fabs(got[i] - want[i]) <= tol, "line %d: element %d is %.9g, expected %.9g", line, i, got[i], want[i]);
}

static bool ok_of(const mres_t *r, int i) { return *(const uint8_t *)r->buf[i] != 0; }

/* ---- nll_loss --------------------------------------------------------------------------- */

static void test_nll(void) {
  const float x[6] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}; /* [2, 3] */
  const float w[3] = {1, 2, 3};
  mres_t r;
  /* mean with weights: (-0.3*3 - 0.4*1) / (3 + 1) */
  tcall_t c = tc_op(&berth_op_def_nll_loss);
  tc_arg(&c, ty(F32, 2, 2, 3), x);
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){2, 0});
  tc_arg(&c, ty(F32, 1, 3), w);
  if (mrun(__LINE__, &c, 2, &r)) {
    CHECK(r.t[0].rank == 0 && ok_of(&r, 1));
    near_f32(__LINE__, r.buf[0], (double[]){(-0.3 * 3 - 0.4) / 4}, 1, 1e-6);
    mfree(&r);
  }
  /* none, ignore_index -1: the ignored entry is 0 and weighs nothing; i32 targets */
  c = tc_op(&berth_op_def_nll_loss);
  tc_int(&c, "reduction", 0);
  tc_int(&c, "ignore_index", -1);
  tc_int(&c, "has_ignore", 1);
  tc_arg(&c, ty(F32, 2, 2, 3), x);
  tc_arg(&c, ty(I32, 1, 2), (int32_t[]){-1, 1});
  if (mrun(__LINE__, &c, 2, &r)) {
    CHECK(r.t[0].rank == 1 && r.t[0].dims[0] == 2 && ok_of(&r, 1));
    near_f32(__LINE__, r.buf[0], (double[]){0, -0.5}, 2, 1e-7);
    mfree(&r);
  }
  /* mean with ignore_index and no weight: divided by the count of targets not ignored */
  tc_int(&c, "reduction", 2);
  if (mrun(__LINE__, &c, 2, &r)) {
    near_f32(__LINE__, r.buf[0], (double[]){-0.5}, 1, 1e-7);
    mfree(&r);
  }
  /* out of range (3 and -1 without ignore_index): nothing read, ok false */
  c = tc_op(&berth_op_def_nll_loss);
  tc_int(&c, "reduction", 1);
  tc_arg(&c, ty(F32, 2, 2, 3), x);
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){3, -1});
  if (mrun(__LINE__, &c, 2, &r)) {
    CHECK(!ok_of(&r, 1));
    mfree(&r);
  }
  /* [N, C, d] with d = 2: x[n, t[n, j], j] */
  c = tc_op(&berth_op_def_nll_loss);
  tc_int(&c, "reduction", 0);
  tc_arg(&c, ty(F32, 3, 1, 3, 2), x);
  tc_arg(&c, ty(I64, 2, 1, 2), (int64_t[]){2, 0});
  if (mrun(__LINE__, &c, 2, &r)) {
    near_f32(__LINE__, r.buf[0], (double[]){-0.5, -0.2}, 2, 1e-7);
    mfree(&r);
  }
  /* rejections */
  c = tc_op(&berth_op_def_nll_loss);
  tc_int(&c, "reduction", 3);
  tc_arg(&c, ty(F32, 2, 2, 3), x);
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){0, 0});
  EXPECT_REJECT(&c, "reduction is 3");
  c = tc_op(&berth_op_def_nll_loss);
  tc_arg(&c, ty(F32, 2, 2, 3), x);
  tc_arg(&c, ty(I64, 1, 3), (int64_t[]){0, 0, 0});
  EXPECT_REJECT(&c, "expected [N, C, d...] and [N, d...]");
  c = tc_op(&berth_op_def_nll_loss);
  tc_arg(&c, ty(F32, 2, 2, 3), x);
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){0, 0});
  tc_arg(&c, ty(F32, 1, 2), w);
  EXPECT_REJECT(&c, "weight");
  c = tc_op(&berth_op_def_nll_loss);
  tc_arg(&c, ty(F32, 2, 2, 3), x);
  tc_arg(&c, ty(F32, 1, 2), w);
  EXPECT_REJECT(&c, "expected one of i32, i64");
}

/* ---- rotary_embedding ------------------------------------------------------------------- */

static void test_rotary(void) {
  const float x[4] = {1, 2, 3, 4};
  const float cs[2] = {0.5f, 0.25f}, sn[2] = {0.75f, 0.125f};
  mres_t r;
  /* halves: pairs (x0, x2), (x1, x3) */
  tcall_t c = tc_op(&berth_op_def_rotary_embedding);
  tc_arg(&c, ty(F32, 4, 1, 1, 1, 4), x);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), cs);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), sn);
  if (mrun(__LINE__, &c, 2, &r)) {
    near_f32(__LINE__, r.buf[0], (double[]){0.5 - 0.75 * 3, 0.25 * 2 - 0.125 * 4, 0.75 + 0.5 * 3, 0.125 * 2 + 0.25 * 4}, 4,
             1e-6);
    CHECK(ok_of(&r, 1));
    mfree(&r);
  }
  /* interleaved: pairs (x0, x1), (x2, x3) */
  tc_int(&c, "interleaved", 1);
  if (mrun(__LINE__, &c, 2, &r)) {
    near_f32(__LINE__, r.buf[0], (double[]){0.5 - 0.75 * 2, 0.75 + 0.5 * 2, 0.25 * 3 - 0.125 * 4, 0.125 * 3 + 0.25 * 4},
             4, 1e-6);
    mfree(&r);
  }
  /* rotary dim 2 on a 3-D input with 2 heads of 2: each head's pair rotated by row 0 */
  c = tc_op(&berth_op_def_rotary_embedding);
  tc_int(&c, "num_heads", 2);
  tc_int(&c, "rotary_dim", 2);
  tc_arg(&c, ty(F32, 3, 1, 1, 4), x);
  tc_arg(&c, ty(F32, 2, 3, 1), (float[]){9, 0.5f, 9});
  tc_arg(&c, ty(F32, 2, 3, 1), (float[]){9, 0.75f, 9});
  tc_arg(&c, ty(I64, 2, 1, 1), (int64_t[]){1});
  if (mrun(__LINE__, &c, 2, &r)) {
    near_f32(__LINE__, r.buf[0], (double[]){0.5 - 1.5, 0.75 + 1, 1.5 - 3, 2.25 + 2}, 4, 1e-6);
    CHECK(ok_of(&r, 1));
    mfree(&r);
  }
  /* a position id past the cache: copied, ok false */
  c.data[3] = (int64_t[]){3};
  if (mrun(__LINE__, &c, 2, &r)) {
    near_f32(__LINE__, r.buf[0], (double[]){1, 2, 3, 4}, 4, 0);
    CHECK(!ok_of(&r, 1));
    mfree(&r);
  }
  /* rejections */
  c = tc_op(&berth_op_def_rotary_embedding);
  tc_int(&c, "rotary_dim", 3);
  tc_arg(&c, ty(F32, 4, 1, 1, 1, 4), x);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), cs);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), sn);
  EXPECT_REJECT(&c, "expected even");
  c = tc_op(&berth_op_def_rotary_embedding);
  tc_arg(&c, ty(F32, 3, 1, 1, 4), x);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), cs);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), sn);
  EXPECT_REJECT(&c, "num_heads is 0");
  c = tc_op(&berth_op_def_rotary_embedding);
  tc_arg(&c, ty(F32, 4, 1, 1, 1, 4), x);
  tc_arg(&c, ty(F32, 3, 1, 1, 1), cs);
  tc_arg(&c, ty(F32, 3, 1, 1, 1), sn);
  EXPECT_REJECT(&c, "cos cache");
}

/* ---- rnn and gru ------------------------------------------------------------------------ */

static int64_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (int64_t)u;
}

static void test_rnn(void) {
  /* H = 1, I = 1, seq 2, batch 2; f = Affine(2, 1): h_t = 2 (w x + r h + wb + rb) + 1 */
  const double xv[4] = {0.5, -1, 0.25, 2}; /* [seq, batch, 1] */
  mres_t r;
  tcall_t c = tc_op(&berth_op_def_rnn);
  TC_INTS(&c, "activations", 3);
  TC_INTS(&c, "act_params", f32_bits(2), f32_bits(1));
  tc_arg(&c, ty(F64, 3, 2, 2, 1), xv);
  tc_arg(&c, ty(F64, 3, 1, 1, 1), (double[]){0.5});
  tc_arg(&c, ty(F64, 3, 1, 1, 1), (double[]){0.25});
  tc_arg(&c, ty(F64, 2, 1, 2), (double[]){0.125, -0.125});
  tc_arg(&c, ty(F64, 3, 1, 2, 1), (double[]){1, -1});
  tc_arg(&c, ty(I32, 1, 2), (int32_t[]){2, 0}); /* batch 1 runs no step */
  if (mrun(__LINE__, &c, 3, &r)) {
    double h00 = 2 * (0.5 * 0.5 + 0.25 * 1) + 1, h10 = 2 * (0.5 * 0.25 + 0.25 * h00) + 1;
    const double *y = r.buf[0], *yh = r.buf[1];
    CHECK(fabs(y[0] - h00) < 1e-12 && y[1] == 0 && fabs(y[2] - h10) < 1e-12 && y[3] == 0);
    CHECK(fabs(yh[0] - h10) < 1e-12 && yh[1] == -1);
    CHECK(ok_of(&r, 2));
    mfree(&r);
  }
  /* clip 0.3 before the activation */
  tc_scalar(&c, "clip", 0.3);
  if (mrun(__LINE__, &c, 3, &r)) {
    const double *y = r.buf[0];
    CHECK(fabs(y[0] - (2 * 0.3 + 1)) < 1e-12);
    mfree(&r);
  }
  /* a length past seq: ok false, no read past X */
  c.data[5] = (int32_t[]){3, -1};
  if (mrun(__LINE__, &c, 3, &r)) {
    CHECK(!ok_of(&r, 2));
    mfree(&r);
  }
  /* rejections */
  c = tc_op(&berth_op_def_rnn);
  TC_INTS(&c, "activations", 1, 1);
  TC_INTS(&c, "act_params", 0, 0, 0, 0);
  tc_arg(&c, ty(F64, 3, 2, 2, 1), xv);
  tc_arg(&c, ty(F64, 3, 1, 1, 1), (double[]){0.5});
  tc_arg(&c, ty(F64, 3, 1, 1, 1), (double[]){0.25});
  tc_arg(&c, ty(F64, 2, 1, 2), (double[]){0.125, -0.125});
  tc_arg(&c, ty(F64, 3, 1, 2, 1), (double[]){1, -1});
  EXPECT_REJECT(&c, "2 activations with 4 parameters, expected 1 and 2");
  TC_INTS(&c, "activations", 99);
  TC_INTS(&c, "act_params", 0, 0);
  EXPECT_REJECT(&c, "activation kind 99");
  TC_INTS(&c, "activations", 1);
  c.in[1] = ty(F64, 3, 1, 2, 1);
  EXPECT_REJECT(&c, "W (operand 1)");
}

/* GRU, H = 1, I = 1, one step, f = sigmoid, g = tanh, both linear_before_reset values. */
static void test_gru(void) {
  const double x = 0.5, h0 = -0.25;
  const double W[3] = {0.1, 0.2, 0.3}, R[3] = {-0.4, 0.5, 0.6}, B[6] = {0.01, 0.02, 0.03, 0.04, 0.05, 0.06};
  for (int lbr = 0; lbr <= 1; lbr++) {
    tcall_t c = tc_op(&berth_op_def_gru);
    TC_INTS(&c, "activations", 0, 1);
    TC_INTS(&c, "act_params", 0, 0, 0, 0);
    tc_int(&c, "linear_before_reset", lbr);
    tc_arg(&c, ty(F64, 3, 1, 1, 1), &x);
    tc_arg(&c, ty(F64, 3, 1, 3, 1), W);
    tc_arg(&c, ty(F64, 3, 1, 3, 1), R);
    tc_arg(&c, ty(F64, 2, 1, 6), B);
    tc_arg(&c, ty(F64, 3, 1, 1, 1), &h0);
    double z = 1 / (1 + exp(-(W[0] * x + R[0] * h0 + B[0] + B[3])));
    double rr = 1 / (1 + exp(-(W[1] * x + R[1] * h0 + B[1] + B[4])));
    double h = lbr ? tanh(W[2] * x + B[2] + rr * (R[2] * h0 + B[5])) : tanh(W[2] * x + R[2] * (rr * h0) + B[5] + B[2]);
    double want = (1 - z) * h + z * h0;
    mres_t r;
    if (mrun(__LINE__, &c, 3, &r)) {
      const double *y = r.buf[0], *yh = r.buf[1];
      CHECK_MSG(fabs(y[0] - want) < 1e-12 && yh[0] == y[0], "gru lbr %d: %.17g, expected %.17g", lbr, y[0], want);
      mfree(&r);
    }
  }
}

/* ---- causal_conv_with_state ------------------------------------------------------------ */

static void test_causal_conv(void) {
  /* B 1, C 2, L 2, K 3: the state holds 2 positions; y[t] = b + sum_k w[k] padded[t + k] */
  const float x[4] = {1, 2, 3, 4}, w[6] = {1, 10, 100, 2, 20, 200}, bias[2] = {0.5f, -0.5f};
  const float past[4] = {5, 6, 7, 8};
  tcall_t c = tc_op(&berth_op_def_causal_conv_with_state);
  tc_arg(&c, ty(F32, 3, 1, 2, 2), x);
  tc_arg(&c, ty(F32, 3, 2, 1, 3), w);
  tc_arg(&c, ty(F32, 1, 2), bias);
  tc_arg(&c, ty(F32, 3, 1, 2, 2), past);
  mres_t r;
  if (mrun(__LINE__, &c, 2, &r)) {
    /* channel 0: padded 5 6 1 2; channel 1: padded 7 8 3 4 */
    near_f32(__LINE__, r.buf[0],
             (double[]){0.5 + 5 + 60 + 100, 0.5 + 6 + 10 + 200, -0.5 + 14 + 160 + 600, -0.5 + 16 + 60 + 800}, 4, 1e-4);
    near_f32(__LINE__, r.buf[1], (double[]){1, 2, 3, 4}, 4, 0);
    mfree(&r);
  }
  /* L 1 < K - 1: the new state is the old one shifted by one */
  c = tc_op(&berth_op_def_causal_conv_with_state);
  tc_arg(&c, ty(F32, 3, 1, 2, 1), (float[]){1, 3});
  tc_arg(&c, ty(F32, 3, 2, 1, 3), w);
  tc_arg(&c, ty(F32, 1, 2), bias);
  tc_arg(&c, ty(F32, 3, 1, 2, 2), past);
  if (mrun(__LINE__, &c, 2, &r)) {
    near_f32(__LINE__, r.buf[1], (double[]){6, 1, 8, 3}, 4, 0);
    mfree(&r);
  }
  c.in[3] = ty(F32, 3, 1, 2, 3);
  EXPECT_REJECT(&c, "past_state");
  c.in[3] = ty(F32, 3, 1, 2, 2);
  c.in[1] = ty(F32, 3, 2, 2, 3);
  EXPECT_REJECT(&c, "expected [B, C, L] and [C, 1, K >= 1]");
}

/* ---- linear_attention ------------------------------------------------------------------- */

static void test_linear_attention(void) {
  /* B 1, T 2, one kv head, two query heads (grouped), dk 1, dv 1, scale 1, gated delta with
   * erase_gate: S1 = e^g1 S0 + k1 u1, u1 = beta1 (v1 - S0' e1 k1) with S0' = e^g1 S0 */
  const double q[4] = {1, 2, 3, 4}, k[2] = {0.5, 2}, v[2] = {1, -1}, s0[1] = {0.25};
  const double dc[2] = {-0.5, 0.25}, be[2] = {0.5, 2}, er[2] = {0.5, 1};
  tcall_t c = tc_op(&berth_op_def_linear_attention);
  tc_int(&c, "q_num_heads", 2);
  tc_int(&c, "kv_num_heads", 1);
  tc_scalar(&c, "scale", 1);
  tc_int(&c, "has_decay", 1);
  tc_int(&c, "has_beta", 1);
  tc_int(&c, "has_erase", 1);
  tc_arg(&c, ty(F64, 3, 1, 2, 2), q);
  tc_arg(&c, ty(F64, 3, 1, 2, 1), k);
  tc_arg(&c, ty(F64, 3, 1, 2, 1), v);
  tc_arg(&c, ty(F64, 4, 1, 1, 1, 1), s0);
  tc_arg(&c, ty(F64, 3, 1, 2, 1), dc);
  tc_arg(&c, ty(F64, 3, 1, 2, 1), be);
  tc_arg(&c, ty(F64, 3, 1, 2, 1), er);
  double s = 0.25 * exp(-0.5);
  s += 0.5 * (0.5 * (1 - s * 0.5 * 0.5));
  const double y0 = s, y1 = 2 * s;
  s *= exp(0.25);
  s += 2 * (2 * (-1 - s * 1 * 2));
  const double want[4] = {y0, y1, 3 * s, 4 * s};
  mres_t r;
  if (mrun(__LINE__, &c, 2, &r)) {
    const double *y = r.buf[0], *st = r.buf[1];
    for (int i = 0; i < 4; i++) CHECK_MSG(fabs(y[i] - want[i]) < 1e-12, "y[%d] %.17g, expected %.17g", i, y[i], want[i]);
    CHECK(fabs(st[0] - s) < 1e-12);
    mfree(&r);
  }
  tc_int(&c, "has_erase", 0);
  EXPECT_REJECT(&c, "7 operands, but the has_ flags name 6");
  tc_int(&c, "has_erase", 1);
  tc_int(&c, "q_num_heads", 3);
  EXPECT_REJECT(&c, "and 3 heads");
  tc_int(&c, "kv_num_heads", 2);
  EXPECT_REJECT(&c, "positive multiple");
}

/* tfidf: skip distances past the row's length count as the longest that fits (max_skip far
 * beyond it is no overflow), a pool level with no n-grams, i64 batches, weights read per
 * output coordinate in IDF and TFIDF, table rows with coordinates out of range never counted,
 * and the rejections. Tables are [n, tokens..., coordinate] rows sorted by (n, tokens). */
static void tfidf_setup(tcall_t *c, int64_t mode, int64_t lo, int64_t hi, int64_t skip, int64_t size) {
  *c = tc_op(&berth_op_def_tfidf);
  tc_int(c, "mode", mode);
  tc_int(c, "min_gram", lo);
  tc_int(c, "max_gram", hi);
  tc_int(c, "max_skip", skip);
  tc_int(c, "size", size);
}

static void test_tfidf(void) {
  tcall_t c;
  /* bigrams (1,1)->2, (1,2)->0, (2,1)->1 over 1 2 1 2 1: distances 1..4 fit a 5-token row */
  static const int32_t x5[] = {1, 2, 1, 2, 1};
  static const int64_t bi[] = {2, 1, 1, 2, 2, 1, 2, 0, 2, 2, 1, 1};
  int64_t skips[] = {3, 4, 100, INT64_MAX};
  for (int k = 0; k < 4; k++) {
    tfidf_setup(&c, 0, 2, 2, skips[k], 3);
    tc_arg(&c, ty(I32, 1, 5), x5);
    tc_arg(&c, ty(I64, 2, 3, 4), bi);
    EXPECT(&c, ty(F32, 1, 3), ((float[]){3, 3, 3}));
  }
  tfidf_setup(&c, 0, 2, 2, 1, 3);
  tc_arg(&c, ty(I32, 1, 5), x5);
  tc_arg(&c, ty(I64, 2, 3, 4), bi);
  EXPECT(&c, ty(F32, 1, 3), ((float[]){2, 2, 2}));

  /* min_gram 1 with no 1-grams in the pool; an i64 batch of two rows */
  static const int64_t xb[] = {5, 6, 5, 6, 5, 5};
  static const int64_t only_bi[] = {2, 5, 6, 0, 2, 6, 5, 1};
  tfidf_setup(&c, 0, 1, 2, 0, 2);
  tc_arg(&c, ty(I64, 2, 2, 3), xb);
  tc_arg(&c, ty(I64, 2, 2, 4), only_bi);
  EXPECT(&c, ty(F32, 2, 2, 2), ((float[]){1, 1, 0, 1}));
  /* no n-gram at all (an empty table) and an empty row */
  tfidf_setup(&c, 2, 1, 1, 0, 2);
  tc_arg(&c, ty(I64, 2, 2, 3), xb);
  tc_arg(&c, ty(I64, 2, 0, 3), NULL);
  EXPECT(&c, ty(F32, 2, 2, 2), ((float[]){0, 0, 0, 0}));
  tfidf_setup(&c, 0, 1, 2, 5, 2);
  tc_arg(&c, ty(I64, 2, 3, 0), NULL);
  tc_arg(&c, ty(I64, 2, 2, 4), only_bi);
  EXPECT(&c, ty(F32, 2, 3, 2), ((float[]){0, 0, 0, 0, 0, 0}));

  /* 7 -> coordinate 1 (twice), 8 -> 0 (once), 9 is no n-gram; weights per coordinate */
  static const int32_t x4[] = {7, 7, 8, 9};
  static const int64_t uni[] = {1, 7, 1, 1, 8, 0};
  static const float w[] = {0.5f, 4.0f};
  const float want[4][2] = {{1, 2}, {1, 1}, {0.5f, 4}, {0.5f, 8}};
  for (int mode = 0; mode < 3; mode++)
    for (int weighted = 0; weighted < 2; weighted++) {
      if (mode == 0 && weighted) continue;
      tfidf_setup(&c, mode, 1, 1, 0, 2);
      tc_arg(&c, ty(I32, 1, 4), x4);
      tc_arg(&c, ty(I64, 2, 2, 3), uni);
      if (weighted) tc_arg(&c, ty(F32, 1, 2), w);
      EXPECT(&c, ty(F32, 1, 2), want[mode == 0 ? 0 : mode == 1 ? (weighted ? 2 : 1) : (weighted ? 3 : 0)]);
    }

  /* a hand-written table: coordinates 5 and -1 are outside size 2, a row claims length 9 */
  static const int64_t bad[] = {1, 7, 5, 1, 8, -1, 9, 7, 0};
  tfidf_setup(&c, 0, 1, 1, 0, 2);
  tc_arg(&c, ty(I32, 1, 4), x4);
  tc_arg(&c, ty(I64, 2, 3, 3), bad);
  EXPECT(&c, ty(F32, 1, 2), ((float[]){0, 0}));

  /* rejections */
  tfidf_setup(&c, 0, 1, 1, 0, 2);
  tc_arg(&c, ty(F32, 1, 4), NULL);
  tc_arg(&c, ty(I64, 2, 2, 3), uni);
  EXPECT_REJECT(&c, "expected one of i32, i64");
  tfidf_setup(&c, 0, 1, 1, 0, 2);
  tc_arg(&c, ty(I32, 3, 1, 1, 4), NULL);
  tc_arg(&c, ty(I64, 2, 2, 3), uni);
  EXPECT_REJECT(&c, "expected rank 1 [C] or 2 [N, C]");
  tfidf_setup(&c, 0, 1, 2, 0, 2);
  tc_arg(&c, ty(I32, 1, 4), x4);
  tc_arg(&c, ty(I64, 2, 2, 3), uni);
  EXPECT_REJECT(&c, "max_gram + 2 columns");
  tfidf_setup(&c, 0, 1, 1, 0, 2);
  tc_arg(&c, ty(I32, 1, 4), x4);
  tc_arg(&c, ty(I64, 2, 2, 3), uni);
  tc_arg(&c, ty(F32, 1, 2), w);
  EXPECT_REJECT(&c, "does not read them");
  tfidf_setup(&c, 1, 1, 1, 0, 3);
  tc_arg(&c, ty(I32, 1, 4), x4);
  tc_arg(&c, ty(I64, 2, 2, 3), uni);
  tc_arg(&c, ty(F32, 1, 2), w);
  EXPECT_REJECT(&c, "one per output coordinate");
  tfidf_setup(&c, 3, 1, 1, 0, 2);
  tc_arg(&c, ty(I32, 1, 4), x4);
  tc_arg(&c, ty(I64, 2, 2, 3), uni);
  EXPECT_REJECT(&c, "expected 0 (TF), 1 (IDF) or 2 (TFIDF)");
  tfidf_setup(&c, 0, 0, 1, 0, 2);
  tc_arg(&c, ty(I32, 1, 4), x4);
  tc_arg(&c, ty(I64, 2, 2, 3), uni);
  EXPECT_REJECT(&c, "expected 1 <= min_gram <= max_gram");
  tfidf_setup(&c, 0, 1, 1, -1, 2);
  tc_arg(&c, ty(I32, 1, 4), x4);
  tc_arg(&c, ty(I64, 2, 2, 3), uni);
  EXPECT_REJECT(&c, "max_skip -1");
  tfidf_setup(&c, 0, 1, 2, 3, 2); /* 2^31 tokens, 4 distances, 2 lengths: 2^34 increments */
  tc_arg(&c, ty(I32, 1, 1 << 30), NULL);
  c.in[0].dims[0] = (int64_t)1 << 31;
  tc_arg(&c, ty(I64, 2, 2, 4), only_bi);
  EXPECT_REJECT(&c, "could count past 2^32");
}

int main(void) {
  test_causal_conv();
  test_linear_attention();
  test_nll();
  test_rotary();
  test_rnn();
  test_gru();
  test_tfidf();
  return test_finish("test_kernel_sequence");
}
