/* hardmax(x) {axis, legacy}: ONNX Hardmax. 1 at the first largest element of each run
 * along the normalized axis, 0 elsewhere; a NaN counts as the largest value (numpy's
 * argmax, which ONNX's reference uses).
 *
 * legacy 0 (opset 13+): the runs are along the one axis `axis` (default -1).
 * legacy 1 (opsets 1 to 12): x is viewed as 2-D [prod(dims[:axis]), prod(dims[axis:])] and
 *   each row is one run (the dims from `axis` on).
 * Floats, rank >= 1; a strided walk, no scratch memory (as kernel_softmax.c). */
#include "kernel_util.h"

#include <string.h>

enum { HARDMAX_AXIS, HARDMAX_LEGACY };

typedef struct hardmax_plan {
  int64_t outer, n, inner; /* runs of n elements at stride inner */
} hardmax_plan_t;

static berth_status_t hardmax_plan(const berth_attr_value_t *attrs, const berth_type_t *x, hardmax_plan_t *p,
                                   berth_diag_t *diag) {
  bool legacy;
  BERTH_TRY(berth_kernel_get_flag("hardmax", "legacy", &attrs[HARDMAX_LEGACY], &legacy, diag));
  if (x->rank == 0) {
    char sa[160];
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "hardmax: input %s is a scalar, expected rank >= 1",
                      berth_type_format(x, sa, sizeof sa));
  }
  int32_t axis;
  BERTH_TRY(berth_kernel_axis("hardmax", "axis", attrs[HARDMAX_AXIS].i, x->rank, &axis, diag));
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

static berth_status_t hardmax_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                    berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_hardmax, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("hardmax", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  hardmax_plan_t p;
  BERTH_TRY(hardmax_plan(attrs, &in[0], &p, diag));
  out[0] = in[0];
  return BERTH_OK;
}

#define HARDMAX_FN(s, T)                                                           \
  static void hardmax_run_##s(const T *x, T *y, int64_t n, int64_t st) {           \
    int64_t best = 0;                                                              \
    T b = x[0];                                                                    \
    for (int64_t i = 1; i < n && b == b; i++) {                                    \
      T v = x[i * st];                                                             \
      if (v > b || v != v) {                                                       \
        b = v;                                                                     \
        best = i;                                                                  \
      }                                                                            \
    }                                                                              \
    for (int64_t i = 0; i < n; i++) y[i * st] = (T)(i == best);                    \
  }
HARDMAX_FN(f32, float)
HARDMAX_FN(f64, double)

static void hardmax_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  hardmax_plan_t p;
  hardmax_plan(call->attrs, x, &p, NULL);
  for (int64_t o = 0; o < p.outer; o++)
    for (int64_t j = 0; j < p.inner; j++) {
      int64_t off = o * p.n * p.inner + j;
      if (x->dtype == BERTH_DTYPE_F32)
        hardmax_run_f32((const float *)call->in[0].data + off, (float *)call->out[0].data + off, p.n, p.inner);
      else
        hardmax_run_f64((const double *)call->in[0].data + off, (double *)call->out[0].data + off, p.n, p.inner);
    }
}

static const berth_attr_spec_t hardmax_attrs[] = {
    {"axis", BERTH_ATTR_INT, false, -1, 0},
    {"legacy", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_hardmax = {"hardmax", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, hardmax_attrs,
                                             hardmax_infer, hardmax_run};
