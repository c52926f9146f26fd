/* The depthwise-convolution plane kernel of a kernel variant (kernel_isa.h's
 * dwconv_f32), written once with GCC/clang vector types and included by each
 * variant's file:
 *
 *   #define DW_VB 32            // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define DW_NAME isa_32_dwconv_f32
 *   #define DW_LANES_NAME isa_32_dwconv_lanes_f32   // planes in the lanes (kernel_dw_lanes_ukr.h)
 *   #define DW_LINKAGE          // optional: empty for external functions (default static)
 *   #include "kernel_dw_ukr.h"
 *
 * The structure of XNNPACK's CHW depthwise kernels: vectors run along an output
 * row. The input rows a row of outputs reads are copied into zero-padded rows
 * of the caller's buffer (once per plane when the ring of rows fits,
 * kernel_isa.h's berth_dw_geom_t), so the left and right padding and the last
 * vectors need no branches: every output column reads inside its padded row.
 * A plane's last vector starts at ow - VW (it overlaps the one before and
 * writes the same values again), so no store is partial unless the plane is
 * narrower than a vector. Stride 2 deinterleaves each input row once as it
 * copies it (the even padded columns in the first half of the slot, the odd
 * ones in the second), so every tap is one plain load, as with stride 1. The
 * loops over kernel rows, taps and output rows are unrolled (GCC's unroll
 * pragmas: without them GCC 12 keeps the sums and weights of the row blocks in
 * memory and branches per tap). Each output sums from the bias, the kernel
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
/* the unrolled loops, unless the including file asks for rolled ones (DW_ROLLED: the
 * portable variant, whose frame counts in the small runtime's stack bound, tools/stack) */
#define DW_PRAGMA(x) _Pragma(#x)
#ifdef DW_ROLLED
#define DW_UNROLL(n)
#else
#define DW_UNROLL(n) DW_PRAGMA(GCC unroll n)
#endif

#define VEC_VB DW_VB
#define VEC_F(x) DW_F(x)
#include "kernel_vec.h"

#define VR_VB DW_VB
#define VR_F(x) DW_F(x)
#include "kernel_vec_rows.h"

/* An input row into its slot: columns [pw, pw + iw) (stride 1), or
 * deinterleaved into the slot's halves (stride 2). */
static inline void DW_F(fill)(const berth_dw_geom_t *g, float *row, const float *x) {
  if (g->sw == 1)
    DW_F(copy)(row + g->pw, x, g->iw);
  else
    DW_F(copy2)(row, row + g->row / 2, x, g->iw, g->pw);
}
/* Where the vectors of output columns [j, ow) start: the pair j, *j2 (with
 * *j2 = j + VW, or ow - VW where the plane ends sooner: it overlaps the first,
 * whose values it recomputes with the same bits) when it returns 2; one vector
 * at *j1 (ow - VW where the plane ends within it) when it returns 1; 0: the
 * plane is narrower than a vector (one partial vector at j = 0). */
static inline int DW_F(starts)(int64_t j, int64_t ow, int64_t *j1, int64_t *j2) {
  const int64_t n = ow - j;
  *j1 = j, *j2 = j + DW_VW;
  if (n >= 2 * DW_VW) return 2;
  if (n > DW_VW) return *j2 = ow - DW_VW, 2;
  if (ow >= DW_VW) return *j1 = ow - DW_VW, 1;
  return 0;
}
/* Where the taps of an output vector starting at column j read in a slot: at
 * r + j * s1 + off[t] (stride 1: s1 = 1, off[t] = t * dw; stride 2: the
 * deinterleaved slot of copy2, s1 = 1, off[t] = (t * dw & 1) * half + (t * dw >>
 * 1)). */
static inline void DW_F(taps)(const berth_dw_geom_t *g, int64_t off[5]) {
  for (int64_t t = 0; t < g->kw && t < 5; t++)
    off[t] = g->sw == 1 ? t * g->dw : (t * g->dw & 1) * (g->row / 2) + (t * g->dw >> 1);
}

/* One row of ow outputs: n kernel rows, r[q] the slot of kernel row q, wr[q]
 * its KW weights. Vectors go in pairs (DW_F(starts)); the padded rows cover a
 * whole last pair. KW is a constant once inlined. */
static inline __attribute__((always_inline)) void DW_F(row)(int KW, const float *const *r, const float *const *wr,
                                                            int n, const int64_t *off, float bias, float *y,
                                                            int64_t ow) {
  typedef DW_F(vf) vf;
  const vf vb = DW_F(splat)(bias);
  for (int64_t j = 0; j < ow; j += 2 * DW_VW) {
    int64_t j1, j2;
    const int nv = DW_F(starts)(j, ow, &j1, &j2);
    vf a0 = vb, a1 = vb;
    for (int q = 0; q < n; q++) {
      const float *x = r[q], *w = wr[q];
      DW_UNROLL(8) for (int t = 0; t < KW; t++) {
        const vf wv = DW_F(splat)(w[t]);
        a0 += wv * DW_F(ld)(x + j1 + off[t]);
        if (nv == 2) a1 += wv * DW_F(ld)(x + j2 + off[t]);
      }
    }
    if (nv == 0)
      DW_F(st_part)(y, a0, ow);
    else
      DW_F(st)(y + j1, a0);
    if (nv == 2) DW_F(st)(y + j2, a1);
  }
}

/* Four output rows (o = 0..3, input rows from r[o * SH]) of a KxK kernel with
 * row stride SH and row dilation 1, NV vectors (DW_F(starts)'s count) at j1,
 * j2: each loaded input vector serves every output row whose window holds its
 * row, and the K * K weights stay broadcast in registers (or the compiler's
 * spill slots). The terms of each output are added in the order of row's:
 * kernel rows, then taps. K, SH and NV are constants once inlined, and the
 * loops unrolled, so the sums stay in registers. */
static inline __attribute__((always_inline)) void DW_F(blk4)(int K, int SH, int NV, const float *const *r,
                                                             const DW_F(vf) (*wv)[5], const int64_t *off,
                                                             DW_F(vf) vb, float *y, int64_t ow, int64_t j1,
                                                             int64_t j2) {
  typedef DW_F(vf) vf;
  enum { NR = 4 };
  const int rows = (NR - 1) * SH + K;
  vf a[NR][2];
  DW_UNROLL(4) for (int o = 0; o < NR; o++) a[o][0] = a[o][1] = vb;
  DW_UNROLL(16) for (int ii = 0; ii < rows; ii++) {
    const float *x = r[ii];
    DW_UNROLL(8) for (int t = 0; t < K; t++) {
      const vf x0 = DW_F(ld)(x + j1 + off[t]), x1 = NV == 2 ? DW_F(ld)(x + j2 + off[t]) : vb;
      DW_UNROLL(4) for (int o = 0; o < NR; o++) {
        const int q = ii - o * SH;
        if (q < 0 || q >= K) continue;
        a[o][0] += wv[q][t] * x0;
        if (NV == 2) a[o][1] += wv[q][t] * x1;
      }
    }
  }
  DW_UNROLL(4) for (int o = 0; o < NR; o++) {
    if (NV == 0)
      DW_F(st_part)(y + o * ow, a[o][0], ow);
    else
      DW_F(st)(y + o * ow + j1, a[o][0]);
    if (NV == 2) DW_F(st)(y + o * ow + j2, a[o][1]);
  }
}
static inline __attribute__((always_inline)) void DW_F(rows4)(int K, int SH, const float *const *r, const float *w,
                                                              const int64_t *off, float bias, float *y,
                                                              int64_t ow) {
  typedef DW_F(vf) vf;
  vf wv[5][5];
  DW_UNROLL(8) for (int q = 0; q < K; q++) DW_UNROLL(8) for (int t = 0; t < K; t++)
      wv[q][t] = DW_F(splat)(w[q * K + t]);
  const vf vb = DW_F(splat)(bias);
  for (int64_t j = 0; j < ow; j += 2 * DW_VW) {
    int64_t j1, j2;
    const int nv = DW_F(starts)(j, ow, &j1, &j2);
    if (nv == 2)
      DW_F(blk4)(K, SH, 2, r, (const vf(*)[5])wv, off, vb, y, ow, j1, j2);
    else if (nv == 1)
      DW_F(blk4)(K, SH, 1, r, (const vf(*)[5])wv, off, vb, y, ow, j1, j2);
    else
      DW_F(blk4)(K, SH, 0, r, (const vf(*)[5])wv, off, vb, y, ow, j1, j2);
  }
}

/* Row blocks of four (kernel_isa.h's berth_dw_geom_t says when): input rows
 * outside the plane read the zero row after the slots. Returns the first output
 * row not done: all of them, or 0 for a plane of fewer than four rows. */
static int64_t DW_F(blocks)(const berth_dw_geom_t *g, const float *x, const float *w, float bias, float *y, float *buf,
                            int64_t *tag, const int64_t *off) {
  const int64_t R = g->row, S = g->slots, sh = g->sh, k = g->kh;
  const int rows = (int)(3 * sh + k);
  const float *zero = buf + S * R;
  if (g->oh < 4) return 0;
  int64_t o0 = 0;
  /* the last block ends at the last row, overlapping the one before where oh is
   * not a multiple of 4 (it writes the same values again) */
  for (; o0 < g->oh; o0 += 4) {
    if (o0 + 4 > g->oh) o0 = g->oh - 4;
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
        DW_F(fill)(g, row, x + i0 * g->iw);
        tag[slot] = i0;
      }
      r[ii] = row;
    }
    float *yr = y + o0 * g->ow;
    const int64_t ow = g->ow;
    if (k == 3 && sh == 1)
      DW_F(rows4)(3, 1, r, w, off, bias, yr, ow);
    else if (k == 3)
      DW_F(rows4)(3, 2, r, w, off, bias, yr, ow);
    else if (sh == 1)
      DW_F(rows4)(5, 1, r, w, off, bias, yr, ow);
    else
      DW_F(rows4)(5, 2, r, w, off, bias, yr, ow);
  }
  return g->oh;
}

/* Output rows o0 .. oh - 1 one at a time (out of line: its frame and the row blocks' are
 * not on the stack together). */
static __attribute__((noinline)) void DW_F(rows)(const berth_dw_geom_t *g, const float *x, const float *w, float bias,
                                                 float *y, float *buf, int64_t *tag, const int64_t *off, int ring,
                                                 int64_t o0) {
  const int64_t R = g->row, S = g->slots;
  for (; o0 < g->oh; o0++) {
    const float *r[DW_MAX_KH], *wr[DW_MAX_KH];
    int n = 0;
    for (int64_t q0 = 0; q0 < g->kh; q0++) {
      const int64_t i0 = o0 * g->sh - g->ph + q0 * g->dh;
      if (i0 < 0 || i0 >= g->ih) continue;
      const int64_t slot = ring ? i0 & (S - 1) : q0;
      float *row = buf + slot * R;
      if (!ring || tag[slot] != i0) {
        DW_F(fill)(g, row, x + i0 * g->iw);
        if (ring) tag[slot] = i0;
      }
      r[n] = row;
      wr[n++] = w + q0 * g->kw;
    }
    float *yr = y + o0 * g->ow;
    if (g->kw == 3)
      DW_F(row)(3, r, wr, n, off, bias, yr, g->ow);
    else
      DW_F(row)(5, r, wr, n, off, bias, yr, g->ow);
  }
}

DW_LINKAGE void DW_NAME(const berth_dw_geom_t *g, const float *x, const float *w, float bias, float *y, float *buf) {
  const int64_t S = g->slots;
  /* a ring of a power of two slots, else one slot per kernel row, copied per
   * output row */
  const int ring = (S & (S - 1)) == 0 && S >= (g->kh - 1) * g->dh + 1;
  int64_t tag[BERTH_DW_MAX_SLOTS], off[5];
  for (int64_t s = 0; s < S && s < BERTH_DW_MAX_SLOTS; s++) tag[s] = -1;
  DW_F(taps)(g, off);
  int64_t o0 = 0;
  if (ring && g->dh == 1 && g->kh == g->kw && (g->sh == 1 || g->sh == 2) && S >= 3 * g->sh + g->kh)
    o0 = DW_F(blocks)(g, x, w, bias, y, buf, tag, off);
  if (o0 < g->oh) DW_F(rows)(g, x, w, bias, y, buf, tag, off, ring, o0);
}

#include "kernel_dw_lanes_ukr.h"

#undef DW_VW
#undef DW_C2
#undef DW_C
#undef DW_F
#undef DW_LINKAGE
#undef DW_MAX_KH
#undef DW_PRAGMA
#undef DW_UNROLL
#undef DW_ROLLED
#undef DW_VB
#undef DW_NAME
