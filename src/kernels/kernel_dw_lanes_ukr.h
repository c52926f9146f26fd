/* Depthwise convolution of small planes with the planes in the vector lanes (kernel_isa.h's
 * dwconv_lanes_f32), included by kernel_dw_ukr.h after its vector preamble (DW_F, DW_VW,
 * DW_LINKAGE, DW_UNROLL; no include guard: once per kernel variant).
 *
 * DW_LANES_NAME names the function (DW_LINKAGE as DW_NAME's).
 *
 * Along the rows of a 14x14 or 7x7 plane the row kernel's vectors are mostly overlap and
 * padding, and each plane pays its own row copies. Here VW planes at a time go into one padded
 * plane of vectors (buf: ih rows of lw vectors spaced VW floats, lane p holding plane p, the
 * left and right padding zeros the caller wrote), through a VW x VW register transpose
 * where the variant has one (4 and 8 lanes, kernel_vec_tr.h), so that one vector of taps
 * serves VW planes whatever the plane's width and stride; the kernel weights go into vectors
 * the same way (lane p: plane p's). Each output sums from the bias, the kernel rows inside the
 * input in order (rows over the top and bottom padding skipped), each row's taps in order
 * (taps over the left and right padding add zero products): the order of kernel_dw_ukr.h's
 * row kernel, so an output has the same bits on both paths. Outputs go in blocks of 8 or 4
 * along a row (the last block of a row overlaps the one before and writes the same values
 * again), to the oh * ow output vectors after the plane, then back to the planes through the
 * transpose. A last group of fewer planes leaves the other lanes as they were (computed on
 * stale values, never stored). No allocation, no stdio. */

#if DW_VW == 4 || DW_VW == 8 || DW_VW == 16
#define DW_TR 1
/* r[i][j] <- r[j][i] (DW_F(tr)) */
#define VT_W DW_VW
#define VT_F(x) DW_F(x)
#include "kernel_vec_tr.h"
#endif

/* The planes' copies in and out of the lanes (kernel_vec_lanes.h) */
#define VL_VW DW_VW
#define VL_F(x) DW_F(x)
#ifdef DW_TR
#define VL_TR 1
#endif
#include "kernel_vec_lanes.h"

/* np planes of x into lanes 0 .. np - 1 of b's rows (lw vectors each, input column i1 at
 * vector pw + i1). */
static void DW_F(lanes_fill)(const berth_dw_geom_t *g, const float *x, int np, float *b) {
  DW_F(lanes_copy_in)(x, g->ih, g->iw, g->lw, np, b + g->pw * DW_VW);
}

/* NB outputs of one row from column j: n kernel rows, r[q] the input row of kernel row q at
 * the output row's first column, wq[q] its K weight vectors; column stride SW. K, NB and SW
 * are constants once inlined, so every tap's input is at a constant offset. */
static inline __attribute__((always_inline)) void DW_F(lanes_blk)(int K, int NB, int SW, const float *const *r,
                                                                  const float *const *wq, int n, DW_F(vf) vb,
                                                                  int64_t j, float *ob) {
  typedef DW_F(vf) vf;
  enum { L = DW_VW };
  vf a[8];
  DW_UNROLL(8) for (int o = 0; o < NB; o++) a[o] = vb;
  for (int q = 0; q < n; q++) {
    const float *x = r[q] + j * SW * L;
    DW_UNROLL(8) for (int t = 0; t < K; t++) {
      const vf wv = DW_F(ld)(wq[q] + t * L);
      DW_UNROLL(8) for (int o = 0; o < NB; o++) a[o] += wv * DW_F(ld)(x + (o * SW + t) * L);
    }
  }
  DW_UNROLL(8) for (int o = 0; o < NB; o++) DW_F(st)(ob + (j + o) * L, a[o]);
}

/* The ow output vectors of output row o0 to ob, from the filled b and the weight vectors wl. */
static inline __attribute__((always_inline)) void DW_F(lanes_row)(int K, int SW, const berth_dw_geom_t *g,
                                                                  const float *b, const float *wl, DW_F(vf) vb,
                                                                  int64_t o0, float *ob) {
  enum { L = DW_VW };
  const float *r[8], *wq[8];
  int n = 0;
  for (int64_t q = 0; q < g->kh; q++) {
    const int64_t i0 = o0 * g->sh - g->ph + q * g->dh;
    if (i0 < 0 || i0 >= g->ih) continue;
    r[n] = b + i0 * g->lw * L;
    wq[n++] = wl + q * K * L;
  }
  const int64_t ow = g->ow;
  if (ow >= 8) {
    for (int64_t j = 0; j < ow; j += 8) DW_F(lanes_blk)(K, 8, SW, r, wq, n, vb, j + 8 > ow ? ow - 8 : j, ob);
  } else if (ow >= 4) {
    for (int64_t j = 0; j < ow; j += 4) DW_F(lanes_blk)(K, 4, SW, r, wq, n, vb, j + 4 > ow ? ow - 4 : j, ob);
  } else {
    for (int64_t j = 0; j < ow; j++) DW_F(lanes_blk)(K, 1, SW, r, wq, n, vb, j, ob);
  }
}

/* The weight vectors of planes c .. c + np - 1 (lane p: plane c + p's, zeros past np) to wl,
 * their biases to the vector after them. */
static void DW_F(lanes_weights)(int64_t kk, const float *w, const float *b, int np, float *wl) {
  enum { L = DW_VW };
  for (int64_t i = 0; i <= kk; i++)
    for (int p = 0; p < L; p++) wl[i * L + p] = p >= np ? 0.0f : i < kk ? w[p * kk + i] : b ? b[p] : 0.0f;
}

DW_LINKAGE void DW_LANES_NAME(const berth_dw_geom_t *g, int64_t planes, const float *x, const float *w,
                            const float *b, float *y, float *buf) {
  enum { L = DW_VW };
  const int64_t il = g->ih * g->iw, l = g->oh * g->ow, kk = g->kh * g->kw;
  float *const ob = buf + g->ih * g->lw * L, *const wl = ob + l * L;
  for (int64_t c = 0; c < planes; c += L) {
    const int np = planes - c < L ? (int)(planes - c) : L;
    float *yc = y + c * l;
    DW_F(lanes_weights)(kk, w + c * kk, b ? b + c : NULL, np, wl);
    DW_F(lanes_fill)(g, x + c * il, np, buf);
    const DW_F(vf) vb = DW_F(ld)(wl + kk * L);
    for (int64_t o0 = 0; o0 < g->oh; o0++) {
      float *obr = ob + o0 * g->ow * L;
      if (g->kw == 3 && g->sw == 1)
        DW_F(lanes_row)(3, 1, g, buf, wl, vb, o0, obr);
      else if (g->kw == 3)
        DW_F(lanes_row)(3, 2, g, buf, wl, vb, o0, obr);
      else if (g->sw == 1)
        DW_F(lanes_row)(5, 1, g, buf, wl, vb, o0, obr);
      else
        DW_F(lanes_row)(5, 2, g, buf, wl, vb, o0, obr);
    }
    DW_F(lanes_copy_out)(ob, l, np, yc);
  }
}

#undef DW_TR
#undef DW_LANES_NAME
