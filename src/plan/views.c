/* Views (DESIGN rule 7): a kernel call that only reproduces a contiguous run of its one
 * operand's bytes (clone, reshape, squeeze, unsqueeze, a contiguous slice or select; see
 * berth_op_view_offset) shares its operand's storage instead of copying: the view joins the
 * storage group of its source, at a byte offset from the group's base, and its node emits a
 * VIEW (no work at run time). The group's lifetime is then the union of the lifetimes of the
 * source and all its views, transitively, because every view is a member with its own
 * intervals, and every later decision (coalescing of HOP results and carried values, method
 * outputs, state updated in place, windows) looks at the whole group.
 *
 * Where a view would be unsafe or not representable, the call keeps its copy kernel:
 *  - the source is a mutable buffer (copy_ may rewrite its bytes while the view is live);
 *  - the source is a slice of a stacked value (a scanned input read in place, a window);
 *  - the view would start inside a caller's input buffer at an offset other than 0 (caller
 *    buffers have no offset), or at an arena offset that is not a multiple of the method's
 *    alignment (every planned arena offset is: kernels may rely on it);
 *  - the `regions` baseline (ExecuTorch's scheme plans each body on its own: it stays as is).
 * The rules that keep in-place writers away from views are in coalesce.c: a hand-over is
 * coalesced only when the body result's view root is computed by the body and the result
 * sits at the group's base (a view of a parameter, an outer value, a constant or an input is
 * copied like a pass-through); a per-step output or a buffer's new value is written in place
 * only when its group has no views; a method output is planned in place only when every
 * member of its group sits at the base. The verifier and the sanitizer check the result
 * independently.
 *
 * Joins (a Concat done in place, the same rule the other way round): when every dim of a
 * Concat's output before the axis is 1, each part's bytes are one contiguous run of the
 * output's, so each part can be produced directly in its slot. The part then joins the
 * output's storage group at its slot's byte offset (the output is the root, at 0), and the
 * Concat emits a JOIN (no work). Only where nothing else could move the bytes: the output is
 * a plain arena value of the top-level graph (not a method result, not a buffer or a window),
 * and each part is a distinct, non-empty value computed there by a kernel call that is not a
 * view, alone in its storage group when the Concat is reached (no views of it yet, in no
 * other join), read by kernel calls only (no HOP, body, copy_ or assert reads it), not
 * computed from constants alone (hoist.c would otherwise run its producer once, in the hoist
 * region), and starts at a multiple of the arena's alignment. The group then lives from the
 * first part's definition to the output's last use, which can raise the arena's peak: plan.c
 * plans a method with and without joins (BERTH_CONCAT_AUTO) and keeps the smaller arena. */
#include "lower_ctx.h"

#include <stdlib.h>

int32_t lctx_view_root(const lctx_t *c, int32_t v) {
  v = lctx_resolve(c, v);
  while (v >= 0 && c->vals[v].view_src >= 0) v = lctx_resolve(c, c->vals[v].view_src);
  return v;
}

uint64_t lctx_group_bytes(lctx_t *c, int32_t v) {
  int32_t root = lctx_group(c, v), x = root;
  uint64_t most = 0;
  do {
    uint64_t end = c->vals[x].voff + berth_type_bytes(&c->vals[x].type);
    if (end > most) most = end;
    x = c->vals[x].next;
  } while (x != root);
  return most;
}

bool lctx_group_at_base(lctx_t *c, int32_t v) {
  int32_t root = lctx_group(c, v), x = root;
  do {
    if (c->vals[x].voff != 0) return false;
    x = c->vals[x].next;
  } while (x != root);
  return true;
}

/* Whether node ni's output may be a view of its operand; *voff: its offset in the group. */
static bool view_allowed(lctx_t *c, int32_t ni, uint64_t *voff) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  if (berth_op_get(n->op)->kind != BERTH_OPKIND_KERNEL || n->n_in != 1 || n->n_out != 1) return false;
  const berth_type_t *x = &c->m->values[n->in[0]].type;
  uint64_t off;
  if (!berth_op_view_offset(n->op, n->attrs, x, &off)) return false;
  if (c->m->values[n->out[0]].type.dtype != x->dtype) return false;
  int32_t src = lctx_resolve(c, n->in[0]);
  const lval_t *s = &c->vals[src], *r = &c->vals[lctx_group(c, src)];
  if (s->cls == LV_STATE || s->cls == LV_WINDOW || r->cls == LV_STATE || r->cls == LV_WINDOW) return false;
  *voff = s->voff + off;
  if (r->cls == LV_INPUT || r->cls == LV_OUTPUT) return *voff == 0;
  return r->cls == LV_CONST || *voff % c->opt->alignment == 0;
}

/* What the join rules need to know about IR values beyond the lowered ones. */
typedef struct join_facts {
  bool *cf_read; /* read by control flow: a HOP operand, read inside a body, a body's or the
                    method's result, or read by anything but a kernel call */
  bool *konst;   /* computed from constants alone by top-level kernel calls (hoist.c may move
                    its producer to the once-stream, which a join's part cannot join) */
} join_facts_t;

static void mark_cf_reads(const lctx_t *c, bool *cf_read) {
  const berth_ir_method_t *m = c->m;
  for (int32_t ni = 0; ni < m->n_nodes; ni++) {
    const berth_ir_node_t *n = &m->nodes[ni];
    if (n->graph == m->body && berth_op_get(n->op)->kind == BERTH_OPKIND_KERNEL) continue;
    for (int32_t k = 0; k < n->n_in; k++) cf_read[n->in[k]] = true;
  }
  for (int32_t g = 0; g < m->n_graphs; g++)
    for (int32_t k = 0; k < m->graphs[g].n_results; k++) cf_read[m->graphs[g].results[k]] = true;
}

/* Whether lowered value v can be a join's part: a plain arena value of the top-level graph,
 * computed by a kernel call that is not a view, alone in its storage group (no views of it
 * yet, in no other join), read by kernel calls only, not computed from constants alone, and
 * not empty. */
static bool join_part_ok(lctx_t *c, const join_facts_t *f, int32_t v) {
  const lval_t *x = &c->vals[v];
  if (lctx_resolve(c, v) != v || x->alias >= 0 || x->ir < 0 || f->cf_read[v] || (c->opt->hoist && f->konst[v]))
    return false;
  const berth_ir_value_t *iv = &c->m->values[v];
  if (iv->kind != BERTH_IR_NODE || iv->graph != c->m->body) return false;
  if (berth_op_get(c->m->nodes[iv->node].op)->kind != BERTH_OPKIND_KERNEL) return false;
  return x->cls == LV_ARENA && !x->is_input && !x->is_output && x->view_src < 0 && x->snap_src < 0 &&
         !x->is_carried && !x->has_views && !x->has_windows && lctx_group(c, v) == v && x->next == v &&
         berth_type_bytes(&x->type) > 0;
}

/* Whether Concat node ni can be done in place (a JOIN): its output is a plain arena value of
 * the top-level graph that no control flow reads, every dim before the axis is 1 (so each
 * part's slot is one contiguous run of the output's bytes), and every part qualifies
 * (join_part_ok), appears once, and starts at a multiple of the arena's alignment. */
static bool join_allowed(lctx_t *c, const join_facts_t *f, int32_t ni) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  if (n->op != BERTH_OP_CONCAT || n->graph != c->m->body || n->n_out != 1 || n->n_in < 1) return false;
  int32_t o = n->out[0];
  const lval_t *y = &c->vals[o];
  if (lctx_resolve(c, o) != o || f->cf_read[o] || y->cls != LV_ARENA || y->is_input || y->is_output ||
      y->view_src >= 0 || lctx_group(c, o) != o || y->next != o)
    return false;
  const berth_type_t *t = &y->type;
  int64_t axis = n->attrs[0].i < 0 ? n->attrs[0].i + t->rank : n->attrs[0].i;
  if (axis < 0 || axis >= t->rank) return false;
  for (int64_t k = 0; k < axis; k++)
    if (t->dims[k] != 1) return false;
  uint64_t at = 0;
  for (int32_t k = 0; k < n->n_in; k++) {
    int32_t p = n->in[k];
    if (!join_part_ok(c, f, p) || at % c->opt->alignment != 0) return false;
    for (int32_t j = 0; j < k; j++)
      if (n->in[j] == p) return false;
    at += berth_type_bytes(&c->vals[p].type);
  }
  return at == berth_type_bytes(t);
}

/* Places the parts of Concat node ni in their slots of its output: each joins the output's
 * storage group at its byte offset, so its producer writes it in place. */
static void join_parts(lctx_t *c, int32_t ni) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  int32_t o = n->out[0];
  uint64_t at = 0;
  lctx_add_iv(c, o, c->def_pos[o], c->last_pos[o]);
  for (int32_t k = 0; k < n->n_in; k++) {
    int32_t p = n->in[k];
    c->vals[p].voff = at;
    at += berth_type_bytes(&c->vals[p].type);
    lctx_add_iv(c, p, c->def_pos[p], c->last_pos[p]);
    lctx_group_merge(c, o, p); /* the output stays the group's root */
  }
  c->vals[o].is_join = true;
  c->vals[o].has_views = true; /* members off the base: the rules for views apply (coalesce.c) */
  c->joins++;
}

/* Whether kernel node ni computes from constants alone (top level only). */
static void note_konst(const lctx_t *c, const join_facts_t *f, const berth_ir_node_t *n) {
  if (n->graph != c->m->body || berth_op_get(n->op)->kind != BERTH_OPKIND_KERNEL) return;
  bool all = true;
  for (int32_t k = 0; k < n->n_in && all; k++) {
    const berth_ir_value_t *iv = &c->m->values[n->in[k]];
    all = iv->kind == BERTH_IR_CONST || f->konst[n->in[k]];
  }
  for (int32_t k = 0; k < n->n_out; k++) f->konst[n->out[k]] = all;
}

/* Decides the views and joins of graph g in definition order (a HOP's bodies where the HOP
 * stands), so a view's source, when it is a view itself, is decided first, and a join's parts
 * are decided before their Concat. */
static void decide_graph_views(lctx_t *c, const join_facts_t *f, int32_t g) {
  const berth_ir_graph_t *graph = &c->m->graphs[g];
  for (int32_t i = 0; i < graph->n_nodes; i++) {
    int32_t ni = graph->nodes[i];
    const berth_ir_node_t *n = &c->m->nodes[ni];
    for (int32_t b = 0; b < n->n_graphs; b++) decide_graph_views(c, f, n->graphs[b]);
    note_konst(c, f, n);
    if (f->cf_read && join_allowed(c, f, ni)) {
      join_parts(c, ni);
      continue;
    }
    if (!c->opt->views) continue;
    uint64_t voff;
    if (!view_allowed(c, ni, &voff)) continue;
    int32_t v = n->out[0], src = lctx_resolve(c, n->in[0]);
    lval_t *x = &c->vals[v];
    x->view_src = src;
    x->voff = voff;
    lctx_add_iv(c, v, c->def_pos[v], c->last_pos[v]);
    lctx_group_merge(c, src, v); /* the source's root keeps the group's storage class */
    c->vals[lctx_group(c, src)].has_views = true;
  }
}

berth_status_t berth_views_decide(lctx_t *c) {
  if (c->opt->strategy == BERTH_STRATEGY_REGIONS || (!c->opt->views && c->opt->concat_in_place == BERTH_CONCAT_COPY))
    return BERTH_OK;
  join_facts_t f = {NULL, NULL};
  size_t n = (size_t)c->m->n_values;
  f.konst = calloc(n ? n : 1, sizeof *f.konst);
  if (!f.konst) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (c->opt->concat_in_place != BERTH_CONCAT_COPY) {
    f.cf_read = calloc(n ? n : 1, sizeof *f.cf_read);
    if (!f.cf_read) {
      free(f.konst);
      return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    }
    mark_cf_reads(c, f.cf_read);
  }
  decide_graph_views(c, &f, c->m->body);
  free(f.cf_read);
  free(f.konst);
  return BERTH_OK;
}
