/* Shared state of the ONNX importer's files (onnx_import.c: models, graphs, names;
 * onnx_op_table.c: the op table and dispatch; onnx_ops_<family>.c: one translation per op;
 * onnx_op_util.c: helpers the translations share; onnx_control.c: If, Loop, Scan; onnx_tensor.c:
 * TensorProto and narrow types; onnx_wire.c: the wire-format check). Not a public header. */
#ifndef BERTH_ONNX_ONNX_INTERNAL_H
#define BERTH_ONNX_ONNX_INTERNAL_H

#include "kernels/kernel_narrow.h"
#include "onnx/onnx.pb-c.h"
#include "onnx/onnx_import.h"

#include <stdbool.h>
#include <stdint.h>

#define OX_TRY(expr)                          \
  do {                                        \
    berth_status_t ox_try_ = (expr);          \
    if (ox_try_ != BERTH_OK) return ox_try_;  \
  } while (0)

/* One value as the importer sees it: a constant (data set; an IR value is made only when a
 * runtime node uses it), a runtime IR value, or absent (an omitted optional input). */
typedef struct ox_val {
  berth_type_t type;
  /* ONNX element type (narrow types keep theirs; type is the compute type, and a value of a
   * narrow type holds only values of that type: see ox_narrow_round) */
  int32_t elem;
  int32_t id;     /* IR value id, -1 for a constant not yet materialized */
  void *data;     /* constant bytes (owned unless data_in_ir) or NULL */
  bool data_in_ir; /* data is the program constant's own bytes (materialized by ox_ir): not freed here */
  bool absent;
  /* A runtime one-element integer known to equal aff_base + aff_off (aff_base: a val, -1
   * when none), so that Slice bounds computed from a loop counter keep a static length. */
  int32_t aff_base;
  int64_t aff_off;
  /* A result of a bounded op (--dynamic-bound): 1 + the val of the i64 scalar holding its
   * real extent along axis ext_axis (its static extent there is the bound); 0 otherwise. Such
   * a value may only become a graph output (ox_in refuses every other consumer). */
  int32_t ext_count;
  int32_t ext_axis;
  /* A second data-dependent axis (ImageDecoder: ext_axis 0 is the height, this 1 the width):
   * 1 + the val of its extent, 0 when none; set only together with ext_count. */
  int32_t ext_count2;
  int32_t ext_axis2;
} ox_val_t;

/* Name -> value binding (open hashing); bindings made inside a sub-graph are undone when it
 * is left (ONNX names are visible in the graph that defines them and its sub-graphs). */
typedef struct ox_bind {
  char *name;
  int32_t val;
  int32_t prev; /* previous binding in the same bucket chain */
} ox_bind_t;

struct ox_op_row;

#define OX_MAXV 64 /* values of an int list operand (axes, pads, shapes) */

typedef struct ox_ctx {
  berth_ir_program_t *p;
  berth_ir_method_t *m; /* re-fetched after every method add: p->methods may move */
  int32_t method;
  int32_t graph; /* the IR graph nodes are added to */
  const berth_onnx_options_t *opt;
  int64_t opset;
  berth_diag_t *diag;
  char *needs_value;

  ox_val_t *vals;
  int32_t n_vals, cap_vals;
  ox_bind_t *binds;
  int32_t n_binds, cap_binds;
  int32_t *buckets; /* head bind per bucket, -1 empty */
  int32_t n_buckets;

  /* the node being translated, for messages, and its op table row */
  const Onnx__NodeProto *node;
  const struct ox_op_row *row;
  int32_t depth; /* sub-graph nesting */
  const char *name_hint; /* IR name for the values emitted next (else the node's first output) */
  int64_t unique;
  /* An INT attribute of the current node stored as a float that is no integer (NaN, 1e30,
   * 2.5): ox_attr_int records the first and the node fails after its translation. */
  const char *bad_attr;
  double bad_attr_value;

  /* model-local functions (onnx_function.c) */
  Onnx__FunctionProto *const *functions;
  size_t n_functions;
  struct ox_fn_frame *frame; /* the innermost function call being expanded; NULL outside */
  int32_t scope_floor;       /* bindings below this index are hidden (a function body sees its own names only) */
  const char *name_prefix;   /* prefix of IR value names inside a function call ("call/") */
  int64_t fn_nodes;          /* function body nodes expanded so far (capped) */
  int64_t *fn_calls;         /* calls expanded so far, per function (value names) */
  char name_buf[256];
} ox_ctx_t;

/* ---- values and names (onnx_import.c) ------------------------------------------------ */
int32_t ox_val_new(ox_ctx_t *cx); /* -1 on OOM */
/* A constant value; takes ownership of data (malloc'd). */
berth_status_t ox_const_new(ox_ctx_t *cx, const berth_type_t *type, void *data, int32_t *out);
/* Constants of small shape built from host values. */
berth_status_t ox_const_i64(ox_ctx_t *cx, const int64_t *v, int32_t n, bool scalar, int32_t *out);
/* (fails when v does not fit dt: see ox_double_fits) */
berth_status_t ox_const_scalar(ox_ctx_t *cx, berth_dtype_t dt, double v, int32_t *out);
/* True when double v converts to dtype dt without undefined behaviour (not NaN, truncation
 * within an integer dtype's range); always true for bool and floats. */
bool ox_double_fits(double v, berth_dtype_t dt);
berth_status_t ox_const_bool(ox_ctx_t *cx, bool v, int32_t *out);
/* The IR value of a value (materializes a constant as a program global). */
berth_status_t ox_ir(ox_ctx_t *cx, int32_t val, int32_t *out_id);
/* A runtime value wrapping an IR value. */
int32_t ox_val_ir(ox_ctx_t *cx, int32_t id);
bool ox_is_const(const ox_ctx_t *cx, int32_t val);

berth_status_t ox_bind(ox_ctx_t *cx, const char *name, int32_t val);
int32_t ox_lookup(const ox_ctx_t *cx, const char *name); /* -1 if unbound */
void ox_unbind_to(ox_ctx_t *cx, int32_t n_binds);          /* undoes later bindings */

/* Adds kernel op with the given operands and attributes; types come from the op's infer.
 * Folds (runs the kernel now) when every operand is a constant. */
berth_status_t ox_emit(ox_ctx_t *cx, berth_op_t op, int32_t n_in, const int32_t *in, const berth_attr_value_t *attrs,
                       int32_t n_out, int32_t *out);
berth_status_t ox_emit1(ox_ctx_t *cx, berth_op_t op, int32_t n_in, const int32_t *in, const berth_attr_value_t *attrs,
                        int32_t *out);
/* narrow_cast(x) to ONNX type elem (a narrow type): ONNX's Cast with its saturate and
 * round_mode (a BERTH_ONNX_ROUND_*). The result has elem elem. */
berth_status_t ox_narrow_cast(ox_ctx_t *cx, int32_t x, int32_t elem, int32_t saturate, int32_t round_mode,
                              int32_t *out);
/* Rounds a value computed in its compute dtype to its narrow elem (out = x when its elem is
 * not narrow or x is a narrow_cast's result already). */
berth_status_t ox_narrow_round(ox_ctx_t *cx, int32_t x, int32_t *out);
/* Fresh default attributes of an op; set one by name (fails if the op has no such attribute). */
void ox_attrs_default(berth_op_t op, berth_attr_value_t *attrs);
berth_status_t ox_attr_i(ox_ctx_t *cx, berth_op_t op, berth_attr_value_t *attrs, const char *name, int64_t v);
berth_status_t ox_attr_f(ox_ctx_t *cx, berth_op_t op, berth_attr_value_t *attrs, const char *name, double v);
berth_status_t ox_attr_ints(ox_ctx_t *cx, berth_op_t op, berth_attr_value_t *attrs, const char *name,
                            const int64_t *v, int32_t n);
/* berth_op_find by name; fails with a message naming the node when the op is missing. */
berth_status_t ox_op(ox_ctx_t *cx, const char *name, berth_op_t *out);

/* Messages: "node 'NAME' (OpType, opset N): ..." */
berth_status_t ox_fail(ox_ctx_t *cx, berth_status_t st, const char *fmt, ...) BERTH_PRINTF_LIKE(3, 4);
/* Fails naming `what` when val has a data-dependent shape (ox_val_t.ext_count). */
berth_status_t ox_check_static(ox_ctx_t *cx, int32_t val, const char *what);
/* When a constant is needed but val is runtime: names the graph input it depends on. */
berth_status_t ox_need_const(ox_ctx_t *cx, int32_t val, const char *what);

int32_t ox_plain_elem(berth_dtype_t dt);
/* "sequence", "optional", "map", "sparse tensor" for such a value_info, NULL for tensors. */
const char *ox_non_tensor_kind(const Onnx__ValueInfoProto *vi);

/* Translates the nodes of an ONNX graph into the current IR graph (names bound in cx). */
berth_status_t ox_graph_nodes(ox_ctx_t *cx, const Onnx__GraphProto *g);
/* Type of a sub-graph's declared value (may be absent: returns false). */
bool ox_value_info_type(const Onnx__ValueInfoProto *vi, int32_t *elem, berth_type_t *type, bool *complete);

/* ---- attributes of the current node (onnx_import.c) --------------------------------- */
const Onnx__AttributeProto *ox_attr(const ox_ctx_t *cx, const char *name);
/* INT attribute (one stored as a float must hold an integer exactly: else the node fails,
 * naming the attribute, once its translation returns). */
int64_t ox_attr_int(ox_ctx_t *cx, const char *name, int64_t dflt);
double ox_attr_float(const ox_ctx_t *cx, const char *name, double dflt);
/* INTS attribute: n = -1 when absent. */
berth_status_t ox_attr_int_list(ox_ctx_t *cx, const char *name, int64_t *v, int32_t cap, int32_t *n);
const char *ox_attr_string(const ox_ctx_t *cx, const char *name, const char *dflt, char *buf, size_t cap);

/* Operand k of the current node: -1 when absent ("" or past the end). */
berth_status_t ox_in(ox_ctx_t *cx, int32_t k, int32_t *val);
berth_status_t ox_in_req(ox_ctx_t *cx, int32_t k, int32_t *val);
/* Binds output k of the current node (no-op for an empty name). */
berth_status_t ox_out(ox_ctx_t *cx, int32_t k, int32_t val);
int32_t ox_n_in(const ox_ctx_t *cx);
int32_t ox_n_out(const ox_ctx_t *cx);

/* A constant operand as int64 values (any integer dtype). */
berth_status_t ox_const_ints(ox_ctx_t *cx, int32_t val, const char *what, int64_t *v, int32_t cap, int32_t *n);
/* A constant one-element operand as double (exact for integers up to 2^53 only: integer
 * operands that must be exact are read with ox_const_ints). */
berth_status_t ox_const_double(ox_ctx_t *cx, int32_t val, const char *what, double *v);

/* ---- ops (onnx_op_table.c, onnx_control.c, onnx_function.c) ------------------------- */
/* Translates cx->node: expands a call of a model-local function, else ox_translate_op. */
berth_status_t ox_translate_node(ox_ctx_t *cx);
#define OX_MAX_FUNCTIONS 4096 /* model-local functions per model */
/* The index in cx->functions of the model-local function (domain, name, overload), or -1. */
int32_t ox_function_find(const ox_ctx_t *cx, const char *domain, const char *name, const char *overload);
/* Checks the model's functions once (names present, no two with one (domain, name, overload)). */
berth_status_t ox_functions_check(ox_ctx_t *cx);
/* State pairs (onnx_state.c): the pair index naming a graph input / output, else -1. */
int32_t ox_state_of_input(const ox_ctx_t *cx, const char *name);
int32_t ox_state_of_output(const ox_ctx_t *cx, const char *name);
/* Checks that every pair names a graph input and a graph output of g. */
berth_status_t ox_state_check(ox_ctx_t *cx, const Onnx__GraphProto *g);
/* Binds graph input vi (a pair's input) to a new mutable buffer. */
berth_status_t ox_state_input(ox_ctx_t *cx, const Onnx__ValueInfoProto *vi);
/* Writes the value of graph output vi (a pair's output) into its buffer (copy_). */
berth_status_t ox_state_output(ox_ctx_t *cx, const Onnx__ValueInfoProto *vi);
/* Translates cx->node as an ONNX operator (its row of the op table). */
berth_status_t ox_translate_op(ox_ctx_t *cx);
/* True when berth translates this op of the default domain (at some opset, some types). */
bool ox_op_known(const char *op_type);

/* ---- the op table (onnx_op_table.c) ---------------------------------------------------
 * One row per ONNX op of the default domain: its translation and, for ops that map to one
 * berth op (the elementwise rows read it through cx->row), that op; BERTH_OP_COUNT when the
 * translation picks its ops itself. Each family file onnx_ops_<family>.c defines one table
 * ended by a row whose name is NULL; onnx_op_table.c lists the families. */
typedef berth_status_t (*ox_op_fn)(ox_ctx_t *cx);
typedef struct ox_op_row {
  const char *name;
  ox_op_fn fn;
  berth_op_t op;
} ox_op_row_t;
extern const ox_op_row_t ox_ops_core[];     /* onnx_ops_core.c: arithmetic, shapes, Conv, Gemm, LSTM, control */
extern const ox_op_row_t ox_ops_nn[];       /* onnx_ops_nn.c: pooling, normalization */
extern const ox_op_row_t ox_ops_math[];     /* onnx_ops_math.c: activations, elementwise math, bitwise */
extern const ox_op_row_t ox_ops_spatial[];  /* onnx_ops_spatial.c: ConvTranspose, Resize, Split, Tile, ... */
extern const ox_op_row_t ox_ops_index[];    /* onnx_ops_index.c: reductions, scatter/gather, TopK, CumSum, ... */
extern const ox_op_row_t ox_ops_sequence[]; /* onnx_ops_sequence.c: Attention, RNN, GRU, losses */
extern const ox_op_row_t ox_ops_quant[];    /* onnx_ops_quant.c: quantization, DFT/STFT, windows */
extern const ox_op_row_t ox_ops_image[];    /* onnx_ops_image.c: ImageDecoder */
/* What the shared conformance suite verifies of an op (onnx_op_support.c, generated by
 * tools/docs/gen-ops.sh; sorted by name): its folders by result, and the opsets and input
 * element types of those that pass ("6-7,13", "float,int64"; "" when none passes). The
 * row whose name is NULL ends it. */
typedef struct ox_op_support {
  const char *name;
  int32_t passed, failed, unsupported;
  const char *opsets, *types;
} ox_op_support_t;
extern const ox_op_support_t ox_op_support[];
/* Rows that emit the row's op: elementwise unary / broadcasting binary. */
berth_status_t ox_unary(ox_ctx_t *cx);
/* Index values from data (idx: i64, any shape) must lie in [lo, hi) (nb bounds: one, or one
 * per trailing dim): when idx is constant it is checked now (an error names `what`),
 * otherwise index_check and ox_assert_ok, emitted before the consuming node, fail the call
 * naming the node (onnx_ops_index.c). */
berth_status_t ox_index_check(ox_ctx_t *cx, int32_t idx, const int64_t *lo, const int64_t *hi, int32_t nb,
                              const char *what);
/* The one run-time check: ok (a bool scalar a kernel computed from data) must hold, else the
 * call fails with "OpType 'NAME': what" (the import, when ok is a constant false)
 * (onnx_op_util.c). */
berth_status_t ox_assert_ok(ox_ctx_t *cx, int32_t ok, const char *what);
berth_status_t ox_binary(ox_ctx_t *cx);
/* conv(in[0], in[1][, in[2]]) with the current node's Conv attributes (strides, pads,
 * dilations, auto_pad, group): Conv, ConvInteger and QLinearConv share it (onnx_ops_core.c). */
berth_status_t ox_emit_conv(ox_ctx_t *cx, const int32_t *in, int32_t n, int32_t *y);
berth_status_t ox_op_if(ox_ctx_t *cx);
berth_status_t ox_op_loop(ox_ctx_t *cx);
berth_status_t ox_op_scan(ox_ctx_t *cx);
/* Translates sub-graph g into IR graph ir_graph: binds g's inputs to in_vals (n_in of them,
 * exactly g's input count), translates its nodes, and returns its outputs' values in
 * out_vals (g->n_output of them, at most out_cap). Names bound inside are unbound after. */
berth_status_t ox_subgraph(ox_ctx_t *cx, const Onnx__GraphProto *g, int32_t ir_graph, const int32_t *in_vals,
                           int32_t n_in, int32_t *out_vals, int32_t out_cap);

/* ---- helpers for translations (onnx_op_util.c) ---------------------------------------- */
/* Emits op `opname` (a berth op's text name) with no attributes; one output. */
berth_status_t ox_emit_simple(ox_ctx_t *cx, const char *opname, int32_t n_in, const int32_t *in, int32_t *out);
/* x converted to dtype `to` (x itself when it has that dtype already). */
berth_status_t ox_emit_cast(ox_ctx_t *cx, int32_t x, berth_dtype_t to, int32_t *out);
/* x reshaped to dims[rank] (same element count). */
berth_status_t ox_emit_reshape(ox_ctx_t *cx, int32_t x, const int64_t *dims, int32_t rank, int32_t *out);
/* A tensor of `type` filled with v (floats) or iv (integers and bool); folded when small. */
berth_status_t ox_emit_full(ox_ctx_t *cx, const berth_type_t *type, double v, int64_t iv, int32_t *out);
/* A new value equal to x (its own copy of constant data; the same IR value otherwise). */
berth_status_t ox_alias_val(ox_ctx_t *cx, int32_t x, int32_t *out);
int32_t ox_rank_of(const ox_ctx_t *cx, int32_t v);
/* v is a one-element integer tensor; ox_const_int reads a constant one's value. */
bool ox_one_int(const ox_ctx_t *cx, int32_t v);
int64_t ox_const_int(const ox_ctx_t *cx, int32_t v);
/* Records y = (x's base) + (x's offset) + delta when x is a runtime one-element integer. */
void ox_affine_from(ox_ctx_t *cx, int32_t y, int32_t x, int64_t delta);
/* Normalizes an axis against a rank (ONNX allows -rank..rank-1); `what` names it in errors. */
berth_status_t ox_norm_axis(ox_ctx_t *cx, int64_t a, int32_t rank, const char *what, int32_t *out);
/* Axes from attribute `attr` (opsets before `input_from`) or from constant operand `k`
 * (at most OX_MAXV of them); n = -1 when there are none. */
berth_status_t ox_axes_operand(ox_ctx_t *cx, const char *attr, int64_t input_from, int32_t k, int64_t *v, int32_t *n);

/* ---- tensors (onnx_tensor.c) -------------------------------------------------------- */
/* The narrow_cast format of a narrow ONNX element type; false for other types. */
bool ox_narrow_format(int32_t elem, berth_narrow_format_t *out);
/* Decodes a TensorProto into its compute dtype; data malloc'd. */
berth_status_t ox_tensor_decode(const Onnx__TensorProto *t, int32_t *elem, berth_type_t *type, void **data,
                                berth_diag_t *diag);

/* ---- decoded models (onnx_model.c, onnx_import.c) ------------------------------------ */
/* Checks the wire format and decodes bytes into a ModelProto with a graph (*out: free it
 * with onnx__model_proto__free_unpacked). */
berth_status_t ox_model_decode(const void *bytes, size_t len, Onnx__ModelProto **out, berth_diag_t *diag);
/* Imports a decoded model. release: NULL, or the owner's pointer to mp: then mp is freed and
 * *release cleared once translation is done (before the passes copy weights). */
berth_status_t ox_import_decoded(const Onnx__ModelProto *mp, Onnx__ModelProto **release,
                                 const berth_onnx_options_t *opt, berth_ir_program_t **out, berth_onnx_info_t *info,
                                 berth_diag_t *diag);

/* ---- wire format (onnx_wire.c) ------------------------------------------------------ */
/* Checks that bytes are a well-formed ModelProto / TensorProto within the nesting cap. */
berth_status_t ox_wire_check_model(const uint8_t *bytes, size_t len, berth_diag_t *diag);
berth_status_t ox_wire_check_tensor(const uint8_t *bytes, size_t len, berth_diag_t *diag);

#endif
