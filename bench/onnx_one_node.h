/* One-node ONNX models for bench/ort_compare's layer and op rows: x f32 [4 dims] in, y f32
 * [4 dims] out, one node, opset 13, written to `path`; each returns 0 on success. */
#ifndef BERTH_BENCH_ONNX_ONE_NODE_H
#define BERTH_BENCH_ONNX_ONE_NODE_H

#include <stdint.h>

/* Conv of x [1, c, h, h] with weights [m, c / group, k, k] (rnd() * 0.1 each: an initializer),
 * pads k / 2, strides s. */
int onnx_write_conv(const char *path, int64_t c, int64_t m, int64_t h, int64_t k, int64_t group, int64_t s,
                    float (*rnd)(void));

/* MaxPool or AveragePool (op) of x [1, c, h, h], kernel k x k, strides s, pads pad, ceil_mode ceil. */
int onnx_write_pool(const char *path, const char *op, int64_t c, int64_t h, int64_t k, int64_t s, int64_t pad,
                    int ceil);

/* Resize of x [1, c, h, h] by `scale` in both spatial dims (roi omitted, the scales an
 * initializer), with `mode` and `ctm` (coordinate_transformation_mode). */
int onnx_write_resize(const char *path, const char *mode, const char *ctm, int64_t c, int64_t h, int64_t scale);

/* One op of x (dims x) into y (dims y): the second operand, where there is one, the initializer
 * "s"; `kind` says which attributes and operand (the op rows' table in ort_compare.c). */
enum {
  OP_PLAIN,       /* no attribute, no second operand */
  OP_AXIS_LAST,   /* axis -1 */
  OP_PERM_0213,   /* perm 0, 2, 1, 3 */
  OP_PERM_0231,   /* perm 0, 2, 3, 1 */
  OP_LN,          /* LayerNormalization: axis -1, scale [x[3]] */
  OP_AXES_3,      /* axes 3 */
  OP_AXES_23,     /* axes 2, 3 */
  OP_AXES_1,      /* axes 1 */
  OP_PER_CHANNEL, /* s [1, C, 1, 1] */
  OP_PRELU,       /* slope [C, 1, 1] */
  OP_BLOCK_2,     /* blocksize 2 */
  OP_PAD_1,       /* pads 1 on both spatial dims (constant 0) */
  OP_TILE_22,     /* repeats 1, 1, 2, 2 */
  OP_LRN_5,       /* size 5 */
  OP_POW_2,       /* exponent 2 */
  OP_CUMSUM_3,    /* axis 3 */
  OP_RSUM_3,      /* ReduceSum axes [3] (an input) */
  OP_CLIP_06,     /* Clip with no min, max 6 */
  OP_MATMUL,      /* x times s [x[3], y[3]] */
  OP_SAME,        /* a second operand shaped as x (Concat: axis 1) */
  OP_GATHER_1,    /* Gather axis 1 of every other channel: indices [y[1]] */
  OP_EXPAND       /* Expand to y's dims (s: the shape) */
};
int onnx_write_op(const char *path, const char *op, int kind, const int64_t x[4], const int64_t y[4]);

#endif
