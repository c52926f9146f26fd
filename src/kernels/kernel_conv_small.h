/* 1-D f32 convolutions over a few output positions (kernel_conv_small.c): the shapes of an
 * audio model's frame (Silero VAD's STFT and encoder: 1 to 4 positions, 64 to 258 output
 * channels, kernels of 3 or 256 taps), where conv's general path spends more time packing
 * the patches than multiplying.
 *
 *   berth_conv_small_geom_t g = {...};           // one group of one batch item
 *   if (berth_conv_small_f32(&g, xg, wg, bg, yg, buf, bufn)) ...  // done, epilogue left to the caller
 *
 * Runtime side: no allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_CONV_SMALL_H
#define BERTH_KERNELS_KERNEL_CONV_SMALL_H

#include <stdbool.h>
#include <stdint.h>

/* One group: cg input channels of il floats each (the input row), mg output channels of l
 * positions, kernel k taps (weights [mg, cg, k], rows of ck = cg * k floats), stride, pad at
 * the start, dilation. */
typedef struct berth_conv_small_geom {
  int64_t cg, mg, il, l, k, ck, stride, pad, dil;
} berth_conv_small_geom_t;

/* The most output positions the small path takes. */
#define BERTH_CONV_SMALL_MAX_L 4

/* yg[m * l + t] = (bg ? bg[m] : 0) + sum over (ic, q) of wg[m * ck + ic * k + q] *
 * x[ic * il + t * stride - pad + q * dil] (zero outside the row), for m < mg, t < l; the
 * sum in the order of the active kernel variant's dot4xn (kernel_isa.h). Patches are packed
 * into buf (bufn floats) unless each is one contiguous run of the input. Returns false,
 * writing nothing, where it does not apply (more than BERTH_CONV_SMALL_MAX_L positions, fewer
 * than 4 output channels, or scratch too small for the patches). */
bool berth_conv_small_f32(const berth_conv_small_geom_t *g, const float *xg, const float *wg, const float *bg,
                          float *yg, float *buf, int64_t bufn);

#endif
