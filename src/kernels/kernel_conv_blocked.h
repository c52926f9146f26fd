/* conv_blocked: a 2-D f32 convolution over channel-blocked tensors (kernel_conv_blocked.c).
 *
 * A channel-blocked tensor holds the logical [N, C, H, W] as [N, C/16, H, W, 16]: the 16
 * channels of a block are contiguous at each position, so a convolution reads whole blocks of
 * input channels and writes whole blocks of output channels in place, with no packing and no
 * transposition per call (src/passes/layout.c puts regions of convs into this layout). The
 * block of 16 is fixed in the file format, whatever the variant: one AVX-512 vector, two AVX2
 * vectors, four NEON or portable ones.
 *
 * conv_blocked(x, wb[, b[, r]]) {strides, pads, dilations, group, act, act_alpha, act_beta, wshape}:
 * x [N, C/16, H, W, 16] f32; wshape [M, C, KH, KW], the logical weights, M and C multiples of
 * 16, group 1, KH * KW <= BERTH_CONV_BLOCKED_MAX_TAPS; wb [M/16, C/16, KH * KW, 256], the
 * weights packed by berth_conv_blocked_pack_weights (for each block of 16 output channels,
 * each block of 16 input channels, each tap: the 16 x 16 weights, input channel major);
 * b [M]; r [N, M/16, OH, OW, 16] the residual; the result [N, M/16, OH, OW, 16] is conv's
 * (the same attributes, the same epilogue) in the blocked layout, up to rounding: each output sums from the bias over the input blocks in
 * order, each block over its taps inside the input in order, each tap over the block's 16
 * channels in order, with the variant's multiply-adds; then the residual, then the
 * activation (conv's formulas).
 *
 * Plain input (a network's first conv: three colour channels): x may instead be a plain
 * [N, C, H, W] with 1 <= C < 16; then it is one input block of C channels, wb is
 * [M/16, 1, KH * KW, C * 16] (for each block of 16 output channels, each tap: the C x 16
 * weights, input channel major), there is no residual, and the result is blocked as above. */
#ifndef BERTH_KERNELS_KERNEL_CONV_BLOCKED_H
#define BERTH_KERNELS_KERNEL_CONV_BLOCKED_H

#include "op_table.h"

#include <stdbool.h>
#include <stdint.h>

#define BERTH_CONV_BLOCK 16
#define BERTH_CONV_BLOCKED_MAX_TAPS 49 /* up to 7 x 7 (the 7x7 stems of ResNet-50 and Inception): the tap tables live on the stack */

/* The packed weights' type for logical f32 weights w of type [M, C, KH, KW] into *packed, and
 * dst (berth_type_numel(packed) floats) as wb above: with P = 16 channels per input block
 * (C a multiple of 16) or P = C (C < 16: the plain input's one block),
 * dst[(((ob * C/P + ib) * KK + t) * P + c) * 16 + l] = w[ob * 16 + l][ib * P + c][t / KW][t % KW],
 * KK = KH * KW. The caller has checked the shapes. */
void berth_conv_blocked_pack_weights(const berth_type_t *w, const float *src, float *dst, berth_type_t *packed);

/* The input blocks per chunk of the driver's loop for kk taps and variant tiles of ob output
 * blocks (>= 1): a chunk's weights for one tile near 48 KiB, so they stay in cache while the
 * positions stream past (the partial sums wait in y between chunks: the same bits as one). */
int64_t berth_conv_blocked_chunk(int64_t kk, int64_t ob);

/* max_pool's (max) or avg_pool's infer (kernel_pool.c) for pool_blocked (kernel_pool_blocked.c:
 * 2-D max or average pooling over a channel-blocked tensor), called directly like conv's below */
berth_status_t berth_pool_infer(bool max, const berth_attr_value_t *attrs, const berth_type_t *x, berth_type_t *out,
                                berth_diag_t *diag);

/* conv's infer (kernel_conv.c), called directly (no call through the op table's pointer, so
 * the static stack bound of the loader stays finite) */
berth_status_t berth_conv_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                berth_diag_t *diag);

#endif
