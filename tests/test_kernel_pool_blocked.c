/* pool_blocked (src/kernels/kernel_pool_blocked.c) for every kernel variant of this build and
 * CPU: random 2-D max and average pools (kernels 1 to 5, strides 1 to 3, dilations 1 and 2,
 * padding at either end, ceil mode, count_include_pad, 1 to 3 blocks of 16 channels, batch 1
 * and 2), with NaNs, infinities and signed zeros in the input (windows of NaNs only, of -inf
 * only), against max_pool and avg_pool over the same values in NCHW: every output bit for bit
 * (both are the per-element walk's values), but that a NaN matches any NaN (the sign of the
 * default NaN of inf + -inf depends on the instructions the compiler chose), written in the blocked layout and nowhere else
 * (tc_run's exact-size buffers under ASan). Then infer's refusals. Randomized; the seed is
 * printed, BERTH_TEST_SEED replays one. */
#include "test_rng.h"
#include "test_kernel_util.h"
#include "kernels/kernel_conv_blocked.h"
#include "kernels/kernel_isa.h"

#include "berth/kernels.h"

#include <math.h>
#include <stdio.h>

static float special(void) {
  switch (rnd() % 16) {
  case 0: return NAN;
  case 1: return -INFINITY;
  case 2: return INFINITY;
  case 3: return -0.0f;
  case 4: return 0.0f;
  default: return (float)(rnd() % 2001) / 100.0f - 10.0f;
  }
}

static void check_case(const char *vn) {
  const bool max = rnd() % 2 == 0;
  const int64_t n = rnd_in(1, 2), c = 16 * rnd_in(1, 3);
  int64_t k[2], s[2], d[2], pb[2], pe[2], in[2];
  for (int i = 0; i < 2; i++) {
    k[i] = rnd_in(1, 5);
    s[i] = rnd_in(1, 3);
    d[i] = rnd() % 4 == 0 ? 2 : 1;
    in[i] = rnd_in(1, 14);
    const int64_t win = d[i] * (k[i] - 1) + 1;
    pb[i] = rnd() % 3 == 0 ? rnd_in(0, (k[i] - 1) / 2 < 0 ? 0 : (k[i] - 1) / 2) : 0;
    pe[i] = rnd() % 3 == 0 ? rnd_in(0, (k[i] - 1) / 2 < 0 ? 0 : (k[i] - 1) / 2) : 0;
    if (in[i] + pb[i] + pe[i] < win) in[i] = win - pb[i] - pe[i];
  }
  const int64_t flags = (rnd() % 3 == 0 ? 1 : 0) | (!max && rnd() % 2 ? 2 : 0); /* ceil, count_include_pad */
  const int64_t hw = in[0] * in[1], nx = n * c * hw;
  float *x = malloc((size_t)nx * sizeof(float)), *xb = malloc((size_t)nx * sizeof(float));
  const int mode = (int)(rnd() % 4); /* 0: ordinary values; 1: specials; 2: all NaN; 3: all -inf */
  for (int64_t i = 0; i < nx; i++)
    x[i] = mode == 2 ? NAN : mode == 3 ? -INFINITY : mode == 1 ? special() : (float)(rnd() % 2001) / 100.0f - 10.0f;
  for (int64_t b = 0; b < n; b++)
    for (int64_t ch = 0; ch < c; ch++)
      for (int64_t p = 0; p < hw; p++) xb[((b * (c / 16) + ch / 16) * hw + p) * 16 + ch % 16] = x[(b * c + ch) * hw + p];
  const int64_t pads[4] = {pb[0], pb[1], pe[0], pe[1]};
  tcall_t pl = tc_op(max ? &berth_op_def_max_pool : &berth_op_def_avg_pool);
  tcall_t bl = tc_op(&berth_op_def_pool_blocked);
  tcall_t *cs[2] = {&pl, &bl};
  for (int j = 0; j < 2; j++) {
    tc_ints_arr(cs[j], "kernel_shape", k, 2);
    tc_ints_arr(cs[j], "strides", s, 2);
    tc_ints_arr(cs[j], "dilations", d, 2);
    tc_ints_arr(cs[j], "pads", pads, 4);
    tc_int(cs[j], "flags", flags);
  }
  tc_int(&bl, "kind", max ? 0 : 1);
  tc_arg(&pl, ty(BERTH_DTYPE_F32, 4, n, c, in[0], in[1]), x);
  tc_arg(&bl, ty(BERTH_DTYPE_F32, 5, n, c / 16, in[0], in[1], 16), xb);
  char msg[512];
  berth_diag_t dg = berth_diag_make(msg, sizeof msg);
  berth_type_t po;
  if (pl.def->infer(pl.attrs, pl.in, pl.n_in, &po, &dg) != BERTH_OK) { /* a window in the padding only */
    EXPECT_REJECT(&bl, "pool_blocked (as");
    goto done;
  }
  const int64_t oh = po.dims[2], ow = po.dims[3], ohw = oh * ow;
  float *want = tc_run(__LINE__, &pl, po);
  float *got = tc_run(__LINE__, &bl, ty(BERTH_DTYPE_F32, 5, n, c / 16, oh, ow, 16));
  if (want && got) {
    int64_t bad = -1;
    for (int64_t b = 0; b < n && bad < 0; b++)
      for (int64_t ch = 0; ch < c && bad < 0; ch++)
        for (int64_t p = 0; p < ohw; p++) {
          const float w = want[(b * c + ch) * ohw + p], g = got[((b * (c / 16) + ch / 16) * ohw + p) * 16 + ch % 16];
          /* any NaN for any NaN: inf + -inf gives the default NaN, whose sign is the
           * compiler's choice of instructions (Debug and Release builds differ) */
          if (memcmp(&w, &g, sizeof w) != 0 && !(w != w && g != g)) {
            bad = (b * c + ch) * ohw + p;
            CHECK_MSG(false,
                      "%s: %s %lldx%lld k %lldx%lld s %lldx%lld d %lldx%lld pads %lld,%lld,%lld,%lld flags %lld mode "
                      "%d: output %lld is %.9g, the plain op's %.9g (seed %llu)",
                      vn, max ? "max" : "avg", (long long)in[0], (long long)in[1], (long long)k[0], (long long)k[1],
                      (long long)s[0], (long long)s[1], (long long)d[0], (long long)d[1], (long long)pads[0],
                      (long long)pads[1], (long long)pads[2], (long long)pads[3], (long long)flags, mode,
                      (long long)bad, g, w, seed);
            break;
          }
        }
  }
  free(want);
  free(got);
done:
  free(x);
  free(xb);
}

static void test_refusals(void) {
  float d[1] = {0};
  tcall_t c = tc_op(&berth_op_def_pool_blocked);
  const int64_t k[2] = {3, 3};
  tc_ints_arr(&c, "kernel_shape", k, 2);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 1, 32, 8, 8), d);
  EXPECT_REJECT(&c, "expected f32 [N, C/16, H, W, 16]");
  c.in[0] = ty(BERTH_DTYPE_F32, 5, 1, 2, 8, 8, 8);
  EXPECT_REJECT(&c, "expected f32 [N, C/16, H, W, 16]");
  c.in[0] = ty(BERTH_DTYPE_F32, 5, 1, 2, 8, 8, 16);
  tc_int(&c, "kind", 2);
  EXPECT_REJECT(&c, "kind is 2, expected 0 (max) or 1 (average)");
  tc_int(&c, "kind", 0);
  const int64_t big[2] = {9, 3};
  tc_ints_arr(&c, "kernel_shape", big, 2);
  EXPECT_REJECT(&c, "pool_blocked (as max_pool)");
}

int main(void) {
  const char *env = getenv("BERTH_TEST_SEED");
  seed = env ? strtoull(env, NULL, 10) : 20261206ull;
  printf("test_kernel_pool_blocked: seed %llu\n", seed);
  int variants = 0;
  for (int i = BERTH_KERNELS_PORTABLE; i < BERTH_KERNELS_ISA_COUNT; i++) {
    const berth_kernel_isa_t *k = berth_kernel_isa_table((berth_kernels_isa_t)i);
    if (!k) continue;
    variants++;
    CHECK(k->pool_blocked_row_f32 != NULL);
    CHECK(berth_kernels_select((berth_kernels_isa_t)i) == BERTH_OK);
    rng_state = seed;
    for (int it = 0; it < 400; it++) check_case(berth_kernels_isa_name(k->id));
  }
  CHECK(variants >= 1);
  CHECK(berth_kernels_select(BERTH_KERNELS_AUTO) == BERTH_OK);
  test_refusals();
  return test_finish("test_kernel_pool_blocked");
}
