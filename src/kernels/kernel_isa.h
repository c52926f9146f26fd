/* Kernel variants per instruction set, chosen once at run time.
 *
 *   const berth_kernel_isa_t *k = berth_kernel_isa();      // the active variant
 *   k->dot4xn_f32(w, ldw, x, ldx, cols, n, out, ldo);      // or BERTH_KCALL(dot4xn_f32)(...)
 *
 * The hot f32 loops of conv, gemm, matmul and lstm, and the f32 exp / sigmoid / tanh of the
 * unary kernels and the LSTM gates, go through this table. Variants:
 *  - portable: plain C (kernel_dot.h's 16-byte vector types, kernel_vmath.h), the reference
 *    and the only one of an embedded runtime (berth_add_runtime, examples/cortex-m);
 *  - avx2: x86-64 AVX2 + FMA, 32-byte vectors (kernel_isa_avx2.c);
 *  - avx512: x86-64 AVX-512F, 64-byte vectors (kernel_isa_avx512.c);
 *  - neon: AArch64 Advanced SIMD, 16-byte vectors in 32 registers (kernel_isa_neon.c).
 * These exist in a build that defines BERTH_KERNELS_SIMD (libberth_runtime on x86-64 or
 * AArch64; CMakeLists.txt compiles their files with per-file target flags). The first call
 * of berth_kernel_isa() picks the widest one the CPU and the OS support (x86: cpuid, xgetbv;
 * AArch64: NEON is always there);
 * berth_kernels_select (include/berth/kernels.h) overrides it for the whole process, e.g.
 * to force the portable path in tests and benchmarks.
 *
 * Without BERTH_KERNELS_SIMD, BERTH_KCALL names the portable function directly: no
 * indirect call, so the static stack bound of a small runtime (tools/stack) is unchanged.
 *
 * Results of different variants differ by rounding only (another summation order, fused
 * multiply-adds); a variant's result does not depend on the alignment of its operands, so
 * the planned runtime and the reference interpreter agree bit for bit. Runtime side: no
 * allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_ISA_H
#define BERTH_KERNELS_KERNEL_ISA_H

#include "berth/kernels.h"

#include <stdbool.h>
#include <stdint.h>

/* One channel plane of a depthwise 2-D convolution (kernel_conv_dw.c, kernel_dw_ukr.h):
 * input ih x iw, output oh x ow, kernel kh x kw (kh <= 8, kw 3 or 5), strides sh, sw (sw 1
 * or 2), dilations dh, dw, padding ph, pw at the start. Input rows are copied into `slots`
 * (kh to BERTH_DW_MAX_SLOTS) rows of `row` floats of a caller buffer, zero-padded so that
 * every output column reads inside its row, followed by one row of zeros. With ow rounded up
 * to a multiple of 32 (two vectors of the widest variant) as c: stride 1, row >= pw + iw
 * and >= c + (kw - 1) * dw, padded column p (input column p - pw) at p; stride 2, two
 * halves of row / 2 floats each >= (pw + iw + 1) / 2 and >= c + (kw - 1) * dw / 2, padded
 * column p at p / 2 in half p % 2. The caller zeroes the slots and the zero row once; the
 * kernel writes only the places of input columns in the slots. When slots
 * is a power of two >= (kh - 1) * dh + 1, each input row is copied once per plane (a ring,
 * slot = row & (slots - 1)), and with kh == kw, dh 1, sh 1 or 2 and slots >= 3 * sh + kh,
 * four output rows are computed together; otherwise each output row copies its rows. */
typedef struct berth_dw_geom {
  int64_t ih, iw, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw;
  int64_t row, slots;
  /* lw > 0: planes in the lanes instead (dwconv_lanes_f32, small planes): buf holds ih rows of
   * lw vectors of BERTH_DW_MAX_LANES floats (input column p - pw at vector p, zeros outside the
   * input), then oh * ow more and kh * kw + 1 more; lw >= pw + iw and
   * >= (ow - 1) * sw + (kw - 1) * dw + 1 */
  int64_t lw;
} berth_dw_geom_t;
#define BERTH_DW_MAX_SLOTS 16
#define BERTH_DW_MAX_LANES 16

/* Planes of f32 max or average pooling (kernel_pool.c, kernel_pool_ukr.h): input ih x iw,
 * output oh x ow, kernel kh x kw (kw <= BERTH_POOL_MAX_KW), strides sh, sw (sw 1 or 2), row
 * dilation dh, padding ph, pw at the start; `slots` rows of `row` floats of the caller's buffer
 * (a power of two >= (kh - 1) * dh + 1, at most BERTH_POOL_MAX_SLOTS) hold padded input rows
 * and one more row holds the pad value (-inf for max, +0 for average) alone,
 * with m = max(ow, 16): stride 1, row >= m + kw - 1 and >= pw + iw; stride 2, two halves of
 * row / 2 floats each >= m + (kw - 1) / 2 and >= (pw + iw + 1) / 2. Average divides output
 * (o1, o) by rdiv[o1] * cdiv[o] (cdiv holds m floats, 1 past ow). */
typedef struct berth_pool_geom {
  int64_t ih, iw, oh, ow, kh, kw, sh, sw, dh, ph, pw;
  int64_t row, slots;
  int max;
  const float *rdiv, *cdiv;
  /* lw > 0: planes in the lanes instead (small planes): buf holds lh rows of lw vectors of
   * BERTH_POOL_MAX_LANES floats, then oh * ow more, lh >= ph + ih and
   * >= (oh - 1) * sh + (kh - 1) * dh + 1, lw >= pw + iw and >= (ow - 1) * sw + kw (any column
   * stride and kernel width) */
  int64_t lh, lw;
} berth_pool_geom_t;
#define BERTH_POOL_MAX_SLOTS 16
#define BERTH_POOL_MAX_LANES 16
/* 3x3 windows with row stride 1, row dilation 1 and at least four output rows go in blocks of
 * four output rows when slots >= 3 * sh + 3 (measured: at row stride 2 the blocks' ring of 16
 * rows gained 0-10 % and cost SqueezeNet's arena 6 KiB) */
#define BERTH_POOL_BLOCKS(kh, kw, sh, dh, oh) ((kh) == 3 && (kw) == 3 && (sh) == 1 && (dh) == 1 && (oh) >= 4)
#define BERTH_POOL_MAX_KW 32

/* The geometry of a convolution for its im2col panel packer (kernel_conv.c, kernel_im2col.h):
 * three spatial dims (a 1- or 2-D conv has leading dims of size 1), input, kernel and output
 * sizes, strides, dilations, padding at the start, and il = in[0] * in[1] * in[2] (the floats of
 * one input channel). */
typedef struct berth_im2col_geom {
  int64_t in[3], k[3], out[3], stride[3], dil[3], pad[3], il;
} berth_im2col_geom_t;

/* The runs of an im2col panel of output positions j0 .. j0 + nc - 1: positions [at, at + len)
 * of the panel lie in one output row, whose window starts at input (s0, s1, s2). Returns their
 * number, or -1 if there are more than max. */
static inline int berth_im2col_runs(const berth_im2col_geom_t *g, int64_t j0, int64_t nc, int max, int64_t *at,
                                    int64_t *len, int64_t *s0, int64_t *s1, int64_t *s2) {
  const int64_t O1 = g->out[1], O2 = g->out[2];
  int64_t o2 = j0 % O2, o1 = (j0 / O2) % O1, o0 = j0 / O2 / O1;
  int n = 0;
  for (int64_t c = 0; c < nc; n++) {
    if (n == max) return -1;
    at[n] = c;
    len[n] = O2 - o2 < nc - c ? O2 - o2 : nc - c;
    s0[n] = o0 * g->stride[0] - g->pad[0];
    s1[n] = o1 * g->stride[1] - g->pad[1];
    s2[n] = o2 * g->stride[2] - g->pad[2];
    c += len[n];
    o2 = 0;
    if (++o1 == O1) o1 = 0, o0++;
  }
  return n;
}

/* The fused epilogue of a packed-GEMM micro-kernel tile (conv's residual and activation,
 * kernel_conv.c): applied to the tile's accumulators after its last block of K, before the
 * store, with exactly the formulas of the separate add and activation kernels:
 *   v = res ? acc + res[r * ldr + c] : acc   (no addition without a residual: -0 stays -0)
 *   relu: v < 0 ? 0 : v;  clip: u = v < alpha ? alpha : v, then u > beta ? beta : u;
 *   leaky_relu: v < 0 ? alpha * v : v;  none: v
 * res points at the tile's first element (row r of the tile at res + r * ldr). A NULL
 * descriptor (every caller but conv, and every block of K but the last): none. */
enum { BERTH_UKR_ACT_NONE, BERTH_UKR_ACT_RELU, BERTH_UKR_ACT_CLIP, BERTH_UKR_ACT_LEAKY_RELU };
typedef struct berth_ukr_epi {
  const float *res; /* the residual, or NULL */
  int64_t ldr;
  int act; /* BERTH_UKR_ACT_* */
  float alpha, beta;
} berth_ukr_epi_t;

/* One call of conv_blocked's micro-kernel (kernel_conv_blocked_ukr.h, driven by
 * kernel_conv_blocked.c) over channel-blocked tensors ([N, C/16, H, W, 16]). For each of np
 * positions p (np <= conv_blocked_p) and each of nob output blocks b (nob <= conv_blocked_ob),
 * lane l < 16:
 *   s = (load ? y[yo[p] + b * yob + l] : bias ? bias[b * 16 + l] : 0)
 *       + sum over input blocks i < cb in order, taps t < nt in order, channels c < cpb in order of
 *         w[b * wob + i * wib + tw[t] + c * 16 + l] * x[xo[p] + to[t] + i * plane + c * cs]
 * then, with epi (NULL: none), residual res[yo[p] + b * yob + l] and activation; stored to
 * y[yo[p] + b * yob + l]. Every index it forms is one the caller vouches for. */
typedef struct berth_conv_blk_args {
  const float *x;
  int64_t plane, cb; /* floats between input blocks; input blocks of this call */
  int64_t cpb, cs;   /* channels per input block and floats between them: 16 and 1 (blocked),
                      * or a plain input's C < 16 and H * W */
  const int64_t *to, *tw;
  int64_t nt;
  const float *w;
  int64_t wob, wib, nob; /* floats between output blocks' and input blocks' weights */
  const float *bias;
  int load;
  float *y;
  int64_t yob;
  const berth_ukr_epi_t *epi;
} berth_conv_blk_args_t;

/* One output row of pool_blocked (kernel_pool_blocked_ukr.h, driven by kernel_pool_blocked.c):
 * for each output column o < ow (window start s = o * sw - pw, the taps q < kw with
 * 0 <= s + q * dw < iw), the 16 lanes of y[o * 16 ..] = the max (from -inf; the caller walks
 * lanes left at -inf again: nonzero returned when the row has one) or the sum (from +0, divided by rdiv times the column count: the
 * taps inside [0, cpad) of s + pw when cpad > 0, else the taps inside the input) over the
 * input rows r0, r0 + rs, ... (nr of them) of the taps' positions x[(row * iw + col) * 16 ..]. */
typedef struct berth_pool_blk_row {
  const float *x;
  int64_t iw, r0, nr, rs;
  int64_t ow, sw, pw, kw, dw;
  int max;
  int64_t rdiv, cpad;
  float *y;
} berth_pool_blk_row_t;

/* conv_winograd's transforms (kernel_winograd_ukr.h, driven by kernel_conv_winograd.c), for
 * nt tiles t = t0 + i of one image and one block of 16 channels, tile t covering the outputs
 * [2 (t / tw), +2) x [2 (t % tw), +2) of the oh x ow plane.
 * In: the 4x4 patch d of x (an h x w plane of 16-float positions) from row 2 (t / tw) - pt,
 * column 2 (t % tw) - pl, zero outside the plane, to v[k * vs + i * 16 + l] = (B^T d B)[k / 4]
 * [k % 4] for lane l (kernel_conv_winograd.h's B, its sums in the order written there).
 * Out: the products m[k * ms + i * 16 + l] back through A (the same) to the outputs of tile t
 * inside the plane, plus bias[l] (NULL: none), plus the residual res (NULL: none; the plane's
 * as y), then act (berth_ukr_epi_t's), stored to y (an oh x ow plane of 16-float positions). */
typedef struct berth_wino_in {
  const float *x;
  int64_t h, w, pt, pl, tw;
  int64_t t0, nt;
  float *v;
  int64_t vs;
} berth_wino_in_t;
typedef struct berth_wino_out {
  const float *m;
  int64_t ms;
  int64_t t0, nt, tw, oh, ow;
  const float *bias, *res;
  int act;
  float alpha, beta;
  float *y;
} berth_wino_out_t;

typedef struct berth_kernel_isa {
  berth_kernels_isa_t id;
  /* out[r * ldo + c] += sum_q w[r * ldw + q] * x[c * ldx + q] for r < 4, c < cols, q < n
   * (the sum first, then added): four weight rows against cols vectors (conv's packed
   * patches, gemm's B^T rows). */
  void (*dot4xn_f32)(const float *w, int64_t ldw, const float *x, int64_t ldx, int64_t cols, int64_t n,
                     float *out, int64_t ldo);
  float (*dot_f32)(const float *a, const float *b, int64_t n);
  /* out[r] = dot(r_r, x over n) + dot(u_r, y over m), r < 4 (the LSTM's W x + R h) */
  void (*dot4_2seg_f32)(const float *r0, const float *r1, const float *r2, const float *r3, const float *x,
                        int64_t n, const float *u0, const float *u1, const float *u2, const float *u3,
                        const float *y, int64_t m, float out[4]);
  /* C[i * ldc + j] = (bias ? bias[i] : 0) + sum_q A[i * lda + q] * B[q * ldb + j], i < M,
   * j < N, the q in order 0..K-1 (matmul, 1x1 conv). */
  void (*gemm_nn_f32)(const float *A, int64_t lda, const float *B, int64_t ldb, const float *bias, float *C,
                      int64_t ldc, int64_t M, int64_t N, int64_t K);
  /* The packed-GEMM micro-kernel (kernel_ukr.h, driven by kernel_gemm_pack.c): for r < mr
   * (<= gemm_mr) and c < nc (<= gemm_nr),
   *   C[r * ldc + c] = (load ? C[r * ldc + c] : bias ? bias[r] : 0) + sum_q a[r * lda + q] * bp[q * gemm_nr + c]
   * over q = 0..kc-1 in order; bp is a packed B panel, kc rows of gemm_nr floats; then epi
   * (NULL: none) on the tile before it is stored. */
  int gemm_mr, gemm_nr;
  void (*gemm_ukr_f32)(const float *a, int64_t lda, const float *bp, int64_t kc, float *C, int64_t ldc, int64_t mr,
                       int64_t nc, const float *bias, int load, const berth_ukr_epi_t *epi);
  /* The same with half the columns (nc <= gemm_nr / 2, bp rows of gemm_nr / 2 floats), for a
   * last panel of at most that many columns: half the work of a full tile, the same value for
   * each element. NULL where the variant has none. */
  void (*gemm_ukr_half_f32)(const float *a, int64_t lda, const float *bp, int64_t kc, float *C, int64_t ldc,
                            int64_t mr, int64_t nc, const float *bias, int load, const berth_ukr_epi_t *epi);
  /* The two above with A from a packed panel (pre-packed weights, kernel_gemm_pack.h):
   * element (r, q) at a[q * lda + r], lda the panel height. */
  void (*gemm_ukr_pa_f32)(const float *a, int64_t lda, const float *bp, int64_t kc, float *C, int64_t ldc,
                          int64_t mr, int64_t nc, const float *bias, int load, const berth_ukr_epi_t *epi);
  void (*gemm_ukr_pa_half_f32)(const float *a, int64_t lda, const float *bp, int64_t kc, float *C, int64_t ldc,
                               int64_t mr, int64_t nc, const float *bias, int load, const berth_ukr_epi_t *epi);
  /* y[i] = f(x[i]), i < n; x and y do not overlap (kernel_vmath.h gives the accuracy) */
  void (*exp_f32)(const float *x, float *y, int64_t n);
  void (*sigmoid_f32)(const float *x, float *y, int64_t n);
  void (*tanh_f32)(const float *x, float *y, int64_t n);
  /* the same for sqrt (correctly rounded: the square-root instruction; NaN for x < 0 with no
   * call into the C library for errno) and erf (kernel_vmath.h; the portable variant: the C
   * library's erff) */
  void (*sqrt_f32)(const float *x, float *y, int64_t n);
  void (*erf_f32)(const float *x, float *y, int64_t n);
  /* y[i] = min(1, max(0, alpha x[i] + beta)), alpha x + beta rounded once (a fused
   * multiply-add; the portable variant computes it in double, which rounds twice: the same
   * float except where the double sum lands on a midpoint between floats); NaN stays NaN */
  void (*hard_sigmoid_f32)(const float *x, float *y, int64_t n, float alpha, float beta);
  /* y[i] = berth_vm_elu_f32(x[i], alpha) (kernel_vmath.h) */
  void (*elu_f32)(const float *x, float *y, int64_t n, float alpha);
  /* y[i] = berth_vm_softplus_f32(x[i]) (kernel_vmath.h) */
  void (*softplus_f32)(const float *x, float *y, int64_t n);
  /* y[o0 * ow + o1] = bias + sum over the taps (q0 rows in order, then q1) inside the input
   * of w[q0 * kw + q1] * x[i0 * iw + i1], i0 = o0 * sh - ph + q0 * dh, i1 = o1 * sw - pw + q1 * dw
   * (taps over the left and right padding add zero products); buf holds (g->slots + 1) * g->row
   * floats, zeros outside the columns [pw, pw + iw) of each slot. */
  void (*dwconv_f32)(const berth_dw_geom_t *g, const float *x, const float *w, float bias, float *y, float *buf);
  /* planes consecutive depthwise planes of one input channel each (multiplier 1), the planes
   * in the vector lanes: plane c of y as dwconv_f32 gives it with w + c * kh * kw and bias b[c]
   * (0 without b), bit for bit; g->lw > 0, sw 1 or 2, dw 1, kw 3 or 5, kh <= 8; the caller zeroes buf's first
   * ih * lw * BERTH_DW_MAX_LANES floats once (the kernel writes only input columns there) */
  void (*dwconv_lanes_f32)(const berth_dw_geom_t *g, int64_t planes, const float *x, const float *w,
                           const float *b, float *y, float *buf);
  /* planes consecutive planes of max or average pooling (g->max), x ih x iw and y oh x ow floats
   * each, every output bit for bit kernel_pool.c's per-element walk; buf holds (g->slots + 1) * g->row
   * floats (kernel_pool_ukr.h) */
  void (*pool2d_f32)(const berth_pool_geom_t *g, int64_t planes, const float *x, float *y, float *buf);
  /* conv's im2col into one packed-GEMM B panel: dst[q * nr + c] = the input element under
   * kernel tap k0 + q (taps in (ic, q0, q1, q2) order) for output position j0 + c (0 where the
   * window hangs over the padding), c < nc, zeros for nc <= c < nr; returns false (writing
   * nothing) where the variant does not handle the geometry, and the caller packs. NULL where
   * the variant has none (kernel_conv.c's portable packer runs). */
  bool (*im2col_f32)(const berth_im2col_geom_t *g, const float *xg, int64_t k0, int64_t kc, int64_t j0, int64_t nc,
                     float *dst, int64_t nr);
  /* gemm_ukr_pa_f32 with bp's rows 2 * gemm_nr floats apart: one half of a panel twice the
   * variant's width (the 32-column pre-packed weight panels where gemm_nr is 16: AVX2).
   * NULL where the variant has none. */
  void (*gemm_ukr_pa_b2_f32)(const float *a, int64_t lda, const float *bp, int64_t kc, float *C, int64_t ldc,
                             int64_t mr, int64_t nc, const float *bias, int load, const berth_ukr_epi_t *epi);
  /* gemm_ukr_f32 (A read in place) with bp's rows 32 floats apart: one slice of gemm_nr
   * columns of a 32-column panel (the constant weights of matmul_packed, read in place by
   * every variant whose gemm_nr divides 32). NULL where the variant has none. */
  void (*gemm_ukr_ldb32_f32)(const float *a, int64_t lda, const float *bp, int64_t kc, float *C, int64_t ldc,
                             int64_t mr, int64_t nc, const float *bias, int load, const berth_ukr_epi_t *epi);
  /* gemm_ukr_pa_f32 with B read in place, not from a packed panel: row q of the tile's columns
   * at bp + q * ldb (a row-major B; every row the tile reads holds gemm_nr floats from bp on,
   * whatever nc is), for the packed GEMM's path where packing B would cost more than it saves
   * (few rows of A, kernel_gemm_pack.c). NULL where the variant has none. */
  void (*gemm_ukr_pa_bs_f32)(const float *a, int64_t lda, const float *bp, int64_t ldb, int64_t kc, float *C,
                             int64_t ldc, int64_t mr, int64_t nc, const float *bias, int load,
                             const berth_ukr_epi_t *epi);
  /* conv's direct micro-kernel, the output channels along the lanes (kernel_conv_direct_ukr.h,
   * driven by kernel_conv_direct.c), over a run of n output positions j, conv_direct_p at a time:
   * position j's window at xj = x + r * rs + c * cs, where (r, c) counts from (0, col0) along
   * rows of ow columns. For j < n and c < conv_direct_nr,
   *   s[j][c] = (bias ? bias[c] : part[j * conv_direct_nr + c]) + sum_q w[q * ldw + c] * xj[off[q]]
   * over q = 0..kc-1 in order (w: conv_direct_nr columns of a pre-packed weight panel; x: a band of
   * the padded input, or the input; bias: conv_direct_nr floats), stored to part[j * conv_direct_nr + c];
   * then, with y, y[c * ldy + j] = epi(s[j][c]) for c < nch (epi: NULL or the residual, element
   * (c, j) at res[c * ldr + j], and the activation). */
  int conv_direct_p, conv_direct_nr;
  void (*conv_direct_ukr_f32)(const float *w, int64_t ldw, const float *x, int64_t rs, int64_t cs, int64_t ow,
                          int64_t col0, int64_t n, const int32_t *off, int64_t kc, const float *bias, float *part,
                          float *y, int64_t ldy, int64_t nch, const berth_ukr_epi_t *epi);
  /* conv's direct micro-kernel for few input channels, the output positions along the lanes
   * (kernel_conv_rows_ukr.h, driven by kernel_conv_direct.c): for c < nch and j < n,
   *   y[c * ldy + j] = epi(bias[c] + sum_q w[q * ldw + c] * x[off[q] + j])
   * over q = 0..k-1 in order (w: columns of a pre-packed weight panel, nch rounded up to
   * conv_rows_mr of them read; bias: as many floats), conv_rows_mr channels x conv_rows_t
   * positions at a time; it reads x[off[q] + j] for j up to n rounded up to conv_rows_t
   * (epi: NULL or the residual, element (c, j) at res[c * ldr + j], and the activation).
   * NULL where the variant has none. */
  int conv_rows_mr, conv_rows_t;
  void (*conv_rows_ukr_f32)(const float *w, int64_t ldw, const float *x, const int32_t *off, int64_t k,
                            const float *bias, float *y, int64_t ldy, int64_t n, int64_t nch,
                            const berth_ukr_epi_t *epi);
  /* conv_blocked's micro-kernel (berth_conv_blk_args_t above): conv_blocked_p positions by
   * conv_blocked_ob blocks of 16 output channels at most per call */
  int conv_blocked_p, conv_blocked_ob;
  void (*conv_blocked_ukr_f32)(const berth_conv_blk_args_t *a, int64_t np, const int64_t *xo, const int64_t *yo);
  /* the same for a plain input (cpb < 16 channels cs floats apart; the blocked one assumes 16
   * and 1) */
  void (*conv_blocked_plain_ukr_f32)(const berth_conv_blk_args_t *a, int64_t np, const int64_t *xo, const int64_t *yo);
  /* The same for a run of conv_blocked_p * conv_blocked_ob / nob consecutive positions of a
   * blocked input, where that is more than conv_blocked_p (a tile of fewer output blocks
   * than the variant's widest takes more positions into the same accumulators): position p
   * reads x[xo + 16 p + ...] and writes y[yo + 16 p + ...], the sums in the same order as the
   * tile's. NULL where the variant has none (conv_blocked_ob 1). */
  void (*conv_blocked_run_ukr_f32)(const berth_conv_blk_args_t *a, int64_t xo, int64_t yo);
  /* conv_winograd's input and output transforms (berth_wino_in_t, berth_wino_out_t above) */
  void (*winograd_in_f32)(const berth_wino_in_t *a);
  void (*winograd_out_f32)(const berth_wino_out_t *a);
  /* pool_blocked's output row (berth_pool_blk_row_t above) */
  int (*pool_blocked_row_f32)(const berth_pool_blk_row_t *r);
  /* softmax (log_out 0) or log_softmax (1) of the n >= 1 contiguous floats x into y (y may be
   * x): kernel_softmax.c's arithmetic (its row of one run) with the variant's vectors, the
   * exponentials with the bits exp_f32 gives (kernel_softmax_ukr.h). NULL where the variant
   * has none (the portable one: kernel_softmax.c's row with exp_f32). */
  void (*softmax_row_f32)(const float *x, float *y, int64_t n, int log_out);
  /* layer_norm (rms 0) or rms_norm (1) of the n floats x into y with scale sc and bias bi (NULL:
   * none), writing the row's mean (0 for rms) and 1 / sqrt(variance + eps): kernel_norm.c's row
   * with the variant's vectors, the same bits but where its f64 sums round differently
   * (kernel_norm_ukr.h). NULL where the variant has none (the portable one: kernel_norm.c's). */
  void (*layer_norm_row_f32)(const float *x, const float *sc, const float *bi, float *y, int64_t n, float eps,
                             int rms, float *mean, float *inv);
  /* matmul_packed's row path (kernel_gemv_ukr.h): y[j] (+)= sum over q < K of x[q] W[q][j] for
   * j < n, W in 32-column panels (wp[((j / 32) * K + q) * 32 + j % 32]); load: y holds the
   * starting values, else 0 */
  void (*gemv_p32_f32)(const float *x, const float *wp, int64_t K, int64_t n, float *y, int load);
} berth_kernel_isa_t;

/* The portable variant's functions (kernel_isa.c). */
void berth_portable_dot4xn_f32(const float *w, int64_t ldw, const float *x, int64_t ldx, int64_t cols, int64_t n,
                               float *out, int64_t ldo);
float berth_portable_dot_f32(const float *a, const float *b, int64_t n);
void berth_portable_dot4_2seg_f32(const float *r0, const float *r1, const float *r2, const float *r3,
                                  const float *x, int64_t n, const float *u0, const float *u1, const float *u2,
                                  const float *u3, const float *y, int64_t m, float out[4]);
void berth_portable_gemm_nn_f32(const float *A, int64_t lda, const float *B, int64_t ldb, const float *bias,
                                float *C, int64_t ldc, int64_t M, int64_t N, int64_t K);
void berth_portable_gemm_ukr_f32(const float *a, int64_t lda, const float *bp, int64_t kc, float *C, int64_t ldc,
                                 int64_t mr, int64_t nc, const float *bias, int load, const berth_ukr_epi_t *epi);
void berth_portable_exp_f32(const float *x, float *y, int64_t n);
void berth_portable_sigmoid_f32(const float *x, float *y, int64_t n);
void berth_portable_tanh_f32(const float *x, float *y, int64_t n);
void berth_portable_sqrt_f32(const float *x, float *y, int64_t n);
void berth_portable_erf_f32(const float *x, float *y, int64_t n);
void berth_portable_hard_sigmoid_f32(const float *x, float *y, int64_t n, float alpha, float beta);
void berth_portable_elu_f32(const float *x, float *y, int64_t n, float alpha);
void berth_portable_softplus_f32(const float *x, float *y, int64_t n);
void berth_portable_dwconv_f32(const berth_dw_geom_t *g, const float *x, const float *w, float bias, float *y,
                               float *buf);
void berth_portable_dwconv_lanes_f32(const berth_dw_geom_t *g, int64_t planes, const float *x, const float *w,
                                     const float *b, float *y, float *buf);
void berth_portable_pool2d_f32(const berth_pool_geom_t *g, int64_t planes, const float *x, float *y, float *buf);

extern const berth_kernel_isa_t berth_kernel_isa_portable;
#if defined(BERTH_KERNELS_SIMD) && defined(__x86_64__)
extern const berth_kernel_isa_t berth_kernel_isa_avx2;
extern const berth_kernel_isa_t berth_kernel_isa_avx512;
#endif
#if defined(BERTH_KERNELS_SIMD) && defined(__aarch64__)
extern const berth_kernel_isa_t berth_kernel_isa_neon;
#endif

/* The active variant (detected on the first call unless berth_kernels_select chose one). */
const berth_kernel_isa_t *berth_kernel_isa(void);
/* The table of one variant, or NULL if this build or this CPU lacks it. */
const berth_kernel_isa_t *berth_kernel_isa_table(berth_kernels_isa_t id);

#ifdef BERTH_KERNELS_SIMD
#define BERTH_KCALL(fn) (berth_kernel_isa()->fn)
#else
#define BERTH_KCALL(fn) berth_portable_##fn
#endif

#endif
