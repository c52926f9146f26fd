/* conv's im2col panel packer with x86 masked loads (kernel_isa.h's im2col_f32), included
 * by kernel_isa_simd.h in the AVX-512 and AVX2 variants:
 *
 *   #define IM2COL_VB 64          // vector bytes: 64 (AVX-512 mask registers) or 32 (AVX2)
 *   #define IM2COL_NAME isa_64_im2col_f32
 *   #include "kernel_im2col.h"
 *
 * A panel row (one kernel tap (ic, q0, q1, q2), nr positions) is built in nr / VW registers
 * (VW = IM2COL_VB / 4 lanes): the panel's positions split into runs along one output row (as
 * in kernel_conv.c's generic packer), and each run's valid elements come in with one masked
 * load per register (stride 1), two masked loads and a shuffle (stride 2 on AVX2) or one
 * masked gather (larger strides) from the input row;
 * lanes outside every run's valid window stay zero (the padding, the columns past nc). Then
 * nr / VW full stores, and a masked one for the last nr % VW lanes (a panel of MR rows:
 * berth_gemm_packed_wb_f32's 6-row tiles on AVX2). The lane masks depend on the run and q2 only: computed once per panel.
 * AVX-512 merges each masked load into the row; AVX2's vmaskmovps zeroes the masked-off
 * lanes, so its loads are or-ed into the row (the runs' lanes are disjoint, and a zero lane
 * has no bits set: the or is a copy). No allocation, no stdio; masked-off lanes are never
 * read, so nothing outside the input is touched. The result is the generic packer's, bit for
 * bit (a copy). Measured on an AVX2-only EPYC: the generic packer's per-run copies cost about
 * as much as the multiply-adds on ResNet-50's 64-channel 3x3 layer. */
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define IM2COL_MAX_RUN 32 /* runs of a panel (one per output row it touches): at most nc <= nr <= 32 */
#define IM2COL_MAX_K2 8   /* kernel widths with a table of masks */
#define IM2COL_MAX_NV 2   /* registers per panel row: nr VW or 2 VW */
#define IM2COL_C2(a, b) a##b
#define IM2COL_C(a, b) IM2COL_C2(a, b)
#define IM2COL_F(x) IM2COL_C(IM2COL_NAME, _##x)
#ifndef IM2COL_VB
#define IM2COL_VB 64
#endif
#define IM2COL_VW (IM2COL_VB / 4)

/* One register of a panel row and its lane mask, per instruction set. */
#if IM2COL_VB == 64
typedef __m512 IM2COL_F(v);
typedef __mmask16 IM2COL_F(m);
typedef __m512i IM2COL_F(vi);
static inline IM2COL_F(m) IM2COL_F(mask)(uint32_t bits) { return (__mmask16)bits; }
static inline IM2COL_F(vi) IM2COL_F(lanes)(int64_t st2) {
  return _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                            _mm512_set1_epi32((int)st2));
}
#define IM2COL_ZERO() _mm512_setzero_ps()
#define IM2COL_LOAD(row, m, src) _mm512_mask_loadu_ps(row, m, src)
#define IM2COL_GATHER(row, m, gidx, src) _mm512_mask_i32gather_ps(row, m, gidx, src, 4)
#define IM2COL_STORE(d, row) _mm512_storeu_ps(d, row)
#define IM2COL_STORE_PART(d, row, n, m) _mm512_mask_storeu_ps(d, m, row)
#elif IM2COL_VB == 32
typedef __m256 IM2COL_F(v);
typedef __m256i IM2COL_F(m);
typedef __m256i IM2COL_F(vi);
/* lane b all ones where bit b is set (vmaskmovps and vgatherdps read the top bit) */
static inline IM2COL_F(m) IM2COL_F(mask)(uint32_t bits) {
  const __m256i lb = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)bits), lb), lb);
}
static inline IM2COL_F(vi) IM2COL_F(lanes)(int64_t st2) {
  return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)st2));
}
#define IM2COL_ZERO() _mm256_setzero_ps()
#define IM2COL_LOAD(row, m, src) _mm256_or_ps(row, _mm256_maskload_ps((const float *)(src), m))
#define IM2COL_GATHER(row, m, gidx, src)                                                                \
  _mm256_mask_i32gather_ps(row, (const float *)(src), gidx, _mm256_castsi256_ps(m), 4)
#define IM2COL_STORE(d, row) _mm256_storeu_ps(d, row)
#define IM2COL_STORE_PART(d, row, n, m) _mm256_maskstore_ps(d, m, row)
/* Stride 2 without a gather (vgatherdps is slow on AMD: it was a third of SqueezeNet's
 * conv1, 3x3 stride 2 from 3 channels, on an AVX2-only EPYC): the 16 floats from src come in
 * with two masked loads whose masks keep only the even elements of the valid lanes, and the
 * even elements are moved into lane order (a copy, so bit for bit the gather's row). lo and
 * hi: the masks of elements 0..7 and 8..15 (IM2COL_F(s2masks)). */
#define IM2COL_HAS_S2 1
static inline void IM2COL_F(s2masks)(uint32_t bits, IM2COL_F(m) * lo, IM2COL_F(m) * hi) {
  uint32_t l = 0, h = 0;
  for (int b = 0; b < 4; b++) l |= (bits >> b & 1u) << (2 * b), h |= (bits >> (b + 4) & 1u) << (2 * b);
  *lo = IM2COL_F(mask)(l);
  *hi = IM2COL_F(mask)(h);
}
static inline __m256 IM2COL_F(load_s2)(__m256 row, IM2COL_F(m) lo, IM2COL_F(m) hi, const void *src) {
  const __m256 a = _mm256_maskload_ps((const float *)src, lo), b = _mm256_maskload_ps((const float *)src + 8, hi);
  /* [a0 a2 b0 b2 | a4 a6 b4 b6], then its 64-bit quarters in the order 0 2 1 3 */
  const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_or_ps(row, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8)));
}
#else
#error "IM2COL_VB must be 64 or 32"
#endif
#ifndef IM2COL_HAS_S2
#define IM2COL_HAS_S2 0
#endif

/* The rows of the panel (after the runs and their masks), tap by tap: the rows of one kernel
 * tap (q0, q1, q2) are every kk-th (one per input channel), and which runs read the input,
 * from where and under which masks depends on the tap only, so the inner loop over the
 * channels is just the masked loads (or gathers) and the stores. nv registers per row, a
 * constant once inlined, so the row stays in registers. */
static inline __attribute__((always_inline)) void IM2COL_F(rows)(
    const berth_im2col_geom_t *g, const float *xg, int64_t k0, int64_t kc, float *dst, int64_t nr, int nv, int nrun,
    const int64_t *at, const int64_t *s0, const int64_t *s1, const int64_t *s2,
    const uint32_t (*mk)[IM2COL_MAX_K2][IM2COL_MAX_NV]) {
  const int64_t in0 = g->in[0], in1 = g->in[1], in2 = g->in[2], st2 = g->stride[2], k2 = g->k[2], dl2 = g->dil[2];
  const int64_t kk = g->k[0] * g->k[1] * k2, k1 = g->k[1], step = kk * nr;
  const IM2COL_F(vi) gidx = IM2COL_F(lanes)(st2);
  const int64_t tail = nr % IM2COL_VW;
  const IM2COL_F(m) tmask = IM2COL_F(mask)((1u << tail) - 1u);
  const int64_t tap0 = k0 % kk, ic0 = k0 / kk; /* the block's first row */
  for (int64_t tap = 0; tap < kk && tap < kc; tap++) {
    /* the block's rows of this tap: channels ic0 + (tap < tap0) .. while inside the block */
    const int64_t t = tap0 + tap < kk ? tap0 + tap : tap0 + tap - kk, ic_first = ic0 + (tap0 + tap >= kk);
    const int64_t q2 = t % k2, q1 = t / k2 % k1, q0 = t / k2 / k1;
    const int64_t nrow = (kc - tap + kk - 1) / kk; /* rows tap, tap + kk, ... of the block */
    int64_t off[IM2COL_MAX_RUN];
    IM2COL_F(m) m[IM2COL_MAX_RUN][IM2COL_MAX_NV];
#if IM2COL_HAS_S2
    IM2COL_F(m) m2[IM2COL_MAX_RUN][IM2COL_MAX_NV][2]; /* stride 2: the two loads' masks */
#endif
    int nvalid = 0;
    for (int r = 0; r < nrun; r++) {
      const int64_t i0 = s0[r] + q0 * g->dil[0], i1 = s1[r] + q1 * g->dil[1];
      if (i0 < 0 || i0 >= in0 || i1 < 0 || i1 >= in1) continue;
      /* the element lane 0 of register 0 would read (masked-off lanes are not read, so it
       * may lie outside the input: integer arithmetic, not a pointer out of bounds) */
      off[nvalid] = (i0 * in1 + i1) * in2 + s2[r] + q2 * dl2 - at[r] * st2;
      for (int v = 0; v < nv; v++) m[nvalid][v] = IM2COL_F(mask)(mk[r][q2][v]);
#if IM2COL_HAS_S2
      if (st2 == 2)
        for (int v = 0; v < nv; v++) IM2COL_F(s2masks)(mk[r][q2][v], &m2[nvalid][v][0], &m2[nvalid][v][1]);
#endif
      nvalid++;
    }
    float *d = dst + tap * nr;
    uintptr_t xc = (uintptr_t)(xg + ic_first * g->il);
    const uintptr_t xstep = (uintptr_t)(g->il * (int64_t)sizeof(float));
    for (int64_t i = 0; i < nrow; i++, d += step, xc += xstep) {
      IM2COL_F(v) row[IM2COL_MAX_NV];
      for (int v = 0; v < nv; v++) row[v] = IM2COL_ZERO();
      for (int j = 0; j < nvalid; j++)
        for (int v = 0; v < nv; v++) {
          const void *src =
              (const void *)(xc + (uintptr_t)((off[j] + v * IM2COL_VW * st2) * (int64_t)sizeof(float)));
#if IM2COL_HAS_S2
          if (st2 == 2) {
            row[v] = IM2COL_F(load_s2)(row[v], m2[j][v][0], m2[j][v][1], src);
            continue;
          }
#endif
          row[v] = st2 == 1 ? IM2COL_LOAD(row[v], m[j][v], src) : IM2COL_GATHER(row[v], m[j][v], gidx, src);
        }
      for (int v = 0; v < nv - 1; v++) IM2COL_STORE(d + v * IM2COL_VW, row[v]);
      if (tail) /* nr short of whole registers (a panel of MR rows): its last lanes only */
        IM2COL_STORE_PART(d + (nv - 1) * IM2COL_VW, row[nv - 1], tail, tmask);
      else
        IM2COL_STORE(d + (nv - 1) * IM2COL_VW, row[nv - 1]);
    }
  }
}

static bool IM2COL_NAME(const berth_im2col_geom_t *g, const float *xg, int64_t k0, int64_t kc, int64_t j0,
                        int64_t nc, float *dst, int64_t nr) {
  const int64_t in2 = g->in[2];
  const int64_t st2 = g->stride[2], k2 = g->k[2], dl2 = g->dil[2], nv = (nr + IM2COL_VW - 1) / IM2COL_VW;
  if (nv < 1 || nv > IM2COL_MAX_NV || k2 > IM2COL_MAX_K2 || nc > nr ||
      st2 > (INT32_MAX / IM2COL_VW))
    return false;
  int64_t at[IM2COL_MAX_RUN], len[IM2COL_MAX_RUN], s0[IM2COL_MAX_RUN], s1[IM2COL_MAX_RUN], s2[IM2COL_MAX_RUN];
  const int nrun = berth_im2col_runs(g, j0, nc, IM2COL_MAX_RUN, at, len, s0, s1, s2);
  if (nrun < 0) return false;
  /* per run and kernel column: the lanes of each register that read the input; lane L of
   * the row reads input column s2 + q2 * dl2 + (L - at) * st2 */
  uint32_t mk[IM2COL_MAX_RUN][IM2COL_MAX_K2][IM2COL_MAX_NV];
  for (int r = 0; r < nrun; r++)
    for (int64_t c = 0; c < k2; c++) {
      const int64_t i2 = s2[r] + c * dl2;
      int64_t lo, hi; /* run elements o with 0 <= i2 + o * st2 < in2, clamped to [0, len] */
      lo = i2 >= 0 ? 0 : (-i2 + st2 - 1) / st2;
      hi = i2 >= in2 ? 0 : (in2 - 1 - i2) / st2 + 1;
      if (lo > len[r]) lo = len[r];
      if (hi > len[r]) hi = len[r];
      if (hi < lo) hi = lo;
      for (int64_t v = 0; v < nv; v++) {
        uint32_t m = 0;
        for (int64_t b = 0; b < IM2COL_VW; b++) {
          const int64_t o = v * IM2COL_VW + b - at[r];
          if (o >= lo && o < hi) m |= 1u << b;
        }
        mk[r][c][v] = m;
      }
    }
  if (nv == 1)
    IM2COL_F(rows)(g, xg, k0, kc, dst, nr, 1, nrun, at, s0, s1, s2, (const uint32_t(*)[IM2COL_MAX_K2][IM2COL_MAX_NV])mk);
  else
    IM2COL_F(rows)(g, xg, k0, kc, dst, nr, 2, nrun, at, s0, s1, s2, (const uint32_t(*)[IM2COL_MAX_K2][IM2COL_MAX_NV])mk);
  return true;
}

#undef IM2COL_ZERO
#undef IM2COL_LOAD
#undef IM2COL_GATHER
#undef IM2COL_STORE
#undef IM2COL_STORE_PART
#undef IM2COL_HAS_S2
#undef IM2COL_VW
#undef IM2COL_VB
#undef IM2COL_MAX_RUN
#undef IM2COL_MAX_K2
#undef IM2COL_MAX_NV
#undef IM2COL_F
#undef IM2COL_C
#undef IM2COL_C2
