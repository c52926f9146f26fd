/* conv_winograd (src/kernels/kernel_conv_winograd.c) for every kernel variant of this build
 * and CPU: random 3x3 stride-1 convs (1 to 9 output blocks, 1 to 4 input blocks and now and
 * then 20 to 40, so the products go in chunks; planes from 1 x 1 to 15 x 15 with 0 to 2 of
 * padding at either end, so odd outputs leave half tiles and patches reach past every edge;
 * batches of 1 and 2), with and without bias, each activation with and without a residual,
 * with the scratch the planner gives (one band or several), with scratch for one tile and a
 * bit (bands of one tile) and with none (the tile-by-tile fallback), against
 * conv_reference.h's plain conv in double: within 3e-5 of the magnitude of each sum (the
 * transforms add and subtract up to 4 x 4 inputs and 3 x 3 weights before the products; the
 * largest error seen is printed), outputs in the blocked layout and nowhere else (tc_run's
 * exact-size buffers under ASan; scratch filled with NaN, so a read of scratch not written
 * shows). Then the transformed weights of one filter against G g G^T by hand, and infer's
 * refusals. Randomized; the seed is printed, BERTH_TEST_SEED replays one. */
#include "blocked_test.h"
#include "conv_reference.h"
#include "test_kernel_util.h"
#include "kernels/kernel_conv_winograd.h"
#include "kernels/kernel_isa.h"

#include "berth/kernels.h"

#include <math.h>
#include <stdio.h>

static double worst; /* the largest error seen, relative to the sum's magnitude */

/* scratch: 0 the planner's, 1 one tile and a bit, 2 none */
static void check_case(const char *vn, int scratch) {
  conv_case_t g = {0};
  g.sp = 2;
  g.n = rnd_in(1, 2);
  g.c = 16 * (rnd() % 5 == 0 ? rnd_in(20, 40) : rnd_in(1, 4));
  g.m = 16 * rnd_in(1, 9);
  g.group = 1;
  for (int d = 0; d < 2; d++) {
    g.k[d] = 3;
    g.dil[d] = 1;
    g.stride[d] = 1;
    g.pb[d] = rnd_in(0, 2);
    g.pe[d] = rnd_in(0, 2);
    g.in[d] = rnd_in(1, g.c > 64 ? 9 : 15);
    if (g.in[d] + g.pb[d] + g.pe[d] < 3) g.pe[d] = 3 - g.in[d] - g.pb[d];
  }
  g.bias = rnd() % 4 != 0;
  const int act = (int)(rnd() % 4);
  const bool with_res = rnd() % 2 == 0;
  int64_t out[2];
  for (int d = 0; d < 2; d++) out[d] = g.in[d] + g.pb[d] + g.pe[d] - 2;
  const int64_t hw = g.in[0] * g.in[1], ohw = out[0] * out[1];
  const int64_t nx = g.n * g.c * hw, nw = g.m * g.c * 9, nu = g.m * g.c * 16, ny = g.n * g.m * ohw;
  float *x = malloc((size_t)nx * 4), *xb = malloc((size_t)nx * 4), *w = malloc((size_t)nw * 4),
        *u = malloc((size_t)nu * 4), *b = malloc((size_t)g.m * 4), *r = malloc((size_t)ny * 4),
        *rb = malloc((size_t)ny * 4);
  double *xd = malloc((size_t)nx * 8), *wd = malloc((size_t)nw * 8), *bd = malloc((size_t)g.m * 8),
         *yd = malloc((size_t)ny * 8), *ymag = malloc((size_t)ny * 8);
  for (int64_t i = 0; i < nx; i++) xd[i] = x[i] = rndf();
  for (int64_t i = 0; i < nw; i++) wd[i] = w[i] = rndf();
  for (int64_t i = 0; i < g.m; i++) bd[i] = b[i] = rndf();
  for (int64_t i = 0; i < ny; i++) r[i] = rndf();
  to_blocked(x, xb, g.n, g.c, hw);
  to_blocked(r, rb, g.n, g.m, ohw);
  const berth_type_t wt = ty(BERTH_DTYPE_F32, 4, g.m, g.c, 3, 3);
  berth_type_t ut;
  berth_conv_winograd_pack_weights(&wt, w, u, &ut);
  conv_reference(&g, out, xd, wd, g.bias ? bd : NULL, yd);
  /* the magnitude of each sum, for the tolerance */
  for (int64_t i = 0; i < nx; i++) xd[i] = fabs(xd[i]);
  for (int64_t i = 0; i < nw; i++) wd[i] = fabs(wd[i]);
  for (int64_t i = 0; i < g.m; i++) bd[i] = fabs(bd[i]);
  conv_reference(&g, out, xd, wd, g.bias ? bd : NULL, ymag);

  tcall_t c = tc_op(&berth_op_def_conv_winograd);
  const int64_t pads[4] = {g.pb[0], g.pb[1], g.pe[0], g.pe[1]};
  tc_ints_arr(&c, "pads", pads, 4);
  if (rnd() % 2) { /* strides and dilations of 1 written out, or absent */
    tc_ints_arr(&c, "strides", g.stride, 2);
    tc_ints_arr(&c, "dilations", g.dil, 2);
  }
  tc_int(&c, "act", act);
  tc_scalar(&c, "act_alpha", act == 2 ? -0.25 : 0.1);
  tc_scalar(&c, "act_beta", 0.5);
  const int64_t ws[4] = {g.m, g.c, 3, 3};
  tc_ints_arr(&c, "wshape", ws, 4);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 5, g.n, g.c / 16, g.in[0], g.in[1], 16), xb);
  tc_arg(&c, ut, u);
  const float zero_bias[16 * 9] = {0};
  if (g.bias || with_res) tc_arg(&c, ty(BERTH_DTYPE_F32, 1, g.m), g.bias ? b : zero_bias);
  const berth_type_t yt = ty(BERTH_DTYPE_F32, 5, g.n, g.m / 16, out[0], out[1], 16);
  if (with_res) tc_arg(&c, yt, rb);
  if (scratch == 1) c.scratch_max = 16 * (g.c + g.m) * 4 * 3 / 2 + 64; /* a tile and a half, with the slack */
  if (scratch == 2) c.scratch_max = 0;

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
        const double want = act_d(s, act, act == 2 ? -0.25 : 0.1, 0.5), err = fabs(y[bi] - want);
        if (mag > 0 && err / mag > worst) worst = err / mag;
        if (!(err <= 3e-5 * mag + 1e-30)) {
          bad = li, got_bad = y[bi], want_bad = want;
          break;
        }
      }
  CHECK_MSG(bad < 0,
            "%s: n %lld c %lld m %lld in %lldx%lld pads %lld,%lld,%lld,%lld bias %d act %d res %d scratch %d: element "
            "%lld is %.9g, expected %.9g (seed %llu)",
            vn, (long long)g.n, (long long)g.c, (long long)g.m, (long long)g.in[0], (long long)g.in[1],
            (long long)pads[0], (long long)pads[1], (long long)pads[2], (long long)pads[3], g.bias, act, with_res,
            scratch, (long long)bad, got_bad, want_bad, seed);
  free(y);
done:
  free(x), free(xb), free(w), free(u), free(b), free(r), free(rb), free(xd), free(wd), free(bd), free(yd),
      free(ymag);
}

/* One filter's transform by hand: g = 1..9 row major, so G g G^T has known entries. */
static void test_pack(void) {
  float w[16 * 16 * 9], u[16 * 16 * 16];
  for (int i = 0; i < 16 * 16 * 9; i++) w[i] = 0;
  for (int q = 0; q < 9; q++) w[(5 * 16 + 3) * 9 + q] = (float)(q + 1); /* output 5, input 3 */
  const berth_type_t wt = ty(BERTH_DTYPE_F32, 4, 16, 16, 3, 3);
  berth_type_t ut;
  berth_conv_winograd_pack_weights(&wt, w, u, &ut);
  const berth_type_t want_t = ty(BERTH_DTYPE_F32, 4, 16, 1, 1, 256);
  CHECK(berth_type_equal(&ut, &want_t));
  /* G g: rows g0, (g0+g1+g2)/2, (g0-g1+g2)/2, g2 of the 3x3 [[1,2,3],[4,5,6],[7,8,9]];
   * then the same on the columns */
  static const double gg[4][3] = {{1, 2, 3}, {6, 7.5, 9}, {2, 2.5, 3}, {7, 8, 9}};
  for (int a = 0; a < 4; a++)
    for (int bcol = 0; bcol < 4; bcol++) {
      const double *r = gg[a];
      const double want = bcol == 0 ? r[0] : bcol == 1 ? (r[0] + r[1] + r[2]) / 2 : bcol == 2 ? (r[0] - r[1] + r[2]) / 2 : r[2];
      const float got = u[((a * 4 + bcol) * 16 + 3) * 16 + 5];
      CHECK_MSG(got == (float)want, "U[%d][%d] is %g, expected %g", a, bcol, got, want);
      CHECK(u[((a * 4 + bcol) * 16 + 3) * 16 + 4] == 0.0f && u[((a * 4 + bcol) * 16 + 2) * 16 + 5] == 0.0f);
    }
}

static void test_refusals(void) {
  float d[1] = {0};
  tcall_t c = tc_op(&berth_op_def_conv_winograd);
  const int64_t ws[4] = {32, 32, 3, 3};
  tc_ints_arr(&c, "wshape", ws, 4);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 1, 32, 8, 8), d);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 16, 2, 2, 256), d);
  EXPECT_REJECT(&c, "expected f32 [N, C/16, H, W, 16]");
  c.in[0] = ty(BERTH_DTYPE_F32, 5, 1, 2, 8, 8, 16);
  EXPECT_INFER(&c, ty(BERTH_DTYPE_F32, 5, 1, 2, 6, 6, 16));
  c.in[1] = ty(BERTH_DTYPE_F32, 4, 2, 2, 9, 256); /* conv_blocked's packing */
  EXPECT_REJECT(&c, "transformed weights");
  c.in[1] = ty(BERTH_DTYPE_F32, 4, 16, 2, 2, 256);
  const int64_t k5[4] = {32, 32, 5, 5}, bad_m[4] = {24, 32, 3, 3}, bad_c[4] = {32, 48, 3, 3};
  tc_ints_arr(&c, "wshape", k5, 4);
  EXPECT_REJECT(&c, "wshape must be [M, 32, 3, 3]");
  tc_ints_arr(&c, "wshape", bad_m, 4);
  EXPECT_REJECT(&c, "positive multiple of 16");
  tc_ints_arr(&c, "wshape", bad_c, 4);
  EXPECT_REJECT(&c, "wshape must be [M, 32, 3, 3]");
  tc_ints_arr(&c, "wshape", ws, 4);
  const int64_t two[2] = {2, 1}, one[2] = {1, 1};
  tc_ints_arr(&c, "strides", two, 2);
  EXPECT_REJECT(&c, "strides and dilations must be 1");
  tc_ints_arr(&c, "strides", one, 2);
  tc_ints_arr(&c, "dilations", two, 2);
  EXPECT_REJECT(&c, "strides and dilations must be 1");
  tc_ints_arr(&c, "dilations", one, 2);
  tc_int(&c, "group", 2);
  EXPECT_REJECT(&c, "group is 2, expected 1");
  tc_int(&c, "group", 1);
  const int64_t neg[4] = {-1, 0, 0, 0};
  tc_ints_arr(&c, "pads", neg, 4);
  EXPECT_REJECT(&c, "conv_winograd (as conv)");
  c.attrs[1].n = 0;
  tc_arg(&c, ty(BERTH_DTYPE_F32, 1, 32), d);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 5, 1, 2, 6, 7, 16), d);
  EXPECT_REJECT(&c, "residual");
}

int main(void) {
  const char *env = getenv("BERTH_TEST_SEED");
  seed = env ? strtoull(env, NULL, 10) : 20261206ull;
  printf("test_kernel_conv_winograd: seed %llu\n", seed);
  int variants = 0;
  for (int i = BERTH_KERNELS_PORTABLE; i < BERTH_KERNELS_ISA_COUNT; i++) {
    const berth_kernel_isa_t *k = berth_kernel_isa_table((berth_kernels_isa_t)i);
    if (!k) continue;
    variants++;
    CHECK(k->winograd_in_f32 != NULL && k->winograd_out_f32 != NULL);
    CHECK(berth_kernels_select((berth_kernels_isa_t)i) == BERTH_OK);
    rng_state = seed;
    for (int it = 0; it < 150; it++) check_case(berth_kernels_isa_name(k->id), it % 5 == 3 ? 1 : it % 5 == 4 ? 2 : 0);
  }
  CHECK(variants >= 1);
  CHECK(berth_kernels_select(BERTH_KERNELS_AUTO) == BERTH_OK);
  printf("test_kernel_conv_winograd: largest error %.3g of the sums' magnitude\n", worst);
  test_pack();
  test_refusals();
  return test_finish("test_kernel_conv_winograd");
}
