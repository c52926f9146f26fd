/* quantize_linear(x, scale[, zp]) {axis, block_size, dtype, qmin, qmax, round_format} and
 * dequantize_linear(x, scale[, zp]) {axis, block_size, dtype}: ONNX QuantizeLinear and
 * DequantizeLinear at every granularity.
 *
 * The scale (and zp, of the scale's shape) is per tensor (one element), per axis (1-D, the
 * length of x's dim `axis`, block_size 0) or blocked (x's rank, x's dims but at `axis`, where
 * it has ceil(D / block_size) elements: element i of that dim uses scale element
 * i / block_size).
 *
 * quantize_linear: x and scale of one float dtype; q = x / scale in it, rounded to the narrow
 *   format round_format first when that is >= 0 (a division in float16 or bfloat16
 *   precision); then for an integer dtype y = clamp(rint(q) + zp, qmin, qmax) (ties to even;
 *   NaN quantizes to the zero point), for f32 y = q + zp (the importer rounds that to a
 *   float8 or float4 type). zp: any integer dtype or f32.
 * dequantize_linear: y = (x - zp) * scale computed in f64 (exact for every integer x and
 *   f32 scale: the reference's f32 arithmetic is exact there too), rounded once to dtype (f32
 *   or f64). x: an integer dtype or f32 (float8 and float4 values); zp of x's dtype; scale
 *   f32 or f64. */
#include "kernel_narrow.h"
#include "kernel_util.h"

#include <math.h>
#include <string.h>

enum { Q_AXIS, Q_BLOCK, Q_DTYPE, Q_QMIN, Q_QMAX, Q_ROUND };

/* Element (o, i, n) of x viewed as [outer, D, inner] uses scale element
 * o * so + (i / block) * si + n * sn. */
typedef struct quant_plan {
  int64_t outer, d, inner;
  int64_t so, si, sn, block;
} quant_plan_t;

#define QUANT_MASK_X (BERTH_MASK_INT | BERTH_DTYPE_BIT(F32))

/* The layout of x against its scale: per tensor (one scale), per axis (block 0) or blocked.
 * Pure arithmetic on shapes that quant_check_scale (at infer) has validated, so that run
 * derives it without validating again. */
static void quant_layout(const berth_attr_value_t *attrs, const berth_type_t *x, const berth_type_t *s,
                         quant_plan_t *p) {
  memset(p, 0, sizeof *p);
  p->outer = p->d = p->inner = p->block = 1;
  if (berth_kernel_is_empty(x)) {
    p->outer = 0;
    return;
  }
  if (berth_type_numel(s) == 1) { /* per tensor */
    p->d = berth_type_numel(x);
    return;
  }
  int32_t axis = (int32_t)(attrs[Q_AXIS].i < 0 ? attrs[Q_AXIS].i + x->rank : attrs[Q_AXIS].i);
  for (int32_t k = 0; k < x->rank; k++) {
    if (k < axis) p->outer *= x->dims[k];
    else if (k > axis) p->inner *= x->dims[k];
  }
  p->d = x->dims[axis];
  p->si = 1;
  int64_t block = attrs[Q_BLOCK].i;
  if (block == 0) return;
  int64_t nb = (p->d + block - 1) / block;
  p->block = block;
  p->so = nb * p->inner;
  p->si = p->inner;
  p->sn = 1;
}

/* Checks the scale (and zero point) against x, axis and block_size; then the layout. */
static berth_status_t quant_plan(const char *op, const berth_attr_value_t *attrs, const berth_type_t *x,
                                 const berth_type_t *s, const berth_type_t *zp, quant_plan_t *p, berth_diag_t *diag) {
  char a[160], b[160];
  bool one = berth_type_numel(s) == 1 && zp && berth_type_numel(zp) == 1; /* [] and [1] alike */
  if (zp && !one && (zp->rank != s->rank || memcmp(zp->dims, s->dims, sizeof(int64_t) * (size_t)s->rank) != 0))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: zero point %s does not have the scale's shape %s", op,
                      berth_type_format(zp, a, sizeof a), berth_type_format(s, b, sizeof b));
  int64_t block = attrs[Q_BLOCK].i;
  if (block < 0 || block > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: block_size %lld is out of range (expected 0..2^40)", op,
                      (long long)block);
  if (berth_kernel_is_empty(x) || berth_type_numel(s) == 1) {
    quant_layout(attrs, x, s, p);
    return BERTH_OK;
  }
  int32_t axis;
  BERTH_TRY(berth_kernel_axis(op, "axis", attrs[Q_AXIS].i, x->rank, &axis, diag));
  int64_t d = x->dims[axis];
  if (block == 0) {
    if (s->rank != 1 || s->dims[0] != d)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "%s: scale %s is neither one value nor 1-D of x's dim %d (%lld) for per-axis quantization "
                        "(blocked quantization needs block_size)",
                        op, berth_type_format(s, a, sizeof a), (int)axis, (long long)d);
    quant_layout(attrs, x, s, p);
    return BERTH_OK;
  }
  int64_t nb = (d + block - 1) / block;
  bool ok = s->rank == x->rank;
  for (int32_t k = 0; ok && k < x->rank; k++) ok = s->dims[k] == (k == axis ? nb : x->dims[k]);
  if (!ok)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "%s: scale %s does not fit x %s blocked by %lld along axis %d (expected x's dims with "
                      "ceil(%lld / %lld) = %lld at that axis)",
                      op, berth_type_format(s, a, sizeof a), berth_type_format(x, b, sizeof b), (long long)block,
                      (int)axis, (long long)d, (long long)block, (long long)nb);
  quant_layout(attrs, x, s, p);
  return BERTH_OK;
}

static double load_d(const void *base, berth_dtype_t dt, int64_t i) {
  switch (dt) {
    case BERTH_DTYPE_I8: return ((const int8_t *)base)[i];
    case BERTH_DTYPE_U8: return ((const uint8_t *)base)[i];
    case BERTH_DTYPE_I16: return ((const int16_t *)base)[i];
    case BERTH_DTYPE_U16: return ((const uint16_t *)base)[i];
    case BERTH_DTYPE_I32: return ((const int32_t *)base)[i];
    case BERTH_DTYPE_U32: return ((const uint32_t *)base)[i];
    case BERTH_DTYPE_I64: return (double)((const int64_t *)base)[i];
    case BERTH_DTYPE_U64: return (double)((const uint64_t *)base)[i];
    case BERTH_DTYPE_F32: return ((const float *)base)[i];
    case BERTH_DTYPE_F64: return ((const double *)base)[i];
    default: return ((const uint8_t *)base)[i] != 0;
  }
}

/* v is an integer within the dtype's range (the caller clamped it). */
static void store_int(void *base, berth_dtype_t dt, int64_t i, double v) {
  switch (dt) {
    case BERTH_DTYPE_I8: ((int8_t *)base)[i] = (int8_t)v; break;
    case BERTH_DTYPE_U8: ((uint8_t *)base)[i] = (uint8_t)v; break;
    case BERTH_DTYPE_I16: ((int16_t *)base)[i] = (int16_t)v; break;
    case BERTH_DTYPE_U16: ((uint16_t *)base)[i] = (uint16_t)v; break;
    case BERTH_DTYPE_I32: ((int32_t *)base)[i] = (int32_t)v; break;
    default: ((uint32_t *)base)[i] = (uint32_t)v; break;
  }
}

/* The range of an integer output dtype of quantize_linear. */
static bool qrange(berth_dtype_t dt, double *lo, double *hi) {
  switch (dt) {
    case BERTH_DTYPE_I8: *lo = -128, *hi = 127; return true;
    case BERTH_DTYPE_U8: *lo = 0, *hi = 255; return true;
    case BERTH_DTYPE_I16: *lo = -32768, *hi = 32767; return true;
    case BERTH_DTYPE_U16: *lo = 0, *hi = 65535; return true;
    case BERTH_DTYPE_I32: *lo = -2147483648.0, *hi = 2147483647.0; return true;
    case BERTH_DTYPE_U32: *lo = 0, *hi = 4294967295.0; return true;
    default: return false;
  }
}

/* ==== quantize_linear ================================================================== */

static berth_status_t quantize_check(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                     berth_type_t *out, quant_plan_t *p, berth_diag_t *diag) {
  const char *op = "quantize_linear";
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_quantize_linear, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, 1, diag));
  if (n_in > 2)
    BERTH_TRY(berth_kernel_check_dtype(op, 2, in[2].dtype,
                                       (BERTH_MASK_INT & ~(BERTH_DTYPE_BIT(I64) | BERTH_DTYPE_BIT(U64))) |
                                           BERTH_DTYPE_BIT(F32),
                                       diag));
  berth_dtype_t dt;
  BERTH_TRY(berth_kernel_get_dtype(op, "dtype", &attrs[Q_DTYPE], &dt, diag));
  double lo, hi;
  if (dt != BERTH_DTYPE_F32) {
    if (!qrange(dt, &lo, &hi))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: dtype %s, expected f32 or an integer dtype of at most 32 bits",
                        op, berth_dtype_name(dt));
    if (attrs[Q_QMIN].i < lo || attrs[Q_QMAX].i > hi || attrs[Q_QMIN].i > attrs[Q_QMAX].i)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: range [%lld, %lld] is not within %s", op,
                        (long long)attrs[Q_QMIN].i, (long long)attrs[Q_QMAX].i, berth_dtype_name(dt));
  }
  int64_t rf = attrs[Q_ROUND].i;
  if (rf != -1 && rf != BERTH_NARROW_F16 && rf != BERTH_NARROW_BF16)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: round_format %lld, expected -1, %d (float16) or %d (bfloat16)",
                      op, (long long)rf, BERTH_NARROW_F16, BERTH_NARROW_BF16);
  BERTH_TRY(quant_plan(op, attrs, &in[0], &in[1], n_in > 2 ? &in[2] : NULL, p, diag));
  out[0] = in[0];
  out[0].dtype = dt;
  return BERTH_OK;
}

static berth_status_t quantize_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                     berth_type_t *out, berth_diag_t *diag) {
  quant_plan_t p;
  return quantize_check(attrs, in, n_in, out, &p, diag);
}

static void quantize_run(const berth_kernel_call_t *call) {
  quant_plan_t p;
  quant_layout(call->attrs, call->in[0].type, call->in[1].type, &p);
  berth_dtype_t xt = call->in[0].type->dtype, dt = call->out[0].type->dtype;
  berth_dtype_t zt = call->n_in > 2 ? call->in[2].type->dtype : BERTH_DTYPE_COUNT;
  const void *x = call->in[0].data, *s = call->in[1].data, *z = call->n_in > 2 ? call->in[2].data : NULL;
  void *y = call->out[0].data;
  double lo = (double)call->attrs[Q_QMIN].i, hi = (double)call->attrs[Q_QMAX].i;
  int64_t rf = call->attrs[Q_ROUND].i;
  int64_t e = 0;
  for (int64_t o = 0; o < p.outer; o++)
    for (int64_t i = 0; i < p.d; i++) {
      int64_t sbase = o * p.so + (i / p.block) * p.si;
      for (int64_t n = 0; n < p.inner; n++, e++) {
        int64_t si = sbase + n * p.sn;
        double q;
        if (xt == BERTH_DTYPE_F32) q = (double)(((const float *)x)[e] / ((const float *)s)[si]);
        else q = ((const double *)x)[e] / ((const double *)s)[si];
        if (rf >= 0) {
          float r;
          berth_narrow_convert((berth_narrow_format_t)rf, true, BERTH_NARROW_ROUND_UP, BERTH_DTYPE_F64, &q, &r, 1);
          q = r;
        }
        double zp = z ? load_d(z, zt, si) : 0;
        if (dt == BERTH_DTYPE_F32) {
          ((float *)y)[e] = (float)(q + zp);
          continue;
        }
        double v = (q != q ? 0 : rint(q)) + zp;
        v = v < lo ? lo : v > hi ? hi : v;
        store_int(y, dt, e, v);
      }
    }
}

/* ==== dequantize_linear ================================================================ */

static berth_status_t dequantize_check(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                       berth_type_t *out, quant_plan_t *p, berth_diag_t *diag) {
  const char *op = "dequantize_linear";
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_dequantize_linear, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, QUANT_MASK_X, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 1, in[1].dtype, BERTH_MASK_FLOAT, diag));
  if (n_in > 2) BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, 2, diag));
  berth_dtype_t dt;
  BERTH_TRY(berth_kernel_get_dtype(op, "dtype", &attrs[Q_DTYPE], &dt, diag));
  if (dt != BERTH_DTYPE_F32 && dt != BERTH_DTYPE_F64)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: dtype %s, expected f32 or f64", op, berth_dtype_name(dt));
  BERTH_TRY(quant_plan(op, attrs, &in[0], &in[1], n_in > 2 ? &in[2] : NULL, p, diag));
  out[0] = in[0];
  out[0].dtype = dt;
  return BERTH_OK;
}

static berth_status_t dequantize_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                       berth_type_t *out, berth_diag_t *diag) {
  quant_plan_t p;
  return dequantize_check(attrs, in, n_in, out, &p, diag);
}

static void dequantize_run(const berth_kernel_call_t *call) {
  quant_plan_t p;
  quant_layout(call->attrs, call->in[0].type, call->in[1].type, &p);
  berth_dtype_t xt = call->in[0].type->dtype, st = call->in[1].type->dtype;
  bool f32 = call->out[0].type->dtype == BERTH_DTYPE_F32;
  const void *x = call->in[0].data, *s = call->in[1].data, *z = call->n_in > 2 ? call->in[2].data : NULL;
  void *y = call->out[0].data;
  int64_t e = 0;
  for (int64_t o = 0; o < p.outer; o++)
    for (int64_t i = 0; i < p.d; i++) {
      int64_t sbase = o * p.so + (i / p.block) * p.si;
      for (int64_t n = 0; n < p.inner; n++, e++) {
        int64_t si = sbase + n * p.sn;
        double v = (load_d(x, xt, e) - (z ? load_d(z, xt, si) : 0)) * load_d(s, st, si);
        if (f32) ((float *)y)[e] = (float)v;
        else ((double *)y)[e] = v;
      }
    }
}

static const berth_attr_spec_t quantize_attrs[] = {
    {"axis", BERTH_ATTR_INT, false, 1, 0},   {"block_size", BERTH_ATTR_INT, false, 0, 0},
    {"dtype", BERTH_ATTR_DTYPE, true, 0, 0}, {"qmin", BERTH_ATTR_INT, false, 0, 0},
    {"qmax", BERTH_ATTR_INT, false, 255, 0}, {"round_format", BERTH_ATTR_INT, false, -1, 0},
};
const berth_op_def_t berth_op_def_quantize_linear = {"quantize_linear", BERTH_OPKIND_KERNEL, 2, 3, 1, 6,
                                                     quantize_attrs, quantize_infer, quantize_run};
const berth_op_def_t berth_op_def_dequantize_linear = {"dequantize_linear", BERTH_OPKIND_KERNEL, 2, 3, 1, 3,
                                                       quantize_attrs, dequantize_infer, dequantize_run};
