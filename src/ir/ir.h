/* berth's program model (compiler side; uses the heap).
 *
 * A program holds constants, mutable buffers (state with an initial value) and methods.
 * A method holds one table of SSA values, one of nodes and one of graphs, shared by its
 * body (graph 0) and every nested HOP body, so a value id means the same thing at every
 * depth. A graph lists its parameters, its nodes in program order and its results.
 *
 *   berth_ir_program_t *p = berth_ir_program_create();
 *   int32_t m = berth_ir_method_add(p, "forward");
 *   berth_ir_method_t *meth = &p->methods[m];
 *   int32_t x = berth_ir_param_add(meth, 0, "x", &f32_2);
 *   int32_t node = berth_ir_node_add(meth, 0, BERTH_OP_ADD, 2, (int32_t[]){x, x});
 *   int32_t y = berth_ir_node_result_add(meth, node, "y", &f32_2);
 *   berth_ir_graph_result_add(meth, 0, y);
 *   ...
 *   berth_ir_program_destroy(p);
 *
 * Values of kind CONST and STATE stand for a program constant or mutable buffer inside one
 * method; berth_ir_global_ref returns the method's value for it (created on first use).
 * Scalars are rank-0 tensors. */
#ifndef BERTH_IR_IR_H
#define BERTH_IR_IR_H

#include "berth/status.h"
#include "berth/types.h"
#include "kernels/op_table.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum berth_ir_value_kind {
  BERTH_IR_PARAM = 0, /* a graph parameter */
  BERTH_IR_NODE,      /* a node result */
  BERTH_IR_CONST,     /* a program constant (read-only) */
  BERTH_IR_STATE,     /* a program mutable buffer */
} berth_ir_value_kind_t;

typedef struct berth_ir_value {
  char *name; /* without the leading % or @ */
  berth_type_t type;
  berth_ir_value_kind_t kind;
  int32_t graph; /* defining graph (PARAM, NODE); -1 for CONST and STATE */
  int32_t node;  /* defining node (NODE) else -1 */
  int32_t index; /* PARAM: position; NODE: result position; CONST/STATE: program index */
} berth_ir_value_t;

typedef struct berth_ir_node {
  berth_op_t op;
  int32_t graph; /* the graph that contains this node */
  int32_t n_in, n_out, n_graphs;
  int32_t *in, *out, *graphs; /* value ids, value ids, graph ids */
  berth_attr_value_t attrs[BERTH_MAX_OP_ATTRS];
  int32_t line, col; /* source position for messages; 0 if none */
} berth_ir_node_t;

typedef struct berth_ir_graph {
  int32_t parent_node; /* the HOP that owns it; -1 for a method body */
  char *label;         /* "then", "else", "cond", "body"; NULL for a method body */
  int32_t n_params, n_nodes, n_results;
  int32_t cap_params, cap_nodes, cap_results;
  int32_t *params, *nodes, *results;
} berth_ir_graph_t;

/* A method result whose extent along one axis is known only at run time (the bounded ops
 * of --dynamic-bound): the result's static extent there is a capacity, and the real extent
 * is the value of `extent`, an i64 scalar the method body defines; the result's real tensor
 * is packed densely at the start of its bytes. */
typedef struct berth_ir_bound {
  int32_t result; /* position among the body's results */
  int32_t axis;   /* < the result's rank */
  int32_t extent; /* value id */
} berth_ir_bound_t;

typedef struct berth_ir_method {
  char *name;
  int32_t body; /* always graph 0 */
  int32_t n_values, n_nodes, n_graphs;
  int32_t cap_values, cap_nodes, cap_graphs;
  berth_ir_value_t *values;
  berth_ir_node_t *nodes;
  berth_ir_graph_t *graphs;
  int32_t n_bounds; /* results' axes with a run-time extent, by increasing (result, axis) */
  berth_ir_bound_t *bounds;
} berth_ir_method_t;

typedef struct berth_ir_global {
  char *name;
  berth_type_t type;
  bool is_state; /* mutable buffer (true) or constant (false) */
  void *data;    /* dense row-major bytes: the constant, or the buffer's initial value */
} berth_ir_global_t;

typedef struct berth_ir_program {
  bool alloc_inputs;  /* inputs planned in the arena (copied in) or caller memory */
  bool alloc_outputs; /* outputs planned in the arena or written to caller memory */
  int32_t n_globals, cap_globals;
  berth_ir_global_t *globals;
  int32_t n_methods, cap_methods;
  berth_ir_method_t *methods;
  /* The texts of STRING attributes (an attribute holds an index here, see op_table.h), one
   * entry per attribute written (not shared: adding stays linear), never removed; a pass
   * that builds a new program copies the whole table first (berth_ir_strings_copy), so the
   * indices in copied nodes stay right. */
  int32_t n_strings, cap_strings;
  char **strings;
} berth_ir_program_t;

/* ---- construction (all return -1 / NULL on allocation failure) ------------------ */

berth_ir_program_t *berth_ir_program_create(void);
void berth_ir_program_destroy(berth_ir_program_t *p);

/* Adds a constant or buffer; data (type bytes) is copied. Returns its index. */
int32_t berth_ir_global_add(berth_ir_program_t *p, const char *name, const berth_type_t *type,
                            bool is_state, const void *data);
int32_t berth_ir_global_find(const berth_ir_program_t *p, const char *name, size_t len);

/* Adds text[0, len) (len <= BERTH_MAX_ATTR_STRING, no NUL inside) to the string table and
 * sets *index to its index, -1 for the empty string (not stored). Fails only when out of
 * memory (BERTH_ERR_RESOURCE_EXHAUSTED, *index untouched; the caller names the context). */
berth_status_t berth_ir_string_add(berth_ir_program_t *p, const char *text, size_t len, int32_t *index);
/* The text of a STRING attribute value (i), "" for -1, NULL if i is not an index. */
const char *berth_ir_string(const berth_ir_program_t *p, int64_t i);
/* Copies src's string table into dst's, which must be empty, keeping the indices. */
bool berth_ir_strings_copy(berth_ir_program_t *dst, const berth_ir_program_t *src);

/* Adds a method with an empty body graph 0. Returns its index. */
int32_t berth_ir_method_add(berth_ir_program_t *p, const char *name);
int32_t berth_ir_method_find(const berth_ir_program_t *p, const char *name);

/* The method's value for program global g (kind CONST or STATE), created on first use. */
int32_t berth_ir_global_ref(berth_ir_program_t *p, berth_ir_method_t *m, int32_t g);

/* Adds a graph owned by HOP node `parent_node` (appended to the node's graph list). */
int32_t berth_ir_graph_add(berth_ir_method_t *m, int32_t parent_node, const char *label);
int32_t berth_ir_param_add(berth_ir_method_t *m, int32_t graph, const char *name,
                           const berth_type_t *type);
/* Appends a node to `graph`; operands are value ids. Attributes start at the defaults. */
int32_t berth_ir_node_add(berth_ir_method_t *m, int32_t graph, berth_op_t op, int32_t n_in,
                          const int32_t *in);
int32_t berth_ir_node_result_add(berth_ir_method_t *m, int32_t node, const char *name,
                                 const berth_type_t *type);
int32_t berth_ir_graph_result_add(berth_ir_method_t *m, int32_t graph, int32_t value);
/* Records that body result `result` has a run-time extent along axis, held by value
 * extent (berth_ir_bound_t); recorded in increasing (result, axis) order, a result once per
 * bounded axis (the validator checks). Returns its index, -1 on allocation failure. */
int32_t berth_ir_bound_add(berth_ir_method_t *m, int32_t result, int32_t axis, int32_t extent);
/* The first bound of body result `result` (its others follow it in m->bounds), or NULL. */
const berth_ir_bound_t *berth_ir_bound_of(const berth_ir_method_t *m, int32_t result);

/* ---- queries ------------------------------------------------------------------- */

/* True if graph `inner` is `outer` or nested (at any depth) inside it. */
bool berth_ir_graph_within(const berth_ir_method_t *m, int32_t inner, int32_t outer);
/* Depth of a graph: 0 for the method body. */
int32_t berth_ir_graph_depth(const berth_ir_method_t *m, int32_t graph);
/* A short description of a node for messages: "node %y = add (line 4)". */
const char *berth_ir_node_describe(const berth_ir_method_t *m, int32_t node, char *buf, size_t cap);

/* Deep copy (used by the fuzzer's shrinker). */
berth_ir_program_t *berth_ir_program_clone(const berth_ir_program_t *p);

/* ---- validation ---------------------------------------------------------------- */

/* Checks the whole program: SSA, types (re-inferred for every kernel node), scoping (a use
 * sees only values defined earlier in its graph or in an enclosing graph), HOP structure
 * (parameter and result agreement of every body), copy_ targets. Names the offending node. */
berth_status_t berth_ir_validate(const berth_ir_program_t *p, berth_diag_t *diag);

/* ---- text format (.bir) -------------------------------------------------------- */

/* Parses text; errors read "file:line:col: what was expected". */
berth_status_t berth_ir_parse(const char *text, size_t len, const char *filename,
                              berth_ir_program_t **out, berth_diag_t *diag);
/* Prints the canonical text form; returns a malloc'd NUL-terminated string (NULL on OOM).
 * parse(print(p)) is equal to p, and print is a fixed point. */
char *berth_ir_print(const berth_ir_program_t *p);

#endif
