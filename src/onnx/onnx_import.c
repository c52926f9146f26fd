/* The ONNX importer's driver: the model, its graph inputs and outputs, names and values,
 * node emission with constant folding, attributes and messages. The op translations live
 * in onnx_ops_*.c (the op table: onnx_op_table.c) and onnx_control.c. */
#include "onnx_internal.h"

#include "base/checked.h"
#include "passes/passes.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== values ========================================================================== */

int32_t ox_val_new(ox_ctx_t *cx) {
  if (cx->n_vals == cx->cap_vals) {
    int32_t cap = cx->cap_vals ? cx->cap_vals * 2 : 256;
    ox_val_t *v = realloc(cx->vals, (size_t)cap * sizeof *v);
    if (!v) return -1;
    cx->vals = v;
    cx->cap_vals = cap;
  }
  ox_val_t *v = &cx->vals[cx->n_vals];
  memset(v, 0, sizeof *v);
  v->id = -1;
  v->aff_base = -1;
  return cx->n_vals++;
}

static int32_t plain_elem(berth_dtype_t dt) {
  switch (dt) {
    case BERTH_DTYPE_BOOL: return BERTH_ONNX_BOOL;
    case BERTH_DTYPE_I8: return BERTH_ONNX_INT8;
    case BERTH_DTYPE_U8: return BERTH_ONNX_UINT8;
    case BERTH_DTYPE_I16: return BERTH_ONNX_INT16;
    case BERTH_DTYPE_U16: return BERTH_ONNX_UINT16;
    case BERTH_DTYPE_I32: return BERTH_ONNX_INT32;
    case BERTH_DTYPE_U32: return BERTH_ONNX_UINT32;
    case BERTH_DTYPE_I64: return BERTH_ONNX_INT64;
    case BERTH_DTYPE_U64: return BERTH_ONNX_UINT64;
    case BERTH_DTYPE_F32: return BERTH_ONNX_FLOAT;
    case BERTH_DTYPE_F64: return BERTH_ONNX_DOUBLE;
    default: return BERTH_ONNX_UNDEFINED;
  }
}

int32_t ox_plain_elem(berth_dtype_t dt) { return plain_elem(dt); }

static berth_status_t oom(ox_ctx_t *cx) { return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory"); }

berth_status_t ox_const_new(ox_ctx_t *cx, const berth_type_t *type, void *data, int32_t *out) {
  int32_t v = ox_val_new(cx);
  if (v < 0) {
    free(data);
    return oom(cx);
  }
  cx->vals[v].type = *type;
  cx->vals[v].elem = plain_elem(type->dtype);
  cx->vals[v].data = data;
  *out = v;
  return BERTH_OK;
}

berth_status_t ox_const_i64(ox_ctx_t *cx, const int64_t *v, int32_t n, bool scalar, int32_t *out) {
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = BERTH_DTYPE_I64;
  t.rank = scalar ? 0 : 1;
  t.dims[0] = n;
  int64_t *d = malloc((size_t)(n ? n : 1) * sizeof *d);
  if (!d) return oom(cx);
  if (n) memcpy(d, v, (size_t)n * sizeof *d);
  return ox_const_new(cx, &t, d, out);
}

/* True when v converts to integer dtype dt without undefined behaviour: not NaN, and its
 * truncation toward zero within the dtype's range (bounds are powers of two, exact in a
 * double). Always true for bool and floats (double to f32 overflows to inf). */
bool ox_double_fits(double v, berth_dtype_t dt) {
  double lo, hi; /* hi exclusive */
  switch (dt) {
    case BERTH_DTYPE_I8: lo = -128.0, hi = 128.0; break;
    case BERTH_DTYPE_U8: lo = 0, hi = 256.0; break;
    case BERTH_DTYPE_I16: lo = -32768.0, hi = 32768.0; break;
    case BERTH_DTYPE_U16: lo = 0, hi = 65536.0; break;
    case BERTH_DTYPE_I32: lo = -2147483648.0, hi = 2147483648.0; break;
    case BERTH_DTYPE_U32: lo = 0, hi = 4294967296.0; break;
    case BERTH_DTYPE_I64: lo = -9223372036854775808.0, hi = 9223372036854775808.0; break;
    case BERTH_DTYPE_U64: lo = 0, hi = 18446744073709551616.0; break;
    default: return true;
  }
  if (v != v) return false;
  double t = trunc(v);
  return t >= lo && t < hi;
}

berth_status_t ox_const_scalar(ox_ctx_t *cx, berth_dtype_t dt, double v, int32_t *out) {
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = dt;
  double src = v;
  /* callers check values from the file with their own message; this is the backstop that
   * keeps an out-of-range conversion from being undefined behaviour */
  if (!ox_double_fits(src, dt))
    return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "the value %g does not fit dtype %s", src, berth_dtype_name(dt));
  void *d = malloc(8);
  if (!d) return oom(cx);
  switch (dt) {
    case BERTH_DTYPE_BOOL: *(uint8_t *)d = src != 0; break;
    case BERTH_DTYPE_I8: *(int8_t *)d = (int8_t)src; break;
    case BERTH_DTYPE_U8: *(uint8_t *)d = (uint8_t)src; break;
    case BERTH_DTYPE_I16: *(int16_t *)d = (int16_t)src; break;
    case BERTH_DTYPE_U16: *(uint16_t *)d = (uint16_t)src; break;
    case BERTH_DTYPE_I32: *(int32_t *)d = (int32_t)src; break;
    case BERTH_DTYPE_U32: *(uint32_t *)d = (uint32_t)src; break;
    case BERTH_DTYPE_I64: *(int64_t *)d = (int64_t)src; break;
    case BERTH_DTYPE_U64: *(uint64_t *)d = (uint64_t)src; break;
    case BERTH_DTYPE_F32: *(float *)d = (float)src; break;
    default: *(double *)d = src; break;
  }
  return ox_const_new(cx, &t, d, out);
}

berth_status_t ox_const_bool(ox_ctx_t *cx, bool v, int32_t *out) { return ox_const_scalar(cx, BERTH_DTYPE_BOOL, v, out); }

bool ox_is_const(const ox_ctx_t *cx, int32_t val) { return val >= 0 && cx->vals[val].data != NULL; }

int32_t ox_val_ir(ox_ctx_t *cx, int32_t id) {
  int32_t v = ox_val_new(cx);
  if (v < 0) return -1;
  cx->vals[v].type = cx->m->values[id].type;
  cx->vals[v].elem = plain_elem(cx->vals[v].type.dtype);
  cx->vals[v].id = id;
  return v;
}

berth_status_t ox_ir(ox_ctx_t *cx, int32_t val, int32_t *out_id) {
  ox_val_t *v = &cx->vals[val];
  if (v->absent) return berth_fail(cx->diag, BERTH_ERR_INTERNAL, "onnx: an absent value was used");
  if (v->id < 0) {
    char name[32];
    snprintf(name, sizeof name, "k%d", (int)cx->p->n_globals);
    int32_t g = berth_ir_global_add(cx->p, name, &v->type, false, v->data);
    if (g < 0) return oom(cx);
    if (!v->data_in_ir) { /* one copy of the bytes, not two: the value reads the constant's own */
      free(v->data);
      v->data = cx->p->globals[g].data;
      v->data_in_ir = true;
    }
    int32_t id = berth_ir_global_ref(cx->p, cx->m, g);
    if (id < 0) return oom(cx);
    cx->vals[val].id = id;
  }
  *out_id = cx->vals[val].id;
  return BERTH_OK;
}

/* ==== names =========================================================================== */

static uint32_t hash_name(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

berth_status_t ox_bind(ox_ctx_t *cx, const char *name, int32_t val) {
  if (!name || !name[0]) return BERTH_OK;
  if (!cx->buckets) {
    cx->n_buckets = 4096;
    cx->buckets = malloc((size_t)cx->n_buckets * sizeof *cx->buckets);
    if (!cx->buckets) return oom(cx);
    for (int32_t i = 0; i < cx->n_buckets; i++) cx->buckets[i] = -1;
  }
  if (cx->n_binds == cx->cap_binds) {
    int32_t cap = cx->cap_binds ? cx->cap_binds * 2 : 256;
    ox_bind_t *b = realloc(cx->binds, (size_t)cap * sizeof *b);
    if (!b) return oom(cx);
    cx->binds = b;
    cx->cap_binds = cap;
  }
  size_t len = strlen(name);
  char *copy = malloc(len + 1);
  if (!copy) return oom(cx);
  memcpy(copy, name, len + 1);
  uint32_t h = hash_name(name) % (uint32_t)cx->n_buckets;
  ox_bind_t *b = &cx->binds[cx->n_binds];
  b->name = copy;
  b->val = val;
  b->prev = cx->buckets[h];
  cx->buckets[h] = cx->n_binds++;
  return BERTH_OK;
}

int32_t ox_lookup(const ox_ctx_t *cx, const char *name) {
  if (!cx->buckets || !name) return -1;
  uint32_t h = hash_name(name) % (uint32_t)cx->n_buckets;
  for (int32_t i = cx->buckets[h]; i >= cx->scope_floor && i >= 0; i = cx->binds[i].prev)
    if (strcmp(cx->binds[i].name, name) == 0) return cx->binds[i].val;
  return -1;
}

void ox_unbind_to(ox_ctx_t *cx, int32_t n_binds) {
  while (cx->n_binds > n_binds) {
    ox_bind_t *b = &cx->binds[--cx->n_binds];
    uint32_t h = hash_name(b->name) % (uint32_t)cx->n_buckets;
    cx->buckets[h] = b->prev;
    free(b->name);
  }
}

/* ==== messages ======================================================================== */

static const char *node_label(const Onnx__NodeProto *n, char *buf, size_t cap) {
  if (n->name && n->name[0]) berth_snprintf(buf, cap, "node '%s'", n->name);
  else if (n->n_output && n->output[0] && n->output[0][0]) berth_snprintf(buf, cap, "node -> '%s'", n->output[0]);
  else berth_snprintf(buf, cap, "node (unnamed)");
  return buf;
}

berth_status_t ox_fail(ox_ctx_t *cx, berth_status_t st, const char *fmt, ...) {
  char msg[768], where[300];
  va_list ap;
  va_start(ap, fmt);
  berth_vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (cx->node) {
    char lab[256];
    berth_snprintf(where, sizeof where, "%s (%s, opset %lld)", node_label(cx->node, lab, sizeof lab),
                 cx->node->op_type ? cx->node->op_type : "?", (long long)cx->opset);
    return berth_fail(cx->diag, st, "onnx: %s: %s", where, msg);
  }
  return berth_fail(cx->diag, st, "onnx: %s", msg);
}

/* Prefixes a message from a kernel or a helper with the node. */
static berth_status_t ox_prefix(ox_ctx_t *cx, berth_status_t st) {
  if (!cx->node) return st;
  char lab[256];
  return berth_fail_prefix(cx->diag, st, "onnx: %s (%s, opset %lld)", node_label(cx->node, lab, sizeof lab),
                           cx->node->op_type ? cx->node->op_type : "?", (long long)cx->opset);
}

/* The first method parameter (graph input) that IR value id depends on, or -1. */
static int32_t depends_on_input(const ox_ctx_t *cx, int32_t id, uint8_t *seen) {
  const berth_ir_method_t *m = cx->m;
  if (id < 0 || id >= m->n_values || seen[id]) return -1;
  seen[id] = 1;
  const berth_ir_value_t *v = &m->values[id];
  if (v->kind == BERTH_IR_PARAM) {
    if (v->graph == 0) return id;
    const berth_ir_graph_t *g = &m->graphs[v->graph];
    if (g->parent_node < 0) return -1;
    const berth_ir_node_t *n = &m->nodes[g->parent_node];
    for (int32_t k = 0; k < n->n_in; k++) {
      int32_t r = depends_on_input(cx, n->in[k], seen);
      if (r >= 0) return r;
    }
    return -1;
  }
  if (v->kind != BERTH_IR_NODE) return -1;
  const berth_ir_node_t *n = &m->nodes[v->node];
  for (int32_t k = 0; k < n->n_in; k++) {
    int32_t r = depends_on_input(cx, n->in[k], seen);
    if (r >= 0) return r;
  }
  for (int32_t b = 0; b < n->n_graphs; b++) {
    const berth_ir_graph_t *g = &m->graphs[n->graphs[b]];
    for (int32_t k = 0; k < g->n_results; k++) {
      int32_t r = depends_on_input(cx, g->results[k], seen);
      if (r >= 0) return r;
    }
  }
  return -1;
}

berth_status_t ox_need_const(ox_ctx_t *cx, int32_t val, const char *what) {
  if (ox_is_const(cx, val)) return BERTH_OK;
  int32_t id = cx->vals[val].id;
  uint8_t *seen = calloc((size_t)cx->m->n_values + 1, 1);
  if (!seen) return oom(cx);
  int32_t in = depends_on_input(cx, id, seen);
  free(seen);
  if (in >= 0) {
    const char *name = cx->m->values[in].name ? cx->m->values[in].name : "";
    if (!cx->needs_value) {
      size_t n = strlen(name);
      cx->needs_value = malloc(n + 1);
      if (cx->needs_value) memcpy(cx->needs_value, name, n + 1);
    }
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                   "%s must be known at compile time, but it depends on graph input '%s' (specialize the model on "
                   "its value: --input %s:DTYPE[DIMS]=V,...)", what, name, name);
  }
  return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%s must be known at compile time, but it is computed at run time", what);
}

/* ==== emission ======================================================================== */

void ox_attrs_default(berth_op_t op, berth_attr_value_t *attrs) {
  memset(attrs, 0, sizeof(berth_attr_value_t) * BERTH_MAX_OP_ATTRS);
  const berth_op_def_t *def = berth_op_get(op);
  if (def) berth_op_attrs_default(def, attrs);
}

static berth_status_t attr_slot(ox_ctx_t *cx, berth_op_t op, const char *name, int *idx) {
  const berth_op_def_t *def = berth_op_get(op);
  *idx = def ? berth_op_attr_index(def, name, strlen(name)) : -1;
  if (*idx < 0)
    return ox_fail(cx, BERTH_ERR_INTERNAL, "berth op %s has no attribute '%s'", def ? def->name : "?", name);
  return BERTH_OK;
}

berth_status_t ox_attr_i(ox_ctx_t *cx, berth_op_t op, berth_attr_value_t *attrs, const char *name, int64_t v) {
  int k;
  OX_TRY(attr_slot(cx, op, name, &k));
  attrs[k].i = v;
  attrs[k].f = (double)v;
  attrs[k].n = 1;
  return BERTH_OK;
}

berth_status_t ox_attr_f(ox_ctx_t *cx, berth_op_t op, berth_attr_value_t *attrs, const char *name, double v) {
  int k;
  OX_TRY(attr_slot(cx, op, name, &k));
  attrs[k].f = v;
  bool integral = v == v && v >= -9.2e18 && v <= 9.2e18 && (double)(int64_t)v == v && !(v == 0 && 1 / v < 0);
  attrs[k].i = integral ? (int64_t)v : 0;
  attrs[k].n = integral;
  return BERTH_OK;
}

berth_status_t ox_attr_ints(ox_ctx_t *cx, berth_op_t op, berth_attr_value_t *attrs, const char *name,
                            const int64_t *v, int32_t n) {
  int k;
  OX_TRY(attr_slot(cx, op, name, &k));
  if (n > BERTH_MAX_ATTR_INTS)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%s needs %d values for berth's %s attribute; berth holds at most %d",
                   name, (int)n, name, BERTH_MAX_ATTR_INTS);
  attrs[k].n = n;
  for (int32_t i = 0; i < n; i++) attrs[k].ints[i] = v[i];
  return BERTH_OK;
}

berth_status_t ox_op(ox_ctx_t *cx, const char *name, berth_op_t *out) {
  *out = berth_op_find(name, strlen(name));
  if (*out == BERTH_OP_COUNT) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "berth has no '%s' kernel", name);
  return BERTH_OK;
}

static const char *result_name(ox_ctx_t *cx) {
  const char *name = "t";
  if (cx->name_hint) name = cx->name_hint;
  else if (cx->node && cx->node->n_output && cx->node->output[0] && cx->node->output[0][0]) name = cx->node->output[0];
  if (!cx->name_prefix) return name;
  /* inside a function call: "call/name", so that two calls' values keep apart in reports */
  berth_snprintf(cx->name_buf, sizeof cx->name_buf, "%s%s", cx->name_prefix, name);
  return cx->name_buf;
}

berth_status_t ox_emit(ox_ctx_t *cx, berth_op_t op, int32_t n_in, const int32_t *in, const berth_attr_value_t *attrs_in,
                       int32_t n_out, int32_t *out) {
  const berth_op_def_t *def = berth_op_get(op);
  if (!def || def->kind != BERTH_OPKIND_KERNEL || n_in > BERTH_MAX_KERNEL_OPERANDS || n_out != def->n_out)
    return ox_fail(cx, BERTH_ERR_INTERNAL, "bad emission of op %d", (int)op);
  berth_attr_value_t attrs[BERTH_MAX_OP_ATTRS];
  if (attrs_in) memcpy(attrs, attrs_in, sizeof attrs);
  else ox_attrs_default(op, attrs);
  berth_type_t types[BERTH_MAX_KERNEL_OPERANDS], out_types[BERTH_MAX_KERNEL_OPERANDS];
  const void *data[BERTH_MAX_KERNEL_OPERANDS];
  bool all_const = true;
  for (int32_t k = 0; k < n_in; k++) {
    const ox_val_t *v = &cx->vals[in[k]];
    if (v->absent) return ox_fail(cx, BERTH_ERR_INTERNAL, "absent operand %d of %s", (int)k, def->name);
    types[k] = v->type;
    data[k] = v->data;
    if (!v->data) all_const = false;
  }
  /* the ONNX element type of each result: a narrow type carries over from an operand of the
   * same compute dtype (float16 in, float16 out) */
  int32_t elems[BERTH_MAX_KERNEL_OPERANDS];
  berth_status_t st = def->infer(attrs, types, n_in, out_types, cx->diag);
  if (st) return ox_prefix(cx, st);
  for (int32_t o = 0; o < n_out; o++) {
    elems[o] = plain_elem(out_types[o].dtype);
    for (int32_t k = 0; k < n_in; k++)
      if (cx->vals[in[k]].type.dtype == out_types[o].dtype && berth_onnx_elem_is_narrow(cx->vals[in[k]].elem)) {
        elems[o] = cx->vals[in[k]].elem;
        break;
      }
  }
  if (all_const) {
    void *res[BERTH_MAX_KERNEL_OPERANDS];
    char msg[256];
    berth_diag_t d2 = berth_diag_make(msg, sizeof msg);
    st = berth_fold_kernel(op, attrs, n_in, types, data, n_out, out_types, res, BERTH_ONNX_MAX_FOLD_BYTES, &d2);
    if (st == BERTH_OK) {
      for (int32_t o = 0; o < n_out; o++) {
        int32_t v;
        st = ox_const_new(cx, &out_types[o], res[o], &v);
        if (st) {
          for (int32_t j = o + 1; j < n_out; j++) free(res[j]);
          return st;
        }
        cx->vals[v].elem = elems[o];
        out[o] = v;
      }
      return BERTH_OK;
    }
    if (st != BERTH_ERR_OUT_OF_RANGE) return ox_prefix(cx, berth_fail(cx->diag, st, "%s", msg));
    /* too large to fold: computed at run time */
  }
  int32_t ids[BERTH_MAX_KERNEL_OPERANDS];
  for (int32_t k = 0; k < n_in; k++) OX_TRY(ox_ir(cx, in[k], &ids[k]));
  int32_t node = berth_ir_node_add(cx->m, cx->graph, op, n_in, ids);
  if (node < 0) return oom(cx);
  memcpy(cx->m->nodes[node].attrs, attrs, sizeof attrs);
  for (int32_t o = 0; o < n_out; o++) {
    int32_t id = berth_ir_node_result_add(cx->m, node, result_name(cx), &out_types[o]);
    if (id < 0) return oom(cx);
    int32_t v = ox_val_ir(cx, id);
    if (v < 0) return oom(cx);
    cx->vals[v].elem = elems[o];
    out[o] = v;
  }
  return BERTH_OK;
}

berth_status_t ox_emit1(ox_ctx_t *cx, berth_op_t op, int32_t n_in, const int32_t *in, const berth_attr_value_t *attrs,
                        int32_t *out) {
  return ox_emit(cx, op, n_in, in, attrs, 1, out);
}

/* ==== narrow types ====================================================================
 * A value of a narrow type (float16, bfloat16, float8, float4, int4, int2) lives in a wider
 * compute dtype but holds only values of its type, as if stored and read back: a Cast to
 * the type is a narrow_cast, and a node that computes such a value is followed by one
 * (ox_out), so that a float16 model behaves as an implementation that computes each op in
 * f32 and rounds its result. Constants are decoded exactly and fold through the kernel. */

berth_status_t ox_narrow_cast(ox_ctx_t *cx, int32_t x, int32_t elem, int32_t saturate, int32_t round_mode,
                              int32_t *out) {
  berth_narrow_format_t f;
  if (!ox_narrow_format(elem, &f))
    return ox_fail(cx, BERTH_ERR_INTERNAL, "narrow_cast to %s, which is not a narrow type", berth_onnx_elem_name(elem));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_NARROW_CAST, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_NARROW_CAST, a, "format", f));
  OX_TRY(ox_attr_i(cx, BERTH_OP_NARROW_CAST, a, "saturate", saturate != 0));
  OX_TRY(ox_attr_i(cx, BERTH_OP_NARROW_CAST, a, "round_mode", round_mode));
  OX_TRY(ox_emit1(cx, BERTH_OP_NARROW_CAST, 1, &x, a, out));
  cx->vals[*out].elem = elem;
  return BERTH_OK;
}

/* True if runtime value v is the result of a narrow_cast to the format of elem. */
static bool is_narrow_cast_of(const ox_ctx_t *cx, int32_t v, int32_t elem) {
  const ox_val_t *x = &cx->vals[v];
  berth_narrow_format_t f;
  if (x->data || x->id < 0 || x->id >= cx->m->n_values || !ox_narrow_format(elem, &f)) return false;
  const berth_ir_value_t *iv = &cx->m->values[x->id];
  if (iv->kind != BERTH_IR_NODE) return false;
  const berth_ir_node_t *n = &cx->m->nodes[iv->node];
  return n->op == BERTH_OP_NARROW_CAST && n->attrs[0].i == (int64_t)f;
}

berth_status_t ox_narrow_round(ox_ctx_t *cx, int32_t x, int32_t *out) {
  *out = x;
  int32_t elem = cx->vals[x].elem;
  if (cx->vals[x].absent || !berth_onnx_elem_is_narrow(elem) || is_narrow_cast_of(cx, x, elem)) return BERTH_OK;
  return ox_narrow_cast(cx, x, elem, 1, BERTH_ONNX_ROUND_UP, out);
}

/* ONNX ops whose results hold only values of their operands (or of constants of their
 * type), or that round themselves: their narrow results need no narrow_cast. Neg, Abs and
 * Relu also make -x and 0, which every narrow format holds but float8e8m0 (no sign, no 0),
 * the fnuz types (no -0) and the integers (-(-8) is not an int4). */
static bool keeps_values(const char *op, int32_t elem) {
  static const char *const ops[] = {"Cast", "CastLike", "Concat", "Constant", "ConstantOfShape", "Dropout", "Expand",
                                    "Flatten", "Gather", "Identity", "If", "Loop", "Max", "Min", "ReduceMax",
                                    "ReduceMin", "Reshape", "Scan", "Shape", "Size", "Slice", "Squeeze", "Transpose",
                                    "Unsqueeze", "Where"};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
    if (strcmp(op, ops[k]) == 0) return true;
  if (strcmp(op, "Neg") == 0 || strcmp(op, "Abs") == 0 || strcmp(op, "Relu") == 0)
    return elem == BERTH_ONNX_FLOAT16 || elem == BERTH_ONNX_BFLOAT16 || elem == BERTH_ONNX_FLOAT8E4M3FN ||
           elem == BERTH_ONNX_FLOAT8E5M2 || elem == BERTH_ONNX_FLOAT4E2M1;
  return false;
}

/* ==== attributes of the current node =================================================== */

const Onnx__AttributeProto *ox_attr(const ox_ctx_t *cx, const char *name) {
  const Onnx__NodeProto *n = cx->node;
  for (size_t k = 0; n && k < n->n_attribute; k++) {
    const Onnx__AttributeProto *a = n->attribute[k];
    if (a && a->name && strcmp(a->name, name) == 0) return a;
  }
  return NULL;
}

int64_t ox_attr_int(ox_ctx_t *cx, const char *name, int64_t dflt) {
  const Onnx__AttributeProto *a = ox_attr(cx, name);
  if (!a) return dflt;
  if (a->has_i) return a->i;
  if (!a->has_f) return dflt;
  /* an INT attribute written as a float: only an exact integer in int64's range is one */
  double f = a->f;
  if (ox_double_fits(f, BERTH_DTYPE_I64) && trunc(f) == f) return (int64_t)f;
  if (!cx->bad_attr) {
    cx->bad_attr = a->name;
    cx->bad_attr_value = f;
  }
  return dflt;
}

double ox_attr_float(const ox_ctx_t *cx, const char *name, double dflt) {
  const Onnx__AttributeProto *a = ox_attr(cx, name);
  return a && a->has_f ? a->f : a && a->has_i ? (double)a->i : dflt;
}

berth_status_t ox_attr_int_list(ox_ctx_t *cx, const char *name, int64_t *v, int32_t cap, int32_t *n) {
  const Onnx__AttributeProto *a = ox_attr(cx, name);
  if (!a) {
    *n = -1;
    return BERTH_OK;
  }
  if (a->n_ints > (size_t)cap)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "attribute %s has %zu values; berth handles at most %d", name, a->n_ints,
                   (int)cap);
  for (size_t k = 0; k < a->n_ints; k++) v[k] = a->ints[k];
  *n = (int32_t)a->n_ints;
  return BERTH_OK;
}

const char *ox_attr_string(const ox_ctx_t *cx, const char *name, const char *dflt, char *buf, size_t cap) {
  const Onnx__AttributeProto *a = ox_attr(cx, name);
  if (!a || !a->has_s) return dflt;
  size_t n = a->s.len < cap - 1 ? a->s.len : cap - 1;
  if (n) memcpy(buf, a->s.data, n);
  buf[n] = '\0';
  return buf;
}

/* ==== operands of the current node ===================================================== */

int32_t ox_n_in(const ox_ctx_t *cx) { return (int32_t)cx->node->n_input; }
int32_t ox_n_out(const ox_ctx_t *cx) { return (int32_t)cx->node->n_output; }

berth_status_t ox_in(ox_ctx_t *cx, int32_t k, int32_t *val) {
  *val = -1;
  if (k >= (int32_t)cx->node->n_input) return BERTH_OK;
  const char *name = cx->node->input[k];
  if (!name || !name[0]) return BERTH_OK;
  int32_t v = ox_lookup(cx, name);
  if (v < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input %d '%s' is not defined before this node", (int)k, name);
  /* Identity keeps the extent (the same value under another name); nothing else may read it */
  if (cx->vals[v].ext_count && !(cx->node->op_type && strcmp(cx->node->op_type, "Identity") == 0)) {
    char what[300];
    berth_snprintf(what, sizeof what, "input '%s'", name);
    return ox_check_static(cx, v, what);
  }
  *val = v;
  return BERTH_OK;
}

berth_status_t ox_check_static(ox_ctx_t *cx, int32_t val, const char *what) {
  if (val < 0 || !cx->vals[val].ext_count) return BERTH_OK;
  return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%s has a data-dependent shape (--dynamic-bound); berth supports "
                 "data-dependent shapes only as graph outputs", what);
}

berth_status_t ox_in_req(ox_ctx_t *cx, int32_t k, int32_t *val) {
  OX_TRY(ox_in(cx, k, val));
  if (*val < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input %d is required but missing", (int)k);
  return BERTH_OK;
}

berth_status_t ox_out(ox_ctx_t *cx, int32_t k, int32_t val) {
  if (k >= (int32_t)cx->node->n_output) return BERTH_OK;
  const char *name = cx->node->output[k];
  if (!name || !name[0]) return BERTH_OK;
  /* a computed value of a narrow type is rounded to it (the node computed it wider) */
  if (val >= 0 && berth_onnx_elem_is_narrow(cx->vals[val].elem) &&
      !keeps_values(cx->node->op_type ? cx->node->op_type : "", cx->vals[val].elem))
    OX_TRY(ox_narrow_round(cx, val, &val));
  return ox_bind(cx, name, val);
}

berth_status_t ox_const_ints(ox_ctx_t *cx, int32_t val, const char *what, int64_t *v, int32_t cap, int32_t *n) {
  OX_TRY(ox_need_const(cx, val, what));
  const ox_val_t *x = &cx->vals[val];
  if (!berth_dtype_is_int(x->type.dtype))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s has dtype %s, expected an integer tensor", what,
                   berth_dtype_name(x->type.dtype));
  int64_t numel = berth_type_numel(&x->type);
  if (numel > cap)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%s has %lld values; berth handles at most %d", what, (long long)numel,
                   (int)cap);
  for (int64_t i = 0; i < numel; i++) {
    switch (x->type.dtype) {
      case BERTH_DTYPE_I8: v[i] = ((const int8_t *)x->data)[i]; break;
      case BERTH_DTYPE_U8: v[i] = ((const uint8_t *)x->data)[i]; break;
      case BERTH_DTYPE_I16: v[i] = ((const int16_t *)x->data)[i]; break;
      case BERTH_DTYPE_U16: v[i] = ((const uint16_t *)x->data)[i]; break;
      case BERTH_DTYPE_I32: v[i] = ((const int32_t *)x->data)[i]; break;
      case BERTH_DTYPE_U32: v[i] = ((const uint32_t *)x->data)[i]; break;
      case BERTH_DTYPE_I64: v[i] = ((const int64_t *)x->data)[i]; break;
      default: v[i] = (int64_t)((const uint64_t *)x->data)[i]; break;
    }
  }
  *n = (int32_t)numel;
  return BERTH_OK;
}

berth_status_t ox_const_double(ox_ctx_t *cx, int32_t val, const char *what, double *out) {
  OX_TRY(ox_need_const(cx, val, what));
  const ox_val_t *x = &cx->vals[val];
  if (berth_type_numel(&x->type) != 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s has %lld elements, expected one", what,
                   (long long)berth_type_numel(&x->type));
  const void *p = x->data;
  switch (x->type.dtype) {
    case BERTH_DTYPE_BOOL: *out = *(const uint8_t *)p != 0; break;
    case BERTH_DTYPE_I8: *out = *(const int8_t *)p; break;
    case BERTH_DTYPE_U8: *out = *(const uint8_t *)p; break;
    case BERTH_DTYPE_I16: *out = *(const int16_t *)p; break;
    case BERTH_DTYPE_U16: *out = *(const uint16_t *)p; break;
    case BERTH_DTYPE_I32: *out = *(const int32_t *)p; break;
    case BERTH_DTYPE_U32: *out = *(const uint32_t *)p; break;
    case BERTH_DTYPE_I64: *out = (double)*(const int64_t *)p; break;
    case BERTH_DTYPE_U64: *out = (double)*(const uint64_t *)p; break;
    case BERTH_DTYPE_F32: *out = *(const float *)p; break;
    default: *out = *(const double *)p; break;
  }
  return BERTH_OK;
}

/* ==== graphs ========================================================================== */

bool ox_value_info_type(const Onnx__ValueInfoProto *vi, int32_t *elem, berth_type_t *type, bool *complete) {
  *complete = false;
  if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type)
    return false;
  const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
  *elem = tt->has_elem_type ? tt->elem_type : BERTH_ONNX_UNDEFINED;
  memset(type, 0, sizeof *type);
  berth_dtype_t dt = BERTH_DTYPE_F32;
  bool known = berth_onnx_elem_dtype(*elem, &dt);
  type->dtype = dt;
  if (!tt->shape || tt->shape->n_dim > BERTH_MAX_RANK) {
    type->rank = -1;
    return true;
  }
  type->rank = (int32_t)tt->shape->n_dim;
  bool all = known;
  for (size_t k = 0; k < tt->shape->n_dim; k++) {
    const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[k];
    if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0 &&
        d->dim_value <= BERTH_MAX_DIM) {
      type->dims[k] = d->dim_value;
    } else {
      type->dims[k] = -1;
      all = false;
    }
  }
  *complete = all;
  return true;
}

/* Kind of a value_info's type for messages ("sequence", "optional", ...), NULL for tensors. */
static const char *non_tensor_kind(const Onnx__ValueInfoProto *vi) {
  if (!vi || !vi->type) return NULL;
  switch (vi->type->value_case) {
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: return "a sequence";
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: return "an optional";
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: return "a map";
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE: return "a sparse tensor";
    default: return NULL;
  }
}

const char *ox_non_tensor_kind(const Onnx__ValueInfoProto *vi) { return non_tensor_kind(vi); }

static berth_status_t bind_initializers(ox_ctx_t *cx, const Onnx__GraphProto *g) {
  if (g->n_sparse_initializer)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "graph '%s' has sparse initializers, which berth does not support",
                   g->name ? g->name : "");
  for (size_t k = 0; k < g->n_initializer; k++) {
    const Onnx__TensorProto *t = g->initializer[k];
    if (!t) continue;
    int32_t elem;
    berth_type_t type;
    void *data;
    berth_status_t st = ox_tensor_decode(t, &elem, &type, &data, cx->diag);
    if (st) return berth_fail_prefix(cx->diag, st, "onnx: initializer");
    int32_t v;
    OX_TRY(ox_const_new(cx, &type, data, &v));
    cx->vals[v].elem = elem;
    OX_TRY(ox_bind(cx, t->name, v));
  }
  return BERTH_OK;
}

/* ==== node order ======================================================================
 * ONNX requires a graph's nodes in topological order, but onnxruntime accepts any order and
 * real models ship out of order (an fp16 export with its input Casts last): the nodes are
 * translated in a topological order, the file's own when it is one. A node depends on the
 * producers of its inputs and of every name its sub-graphs read (captures); a cycle is an
 * error naming a node on it. */

typedef struct name_map {
  const char **keys;
  int32_t *vals;
  size_t cap; /* a power of two */
} name_map_t;

static bool map_init(name_map_t *m, size_t n) {
  m->cap = 16;
  while (m->cap < 2 * n + 2) m->cap *= 2;
  m->keys = calloc(m->cap, sizeof *m->keys);
  m->vals = malloc(m->cap * sizeof *m->vals);
  return m->keys && m->vals;
}

static void map_free(name_map_t *m) {
  free(m->keys);
  free(m->vals);
}

static void map_put(name_map_t *m, const char *k, int32_t v) {
  size_t i = hash_name(k) & (m->cap - 1);
  while (m->keys[i] && strcmp(m->keys[i], k) != 0) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) { /* the first producer wins (a second one is the importer's error later) */
    m->keys[i] = k;
    m->vals[i] = v;
  }
}

static int32_t map_get(const name_map_t *m, const char *k) {
  size_t i = hash_name(k) & (m->cap - 1);
  while (m->keys[i]) {
    if (strcmp(m->keys[i], k) == 0) return m->vals[i];
    i = (i + 1) & (m->cap - 1);
  }
  return -1;
}

/* Calls fn for each name node n reads: its inputs and, recursively, its sub-graphs' (to
 * depth 64). Returns false when fn does. */
typedef bool (*name_fn)(void *ctx, const char *name);
static bool each_read(const Onnx__NodeProto *n, name_fn fn, void *ctx, int depth) {
  for (size_t i = 0; i < n->n_input; i++)
    if (n->input[i] && n->input[i][0] && !fn(ctx, n->input[i])) return false;
  if (depth > 64) return true;
  for (size_t a = 0; a < n->n_attribute; a++) {
    const Onnx__AttributeProto *at = n->attribute[a];
    if (!at) continue;
    for (size_t k = 0; k <= at->n_graphs; k++) {
      const Onnx__GraphProto *sg = k < at->n_graphs ? at->graphs[k] : at->g;
      for (size_t j = 0; sg && j < sg->n_node; j++)
        if (sg->node[j] && !each_read(sg->node[j], fn, ctx, depth + 1)) return false;
    }
  }
  return true;
}

typedef struct order_ctx {
  const name_map_t *producers;
  int32_t self;
  int32_t *deps; /* out: producer indices (may repeat), or NULL to test order only */
  int32_t n_deps, cap_deps;
  bool late; /* a dependency on a later node was seen */
} order_ctx_t;

static bool note_dep(void *p, const char *name) {
  order_ctx_t *o = p;
  int32_t j = map_get(o->producers, name);
  if (j < 0 || j == o->self) return true;
  if (j > o->self) o->late = true;
  if (!o->deps) return true;
  if (o->n_deps == o->cap_deps) {
    int32_t cap = o->cap_deps ? o->cap_deps * 2 : 16;
    int32_t *d = realloc(o->deps, sizeof *d * (size_t)cap);
    if (!d) return false;
    o->deps = d;
    o->cap_deps = cap;
  }
  o->deps[o->n_deps++] = j;
  return true;
}

/* *order: NULL when the file's order is topological, else a malloc'd permutation. */
static berth_status_t node_order(ox_ctx_t *cx, const Onnx__GraphProto *g, int32_t **order) {
  *order = NULL;
  size_t n = g->n_node;
  if (n < 2) return BERTH_OK;
  name_map_t prod;
  if (!map_init(&prod, 2 * n)) {
    map_free(&prod);
    return oom(cx);
  }
  for (size_t k = 0; k < n; k++)
    for (size_t o = 0; g->node[k] && o < g->node[k]->n_output; o++)
      if (g->node[k]->output[o] && g->node[k]->output[o][0]) map_put(&prod, g->node[k]->output[o], (int32_t)k);
  order_ctx_t oc = {&prod, 0, NULL, 0, 0, false};
  for (size_t k = 0; k < n && !oc.late; k++) {
    oc.self = (int32_t)k;
    if (g->node[k]) each_read(g->node[k], note_dep, &oc, 0);
  }
  if (!oc.late) {
    map_free(&prod);
    return BERTH_OK;
  }
  /* Kahn's algorithm over the dependency edges, ready nodes in file order */
  berth_status_t st = BERTH_OK;
  int32_t *start = calloc(n + 1, sizeof *start), *indeg = calloc(n, sizeof *indeg);
  int32_t *queue = malloc(n * sizeof *queue), *users = NULL;
  int32_t *first = NULL;
  if (!start || !indeg || !queue) st = oom(cx);
  /* edges dep -> node, as lists of users per dep */
  int32_t *edge_from = NULL, *edge_to = NULL, n_edges = 0, cap_edges = 0;
  for (size_t k = 0; k < n && !st; k++) {
    oc.self = (int32_t)k;
    oc.n_deps = 0;
    oc.deps = oc.deps ? oc.deps : malloc(sizeof(int32_t) * 16);
    if (!oc.deps) {
      st = oom(cx);
      break;
    }
    if (!oc.cap_deps) oc.cap_deps = 16;
    if (g->node[k] && !each_read(g->node[k], note_dep, &oc, 0)) st = oom(cx);
    for (int32_t d = 0; d < oc.n_deps && !st; d++) {
      if (n_edges == cap_edges) {
        cap_edges = cap_edges ? cap_edges * 2 : 256;
        int32_t *a = realloc(edge_from, sizeof *a * (size_t)cap_edges), *b = a ? realloc(edge_to, sizeof *b * (size_t)cap_edges) : NULL;
        if (a) edge_from = a;
        if (b) edge_to = b;
        if (!a || !b) {
          st = oom(cx);
          break;
        }
      }
      edge_from[n_edges] = oc.deps[d];
      edge_to[n_edges++] = (int32_t)k;
      indeg[k]++;
    }
  }
  free(oc.deps);
  if (!st) {
    users = malloc(sizeof *users * (size_t)(n_edges ? n_edges : 1));
    first = calloc(n + 1, sizeof *first);
    if (!users || !first) st = oom(cx);
  }
  if (!st) {
    for (int32_t e = 0; e < n_edges; e++) start[edge_from[e] + 1]++;
    for (size_t k = 0; k < n; k++) start[k + 1] += start[k];
    memcpy(first, start, sizeof *first * (n + 1));
    for (int32_t e = 0; e < n_edges; e++) users[first[edge_from[e]]++] = edge_to[e];
    size_t head = 0, tail = 0;
    for (size_t k = 0; k < n; k++)
      if (indeg[k] == 0) queue[tail++] = (int32_t)k;
    while (head < tail) {
      int32_t k = queue[head++];
      for (int32_t e = start[k]; e < start[k + 1]; e++)
        if (--indeg[users[e]] == 0) queue[tail++] = users[e];
    }
    if (tail < n) {
      size_t k = 0;
      while (indeg[k] == 0) k++;
      const Onnx__NodeProto *nd = g->node[k];
      char lab[256];
      st = berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT,
                      "onnx: graph '%s': %zu nodes depend on each other in a cycle, %s (%s) among them",
                      g->name ? g->name : "", n - tail, node_label(nd, lab, sizeof lab), nd && nd->op_type ? nd->op_type : "?");
    } else {
      *order = queue;
      queue = NULL;
    }
  }
  free(start);
  free(indeg);
  free(queue);
  free(users);
  free(first);
  free(edge_from);
  free(edge_to);
  map_free(&prod);
  return st;
}

/* Translates g's nodes (initializers bound already) in a topological order. */
static berth_status_t translate_nodes(ox_ctx_t *cx, const Onnx__GraphProto *g) {
  int32_t *order;
  OX_TRY(node_order(cx, g, &order));
  berth_status_t st = BERTH_OK;
  for (size_t k = 0; k < g->n_node && st == BERTH_OK; k++) {
    const Onnx__NodeProto *nd = g->node[order ? (size_t)order[k] : k];
    if (!nd) continue;
    cx->node = nd;
    st = ox_translate_node(cx);
  }
  free(order);
  return st;
}

berth_status_t ox_graph_nodes(ox_ctx_t *cx, const Onnx__GraphProto *g) {
  if (g->n_node > BERTH_ONNX_MAX_NODES)
    return berth_fail(cx->diag, BERTH_ERR_OUT_OF_RANGE, "onnx: graph '%s' has %zu nodes, over berth's cap of %d",
                      g->name ? g->name : "", g->n_node, BERTH_ONNX_MAX_NODES);
  const Onnx__NodeProto *saved = cx->node;
  cx->node = NULL;
  berth_status_t st = bind_initializers(cx, g);
  if (!st) st = translate_nodes(cx, g);
  cx->node = saved;
  return st;
}

/* ==== the model ======================================================================= */

berth_onnx_options_t berth_onnx_options_default(void) {
  berth_onnx_options_t o;
  memset(&o, 0, sizeof o);
  return o;
}

void berth_onnx_info_deinit(berth_onnx_info_t *info) {
  if (!info) return;
  for (int32_t k = 0; k < info->n_inputs; k++) free(info->inputs[k].name);
  for (int32_t k = 0; k < info->n_outputs; k++) free(info->outputs[k].name);
  free(info->inputs);
  free(info->outputs);
  free(info->needs_value);
  memset(info, 0, sizeof *info);
}

static char *dup_s(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

/* The importer's constant bytes, once the program holds everything it needs: the copies it
 * owns are freed, the borrowed ones forgotten (the passes replace the program's constants). */
static void release_const_data(ox_ctx_t *cx) {
  for (int32_t i = 0; i < cx->n_vals; i++) {
    if (!cx->vals[i].data_in_ir) free(cx->vals[i].data);
    cx->vals[i].data = NULL;
    cx->vals[i].data_in_ir = false;
  }
}

static void ctx_free(ox_ctx_t *cx) {
  release_const_data(cx);
  free(cx->vals);
  ox_unbind_to(cx, 0);
  free(cx->binds);
  free(cx->buckets);
  free(cx->fn_calls);
}

static void fmt_declared(const berth_type_t *t, int32_t elem, char *buf, size_t cap) {
  size_t o = berth_snprintf(buf, cap, "%s[", berth_onnx_elem_name(elem));
  for (int32_t k = 0; k < t->rank && o < cap; k++) {
    if (t->dims[k] < 0) o += berth_snprintf(buf + o, cap - o, "%s?", k ? "," : "");
    else o += berth_snprintf(buf + o, cap - o, "%s%lld", k ? "," : "", (long long)t->dims[k]);
  }
  if (o < cap) berth_snprintf(buf + o, cap - o, "]");
}

/* ==== what a model lacks, in one message ==============================================
 * Before any node is translated: every op of the default domain that berth lacks (with its
 * node count) and every graph input whose dims are still unknown, so that a user sees the
 * whole gap at once instead of one op per attempt. Ops of other domains are left to the
 * translation (which names the domain). */

typedef struct lack {
  bool fn_seen[OX_MAX_FUNCTIONS]; /* each function body is walked once */
  const char *ops[64];
  int counts[64];
  int n_ops, more_ops;
} lack_t;

static void lack_walk(const ox_ctx_t *cx, lack_t *l, Onnx__NodeProto *const *nodes, size_t n_nodes, int depth) {
  for (size_t k = 0; nodes && k < n_nodes; k++) {
    const Onnx__NodeProto *n = nodes[k];
    if (!n) continue;
    const char *dom = n->domain ? n->domain : "";
    const char *op = n->op_type ? n->op_type : "";
    int32_t fn = ox_function_find(cx, dom, op, n->overload);
    if (fn >= 0) { /* a model-local function: what its body lacks, looked at once */
      if (!l->fn_seen[fn] && depth < 64) {
        l->fn_seen[fn] = true;
        lack_walk(cx, l, cx->functions[fn]->node, cx->functions[fn]->n_node, depth + 1);
      }
      continue;
    }
    if ((!dom[0] || strcmp(dom, "ai.onnx") == 0) && !ox_op_known(op)) {
      int i = 0;
      while (i < l->n_ops && strcmp(l->ops[i], op) != 0) i++;
      if (i < l->n_ops) l->counts[i]++;
      else if (l->n_ops < 64) {
        l->ops[l->n_ops] = op;
        l->counts[l->n_ops++] = 1;
      } else l->more_ops++;
    }
    if (depth >= 64) continue;
    for (size_t a = 0; a < n->n_attribute; a++) {
      const Onnx__AttributeProto *at = n->attribute[a];
      if (!at) continue;
      if (at->g) lack_walk(cx, l, at->g->node, at->g->n_node, depth + 1);
      for (size_t j = 0; j < at->n_graphs; j++)
        if (at->graphs[j]) lack_walk(cx, l, at->graphs[j]->node, at->graphs[j]->n_node, depth + 1);
    }
  }
}

static berth_status_t precheck(ox_ctx_t *cx, const Onnx__GraphProto *g) {
  lack_t l;
  memset(&l, 0, sizeof l);
  lack_walk(cx, &l, g->node, g->n_node, 0);
  char msg[1500];
  size_t o = 0;
  int n_unknown = 0;
  char ins[700];
  size_t io = 0;
  ins[0] = '\0';
  for (size_t k = 0; k < g->n_input; k++) {
    const Onnx__ValueInfoProto *vi = g->input[k];
    const char *name = vi && vi->name ? vi->name : "";
    if (ox_lookup(cx, name) >= 0 || non_tensor_kind(vi)) continue; /* initializers; other kinds fail on their own */
    bool fixed = false;
    for (int32_t s = 0; s < cx->opt->n_inputs; s++)
      fixed |= cx->opt->inputs[s].name && strcmp(cx->opt->inputs[s].name, name) == 0 && cx->opt->inputs[s].rank >= 0;
    int32_t elem = BERTH_ONNX_UNDEFINED;
    berth_type_t decl;
    bool complete = false;
    bool typed = ox_value_info_type(vi, &elem, &decl, &complete);
    if (fixed || complete) continue;
    char d[200];
    if (typed && decl.rank >= 0) fmt_declared(&decl, elem, d, sizeof d);
    else berth_snprintf(d, sizeof d, "of unknown shape");
    if (io < sizeof ins) io += berth_snprintf(ins + io, sizeof ins - io, "%s'%s' %s", n_unknown ? ", " : "", name, d);
    n_unknown++;
  }
  if (l.n_ops == 0 && n_unknown < 2) return BERTH_OK; /* one unknown input: import_inputs says it */
  if (l.n_ops) {
    o += berth_snprintf(msg + o, sizeof msg - o, "berth lacks %d op%s this model uses:", l.n_ops + l.more_ops,
                      l.n_ops + l.more_ops > 1 ? "s" : "");
    for (int i = 0; i < l.n_ops && o < sizeof msg; i++)
      o += berth_snprintf(msg + o, sizeof msg - o, "%s %s (%d node%s)", i ? "," : "", l.ops[i][0] ? l.ops[i] : "(empty)",
                        l.counts[i], l.counts[i] > 1 ? "s" : "");
    if (l.more_ops && o < sizeof msg) o += berth_snprintf(msg + o, sizeof msg - o, " and %d more", l.more_ops);
  }
  if (n_unknown && o < sizeof msg)
    o += berth_snprintf(msg + o, sizeof msg - o, "%sgraph input%s %s %s dynamic or unknown dims (fix them with --input NAME:DTYPE[DIMS])",
                      o ? "; " : "", n_unknown > 1 ? "s" : "", ins, n_unknown > 1 ? "have" : "has");
  return berth_fail(cx->diag, l.n_ops ? BERTH_ERR_UNIMPLEMENTED : BERTH_ERR_INVALID_ARGUMENT, "onnx: %s", msg);
}

static berth_status_t import_inputs(ox_ctx_t *cx, const Onnx__GraphProto *g, berth_onnx_info_t *info) {
  const berth_onnx_options_t *opt = cx->opt;
  OX_TRY(ox_state_check(cx, g));
  /* every spec must name a graph input */
  for (int32_t s = 0; s < opt->n_inputs; s++) {
    bool found = false;
    for (size_t k = 0; k < g->n_input && !found; k++)
      found = g->input[k] && g->input[k]->name && opt->inputs[s].name && strcmp(g->input[k]->name, opt->inputs[s].name) == 0;
    if (!found)
      return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: --input names '%s', but the model has no graph input of that name",
                        opt->inputs[s].name ? opt->inputs[s].name : "");
  }
  info->inputs = calloc(g->n_input ? g->n_input : 1, sizeof *info->inputs);
  if (!info->inputs) return oom(cx);
  info->n_graph_inputs = (int32_t)g->n_input;
  for (size_t k = 0; k < g->n_input; k++) {
    const Onnx__ValueInfoProto *vi = g->input[k];
    const char *name = vi && vi->name ? vi->name : "";
    if (ox_state_of_input(cx, name) >= 0) {
      OX_TRY(ox_state_input(cx, vi));
      continue;
    }
    if (ox_lookup(cx, name) >= 0) continue; /* an initializer: a constant (its default) */
    const berth_onnx_input_spec_t *spec = NULL;
    for (int32_t s = 0; s < opt->n_inputs; s++)
      if (opt->inputs[s].name && strcmp(opt->inputs[s].name, name) == 0) spec = &opt->inputs[s];
    const char *kind = non_tensor_kind(vi);
    if (kind)
      return berth_fail(cx->diag, BERTH_ERR_UNIMPLEMENTED, "onnx: graph input '%s' has %s type; berth supports tensors only",
                        name, kind);
    int32_t elem = BERTH_ONNX_UNDEFINED;
    berth_type_t decl;
    bool complete = false;
    bool typed = ox_value_info_type(vi, &elem, &decl, &complete);
    berth_dtype_t dt;
    if (typed && !berth_onnx_elem_dtype(elem, &dt))
      return berth_fail(cx->diag, BERTH_ERR_UNIMPLEMENTED, "onnx: graph input '%s' has element type %s, which berth does not support",
                        name, berth_onnx_elem_name(elem));
    berth_type_t t;
    memset(&t, 0, sizeof t);
    char dbuf[200], sbuf[160];
    if (typed) fmt_declared(&decl, elem, dbuf, sizeof dbuf);
    else berth_snprintf(dbuf, sizeof dbuf, "untyped");
    if (spec) {
      if (typed && spec->dtype != dt)
        return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: --input %s: dtype %s does not match the model's %s (computed as %s)",
                          name, berth_dtype_name(spec->dtype), dbuf, berth_dtype_name(dt));
      if (!typed) elem = plain_elem(spec->dtype);
      t.dtype = spec->dtype;
      if (spec->rank >= 0) {
        t.rank = spec->rank;
        for (int32_t d = 0; d < spec->rank; d++) t.dims[d] = spec->dims[d];
        if (typed && decl.rank >= 0) {
          bool ok = decl.rank == t.rank;
          for (int32_t d = 0; ok && d < t.rank; d++) ok = decl.dims[d] < 0 || decl.dims[d] == t.dims[d];
          if (!ok)
            return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: --input %s: shape %s does not fit the model's %s",
                              name, berth_type_format(&t, sbuf, sizeof sbuf), dbuf);
        }
      } else if (!complete) {
        return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: graph input '%s' is %s: give its shape with --input %s:DTYPE[DIMS]",
                          name, dbuf, name);
      } else {
        t.rank = decl.rank;
        memcpy(t.dims, decl.dims, sizeof t.dims);
      }
    } else {
      if (!complete)
        return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT,
                          "onnx: graph input '%s' is %s, which has dynamic or unknown dims: fix them with --input %s:DTYPE[DIMS]",
                          name, dbuf, name);
      t = decl;
    }
    if (!berth_type_check(&t))
      return berth_fail(cx->diag, BERTH_ERR_OUT_OF_RANGE, "onnx: graph input '%s' %s exceeds berth's caps", name,
                        berth_type_format(&t, sbuf, sizeof sbuf));
    int32_t v;
    if (spec && spec->value) {
      size_t bytes = berth_type_bytes(&t);
      void *d = malloc(bytes ? bytes : 1);
      if (!d) return oom(cx);
      if (bytes) memcpy(d, spec->value, bytes);
      OX_TRY(ox_const_new(cx, &t, d, &v));
    } else {
      int32_t id = berth_ir_param_add(cx->m, 0, name, &t);
      if (id < 0) return oom(cx);
      v = ox_val_ir(cx, id);
      if (v < 0) return oom(cx);
      berth_onnx_io_t *io = &info->inputs[info->n_inputs++];
      io->name = dup_s(name);
      if (!io->name) return oom(cx);
      io->graph_index = (int32_t)k;
      io->elem = elem;
      io->type = t;
    }
    cx->vals[v].elem = elem;
    if (berth_onnx_elem_is_narrow(elem)) {
      /* the caller's values (any of the compute dtype) as the type holds them */
      cx->name_hint = name;
      berth_status_t st = ox_narrow_cast(cx, v, elem, 1, BERTH_ONNX_ROUND_UP, &v);
      cx->name_hint = NULL;
      OX_TRY(st);
    }
    OX_TRY(ox_bind(cx, name, v));
  }
  return BERTH_OK;
}

/* The method result for graph output `name` carries that name (users look outputs up by it;
 * --out-dir names files by it), whatever computed it: an inlined If's branch, an Identity.
 * A node result of the body is renamed; a graph input, a constant or a value returned
 * twice is cloned into a value of that name (the result's own storage holds a copy anyway). */
static berth_status_t name_result(ox_ctx_t *cx, const char *name, int32_t *id) {
  berth_ir_value_t *v = &cx->m->values[*id];
  if (v->name && strcmp(v->name, name) == 0) return BERTH_OK;
  bool taken = v->kind != BERTH_IR_NODE || v->graph != 0;
  const berth_ir_graph_t *g0 = &cx->m->graphs[0];
  for (int32_t k = 0; k < g0->n_results && !taken; k++) taken = g0->results[k] == *id;
  if (!taken) {
    char *copy = dup_s(name);
    if (!copy) return oom(cx);
    free(v->name);
    v->name = copy;
    return BERTH_OK;
  }
  berth_type_t t = v->type;
  int32_t node = berth_ir_node_add(cx->m, 0, BERTH_OP_CLONE, 1, id);
  if (node < 0) return oom(cx);
  ox_attrs_default(BERTH_OP_CLONE, cx->m->nodes[node].attrs);
  int32_t r = berth_ir_node_result_add(cx->m, node, name, &t);
  if (r < 0) return oom(cx);
  *id = r;
  return BERTH_OK;
}

static berth_status_t import_outputs(ox_ctx_t *cx, const Onnx__GraphProto *g, berth_onnx_info_t *info) {
  info->outputs = calloc(g->n_output ? g->n_output : 1, sizeof *info->outputs);
  if (!info->outputs) return oom(cx);
  for (size_t k = 0; k < g->n_output; k++) {
    const Onnx__ValueInfoProto *vi = g->output[k];
    const char *name = vi && vi->name ? vi->name : "";
    const char *kind = non_tensor_kind(vi);
    if (kind)
      return berth_fail(cx->diag, BERTH_ERR_UNIMPLEMENTED, "onnx: graph output '%s' has %s type; berth supports tensors only",
                        name, kind);
    if (ox_state_of_output(cx, name) >= 0) {
      OX_TRY(ox_state_output(cx, vi));
      continue;
    }
    int32_t v = ox_lookup(cx, name);
    if (v < 0 || cx->vals[v].absent)
      return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: graph output '%s' is not computed by any node", name);
    berth_onnx_io_t *io = &info->outputs[info->n_outputs++];
    io->name = dup_s(name);
    if (!io->name) return oom(cx);
    io->graph_index = (int32_t)k;
    io->elem = cx->vals[v].elem;
    int32_t delem;
    berth_type_t decl;
    bool complete;
    if (ox_value_info_type(vi, &delem, &decl, &complete) && delem != BERTH_ONNX_UNDEFINED && delem != io->elem) {
      berth_dtype_t a, b;
      if (!(berth_onnx_elem_dtype(delem, &a) && berth_onnx_elem_dtype(io->elem, &b) && a == b &&
            berth_onnx_elem_is_narrow(delem)))
        return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: graph output '%s' is declared %s but computes %s",
                          name, berth_onnx_elem_name(delem), berth_onnx_elem_name(io->elem));
      /* declared narrow, computed in its compute dtype: rounded here, so that every result
       * holds values of its type */
      ox_val_t ext = cx->vals[v];
      OX_TRY(ox_narrow_cast(cx, v, delem, 1, BERTH_ONNX_ROUND_UP, &v)); /* elementwise: keeps the extent */
      cx->vals[v].ext_count = ext.ext_count, cx->vals[v].ext_axis = ext.ext_axis;
      cx->vals[v].ext_count2 = ext.ext_count2, cx->vals[v].ext_axis2 = ext.ext_axis2;
      io->elem = delem;
    }
    int32_t id;
    OX_TRY(ox_ir(cx, v, &id));
    io->type = cx->vals[v].type;
    OX_TRY(name_result(cx, name, &id));
    if (cx->vals[v].ext_count) {
      int32_t eid;
      OX_TRY(ox_ir(cx, cx->vals[v].ext_count - 1, &eid));
      if (berth_ir_bound_add(cx->m, cx->m->graphs[0].n_results, cx->vals[v].ext_axis, eid) < 0) return oom(cx);
      if (cx->vals[v].ext_count2) { /* a second axis, after the first (ext_axis2 > ext_axis) */
        OX_TRY(ox_ir(cx, cx->vals[v].ext_count2 - 1, &eid));
        if (berth_ir_bound_add(cx->m, cx->m->graphs[0].n_results, cx->vals[v].ext_axis2, eid) < 0) return oom(cx);
      }
    }
    if (berth_ir_graph_result_add(cx->m, 0, id) < 0) return oom(cx);
  }
  return BERTH_OK;
}

/* Only the method's parameters and results carry a graph input's or output's name: a
 * translation names the values it emits after the node's output (Clip is max then min, both
 * 'y'), and the text form and the reports spell the first value of a name as it is, so an
 * intermediate value of that name is renamed 'y_1' (the first suffix no interface name has). */
static berth_status_t free_io_names(ox_ctx_t *cx) {
  berth_ir_method_t *m = cx->m;
  const berth_ir_graph_t *g0 = &m->graphs[0];
  int32_t n = m->n_values;
  bool *io = calloc((size_t)n + 1, sizeof *io);
  name_map_t names = {0};
  bool ok = io && map_init(&names, (size_t)n);
  for (int32_t i = 0; ok && i < n; i++)
    if (m->values[i].kind == BERTH_IR_PARAM && m->values[i].graph == 0) io[i] = true;
  for (int32_t k = 0; ok && k < g0->n_results; k++)
    if (g0->results[k] >= 0 && g0->results[k] < n) io[g0->results[k]] = true;
  for (int32_t i = 0; ok && i < n; i++)
    if (io[i] && m->values[i].name) map_put(&names, m->values[i].name, i);
  for (int32_t i = 0; ok && i < n; i++) {
    berth_ir_value_t *v = &m->values[i];
    if (io[i] || !v->name || map_get(&names, v->name) < 0) continue;
    size_t len = strlen(v->name);
    char *cand = malloc(len + 24);
    if (!cand) {
      ok = false;
      break;
    }
    for (unsigned long long k = 1;; k++) {
      snprintf(cand, len + 24, "%s_%llu", v->name, k);
      if (map_get(&names, cand) < 0) break;
    }
    free(v->name);
    v->name = cand;
  }
  map_free(&names);
  free(io);
  return ok ? BERTH_OK : oom(cx);
}

/* Imports the decoded model mp. release: NULL, or where mp is owned: then mp is freed (and
 * *release cleared) as soon as translation no longer needs it, before the passes make packed
 * copies of the weights (the peak memory of an import). */
berth_status_t ox_import_decoded(const Onnx__ModelProto *mp, Onnx__ModelProto **release,
                                 const berth_onnx_options_t *opt_in, berth_ir_program_t **out,
                                 berth_onnx_info_t *info_out, berth_diag_t *diag) {
  berth_onnx_info_t info_local;
  berth_onnx_info_t *info = info_out ? info_out : &info_local;
  memset(info, 0, sizeof *info);
  berth_onnx_options_t dflt = berth_onnx_options_default();
  const berth_onnx_options_t *opt = opt_in ? opt_in : &dflt;
  berth_status_t st = BERTH_OK;
  int64_t opset = -1;
  for (size_t k = 0; k < mp->n_opset_import; k++) {
    const Onnx__OperatorSetIdProto *o = mp->opset_import[k];
    if (o && (!o->domain || !o->domain[0] || strcmp(o->domain, "ai.onnx") == 0) && o->has_version) opset = o->version;
  }
  if (opset < 0 && mp->n_opset_import == 0 && mp->has_ir_version && mp->ir_version <= 2) opset = 1;
  if (opset < BERTH_ONNX_MIN_OPSET || opset > BERTH_ONNX_MAX_OPSET) {
    if (opset < 0 && mp->n_opset_import > 0) {
      /* only foreign domains (ai.onnx.ml, ai.onnx.preview.training): named, unsupported */
      char doms[512];
      size_t o = 0;
      doms[0] = '\0';
      for (size_t k = 0; k < mp->n_opset_import && o < sizeof doms; k++) {
        const Onnx__OperatorSetIdProto *d = mp->opset_import[k];
        if (d && d->domain && d->domain[0])
          o += berth_snprintf(doms + o, sizeof doms - o, "%s'%s' (opset %lld)", o ? ", " : "", d->domain,
                            (long long)(d->has_version ? d->version : 0));
      }
      if (o) {
        return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED,
                          "onnx: the model imports only domain %s, which berth does not implement (a foreign domain: "
                          "berth implements ai.onnx)", doms);
      }
    }
    if (opset < 0) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: the model imports no ai.onnx opset");
    return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "onnx: the model uses ai.onnx opset %lld; berth supports opsets %d to %d",
                      (long long)opset, BERTH_ONNX_MIN_OPSET, BERTH_ONNX_MAX_OPSET);
  }
  info->opset = opset;
  ox_ctx_t cx;
  memset(&cx, 0, sizeof cx);
  cx.opt = opt;
  cx.opset = opset;
  cx.diag = diag;
  cx.p = berth_ir_program_create();
  if (!cx.p) st = oom(&cx);
  if (!st) {
    cx.method = berth_ir_method_add(cx.p, opt->method ? opt->method : "forward");
    if (cx.method < 0) st = oom(&cx);
  }
  if (!st) {
    cx.m = &cx.p->methods[cx.method];
    cx.graph = 0;
    cx.functions = mp->functions;
    cx.n_functions = mp->n_functions;
    st = ox_functions_check(&cx);
  }
  if (!st) {
    const Onnx__GraphProto *g = mp->graph;
    st = bind_initializers(&cx, g);
    if (!st) st = precheck(&cx, g);
    if (!st) st = import_inputs(&cx, g, info);
    if (!st) {
      /* initializers are bound already: translate the nodes only */
      if (g->n_node > BERTH_ONNX_MAX_NODES)
        st = berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "onnx: the graph has %zu nodes, over berth's cap of %d", g->n_node,
                        BERTH_ONNX_MAX_NODES);
      else st = translate_nodes(&cx, g);
      cx.node = NULL;
    }
    if (!st) st = import_outputs(&cx, g, info);
    if (!st) st = free_io_names(&cx);
  }
  /* the model and the importer's constants are not needed past here: free them before the
   * passes make packed copies of the weights (the peak memory of an import) */
  release_const_data(&cx);
  if (release) {
    onnx__model_proto__free_unpacked(*release, NULL);
    *release = NULL;
    mp = NULL;
  }
  /* dead code first: the nodes and constants translation left unused (the convs a BatchNorm
   * was folded into, ...) are neither fused nor packed, and their bytes are freed before the
   * packed copies are made */
  if (!st) st = berth_pass_dce(&cx.p, diag);
  if (!st) (void)berth_pass_fold_affine(cx.p); /* per-channel scale and shift of a conv into its weights */
  if (!st) (void)berth_pass_fuse_act(cx.p); /* conv + relu / clip / leaky_relu; DCE drops the rest */
  if (!st && berth_pass_conv_dft(cx.p) > 0) /* STFT convs (windowed DFT weights) as FFTs, and */
    st = berth_pass_dce(&cx.p, diag);        /* their magnitudes: the add, pows and slices gone */
  if (!st) (void)berth_pass_fuse_chains(cx.p); /* runs of elementwise nodes as one pass */
  if (!st) st = berth_pass_dce(&cx.p, diag);    /* the weights folding replaced, before packing */
  if (!st && !opt->plain_layout) { /* regions of convs in the channel-blocked layout */
    const int32_t nb = berth_pass_block_layout(cx.p, !opt->direct_3x3);
    if (nb < 0) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory in the layout pass");
    else if (nb > 0) st = berth_pass_dce(&cx.p, diag);
  }
  if (!st) (void)berth_pass_pack_weights(cx.p); /* weights packed once, after the fusion */
  if (!st) st = berth_pass_dce(&cx.p, diag);
  if (!st) {
    st = berth_ir_validate(cx.p, diag);
    if (st) st = berth_fail_prefix(diag, BERTH_ERR_INTERNAL, "onnx: the imported program is invalid (a bug in berth's importer)");
  }
  if (st) {
    info->needs_value = cx.needs_value;
    cx.needs_value = NULL;
    berth_ir_program_destroy(cx.p);
    ctx_free(&cx);
    if (!info_out) berth_onnx_info_deinit(info);
    return st;
  }
  ctx_free(&cx);
  free(cx.needs_value);
  if (!info_out) berth_onnx_info_deinit(info);
  *out = cx.p;
  return BERTH_OK;
}

berth_status_t berth_onnx_import(const void *bytes, size_t len, const berth_onnx_options_t *opt,
                                 berth_ir_program_t **out, berth_onnx_info_t *info, berth_diag_t *diag) {
  if (info) memset(info, 0, sizeof *info);
  Onnx__ModelProto *mp = NULL;
  berth_status_t st = ox_model_decode(bytes, len, &mp, diag);
  if (!st) st = ox_import_decoded(mp, &mp, opt, out, info, diag);
  if (mp) onnx__model_proto__free_unpacked(mp, NULL);
  if (st) berth_diag_one_line(diag); /* names in the file may hold newlines */
  return st;
}
