/* conv_transpose(x, w[, b]) {strides, pads, dilations, group}: ONNX ConvTranspose for 1-,
 * 2- and 3-D inputs.
 *
 * x is [N, C, D...], w [C, M/group, K...], b [M]; the result is [N, M, O...] with
 *   O = stride * (D - 1) + dilation * (K - 1) + 1 - pad_begin - pad_end.
 * Input position i and kernel position k add x * w to output position
 *   i * stride + k * dilation - pad_begin
 * when it lies in 0..O-1. Pads may be negative (the ONNX importer folds output_padding and
 * output_shape into pad_end, which then grows the output). Empty attribute lists mean strides
 * 1, pads 0, dilations 1. f32 and f64, accumulating in the output's type.
 *
 * Method (f32 with planned scratch, builds with kernel variants): per batch item and group, a
 * GEMM and a col2im, as Caffe and MLAS do it: the group's weights transposed into the call's
 * scratch, wt[mg * K][cg], times the input x[cg][D] (a block of whole input rows at a time)
 * gives cols[mg * K][block] through the packed GEMM (kernel_gemm_pack.h, the micro-kernels of
 * conv and matmul); then each row of cols (one output channel and kernel position) adds each
 * input row's values into the output row they land on (stride apart). The output starts as
 * the bias. Scratch (berth_scratch_conv_transpose): the transposed weights, cols for up to
 * CT_COLS_FLOATS and the GEMM's panels; with less (or none, or f64, or a small runtime) the
 * direct loop below runs, which is also the reference the tests hold the GEMM path to:
 * for each output channel, input channel and kernel position, every input row adds its
 * scaled values into one output row (a strided axpy over the range of positions that land
 * inside the output), exactly the op's N * C * M/group * K * D multiply-adds. The two paths
 * sum in different orders (their results differ by rounding); each depends on the scratch
 * size at most, never on its address. */
#include "kernel_gemm_pack.h"
#include "kernel_scratch.h"
#include "kernel_util.h"

#include <string.h>

enum { CT_STRIDES, CT_PADS, CT_DILATIONS, CT_GROUP };

typedef struct ct_plan {
  int64_t n, c, m, group, cg, mg;
  int64_t in[3], k[3], out[3], stride[3], dil[3], pad[3];
  int64_t kk, il, ol;
  berth_type_t out_type;
} ct_plan_t;

static int64_t ct_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a < 0 || b < 0 || a > BERTH_MAX_DIM / b) return -1;
  return a * b;
}

static berth_status_t ct_check_attrs(const berth_attr_value_t *attrs, int32_t sp, berth_diag_t *diag) {
  static const char *const names[3] = {"strides", "pads", "dilations"};
  for (int a = 0; a < 3; a++) {
    const berth_attr_value_t *v = &attrs[a];
    BERTH_TRY(berth_kernel_check_ints("conv_transpose", names[a], v, diag));
    int32_t want = a == CT_PADS ? 2 * sp : sp;
    if (v->n != 0 && v->n != want)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "conv_transpose: %s has %d values, expected %d (or none) for %d-D input", names[a], (int)v->n,
                        (int)want, (int)sp);
    for (int32_t i = 0; i < v->n; i++) {
      int64_t lo = a == CT_PADS ? -BERTH_MAX_DIM : 1;
      if (v->ints[i] < lo || v->ints[i] > BERTH_MAX_DIM)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_transpose: %s[%d] is %lld, expected %lld to 2^40",
                          names[a], (int)i, (long long)v->ints[i], (long long)lo);
    }
  }
  return BERTH_OK;
}

static berth_status_t ct_plan(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, ct_plan_t *p,
                              berth_diag_t *diag) {
  char sa[160], sb[160];
  const berth_type_t *x = &in[0], *w = &in[1];
  if (x->rank < 3 || x->rank > 5 || w->rank != x->rank)
    return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED,
                      "conv_transpose: input %s and weights %s, expected equal ranks 3 to 5 ([N, C, D...])",
                      berth_type_format(x, sa, sizeof sa), berth_type_format(w, sb, sizeof sb));
  int32_t sp = x->rank - 2, off = 3 - sp;
  BERTH_TRY(ct_check_attrs(attrs, sp, diag));
  p->n = x->dims[0];
  p->c = x->dims[1];
  p->group = attrs[CT_GROUP].i;
  if (p->group < 1 || p->group > BERTH_MAX_DIM || p->c % p->group != 0 || w->dims[0] != p->c)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv_transpose: group %lld must divide the %lld input channels of %s, and weights %s must have "
                      "them as dim 0",
                      (long long)p->group, (long long)p->c, berth_type_format(x, sa, sizeof sa),
                      berth_type_format(w, sb, sizeof sb));
  p->cg = p->c / p->group;
  p->mg = w->dims[1];
  p->m = ct_mul(p->mg, p->group);
  if (p->m < 0)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "conv_transpose: weights %s have too many output channels",
                      berth_type_format(w, sa, sizeof sa));
  if (n_in == 3 && (in[2].rank != 1 || in[2].dims[0] != p->m))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_transpose: bias %s has the wrong shape, expected [%lld]",
                      berth_type_format(&in[2], sa, sizeof sa), (long long)p->m);
  berth_kernel_type_init(&p->out_type, x->dtype, x->rank);
  p->out_type.dims[0] = p->n;
  p->out_type.dims[1] = p->m;
  p->kk = p->il = p->ol = 1;
  const berth_attr_value_t *st = &attrs[CT_STRIDES], *pd = &attrs[CT_PADS], *dl = &attrs[CT_DILATIONS];
  for (int32_t d = 0; d < 3; d++) {
    int32_t s = d - off;
    p->in[d] = s < 0 ? 1 : x->dims[2 + s];
    p->k[d] = s < 0 ? 1 : w->dims[2 + s];
    p->stride[d] = s >= 0 && st->n ? st->ints[s] : 1;
    p->dil[d] = s >= 0 && dl->n ? dl->ints[s] : 1;
    p->pad[d] = s >= 0 && pd->n ? pd->ints[s] : 0;
    int64_t pad_end = s >= 0 && pd->n ? pd->ints[sp + s] : 0;
    if (p->k[d] < 1)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_transpose: weights %s have an empty kernel",
                        berth_type_format(w, sa, sizeof sa));
    int64_t span = ct_mul(p->in[d] > 0 ? p->in[d] - 1 : 0, p->stride[d]), kspan = ct_mul(p->k[d] - 1, p->dil[d]);
    if (span < 0 || kspan < 0)
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "conv_transpose: input %s with weights %s is too large",
                        berth_type_format(x, sa, sizeof sa), berth_type_format(w, sb, sizeof sb));
    p->out[d] = span + kspan + 1 - p->pad[d] - pad_end; /* |each term| <= 2^41 */
    if (p->out[d] < 1 || p->out[d] > BERTH_MAX_DIM)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "conv_transpose: input %s with weights %s gives output size %lld in spatial dim %d, expected 1 "
                        "to 2^40",
                        berth_type_format(x, sa, sizeof sa), berth_type_format(w, sb, sizeof sb), (long long)p->out[d],
                        (int)s);
    if (s >= 0) p->out_type.dims[2 + s] = p->out[d];
    p->kk = ct_mul(p->kk, p->k[d]);
    p->il = ct_mul(p->il, p->in[d]);
    p->ol = ct_mul(p->ol, p->out[d]);
    if (p->kk < 0 || p->il < 0 || p->ol < 0)
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "conv_transpose: input %s with weights %s is too large",
                        berth_type_format(x, sa, sizeof sa), berth_type_format(w, sb, sizeof sb));
  }
  return BERTH_OK;
}

static berth_status_t conv_transpose_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                           berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_conv_transpose, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("conv_transpose", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  for (int32_t i = 1; i < n_in; i++) BERTH_TRY(berth_kernel_check_same_dtype("conv_transpose", in, 0, i, diag));
  ct_plan_t p;
  BERTH_TRY(ct_plan(attrs, in, n_in, &p, diag));
  BERTH_TRY(berth_kernel_check_output("conv_transpose", &p.out_type, diag));
  out[0] = p.out_type;
  return BERTH_OK;
}

/* First and last input index i (0..n-1) with 0 <= i * s + off < o; lo > hi when none. */
static void ct_range(int64_t n, int64_t s, int64_t off, int64_t o, int64_t *lo, int64_t *hi) {
  int64_t a = off >= 0 ? 0 : (-off + s - 1) / s;
  int64_t b = o - 1 - off < 0 ? -1 : (o - 1 - off) / s;
  *lo = a;
  *hi = b < n - 1 ? b : n - 1;
}

#define CT_RUN_FN(s, T)                                                                                    \
  static void ct_run_##s(const ct_plan_t *p, const T *x, const T *w, const T *b, T *y) {                   \
    for (int64_t n = 0; n < p->n; n++)                                                                     \
      for (int64_t m = 0; m < p->m; m++) {                                                                 \
        T *ym = y + (n * p->m + m) * p->ol;                                                                \
        T bias = b ? b[m] : (T)0;                                                                          \
        for (int64_t i = 0; i < p->ol; i++) ym[i] = bias;                                                  \
        int64_t g = m / p->mg, mm = m % p->mg;                                                             \
        for (int64_t cc = 0; cc < p->cg; cc++) {                                                           \
          int64_t c = g * p->cg + cc;                                                                      \
          const T *xc = x + (n * p->c + c) * p->il, *wk = w + (c * p->mg + mm) * p->kk;                    \
          for (int64_t k0 = 0; k0 < p->k[0]; k0++)                                                         \
            for (int64_t k1 = 0; k1 < p->k[1]; k1++)                                                       \
              for (int64_t k2 = 0; k2 < p->k[2]; k2++) {                                                   \
                T wv = wk[(k0 * p->k[1] + k1) * p->k[2] + k2];                                             \
                int64_t lo2, hi2, off2 = k2 * p->dil[2] - p->pad[2];                                       \
                ct_range(p->in[2], p->stride[2], off2, p->out[2], &lo2, &hi2);                             \
                if (lo2 > hi2) continue;                                                                   \
                for (int64_t i0 = 0; i0 < p->in[0]; i0++) {                                                \
                  int64_t o0 = i0 * p->stride[0] + k0 * p->dil[0] - p->pad[0];                             \
                  if (o0 < 0 || o0 >= p->out[0]) continue;                                                 \
                  for (int64_t i1 = 0; i1 < p->in[1]; i1++) {                                              \
                    int64_t o1 = i1 * p->stride[1] + k1 * p->dil[1] - p->pad[1];                           \
                    if (o1 < 0 || o1 >= p->out[1]) continue;                                               \
                    const T *xr = xc + (i0 * p->in[1] + i1) * p->in[2];                                    \
                    T *yr = ym + (o0 * p->out[1] + o1) * p->out[2] + off2;                                 \
                    const int64_t s2 = p->stride[2];                                                       \
                    if (s2 == 1) {                                                                         \
                      for (int64_t i2 = lo2; i2 <= hi2; i2++) yr[i2] += wv * xr[i2];                       \
                    } else {                                                                               \
                      for (int64_t i2 = lo2; i2 <= hi2; i2++) yr[i2 * s2] += wv * xr[i2];                  \
                    }                                                                                      \
                  }                                                                                        \
                }                                                                                          \
              }                                                                                            \
        }                                                                                                  \
      }                                                                                                    \
  }
CT_RUN_FN(f32, float)
CT_RUN_FN(f64, double)

/* ---- f32 as GEMM + col2im ----------------------------------------------------------- */

#define CT_COLS_FLOATS (128 * 1024) /* cols per block at most (512 KiB: stays in L2) */

/* How the scratch splits (floats): the transposed weights (wt), cols for `rows` input rows
 * (of in[2] positions each: the outer spatial dims flattened), the GEMM's panels (the rest).
 * Returns false where the GEMM path does not apply or `floats` is too small for it. */
typedef struct ct_gemm_split {
  int64_t mk, wt, rows, cols, panels;
} ct_gemm_split_t;

static bool ct_gemm_split(const ct_plan_t *p, int64_t floats, ct_gemm_split_t *s) {
  s->mk = p->mg * p->kk;
  s->wt = s->mk * p->cg;
  const int64_t outer = p->in[0] * p->in[1], in2 = p->in[2];
  if (s->mk < 4 || p->cg < 1 || in2 < 1 || outer < 1 || floats <= s->wt) return false;
  const int64_t rest = floats - s->wt;
  /* half of the rest for the panels, at most what the GEMM asks for */
  int64_t panels = (int64_t)berth_gemm_scratch_floats(s->mk, outer * in2 < 2048 ? outer * in2 : 2048, p->cg);
  if (panels > rest / 2) panels = rest / 2;
  const int64_t row_floats = s->mk * in2;
  int64_t rows = (rest - panels) / row_floats, cap = CT_COLS_FLOATS / row_floats;
  if (cap < 1) cap = 1;
  if (rows > cap) rows = cap;
  if (rows > outer) rows = outer;
  s->rows = rows;
  s->cols = rows * row_floats;
  s->panels = panels;
  return rows >= 1 && panels > 0;
}

/* y (one group's planes, bias already in) += col2im(cols) for input rows r0..r0+rows of the
 * flattened (i0, i1); cols[(mm * kk + k) * (rows * in2) + (r - r0) * in2 + i2]. */
static void ct_col2im_f32(const ct_plan_t *p, const float *cols, int64_t r0, int64_t rows, float *yg) {
  const int64_t in1 = p->in[1], in2 = p->in[2], nb = rows * in2, s2 = p->stride[2];
  for (int64_t mm = 0; mm < p->mg; mm++) {
    float *ym = yg + mm * p->ol;
    for (int64_t k0 = 0; k0 < p->k[0]; k0++)
      for (int64_t k1 = 0; k1 < p->k[1]; k1++)
        for (int64_t k2 = 0; k2 < p->k[2]; k2++) {
          const float *cr = cols + (mm * p->kk + (k0 * p->k[1] + k1) * p->k[2] + k2) * nb;
          int64_t lo2, hi2, off2 = k2 * p->dil[2] - p->pad[2];
          ct_range(in2, s2, off2, p->out[2], &lo2, &hi2);
          if (lo2 > hi2) continue;
          for (int64_t r = r0; r < r0 + rows; r++) {
            const int64_t i0 = r / in1, i1 = r % in1;
            const int64_t o0 = i0 * p->stride[0] + k0 * p->dil[0] - p->pad[0];
            const int64_t o1 = i1 * p->stride[1] + k1 * p->dil[1] - p->pad[1];
            if (o0 < 0 || o0 >= p->out[0] || o1 < 0 || o1 >= p->out[1]) continue;
            const float *xr = cr + (r - r0) * in2;
            float *yr = ym + (o0 * p->out[1] + o1) * p->out[2] + off2;
            if (s2 == 1) {
              for (int64_t i2 = lo2; i2 <= hi2; i2++) yr[i2] += xr[i2];
            } else {
              for (int64_t i2 = lo2; i2 <= hi2; i2++) yr[i2 * s2] += xr[i2];
            }
          }
        }
  }
}

/* The GEMM path for every batch item and group; false (nothing written) where it does not
 * apply. */
static bool ct_gemm_f32(const ct_plan_t *p, const float *x, const float *w, const float *b, float *y, float *buf,
                        int64_t floats) {
  ct_gemm_split_t s;
  if (!buf || !ct_gemm_split(p, floats, &s)) return false;
  const int64_t outer = p->in[0] * p->in[1], in2 = p->in[2];
  float *wt = buf, *cols = buf + s.wt, *panels = cols + s.cols;
  for (int64_t n = 0; n < p->n; n++)
    for (int64_t g = 0; g < p->group; g++) {
      /* wt[i][c] = w[g * cg + c][i], i = mm * kk + k */
      const float *wg = w + g * p->cg * s.mk;
      for (int64_t i = 0; i < s.mk; i++)
        for (int64_t c = 0; c < p->cg; c++) wt[i * p->cg + c] = wg[c * s.mk + i];
      float *yg = y + (n * p->m + g * p->mg) * p->ol;
      for (int64_t mm = 0; mm < p->mg; mm++) {
        const float bias = b ? b[g * p->mg + mm] : 0.0f;
        for (int64_t i = 0; i < p->ol; i++) yg[mm * p->ol + i] = bias;
      }
      const float *xg = x + (n * p->c + g * p->cg) * p->il;
      for (int64_t r0 = 0; r0 < outer; r0 += s.rows) {
        const int64_t rows = outer - r0 < s.rows ? outer - r0 : s.rows, nb = rows * in2;
        const berth_gemm_rows_t src = {xg + r0 * in2, p->il};
        if (!berth_gemm_packed_try_f32(wt, p->cg, NULL, cols, nb, s.mk, nb, p->cg, berth_gemm_pack_rows, &src,
                                       panels, s.panels))
          BERTH_KCALL(gemm_nn_f32)(wt, p->cg, xg + r0 * in2, p->il, NULL, cols, nb, s.mk, nb, p->cg);
        ct_col2im_f32(p, cols, r0, rows, yg);
      }
    }
  return true;
}

uint64_t berth_scratch_conv_transpose(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  ct_plan_t p;
  if (n_in < 2 || n_in > 3 || ct_plan(attrs, in, n_in, &p, NULL) != BERTH_OK) return 0;
  if (p.out_type.dtype != BERTH_DTYPE_F32 || berth_kernel_is_empty(&p.out_type) || p.il == 0 || p.cg == 0) return 0;
  const int64_t mk = p.mg * p.kk, outer = p.in[0] * p.in[1], in2 = p.in[2];
  if (mk < 4) return 0;
  const uint64_t cap = BERTH_SCRATCH_MAX_BYTES / sizeof(float) / 2;
  if ((uint64_t)mk > cap / (uint64_t)p.cg) return 0;
  int64_t rows = CT_COLS_FLOATS / (mk * in2 > 0 ? mk * in2 : 1);
  if (rows < 1) rows = 1;
  if (rows > outer) rows = outer;
  uint64_t cols = (uint64_t)rows * (uint64_t)mk * (uint64_t)in2;
  uint64_t panels = berth_gemm_scratch_floats(mk, outer * in2 < 2048 ? outer * in2 : 2048, p.cg);
  if (panels == 0) return 0;
  uint64_t want = (uint64_t)mk * (uint64_t)p.cg + cols + panels;
  if (cols > cap || want > cap) return 0;
  return berth_scratch_request(want, sizeof(float));
}

static void conv_transpose_run(const berth_kernel_call_t *call) {
  berth_type_t types[3];
  for (int32_t i = 0; i < call->n_in; i++) types[i] = *call->in[i].type;
  ct_plan_t p;
  if (ct_plan(call->attrs, types, call->n_in, &p, NULL) != BERTH_OK) return; /* infer accepted it */
  if (berth_kernel_is_empty(call->out[0].type)) return;
  const void *b = call->n_in == 3 ? call->in[2].data : NULL;
  if (types[0].dtype == BERTH_DTYPE_F32) {
    int64_t floats;
    float *buf = berth_scratch_take(call, sizeof(float), &floats);
    if (!ct_gemm_f32(&p, call->in[0].data, call->in[1].data, b, call->out[0].data, buf, floats))
      ct_run_f32(&p, call->in[0].data, call->in[1].data, b, call->out[0].data);
  } else {
    ct_run_f64(&p, call->in[0].data, call->in[1].data, b, call->out[0].data);
  }
}

static const berth_attr_spec_t conv_transpose_attrs[] = {
    {"strides", BERTH_ATTR_INTS, false, 0, 0},
    {"pads", BERTH_ATTR_INTS, false, 0, 0},
    {"dilations", BERTH_ATTR_INTS, false, 0, 0},
    {"group", BERTH_ATTR_INT, false, 1, 0},
};
const berth_op_def_t berth_op_def_conv_transpose = {"conv_transpose", BERTH_OPKIND_KERNEL, 2, 3, 1, 4,
                                                    conv_transpose_attrs, conv_transpose_infer, conv_transpose_run};
