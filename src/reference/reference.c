/* The reference interpreter (see reference.h). */
#include "reference.h"

#include "berth/runtime.h"

#include <stdlib.h>
#include <string.h>

struct berth_ref {
  const berth_ir_program_t *p;
  void ***state; /* state[method][global]: current bytes of each mutable buffer */
  uint64_t max_steps; /* loop iterations one call may run (berth/runtime.h's meaning) */
  uint64_t steps;     /* ... run so far in the current call */
  /* the real extents of the bounded results (berth_ir_bound_t) of the last successful call */
  int32_t last_method; /* -1: none */
  int64_t *extents;    /* one per bound of that method */
};

typedef struct env {
  berth_ref_t *r;
  int32_t method;
  const berth_ir_method_t *m;
  void **data; /* per value id: current bytes (owned unless CONST/STATE) */
  bool *owned;
  berth_diag_t *diag;
} env_t;

berth_status_t berth_ref_create(const berth_ir_program_t *p, berth_ref_t **out, berth_diag_t *diag) {
  berth_ref_t *r = calloc(1, sizeof *r);
  if (!r) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  r->p = p;
  r->last_method = -1;
  r->max_steps = BERTH_RUNTIME_DEFAULT_MAX_STEPS;
  r->state = calloc((size_t)(p->n_methods ? p->n_methods : 1), sizeof *r->state);
  if (!r->state) goto oom;
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    r->state[mi] = calloc((size_t)(p->n_globals ? p->n_globals : 1), sizeof(void *));
    if (!r->state[mi]) goto oom;
    for (int32_t g = 0; g < p->n_globals; g++) {
      if (!p->globals[g].is_state) continue;
      size_t bytes = berth_type_bytes(&p->globals[g].type);
      r->state[mi][g] = malloc(bytes ? bytes : 1);
      if (!r->state[mi][g]) goto oom;
      memcpy(r->state[mi][g], p->globals[g].data, bytes);
    }
  }
  *out = r;
  return BERTH_OK;
oom:
  berth_ref_destroy(r);
  return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
}

void berth_ref_destroy(berth_ref_t *r) {
  if (!r) return;
  if (r->state) {
    for (int32_t mi = 0; mi < r->p->n_methods; mi++) {
      if (!r->state[mi]) continue;
      for (int32_t g = 0; g < r->p->n_globals; g++) free(r->state[mi][g]);
      free(r->state[mi]);
    }
    free(r->state);
  }
  free(r->extents);
  free(r);
}

void berth_ref_set_max_steps(berth_ref_t *r, uint64_t max_steps) {
  r->max_steps = max_steps ? max_steps : BERTH_RUNTIME_DEFAULT_MAX_STEPS;
}

/* Counts one finished loop iteration (a while_loop body, a scan or map step): the planned
 * runtime counts the same ones, at the same point (its backward jump or loop_next), with
 * the same message. */
static berth_status_t count_step(env_t *e) {
  if (++e->r->steps <= e->r->max_steps) return BERTH_OK;
  return berth_fail(e->diag, BERTH_ERR_OUT_OF_RANGE,
                    "method %s: more than %llu loop iterations in one call (the step limit; an endless loop?)",
                    e->m->name, (unsigned long long)e->r->max_steps);
}

const void *berth_ref_state(const berth_ref_t *r, int32_t method, int32_t g) {
  if (method < 0 || method >= r->p->n_methods || g < 0 || g >= r->p->n_globals) return NULL;
  return r->state[method][g];
}

/* ---- values --------------------------------------------------------------------- */

static size_t value_bytes(const env_t *e, int32_t v) { return berth_type_bytes(&e->m->values[v].type); }

/* Gives value v fresh memory holding a copy of src (or uninitialised if src is NULL). */
static berth_status_t define(env_t *e, int32_t v, const void *src) {
  size_t bytes = value_bytes(e, v);
  void *mem = malloc(bytes ? bytes : 1);
  if (!mem) return berth_fail(e->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (src) memcpy(mem, src, bytes);
  if (e->owned[v]) free(e->data[v]);
  e->data[v] = mem;
  e->owned[v] = true;
  return BERTH_OK;
}

static const void *get(const env_t *e, int32_t v) {
  const berth_ir_value_t *val = &e->m->values[v];
  if (val->kind == BERTH_IR_CONST) return e->r->p->globals[val->index].data;
  if (val->kind == BERTH_IR_STATE) return e->r->state[e->method][val->index];
  return e->data[v];
}

static bool truth(const env_t *e, int32_t v) { return *(const uint8_t *)get(e, v) != 0; }

static berth_status_t run_graph(env_t *e, int32_t g);

/* Binds a body's parameters to copies of the given sources. */
static berth_status_t bind_params(env_t *e, int32_t g, int32_t n, const void *const *src) {
  const berth_ir_graph_t *graph = &e->m->graphs[g];
  for (int32_t i = 0; i < n && i < graph->n_params; i++) {
    berth_status_t st = define(e, graph->params[i], src[i]);
    if (st) return st;
  }
  return BERTH_OK;
}

/* Slice t of a tensor (bytes at base) stacked along axis 0. */
static const void *slice_of(const env_t *e, int32_t v, const void *base, int64_t t) {
  const berth_type_t *ty = &e->m->values[v].type;
  size_t row = ty->dims[0] ? berth_type_bytes(ty) / (size_t)ty->dims[0] : 0;
  return (const uint8_t *)base + row * (size_t)t;
}

/* ---- nodes ---------------------------------------------------------------------- */

static berth_status_t run_kernel(env_t *e, const berth_ir_node_t *n) {
  const berth_op_def_t *def = berth_op_get(n->op);
  berth_tensor_ref_t in[BERTH_MAX_KERNEL_OPERANDS], out[BERTH_MAX_KERNEL_OPERANDS];
  if (n->n_in > BERTH_MAX_KERNEL_OPERANDS || n->n_out > BERTH_MAX_KERNEL_OPERANDS)
    return berth_fail(e->diag, BERTH_ERR_OUT_OF_RANGE, "too many operands");
  for (int32_t i = 0; i < n->n_in; i++) {
    in[i].type = &e->m->values[n->in[i]].type;
    in[i].data = (void *)get(e, n->in[i]);
  }
  for (int32_t i = 0; i < n->n_out; i++) {
    berth_status_t st = define(e, n->out[i], NULL);
    if (st) return st;
    out[i].type = &e->m->values[n->out[i]].type;
    out[i].data = e->data[n->out[i]];
  }
  /* the scratch the planner would give this node (same size: the same loops, the same bits),
   * zeroed where the sanitized runtime fills its own with ones, so that a kernel reading
   * scratch it did not write differs between the two */
  berth_type_t tin[BERTH_MAX_KERNEL_OPERANDS];
  for (int32_t i = 0; i < n->n_in; i++) tin[i] = *in[i].type;
  uint64_t sb = berth_op_scratch_bytes(n->op, n->attrs, tin, n->n_in);
  void *scratch = sb ? calloc(1, (size_t)sb) : NULL;
  if (sb && !scratch) return berth_fail(e->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory (kernel scratch)");
  berth_kernel_call_t call = {n->attrs, in, n->n_in, out, n->n_out, scratch, scratch ? sb : 0};
  def->run(&call);
  free(scratch);
  return BERTH_OK;
}

/* Copies a body's results into the node's results. */
static berth_status_t take_results(env_t *e, const berth_ir_node_t *n, int32_t g, int32_t first, int32_t count) {
  const berth_ir_graph_t *graph = &e->m->graphs[g];
  for (int32_t i = 0; i < count; i++) {
    berth_status_t st = define(e, n->out[first + i], get(e, graph->results[first + i]));
    if (st) return st;
  }
  return BERTH_OK;
}

static berth_status_t run_cond(env_t *e, const berth_ir_node_t *n) {
  int32_t g = n->graphs[truth(e, n->in[0]) ? 0 : 1];
  const void *src[BERTH_MAX_KERNEL_OPERANDS];
  int32_t nops = n->n_in - 1;
  const void **srcs = src;
  void *heap = NULL;
  if (nops > BERTH_MAX_KERNEL_OPERANDS) {
    heap = malloc((size_t)nops * sizeof(void *));
    if (!heap) return berth_fail(e->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    srcs = heap;
  }
  for (int32_t i = 0; i < nops; i++) srcs[i] = get(e, n->in[1 + i]);
  berth_status_t st = bind_params(e, g, nops, srcs);
  free(heap);
  if (!st) st = run_graph(e, g);
  if (!st) st = take_results(e, n, g, 0, n->n_out);
  return st;
}

/* Copies the current values of `vals` (count) into an array of fresh buffers. */
static berth_status_t snapshot(env_t *e, const int32_t *vals, int32_t count, void **buf) {
  for (int32_t i = 0; i < count; i++) {
    size_t bytes = value_bytes(e, vals[i]);
    buf[i] = malloc(bytes ? bytes : 1);
    if (!buf[i]) return berth_fail(e->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    memcpy(buf[i], get(e, vals[i]), bytes);
  }
  return BERTH_OK;
}

static void free_all(void **buf, int32_t count) {
  for (int32_t i = 0; i < count; i++) free(buf[i]);
  free(buf);
}

static berth_status_t run_while(env_t *e, const berth_ir_node_t *n) {
  int32_t gc = n->graphs[0], gb = n->graphs[1];
  int32_t k = n->n_in;
  void **carried = calloc((size_t)(k ? k : 1), sizeof *carried);
  if (!carried) return berth_fail(e->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_status_t st = snapshot(e, n->in, k, carried);
  while (!st) {
    st = bind_params(e, gc, k, (const void *const *)carried);
    if (!st) st = run_graph(e, gc);
    if (st || !truth(e, e->m->graphs[gc].results[0])) break;
    st = bind_params(e, gb, k, (const void *const *)carried);
    if (!st) st = run_graph(e, gb);
    if (!st) st = count_step(e);
    if (st) break;
    for (int32_t i = 0; i < k; i++) free(carried[i]);
    memset(carried, 0, (size_t)k * sizeof *carried);
    st = snapshot(e, e->m->graphs[gb].results, k, carried);
  }
  for (int32_t i = 0; !st && i < k; i++) st = define(e, n->out[i], carried[i]);
  free_all(carried, k);
  return st;
}

/* scan (carry = N) and map (mapped = N): both step over axis 0 of their stacked inputs. */
static berth_status_t run_scan_or_map(env_t *e, const berth_ir_node_t *n, bool is_scan) {
  int32_t gb = n->graphs[0];
  const berth_ir_graph_t *body = &e->m->graphs[gb];
  int32_t n_carry = is_scan ? (int32_t)n->attrs[0].i : 0;
  int32_t first_x = n_carry;
  int32_t n_x = is_scan ? n->n_in - n_carry : (int32_t)n->attrs[0].i;
  int32_t n_args = is_scan ? 0 : n->n_in - n_x;
  int32_t n_y = n->n_out - n_carry;
  int64_t steps = n_x > 0 ? e->m->values[n->in[first_x]].type.dims[0] : 0;
  int32_t np = n_carry + n_x + n_args;
  void **carried = calloc((size_t)(n_carry ? n_carry : 1), sizeof *carried);
  const void **params = calloc((size_t)(np ? np : 1), sizeof *params);
  /* operands are values: a mutable buffer passed as one is read as it was at the start */
  void **operands = calloc((size_t)(n->n_in ? n->n_in : 1), sizeof *operands);
  berth_status_t st = BERTH_OK;
  if (!carried || !params || !operands) st = berth_fail(e->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (!st) st = snapshot(e, n->in, n_carry, carried);
  if (!st) st = snapshot(e, n->in, n->n_in, operands);
  for (int32_t j = 0; !st && j < n_y; j++) st = define(e, n->out[n_carry + j], NULL);
  for (int64_t t = 0; !st && t < steps; t++) {
    for (int32_t i = 0; i < n_carry; i++) params[i] = carried[i];
    for (int32_t i = 0; i < n_x; i++) params[n_carry + i] = slice_of(e, n->in[first_x + i], operands[first_x + i], t);
    for (int32_t i = 0; i < n_args; i++) params[n_carry + n_x + i] = operands[n_x + i];
    st = bind_params(e, gb, np, params);
    if (!st) st = run_graph(e, gb);
    if (!st) st = count_step(e);
    if (st) break;
    for (int32_t j = 0; j < n_y; j++) {
      int32_t y = body->results[n_carry + j];
      size_t bytes = value_bytes(e, y);
      memcpy((uint8_t *)e->data[n->out[n_carry + j]] + bytes * (size_t)t, get(e, y), bytes);
    }
    for (int32_t i = 0; i < n_carry; i++) free(carried[i]);
    memset(carried, 0, (size_t)n_carry * sizeof *carried);
    st = snapshot(e, body->results, n_carry, carried);
  }
  for (int32_t i = 0; !st && i < n_carry; i++) st = define(e, n->out[i], carried[i]);
  if (carried) free_all(carried, n_carry);
  if (operands) free_all(operands, n->n_in);
  free(params);
  return st;
}

/* A false operand stops the call; the message names the node and says the program's words. */
static berth_status_t run_assert(env_t *e, int32_t ni) {
  const berth_ir_node_t *n = &e->m->nodes[ni];
  if (truth(e, n->in[0])) return BERTH_OK;
  char where[160];
  const char *text = berth_ir_string(e->r->p, n->attrs[0].i);
  const berth_ir_value_t *v = &e->m->values[n->in[0]];
  char sigil = v->kind == BERTH_IR_CONST || v->kind == BERTH_IR_STATE ? '@' : '%';
  berth_ir_node_describe(e->m, ni, where, sizeof where);
  if (text && text[0])
    return berth_fail(e->diag, BERTH_ERR_CHECK_FAILED, "%s in func @%s: run-time check failed (%c%s is false): %s", where,
                      e->m->name, sigil, v->name ? v->name : "?", text);
  return berth_fail(e->diag, BERTH_ERR_CHECK_FAILED, "%s in func @%s: run-time check failed (%c%s is false)", where,
                    e->m->name, sigil, v->name ? v->name : "?");
}

static berth_status_t run_node(env_t *e, int32_t ni) {
  const berth_ir_node_t *n = &e->m->nodes[ni];
  const berth_op_def_t *def = berth_op_get(n->op);
  switch (def->kind) {
    case BERTH_OPKIND_KERNEL: return run_kernel(e, n);
    case BERTH_OPKIND_COND: return run_cond(e, n);
    case BERTH_OPKIND_WHILE_LOOP: return run_while(e, n);
    case BERTH_OPKIND_SCAN: return run_scan_or_map(e, n, true);
    case BERTH_OPKIND_MAP: return run_scan_or_map(e, n, false);
    case BERTH_OPKIND_COPY_: {
      const berth_ir_value_t *dst = &e->m->values[n->in[0]];
      memmove(e->r->state[e->method][dst->index], get(e, n->in[1]), berth_type_bytes(&dst->type));
      return BERTH_OK;
    }
    case BERTH_OPKIND_ASSERT: return run_assert(e, ni);
  }
  return berth_fail(e->diag, BERTH_ERR_INTERNAL, "unknown op kind");
}

static berth_status_t run_graph(env_t *e, int32_t g) {
  const berth_ir_graph_t *graph = &e->m->graphs[g];
  for (int32_t i = 0; i < graph->n_nodes; i++) {
    berth_status_t st = run_node(e, graph->nodes[i]);
    if (st) return st;
  }
  return BERTH_OK;
}

/* Keeps the real extents of the method's bounded results; one outside [0, capacity] fails
 * the call as the planned runtime does. */
static berth_status_t record_extents(env_t *e) {
  const berth_ir_method_t *m = e->m;
  if (!m->n_bounds) {
    e->r->last_method = e->method;
    return BERTH_OK;
  }
  int64_t *x = realloc(e->r->extents, (size_t)m->n_bounds * sizeof *x);
  if (!x) return berth_fail(e->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  e->r->extents = x;
  const berth_ir_graph_t *body = &m->graphs[m->body];
  for (int32_t k = 0; k < m->n_bounds; k++) {
    const berth_ir_bound_t *b = &m->bounds[k];
    int64_t cap = m->values[body->results[b->result]].type.dims[b->axis];
    memcpy(&x[k], get(e, b->extent), sizeof x[k]);
    if (x[k] < 0 || x[k] > cap)
      return berth_fail(e->diag, BERTH_ERR_CHECK_FAILED, "method %s: output %d has %lld entries along axis %d, outside "
                        "its capacity [0, %lld]", m->name, (int)b->result, (long long)x[k], (int)b->axis, (long long)cap);
  }
  e->r->last_method = e->method;
  return BERTH_OK;
}

berth_status_t berth_ref_output_shape(const berth_ref_t *r, int32_t method, int32_t j, berth_type_t *type) {
  if (method < 0 || method != r->last_method || !type) return BERTH_ERR_INVALID_ARGUMENT;
  const berth_ir_method_t *m = &r->p->methods[method];
  const berth_ir_graph_t *body = &m->graphs[m->body];
  if (j < 0 || j >= body->n_results) return BERTH_ERR_INVALID_ARGUMENT;
  *type = m->values[body->results[j]].type;
  for (int32_t k = 0; k < m->n_bounds; k++)
    if (m->bounds[k].result == j) type->dims[m->bounds[k].axis] = r->extents[k];
  return BERTH_OK;
}

berth_status_t berth_ref_call(berth_ref_t *r, int32_t method, const void *const *inputs,
                              void **outputs, berth_diag_t *diag) {
  if (method < 0 || method >= r->p->n_methods)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no method %d", (int)method);
  env_t e = {r, method, &r->p->methods[method], NULL, NULL, diag};
  r->steps = 0;
  const berth_ir_graph_t *body = &e.m->graphs[e.m->body];
  e.data = calloc((size_t)(e.m->n_values ? e.m->n_values : 1), sizeof *e.data);
  e.owned = calloc((size_t)(e.m->n_values ? e.m->n_values : 1), sizeof *e.owned);
  berth_status_t st = BERTH_OK;
  if (!e.data || !e.owned) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (!st) st = bind_params(&e, e.m->body, body->n_params, inputs);
  if (!st) st = run_graph(&e, e.m->body);
  r->last_method = -1;
  if (!st) st = record_extents(&e);
  int32_t done = 0;
  for (; !st && done < body->n_results; done++) {
    int32_t v = body->results[done];
    size_t bytes = value_bytes(&e, v);
    outputs[done] = malloc(bytes ? bytes : 1);
    if (!outputs[done]) {
      st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
      break;
    }
    memcpy(outputs[done], get(&e, v), bytes);
  }
  if (st)
    for (int32_t i = 0; i < done; i++) free(outputs[i]);
  if (e.data)
    for (int32_t v = 0; v < e.m->n_values; v++)
      if (e.owned[v]) free(e.data[v]);
  free(e.data);
  free(e.owned);
  return st;
}
