/* Packed f32 GEMM: the blocked loops around a variant's micro-kernel (kernel_isa.h's
 * gemm_ukr_f32, kernel_ukr.h), used by conv (im2col packed straight into B panels), matmul
 * and gemm.
 *
 *   float buf[BERTH_GEMM_PACK_FLOATS];                     // caller's scratch
 *   if (berth_gemm_packed_fits(isa, BERTH_GEMM_PACK_FLOATS))
 *     berth_gemm_packed_f32(isa, A, lda, bias, C, ldc, M, N, K, berth_gemm_pack_rows, &rows, buf,
 *                           BERTH_GEMM_PACK_FLOATS);
 *
 * C[M, N] = bias (per row, or 0) + A[M, K] B[K, N], A row-major with row stride lda, read in
 * place; B is only seen through `pack`, which writes one panel at a time into the caller's
 * scratch: kc rows of NR = isa->gemm_nr floats (zeros past the last column). The loops (the
 * GotoBLAS / BLIS order with MLAS's unpacked A): K in blocks of kc <= 512 rows, then as
 * many panels of NR columns as the scratch holds (one, with matmul's 16 KiB: the panel stays
 * in L1 while every MR-row tile of A passes over it; many, with conv's planned scratch: they
 * stay in L2 and each tile of A serves them all from L1), then MR rows. Each element of C
 * sums in the order of K (from the bias, then one block after the other), so results do not
 * depend on the tiling of M or N.
 *
 * The scratch is the caller's (conv's planned in the arena, kernel_scratch.h; matmul's and
 * gemm's a bounded stack buffer); runtime side: no allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_GEMM_PACK_H
#define BERTH_KERNELS_KERNEL_GEMM_PACK_H

#include "kernel_isa.h"

#include <stdbool.h>
#include <stdint.h>

/* the packing buffer of matmul and gemm on their stack (floats: 16 KiB) */
#define BERTH_GEMM_PACK_FLOATS 4096

/* Writes dst[q * nr + c] = B[k0 + q][j0 + c] for q < kc, c < nc, and zeros for nc <= c < nr. */
typedef void (*berth_gemm_pack_fn)(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst,
                                   int64_t nr);

/* Whether `floats` of scratch hold a panel deep enough for the packed path (at least 16
 * rows of K; with less, callers take their unpacked loops). */
bool berth_gemm_packed_fits(const berth_kernel_isa_t *isa, int64_t floats);

/* C = bias + A B as above; `buf` holds `floats` (berth_gemm_packed_fits), 16-byte aligned
 * or better. M, N, K >= 0. */
void berth_gemm_packed_f32(const berth_kernel_isa_t *isa, const float *A, int64_t lda, const float *bias, float *C,
                           int64_t ldc, int64_t M, int64_t N, int64_t K, berth_gemm_pack_fn pack, const void *ctx,
                           float *buf, int64_t floats);

/* The packed path for a matmul or gemm where it pays (at least 4 rows and one full panel of
 * columns, in a build with kernel variants): runs it over a scratch of BERTH_GEMM_PACK_FLOATS
 * on its own stack frame and returns true, else returns false and does nothing. */
bool berth_gemm_packed_try_f32(const float *A, int64_t lda, const float *bias, float *C, int64_t ldc, int64_t M,
                               int64_t N, int64_t K, berth_gemm_pack_fn pack, const void *ctx);

/* B row-major: B[k][j] = b[k * ldb + j] (ctx: a berth_gemm_rows_t). */
typedef struct berth_gemm_rows {
  const float *b;
  int64_t ldb;
} berth_gemm_rows_t;
void berth_gemm_pack_rows(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst, int64_t nr);

#endif
