/* ONNX ops, sequence family: sequence-model ops (Attention, RotaryEmbedding, RNN, GRU), the loss functions and
 * TfIdfVectorizer (token n-grams). */
#include "base/checked.h"
#include "onnx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- small emitters ------------------------------------------------------------------- */

static berth_status_t seq_oom(ox_ctx_t *cx) { return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory"); }

static berth_status_t seq_bin(ox_ctx_t *cx, berth_op_t op, int32_t a, int32_t b, int32_t *out) {
  int32_t in[2] = {a, b};
  return ox_emit1(cx, op, 2, in, NULL, out);
}

static berth_status_t seq_where(ox_ctx_t *cx, int32_t c, int32_t a, int32_t b, int32_t *out) {
  int32_t in[3] = {c, a, b};
  return ox_emit1(cx, BERTH_OP_WHERE, 3, in, NULL, out);
}

static berth_status_t seq_transpose(ox_ctx_t *cx, int32_t x, const int64_t *perm, int32_t n, int32_t *out) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_TRANSPOSE, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_TRANSPOSE, a, "perm", perm, n));
  return ox_emit1(cx, BERTH_OP_TRANSPOSE, 1, &x, a, out);
}

static berth_status_t seq_axis_op(ox_ctx_t *cx, berth_op_t op, int32_t n_in, const int32_t *in, int64_t axis, int32_t *out) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "axis", axis));
  return ox_emit1(cx, op, n_in, in, a, out);
}

/* A constant vector 0, 1, ..., n-1 (i64) reshaped to `rank` dims, all 1 but dim `at`. */
static berth_status_t seq_iota(ox_ctx_t *cx, int64_t n, int32_t rank, int32_t at, int64_t delta, int32_t *out) {
  int64_t *v = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!v) return seq_oom(cx);
  for (int64_t i = 0; i < n; i++) v[i] = i + delta;
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = BERTH_DTYPE_I64;
  t.rank = rank;
  for (int32_t k = 0; k < rank; k++) t.dims[k] = k == at ? n : 1;
  return ox_const_new(cx, &t, v, out);
}

/* ==== Attention (opset 23, 24) ===========================================================
 * Lowered into berth ops, in the compute dtype of Q (float16 and bfloat16 compute in f32 and
 * are rounded once, at the outputs, as the reference computes them):
 *   3-D inputs [B, S, H*D] -> [B, H, S, D]; present = concat(past, new) on the sequence axis
 *   scores = (Q * sqrt(scale)) @ (K^T * sqrt(scale))    grouped-query: Q as [B, Hkv, rep*S, D]
 *   scores = softcap * tanh(scores / softcap)            when softcap > 0
 *   scores += bias   (attn_mask, -inf where a bool mask is false or past its end; causal;
 *                     keys past nonpad_kv_seqlen[b])
 *   Y = softmax(scores) @ V                              grouped-query as above
 * The qk_matmul_output (mode 0 raw, 1 after softcap, 2 after the bias, 3 after softmax). */

typedef struct att {
  int32_t q, k, v, mask, pk, pv, nonpad; /* 4-D Q, K, V (after the 3-D reshape); -1 absent */
  int64_t B, Hq, Hkv, S, Lnew, P, L, D, Dv;
  bool three_d;
  berth_dtype_t dt;
} att_t;

static berth_status_t att_to4d(ox_ctx_t *cx, int32_t x, int64_t heads, const char *what, int32_t *out) {
  const berth_type_t *t = &cx->vals[x].type;
  if (heads < 1 || t->dims[2] % heads != 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s hidden size %lld is not a multiple of its head count %lld", what,
                   (long long)t->dims[2], (long long)heads);
  int64_t dims[4] = {t->dims[0], t->dims[1], heads, t->dims[2] / heads}, perm[4] = {0, 2, 1, 3};
  int32_t r;
  OX_TRY(ox_emit_reshape(cx, x, dims, 4, &r));
  return seq_transpose(cx, r, perm, 4, out);
}

static berth_status_t att_inputs(ox_ctx_t *cx, att_t *a) {
  OX_TRY(ox_in_req(cx, 0, &a->q));
  OX_TRY(ox_in_req(cx, 1, &a->k));
  OX_TRY(ox_in_req(cx, 2, &a->v));
  OX_TRY(ox_in(cx, 3, &a->mask));
  OX_TRY(ox_in(cx, 4, &a->pk));
  OX_TRY(ox_in(cx, 5, &a->pv));
  a->nonpad = -1;
  if (cx->opset >= 24) OX_TRY(ox_in(cx, 6, &a->nonpad));
  a->dt = cx->vals[a->q].type.dtype;
  if (a->dt != BERTH_DTYPE_F32 && a->dt != BERTH_DTYPE_F64)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "Q has dtype %s, expected a floating type", berth_dtype_name(a->dt));
  if (cx->vals[a->k].type.dtype != a->dt || cx->vals[a->v].type.dtype != a->dt)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "Q, K and V must have one dtype");
  int32_t rq = ox_rank_of(cx, a->q), rk = ox_rank_of(cx, a->k), rv = ox_rank_of(cx, a->v);
  if (rq != rk || rq != rv || (rq != 3 && rq != 4))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "Q, K and V have ranks %d, %d, %d, expected all 3 or all 4", (int)rq,
                   (int)rk, (int)rv);
  a->three_d = rq == 3;
  int64_t qh = ox_attr_int(cx, "q_num_heads", 0), kvh = ox_attr_int(cx, "kv_num_heads", 0);
  if (a->three_d) {
    if (qh < 1 || kvh < 1)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "3-D inputs need q_num_heads and kv_num_heads >= 1 (have %lld, %lld)",
                     (long long)qh, (long long)kvh);
    OX_TRY(att_to4d(cx, a->q, qh, "Q", &a->q));
    OX_TRY(att_to4d(cx, a->k, kvh, "K", &a->k));
    OX_TRY(att_to4d(cx, a->v, kvh, "V", &a->v));
  }
  const berth_type_t *q = &cx->vals[a->q].type, *k = &cx->vals[a->k].type, *v = &cx->vals[a->v].type;
  a->B = q->dims[0];
  a->Hq = q->dims[1];
  a->S = q->dims[2];
  a->D = q->dims[3];
  a->Hkv = k->dims[1];
  a->Lnew = k->dims[2];
  a->Dv = v->dims[3];
  if (k->dims[0] != a->B || v->dims[0] != a->B || v->dims[1] != a->Hkv || k->dims[3] != a->D || v->dims[2] != a->Lnew)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT,
                   "K [%lld, %lld, %lld, %lld] and V [%lld, %lld, %lld, %lld] do not fit Q [%lld, %lld, %lld, %lld]",
                   (long long)k->dims[0], (long long)k->dims[1], (long long)k->dims[2], (long long)k->dims[3],
                   (long long)v->dims[0], (long long)v->dims[1], (long long)v->dims[2], (long long)v->dims[3],
                   (long long)a->B, (long long)a->Hq, (long long)a->S, (long long)a->D);
  if (a->Hkv < 1 || a->Hq % a->Hkv != 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "q heads %lld are not a multiple of kv heads %lld", (long long)a->Hq,
                   (long long)a->Hkv);
  if ((qh && qh != a->Hq) || (kvh && kvh != a->Hkv))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "q_num_heads %lld / kv_num_heads %lld disagree with the inputs' %lld / %lld",
                   (long long)qh, (long long)kvh, (long long)a->Hq, (long long)a->Hkv);
  return BERTH_OK;
}

/* present_key / present_value: past concatenated with the new keys and values. */
static berth_status_t att_past(ox_ctx_t *cx, att_t *a) {
  a->P = 0;
  if ((a->pk < 0) != (a->pv < 0)) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "past_key and past_value go together");
  if (a->pk >= 0) {
    const berth_type_t *pk = &cx->vals[a->pk].type, *pv = &cx->vals[a->pv].type;
    if (pk->rank != 4 || pv->rank != 4 || pk->dims[0] != a->B || pk->dims[1] != a->Hkv || pk->dims[3] != a->D ||
        pv->dims[0] != a->B || pv->dims[1] != a->Hkv || pv->dims[3] != a->Dv || pv->dims[2] != pk->dims[2] ||
        pk->dtype != a->dt || pv->dtype != a->dt)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "past_key / past_value must be [B, kv_heads, past, head_size] of Q's dtype");
    a->P = pk->dims[2];
    int32_t in[2] = {a->pk, a->k};
    OX_TRY(seq_axis_op(cx, BERTH_OP_CONCAT, 2, in, 2, &a->k));
    in[0] = a->pv;
    in[1] = a->v;
    OX_TRY(seq_axis_op(cx, BERTH_OP_CONCAT, 2, in, 2, &a->v));
  }
  a->L = a->P + a->Lnew;
  return BERTH_OK;
}

/* x [B, Hq, S, N] @ y [B, Hkv, N, M] -> [B, Hq, S, M]: each kv head serves rep = Hq / Hkv
 * consecutive q heads, so x is viewed as [B, Hkv, rep*S, N] (no copy of y per q head). */
static berth_status_t att_matmul(ox_ctx_t *cx, const att_t *a, int32_t x, int32_t y, int32_t *out) {
  int64_t rep = a->Hq / a->Hkv, n = cx->vals[x].type.dims[3], m = cx->vals[y].type.dims[3];
  int32_t xr = x, r;
  if (rep > 1) {
    int64_t d[4] = {a->B, a->Hkv, rep * a->S, n};
    OX_TRY(ox_emit_reshape(cx, x, d, 4, &xr));
  }
  OX_TRY(seq_bin(cx, BERTH_OP_MATMUL, xr, y, &r));
  if (rep == 1) {
    *out = r;
    return BERTH_OK;
  }
  int64_t d[4] = {a->B, a->Hq, a->S, m};
  return ox_emit_reshape(cx, r, d, 4, out);
}

/* The attention mask as an additive bias of the compute dtype, padded with -inf (false) up to
 * the total sequence length; -1 when there is none. */
static berth_status_t att_mask_bias(ox_ctx_t *cx, const att_t *a, int32_t *out) {
  *out = -1;
  if (a->mask < 0) return BERTH_OK;
  int32_t m = a->mask;
  const berth_type_t *mt = &cx->vals[m].type; /* not read after an emit (cx->vals may move) */
  const berth_dtype_t mdt = mt->dtype;
  if (mt->rank < 2 || mt->rank > 4)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attn_mask has rank %d, expected 2, 3 or 4", (int)mt->rank);
  int64_t ml = mt->dims[mt->rank - 1];
  if (ml > a->L)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attn_mask covers %lld keys, more than the %lld there are", (long long)ml,
                   (long long)a->L);
  int32_t zero, ninf;
  OX_TRY(ox_const_scalar(cx, a->dt, 0.0, &zero));
  OX_TRY(ox_const_scalar(cx, a->dt, -INFINITY, &ninf));
  if (mdt == BERTH_DTYPE_BOOL) {
    OX_TRY(seq_where(cx, m, zero, ninf, &m));
  } else if (mdt == a->dt) {
    /* the mask's own values */
  } else {
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attn_mask has dtype %s, expected bool or Q's type",
                   berth_dtype_name(mdt));
  }
  if (ml < a->L) {
    berth_type_t t = cx->vals[m].type;
    t.dims[t.rank - 1] = a->L - ml;
    int32_t pad, in[2];
    OX_TRY(ox_emit_full(cx, &t, -INFINITY, 0, &pad));
    in[0] = m;
    in[1] = pad;
    OX_TRY(seq_axis_op(cx, BERTH_OP_CONCAT, 2, in, t.rank - 1, &m));
  }
  *out = m;
  return BERTH_OK;
}

/* acc + (allowed ? 0 : -inf) (acc -1: none yet). */
static berth_status_t att_add_allowed(ox_ctx_t *cx, const att_t *a, int32_t allowed, int32_t acc, int32_t *out) {
  int32_t zero, ninf, b;
  OX_TRY(ox_const_scalar(cx, a->dt, 0.0, &zero));
  OX_TRY(ox_const_scalar(cx, a->dt, -INFINITY, &ninf));
  OX_TRY(seq_where(cx, allowed, zero, ninf, &b));
  if (acc < 0) {
    *out = b;
    return BERTH_OK;
  }
  return seq_bin(cx, BERTH_OP_ADD, acc, b, out);
}

/* The whole additive bias (mask, causal, padding), or -1 when there is none. */
static berth_status_t att_bias(ox_ctx_t *cx, const att_t *a, int32_t *out) {
  int32_t bias = -1, np = -1;
  OX_TRY(att_mask_bias(cx, a, &bias));
  if (a->nonpad >= 0) {
    const berth_type_t *t = &cx->vals[a->nonpad].type;
    if (t->rank != 1 || t->dims[0] != a->B || !berth_dtype_is_int(t->dtype))
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "nonpad_kv_seqlen must be an integer vector of the batch size %lld",
                     (long long)a->B);
    int64_t d[4] = {a->B, 1, 1, 1};
    OX_TRY(ox_emit_cast(cx, a->nonpad, BERTH_DTYPE_I64, &np));
    OX_TRY(ox_emit_reshape(cx, np, d, 4, &np));
  }
  if (ox_attr_int(cx, "is_causal", 0)) {
    /* key j is visible to query i when j <= i + offset: offset = the past length, or with
     * nonpad_kv_seqlen and no past, nonpad_kv_seqlen[b] - S (bottom-right aligned) */
    int32_t i, j, lim, allowed;
    OX_TRY(seq_iota(cx, a->L, 4, 3, 0, &j));
    if (a->pk < 0 && np >= 0) {
      OX_TRY(seq_iota(cx, a->S, 4, 2, -a->S, &i));
      OX_TRY(seq_bin(cx, BERTH_OP_ADD, i, np, &lim));
    } else {
      OX_TRY(seq_iota(cx, a->S, 4, 2, a->P, &lim));
    }
    OX_TRY(seq_bin(cx, BERTH_OP_LE, j, lim, &allowed));
    OX_TRY(att_add_allowed(cx, a, allowed, bias, &bias));
  }
  if (np >= 0) {
    int32_t j, allowed;
    OX_TRY(seq_iota(cx, a->L, 4, 3, 0, &j));
    OX_TRY(seq_bin(cx, BERTH_OP_LT, j, np, &allowed));
    OX_TRY(att_add_allowed(cx, a, allowed, bias, &bias));
  }
  *out = bias;
  return BERTH_OK;
}

/* softmax over the keys, in softmax_precision when it names another float type. */
static berth_status_t att_softmax(ox_ctx_t *cx, const att_t *a, int32_t x, int32_t *out) {
  int64_t prec = ox_attr_int(cx, "softmax_precision", 0);
  berth_dtype_t sdt = a->dt;
  if (prec == 1) sdt = BERTH_DTYPE_F32;
  else if (prec == 11) sdt = BERTH_DTYPE_F64;
  else if (prec != 0 && prec != cx->vals[a->q].elem)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "softmax_precision %lld is not supported (float, double or Q's own type)",
                   (long long)prec);
  int32_t xs, s;
  OX_TRY(ox_emit_cast(cx, x, sdt, &xs));
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_SOFTMAX, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_SOFTMAX, at, "axis", -1));
  OX_TRY(ox_emit1(cx, BERTH_OP_SOFTMAX, 1, &xs, at, &s));
  return ox_emit_cast(cx, s, a->dt, out);
}

static berth_status_t att_scores(ox_ctx_t *cx, const att_t *a, int32_t qk_out[4], int32_t *probs) {
  double scale = a->D > 0 ? 1.0 / sqrt((double)a->D) : 1.0;
  const Onnx__AttributeProto *sa = ox_attr(cx, "scale");
  if (sa) scale = ox_attr_float(cx, "scale", scale);
  if (!(scale > 0) || !isfinite(scale))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "scale is %g, expected a finite number > 0", scale);
  double softcap = ox_attr_float(cx, "softcap", 0.0);
  if (!(softcap >= 0) || !isfinite(softcap))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "softcap is %g, expected a finite number >= 0", softcap);
  int32_t c, qs, kt, ks, s;
  int64_t perm[4] = {0, 1, 3, 2};
  OX_TRY(ox_const_scalar(cx, a->dt, sqrt(scale), &c));
  OX_TRY(seq_bin(cx, BERTH_OP_MUL, a->q, c, &qs));
  OX_TRY(seq_transpose(cx, a->k, perm, 4, &kt));
  OX_TRY(seq_bin(cx, BERTH_OP_MUL, kt, c, &ks));
  OX_TRY(att_matmul(cx, a, qs, ks, &s));
  qk_out[0] = s;
  if (softcap > 0) {
    int32_t cap, t, th;
    OX_TRY(ox_const_scalar(cx, a->dt, softcap, &cap));
    OX_TRY(seq_bin(cx, BERTH_OP_DIV, s, cap, &t));
    OX_TRY(ox_emit1(cx, BERTH_OP_TANH, 1, &t, NULL, &th));
    OX_TRY(seq_bin(cx, BERTH_OP_MUL, th, cap, &s));
  }
  qk_out[1] = s;
  int32_t bias = -1;
  OX_TRY(att_bias(cx, a, &bias));
  if (bias >= 0) OX_TRY(seq_bin(cx, BERTH_OP_ADD, s, bias, &s));
  qk_out[2] = s;
  OX_TRY(att_softmax(cx, a, s, probs));
  qk_out[3] = *probs;
  return BERTH_OK;
}

static berth_status_t op_attention(ox_ctx_t *cx) {
  att_t a;
  OX_TRY(att_inputs(cx, &a));
  OX_TRY(att_past(cx, &a));
  int64_t mode = ox_attr_int(cx, "qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "qk_matmul_output_mode is %lld, expected 0..3", (long long)mode);
  int32_t qk[4], p, y;
  OX_TRY(att_scores(cx, &a, qk, &p));
  OX_TRY(att_matmul(cx, &a, p, a.v, &y));
  if (a.three_d) {
    int64_t perm[4] = {0, 2, 1, 3}, d[3] = {a.B, a.S, a.Hq * a.Dv};
    OX_TRY(seq_transpose(cx, y, perm, 4, &y));
    OX_TRY(ox_emit_reshape(cx, y, d, 3, &y));
  }
  OX_TRY(ox_out(cx, 0, y));
  OX_TRY(ox_out(cx, 1, a.k));
  OX_TRY(ox_out(cx, 2, a.v));
  return ox_out(cx, 3, qk[mode]);
}

/* ==== NegativeLogLikelihoodLoss (12, 13, 22), SoftmaxCrossEntropyLoss (12, 13) ==========
 * The nll_loss kernel; SoftmaxCrossEntropyLoss takes log_softmax over the classes (axis 1)
 * first, which is also its optional log_prob output. The kernel's `ok` result is false when
 * a target is outside 0..C-1 (and not ignore_index): an assert makes that call fail. */

/* A constant integer operand's values must lie in lo..hi (or equal `skip` when has_skip):
 * else the import fails with msg (a runtime one is checked by the kernel's ok result). */
static berth_status_t seq_const_range(ox_ctx_t *cx, int32_t v, int64_t lo, int64_t hi, bool has_skip, int64_t skip,
                                      const char *msg) {
  if (v < 0 || !ox_is_const(cx, v) || !berth_dtype_is_int(cx->vals[v].type.dtype)) return BERTH_OK;
  const ox_val_t *x = &cx->vals[v];
  int64_t n = berth_type_numel(&x->type);
  for (int64_t i = 0; i < n; i++) {
    int64_t e = x->type.dtype == BERTH_DTYPE_I64 ? ((const int64_t *)x->data)[i]
                : x->type.dtype == BERTH_DTYPE_I32 ? ((const int32_t *)x->data)[i]
                                                   : lo; /* the kernels take i32 and i64 only */
    if ((e < lo || e > hi) && !(has_skip && e == skip))
      return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "%s (element %lld is %lld)", msg, (long long)i, (long long)e);
  }
  return BERTH_OK;
}

static berth_status_t loss_common(ox_ctx_t *cx, bool softmax_first) {
  int32_t x, t, w, in[3], out[2];
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &t));
  OX_TRY(ox_in(cx, 2, &w));
  char buf[16];
  const char *r = ox_attr_string(cx, "reduction", "mean", buf, sizeof buf);
  int64_t red = strcmp(r, "none") == 0 ? 0 : strcmp(r, "sum") == 0 ? 1 : strcmp(r, "mean") == 0 ? 2 : -1;
  if (red < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "reduction '%s', expected none, sum or mean", r);
  if (ox_rank_of(cx, x) < 2) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input has rank %d, expected >= 2", (int)ox_rank_of(cx, x));
  if (softmax_first) {
    int32_t lp;
    OX_TRY(seq_axis_op(cx, BERTH_OP_LOG_SOFTMAX, 1, &x, 1, &lp));
    OX_TRY(ox_narrow_round(cx, lp, &lp)); /* the loss reads log_prob as its type holds it */
    OX_TRY(ox_out(cx, 1, lp));
    x = lp;
  }
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_NLL_LOSS, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_NLL_LOSS, a, "reduction", red));
  if (ox_attr(cx, "ignore_index")) {
    OX_TRY(ox_attr_i(cx, BERTH_OP_NLL_LOSS, a, "ignore_index", ox_attr_int(cx, "ignore_index", 0)));
    OX_TRY(ox_attr_i(cx, BERTH_OP_NLL_LOSS, a, "has_ignore", 1));
  }
  in[0] = x;
  in[1] = t;
  in[2] = w;
  char msg[160];
  berth_snprintf(msg, sizeof msg, "a target class index is outside 0..%lld and not ignore_index",
               (long long)cx->vals[x].type.dims[1] - 1);
  OX_TRY(seq_const_range(cx, t, 0, cx->vals[x].type.dims[1] - 1, a[2].i != 0, a[1].i, msg));
  OX_TRY(ox_emit(cx, BERTH_OP_NLL_LOSS, w >= 0 ? 3 : 2, in, a, 2, out));
  OX_TRY(ox_assert_ok(cx, out[1], msg));
  return ox_out(cx, 0, out[0]);
}

static berth_status_t op_nll_loss(ox_ctx_t *cx) { return loss_common(cx, false); }
static berth_status_t op_sce_loss(ox_ctx_t *cx) { return loss_common(cx, true); }

/* ==== RotaryEmbedding (23) =================================================================
 * The rotary_embedding kernel; its `ok` result is false when a position id is outside the
 * caches, and the call then fails. */
static berth_status_t op_rotary_embedding(ox_ctx_t *cx) {
  int32_t in[4], out[2];
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  OX_TRY(ox_in_req(cx, 2, &in[2]));
  OX_TRY(ox_in(cx, 3, &in[3]));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_ROTARY_EMBEDDING, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_ROTARY_EMBEDDING, a, "interleaved", ox_attr_int(cx, "interleaved", 0)));
  OX_TRY(ox_attr_i(cx, BERTH_OP_ROTARY_EMBEDDING, a, "rotary_dim", ox_attr_int(cx, "rotary_embedding_dim", 0)));
  OX_TRY(ox_attr_i(cx, BERTH_OP_ROTARY_EMBEDDING, a, "num_heads", ox_attr_int(cx, "num_heads", 0)));
  char msg[160];
  berth_snprintf(msg, sizeof msg, "a position id is outside 0..%lld (the rows of cos_cache)",
               (long long)cx->vals[in[1]].type.dims[0] - 1);
  if (in[3] >= 0) OX_TRY(seq_const_range(cx, in[3], 0, cx->vals[in[1]].type.dims[0] - 1, false, 0, msg));
  OX_TRY(ox_emit(cx, BERTH_OP_ROTARY_EMBEDDING, in[3] >= 0 ? 4 : 3, in, a, 2, out));
  if (in[3] >= 0) OX_TRY(ox_assert_ok(cx, out[1], msg));
  return ox_out(cx, 0, out[0]);
}

/* ==== RNN (7, 14, 22), GRU (7, 14, 22) =====================================================
 * The rnn / gru kernels (kernel_rnn.c). Activation names become the kernel's kinds, with
 * their alpha and beta (taken in order from activation_alpha / activation_beta by the
 * activations that have one, else the ONNX op's default) as float32 bit patterns. Zeros
 * stand in for a missing B or initial_h; sequence lengths outside 0..seq fail the call. */

typedef struct rnn_act_name {
  const char *name;
  int64_t kind;
  int8_t n_params; /* 0: none, 1: alpha, 2: alpha and beta */
  float alpha, beta;
} rnn_act_name_t;

/* In the order of kernel_rnn.c's RNN_ACT_* kinds. */
static const rnn_act_name_t rnn_act_names[] = {
    {"Sigmoid", 0, 0, 0, 0},         {"Tanh", 1, 0, 0, 0},          {"Relu", 2, 0, 0, 0},
    {"Affine", 3, 2, 1.0f, 0.0f},    {"LeakyRelu", 4, 1, 0.01f, 0}, {"ThresholdedRelu", 5, 1, 1.0f, 0},
    {"ScaledTanh", 6, 2, 1.0f, 1.0f}, {"HardSigmoid", 7, 2, 0.2f, 0.5f}, {"Elu", 8, 1, 1.0f, 0},
    {"Softsign", 9, 0, 0, 0},        {"Softplus", 10, 0, 0, 0},
};

static int64_t rnn_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (int64_t)u;
}

/* activations (n_fn per direction, defaults dflt) into the kernel's attributes. */
static berth_status_t rnn_activations(ox_ctx_t *cx, berth_op_t op, berth_attr_value_t *a, int32_t n_fn, int64_t dirs,
                                      const char *const *dflt) {
  const Onnx__AttributeProto *acts = ox_attr(cx, "activations"), *al = ox_attr(cx, "activation_alpha"),
                             *be = ox_attr(cx, "activation_beta");
  int32_t n = (int32_t)(n_fn * dirs);
  if (acts && acts->n_strings != (size_t)n)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "activations has %zu names, expected %d", acts->n_strings, (int)n);
  int64_t kinds[4], params[8];
  size_t ia = 0, ib = 0;
  for (int32_t k = 0; k < n; k++) {
    char name[32];
    if (acts) {
      const ProtobufCBinaryData *s = &acts->strings[(size_t)k % acts->n_strings];
      size_t len = s->len < sizeof name - 1 ? s->len : sizeof name - 1;
      memcpy(name, s->data, len);
      name[len] = 0;
    } else {
      berth_snprintf(name, sizeof name, "%s", dflt[k % n_fn]);
    }
    const rnn_act_name_t *e = NULL;
    for (size_t i = 0; i < sizeof rnn_act_names / sizeof rnn_act_names[0]; i++)
      if (strcasecmp(name, rnn_act_names[i].name) == 0) e = &rnn_act_names[i];
    if (!e) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "activation '%s' is not an ONNX RNN activation", name);
    float alpha = e->alpha, beta = e->beta;
    if (e->n_params >= 1 && al && ia < al->n_floats) alpha = al->floats[ia++];
    if (e->n_params >= 2 && be && ib < be->n_floats) beta = be->floats[ib++];
    kinds[k] = e->kind;
    params[2 * k] = rnn_f32_bits(alpha);
    params[2 * k + 1] = rnn_f32_bits(beta);
  }
  OX_TRY(ox_attr_ints(cx, op, a, "activations", kinds, n));
  return ox_attr_ints(cx, op, a, "act_params", params, 2 * n);
}

static berth_status_t rnn_common(ox_ctx_t *cx, berth_op_t op, int64_t gates) {
  int32_t X, W, R, B, SL, H0;
  OX_TRY(ox_in_req(cx, 0, &X));
  OX_TRY(ox_in_req(cx, 1, &W));
  OX_TRY(ox_in_req(cx, 2, &R));
  OX_TRY(ox_in(cx, 3, &B));
  OX_TRY(ox_in(cx, 4, &SL));
  OX_TRY(ox_in(cx, 5, &H0));
  char buf[32];
  const char *dir = ox_attr_string(cx, "direction", "forward", buf, sizeof buf);
  int64_t d = strcmp(dir, "forward") == 0 ? 0 : strcmp(dir, "reverse") == 0 ? 1 : strcmp(dir, "bidirectional") == 0 ? 2 : -1;
  if (d < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "direction '%s', expected forward, reverse or bidirectional", dir);
  int64_t layout = ox_attr_int(cx, "layout", 0), dirs = d == 2 ? 2 : 1;
  if (layout != 0 && layout != 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'layout' is %lld, expected 0 or 1", (long long)layout);
  const berth_type_t *xt = &cx->vals[X].type, *rt = &cx->vals[R].type;
  if (xt->rank != 3 || rt->rank != 3) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "X and R must have rank 3");
  int64_t hidden = rt->dims[2];
  if (ox_attr(cx, "hidden_size") && ox_attr_int(cx, "hidden_size", hidden) != hidden)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "hidden_size %lld, but R is [%lld, %lld, %lld]",
                   (long long)ox_attr_int(cx, "hidden_size", hidden), (long long)rt->dims[0], (long long)rt->dims[1],
                   (long long)rt->dims[2]);
  /* (xt is not read after the emits below: they may move cx->vals) */
  int64_t batch = layout ? xt->dims[0] : xt->dims[1], seq = layout ? xt->dims[1] : xt->dims[0];
  berth_dtype_t dt = xt->dtype;
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "direction", d));
  OX_TRY(ox_attr_i(cx, op, a, "layout", layout));
  if (ox_attr(cx, "clip")) OX_TRY(ox_attr_f(cx, op, a, "clip", ox_attr_float(cx, "clip", 0)));
  static const char *const rnn_dflt[] = {"Tanh"}, *const gru_dflt[] = {"Sigmoid", "Tanh"};
  OX_TRY(rnn_activations(cx, op, a, gates == 1 ? 1 : 2, dirs, gates == 1 ? rnn_dflt : gru_dflt));
  if (gates == 3) OX_TRY(ox_attr_i(cx, op, a, "linear_before_reset", ox_attr_int(cx, "linear_before_reset", 0)));
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = dt;
  if (B < 0) {
    t.rank = 2;
    t.dims[0] = dirs;
    t.dims[1] = 2 * gates * hidden;
    OX_TRY(ox_emit_full(cx, &t, 0, 0, &B));
  }
  if (H0 < 0) {
    t.rank = 3;
    t.dims[0] = layout ? batch : dirs;
    t.dims[1] = layout ? dirs : batch;
    t.dims[2] = hidden;
    OX_TRY(ox_emit_full(cx, &t, 0, 0, &H0));
  }
  int32_t in[6] = {X, W, R, B, H0, SL}, out[3];
  const char *msg = "a sequence length is outside 0..the sequence length of X";
  OX_TRY(seq_const_range(cx, SL, 0, seq, false, 0, msg));
  OX_TRY(ox_emit(cx, op, SL >= 0 ? 6 : 5, in, a, 3, out));
  if (SL >= 0) OX_TRY(ox_assert_ok(cx, out[2], msg));
  OX_TRY(ox_out(cx, 0, out[0]));
  return ox_out(cx, 1, out[1]);
}

static berth_status_t op_rnn(ox_ctx_t *cx) { return rnn_common(cx, BERTH_OP_RNN, 1); }
static berth_status_t op_gru(ox_ctx_t *cx) { return rnn_common(cx, BERTH_OP_GRU, 3); }

/* ==== CausalConvWithState (27) =============================================================
 * The causal_conv_with_state kernel, with zeros for a missing bias or past_state; the SiLU
 * (swish) activation x * sigmoid(x) follows on the convolution rounded to its type (the
 * reference rounds it before the activation). */
static berth_status_t op_causal_conv_with_state(ox_ctx_t *cx) {
  int32_t in[4], out[2];
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  OX_TRY(ox_in(cx, 2, &in[2]));
  OX_TRY(ox_in(cx, 3, &in[3]));
  char buf[16];
  const char *act = ox_attr_string(cx, "activation", "none", buf, sizeof buf);
  bool silu = strcmp(act, "silu") == 0 || strcmp(act, "swish") == 0;
  if (!silu && strcmp(act, "none") != 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "activation '%s', expected none, silu or swish", act);
  const berth_type_t *x = &cx->vals[in[0]].type, *w = &cx->vals[in[1]].type;
  if (x->rank != 3 || w->rank != 3 || w->dims[2] < 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input and weight must be [B, C, L] and [C, 1, K >= 1]");
  const int64_t nb = x->dims[0], nc = x->dims[1], k = w->dims[2]; /* an emit may move cx->vals */
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = x->dtype;
  if (in[2] < 0) {
    t.rank = 1;
    t.dims[0] = nc;
    OX_TRY(ox_emit_full(cx, &t, 0, 0, &in[2]));
  }
  if (in[3] < 0) {
    t.rank = 3;
    t.dims[0] = nb;
    t.dims[1] = nc;
    t.dims[2] = k - 1;
    OX_TRY(ox_emit_full(cx, &t, 0, 0, &in[3]));
  }
  OX_TRY(ox_emit(cx, BERTH_OP_CAUSAL_CONV_WITH_STATE, 4, in, NULL, 2, out));
  int32_t y = out[0];
  if (silu) {
    int32_t r, sg;
    OX_TRY(ox_narrow_round(cx, y, &r));
    OX_TRY(ox_emit1(cx, BERTH_OP_SIGMOID, 1, &r, NULL, &sg));
    OX_TRY(seq_bin(cx, BERTH_OP_MUL, r, sg, &y));
  }
  OX_TRY(ox_out(cx, 0, y));
  return ox_out(cx, 1, out[1]);
}

/* ==== LinearAttention (27) =================================================================
 * The linear_attention kernel. update_rule (linear, gated, delta, gated_delta) says which of
 * decay (gated) and beta (delta) must be given, and erase_gate needs a delta rule; zeros stand
 * in for a missing past_state. present_state keeps past_state's type (else the query's). */
static berth_status_t op_linear_attention(ox_ctx_t *cx) {
  int32_t q, k, v, past, opt[3], in[7], out[2];
  OX_TRY(ox_in_req(cx, 0, &q));
  OX_TRY(ox_in_req(cx, 1, &k));
  OX_TRY(ox_in_req(cx, 2, &v));
  OX_TRY(ox_in(cx, 3, &past));
  for (int32_t i = 0; i < 3; i++) OX_TRY(ox_in(cx, 4 + i, &opt[i]));
  char buf[16];
  const char *rule = ox_attr_string(cx, "update_rule", "gated_delta", buf, sizeof buf);
  bool gated = strcmp(rule, "gated") == 0 || strcmp(rule, "gated_delta") == 0;
  bool delta = strcmp(rule, "delta") == 0 || strcmp(rule, "gated_delta") == 0;
  if (!gated && !delta && strcmp(rule, "linear") != 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "update_rule '%s', expected linear, gated, delta or gated_delta", rule);
  if (gated != (opt[0] >= 0))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "update_rule '%s' %s the decay input", rule, gated ? "needs" : "forbids");
  if (delta != (opt[1] >= 0))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "update_rule '%s' %s the beta input", rule, delta ? "needs" : "forbids");
  if (!delta && opt[2] >= 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "update_rule '%s' forbids erase_gate", rule);
  int64_t qh = ox_attr_int(cx, "q_num_heads", 0), kvh = ox_attr_int(cx, "kv_num_heads", 0);
  const berth_type_t *qt = &cx->vals[q].type, *vt = &cx->vals[v].type;
  if (qt->rank != 3 || vt->rank != 3 || qh < 1 || kvh < 1 || qt->dims[2] % qh != 0 || vt->dims[2] % kvh != 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT,
                   "query, key, value must be [B, T, heads*head_size] with q_num_heads, kv_num_heads >= 1 dividing them");
  if (past < 0) {
    berth_type_t t;
    memset(&t, 0, sizeof t);
    t.dtype = qt->dtype;
    t.rank = 4;
    t.dims[0] = qt->dims[0];
    t.dims[1] = kvh;
    t.dims[2] = qt->dims[2] / qh;
    t.dims[3] = vt->dims[2] / kvh;
    OX_TRY(ox_emit_full(cx, &t, 0, 0, &past));
    cx->vals[past].elem = cx->vals[q].elem;
  }
  int32_t n = 0;
  in[n++] = q;
  in[n++] = k;
  in[n++] = v;
  in[n++] = past;
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_LINEAR_ATTENTION, a);
  static const char *const flag[3] = {"has_decay", "has_beta", "has_erase"};
  for (int32_t i = 0; i < 3; i++)
    if (opt[i] >= 0) {
      in[n++] = opt[i];
      OX_TRY(ox_attr_i(cx, BERTH_OP_LINEAR_ATTENTION, a, flag[i], 1));
    }
  OX_TRY(ox_attr_i(cx, BERTH_OP_LINEAR_ATTENTION, a, "q_num_heads", qh));
  OX_TRY(ox_attr_i(cx, BERTH_OP_LINEAR_ATTENTION, a, "kv_num_heads", kvh));
  OX_TRY(ox_attr_f(cx, BERTH_OP_LINEAR_ATTENTION, a, "scale", ox_attr_float(cx, "scale", 0)));
  OX_TRY(ox_emit(cx, BERTH_OP_LINEAR_ATTENTION, n, in, a, 2, out));
  cx->vals[out[1]].elem = cx->vals[past].elem;
  OX_TRY(ox_out(cx, 0, out[0]));
  return ox_out(cx, 1, out[1]);
}

/* ==== TfIdfVectorizer (9) ==================================================================
 * The tfidf kernel (kernel_tfidf.c). The pool becomes the kernel's sorted n-gram table here,
 * and every number of the attributes is checked first (ngram_counts non-decreasing within
 * the pool, each level whole n-grams, one ngram_indexes entry per n-gram, no n-gram twice).
 * String pools (pool_strings) need string tensors, which berth does not have.
 *
 * weights: the spec's text gives the i-th weight to the i-th n-gram of the pool, but
 * onnxruntime and the ONNX reference read weights[j] for output coordinate j (they agree
 * when ngram_indexes is 0, 1, 2, ..., and skl2onnx writes its models for the latter). berth
 * does what both runtimes do, and refuses weights too short for every coordinate. */

typedef struct tfv {
  int64_t mode, min_gram, max_gram, max_skip, size, n_grams;
  const int64_t *pool, *counts, *indexes;
  size_t n_pool, n_counts, n_indexes, n_weights;
  const float *weights; /* NULL when absent */
} tfv_t;

static berth_status_t tfv_required(ox_ctx_t *cx, const char *name) {
  if (!ox_attr(cx, name)) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute '%s' is required", name);
  return BERTH_OK;
}

/* mode, the n-gram lengths and the skip count. */
static berth_status_t tfv_scalars(ox_ctx_t *cx, tfv_t *t) {
  static const char *const modes[3] = {"TF", "IDF", "TFIDF"};
  const Onnx__AttributeProto *m = ox_attr(cx, "mode");
  t->mode = -1;
  for (int64_t k = 0; m && m->has_s && k < 3; k++)
    if (m->s.len == strlen(modes[k]) && memcmp(m->s.data, modes[k], m->s.len) == 0) t->mode = k;
  if (!m || !m->has_s) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'mode' (TF, IDF or TFIDF) is required");
  if (t->mode < 0) {
    char buf[33];
    size_t n = m->s.len < 32 ? m->s.len : 32;
    if (n) memcpy(buf, m->s.data, n);
    buf[n] = '\0';
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "mode '%s', expected TF, IDF or TFIDF", buf);
  }
  OX_TRY(tfv_required(cx, "min_gram_length"));
  OX_TRY(tfv_required(cx, "max_gram_length"));
  OX_TRY(tfv_required(cx, "max_skip_count"));
  t->min_gram = ox_attr_int(cx, "min_gram_length", 0);
  t->max_gram = ox_attr_int(cx, "max_gram_length", 0);
  t->max_skip = ox_attr_int(cx, "max_skip_count", 0);
  if (t->min_gram < 1 || t->max_gram < t->min_gram)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "min_gram_length %lld and max_gram_length %lld, expected 1 <= min <= max",
                   (long long)t->min_gram, (long long)t->max_gram);
  if (t->max_gram > 64)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "max_gram_length %lld: berth counts n-grams of at most 64 tokens",
                   (long long)t->max_gram);
  if (t->max_skip < 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "max_skip_count %lld, expected >= 0", (long long)t->max_skip);
  return BERTH_OK;
}

/* The pool and ngram_counts: each level (n = 1, 2, ...) runs from its count to the next
 * (the last to the pool's end) and holds whole n-grams. Sets n_grams. */
static berth_status_t tfv_levels(ox_ctx_t *cx, tfv_t *t) {
  if (ox_attr(cx, "pool_strings"))
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "pool_strings holds string n-grams (element type string), which berth does not support");
  const Onnx__AttributeProto *pool = ox_attr(cx, "pool_int64s"), *counts = ox_attr(cx, "ngram_counts");
  if (!pool || pool->n_ints == 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'pool_int64s' (the n-gram pool) is required and must not be empty");
  if (!counts || counts->n_ints == 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'ngram_counts' is required and must not be empty");
  t->pool = pool->ints;
  t->n_pool = pool->n_ints;
  t->counts = counts->ints;
  t->n_counts = counts->n_ints;
  t->n_grams = 0;
  for (size_t i = 0; i < t->n_counts; i++) {
    int64_t start = t->counts[i], end = i + 1 < t->n_counts ? t->counts[i + 1] : (int64_t)t->n_pool;
    if (start < 0 || start > (int64_t)t->n_pool)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "ngram_counts[%zu] is %lld, expected 0..%zu (the pool's length)", i,
                     (long long)start, t->n_pool);
    if (end < start)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "ngram_counts decreases at %zu (%lld after %lld)", i + 1, (long long)end,
                     (long long)start);
    if ((end - start) % (int64_t)(i + 1) != 0)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "ngram_counts: the %zu-grams' %lld pool values are no whole number of %zu-grams",
                     i + 1, (long long)(end - start), i + 1);
    t->n_grams += (end - start) / (int64_t)(i + 1);
  }
  return BERTH_OK;
}

/* ngram_indexes (one output coordinate per n-gram; size is the largest + 1) and weights. */
static berth_status_t tfv_indexes(ox_ctx_t *cx, tfv_t *t) {
  const Onnx__AttributeProto *ix = ox_attr(cx, "ngram_indexes"), *w = ox_attr(cx, "weights");
  t->indexes = ix ? ix->ints : NULL;
  t->n_indexes = ix ? ix->n_ints : 0;
  if (t->n_indexes != (size_t)t->n_grams)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "ngram_indexes has %zu values, expected %lld (one per n-gram of the pool)",
                   t->n_indexes, (long long)t->n_grams);
  t->size = 0;
  for (size_t k = 0; k < t->n_indexes; k++) {
    if (t->indexes[k] < 0 || t->indexes[k] >= BERTH_MAX_DIM)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "ngram_indexes[%zu] is %lld, expected 0..%lld", k,
                     (long long)t->indexes[k], (long long)BERTH_MAX_DIM - 1);
    if (t->indexes[k] + 1 > t->size) t->size = t->indexes[k] + 1;
  }
  t->weights = w && w->n_floats ? w->floats : NULL;
  t->n_weights = t->weights ? w->n_floats : 0;
  if (t->weights && t->n_weights != t->n_indexes)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "weights has %zu values, expected %zu (as many as ngram_indexes)",
                   t->n_weights, t->n_indexes);
  if (t->weights && t->mode != 0 && (size_t)t->size > t->n_weights)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT,
                   "weights has %zu values but ngram_indexes reaches coordinate %lld (onnxruntime and the ONNX reference "
                   "read one weight per output coordinate)", t->n_weights, (long long)t->size - 1);
  return BERTH_OK;
}

/* Orders table rows [n, t_0..t_{n-1}, ...] by n, then by the tokens. */
static int tfv_row_cmp(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  for (int64_t j = 1; j <= a[0]; j++)
    if (a[j] != b[j]) return a[j] < b[j] ? -1 : 1;
  return 0;
}

/* The kernel's table: the n-grams of lengths min_gram..max_gram, sorted, none twice. */
static berth_status_t tfv_table(ox_ctx_t *cx, const tfv_t *t, int32_t *out) {
  int64_t width = t->max_gram + 2, rows = 0, cells;
  for (int64_t n = t->min_gram; n <= t->max_gram && n <= (int64_t)t->n_counts; n++) {
    int64_t end = n < (int64_t)t->n_counts ? t->counts[n] : (int64_t)t->n_pool;
    rows += (end - t->counts[n - 1]) / n;
  }
  if (!berth_mul_i64(rows, width, &cells) || cells > BERTH_MAX_TENSOR_BYTES / 8)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "the n-gram table of %lld rows is too large", (long long)rows);
  int64_t *tab = calloc((size_t)(cells ? cells : 1), sizeof(int64_t));
  if (!tab) return seq_oom(cx);
  int64_t row = 0, id = 0;
  for (int64_t n = 1; n <= (int64_t)t->n_counts; n++) {
    int64_t start = t->counts[n - 1], end = n < (int64_t)t->n_counts ? t->counts[n] : (int64_t)t->n_pool;
    for (int64_t at = start; at < end; at += n, id++) {
      if (n < t->min_gram || n > t->max_gram) continue;
      int64_t *r = tab + row++ * width;
      r[0] = n;
      memcpy(r + 1, t->pool + at, (size_t)n * sizeof(int64_t));
      r[width - 1] = t->indexes[id];
    }
  }
  qsort(tab, (size_t)rows, (size_t)width * sizeof(int64_t), tfv_row_cmp);
  for (int64_t k = 1; k < rows; k++)
    if (tfv_row_cmp(tab + (k - 1) * width, tab + k * width) == 0) {
      int64_t n = tab[k * width], a = tab[k * width - 1], b = tab[(k + 1) * width - 1];
      free(tab);
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "pool_int64s holds one %lld-gram twice (for coordinates %lld and %lld)",
                     (long long)n, (long long)a, (long long)b);
    }
  berth_type_t ty;
  memset(&ty, 0, sizeof ty);
  ty.dtype = BERTH_DTYPE_I64;
  ty.rank = 2;
  ty.dims[0] = rows;
  ty.dims[1] = width;
  return ox_const_new(cx, &ty, tab, out);
}

static berth_status_t op_tfidf_vectorizer(ox_ctx_t *cx) {
  if (cx->opset < 9) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "TfIdfVectorizer exists from opset 9");
  tfv_t t;
  memset(&t, 0, sizeof t);
  int32_t in[3], n_in = 2, y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(tfv_scalars(cx, &t));
  OX_TRY(tfv_levels(cx, &t));
  OX_TRY(tfv_indexes(cx, &t));
  OX_TRY(tfv_table(cx, &t, &in[1]));
  if (t.weights && t.mode != 0) {
    float *w = malloc((size_t)t.size * sizeof(float));
    if (!w) return seq_oom(cx);
    memcpy(w, t.weights, (size_t)t.size * sizeof(float));
    berth_type_t ty;
    memset(&ty, 0, sizeof ty);
    ty.dtype = BERTH_DTYPE_F32;
    ty.rank = 1;
    ty.dims[0] = t.size;
    OX_TRY(ox_const_new(cx, &ty, w, &in[n_in++]));
  }
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_TFIDF, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_TFIDF, a, "mode", t.mode));
  OX_TRY(ox_attr_i(cx, BERTH_OP_TFIDF, a, "min_gram", t.min_gram));
  OX_TRY(ox_attr_i(cx, BERTH_OP_TFIDF, a, "max_gram", t.max_gram));
  OX_TRY(ox_attr_i(cx, BERTH_OP_TFIDF, a, "max_skip", t.max_skip));
  OX_TRY(ox_attr_i(cx, BERTH_OP_TFIDF, a, "size", t.size));
  OX_TRY(ox_emit1(cx, BERTH_OP_TFIDF, n_in, in, a, &y));
  return ox_out(cx, 0, y);
}

const ox_op_row_t ox_ops_sequence[] = {
    {"LinearAttention", op_linear_attention, BERTH_OP_COUNT},
    {"CausalConvWithState", op_causal_conv_with_state, BERTH_OP_COUNT},
    {"GRU", op_gru, BERTH_OP_COUNT},
    {"RNN", op_rnn, BERTH_OP_COUNT},
    {"RotaryEmbedding", op_rotary_embedding, BERTH_OP_COUNT},
    {"Attention", op_attention, BERTH_OP_COUNT},
    {"NegativeLogLikelihoodLoss", op_nll_loss, BERTH_OP_COUNT},
    {"SoftmaxCrossEntropyLoss", op_sce_loss, BERTH_OP_COUNT},
    {"TfIdfVectorizer", op_tfidf_vectorizer, BERTH_OP_COUNT},
    {NULL, NULL, BERTH_OP_COUNT},
};
