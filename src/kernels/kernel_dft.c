/* dft(x) {axis, length, inverse, onesided} and stft(x[, window]) {step, length, onesided}:
 * ONNX DFT and STFT on signals whose last dim holds one (real) or two (real, imaginary)
 * values.
 *
 * dft: the transform of length L = `length` along `axis` (0 .. rank-2): the first
 *   min(dims[axis], L) values are used, the rest taken as zero (numpy's fft with n = L).
 *     forward          X[k] = sum_n x[n] e^{-2 pi i k n / L}, k < L (onesided: k <= L/2)
 *     inverse          x[n] = 1/L sum_k X[k] e^{+2 pi i k n / L}
 *     inverse onesided the real signal of length L whose one-sided spectrum is x (numpy's
 *                      irfft: the imaginary parts of bins 0 and L/2 are ignored); its last
 *                      dim is 1
 * stft: x [batch, samples, 1 or 2]; frame f is samples f*step .. f*step+L-1 times the window
 *   (ones when absent), transformed forward; the result is [batch, frames, bins, 2] with
 *   frames = 1 + (samples - L) / step.
 *
 * Sums accumulate in double with a rotating phasor per output bin (error about L ulps of a
 * double). The transform is direct, O(L^2) per signal, as onnxruntime's for lengths that
 * are not powers of two; run allocates nothing. */
#include "kernel_util.h"

#include <math.h>
#include <string.h>

#define DFT_PI 3.14159265358979323846

enum { DFT_AXIS, DFT_LENGTH, DFT_INVERSE, DFT_ONESIDED };
enum { STFT_STEP, STFT_LENGTH, STFT_ONESIDED };

typedef struct dft_line {
  const void *x;
  int64_t xs; /* elements between consecutive samples */
  int64_t n_in;
  int c_in;
  const void *w; /* window (n_in values) or NULL */
  void *y;
  int64_t ys;
  int64_t len, k_out;
  bool f64, inverse, onesided;
} dft_line_t;

static inline double ld(const void *p, bool f64, int64_t i) {
  return f64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static inline void st(void *p, bool f64, int64_t i, double v) {
  if (f64) ((double *)p)[i] = v;
  else ((float *)p)[i] = (float)v;
}

/* forward or complex inverse */
static void dft_complex(const dft_line_t *l) {
  int64_t n_use = l->n_in < l->len ? l->n_in : l->len;
  double sign = l->inverse ? 1.0 : -1.0, scale = l->inverse ? 1.0 / (double)l->len : 1.0;
  for (int64_t k = 0; k < l->k_out; k++) {
    double ang = 2.0 * DFT_PI * (double)k / (double)l->len;
    double sc = cos(ang), ss = sign * sin(ang), pr = 1, pi = 0, re = 0, im = 0;
    for (int64_t n = 0; n < n_use; n++) {
      double w = l->w ? ld(l->w, l->f64, n) : 1.0;
      double a = ld(l->x, l->f64, n * l->xs) * w, b = l->c_in == 2 ? ld(l->x, l->f64, n * l->xs + 1) * w : 0;
      re += a * pr - b * pi;
      im += a * pi + b * pr;
      double t = pr * sc - pi * ss;
      pi = pr * ss + pi * sc;
      pr = t;
    }
    st(l->y, l->f64, k * l->ys, re * scale);
    st(l->y, l->f64, k * l->ys + 1, im * scale);
  }
}

/* inverse of a one-sided spectrum: a real signal of length len */
static void dft_irfft(const dft_line_t *l) {
  int64_t half = (l->len - 1) / 2; /* bins 1..half appear twice */
  for (int64_t n = 0; n < l->len; n++) {
    double ang = 2.0 * DFT_PI * (double)n / (double)l->len;
    double sc = cos(ang), ss = sin(ang), pr = sc, pi = ss;
    double acc = l->n_in > 0 ? ld(l->x, l->f64, 0) : 0;
    for (int64_t j = 1; j <= half && j < l->n_in; j++) {
      double a = ld(l->x, l->f64, j * l->xs), b = l->c_in == 2 ? ld(l->x, l->f64, j * l->xs + 1) : 0;
      acc += 2.0 * (a * pr - b * pi);
      double t = pr * sc - pi * ss;
      pi = pr * ss + pi * sc;
      pr = t;
    }
    if (l->len % 2 == 0 && l->len / 2 < l->n_in) acc += ld(l->x, l->f64, (l->len / 2) * l->xs) * (n % 2 ? -1.0 : 1.0);
    st(l->y, l->f64, n * l->ys, acc / (double)l->len);
  }
}

/* ==== dft ================================================================================ */

typedef struct dft_plan {
  int32_t axis;
  int64_t len, k_out, outer, inner;
  int c_in, c_out;
} dft_plan_t;

static berth_status_t dft_check(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                berth_type_t *out, dft_plan_t *p, berth_diag_t *diag) {
  const char *op = "dft";
  char a[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_dft, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  const berth_type_t *x = &in[0];
  if (x->rank < 2 || (x->dims[x->rank - 1] != 1 && x->dims[x->rank - 1] != 2))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: input %s, expected rank >= 2 with a last dim of 1 or 2", op,
                      berth_type_format(x, a, sizeof a));
  bool inverse, onesided;
  BERTH_TRY(berth_kernel_get_flag(op, "inverse", &attrs[DFT_INVERSE], &inverse, diag));
  BERTH_TRY(berth_kernel_get_flag(op, "onesided", &attrs[DFT_ONESIDED], &onesided, diag));
  int64_t axis = attrs[DFT_AXIS].i, len = attrs[DFT_LENGTH].i;
  if (axis < 0 || axis >= x->rank - 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: axis %lld, expected 0..%d (not the last dim)", op,
                      (long long)axis, (int)x->rank - 2);
  if (len < 1 || len > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: length %lld, expected 1..2^40", op, (long long)len);
  p->axis = (int32_t)axis;
  p->len = len;
  p->k_out = onesided && !inverse ? len / 2 + 1 : len;
  p->c_in = (int)x->dims[x->rank - 1];
  p->c_out = inverse && onesided ? 1 : 2;
  berth_type_t t = *x;
  t.dims[axis] = p->k_out;
  t.dims[x->rank - 1] = p->c_out;
  BERTH_TRY(berth_kernel_check_output(op, &t, diag));
  p->outer = p->inner = 1;
  for (int32_t k = 0; k < x->rank - 1; k++) {
    if (k < axis) p->outer *= t.dims[k];
    else if (k > axis) p->inner *= t.dims[k];
  }
  out[0] = t;
  return BERTH_OK;
}

static berth_status_t dft_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                berth_diag_t *diag) {
  dft_plan_t p;
  return dft_check(attrs, in, n_in, out, &p, diag);
}

static void dft_run(const berth_kernel_call_t *call) {
  dft_plan_t p;
  berth_type_t ot;
  dft_check(call->attrs, call->in[0].type, 1, &ot, &p, NULL);
  const berth_type_t *x = call->in[0].type;
  if (berth_kernel_is_empty(&ot)) return; /* an empty signal transforms to zeros */
  bool f64 = x->dtype == BERTH_DTYPE_F64;
  size_t es = f64 ? 8 : 4;
  int64_t n_in = x->dims[p.axis];
  dft_line_t l = {0};
  l.n_in = n_in;
  l.c_in = p.c_in;
  l.xs = p.inner * p.c_in;
  l.ys = p.inner * p.c_out;
  l.len = p.len;
  l.k_out = p.k_out;
  l.f64 = f64;
  l.inverse = call->attrs[DFT_INVERSE].i != 0;
  l.onesided = call->attrs[DFT_ONESIDED].i != 0;
  for (int64_t o = 0; o < p.outer; o++)
    for (int64_t i = 0; i < p.inner; i++) {
      l.x = (const char *)call->in[0].data + (size_t)((o * n_in * p.inner + i) * p.c_in) * es;
      l.y = (char *)call->out[0].data + (size_t)((o * p.k_out * p.inner + i) * p.c_out) * es;
      if (l.inverse && l.onesided) dft_irfft(&l);
      else dft_complex(&l);
    }
}

/* ==== stft =============================================================================== */

static berth_status_t stft_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                 berth_diag_t *diag) {
  const char *op = "stft";
  char a[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_stft, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  const berth_type_t *x = &in[0];
  if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: signal %s, expected [batch, samples, 1 or 2]", op,
                      berth_type_format(x, a, sizeof a));
  bool onesided;
  BERTH_TRY(berth_kernel_get_flag(op, "onesided", &attrs[STFT_ONESIDED], &onesided, diag));
  int64_t step = attrs[STFT_STEP].i, len = attrs[STFT_LENGTH].i;
  if (step < 1 || step > BERTH_MAX_DIM || len < 1 || len > x->dims[1])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "%s: step %lld and frame length %lld, expected step >= 1 and 1 <= length <= %lld samples", op,
                      (long long)step, (long long)len, (long long)x->dims[1]);
  if (n_in > 1) {
    BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, 1, diag));
    if (in[1].rank != 1 || in[1].dims[0] != len)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: window %s, expected 1-D of the frame length %lld", op,
                        berth_type_format(&in[1], a, sizeof a), (long long)len);
  }
  berth_type_t t;
  berth_kernel_type_init(&t, x->dtype, 4);
  t.dims[0] = x->dims[0];
  t.dims[1] = 1 + (x->dims[1] - len) / step;
  t.dims[2] = onesided ? len / 2 + 1 : len;
  t.dims[3] = 2;
  BERTH_TRY(berth_kernel_check_output(op, &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void stft_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type, *y = call->out[0].type;
  if (berth_kernel_is_empty(y)) return;
  bool f64 = x->dtype == BERTH_DTYPE_F64;
  size_t es = f64 ? 8 : 4;
  int64_t step = call->attrs[STFT_STEP].i, frames = y->dims[1], bins = y->dims[2], c = x->dims[2];
  dft_line_t l = {0};
  l.n_in = call->attrs[STFT_LENGTH].i;
  l.len = l.n_in;
  l.k_out = bins;
  l.c_in = (int)c;
  l.xs = c;
  l.ys = 2;
  l.f64 = f64;
  l.w = call->n_in > 1 ? call->in[1].data : NULL;
  for (int64_t b = 0; b < x->dims[0]; b++)
    for (int64_t f = 0; f < frames; f++) {
      l.x = (const char *)call->in[0].data + (size_t)((b * x->dims[1] + f * step) * c) * es;
      l.y = (char *)call->out[0].data + (size_t)((b * frames + f) * bins * 2) * es;
      dft_complex(&l);
    }
}

static const berth_attr_spec_t dft_attrs[] = {
    {"axis", BERTH_ATTR_INT, true, 0, 0},
    {"length", BERTH_ATTR_INT, true, 0, 0},
    {"inverse", BERTH_ATTR_INT, false, 0, 0},
    {"onesided", BERTH_ATTR_INT, false, 0, 0},
};
static const berth_attr_spec_t stft_attrs[] = {
    {"step", BERTH_ATTR_INT, true, 0, 0},
    {"length", BERTH_ATTR_INT, true, 0, 0},
    {"onesided", BERTH_ATTR_INT, false, 1, 0},
};
const berth_op_def_t berth_op_def_dft = {"dft", BERTH_OPKIND_KERNEL, 1, 1, 1, 4, dft_attrs, dft_infer, dft_run};
const berth_op_def_t berth_op_def_stft = {"stft", BERTH_OPKIND_KERNEL, 1, 2, 1, 3, stft_attrs, stft_infer, stft_run};
