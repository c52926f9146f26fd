/* The core ONNX ops (ai.onnx, opsets 1 to 27): elementwise arithmetic and comparison,
 * casts and constants, shape and data movement, Conv, Gemm, LSTM and the
 * control flow (If, Loop, Scan: onnx_control.c). Each translation reads the current node's
 * operands and attributes, emits berth kernel nodes (which fold when their operands are
 * constants) and binds the node's outputs. Operands that berth needs at compile time
 * (shapes, axes, pads, Range bounds) must fold to constants. */
#include "onnx_internal.h"

#include "base/checked.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- elementwise ---------------------------------------------------------------------- */

/* A one-to-one elementwise op: the row's berth op on the one operand. */
berth_status_t ox_unary(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_emit1(cx, cx->row->op, 1, &x, NULL, &y));
  return ox_out(cx, 0, y);
}


/* A broadcasting binary op: the row's berth op on the two operands. */
berth_status_t ox_binary(ox_ctx_t *cx) {
  int32_t in[2], y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  OX_TRY(ox_emit1(cx, cx->row->op, 2, in, NULL, &y));
  bool add = cx->row->op == BERTH_OP_ADD, sub = cx->row->op == BERTH_OP_SUB;
  if ((add || sub) && ox_one_int(cx, in[0]) && ox_one_int(cx, in[1])) {
    if (ox_is_const(cx, in[1])) {
      int64_t c = ox_const_int(cx, in[1]);
      if (!sub || c != INT64_MIN) ox_affine_from(cx, y, in[0], sub ? -c : c);
    } else if (add && ox_is_const(cx, in[0])) ox_affine_from(cx, y, in[1], ox_const_int(cx, in[0]));
  }
  return ox_out(cx, 0, y);
}


/* Pow: the result has the base's type; an exponent of another type is converted (an
 * integer base with a float exponent is computed in f64 and truncated back). */
static berth_status_t op_pow(ox_ctx_t *cx) {
  int32_t x, e, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &e));
  berth_dtype_t bt = cx->vals[x].type.dtype, et = cx->vals[e].type.dtype;
  if (bt == et || berth_dtype_is_float(bt)) {
    int32_t in[2] = {x, 0};
    OX_TRY(ox_emit_cast(cx, e, bt, &in[1]));
    OX_TRY(ox_emit1(cx, BERTH_OP_POW, 2, in, NULL, &y));
  } else if (berth_dtype_is_int(bt) && berth_dtype_is_float(et)) {
    int32_t in[2], z;
    OX_TRY(ox_emit_cast(cx, x, BERTH_DTYPE_F64, &in[0]));
    OX_TRY(ox_emit_cast(cx, e, BERTH_DTYPE_F64, &in[1]));
    OX_TRY(ox_emit1(cx, BERTH_OP_POW, 2, in, NULL, &z));
    OX_TRY(ox_emit_cast(cx, z, bt, &y));
  } else {
    int32_t in[2] = {x, 0};
    OX_TRY(ox_emit_cast(cx, e, bt, &in[1]));
    OX_TRY(ox_emit1(cx, BERTH_OP_POW, 2, in, NULL, &y));
  }
  cx->vals[y].elem = cx->vals[x].elem; /* the base's type (a float16 exponent of a float base is not the result's) */
  return ox_out(cx, 0, y);
}

static berth_status_t op_mod(ox_ctx_t *cx) {
  berth_op_t op;
  OX_TRY(ox_op(cx, "mod", &op));
  int32_t in[2], y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "fmod", ox_attr_int(cx, "fmod", 0)));
  OX_TRY(ox_emit1(cx, op, 2, in, a, &y));
  return ox_out(cx, 0, y);
}

/* Max, Min, Sum, Mean: variadic, broadcasting. */
static berth_status_t variadic(ox_ctx_t *cx, berth_op_t op, bool mean) {
  int32_t acc;
  OX_TRY(ox_in_req(cx, 0, &acc));
  int32_t n = ox_n_in(cx);
  for (int32_t k = 1; k < n; k++) {
    int32_t in[2] = {acc, 0};
    OX_TRY(ox_in_req(cx, k, &in[1]));
    OX_TRY(ox_emit1(cx, op, 2, in, NULL, &acc));
    /* float16 Sum and Mean round each pairwise step, as a float16 implementation does */
    if (op == BERTH_OP_ADD) OX_TRY(ox_narrow_round(cx, acc, &acc));
  }
  if (mean && n > 1) {
    int32_t c, in[2] = {acc, 0};
    OX_TRY(ox_const_scalar(cx, cx->vals[acc].type.dtype, (double)n, &c));
    in[1] = c;
    OX_TRY(ox_emit1(cx, BERTH_OP_DIV, 2, in, NULL, &acc));
  }
  return ox_out(cx, 0, acc);
}
static berth_status_t op_max(ox_ctx_t *cx) { return variadic(cx, BERTH_OP_MAXIMUM, false); }
static berth_status_t op_min(ox_ctx_t *cx) { return variadic(cx, BERTH_OP_MINIMUM, false); }
static berth_status_t op_sum(ox_ctx_t *cx) { return variadic(cx, BERTH_OP_ADD, false); }
static berth_status_t op_mean(ox_ctx_t *cx) { return variadic(cx, BERTH_OP_ADD, true); }

static berth_status_t op_reciprocal(ox_ctx_t *cx) {
  int32_t x, one, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_const_scalar(cx, cx->vals[x].type.dtype, 1.0, &one));
  int32_t in[2] = {one, x};
  OX_TRY(ox_emit1(cx, BERTH_OP_DIV, 2, in, NULL, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_where(ox_ctx_t *cx) {
  int32_t in[3], y;
  for (int k = 0; k < 3; k++) OX_TRY(ox_in_req(cx, k, &in[k]));
  OX_TRY(ox_emit1(cx, BERTH_OP_WHERE, 3, in, NULL, &y));
  return ox_out(cx, 0, y);
}

/* A bound of Clip-1..10 (a float attribute) as a constant of x's dtype. For an integer
 * dtype min rounds up and max down to an integer (the same clamp of integers); a bound past
 * the dtype's range on the side it does not clamp clamps nothing (*out = -1), and one past
 * the other side would make every result a value the dtype cannot hold: refused. */
static berth_status_t clip_bound(ox_ctx_t *cx, berth_dtype_t dt, const char *name, bool is_min, int32_t *out) {
  *out = -1;
  if (!ox_attr(cx, name)) return BERTH_OK;
  double v = ox_attr_float(cx, name, 0);
  if (!berth_dtype_is_int(dt)) return ox_const_scalar(cx, dt, v, out);
  if (v != v) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute '%s' is NaN, expected a number", name);
  double r = is_min ? ceil(v) : floor(v);
  if (ox_double_fits(r, dt)) return ox_const_scalar(cx, dt, r, out);
  if (is_min == (r < 0)) return BERTH_OK; /* min below every value, max above every value */
  return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "attribute '%s' is %g, %s every %s value, so no result would fit the input's dtype",
                 name, v, is_min ? "above" : "below", berth_dtype_name(dt));
}

/* Clip: maximum with min, then minimum with max (min > max gives max, as ONNX says). */
static berth_status_t op_clip(ox_ctx_t *cx) {
  int32_t x, lo = -1, hi = -1;
  OX_TRY(ox_in_req(cx, 0, &x));
  berth_dtype_t dt = cx->vals[x].type.dtype;
  if (cx->opset < 11) {
    OX_TRY(clip_bound(cx, dt, "min", true, &lo));
    OX_TRY(clip_bound(cx, dt, "max", false, &hi));
  } else {
    OX_TRY(ox_in(cx, 1, &lo));
    OX_TRY(ox_in(cx, 2, &hi));
  }
  int32_t y = x;
  if (lo >= 0) {
    int32_t in[2] = {y, lo};
    OX_TRY(ox_emit1(cx, BERTH_OP_MAXIMUM, 2, in, NULL, &y));
  }
  if (hi >= 0) {
    int32_t in[2] = {y, hi};
    OX_TRY(ox_emit1(cx, BERTH_OP_MINIMUM, 2, in, NULL, &y));
  }
  if (y == x) OX_TRY(ox_emit1(cx, BERTH_OP_CLONE, 1, &x, NULL, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_identity(ox_ctx_t *cx) {
  int32_t x;
  OX_TRY(ox_in_req(cx, 0, &x));
  return ox_out(cx, 0, x);
}

/* Dropout at inference: the identity, with a mask of ones (bool from Dropout-10 on, of x's type
 * in Dropout-1..7). In training mode it drops values at random, which berth does not do:
 * refused, unless the ratio is a constant 0 (then it is the identity as well). Training mode
 * is Dropout-12+'s training_mode input true (it must fold to a constant), or Dropout-1..6's
 * is_test 0, its default: a Dropout-1..6 without is_test = 1 is a training Dropout. */
static berth_status_t op_dropout(ox_ctx_t *cx) {
  int32_t x, mask;
  OX_TRY(ox_in_req(cx, 0, &x));
  bool training = false;
  double ratio = cx->opset >= 12 ? 0.5 : ox_attr_float(cx, "ratio", 0.5);
  int32_t r = -1, tm = -1;
  if (cx->opset >= 12) {
    OX_TRY(ox_in(cx, 1, &r));
    OX_TRY(ox_in(cx, 2, &tm));
    if (r >= 0 && ox_is_const(cx, r)) OX_TRY(ox_const_double(cx, r, "ratio", &ratio));
  }
  bool zero_ratio = ratio == 0 && (r < 0 || ox_is_const(cx, r));
  if (cx->opset >= 12 && tm >= 0 && !zero_ratio) {
    OX_TRY(ox_need_const(cx, tm, "training_mode (Dropout in training mode drops at random)"));
    double t;
    OX_TRY(ox_const_double(cx, tm, "training_mode", &t));
    training = t != 0;
  } else if (cx->opset < 7) {
    training = ox_attr_int(cx, "is_test", 0) == 0;
  }
  if (training) {
    if (r >= 0) OX_TRY(ox_need_const(cx, r, "the ratio of a Dropout in training mode"));
    if (ratio != 0)
      return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                     "training_mode is true with ratio %g%s: random dropping is training only, which berth does not "
                     "run (randomness)", ratio, cx->opset < 7 ? " (is_test is 0, its default before opset 7)" : "");
  }
  OX_TRY(ox_out(cx, 0, x));
  if (ox_n_out(cx) > 1) {
    berth_type_t t = cx->vals[x].type;
    if (cx->opset >= 10) t.dtype = BERTH_DTYPE_BOOL;
    OX_TRY(ox_emit_full(cx, &t, 1, 1, &mask));
    if (cx->opset < 10) cx->vals[mask].elem = cx->vals[x].elem; /* 1 in every narrow float type */
    OX_TRY(ox_out(cx, 1, mask));
  }
  return BERTH_OK;
}

/* ---- casts ---------------------------------------------------------------------------- */

static berth_status_t cast_to(ox_ctx_t *cx, int32_t x, int32_t to_elem) {
  berth_dtype_t dt;
  if (!berth_onnx_elem_dtype(to_elem, &dt))
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "cast to %s (%d): berth does not support that element type",
                   berth_onnx_elem_name(to_elem), (int)to_elem);
  int32_t saturate = ox_attr_int(cx, "saturate", 1) != 0;
  char buf[32];
  const char *rm = ox_attr_string(cx, "round_mode", "up", buf, sizeof buf);
  int32_t round_mode = strcmp(rm, "up") == 0 ? BERTH_ONNX_ROUND_UP : strcmp(rm, "down") == 0 ? BERTH_ONNX_ROUND_DOWN
                       : strcmp(rm, "nearest") == 0 ? BERTH_ONNX_ROUND_NEAREST : -1;
  if (round_mode < 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "round_mode '%s', expected 'up', 'down' or 'nearest'", rm);
  int32_t y;
  if (cx->vals[x].elem == to_elem) {
    OX_TRY(ox_alias_val(cx, x, &y));
  } else if (berth_onnx_elem_is_narrow(to_elem)) {
    /* rounded (saturated, wrapped) to the type, held in its compute dtype; folds for a constant */
    OX_TRY(ox_narrow_cast(cx, x, to_elem, saturate, round_mode, &y));
  } else {
    OX_TRY(ox_emit_cast(cx, x, dt, &y));
    if (y == x) OX_TRY(ox_alias_val(cx, x, &y));
  }
  cx->vals[y].elem = to_elem;
  return ox_out(cx, 0, y);
}

static berth_status_t op_cast(ox_ctx_t *cx) {
  int32_t x;
  OX_TRY(ox_in_req(cx, 0, &x));
  const Onnx__AttributeProto *to = ox_attr(cx, "to");
  if (!to) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'to' is missing");
  int64_t elem = to->has_i ? to->i : 0;
  if (to->has_s) { /* Cast-1..5 spelled the type as a string */
    static const char *names[] = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING",
                                  "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64"};
    for (int k = 0; k < 14; k++)
      if (to->s.len == strlen(names[k]) && memcmp(to->s.data, names[k], to->s.len) == 0) elem = k;
  }
  if (elem < 0 || elem >= BERTH_ONNX_ELEM_COUNT)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'to' is %lld, which is no ONNX element type", (long long)elem);
  return cast_to(cx, x, (int32_t)elem);
}

static berth_status_t op_cast_like(ox_ctx_t *cx) {
  int32_t x, like;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &like));
  return cast_to(cx, x, cx->vals[like].elem);
}

/* ---- constants and shapes -------------------------------------------------------------- */

static berth_status_t op_constant(ox_ctx_t *cx) {
  const Onnx__NodeProto *n = cx->node;
  for (size_t k = 0; k < n->n_attribute; k++) {
    const Onnx__AttributeProto *a = n->attribute[k];
    if (!a || !a->name) continue;
    int32_t v;
    if (strcmp(a->name, "value") == 0) {
      if (!a->t) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'value' holds no tensor");
      int32_t elem;
      berth_type_t t;
      void *d;
      berth_status_t st = ox_tensor_decode(a->t, &elem, &t, &d, cx->diag);
      if (st) return ox_fail(cx, st, "%s", cx->diag && cx->diag->buf ? cx->diag->buf : "bad tensor");
      OX_TRY(ox_const_new(cx, &t, d, &v));
      cx->vals[v].elem = elem;
    } else if (strcmp(a->name, "value_float") == 0) {
      OX_TRY(ox_const_scalar(cx, BERTH_DTYPE_F32, a->f, &v));
    } else if (strcmp(a->name, "value_int") == 0) {
      int64_t i = a->i;
      OX_TRY(ox_const_i64(cx, &i, 1, true, &v));
    } else if (strcmp(a->name, "value_ints") == 0) {
      if (a->n_ints > (size_t)1 << 24)
        return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "attribute 'value_ints' has %zu values, over berth's cap of %d", a->n_ints,
                       1 << 24);
      OX_TRY(ox_const_i64(cx, a->ints, (int32_t)a->n_ints, false, &v));
    } else if (strcmp(a->name, "value_floats") == 0) {
      if (a->n_floats > (size_t)1 << 24)
        return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "attribute 'value_floats' has %zu values, over berth's cap of %d",
                       a->n_floats, 1 << 24);
      berth_type_t t;
      memset(&t, 0, sizeof t);
      t.dtype = BERTH_DTYPE_F32;
      t.rank = 1;
      t.dims[0] = (int64_t)a->n_floats;
      float *d = malloc(a->n_floats ? a->n_floats * sizeof *d : 1);
      if (!d) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
      if (a->n_floats) memcpy(d, a->floats, a->n_floats * sizeof *d);
      OX_TRY(ox_const_new(cx, &t, d, &v));
    } else {
      return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "attribute '%s' (string or sparse constants) is not supported", a->name);
    }
    return ox_out(cx, 0, v);
  }
  return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "no value attribute");
}

static berth_status_t op_shape(ox_ctx_t *cx) {
  int32_t x, v;
  OX_TRY(ox_in_req(cx, 0, &x));
  int32_t r = ox_rank_of(cx, x);
  int64_t start = ox_attr_int(cx, "start", 0), end = ox_attr_int(cx, "end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = start < 0 ? 0 : start > r ? r : start;
  end = end < 0 ? 0 : end > r ? r : end;
  int64_t dims[BERTH_MAX_RANK];
  int32_t n = 0;
  for (int64_t k = start; k < end; k++) dims[n++] = cx->vals[x].type.dims[k];
  OX_TRY(ox_const_i64(cx, dims, n, false, &v));
  return ox_out(cx, 0, v);
}

static berth_status_t op_size(ox_ctx_t *cx) {
  int32_t x, v;
  OX_TRY(ox_in_req(cx, 0, &x));
  int64_t n = berth_type_numel(&cx->vals[x].type);
  OX_TRY(ox_const_i64(cx, &n, 1, true, &v));
  return ox_out(cx, 0, v);
}

static berth_status_t op_constant_of_shape(ox_ctx_t *cx) {
  int32_t s, y;
  OX_TRY(ox_in_req(cx, 0, &s));
  int64_t dims[OX_MAXV];
  int32_t n;
  OX_TRY(ox_const_ints(cx, s, "the shape operand", dims, OX_MAXV, &n));
  if (n > BERTH_MAX_RANK) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "rank %d; berth supports at most %d", (int)n, BERTH_MAX_RANK);
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = BERTH_DTYPE_F32;
  t.rank = n;
  for (int32_t k = 0; k < n; k++) {
    if (dims[k] < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "shape[%d] is %lld, expected >= 0", (int)k, (long long)dims[k]);
    t.dims[k] = dims[k];
  }
  double fv = 0;
  int64_t iv = 0;
  int32_t elem = BERTH_ONNX_FLOAT;
  const Onnx__AttributeProto *a = ox_attr(cx, "value");
  if (a && a->t) {
    berth_type_t vt;
    void *d;
    berth_status_t st = ox_tensor_decode(a->t, &elem, &vt, &d, cx->diag);
    if (st) return ox_fail(cx, st, "value: %s", cx->diag && cx->diag->buf ? cx->diag->buf : "bad tensor");
    if (berth_type_numel(&vt) != 1) {
      free(d);
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "value must have one element");
    }
    t.dtype = vt.dtype;
    switch (vt.dtype) {
      case BERTH_DTYPE_BOOL: iv = *(uint8_t *)d; break;
      case BERTH_DTYPE_I8: iv = *(int8_t *)d; break;
      case BERTH_DTYPE_U8: iv = *(uint8_t *)d; break;
      case BERTH_DTYPE_I16: iv = *(int16_t *)d; break;
      case BERTH_DTYPE_U16: iv = *(uint16_t *)d; break;
      case BERTH_DTYPE_I32: iv = *(int32_t *)d; break;
      case BERTH_DTYPE_U32: iv = *(uint32_t *)d; break;
      case BERTH_DTYPE_I64: iv = *(int64_t *)d; break;
      case BERTH_DTYPE_U64: iv = (int64_t)*(uint64_t *)d; break;
      case BERTH_DTYPE_F32: fv = *(float *)d; break;
      default: fv = *(double *)d; break;
    }
    free(d);
  }
  if (!berth_type_check(&t)) return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "the result exceeds berth's caps");
  OX_TRY(ox_emit_full(cx, &t, fv, iv, &y));
  cx->vals[y].elem = elem;
  return ox_out(cx, 0, y);
}

/* Range: start, limit and delta must be constants; the values are computed here. */
static berth_status_t op_range(ox_ctx_t *cx) {
  int32_t s, l, d, y;
  OX_TRY(ox_in_req(cx, 0, &s));
  OX_TRY(ox_in_req(cx, 1, &l));
  OX_TRY(ox_in_req(cx, 2, &d));
  double start, limit, delta;
  OX_TRY(ox_const_double(cx, s, "start", &start));
  OX_TRY(ox_const_double(cx, l, "limit", &limit));
  OX_TRY(ox_const_double(cx, d, "delta", &delta));
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = cx->vals[s].type.dtype;
  t.rank = 1;
  if (delta == 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "delta is 0");
  bool isf = berth_dtype_is_float(t.dtype);
  if (!isf && (cx->vals[l].type.dtype != t.dtype || cx->vals[d].type.dtype != t.dtype))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "start, limit and delta have dtypes %s, %s and %s, expected one",
                   berth_dtype_name(t.dtype), berth_dtype_name(cx->vals[l].type.dtype),
                   berth_dtype_name(cx->vals[d].type.dtype));
  /* computed here at import time: as large as a folded constant may be */
  const double cap = (double)(BERTH_ONNX_MAX_FOLD_BYTES / (int64_t)berth_dtype_size(t.dtype));
  double cnt;
  int64_t si = 0, di = 0;
  if (isf) {
    if (t.dtype == BERTH_DTYPE_F32) cnt = ceil((double)(((float)limit - (float)start) / (float)delta));
    else cnt = ceil((limit - start) / delta);
    if (!(cnt > 0)) cnt = 0; /* NaN too */
  } else {
    /* integers: the count exactly (a double loses int64's low bits), from the distance as
     * an unsigned number, which cannot overflow */
    int32_t k;
    int64_t tmp[1], li;
    OX_TRY(ox_const_ints(cx, s, "start", tmp, 1, &k));
    si = tmp[0];
    OX_TRY(ox_const_ints(cx, l, "limit", tmp, 1, &k));
    li = tmp[0];
    OX_TRY(ox_const_ints(cx, d, "delta", tmp, 1, &k));
    di = tmp[0];
    if (t.dtype == BERTH_DTYPE_U64) {
      uint64_t su = (uint64_t)si, lu = (uint64_t)li, du = (uint64_t)di;
      cnt = lu > su ? (double)((lu - su) / du + ((lu - su) % du != 0)) : 0;
    } else {
      bool up = di > 0;
      uint64_t dist = up ? (li > si ? (uint64_t)li - (uint64_t)si : 0) : (si > li ? (uint64_t)si - (uint64_t)li : 0);
      uint64_t step = up ? (uint64_t)di : 0 - (uint64_t)di;
      cnt = (double)(dist / step + (dist % step != 0));
    }
  }
  if (cnt > cap)
    return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "Range of %g elements is over berth's cap of %lld bytes for a constant", cnt,
                   (long long)BERTH_ONNX_MAX_FOLD_BYTES);
  int64_t n = (int64_t)cnt;
  t.dims[0] = n;
  size_t bytes = berth_type_bytes(&t);
  void *out = malloc(bytes ? bytes : 1);
  if (!out) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  for (int64_t i = 0; i < n; i++) {
    switch (t.dtype) {
      case BERTH_DTYPE_F32: ((float *)out)[i] = (float)start + (float)i * (float)delta; break;
      case BERTH_DTYPE_F64: ((double *)out)[i] = start + (double)i * delta; break;
      case BERTH_DTYPE_I8: ((int8_t *)out)[i] = (int8_t)((uint64_t)si + (uint64_t)i * (uint64_t)di); break;
      case BERTH_DTYPE_U8: ((uint8_t *)out)[i] = (uint8_t)((uint64_t)si + (uint64_t)i * (uint64_t)di); break;
      case BERTH_DTYPE_I16: ((int16_t *)out)[i] = (int16_t)((uint64_t)si + (uint64_t)i * (uint64_t)di); break;
      case BERTH_DTYPE_U16: ((uint16_t *)out)[i] = (uint16_t)((uint64_t)si + (uint64_t)i * (uint64_t)di); break;
      case BERTH_DTYPE_I32: ((int32_t *)out)[i] = (int32_t)((uint64_t)si + (uint64_t)i * (uint64_t)di); break;
      case BERTH_DTYPE_U32: ((uint32_t *)out)[i] = (uint32_t)((uint64_t)si + (uint64_t)i * (uint64_t)di); break;
      case BERTH_DTYPE_I64: ((int64_t *)out)[i] = (int64_t)((uint64_t)si + (uint64_t)i * (uint64_t)di); break;
      case BERTH_DTYPE_U64: ((uint64_t *)out)[i] = (uint64_t)si + (uint64_t)i * (uint64_t)di; break;
      default: break;
    }
  }
  OX_TRY(ox_const_new(cx, &t, out, &y));
  cx->vals[y].elem = cx->vals[s].elem;
  return ox_out(cx, 0, y);
}

/* ---- shape ops ------------------------------------------------------------------------ */

static berth_status_t op_reshape(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  int64_t shape[OX_MAXV];
  int32_t n;
  if (cx->opset < 5) {
    OX_TRY(ox_attr_int_list(cx, "shape", shape, OX_MAXV, &n));
    if (n < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'shape' is missing");
  } else {
    int32_t s;
    OX_TRY(ox_in_req(cx, 1, &s));
    OX_TRY(ox_const_ints(cx, s, "the shape operand", shape, OX_MAXV, &n));
  }
  if (n > BERTH_MAX_RANK) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "result rank %d; berth supports at most %d", (int)n, BERTH_MAX_RANK);
  bool allowzero = ox_attr_int(cx, "allowzero", 0) != 0;
  const berth_type_t *xt = &cx->vals[x].type;
  /* resolve 0 and -1 here so that berth's reshape gets explicit dims */
  int64_t known = 1;
  int32_t infer = -1;
  for (int32_t k = 0; k < n; k++) {
    if (shape[k] == 0 && !allowzero) {
      if (k >= xt->rank) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "shape[%d] is 0 but the input has rank %d", (int)k, (int)xt->rank);
      shape[k] = xt->dims[k];
    }
    if (shape[k] == -1) {
      if (infer >= 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "shape has two -1 entries");
      infer = k;
    } else if (shape[k] < 0) {
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "shape[%d] is %lld", (int)k, (long long)shape[k]);
    } else if (shape[k] > BERTH_MAX_DIM) {
      return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "shape[%d] is %lld, over berth's cap", (int)k, (long long)shape[k]);
    } else {
      known = known > 0 && shape[k] > INT64_MAX / known ? INT64_MAX : known * shape[k];
    }
  }
  int64_t numel = berth_type_numel(xt);
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "cannot infer the -1 in shape for %lld elements", (long long)numel);
    shape[infer] = numel / known;
  }
  bool empty = false;
  for (int32_t k = 0; k < n; k++) empty |= shape[k] == 0;
  if (empty && numel == 0) {
    berth_type_t t;
    memset(&t, 0, sizeof t);
    t.dtype = xt->dtype;
    t.rank = n;
    for (int32_t k = 0; k < n; k++) t.dims[k] = shape[k];
    OX_TRY(ox_emit_full(cx, &t, 0, 0, &y));
    cx->vals[y].elem = cx->vals[x].elem;
  } else {
    OX_TRY(ox_emit_reshape(cx, x, shape, n, &y));
    ox_affine_from(cx, y, x, 0);
  }
  return ox_out(cx, 0, y);
}

static berth_status_t op_flatten(ox_ctx_t *cx) {
  int32_t x, y, axis;
  OX_TRY(ox_in_req(cx, 0, &x));
  const berth_type_t *t = &cx->vals[x].type;
  int64_t a = ox_attr_int(cx, "axis", 1);
  if (a < 0) a += t->rank;
  if (a < 0 || a > t->rank) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "axis out of range");
  axis = (int32_t)a;
  int64_t d[2] = {1, 1};
  for (int32_t k = 0; k < t->rank; k++) d[k < axis ? 0 : 1] *= t->dims[k];
  OX_TRY(ox_emit_reshape(cx, x, d, 2, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_squeeze(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  int64_t axes[OX_MAXV];
  int32_t n;
  OX_TRY(ox_axes_operand(cx, "axes", 13, 1, axes, &n));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_SQUEEZE, a);
  if (n > 0) OX_TRY(ox_attr_ints(cx, BERTH_OP_SQUEEZE, a, "axes", axes, n));
  OX_TRY(ox_emit1(cx, BERTH_OP_SQUEEZE, 1, &x, a, &y));
  ox_affine_from(cx, y, x, 0);
  return ox_out(cx, 0, y);
}

static berth_status_t op_unsqueeze(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  int64_t axes[OX_MAXV];
  int32_t n;
  OX_TRY(ox_axes_operand(cx, "axes", 13, 1, axes, &n));
  if (n <= 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "axes are missing");
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_UNSQUEEZE, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_UNSQUEEZE, a, "axes", axes, n));
  OX_TRY(ox_emit1(cx, BERTH_OP_UNSQUEEZE, 1, &x, a, &y));
  ox_affine_from(cx, y, x, 0);
  return ox_out(cx, 0, y);
}

static berth_status_t op_transpose(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  int64_t perm[OX_MAXV];
  int32_t n;
  OX_TRY(ox_attr_int_list(cx, "perm", perm, OX_MAXV, &n));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_TRANSPOSE, a);
  if (n > 0) OX_TRY(ox_attr_ints(cx, BERTH_OP_TRANSPOSE, a, "perm", perm, n));
  OX_TRY(ox_emit1(cx, BERTH_OP_TRANSPOSE, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_concat(ox_ctx_t *cx) {
  int32_t n = ox_n_in(cx), y;
  if (n < 1 || n > BERTH_MAX_KERNEL_OPERANDS)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%d operands; berth's concat takes 1 to %d", (int)n, BERTH_MAX_KERNEL_OPERANDS);
  int32_t in[BERTH_MAX_KERNEL_OPERANDS];
  for (int32_t k = 0; k < n; k++) OX_TRY(ox_in_req(cx, k, &in[k]));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_CONCAT, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_CONCAT, a, "axis", ox_attr_int(cx, "axis", 0)));
  OX_TRY(ox_emit1(cx, BERTH_OP_CONCAT, n, in, a, &y));
  return ox_out(cx, 0, y);
}

/* Slice whose single start and end are computed at run time from one value (a loop
 * counter, say) with a constant difference: a gather of end - start rows from the start.
 * Rows outside the input read as zeros (the gather kernel's rule) where ONNX would return
 * fewer rows. */
static berth_status_t slice_dynamic(ox_ctx_t *cx, int32_t x, int32_t s, int32_t e, int32_t a, int32_t t, bool *done) {
  *done = false;
  if (!ox_one_int(cx, s) || !ox_one_int(cx, e) || ox_is_const(cx, s)) return BERTH_OK;
  const ox_val_t *sv = &cx->vals[s], *ev = &cx->vals[e];
  int32_t sb = sv->aff_base >= 0 ? sv->aff_base : s, eb = ev->aff_base >= 0 ? ev->aff_base : e;
  int64_t so = sv->aff_base >= 0 ? sv->aff_off : 0, eo = ev->aff_base >= 0 ? ev->aff_off : 0;
  if (ox_is_const(cx, e) || sb != eb || eo < so || (uint64_t)eo - (uint64_t)so > ((uint64_t)1 << 24)) return BERTH_OK;
  int64_t axis = 0, step = 1, tmp[1];
  int32_t n;
  if (a >= 0) {
    if (!ox_is_const(cx, a)) return BERTH_OK;
    OX_TRY(ox_const_ints(cx, a, "axes", tmp, 1, &n));
    axis = tmp[0];
  }
  if (t >= 0) {
    if (!ox_is_const(cx, t)) return BERTH_OK;
    OX_TRY(ox_const_ints(cx, t, "steps", tmp, 1, &n));
    step = tmp[0];
  }
  if (step != 1) return BERTH_OK;
  int32_t ax = 0;
  OX_TRY(ox_norm_axis(cx, axis, ox_rank_of(cx, x), "axes entry", &ax));
  berth_op_t gather;
  OX_TRY(ox_op(cx, "gather", &gather));
  int64_t len = (int64_t)((uint64_t)eo - (uint64_t)so); /* <= 2^24, checked above */
  int64_t *iota = malloc(sizeof(int64_t) * (size_t)(len ? len : 1));
  if (!iota) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  for (int64_t i = 0; i < len; i++) iota[i] = i;
  int32_t io, start, idx, y;
  berth_status_t st = ox_const_i64(cx, iota, (int32_t)len, false, &io);
  free(iota);
  OX_TRY(st);
  OX_TRY(ox_emit_cast(cx, s, BERTH_DTYPE_I64, &start));
  OX_TRY(ox_emit_reshape(cx, start, NULL, 0, &start));
  int32_t in[2] = {start, io};
  OX_TRY(ox_emit1(cx, BERTH_OP_ADD, 2, in, NULL, &idx));
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(gather, at);
  OX_TRY(ox_attr_i(cx, gather, at, "axis", ax));
  int32_t gin[2] = {x, idx};
  OX_TRY(ox_emit1(cx, gather, 2, gin, at, &y));
  *done = true;
  return ox_out(cx, 0, y);
}

static berth_status_t op_slice(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  if (cx->opset >= 10) {
    int32_t s, e, a, t;
    bool done;
    OX_TRY(ox_in_req(cx, 1, &s));
    OX_TRY(ox_in_req(cx, 2, &e));
    OX_TRY(ox_in(cx, 3, &a));
    OX_TRY(ox_in(cx, 4, &t));
    OX_TRY(slice_dynamic(cx, x, s, e, a, t, &done));
    if (done) return BERTH_OK;
  }
  int64_t starts[OX_MAXV], ends[OX_MAXV], axes[OX_MAXV], steps[OX_MAXV];
  int32_t ns, ne, na = -1, nt = -1;
  if (cx->opset < 10) {
    OX_TRY(ox_attr_int_list(cx, "starts", starts, OX_MAXV, &ns));
    OX_TRY(ox_attr_int_list(cx, "ends", ends, OX_MAXV, &ne));
    OX_TRY(ox_attr_int_list(cx, "axes", axes, OX_MAXV, &na));
    if (ns < 0 || ne < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "starts and ends are required");
  } else {
    int32_t s, e, a, t;
    OX_TRY(ox_in_req(cx, 1, &s));
    OX_TRY(ox_in_req(cx, 2, &e));
    OX_TRY(ox_in(cx, 3, &a));
    OX_TRY(ox_in(cx, 4, &t));
    OX_TRY(ox_const_ints(cx, s, "starts", starts, OX_MAXV, &ns));
    OX_TRY(ox_const_ints(cx, e, "ends", ends, OX_MAXV, &ne));
    if (a >= 0) OX_TRY(ox_const_ints(cx, a, "axes", axes, OX_MAXV, &na));
    if (t >= 0) OX_TRY(ox_const_ints(cx, t, "steps", steps, OX_MAXV, &nt));
  }
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_SLICE, at);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, at, "starts", starts, ns));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, at, "ends", ends, ne));
  if (na >= 0) OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, at, "axes", axes, na));
  if (nt >= 0) OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, at, "steps", steps, nt));
  OX_TRY(ox_emit1(cx, BERTH_OP_SLICE, 1, &x, at, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_expand(ox_ctx_t *cx) {
  int32_t x, s, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &s));
  int64_t shape[OX_MAXV];
  int32_t n;
  OX_TRY(ox_const_ints(cx, s, "the shape operand", shape, OX_MAXV, &n));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_EXPAND, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_EXPAND, a, "shape", shape, n));
  OX_TRY(ox_emit1(cx, BERTH_OP_EXPAND, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_gather(ox_ctx_t *cx) {
  berth_op_t op;
  OX_TRY(ox_op(cx, "gather", &op));
  int32_t in[2], y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  int32_t axis = 0;
  OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", 0), ox_rank_of(cx, in[0]), "axis", &axis));
  /* constant negative indices count from the end */
  ox_val_t *iv = &cx->vals[in[1]];
  if (iv->data && (iv->type.dtype == BERTH_DTYPE_I64 || iv->type.dtype == BERTH_DTYPE_I32)) {
    int64_t dim = cx->vals[in[0]].type.dims[axis], n = berth_type_numel(&iv->type);
    bool neg = false;
    for (int64_t i = 0; i < n && !neg; i++)
      neg = iv->type.dtype == BERTH_DTYPE_I64 ? ((int64_t *)iv->data)[i] < 0 : ((int32_t *)iv->data)[i] < 0;
    if (neg) {
      size_t bytes = berth_type_bytes(&iv->type);
      void *d = malloc(bytes ? bytes : 1);
      if (!d) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
      memcpy(d, iv->data, bytes);
      for (int64_t i = 0; i < n; i++) {
        if (iv->type.dtype == BERTH_DTYPE_I64) {
          if (((int64_t *)d)[i] < 0) ((int64_t *)d)[i] += dim;
        } else if (((int32_t *)d)[i] < 0) {
          ((int32_t *)d)[i] += (int32_t)dim;
        }
      }
      berth_type_t t = iv->type;
      OX_TRY(ox_const_new(cx, &t, d, &in[1]));
    }
  }
  /* an index outside [-dim, dim) fails the call (or the import when constant) instead of
   * the kernel's zero slice */
  int64_t lo = -cx->vals[in[0]].type.dims[axis], hi = cx->vals[in[0]].type.dims[axis];
  int32_t idx64;
  if (!berth_dtype_is_int(cx->vals[in[1]].type.dtype))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "indices have dtype %s, expected int32 or int64",
                   berth_dtype_name(cx->vals[in[1]].type.dtype));
  OX_TRY(ox_emit_cast(cx, in[1], BERTH_DTYPE_I64, &idx64));
  OX_TRY(ox_index_check(cx, idx64, &lo, &hi, 1, "indices"));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "axis", axis));
  OX_TRY(ox_emit1(cx, op, 2, in, a, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t softmax(ox_ctx_t *cx, const char *name) {
  berth_op_t op;
  OX_TRY(ox_op(cx, name, &op));
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "axis", ox_attr_int(cx, "axis", cx->opset < 13 ? 1 : -1)));
  OX_TRY(ox_attr_i(cx, op, a, "legacy", cx->opset < 13));
  OX_TRY(ox_emit1(cx, op, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}
static berth_status_t op_softmax(ox_ctx_t *cx) { return softmax(cx, "softmax"); }
static berth_status_t op_log_softmax(ox_ctx_t *cx) { return softmax(cx, "log_softmax"); }

/* ---- linear algebra and networks ------------------------------------------------------- */


static berth_status_t op_gemm(ox_ctx_t *cx) {
  berth_op_t op;
  OX_TRY(ox_op(cx, "gemm", &op));
  int32_t in[3], n = 2, y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  OX_TRY(ox_in(cx, 2, &in[2]));
  if (in[2] >= 0) n = 3;
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_f(cx, op, a, "alpha", ox_attr_float(cx, "alpha", 1.0)));
  OX_TRY(ox_attr_f(cx, op, a, "beta", ox_attr_float(cx, "beta", 1.0)));
  OX_TRY(ox_attr_i(cx, op, a, "trans_a", ox_attr_int(cx, "transA", 0) != 0));
  OX_TRY(ox_attr_i(cx, op, a, "trans_b", ox_attr_int(cx, "transB", 0) != 0));
  OX_TRY(ox_emit1(cx, op, n, in, a, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_conv(ox_ctx_t *cx) {
  int32_t in[3], n = 2, y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  OX_TRY(ox_in(cx, 2, &in[2]));
  if (in[2] >= 0) n = 3;
  OX_TRY(ox_emit_conv(cx, in, n, &y));
  return ox_out(cx, 0, y);
}

berth_status_t ox_emit_conv(ox_ctx_t *cx, const int32_t *in, int32_t n, int32_t *y) {
  berth_op_t op;
  OX_TRY(ox_op(cx, "conv", &op));
  const berth_type_t *xt = &cx->vals[in[0]].type, *wt = &cx->vals[in[1]].type;
  int32_t sp = xt->rank - 2;
  if (sp < 1 || sp > 3 || wt->rank != xt->rank)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "input rank %d and weight rank %d: berth's conv is 1-D to 3-D", (int)xt->rank,
                   (int)wt->rank);
  int64_t strides[OX_MAXV], pads[OX_MAXV], dil[OX_MAXV];
  int32_t ns, np, nd;
  OX_TRY(ox_attr_int_list(cx, "strides", strides, OX_MAXV, &ns));
  OX_TRY(ox_attr_int_list(cx, "pads", pads, OX_MAXV, &np));
  OX_TRY(ox_attr_int_list(cx, "dilations", dil, OX_MAXV, &nd));
  if (ns < 0) for (ns = 0; ns < sp; ns++) strides[ns] = 1;
  if (nd < 0) for (nd = 0; nd < sp; nd++) dil[nd] = 1;
  if (np < 0) for (np = 0; np < 2 * sp; np++) pads[np] = 0;
  if (ns != sp || nd != sp || np != 2 * sp)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "strides, dilations and pads must have %d, %d and %d values", (int)sp,
                   (int)sp, (int)(2 * sp));
  /* checked here, before the auto_pad arithmetic below uses them */
  for (int32_t k = 0; k < sp; k++) {
    if (strides[k] < 1 || strides[k] > BERTH_MAX_DIM)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'strides' [%d] is %lld, expected 1..%lld", (int)k,
                     (long long)strides[k], (long long)BERTH_MAX_DIM);
    if (dil[k] < 1 || dil[k] > BERTH_MAX_DIM)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'dilations' [%d] is %lld, expected 1..%lld", (int)k,
                     (long long)dil[k], (long long)BERTH_MAX_DIM);
  }
  char buf[32];
  const char *ap = ox_attr_string(cx, "auto_pad", "NOTSET", buf, sizeof buf);
  if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
    for (int32_t k = 0; k < sp; k++) {
      /* dims and attributes are at most 2^40 (checked): out_d * s and (kd - 1) * dil fit in
       * 128 bits only, so a span past 2^62 is refused instead of overflowing */
      int64_t in_d = xt->dims[2 + k], kd = wt->dims[2 + k], s = strides[k];
      int64_t out_d = (in_d + s - 1) / s, a1, a2;
      if (kd < 1 || !berth_mul_i64(out_d > 0 ? out_d - 1 : 0, s, &a1) || !berth_mul_i64(kd - 1, dil[k], &a2) ||
          a1 > ((int64_t)1 << 62) || a2 > ((int64_t)1 << 62))
        return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "auto_pad %s: kernel %lld, stride %lld and dilation %lld in spatial dim %d "
                       "are out of range", ap, (long long)kd, (long long)s, (long long)dil[k], (int)k);
      int64_t total = a1 + a2 + 1 - in_d;
      if (total < 0) total = 0;
      int64_t lo = strcmp(ap, "SAME_UPPER") == 0 ? total / 2 : total - total / 2;
      pads[k] = lo;
      pads[sp + k] = total - lo;
    }
  } else if (strcmp(ap, "VALID") == 0) {
    for (int32_t k = 0; k < 2 * sp; k++) pads[k] = 0;
  } else if (strcmp(ap, "NOTSET") != 0) {
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "auto_pad '%s'", ap);
  }
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_ints(cx, op, a, "strides", strides, sp));
  OX_TRY(ox_attr_ints(cx, op, a, "pads", pads, 2 * sp));
  OX_TRY(ox_attr_ints(cx, op, a, "dilations", dil, sp));
  OX_TRY(ox_attr_i(cx, op, a, "group", ox_attr_int(cx, "group", 1)));
  return ox_emit1(cx, op, n, in, a, y);
}

static berth_status_t op_pad(ox_ctx_t *cx) {
  berth_op_t op;
  OX_TRY(ox_op(cx, "pad", &op));
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  int32_t r = ox_rank_of(cx, x);
  int64_t pads[OX_MAXV], axes[OX_MAXV];
  int32_t np, na = -1;
  double value = 0;
  int64_t ivalue = 0;
  bool exact_int = false;
  if (cx->opset < 11) {
    OX_TRY(ox_attr_int_list(cx, "pads", pads, OX_MAXV, &np));
    if (np < 0) OX_TRY(ox_attr_int_list(cx, "paddings", pads, OX_MAXV, &np));
    value = ox_attr_float(cx, "value", 0.0);
  } else {
    int32_t p, v, a;
    OX_TRY(ox_in_req(cx, 1, &p));
    OX_TRY(ox_in(cx, 2, &v));
    OX_TRY(ox_in(cx, 3, &a));
    OX_TRY(ox_const_ints(cx, p, "pads", pads, OX_MAXV, &np));
    if (v >= 0 && berth_dtype_is_int(cx->vals[v].type.dtype)) {
      /* exactly: a double loses int64's low bits */
      int32_t nv;
      OX_TRY(ox_const_ints(cx, v, "constant_value", &ivalue, 1, &nv));
      if (nv != 1) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "constant_value has %d elements, expected one", (int)nv);
      exact_int = true;
    } else if (v >= 0) {
      OX_TRY(ox_const_double(cx, v, "constant_value", &value));
    }
    if (a >= 0) OX_TRY(ox_const_ints(cx, a, "axes", axes, OX_MAXV, &na));
  }
  int64_t full[2 * BERTH_MAX_RANK] = {0};
  if (na >= 0) {
    if (np != 2 * na) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "pads has %d values for %d axes", (int)np, (int)na);
    for (int32_t k = 0; k < na; k++) {
      int32_t ax = 0;
      OX_TRY(ox_norm_axis(cx, axes[k], r, "axes entry", &ax));
      full[ax] = pads[k];
      full[r + ax] = pads[na + k];
    }
  } else {
    if (np != 2 * r) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "pads has %d values, expected %d", (int)np, (int)(2 * r));
    for (int32_t k = 0; k < np; k++) full[k] = pads[k];
  }
  char buf[32];
  const char *mode = ox_attr_string(cx, "mode", "constant", buf, sizeof buf);
  int64_t m = strcmp(mode, "constant") == 0 ? 0 : strcmp(mode, "reflect") == 0 ? 1 : strcmp(mode, "edge") == 0 ? 2
              : strcmp(mode, "wrap") == 0 ? 3 : -1;
  if (m < 0) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "mode '%s'", mode);
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_ints(cx, op, a, "pads", full, 2 * r));
  OX_TRY(ox_attr_i(cx, op, a, "mode", m));
  if (exact_int) OX_TRY(ox_attr_i(cx, op, a, "value", ivalue));
  else OX_TRY(ox_attr_f(cx, op, a, "value", value));
  OX_TRY(ox_emit1(cx, op, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_lstm(ox_ctx_t *cx) {
  berth_op_t op;
  OX_TRY(ox_op(cx, "lstm", &op));
  int32_t X, W, R, B, SL, H0, C0, P;
  OX_TRY(ox_in_req(cx, 0, &X));
  OX_TRY(ox_in_req(cx, 1, &W));
  OX_TRY(ox_in_req(cx, 2, &R));
  OX_TRY(ox_in(cx, 3, &B));
  OX_TRY(ox_in(cx, 4, &SL));
  OX_TRY(ox_in(cx, 5, &H0));
  OX_TRY(ox_in(cx, 6, &C0));
  OX_TRY(ox_in(cx, 7, &P));
  if (ox_attr(cx, "activations")) {
    const Onnx__AttributeProto *a = ox_attr(cx, "activations");
    static const char *dflt[] = {"Sigmoid", "Tanh", "Tanh"};
    for (size_t k = 0; k < a->n_strings; k++)
      if (a->strings[k].len != strlen(dflt[k % 3]) || memcmp(a->strings[k].data, dflt[k % 3], a->strings[k].len) != 0)
        return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "activations other than Sigmoid, Tanh, Tanh are not supported");
  }
  if (ox_attr(cx, "clip")) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "the clip attribute is not supported");
  if (ox_attr_int(cx, "input_forget", 0)) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "input_forget = 1 is not supported");
  char buf[32];
  const char *dir = ox_attr_string(cx, "direction", "forward", buf, sizeof buf);
  int64_t d = strcmp(dir, "forward") == 0 ? 0 : strcmp(dir, "reverse") == 0 ? 1 : strcmp(dir, "bidirectional") == 0 ? 2 : -1;
  if (d < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "direction '%s'", dir);
  int64_t layout = ox_attr_int(cx, "layout", 0);
  const berth_type_t *xt = &cx->vals[X].type, *rt = &cx->vals[R].type;
  if (xt->rank != 3 || rt->rank != 3) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "X and R must have rank 3");
  int64_t hidden = ox_attr_int(cx, "hidden_size", rt->dims[2]);
  if (hidden < 1 || hidden > BERTH_MAX_DIM) /* before 8 * hidden below */
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'hidden_size' is %lld, expected 1..%lld", (long long)hidden,
                   (long long)BERTH_MAX_DIM);
  if (layout != 0 && layout != 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'layout' is %lld, expected 0 or 1", (long long)layout);
  int64_t num_dir = d == 2 ? 2 : 1, seq = layout ? xt->dims[1] : xt->dims[0], batch = layout ? xt->dims[0] : xt->dims[1];
  if (P >= 0 && cx->vals[P].data) {
    /* a constant P of zeros (exporters write one) is no peephole: drop it for the plain path */
    const ox_val_t *pv = &cx->vals[P];
    size_t bytes = berth_type_bytes(&pv->type), i = 0;
    while (i < bytes && ((const uint8_t *)pv->data)[i] == 0) i++;
    if (i == bytes) P = -1;
  }
  if (SL >= 0) {
    int64_t lens[4096];
    int32_t n;
    OX_TRY(ox_const_ints(cx, SL, "sequence_lens", lens, 4096, &n));
    for (int32_t k = 0; k < n; k++)
      if (lens[k] != seq)
        return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "sequence_lens shorter than the sequence (%lld < %lld) are not supported",
                       (long long)lens[k], (long long)seq);
  }
  berth_dtype_t dt = xt->dtype;
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = dt;
  if (B < 0) {
    t.rank = 2;
    t.dims[0] = num_dir;
    t.dims[1] = 8 * hidden;
    OX_TRY(ox_emit_full(cx, &t, 0, 0, &B));
  }
  t.rank = 3;
  t.dims[0] = layout ? batch : num_dir;
  t.dims[1] = layout ? num_dir : batch;
  t.dims[2] = hidden;
  if (H0 < 0) OX_TRY(ox_emit_full(cx, &t, 0, 0, &H0));
  if (C0 < 0) OX_TRY(ox_emit_full(cx, &t, 0, 0, &C0));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "hidden_size", hidden));
  OX_TRY(ox_attr_i(cx, op, a, "direction", d));
  OX_TRY(ox_attr_i(cx, op, a, "layout", layout));
  int32_t in[7] = {X, W, R, B, H0, C0, P}, out[3];
  OX_TRY(ox_emit(cx, op, P >= 0 ? 7 : 6, in, a, 3, out));
  for (int k = 0; k < 3; k++) OX_TRY(ox_out(cx, k, out[k]));
  return BERTH_OK;
}

/* ---- the table ------------------------------------------------------------------------- */

const ox_op_row_t ox_ops_core[] = {
    {"Abs", ox_unary, BERTH_OP_ABS},
    {"Add", ox_binary, BERTH_OP_ADD},
    {"And", ox_binary, BERTH_OP_LOGICAL_AND},
    {"Cast", op_cast, BERTH_OP_COUNT},
    {"CastLike", op_cast_like, BERTH_OP_COUNT},
    {"Ceil", ox_unary, BERTH_OP_CEIL},
    {"Clip", op_clip, BERTH_OP_COUNT},
    {"Concat", op_concat, BERTH_OP_COUNT},
    {"Constant", op_constant, BERTH_OP_COUNT},
    {"ConstantOfShape", op_constant_of_shape, BERTH_OP_COUNT},
    {"Conv", op_conv, BERTH_OP_COUNT},
    {"Div", ox_binary, BERTH_OP_DIV},
    {"Dropout", op_dropout, BERTH_OP_COUNT},
    {"Equal", ox_binary, BERTH_OP_EQ},
    {"Exp", ox_unary, BERTH_OP_EXP},
    {"Expand", op_expand, BERTH_OP_COUNT},
    {"Flatten", op_flatten, BERTH_OP_COUNT},
    {"Floor", ox_unary, BERTH_OP_FLOOR},
    {"Gather", op_gather, BERTH_OP_COUNT},
    {"Gemm", op_gemm, BERTH_OP_COUNT},
    {"Greater", ox_binary, BERTH_OP_GT},
    {"GreaterOrEqual", ox_binary, BERTH_OP_GE},
    {"Identity", op_identity, BERTH_OP_COUNT},
    {"If", ox_op_if, BERTH_OP_COUNT},
    {"IsNaN", ox_unary, BERTH_OP_ISNAN},
    {"LSTM", op_lstm, BERTH_OP_COUNT},
    {"Less", ox_binary, BERTH_OP_LT},
    {"LessOrEqual", ox_binary, BERTH_OP_LE},
    {"Log", ox_unary, BERTH_OP_LOG},
    {"LogSoftmax", op_log_softmax, BERTH_OP_COUNT},
    {"Loop", ox_op_loop, BERTH_OP_COUNT},
    {"MatMul", ox_binary, BERTH_OP_MATMUL},
    {"Max", op_max, BERTH_OP_COUNT},
    {"Mean", op_mean, BERTH_OP_COUNT},
    {"Min", op_min, BERTH_OP_COUNT},
    {"Mod", op_mod, BERTH_OP_COUNT},
    {"Mul", ox_binary, BERTH_OP_MUL},
    {"Neg", ox_unary, BERTH_OP_NEG},
    {"Not", ox_unary, BERTH_OP_LOGICAL_NOT},
    {"Or", ox_binary, BERTH_OP_LOGICAL_OR},
    {"Pad", op_pad, BERTH_OP_COUNT},
    {"Pow", op_pow, BERTH_OP_COUNT},
    {"Range", op_range, BERTH_OP_COUNT},
    {"Reciprocal", op_reciprocal, BERTH_OP_COUNT},
    {"Relu", ox_unary, BERTH_OP_RELU},
    {"Reshape", op_reshape, BERTH_OP_COUNT},
    {"Scan", ox_op_scan, BERTH_OP_COUNT},
    {"Shape", op_shape, BERTH_OP_COUNT},
    {"Sigmoid", ox_unary, BERTH_OP_SIGMOID},
    {"Size", op_size, BERTH_OP_COUNT},
    {"Slice", op_slice, BERTH_OP_COUNT},
    {"Softmax", op_softmax, BERTH_OP_COUNT},
    {"Sqrt", ox_unary, BERTH_OP_SQRT},
    {"Squeeze", op_squeeze, BERTH_OP_COUNT},
    {"Sub", ox_binary, BERTH_OP_SUB},
    {"Sum", op_sum, BERTH_OP_COUNT},
    {"Tanh", ox_unary, BERTH_OP_TANH},
    {"Transpose", op_transpose, BERTH_OP_COUNT},
    {"Unsqueeze", op_unsqueeze, BERTH_OP_COUNT},
    {"Where", op_where, BERTH_OP_COUNT},
    {"Xor", ox_binary, BERTH_OP_LOGICAL_XOR},
    {NULL, NULL, BERTH_OP_COUNT},
};
