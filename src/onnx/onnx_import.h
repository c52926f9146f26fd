/* The ONNX importer: decodes a ModelProto (protobuf-c) and builds a berth IR program with
 * one method whose parameters are the graph's inputs and whose results are its outputs.
 *
 *   berth_onnx_input_spec_t spec = {.name = "x", .dtype = BERTH_DTYPE_F32, .rank = 2, .dims = {1, 512}};
 *   berth_onnx_options_t opt = berth_onnx_options_default();
 *   opt.inputs = &spec;
 *   opt.n_inputs = 1;
 *   berth_ir_program_t *p;
 *   berth_onnx_info_t info;
 *   if (berth_onnx_import(bytes, len, &opt, &p, &info, &diag) == BERTH_OK) { ...; }
 *   berth_onnx_info_deinit(&info);
 *
 * What it does:
 *  - shapes are static in berth: every dynamic dim of a graph input must be fixed by a spec
 *    (`--input NAME:DTYPE[DIMS]`); a spec may also bind an input to a value, which makes it
 *    a constant (value specialization);
 *  - every node whose operands are all constants is evaluated at import time with berth's
 *    kernels (passes/fold.h), so Shape/Size/Gather/Concat/Cast chains, Range,
 *    ConstantOfShape and the shape-like operands of Reshape, Slice, Squeeze, Unsqueeze,
 *    Pad, Expand resolve to constants; an If whose condition becomes constant is replaced
 *    by its branch unless keep_control_flow is set (and even then when its branches
 *    differ in type or one does not build at these shapes: a shape-only If); an If whose
 *    condition is computed at run time becomes a cond, and both branches must then build
 *    with one type (else the error names the input the condition depends on);
 *  - If becomes `cond` (bodies read outer values directly), Loop becomes `while_loop`, or
 *    `scan` over the iteration numbers when it has scan outputs and a trip count known at
 *    compile time (max_trip_count bounds it otherwise: the scan outputs then have
 *    max_trip_count rows, rows past the last iteration zero, and an `assert` after the
 *    loop fails the call when the loop still wants to run after max_trip_count
 *    iterations, so a bound that is too small is an error, never a truncated result),
 *    Scan becomes `scan` with transposes and reversals for other axes and directions
 *    (Scan-8: a `map` over the batch);
 *  - float16, bfloat16, the float8 and float4 types are held in f32, int4/int2 in i8 and
 *    uint4/uint2 in u8, and hold only values of their type: a Cast to one becomes
 *    `narrow_cast` (ONNX's rounding, saturation and wrapping), and a node that computes
 *    one (Add, MatMul, Exp, ReduceSum, ... but not Reshape, Gather, Max, Relu, ... which
 *    only pass values on) is computed in the wider dtype and its result rounded by a
 *    `narrow_cast`; Sum and Mean round after each pairwise step. Graph inputs and outputs of
 *    those types keep their ONNX type in `info`; inputs are rounded on entry (any value of
 *    the compute dtype is accepted) and outputs hold values of the type;
 *  - model-local functions (ModelProto.functions: what PyTorch's exporter writes for the
 *    subgraphs of torch.cond, while_loop and scan) are expanded at each calling node, in
 *    their own name scope, with attribute references and defaults, overloads, omitted
 *    optional inputs and outputs and their own opset; a recursive function is refused;
 *  - state pairs (options.states, `--state IN=OUT`) become mutable buffers;
 *  - every failure is one line naming the node, its op and opset, and what is missing.
 * Untrusted bytes: the wire format is checked (nesting depth, lengths) before protobuf-c
 * decodes it, and every count, dim and size is capped. */
#ifndef BERTH_ONNX_ONNX_IMPORT_H
#define BERTH_ONNX_ONNX_IMPORT_H

#include "berth/status.h"
#include "berth/types.h"
#include "ir/ir.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ONNX TensorProto.DataType values. */
enum {
  BERTH_ONNX_UNDEFINED = 0,
  BERTH_ONNX_FLOAT = 1,
  BERTH_ONNX_UINT8 = 2,
  BERTH_ONNX_INT8 = 3,
  BERTH_ONNX_UINT16 = 4,
  BERTH_ONNX_INT16 = 5,
  BERTH_ONNX_INT32 = 6,
  BERTH_ONNX_INT64 = 7,
  BERTH_ONNX_STRING = 8,
  BERTH_ONNX_BOOL = 9,
  BERTH_ONNX_FLOAT16 = 10,
  BERTH_ONNX_DOUBLE = 11,
  BERTH_ONNX_UINT32 = 12,
  BERTH_ONNX_UINT64 = 13,
  BERTH_ONNX_COMPLEX64 = 14,
  BERTH_ONNX_COMPLEX128 = 15,
  BERTH_ONNX_BFLOAT16 = 16,
  BERTH_ONNX_FLOAT8E4M3FN = 17,
  BERTH_ONNX_FLOAT8E4M3FNUZ = 18,
  BERTH_ONNX_FLOAT8E5M2 = 19,
  BERTH_ONNX_FLOAT8E5M2FNUZ = 20,
  BERTH_ONNX_UINT4 = 21,
  BERTH_ONNX_INT4 = 22,
  BERTH_ONNX_FLOAT4E2M1 = 23,
  BERTH_ONNX_FLOAT8E8M0 = 24,
  BERTH_ONNX_UINT2 = 25,
  BERTH_ONNX_INT2 = 26,
  BERTH_ONNX_ELEM_COUNT = 27
};

/* Caps on what a model may declare. */
#define BERTH_ONNX_MAX_NESTING 48        /* protobuf message nesting (graphs nest 1/3 of it) */
#define BERTH_ONNX_MAX_NODES (1 << 20)   /* nodes per graph */
#define BERTH_ONNX_MAX_FOLD_BYTES ((int64_t)1 << 28) /* one constant computed at import time */
#define BERTH_ONNX_MIN_OPSET 1
#define BERTH_ONNX_MAX_OPSET 27

/* Fixes the type of one graph input (and optionally its value). */
typedef struct berth_onnx_input_spec {
  const char *name;
  berth_dtype_t dtype; /* the compute dtype (f32 for a float16 input, ...) */
  int32_t rank;        /* -1: keep the model's shape (which must then be static) */
  int64_t dims[BERTH_MAX_RANK];
  const void *value; /* NULL, or dense bytes of the type: the input becomes a constant */
} berth_onnx_input_spec_t;

/* An input/output pair that carries state from one call to the next (Silero's state ->
 * stateN, a functionalized buffer of an exported module): imported as a berth mutable
 * buffer named after the input, initialised from the input's initializer, else from the
 * value of its input spec, else zeros, and written from the output at the end of each call
 * (copy_). The input is no method parameter and the output no method result; read and
 * reset the buffer through the runtime (berth_method_state, berth_method_reset). */
typedef struct berth_onnx_state_pair {
  const char *input;
  const char *output;
} berth_onnx_state_pair_t;

typedef struct berth_onnx_options {
  const berth_onnx_input_spec_t *inputs;
  int32_t n_inputs;
  const berth_onnx_state_pair_t *states;
  int32_t n_states;
  bool keep_control_flow; /* keep an If with a constant condition as a runtime cond (when
                           * both branches build at the given shapes and return one type;
                           * else it is still replaced by its taken branch) */
  int64_t max_trip_count; /* 0: none; else bound for Loops with scan outputs */
  int64_t dynamic_bound;  /* 0: none; else the capacity of data-dependent results (--dynamic-bound) */
  const char *method;     /* method name; NULL: "forward" */
  bool plain_layout;      /* no channel-blocked regions (src/passes/layout.c) */
  bool direct_3x3;        /* blocked 3x3 convs direct, never conv_winograd (src/passes/layout.c) */
} berth_onnx_options_t;

berth_onnx_options_t berth_onnx_options_default(void);

/* One method parameter or result and its ONNX boundary type. */
typedef struct berth_onnx_io {
  char *name;
  int32_t graph_index; /* position among the graph's inputs / outputs */
  int32_t elem;        /* ONNX element type (BERTH_ONNX_*) the caller sees */
  berth_type_t type;   /* the method's parameter / result type (compute dtype) */
} berth_onnx_io_t;

typedef struct berth_onnx_info {
  int32_t n_inputs, n_outputs;
  berth_onnx_io_t *inputs;  /* the method's parameters, in order */
  berth_onnx_io_t *outputs; /* the method's results, in order */
  int32_t n_graph_inputs;   /* all graph inputs (some may be constants) */
  int64_t opset;            /* the model's ai.onnx opset */
  /* Set on failure when a value that must be known at compile time depends on this graph
   * input (bind it with a spec value and import again); else NULL. */
  char *needs_value;
} berth_onnx_info_t;

/* Imports a model. info may be NULL; when given it is always initialized (deinit it after
 * success or failure). Errors: BERTH_ERR_CORRUPT_DATA (malformed bytes),
 * BERTH_ERR_UNIMPLEMENTED (an op, type or feature berth lacks), BERTH_ERR_INVALID_ARGUMENT
 * (a spec that does not fit, a model that breaks ONNX's rules), BERTH_ERR_OUT_OF_RANGE
 * (a cap), BERTH_ERR_RESOURCE_EXHAUSTED. The program passes berth_ir_validate. */
berth_status_t berth_onnx_import(const void *bytes, size_t len, const berth_onnx_options_t *opt,
                                 berth_ir_program_t **out, berth_onnx_info_t *info, berth_diag_t *diag);
void berth_onnx_info_deinit(berth_onnx_info_t *info);

/* Imports a model decoded once by berth_onnx_model_create (berth/compiler.h), as
 * berth_onnx_import imports bytes; m is not changed, so it can be imported again (another
 * spec, a value bound after info.needs_value). */
typedef struct berth_onnx_model berth_onnx_model_t;
berth_status_t berth_onnx_model_import_ir(const berth_onnx_model_t *m, const berth_onnx_options_t *opt,
                                          berth_ir_program_t **out, berth_onnx_info_t *info, berth_diag_t *diag);
/* The same, for an import that is the model's last use: its decoded form is freed as soon as
 * translation is done (the peak memory of berth_compile); m can then only be destroyed. */
berth_status_t berth_onnx_model_import_ir_once(berth_onnx_model_t *m, const berth_onnx_options_t *opt,
                                               berth_ir_program_t **out, berth_onnx_info_t *info, berth_diag_t *diag);

/* True if the bytes look like a serialized ModelProto (decodes, has a graph). */
bool berth_onnx_is_model(const void *bytes, size_t len);

/* ---- tensors and boundary conversions --------------------------------------------- */

/* A decoded TensorProto: elem is its ONNX type, type its compute type, data dense bytes of
 * type (owned, malloc'd), narrow types widened exactly. */
typedef struct berth_onnx_tensor {
  int32_t elem;
  berth_type_t type;
  void *data;
  char *name;
} berth_onnx_tensor_t;

/* Decodes a serialized TensorProto (a test's input_N.pb / output_N.pb). */
berth_status_t berth_onnx_tensor_parse(const void *bytes, size_t len, berth_onnx_tensor_t *out, berth_diag_t *diag);
void berth_onnx_tensor_deinit(berth_onnx_tensor_t *t);

/* The compute dtype of an ONNX element type; false for types berth cannot hold (string,
 * complex, undefined). */
bool berth_onnx_elem_dtype(int32_t elem, berth_dtype_t *out);
const char *berth_onnx_elem_name(int32_t elem);
/* True for types computed in a wider dtype (float16, int4, ...). */
bool berth_onnx_elem_is_narrow(int32_t elem);

/* The op table behind berth_onnx_op_count / berth_onnx_op_name (berth/compiler.h). */
int32_t berth_onnx_import_op_count(void);
const char *berth_onnx_import_op_name(int32_t k, const char **family);
/* What the conformance suite verifies of op k (behind berth_onnx_op_info): its opsets and
 * input element types as text ("6-7,13", "float,int64"; "" when no passing folder uses it)
 * and its folders by result (passed, failed, unsupported; zeros when the suite does not
 * use it). false for k out of range. The strings are static. */
bool berth_onnx_import_op_support(int32_t k, const char **opsets, const char **types, int32_t counts[3]);


/* Cast's round_mode for float8e8m0 (the values of berth_narrow_round_t). */
enum { BERTH_ONNX_ROUND_UP = 0, BERTH_ONNX_ROUND_DOWN = 1, BERTH_ONNX_ROUND_NEAREST = 2 };

/* Converts n values of dtype `from` to ONNX type `elem` as ONNX's Cast does (round to
 * nearest even; float8 saturate; float8e8m0 round_mode, a BERTH_ONNX_ROUND_*; int4 and
 * int2 wrap), then back to elem's compute dtype, so that the result holds exactly the
 * values of type elem (the narrow_cast kernel's conversion). `to` gets n values of elem's
 * compute dtype. */
void berth_onnx_convert_to_elem(berth_dtype_t from, const void *src, int32_t elem, int32_t saturate,
                                int32_t round_mode, void *to, int64_t n);

#endif
