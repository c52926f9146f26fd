/* Elementwise activations with scalar parameters (ONNX's activation family):
 *   leaky_relu {alpha}        x < 0 ? alpha x : x
 *   hard_sigmoid {alpha,beta} max(0, min(1, alpha x + beta))
 *   hard_swish                x hard_sigmoid(x) with alpha 1/6, beta 1/2
 *   elu {alpha}               x < 0 ? alpha (e^x - 1) : x
 *   selu {alpha,gamma}        x <= 0 ? gamma alpha (e^x - 1) : gamma x
 *   celu {alpha}              max(0, x) + min(0, alpha (e^(x/alpha) - 1))
 *   gelu {approximate}        0: x Phi(x) = x/2 erfc(-x/sqrt2); 1: x/2 (1 + tanh(u)),
 *                             u = sqrt(2/pi) (x + 0.044715 x^3)
 *   mish                      x tanh(ln(1 + e^x))
 *   softplus                  ln(1 + e^x)
 *   softsign                  x / (1 + |x|)
 *   thresholded_relu {alpha}  x > alpha ? x : 0
 *   swish {alpha}             x sigmoid(alpha x)
 *   shrink {bias,lambd}       x < -lambd ? x + bias : x > lambd ? x - bias : 0
 *   prelu(x, slope)           x < 0 ? slope x : x, slope broadcast to x's shape
 * Floats (f32, f64; ONNX float16 and bfloat16 are computed in f32 and rounded by the
 * importer); shrink takes integers too, prelu signed and unsigned integers. The parameters
 * are SCALAR attributes (doubles, rounded to f32 for f32 inputs, as ONNX's float attributes
 * are).
 *
 * Accuracy: forms without cancellation (e^x - 1 as expm1, 1 + erf(z) as erfc(-z),
 * 1 + tanh(u) as 2 sigmoid(2u), ln(1 + e^x) as max(x, 0) + log1p(e^-|x|), tanh(softplus(x))
 * as n / (n + 2) with n = e^x (e^x + 2), hard_swish as x (x + 3) / 6). The f32 loops use
 * kernel_vmath.h's branch-free exp / expm1 / sigmoid / log1p where those suffice (they vectorize;
 * elu, softplus and hard_sigmoid through the active kernel variant, kernel_isa.h, hard_sigmoid with one
 * fused multiply-add); hard_swish, celu, gelu and swish with alpha != 1 compute f32 in
 * double.
 * Largest errors in ulp of the correctly rounded result, measured by tests/test_kernel_math.c
 * (which asserts its bounds) over sweeps of [-100, 100] (gelu [-30, 30], softsign 1e30):
 *   f32: 0.5 (rounded once) for leaky_relu, hard_sigmoid, hard_swish, celu, gelu, swish
 *        (alpha != 1); elu 1.3, selu 1.7, softplus 2.0, softsign 1.4, swish (alpha 1) 2.4,
 *        mish 3.4
 *   f64: leaky_relu, hard_sigmoid 0.5; elu 1.3, selu 1.7, hard_swish 1.7, softplus 1.4,
 *        gelu (none) 2.5, mish 2.6, swish (alpha 1) 2.9. Where the rounding of an argument
 *        is magnified by an exponential, f64 errors grow in the far tail (results near 0 or
 *        huge): celu with alpha < 0 24 ulp at x = -100, swish with alpha != 1 110 ulp at
 *        x = -80, gelu (tanh) 1050 ulp at x = -20 (result 1e-90); f32 has none of these.
 * NaN in gives NaN out except where the formula selects a constant (thresholded_relu and
 * shrink give 0, as ONNX's reference does); -inf gives NaN where the formula is -inf * 0
 * (hard_swish, gelu, mish, swish), as it does in ONNX's reference. */
#include "kernel_isa.h"
#include "kernel_util.h"
#include "kernel_vmath.h"

#include <math.h>
#include <string.h>

/* ---- scalar forms ---------------------------------------------------------------------- */

/* expm1(x) for x <= 0 (NaN: NaN). Below -20.5 the result rounds to -1 in f32. */
static inline float expm1_neg_f32(float x) {
  float xc = x < -20.5f ? -20.5f : x;
  float r = berth_vm_expm1_neg_f32(xc != xc ? 0.0f : xc);
  return x != x ? x : r;
}

static inline float s_mish_f32(float x) {
  float e = berth_vm_exp_f32(x > 20.0f ? 20.0f : x);
  float n = e * (e + 2.0f);
  float r = x * (n / (n + 2.0f));
  return x > 20.0f ? x : r;
}
static inline double s_mish_f64(double x) {
  if (x > 40.0) return x; /* tanh(softplus(x)) rounds to 1 */
  double e = exp(x), n = e * (e + 2.0);
  return x * (n / (n + 2.0));
}

static inline double s_softplus_f64(double x) { return (x > 0 ? x : 0.0) + log1p(exp(-fabs(x))); }

static inline double sigmoid_f64(double x) {
  double e = exp(-fabs(x));
  return x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

/* gelu: the exact form through erfc, the tanh form through the sigmoid (no cancellation
 * for negative x). f32 is computed in double and rounded once. */
static inline double gelu_erf_f32(double x) { return 0.5 * x * erfc(-x * 0.70710678118654752440); }
/* f64: z = -x / sqrt2 is rounded, and erfc magnifies that rounding by about 2 z^2 in its tail
 * (1000 ulp at x = -30); the rounding error dz (exact by a fused multiply-add, with the
 * constant's own low part) is put back to first order: erfc(z + dz) = erfc(z) - 2/sqrt(pi)
 * e^(-z^2) dz. */
static inline double gelu_erf_f64(double x) {
  const double c_hi = -0.70710678118654757, c_lo = 4.8336466567264567e-17; /* -1/sqrt2 = c_hi + c_lo */
  double z = x * c_hi;
  double dz = fma(x, c_hi, -z) + x * c_lo;
  double g = erfc(z) - 1.1283791670955126 * exp(-z * z) * dz;
  return 0.5 * x * g;
}
static inline double gelu_tanh_f64(double x) {
  double u = 0.79788456080286535588 * (x + 0.044715 * x * x * x);
  return x * sigmoid_f64(2.0 * u);
}

/* ---- row functions: one per (op, float dtype) ----------------------------------------
 * P0, P1 are the op's first two SCALAR attributes in the row's type. */
typedef void (*act_row_fn)(void *o, const void *a, int64_t n, const double *p);

#define ACT_ROW(name, T, EXPR)                                                   \
  static void name(void *o_, const void *a_, int64_t n, const double *p) {       \
    T *restrict o = (T *)o_;                                                     \
    const T *restrict a = (const T *)a_;                                         \
    const T P0 = (T)p[0], P1 = (T)p[1];                                          \
    (void)P0;                                                                               \
    (void)P1;                                                                               \
    BERTH_VLOOP(i, n, T x = a[i]; o[i] = (EXPR););                                          \
  }

/* The selects keep NaN where the formulas do. They select on the bits (kernel_vmath.h's
 * berth_vm_sel, berth_vm_sel_f64): with `c ? a : b`, GCC keeps an arm that holds a
 * floating-point operation a branch (it does not speculate one: it could raise a flag), and
 * the loop stays scalar (leaky_relu, elu, ...). */
/* clip to [0, 1]; NaN stays NaN */
static inline double clip01(double v) {
  double lo = berth_vm_sel_f64(v < 0, 0.0, v);
  return berth_vm_sel_f64(lo > 1, 1.0, lo);
}
#define HSIG(T, v) clip01(v)
ACT_ROW(leaky_relu_f32, float, berth_vm_sel(x < 0, P0 * x, x))
ACT_ROW(leaky_relu_f64, double, berth_vm_sel_f64(x < 0, P0 * x, x))
/* f32: alpha x + beta rounded once, by the active kernel variant (kernel_isa.h: a fused
 * multiply-add, or in double where the product is exact; no cancellation near the corners);
 * f64: one fused multiply-add. f32 elu is the variant's too (the same formula). hard_swish as x (x + 3) / 6, clipped: x + 3 is exact
 * near -3, where alpha x + beta would cancel. */
static void hard_sigmoid_f32(void *o, const void *a, int64_t n, const double *p) {
  BERTH_KCALL(hard_sigmoid_f32)((const float *)a, (float *)o, n, (float)p[0], (float)p[1]);
}
ACT_ROW(hard_sigmoid_f64, double, HSIG(double, fma(P0, x, P1)))
ACT_ROW(hard_swish_f32, float, (float)((double)x * HSIG(double, ((double)x + 3.0) / 6.0)))
ACT_ROW(hard_swish_f64, double, x * HSIG(double, (x + 3.0) / 6.0))
static void elu_f32(void *o, const void *a, int64_t n, const double *p) {
  BERTH_KCALL(elu_f32)((const float *)a, (float *)o, n, (float)p[0]);
}
ACT_ROW(elu_f64, double, x < 0 ? P0 * expm1(x) : x)
/* selu: P0 alpha, P1 gamma */
ACT_ROW(selu_f32, float, berth_vm_sel(x <= 0, P1 * (P0 * expm1_neg_f32(berth_vm_sel(x < 0, x, 0.0f))), P1 * x))
ACT_ROW(selu_f64, double, x <= 0 ? P1 * (P0 * expm1(x)) : P1 * x)
/* celu f32 in double: with alpha < 0, x / alpha > 0 and the exponential magnifies the
 * rounding of x / alpha (by |x / alpha| ulp); in double that stays below f32's half ulp */
ACT_ROW(celu_f32, float, x < 0 ? (float)((double)P0 * expm1((double)x / P0)) : x)
ACT_ROW(celu_f64, double, x < 0 ? P0 * expm1(x / P0) : x)
ACT_ROW(mish_f32, float, s_mish_f32(x))
ACT_ROW(mish_f64, double, s_mish_f64(x))
/* f32 through the active kernel variant (kernel_vmath.h's branch-free form: libm's log1pf and
 * expf kept the loop scalar, 9.6 ns an element) */
static void softplus_f32(void *o, const void *a, int64_t n, const double *p) {
  (void)p;
  BERTH_KCALL(softplus_f32)((const float *)a, (float *)o, n);
}
ACT_ROW(softplus_f64, double, s_softplus_f64(x))
ACT_ROW(softsign_f32, float, x / (1.0f + fabsf(x)))
ACT_ROW(softsign_f64, double, x / (1.0 + fabs(x)))
ACT_ROW(thresholded_relu_f32, float, berth_vm_sel(x > P0, x, 0.0f))
ACT_ROW(thresholded_relu_f64, double, berth_vm_sel_f64(x > P0, x, 0.0))
ACT_ROW(swish_f64, double, x * sigmoid_f64(P0 * x))
/* shrink: P0 bias, P1 lambd */
ACT_ROW(shrink_f32, float, berth_vm_sel(x < -P1, x + P0, berth_vm_sel(x > P1, x - P0, 0.0f)))
ACT_ROW(shrink_f64, double, berth_vm_sel_f64(x < -P1, x + P0, berth_vm_sel_f64(x > P1, x - P0, 0.0)))

/* swish f32: alpha 1 (SiLU) with the vectorized sigmoid; another alpha in double, so that
 * the rounding of alpha x is not magnified by the exponential. */
static void swish_f32(void *o_, const void *a_, int64_t n, const double *p) {
  float *restrict o = (float *)o_;
  const float *restrict a = (const float *)a_;
  const double alpha = (float)p[0];
  if (alpha == 1.0) BERTH_VLOOP(i, n, float x = a[i]; o[i] = x * berth_vm_sigmoid_f32(x););
  else for (int64_t i = 0; i < n; i++) o[i] = (float)(a[i] * sigmoid_f64(alpha * a[i]));
}

/* gelu: the approximation is an INT attribute, not a parameter; f32 computed in double */
static void gelu_f32(void *o_, const void *a_, int64_t n, const double *p) {
  float *restrict o = (float *)o_;
  const float *restrict a = (const float *)a_;
  if (p[0] != 0) for (int64_t i = 0; i < n; i++) o[i] = (float)gelu_tanh_f64(a[i]);
  else for (int64_t i = 0; i < n; i++) o[i] = (float)gelu_erf_f32(a[i]);
}
static void gelu_f64(void *o_, const void *a_, int64_t n, const double *p) {
  double *restrict o = (double *)o_;
  const double *restrict a = (const double *)a_;
  if (p[0] != 0) for (int64_t i = 0; i < n; i++) o[i] = gelu_tanh_f64(a[i]);
  else for (int64_t i = 0; i < n; i++) o[i] = gelu_erf_f64(a[i]);
}

/* ---- integer shrink ---------------------------------------------------------------------
 * x < -lambd and x > lambd compared exactly (for integer x, x > lambd iff x > floor(lambd),
 * x < -lambd iff x < -floor(lambd)); bias is an integer (infer requires it) added with
 * wrap-around as all of berth's integer arithmetic. */
typedef struct shrink_int {
  int lo_all, lo_none, hi_all, hi_none; /* x < lo for all / no x; x > hi for all / no x */
  double lo, hi;                        /* else: the thresholds, integral and in range */
} shrink_int_t;

static void shrink_int_plan(double lambd, double tmin, double tmax_plus1, shrink_int_t *s) {
  double l = floor(lambd);
  double lo = -l;               /* x < lo */
  s->lo_all = lo >= tmax_plus1;
  s->lo_none = lo <= tmin;
  s->hi_all = l < tmin;
  s->hi_none = l >= tmax_plus1 - 1; /* x > l never (l integral, l >= tmax) */
  s->lo = lo;
  s->hi = l;
}

#define SHRINK_INT(E, s, T, U, SIGNED)                                                             \
  static void shrink_##s(void *o_, const void *a_, int64_t n, const double *pr) {                  \
    T *restrict o = (T *)o_;                                                                       \
    const T *restrict a = (const T *)a_;                                                           \
    const double tmin = SIGNED ? -ldexp(1.0, 8 * (int)sizeof(T) - 1) : 0.0;                        \
    const double tmax1 = ldexp(1.0, 8 * (int)sizeof(T) - SIGNED);                                  \
    shrink_int_t p;                                                                                \
    shrink_int_plan(pr[1], tmin, tmax1, &p);                                                       \
    const T lo = p.lo_all || p.lo_none ? (T)0 : (p.lo < 0 ? (T)(int64_t)p.lo : (T)(uint64_t)p.lo); \
    const T hi = p.hi_all || p.hi_none ? (T)0 : (p.hi < 0 ? (T)(int64_t)p.hi : (T)(uint64_t)p.hi); \
    const U bias = (U)(int64_t)pr[0]; /* integral, |bias| < 2^63 (infer) */                         \
    for (int64_t i = 0; i < n; i++) {                                                              \
      T x = a[i];                                                                                  \
      bool below = p.lo_all || (!p.lo_none && x < lo);                                             \
      bool above = p.hi_all || (!p.hi_none && x > hi);                                             \
      o[i] = below ? (T)((U)x + bias) : above ? (T)((U)x - bias) : (T)0;                           \
    }                                                                                              \
  }
#define SHRINK_SINT(E, s, T, U) SHRINK_INT(E, s, T, U, 1)
#define SHRINK_UINT(E, s, T, U) SHRINK_INT(E, s, T, U, 0)
BERTH_KERNEL_SINT_LIST(SHRINK_SINT)
BERTH_KERNEL_UINT_LIST(SHRINK_UINT)

/* ---- the op definitions ----------------------------------------------------------------- */

typedef struct act_desc {
  const berth_op_def_t *def;
  act_row_fn rows[BERTH_DTYPE_COUNT];
} act_desc_t;

/* Attributes must be usable as the row's parameters: shrink's bias on an integer input
 * must be an integer (its arithmetic stays exact). */
static berth_status_t act_check_attrs(const berth_op_def_t *def, const berth_attr_value_t *attrs, berth_dtype_t dt,
                                      berth_diag_t *diag) {
  /* attrs is NULL for an op without attributes: read only the op's own */
  if (def == &berth_op_def_shrink && berth_dtype_is_int(dt)) {
    double bias = attrs[0].f; /* integral and within int64 (-0 is 0) */
    bool bias_int = bias >= -9.2e18 && bias <= 9.2e18 && (double)(int64_t)bias == bias;
    if (!bias_int || attrs[1].f != attrs[1].f)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "shrink: bias %g on an integer input, expected an integer bias (and a lambd that is a number)",
                        bias);
  }
  if (def == &berth_op_def_gelu && attrs[0].i != 0 && attrs[0].i != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "gelu: approximate is %lld, expected 0 (none) or 1 (tanh)",
                      (long long)attrs[0].i);
  return BERTH_OK;
}

static berth_status_t act_infer(const act_desc_t *d, const berth_attr_value_t *attrs, const berth_type_t *in,
                                int32_t n_in, berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(d->def, in, n_in, diag));
  uint32_t mask = 0;
  for (int k = 0; k < BERTH_DTYPE_COUNT; k++)
    if (d->rows[k]) mask |= 1u << k;
  BERTH_TRY(berth_kernel_check_dtype(d->def->name, 0, in[0].dtype, mask, diag));
  BERTH_TRY(act_check_attrs(d->def, attrs, in[0].dtype, diag));
  out[0] = in[0];
  return BERTH_OK;
}

/* The rows take the op's attributes as doubles (an INT attribute as its value). */
static void act_run(const act_desc_t *d, const berth_kernel_call_t *call) {
  const berth_type_t *t = call->in[0].type;
  double p[2] = {0, 0};
  for (int k = 0; k < d->def->n_attrs && k < 2; k++)
    p[k] = d->def->attrs[k].kind == BERTH_ATTR_SCALAR ? call->attrs[k].f : (double)call->attrs[k].i;
  d->rows[t->dtype](call->out[0].data, call->in[0].data, berth_type_numel(t), p);
}

#define FLOAT_ROWS(op) {[BERTH_DTYPE_F32] = op##_f32, [BERTH_DTYPE_F64] = op##_f64}
#define ALL_NUM_ROWS(op)                                                                 \
  {[BERTH_DTYPE_I8] = op##_i8,   [BERTH_DTYPE_U8] = op##_u8,   [BERTH_DTYPE_I16] = op##_i16, \
   [BERTH_DTYPE_U16] = op##_u16, [BERTH_DTYPE_I32] = op##_i32, [BERTH_DTYPE_U32] = op##_u32, \
   [BERTH_DTYPE_I64] = op##_i64, [BERTH_DTYPE_U64] = op##_u64, [BERTH_DTYPE_F32] = op##_f32, \
   [BERTH_DTYPE_F64] = op##_f64}

#define DEFINE_ACT(op, ROWS, n_attrs, specs)                                                              \
  static const act_desc_t op##_desc = {&berth_op_def_##op, ROWS(op)};                                     \
  static berth_status_t op##_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, \
                                   berth_type_t *out, berth_diag_t *diag) {                               \
    return act_infer(&op##_desc, attrs, in, n_in, out, diag);                                             \
  }                                                                                                       \
  static void op##_run(const berth_kernel_call_t *call) { act_run(&op##_desc, call); }                    \
  const berth_op_def_t berth_op_def_##op = {#op, BERTH_OPKIND_KERNEL, 1, 1, 1, n_attrs, specs,            \
                                            op##_infer, op##_run};

/* Defaults are ONNX's. */
static const berth_attr_spec_t alpha_001[] = {{"alpha", BERTH_ATTR_SCALAR, false, 0, 0.01}};
static const berth_attr_spec_t alpha_1[] = {{"alpha", BERTH_ATTR_SCALAR, false, 0, 1.0}};
static const berth_attr_spec_t hard_sigmoid_attrs[] = {{"alpha", BERTH_ATTR_SCALAR, false, 0, 0.2},
                                                       {"beta", BERTH_ATTR_SCALAR, false, 0, 0.5}};
static const berth_attr_spec_t selu_attrs[] = {{"alpha", BERTH_ATTR_SCALAR, false, 0, 1.67326319217681884765625},
                                               {"gamma", BERTH_ATTR_SCALAR, false, 0, 1.05070102214813232421875}};
static const berth_attr_spec_t shrink_attrs[] = {{"bias", BERTH_ATTR_SCALAR, false, 0, 0.0},
                                                 {"lambd", BERTH_ATTR_SCALAR, false, 0, 0.5}};
static const berth_attr_spec_t gelu_attrs[] = {{"approximate", BERTH_ATTR_INT, false, 0, 0}};

DEFINE_ACT(leaky_relu, FLOAT_ROWS, 1, alpha_001)
DEFINE_ACT(hard_sigmoid, FLOAT_ROWS, 2, hard_sigmoid_attrs)
DEFINE_ACT(hard_swish, FLOAT_ROWS, 0, NULL)
DEFINE_ACT(elu, FLOAT_ROWS, 1, alpha_1)
DEFINE_ACT(selu, FLOAT_ROWS, 2, selu_attrs)
DEFINE_ACT(celu, FLOAT_ROWS, 1, alpha_1)
DEFINE_ACT(gelu, FLOAT_ROWS, 1, gelu_attrs)
DEFINE_ACT(mish, FLOAT_ROWS, 0, NULL)
DEFINE_ACT(softplus, FLOAT_ROWS, 0, NULL)
DEFINE_ACT(softsign, FLOAT_ROWS, 0, NULL)
DEFINE_ACT(thresholded_relu, FLOAT_ROWS, 1, alpha_1)
DEFINE_ACT(swish, FLOAT_ROWS, 1, alpha_1)
DEFINE_ACT(shrink, ALL_NUM_ROWS, 2, shrink_attrs)

/* ---- prelu(x, slope): broadcasting ---------------------------------------------------------
 * Integer products wrap (computed in the unsigned type); unsigned x is never negative. */
#define PRELU_ROW(name, T, EXPR)                                                                  \
  static void name(void *o_, const void *a_, const void *b_, int64_t n, int sa, int sb) {       \
    T *restrict o = (T *)o_;                                                                      \
    const T *restrict pa = (const T *)a_;                                                         \
    const T *restrict pb = (const T *)b_;                                                         \
    if (sa && sb) BERTH_VLOOP(i, n, T x = pa[i]; T s = pb[i]; o[i] = (EXPR););                    \
    else if (sa) {                                                                                \
      const T s = pb[0];                                                                          \
      BERTH_VLOOP(i, n, T x = pa[i]; o[i] = (EXPR););                                             \
    } else {                                                                                      \
      const T x = pa[0];                                                                          \
      for (int64_t i = 0; i < n; i++) {                                                           \
        T s = pb[sb ? i : 0];                                                                     \
        o[i] = (EXPR);                                                                            \
      }                                                                                           \
    }                                                                                             \
  }
#define PRELU_SINT(E, s_, T, U) PRELU_ROW(prelu_row_##s_, T, x < 0 ? (T)((U)s * (U)x) : x)
BERTH_KERNEL_SINT_LIST(PRELU_SINT)
#define PRELU_UINT(E, s_, T, U) PRELU_ROW(prelu_row_##s_, T, ((void)s, x))
BERTH_KERNEL_UINT_LIST(PRELU_UINT)
/* floats: a bit select (kernel_vmath.h), as leaky_relu: `x < 0 ? s * x : x` kept the loop
 * scalar (a branch per element: 3.3 ms for 64 x 112 x 112 per-channel slopes) */
PRELU_ROW(prelu_row_f32, float, berth_vm_sel(x < 0, s * x, x))
PRELU_ROW(prelu_row_f64, double, berth_vm_sel_f64(x < 0, s * x, x))

static const berth_row2_fn prelu_rows[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_I8] = prelu_row_i8,   [BERTH_DTYPE_U8] = prelu_row_u8,   [BERTH_DTYPE_I16] = prelu_row_i16,
    [BERTH_DTYPE_U16] = prelu_row_u16, [BERTH_DTYPE_I32] = prelu_row_i32, [BERTH_DTYPE_U32] = prelu_row_u32,
    [BERTH_DTYPE_I64] = prelu_row_i64, [BERTH_DTYPE_U64] = prelu_row_u64, [BERTH_DTYPE_F32] = prelu_row_f32,
    [BERTH_DTYPE_F64] = prelu_row_f64,
};

static berth_status_t prelu_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  (void)attrs;
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_prelu, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("prelu", 0, in[0].dtype, BERTH_MASK_NUM, diag));
  BERTH_TRY(berth_kernel_check_same_dtype("prelu", in, 0, 1, diag));
  berth_type_t t;
  berth_kernel_type_init(&t, in[0].dtype, 0);
  BERTH_TRY(berth_kernel_broadcast("prelu", in, 2, &t, diag));
  BERTH_TRY(berth_kernel_check_output("prelu", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void prelu_run(const berth_kernel_call_t *call) {
  size_t es = berth_dtype_size(call->in[0].type->dtype);
  berth_bcast_t plan;
  berth_bcast_init(&plan, call->out[0].type, call->in, 2);
  berth_bcast_run2(&plan, prelu_rows[call->in[0].type->dtype], call->out[0].data, es, call->in[0].data, es,
                   call->in[1].data, es);
}

const berth_op_def_t berth_op_def_prelu = {"prelu", BERTH_OPKIND_KERNEL, 2, 2, 1, 0, NULL, prelu_infer, prelu_run};
