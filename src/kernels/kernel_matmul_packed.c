/* matmul_packed(a, wp[, c]) {wshape = [K, N], beta = 1}: a matrix product with f32 weights
 * packed at compile time (src/passes/pack.c packs MatMul's and Gemm's constant B):
 *
 *   y[..., i, :] = a[..., i, :] W  (+ beta * c),   W [K, N], a [..., K], y [..., N]
 *
 * a has rank >= 1 (a 1-D a is one row and y is 1-D); its R = prod(a.dims[:-1]) rows are one
 * matrix [R, K]. c (optional) broadcasts one way to [R, N] as Gemm's C does (rank <= 2, each
 * dim 1 or the full size; a rank-2 c needs rank-2 a), and beta * c is added even when beta is
 * 0 (a NaN in c shows). Gemm's alpha is folded into W when it is packed (alpha * W, a
 * rounding difference only), trans_b into the packing order; trans_a is not packed.
 *
 * Layout of wp: f32 [P, K, BERTH_MM_BPANEL], P = ceil(N / BERTH_MM_BPANEL): column panels of W,
 * each K rows of BERTH_MM_BPANEL (32) floats, zeros past column N: element (q, j) at
 * wp[((j / 32) * K + q) * 32 + j % 32]. The variants whose gemm_nr is 16 or 32 (AVX2,
 * AVX-512) multiply straight from the constant with their gemm_ukr_ldb32_f32 micro-kernel
 * (kernel_isa.h, kernel_ukr.h's UKR_LDB: B rows 32 floats apart), each panel as 32 / NR
 * slices of whole cache lines: no packing per call, A read in place, MLAS's structure with
 * B pre-packed. The others (portable and NEON, NR 8: a slice is half a line) take the packed
 * GEMM of kernel_gemm_pack.h with their panels copied out of wp into the call's scratch
 * (fixed-size row copies), which measured faster than their ldb32 entry in place. One row
 * (a batch-1 fully connected layer, memory- or cache-bound) streams each panel once as four
 * runs side by side, prefetched ahead, in the variant's vectors (kernel_isa.h's gemv_p32_f32,
 * kernel_gemv_ukr.h): from memory at the rate of a plain 4-stream read of as many bytes;
 * from the level-2 cache (openWakeWord's 1536 x 128 head, 768 KiB) 11.7 us with 4-float
 * vectors, 5.6 with AVX-512's. Without kernel variants (a small runtime), rows run one after
 * the other through the portable variant's.
 *
 * Each element of y sums its K products in order on the GEMM paths (from beta * c where the
 * variant's micro-kernel accumulates onto it), in four interleaved runs on the row path;
 * variants differ by rounding only. No allocation, no stdio. */
#include "kernel_gemm_pack.h"
#include "kernel_isa.h"
#include "kernel_scratch.h"
#include "kernel_util.h"

#include <string.h>

enum { MMP_WSHAPE, MMP_BETA };
#define MMP_PW BERTH_MM_BPANEL
#define MMP_KC 512 /* rows of K per block of the direct loop (a panel of 64 KiB at most) */
#define MMP_GROUP 4 /* panels per block: 128 columns, which stay in L2 while A's tiles pass */

typedef struct mmp_plan {
  int64_t rows, k, n, np, c_rows, c_cols; /* c's extent along rows and columns: 1 or full */
  berth_type_t out;
} mmp_plan_t;

static berth_status_t mmp_check_c(const berth_type_t *a, const berth_type_t *c, mmp_plan_t *p, berth_diag_t *diag) {
  char sc[160];
  bool ok = c->dtype == BERTH_DTYPE_F32 && c->rank <= 2 && (c->rank < 2 || a->rank == 2);
  p->c_rows = p->c_cols = 1;
  if (ok && c->rank >= 1) {
    p->c_cols = c->dims[c->rank - 1];
    ok = p->c_cols == 1 || p->c_cols == p->n;
  }
  if (ok && c->rank == 2) {
    p->c_rows = c->dims[0];
    ok = p->c_rows == 1 || p->c_rows == p->rows;
  }
  if (!ok)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "matmul_packed: c %s does not broadcast to the result [%lld,%lld] (expected f32 of rank <= 2 "
                      "with dims 1 or equal, rank 2 only with a 2-D a)",
                      berth_type_format(c, sc, sizeof sc), (long long)p->rows, (long long)p->n);
  return BERTH_OK;
}

static berth_status_t mmp_plan(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, mmp_plan_t *p,
                               berth_diag_t *diag) {
  char sa[160], sw[160];
  const berth_attr_value_t *ws = &attrs[MMP_WSHAPE];
  BERTH_TRY(berth_kernel_check_ints("matmul_packed", "wshape", ws, diag));
  if (ws->n != 2 || ws->ints[0] < 0 || ws->ints[0] > BERTH_MAX_DIM || ws->ints[1] < 0 || ws->ints[1] > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "matmul_packed: wshape has %d values, expected 2 ([K, N], each 0 to 2^40)", (int)ws->n);
  const berth_type_t *a = &in[0], *w = &in[1];
  p->k = ws->ints[0];
  p->n = ws->ints[1];
  p->np = (p->n + MMP_PW - 1) / MMP_PW;
  if (a->dtype != BERTH_DTYPE_F32 || a->rank < 1 || a->dims[a->rank - 1] != p->k)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "matmul_packed: a %s, expected f32 of rank >= 1 with %lld (K of wshape) in its last dim",
                      berth_type_format(a, sa, sizeof sa), (long long)p->k);
  if (w->dtype != BERTH_DTYPE_F32 || w->rank != 3 || w->dims[0] != p->np || w->dims[1] != p->k ||
      w->dims[2] != MMP_PW)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "matmul_packed: packed weights %s, expected f32[%lld,%lld,%d] for wshape [%lld, %lld]",
                      berth_type_format(w, sw, sizeof sw), (long long)p->np, (long long)p->k, MMP_PW,
                      (long long)p->k, (long long)p->n);
  p->rows = 1;
  berth_kernel_type_init(&p->out, BERTH_DTYPE_F32, a->rank);
  for (int32_t d = 0; d + 1 < a->rank; d++) {
    p->rows *= a->dims[d];
    p->out.dims[d] = a->dims[d];
  }
  p->out.dims[a->rank - 1] = p->n;
  if (n_in == 3) BERTH_TRY(mmp_check_c(a, &in[2], p, diag));
  return BERTH_OK;
}

static berth_status_t mmp_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_matmul_packed, in, n_in, diag));
  mmp_plan_t p;
  BERTH_TRY(mmp_plan(attrs, in, n_in, &p, diag));
  BERTH_TRY(berth_kernel_check_output("matmul_packed", &p.out, diag));
  out[0] = p.out;
  return BERTH_OK;
}

/* ---- run ------------------------------------------------------------------------------ */

_Static_assert(MMP_PW == 32, "kernel_gemv_ukr.h's panels are 32 columns wide");

/* y = beta * c broadcast over [rows, n] */
static void mmp_fill_c(const mmp_plan_t *p, float beta, const float *c, float *y) {
  for (int64_t i = 0; i < p->rows; i++) {
    const float *cr = c + (p->c_rows == 1 ? 0 : i) * p->c_cols;
    float *yr = y + i * p->n;
    if (p->c_cols == 1) {
      const float v = beta * cr[0];
      for (int64_t j = 0; j < p->n; j++) yr[j] = v;
    } else {
      for (int64_t j = 0; j < p->n; j++) yr[j] = beta * cr[j];
    }
  }
}

#ifdef BERTH_KERNELS_SIMD
/* Rows of tile t of M rows in tiles of at most MR: ntile tiles, the first of them one row
 * longer where M does not divide (64 rows at MR 12: 11, 11, 11, 11, 10, 10). */
static int64_t mmp_tile(int64_t M, int64_t MR, int64_t i0) {
  const int64_t ntile = (M + MR - 1) / MR, small = M / ntile, nbig = M - ntile * small;
  return i0 < nbig * (small + 1) ? small + 1 : small;
}

/* The micro-kernel straight over wp (gemm_ukr_ldb32_f32: A read in place, B rows MMP_PW
 * floats apart), no copy: K in equal blocks of at most MMP_KC, the panels in groups of
 * MMP_GROUP, each group served to every tile of MR rows of a, each panel as MMP_PW / NR
 * slices of NR columns (one where NR is 32: AVX-512; two on AVX2), the last ones cut at
 * column N. load: y holds beta * c. */
static void mmp_direct(const berth_kernel_isa_t *isa, const mmp_plan_t *p, const float *a, const float *wp, float *y,
                       int load) {
  const int64_t M = p->rows, K = p->k, N = p->n, MR = isa->gemm_mr, NR = isa->gemm_nr;
  const int64_t nblk = (K + MMP_KC - 1) / MMP_KC, kb = (K + nblk - 1) / nblk;
  for (int64_t k0 = 0; k0 < K; k0 += kb) {
    const int64_t kc = K - k0 < kb ? K - k0 : kb;
    const int ld = load || k0 > 0;
    for (int64_t p0 = 0; p0 < p->np; p0 += MMP_GROUP) {
      const int64_t p1 = p0 + MMP_GROUP < p->np ? p0 + MMP_GROUP : p->np;
      for (int64_t i0 = 0, mr; i0 < M; i0 += mr) {
        mr = mmp_tile(M, MR, i0);
        berth_gemm_prefetch_a(a, K, k0, kc, i0 + mr, i0 + mr < M ? mmp_tile(M, MR, i0 + mr) : 0);
        for (int64_t q = p0; q < p1; q++)
          for (int64_t j0 = q * MMP_PW; j0 < N && j0 < (q + 1) * MMP_PW; j0 += NR) {
            const int64_t nc = N - j0 < NR ? N - j0 : NR;
            isa->gemm_ukr_ldb32_f32(a + i0 * K + k0, K, wp + (q * K + k0) * MMP_PW + j0 % MMP_PW, kc, y + i0 * N + j0,
                                    N, mr, nc, NULL, ld, NULL);
          }
      }
    }
  }
}

/* berth_gemm_pack_fn over wp: columns j0..j0+nc of rows k0..k0+kc into panel rows of nr */
typedef struct mmp_ctx {
  const float *wp;
  int64_t k;
} mmp_ctx_t;
static void mmp_pack(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst, int64_t nr) {
  const mmp_ctx_t *g = (const mmp_ctx_t *)ctx;
  const int64_t off = j0 % MMP_PW;
  const float *s = g->wp + ((j0 / MMP_PW) * g->k + k0) * MMP_PW + off;
  if (off + nc <= MMP_PW) { /* inside one panel of wp (always where NR divides 32): rows 32 floats apart */
    if (nc == 16 && nr == 16) /* fixed-size copies, not a library call per row */
      for (int64_t q = 0; q < kc; q++) memcpy(dst + q * 16, s + q * MMP_PW, 16 * sizeof(float));
    else if (nc == 8 && nr == 8)
      for (int64_t q = 0; q < kc; q++) memcpy(dst + q * 8, s + q * MMP_PW, 8 * sizeof(float));
    else
      for (int64_t q = 0; q < kc; q++)
        for (int64_t c = 0; c < nr; c++) dst[q * nr + c] = c < nc ? s[q * MMP_PW + c] : 0.0f;
    return;
  }
  for (int64_t q = 0; q < kc; q++, dst += nr) {
    for (int64_t c = 0; c < nc;) {
      const int64_t j = j0 + c, o = j % MMP_PW, run = nc - c < MMP_PW - o ? nc - c : MMP_PW - o;
      memcpy(dst + c, g->wp + ((j / MMP_PW) * g->k + k0 + q) * MMP_PW + o, (size_t)run * sizeof(float));
      c += run;
    }
    if (nc < nr) memset(dst + nc, 0, (size_t)(nr - nc) * sizeof(float));
  }
}
#endif

/* y = a W + beta * c by the fastest applicable path; false where only the row loop applies */
static bool mmp_gemm(const mmp_plan_t *p, const float *a, const float *wp, const float *c, float beta, float *y,
                     const berth_kernel_call_t *call) {
#ifdef BERTH_KERNELS_SIMD
  const berth_kernel_isa_t *isa = berth_kernel_isa();
  if (p->rows < 2) return false;
  /* in place where each slice row is whole cache lines (NR >= 16: AVX2, AVX-512); slices of
   * 8 (portable, NEON) share each line with the next slice and measured 5-10 % slower in
   * place than with their panels copied contiguous (portable on the AVX2 EPYC) */
  const int64_t NR = isa->gemm_nr;
  if (isa->gemm_ukr_ldb32_f32 && NR >= 16 && MMP_PW % NR == 0) {
    if (c) mmp_fill_c(p, beta, c, y);
    mmp_direct(isa, p, a, wp, y, c != NULL);
    return true;
  }
  int64_t floats;
  float *buf = berth_scratch_take(call, sizeof(float), &floats);
  const mmp_ctx_t ctx = {wp, p->k};
  if (!berth_gemm_packed_try_f32(a, p->k, NULL, y, p->n, p->rows, p->n, p->k, mmp_pack, &ctx, buf, floats))
    return false;
  if (c) /* y += beta * c, as gemm's epilogue */
    for (int64_t i = 0; i < p->rows; i++) {
      const float *cr = c + (p->c_rows == 1 ? 0 : i) * p->c_cols;
      float *yr = y + i * p->n;
      for (int64_t j = 0; j < p->n; j++) yr[j] += beta * cr[p->c_cols == 1 ? 0 : j];
    }
  return true;
#else
  (void)p, (void)a, (void)wp, (void)c, (void)beta, (void)y, (void)call;
  return false;
#endif
}

static void mmp_run(const berth_kernel_call_t *call) {
  berth_type_t in[3];
  for (int32_t i = 0; i < call->n_in; i++) in[i] = *call->in[i].type;
  mmp_plan_t p;
  if (mmp_plan(call->attrs, in, call->n_in, &p, NULL) != BERTH_OK) return; /* infer accepted it */
  if (berth_kernel_is_empty(&p.out)) return;
  const float *a = call->in[0].data, *wp = call->in[1].data, *c = call->n_in == 3 ? call->in[2].data : NULL;
  const float beta = (float)call->attrs[MMP_BETA].f;
  float *y = call->out[0].data;
  if (p.k == 0) { /* empty sums: beta * c, or zeros */
    if (c) mmp_fill_c(&p, beta, c, y);
    else memset(y, 0, (size_t)(p.rows * p.n) * sizeof(float));
    return;
  }
  if (mmp_gemm(&p, a, wp, c, beta, y, call)) return;
  if (c) mmp_fill_c(&p, beta, c, y);
  const berth_kernel_isa_t *isa = berth_kernel_isa();
  for (int64_t i = 0; i < p.rows; i++) isa->gemv_p32_f32(a + i * p.k, wp, p.k, p.n, y + i * p.n, c != NULL);
}

uint64_t berth_scratch_matmul_packed(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  mmp_plan_t p;
  if (n_in < 2 || n_in > 3 || mmp_plan(attrs, in, n_in, &p, NULL) != BERTH_OK) return 0;
  if (berth_kernel_is_empty(&p.out) || p.k == 0) return 0;
  /* the variants whose panels are not wp's (NR 8 or 16) pack them per call */
  return berth_scratch_request(berth_gemm_scratch_floats(p.rows, p.n, p.k), sizeof(float));
}

/* ---- compiler side (src/passes/pack.c) ------------------------------------------------- */

void berth_mm_pack_weights(const float *b, int64_t K, int64_t N, bool trans, float alpha, float *dst) {
  const int64_t np = (N + MMP_PW - 1) / MMP_PW;
  for (int64_t pn = 0; pn < np; pn++)
    for (int64_t q = 0; q < K; q++)
      for (int64_t c = 0; c < MMP_PW; c++) {
        const int64_t j = pn * MMP_PW + c;
        const float v = j >= N ? 0.0f : trans ? b[j * K + q] : b[q * N + j];
        dst[(pn * K + q) * MMP_PW + c] = alpha == 1.0f ? v : alpha * v;
      }
}

static const berth_attr_spec_t mmp_attrs[] = {
    {"wshape", BERTH_ATTR_INTS, true, 0, 0},
    {"beta", BERTH_ATTR_SCALAR, false, 0, 1},
};
const berth_op_def_t berth_op_def_matmul_packed = {"matmul_packed", BERTH_OPKIND_KERNEL, 2, 3, 1, 2, mmp_attrs,
                                                   mmp_infer, mmp_run};
