/* The math family's kernels (kernel_activation.c, kernel_math.c, kernel_hardmax.c,
 * kernel_bitwise.c): accuracy of every float op against long double references, then the
 * edge cases the ONNX suite does not reach: NaN, infinities, signed zeros, round's ties,
 * shift counts of the type's width and more (undefined in C: the sanitizer build halts on
 * them), integer shrink's exact thresholds, bitcast's bool bytes, hardmax's ties and NaN.
 *
 * Accuracy: each op runs on a sweep of inputs (f32: every k-th float of a range, both signs;
 * f64: log-uniform random values, seed printed) and its largest error in ulp of the correctly
 * rounded result is checked against the op's bound (printed with the measured value:
 * `test_kernel_math -v`). */
#include "test_kernel_util.h"

#include <float.h>

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64
#define I8 BERTH_DTYPE_I8
#define U8 BERTH_DTYPE_U8
#define I16 BERTH_DTYPE_I16
#define U16 BERTH_DTYPE_U16
#define I32 BERTH_DTYPE_I32
#define U32 BERTH_DTYPE_U32
#define I64 BERTH_DTYPE_I64
#define U64 BERTH_DTYPE_U64
#define BOOL BERTH_DTYPE_BOOL

static int verbose;
static const float fnan = NAN, finf = INFINITY;
static const double dnan = NAN, dinf = INFINITY;

/* ---- accuracy ----------------------------------------------------------------------------- */

typedef long double (*ref_fn)(long double x, const double *p);

/* Error of got in ulp of the correctly rounded result (mantissa bits `bits`, smallest
 * exponent `emin`: subnormal results are measured on the subnormal grid). */
static double ulp_err(long double got, long double ref, int bits, int emin) {
  if (isnan(ref)) return isnan(got) ? 0 : INFINITY;
  if (isinf(ref)) return got == ref ? 0 : INFINITY;
  if (isnan(got) || isinf(got)) return INFINITY;
  int e;
  frexpl(ref, &e); /* |ref| in [2^(e-1), 2^e) */
  if (e - 1 < emin) e = emin + 1;
  long double ulp = ldexpl(1.0L, e - bits);
  return (double)(fabsl(got - ref) / ulp);
}

static void run1(const berth_op_def_t *def, const berth_attr_value_t *attrs, berth_dtype_t dt, const void *in,
                 void *out, int64_t n) {
  berth_type_t t = ty(dt, 1, (int)n);
  berth_type_t to;
  char msg[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_status_t st = def->infer(attrs, &t, 1, &to, &d);
  CHECK_MSG(st == BERTH_OK, "%s: %s", def->name, msg);
  berth_tensor_ref_t ri = {&t, (void *)in}, ro = {&to, out};
  berth_kernel_call_t call = {attrs, &ri, 1, &ro, 1, NULL, 0};
  def->run(&call);
}

typedef struct acc_case {
  const berth_op_def_t *def;
  ref_fn ref;
  double lo, hi;           /* input range */
  double p0, p1;           /* the op's first two attributes (SCALAR or INT), NaN: default */
  double bound32, bound64; /* ulp */
} acc_case_t;

static void set_params(const acc_case_t *c, berth_attr_value_t *attrs, double *p) {
  berth_op_attrs_default(c->def, attrs);
  double in[2] = {c->p0, c->p1};
  for (int k = 0; k < 2; k++) {
    if (k < c->def->n_attrs && in[k] == in[k]) {
      attrs[k].f = in[k];
      attrs[k].i = (int64_t)in[k];
      attrs[k].n = (double)(int64_t)in[k] == in[k];
    }
    p[k] = k < c->def->n_attrs ? (c->def->attrs[k].kind == BERTH_ATTR_SCALAR ? attrs[k].f : (double)attrs[k].i) : 0;
  }
}

#define SWEEP_N 40000

static void accuracy_f32(const acc_case_t *c) {
  berth_attr_value_t attrs[BERTH_MAX_OP_ATTRS];
  double p[2], pf[2];
  set_params(c, attrs, p);
  volatile float f0 = (float)p[0], f1 = (float)p[1]; /* the f32 kernel's parameters */
  pf[0] = f0;
  pf[1] = f1;
  static float x[2 * SWEEP_N + 8], y[2 * SWEEP_N + 8];
  int64_t n = 0;
  /* every k-th float of (0, max|range|], both signs, kept inside [lo, hi] */
  float top = (float)fmax(fabs(c->lo), fabs(c->hi));
  uint32_t hi_bits, lo_bits = 0x00800000u; /* FLT_MIN */
  memcpy(&hi_bits, &top, 4);
  uint32_t step = (hi_bits - lo_bits) / SWEEP_N + 1;
  for (uint32_t b = lo_bits; b <= hi_bits && n < 2 * SWEEP_N; b += step)
    for (int s = 0; s < 2; s++) {
      float v;
      uint32_t bb = b | (s ? 0x80000000u : 0);
      memcpy(&v, &bb, 4);
      if (v >= c->lo && v <= c->hi) x[n++] = v;
    }
  x[n++] = 0.0f;
  run1(c->def, attrs, F32, x, y, n);
  double worst = 0;
  float at = 0;
  int64_t worst_i = 0;
  for (int64_t i = 0; i < n; i++) {
    double e = ulp_err(y[i], c->ref(x[i], pf), 24, -126);
    if (e > worst) worst = e, at = x[i], worst_i = i;
  }
  CHECK_MSG(worst <= c->bound32, "%s f32: %.2f ulp at x = %.9g, bound %.1f (got %.9g, want %.12Lg)", c->def->name, worst, at, c->bound32, y[worst_i], c->ref(at, pf));
  if (verbose) printf("  %-18s f32 max %6.2f ulp (bound %4.1f) over %lld points in [%g, %g]\n", c->def->name, worst,
                      c->bound32, (long long)n, c->lo, c->hi);
}

static uint64_t rng_state, rng_seed;
static uint64_t rnd64(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return rng_state;
}
static double rnd_unit(void) { return (double)(rnd64() >> 11) * 0x1p-53; }

static void accuracy_f64(const acc_case_t *c) {
  berth_attr_value_t attrs[BERTH_MAX_OP_ATTRS];
  double p[2];
  set_params(c, attrs, p);
  enum { N = 20000 };
  static double x[N], y[N];
  double top = fmax(fabs(c->lo), fabs(c->hi));
  for (int i = 0; i < N; i++) {
    double v;
    do { /* log-uniform magnitude in [2^-40 top, top], random sign */
      v = top * exp2(-40.0 * rnd_unit()) * (rnd64() >> 63 ? -1 : 1);
    } while (v < c->lo || v > c->hi);
    x[i] = v;
  }
  run1(c->def, attrs, F64, x, y, N);
  double worst = 0, at = 0;
  for (int i = 0; i < N; i++) {
    double e = ulp_err(y[i], c->ref(x[i], p), 53, -1022);
    if (e > worst) worst = e, at = x[i];
  }
  CHECK_MSG(worst <= c->bound64, "%s f64: %.2f ulp at x = %.17g, bound %.1f (seed %llu)", c->def->name, worst, at,
            c->bound64, (unsigned long long)rng_seed);
  if (verbose) printf("  %-18s f64 max %6.2f ulp (bound %4.1f) over %d points in [%g, %g]\n", c->def->name, worst,
                      c->bound64, N, c->lo, c->hi);
}

static long double clip01(long double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }
static long double sigmoidl(long double v) { return 1.0L / (1.0L + expl(-v)); }

static long double r_leaky(long double x, const double *p) { return x < 0 ? p[0] * x : x; }
static long double r_hsig(long double x, const double *p) { return clip01((long double)p[0] * x + p[1]); }
static long double r_hswish(long double x, const double *p) { (void)p; return x * clip01((x + 3) / 6); }
static long double r_elu(long double x, const double *p) { return x < 0 ? p[0] * expm1l(x) : x; }
static long double r_selu(long double x, const double *p) {
  return x <= 0 ? (long double)p[1] * p[0] * expm1l(x) : (long double)p[1] * x;
}
static long double r_celu(long double x, const double *p) { return x < 0 ? p[0] * expm1l(x / p[0]) : x; }
static long double r_gelu(long double x, const double *p) {
  if (p[0] == 0) return 0.5L * x * erfcl(-x / sqrtl(2.0L));
  long double u = sqrtl(2.0L / 3.14159265358979323846264338327950288L) * (x + 0.044715L * x * x * x);
  return x * sigmoidl(2 * u);
}
static long double r_mish(long double x, const double *p) { (void)p; return x * tanhl(log1pl(expl(x))); }
static long double r_softplus(long double x, const double *p) { (void)p; return log1pl(expl(x)); }
static long double r_softsign(long double x, const double *p) { (void)p; return x / (1 + fabsl(x)); }
static long double r_swish(long double x, const double *p) { return x * sigmoidl(p[0] * x); }
#define LREF(f) \
  static long double r_##f(long double x, const double *p) { (void)p; return f##l(x); }
LREF(sin)
LREF(cos)
LREF(tan)
LREF(asin)
LREF(acos)
LREF(atan)
LREF(sinh)
LREF(cosh)
LREF(asinh)
LREF(acosh)
LREF(atanh)
LREF(erf)

static void test_accuracy(void) {
  const double D = NAN; /* default attribute */
  const acc_case_t cases[] = {
      {&berth_op_def_leaky_relu, r_leaky, -100, 100, D, D, 0.5, 0.5},
      {&berth_op_def_hard_sigmoid, r_hsig, -10, 10, D, D, 0.51, 0.5},
      {&berth_op_def_hard_sigmoid, r_hsig, -10, 10, 0.3, -0.7, 0.51, 0.5},
      {&berth_op_def_hard_swish, r_hswish, -10, 10, D, D, 0.51, 2},
      {&berth_op_def_elu, r_elu, -100, 100, D, D, 3, 1.5},
      {&berth_op_def_elu, r_elu, -100, 100, 0.3, D, 3, 1.5},
      {&berth_op_def_selu, r_selu, -100, 100, D, D, 3, 2},
      {&berth_op_def_celu, r_celu, -100, 100, D, D, 0.51, 1.5},
      {&berth_op_def_celu, r_celu, -100, 100, -2.5, D, 0.51, 40},
      {&berth_op_def_gelu, r_gelu, -30, 30, 0, D, 0.51, 3},
      {&berth_op_def_gelu, r_gelu, -30, 30, 1, D, 0.51, 1500},
      {&berth_op_def_mish, r_mish, -80, 80, D, D, 5, 3},
      {&berth_op_def_softplus, r_softplus, -80, 80, D, D, 2.05, 2},
      {&berth_op_def_softsign, r_softsign, -1e30, 1e30, D, D, 1.5, 1.5},
      {&berth_op_def_swish, r_swish, -80, 80, D, D, 4, 3},
      {&berth_op_def_swish, r_swish, -80, 80, 1.7, D, 0.51, 160},
      {&berth_op_def_sin, r_sin, -1e4, 1e4, D, D, 1, 1},
      {&berth_op_def_cos, r_cos, -1e4, 1e4, D, D, 1, 1},
      {&berth_op_def_tan, r_tan, -1e4, 1e4, D, D, 1, 1.5},
      {&berth_op_def_asin, r_asin, -1, 1, D, D, 1, 1},
      {&berth_op_def_acos, r_acos, -1, 1, D, D, 1, 1},
      {&berth_op_def_atan, r_atan, -1e6, 1e6, D, D, 1, 1},
      {&berth_op_def_sinh, r_sinh, -89, 89, D, D, 2, 2},
      {&berth_op_def_cosh, r_cosh, -89, 89, D, D, 1, 2},
      {&berth_op_def_asinh, r_asinh, -1e6, 1e6, D, D, 2, 2},
      {&berth_op_def_acosh, r_acosh, 1, 1e6, D, D, 2, 2},
      {&berth_op_def_atanh, r_atanh, -1, 1, D, D, 2, 2},
      /* f32 erf: the kernel variants' polynomial (kernel_vmath.h) is 1.07 ulp at worst over every
       * float (1.0717), glibc's erff (the portable variant) 0.8 */
      {&berth_op_def_erf, r_erf, -10, 10, D, D, 1.1, 1},
  };
  if (verbose) printf("accuracy (ulp of the correctly rounded result):\n");
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    accuracy_f32(&cases[k]);
    accuracy_f64(&cases[k]);
  }
}

/* ---- edge cases ----------------------------------------------------------------------------- */

/* NaN in, NaN out (thresholded_relu and shrink select 0 for NaN, as ONNX's reference does);
 * the infinities and signed zeros of each activation. */
static void test_activation_edges(void) {
  tcall_t c = tc_op(&berth_op_def_leaky_relu);
  tc_arg(&c, ty(F32, 1, 5), (float[]){fnan, -finf, finf, -0.0f, -2});
  EXPECT(&c, ty(F32, 1, 5), ((float[]){fnan, -finf, finf, -0.0f, -0.02f}));
  float *z = tc_run(__LINE__, &c, ty(F32, 1, 5));
  if (z) CHECK(signbit(z[3])); /* -0 * alpha is -0 ... or -0 itself */
  free(z);

  c = tc_op(&berth_op_def_elu);
  tc_arg(&c, ty(F64, 1, 5), (double[]){dnan, -dinf, dinf, -0.0, -1e-300});
  EXPECT(&c, ty(F64, 1, 5), ((double[]){dnan, -1, dinf, -0.0, -1e-300}));
  c = tc_op(&berth_op_def_elu);
  tc_arg(&c, ty(F32, 1, 4), (float[]){fnan, -finf, finf, -1e-30f});
  EXPECT(&c, ty(F32, 1, 4), ((float[]){fnan, -1, finf, -1e-30f}));

  c = tc_op(&berth_op_def_selu);
  tc_arg(&c, ty(F32, 1, 3), (float[]){fnan, -finf, finf});
  EXPECT_TOL(&c, ty(F32, 1, 3), ((float[]){fnan, -1.67326319217681884765625f * 1.05070102214813232421875f, finf}),
             1e-6);

  c = tc_op(&berth_op_def_celu);
  tc_scalar(&c, "alpha", 2);
  tc_arg(&c, ty(F32, 1, 4), (float[]){fnan, -finf, finf, -2});
  EXPECT_TOL(&c, ty(F32, 1, 4), ((float[]){fnan, -2, finf, 2 * (expf(-1) - 1)}), 1e-6);

  c = tc_op(&berth_op_def_hard_sigmoid);
  tc_arg(&c, ty(F32, 1, 5), (float[]){fnan, -finf, finf, -2.5f, 0});
  EXPECT(&c, ty(F32, 1, 5), ((float[]){fnan, 0, 1, 0, 0.5f}));
  c = tc_op(&berth_op_def_hard_swish);
  tc_arg(&c, ty(F64, 1, 5), (double[]){dnan, -dinf, dinf, -3, 3});
  EXPECT(&c, ty(F64, 1, 5), ((double[]){dnan, dnan, dinf, -0.0, 3})); /* -inf * 0, as ONNX's formula */

  c = tc_op(&berth_op_def_gelu);
  tc_arg(&c, ty(F32, 1, 4), (float[]){fnan, -finf, finf, -40});
  EXPECT(&c, ty(F32, 1, 4), ((float[]){fnan, fnan, finf, -0.0f})); /* -inf * 0: NaN */
  c = tc_op(&berth_op_def_gelu);
  tc_int(&c, "approximate", 1);
  tc_arg(&c, ty(F64, 1, 3), (double[]){dnan, dinf, 0});
  EXPECT(&c, ty(F64, 1, 3), ((double[]){dnan, dinf, 0}));
  c = tc_op(&berth_op_def_gelu);
  tc_int(&c, "approximate", 2);
  tc_arg(&c, ty(F32, 1, 1), (float[]){1});
  EXPECT_REJECT(&c, "approximate is 2");

  c = tc_op(&berth_op_def_mish);
  tc_arg(&c, ty(F32, 1, 4), (float[]){fnan, -finf, finf, 1e30f});
  EXPECT(&c, ty(F32, 1, 4), ((float[]){fnan, fnan, finf, 1e30f}));
  c = tc_op(&berth_op_def_softplus);
  tc_arg(&c, ty(F64, 1, 4), (double[]){dnan, -dinf, dinf, 1000});
  EXPECT(&c, ty(F64, 1, 4), ((double[]){dnan, 0, dinf, 1000}));
  c = tc_op(&berth_op_def_softsign);
  tc_arg(&c, ty(F32, 1, 3), (float[]){fnan, -0.0f, 3});
  EXPECT(&c, ty(F32, 1, 3), ((float[]){fnan, -0.0f, 0.75f}));
  c = tc_op(&berth_op_def_swish);
  tc_arg(&c, ty(F32, 1, 4), (float[]){fnan, -200, finf, 0});
  EXPECT(&c, ty(F32, 1, 4), ((float[]){fnan, -0.0f, finf, 0}));

  c = tc_op(&berth_op_def_thresholded_relu);
  tc_scalar(&c, "alpha", 2);
  tc_arg(&c, ty(F32, 1, 5), (float[]){fnan, 2, 2.5f, finf, -finf});
  EXPECT(&c, ty(F32, 1, 5), ((float[]){0, 0, 2.5f, finf, 0}));

  c = tc_op(&berth_op_def_shrink);
  tc_scalar(&c, "bias", 1.5);
  tc_scalar(&c, "lambd", 1);
  tc_arg(&c, ty(F64, 1, 6), (double[]){dnan, -1, 1, -2, 2, -dinf});
  EXPECT(&c, ty(F64, 1, 6), ((double[]){0, 0, 0, -0.5, 0.5, -dinf}));

  c = tc_op(&berth_op_def_leaky_relu);
  tc_arg(&c, ty(I32, 1, 1), (int32_t[]){1});
  EXPECT_REJECT(&c, "expected one of f32, f64");
}

/* Integer shrink: exact thresholds (x > lambd iff x > floor(lambd)), wrapping bias, lambd
 * beyond the type's range, a non-integral bias refused. */
static void test_shrink_int(void) {
  tcall_t c = tc_op(&berth_op_def_shrink);
  tc_scalar(&c, "bias", 1);
  tc_scalar(&c, "lambd", 1.5);
  tc_arg(&c, ty(I8, 1, 7), (int8_t[]){-128, -2, -1, 0, 1, 2, 127});
  EXPECT(&c, ty(I8, 1, 7), ((int8_t[]){-127, -1, 0, 0, 0, 1, 126}));

  c = tc_op(&berth_op_def_shrink);
  tc_scalar(&c, "bias", -3);
  tc_scalar(&c, "lambd", 0);
  tc_arg(&c, ty(I8, 1, 3), (int8_t[]){127, 0, -128}); /* 127 - -3 and -128 + -3 wrap */
  EXPECT(&c, ty(I8, 1, 3), ((int8_t[]){-126, 0, 125}));

  c = tc_op(&berth_op_def_shrink);
  tc_scalar(&c, "bias", 5);
  tc_scalar(&c, "lambd", 1e30); /* nothing is beyond it */
  tc_arg(&c, ty(U64, 1, 2), (uint64_t[]){UINT64_MAX, 7});
  EXPECT(&c, ty(U64, 1, 2), ((uint64_t[]){0, 0}));

  c = tc_op(&berth_op_def_shrink);
  tc_scalar(&c, "bias", 2);
  tc_scalar(&c, "lambd", -1e30); /* everything is below -lambd */
  tc_arg(&c, ty(U8, 1, 2), (uint8_t[]){255, 0});
  EXPECT(&c, ty(U8, 1, 2), ((uint8_t[]){1, 2}));

  c = tc_op(&berth_op_def_shrink);
  tc_scalar(&c, "bias", 0);
  tc_scalar(&c, "lambd", 9223372036854775807.0); /* 2^63: x > 2^63 has no int64 */
  tc_arg(&c, ty(I64, 1, 3), (int64_t[]){INT64_MAX, INT64_MIN, 0});
  EXPECT(&c, ty(I64, 1, 3), ((int64_t[]){0, 0, 0}));

  c = tc_op(&berth_op_def_shrink);
  tc_scalar(&c, "bias", 0);
  tc_scalar(&c, "lambd", 18446744073709549568.0); /* the largest double below 2^64 */
  tc_arg(&c, ty(U64, 1, 2), (uint64_t[]){UINT64_MAX, 18446744073709549568ull});
  EXPECT(&c, ty(U64, 1, 2), ((uint64_t[]){UINT64_MAX, 0}));

  c = tc_op(&berth_op_def_shrink); /* a bias of -0 is the integer 0 */
  tc_attr(&c, "bias")->f = -0.0;
  tc_attr(&c, "bias")->n = 0;
  tc_scalar(&c, "lambd", 0);
  tc_arg(&c, ty(I16, 1, 3), (int16_t[]){-5, 0, 5});
  EXPECT(&c, ty(I16, 1, 3), ((int16_t[]){-5, 0, 5}));

  c = tc_op(&berth_op_def_shrink);
  tc_scalar(&c, "bias", 0.5);
  tc_arg(&c, ty(I32, 1, 1), (int32_t[]){1});
  EXPECT_REJECT(&c, "expected an integer bias");
}

static void test_prelu(void) {
  tcall_t c = tc_op(&berth_op_def_prelu);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){-1, 2, -3, fnan, -0.0f, -finf});
  tc_arg(&c, ty(F32, 1, 3), (float[]){0.5f, 2, -1});
  EXPECT(&c, ty(F32, 2, 2, 3), ((float[]){-0.5f, 2, 3, fnan, -0.0f, finf}));

  c = tc_op(&berth_op_def_prelu);
  tc_arg(&c, ty(I32, 1, 3), (int32_t[]){INT32_MIN, -5, 7});
  tc_arg(&c, ty(I32, 0), (int32_t[]){-1});
  EXPECT(&c, ty(I32, 1, 3), ((int32_t[]){INT32_MIN, 5, 7})); /* -INT32_MIN wraps */

  c = tc_op(&berth_op_def_prelu);
  tc_arg(&c, ty(U32, 1, 2), (uint32_t[]){UINT32_MAX, 3});
  tc_arg(&c, ty(U32, 1, 2), (uint32_t[]){2, 2});
  EXPECT(&c, ty(U32, 1, 2), ((uint32_t[]){UINT32_MAX, 3}));

  c = tc_op(&berth_op_def_prelu);
  tc_arg(&c, ty(F32, 1, 3), (float[]){1, 2, 3});
  tc_arg(&c, ty(F64, 1, 3), (double[]){1, 2, 3});
  EXPECT_REJECT(&c, "dtype");
}

/* round: ties to even, the sign of zero kept, large values, NaN and infinities */
static void test_round(void) {
  tcall_t c = tc_op(&berth_op_def_round);
  tc_arg(&c, ty(F32, 1, 14),
         (float[]){0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, -0.4f, 0.49999997f, 8388609.0f, -8388607.5f, 1e30f, fnan,
                   -finf, -0.0f});
  float want[] = {0, 2, 2, -0.0f, -2, -2, -0.0f, 0, 8388609.0f, -8388608.0f, 1e30f, fnan, -finf, -0.0f};
  float *g = tc_run(__LINE__, &c, ty(F32, 1, 14));
  if (g) {
    for (int i = 0; i < 14; i++)
      CHECK_MSG((isnan(g[i]) && isnan(want[i])) || (g[i] == want[i] && signbit(g[i]) == signbit(want[i])),
                "round f32 element %d: got %.9g, want %.9g", i, g[i], want[i]);
    free(g);
  }
  c = tc_op(&berth_op_def_round);
  tc_arg(&c, ty(F64, 1, 8),
         (double[]){2.5, 3.5, -3.5, 0.49999999999999994, 4503599627370497.0, -4503599627370495.5, dinf, -0.3});
  double wantd[] = {2, 4, -4, 0, 4503599627370497.0, -4503599627370496.0, dinf, -0.0};
  double *gd = tc_run(__LINE__, &c, ty(F64, 1, 8));
  if (gd) {
    for (int i = 0; i < 8; i++)
      CHECK_MSG(gd[i] == wantd[i] && signbit(gd[i]) == signbit(wantd[i]), "round f64 element %d: got %.17g", i, gd[i]);
    free(gd);
  }
}

static void test_sign_erf_isinf(void) {
  tcall_t c = tc_op(&berth_op_def_sign);
  tc_arg(&c, ty(F32, 1, 6), (float[]){fnan, -0.0f, 0, -finf, 1e-45f, -3});
  EXPECT(&c, ty(F32, 1, 6), ((float[]){fnan, 0, 0, -1, 1, -1}));
  c = tc_op(&berth_op_def_sign);
  tc_arg(&c, ty(I64, 1, 3), (int64_t[]){INT64_MIN, 0, INT64_MAX});
  EXPECT(&c, ty(I64, 1, 3), ((int64_t[]){-1, 0, 1}));
  c = tc_op(&berth_op_def_sign);
  tc_arg(&c, ty(U8, 1, 2), (uint8_t[]){0, 200});
  EXPECT(&c, ty(U8, 1, 2), ((uint8_t[]){0, 1}));

  /* erf of integers: erf truncated back: 0, or +-1 from |x| >= 6 */
  c = tc_op(&berth_op_def_erf);
  tc_arg(&c, ty(I32, 1, 6), (int32_t[]){0, 1, -5, 6, -6, INT32_MIN});
  EXPECT(&c, ty(I32, 1, 6), ((int32_t[]){0, 0, 0, 1, -1, -1}));
  c = tc_op(&berth_op_def_erf);
  tc_arg(&c, ty(F64, 1, 4), (double[]){dnan, -dinf, -0.0, 30});
  EXPECT(&c, ty(F64, 1, 4), ((double[]){dnan, -1, -0.0, 1}));

  c = tc_op(&berth_op_def_isinf);
  tc_arg(&c, ty(F32, 1, 5), (float[]){finf, -finf, fnan, FLT_MAX, 0});
  EXPECT(&c, ty(BOOL, 1, 5), ((uint8_t[]){1, 1, 0, 0, 0}));
  c = tc_op(&berth_op_def_isinf);
  tc_int(&c, "detect_negative", 0);
  tc_arg(&c, ty(F64, 1, 3), (double[]){dinf, -dinf, dnan});
  EXPECT(&c, ty(BOOL, 1, 3), ((uint8_t[]){1, 0, 0}));
  c = tc_op(&berth_op_def_isinf);
  tc_int(&c, "detect_positive", 0);
  tc_arg(&c, ty(F64, 1, 3), (double[]){dinf, -dinf, dnan});
  EXPECT(&c, ty(BOOL, 1, 3), ((uint8_t[]){0, 1, 0}));
  c = tc_op(&berth_op_def_isinf);
  tc_int(&c, "detect_positive", 0);
  tc_int(&c, "detect_negative", 0);
  tc_arg(&c, ty(F32, 1, 2), (float[]){finf, -finf});
  EXPECT(&c, ty(BOOL, 1, 2), ((uint8_t[]){0, 0}));
  c = tc_op(&berth_op_def_isinf);
  tc_arg(&c, ty(I32, 1, 1), (int32_t[]){1});
  EXPECT_REJECT(&c, "expected one of f32, f64");

  /* outside the domain: NaN; atanh(+-1) is +-inf */
  c = tc_op(&berth_op_def_asin);
  tc_arg(&c, ty(F32, 1, 2), (float[]){2, -0.0f});
  EXPECT(&c, ty(F32, 1, 2), ((float[]){fnan, -0.0f}));
  c = tc_op(&berth_op_def_acosh);
  tc_arg(&c, ty(F64, 1, 2), (double[]){0.5, 1});
  EXPECT(&c, ty(F64, 1, 2), ((double[]){dnan, 0}));
  c = tc_op(&berth_op_def_atanh);
  tc_arg(&c, ty(F32, 1, 3), (float[]){1, -1, 2});
  EXPECT(&c, ty(F32, 1, 3), ((float[]){finf, -finf, fnan}));
  c = tc_op(&berth_op_def_sin);
  tc_arg(&c, ty(I32, 1, 1), (int32_t[]){1});
  EXPECT_REJECT(&c, "expected one of f32, f64");
}

/* Shift counts at and past the width give 0 (no undefined shift: the sanitizer build would
 * halt); broadcasting both ways. */
static void test_bit_shift(void) {
  tcall_t c = tc_op(&berth_op_def_bit_shift);
  tc_int(&c, "direction", 0);
  tc_arg(&c, ty(U8, 1, 5), (uint8_t[]){1, 1, 255, 3, 128});
  tc_arg(&c, ty(U8, 1, 5), (uint8_t[]){7, 8, 1, 255, 0});
  EXPECT(&c, ty(U8, 1, 5), ((uint8_t[]){128, 0, 254, 0, 128}));
  c = tc_op(&berth_op_def_bit_shift);
  tc_int(&c, "direction", 0);
  tc_arg(&c, ty(U64, 1, 4), (uint64_t[]){1, 1, 1, 3});
  tc_arg(&c, ty(U64, 1, 4), (uint64_t[]){63, 64, UINT64_MAX, 62});
  EXPECT(&c, ty(U64, 1, 4), ((uint64_t[]){1ull << 63, 0, 0, 3ull << 62}));
  c = tc_op(&berth_op_def_bit_shift);
  tc_int(&c, "direction", 1);
  tc_arg(&c, ty(U16, 2, 2, 2), (uint16_t[]){0xFFFF, 0x8000, 16, 17});
  tc_arg(&c, ty(U16, 1, 2), (uint16_t[]){15, 16});
  EXPECT(&c, ty(U16, 2, 2, 2), ((uint16_t[]){1, 0, 0, 0}));
  c = tc_op(&berth_op_def_bit_shift);
  tc_int(&c, "direction", 1);
  tc_arg(&c, ty(U32, 0), (uint32_t[]){0x80000000u});
  tc_arg(&c, ty(U32, 1, 4), (uint32_t[]){0, 31, 32, 4000000000u});
  EXPECT(&c, ty(U32, 1, 4), ((uint32_t[]){0x80000000u, 1, 0, 0}));

  c = tc_op(&berth_op_def_bit_shift);
  tc_int(&c, "direction", 0);
  tc_arg(&c, ty(I32, 1, 1), (int32_t[]){1});
  tc_arg(&c, ty(I32, 1, 1), (int32_t[]){1});
  EXPECT_REJECT(&c, "expected one of u8, u16, u32, u64");
  c = tc_op(&berth_op_def_bit_shift);
  tc_int(&c, "direction", 2);
  tc_arg(&c, ty(U8, 1, 1), (uint8_t[]){1});
  tc_arg(&c, ty(U8, 1, 1), (uint8_t[]){1});
  EXPECT_REJECT(&c, "direction is 2");
}

static void test_bitwise(void) {
  tcall_t c = tc_op(&berth_op_def_bitwise_and);
  tc_arg(&c, ty(I8, 2, 2, 2), (int8_t[]){-1, -128, 0x55, 0x0F});
  tc_arg(&c, ty(I8, 1, 2), (int8_t[]){0x3C, -1});
  EXPECT(&c, ty(I8, 2, 2, 2), ((int8_t[]){0x3C, -128, 0x14, 0x0F}));
  c = tc_op(&berth_op_def_bitwise_or);
  tc_arg(&c, ty(U64, 0), (uint64_t[]){1ull << 63});
  tc_arg(&c, ty(U64, 1, 2), (uint64_t[]){1, 1ull << 63});
  EXPECT(&c, ty(U64, 1, 2), ((uint64_t[]){(1ull << 63) | 1, 1ull << 63}));
  c = tc_op(&berth_op_def_bitwise_xor);
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){INT64_MIN, -1});
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){-1, -1});
  EXPECT(&c, ty(I64, 1, 2), ((int64_t[]){INT64_MAX, 0}));
  c = tc_op(&berth_op_def_bitwise_not);
  tc_arg(&c, ty(I16, 1, 3), (int16_t[]){0, -1, INT16_MIN});
  EXPECT(&c, ty(I16, 1, 3), ((int16_t[]){-1, 0, INT16_MAX}));
  c = tc_op(&berth_op_def_bitwise_not);
  tc_arg(&c, ty(U8, 1, 2), (uint8_t[]){0, 0xF0});
  EXPECT(&c, ty(U8, 1, 2), ((uint8_t[]){0xFF, 0x0F}));
  c = tc_op(&berth_op_def_bitwise_and);
  tc_arg(&c, ty(F32, 1, 1), (float[]){1});
  tc_arg(&c, ty(F32, 1, 1), (float[]){1});
  EXPECT_REJECT(&c, "dtype f32");
  c = tc_op(&berth_op_def_bitwise_not);
  tc_arg(&c, ty(BOOL, 1, 1), (uint8_t[]){1});
  EXPECT_REJECT(&c, "dtype bool");
}

static void test_bitcast(void) {
  tcall_t c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", I32);
  tc_arg(&c, ty(F32, 1, 4), (float[]){1.0f, -0.0f, finf, fnan});
  EXPECT(&c, ty(I32, 1, 4), ((int32_t[]){0x3F800000, INT32_MIN, 0x7F800000, 0x7FC00000}));
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", F64);
  tc_arg(&c, ty(U64, 0), (uint64_t[]){0x3FF8000000000000ull});
  EXPECT(&c, ty(F64, 0), ((double[]){1.5}));
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", I8);
  tc_arg(&c, ty(U8, 1, 2), (uint8_t[]){255, 128});
  EXPECT(&c, ty(I8, 1, 2), ((int8_t[]){-1, -128}));
  /* bool: any nonzero byte is true, and the result is 0 or 1 */
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", BOOL);
  tc_arg(&c, ty(U8, 1, 3), (uint8_t[]){0, 1, 200});
  uint8_t *b = tc_run(__LINE__, &c, ty(BOOL, 1, 3));
  if (b) CHECK(b[0] == 0 && b[1] == 1 && b[2] == 1);
  free(b);
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", U8);
  tc_arg(&c, ty(BOOL, 1, 2), (uint8_t[]){0, 7});
  EXPECT(&c, ty(U8, 1, 2), ((uint8_t[]){0, 1}));
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", I64);
  tc_arg(&c, ty(F32, 1, 1), (float[]){1});
  EXPECT_REJECT(&c, "expected the same width");
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", (berth_dtype_t)99);
  tc_arg(&c, ty(F32, 1, 1), (float[]){1});
  EXPECT_REJECT(&c, "to");
}

/* bitcast with a 16-bit float format: f32 holding a float16 / bfloat16 value <-> its bits */
static void test_bitcast_narrow(void) {
  tcall_t c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", U16);
  tc_int(&c, "format", 0); /* BERTH_NARROW_F16 */
  /* 1, -2, 65504 (largest), inf, -0, 2^-24 (least subnormal), 2^-14 (least normal), NaN,
   * 65520 (rounds to inf), 1 + 2^-11 (tie: to 1), 3 * 2^-25 (tie between subnormals: to 2^-23),
   * 2^-25 (tie with 0: to 0), 1e-10 (to 0) */
  tc_arg(&c, ty(F32, 1, 13),
         (float[]){1, -2, 65504, finf, -0.0f, 0x1p-24f, 0x1p-14f, fnan, 65520, 1 + 0x1p-11f, 3 * 0x1p-25f, 0x1p-25f,
                   1e-10f});
  EXPECT(&c, ty(U16, 1, 13),
         ((uint16_t[]){0x3C00, 0xC000, 0x7BFF, 0x7C00, 0x8000, 0x0001, 0x0400, 0x7E00, 0x7C00, 0x3C00, 0x0002, 0, 0}));
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", F32);
  tc_int(&c, "format", 0);
  tc_arg(&c, ty(I16, 1, 7), (int16_t[]){0x3C00, (int16_t)0xC000, 0x7BFF, 0x7C00, (int16_t)0x8000, 0x0001, 0x7C01});
  float *g = tc_run(__LINE__, &c, ty(F32, 1, 7));
  if (g) {
    CHECK(g[0] == 1 && g[1] == -2 && g[2] == 65504 && g[3] == finf && g[4] == 0 && signbit(g[4]) &&
          g[5] == 0x1p-24f && isnan(g[6]));
    free(g);
  }
  /* every float16 bit pattern decodes and encodes back to itself (NaNs keep their payload) */
  static uint16_t all[65536], back[65536];
  static float vals[65536];
  for (int i = 0; i < 65536; i++) all[i] = (uint16_t)i;
  berth_type_t t16 = ty(U16, 1, 65536), t32 = ty(F32, 1, 65536);
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  berth_op_attrs_default(&berth_op_def_bitcast, a);
  a[1].i = 0;
  for (int fmt = 0; fmt < 2; fmt++) {
    a[1].i = fmt;
    a[0].i = F32;
    berth_tensor_ref_t i1 = {&t16, all}, o1 = {&t32, vals};
    berth_kernel_call_t c1 = {a, &i1, 1, &o1, 1, NULL, 0};
    berth_op_def_bitcast.run(&c1);
    a[0].i = U16;
    berth_tensor_ref_t i2 = {&t32, vals}, o2 = {&t16, back};
    berth_kernel_call_t c2 = {a, &i2, 1, &o2, 1, NULL, 0};
    berth_op_def_bitcast.run(&c2);
    int bad = 0;
    for (int i = 0; i < 65536; i++) bad += back[i] != all[i] && !(fmt == 1 && isnan(vals[i]));
    CHECK_MSG(bad == 0, "bitcast format %d: %d patterns do not round-trip", fmt, bad);
  }
  /* bfloat16: the top half of the f32, rounded to nearest even when the value is no bfloat16 */
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", I16);
  tc_int(&c, "format", 1);
  tc_arg(&c, ty(F32, 1, 4), (float[]){1, 1 + 0x1p-8f, 1 + 0x1p-7f + 0x1p-8f, -finf});
  EXPECT(&c, ty(I16, 1, 4), ((int16_t[]){0x3F80, 0x3F80, 0x3F82, (int16_t)0xFF80}));
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", I32);
  tc_int(&c, "format", 0);
  tc_arg(&c, ty(F32, 1, 1), (float[]){1});
  EXPECT_REJECT(&c, "expected f32 to i16/u16");
  c = tc_op(&berth_op_def_bitcast);
  tc_dtype(&c, "to", U16);
  tc_int(&c, "format", 5);
  tc_arg(&c, ty(F32, 1, 1), (float[]){1});
  EXPECT_REJECT(&c, "format is 5");
}

/* hardmax: the first largest, NaN counting as the largest; legacy flattens from axis on */
static void test_hardmax(void) {
  tcall_t c = tc_op(&berth_op_def_hardmax);
  tc_arg(&c, ty(F32, 2, 3, 3), (float[]){1, 3, 3, -finf, -finf, -finf, 2, fnan, fnan});
  EXPECT(&c, ty(F32, 2, 3, 3), ((float[]){0, 1, 0, 1, 0, 0, 0, 1, 0}));
  c = tc_op(&berth_op_def_hardmax);
  tc_int(&c, "axis", 0);
  tc_arg(&c, ty(F64, 2, 2, 3), (double[]){1, 5, 2, 4, 5, 1});
  EXPECT(&c, ty(F64, 2, 2, 3), ((double[]){0, 1, 1, 1, 0, 0}));
  c = tc_op(&berth_op_def_hardmax);
  tc_int(&c, "axis", 1);
  tc_int(&c, "legacy", 1);
  tc_arg(&c, ty(F32, 3, 2, 2, 2), (float[]){1, 2, 3, 0, 9, 9, 9, 9});
  EXPECT(&c, ty(F32, 3, 2, 2, 2), ((float[]){0, 0, 1, 0, 1, 0, 0, 0}));
  c = tc_op(&berth_op_def_hardmax);
  tc_int(&c, "axis", 1);
  tc_arg(&c, ty(F32, 3, 2, 0, 2), NULL);
  EXPECT(&c, ty(F32, 3, 2, 0, 2), NULL);
  c = tc_op(&berth_op_def_hardmax);
  tc_arg(&c, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&c, "expected rank >= 1");
  c = tc_op(&berth_op_def_hardmax);
  tc_int(&c, "axis", 3);
  tc_arg(&c, ty(F32, 2, 1, 1), (float[]){1});
  EXPECT_REJECT(&c, "axis");
}

/* The verifier, the loader and the interpreters call infer and run of an op without
 * attributes with attrs NULL: nothing may read them (a regression: shrink's bias check read
 * attrs[0] for every activation, and the verifier's mutation test crashed in mish). */
static void test_null_attrs(void) {
  const berth_op_def_t *defs[] = {&berth_op_def_hard_swish, &berth_op_def_mish,     &berth_op_def_softplus,
                                  &berth_op_def_softsign,   &berth_op_def_sin,      &berth_op_def_erf,
                                  &berth_op_def_sign,       &berth_op_def_round,    &berth_op_def_prelu,
                                  &berth_op_def_bitwise_and, &berth_op_def_bitwise_not};
  float x[2] = {-1, 2}, y[2];
  berth_type_t t = ty(F32, 1, 2), ti = ty(I32, 1, 2), to;
  int32_t xi[2] = {3, 5}, yi[2];
  for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++) {
    const berth_op_def_t *d = defs[k];
    CHECK_MSG(d->n_attrs == 0, "%s has attributes", d->name);
    bool ints = d == &berth_op_def_bitwise_and || d == &berth_op_def_bitwise_not;
    berth_type_t in[2] = {ints ? ti : t, ints ? ti : t};
    char msg[256];
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    CHECK_MSG(d->infer(NULL, in, d->min_in, &to, &diag) == BERTH_OK, "%s: %s", d->name, msg);
    berth_tensor_ref_t ri[2] = {{&in[0], ints ? (void *)xi : (void *)x}, {&in[1], ints ? (void *)xi : (void *)x}};
    berth_tensor_ref_t ro = {&to, ints ? (void *)yi : (void *)y};
    berth_kernel_call_t call = {NULL, ri, d->min_in, &ro, 1, NULL, 0};
    d->run(&call);
  }
}

int main(int argc, char **argv) {
  verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 12345;
  rng_state = rng_seed;
  test_null_attrs();
  test_accuracy();
  test_activation_edges();
  test_shrink_int();
  test_prelu();
  test_round();
  test_sign_erf_isinf();
  test_bit_shift();
  test_bitwise();
  test_bitcast();
  test_bitcast_narrow();
  test_hardmax();
  return test_finish("test_kernel_math");
}
