/* The depthwise-convolution plane kernel of a kernel variant (kernel_isa.h's
 * dwconv_f32), written once with GCC/clang vector types and included by each
 * variant's file:
 *
 *   #define DW_VB 32            // vector bytes (16: portable and NEON, 32:
 * AVX2, 64: AVX-512) #define DW_NAME isa_32_dwconv_f32 #define DW_LINKAGE //
 * optional: empty for an external function (default static) #include
 * "kernel_dw_ukr.h"
 *
 * The structure of XNNPACK's CHW depthwise kernels: vectors run along an output
 * row. The input rows a row of outputs reads are copied into zero-padded rows
 * of the caller's buffer (once per plane when the ring of rows fits,
 * kernel_isa.h's berth_dw_geom_t), so the left and right padding and the last
 * partial vector need no branches: every output column reads inside its padded
 * row, and only the store of the last vector is partial. Stride 2 loads two
 * vectors and keeps the even lanes. Each output sums from the bias, the kernel
 * rows in order (rows over the top and bottom padding are skipped), each row's
 * taps in order, so a result depends neither on where its vector starts nor on
 * alignment. The including file's flags decide the instructions (fused
 * multiply-adds where contraction is allowed). No allocation, no stdio. */
#include <stdint.h>
#include <string.h>
#if (DW_VB == 64 && defined(__AVX512F__)) || (DW_VB == 32 && defined(__AVX2__))
#include <immintrin.h>
#endif

#define DW_VW (DW_VB / 4)
#define DW_C2(a, b) a##b
#define DW_C(a, b) DW_C2(a, b)
#define DW_F(x) DW_C(DW_NAME, _##x)
#ifndef DW_LINKAGE
#define DW_LINKAGE static
#endif
#define DW_MAX_KH 8 /* kernel rows (kernel_conv_dw.c accepts no more) */

#define VEC_VB DW_VB
#define VEC_F(x) DW_F(x)
#include "kernel_vec.h"

/* the first n (0 < n < VW) lanes of v to p: a masked store where the target has
 * one */
static inline void DW_F(st_part)(float *p, DW_F(vf) v, int64_t n) {
#if DW_VB == 64 && defined(__AVX512F__)
  __m512 m;
  memcpy(&m, &v, sizeof m);
  _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), m);
#elif DW_VB == 32 && defined(__AVX2__)
  static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  __m256 m;
  memcpy(&m, &v, sizeof m);
  _mm256_maskstore_ps(p, _mm256_loadu_si256((const __m256i *)(const void *)(lanes + 8 - n)), m);
#else
  for (int64_t i = 0; i < n; i++) p[i] = v[i];
#endif
}
/* n floats from x to row, vectors then the rest (rows are short: no memcpy
 * call) */
static inline void DW_F(copy)(float *row, const float *x, int64_t n) {
  int64_t c = 0;
  for (; c + DW_VW <= n; c += DW_VW) DW_F(st)(row + c, DW_F(ld)(x + c));
  if (c == n) return;
#if DW_VB == 64 && defined(__AVX512F__)
  const __mmask16 k = (__mmask16)((1u << (n - c)) - 1u);
  _mm512_mask_storeu_ps(row + c, k, _mm512_maskz_loadu_ps(k, x + c));
#elif DW_VB == 32 && defined(__AVX2__)
  static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  const __m256i k = _mm256_loadu_si256((const __m256i *)(const void *)(lanes + 8 - (n - c)));
  _mm256_maskstore_ps(row + c, k, _mm256_maskload_ps(x + c, k));
#else
  for (; c < n; c++) row[c] = x[c];
#endif
}
/* p[0], p[2], ..., p[2 * VW - 2]: reads p[0 .. 2 * VW - 1] */
static inline DW_F(vf) DW_F(ld_even)(const float *p) {
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
  DW_F(vf) a = DW_F(ld)(p), b = DW_F(ld)(p + DW_VW);
#if DW_VW == 4
  return __builtin_shufflevector(a, b, 0, 2, 4, 6);
#elif DW_VW == 8
  return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
#else
  return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
#endif
#else
  DW_F(vf) v;
  for (int i = 0; i < DW_VW; i++) v[i] = p[2 * i];
  return v;
#endif
}

/* One row of ow outputs: n kernel rows, r[q] the padded input row of kernel row
 * q (column 0 is input column -pw), wr[q] its KW weights. KW and SW are
 * constants once inlined. */
static inline __attribute__((always_inline)) void DW_F(row)(int KW, int SW, const float *const *r,
                                                            const float *const *wr, int n, int64_t dw, float bias,
                                                            float *y, int64_t ow) {
  typedef DW_F(vf) vf;
#define DW_LD(p) (SW == 1 ? DW_F(ld)(p) : DW_F(ld_even)(p))
  const vf vb = DW_F(splat)(bias);
  int64_t j = 0;
  for (; j + 2 * DW_VW <= ow; j += 2 * DW_VW) {
    vf a0 = vb, a1 = vb;
    for (int q = 0; q < n; q++) {
      const float *x = r[q] + j * SW, *w = wr[q];
      for (int t = 0; t < KW; t++) {
        const vf wv = DW_F(splat)(w[t]);
        a0 += wv * DW_LD(x + t * dw);
        a1 += wv * DW_LD(x + t * dw + DW_VW * SW);
      }
    }
    DW_F(st)(y + j, a0);
    DW_F(st)(y + j + DW_VW, a1);
  }
  for (; j < ow; j += DW_VW) { /* the padded rows cover a whole last vector */
    vf a0 = vb;
    for (int q = 0; q < n; q++) {
      const float *x = r[q] + j * SW, *w = wr[q];
      for (int t = 0; t < KW; t++) a0 += DW_F(splat)(w[t]) * DW_LD(x + t * dw);
    }
    if (ow - j >= DW_VW)
      DW_F(st)(y + j, a0);
    else
      DW_F(st_part)(y + j, a0, ow - j);
  }
#undef DW_LD
}

/* Four output rows (o = 0..3, input rows from r[o * SH]) of a KxK kernel with
 * row stride SH and row dilation 1: each loaded input vector serves every
 * output row whose window holds its row, and the K * K weights stay broadcast
 * in registers (or the compiler's spill slots) for the whole row block. The
 * terms of each output are added in the order of dw_row's: kernel rows, then
 * taps. K, SH and SW are constants once inlined. */
static inline __attribute__((always_inline)) void DW_F(rows4)(int K, int SH, int SW, const float *const *r,
                                                              const float *w, int64_t dw, float bias, float *y,
                                                              int64_t ow) {
  typedef DW_F(vf) vf;
#define DW_LD(p) (SW == 1 ? DW_F(ld)(p) : DW_F(ld_even)(p))
  enum { NR = 4 };
  vf wv[5][5];
  for (int q = 0; q < K; q++)
    for (int t = 0; t < K; t++) wv[q][t] = DW_F(splat)(w[q * K + t]);
  const vf vb = DW_F(splat)(bias);
  const int rows = (NR - 1) * SH + K;
  int64_t j = 0;
  for (; j + 2 * DW_VW <= ow; j += 2 * DW_VW) {
    vf a[NR][2];
    for (int o = 0; o < NR; o++) a[o][0] = a[o][1] = vb;
    for (int ii = 0; ii < rows; ii++) {
      const float *x = r[ii] + j * SW;
      for (int t = 0; t < K; t++) {
        const vf x0 = DW_LD(x + t * dw), x1 = DW_LD(x + t * dw + DW_VW * SW);
        for (int o = 0; o < NR; o++) {
          const int q = ii - o * SH;
          if (q < 0 || q >= K) continue;
          a[o][0] += wv[q][t] * x0;
          a[o][1] += wv[q][t] * x1;
        }
      }
    }
    for (int o = 0; o < NR; o++) {
      DW_F(st)(y + o * ow + j, a[o][0]);
      DW_F(st)(y + o * ow + j + DW_VW, a[o][1]);
    }
  }
  for (; j < ow; j += DW_VW) { /* the padded rows cover a whole last vector */
    vf a[NR];
    for (int o = 0; o < NR; o++) a[o] = vb;
    for (int ii = 0; ii < rows; ii++) {
      const float *x = r[ii] + j * SW;
      for (int t = 0; t < K; t++) {
        const vf x0 = DW_LD(x + t * dw);
        for (int o = 0; o < NR; o++) {
          const int q = ii - o * SH;
          if (q >= 0 && q < K) a[o] += wv[q][t] * x0;
        }
      }
    }
    for (int o = 0; o < NR; o++) {
      if (ow - j >= DW_VW)
        DW_F(st)(y + o * ow + j, a[o]);
      else
        DW_F(st_part)(y + o * ow + j, a[o], ow - j);
    }
  }
#undef DW_LD
}

/* Row blocks of four (kernel_isa.h's berth_dw_geom_t says when): input rows
 * outside the plane read the zero row after the slots. Returns the first output
 * row not done. */
static int64_t DW_F(blocks)(const berth_dw_geom_t *g, const float *x, const float *w, float bias, float *y, float *buf,
                            int64_t *tag) {
  const int64_t R = g->row, S = g->slots, sh = g->sh, k = g->kh;
  const int rows = (int)(3 * sh + k);
  const float *zero = buf + S * R;
  int64_t o0 = 0;
  for (; o0 + 4 <= g->oh; o0 += 4) {
    const float *r[3 * 2 + 5];
    for (int ii = 0; ii < rows; ii++) {
      const int64_t i0 = o0 * sh - g->ph + ii;
      if (i0 < 0 || i0 >= g->ih) {
        r[ii] = zero;
        continue;
      }
      const int64_t slot = i0 & (S - 1);
      float *row = buf + slot * R;
      if (tag[slot] != i0) {
        DW_F(copy)(row + g->pw, x + i0 * g->iw, g->iw);
        tag[slot] = i0;
      }
      r[ii] = row;
    }
    float *yr = y + o0 * g->ow;
    const int64_t dw = g->dw, ow = g->ow;
#define DW_CASE(K, SH, SW) \
  if (k == K && sh == SH && g->sw == SW) DW_F(rows4)(K, SH, SW, r, w, dw, bias, yr, ow);
    DW_CASE(3, 1, 1)
    else DW_CASE(3, 1, 2) else DW_CASE(3, 2, 1) else DW_CASE(3, 2, 2) else DW_CASE(5, 1, 1) else DW_CASE(
        5, 1, 2) else DW_CASE(5, 2, 1) else DW_CASE(5, 2, 2)
#undef DW_CASE
  }
  return o0;
}

DW_LINKAGE void DW_NAME(const berth_dw_geom_t *g, const float *x, const float *w, float bias, float *y, float *buf) {
  const int64_t R = g->row, S = g->slots, iw = g->iw;
  /* a ring of a power of two slots, else one slot per kernel row, copied per
   * output row */
  const int ring = (S & (S - 1)) == 0 && S >= (g->kh - 1) * g->dh + 1;
  int64_t tag[BERTH_DW_MAX_SLOTS];
  for (int64_t s = 0; s < S && s < BERTH_DW_MAX_SLOTS; s++) tag[s] = -1;
  int64_t o0 = 0;
  if (ring && g->dh == 1 && g->kh == g->kw && (g->sh == 1 || g->sh == 2) && S >= 3 * g->sh + g->kh)
    o0 = DW_F(blocks)(g, x, w, bias, y, buf, tag);
  for (; o0 < g->oh; o0++) {
    const float *r[DW_MAX_KH], *wr[DW_MAX_KH];
    int n = 0;
    for (int64_t q0 = 0; q0 < g->kh; q0++) {
      const int64_t i0 = o0 * g->sh - g->ph + q0 * g->dh;
      if (i0 < 0 || i0 >= g->ih) continue;
      const int64_t slot = ring ? i0 & (S - 1) : q0;
      float *row = buf + slot * R;
      if (!ring || tag[slot] != i0) {
        DW_F(copy)(row + g->pw, x + i0 * iw, iw);
        if (ring) tag[slot] = i0;
      }
      r[n] = row;
      wr[n++] = w + q0 * g->kw;
    }
    float *yr = y + o0 * g->ow;
    if (g->kw == 3 && g->sw == 1)
      DW_F(row)(3, 1, r, wr, n, g->dw, bias, yr, g->ow);
    else if (g->kw == 3)
      DW_F(row)(3, 2, r, wr, n, g->dw, bias, yr, g->ow);
    else if (g->sw == 1)
      DW_F(row)(5, 1, r, wr, n, g->dw, bias, yr, g->ow);
    else
      DW_F(row)(5, 2, r, wr, n, g->dw, bias, yr, g->ow);
  }
}

#undef DW_VW
#undef DW_C2
#undef DW_C
#undef DW_F
#undef DW_LINKAGE
#undef DW_MAX_KH
#undef DW_VB
#undef DW_NAME
