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
 * weight panels of kernel_gemm_pack.c's berth_gemm_packed_wb_f32). No allocation, no stdio. */
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

/* One tile of mr rows (a constant once inlined). */
static inline __attribute__((always_inline)) void UKR_F(tile)(int mr, const float *a, int64_t lda,
                                                              const float *bp, int64_t kc, float *C,
                                                              int64_t ldc, int64_t nc, const float *bias,
                                                              int load) {
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
  case m: UKR_F(tile)(m, a, lda, bp, kc, C, ldc, nc, bias, load); break;

#ifndef UKR_LINKAGE
#define UKR_LINKAGE static
#endif
UKR_LINKAGE void UKR_NAME(const float *a, int64_t lda, const float *bp, int64_t kc, float *C, int64_t ldc, int64_t mr,
                     int64_t nc, const float *bias, int load) {
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
