/* Helpers shared by the op translations (onnx_ops_*.c): emitting common nodes, constants
 * and casts, reading axes, the affine form of loop-counter integers, and run-time checks. */
#include "onnx_internal.h"

#include <stdlib.h>
#include <string.h>

berth_status_t ox_emit_simple(ox_ctx_t *cx, const char *opname, int32_t n_in, const int32_t *in, int32_t *out) {
  berth_op_t op;
  OX_TRY(ox_op(cx, opname, &op));
  return ox_emit1(cx, op, n_in, in, NULL, out);
}

berth_status_t ox_emit_cast(ox_ctx_t *cx, int32_t x, berth_dtype_t to, int32_t *out) {
  if (cx->vals[x].type.dtype == to) {
    *out = x;
    return BERTH_OK;
  }
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_CAST, a);
  a[0].i = to;
  return ox_emit1(cx, BERTH_OP_CAST, 1, &x, a, out);
}

berth_status_t ox_emit_reshape(ox_ctx_t *cx, int32_t x, const int64_t *dims, int32_t rank, int32_t *out) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_RESHAPE, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_RESHAPE, a, "shape", dims, rank));
  return ox_emit1(cx, BERTH_OP_RESHAPE, 1, &x, a, out);
}

/* A tensor of `type` filled with v (a constant, folded at once when small). */
berth_status_t ox_emit_full(ox_ctx_t *cx, const berth_type_t *type, double v, int64_t iv, int32_t *out) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_FULL, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_FULL, a, "shape", type->dims, type->rank));
  a[1].i = type->dtype;
  if (berth_dtype_is_int(type->dtype) || type->dtype == BERTH_DTYPE_BOOL) {
    a[2].i = iv;
    a[2].f = (double)iv;
    a[2].n = 1;
  } else {
    OX_TRY(ox_attr_f(cx, BERTH_OP_FULL, a, "value", v));
  }
  return ox_emit1(cx, BERTH_OP_FULL, 0, NULL, a, out);
}

/* A new value equal to x (its own copy of constant data; the same IR value otherwise). */
berth_status_t ox_alias_val(ox_ctx_t *cx, int32_t x, int32_t *out) {
  if (ox_is_const(cx, x)) {
    size_t bytes = berth_type_bytes(&cx->vals[x].type);
    void *d = malloc(bytes ? bytes : 1);
    if (!d) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
    memcpy(d, cx->vals[x].data, bytes);
    berth_type_t t = cx->vals[x].type;
    OX_TRY(ox_const_new(cx, &t, d, out));
  } else {
    int32_t v = ox_val_new(cx);
    if (v < 0) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
    cx->vals[v].type = cx->vals[x].type;
    cx->vals[v].id = cx->vals[x].id;
    *out = v;
  }
  cx->vals[*out].elem = cx->vals[x].elem;
  return BERTH_OK;
}

int32_t ox_rank_of(const ox_ctx_t *cx, int32_t v) { return cx->vals[v].type.rank; }

/* ---- affine one-element integers (loop counters and what is derived from them) ---------- */

bool ox_one_int(const ox_ctx_t *cx, int32_t v) {
  return v >= 0 && berth_dtype_is_int(cx->vals[v].type.dtype) && berth_type_numel(&cx->vals[v].type) == 1;
}

int64_t ox_const_int(const ox_ctx_t *cx, int32_t v) {
  const void *d = cx->vals[v].data;
  switch (cx->vals[v].type.dtype) {
    case BERTH_DTYPE_I8: return *(const int8_t *)d;
    case BERTH_DTYPE_U8: return *(const uint8_t *)d;
    case BERTH_DTYPE_I16: return *(const int16_t *)d;
    case BERTH_DTYPE_U16: return *(const uint16_t *)d;
    case BERTH_DTYPE_I32: return *(const int32_t *)d;
    case BERTH_DTYPE_U32: return *(const uint32_t *)d;
    default: return *(const int64_t *)d;
  }
}

/* Records y = (x's base) + (x's offset) + delta when x is a runtime one-element integer. */
void ox_affine_from(ox_ctx_t *cx, int32_t y, int32_t x, int64_t delta) {
  if (!ox_one_int(cx, x) || !ox_one_int(cx, y) || ox_is_const(cx, x) || ox_is_const(cx, y)) return;
  ox_val_t *xv = &cx->vals[x];
  int32_t base = xv->aff_base >= 0 ? xv->aff_base : x;
  int64_t off = xv->aff_base >= 0 ? xv->aff_off : 0, sum;
  if (__builtin_add_overflow(off, delta, &sum)) return; /* offsets from the file: no affine form */
  cx->vals[y].aff_base = base;
  cx->vals[y].aff_off = sum;
}

/* Normalizes an axis against a rank (ONNX allows -rank..rank-1). */
berth_status_t ox_norm_axis(ox_ctx_t *cx, int64_t a, int32_t rank, const char *what, int32_t *out) {
  if (a < -rank || a >= rank)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s %lld is out of range for rank %d", what, (long long)a, (int)rank);
  *out = (int32_t)(a < 0 ? a + rank : a);
  return BERTH_OK;
}

/* Axes from attribute `attr` (opsets before `input_from`) or from operand `k`. n = -1: none. */
berth_status_t ox_axes_operand(ox_ctx_t *cx, const char *attr, int64_t input_from, int32_t k, int64_t *v, int32_t *n) {
  if (cx->opset < input_from) return ox_attr_int_list(cx, attr, v, OX_MAXV, n);
  int32_t x;
  OX_TRY(ox_in(cx, k, &x));
  if (x < 0) {
    *n = -1;
    return BERTH_OK;
  }
  return ox_const_ints(cx, x, "the axes operand", v, OX_MAXV, n);
}


/* ---- run-time checks ------------------------------------------------------------------ */

/* "'NAME'" or "with output 'Y'": how a check's message names the node. */
static void check_label(const ox_ctx_t *cx, char *buf, size_t cap) {
  const Onnx__NodeProto *n = cx->node;
  if (n && n->name && n->name[0]) berth_snprintf(buf, cap, "'%s'", n->name);
  else if (n && n->n_output && n->output[0] && n->output[0][0]) berth_snprintf(buf, cap, "with output '%s'", n->output[0]);
  else berth_snprintf(buf, cap, "(unnamed)");
}

/* The one run-time check of every family: ok (a bool scalar that a kernel computes from data:
 * its own `ok` result, or index_check's) must be true, else the call fails with "OpType
 * 'NAME': what" (an assert after the current node's kernels); a constant false ok fails the
 * import now. */
berth_status_t ox_assert_ok(ox_ctx_t *cx, int32_t ok, const char *what) {
  if (ox_is_const(cx, ok)) {
    if (*(const uint8_t *)cx->vals[ok].data) return BERTH_OK;
    return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "%s", what);
  }
  int32_t ok_id;
  OX_TRY(ox_ir(cx, ok, &ok_id));
  char label[300], msg[700];
  check_label(cx, label, sizeof label);
  berth_snprintf(msg, sizeof msg, "%s %s: %s", cx->node->op_type ? cx->node->op_type : "", label, what);
  int32_t text = -1;
  int32_t node = berth_ir_string_add(cx->p, msg, strlen(msg), &text)
                     ? -1
                     : berth_ir_node_add(cx->m, cx->graph, BERTH_OP_ASSERT, 1, &ok_id);
  if (node < 0) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  cx->m->nodes[node].attrs[0].i = text;
  return BERTH_OK;
}
