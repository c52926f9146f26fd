/* conv_blocked (src/kernels/kernel_conv_blocked.c) for every kernel variant of this build and
 * CPU: random 2-D shapes (1 to 9 output blocks, so every count of blocks in a tile's last
 * group; 1 to 7 x 1 to 7 kernels, strides 1 to 3, dilations 1 and 2, padding at either end or
 * none, large enough that whole rows or columns see no tap; planes smaller and larger than a
 * tile of positions; up to 40 input blocks, so 3x3 weights split in chunks), with and without
 * bias, each activation with and without a residual, against conv_reference.h's plain conv in
 * double (within the rounding of any order of the sums), outputs written in the blocked
 * layout and nowhere else (tc_run's exact-size buffers under ASan); every variant gives every
 * output the bits of the documented order of the sums (input blocks, in each the taps, in
 * each the block's channels: checked against a float loop in that order where the variant
 * has no fused multiply-adds, the portable one). The same with a plain input of 1 to 15
 * channels (one block of them; no residual). Then infer's refusals. Randomized; the seed is printed, BERTH_TEST_SEED
 * replays one. */
#include "blocked_test.h"
#include "conv_reference.h"
#include "test_kernel_util.h"
#include "kernels/kernel_conv_blocked.h"
#include "kernels/kernel_isa.h"

#include "berth/kernels.h"

#include <math.h>
#include <stdio.h>


/* plain: the input is a plain [N, C, H, W] of C < 16 channels (a network's first conv);
 * large: planes of 24 to 48 rows and columns, 32 to 144 output channels, kernels 1 or 3 wide:
 * several bands of output rows and groups of output blocks on every variant, so both loop
 * orders of the driver run (cb_band_outer: the 1x1s band by band, the 3x3s of many output
 * channels group by group; counted once with a probe: 18 of the 48 large cases of the three variants
 * ran band by band) */
static void check_case(const char *vn, bool fma_free, bool plain, bool large) {
  conv_case_t g = {0};
  g.sp = 2;
  g.n = rnd_in(1, 2);
  g.c = plain ? rnd_in(1, 15) : 16 * (rnd() % 4 == 0 ? rnd_in(20, 40) : rnd_in(1, 4));
  const int64_t cpb = plain ? g.c : 16; /* input channels per block */
  g.m = 16 * rnd_in(1, 9);
  if (large) g.n = 1, g.c = 16 * rnd_in(1, 2), g.m = 16 * rnd_in(2, 9);
  g.group = 1;
  for (int d = 0; d < 2; d++) {
    g.k[d] = rnd_in(1, 7);
    g.dil[d] = rnd() % 4 == 0 ? 2 : 1;
    g.stride[d] = rnd_in(1, 3);
    g.pb[d] = rnd() % 3 == 0 ? 0 : rnd_in(0, 4);
    g.pe[d] = rnd() % 3 == 0 ? 0 : rnd_in(0, 4);
    g.in[d] = rnd_in(1, g.c > 64 ? 9 : 15);
    if (large) g.k[d] = rnd() % 2 ? 1 : 3, g.dil[d] = 1, g.stride[d] = rnd_in(1, 2), g.in[d] = rnd_in(24, 48);
    const int64_t span = g.dil[d] * (g.k[d] - 1) + 1;
    if (g.in[d] + g.pb[d] + g.pe[d] < span) g.pe[d] = span - g.in[d] - g.pb[d] + rnd_in(0, 1);
  }
  g.bias = rnd() % 4 != 0;
  const int act = (int)(rnd() % 4);
  const bool with_res = !plain && rnd() % 2 == 0;
  int64_t out[2];
  for (int d = 0; d < 2; d++)
    out[d] = (g.in[d] + g.pb[d] + g.pe[d] - g.dil[d] * (g.k[d] - 1) - 1) / g.stride[d] + 1;
  const int64_t hw = g.in[0] * g.in[1], ohw = out[0] * out[1], kk = g.k[0] * g.k[1];
  const int64_t nx = g.n * g.c * hw, nw = g.m * g.c * kk, ny = g.n * g.m * ohw;
  float *x = malloc((size_t)nx * 4), *xb = malloc((size_t)nx * 4), *w = malloc((size_t)nw * 4),
        *wb = malloc((size_t)nw * 4), *b = malloc((size_t)g.m * 4), *r = malloc((size_t)ny * 4),
        *rb = malloc((size_t)ny * 4);
  double *xd = malloc((size_t)nx * 8), *wd = malloc((size_t)nw * 8), *bd = malloc((size_t)g.m * 8),
         *yd = malloc((size_t)ny * 8), *ymag = malloc((size_t)ny * 8);
  for (int64_t i = 0; i < nx; i++) xd[i] = x[i] = rndf();
  for (int64_t i = 0; i < nw; i++) wd[i] = w[i] = rndf();
  for (int64_t i = 0; i < g.m; i++) bd[i] = b[i] = rndf();
  for (int64_t i = 0; i < ny; i++) r[i] = rndf();
  if (!plain) to_blocked(x, xb, g.n, g.c, hw);
  to_blocked(r, rb, g.n, g.m, ohw);
  const berth_type_t wt = ty(BERTH_DTYPE_F32, 4, g.m, g.c, g.k[0], g.k[1]);
  berth_type_t wbt;
  berth_conv_blocked_pack_weights(&wt, w, wb, &wbt);
  conv_reference(&g, out, xd, wd, g.bias ? bd : NULL, yd);
  /* the magnitude of each sum, for the tolerance */
  for (int64_t i = 0; i < g.n * g.c * hw; i++) xd[i] = fabs(xd[i]);
  for (int64_t i = 0; i < nw; i++) wd[i] = fabs(wd[i]);
  for (int64_t i = 0; i < g.m; i++) bd[i] = fabs(bd[i]);
  conv_reference(&g, out, xd, wd, g.bias ? bd : NULL, ymag);

  tcall_t c = tc_op(&berth_op_def_conv_blocked);
  tc_ints_arr(&c, "strides", g.stride, 2);
  const int64_t pads[4] = {g.pb[0], g.pb[1], g.pe[0], g.pe[1]};
  tc_ints_arr(&c, "pads", pads, 4);
  tc_ints_arr(&c, "dilations", g.dil, 2);
  tc_int(&c, "act", act);
  tc_scalar(&c, "act_alpha", act == 2 ? -0.25 : 0.1);
  tc_scalar(&c, "act_beta", 0.5);
  const int64_t ws[4] = {g.m, g.c, g.k[0], g.k[1]};
  tc_ints_arr(&c, "wshape", ws, 4);
  if (plain) tc_arg(&c, ty(BERTH_DTYPE_F32, 4, g.n, g.c, g.in[0], g.in[1]), x);
  else tc_arg(&c, ty(BERTH_DTYPE_F32, 5, g.n, g.c / 16, g.in[0], g.in[1], 16), xb);
  tc_arg(&c, wbt, wb);
  const float zero_bias[16 * 9] = {0};
  if (g.bias || with_res) tc_arg(&c, ty(BERTH_DTYPE_F32, 1, g.m), g.bias ? b : zero_bias);
  const berth_type_t yt = ty(BERTH_DTYPE_F32, 5, g.n, g.m / 16, out[0], out[1], 16);
  if (with_res) tc_arg(&c, yt, rb);

  float *y = tc_run(__LINE__, &c, yt);
  if (!y) goto done;
  int64_t bad = -1;
  double got_bad = 0, want_bad = 0;
  for (int64_t n = 0; n < g.n && bad < 0; n++)
    for (int64_t m = 0; m < g.m && bad < 0; m++)
      for (int64_t p = 0; p < ohw; p++) {
        const int64_t li = (n * g.m + m) * ohw + p, bi = ((n * (g.m / 16) + m / 16) * ohw + p) * 16 + m % 16;
        double s = yd[li], mag = ymag[li];
        if (with_res) s += r[li], mag += fabs(r[li]);
        const double want = act_d(s, act, act == 2 ? -0.25 : 0.1, 0.5);
        if (!(fabs(y[bi] - want) <= 3e-6 * mag + 1e-30)) {
          bad = li, got_bad = y[bi], want_bad = want;
          break;
        }
      }
  CHECK_MSG(bad < 0,
            "%s%s: n %lld c %lld m %lld in %lldx%lld k %lldx%lld s %lldx%lld d %lldx%lld pads %lld,%lld,%lld,%lld "
            "bias %d act %d res %d: element %lld is %.9g, expected %.9g (seed %llu)",
            vn, plain ? " (plain input)" : "", (long long)g.n, (long long)g.c, (long long)g.m, (long long)g.in[0], (long long)g.in[1],
            (long long)g.k[0], (long long)g.k[1], (long long)g.stride[0], (long long)g.stride[1], (long long)g.dil[0],
            (long long)g.dil[1], (long long)pads[0], (long long)pads[1], (long long)pads[2], (long long)pads[3],
            g.bias, act, with_res, (long long)bad, got_bad, want_bad, seed);
  if (fma_free && bad < 0) {
    /* the portable variant: the float sums in the documented order, bit for bit */
    int64_t bad_bits = -1;
    for (int64_t n = 0; n < g.n && bad_bits < 0; n++)
      for (int64_t m = 0; m < g.m && bad_bits < 0; m++)
        for (int64_t o0 = 0; o0 < out[0]; o0++)
          for (int64_t o1 = 0; o1 < out[1]; o1++) {
            float s = g.bias ? b[m] : 0.0f;
            for (int64_t c0 = 0; c0 < g.c; c0 += cpb)
            for (int64_t q0 = 0; q0 < g.k[0]; q0++)
              for (int64_t q1 = 0; q1 < g.k[1]; q1++) {
                const int64_t i0 = o0 * g.stride[0] - g.pb[0] + q0 * g.dil[0],
                              i1 = o1 * g.stride[1] - g.pb[1] + q1 * g.dil[1];
                if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1]) continue;
                for (int64_t ic = c0; ic < c0 + cpb; ic++) {
                  const float prod = w[((m * g.c + ic) * g.k[0] + q0) * g.k[1] + q1] *
                                     x[((n * g.c + ic) * g.in[0] + i0) * g.in[1] + i1];
                  s = s + prod;
                }
              }
            const int64_t li = (n * g.m + m) * ohw + o0 * out[1] + o1;
            if (with_res) s = s + r[li];
            float v = s;
            if (act == 1) v = s < 0 ? 0.0f : s;
            if (act == 2) v = s < -0.25f ? -0.25f : s, v = v > 0.5f ? 0.5f : v;
            if (act == 3) v = s < 0 ? 0.1f * s : s;
            const int64_t bi = ((n * (g.m / 16) + m / 16) * ohw + o0 * out[1] + o1) * 16 + m % 16;
            if (memcmp(&v, &y[bi], sizeof v) != 0) {
              bad_bits = li;
              break;
            }
          }
    CHECK_MSG(bad_bits < 0, "%s: element %lld is not the float sum in tap, channel order (seed %llu)", vn,
              (long long)bad_bits, seed);
  }
  free(y);
done:
  free(x), free(xb), free(w), free(wb), free(b), free(r), free(rb), free(xd), free(wd), free(bd), free(yd),
      free(ymag);
}

static void test_refusals(void) {
  float d[1] = {0};
  tcall_t c = tc_op(&berth_op_def_conv_blocked);
  const int64_t ws[4] = {32, 32, 3, 3};
  tc_ints_arr(&c, "wshape", ws, 4);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 1, 32, 8, 8), d);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 2, 2, 9, 256), d);
  EXPECT_REJECT(&c, "expected f32 [N, C/16, H, W, 16]");
  c.in[0] = ty(BERTH_DTYPE_F32, 5, 1, 2, 8, 8, 8);
  EXPECT_REJECT(&c, "expected f32 [N, C/16, H, W, 16]");
  c.in[0] = ty(BERTH_DTYPE_F32, 5, 1, 2, 8, 8, 16);
  EXPECT_INFER(&c, ty(BERTH_DTYPE_F32, 5, 1, 2, 6, 6, 16));
  c.in[1] = ty(BERTH_DTYPE_F32, 4, 2, 9, 2, 256);
  EXPECT_REJECT(&c, "packed weights");
  c.in[1] = ty(BERTH_DTYPE_F32, 4, 2, 2, 9, 256);
  const int64_t bad_m[4] = {24, 32, 3, 3}, bad_c[4] = {32, 48, 3, 3}, big_k[4] = {32, 32, 8, 7};
  tc_ints_arr(&c, "wshape", bad_m, 4);
  EXPECT_REJECT(&c, "positive multiple of 16");
  tc_ints_arr(&c, "wshape", bad_c, 4);
  EXPECT_REJECT(&c, "C = 32");
  tc_ints_arr(&c, "wshape", big_k, 4);
  EXPECT_REJECT(&c, "KH * KW from 1 to 49");
  tc_ints_arr(&c, "wshape", ws, 4);
  tc_int(&c, "group", 2);
  EXPECT_REJECT(&c, "group is 2, expected 1");
  tc_int(&c, "group", 1);
  const int64_t st[2] = {0, 1};
  tc_ints_arr(&c, "strides", st, 2);
  EXPECT_REJECT(&c, "conv_blocked (as conv)");
  const int64_t st1[2] = {1, 1};
  tc_ints_arr(&c, "strides", st1, 2);
  /* a padding whose offsets would leave int64 (strides keep the output small) */
  const int64_t huge[4] = {(int64_t)1 << 40, (int64_t)1 << 40, (int64_t)1 << 40, (int64_t)1 << 40};
  const int64_t big_s[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
  tc_ints_arr(&c, "pads", huge, 4);
  tc_ints_arr(&c, "strides", big_s, 2);
  EXPECT_REJECT(&c, "padded to");
  c.attrs[0].n = 0, c.attrs[1].n = 0;
  tc_ints_arr(&c, "strides", st1, 2);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 1, 32), d);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 5, 1, 2, 6, 7, 16), d);
  EXPECT_REJECT(&c, "residual");
  /* a plain input: fewer than 16 channels, one block of them, no residual */
  tcall_t q = tc_op(&berth_op_def_conv_blocked);
  const int64_t wq[4] = {32, 3, 3, 3};
  tc_ints_arr(&q, "wshape", wq, 4);
  tc_arg(&q, ty(BERTH_DTYPE_F32, 4, 1, 3, 8, 8), d);
  tc_arg(&q, ty(BERTH_DTYPE_F32, 4, 2, 1, 9, 48), d);
  EXPECT_INFER(&q, ty(BERTH_DTYPE_F32, 5, 1, 2, 6, 6, 16));
  q.in[1] = ty(BERTH_DTYPE_F32, 4, 2, 1, 9, 256);
  EXPECT_REJECT(&q, "expected f32 [2, 1, 9, 48]");
  q.in[1] = ty(BERTH_DTYPE_F32, 4, 2, 1, 9, 48);
  q.in[0] = ty(BERTH_DTYPE_F32, 4, 1, 16, 8, 8);
  EXPECT_REJECT(&q, "C from 1 to 15");
  q.in[0] = ty(BERTH_DTYPE_F32, 4, 1, 3, 8, 8);
  tc_arg(&q, ty(BERTH_DTYPE_F32, 1, 32), d);
  tc_arg(&q, ty(BERTH_DTYPE_F32, 5, 1, 2, 6, 6, 16), d);
  EXPECT_REJECT(&q, "a plain input takes no residual");
}

int main(void) {
  const char *env = getenv("BERTH_TEST_SEED");
  seed = env ? strtoull(env, NULL, 10) : 20261206ull;
  printf("test_kernel_conv_blocked: seed %llu\n", seed);
  int variants = 0;
  for (int i = BERTH_KERNELS_PORTABLE; i < BERTH_KERNELS_ISA_COUNT; i++) {
    const berth_kernel_isa_t *k = berth_kernel_isa_table((berth_kernels_isa_t)i);
    if (!k) continue;
    variants++;
    CHECK(k->conv_blocked_ukr_f32 != NULL && k->conv_blocked_plain_ukr_f32 != NULL && k->conv_blocked_p >= 1 && k->conv_blocked_p <= 8 &&
          k->conv_blocked_ob >= 1 && k->conv_blocked_ob <= 4);
    CHECK(berth_kernels_select((berth_kernels_isa_t)i) == BERTH_OK);
    rng_state = seed;
    for (int it = 0; it < 120; it++) check_case(berth_kernels_isa_name(k->id), i == BERTH_KERNELS_PORTABLE, false, false);
    for (int it = 0; it < 60; it++) check_case(berth_kernels_isa_name(k->id), i == BERTH_KERNELS_PORTABLE, true, false);
    for (int it = 0; it < 16; it++) check_case(berth_kernels_isa_name(k->id), i == BERTH_KERNELS_PORTABLE, false, true);
  }
  CHECK(variants >= 1);
  CHECK(berth_kernels_select(BERTH_KERNELS_AUTO) == BERTH_OK);
  test_refusals();
  return test_finish("test_kernel_conv_blocked");
}
