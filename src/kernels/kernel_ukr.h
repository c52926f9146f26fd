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
 * weight panels of kernel_gemm_pack.c's berth_gemm_packed_wb_f32). With UKR_BSTRIDE defined,
 * the function takes B's row stride as an argument after bp (ldb, in floats): B read in place
 * (a row-major B with NR readable floats in each row the tile reads: kernel_gemm_pack.c's
 * path for few rows of A, where packing B would cost more than it saves). With an epilogue
 * (kernel_isa.h's berth_ukr_epi_t: conv's residual and activation; the driver passes it at
 * the tile's last block of K only), the accumulators take the residual and relu (selects on
 * compare masks, the bits of the scalar formulas) on their way to the store, so a fused conv
 * writes each output once; clip and leaky_relu are applied in a pass over the stored tile,
 * still in L1 (the same bits). No allocation, no stdio. */
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

#define UKR_PRAGMA(x) _Pragma(#x)
#define UKR_UNROLL UKR_PRAGMA(GCC unroll 16)

/* One tile of mr rows by NR columns of C (rows ldc apart), from C (load) or the bias; then the
 * residual (rows ldr apart; NULL: none) and the activation, and the store. mr and act are
 * constants once inlined, and the accumulators are plain values (no array whose address
 * escapes), so they stay in registers from the first multiply-add to the store: passing them to
 * an epilogue function by address had them stored and reloaded around the loop, which cost a
 * 6 x 16 tile over 16 rows of K a third of its time (SqueezeNet's 1x1 convs). */
static inline __attribute__((always_inline)) void UKR_F(run)(int mr, int act, const float *a, int64_t lda,
                                                             const float *bp, int64_t ldb, int64_t kc, float *C,
                                                             int64_t ldc, const float *bias, int load,
                                                             const float *res, int64_t ldr, UKR_F(vf) al,
                                                             UKR_F(vf) be) {
  typedef UKR_F(vf) vf;
  vf acc[UKR_MR][UKR_NV];
  UKR_UNROLL for (int r = 0; r < mr; r++) {
    const vf b0 = UKR_F(splat)(bias ? bias[r] : 0.0f);
    UKR_UNROLL for (int v = 0; v < UKR_NV; v++) acc[r][v] = load ? UKR_F(ld)(C + r * ldc + v * UKR_VW) : b0;
  }
  for (int64_t q = 0; q < kc; q++) {
    vf b[UKR_NV];
    UKR_UNROLL for (int v = 0; v < UKR_NV; v++) b[v] = UKR_F(ld)(bp + q * ldb + v * UKR_VW);
    UKR_UNROLL for (int r = 0; r < mr; r++) {
#ifdef UKR_APACK
      const vf av = UKR_F(splat)(a[q * lda + r]); /* A packed: column q of the tile at a + q * lda */
#else
      const vf av = UKR_F(splat)(a[r * lda + q]);
#endif
      UKR_UNROLL for (int v = 0; v < UKR_NV; v++) acc[r][v] += av * b[v];
    }
  }
  UKR_UNROLL for (int r = 0; r < mr; r++) UKR_UNROLL for (int v = 0; v < UKR_NV; v++) {
      vf x = acc[r][v];
      if (res) x += UKR_F(ld)(res + r * ldr + v * UKR_VW);
      UKR_F(st)(C + r * ldc + v * UKR_VW, UKR_F(act)(act, x, al, be));
    }
}

/* Clip and leaky_relu after the store, over the tile's rows in L1 (run's fused form is kept for
 * relu alone: each activation inlined into every row count would double the variant's code). */
static void UKR_F(act_rows)(int act, float *C, int64_t ldc, int mr, UKR_F(vf) al, UKR_F(vf) be) {
  for (int r = 0; r < mr; r++)
    for (int v = 0; v < UKR_NV; v++) {
      float *c = C + r * ldc + v * UKR_VW;
      UKR_F(st)(c, UKR_F(act)(act, UKR_F(ld)(c), al, be));
    }
}

/* One tile of mr rows (a constant once inlined), nc columns: a full tile runs in place; an edge
 * tile (nc < NR) runs over zero-padded copies of its C rows and residual rows on the stack
 * (nothing past column nc is read or written). */
static inline __attribute__((always_inline)) void UKR_F(tile)(int mr, const float *a, int64_t lda,
                                                              const float *bp, int64_t ldb, int64_t kc, float *C,
                                                              int64_t ldc, int64_t nc, const float *bias,
                                                              int load, const berth_ukr_epi_t *epi) {
  const int act = epi ? epi->act : BERTH_UKR_ACT_NONE;
  const float *res = epi ? epi->res : NULL;
  int64_t ldr = epi ? epi->ldr : 0, ldt = ldc;
  const UKR_F(vf) al = UKR_F(splat)(epi ? epi->alpha : 0.0f), be = UKR_F(splat)(epi ? epi->beta : 0.0f);
  float edge[UKR_MR][UKR_NR], rpad[UKR_MR][UKR_NR], *t = C;
  if (nc != UKR_NR) {
    for (int r = 0; r < mr; r++) {
      if (load) {
        memcpy(edge[r], C + r * ldc, (size_t)nc * sizeof(float));
        memset(edge[r] + nc, 0, (size_t)(UKR_NR - nc) * sizeof(float));
      }
      if (res) {
        memcpy(rpad[r], res + r * ldr, (size_t)nc * sizeof(float));
        memset(rpad[r] + nc, 0, (size_t)(UKR_NR - nc) * sizeof(float));
      }
    }
    t = edge[0], ldt = UKR_NR, res = res ? rpad[0] : NULL, ldr = UKR_NR;
  }
  if (act == BERTH_UKR_ACT_RELU)
    UKR_F(run)(mr, BERTH_UKR_ACT_RELU, a, lda, bp, ldb, kc, t, ldt, bias, load, res, ldr, al, be);
  else
    UKR_F(run)(mr, BERTH_UKR_ACT_NONE, a, lda, bp, ldb, kc, t, ldt, bias, load, res, ldr, al, be);
  if (act == BERTH_UKR_ACT_CLIP || act == BERTH_UKR_ACT_LEAKY_RELU) UKR_F(act_rows)(act, t, ldt, mr, al, be);
  if (t != C)
    for (int r = 0; r < mr; r++) memcpy(C + r * ldc, edge[r], (size_t)nc * sizeof(float));
}

#ifdef UKR_BSTRIDE
#define UKR_LDB_PARAM int64_t ldb,
#define UKR_LDB_ARG ldb
#else
#define UKR_LDB_PARAM
#define UKR_LDB_ARG UKR_LDB /* a constant: the tile's loads fold it */
#endif
#define UKR_CASE(m)                                                                                   \
  case m: UKR_F(tile)(m, a, lda, bp, UKR_LDB_ARG, kc, C, ldc, nc, bias, load, epi); break;

#ifndef UKR_LINKAGE
#define UKR_LINKAGE static
#endif
UKR_LINKAGE void UKR_NAME(const float *a, int64_t lda, const float *bp, UKR_LDB_PARAM int64_t kc, float *C,
                          int64_t ldc, int64_t mr, int64_t nc, const float *bias, int load,
                          const berth_ukr_epi_t *epi) {
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
#undef UKR_PRAGMA
#undef UKR_UNROLL
#undef UKR_LDB_PARAM
#undef UKR_LDB_ARG
#undef UKR_BSTRIDE
#undef UKR_LINKAGE
#undef UKR_APACK
#undef UKR_LDB
#undef UKR_F
#undef UKR_C
#undef UKR_C2
#undef UKR_NR
#undef UKR_VW
