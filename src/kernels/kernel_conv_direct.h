/* conv's direct path: a 2-D f32 convolution over pre-packed weights without im2col.
 *
 *   berth_conv_direct_geom_t g = {c, m, ih, iw, oh, ow, kh, kw, sh, sw, ph, pw};
 *   if (berth_conv_direct_band_rows(isa, &g, ap, floats) > 0)
 *     berth_conv_direct_f32(isa, &g, x, wp, ap, bias, y, epi, buf, floats);
 *
 * y[m][oh][ow] = epi(bias[m] + sum over (ic, kh, kw) in order of w[m][ic][kh][kw] * x[ic][i][j])
 * (zero outside the input), the weights in the pre-packed panels of conv_packed (ap rows,
 * kernel_gemm_pack.h's berth_gemm_pack_a layout; ap a multiple of the variant's conv_direct_nr:
 * the 32-row panels). The structure of MLAS's NCHWc convolutions over NCHW tensors: the output
 * channels are the vector lanes, the weights of a tap (conv_direct_nr channels of a panel, one
 * contiguous row) the vector operand, and each output position broadcasts its input element
 * under the tap (kernel_isa.h's conv_direct_ukr_f32), so the input is never packed per panel.
 * A band of output rows at a time, the input rows under it are copied once into the scratch,
 * zero-padded (the broadcasts read any address: no split by stride phase), so every tap of
 * every position in the band is one offset from the position's window; where no window
 * reaches the padding, the input is read in place. The sums go through the scratch
 * as [position][channel] between blocks of K, then to y transposed, with the epilogue
 * (kernel_isa.h's berth_ukr_epi_t, NULL: none; its res and ldr for channel 0, position 0:
 * residual, then the activation). Each output sums from the bias in the order of the taps with
 * the variant's multiply-adds: the packed GEMM's value over an im2col panel, bit for bit.
 *
 * Where the input has at most BERTH_CONV_ROWS_MAX_C channels and the variant has the micro-kernel,
 * the entry points below take kernel_conv_rows.h's variant instead (output positions along the
 * lanes: its own band layout and scratch, the same bits).
 *
 * The scratch (caller's, `floats` of it) holds the taps' offsets, the band (c planes of
 * ((rows - 1) * sh + kh) x ((ow - 1) * sw + kw) floats; none in place) and the band's partial
 * sums (rows * ow * conv_direct_nr floats). Runtime side: no allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_CONV_DIRECT_H
#define BERTH_KERNELS_KERNEL_CONV_DIRECT_H

#include "kernel_isa.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct berth_conv_direct_geom {
  int64_t c, m;           /* input and output channels (of one group) */
  int64_t ih, iw, oh, ow; /* input and output sizes */
  int64_t kh, kw, sh, sw; /* kernel, strides */
  int64_t ph, pw;         /* padding at the start (the end: whatever the output sizes imply) */
} berth_conv_direct_geom_t;

/* The output rows per band that `floats` of scratch hold for variant isa and panels of ap rows
 * (at most oh), or 0 where the path cannot run (no micro-kernel, ap not a multiple of its
 * width, no room for one row, offsets past int32). */
int64_t berth_conv_direct_band_rows(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, int64_t ap,
                                    int64_t floats);

/* The floats of scratch for bands of `rows` output rows (at most oh) on any variant (the
 * widest micro-kernel's partial sums), 0 for absurd geometry: the least a conv that takes the
 * path requests, so that it runs wherever another path's request would be smaller. */
uint64_t berth_conv_direct_scratch_floats(const berth_conv_direct_geom_t *g, int64_t rows);

/* y (and the epilogue) as above; returns false, doing nothing, where band_rows is 0. */
bool berth_conv_direct_f32(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, const float *x,
                           const float *wp, int64_t ap, const float *bias, float *y, const berth_ukr_epi_t *epi,
                           float *buf, int64_t floats);

#endif
