/* The micro-kernel of conv's direct path for few input channels, the output positions along
 * the vector lanes (kernel_isa.h's conv_rows_ukr_f32, driven by kernel_conv_direct.c), written
 * once with GCC/clang vector types and included by each variant's file:
 *
 *   #define CRU_VB 32            // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define CRU_MR 4             // output channels per tile (broadcast weights)
 *   #define CRU_NV 3             // vectors of output positions per tile: MR x NV accumulators
 *   #define CRU_NAME isa_32_conv_rows_ukr_f32
 *   #include "kernel_conv_rows_ukr.h"
 *
 * The structure of an im2col GEMM with the im2col left out: each tap's weights of MR output
 * channels (one row of a pre-packed weight panel) are broadcast, and the input under the tap
 * for NV vectors of consecutive output positions of one output row is one contiguous load
 * from a band of the zero-padded input whose rows the driver split by stride phase (tap q of
 * position j at x[off[q] + j]), so the sums are NCHW already: no partial sums, no
 * transposition, the epilogue (kernel_isa.h's berth_ukr_epi_t: residual, then the activation,
 * as selects on compare masks: the bits of the scalar formulas) on the way to y. Each output
 * sums from the bias in the order of q with the including file's multiply-adds: the packed
 * GEMM's value over an im2col panel, bit for bit. A tile reads its whole vectors (the last
 * one of a row past n: the band has room) and stores its first positions. No allocation, no
 * stdio. */
#include "kernel_isa.h"

#include <stdint.h>
#include <string.h>

#define CRU_VW (CRU_VB / 4)
#define CRU_T (CRU_NV * CRU_VW) /* positions per tile */

#define CRU_C2(a, b) a##b
#define CRU_C(a, b) CRU_C2(a, b)
#define CRU_F(x) CRU_C(CRU_NAME, _##x)

#define VEC_VB CRU_VB
#define VEC_F(x) CRU_F(x)
#include "kernel_vec.h"

/* The epilogue on one vector of a channel's sums (res: its residual, NULL: none). */
static inline __attribute__((always_inline)) CRU_F(vf) CRU_F(epi)(CRU_F(vf) a, const float *res,
                                                                 const berth_ukr_epi_t *e) {
  if (res) a += CRU_F(ld)(res);
  return CRU_F(act)(e->act, a, CRU_F(splat)(e->alpha), CRU_F(splat)(e->beta));
}

/* One tile: MR channels x nv vectors of positions (nv <= NV, a constant once inlined) from x
 * (position 0's window), its first pn positions (pn < nv * VW: through the stack) to y with
 * the epilogue. */
static inline __attribute__((always_inline)) void CRU_F(tile)(int nv, const float *w, int64_t ldw, const float *x,
                                                              const int32_t *off, int64_t k, const float *bias,
                                                              float *y, int64_t ldy, int mr, int pn,
                                                              const berth_ukr_epi_t *epi, const float *res,
                                                              int64_t ldr) {
  typedef CRU_F(vf) vf;
  vf acc[CRU_MR][CRU_NV];
  for (int c = 0; c < CRU_MR; c++) {
    const vf b = CRU_F(splat)(bias[c]);
    for (int v = 0; v < nv; v++) acc[c][v] = b;
  }
  for (int64_t q = 0; q < k; q++) {
    const float *xq = x + off[q];
    vf xv[CRU_NV];
    for (int v = 0; v < nv; v++) xv[v] = CRU_F(ld)(xq + v * CRU_VW);
    for (int c = 0; c < CRU_MR; c++) {
      const vf s = CRU_F(splat)(w[q * ldw + c]);
      for (int v = 0; v < nv; v++) acc[c][v] += s * xv[v];
    }
  }
  for (int c = 0; c < mr; c++) {
    float *yc = y + c * ldy;
    const float *rc = epi && epi->res ? res + c * ldr : NULL;
    if (pn == nv * CRU_VW) {
      for (int v = 0; v < nv; v++)
        CRU_F(st)(yc + v * CRU_VW, epi ? CRU_F(epi)(acc[c][v], rc ? rc + v * CRU_VW : NULL, epi) : acc[c][v]);
      continue;
    }
    float t[CRU_T], r[CRU_T];
    if (rc) memcpy(r, rc, (size_t)pn * sizeof(float));
    for (int v = 0; v < nv; v++)
      CRU_F(st)(t + v * CRU_VW, epi ? CRU_F(epi)(acc[c][v], rc ? r + v * CRU_VW : NULL, epi) : acc[c][v]);
    memcpy(yc, t, (size_t)pn * sizeof(float));
  }
}

/* For c < nch, j < n: y[c * ldy + j] = epi(bias[c] + sum_q w[q * ldw + c] * x[off[q] + j]),
 * MR channels at a time (w: nch rounded up to MR columns of a weight panel), epi's residual
 * element (c, j) at res[c * ldr + j]. */
static void CRU_NAME(const float *w, int64_t ldw, const float *x, const int32_t *off, int64_t k, const float *bias,
                     float *y, int64_t ldy, int64_t n, int64_t nch, const berth_ukr_epi_t *epi) {
  const float *res = epi ? epi->res : NULL;
  const int64_t ldr = epi ? epi->ldr : 0;
  for (int64_t j = 0; j < n; j += CRU_T) {
    const int pn = n - j < CRU_T ? (int)(n - j) : CRU_T;
    for (int64_t c0 = 0; c0 < nch; c0 += CRU_MR) {
      const int mr = nch - c0 < CRU_MR ? (int)(nch - c0) : CRU_MR;
      const float *rc = res ? res + c0 * ldr + j : NULL;
      if (pn == CRU_T)
        CRU_F(tile)(CRU_NV, w + c0, ldw, x + j, off, k, bias + c0, y + c0 * ldy + j, ldy, mr, CRU_T, epi, rc, ldr);
      else if (pn > (CRU_NV - 1) * CRU_VW) /* the row's last tile: no more vectors than it needs */
        CRU_F(tile)(CRU_NV, w + c0, ldw, x + j, off, k, bias + c0, y + c0 * ldy + j, ldy, mr, pn, epi, rc, ldr);
#if CRU_NV > 2
      else if (pn > CRU_VW)
        CRU_F(tile)(CRU_NV - 1, w + c0, ldw, x + j, off, k, bias + c0, y + c0 * ldy + j, ldy, mr, pn, epi, rc, ldr);
#endif
      else
        CRU_F(tile)(1, w + c0, ldw, x + j, off, k, bias + c0, y + c0 * ldy + j, ldy, mr, pn, epi, rc, ldr);
    }
  }
}

#undef CRU_F
#undef CRU_C
#undef CRU_C2
#undef CRU_T
#undef CRU_VW
