/* ONNX ops, index family: the reductions (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ArgMax
 * and the rest), and the index ops (ArgMin, TopK, CumSum, Trilu, GatherND, ScatterElements,
 * ScatterND, OneHot, EyeLike, ...). */
#include "onnx_internal.h"

#include <math.h>
#include <string.h>

/* ---- reductions ------------------------------------------------------------------------ */

/* A reduction's operands: the axes (attribute, or operand 1 from opset `axes_input_from`),
 * keepdims, and noop_with_empty_axes with no axes given, which reduces over no axis (the
 * elementwise part of ReduceL1, ReduceSumSquare, ... still applies, as in ONNX's reference). */
typedef struct red_args {
  int64_t axes[OX_MAXV];
  int32_t n; /* -1 or 0: every axis */
  bool keep, noop;
} red_args_t;

static berth_status_t red_args(ox_ctx_t *cx, int64_t axes_input_from, red_args_t *r) {
  OX_TRY(ox_axes_operand(cx, "axes", axes_input_from, 1, r->axes, &r->n));
  r->noop = r->n <= 0 && ox_attr_int(cx, "noop_with_empty_axes", 0) != 0;
  r->keep = ox_attr_int(cx, "keepdims", 1) != 0;
  return BERTH_OK;
}

/* The result type of reducing xt (the reduced axes marked in red; n <= 0 is every axis). */
static berth_status_t red_type(ox_ctx_t *cx, const berth_type_t *xt, const red_args_t *r, bool keep, berth_type_t *t,
                               bool *empty) {
  bool red[BERTH_MAX_RANK] = {false};
  for (int32_t k = 0; k < r->n; k++) {
    int32_t ax = 0;
    OX_TRY(ox_norm_axis(cx, r->axes[k], xt->rank, "axes entry", &ax));
    red[ax] = true;
  }
  memset(t, 0, sizeof *t);
  t->dtype = xt->dtype;
  *empty = false;
  for (int32_t k = 0; k < xt->rank; k++) {
    bool rk = r->n <= 0 || red[k];
    *empty |= rk && xt->dims[k] == 0;
    if (!rk) t->dims[t->rank++] = xt->dims[k];
    else if (keep) t->dims[t->rank++] = 1;
  }
  return BERTH_OK;
}

/* max / min over an empty set: the spec's identity (-inf / +inf, or the dtype's lowest /
 * highest value; false / true for bool), a constant of the result's shape. */
static berth_status_t reduce_empty_extreme(ox_ctx_t *cx, bool is_max, const berth_type_t *t, int32_t *y) {
  double fv = is_max ? -INFINITY : INFINITY;
  int64_t iv = 0;
  switch (t->dtype) {
    case BERTH_DTYPE_BOOL: iv = is_max ? 0 : 1; break;
    case BERTH_DTYPE_I8: iv = is_max ? INT8_MIN : INT8_MAX; break;
    case BERTH_DTYPE_U8: iv = is_max ? 0 : UINT8_MAX; break;
    case BERTH_DTYPE_I16: iv = is_max ? INT16_MIN : INT16_MAX; break;
    case BERTH_DTYPE_U16: iv = is_max ? 0 : UINT16_MAX; break;
    case BERTH_DTYPE_I32: iv = is_max ? INT32_MIN : INT32_MAX; break;
    case BERTH_DTYPE_U32: iv = is_max ? 0 : (int64_t)UINT32_MAX; break;
    case BERTH_DTYPE_I64: iv = is_max ? INT64_MIN : INT64_MAX; break;
    case BERTH_DTYPE_U64:
      if (!is_max)
        return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "ReduceMin of uint64 over an empty set (2^64 - 1) is not supported");
      break;
    default: break;
  }
  return ox_emit_full(cx, t, fv, iv, y);
}

/* Emits berth reduction op over r's axes (keepdims `keep`); the identity when r->noop. */
static berth_status_t reduce_step(ox_ctx_t *cx, berth_op_t op, int32_t x, const red_args_t *r, bool keep, int32_t *y) {
  if (r->noop) {
    *y = x;
    return BERTH_OK;
  }
  if (op == BERTH_OP_MAX || op == BERTH_OP_MIN) {
    berth_type_t t;
    bool empty;
    OX_TRY(red_type(cx, &cx->vals[x].type, r, keep, &t, &empty));
    if (empty) return reduce_empty_extreme(cx, op == BERTH_OP_MAX, &t, y);
  }
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  if (r->n > 0) OX_TRY(ox_attr_ints(cx, op, a, "axes", r->axes, r->n));
  OX_TRY(ox_attr_i(cx, op, a, "keepdims", keep));
  if ((op == BERTH_OP_MAX || op == BERTH_OP_MIN) && cx->vals[x].type.dtype == BERTH_DTYPE_BOOL) {
    /* bool (ReduceMax is any, ReduceMin all): through u8 */
    int32_t u, rr;
    OX_TRY(ox_emit_cast(cx, x, BERTH_DTYPE_U8, &u));
    OX_TRY(ox_emit1(cx, op, 1, &u, a, &rr));
    return ox_emit_cast(cx, rr, BERTH_DTYPE_BOOL, y);
  }
  return ox_emit1(cx, op, 1, &x, a, y);
}

/* Binds the result y of a reduction of x: of x's ONNX element type (a narrow one is
 * rounded by ox_out). */
static berth_status_t reduce_out(ox_ctx_t *cx, int32_t x, int32_t y) {
  if (y != x) cx->vals[y].elem = cx->vals[x].elem;
  return ox_out(cx, 0, y);
}

static berth_status_t reduce(ox_ctx_t *cx, berth_op_t op, int64_t axes_input_from) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  red_args_t r;
  OX_TRY(red_args(cx, axes_input_from, &r));
  OX_TRY(reduce_step(cx, op, x, &r, r.keep, &y));
  return reduce_out(cx, x, y);
}
static berth_status_t op_reduce_sum(ox_ctx_t *cx) { return reduce(cx, BERTH_OP_SUM, 13); }
static berth_status_t op_reduce_mean(ox_ctx_t *cx) { return reduce(cx, BERTH_OP_MEAN, 18); }
static berth_status_t op_reduce_max(ox_ctx_t *cx) { return reduce(cx, BERTH_OP_MAX, 18); }
static berth_status_t op_reduce_min(ox_ctx_t *cx) { return reduce(cx, BERTH_OP_MIN, 18); }
static berth_status_t op_reduce_prod(ox_ctx_t *cx) { return reduce(cx, BERTH_OP_PROD, 18); }

static berth_status_t emit2(ox_ctx_t *cx, berth_op_t op, int32_t a, int32_t b, int32_t *y) {
  int32_t in[2] = {a, b};
  return ox_emit1(cx, op, 2, in, NULL, y);
}

/* The composite reductions, as ONNX defines them (axes from opset 18 operands):
 *   ReduceL1 = sum(|x|), ReduceSumSquare = sum(x*x), ReduceL2 = sqrt(sum(x*x)),
 *   ReduceLogSum = log(sum(x)), ReduceLogSumExp = log(sum(exp(x - s))) + s with s = max(x)
 *   where it is finite, else 0 (exact for large x, and -inf over an empty set).
 * The ones that need log, exp or sqrt compute an integer input in f64 and truncate back. */
enum { RC_L1, RC_L2, RC_SUM_SQUARE, RC_LOG_SUM, RC_LOG_SUM_EXP };

static berth_status_t log_sum_exp(ox_ctx_t *cx, int32_t x, const red_args_t *r, int32_t *y) {
  int32_t m, d, finite, zero, shift, e, s, l, yk;
  OX_TRY(reduce_step(cx, BERTH_OP_MAX, x, r, true, &m));
  OX_TRY(emit2(cx, BERTH_OP_SUB, m, m, &d)); /* 0 where m is finite, NaN where it is not */
  OX_TRY(ox_const_scalar(cx, cx->vals[x].type.dtype, 0.0, &zero));
  OX_TRY(emit2(cx, BERTH_OP_EQ, d, zero, &finite));
  int32_t w[3] = {finite, m, zero};
  OX_TRY(ox_emit1(cx, BERTH_OP_WHERE, 3, w, NULL, &shift));
  OX_TRY(emit2(cx, BERTH_OP_SUB, x, shift, &d));
  OX_TRY(ox_emit1(cx, BERTH_OP_EXP, 1, &d, NULL, &e));
  OX_TRY(reduce_step(cx, BERTH_OP_SUM, e, r, true, &s));
  OX_TRY(ox_emit1(cx, BERTH_OP_LOG, 1, &s, NULL, &l));
  OX_TRY(emit2(cx, BERTH_OP_ADD, l, shift, &yk));
  if (r->keep || r->noop) {
    *y = yk;
    return BERTH_OK;
  }
  berth_type_t t;
  bool empty;
  OX_TRY(red_type(cx, &cx->vals[x].type, r, false, &t, &empty));
  return ox_emit_reshape(cx, yk, t.dims, t.rank, y);
}

static berth_status_t reduce_composite(ox_ctx_t *cx, int kind) {
  int32_t x0, x, t, y;
  OX_TRY(ox_in_req(cx, 0, &x0));
  red_args_t r;
  OX_TRY(red_args(cx, 18, &r));
  berth_dtype_t dt = cx->vals[x0].type.dtype;
  bool via_f64 = (kind == RC_L2 || kind == RC_LOG_SUM || kind == RC_LOG_SUM_EXP) && !berth_dtype_is_float(dt);
  if (dt == BERTH_DTYPE_BOOL) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input of type bool, expected a number");
  x = x0;
  if (via_f64) OX_TRY(ox_emit_cast(cx, x0, BERTH_DTYPE_F64, &x));
  switch (kind) {
    case RC_L1:
      OX_TRY(ox_emit1(cx, BERTH_OP_ABS, 1, &x, NULL, &t));
      OX_TRY(reduce_step(cx, BERTH_OP_SUM, t, &r, r.keep, &y));
      break;
    case RC_L2:
    case RC_SUM_SQUARE:
      OX_TRY(emit2(cx, BERTH_OP_MUL, x, x, &t));
      OX_TRY(reduce_step(cx, BERTH_OP_SUM, t, &r, r.keep, &y));
      if (kind == RC_L2) OX_TRY(ox_emit1(cx, BERTH_OP_SQRT, 1, &y, NULL, &y));
      break;
    case RC_LOG_SUM:
      OX_TRY(reduce_step(cx, BERTH_OP_SUM, x, &r, r.keep, &t));
      OX_TRY(ox_emit1(cx, BERTH_OP_LOG, 1, &t, NULL, &y));
      break;
    default: OX_TRY(log_sum_exp(cx, x, &r, &y)); break;
  }
  if (via_f64) OX_TRY(ox_emit_cast(cx, y, dt, &y));
  if (y == x0) OX_TRY(ox_alias_val(cx, x0, &y));
  return reduce_out(cx, x0, y);
}
static berth_status_t op_reduce_l1(ox_ctx_t *cx) { return reduce_composite(cx, RC_L1); }
static berth_status_t op_reduce_l2(ox_ctx_t *cx) { return reduce_composite(cx, RC_L2); }
static berth_status_t op_reduce_sum_square(ox_ctx_t *cx) { return reduce_composite(cx, RC_SUM_SQUARE); }
static berth_status_t op_reduce_log_sum(ox_ctx_t *cx) { return reduce_composite(cx, RC_LOG_SUM); }
static berth_status_t op_reduce_log_sum_exp(ox_ctx_t *cx) { return reduce_composite(cx, RC_LOG_SUM_EXP); }

/* ArgMax, ArgMin: bool input through u8 (false < true). */
static berth_status_t arg_extreme(ox_ctx_t *cx, berth_op_t op) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  if (cx->vals[x].type.dtype == BERTH_DTYPE_BOOL) OX_TRY(ox_emit_cast(cx, x, BERTH_DTYPE_U8, &x));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "axis", ox_attr_int(cx, "axis", 0)));
  OX_TRY(ox_attr_i(cx, op, a, "keepdims", ox_attr_int(cx, "keepdims", 1) != 0));
  OX_TRY(ox_attr_i(cx, op, a, "select_last_index", ox_attr_int(cx, "select_last_index", 0) != 0));
  OX_TRY(ox_emit1(cx, op, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}
static berth_status_t op_argmax(ox_ctx_t *cx) { return arg_extreme(cx, BERTH_OP_ARGMAX); }
static berth_status_t op_argmin(ox_ctx_t *cx) { return arg_extreme(cx, BERTH_OP_ARGMIN); }


/* ---- running folds and triangles ------------------------------------------------------ */

/* CumSum, CumProd: the axis operand must fold to a constant (onnx-test specializes a graph
 * input on its value). */
static berth_status_t cumulative(ox_ctx_t *cx, berth_op_t op) {
  int32_t x, ax, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &ax));
  int64_t axis[1];
  int32_t n;
  OX_TRY(ox_const_ints(cx, ax, "the axis operand", axis, 1, &n));
  if (n != 1) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "axis has %d values, expected one", (int)n);
  int32_t a = 0;
  OX_TRY(ox_norm_axis(cx, axis[0], ox_rank_of(cx, x), "axis", &a));
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, at);
  OX_TRY(ox_attr_i(cx, op, at, "axis", a));
  OX_TRY(ox_attr_i(cx, op, at, "exclusive", ox_attr_int(cx, "exclusive", 0) != 0));
  OX_TRY(ox_attr_i(cx, op, at, "reverse", ox_attr_int(cx, "reverse", 0) != 0));
  OX_TRY(ox_emit1(cx, op, 1, &x, at, &y));
  cx->vals[y].elem = cx->vals[x].elem;
  return ox_out(cx, 0, y);
}
static berth_status_t op_cumsum(ox_ctx_t *cx) { return cumulative(cx, BERTH_OP_CUMSUM); }
static berth_status_t op_cumprod(ox_ctx_t *cx) { return cumulative(cx, BERTH_OP_CUMPROD); }

/* Trilu: k stays a run-time operand (any value is valid). */
static berth_status_t op_trilu(ox_ctx_t *cx) {
  int32_t in[2], n = 1, y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in(cx, 1, &in[1]));
  if (in[1] >= 0) {
    n = 2;
    OX_TRY(ox_emit_cast(cx, in[1], BERTH_DTYPE_I64, &in[1]));
  }
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_TRILU, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_TRILU, at, "upper", ox_attr_int(cx, "upper", 1) != 0));
  OX_TRY(ox_emit1(cx, BERTH_OP_TRILU, n, in, at, &y));
  cx->vals[y].elem = cx->vals[in[0]].elem;
  return ox_out(cx, 0, y);
}

/* EyeLike: ones on diagonal k of a matrix of x's shape, of attribute dtype (else x's
 * type): trilu upper k of trilu lower k of ones (a constant, folded when small). */
static berth_status_t op_eye_like(ox_ctx_t *cx) {
  int32_t x, ones, k, lo, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  berth_type_t t = cx->vals[x].type;
  if (t.rank != 2) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input has rank %d, expected 2", (int)t.rank);
  int32_t elem = (int32_t)ox_attr_int(cx, "dtype", cx->vals[x].elem);
  if (elem < 0 || elem >= BERTH_ONNX_ELEM_COUNT || !berth_onnx_elem_dtype(elem, &t.dtype))
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "dtype %s (%lld): berth does not support that element type",
                   elem >= 0 && elem < BERTH_ONNX_ELEM_COUNT ? berth_onnx_elem_name(elem) : "?", (long long)elem);
  int64_t kv = ox_attr_int(cx, "k", 0);
  OX_TRY(ox_emit_full(cx, &t, 1, 1, &ones));
  OX_TRY(ox_const_i64(cx, &kv, 1, true, &k));
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_TRILU, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_TRILU, at, "upper", 0));
  int32_t in[2] = {ones, k};
  OX_TRY(ox_emit1(cx, BERTH_OP_TRILU, 2, in, at, &lo));
  OX_TRY(ox_attr_i(cx, BERTH_OP_TRILU, at, "upper", 1));
  in[0] = lo;
  OX_TRY(ox_emit1(cx, BERTH_OP_TRILU, 2, in, at, &y));
  cx->vals[y].elem = elem;
  return ox_out(cx, 0, y);
}

const ox_op_row_t ox_ops_index[] = {
    {"ArgMax", op_argmax, BERTH_OP_COUNT},
    {"ArgMin", op_argmin, BERTH_OP_COUNT},
    {"CumProd", op_cumprod, BERTH_OP_COUNT},
    {"CumSum", op_cumsum, BERTH_OP_COUNT},
    {"EyeLike", op_eye_like, BERTH_OP_COUNT},
    {"ReduceL1", op_reduce_l1, BERTH_OP_COUNT},
    {"ReduceL2", op_reduce_l2, BERTH_OP_COUNT},
    {"ReduceLogSum", op_reduce_log_sum, BERTH_OP_COUNT},
    {"ReduceLogSumExp", op_reduce_log_sum_exp, BERTH_OP_COUNT},
    {"ReduceMax", op_reduce_max, BERTH_OP_COUNT},
    {"ReduceMean", op_reduce_mean, BERTH_OP_COUNT},
    {"ReduceMin", op_reduce_min, BERTH_OP_COUNT},
    {"ReduceProd", op_reduce_prod, BERTH_OP_COUNT},
    {"ReduceSum", op_reduce_sum, BERTH_OP_COUNT},
    {"ReduceSumSquare", op_reduce_sum_square, BERTH_OP_COUNT},
    {"Trilu", op_trilu, BERTH_OP_COUNT},
    {NULL, NULL, BERTH_OP_COUNT},
};
