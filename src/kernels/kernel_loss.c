/* nll_loss(x, target[, weight]) {reduction, ignore_index, has_ignore} -> (loss, ok):
 * ONNX NegativeLogLikelihoodLoss (SoftmaxCrossEntropyLoss is log_softmax then this).
 *
 *   x [N, C, d1..dk] (floats), target [N, d1..dk] (i32 or i64 class indices), weight [C]
 *   l[n, d] = -x[n, target[n, d], d] * w[target[n, d]]    (w = 1 without weight)
 *   reduction 0 (none): loss = l, shaped like target; 1 (sum): sum of l; 2 (mean): sum of l
 *   divided by the sum of the weights taken (the count of targets without weight).
 * With has_ignore, targets equal to ignore_index contribute 0 and weigh 0.
 *
 * Class indices are data: one outside 0..C-1 (and not ignore_index) reads nothing and
 * contributes 0, and the second result `ok` (bool scalar) is false. The importer follows
 * the op with an assert on ok, so such a call fails instead of returning a loss.
 * Sums are accumulated in double. */
#include "kernel_util.h"

#include <string.h>

enum { NLL_REDUCTION, NLL_IGNORE_INDEX, NLL_HAS_IGNORE };

static berth_status_t nll_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_nll_loss, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("nll_loss", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  BERTH_TRY(berth_kernel_check_dtype("nll_loss", 1, in[1].dtype, BERTH_DTYPE_BIT(I32) | BERTH_DTYPE_BIT(I64), diag));
  bool has_ignore;
  BERTH_TRY(berth_kernel_get_flag("nll_loss", "has_ignore", &attrs[NLL_HAS_IGNORE], &has_ignore, diag));
  int64_t red = attrs[NLL_REDUCTION].i;
  if (red < 0 || red > 2)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "nll_loss: reduction is %lld, expected 0 (none), 1 (sum) or 2 (mean)",
                      (long long)red);
  const berth_type_t *x = &in[0], *t = &in[1];
  char sa[160], sb[160];
  bool ok = x->rank >= 2 && t->rank == x->rank - 1 && t->dims[0] == x->dims[0];
  for (int32_t k = 2; ok && k < x->rank; k++) ok = t->dims[k - 1] == x->dims[k];
  if (!ok)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "nll_loss: input %s and target %s, expected [N, C, d...] and [N, d...]",
                      berth_type_format(x, sa, sizeof sa), berth_type_format(t, sb, sizeof sb));
  if (n_in > 2) {
    BERTH_TRY(berth_kernel_check_same_dtype("nll_loss", in, 0, 2, diag));
    if (in[2].rank != 1 || in[2].dims[0] != x->dims[1])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "nll_loss: weight %s, expected [C] with C = %lld",
                        berth_type_format(&in[2], sa, sizeof sa), (long long)x->dims[1]);
  }
  out[0] = red == 0 ? *t : (berth_type_t){0};
  out[0].dtype = x->dtype;
  if (red != 0) out[0].rank = 0;
  berth_kernel_type_init(&out[1], BERTH_DTYPE_BOOL, 0);
  return BERTH_OK;
}

typedef struct nll_dims {
  int64_t n, c, d; /* batch, classes, product of the trailing dims */
} nll_dims_t;

#define NLL_FN(s, T)                                                                                          \
  static bool nll_run_##s(const nll_dims_t *g, const T *x, const void *tgt, bool t64, const T *w, int64_t red, \
                          bool has_ig, int64_t ig, T *loss) {                                                 \
    double sum = 0, wsum = 0;                                                                                 \
    bool ok = true;                                                                                           \
    for (int64_t i = 0; i < g->n; i++)                                                                        \
      for (int64_t j = 0; j < g->d; j++) {                                                                    \
        const int64_t at = i * g->d + j;                                                                      \
        const int64_t c = t64 ? ((const int64_t *)tgt)[at] : ((const int32_t *)tgt)[at];                      \
        double l = 0, wt = 0;                                                                                 \
        if (has_ig && c == ig) {                                                                              \
          /* ignored: 0, weight 0 */                                                                          \
        } else if (c < 0 || c >= g->c) {                                                                      \
          ok = false;                                                                                         \
        } else {                                                                                              \
          wt = w ? (double)w[c] : 1.0;                                                                        \
          l = -(double)x[(i * g->c + c) * g->d + j] * wt;                                                     \
        }                                                                                                     \
        if (red == 0) loss[at] = (T)l;                                                                        \
        sum += l;                                                                                             \
        wsum += wt;                                                                                           \
      }                                                                                                       \
    if (red == 1) loss[0] = (T)sum;                                                                           \
    if (red == 2) loss[0] = (T)(sum / wsum);                                                                  \
    return ok;                                                                                                \
  }
NLL_FN(f32, float)
NLL_FN(f64, double)

static void nll_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  nll_dims_t g = {x->dims[0], x->dims[1], 1};
  for (int32_t k = 2; k < x->rank; k++) g.d *= x->dims[k];
  if (berth_kernel_is_empty(x)) g.n = 0; /* no target reads (C may be 0 with N > 0) */
  if (berth_kernel_is_empty(call->in[1].type)) g.n = 0;
  const bool t64 = call->in[1].type->dtype == BERTH_DTYPE_I64;
  const void *w = call->n_in > 2 ? call->in[2].data : NULL;
  const int64_t red = call->attrs[NLL_REDUCTION].i, ig = call->attrs[NLL_IGNORE_INDEX].i;
  const bool has_ig = call->attrs[NLL_HAS_IGNORE].i != 0;
  bool ok;
  if (x->dtype == BERTH_DTYPE_F32)
    ok = nll_run_f32(&g, (const float *)call->in[0].data, call->in[1].data, t64, (const float *)w, red, has_ig, ig,
                     (float *)call->out[0].data);
  else
    ok = nll_run_f64(&g, (const double *)call->in[0].data, call->in[1].data, t64, (const double *)w, red, has_ig, ig,
                     (double *)call->out[0].data);
  *(uint8_t *)call->out[1].data = ok ? 1 : 0;
}

static const berth_attr_spec_t nll_attrs[] = {
    {"reduction", BERTH_ATTR_INT, false, 2, 0},
    {"ignore_index", BERTH_ATTR_INT, false, 0, 0},
    {"has_ignore", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_nll_loss = {"nll_loss", BERTH_OPKIND_KERNEL, 2, 3, 2, 3, nll_attrs, nll_infer, nll_run};
