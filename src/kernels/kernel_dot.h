/* Dot products for the kernels shaped like matrix-vector products (conv, lstm, gemm).
 *
 *   float s = berth_dot_f32(w_row, x, n);
 *   float s4[4];
 *   berth_dot4_f32(w0, w1, w2, w3, x, n, s4);   // four rows against one vector
 *   berth_dot4_2seg_f32(w0, w1, w2, w3, x, n, r0, r1, r2, r3, h, m, s4);  // [w|r] . [x|h]
 *
 * C may not reassociate a float sum, so a plain `s += a[i] * b[i]` loop never vectorizes,
 * and loops over small arrays of partial sums vectorize or not depending on the compiler
 * and the optimization level (measured: 3 to 20 GFLOP/s for the same source). With GCC and
 * clang these therefore use 16-byte vector types (SSE2 / NEON width, always available),
 * keeping eight independent vector accumulators in flight (two per row in dot4, four in
 * dot), which measured 20 GFLOP/s at -O2 and -O3 with both compilers. Other compilers, or
 * BERTH_DOT_PORTABLE defined before inclusion, get plain loops over arrays of partial sums.
 * Both sum in the same lane order, so results differ from a sequential sum by rounding
 * only. dot4 loads each element of x once for four rows; dot4_2seg is two dot4s summed
 * through one set of accumulators (one reduction instead of two: the LSTM's W x + R h).
 * Runtime side: no allocation. */
#ifndef BERTH_KERNELS_KERNEL_DOT_H
#define BERTH_KERNELS_KERNEL_DOT_H

#include <stdint.h>
#include <string.h>

#if (defined(__GNUC__) || defined(__clang__)) && !defined(BERTH_DOT_PORTABLE)
#define BERTH_DOT_VECTOR 1
#else
#define BERTH_DOT_VECTOR 0
#endif

#if BERTH_DOT_VECTOR

typedef float berth_v4f __attribute__((vector_size(16)));
typedef double berth_v2d __attribute__((vector_size(16)));

/* Unaligned loads through memcpy: one movups, no aliasing questions. */
static inline berth_v4f berth_ld_f32(const float *p) {
  berth_v4f v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline berth_v2d berth_ld_f64(const double *p) {
  berth_v2d v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline float berth_hsum_f32(berth_v4f v) { return (v[0] + v[2]) + (v[1] + v[3]); }
static inline double berth_hsum_f64(berth_v2d v) { return v[0] + v[1]; }

#define BERTH_DOT_DEFINE(s, T, VT, W)                                                                  \
  static inline T berth_dot_##s(const T *restrict a, const T *restrict b, int64_t n) {                 \
    VT a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};                                                         \
    int64_t q = 0;                                                                                     \
    for (; q + 4 * W <= n; q += 4 * W) {                                                               \
      a0 += berth_ld_##s(a + q) * berth_ld_##s(b + q);                                                 \
      a1 += berth_ld_##s(a + q + W) * berth_ld_##s(b + q + W);                                         \
      a2 += berth_ld_##s(a + q + 2 * W) * berth_ld_##s(b + q + 2 * W);                                 \
      a3 += berth_ld_##s(a + q + 3 * W) * berth_ld_##s(b + q + 3 * W);                                 \
    }                                                                                                  \
    for (; q + W <= n; q += W) a0 += berth_ld_##s(a + q) * berth_ld_##s(b + q);                        \
    T s_ = berth_hsum_##s((a0 + a1) + (a2 + a3));                                                      \
    for (; q < n; q++) s_ += a[q] * b[q];                                                              \
    return s_;                                                                                         \
  }                                                                                                    \
  static inline void berth_dot4_##s(const T *restrict r0, const T *restrict r1, const T *restrict r2,  \
                                    const T *restrict r3, const T *restrict x, int64_t n, T out[4]) {  \
    VT a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};                 \
    int64_t q = 0;                                                                                     \
    for (; q + 2 * W <= n; q += 2 * W) {                                                               \
      VT xv = berth_ld_##s(x + q), xw = berth_ld_##s(x + q + W);                                       \
      a0 += berth_ld_##s(r0 + q) * xv;                                                                 \
      a1 += berth_ld_##s(r1 + q) * xv;                                                                 \
      a2 += berth_ld_##s(r2 + q) * xv;                                                                 \
      a3 += berth_ld_##s(r3 + q) * xv;                                                                 \
      b0 += berth_ld_##s(r0 + q + W) * xw;                                                             \
      b1 += berth_ld_##s(r1 + q + W) * xw;                                                             \
      b2 += berth_ld_##s(r2 + q + W) * xw;                                                             \
      b3 += berth_ld_##s(r3 + q + W) * xw;                                                             \
    }                                                                                                  \
    T s0 = berth_hsum_##s(a0 + b0), s1 = berth_hsum_##s(a1 + b1), s2 = berth_hsum_##s(a2 + b2),        \
      s3 = berth_hsum_##s(a3 + b3);                                                                    \
    for (; q < n; q++) {                                                                               \
      T xv = x[q];                                                                                     \
      s0 += r0[q] * xv;                                                                                \
      s1 += r1[q] * xv;                                                                                \
      s2 += r2[q] * xv;                                                                                \
      s3 += r3[q] * xv;                                                                                \
    }                                                                                                  \
    out[0] = s0;                                                                                       \
    out[1] = s1;                                                                                       \
    out[2] = s2;                                                                                       \
    out[3] = s3;                                                                                       \
  }                                                                                                    \
  /* out[r] = dot(row r, x over n) + dot(row u_r, y over m): one reduction for both. */                \
  static inline void berth_dot4_2seg_##s(const T *restrict r0, const T *restrict r1, const T *restrict r2, \
                                         const T *restrict r3, const T *restrict x, int64_t n,         \
                                         const T *restrict u0, const T *restrict u1, const T *restrict u2, \
                                         const T *restrict u3, const T *restrict y, int64_t m, T out[4]) { \
    VT a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};                 \
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;                                                                  \
    for (int seg = 0; seg < 2; seg++) {                                                                \
      const T *restrict p0 = seg ? u0 : r0, *restrict p1 = seg ? u1 : r1, *restrict p2 = seg ? u2 : r2; \
      const T *restrict p3 = seg ? u3 : r3, *restrict v = seg ? y : x;                                 \
      const int64_t len = seg ? m : n;                                                                 \
      int64_t q = 0;                                                                                   \
      for (; q + 2 * W <= len; q += 2 * W) {                                                           \
        VT xv = berth_ld_##s(v + q), xw = berth_ld_##s(v + q + W);                                     \
        a0 += berth_ld_##s(p0 + q) * xv;                                                               \
        a1 += berth_ld_##s(p1 + q) * xv;                                                               \
        a2 += berth_ld_##s(p2 + q) * xv;                                                               \
        a3 += berth_ld_##s(p3 + q) * xv;                                                               \
        b0 += berth_ld_##s(p0 + q + W) * xw;                                                           \
        b1 += berth_ld_##s(p1 + q + W) * xw;                                                           \
        b2 += berth_ld_##s(p2 + q + W) * xw;                                                           \
        b3 += berth_ld_##s(p3 + q + W) * xw;                                                           \
      }                                                                                                \
      for (; q < len; q++) {                                                                           \
        T xv = v[q];                                                                                   \
        s0 += p0[q] * xv;                                                                              \
        s1 += p1[q] * xv;                                                                              \
        s2 += p2[q] * xv;                                                                              \
        s3 += p3[q] * xv;                                                                              \
      }                                                                                                \
    }                                                                                                  \
    out[0] = berth_hsum_##s(a0 + b0) + s0;                                                             \
    out[1] = berth_hsum_##s(a1 + b1) + s1;                                                             \
    out[2] = berth_hsum_##s(a2 + b2) + s2;                                                             \
    out[3] = berth_hsum_##s(a3 + b3) + s3;                                                             \
  }

BERTH_DOT_DEFINE(f32, float, berth_v4f, 4)
BERTH_DOT_DEFINE(f64, double, berth_v2d, 2)

#else /* portable */

#define BERTH_DOT_DEFINE(s, T, W)                                                                      \
  static inline T berth_dot_##s(const T *restrict a, const T *restrict b, int64_t n) {                 \
    T acc[4 * W] = {0};                                                                                \
    int64_t q = 0;                                                                                     \
    for (; q + 4 * W <= n; q += 4 * W)                                                                 \
      for (int l = 0; l < 4 * W; l++) acc[l] += a[q + l] * b[q + l];                                   \
    for (; q + W <= n; q += W)                                                                         \
      for (int l = 0; l < W; l++) acc[l] += a[q + l] * b[q + l];                                       \
    T v[W];                                                                                            \
    for (int l = 0; l < W; l++) v[l] = (acc[l] + acc[W + l]) + (acc[2 * W + l] + acc[3 * W + l]);      \
    T s_ = W == 4 ? (v[0] + v[W / 2]) + (v[1] + v[W - 1]) : v[0] + v[W - 1];                           \
    for (; q < n; q++) s_ += a[q] * b[q];                                                              \
    return s_;                                                                                         \
  }                                                                                                    \
  static inline void berth_dot4_##s(const T *restrict r0, const T *restrict r1, const T *restrict r2,  \
                                    const T *restrict r3, const T *restrict x, int64_t n, T out[4]) {  \
    const T *r[4] = {r0, r1, r2, r3};                                                                  \
    for (int k = 0; k < 4; k++) {                                                                      \
      T acc[2 * W] = {0};                                                                              \
      int64_t q = 0;                                                                                   \
      for (; q + 2 * W <= n; q += 2 * W)                                                               \
        for (int l = 0; l < 2 * W; l++) acc[l] += r[k][q + l] * x[q + l];                              \
      T v[W];                                                                                          \
      for (int l = 0; l < W; l++) v[l] = acc[l] + acc[W + l];                                          \
      T s_ = W == 4 ? (v[0] + v[W / 2]) + (v[1] + v[W - 1]) : v[0] + v[W - 1];                         \
      for (; q < n; q++) s_ += r[k][q] * x[q];                                                         \
      out[k] = s_;                                                                                     \
    }                                                                                                  \
  }                                                                                                    \
  static inline void berth_dot4_2seg_##s(const T *restrict r0, const T *restrict r1, const T *restrict r2, \
                                         const T *restrict r3, const T *restrict x, int64_t n,         \
                                         const T *restrict u0, const T *restrict u1, const T *restrict u2, \
                                         const T *restrict u3, const T *restrict y, int64_t m, T out[4]) { \
    T a[4], b[4];                                                                                      \
    berth_dot4_##s(r0, r1, r2, r3, x, n, a);                                                           \
    berth_dot4_##s(u0, u1, u2, u3, y, m, b);                                                           \
    for (int k = 0; k < 4; k++) out[k] = a[k] + b[k];                                                  \
  }

BERTH_DOT_DEFINE(f32, float, 4)
BERTH_DOT_DEFINE(f64, double, 2)

#endif

#endif
