/* Row moves of a kernel variant's header kernels that copy input rows into planned scratch
 * (kernel_dw_ukr.h, kernel_pool_ukr.h): the store of a vector's first lanes, a row copy, and
 * the deinterleaving copy of stride 2 (even columns to one half of a slot, odd ones to the
 * other), named with the including header's prefix after its kernel_vec.h (no include guard:
 * included once per kernel):
 *
 *   #define VR_VB 32                  // vector bytes: 16, 32 or 64 (as VEC_VB)
 *   #define VR_F(x) DW_F(x)           // the prefix of kernel_vec.h's vf, ld, st
 *   #include "kernel_vec_rows.h"      // undefines VR_VB and VR_F
 *
 * Copies only: no value changes. */
#include <stdint.h>
#include <string.h>
#if (VR_VB == 64 && defined(__AVX512F__)) || (VR_VB == 32 && defined(__AVX2__))
#include <immintrin.h>
#endif

#define VR_VW (VR_VB / 4)

/* the first n (0 < n < VW) lanes of v to p: a masked store where the target has
 * one */
static inline void VR_F(st_part)(float *p, VR_F(vf) v, int64_t n) {
#if VR_VB == 64 && defined(__AVX512F__)
  __m512 m;
  memcpy(&m, &v, sizeof m);
  _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), m);
#elif VR_VB == 32 && defined(__AVX2__)
  static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  __m256 m;
  memcpy(&m, &v, sizeof m);
  _mm256_maskstore_ps(p, _mm256_loadu_si256((const __m256i *)(const void *)(lanes + 8 - n)), m);
#else
  for (int64_t i = 0; i < n; i++) p[i] = v[i];
#endif
}
/* n floats from x to row: vectors, the last one overlapping the one before
 * (no masked moves: slow on AMD), or a masked move / two overlapping 16-byte
 * moves / floats for a row shorter than a vector */
static inline void VR_F(copy)(float *row, const float *x, int64_t n) {
  if (n >= VR_VW) {
    int64_t c = 0;
    for (; c + VR_VW <= n; c += VR_VW) VR_F(st)(row + c, VR_F(ld)(x + c));
    if (c < n) VR_F(st)(row + n - VR_VW, VR_F(ld)(x + n - VR_VW));
    return;
  }
#if VR_VB == 64 && defined(__AVX512F__)
  const __mmask16 k = (__mmask16)((1u << n) - 1u);
  _mm512_mask_storeu_ps(row, k, _mm512_maskz_loadu_ps(k, x));
#else
  typedef float v4 __attribute__((vector_size(16)));
  if (n >= 4) {
    v4 a, b;
    memcpy(&a, x, sizeof a);
    memcpy(&b, x + n - 4, sizeof b);
    memcpy(row, &a, sizeof a);
    memcpy(row + n - 4, &b, sizeof b);
    return;
  }
  for (int64_t c = 0; c < n; c++) row[c] = x[c];
#endif
}
/* x[c .. c + 8) (c even) deinterleaved: the even ones to xe + c / 2, the odd ones to
 * xo + c / 2 */
static inline void VR_F(deint8)(float *xe, float *xo, const float *x, int64_t c) {
  typedef float v4 __attribute__((vector_size(16)));
  v4 a, b, ev, od;
  memcpy(&a, x + c, sizeof a);
  memcpy(&b, x + c + 4, sizeof b);
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
  ev = __builtin_shufflevector(a, b, 0, 2, 4, 6);
  od = __builtin_shufflevector(a, b, 1, 3, 5, 7);
#else
  ev = (v4){a[0], a[2], b[0], b[2]};
  od = (v4){a[1], a[3], b[1], b[3]};
#endif
  memcpy(xe + c / 2, &ev, sizeof ev);
  memcpy(xo + c / 2, &od, sizeof od);
}
/* The deinterleaving copy of stride 2: padded column p = pw + i of an input row
 * goes to half p & 1 of the slot (e: the even columns, o = e + half: the odd
 * ones) at p >> 1, so that every tap of an output vector is one plain load. */
static inline void VR_F(copy2)(float *e, float *o, const float *x, int64_t n, int64_t pw) {
  float *xe = (pw & 1 ? o : e) + (pw >> 1), *xo = (pw & 1 ? e : o) + ((pw + 1) >> 1);
  int64_t c = 0;
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
  for (; c + 2 * VR_VW <= n; c += 2 * VR_VW) {
    const VR_F(vf) a = VR_F(ld)(x + c), b = VR_F(ld)(x + c + VR_VW);
#if VR_VW == 4
    VR_F(st)(xe + c / 2, __builtin_shufflevector(a, b, 0, 2, 4, 6));
    VR_F(st)(xo + c / 2, __builtin_shufflevector(a, b, 1, 3, 5, 7));
#elif VR_VW == 8
    VR_F(st)(xe + c / 2, __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14));
    VR_F(st)(xo + c / 2, __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15));
#else
    VR_F(st)(xe + c / 2,
             __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
    VR_F(st)(xo + c / 2,
             __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31));
#endif
  }
#endif
  /* then blocks of 8 floats, the last one overlapping the one before at an even
   * column (it writes the same values again) */
  for (; c + 8 <= n; c += 8) VR_F(deint8)(xe, xo, x, c);
  if (c < n && n >= 8) {
    c = (n - 8) & ~(int64_t)1;
    VR_F(deint8)(xe, xo, x, c);
    c += 8;
  }
  for (; c + 1 < n; c += 2) xe[c / 2] = x[c], xo[c / 2] = x[c + 1];
  if (c < n) xe[c / 2] = x[c];
}

#undef VR_VW
#undef VR_VB
#undef VR_F
