/* conv's direct path: a 2-D f32 convolution over pre-packed weights without im2col.
 *
 *   berth_conv_direct_geom_t g = {c, m, ih, iw, oh, ow, kh, kw, sh, sw, ph, pw};
 *   if (berth_conv_direct_band_rows(isa, &g, floats) > 0)
 *     berth_conv_direct_f32(isa, &g, x, wp, ap, bias, y, res, epi, ctx, buf, floats);
 *
 * y[m][oh][ow] = bias[m] + sum over (ic, kh, kw) in order of w[m][ic][kh][kw] * x[ic][i][j]
 * (zero outside the input), the weights in the pre-packed panels of conv_packed (ap rows:
 * kernel_gemm_pack.h's berth_gemm_pack_a layout). The positions are the vector operand, the
 * weights are broadcast, as in the packed GEMM, but the input is never packed per panel:
 * a band of output rows at a time, the input rows under it are copied once into the scratch,
 * zero-padded and split by stride phase (stride s: s x s planes of every s-th row and column),
 * so that for every kernel tap the tile's NR consecutive output positions (counted along rows
 * of the band's padded width, so a tile may cross output rows) read NR consecutive floats.
 * The micro-kernel (kernel_isa.h's conv_direct_ukr_f32) writes each tile to the stack; the
 * positions that are outputs (not the padded columns) go to y, then the epilogue (NULL: none)
 * runs on them: epi(ctx, y, res ? res + (y - y0) : NULL, n) on each run of n outputs of one
 * channel's row. Each output sums from the bias in the order of the taps with the variant's
 * multiply-adds: the packed GEMM's value over an im2col panel, bit for bit.
 *
 * The scratch (caller's, `floats` of it) holds the band (c * sh * sw planes of
 * (rows + (kh - 1) / sh) x (ow + (kw - 1) / sw) floats, and a vector of slack) and the taps'
 * offsets. Runtime side: no allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_CONV_DIRECT_H
#define BERTH_KERNELS_KERNEL_CONV_DIRECT_H

#include "kernel_isa.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct berth_conv_direct_geom {
  int64_t c, m;          /* input and output channels (of one group) */
  int64_t ih, iw, oh, ow; /* input and output sizes */
  int64_t kh, kw, sh, sw; /* kernel, strides */
  int64_t ph, pw;        /* padding at the start (the end: whatever the output sizes imply) */
} berth_conv_direct_geom_t;

typedef void (*berth_conv_direct_epi_fn)(const void *ctx, float *y, const float *res, int64_t n);

/* The output rows per band that `floats` of scratch hold for variant isa (at most oh), or 0
 * where the path cannot run (no micro-kernel, no room for one row, offsets past int32). */
int64_t berth_conv_direct_band_rows(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g,
                                    int64_t floats);

/* y (and the epilogue) as above; returns false, doing nothing, where band_rows is 0. */
bool berth_conv_direct_f32(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, const float *x,
                           const float *wp, int64_t ap, const float *bias, float *y, const float *res,
                           berth_conv_direct_epi_fn epi, const void *epi_ctx, float *buf, int64_t floats);

/* The same convolution with the output channels along the vector lanes (the variant's
 * conv_cl_ukr_f32): the weights (panels of ap rows, ap a multiple of conv_cl_nr) are the vector
 * operand and each output position broadcasts its input under every tap from the same band,
 * unsplit tiles of positions in y's order; the epilogue (kernel_isa.h's berth_ukr_epi_t, NULL:
 * none; its res and ldr for channel 0, position 0) runs on the tile before the store. The same
 * bits as the packed GEMM. The scratch: the band and the offsets as above, no slack. */
int64_t berth_conv_direct_cl_band_rows(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g,
                                       int64_t ap, int64_t floats);
bool berth_conv_direct_cl_f32(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, const float *x,
                              const float *wp, int64_t ap, const float *bias, float *y, const berth_ukr_epi_t *epi,
                              float *buf, int64_t floats);

#endif
