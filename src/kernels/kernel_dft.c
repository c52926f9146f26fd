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
 * A two-sided transform of a complex f32 or any f64 signal whose length is at most FFT_MAX
 * and a product of the factors 2, 3, 4 and 5 (not a multiple of 8) is a mixed-radix FFT in
 * the signal's precision, with the factor order, butterflies and twiddles of pocketfft, so
 * that it rounds as numpy's complex64 and complex128 FFTs do (ONNX's expected values are
 * theirs); every other transform, real f32 signals included, is direct, accumulating in double with a rotating
 * phasor per output bin (error about L ulps of a double), O(L^2) per signal as onnxruntime's
 * for lengths that are not powers of two. run allocates nothing (the FFT's work arrays are
 * on the stack, 1.5 KB). */
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


/* ==== mixed-radix FFT (pocketfft's cfftp order, radices 2, 3, 4, 5) ======================== */

/* The work arrays (two of FFT_MAX values and the twiddles) live on the stack: 1.5 KB for
 * f64, within the runtime's stack budget (cmake/stack_report.cmake). */
#define FFT_MAX 32

/* The factors of n in pocketfft's order (4 first, then 2 moved to the front, then 3s and 5s);
 * false when n has another factor or is a multiple of 8 (pocketfft's radix 8, not here). */
static bool fft_factors(int64_t n, int *f, int *nf) {
  *nf = 0;
  if (n < 2 || n > FFT_MAX || n % 8 == 0) return false;
  int64_t len = n;
  while (len % 4 == 0) f[(*nf)++] = 4, len /= 4;
  if (len % 2 == 0) {
    len /= 2;
    f[(*nf)++] = 2;
    int t = f[0];
    f[0] = f[*nf - 1];
    f[*nf - 1] = t;
  }
  for (int d = 3; d <= 5; d += 2)
    while (len % d == 0) f[(*nf)++] = d, len /= d;
  return len == 1;
}

/* e^{2 pi i x / n} as pocketfft computes it: in double, by octant. */
static void sincos_calc(int64_t x, int64_t n, double ang, double *re, double *im) {
  x <<= 3;
  if (x < 4 * n) {
    if (x < 2 * n) {
      if (x < n) *re = cos((double)x * ang), *im = sin((double)x * ang);
      else *re = sin((double)(2 * n - x) * ang), *im = cos((double)(2 * n - x) * ang);
    } else {
      x -= 2 * n;
      if (x < n) *re = -sin((double)x * ang), *im = cos((double)x * ang);
      else *re = -cos((double)(2 * n - x) * ang), *im = sin((double)(2 * n - x) * ang);
    }
  } else {
    x = 8 * n - x;
    if (x < 2 * n) {
      if (x < n) *re = cos((double)x * ang), *im = -sin((double)x * ang);
      else *re = sin((double)(2 * n - x) * ang), *im = -cos((double)(2 * n - x) * ang);
    } else {
      x -= 2 * n;
      if (x < n) *re = -sin((double)x * ang), *im = -cos((double)x * ang);
      else *re = -cos((double)(2 * n - x) * ang), *im = -sin((double)(2 * n - x) * ang);
    }
  }
}

/* Twiddle idx of length n: a product of two table entries (pocketfft's sincos_2pibyn). */
static void twiddle(int64_t n, int64_t idx, double *re, double *im) {
  double ang = 0.25 * 3.141592653589793238462643383279502884 / (double)n;
  int64_t nval = (n + 2) / 2, shift = 1;
  while (((int64_t)1 << shift) * ((int64_t)1 << shift) < nval) shift++;
  int64_t mask = ((int64_t)1 << shift) - 1;
  bool mirror = 2 * idx > n;
  if (mirror) idx = n - idx;
  double ar = 1, ai = 0, br = 1, bi = 0;
  if (idx & mask) sincos_calc(idx & mask, n, ang, &ar, &ai);
  if (idx >> shift) sincos_calc((idx >> shift) * (mask + 1), n, ang, &br, &bi);
  *re = ar * br - ai * bi;
  *im = ar * bi + ai * br;
  if (mirror) *im = -*im;
}

#define FFT_IMPL(sfx, T)                                                                             \
  typedef struct { T r, i; } cx_##sfx;                                                               \
  static inline cx_##sfx add_##sfx(cx_##sfx a, cx_##sfx b) { return (cx_##sfx){a.r + b.r, a.i + b.i}; } \
  static inline cx_##sfx sub_##sfx(cx_##sfx a, cx_##sfx b) { return (cx_##sfx){a.r - b.r, a.i - b.i}; } \
  /* v * w (backward) or v * conj(w) (forward) */                                                    \
  static inline cx_##sfx smul_##sfx(bool fwd, cx_##sfx v, cx_##sfx w) {                              \
    return fwd ? (cx_##sfx){v.r * w.r + v.i * w.i, v.i * w.r - v.r * w.i}                            \
               : (cx_##sfx){v.r * w.r - v.i * w.i, v.r * w.i + v.i * w.r};                           \
  }                                                                                                  \
  static void pass2_##sfx(bool fwd, int64_t ido, int64_t l1, const cx_##sfx *cc, cx_##sfx *ch,       \
                          const cx_##sfx *wa) {                                                      \
    for (int64_t k = 0; k < l1; k++)                                                                 \
      for (int64_t i = 0; i < ido; i++) {                                                            \
        cx_##sfx a = cc[i + ido * (0 + 2 * k)], b = cc[i + ido * (1 + 2 * k)];                       \
        ch[i + ido * (k + l1 * 0)] = add_##sfx(a, b);                                                \
        ch[i + ido * (k + l1 * 1)] = i ? smul_##sfx(fwd, sub_##sfx(a, b), wa[i - 1]) : sub_##sfx(a, b); \
      }                                                                                              \
  }                                                                                                  \
  static void pass3_##sfx(bool fwd, int64_t ido, int64_t l1, const cx_##sfx *cc, cx_##sfx *ch,       \
                          const cx_##sfx *wa) {                                                      \
    const T twr = (T)-0.5, twi = (T)((fwd ? -1 : 1) * 0.8660254037844386467637231707529362);        \
    for (int64_t k = 0; k < l1; k++)                                                                 \
      for (int64_t i = 0; i < ido; i++) {                                                            \
        cx_##sfx t0 = cc[i + ido * (0 + 3 * k)], c1 = cc[i + ido * (1 + 3 * k)],                     \
                 c2 = cc[i + ido * (2 + 3 * k)];                                                     \
        cx_##sfx t1 = add_##sfx(c1, c2), t2 = sub_##sfx(c1, c2);                                     \
        ch[i + ido * (k + l1 * 0)] = add_##sfx(t0, t1);                                              \
        cx_##sfx ca = {t0.r + t1.r * twr, t0.i + t1.i * twr}, cb = {-t2.i * twi, t2.r * twi};        \
        cx_##sfx u1 = add_##sfx(ca, cb), u2 = sub_##sfx(ca, cb);                                     \
        ch[i + ido * (k + l1 * 1)] = i ? smul_##sfx(fwd, u1, wa[i - 1]) : u1;                        \
        ch[i + ido * (k + l1 * 2)] = i ? smul_##sfx(fwd, u2, wa[(ido - 1) + i - 1]) : u2;            \
      }                                                                                              \
  }                                                                                                  \
  static void pass4_##sfx(bool fwd, int64_t ido, int64_t l1, const cx_##sfx *cc, cx_##sfx *ch,       \
                          const cx_##sfx *wa) {                                                      \
    for (int64_t k = 0; k < l1; k++)                                                                 \
      for (int64_t i = 0; i < ido; i++) {                                                            \
        cx_##sfx c0 = cc[i + ido * (0 + 4 * k)], c1 = cc[i + ido * (1 + 4 * k)],                     \
                 c2 = cc[i + ido * (2 + 4 * k)], c3 = cc[i + ido * (3 + 4 * k)];                     \
        cx_##sfx t2 = add_##sfx(c0, c2), t1 = sub_##sfx(c0, c2), t3 = add_##sfx(c1, c3),             \
                 t4 = sub_##sfx(c1, c3);                                                             \
        T tmp = fwd ? -t4.r : t4.r; /* ROTX90 */                                                    \
        t4.r = fwd ? t4.i : -t4.i;                                                                   \
        t4.i = tmp;                                                                                  \
        ch[i + ido * (k + l1 * 0)] = add_##sfx(t2, t3);                                              \
        cx_##sfx o1 = add_##sfx(t1, t4), o2 = sub_##sfx(t2, t3), o3 = sub_##sfx(t1, t4);             \
        ch[i + ido * (k + l1 * 1)] = i ? smul_##sfx(fwd, o1, wa[i - 1]) : o1;                        \
        ch[i + ido * (k + l1 * 2)] = i ? smul_##sfx(fwd, o2, wa[(ido - 1) + i - 1]) : o2;            \
        ch[i + ido * (k + l1 * 3)] = i ? smul_##sfx(fwd, o3, wa[2 * (ido - 1) + i - 1]) : o3;        \
      }                                                                                              \
  }                                                                                                  \
  static void pass5_##sfx(bool fwd, int64_t ido, int64_t l1, const cx_##sfx *cc, cx_##sfx *ch,       \
                          const cx_##sfx *wa) {                                                      \
    const T s = (T)(fwd ? -1 : 1);                                                                   \
    const T tw1r = (T)0.3090169943749474241022934171828191, tw1i = s * (T)0.9510565162951535721164393333793821; \
    const T tw2r = (T)-0.8090169943749474241022934171828191, tw2i = s * (T)0.5877852522924731291687059546390728; \
    for (int64_t k = 0; k < l1; k++)                                                                 \
      for (int64_t i = 0; i < ido; i++) {                                                            \
        cx_##sfx t0 = cc[i + ido * (0 + 5 * k)], c1 = cc[i + ido * (1 + 5 * k)],                     \
                 c2 = cc[i + ido * (2 + 5 * k)], c3 = cc[i + ido * (3 + 5 * k)],                     \
                 c4 = cc[i + ido * (4 + 5 * k)];                                                     \
        cx_##sfx t1 = add_##sfx(c1, c4), t4 = sub_##sfx(c1, c4), t2 = add_##sfx(c2, c3),             \
                 t3 = sub_##sfx(c2, c3);                                                             \
        ch[i + ido * (k + l1 * 0)] = (cx_##sfx){t0.r + t1.r + t2.r, t0.i + t1.i + t2.i};             \
        /* (u1, u2) = (1, 4) with (tw1r, tw2r, +tw1i, +tw2i), then (2, 3) with (tw2r, tw1r, +tw2i, -tw1i) */ \
        for (int step = 0; step < 2; step++) {                                                       \
          T ar = step ? tw2r : tw1r, br = step ? tw1r : tw2r;                                        \
          T ai = step ? tw2i : tw1i, bi = step ? -tw1i : tw2i;                                       \
          int64_t u1 = step ? 2 : 1, u2 = step ? 3 : 4;                                              \
          cx_##sfx ca, cb;                                                                           \
          ca.r = t0.r + ar * t1.r + br * t2.r;                                                       \
          ca.i = t0.i + ar * t1.i + br * t2.i;                                                       \
          cb.i = ai * t4.r + bi * t3.r;                                                              \
          cb.r = -(ai * t4.i + bi * t3.i);                                                           \
          cx_##sfx o1 = add_##sfx(ca, cb), o2 = sub_##sfx(ca, cb);                                   \
          ch[i + ido * (k + l1 * u1)] = i ? smul_##sfx(fwd, o1, wa[(u1 - 1) * (ido - 1) + i - 1]) : o1; \
          ch[i + ido * (k + l1 * u2)] = i ? smul_##sfx(fwd, o2, wa[(u2 - 1) * (ido - 1) + i - 1]) : o2; \
        }                                                                                            \
      }                                                                                              \
  }                                                                                                  \
  /* The transform of c (n values) in place, times fct, as pocketfft's pass_all. */                 \
  __attribute__((noinline)) static void fft_##sfx(bool fwd, int64_t n, const int *f, int nf, cx_##sfx *c, cx_##sfx *ch, T fct) { \
    cx_##sfx tw[FFT_MAX];                                                                            \
    cx_##sfx *p1 = c, *p2 = ch;                                                                      \
    int64_t l1 = 1;                                                                                  \
    for (int k = 0; k < nf; k++) {                                                                   \
      int64_t ip = f[k], l2 = ip * l1, ido = n / l2;                                                 \
      for (int64_t j = 1; j < ip; j++)                                                               \
        for (int64_t i = 1; i < ido; i++) {                                                          \
          double re, im;                                                                             \
          twiddle(n, j * l1 * i, &re, &im);                                                          \
          tw[(j - 1) * (ido - 1) + i - 1] = (cx_##sfx){(T)re, (T)im};                                \
        }                                                                                            \
      if (ip == 4) pass4_##sfx(fwd, ido, l1, p1, p2, tw);                                            \
      else if (ip == 2) pass2_##sfx(fwd, ido, l1, p1, p2, tw);                                       \
      else if (ip == 3) pass3_##sfx(fwd, ido, l1, p1, p2, tw);                                       \
      else pass5_##sfx(fwd, ido, l1, p1, p2, tw);                                                    \
      cx_##sfx *t = p1;                                                                              \
      p1 = p2;                                                                                       \
      p2 = t;                                                                                        \
      l1 = l2;                                                                                       \
    }                                                                                                \
    for (int64_t i = 0; i < n; i++) {                                                                \
      cx_##sfx v = p1[i];                                                                            \
      if (fct != (T)1) v.r *= fct, v.i *= fct;                                                       \
      c[i] = v;                                                                                      \
    }                                                                                                \
  }                                                                                                  \
  __attribute__((noinline)) static void dft_fft_##sfx(const dft_line_t *l, const int *f, int nf) {                             \
    cx_##sfx c[FFT_MAX], ch[FFT_MAX];                                                                \
    const T *x = (const T *)l->x, *w = (const T *)l->w;                                              \
    for (int64_t n = 0; n < l->len; n++) {                                                           \
      cx_##sfx v = {0, 0};                                                                           \
      if (n < l->n_in) {                                                                             \
        v.r = x[n * l->xs];                                                                          \
        v.i = l->c_in == 2 ? x[n * l->xs + 1] : (T)0;                                                \
        if (w) v.r *= w[n], v.i *= w[n];                                                             \
      }                                                                                              \
      c[n] = v;                                                                                      \
    }                                                                                                \
    fft_##sfx(!l->inverse, l->len, f, nf, c, ch, l->inverse ? (T)(1.0 / (double)l->len) : (T)1);    \
    T *y = (T *)l->y;                                                                                \
    for (int64_t k = 0; k < l->k_out; k++) {                                                         \
      y[k * l->ys] = c[k].r;                                                                         \
      y[k * l->ys + 1] = c[k].i;                                                                     \
    }                                                                                                \
  }
FFT_IMPL(f32, float)
FFT_IMPL(f64, double)

/* A two-sided transform by FFT when its length allows, else directly. */
static void dft_line(const dft_line_t *l) {
  int f[8], nf;
  if (!l->onesided && (l->f64 || l->c_in == 2) && fft_factors(l->len, f, &nf)) {
    if (l->f64) dft_fft_f64(l, f, nf);
    else dft_fft_f32(l, f, nf);
    return;
  }
  dft_complex(l);
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
      else dft_line(&l);
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
