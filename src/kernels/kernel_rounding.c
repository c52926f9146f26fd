/* ceil(x) and floor(x): ONNX Ceil and Floor, elementwise on f32 and f64 (NaN and
 * infinities pass through, -0.5 ceils to -0). */
#include "kernel_util.h"

#include <math.h>
#include <string.h>

#define ROUND_ROW(name, T, FN)                                     \
  static void name(void *o_, const void *a_, int64_t n) {         \
    T *restrict o = (T *)o_;                                       \
    const T *restrict a = (const T *)a_;                           \
    BERTH_VLOOP(i, n, o[i] = FN(a[i]););                           \
  }
ROUND_ROW(ceil_row_f32, float, ceilf)
ROUND_ROW(ceil_row_f64, double, ceil)
ROUND_ROW(floor_row_f32, float, floorf)
ROUND_ROW(floor_row_f64, double, floor)

static berth_status_t rounding_infer(const berth_op_def_t *def, const berth_type_t *in, int32_t n_in,
                                     berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  out[0] = in[0];
  return BERTH_OK;
}

#define DEFINE_ROUNDING(op)                                                                               \
  static berth_status_t op##_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, \
                                   berth_type_t *out, berth_diag_t *diag) {                               \
    return rounding_infer(&berth_op_def_##op, in, n_in, out, diag);                                       \
  }                                                                                                       \
  static void op##_run(const berth_kernel_call_t *call) {                                                 \
    const berth_type_t *t = call->in[0].type;                                                             \
    int64_t n = berth_type_numel(t);                                                                      \
    if (t->dtype == BERTH_DTYPE_F32) op##_row_f32(call->out[0].data, call->in[0].data, n);                \
    else op##_row_f64(call->out[0].data, call->in[0].data, n);                                            \
  }                                                                                                       \
  const berth_op_def_t berth_op_def_##op = {#op, BERTH_OPKIND_KERNEL, 1, 1, 1, 0, NULL, op##_infer, op##_run};

DEFINE_ROUNDING(ceil)
DEFINE_ROUNDING(floor)
