/* The IR validator: everything later stages trust about a program is checked here once.
 *
 * Order matters: first the tables' internal consistency (every id in range, every value
 * defined exactly once at the place it claims, the graph tree acyclic and shallow), so
 * that the later checks can index freely; then one walk of each method in program order
 * that checks scoping (a use sees only values defined before it in its graph or in an
 * enclosing graph before the HOP that encloses the use) and each node against the op table
 * (kernel nodes by re-running infer, HOP nodes against the structure in docs/ir-text.md). */
#include "ir.h"
#include "base/try.h"

#include <stdlib.h>
#include <string.h>

#define VALIDATE_MAX_DEPTH 64 /* the parser's cap on body nesting */
#define VALIDATE_MAX_OUTS 16  /* outputs of one kernel node */

typedef struct vctx {
  const berth_ir_program_t *p;
  const berth_ir_method_t *m;
  berth_diag_t *diag;
  uint8_t *visible; /* per value: defined and in scope at the current point of the walk */
  int32_t *owner;   /* scratch: per node / per graph, who lists it */
} vctx_t;

/* ---- messages ----------------------------------------------------------------- */

static char value_sigil(const berth_ir_value_t *v) {
  return v->kind == BERTH_IR_CONST || v->kind == BERTH_IR_STATE ? '@' : '%';
}

/* "node %y = add (line 4) in func @forward"; safe on ids already range-checked. */
static const char *node_where(const vctx_t *c, int32_t node, char *buf, size_t cap) {
  char d[256];
  const berth_ir_node_t *n = &c->m->nodes[node];
  bool outs_ok = n->n_out <= 0 || (n->out && n->out[0] >= 0 && n->out[0] < c->m->n_values);
  if (outs_ok && berth_op_get(n->op)) {
    berth_ir_node_describe(c->m, node, d, sizeof d);
  } else {
    berth_snprintf(d, sizeof d, "node #%d", (int)node);
  }
  berth_snprintf(buf, cap, "%s in func @%s", d, c->m->name ? c->m->name : "?");
  return buf;
}

BERTH_PRINTF_LIKE(3, 4) static berth_status_t node_fail(const vctx_t *c, int32_t node, const char *fmt, ...) {
  char where[384], msg[512];
  va_list ap;
  va_start(ap, fmt);
  berth_vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return berth_fail(c->diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %s", node_where(c, node, where, sizeof where),
                    msg);
}

BERTH_PRINTF_LIKE(2, 3) static berth_status_t method_fail(const vctx_t *c, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  berth_vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return berth_fail(c->diag, BERTH_ERR_INVALID_ARGUMENT, "func @%s: %s", c->m->name ? c->m->name : "?", msg);
}

/* Where a graph sits, for messages: "func @f" or "then body of node ... in func @f". */
static const char *graph_where(const vctx_t *c, int32_t graph, char *buf, size_t cap) {
  const berth_ir_graph_t *g = &c->m->graphs[graph];
  if (g->parent_node < 0) {
    berth_snprintf(buf, cap, "func @%s", c->m->name ? c->m->name : "?");
  } else {
    char where[384];
    bool plain = !g->label || strcmp(g->label, "body") == 0;
    berth_snprintf(buf, cap, "%s%s of %s", plain ? "body" : g->label, plain ? "" : " body",
                 node_where(c, g->parent_node, where, sizeof where));
  }
  return buf;
}

/* berth_type_format for a type that may break the caps (rank out of range). */
static const char *safe_type_format(const berth_type_t *t, char *buf, size_t cap) {
  if (t->rank < 0 || t->rank > BERTH_MAX_RANK || (unsigned)t->dtype >= BERTH_DTYPE_COUNT) {
    berth_snprintf(buf, cap, "dtype %d, rank %d", (int)t->dtype, (int)t->rank);
    return buf;
  }
  return berth_type_format(t, buf, cap);
}

/* ---- structure ------------------------------------------------------------------ */

static bool ids_ok(const int32_t *ids, int32_t n, int32_t limit) {
  if (n < 0 || (n > 0 && !ids)) return false;
  for (int32_t i = 0; i < n; i++)
    if (ids[i] < 0 || ids[i] >= limit) return false;
  return true;
}

/* Tables consistent: ids in range, each value and node defined/listed exactly once where
 * it says, each body owned by exactly one node, the graph tree acyclic. */
static berth_status_t check_structure(vctx_t *c) {
  const berth_ir_program_t *p = c->p;
  const berth_ir_method_t *m = c->m;
  char tb[160];
  if (m->n_values < 0 || m->n_nodes < 0 || m->n_graphs < 1 || !m->graphs || m->body != 0 ||
      (m->n_values && !m->values) || (m->n_nodes && !m->nodes))
    return method_fail(c, "malformed tables (%d values, %d nodes, %d graphs)", (int)m->n_values,
                       (int)m->n_nodes, (int)m->n_graphs);
  if (m->graphs[0].parent_node != -1) return method_fail(c, "graph 0 (the body) has a parent node");

  /* graphs: params are PARAM values of this graph at their position (so each value is one
   * definition); node lists name nodes of this graph, each node listed once */
  for (int32_t i = 0; i < m->n_nodes; i++) c->owner[i] = -1;
  for (int32_t g = 0; g < m->n_graphs; g++) {
    const berth_ir_graph_t *gr = &m->graphs[g];
    if (!ids_ok(gr->params, gr->n_params, m->n_values) || !ids_ok(gr->nodes, gr->n_nodes, m->n_nodes) ||
        !ids_ok(gr->results, gr->n_results, m->n_values))
      return method_fail(c, "graph %d lists an id out of range", (int)g);
    for (int32_t k = 0; k < gr->n_params; k++) {
      const berth_ir_value_t *val = &m->values[gr->params[k]];
      if (val->kind != BERTH_IR_PARAM || val->graph != g || val->index != k)
        return method_fail(c, "%c%s is defined more than once (also as parameter %d of graph %d)",
                           value_sigil(val), val->name ? val->name : "", (int)k, (int)g);
    }
    for (int32_t k = 0; k < gr->n_nodes; k++) {
      int32_t nd = gr->nodes[k];
      if (m->nodes[nd].graph != g || c->owner[nd] >= 0)
        return method_fail(c, "node #%d is listed twice or in a graph it does not belong to", (int)nd);
      c->owner[nd] = g;
    }
  }
  for (int32_t nd = 0; nd < m->n_nodes; nd++) {
    const berth_ir_node_t *n = &m->nodes[nd];
    if (c->owner[nd] < 0) return method_fail(c, "node #%d is in no graph", (int)nd);
    if (!ids_ok(n->in, n->n_in, m->n_values) || !ids_ok(n->out, n->n_out, m->n_values) ||
        !ids_ok(n->graphs, n->n_graphs, m->n_graphs))
      return method_fail(c, "node #%d refers to an id out of range", (int)nd);
    for (int32_t k = 0; k < n->n_out; k++) {
      const berth_ir_value_t *val = &m->values[n->out[k]];
      if (val->kind != BERTH_IR_NODE || val->node != nd || val->index != k)
        return method_fail(c, "%c%s is defined more than once (also as result %d of node #%d)",
                           value_sigil(val), val->name ? val->name : "", (int)k, (int)nd);
    }
  }

  /* values: kind, type, and for globals the global they stand for */
  for (int32_t v = 0; v < m->n_values; v++) {
    const berth_ir_value_t *val = &m->values[v];
    const char *name = val->name ? val->name : "";
    if (!berth_type_check(&val->type))
      return method_fail(c, "value %c%s has an invalid type (%s)", value_sigil(val), name,
                         safe_type_format(&val->type, tb, sizeof tb));
    switch (val->kind) {
      case BERTH_IR_PARAM:
        if (val->graph < 0 || val->graph >= m->n_graphs || val->index < 0 ||
            val->index >= m->graphs[val->graph].n_params || !m->graphs[val->graph].params ||
            m->graphs[val->graph].params[val->index] != v)
          return method_fail(c, "parameter %%%s is not listed as a parameter of its graph", name);
        break;
      case BERTH_IR_NODE:
        if (val->node < 0 || val->node >= m->n_nodes || m->nodes[val->node].graph != val->graph ||
            val->index < 0 || val->index >= m->nodes[val->node].n_out || !m->nodes[val->node].out ||
            m->nodes[val->node].out[val->index] != v)
          return method_fail(c, "value %%%s is not listed as a result of its node", name);
        break;
      case BERTH_IR_CONST:
      case BERTH_IR_STATE: {
        if (val->index < 0 || val->index >= p->n_globals)
          return method_fail(c, "value @%s refers to no constant or buffer", name);
        const berth_ir_global_t *g = &p->globals[val->index];
        if (g->is_state != (val->kind == BERTH_IR_STATE))
          return method_fail(c, "value @%s disagrees with its global on being a buffer", name);
        if (!berth_type_equal(&g->type, &val->type))
          return method_fail(c, "value @%s has type %s but the global has another type", name,
                             berth_type_format(&val->type, tb, sizeof tb));
        break;
      }
      default: return method_fail(c, "value %d has an unknown kind %d", (int)v, (int)val->kind);
    }
  }

  /* bodies: each graph but 0 owned by exactly the node it names */
  for (int32_t g = 0; g < m->n_graphs; g++) c->owner[g] = -1;
  for (int32_t nd = 0; nd < m->n_nodes; nd++) {
    const berth_ir_node_t *n = &m->nodes[nd];
    for (int32_t k = 0; k < n->n_graphs; k++) {
      int32_t g = n->graphs[k];
      if (g == 0 || m->graphs[g].parent_node != nd || c->owner[g] >= 0)
        return method_fail(c, "graph %d is owned twice or by a node it does not name", (int)g);
      c->owner[g] = nd;
    }
  }
  for (int32_t g = 1; g < m->n_graphs; g++)
    if (c->owner[g] < 0) return method_fail(c, "graph %d is the body of no node", (int)g);

  /* depth: walking up from any graph must reach graph 0 within the cap (no cycles) */
  for (int32_t g = 1; g < m->n_graphs; g++) {
    int32_t h = g, depth = 0;
    while (h != 0) {
      if (++depth > VALIDATE_MAX_DEPTH)
        return method_fail(c, "bodies nested deeper than %d (or a cycle of bodies)", VALIDATE_MAX_DEPTH);
      h = m->nodes[m->graphs[h].parent_node].graph;
    }
  }
  return BERTH_OK;
}

/* ---- node semantics ----------------------------------------------------------- */

static const berth_type_t *vtype(const vctx_t *c, int32_t v) { return &c->m->values[v].type; }

static const char *vname(const vctx_t *c, int32_t v, char *buf, size_t cap) {
  const berth_ir_value_t *val = &c->m->values[v];
  berth_snprintf(buf, cap, "%c%s", value_sigil(val), val->name ? val->name : "");
  return buf;
}

static bool is_one_bool(const berth_type_t *t) {
  return t->dtype == BERTH_DTYPE_BOOL && berth_type_numel(t) == 1;
}

/* "then body", "cond body", "body" for messages. */
static const char *body_name(const char *label, char *buf, size_t cap) {
  if (!label || strcmp(label, "body") == 0) return "body";
  berth_snprintf(buf, cap, "%s body", label);
  return buf;
}

/* A slice along axis 0: the type without its leading dim. */
static berth_type_t slice_type(const berth_type_t *t) {
  berth_type_t s = *t;
  s.rank = t->rank - 1;
  for (int32_t i = 0; i < s.rank; i++) s.dims[i] = t->dims[i + 1];
  for (int32_t i = s.rank; i < BERTH_MAX_RANK; i++) s.dims[i] = 0;
  return s;
}

/* `t` stacked T times along a new axis 0; false if that exceeds berth's caps. */
static bool stacked_type(const berth_type_t *t, int64_t T, berth_type_t *out) {
  if (t->rank >= BERTH_MAX_RANK) return false;
  memset(out, 0, sizeof *out);
  out->dtype = t->dtype;
  out->rank = t->rank + 1;
  out->dims[0] = T;
  for (int32_t i = 0; i < t->rank; i++) out->dims[i + 1] = t->dims[i];
  return berth_type_check(out);
}

/* Checks the body `k` of HOP `node`: label, parameter count and types (expected[i]). */
static berth_status_t check_body_params(const vctx_t *c, int32_t node, int32_t k, const char *label,
                                        const berth_type_t *expected, int32_t n_expected,
                                        const char *what) {
  const berth_ir_graph_t *g = &c->m->graphs[c->m->nodes[node].graphs[k]];
  char a[160], b[160], nb[96], bn[64];
  if (!g->label || strcmp(g->label, label) != 0)
    return node_fail(c, node, "body %d is labelled '%s' but should be '%s'", (int)k, g->label ? g->label : "",
                     label);
  if (g->n_params != n_expected)
    return node_fail(c, node, "%s has %d parameters but needs %d (%s)", body_name(label, bn, sizeof bn), (int)g->n_params,
                     (int)n_expected, what);
  for (int32_t i = 0; i < n_expected; i++)
    if (!berth_type_equal(vtype(c, g->params[i]), &expected[i]))
      return node_fail(c, node, "%s parameter %d (%s) is %s but should be %s (%s)", body_name(label, bn, sizeof bn), (int)i,
                       vname(c, g->params[i], nb, sizeof nb),
                       berth_type_format(vtype(c, g->params[i]), a, sizeof a),
                       berth_type_format(&expected[i], b, sizeof b), what);
  return BERTH_OK;
}

/* Checks that body `k` returns n_expected values of the expected types. */
static berth_status_t check_body_results(const vctx_t *c, int32_t node, int32_t k, const berth_type_t *expected,
                                         int32_t n_expected, const char *what) {
  const berth_ir_graph_t *g = &c->m->graphs[c->m->nodes[node].graphs[k]];
  char a[160], b[160], nb[96], bn[64];
  if (g->n_results != n_expected)
    return node_fail(c, node, "%s returns %d values but should return %d (%s)", body_name(g->label, bn, sizeof bn),
                     (int)g->n_results, (int)n_expected, what);
  for (int32_t i = 0; i < n_expected; i++)
    if (!berth_type_equal(vtype(c, g->results[i]), &expected[i]))
      return node_fail(c, node, "%s result %d (%s) is %s but should be %s (%s)", body_name(g->label, bn, sizeof bn), (int)i,
                       vname(c, g->results[i], nb, sizeof nb),
                       berth_type_format(vtype(c, g->results[i]), a, sizeof a),
                       berth_type_format(&expected[i], b, sizeof b), what);
  return BERTH_OK;
}

/* Checks node results against expected types. */
static berth_status_t check_node_results(const vctx_t *c, int32_t node, const berth_type_t *expected,
                                         int32_t n_expected, const char *what) {
  const berth_ir_node_t *n = &c->m->nodes[node];
  char a[160], b[160], nb[96];
  if (n->n_out != n_expected)
    return node_fail(c, node, "has %d results but should have %d (%s)", (int)n->n_out, (int)n_expected, what);
  for (int32_t i = 0; i < n_expected; i++)
    if (!berth_type_equal(vtype(c, n->out[i]), &expected[i]))
      return node_fail(c, node, "result %d (%s) is declared %s but should be %s (%s)", (int)i,
                       vname(c, n->out[i], nb, sizeof nb), berth_type_format(vtype(c, n->out[i]), a, sizeof a),
                       berth_type_format(&expected[i], b, sizeof b), what);
  return BERTH_OK;
}

static berth_status_t check_n_graphs(const vctx_t *c, int32_t node, int32_t want) {
  const berth_ir_node_t *n = &c->m->nodes[node];
  if (n->n_graphs != want) return node_fail(c, node, "has %d bodies but should have %d", (int)n->n_graphs, (int)want);
  return BERTH_OK;
}

/* Collects the operand types of `node` (from index `from`) into a malloc'd array. */
static berth_type_t *operand_types(const vctx_t *c, int32_t node, int32_t from, int32_t n) {
  berth_type_t *t = malloc((size_t)(n > 0 ? n : 1) * sizeof *t);
  if (!t) return NULL;
  for (int32_t i = 0; i < n; i++) t[i] = *vtype(c, c->m->nodes[node].in[from + i]);
  return t;
}

/* A STRING attribute names an entry of the program's string table within the cap. */
static berth_status_t check_string_attr(const vctx_t *c, int32_t node, const berth_op_def_t *def, int i) {
  const char *text = berth_ir_string(c->p, c->m->nodes[node].attrs[i].i);
  if (!text)
    return node_fail(c, node, "attribute '%s' is string %lld, not in the program's %d strings", def->attrs[i].name,
                     (long long)c->m->nodes[node].attrs[i].i, (int)c->p->n_strings);
  if (strlen(text) > BERTH_MAX_ATTR_STRING)
    return node_fail(c, node, "attribute '%s' is longer than %d bytes", def->attrs[i].name, BERTH_MAX_ATTR_STRING);
  return BERTH_OK;
}

static berth_status_t check_kernel(const vctx_t *c, int32_t node, const berth_op_def_t *def) {
  const berth_ir_node_t *n = &c->m->nodes[node];
  BERTH_TRY(check_n_graphs(c, node, 0));
  int32_t max_in = def->max_in < 0 ? BERTH_MAX_KERNEL_OPERANDS : def->max_in;
  if (n->n_in < def->min_in || n->n_in > max_in) {
    if (def->min_in == max_in)
      return node_fail(c, node, "has %d operands but %s takes %d", (int)n->n_in, def->name, (int)def->min_in);
    return node_fail(c, node, "has %d operands but %s takes %d to %d", (int)n->n_in, def->name,
                     (int)def->min_in, (int)max_in);
  }
  if (n->n_out != def->n_out || def->n_out > VALIDATE_MAX_OUTS)
    return node_fail(c, node, "has %d results but %s has %d", (int)n->n_out, def->name, (int)def->n_out);
  for (int i = 0; i < def->n_attrs; i++) {
    const berth_attr_value_t *a = &n->attrs[i];
    if (def->attrs[i].kind == BERTH_ATTR_INTS && (a->n < 0 || a->n > BERTH_MAX_ATTR_INTS))
      return node_fail(c, node, "attribute '%s' has %d values (at most %d)", def->attrs[i].name, (int)a->n,
                       BERTH_MAX_ATTR_INTS);
    if (def->attrs[i].kind == BERTH_ATTR_DTYPE && (a->i < 0 || a->i >= BERTH_DTYPE_COUNT))
      return node_fail(c, node, "attribute '%s' is not a dtype (%lld)", def->attrs[i].name, (long long)a->i);
    if (def->attrs[i].kind == BERTH_ATTR_STRING) BERTH_TRY(check_string_attr(c, node, def, i));
  }
  if (!def->infer) return node_fail(c, node, "op %s has no type inference", def->name);
  berth_type_t in[BERTH_MAX_KERNEL_OPERANDS];
  berth_type_t out[VALIDATE_MAX_OUTS];
  memset(out, 0, sizeof out);
  for (int32_t i = 0; i < n->n_in; i++) in[i] = *vtype(c, n->in[i]);
  berth_status_t st = def->infer(n->attrs, in, n->n_in, out, c->diag);
  if (st != BERTH_OK) {
    char where[384];
    return berth_fail_prefix(c->diag, st, "%s", node_where(c, node, where, sizeof where));
  }
  char a[160], b[160], nb[96];
  for (int32_t i = 0; i < n->n_out; i++) {
    if (berth_type_equal(vtype(c, n->out[i]), &out[i])) continue;
    if (n->n_out == 1)
      return node_fail(c, node, "declared %s but infer gives %s", berth_type_format(vtype(c, n->out[i]), a, sizeof a),
                       berth_type_format(&out[i], b, sizeof b));
    return node_fail(c, node, "result %d (%s) declared %s but infer gives %s", (int)i,
                     vname(c, n->out[i], nb, sizeof nb), berth_type_format(vtype(c, n->out[i]), a, sizeof a),
                     berth_type_format(&out[i], b, sizeof b));
  }
  return BERTH_OK;
}

static berth_status_t check_cond(const vctx_t *c, int32_t node) {
  const berth_ir_node_t *n = &c->m->nodes[node];
  char a[160], nb[96];
  if (n->n_in < 1) return node_fail(c, node, "cond needs a predicate operand");
  if (!is_one_bool(vtype(c, n->in[0])))
    return node_fail(c, node, "predicate %s must be a one-element bool tensor, found %s",
                     vname(c, n->in[0], nb, sizeof nb), berth_type_format(vtype(c, n->in[0]), a, sizeof a));
  BERTH_TRY(check_n_graphs(c, node, 2));
  berth_type_t *ops = operand_types(c, node, 1, n->n_in - 1);
  berth_type_t *res = malloc((size_t)(n->n_out > 0 ? n->n_out : 1) * sizeof *res);
  berth_status_t st = BERTH_OK;
  if (!ops || !res) {
    st = berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    goto done;
  }
  for (int32_t i = 0; i < n->n_out; i++) res[i] = *vtype(c, n->out[i]);
  static const char *const labels[2] = {"then", "else"};
  for (int32_t k = 0; k < 2 && !st; k++) {
    st = check_body_params(c, node, k, labels[k], ops, n->n_in - 1, "the operands after the predicate");
    if (!st) st = check_body_results(c, node, k, res, n->n_out, "the node's result types");
  }
done:
  free(ops);
  free(res);
  return st;
}

static berth_status_t check_while(const vctx_t *c, int32_t node) {
  const berth_ir_node_t *n = &c->m->nodes[node];
  BERTH_TRY(check_n_graphs(c, node, 2));
  berth_type_t *carried = operand_types(c, node, 0, n->n_in);
  if (!carried) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  const berth_ir_graph_t *cg = &c->m->graphs[n->graphs[0]];
  berth_status_t st = check_body_params(c, node, 0, "cond", carried, n->n_in, "the carried types");
  if (!st && cg->n_results != 1)
    st = node_fail(c, node, "cond body returns %d values but should return one bool", (int)cg->n_results);
  if (!st && !is_one_bool(vtype(c, cg->results[0]))) {
    char a[160];
    st = node_fail(c, node, "cond body returns %s but should return a one-element bool tensor",
                   berth_type_format(vtype(c, cg->results[0]), a, sizeof a));
  }
  if (!st) st = check_body_params(c, node, 1, "body", carried, n->n_in, "the carried types");
  if (!st) st = check_body_results(c, node, 1, carried, n->n_in, "the carried types");
  if (!st) st = check_node_results(c, node, carried, n->n_in, "the carried types");
  free(carried);
  return st;
}

/* scan (carry = N) and map (mapped = N) share the slicing of their scanned inputs. */
static berth_status_t check_scan_map(const vctx_t *c, int32_t node, bool is_scan) {
  const berth_ir_node_t *n = &c->m->nodes[node];
  const char *attr = is_scan ? "carry" : "mapped";
  int64_t N = n->attrs[0].i;
  if (N < (is_scan ? 0 : 1) || N > n->n_in)
    return node_fail(c, node, "%s = %lld but the node has %d operands", attr, (long long)N, (int)n->n_in);
  int32_t n_carry = is_scan ? (int32_t)N : 0;
  int32_t xs_from = is_scan ? (int32_t)N : 0;
  int32_t n_xs = is_scan ? n->n_in - (int32_t)N : (int32_t)N;
  if (n_xs < 1) return node_fail(c, node, "scan needs at least one scanned input after its %lld carries", (long long)N);
  BERTH_TRY(check_n_graphs(c, node, 1));
  char a[160], nb[96];
  int64_t T = -1;
  for (int32_t i = 0; i < n_xs; i++) {
    int32_t v = n->in[xs_from + i];
    const berth_type_t *t = vtype(c, v);
    if (t->rank < 1)
      return node_fail(c, node, "scanned input %s is %s: it needs a leading dimension", vname(c, v, nb, sizeof nb),
                       berth_type_format(t, a, sizeof a));
    if (T >= 0 && t->dims[0] != T)
      return node_fail(c, node, "scanned input %s is %s but the scanned inputs before it have leading dim %lld",
                       vname(c, v, nb, sizeof nb), berth_type_format(t, a, sizeof a), (long long)T);
    T = t->dims[0];
  }
  /* body parameters: scan: carries, then slices; map: slices, then args */
  berth_type_t *params = operand_types(c, node, 0, n->n_in);
  const berth_ir_graph_t *body = &c->m->graphs[n->graphs[0]];
  int32_t n_res = body->n_results;
  berth_type_t *outs = malloc((size_t)(n_res > 0 ? n_res : 1) * sizeof *outs);
  berth_status_t st = BERTH_OK;
  if (!params || !outs) {
    st = berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    goto done;
  }
  for (int32_t i = 0; i < n_xs; i++) params[xs_from + i] = slice_type(&params[xs_from + i]);
  st = check_body_params(c, node, 0, "body", params, n->n_in,
                         is_scan ? "the carry types, then the scanned slices" : "the mapped slices, then the args");
  if (st) goto done;
  if (n_res < n_carry) {
    st = node_fail(c, node, "body returns %d values but should return at least the %d carries", (int)n_res,
                   (int)n_carry);
    goto done;
  }
  for (int32_t i = 0; i < n_carry; i++) {
    if (!berth_type_equal(vtype(c, body->results[i]), &params[i])) {
      char b[160];
      st = node_fail(c, node, "body result %d (%s) is %s but should be %s (the carry type)", (int)i,
                     vname(c, body->results[i], nb, sizeof nb),
                     berth_type_format(vtype(c, body->results[i]), a, sizeof a),
                     berth_type_format(&params[i], b, sizeof b));
      goto done;
    }
  }
  for (int32_t i = 0; i < n_carry; i++) outs[i] = params[i];
  for (int32_t i = n_carry; i < n_res; i++) {
    if (!stacked_type(vtype(c, body->results[i]), T, &outs[i])) {
      st = node_fail(c, node, "per-step output %s (%s) cannot be stacked %lld times within berth's caps",
                     vname(c, body->results[i], nb, sizeof nb),
                     berth_type_format(vtype(c, body->results[i]), a, sizeof a), (long long)T);
      goto done;
    }
  }
  st = check_node_results(c, node, outs, n_res,
                          is_scan ? "the carry types, then each per-step output stacked along axis 0"
                                  : "each per-step output stacked along axis 0");
done:
  free(params);
  free(outs);
  return st;
}

static berth_status_t check_copy(const vctx_t *c, int32_t node) {
  const berth_ir_node_t *n = &c->m->nodes[node];
  char a[160], b[160], nb[96];
  BERTH_TRY(check_n_graphs(c, node, 0));
  if (n->n_in != 2) return node_fail(c, node, "copy_ takes 2 operands, found %d", (int)n->n_in);
  if (n->n_out != 0) return node_fail(c, node, "copy_ has no results, found %d", (int)n->n_out);
  const berth_ir_value_t *dst = &c->m->values[n->in[0]];
  if (dst->kind == BERTH_IR_CONST)
    return node_fail(c, node, "copy_ writes constant @%s; constants are read-only", dst->name ? dst->name : "");
  if (dst->kind != BERTH_IR_STATE)
    return node_fail(c, node, "copy_ destination %s is not a mutable buffer", vname(c, n->in[0], nb, sizeof nb));
  if (!berth_type_equal(&dst->type, vtype(c, n->in[1])))
    return node_fail(c, node, "copy_ writes %s into @%s of type %s", berth_type_format(vtype(c, n->in[1]), a, sizeof a),
                     dst->name ? dst->name : "", berth_type_format(&dst->type, b, sizeof b));
  return BERTH_OK;
}

static berth_status_t check_assert(const vctx_t *c, int32_t node, const berth_op_def_t *def) {
  const berth_ir_node_t *n = &c->m->nodes[node];
  char a[160], nb[96];
  BERTH_TRY(check_n_graphs(c, node, 0));
  if (n->n_in != 1) return node_fail(c, node, "assert takes 1 operand, found %d", (int)n->n_in);
  if (n->n_out != 0) return node_fail(c, node, "assert has no results, found %d", (int)n->n_out);
  if (!is_one_bool(vtype(c, n->in[0])))
    return node_fail(c, node, "assert's condition %s must be a one-element bool tensor, found %s",
                     vname(c, n->in[0], nb, sizeof nb), berth_type_format(vtype(c, n->in[0]), a, sizeof a));
  return check_string_attr(c, node, def, 0);
}

/* ---- the walk ----------------------------------------------------------------- */

static bool visible(const vctx_t *c, int32_t v) {
  berth_ir_value_kind_t k = c->m->values[v].kind;
  return k == BERTH_IR_CONST || k == BERTH_IR_STATE || c->visible[v];
}

/* The method's results with a run-time extent (berth_ir_bound_t), at the end of the body:
 * in increasing (result, axis) order (a result may have several bounded axes), the axis inside the result's rank, the extent an i64 scalar
 * defined in the body (or a constant). */
static berth_status_t check_bounds(const vctx_t *c) {
  const berth_ir_method_t *m = c->m;
  const berth_ir_graph_t *body = &m->graphs[m->body];
  char nb[96], a[160];
  for (int32_t i = 0; i < m->n_bounds; i++) {
    const berth_ir_bound_t *b = &m->bounds[i];
    const berth_ir_bound_t *pb = i ? &m->bounds[i - 1] : NULL;
    if (b->result < 0 || b->result >= body->n_results ||
        (pb && (b->result < pb->result || (b->result == pb->result && b->axis <= pb->axis))))
      return berth_fail(c->diag, BERTH_ERR_INVALID_ARGUMENT,
                        "method @%s: bound %d names result %d axis %d, expected a result (0..%d) and axis after the "
                        "previous bound's", m->name, (int)i, (int)b->result, (int)b->axis, (int)body->n_results - 1);
    const berth_type_t *rt = vtype(c, body->results[b->result]);
    if (b->axis < 0 || b->axis >= rt->rank)
      return berth_fail(c->diag, BERTH_ERR_INVALID_ARGUMENT, "method @%s: result %d (%s) is bounded along axis %d, "
                        "outside its rank %d", m->name, (int)b->result, safe_type_format(rt, a, sizeof a),
                        (int)b->axis, (int)rt->rank);
    if (b->extent < 0 || b->extent >= m->n_values || !visible(c, b->extent))
      return berth_fail(c->diag, BERTH_ERR_INVALID_ARGUMENT, "method @%s: the extent of result %d is not a value "
                        "defined in the method body", m->name, (int)b->result);
    const berth_type_t *et = vtype(c, b->extent);
    if (et->dtype != BERTH_DTYPE_I64 || et->rank != 0)
      return berth_fail(c->diag, BERTH_ERR_INVALID_ARGUMENT, "method @%s: the extent of result %d, %s, is %s, "
                        "expected an i64 scalar", m->name, (int)b->result, vname(c, b->extent, nb, sizeof nb),
                        safe_type_format(et, a, sizeof a));
  }
  return BERTH_OK;
}

static berth_status_t walk_graph(vctx_t *c, int32_t graph) {
  const berth_ir_method_t *m = c->m;
  const berth_ir_graph_t *g = &m->graphs[graph];
  char nb[96];
  for (int32_t i = 0; i < g->n_params; i++) c->visible[g->params[i]] = 1;
  for (int32_t k = 0; k < g->n_nodes; k++) {
    int32_t nd = g->nodes[k];
    const berth_ir_node_t *n = &m->nodes[nd];
    const berth_op_def_t *def = berth_op_get(n->op);
    if (!def) return node_fail(c, nd, "unknown op %u", (unsigned)n->op);
    for (int32_t i = 0; i < n->n_in; i++)
      if (!visible(c, n->in[i]))
        return node_fail(c, nd, "operand %d (%s) is not defined before this node in this graph or an enclosing one",
                         (int)i, vname(c, n->in[i], nb, sizeof nb));
    switch (def->kind) {
      case BERTH_OPKIND_KERNEL: BERTH_TRY(check_kernel(c, nd, def)); break;
      case BERTH_OPKIND_COND: BERTH_TRY(check_cond(c, nd)); break;
      case BERTH_OPKIND_WHILE_LOOP: BERTH_TRY(check_while(c, nd)); break;
      case BERTH_OPKIND_SCAN: BERTH_TRY(check_scan_map(c, nd, true)); break;
      case BERTH_OPKIND_MAP: BERTH_TRY(check_scan_map(c, nd, false)); break;
      case BERTH_OPKIND_COPY_: BERTH_TRY(check_copy(c, nd)); break;
      case BERTH_OPKIND_ASSERT: BERTH_TRY(check_assert(c, nd, def)); break;
      default: return node_fail(c, nd, "op %s has an unknown kind", def->name);
    }
    for (int32_t k2 = 0; k2 < n->n_graphs; k2++) BERTH_TRY(walk_graph(c, n->graphs[k2]));
    for (int32_t i = 0; i < n->n_out; i++) c->visible[n->out[i]] = 1;
  }
  for (int32_t i = 0; i < g->n_results; i++) {
    if (!visible(c, g->results[i])) {
      char where[512];
      return berth_fail(c->diag, BERTH_ERR_INVALID_ARGUMENT,
                        "%s: result %d (%s) is not defined in this graph or an enclosing one",
                        graph_where(c, graph, where, sizeof where), (int)i, vname(c, g->results[i], nb, sizeof nb));
    }
  }
  if (graph == m->body) BERTH_TRY(check_bounds(c));
  /* leaving the graph: its values go out of scope */
  for (int32_t i = 0; i < g->n_params; i++) c->visible[g->params[i]] = 0;
  for (int32_t k = 0; k < g->n_nodes; k++) {
    const berth_ir_node_t *n = &m->nodes[g->nodes[k]];
    for (int32_t i = 0; i < n->n_out; i++) c->visible[n->out[i]] = 0;
  }
  return BERTH_OK;
}

static berth_status_t validate_method(vctx_t *c) {
  const berth_ir_method_t *m = c->m;
  size_t n = (size_t)(m->n_nodes > m->n_graphs ? m->n_nodes : m->n_graphs);
  c->owner = malloc((n ? n : 1) * sizeof *c->owner);
  c->visible = calloc((size_t)(m->n_values > 0 ? m->n_values : 1), 1);
  berth_status_t st;
  if (!c->owner || !c->visible) st = berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  else st = check_structure(c);
  if (!st) st = walk_graph(c, 0);
  free(c->owner);
  free(c->visible);
  c->owner = NULL;
  c->visible = NULL;
  return st;
}

/* ---- globals ------------------------------------------------------------------ */

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names must be present, non-empty and unique (they are the program's interface). */
static berth_status_t check_unique(berth_diag_t *diag, const char **names, int32_t n, const char *what) {
  for (int32_t i = 0; i < n; i++)
    if (!names[i] || !names[i][0])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "one of the %s (number %d) has no name", what, (int)i);
  qsort(names, (size_t)n, sizeof *names, cmp_name);
  for (int32_t i = 1; i < n; i++)
    if (strcmp(names[i - 1], names[i]) == 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "two %s are named @%s", what, names[i]);
  return BERTH_OK;
}

static berth_status_t validate_globals(const berth_ir_program_t *p, berth_diag_t *diag) {
  char tb[160];
  for (int32_t i = 0; i < p->n_globals; i++) {
    const berth_ir_global_t *g = &p->globals[i];
    const char *kind = g->is_state ? "buffer" : "const";
    const char *name = g->name ? g->name : "";
    if (!berth_type_check(&g->type))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s @%s has an invalid type (%s)", kind, name,
                        safe_type_format(&g->type, tb, sizeof tb));
    if (!g->data && berth_type_numel(&g->type) > 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s @%s has no data", kind, name);
    if (g->type.dtype == BERTH_DTYPE_BOOL) {
      const unsigned char *d = g->data;
      int64_t numel = berth_type_numel(&g->type);
      for (int64_t k = 0; k < numel; k++)
        if (d[k] > 1)
          return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s @%s: bool element %lld is %u, not 0 or 1", kind,
                            name, (long long)k, (unsigned)d[k]);
    }
  }
  int32_t most = p->n_globals > p->n_methods ? p->n_globals : p->n_methods;
  const char **names = malloc((size_t)(most > 0 ? most : 1) * sizeof *names);
  if (!names) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < p->n_globals; i++) names[i] = p->globals[i].name;
  berth_status_t st = check_unique(diag, names, p->n_globals, "constants or buffers");
  if (!st) {
    for (int32_t i = 0; i < p->n_methods; i++) names[i] = p->methods[i].name;
    st = check_unique(diag, names, p->n_methods, "funcs");
  }
  free(names);
  return st;
}

berth_status_t berth_ir_validate(const berth_ir_program_t *p, berth_diag_t *diag) {
  if (!p) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_ir_validate: NULL program");
  if (p->n_globals < 0 || p->n_methods < 0 || (p->n_globals && !p->globals) || (p->n_methods && !p->methods))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "malformed program tables");
  BERTH_TRY(validate_globals(p, diag));
  for (int32_t i = 0; i < p->n_methods; i++) {
    vctx_t c = {p, &p->methods[i], diag, NULL, NULL};
    BERTH_TRY(validate_method(&c));
  }
  return BERTH_OK;
}
