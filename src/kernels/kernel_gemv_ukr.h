/* matmul_packed's row path (kernel_isa.h's gemv_p32_f32, driven by kernel_matmul_packed.c),
 * written once with GCC/clang vector types and included by each variant's file:
 *
 *   #define GVU_VB 64                       // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define GVU_NAME isa_64_gemv_p32_f32
 *   #include "kernel_gemv_ukr.h"
 *
 * One row x [K] times weights packed in 32-column panels (element (q, j) at
 * wp[((j / 32) * K + q) * 32 + j % 32], kernel_matmul_packed.c's layout). Memory- or
 * cache-bound: each panel is streamed once, as four runs of K / 4 rows read side by side and
 * prefetched ahead (four streams keep more of the memory's bandwidth busy than one), into 32
 * sums held in 32 / lanes vectors; the rows past 4 * (K / 4) after them. Each sum adds, per
 * step q, (x[q] w + x[q + K/4] w') + (x[q + K/2] w'' + x[q + 3K/4] w''') with the including
 * file's multiply-adds (the portable variant rounds each product and sum; the x86 ones
 * contract them), so variants differ by rounding only. Whole vectors: the weights (in
 * place) and the row are read as they are, nothing copied. No allocation, no stdio. */
#include "kernel_isa.h"

#include <stdint.h>
#include <string.h>

#define GVU_VW (GVU_VB / 4)
#define GVU_PW 32           /* kernel_matmul_packed.c's panel width (BERTH_MM_BPANEL) */
#define GVU_NV (GVU_PW / GVU_VW) /* vectors per panel row */
#define GVU_PF (16 * GVU_PW) /* the prefetch distance in floats: 16 rows (2 KiB) ahead in each run */

#define GVU_C2(a, b) a##b
#define GVU_C(a, b) GVU_C2(a, b)
#define GVU_F(x) GVU_C(GVU_NAME, _##x)

#define VEC_VB GVU_VB
#define VEC_F(x) GVU_F(x)
#include "kernel_vec.h"

/* y[j] (+)= sum_q x[q] W[q][j] for j < n; load: y holds the starting values, else 0 */
static void GVU_NAME(const float *x, const float *wp, int64_t K, int64_t n, float *y, int load) {
  typedef GVU_F(vf) vf;
  const int64_t K4 = K / 4, S = K4 * GVU_PW;
  for (int64_t p = 0; p * GVU_PW < n; p++) {
    const float *w = wp + p * K * GVU_PW;
    const int64_t nc = n - p * GVU_PW < GVU_PW ? n - p * GVU_PW : GVU_PW;
    float t[GVU_PW];
    if (load) memcpy(t, y + p * GVU_PW, (size_t)nc * sizeof(float));
    else memset(t, 0, sizeof t);
    vf s[GVU_NV];
    for (int v = 0; v < GVU_NV; v++) s[v] = GVU_F(ld)(t + v * GVU_VW);
    for (int64_t q = 0; q < K4; q++) {
      const float *a = w + q * GVU_PW;
#if defined(__GNUC__)
      /* each run 16 rows (2 KiB) ahead: the four streams alone reach 15-17 GB/s from DRAM
       * here, with these 24-26 */
      for (int r = 0; r < 4; r++) {
        __builtin_prefetch(a + r * S + GVU_PF, 0, 3);
        __builtin_prefetch(a + r * S + GVU_PF + 16, 0, 3);
      }
#endif
      const vf x0 = GVU_F(splat)(x[q]), x1 = GVU_F(splat)(x[q + K4]), x2 = GVU_F(splat)(x[q + 2 * K4]),
               x3 = GVU_F(splat)(x[q + 3 * K4]);
      for (int v = 0; v < GVU_NV; v++)
        s[v] += (x0 * GVU_F(ld)(a + v * GVU_VW) + x1 * GVU_F(ld)(a + S + v * GVU_VW)) +
                (x2 * GVU_F(ld)(a + 2 * S + v * GVU_VW) + x3 * GVU_F(ld)(a + 3 * S + v * GVU_VW));
    }
    for (int64_t q = 4 * K4; q < K; q++) {
      const vf xv = GVU_F(splat)(x[q]);
      for (int v = 0; v < GVU_NV; v++) s[v] += xv * GVU_F(ld)(w + q * GVU_PW + v * GVU_VW);
    }
    for (int v = 0; v < GVU_NV; v++) GVU_F(st)(t + v * GVU_VW, s[v]);
    memcpy(y + p * GVU_PW, t, (size_t)nc * sizeof(float));
  }
}

#undef GVU_F
#undef GVU_C
#undef GVU_C2
#undef GVU_PF
#undef GVU_NV
#undef GVU_PW
#undef GVU_VW
#undef GVU_VB
#undef GVU_NAME
