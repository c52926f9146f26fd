/* clip(x) {min, max}: ONNX Clip with the bounds as attributes (default -inf and +inf).
 *
 *   y = min(max(x, lo), hi)      so lo > hi gives hi everywhere, as numpy.clip does.
 * Floats: the bounds convert to the dtype (f32 rounds to nearest); a NaN x stays NaN, and a
 * NaN bound clips nothing. Integers: an integral bound (attrs .i) is exact; a fractional one
 * rounds inward (lo up, hi down); a bound beyond the dtype's range, infinite or NaN clips
 * nothing on that side. Every numeric dtype. */
#include "kernel_util.h"

#include <math.h>

enum { CLIP_MIN, CLIP_MAX };

static berth_status_t clip_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                 berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_clip, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("clip", 0, in[0].dtype, BERTH_MASK_NUM, diag));
  out[0] = in[0];
  return BERTH_OK;
}

/* An integer bound as an int64 interval clamp for signed dtypes: lo/hi within [tmin, tmax]. */
static int64_t clip_bound_s(const berth_attr_value_t *v, bool upper, int64_t tmin, int64_t tmax) {
  if (v->n) return v->i < tmin ? tmin : v->i > tmax ? tmax : v->i;
  double f = v->f;
  if (f != f) return upper ? tmax : tmin;
  f = upper ? floor(f) : ceil(f);
  if (f <= (double)tmin) return tmin;
  if (f >= (double)tmax) return tmax;
  return (int64_t)f;
}

static uint64_t clip_bound_u(const berth_attr_value_t *v, bool upper, uint64_t tmax) {
  if (v->n) return v->i < 0 ? 0 : (uint64_t)v->i > tmax ? tmax : (uint64_t)v->i;
  double f = v->f;
  if (f != f) return upper ? tmax : 0;
  f = upper ? floor(f) : ceil(f);
  if (f <= 0) return 0;
  if (f >= (double)tmax) return tmax; /* (double)UINT64_MAX is 2^64, above every u64 */
  return (uint64_t)f;
}

#define CLIP_LOOP(T, lo, hi)                                         \
  do {                                                               \
    const T *restrict a = (const T *)call->in[0].data;               \
    T *restrict o = (T *)call->out[0].data;                          \
    const T lo_ = (lo), hi_ = (hi);                                  \
    BERTH_VLOOP(i, n, T v = a[i] < lo_ ? lo_ : a[i]; o[i] = v > hi_ ? hi_ : v;); \
  } while (0)

static void clip_run(const berth_kernel_call_t *call) {
  const berth_type_t *t = call->in[0].type;
  const berth_attr_value_t *mn = &call->attrs[CLIP_MIN], *mx = &call->attrs[CLIP_MAX];
  int64_t n = berth_type_numel(t);
  switch (t->dtype) {
    case BERTH_DTYPE_I8: CLIP_LOOP(int8_t, clip_bound_s(mn, 0, INT8_MIN, INT8_MAX), clip_bound_s(mx, 1, INT8_MIN, INT8_MAX)); break;
    case BERTH_DTYPE_I16: CLIP_LOOP(int16_t, clip_bound_s(mn, 0, INT16_MIN, INT16_MAX), clip_bound_s(mx, 1, INT16_MIN, INT16_MAX)); break;
    case BERTH_DTYPE_I32: CLIP_LOOP(int32_t, clip_bound_s(mn, 0, INT32_MIN, INT32_MAX), clip_bound_s(mx, 1, INT32_MIN, INT32_MAX)); break;
    case BERTH_DTYPE_I64: CLIP_LOOP(int64_t, clip_bound_s(mn, 0, INT64_MIN, INT64_MAX), clip_bound_s(mx, 1, INT64_MIN, INT64_MAX)); break;
    case BERTH_DTYPE_U8: CLIP_LOOP(uint8_t, clip_bound_u(mn, 0, UINT8_MAX), clip_bound_u(mx, 1, UINT8_MAX)); break;
    case BERTH_DTYPE_U16: CLIP_LOOP(uint16_t, clip_bound_u(mn, 0, UINT16_MAX), clip_bound_u(mx, 1, UINT16_MAX)); break;
    case BERTH_DTYPE_U32: CLIP_LOOP(uint32_t, clip_bound_u(mn, 0, UINT32_MAX), clip_bound_u(mx, 1, UINT32_MAX)); break;
    case BERTH_DTYPE_U64: CLIP_LOOP(uint64_t, clip_bound_u(mn, 0, UINT64_MAX), clip_bound_u(mx, 1, UINT64_MAX)); break;
    /* NaN bounds: comparisons with NaN are false, so nothing is clipped on that side. */
    case BERTH_DTYPE_F32: CLIP_LOOP(float, (float)mn->f, (float)mx->f); break;
    case BERTH_DTYPE_F64: CLIP_LOOP(double, mn->f, mx->f); break;
    default: break;
  }
}

static const berth_attr_spec_t clip_attrs[] = {
    {"min", BERTH_ATTR_SCALAR, false, 0, -INFINITY},
    {"max", BERTH_ATTR_SCALAR, false, 0, INFINITY},
};
const berth_op_def_t berth_op_def_clip = {"clip", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, clip_attrs, clip_infer, clip_run};
