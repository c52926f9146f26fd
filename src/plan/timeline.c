/* The timeline: one sequence of positions per method across every nested graph, and the
 * lifetime of every value on it (DESIGN rule 3).
 *
 * Layout of positions (each HOP's bodies sit inside its own span):
 *   kernel, copy_     one position
 *   cond              ts (test) | then ... | th0, th0+1 (hand-over, jump) | else ... |
 *                     th1, th1+1 | te (results defined)
 *   while_loop        ts (initial copies) | cond ... | tjf (test) | body ... | th0, th0+1 | te
 *   scan, map         ts (initial copies) | body ... | th0, th0+1 | te
 * Position 0 is the method entry (inputs defined) and t_ret its return.
 *
 * A use of v at position t inside graph g counts, in v's own graph, at the end of the
 * outermost HOP (in v's graph) that contains g: a value used by a body is live for the
 * whole HOP span, so loops keep outer values across iterations. */
#include "lower_ctx.h"

#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

int32_t lctx_new_value(lctx_t *c, const char *name_in, const berth_type_t *type_in, int32_t graph) {
  /* name_in and type_in may point into c->vals, which the growth below can move */
  berth_type_t type_copy = *type_in;
  const berth_type_t *type = &type_copy;
  char *name = dup_str(name_in);
  if (!name) return -1;
  if (c->n_vals == c->cap_vals) {
    int32_t nc = c->cap_vals ? c->cap_vals * 2 : 64;
    lval_t *nv = realloc(c->vals, (size_t)nc * sizeof *nv);
    if (!nv) {
      free(name);
      return -1;
    }
    c->vals = nv;
    c->cap_vals = nc;
  }
  int32_t id = c->n_vals;
  lval_t *v = &c->vals[id];
  memset(v, 0, sizeof *v);
  v->name = name;
  v->type = *type;
  v->ir = -1;
  v->alias = -1;
  v->graph = graph;
  v->cls = LV_ARENA;
  v->global = -1;
  v->io_index = -1;
  v->win_parent = -1;
  v->win_reg = -1;
  v->op = -1;
  v->parent = id;
  v->next = id;
  v->carried_cond_g = -1;
  v->regions_home = -1;
  v->snap_src = -1;
  v->snap_node = -1;
  v->view_src = -1;
  c->n_vals++;
  return id;
}

int32_t lctx_resolve(const lctx_t *c, int32_t v) {
  while (v >= 0 && c->vals[v].alias >= 0) v = c->vals[v].alias;
  return v;
}

void lval_add_iv(lval_t *x, int64_t lo, int64_t hi) {
  for (int32_t i = 0; i < x->n_ivs; i++) {
    /* extend an interval that touches or overlaps */
    if (lo <= x->ivs[i].hi + 1 && hi + 1 >= x->ivs[i].lo) {
      if (lo < x->ivs[i].lo) x->ivs[i].lo = lo;
      if (hi > x->ivs[i].hi) x->ivs[i].hi = hi;
      return;
    }
  }
  if (x->n_ivs < LV_MAX_IVS) {
    x->ivs[x->n_ivs].lo = lo;
    x->ivs[x->n_ivs].hi = hi;
    x->n_ivs++;
  } else {
    /* out of slots: widen the last interval (conservative, still correct) */
    iv_t *l = &x->ivs[x->n_ivs - 1];
    if (lo < l->lo) l->lo = lo;
    if (hi > l->hi) l->hi = hi;
  }
}

void lctx_add_iv(lctx_t *c, int32_t v, int64_t lo, int64_t hi) { lval_add_iv(&c->vals[v], lo, hi); }

int32_t lctx_group(lctx_t *c, int32_t v) {
  while (c->vals[v].parent != v) {
    c->vals[v].parent = c->vals[c->vals[v].parent].parent;
    v = c->vals[v].parent;
  }
  return v;
}

int32_t lctx_group_find(const lctx_t *c, int32_t v) {
  while (c->vals[v].parent != v) v = c->vals[v].parent;
  return v;
}

bool lctx_groups_conflict_as(const lctx_t *c, int32_t a, int32_t b, int32_t v, const lval_t *v_as) {
  a = lctx_group_find(c, a);
  b = lctx_group_find(c, b);
  if (a == b) return false;
  int32_t x = a;
  do {
    int32_t y = b;
    do {
      const lval_t *X = x == v ? v_as : &c->vals[x], *Y = y == v ? v_as : &c->vals[y];
      for (int32_t i = 0; i < X->n_ivs; i++)
        for (int32_t j = 0; j < Y->n_ivs; j++)
          if (X->ivs[i].lo <= Y->ivs[j].hi && Y->ivs[j].lo <= X->ivs[i].hi) return true;
      y = c->vals[y].next;
    } while (y != b);
    x = c->vals[x].next;
  } while (x != a);
  return false;
}

bool lctx_groups_conflict(lctx_t *c, int32_t a, int32_t b) {
  return lctx_groups_conflict_as(c, lctx_group(c, a), lctx_group(c, b), -1, NULL);
}

void lctx_group_merge(lctx_t *c, int32_t a, int32_t b) {
  a = lctx_group(c, a);
  b = lctx_group(c, b);
  if (a == b) return;
  lval_t *A = &c->vals[a], *B = &c->vals[b];
  /* the root keeps the group's properties */
  if (B->cls != LV_ARENA && A->cls == LV_ARENA) {
    A->cls = B->cls;
    A->io_index = B->io_index;
    A->win_parent = B->win_parent;
    A->win_reg = B->win_reg;
    A->win_stride = B->win_stride;
  }
  A->has_windows |= B->has_windows;
  A->has_views |= B->has_views;
  A->is_input |= B->is_input;
  A->is_output |= B->is_output;
  if (A->op < 0) A->op = B->op;
  B->parent = a;
  int32_t an = A->next;
  A->next = B->next;
  B->next = an;
}

/* ---- positions ------------------------------------------------------------------ */

static void number_graph(lctx_t *c, int32_t g, int64_t *t) {
  const berth_ir_graph_t *graph = &c->m->graphs[g];
  for (int32_t i = 0; i < graph->n_nodes; i++) {
    int32_t ni = graph->nodes[i];
    const berth_ir_node_t *n = &c->m->nodes[ni];
    hop_pos_t *h = &c->hop[ni];
    switch (berth_op_get(n->op)->kind) {
      case BERTH_OPKIND_KERNEL:
      case BERTH_OPKIND_COPY_:
      case BERTH_OPKIND_ASSERT: c->node_pos[ni] = (*t)++; break;
      case BERTH_OPKIND_COND:
        h->ts = (*t)++;
        number_graph(c, n->graphs[0], t);
        h->th[0] = *t;
        *t += 2;
        number_graph(c, n->graphs[1], t);
        h->th[1] = *t;
        *t += 2;
        h->te = (*t)++;
        break;
      case BERTH_OPKIND_WHILE_LOOP:
        h->ts = (*t)++;
        number_graph(c, n->graphs[0], t);
        h->tjf = (*t)++;
        number_graph(c, n->graphs[1], t);
        h->th[0] = *t;
        *t += 2;
        h->te = (*t)++;
        break;
      case BERTH_OPKIND_SCAN:
      case BERTH_OPKIND_MAP:
        h->ts = (*t)++;
        h->tjf = h->ts;
        h->reg = c->n_regs++;
        number_graph(c, n->graphs[0], t);
        h->th[0] = *t;
        *t += 2;
        h->te = (*t)++;
        break;
    }
    c->node_pos[ni] = c->node_pos[ni] ? c->node_pos[ni] : h->ts;
  }
}

/* ---- values --------------------------------------------------------------------- */

/* Binds body parameter v to operand `target` of HOP node ni: the same value under a second
 * name, except for a mutable buffer, whose bytes may change while v is live: then v is a
 * copy taken at the HOP's start. */
static void bind_param(lctx_t *c, int32_t ni, int32_t v, int32_t target) {
  int32_t r = lctx_resolve(c, target);
  if (r >= 0 && c->vals[r].cls == LV_STATE) {
    c->vals[v].snap_src = r;
    c->vals[v].snap_node = ni;
  } else {
    c->vals[v].alias = target;
  }
}

static void set_alias(lctx_t *c, int32_t v, int32_t target) { c->vals[v].alias = target; }

/* Creates the lowered values for the IR values and records aliases and storage classes. */
static berth_status_t make_values(lctx_t *c) {
  const berth_ir_method_t *m = c->m;
  for (int32_t v = 0; v < m->n_values; v++) {
    const berth_ir_value_t *iv = &m->values[v];
    int32_t id = lctx_new_value(c, iv->name, &iv->type, iv->graph);
    if (id != v) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    lval_t *x = &c->vals[id];
    x->ir = v;
    if (iv->kind == BERTH_IR_CONST || iv->kind == BERTH_IR_STATE) {
      x->cls = iv->kind == BERTH_IR_CONST ? LV_CONST : LV_STATE;
      x->global = iv->index;
    } else if (iv->kind == BERTH_IR_NODE) {
      x->op = (int32_t)m->nodes[iv->node].op;
    }
  }
  const berth_ir_graph_t *body = &m->graphs[m->body];
  for (int32_t k = 0; k < body->n_params; k++) {
    lval_t *x = &c->vals[body->params[k]];
    x->cls = c->alloc_inputs ? LV_ARENA : LV_INPUT;
    x->io_index = k;
    x->is_input = true;
  }
  for (int32_t ni = 0; ni < m->n_nodes; ni++) {
    const berth_ir_node_t *n = &m->nodes[ni];
    switch (berth_op_get(n->op)->kind) {
      case BERTH_OPKIND_COND:
        for (int32_t b = 0; b < 2; b++) {
          const berth_ir_graph_t *g = &m->graphs[n->graphs[b]];
          for (int32_t i = 0; i < g->n_params; i++) bind_param(c, ni, g->params[i], n->in[1 + i]);
        }
        break;
      case BERTH_OPKIND_WHILE_LOOP: {
        const berth_ir_graph_t *gc = &m->graphs[n->graphs[0]], *gb = &m->graphs[n->graphs[1]];
        for (int32_t k = 0; k < gb->n_params; k++) {
          c->vals[gb->params[k]].is_carried = true;
          c->vals[gb->params[k]].carried_cond_g = n->graphs[0];
          if (k < gc->n_params) set_alias(c, gc->params[k], gb->params[k]);
        }
        break;
      }
      case BERTH_OPKIND_SCAN:
      case BERTH_OPKIND_MAP: {
        bool scan = berth_op_get(n->op)->kind == BERTH_OPKIND_SCAN;
        const berth_ir_graph_t *gb = &m->graphs[n->graphs[0]];
        int32_t n_carry = scan ? (int32_t)n->attrs[0].i : 0;
        int32_t n_x = scan ? n->n_in - n_carry : (int32_t)n->attrs[0].i;
        for (int32_t i = 0; i < gb->n_params; i++) {
          lval_t *x = &c->vals[gb->params[i]];
          if (i < n_carry) {
            x->is_carried = true;
          } else if (i < n_carry + n_x) {
            x->cls = LV_WINDOW; /* parent chosen in coalesce.c */
            x->win_reg = c->hop[ni].reg;
            x->win_stride = (int64_t)berth_type_bytes(&x->type);
          } else {
            bind_param(c, ni, gb->params[i], n->in[i - n_carry]);
          }
        }
        break;
      }
      default: break;
    }
  }
  return BERTH_OK;
}

/* The graph in which value v is defined, for the use rule; carried values of a while
 * loop are also "defined" in the loop's cond graph (their aliases are read there). */
static bool defines_here(const lctx_t *c, int32_t v, int32_t g) {
  return c->vals[v].graph == g || (c->vals[v].is_carried && c->vals[v].carried_cond_g == g);
}

static void use(lctx_t *c, int32_t v, int32_t g, int64_t t) {
  v = lctx_resolve(c, v);
  if (v < 0 || c->vals[v].graph < 0) return; /* constants and buffers: not planned */
  while (!defines_here(c, v, g)) {
    int32_t hn = c->m->graphs[g].parent_node;
    if (hn < 0) break;
    t = c->hop[hn].te;
    g = c->m->nodes[hn].graph;
  }
  if (t > c->last_pos[v]) c->last_pos[v] = t;
}

static void record_uses(lctx_t *c) {
  const berth_ir_method_t *m = c->m;
  for (int32_t ni = 0; ni < m->n_nodes; ni++) {
    const berth_ir_node_t *n = &m->nodes[ni];
    const hop_pos_t *h = &c->hop[ni];
    int32_t g = n->graph;
    switch (berth_op_get(n->op)->kind) {
      case BERTH_OPKIND_KERNEL:
      case BERTH_OPKIND_COPY_:
      case BERTH_OPKIND_ASSERT:
        for (int32_t i = 0; i < n->n_in; i++) use(c, n->in[i], g, c->node_pos[ni]);
        break;
      case BERTH_OPKIND_COND:
        use(c, n->in[0], g, h->ts);
        for (int32_t i = 1; i < n->n_in; i++) use(c, n->in[i], g, h->te);
        for (int32_t b = 0; b < 2; b++) {
          const berth_ir_graph_t *bg = &m->graphs[n->graphs[b]];
          for (int32_t i = 0; i < bg->n_results; i++) use(c, bg->results[i], n->graphs[b], h->th[b]);
        }
        break;
      case BERTH_OPKIND_WHILE_LOOP: {
        for (int32_t i = 0; i < n->n_in; i++) use(c, n->in[i], g, h->ts);
        const berth_ir_graph_t *gc = &m->graphs[n->graphs[0]], *gb = &m->graphs[n->graphs[1]];
        if (gc->n_results) use(c, gc->results[0], n->graphs[0], h->tjf);
        for (int32_t i = 0; i < gb->n_results; i++) use(c, gb->results[i], n->graphs[1], h->th[0]);
        break;
      }
      case BERTH_OPKIND_SCAN:
      case BERTH_OPKIND_MAP: {
        bool scan = berth_op_get(n->op)->kind == BERTH_OPKIND_SCAN;
        int32_t n_carry = scan ? (int32_t)n->attrs[0].i : 0;
        for (int32_t i = 0; i < n->n_in; i++) use(c, n->in[i], g, i < n_carry ? h->ts : h->te);
        const berth_ir_graph_t *gb = &m->graphs[n->graphs[0]];
        for (int32_t i = 0; i < gb->n_results; i++) use(c, gb->results[i], n->graphs[0], h->th[0]);
        break;
      }
    }
  }
  const berth_ir_graph_t *body = &m->graphs[m->body];
  for (int32_t i = 0; i < body->n_results; i++) use(c, body->results[i], m->body, c->t_ret);
  /* the real extent of a bounded result is read after the return, like the result */
  for (int32_t i = 0; i < m->n_bounds; i++) use(c, m->bounds[i].extent, m->body, c->t_ret);
}

static void record_defs(lctx_t *c) {
  const berth_ir_method_t *m = c->m;
  for (int32_t v = 0; v < m->n_values; v++) c->def_pos[v] = 0;
  for (int32_t ni = 0; ni < m->n_nodes; ni++) {
    const berth_ir_node_t *n = &m->nodes[ni];
    const hop_pos_t *h = &c->hop[ni];
    berth_op_kind_t kind = berth_op_get(n->op)->kind;
    for (int32_t i = 0; i < n->n_out; i++) {
      int64_t d = c->node_pos[ni];
      if (kind == BERTH_OPKIND_COND || kind == BERTH_OPKIND_WHILE_LOOP) d = h->te;
      if (kind == BERTH_OPKIND_SCAN || kind == BERTH_OPKIND_MAP) {
        int32_t n_carry = kind == BERTH_OPKIND_SCAN ? (int32_t)n->attrs[0].i : 0;
        d = i < n_carry ? h->te : h->ts; /* stacked outputs are written during the loop */
      }
      c->def_pos[n->out[i]] = d;
    }
    if (kind == BERTH_OPKIND_WHILE_LOOP || kind == BERTH_OPKIND_SCAN) {
      const berth_ir_graph_t *gb = &m->graphs[n->graphs[kind == BERTH_OPKIND_WHILE_LOOP ? 1 : 0]];
      int32_t n_carry = kind == BERTH_OPKIND_SCAN ? (int32_t)n->attrs[0].i : gb->n_params;
      for (int32_t k = 0; k < n_carry && k < gb->n_params; k++) c->def_pos[gb->params[k]] = h->ts;
    }
  }
  for (int32_t v = 0; v < m->n_values; v++)
    if (c->vals[v].snap_node >= 0) c->def_pos[v] = c->hop[c->vals[v].snap_node].ts;
  for (int32_t v = 0; v < m->n_values; v++) c->last_pos[v] = c->def_pos[v];
}

berth_status_t berth_timeline_build(lctx_t *c) {
  const berth_ir_method_t *m = c->m;
  size_t nn = (size_t)(m->n_nodes ? m->n_nodes : 1);
  size_t nv = (size_t)(m->n_values ? m->n_values : 1);
  c->node_pos = calloc(nn, sizeof *c->node_pos);
  c->hop = calloc(nn, sizeof *c->hop);
  c->def_pos = calloc(nv, sizeof *c->def_pos);
  c->last_pos = calloc(nv, sizeof *c->last_pos);
  if (!c->node_pos || !c->hop || !c->def_pos || !c->last_pos)
    return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t t = 1;
  number_graph(c, m->body, &t);
  c->t_ret = t++;
  c->n_positions = t;
  berth_status_t st = make_values(c);
  if (st) return st;
  record_defs(c);
  record_uses(c);
  return BERTH_OK;
}
