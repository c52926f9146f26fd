/* The packed-GEMM micro-kernel of a kernel variant (kernel_isa.h's gemm_ukr_f32), written
 * once with GCC/clang vector types and included by each variant's file:
 *
 *   #define UKR_VB 64           // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define UKR_MR 12           // rows of A (and C) per tile: MR x NV accumulators
 *   #define UKR_NV 2            // vectors per row of the tile: NR = NV * VB / 4 columns
 *   #define UKR_NAME isa_64_gemm_ukr_f32
 *   #define UKR_LINKAGE          // optional: empty for an external function (default static)
 *   #include "kernel_ukr.h"
 *
 * The structure of BLIS / MLAS micro-kernels: an MR x NR tile of C lives in registers for a
 * whole block of the reduction; each step loads NV vectors of the packed B panel (kc rows of
 * NR floats, contiguous, zeros past the last column) and broadcasts MR elements of A (read
 * in place: row r at a + r * lda, as MLAS reads A), MR x NV multiply-adds. The including
 * file's flags decide the instructions (fused multiply-adds where contraction is allowed).
 * Every tile sums in the order of q, from C or from the bias, so a result does not depend
 * on where a tile starts nor on the alignment of an operand. Edge tiles (mr < MR rows: a
 * kernel inlined per row count; nc < NR columns: C goes through a tile on the stack) give
 * the same value for each element as full tiles. With UKR_APACK defined, A is read from a
 * packed panel instead: element (r, q) at a[q * lda + r] (lda: the panel's height, a
 * multiple of MR; kernel_gemm_pack.h's berth_gemm_pack_a), one contiguous stream. With
 * UKR_LDB defined (a constant, at least NR), B's rows are UKR_LDB floats apart: the tile reads
 * the first NR columns of a wider panel (AVX2's 16-column tiles over the 32-column pre-packed
 * weight panels of kernel_gemm_pack.c's berth_gemm_packed_wb_f32). With an epilogue
 * (kernel_isa.h's berth_ukr_epi_t: conv's residual and activation; the driver passes it at
 * the tile's last block of K only), the accumulators take the residual and the activation
 * (selects on compare masks, the bits of the scalar formulas) before they are stored, so a
 * fused conv writes each output once. No allocation, no stdio. */
#include "kernel_isa.h"

#include <stdint.h>
#include <string.h>

#if UKR_MR != 4 && UKR_MR != 6 && UKR_MR != 8 && UKR_MR != 12 && UKR_MR != 14
#error "UKR_MR must be 4, 6, 8, 12 or 14 (the cases of the row-count switch)"
#endif

#define UKR_VW (UKR_VB / 4)
#define UKR_NR (UKR_NV * UKR_VW)
#ifndef UKR_LDB
#define UKR_LDB UKR_NR
#endif
#define UKR_C2(a, b) a##b
#define UKR_C(a, b) UKR_C2(a, b)
#define UKR_F(x) UKR_C(UKR_NAME, _##x)

#define VEC_VB UKR_VB
#define VEC_F(x) UKR_F(x)
#include "kernel_vec.h"

typedef int32_t UKR_F(vi) __attribute__((vector_size(UKR_VB))); /* a compare's lane mask */

/* m ? x : y lane by lane on the bits (m all ones or all zeros per lane). */
static inline UKR_F(vf) UKR_F(sel)(UKR_F(vi) m, UKR_F(vf) x, UKR_F(vf) y) {
  return (UKR_F(vf))(((UKR_F(vi))x & m) | ((UKR_F(vi))y & ~m));
}

/* The epilogue (kernel_isa.h's berth_ukr_epi_t) on the accumulators of mr rows; the residual
 * row r at res + r * ldr, nc columns of it (an edge tile reads it through a zero-padded
 * copy, nothing past column nc). */
static inline __attribute__((always_inline)) void UKR_F(epi)(int mr, UKR_F(vf) acc[][UKR_NV], int64_t nc,
                                                             const berth_ukr_epi_t *e) {
  typedef UKR_F(vf) vf;
  if (e->res)
    for (int r = 0; r < mr; r++) {
      const float *rr = e->res + r * e->ldr;
      float pad[UKR_NR];
      if (nc != UKR_NR) {
        memcpy(pad, rr, (size_t)nc * sizeof(float));
        memset(pad + nc, 0, (size_t)(UKR_NR - nc) * sizeof(float));
        rr = pad;
      }
      for (int v = 0; v < UKR_NV; v++) acc[r][v] += UKR_F(ld)(rr + v * UKR_VW);
    }
  const vf zero = UKR_F(splat)(0.0f), al = UKR_F(splat)(e->alpha), be = UKR_F(splat)(e->beta);
  switch (e->act) {
  case BERTH_UKR_ACT_RELU:
    for (int r = 0; r < mr; r++)
      for (int v = 0; v < UKR_NV; v++) acc[r][v] = UKR_F(sel)(acc[r][v] < zero, zero, acc[r][v]);
    break;
  case BERTH_UKR_ACT_CLIP:
    for (int r = 0; r < mr; r++)
      for (int v = 0; v < UKR_NV; v++) {
        const vf u = UKR_F(sel)(acc[r][v] < al, al, acc[r][v]);
        acc[r][v] = UKR_F(sel)(u > be, be, u);
      }
    break;
  case BERTH_UKR_ACT_LEAKY_RELU:
    for (int r = 0; r < mr; r++)
      for (int v = 0; v < UKR_NV; v++) acc[r][v] = UKR_F(sel)(acc[r][v] < zero, al * acc[r][v], acc[r][v]);
    break;
  default: break;
  }
}

/* One tile of mr rows (a constant once inlined). */
static inline __attribute__((always_inline)) void UKR_F(tile)(int mr, const float *a, int64_t lda,
                                                              const float *bp, int64_t kc, float *C,
                                                              int64_t ldc, int64_t nc, const float *bias,
                                                              int load, const berth_ukr_epi_t *epi) {
  typedef UKR_F(vf) vf;
  vf acc[UKR_MR][UKR_NV];
  float edge[UKR_MR][UKR_NR]; /* C of an edge tile (nc < NR) */
  const int full = nc == UKR_NR;
  if (load && !full)
    for (int r = 0; r < mr; r++) {
      memcpy(edge[r], C + r * ldc, (size_t)nc * sizeof(float));
      memset(edge[r] + nc, 0, (size_t)(UKR_NR - nc) * sizeof(float));
    }
  for (int r = 0; r < mr; r++)
    for (int v = 0; v < UKR_NV; v++)
      acc[r][v] = load ? UKR_F(ld)((full ? C + r * ldc : edge[r]) + v * UKR_VW) : UKR_F(splat)(bias ? bias[r] : 0.0f);
  for (int64_t q = 0; q < kc; q++) {
    vf b[UKR_NV];
    for (int v = 0; v < UKR_NV; v++) b[v] = UKR_F(ld)(bp + q * UKR_LDB + v * UKR_VW);
    for (int r = 0; r < mr; r++) {
#ifdef UKR_APACK
      const vf av = UKR_F(splat)(a[q * lda + r]); /* A packed: column q of the tile at a + q * lda */
#else
      const vf av = UKR_F(splat)(a[r * lda + q]);
#endif
      for (int v = 0; v < UKR_NV; v++) acc[r][v] += av * b[v];
    }
  }
  if (epi) UKR_F(epi)(mr, acc, nc, epi);
  if (full) {
    for (int r = 0; r < mr; r++)
      for (int v = 0; v < UKR_NV; v++) UKR_F(st)(C + r * ldc + v * UKR_VW, acc[r][v]);
  } else {
    for (int r = 0; r < mr; r++) {
      for (int v = 0; v < UKR_NV; v++) UKR_F(st)(edge[r] + v * UKR_VW, acc[r][v]);
      memcpy(C + r * ldc, edge[r], (size_t)nc * sizeof(float));
    }
  }
}

#define UKR_CASE(m)                                                                                   \
  case m: UKR_F(tile)(m, a, lda, bp, kc, C, ldc, nc, bias, load, epi); break;

#ifndef UKR_LINKAGE
#define UKR_LINKAGE static
#endif
UKR_LINKAGE void UKR_NAME(const float *a, int64_t lda, const float *bp, int64_t kc, float *C, int64_t ldc, int64_t mr,
                     int64_t nc, const float *bias, int load, const berth_ukr_epi_t *epi) {
  switch (mr) {
#if UKR_MR >= 14
    UKR_CASE(14)
    UKR_CASE(13)
#endif
#if UKR_MR >= 12
    UKR_CASE(12)
    UKR_CASE(11)
    UKR_CASE(10)
    UKR_CASE(9)
#endif
#if UKR_MR >= 8
    UKR_CASE(8)
    UKR_CASE(7)
#endif
#if UKR_MR >= 6
    UKR_CASE(6)
    UKR_CASE(5)
#endif
    UKR_CASE(4)
    UKR_CASE(3)
    UKR_CASE(2)
    UKR_CASE(1)
  default: break;
  }
}

#undef UKR_CASE
#undef UKR_LINKAGE
#undef UKR_APACK
#undef UKR_LDB
#undef UKR_F
#undef UKR_C
#undef UKR_C2
#undef UKR_NR
#undef UKR_VW
