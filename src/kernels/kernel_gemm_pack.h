/* Packed f32 GEMM: the blocked loops around a variant's micro-kernel (kernel_isa.h's
 * gemm_ukr_f32, kernel_ukr.h), used by conv (im2col packed straight into B panels), matmul
 * and gemm.
 *
 *   float *buf = berth_scratch_take(call, sizeof(float), &floats);   // the call's scratch
 *   if (berth_gemm_packed_fits(isa, floats))
 *     berth_gemm_packed_f32(isa, A, lda, bias, C, ldc, M, N, K, berth_gemm_pack_rows, &rows, buf, floats);
 *
 * C[M, N] = bias (per row, or 0) + A[M, K] B[K, N], A row-major with row stride lda, read in
 * place; B is only seen through `pack`, which writes one panel at a time into the caller's
 * scratch: kc rows of NR = isa->gemm_nr floats (zeros past the last column). The loops (the
 * GotoBLAS / BLIS order with MLAS's unpacked A): K in blocks of kc <= 512 rows, then as
 * many panels of NR columns as the scratch holds (a small scratch: one panel, which stays in
 * L1 while every MR-row tile of A passes over it; the planned request: up to 128 columns, or
 * 256 where that is all of N, which stay in L2 while each tile of A serves them all from L1),
 * then MR rows. Each element of C
 * sums in the order of K (from the bias, then one block after the other), so results do not
 * depend on the tiling of M or N.
 *
 * The scratch is the caller's: conv's, matmul's and gemm's kernel scratch, planned in the
 * arena (kernel_scratch.h; berth_gemm_scratch_floats says how much pays); runtime side: no
 * allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_GEMM_PACK_H
#define BERTH_KERNELS_KERNEL_GEMM_PACK_H

#include "kernel_isa.h"

#include <stdbool.h>
#include <stdint.h>


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

/* Pre-packed A (constant weights, packed once at compile time): M rows in panels of
 * BERTH_GEMM_APANEL rows, a multiple of every variant's gemm_mr (portable 4, AVX2 6, NEON 8,
 * AVX-512 12), so a file packed once serves every variant. Panel p holds rows p * AP ..
 * p * AP + AP - 1 column after column: element (i, q) at dst[(p * K + q) * AP + i - p * AP],
 * zeros past row M; ceil(M / AP) * AP * K floats in all. */
#define BERTH_GEMM_APANEL 12
static inline int64_t berth_gemm_apacked_floats(int64_t M, int64_t K) {
  return (M + BERTH_GEMM_APANEL - 1) / BERTH_GEMM_APANEL * BERTH_GEMM_APANEL * K;
}
void berth_gemm_pack_a(const float *A, int64_t lda, int64_t M, int64_t K, float *dst);
/* The same with panels of ap rows (ceil(M / ap) * ap * K floats). */
void berth_gemm_pack_a_ap(const float *A, int64_t lda, int64_t M, int64_t K, int64_t ap, float *dst);

/* berth_gemm_packed_f32 with A pre-packed (berth_gemm_pack_a); the same value for each
 * element of C as with A in place (the same sums in the same order). */
void berth_gemm_packed_pa_f32(const berth_kernel_isa_t *isa, const float *Apk, const float *bias, float *C,
                              int64_t ldc, int64_t M, int64_t N, int64_t K, berth_gemm_pack_fn pack, const void *ctx,
                              float *buf, int64_t floats);

/* berth_gemm_packed_pa_f32 with panels of `ap` rows (berth_gemm_pack_a's layout with ap in
 * place of BERTH_GEMM_APANEL; ap a multiple of nothing in particular: tiles never cross a panel). */
void berth_gemm_packed_pa_ap_f32(const berth_kernel_isa_t *isa, const float *Apk, int64_t ap, const float *bias,
                                 float *C, int64_t ldc, int64_t M, int64_t N, int64_t K, berth_gemm_pack_fn pack,
                                 const void *ctx, float *buf, int64_t floats);

/* berth_gemm_packed_f32 (ap 0: A in place, row stride lda) or berth_gemm_packed_pa_ap_f32 (ap >
 * 0: A pre-packed in panels of ap rows, lda unused) with a fused epilogue (kernel_isa.h's
 * berth_ukr_epi_t; NULL: none; a residual and activation, kernel_conv.c): the micro-kernel
 * applies it to each tile's accumulators at the tile's last block of K, before the store.
 * epi->res is the residual of all of C (element (i, j) at res[i * ldr + j]). */
void berth_gemm_packed_epi_f32(const berth_kernel_isa_t *isa, const float *A, int64_t lda, int64_t ap,
                               const float *bias, float *C, int64_t ldc, int64_t M, int64_t N, int64_t K,
                               berth_gemm_pack_fn pack, const void *ctx, float *buf, int64_t floats,
                               const berth_ukr_epi_t *epi);

/* The other way round, for a narrow result with pre-packed weights as the vector operand (MLAS
 * puts a conv's output channels along the lanes the same way):
 *   C[i * ldc + j] += sum_q A[i][q] W[q][j],   i < M, j < N, q in order,
 * W pre-packed in panels of BERTH_GEMM_WB_PANEL (32) columns, berth_gemm_pack_a's layout of
 * W^T with panel height 32 (element (q, j) at Wpk[(j / 32 * K + q) * 32 + j % 32]), N a
 * multiple of 32: a variant whose tile is 32 columns wide (AVX-512) takes each panel as its
 * B panel, one whose tile is 16 wide and that has gemm_ukr_pa_b2_f32 (AVX2) takes it in two
 * halves (berth_gemm_packed_wb_ok says whether the variant can). A is only seen through
 * `pack`, called as pack(ctx, k0, kc, i0, mc, dst, h) to write dst[q * h + r] = A[i0 + r][k0 +
 * q] for r < mc (conv's im2col panel packer, with positions as the rows; h is NR, or on AVX2
 * one tile of MR rows in a panel MR rounded up to 8 high); rows mc <= r < h are never read, so
 * a packer may leave anything there. kq > 0: pack calls of at most kq rows of K, all the tiles
 * in turn (a packer whose tiles share source rows: they stay in L1 between the tiles), else one
 * call per tile and block of K. C holds the start values (a bias
 * per column, say). The scratch buf (`floats`) holds ceil(M / 32) * 32 rows of A for one
 * block of K: berth_gemm_packed_wb_kc says the block (0: too small a scratch or a variant
 * that cannot, do not call). */
#define BERTH_GEMM_WB_PANEL 32
bool berth_gemm_packed_wb_ok(const berth_kernel_isa_t *isa);
int64_t berth_gemm_packed_wb_kc(const berth_kernel_isa_t *isa, int64_t M, int64_t K, int64_t floats);
void berth_gemm_packed_wb_f32(const berth_kernel_isa_t *isa, berth_gemm_pack_fn pack, const void *ctx, int64_t kq,
                              const float *Wpk, float *C, int64_t ldc, int64_t M, int64_t N, int64_t K, float *buf,
                              int64_t floats);

/* The packed path for a matmul or gemm where it pays (at least 4 rows and one full panel of
 * columns, in a build with kernel variants) and `floats` of scratch at buf hold a panel: runs
 * it and returns true, else returns false and does nothing. */
bool berth_gemm_packed_try_f32(const float *A, int64_t lda, const float *bias, float *C, int64_t ldc, int64_t M,
                               int64_t N, int64_t K, berth_gemm_pack_fn pack, const void *ctx, float *buf,
                               int64_t floats);

/* The scratch (floats) that pays for C[M, N] += A[M, K] B[K, N] on the packed path: a block
 * of up to 512 rows of K by up to 128 columns (256 KiB at most; measured against one 16 KiB
 * panel, 5-20 % faster on ResNet-50 layers and matmuls), or all of N up to 256 columns where
 * that block stays within 448 KiB (A then streams once), 0 where the path does not apply (fewer
 * than 4 rows or 8 columns). The same for every kernel variant, so the compiler can plan it. */
uint64_t berth_gemm_scratch_floats(int64_t M, int64_t N, int64_t K);

/* B row-major: B[k][j] = b[k * ldb + j] (ctx: a berth_gemm_rows_t). The packed GEMM knows
 * this packer: it packs a whole block of panels row by row (one run of up to 128 floats per
 * row of K instead of one of NR per row and panel: a 1x1 conv's rows are 256 runs far apart),
 * and asks for the next block of columns into L2 a slice per tile of A while this block's
 * tiles run (conv 1x1 256->64 at 56x56 on AVX2: memcpy calls were 18 % of the layer; the
 * layer 10-20 % faster). */
typedef struct berth_gemm_rows {
  const float *b;
  int64_t ldb;
} berth_gemm_rows_t;
void berth_gemm_pack_rows(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst, int64_t nr);

/* Asks for the next tile's block of A (rows i0..i0+mr, columns k0..k0+kc) while this tile
 * runs (the packed GEMM's loops, matmul_packed's in-place panels): its rows are short runs
 * (kc floats) far apart, too short for the hardware prefetchers to find when A comes from
 * L3 or memory. */
static inline void berth_gemm_prefetch_a(const float *A, int64_t lda, int64_t k0, int64_t kc, int64_t i0, int64_t mr) {
#if defined(__GNUC__)
  for (int64_t r = 0; r < mr; r++)
    for (int64_t q = 0; q < kc; q += 16) __builtin_prefetch(A + (i0 + r) * lda + k0 + q, 0, 2);
#else
  (void)A, (void)lda, (void)k0, (void)kc, (void)i0, (void)mr;
#endif
}

#endif
