/* full() {shape, dtype, value}: a tensor of one repeated value, with no inputs.
 * Integer dtypes take the attribute's exact integer (attrs.i), which must be integral and
 * fit the dtype; floats take attrs.f (f32 rounds to nearest); bool is value != 0. */
#include "kernel_util.h"

#include <string.h>

enum { FULL_SHAPE, FULL_DTYPE, FULL_VALUE };

static const struct {
  int64_t lo;
  uint64_t hi;
} int_range[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_I8] = {INT8_MIN, INT8_MAX},     [BERTH_DTYPE_U8] = {0, UINT8_MAX},
    [BERTH_DTYPE_I16] = {INT16_MIN, INT16_MAX},  [BERTH_DTYPE_U16] = {0, UINT16_MAX},
    [BERTH_DTYPE_I32] = {INT32_MIN, INT32_MAX},  [BERTH_DTYPE_U32] = {0, UINT32_MAX},
    [BERTH_DTYPE_I64] = {INT64_MIN, INT64_MAX},  [BERTH_DTYPE_U64] = {0, INT64_MAX},
};

static berth_status_t full_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                 berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_full, in, n_in, diag));
  const berth_attr_value_t *shape = &attrs[FULL_SHAPE], *value = &attrs[FULL_VALUE];
  BERTH_TRY(berth_kernel_check_ints("full", "shape", shape, diag));
  berth_dtype_t dt;
  BERTH_TRY(berth_kernel_get_dtype("full", "dtype", &attrs[FULL_DTYPE], &dt, diag));
  berth_type_t t;
  berth_kernel_type_init(&t, dt, shape->n);
  for (int32_t k = 0; k < shape->n; k++) {
    if (shape->ints[k] < 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "full: shape[%d] is %lld, expected a size >= 0", (int)k,
                        (long long)shape->ints[k]);
    t.dims[k] = shape->ints[k];
  }
  BERTH_TRY(berth_kernel_check_output("full", &t, diag));
  if (berth_dtype_is_int(dt)) {
    if (!value->n)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "full: value %g is not an integer, expected one for dtype %s",
                        value->f, berth_dtype_name(dt));
    if (value->i < int_range[dt].lo || (value->i >= 0 && (uint64_t)value->i > int_range[dt].hi))
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "full: value %lld does not fit dtype %s", (long long)value->i,
                        berth_dtype_name(dt));
  }
  out[0] = t;
  return BERTH_OK;
}

#define FILL(T, v)                                              \
  do {                                                          \
    T *o_ = (T *)out;                                           \
    T v_ = (v);                                                 \
    BERTH_VLOOP(i, n, o_[i] = v_;);                             \
  } while (0)

static void full_run(const berth_kernel_call_t *call) {
  const berth_attr_value_t *value = &call->attrs[FULL_VALUE];
  const berth_type_t *t = call->out[0].type;
  void *out = call->out[0].data;
  int64_t n = berth_type_numel(t), iv = value->i;
  double fv = value->f;
  switch (t->dtype) {
    case BERTH_DTYPE_BOOL: {
      uint8_t b = value->n ? iv != 0 : fv != 0;
      if (n) memset(out, b, (size_t)n);
      break;
    }
    case BERTH_DTYPE_I8: FILL(int8_t, (int8_t)iv); break;
    case BERTH_DTYPE_U8: FILL(uint8_t, (uint8_t)iv); break;
    case BERTH_DTYPE_I16: FILL(int16_t, (int16_t)iv); break;
    case BERTH_DTYPE_U16: FILL(uint16_t, (uint16_t)iv); break;
    case BERTH_DTYPE_I32: FILL(int32_t, (int32_t)iv); break;
    case BERTH_DTYPE_U32: FILL(uint32_t, (uint32_t)iv); break;
    case BERTH_DTYPE_I64: FILL(int64_t, iv); break;
    case BERTH_DTYPE_U64: FILL(uint64_t, (uint64_t)iv); break;
    case BERTH_DTYPE_F32: FILL(float, (float)fv); break;
    case BERTH_DTYPE_F64: FILL(double, fv); break;
    case BERTH_DTYPE_COUNT: break;
  }
}

static const berth_attr_spec_t full_attrs[] = {
    {"shape", BERTH_ATTR_INTS, false, 0, 0},
    {"dtype", BERTH_ATTR_DTYPE, true, 0, 0},
    {"value", BERTH_ATTR_SCALAR, false, 0, 0},
};
const berth_op_def_t berth_op_def_full = {"full", BERTH_OPKIND_KERNEL, 0, 0, 1, 3, full_attrs, full_infer, full_run};
