/* conv_transpose's GEMM + col2im path (src/kernels/kernel_convt.c) against its direct loop
 * and a plain loop in double: each case runs with the scratch it asks for
 * (berth_op_scratch_bytes), with two smaller amounts (blocks of fewer input rows, fewer
 * GEMM panels), and with none (the direct loop, the reference path). 1- to 3-D, groups,
 * strides, dilations, pads at both ends, negative end pads (the importer folds
 * output_padding and output_shape into them), outputs channel counts that are not multiples
 * of any micro-kernel's MR, input positions that are not multiples of its NR, and no bias.
 * The scratch starts as all-ones bytes (NaN), so reading scratch not written in this call
 * shows, and each amount runs at two addresses, which must give the same bits.
 * Randomized; the seed is printed, BERTH_TEST_SEED replays one. */
#include "test_kernel_util.h"
#include "kernels/kernel_scratch.h"

#define F32 BERTH_DTYPE_F32

typedef struct ct_case {
  int sp;
  int64_t n, c, m, group, in[3], k[3], stride[3], dil[3], pb[3], pe[3];
  bool bias;
} ct_case_t;

static uint64_t rng_state, rng_seed;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1)); }

/* ONNX ConvTranspose in double: x [n, c, in...], w [c, m/group, k...]. */
static void ct_reference(const ct_case_t *g, const int64_t *out, const float *x, const float *w, const float *b,
                         double *y) {
  int64_t cg = g->c / g->group, mg = g->m / g->group;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, o[3] = {1, 1, 1}, st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pb[3] = {0};
  for (int d = 0; d < g->sp; d++) {
    int e = 3 - g->sp + d;
    in[e] = g->in[d], k[e] = g->k[d], o[e] = out[d], st[e] = g->stride[d], dl[e] = g->dil[d], pb[e] = g->pb[d];
  }
  int64_t il = in[0] * in[1] * in[2], kk = k[0] * k[1] * k[2], ol = o[0] * o[1] * o[2];
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t m = 0; m < g->m; m++)
      for (int64_t t = 0; t < ol; t++) y[(n * g->m + m) * ol + t] = g->bias ? b[m] : 0;
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t c = 0; c < g->c; c++)
      for (int64_t mm = 0; mm < mg; mm++)
        for (int64_t i = 0; i < il; i++)
          for (int64_t q = 0; q < kk; q++) {
            int64_t i2 = i % in[2], i1 = (i / in[2]) % in[1], i0 = i / (in[2] * in[1]);
            int64_t q2 = q % k[2], q1 = (q / k[2]) % k[1], q0 = q / (k[2] * k[1]);
            int64_t o0 = i0 * st[0] + q0 * dl[0] - pb[0], o1 = i1 * st[1] + q1 * dl[1] - pb[1];
            int64_t o2 = i2 * st[2] + q2 * dl[2] - pb[2];
            if (o0 < 0 || o0 >= o[0] || o1 < 0 || o1 >= o[1] || o2 < 0 || o2 >= o[2]) continue;
            int64_t m = (c / cg) * mg + mm;
            y[(n * g->m + m) * ol + (o0 * o[1] + o1) * o[2] + o2] +=
                (double)x[(n * g->c + c) * il + i] * (double)w[(c * mg + mm) * kk + q];
          }
}

/* Runs c with `usable` bytes of scratch (-1: the request) placed `shift` bytes past a
 * 64-byte boundary. */
static float *run_ct(tcall_t *c, const berth_type_t *out, int64_t usable, int shift) {
  uint64_t bytes = usable < 0 ? berth_op_scratch_bytes(BERTH_OP_CONV_TRANSPOSE, c->attrs, c->in, c->n_in)
                   : usable == 0 ? 0 : (uint64_t)usable + BERTH_SCRATCH_SLACK;
  unsigned char *raw = malloc((size_t)bytes + 256), *scratch = NULL;
  if (bytes) scratch = (unsigned char *)(((uintptr_t)raw + 63) & ~(uintptr_t)63) + shift;
  if (scratch) memset(scratch, 0xff, (size_t)bytes);
  size_t ob = berth_type_bytes(out);
  float *y = malloc(ob ? ob : 1);
  memset(y, 0xA5, ob ? ob : 1);
  berth_tensor_ref_t ins[TC_MAX_IN];
  for (int i = 0; i < c->n_in; i++) ins[i] = (berth_tensor_ref_t){&c->in[i], (void *)c->data[i]};
  berth_tensor_ref_t outs[1] = {{out, y}};
  berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, 1, scratch, bytes};
  c->def->run(&call);
  free(raw);
  return y;
}

static float *rnd_f32(int64_t n) {
  float *p = malloc((size_t)(n ? n : 1) * sizeof(float));
  for (int64_t i = 0; i < n; i++) p[i] = (float)((double)(rnd() % 2001) / 1000.0 - 1.0);
  return p;
}

static void check(int line, const ct_case_t *g) {
  berth_type_t tx, tw, tb = ty(F32, 1, (int)g->m), tyy;
  memset(&tx, 0, sizeof tx);
  tx.dtype = F32;
  tx.rank = g->sp + 2;
  tw = tyy = tx;
  tx.dims[0] = tyy.dims[0] = g->n;
  tx.dims[1] = tw.dims[0] = g->c;
  tw.dims[1] = g->m / g->group;
  tyy.dims[1] = g->m;
  int64_t out[3], pads[6];
  for (int d = 0; d < g->sp; d++) {
    tx.dims[2 + d] = g->in[d];
    tw.dims[2 + d] = g->k[d];
    out[d] = g->stride[d] * (g->in[d] - 1) + g->dil[d] * (g->k[d] - 1) + 1 - g->pb[d] - g->pe[d];
    tyy.dims[2 + d] = out[d];
    pads[d] = g->pb[d];
    pads[g->sp + d] = g->pe[d];
  }
  float *x = rnd_f32(berth_type_numel(&tx)), *w = rnd_f32(berth_type_numel(&tw)), *b = rnd_f32(g->m);
  int64_t ny = berth_type_numel(&tyy);
  double *want = malloc((size_t)(ny ? ny : 1) * sizeof(double));
  ct_reference(g, out, x, w, b, want);
  tcall_t c = tc_op(&berth_op_def_conv_transpose);
  tc_ints_arr(&c, "strides", g->stride, g->sp);
  tc_ints_arr(&c, "dilations", g->dil, g->sp);
  tc_ints_arr(&c, "pads", pads, 2 * g->sp);
  tc_int(&c, "group", g->group);
  tc_arg(&c, tx, x);
  tc_arg(&c, tw, w);
  if (g->bias) tc_arg(&c, tb, b);
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t got_t;
  berth_status_t st = c.def->infer(c.attrs, c.in, c.n_in, &got_t, &d);
  CHECK_MSG(st == BERTH_OK && berth_type_equal(&got_t, &tyy), "line %d: conv_transpose infer: %s", line, msg);
  uint64_t req = berth_op_scratch_bytes(BERTH_OP_CONV_TRANSPOSE, c.attrs, c.in, c.n_in);
  const int64_t amounts[] = {-1, (int64_t)req / 3, (int64_t)req / 7, 0};
  float *direct = run_ct(&c, &tyy, 0, 0);
  int64_t kk = 1; /* taps per kernel */
  for (int dd = 0; dd < g->sp; dd++) kk *= g->k[dd];
  for (size_t a = 0; st == BERTH_OK && a < sizeof amounts / sizeof amounts[0]; a++) {
    float *y = run_ct(&c, &tyy, amounts[a], 16), *y2 = run_ct(&c, &tyy, amounts[a], 48);
    int64_t bad = -1;
    for (int64_t i = 0; i < ny && bad < 0; i++) {
      double tol = 1e-5 * (1 + fabs(want[i])) * (double)(g->c / g->group * kk);
      if (!(fabs((double)y[i] - want[i]) <= tol) || !(fabs((double)y[i] - (double)direct[i]) <= 2 * tol)) bad = i;
    }
    CHECK_MSG(bad < 0, "line %d: conv_transpose %dd, scratch %lld of %llu bytes: element %lld is %.9g, want %.9g "
              "(direct loop %.9g; seed %llu)", line, g->sp, (long long)amounts[a], (unsigned long long)req,
              (long long)bad, bad >= 0 ? y[bad] : 0.0, bad >= 0 ? want[bad] : 0.0, bad >= 0 ? direct[bad] : 0.0,
              (unsigned long long)rng_seed);
    CHECK_MSG(memcmp(y, y2, (size_t)ny * sizeof(float)) == 0,
              "line %d: conv_transpose, scratch %lld bytes: the result depends on the scratch's address", line,
              (long long)amounts[a]);
    free(y);
    free(y2);
  }
  free(direct);
  free(x);
  free(w);
  free(b);
  free(want);
}

/* Shapes that reach the GEMM path and its edges. */
static void test_shapes(void) {
  /* PP-OCR det's upsampling: 2x2 stride 2, and one output channel (4 GEMM rows) */
  ct_case_t a = {2, 1, 24, 24, 1, {9, 11}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false};
  check(__LINE__, &a);
  ct_case_t b = {2, 1, 24, 1, 1, {13, 10}, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, true};
  check(__LINE__, &b);
  /* overlapping taps (3x3 stride 1), pads and output_padding (a negative end pad) */
  ct_case_t c = {2, 2, 7, 5, 1, {17, 19}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, -1}, true};
  check(__LINE__, &c);
  /* groups, strides and dilations per dim, 13 output channels per group */
  ct_case_t e = {2, 1, 6, 26, 2, {9, 7}, {3, 2}, {2, 3}, {2, 1}, {0, 2}, {1, -2}, true};
  check(__LINE__, &e);
  /* 1-D with a long row (more input positions than one block of cols), 3-D */
  ct_case_t f = {1, 1, 5, 7, 1, {3001}, {4}, {2}, {1}, {1}, {0}, true};
  check(__LINE__, &f);
  ct_case_t h = {3, 1, 4, 6, 2, {3, 5, 7}, {2, 3, 2}, {1, 2, 2}, {1, 1, 2}, {0, 1, 0}, {1, 0, -1}, false};
  check(__LINE__, &h);
  /* a wide input (one input row per block at most) */
  ct_case_t i = {2, 1, 3, 64, 1, {2, 700}, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  check(__LINE__, &i);
}

static void test_random(void) {
  for (int it = 0; it < 60; it++) {
    ct_case_t g;
    memset(&g, 0, sizeof g);
    g.sp = (int)rnd_in(1, 3);
    g.n = rnd_in(1, 2);
    g.group = rnd_in(1, 3);
    g.c = g.group * rnd_in(1, 5);
    g.m = g.group * rnd_in(1, 14);
    g.bias = rnd() & 1;
    for (int d = 0; d < g.sp; d++) {
      g.in[d] = rnd_in(1, g.sp == 3 ? 5 : g.sp == 2 ? 12 : 40);
      g.k[d] = rnd_in(1, 4);
      g.stride[d] = rnd_in(1, 3);
      g.dil[d] = rnd_in(1, 2);
      int64_t full = g.stride[d] * (g.in[d] - 1) + g.dil[d] * (g.k[d] - 1) + 1;
      g.pb[d] = rnd_in(0, (full - 1) / 3);
      g.pe[d] = rnd_in(-(g.stride[d] - 1), (full - 1) / 3);
      if (full - g.pb[d] - g.pe[d] < 1) g.pe[d] = 0;
    }
    check(__LINE__, &g);
  }
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 20261203u;
  rng_state = rng_seed;
  fprintf(stderr, "seed %llu\n", (unsigned long long)rng_seed);
  test_shapes();
  test_random();
  return test_finish("test_kernel_convt");
}
