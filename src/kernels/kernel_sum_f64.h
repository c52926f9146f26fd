/* Sums of f32 runs in f64, in a fixed lane order (softmax's sum of exponentials, layer_norm's
 * mean and variance):
 *
 *   double s = berth_sum_f64_f32(x, n);             // sum of x[i]
 *   double q = berth_sqdev_f64_f32(x, n, mean);     // sum of (x[i] - mean)^2, each in f64
 *
 * A sequential `s += x[i]` is one chain of dependent additions (4 cycles each: a row of 768
 * floats costs about 3000 cycles) and C may not reassociate it. These keep eight partial sums:
 * element q + l of each block of eight goes to partial sum l, a last pair or single element
 * to partial sums 0 and 1; then ((p0 + p2) + (p4 + p6)) + ((p1 + p3) + (p5 + p7)). With GCC
 * and clang (kernel_dot.h's BERTH_DOT_VECTOR) the partial sums are 16-byte vectors of two
 * doubles, elsewhere an array: the same additions in the same order, the same bits.
 *
 * Accuracy: a float converts to double exactly and (x - mean)^2 of a float x and a double
 * mean has a relative error of at most 2^-52; each sum then has an error of at most
 * (n / 8 + 3) * 2^-53 times the sum of the magnitudes of its terms (the usual bound for
 * recursive summation, here over n / 8 + 3 additions per term): for n below 2^20 that is
 * below 2^-36 of the sum of magnitudes, far under an f32 ulp. A NaN or an infinity anywhere
 * gives NaN or that infinity, as a sequential sum does. Runtime side: no allocation. */
#ifndef BERTH_KERNELS_KERNEL_SUM_F64_H
#define BERTH_KERNELS_KERNEL_SUM_F64_H

#include "kernel_dot.h"

#include <stdint.h>
#include <string.h>

#if BERTH_DOT_VECTOR

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

/* x[0..3] as two pairs of doubles (cvtps2pd on x86-64, fcvtl on AArch64: GCC converts a
 * generic vector one element at a time) */
static inline void berth_ld4_f64_f32(const float *x, berth_v2d *lo, berth_v2d *hi) {
#if defined(__SSE2__)
  __m128 v = _mm_loadu_ps(x);
  *lo = (berth_v2d)_mm_cvtps_pd(v);
  *hi = (berth_v2d)_mm_cvtps_pd(_mm_movehl_ps(v, v));
#elif defined(__aarch64__)
  float32x4_t v = vld1q_f32(x);
  *lo = (berth_v2d)vcvt_f64_f32(vget_low_f32(v));
  *hi = (berth_v2d)vcvt_high_f64_f32(v);
#else
  *lo = (berth_v2d){x[0], x[1]};
  *hi = (berth_v2d){x[2], x[3]};
#endif
}

/* name(x, n ...) sums TERM, an expression of v (x[i] as a double, two of them at a time) and of
 * the extra parameters, written after n as __VA_ARGS__ (", double mean") */
#define BERTH_SUM_F64_DEFINE(name, TERM, ...)                                                           \
  static inline double name(const float *x, int64_t n __VA_ARGS__) {                                   \
    berth_v2d a0 = {0, 0}, a1 = {0, 0}, a2 = {0, 0}, a3 = {0, 0}, v;                                   \
    int64_t q = 0;                                                                                     \
    for (; q + 8 <= n; q += 8) {                                                                       \
      berth_v2d w;                                                                                     \
      berth_ld4_f64_f32(x + q, &v, &w);                                                                \
      a0 += TERM;                                                                                      \
      v = w;                                                                                           \
      a1 += TERM;                                                                                      \
      berth_ld4_f64_f32(x + q + 4, &v, &w);                                                            \
      a2 += TERM;                                                                                      \
      v = w;                                                                                           \
      a3 += TERM;                                                                                      \
    }                                                                                                  \
    for (; q + 2 <= n; q += 2) {                                                                       \
      v = (berth_v2d){(double)x[q], (double)x[q + 1]};                                                 \
      a0 += TERM;                                                                                      \
    }                                                                                                  \
    if (q < n) {                                                                                       \
      v = (berth_v2d){(double)x[q], 0};                                                                \
      v = TERM;                                                                                        \
      a0[0] += v[0];                                                                                   \
    }                                                                                                  \
    berth_v2d s = (a0 + a1) + (a2 + a3);                                                               \
    return s[0] + s[1];                                                                                \
  }

#else /* portable: the same partial sums in an array */

#define BERTH_SUM_F64_DEFINE(name, TERM, ...)                                                           \
  static inline double name(const float *x, int64_t n __VA_ARGS__) {                                   \
    double p[8] = {0, 0, 0, 0, 0, 0, 0, 0}, v;                                                         \
    int64_t q = 0;                                                                                     \
    for (; q + 8 <= n; q += 8)                                                                         \
      for (int l = 0; l < 8; l++) {                                                                    \
        v = (double)x[q + l];                                                                          \
        p[l] += TERM;                                                                                  \
      }                                                                                                \
    for (; q < n; q++) {                                                                               \
      v = (double)x[q];                                                                                \
      p[(q & 1) != 0] += TERM;                                                                         \
    }                                                                                                  \
    return ((p[0] + p[2]) + (p[4] + p[6])) + ((p[1] + p[3]) + (p[5] + p[7]));                           \
  }

#endif

BERTH_SUM_F64_DEFINE(berth_sum_f64_f32, v, )
BERTH_SUM_F64_DEFINE(berth_sqdev_f64_f32, (v - mean) * (v - mean), , double mean)

#undef BERTH_SUM_F64_DEFINE

#endif
