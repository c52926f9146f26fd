/* linear_attention(q, k, v, past_state[, decay][, beta][, erase_gate])
 *   {q_num_heads, kv_num_heads, scale, has_decay, has_beta, has_erase} -> (y, present_state):
 * ONNX LinearAttention (opset 27), the recurrent form.
 *
 *   q [B, T, Hq*dk], k [B, T, Hkv*dk], v [B, T, Hkv*dv], past_state [B, Hkv, dk, dv]
 *   decay [B, T, Hkv] or [B, T, Hkv*dk] (per head or per key dim), beta [B, T, Hkv] or
 *   [B, T, 1], erase_gate [B, T, Hkv*dk]; the optional ones follow past_state in this order,
 *   each present when its has_ flag is 1.
 * Per batch entry and kv head, with the state S [dk, dv] and each step t:
 *   decay:  S *= exp(decay_t) (row d by exp(decay_t[d]))
 *   beta:   u = beta_t * (v_t - S^T (e_t . k_t))   (e_t = erase_gate_t, else 1); else u = v_t
 *   S += k_t u^T;   y_t[hq] = scale * S^T q_t[hq] for the Hq/Hkv query heads hq of the kv head
 * (query head hq reads kv head hq / (Hq/Hkv)). scale 0 means 1/sqrt(dk).
 * The state lives in present_state (the dtype's precision, as the reference keeps float32);
 * sums in double. A column of S is read and then updated on its own, so the delta rule
 * needs no scratch memory. */
#include "kernel_util.h"

#include <math.h>
#include <string.h>

enum { LA_QH, LA_KVH, LA_SCALE, LA_HAS_DECAY, LA_HAS_BETA, LA_HAS_ERASE };

typedef struct la_dims {
  int64_t b, t, hq, hkv, dk, dv;
  int64_t decay_w, beta_w; /* last dims of decay and beta */
  int32_t i_decay, i_beta, i_erase; /* operand indices, -1 absent */
  double scale;
} la_dims_t;

static void la_shape(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, la_dims_t *g) {
  g->b = in[0].dims[0];
  g->t = in[0].dims[1];
  g->hq = attrs[LA_QH].i > 0 ? attrs[LA_QH].i : 1;
  g->hkv = attrs[LA_KVH].i > 0 ? attrs[LA_KVH].i : 1;
  g->dk = in[0].dims[2] / g->hq;
  g->dv = in[2].dims[2] / g->hkv;
  int32_t k = 4;
  g->i_decay = attrs[LA_HAS_DECAY].i ? k++ : -1;
  g->i_beta = attrs[LA_HAS_BETA].i ? k++ : -1;
  g->i_erase = attrs[LA_HAS_ERASE].i ? k++ : -1;
  g->decay_w = g->i_decay >= 0 && g->i_decay < n_in ? in[g->i_decay].dims[2] : 0;
  g->beta_w = g->i_beta >= 0 && g->i_beta < n_in ? in[g->i_beta].dims[2] : 0;
  g->scale = attrs[LA_SCALE].f != 0 ? attrs[LA_SCALE].f : (g->dk > 0 ? 1.0 / sqrt((double)g->dk) : 1.0);
}

static berth_status_t la_expect3(const char *what, const berth_type_t *t, int64_t b, int64_t tt, int64_t w1, int64_t w2,
                                 berth_diag_t *diag) {
  if (t->rank == 3 && t->dims[0] == b && t->dims[1] == tt && (t->dims[2] == w1 || t->dims[2] == w2)) return BERTH_OK;
  char sa[160];
  return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "linear_attention: %s %s, expected [%lld, %lld, %lld]%s", what,
                    berth_type_format(t, sa, sizeof sa), (long long)b, (long long)tt, (long long)w1,
                    w1 == w2 ? "" : " or a per-head last dim");
}

static berth_status_t la_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, berth_type_t *out,
                               berth_diag_t *diag) {
  const char *op = "linear_attention";
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_linear_attention, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  for (int32_t i = 1; i < n_in; i++) BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, i, diag));
  bool f[3];
  BERTH_TRY(berth_kernel_get_flag(op, "has_decay", &attrs[LA_HAS_DECAY], &f[0], diag));
  BERTH_TRY(berth_kernel_get_flag(op, "has_beta", &attrs[LA_HAS_BETA], &f[1], diag));
  BERTH_TRY(berth_kernel_get_flag(op, "has_erase", &attrs[LA_HAS_ERASE], &f[2], diag));
  if (n_in != 4 + f[0] + f[1] + f[2])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "linear_attention: %d operands, but the has_ flags name %d", (int)n_in,
                      4 + f[0] + f[1] + f[2]);
  int64_t qh = attrs[LA_QH].i, kvh = attrs[LA_KVH].i;
  if (qh < 1 || kvh < 1 || qh % kvh != 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "linear_attention: q_num_heads %lld must be a positive multiple of kv_num_heads %lld",
                      (long long)qh, (long long)kvh);
  if (!isfinite(attrs[LA_SCALE].f))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "linear_attention: scale is %g, expected a finite number", attrs[LA_SCALE].f);
  char sa[160];
  for (int32_t i = 0; i < 3; i++)
    if (in[i].rank != 3 || in[i].dims[0] != in[0].dims[0] || in[i].dims[1] != in[0].dims[1] ||
        in[i].dims[2] % (i == 0 ? qh : kvh) != 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "linear_attention: %s %s, expected [B, T, heads*head_size] with q's B and T and %lld heads",
                        i == 0 ? "query" : i == 1 ? "key" : "value", berth_type_format(&in[i], sa, sizeof sa),
                        (long long)(i == 0 ? qh : kvh));
  la_dims_t g;
  la_shape(attrs, in, n_in, &g);
  if (in[1].dims[2] != g.hkv * g.dk)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "linear_attention: key %s, expected last dim %lld (kv heads * q's head size)",
                      berth_type_format(&in[1], sa, sizeof sa), (long long)(g.hkv * g.dk));
  const berth_type_t *s = &in[3];
  if (s->rank != 4 || s->dims[0] != g.b || s->dims[1] != g.hkv || s->dims[2] != g.dk || s->dims[3] != g.dv)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "linear_attention: past_state %s, expected [%lld, %lld, %lld, %lld]",
                      berth_type_format(s, sa, sizeof sa), (long long)g.b, (long long)g.hkv, (long long)g.dk, (long long)g.dv);
  if (g.i_decay >= 0) BERTH_TRY(la_expect3("decay", &in[g.i_decay], g.b, g.t, g.hkv * g.dk, g.hkv, diag));
  if (g.i_beta >= 0) BERTH_TRY(la_expect3("beta", &in[g.i_beta], g.b, g.t, g.hkv, 1, diag));
  if (g.i_erase >= 0) BERTH_TRY(la_expect3("erase_gate", &in[g.i_erase], g.b, g.t, g.hkv * g.dk, g.hkv * g.dk, diag));
  berth_kernel_type_init(&out[0], in[0].dtype, 3);
  out[0].dims[0] = g.b;
  out[0].dims[1] = g.t;
  out[0].dims[2] = g.hq * g.dv;
  BERTH_TRY(berth_kernel_check_output(op, &out[0], diag));
  out[1] = *s;
  return BERTH_OK;
}

#define LA_FN(SFX, T)                                                                                          \
  static void la_run_##SFX(const la_dims_t *g, const T *q, const T *k, const T *v, const T *decay, const T *beta, \
                           const T *erase, T *y, T *state) {                                                  \
    const int64_t dk = g->dk, dv = g->dv, grp = g->hq / g->hkv;                                               \
    for (int64_t b = 0; b < g->b; b++)                                                                        \
      for (int64_t h = 0; h < g->hkv; h++) {                                                                  \
        T *S = state + (b * g->hkv + h) * dk * dv;                                                            \
        for (int64_t t = 0; t < g->t; t++) {                                                                  \
          const int64_t bt = b * g->t + t;                                                                    \
          const T *kt = k + (bt * g->hkv + h) * dk, *vt = v + (bt * g->hkv + h) * dv;                         \
          if (decay)                                                                                          \
            for (int64_t d = 0; d < dk; d++) {                                                                \
              const double e = exp((double)decay[bt * g->decay_w + (g->decay_w == g->hkv ? h : h * dk + d)]); \
              for (int64_t m = 0; m < dv; m++) S[d * dv + m] = (T)((double)S[d * dv + m] * e);                \
            }                                                                                                 \
          const double bb = beta ? (double)beta[bt * g->beta_w + (g->beta_w == 1 ? 0 : h)] : 1;              \
          for (int64_t m = 0; m < dv; m++) {                                                                  \
            double u = (double)vt[m];                                                                         \
            if (beta) {                                                                                       \
              double r = 0;                                                                                   \
              for (int64_t d = 0; d < dk; d++)                                                                \
                r += (double)S[d * dv + m] * (double)kt[d] *                                                  \
                     (erase ? (double)erase[(bt * g->hkv + h) * dk + d] : 1.0);                               \
              u = bb * (u - r);                                                                               \
            }                                                                                                 \
            for (int64_t d = 0; d < dk; d++) S[d * dv + m] = (T)((double)S[d * dv + m] + (double)kt[d] * u); \
          }                                                                                                   \
          for (int64_t r = 0; r < grp; r++) {                                                                 \
            const int64_t hq = h * grp + r;                                                                   \
            const T *qt = q + (bt * g->hq + hq) * dk;                                                         \
            T *yt = y + (bt * g->hq + hq) * dv;                                                               \
            for (int64_t m = 0; m < dv; m++) {                                                                \
              double s = 0;                                                                                   \
              for (int64_t d = 0; d < dk; d++) s += (double)qt[d] * (double)S[d * dv + m];                    \
              yt[m] = (T)(g->scale * s);                                                                      \
            }                                                                                                 \
          }                                                                                                   \
        }                                                                                                     \
      }                                                                                                       \
  }
LA_FN(f32, float)
LA_FN(f64, double)

static void la_run(const berth_kernel_call_t *call) {
  la_dims_t g;
  const berth_type_t *types[7];
  berth_type_t in[7];
  for (int32_t i = 0; i < call->n_in; i++) {
    types[i] = call->in[i].type;
    in[i] = *types[i];
  }
  la_shape(call->attrs, in, call->n_in, &g);
  memcpy(call->out[1].data, call->in[3].data, berth_type_bytes(&in[3]));
  const void *dc = g.i_decay >= 0 ? call->in[g.i_decay].data : NULL, *bt = g.i_beta >= 0 ? call->in[g.i_beta].data : NULL,
             *er = g.i_erase >= 0 ? call->in[g.i_erase].data : NULL;
  if (in[0].dtype == BERTH_DTYPE_F32)
    la_run_f32(&g, call->in[0].data, call->in[1].data, call->in[2].data, dc, bt, er, call->out[0].data, call->out[1].data);
  else
    la_run_f64(&g, call->in[0].data, call->in[1].data, call->in[2].data, dc, bt, er, call->out[0].data, call->out[1].data);
}

static const berth_attr_spec_t la_attrs[] = {
    {"q_num_heads", BERTH_ATTR_INT, true, 0, 0}, {"kv_num_heads", BERTH_ATTR_INT, true, 0, 0},
    {"scale", BERTH_ATTR_SCALAR, false, 0, 0},   {"has_decay", BERTH_ATTR_INT, false, 0, 0},
    {"has_beta", BERTH_ATTR_INT, false, 0, 0},   {"has_erase", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_linear_attention = {"linear_attention", BERTH_OPKIND_KERNEL, 4, 7, 2, 6,
                                                      la_attrs, la_infer, la_run};
