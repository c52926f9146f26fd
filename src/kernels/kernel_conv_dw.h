/* Depthwise 2-D convolution of f32 planes (kernel_conv_dw.c), conv's fast path
 * for groups of one input channel. Runtime side: no allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_CONV_DW_H
#define BERTH_KERNELS_KERNEL_CONV_DW_H

#include "kernel_isa.h"

#include <stdbool.h>
#include <stdint.h>

/* Called on each output plane (n floats) once it is complete, with the caller's ctx. */
typedef void (*berth_dw_epilogue_fn)(float *y, int64_t n, const void *ctx);

/* The buffer (floats) with which berth_conv_dw_f32 takes its fastest form for g, channels and
 * mult: the planned scratch a depthwise conv requests (0: g does not take this path). The
 * same for every kernel variant. */
int64_t berth_conv_dw_buffer_floats(berth_dw_geom_t g, int64_t channels, int64_t mult);
/* Whether g, channels and mult take the planes in the lanes (with that buffer). */
bool berth_conv_dw_lanes(berth_dw_geom_t g, int64_t channels, int64_t mult);

/* channels groups of one input plane each, mult output planes per group: output
 * plane y[c * mult + m] (oh x ow) is the convolution of input plane x[c] (ih x
 * iw) with w[c * mult + m] (kh x kw) plus b[c * mult + m] (0 without b), by the
 * active kernel variant's dwconv_lanes_f32 (small planes, multiplier 1, where
 * buf holds them: the same bits) or dwconv_f32. g's row, slots and lw are set
 * here; buf (bufn floats, aligned for vectors) holds the padded input rows or
 * planes. epilogue (if any) runs on each plane once it is done. Returns false,
 * writing nothing, where the shape is not one it covers (kernel width 3 or 5,
 * at most 8 kernel rows, column stride 1 or 2) or its rows do not fit in buf:
 * the caller then runs its generic loop. */
bool berth_conv_dw_f32(berth_dw_geom_t g, int64_t channels, int64_t mult, const float *x, const float *w,
                       const float *b, float *y, float *buf, int64_t bufn, berth_dw_epilogue_fn epilogue,
                       const void *ctx);

#endif
