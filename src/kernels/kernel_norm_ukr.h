/* layer_norm and rms_norm of one row for a wide-vector kernel variant (kernel_isa.h's
 * layer_norm_row_f32, driven by kernel_norm.c), included by kernel_isa_simd.h after its vector
 * helpers (ISA_FN, VF, ISA_VW, ld, st):
 *
 *   isa_32_layer_norm_row_f32(x, sc, bi, y, n, eps, rms, &mean, &inv);
 *
 * kernel_norm.c's row with the variant's vectors: mean = (float)(sum x / n) (0 for rms_norm),
 * inv = (float)(1 / sqrtf((float)(sum (x - mean)^2 / n) + eps)), both sums in f64 with two
 * vectors of partial sums (the floats converted exactly, ISA_VB / 8 at a time; the squares may
 * be fused into the additions, which changes only f64 roundings); then
 * y = (x - mean) * inv * sc (+ bi) in f32, with the portable row's roundings: no fused
 * multiply-add there (the contraction the variant's file allows is switched off for that
 * loop), so y has the portable row's bits wherever mean and inv have them, which the f64
 * sums' order changes only when a sum lies within an f64 rounding of a point halfway between
 * two floats. tests/test_kernel_pool_norm.c checks the bits against the definition. */

typedef float ISA_FN(ln_vh) __attribute__((vector_size(ISA_VB / 2)));
typedef double ISA_FN(ln_vd) __attribute__((vector_size(ISA_VB)));

/* x[0 .. ISA_VW / 2) as f64 */
static inline ISA_FN(ln_vd) ISA_FN(ln_ld_half)(const float *x) {
#if ISA_X86 && ISA_VB == 32
  return (ISA_FN(ln_vd))_mm256_cvtps_pd(_mm_loadu_ps(x));
#elif ISA_X86 && ISA_VB == 64
  return (ISA_FN(ln_vd))_mm512_cvtps_pd(_mm256_loadu_ps(x));
#else
  ISA_FN(ln_vh) h;
  memcpy(&h, x, sizeof h);
  return __builtin_convertvector(h, ISA_FN(ln_vd));
#endif
}

/* sum of x (sq 0) or of (x - c)^2 (sq 1) over n floats, in f64 */
static inline double ISA_FN(ln_sum)(const float *x, int64_t n, int sq, double c) {
  const int64_t H = ISA_VW / 2;
  ISA_FN(ln_vd) a0 = {0}, a1 = {0};
  const ISA_FN(ln_vd) cv = (ISA_FN(ln_vd)){0} + c;
  int64_t i = 0;
  for (; i + 2 * H <= n; i += 2 * H) {
    ISA_FN(ln_vd) v0 = ISA_FN(ln_ld_half)(x + i), v1 = ISA_FN(ln_ld_half)(x + i + H);
    if (sq) {
      v0 -= cv, v1 -= cv;
      a0 += v0 * v0, a1 += v1 * v1;
    } else {
      a0 += v0, a1 += v1;
    }
  }
  a0 += a1;
  double s = 0;
  for (int l = 0; l < H; l++) s += a0[l];
  for (; i < n; i++) s += sq ? ((double)x[i] - c) * ((double)x[i] - c) : (double)x[i];
  return s;
}

/* y = (x - mean) * inv * sc (+ bi), each operation rounded (no contraction) */
#if defined(__clang__)
static void ISA_FN(ln_out)(const float *x, const float *sc, const float *bi, float *y, int64_t n, float mean,
                           float inv) {
#pragma clang fp contract(off)
#else
__attribute__((optimize("fp-contract=off"))) static void ISA_FN(ln_out)(const float *x, const float *sc,
                                                                       const float *bi, float *y, int64_t n,
                                                                       float mean, float inv) {
#endif
  int64_t i = 0;
  if (bi) {
    for (; i + ISA_VW <= n; i += ISA_VW)
      ISA_FN(st)(y + i, (ISA_FN(ld)(x + i) - mean) * inv * ISA_FN(ld)(sc + i) + ISA_FN(ld)(bi + i));
    for (; i < n; i++) y[i] = (x[i] - mean) * inv * sc[i] + bi[i];
  } else {
    for (; i + ISA_VW <= n; i += ISA_VW) ISA_FN(st)(y + i, (ISA_FN(ld)(x + i) - mean) * inv * ISA_FN(ld)(sc + i));
    for (; i < n; i++) y[i] = (x[i] - mean) * inv * sc[i];
  }
}

static void ISA_FN(layer_norm_row_f32)(const float *x, const float *sc, const float *bi, float *y, int64_t n,
                                       float eps, int rms, float *mean_out, float *inv_out) {
  const float mean = rms ? 0.0f : (float)(ISA_FN(ln_sum)(x, n, 0, 0) / (double)n);
  const double q = ISA_FN(ln_sum)(x, n, 1, (double)mean);
  const float inv = (float)(1.0 / __builtin_sqrtf((float)(q / (double)n) + eps));
  ISA_FN(ln_out)(x, sc, bi, y, n, mean, inv);
  *mean_out = mean;
  *inv_out = inv;
}
