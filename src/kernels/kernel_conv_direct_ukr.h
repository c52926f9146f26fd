/* The micro-kernel of conv's direct path with the output channels along the vector lanes
 * (kernel_isa.h's conv_direct_ukr_f32, driven by kernel_conv_direct.c), written once with
 * GCC/clang vector types and included by each variant's file:
 *
 *   #define CDU_VB 32            // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define CDU_P 6              // output positions per tile (broadcast): P x NV accumulators
 *   #define CDU_NV 2             // vectors of output channels per tile: NR = NV * VB / 4
 *   #define CDU_NAME isa_32_conv_direct_ukr_f32
 *   #include "kernel_conv_direct_ukr.h"
 *
 * The MLAS / NCHWc structure over NCHW tensors: the weights are the vector operand (NR output
 * channels of a pre-packed weight panel, contiguous for each kernel tap), and each of the
 * tile's np output positions broadcasts its input element under the tap, read in place at
 * xb[p][off[q]] (xb[p]: the position's window in a band of the zero-padded input, off[q]: the
 * tap (ic, kh, kw) in the band), so nothing is packed per call: no im2col. The tile's
 * accumulators are [position][channel]; they go to y ([channel][position], NCHW) through a
 * transposition of 8 x 8 blocks in registers, with the epilogue (kernel_isa.h's
 * berth_ukr_epi_t: residual, then the activation, as selects on compare masks: the bits of the
 * scalar formulas) on the way. Each output sums from the bias in the order of q with the
 * including file's multiply-adds: the packed GEMM's value over an im2col panel, bit for bit.
 * np (1..P) is a constant in each inlined case of the switch. No allocation, no stdio. */
#include "kernel_isa.h"

#include <stdint.h>
#include <string.h>

#if CDU_P < 2 || CDU_P > 16
#error "CDU_P must be 2 to 16 (the cases of the position-count switch)"
#endif

#define CDU_VW (CDU_VB / 4)
#define CDU_NR (CDU_NV * CDU_VW)

#define CDU_C2(a, b) a##b
#define CDU_C(a, b) CDU_C2(a, b)
#define CDU_F(x) CDU_C(CDU_NAME, _##x)

#define VEC_VB CDU_VB
#define VEC_F(x) CDU_F(x)
#include "kernel_vec.h"


/* The transposition's blocks: TB x TB floats, TB = 8 (4 for 16-byte variants), one TB-float
 * vector per row. */
#if CDU_VB >= 32
#define CDU_TB 8
#else
#define CDU_TB 4
#endif
typedef float CDU_F(vt) __attribute__((vector_size(CDU_TB * 4)));
typedef int32_t CDU_F(mt) __attribute__((vector_size(CDU_TB * 4)));
#if CDU_NR % CDU_TB != 0
#error "CDU_NR must be a multiple of the transposition's block"
#endif

static inline CDU_F(vt) CDU_F(ldt)(const float *p) {
  CDU_F(vt) v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline CDU_F(vt) CDU_F(selt)(CDU_F(mt) m, CDU_F(vt) x, CDU_F(vt) y) {
  return (CDU_F(vt))(((CDU_F(mt))x & m) | ((CDU_F(mt))y & ~m));
}

/* rows r[0..TB-1] transposed in place: r[i][j] <- r[j][i] (CDU_F(tr)) */
#define VT_W CDU_TB
#define VT_F(x) CDU_F(x)
#include "kernel_vec_tr.h"

/* conv_epi's activation act on TB lanes (al, be: alpha and beta broadcast), as selects on
 * compare masks: the bits of the scalar formulas */
static inline __attribute__((always_inline)) CDU_F(vt) CDU_F(actt)(int act, CDU_F(vt) a, CDU_F(vt) al, CDU_F(vt) be) {
  const CDU_F(vt) zero = {0};
  if (act == BERTH_UKR_ACT_RELU) return CDU_F(selt)(a < zero, zero, a);
  if (act == BERTH_UKR_ACT_CLIP) {
    const CDU_F(vt) u = CDU_F(selt)(a < al, al, a);
    return CDU_F(selt)(u > be, be, u);
  }
  if (act == BERTH_UKR_ACT_LEAKY_RELU) return CDU_F(selt)(a < zero, al * a, a);
  return a;
}

/* The epilogue on one channel's TB positions (lanes), then their store (the first pn of them
 * where pn < TB: through the stack, a tail). */
static inline __attribute__((always_inline)) void CDU_F(outt)(CDU_F(vt) a, float *y, const float *res, int pn,
                                                              const berth_ukr_epi_t *e) {
  typedef CDU_F(vt) vt;
  float tail[CDU_TB];
  if (e) {
    if (e->res) {
      if (pn == CDU_TB) {
        a += CDU_F(ldt)(res);
      } else {
        memset(tail, 0, sizeof tail);
        memcpy(tail, res, (size_t)pn * sizeof(float));
        a += CDU_F(ldt)(tail);
      }
    }
    vt al = {0}, be = {0}; /* broadcasts, not 0 + x (0 + -0 is +0) */
    for (int i = 0; i < CDU_TB; i++) al[i] = e->alpha, be[i] = e->beta;
    a = CDU_F(actt)(e->act, a, al, be);
  }
  if (pn == CDU_TB) {
    memcpy(y, &a, sizeof a);
  } else {
    memcpy(tail, &a, sizeof a);
    memcpy(y, tail, (size_t)pn * sizeof(float));
  }
}

/* A whole transposed block (TB channels by TB positions) to y with the epilogue act (a
 * constant once inlined): its rows stay in registers (outt's per-row tail and epilogue
 * branches had GCC spill the block to the stack and reload it row by row, 7-10 % of a 3x3
 * conv over 16 input channels). The residual first, then the activation: outt's formulas. */
static inline __attribute__((always_inline)) void CDU_F(outb)(int act, CDU_F(vt) *r, float *y, int64_t ldy,
                                                              const float *res, int64_t ldr, float fa, float fb) {
  typedef CDU_F(vt) vt;
  vt al = {0}, be = {0};
  for (int i = 0; i < CDU_TB; i++) al[i] = fa, be[i] = fb;
  for (int c = 0; c < CDU_TB; c++) {
    vt a = r[c];
    if (res) a += CDU_F(ldt)(res + c * ldr);
    a = CDU_F(actt)(act, a, al, be);
    memcpy(y + c * ldy, &a, sizeof a);
  }
}

/* y[c * ldy + j] = epi(part[j * NR + c]) for j < n, c < nch: TB x TB blocks transposed. */
static void CDU_F(out)(const float *part, int64_t n, float *y, int64_t ldy, int64_t nch, const berth_ukr_epi_t *epi) {
  typedef CDU_F(vt) vt;
  const int act = epi ? epi->act : BERTH_UKR_ACT_NONE;
  const float fa = epi ? epi->alpha : 0.0f, fb = epi ? epi->beta : 0.0f;
  for (int64_t p0 = 0; p0 < n; p0 += CDU_TB) {
    const int pn = n - p0 < CDU_TB ? (int)(n - p0) : CDU_TB;
    for (int64_t c0 = 0; c0 < nch; c0 += CDU_TB) {
      const int cn = nch - c0 < CDU_TB ? (int)(nch - c0) : CDU_TB;
      if (pn == CDU_TB && cn == CDU_TB) { /* a whole block: one case per activation */
        vt b[CDU_TB];
        for (int i = 0; i < CDU_TB; i++) b[i] = CDU_F(ldt)(part + (p0 + i) * CDU_NR + c0);
        CDU_F(tr)(b);
        float *yb = y + c0 * ldy + p0;
        const float *rb = epi && epi->res ? epi->res + c0 * epi->ldr + p0 : NULL;
        const int64_t ldr = epi ? epi->ldr : 0;
        if (act == BERTH_UKR_ACT_RELU)
          CDU_F(outb)(BERTH_UKR_ACT_RELU, b, yb, ldy, rb, ldr, fa, fb);
        else if (act == BERTH_UKR_ACT_NONE)
          CDU_F(outb)(BERTH_UKR_ACT_NONE, b, yb, ldy, rb, ldr, fa, fb);
        else
          CDU_F(outb)(act, b, yb, ldy, rb, ldr, fa, fb);
        continue;
      }
      vt r[CDU_TB];
      for (int i = 0; i < CDU_TB; i++) r[i] = i < pn ? CDU_F(ldt)(part + (p0 + i) * CDU_NR + c0) : (vt){0};
      CDU_F(tr)(r);
      for (int c = 0; c < cn; c++) {
        const int64_t at = (c0 + c) * ldy + p0;
        CDU_F(outt)(r[c], y + at, epi && epi->res ? epi->res + (c0 + c) * epi->ldr + p0 : NULL, pn, epi);
      }
    }
  }
}

/* One tile of np positions (a constant once inlined): its sums over kc taps to part. */
static inline __attribute__((always_inline)) void CDU_F(tile)(int np, const float *w, int64_t ldw,
                                                              const float *const *xb, const int32_t *off, int64_t kc,
                                                              const float *bias, float *part) {
  typedef CDU_F(vf) vf;
  vf acc[CDU_P][CDU_NV];
  const float *x[CDU_P];
  for (int p = 0; p < np; p++) x[p] = xb[p];
  if (bias)
    for (int v = 0; v < CDU_NV; v++) {
      const vf b = CDU_F(ld)(bias + v * CDU_VW);
      for (int p = 0; p < np; p++) acc[p][v] = b;
    }
  else
    for (int p = 0; p < np; p++)
      for (int v = 0; v < CDU_NV; v++) acc[p][v] = CDU_F(ld)(part + p * CDU_NR + v * CDU_VW);
  for (int64_t q = 0; q < kc; q++) {
    const int32_t o = off[q];
    vf wv[CDU_NV];
    for (int v = 0; v < CDU_NV; v++) wv[v] = CDU_F(ld)(w + q * ldw + v * CDU_VW);
    for (int p = 0; p < np; p++) {
      const vf s = CDU_F(splat)(x[p][o]);
      for (int v = 0; v < CDU_NV; v++) acc[p][v] += s * wv[v];
    }
  }
  for (int p = 0; p < np; p++)
    for (int v = 0; v < CDU_NV; v++) CDU_F(st)(part + p * CDU_NR + v * CDU_VW, acc[p][v]);
}

#define CDU_CASE(m)                                                                                                  \
  case m: CDU_F(tile)(m, w, ldw, xb, off, kc, bias, pt); break;

static void CDU_NAME(const float *w, int64_t ldw, const float *x, int64_t rs, int64_t cs, int64_t ow, int64_t col0,
                     int64_t n, const int32_t *off, int64_t kc, const float *bias, float *part, float *y, int64_t ldy,
                     int64_t nch, const berth_ukr_epi_t *epi) {
  const float *xb[CDU_P];
  const float *row = x;
  int64_t col = col0;
  for (int64_t j = 0; j < n; j += CDU_P) {
    const int64_t np = n - j < CDU_P ? n - j : CDU_P;
    for (int p = 0; p < np; p++) {
      xb[p] = row + col * cs;
      if (++col == ow) col = 0, row += rs;
    }
    float *pt = part + j * CDU_NR;
    if (np == CDU_P) {
      CDU_F(tile)(CDU_P, w, ldw, xb, off, kc, bias, pt);
      continue;
    }
    switch (np) { /* the last tile: every count below CDU_P has its case */
#if CDU_P > 15
      CDU_CASE(15)
#endif
#if CDU_P > 14
      CDU_CASE(14)
#endif
#if CDU_P > 13
      CDU_CASE(13)
#endif
#if CDU_P > 12
      CDU_CASE(12)
#endif
#if CDU_P > 11
      CDU_CASE(11)
#endif
#if CDU_P > 10
      CDU_CASE(10)
#endif
#if CDU_P > 9
      CDU_CASE(9)
#endif
#if CDU_P > 8
      CDU_CASE(8)
#endif
#if CDU_P > 7
      CDU_CASE(7)
#endif
#if CDU_P > 6
      CDU_CASE(6)
#endif
#if CDU_P > 5
      CDU_CASE(5)
#endif
#if CDU_P > 4
      CDU_CASE(4)
#endif
#if CDU_P > 3
      CDU_CASE(3)
#endif
#if CDU_P > 2
      CDU_CASE(2)
#endif
      CDU_CASE(1)
    default: break;
    }
  }
  if (y) CDU_F(out)(part, n, y, ldy, nch, epi);
}

#undef CDU_CASE
#undef CDU_F
#undef CDU_C
#undef CDU_C2
#undef CDU_TB
#undef CDU_NR
#undef CDU_VW
