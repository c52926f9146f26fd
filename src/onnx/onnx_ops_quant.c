/* ONNX ops, quant family: quantization (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
 * QLinearMatMul, QLinearConv, MatMulInteger, ConvInteger) and signal processing (DFT, STFT,
 * the window functions, MelWeightMatrix).
 *
 * QuantizeLinear and DequantizeLinear are the quantize_linear / dequantize_linear kernels
 * (kernel_quant.c). The integer products are exact: MatMulInteger is an i32 matmul (wrapping
 * as onnxruntime's i32 accumulators do); ConvInteger and QLinearConv convolve in f64, exact
 * for every sum that fits int32, and refuse a kernel large enough that the sum might not.
 * QLinearMatMul and QLinearConv requantize with quantize_linear (ties to even, clamped). The
 * windows and the mel matrix depend only on constants: they are computed here. */
#include "onnx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== shared ========================================================================== */

typedef struct qtarget {
  berth_dtype_t dt; /* compute dtype of the quantized values */
  int64_t lo, hi;   /* integer range */
  bool is_float;    /* float8 / float4: rounded by a narrow_cast */
} qtarget_t;

static bool quant_target(int32_t elem, qtarget_t *q) {
  q->is_float = false;
  switch (elem) {
    case BERTH_ONNX_UINT8: *q = (qtarget_t){BERTH_DTYPE_U8, 0, 255, false}; return true;
    case BERTH_ONNX_INT8: *q = (qtarget_t){BERTH_DTYPE_I8, -128, 127, false}; return true;
    case BERTH_ONNX_UINT16: *q = (qtarget_t){BERTH_DTYPE_U16, 0, 65535, false}; return true;
    case BERTH_ONNX_INT16: *q = (qtarget_t){BERTH_DTYPE_I16, -32768, 32767, false}; return true;
    case BERTH_ONNX_UINT4: *q = (qtarget_t){BERTH_DTYPE_U8, 0, 15, false}; return true;
    case BERTH_ONNX_INT4: *q = (qtarget_t){BERTH_DTYPE_I8, -8, 7, false}; return true;
    case BERTH_ONNX_UINT2: *q = (qtarget_t){BERTH_DTYPE_U8, 0, 3, false}; return true;
    case BERTH_ONNX_INT2: *q = (qtarget_t){BERTH_DTYPE_I8, -2, 1, false}; return true;
    case BERTH_ONNX_FLOAT8E4M3FN:
    case BERTH_ONNX_FLOAT8E4M3FNUZ:
    case BERTH_ONNX_FLOAT8E5M2:
    case BERTH_ONNX_FLOAT8E5M2FNUZ:
    case BERTH_ONNX_FLOAT4E2M1: *q = (qtarget_t){BERTH_DTYPE_F32, 0, 0, true}; return true;
    default: return false;
  }
}

static bool is_float8(int32_t elem) {
  return elem == BERTH_ONNX_FLOAT8E4M3FN || elem == BERTH_ONNX_FLOAT8E4M3FNUZ || elem == BERTH_ONNX_FLOAT8E5M2 ||
         elem == BERTH_ONNX_FLOAT8E5M2FNUZ;
}

/* A zero point of a float8 or float4 type must be (absent or) all zeros: the reference
 * ignores it and the spec does not say what a non-zero one means. */
static berth_status_t require_zero(ox_ctx_t *cx, int32_t zp, const char *what) {
  if (zp < 0) return BERTH_OK;
  OX_TRY(ox_need_const(cx, zp, what));
  const ox_val_t *z = &cx->vals[zp];
  int64_t n = berth_type_numel(&z->type);
  for (int64_t i = 0; i < n; i++) {
    double v = z->type.dtype == BERTH_DTYPE_F64 ? ((const double *)z->data)[i] : ((const float *)z->data)[i];
    if (v != 0)
      return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%s of type %s is %g at element %lld; berth takes only zero there", what,
                     berth_onnx_elem_name(z->elem), v, (long long)i);
  }
  return BERTH_OK;
}

/* The compute dtype of a division in precision elem, and the narrow format its quotient is
 * rounded to (-1: none). */
static berth_status_t precision_of(ox_ctx_t *cx, int32_t elem, berth_dtype_t *dt, int64_t *fmt) {
  *fmt = -1;
  switch (elem) {
    case BERTH_ONNX_FLOAT:
    case BERTH_ONNX_FLOAT8E8M0: *dt = BERTH_DTYPE_F32; return BERTH_OK;
    case BERTH_ONNX_FLOAT16: *dt = BERTH_DTYPE_F32, *fmt = BERTH_NARROW_F16; return BERTH_OK;
    case BERTH_ONNX_BFLOAT16: *dt = BERTH_DTYPE_F32, *fmt = BERTH_NARROW_BF16; return BERTH_OK;
    case BERTH_ONNX_DOUBLE:
    case BERTH_ONNX_INT32: *dt = BERTH_DTYPE_F64; return BERTH_OK;
    default:
      return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "division precision %s: expected float, float16, bfloat16 or int32",
                     berth_onnx_elem_name(elem));
  }
}

/* v in compute dtype dt, rounded to precision elem when that is narrow and v is not of it. */
static berth_status_t to_precision(ox_ctx_t *cx, int32_t v, berth_dtype_t dt, int32_t elem, int64_t fmt, int32_t *out) {
  OX_TRY(ox_emit_cast(cx, v, dt, out));
  if (fmt >= 0 && cx->vals[v].elem != elem) OX_TRY(ox_narrow_cast(cx, *out, elem, 1, BERTH_ONNX_ROUND_UP, out));
  return BERTH_OK;
}

static berth_status_t emit_quantize(ox_ctx_t *cx, int32_t x, int32_t s, int32_t zp, int64_t axis, int64_t block,
                                    const qtarget_t *q, int64_t round_fmt, int32_t *y) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  berth_op_t op = BERTH_OP_QUANTIZE_LINEAR;
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "axis", axis));
  OX_TRY(ox_attr_i(cx, op, a, "block_size", block));
  OX_TRY(ox_attr_i(cx, op, a, "dtype", q->dt));
  OX_TRY(ox_attr_i(cx, op, a, "qmin", q->lo));
  OX_TRY(ox_attr_i(cx, op, a, "qmax", q->hi));
  OX_TRY(ox_attr_i(cx, op, a, "round_format", round_fmt));
  int32_t in[3] = {x, s, zp};
  return ox_emit1(cx, op, zp >= 0 ? 3 : 2, in, a, y);
}

/* ==== QuantizeLinear / DequantizeLinear ================================================= */

static berth_status_t op_quantize_linear(ox_ctx_t *cx) {
  int32_t x, s, zp, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &s));
  OX_TRY(ox_in(cx, 2, &zp));
  int64_t out_dtype = cx->opset >= 21 ? ox_attr_int(cx, "output_dtype", 0) : 0;
  int32_t elem = zp >= 0 ? cx->vals[zp].elem : out_dtype ? (int32_t)out_dtype : BERTH_ONNX_UINT8;
  if (zp >= 0 && out_dtype && out_dtype != elem)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "output_dtype %lld does not match the zero point's type %s",
                   (long long)out_dtype, berth_onnx_elem_name(elem));
  qtarget_t q;
  if (!quant_target(elem, &q))
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "quantization to %s: expected an 8-, 16-, 4- or 2-bit integer, float8 or "
                   "float4e2m1 type", berth_onnx_elem_name(elem));
  if (cx->opset < 19 && ox_rank_of(cx, s) > 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "y_scale must be a scalar or 1-D before opset 21");
  int64_t prec = cx->opset >= 23 ? ox_attr_int(cx, "precision", 0) : 0;
  berth_dtype_t cdt = BERTH_DTYPE_F32;
  int64_t fmt;
  int32_t pelem = prec ? (int32_t)prec : cx->vals[s].elem;
  OX_TRY(precision_of(cx, pelem, &cdt, &fmt));
  OX_TRY(to_precision(cx, x, cdt, pelem, fmt, &x));
  OX_TRY(to_precision(cx, s, cdt, pelem, fmt, &s));
  if (is_float8(elem)) {
    OX_TRY(require_zero(cx, zp, "the zero point"));
    zp = -1;
  }
  int64_t axis = cx->opset >= 13 ? ox_attr_int(cx, "axis", 1) : 1;
  int64_t block = cx->opset >= 21 ? ox_attr_int(cx, "block_size", 0) : 0;
  OX_TRY(emit_quantize(cx, x, s, zp, axis, block, &q, fmt, &y));
  if (q.is_float) {
    int32_t sat = elem == BERTH_ONNX_FLOAT4E2M1 ? 1 : ox_attr_int(cx, "saturate", 1) != 0;
    OX_TRY(ox_narrow_cast(cx, y, elem, sat, BERTH_ONNX_ROUND_UP, &y));
  } else {
    cx->vals[y].elem = elem;
  }
  return ox_out(cx, 0, y);
}

static berth_status_t op_dequantize_linear(ox_ctx_t *cx) {
  int32_t x, s, zp, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &s));
  OX_TRY(ox_in(cx, 2, &zp));
  int32_t xe = cx->vals[x].elem;
  qtarget_t q;
  if (!quant_target(xe, &q) && xe != BERTH_ONNX_INT32)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "dequantization of %s: expected an 8-, 16-, 32-, 4- or 2-bit integer, "
                   "float8 or float4e2m1 type", berth_onnx_elem_name(xe));
  if (quant_target(xe, &q) && q.is_float) {
    OX_TRY(require_zero(cx, zp, "the zero point"));
    zp = -1;
  }
  if (zp >= 0 && cx->vals[zp].elem != xe)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the zero point has type %s, expected x's %s",
                   berth_onnx_elem_name(cx->vals[zp].elem), berth_onnx_elem_name(xe));
  if (cx->opset < 21 && ox_rank_of(cx, s) > 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "x_scale must be a scalar or 1-D before opset 21");
  int64_t out_dtype = cx->opset >= 23 ? ox_attr_int(cx, "output_dtype", 0) : 0;
  int32_t oe = out_dtype ? (int32_t)out_dtype : cx->vals[s].elem;
  if (oe != BERTH_ONNX_FLOAT && oe != BERTH_ONNX_FLOAT16 && oe != BERTH_ONNX_BFLOAT16 && oe != BERTH_ONNX_DOUBLE)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "output type %s: expected float, float16 or bfloat16",
                   berth_onnx_elem_name(oe));
  berth_dtype_t odt = oe == BERTH_ONNX_DOUBLE ? BERTH_DTYPE_F64 : BERTH_DTYPE_F32;
  if (!berth_dtype_is_float(cx->vals[s].type.dtype))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "x_scale has type %s, expected a float type",
                   berth_onnx_elem_name(cx->vals[s].elem));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  berth_op_t op = BERTH_OP_DEQUANTIZE_LINEAR;
  ox_attrs_default(op, a);
  OX_TRY(ox_attr_i(cx, op, a, "axis", cx->opset >= 13 ? ox_attr_int(cx, "axis", 1) : 1));
  OX_TRY(ox_attr_i(cx, op, a, "block_size", cx->opset >= 21 ? ox_attr_int(cx, "block_size", 0) : 0));
  OX_TRY(ox_attr_i(cx, op, a, "dtype", odt));
  int32_t in[3] = {x, s, zp};
  OX_TRY(ox_emit1(cx, op, zp >= 0 ? 3 : 2, in, a, &y));
  cx->vals[y].elem = oe; /* float16 / bfloat16: rounded by ox_out */
  return ox_out(cx, 0, y);
}

/* ==== DynamicQuantizeLinear ============================================================== */

static berth_status_t emit2(ox_ctx_t *cx, const char *op, int32_t a, int32_t b, int32_t *out) {
  int32_t in[2] = {a, b};
  return ox_emit_simple(cx, op, 2, in, out);
}

/* scale = (max(x, 0) - min(x, 0)) / 255 (1 / 255 when that range is 0, as the reference),
 * zero point = clamp(rint(0 - min / scale), 0, 255), y = QuantizeLinear(x, scale, zp): f32
 * arithmetic throughout, as the reference's. */
static berth_status_t op_dynamic_quantize_linear(ox_ctx_t *cx) {
  int32_t x;
  OX_TRY(ox_in_req(cx, 0, &x));
  if (cx->vals[x].type.dtype != BERTH_DTYPE_F32 || cx->vals[x].elem != BERTH_ONNX_FLOAT)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "x has type %s, expected float", berth_onnx_elem_name(cx->vals[x].elem));
  if (berth_type_numel(&cx->vals[x].type) == 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "x is empty: its range is undefined");
  int32_t mx = x, mn = x, zero, one, k255;
  if (ox_rank_of(cx, x) > 0) {
    berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
    ox_attrs_default(BERTH_OP_MAX, a);
    OX_TRY(ox_attr_i(cx, BERTH_OP_MAX, a, "keepdims", 0));
    OX_TRY(ox_emit1(cx, BERTH_OP_MAX, 1, &x, a, &mx));
    OX_TRY(ox_emit1(cx, BERTH_OP_MIN, 1, &x, a, &mn));
  }
  OX_TRY(ox_const_scalar(cx, BERTH_DTYPE_F32, 0, &zero));
  OX_TRY(ox_const_scalar(cx, BERTH_DTYPE_F32, 1, &one));
  OX_TRY(ox_const_scalar(cx, BERTH_DTYPE_F32, 255, &k255));
  int32_t hi, lo, range, same, r, scale, lo_s, izp, zp, y;
  OX_TRY(emit2(cx, "maximum", mx, zero, &hi));
  OX_TRY(emit2(cx, "minimum", mn, zero, &lo));
  OX_TRY(emit2(cx, "sub", hi, lo, &range));
  OX_TRY(emit2(cx, "eq", hi, lo, &same));
  int32_t win[3] = {same, one, range};
  OX_TRY(ox_emit1(cx, BERTH_OP_WHERE, 3, win, NULL, &r));
  OX_TRY(emit2(cx, "div", r, k255, &scale));
  OX_TRY(emit2(cx, "div", lo, scale, &lo_s));
  OX_TRY(emit2(cx, "sub", zero, lo_s, &izp));
  qtarget_t q = {BERTH_DTYPE_U8, 0, 255, false};
  OX_TRY(emit_quantize(cx, izp, one, -1, 1, 0, &q, -1, &zp));
  OX_TRY(emit_quantize(cx, x, scale, zp, 1, 0, &q, -1, &y));
  OX_TRY(ox_out(cx, 0, y));
  OX_TRY(ox_out(cx, 1, scale));
  return ox_out(cx, 2, zp);
}

/* ==== integer products ==================================================================== */

/* v (an integer tensor) minus zero point zp as dtype dt; a 1-D zp of more than one value is
 * per row (reshaped to [n, 1]) when per_row is set. */
static berth_status_t sub_zero_point(ox_ctx_t *cx, int32_t v, int32_t zp, bool per_row, berth_dtype_t dt, int32_t *out) {
  OX_TRY(ox_emit_cast(cx, v, dt, out));
  if (zp < 0) return BERTH_OK;
  if (!berth_dtype_is_int(cx->vals[zp].type.dtype) || cx->vals[zp].elem != cx->vals[v].elem)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "a zero point has type %s, expected its operand's %s",
                   berth_onnx_elem_name(cx->vals[zp].elem), berth_onnx_elem_name(cx->vals[v].elem));
  int32_t z;
  OX_TRY(ox_emit_cast(cx, zp, dt, &z));
  const berth_type_t *zt = &cx->vals[z].type;
  if (per_row && zt->rank == 1 && zt->dims[0] > 1) {
    int64_t dims[2] = {zt->dims[0], 1};
    OX_TRY(ox_emit_reshape(cx, z, dims, 2, &z));
  }
  return emit2(cx, "sub", *out, z, out);
}

static berth_status_t check_8bit(ox_ctx_t *cx, int32_t v, const char *what) {
  int32_t e = cx->vals[v].elem;
  if (e != BERTH_ONNX_UINT8 && e != BERTH_ONNX_INT8)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%s has type %s, expected uint8 or int8", what, berth_onnx_elem_name(e));
  return BERTH_OK;
}

/* (a - a_zp) @ (b - b_zp) in int32. */
static berth_status_t int_matmul(ox_ctx_t *cx, int32_t a, int32_t azp, int32_t b, int32_t bzp, int32_t *out) {
  OX_TRY(check_8bit(cx, a, "A"));
  OX_TRY(check_8bit(cx, b, "B"));
  int32_t A, B;
  OX_TRY(sub_zero_point(cx, a, azp, ox_rank_of(cx, a) >= 2, BERTH_DTYPE_I32, &A));
  OX_TRY(sub_zero_point(cx, b, bzp, false, BERTH_DTYPE_I32, &B));
  return emit2(cx, "matmul", A, B, out);
}

static berth_status_t op_matmul_integer(ox_ctx_t *cx) {
  int32_t a, b, azp, bzp, y;
  OX_TRY(ox_in_req(cx, 0, &a));
  OX_TRY(ox_in_req(cx, 1, &b));
  OX_TRY(ox_in(cx, 2, &azp));
  OX_TRY(ox_in(cx, 3, &bzp));
  OX_TRY(int_matmul(cx, a, azp, b, bzp, &y));
  return ox_out(cx, 0, y);
}

/* The multiplier s1 * s2 / s3 in the scales' precision (float16 rounds after each step),
 * then as f64. s1 is per row when per_row and 1-D of more than one value. */
static berth_status_t multiplier(ox_ctx_t *cx, int32_t s1, int32_t s2, int32_t s3, const int64_t *s2_dims, int32_t s2_rank,
                                 int32_t *out) {
  int32_t e = cx->vals[s1].elem;
  if (e != BERTH_ONNX_FLOAT && e != BERTH_ONNX_FLOAT16 && e != BERTH_ONNX_BFLOAT16)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "a scale has type %s, expected float, float16 or bfloat16",
                   berth_onnx_elem_name(e));
  if (cx->vals[s2].elem != e || cx->vals[s3].elem != e)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the scales have different types");
  if (s2_dims && berth_type_numel(&cx->vals[s2].type) > 1) OX_TRY(ox_emit_reshape(cx, s2, s2_dims, s2_rank, &s2));
  int32_t t;
  OX_TRY(emit2(cx, "mul", s1, s2, &t));
  OX_TRY(ox_narrow_round(cx, t, &t));
  OX_TRY(emit2(cx, "div", t, s3, &t));
  OX_TRY(ox_narrow_round(cx, t, &t));
  return ox_emit_cast(cx, t, BERTH_DTYPE_F64, out);
}

/* y = clamp(rint(acc * m) + y_zp) of y_zp's type (else of `like`'s), with acc and m f64. */
static berth_status_t requantize(ox_ctx_t *cx, int32_t acc, int32_t m, int32_t yzp, int32_t like, int32_t *y) {
  int32_t r, one;
  OX_TRY(ox_emit_cast(cx, acc, BERTH_DTYPE_F64, &acc));
  OX_TRY(emit2(cx, "mul", acc, m, &r));
  OX_TRY(ox_const_scalar(cx, BERTH_DTYPE_F64, 1, &one));
  int32_t elem = yzp >= 0 ? cx->vals[yzp].elem : cx->vals[like].elem;
  qtarget_t q;
  if ((elem != BERTH_ONNX_UINT8 && elem != BERTH_ONNX_INT8) || !quant_target(elem, &q))
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "y has type %s, expected uint8 or int8", berth_onnx_elem_name(elem));
  if (yzp >= 0 && ox_rank_of(cx, yzp) > 0 && berth_type_numel(&cx->vals[yzp].type) > 1)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "y_zero_point must be one value (per-tensor)");
  if (yzp >= 0 && ox_rank_of(cx, yzp) > 0) {
    OX_TRY(ox_emit_reshape(cx, yzp, NULL, 0, &yzp));
  }
  OX_TRY(emit_quantize(cx, r, one, yzp, 1, 0, &q, -1, y));
  cx->vals[*y].elem = elem;
  return BERTH_OK;
}

static berth_status_t op_qlinear_matmul(ox_ctx_t *cx) {
  int32_t v[8], acc, m, y;
  for (int k = 0; k < 8; k++) OX_TRY(ox_in(cx, k, &v[k]));
  for (int k = 0; k < 8; k++)
    if (v[k] < 0 && k != 2 && k != 5 && k != 7)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input %d is required but missing", k);
  OX_TRY(int_matmul(cx, v[0], v[2], v[3], v[5], &acc));
  int32_t as = v[1];
  const berth_type_t *ast = &cx->vals[as].type;
  if (ast->rank == 1 && ast->dims[0] > 1 && ox_rank_of(cx, v[0]) >= 2) {
    int64_t dims[2] = {ast->dims[0], 1};
    OX_TRY(ox_emit_reshape(cx, as, dims, 2, &as));
  }
  OX_TRY(multiplier(cx, as, v[4], v[6], NULL, 0, &m));
  OX_TRY(requantize(cx, acc, m, v[7], v[0], &y));
  return ox_out(cx, 0, y);
}

/* conv((x - x_zp), (w - w_zp)[, bias]) in f64 (exact while every sum fits int32, which is
 * checked from the kernel's size: |x - x_zp| and |w - w_zp| are at most 255). */
static berth_status_t int_conv(ox_ctx_t *cx, int32_t x, int32_t xzp, int32_t w, int32_t wzp, int32_t bias, int32_t *out) {
  OX_TRY(check_8bit(cx, x, "x"));
  OX_TRY(check_8bit(cx, w, "w"));
  const berth_type_t *wt = &cx->vals[w].type;
  int64_t k = 1;
  for (int32_t d = 1; d < wt->rank; d++) k *= wt->dims[d]; /* at most numel(w) */
  if (k > 2147483647 / (255 * 255))
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%lld products per output may overflow the int32 sum, which berth refuses "
                   "to guess", (long long)k);
  if (xzp >= 0 && berth_type_numel(&cx->vals[xzp].type) != 1)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "x_zero_point must be one value (per-tensor)");
  int32_t in[3], n = 2;
  OX_TRY(sub_zero_point(cx, x, xzp, false, BERTH_DTYPE_F64, &in[0]));
  OX_TRY(ox_emit_cast(cx, w, BERTH_DTYPE_F64, &in[1]));
  if (wzp >= 0) {
    int32_t z;
    if (cx->vals[wzp].elem != cx->vals[w].elem)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "w_zero_point has type %s, expected w's %s",
                     berth_onnx_elem_name(cx->vals[wzp].elem), berth_onnx_elem_name(cx->vals[w].elem));
    OX_TRY(ox_emit_cast(cx, wzp, BERTH_DTYPE_F64, &z));
    const berth_type_t *zt = &cx->vals[z].type;
    if (zt->rank == 1 && zt->dims[0] > 1) {
      int64_t dims[BERTH_MAX_RANK] = {zt->dims[0], 1, 1, 1, 1, 1, 1, 1};
      OX_TRY(ox_emit_reshape(cx, z, dims, wt->rank, &z));
    }
    OX_TRY(emit2(cx, "sub", in[1], z, &in[1]));
  }
  if (bias >= 0) {
    if (cx->vals[bias].elem != BERTH_ONNX_INT32)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "B has type %s, expected int32", berth_onnx_elem_name(cx->vals[bias].elem));
    OX_TRY(ox_emit_cast(cx, bias, BERTH_DTYPE_F64, &in[2]));
    n = 3;
  }
  return ox_emit_conv(cx, in, n, out);
}

static berth_status_t op_conv_integer(ox_ctx_t *cx) {
  int32_t x, w, xzp, wzp, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &w));
  OX_TRY(ox_in(cx, 2, &xzp));
  OX_TRY(ox_in(cx, 3, &wzp));
  OX_TRY(int_conv(cx, x, xzp, w, wzp, -1, &y));
  OX_TRY(ox_emit_cast(cx, y, BERTH_DTYPE_I32, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_qlinear_conv(ox_ctx_t *cx) {
  int32_t v[9], acc, m, y;
  for (int k = 0; k < 9; k++) OX_TRY(ox_in(cx, k, &v[k]));
  for (int k = 0; k < 8; k++)
    if (v[k] < 0 && k != 2 && k != 5 && k != 7)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input %d is required but missing", k);
  OX_TRY(int_conv(cx, v[0], v[2], v[3], v[5], v[8], &acc));
  int32_t r = ox_rank_of(cx, v[0]);
  int64_t dims[BERTH_MAX_RANK] = {1, 1, 1, 1, 1, 1, 1, 1};
  const berth_type_t *wst = &cx->vals[v[4]].type;
  if (berth_type_numel(wst) > 1) {
    if (wst->rank != 1 || wst->dims[0] != cx->vals[v[3]].type.dims[0])
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "w_scale must be one value or one per output channel");
    dims[1] = wst->dims[0];
  }
  if (berth_type_numel(&cx->vals[v[1]].type) != 1 || berth_type_numel(&cx->vals[v[6]].type) != 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "x_scale and y_scale must be one value each");
  OX_TRY(multiplier(cx, v[1], v[4], v[6], dims, r, &m));
  OX_TRY(requantize(cx, acc, m, v[7], v[0], &y));
  return ox_out(cx, 0, y);
}

/* ==== DFT and STFT ======================================================================== */

static berth_status_t const_count(ox_ctx_t *cx, int32_t v, const char *what, int64_t *out) {
  int64_t vals[1];
  int32_t n;
  if (berth_type_numel(&cx->vals[v].type) != 1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s must be one value", what);
  OX_TRY(ox_const_ints(cx, v, what, vals, 1, &n));
  *out = vals[0];
  return BERTH_OK;
}

static berth_status_t float_signal(ox_ctx_t *cx, int32_t x) {
  if (!berth_dtype_is_float(cx->vals[x].type.dtype))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the signal has type %s, expected a float type",
                   berth_onnx_elem_name(cx->vals[x].elem));
  return BERTH_OK;
}

static berth_status_t op_dft(ox_ctx_t *cx) {
  int32_t x, lv, av, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in(cx, 1, &lv));
  OX_TRY(ox_in(cx, 2, &av));
  OX_TRY(float_signal(cx, x));
  int32_t r = ox_rank_of(cx, x);
  int64_t axis = cx->opset >= 20 ? -2 : ox_attr_int(cx, "axis", 1);
  if (cx->opset >= 20 && av >= 0) OX_TRY(const_count(cx, av, "the axis", &axis));
  if (r < 2 || axis < -r || axis > r - 2 || axis == -1)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "axis %lld for a signal of rank %d: expected %d..-2 or 0..%d", (long long)axis,
                   (int)r, -(int)r, (int)r - 2);
  if (axis < 0) axis += r;
  bool inverse = ox_attr_int(cx, "inverse", 0) != 0, onesided = ox_attr_int(cx, "onesided", 0) != 0;
  int64_t n = cx->vals[x].type.dims[axis], len = inverse && onesided ? 2 * (n - 1) : n;
  if (lv >= 0) OX_TRY(const_count(cx, lv, "dft_length", &len));
  if (len < 1 || len > BERTH_MAX_DIM)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the transform length is %lld, expected 1..2^40", (long long)len);
  if (onesided && !inverse && cx->vals[x].type.dims[r - 1] == 2)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "onesided is set for a complex signal (it applies to real ones)");
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_DFT, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_DFT, a, "axis", axis));
  OX_TRY(ox_attr_i(cx, BERTH_OP_DFT, a, "length", len));
  OX_TRY(ox_attr_i(cx, BERTH_OP_DFT, a, "inverse", inverse));
  OX_TRY(ox_attr_i(cx, BERTH_OP_DFT, a, "onesided", onesided));
  OX_TRY(ox_emit1(cx, BERTH_OP_DFT, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_stft(ox_ctx_t *cx) {
  int32_t x, sv, w, lv, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &sv));
  OX_TRY(ox_in(cx, 2, &w));
  OX_TRY(ox_in(cx, 3, &lv));
  OX_TRY(float_signal(cx, x));
  int64_t step, len = -1;
  OX_TRY(const_count(cx, sv, "frame_step", &step));
  if (lv >= 0) OX_TRY(const_count(cx, lv, "frame_length", &len));
  if (w >= 0) {
    if (ox_rank_of(cx, w) != 1) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the window must be 1-D");
    int64_t wl = cx->vals[w].type.dims[0];
    if (len >= 0 && len != wl)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "frame_length %lld differs from the window's length %lld", (long long)len,
                     (long long)wl);
    len = wl;
    OX_TRY(ox_emit_cast(cx, w, cx->vals[x].type.dtype, &w));
  }
  if (len < 0) len = ox_rank_of(cx, x) == 3 ? cx->vals[x].type.dims[1] : 0;
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_STFT, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_STFT, a, "step", step));
  OX_TRY(ox_attr_i(cx, BERTH_OP_STFT, a, "length", len));
  OX_TRY(ox_attr_i(cx, BERTH_OP_STFT, a, "onesided", ox_attr_int(cx, "onesided", 1) != 0));
  int32_t in[2] = {x, w};
  OX_TRY(ox_emit1(cx, BERTH_OP_STFT, w >= 0 ? 2 : 1, in, a, &y));
  return ox_out(cx, 0, y);
}

/* ==== window functions and the mel matrix (computed from constants) ======================== */

/* A constant of ONNX type elem holding v[0..n) (computed in double) as that type's compute
 * dtype; narrow float types are rounded by ox_out. Integer types truncate toward zero. */
static berth_status_t const_from_doubles(ox_ctx_t *cx, int32_t elem, const double *v, int32_t rank, const int64_t *dims,
                                         int32_t *out) {
  berth_dtype_t dt;
  if (!berth_onnx_elem_dtype(elem, &dt) || dt == BERTH_DTYPE_BOOL)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "output_datatype %s (%d) is not a numeric type berth has",
                   berth_onnx_elem_name(elem), (int)elem);
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = dt;
  t.rank = rank;
  for (int32_t k = 0; k < rank; k++) t.dims[k] = dims[k];
  if (!berth_type_check(&t)) return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "the result is over berth's size limits");
  int64_t n = berth_type_numel(&t);
  if (n > ((int64_t)1 << 24)) return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "the result has %lld values, over 2^24", (long long)n);
  for (int64_t i = 0; i < n; i++)
    if (!ox_double_fits(v[i], dt))
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "value %g at %lld does not fit output type %s", v[i], (long long)i,
                     berth_onnx_elem_name(elem));
  size_t es = berth_dtype_size(dt);
  char *d = malloc(n ? (size_t)n * es : 1);
  if (!d) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  for (int64_t i = 0; i < n; i++) {
    double x = v[i];
    switch (dt) {
      case BERTH_DTYPE_I8: ((int8_t *)d)[i] = (int8_t)x; break;
      case BERTH_DTYPE_U8: ((uint8_t *)d)[i] = (uint8_t)x; break;
      case BERTH_DTYPE_I16: ((int16_t *)d)[i] = (int16_t)x; break;
      case BERTH_DTYPE_U16: ((uint16_t *)d)[i] = (uint16_t)x; break;
      case BERTH_DTYPE_I32: ((int32_t *)d)[i] = (int32_t)x; break;
      case BERTH_DTYPE_U32: ((uint32_t *)d)[i] = (uint32_t)x; break;
      case BERTH_DTYPE_I64: ((int64_t *)d)[i] = (int64_t)x; break;
      case BERTH_DTYPE_U64: ((uint64_t *)d)[i] = (uint64_t)x; break;
      case BERTH_DTYPE_F32: ((float *)d)[i] = (float)x; break;
      default: ((double *)d)[i] = x; break;
    }
  }
  OX_TRY(ox_const_new(cx, &t, d, out));
  cx->vals[*out].elem = elem;
  return BERTH_OK;
}

enum { WIN_HANN, WIN_HAMMING, WIN_BLACKMAN };

static berth_status_t window(ox_ctx_t *cx, int kind) {
  int32_t sv, y;
  OX_TRY(ox_in_req(cx, 0, &sv));
  int64_t size;
  OX_TRY(const_count(cx, sv, "size", &size));
  if (size < 0 || size > ((int64_t)1 << 24))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "size %lld, expected 0..2^24", (long long)size);
  bool periodic = ox_attr_int(cx, "periodic", 1) != 0;
  int32_t elem = (int32_t)ox_attr_int(cx, "output_datatype", BERTH_ONNX_FLOAT);
  double *v = malloc((size_t)(size ? size : 1) * sizeof *v);
  if (!v) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  double n1 = (double)(periodic ? size : size - 1), pi = 3.14159265358979323846;
  for (int64_t i = 0; i < size; i++) {
    double t = (double)i;
    if (kind == WIN_HANN) {
      double s = sin(t * pi / n1);
      v[i] = s * s;
    } else if (kind == WIN_HAMMING) {
      v[i] = 25.0 / 46.0 - cos(t * pi * 2 / n1) * (1 - 25.0 / 46.0);
    } else {
      v[i] = cos(t * (pi * 2) / n1) * -0.5 + cos(t * (pi * 4) / n1) * 0.08 + 0.42;
    }
  }
  berth_status_t st = const_from_doubles(cx, elem, v, 1, &size, &y);
  free(v);
  OX_TRY(st);
  return ox_out(cx, 0, y);
}

static berth_status_t op_hann_window(ox_ctx_t *cx) { return window(cx, WIN_HANN); }
static berth_status_t op_hamming_window(ox_ctx_t *cx) { return window(cx, WIN_HAMMING); }
static berth_status_t op_blackman_window(ox_ctx_t *cx) { return window(cx, WIN_BLACKMAN); }

/* The mel edges as the reference computes them: in float32 when the edges are float32 (or
 * narrower), else in double; the bins from there in double. */
static double mel_of(double hz, bool f32) {
  if (f32) return (double)(2595.0f * log10f(1.0f + (float)hz / 700.0f));
  return 2595.0 * log10(1.0 + hz / 700.0);
}

static berth_status_t op_mel_weight_matrix(ox_ctx_t *cx) {
  int32_t v[5], y;
  for (int k = 0; k < 5; k++) OX_TRY(ox_in_req(cx, k, &v[k]));
  int64_t mels, dft, rate;
  double lo, hi;
  OX_TRY(const_count(cx, v[0], "num_mel_bins", &mels));
  OX_TRY(const_count(cx, v[1], "dft_length", &dft));
  OX_TRY(const_count(cx, v[2], "sample_rate", &rate));
  OX_TRY(ox_const_double(cx, v[3], "lower_edge_hertz", &lo));
  OX_TRY(ox_const_double(cx, v[4], "upper_edge_hertz", &hi));
  if (mels < 1 || mels > 4096 || dft < 1 || dft > ((int64_t)1 << 16) || rate < 1 || (dft / 2 + 1) * mels > ((int64_t)1 << 24))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "num_mel_bins %lld, dft_length %lld, sample_rate %lld: expected 1..4096, "
                   "1..65536 (at most 2^24 weights) and >= 1", (long long)mels, (long long)dft, (long long)rate);
  bool f32 = cx->vals[v[3]].type.dtype == BERTH_DTYPE_F32;
  int64_t bins = dft / 2 + 1, dims[2] = {bins, mels};
  double low = mel_of(lo, f32), high = mel_of(hi, f32);
  double step = f32 ? (double)(((float)high - (float)low) / (float)(mels + 2)) : (high - low) / (double)(mels + 2);
  int64_t *fb = malloc((size_t)(mels + 2) * sizeof *fb);
  double *w = calloc((size_t)(bins * mels), sizeof *w);
  if (!fb || !w) {
    free(fb);
    free(w);
    return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  }
  berth_status_t st = BERTH_OK;
  for (int64_t i = 0; i < mels + 2 && !st; i++) {
    double f = 700.0 * (pow(10.0, ((double)i * step + low) / 2595.0) - 1.0);
    double b = floor((double)(dft + 1) * f / (double)rate);
    if (!(b >= 0 && b < (double)bins)) /* NaN too */
      st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "mel edge %lld falls on bin %g, outside 0..%lld (check the edge hertz)",
                   (long long)i, b, (long long)bins - 1);
    else fb[i] = (int64_t)b;
  }
  for (int64_t i = 0; i < mels && !st; i++) {
    int64_t l = fb[i], c = fb[i + 1], h = fb[i + 2];
    if (c == l) w[c * mels + i] = 1;
    else
      for (int64_t j = l; j <= c; j++) w[j * mels + i] = (double)(j - l) / (double)(c - l);
    if (h > c)
      for (int64_t j = c; j < h; j++) w[j * mels + i] = (double)(h - j) / (double)(h - c);
  }
  if (!st) st = const_from_doubles(cx, (int32_t)ox_attr_int(cx, "output_datatype", BERTH_ONNX_FLOAT), w, 2, dims, &y);
  free(fb);
  free(w);
  OX_TRY(st);
  return ox_out(cx, 0, y);
}

const ox_op_row_t ox_ops_quant[] = {
    {"QuantizeLinear", op_quantize_linear, BERTH_OP_COUNT},
    {"DequantizeLinear", op_dequantize_linear, BERTH_OP_COUNT},
    {"DynamicQuantizeLinear", op_dynamic_quantize_linear, BERTH_OP_COUNT},
    {"MatMulInteger", op_matmul_integer, BERTH_OP_COUNT},
    {"QLinearMatMul", op_qlinear_matmul, BERTH_OP_COUNT},
    {"ConvInteger", op_conv_integer, BERTH_OP_COUNT},
    {"QLinearConv", op_qlinear_conv, BERTH_OP_COUNT},
    {"DFT", op_dft, BERTH_OP_COUNT},
    {"STFT", op_stft, BERTH_OP_COUNT},
    {"HannWindow", op_hann_window, BERTH_OP_COUNT},
    {"HammingWindow", op_hamming_window, BERTH_OP_COUNT},
    {"BlackmanWindow", op_blackman_window, BERTH_OP_COUNT},
    {"MelWeightMatrix", op_mel_weight_matrix, BERTH_OP_COUNT},
    {NULL, NULL, BERTH_OP_COUNT},
};
