/* ONNX ops, nn family: pooling (MaxPool, AveragePool, LpPool and their global forms,
 * MaxUnpool, MaxRoiPool) and normalization (BatchNormalization, LayerNormalization,
 * InstanceNormalization, GroupNormalization, LRN, RMSNormalization,
 * MeanVarianceNormalization, LpNormalization), opsets 7 to 23.
 *
 * The pools map to kernel_pool.c's ops with the padding resolved here (auto_pad), the
 * normalizations to kernel_norm.c's or, where the spec defines them as a short function of
 * existing ops (MeanVarianceNormalization, LpNormalization, GlobalAveragePool,
 * GlobalMaxPool), to those ops. A BatchNormalization whose parameters are constants and
 * whose input is the result of a Conv with constant weights is folded into a new Conv
 * (the old one is dropped when nothing else reads it). */
#include "onnx_internal.h"

#include "base/checked.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- pooling ---------------------------------------------------------------------------- */

enum { NN_POOL_CEIL = 1, NN_POOL_COUNT_PAD = 2, NN_POOL_COL_MAJOR = 4 }; /* kernel_pool.c's flags */

typedef struct nn_pool {
  int32_t sp;
  int64_t k[3], strides[3], pads[6], dil[3];
  int64_t flags;
} nn_pool_t;

/* An INTS attribute with sp (or 2 * sp for pads) values, each within [lo, 2^40]; dflt when absent. */
static berth_status_t pool_list(ox_ctx_t *cx, const char *name, int32_t want, int64_t lo, int64_t dflt, bool required,
                                int64_t *v) {
  int64_t buf[OX_MAXV];
  int32_t n;
  OX_TRY(ox_attr_int_list(cx, name, buf, OX_MAXV, &n));
  if (n < 0 && required) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute '%s' is required", name);
  if (n < 0 || (n == 0 && !required)) {
    for (int32_t k = 0; k < want; k++) v[k] = dflt;
    return BERTH_OK;
  }
  if (n != want)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute '%s' has %d values, expected %d", name, (int)n, (int)want);
  for (int32_t k = 0; k < n; k++) {
    if (buf[k] < lo || buf[k] > BERTH_MAX_DIM)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute '%s' [%d] is %lld, expected %lld..2^40", name, (int)k,
                     (long long)buf[k], (long long)lo);
    v[k] = buf[k];
  }
  return BERTH_OK;
}

/* kernel_shape, strides, pads, dilations and auto_pad of a pooling node on input x. */
static berth_status_t pool_attrs(ox_ctx_t *cx, int32_t x, nn_pool_t *p) {
  const berth_type_t *xt = &cx->vals[x].type;
  p->sp = xt->rank - 2;
  if (p->sp < 1 || p->sp > 3)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "input of rank %d: berth pools 1-D to 3-D inputs ([N, C, D...])",
                   (int)xt->rank);
  int32_t sp = p->sp;
  OX_TRY(pool_list(cx, "kernel_shape", sp, 1, 1, true, p->k));
  OX_TRY(pool_list(cx, "strides", sp, 1, 1, false, p->strides));
  OX_TRY(pool_list(cx, "pads", 2 * sp, 0, 0, false, p->pads));
  OX_TRY(pool_list(cx, "dilations", sp, 1, 1, false, p->dil));
  p->flags = ox_attr_int(cx, "ceil_mode", 0) != 0 ? NN_POOL_CEIL : 0;
  char buf[32];
  const char *ap = ox_attr_string(cx, "auto_pad", "NOTSET", buf, sizeof buf);
  bool upper = strcmp(ap, "SAME_UPPER") == 0, lower = strcmp(ap, "SAME_LOWER") == 0;
  if (strcmp(ap, "VALID") == 0) {
    for (int32_t k = 0; k < 2 * sp; k++) p->pads[k] = 0;
    p->flags &= ~(int64_t)NN_POOL_CEIL; /* the output is ceil((D - window + 1) / stride) either way */
  } else if (upper || lower) {
    /* the output is ceil(D / stride); the padding that makes it, the odd one at the end (UPPER)
     * or the start (LOWER). Attributes are <= 2^40, so the products fit. */
    p->flags &= ~(int64_t)NN_POOL_CEIL;
    for (int32_t k = 0; k < sp; k++) {
      int64_t in = xt->dims[2 + k], s = p->strides[k], out = (in + s - 1) / s;
      int64_t total = (out > 0 ? out - 1 : 0) * s + (p->k[k] - 1) * p->dil[k] + 1 - in;
      if (total < 0) total = 0;
      p->pads[k] = upper ? total / 2 : total - total / 2;
      p->pads[sp + k] = total - p->pads[k];
    }
  } else if (strcmp(ap, "NOTSET") != 0) {
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "auto_pad '%s', expected NOTSET, VALID, SAME_UPPER or SAME_LOWER", ap);
  }
  return BERTH_OK;
}

static berth_status_t pool_emit(ox_ctx_t *cx, berth_op_t op, int32_t x, const nn_pool_t *p, double pw, int32_t *out) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_ints(cx, op, a, "kernel_shape", p->k, p->sp));
  OX_TRY(ox_attr_ints(cx, op, a, "strides", p->strides, p->sp));
  OX_TRY(ox_attr_ints(cx, op, a, "pads", p->pads, 2 * p->sp));
  OX_TRY(ox_attr_ints(cx, op, a, "dilations", p->dil, p->sp));
  OX_TRY(ox_attr_i(cx, op, a, "flags", p->flags));
  if (op == BERTH_OP_LP_POOL) OX_TRY(ox_attr_f(cx, op, a, "p", pw));
  return ox_emit(cx, op, 1, &x, a, op == BERTH_OP_MAX_POOL_INDICES ? 2 : 1, out);
}

static bool out_wanted(const ox_ctx_t *cx, int32_t k) {
  return k < (int32_t)cx->node->n_output && cx->node->output[k] && cx->node->output[k][0];
}

static berth_status_t op_max_pool(ox_ctx_t *cx) {
  int32_t x, y[2];
  nn_pool_t p;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(pool_attrs(cx, x, &p));
  int64_t order = ox_attr_int(cx, "storage_order", 0);
  if (order != 0 && order != 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "storage_order is %lld, expected 0 or 1", (long long)order);
  if (order) p.flags |= NN_POOL_COL_MAJOR;
  bool indices = out_wanted(cx, 1);
  OX_TRY(pool_emit(cx, indices ? BERTH_OP_MAX_POOL_INDICES : BERTH_OP_MAX_POOL, x, &p, 0, y));
  OX_TRY(ox_out(cx, 0, y[0]));
  return indices ? ox_out(cx, 1, y[1]) : BERTH_OK;
}

static berth_status_t op_average_pool(ox_ctx_t *cx) {
  int32_t x, y;
  nn_pool_t p;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(pool_attrs(cx, x, &p));
  if (ox_attr_int(cx, "count_include_pad", 0) != 0) p.flags |= NN_POOL_COUNT_PAD;
  OX_TRY(pool_emit(cx, BERTH_OP_AVG_POOL, x, &p, 0, &y));
  return ox_out(cx, 0, y);
}

/* LpPool's and GlobalLpPool's p (an int from opset 2 on; a float before). */
static berth_status_t lp_p(ox_ctx_t *cx, double *p) {
  *p = ox_attr_float(cx, "p", 2.0);
  if (!(*p > 0 && *p <= 1e6))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'p' is %g, expected a number > 0", *p);
  return BERTH_OK;
}

static berth_status_t op_lp_pool(ox_ctx_t *cx) {
  int32_t x, y;
  nn_pool_t p;
  double pw;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(pool_attrs(cx, x, &p));
  OX_TRY(lp_p(cx, &pw));
  OX_TRY(pool_emit(cx, BERTH_OP_LP_POOL, x, &p, pw, &y));
  return ox_out(cx, 0, y);
}

/* GlobalAveragePool, GlobalMaxPool: the reduction over every spatial dim, kept as size 1. */
static berth_status_t global_reduce(ox_ctx_t *cx, berth_op_t op) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  int32_t r = ox_rank_of(cx, x);
  if (r < 3)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input of rank %d, expected [N, C, D...] (rank >= 3)", (int)r);
  int64_t axes[BERTH_MAX_RANK];
  for (int32_t k = 2; k < r; k++) axes[k - 2] = k;
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_ints(cx, op, a, "axes", axes, r - 2));
  OX_TRY(ox_attr_i(cx, op, a, "keepdims", 1));
  OX_TRY(ox_emit1(cx, op, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}
static berth_status_t op_global_average_pool(ox_ctx_t *cx) { return global_reduce(cx, BERTH_OP_MEAN); }
static berth_status_t op_global_max_pool(ox_ctx_t *cx) { return global_reduce(cx, BERTH_OP_MAX); }

static berth_status_t op_global_lp_pool(ox_ctx_t *cx) {
  int32_t x, y;
  double pw;
  OX_TRY(ox_in_req(cx, 0, &x));
  const berth_type_t *xt = &cx->vals[x].type;
  nn_pool_t p;
  memset(&p, 0, sizeof p);
  p.sp = xt->rank - 2;
  if (p.sp < 1 || p.sp > 3)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "input of rank %d: berth pools 1-D to 3-D inputs ([N, C, D...])",
                   (int)xt->rank);
  for (int32_t k = 0; k < p.sp; k++) {
    if (xt->dims[2 + k] < 1)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "spatial dim %d of the input is empty", (int)k);
    p.k[k] = xt->dims[2 + k];
    p.strides[k] = p.dil[k] = 1;
  }
  OX_TRY(lp_p(cx, &pw));
  OX_TRY(pool_emit(cx, BERTH_OP_LP_POOL, x, &p, pw, &y));
  return ox_out(cx, 0, y);
}

/* MaxUnpool: the inferred dims (N, C, (D - 1) * stride - pads + kernel) or output_shape
 * (a constant, at least as large in every dim). Indices outside the inferred tensor are
 * skipped by the kernel. */
static berth_status_t op_max_unpool(ox_ctx_t *cx) {
  int32_t x, ix, os, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &ix));
  OX_TRY(ox_in(cx, 2, &os));
  const berth_type_t *xt = &cx->vals[x].type;
  int32_t r = xt->rank, sp = r - 2;
  if (sp < 1 || sp > 3)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "input of rank %d: berth unpools 1-D to 3-D inputs ([N, C, D...])",
                   (int)r);
  int64_t k[3], s[3], pads[6], inferred[BERTH_MAX_RANK], shape[OX_MAXV];
  OX_TRY(pool_list(cx, "kernel_shape", sp, 1, 1, true, k));
  OX_TRY(pool_list(cx, "strides", sp, 1, 1, false, s));
  OX_TRY(pool_list(cx, "pads", 2 * sp, 0, 0, false, pads));
  inferred[0] = xt->dims[0];
  inferred[1] = xt->dims[1];
  for (int32_t d = 0; d < sp; d++) {
    /* all terms <= 2^40: no overflow */
    inferred[2 + d] = (xt->dims[2 + d] > 0 ? xt->dims[2 + d] - 1 : 0) * s[d] - pads[d] - pads[sp + d] + k[d];
    if (inferred[2 + d] < 0 || inferred[2 + d] > BERTH_MAX_DIM)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the output size of spatial dim %d is %lld, expected 0..2^40", (int)d,
                     (long long)inferred[2 + d]);
  }
  int32_t n = r;
  if (os >= 0) {
    OX_TRY(ox_const_ints(cx, os, "output_shape", shape, OX_MAXV, &n));
    if (n != r)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "output_shape has %d values, expected %d", (int)n, (int)r);
    for (int32_t d = 0; d < r; d++)
      if (shape[d] < inferred[d])
        return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                       "output_shape[%d] is %lld, smaller than the %lld the kernel, strides and pads give", (int)d,
                       (long long)shape[d], (long long)inferred[d]);
  } else {
    memcpy(shape, inferred, sizeof(int64_t) * (size_t)r);
  }
  OX_TRY(ox_emit_cast(cx, ix, BERTH_DTYPE_I64, &ix));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_MAX_UNPOOL, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_MAX_UNPOOL, a, "inferred", inferred, r));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_MAX_UNPOOL, a, "shape", shape, r));
  OX_TRY(ox_emit1(cx, BERTH_OP_MAX_UNPOOL, 2, (int32_t[]){x, ix}, a, &y));
  return ox_out(cx, 0, y);
}

/* MaxRoiPool: pooled_shape (required), spatial_scale. */
static berth_status_t op_max_roi_pool(ox_ctx_t *cx) {
  int32_t x, rois, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &rois));
  int64_t ps[OX_MAXV];
  int32_t n;
  OX_TRY(ox_attr_int_list(cx, "pooled_shape", ps, OX_MAXV, &n));
  if (n != 2) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'pooled_shape' must hold two sizes");
  OX_TRY(ox_emit_cast(cx, rois, cx->vals[x].type.dtype, &rois));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_MAX_ROI_POOL, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_MAX_ROI_POOL, a, "pooled_shape", ps, 2));
  OX_TRY(ox_attr_f(cx, BERTH_OP_MAX_ROI_POOL, a, "spatial_scale", ox_attr_float(cx, "spatial_scale", 1.0)));
  OX_TRY(ox_emit1(cx, BERTH_OP_MAX_ROI_POOL, 2, (int32_t[]){x, rois}, a, &y));
  return ox_out(cx, 0, y);
}

/* ---- BatchNormalization ------------------------------------------------------------------ */

/* The constant data of runtime value v's IR constant, or NULL. */
static const void *ir_const_data(ox_ctx_t *cx, int32_t id) {
  const berth_ir_value_t *v = &cx->m->values[id];
  if (v->kind != BERTH_IR_CONST || v->index < 0 || v->index >= cx->p->n_globals) return NULL;
  return cx->p->globals[v->index].data;
}

static double nn_get(const void *d, berth_dtype_t dt, int64_t i) {
  return dt == BERTH_DTYPE_F32 ? (double)((const float *)d)[i] : ((const double *)d)[i];
}
static void nn_set(void *d, berth_dtype_t dt, int64_t i, double v) {
  if (dt == BERTH_DTYPE_F32) ((float *)d)[i] = (float)v;
  else ((double *)d)[i] = v;
}

/* y = BatchNormalization(conv(x, w, b)) as conv(x, w', b'), when x's producer is a conv of
 * this graph with constant weights (and bias) and prm (scale, bias, mean, var) are
 * constants of its dtype: per output channel m, with f = scale / sqrt(var + eps),
 *   w'[m] = w[m] * f,   b'[m] = (b[m] - mean) * f + bias
 * (in double, rounded once). *done is false when it does not apply. */
static berth_status_t bn_fold_conv(ox_ctx_t *cx, int32_t x, const int32_t *prm, double eps, int32_t *y, bool *done) {
  *done = false;
  const ox_val_t *xv = &cx->vals[x];
  berth_dtype_t dt = xv->type.dtype;
  if (xv->data || xv->id < 0 || xv->elem != ox_plain_elem(dt) || (dt != BERTH_DTYPE_F32 && dt != BERTH_DTYPE_F64))
    return BERTH_OK;
  for (int k = 0; k < 4; k++)
    if (!ox_is_const(cx, prm[k]) || cx->vals[prm[k]].type.dtype != dt) return BERTH_OK;
  const berth_ir_value_t *iv = &cx->m->values[xv->id];
  if (iv->kind != BERTH_IR_NODE || iv->node < 0) return BERTH_OK;
  const berth_ir_node_t *cn = &cx->m->nodes[iv->node];
  if (cn->op != BERTH_OP_CONV || cn->graph != cx->graph || cn->n_out != 1) return BERTH_OK;
  const void *w = ir_const_data(cx, cn->in[1]), *b = cn->n_in == 3 ? ir_const_data(cx, cn->in[2]) : NULL;
  if (!w || (cn->n_in == 3 && !b)) return BERTH_OK;
  berth_type_t wt = cx->m->values[cn->in[1]].type, bt;
  int64_t m = wt.dims[0], per = berth_type_numel(&wt) / (m ? m : 1);
  berth_attr_value_t attrs[BERTH_MAX_OP_ATTRS];
  memcpy(attrs, cn->attrs, sizeof attrs);
  int32_t xin = ox_val_ir(cx, cn->in[0]);
  if (xin < 0) return ox_fail(cx, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  void *nw = malloc(berth_type_bytes(&wt) ? berth_type_bytes(&wt) : 1);
  memset(&bt, 0, sizeof bt);
  bt.dtype = dt;
  bt.rank = 1;
  bt.dims[0] = m;
  void *nb = malloc(berth_type_bytes(&bt) ? berth_type_bytes(&bt) : 1);
  if (!nw || !nb) {
    free(nw);
    free(nb);
    return ox_fail(cx, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  const void *sc = cx->vals[prm[0]].data, *bi = cx->vals[prm[1]].data, *mu = cx->vals[prm[2]].data;
  const void *va = cx->vals[prm[3]].data;
  for (int64_t o = 0; o < m; o++) {
    double f = nn_get(sc, dt, o) / sqrt(nn_get(va, dt, o) + eps);
    for (int64_t i = 0; i < per; i++) nn_set(nw, dt, o * per + i, nn_get(w, dt, o * per + i) * f);
    nn_set(nb, dt, o, ((b ? nn_get(b, dt, o) : 0) - nn_get(mu, dt, o)) * f + nn_get(bi, dt, o));
  }
  int32_t wv, bv;
  OX_TRY(ox_const_new(cx, &wt, nw, &wv));
  OX_TRY(ox_const_new(cx, &bt, nb, &bv));
  OX_TRY(ox_emit1(cx, BERTH_OP_CONV, 3, (int32_t[]){xin, wv, bv}, attrs, y));
  *done = true;
  return BERTH_OK;
}

/* spatial = 0 (opsets 7 and 8): parameters of shape [C, D...], one per feature; computed
 * with broadcasting ops as the spec's formula. */
static berth_status_t bn_per_feature(ox_ctx_t *cx, int32_t x, int32_t *prm, double eps, int32_t *y) {
  const berth_type_t *xt = &cx->vals[x].type;
  int64_t dims[BERTH_MAX_RANK];
  dims[0] = 1;
  for (int32_t k = 1; k < xt->rank; k++) dims[k] = xt->dims[k];
  for (int k = 0; k < 4; k++) OX_TRY(ox_emit_reshape(cx, prm[k], dims, xt->rank, &prm[k]));
  int32_t e, t1, t2, t3, t4, t5;
  OX_TRY(ox_const_scalar(cx, xt->dtype, eps, &e));
  OX_TRY(ox_emit1(cx, BERTH_OP_SUB, 2, (int32_t[]){x, prm[2]}, NULL, &t1));
  OX_TRY(ox_emit1(cx, BERTH_OP_MUL, 2, (int32_t[]){prm[0], t1}, NULL, &t2));
  OX_TRY(ox_emit1(cx, BERTH_OP_ADD, 2, (int32_t[]){prm[3], e}, NULL, &t3));
  OX_TRY(ox_emit1(cx, BERTH_OP_SQRT, 1, &t3, NULL, &t4));
  OX_TRY(ox_emit1(cx, BERTH_OP_DIV, 2, (int32_t[]){t2, t4}, NULL, &t5));
  return ox_emit1(cx, BERTH_OP_ADD, 2, (int32_t[]){t5, prm[1]}, NULL, y);
}

static berth_status_t op_batch_norm(ox_ctx_t *cx) {
  int32_t x, prm[4], y;
  OX_TRY(ox_in_req(cx, 0, &x));
  for (int k = 0; k < 4; k++) OX_TRY(ox_in_req(cx, 1 + k, &prm[k]));
  if (ox_attr_int(cx, "training_mode", 0) != 0)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                   "training_mode is 1 (batch statistics and running-mean updates are training only, which berth "
                   "does not run)");
  for (int32_t k = 1; k < ox_n_out(cx); k++)
    if (out_wanted(cx, k))
      return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                     "output %d (a batch statistic, computed in training only, which berth does not run) is used",
                     (int)k);
  berth_dtype_t dt = cx->vals[x].type.dtype;
  if (dt != BERTH_DTYPE_F32 && dt != BERTH_DTYPE_F64)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input has dtype %s, expected a float", berth_dtype_name(dt));
  if (ox_rank_of(cx, x) < 2)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input of rank %d, expected [N, C, D...]", (int)ox_rank_of(cx, x));
  for (int k = 0; k < 4; k++) OX_TRY(ox_emit_cast(cx, prm[k], dt, &prm[k]));
  double eps = ox_attr_float(cx, "epsilon", 1e-5);
  if (!(eps >= 0 && eps < INFINITY))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "epsilon is %g, expected a finite number >= 0", eps);
  if (cx->opset < 9 && ox_attr_int(cx, "spatial", 1) == 0) {
    OX_TRY(bn_per_feature(cx, x, prm, eps, &y));
    return ox_out(cx, 0, y);
  }
  bool done;
  OX_TRY(bn_fold_conv(cx, x, prm, eps, &y, &done));
  if (!done) {
    berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
    ox_attrs_default(BERTH_OP_BATCH_NORM, a);
    OX_TRY(ox_attr_f(cx, BERTH_OP_BATCH_NORM, a, "epsilon", eps));
    OX_TRY(ox_emit1(cx, BERTH_OP_BATCH_NORM, 5, (int32_t[]){x, prm[0], prm[1], prm[2], prm[3]}, a, &y));
  }
  return ox_out(cx, 0, y);
}

/* ---- LayerNormalization, RMSNormalization ------------------------------------------------ */

/* stash_type: the precision of the statistics; berth computes them in f64 for f32 and f64
 * data, at least as precise as float (1) and double (11). Others are refused. */
static berth_status_t check_stash(ox_ctx_t *cx) {
  int64_t st = ox_attr_int(cx, "stash_type", 1);
  if (st != 1 && st != 11)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "stash_type %lld (berth computes statistics in float or double)",
                   (long long)st);
  return BERTH_OK;
}

/* v broadcast to the normalized dims of x (its dims from axis on), in x's dtype. */
static berth_status_t to_norm_shape(ox_ctx_t *cx, int32_t v, int32_t x, int32_t axis, int32_t *out) {
  const berth_type_t *xt = &cx->vals[x].type;
  OX_TRY(ox_emit_cast(cx, v, xt->dtype, &v));
  const berth_type_t *vt = &cx->vals[v].type;
  int32_t nr = xt->rank - axis;
  bool same = vt->rank == nr;
  for (int32_t k = 0; same && k < nr; k++) same = vt->dims[k] == xt->dims[axis + k];
  if (same) {
    *out = v;
    return BERTH_OK;
  }
  if (vt->rank > nr)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "a scale or bias of rank %d does not broadcast to the %d normalized dims",
                   (int)vt->rank, (int)nr);
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_EXPAND, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_EXPAND, a, "shape", xt->dims + axis, nr));
  return ox_emit1(cx, BERTH_OP_EXPAND, 1, &v, a, out);
}

static berth_status_t layer_or_rms(ox_ctx_t *cx, bool rms) {
  int32_t x, sc, bi = -1, y[3];
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &sc));
  if (!rms) OX_TRY(ox_in(cx, 2, &bi));
  OX_TRY(check_stash(cx));
  int32_t axis;
  OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", -1), ox_rank_of(cx, x), "axis", &axis));
  OX_TRY(to_norm_shape(cx, sc, x, axis, &sc));
  if (bi >= 0) OX_TRY(to_norm_shape(cx, bi, x, axis, &bi));
  berth_op_t op = rms ? BERTH_OP_RMS_NORM : BERTH_OP_LAYER_NORM;
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "axis", axis));
  OX_TRY(ox_attr_f(cx, op, a, "epsilon", ox_attr_float(cx, "epsilon", 1e-5)));
  int32_t in[3] = {x, sc, bi};
  OX_TRY(ox_emit(cx, op, bi >= 0 ? 3 : 2, in, a, rms ? 1 : 3, y));
  OX_TRY(ox_out(cx, 0, y[0]));
  if (rms) return BERTH_OK;
  /* Mean and InvStdDev have the stash type (float), not X's narrow type */
  for (int k = 1; k < 3; k++) {
    cx->vals[y[k]].elem = ox_plain_elem(cx->vals[y[k]].type.dtype);
    OX_TRY(ox_out(cx, k, y[k]));
  }
  return BERTH_OK;
}
static berth_status_t op_layer_norm(ox_ctx_t *cx) { return layer_or_rms(cx, false); }
static berth_status_t op_rms_norm(ox_ctx_t *cx) { return layer_or_rms(cx, true); }

/* ---- GroupNormalization, InstanceNormalization ------------------------------------------ */

/* Per-group parameters [G] (GroupNormalization-18) as per-channel ones [C]. */
static berth_status_t group_to_channel(ox_ctx_t *cx, int32_t v, int64_t g, int64_t c, int32_t *out) {
  const berth_type_t *vt = &cx->vals[v].type;
  if (vt->rank != 1 || vt->dims[0] != g)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "scale and bias must have num_groups (%lld) values at opset %lld",
                   (long long)g, (long long)cx->opset);
  int32_t r, e;
  OX_TRY(ox_emit_reshape(cx, v, (int64_t[]){g, 1}, 2, &r));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_EXPAND, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_EXPAND, a, "shape", (int64_t[]){g, c / g}, 2));
  OX_TRY(ox_emit1(cx, BERTH_OP_EXPAND, 1, &r, a, &e));
  return ox_emit_reshape(cx, e, &c, 1, out);
}

static berth_status_t group_norm(ox_ctx_t *cx, bool instance) {
  int32_t x, sc, bi, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &sc));
  OX_TRY(ox_in_req(cx, 2, &bi));
  const berth_type_t *xt = &cx->vals[x].type;
  if (xt->rank < 2)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input of rank %d, expected [N, C, D...]", (int)xt->rank);
  int64_t c = xt->dims[1], g = c;
  if (!instance) {
    OX_TRY(check_stash(cx));
    const Onnx__AttributeProto *ng = ox_attr(cx, "num_groups");
    if (!ng) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'num_groups' is required");
    g = ox_attr_int(cx, "num_groups", 1);
    if (g < 1 || c % g != 0)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "num_groups is %lld, expected a divisor of the %lld channels",
                     (long long)g, (long long)c);
  }
  OX_TRY(ox_emit_cast(cx, sc, xt->dtype, &sc));
  OX_TRY(ox_emit_cast(cx, bi, xt->dtype, &bi));
  if (!instance && cx->opset < 21) {
    OX_TRY(group_to_channel(cx, sc, g, c, &sc));
    OX_TRY(group_to_channel(cx, bi, g, c, &bi));
  }
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_GROUP_NORM, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_GROUP_NORM, a, "groups", g));
  OX_TRY(ox_attr_f(cx, BERTH_OP_GROUP_NORM, a, "epsilon", ox_attr_float(cx, "epsilon", 1e-5)));
  OX_TRY(ox_emit1(cx, BERTH_OP_GROUP_NORM, 3, (int32_t[]){x, sc, bi}, a, &y));
  return ox_out(cx, 0, y);
}
static berth_status_t op_group_norm(ox_ctx_t *cx) { return group_norm(cx, false); }
static berth_status_t op_instance_norm(ox_ctx_t *cx) { return group_norm(cx, true); }

/* ---- LRN, MeanVarianceNormalization, LpNormalization --------------------------------------- */

static berth_status_t op_lrn(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  if (!ox_attr(cx, "size")) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'size' is required");
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_LRN, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_LRN, a, "size", ox_attr_int(cx, "size", 1)));
  OX_TRY(ox_attr_f(cx, BERTH_OP_LRN, a, "alpha", ox_attr_float(cx, "alpha", 1e-4)));
  OX_TRY(ox_attr_f(cx, BERTH_OP_LRN, a, "beta", ox_attr_float(cx, "beta", 0.75)));
  OX_TRY(ox_attr_f(cx, BERTH_OP_LRN, a, "bias", ox_attr_float(cx, "bias", 1.0)));
  OX_TRY(ox_emit1(cx, BERTH_OP_LRN, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t reduce_keep(ox_ctx_t *cx, berth_op_t op, int32_t x, const int64_t *axes, int32_t n, int32_t *y) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_ints(cx, op, a, "axes", axes, n));
  OX_TRY(ox_attr_i(cx, op, a, "keepdims", 1));
  return ox_emit1(cx, op, 1, &x, a, y);
}

/* MeanVarianceNormalization, as its function body: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9). */
static berth_status_t op_mvn(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  int64_t axes[OX_MAXV];
  int32_t n, r = ox_rank_of(cx, x);
  OX_TRY(ox_attr_int_list(cx, "axes", axes, OX_MAXV, &n));
  if (n < 0) {
    if (r < 4) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input of rank %d with the default axes [0, 2, 3]", (int)r);
    axes[0] = 0, axes[1] = 2, axes[2] = 3, n = 3;
  }
  for (int32_t k = 0; k < n; k++) {
    int32_t ax;
    OX_TRY(ox_norm_axis(cx, axes[k], r, "axes entry", &ax));
    axes[k] = ax;
  }
  berth_dtype_t dt = cx->vals[x].type.dtype;
  if (dt != BERTH_DTYPE_F32 && dt != BERTH_DTYPE_F64)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input has dtype %s, expected a float", berth_dtype_name(dt));
  int32_t m, x2, m2, mm, var, sd, d, e, den;
  OX_TRY(reduce_keep(cx, BERTH_OP_MEAN, x, axes, n, &m));
  OX_TRY(ox_emit1(cx, BERTH_OP_MUL, 2, (int32_t[]){x, x}, NULL, &x2));
  OX_TRY(reduce_keep(cx, BERTH_OP_MEAN, x2, axes, n, &m2));
  OX_TRY(ox_emit1(cx, BERTH_OP_MUL, 2, (int32_t[]){m, m}, NULL, &mm));
  OX_TRY(ox_emit1(cx, BERTH_OP_SUB, 2, (int32_t[]){m2, mm}, NULL, &var));
  OX_TRY(ox_emit1(cx, BERTH_OP_SQRT, 1, &var, NULL, &sd));
  OX_TRY(ox_emit1(cx, BERTH_OP_SUB, 2, (int32_t[]){x, m}, NULL, &d));
  OX_TRY(ox_const_scalar(cx, dt, 1e-9, &e));
  OX_TRY(ox_emit1(cx, BERTH_OP_ADD, 2, (int32_t[]){sd, e}, NULL, &den));
  OX_TRY(ox_emit1(cx, BERTH_OP_DIV, 2, (int32_t[]){d, den}, NULL, &y));
  return ox_out(cx, 0, y);
}

/* LpNormalization: x / ||x||_p along axis (p 1 or 2); 0 where the norm is 0. */
static berth_status_t op_lp_norm(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  int64_t p = ox_attr_int(cx, "p", 2);
  if (p != 1 && p != 2) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "p is %lld, expected 1 or 2", (long long)p);
  int32_t axis;
  OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", -1), ox_rank_of(cx, x), "axis", &axis));
  berth_dtype_t dt = cx->vals[x].type.dtype;
  if (dt != BERTH_DTYPE_F32 && dt != BERTH_DTYPE_F64)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input has dtype %s, expected a float", berth_dtype_name(dt));
  int32_t t, s, nrm, q, zero, isz;
  int64_t ax = axis;
  if (p == 1) OX_TRY(ox_emit1(cx, BERTH_OP_ABS, 1, &x, NULL, &t));
  else OX_TRY(ox_emit1(cx, BERTH_OP_MUL, 2, (int32_t[]){x, x}, NULL, &t));
  OX_TRY(reduce_keep(cx, BERTH_OP_SUM, t, &ax, 1, &s));
  if (p == 2) OX_TRY(ox_emit1(cx, BERTH_OP_SQRT, 1, &s, NULL, &nrm));
  else nrm = s;
  OX_TRY(ox_emit1(cx, BERTH_OP_DIV, 2, (int32_t[]){x, nrm}, NULL, &q));
  OX_TRY(ox_const_scalar(cx, dt, 0, &zero));
  OX_TRY(ox_emit1(cx, BERTH_OP_EQ, 2, (int32_t[]){nrm, zero}, NULL, &isz));
  OX_TRY(ox_emit1(cx, BERTH_OP_WHERE, 3, (int32_t[]){isz, zero, q}, NULL, &y));
  return ox_out(cx, 0, y);
}

const ox_op_row_t ox_ops_nn[] = {
    {"AveragePool", op_average_pool, BERTH_OP_COUNT},
    {"BatchNormalization", op_batch_norm, BERTH_OP_COUNT},
    {"GlobalAveragePool", op_global_average_pool, BERTH_OP_COUNT},
    {"GlobalLpPool", op_global_lp_pool, BERTH_OP_COUNT},
    {"GlobalMaxPool", op_global_max_pool, BERTH_OP_COUNT},
    {"GroupNormalization", op_group_norm, BERTH_OP_COUNT},
    {"InstanceNormalization", op_instance_norm, BERTH_OP_COUNT},
    {"LRN", op_lrn, BERTH_OP_COUNT},
    {"LayerNormalization", op_layer_norm, BERTH_OP_COUNT},
    {"LpNormalization", op_lp_norm, BERTH_OP_COUNT},
    {"LpPool", op_lp_pool, BERTH_OP_COUNT},
    {"MaxPool", op_max_pool, BERTH_OP_COUNT},
    {"MaxRoiPool", op_max_roi_pool, BERTH_OP_COUNT},
    {"MaxUnpool", op_max_unpool, BERTH_OP_COUNT},
    {"MeanVarianceNormalization", op_mvn, BERTH_OP_COUNT},
    {"RMSNormalization", op_rms_norm, BERTH_OP_COUNT},
    {NULL, NULL, BERTH_OP_COUNT},
};
