/* conv_dft(x, table) {stride, pad_begin, pad_end, magnitude, pad_mode} -> y: a 1-D convolution whose
 * filters are a windowed DFT (an STFT written as Conv, as Silero VAD's is), computed with an
 * FFT; with magnitude = 1, the magnitude of each bin instead (y [B, N/2 + 1, F]).
 *
 *   x     f32 [B, 1, L]
 *   table f64 [3, N], N a power of two, 4 <= N <= CONV_DFT_MAX_N: row 0 the window w[n],
 *         rows 1 and 2 the cosines and sines of the twiddles' angles (src/passes/conv_dft.c
 *         writes them): entry k < N/2 the angle 2 pi k / N (the split of the real signal's
 *         spectrum), entry N/2 + j (1 <= j < N/2) pi (j - h) / h with h the largest power of
 *         two <= j (the FFT's stage h, one run of entries per stage); entry N/2 unused
 *   y     f32 [B, 2 * (N/2 + 1), F], F = (L + pad_begin + pad_end - N) / stride + 1
 *
 * With v[n] = w[n] * x[t * stride - pad_begin + n] (outside x: zero with pad_mode 0; with
 * pad_mode 1, ONNX Pad's reflect, x[-i] = x[i] and x[L-1+i] = x[L-1-i], pads below L), for
 * k <= N/2:
 *   y[b, k, t]           =  sum_n v[n] cos(2 pi k n / N)   (the real part of bin k)
 *   y[b, N/2 + 1 + k, t] = -sum_n v[n] sin(2 pi k n / N)   (its imaginary part)
 * (magnitude = 1: y[b, k, t] = sqrt(re^2 + im^2) of those two, k <= N/2),
 * which is what conv computes with the weights K[k, 0, n] = w[n] cos(2 pi k n / N),
 * K[N/2 + 1 + k, 0, n] = -w[n] sin(2 pi k n / N): the pass rewrites such a conv (weights
 * within about two f32 ulps of that form) into this op. O(N log N) per frame instead of
 * O(N^2), and no weights to stream (Silero's 16 kHz STFT filters are 264 KB).
 *
 * Arithmetic: double throughout (the frame packed as N/2 complex values, an in-place
 * radix-2 decimation-in-time FFT, two lanes at a time from the third stage, then the split that turns it into the real signal's
 * spectrum), rounded to f32 once at the end: each output is the exact DFT of the windowed
 * frame to about 1e-15 relative to the frame's size, where conv's f32 sum of N products
 * rounds at about 1e-7 of it; the difference between the two is conv's rounding. Other table
 * values give other finite results, never a fault. run allocates nothing; its work arrays
 * are on the stack (2 x N/2 doubles, 2 KB at N = 256). */
#include "kernel_dot.h"
#include "kernel_util.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define CONV_DFT_MAX_N 256

enum { CONV_DFT_STRIDE, CONV_DFT_PAD_BEGIN, CONV_DFT_PAD_END, CONV_DFT_MAGNITUDE, CONV_DFT_PAD_MODE };

static berth_status_t conv_dft_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                     berth_type_t *out, berth_diag_t *diag) {
  const char *op = "conv_dft";
  char a[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_conv_dft, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, BERTH_DTYPE_BIT(F32), diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 1, in[1].dtype, BERTH_DTYPE_BIT(F64), diag));
  const berth_type_t *x = &in[0], *t = &in[1];
  if (x->rank != 3 || x->dims[1] != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: x (operand 0) is %s, expected [batch, 1, length]", op,
                      berth_type_format(x, a, sizeof a));
  const int64_t n = t->rank == 2 ? t->dims[1] : 0;
  if (t->rank != 2 || t->dims[0] != 3 || n < 4 || n > CONV_DFT_MAX_N || (n & (n - 1)) != 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "%s: table (operand 1) is %s, expected [3, N] with N a power of two in 4..%d", op,
                      berth_type_format(t, a, sizeof a), CONV_DFT_MAX_N);
  const int64_t s = attrs[CONV_DFT_STRIDE].i, p0 = attrs[CONV_DFT_PAD_BEGIN].i, p1 = attrs[CONV_DFT_PAD_END].i;
  if (s < 1 || s > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: stride %lld, expected 1..2^40", op, (long long)s);
  if (p0 < 0 || p0 > BERTH_MAX_DIM || p1 < 0 || p1 > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: pads %lld, %lld, expected 0..2^40", op, (long long)p0,
                      (long long)p1);
  const int64_t pm = attrs[CONV_DFT_PAD_MODE].i;
  if (pm != 0 && pm != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: pad_mode %lld, expected 0 (zeros) or 1 (reflect)", op,
                      (long long)pm);
  if (pm == 1 && (p0 > x->dims[2] - 1 || p1 > x->dims[2] - 1))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "%s: reflect pads %lld, %lld over a signal of %lld samples, expected at most %lld", op,
                      (long long)p0, (long long)p1, (long long)x->dims[2], (long long)(x->dims[2] - 1));
  const int64_t span = x->dims[2] + p0 + p1;
  if (span < n)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "%s: the padded signal has %lld samples, fewer than the window's %lld", op, (long long)span,
                      (long long)n);
  bool mag;
  BERTH_TRY(berth_kernel_get_flag(op, "magnitude", &attrs[CONV_DFT_MAGNITUDE], &mag, diag));
  berth_type_t y;
  berth_kernel_type_init(&y, BERTH_DTYPE_F32, 3);
  y.dims[0] = x->dims[0];
  y.dims[1] = mag ? n / 2 + 1 : n + 2;
  y.dims[2] = (span - n) / s + 1;
  BERTH_TRY(berth_kernel_check_output(op, &y, diag));
  out[0] = y;
  return BERTH_OK;
}

/* ---- run ---------------------------------------------------------------------------- */

/* Two lanes of doubles where the compiler has vector types (kernel_dot.h), one elsewhere:
 * the same operations per lane either way, so the same results. */
#if BERTH_DOT_VECTOR
typedef berth_v2d cdft_v;
#define CDFT_W 2
static inline cdft_v cdft_ld(const double *p) { return berth_ld_f64(p); }
static inline void cdft_st(double *p, cdft_v v) { memcpy(p, &v, sizeof v); }
/* both lanes' square roots (correctly rounded: the bits of sqrt) */
static inline cdft_v cdft_sqrt(cdft_v v) {
#if defined(__SSE2__)
  __m128d r;
  memcpy(&r, &v, sizeof r);
  r = _mm_sqrt_pd(r);
  memcpy(&v, &r, sizeof v);
  return v;
#else
  return (cdft_v){sqrt(v[0]), sqrt(v[1])};
#endif
}
#else
typedef double cdft_v;
#define CDFT_W 1
static inline cdft_v cdft_ld(const double *p) { return *p; }
static inline void cdft_st(double *p, cdft_v v) { *p = v; }
#endif

/* In-place radix-2 FFT of m complex values (re, im) given in bit-reversed order, m >= 2 a power of
 * two, forward (e^{-2 pi i jk/m}); stage h's twiddles (the angles pi k / h, k < h) are
 * c[h + k], s[h + k] for h >= 4. */
static void conv_dft_fft(double *restrict re, double *restrict im, int64_t m, const double *c, const double *s) {
  for (int64_t i = 0; i < m; i += 2) { /* h = 1: twiddle 1 */
    const double tr = re[i + 1], ti = im[i + 1];
    re[i + 1] = re[i] - tr;
    im[i + 1] = im[i] - ti;
    re[i] += tr;
    im[i] += ti;
  }
  for (int64_t i = 0; m >= 4 && i < m; i += 4) { /* h = 2: twiddles 1 and -i */
    double tr = re[i + 2], ti = im[i + 2];
    re[i + 2] = re[i] - tr;
    im[i + 2] = im[i] - ti;
    re[i] += tr;
    im[i] += ti;
    tr = im[i + 3];
    ti = -re[i + 3];
    re[i + 3] = re[i + 1] - tr;
    im[i + 3] = im[i + 1] - ti;
    re[i + 1] += tr;
    im[i + 1] += ti;
  }
  for (int64_t h = 4; h < m; h <<= 1)
    for (int64_t i = 0; i < m; i += 2 * h)
      for (int64_t k = 0; k < h; k += CDFT_W) {
        double *ra = re + i + k, *ia = im + i + k, *rb = ra + h, *ib = ia + h;
        const cdft_v wr = cdft_ld(c + h + k), wi = -cdft_ld(s + h + k);
        const cdft_v xr = cdft_ld(rb), xi = cdft_ld(ib), ar = cdft_ld(ra), ai = cdft_ld(ia);
        const cdft_v tr = xr * wr - xi * wi, ti = xr * wi + xi * wr;
        cdft_st(rb, ar - tr);
        cdft_st(ib, ai - ti);
        cdft_st(ra, ar + tr);
        cdft_st(ia, ai + ti);
      }
}

/* Bins k of one bin's formula, scalar: X[k] = E[k] + e^{-2 pi i k/n} O[k], E and O the
 * spectra of the even and odd samples, E[k] = (Z[k] + conj Z[m-k]) / 2,
 * O[k] = -i (Z[k] - conj Z[m-k]) / 2; bin m's twiddle is -1. */
static inline void conv_dft_bin(const double *re, const double *im, int64_t m, int64_t k, const double *cs,
                                const double *sn, bool mag, float *y, int64_t ld) {
  const int64_t a = k == m ? 0 : k, b = k == 0 ? 0 : m - k;
  const double er = 0.5 * (re[a] + re[b]), ei = 0.5 * (im[a] - im[b]);
  const double or_ = 0.5 * (im[a] + im[b]), oi = -0.5 * (re[a] - re[b]);
  const double c = k < m ? cs[k] : -1.0, sv = k < m ? -sn[k] : 0.0;
  const double xr = er + or_ * c - oi * sv, xi = ei + or_ * sv + oi * c;
  if (mag) {
    y[k * ld] = (float)sqrt(xr * xr + xi * xi);
  } else {
    y[k * ld] = (float)xr;
    y[(m + 1 + k) * ld] = (float)xi;
  }
}

/* The real signal's spectrum from Z, the FFT of its even + i odd samples (conv_dft_bin's
 * formula): bins 1 .. m-1 two at a time where there are vector types (bin m - k is the
 * mirror of k: its pair is loaded and its lanes swapped), each lane the scalar formula's
 * operations, so the same bits. */
#if defined(__GNUC__)
#define CDFT_NOINLINE __attribute__((noinline)) /* gcc cannot tell the frame's arrays are filled */
#else
#define CDFT_NOINLINE
#endif
static CDFT_NOINLINE void conv_dft_split(const double *re, const double *im, int64_t m, const double *cs, const double *sn,
                           bool mag, float *y, int64_t ld) {
  conv_dft_bin(re, im, m, 0, cs, sn, mag, y, ld);
  conv_dft_bin(re, im, m, m, cs, sn, mag, y, ld);
  int64_t k = 1;
#if BERTH_DOT_VECTOR
  const cdft_v half = {0.5, 0.5};
  for (; k + 2 <= m; k += 2) {
    cdft_v rb = cdft_ld(re + m - k - 1), ib = cdft_ld(im + m - k - 1);
    rb = (cdft_v){rb[1], rb[0]};
    ib = (cdft_v){ib[1], ib[0]};
    const cdft_v ra = cdft_ld(re + k), ia = cdft_ld(im + k);
    const cdft_v er = half * (ra + rb), ei = half * (ia - ib), or_ = half * (ia + ib), oi = -half * (ra - rb);
    const cdft_v c = cdft_ld(cs + k), sv = -cdft_ld(sn + k);
    const cdft_v xr = er + or_ * c - oi * sv, xi = ei + or_ * sv + oi * c;
    const cdft_v r = cdft_sqrt(xr * xr + xi * xi);
    for (int l = 0; l < 2; l++) {
      if (mag) {
        y[(k + l) * ld] = (float)r[l];
      } else {
        y[(k + l) * ld] = (float)xr[l];
        y[(m + 1 + k + l) * ld] = (float)xi[l];
      }
    }
  }
#endif
  for (; k < m; k++) conv_dft_bin(re, im, m, k, cs, sn, mag, y, ld);
}

/* Sample p of the padded row: zero outside it, or (reflect) mirrored at its ends without
 * repeating the edge (infer keeps p within one reflection: pads < len). */
static inline double conv_dft_sample(const float *x0, int64_t len, int64_t p, bool reflect) {
  if (p >= 0 && p < len) return x0[p];
  if (!reflect) return 0.0;
  return x0[p < 0 ? -p : 2 * (len - 1) - p];
}

/* One frame: x0 is the signal row (len samples), s the frame's first sample (may be outside
 * the row), rev the bit reversal of j < n/2, y the output's first bin of this frame (bins
 * ld apart; imaginary parts (n/2 + 1) * ld after the real ones). */
static void conv_dft_frame(const float *x0, int64_t len, int64_t s, const double *tab, int64_t n,
                           const int16_t *rev, bool mag, bool reflect, float *y, int64_t ld) {
  const int64_t m = n / 2;
  const double *w = tab, *cs = tab + n, *sn = tab + 2 * n;
  double re[CONV_DFT_MAX_N / 2], im[CONV_DFT_MAX_N / 2];
  const bool inside = s >= 0 && s + n <= len;
  for (int64_t j = 0; j < m; j++) { /* z[r] = v[2r] + i v[2r+1] at r's bit reversal j */
    const int64_t r = rev[j], p = s + 2 * r, q = p + 1;
    if (inside) {
      re[j] = w[2 * r] * (double)x0[p];
      im[j] = w[2 * r + 1] * (double)x0[q];
    } else {
      re[j] = w[2 * r] * conv_dft_sample(x0, len, p, reflect);
      im[j] = w[2 * r + 1] * conv_dft_sample(x0, len, q, reflect);
    }
  }
  conv_dft_fft(re, im, m, cs + m, sn + m);
  conv_dft_split(re, im, m, cs, sn, mag, y, ld);
}

static void conv_dft_run(const berth_kernel_call_t *call) {
  const berth_type_t *xt = call->in[0].type, *yt = call->out[0].type;
  const int64_t nb = xt->dims[0], len = xt->dims[2], n = call->in[1].type->dims[1], frames = yt->dims[2];
  const int64_t s = call->attrs[CONV_DFT_STRIDE].i, p0 = call->attrs[CONV_DFT_PAD_BEGIN].i;
  const bool mag = call->attrs[CONV_DFT_MAGNITUDE].i != 0, reflect = call->attrs[CONV_DFT_PAD_MODE].i == 1;
  const int64_t rows = mag ? n / 2 + 1 : n + 2;
  const float *x = (const float *)call->in[0].data;
  const double *tab = (const double *)call->in[1].data;
  float *y = (float *)call->out[0].data;
  int16_t rev[CONV_DFT_MAX_N / 2]; /* once per call: the reversal loop mispredicts per element */
  for (int64_t i = 0, j = 0; i < n / 2; i++) {
    rev[i] = (int16_t)j;
    int64_t bit = n / 4;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
  }
  for (int64_t b = 0; b < nb; b++)
    for (int64_t t = 0; t < frames; t++)
      conv_dft_frame(x + b * len, len, t * s - p0, tab, n, rev, mag, reflect, y + b * rows * frames + t, frames);
}

static const berth_attr_spec_t conv_dft_attrs[] = {
    {"stride", BERTH_ATTR_INT, false, 1, 0},
    {"pad_begin", BERTH_ATTR_INT, false, 0, 0},
    {"pad_end", BERTH_ATTR_INT, false, 0, 0},
    {"magnitude", BERTH_ATTR_INT, false, 0, 0},
    {"pad_mode", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_conv_dft = {"conv_dft", BERTH_OPKIND_KERNEL, 2, 2, 1, 5, conv_dft_attrs,
                                              conv_dft_infer, conv_dft_run};
