/* conv's direct path (src/kernels/kernel_conv_direct.c) for every kernel variant of this build
 * and CPU: random 2-D shapes (channels not multiples of 8 or 16, kernels 1 to 7, strides 1 to
 * 3, padding at either end, tiles crossing output rows, bands of one row to all of them, both
 * panel heights of the pre-packed weights, with and without bias), against
 *  - a plain loop in double (within the rounding of any order), and
 *  - the packed GEMM over a materialized im2col with the same pre-packed weights, bit for bit
 *    (the same sums in the same order),
 * with a residual-and-relu epilogue; outputs outside y untouched; scratch too small for one
 * band row refused. Then conv_packed (which takes the direct path for the shapes it chooses)
 * against conv (the packed GEMM, weights in place), bit for bit, with each activation and a
 * residual. Randomized; the seed is printed, BERTH_TEST_SEED replays one. */
#include "test_kernel_util.h"
#include "kernels/kernel_conv_direct.h"
#include "kernels/kernel_gemm_pack.h"
#include "kernels/kernel_scratch.h"

#include "berth/kernels.h"

#include <math.h>

static uint64_t rng_state;
static unsigned long long seed;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1)); }
static float rndf(void) { return (float)(rnd() % 20001) / 10000.0f - 1.0f; }

/* x[ic][i][j] under output (o0, o1) and tap (kh, kw), 0 over the padding */
static float tap(const berth_conv_direct_geom_t *g, const float *x, int64_t ic, int64_t o0, int64_t o1, int64_t kh,
                 int64_t kw) {
  const int64_t i = o0 * g->sh - g->ph + kh, j = o1 * g->sw - g->pw + kw;
  return i < 0 || i >= g->ih || j < 0 || j >= g->iw ? 0.0f : x[(ic * g->ih + i) * g->iw + j];
}

typedef struct epi_ctx {
  int calls;
} epi_ctx_t;
/* y = relu(y + res), as conv's epilogue does it */
static void epi_relu_res(const void *ctx, float *y, const float *res, int64_t n) {
  ((epi_ctx_t *)(uintptr_t)ctx)->calls++;
  for (int64_t i = 0; i < n; i++) {
    const float v = y[i] + res[i];
    y[i] = v < 0 ? 0.0f : v;
  }
}

static void check_shape(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, int64_t ap, bool bias,
                        int64_t floats) {
  const char *vn = berth_kernels_isa_name(isa->id);
  const int64_t K = g->c * g->kh * g->kw, L = g->oh * g->ow, np = (g->m + ap - 1) / ap;
  float *x = malloc((size_t)(g->c * g->ih * g->iw) * sizeof(float)), *w = malloc((size_t)(g->m * K) * sizeof(float));
  float *wp = malloc((size_t)(np * ap * K) * sizeof(float)), *b = malloc((size_t)g->m * sizeof(float));
  float *res = malloc((size_t)(g->m * L) * sizeof(float)), *y = malloc((size_t)(g->m * L + 8) * sizeof(float));
  float *ypk = malloc((size_t)(g->m * L) * sizeof(float)), *col = malloc((size_t)(K * L) * sizeof(float));
  float *buf = aligned_alloc(64, (size_t)(floats + 16 + 15) / 16 * 64); /* a multiple of 64 bytes */
  for (int64_t i = 0; i < g->c * g->ih * g->iw; i++) x[i] = rndf();
  for (int64_t i = 0; i < g->m * K; i++) w[i] = rndf();
  for (int64_t i = 0; i < g->m; i++) b[i] = rndf();
  for (int64_t i = 0; i < g->m * L; i++) res[i] = rndf();
  berth_gemm_pack_a_ap(w, K, g->m, K, ap, wp);
  for (int64_t i = 0; i < g->m * L + 8; i++) y[i] = 1234.5f;
  memset(buf, 0xff, (size_t)(floats + 16) * sizeof(float)); /* NaN: a read of unwritten scratch shows */
  epi_ctx_t ec = {0};
  const int64_t bh = berth_conv_direct_band_rows(isa, g, floats);
  const bool ran = berth_conv_direct_f32(isa, g, x, wp, ap, bias ? b : NULL, y, res, epi_relu_res, &ec, buf, floats);
  CHECK_MSG(ran == (bh > 0), "%s: ran %d but band_rows %lld (seed %llu)", vn, ran, (long long)bh, seed);
  if (!ran) goto done;
  CHECK_MSG(bh >= 1 && bh <= g->oh, "%s: band of %lld rows of %lld", vn, (long long)bh, (long long)g->oh);
  CHECK_MSG(ec.calls > 0, "%s: the epilogue never ran (seed %llu)", vn, seed);
  for (int64_t i = 0; i < 8; i++) CHECK_MSG(y[g->m * L + i] == 1234.5f, "%s: wrote past y (seed %llu)", vn, seed);
  /* the packed GEMM over an im2col of the same taps, then the same epilogue */
  for (int64_t ic = 0, q = 0; ic < g->c; ic++)
    for (int64_t kh = 0; kh < g->kh; kh++)
      for (int64_t kw = 0; kw < g->kw; kw++, q++)
        for (int64_t t = 0; t < L; t++) col[q * L + t] = tap(g, x, ic, t / g->ow, t % g->ow, kh, kw);
  const int64_t pf = berth_gemm_scratch_floats(g->m < 4 ? 4 : g->m, L, K) + 4096;
  float *pbuf = aligned_alloc(64, (size_t)(pf + 15) / 16 * 64);
  const berth_gemm_rows_t rows = {col, L};
  berth_gemm_packed_pa_ap_f32(isa, wp, ap, bias ? b : NULL, ypk, L, g->m, L, K, berth_gemm_pack_rows, &rows, pbuf, pf);
  free(pbuf);
  epi_ctx_t ec2 = {0};
  epi_relu_res(&ec2, ypk, res, g->m * L);
  int64_t bad_bits = -1, bad_ref = -1;
  for (int64_t m = 0; m < g->m; m++)
    for (int64_t t = 0; t < L; t++) {
      double s = bias ? b[m] : 0.0, mag = fabs(s);
      for (int64_t q = 0; q < K; q++) {
        const double p = (double)w[m * K + q] * col[q * L + t];
        s += p;
        mag += fabs(p);
      }
      s += res[m * L + t];
      mag += fabs(res[m * L + t]);
      const double want = s < 0 ? 0.0 : s;
      const float got = y[m * L + t];
      if (bad_ref < 0 && !(fabs(got - want) <= 2e-6 * mag + 1e-30)) bad_ref = m * L + t;
      if (bad_bits < 0 && memcmp(&got, &ypk[m * L + t], sizeof got) != 0) bad_bits = m * L + t;
    }
  CHECK_MSG(bad_ref < 0,
            "%s: c %lld m %lld in %lldx%lld k %lldx%lld s %lldx%lld pad %lld,%lld ap %lld: element %lld off the "
            "plain loop (seed %llu)",
            vn, (long long)g->c, (long long)g->m, (long long)g->ih, (long long)g->iw, (long long)g->kh,
            (long long)g->kw, (long long)g->sh, (long long)g->sw, (long long)g->ph, (long long)g->pw, (long long)ap,
            (long long)bad_ref, seed);
  CHECK_MSG(bad_bits < 0,
            "%s: c %lld m %lld in %lldx%lld k %lldx%lld s %lldx%lld pad %lld,%lld ap %lld band %lld: element %lld not "
            "the packed GEMM's bits (seed %llu)",
            vn, (long long)g->c, (long long)g->m, (long long)g->ih, (long long)g->iw, (long long)g->kh,
            (long long)g->kw, (long long)g->sh, (long long)g->sw, (long long)g->ph, (long long)g->pw, (long long)ap,
            (long long)bh, (long long)bad_bits, seed);
done:
  free(x), free(w), free(wp), free(b), free(res), free(y), free(ypk), free(col), free(buf);
}

static void test_random(const berth_kernel_isa_t *isa) {
  for (int it = 0; it < 120; it++) {
    berth_conv_direct_geom_t g;
    g.c = rnd_in(1, 37);
    g.m = rnd_in(1, 45);
    g.kh = rnd_in(1, 7);
    g.kw = rnd_in(1, 7);
    g.sh = rnd_in(1, 3);
    g.sw = rnd_in(1, 3);
    g.ph = rnd_in(0, g.kh - 1);
    g.pw = rnd_in(0, g.kw - 1);
    const int64_t pe0 = rnd_in(0, g.kh - 1), pe1 = rnd_in(0, g.kw - 1);
    g.ih = rnd_in(g.kh > g.ph + pe0 ? g.kh - g.ph - pe0 : 1, 23);
    g.iw = rnd_in(g.kw > g.pw + pe1 ? g.kw - g.pw - pe1 : 1, 23);
    g.oh = (g.ih + g.ph + pe0 - g.kh) / g.sh + 1;
    g.ow = (g.iw + g.pw + pe1 - g.kw) / g.sw + 1;
    const int64_t ap = rnd() % 2 ? BERTH_GEMM_APANEL : BERTH_GEMM_WB_PANEL;
    /* scratch: from too little for one row to all of them at once */
    const int64_t one = g.c * g.sh * g.sw * (1 + (g.kh - 1) / g.sh) * (g.ow + (g.kw - 1) / g.sw);
    const int64_t offs = (g.c * g.kh * g.kw + 15) / 16 * 16, nr = isa->conv_direct_nr;
    const int64_t pick[4] = {offs + nr + one - 1, offs + nr + one, offs + nr + one * rnd_in(2, 4), 65536};
    check_shape(isa, &g, ap, rnd() % 4 != 0, pick[rnd() % 4]);
  }
}

/* geometry whose band could not be indexed, or whose sizes would overflow if multiplied,
 * is refused (0 rows), not run */
static void test_refuse(const berth_kernel_isa_t *isa) {
  const int64_t big = (int64_t)1 << 40;
  const berth_conv_direct_geom_t ok = {4, 4, 8, 8, 8, 8, 3, 3, 1, 1, 1, 1};
  CHECK(berth_conv_direct_band_rows(isa, &ok, 65536) == 8);
  CHECK(berth_conv_direct_band_rows(isa, &ok, 0) == 0);
  berth_conv_direct_geom_t g = ok;
  g.sh = g.sw = big;
  CHECK(berth_conv_direct_band_rows(isa, &g, 65536) == 0);
  g = ok;
  g.c = big, g.kh = g.kw = big;
  CHECK(berth_conv_direct_band_rows(isa, &g, 65536) == 0);
  g = ok;
  g.ow = big;
  CHECK(berth_conv_direct_band_rows(isa, &g, 65536) == 0);
  g = ok;
  g.c = 0;
  CHECK(berth_conv_direct_band_rows(isa, &g, 65536) == 0);
}

/* conv_packed against conv: the direct path (where conv_packed takes it) against the packed
 * GEMM, bit for bit, with an activation and a residual */
static void test_op(void) {
  static const struct {
    int64_t c, m, h, k, s, p;
  } cases[] = {
      {3, 64, 40, 7, 2, 3},   /* a first conv (ResNet-50's, smaller) */
      {5, 20, 23, 5, 1, 2},   /* a 5x5 */
      {128, 32, 14, 3, 1, 1}, /* DenseNet-121's 3x3 */
      {19, 7, 17, 3, 2, 1},   /* few output channels, stride 2 */
  };
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
    for (int act = 0; act < 4; act++) {
      const int64_t c = cases[ci].c, m = cases[ci].m, h = cases[ci].h, k = cases[ci].k, o = (h + 2 * cases[ci].p - k) / cases[ci].s + 1;
      berth_type_t tx = ty(BERTH_DTYPE_F32, 4, 1, (int)c, (int)h, (int)h), tw = ty(BERTH_DTYPE_F32, 4, (int)m, (int)c, (int)k, (int)k);
      berth_type_t tb = ty(BERTH_DTYPE_F32, 1, (int)m), tyy = ty(BERTH_DTYPE_F32, 4, 1, (int)m, (int)o, (int)o);
      const int64_t nx = c * h * h, nw = m * c * k * k, ny = m * o * o;
      float *x = malloc((size_t)nx * 4), *w = malloc((size_t)nw * 4), *b = malloc((size_t)m * 4), *r = malloc((size_t)ny * 4);
      for (int64_t i = 0; i < nx; i++) x[i] = rndf();
      for (int64_t i = 0; i < nw; i++) w[i] = rndf() * 0.3f;
      for (int64_t i = 0; i < m; i++) b[i] = rndf();
      for (int64_t i = 0; i < ny; i++) r[i] = rndf();
      tcall_t cv = tc_op(&berth_op_def_conv);
      const int64_t st[2] = {cases[ci].s, cases[ci].s}, pd[4] = {cases[ci].p, cases[ci].p, cases[ci].p, cases[ci].p};
      tc_ints_arr(&cv, "strides", st, 2);
      tc_ints_arr(&cv, "pads", pd, 4);
      tc_int(&cv, "act", act);
      tc_scalar(&cv, "act_alpha", act == 2 ? -0.25 : 0.1);
      tc_scalar(&cv, "act_beta", 0.5);
      berth_type_t in[4] = {tx, tw, tb, tyy};
      CHECK(berth_conv_packable(cv.attrs, in, 4));
      float *wp = malloc((size_t)berth_conv_packed_floats(cv.attrs, in, 4) * 4);
      berth_type_t twp;
      berth_conv_pack_weights(cv.attrs, in, 4, w, wp, &twp);
      tcall_t cp = tc_op(&berth_op_def_conv_packed);
      memcpy(cp.attrs, cv.attrs, sizeof cv.attrs);
      tc_ints_arr(&cp, "wshape", tw.dims, 4);
      tc_arg(&cv, tx, x), tc_arg(&cv, tw, w), tc_arg(&cv, tb, b), tc_arg(&cv, tyy, r);
      tc_arg(&cp, tx, x), tc_arg(&cp, twp, wp), tc_arg(&cp, tb, b), tc_arg(&cp, tyy, r);
      float *want = tc_run(__LINE__, &cv, tyy), *got = tc_run(__LINE__, &cp, tyy);
      if (want && got) {
        int64_t bad = -1;
        for (int64_t i = 0; i < ny && bad < 0; i++)
          if (memcmp(&want[i], &got[i], 4) != 0) bad = i;
        CHECK_MSG(bad < 0, "%s: conv_packed case %zu act %d: element %lld differs from conv (seed %llu)",
                  berth_kernels_isa_name(berth_kernels_active()), ci, act, (long long)bad, seed);
      }
      free(want), free(got), free(x), free(w), free(b), free(r), free(wp);
    }
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  seed = s ? strtoull(s, NULL, 10) : 20261204ull;
  rng_state = seed;
  printf("test_kernel_conv_direct: seed %llu\n", seed);
  int variants = 0;
  for (int i = BERTH_KERNELS_PORTABLE; i < BERTH_KERNELS_ISA_COUNT; i++) {
    const berth_kernel_isa_t *k = berth_kernel_isa_table((berth_kernels_isa_t)i);
    if (!k) continue;
    variants++;
    CHECK(k->conv_direct_ukr_f32 != NULL && k->conv_direct_mr >= 1 && k->conv_direct_mr <= 16);
    test_random(k);
    test_refuse(k);
    CHECK(berth_kernels_select((berth_kernels_isa_t)i) == BERTH_OK);
    test_op();
  }
  CHECK(variants >= 1);
  CHECK(berth_kernels_select(BERTH_KERNELS_AUTO) == BERTH_OK);
  return test_finish("test_kernel_conv_direct");
}
