/* The f32 softmax and log_softmax kernels (kernel_softmax.c) against a double-precision
 * softmax, for every kernel variant of the build (their exp_f32 differ): along rows (the last
 * axis: the 64-element blocks and their tails, a classifier head of 1000) and down columns
 * (an inner axis: blocks of 64 columns and a tail, n = 1), legacy flattening, length-1 axes,
 * with the error bound kernel_softmax.c states checked element by element; then the special
 * values (NaN, +-inf, an all -inf run, huge and subnormal inputs, -0) and x and y in one array. */
#include "test_kernel_util.h"

#include "berth/kernels.h"
#include "kernels/kernel_isa.h"

#include <float.h>
#include <stdio.h>

#define F32 BERTH_DTYPE_F32

static const double U = 0x1p-24;

/* Runs softmax or log_softmax of x (type t, axis, legacy) into y; y == x runs it in place. */
static void sm_call(bool log_out, const berth_type_t *t, int64_t axis, int64_t legacy, const float *x, float *y) {
  const berth_op_def_t *def = log_out ? &berth_op_def_log_softmax : &berth_op_def_softmax;
  tcall_t c = tc_op(def);
  tc_int(&c, "axis", axis);
  tc_int(&c, "legacy", legacy);
  tc_arg(&c, *t, x);
  char msg[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out;
  CHECK_MSG(def->infer(c.attrs, c.in, 1, &out, &d) == BERTH_OK, "%s infer: %s", def->name, msg);
  berth_tensor_ref_t in = {&c.in[0], (void *)x}, o = {&out, y};
  berth_kernel_call_t call = {c.attrs, &in, 1, &o, 1, NULL, 0};
  def->run(&call);
}

/* The worst ratio of error to bound seen, over the whole run (printed: how tight the bound is). */
static double g_worst;

/* Checks y (softmax or log_softmax of x over runs of n elements `inner` apart, `outer` blocks)
 * against the double-precision definition with kernel_softmax.c's bound. */
static void sm_check(const char *what, bool log_out, const float *x, const float *y, int64_t outer, int64_t n,
                     int64_t inner) {
  int bad = 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      const float *xr = x + o * n * inner + j;
      const float *yr = y + o * n * inner + j;
      double mx = -INFINITY, sum = 0, spread = 0;
      for (int64_t i = 0; i < n; i++) mx = xr[i * inner] > mx ? xr[i * inner] : mx;
      for (int64_t i = 0; i < n; i++) sum += exp((double)xr[i * inner] - mx);
      for (int64_t i = 0; i < n; i++) {
        double t = (double)xr[i * inner] - mx;
        spread += exp(t) / sum * (4 + fabs(t));
      }
      for (int64_t i = 0; i < n; i++) {
        double t = (double)xr[i * inner] - mx, ref = log_out ? t - log(sum) : exp(t) / sum;
        double bound = log_out ? U * (4 + fabs(t) + fabs(log(sum)) + fabs(ref) + spread)
                               : U * (8 + fabs(t) + spread) * ref + 4 * 0x1p-149;
        double err = fabs((double)yr[i * inner] - ref);
        if (err / bound > g_worst) g_worst = err / bound;
        if (!(err <= bound) && bad++ < 5)
          CHECK_MSG(0, "%s: %s element %lld of run (%lld, %lld): got %.9g, want %.17g (error %.3g, bound %.3g)",
                    berth_kernels_isa_name(berth_kernels_active()), what, (long long)i, (long long)o, (long long)j,
                    (double)yr[i * inner], ref, err, bound);
      }
    }
}

static uint32_t g_seed = 12345;
static double rnd(void) { /* [0, 1) */
  g_seed = g_seed * 1664525u + 1013904223u;
  return (double)(g_seed >> 8) / (1 << 24);
}

/* softmax and log_softmax of one random tensor, values spread over +-scale, checked against
 * the double definition, and run in place with the same bits. */
static void sm_case(const char *what, berth_type_t t, int64_t axis, int64_t legacy, double scale) {
  int64_t numel = berth_type_numel(&t), outer = 1, n = 1, inner = 1;
  int32_t ax = (int32_t)(axis < 0 ? axis + t.rank : axis);
  for (int32_t k = 0; k < t.rank; k++) {
    if (k < ax) outer *= t.dims[k];
    else if (k == ax || legacy) n *= t.dims[k];
    else inner *= t.dims[k];
  }
  float *x = malloc((size_t)numel * sizeof *x), *y = malloc((size_t)numel * sizeof *y);
  float *z = malloc((size_t)numel * sizeof *z);
  for (int64_t i = 0; i < numel; i++) x[i] = (float)((rnd() * 2 - 1) * scale);
  for (int log_out = 0; log_out < 2; log_out++) {
    sm_call(log_out, &t, axis, legacy, x, y);
    sm_check(what, log_out, x, y, outer, n, inner);
    memcpy(z, x, (size_t)numel * sizeof *z);
    sm_call(log_out, &t, axis, legacy, z, z);
    CHECK_MSG(memcmp(y, z, (size_t)numel * sizeof *z) == 0, "%s: %s in place differs", what,
              log_out ? "log_softmax" : "softmax");
  }
  free(x), free(y), free(z);
}

static void test_accuracy(void) {
  sm_case("last axis [3, 197]", ty(F32, 2, 3, 197), -1, 0, 8);
  sm_case("last axis [2, 128] (two whole blocks)", ty(F32, 2, 2, 128), 1, 0, 20);
  sm_case("classifier head [1, 1000]", ty(F32, 2, 1, 1000), 1, 0, 15);
  sm_case("last axis [5, 7], wide spread", ty(F32, 2, 5, 7), -1, 0, 90);
  sm_case("axis 1 of [2, 8, 9, 11] (inner 99)", ty(F32, 4, 2, 8, 9, 11), 1, 0, 10);
  sm_case("axis 0 of [300, 3] (one column at a time)", ty(F32, 2, 300, 3), 0, 0, 30);
  sm_case("axis 0 of [70, 16] (the fewest columns in blocks)", ty(F32, 2, 70, 16), 0, 0, 30);
  sm_case("axis 1 of [1, 8, 5, 64]", ty(F32, 4, 1, 8, 5, 64), 1, 0, 5);
  sm_case("legacy axis 1 of [2, 3, 5]", ty(F32, 3, 2, 3, 5), 1, 1, 6);
  sm_case("length-1 last axis [6, 1]", ty(F32, 2, 6, 1), 1, 0, 100);
  sm_case("length-1 inner axis [2, 1, 70]", ty(F32, 3, 2, 1, 70), 1, 0, 100);
}

/* Outputs computed by hand: exact where the arithmetic is exact. */
static void sm_expect(int line, bool log_out, berth_type_t t, int64_t axis, const float *x, const float *want) {
  int64_t numel = berth_type_numel(&t);
  float y[4 * 17];
  sm_call(log_out, &t, axis, 0, x, y);
  for (int64_t i = 0; i < numel; i++) {
    bool same = isnan(want[i]) ? isnan(y[i]) : (y[i] == want[i] && signbit(y[i]) == signbit(want[i]));
    CHECK_MSG(same, "line %d (%s, %s): element %lld is %.9g, want %.9g", line,
              berth_kernels_isa_name(berth_kernels_active()), log_out ? "log_softmax" : "softmax", (long long)i,
              (double)y[i], (double)want[i]);
  }
}

static void test_special_values(void) {
  const float inf = INFINITY, nan = NAN, big = FLT_MAX, tiny = 0x1p-149f;
  /* runs of 4 along the last axis, and down axis 0 */
  static float rows[7][4];
  const float r[7][4] = {
      {1, nan, 3, 4},             /* a NaN: the whole run NaN */
      {-inf, -inf, -inf, -inf},   /* all -inf: NaN (-inf - -inf) */
      {1, inf, 2, 3},             /* +inf: NaN (inf - inf) */
      {big, -big, big, 0},        /* huge: x - max overflows to -inf, exp 0 */
      {tiny, -tiny, 0, -0.0f},    /* subnormal and signed zeros: all 1/4 */
      {-inf, 0, -inf, 0},         /* -inf next to finite values: exactly 0 */
      {1e30f, 1e30f, 1e30f, 1e30f}, /* equal huge values */
  };
  memcpy(rows, r, sizeof rows);
  const float sm[7][4] = {{nan, nan, nan, nan}, {nan, nan, nan, nan}, {nan, nan, nan, nan},
                          {0.5f, 0, 0.5f, 0},   {0.25f, 0.25f, 0.25f, 0.25f}, {0, 0.5f, 0, 0.5f},
                          {0.25f, 0.25f, 0.25f, 0.25f}};
  const float ls[7][4] = {{nan, nan, nan, nan}, {nan, nan, nan, nan}, {nan, nan, nan, nan},
                          {-0x1.62e430p-1f, -inf, -0x1.62e430p-1f, -FLT_MAX},
                          {-0x1.62e430p+0f, -0x1.62e430p+0f, -0x1.62e430p+0f, -0x1.62e430p+0f},
                          {-inf, -0x1.62e430p-1f, -inf, -0x1.62e430p-1f},
                          {-0x1.62e430p+0f, -0x1.62e430p+0f, -0x1.62e430p+0f, -0x1.62e430p+0f}};
  for (int k = 0; k < 7; k++)
    for (int log_out = 0; log_out < 2; log_out++) {
      const float *want = log_out ? ls[k] : sm[k];
      sm_expect(__LINE__, log_out, ty(F32, 2, 1, 4), -1, rows[k], want);
      /* the run as each column of [4, 2] (one column at a time) and of [4, 17] (blocks of columns) */
      float xc[4 * 17], wc[4 * 17];
      for (int i = 0; i < 8; i++) xc[i] = rows[k][i / 2], wc[i] = want[i / 2];
      sm_expect(__LINE__, log_out, ty(F32, 2, 4, 2), 0, xc, wc);
      for (int i = 0; i < 4 * 17; i++) xc[i] = rows[k][i / 17], wc[i] = want[i / 17];
      sm_expect(__LINE__, log_out, ty(F32, 2, 4, 17), 0, xc, wc);
    }
  /* length-1 axis: 1 (log: 0) for finite values, NaN for NaN and +-inf */
  const float one_x[4] = {-big, 0, nan, inf}, one_sm[4] = {1, 1, nan, nan}, one_ls[4] = {0, 0, nan, nan};
  sm_expect(__LINE__, false, ty(F32, 2, 4, 1), 1, one_x, one_sm);
  sm_expect(__LINE__, true, ty(F32, 2, 4, 1), 1, one_x, one_ls);
  sm_expect(__LINE__, false, ty(F32, 2, 1, 4), 0, one_x, one_sm);
  sm_expect(__LINE__, true, ty(F32, 2, 1, 4), 0, one_x, one_ls);
}

/* The exponentials have exp_f32's bits: in a run {0, t} with t <= -18, e^t is below 2^-25, so
 * the sum 1 + e^t has the reciprocal 1 in f32 and softmax's second output is e^t itself
 * (subnormal below t = -87.3). */
static void test_exp_bits(void) {
  const berth_kernel_isa_t *k = berth_kernel_isa();
  int bad = 0;
  for (int i = 0; i < 4000; i++) {
    float x[2] = {0, -18.0f - 86.0f * (float)i / 4000.0f - (float)(rnd() * 0.02)}, y[2], e;
    berth_type_t t = ty(F32, 2, 1, 2);
    sm_call(false, &t, -1, 0, x, y);
    k->exp_f32(&x[1], &e, 1);
    if (memcmp(&y[1], &e, sizeof e) != 0 && bad++ < 5)
      CHECK_MSG(0, "%s: softmax's e^%.9g is %a, exp_f32 gives %a", berth_kernels_isa_name(k->id), (double)x[1],
                (double)y[1], (double)e);
  }
  CHECK(bad == 0);
}

int main(void) {
  for (int v = BERTH_KERNELS_PORTABLE; v < BERTH_KERNELS_ISA_COUNT; v++) {
    if (!berth_kernels_available((berth_kernels_isa_t)v)) continue;
    CHECK(berth_kernels_select((berth_kernels_isa_t)v) == BERTH_OK);
    g_worst = 0;
    test_accuracy();
    test_special_values();
    test_exp_bits();
    fprintf(stderr, "  %s: worst error / bound %.3f\n", berth_kernels_isa_name((berth_kernels_isa_t)v), g_worst);
  }
  CHECK(berth_kernels_select(BERTH_KERNELS_AUTO) == BERTH_OK);
  return test_finish("test_kernel_softmax");
}
