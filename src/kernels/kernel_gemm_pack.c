/* Packed f32 GEMM: the blocked loops around the micro-kernel (kernel_gemm_pack.h). */
#include "kernel_gemm_pack.h"

#include <string.h>

#define GEMM_PACK_MIN_KC 16
#define GEMM_PACK_KC 512 /* rows of K per block at most: a panel of 32 columns is 64 KiB */
#define GEMM_PACK_WB_KC 256 /* berth_gemm_packed_wb_f32: a panel of W (32 columns: 32 KiB) stays in L1 */
#define GEMM_BS_MAX_M 48 /* the path with B in place: at most this many rows of A (measured: 16 rows
                          * 15 % faster, 48 5 %, 32 even, 64 rows over 16 of K 12 % slower) */
/* and up to GEMM_BS_WIDE_M rows where K and N are large (1x1 convs to 64 channels over 28x28 or
 * more: copying B into panels measured 8-15 % of such a GEMM, over 64-320 rows of K; over 16-32
 * rows of K, or 196 columns and fewer, packing stays as fast or faster) */
#define GEMM_BS_WIDE_M 64
#define GEMM_BS_WIDE_MIN_K 64
#define GEMM_BS_WIDE_MIN_N 512
#define GEMM_BS_KC 256  /* and blocks of at most this many rows of K */
#define GEMM_WB_SPLIT 2 /* berth_gemm_packed_wb_f32 (two halves): calls per tile and block of K */
#define GEMM_PACK_WB_KC2 512 /* the same where each panel runs as two halves of 16 columns (the scratch caps it) */

/* A block of packed A (the next panel's): n floats in a row, as berth_gemm_prefetch_a. */
static inline void gemm_prefetch_run(const float *a, int64_t n) {
#if defined(__GNUC__)
  for (int64_t q = 0; q < n; q += 16) __builtin_prefetch(a + q, 0, 2);
#else
  (void)a, (void)n;
#endif
}

/* Slice s of n of a run of floats, prefetched (the run spread over n calls). */
static inline void gemm_prefetch_slice(const float *a, int64_t len, int64_t s, int64_t n) {
  const int64_t lines = (len + 15) / 16, l0 = lines * s / n, l1 = lines * (s + 1) / n;
  gemm_prefetch_run(a + l0 * 16, (l1 - l0) * 16);
}

bool berth_gemm_packed_fits(const berth_kernel_isa_t *isa, int64_t floats) {
  return isa->gemm_ukr_f32 && isa->gemm_nr > 0 && floats / isa->gemm_nr >= GEMM_PACK_MIN_KC;
}

/* Rows of the tile that starts at row i0: M in groups of `group` rows (the packed A's panels,
 * or all of M), each group in ceil(rows / MR) tiles of mbig or mbig - 1 rows (the first
 * nbig of mbig): 64 rows at MR 12 are 11, 11, 11, 11, 10, 10 rather than 12 x 5 + 4, whose
 * last tile would run its multiply-adds at a third of the rate. */
static int64_t gemm_tile_rows(int64_t M, int64_t MR, int64_t group, int64_t i0) {
  const int64_t g0 = i0 - i0 % group, rows = M - g0 < group ? M - g0 : group;
  const int64_t ntile = (rows + MR - 1) / MR, mbig = (rows + ntile - 1) / ntile, nbig = rows - ntile * (mbig - 1);
  return i0 - g0 < nbig * mbig ? mbig : mbig - 1;
}

/* gemm_tile_rows' split walked in order with divisions only where a group's layout is new
 * (a full group's once, the last group's once): the loops asked gemm_tile_rows for every
 * tile, three 64-bit divisions each, and with the prefetch slices' two more these took a
 * tenth of a GEMM over 16 rows of K (SqueezeNet's expand 1x1 convs). */
typedef struct gemm_tiles {
  int64_t M, MR, group;
  int64_t g0, u, i0, mr;  /* the tile: its group's first row, its index there, its first row, its rows */
  int64_t nt, mb, nb;     /* the group's layout: nt tiles, the first nb of mb rows, the rest mb - 1 */
  int64_t fnt, fmb, fnb;  /* a full group's layout */
} gemm_tiles_t;

static void gemm_tiles_layout(int64_t rows, int64_t MR, int64_t *nt, int64_t *mb, int64_t *nb) {
  if (rows < 1) { /* no rows: no tile (the walk ends at once) */
    *nt = *mb = *nb = 0;
    return;
  }
  *nt = (rows + MR - 1) / MR;
  *mb = (rows + *nt - 1) / *nt;
  *nb = rows - *nt * (*mb - 1);
}
static void gemm_tiles_enter(gemm_tiles_t *w) { /* the group at w->g0, its first tile */
  if (w->M - w->g0 >= w->group)
    w->nt = w->fnt, w->mb = w->fmb, w->nb = w->fnb;
  else
    gemm_tiles_layout(w->M - w->g0, w->MR, &w->nt, &w->mb, &w->nb);
  w->u = 0, w->i0 = w->g0, w->mr = w->mb;
}
static gemm_tiles_t gemm_tiles_start(int64_t M, int64_t MR, int64_t group) {
  gemm_tiles_t w = {M, MR, group, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  gemm_tiles_layout(group < M ? group : M, MR, &w.fnt, &w.fmb, &w.fnb);
  gemm_tiles_enter(&w);
  return w;
}
/* The next tile; false past the last one. */
static inline bool gemm_tiles_next(gemm_tiles_t *w) {
  w->i0 += w->mr;
  if (w->i0 >= w->M) return false;
  if (++w->u == w->nt) {
    w->g0 += w->group;
    gemm_tiles_enter(w);
  } else {
    w->mr = w->u < w->nb ? w->mb : w->mb - 1;
  }
  return true;
}
static int64_t gemm_tiles_count(int64_t M, int64_t MR, int64_t group) {
  int64_t n = 0;
  for (gemm_tiles_t w = gemm_tiles_start(M, MR, group);; n++)
    if (!gemm_tiles_next(&w)) return n + 1;
}
/* Rows [k0 + t * slice, ...) of kc: tile t's share of the next block's prefetch (one
 * division per block of K, not two per tile). */
static inline void gemm_slice(int64_t kc, int64_t slice, int64_t t, int64_t *q0, int64_t *qn) {
  const int64_t a = t * slice < kc ? t * slice : kc;
  *q0 = a;
  *qn = kc - a < slice ? kc - a : slice;
}

/* n floats (a panel's width), the usual widths as fixed-size copies (no call). */
static inline void gemm_copy_nr(float *restrict d, const float *restrict s, int64_t n) {
  if (n == 16)
    memcpy(d, s, 16 * sizeof(float));
  else if (n == 8)
    memcpy(d, s, 8 * sizeof(float));
  else if (n == 32)
    memcpy(d, s, 32 * sizeof(float));
  else
    memcpy(d, s, (size_t)n * sizeof(float));
}

/* Rows k0 .. k0 + kn - 1, columns j0 .. j0 + nc - 1 of B in place (berth_gemm_pack_rows), asked
 * for into L2: the next block of columns, a slice per tile of A while this block's tiles run
 * (its rows are kc runs far apart, too many streams for the hardware prefetchers). */
static void gemm_prefetch_rows(const void *ctx, int64_t k0, int64_t kn, int64_t j0, int64_t nc) {
#if defined(__GNUC__)
  const berth_gemm_rows_t *g = (const berth_gemm_rows_t *)ctx;
  for (int64_t q = k0; q < k0 + kn; q++)
    for (int64_t c = 0; c < nc; c += 16) __builtin_prefetch(g->b + q * g->ldb + j0 + c, 0, 2);
#else
  (void)ctx, (void)k0, (void)kn, (void)j0, (void)nc;
#endif
}

/* Packs the panels of columns j0.. for one block of K (as many as np, up to N) into buf, panel p
 * at buf + p * kc * NR (a last panel of at most NR / 2 columns NR / 2 wide where `half`);
 * returns how many. Rows of B in place (berth_gemm_pack_rows): row by row across all the
 * panels, one run of np * NR floats per row of K (a 1x1 conv's 256 rows, say), rather than
 * panel by panel, one short run of NR floats from each of kc rows far apart per panel. */
static int64_t gemm_pack_block(berth_gemm_pack_fn pack, const void *ctx, int64_t k0, int64_t kc, int64_t j0,
                               int64_t N, int64_t np, int64_t NR, int half, float *buf) {
  int64_t npan = 0;
  while (npan < np && j0 + npan * NR < N) npan++;
  const int64_t nlast = N - (j0 + (npan - 1) * NR) < NR ? N - (j0 + (npan - 1) * NR) : NR;
  const int64_t wlast = half && nlast <= NR / 2 ? NR / 2 : NR;
  if (pack != berth_gemm_pack_rows) {
    for (int64_t p = 0; p < npan; p++) {
      const int64_t jp = j0 + p * NR, nc = N - jp < NR ? N - jp : NR;
      pack(ctx, k0, kc, jp, nc, buf + p * kc * NR, p == npan - 1 ? wlast : NR);
    }
    return npan;
  }
  const berth_gemm_rows_t *g = (const berth_gemm_rows_t *)ctx;
  for (int64_t q = 0; q < kc; q++) {
    const float *src = g->b + (k0 + q) * g->ldb + j0;
    float *dst = buf + q * NR;
    for (int64_t p = 0; p + 1 < npan; p++) gemm_copy_nr(dst + p * kc * NR, src + p * NR, NR);
    float *dl = buf + (npan - 1) * kc * NR + q * wlast;
    memcpy(dl, src + (npan - 1) * NR, (size_t)nlast * sizeof(float));
    if (nlast < wlast) memset(dl + nlast, 0, (size_t)(wlast - nlast) * sizeof(float));
  }
  return npan;
}

/* B in place (berth_gemm_pack_rows) with A pre-packed, for few rows of A: each element of B
 * serves M rows, too few to pay for copying it into a panel first (SqueezeNet's 1x1 convs, 16 to
 * 64 output channels over 3025 positions: the copy cost a third of such a layer). K in blocks of
 * at most GEMM_BS_KC rows, then strips of NR columns read in place by every tile of A (the
 * strip's kc rows stay in L1 between the tiles; the next strip's rows are asked for a slice per
 * tile), a last strip narrower than NR packed as before (the micro-kernel reads NR floats from
 * every row, and past B's end there may be nothing). */
static bool gemm_b_in_place(const berth_kernel_isa_t *isa, int64_t apk, berth_gemm_pack_fn pack, int64_t M, int64_t N,
                            int64_t K) {
  if (apk <= 0 || pack != berth_gemm_pack_rows || !isa->gemm_ukr_pa_bs_f32 || N < isa->gemm_nr) return false;
  return M <= GEMM_BS_MAX_M || (M <= GEMM_BS_WIDE_M && K >= GEMM_BS_WIDE_MIN_K && N >= GEMM_BS_WIDE_MIN_N);
}

static void gemm_packed_bs(const berth_kernel_isa_t *isa, const float *A, int64_t AP, const float *bias, float *C,
                           int64_t ldc, int64_t M, int64_t N, int64_t K, const berth_gemm_rows_t *g, float *buf,
                           int64_t floats, const berth_ukr_epi_t *epi) {
  const int64_t MR = isa->gemm_mr, NR = isa->gemm_nr, ldb = g->ldb, nfull = N / NR, tail = N - nfull * NR;
  const int half = isa->gemm_ukr_pa_half_f32 != NULL && NR % 2 == 0;
  berth_ukr_epi_t te;
  if (epi) te = *epi;
  int64_t kmax = floats / NR < GEMM_BS_KC ? floats / NR : GEMM_BS_KC;
  const int64_t nblk = (K + kmax - 1) / kmax, kb = (K + nblk - 1) / nblk;
  const int64_t ntile = gemm_tiles_count(M, MR, AP);
  for (int64_t k0 = 0; k0 < K; k0 += kb) {
    const int64_t kc = K - k0 < kb ? K - k0 : kb, slice = (kc + ntile - 1) / ntile;
    const int load = k0 > 0, last = k0 + kc == K;
    for (int64_t s = 0; s < nfull + (tail > 0); s++) {
      const int64_t j0 = s * NR, nc = s < nfull ? NR : tail;
      const float *bp = g->b + k0 * ldb + j0;
      int64_t lb = ldb;
      int h = 0;
      if (s == nfull) { /* the narrow last strip, packed */
        h = half && nc <= NR / 2;
        lb = h ? NR / 2 : NR;
        berth_gemm_pack_rows(g, k0, kc, j0, nc, buf, lb);
        bp = buf;
      }
      gemm_tiles_t w = gemm_tiles_start(M, MR, AP);
      for (int64_t t = 0;; t++) {
        const int64_t i0 = w.i0, mr = w.mr;
        if (s + 1 < nfull) {
          int64_t q0, qn;
          gemm_slice(kc, slice, t, &q0, &qn);
          gemm_prefetch_rows(g, k0 + q0, qn, j0 + NR, NR);
        }
        const float *a = A + w.g0 * K + k0 * AP + (i0 - w.g0);
        if (epi && last) te.res = epi->res ? epi->res + i0 * epi->ldr + j0 : NULL;
        const berth_ukr_epi_t *e = epi && last ? &te : NULL;
        const float *bi = bias ? bias + i0 : NULL;
        if (s < nfull)
          isa->gemm_ukr_pa_bs_f32(a, AP, bp, lb, kc, C + i0 * ldc + j0, ldc, mr, nc, bi, load, e);
        else
          (h ? isa->gemm_ukr_pa_half_f32 : isa->gemm_ukr_pa_f32)(a, AP, bp, kc, C + i0 * ldc + j0, ldc, mr, nc, bi,
                                                                   load, e);
        if (!gemm_tiles_next(&w)) break;
      }
    }
  }
}

/* The loops; A in place (apk 0: row i at A + i * lda) or packed (apk > 0: panels of apk
 * rows, berth_gemm_pack_a's layout). */
static void gemm_packed(const berth_kernel_isa_t *isa, const float *A, int64_t lda, int64_t apk, const float *bias,
                        float *C, int64_t ldc, int64_t M, int64_t N, int64_t K, berth_gemm_pack_fn pack,
                        const void *ctx, float *buf, int64_t floats, const berth_ukr_epi_t *epi) {
  const int64_t MR = isa->gemm_mr, NR = isa->gemm_nr, AP = apk ? apk : BERTH_GEMM_APANEL;
  /* a last panel of at most NR / 2 columns is packed NR / 2 wide for the half-width tile */
  const int half = (apk ? isa->gemm_ukr_pa_half_f32 : isa->gemm_ukr_half_f32) != NULL && NR % 2 == 0;
  berth_ukr_epi_t te; /* the epilogue of one tile: epi with the residual at the tile */
  if (epi) te = *epi;
  if (K == 0) { /* the bias alone (the micro-kernel over no rows of K, for the epilogue) */
    for (int64_t i0 = 0, mr; i0 < M; i0 += mr) {
      mr = M - i0 < MR ? M - i0 : MR;
      for (int64_t j0 = 0, nc; j0 < N; j0 += nc) {
        nc = N - j0 < NR ? N - j0 : NR;
        if (epi) te.res = epi->res ? epi->res + i0 * epi->ldr + j0 : NULL;
        isa->gemm_ukr_f32(A, lda, buf, 0, C + i0 * ldc + j0, ldc, mr, nc, bias ? bias + i0 : NULL, 0,
                          epi ? &te : NULL);
      }
    }
    return;
  }
  if (M < 1 || N < 1) return; /* no tile (the walk below starts at one) */
  if (gemm_b_in_place(isa, apk, pack, M, N, K)) {
    gemm_packed_bs(isa, A, AP, bias, C, ldc, M, N, K, (const berth_gemm_rows_t *)ctx, buf, floats, epi);
    return;
  }
  /* K in equal blocks of at most GEMM_PACK_KC rows (fewer if the scratch is smaller), then
   * as many panels of NR columns per block as the scratch holds: each block of A (MR rows x
   * kc) serves them all while it is in L1 */
  int64_t kmax = floats / NR < GEMM_PACK_KC ? floats / NR : GEMM_PACK_KC;
  const int64_t nblk = (K + kmax - 1) / kmax, kb = (K + nblk - 1) / nblk;
  const int64_t np = floats / (kb * NR), group = apk ? AP : M, ntile = gemm_tiles_count(M, MR, group);
  for (int64_t k0 = 0; k0 < K; k0 += kb) {
    const int64_t kc = K - k0 < kb ? K - k0 : kb, slice = (kc + ntile - 1) / ntile;
    const int load = k0 > 0, last = k0 + kc == K;
    for (int64_t j0 = 0; j0 < N; j0 += np * NR) {
      const int64_t npan = gemm_pack_block(pack, ctx, k0, kc, j0, N, np, NR, half, buf);
      const int64_t jn = j0 + np * NR; /* the next block of columns */
      gemm_tiles_t w = gemm_tiles_start(M, MR, group);
      for (int64_t t = 0;; t++) {
        const int64_t i0 = w.i0, mr = w.mr;
        if (pack == berth_gemm_pack_rows && jn < N) {
          int64_t q0, qn;
          gemm_slice(kc, slice, t, &q0, &qn);
          gemm_prefetch_rows(ctx, k0 + q0, qn, jn, N - jn < np * NR ? N - jn : np * NR);
        }
        const float *a;
        int64_t la;
        if (apk) {
          a = A + w.g0 * K + k0 * AP + (i0 - w.g0); /* group == AP: the tile's panel starts at w.g0 */
          la = AP;
          /* the next panel's block (one run of kc * AP floats) while this panel's tiles run */
          if (w.u == 0 && i0 + AP < M) gemm_prefetch_run(a + AP * K, kc * AP);
        } else {
          a = A + i0 * lda + k0;
          la = lda;
          gemm_tiles_t nx = w;
          if (gemm_tiles_next(&nx)) berth_gemm_prefetch_a(A, lda, k0, kc, nx.i0, nx.mr);
        }
        for (int64_t p = 0; p < npan; p++) {
          const int64_t jp = j0 + p * NR, nc = N - jp < NR ? N - jp : NR;
          const int h = half && nc <= NR / 2;
          if (epi && last) te.res = epi->res ? epi->res + i0 * epi->ldr + jp : NULL;
          /* the epilogue on the accumulators at the last block of K, before the store */
          (apk ? (h ? isa->gemm_ukr_pa_half_f32 : isa->gemm_ukr_pa_f32)
               : (h ? isa->gemm_ukr_half_f32 : isa->gemm_ukr_f32))(a, la, buf + p * kc * NR, kc, C + i0 * ldc + jp,
                                                                   ldc, mr, nc, bias ? bias + i0 : NULL, load,
                                                                   epi && last ? &te : NULL);
        }
        if (!gemm_tiles_next(&w)) break;
      }
    }
  }
}

void berth_gemm_packed_f32(const berth_kernel_isa_t *isa, const float *A, int64_t lda, const float *bias, float *C,
                           int64_t ldc, int64_t M, int64_t N, int64_t K, berth_gemm_pack_fn pack, const void *ctx,
                           float *buf, int64_t floats) {
  gemm_packed(isa, A, lda, 0, bias, C, ldc, M, N, K, pack, ctx, buf, floats, NULL);
}

void berth_gemm_packed_pa_f32(const berth_kernel_isa_t *isa, const float *Apk, const float *bias, float *C,
                              int64_t ldc, int64_t M, int64_t N, int64_t K, berth_gemm_pack_fn pack, const void *ctx,
                              float *buf, int64_t floats) {
  gemm_packed(isa, Apk, 0, BERTH_GEMM_APANEL, bias, C, ldc, M, N, K, pack, ctx, buf, floats, NULL);
}

void berth_gemm_packed_pa_ap_f32(const berth_kernel_isa_t *isa, const float *Apk, int64_t ap, const float *bias,
                                 float *C, int64_t ldc, int64_t M, int64_t N, int64_t K, berth_gemm_pack_fn pack,
                                 const void *ctx, float *buf, int64_t floats) {
  gemm_packed(isa, Apk, 0, ap, bias, C, ldc, M, N, K, pack, ctx, buf, floats, NULL);
}

void berth_gemm_packed_epi_f32(const berth_kernel_isa_t *isa, const float *A, int64_t lda, int64_t ap,
                               const float *bias, float *C, int64_t ldc, int64_t M, int64_t N, int64_t K,
                               berth_gemm_pack_fn pack, const void *ctx, float *buf, int64_t floats,
                               const berth_ukr_epi_t *epi) {
  gemm_packed(isa, A, ap ? 0 : lda, ap, bias, C, ldc, M, N, K, pack, ctx, buf, floats, epi);
}

/* How berth_gemm_packed_wb_f32 runs on a variant: W's panels as the variant's own B panels
 * (NR == BERTH_GEMM_WB_PANEL: AVX-512), or each as two halves of NR columns
 * (gemm_ukr_pa_b2_f32: AVX2); 0 where neither applies. */
static int gemm_wb_halves(const berth_kernel_isa_t *isa) {
  if (!isa->gemm_ukr_pa_f32 || isa->gemm_nr < 1) return 0;
  if (isa->gemm_nr == BERTH_GEMM_WB_PANEL) return 1;
  return isa->gemm_ukr_pa_b2_f32 && 2 * isa->gemm_nr == BERTH_GEMM_WB_PANEL ? 2 : 0;
}

/* The packed A's rows: in panels of NR rows on a variant whose tile is as wide as W's panels
 * (AVX-512); else (AVX2) each tile of the rows in a panel of its own, the tiles an even split
 * of M (49 positions at MR 6: 6 x 4 + 5 x 5, where panels of 16 would give 6, 5, 5 three times
 * and a tile of one), so a tile's block of A is one contiguous run. Such a panel is MR rounded
 * up to 8 high (AVX2: 8 for 6 rows), so the im2col packer stores whole registers: panels of 6
 * took a masked store per row (slow on AMD), measured 8-10 % of ResNet-50's 7x7 3x3 layer. */
static int64_t gemm_wb_ah(const berth_kernel_isa_t *isa) {
  return gemm_wb_halves(isa) == 2 ? (isa->gemm_mr + 7) / 8 * 8 : isa->gemm_nr;
}
static int64_t gemm_wb_rows(const berth_kernel_isa_t *isa, int64_t M) {
  const int64_t NR = isa->gemm_nr, MR = isa->gemm_mr;
  return gemm_wb_halves(isa) == 2 ? (M + MR - 1) / MR * gemm_wb_ah(isa) : (M + NR - 1) / NR * NR;
}

bool berth_gemm_packed_wb_ok(const berth_kernel_isa_t *isa) { return gemm_wb_halves(isa) != 0; }

int64_t berth_gemm_packed_wb_kc(const berth_kernel_isa_t *isa, int64_t M, int64_t K, int64_t floats) {
  if (gemm_wb_halves(isa) == 0 || M < 1) return 0;
  /* two halves: a block of K whose half panel of W (kc lines of 128 bytes) and the tiles of A
   * stay in L1 (measured on ResNet-50's 7x7 stage, AVX2) */
  const int64_t mp = gemm_wb_rows(isa, M), cap = gemm_wb_halves(isa) == 2 ? GEMM_PACK_WB_KC2 : GEMM_PACK_WB_KC;
  const int64_t kmax = floats / mp < cap ? floats / mp : cap;
  if (kmax < GEMM_PACK_MIN_KC && kmax < K) return 0;
  const int64_t nblk = (K + kmax - 1) / kmax;
  return (K + nblk - 1) / nblk;
}

/* Panel s of W in the order berth_gemm_packed_wb_f32 runs them (blocks of kb rows of K, in
 * each the panels of 32 columns left to right): its first float and *len floats (0 past the
 * last). */
static const float *gemm_wb_panel(const float *Wpk, int64_t N, int64_t K, int64_t kb, int64_t s, int64_t *len) {
  const int64_t W = BERTH_GEMM_WB_PANEL, np = (N + W - 1) / W, k0 = s / np * kb;
  *len = k0 < K ? (K - k0 < kb ? K - k0 : kb) * W : 0;
  return k0 < K ? Wpk + s % np * W * K + k0 * W : Wpk;
}

void berth_gemm_packed_wb_f32(const berth_kernel_isa_t *isa, berth_gemm_pack_fn pack, const void *ctx, int64_t kq,
                              const float *Wpk, float *C, int64_t ldc, int64_t M, int64_t N, int64_t K, float *buf,
                              int64_t floats) {
  const int64_t MR = isa->gemm_mr, NR = isa->gemm_nr, W = BERTH_GEMM_WB_PANEL, halves = gemm_wb_halves(isa);
  const int64_t ah = gemm_wb_ah(isa), group = halves == 2 ? M : NR; /* panel height; tiles split groups */
  const int64_t kb = berth_gemm_packed_wb_kc(isa, M, K, floats), ntile = (M + MR - 1) / MR;
  void (*ukr)(const float *, int64_t, const float *, int64_t, float *, int64_t, int64_t, int64_t, const float *,
              int, const berth_ukr_epi_t *) = halves == 2 ? isa->gemm_ukr_pa_b2_f32 : isa->gemm_ukr_pa_f32;
  int64_t s = 0, len;
  const float *first = gemm_wb_panel(Wpk, N, K, kb, 0, &len);
  /* the first panel of W asked for while the first block of A is packed: each panel is asked
   * for while the one before it runs, the first of a block of K included (a block of 128
   * output channels has only 4 panels, the first of them on demand before: Inception v2's 1x1
   * 1024->128 7x7 conv in a driver with the weights cold, 3-5 %) */
  gemm_prefetch_run(first, len);
  for (int64_t k0 = 0; k0 < K; k0 += kb) {
    const int64_t kc = K - k0 < kb ? K - k0 : kb;
    /* every row of A for this block of K, in panels of ah rows (they stay in L2): NR rows each,
     * or (halves) one tile each; kq rows of K at a time across all the panels where the caller
     * asks (the source rows they share stay in L1) */
    const int64_t kstep = kq > 0 && kq < kc ? kq : kc;
    for (int64_t q0 = 0; q0 < kc; q0 += kstep) {
      const int64_t kn = kc - q0 < kstep ? kc - q0 : kstep;
      float *pan = buf + q0 * ah;
      for (int64_t i0 = 0; i0 < M; pan += ah * kc) {
        const int64_t n = halves == 2 ? gemm_tile_rows(M, MR, group, i0) : (M - i0 < NR ? M - i0 : NR);
        pack(ctx, k0 + q0, kn, i0, n, pan, ah);
        i0 += n;
      }
    }
    /* each panel of W (kc x W, from memory once) serves every tile of A from L1 */
    for (int64_t j0 = 0; j0 < N; j0 += W, s++) {
      const float *bp = Wpk + j0 * K + k0 * W, *next = gemm_wb_panel(Wpk, N, K, kb, s + 1, &len);
      if (halves == 1) gemm_prefetch_run(next, len);
      for (int64_t h = 0; h < halves; h++)
        for (int64_t i0 = 0, t = 0; i0 < M; t++) {
          const int64_t mr = gemm_tile_rows(M, MR, group, i0);
          const float *a = halves == 2 ? buf + t * ah * kc : buf + (i0 - i0 % ah) * kc + i0 % ah;
          if (halves == 1) {
            ukr(a, ah, bp, kc, C + i0 * ldc + j0, ldc, mr, NR, NULL, 1, NULL);
            i0 += mr;
            continue;
          }
          /* two halves: each tile in GEMM_WB_SPLIT calls over parts of the block of K (the same
           * sums: each call goes on from C), the next panel of W a slice before each, spread over
           * this panel's calls (whole panels ahead at once, or larger slices, measured slower:
           * the requests queue in front of the tiles' own loads) */
          for (int64_t sp = 0; sp < GEMM_WB_SPLIT; sp++) {
            const int64_t qa = kc * sp / GEMM_WB_SPLIT, qb = kc * (sp + 1) / GEMM_WB_SPLIT;
            gemm_prefetch_slice(next, len, (h * ntile + t) * GEMM_WB_SPLIT + sp, 2 * ntile * GEMM_WB_SPLIT);
            ukr(a + qa * ah, ah, bp + qa * W + h * NR, qb - qa, C + i0 * ldc + j0 + h * NR, ldc, mr, NR, NULL, 1,
                NULL);
          }
          i0 += mr;
        }
    }
  }
}

void berth_gemm_pack_a(const float *A, int64_t lda, int64_t M, int64_t K, float *dst) {
  berth_gemm_pack_a_ap(A, lda, M, K, BERTH_GEMM_APANEL, dst);
}

void berth_gemm_pack_a_ap(const float *A, int64_t lda, int64_t M, int64_t K, int64_t AP, float *dst) {
  for (int64_t p0 = 0; p0 < M; p0 += AP, dst += AP * K)
    for (int64_t q = 0; q < K; q++)
      for (int64_t r = 0; r < AP; r++) dst[q * AP + r] = p0 + r < M ? A[(p0 + r) * lda + q] : 0.0f;
}

void berth_gemm_pack_rows(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst, int64_t nr) {
  const berth_gemm_rows_t *g = (const berth_gemm_rows_t *)ctx;
  for (int64_t q = 0; q < kc; q++, dst += nr) {
    memcpy(dst, g->b + (k0 + q) * g->ldb + j0, (size_t)nc * sizeof(float));
    if (nc < nr) memset(dst + nc, 0, (size_t)(nr - nc) * sizeof(float));
  }
}

bool berth_gemm_packed_try_f32(const float *A, int64_t lda, const float *bias, float *C, int64_t ldc, int64_t M,
                               int64_t N, int64_t K, berth_gemm_pack_fn pack, const void *ctx, float *buf,
                               int64_t floats) {
#ifdef BERTH_KERNELS_SIMD
  const berth_kernel_isa_t *isa = berth_kernel_isa();
  if (!buf || M < 4 || N < isa->gemm_nr || !berth_gemm_packed_fits(isa, floats)) return false;
  berth_gemm_packed_f32(isa, A, lda, bias, C, ldc, M, N, K, pack, ctx, buf, floats);
  return true;
#else /* small runtimes keep the loops they had */
  (void)A, (void)lda, (void)bias, (void)C, (void)ldc, (void)M, (void)N, (void)K, (void)pack, (void)ctx, (void)buf,
      (void)floats;
  return false;
#endif
}

#define GEMM_SCRATCH_NC 128 /* columns per block of the request */
/* Up to this many columns in one block when the block stays within GEMM_SCRATCH_ALL_MAX floats
 * (448 KiB, under the 512 KiB L2 of the machines measured): A then streams from memory once
 * instead of once per block (ResNet-50's 14x14 1x1 convs, 196 positions: 1 MiB of weights read
 * twice in blocks of 128 columns; measured 2-5 % faster per layer in the network). */
#define GEMM_SCRATCH_ALL_N 256
#define GEMM_SCRATCH_ALL_MAX (112 * 1024)

uint64_t berth_gemm_scratch_floats(int64_t M, int64_t N, int64_t K) {
  if (M < 4 || N < 8 || K < 1) return 0;
  uint64_t kc = K < GEMM_PACK_KC ? (uint64_t)K : GEMM_PACK_KC;
  uint64_t nc = N < GEMM_SCRATCH_NC ? ((uint64_t)N + 63) / 64 * 64 : GEMM_SCRATCH_NC;
  const uint64_t all = ((uint64_t)N + 15) / 16 * 16;
  if (N > GEMM_SCRATCH_NC && N <= GEMM_SCRATCH_ALL_N && kc * all <= GEMM_SCRATCH_ALL_MAX) nc = all;
  return kc * nc;
}
