/* Tests of the kernel variants (src/kernels/kernel_isa.h): every variant this build and CPU
 * have against plain double-precision loops and against the portable variant, on random
 * shapes with the edge sizes (empty, shorter than a vector, one past a register block,
 * leading dimensions wider than the rows); results must not depend on the operands'
 * alignment; nothing outside the output is written; the pooling planes bit for bit. Then the vectorized exp / sigmoid / tanh
 * / erf and sqrt (kernel_vmath.h) against correctly rounded results over a dense sweep, with the ulp bounds
 * the header documents, and their special values. Then the public selection API
 * (include/berth/kernels.h).
 *
 * Randomized: BERTH_TEST_SEED picks the seed (printed on failure); BERTH_VMATH_STEP the
 * sweep's stride in float bit patterns (default 257 in optimized builds, 4099 otherwise;
 * 1 checks every float). */
#include "berth/kernels.h"
#include "kernels/kernel_gemm_pack.h"
#include "kernels/kernel_isa.h"
#include "kernels/op_table.h"
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}
static float rndf(void) { return (float)(rnd() % 20001) / 10000.0f - 1.0f; }
static int64_t pick(const int64_t *v, int n) { return v[rnd() % (unsigned)n]; }

static unsigned long long seed;

/* |got - want| within a bound scaled by the sum of |products| (the rounding of any order) */
static int close_to(double got, double want, double mag) {
  return fabs(got - want) <= 1e-5 * mag + 1e-30 || (got != got && want != want);
}

enum { BIG = 1 << 16 };
static float wbuf[BIG + 64], xbuf[BIG + 64], obuf[BIG + 64], ref_out[BIG + 64], sh[BIG + 64];

static void test_dot4xn(const berth_kernel_isa_t *k) {
  static const int64_t ns[] = {0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 384, 385, 1000};
  static const int64_t cs[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 17};
  for (int it = 0; it < 300; it++) {
    const int64_t n = pick(ns, 21), cols = pick(cs, 13);
    const int64_t ldw = n + rnd() % 5, ldx = n + rnd() % 5, ldo = cols + rnd() % 3;
    for (int64_t i = 0; i < 4 * ldw; i++) wbuf[i] = rndf();
    for (int64_t i = 0; i < cols * ldx + 1; i++) xbuf[i] = rndf();
    for (int64_t i = 0; i < 4 * ldo + 8; i++) obuf[i] = ref_out[i] = rndf();
    k->dot4xn_f32(wbuf, ldw, xbuf, ldx, cols, n, obuf, ldo);
    berth_kernel_isa_portable.dot4xn_f32(wbuf, ldw, xbuf, ldx, cols, n, ref_out, ldo);
    for (int r = 0; r < 4; r++)
      for (int64_t c = 0; c < ldo; c++) {
        float *o = &obuf[r * ldo + c];
        if (c >= cols) { /* untouched */
          CHECK_MSG(*o == ref_out[r * ldo + c], "%s dot4xn wrote outside, seed %llu", berth_kernels_isa_name(k->id),
                    seed);
          continue;
        }
        double mag = 1 + fabs(ref_out[r * ldo + c]);
        for (int64_t q = 0; q < n; q++) mag += fabs((double)wbuf[r * ldw + q] * xbuf[c * ldx + q]);
        CHECK_MSG(close_to(*o, ref_out[r * ldo + c], mag),
                  "%s dot4xn n=%lld cols=%lld r=%d c=%lld: %.9g vs portable %.9g (seed %llu)",
                  berth_kernels_isa_name(k->id), (long long)n, (long long)cols, r, (long long)c, *o,
                  ref_out[r * ldo + c], seed);
      }
    /* against double: a fresh zeroed output */
    for (int64_t i = 0; i < 4 * ldo; i++) obuf[i] = 0;
    k->dot4xn_f32(wbuf, ldw, xbuf, ldx, cols, n, obuf, ldo);
    for (int r = 0; r < 4; r++)
      for (int64_t c = 0; c < cols; c++) {
        double want = 0, mag = 1;
        for (int64_t q = 0; q < n; q++) {
          want += (double)wbuf[r * ldw + q] * xbuf[c * ldx + q];
          mag += fabs((double)wbuf[r * ldw + q] * xbuf[c * ldx + q]);
        }
        CHECK_MSG(close_to(obuf[r * ldo + c], want, mag), "%s dot4xn n=%lld: %.9g vs %.9g (seed %llu)",
                  berth_kernels_isa_name(k->id), (long long)n, obuf[r * ldo + c], want, seed);
      }
    /* alignment: the same operands one float further on give the same bits */
    memcpy(sh + 1, xbuf, (size_t)(cols * ldx + 1) * sizeof(float));
    for (int64_t i = 0; i < 4 * ldo; i++) ref_out[i] = 0;
    k->dot4xn_f32(wbuf, ldw, sh + 1, ldx, cols, n, ref_out, ldo);
    CHECK_MSG(memcmp(obuf, ref_out, (size_t)(4 * ldo) * sizeof(float)) == 0,
              "%s dot4xn depends on alignment (n=%lld, seed %llu)", berth_kernels_isa_name(k->id), (long long)n,
              seed);
  }
}

static void test_dot(const berth_kernel_isa_t *k) {
  for (int64_t n = 0; n <= 300; n++) {
    for (int64_t i = 0; i < n + 1; i++) {
      wbuf[i] = rndf();
      xbuf[i] = rndf();
    }
    double want = 0, mag = 1;
    for (int64_t i = 0; i < n; i++) {
      want += (double)wbuf[i] * xbuf[i];
      mag += fabs((double)wbuf[i] * xbuf[i]);
    }
    float got = k->dot_f32(wbuf, xbuf, n);
    CHECK_MSG(close_to(got, want, mag), "%s dot n=%lld: %.9g vs %.9g (seed %llu)", berth_kernels_isa_name(k->id),
              (long long)n, got, want, seed);
    memcpy(sh + 3, xbuf, (size_t)n * sizeof(float));
    CHECK_MSG(k->dot_f32(wbuf, sh + 3, n) == got, "%s dot depends on alignment (n=%lld, seed %llu)",
              berth_kernels_isa_name(k->id), (long long)n, seed);
  }
  /* dot4_2seg: rows of lengths n and m */
  static const int64_t ls[] = {0, 1, 5, 8, 15, 16, 17, 32, 33, 64, 100, 128, 129};
  for (int it = 0; it < 200; it++) {
    const int64_t n = pick(ls, 13), m = pick(ls, 13);
    float *W = wbuf, *U = wbuf + 4 * 130, *x = xbuf, *y = xbuf + 130;
    for (int i = 0; i < 4 * 130 * 2; i++) wbuf[i] = rndf();
    for (int i = 0; i < 260; i++) xbuf[i] = rndf();
    float out[4];
    k->dot4_2seg_f32(W, W + 130, W + 260, W + 390, x, n, U, U + 130, U + 260, U + 390, y, m, out);
    for (int r = 0; r < 4; r++) {
      double want = 0, mag = 1;
      for (int64_t q = 0; q < n; q++) want += (double)W[r * 130 + q] * x[q], mag += fabs((double)W[r * 130 + q] * x[q]);
      for (int64_t q = 0; q < m; q++) want += (double)U[r * 130 + q] * y[q], mag += fabs((double)U[r * 130 + q] * y[q]);
      CHECK_MSG(close_to(out[r], want, mag), "%s dot4_2seg n=%lld m=%lld row %d: %.9g vs %.9g (seed %llu)",
                berth_kernels_isa_name(k->id), (long long)n, (long long)m, r, out[r], want, seed);
    }
  }
}

static void test_gemm_nn(const berth_kernel_isa_t *k) {
  static const int64_t ms[] = {0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 25};
  static const int64_t ns[] = {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 65, 100};
  static const int64_t ks[] = {0, 1, 2, 5, 16, 63, 129};
  float bias[32];
  for (int it = 0; it < 300; it++) {
    const int64_t M = pick(ms, 12), N = pick(ns, 16), K = pick(ks, 7);
    const int64_t lda = K + rnd() % 4, ldb = N + rnd() % 4, ldc = N + 1 + rnd() % 4;
    const int use_bias = rnd() % 2;
    for (int64_t i = 0; i < M * lda + 1; i++) wbuf[i] = rndf();
    for (int64_t i = 0; i < K * ldb + 1; i++) xbuf[i] = rndf();
    for (int i = 0; i < 32; i++) bias[i] = rndf();
    for (int64_t i = 0; i < M * ldc + 4; i++) obuf[i] = ref_out[i] = 1234.5f;
    k->gemm_nn_f32(wbuf, lda, xbuf, ldb, use_bias ? bias : NULL, obuf, ldc, M, N, K);
    berth_kernel_isa_portable.gemm_nn_f32(wbuf, lda, xbuf, ldb, use_bias ? bias : NULL, ref_out, ldc, M, N, K);
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < ldc; j++) {
        const float got = obuf[i * ldc + j];
        if (j >= N) {
          CHECK_MSG(got == 1234.5f, "%s gemm_nn wrote outside C (M=%lld N=%lld K=%lld, seed %llu)",
                    berth_kernels_isa_name(k->id), (long long)M, (long long)N, (long long)K, seed);
          continue;
        }
        double want = use_bias ? bias[i] : 0, mag = 1;
        for (int64_t q = 0; q < K; q++) {
          want += (double)wbuf[i * lda + q] * xbuf[q * ldb + j];
          mag += fabs((double)wbuf[i * lda + q] * xbuf[q * ldb + j]);
        }
        CHECK_MSG(close_to(got, want, mag) && close_to(got, ref_out[i * ldc + j], mag),
                  "%s gemm_nn M=%lld N=%lld K=%lld at (%lld, %lld): %.9g vs %.9g, portable %.9g (seed %llu)",
                  berth_kernels_isa_name(k->id), (long long)M, (long long)N, (long long)K, (long long)i,
                  (long long)j, got, want, ref_out[i * ldc + j], seed);
      }
  }
}

/* The variant's im2col panel packer (kernel_isa.h's im2col_f32, where it has one) against the
 * definition: random 1-, 2- and 3-D geometries with strides, dilations and windows over both
 * edges, panels that start mid-row, half-width and MR-high panels; the input sits at the end
 * of a buffer (masked lanes past it must not be read) and nothing past the panel is written. */
static void test_im2col(const berth_kernel_isa_t *k) {
  if (!k->im2col_f32) return;
  for (int it = 0; it < 3000; it++) {
    berth_im2col_geom_t g;
    const int sp = 1 + (int)(rnd() % 3);
    g.il = 1;
    int64_t kk = 1, l = 1;
    for (int d = 0; d < 3; d++) {
      const int on = d >= 3 - sp;
      g.k[d] = on ? 1 + (int64_t)(rnd() % (d == 2 ? 9 : 4)) : 1;
      g.dil[d] = on ? 1 + (int64_t)(rnd() % 2) : 1;
      g.stride[d] = on ? 1 + (int64_t)(rnd() % 3) : 1;
      g.pad[d] = on ? (int64_t)(rnd() % 3) : 0;
      const int64_t span = g.dil[d] * (g.k[d] - 1) + 1;
      g.in[d] = on ? (span > g.pad[d] ? span - g.pad[d] : 1) + (int64_t)(rnd() % 30) : 1;
      const int64_t pe = on ? (int64_t)(rnd() % 3) : 0;
      g.out[d] = (g.in[d] + g.pad[d] + pe - span) / g.stride[d] + 1;
      g.il *= g.in[d];
      kk *= g.k[d];
      l *= g.out[d];
    }
    const int64_t cg = 1 + (int64_t)(rnd() % 3), K = cg * kk;
    /* panels of NR and NR / 2 positions, and of MR (berth_gemm_packed_wb_f32's tiles on AVX2:
     * short of a whole register, the last lanes stored under a mask) */
    const uint32_t sel = rnd() % 4;
    const int64_t nr = sel == 0 ? k->gemm_nr / 2 : sel == 1 ? k->gemm_mr : k->gemm_nr;
    if (cg * g.il > BIG || nr < 1) continue;
    const int64_t j0 = (int64_t)(rnd() % (uint32_t)l), nc0 = l - j0 < nr ? l - j0 : nr;
    const int64_t nc = 1 + (int64_t)(rnd() % (uint32_t)nc0);
    const int64_t k0 = (int64_t)(rnd() % (uint32_t)K), kc = 1 + (int64_t)(rnd() % (uint32_t)(K - k0));
    if (kc * nr + 16 > BIG) continue;
    float *x = xbuf + BIG - cg * g.il; /* ends where the buffer ends */
    for (int64_t i = 0; i < cg * g.il; i++) x[i] = rndf();
    for (int64_t i = 0; i < kc * nr + 16; i++) obuf[i] = 1234.5f;
    if (!k->im2col_f32(&g, x, k0, kc, j0, nc, obuf, nr)) continue;
    for (int64_t q = 0; q < kc; q++) {
      const int64_t row = k0 + q, q2 = row % g.k[2], q1 = row / g.k[2] % g.k[1], q0 = row / g.k[2] / g.k[1] % g.k[0];
      const int64_t ic = row / kk;
      for (int64_t c = 0; c < nr; c++) {
        float want = 0.0f;
        if (c < nc) {
          const int64_t t = j0 + c, o2 = t % g.out[2], o1 = t / g.out[2] % g.out[1], o0 = t / g.out[2] / g.out[1];
          const int64_t i0 = o0 * g.stride[0] - g.pad[0] + q0 * g.dil[0];
          const int64_t i1 = o1 * g.stride[1] - g.pad[1] + q1 * g.dil[1];
          const int64_t i2 = o2 * g.stride[2] - g.pad[2] + q2 * g.dil[2];
          if (i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2])
            want = x[ic * g.il + (i0 * g.in[1] + i1) * g.in[2] + i2];
        }
        const float got = obuf[q * nr + c];
        if (got != want) {
          CHECK_MSG(got == want, "%s im2col (seed %llu, iteration %d) row %lld col %lld: %g, expected %g",
                    berth_kernels_isa_name(k->id), seed, it, (long long)q, (long long)c, (double)got, (double)want);
          return;
        }
      }
    }
    for (int64_t i = kc * nr; i < kc * nr + 16; i++)
      CHECK_MSG(obuf[i] == 1234.5f, "%s im2col wrote past the panel (seed %llu)", berth_kernels_isa_name(k->id), seed);
  }
}

/* The packed GEMM (kernel_gemm_pack.h) over the variant's micro-kernel: every tile edge
 * (rows and columns short of a tile, K in several blocks through small scratch), with and
 * without bias; against double loops and the portable variant. */
static void pk_rows_by_panel(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst,
                             int64_t nr) {
  berth_gemm_pack_rows(ctx, k0, kc, j0, nc, dst, nr);
}
static float pk_scratch[4096 + 16], pk_ref_scratch[4096 + 16], pk_full_out[BIG + 64];
static void test_gemm_packed(const berth_kernel_isa_t *k) {
  static const int64_t ms[] = {0, 1, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 24, 25, 37};
  static const int64_t ns[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 65, 100};
  static const int64_t ks[] = {0, 1, 2, 5, 16, 17, 63, 129, 300};
  float bias[64];
  CHECK(k->gemm_ukr_half_f32 != NULL);
  CHECK(k->gemm_ukr_f32 && k->gemm_mr >= 1 && k->gemm_mr <= 14 && k->gemm_nr >= 4 && k->gemm_nr <= 64);
  if (!k->gemm_ukr_f32) return;
  for (int it = 0; it < 300; it++) {
    const int64_t M = pick(ms, 16), N = pick(ns, 15), K = pick(ks, 9);
    const int use_bias = rnd() % 2;
    const int64_t lda = K + rnd() % 4, ldb = N + rnd() % 4, ldc = N + 1 + rnd() % 4;
    /* scratch for 16 to 40 rows of K per block, or all of it */
    const int64_t floats = rnd() % 3 == 0 ? 4096 : (16 + (int64_t)(rnd() % 25)) * k->gemm_nr;
    const int64_t ref_floats = 16 * berth_kernel_isa_portable.gemm_nr;
    CHECK(berth_gemm_packed_fits(k, floats));
    for (int64_t i = 0; i < M * lda + 1; i++) wbuf[i] = rndf();
    for (int64_t i = 0; i < K * ldb + 1; i++) xbuf[i] = rndf();
    for (int i = 0; i < 64; i++) bias[i] = rndf();
    for (int64_t i = 0; i < M * ldc + 4; i++) obuf[i] = ref_out[i] = 1234.5f;
    const berth_gemm_rows_t b = {xbuf, ldb};
    const berth_gemm_pack_fn pack = berth_gemm_pack_rows;
    berth_gemm_packed_f32(k, wbuf, lda, use_bias ? bias : NULL, obuf, ldc, M, N, K, pack, &b, pk_scratch, floats);
    berth_gemm_packed_f32(&berth_kernel_isa_portable, wbuf, lda, use_bias ? bias : NULL, ref_out, ldc, M, N, K, pack,
                          &b, pk_ref_scratch, ref_floats);
    /* without the half-width tile (a narrow last panel through the full one): the same bits */
    berth_kernel_isa_t full_only = *k;
    full_only.gemm_ukr_half_f32 = NULL;
    for (int64_t i = 0; i < M * ldc + 4; i++) pk_full_out[i] = 1234.5f;
    berth_gemm_packed_f32(&full_only, wbuf, lda, use_bias ? bias : NULL, pk_full_out, ldc, M, N, K, pack, &b,
                          pk_scratch, floats);
    CHECK_MSG(memcmp(pk_full_out, obuf, (size_t)(M * ldc + 4) * sizeof(float)) == 0,
              "%s packed gemm M=%lld N=%lld K=%lld: the half-width tile changes the result (seed %llu)",
              berth_kernels_isa_name(k->id), (long long)M, (long long)N, (long long)K, seed);
    /* rows of B packed panel by panel (any other pack function) rather than a block of panels
     * row by row (berth_gemm_pack_rows' own path): the same bits */
    for (int64_t i = 0; i < M * ldc + 4; i++) pk_full_out[i] = 1234.5f;
    berth_gemm_packed_f32(k, wbuf, lda, use_bias ? bias : NULL, pk_full_out, ldc, M, N, K, pk_rows_by_panel, &b,
                          pk_scratch, floats);
    CHECK_MSG(memcmp(pk_full_out, obuf, (size_t)(M * ldc + 4) * sizeof(float)) == 0,
              "%s packed gemm M=%lld N=%lld K=%lld scratch %lld: rows packed by panel differ (seed %llu)",
              berth_kernels_isa_name(k->id), (long long)M, (long long)N, (long long)K, (long long)floats, seed);
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < ldc; j++) {
        const float got = obuf[i * ldc + j];
        if (j >= N) {
          CHECK_MSG(got == 1234.5f, "%s packed gemm wrote outside C (M=%lld N=%lld K=%lld, seed %llu)",
                    berth_kernels_isa_name(k->id), (long long)M, (long long)N, (long long)K, seed);
          continue;
        }
        double want = use_bias ? bias[i] : 0, mag = 1;
        for (int64_t q = 0; q < K; q++) {
          const double prod = (double)wbuf[i * lda + q] * xbuf[q * ldb + j];
          want += prod;
          mag += fabs(prod);
        }
        CHECK_MSG(close_to(got, want, mag) && close_to(got, ref_out[i * ldc + j], mag),
                  "%s packed gemm M=%lld N=%lld K=%lld scratch %lld at (%lld, %lld): %.9g vs %.9g, "
                  "portable %.9g (seed %llu)",
                  berth_kernels_isa_name(k->id), (long long)M, (long long)N, (long long)K, (long long)floats,
                  (long long)i, (long long)j, got, want, ref_out[i * ldc + j], seed);
      }
  }
}

/* gemm_ukr_ldb32_f32 (matmul_packed's weights read in place): each slice of gemm_nr columns
 * of a 32-column panel, every tile height up to gemm_mr, nc from 1 to gemm_nr, from C (load)
 * or from the bias, against a double loop; nothing past nc columns or mr rows written. */
static void test_ukr_ldb32(const berth_kernel_isa_t *k) {
  static const int64_t ks[] = {1, 2, 7, 16, 33, 130};
  CHECK(k->gemm_ukr_ldb32_f32 != NULL && 32 % k->gemm_nr == 0);
  if (!k->gemm_ukr_ldb32_f32 || 32 % k->gemm_nr != 0) return;
  const int64_t NR = k->gemm_nr, ldc = 40;
  for (int it = 0; it < 200; it++) {
    const int64_t mr = 1 + rnd() % (uint32_t)k->gemm_mr, nc = 1 + rnd() % (uint32_t)NR, K = pick(ks, 6);
    const int64_t s = rnd() % (uint32_t)(32 / NR), lda = K + rnd() % 3;
    const int load = rnd() % 2;
    float bias[16];
    for (int i = 0; i < 16; i++) bias[i] = rndf();
    for (int64_t i = 0; i < mr * lda; i++) wbuf[i] = rndf();
    for (int64_t i = 0; i < K * 32; i++) xbuf[i] = rndf();
    for (int64_t i = 0; i < 16 * ldc; i++) obuf[i] = ref_out[i] = rndf();
    k->gemm_ukr_ldb32_f32(wbuf, lda, xbuf + s * NR, K, obuf, ldc, mr, nc, load ? NULL : bias, load, NULL);
    for (int64_t i = 0; i < 16; i++)
      for (int64_t j = 0; j < ldc; j++) {
        const float got = obuf[i * ldc + j];
        if (i >= mr || j >= nc) {
          CHECK_MSG(got == ref_out[i * ldc + j], "%s ukr_ldb32 mr=%lld nc=%lld K=%lld wrote outside C (seed %llu)",
                    berth_kernels_isa_name(k->id), (long long)mr, (long long)nc, (long long)K, seed);
          continue;
        }
        double want = load ? ref_out[i * ldc + j] : bias[i], mag = fabs(want) + 1;
        for (int64_t q = 0; q < K; q++) {
          const double prod = (double)wbuf[i * lda + q] * xbuf[q * 32 + s * NR + j];
          want += prod;
          mag += fabs(prod);
        }
        CHECK_MSG(close_to(got, want, mag),
                  "%s ukr_ldb32 slice %lld mr=%lld nc=%lld K=%lld at (%lld, %lld): %.9g vs %.9g (seed %llu)",
                  berth_kernels_isa_name(k->id), (long long)s, (long long)mr, (long long)nc, (long long)K,
                  (long long)i, (long long)j, got, want, seed);
      }
  }
}

/* ---- the micro-kernels' fused epilogue (kernel_isa.h's berth_ukr_epi_t) ------------- */

/* conv_epi's scalar formulas (kernel_conv.c): v = acc (+ res), then the activation. */
static float ukr_epi_ref(float acc, const float *res, int act, float a, float b) {
  const float v = res ? acc + *res : acc;
  switch (act) {
  case BERTH_UKR_ACT_RELU: return v < 0 ? 0.0f : v;
  case BERTH_UKR_ACT_CLIP: {
    const float u = v < a ? a : v;
    return u > b ? b : u;
  }
  case BERTH_UKR_ACT_LEAKY_RELU: return v < 0 ? a * v : v;
  default: return v;
  }
}

/* The same bits, or both NaN: which NaN a sum of two NaNs (or a product with one) gives is the
 * compiler's choice of operand order, in the separate add and activation kernels as here. */
static int same_bits(float x, float y) { return memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)); }

/* Values where the formulas' edges are: signed zeros, NaN, infinities, the clip bounds. */
static float ukr_epi_val(void) {
  static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 6.0f, 0.5f, -0.5f, 1e-30f, -1e-30f, INFINITY, -INFINITY};
  const uint32_t c = rnd() % 8;
  if (c == 0) return NAN;
  if (c == 1) return -NAN;
  if (c < 5) return special[rnd() % (sizeof special / sizeof special[0])];
  return rndf() * 4.0f;
}

typedef void (*ukr_fn)(const float *, int64_t, const float *, int64_t, float *, int64_t, int64_t, int64_t,
                       const float *, int, const berth_ukr_epi_t *);

/* One micro-kernel entry of nr columns with B rows ldb floats apart: a tile with the epilogue
 * against the same tile without it, then the scalar formulas, bit for bit; every tile height
 * and width (edge tiles), from C (load, kc 0: the special values themselves reach the
 * epilogue) or from the bias, with and without a residual; nothing written outside the tile. */
static void test_ukr_epi_entry(const berth_kernel_isa_t *k, const char *name, ukr_fn ukr, int64_t nr, int apack) {
  static const float alphas[] = {0.0f, -0.0f, 0.1f, -0.25f, 6.0f, NAN}, betas[] = {6.0f, 0.0f, -0.0f, 1.0f, NAN};
  static const int64_t ks[] = {0, 0, 1, 3, 17};
  enum { LDC = 72 };
  static float c0[16 * LDC], c1[16 * LDC], res[16 * LDC];
  for (int it = 0; it < 400; it++) {
    const int64_t mr = 1 + rnd() % (uint32_t)k->gemm_mr, nc = 1 + rnd() % (uint32_t)nr, kc = pick(ks, 5);
    const int load = kc == 0 || rnd() % 2, act = (int)(rnd() % 4), use_res = rnd() % 3 != 0;
    const int64_t lda = apack ? k->gemm_mr + rnd() % 3 : kc + rnd() % 3;
    float bias[16];
    for (int i = 0; i < 16; i++) bias[i] = ukr_epi_val();
    for (int64_t i = 0; i < 16 * 20; i++) wbuf[i] = rndf();
    for (int64_t i = 0; i < 20 * 64; i++) xbuf[i] = rndf();
    for (int64_t i = 0; i < 16 * LDC; i++) {
      c0[i] = c1[i] = ukr_epi_val();
      res[i] = ukr_epi_val();
    }
    const berth_ukr_epi_t e = {use_res ? res : NULL, LDC, act, alphas[rnd() % 6], betas[rnd() % 5]};
    ukr(wbuf, lda, xbuf, kc, c0, LDC, mr, nc, load ? NULL : bias, load, NULL);
    ukr(wbuf, lda, xbuf, kc, c1, LDC, mr, nc, load ? NULL : bias, load, &e);
    for (int64_t i = 0; i < 16; i++)
      for (int64_t j = 0; j < LDC; j++) {
        const int in = i < mr && j < nc;
        const float want = in ? ukr_epi_ref(c0[i * LDC + j], use_res ? &res[i * LDC + j] : NULL, act, e.alpha, e.beta)
                              : c0[i * LDC + j];
        if (!same_bits(c1[i * LDC + j], want)) {
          CHECK_MSG(0,
                    "%s %s epilogue act %d residual %d alpha %g beta %g mr=%lld nc=%lld kc=%lld load %d at (%lld, "
                    "%lld): %g (0x%08x) vs %g (seed %llu)",
                    berth_kernels_isa_name(k->id), name, act, use_res, (double)e.alpha, (double)e.beta, (long long)mr,
                    (long long)nc, (long long)kc, load, (long long)i, (long long)j, (double)c1[i * LDC + j],
                    (unsigned)((union { float f; uint32_t u; }){c1[i * LDC + j]}).u, (double)want, seed);
          return;
        }
      }
  }
}

static void test_ukr_epi(const berth_kernel_isa_t *k) {
  const int64_t NR = k->gemm_nr;
  test_ukr_epi_entry(k, "gemm_ukr", k->gemm_ukr_f32, NR, 0);
  test_ukr_epi_entry(k, "gemm_ukr_pa", k->gemm_ukr_pa_f32, NR, 1);
  if (k->gemm_ukr_half_f32) test_ukr_epi_entry(k, "gemm_ukr_half", k->gemm_ukr_half_f32, NR / 2, 0);
  if (k->gemm_ukr_pa_half_f32) test_ukr_epi_entry(k, "gemm_ukr_pa_half", k->gemm_ukr_pa_half_f32, NR / 2, 1);
  if (k->gemm_ukr_pa_b2_f32) test_ukr_epi_entry(k, "gemm_ukr_pa_b2", k->gemm_ukr_pa_b2_f32, NR, 1);
  if (k->gemm_ukr_ldb32_f32) test_ukr_epi_entry(k, "gemm_ukr_ldb32", k->gemm_ukr_ldb32_f32, NR, 0);
}

/* gemm_ukr_pa_bs_f32 (B read in place, rows ldb floats apart) against gemm_ukr_pa_f32 over the
 * same rows packed (ldb = NR): the same bits for every tile height and width, kc, load or
 * bias, residual and activation; nothing written outside the tile. */
static void test_ukr_bs(const berth_kernel_isa_t *k) {
  static const int64_t ks[] = {0, 1, 3, 16, 17, 40};
  enum { LDC = 72 };
  static float c0[16 * LDC], c1[16 * LDC], res[16 * LDC], bpk[40 * 64];
  CHECK(k->gemm_ukr_pa_bs_f32 != NULL);
  if (!k->gemm_ukr_pa_bs_f32) return;
  const int64_t NR = k->gemm_nr;
  for (int it = 0; it < 400; it++) {
    const int64_t mr = 1 + rnd() % (uint32_t)k->gemm_mr, nc = 1 + rnd() % (uint32_t)NR, kc = pick(ks, 6);
    const int64_t ldb = NR + rnd() % 9, lda = k->gemm_mr + rnd() % 3;
    const int load = rnd() % 2, act = (int)(rnd() % 4), use_res = rnd() % 2, use_epi = rnd() % 4 != 0;
    float bias[16];
    for (int i = 0; i < 16; i++) bias[i] = ukr_epi_val();
    for (int64_t i = 0; i < 16 * 48; i++) wbuf[i] = rndf();
    for (int64_t i = 0; i < 40 * ldb; i++) xbuf[i] = rndf();
    for (int64_t q = 0; q < kc; q++) memcpy(bpk + q * NR, xbuf + q * ldb, (size_t)NR * sizeof(float));
    for (int64_t i = 0; i < 16 * LDC; i++) {
      c0[i] = c1[i] = ukr_epi_val();
      res[i] = ukr_epi_val();
    }
    const berth_ukr_epi_t e = {use_res ? res : NULL, LDC, act, 0.25f, 6.0f};
    k->gemm_ukr_pa_f32(wbuf, lda, bpk, kc, c0, LDC, mr, nc, load ? NULL : bias, load, use_epi ? &e : NULL);
    k->gemm_ukr_pa_bs_f32(wbuf, lda, xbuf, ldb, kc, c1, LDC, mr, nc, load ? NULL : bias, load, use_epi ? &e : NULL);
    int same = 1;
    for (int64_t i = 0; i < 16 * LDC; i++) same &= same_bits(c0[i], c1[i]);
    CHECK_MSG(same, "%s gemm_ukr_pa_bs mr=%lld nc=%lld kc=%lld ldb=%lld load %d act %d residual %d: differs from "
              "gemm_ukr_pa over the packed rows (seed %llu)",
              berth_kernels_isa_name(k->id), (long long)mr, (long long)nc, (long long)kc, (long long)ldb, load, act,
              use_res, seed);
  }
}

/* The packed GEMM with pre-packed A over a row-major B (a 1x1 conv): for few rows of A it reads
 * B in place (gemm_ukr_pa_bs_f32); the same bits as the variant without that entry (B packed),
 * with the epilogue; nothing written outside C. Shapes around the path's edges: M up to 48 and
 * past it, N below one panel, with a narrow last strip of at most and more than half a panel,
 * K in one block and in several; and the wider rule's edges (up to 64 rows where K >= 64 and
 * N >= 512: 49-65 rows, 63-100 of K, 511-600 columns). */
static float bs_apk[72 * 520 + 64], bs_c0[72 * 610], bs_c1[72 * 610], bs_res[72 * 610], bs_scratch[600 * 128];
static void gemm_bs_case(const berth_kernel_isa_t *k, const berth_kernel_isa_t *packed_b, int64_t M, int64_t N,
                         int64_t K) {
  const int64_t ldc = N + 3;
  const int act = (int)(rnd() % 4), use_res = rnd() % 2, use_bias = rnd() % 2;
  float bias[72];
  for (int i = 0; i < 72; i++) bias[i] = rndf();
  for (int64_t i = 0; i < M * K; i++) wbuf[i] = rndf();
  for (int64_t i = 0; i < K * N; i++) xbuf[i] = rndf();
  for (int64_t i = 0; i < M * ldc; i++) {
    bs_c0[i] = bs_c1[i] = 1234.5f;
    bs_res[i] = rndf();
  }
  berth_gemm_pack_a(wbuf, K, M, K, bs_apk);
  const berth_gemm_rows_t b = {xbuf, N};
  const berth_ukr_epi_t e = {use_res ? bs_res : NULL, ldc, act, 0.25f, 0.5f};
  const int64_t floats = (int64_t)(sizeof bs_scratch / sizeof bs_scratch[0]);
  berth_gemm_packed_epi_f32(k, bs_apk, 0, BERTH_GEMM_APANEL, use_bias ? bias : NULL, bs_c1, ldc, M, N, K,
                            berth_gemm_pack_rows, &b, bs_scratch, floats, &e);
  berth_gemm_packed_epi_f32(packed_b, bs_apk, 0, BERTH_GEMM_APANEL, use_bias ? bias : NULL, bs_c0, ldc, M, N, K,
                            berth_gemm_pack_rows, &b, bs_scratch, floats, &e);
  CHECK_MSG(memcmp(bs_c0, bs_c1, (size_t)(M * ldc) * sizeof(float)) == 0,
            "%s packed gemm with B in place M=%lld N=%lld K=%lld act %d residual %d: differs from B packed "
            "(seed %llu)",
            berth_kernels_isa_name(k->id), (long long)M, (long long)N, (long long)K, act, use_res, seed);
  int outside = 1;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = N; j < ldc; j++) outside &= bs_c1[i * ldc + j] == 1234.5f;
  CHECK_MSG(outside, "%s packed gemm with B in place M=%lld N=%lld K=%lld wrote outside C (seed %llu)",
            berth_kernels_isa_name(k->id), (long long)M, (long long)N, (long long)K, seed);
  double want = use_bias ? bias[0] : 0, mag = 1; /* one element against a double loop */
  for (int64_t q = 0; q < K; q++) want += (double)wbuf[q] * xbuf[q * N], mag += fabs((double)wbuf[q] * xbuf[q * N]);
  if (use_res) want += bs_res[0];
  CHECK_MSG(act != BERTH_UKR_ACT_NONE || close_to(bs_c1[0], want, mag + 1),
            "%s packed gemm with B in place M=%lld N=%lld K=%lld: C[0][0] %.9g vs %.9g (seed %llu)",
            berth_kernels_isa_name(k->id), (long long)M, (long long)N, (long long)K, bs_c1[0], want, seed);
}
static void test_gemm_bs(const berth_kernel_isa_t *k) {
  static const int64_t ms[] = {1, 4, 6, 7, 12, 16, 17, 32, 47, 48, 49, 64};
  static const int64_t ns[] = {1, 7, 16, 17, 23, 24, 33, 40, 100, 121};
  static const int64_t ks[] = {1, 5, 16, 17, 255, 256, 257, 520};
  static const int64_t wm[] = {49, 60, 64, 65}, wn[] = {511, 512, 515, 600}, wk[] = {63, 64, 100};
  berth_kernel_isa_t packed_b = *k;
  packed_b.gemm_ukr_pa_bs_f32 = NULL;
  for (int it = 0; it < 144; it++) { /* the picks in order (a call's arguments have none) */
    const bool wide = it >= 120;
    const int64_t M = wide ? pick(wm, 4) : pick(ms, 12), N = wide ? pick(wn, 4) : pick(ns, 10);
    const int64_t K = wide ? pick(wk, 3) : pick(ks, 8);
    gemm_bs_case(k, &packed_b, M, N, K);
  }
}

/* ---- elementwise: ulp distance to the correctly rounded result ---------------------- */

static int64_t ordered(float f) {
  int32_t b;
  memcpy(&b, &f, sizeof b);
  return b < 0 ? (int64_t)INT32_MIN - b : b;
}
static int64_t ulps(float a, float b) {
  if (a != a || b != b) return (a != a) == (b != b) ? 0 : INT32_MAX;
  int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

static double ref_exp(double x) { return exp(x); }
static double ref_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double ref_tanh(double x) { return tanh(x); }
static double ref_sqrt(double x) { return sqrt(x); }
static double ref_erf(double x) { return erf(x); }

typedef struct vm_case {
  const char *name;
  double (*ref)(double);
  size_t off; /* the member of berth_kernel_isa_t */
  int64_t bound;
} vm_case_t;

static void (*vm_fn(const berth_kernel_isa_t *k, size_t off))(const float *, float *, int64_t) {
  void (*f)(const float *, float *, int64_t);
  memcpy(&f, (const char *)k + off, sizeof f);
  return f;
}

enum { CHUNK = 4096 };

static void test_vmath(const berth_kernel_isa_t *k, const vm_case_t *c, uint32_t step) {
  static float xs[CHUNK], ys[CHUNK];
  void (*f)(const float *, float *, int64_t) = vm_fn(k, c->off);
  int64_t worst = 0;
  float worst_x = 0;
  uint64_t count = 0;
  const uint32_t top = 0x42DC0000u; /* 110.0f */
  for (int sign = 0; sign < 2; sign++) {
    int n = 0;
    for (uint64_t b = 0; b <= top; b += step) {
      uint32_t u = (uint32_t)b | (sign ? 0x80000000u : 0);
      memcpy(&xs[n++], &u, sizeof u);
      if (n == CHUNK || b + step > top) {
        f(xs, ys, n);
        for (int i = 0; i < n; i++) {
          float want = (float)c->ref((double)xs[i]);
          int64_t d = ulps(ys[i], want);
          if (d > worst) worst = d, worst_x = xs[i];
        }
        count += (uint64_t)n;
        n = 0;
      }
    }
  }
  printf("  %-8s %-7s max %lld ulp over %llu points (at x = %.9g)\n", berth_kernels_isa_name(k->id), c->name,
         (long long)worst, (unsigned long long)count, worst_x);
  CHECK_MSG(worst <= c->bound, "%s %s: %lld ulp at x = %.9g, documented bound %lld", berth_kernels_isa_name(k->id),
            c->name, (long long)worst, worst_x, (long long)c->bound);
}

static void test_vmath_special(const berth_kernel_isa_t *k) {
  const float in[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 88.7f, 89.0f, 1e30f, -1e30f, -104.0f, -87.5f,
                      FLT_MIN, -FLT_MIN, 1e-40f, 20.0f, -20.0f, 9.5f};
  enum { NIN = sizeof in / sizeof in[0] };
  float e[NIN], s[NIN], t[NIN];
  k->exp_f32(in, e, NIN);
  k->sigmoid_f32(in, s, NIN);
  k->tanh_f32(in, t, NIN);
  const char *name = berth_kernels_isa_name(k->id);
  for (int i = 0; i < 2; i++) CHECK_MSG(e[i] != e[i] && s[i] != s[i] && t[i] != t[i], "%s: NaN in, NaN out", name);
  CHECK_MSG(e[2] == INFINITY && e[3] == 0 && s[2] == 1 && s[3] == 0 && t[2] == 1 && t[3] == -1,
            "%s: infinities: exp %g %g sigmoid %g %g tanh %g %g", name, e[2], e[3], s[2], s[3], t[2], t[3]);
  CHECK_MSG(e[4] == 1 && e[5] == 1 && s[4] == 0.5f && s[5] == 0.5f, "%s: exp(+-0) %g %g, sigmoid %g %g", name, e[4],
            e[5], s[4], s[5]);
  CHECK_MSG(t[4] == 0 && !signbit(t[4]) && t[5] == 0 && signbit(t[5]), "%s: tanh keeps the sign of zero", name);
  CHECK_MSG(e[7] == INFINITY && e[8] == INFINITY && e[9] == 0 && e[10] == 0, "%s: exp saturation %g %g %g %g", name,
            e[7], e[8], e[9], e[10]);
  CHECK_MSG(e[11] > 0 && e[11] < FLT_MIN, "%s: exp(-87.5) is subnormal, got %g", name, e[11]);
  CHECK_MSG(t[12] == FLT_MIN && t[13] == -FLT_MIN && t[14] == 1e-40f, "%s: tanh of tiny values", name);
  CHECK_MSG(t[15] == 1 && t[16] == -1 && t[17] == 1 && s[8] == 1 && s[9] == 0, "%s: saturation of tanh / sigmoid",
            name);
}

/* sqrt, erf, hard_sigmoid, elu and softplus: special values; erf's block choice (kernel_isa_simd.h takes
 * the small form for a block of 64 inputs all within [-1, 1]) must not change any element;
 * hard_sigmoid rounds alpha x + beta once. */
static void test_vmath_more(const berth_kernel_isa_t *k) {
  const char *name = berth_kernels_isa_name(k->id);
  const float in[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, -1.0f, 4.0f, 1e-40f, -1e-40f, FLT_MIN, 3.9f, -1e30f};
  enum { NIN = sizeof in / sizeof in[0] };
  float q[NIN], e[NIN], h[NIN], u[NIN];
  k->sqrt_f32(in, q, NIN);
  k->erf_f32(in, e, NIN);
  k->hard_sigmoid_f32(in, h, NIN, 0.2f, 0.5f);
  k->elu_f32(in, u, NIN, 1.5f);
  for (int i = 0; i < 2; i++)
    CHECK_MSG(q[i] != q[i] && e[i] != e[i] && h[i] != h[i] && u[i] != u[i], "%s: NaN in, NaN out", name);
  CHECK_MSG(q[2] == INFINITY && q[3] != q[3] && q[6] != q[6] && q[12] != q[12], "%s: sqrt(inf) %g, sqrt(<0) %g %g", name,
            q[2], q[3], q[6]);
  CHECK_MSG(q[4] == 0 && !signbit(q[4]) && q[5] == 0 && signbit(q[5]), "%s: sqrt(+-0) keeps the sign", name);
  CHECK_MSG(q[8] == sqrtf(1e-40f) && q[10] == sqrtf(FLT_MIN), "%s: sqrt of a subnormal %g", name, q[8]);
  CHECK_MSG(e[2] == 1 && e[3] == -1 && e[7] == 1 && e[12] == -1, "%s: erf(+-inf) %g %g, erf(4) %g", name, e[2], e[3],
            e[7]);
  CHECK_MSG(e[4] == 0 && !signbit(e[4]) && e[5] == 0 && signbit(e[5]), "%s: erf keeps the sign of zero", name);
  CHECK_MSG(ulps(e[8], (float)erf(-(double)in[9]) ) <= 1 && e[9] == -e[8] && ulps(e[10], (float)erf(FLT_MIN)) <= 1,
            "%s: erf of subnormals %g", name, e[8]);
  CHECK_MSG(ulps(e[11], (float)erf(3.9)) <= 1, "%s: erf(3.9) %.9g", name, e[11]);
  CHECK_MSG(h[2] == 1 && h[3] == 0 && h[4] == 0.5f && h[6] == 0.3f && h[7] == 1, "%s: hard_sigmoid %g %g %g %g", name,
            h[2], h[3], h[4], h[6]);
  CHECK_MSG(u[2] == INFINITY && u[3] == -1.5f && u[4] == 0 && signbit(u[5]) && u[7] == 4.0f && u[12] == -1.5f,
            "%s: elu(inf) %g elu(-inf) %g elu(-0) %g", name, u[2], u[3], u[5]);
  /* exp, sigmoid, tanh, erf: a block of 64 inputs all within a limit takes a shorter form
   * (kernel_isa_simd.h), which must give the full form's bits: each element of a block call
   * against the same element beside a NaN (which sends its block to the full form) */
  enum { NB = 300 };
  float xs[NB], ys[NB], pair[2], y2[2];
  const size_t offs[] = {offsetof(berth_kernel_isa_t, exp_f32), offsetof(berth_kernel_isa_t, sigmoid_f32),
                         offsetof(berth_kernel_isa_t, tanh_f32), offsetof(berth_kernel_isa_t, erf_f32)};
  const float scale[] = {80.0f, 80.0f, 9.0f, 1.0f};
  for (int f = 0; f < 4; f++) {
    void (*fn)(const float *, float *, int64_t) = vm_fn(k, offs[f]);
    for (int i = 0; i < NB; i++) xs[i] = rndf() * (i % 97 == 5 ? 3 * scale[f] : scale[f]);
    xs[200] = NAN;
    fn(xs, ys, NB);
    for (int i = 0; i < NB; i++) {
      pair[0] = xs[i], pair[1] = NAN;
      fn(pair, y2, 2);
      CHECK_MSG(memcmp(&y2[0], &ys[i], sizeof ys[i]) == 0, "%s: function %d of x = %.9g is %.9g in the full form, %.9g in a block", name, f, xs[i], y2[0], ys[i]);
    }
  }
  /* hard_sigmoid: alpha x + beta rounded once (fmaf is correctly rounded); the portable
   * variant's double sum may round twice, at most 1 ulp off */
  int64_t worst = 0;
  for (int i = 0; i < 20000; i++) {
    const float x = rndf() * 6, a = rndf() * 0.5f, b = rndf();
    float y;
    k->hard_sigmoid_f32(&x, &y, 1, a, b);
    float v = fmaf(a, x, b);
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    const int64_t d = ulps(y, v);
    if (d > worst) worst = d;
    CHECK_MSG(d <= (k->id == BERTH_KERNELS_PORTABLE ? 1 : 0), "%s: hard_sigmoid(%.9g; %.9g, %.9g) = %.9g, want %.9g",
              name, x, a, b, y, v);
  }
  /* elu against expm1 in double: at most 2 ulp (kernel_vmath.h's expm1 and one product) */
  worst = 0;
  for (int i = 0; i < 20000; i++) {
    const float x = -(float)i * 0.00137f, alpha = 1.5f;
    float y;
    k->elu_f32(&x, &y, 1, alpha);
    const int64_t d = ulps(y, (float)((double)alpha * expm1((double)x)));
    if (d > worst) worst = d;
  }
  CHECK_MSG(worst <= 2, "%s: elu %lld ulp", name, (long long)worst);
  /* softplus: special values, then against log1p(exp(x)) in double over [-90, 90]: at most 2
   * ulp (kernel_vmath.h: exp's error passes through ln(1 + t) for small t) */
  float sp[NIN];
  k->softplus_f32(in, sp, NIN);
  CHECK_MSG(sp[0] != sp[0] && sp[1] != sp[1], "%s: softplus(NaN) %g", name, sp[0]);
  CHECK_MSG(sp[2] == INFINITY && sp[3] == 0 && sp[4] == 0.693147182f && sp[5] == 0.693147182f && sp[12] == 0 &&
                sp[7] == (float)log1p(exp(4.0)),
            "%s: softplus(inf) %g, (-inf) %g, (0) %.9g, (4) %.9g", name, sp[2], sp[3], sp[4], sp[7]);
  worst = 0;
  for (int i = 0; i < 40000; i++) {
    const float x = -90.0f + (float)i * 0.0045f;
    float y;
    k->softplus_f32(&x, &y, 1);
    const int64_t d = ulps(y, (float)log1p(exp((double)x)));
    if (d > worst) worst = d;
  }
  CHECK_MSG(worst <= 2, "%s: softplus %lld ulp", name, (long long)worst);
}

/* ---- pow by a small integer exponent (kernel_binary.c): multiplications ----------------- */

static void test_pow(void) {
  enum { N = 4096 };
  static float a[N], b[N], y[N];
  berth_type_t t = {BERTH_DTYPE_F32, 1, {N}};
  berth_tensor_ref_t in[2] = {{&t, a}, {&t, b}}, out[1] = {{&t, y}};
  berth_kernel_call_t call = {NULL, in, 2, out, 1, NULL, 0};
  static const float ex[] = {1, 2, 3, 4, 2.5f, -1, 0.5f, 0};
  for (int e = 0; e < 8; e++) {
    for (int i = 0; i < N; i++) {
      a[i] = (rndf() * 2) * powf(10.0f, (float)(int)(rnd() % 21) - 10);
      b[i] = ex[e];
    }
    a[0] = NAN, a[1] = -0.0f, a[2] = INFINITY, a[3] = -INFINITY, a[4] = 3e38f, a[5] = 1e-30f;
    berth_op_def_pow.run(&call);
    for (int i = 0; i < N; i++) {
      const float want = powf(a[i], b[i]);
      const int64_t d = ulps(y[i], want);
      if (b[i] == 2) CHECK_MSG(y[i] == a[i] * a[i] || (y[i] != y[i] && a[i] != a[i]), "pow(%g, 2) is not a*a", a[i]);
      CHECK_MSG(d <= (b[i] == 3 || b[i] == 4 || b[i] == 2 ? 1 : 0) && signbit(y[i]) == signbit(want),
                "pow(%.9g, %g) = %.9g, powf %.9g (%lld ulp)", a[i], b[i], y[i], want, (long long)d);
    }
  }
}

/* ---- the selection API ---------------------------------------------------------------- */

static void test_select(void) {
  berth_kernels_isa_t id;
  CHECK(berth_kernels_isa_parse("portable", &id) == BERTH_OK && id == BERTH_KERNELS_PORTABLE);
  CHECK(berth_kernels_isa_parse("avx512", &id) == BERTH_OK && id == BERTH_KERNELS_AVX512);
  CHECK(berth_kernels_isa_parse("auto", &id) == BERTH_OK && id == BERTH_KERNELS_AUTO);
  CHECK(berth_kernels_isa_parse("avx", &id) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_kernels_isa_parse("avx2x", &id) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_kernels_isa_parse(NULL, &id) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(strcmp(berth_kernels_isa_name((berth_kernels_isa_t)99), "?") == 0);
  CHECK(berth_kernels_select((berth_kernels_isa_t)99) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_kernels_select((berth_kernels_isa_t)-1) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_kernels_select(BERTH_KERNELS_PORTABLE) == BERTH_OK);
  CHECK(berth_kernels_active() == BERTH_KERNELS_PORTABLE && berth_kernel_isa() == &berth_kernel_isa_portable);
  for (int i = BERTH_KERNELS_AVX2; i < BERTH_KERNELS_ISA_COUNT; i++) {
    berth_kernels_isa_t v = (berth_kernels_isa_t)i;
    if (berth_kernels_available(v)) {
      CHECK(berth_kernels_select(v) == BERTH_OK && berth_kernels_active() == v);
    } else {
      CHECK(berth_kernels_select(v) == BERTH_ERR_UNIMPLEMENTED);
      CHECK(berth_kernels_active() != v);
    }
  }
  CHECK(berth_kernels_select(BERTH_KERNELS_AUTO) == BERTH_OK);
  berth_kernels_isa_t best = BERTH_KERNELS_PORTABLE;
  for (int i = BERTH_KERNELS_PORTABLE; i < BERTH_KERNELS_ISA_COUNT; i++)
    if (berth_kernels_available((berth_kernels_isa_t)i)) best = (berth_kernels_isa_t)i;
  CHECK_MSG(berth_kernels_active() == best, "auto chose %s, the widest available is %s",
            berth_kernels_isa_name(berth_kernels_active()), berth_kernels_isa_name(best));
}

/* pool2d_f32 (kernel_pool_ukr.h) against the per-element walk, bit for bit: random planes,
 * kernels, strides and pads (3x3 windows with and without the slots of the row blocks), NaNs,
 * -infs and signed zeros in the data, max and average; nothing past the output is written. */
static float pool_ref(const berth_pool_geom_t *g, const float *x, int64_t o1, int64_t o, float div) {
  float m = 0;
  int any = 0;
  for (int64_t q = 0; q < g->kh; q++)
    for (int64_t t = 0; t < g->kw; t++) {
      const int64_t i = o1 * g->sh - g->ph + q * g->dh, c = o * g->sw - g->pw + t;
      if (i < 0 || i >= g->ih || c < 0 || c >= g->iw) continue;
      const float v = x[i * g->iw + c];
      if (!g->max) m += v;
      else if (!any || v > m || m != m) m = v;
      any = 1;
    }
  return g->max ? m : m / div;
}

static void test_pool2d(const berth_kernel_isa_t *k) {
  static const int64_t dims[] = {1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 28, 33, 40, 57};
  static float rdiv[128], cdiv[128];
  for (int it = 0; it < 400; it++) {
    berth_pool_geom_t g = {0};
    g.kh = 1 + rnd() % 4, g.kw = 1 + rnd() % 5, g.sh = 1 + rnd() % 3, g.sw = 1 + rnd() % 2, g.dh = 1 + rnd() % 2;
    if (it % 2) g.kh = g.kw = 3, g.dh = 1, g.sh = 1 + rnd() % 2;
    g.ih = pick(dims, 14), g.iw = pick(dims, 14), g.ph = rnd() % g.kh, g.pw = rnd() % g.kw, g.max = (int)(rnd() % 2);
    const int64_t span = (g.kh - 1) * g.dh + 1;
    if (g.ih + 2 * g.ph < span || g.iw + 2 * g.pw < g.kw) continue;
    g.oh = (g.ih + g.ph - span) / g.sh + 1, g.ow = (g.iw + g.pw - g.kw) / g.sw + 1; /* windows touch the input */
    if (g.oh < 1 || g.ow < 1) continue;
    const int64_t m = g.ow > 16 ? g.ow : 16, want = it % 4 == 1 ? 3 * g.sh + 3 : span;
    for (g.slots = 1; g.slots < want || g.slots < span;) g.slots *= 2;
    if (g.sw == 1) g.row = m + g.kw - 1 > g.pw + g.iw ? m + g.kw - 1 : g.pw + g.iw;
    else {
      const int64_t half = m + (g.kw - 1) / 2 > (g.pw + g.iw + 1) / 2 ? m + (g.kw - 1) / 2 : (g.pw + g.iw + 1) / 2;
      g.row = 2 * (half + rnd() % 3);
    }
    int64_t planes = 1 + rnd() % 3;
    if (it % 3 == 2) { /* planes in the lanes: up to 40 planes (full groups of 4, 8 and 16 lanes, and a last one) */
      g.sw = 1 + rnd() % 3, g.ow = (g.iw + g.pw - g.kw) / g.sw + 1;
      const int64_t rows = (g.oh - 1) * g.sh + span, cols = (g.ow - 1) * g.sw + g.kw;
      g.lh = g.ph + g.ih > rows ? g.ph + g.ih : rows, g.lw = g.pw + g.iw > cols ? g.pw + g.iw : cols;
      planes = 1 + rnd() % 40;
      if ((g.lh * g.lw + g.oh * g.ow) * BERTH_POOL_MAX_LANES > BIG) continue;
    }
    const int64_t il = g.ih * g.iw, l = g.oh * g.ow;
    if ((g.slots + 1) * g.row > BIG || planes * (il > l ? il : l) + 16 > BIG) continue;
    for (int64_t i = 0; i < planes * il; i++) {
      const uint32_t r = rnd() % 40;
      xbuf[i] = r == 0 ? NAN : r == 1 ? -INFINITY : r == 2 ? -0.0f : r == 3 ? 0.0f : (float)(rnd() % 9) - 4.0f;
    }
    for (int64_t o1 = 0; o1 < g.oh; o1++) {
      int64_t n = 0;
      for (int64_t q = 0; q < g.kh; q++) n += o1 * g.sh - g.ph + q * g.dh >= 0 && o1 * g.sh - g.ph + q * g.dh < g.ih;
      rdiv[o1] = (float)n;
    }
    for (int64_t o = 0; o < (m > g.ow ? m : g.ow); o++) {
      int64_t n = 0;
      for (int64_t t = 0; t < g.kw; t++) n += o * g.sw - g.pw + t >= 0 && o * g.sw - g.pw + t < g.iw;
      cdiv[o] = o < g.ow ? (float)n : 1.0f;
    }
    g.rdiv = rdiv, g.cdiv = cdiv;
    for (int64_t i = 0; i < planes * l + 16; i++) obuf[i] = 12345.0f;
    k->pool2d_f32(&g, planes, xbuf, obuf, wbuf);
    int64_t bad = -1;
    for (int64_t c = 0; c < planes && bad < 0; c++)
      for (int64_t i = 0; i < l && bad < 0; i++) {
        const float want_v = pool_ref(&g, xbuf + c * il, i / g.ow, i % g.ow, rdiv[i / g.ow] * cdiv[i % g.ow]);
        const float got = obuf[c * l + i];
        if (memcmp(&got, &want_v, sizeof got) != 0 && !(got != got && want_v != want_v)) bad = c * l + i;
      }
    for (int64_t i = planes * l; i < planes * l + 16 && bad < 0; i++)
      if (obuf[i] != 12345.0f) bad = i;
    CHECK_MSG(bad < 0,
              "pool2d_f32 (%s, seed %llu): %s %lldx%lld k %lldx%lld s %lldx%lld dil %lld pads %lld %lld slots %lld "
              "lanes %lldx%lld: element %lld",
              berth_kernels_isa_name(k->id), seed, g.max ? "max" : "avg", (long long)g.ih, (long long)g.iw,
              (long long)g.kh, (long long)g.kw, (long long)g.sh, (long long)g.sw, (long long)g.dh, (long long)g.ph,
              (long long)g.pw, (long long)g.slots, (long long)g.lh, (long long)g.lw, (long long)bad);
    if (bad >= 0) return;
  }
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  seed = s ? strtoull(s, NULL, 10) : 20261203ull;
  rng_state = seed;
#ifdef __OPTIMIZE__
  uint32_t step = 257;
#else
  uint32_t step = 4099;
#endif
  const char *st = getenv("BERTH_VMATH_STEP");
  if (st && atoi(st) > 0) step = (uint32_t)atoi(st);
  static const vm_case_t cases[] = {
      {"exp", ref_exp, offsetof(berth_kernel_isa_t, exp_f32), 2},
      {"sigmoid", ref_sigmoid, offsetof(berth_kernel_isa_t, sigmoid_f32), 3},
      {"tanh", ref_tanh, offsetof(berth_kernel_isa_t, tanh_f32), 3},
      {"sqrt", ref_sqrt, offsetof(berth_kernel_isa_t, sqrt_f32), 0},
      {"erf", ref_erf, offsetof(berth_kernel_isa_t, erf_f32), 2},
  };
  int variants = 0;
  for (int i = BERTH_KERNELS_PORTABLE; i < BERTH_KERNELS_ISA_COUNT; i++) {
    const berth_kernel_isa_t *k = berth_kernel_isa_table((berth_kernels_isa_t)i);
    if (!k) {
      printf("test_kernel_isa: %s: not in this build or on this CPU, skipped\n",
             berth_kernels_isa_name((berth_kernels_isa_t)i));
      continue;
    }
    variants++;
    CHECK(k->id == (berth_kernels_isa_t)i);
    test_dot4xn(k);
    test_dot(k);
    test_gemm_nn(k);
    test_gemm_packed(k);
    test_ukr_ldb32(k);
    test_ukr_epi(k);
    test_ukr_bs(k);
    test_gemm_bs(k);
    test_im2col(k);
    test_pool2d(k);
    test_vmath_special(k);
    test_vmath_more(k);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) test_vmath(k, &cases[c], step);
  }
  CHECK(variants >= 1);
  test_pow();
  test_select();
  return test_finish("test_kernel_isa");
}
