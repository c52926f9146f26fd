/* The f32 pooling plane kernel of a kernel variant (kernel_isa.h's pool2d_f32), written once
 * with GCC/clang vector types and included by each variant's file:
 *
 *   #define PL_VB 32                 // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define PL_NAME isa_32_pool2d_f32
 *   #define PL_LINKAGE               // optional: empty for an external function (default static)
 *   #include "kernel_pool_ukr.h"
 *
 * Max and average pooling of 2-D planes, stride 1 or 2 along the columns, any kernel, row
 * stride, row dilation and padding (the caller, kernel_pool.c, checks the rest). Each input
 * row is copied once per plane into a ring of padded rows (the pad value is -inf for max and
 * +0 for average, written once per call; stride 2 deinterleaves the row as it copies it, the
 * even padded columns in the first half of the slot and the odd ones in the second, as
 * kernel_dw_ukr.h does), so every tap of an output vector is one plain load and the plane's
 * borders need no branches. Vectors run along an output row, up to four at a time (each
 * output is a chain of dependent max or add instructions); the last one starts at ow - VW and
 * overlaps the one before (it computes the same values again).
 *
 * 3x3 windows at row stride 1 go four output rows at a time (kernel_isa.h's BERTH_POOL_BLOCKS);
 * 3x3 max at stride 2 reads the input in place, rows reduced in registers (PL_F(s2max)).
 * Small planes (g->lw > 0) take another layout: planes in the lanes (below), any column stride.
 *
 * Every output is the scalar walk's (kernel_pool.c's POOL_WALK), bit for bit, on every variant:
 * each output's taps are taken rows ascending, then columns ascending. Max starts from -inf and
 * takes a tap when it is greater (m = t > m ? t : m: the first of equal values stays, so -0 and
 * +0 come out as the walk's, and NaNs are skipped); a -inf result (a window of NaNs and -infs
 * alone) is recomputed by the walk's scalar rule. Average adds from +0 (the padding's +0 never
 * changes such a sum: it is never -0) and divides by rdiv[o1] * cdiv[o], products of small
 * integers (exact), the walk's divisor. No fused operations, no allocation, no stdio. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#define PL_VW (PL_VB / 4)
#define PL_C2(a, b) a##b
#define PL_C(a, b) PL_C2(a, b)
#define PL_F(x) PL_C(PL_NAME, _##x)
#ifndef PL_LINKAGE
#define PL_LINKAGE static
#endif

#define PL_PRAGMA(x) _Pragma(#x)
#define PL_UNROLL(n) PL_PRAGMA(GCC unroll n)

#define VEC_VB PL_VB
#define VEC_F(x) PL_F(x)
#include "kernel_vec.h"

#define VR_VB PL_VB
#define VR_F(x) PL_F(x)
#include "kernel_vec_rows.h"

/* NV vectors of one output row starting at columns j[v]: n rows r[q], taps at r[q] + j + off[t]
 * (K constant for 2 and 3; 0: g->kw taps). */
static inline __attribute__((always_inline)) void PL_F(vecs)(int K, int NV, int max, const berth_pool_geom_t *g,
                                                             const float *const *r, int n, const int64_t *off,
                                                             const int64_t *j, float *y, PL_F(vf) div0,
                                                             PL_F(vf) *ninf) {
  typedef PL_F(vf) vf;
  const int64_t kw = K ? K : g->kw;
  vf a[4];
  for (int v = 0; v < NV; v++) a[v] = PL_F(splat)(max ? -INFINITY : 0.0f);
  for (int q = 0; q < n; q++) {
    const float *x = r[q];
    for (int64_t t = 0; t < kw; t++) {
      const float *xt = x + off[t];
      for (int v = 0; v < NV; v++) {
        const vf l = PL_F(ld)(xt + j[v]);
        a[v] = max ? PL_F(vmax)(l, a[v]) : a[v] + l;
      }
    }
  }
  for (int v = 0; v < NV; v++) {
    const vf o = max ? a[v] : a[v] / (div0 * PL_F(ld)(g->cdiv + j[v]));
    if (max) { /* -inf lanes marked with a NaN (the maximum of that lane and -inf is never one) */
      typedef int32_t vi __attribute__((vector_size(PL_VB)));
      *ninf = (vf)((vi)*ninf | ((vi)(o == PL_F(splat)(-INFINITY)) & (vi)PL_F(splat)(NAN)));
    }
    if (NV == 1 && g->ow < PL_VW) PL_F(st_part)(y, o, g->ow);
    else PL_F(st)(y + j[v], o);
  }
}

/* One output row: vectors four at a time, then two, then one (the last starts at ow - VW). */
static inline __attribute__((always_inline)) void PL_F(row)(int K, int max, const berth_pool_geom_t *g,
                                                            const float *const *r, int n, const int64_t *off,
                                                            float *y, float rdiv, PL_F(vf) *ninf) {
  const int64_t ow = g->ow, nv = ow < PL_VW ? 1 : (ow + PL_VW - 1) / PL_VW;
  const PL_F(vf) div0 = PL_F(splat)(rdiv);
  int64_t v = 0, j[4];
  for (; v + 4 <= nv; v += 4) {
    for (int i = 0; i < 4; i++) j[i] = (v + i) * PL_VW + PL_VW <= ow ? (v + i) * PL_VW : ow - PL_VW;
    PL_F(vecs)(K, 4, max, g, r, n, off, j, y, div0, ninf);
  }
  for (; v + 2 <= nv; v += 2) {
    for (int i = 0; i < 2; i++) j[i] = (v + i) * PL_VW + PL_VW <= ow ? (v + i) * PL_VW : ow - PL_VW;
    PL_F(vecs)(K, 2, max, g, r, n, off, j, y, div0, ninf);
  }
  if (v < nv) {
    j[0] = ow < PL_VW ? 0 : v * PL_VW + PL_VW <= ow ? v * PL_VW : ow - PL_VW;
    PL_F(vecs)(K, 1, max, g, r, n, off, j, y, div0, ninf);
  }
}

/* The walk's rule for a max output that came out -inf: the window's valid taps in order,
 * the first taken, then any greater one, or any at all while the maximum is a NaN. */
static float PL_F(walk_max)(const berth_pool_geom_t *g, const float *xc, int64_t o1, int64_t o) {
  const int64_t s1 = o1 * g->sh - g->ph, s2 = o * g->sw - g->pw;
  const int64_t lo2 = s2 < 0 ? -s2 : 0, hi2 = g->kw < g->iw - s2 ? g->kw : g->iw - s2;
  float m = 0;
  int any = 0;
  for (int64_t q = 0; q < g->kh; q++) {
    const int64_t i0 = s1 + q * g->dh;
    if (i0 < 0 || i0 >= g->ih) continue;
    for (int64_t q2 = lo2; q2 < hi2; q2++) {
      const float v = xc[i0 * g->iw + s2 + q2];
      if (!any || v > m || m != m) m = v;
      any = 1;
    }
  }
  return m;
}

/* Where the vectors of output columns [j, ow) start (kernel_dw_ukr.h's rule): a pair j, *j2
 * (j + VW, or ow - VW where the row ends sooner) when it returns 2, one vector at *j1 (ow - VW
 * where the row ends within it) when it returns 1, 0: the row is narrower than a vector. */
static inline int PL_F(starts)(int64_t j, int64_t ow, int64_t *j1, int64_t *j2) {
  const int64_t n = ow - j;
  *j1 = j, *j2 = j + PL_VW;
  if (n >= 2 * PL_VW) return 2;
  if (n > PL_VW) return *j2 = ow - PL_VW, 2;
  if (ow >= PL_VW) return *j1 = ow - PL_VW, 1;
  return 0;
}

/* Four output rows (o = 0..3, input rows r[o * SH ..]) of a 3x3 window, NV vectors at j1, j2:
 * each loaded vector serves every output row whose window holds its row; each output's taps are
 * still taken rows ascending, then columns ascending. Rows over the padding read the pad row. */
static inline __attribute__((always_inline)) void PL_F(blk4)(int SH, int NV, int max, const float *const *r,
                                                             const int64_t *off, float *y, int64_t ow, int64_t j1,
                                                             int64_t j2, const PL_F(vf) *div, const float *cdiv,
                                                             PL_F(vf) *ninf) {
  typedef PL_F(vf) vf;
  typedef int32_t vi __attribute__((vector_size(PL_VB)));
  enum { NR = 4, K = 3 };
  const int rows = (NR - 1) * SH + K;
  vf a[NR][2];
  PL_UNROLL(4) for (int o = 0; o < NR; o++) a[o][0] = a[o][1] = PL_F(splat)(max ? -INFINITY : 0.0f);
  PL_UNROLL(9) for (int ii = 0; ii < rows; ii++) {
    const float *x = r[ii];
    PL_UNROLL(3) for (int t = 0; t < K; t++) {
      const vf x0 = PL_F(ld)(x + j1 + off[t]), x1 = NV == 2 ? PL_F(ld)(x + j2 + off[t]) : x0;
      PL_UNROLL(4) for (int o = 0; o < NR; o++) {
        const int q = ii - o * SH;
        if (q < 0 || q >= K) continue;
        a[o][0] = max ? PL_F(vmax)(x0, a[o][0]) : a[o][0] + x0;
        if (NV == 2) a[o][1] = max ? PL_F(vmax)(x1, a[o][1]) : a[o][1] + x1;
      }
    }
  }
  PL_UNROLL(4) for (int o = 0; o < NR; o++) {
    for (int v = 0; v < (NV == 2 ? 2 : 1); v++) {
      const int64_t j = v ? j2 : j1;
      const vf out = max ? a[o][v] : a[o][v] / (div[o] * PL_F(ld)(cdiv + j));
      if (max) *ninf = (vf)((vi)*ninf | ((vi)(out == PL_F(splat)(-INFINITY)) & (vi)PL_F(splat)(NAN)));
      if (NV == 0) PL_F(st_part)(y + o * ow, out, ow);
      else PL_F(st)(y + o * ow + j, out);
    }
  }
}

/* A plane of 3x3 windows, row stride SH 1 or 2, at least four output rows, in blocks of four
 * rows (the last block overlaps the one before and writes the same values again); the ring
 * holds a block's 3 * SH + 3 rows, and the pad row after it stands for rows over the padding. */
static inline __attribute__((always_inline)) void PL_F(blocks)(int SH, int max, const berth_pool_geom_t *g,
                                                               const float *xc, float *yc, float *buf, int64_t *tag,
                                                               const int64_t *off, PL_F(vf) *ninf) {
  const int64_t R = g->row, S = g->slots, ow = g->ow;
  const int rows = 3 * SH + 3;
  const float *pad = buf + S * R;
  for (int64_t o0 = 0; o0 < g->oh; o0 += 4) {
    if (o0 + 4 > g->oh) o0 = g->oh - 4;
    const float *r[9];
    for (int ii = 0; ii < rows; ii++) {
      const int64_t i0 = o0 * SH - g->ph + ii;
      if (i0 < 0 || i0 >= g->ih) {
        r[ii] = pad;
        continue;
      }
      float *row = buf + (i0 & (S - 1)) * R;
      if (tag[i0 & (S - 1)] != i0) {
        if (g->sw == 1) PL_F(copy)(row + g->pw, xc + i0 * g->iw, g->iw);
        else PL_F(copy2)(row, row + R / 2, xc + i0 * g->iw, g->iw, g->pw);
        tag[i0 & (S - 1)] = i0;
      }
      r[ii] = row;
    }
    PL_F(vf) div[4];
    for (int o = 0; o < 4; o++) div[o] = PL_F(splat)(max ? 1.0f : g->rdiv[o0 + o]);
    float *y = yc + o0 * ow;
    for (int64_t j = 0; j < ow; j += 2 * PL_VW) {
      int64_t j1, j2;
      const int nv = PL_F(starts)(j, ow, &j1, &j2);
      if (nv == 2) PL_F(blk4)(SH, 2, max, r, off, y, ow, j1, j2, div, g->cdiv, ninf);
      else if (nv == 1) PL_F(blk4)(SH, 1, max, r, off, y, ow, j1, j2, div, g->cdiv, ninf);
      else PL_F(blk4)(SH, 0, max, r, off, y, ow, j1, j2, div, g->cdiv, ninf);
    }
  }
}

/* ---- 3x3 stride 2 max, rows reduced in registers --------------------------------------------
 * Max pooling with 3x3 windows at stride 2 in both dims, pads of at most 1 at the start (the
 * CNNs' first pools: 112x112, 111x111, 56x56 planes) reads the input in place, no ring: each
 * input row's three taps of VW outputs (columns 2o - pw + t) come from two pairs of loads
 * deinterleaved in registers, reduced along the row (taps ascending, from -inf), and each output
 * is the maximum of its rows' reductions, rows ascending: the walk's order, so the first of
 * equal values stays, as in the ring. The reduction of a window's last row is also the next
 * window's first (row stride 2), so it is kept for it (buf: one vector per output vector).
 * Interior vectors use the one-instruction deinterleave of the variant (its lanes come out
 * scrambled: PL_SUNS puts them back before the store); the first vector over the left pad reads
 * from column 0 and shifts the odd columns in behind a -inf, the last one where the loads would
 * pass the row reads its last tap as a scalar (-inf past the row). Output rows go in order
 * across the plane (measured against vectors each down the whole plane: 111x111 planes 246 ->
 * 203 us). Measured on AVX2 against the ring (kernel alone, warm): 64 x 112 x 112 pads 1,
 * 198 -> 138 us; 192 x 56 x 56 ceil, 202 -> 116 us; 96 x 111 x 111 ceil, 314 -> 203 us. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define PL_S2 1
#if PL_VW == 4
#define PL_SEV(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6)
#define PL_SOD(a, b) __builtin_shufflevector(a, b, 1, 3, 5, 7)
#define PL_SUNS(v) (v)
#define PL_EV(a, b) PL_SEV(a, b)
#define PL_OD(a, b) PL_SOD(a, b)
#define PL_SHR(n, v) __builtin_shufflevector(n, v, 0, 4, 5, 6)
#define PL_SHL(v, n) __builtin_shufflevector(v, n, 1, 2, 3, 4)
#elif PL_VW == 8
#define PL_SEV(a, b) __builtin_shufflevector(a, b, 0, 2, 8, 10, 4, 6, 12, 14)
#define PL_SOD(a, b) __builtin_shufflevector(a, b, 1, 3, 9, 11, 5, 7, 13, 15)
#define PL_SUNS(v) __builtin_shufflevector(v, v, 0, 1, 4, 5, 2, 3, 6, 7)
#define PL_EV(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14)
#define PL_OD(a, b) __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15)
#define PL_SHR(n, v) __builtin_shufflevector(n, v, 0, 8, 9, 10, 11, 12, 13, 14)
#define PL_SHL(v, n) __builtin_shufflevector(v, n, 1, 2, 3, 4, 5, 6, 7, 8)
#else
#define PL_SEV(a, b) __builtin_shufflevector(a, b, 0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30)
#define PL_SOD(a, b) __builtin_shufflevector(a, b, 1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31)
#define PL_SUNS(v) __builtin_shufflevector(v, v, 0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15)
#define PL_EV(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
#define PL_OD(a, b) __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)
#define PL_SHR(n, v) __builtin_shufflevector(n, v, 0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30)
#define PL_SHL(v, n) __builtin_shufflevector(v, n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
#endif

#ifndef PL_S2_KINDS /* once per file that includes this header more than once */
#define PL_S2_KINDS
enum { PL_S2_MID, PL_S2_LEFT, PL_S2_RIGHT };
#endif

/* The vectors' kind: the first over the left pad, the last where the loads would pass the row. */
static inline int PL_F(s2_kind)(const berth_pool_geom_t *g, int64_t j, int last) {
  const int64_t b = 2 * j - g->pw;
  if (b < 0) return PL_S2_LEFT;
  return last && b + 2 * PL_VW + 2 > g->iw ? PL_S2_RIGHT : PL_S2_MID;
}

/* Whether the plane takes the path: the windows, and each vector's loads inside its row. */
static int PL_F(s2_fits)(const berth_pool_geom_t *g) {
  if (!g->max || g->kh != 3 || g->kw != 3 || g->sh != 2 || g->sw != 2 || g->dh != 1 || g->ph > 1 || g->pw > 1 ||
      g->ow < PL_VW || 2 * PL_VW > g->iw)
    return 0;
  const int64_t j = g->ow - PL_VW, b = 2 * j - g->pw;
  return b < 0 || b + 2 * PL_VW <= g->iw; /* the left vector's loads end at 2 VW, the right one's at b + 2 VW */
}

/* The row reduction of the VW outputs at j of input row x (kind k; a middle one's lanes scrambled). */
static inline __attribute__((always_inline)) PL_F(vf) PL_F(s2_row)(int k, const berth_pool_geom_t *g,
                                                                   const float *x, int64_t j) {
  typedef PL_F(vf) vf;
  const vf ninf = PL_F(splat)(-INFINITY);
  const int64_t b = 2 * j - g->pw;
  vf t0, t1, t2;
  if (k == PL_S2_MID) {
    const vf a = PL_F(ld)(x + b), c = PL_F(ld)(x + b + PL_VW), a2 = PL_F(ld)(x + b + 2), c2 = PL_F(ld)(x + b + 2 + PL_VW);
    t0 = PL_SEV(a, c), t1 = PL_SOD(a, c), t2 = PL_SEV(a2, c2);
  } else if (k == PL_S2_LEFT) { /* b = -1: taps x[2v - 1] (a -inf first), x[2v], x[2v + 1] */
    const vf a = PL_F(ld)(x), c = PL_F(ld)(x + PL_VW), od = PL_OD(a, c);
    t0 = PL_SHR(ninf, od), t1 = PL_EV(a, c), t2 = od;
  } else { /* taps x[b + 2v], x[b + 2v + 1], x[b + 2v + 2], the last one x[b + 2 VW] or past the row */
    const vf a = PL_F(ld)(x + b), c = PL_F(ld)(x + b + PL_VW), ev = PL_EV(a, c);
    const vf tail = PL_F(splat)(b + 2 * PL_VW < g->iw ? x[b + 2 * PL_VW] : -INFINITY);
    t0 = ev, t1 = PL_OD(a, c), t2 = PL_SHL(ev, tail);
  }
  vf h = PL_F(vmax)(t0, ninf);
  h = PL_F(vmax)(t1, h);
  return PL_F(vmax)(t2, h);
}

/* Output row o1's vector at j (kind k): its rows' reductions, the last one kept in *h for the next
 * output row (whose first row it is). */
static inline __attribute__((always_inline)) void PL_F(s2_out)(int k, const berth_pool_geom_t *g, const float *xc,
                                                               float *yc, int64_t o1, int64_t j, PL_F(vf) *h,
                                                               PL_F(vf) *ninf) {
  typedef PL_F(vf) vf;
  typedef int32_t vi __attribute__((vector_size(PL_VB)));
  const int64_t r1 = 2 * o1 - g->ph + 1;
  vf acc = *h; /* row r1 - 1's reduction, or -inf over the pad */
  if (r1 < g->ih) acc = PL_F(vmax)(PL_F(s2_row)(k, g, xc + r1 * g->iw, j), acc);
  if (r1 + 1 < g->ih) {
    *h = PL_F(s2_row)(k, g, xc + (r1 + 1) * g->iw, j);
    acc = PL_F(vmax)(*h, acc);
  }
  *ninf = (vf)((vi)*ninf | ((vi)(acc == PL_F(splat)(-INFINITY)) & (vi)PL_F(splat)(NAN)));
  PL_F(st)(yc + o1 * g->ow + j, k == PL_S2_MID ? PL_SUNS(acc) : acc);
}

/* A plane, output rows in order: the first vector, the middle ones, the last one (kept
 * reductions: hb, one vector per output vector, at most ow + VW floats: the caller's buf, whose
 * first slot alone holds 2 * max(ow, 16) + 2). */
static void PL_F(s2max)(const berth_pool_geom_t *g, const float *xc, float *yc, float *hb, PL_F(vf) *ninf) {
  typedef PL_F(vf) vf;
  const int64_t ow = g->ow, nv = (ow + PL_VW - 1) / PL_VW, jl = ow - PL_VW;
  const int k0 = PL_F(s2_kind)(g, 0, nv == 1), kl = PL_F(s2_kind)(g, jl, 1);
  for (int64_t v = 0; v < nv; v++) {
    const int64_t j = v < nv - 1 ? v * PL_VW : jl;
    const int k = v == 0 ? k0 : v == nv - 1 ? kl : PL_S2_MID;
    vf h = PL_F(splat)(-INFINITY);
    if (g->ph == 0) { /* row 0: the first output row's first */
      if (k == PL_S2_MID) h = PL_F(s2_row)(PL_S2_MID, g, xc, j);
      else if (k == PL_S2_LEFT) h = PL_F(s2_row)(PL_S2_LEFT, g, xc, j);
      else h = PL_F(s2_row)(PL_S2_RIGHT, g, xc, j);
    }
    PL_F(st)(hb + v * PL_VW, h);
  }
  for (int64_t o1 = 0; o1 < g->oh; o1++) {
    int64_t v = 0;
    vf h = PL_F(ld)(hb);
    if (k0 == PL_S2_LEFT) PL_F(s2_out)(PL_S2_LEFT, g, xc, yc, o1, 0, &h, ninf);
    else if (k0 == PL_S2_MID) PL_F(s2_out)(PL_S2_MID, g, xc, yc, o1, 0, &h, ninf);
    else PL_F(s2_out)(PL_S2_RIGHT, g, xc, yc, o1, 0, &h, ninf);
    PL_F(st)(hb, h);
    for (v = 1; v < nv - 1; v++) {
      h = PL_F(ld)(hb + v * PL_VW);
      PL_F(s2_out)(PL_S2_MID, g, xc, yc, o1, v * PL_VW, &h, ninf);
      PL_F(st)(hb + v * PL_VW, h);
    }
    if (nv > 1) {
      h = PL_F(ld)(hb + v * PL_VW);
      if (kl == PL_S2_MID) PL_F(s2_out)(PL_S2_MID, g, xc, yc, o1, jl, &h, ninf);
      else PL_F(s2_out)(PL_S2_RIGHT, g, xc, yc, o1, jl, &h, ninf);
      PL_F(st)(hb + v * PL_VW, h);
    }
  }
}
#else
static int PL_F(s2_fits)(const berth_pool_geom_t *g) {
  (void)g;
  return 0;
}
static void PL_F(s2max)(const berth_pool_geom_t *g, const float *xc, float *yc, float *hb, PL_F(vf) *ninf) {
  (void)g, (void)xc, (void)yc, (void)hb, (void)ninf;
}
#endif

/* One plane: output rows in order, each input row copied once into its ring slot. */
static void PL_F(plane)(const berth_pool_geom_t *g, int max, const float *xc, float *yc, float *buf) {
  const int64_t R = g->row, S = g->slots;
  int64_t tag[BERTH_POOL_MAX_SLOTS], off[BERTH_POOL_MAX_KW];
  for (int64_t s = 0; s < S; s++) tag[s] = -1;
  for (int64_t t = 0; t < g->kw; t++) off[t] = g->sw == 1 ? t : (t & 1) * (R / 2) + (t >> 1);
  PL_F(vf) ninf = PL_F(splat)(0.0f);
  int64_t o1 = 0;
  if (PL_F(s2_fits)(g)) {
    PL_F(s2max)(g, xc, yc, buf, &ninf);
    o1 = g->oh;
  } else if (BERTH_POOL_BLOCKS(g->kh, g->kw, g->sh, g->dh, g->oh) && S >= 3 * g->sh + 3) {
    if (max) PL_F(blocks)(1, 1, g, xc, yc, buf, tag, off, &ninf); /* row stride 1 (BERTH_POOL_BLOCKS) */
    else PL_F(blocks)(1, 0, g, xc, yc, buf, tag, off, &ninf);
    o1 = g->oh;
  }
  for (; o1 < g->oh; o1++) {
    const float *r[BERTH_POOL_MAX_SLOTS];
    int n = 0;
    const int64_t s1 = o1 * g->sh - g->ph;
    for (int64_t q = 0; q < g->kh; q++) {
      const int64_t i0 = s1 + q * g->dh;
      if (i0 < 0 || i0 >= g->ih) continue;
      float *row = buf + (i0 & (S - 1)) * R;
      if (tag[i0 & (S - 1)] != i0) {
        if (g->sw == 1) PL_F(copy)(row + g->pw, xc + i0 * g->iw, g->iw);
        else PL_F(copy2)(row, row + R / 2, xc + i0 * g->iw, g->iw, g->pw);
        tag[i0 & (S - 1)] = i0;
      }
      r[n++] = row;
    }
    float *yr = yc + o1 * g->ow;
    if (max) {
      if (g->kw == 3) PL_F(row)(3, 1, g, r, n, off, yr, 1.0f, &ninf);
      else if (g->kw == 2) PL_F(row)(2, 1, g, r, n, off, yr, 1.0f, &ninf);
      else PL_F(row)(0, 1, g, r, n, off, yr, 1.0f, &ninf);
    } else if (g->kw == 3) {
      PL_F(row)(3, 0, g, r, n, off, yr, g->rdiv[o1], &ninf);
    } else if (g->kw == 2) {
      PL_F(row)(2, 0, g, r, n, off, yr, g->rdiv[o1], &ninf);
    } else {
      PL_F(row)(0, 0, g, r, n, off, yr, g->rdiv[o1], &ninf);
    }
  }
  int any = 0; /* a -inf is rare: one test per plane, then the walk for each */
  for (int i = 0; i < PL_VW; i++) any |= ninf[i] != ninf[i];
  for (int64_t i = 0; any && i < g->oh * g->ow; i++)
    if (yc[i] == -INFINITY) yc[i] = PL_F(walk_max)(g, xc, i / g->ow, i % g->ow);
}

/* ---- planes in the lanes ----------------------------------------------------------------
 * Small planes (g->lw > 0, kernel_pool.c's rule): VW planes at a time are copied into one padded
 * plane of vectors, lane p holding plane p (buf: lh rows of lw vectors spaced VW floats, which
 * kernel_pool.c sizes for BERTH_POOL_MAX_LANES; the pad value around the data written once per
 * call), so that one vector of taps serves VW planes' outputs whatever the plane's width; each
 * output's taps are taken rows ascending, then columns ascending, as in the walk. The outputs'
 * vectors go to oh * ow more vectors after the plane, then to the planes' outputs (measured on
 * AVX2 against the ring, one-node models: 832 planes of 7x7, 3x3 max, 82 -> 32 us; 256 planes
 * of 27x27, 3x3 stride 2 max, 130 -> 75 us; but 28x28 outputs 2-3x slower, hence kernel_pool.c's
 * bound). Both copies take VW
 * consecutive elements of each plane through a VW x VW transpose where the variant has one
 * (4, 8 and 16 lanes) and the plane holds VW elements (the last block overlaps the one before),
 * else element by element. A last group of fewer planes leaves the other lanes as they were
 * (never stored). */
#if PL_VW == 4 || PL_VW == 8 || PL_VW == 16
#define PL_TR 1
/* r[i][j] <- r[j][i] (PL_F(tr), kernel_vec_tr.h) */
#define VT_W PL_VW
#define VT_F(x) PL_F(x)
#include "kernel_vec_tr.h"
#endif

/* The planes' copies in and out of the lanes (kernel_vec_lanes.h) */
#define VL_VW PL_VW
#define VL_F(x) PL_F(x)
#ifdef PL_TR
#define VL_TR 1
#endif
#include "kernel_vec_lanes.h"

static void PL_F(lanes_fill)(const berth_pool_geom_t *g, const float *x, int np, float *b) {
  PL_F(lanes_copy_in)(x, g->ih, g->iw, g->lw, np, b + (g->ph * g->lw + g->pw) * PL_VW);
}

/* The outputs' vectors ob of the filled b (the first np lanes tested for -inf). */
static inline __attribute__((always_inline)) void PL_F(lanes_out)(int K, int max, const berth_pool_geom_t *g,
                                                                  const float *b, float *ob, PL_F(vf) *ninf) {
  typedef PL_F(vf) vf;
  typedef int32_t vi __attribute__((vector_size(PL_VB)));
  enum { L = PL_VW };
  const int64_t kh = g->kh, kw = K ? K : g->kw, ow = g->ow;
  const int64_t rs = g->dh * g->lw * L, cs = g->sw * L;
  for (int64_t o1 = 0; o1 < g->oh; o1++) {
    const float *bo = b + o1 * g->sh * g->lw * L;
    const float rd = max ? 1.0f : g->rdiv[o1];
    for (int64_t o = 0; o < ow; o++, bo += cs, ob += L) {
      vf a = PL_F(splat)(max ? -INFINITY : 0.0f);
      for (int64_t q = 0; q < kh; q++) {
        const float *bq = bo + q * rs;
        for (int64_t t = 0; t < kw; t++) {
          const vf v = PL_F(ld)(bq + t * L);
          a = max ? PL_F(vmax)(v, a) : a + v;
        }
      }
      if (max) *ninf = (vf)((vi)*ninf | ((vi)(a == PL_F(splat)(-INFINITY)) & (vi)PL_F(splat)(NAN)));
      else a = a / PL_F(splat)(rd * g->cdiv[o]);
      PL_F(st)(ob, a);
    }
  }
}

static void PL_F(lanes)(const berth_pool_geom_t *g, int64_t planes, const float *x, float *y, float *b) {
  const float pad = g->max ? -INFINITY : 0.0f;
  const int64_t nb = g->lh * g->lw * PL_VW, il = g->ih * g->iw, l = g->oh * g->ow;
  float *ob = b + nb;
  for (int64_t i = 0; i < nb; i++) b[i] = pad;
  for (int64_t c = 0; c < planes; c += PL_VW) {
    const int np = planes - c < PL_VW ? (int)(planes - c) : PL_VW;
    const float *xc = x + c * il;
    float *yc = y + c * l;
    PL_F(vf) ninf = PL_F(splat)(0.0f);
    PL_F(lanes_fill)(g, xc, np, b);
    if (g->max && g->kw == 3) PL_F(lanes_out)(3, 1, g, b, ob, &ninf);
    else if (g->max) PL_F(lanes_out)(0, 1, g, b, ob, &ninf);
    else if (g->kw == 3) PL_F(lanes_out)(3, 0, g, b, ob, &ninf);
    else PL_F(lanes_out)(0, 0, g, b, ob, &ninf);
    PL_F(lanes_copy_out)(ob, l, np, yc);
    int any = 0; /* a -inf is rare: one test per group, then the walk for each */
    for (int i = 0; i < np; i++) any |= ninf[i] != ninf[i];
    for (int p = 0; any && p < np; p++)
      for (int64_t i = 0; i < l; i++)
        if (yc[p * l + i] == -INFINITY) yc[p * l + i] = PL_F(walk_max)(g, xc + p * il, i / g->ow, i % g->ow);
  }
}

PL_LINKAGE void PL_NAME(const berth_pool_geom_t *g, int64_t planes, const float *x, float *y, float *buf) {
  if (g->lw > 0) {
    PL_F(lanes)(g, planes, x, y, buf);
    return;
  }
  const float pad = g->max ? -INFINITY : 0.0f;
  for (int64_t i = 0; i < (g->slots + 1) * g->row; i++) buf[i] = pad;
  const int64_t il = g->ih * g->iw, l = g->oh * g->ow;
  for (int64_t c = 0; c < planes; c++) PL_F(plane)(g, g->max, x + c * il, y + c * l, buf);
}

#undef PL_VW
#undef PL_C2
#undef PL_C
#undef PL_F
#undef PL_LINKAGE
#undef PL_VB
#undef PL_NAME
#undef PL_PRAGMA
#undef PL_UNROLL
#undef PL_TR
#undef PL_S2
#undef PL_SEV
#undef PL_SOD
#undef PL_SUNS
#undef PL_EV
#undef PL_OD
#undef PL_SHR
#undef PL_SHL
