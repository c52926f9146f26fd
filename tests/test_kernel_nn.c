/* Randomized tests of conv, lstm and gemm against naive references (in double), over shapes
 * that reach every path: chunked patches, four-row blocks and their tails, groups,
 * padding, strides, dilation, 1- to 3-D, kernel rows longer than the patch buffer,
 * bidirectional and reversed LSTMs in both layouts, with and without peepholes, all gemm
 * transpositions.
 * The seed is printed; set BERTH_TEST_SEED to replay one. Hand-computed cases and the
 * official ONNX tests: test_kernel_onnx.c. */
#include "test_kernel_util.h"
#include "conv_reference.h"

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64
#define I32 BERTH_DTYPE_I32

static uint64_t rng_state;
static uint64_t rng_seed;

static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1)); }
static double rnd_val(void) { return (double)(rnd() % 2001) / 1000.0 - 1.0; }

/* Fills a buffer of n values of dtype dt (f32 or f64) and returns it as doubles too. */
static void *rnd_tensor(berth_dtype_t dt, int64_t n, double **as_double) {
  void *p = malloc((size_t)(n ? n : 1) * 8);
  double *d = malloc((size_t)(n ? n : 1) * sizeof(double));
  for (int64_t i = 0; i < n; i++) {
    double v = rnd_val();
    if (dt == F32) {
      ((float *)p)[i] = (float)v;
      d[i] = (float)v;
    } else {
      ((double *)p)[i] = v;
      d[i] = v;
    }
  }
  *as_double = d;
  return p;
}

static void *to_dtype(berth_dtype_t dt, const double *v, int64_t n) {
  void *p = malloc((size_t)(n ? n : 1) * 8);
  for (int64_t i = 0; i < n; i++) {
    if (dt == F32) ((float *)p)[i] = (float)v[i];
    else ((double *)p)[i] = v[i];
  }
  return p;
}

static bool compare_run(int line, const char *what, tcall_t *c, int n_out, const berth_type_t *want,
                        const double *const *ref, double tol) {
  char msg[512], a[160], b[160];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out[3];
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, out, &d);
  CHECK_MSG(st == BERTH_OK, "line %d: %s: infer failed: %s (seed %llu)", line, what, msg,
            (unsigned long long)rng_seed);
  if (st != BERTH_OK) return false;
  bool ok = true;
  for (int i = 0; i < n_out; i++) {
    CHECK_MSG(berth_type_equal(&out[i], &want[i]), "line %d: %s: result %d is %s, expected %s (seed %llu)", line, what,
              i, tc_fmt(&out[i], a), tc_fmt(&want[i], b), (unsigned long long)rng_seed);
    if (!berth_type_equal(&out[i], &want[i])) return false;
  }
  berth_tensor_ref_t ins[TC_MAX_IN], outs[3];
  void *bufs[3];
  for (int i = 0; i < c->n_in; i++) {
    ins[i].type = &c->in[i];
    ins[i].data = (void *)c->data[i];
  }
  for (int i = 0; i < n_out; i++) {
    size_t bytes = berth_type_bytes(&out[i]);
    bufs[i] = malloc(bytes ? bytes : 1);
    memset(bufs[i], 0xA5, bytes ? bytes : 1);
    outs[i].type = &out[i];
    outs[i].data = bufs[i];
  }
  uint64_t sb;
  void *scratch = tc_scratch(c->def, c->attrs, c->in, c->n_in, &sb);
  berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, n_out, scratch, sb};
  c->def->run(&call);
  free(scratch);
  for (int i = 0; i < n_out && ok; i++) {
    void *w = to_dtype(out[i].dtype, ref[i], berth_type_numel(&out[i]));
    int64_t bad = -1;
    ok = tc_values_equal(out[i].dtype, berth_type_numel(&out[i]), bufs[i], w, tol, &bad);
    CHECK_MSG(ok, "line %d: %s: result %d %s element %lld differs (seed %llu)", line, what, i, tc_fmt(&out[i], a),
              (long long)bad, (unsigned long long)rng_seed);
    if (!ok) {
      fprintf(stderr, "  got ");
      tc_print_elem(out[i].dtype, bufs[i], bad);
      fprintf(stderr, " want %.9g\n", ref[i][bad]);
    }
    free(w);
  }
  for (int i = 0; i < n_out; i++) free(bufs[i]);
  return ok;
}

/* ---- conv ---------------------------------------------------------------------------------- */

static void conv_check(int line, const conv_case_t *g, berth_dtype_t dt) {
  berth_type_t tx, tw;
  memset(&tx, 0, sizeof tx);
  memset(&tw, 0, sizeof tw);
  tx.dtype = tw.dtype = dt;
  tx.rank = tw.rank = g->sp + 2;
  tx.dims[0] = g->n;
  tx.dims[1] = g->c;
  tw.dims[0] = g->m;
  tw.dims[1] = g->c / g->group;
  berth_type_t ty_ = tx;
  ty_.dims[1] = g->m;
  int64_t out[3], pads[6], one[3];
  for (int d = 0; d < g->sp; d++) {
    tx.dims[2 + d] = g->in[d];
    tw.dims[2 + d] = g->k[d];
    out[d] = (g->in[d] + g->pb[d] + g->pe[d] - g->dil[d] * (g->k[d] - 1) - 1) / g->stride[d] + 1;
    ty_.dims[2 + d] = out[d];
    pads[d] = g->pb[d];
    pads[g->sp + d] = g->pe[d];
    one[d] = 1;
  }
  (void)one;
  double *xd, *wd, *bd = NULL;
  void *x = rnd_tensor(dt, berth_type_numel(&tx), &xd), *w = rnd_tensor(dt, berth_type_numel(&tw), &wd), *b = NULL;
  if (g->bias) b = rnd_tensor(dt, g->m, &bd);
  double *y = malloc((size_t)(berth_type_numel(&ty_) + 1) * sizeof(double));
  conv_reference(g, out, xd, wd, bd, y);
  tcall_t c = tc_op(&berth_op_def_conv);
  tc_ints_arr(&c, "strides", g->stride, g->sp);
  tc_ints_arr(&c, "dilations", g->dil, g->sp);
  tc_ints_arr(&c, "pads", pads, 2 * g->sp);
  tc_int(&c, "group", g->group);
  tc_arg(&c, tx, x);
  tc_arg(&c, tw, w);
  if (g->bias) tc_arg(&c, ty(dt, 1, (int)g->m), b);
  const double *refs[1] = {y};
  char what[64];
  snprintf(what, sizeof what, "conv %dd", g->sp);
  compare_run(line, what, &c, 1, &ty_, refs, dt == F32 ? 2e-4 : 1e-10);
  free(x);
  free(w);
  free(b);
  free(xd);
  free(wd);
  free(bd);
  free(y);
}

static void test_conv_random(void) {
  for (int it = 0; it < 300; it++) {
    conv_case_t g;
    memset(&g, 0, sizeof g);
    g.sp = (int)rnd_in(1, 3);
    g.n = rnd_in(1, 2);
    g.group = rnd_in(1, 3);
    g.c = g.group * rnd_in(1, g.sp == 1 ? 9 : 4);
    g.m = g.group * rnd_in(1, 9);
    g.bias = rnd() & 1;
    for (int d = 0; d < g.sp; d++) {
      g.k[d] = rnd_in(1, g.sp == 1 ? 7 : 3);
      g.dil[d] = rnd_in(1, 3);
      g.stride[d] = rnd_in(1, 3);
      g.pb[d] = rnd_in(0, 3);
      g.pe[d] = rnd_in(0, 3);
      int64_t span = g.dil[d] * (g.k[d] - 1) + 1, min_in = span - g.pb[d] - g.pe[d];
      if (min_in < 1) min_in = 1;
      g.in[d] = rnd_in(min_in, min_in + (g.sp == 3 ? 4 : 12));
    }
    conv_check(__LINE__, &g, (rnd() & 3) ? F32 : F64);
  }
  /* Silero-like layers: many channels, short kernels, few positions (chunks of kernel
   * rows, four-channel blocks); a long stride-128 window (the STFT); one input channel */
  conv_case_t s1 = {1, 1, 129, 128, 1, {4}, {3}, {1}, {1}, {1}, {1}, true};
  conv_check(__LINE__, &s1, F32);
  conv_case_t s2 = {1, 1, 128, 64, 1, {4}, {3}, {2}, {1}, {1}, {1}, true};
  conv_check(__LINE__, &s2, F32);
  conv_case_t s3 = {1, 1, 1, 258, 1, {640}, {256}, {128}, {1}, {0}, {0}, false};
  conv_check(__LINE__, &s3, F32);
  conv_case_t s4 = {1, 1, 1, 258, 1, {640}, {256}, {128}, {1}, {0}, {0}, false};
  conv_check(__LINE__, &s4, F64);
  /* a long signal (many position chunks), and kernel rows longer than the 16 KiB buffer */
  conv_case_t s5 = {1, 2, 3, 5, 1, {3000}, {5}, {1}, {2}, {2}, {3}, true};
  conv_check(__LINE__, &s5, F32);
  conv_case_t s6 = {1, 1, 2, 3, 1, {5000}, {4100}, {300}, {1}, {7}, {2}, true};
  conv_check(__LINE__, &s6, F32);
  conv_case_t s7 = {1, 1, 2, 3, 1, {2500}, {2049}, {100}, {1}, {1}, {2}, true};
  conv_check(__LINE__, &s7, F64);
  /* depthwise 2-D, and a 2-D image with many channels */
  conv_case_t s8 = {2, 1, 8, 8, 8, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true};
  conv_check(__LINE__, &s8, F32);
  conv_case_t s9 = {2, 1, 32, 16, 1, {20, 20}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false};
  conv_check(__LINE__, &s9, F32);
  /* more kernel rows than fit one chunk: partial sums accumulate over row chunks */
  conv_case_t s10 = {1, 2, 600, 6, 2, {12}, {5}, {1}, {1}, {2}, {0}, true};
  conv_check(__LINE__, &s10, F32);
  conv_check(__LINE__, &s10, F64);
  conv_case_t s11 = {2, 1, 256, 5, 1, {6, 7}, {3, 3}, {1, 2}, {1, 1}, {1, 0}, {1, 2}, true};
  conv_check(__LINE__, &s11, F32);
  /* 1x1, unit strides, no padding: the matrix-product path (rows and columns not multiples of
   * a register block); with a pad or a stride: the packed path */
  conv_case_t s12 = {2, 2, 67, 13, 1, {7, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  conv_check(__LINE__, &s12, F32);
  conv_check(__LINE__, &s12, F64);
  conv_case_t s13 = {1, 1, 40, 22, 2, {37}, {1}, {1}, {3}, {0}, {0}, false};
  conv_check(__LINE__, &s13, F32);
  conv_case_t s14 = {2, 1, 16, 7, 1, {5, 6}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {1, 0}, true};
  conv_check(__LINE__, &s14, F32);
  /* depthwise with a channel multiplier, strides and dilations, 1-D and 3-D */
  conv_case_t s15 = {1, 2, 6, 12, 6, {40}, {5}, {3}, {2}, {4}, {1}, true};
  conv_check(__LINE__, &s15, F32);
  conv_case_t s16 = {3, 1, 4, 4, 4, {5, 6, 7}, {2, 3, 2}, {2, 1, 3}, {1, 2, 1}, {1, 2, 0}, {0, 1, 2}, false};
  conv_check(__LINE__, &s16, F32);
}

/* ---- lstm ---------------------------------------------------------------------------------- */

static double sigm(double v) { return 1 / (1 + exp(-v)); }

/* ONNX's equations one unit at a time; P (peepholes [dirs, 3H] = Pi, Po, Pf) may be NULL. */
static void lstm_ref(int64_t seq, int64_t nb, int64_t I, int64_t H, int dirn, int layout, const double *X,
                     const double *W, const double *R, const double *B, const double *H0, const double *C0,
                     const double *P, double *Y, double *YH, double *YC) {
  int64_t nd = dirn == 2 ? 2 : 1;
  double *g = malloc((size_t)(4 * H) * sizeof(double)), *h = malloc((size_t)H * sizeof(double)),
         *cc = malloc((size_t)H * sizeof(double));
  for (int64_t d = 0; d < nd; d++)
    for (int64_t b = 0; b < nb; b++) {
      int64_t st = layout ? (b * nd + d) * H : (d * nb + b) * H;
      for (int64_t j = 0; j < H; j++) {
        h[j] = H0[st + j];
        cc[j] = C0[st + j];
      }
      bool rev = dirn == 1 || d == 1;
      for (int64_t s = 0; s < seq; s++) {
        int64_t t = rev ? seq - 1 - s : s;
        const double *x = X + (layout ? b * seq + t : t * nb + b) * I;
        for (int64_t r = 0; r < 4 * H; r++) {
          double v = B[d * 8 * H + r] + B[d * 8 * H + 4 * H + r];
          for (int64_t q = 0; q < I; q++) v += W[(d * 4 * H + r) * I + q] * x[q];
          for (int64_t q = 0; q < H; q++) v += R[(d * 4 * H + r) * H + q] * h[q];
          g[r] = v;
        }
        double *y = Y + (layout ? (b * seq + t) * nd + d : (t * nd + d) * nb + b) * H;
        for (int64_t j = 0; j < H; j++) {
          const double *pd = P ? P + d * 3 * H : NULL;
          double pi = pd ? pd[j] : 0, po = pd ? pd[H + j] : 0, pf = pd ? pd[2 * H + j] : 0;
          double i = sigm(g[j] + pi * cc[j]), f = sigm(g[2 * H + j] + pf * cc[j]), c = tanh(g[3 * H + j]);
          cc[j] = f * cc[j] + i * c;
          double o = sigm(g[H + j] + po * cc[j]); /* the new cell state */
          h[j] = o * tanh(cc[j]);
          y[j] = h[j];
        }
      }
      for (int64_t j = 0; j < H; j++) {
        YH[st + j] = h[j];
        YC[st + j] = cc[j];
      }
    }
  free(g);
  free(h);
  free(cc);
}

static void lstm_check(int line, int64_t seq, int64_t nb, int64_t I, int64_t H, int dirn, int layout,
                       berth_dtype_t dt, bool peep) {
  int64_t nd = dirn == 2 ? 2 : 1;
  berth_type_t tx = layout ? ty(dt, 3, (int)nb, (int)seq, (int)I) : ty(dt, 3, (int)seq, (int)nb, (int)I);
  berth_type_t tw = ty(dt, 3, (int)nd, (int)(4 * H), (int)I), tr = ty(dt, 3, (int)nd, (int)(4 * H), (int)H);
  berth_type_t tb = ty(dt, 2, (int)nd, (int)(8 * H));
  berth_type_t ts = layout ? ty(dt, 3, (int)nb, (int)nd, (int)H) : ty(dt, 3, (int)nd, (int)nb, (int)H);
  berth_type_t tyy = layout ? ty(dt, 4, (int)nb, (int)seq, (int)nd, (int)H) : ty(dt, 4, (int)seq, (int)nd, (int)nb, (int)H);
  berth_type_t tp = ty(dt, 2, (int)nd, (int)(3 * H));
  const berth_type_t *ts7[7] = {&tx, &tw, &tr, &tb, &ts, &ts, &tp};
  const int n_in = peep ? 7 : 6;
  void *p[7];
  double *d[7] = {NULL};
  for (int i = 0; i < n_in; i++) p[i] = rnd_tensor(dt, berth_type_numel(ts7[i]), &d[i]);
  double *Y = malloc((size_t)(berth_type_numel(&tyy) + 1) * sizeof(double));
  double *YH = malloc((size_t)(berth_type_numel(&ts) + 1) * sizeof(double));
  double *YC = malloc((size_t)(berth_type_numel(&ts) + 1) * sizeof(double));
  lstm_ref(seq, nb, I, H, dirn, layout, d[0], d[1], d[2], d[3], d[4], d[5], d[6], Y, YH, YC);
  tcall_t c = tc_op(&berth_op_def_lstm);
  tc_int(&c, "hidden_size", H);
  tc_int(&c, "direction", dirn);
  tc_int(&c, "layout", layout);
  for (int i = 0; i < n_in; i++) tc_arg(&c, *ts7[i], p[i]);
  berth_type_t want[3] = {tyy, ts, ts};
  const double *refs[3] = {Y, YH, YC};
  compare_run(line, peep ? "lstm with peepholes" : "lstm", &c, 3, want, refs, dt == F32 ? 1e-4 : 1e-10);
  for (int i = 0; i < n_in; i++) {
    free(p[i]);
    free(d[i]);
  }
  free(Y);
  free(YH);
  free(YC);
}

static void test_lstm_random(void) {
  for (int it = 0; it < 60; it++)
    lstm_check(__LINE__, rnd_in(0, 5), rnd_in(1, 3), rnd_in(0, 19), rnd_in(1, 17), (int)rnd_in(0, 2),
               (int)rnd_in(0, 1), (rnd() & 1) ? F32 : F64, false);
  /* Silero's shape: one step, batch 1, 128 in, 128 hidden */
  lstm_check(__LINE__, 1, 1, 128, 128, 0, 0, F32, false);
  lstm_check(__LINE__, 3, 2, 64, 33, 2, 1, F32, false);
}

/* Peepholes (a 7th operand P): every direction, layout and dtype, hidden sizes across the
 * 16-unit blocks and their tails, then random shapes. */
static void test_lstm_peephole_random(void) {
  for (int dirn = 0; dirn < 3; dirn++)
    for (int layout = 0; layout < 2; layout++) {
      lstm_check(__LINE__, 4, 2, 5, 19, dirn, layout, F32, true);
      lstm_check(__LINE__, 3, 3, 7, 6, dirn, layout, F64, true);
    }
  for (int it = 0; it < 30; it++)
    lstm_check(__LINE__, rnd_in(0, 5), rnd_in(1, 3), rnd_in(0, 19), rnd_in(1, 17), (int)rnd_in(0, 2),
               (int)rnd_in(0, 1), (rnd() & 1) ? F32 : F64, true);
  lstm_check(__LINE__, 2, 1, 128, 128, 2, 0, F32, true);
}

/* ---- gemm ---------------------------------------------------------------------------------- */

static void test_gemm_random(void) {
  for (int it = 0; it < 100; it++) {
    int64_t M = rnd_in(1, 9), N = rnd_in(1, 13), K = rnd_in(0, 21);
    int ta = (int)(rnd() & 1), tb = (int)(rnd() & 1), crank = (int)rnd_in(-1, 2);
    berth_dtype_t dt = (rnd() & 1) ? F32 : F64;
    double alpha = (double)rnd_in(-2, 2) / 2, beta = (double)rnd_in(-2, 2) / 2;
    berth_type_t ta_t = ta ? ty(dt, 2, (int)K, (int)M) : ty(dt, 2, (int)M, (int)K);
    berth_type_t tb_t = tb ? ty(dt, 2, (int)N, (int)K) : ty(dt, 2, (int)K, (int)N);
    int64_t cr = crank == 2 && (rnd() & 1) ? M : 1, cc = crank >= 1 && (rnd() & 1) ? N : 1;
    berth_type_t tc_t = crank == 0 ? ty(dt, 0) : crank == 1 ? ty(dt, 1, (int)cc) : ty(dt, 2, (int)cr, (int)cc);
    double *ad, *bd, *cd = NULL;
    void *a = rnd_tensor(dt, M * K, &ad), *b = rnd_tensor(dt, K * N, &bd), *c = NULL;
    if (crank >= 0) c = rnd_tensor(dt, berth_type_numel(&tc_t), &cd);
    double *y = malloc((size_t)(M * N) * sizeof(double));
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        double s = 0;
        for (int64_t q = 0; q < K; q++) s += (ta ? ad[q * M + i] : ad[i * K + q]) * (tb ? bd[j * K + q] : bd[q * N + j]);
        s *= alpha;
        if (cd) s += beta * cd[(crank == 2 && cr != 1 ? i * cc : 0) + (cc != 1 ? j : 0)];
        y[i * N + j] = s;
      }
    tcall_t k = tc_op(&berth_op_def_gemm);
    tc_scalar(&k, "alpha", alpha);
    tc_scalar(&k, "beta", beta);
    tc_int(&k, "trans_a", ta);
    tc_int(&k, "trans_b", tb);
    tc_arg(&k, ta_t, a);
    tc_arg(&k, tb_t, b);
    if (c) tc_arg(&k, tc_t, c);
    berth_type_t want = ty(dt, 2, (int)M, (int)N);
    const double *refs[1] = {y};
    compare_run(__LINE__, "gemm", &k, 1, &want, refs, dt == F32 ? 1e-5 : 1e-12);
    free(a);
    free(b);
    free(c);
    free(ad);
    free(bd);
    free(cd);
    free(y);
  }
  /* integers wrap the same in every layout */
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++) {
      int32_t A[6] = {INT32_MAX, 2, -3, 4, INT32_MIN, 6}, B[6] = {7, -8, 9, 10, 11, -12};
      int32_t At[6], Bt[6];
      for (int i = 0; i < 2; i++)
        for (int q = 0; q < 3; q++) At[q * 2 + i] = A[i * 3 + q];
      for (int q = 0; q < 3; q++)
        for (int j = 0; j < 2; j++) Bt[j * 3 + q] = B[q * 2 + j];
      int32_t want[4];
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
          uint32_t s = 0;
          for (int q = 0; q < 3; q++) s += (uint32_t)A[i * 3 + q] * (uint32_t)B[q * 2 + j];
          want[i * 2 + j] = (int32_t)(s * 5u);
        }
      tcall_t k = tc_op(&berth_op_def_gemm);
      tc_scalar(&k, "alpha", 5);
      tc_int(&k, "trans_a", ta);
      tc_int(&k, "trans_b", tb);
      tc_arg(&k, ta ? ty(I32, 2, 3, 2) : ty(I32, 2, 2, 3), ta ? At : A);
      tc_arg(&k, tb ? ty(I32, 2, 2, 3) : ty(I32, 2, 3, 2), tb ? Bt : B);
      EXPECT(&k, ty(I32, 2, 2, 2), want);
    }
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 20240611u;
  rng_state = rng_seed;
  fprintf(stderr, "seed %llu\n", (unsigned long long)rng_seed);
  test_conv_random();
  test_lstm_random();
  test_lstm_peephole_random();
  test_gemm_random();
  return test_finish("test_kernel_nn");
}
