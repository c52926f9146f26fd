/* If, Loop and Scan onto berth's cond, while_loop, scan and map.
 *
 * Bodies translate into IR graphs owned by the HOP node; values of enclosing graphs are
 * read directly (berth allows captures), constants are program constants. berth's HOPs
 * need static types, so every body value keeps one type across iterations and both
 * branches of a runtime If return the same types. */
#include "onnx_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_HOP_VALUES 4096

static berth_status_t oom(ox_ctx_t *cx) { return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory"); }

static const Onnx__GraphProto *graph_attr(ox_ctx_t *cx, const char *name) {
  const Onnx__AttributeProto *a = ox_attr(cx, name);
  return a ? a->g : NULL;
}

berth_status_t ox_subgraph(ox_ctx_t *cx, const Onnx__GraphProto *g, int32_t ir_graph, const int32_t *in_vals, int32_t n_in,
                           int32_t *out_vals, int32_t out_cap) {
  if ((int32_t)g->n_input != n_in)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "sub-graph '%s' has %zu inputs, expected %d", g->name ? g->name : "",
                   g->n_input, (int)n_in);
  if ((int32_t)g->n_output > out_cap)
    return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "sub-graph '%s' has %zu outputs, over berth's cap of %d", g->name ? g->name : "",
                   g->n_output, (int)out_cap);
  if (cx->depth >= 60) return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "sub-graphs nest too deep for berth (60)");
  for (size_t k = 0; k < g->n_input; k++) {
    const char *kind = ox_non_tensor_kind(g->input[k]);
    if (kind) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "sub-graph input %zu has %s type; berth supports tensors only", k, kind);
  }
  for (size_t k = 0; k < g->n_output; k++) {
    const char *kind = ox_non_tensor_kind(g->output[k]);
    if (kind) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "sub-graph output %zu has %s type; berth supports tensors only", k, kind);
  }
  int32_t saved_graph = cx->graph, saved_binds = cx->n_binds;
  const Onnx__NodeProto *saved_node = cx->node;
  cx->graph = ir_graph;
  cx->depth++;
  berth_status_t st = BERTH_OK;
  for (size_t k = 0; k < g->n_input && !st; k++) st = ox_bind(cx, g->input[k] ? g->input[k]->name : NULL, in_vals[k]);
  if (!st) st = ox_graph_nodes(cx, g);
  for (size_t k = 0; k < g->n_output && !st; k++) {
    const char *name = g->output[k] && g->output[k]->name ? g->output[k]->name : "";
    int32_t v = ox_lookup(cx, name);
    cx->node = saved_node;
    if (v < 0 || cx->vals[v].absent)
      st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "sub-graph output '%s' is not computed", name);
    else out_vals[k] = v;
  }
  cx->depth--;
  cx->graph = saved_graph;
  cx->node = saved_node;
  ox_unbind_to(cx, saved_binds);
  return st;
}

/* A runtime value of graph `graph` with a given type (a body parameter). */
static berth_status_t add_param(ox_ctx_t *cx, int32_t graph, const char *name, const berth_type_t *t, int32_t elem,
                                int32_t *out) {
  int32_t id = berth_ir_param_add(cx->m, graph, name, t);
  if (id < 0) return oom(cx);
  *out = ox_val_ir(cx, id);
  if (*out < 0) return oom(cx);
  cx->vals[*out].elem = elem;
  return BERTH_OK;
}

static berth_status_t add_result(ox_ctx_t *cx, int32_t graph, int32_t val) {
  int32_t id;
  OX_TRY(ox_check_static(cx, val, "a sub-graph output"));
  OX_TRY(ox_ir(cx, val, &id));
  if (berth_ir_graph_result_add(cx->m, graph, id) < 0) return oom(cx);
  return BERTH_OK;
}

static berth_status_t add_node_result(ox_ctx_t *cx, int32_t node, int32_t k, const berth_type_t *t, int32_t elem,
                                      int32_t *out) {
  const char *name = k < (int32_t)cx->node->n_output && cx->node->output[k] ? cx->node->output[k] : "r";
  int32_t id = berth_ir_node_result_add(cx->m, node, name, t);
  if (id < 0) return oom(cx);
  *out = ox_val_ir(cx, id);
  if (*out < 0) return oom(cx);
  cx->vals[*out].elem = elem;
  return BERTH_OK;
}

static bool const_true(const ox_ctx_t *cx, int32_t v) {
  if (!ox_is_const(cx, v) || cx->vals[v].type.dtype != BERTH_DTYPE_BOOL || berth_type_numel(&cx->vals[v].type) != 1)
    return false;
  return *(const uint8_t *)cx->vals[v].data != 0;
}

static berth_status_t to_scalar(ox_ctx_t *cx, int32_t v, int32_t *out) {
  if (cx->vals[v].type.rank == 0) {
    *out = v;
    return BERTH_OK;
  }
  if (berth_type_numel(&cx->vals[v].type) != 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "expected a one-element tensor, got %lld elements",
                   (long long)berth_type_numel(&cx->vals[v].type));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_RESHAPE, a);
  a[0].n = 0;
  return ox_emit1(cx, BERTH_OP_RESHAPE, 1, &v, a, out);
}

static void type_str(const berth_type_t *t, char *buf, size_t cap) { berth_type_format(t, buf, cap); }

/* ==== If =============================================================================== */

berth_status_t ox_op_if(ox_ctx_t *cx) {
  int32_t c;
  OX_TRY(ox_in_req(cx, 0, &c));
  const Onnx__GraphProto *tg = graph_attr(cx, "then_branch"), *eg = graph_attr(cx, "else_branch");
  if (!tg || !eg) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "then_branch and else_branch are required");
  int32_t n = ox_n_out(cx);
  if ((int32_t)tg->n_output != n || (int32_t)eg->n_output != n)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the branches return %zu and %zu values, expected %d", tg->n_output,
                   eg->n_output, (int)n);
  if (n > MAX_HOP_VALUES) return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "too many outputs");
  if (cx->vals[c].type.dtype != BERTH_DTYPE_BOOL || berth_type_numel(&cx->vals[c].type) != 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the condition must be a one-element bool tensor");
  int32_t *tv = malloc(sizeof(int32_t) * (size_t)(2 * n + 1));
  if (!tv) return oom(cx);
  int32_t *ev = tv + n;
  berth_status_t st = BERTH_OK;
  if (ox_is_const(cx, c) && !cx->opt->keep_control_flow) {
    /* the branch taken, inlined */
    bool take = *(const uint8_t *)cx->vals[c].data != 0;
    st = ox_subgraph(cx, take ? tg : eg, cx->graph, NULL, 0, tv, n);
    for (int32_t k = 0; k < n && !st; k++) st = ox_out(cx, k, tv[k]);
    free(tv);
    return st;
  }
  int32_t pred;
  st = ox_ir(cx, c, &pred);
  int32_t node = st ? -1 : berth_ir_node_add(cx->m, cx->graph, BERTH_OP_COND, 1, &pred);
  if (!st && node < 0) st = oom(cx);
  int32_t gt = -1, ge = -1;
  if (!st) {
    gt = berth_ir_graph_add(cx->m, node, "then");
    ge = gt < 0 ? -1 : berth_ir_graph_add(cx->m, node, "else");
    if (ge < 0) st = oom(cx);
  }
  bool konst = ox_is_const(cx, c), take = konst && *(const uint8_t *)cx->vals[c].data != 0;
  char *had_needs = cx->needs_value;
  if (!st) st = ox_subgraph(cx, tg, gt, NULL, 0, tv, n);
  if (!st) st = ox_subgraph(cx, eg, ge, NULL, 0, ev, n);
  /* --keep-control-flow on a constant condition whose branches return different types
   * (a shape-only If: Squeeze when a dim is 1, ...) or where a branch does not build at
   * these shapes (Silero VAD's 8 kHz branch given a 16 kHz frame): berth's cond needs
   * both branches of one type, so the If is replaced by its taken branch after all (a
   * taken branch that does not build fails again there, with its own message). The cond
   * node keeps no results, and dce drops it and its bodies. */
  bool fold = konst && gt >= 0 && ge >= 0 && (st == BERTH_ERR_INVALID_ARGUMENT || st == BERTH_ERR_UNIMPLEMENTED);
  for (int32_t k = 0; k < n && !st && konst; k++)
    if (!berth_type_equal(&cx->vals[tv[k]].type, &cx->vals[ev[k]].type)) fold = true;
  if (fold) {
    if (cx->needs_value != had_needs) {
      free(cx->needs_value);
      cx->needs_value = had_needs;
    }
    if (cx->diag && cx->diag->buf && cx->diag->cap) cx->diag->buf[0] = '\0';
    st = ox_subgraph(cx, take ? tg : eg, cx->graph, NULL, 0, tv, n);
    for (int32_t j = 0; j < n && !st; j++) st = ox_out(cx, j, tv[j]);
    free(tv);
    return st;
  }
  if (!konst && ge >= 0 && (st == BERTH_ERR_INVALID_ARGUMENT || st == BERTH_ERR_UNIMPLEMENTED) && !cx->needs_value &&
      cx->diag && cx->diag->buf && cx->diag->cap) {
    /* a branch of a runtime If does not build at these shapes (onnxruntime fails there at
     * run time): name the input the condition depends on, which can be bound */
    char inner[1024], what[1100];
    berth_snprintf(inner, sizeof inner, "%s", strncmp(cx->diag->buf, "onnx: ", 6) == 0 ? cx->diag->buf + 6 : cx->diag->buf);
    berth_snprintf(what, sizeof what, "a branch does not build at these shapes (%s), so the condition", inner);
    (void)ox_need_const(cx, c, what);
  }
  for (int32_t k = 0; k < n && !st; k++) {
    const berth_type_t *a = &cx->vals[tv[k]].type, *b = &cx->vals[ev[k]].type;
    if (!berth_type_equal(a, b)) {
      char sa[160], sb[160];
      type_str(a, sa, sizeof sa);
      type_str(b, sb, sizeof sb);
      char what[512];
      berth_snprintf(what, sizeof what,
                   "the condition (output %d is %s in then_branch but %s in else_branch; a runtime If needs "
                   "branches of one type in berth, whose shapes are static)", (int)k, sa, sb);
      st = ox_need_const(cx, c, what);
    }
  }
  for (int32_t k = 0; k < n && !st; k++) st = add_result(cx, gt, tv[k]);
  for (int32_t k = 0; k < n && !st; k++) st = add_result(cx, ge, ev[k]);
  for (int32_t k = 0; k < n && !st; k++) {
    int32_t r;
    berth_type_t t = cx->vals[tv[k]].type;
    st = add_node_result(cx, node, k, &t, cx->vals[tv[k]].elem, &r);
    if (!st) st = ox_out(cx, k, r);
  }
  free(tv);
  return st;
}

/* ==== Loop ============================================================================= */

typedef struct loop {
  const Onnx__GraphProto *body;
  int32_t M, C;      /* trip count and condition operands, -1 when omitted */
  int32_t K, S;      /* carried values, scan outputs */
  int32_t *v_init;   /* K values */
  int32_t *outs;     /* body outputs: 1 + K + S */
} loop_t;

/* while_loop(i, cond, v...) {cond: i < M and cond} {body: i + 1, cond_out, v_out...} */
static berth_status_t loop_while(ox_ctx_t *cx, loop_t *L) {
  int32_t K = L->K;
  int32_t m_s = -1, c0, i0;
  if (L->M >= 0) {
    OX_TRY(to_scalar(cx, L->M, &m_s));
    if (cx->vals[m_s].type.dtype != BERTH_DTYPE_I64) OX_TRY(ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "M must be int64"));
  }
  if (L->C >= 0) OX_TRY(to_scalar(cx, L->C, &c0));
  else OX_TRY(ox_const_bool(cx, true, &c0));
  int64_t zero = 0;
  OX_TRY(ox_const_i64(cx, &zero, 1, true, &i0));
  int32_t *ids = malloc(sizeof(int32_t) * (size_t)(K + 2));
  int32_t *vals = malloc(sizeof(int32_t) * (size_t)(K + 2));
  if (!ids || !vals) {
    free(ids);
    free(vals);
    return oom(cx);
  }
  berth_status_t st = ox_ir(cx, i0, &ids[0]);
  if (!st) st = ox_ir(cx, c0, &ids[1]);
  for (int32_t k = 0; k < K && !st; k++) st = ox_ir(cx, L->v_init[k], &ids[2 + k]);
  int32_t node = -1, gc = -1, gb = -1;
  if (!st) {
    node = berth_ir_node_add(cx->m, cx->graph, BERTH_OP_WHILE_LOOP, K + 2, ids);
    gc = node < 0 ? -1 : berth_ir_graph_add(cx->m, node, "cond");
    gb = gc < 0 ? -1 : berth_ir_graph_add(cx->m, node, "body");
    if (gb < 0) st = oom(cx);
  }
  /* cond(i, c, v...) */
  if (!st) {
    int32_t saved = cx->graph;
    cx->graph = gc;
    int32_t pi, pc, r;
    berth_type_t ti = cx->vals[i0].type, tc = cx->vals[c0].type;
    st = add_param(cx, gc, "i", &ti, BERTH_ONNX_INT64, &pi);
    if (!st) st = add_param(cx, gc, "cond", &tc, BERTH_ONNX_BOOL, &pc);
    for (int32_t k = 0; k < K && !st; k++) {
      int32_t pv;
      berth_type_t tv = cx->vals[L->v_init[k]].type;
      st = add_param(cx, gc, "v", &tv, cx->vals[L->v_init[k]].elem, &pv);
    }
    r = pc;
    if (!st && m_s >= 0) {
      int32_t in[2] = {pi, m_s}, lt;
      st = ox_emit1(cx, BERTH_OP_LT, 2, in, NULL, &lt);
      if (!st && L->C >= 0) {
        int32_t in2[2] = {lt, pc};
        st = ox_emit1(cx, BERTH_OP_LOGICAL_AND, 2, in2, NULL, &r);
      } else {
        r = lt;
      }
    }
    if (!st) st = add_result(cx, gc, r);
    cx->graph = saved;
  }
  /* body(i, c, v...) */
  if (!st) {
    int32_t saved = cx->graph;
    cx->graph = gb;
    berth_type_t ti = cx->vals[i0].type, tc = cx->vals[c0].type;
    st = add_param(cx, gb, "i", &ti, BERTH_ONNX_INT64, &vals[0]);
    if (!st) st = add_param(cx, gb, "cond", &tc, BERTH_ONNX_BOOL, &vals[1]);
    for (int32_t k = 0; k < K && !st; k++) {
      berth_type_t tv = cx->vals[L->v_init[k]].type;
      st = add_param(cx, gb, "v", &tv, cx->vals[L->v_init[k]].elem, &vals[2 + k]);
    }
    int32_t body_c = vals[1];
    if (!st && L->C < 0) st = ox_const_bool(cx, true, &vals[1]);
    if (!st) st = ox_subgraph(cx, L->body, gb, vals, K + 2, L->outs, K + 1);
    int32_t one_id, next, in[2];
    int64_t one = 1;
    if (!st) st = ox_const_i64(cx, &one, 1, true, &one_id);
    if (!st) {
      in[0] = vals[0];
      in[1] = one_id;
      st = ox_emit1(cx, BERTH_OP_ADD, 2, in, NULL, &next);
    }
    if (!st) st = add_result(cx, gb, next);
    if (!st) {
      int32_t c_out = body_c;
      if (L->C >= 0) {
        st = to_scalar(cx, L->outs[0], &c_out);
        if (!st && cx->vals[c_out].type.dtype != BERTH_DTYPE_BOOL)
          st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the body's condition output must be bool");
      }
      if (!st) st = add_result(cx, gb, c_out);
    }
    for (int32_t k = 0; k < K && !st; k++) {
      const berth_type_t *a = &cx->vals[L->v_init[k]].type, *b = &cx->vals[L->outs[1 + k]].type;
      if (!berth_type_equal(a, b)) {
        char sa[160], sb[160];
        type_str(a, sa, sizeof sa);
        type_str(b, sb, sizeof sb);
        st = ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                     "loop-carried value %d starts as %s but the body makes it %s; berth needs one static type per "
                     "carried value", (int)k, sa, sb);
        break;
      }
      st = add_result(cx, gb, L->outs[1 + k]);
    }
    cx->graph = saved;
  }
  /* results: i, cond, v... */
  for (int32_t k = 0; k < K + 2 && !st; k++) {
    int32_t r;
    int32_t src = k == 0 ? i0 : k == 1 ? c0 : L->v_init[k - 2];
    berth_type_t t = cx->vals[src].type;
    int32_t idx = k < 2 ? 1 << 20 : k - 2; /* i and cond are not ONNX outputs */
    st = add_node_result(cx, node, idx, &t, cx->vals[src].elem, &r);
    if (!st && k >= 2) st = ox_out(cx, k - 2, r);
  }
  free(ids);
  free(vals);
  return st;
}

/* scan(v..., iota[T]) {carry = K} body(v..., i) -> (v_out..., scan_out...) */
static berth_status_t loop_scan(ox_ctx_t *cx, loop_t *L, int64_t T) {
  int32_t K = L->K, S = L->S;
  if (T > ((int64_t)1 << 24)) return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "trip count %lld is over berth's cap", (long long)T);
  int64_t *iota = malloc(sizeof(int64_t) * (size_t)(T ? T : 1));
  if (!iota) return oom(cx);
  for (int64_t i = 0; i < T; i++) iota[i] = i;
  int32_t xs;
  berth_status_t st = ox_const_i64(cx, iota, (int32_t)T, false, &xs);
  free(iota);
  if (st) return st;
  int32_t *ids = malloc(sizeof(int32_t) * (size_t)(K + 2));
  int32_t *vals = malloc(sizeof(int32_t) * (size_t)(K + 2));
  if (!ids || !vals) {
    free(ids);
    free(vals);
    return oom(cx);
  }
  for (int32_t k = 0; k < K && !st; k++) st = ox_ir(cx, L->v_init[k], &ids[k]);
  if (!st) st = ox_ir(cx, xs, &ids[K]);
  int32_t node = -1, gb = -1;
  if (!st) {
    node = berth_ir_node_add(cx->m, cx->graph, BERTH_OP_SCAN, K + 1, ids);
    if (node >= 0) {
      cx->m->nodes[node].attrs[0].i = K;
      cx->m->nodes[node].attrs[0].f = K;
      cx->m->nodes[node].attrs[0].n = 1;
    }
    gb = node < 0 ? -1 : berth_ir_graph_add(cx->m, node, "body");
    if (gb < 0) st = oom(cx);
  }
  if (!st) {
    int32_t saved = cx->graph;
    cx->graph = gb;
    /* ONNX body inputs: (i, cond, v...); berth body params: (v..., i) */
    for (int32_t k = 0; k < K && !st; k++) {
      berth_type_t tv = cx->vals[L->v_init[k]].type;
      st = add_param(cx, gb, "v", &tv, cx->vals[L->v_init[k]].elem, &vals[2 + k]);
    }
    berth_type_t ti;
    memset(&ti, 0, sizeof ti);
    ti.dtype = BERTH_DTYPE_I64;
    if (!st) st = add_param(cx, gb, "i", &ti, BERTH_ONNX_INT64, &vals[0]);
    if (!st) st = ox_const_bool(cx, true, &vals[1]);
    if (!st) st = ox_subgraph(cx, L->body, gb, vals, K + 2, L->outs, K + S + 1);
    if (!st && L->C >= 0 && !const_true(cx, L->outs[0]))
      st = ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                   "the loop has scan outputs and its body's condition is computed at run time, so its trip count is "
                   "not known at compile time (berth needs static shapes; pass --max-trip-count N)");
    for (int32_t k = 0; k < K && !st; k++) {
      const berth_type_t *a = &cx->vals[L->v_init[k]].type, *b = &cx->vals[L->outs[1 + k]].type;
      if (!berth_type_equal(a, b)) {
        char sa[160], sb[160];
        type_str(a, sa, sizeof sa);
        type_str(b, sb, sizeof sb);
        st = ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                     "loop-carried value %d starts as %s but the body makes it %s; berth needs one static type per "
                     "carried value", (int)k, sa, sb);
        break;
      }
    }
    for (int32_t k = 0; k < K + S && !st; k++) st = add_result(cx, gb, L->outs[1 + k]);
    cx->graph = saved;
  }
  for (int32_t k = 0; k < K + S && !st; k++) {
    int32_t src = L->outs[1 + k], r;
    berth_type_t t = cx->vals[k < K ? L->v_init[k] : src].type;
    if (k >= K) {
      if (t.rank >= BERTH_MAX_RANK) {
        st = ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "scan output %d has rank %d; stacked it exceeds berth's rank cap",
                     (int)(k - K), (int)t.rank);
        break;
      }
      memmove(&t.dims[1], &t.dims[0], sizeof(int64_t) * (size_t)t.rank);
      t.dims[0] = T;
      t.rank++;
    }
    st = add_node_result(cx, node, k, &t, cx->vals[src].elem, &r);
    if (!st) st = ox_out(cx, k, r);
  }
  free(ids);
  free(vals);
  return st;
}

/* Unrolled: the body once per iteration in the current graph, the iteration number a
 * constant, so everything the body needs at compile time folds. Used when the trip count
 * is known (at most MAX_UNROLL) and the body cannot be a HOP body (it needs the iteration
 * number as a constant, say for Slice bounds). A condition that folds to false ends the
 * loop early, so scan outputs keep static shapes. */
#define MAX_UNROLL 1024
static berth_status_t loop_unroll(ox_ctx_t *cx, loop_t *L, int64_t T) {
  int32_t K = L->K, S = L->S;
  int32_t *cur = malloc(sizeof(int32_t) * (size_t)(K + 2));
  int32_t *steps = malloc(sizeof(int32_t) * (size_t)(S * (T ? T : 1) + 1));
  if (!cur || !steps) {
    free(cur);
    free(steps);
    return oom(cx);
  }
  berth_status_t st = BERTH_OK;
  for (int32_t k = 0; k < K; k++) cur[2 + k] = L->v_init[k];
  int64_t done = 0;
  for (int64_t i = 0; i < T && !st; i++) {
    st = ox_const_i64(cx, &i, 1, true, &cur[0]);
    if (!st) st = ox_const_bool(cx, true, &cur[1]);
    if (!st) st = ox_subgraph(cx, L->body, cx->graph, cur, K + 2, L->outs, K + S + 1);
    if (st) break;
    for (int32_t k = 0; k < K; k++) cur[2 + k] = L->outs[1 + k];
    for (int32_t k = 0; k < S; k++) steps[k * T + i] = L->outs[1 + K + k];
    done = i + 1;
    if (L->C >= 0) {
      double c;
      if (!ox_is_const(cx, L->outs[0])) {
        st = ox_need_const(cx, L->outs[0], "the condition of an unrolled Loop");
        break;
      }
      if (cx->vals[L->outs[0]].type.dtype != BERTH_DTYPE_BOOL) {
        st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the body's condition output has dtype %s, expected bool",
                     berth_dtype_name(cx->vals[L->outs[0]].type.dtype));
        break;
      }
      st = ox_const_double(cx, L->outs[0], "the condition", &c);
      if (!st && c == 0) break;
    }
  }
  for (int32_t k = 0; k < K && !st; k++) st = ox_out(cx, k, cur[2 + k]);
  for (int32_t k = 0; k < S && !st; k++) {
    /* stack the per-iteration values: unsqueeze each, concat in chunks */
    int32_t acc = -1;
    int64_t j = 0;
    while (j < done && !st) {
      int32_t in[BERTH_MAX_KERNEL_OPERANDS], n = 0;
      if (acc >= 0) in[n++] = acc;
      while (j < done && n < BERTH_MAX_KERNEL_OPERANDS && !st) {
        berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
        int64_t zero = 0;
        ox_attrs_default(BERTH_OP_UNSQUEEZE, a);
        st = ox_attr_ints(cx, BERTH_OP_UNSQUEEZE, a, "axes", &zero, 1);
        if (!st) st = ox_emit1(cx, BERTH_OP_UNSQUEEZE, 1, &steps[k * T + j], a, &in[n++]);
        j++;
      }
      if (st) break;
      berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
      ox_attrs_default(BERTH_OP_CONCAT, a);
      st = ox_emit1(cx, BERTH_OP_CONCAT, n, in, a, &acc);
    }
    if (!st && done == 0)
      st = ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "an unrolled Loop with scan outputs ran zero iterations");
    if (!st) st = ox_out(cx, K + k, acc);
  }
  free(cur);
  free(steps);
  return st;
}

/* The HOP lowering; when it fails for want of compile-time values and the trip count is
 * known, the unrolled one (the HOP attempt's nodes are dead and DCE drops them). */
static berth_status_t loop_hop_or_unroll(ox_ctx_t *cx, loop_t *L, int64_t T, bool c_known, bool scan) {
  bool had_need = cx->needs_value != NULL;
  berth_status_t st = scan ? loop_scan(cx, L, T) : loop_while(cx, L);
  if (st != BERTH_ERR_UNIMPLEMENTED || T < 0 || T > MAX_UNROLL || !c_known) return st;
  char saved[1024] = "";
  if (cx->diag && cx->diag->buf) berth_snprintf(saved, sizeof saved, "%s", cx->diag->buf);
  char *need = had_need ? NULL : cx->needs_value;
  if (!had_need) cx->needs_value = NULL;
  berth_status_t st2 = loop_unroll(cx, L, T);
  if (st2 == BERTH_OK) {
    free(need);
    return BERTH_OK;
  }
  /* report the HOP attempt's reason */
  if (!had_need) {
    free(cx->needs_value);
    cx->needs_value = need;
  }
  return berth_fail(cx->diag, st, "%s", saved);
}

/* True when the body's condition output is trivially true: the Loop has no cond input
 * (the output is ignored), or the output is the body's cond input passed through (Identity
 * chains) or a true Constant. */
static bool body_cond_passes(const ox_ctx_t *cx, const loop_t *L) {
  if (L->C < 0) return true;
  const Onnx__GraphProto *g = L->body;
  if (g->n_output < 1 || g->n_input < 2 || !g->output[0] || !g->output[0]->name || !g->input[1] || !g->input[1]->name)
    return false;
  const char *name = g->output[0]->name;
  for (int hops = 0; hops < 64; hops++) {
    if (strcmp(name, g->input[1]->name) == 0) return true;
    const Onnx__NodeProto *def = NULL;
    for (size_t k = 0; k < g->n_node && !def; k++)
      if (g->node[k] && g->node[k]->n_output && g->node[k]->output[0] && strcmp(g->node[k]->output[0], name) == 0)
        def = g->node[k];
    if (!def || !def->op_type) return false;
    if (strcmp(def->op_type, "Identity") == 0 && def->n_input == 1 && def->input[0]) {
      name = def->input[0];
      continue;
    }
    if (strcmp(def->op_type, "Constant") == 0 && def->n_attribute == 1 && def->attribute[0]->t) {
      const Onnx__TensorProto *t = def->attribute[0]->t;
      return t->data_type == BERTH_ONNX_BOOL && ((t->n_int32_data == 1 && t->int32_data[0]) ||
                                                  (t->raw_data.len == 1 && t->raw_data.data[0]));
    }
    return false;
  }
  (void)cx;
  return false;
}

/* After a bounded loop: the call fails when the loop still wants to run once the N
 * iterations are done (its final `active`, and N < M when there is a trip count M), so a
 * bound that is too small is an error at run time, never a truncated result. */
static berth_status_t check_trip_bound(ox_ctx_t *cx, const char *loop_name, int32_t active, int32_t m_s, int64_t N) {
  const char *saved_hint = cx->name_hint;
  int32_t wants = active, ok = -1, ok_id = -1;
  berth_status_t st = BERTH_OK;
  if (m_s >= 0) {
    int32_t n_c = -1, lt = -1;
    cx->name_hint = "trips_left";
    st = ox_const_i64(cx, &N, 1, true, &n_c);
    int32_t in[2] = {n_c, m_s};
    if (!st) st = ox_emit1(cx, BERTH_OP_LT, 2, in, NULL, &lt);
    int32_t in2[2] = {active, lt};
    cx->name_hint = "wants_more_trips";
    if (!st && !const_true(cx, lt)) st = ox_emit1(cx, BERTH_OP_LOGICAL_AND, 2, in2, NULL, &wants);
  }
  cx->name_hint = "within_max_trip_count";
  if (!st) st = ox_emit1(cx, BERTH_OP_LOGICAL_NOT, 1, &wants, NULL, &ok);
  cx->name_hint = saved_hint;
  if (!st) st = ox_ir(cx, ok, &ok_id);
  if (st) return st;
  char msg[600];
  berth_snprintf(msg, sizeof msg, "Loop %s needs more than --max-trip-count %lld iterations", loop_name, (long long)N);
  int32_t text = -1;
  int32_t node = berth_ir_string_add(cx->p, msg, strlen(msg), &text)
                     ? -1
                     : berth_ir_node_add(cx->m, cx->graph, BERTH_OP_ASSERT, 1, &ok_id);
  if (node < 0) return oom(cx);
  cx->m->nodes[node].attrs[0].i = text;
  return BERTH_OK;
}

/* "'name'" or "with output 'y'": the Loop node being translated, for the message of its
 * trip-count check. */
static void loop_label(const ox_ctx_t *cx, char *buf, size_t cap) {
  const Onnx__NodeProto *ln = cx->node;
  if (ln && ln->name && ln->name[0]) berth_snprintf(buf, cap, "'%s'", ln->name);
  else if (ln && ln->n_output && ln->output[0] && ln->output[0][0]) berth_snprintf(buf, cap, "with output '%s'", ln->output[0]);
  else berth_snprintf(buf, cap, "(unnamed)");
}

/* The then-graph gt of a bounded Loop's guard: the ONNX body on (i, true, v...), with
 * results thn = (cond_out, v_out..., scan_out...) (n_all of them). */
static berth_status_t guard_then(ox_ctx_t *cx, loop_t *L, int32_t gt, int32_t pi, const int32_t *params, int32_t *thn) {
  int32_t K = L->K, S = L->S, n_all = 1 + K + S;
  berth_status_t st = BERTH_OK;
  cx->graph = gt;
  int32_t *vals = malloc(sizeof(int32_t) * (size_t)(K + 2));
  if (!vals) st = oom(cx);
  if (!st) {
    vals[0] = pi;
    st = ox_const_bool(cx, true, &vals[1]);
    for (int32_t k = 0; k < K; k++) vals[2 + k] = params[1 + k];
    if (!st) st = ox_subgraph(cx, L->body, gt, vals, K + 2, L->outs, K + S + 1);
  }
  free(vals);
  if (!st) {
    if (L->C >= 0) st = to_scalar(cx, L->outs[0], &thn[0]);
    else st = ox_const_bool(cx, true, &thn[0]);
  }
  for (int32_t k = 0; k < K + S && !st; k++) thn[1 + k] = L->outs[1 + k];
  for (int32_t k = 0; k < K && !st; k++)
    if (!berth_type_equal(&cx->vals[L->v_init[k]].type, &cx->vals[thn[1 + k]].type))
      st = ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "loop-carried value %d changes type in the body", (int)k);
  for (int32_t k = 0; k < n_all && !st; k++) st = add_result(cx, gt, thn[k]);
  return st;
}

/* The else-graph ge of a bounded Loop's guard: (false, v..., zeros shaped like thn's scan
 * outputs) into els. */
static berth_status_t guard_else(ox_ctx_t *cx, const loop_t *L, int32_t ge, const int32_t *params, const int32_t *thn,
                                 int32_t *els) {
  int32_t K = L->K, S = L->S, n_all = 1 + K + S;
  berth_status_t st;
  cx->graph = ge;
  st = ox_const_bool(cx, false, &els[0]);
  for (int32_t k = 0; k < K; k++) els[1 + k] = params[1 + k];
  for (int32_t k = 0; k < S && !st; k++) {
    berth_type_t t = cx->vals[thn[1 + K + k]].type;
    berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
    ox_attrs_default(BERTH_OP_FULL, a);
    st = ox_attr_ints(cx, BERTH_OP_FULL, a, "shape", t.dims, t.rank);
    a[1].i = t.dtype;
    if (!st) st = ox_emit1(cx, BERTH_OP_FULL, 0, NULL, a, &els[1 + K + k]);
  }
  for (int32_t k = 0; k < n_all && !st; k++) st = add_result(cx, ge, els[k]);
  return st;
}

/* Bounded by --max-trip-count N when the trip count is only known at run time:
 *   scan(active, v..., iota[N]) {carry = 1 + K}
 *     body(active, v..., i): cond(active [and i < M])
 *       then: the ONNX body -> (cond_out, v_out..., scan_out...)
 *       else: (false, v..., zeros...)
 *   assert(not(active' [and N < M]))       unless M is known to be at most N
 * The scan outputs have N rows; rows after the last iteration are zero. A run that needs
 * more than N iterations fails with an error naming the loop and the bound. */
static berth_status_t loop_guarded(ox_ctx_t *cx, loop_t *L, int64_t N, bool check) {
  int32_t K = L->K, S = L->S;
  if (N > ((int64_t)1 << 24)) return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "--max-trip-count %lld is over berth's cap", (long long)N);
  int32_t m_s = -1, a0;
  if (L->M >= 0) OX_TRY(to_scalar(cx, L->M, &m_s));
  if (L->C >= 0) OX_TRY(to_scalar(cx, L->C, &a0));
  else OX_TRY(ox_const_bool(cx, true, &a0));
  int64_t *iota = malloc(sizeof(int64_t) * (size_t)(N ? N : 1));
  if (!iota) return oom(cx);
  for (int64_t i = 0; i < N; i++) iota[i] = i;
  int32_t xs;
  berth_status_t st = ox_const_i64(cx, iota, (int32_t)N, false, &xs);
  free(iota);
  if (st) return st;
  char loop_name[300];
  loop_label(cx, loop_name, sizeof loop_name);
  int32_t n_all = 1 + K + S;
  int32_t *buf = malloc(sizeof(int32_t) * (size_t)(4 * n_all + 8));
  if (!buf) return oom(cx);
  int32_t *ids = buf, *params = buf + n_all + 1, *thn = params + n_all + 1, *els = thn + n_all + 1;
  st = ox_ir(cx, a0, &ids[0]);
  for (int32_t k = 0; k < K && !st; k++) st = ox_ir(cx, L->v_init[k], &ids[1 + k]);
  if (!st) st = ox_ir(cx, xs, &ids[1 + K]);
  int32_t node = -1, gb = -1;
  if (!st) {
    node = berth_ir_node_add(cx->m, cx->graph, BERTH_OP_SCAN, K + 2, ids);
    if (node >= 0) {
      cx->m->nodes[node].attrs[0].i = K + 1;
      cx->m->nodes[node].attrs[0].f = K + 1;
      cx->m->nodes[node].attrs[0].n = 1;
    }
    gb = node < 0 ? -1 : berth_ir_graph_add(cx->m, node, "body");
    if (gb < 0) st = oom(cx);
  }
  int32_t saved = cx->graph;
  cx->graph = gb;
  berth_type_t tb;
  memset(&tb, 0, sizeof tb);
  tb.dtype = BERTH_DTYPE_BOOL;
  berth_type_t ti = tb;
  ti.dtype = BERTH_DTYPE_I64;
  if (!st) st = add_param(cx, gb, "active", &tb, BERTH_ONNX_BOOL, &params[0]);
  for (int32_t k = 0; k < K && !st; k++) {
    berth_type_t t = cx->vals[L->v_init[k]].type;
    st = add_param(cx, gb, "v", &t, cx->vals[L->v_init[k]].elem, &params[1 + k]);
  }
  int32_t pi = -1, pred = params[0], active = -1;
  if (!st) st = add_param(cx, gb, "i", &ti, BERTH_ONNX_INT64, &pi);
  if (!st && m_s >= 0) {
    int32_t in[2] = {pi, m_s}, lt;
    st = ox_emit1(cx, BERTH_OP_LT, 2, in, NULL, &lt);
    int32_t in2[2] = {params[0], lt};
    if (!st) st = ox_emit1(cx, BERTH_OP_LOGICAL_AND, 2, in2, NULL, &pred);
  }
  int32_t pid = -1, cn = -1, gt = -1, ge = -1;
  if (!st) st = ox_ir(cx, pred, &pid);
  if (!st) {
    cn = berth_ir_node_add(cx->m, gb, BERTH_OP_COND, 1, &pid);
    gt = cn < 0 ? -1 : berth_ir_graph_add(cx->m, cn, "then");
    ge = gt < 0 ? -1 : berth_ir_graph_add(cx->m, cn, "else");
    if (ge < 0) st = oom(cx);
  }
  if (!st) st = guard_then(cx, L, gt, pi, params, thn);
  if (!st) st = guard_else(cx, L, ge, params, thn, els);
  /* the cond's results are the scan body's results */
  cx->graph = gb;
  for (int32_t k = 0; k < n_all && !st; k++) {
    int32_t r;
    berth_type_t t = cx->vals[thn[k]].type;
    int32_t id = berth_ir_node_result_add(cx->m, cn, "step", &t);
    if (id < 0) {
      st = oom(cx);
      break;
    }
    r = ox_val_ir(cx, id);
    if (r < 0) st = oom(cx);
    else st = add_result(cx, gb, r);
  }
  cx->graph = saved;
  for (int32_t k = 0; k < n_all && !st; k++) {
    berth_type_t t = cx->vals[thn[k]].type;
    if (k > K) {
      if (t.rank >= BERTH_MAX_RANK) {
        st = ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "a stacked scan output exceeds berth's rank cap");
        break;
      }
      memmove(&t.dims[1], &t.dims[0], sizeof(int64_t) * (size_t)t.rank);
      t.dims[0] = N;
      t.rank++;
    }
    int32_t r;
    st = add_node_result(cx, node, k == 0 ? 1 << 20 : k - 1, &t, cx->vals[thn[k]].elem, &r);
    if (!st && k > 0) st = ox_out(cx, k - 1, r);
    if (!st && k == 0) active = r;
  }
  if (!st && check) st = check_trip_bound(cx, loop_name, active, m_s, N);
  free(buf);
  return st;
}

berth_status_t ox_op_loop(ox_ctx_t *cx) {
  loop_t L;
  memset(&L, 0, sizeof L);
  L.body = graph_attr(cx, "body");
  if (!L.body) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'body' is required");
  OX_TRY(ox_in(cx, 0, &L.M));
  OX_TRY(ox_in(cx, 1, &L.C));
  int32_t n_in = ox_n_in(cx);
  L.K = n_in > 2 ? n_in - 2 : 0;
  int32_t n_body_out = (int32_t)L.body->n_output;
  L.S = n_body_out - 1 - L.K;
  if (L.S < 0 || (int32_t)L.body->n_input != L.K + 2)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the body takes %zu inputs and returns %zu outputs for %d carried values",
                   L.body->n_input, L.body->n_output, (int)L.K);
  if (L.K + L.S > MAX_HOP_VALUES) return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "too many loop values");
  L.v_init = malloc(sizeof(int32_t) * (size_t)(L.K + 1));
  L.outs = malloc(sizeof(int32_t) * (size_t)(n_body_out + 1));
  if (!L.v_init || !L.outs) {
    free(L.v_init);
    free(L.outs);
    return oom(cx);
  }
  berth_status_t st = BERTH_OK;
  for (int32_t k = 0; k < L.K && !st; k++) st = ox_in_req(cx, 2 + k, &L.v_init[k]);
  /* trip count and initial condition, when known */
  int64_t T = -1;
  bool c_known = L.C < 0, c_val = true;
  /* M is an int64 and cond a bool (ONNX's types): read exactly, never through a double */
  if (!st && L.M >= 0 && cx->vals[L.M].type.dtype != BERTH_DTYPE_I64)
    st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the trip count M has dtype %s, expected int64",
                 berth_dtype_name(cx->vals[L.M].type.dtype));
  if (!st && L.C >= 0 && cx->vals[L.C].type.dtype != BERTH_DTYPE_BOOL)
    st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the condition has dtype %s, expected bool",
                 berth_dtype_name(cx->vals[L.C].type.dtype));
  if (!st && L.M >= 0 && ox_is_const(cx, L.M)) {
    int64_t m[1];
    int32_t n = 0;
    st = ox_const_ints(cx, L.M, "the trip count M", m, 1, &n);
    if (!st && n != 1) st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the trip count M has %d elements, expected one", (int)n);
    if (!st) T = m[0] < 0 ? 0 : m[0];
  }
  if (!st && L.C >= 0 && ox_is_const(cx, L.C)) {
    double d;
    st = ox_const_double(cx, L.C, "the condition", &d);
    c_known = true;
    c_val = d != 0;
  }
  if (!st && ((T == 0) || (c_known && !c_val)) && L.S == 0) {
    /* never runs: the results are the initial values */
    for (int32_t k = 0; k < L.K && !st; k++) st = ox_out(cx, k, L.v_init[k]);
  } else if (!st && L.S == 0) {
    st = loop_hop_or_unroll(cx, &L, T, c_known, false);
  } else if (!st) {
    if (c_known && !c_val) T = 0;
    int64_t bound = cx->opt->max_trip_count;
    if (bound > 0 && (T < 0 || !c_known || !body_cond_passes(cx, &L))) {
      int64_t n = T >= 0 && T < bound ? T : bound;
      st = loop_guarded(cx, &L, n, !(T >= 0 && T <= n)); /* a known M within the bound needs no check */
    } else if (T < 0) {
      if (L.M >= 0) st = ox_need_const(cx, L.M, "the trip count M of a Loop with scan outputs");
      if (!st)
        st = ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                     "a Loop with scan outputs needs a trip count known at compile time (berth needs static shapes)");
    } else if (!c_known) {
      st = ox_need_const(cx, L.C, "the condition of a Loop with scan outputs");
    } else {
      st = loop_hop_or_unroll(cx, &L, T, c_known, true);
    }
  }
  free(L.v_init);
  free(L.outs);
  return st;
}

/* ==== Scan ============================================================================= */

static berth_status_t transpose_perm(ox_ctx_t *cx, int32_t x, const int64_t *perm, int32_t n, int32_t *out) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_TRANSPOSE, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_TRANSPOSE, a, "perm", perm, n));
  return ox_emit1(cx, BERTH_OP_TRANSPOSE, 1, &x, a, out);
}

/* Reverses axis 0. */
static berth_status_t reverse0(ox_ctx_t *cx, int32_t x, int32_t *out) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_SLICE, a);
  int64_t axes = 0, starts = -1, ends = INT64_MIN, steps = -1;
  OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, a, "axes", &axes, 1));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, a, "starts", &starts, 1));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, a, "ends", &ends, 1));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, a, "steps", &steps, 1));
  return ox_emit1(cx, BERTH_OP_SLICE, 1, &x, a, out);
}

/* Moves axis `axis` of x to the front. */
static berth_status_t axis_to_front(ox_ctx_t *cx, int32_t x, int32_t axis, int32_t *out) {
  int32_t r = cx->vals[x].type.rank;
  if (axis == 0) {
    *out = x;
    return BERTH_OK;
  }
  int64_t perm[BERTH_MAX_RANK];
  perm[0] = axis;
  for (int32_t k = 0, j = 1; k < r; k++)
    if (k != axis) perm[j++] = k;
  return transpose_perm(cx, x, perm, r, out);
}

/* Moves axis 0 of x to position `axis`. */
static berth_status_t front_to_axis(ox_ctx_t *cx, int32_t x, int32_t axis, int32_t *out) {
  int32_t r = cx->vals[x].type.rank;
  if (axis == 0) {
    *out = x;
    return BERTH_OK;
  }
  int64_t perm[BERTH_MAX_RANK];
  for (int32_t k = 0; k < r; k++) perm[k] = k < axis ? k + 1 : k == axis ? 0 : k;
  return transpose_perm(cx, x, perm, r, out);
}

/* The berth scan of one ONNX Scan-9 over already arranged inputs (scan axis 0, forward):
 * states[N], xs[M] -> finals[N], ys[K] (stacked along axis 0). */
static berth_status_t scan_core(ox_ctx_t *cx, const Onnx__GraphProto *body, int32_t N, int32_t M, const int32_t *states,
                                const int32_t *xs, int32_t *finals, int32_t *ys, int32_t K) {
  int32_t n_in = N + M;
  int32_t *ids = malloc(sizeof(int32_t) * (size_t)(n_in + 1));
  int32_t *params = malloc(sizeof(int32_t) * (size_t)(n_in + 1));
  int32_t *outs = malloc(sizeof(int32_t) * (size_t)(N + K + 1));
  if (!ids || !params || !outs) {
    free(ids);
    free(params);
    free(outs);
    return oom(cx);
  }
  berth_status_t st = BERTH_OK;
  int64_t T = -1;
  for (int32_t k = 0; k < M && !st; k++) {
    const berth_type_t *t = &cx->vals[xs[k]].type;
    if (t->rank < 1) st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "scan input %d has no axis to scan", (int)k);
    else if (T >= 0 && t->dims[0] != T) st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "scan inputs have different lengths");
    else T = t->dims[0];
  }
  for (int32_t k = 0; k < N && !st; k++) st = ox_ir(cx, states[k], &ids[k]);
  for (int32_t k = 0; k < M && !st; k++) st = ox_ir(cx, xs[k], &ids[N + k]);
  int32_t node = -1, gb = -1;
  if (!st) {
    node = berth_ir_node_add(cx->m, cx->graph, BERTH_OP_SCAN, n_in, ids);
    if (node >= 0) {
      cx->m->nodes[node].attrs[0].i = N;
      cx->m->nodes[node].attrs[0].f = N;
      cx->m->nodes[node].attrs[0].n = 1;
    }
    gb = node < 0 ? -1 : berth_ir_graph_add(cx->m, node, "body");
    if (gb < 0) st = oom(cx);
  }
  if (!st) {
    int32_t saved = cx->graph;
    cx->graph = gb;
    for (int32_t k = 0; k < N && !st; k++) {
      berth_type_t t = cx->vals[states[k]].type;
      st = add_param(cx, gb, "s", &t, cx->vals[states[k]].elem, &params[k]);
    }
    for (int32_t k = 0; k < M && !st; k++) {
      berth_type_t t = cx->vals[xs[k]].type;
      memmove(&t.dims[0], &t.dims[1], sizeof(int64_t) * (size_t)(t.rank - 1));
      t.rank--;
      st = add_param(cx, gb, "x", &t, cx->vals[xs[k]].elem, &params[N + k]);
    }
    if (!st) st = ox_subgraph(cx, body, gb, params, n_in, outs, N + K);
    if (!st && (int32_t)body->n_output != N + K)
      st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the body returns %zu values, expected %d", body->n_output, (int)(N + K));
    for (int32_t k = 0; k < N && !st; k++) {
      const berth_type_t *a = &cx->vals[states[k]].type, *b = &cx->vals[outs[k]].type;
      if (!berth_type_equal(a, b)) {
        char sa[160], sb[160];
        type_str(a, sa, sizeof sa);
        type_str(b, sb, sizeof sb);
        st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "state %d starts as %s but the body makes it %s", (int)k, sa, sb);
      }
    }
    for (int32_t k = 0; k < N + K && !st; k++) st = add_result(cx, gb, outs[k]);
    cx->graph = saved;
  }
  for (int32_t k = 0; k < N + K && !st; k++) {
    berth_type_t t = cx->vals[k < N ? states[k] : outs[k]].type;
    if (k >= N) {
      if (t.rank >= BERTH_MAX_RANK) {
        st = ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "a stacked scan output exceeds berth's rank cap");
        break;
      }
      memmove(&t.dims[1], &t.dims[0], sizeof(int64_t) * (size_t)t.rank);
      t.dims[0] = T;
      t.rank++;
    }
    const char *rn = k < (int32_t)cx->node->n_output && cx->node->output[k] && cx->node->output[k][0]
                         ? cx->node->output[k] : "scan";
    int32_t id = berth_ir_node_result_add(cx->m, node, rn, &t);
    if (id < 0) {
      st = oom(cx);
      break;
    }
    int32_t v = ox_val_ir(cx, id);
    if (v < 0) {
      st = oom(cx);
      break;
    }
    cx->vals[v].elem = cx->vals[outs[k]].elem;
    if (k < N) finals[k] = v;
    else ys[k - N] = v;
  }
  free(ids);
  free(params);
  free(outs);
  return st;
}

/* Scan-8: a map over the batch axis, each step a Scan-9 over the sequence axis. */
static berth_status_t scan8(ox_ctx_t *cx, const Onnx__GraphProto *body, int32_t N, int32_t M) {
  int32_t sl;
  OX_TRY(ox_in(cx, 0, &sl));
  if (sl >= 0) {
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "Scan-8 with sequence_lens is not supported");
  }
  int64_t dirs[MAX_HOP_VALUES > 64 ? 64 : MAX_HOP_VALUES];
  int32_t nd;
  OX_TRY(ox_attr_int_list(cx, "directions", dirs, 64, &nd));
  int32_t K = (int32_t)body->n_output - N;
  if (K < 0 || N + M > 64) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "Scan-8 with %d states and %d inputs", (int)N, (int)M);
  int32_t ops[64], ids[64], params[64], xs[64], finals[64], ys[64];
  for (int32_t k = 0; k < N + M; k++) OX_TRY(ox_in_req(cx, 1 + k, &ops[k]));
  for (int32_t k = 0; k < N + M; k++) OX_TRY(ox_ir(cx, ops[k], &ids[k]));
  int32_t node = berth_ir_node_add(cx->m, cx->graph, BERTH_OP_MAP, N + M, ids);
  if (node < 0) return oom(cx);
  cx->m->nodes[node].attrs[0].i = N + M;
  cx->m->nodes[node].attrs[0].f = N + M;
  cx->m->nodes[node].attrs[0].n = 1;
  int32_t gb = berth_ir_graph_add(cx->m, node, "body");
  if (gb < 0) return oom(cx);
  int32_t saved = cx->graph;
  cx->graph = gb;
  berth_status_t st = BERTH_OK;
  for (int32_t k = 0; k < N + M && !st; k++) {
    berth_type_t t = cx->vals[ops[k]].type;
    if (t.rank < (k < N ? 1 : 2)) {
      st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "operand %d lacks the batch (and sequence) axes", (int)(k + 1));
      break;
    }
    memmove(&t.dims[0], &t.dims[1], sizeof(int64_t) * (size_t)(t.rank - 1));
    t.rank--;
    st = add_param(cx, gb, k < N ? "s" : "x", &t, cx->vals[ops[k]].elem, &params[k]);
  }
  for (int32_t k = 0; k < M && !st; k++) {
    xs[k] = params[N + k];
    if (nd > k && dirs[k]) st = reverse0(cx, xs[k], &xs[k]);
  }
  if (!st) st = scan_core(cx, body, N, M, params, xs, finals, ys, K);
  for (int32_t k = 0; k < N && !st; k++) st = add_result(cx, gb, finals[k]);
  for (int32_t k = 0; k < K && !st; k++) st = add_result(cx, gb, ys[k]);
  cx->graph = saved;
  for (int32_t k = 0; k < N + K && !st; k++) {
    int32_t src = k < N ? finals[k] : ys[k - N], r;
    berth_type_t t = cx->vals[src].type;
    if (t.rank >= BERTH_MAX_RANK) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "rank cap");
    memmove(&t.dims[1], &t.dims[0], sizeof(int64_t) * (size_t)t.rank);
    t.dims[0] = cx->vals[ops[0]].type.dims[0];
    t.rank++;
    st = add_node_result(cx, node, k, &t, cx->vals[src].elem, &r);
    if (!st) st = ox_out(cx, k, r);
  }
  return st;
}

berth_status_t ox_op_scan(ox_ctx_t *cx) {
  const Onnx__GraphProto *body = graph_attr(cx, "body");
  if (!body) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'body' is required");
  int64_t M64 = ox_attr_int(cx, "num_scan_inputs", -1);
  int32_t n_in = ox_n_in(cx);
  if (cx->opset < 9) {
    if (M64 < 1 || M64 > n_in - 1) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "num_scan_inputs is %lld", (long long)M64);
    return scan8(cx, body, (int32_t)(n_in - 1 - M64), (int32_t)M64);
  }
  if (M64 < 1 || M64 > n_in) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "num_scan_inputs is %lld", (long long)M64);
  int32_t M = (int32_t)M64, N = n_in - M;
  int32_t K = (int32_t)body->n_output - N;
  if (K < 0 || N + M > MAX_HOP_VALUES || K > MAX_HOP_VALUES)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the body returns %zu values for %d states", body->n_output, (int)N);
  int64_t in_axes[64], in_dirs[64], out_axes[64], out_dirs[64];
  int32_t nia, nid, noa, nod;
  OX_TRY(ox_attr_int_list(cx, "scan_input_axes", in_axes, 64, &nia));
  OX_TRY(ox_attr_int_list(cx, "scan_input_directions", in_dirs, 64, &nid));
  OX_TRY(ox_attr_int_list(cx, "scan_output_axes", out_axes, 64, &noa));
  OX_TRY(ox_attr_int_list(cx, "scan_output_directions", out_dirs, 64, &nod));
  int32_t *buf = malloc(sizeof(int32_t) * (size_t)(2 * (N + M + K) + 4));
  if (!buf) return oom(cx);
  int32_t *states = buf, *xs = buf + N, *finals = xs + M, *ys = finals + N;
  berth_status_t st = BERTH_OK;
  for (int32_t k = 0; k < N && !st; k++) st = ox_in_req(cx, k, &states[k]);
  for (int32_t k = 0; k < M && !st; k++) {
    int32_t x;
    st = ox_in_req(cx, N + k, &x);
    if (st) break;
    int32_t r = cx->vals[x].type.rank, axis = 0;
    int64_t a = nia > k ? in_axes[k] : 0;
    if (a < -r || a >= r) {
      st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "scan_input_axes[%d] = %lld is out of range", (int)k, (long long)a);
      break;
    }
    axis = (int32_t)(a < 0 ? a + r : a);
    st = axis_to_front(cx, x, axis, &x);
    if (!st && nid > k && in_dirs[k]) st = reverse0(cx, x, &x);
    xs[k] = x;
  }
  if (!st) st = scan_core(cx, body, N, M, states, xs, finals, ys, K);
  for (int32_t k = 0; k < N && !st; k++) st = ox_out(cx, k, finals[k]);
  for (int32_t k = 0; k < K && !st; k++) {
    int32_t y = ys[k];
    cx->name_hint = N + k < (int32_t)cx->node->n_output ? cx->node->output[N + k] : NULL;
    if (nod > k && out_dirs[k]) st = reverse0(cx, y, &y);
    int32_t r = cx->vals[y].type.rank;
    int64_t a = noa > k ? out_axes[k] : 0;
    if (!st && (a < -r || a >= r)) st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "scan_output_axes[%d] = %lld is out of range", (int)k, (long long)a);
    if (!st) st = front_to_axis(cx, y, (int32_t)(a < 0 ? a + r : a), &y);
    if (!st) st = ox_out(cx, N + k, y);
    cx->name_hint = NULL;
  }
  cx->name_hint = NULL;
  free(buf);
  return st;
}
