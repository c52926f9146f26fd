/* Elementwise math: sin cos tan asin acos atan sinh cosh asinh acosh atanh erf (ONNX's
 * trigonometric and hyperbolic ops and Erf), sign, round (half to even) and
 * isinf {detect_positive, detect_negative}.
 *
 * Floats (f32, f64; ONNX float16 and bfloat16 are computed in f32 and rounded by the
 * importer) through the C library, except f32 erf: the active kernel variant's vectorized
 * one (kernel_vmath.h: 1.07 ulp at worst over every float; the portable variant calls
 * erff). Largest errors measured with glibc by tests/test_kernel_math.c against long double
 * (it asserts 1 ulp for the trigonometric ones and f64 erf, 1.1 for f32 erf, 2 for the
 * hyperbolic ones): sin, cos, tan, asin, acos, atan, erf 0.8 ulp (f32, the C library's) and
 * 1.0 (f64); sinh, cosh, asinh, acosh, atanh 1.6 (f32 and f64). Outside a function's
 * domain the result is NaN (asin(2), acosh(0.5), atanh(2)); atanh(+-1) is +-inf.
 *
 * erf and sign take integers too (ONNX allows every numeric type): erf of an integer is the
 * double erf truncated back to the integer type (0, or +-1 from |x| >= 6 where erf rounds to
 * +-1), as the ONNX reference casts it; sign gives -1, 0, 1. round keeps the sign of zero
 * (round(-0.4) = -0) and passes NaN and infinities through; it does not depend on the
 * floating-point environment's rounding mode. */
#include "kernel_isa.h"
#include "kernel_util.h"

#include <math.h>
#include <string.h>

#define ROW1(fname, TI, TO, EXPR)                                \
  static void fname(void *o_, const void *a_, int64_t n) {       \
    TO *restrict o = (TO *)o_;                                   \
    const TI *restrict pa = (const TI *)a_;                      \
    BERTH_VLOOP(i, n, TI x = pa[i]; o[i] = (TO)(EXPR););         \
  }

#define LIBM_ROWS(op)                    \
  ROW1(op##_row_f32, float, float, op##f(x)) \
  ROW1(op##_row_f64, double, double, op(x))
LIBM_ROWS(sin)
LIBM_ROWS(cos)
LIBM_ROWS(tan)
LIBM_ROWS(asin)
LIBM_ROWS(acos)
LIBM_ROWS(atan)
LIBM_ROWS(sinh)
LIBM_ROWS(cosh)
LIBM_ROWS(asinh)
LIBM_ROWS(acosh)
LIBM_ROWS(atanh)
/* f32 erf: the active kernel variant's (kernel_isa.h, kernel_vmath.h) */
static void erf_row_f32(void *o, const void *a, int64_t n) {
  BERTH_KCALL(erf_f32)((const float *)a, (float *)o, n);
}
ROW1(erf_row_f64, double, double, erf(x))

/* Round half to even without the rounding mode: r = floor(x), then up if the rest is above
 * one half, or exactly one half and r odd. x - floor(x) is exact for every float; values of
 * magnitude >= 2^23 (f32) / 2^52 (f64) are integers already. The sign of x is put back so
 * that -0.4 gives -0. */
static inline float round_even_f32(float x) {
  float r = floorf(x), d = x - r;
  float up = r + 1.0f;
  float half_even = floorf(r * 0.5f) != r * 0.5f ? up : r; /* r odd: r / 2 is no integer */
  float y = d > 0.5f ? up : d == 0.5f ? half_even : r;
  return copysignf(y, x);
}
static inline double round_even_f64(double x) {
  double r = floor(x), d = x - r;
  double up = r + 1.0;
  double half_even = floor(r * 0.5) != r * 0.5 ? up : r;
  double y = d > 0.5 ? up : d == 0.5 ? half_even : r;
  return copysign(y, x);
}
ROW1(round_row_f32, float, float, x != x ? x : round_even_f32(x))
ROW1(round_row_f64, double, double, x != x ? x : round_even_f64(x))

/* sign: NaN stays NaN, -0 gives 0 (numpy's sign) */
ROW1(sign_row_f32, float, float, x > 0 ? 1.0f : x < 0 ? -1.0f : x == 0 ? 0.0f : x)
ROW1(sign_row_f64, double, double, x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? 0.0 : x)
#define SIGN_SINT(E, s, T, U) ROW1(sign_row_##s, T, T, (x > 0) - (x < 0))
BERTH_KERNEL_SINT_LIST(SIGN_SINT)
#define SIGN_UINT(E, s, T, U) ROW1(sign_row_##s, T, T, x != 0)
BERTH_KERNEL_UINT_LIST(SIGN_UINT)
#define ERF_INT(E, s, T, U) ROW1(erf_row_##s, T, T, (T)erf((double)x))
BERTH_KERNEL_INT_LIST(ERF_INT)

#define FLOAT_ENTRIES(op) [BERTH_DTYPE_F32] = op##_row_f32, [BERTH_DTYPE_F64] = op##_row_f64
#define INT_ENTRIES(op)                                                                                  \
  [BERTH_DTYPE_I8] = op##_row_i8, [BERTH_DTYPE_U8] = op##_row_u8, [BERTH_DTYPE_I16] = op##_row_i16,      \
  [BERTH_DTYPE_U16] = op##_row_u16, [BERTH_DTYPE_I32] = op##_row_i32, [BERTH_DTYPE_U32] = op##_row_u32,  \
  [BERTH_DTYPE_I64] = op##_row_i64, [BERTH_DTYPE_U64] = op##_row_u64

/* ---- infer and run ------------------------------------------------------------------ */

static berth_status_t math_infer(const berth_op_def_t *def, const berth_row1_fn *rows, const berth_type_t *in,
                                 int32_t n_in, berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  uint32_t mask = 0;
  for (int d = 0; d < BERTH_DTYPE_COUNT; d++)
    if (rows[d]) mask |= 1u << d;
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, mask, diag));
  out[0] = in[0];
  return BERTH_OK;
}

#define DEFINE_MATH(op, ...)                                                                               \
  static const berth_row1_fn op##_rows[BERTH_DTYPE_COUNT] = {__VA_ARGS__};                                 \
  static berth_status_t op##_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,  \
                                   berth_type_t *out, berth_diag_t *diag) {                                \
    (void)attrs;                                                                                           \
    return math_infer(&berth_op_def_##op, op##_rows, in, n_in, out, diag);                                 \
  }                                                                                                        \
  static void op##_run(const berth_kernel_call_t *call) {                                                  \
    const berth_type_t *t = call->in[0].type;                                                              \
    op##_rows[t->dtype](call->out[0].data, call->in[0].data, berth_type_numel(t));                         \
  }                                                                                                        \
  const berth_op_def_t berth_op_def_##op = {#op, BERTH_OPKIND_KERNEL, 1, 1, 1, 0, NULL, op##_infer, op##_run};

DEFINE_MATH(sin, FLOAT_ENTRIES(sin))
DEFINE_MATH(cos, FLOAT_ENTRIES(cos))
DEFINE_MATH(tan, FLOAT_ENTRIES(tan))
DEFINE_MATH(asin, FLOAT_ENTRIES(asin))
DEFINE_MATH(acos, FLOAT_ENTRIES(acos))
DEFINE_MATH(atan, FLOAT_ENTRIES(atan))
DEFINE_MATH(sinh, FLOAT_ENTRIES(sinh))
DEFINE_MATH(cosh, FLOAT_ENTRIES(cosh))
DEFINE_MATH(asinh, FLOAT_ENTRIES(asinh))
DEFINE_MATH(acosh, FLOAT_ENTRIES(acosh))
DEFINE_MATH(atanh, FLOAT_ENTRIES(atanh))
DEFINE_MATH(erf, FLOAT_ENTRIES(erf), INT_ENTRIES(erf))
DEFINE_MATH(sign, FLOAT_ENTRIES(sign), INT_ENTRIES(sign))
DEFINE_MATH(round, FLOAT_ENTRIES(round))

/* ---- isinf {detect_positive, detect_negative} -> bool ------------------------------------ */

#define ISINF_ROW(name, T)                                                            \
  static void name(uint8_t *restrict o, const T *restrict a, int64_t n, T lo, T hi) { \
    BERTH_VLOOP(i, n, T x = a[i]; o[i] = (uint8_t)((x == lo) | (x == hi)););         \
  }
ISINF_ROW(isinf_row_f32, float)
ISINF_ROW(isinf_row_f64, double)

static berth_status_t isinf_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_isinf, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("isinf", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  bool flag;
  BERTH_TRY(berth_kernel_get_flag("isinf", "detect_positive", &attrs[0], &flag, diag));
  BERTH_TRY(berth_kernel_get_flag("isinf", "detect_negative", &attrs[1], &flag, diag));
  out[0] = in[0];
  out[0].dtype = BERTH_DTYPE_BOOL;
  return BERTH_OK;
}

/* A direction not detected compares against NaN, which nothing equals. */
static void isinf_run(const berth_kernel_call_t *call) {
  const berth_type_t *t = call->in[0].type;
  bool pos = call->attrs[0].i != 0, neg = call->attrs[1].i != 0;
  int64_t n = berth_type_numel(t);
  if (t->dtype == BERTH_DTYPE_F32)
    isinf_row_f32(call->out[0].data, call->in[0].data, n, neg ? -INFINITY : NAN, pos ? INFINITY : NAN);
  else
    isinf_row_f64(call->out[0].data, call->in[0].data, n, neg ? -(double)INFINITY : (double)NAN,
                  pos ? (double)INFINITY : (double)NAN);
}

static const berth_attr_spec_t isinf_attrs[] = {{"detect_positive", BERTH_ATTR_INT, false, 1, 0},
                                                {"detect_negative", BERTH_ATTR_INT, false, 1, 0}};
const berth_op_def_t berth_op_def_isinf = {"isinf", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, isinf_attrs, isinf_infer, isinf_run};
