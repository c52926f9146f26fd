/* conv's direct path for few input channels (kernel_conv_rows.h): bands of zero-padded input
 * rows split by stride phase in the scratch, each output row's positions a run of the
 * variant's conv_rows micro-kernel per panel of output channels. */
#include "kernel_conv_rows.h"

#include <string.h>

#define CR_MAX_AP 64           /* weight panel rows at most: a bias block on the stack */
#define CR_BAND_FLOATS 16384   /* a band's floats at most where one row fits (64 KiB: near L2, and
                                * the rows shared by bands, kh - sh of each, are few) */
#define CR_CAP ((int64_t)1 << 40) /* past any scratch */
#define CR_FEW_TAPS 64 /* at most this many taps: one tile's channels over the band's rows at a time (4
                        * output planes written at once, not a panel's 32: SqueezeNet's 27-tap conv1
                        * with y out of cache 822-915 us against 1115-1528; with 147 taps the whole
                        * panel per row measured 3-5 % faster) */

/* A band's layout for bh output rows: rows of sw phases of pw floats, one plane per channel. */
typedef struct cr_band {
  int64_t pw, rw, rows, plane; /* phase width, row width (sw * pw), rows per plane, floats per plane */
} cr_band_t;

/* a * b if it is at most cap (a, b >= 0, cap >= 0), else -1 */
static int64_t cr_mul_le(int64_t a, int64_t b, int64_t cap) {
  if (a < 0 || b < 0) return -1;
  return b != 0 && a > cap / b ? -1 : a * b;
}

static bool cr_geom_ok(const berth_conv_direct_geom_t *g) {
  return g->kh >= 1 && g->kw >= 1 && g->kh <= BERTH_CONV_ROWS_MAX_TAPS && g->kw <= BERTH_CONV_ROWS_MAX_TAPS &&
         g->kh * g->kw <= BERTH_CONV_ROWS_MAX_TAPS && g->c >= 1 && g->m >= 1 && g->ih >= 1 && g->iw >= 1 && g->oh >= 1 && g->ow >= 1 && g->kh >= 1 &&
         g->kw >= 1 && g->sh >= 1 && g->sw >= 1 && g->ph >= 0 && g->pw >= 0 && g->c <= BERTH_CONV_ROWS_MAX_C &&
         g->ow <= CR_CAP && g->oh <= CR_CAP && g->kh <= CR_CAP && g->kw <= CR_CAP && g->sh <= CR_CAP &&
         g->sw <= CR_CAP && g->ih <= CR_CAP && g->iw <= CR_CAP;
}

/* The layout for bh output rows; false where a size passes CR_CAP. */
static bool cr_band(const berth_conv_direct_geom_t *g, int64_t bh, cr_band_t *b) {
  b->pw = g->ow + (g->kw - 1) / g->sw;
  b->rw = cr_mul_le(b->pw, g->sw, CR_CAP);
  const int64_t span = cr_mul_le(bh - 1, g->sh, CR_CAP);
  if (b->rw < 0 || span < 0) return false;
  b->rows = span + g->kh;
  b->plane = cr_mul_le(b->rows, b->rw, CR_CAP);
  return b->plane >= 0 && cr_mul_le(b->plane, g->c, CR_CAP) >= 0;
}

/* floats of scratch for the offsets (k int32, rounded up to a cache line) */
static int64_t cr_off_floats(const berth_conv_direct_geom_t *g) { return (g->c * g->kh * g->kw + 15) / 16 * 16; }

bool berth_conv_rows_geom(const berth_conv_direct_geom_t *g) { return cr_geom_ok(g); }

bool berth_conv_rows_wanted(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, int64_t ap) {
  return isa->conv_rows_ukr_f32 && isa->conv_rows_mr >= 1 && isa->conv_rows_t >= 1 &&
         isa->conv_rows_t <= BERTH_CONV_ROWS_SLACK && ap >= 1 && ap <= CR_MAX_AP && ap % isa->conv_rows_mr == 0 &&
         cr_geom_ok(g) && g->kh * g->kw <= CR_CAP / BERTH_CONV_ROWS_MAX_C;
}

int64_t berth_conv_rows_band_rows(const berth_conv_direct_geom_t *g, int64_t floats) {
  cr_band_t b1, b2;
  if (!cr_geom_ok(g) || g->kh * g->kw > CR_CAP / BERTH_CONV_ROWS_MAX_C || !cr_band(g, 1, &b1) || !cr_band(g, 2, &b2))
    return 0;
  const int64_t room = floats - cr_off_floats(g) - BERTH_CONV_ROWS_SLACK;
  const int64_t first = b1.plane * g->c, step = (b2.plane - b1.plane) * g->c; /* one more row: sh input rows */
  if (room < first) return 0;
  int64_t bh = 1 + (step == 0 ? g->oh : (room - first) / step);
  if (first < CR_BAND_FLOATS && step > 0 && 1 + (CR_BAND_FLOATS - first) / step < bh)
    bh = 1 + (CR_BAND_FLOATS - first) / step;
  else if (first >= CR_BAND_FLOATS)
    bh = 1;
  if (bh > g->oh) bh = g->oh;
  const int64_t nb = (g->oh + bh - 1) / bh; /* balanced bands */
  bh = (g->oh + nb - 1) / nb;
  cr_band_t b;
  if (!cr_band(g, bh, &b) || b.plane * g->c > INT32_MAX) return 0;
  return bh;
}

uint64_t berth_conv_rows_scratch_floats(const berth_conv_direct_geom_t *g, int64_t rows) {
  cr_band_t b;
  if (!cr_geom_ok(g) || rows < 1) return 0;
  if (rows > g->oh) rows = g->oh;
  if (!cr_band(g, rows, &b)) return 0;
  return (uint64_t)(b.plane * g->c + cr_off_floats(g) + BERTH_CONV_ROWS_SLACK);
}

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define CR_SHUFFLE 1
typedef float cr_v4 __attribute__((vector_size(16)));
#endif

/* d[k] = s[2 * k] for k < n (s[2 * n - 1] readable where n > 0): one stride phase of a row,
 * four at a time from two 16-byte loads where the compiler has shuffles. */
static void cr_even(float *d, const float *s, int64_t n) {
  int64_t k = 0;
#ifdef CR_SHUFFLE
  for (; k + 4 <= n; k += 4) {
    cr_v4 a, b;
    memcpy(&a, s + 2 * k, sizeof a);
    memcpy(&b, s + 2 * k + 4, sizeof b);
    const cr_v4 e = __builtin_shufflevector(a, b, 0, 2, 4, 6);
    memcpy(d + k, &e, sizeof e);
  }
#endif
  for (; k < n; k++) d[k] = s[2 * k];
}

/* Copies the input under output rows oh0 .. oh0 + n - 1 into the band: plane ic, row r, phase f,
 * index k holds x[ic][oh0 * sh + r - ph][k * sw + f - pw], 0 outside the input. */
static void cr_fill(const berth_conv_direct_geom_t *g, const cr_band_t *b, const float *x, int64_t oh0, int64_t n,
                    float *band) {
  const int64_t rows = (n - 1) * g->sh + g->kh;
  for (int64_t ic = 0; ic < g->c; ic++)
    for (int64_t r = 0; r < rows; r++) {
      float *d = band + ic * b->plane + r * b->rw;
      const int64_t i = oh0 * g->sh + r - g->ph;
      if (i < 0 || i >= g->ih) {
        memset(d, 0, (size_t)b->rw * sizeof(float));
        continue;
      }
      const float *s = x + (ic * g->ih + i) * g->iw;
      for (int64_t f = 0; f < g->sw; f++, d += b->pw) {
        /* k in [lo, hi): the columns inside the input */
        int64_t lo = g->pw > f ? (g->pw - f + g->sw - 1) / g->sw : 0;
        int64_t hi = (g->iw + g->pw - f + g->sw - 1) / g->sw;
        if (hi > b->pw) hi = b->pw;
        if (lo > hi) lo = hi;
        memset(d, 0, (size_t)lo * sizeof(float));
        const float *sf = s + f - g->pw;
        if (g->sw == 1) {
          memcpy(d + lo, sf + lo, (size_t)(hi - lo) * sizeof(float));
        } else if (g->sw == 2 && hi > lo) { /* the last pair only where its second column is inside */
          const int64_t full = 2 * (hi - 1) + f - g->pw + 1 < g->iw ? hi : hi - 1;
          cr_even(d + lo, sf + 2 * lo, full - lo);
          if (full < hi) d[full] = sf[2 * full];
        } else
          for (int64_t k = lo; k < hi; k++) d[k] = sf[k * g->sw];
        memset(d + hi, 0, (size_t)(b->pw - hi) * sizeof(float));
      }
    }
}

bool berth_conv_rows_f32(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, const float *x,
                         const float *wp, int64_t ap, const float *bias, float *y, const berth_ukr_epi_t *epi,
                         float *buf, int64_t floats) {
  if (!berth_conv_rows_wanted(isa, g, ap)) return false;
  const int64_t bh = berth_conv_rows_band_rows(g, floats);
  cr_band_t b;
  if (bh == 0 || !cr_band(g, bh, &b)) return false;
  const int64_t K = g->c * g->kh * g->kw, l = g->oh * g->ow;
  int32_t *off = (int32_t *)(void *)buf;
  float *band = buf + cr_off_floats(g);
  int64_t q = 0;
  for (int64_t ic = 0; ic < g->c; ic++)
    for (int64_t kh = 0; kh < g->kh; kh++)
      for (int64_t kw = 0; kw < g->kw; kw++)
        off[q++] = (int32_t)(ic * b.plane + kh * b.rw + kw % g->sw * b.pw + kw / g->sw);
  memset(band + g->c * b.plane, 0, BERTH_CONV_ROWS_SLACK * sizeof(float)); /* read past the last row */
  const int64_t grp = K <= CR_FEW_TAPS ? isa->conv_rows_mr : ap; /* channels per pass over the band's rows */
  float bv[CR_MAX_AP];
  berth_ukr_epi_t e = {0};
  if (epi) e = *epi;
  for (int64_t oh0 = 0; oh0 < g->oh; oh0 += bh) {
    const int64_t n = g->oh - oh0 < bh ? g->oh - oh0 : bh;
    cr_fill(g, &b, x, oh0, n, band);
    for (int64_t c0 = 0; c0 < g->m; c0 += ap) {
      const int64_t nch = g->m - c0 < ap ? g->m - c0 : ap;
      const float *bc = bias ? bias + c0 : NULL;
      if (!bc || nch < ap) { /* the ukr reads nch rounded up to its tile's channels */
        for (int64_t c = 0; c < ap; c++) bv[c] = bc && c < nch ? bc[c] : 0.0f;
        bc = bv;
      }
      for (int64_t c1 = 0; c1 < nch; c1 += grp) {
        const int64_t gn = nch - c1 < grp ? nch - c1 : grp;
        for (int64_t r = 0; r < n; r++) {
          const int64_t at = (c0 + c1) * l + (oh0 + r) * g->ow;
          if (epi && epi->res) e.res = epi->res + (c0 + c1) * epi->ldr + (oh0 + r) * g->ow;
          isa->conv_rows_ukr_f32(wp + c0 * K + c1, ap, band + r * g->sh * b.rw, off, K, bc + c1, y + at, l, g->ow, gn,
                                 epi ? &e : NULL);
        }
      }
    }
  }
  return true;
}
