/* Normalization: ONNX BatchNormalization (inference), LayerNormalization, RMSNormalization,
 * GroupNormalization and InstanceNormalization, LRN.
 *
 *   batch_norm(x, scale, bias, mean, var) {epsilon}
 *       x [N, C, D...] (rank >= 2), the others [C]:
 *       y = scale[c] * (x - mean[c]) / sqrt(var[c] + epsilon) + bias[c]
 *   layer_norm(x, scale[, bias]) {axis, epsilon} -> (y, mean, inv_std_dev)
 *       normalizes each run of the dims from axis on (scale and bias have exactly those
 *       dims): mean and inv_std_dev = 1 / sqrt(variance + epsilon) (population variance)
 *       have x's dims before axis and 1 after; y = (x - mean) * inv_std_dev * scale + bias
 *   rms_norm(x, scale) {axis, epsilon}
 *       y = x / sqrt(mean(x^2 over the dims from axis on) + epsilon) * scale
 *   group_norm(x, scale, bias) {groups, epsilon}
 *       x [N, C, D...], scale and bias [C], groups divides C: each group of C / groups
 *       channels of a sample is normalized together (groups = C is InstanceNormalization):
 *       y = scale[c] * (x - mean) / sqrt(var + epsilon) + bias[c]
 *   lrn(x) {size, alpha, beta, bias}
 *       x [N, C, D...]: y = x / (bias + alpha / size * sum of x^2 over the channels
 *       c - floor((size-1)/2) .. c + ceil((size-1)/2))^beta
 *
 * Floats (f32, f64); the means and variances of f32 data are summed in f64 (layer_norm and
 * rms_norm: with partial sums, within 2^-36 of the sum of the terms' magnitudes for rows
 * below 2^20, then the mean and 1 / sqrt(variance + eps) rounded to f32; a row is one call of
 * the kernel variant's layer_norm_row_f32, kernel_norm_ukr.h, or where it has none, the
 * portable one, ln_f32 here with kernel_sum_f64.h's eight partial sums: the same bits but
 * where an f64 sum rounds differently; one-node LayerNormalization 197x768 on AVX2 316 -> 58
 * us, onnxruntime 80). Every kernel is one or two passes over x with no scratch memory (lrn sums
 * its squares in y first). */
#include "kernel_util.h"

#include "base/checked.h"

#include "kernel_dot.h"
#include "kernel_isa.h"
#include "kernel_sum_f64.h"

#include <math.h>
#include <string.h>

/* A vector square root of four floats, where the target has one (SSE, NEON). */
#if BERTH_DOT_VECTOR && (defined(__SSE2__) || defined(__aarch64__))
#define LRN_SQRT4 1
#if defined(__SSE2__)
#include <emmintrin.h>
static inline berth_v4f lrn_sqrt4(berth_v4f v) { return (berth_v4f)_mm_sqrt_ps((__m128)v); }
#else
#include <arm_neon.h>
static inline berth_v4f lrn_sqrt4(berth_v4f v) { return (berth_v4f)vsqrtq_f32((float32x4_t)v); }
#endif
#else
#define LRN_SQRT4 0
#endif

static berth_status_t norm_check_params(const char *op, const berth_type_t *in, int32_t first, int32_t n_in,
                                        const berth_type_t *want, berth_diag_t *diag) {
  char sa[160], sb[160];
  for (int32_t i = first; i < n_in; i++) {
    BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, i, diag));
    bool same = in[i].rank == want->rank;
    for (int32_t k = 0; same && k < want->rank; k++) same = in[i].dims[k] == want->dims[k];
    if (!same)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: operand %d is %s, expected shape %s", op, (int)i,
                        berth_type_format(&in[i], sa, sizeof sa), berth_type_format(want, sb, sizeof sb));
  }
  return BERTH_OK;
}

static berth_status_t norm_check_x(const char *op, const berth_type_t *x, int32_t min_rank, berth_diag_t *diag) {
  char sa[160];
  BERTH_TRY(berth_kernel_check_dtype(op, 0, x->dtype, BERTH_MASK_FLOAT, diag));
  if (x->rank < min_rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: input %s has rank %d, expected at least %d", op,
                      berth_type_format(x, sa, sizeof sa), (int)x->rank, (int)min_rank);
  return BERTH_OK;
}

static berth_status_t norm_check_eps(const char *op, const berth_attr_value_t *a, berth_diag_t *diag) {
  if (!(a->f >= 0 && a->f < INFINITY))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: epsilon is %g, expected a finite number >= 0", op, a->f);
  return BERTH_OK;
}

/* [C] of x's channel dim (x rank >= 2), and the product of the dims after it. */
static void norm_channels(const berth_type_t *x, berth_type_t *c, int64_t *inner) {
  berth_kernel_type_init(c, x->dtype, 1);
  c->dims[0] = x->dims[1];
  *inner = 1;
  for (int32_t k = 2; k < x->rank; k++) *inner *= x->dims[k];
}

/* ---- batch_norm ----------------------------------------------------------------------- */

static berth_status_t batch_norm_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                       berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_batch_norm, in, n_in, diag));
  BERTH_TRY(norm_check_x("batch_norm", &in[0], 2, diag));
  BERTH_TRY(norm_check_eps("batch_norm", &attrs[0], diag));
  berth_type_t c;
  int64_t inner;
  norm_channels(&in[0], &c, &inner);
  BERTH_TRY(norm_check_params("batch_norm", in, 1, n_in, &c, diag));
  out[0] = in[0];
  return BERTH_OK;
}

/* y = (x - mean) * k + bias with k = scale / sqrt(var + epsilon) once per channel: one
 * subtraction, multiplication and addition per element (no division). */
#define BATCH_NORM_FN(s, T, SQRT)                                                                        \
  static void batch_norm_##s(const berth_kernel_call_t *call, int64_t n, int64_t ch, int64_t inner) {     \
    const T *x = (const T *)call->in[0].data, *sc = (const T *)call->in[1].data;                           \
    const T *bi = (const T *)call->in[2].data, *mu = (const T *)call->in[3].data;                          \
    const T *va = (const T *)call->in[4].data, eps = (T)call->attrs[0].f;                                  \
    T *y = (T *)call->out[0].data;                                                                       \
    for (int64_t b = 0; b < n; b++)                                                                      \
      for (int64_t c = 0; c < ch; c++) {                                                                 \
        const T k = sc[c] / SQRT(va[c] + eps), m = mu[c], o = bi[c];                                      \
        const T *xr = x + (b * ch + c) * inner;                                                          \
        T *yr = y + (b * ch + c) * inner;                                                                \
        BERTH_VLOOP(i, inner, yr[i] = (xr[i] - m) * k + o;);                                              \
      }                                                                                                  \
  }
BATCH_NORM_FN(f32, float, sqrtf)
BATCH_NORM_FN(f64, double, sqrt)

static void batch_norm_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  if (berth_kernel_is_empty(x)) return;
  berth_type_t c;
  int64_t inner;
  norm_channels(x, &c, &inner);
  if (x->dtype == BERTH_DTYPE_F32) batch_norm_f32(call, x->dims[0], x->dims[1], inner);
  else batch_norm_f64(call, x->dims[0], x->dims[1], inner);
}

static const berth_attr_spec_t batch_norm_attrs[] = {{"epsilon", BERTH_ATTR_SCALAR, false, 0, 1e-5}};
const berth_op_def_t berth_op_def_batch_norm = {"batch_norm", BERTH_OPKIND_KERNEL, 5, 5, 1, 1, batch_norm_attrs,
                                                batch_norm_infer, batch_norm_run};

/* ---- layer_norm and rms_norm ---------------------------------------------------------------- */

enum { LN_AXIS, LN_EPSILON };

/* rows x cols: the dims before axis, the dims from axis on; *norm the latter's shape. */
static berth_status_t ln_plan(const char *op, const berth_attr_value_t *attrs, const berth_type_t *x, int64_t *rows,
                              int64_t *cols, berth_type_t *norm, berth_diag_t *diag) {
  BERTH_TRY(norm_check_x(op, x, 1, diag));
  BERTH_TRY(norm_check_eps(op, &attrs[LN_EPSILON], diag));
  int32_t axis;
  BERTH_TRY(berth_kernel_axis(op, "axis", attrs[LN_AXIS].i, x->rank, &axis, diag));
  berth_kernel_type_init(norm, x->dtype, x->rank - axis);
  /* each product separately: one of them may hold a 0 that the other's dims do not bound */
  *rows = *cols = 1;
  for (int32_t k = 0; k < x->rank; k++) {
    int64_t *acc = k < axis ? rows : cols;
    if (k >= axis) norm->dims[k - axis] = x->dims[k];
    if (!berth_mul_i64(*acc, x->dims[k], acc)) {
      char sa[160];
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "%s: input %s is too large (over 2^63 elements)", op,
                        berth_type_format(x, sa, sizeof sa));
    }
  }
  return BERTH_OK;
}

static berth_status_t layer_norm_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                       berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_layer_norm, in, n_in, diag));
  int64_t rows, cols;
  berth_type_t norm;
  BERTH_TRY(ln_plan("layer_norm", attrs, &in[0], &rows, &cols, &norm, diag));
  BERTH_TRY(norm_check_params("layer_norm", in, 1, n_in, &norm, diag));
  out[0] = in[0];
  out[1] = in[0];
  for (int32_t k = in[0].rank - norm.rank; k < in[0].rank; k++) out[1].dims[k] = 1;
  out[2] = out[1];
  BERTH_TRY(berth_kernel_check_output("layer_norm", &out[1], diag));
  return BERTH_OK;
}

static berth_status_t rms_norm_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                     berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_rms_norm, in, n_in, diag));
  int64_t rows, cols;
  berth_type_t norm;
  BERTH_TRY(ln_plan("rms_norm", attrs, &in[0], &rows, &cols, &norm, diag));
  BERTH_TRY(norm_check_params("rms_norm", in, 1, n_in, &norm, diag));
  out[0] = in[0];
  return BERTH_OK;
}

/* One row: mean (unless rms) and the inverse of sqrt(variance or mean square + eps). */
#define LN_FN(s, T, SQRT, SUM, SQDEV)                                                            \
  static void ln_##s(const berth_kernel_call_t *call, int64_t rows, int64_t cols, bool rms) {                 \
    const T *x = (const T *)call->in[0].data, *sc = (const T *)call->in[1].data;                               \
    const T *bi = !rms && call->n_in == 3 ? (const T *)call->in[2].data : NULL;                                \
    const double eps = call->attrs[LN_EPSILON].f;                                                            \
    T *y = (T *)call->out[0].data;                                                                           \
    for (int64_t r = 0; r < rows; r++) {                                                                     \
      const T *xr = x + r * cols;                                                                            \
      T *yr = y + r * cols;                                                                                  \
      const T mean = rms ? 0 : (T)(SUM(xr, cols) / (double)cols);                                            \
      const double sq = SQDEV(xr, cols, (double)mean);                                                       \
      const T inv = (T)(1.0 / SQRT((T)(sq / (double)cols) + (T)eps));                                       \
      if (bi) {                                                                                              \
        BERTH_VLOOP(i, cols, yr[i] = (xr[i] - mean) * inv * sc[i] + bi[i];);                                 \
      } else {                                                                                               \
        BERTH_VLOOP(i, cols, yr[i] = (xr[i] - mean) * inv * sc[i];);                                         \
      }                                                                                                      \
      if (!rms) {                                                                                            \
        ((T *)call->out[1].data)[r] = mean;                                                                  \
        ((T *)call->out[2].data)[r] = inv;                                                                   \
      }                                                                                                      \
    }                                                                                                        \
  }
/* f64 data: sums in order (kernel_sum_f64.h's lanes are for f32 runs) */
static double ln_sum_f64(const double *x, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += x[i];
  return s;
}
static double ln_sqdev_f64(const double *x, int64_t n, double mean) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += (x[i] - mean) * (x[i] - mean);
  return s;
}
LN_FN(f32, float, sqrtf, berth_sum_f64_f32, berth_sqdev_f64_f32)
LN_FN(f64, double, sqrt, ln_sum_f64, ln_sqdev_f64)

static void ln_run_common(const berth_kernel_call_t *call, bool rms) {
  int64_t rows, cols;
  berth_type_t norm;
  const berth_type_t *x = call->in[0].type;
  ln_plan(rms ? "rms_norm" : "layer_norm", call->attrs, x, &rows, &cols, &norm, NULL);
  /* an empty x: nothing to do for rms_norm; layer_norm still writes its (bounded) mean and
   * inv_std_dev, NaN (0 / 0) where the normalized dims are empty */
  if (rms && berth_kernel_is_empty(x)) return;
  if (rows == 0) return;
  if (x->dtype == BERTH_DTYPE_F64) {
    ln_f64(call, rows, cols, rms);
    return;
  }
  void (*row)(const float *, const float *, const float *, float *, int64_t, float, int, float *, float *) =
      berth_kernel_isa()->layer_norm_row_f32;
  if (!row) {
    ln_f32(call, rows, cols, rms);
    return;
  }
  const float *xs = (const float *)call->in[0].data, *sc = (const float *)call->in[1].data;
  const float *bi = !rms && call->n_in == 3 ? (const float *)call->in[2].data : NULL;
  float *y = (float *)call->out[0].data, mean, inv;
  for (int64_t r = 0; r < rows; r++) {
    row(xs + r * cols, sc, bi, y + r * cols, cols, (float)call->attrs[LN_EPSILON].f, rms, &mean, &inv);
    if (!rms) {
      ((float *)call->out[1].data)[r] = mean;
      ((float *)call->out[2].data)[r] = inv;
    }
  }
}
static void layer_norm_run(const berth_kernel_call_t *call) { ln_run_common(call, false); }
static void rms_norm_run(const berth_kernel_call_t *call) { ln_run_common(call, true); }

static const berth_attr_spec_t ln_attrs[] = {
    {"axis", BERTH_ATTR_INT, false, -1, 0},
    {"epsilon", BERTH_ATTR_SCALAR, false, 0, 1e-5},
};
const berth_op_def_t berth_op_def_layer_norm = {"layer_norm", BERTH_OPKIND_KERNEL, 2, 3, 3, 2, ln_attrs,
                                                layer_norm_infer, layer_norm_run};
const berth_op_def_t berth_op_def_rms_norm = {"rms_norm", BERTH_OPKIND_KERNEL, 2, 2, 1, 2, ln_attrs, rms_norm_infer,
                                              rms_norm_run};

/* ---- group_norm ------------------------------------------------------------------------ */

enum { GN_GROUPS, GN_EPSILON };

static berth_status_t group_norm_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                       berth_type_t *out, berth_diag_t *diag) {
  char sa[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_group_norm, in, n_in, diag));
  BERTH_TRY(norm_check_x("group_norm", &in[0], 2, diag));
  BERTH_TRY(norm_check_eps("group_norm", &attrs[GN_EPSILON], diag));
  berth_type_t c;
  int64_t inner, g = attrs[GN_GROUPS].i;
  norm_channels(&in[0], &c, &inner);
  BERTH_TRY(norm_check_params("group_norm", in, 1, n_in, &c, diag));
  if (g < 1 || g > BERTH_MAX_DIM || c.dims[0] % g != 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "group_norm: groups is %lld, expected a divisor of the %lld "
                      "channels of input %s", (long long)g, (long long)c.dims[0],
                      berth_type_format(&in[0], sa, sizeof sa));
  out[0] = in[0];
  return BERTH_OK;
}

#define GROUP_NORM_FN(s, T, SQRT)                                                                         \
  static void group_norm_##s(const berth_kernel_call_t *call, int64_t n, int64_t ch, int64_t inner) {     \
    const T *x = (const T *)call->in[0].data, *sc = (const T *)call->in[1].data;                           \
    const T *bi = (const T *)call->in[2].data;                                                             \
    const int64_t g = call->attrs[GN_GROUPS].i, cg = ch / g, len = cg * inner;                             \
    const T eps = (T)call->attrs[GN_EPSILON].f;                                                          \
    T *y = (T *)call->out[0].data;                                                                       \
    for (int64_t b = 0; b < n * g; b++) {                                                                \
      const T *xg = x + b * len;                                                                         \
      T *yg = y + b * len;                                                                               \
      double sum = 0, sq = 0;                                                                            \
      for (int64_t i = 0; i < len; i++) sum += xg[i];                                                    \
      const T mean = (T)(sum / (double)len);                                                             \
      for (int64_t i = 0; i < len; i++) {                                                                \
        double d = (double)xg[i] - (double)mean;                                                         \
        sq += d * d;                                                                                     \
      }                                                                                                  \
      const T den = SQRT((T)(sq / (double)len) + eps);                                                   \
      for (int64_t c = 0; c < cg; c++) {                                                                 \
        const int64_t cc = (b % g) * cg + c;                                                             \
        const T a = sc[cc], o = bi[cc], *xr = xg + c * inner;                                            \
        T *yr = yg + c * inner;                                                                          \
        BERTH_VLOOP(i, inner, yr[i] = a * (xr[i] - mean) / den + o;);                                     \
      }                                                                                                  \
    }                                                                                                    \
  }
GROUP_NORM_FN(f32, float, sqrtf)
GROUP_NORM_FN(f64, double, sqrt)

static void group_norm_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  if (berth_kernel_is_empty(x)) return;
  berth_type_t c;
  int64_t inner;
  norm_channels(x, &c, &inner);
  if (x->dtype == BERTH_DTYPE_F32) group_norm_f32(call, x->dims[0], x->dims[1], inner);
  else group_norm_f64(call, x->dims[0], x->dims[1], inner);
}

static const berth_attr_spec_t group_norm_attrs[] = {
    {"groups", BERTH_ATTR_INT, true, 1, 0},
    {"epsilon", BERTH_ATTR_SCALAR, false, 0, 1e-5},
};
const berth_op_def_t berth_op_def_group_norm = {"group_norm", BERTH_OPKIND_KERNEL, 3, 3, 1, 2, group_norm_attrs,
                                                group_norm_infer, group_norm_run};

/* ---- lrn ---------------------------------------------------------------------------------- */

enum { LRN_SIZE, LRN_ALPHA, LRN_BETA, LRN_BIAS };

static berth_status_t lrn_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_lrn, in, n_in, diag));
  BERTH_TRY(norm_check_x("lrn", &in[0], 2, diag));
  if (attrs[LRN_SIZE].i < 1 || attrs[LRN_SIZE].i > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "lrn: size is %lld, expected >= 1",
                      (long long)attrs[LRN_SIZE].i);
  for (int a = LRN_ALPHA; a <= LRN_BIAS; a++)
    if (!isfinite(attrs[a].f))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "lrn: %s is %g, expected a finite number",
                        a == LRN_ALPHA ? "alpha" : a == LRN_BETA ? "beta" : "bias", attrs[a].f);
  out[0] = in[0];
  return BERTH_OK;
}

#define LRN_FN(s, T, POW, FINISH)                                                                         \
  static void lrn_##s(const berth_kernel_call_t *call, int64_t n, int64_t ch, int64_t inner) {            \
    const T *x = (const T *)call->in[0].data;                                                            \
    T *y = (T *)call->out[0].data;                                                                       \
    const int64_t size = call->attrs[LRN_SIZE].i, c1 = (size - 1) / 2, c2 = size / 2 + 1;                \
    const T scale = (T)(call->attrs[LRN_ALPHA].f / (double)size), beta = (T)call->attrs[LRN_BETA].f;       \
    const T bias = (T)call->attrs[LRN_BIAS].f;                                                           \
    for (int64_t b = 0; b < n; b++)                                                                      \
      for (int64_t c = 0; c < ch; c++) {                                                                 \
        const int64_t lo = c - c1 < 0 ? 0 : c - c1, hi = ch - c < c2 ? ch : c + c2;                      \
        const T *xc = x + (b * ch + c) * inner;                                                          \
        T *yr = y + (b * ch + c) * inner;                                                                \
        BERTH_VLOOP(i, inner, yr[i] = 0;);                                                               \
        for (int64_t cc = lo; cc < hi; cc++) {                                                           \
          const T *xr = x + (b * ch + cc) * inner;                                                       \
          BERTH_VLOOP(i, inner, yr[i] += xr[i] * xr[i];);                                                \
        }                                                                                                \
        if (!FINISH(xc, yr, inner, bias, scale, beta))                                                   \
          for (int64_t i = 0; i < inner; i++) yr[i] = xc[i] / POW(bias + scale * yr[i], beta);           \
      }                                                                                                  \
  }

/* y[i] = x[i] / (bias + scale * y[i])^0.75 as x / (q * sqrt(q)), q = sqrt(bias + scale * y)
 * (three correctly rounded operations instead of powf: within 2 ulp of it), four lanes at a
 * time where SSE or NEON has a vector square root; false (nothing done) for another beta. */
static bool lrn_finish_f32(const float *x, float *y, int64_t n, float bias, float scale, float beta) {
  if (beta != 0.75f) return false;
  int64_t i = 0;
#if LRN_SQRT4
  for (; i + 4 <= n; i += 4) {
    berth_v4f d = berth_ld_f32(y + i) * scale + bias, q = lrn_sqrt4(d);
    berth_v4f r = berth_ld_f32(x + i) / (q * lrn_sqrt4(q));
    memcpy(y + i, &r, sizeof r);
  }
#endif
  for (; i < n; i++) {
    float q = sqrtf(bias + scale * y[i]);
    y[i] = x[i] / (q * sqrtf(q));
  }
  return true;
}
static bool lrn_finish_f64(const double *x, double *y, int64_t n, double bias, double scale, double beta) {
  return false;
}
LRN_FN(f32, float, powf, lrn_finish_f32)
LRN_FN(f64, double, pow, lrn_finish_f64)

static void lrn_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  if (berth_kernel_is_empty(x)) return;
  berth_type_t c;
  int64_t inner;
  norm_channels(x, &c, &inner);
  if (x->dtype == BERTH_DTYPE_F32) lrn_f32(call, x->dims[0], x->dims[1], inner);
  else lrn_f64(call, x->dims[0], x->dims[1], inner);
}

static const berth_attr_spec_t lrn_attrs[] = {
    {"size", BERTH_ATTR_INT, true, 1, 0},
    {"alpha", BERTH_ATTR_SCALAR, false, 0, 1e-4},
    {"beta", BERTH_ATTR_SCALAR, false, 0, 0.75},
    {"bias", BERTH_ATTR_SCALAR, false, 0, 1.0},
};
const berth_op_def_t berth_op_def_lrn = {"lrn", BERTH_OPKIND_KERNEL, 1, 1, 1, 4, lrn_attrs, lrn_infer, lrn_run};
