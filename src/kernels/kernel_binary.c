/* Elementwise binary ops with numpy broadcasting: arithmetic (add sub mul div pow minimum
 * maximum), comparisons (eq ne lt le gt ge, output bool) and logical ops on bool.
 *
 * Both operands have the same dtype (no promotion). Each (op, dtype) pair gets its own row
 * function from one expression; a NULL entry in an op's row table means the dtype is not
 * supported, and infer rejects exactly those, so infer and run cannot disagree. Integer
 * arithmetic wraps (it is done in unsigned types), integer division by zero gives 0 and
 * INT_MIN / -1 wraps to INT_MIN. */
#include "kernel_util.h"

#include <math.h>

/* ---- row function generator ----------------------------------------------------------
 * EXPR computes one output from A and B (of type TI). The four loops cover the stride
 * flags of the innermost dim; each is a plain counted loop that the compiler vectorizes
 * (BERTH_VLOOP). */
#define DEFINE_ROW2(fname, TI, TO, EXPR)                                                     \
  static void fname(void *o_, const void *a_, const void *b_, int64_t n, int sa, int sb) { \
    TO *restrict o = (TO *)o_;                                                               \
    const TI *restrict pa = (const TI *)a_;                                                  \
    const TI *restrict pb = (const TI *)b_;                                                  \
    if (sa && sb) {                                                                          \
      BERTH_VLOOP(i, n, TI A = pa[i]; TI B = pb[i]; o[i] = (TO)(EXPR););                     \
    } else if (sa) {                                                                         \
      TI B = pb[0];                                                                          \
      BERTH_VLOOP(i, n, TI A = pa[i]; o[i] = (TO)(EXPR););                                   \
    } else if (sb) {                                                                         \
      TI A = pa[0];                                                                          \
      BERTH_VLOOP(i, n, TI B = pb[i]; o[i] = (TO)(EXPR););                                   \
    } else {                                                                                 \
      TI A = pa[0], B = pb[0];                                                               \
      TO r = (TO)(EXPR);                                                                     \
      BERTH_VLOOP(i, n, o[i] = r;);                                                          \
    }                                                                                        \
  }

/* ---- scalar helpers per dtype ----------------------------------------------------------- */

#define INT_HELPERS(E, s, T, U)                                                         \
  static inline T add_##s(T a, T b) { return (T)((U)a + (U)b); }                        \
  static inline T sub_##s(T a, T b) { return (T)((U)a - (U)b); }                        \
  static inline T mul_##s(T a, T b) { return (T)((U)a * (U)b); }                        \
  static inline T powu_##s(T a, U e) {                                                  \
    U r = 1, base = (U)a;                                                               \
    while (e) {                                                                         \
      if (e & 1u) r *= base;                                                            \
      base *= base;                                                                     \
      e >>= 1;                                                                          \
    }                                                                                   \
    return (T)r;                                                                        \
  }
BERTH_KERNEL_INT_LIST(INT_HELPERS)

/* Signed: b == 0 gives 0; b == -1 negates with wrap-around (INT_MIN / -1 == INT_MIN).
 * A negative exponent gives 1 for base 1, +-1 for base -1, else 0 (the integer part). */
#define SINT_HELPERS(E, s, T, U)                                                  \
  static inline T div_##s(T a, T b) {                                             \
    if (b == 0) return 0;                                                         \
    if (b == -1) return (T)((U)0 - (U)a);                                         \
    return (T)(a / b);                                                            \
  }                                                                               \
  static inline T pow_##s(T a, T b) {                                             \
    if (b < 0) return a == 1 ? (T)1 : a == -1 ? (T)(((U)b & 1u) ? -1 : 1) : (T)0; \
    return powu_##s(a, (U)b);                                                     \
  }
BERTH_KERNEL_SINT_LIST(SINT_HELPERS)

#define UINT_HELPERS(E, s, T, U)                                                 \
  static inline T div_##s(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }       \
  static inline T pow_##s(T a, T b) { return powu_##s(a, (U)b); }
BERTH_KERNEL_UINT_LIST(UINT_HELPERS)

/* Float minimum/maximum propagate NaN (either operand NaN gives NaN). */
#define FLOAT_HELPERS(E, s, T, U)                                              \
  static inline T add_##s(T a, T b) { return a + b; }                          \
  static inline T sub_##s(T a, T b) { return a - b; }                          \
  static inline T mul_##s(T a, T b) { return a * b; }                          \
  static inline T div_##s(T a, T b) { return a / b; }                          \
  static inline T min_##s(T a, T b) { return (a < b || a != a) ? a : b; }      \
  static inline T max_##s(T a, T b) { return (a > b || a != a) ? a : b; }
BERTH_KERNEL_FLOAT_LIST(FLOAT_HELPERS)
/* Small integer exponents as multiplications (the STFT's power spectrum is Pow(x, 2)):
 * a * a is the correctly rounded square (glibc's powf is within 0.82 ulp of it, usually
 * equal); a^3 and a^4 are formed in double,
 * where the products of two or three floats are exact or nearly so, then rounded once, so
 * they agree with a correctly rounded powf except in rare double-rounding cases (1 ulp).
 * Overflow gives inf as powf does. Everything else (and f64 beyond a^2) is libm's pow. */
static inline float pow_f32(float a, float b) {
  if (b == 2.0f) return a * a;
  if (b == 1.0f) return a;
  if (b == 3.0f) return (float)((double)a * a * a);
  if (b == 4.0f) {
    double a2 = (double)a * a;
    return (float)(a2 * a2);
  }
  return powf(a, b);
}
static inline double pow_f64(double a, double b) { return b == 2.0 ? a * a : pow(a, b); }

#define INT_MINMAX(E, s, T, U)                                            \
  static inline T min_##s(T a, T b) { return a < b ? a : b; }             \
  static inline T max_##s(T a, T b) { return a > b ? a : b; }
BERTH_KERNEL_INT_LIST(INT_MINMAX)

/* ---- row functions and per-op tables ----------------------------------------------- */

#define ARITH_ROWS(E, s, T, U)                                 \
  DEFINE_ROW2(add_row_##s, T, T, add_##s(A, B))                \
  DEFINE_ROW2(sub_row_##s, T, T, sub_##s(A, B))                \
  DEFINE_ROW2(mul_row_##s, T, T, mul_##s(A, B))                \
  DEFINE_ROW2(div_row_##s, T, T, div_##s(A, B))                \
  DEFINE_ROW2(pow_row_##s, T, T, pow_##s(A, B))                \
  DEFINE_ROW2(minimum_row_##s, T, T, min_##s(A, B))            \
  DEFINE_ROW2(maximum_row_##s, T, T, max_##s(A, B))
BERTH_KERNEL_NUM_LIST(ARITH_ROWS)

/* Comparisons: bool operands compare as 0/1 whatever nonzero byte they hold. */
#define CMP_ROWS(E, s, T, U)                       \
  DEFINE_ROW2(eq_row_##s, T, uint8_t, A == B)      \
  DEFINE_ROW2(ne_row_##s, T, uint8_t, A != B)      \
  DEFINE_ROW2(lt_row_##s, T, uint8_t, A < B)       \
  DEFINE_ROW2(le_row_##s, T, uint8_t, A <= B)      \
  DEFINE_ROW2(gt_row_##s, T, uint8_t, A > B)       \
  DEFINE_ROW2(ge_row_##s, T, uint8_t, A >= B)
BERTH_KERNEL_NUM_LIST(CMP_ROWS)
DEFINE_ROW2(eq_row_bool, uint8_t, uint8_t, (A != 0) == (B != 0))
DEFINE_ROW2(ne_row_bool, uint8_t, uint8_t, (A != 0) != (B != 0))
DEFINE_ROW2(lt_row_bool, uint8_t, uint8_t, (A != 0) < (B != 0))
DEFINE_ROW2(le_row_bool, uint8_t, uint8_t, (A != 0) <= (B != 0))
DEFINE_ROW2(gt_row_bool, uint8_t, uint8_t, (A != 0) > (B != 0))
DEFINE_ROW2(ge_row_bool, uint8_t, uint8_t, (A != 0) >= (B != 0))

DEFINE_ROW2(logical_and_row_bool, uint8_t, uint8_t, (A != 0) & (B != 0))
DEFINE_ROW2(logical_or_row_bool, uint8_t, uint8_t, (A != 0) | (B != 0))
DEFINE_ROW2(logical_xor_row_bool, uint8_t, uint8_t, (A != 0) ^ (B != 0))

#define NUM_TABLE(op)                                                        \
  static const berth_row2_fn op##_rows[BERTH_DTYPE_COUNT] = {                \
      [BERTH_DTYPE_I8] = op##_row_i8,   [BERTH_DTYPE_U8] = op##_row_u8,      \
      [BERTH_DTYPE_I16] = op##_row_i16, [BERTH_DTYPE_U16] = op##_row_u16,    \
      [BERTH_DTYPE_I32] = op##_row_i32, [BERTH_DTYPE_U32] = op##_row_u32,    \
      [BERTH_DTYPE_I64] = op##_row_i64, [BERTH_DTYPE_U64] = op##_row_u64,    \
      [BERTH_DTYPE_F32] = op##_row_f32, [BERTH_DTYPE_F64] = op##_row_f64,    \
  };
#define ALL_TABLE(op)                                                        \
  static const berth_row2_fn op##_rows[BERTH_DTYPE_COUNT] = {                \
      [BERTH_DTYPE_BOOL] = op##_row_bool,                                    \
      [BERTH_DTYPE_I8] = op##_row_i8,   [BERTH_DTYPE_U8] = op##_row_u8,      \
      [BERTH_DTYPE_I16] = op##_row_i16, [BERTH_DTYPE_U16] = op##_row_u16,    \
      [BERTH_DTYPE_I32] = op##_row_i32, [BERTH_DTYPE_U32] = op##_row_u32,    \
      [BERTH_DTYPE_I64] = op##_row_i64, [BERTH_DTYPE_U64] = op##_row_u64,    \
      [BERTH_DTYPE_F32] = op##_row_f32, [BERTH_DTYPE_F64] = op##_row_f64,    \
  };
#define BOOL_TABLE(op) \
  static const berth_row2_fn op##_rows[BERTH_DTYPE_COUNT] = {[BERTH_DTYPE_BOOL] = op##_row_bool};

NUM_TABLE(add)
NUM_TABLE(sub)
NUM_TABLE(mul)
NUM_TABLE(div)
NUM_TABLE(pow)
NUM_TABLE(minimum)
NUM_TABLE(maximum)
ALL_TABLE(eq)
ALL_TABLE(ne)
ALL_TABLE(lt)
ALL_TABLE(le)
ALL_TABLE(gt)
ALL_TABLE(ge)
BOOL_TABLE(logical_and)
BOOL_TABLE(logical_or)
BOOL_TABLE(logical_xor)

/* ---- infer and run ------------------------------------------------------------------ */

static berth_status_t binary_infer(const berth_op_def_t *def, const berth_row2_fn *rows, bool to_bool,
                                   const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                   berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  uint32_t mask = 0;
  for (int d = 0; d < BERTH_DTYPE_COUNT; d++)
    if (rows[d]) mask |= 1u << d;
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, mask, diag));
  BERTH_TRY(berth_kernel_check_same_dtype(def->name, in, 0, 1, diag));
  berth_type_t t;
  berth_kernel_type_init(&t, to_bool ? BERTH_DTYPE_BOOL : in[0].dtype, 0);
  BERTH_TRY(berth_kernel_broadcast(def->name, in, 2, &t, diag));
  BERTH_TRY(berth_kernel_check_output(def->name, &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void binary_run(const berth_kernel_call_t *call, const berth_row2_fn *rows) {
  const berth_type_t *ta = call->in[0].type;
  size_t isz = berth_dtype_size(ta->dtype), osz = berth_dtype_size(call->out[0].type->dtype);
  berth_bcast_t plan;
  berth_bcast_init(&plan, call->out[0].type, call->in, 2);
  berth_bcast_run2(&plan, rows[ta->dtype], call->out[0].data, osz, call->in[0].data, isz,
                   call->in[1].data, isz);
}

#define DEFINE_BINARY(op, to_bool)                                                              \
  static berth_status_t op##_infer(const berth_attr_value_t *attrs, const berth_type_t *in,     \
                                   int32_t n_in, berth_type_t *out, berth_diag_t *diag) {       \
    return binary_infer(&berth_op_def_##op, op##_rows, to_bool, in, n_in, out, diag);           \
  }                                                                                             \
  static void op##_run(const berth_kernel_call_t *call) { binary_run(call, op##_rows); }        \
  const berth_op_def_t berth_op_def_##op = {#op, BERTH_OPKIND_KERNEL, 2, 2, 1, 0, NULL,         \
                                            op##_infer, op##_run};

DEFINE_BINARY(add, false)
DEFINE_BINARY(sub, false)
DEFINE_BINARY(mul, false)
DEFINE_BINARY(div, false)
DEFINE_BINARY(pow, false)
DEFINE_BINARY(minimum, false)
DEFINE_BINARY(maximum, false)
DEFINE_BINARY(eq, true)
DEFINE_BINARY(ne, true)
DEFINE_BINARY(lt, true)
DEFINE_BINARY(le, true)
DEFINE_BINARY(gt, true)
DEFINE_BINARY(ge, true)
DEFINE_BINARY(logical_and, true)
DEFINE_BINARY(logical_or, true)
DEFINE_BINARY(logical_xor, true)
