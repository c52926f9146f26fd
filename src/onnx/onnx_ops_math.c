/* ONNX ops, math family: activations (LeakyRelu, PRelu, HardSigmoid, Elu, Selu, Gelu, ...),
 * Hardmax, the remaining elementwise math (trigonometric, Erf, Sign, Round, IsInf) and the
 * bitwise ops (BitwiseAnd/Or/Xor/Not, BitShift, BitCast).
 *
 * Each maps to one berth kernel (kernel_activation.c, kernel_hardmax.c, kernel_math.c,
 * kernel_bitwise.c) with ONNX's attributes and defaults; the kernels' infer refuses the
 * dtypes they lack with a message the importer prefixes with the node. float16 and bfloat16
 * values are computed in f32 and rounded to their type when the node's result is bound
 * (ox_out), as for every elementwise op. */
#include "onnx_internal.h"

#include <string.h>

/* An activation whose SCALAR attributes come from the node's float attributes, ONNX's
 * defaults where absent (berth's op defaults are the same values; they are written out so
 * that a translation reads on its own). */
static berth_status_t activation(ox_ctx_t *cx, const char *a0, double d0, const char *a1, double d1) {
  berth_op_t op = cx->row->op;
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(op, a);
  if (a0) OX_TRY(ox_attr_f(cx, op, a, a0, ox_attr_float(cx, a0, d0)));
  if (a1) OX_TRY(ox_attr_f(cx, op, a, a1, ox_attr_float(cx, a1, d1)));
  OX_TRY(ox_emit1(cx, op, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_alpha_001(ox_ctx_t *cx) { return activation(cx, "alpha", 0.01, NULL, 0); }
static berth_status_t op_alpha_1(ox_ctx_t *cx) { return activation(cx, "alpha", 1.0, NULL, 0); }
static berth_status_t op_hard_sigmoid(ox_ctx_t *cx) { return activation(cx, "alpha", 0.2, "beta", 0.5); }
static berth_status_t op_selu(ox_ctx_t *cx) {
  return activation(cx, "alpha", 1.67326319217681884765625, "gamma", 1.05070102214813232421875);
}
static berth_status_t op_shrink(ox_ctx_t *cx) { return activation(cx, "bias", 0.0, "lambd", 0.5); }

/* Gelu-20: approximate "none" (the erf form) or "tanh". */
static berth_status_t op_gelu(ox_ctx_t *cx) {
  char buf[16];
  const char *ap = ox_attr_string(cx, "approximate", "none", buf, sizeof buf);
  int64_t approx = strcmp(ap, "none") == 0 ? 0 : strcmp(ap, "tanh") == 0 ? 1 : -1;
  if (approx < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "approximate '%s', expected 'none' or 'tanh'", ap);
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_GELU, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_GELU, a, "approximate", approx));
  OX_TRY(ox_emit1(cx, BERTH_OP_GELU, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}

/* PRelu: slope is unidirectionally broadcast to X (the result has X's shape). Before opset 7
 * the slope is X's shape, one element, or one value per channel (a 1-D slope of X's dim 1,
 * as Caffe2 and PyTorch's exports mean it): that one is reshaped to [C, 1, ...]. */
static berth_status_t op_prelu(ox_ctx_t *cx) {
  int32_t in[2], y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  const berth_type_t *tx = &cx->vals[in[0]].type, *ts = &cx->vals[in[1]].type;
  if (cx->opset < 7 && tx->rank > 2 && ts->rank == 1 && ts->dims[0] == tx->dims[1] && ts->dims[0] != 1) {
    int64_t dims[BERTH_MAX_RANK];
    int32_t rank = tx->rank - 1;
    dims[0] = ts->dims[0];
    for (int32_t k = 1; k < rank; k++) dims[k] = 1;
    OX_TRY(ox_emit_reshape(cx, in[1], dims, rank, &in[1]));
  }
  OX_TRY(ox_emit1(cx, BERTH_OP_PRELU, 2, in, NULL, &y));
  if (!berth_type_equal(&cx->vals[y].type, &cx->vals[in[0]].type)) {
    char sx[160], ss[160];
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "slope %s does not broadcast to X %s (the result must have X's shape)",
                   berth_type_format(&cx->vals[in[1]].type, ss, sizeof ss),
                   berth_type_format(&cx->vals[in[0]].type, sx, sizeof sx));
  }
  return ox_out(cx, 0, y);
}

/* Hardmax: before opset 13 the input is coerced to 2-D at axis (default 1); from 13 on the
 * one axis (default -1). */
static berth_status_t op_hardmax(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_HARDMAX, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_HARDMAX, a, "axis", ox_attr_int(cx, "axis", cx->opset < 13 ? 1 : -1)));
  OX_TRY(ox_attr_i(cx, BERTH_OP_HARDMAX, a, "legacy", cx->opset < 13));
  OX_TRY(ox_emit1(cx, BERTH_OP_HARDMAX, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_isinf(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_ISINF, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_ISINF, a, "detect_positive", ox_attr_int(cx, "detect_positive", 1) != 0));
  OX_TRY(ox_attr_i(cx, BERTH_OP_ISINF, a, "detect_negative", ox_attr_int(cx, "detect_negative", 1) != 0));
  OX_TRY(ox_emit1(cx, BERTH_OP_ISINF, 1, &x, a, &y));
  return ox_out(cx, 0, y);
}

/* BitShift: direction "LEFT" or "RIGHT" (required). */
static berth_status_t op_bit_shift(ox_ctx_t *cx) {
  char buf[16];
  const char *dir = ox_attr_string(cx, "direction", NULL, buf, sizeof buf);
  if (!dir) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'direction' is missing");
  int64_t d = strcmp(dir, "LEFT") == 0 ? 0 : strcmp(dir, "RIGHT") == 0 ? 1 : -1;
  if (d < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "direction '%s', expected 'LEFT' or 'RIGHT'", dir);
  int32_t in[2], y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_BIT_SHIFT, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_BIT_SHIFT, a, "direction", d));
  OX_TRY(ox_emit1(cx, BERTH_OP_BIT_SHIFT, 2, in, a, &y));
  return ox_out(cx, 0, y);
}

/* BitCast-26: the bits of each element as type `to` of the same width. float16 and
 * bfloat16 are held in f32: between one of them and a 16-bit integer the bitcast kernel
 * encodes or decodes the type's bits (format attribute); between the two of them it goes
 * through uint16. The other narrow types (float8, float4, int4, int2) are refused. */
static int64_t bitcast_format(int32_t elem) {
  return elem == BERTH_ONNX_FLOAT16 ? BERTH_NARROW_F16 : elem == BERTH_ONNX_BFLOAT16 ? BERTH_NARROW_BF16 : -1;
}

static berth_status_t emit_bitcast(ox_ctx_t *cx, int32_t x, berth_dtype_t to, int64_t format, int32_t *y) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_BITCAST, a);
  a[0].i = to;
  OX_TRY(ox_attr_i(cx, BERTH_OP_BITCAST, a, "format", format));
  return ox_emit1(cx, BERTH_OP_BITCAST, 1, &x, a, y);
}

static berth_status_t op_bitcast(ox_ctx_t *cx) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  const Onnx__AttributeProto *to = ox_attr(cx, "to");
  if (!to || !to->has_i) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'to' is missing");
  if (to->i < 0 || to->i >= BERTH_ONNX_ELEM_COUNT)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'to' is %lld, which is no ONNX element type",
                   (long long)to->i);
  int32_t to_elem = (int32_t)to->i, from_elem = cx->vals[x].elem;
  int64_t ff = bitcast_format(from_elem), tf = bitcast_format(to_elem);
  berth_dtype_t dt;
  if ((berth_onnx_elem_is_narrow(from_elem) && ff < 0) || (berth_onnx_elem_is_narrow(to_elem) && tf < 0) ||
      !berth_onnx_elem_dtype(to_elem, &dt))
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED,
                   "bitcast from %s to %s: berth holds float8, float4, int4 and int2 in a wider dtype and bitcasts "
                   "only float16 and bfloat16 among the narrow types",
                   berth_onnx_elem_name(from_elem), berth_onnx_elem_name(to_elem));
  if (ff >= 0 && tf >= 0) { /* float16 <-> bfloat16 (or to itself): through the bits */
    int32_t bits;
    OX_TRY(emit_bitcast(cx, x, BERTH_DTYPE_U16, ff, &bits));
    OX_TRY(emit_bitcast(cx, bits, BERTH_DTYPE_F32, tf, &y));
  } else {
    OX_TRY(emit_bitcast(cx, x, dt, ff >= 0 ? ff : tf, &y));
  }
  cx->vals[y].elem = to_elem;
  return ox_out(cx, 0, y);
}

const ox_op_row_t ox_ops_math[] = {
    /* activations */
    {"LeakyRelu", op_alpha_001, BERTH_OP_LEAKY_RELU},
    {"PRelu", op_prelu, BERTH_OP_PRELU},
    {"HardSigmoid", op_hard_sigmoid, BERTH_OP_HARD_SIGMOID},
    {"HardSwish", ox_unary, BERTH_OP_HARD_SWISH},
    {"Elu", op_alpha_1, BERTH_OP_ELU},
    {"Selu", op_selu, BERTH_OP_SELU},
    {"Celu", op_alpha_1, BERTH_OP_CELU},
    {"Gelu", op_gelu, BERTH_OP_GELU},
    {"Mish", ox_unary, BERTH_OP_MISH},
    {"Softplus", ox_unary, BERTH_OP_SOFTPLUS},
    {"Softsign", ox_unary, BERTH_OP_SOFTSIGN},
    {"ThresholdedRelu", op_alpha_1, BERTH_OP_THRESHOLDED_RELU},
    {"Swish", op_alpha_1, BERTH_OP_SWISH},
    {"Shrink", op_shrink, BERTH_OP_SHRINK},
    {"Hardmax", op_hardmax, BERTH_OP_HARDMAX},
    /* elementwise math */
    {"Sin", ox_unary, BERTH_OP_SIN},
    {"Cos", ox_unary, BERTH_OP_COS},
    {"Tan", ox_unary, BERTH_OP_TAN},
    {"Asin", ox_unary, BERTH_OP_ASIN},
    {"Acos", ox_unary, BERTH_OP_ACOS},
    {"Atan", ox_unary, BERTH_OP_ATAN},
    {"Sinh", ox_unary, BERTH_OP_SINH},
    {"Cosh", ox_unary, BERTH_OP_COSH},
    {"Asinh", ox_unary, BERTH_OP_ASINH},
    {"Acosh", ox_unary, BERTH_OP_ACOSH},
    {"Atanh", ox_unary, BERTH_OP_ATANH},
    {"Erf", ox_unary, BERTH_OP_ERF},
    {"Sign", ox_unary, BERTH_OP_SIGN},
    {"Round", ox_unary, BERTH_OP_ROUND},
    {"IsInf", op_isinf, BERTH_OP_ISINF},
    /* integer bit ops */
    {"BitwiseAnd", ox_binary, BERTH_OP_BITWISE_AND},
    {"BitwiseOr", ox_binary, BERTH_OP_BITWISE_OR},
    {"BitwiseXor", ox_binary, BERTH_OP_BITWISE_XOR},
    {"BitwiseNot", ox_unary, BERTH_OP_BITWISE_NOT},
    {"BitShift", op_bit_shift, BERTH_OP_BIT_SHIFT},
    {"BitCast", op_bitcast, BERTH_OP_BITCAST},
    {NULL, NULL, BERTH_OP_COUNT},
};
