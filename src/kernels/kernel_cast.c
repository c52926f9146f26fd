/* cast(x) {dtype}: converts every element to another dtype, for all 11 x 11 pairs.
 *
 *   to bool       x != 0 (NaN is true)
 *   from bool     0 or 1 (any nonzero byte is true)
 *   int -> int    wraps modulo 2^bits (two's complement)
 *   float -> int  truncates toward zero; NaN gives 0; out-of-range values saturate
 *   others        C conversion (rounding to nearest for int -> float and f64 -> f32)
 * The float -> int rule avoids the undefined behaviour of converting an out-of-range
 * value in C. */
#include "kernel_util.h"

#include <string.h>

/* X(s, T, kind) for every dtype in BERTH_DTYPE_LIST order; kind B (bool), S, U (ints),
 * F (floats). The destination list takes the source's fields along (a macro cannot expand
 * itself, so the nested list is a separate macro). */
#define SRC_LIST(X)                                \
  X(bool, uint8_t, B)                              \
  X(i8, int8_t, S) X(u8, uint8_t, U)               \
  X(i16, int16_t, S) X(u16, uint16_t, U)           \
  X(i32, int32_t, S) X(u32, uint32_t, U)           \
  X(i64, int64_t, S) X(u64, uint64_t, U)           \
  X(f32, float, F) X(f64, double, F)
#define DST_LIST(X, ss, Ts, sk)                                                          \
  X(ss, Ts, sk, bool, uint8_t, B) X(ss, Ts, sk, i8, int8_t, S) X(ss, Ts, sk, u8, uint8_t, U) \
  X(ss, Ts, sk, i16, int16_t, S) X(ss, Ts, sk, u16, uint16_t, U)                         \
  X(ss, Ts, sk, i32, int32_t, S) X(ss, Ts, sk, u32, uint32_t, U)                         \
  X(ss, Ts, sk, i64, int64_t, S) X(ss, Ts, sk, u64, uint64_t, U)                         \
  X(ss, Ts, sk, f32, float, F) X(ss, Ts, sk, f64, double, F)

/* Saturating float -> int. (double)MAX + 1 is exactly 2^(bits-1) or 2^bits (for 64 bits
 * (double)MAX already rounds up to that power of two) and (double)MIN - 1 is MIN - 1 (or
 * rounds to MIN for 64 bits), so what passes both tests truncates to a value in range:
 * the conversion has no undefined behaviour. */
#define SAT(s, T, MINV, MAXV)                       \
  static inline T sat_##s(double x) {               \
    if (x != x) return 0;                           \
    if (x >= (double)(MAXV) + 1.0) return (MAXV);   \
    if (x <= (double)(MINV) - 1.0) return (MINV);   \
    return (T)x;                                    \
  }
SAT(i8, int8_t, INT8_MIN, INT8_MAX)
SAT(u8, uint8_t, 0, UINT8_MAX)
SAT(i16, int16_t, INT16_MIN, INT16_MAX)
SAT(u16, uint16_t, 0, UINT16_MAX)
SAT(i32, int32_t, INT32_MIN, INT32_MAX)
SAT(u32, uint32_t, 0, UINT32_MAX)
SAT(i64, int64_t, INT64_MIN, INT64_MAX)
SAT(u64, uint64_t, 0, UINT64_MAX)

/* CONV_<source kind>_<destination kind>(x, destination name, destination type) */
#define CONV_B_B(x, ds, dT) (dT)((x) != 0)
#define CONV_B_S(x, ds, dT) (dT)((x) != 0)
#define CONV_B_U(x, ds, dT) (dT)((x) != 0)
#define CONV_B_F(x, ds, dT) (dT)((x) != 0)
#define CONV_S_B(x, ds, dT) (dT)((x) != 0)
#define CONV_U_B(x, ds, dT) (dT)((x) != 0)
#define CONV_F_B(x, ds, dT) (dT)((x) != 0)
#define CONV_S_S(x, ds, dT) (dT)(x)
#define CONV_S_U(x, ds, dT) (dT)(x)
#define CONV_S_F(x, ds, dT) (dT)(x)
#define CONV_U_S(x, ds, dT) (dT)(x)
#define CONV_U_U(x, ds, dT) (dT)(x)
#define CONV_U_F(x, ds, dT) (dT)(x)
#define CONV_F_F(x, ds, dT) (dT)(x)
#define CONV_F_S(x, ds, dT) sat_##ds((double)(x))
#define CONV_F_U(x, ds, dT) sat_##ds((double)(x))

#define CAST_PAIR(ss, Ts, sk, ds, dT, dk)                                \
  static void cast_##ss##_##ds(void *o_, const void *a_, int64_t n) {    \
    dT *restrict o = (dT *)o_;                                           \
    const Ts *restrict a = (const Ts *)a_;                               \
    BERTH_VLOOP(i, n, o[i] = CONV_##sk##_##dk(a[i], ds, dT););           \
  }
#define CAST_SRC(ss, Ts, sk) DST_LIST(CAST_PAIR, ss, Ts, sk)
SRC_LIST(CAST_SRC)

/* The table [source][destination], spelled with the dtype names' enum values. */
#define ENTRY(ss, Ts, sk, ds, dT, dk) cast_##ss##_##ds,
#define ROW(ss, Ts, sk) {DST_LIST(ENTRY, ss, Ts, sk)},
/* Both lists follow BERTH_DTYPE_LIST order, so positional initializers index by dtype. */
_Static_assert(BERTH_DTYPE_BOOL == 0 && BERTH_DTYPE_I8 == 1 && BERTH_DTYPE_U8 == 2 && BERTH_DTYPE_I16 == 3 &&
                   BERTH_DTYPE_U16 == 4 && BERTH_DTYPE_I32 == 5 && BERTH_DTYPE_U32 == 6 &&
                   BERTH_DTYPE_I64 == 7 && BERTH_DTYPE_U64 == 8 && BERTH_DTYPE_F32 == 9 &&
                   BERTH_DTYPE_F64 == 10 && BERTH_DTYPE_COUNT == 11,
               "cast tables follow BERTH_DTYPE_LIST order");
static const berth_row1_fn cast_rows[BERTH_DTYPE_COUNT][BERTH_DTYPE_COUNT] = {SRC_LIST(ROW)};

static berth_status_t cast_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                 berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_cast, in, n_in, diag));
  berth_dtype_t to;
  BERTH_TRY(berth_kernel_get_dtype("cast", "dtype", &attrs[0], &to, diag));
  berth_type_t t;
  berth_kernel_type_init(&t, to, in[0].rank);
  memcpy(t.dims, in[0].dims, (size_t)in[0].rank * sizeof t.dims[0]);
  BERTH_TRY(berth_kernel_check_output("cast", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void cast_run(const berth_kernel_call_t *call) {
  const berth_type_t *ti = call->in[0].type, *to = call->out[0].type;
  cast_rows[ti->dtype][to->dtype](call->out[0].data, call->in[0].data, berth_type_numel(ti));
}

static const berth_attr_spec_t cast_attrs[] = {{"dtype", BERTH_ATTR_DTYPE, true, 0, 0}};
const berth_op_def_t berth_op_def_cast = {"cast", BERTH_OPKIND_KERNEL, 1, 1, 1, 1, cast_attrs,
                                          cast_infer, cast_run};
