/* softmax(x) {axis, legacy} and log_softmax(x) {axis, legacy}: ONNX Softmax / LogSoftmax.
 *
 * legacy 0 (opset 13+): normalize over the one axis `axis` (default -1).
 * legacy 1 (opsets 1 to 12): view x as 2-D [prod(dims[:axis]), prod(dims[axis:])] and
 *   normalize each row, i.e. over all the dims from `axis` on.
 * Floats, rank >= 1. Numerically stable: softmax = exp(x - max) / sum exp(x - max) and
 * log_softmax = (x - max) - log(sum exp(x - max)). A row with a NaN gives NaN; a row of
 * all -inf gives NaN (as the ONNX reference does: -inf - -inf).
 *
 * A normalized run that is contiguous (the last axis, or any legacy case) is processed
 * row by row; otherwise the kernel walks each of the `inner` interleaved columns with a
 * stride, with no scratch memory. */
#include "kernel_util.h"

#include <math.h>

enum { SOFTMAX_AXIS, SOFTMAX_LEGACY };

typedef struct softmax_plan {
  int64_t outer, n, inner; /* normalize n elements at stride inner */
} softmax_plan_t;

static berth_status_t softmax_plan(const char *op, const berth_attr_value_t *attrs, const berth_type_t *x,
                                   softmax_plan_t *p, berth_diag_t *diag) {
  bool legacy;
  BERTH_TRY(berth_kernel_get_flag(op, "legacy", &attrs[SOFTMAX_LEGACY], &legacy, diag));
  if (x->rank == 0) {
    char sa[160];
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: input %s is a scalar, expected rank >= 1", op,
                      berth_type_format(x, sa, sizeof sa));
  }
  int32_t axis;
  BERTH_TRY(berth_kernel_axis(op, "axis", attrs[SOFTMAX_AXIS].i, x->rank, &axis, diag));
  p->outer = p->n = p->inner = 1;
  if (berth_kernel_is_empty(x)) {
    p->outer = 0;
    return BERTH_OK;
  }
  for (int32_t k = 0; k < x->rank; k++) {
    if (k < axis) p->outer *= x->dims[k];
    else if (k == axis || legacy) p->n *= x->dims[k];
    else p->inner *= x->dims[k];
  }
  return BERTH_OK;
}

static berth_status_t softmax_infer_common(const berth_op_def_t *def, const berth_attr_value_t *attrs,
                                           const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                           berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  softmax_plan_t p;
  BERTH_TRY(softmax_plan(def->name, attrs, &in[0], &p, diag));
  out[0] = in[0];
  return BERTH_OK;
}

/* One normalized run of n elements at stride st, from x to y. */
#define SOFTMAX_FN(s, T, EXP, LOG)                                                                 \
  static void softmax_run_##s(const T *x, T *y, int64_t n, int64_t st, bool log_out) {             \
    T mx = x[0];                                                                                   \
    bool nan = false;                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                              \
      T v = x[i * st];                                                                             \
      if (v != v) nan = true;                                                                      \
      if (v > mx) mx = v;                                                                          \
    }                                                                                              \
    if (nan) mx = (T)NAN;                                                                          \
    T sum = 0;                                                                                     \
    if (log_out) {                                                                                 \
      for (int64_t i = 0; i < n; i++) sum += EXP(x[i * st] - mx);                                  \
      T ls = LOG(sum);                                                                             \
      for (int64_t i = 0; i < n; i++) y[i * st] = (x[i * st] - mx) - ls;                           \
    } else {                                                                                       \
      for (int64_t i = 0; i < n; i++) {                                                            \
        T e = EXP(x[i * st] - mx);                                                                 \
        y[i * st] = e;                                                                             \
        sum += e;                                                                                  \
      }                                                                                            \
      T inv = 1 / sum;                                                                             \
      for (int64_t i = 0; i < n; i++) y[i * st] *= inv;                                            \
    }                                                                                              \
  }
SOFTMAX_FN(f32, float, expf, logf)
SOFTMAX_FN(f64, double, exp, log)

static void softmax_run_common(const berth_kernel_call_t *call, bool log_out) {
  const berth_type_t *x = call->in[0].type;
  softmax_plan_t p;
  softmax_plan(log_out ? "log_softmax" : "softmax", call->attrs, x, &p, NULL);
  for (int64_t o = 0; o < p.outer; o++)
    for (int64_t j = 0; j < p.inner; j++) {
      int64_t off = o * p.n * p.inner + j;
      if (x->dtype == BERTH_DTYPE_F32)
        softmax_run_f32((const float *)call->in[0].data + off, (float *)call->out[0].data + off, p.n, p.inner,
                        log_out);
      else
        softmax_run_f64((const double *)call->in[0].data + off, (double *)call->out[0].data + off, p.n, p.inner,
                        log_out);
    }
}

static berth_status_t softmax_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                    berth_type_t *out, berth_diag_t *diag) {
  return softmax_infer_common(&berth_op_def_softmax, attrs, in, n_in, out, diag);
}
static berth_status_t log_softmax_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                        berth_type_t *out, berth_diag_t *diag) {
  return softmax_infer_common(&berth_op_def_log_softmax, attrs, in, n_in, out, diag);
}
static void softmax_run(const berth_kernel_call_t *call) { softmax_run_common(call, false); }
static void log_softmax_run(const berth_kernel_call_t *call) { softmax_run_common(call, true); }

static const berth_attr_spec_t softmax_attrs[] = {
    {"axis", BERTH_ATTR_INT, false, -1, 0},
    {"legacy", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_softmax = {"softmax", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, softmax_attrs,
                                             softmax_infer, softmax_run};
const berth_op_def_t berth_op_def_log_softmax = {"log_softmax", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, softmax_attrs,
                                                 log_softmax_infer, log_softmax_run};
