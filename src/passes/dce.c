/* Dead code elimination by rebuilding: a backward walk marks the live nodes (a node is
 * live if one of its results is used by a live node or a graph result, or if it is copy_
 * or assert, which act without results, or a HOP with one in its bodies), then the program is built anew from the live
 * parts only, so value, node and graph ids stay dense. Bodies are walked after their HOP node in the backward walk, which
 * is right for captures: a body only reads values defined before its HOP. */
#include "passes/passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct dce {
  const berth_ir_program_t *op;
  berth_ir_program_t *np;
  const berth_ir_method_t *om;
  int32_t nmi;
  bool *live;    /* per old node */
  bool *effect;  /* per old node: it, or a node in its bodies, is copy_ or assert */
  bool *used;    /* per old value */
  int32_t *vmap; /* old value -> new value */
  int32_t *gmap; /* old global -> new global */
  bool oom;
} dce_t;

/* Nodes that act without results (copy_ writes a buffer, assert may stop the call) stay,
 * and so does every HOP around one: its body must still run. */
static void mark_effects(dce_t *d) {
  const berth_ir_method_t *m = d->om;
  for (int32_t ni = 0; ni < m->n_nodes; ni++) {
    const berth_op_def_t *def = berth_op_get(m->nodes[ni].op);
    if (!def || (def->kind != BERTH_OPKIND_COPY_ && def->kind != BERTH_OPKIND_ASSERT)) continue;
    d->effect[ni] = true;
    for (int32_t g = m->nodes[ni].graph; g >= 0 && m->graphs[g].parent_node >= 0;) {
      int32_t hop = m->graphs[g].parent_node;
      if (d->effect[hop]) break; /* its enclosing HOPs are marked already */
      d->effect[hop] = true;
      g = m->nodes[hop].graph;
    }
  }
}

static void mark_graph(dce_t *d, int32_t g) {
  const berth_ir_graph_t *gr = &d->om->graphs[g];
  for (int32_t r = 0; r < gr->n_results; r++) d->used[gr->results[r]] = true;
  if (g == d->om->body)
    for (int32_t b = 0; b < d->om->n_bounds; b++) d->used[d->om->bounds[b].extent] = true;
  for (int32_t k = gr->n_nodes - 1; k >= 0; k--) {
    int32_t ni = gr->nodes[k];
    const berth_ir_node_t *n = &d->om->nodes[ni];
    bool live = d->effect[ni];
    for (int32_t o = 0; o < n->n_out && !live; o++) live = d->used[n->out[o]];
    if (!live) continue;
    d->live[ni] = true;
    for (int32_t i = 0; i < n->n_in; i++) d->used[n->in[i]] = true;
    for (int32_t b = n->n_graphs - 1; b >= 0; b--) mark_graph(d, n->graphs[b]);
  }
}

static berth_ir_method_t *nm(dce_t *d) { return &d->np->methods[d->nmi]; }

static int32_t map_value(dce_t *d, int32_t v) {
  const berth_ir_value_t *ov = &d->om->values[v];
  if (ov->kind == BERTH_IR_CONST || ov->kind == BERTH_IR_STATE) {
    int32_t g = ov->index;
    if (d->gmap[g] < 0) {
      const berth_ir_global_t *og = &d->op->globals[g];
      d->gmap[g] = berth_ir_global_add(d->np, og->name, &og->type, og->is_state, og->data);
      if (d->gmap[g] < 0) return -1;
    }
    return berth_ir_global_ref(d->np, nm(d), d->gmap[g]);
  }
  return d->vmap[v];
}

static bool build_graph(dce_t *d, int32_t og, int32_t ng) {
  const berth_ir_graph_t *gr = &d->om->graphs[og];
  for (int32_t k = 0; k < gr->n_params; k++) {
    const berth_ir_value_t *v = &d->om->values[gr->params[k]];
    d->vmap[gr->params[k]] = berth_ir_param_add(nm(d), ng, v->name, &v->type);
    if (d->vmap[gr->params[k]] < 0) return false;
  }
  for (int32_t k = 0; k < gr->n_nodes; k++) {
    int32_t ni = gr->nodes[k];
    if (!d->live[ni]) continue;
    const berth_ir_node_t *n = &d->om->nodes[ni];
    int32_t *in = malloc((size_t)(n->n_in ? n->n_in : 1) * sizeof *in);
    if (!in) return false;
    for (int32_t i = 0; i < n->n_in; i++) {
      in[i] = map_value(d, n->in[i]);
      if (in[i] < 0) {
        free(in);
        return false;
      }
    }
    int32_t nn = berth_ir_node_add(nm(d), ng, n->op, n->n_in, in);
    free(in);
    if (nn < 0) return false;
    berth_ir_node_t *x = &nm(d)->nodes[nn];
    memcpy(x->attrs, n->attrs, sizeof x->attrs);
    x->line = n->line;
    x->col = n->col;
    for (int32_t o = 0; o < n->n_out; o++) {
      const berth_ir_value_t *v = &d->om->values[n->out[o]];
      d->vmap[n->out[o]] = berth_ir_node_result_add(nm(d), nn, v->name, &v->type);
      if (d->vmap[n->out[o]] < 0) return false;
    }
    for (int32_t b = 0; b < n->n_graphs; b++) {
      const berth_ir_graph_t *body = &d->om->graphs[n->graphs[b]];
      int32_t nb = berth_ir_graph_add(nm(d), nn, body->label);
      if (nb < 0 || !build_graph(d, n->graphs[b], nb)) return false;
    }
  }
  for (int32_t r = 0; r < gr->n_results; r++) {
    int32_t v = map_value(d, gr->results[r]);
    if (v < 0 || berth_ir_graph_result_add(nm(d), ng, v) < 0) return false;
  }
  return true;
}

berth_status_t berth_pass_dce(berth_ir_program_t **pp, berth_diag_t *diag) {
  const berth_ir_program_t *p = *pp;
  dce_t d;
  memset(&d, 0, sizeof d);
  d.op = p;
  d.np = berth_ir_program_create();
  d.gmap = malloc((size_t)(p->n_globals ? p->n_globals : 1) * sizeof *d.gmap);
  bool ok = d.np && d.gmap;
  if (ok) {
    d.np->alloc_inputs = p->alloc_inputs;
    d.np->alloc_outputs = p->alloc_outputs;
    ok = berth_ir_strings_copy(d.np, p); /* attributes are copied with their string indices */
  }
  if (ok) {
    for (int32_t g = 0; g < p->n_globals; g++) d.gmap[g] = -1;
    /* mutable buffers are program state: all of them stay, in order */
    for (int32_t g = 0; g < p->n_globals && ok; g++) {
      const berth_ir_global_t *og = &p->globals[g];
      if (!og->is_state) continue;
      d.gmap[g] = berth_ir_global_add(d.np, og->name, &og->type, true, og->data);
      ok = d.gmap[g] >= 0;
    }
  }
  for (int32_t mi = 0; mi < p->n_methods && ok; mi++) {
    const berth_ir_method_t *m = &p->methods[mi];
    d.om = m;
    d.live = calloc((size_t)(m->n_nodes ? m->n_nodes : 1), sizeof *d.live);
    d.used = calloc((size_t)(m->n_values ? m->n_values : 1), sizeof *d.used);
    d.vmap = malloc((size_t)(m->n_values ? m->n_values : 1) * sizeof *d.vmap);
    d.effect = calloc((size_t)(m->n_nodes ? m->n_nodes : 1), sizeof *d.effect);
    ok = d.live && d.used && d.vmap && d.effect;
    if (ok) {
      for (int32_t v = 0; v < m->n_values; v++) d.vmap[v] = -1;
      mark_effects(&d);
      mark_graph(&d, m->body);
      d.nmi = berth_ir_method_add(d.np, m->name);
      ok = d.nmi >= 0 && build_graph(&d, m->body, nm(&d)->body);
      for (int32_t b = 0; b < m->n_bounds && ok; b++) {
        int32_t e = map_value(&d, m->bounds[b].extent);
        ok = e >= 0 && berth_ir_bound_add(nm(&d), m->bounds[b].result, m->bounds[b].axis, e) >= 0;
      }
    }
    free(d.live);
    free(d.used);
    free(d.vmap);
    free(d.effect);
    d.effect = NULL;
    d.live = NULL;
    d.used = NULL;
    d.vmap = NULL;
  }
  free(d.gmap);
  if (!ok) {
    berth_ir_program_destroy(d.np);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "dce: out of memory");
  }
  berth_ir_program_destroy(*pp);
  *pp = d.np;
  return BERTH_OK;
}
