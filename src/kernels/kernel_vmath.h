/* f32 exp, sigmoid, tanh, erf and elu written to vectorize: no branches, no calls, no
 * float-to-int conversions, so a loop `y[i] = berth_vm_exp_f32(x[i])` becomes SIMD code at
 * -O3 (kernel_isa_simd.h takes the shorter forms below for blocks whose inputs allow them;
 * SSE2 in the portable variant, AVX2+FMA and AVX-512 in kernel_isa_avx2.c / kernel_isa_avx512.c,
 * which include this header with fused multiply-adds allowed).
 *
 * Accuracy against the correctly rounded result (computed in double), in ulp of the result
 * (below FLT_MIN: of the subnormal grid). Bounds that tests/test_kernel_isa.c asserts for
 * every variant of the build over every 257th float in [-110, 110], and the maxima measured
 * over every 7th float there (3.2e8 points; BERTH_VMATH_STEP=7), the same in every variant:
 *   exp:     bound 2 ulp, measured 1
 *   sigmoid: bound 3 ulp, measured 2
 *   tanh:    bound 3 ulp, measured 2
 *   erf:     bound 2 ulp, measured 1 (FMA variants: AVX2, AVX-512, NEON; 1.07 ulp of real
 *            error at worst over every float, at x = 1.0717; the portable variant keeps
 *            the C library's erff, 0.8 ulp with glibc)
 * NaN in gives NaN out; exp saturates to +inf above 88.72 and to +0 below -103.98;
 * sigmoid and tanh reach exactly 0, 1 and +-1 where the rounded result does.
 *
 * Method (Cody and Waite; Cephes' expf polynomial): x = n ln2 + r with |r| <= ln2 / 2
 * (n by the 1.5 * 2^23 rounding trick, ln2 split in two so that n * ln2_hi is exact),
 * e^r by a degree-7 polynomial, then 2^n in two factors so that subnormal results are
 * rounded once. tanh|x| = -m / (2 + m) with m = expm1(-2|x|) (no cancellation near 0),
 * expm1 = 2^n (expm1(r) + 1) - 1 with a Taylor polynomial of degree 8 for expm1(r).
 * sigmoid: 1 / (1 + e) for x >= 0 and e / (1 + e) below, e = exp(-|x|).
 * For |x| <= 1, sigmoid(x) = 1/2 + x S(x^2) (S of degree 5) and tanh(x) = x + x T(x^2) (T of
 * degree 7) instead: no exp, no division; over every float there the largest errors are
 * 0.80 ulp (sigmoid) and 0.99 ulp (tanh) with fused multiply-adds, 1.07 and 1.11 without
 * (the portable variant), below the 2 ulp of the exp forms.
 * erf (odd, on t = |x|): t <= 1: x + x P(x^2), P of degree 7 (erf(x) / x - 1, no
 * cancellation in the sum); t > 1: 1 - e^q(t), q of degree 9 approximating ln erfc(t) on
 * [0.95, 4] (t clamped to 4, where erf rounds to 1). Both polynomials are Chebyshev
 * interpolants computed for berth (in long double, coefficients rounded to float), and
 * their errors above assume fused multiply-adds. NaN in gives NaN out, erf(+-inf) = +-1,
 * erf(-0) = -0. */
#ifndef BERTH_KERNELS_KERNEL_VMATH_H
#define BERTH_KERNELS_KERNEL_VMATH_H

#include <stdint.h>
#include <string.h>

static inline uint32_t berth_vm_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static inline float berth_vm_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* c ? a : b on the bits: GCC keeps a float ?: in these functions a branch (and the loops
 * that call them scalar, "control flow in loop"), a select on the bits vectorizes. */
static inline float berth_vm_sel(int c, float a, float b) {
  const uint32_t m = (uint32_t)0 - (uint32_t)(c != 0);
  return berth_vm_float((berth_vm_bits(a) & m) | (berth_vm_bits(b) & ~m));
}

/* the same for doubles */
static inline double berth_vm_sel_f64(int c, double a, double b) {
  uint64_t x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  const uint64_t m = (uint64_t)0 - (uint64_t)(c != 0), r = (x & m) | (y & ~m);
  memcpy(&a, &r, sizeof a);
  return a;
}

/* 2^k for -126 <= k <= 127 */
static inline float berth_vm_pow2i(int32_t k) { return berth_vm_float((uint32_t)(k + 127) << 23); }

/* x = n ln2 + r: returns n, writes r (x finite, |x| < 2^22) */
static inline int32_t berth_vm_reduce(float x, float *r) {
  const float shifter = 0x1.8p23f;
  float t = x * 0x1.715476p+0f + shifter; /* round(x / ln2) in the low mantissa bits */
  int32_t n = (int32_t)berth_vm_bits(t) - (int32_t)0x4B400000;
  float nf = t - shifter;
  *r = (x - nf * 0.693359375f) - nf * -2.12194440e-4f;
  return n;
}

/* e^r for |r| <= ln2 / 2 */
static inline float berth_vm_exp_poly_f32(float r) {
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  return p * (r * r) + r + 1.0f;
}

static inline float berth_vm_exp_f32(float x) {
  float xc = berth_vm_sel(x > -104.0f, x, -104.0f); /* NaN: -104 */
  xc = berth_vm_sel(xc > 89.0f, 89.0f, xc);
  float r;
  int32_t n = berth_vm_reduce(xc, &r);
  float p = berth_vm_exp_poly_f32(r);
  /* n in [-151, 129]: n1 = floor(n / 2) and n2 = n - n1 are normal exponents, p 2^n1 is exact */
  int32_t n1 = (int32_t)((uint32_t)(n + 256) >> 1) - 128, n2 = n - n1;
  float e = p * berth_vm_pow2i(n1) * berth_vm_pow2i(n2);
  return berth_vm_sel(x != x, x, e);
}

/* |x| at most 87 (as bits; NaN is above): e^x and e^-x are normal floats. For such x,
 * berth_vm_exp_normal_f32 and berth_vm_sigmoid_normal_f32 give the bits of berth_vm_exp_f32
 * and berth_vm_sigmoid_f32 with fewer operations (no clamps, no NaN, p 2^n exact: the
 * exponent added to p's bits), so a caller that sees a block of such inputs may take them. */
#define BERTH_VM_EXP_NORMAL_BITS 0x42AE0000u

static inline float berth_vm_exp_normal_f32(float x) {
  float r;
  int32_t n = berth_vm_reduce(x, &r);
  float p = berth_vm_exp_poly_f32(r);
  return berth_vm_float(berth_vm_bits(p) + ((uint32_t)n << 23));
}

/* expm1(y) for -20.5 <= y <= 0 */
static inline float berth_vm_expm1_neg_f32(float y) {
  float r;
  int32_t n = berth_vm_reduce(y, &r);
  float p = 1.0f / 40320.0f;
  p = p * r + 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * (r * r) + r; /* expm1(r) */
  float s = berth_vm_pow2i(n); /* n in [-30, 0] */
  return s * p + (s - 1.0f);
}

/* |x| at most 1 (as bits): sigmoid(x) = 1/2 + x S(x^2) and tanh(x) = x + x T(x^2), S of degree 5
 * and T of degree 7 (Chebyshev interpolants computed for berth, no division, no exp) */
#define BERTH_VM_ONE_BITS 0x3F800000u

static inline float berth_vm_sigmoid_small_f32(float x) {
  float s = x * x;
  float p = -1.614261237e-06f;
  p = p * s + 2.077521640e-05f;
  p = p * s - 2.105204039e-04f;
  p = p * s + 2.083265688e-03f;
  p = p * s - 2.083332837e-02f;
  p = p * s + 2.500000000e-01f;
  return x * p + 0.5f;
}

static inline float berth_vm_tanh_small_f32(float x) {
  float s = x * x;
  float p = -3.523280902e-04f;
  p = p * s + 2.278647618e-03f;
  p = p * s - 7.912484929e-03f;
  p = p * s + 2.146141045e-02f;
  p = p * s - 5.386970565e-02f;
  p = p * s + 1.333213896e-01f;
  p = p * s - 3.333327770e-01f;
  p = p * s - 4.357702199e-09f;
  return berth_vm_float(berth_vm_bits(p * x + x) | (berth_vm_bits(x) & 0x80000000u)); /* tanh(-0) = -0 */
}

static inline float berth_vm_tanh_f32(float x) {
  uint32_t b = berth_vm_bits(x);
  float a = berth_vm_float(b & 0x7FFFFFFFu);
  a = berth_vm_sel(a != a, 0.0f, a);
  a = berth_vm_sel(a > 10.0f, 10.0f, a); /* tanh(10) rounds to 1 */
  float m = berth_vm_expm1_neg_f32(-2.0f * a);
  float t = -m / (2.0f + m);
  float s = berth_vm_float((berth_vm_bits(t) & 0x7FFFFFFFu) | (b & 0x80000000u));
  s = berth_vm_sel((b & 0x7FFFFFFFu) <= BERTH_VM_ONE_BITS, berth_vm_tanh_small_f32(x), s);
  return berth_vm_sel(x != x, x, s);
}

static inline float berth_vm_sigmoid_normal_f32(float x) {
  uint32_t b = berth_vm_bits(x);
  float e = berth_vm_exp_normal_f32(-berth_vm_float(b & 0x7FFFFFFFu));
  float s = berth_vm_sel((b & 0x80000000u) != 0, e, 1.0f) / (1.0f + e);
  return berth_vm_sel((b & 0x7FFFFFFFu) <= BERTH_VM_ONE_BITS, berth_vm_sigmoid_small_f32(x), s);
}

static inline float berth_vm_sigmoid_f32(float x) {
  uint32_t b = berth_vm_bits(x);
  float e = berth_vm_exp_f32(-berth_vm_float(b & 0x7FFFFFFFu));
  float d = 1.0f + e;
  float s = berth_vm_sel((b & 0x80000000u) != 0, e, 1.0f) / d; /* one division */
  s = berth_vm_sel((b & 0x7FFFFFFFu) <= BERTH_VM_ONE_BITS, berth_vm_sigmoid_small_f32(x), s);
  return berth_vm_sel(x != x, x, s);
}

/* erf for |x| <= 1 */
static inline float berth_vm_erf_small_f32(float x) {
  float s = x * x;
  float p = -9.667044651e-06f;
  p = p * s + 1.126595889e-04f;
  p = p * s - 8.484080317e-04f;
  p = p * s + 5.221031606e-03f;
  p = p * s - 2.686543018e-02f;
  p = p * s + 1.128378212e-01f;
  p = p * s - 3.761263788e-01f;
  p = p * s + 1.283791661e-01f;
  return p * x + x;
}

/* The threshold of berth_vm_erf_small_f32, as bits of |x|: callers that see a block of
 * inputs all at or below it (and no NaN) may take the small form alone. */
#define BERTH_VM_ERF_SMALL_BITS 0x3F800000u

static inline float berth_vm_erf_f32(float x) {
  uint32_t b = berth_vm_bits(x);
  float t = berth_vm_float(b & 0x7FFFFFFFu);
  float tc = berth_vm_sel(t != t, 4.0f, t);
  tc = berth_vm_sel(tc > 4.0f, 4.0f, tc);
  float q = -6.123972440e-08f;
  q = q * tc + 2.980912086e-06f;
  q = q * tc - 5.883021367e-05f;
  q = q * tc + 6.656846963e-04f;
  q = q * tc - 4.991385620e-03f;
  q = q * tc + 2.692486532e-02f;
  q = q * tc - 1.107857153e-01f;
  q = q * tc - 6.312126517e-01f;
  q = q * tc - 1.130533338e+00f;
  q = q * tc + 3.829373454e-04f; /* ln erfc(t) */
  float big = 1.0f - berth_vm_exp_normal_f32(q); /* q in [-18, 0] (t <= 1 lanes: discarded) */
  big = berth_vm_float(berth_vm_bits(big) | (b & 0x80000000u));
  float r = berth_vm_sel(t <= 1.0f, berth_vm_erf_small_f32(x), big);
  return berth_vm_sel(x != x, x, r);
}

/* elu: x < 0 ? alpha (e^x - 1) : x, e^x - 1 by berth_vm_expm1_neg_f32 (below -20.5 it rounds
 * to -1); NaN in gives NaN out. */
static inline float berth_vm_elu_f32(float x, float alpha) {
  float xn = berth_vm_sel(x < 0.0f, x, 0.0f);
  xn = berth_vm_sel(xn < -20.5f, -20.5f, xn);
  return berth_vm_sel(x < 0.0f, alpha * berth_vm_expm1_neg_f32(xn), x);
}

/* ln(1 + t) for 0 <= t <= 1 (NaN: NaN), branch-free, without rounding 1 + t: ln(1 + t) =
 * 2 atanh(s) with s = t / (2 + t) for t <= sqrt2 - 1, else ln2 + 2 atanh(s) with
 * s = (t - 1) / (t + 3) (that is, m = (1 + t) / 2 in place of 1 + t); |s| <= 0.172 either way,
 * and 2 atanh(s) is its odd series to s^11 (the next term is below 2^-30 of the sum); ln2 in
 * two parts, so that the constant adds no rounding of its own. */
static inline float berth_vm_log1p_01_f32(float t) {
  const int big = t > 0.414213562f;
  const float s = berth_vm_sel(big, t - 1.0f, t) / berth_vm_sel(big, t + 3.0f, t + 2.0f), s2 = s * s;
  float p = 0.18181818f;
  p = p * s2 + 0.22222222f;
  p = p * s2 + 0.28571429f;
  p = p * s2 + 0.4f;
  p = p * s2 + 0.66666667f;
  const float at = 2.0f * s + s * (s2 * p);
  const float hi = berth_vm_sel(big, 0.693145752f, 0.0f), lo = berth_vm_sel(big, 1.42860677e-6f, 0.0f);
  return hi + (at + lo);
}

/* softplus: ln(1 + e^x) as max(x, 0) + ln(1 + e^-|x|) (no cancellation; 2.0 ulp, measured
 * by tests/test_kernel_math.c over [-80, 80]); NaN in gives NaN out, +-inf gives inf and 0. */
static inline float berth_vm_softplus_f32(float x) {
  const float nabs = berth_vm_float(berth_vm_bits(x) | 0x80000000u); /* -|x| */
  return berth_vm_sel(x > 0.0f, x, 0.0f) + berth_vm_log1p_01_f32(berth_vm_exp_f32(nabs));
}

/* Elementwise functions in blocks of 64: a block whose |x| are all at most a limit (as bits,
 * so NaN is above) takes a shorter form of the function, which gives those inputs the full
 * form's bits (above); no element's result depends on its neighbours. */
enum { BERTH_VM_BLOCK = 64 };
static inline uint32_t berth_vm_max_abs_bits(const float *x, int64_t m) {
  uint32_t top = 0;
  for (int64_t k = 0; k < m; k++) {
    const uint32_t a = berth_vm_bits(x[k]) & 0x7FFFFFFFu;
    top = a > top ? a : top;
  }
  return top;
}
/* SHORT1 where the block's |x| are at most LIM1, else SHORT2 where at most LIM2, else FULL */
#define BERTH_VM_BLOCKED(x, y, n, LIM1, SHORT1, LIM2, SHORT2, FULL)                           \
  for (int64_t i_ = 0; i_ < (n); i_ += BERTH_VM_BLOCK) {                                      \
    const int64_t m_ = (n) - i_ < BERTH_VM_BLOCK ? (n) - i_ : BERTH_VM_BLOCK;                   \
    const float *restrict xb_ = (x) + i_;                                                    \
    float *restrict yb_ = (y) + i_;                                                          \
    const uint32_t top_ = berth_vm_max_abs_bits(xb_, m_);                                     \
    if (top_ <= (LIM1))                                                                      \
      for (int64_t k_ = 0; k_ < m_; k_++) yb_[k_] = SHORT1(xb_[k_]);                        \
    else if (top_ <= (LIM2))                                                                 \
      for (int64_t k_ = 0; k_ < m_; k_++) yb_[k_] = SHORT2(xb_[k_]);                        \
    else                                                                                     \
      for (int64_t k_ = 0; k_ < m_; k_++) yb_[k_] = FULL(xb_[k_]);                          \
  }

#endif
