/* The micro-kernel of conv's direct (im2col-free) path (kernel_isa.h's conv_direct_ukr_f32,
 * driven by kernel_conv_direct.c), written once with GCC/clang vector types and included by
 * each variant's file:
 *
 *   #define CDU_VB 32            // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define CDU_MR 6             // output channels per tile (rows, broadcast)
 *   #define CDU_NV 2             // vectors of output positions per tile: NR = NV * VB / 4
 *   #define CDU_NAME isa_32_conv_direct_ukr_f32
 *   #include "kernel_conv_direct_ukr.h"
 *
 * The packed GEMM's micro-kernel (kernel_ukr.h) with B read in place: step q of the
 * reduction (one kernel tap (ic, kh, kw)) loads NV vectors of NR consecutive floats at
 * x + off[q] (a band of the zero-padded input, laid out so that the NR output positions of
 * the tile read NR consecutive floats for every tap) and broadcasts mr weights of a
 * pre-packed panel (element (r, q) at a[q * lda + r]). The tile [mr][NR] goes to `tile`
 * (rows NR floats apart). Each element sums from the bias in the order of q with the
 * including file's multiply-adds: the same value as the packed GEMM's tile over an im2col
 * panel. No allocation, no stdio. */
#include <stdint.h>
#include <string.h>

#if CDU_MR != 4 && CDU_MR != 6 && CDU_MR != 8 && CDU_MR != 12
#error "CDU_MR must be 4, 6, 8 or 12 (the cases of the row-count switch)"
#endif

#define CDU_VW (CDU_VB / 4)
#define CDU_NR (CDU_NV * CDU_VW)
#define CDU_C2(a, b) a##b
#define CDU_C(a, b) CDU_C2(a, b)
#define CDU_F(x) CDU_C(CDU_NAME, _##x)

#define VEC_VB CDU_VB
#define VEC_F(x) CDU_F(x)
#include "kernel_vec.h"

static inline __attribute__((always_inline)) void CDU_F(tile)(int mr, const float *a, int64_t lda, const float *x,
                                                              const int32_t *off, int64_t kc, float *tile,
                                                              const float *bias) {
  typedef CDU_F(vf) vf;
  vf acc[CDU_MR][CDU_NV];
  for (int r = 0; r < mr; r++)
    for (int v = 0; v < CDU_NV; v++) acc[r][v] = CDU_F(splat)(bias ? bias[r] : 0.0f);
  for (int64_t q = 0; q < kc; q++) {
    const float *b = x + off[q];
    vf bv[CDU_NV];
    for (int v = 0; v < CDU_NV; v++) bv[v] = CDU_F(ld)(b + v * CDU_VW);
    for (int r = 0; r < mr; r++) {
      const vf av = CDU_F(splat)(a[q * lda + r]);
      for (int v = 0; v < CDU_NV; v++) acc[r][v] += av * bv[v];
    }
  }
  for (int r = 0; r < mr; r++)
    for (int v = 0; v < CDU_NV; v++) CDU_F(st)(tile + r * CDU_NR + v * CDU_VW, acc[r][v]);
}

#define CDU_CASE(m)                                                                                                  \
  case m: CDU_F(tile)(m, a, lda, x, off, kc, tile, bias); break;

static void CDU_NAME(const float *a, int64_t lda, const float *x, const int32_t *off, int64_t kc, float *tile,
                     int64_t mr, const float *bias) {
  switch (mr) {
#if CDU_MR >= 12
    CDU_CASE(12)
    CDU_CASE(11)
    CDU_CASE(10)
    CDU_CASE(9)
#endif
#if CDU_MR >= 8
    CDU_CASE(8)
    CDU_CASE(7)
#endif
#if CDU_MR >= 6
    CDU_CASE(6)
    CDU_CASE(5)
#endif
    CDU_CASE(4)
    CDU_CASE(3)
    CDU_CASE(2)
    CDU_CASE(1)
  default: break;
  }
}

#undef CDU_CASE
#undef CDU_F
#undef CDU_C
#undef CDU_C2
#undef CDU_NR
#undef CDU_VW
