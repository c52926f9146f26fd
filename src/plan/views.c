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
 * independently. */
#include "lower_ctx.h"

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

/* Decides the views of graph g in definition order (a HOP's bodies where the HOP stands), so
 * a view's source, when it is a view itself, is decided first. */
static void decide_graph_views(lctx_t *c, int32_t g) {
  const berth_ir_graph_t *graph = &c->m->graphs[g];
  for (int32_t i = 0; i < graph->n_nodes; i++) {
    int32_t ni = graph->nodes[i];
    const berth_ir_node_t *n = &c->m->nodes[ni];
    for (int32_t b = 0; b < n->n_graphs; b++) decide_graph_views(c, n->graphs[b]);
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
  if (c->opt->strategy != BERTH_STRATEGY_REGIONS && c->opt->views) decide_graph_views(c, c->m->body);
  return BERTH_OK;
}
