/* conv_winograd: a 3x3, stride-1 f32 convolution over channel-blocked tensors by Winograd's
 * minimal filtering F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural
 * Networks", 2016), kernel_conv_winograd.c.
 *
 * Each 2x2 block of outputs (a tile) comes from the 4x4 input patch under it: the patch goes
 * through V = B^T d B, the filter through U = G g G^T (at compile time), the 16 products of
 * V and U, summed over the input channels, through y = A^T m A. That is 16 multiply-adds per
 * tile and channel pair where a direct 3x3 conv needs 36: per component (one of the 4 x 4
 * positions of V and U) the sum over channels is a matrix product of the tiles' V by U, which
 * runs on conv_blocked's micro-kernel as a 1x1 convolution over the tiles.
 *
 *   B^T = | 1  0 -1  0 |    G = |  1    0    0  |    A^T = | 1  1  1  0 |
 *         | 0  1  1  0 |        | 1/2  1/2  1/2 |          | 0  1 -1 -1 |
 *         | 0 -1  1  0 |        | 1/2 -1/2  1/2 |
 *         | 0  1  0 -1 |        |  0    0    1  |
 *
 * conv_winograd(x, u[, b[, r]]) {strides, pads, dilations, group, act, act_alpha, act_beta, wshape}:
 * conv_blocked's operands and attributes (kernel_conv_blocked.h) for wshape [M, C, 3, 3]
 * (M and C multiples of 16), strides and dilations 1 (or absent), group 1, a blocked input
 * x [N, C/16, H, W, 16]; u [16, M/16, C/16, 256] the transformed weights
 * (berth_conv_winograd_pack_weights); b [M]; r the residual; the result is conv's in the
 * blocked layout, up to rounding: each tile's patch (zero outside the input) transformed in
 * the order above, each component summed from 0 over the input blocks in order, each block
 * over its 16 channels in order, with the variant's multiply-adds, transformed back, then the
 * bias, the residual, the activation (conv's formulas).
 *
 * Planned scratch (kernel_scratch.h) holds a band of tiles' V and products; with less than
 * one tile's worth (a file that planned less) the kernel runs a direct conv with the filters
 * recovered from u (slow; results within the rounding of that recovery). The transformed weights are 16/9 the size of the
 * direct ones and the transforms cost a few adds per tile: the layout pass
 * (src/passes/layout.c) takes it for planes of LY_WINOGRAD_MIN_OUT outputs or more. */
#ifndef BERTH_KERNELS_KERNEL_CONV_WINOGRAD_H
#define BERTH_KERNELS_KERNEL_CONV_WINOGRAD_H

#include "op_table.h"

#include <stdbool.h>
#include <stdint.h>

#define BERTH_WINOGRAD_COMPONENTS 16 /* the 4 x 4 positions of a transformed patch */

/* The transformed weights' type for logical f32 weights w of type [M, C, 3, 3] into *packed,
 * and dst (berth_type_numel(packed) floats) as u above: for component k = 4 i + j,
 * dst[(((k * M/16 + ob) * C/16 + ib) * 16 + c) * 16 + l] = (G g G^T)[i][j] with
 * g = w[ob * 16 + l][ib * 16 + c], computed in double and rounded once. The caller has checked
 * the shapes. */
void berth_conv_winograd_pack_weights(const berth_type_t *w, const float *src, float *dst, berth_type_t *packed);

#endif
