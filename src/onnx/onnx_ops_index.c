/* ONNX ops, index family: the reductions (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ArgMax
 * and the rest), and the index ops (ArgMin, TopK, CumSum, Trilu, GatherND, ScatterElements,
 * ScatterND, OneHot, EyeLike, ...). */
#include "onnx_internal.h"
#include "kernels/kernel_elem.h"

#include <math.h>
#include <stdlib.h>
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

/* ---- run-time index checks ------------------------------------------------------------- */

/* Every element of idx (i64) must lie in [lo[j], hi[j]) where j is its position in the last
 * dim (nb bounds; nb = 1: one bound for all). Indices are data: index_check computes `ok`
 * before the node's kernel and ox_assert_ok fails the call with a message naming the node,
 * the operand and the range; a constant idx folds, and is checked here and then. */
berth_status_t ox_index_check(ox_ctx_t *cx, int32_t idx, const int64_t *lo, const int64_t *hi, int32_t nb,
                               const char *what) {
  if (berth_type_numel(&cx->vals[idx].type) == 0) return BERTH_OK;
  char range[96], msg[200];
  if (nb == 1) berth_snprintf(range, sizeof range, "outside [%lld, %lld)", (long long)lo[0], (long long)hi[0]);
  else berth_snprintf(range, sizeof range, "outside the data's dims");
  berth_snprintf(msg, sizeof msg, "%s holds a value %s", what, range);
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_INDEX_CHECK, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_INDEX_CHECK, a, "lo", lo, nb));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_INDEX_CHECK, a, "hi", hi, nb));
  int32_t ok;
  const char *saved_hint = cx->name_hint;
  cx->name_hint = "indices_in_range";
  berth_status_t st = ox_emit1(cx, BERTH_OP_INDEX_CHECK, 1, &idx, a, &ok);
  cx->name_hint = saved_hint;
  OX_TRY(st);
  return ox_assert_ok(cx, ok, msg);
}

/* Index operand k as i64. */
static berth_status_t index_operand(ox_ctx_t *cx, int32_t k, int32_t *out) {
  int32_t v;
  OX_TRY(ox_in_req(cx, k, &v));
  if (!berth_dtype_is_int(cx->vals[v].type.dtype))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "operand %d has dtype %s, expected integer indices", (int)k,
                   berth_dtype_name(cx->vals[v].type.dtype));
  return ox_emit_cast(cx, v, BERTH_DTYPE_I64, out);
}

/* The last-dim bounds [-dims[first+j], dims[first+j]) of K-tuples of indices into xt. */
static berth_status_t tuple_check(ox_ctx_t *cx, int32_t idx, const berth_type_t *xt, int32_t first, const char *what) {
  const berth_type_t *it = &cx->vals[idx].type;
  if (it->rank < 1) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s is a scalar, expected rank >= 1", what);
  int64_t K = it->dims[it->rank - 1], lo[BERTH_MAX_RANK], hi[BERTH_MAX_RANK];
  if (K < 1 || K > xt->rank - first)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s index %lld dims, expected 1 to %d", what, (long long)K,
                   (int)(xt->rank - first));
  for (int64_t j = 0; j < K; j++) {
    hi[j] = xt->dims[first + j];
    lo[j] = -hi[j];
  }
  return ox_index_check(cx, idx, lo, hi, (int32_t)K, what);
}

/* ---- gathers and scatters --------------------------------------------------------------- */

static berth_status_t op_gather_nd(ox_ctx_t *cx) {
  int32_t in[2], y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(index_operand(cx, 1, &in[1]));
  int64_t b = ox_attr_int(cx, "batch_dims", 0);
  const berth_type_t *dt = &cx->vals[in[0]].type;
  if (b < 0 || b >= dt->rank) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "batch_dims is %lld, expected 0 to %d", (long long)b, (int)dt->rank - 1);
  OX_TRY(tuple_check(cx, in[1], dt, (int32_t)b, "indices"));
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_GATHER_ND, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_GATHER_ND, at, "batch_dims", b));
  OX_TRY(ox_emit1(cx, BERTH_OP_GATHER_ND, 2, in, at, &y));
  cx->vals[y].elem = cx->vals[in[0]].elem;
  return ox_out(cx, 0, y);
}

/* The reduction attribute of ScatterElements and ScatterND (none before opset 16). */
static berth_status_t scatter_reduction(ox_ctx_t *cx, int64_t *red) {
  char buf[16];
  const char *r = ox_attr_string(cx, "reduction", "none", buf, sizeof buf);
  static const char *const names[] = {"none", "add", "mul", "max", "min"};
  for (int64_t k = 0; k < 5; k++)
    if (strcmp(r, names[k]) == 0) {
      *red = k;
      return BERTH_OK;
    }
  return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "reduction '%s', expected none, add, mul, max or min", r);
}

static berth_status_t op_scatter_elements(ox_ctx_t *cx) {
  int32_t in[3], y, axis;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(index_operand(cx, 1, &in[1]));
  OX_TRY(ox_in_req(cx, 2, &in[2]));
  int64_t red = 0;
  OX_TRY(scatter_reduction(cx, &red));
  const berth_type_t *dt = &cx->vals[in[0]].type;
  OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", 0), dt->rank, "axis", &axis));
  int64_t hi = dt->dims[axis], lo = -hi;
  OX_TRY(ox_index_check(cx, in[1], &lo, &hi, 1, "indices"));
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_SCATTER_ELEMENTS, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_SCATTER_ELEMENTS, at, "axis", axis));
  OX_TRY(ox_attr_i(cx, BERTH_OP_SCATTER_ELEMENTS, at, "reduction", red));
  OX_TRY(ox_emit1(cx, BERTH_OP_SCATTER_ELEMENTS, 3, in, at, &y));
  cx->vals[y].elem = cx->vals[in[0]].elem;
  return ox_out(cx, 0, y);
}

static berth_status_t op_scatter_nd(ox_ctx_t *cx) {
  int32_t in[3], y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(index_operand(cx, 1, &in[1]));
  OX_TRY(ox_in_req(cx, 2, &in[2]));
  int64_t red = 0;
  OX_TRY(scatter_reduction(cx, &red));
  OX_TRY(tuple_check(cx, in[1], &cx->vals[in[0]].type, 0, "indices"));
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_SCATTER_ND, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_SCATTER_ND, at, "reduction", red));
  OX_TRY(ox_emit1(cx, BERTH_OP_SCATTER_ND, 3, in, at, &y));
  cx->vals[y].elem = cx->vals[in[0]].elem;
  return ox_out(cx, 0, y);
}

/* TensorScatter (a KV-cache update): write_indices are checked at run time, within
 * [0, S_max - S] (linear: the rows must fit) or [0, S_max) (circular). */
static berth_status_t op_tensor_scatter(ox_ctx_t *cx) {
  int32_t in[3], n = 2, y, axis;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  OX_TRY(ox_in(cx, 2, &in[2]));
  char buf[16];
  const char *mode = ox_attr_string(cx, "mode", "linear", buf, sizeof buf);
  bool circular = strcmp(mode, "circular") == 0;
  if (!circular && strcmp(mode, "linear") != 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "mode '%s', expected linear or circular", mode);
  const berth_type_t *ct = &cx->vals[in[0]].type, *ut = &cx->vals[in[1]].type;
  OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", -2), ct->rank, "axis", &axis));
  if (ut->rank != ct->rank || ut->dims[axis] > ct->dims[axis])
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "update has rank %d and %lld rows, expected rank %d and at most %lld", (int)ut->rank,
                   (long long)(axis < ut->rank ? ut->dims[axis] : 0), (int)ct->rank, (long long)ct->dims[axis]);
  if (in[2] >= 0) {
    n = 3;
    OX_TRY(index_operand(cx, 2, &in[2]));
    int64_t lo = 0, hi = circular ? ct->dims[axis] : ct->dims[axis] - ut->dims[axis] + 1;
    if (berth_type_numel(ut) > 0) OX_TRY(ox_index_check(cx, in[2], &lo, &hi, 1, "write_indices"));
  }
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_TENSOR_SCATTER, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_TENSOR_SCATTER, at, "axis", axis));
  OX_TRY(ox_attr_i(cx, BERTH_OP_TENSOR_SCATTER, at, "circular", circular));
  OX_TRY(ox_emit1(cx, BERTH_OP_TENSOR_SCATTER, n, in, at, &y));
  cx->vals[y].elem = cx->vals[in[0]].elem;
  return ox_out(cx, 0, y);
}

/* Det: the kernel's second output is its scratch, dropped. */
static berth_status_t op_det(ox_ctx_t *cx) {
  int32_t x, out[2];
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_emit(cx, BERTH_OP_DET, 1, &x, NULL, 2, out));
  cx->vals[out[0]].elem = cx->vals[x].elem;
  return ox_out(cx, 0, out[0]);
}

/* ---- TopK, ReverseSequence, OneHot ------------------------------------------------------ */

/* TopK: k is an attribute before opset 10, else operand K, which must fold to a constant
 * (it sets the result's shape). */
static berth_status_t op_topk(ox_ctx_t *cx) {
  int32_t x, out[2];
  OX_TRY(ox_in_req(cx, 0, &x));
  int64_t k = 0;
  if (cx->opset < 10) {
    if (!ox_attr(cx, "k")) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'k' is missing");
    k = ox_attr_int(cx, "k", 0);
  } else {
    int32_t kv, n;
    OX_TRY(ox_in_req(cx, 1, &kv));
    OX_TRY(ox_const_ints(cx, kv, "K", &k, 1, &n));
    if (n != 1) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "K has %d values, expected one", (int)n);
  }
  int32_t axis;
  OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", -1), ox_rank_of(cx, x), "axis", &axis));
  int64_t dim = cx->vals[x].type.dims[axis];
  if (k < 0 || k > dim)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "K is %lld, expected 0 to %lld (the size of axis %d)", (long long)k,
                   (long long)dim, (int)axis);
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_TOPK, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_TOPK, at, "axis", axis));
  OX_TRY(ox_attr_i(cx, BERTH_OP_TOPK, at, "k", k));
  OX_TRY(ox_attr_i(cx, BERTH_OP_TOPK, at, "largest", ox_attr_int(cx, "largest", 1) != 0));
  OX_TRY(ox_attr_i(cx, BERTH_OP_TOPK, at, "sorted", ox_attr_int(cx, "sorted", 1) != 0));
  OX_TRY(ox_emit(cx, BERTH_OP_TOPK, 1, &x, at, 2, out));
  cx->vals[out[0]].elem = cx->vals[x].elem;
  OX_TRY(ox_out(cx, 0, out[0]));
  return ox_out(cx, 1, out[1]);
}

static berth_status_t op_reverse_sequence(ox_ctx_t *cx) {
  int32_t in[2], y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(index_operand(cx, 1, &in[1]));
  int64_t ba = ox_attr_int(cx, "batch_axis", 1), ta = ox_attr_int(cx, "time_axis", 0);
  const berth_type_t *xt = &cx->vals[in[0]].type;
  if (xt->rank < 2 || (ta != 0 && ta != 1)) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input rank %d with time_axis %lld, expected rank >= 2 and time_axis 0 or 1", (int)xt->rank, (long long)ta);
  int64_t lo = 0, hi = xt->dims[ta] + 1;
  OX_TRY(ox_index_check(cx, in[1], &lo, &hi, 1, "sequence_lens"));
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_REVERSE_SEQUENCE, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_REVERSE_SEQUENCE, at, "batch_axis", ba));
  OX_TRY(ox_attr_i(cx, BERTH_OP_REVERSE_SEQUENCE, at, "time_axis", ta));
  OX_TRY(ox_emit1(cx, BERTH_OP_REVERSE_SEQUENCE, 2, in, at, &y));
  cx->vals[y].elem = cx->vals[in[0]].elem;
  return ox_out(cx, 0, y);
}

/* OneHot: where(unsqueeze(i, axis) == iota(depth) along axis, on, off) with i = indices as
 * i64, a negative index counted from the end (an index outside [-depth, depth) matches no
 * position: all off, as ONNX says). depth must fold to a constant (the result's shape);
 * values = [off, on] may be computed at run time. */
static berth_status_t op_one_hot(ox_ctx_t *cx) {
  int32_t ind, dv, vals;
  OX_TRY(ox_in_req(cx, 0, &ind));
  OX_TRY(ox_in_req(cx, 1, &dv));
  OX_TRY(ox_in_req(cx, 2, &vals));
  double dd;
  OX_TRY(ox_need_const(cx, dv, "depth"));
  OX_TRY(ox_const_double(cx, dv, "depth", &dd));
  if (!(dd >= 1 && dd <= (double)BERTH_MAX_DIM))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "depth is %g, expected 1 to %lld", dd, (long long)BERTH_MAX_DIM);
  int64_t depth = (int64_t)dd;
  const berth_type_t *it = &cx->vals[ind].type, *vt = &cx->vals[vals].type;
  if (berth_type_numel(vt) != 2) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "values has %lld elements, expected 2 (off, on)", (long long)berth_type_numel(vt));
  if (it->rank + 1 > BERTH_MAX_RANK) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "result rank %d; berth supports at most %d", (int)it->rank + 1, BERTH_MAX_RANK);
  int32_t axis, r = it->rank;
  OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", -1), r + 1, "axis", &axis));
  int32_t i64, zero, neg, dc, wrapped, fixed, un, io, mask, flat, off, on, y;
  if (cx->vals[ind].type.dtype == BERTH_DTYPE_BOOL) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "indices of type bool, expected numbers");
  OX_TRY(ox_emit_cast(cx, ind, BERTH_DTYPE_I64, &i64)); /* float indices truncate, as onnxruntime has it */
  OX_TRY(ox_const_scalar(cx, BERTH_DTYPE_I64, 0, &zero));
  OX_TRY(ox_const_i64(cx, &depth, 1, true, &dc));
  OX_TRY(emit2(cx, BERTH_OP_LT, i64, zero, &neg));
  OX_TRY(emit2(cx, BERTH_OP_ADD, i64, dc, &wrapped));
  int32_t w[3] = {neg, wrapped, i64};
  OX_TRY(ox_emit1(cx, BERTH_OP_WHERE, 3, w, NULL, &fixed));
  int64_t ax = axis;
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_UNSQUEEZE, at);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_UNSQUEEZE, at, "axes", &ax, 1));
  OX_TRY(ox_emit1(cx, BERTH_OP_UNSQUEEZE, 1, &fixed, at, &un));
  /* iota of shape [1, .., depth at axis, .., 1] */
  if ((uint64_t)depth * sizeof(int64_t) > (uint64_t)BERTH_ONNX_MAX_FOLD_BYTES)
    return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "depth %lld is over berth's cap for a constant", (long long)depth);
  int64_t *iota = malloc(sizeof(int64_t) * (size_t)depth);
  if (!iota) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  for (int64_t i = 0; i < depth; i++) iota[i] = i;
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = BERTH_DTYPE_I64;
  t.rank = r + 1;
  for (int32_t k = 0; k <= r; k++) t.dims[k] = k == axis ? depth : 1;
  OX_TRY(ox_const_new(cx, &t, iota, &io));
  OX_TRY(emit2(cx, BERTH_OP_EQ, un, io, &mask));
  OX_TRY(ox_emit_reshape(cx, vals, (const int64_t[]){2}, 1, &flat));
  berth_attr_value_t sl[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_SELECT, sl);
  OX_TRY(ox_attr_i(cx, BERTH_OP_SELECT, sl, "dim", 0));
  OX_TRY(ox_attr_i(cx, BERTH_OP_SELECT, sl, "index", 0));
  OX_TRY(ox_emit1(cx, BERTH_OP_SELECT, 1, &flat, sl, &off));
  OX_TRY(ox_attr_i(cx, BERTH_OP_SELECT, sl, "index", 1));
  OX_TRY(ox_emit1(cx, BERTH_OP_SELECT, 1, &flat, sl, &on));
  int32_t w2[3] = {mask, on, off};
  OX_TRY(ox_emit1(cx, BERTH_OP_WHERE, 3, w2, NULL, &y));
  cx->vals[y].elem = cx->vals[vals].elem;
  return ox_out(cx, 0, y);
}

/* ---- Einsum ---------------------------------------------------------------------------- */

#define EIN_ELLIPSIS (-2)

static int32_t ein_label(char c) { return c >= 'a' && c <= 'z' ? c - 'a' : c >= 'A' && c <= 'Z' ? c - 'A' + 26 : -1; }

/* One term of the equation: its labels in order, EIN_ELLIPSIS where "..." stands. */
typedef struct ein_term {
  int32_t lab[BERTH_MAX_RANK + 1];
  int32_t n, n_letters;
  bool ellipsis;
} ein_term_t;

/* Parses text[0..len) into t; fails on anything but letters and one "...". */
static berth_status_t ein_parse_term(ox_ctx_t *cx, const char *text, size_t len, ein_term_t *t) {
  memset(t, 0, sizeof *t);
  for (size_t i = 0; i < len;) {
    if (text[i] == '.') {
      if (t->ellipsis || len - i < 3 || text[i + 1] != '.' || text[i + 2] != '.')
        return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "equation term '%.*s' has a stray '.', expected one '...' at most",
                       (int)len, text);
      t->ellipsis = true;
      if (t->n > BERTH_MAX_RANK) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "equation term '%.*s' has more than %d labels", (int)len, text, BERTH_MAX_RANK);
      t->lab[t->n++] = EIN_ELLIPSIS;
      i += 3;
      continue;
    }
    int32_t l = ein_label(text[i]);
    if (l < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "equation term '%.*s' has '%c', expected letters and '...'", (int)len, text, text[i]);
    if (t->n > BERTH_MAX_RANK) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "equation term '%.*s' has more than %d labels", (int)len, text, BERTH_MAX_RANK);
    t->lab[t->n++] = l;
    t->n_letters++;
    i++;
  }
  return BERTH_OK;
}

/* Encodes labels as the einsum kernel's term (rank in bits 0..3, label k in bits 4+6k). */
static int64_t ein_encode(const int32_t *lab, int32_t n) {
  int64_t t = n;
  for (int32_t k = 0; k < n; k++) t |= (int64_t)lab[k] << (4 + 6 * k);
  return t;
}

/* Expands term t of an operand of rank r: the ellipsis takes the last r - letters of the E
 * ellipsis labels ell. */
static berth_status_t ein_expand(ox_ctx_t *cx, const ein_term_t *t, int32_t r, const int32_t *ell, int32_t E, int32_t *lab,
                                 int32_t *n) {
  int32_t m = r - t->n_letters;
  if (m < 0 || (!t->ellipsis && m != 0) || m > E)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "an equation term names %d dims of a rank-%d operand", (int)t->n_letters, (int)r);
  *n = 0;
  for (int32_t k = 0; k < t->n; k++) {
    if (t->lab[k] != EIN_ELLIPSIS) {
      lab[(*n)++] = t->lab[k];
      continue;
    }
    for (int32_t j = E - m; j < E; j++) lab[(*n)++] = ell[j];
  }
  return BERTH_OK;
}

/* The ellipsis labels (unused letters) and the broadcast size of each ellipsis dim. */
static berth_status_t ein_ellipsis(ox_ctx_t *cx, const ein_term_t *terms, int32_t n, const int32_t *ops, const bool *used,
                                   int32_t *ell, int32_t *E, int64_t *ell_dim) {
  *E = 0;
  for (int32_t k = 0; k < n; k++) {
    int32_t m = ox_rank_of(cx, ops[k]) - terms[k].n_letters;
    if (terms[k].ellipsis && m > *E) *E = m;
  }
  int32_t found = 0;
  for (int32_t l = 51; l >= 0 && found < *E; l--)
    if (!used[l]) ell[found++] = l;
  if (found < *E) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "the equation uses too many labels to expand its '...'");
  for (int32_t j = 0; j < *E; j++) ell_dim[j] = 1;
  for (int32_t k = 0; k < n; k++) {
    const berth_type_t *t = &cx->vals[ops[k]].type;
    int32_t m = t->rank - terms[k].n_letters, at = 0;
    if (!terms[k].ellipsis) continue;
    while (terms[k].lab[at] != EIN_ELLIPSIS) at++;
    for (int32_t j = 0; j < m; j++) {
      int64_t d = t->dims[at + j], *w = &ell_dim[*E - m + j];
      if (d != 1 && *w != 1 && d != *w)
        return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the '...' dims of operand %d do not broadcast (%lld against %lld)", (int)k,
                       (long long)d, (long long)*w);
      if (d != 1) *w = d;
    }
  }
  return BERTH_OK;
}

/* Einsum: the equation is parsed here and handed to the einsum kernel encoded; size-1
 * ellipsis dims are broadcast (an expand of the operand) first. Up to 8 operands. */
static berth_status_t op_einsum(ox_ctx_t *cx) {
  char buf[1024], eq[1024];
  const char *text = ox_attr_string(cx, "equation", NULL, buf, sizeof buf);
  if (!text) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'equation' is missing");
  size_t len = 0;
  for (const char *c = text; *c; c++)
    if (*c != ' ') eq[len++] = *c;
  eq[len] = '\0';
  int32_t n = ox_n_in(cx), ops[BERTH_MAX_ATTR_INTS];
  if (n < 1 || n > BERTH_MAX_ATTR_INTS)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%d operands; berth's einsum takes 1 to %d", (int)n, BERTH_MAX_ATTR_INTS);
  for (int32_t k = 0; k < n; k++) OX_TRY(ox_in_req(cx, k, &ops[k]));
  const char *arrow = strstr(eq, "->");
  size_t lhs_len = arrow ? (size_t)(arrow - eq) : len;
  ein_term_t terms[BERTH_MAX_ATTR_INTS], out_t;
  int32_t nt = 0;
  bool used[52] = {false};
  int32_t count[52] = {0};
  for (size_t i = 0, start = 0; i <= lhs_len; i++) {
    if (i < lhs_len && eq[i] != ',') continue;
    if (nt == n) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "equation '%s' has more terms than the %d operands", eq, (int)n);
    OX_TRY(ein_parse_term(cx, eq + start, i - start, &terms[nt]));
    for (int32_t j = 0; j < terms[nt].n; j++)
      if (terms[nt].lab[j] >= 0) used[terms[nt].lab[j]] = true, count[terms[nt].lab[j]]++;
    nt++;
    start = i + 1;
  }
  if (nt != n) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "equation '%s' has %d terms for %d operands", eq, (int)nt, (int)n);
  if (arrow) {
    OX_TRY(ein_parse_term(cx, arrow + 2, strlen(arrow + 2), &out_t));
    for (int32_t j = 0; j < out_t.n; j++)
      if (out_t.lab[j] >= 0) used[out_t.lab[j]] = true;
  }
  int32_t ell[BERTH_MAX_RANK], E;
  int64_t ell_dim[BERTH_MAX_RANK];
  OX_TRY(ein_ellipsis(cx, terms, n, ops, used, ell, &E, ell_dim));
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_EINSUM, at);
  int64_t enc[BERTH_MAX_ATTR_INTS];
  for (int32_t k = 0; k < n; k++) {
    int32_t lab[BERTH_MAX_RANK], m;
    OX_TRY(ein_expand(cx, &terms[k], ox_rank_of(cx, ops[k]), ell, E, lab, &m));
    enc[k] = ein_encode(lab, m);
    /* broadcast size-1 ellipsis dims */
    berth_type_t t = cx->vals[ops[k]].type;
    bool grow = false;
    for (int32_t j = 0; j < m; j++)
      for (int32_t e = 0; e < E; e++)
        if (lab[j] == ell[e] && t.dims[j] != ell_dim[e]) t.dims[j] = ell_dim[e], grow = true;
    if (grow) {
      berth_attr_value_t ea[BERTH_MAX_OP_ATTRS];
      ox_attrs_default(BERTH_OP_EXPAND, ea);
      OX_TRY(ox_attr_ints(cx, BERTH_OP_EXPAND, ea, "shape", t.dims, t.rank));
      OX_TRY(ox_emit1(cx, BERTH_OP_EXPAND, 1, &ops[k], ea, &ops[k]));
    }
  }
  int32_t olab[BERTH_MAX_RANK + 1], on = 0;
  if (arrow) {
    if (out_t.ellipsis && out_t.n_letters + E > BERTH_MAX_RANK) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "result rank over %d", BERTH_MAX_RANK);
    OX_TRY(ein_expand(cx, &out_t, out_t.n_letters + (out_t.ellipsis ? E : 0), ell, E, olab, &on));
  } else { /* implicit: the '...' dims, then the letters used once, in ASCII order */
    for (int32_t e = 0; e < E; e++) olab[on++] = ell[e];
    for (int32_t l = 26; l < 52 + 26; l++) {
      int32_t lab = l % 52; /* A..Z then a..z */
      if (count[lab] == 1) {
        if (on == BERTH_MAX_RANK) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "result rank over %d", BERTH_MAX_RANK);
        olab[on++] = lab;
      }
    }
  }
  OX_TRY(ox_attr_ints(cx, BERTH_OP_EINSUM, at, "terms", enc, n));
  OX_TRY(ox_attr_i(cx, BERTH_OP_EINSUM, at, "output", ein_encode(olab, on)));
  int32_t y;
  OX_TRY(ox_emit1(cx, BERTH_OP_EINSUM, n, ops, at, &y));
  cx->vals[y].elem = cx->vals[ops[0]].elem;
  return ox_out(cx, 0, y);
}

/* ---- data-dependent shapes: Compress, NonZero, Unique, NonMaxSuppression ------------------
 * Their result's shape depends on data. berth plans every byte ahead of time, so either the
 * data that sets the shape folds to a constant at compile time (a model constant, or a graph
 * input the model is specialized on with --input NAME:DTYPE[DIMS]=V,...) and the op is
 * computed here (Compress: a gather of the constant positions, so its data input may still
 * be computed at run time), or --dynamic-bound N is given: the op becomes its bounded kernel
 * (kernel_select.c), whose data-dependent axis has N entries in the plan and whose real
 * extent is a run-time i64 scalar; an assert after it fails the call when the data yields
 * more than N, and the result may only be a graph output (the method records which value
 * holds its extent: berth_ir_bound_t). Otherwise the op is refused naming the input. */

#define DATA_SHAPE " (it sets the result's shape; or bound it with --dynamic-bound N)"

/* The bounded form of the current node: op(in...) -> out[0..n_out), out[count_k] the real
 * extent; an assert fails the call when it exceeds --dynamic-bound N; the node's ONNX outputs
 * bind to out[k] for k in data[0..n_data), those in bounded (a mask) with a run-time extent
 * along axes[k]. */
typedef struct bounded_op {
  berth_op_t op;
  int32_t n_in, n_out, count_k, n_data;
  const int32_t *data, *axes;
  uint32_t bounded;
} bounded_op_t;

/* Names an emitted value "<the node's first output>_<what>" (the extent, the scratch). */
static berth_status_t name_val(ox_ctx_t *cx, int32_t v, const char *what) {
  const Onnx__NodeProto *n = cx->node;
  char buf[300];
  berth_snprintf(buf, sizeof buf, "%s_%s", n->n_output && n->output[0] && n->output[0][0] ? n->output[0] : "r", what);
  size_t len = strlen(buf) + 1;
  if (cx->vals[v].id < 0) return BERTH_OK; /* folded: no IR value */
  char *name = malloc(len);
  if (!name) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  memcpy(name, buf, len);
  berth_ir_value_t *x = &cx->m->values[cx->vals[v].id];
  free(x->name);
  x->name = name;
  return BERTH_OK;
}

static berth_status_t emit_bounded(ox_ctx_t *cx, const bounded_op_t *b, const int32_t *in, const berth_attr_value_t *at,
                                   int32_t elem0) {
  int32_t out[8], lim, le;
  OX_TRY(ox_emit(cx, b->op, b->n_in, in, at, b->n_out, out));
  OX_TRY(name_val(cx, out[b->count_k], "extent"));
  if (b->n_out > b->count_k + 1) OX_TRY(name_val(cx, out[b->n_out - 1], "work"));
  cx->vals[out[0]].elem = elem0;
  int64_t N = cx->opt->dynamic_bound;
  OX_TRY(ox_const_i64(cx, &N, 1, true, &lim));
  const char *saved_hint = cx->name_hint;
  cx->name_hint = "within_dynamic_bound";
  berth_status_t st = emit2(cx, BERTH_OP_LE, out[b->count_k], lim, &le);
  cx->name_hint = saved_hint;
  OX_TRY(st);
  char what[120];
  berth_snprintf(what, sizeof what, "yields more than --dynamic-bound %lld results", (long long)N);
  OX_TRY(ox_assert_ok(cx, le, what));
  for (int32_t k = 0; k < b->n_data && k < ox_n_out(cx); k++) {
    int32_t v = out[b->data[k]];
    if (b->bounded >> k & 1) {
      cx->vals[v].ext_count = out[b->count_k] + 1;
      cx->vals[v].ext_axis = b->axes[k];
    }
    OX_TRY(ox_out(cx, k, v));
    if (!(b->bounded >> k & 1) || !cx->node->output[k] || !cx->node->output[k][0]) continue;
    int32_t bound_to = ox_lookup(cx, cx->node->output[k]); /* a narrow rounding is elementwise: same extent */
    cx->vals[bound_to].ext_count = out[b->count_k] + 1;
    cx->vals[bound_to].ext_axis = b->axes[k];
  }
  return BERTH_OK;
}

static bool use_bound(const ox_ctx_t *cx) { return cx->opt->dynamic_bound > 0; }

/* Element i of a constant: compared exactly as the Unique kernel compares (berth_elem_cmp),
 * tested against zero, read as a double. */
static int cval_cmp(const ox_val_t *v, int64_t i, int64_t j) { return berth_elem_cmp(v->type.dtype, v->data, i, j); }

static double cval_f(const ox_val_t *v, int64_t i) {
  const void *d = v->data;
  switch (v->type.dtype) {
    case BERTH_DTYPE_BOOL: case BERTH_DTYPE_U8: return ((const uint8_t *)d)[i];
    case BERTH_DTYPE_I8: return ((const int8_t *)d)[i];
    case BERTH_DTYPE_I16: return ((const int16_t *)d)[i];
    case BERTH_DTYPE_U16: return ((const uint16_t *)d)[i];
    case BERTH_DTYPE_I32: return ((const int32_t *)d)[i];
    case BERTH_DTYPE_U32: return ((const uint32_t *)d)[i];
    case BERTH_DTYPE_I64: return (double)((const int64_t *)d)[i];
    case BERTH_DTYPE_U64: return (double)((const uint64_t *)d)[i];
    case BERTH_DTYPE_F32: return ((const float *)d)[i];
    default: return ((const double *)d)[i];
  }
}

static bool cval_nonzero(const ox_val_t *v, int64_t i) {
  if (berth_dtype_is_float(v->type.dtype)) return cval_f(v, i) != 0; /* NaN is nonzero, -0.0 zero */
  size_t es = berth_dtype_size(v->type.dtype);
  const uint8_t *b = (const uint8_t *)v->data + (size_t)i * es;
  for (size_t k = 0; k < es; k++)
    if (b[k]) return true;
  return false;
}

static berth_status_t oom_fail(ox_ctx_t *cx) { return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory"); }

/* A new i64 constant of the given dims, taking ownership of data. */
static berth_status_t const_i64_dims(ox_ctx_t *cx, int64_t *data, int32_t rank, const int64_t *dims, int32_t *out) {
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = BERTH_DTYPE_I64;
  t.rank = rank;
  for (int32_t k = 0; k < rank; k++) t.dims[k] = dims[k];
  return ox_const_new(cx, &t, data, out);
}

/* Gathers positions idx[0..n) of x along axis (x flattened first when axis < 0). */
static berth_status_t gather_positions(ox_ctx_t *cx, int32_t x, int32_t axis, int64_t *idx, int64_t n, int32_t *y) {
  int32_t iv, src = x;
  OX_TRY(const_i64_dims(cx, idx, 1, &n, &iv));
  if (axis < 0) {
    int64_t numel = berth_type_numel(&cx->vals[x].type);
    OX_TRY(ox_emit_reshape(cx, x, &numel, 1, &src));
    axis = 0;
  }
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_GATHER, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_GATHER, at, "axis", axis));
  int32_t in[2] = {src, iv};
  OX_TRY(ox_emit1(cx, BERTH_OP_GATHER, 2, in, at, y));
  cx->vals[*y].elem = cx->vals[x].elem;
  return BERTH_OK;
}

/* Compress: condition must be a constant; the result gathers its true positions. */
static berth_status_t op_compress(ox_ctx_t *cx) {
  int32_t x, c, y, axis = -1;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &c));
  if (ox_attr(cx, "axis")) OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", 0), ox_rank_of(cx, x), "axis", &axis));
  if (!ox_is_const(cx, c) && use_bound(cx)) {
    berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
    ox_attrs_default(BERTH_OP_COMPRESS_BOUNDED, at);
    OX_TRY(ox_attr_i(cx, BERTH_OP_COMPRESS_BOUNDED, at, "axis", axis < 0 ? 0 : axis));
    OX_TRY(ox_attr_i(cx, BERTH_OP_COMPRESS_BOUNDED, at, "flat", axis < 0));
    OX_TRY(ox_attr_i(cx, BERTH_OP_COMPRESS_BOUNDED, at, "bound", cx->opt->dynamic_bound));
    static const int32_t data[1] = {0};
    int32_t axes[1] = {axis < 0 ? 0 : axis}, in[2] = {x, c};
    bounded_op_t b = {BERTH_OP_COMPRESS_BOUNDED, 2, 2, 1, 1, data, axes, 1};
    return emit_bounded(cx, &b, in, at, cx->vals[x].elem);
  }
  OX_TRY(ox_need_const(cx, c, "the condition of Compress" DATA_SHAPE));
  const ox_val_t *cv = &cx->vals[c];
  if (cv->type.rank != 1) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "condition has rank %d, expected 1", (int)cv->type.rank);
  int64_t dim = axis < 0 ? berth_type_numel(&cx->vals[x].type) : cx->vals[x].type.dims[axis], n = cv->type.dims[0], cnt = 0;
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!idx) return oom_fail(cx);
  for (int64_t i = 0; i < n; i++) {
    if (!cval_nonzero(cv, i)) continue;
    if (i >= dim) {
      free(idx);
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "condition selects position %lld of an axis of %lld", (long long)i, (long long)dim);
    }
    idx[cnt++] = i;
  }
  OX_TRY(gather_positions(cx, x, axis, idx, cnt, &y));
  return ox_out(cx, 0, y);
}

/* NonZero: the input must be a constant; the result is i64[rank, count] (a scalar counts
 * as one element of rank 1, as onnxruntime has it). */
static berth_status_t op_non_zero(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  if (!ox_is_const(cx, x) && use_bound(cx)) {
    berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
    ox_attrs_default(BERTH_OP_NONZERO_BOUNDED, at);
    OX_TRY(ox_attr_i(cx, BERTH_OP_NONZERO_BOUNDED, at, "bound", cx->opt->dynamic_bound));
    static const int32_t data[1] = {0}, axes[1] = {1};
    bounded_op_t b = {BERTH_OP_NONZERO_BOUNDED, 1, 2, 1, 1, data, axes, 1};
    return emit_bounded(cx, &b, &x, at, BERTH_ONNX_INT64);
  }
  OX_TRY(ox_need_const(cx, x, "the input of NonZero" DATA_SHAPE));
  const ox_val_t *v = &cx->vals[x];
  int32_t r = v->type.rank ? v->type.rank : 1;
  int64_t numel = berth_type_numel(&v->type), cnt = 0;
  for (int64_t i = 0; i < numel; i++) cnt += cval_nonzero(v, i);
  int64_t *out = malloc(sizeof(int64_t) * (size_t)(r * cnt > 0 ? r * cnt : 1));
  if (!out) return oom_fail(cx);
  int64_t pos[BERTH_MAX_RANK] = {0}, j = 0;
  for (int64_t i = 0; i < numel; i++) {
    if (cval_nonzero(v, i)) {
      for (int32_t k = 0; k < r; k++) out[k * cnt + j] = v->type.rank ? pos[k] : 0;
      j++;
    }
    for (int32_t k = v->type.rank - 1; k >= 0; k--) {
      if (++pos[k] < v->type.dims[k]) break;
      pos[k] = 0;
    }
  }
  int64_t dims[2] = {r, cnt};
  OX_TRY(const_i64_dims(cx, out, 2, dims, &y));
  return ox_out(cx, 0, y);
}

/* Unique over a constant: slices along axis (elements when no axis) compared exactly. */
typedef struct uniq_ctx {
  const ox_val_t *v;
  int64_t outer, inner, n;
} uniq_ctx_t;

static int uniq_cmp(const uniq_ctx_t *u, int64_t a, int64_t b) {
  for (int64_t o = 0; o < u->outer; o++)
    for (int64_t i = 0; i < u->inner; i++) {
      int c = cval_cmp(u->v, (o * u->n + a) * u->inner + i, (o * u->n + b) * u->inner + i);
      if (c) return c;
    }
  return 0;
}

/* A stable merge sort of order[0..n) by slice (tmp: n scratch entries). */
static void uniq_sort(const uniq_ctx_t *u, int64_t *order, int64_t *tmp, int64_t n) {
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = uniq_cmp(u, order[j], order[i]) < 0 ? order[j++] : order[i++];
      while (i < mid) tmp[k++] = order[i++];
      while (j < hi) tmp[k++] = order[j++];
    }
    memcpy(order, tmp, sizeof(int64_t) * (size_t)n);
  }
}

static berth_status_t unique_outputs(ox_ctx_t *cx, int32_t x, int32_t axis, const uniq_ctx_t *u, int64_t *order,
                                     int64_t *group_of, bool sorted) {
  int64_t n = u->n, groups = 0;
  /* order is sorted (stable): each run of equal slices is one group, first member first */
  int64_t *first = malloc(sizeof(int64_t) * (size_t)(n ? n : 1)), *count = calloc((size_t)(n ? n : 1), sizeof(int64_t));
  if (!first || !count) {
    free(first);
    free(count);
    return oom_fail(cx);
  }
  for (int64_t k = 0; k < n; k++) {
    if (k == 0 || uniq_cmp(u, order[k - 1], order[k]) != 0) first[groups++] = order[k];
    group_of[order[k]] = groups - 1;
    count[groups - 1]++;
  }
  if (!sorted) { /* groups by first occurrence: renumber */
    int64_t *rank = order; /* reused: maps a sorted group to its place */
    int64_t g = 0;
    for (int64_t i = 0; i < n; i++) rank[i] = -1;
    for (int64_t i = 0; i < n; i++)
      if (rank[group_of[i]] < 0) rank[group_of[i]] = g++;
    int64_t *f2 = malloc(sizeof(int64_t) * (size_t)(n ? n : 1)), *c2 = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!f2 || !c2) {
      free(f2), free(c2), free(first), free(count);
      return oom_fail(cx);
    }
    for (int64_t q = 0; q < groups; q++) f2[rank[q]] = first[q], c2[rank[q]] = count[q];
    for (int64_t i = 0; i < n; i++) group_of[i] = rank[group_of[i]];
    memcpy(first, f2, sizeof(int64_t) * (size_t)groups);
    memcpy(count, c2, sizeof(int64_t) * (size_t)groups);
    free(f2), free(c2);
  }
  int64_t *first_c = malloc(sizeof(int64_t) * (size_t)(groups ? groups : 1));
  if (!first_c) {
    free(first), free(count);
    return oom_fail(cx);
  }
  memcpy(first_c, first, sizeof(int64_t) * (size_t)groups);
  int32_t y, vi, vinv, vc;
  berth_status_t st = gather_positions(cx, x, axis, first, groups, &y); /* takes first */
  if (!st) st = const_i64_dims(cx, first_c, 1, &groups, &vi);
  else free(first_c);
  if (!st) st = const_i64_dims(cx, group_of, 1, &n, &vinv);
  else free(group_of);
  if (!st) st = const_i64_dims(cx, count, 1, &groups, &vc);
  else free(count);
  OX_TRY(st);
  int32_t outs[4] = {y, vi, vinv, vc};
  for (int32_t k = 0; k < 4 && k < ox_n_out(cx); k++) OX_TRY(ox_out(cx, k, outs[k]));
  return BERTH_OK;
}

static berth_status_t op_unique(ox_ctx_t *cx) {
  int32_t x, axis = -1;
  OX_TRY(ox_in_req(cx, 0, &x));
  if (ox_attr(cx, "axis")) OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", 0), ox_rank_of(cx, x), "axis", &axis));
  if (!ox_is_const(cx, x) && use_bound(cx)) {
    berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
    ox_attrs_default(BERTH_OP_UNIQUE_BOUNDED, at);
    OX_TRY(ox_attr_i(cx, BERTH_OP_UNIQUE_BOUNDED, at, "axis", axis < 0 ? 0 : axis));
    OX_TRY(ox_attr_i(cx, BERTH_OP_UNIQUE_BOUNDED, at, "flat", axis < 0));
    OX_TRY(ox_attr_i(cx, BERTH_OP_UNIQUE_BOUNDED, at, "sorted", ox_attr_int(cx, "sorted", 1) != 0));
    OX_TRY(ox_attr_i(cx, BERTH_OP_UNIQUE_BOUNDED, at, "bound", cx->opt->dynamic_bound));
    /* y, indices, inverse_indices (static: one per input slice), counts */
    static const int32_t data[4] = {0, 1, 2, 3};
    int32_t axes[4] = {axis < 0 ? 0 : axis, 0, 0, 0};
    bounded_op_t b = {BERTH_OP_UNIQUE_BOUNDED, 1, 6, 4, 4, data, axes, 0xb};
    return emit_bounded(cx, &b, &x, at, cx->vals[x].elem);
  }
  OX_TRY(ox_need_const(cx, x, "the input of Unique" DATA_SHAPE));
  const ox_val_t *v = &cx->vals[x];
  uniq_ctx_t u = {v, 1, 1, berth_type_numel(&v->type)};
  if (axis >= 0) {
    u.n = v->type.dims[axis];
    if (u.n && berth_type_numel(&v->type)) {
      for (int32_t k = 0; k < axis; k++) u.outer *= v->type.dims[k];
      for (int32_t k = axis + 1; k < v->type.rank; k++) u.inner *= v->type.dims[k];
    } else {
      u.outer = 0; /* empty slices: all equal */
    }
  }
  size_t bytes = sizeof(int64_t) * (size_t)(u.n ? u.n : 1);
  int64_t *order = malloc(bytes), *tmp = malloc(bytes), *group_of = malloc(bytes);
  if (!order || !tmp || !group_of) {
    free(order), free(tmp), free(group_of);
    return oom_fail(cx);
  }
  for (int64_t i = 0; i < u.n; i++) order[i] = i;
  uniq_sort(&u, order, tmp, u.n);
  free(tmp);
  berth_status_t st = unique_outputs(cx, x, axis, &u, order, group_of, ox_attr_int(cx, "sorted", 1) != 0);
  free(order);
  return st;
}

/* NonMaxSuppression over constants, as ONNX's reference computes it. */
typedef struct nms_args {
  const ox_val_t *boxes, *scores;
  int64_t max_out;
  double iou, score;
  bool has_score, center;
} nms_args_t;

static bool nms_suppress(const nms_args_t *a, int64_t b, int64_t i, int64_t j) {
  int64_t N = a->boxes->type.dims[1];
  double p[4], q[4], x1[2], x2[2], y1[2], y2[2];
  for (int k = 0; k < 4; k++) p[k] = cval_f(a->boxes, (b * N + i) * 4 + k), q[k] = cval_f(a->boxes, (b * N + j) * 4 + k);
  if (!a->center) {
    x1[0] = fmin(p[1], p[3]), x1[1] = fmax(p[1], p[3]), x2[0] = fmin(q[1], q[3]), x2[1] = fmax(q[1], q[3]);
    y1[0] = fmin(p[0], p[2]), y1[1] = fmax(p[0], p[2]), y2[0] = fmin(q[0], q[2]), y2[1] = fmax(q[0], q[2]);
  } else {
    x1[0] = p[0] - p[2] / 2, x1[1] = p[0] + p[2] / 2, x2[0] = q[0] - q[2] / 2, x2[1] = q[0] + q[2] / 2;
    y1[0] = p[1] - p[3] / 2, y1[1] = p[1] + p[3] / 2, y2[0] = q[1] - q[3] / 2, y2[1] = q[1] + q[3] / 2;
  }
  double ix = fmin(x1[1], x2[1]) - fmax(x1[0], x2[0]), iy = fmin(y1[1], y2[1]) - fmax(y1[0], y2[0]);
  if (!(ix > 0) || !(iy > 0)) return false;
  double inter = ix * iy, a1 = (x1[1] - x1[0]) * (y1[1] - y1[0]), a2 = (x2[1] - x2[0]) * (y2[1] - y2[0]);
  double uni = a1 + a2 - inter;
  if (!(inter > 0) || !(a1 > 0) || !(a2 > 0) || !(uni > 0)) return false;
  return inter / uni > a->iou;
}

/* Selects boxes of (b, c) into sel (triples), count in *m; cand and chosen: N scratch. */
static void nms_class(const nms_args_t *a, int64_t b, int64_t c, int64_t *cand, int64_t *chosen, int64_t *sel, int64_t *m) {
  int64_t N = a->boxes->type.dims[1], C = a->scores->type.dims[1], nc = 0, nch = 0;
  const ox_val_t *s = a->scores;
  int64_t base = (b * C + c) * N;
  for (int64_t i = 0; i < N; i++)
    if (!a->has_score || cval_f(s, base + i) > a->score) cand[nc++] = i;
  /* best first: higher score, then lower index (a stable merge sort by score; chosen is
   * its scratch until the selection below) */
  for (int64_t w = 1; w < nc; w *= 2) {
    for (int64_t lo = 0; lo < nc; lo += 2 * w) {
      int64_t mid = lo + w < nc ? lo + w : nc, hi = lo + 2 * w < nc ? lo + 2 * w : nc, i = lo, j = mid, k = lo;
      while (i < mid && j < hi) chosen[k++] = cval_f(s, base + cand[j]) > cval_f(s, base + cand[i]) ? cand[j++] : cand[i++];
      while (i < mid) chosen[k++] = cand[i++];
      while (j < hi) chosen[k++] = cand[j++];
    }
    memcpy(cand, chosen, sizeof(int64_t) * (size_t)nc);
  }
  for (int64_t k = 0; k < nc && nch < a->max_out; k++) {
    bool keep = true;
    for (int64_t q = 0; q < nch && keep; q++) keep = !nms_suppress(a, b, cand[k], chosen[q]);
    if (!keep) continue;
    chosen[nch++] = cand[k];
    sel[*m * 3] = b, sel[*m * 3 + 1] = c, sel[*m * 3 + 2] = cand[k];
    (*m)++;
  }
}

static berth_status_t nms_scalar(ox_ctx_t *cx, int32_t k, const char *what, double *v, bool *present) {
  int32_t x;
  *present = false;
  OX_TRY(ox_in(cx, k, &x));
  if (x < 0 || berth_type_numel(&cx->vals[x].type) == 0) return BERTH_OK;
  OX_TRY(ox_need_const(cx, x, what));
  *v = cval_f(&cx->vals[x], 0);
  *present = true;
  return BERTH_OK;
}

/* NonMaxSuppression under --dynamic-bound: the scalars become run-time operands of the
 * kernel (absent: max_output_boxes_per_class 0, iou_threshold 0, no score threshold). */
static berth_status_t nms_bounded(ox_ctx_t *cx, int32_t bx, int32_t sc) {
  berth_dtype_t dt = cx->vals[bx].type.dtype;
  if (!berth_dtype_is_float(dt) || cx->vals[sc].type.dtype != dt)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "boxes and scores must be float [B, N, 4] and [B, C, N]");
  int32_t in[5] = {bx, sc, -1, -1, -1};
  bool has_score = false;
  for (int32_t k = 2; k < 5; k++) {
    int32_t v;
    OX_TRY(ox_in(cx, k, &v));
    berth_dtype_t want = k == 2 ? BERTH_DTYPE_I64 : dt;
    if (v < 0 || berth_type_numel(&cx->vals[v].type) == 0) {
      OX_TRY(ox_const_scalar(cx, want, 0, &in[k]));
      continue;
    }
    if (berth_type_numel(&cx->vals[v].type) != 1)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input %d has %lld elements, expected one", (int)k,
                     (long long)berth_type_numel(&cx->vals[v].type));
    if (k == 4) has_score = true;
    OX_TRY(ox_emit_cast(cx, v, want, &in[k]));
  }
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_NMS_BOUNDED, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_NMS_BOUNDED, at, "center_point_box", ox_attr_int(cx, "center_point_box", 0) != 0));
  OX_TRY(ox_attr_i(cx, BERTH_OP_NMS_BOUNDED, at, "has_score", has_score));
  OX_TRY(ox_attr_i(cx, BERTH_OP_NMS_BOUNDED, at, "bound", cx->opt->dynamic_bound));
  static const int32_t data[1] = {0}, axes[1] = {0};
  bounded_op_t b = {BERTH_OP_NMS_BOUNDED, 5, 3, 1, 1, data, axes, 1};
  return emit_bounded(cx, &b, in, at, BERTH_ONNX_INT64);
}

static berth_status_t op_nms(ox_ctx_t *cx) {
  int32_t bx, sc, y;
  OX_TRY(ox_in_req(cx, 0, &bx));
  OX_TRY(ox_in_req(cx, 1, &sc));
  if (use_bound(cx)) {
    bool all_const = ox_is_const(cx, bx) && ox_is_const(cx, sc);
    for (int32_t k = 2, v; k < 5 && all_const; k++) {
      OX_TRY(ox_in(cx, k, &v));
      all_const = v < 0 || ox_is_const(cx, v);
    }
    if (!all_const) return nms_bounded(cx, bx, sc);
  }
  OX_TRY(ox_need_const(cx, bx, "the boxes of NonMaxSuppression" DATA_SHAPE));
  OX_TRY(ox_need_const(cx, sc, "the scores of NonMaxSuppression" DATA_SHAPE));
  nms_args_t a = {&cx->vals[bx], &cx->vals[sc], 0, 0, 0, false, ox_attr_int(cx, "center_point_box", 0) != 0};
  const berth_type_t *bt = &a.boxes->type, *st = &a.scores->type;
  if (bt->rank != 3 || bt->dims[2] != 4 || st->rank != 3 || st->dims[0] != bt->dims[0] || st->dims[2] != bt->dims[1] ||
      !berth_dtype_is_float(bt->dtype) || !berth_dtype_is_float(st->dtype))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "boxes and scores must be float [B, N, 4] and [B, C, N]");
  double mo = 0;
  bool present;
  OX_TRY(nms_scalar(cx, 2, "max_output_boxes_per_class" DATA_SHAPE, &mo, &present));
  OX_TRY(nms_scalar(cx, 3, "iou_threshold" DATA_SHAPE, &a.iou, &present));
  OX_TRY(nms_scalar(cx, 4, "score_threshold" DATA_SHAPE, &a.score, &a.has_score));
  int64_t B = bt->dims[0], N = bt->dims[1], C = st->dims[1];
  a.max_out = mo > 0 ? (mo < (double)N ? (int64_t)mo : N) : 0;
  if ((double)B * (double)C * (double)N * (double)a.max_out > 1e10)
    return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "%lld x %lld x %lld boxes with up to %lld kept per class is too much work to "
                   "compute at compile time", (long long)B, (long long)C, (long long)N, (long long)a.max_out);
  size_t most = (size_t)B * (size_t)C * (size_t)(a.max_out ? a.max_out : 1); /* dims are small enough to be constants */
  int64_t *sel = malloc(sizeof(int64_t) * 3 * most), *cand = malloc(sizeof(int64_t) * (size_t)(N ? N : 1)),
          *chosen = malloc(sizeof(int64_t) * (size_t)(N ? N : 1)), m = 0;
  if (!sel || !cand || !chosen) {
    free(sel), free(cand), free(chosen);
    return oom_fail(cx);
  }
  for (int64_t b = 0; b < B; b++)
    for (int64_t c = 0; c < C; c++) nms_class(&a, b, c, cand, chosen, sel, &m);
  free(cand), free(chosen);
  int64_t dims[2] = {m, 3};
  OX_TRY(const_i64_dims(cx, sel, 2, dims, &y));
  return ox_out(cx, 0, y);
}

const ox_op_row_t ox_ops_index[] = {
    {"ArgMax", op_argmax, BERTH_OP_COUNT},
    {"ArgMin", op_argmin, BERTH_OP_COUNT},
    {"Compress", op_compress, BERTH_OP_COUNT},
    {"CumProd", op_cumprod, BERTH_OP_COUNT},
    {"CumSum", op_cumsum, BERTH_OP_COUNT},
    {"Det", op_det, BERTH_OP_COUNT},
    {"Einsum", op_einsum, BERTH_OP_COUNT},
    {"EyeLike", op_eye_like, BERTH_OP_COUNT},
    {"GatherND", op_gather_nd, BERTH_OP_COUNT},
    {"NonMaxSuppression", op_nms, BERTH_OP_COUNT},
    {"NonZero", op_non_zero, BERTH_OP_COUNT},
    {"OneHot", op_one_hot, BERTH_OP_COUNT},
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
    {"ReverseSequence", op_reverse_sequence, BERTH_OP_COUNT},
    {"Scatter", op_scatter_elements, BERTH_OP_COUNT},
    {"ScatterElements", op_scatter_elements, BERTH_OP_COUNT},
    {"ScatterND", op_scatter_nd, BERTH_OP_COUNT},
    {"TensorScatter", op_tensor_scatter, BERTH_OP_COUNT},
    {"TopK", op_topk, BERTH_OP_COUNT},
    {"Trilu", op_trilu, BERTH_OP_COUNT},
    {"Unique", op_unique, BERTH_OP_COUNT},
    {NULL, NULL, BERTH_OP_COUNT},
};
