/* conv's direct path (src/kernels/kernel_conv_direct.c) for every kernel variant of this build
 * and CPU: random 2-D shapes (channels not multiples of 8 or 32, kernels 1 to 7, strides 1 to
 * 3, padding at either end or none (the input read in place), runs crossing output rows, bands
 * of one row to all of them, blocks of K, with and without bias, each activation with and
 * without a residual), against
 *  - a plain loop in double (within the rounding of any order), and
 *  - the packed GEMM over a materialized im2col with the same pre-packed weights, then the
 *    scalar epilogue, bit for bit (the same sums in the same order),
 * outputs outside y untouched; scratch too small for one band row, panels the micro-kernel
 * cannot take and absurd geometry refused. Then conv_packed (which takes the direct path for
 * the shapes it chooses) against conv (the packed GEMM, weights in place), bit for bit, with
 * each activation and a residual. Convs of 1-4 input channels take kernel_conv_rows.h's path: their
 * own random shapes and every count of positions in a row's last tile. Randomized; the seed is
 * printed, BERTH_TEST_SEED replays one. */
#include "test_rng.h"
#include "test_kernel_util.h"
#include "kernels/kernel_conv_direct.h"
#include "kernels/kernel_conv_rows.h"
#include "kernels/kernel_gemm_pack.h"
#include "kernels/kernel_scratch.h"

#include "berth/kernels.h"

#include <math.h>

/* x[ic][i][j] under output (o0, o1) and tap (kh, kw), 0 over the padding */
static float tap(const berth_conv_direct_geom_t *g, const float *x, int64_t ic, int64_t o0, int64_t o1, int64_t kh,
                 int64_t kw) {
  const int64_t i = o0 * g->sh - g->ph + kh, j = o1 * g->sw - g->pw + kw;
  return i < 0 || i >= g->ih || j < 0 || j >= g->iw ? 0.0f : x[(ic * g->ih + i) * g->iw + j];
}

/* conv's epilogue on one value, as the scalar formulas: residual, then the activation */
static float epi1(float v, const berth_ukr_epi_t *e, float r) {
  if (e->res) v += r;
  switch (e->act) {
  case BERTH_UKR_ACT_RELU: return v < 0 ? 0.0f : v;
  case BERTH_UKR_ACT_CLIP: {
    const float u = v < e->alpha ? e->alpha : v;
    return u > e->beta ? e->beta : u;
  }
  case BERTH_UKR_ACT_LEAKY_RELU: return v < 0 ? e->alpha * v : v;
  default: return v;
  }
}
static double epi1d(double v, const berth_ukr_epi_t *e, double r) {
  if (e->res) v += r;
  switch (e->act) {
  case BERTH_UKR_ACT_RELU: return v < 0 ? 0.0 : v;
  case BERTH_UKR_ACT_CLIP: return v < e->alpha ? e->alpha : v > e->beta ? e->beta : v;
  case BERTH_UKR_ACT_LEAKY_RELU: return v < 0 ? e->alpha * v : v;
  default: return v;
  }
}

/* zeros: the input all zeros, the weights negative, bias and residual -0: every sum is -0,
 * which the activations' compares must keep (relu(-0) is -0: `<`, not `<=`) */
static void check_shape(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, int64_t ap, bool bias,
                        int64_t floats, int act, bool with_res, bool zeros) {
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
  if (zeros) {
    for (int64_t i = 0; i < g->c * g->ih * g->iw; i++) x[i] = 0.0f;
    for (int64_t i = 0; i < g->m * K; i++) w[i] = -fabsf(w[i]) - 0.01f;
    for (int64_t i = 0; i < g->m; i++) b[i] = -0.0f;
    for (int64_t i = 0; i < g->m * L; i++) res[i] = -0.0f;
  }
  berth_gemm_pack_a_ap(w, K, g->m, K, ap, wp);
  for (int64_t i = 0; i < g->m * L + 8; i++) y[i] = 1234.5f;
  memset(buf, 0xff, (size_t)(floats + 16) * sizeof(float)); /* NaN: a read of unwritten scratch shows */
  const berth_ukr_epi_t e = {with_res ? res : NULL, L, act, act == BERTH_UKR_ACT_CLIP ? -0.25f : 0.1f, 0.5f};
  const berth_ukr_epi_t *ep = act || with_res ? &e : NULL;
  const int64_t bh = berth_conv_direct_band_rows(isa, g, ap, floats);
  const bool ran = berth_conv_direct_f32(isa, g, x, wp, ap, bias ? b : NULL, y, ep, buf, floats);
  CHECK_MSG(ran == (bh > 0), "%s: ran %d but band_rows %lld (seed %llu)", vn, ran, (long long)bh, seed);
  if (!ran) goto done;
  CHECK_MSG(bh >= 1 && bh <= g->oh, "%s: band of %lld rows of %lld", vn, (long long)bh, (long long)g->oh);
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
  for (int64_t i = 0; i < g->m * L; i++) ypk[i] = epi1(ypk[i], &e, res[i]);
  int64_t bad_bits = -1, bad_ref = -1;
  for (int64_t m = 0; m < g->m; m++)
    for (int64_t t = 0; t < L; t++) {
      double s = bias ? b[m] : 0.0, mag = fabs(s) + (with_res ? fabs(res[m * L + t]) : 0.0);
      for (int64_t q = 0; q < K; q++) {
        const double p = (double)w[m * K + q] * col[q * L + t];
        s += p;
        mag += fabs(p);
      }
      const double want = epi1d(s, &e, res[m * L + t]);
      const float got = y[m * L + t];
      if (bad_ref < 0 && !(fabs(got - want) <= 2e-6 * mag + 1e-30)) bad_ref = m * L + t;
      if (bad_bits < 0 && memcmp(&got, &ypk[m * L + t], sizeof got) != 0) bad_bits = m * L + t;
    }
  CHECK_MSG(bad_ref < 0,
            "%s: c %lld m %lld in %lldx%lld k %lldx%lld s %lldx%lld pad %lld,%lld act %d res %d: element %lld off the "
            "plain loop (seed %llu)",
            vn, (long long)g->c, (long long)g->m, (long long)g->ih, (long long)g->iw, (long long)g->kh,
            (long long)g->kw, (long long)g->sh, (long long)g->sw, (long long)g->ph, (long long)g->pw, act, with_res,
            (long long)bad_ref, seed);
  CHECK_MSG(bad_bits < 0,
            "%s: c %lld m %lld in %lldx%lld k %lldx%lld s %lldx%lld pad %lld,%lld act %d res %d band %lld: element "
            "%lld not the packed GEMM's bits (seed %llu)",
            vn, (long long)g->c, (long long)g->m, (long long)g->ih, (long long)g->iw, (long long)g->kh,
            (long long)g->kw, (long long)g->sh, (long long)g->sw, (long long)g->ph, (long long)g->pw, act, with_res,
            (long long)bh, (long long)bad_bits, seed);
done:
  free(x), free(w), free(wp), free(b), free(res), free(y), free(ypk), free(col), free(buf);
}

static void test_random(const berth_kernel_isa_t *isa) {
  for (int it = 0; it < 160; it++) {
    berth_conv_direct_geom_t g;
    g.c = rnd_in(1, 37);
    g.m = rnd() % 3 ? rnd_in(1, 70) : 32 * rnd_in(1, 2);
    g.kh = rnd_in(1, 7);
    g.kw = rnd_in(1, 7);
    g.sh = rnd_in(1, 3);
    g.sw = rnd_in(1, 3);
    const bool pad = rnd() % 4 != 0; /* else none: the input in place */
    g.ph = pad ? rnd_in(0, g.kh - 1) : 0;
    g.pw = pad ? rnd_in(0, g.kw - 1) : 0;
    const int64_t pe0 = pad ? rnd_in(0, g.kh - 1) : 0, pe1 = pad ? rnd_in(0, g.kw - 1) : 0;
    g.ih = rnd_in(g.kh > g.ph + pe0 ? g.kh - g.ph - pe0 : 1, 23);
    g.iw = rnd_in(g.kw > g.pw + pe1 ? g.kw - g.pw - pe1 : 1, 23);
    g.oh = (g.ih + g.ph + pe0 - g.kh) / g.sh + 1;
    g.ow = (g.iw + g.pw + pe1 - g.kw) / g.sw + 1;
    /* scratch: from too little for one row to all of them at once */
    const int64_t nr = isa->conv_direct_nr, offs = (g.c * g.kh * g.kw + 15) / 16 * 16;
    /* no window reaches the padding (strides may skip the end's) */
    const bool in_place = g.ph + g.pw == 0 && (g.oh - 1) * g.sh + g.kh <= g.ih && (g.ow - 1) * g.sw + g.kw <= g.iw;
    /* few input channels (kernel_conv_rows.h): a band of kh rows of sw phases, no partial sums */
    const int64_t one = berth_conv_rows_geom(&g)
                            ? g.c * g.kh * g.sw * (g.ow + (g.kw - 1) / g.sw) + BERTH_CONV_ROWS_SLACK
                            : (in_place ? 0 : g.c * g.kh * ((g.ow - 1) * g.sw + g.kw)) + g.ow * nr;
    const int64_t pick[4] = {offs + one - 1, offs + one, offs + one * rnd_in(2, 4), 65536};
    const int64_t floats = pick[rnd() % 4];
    const int act = (int)(rnd() % 4);
    check_shape(isa, &g, BERTH_GEMM_WB_PANEL, rnd() % 4 != 0, floats, act, rnd() % 2 != 0, it % 8 == 0);
    /* the scratch request for r rows gives bands of r rows (balanced) on every variant */
    const int64_t r = rnd_in(1, 10), rr = r < g.oh ? r : g.oh, nb = (g.oh + rr - 1) / rr;
    const uint64_t req = berth_conv_direct_scratch_floats(&g, r);
    CHECK_MSG(req > 0 && berth_conv_direct_band_rows(isa, &g, BERTH_GEMM_WB_PANEL, (int64_t)req) >= (g.oh + nb - 1) / nb,
              "%s: the request for %lld rows holds fewer (seed %llu)", berth_kernels_isa_name(isa->id), (long long)r,
              seed);
    if (floats == offs + one - 1)
      CHECK_MSG(berth_conv_direct_band_rows(isa, &g, BERTH_GEMM_WB_PANEL, floats) == 0,
                "%s: a band in less than one row's scratch (seed %llu)", berth_kernels_isa_name(isa->id), seed);
    if (floats == offs + one)
      CHECK_MSG(berth_conv_direct_band_rows(isa, &g, BERTH_GEMM_WB_PANEL, floats) == 1,
                "%s: no band in one row's scratch (seed %llu)", berth_kernels_isa_name(isa->id), seed);
  }
}

/* few input channels (kernel_conv_rows.h: positions along the lanes): 1-4 channels, 1-49
 * taps per channel, strides 1-2 (the stride-2 rows split by phase), rows long enough for
 * several tiles of every variant and a last partial one, channels not a multiple of the
 * tile's, bands of one row to all */
static void test_rows(const berth_kernel_isa_t *isa) {
  for (int it = 0; it < 60; it++) {
    berth_conv_direct_geom_t g;
    g.c = rnd_in(1, BERTH_CONV_ROWS_MAX_C);
    g.m = rnd() % 2 ? rnd_in(1, 70) : 32 * rnd_in(1, 2);
    g.kh = rnd_in(1, 7);
    g.kw = rnd_in(1, 7);
    g.sh = rnd_in(1, 2);
    g.sw = rnd_in(1, 2);
    g.ph = rnd() % 3 ? rnd_in(0, g.kh - 1) : 0;
    g.pw = rnd() % 3 ? rnd_in(0, g.kw - 1) : 0;
    const int64_t pe0 = rnd_in(0, g.kh - 1), pe1 = rnd_in(0, g.kw - 1);
    g.ih = rnd_in(g.kh > g.ph + pe0 ? g.kh - g.ph - pe0 : 1, 12);
    g.iw = rnd_in(g.kw > g.pw + pe1 ? g.kw - g.pw - pe1 : 1, 130);
    g.oh = (g.ih + g.ph + pe0 - g.kh) / g.sh + 1;
    g.ow = (g.iw + g.pw + pe1 - g.kw) / g.sw + 1;
    CHECK(berth_conv_rows_wanted(isa, &g, BERTH_GEMM_WB_PANEL));
    const int64_t one = (int64_t)berth_conv_rows_scratch_floats(&g, 1), all = (int64_t)berth_conv_rows_scratch_floats(&g, g.oh);
    CHECK(one > 0 && berth_conv_direct_band_rows(isa, &g, BERTH_GEMM_WB_PANEL, one) == 1);
    CHECK(berth_conv_direct_band_rows(isa, &g, BERTH_GEMM_WB_PANEL, one - 1) == 0);
    const int64_t floats = rnd() % 2 ? one : all;
    check_shape(isa, &g, BERTH_GEMM_WB_PANEL, rnd() % 4 != 0, floats, (int)(rnd() % 4), rnd() % 2 != 0, it % 8 == 0);
  }
  /* every row length up to two tiles and one more: each count of positions in a row's last tile */
  for (int64_t ow = 1; ow <= 2 * isa->conv_rows_t + 1; ow++) {
    const int64_t sw = 1 + ow % 2;
    const berth_conv_direct_geom_t g = {1 + ow % 4, ow % 3 ? 3 + ow : 32, 3, (ow - 1) * sw + 1, 2, ow, 3, 3, 1, sw, 1, 1};
    check_shape(isa, &g, BERTH_GEMM_WB_PANEL, true, 65536, (int)(ow % 4), ow % 2 == 0, false);
  }
}

/* geometry whose band could not be indexed, or whose sizes would overflow if multiplied,
 * and panels the micro-kernel cannot step through are refused (0 rows), not run */
static void test_refuse(const berth_kernel_isa_t *isa) {
  const int64_t big = (int64_t)1 << 40, ap = BERTH_GEMM_WB_PANEL;
  const berth_conv_direct_geom_t ok = {4, 4, 8, 8, 8, 8, 3, 3, 1, 1, 1, 1};
  CHECK(berth_conv_direct_band_rows(isa, &ok, ap, 65536) == 8);
  CHECK(berth_conv_direct_band_rows(isa, &ok, ap, 0) == 0);
  /* AlexNet's 11x11 first conv: more taps per channel than the few-channel path takes */
  const berth_conv_direct_geom_t alex = {3, 96, 35, 35, 7, 7, 11, 11, 4, 4, 0, 0};
  CHECK(berth_conv_rows_geom(&ok) && !berth_conv_rows_geom(&alex) && !berth_conv_rows_wanted(isa, &alex, ap));
  CHECK(berth_conv_direct_band_rows(isa, &ok, BERTH_GEMM_APANEL, 65536) == 0); /* 12-row panels */
  CHECK(berth_conv_direct_band_rows(isa, &ok, 0, 65536) == 0);
  berth_conv_direct_geom_t g = ok;
  g.sh = g.sw = big;
  CHECK(berth_conv_direct_band_rows(isa, &g, ap, 65536) == 0);
  g = ok;
  g.c = big, g.kh = g.kw = big;
  CHECK(berth_conv_direct_band_rows(isa, &g, ap, 65536) == 0);
  g = ok;
  g.ph = g.pw = 0, g.ih = g.iw = 10, g.c = big; /* in place: offsets past int32 */
  CHECK(berth_conv_direct_band_rows(isa, &g, ap, 65536) == 0);
  g = ok;
  g.ow = big;
  CHECK(berth_conv_direct_band_rows(isa, &g, ap, 65536) == 0);
  g = ok;
  g.c = 0;
  CHECK(berth_conv_direct_band_rows(isa, &g, ap, 65536) == 0);
}

/* conv_packed against conv: the direct path (where conv_packed takes it) against the packed
 * GEMM, bit for bit, with an activation and a residual */
static void test_op(void) {
  static const struct {
    int64_t c, m, h, k, s, p;
  } cases[] = {
      {3, 64, 40, 7, 2, 3},   /* a first conv (ResNet-50's, smaller) */
      {5, 32, 23, 5, 1, 2},   /* a 5x5 */
      {128, 32, 14, 3, 1, 1}, /* DenseNet-121's 3x3 */
      {19, 64, 17, 3, 2, 1},  /* stride 2 */
      {16, 96, 12, 3, 1, 0},  /* no padding: the input in place */
      {5, 20, 23, 5, 1, 2},   /* 20 output channels: the packed GEMM (not a multiple of 32) */
      {3, 64, 41, 3, 2, 0},   /* SqueezeNet's conv1 (smaller): 27 taps, 3 channels (kernel_conv_rows.h) */
      {2, 32, 30, 3, 1, 1},   /* two input channels, stride 1 (one channel is not packed) */
      {2, 96, 27, 5, 2, 2},   /* two, 5x5 stride 2 */
      {4, 32, 19, 7, 1, 3},   /* four, 7x7 stride 1 */
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

/* The micro-kernel's header instantiated here with 16-byte vectors and every tile size P of
 * 2 to 16 (the variants use 3, 4, 6 and 12; a machine without AVX-512 never runs its 12), so
 * that every count of positions in a last tile runs on any machine: AVX-512's tile once had
 * no case for 9, 10 and 11 and left those outputs unwritten. */
#define CDU_VB 16
#define CDU_NV 2
#define CDU_P 2
#define CDU_NAME tile_ukr_p2
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 3
#define CDU_NAME tile_ukr_p3
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 4
#define CDU_NAME tile_ukr_p4
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 5
#define CDU_NAME tile_ukr_p5
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 6
#define CDU_NAME tile_ukr_p6
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 7
#define CDU_NAME tile_ukr_p7
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 8
#define CDU_NAME tile_ukr_p8
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 9
#define CDU_NAME tile_ukr_p9
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 10
#define CDU_NAME tile_ukr_p10
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 11
#define CDU_NAME tile_ukr_p11
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 12
#define CDU_NAME tile_ukr_p12
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 13
#define CDU_NAME tile_ukr_p13
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 14
#define CDU_NAME tile_ukr_p14
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 15
#define CDU_NAME tile_ukr_p15
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME
#define CDU_P 16
#define CDU_NAME tile_ukr_p16
#include "kernels/kernel_conv_direct_ukr.h"
#undef CDU_P
#undef CDU_NAME

typedef void (*tile_ukr_fn)(const float *, int64_t, const float *, int64_t, int64_t, int64_t, int64_t, int64_t,
                            const int32_t *, int64_t, const float *, float *, float *, int64_t, int64_t,
                            const berth_ukr_epi_t *);
static const tile_ukr_fn tile_ukrs[] = {tile_ukr_p2, tile_ukr_p3, tile_ukr_p4, tile_ukr_p5, tile_ukr_p6, tile_ukr_p7, tile_ukr_p8, tile_ukr_p9, tile_ukr_p10, tile_ukr_p11, tile_ukr_p12, tile_ukr_p13, tile_ukr_p14, tile_ukr_p15, tile_ukr_p16};

/* A 1x1 conv over kc input channels (planes 128 floats apart), positions in rows of 5 at a row
 * stride of 7, 8 output channels (NR = 2 vectors of 4) or fewer, n = 1 to 3 P positions: every
 * output against a double loop, the padding of y untouched. */
static void test_tile_sizes(void) {
  enum { NR = 8, KC = 9, PLANE = 128, OW = 5, RS = 7, NMAX = 48, LDY = NMAX + 3 };
  float w[KC * NR], x[KC * PLANE], bias[NR], part[NMAX * NR], y[NR * LDY];
  int32_t off[KC];
  for (int q = 0; q < KC; q++) off[q] = q * PLANE;
  for (int i = 0; i < KC * NR; i++) w[i] = rndf();
  for (int i = 0; i < KC * PLANE; i++) x[i] = rndf();
  for (int i = 0; i < NR; i++) bias[i] = rndf();
  for (int u = 0; u < (int)(sizeof tile_ukrs / sizeof tile_ukrs[0]); u++) {
    const int P = u + 2;
    for (int64_t n = 1; n <= 3 * P && n <= NMAX; n++)
      for (int64_t nch = NR - 3; nch <= NR; nch += 3) {
        for (int i = 0; i < NR * LDY; i++) y[i] = 1234.5f;
        tile_ukrs[u](w, NR, x, RS, 1, OW, 0, n, off, KC, bias, part, y, LDY, nch, NULL);
        int64_t bad = -1;
        for (int64_t c = 0; c < NR && bad < 0; c++)
          for (int64_t j = 0; j < LDY && bad < 0; j++) {
            const float got = y[c * LDY + j];
            if (c >= nch || j >= n) {
              if (got != 1234.5f) bad = c * LDY + j;
              continue;
            }
            double want = bias[c];
            const int64_t at = j / OW * RS + j % OW;
            for (int q = 0; q < KC; q++) want += (double)w[q * NR + c] * x[off[q] + at];
            if (!(fabs(got - want) <= 1e-5 * (1 + fabs(want)))) bad = c * LDY + j;
          }
        CHECK_MSG(bad < 0, "tile of %d positions, n %lld, %lld channels: y element %lld wrong or written", P,
               (long long)n, (long long)nch, (long long)bad);
      }
  }
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  seed = s ? strtoull(s, NULL, 10) : 20261204ull;
  rng_state = seed;
  printf("test_kernel_conv_direct: seed %llu\n", seed);
  test_tile_sizes();
  int variants = 0;
  for (int i = BERTH_KERNELS_PORTABLE; i < BERTH_KERNELS_ISA_COUNT; i++) {
    const berth_kernel_isa_t *k = berth_kernel_isa_table((berth_kernels_isa_t)i);
    if (!k) continue;
    variants++;
    CHECK(k->conv_direct_ukr_f32 != NULL && k->conv_direct_p >= 1 && k->conv_direct_nr >= 1 &&
          BERTH_GEMM_WB_PANEL % k->conv_direct_nr == 0);
    test_random(k);
    test_refuse(k);
    test_rows(k);
    CHECK(berth_kernels_select((berth_kernels_isa_t)i) == BERTH_OK);
    test_op();
  }
  CHECK(variants >= 1);
  CHECK(berth_kernels_select(BERTH_KERNELS_AUTO) == BERTH_OK);
  return test_finish("test_kernel_conv_direct");
}
