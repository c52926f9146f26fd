/* Lowers one method to the flat instruction stream: kernels, copies, renames (coalesced
 * hand-overs that move no bytes but keep every value's identity for the verifier), jumps,
 * counted loops and run-time checks. Uses the hand-over decisions of plan/coalesce.c. */
#include "plan/lower_ctx.h"

#include <stdlib.h>
#include <string.h>

static int32_t emit(lctx_t *c, uint8_t opcode, const int32_t *ops, int32_t n_in, int32_t n_out) {
  if (c->n_instrs == c->cap_instrs) {
    int32_t nc = c->cap_instrs ? c->cap_instrs * 2 : 64;
    linstr_t *ni = realloc(c->instrs, (size_t)nc * sizeof *ni);
    if (!ni) return -1;
    c->instrs = ni;
    c->cap_instrs = nc;
  }
  int32_t total = n_in + n_out;
  if (c->n_operands + total > c->cap_operands) {
    int32_t nc = c->cap_operands ? c->cap_operands * 2 : 128;
    while (nc < c->n_operands + total) nc *= 2;
    int32_t *no = realloc(c->operands, (size_t)nc * sizeof *no);
    if (!no) return -1;
    c->operands = no;
    c->cap_operands = nc;
  }
  linstr_t *l = &c->instrs[c->n_instrs];
  memset(l, 0, sizeof *l);
  l->in.opcode = opcode;
  l->in.n_in = (uint16_t)n_in;
  l->in.n_out = (uint16_t)n_out;
  l->in.operands = (uint32_t)c->n_operands;
  l->in.target = -1;
  l->in.reg = -1;
  l->attr_node = -1;
  for (int32_t i = 0; i < total; i++) c->operands[c->n_operands++] = lctx_resolve(c, ops[i]);
  return c->n_instrs++;
}

#define EMIT_OR_FAIL(expr)                                                            \
  do {                                                                                \
    if ((expr) < 0) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory"); \
  } while (0)

static int32_t emit_copy(lctx_t *c, int32_t src, int32_t dst) {
  int32_t ops[2] = {src, dst};
  c->copies++;
  return emit(c, BERTH_I_COPY, ops, 1, 1);
}

static int32_t emit_rename(lctx_t *c, int32_t src, int32_t dst) {
  int32_t ops[2] = {src, dst};
  c->renames++;
  return emit(c, BERTH_I_RENAME, ops, 1, 1);
}

static int32_t emit_jump(lctx_t *c, uint8_t opcode, int32_t cond) {
  return emit(c, opcode, &cond, opcode == BERTH_I_JUMP_IF_FALSE ? 1 : 0, 0);
}

static berth_status_t emit_graph(lctx_t *c, int32_t g);

/* Copies of mutable buffers bound to body parameters (see timeline.c: bind_param). */
static berth_status_t emit_snapshots(lctx_t *c, int32_t g) {
  const berth_ir_graph_t *graph = &c->m->graphs[g];
  for (int32_t i = 0; i < graph->n_params; i++) {
    int32_t p = graph->params[i];
    if (c->vals[p].snap_src >= 0) EMIT_OR_FAIL(emit_copy(c, c->vals[p].snap_src, p));
  }
  return BERTH_OK;
}

/* Cond hand-over of body b: copies first, then renames (a rename moves no bytes, so it
 * cannot disturb a copy's source; doing the copies first keeps every source intact). */
static berth_status_t cond_handover(lctx_t *c, int32_t ni, int32_t b) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  const berth_ir_graph_t *body = &c->m->graphs[n->graphs[b]];
  for (int pass = 0; pass < 2; pass++)
    for (int32_t i = 0; i < n->n_out; i++) {
      int8_t h = c->handover[lctx_handover_index(c, ni, b, i)];
      if (pass == 0 && h == HANDOVER_COPY) EMIT_OR_FAIL(emit_copy(c, body->results[i], n->out[i]));
      if (pass == 1 && h == HANDOVER_RENAME) EMIT_OR_FAIL(emit_rename(c, body->results[i], n->out[i]));
    }
  return BERTH_OK;
}

/* Loop hand-over at the end of an iteration: per-step outputs that could not be written in
 * place, then carried values that are copied (through a temporary when the source is
 * another carried value), then the renames of carried values coalesced in place. */
static berth_status_t loop_handover(lctx_t *c, int32_t ni, int32_t gb, int32_t n_carry) {
  const berth_ir_graph_t *body = &c->m->graphs[gb];
  for (int32_t j = n_carry; j < body->n_results; j++) {
    int64_t idx = lctx_handover_index(c, ni, 0, j);
    if (c->handover[idx] == HANDOVER_COPY) EMIT_OR_FAIL(emit_copy(c, body->results[j], c->ho_value[idx]));
    else c->windows++;
  }
  for (int32_t k = 0; k < n_carry; k++) {
    int64_t idx = lctx_handover_index(c, ni, 0, k);
    if (c->handover[idx] == HANDOVER_COPY && c->ho_value[idx] >= 0)
      EMIT_OR_FAIL(emit_copy(c, body->results[k], c->ho_value[idx]));
  }
  for (int32_t k = 0; k < n_carry; k++) {
    int64_t idx = lctx_handover_index(c, ni, 0, k);
    if (c->handover[idx] != HANDOVER_COPY) continue;
    int32_t src = c->ho_value[idx] >= 0 ? c->ho_value[idx] : body->results[k];
    EMIT_OR_FAIL(emit_copy(c, src, body->params[k]));
  }
  for (int32_t k = 0; k < n_carry; k++) {
    int64_t idx = lctx_handover_index(c, ni, 0, k);
    if (c->handover[idx] == HANDOVER_RENAME) EMIT_OR_FAIL(emit_rename(c, body->results[k], body->params[k]));
  }
  return BERTH_OK;
}

/* The scratch value of kernel node ni, if its op asks for working memory
 * (berth_op_scratch_bytes): a u8 value of its own that lives at the node's position only, so
 * the allocator packs it with everything else, disjoint from the node's operands (live there
 * too) and free to share bytes with values dead or not yet born. -1: none; -2: out of memory. */
static int32_t scratch_value(lctx_t *c, int32_t ni) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  berth_type_t in[BERTH_MAX_KERNEL_OPERANDS];
  if (n->n_in > BERTH_MAX_KERNEL_OPERANDS) return -1;
  for (int32_t i = 0; i < n->n_in; i++) in[i] = c->m->values[n->in[i]].type;
  uint64_t bytes = berth_op_scratch_bytes(n->op, n->attrs, in, n->n_in);
  if (bytes == 0) return -1;
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = BERTH_DTYPE_U8;
  t.rank = 1;
  t.dims[0] = (int64_t)bytes;
  char name[160];
  const char *base = n->n_out > 0 ? c->m->values[n->out[0]].name : NULL;
  berth_snprintf(name, sizeof name, "%s.scratch", base && base[0] ? base : berth_op_get(n->op)->name);
  int32_t v = lctx_new_value(c, name, &t, n->graph);
  if (v < 0) return -2;
  c->vals[v].op = (int32_t)n->op;
  lctx_add_iv(c, v, c->node_pos[ni], c->node_pos[ni]);
  c->scratch_values++;
  c->scratch_bytes += bytes;
  return v;
}

/* A kernel node: a VIEW (views.c), a JOIN (a Concat done in place, views.c) or the call. */
static berth_status_t emit_kernel(lctx_t *c, int32_t ni) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  if (n->n_out == 1 && c->vals[n->out[0]].view_src >= 0) { /* a view: no work (views.c) */
    int32_t vops[2] = {n->in[0], n->out[0]};
    int32_t vi = emit(c, BERTH_I_VIEW, vops, 1, 1);
    EMIT_OR_FAIL(vi);
    const lval_t *dst = &c->vals[n->out[0]];
    c->instrs[vi].in.view_offset = dst->voff - c->vals[dst->view_src].voff;
    c->views++;
    return BERTH_OK;
  }
  if (n->n_out == 1 && c->vals[n->out[0]].is_join) { /* a Concat done in place (views.c) */
    int32_t jops[BERTH_MAX_KERNEL_OPERANDS + 1];
    if (n->n_in > BERTH_MAX_KERNEL_OPERANDS) return berth_fail(c->diag, BERTH_ERR_OUT_OF_RANGE, "too many operands");
    memcpy(jops, n->in, (size_t)n->n_in * sizeof *jops);
    jops[n->n_in] = n->out[0];
    EMIT_OR_FAIL(emit(c, BERTH_I_JOIN, jops, n->n_in, 1));
    return BERTH_OK;
  }
  int32_t ops[2 * BERTH_MAX_KERNEL_OPERANDS + 1];
  if (n->n_in + n->n_out > 2 * BERTH_MAX_KERNEL_OPERANDS)
    return berth_fail(c->diag, BERTH_ERR_OUT_OF_RANGE, "too many operands");
  memcpy(ops, n->in, (size_t)n->n_in * sizeof *ops);
  memcpy(ops + n->n_in, n->out, (size_t)n->n_out * sizeof *ops);
  int32_t sv = scratch_value(c, ni);
  EMIT_OR_FAIL(sv == -2 ? -1 : 0);
  if (sv >= 0) ops[n->n_in + n->n_out] = sv;
  /* the scratch operand follows the outputs (emit counts it as one more) */
  int32_t i = emit(c, BERTH_I_KERNEL, ops, n->n_in, n->n_out + (sv >= 0));
  EMIT_OR_FAIL(i);
  c->instrs[i].in.n_out = (uint16_t)n->n_out;
  c->instrs[i].in.n_scratch = sv >= 0;
  c->instrs[i].in.op = (uint16_t)n->op;
  c->instrs[i].attr_node = ni;
  return BERTH_OK;
}

static berth_status_t emit_node(lctx_t *c, int32_t ni) {
  const berth_ir_node_t *n = &c->m->nodes[ni];
  const berth_op_def_t *def = berth_op_get(n->op);
  berth_status_t st = BERTH_OK;
  switch (def->kind) {
    case BERTH_OPKIND_KERNEL: return emit_kernel(c, ni);
    case BERTH_OPKIND_COPY_: {
      /* the new value was computed in the buffer's bytes (coalesce.c state_in_place) */
      const lval_t *r = &c->vals[lctx_group(c, lctx_resolve(c, n->in[1]))];
      const lval_t *d = &c->vals[lctx_resolve(c, n->in[0])];
      if (r->cls == LV_STATE && d->cls == LV_STATE && r->global == d->global && r != d)
        EMIT_OR_FAIL(emit_rename(c, n->in[1], n->in[0]));
      else EMIT_OR_FAIL(emit_copy(c, n->in[1], n->in[0]));
      return BERTH_OK;
    }
    case BERTH_OPKIND_ASSERT: {
      /* in line: a passing check costs one test, a failing one ends the call */
      int32_t i = emit(c, BERTH_I_ASSERT, n->in, 1, 0);
      EMIT_OR_FAIL(i);
      c->instrs[i].in.op = (uint16_t)n->op;
      c->instrs[i].attr_node = ni;
      return BERTH_OK;
    }
    case BERTH_OPKIND_COND: {
      int32_t jf = emit_jump(c, BERTH_I_JUMP_IF_FALSE, n->in[0]);
      EMIT_OR_FAIL(jf);
      if ((st = emit_snapshots(c, n->graphs[0]))) return st;
      if ((st = emit_graph(c, n->graphs[0]))) return st;
      if ((st = cond_handover(c, ni, 0))) return st;
      int32_t j = emit_jump(c, BERTH_I_JUMP, -1);
      EMIT_OR_FAIL(j);
      c->instrs[jf].in.target = c->n_instrs;
      if ((st = emit_snapshots(c, n->graphs[1]))) return st;
      if ((st = emit_graph(c, n->graphs[1]))) return st;
      if ((st = cond_handover(c, ni, 1))) return st;
      c->instrs[j].in.target = c->n_instrs;
      return BERTH_OK;
    }
    case BERTH_OPKIND_WHILE_LOOP: {
      const berth_ir_graph_t *gc = &c->m->graphs[n->graphs[0]], *gb = &c->m->graphs[n->graphs[1]];
      for (int32_t k = 0; k < n->n_in; k++) EMIT_OR_FAIL(emit_copy(c, n->in[k], gb->params[k]));
      int32_t head = c->n_instrs;
      if ((st = emit_graph(c, n->graphs[0]))) return st;
      int32_t jf = emit_jump(c, BERTH_I_JUMP_IF_FALSE, gc->results[0]);
      EMIT_OR_FAIL(jf);
      if ((st = emit_graph(c, n->graphs[1]))) return st;
      if ((st = loop_handover(c, ni, n->graphs[1], n->n_in))) return st;
      int32_t j = emit_jump(c, BERTH_I_JUMP, -1);
      EMIT_OR_FAIL(j);
      c->instrs[j].in.target = head;
      c->instrs[jf].in.target = c->n_instrs;
      for (int32_t k = 0; k < n->n_out; k++) EMIT_OR_FAIL(emit_rename(c, gb->params[k], n->out[k]));
      return BERTH_OK;
    }
    case BERTH_OPKIND_SCAN:
    case BERTH_OPKIND_MAP: {
      bool scan = def->kind == BERTH_OPKIND_SCAN;
      int32_t gb = n->graphs[0];
      const berth_ir_graph_t *body = &c->m->graphs[gb];
      int32_t n_carry = scan ? (int32_t)n->attrs[0].i : 0;
      int32_t n_x = scan ? n->n_in - n_carry : (int32_t)n->attrs[0].i;
      int64_t steps = n_x > 0 ? c->m->values[n->in[n_carry]].type.dims[0] : 0;
      for (int32_t k = 0; k < n_carry; k++) EMIT_OR_FAIL(emit_copy(c, n->in[k], body->params[k]));
      if ((st = emit_snapshots(c, gb))) return st;
      for (int32_t i = 0; i < n_x; i++) {
        int32_t xc = c->x_copy[c->x_copy_base[ni] + i];
        if (xc >= 0) EMIT_OR_FAIL(emit_copy(c, n->in[n_carry + i], xc));
      }
      if (steps > 0) {
        int32_t init = emit(c, BERTH_I_LOOP_INIT, NULL, 0, 0);
        EMIT_OR_FAIL(init);
        c->instrs[init].in.reg = c->hop[ni].reg;
        int32_t head = c->n_instrs;
        if ((st = emit_graph(c, gb))) return st;
        if ((st = loop_handover(c, ni, gb, n_carry))) return st;
        int32_t next = emit(c, BERTH_I_LOOP_NEXT, NULL, 0, 0);
        EMIT_OR_FAIL(next);
        c->instrs[next].in.reg = c->hop[ni].reg;
        c->instrs[next].in.count = steps;
        c->instrs[next].in.target = head;
      }
      for (int32_t k = 0; k < n_carry; k++) EMIT_OR_FAIL(emit_rename(c, body->params[k], n->out[k]));
      return BERTH_OK;
    }
  }
  return berth_fail(c->diag, BERTH_ERR_INTERNAL, "unknown op kind");
}

static berth_status_t emit_graph(lctx_t *c, int32_t g) {
  const berth_ir_graph_t *graph = &c->m->graphs[g];
  for (int32_t i = 0; i < graph->n_nodes; i++) {
    berth_status_t st = emit_node(c, graph->nodes[i]);
    if (st) return st;
  }
  return BERTH_OK;
}

berth_status_t berth_emit_method(lctx_t *c) {
  berth_status_t st = emit_graph(c, c->m->body);
  if (st) return st;
  const berth_ir_graph_t *body = &c->m->graphs[c->m->body];
  for (int32_t k = 0; k < body->n_results; k++)
    if (c->out_copy[k] >= 0) EMIT_OR_FAIL(emit_copy(c, body->results[k], c->out_copy[k]));
  EMIT_OR_FAIL(emit(c, BERTH_I_RETURN, NULL, 0, 0));
  return BERTH_OK;
}
