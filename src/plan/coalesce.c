/* Storage groups: destination passing of HOP results (DESIGN rules 5 and 6).
 *
 * Every lowered value starts in its own group. HOPs are decided inner first, so a nested
 * HOP's result group can be coalesced further out. A body result joins the HOP result's
 * group (a RENAME at the hand-over, no bytes move) only when it is a value the body itself
 * computed, not returned twice, and the two groups are never live at the same time; the
 * last test is what makes a loop's new carried value coalescable only if every read of the
 * old value comes before it is written. Otherwise the hand-over is a COPY. Per-step outputs
 * of scan and map are written in place into their slice of the stacked result (a window)
 * under the same conditions.
 *
 * Every choice is decided, then applied: the deciding functions (*_ok, handover_ok,
 * group_is_plain, reads_first) take the context read-only; a choice that depends on a
 * lifetime not applied yet (a carried value's renamed form) asks about that lifetime on a
 * copy (lctx_groups_conflict_as). Only then are groups merged and lifetimes extended. */
#include "lower_ctx.h"

#include <stdlib.h>
#include <string.h>

int64_t lctx_handover_index(const lctx_t *c, int32_t node, int32_t body, int32_t result) {
  const berth_ir_node_t *n = &c->m->nodes[node];
  int32_t width = n->n_out > 0 ? n->n_out : 1;
  return c->ho_base[node] + (int64_t)body * width + result;
}

/* True if value v (resolved) is a value computed by a node of graph g, and is not an
 * earlier result of the same body (returned twice). */
static bool computed_in(const lctx_t *c, int32_t v, int32_t g, const berth_ir_graph_t *body, int32_t index) {
  const lval_t *x = &c->vals[v];
  if (x->ir < 0 || c->m->values[x->ir].kind != BERTH_IR_NODE || x->graph != g) return false;
  for (int32_t j = 0; j < index; j++)
    if (lctx_resolve(c, body->results[j]) == v) return false;
  return true;
}

/* True if body result v (resolved) may be coalesced with the storage it is handed to: its view
 * root (v itself when v is no view) is computed by graph g and is the root of no earlier
 * result of the body, and v sits at its group's base. A view of a parameter, an outer value, a
 * constant or an input is a pass-through: copied (views.c). */
static bool handover_ok(const lctx_t *c, int32_t v, int32_t g, const berth_ir_graph_t *body, int32_t index) {
  int32_t root = lctx_view_root(c, v);
  const lval_t *x = &c->vals[root];
  if (c->vals[v].voff != 0 || x->ir < 0 || c->m->values[x->ir].kind != BERTH_IR_NODE || x->graph != g) return false;
  for (int32_t j = 0; j < index; j++)
    if (lctx_view_root(c, body->results[j]) == root) return false;
  return true;
}

static bool group_is_plain(const lctx_t *c, int32_t v) {
  const lval_t *r = &c->vals[lctx_group_find(c, v)];
  return r->cls == LV_ARENA && !r->is_input && !r->is_output;
}

/* Whether cond node ni's body b (graph g) hands result i (resolved br) over by a RENAME into
 * the HOP result R: a value the body computed, a plain group, and (global) never live with
 * R's group; the regions baseline renames the then-branch's results only. */
static bool cond_rename_ok(const lctx_t *c, int32_t b, int32_t g, int32_t i, int32_t br, int32_t R) {
  const berth_ir_graph_t *body = &c->m->graphs[g];
  bool regions = c->opt->strategy == BERTH_STRATEGY_REGIONS;
  return handover_ok(c, br, g, body, i) && group_is_plain(c, br) && (!regions || b == 0) &&
         (regions || !lctx_groups_conflict_as(c, br, R, -1, NULL));
}

static void decide_cond(lctx_t *c, int32_t ni) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  const hop_pos_t *h = &c->hop[ni];
  for (int32_t i = 0; i < n->n_out; i++) lctx_add_iv(c, n->out[i], c->def_pos[n->out[i]], c->last_pos[n->out[i]]);
  for (int32_t b = 0; b < 2; b++) {
    const berth_ir_graph_t *g = &c->m->graphs[n->graphs[b]];
    for (int32_t i = 0; i < g->n_params; i++) {
      int32_t p = g->params[i];
      if (c->vals[p].snap_src >= 0) lctx_add_iv(c, p, h->ts, c->last_pos[p] > h->ts ? c->last_pos[p] : h->ts);
    }
  }
  for (int32_t b = 0; b < 2; b++) {
    int32_t g = n->graphs[b];
    const berth_ir_graph_t *body = &c->m->graphs[g];
    for (int32_t i = 0; i < n->n_out; i++) {
      int32_t R = n->out[i], br = lctx_resolve(c, body->results[i]);
      int64_t k = lctx_handover_index(c, ni, b, i);
      bool regions = c->opt->strategy == BERTH_STRATEGY_REGIONS;
      if (cond_rename_ok(c, b, g, i, br, R)) {
        lctx_group_merge(c, R, br);
        c->handover[k] = HANDOVER_RENAME;
      } else {
        c->handover[k] = HANDOVER_COPY;
        lctx_add_iv(c, R, h->th[b], h->th[b] + 1); /* written at the hand-over, kept over the jump */
        /* ExecuTorch materialises the then-branch's output in the branch's own region (a
         * clone there) and points the parent at it */
        if (regions && b == 0 && group_is_plain(c, R)) {
          c->vals[R].regions_home = g;
          c->vals[R].regions_iv = (iv_t){h->th[b], h->th[b] + 1};
        }
      }
    }
  }
}

/* Whether loop node ni (body gb) hands carried value k over by a RENAME: the new value cv
 * (resolved, not the parameter p itself) is one the body computed, its group is plain, and
 * it is never live with the carried storage in its renamed form, which is free from the new
 * value's definition to the hand-over (p's lifetime plus (th0, te], asked on a copy). */
static bool carried_rename_ok(const lctx_t *c, int32_t ni, int32_t gb, int32_t k, int32_t p, int32_t cv) {
  const hop_pos_t *h = &c->hop[ni];
  if (c->opt->strategy != BERTH_STRATEGY_GLOBAL || !handover_ok(c, cv, gb, &c->m->graphs[gb], k) ||
      !group_is_plain(c, cv))
    return false;
  lval_t renamed = c->vals[p];
  lval_add_iv(&renamed, h->th[0] + 1, h->te);
  return !lctx_groups_conflict_as(c, cv, p, p, &renamed);
}

/* while_loop and scan: carried values. */
static berth_status_t decide_carried(lctx_t *c, int32_t ni, int32_t gb, int32_t n_carry) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  const hop_pos_t *h = &c->hop[ni];
  const berth_ir_graph_t *body = &c->m->graphs[gb];
  for (int32_t k = 0; k < n_carry; k++) {
    int32_t p = body->params[k], r = n->out[k];
    int64_t last = c->last_pos[p] > h->tjf ? c->last_pos[p] : h->tjf;
    lctx_add_iv(c, p, h->ts, last);
    lctx_add_iv(c, r, c->def_pos[r], c->last_pos[r]);
    lctx_group_merge(c, p, r); /* the result is the carried storage after the loop */
  }
  for (int32_t k = 0; k < n_carry; k++) {
    int32_t p = body->params[k], cv = lctx_resolve(c, body->results[k]);
    int64_t idx = lctx_handover_index(c, ni, 0, k);
    c->ho_value[idx] = -1;
    if (cv == p) {
      c->handover[idx] = HANDOVER_NONE;
      lctx_add_iv(c, p, h->th[0], h->te);
      continue;
    }
    if (carried_rename_ok(c, ni, gb, k, p, cv)) {
      lctx_add_iv(c, p, h->th[0] + 1, h->te); /* the renamed form */
      lctx_group_merge(c, p, cv);
      c->handover[idx] = HANDOVER_RENAME;
      continue;
    }
    lctx_add_iv(c, p, h->th[0], h->te); /* copied at the hand-over: live up to it */
    c->handover[idx] = HANDOVER_COPY;
    /* the source is another carried value of this loop (or a view of one): it may be
     * overwritten by its own hand-over, so it goes through a temporary first */
    for (int32_t j = 0; j < n_carry; j++) {
      if (j != k && body->params[j] == lctx_view_root(c, cv)) {
        int32_t t = lctx_new_value(c, c->vals[cv].name, &c->vals[cv].type, gb);
        if (t < 0) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
        lctx_add_iv(c, t, h->th[0], h->th[0]);
        c->ho_value[idx] = t;
        break;
      }
    }
  }
  return BERTH_OK;
}

/* Whether per-step output j (resolved y) of a scan/map with body gb is written in place into
 * its window of the stacked result: computed by the body, returned once, a plain group with
 * no windows and no views (a window slice has one offset and size). */
static bool step_in_place_ok(const lctx_t *c, int32_t gb, int32_t j, int32_t y) {
  const lval_t *r = &c->vals[lctx_group_find(c, y)];
  return computed_in(c, y, gb, &c->m->graphs[gb], j) && group_is_plain(c, y) && !r->has_windows && !r->has_views;
}

/* scan and map: per-step outputs into windows of the stacked results, and the sources of
 * the scanned inputs. */
static berth_status_t decide_steps(lctx_t *c, int32_t ni, int32_t n_carry, int32_t first_x, int32_t n_x) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  const hop_pos_t *h = &c->hop[ni];
  int32_t gb = n->graphs[0];
  const berth_ir_graph_t *body = &c->m->graphs[gb];
  for (int32_t j = n_carry; j < n->n_out; j++) {
    int32_t ys = n->out[j], y = lctx_resolve(c, body->results[j]);
    lctx_add_iv(c, ys, h->ts, c->last_pos[ys] > h->te ? c->last_pos[ys] : h->te);
    int64_t idx = lctx_handover_index(c, ni, 0, j);
    int64_t stride = (int64_t)berth_type_bytes(&c->vals[y].type);
    if (step_in_place_ok(c, gb, j, y)) {
      lval_t *r = &c->vals[lctx_group(c, y)];
      r->cls = LV_WINDOW;
      r->win_parent = ys;
      r->win_reg = h->reg;
      r->win_stride = stride;
      c->vals[lctx_group(c, ys)].has_windows = true;
      c->handover[idx] = HANDOVER_WINDOW;
      c->ho_value[idx] = -1;
    } else {
      int32_t w = lctx_new_value(c, c->vals[ys].name, &c->vals[y].type, gb);
      if (w < 0) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
      c->vals[w].cls = LV_WINDOW;
      c->vals[w].win_parent = ys;
      c->vals[w].win_reg = h->reg;
      c->vals[w].win_stride = stride;
      c->vals[lctx_group(c, ys)].has_windows = true;
      c->handover[idx] = HANDOVER_COPY;
      c->ho_value[idx] = w;
    }
  }
  /* invariant arguments bound to a mutable buffer are copied at the start */
  for (int32_t i = n_carry + n_x; i < body->n_params; i++)
    if (c->vals[body->params[i]].snap_src >= 0) lctx_add_iv(c, body->params[i], h->ts, h->te);
  /* scanned inputs are read in place unless they are themselves a window, or a mutable
   * buffer (which the body may change while it is being scanned) */
  for (int32_t i = 0; i < n_x; i++) {
    int32_t xs = lctx_resolve(c, n->in[first_x + i]);
    int32_t param = body->params[n_carry + i];
    int32_t src = xs;
    if (c->vals[xs].cls == LV_WINDOW || c->vals[lctx_group(c, xs)].cls == LV_WINDOW || c->vals[xs].cls == LV_STATE) {
      src = lctx_new_value(c, c->vals[xs].name, &c->vals[xs].type, n->graph);
      if (src < 0) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
      lctx_add_iv(c, src, h->ts, h->te);
      c->x_copy[c->x_copy_base[ni] + i] = src;
    }
    c->vals[param].win_parent = src;
    c->vals[lctx_group(c, src)].has_windows = true;
  }
  return BERTH_OK;
}

static berth_status_t decide_graph(lctx_t *c, int32_t g) {
  const berth_ir_graph_t *graph = &c->m->graphs[g];
  for (int32_t i = 0; i < graph->n_nodes; i++) {
    int32_t ni = graph->nodes[i];
    const berth_ir_node_t *n = &c->m->nodes[ni];
    berth_op_kind_t kind = berth_op_get(n->op)->kind;
    berth_status_t st = BERTH_OK;
    for (int32_t b = 0; b < n->n_graphs && !st; b++) st = decide_graph(c, n->graphs[b]);
    if (st) return st;
    switch (kind) {
      case BERTH_OPKIND_KERNEL:
        for (int32_t o = 0; o < n->n_out; o++) lctx_add_iv(c, n->out[o], c->def_pos[n->out[o]], c->last_pos[n->out[o]]);
        break;
      case BERTH_OPKIND_COND: decide_cond(c, ni); break;
      case BERTH_OPKIND_WHILE_LOOP: st = decide_carried(c, ni, n->graphs[1], n->n_in); break;
      case BERTH_OPKIND_SCAN: {
        int32_t n_carry = (int32_t)n->attrs[0].i;
        st = decide_carried(c, ni, n->graphs[0], n_carry);
        if (!st) st = decide_steps(c, ni, n_carry, n_carry, n->n_in - n_carry);
        break;
      }
      case BERTH_OPKIND_MAP: st = decide_steps(c, ni, 0, 0, (int32_t)n->attrs[0].i); break;
      case BERTH_OPKIND_COPY_:
      case BERTH_OPKIND_ASSERT: break;
    }
    if (st) return st;
  }
  return BERTH_OK;
}

/* ==== mutable buffers updated in place ==================================================
 * copy_(@buf, v) in the method body: when v is a value the method computes (a kernel or HOP
 * result whose group is plain) and every read of @buf comes before v's group is first
 * written, the group is planned in the buffer's own bytes, so the kernels write the new
 * state in place and the copy_ becomes a RENAME (destination passing, as for HOP results).
 * The verifier checks it like any hand-over: a read of the old state after the new one is
 * written would be reached by the wrong definition. */

/* True if positions a and b lie in the two exclusive bodies of one cond (then: up to its
 * hand-over at th[0] + 1; else: from th[0] + 2 to its hand-over at th[1] + 1). */
static bool exclusive(const lctx_t *c, int64_t a, int64_t b) {
  for (int32_t ni = 0; ni < c->m->n_nodes; ni++) {
    if (berth_op_get(c->m->nodes[ni].op)->kind != BERTH_OPKIND_COND) continue;
    const hop_pos_t *h = &c->hop[ni];
    bool a_then = a > h->ts && a < h->th[0] + 2, a_else = a >= h->th[0] + 2 && a < h->th[1] + 2;
    bool b_then = b > h->ts && b < h->th[0] + 2, b_else = b >= h->th[0] + 2 && b < h->th[1] + 2;
    if ((a_then && b_else) || (a_else && b_then)) return true;
  }
  return false;
}

/* True if a read of buffer s at position r may come after group `root` first writes its
 * bytes (an interval of a member that starts at or before r, not in the other branch of a
 * cond). */
static bool read_clobbered(const lctx_t *c, int32_t root, int64_t r) {
  int32_t x = root;
  do {
    const lval_t *X = &c->vals[x];
    for (int32_t k = 0; k < X->n_ivs; k++)
      if (X->ivs[k].lo <= r && !exclusive(c, X->ivs[k].lo, r)) return true;
    x = X->next;
  } while (x != root);
  return false;
}

/* True if every read of value s (a buffer), other than by copy_ node `skip` (which writes
 * it), happens before group `root` writes the buffer's bytes, and no other copy_ writes s. */
static bool reads_first(const lctx_t *c, int32_t s, int32_t skip, int32_t root) {
  const berth_ir_method_t *m = c->m;
  for (int32_t ni = 0; ni < m->n_nodes; ni++) {
    const berth_ir_node_t *n = &m->nodes[ni];
    berth_op_kind_t kind = berth_op_get(n->op)->kind;
    for (int32_t k = 0; k < n->n_in; k++) {
      if (lctx_resolve(c, n->in[k]) != s || (ni == skip && k == 0)) continue;
      if (kind == BERTH_OPKIND_COPY_ && k == 0) return false; /* another copy_ writes it */
      /* a HOP operand: read anywhere in the HOP's span */
      int64_t at = (kind == BERTH_OPKIND_KERNEL || kind == BERTH_OPKIND_COPY_ || kind == BERTH_OPKIND_ASSERT)
                       ? c->node_pos[ni] : c->hop[ni].te;
      if (read_clobbered(c, root, at)) return false;
    }
  }
  for (int32_t g = 0; g < m->n_graphs; g++) {
    const berth_ir_graph_t *gr = &m->graphs[g];
    for (int32_t k = 0; k < gr->n_results; k++) {
      if (lctx_resolve(c, gr->results[k]) != s) continue;
      int64_t at = gr->parent_node < 0 ? c->t_ret : c->hop[gr->parent_node].te;
      if (read_clobbered(c, root, at)) return false;
    }
  }
  return true;
}

/* Whether copy_ node ni (of buffer s, from the method's value v, both resolved) is done in
 * place: v's group is planned in the buffer's bytes. */
static bool state_in_place_ok(const lctx_t *c, int32_t ni, int32_t s, int32_t v) {
  const berth_ir_method_t *m = c->m;
  const berth_ir_graph_t *body = &m->graphs[m->body];
  if (c->vals[s].cls != LV_STATE || c->vals[v].ir < 0 || m->values[c->vals[v].ir].kind != BERTH_IR_NODE ||
      !group_is_plain(c, v))
    return false;
  int32_t root = lctx_group_find(c, v);
  const lval_t *r = &c->vals[root];
  if (r->has_windows || r->is_carried || r->has_views) return false; /* views: see views.c */
  /* the group's bytes are first written at `first`; after the RENAME they are the
   * buffer's, so no member may be read after the copy_ (a method result would be) */
  int64_t first = INT64_MAX, at = c->node_pos[ni];
  int32_t x = root;
  do {
    const lval_t *X = &c->vals[x];
    if (X->is_carried || X->snap_src >= 0 || X->cls != LV_ARENA) return false;
    for (int32_t k = 0; k < X->n_ivs; k++) {
      if (X->ivs[k].lo < first) first = X->ivs[k].lo;
      if (X->ivs[k].hi > at) return false;
    }
    x = X->next;
  } while (x != root);
  for (int32_t k = 0; k < body->n_results; k++)
    if (lctx_group_find(c, lctx_resolve(c, body->results[k])) == root) return false;
  /* a call that fails an assert between the two leaves the buffer as it was */
  for (int32_t a = 0; a < m->n_nodes; a++)
    if (berth_op_get(m->nodes[a].op)->kind == BERTH_OPKIND_ASSERT && c->node_pos[a] >= first && c->node_pos[a] < at)
      return false;
  return first != INT64_MAX && reads_first(c, s, ni, root);
}

static void state_in_place(lctx_t *c) {
  const berth_ir_method_t *m = c->m;
  const berth_ir_graph_t *body = &m->graphs[m->body];
  for (int32_t i = 0; i < body->n_nodes; i++) {
    int32_t ni = body->nodes[i];
    const berth_ir_node_t *n = &m->nodes[ni];
    if (berth_op_get(n->op)->kind != BERTH_OPKIND_COPY_ || c->opt->strategy == BERTH_STRATEGY_REGIONS) continue;
    int32_t s = lctx_resolve(c, n->in[0]), v = lctx_resolve(c, n->in[1]);
    if (!state_in_place_ok(c, ni, s, v)) continue;
    int32_t root = lctx_group(c, v);
    c->vals[root].cls = LV_STATE;
    c->vals[root].global = c->vals[s].global;
    c->state_in_place++;
  }
}

berth_status_t berth_coalesce(lctx_t *c) {
  const berth_ir_method_t *m = c->m;
  size_t nn = (size_t)(m->n_nodes ? m->n_nodes : 1);
  c->ho_base = calloc(nn, sizeof *c->ho_base);
  c->x_copy_base = calloc(nn, sizeof *c->x_copy_base);
  if (!c->ho_base || !c->x_copy_base) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t total = 0, total_x = 0;
  for (int32_t ni = 0; ni < m->n_nodes; ni++) {
    c->ho_base[ni] = total;
    total += 2 * (int64_t)(m->nodes[ni].n_out > 0 ? m->nodes[ni].n_out : 1);
    c->x_copy_base[ni] = total_x;
    total_x += m->nodes[ni].n_in;
  }
  c->n_handovers = total;
  c->handover = calloc((size_t)(total ? total : 1), sizeof *c->handover);
  c->ho_value = malloc((size_t)(total ? total : 1) * sizeof *c->ho_value);
  c->x_copy = malloc((size_t)(total_x ? total_x : 1) * sizeof *c->x_copy);
  const berth_ir_graph_t *body = &m->graphs[m->body];
  c->out_value = malloc((size_t)(body->n_results ? body->n_results : 1) * sizeof *c->out_value);
  c->out_copy = malloc((size_t)(body->n_results ? body->n_results : 1) * sizeof *c->out_copy);
  if (!c->handover || !c->ho_value || !c->x_copy || !c->out_value || !c->out_copy)
    return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; i < total; i++) c->ho_value[i] = -1;
  for (int64_t i = 0; i < total_x; i++) c->x_copy[i] = -1;

  /* method inputs live from the entry */
  for (int32_t k = 0; k < body->n_params; k++) {
    int32_t v = body->params[k];
    lctx_add_iv(c, v, 0, c->last_pos[v]);
  }
  berth_status_t st = decide_graph(c, m->body);
  if (st) return st;
  state_in_place(c);

  /* method results: written in place into their output storage when the value is computed
   * by the method body itself and returned once; otherwise copied at the return */
  for (int32_t k = 0; k < body->n_results; k++) {
    int32_t v = lctx_resolve(c, body->results[k]);
    c->out_value[k] = -1;
    c->out_copy[k] = -1;
    /* in place only when the output's bytes are the whole group, every member at its base
     * (a caller's output buffer has no offsets) */
    if (handover_ok(c, v, m->body, body, k) && group_is_plain(c, v) && lctx_group_at_base(c, v) &&
        lctx_group_bytes(c, v) == berth_type_bytes(&c->vals[v].type)) {
      lval_t *r = &c->vals[lctx_group(c, v)];
      r->is_output = true;
      r->io_index = k;
      if (!c->alloc_outputs) r->cls = LV_OUTPUT;
      c->out_value[k] = v;
    } else {
      int32_t o = lctx_new_value(c, c->vals[v].name, &c->vals[v].type, m->body);
      if (o < 0) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
      lval_t *x = &c->vals[o];
      x->is_output = true;
      x->io_index = k;
      x->cls = c->alloc_outputs ? LV_ARENA : LV_OUTPUT;
      lctx_add_iv(c, o, c->t_ret, c->t_ret);
      c->out_copy[k] = o;
    }
  }
  return BERTH_OK;
}
