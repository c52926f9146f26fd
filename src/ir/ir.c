/* Construction and queries of the program model. */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

/* Grows *arr so that it holds at least need elements of size elem. */
static bool grow(void **arr, int32_t *cap, int32_t need, size_t elem) {
  if (need <= *cap) return true;
  int32_t nc = *cap ? *cap * 2 : 8;
  while (nc < need) nc *= 2;
  void *na = realloc(*arr, (size_t)nc * elem);
  if (!na) return false;
  *arr = na;
  *cap = nc;
  return true;
}

berth_ir_program_t *berth_ir_program_create(void) {
  berth_ir_program_t *p = calloc(1, sizeof *p);
  if (p) {
    p->alloc_inputs = true;
    p->alloc_outputs = true;
  }
  return p;
}

static void method_free(berth_ir_method_t *m) {
  for (int32_t i = 0; i < m->n_values; i++) free(m->values[i].name);
  for (int32_t i = 0; i < m->n_nodes; i++) {
    free(m->nodes[i].in);
    free(m->nodes[i].out);
    free(m->nodes[i].graphs);
  }
  for (int32_t i = 0; i < m->n_graphs; i++) {
    free(m->graphs[i].label);
    free(m->graphs[i].params);
    free(m->graphs[i].nodes);
    free(m->graphs[i].results);
  }
  free(m->values);
  free(m->nodes);
  free(m->graphs);
  free(m->bounds);
  free(m->name);
}

void berth_ir_program_destroy(berth_ir_program_t *p) {
  if (!p) return;
  for (int32_t i = 0; i < p->n_globals; i++) {
    free(p->globals[i].name);
    free(p->globals[i].data);
  }
  for (int32_t i = 0; i < p->n_methods; i++) method_free(&p->methods[i]);
  for (int32_t i = 0; i < p->n_strings; i++) free(p->strings[i]);
  free(p->globals);
  free(p->methods);
  free(p->strings);
  free(p);
}

/* ---- strings of STRING attributes ----------------------------------------------- */

berth_status_t berth_ir_string_add(berth_ir_program_t *p, const char *text, size_t len, int32_t *index) {
  if (len == 0) {
    *index = -1;
    return BERTH_OK;
  }
  if (!grow((void **)&p->strings, &p->cap_strings, p->n_strings + 1, sizeof *p->strings))
    return BERTH_ERR_RESOURCE_EXHAUSTED;
  char *d = malloc(len + 1);
  if (!d) return BERTH_ERR_RESOURCE_EXHAUSTED;
  memcpy(d, text, len);
  d[len] = '\0';
  p->strings[p->n_strings] = d;
  *index = p->n_strings++;
  return BERTH_OK;
}

const char *berth_ir_string(const berth_ir_program_t *p, int64_t i) {
  if (i == -1) return "";
  return i >= 0 && i < p->n_strings ? p->strings[i] : NULL;
}

bool berth_ir_strings_copy(berth_ir_program_t *dst, const berth_ir_program_t *src) {
  if (dst->n_strings != 0) return false;
  for (int32_t i = 0; i < src->n_strings; i++) {
    int32_t k;
    if (berth_ir_string_add(dst, src->strings[i], strlen(src->strings[i]), &k) || k != i) return false;
  }
  return true;
}

int32_t berth_ir_global_add(berth_ir_program_t *p, const char *name, const berth_type_t *type,
                            bool is_state, const void *data) {
  if (!grow((void **)&p->globals, &p->cap_globals, p->n_globals + 1, sizeof *p->globals)) return -1;
  size_t bytes = berth_type_bytes(type);
  berth_ir_global_t *g = &p->globals[p->n_globals];
  memset(g, 0, sizeof *g);
  g->name = dup_str(name);
  g->type = *type;
  g->is_state = is_state;
  g->data = malloc(bytes ? bytes : 1);
  if (!g->name || !g->data) {
    free(g->name);
    free(g->data);
    return -1;
  }
  if (data) memcpy(g->data, data, bytes);
  else memset(g->data, 0, bytes);
  return p->n_globals++;
}

int32_t berth_ir_global_find(const berth_ir_program_t *p, const char *name, size_t len) {
  for (int32_t i = 0; i < p->n_globals; i++)
    if (strlen(p->globals[i].name) == len && memcmp(p->globals[i].name, name, len) == 0) return i;
  return -1;
}

int32_t berth_ir_method_add(berth_ir_program_t *p, const char *name) {
  if (!grow((void **)&p->methods, &p->cap_methods, p->n_methods + 1, sizeof *p->methods)) return -1;
  berth_ir_method_t *m = &p->methods[p->n_methods];
  memset(m, 0, sizeof *m);
  m->name = dup_str(name);
  if (!m->name) return -1;
  if (!grow((void **)&m->graphs, &m->cap_graphs, 1, sizeof *m->graphs)) {
    free(m->name);
    return -1;
  }
  memset(&m->graphs[0], 0, sizeof m->graphs[0]);
  m->graphs[0].parent_node = -1;
  m->n_graphs = 1;
  m->body = 0;
  return p->n_methods++;
}

int32_t berth_ir_method_find(const berth_ir_program_t *p, const char *name) {
  for (int32_t i = 0; i < p->n_methods; i++)
    if (strcmp(p->methods[i].name, name) == 0) return i;
  return -1;
}

static int32_t value_add(berth_ir_method_t *m, const char *name, const berth_type_t *type,
                         berth_ir_value_kind_t kind, int32_t graph, int32_t node, int32_t index) {
  if (!grow((void **)&m->values, &m->cap_values, m->n_values + 1, sizeof *m->values)) return -1;
  berth_ir_value_t *v = &m->values[m->n_values];
  memset(v, 0, sizeof *v);
  v->name = dup_str(name ? name : "");
  if (!v->name) return -1;
  v->type = *type;
  v->kind = kind;
  v->graph = graph;
  v->node = node;
  v->index = index;
  return m->n_values++;
}

int32_t berth_ir_global_ref(berth_ir_program_t *p, berth_ir_method_t *m, int32_t g) {
  if (g < 0 || g >= p->n_globals) return -1;
  berth_ir_value_kind_t kind = p->globals[g].is_state ? BERTH_IR_STATE : BERTH_IR_CONST;
  for (int32_t i = 0; i < m->n_values; i++)
    if (m->values[i].kind == kind && m->values[i].index == g) return i;
  return value_add(m, p->globals[g].name, &p->globals[g].type, kind, -1, -1, g);
}

static bool append_i32(int32_t **arr, int32_t *n, int32_t *cap, int32_t v) {
  if (!grow((void **)arr, cap, *n + 1, sizeof **arr)) return false;
  (*arr)[(*n)++] = v;
  return true;
}

int32_t berth_ir_graph_add(berth_ir_method_t *m, int32_t parent_node, const char *label) {
  if (!grow((void **)&m->graphs, &m->cap_graphs, m->n_graphs + 1, sizeof *m->graphs)) return -1;
  berth_ir_node_t *n = &m->nodes[parent_node];
  int32_t *ng = realloc(n->graphs, (size_t)(n->n_graphs + 1) * sizeof *ng);
  if (!ng) return -1;
  n->graphs = ng;
  berth_ir_graph_t *g = &m->graphs[m->n_graphs];
  memset(g, 0, sizeof *g);
  g->parent_node = parent_node;
  g->label = dup_str(label);
  n->graphs[n->n_graphs++] = m->n_graphs;
  return m->n_graphs++;
}

int32_t berth_ir_param_add(berth_ir_method_t *m, int32_t graph, const char *name,
                           const berth_type_t *type) {
  berth_ir_graph_t *g = &m->graphs[graph];
  int32_t v = value_add(m, name, type, BERTH_IR_PARAM, graph, -1, g->n_params);
  if (v < 0) return -1;
  g = &m->graphs[graph];
  if (!append_i32(&g->params, &g->n_params, &g->cap_params, v)) return -1;
  return v;
}

int32_t berth_ir_node_add(berth_ir_method_t *m, int32_t graph, berth_op_t op, int32_t n_in,
                          const int32_t *in) {
  if (!grow((void **)&m->nodes, &m->cap_nodes, m->n_nodes + 1, sizeof *m->nodes)) return -1;
  berth_ir_node_t *n = &m->nodes[m->n_nodes];
  memset(n, 0, sizeof *n);
  n->op = op;
  n->graph = graph;
  n->n_in = n_in;
  n->in = malloc((size_t)(n_in ? n_in : 1) * sizeof *n->in);
  if (!n->in) return -1;
  if (n_in) memcpy(n->in, in, (size_t)n_in * sizeof *in);
  const berth_op_def_t *def = berth_op_get(op);
  if (def) berth_op_attrs_default(def, n->attrs);
  berth_ir_graph_t *g = &m->graphs[graph];
  if (!append_i32(&g->nodes, &g->n_nodes, &g->cap_nodes, m->n_nodes)) return -1;
  return m->n_nodes++;
}

int32_t berth_ir_node_result_add(berth_ir_method_t *m, int32_t node, const char *name,
                                 const berth_type_t *type) {
  berth_ir_node_t *n = &m->nodes[node];
  int32_t v = value_add(m, name, type, BERTH_IR_NODE, n->graph, node, n->n_out);
  if (v < 0) return -1;
  n = &m->nodes[node];
  int32_t *no = realloc(n->out, (size_t)(n->n_out + 1) * sizeof *no);
  if (!no) return -1;
  n->out = no;
  n->out[n->n_out++] = v;
  return v;
}

int32_t berth_ir_graph_result_add(berth_ir_method_t *m, int32_t graph, int32_t value) {
  berth_ir_graph_t *g = &m->graphs[graph];
  if (!append_i32(&g->results, &g->n_results, &g->cap_results, value)) return -1;
  return g->n_results - 1;
}

bool berth_ir_graph_within(const berth_ir_method_t *m, int32_t inner, int32_t outer) {
  while (inner >= 0) {
    if (inner == outer) return true;
    int32_t pn = m->graphs[inner].parent_node;
    if (pn < 0) return false;
    inner = m->nodes[pn].graph;
  }
  return false;
}

int32_t berth_ir_graph_depth(const berth_ir_method_t *m, int32_t graph) {
  int32_t d = 0;
  while (m->graphs[graph].parent_node >= 0) {
    graph = m->nodes[m->graphs[graph].parent_node].graph;
    d++;
  }
  return d;
}

const char *berth_ir_node_describe(const berth_ir_method_t *m, int32_t node, char *buf, size_t cap) {
  const berth_ir_node_t *n = &m->nodes[node];
  const berth_op_def_t *def = berth_op_get(n->op);
  const char *opname = def ? def->name : "?";
  size_t len;
  if (n->n_out > 0) len = (size_t)snprintf(buf, cap, "node %%%s = %s", m->values[n->out[0]].name, opname);
  else len = (size_t)snprintf(buf, cap, "node %s", opname);
  if (n->line > 0 && len < cap) snprintf(buf + len, cap - len, " (line %d)", (int)n->line);
  return buf;
}

/* ---- deep copy ------------------------------------------------------------------ */

static int32_t *dup_i32(const int32_t *a, int32_t n) {
  int32_t *d = malloc((size_t)(n ? n : 1) * sizeof *d);
  if (d && n) memcpy(d, a, (size_t)n * sizeof *d);
  return d;
}

int32_t berth_ir_bound_add(berth_ir_method_t *m, int32_t result, int32_t axis, int32_t extent) {
  berth_ir_bound_t *b = realloc(m->bounds, (size_t)(m->n_bounds + 1) * sizeof *b);
  if (!b) return -1;
  m->bounds = b;
  b[m->n_bounds] = (berth_ir_bound_t){result, axis, extent};
  return m->n_bounds++;
}

const berth_ir_bound_t *berth_ir_bound_of(const berth_ir_method_t *m, int32_t result) {
  for (int32_t i = 0; i < m->n_bounds; i++)
    if (m->bounds[i].result == result) return &m->bounds[i];
  return NULL;
}

berth_ir_program_t *berth_ir_program_clone(const berth_ir_program_t *p) {
  berth_ir_program_t *q = berth_ir_program_create();
  if (!q) return NULL;
  q->alloc_inputs = p->alloc_inputs;
  q->alloc_outputs = p->alloc_outputs;
  if (!berth_ir_strings_copy(q, p)) goto fail;
  for (int32_t i = 0; i < p->n_globals; i++) {
    const berth_ir_global_t *g = &p->globals[i];
    if (berth_ir_global_add(q, g->name, &g->type, g->is_state, g->data) < 0) goto fail;
  }
  q->methods = calloc((size_t)(p->n_methods ? p->n_methods : 1), sizeof *q->methods);
  if (!q->methods) goto fail;
  q->cap_methods = p->n_methods ? p->n_methods : 1;
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    const berth_ir_method_t *m = &p->methods[mi];
    berth_ir_method_t *c = &q->methods[mi];
    q->n_methods = mi + 1;
    c->name = dup_str(m->name);
    c->body = m->body;
    c->n_values = c->cap_values = m->n_values;
    c->n_nodes = c->cap_nodes = m->n_nodes;
    c->n_graphs = c->cap_graphs = m->n_graphs;
    c->values = calloc((size_t)(m->n_values ? m->n_values : 1), sizeof *c->values);
    c->nodes = calloc((size_t)(m->n_nodes ? m->n_nodes : 1), sizeof *c->nodes);
    c->graphs = calloc((size_t)(m->n_graphs ? m->n_graphs : 1), sizeof *c->graphs);
    if (!c->name || !c->values || !c->nodes || !c->graphs) goto fail;
    for (int32_t i = 0; i < m->n_bounds; i++)
      if (berth_ir_bound_add(c, m->bounds[i].result, m->bounds[i].axis, m->bounds[i].extent) < 0) goto fail;
    for (int32_t i = 0; i < m->n_values; i++) {
      c->values[i] = m->values[i];
      c->values[i].name = dup_str(m->values[i].name);
      if (!c->values[i].name) goto fail;
    }
    for (int32_t i = 0; i < m->n_nodes; i++) {
      c->nodes[i] = m->nodes[i];
      c->nodes[i].in = dup_i32(m->nodes[i].in, m->nodes[i].n_in);
      c->nodes[i].out = dup_i32(m->nodes[i].out, m->nodes[i].n_out);
      c->nodes[i].graphs = dup_i32(m->nodes[i].graphs, m->nodes[i].n_graphs);
      if (!c->nodes[i].in || !c->nodes[i].out || !c->nodes[i].graphs) goto fail;
    }
    for (int32_t i = 0; i < m->n_graphs; i++) {
      const berth_ir_graph_t *g = &m->graphs[i];
      berth_ir_graph_t *h = &c->graphs[i];
      *h = *g;
      h->label = dup_str(g->label);
      h->params = dup_i32(g->params, g->n_params);
      h->nodes = dup_i32(g->nodes, g->n_nodes);
      h->results = dup_i32(g->results, g->n_results);
      h->cap_params = g->n_params;
      h->cap_nodes = g->n_nodes;
      h->cap_results = g->n_results;
      if (!h->params || !h->nodes || !h->results) goto fail;
    }
  }
  return q;
fail:
  berth_ir_program_destroy(q);
  return NULL;
}
