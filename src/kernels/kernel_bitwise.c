/* Integer bit operations: bitwise_and, bitwise_or, bitwise_xor (broadcasting), bitwise_not,
 * bit_shift {direction} (broadcasting) and bitcast {to}: ONNX's BitwiseAnd/Or/Xor/Not,
 * BitShift and BitCast (float16 and bfloat16, held in f32, included).
 *
 * bitwise ops take every integer dtype. bit_shift takes the unsigned ones (as ONNX does);
 * direction 0 shifts left, 1 right, and a count of the type's width or more gives 0 (every
 * bit shifted out; in C such a shift would be undefined). bitcast reinterprets each element's
 * bytes as dtype `to` of the same width (little endian, as berth stores every tensor); a
 * bool result or operand is 0 or 1 (a byte other than 0 is true), so that the result is a
 * valid bool. */
#include "kernel_narrow.h"
#include "kernel_util.h"

#include <string.h>

#define ROW2(fname, T, EXPR)                                                                 \
  static void fname(void *o_, const void *a_, const void *b_, int64_t n, int sa, int sb) { \
    T *restrict o = (T *)o_;                                                                 \
    const T *restrict pa = (const T *)a_;                                                    \
    const T *restrict pb = (const T *)b_;                                                    \
    if (sa && sb) {                                                                          \
      BERTH_VLOOP(i, n, T A = pa[i]; T B = pb[i]; o[i] = (T)(EXPR););                        \
    } else if (sa) {                                                                         \
      const T B = pb[0];                                                                     \
      BERTH_VLOOP(i, n, T A = pa[i]; o[i] = (T)(EXPR););                                     \
    } else if (sb) {                                                                         \
      const T A = pa[0];                                                                     \
      BERTH_VLOOP(i, n, T B = pb[i]; o[i] = (T)(EXPR););                                     \
    } else {                                                                                 \
      const T A = pa[0], B = pb[0];                                                          \
      const T r = (T)(EXPR);                                                                 \
      BERTH_VLOOP(i, n, o[i] = r;);                                                          \
    }                                                                                        \
  }

#define BITWISE_ROWS(E, s, T, U)                    \
  ROW2(bitwise_and_row_##s, T, A & B)               \
  ROW2(bitwise_or_row_##s, T, A | B)                \
  ROW2(bitwise_xor_row_##s, T, A ^ B)
BERTH_KERNEL_INT_LIST(BITWISE_ROWS)

/* Shifts in U (small types promote to int, where a left shift could overflow); the count is
 * compared first so that the shift itself is always below the width. */
#define WIDTH(T) (8u * (unsigned)sizeof(T))
#define SHIFT_ROWS(E, s, T, U)                                                    \
  ROW2(shl_row_##s, T, B >= WIDTH(T) ? (U)0 : (U)((U)A << (B & (WIDTH(T) - 1)))) \
  ROW2(shr_row_##s, T, B >= WIDTH(T) ? (U)0 : (U)((U)A >> (B & (WIDTH(T) - 1))))
BERTH_KERNEL_UINT_LIST(SHIFT_ROWS)

#define INT_TABLE(op)                                                                                       \
  static const berth_row2_fn op##_rows[BERTH_DTYPE_COUNT] = {                                               \
      [BERTH_DTYPE_I8] = op##_row_i8,   [BERTH_DTYPE_U8] = op##_row_u8,   [BERTH_DTYPE_I16] = op##_row_i16, \
      [BERTH_DTYPE_U16] = op##_row_u16, [BERTH_DTYPE_I32] = op##_row_i32, [BERTH_DTYPE_U32] = op##_row_u32, \
      [BERTH_DTYPE_I64] = op##_row_i64, [BERTH_DTYPE_U64] = op##_row_u64};
INT_TABLE(bitwise_and)
INT_TABLE(bitwise_or)
INT_TABLE(bitwise_xor)
static const berth_row2_fn shl_rows[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_U8] = shl_row_u8, [BERTH_DTYPE_U16] = shl_row_u16, [BERTH_DTYPE_U32] = shl_row_u32,
    [BERTH_DTYPE_U64] = shl_row_u64};
static const berth_row2_fn shr_rows[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_U8] = shr_row_u8, [BERTH_DTYPE_U16] = shr_row_u16, [BERTH_DTYPE_U32] = shr_row_u32,
    [BERTH_DTYPE_U64] = shr_row_u64};

/* ---- broadcasting ops ------------------------------------------------------------------ */

static berth_status_t bits2_infer(const berth_op_def_t *def, uint32_t mask, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, mask, diag));
  BERTH_TRY(berth_kernel_check_same_dtype(def->name, in, 0, 1, diag));
  berth_type_t t;
  berth_kernel_type_init(&t, in[0].dtype, 0);
  BERTH_TRY(berth_kernel_broadcast(def->name, in, 2, &t, diag));
  BERTH_TRY(berth_kernel_check_output(def->name, &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void bits2_run(const berth_kernel_call_t *call, const berth_row2_fn *rows) {
  berth_dtype_t dt = call->in[0].type->dtype;
  size_t es = berth_dtype_size(dt);
  berth_bcast_t plan;
  berth_bcast_init(&plan, call->out[0].type, call->in, 2);
  berth_bcast_run2(&plan, rows[dt], call->out[0].data, es, call->in[0].data, es, call->in[1].data, es);
}

#define DEFINE_BITS2(op)                                                                                   \
  static berth_status_t op##_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,  \
                                   berth_type_t *out, berth_diag_t *diag) {                                \
    (void)attrs;                                                                                           \
    return bits2_infer(&berth_op_def_##op, BERTH_MASK_INT, in, n_in, out, diag);                           \
  }                                                                                                        \
  static void op##_run(const berth_kernel_call_t *call) { bits2_run(call, op##_rows); }                   \
  const berth_op_def_t berth_op_def_##op = {#op, BERTH_OPKIND_KERNEL, 2, 2, 1, 0, NULL, op##_infer, op##_run};
DEFINE_BITS2(bitwise_and)
DEFINE_BITS2(bitwise_or)
DEFINE_BITS2(bitwise_xor)

static berth_status_t bit_shift_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                      berth_type_t *out, berth_diag_t *diag) {
  if (attrs[0].i != 0 && attrs[0].i != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "bit_shift: direction is %lld, expected 0 (left) or 1 (right)",
                      (long long)attrs[0].i);
  return bits2_infer(&berth_op_def_bit_shift, BERTH_MASK_UINT, in, n_in, out, diag);
}
static void bit_shift_run(const berth_kernel_call_t *call) {
  bits2_run(call, call->attrs[0].i ? shr_rows : shl_rows);
}
static const berth_attr_spec_t bit_shift_attrs[] = {{"direction", BERTH_ATTR_INT, true, 0, 0}};
const berth_op_def_t berth_op_def_bit_shift = {"bit_shift", BERTH_OPKIND_KERNEL, 2, 2, 1, 1, bit_shift_attrs,
                                               bit_shift_infer, bit_shift_run};

/* ---- bitwise_not ----------------------------------------------------------------------- */

#define NOT_ROW(E, s, T, U)                                               \
  static void bitwise_not_row_##s(void *o_, const void *a_, int64_t n) { \
    T *restrict o = (T *)o_;                                              \
    const T *restrict a = (const T *)a_;                                  \
    BERTH_VLOOP(i, n, o[i] = (T)~(U)a[i];);                               \
  }
BERTH_KERNEL_INT_LIST(NOT_ROW)
static const berth_row1_fn bitwise_not_rows[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_I8] = bitwise_not_row_i8,   [BERTH_DTYPE_U8] = bitwise_not_row_u8,
    [BERTH_DTYPE_I16] = bitwise_not_row_i16, [BERTH_DTYPE_U16] = bitwise_not_row_u16,
    [BERTH_DTYPE_I32] = bitwise_not_row_i32, [BERTH_DTYPE_U32] = bitwise_not_row_u32,
    [BERTH_DTYPE_I64] = bitwise_not_row_i64, [BERTH_DTYPE_U64] = bitwise_not_row_u64};

static berth_status_t bitwise_not_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                        berth_type_t *out, berth_diag_t *diag) {
  (void)attrs;
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_bitwise_not, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("bitwise_not", 0, in[0].dtype, BERTH_MASK_INT, diag));
  out[0] = in[0];
  return BERTH_OK;
}
static void bitwise_not_run(const berth_kernel_call_t *call) {
  const berth_type_t *t = call->in[0].type;
  bitwise_not_rows[t->dtype](call->out[0].data, call->in[0].data, berth_type_numel(t));
}
const berth_op_def_t berth_op_def_bitwise_not = {"bitwise_not", BERTH_OPKIND_KERNEL, 1, 1, 1, 0, NULL,
                                                 bitwise_not_infer, bitwise_not_run};

/* ---- bitcast {to, format} ---------------------------------------------------------------
 * format -1: the element bytes as they are. format float16 or bfloat16 (kernel_narrow.h): one
 * side is that narrow type held in f32 (as the ONNX importer holds it) and the other a 16-bit
 * integer: f32 -> i16/u16 gives the type's bits of the value (a value that is not one of the
 * type's is first rounded to it, to nearest even, as narrow_cast does; NaN keeps its payload's
 * top bits and stays NaN), i16/u16 -> f32 the value those bits encode. */

static uint16_t f16_bits(float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
  uint32_t e = (b >> 23) & 0xFFu, m = b & 0x7FFFFFu;
  if (e == 0xFF) return (uint16_t)(sign | 0x7C00u | (m ? ((m >> 13) ? (m >> 13) : 0x200u) : 0));
  int32_t ue = (int32_t)e - 127;
  if (ue > 15) return (uint16_t)(sign | 0x7C00u); /* beyond float16: inf */
  /* the value in units of float16's least subnormal (2^-24) or of its ulp, rounded to even */
  uint32_t mant = e ? (m | 0x800000u) : m; /* value = mant * 2^(ue - 23), ue >= -126 */
  int32_t shift = ue >= -14 ? 13 : 13 + (-14 - ue); /* bits of mant below float16's grid */
  if (shift > 24) return sign;                      /* below half the least subnormal */
  uint32_t q = mant >> shift, rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (q & 1u))) q++;
  /* normal: biased exponent above the 10 mantissa bits (a carry into it is still right) */
  uint32_t out = ue >= -14 ? ((uint32_t)(ue + 14) << 10) + q : q;
  return (uint16_t)(sign | (out > 0x7C00u ? 0x7C00u : out));
}

static float f16_value(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu, b;
  if (e == 0x1F) b = sign | 0x7F800000u | (m << 13);
  else if (e) b = sign | ((e + 112) << 23) | (m << 13);
  else {
    float v = (float)m * 0x1p-24f; /* subnormal (or zero): exact */
    memcpy(&b, &v, 4);
    b |= sign;
  }
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static uint16_t bf16_bits(float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu)) return (uint16_t)((b >> 16) | 0x40u); /* NaN */
  b += 0x7FFFu + ((b >> 16) & 1u);
  return (uint16_t)(b >> 16);
}

static float bf16_value(uint16_t h) {
  uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static berth_status_t bitcast_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                    berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_bitcast, in, n_in, diag));
  berth_dtype_t to, from = in[0].dtype;
  BERTH_TRY(berth_kernel_get_dtype("bitcast", "to", &attrs[0], &to, diag));
  int64_t fmt = attrs[1].i;
  if (fmt != -1 && fmt != BERTH_NARROW_F16 && fmt != BERTH_NARROW_BF16)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "bitcast: format is %lld, expected -1 (none), %d (float16) or %d (bfloat16)", (long long)fmt,
                      (int)BERTH_NARROW_F16, (int)BERTH_NARROW_BF16);
  if (fmt != -1) {
    bool is16_from = from == BERTH_DTYPE_I16 || from == BERTH_DTYPE_U16, is16_to = to == BERTH_DTYPE_I16 || to == BERTH_DTYPE_U16;
    if (!((from == BERTH_DTYPE_F32 && is16_to) || (is16_from && to == BERTH_DTYPE_F32)))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "bitcast: %s to %s with a 16-bit float format, expected f32 to i16/u16 or i16/u16 to f32",
                        berth_dtype_name(from), berth_dtype_name(to));
  } else if (berth_dtype_size(to) != berth_dtype_size(from)) {
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "bitcast: operand 0 has dtype %s (%zu bytes), which cannot be reinterpreted as %s (%zu bytes): "
                      "expected the same width",
                      berth_dtype_name(from), berth_dtype_size(from), berth_dtype_name(to), berth_dtype_size(to));
  }
  out[0] = in[0];
  out[0].dtype = to;
  return BERTH_OK;
}

static void bitcast_narrow(const berth_kernel_call_t *call, int64_t n) {
  bool f16 = call->attrs[1].i == BERTH_NARROW_F16;
  if (call->in[0].type->dtype == BERTH_DTYPE_F32) {
    const float *restrict a = (const float *)call->in[0].data;
    uint16_t *restrict o = (uint16_t *)call->out[0].data; /* i16 or u16: the same bytes */
    for (int64_t i = 0; i < n; i++) o[i] = f16 ? f16_bits(a[i]) : bf16_bits(a[i]);
  } else {
    const uint16_t *restrict a = (const uint16_t *)call->in[0].data;
    float *restrict o = (float *)call->out[0].data;
    for (int64_t i = 0; i < n; i++) o[i] = f16 ? f16_value(a[i]) : bf16_value(a[i]);
  }
}

static void bitcast_run(const berth_kernel_call_t *call) {
  const berth_type_t *t = call->in[0].type;
  int64_t n = berth_type_numel(t);
  if (call->attrs[1].i != -1) {
    bitcast_narrow(call, n);
    return;
  }
  if (t->dtype == BERTH_DTYPE_BOOL || call->out[0].type->dtype == BERTH_DTYPE_BOOL) {
    uint8_t *restrict o = (uint8_t *)call->out[0].data;
    const uint8_t *restrict a = (const uint8_t *)call->in[0].data;
    BERTH_VLOOP(i, n, o[i] = a[i] != 0;);
    return;
  }
  size_t bytes = berth_type_bytes(t);
  if (bytes) memcpy(call->out[0].data, call->in[0].data, bytes);
}

static const berth_attr_spec_t bitcast_attrs[] = {{"to", BERTH_ATTR_DTYPE, true, 0, 0},
                                                  {"format", BERTH_ATTR_INT, false, -1, 0}};
const berth_op_def_t berth_op_def_bitcast = {"bitcast", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, bitcast_attrs,
                                             bitcast_infer, bitcast_run};
