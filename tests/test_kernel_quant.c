/* The quant family's kernels on hand-computed cases the ONNX suite does not reach:
 * quantize_linear's ties to even, saturation, NaN, narrow ranges, float16 precision,
 * per-axis and blocked scales with a short last block; dequantize_linear on int32 extremes
 * and blocks; dft's zero padding, truncation, inverse and irfft round trips, an empty
 * signal; stft frames; and the rejections infer makes. */
#include "test_kernel_util.h"

#include "kernels/kernel_narrow.h"

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64
#define I8 BERTH_DTYPE_I8
#define U8 BERTH_DTYPE_U8
#define I16 BERTH_DTYPE_I16
#define I32 BERTH_DTYPE_I32

static tcall_t quant(berth_dtype_t dt, int64_t lo, int64_t hi) {
  tcall_t c = tc_op(&berth_op_def_quantize_linear);
  tc_dtype(&c, "dtype", dt);
  tc_int(&c, "qmin", lo);
  tc_int(&c, "qmax", hi);
  return c;
}

static void test_quantize(void) {
  /* ties to even, saturation both ways, NaN to the zero point */
  tcall_t c = quant(I8, -128, 127);
  tc_arg(&c, ty(F32, 1, 8), (float[]){0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 300, -300, NAN});
  tc_arg(&c, ty(F32, 0), (float[]){1});
  tc_arg(&c, ty(I8, 0), (int8_t[]){3});
  EXPECT(&c, ty(I8, 1, 8), ((int8_t[]){3, 5, 5, 3, 1, 127, -128, 3}));
  /* int4 held in i8: clamped to -8..7 */
  c = quant(I8, -8, 7);
  tc_arg(&c, ty(F32, 1, 3), (float[]){100, -100, 6.6f});
  tc_arg(&c, ty(F32, 0), (float[]){1});
  EXPECT(&c, ty(I8, 1, 3), ((int8_t[]){7, -8, 7}));
  /* per axis: x [2,3], axis 1 */
  c = quant(U8, 0, 255);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){4, 4, 4, 8, 8, 8});
  tc_arg(&c, ty(F32, 1, 3), (float[]){1, 2, 4});
  tc_arg(&c, ty(U8, 1, 3), (uint8_t[]){0, 1, 2});
  EXPECT(&c, ty(U8, 2, 2, 3), ((uint8_t[]){4, 3, 3, 8, 5, 4}));
  /* per axis on axis 0 (negative) */
  c = quant(U8, 0, 255);
  tc_int(&c, "axis", -2);
  tc_arg(&c, ty(F32, 2, 2, 2), (float[]){4, 4, 8, 8});
  tc_arg(&c, ty(F32, 1, 2), (float[]){1, 2});
  EXPECT(&c, ty(U8, 2, 2, 2), ((uint8_t[]){4, 4, 4, 4}));
  /* blocked, block 2 over a dim of 5: the last block is short */
  c = quant(I16, -32768, 32767);
  tc_int(&c, "block_size", 2);
  tc_arg(&c, ty(F32, 2, 2, 5), (float[]){8, 8, 8, 8, 8, 16, 16, 16, 16, 16});
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){1, 2, 4, 2, 4, 8});
  EXPECT(&c, ty(I16, 2, 2, 5), ((int16_t[]){8, 8, 4, 4, 2, 8, 8, 4, 4, 2}));
  /* a division in float16 precision: 2049.25 is 2050 in float16, so it rounds to 2050 */
  c = quant(I16, -32768, 32767);
  tc_int(&c, "round_format", BERTH_NARROW_F16);
  tc_arg(&c, ty(F32, 1, 1), (float[]){2049.25f});
  tc_arg(&c, ty(F32, 0), (float[]){1});
  EXPECT(&c, ty(I16, 1, 1), ((int16_t[]){2050}));
  c = quant(I16, -32768, 32767);
  tc_arg(&c, ty(F32, 1, 1), (float[]){2049.25f});
  tc_arg(&c, ty(F32, 0), (float[]){1});
  EXPECT(&c, ty(I16, 1, 1), ((int16_t[]){2049}));
  /* f32 output (float8 / float4 before their narrow_cast): q + zp */
  c = quant(F32, 0, 0);
  tc_arg(&c, ty(F64, 1, 2), (double[]){3, 5});
  tc_arg(&c, ty(F64, 0), (double[]){2});
  tc_arg(&c, ty(F32, 0), (float[]){1});
  EXPECT(&c, ty(F32, 1, 2), ((float[]){2.5f, 3.5f}));
  /* rejections */
  c = quant(U8, 0, 255);
  tc_arg(&c, ty(F32, 2, 2, 3), NULL);
  tc_arg(&c, ty(F32, 1, 2), NULL);
  EXPECT_REJECT(&c, "neither one value nor 1-D of x's dim 1 (3)");
  c = quant(U8, 0, 255);
  tc_int(&c, "block_size", 2);
  tc_arg(&c, ty(F32, 2, 2, 5), NULL);
  tc_arg(&c, ty(F32, 2, 2, 2), NULL);
  EXPECT_REJECT(&c, "ceil(5 / 2) = 3 at that axis");
  c = quant(U8, 0, 255);
  tc_arg(&c, ty(F32, 1, 3), NULL);
  tc_arg(&c, ty(F32, 1, 3), NULL);
  tc_arg(&c, ty(U8, 1, 2), NULL);
  EXPECT_REJECT(&c, "does not have the scale's shape");
  c = quant(U8, -1, 255);
  tc_arg(&c, ty(F32, 1, 3), NULL);
  tc_arg(&c, ty(F32, 0), NULL);
  EXPECT_REJECT(&c, "range [-1, 255] is not within u8");
  c = quant(U8, 0, 255);
  tc_int(&c, "round_format", 3);
  tc_arg(&c, ty(F32, 1, 3), NULL);
  tc_arg(&c, ty(F32, 0), NULL);
  EXPECT_REJECT(&c, "round_format 3");
  c = quant(U8, 0, 255);
  tc_arg(&c, ty(F32, 1, 3), NULL);
  tc_arg(&c, ty(F64, 0), NULL);
  EXPECT_REJECT(&c, "expected f32 like operand 0");
}

static void test_dequantize(void) {
  tcall_t c = tc_op(&berth_op_def_dequantize_linear);
  tc_dtype(&c, "dtype", F64);
  tc_arg(&c, ty(I32, 1, 2), (int32_t[]){2147483647, -2147483647 - 1});
  tc_arg(&c, ty(F32, 0), (float[]){0.5f});
  tc_arg(&c, ty(I32, 0), (int32_t[]){-2147483647 - 1});
  EXPECT(&c, ty(F64, 1, 2), ((double[]){2147483647.5, 0}));
  /* blocked along axis 0 with a short last block */
  c = tc_op(&berth_op_def_dequantize_linear);
  tc_dtype(&c, "dtype", F32);
  tc_int(&c, "axis", 0);
  tc_int(&c, "block_size", 2);
  tc_arg(&c, ty(U8, 2, 3, 2), (uint8_t[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(F32, 2, 2, 2), (float[]){1, 10, 100, 1000});
  tc_arg(&c, ty(U8, 2, 2, 2), (uint8_t[]){1, 0, 0, 1});
  EXPECT(&c, ty(F32, 2, 3, 2), ((float[]){0, 20, 2, 40, 500, 5000}));
  c = tc_op(&berth_op_def_dequantize_linear);
  tc_dtype(&c, "dtype", I8);
  tc_arg(&c, ty(U8, 1, 2), NULL);
  tc_arg(&c, ty(F32, 0), NULL);
  EXPECT_REJECT(&c, "dtype i8, expected f32 or f64");
  c = tc_op(&berth_op_def_dequantize_linear);
  tc_dtype(&c, "dtype", F32);
  tc_arg(&c, ty(U8, 1, 2), NULL);
  tc_arg(&c, ty(F32, 0), NULL);
  tc_arg(&c, ty(I8, 0), NULL);
  EXPECT_REJECT(&c, "expected u8 like operand 0");
}

static tcall_t dft(int64_t axis, int64_t len, int inverse, int onesided) {
  tcall_t c = tc_op(&berth_op_def_dft);
  tc_int(&c, "axis", axis);
  tc_int(&c, "length", len);
  tc_int(&c, "inverse", inverse);
  tc_int(&c, "onesided", onesided);
  return c;
}

static void test_dft(void) {
  const double tol = 1e-12;
  /* an impulse, zero-padded from 2 to 4 samples: every bin is 1 */
  tcall_t c = dft(1, 4, 0, 0);
  tc_arg(&c, ty(F64, 3, 1, 2, 1), (double[]){1, 0});
  EXPECT_TOL(&c, ty(F64, 3, 1, 4, 2), ((double[]){1, 0, 1, 0, 1, 0, 1, 0}), tol);
  /* truncated to 2 of 4 samples; onesided keeps bins 0..1 */
  c = dft(1, 2, 0, 1);
  tc_arg(&c, ty(F64, 3, 1, 4, 1), (double[]){1, 2, 100, 100});
  EXPECT_TOL(&c, ty(F64, 3, 1, 2, 2), ((double[]){3, 0, -1, 0}), tol);
  /* complex [0, i, 0, 0] forward: X[k] = i e^{-i pi k / 2} = (0,1), (1,0), (0,-1), (-1,0) */
  c = dft(0, 4, 0, 0);
  tc_arg(&c, ty(F64, 2, 4, 2), (double[]){0, 0, 0, 1, 0, 0, 0, 0});
  EXPECT_TOL(&c, ty(F64, 2, 4, 2), ((double[]){0, 1, 1, 0, 0, -1, -1, 0}), tol);
  /* and back */
  c = dft(0, 4, 1, 0);
  tc_arg(&c, ty(F64, 2, 4, 2), (double[]){0, 1, 1, 0, 0, -1, -1, 0});
  EXPECT_TOL(&c, ty(F64, 2, 4, 2), ((double[]){0, 0, 0, 1, 0, 0, 0, 0}), tol);
  /* irfft of the one-sided spectrum of [1, 2, 3, 4] ([10, -2+2i, -2]; the imaginary parts of
   * bins 0 and 2 are ignored) */
  c = dft(0, 4, 1, 1);
  tc_arg(&c, ty(F64, 2, 3, 2), (double[]){10, 7, -2, 2, -2, 9});
  EXPECT_TOL(&c, ty(F64, 2, 4, 1), ((double[]){1, 2, 3, 4}), tol);
  /* odd length 3: irfft of [6, -1.5+0.866i] is [1, 2, 3] */
  c = dft(0, 3, 1, 1);
  tc_arg(&c, ty(F64, 2, 2, 2), (double[]){6, 0, -1.5, 0.8660254037844386});
  EXPECT_TOL(&c, ty(F64, 2, 3, 1), ((double[]){1, 2, 3}), 1e-9);
  /* an empty signal transforms to zeros */
  c = dft(0, 3, 0, 0);
  tc_arg(&c, ty(F32, 2, 0, 1), NULL);
  EXPECT(&c, ty(F32, 2, 3, 2), ((float[]){0, 0, 0, 0, 0, 0}));
  c = dft(1, 4, 0, 0);
  tc_arg(&c, ty(F32, 2, 4, 3), NULL);
  EXPECT_REJECT(&c, "last dim of 1 or 2");
  c = dft(1, 4, 0, 0);
  tc_arg(&c, ty(F32, 2, 4, 2), NULL);
  EXPECT_REJECT(&c, "axis 1, expected 0..0");
}


/* The mixed-radix FFT (lengths of factors 2, 3, 4, 5 up to 32, complex f32 or f64 signals)
 * against a direct transform in long double, forward and inverse; lengths 8, 7, 60 and 256
 * take the direct path. */
static void test_fft_lengths(void) {
  static const int lens[] = {2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 8, 7, 60, 256};
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
    for (int inv = 0; inv < 2; inv++)
      for (int f64 = 0; f64 < 2; f64++) {
        int n = lens[li];
        double *x = malloc(sizeof(double) * 2 * (size_t)n), *want = malloc(sizeof(double) * 2 * (size_t)n);
        float *xf = malloc(sizeof(float) * 2 * (size_t)n), *wantf = malloc(sizeof(float) * 2 * (size_t)n);
        for (int i = 0; i < 2 * n; i++) {
          xf[i] = (float)((i * 37 % 101) - 50) / 16.0f;
          x[i] = xf[i];
        }
        for (int k = 0; k < n; k++) {
          long double re = 0, im = 0;
          for (int j = 0; j < n; j++) {
            long double a = 2.0L * 3.141592653589793238462643383279502884L * (long double)((long long)k * j % n) / n;
            long double c = cosl(a), s = (inv ? 1 : -1) * sinl(a);
            re += x[2 * j] * c - x[2 * j + 1] * s;
            im += x[2 * j] * s + x[2 * j + 1] * c;
          }
          want[2 * k] = (double)(inv ? re / n : re);
          want[2 * k + 1] = (double)(inv ? im / n : im);
          wantf[2 * k] = (float)want[2 * k];
          wantf[2 * k + 1] = (float)want[2 * k + 1];
        }
        tcall_t c = dft(0, n, inv, 0);
        tc_arg(&c, ty(f64 ? F64 : F32, 2, n, 2), f64 ? (const void *)x : (const void *)xf);
        if (f64) EXPECT_TOL(&c, ty(F64, 2, n, 2), want, 1e-9);
        else EXPECT_TOL(&c, ty(F32, 2, n, 2), wantf, 1e-3);
        free(x);
        free(want);
        free(xf);
        free(wantf);
      }
}

static void test_stft(void) {
  /* 5 samples, frames of 2 every 2 samples: 2 frames; window [1, -1]; onesided: bins 0, 1 */
  tcall_t c = tc_op(&berth_op_def_stft);
  tc_int(&c, "step", 2);
  tc_int(&c, "length", 2);
  tc_arg(&c, ty(F64, 3, 1, 5, 1), (double[]){1, 2, 3, 5, 100});
  tc_arg(&c, ty(F64, 1, 2), (double[]){1, -1});
  EXPECT_TOL(&c, ty(F64, 4, 1, 2, 2, 2), ((double[]){-1, 0, 3, 0, -2, 0, 8, 0}), 1e-12);
  c = tc_op(&berth_op_def_stft);
  tc_int(&c, "step", 1);
  tc_int(&c, "length", 3);
  tc_arg(&c, ty(F64, 3, 1, 5, 1), NULL);
  tc_arg(&c, ty(F64, 1, 2), NULL);
  EXPECT_REJECT(&c, "expected 1-D of the frame length 3");
  c = tc_op(&berth_op_def_stft);
  tc_int(&c, "step", 1);
  tc_int(&c, "length", 6);
  tc_arg(&c, ty(F64, 3, 1, 5, 1), NULL);
  EXPECT_REJECT(&c, "1 <= length <= 5 samples");
}

int main(void) {
  test_quantize();
  test_dequantize();
  test_dft();
  test_fft_lengths();
  test_stft();
  return test_finish("test_kernel_quant");
}
