/* LayerNormalization's and RMSNormalization's f32 rows (kernel_norm.c, and the kernel
 * variants' layer_norm_row_f32, kernel_norm_ukr.h), for every kernel variant of the build:
 * the bits of the definition with sequential f64 sums (the mean and the variance summed in
 * f64 in another order round to the same floats on these rows), across magnitudes, a large
 * offset, odd widths (the vector tails) and both bias forms, Mean and InvStdDev included; a
 * NaN or an infinity makes its row NaN. Runtime only (also cross-built for NEON, tests/neon). */
#include "test_kernel_util.h"

#include "berth/kernels.h"

#include <stdio.h>

#define F32 BERTH_DTYPE_F32

enum { R = 5, MAXC = 771 };

/* Runs layer_norm (rms 0) or rms_norm over rows of c floats; y, mean and inv must equal want
 * (NaN equal to NaN). */
static void ln_expect(int line, bool rms, int rows, int c, const float *x, const float *sc, const float *bi,
                      const float *want, const float *wm, const float *wi) {
  const berth_op_def_t *def = rms ? &berth_op_def_rms_norm : &berth_op_def_layer_norm;
  tcall_t call = tc_op(def);
  tc_arg(&call, ty(F32, 2, rows, c), x);
  tc_arg(&call, ty(F32, 1, c), sc);
  if (bi) tc_arg(&call, ty(F32, 1, c), bi);
  char msg[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out[3];
  CHECK_MSG(def->infer(call.attrs, call.in, call.n_in, out, &d) == BERTH_OK, "line %d: infer: %s", line, msg);
  static float y[R * MAXC], m[R], v[R];
  berth_tensor_ref_t in[3], o[3] = {{&out[0], y}, {&out[1], m}, {&out[2], v}};
  for (int i = 0; i < call.n_in; i++) in[i] = (berth_tensor_ref_t){&call.in[i], (void *)call.data[i]};
  berth_kernel_call_t kc = {call.attrs, in, call.n_in, o, rms ? 1 : 3, NULL, 0};
  def->run(&kc);
  int64_t bad = -1;
  const char *isa = berth_kernels_isa_name(berth_kernels_active());
  CHECK_MSG(tc_values_equal(F32, (int64_t)rows * c, y, want, 0, &bad), "line %d (%s, %d x %d): y[%lld] is %a, want %a",
            line, isa, rows, c, (long long)bad, bad >= 0 ? (double)y[bad] : 0.0, bad >= 0 ? (double)want[bad] : 0.0);
  if (!rms) {
    CHECK_MSG(tc_values_equal(F32, rows, m, wm, 0, &bad), "line %d (%s): mean[%lld] differs", line, isa, (long long)bad);
    CHECK_MSG(tc_values_equal(F32, rows, v, wi, 0, &bad), "line %d (%s): inv_std_dev[%lld] differs", line, isa,
              (long long)bad);
  }
}

static void test_rows(void) {
  static const int widths[5] = {768, 13, 1, 771, 8};
  static float x[R * MAXC], sc[MAXC], bi[MAXC], want[R * MAXC], wm[R], wi[R];
  uint32_t seed = 7;
  for (int wk = 0; wk < 5; wk++) {
    const int C = widths[wk];
    for (int i = 0; i < R * C; i++) {
      seed = seed * 1664525u + 1013904223u;
      double u = (double)(seed >> 8) / (1 << 24) - 0.5;
      int r = i / C;
      x[i] = (float)(r == 0 ? u : r == 1 ? 1e4 + u : r == 2 ? u * 1e-30 : r == 3 ? u * 3e3 : 7 + u * (i % 3));
    }
    for (int i = 0; i < C; i++) sc[i] = 1.0f + 0.01f * (float)(i % 7), bi[i] = 0.5f - 0.001f * (float)i;
    for (int rms = 0; rms < 2; rms++)
      for (int with_bias = 0; with_bias < 2 - rms; with_bias++) {
        for (int r = 0; r < R; r++) {
          const float *xr = x + r * C;
          double sum = 0, sq = 0;
          for (int i = 0; i < C; i++) sum += xr[i];
          const float mean = rms ? 0.0f : (float)(sum / C);
          for (int i = 0; i < C; i++) sq += ((double)xr[i] - mean) * ((double)xr[i] - mean);
          const float inv = (float)(1.0 / sqrtf((float)(sq / C) + 1e-5f));
          for (int i = 0; i < C; i++)
            want[r * C + i] = with_bias ? (xr[i] - mean) * inv * sc[i] + bi[i] : (xr[i] - mean) * inv * sc[i];
          wm[r] = mean, wi[r] = inv;
        }
        ln_expect(__LINE__, rms, R, C, x, sc, with_bias ? bi : NULL, want, wm, wi);
      }
  }
}

static void test_special(void) {
  const float inf = INFINITY, nan = NAN;
  static const float one[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  float x[27] = {1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0};
  x[8] = nan, x[17] = inf, x[26] = -inf;
  float y[27];
  for (int i = 0; i < 27; i++) y[i] = nan;
  ln_expect(__LINE__, false, 3, 9, x, one, NULL, y, (float[]){nan, inf, -inf}, (float[]){nan, nan, nan});
}

int main(void) {
  for (int v = BERTH_KERNELS_PORTABLE; v < BERTH_KERNELS_ISA_COUNT; v++) {
    if (!berth_kernels_available((berth_kernels_isa_t)v)) continue;
    CHECK(berth_kernels_select((berth_kernels_isa_t)v) == BERTH_OK);
    test_rows();
    test_special();
    fprintf(stderr, "  %s: checked\n", berth_kernels_isa_name((berth_kernels_isa_t)v));
  }
  CHECK(berth_kernels_select(BERTH_KERNELS_AUTO) == BERTH_OK);
  return test_finish("test_kernel_norm_ukr");
}
