/* softmax and log_softmax of one contiguous run for a wide-vector kernel variant (kernel_isa.h's
 * softmax_row_f32, driven by kernel_softmax.c), included by kernel_isa_simd.h after its vector
 * helpers (ISA_FN, VF, ISA_VW, ld, ld_part, st):
 *
 *   isa_32_softmax_row_f32(x, y, n, log_out);
 *
 * kernel_softmax.c's portable row with the variant's vectors in every pass: the maximum mx;
 * then t = x - mx, e^t and the sum of the e^t in f64 in one pass (y holds e^t for softmax;
 * log_softmax only sums); then y = e^t * (float)(1 / sum), or y = (x - mx) - (float)log(sum).
 * The exponential skips what softmax's arguments never need: t is at most 0, so there is no
 * overflow to saturate and no NaN to pass around a select; a NaN in the run, or an infinite
 * mx, makes some t NaN, and the NaN flows through the arithmetic into the sum and from there
 * into every output (the lower clamp keeps it: max(-104, NaN) is NaN here). For t in [-inf, 0]
 * each e^t has the bits of kernel_vmath.h's berth_vm_exp_f32(t), which the variant's exp_f32
 * gives (the same reduction and polynomial; 2^n as 2^(n + 64) * 2^-64 instead of
 * 2^(n/2) * 2^(n - n/2): both products round once, so the same float). The sum: four vectors
 * of exponentials at a time added in f32 as (e0 + e1) + (e2 + e3) (a relative error of at most
 * 2^-23 on each such group), converted to f64 and added into two vectors of partial sums, then
 * their lanes in order: within 2^-23 (plus f64 rounding) of the exact sum of the
 * exponentials, where the portable row's is within f64 rounding. (Measured on AVX2, 100 rows
 * of 197: f64 partial sums for every vector of exponentials ran out of the 16 registers and
 * took 18.4 us, adding pairs in f32 16.9, groups of four 14.0.) */

typedef int32_t ISA_FN(vi) __attribute__((vector_size(ISA_VB)));
typedef double ISA_FN(vd) __attribute__((vector_size(ISA_VB)));
typedef float ISA_FN(vh) __attribute__((vector_size(ISA_VB / 2)));

/* max(lo, t) lane by lane, NaN in t kept */
static inline VF ISA_FN(sm_clamp)(VF t, VF lo) {
#if ISA_X86 && ISA_VB == 64
  return (VF)_mm512_max_ps((__m512)lo, (__m512)t); /* the second operand where either is NaN */
#elif ISA_X86 && ISA_VB == 32
  return (VF)_mm256_max_ps((__m256)lo, (__m256)t);
#else
  ISA_FN(vi) c = t < lo; /* false for NaN */
  return (VF)((c & (ISA_FN(vi))lo) | (~c & (ISA_FN(vi))t));
#endif
}

/* e^t for t <= 0 or NaN (berth_vm_exp_f32's method, kernel_vmath.h) */
static inline VF ISA_FN(sm_exp)(VF t) {
  const VF zero = {0};
  t = ISA_FN(sm_clamp)(t, zero - 104.0f);
  VF s = t * 0x1.715476p+0f + 0x1.8p23f; /* round(t / ln2) in the low mantissa bits */
  ISA_FN(vi) n = (ISA_FN(vi))s - 0x4B400000;
  VF nf = s - 0x1.8p23f;
  VF r = (t - nf * 0.693359375f) - nf * -2.12194440e-4f;
  VF p = zero + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  /* n in [-151, 0]: p * 2^(n + 64) is exact (a normal float), * 2^-64 rounds once */
  VF scale = (VF)((n + (64 + 127)) << 23);
  return p * scale * 0x1p-64f;
}

/* e's lanes added to lo (the first half) and hi, in f64 */
static inline void ISA_FN(sm_acc)(VF e, ISA_FN(vd) *lo, ISA_FN(vd) *hi) {
#if ISA_X86 && ISA_VB == 32
  __m256 v = (__m256)e;
  *lo += (ISA_FN(vd))_mm256_cvtps_pd(_mm256_castps256_ps128(v));
  *hi += (ISA_FN(vd))_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
#elif ISA_X86 && ISA_VB == 64
  __m512 v = (__m512)e;
  *lo += (ISA_FN(vd))_mm512_cvtps_pd(_mm512_castps512_ps256(v));
  *hi += (ISA_FN(vd))_mm512_cvtps_pd((__m256)_mm512_extractf64x4_pd((__m512d)v, 1));
#else
  ISA_FN(vh) h[2];
  memcpy(h, &e, sizeof e);
  *lo += __builtin_convertvector(h[0], ISA_FN(vd));
  *hi += __builtin_convertvector(h[1], ISA_FN(vd));
#endif
}

static const int32_t ISA_FN(sm_iota)[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* lanes l < k: all ones, the others zero */
static inline ISA_FN(vi) ISA_FN(sm_first)(int64_t k) {
  ISA_FN(vi) lane;
  memcpy(&lane, ISA_FN(sm_iota), sizeof lane);
  return lane < (int32_t)k;
}

/* The largest of n floats (n >= 1), a NaN taken or not (the run comes out NaN either way):
 * vectors, the last one with -inf past the run, then the lanes (maxss, no branches) */
static float ISA_FN(sm_max)(const float *x, int64_t n) {
  const VF ninf = (VF){0} - __builtin_inff();
  VF m0 = ninf, m1 = ninf;
  int64_t i = 0;
  for (; i + 2 * ISA_VW <= n; i += 2 * ISA_VW) {
    m0 = ISA_FN(sm_clamp)(ISA_FN(ld)(x + i), m0);
    m1 = ISA_FN(sm_clamp)(ISA_FN(ld)(x + i + ISA_VW), m1);
  }
  for (; i < n; i += ISA_VW) {
    const int64_t k = n - i < ISA_VW ? n - i : ISA_VW;
    ISA_FN(vi) in = ISA_FN(sm_first)(k);
    VF v = (VF)(((ISA_FN(vi))ISA_FN(ld_part)(x + i, k) & in) | ((ISA_FN(vi))ninf & ~in));
    m0 = ISA_FN(sm_clamp)(v, m0);
  }
  m0 = ISA_FN(sm_clamp)(m1, m0);
  /* the lanes: halves folded onto each other (a tree of maxps; the order of a maximum does
   * not change it, and a NaN run comes out NaN whichever lane wins) */
  float l[ISA_VW];
  ISA_FN(st)(l, m0);
  for (int w = ISA_VW / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; j++) l[j] = l[j + w] > l[j] ? l[j + w] : l[j];
  return l[0];
}

/* y[i] = e^(x[i] - mx) unless y is NULL; returns the sum in f64 */
static double ISA_FN(sm_expsum)(const float *x, float mx, float *y, int64_t n) {
  const VF m = (VF){0} + mx;
  ISA_FN(vd) lo = {0}, hi = {0};
  int64_t i = 0;
  for (; i + 4 * ISA_VW <= n; i += 4 * ISA_VW) { /* four independent vectors in flight */
    VF e0 = ISA_FN(sm_exp)(ISA_FN(ld)(x + i) - m);
    VF e1 = ISA_FN(sm_exp)(ISA_FN(ld)(x + i + ISA_VW) - m);
    VF e2 = ISA_FN(sm_exp)(ISA_FN(ld)(x + i + 2 * ISA_VW) - m);
    VF e3 = ISA_FN(sm_exp)(ISA_FN(ld)(x + i + 3 * ISA_VW) - m);
    if (y) {
      ISA_FN(st)(y + i, e0), ISA_FN(st)(y + i + ISA_VW, e1);
      ISA_FN(st)(y + i + 2 * ISA_VW, e2), ISA_FN(st)(y + i + 3 * ISA_VW, e3);
    }
    ISA_FN(sm_acc)((e0 + e1) + (e2 + e3), &lo, &hi); /* two roundings in f32 at most */
  }
  for (; i < n; i += ISA_VW) { /* then a vector at a time, the last one masked */
    const int64_t k = n - i < ISA_VW ? n - i : ISA_VW;
    VF e = ISA_FN(sm_exp)(ISA_FN(ld_part)(x + i, k) - m);
    e = (VF)((ISA_FN(vi))e & ISA_FN(sm_first)(k)); /* zeros past the run: left out of the sum */
    if (y) ISA_FN(st_part)(y + i, e, k);
    ISA_FN(sm_acc)(e, &lo, &hi);
  }
  lo += hi;
  double s = 0;
  for (int l = 0; l < ISA_VW / 2; l++) s += lo[l];
  return s;
}

static void ISA_FN(softmax_row_f32)(const float *x, float *y, int64_t n, int log_out) {
  const float mx = ISA_FN(sm_max)(x, n);
  int64_t i = 0;
  if (log_out) {
    const float ls = (float)__builtin_log(ISA_FN(sm_expsum)(x, mx, NULL, n));
    for (; i + ISA_VW <= n; i += ISA_VW) ISA_FN(st)(y + i, (ISA_FN(ld)(x + i) - mx) - ls);
    if (i < n) ISA_FN(st_part)(y + i, (ISA_FN(ld_part)(x + i, n - i) - mx) - ls, n - i);
    return;
  }
  const float inv = (float)(1.0 / ISA_FN(sm_expsum)(x, mx, y, n));
  for (; i + ISA_VW <= n; i += ISA_VW) ISA_FN(st)(y + i, ISA_FN(ld)(y + i) * inv);
  if (i < n) ISA_FN(st_part)(y + i, ISA_FN(ld_part)(y + i, n - i) * inv, n - i);
}
