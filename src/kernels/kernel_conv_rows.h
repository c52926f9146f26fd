/* conv's direct path for few input channels (at most BERTH_CONV_ROWS_MAX_C, and at most
 * BERTH_CONV_ROWS_MAX_TAPS taps per channel: the first layer of an image network), taken by kernel_conv_direct.c's entry points where it applies: the output
 * positions along the vector lanes (kernel_isa.h's conv_rows_ukr_f32), the weights broadcast
 * from the pre-packed panels of conv_packed, the input under each tap of a run of positions one
 * contiguous load from a band of the zero-padded input whose rows are split by the horizontal
 * stride's phase (column j * sw + f of a padded row at phase f, index j), filled once per band.
 * The sums stay in registers over all the taps and go to y (NCHW) with the epilogue: no partial
 * sums, no transposition (the channels-along-the-lanes kernel's per-position overhead is a large
 * share of its time where a position has only 9-49 taps per input channel and 1-4 channels).
 * Each output sums from the bias in the order of the taps with the variant's multiply-adds:
 * the packed GEMM's value over an im2col panel, bit for bit.
 *
 * The scratch (caller's, `floats` of it) holds the taps' offsets, then the band: c planes of
 * ((rows - 1) * sh + kh) padded input rows, each sw phases of ow + (kw - 1) / sw floats, and
 * BERTH_CONV_ROWS_SLACK floats past it (a tile's last vectors read past a row's end).
 * Runtime side: no allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_CONV_ROWS_H
#define BERTH_KERNELS_KERNEL_CONV_ROWS_H

#include "kernel_conv_direct.h"
#include "kernel_isa.h"

#include <stdbool.h>
#include <stdint.h>

#define BERTH_CONV_ROWS_MAX_C 4 /* input channels (of a group) at most */
#define BERTH_CONV_ROWS_MAX_TAPS 64 /* taps per input channel at most: AlexNet's 11x11 stride-4 first conv
                                    * (121) measured 2810-2889 us here against 2189-2208 on the channels-
                                    * along-the-lanes kernel (a tile's broadcast weights, one cache line
                                    * per tap, overflow L1) */
#define BERTH_CONV_ROWS_SLACK 64 /* floats past the band: at least any variant's conv_rows_t - 1 */

/* Whether the geometry suits this path on any variant (at most BERTH_CONV_ROWS_MAX_C channels and
 * BERTH_CONV_ROWS_MAX_TAPS taps per channel). */
bool berth_conv_rows_geom(const berth_conv_direct_geom_t *g);

/* Whether the geometry takes this path on variant isa with weight panels of ap rows. */
bool berth_conv_rows_wanted(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, int64_t ap);

/* The output rows per band that `floats` of scratch hold (at most oh; bands kept near L2's
 * share), or 0 where the path cannot run (no room for one row, offsets past int32). */
int64_t berth_conv_rows_band_rows(const berth_conv_direct_geom_t *g, int64_t floats);

/* The floats of scratch for bands of `rows` output rows (at most oh), 0 for absurd geometry. */
uint64_t berth_conv_rows_scratch_floats(const berth_conv_direct_geom_t *g, int64_t rows);

/* y (and the epilogue: NULL, none; its res and ldr for channel 0, position 0) as in
 * kernel_conv_direct.h; returns false, doing nothing, where the path does not apply. */
bool berth_conv_rows_f32(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, const float *x,
                         const float *wp, int64_t ap, const float *bias, float *y, const berth_ukr_epi_t *epi,
                         float *buf, int64_t floats);

#endif
