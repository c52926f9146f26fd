/* range() {dtype, start, limit, delta}: ONNX Range with the operands as attributes (the
 * importer folds them), no inputs. y[i] = start + i * delta for
 *   i < max(ceil((limit - start) / delta), 0).
 * Integer dtypes: start, limit and delta must be integers; the count and the values are
 * exact (int64 arithmetic without overflow) and every value must fit the dtype. Floats:
 * the three convert to the dtype first and the count is computed in double from them (as
 * onnxruntime does); they must be finite. delta 0 is rejected. No bool. */
#include "kernel_util.h"

#include <math.h>

enum { RANGE_DTYPE, RANGE_START, RANGE_LIMIT, RANGE_DELTA };

static const char *const range_names[4] = {"dtype", "start", "limit", "delta"};

static const struct {
  int64_t lo;
  uint64_t hi;
} range_int[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_I8] = {INT8_MIN, INT8_MAX},    [BERTH_DTYPE_U8] = {0, UINT8_MAX},
    [BERTH_DTYPE_I16] = {INT16_MIN, INT16_MAX}, [BERTH_DTYPE_U16] = {0, UINT16_MAX},
    [BERTH_DTYPE_I32] = {INT32_MIN, INT32_MAX}, [BERTH_DTYPE_U32] = {0, UINT32_MAX},
    [BERTH_DTYPE_I64] = {INT64_MIN, INT64_MAX}, [BERTH_DTYPE_U64] = {0, INT64_MAX},
};

static bool range_fits(berth_dtype_t dt, int64_t v) {
  return v >= range_int[dt].lo && (v < 0 || (uint64_t)v <= range_int[dt].hi);
}

static berth_status_t range_count(const berth_attr_value_t *attrs, berth_dtype_t dt, int64_t *count,
                                  berth_diag_t *diag) {
  if (berth_dtype_is_int(dt)) {
    for (int a = RANGE_START; a <= RANGE_DELTA; a++)
      if (!attrs[a].n)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "range: %s is %g, expected an integer for dtype %s",
                          range_names[a], attrs[a].f, berth_dtype_name(dt));
    int64_t s = attrs[RANGE_START].i, l = attrs[RANGE_LIMIT].i, d = attrs[RANGE_DELTA].i;
    if (d == 0) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "range: delta is 0, expected a nonzero step");
    /* |limit - start| and |delta| as uint64: exact for any int64 operands */
    uint64_t span = 0, step = d > 0 ? (uint64_t)d : (uint64_t)0 - (uint64_t)d;
    if (d > 0 && l > s) span = (uint64_t)l - (uint64_t)s;
    if (d < 0 && l < s) span = (uint64_t)s - (uint64_t)l;
    uint64_t c = span / step + (span % step != 0);
    if (c > (uint64_t)BERTH_MAX_DIM)
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "range: %llu elements from %lld to %lld by %lld exceed 2^40",
                        (unsigned long long)c, (long long)s, (long long)l, (long long)d);
    /* the last value lies between start and limit, so it is an int64; it must fit dt */
    if (c > 0) {
      int64_t last = (int64_t)((uint64_t)s + (c - 1) * (uint64_t)d);
      if (!range_fits(dt, s) || !range_fits(dt, last))
        return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "range: values %lld to %lld do not fit dtype %s", (long long)s,
                          (long long)last, berth_dtype_name(dt));
    }
    *count = (int64_t)c;
    return BERTH_OK;
  }
  double s = attrs[RANGE_START].f, l = attrs[RANGE_LIMIT].f, d = attrs[RANGE_DELTA].f;
  if (dt == BERTH_DTYPE_F32) {
    s = (float)s;
    l = (float)l;
    d = (float)d;
  }
  if (!isfinite(s) || !isfinite(l) || !isfinite(d))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "range: start %g, limit %g, delta %g, expected finite %s values",
                      s, l, d, berth_dtype_name(dt));
  if (d == 0) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "range: delta is 0, expected a nonzero step");
  double span = dt == BERTH_DTYPE_F32 ? (double)((float)l - (float)s) : l - s;
  double c = ceil(span / d);
  if (!(c <= (double)BERTH_MAX_DIM))
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "range: %g elements from %g to %g by %g exceed 2^40", c, s, l, d);
  *count = c > 0 ? (int64_t)c : 0;
  return BERTH_OK;
}

static berth_status_t range_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_range, in, n_in, diag));
  berth_dtype_t dt;
  BERTH_TRY(berth_kernel_get_dtype("range", "dtype", &attrs[RANGE_DTYPE], &dt, diag));
  if (!(BERTH_MASK_NUM & (1u << dt)))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "range: dtype is %s, expected a numeric dtype",
                      berth_dtype_name(dt));
  int64_t count = 0;
  BERTH_TRY(range_count(attrs, dt, &count, diag));
  berth_type_t t;
  berth_kernel_type_init(&t, dt, 1);
  t.dims[0] = count;
  BERTH_TRY(berth_kernel_check_output("range", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

/* Integers: start + i * delta in uint64 (wrapping arithmetic that lands on exact values). */
#define RANGE_INT(T)                                                        \
  do {                                                                      \
    T *o = (T *)call->out[0].data;                                          \
    uint64_t s_ = (uint64_t)attrs[RANGE_START].i, d_ = (uint64_t)attrs[RANGE_DELTA].i; \
    for (int64_t i = 0; i < n; i++) o[i] = (T)(int64_t)(s_ + (uint64_t)i * d_); \
  } while (0)

static void range_run(const berth_kernel_call_t *call) {
  const berth_attr_value_t *attrs = call->attrs;
  int64_t n = call->out[0].type->dims[0];
  switch (call->out[0].type->dtype) {
    case BERTH_DTYPE_I8: RANGE_INT(int8_t); break;
    case BERTH_DTYPE_U8: RANGE_INT(uint8_t); break;
    case BERTH_DTYPE_I16: RANGE_INT(int16_t); break;
    case BERTH_DTYPE_U16: RANGE_INT(uint16_t); break;
    case BERTH_DTYPE_I32: RANGE_INT(int32_t); break;
    case BERTH_DTYPE_U32: RANGE_INT(uint32_t); break;
    case BERTH_DTYPE_I64: RANGE_INT(int64_t); break;
    case BERTH_DTYPE_U64: RANGE_INT(uint64_t); break;
    case BERTH_DTYPE_F32: {
      float *o = (float *)call->out[0].data, s = (float)attrs[RANGE_START].f, d = (float)attrs[RANGE_DELTA].f;
      for (int64_t i = 0; i < n; i++) o[i] = s + (float)i * d;
      break;
    }
    case BERTH_DTYPE_F64: {
      double *o = (double *)call->out[0].data, s = attrs[RANGE_START].f, d = attrs[RANGE_DELTA].f;
      for (int64_t i = 0; i < n; i++) o[i] = s + (double)i * d;
      break;
    }
    default: break;
  }
}

static const berth_attr_spec_t range_attrs[] = {
    {"dtype", BERTH_ATTR_DTYPE, true, 0, 0},
    {"start", BERTH_ATTR_SCALAR, false, 0, 0},
    {"limit", BERTH_ATTR_SCALAR, false, 0, 0},
    {"delta", BERTH_ATTR_SCALAR, false, 0, 1},
};
const berth_op_def_t berth_op_def_range = {"range", BERTH_OPKIND_KERNEL, 0, 0, 1, 4, range_attrs, range_infer,
                                           range_run};
