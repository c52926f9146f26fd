/* narrow_cast(x) {format, saturate, round_mode}: every element of x (any dtype) stored in a
 * narrow format and read back in the format's compute dtype (kernel_narrow.h): f32 for
 * float16, bfloat16, the float8 types and float4e2m1; i8 / u8 for the 4- and 2-bit
 * integers. The ONNX importer follows each Cast to such a type, and each node that computes
 * one, with it, so that a float16 model rounds where a float16 implementation would.
 *
 * Float formats round from the source value as a double (exact for f32 and f64; 64-bit
 * integers are first narrowed to 53 bits with round-to-odd, which keeps the one rounding
 * to the format correct). f32 -> float16 and f32 -> bfloat16, the common cases, work on the
 * bits directly. */
#include "kernel_narrow.h"

#include "kernel_util.h"

#include <math.h>
#include <string.h>

/* ==== float formats ==================================================================== */

/* How a format uses its top codes:
 *   IEEE  all-ones exponent is inf or NaN (float16, bfloat16, float8e5m2)
 *   FN    only all-ones exponent and mantissa is NaN, no inf (float8e4m3fn)
 *   FNUZ  only the code of -0 is NaN: no inf, no -0 (the fnuz float8 types)
 *   NONE  every code is a number (float4e2m1) */
typedef enum { NF_IEEE, NF_FN, NF_FNUZ, NF_NONE } nf_kind_t;

typedef struct nf {
  int32_t mbits; /* stored mantissa bits */
  int32_t emin;  /* exponent of the smallest normal value (1 - bias) */
  nf_kind_t kind;
  double max; /* largest finite value */
} nf_t;

static const nf_t nf_formats[BERTH_NARROW_F4E2M1 + 1] = {
    [BERTH_NARROW_F16] = {10, -14, NF_IEEE, 65504.0},
    [BERTH_NARROW_BF16] = {7, -126, NF_IEEE, 0x1.fep127},
    [BERTH_NARROW_F8E4M3FN] = {3, -6, NF_FN, 448.0},
    [BERTH_NARROW_F8E4M3FNUZ] = {3, -7, NF_FNUZ, 240.0},
    [BERTH_NARROW_F8E5M2] = {2, -14, NF_IEEE, 57344.0},
    [BERTH_NARROW_F8E5M2FNUZ] = {2, -15, NF_FNUZ, 57344.0},
    [BERTH_NARROW_F4E2M1] = {1, 0, NF_NONE, 6.0},
};

/* q >= 0 (below 2^53) rounded to an integer, ties to even, whatever the FPU rounding mode. */
static inline double round_half_even(double q) {
  double r = floor(q), d = q - r;
  if (d > 0.5 || (d == 0.5 && ((int64_t)r & 1))) r += 1.0;
  return r;
}

static double nf_round(const nf_t *f, double x, bool saturate) {
  if (x != x) return f->kind == NF_NONE ? -0.0 : NAN; /* float4e2m1 has no NaN: -0, as ONNX's Cast */
  bool neg = signbit(x) != 0;
  /* float16 and bfloat16 overflow to inf as IEEE does; saturate is for the float8 types */
  bool wide = f->kind == NF_IEEE && f->mbits >= 7;
  double a = fabs(x), v;
  if (isinf(a)) {
    if (wide) return x;
    if (!saturate && f->kind != NF_NONE) return f->kind == NF_IEEE ? x : NAN;
    v = f->max;
  } else {
    int e;
    (void)frexp(a, &e); /* a = fr * 2^e, fr in [0.5, 1): a's exponent is e - 1 */
    int ex = e - 1 < f->emin ? f->emin : e - 1;
    double step = ldexp(1.0, ex - f->mbits); /* the spacing of the format at a */
    v = round_half_even(a / step) * step;
    if (v > f->max) {
      if (wide) v = INFINITY;
      else if (saturate || f->kind == NF_NONE) v = f->max;
      else if (f->kind == NF_IEEE) v = INFINITY;
      else return NAN;
    }
  }
  if (v == 0 && f->kind == NF_FNUZ) return 0.0;
  return neg ? -v : v;
}

/* float8e8m0: unsigned powers of two; the sign is dropped, 0 gives the smallest. */
static double e8m0_round(double x, bool saturate, berth_narrow_round_t mode) {
  if (isnan(x) || isinf(x)) return saturate && isinf(x) && x > 0 ? 0x1p127 : NAN;
  double a = fabs(x);
  if (a == 0) return 0x1p-127;
  int e;
  double fr = 2 * frexp(a, &e); /* a = fr * 2^k, fr in [1, 2) */
  int k = e - 1;
  if (fr > 1.0 && (mode == BERTH_NARROW_ROUND_UP || (mode == BERTH_NARROW_ROUND_NEAREST && fr >= 1.5))) k++;
  if (k < -127) k = -127;
  if (k > 127) return saturate ? 0x1p127 : NAN;
  return ldexp(1.0, k);
}

/* f32 -> float16 -> f32 on the bits: round to nearest even at the float16 spacing. */
static inline float f16_round_f32(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  uint32_t sign = u & 0x80000000u, a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return x;               /* inf, NaN */
  if (a >= 0x477ff000u) {                       /* 65520 and above round past 65504: inf */
    a = 0x7f800000u;
  } else if (a >= 0x38800000u) {                /* 2^-14 and above: keep 10 mantissa bits */
    a += 0xfffu + ((a >> 13) & 1u);
    a &= ~0x1fffu;
  } else {                                      /* float16 subnormals: multiples of 2^-24 */
    uint32_t be = a >> 23;                      /* biased exponent, at most 112 */
    if (be <= 101) {
      a = 0;                                    /* below 2^-25 */
    } else {
      uint32_t s = (a & 0x7fffffu) | 0x800000u, d = 126 - be; /* value = s * 2^-24 / 2^d */
      uint32_t r = s >> d, rem = s & ((1u << d) - 1), half = 1u << (d - 1);
      r += rem > half || (rem == half && (r & 1u));
      float v = (float)r * 0x1p-24f;
      memcpy(&a, &v, 4);
    }
  }
  u = sign | a;
  memcpy(&x, &u, 4);
  return x;
}

/* f32 -> bfloat16 -> f32: bfloat16 is the top half of an f32, rounded to nearest even. */
static inline float bf16_round_f32(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return x; /* NaN (its payload may sit in the low half) */
  u += 0x7fffu + ((u >> 16) & 1u);
  u &= 0xffff0000u;
  memcpy(&x, &u, 4);
  return x;
}

/* A 64-bit integer magnitude as a double rounded to odd at 53 bits: any later rounding to
 * 52 bits or fewer then gives what rounding the integer itself would. */
static double u64_to_double_odd(uint64_t m) {
  int sh = 0;
  while ((m >> sh) >> 53) sh++;
  if (sh == 0) return (double)m;
  uint64_t kept = m >> sh;
  if (m & (((uint64_t)1 << sh) - 1)) kept |= 1;
  return ldexp((double)kept, sh);
}

static double i64_to_double_odd(int64_t v) {
  double d = u64_to_double_odd(v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
  return v < 0 ? -d : d;
}

static double load_double(berth_dtype_t dt, const void *p, int64_t i) {
  switch (dt) {
    case BERTH_DTYPE_BOOL: return ((const uint8_t *)p)[i] != 0;
    case BERTH_DTYPE_I8: return ((const int8_t *)p)[i];
    case BERTH_DTYPE_U8: return ((const uint8_t *)p)[i];
    case BERTH_DTYPE_I16: return ((const int16_t *)p)[i];
    case BERTH_DTYPE_U16: return ((const uint16_t *)p)[i];
    case BERTH_DTYPE_I32: return ((const int32_t *)p)[i];
    case BERTH_DTYPE_U32: return ((const uint32_t *)p)[i];
    case BERTH_DTYPE_I64: return i64_to_double_odd(((const int64_t *)p)[i]);
    case BERTH_DTYPE_U64: return u64_to_double_odd(((const uint64_t *)p)[i]);
    case BERTH_DTYPE_F32: return ((const float *)p)[i];
    case BERTH_DTYPE_F64: return ((const double *)p)[i];
    default: return 0;
  }
}

/* ==== integer formats ================================================================== */

/* The integer value of element i: floats round half to even (NaN 0) and saturate to int64. */
static int64_t load_int(berth_dtype_t dt, const void *p, int64_t i) {
  switch (dt) {
    case BERTH_DTYPE_I64: return ((const int64_t *)p)[i];
    case BERTH_DTYPE_U64: return (int64_t)((const uint64_t *)p)[i]; /* the low bits are what count */
    case BERTH_DTYPE_F32:
    case BERTH_DTYPE_F64: {
      double d = load_double(dt, p, i);
      if (d != d) return 0;
      if (d >= 0x1p63) return INT64_MAX;
      if (d <= -0x1p63) return INT64_MIN;
      double r = round_half_even(fabs(d));
      return d < 0 ? -(int64_t)r : (int64_t)r;
    }
    default: return (int64_t)load_double(dt, p, i);
  }
}

/* ==== the conversion ==================================================================== */

berth_dtype_t berth_narrow_dtype(berth_narrow_format_t format) {
  switch (format) {
    case BERTH_NARROW_I4:
    case BERTH_NARROW_I2: return BERTH_DTYPE_I8;
    case BERTH_NARROW_U4:
    case BERTH_NARROW_U2: return BERTH_DTYPE_U8;
    default: return BERTH_DTYPE_F32;
  }
}

void berth_narrow_convert(berth_narrow_format_t format, bool saturate, berth_narrow_round_t round_mode,
                          berth_dtype_t from, const void *src, void *dst, int64_t n) {
  float *fo = (float *)dst;
  if (from == BERTH_DTYPE_F32 && format == BERTH_NARROW_F16) {
    const float *restrict a = (const float *)src;
    for (int64_t i = 0; i < n; i++) fo[i] = f16_round_f32(a[i]);
    return;
  }
  if (from == BERTH_DTYPE_F32 && format == BERTH_NARROW_BF16) {
    const float *restrict a = (const float *)src;
    BERTH_VLOOP(i, n, fo[i] = bf16_round_f32(a[i]););
    return;
  }
  if (format == BERTH_NARROW_F8E8M0) {
    for (int64_t i = 0; i < n; i++) fo[i] = (float)e8m0_round(load_double(from, src, i), saturate, round_mode);
    return;
  }
  if (format <= BERTH_NARROW_F4E2M1) {
    const nf_t *f = &nf_formats[format];
    /* every value of these formats is exact in f32 */
    for (int64_t i = 0; i < n; i++) fo[i] = (float)nf_round(f, load_double(from, src, i), saturate);
    return;
  }
  /* 4- and 2-bit integers: the integer value modulo 2^bits */
  int bits = format == BERTH_NARROW_I4 || format == BERTH_NARROW_U4 ? 4 : 2;
  uint32_t mask = (1u << bits) - 1, top = 1u << (bits - 1);
  if (format == BERTH_NARROW_I4 || format == BERTH_NARROW_I2) {
    int8_t *o = (int8_t *)dst;
    for (int64_t i = 0; i < n; i++) {
      uint32_t v = (uint32_t)((uint64_t)load_int(from, src, i) & mask);
      o[i] = (int8_t)((int32_t)(v ^ top) - (int32_t)top);
    }
  } else {
    uint8_t *o = (uint8_t *)dst;
    for (int64_t i = 0; i < n; i++) o[i] = (uint8_t)((uint64_t)load_int(from, src, i) & mask);
  }
}

/* ==== the kernel ========================================================================= */

enum { NC_FORMAT, NC_SATURATE, NC_ROUND_MODE };

static berth_status_t narrow_cast_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                        berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_narrow_cast, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("narrow_cast", 0, in[0].dtype, BERTH_MASK_ALL, diag));
  int64_t f = attrs[NC_FORMAT].i, rm = attrs[NC_ROUND_MODE].i;
  if (f < 0 || f >= BERTH_NARROW_FORMAT_COUNT)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "narrow_cast: format %lld is out of range, expected 0 to %d (0 f16, 1 bf16, 2 f8e4m3fn, "
                      "3 f8e4m3fnuz, 4 f8e5m2, 5 f8e5m2fnuz, 6 f4e2m1, 7 f8e8m0, 8 i4, 9 u4, 10 i2, 11 u2)",
                      (long long)f, BERTH_NARROW_FORMAT_COUNT - 1);
  bool sat;
  BERTH_TRY(berth_kernel_get_flag("narrow_cast", "saturate", &attrs[NC_SATURATE], &sat, diag));
  if (rm < 0 || rm >= BERTH_NARROW_ROUND_COUNT)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "narrow_cast: round_mode %lld is out of range, expected 0 (up), 1 (down) or 2 (nearest)",
                      (long long)rm);
  out[0] = in[0];
  out[0].dtype = berth_narrow_dtype((berth_narrow_format_t)f);
  return BERTH_OK;
}

static void narrow_cast_run(const berth_kernel_call_t *call) {
  const berth_attr_value_t *a = call->attrs;
  berth_narrow_convert((berth_narrow_format_t)a[NC_FORMAT].i, a[NC_SATURATE].i != 0,
                       (berth_narrow_round_t)a[NC_ROUND_MODE].i, call->in[0].type->dtype, call->in[0].data,
                       call->out[0].data, berth_type_numel(call->in[0].type));
}

static const berth_attr_spec_t narrow_cast_attrs[] = {
    {"format", BERTH_ATTR_INT, true, 0, 0},
    {"saturate", BERTH_ATTR_INT, false, 1, 0},
    {"round_mode", BERTH_ATTR_INT, false, BERTH_NARROW_ROUND_UP, 0},
};
const berth_op_def_t berth_op_def_narrow_cast = {"narrow_cast", BERTH_OPKIND_KERNEL, 1, 1, 1, 3,
                                                 narrow_cast_attrs, narrow_cast_infer, narrow_cast_run};
