/* Elementwise unary ops: neg abs sqrt exp log relu sigmoid tanh logical_not isnan clone.
 *
 * Output shape = input shape, so every op is one flat loop. As in kernel_binary.c each op
 * has a row table indexed by dtype; a NULL entry is a dtype infer rejects. Integer neg and
 * abs wrap (neg of INT_MIN is INT_MIN). */
#include "kernel_isa.h"
#include "kernel_util.h"

#include <math.h>
#include <string.h>

#define DEFINE_ROW1(fname, TI, TO, EXPR)                         \
  static void fname(void *o_, const void *a_, int64_t n) {       \
    TO *restrict o = (TO *)o_;                                   \
    const TI *restrict pa = (const TI *)a_;                      \
    BERTH_VLOOP(i, n, TI A = pa[i]; o[i] = (TO)(EXPR););         \
  }

/* Signed integers: arithmetic in U so that INT_MIN does not overflow. */
#define SINT_ROWS(E, s, T, U)                                               \
  DEFINE_ROW1(neg_row_##s, T, T, (U)0 - (U)A)                               \
  DEFINE_ROW1(abs_row_##s, T, T, A < 0 ? (U)0 - (U)A : (U)A)                \
  DEFINE_ROW1(relu_row_##s, T, T, A < 0 ? 0 : A)
BERTH_KERNEL_SINT_LIST(SINT_ROWS)

#define UINT_ROWS(E, s, T, U) DEFINE_ROW1(abs_row_##s, T, T, A)
BERTH_KERNEL_UINT_LIST(UINT_ROWS)

/* Floats. relu keeps NaN (A < 0 is false for NaN). f32 exp, sigmoid and tanh are the
 * active kernel variant's vectorized ones (kernel_isa.h; accuracy in kernel_vmath.h), f32
 * sqrt its square-root instruction (correctly rounded as sqrtf, NaN below 0); f64 ones are
 * libm's, sigmoid saturating to 0 and 1 through exp overflowing to inf. */
DEFINE_ROW1(neg_row_f32, float, float, -A)
DEFINE_ROW1(neg_row_f64, double, double, -A)
DEFINE_ROW1(abs_row_f32, float, float, fabsf(A))
DEFINE_ROW1(abs_row_f64, double, double, fabs(A))
DEFINE_ROW1(relu_row_f32, float, float, A < 0 ? 0.0f : A)
DEFINE_ROW1(relu_row_f64, double, double, A < 0 ? 0.0 : A)
static void sqrt_row_f32(void *o, const void *a, int64_t n) {
  BERTH_KCALL(sqrt_f32)((const float *)a, (float *)o, n);
}
DEFINE_ROW1(sqrt_row_f64, double, double, sqrt(A))
static void exp_row_f32(void *o, const void *a, int64_t n) {
  BERTH_KCALL(exp_f32)((const float *)a, (float *)o, n);
}
DEFINE_ROW1(exp_row_f64, double, double, exp(A))
DEFINE_ROW1(log_row_f32, float, float, logf(A))
DEFINE_ROW1(log_row_f64, double, double, log(A))
static void sigmoid_row_f32(void *o, const void *a, int64_t n) {
  BERTH_KCALL(sigmoid_f32)((const float *)a, (float *)o, n);
}
DEFINE_ROW1(sigmoid_row_f64, double, double, 1.0 / (1.0 + exp(-A)))
static void tanh_row_f32(void *o, const void *a, int64_t n) {
  BERTH_KCALL(tanh_f32)((const float *)a, (float *)o, n);
}
DEFINE_ROW1(tanh_row_f64, double, double, tanh(A))
DEFINE_ROW1(isnan_row_f32, float, uint8_t, A != A)
DEFINE_ROW1(isnan_row_f64, double, uint8_t, A != A)
DEFINE_ROW1(logical_not_row_bool, uint8_t, uint8_t, A == 0)

#define SIGNED_ENTRIES(op)                                                   \
  [BERTH_DTYPE_I8] = op##_row_i8, [BERTH_DTYPE_I16] = op##_row_i16,          \
  [BERTH_DTYPE_I32] = op##_row_i32, [BERTH_DTYPE_I64] = op##_row_i64
#define UNSIGNED_ENTRIES(op)                                                 \
  [BERTH_DTYPE_U8] = op##_row_u8, [BERTH_DTYPE_U16] = op##_row_u16,          \
  [BERTH_DTYPE_U32] = op##_row_u32, [BERTH_DTYPE_U64] = op##_row_u64
#define FLOAT_ENTRIES(op) [BERTH_DTYPE_F32] = op##_row_f32, [BERTH_DTYPE_F64] = op##_row_f64

static const berth_row1_fn neg_rows[BERTH_DTYPE_COUNT] = {SIGNED_ENTRIES(neg), FLOAT_ENTRIES(neg)};
static const berth_row1_fn abs_rows[BERTH_DTYPE_COUNT] = {SIGNED_ENTRIES(abs), UNSIGNED_ENTRIES(abs),
                                                          FLOAT_ENTRIES(abs)};
static const berth_row1_fn relu_rows[BERTH_DTYPE_COUNT] = {SIGNED_ENTRIES(relu), FLOAT_ENTRIES(relu)};
static const berth_row1_fn sqrt_rows[BERTH_DTYPE_COUNT] = {FLOAT_ENTRIES(sqrt)};
static const berth_row1_fn exp_rows[BERTH_DTYPE_COUNT] = {FLOAT_ENTRIES(exp)};
static const berth_row1_fn log_rows[BERTH_DTYPE_COUNT] = {FLOAT_ENTRIES(log)};
static const berth_row1_fn sigmoid_rows[BERTH_DTYPE_COUNT] = {FLOAT_ENTRIES(sigmoid)};
static const berth_row1_fn tanh_rows[BERTH_DTYPE_COUNT] = {FLOAT_ENTRIES(tanh)};
static const berth_row1_fn isnan_rows[BERTH_DTYPE_COUNT] = {FLOAT_ENTRIES(isnan)};
static const berth_row1_fn logical_not_rows[BERTH_DTYPE_COUNT] = {[BERTH_DTYPE_BOOL] = logical_not_row_bool};

/* ---- infer and run ------------------------------------------------------------------ */

static berth_status_t unary_infer(const berth_op_def_t *def, uint32_t mask, bool to_bool,
                                  const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                  berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, mask, diag));
  berth_type_t t;
  berth_kernel_type_init(&t, to_bool ? BERTH_DTYPE_BOOL : in[0].dtype, in[0].rank);
  memcpy(t.dims, in[0].dims, (size_t)in[0].rank * sizeof t.dims[0]);
  out[0] = t;
  return BERTH_OK;
}

static uint32_t rows_mask(const berth_row1_fn *rows) {
  uint32_t mask = 0;
  for (int d = 0; d < BERTH_DTYPE_COUNT; d++)
    if (rows[d]) mask |= 1u << d;
  return mask;
}

#define DEFINE_UNARY(op, to_bool)                                                                  \
  static berth_status_t op##_infer(const berth_attr_value_t *attrs, const berth_type_t *in,        \
                                   int32_t n_in, berth_type_t *out, berth_diag_t *diag) {          \
    return unary_infer(&berth_op_def_##op, rows_mask(op##_rows), to_bool, in, n_in, out, diag);    \
  }                                                                                                \
  static void op##_run(const berth_kernel_call_t *call) {                                          \
    const berth_type_t *t = call->in[0].type;                                                      \
    op##_rows[t->dtype](call->out[0].data, call->in[0].data, berth_type_numel(t));                 \
  }                                                                                                \
  const berth_op_def_t berth_op_def_##op = {#op, BERTH_OPKIND_KERNEL, 1, 1, 1, 0, NULL,            \
                                            op##_infer, op##_run};

DEFINE_UNARY(neg, false)
DEFINE_UNARY(abs, false)
DEFINE_UNARY(sqrt, false)
DEFINE_UNARY(exp, false)
DEFINE_UNARY(log, false)
DEFINE_UNARY(relu, false)
DEFINE_UNARY(sigmoid, false)
DEFINE_UNARY(tanh, false)
DEFINE_UNARY(logical_not, false)
DEFINE_UNARY(isnan, true)

/* clone copies any dtype. */
static berth_status_t clone_infer(const berth_attr_value_t *attrs, const berth_type_t *in,
                                  int32_t n_in, berth_type_t *out, berth_diag_t *diag) {
  return unary_infer(&berth_op_def_clone, BERTH_MASK_ALL, false, in, n_in, out, diag);
}

static void clone_run(const berth_kernel_call_t *call) {
  size_t bytes = berth_type_bytes(call->in[0].type);
  if (bytes) memcpy(call->out[0].data, call->in[0].data, bytes);
}

const berth_op_def_t berth_op_def_clone = {"clone", BERTH_OPKIND_KERNEL, 1, 1, 1, 0, NULL, clone_infer, clone_run};
