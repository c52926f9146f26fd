/* softmax(x) {axis, legacy} and log_softmax(x) {axis, legacy}: ONNX Softmax / LogSoftmax.
 *
 * legacy 0 (opset 13+): normalize over the one axis `axis` (default -1).
 * legacy 1 (opsets 1 to 12): view x as 2-D [prod(dims[:axis]), prod(dims[axis:])] and
 *   normalize each row, i.e. over all the dims from `axis` on.
 * Floats, rank >= 1. Numerically stable: softmax = exp(x - max) / sum exp(x - max) and
 * log_softmax = (x - max) - log(sum exp(x - max)). A row with a NaN gives NaN; a row of
 * all -inf gives NaN (as the ONNX reference does: -inf - -inf); so does a row holding +inf.
 *
 * f32: t = x - max in f32, exp(t) with the bits of the kernel variant's vectorised exp_f32
 * (kernel_vmath.h: within 2 ulp), the sum of the exponentials in f64, then
 * y = exp(t) * (float)(1 / sum) or y = t - (float)log(sum). With u = 2^-24 and w_j = y_j (the
 * exact softmax), the relative error of softmax's y_i is at most
 * u * (8 + |t_i| + sum_j w_j (4 + |t_j|)) and the absolute error of log_softmax's at most
 * u * (4 + |t_i| + |log sum| + |y_i| + sum_j w_j (4 + |t_j|)), plus a few units of 2^-149
 * where an output is subnormal: the |t| terms are the rounding of x - max (as in any f32
 * softmax), the rest exp's 2 ulp, the sum's grouping (at most 2u, below), the reciprocal (or
 * log) and the last multiplication (subtraction). tests/test_kernel_softmax.c checks these
 * bounds for every kernel variant against a double-precision softmax. f64: exp and log of the
 * C library, sums in order in f64.
 *
 * A normalized run that is contiguous (the last axis, or any legacy case) is one call of the
 * variant's softmax_row_f32 (kernel_softmax_ukr.h: every pass in its vectors, the sum grouped
 * by four vectors in f32 before f64) or, where it has none (the portable variant), sm_row_f32
 * here (exp_f32 on blocks of 256 of x - max, sums in f64 by kernel_sum_f64.h); otherwise up to
 * 64 interleaved columns are normalized together, each pass reading whole rows of them, sums
 * in order in f64, or with fewer than 16 columns one column at a time, gathered into blocks of
 * 64 (f64 data: each column with a stride). Measured on AVX2 (one-node ONNX rows
 * of bench/ort_compare): Softmax 8x197x197 1499 -> 225 us, LogSoftmax 246 us, a 1000-class
 * head 1.5 us. Scratch: at most 1.3 KB of stack, no allocation. x and y may be the same array. */
#include "kernel_isa.h"
#include "kernel_sum_f64.h"
#include "kernel_util.h"

#include <math.h>

enum { SOFTMAX_AXIS, SOFTMAX_LEGACY };

typedef struct softmax_plan {
  int64_t outer, n, inner; /* normalize n elements at stride inner */
} softmax_plan_t;

static berth_status_t softmax_plan(const char *op, const berth_attr_value_t *attrs, const berth_type_t *x,
                                   softmax_plan_t *p, berth_diag_t *diag) {
  bool legacy;
  BERTH_TRY(berth_kernel_get_flag(op, "legacy", &attrs[SOFTMAX_LEGACY], &legacy, diag));
  if (x->rank == 0) {
    char sa[160];
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: input %s is a scalar, expected rank >= 1", op,
                      berth_type_format(x, sa, sizeof sa));
  }
  int32_t axis;
  BERTH_TRY(berth_kernel_axis(op, "axis", attrs[SOFTMAX_AXIS].i, x->rank, &axis, diag));
  p->outer = p->n = p->inner = 1;
  if (berth_kernel_is_empty(x)) {
    p->outer = 0;
    return BERTH_OK;
  }
  for (int32_t k = 0; k < x->rank; k++) {
    if (k < axis) p->outer *= x->dims[k];
    else if (k == axis || legacy) p->n *= x->dims[k];
    else p->inner *= x->dims[k];
  }
  return BERTH_OK;
}

static berth_status_t softmax_infer_common(const berth_op_def_t *def, const berth_attr_value_t *attrs,
                                           const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                           berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  softmax_plan_t p;
  BERTH_TRY(softmax_plan(def->name, attrs, &in[0], &p, diag));
  out[0] = in[0];
  return BERTH_OK;
}

/* ---- f32 -------------------------------------------------------------------------------- */

/* elements of a row exponentiated per call of exp_f32 (a ViT row of 197 in one), and columns
 * normalized together */
enum { SM_ROW_BLOCK = 256, SM_BLOCK = 64 };
/* fewer interleaved columns than this go one at a time (measured on AVX2, axis 0 of 1000 rows:
 * 3 columns 15 us before this kernel, 37 in blocks of columns, 6.5 one at a time; 8 columns
 * 38, 36, 19; 15 columns 75, 58, 47; 16 columns 80, 40 in blocks) */
enum { SM_FEW_COLS = 16 };

/* The largest of n floats. A NaN in the run may or may not be taken (SSE's maxps leaves it
 * out, NEON's fmax keeps it): either way the run comes out NaN, through the NaN's
 * exponential in the sum or through x - NaN. -inf for a run of -inf. */
#if BERTH_DOT_VECTOR && defined(__SSE2__)
#include <emmintrin.h>
static inline berth_v4f sm_vmax(berth_v4f a, berth_v4f b) { return (berth_v4f)_mm_max_ps((__m128)a, (__m128)b); }
#define SM_VMAX 1
#elif BERTH_DOT_VECTOR && defined(__aarch64__)
#include <arm_neon.h>
static inline berth_v4f sm_vmax(berth_v4f a, berth_v4f b) {
  return (berth_v4f)vmaxq_f32((float32x4_t)a, (float32x4_t)b);
}
#define SM_VMAX 1
#else
#define SM_VMAX 0
#endif
static float sm_max_f32(const float *x, int64_t n) {
  int64_t i = 0;
  float mx = -INFINITY;
#if SM_VMAX
  const berth_v4f ninf = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
  berth_v4f m0 = ninf, m1 = ninf, m2 = ninf, m3 = ninf;
  for (; i + 16 <= n; i += 16) {
    m0 = sm_vmax(m0, berth_ld_f32(x + i));
    m1 = sm_vmax(m1, berth_ld_f32(x + i + 4));
    m2 = sm_vmax(m2, berth_ld_f32(x + i + 8));
    m3 = sm_vmax(m3, berth_ld_f32(x + i + 12));
  }
  for (; i + 4 <= n; i += 4) m0 = sm_vmax(m0, berth_ld_f32(x + i));
  m0 = sm_vmax(sm_vmax(m0, m1), sm_vmax(m2, m3));
  for (int l = 0; l < 4; l++) mx = m0[l] > mx || m0[l] != m0[l] ? m0[l] : mx;
#endif
  for (; i < n; i++)
    if (x[i] > mx) mx = x[i];
  return mx;
}

/* One contiguous run of n elements (the variant's softmax_row_f32 does the same with its
 * vectors in every pass). */
static void sm_row_f32(const float *x, float *y, int64_t n, bool log_out) {
  const float mx = sm_max_f32(x, n);
  float t[SM_ROW_BLOCK];
  double sum = 0;
  /* log_softmax reads x again below: its exponentials go to t itself, a block at a time */
  const int64_t blk = log_out ? SM_ROW_BLOCK / 2 : SM_ROW_BLOCK;
  for (int64_t i = 0; i < n; i += blk) {
    const int64_t len = n - i < blk ? n - i : blk;
    float *ex = log_out ? t + SM_ROW_BLOCK / 2 : y + i;
    for (int64_t k = 0; k < len; k++) t[k] = x[i + k] - mx;
    BERTH_KCALL(exp_f32)(t, ex, len);
    sum += berth_sum_f64_f32(ex, len);
  }
  if (log_out) {
    const float ls = (float)log(sum);
    for (int64_t k = 0; k < n; k++) y[k] = (x[k] - mx) - ls;
  } else {
    const float inv = (float)(1.0 / sum);
    for (int64_t k = 0; k < n; k++) y[k] *= inv;
  }
}

/* Columns c < w (w <= SM_BLOCK) of n rows `inner` floats apart, x and y at the first column
 * of the first row: each column is one run, normalized with its own max and sum. */
static void sm_cols_f32(const float *x, float *y, int64_t n, int64_t inner, int64_t w, bool log_out) {
  float m[SM_BLOCK], t[SM_BLOCK], e[SM_BLOCK];
  double s[SM_BLOCK];
  for (int64_t c = 0; c < w; c++) m[c] = -INFINITY, s[c] = 0;
  for (int64_t i = 0; i < n; i++) {
    const float *xi = x + i * inner;
    for (int64_t c = 0; c < w; c++) m[c] = xi[c] > m[c] ? xi[c] : m[c];
  }
  for (int64_t i = 0; i < n; i++) {
    const float *xi = x + i * inner;
    float *ex = log_out ? e : y + i * inner;
    for (int64_t c = 0; c < w; c++) t[c] = xi[c] - m[c];
    BERTH_KCALL(exp_f32)(t, ex, w);
    for (int64_t c = 0; c < w; c++) s[c] += ex[c];
  }
  for (int64_t c = 0; c < w; c++) t[c] = log_out ? (float)log(s[c]) : (float)(1.0 / s[c]);
  for (int64_t i = 0; i < n; i++) {
    const float *xi = x + i * inner;
    float *yi = y + i * inner;
    if (log_out) {
      for (int64_t c = 0; c < w; c++) yi[c] = (xi[c] - m[c]) - t[c];
    } else {
      for (int64_t c = 0; c < w; c++) yi[c] *= t[c];
    }
  }
}

/* One run of n elements `st` floats apart (few interleaved columns: the blocks of columns above
 * would call exp_f32 on a handful of elements at a time): the run gathered into blocks of
 * SM_BLOCK, the same arithmetic as sm_row_f32. */
static void sm_strided_f32(const float *x, float *y, int64_t n, int64_t st, bool log_out) {
  float mx = -INFINITY, t[SM_BLOCK], e[SM_BLOCK];
  for (int64_t i = 0; i < n; i++) mx = x[i * st] > mx ? x[i * st] : mx;
  double sum = 0;
  for (int64_t i = 0; i < n; i += SM_BLOCK) {
    const int64_t len = n - i < SM_BLOCK ? n - i : SM_BLOCK;
    for (int64_t k = 0; k < len; k++) t[k] = x[(i + k) * st] - mx;
    BERTH_KCALL(exp_f32)(t, e, len);
    sum += berth_sum_f64_f32(e, len);
    if (!log_out)
      for (int64_t k = 0; k < len; k++) y[(i + k) * st] = e[k];
  }
  if (log_out) {
    const float ls = (float)log(sum);
    for (int64_t i = 0; i < n; i++) y[i * st] = (x[i * st] - mx) - ls;
  } else {
    const float inv = (float)(1.0 / sum);
    for (int64_t i = 0; i < n; i++) y[i * st] *= inv;
  }
}

static void softmax_f32(const float *x, float *y, const softmax_plan_t *p, bool log_out) {
  void (*row)(const float *, float *, int64_t, int) = berth_kernel_isa()->softmax_row_f32;
  for (int64_t o = 0; o < p->outer; o++) {
    const int64_t off = o * p->n * p->inner;
    if (p->inner == 1) {
      if (row) row(x + off, y + off, p->n, log_out);
      else sm_row_f32(x + off, y + off, p->n, log_out);
      continue;
    }
    if (p->inner < SM_FEW_COLS) {
      for (int64_t j = 0; j < p->inner; j++) sm_strided_f32(x + off + j, y + off + j, p->n, p->inner, log_out);
      continue;
    }
    for (int64_t j = 0; j < p->inner; j += SM_BLOCK)
      sm_cols_f32(x + off + j, y + off + j, p->n, p->inner, p->inner - j < SM_BLOCK ? p->inner - j : SM_BLOCK,
                  log_out);
  }
}

/* ---- f64 -------------------------------------------------------------------------------- */

/* One normalized run of n elements at stride st, from x to y. */
static void softmax_run_f64(const double *x, double *y, int64_t n, int64_t st, bool log_out) {
  double mx = x[0];
  bool nan = false;
  for (int64_t i = 0; i < n; i++) {
    double v = x[i * st];
    if (v != v) nan = true;
    if (v > mx) mx = v;
  }
  if (nan) mx = NAN;
  double sum = 0;
  if (log_out) {
    for (int64_t i = 0; i < n; i++) sum += exp(x[i * st] - mx);
    double ls = log(sum);
    for (int64_t i = 0; i < n; i++) y[i * st] = (x[i * st] - mx) - ls;
  } else {
    for (int64_t i = 0; i < n; i++) {
      double e = exp(x[i * st] - mx);
      y[i * st] = e;
      sum += e;
    }
    double inv = 1 / sum;
    for (int64_t i = 0; i < n; i++) y[i * st] *= inv;
  }
}

static void softmax_run_common(const berth_kernel_call_t *call, bool log_out) {
  const berth_type_t *x = call->in[0].type;
  softmax_plan_t p;
  softmax_plan(log_out ? "log_softmax" : "softmax", call->attrs, x, &p, NULL);
  if (x->dtype == BERTH_DTYPE_F32) {
    softmax_f32((const float *)call->in[0].data, (float *)call->out[0].data, &p, log_out);
    return;
  }
  for (int64_t o = 0; o < p.outer; o++)
    for (int64_t j = 0; j < p.inner; j++) {
      int64_t off = o * p.n * p.inner + j;
      softmax_run_f64((const double *)call->in[0].data + off, (double *)call->out[0].data + off, p.n, p.inner,
                      log_out);
    }
}

static berth_status_t softmax_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                    berth_type_t *out, berth_diag_t *diag) {
  return softmax_infer_common(&berth_op_def_softmax, attrs, in, n_in, out, diag);
}
static berth_status_t log_softmax_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                        berth_type_t *out, berth_diag_t *diag) {
  return softmax_infer_common(&berth_op_def_log_softmax, attrs, in, n_in, out, diag);
}
static void softmax_run(const berth_kernel_call_t *call) { softmax_run_common(call, false); }
static void log_softmax_run(const berth_kernel_call_t *call) { softmax_run_common(call, true); }

static const berth_attr_spec_t softmax_attrs[] = {
    {"axis", BERTH_ATTR_INT, false, -1, 0},
    {"legacy", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_softmax = {"softmax", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, softmax_attrs,
                                             softmax_infer, softmax_run};
const berth_op_def_t berth_op_def_log_softmax = {"log_softmax", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, softmax_attrs,
                                                 log_softmax_infer, log_softmax_run};
