/* The one op table. Every op berth knows is listed once in BERTH_OP_LIST; the text parser,
 * the ONNX importer, the validator, the reference interpreter, the planned runtime, the
 * program loader and the disassembler all read this table, so an op is added in one place:
 * a line here and a `berth_op_def_<name>` definition in its family's file.
 *
 * Kernel ops have `infer` (validates attributes and input types, computes output types; it is
 * the load-time check that makes `run` safe) and `run` (no allocation, no validation).
 * Higher-order ops, copy_ and assert have no kernel: the interpreters and the emitter handle
 * them. */
#ifndef BERTH_KERNELS_OP_TABLE_H
#define BERTH_KERNELS_OP_TABLE_H

#include "berth/status.h"
#include "berth/types.h"

#include <stdbool.h>
#include <stdint.h>

/* X(ENUM, symbol): the text name is the def's .name (normally the symbol).
 * The order is part of the program file format: append only. */
#define BERTH_OP_LIST(X) \
  /* control flow and mutation (no kernel) */ \
  X(COND, cond)                  \
  X(WHILE_LOOP, while_loop)      \
  X(SCAN, scan)                  \
  X(MAP, map)                    \
  X(COPY_, copy_)                \
  /* elementwise binary, broadcasting */ \
  X(ADD, add)                    \
  X(SUB, sub)                    \
  X(MUL, mul)                    \
  X(DIV, div)                    \
  X(POW, pow)                    \
  X(MINIMUM, minimum)            \
  X(MAXIMUM, maximum)            \
  X(EQ, eq)                      \
  X(NE, ne)                      \
  X(LT, lt)                      \
  X(LE, le)                      \
  X(GT, gt)                      \
  X(GE, ge)                      \
  X(LOGICAL_AND, logical_and)    \
  X(LOGICAL_OR, logical_or)      \
  X(LOGICAL_XOR, logical_xor)    \
  /* elementwise unary */ \
  X(NEG, neg)                    \
  X(ABS, abs)                    \
  X(SQRT, sqrt)                  \
  X(EXP, exp)                    \
  X(LOG, log)                    \
  X(RELU, relu)                  \
  X(SIGMOID, sigmoid)            \
  X(TANH, tanh)                  \
  X(LOGICAL_NOT, logical_not)    \
  X(ISNAN, isnan)                \
  X(CLONE, clone)                \
  X(CAST, cast)                  \
  X(WHERE, where)                \
  X(FULL, full)                  \
  /* shape and data movement */ \
  X(SELECT, select)              \
  X(SLICE, slice)                \
  X(SQUEEZE, squeeze)            \
  X(UNSQUEEZE, unsqueeze)        \
  X(RESHAPE, reshape)            \
  X(TRANSPOSE, transpose)        \
  X(CONCAT, concat)              \
  X(EXPAND, expand)              \
  /* reductions */ \
  X(SUM, sum)                    \
  X(MEAN, mean)                  \
  X(MAX, max)                    \
  X(MIN, min)                    \
  X(ARGMAX, argmax)              \
  /* linear algebra */ \
  X(MATMUL, matmul)              \
  /* ONNX model ops */ \
  X(CONV, conv)                  \
  X(LSTM, lstm)                  \
  X(GEMM, gemm)                  \
  X(PAD, pad)                    \
  X(SOFTMAX, softmax)            \
  X(LOG_SOFTMAX, log_softmax)    \
  X(CLIP, clip)                  \
  X(RANGE, range)                \
  X(GATHER, gather)              \
  X(CEIL, ceil)                  \
  X(FLOOR, floor)                \
  X(MOD, mod)                    \
  /* run-time checks (no kernel) */ \
  X(ASSERT, assert)              \
  /* narrow storage formats (float16, bfloat16, ...) */ \
  X(NARROW_CAST, narrow_cast)    \
  /* activations (kernel_activation.c) */ \
  X(LEAKY_RELU, leaky_relu)      \
  X(PRELU, prelu)                \
  X(HARD_SIGMOID, hard_sigmoid)  \
  X(HARD_SWISH, hard_swish)      \
  X(ELU, elu)                    \
  X(SELU, selu)                  \
  X(CELU, celu)                  \
  X(GELU, gelu)                  \
  X(MISH, mish)                  \
  X(SOFTPLUS, softplus)          \
  X(SOFTSIGN, softsign)          \
  X(THRESHOLDED_RELU, thresholded_relu) \
  X(SWISH, swish)                \
  X(SHRINK, shrink)              \
  /* hardmax (kernel_hardmax.c) */ \
  X(HARDMAX, hardmax)            \
  /* elementwise math (kernel_math.c) */ \
  X(SIN, sin)                    \
  X(COS, cos)                    \
  X(TAN, tan)                    \
  X(ASIN, asin)                  \
  X(ACOS, acos)                  \
  X(ATAN, atan)                  \
  X(SINH, sinh)                  \
  X(COSH, cosh)                  \
  X(ASINH, asinh)                \
  X(ACOSH, acosh)                \
  X(ATANH, atanh)                \
  X(ERF, erf)                    \
  X(SIGN, sign)                  \
  X(ROUND, round)                \
  X(ISINF, isinf)                \
  /* integer bit ops (kernel_bitwise.c) */ \
  X(BITWISE_AND, bitwise_and)    \
  X(BITWISE_OR, bitwise_or)      \
  X(BITWISE_XOR, bitwise_xor)    \
  X(BITWISE_NOT, bitwise_not)    \
  X(BIT_SHIFT, bit_shift)        \
  X(BITCAST, bitcast)            \
  /* spatial and data movement (kernel_gather_elements.c, ...) */ \
  X(GATHER_ELEMENTS, gather_elements) \
  X(RESAMPLE, resample)          \
  X(CONV_TRANSPOSE, conv_transpose) \
  X(GRID_SAMPLE, grid_sample)    \
  X(COL2IM, col2im)              \
  X(ROI_ALIGN, roi_align)        \
  X(DEFORM_CONV, deform_conv)    \
  /* index family: reductions, scatter/gather, TopK, CumSum, ... */ \
  X(PROD, prod)                  \
  X(ARGMIN, argmin)              \
  X(CUMSUM, cumsum)              \
  X(CUMPROD, cumprod)            \
  X(TRILU, trilu)                \
  X(GATHER_ND, gather_nd)        \
  X(SCATTER_ELEMENTS, scatter_elements) \
  X(SCATTER_ND, scatter_nd)      \
  X(TOPK, topk)                  \
  X(REVERSE_SEQUENCE, reverse_sequence) \
  X(EINSUM, einsum)              \
  X(DET, det)                    \
  X(TENSOR_SCATTER, tensor_scatter) \
  /* sequence models and losses */ \
  X(NLL_LOSS, nll_loss)          \
  X(ROTARY_EMBEDDING, rotary_embedding) \
  X(RNN, rnn)                    \
  X(GRU, gru)                    \
  X(CAUSAL_CONV_WITH_STATE, causal_conv_with_state) \
  X(LINEAR_ATTENTION, linear_attention) \
  /* quantization and signal processing */ \
  X(QUANTIZE_LINEAR, quantize_linear)     \
  X(DEQUANTIZE_LINEAR, dequantize_linear) \
  X(DFT, dft)                    \
  X(STFT, stft)                  \
  /* pooling and normalization (kernel_pool.c, kernel_norm.c) */ \
  X(MAX_POOL, max_pool)          \
  X(MAX_POOL_INDICES, max_pool_indices) \
  X(AVG_POOL, avg_pool)          \
  X(LP_POOL, lp_pool)            \
  X(MAX_UNPOOL, max_unpool)      \
  X(BATCH_NORM, batch_norm)      \
  X(LAYER_NORM, layer_norm)      \
  X(RMS_NORM, rms_norm)          \
  X(GROUP_NORM, group_norm)      \
  X(LRN, lrn)                    \
  X(MAX_ROI_POOL, max_roi_pool)  \
  /* text features (kernel_tfidf.c) */ \
  X(TFIDF, tfidf)                \
  /* run-time index check (kernel_index_check.c) */ \
  X(INDEX_CHECK, index_check) \
  /* data-dependent shapes under --dynamic-bound (kernel_select.c) */ \
  X(NONZERO_BOUNDED, nonzero_bounded)   \
  X(COMPRESS_BOUNDED, compress_bounded) \
  X(UNIQUE_BOUNDED, unique_bounded)     \
  X(NMS_BOUNDED, nms_bounded)           \
  /* ONNX ImageDecoder under --dynamic-bound (kernel_image_decoder.c) */ \
  X(IMAGE_DECODER, image_decoder) \
  /* conv with weights packed at compile time (kernel_conv.c, src/passes/pack.c) */ \
  X(CONV_PACKED, conv_packed) \
  /* MatMul / Gemm with weights packed at compile time (kernel_matmul_packed.c, src/passes/pack.c) */ \
  X(MATMUL_PACKED, matmul_packed) \
  /* a chain of f32 elementwise ops in one pass (kernel_chain.c, src/passes/fuse_chain.c) */ \
  X(ELEMENTWISE_CHAIN, elementwise_chain) \
  /* a conv whose filters are a windowed DFT, as an FFT (kernel_conv_dft.c, src/passes/conv_dft.c) */ \
  X(CONV_DFT, conv_dft) \
  /* conv over channel-blocked tensors [N, C/16, H, W, 16] (kernel_conv_blocked.c, src/passes/layout.c) */ \
  X(CONV_BLOCKED, conv_blocked) \
  /* max / average pooling over channel-blocked tensors (kernel_pool_blocked.c, src/passes/layout.c) */ \
  X(POOL_BLOCKED, pool_blocked) \
  /* 3x3 stride-1 conv over channel-blocked tensors by Winograd's F(2x2, 3x3) (kernel_conv_winograd.c, src/passes/layout.c) */ \
  X(CONV_WINOGRAD, conv_winograd)

/* The ops above that have no kernel (their def's kind is not BERTH_OPKIND_KERNEL): an
 * embedded runtime built with a kernel selection (op_table.c) always keeps these. Every
 * such op must be listed here too (tests/test_op_table.c checks it). */
#define BERTH_OP_LIST_NO_KERNEL(X) \
  X(COND, cond)                    \
  X(WHILE_LOOP, while_loop)        \
  X(SCAN, scan)                    \
  X(MAP, map)                      \
  X(COPY_, copy_)                  \
  X(ASSERT, assert)

typedef enum berth_op {
#define BERTH_X(E, s) BERTH_OP_##E,
  BERTH_OP_LIST(BERTH_X)
#undef BERTH_X
  BERTH_OP_COUNT
} berth_op_t;

typedef enum berth_op_kind {
  BERTH_OPKIND_KERNEL = 0,
  BERTH_OPKIND_COND,       /* cond(pred, operands...) then(...) else(...) */
  BERTH_OPKIND_WHILE_LOOP, /* while_loop(carried...) cond(...) body(...) */
  BERTH_OPKIND_SCAN,       /* scan(init..., xs...) {carry=N} body(carry..., x...) */
  BERTH_OPKIND_MAP,        /* map(xs..., args...) {mapped=N} body(x..., args...) */
  BERTH_OPKIND_COPY_,      /* copy_(@buffer, src): writes a mutable buffer */
  BERTH_OPKIND_ASSERT,     /* assert(pred) {message}: the call fails if pred is false */
} berth_op_kind_t;

typedef enum berth_attr_kind {
  BERTH_ATTR_INT = 0, /* integer (also used for booleans 0/1) */
  BERTH_ATTR_SCALAR,  /* a number: f holds its value, i its integer value, n=1 if integral */
  BERTH_ATTR_INTS,    /* up to BERTH_MAX_ATTR_INTS integers */
  BERTH_ATTR_DTYPE,   /* a dtype, stored in i */
  BERTH_ATTR_STRING,  /* text of at most BERTH_MAX_ATTR_STRING bytes, no NUL; see s below */
} berth_attr_kind_t;

#define BERTH_MAX_ATTR_INTS 8
#define BERTH_MAX_ATTR_STRING 1024 /* the program file's cap on a name */

/* One attribute value. An op's attributes are an array in the order of its specs.
 *
 * A STRING attribute is held two ways. In the IR (compiler side) `i` is an index into the
 * program's string table (berth_ir_program_t.strings, ir/ir.h), -1 for the empty string, so
 * that nodes can be copied by value between programs that share the table; `s` is NULL.
 * In an exec program (what the planner emits and the loader decodes) `s` points to the
 * NUL-terminated text (NULL for the empty string) and `i` is 0. */
typedef struct berth_attr_value {
  int64_t i;
  double f;
  int32_t n;
  int64_t ints[BERTH_MAX_ATTR_INTS];
  const char *s;
} berth_attr_value_t;

typedef struct berth_attr_spec {
  const char *name;
  berth_attr_kind_t kind;
  bool required;
  int64_t default_i; /* INT, DTYPE default; INTS default is the empty list */
  double default_f;  /* SCALAR default */
} berth_attr_spec_t;

#define BERTH_MAX_OP_ATTRS 8
#define BERTH_MAX_KERNEL_OPERANDS 64

typedef struct berth_tensor_ref {
  const berth_type_t *type;
  void *data;
} berth_tensor_ref_t;

typedef struct berth_kernel_call {
  const berth_attr_value_t *attrs; /* one per attr spec of the op */
  const berth_tensor_ref_t *in;
  int32_t n_in;
  const berth_tensor_ref_t *out;
  int32_t n_out;
  /* Working memory of this call only (NULL, 0 when none): the planner's arena bytes for it
   * (berth_op_scratch_bytes, planned like a value that lives at the node's position only),
   * disjoint from every operand, with contents undefined at entry. A kernel that takes
   * scratch must be correct with any size, 0 included (it only gets slower), and its result
   * may depend on the size, never on the address (kernel_scratch.h). */
  void *scratch;
  uint64_t scratch_bytes;
} berth_kernel_call_t;

/* Validates attrs and input types; writes the n_out output types. Must reject everything
 * `run` could not execute safely (dtype, rank, shape mismatch, out-of-range attributes). */
typedef berth_status_t (*berth_infer_fn)(const berth_attr_value_t *attrs, const berth_type_t *in,
                                         int32_t n_in, berth_type_t *out, berth_diag_t *diag);
/* Computes the outputs. Inputs and outputs have exactly the types infer accepted/produced.
 * Outputs never overlap inputs (the planner guarantees it). */
typedef void (*berth_run_fn)(const berth_kernel_call_t *call);

typedef struct berth_op_def {
  const char *name;
  berth_op_kind_t kind;
  int8_t min_in, max_in; /* max_in -1: variadic up to BERTH_MAX_KERNEL_OPERANDS */
  int8_t n_out;          /* kernels: number of outputs; HOPs: -1 (set by the node) */
  uint8_t n_attrs;
  const berth_attr_spec_t *attrs;
  berth_infer_fn infer;
  berth_run_fn run;
} berth_op_def_t;

#define BERTH_X(E, s) extern const berth_op_def_t berth_op_def_##s;
BERTH_OP_LIST(BERTH_X)
#undef BERTH_X

/* The table, indexed by berth_op_t. NULL for an out-of-range op, or for a kernel left out
 * of this build of the runtime (BERTH_OPS_HEADER, see op_table.c). */
const berth_op_def_t *berth_op_get(uint32_t op);
/* Looks an op up by its text name; returns BERTH_OP_COUNT if unknown. */
berth_op_t berth_op_find(const char *name, size_t len);
/* Index of an attribute spec by name within an op, or -1. */
int berth_op_attr_index(const berth_op_def_t *def, const char *name, size_t len);
/* Fills attrs with the op's defaults. */
void berth_op_attrs_default(const berth_op_def_t *def, berth_attr_value_t *attrs);

/* Scratch bytes a call of kernel `op` asks for, from the static input types and attributes
 * that infer accepted (0 for most ops; kernel_scratch.c lists the ops that ask). Deterministic
 * (the same on every machine and variant, so the compiler can plan it and the reference
 * interpreter give the same) and capped (BERTH_SCRATCH_MAX_BYTES). Compiler side and test
 * oracles only: the runtime never needs it (kernels take whatever the file planned). */
#define BERTH_SCRATCH_MAX_BYTES ((uint64_t)1 << 24)
uint64_t berth_op_scratch_bytes(uint32_t op, const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);

/* Whether a call of kernel `op` on the one input type `x` (attributes that infer accepted)
 * only reproduces a contiguous run of x's bytes: then its output may share x's storage (a view,
 * DESIGN rule 7), starting *byte_offset bytes into x. True for clone, reshape, squeeze,
 * unsqueeze, and a slice or select whose result is contiguous in x (kernel_shape.c). Compiler
 * side: the planner asks, the runtime never needs it. */
bool berth_op_view_offset(uint32_t op, const berth_attr_value_t *attrs, const berth_type_t *x, uint64_t *byte_offset);

#endif
