/* 1-D f32 convolutions over a few output positions (kernel_conv_small.h).
 *
 * An audio frame's convolutions have one to four output positions, so each output channel is
 * a handful of dot products of one weight row with the patches: the whole cost is streaming
 * the weights once (they do not fit in L2 together) and building the patches. conv's general
 * packer walks (ic, q0, q1) rows with bounds checks per row, three spatial dims deep, which
 * cost as much as the multiplications here; this packer knows the conv is 1-D, finds the valid
 * taps of each position once, and copies each input channel's window with no checks. Where
 * the patches are runs of the input already (one input channel, every window inside the row:
 * the STFT's strided frames), the weights are multiplied with the input in place, nothing
 * packed. The products are the active variant's dot4xn over four weight rows at a time. */
#include "kernel_conv_small.h"

#include "kernel_isa.h"

#include <string.h>

/* Valid taps q of the window starting at s: 0 <= s + q * dil < n for lo <= q < hi. */
static void small_taps(int64_t s, int64_t dil, int64_t k, int64_t n, int64_t *lo, int64_t *hi) {
  int64_t a = s >= 0 ? 0 : (-s + dil - 1) / dil;
  int64_t b = n > s ? (n - s + dil - 1) / dil : 0;
  *lo = a < k ? a : k;
  *hi = b < k ? b : k;
  if (*hi < *lo) *hi = *lo;
}

/* The channels of one position's patch for a short kernel (k <= SMALL_TAPS): tap q of
 * channel ic is src[q][ic * step[q]], which is the input or, over the padding, a zero
 * (step 0). No branch and no call per channel: a loop over the valid taps would be turned
 * into memset and memcpy calls of one to three floats each, costing more than the whole
 * conv's multiplications at 3 positions. k is a constant where it is inlined. */
#define SMALL_TAPS 8
static const float small_zero = 0.0f;
#if defined(__GNUC__)
#define SMALL_INLINE inline __attribute__((always_inline))
#else
#define SMALL_INLINE inline
#endif
static SMALL_INLINE void small_pack_taps(int64_t k, int64_t cg, const float *const *src,
                                                                  const int64_t *step, float *restrict d) {
  for (int64_t ic = 0; ic < cg; ic++, d += k)
    for (int64_t q = 0; q < k; q++) d[q] = src[q][ic * step[q]];
}

/* One position's patch where each input row is one window long (il == k, unit dilation:
 * the encoder's first convs, 3 positions of 3): entry ic * k + q is x[ic * k + q + s], so
 * the patch is the whole input shifted by s, one copy, then the taps outside each row
 * (q < lo or q >= hi, the same for every channel) zeroed. */
static void small_pack_shifted(const float *xg, int64_t ck, int64_t k, int64_t s, int64_t lo, int64_t hi,
                               float *restrict d) {
  const int64_t a = s < 0 ? -s : 0, b = s > 0 ? ck - s : ck; /* d[a, b) = x[a + s, b + s) */
  if (b > a) memcpy(d + a, xg + a + s, (size_t)(b - a) * sizeof(float));
  for (int64_t q = 0; q < k; q++)
    if (q < lo || q >= hi)
      for (int64_t i = q; i < ck; i += k) d[i] = 0.0f;
}

/* buf[t * ck + ic * k + q] = x[ic * il + t * stride - pad + q * dil], zeros over the padding. */
static void small_pack(const berth_conv_small_geom_t *g, const float *xg, float *restrict buf) {
  const int64_t k = g->k, il = g->il;
  for (int64_t t = 0; t < g->l; t++) {
    const int64_t s = t * g->stride - g->pad;
    int64_t lo, hi;
    small_taps(s, g->dil, k, il, &lo, &hi);
    float *restrict d = buf + t * g->ck;
    if (il == k && g->dil == 1) {
      small_pack_shifted(xg, g->ck, k, s, lo, hi, d);
      continue;
    }
    if (k <= SMALL_TAPS) {
      const float *src[SMALL_TAPS];
      int64_t step[SMALL_TAPS];
      for (int64_t q = 0; q < k; q++) {
        const bool ok = q >= lo && q < hi;
        src[q] = ok ? xg + s + q * g->dil : &small_zero;
        step[q] = ok ? il : 0;
      }
      if (k == 3) small_pack_taps(3, g->cg, src, step, d); /* the encoder's kernels */
      else small_pack_taps(k, g->cg, src, step, d);
      continue;
    }
    for (int64_t ic = 0; ic < g->cg; ic++, d += k) {
      const float *x = xg + ic * il;
      int64_t q = 0;
      for (; q < lo; q++) d[q] = 0.0f;
      for (; q < hi; q++) d[q] = x[s + q * g->dil];
      for (; q < k; q++) d[q] = 0.0f;
    }
  }
}

/* True if every patch is a run of the input: one input channel, unit dilation, every window
 * inside the row. */
static bool small_in_place(const berth_conv_small_geom_t *g) {
  return g->cg == 1 && g->dil == 1 && g->pad <= 0 && (g->l - 1) * g->stride - g->pad + g->k <= g->il;
}

bool berth_conv_small_f32(const berth_conv_small_geom_t *g, const float *xg, const float *wg, const float *bg,
                          float *yg, float *buf, int64_t bufn) {
  const int64_t l = g->l, ck = g->ck, mg = g->mg;
  if (l < 1 || l > BERTH_CONV_SMALL_MAX_L || mg < 4 || ck < 1) return false;
  const float *x;
  int64_t ldx;
  if (small_in_place(g)) {
    x = xg - g->pad;
    ldx = g->stride;
  } else {
    if (!buf || bufn / ck < l) return false;
    small_pack(g, xg, buf);
    x = buf;
    ldx = ck;
  }
  for (int64_t m = 0; m < mg; m++)
    for (int64_t t = 0; t < l; t++) yg[m * l + t] = bg ? bg[m] : 0.0f;
  int64_t m = 0;
  for (; m + 4 <= mg; m += 4) BERTH_KCALL(dot4xn_f32)(wg + m * ck, ck, x, ldx, l, ck, yg + m * l, l);
  for (; m < mg; m++)
    for (int64_t t = 0; t < l; t++) yg[m * l + t] += BERTH_KCALL(dot_f32)(wg + m * ck, x + t * ldx, ck);
  return true;
}
