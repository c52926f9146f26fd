/* ONNX ops, index family: the reductions (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ArgMax
 * and the rest), and the index ops (ArgMin, TopK, CumSum, Trilu, GatherND, ScatterElements,
 * ScatterND, OneHot, EyeLike, ...). */
#include "onnx_internal.h"

#include <math.h>
#include <string.h>

/* ---- reductions ------------------------------------------------------------------------ */

static berth_status_t reduce(ox_ctx_t *cx, berth_op_t op, int64_t axes_input_from) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  int64_t axes[OX_MAXV];
  int32_t n;
  OX_TRY(ox_axes_operand(cx, "axes", axes_input_from, 1, axes, &n));
  if (n <= 0 && ox_attr_int(cx, "noop_with_empty_axes", 0)) return ox_out(cx, 0, x);
  bool keep = ox_attr_int(cx, "keepdims", 1) != 0;
  if (op == BERTH_OP_MAX || op == BERTH_OP_MIN) {
    /* over an empty set: the spec's identity (-inf / +inf, or the dtype's lowest / highest
     * value; false / true for bool), a constant of the result's shape */
    const berth_type_t *xt = &cx->vals[x].type;
    bool red[BERTH_MAX_RANK] = {false}, empty = false;
    for (int32_t k = 0; k < n; k++) {
      int32_t ax = 0;
      OX_TRY(ox_norm_axis(cx, axes[k], xt->rank, "axes entry", &ax));
      red[ax] = true;
    }
    berth_type_t t;
    memset(&t, 0, sizeof t);
    t.dtype = xt->dtype;
    for (int32_t k = 0; k < xt->rank; k++) {
      bool r = n <= 0 || red[k];
      empty |= r && xt->dims[k] == 0;
      if (!r) t.dims[t.rank++] = xt->dims[k];
      else if (keep) t.dims[t.rank++] = 1;
    }
    if (empty) {
      bool is_max = op == BERTH_OP_MAX;
      double fv = is_max ? -INFINITY : INFINITY;
      int64_t iv = 0;
      switch (t.dtype) {
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
      OX_TRY(ox_emit_full(cx, &t, fv, iv, &y));
      cx->vals[y].elem = cx->vals[x].elem;
      return ox_out(cx, 0, y);
    }
  }
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  if (n > 0) OX_TRY(ox_attr_ints(cx, op, a, "axes", axes, n));
  OX_TRY(ox_attr_i(cx, op, a, "keepdims", keep));
  if ((op == BERTH_OP_MAX || op == BERTH_OP_MIN) && cx->vals[x].type.dtype == BERTH_DTYPE_BOOL) {
    /* bool (ReduceMax is any, ReduceMin all): through u8 */
    int32_t u, r;
    OX_TRY(ox_emit_cast(cx, x, BERTH_DTYPE_U8, &u));
    OX_TRY(ox_emit1(cx, op, 1, &u, a, &r));
    OX_TRY(ox_emit_cast(cx, r, BERTH_DTYPE_BOOL, &y));
    cx->vals[y].elem = BERTH_ONNX_BOOL;
    return ox_out(cx, 0, y);
  }
  OX_TRY(ox_emit1(cx, op, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}
static berth_status_t op_reduce_sum(ox_ctx_t *cx) { return reduce(cx, BERTH_OP_SUM, 13); }
static berth_status_t op_reduce_mean(ox_ctx_t *cx) { return reduce(cx, BERTH_OP_MEAN, 18); }
static berth_status_t op_reduce_max(ox_ctx_t *cx) { return reduce(cx, BERTH_OP_MAX, 18); }
static berth_status_t op_reduce_min(ox_ctx_t *cx) { return reduce(cx, BERTH_OP_MIN, 18); }

static berth_status_t op_argmax(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_ARGMAX, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_ARGMAX, a, "axis", ox_attr_int(cx, "axis", 0)));
  OX_TRY(ox_attr_i(cx, BERTH_OP_ARGMAX, a, "keepdims", ox_attr_int(cx, "keepdims", 1) != 0));
  OX_TRY(ox_attr_i(cx, BERTH_OP_ARGMAX, a, "select_last_index", ox_attr_int(cx, "select_last_index", 0) != 0));
  OX_TRY(ox_emit1(cx, BERTH_OP_ARGMAX, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}


const ox_op_row_t ox_ops_index[] = {
    {"ArgMax", op_argmax, BERTH_OP_COUNT},
    {"ReduceMax", op_reduce_max, BERTH_OP_COUNT},
    {"ReduceMean", op_reduce_mean, BERTH_OP_COUNT},
    {"ReduceMin", op_reduce_min, BERTH_OP_COUNT},
    {"ReduceSum", op_reduce_sum, BERTH_OP_COUNT},
    {NULL, NULL, BERTH_OP_COUNT},
};
