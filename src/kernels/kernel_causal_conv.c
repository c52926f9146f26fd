/* causal_conv_with_state(x, weight, bias, past_state) -> (y, present_state):
 * ONNX CausalConvWithState (opset 27): a depthwise causal 1-D convolution that carries its
 * left context from call to call.
 *
 *   x [B, C, L], weight [C, 1, K], bias [C], past_state [B, C, K-1]
 *   padded = concat(past_state, x) along the length           [B, C, L + K - 1]
 *   y[b, c, t] = bias[c] + sum_k weight[c, 0, k] * padded[b, c, t + k]
 *   present_state = the last K - 1 positions of padded
 * The importer materializes zeros for a missing bias or past_state, and applies the SiLU
 * activation after the op (on the result rounded to a narrow type, as the reference does).
 * Sums in double. */
#include "kernel_util.h"

#include <string.h>

static berth_status_t cconv_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  const char *op = "causal_conv_with_state";
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_causal_conv_with_state, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  for (int32_t i = 1; i < 4; i++) BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, i, diag));
  (void)attrs;
  const berth_type_t *x = &in[0], *w = &in[1], *b = &in[2], *p = &in[3];
  char sa[160], sb[160];
  if (x->rank != 3 || w->rank != 3 || w->dims[0] != x->dims[1] || w->dims[1] != 1 || w->dims[2] < 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: input %s and weight %s, expected [B, C, L] and [C, 1, K >= 1]", op,
                      berth_type_format(x, sa, sizeof sa), berth_type_format(w, sb, sizeof sb));
  if (b->rank != 1 || b->dims[0] != x->dims[1])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: bias %s, expected [%lld]", op, berth_type_format(b, sa, sizeof sa),
                      (long long)x->dims[1]);
  if (p->rank != 3 || p->dims[0] != x->dims[0] || p->dims[1] != x->dims[1] || p->dims[2] != w->dims[2] - 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: past_state %s, expected [%lld, %lld, %lld]", op,
                      berth_type_format(p, sa, sizeof sa), (long long)x->dims[0], (long long)x->dims[1],
                      (long long)(w->dims[2] - 1));
  out[0] = *x;
  out[1] = *p;
  return BERTH_OK;
}

#define CCONV_FN(SFX, T)                                                                                      \
  static void cconv_run_##SFX(int64_t nb, int64_t nc, int64_t L, int64_t K, const T *x, const T *w, \
                              const T *bias, const T *past, T *y, T *present) {                              \
    for (int64_t b = 0; b < nb; b++)                                                                          \
      for (int64_t c = 0; c < nc; c++) {                                                                      \
        const T *xr = x + (b * nc + c) * L, *pr = past + (b * nc + c) * (K - 1), *wr = w + c * K;             \
        T *yr = y + (b * nc + c) * L, *sr = present + (b * nc + c) * (K - 1);                                 \
        for (int64_t t = 0; t < L; t++) {                                                                     \
          double s = (double)bias[c];                                                                         \
          for (int64_t k = 0; k < K; k++) {                                                                   \
            const int64_t at = t + k; /* position in padded */                                                \
            s += (double)wr[k] * (double)(at < K - 1 ? pr[at] : xr[at - (K - 1)]);                            \
          }                                                                                                   \
          yr[t] = (T)s;                                                                                       \
        }                                                                                                     \
        for (int64_t k = 0; k < K - 1; k++) { /* the last K - 1 of padded (length L + K - 1) */               \
          const int64_t at = L + k;                                                                           \
          sr[k] = at < K - 1 ? pr[at] : xr[at - (K - 1)];                                                     \
        }                                                                                                     \
      }                                                                                                       \
  }
CCONV_FN(f32, float)
CCONV_FN(f64, double)

static void cconv_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  const int64_t nb = x->dims[0], nc = x->dims[1], L = x->dims[2], K = call->in[1].type->dims[2];
  if (x->dtype == BERTH_DTYPE_F32)
    cconv_run_f32(nb, nc, L, K, call->in[0].data, call->in[1].data, call->in[2].data, call->in[3].data,
                  call->out[0].data, call->out[1].data);
  else
    cconv_run_f64(nb, nc, L, K, call->in[0].data, call->in[1].data, call->in[2].data, call->in[3].data,
                  call->out[0].data, call->out[1].data);
}

const berth_op_def_t berth_op_def_causal_conv_with_state = {"causal_conv_with_state", BERTH_OPKIND_KERNEL, 4, 4, 2, 0,
                                                            NULL, cconv_infer, cconv_run};
