/* The micro-kernel of conv_blocked (kernel_isa.h's conv_blocked_ukr_f32, driven by
 * kernel_conv_blocked.c), written once with GCC/clang vector types and included by each
 * variant's file:
 *
 *   #define CBU_VB 64            // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define CBU_P 6              // output positions per tile (broadcast)
 *   #define CBU_OB 4             // output channel blocks of 16 per tile: P x OB x 16 / lanes accumulators
 *   #define CBU_NAME isa_64_conv_blocked_ukr_f32              // blocked input
 *   #define CBU_PLAIN_NAME isa_64_conv_blocked_plain_ukr_f32  // plain input (C < 16)
 *   #define CBU_RUN_NAME isa_64_conv_blocked_run_ukr_f32      // a run of P x OB / nob positions (OB > 1)
 *   #include "kernel_conv_blocked_ukr.h"
 *
 * Channel-blocked tensors ([N, C/16, H, W, 16], 16 channels of one position contiguous): the
 * weights of one input channel for 16 output channels are one contiguous row, the vector
 * operand; each position of the tile broadcasts its input element. Input and output are read
 * and written in place, in whole blocks: nothing is packed or transposed per call (the layout
 * of MLAS's NCHWc convolutions). Each output sums, from the bias (or from the partial sum
 * already in y), over the input blocks in order, each block over the taps in order, each tap
 * over the block's 16 channels in order, with the including file's multiply-adds; the result
 * depends on no address. The epilogue (residual, then activation, the bits of the scalar
 * formulas; kernel_vec.h) on the last chunk. np and nob are constants in each inlined case of
 * the switches. No allocation, no stdio. */
#include "kernel_isa.h"

#include <stdint.h>
#include <string.h>

#if CBU_P < 1 || CBU_P > 8 || CBU_OB < 1 || CBU_OB > 4
#error "CBU_P must be 1 to 8 and CBU_OB 1 to 4 (the cases of the switches)"
#endif

#define CBU_VW (CBU_VB / 4)
#define CBU_BV (16 / CBU_VW) /* vectors per block of 16 channels */
/* The loops over a tile's positions, output blocks and vectors unrolled whole (their counts
 * are constants once inlined), so the accumulator arrays become registers. Left to GCC's
 * heuristics they stayed arrays on the stack, stored and reloaded around every input
 * block's 16 channel steps and spilled for the epilogue: a 16 -> 64 1x1 on 55x55 took 55
 * us where it takes 43, ResNet-50 as a whole 2-4 % longer (AVX-512). */
#define CBU_UNROLL _Pragma("GCC unroll 32")

#define CBU_C2(a, b) a##b
#define CBU_C(a, b) CBU_C2(a, b)
#define CBU_F(x) CBU_C(CBU_NAME, _##x)

#define VEC_VB CBU_VB
#define VEC_F(x) CBU_F(x)
#include "kernel_vec.h"

/* One input channel of a tile: its element at xp[p][xi] for each of the np positions, its
 * weights for output block b at wr + b * wob. The positions' broadcasts first, then each
 * weight vector across them (it can stay a memory operand): P + 1 registers beside the
 * accumulators. Measured against the weights first (4 + 1 beside them on AVX-512): 5-8 %
 * faster on AVX-512, and on AVX2 it lets 3 positions x 32 channels fit the 16 registers
 * (10-20 % faster than 6 x 16). */
static inline __attribute__((always_inline)) void CBU_F(step)(int np, int nob, CBU_F(vf) acc[CBU_P][CBU_OB * CBU_BV],
                                                              const float *const *xp, int64_t xi, const float *wr,
                                                              int64_t wob) {
  typedef CBU_F(vf) vf;
  vf s[CBU_P];
  CBU_UNROLL for (int p = 0; p < np; p++) s[p] = CBU_F(splat)(xp[p][xi]);
  CBU_UNROLL for (int b = 0; b < nob; b++)
    CBU_UNROLL for (int v = 0; v < CBU_BV; v++) {
      const vf wv = CBU_F(ld)(wr + b * wob + v * CBU_VW);
      CBU_UNROLL for (int p = 0; p < np; p++) acc[p][b * CBU_BV + v] += s[p] * wv;
    }
}

/* One tile: np positions by nob output blocks (constants once inlined); plain (a constant
 * too): the input's a->cpb channels a->cs floats apart, else 16 contiguous ones. */
static inline __attribute__((always_inline)) void CBU_F(tile)(int np, int nob, int plain, const berth_conv_blk_args_t *a,
                                                              const int64_t *xo, const int64_t *yo) {
  typedef CBU_F(vf) vf;
  vf acc[CBU_P][CBU_OB * CBU_BV];
  if (a->load) {
    CBU_UNROLL for (int p = 0; p < np; p++)
      CBU_UNROLL for (int b = 0; b < nob; b++)
        CBU_UNROLL for (int v = 0; v < CBU_BV; v++)
          acc[p][b * CBU_BV + v] = CBU_F(ld)(a->y + yo[p] + b * a->yob + v * CBU_VW);
  } else {
    CBU_UNROLL for (int b = 0; b < nob; b++)
      CBU_UNROLL for (int v = 0; v < CBU_BV; v++) {
        const vf s = a->bias ? CBU_F(ld)(a->bias + b * 16 + v * CBU_VW) : (vf){0};
        CBU_UNROLL for (int p = 0; p < np; p++) acc[p][b * CBU_BV + v] = s;
      }
  }
  const float *x = a->x, *w = a->w;
  const int64_t wob = a->wob, plane = a->plane, wib = a->wib, nc = a->cpb, cs = a->cs;
  for (int64_t ib = 0; ib < a->cb; ib++) {
    for (int64_t t = 0; t < a->nt; t++) {
      const int64_t to = a->to[t] + ib * plane;
      const float *xp[CBU_P];
      CBU_UNROLL for (int p = 0; p < np; p++) xp[p] = x + (xo[p] + to);
      const float *wr = w + (ib * wib + a->tw[t]);
      if (plain && nc == 3) {
        CBU_F(step)(np, nob, acc, xp, 0, wr, wob);
        CBU_F(step)(np, nob, acc, xp, cs, wr + 16, wob);
        CBU_F(step)(np, nob, acc, xp, 2 * cs, wr + 32, wob);
      } else if (plain) {
        for (int64_t ic = 0; ic < nc; ic++) CBU_F(step)(np, nob, acc, xp, ic * cs, wr + ic * 16, wob);
      } else {
        /* unrolled twice: 1x1 convs 4-6 % faster than rolled (AVX-512; 4, 8 and 16 no
         * better, 16 slower) */
        _Pragma("GCC unroll 2") for (int ic = 0; ic < 16; ic++) CBU_F(step)(np, nob, acc, xp, ic, wr + ic * 16, wob);
      }
    }
  }
  const berth_ukr_epi_t *e = a->epi;
  if (e) {
    vf al, be;
    al = CBU_F(splat)(e->alpha); /* broadcasts, not 0 + x (0 + -0 is +0) */
    be = CBU_F(splat)(e->beta);
    CBU_UNROLL for (int p = 0; p < np; p++)
      CBU_UNROLL for (int b = 0; b < nob; b++)
        CBU_UNROLL for (int v = 0; v < CBU_BV; v++) {
          vf s = acc[p][b * CBU_BV + v];
          if (e->res) s += CBU_F(ld)(e->res + yo[p] + b * a->yob + v * CBU_VW);
          acc[p][b * CBU_BV + v] = CBU_F(act)(e->act, s, al, be);
        }
  }
  CBU_UNROLL for (int p = 0; p < np; p++)
    CBU_UNROLL for (int b = 0; b < nob; b++)
      CBU_UNROLL for (int v = 0; v < CBU_BV; v++)
        CBU_F(st)(a->y + yo[p] + b * a->yob + v * CBU_VW, acc[p][b * CBU_BV + v]);
}

#if CBU_OB > 1
/* the starting sums of a run tile with no bias */
static const float CBU_F(zeros)[CBU_OB * 16];

/* A run tile's sums through activation act (a constant once inlined; alpha, beta its
 * parameters), stored to y. */
static inline __attribute__((always_inline)) void CBU_F(run_store)(int np, int nob, int act,
                                                                   const berth_conv_blk_args_t *a, int64_t yo,
                                                                   CBU_F(vf) acc[][CBU_BV], float alpha, float beta) {
  const CBU_F(vf) al = CBU_F(splat)(alpha), be = CBU_F(splat)(beta); /* broadcasts, not 0 + x */
  CBU_UNROLL for (int p = 0; p < np; p++)
    CBU_UNROLL for (int b = 0; b < nob; b++)
      CBU_UNROLL for (int v = 0; v < CBU_BV; v++)
        CBU_F(st)(a->y + yo + p * 16 + b * a->yob + v * CBU_VW, CBU_F(act)(act, acc[p * nob + b][v], al, be));
}

/* A run tile (kernel_isa.h's conv_blocked_run_ukr_f32): np = CBU_P * CBU_OB / nob consecutive
 * positions of a blocked input by nob output blocks, the same number of accumulators as a
 * full tile. Per channel the nob blocks' weights first, then each position's broadcast
 * against them (the broadcast can be the multiply-add's memory operand: nob + 1 registers
 * beside the accumulators); the positions 16 floats apart, so one address serves them all.
 * AVX-512, 64 -> 16 1x1 on 55x55: a tile of 6 positions keeps 6 sums in flight, too few for
 * the multiply-adds' latency, and loads 7 operands per 6 multiply-adds. */
static inline __attribute__((always_inline)) void CBU_F(run)(int np, int nob, const berth_conv_blk_args_t *a,
                                                             int64_t xo, int64_t yo) {
  typedef CBU_F(vf) vf;
  vf acc[CBU_P * CBU_OB][CBU_BV]; /* position p, block b: acc[p * nob + b] */
  /* the starting sums, one load each from y's partial sums, the bias or zeros: a branch
   * between the accumulators' loads and their use (and likewise in the epilogue) makes GCC
   * keep them in memory across the merge */
  const float *src = a->load ? a->y + yo : a->bias ? a->bias : CBU_F(zeros);
  const int64_t ps = a->load ? 16 : 0, bs = a->load ? a->yob : 16;
  CBU_UNROLL for (int p = 0; p < np; p++)
    CBU_UNROLL for (int b = 0; b < nob; b++)
      CBU_UNROLL for (int v = 0; v < CBU_BV; v++) acc[p * nob + b][v] = CBU_F(ld)(src + p * ps + b * bs + v * CBU_VW);
  const int64_t wob = a->wob;
  for (int64_t ib = 0; ib < a->cb; ib++)
    for (int64_t t = 0; t < a->nt; t++) {
      const float *xp = a->x + (xo + a->to[t] + ib * a->plane);
      const float *wr = a->w + (ib * a->wib + a->tw[t]);
      for (int ic = 0; ic < 16; ic++) {
        vf wv[CBU_OB][CBU_BV];
        CBU_UNROLL for (int b = 0; b < nob; b++)
          CBU_UNROLL for (int v = 0; v < CBU_BV; v++) wv[b][v] = CBU_F(ld)(wr + ic * 16 + b * wob + v * CBU_VW);
        CBU_UNROLL for (int p = 0; p < np; p++) {
          const vf s = CBU_F(splat)(xp[p * 16 + ic]);
          CBU_UNROLL for (int b = 0; b < nob; b++)
            CBU_UNROLL for (int v = 0; v < CBU_BV; v++) acc[p * nob + b][v] += s * wv[b][v];
        }
      }
    }
  const berth_ukr_epi_t *e = a->epi;
  if (e && e->res)
    CBU_UNROLL for (int p = 0; p < np; p++)
      CBU_UNROLL for (int b = 0; b < nob; b++)
        CBU_UNROLL for (int v = 0; v < CBU_BV; v++)
          acc[p * nob + b][v] += CBU_F(ld)(e->res + yo + p * 16 + b * a->yob + v * CBU_VW);
  switch (e ? e->act : BERTH_UKR_ACT_NONE) { /* a loop per activation, a constant in each */
  case BERTH_UKR_ACT_RELU: CBU_F(run_store)(np, nob, BERTH_UKR_ACT_RELU, a, yo, acc, 0, 0); break;
  case BERTH_UKR_ACT_CLIP: CBU_F(run_store)(np, nob, BERTH_UKR_ACT_CLIP, a, yo, acc, e->alpha, e->beta); break;
  case BERTH_UKR_ACT_LEAKY_RELU: CBU_F(run_store)(np, nob, BERTH_UKR_ACT_LEAKY_RELU, a, yo, acc, e->alpha, 0); break;
  default: CBU_F(run_store)(np, nob, BERTH_UKR_ACT_NONE, a, yo, acc, 0, 0); break;
  }
}

/* the entry point: one case per output-block count under CBU_OB */
static void CBU_RUN_NAME(const berth_conv_blk_args_t *a, int64_t xo, int64_t yo) {
  switch (a->nob) {
  case 1: CBU_F(run)(CBU_P * CBU_OB, 1, a, xo, yo); break;
#if CBU_OB > 2
  case 2: CBU_F(run)(CBU_P * CBU_OB / 2, 2, a, xo, yo); break;
#endif
#if CBU_OB > 3
  case 3: CBU_F(run)(CBU_P * CBU_OB / 3, 3, a, xo, yo); break;
#endif
  default: break;
  }
}
#endif

/* the positions switch for nob output blocks, plain input or not (pl) */
#define CBU_PCASE(m, nb, pl) \
  case m: CBU_F(tile)(m, nb, pl, a, xo, yo); break;
#if CBU_P > 7
#define CBU_P8(nb, pl) CBU_PCASE(8, nb, pl)
#else
#define CBU_P8(nb, pl)
#endif
#if CBU_P > 6
#define CBU_P7(nb, pl) CBU_PCASE(7, nb, pl)
#else
#define CBU_P7(nb, pl)
#endif
#if CBU_P > 5
#define CBU_P6(nb, pl) CBU_PCASE(6, nb, pl)
#else
#define CBU_P6(nb, pl)
#endif
#if CBU_P > 4
#define CBU_P5(nb, pl) CBU_PCASE(5, nb, pl)
#else
#define CBU_P5(nb, pl)
#endif
#if CBU_P > 3
#define CBU_P4(nb, pl) CBU_PCASE(4, nb, pl)
#else
#define CBU_P4(nb, pl)
#endif
#if CBU_P > 2
#define CBU_P3(nb, pl) CBU_PCASE(3, nb, pl)
#else
#define CBU_P3(nb, pl)
#endif
#if CBU_P > 1
#define CBU_P2(nb, pl) CBU_PCASE(2, nb, pl)
#else
#define CBU_P2(nb, pl)
#endif
#define CBU_POS(nb, pl)                                                                             \
  switch (np) {                                                                                     \
    CBU_P8(nb, pl) CBU_P7(nb, pl) CBU_P6(nb, pl) CBU_P5(nb, pl) CBU_P4(nb, pl) CBU_P3(nb, pl)        \
    CBU_P2(nb, pl) CBU_PCASE(1, nb, pl)                                                             \
  default: break;                                                                                   \
  }
#if CBU_OB > 3
#define CBU_OB4(pl) case 4: CBU_POS(4, pl) break;
#else
#define CBU_OB4(pl)
#endif
#if CBU_OB > 2
#define CBU_OB3(pl) case 3: CBU_POS(3, pl) break;
#else
#define CBU_OB3(pl)
#endif
#if CBU_OB > 1
#define CBU_OB2(pl) case 2: CBU_POS(2, pl) break;
#else
#define CBU_OB2(pl)
#endif
/* the entry point: the output-blocks switch, then the positions one */
#define CBU_ENTRY(name, pl)                                                                         \
  static void name(const berth_conv_blk_args_t *a, int64_t np, const int64_t *xo, const int64_t *yo) { \
    switch (a->nob) {                                                                               \
      CBU_OB4(pl) CBU_OB3(pl) CBU_OB2(pl) case 1: CBU_POS(1, pl) break;                             \
    default: break;                                                                                 \
    }                                                                                               \
  }

/* blocked input: 16 contiguous channels per block (kernel_isa.h's conv_blocked_ukr_f32) */
CBU_ENTRY(CBU_NAME, 0)
/* a plain input's a->cpb channels a->cs floats apart (a network's first conv;
 * conv_blocked_plain_ukr_f32) */
CBU_ENTRY(CBU_PLAIN_NAME, 1)

#undef CBU_ENTRY
#undef CBU_OB4
#undef CBU_OB3
#undef CBU_OB2

#undef CBU_POS
#undef CBU_PCASE
#undef CBU_P8
#undef CBU_P7
#undef CBU_P6
#undef CBU_P5
#undef CBU_P4
#undef CBU_P3
#undef CBU_P2
#undef CBU_F
#undef CBU_C
#undef CBU_C2
#undef CBU_BV
#undef CBU_UNROLL
#undef CBU_VW
#undef CBU_VB
#undef CBU_P
#undef CBU_OB
#undef CBU_NAME
#undef CBU_PLAIN_NAME
#undef CBU_RUN_NAME
