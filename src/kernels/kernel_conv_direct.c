/* conv's direct path (kernel_conv_direct.h): bands of zero-padded input rows in the scratch
 * (or the input in place where no window reaches the padding), runs of output positions of
 * the variant's micro-kernel over them per block of 32 output channels, K in blocks whose
 * weights stay in L1, the sums transposed to y with the epilogue. */
#include "kernel_conv_direct.h"

#include "kernel_conv_rows.h"

#include <string.h>

#define CD_MAX_NR 32 /* the widest variant's conv_direct_nr (AVX-512, AVX2: 32): a bias block on the stack */
#define CD_KB_FLOATS 8192 /* weights per block of K (32 KiB: 256 taps of a 32-channel block; 128 taps
                           * measured 2 % faster on 128-256 input channels, 5 % slower on 16-32) */

/* The band's plane geometry for bh output rows. */
/* A band's geometry for bh output rows: the input rows under them, padded to every column a
 * window reaches, one plane per input channel. */
typedef struct cd_band {
  int64_t rows, wq, plane; /* rows per plane ((bh - 1) * sh + kh), padded width, floats per plane */
} cd_band_t;

static cd_band_t cd_band(const berth_conv_direct_geom_t *g, int64_t bh) {
  cd_band_t b;
  b.rows = (bh - 1) * g->sh + g->kh;
  b.wq = (g->ow - 1) * g->sw + g->kw;
  b.plane = b.rows * b.wq;
  return b;
}

/* floats of scratch for the offsets (k int32, rounded up to a cache line) */
static int64_t cd_off_floats(const berth_conv_direct_geom_t *g) { return (g->c * g->kh * g->kw + 15) / 16 * 16; }

/* a * b if it is at most cap (a, b >= 1, cap >= 0), else -1: no product here can overflow */
static int64_t cd_mul_le(int64_t a, int64_t b, int64_t cap) { return a > cap / b ? -1 : a * b; }

/* The band rows for `floats` of scratch with `per_row` more floats for each output row of the
 * band (see berth_conv_direct_band_rows). */
static int64_t cd_band_rows(const berth_conv_direct_geom_t *g, int64_t floats, int64_t per_row) {
  if (g->c < 1 || g->m < 1 || g->oh < 1 || g->ow < 1 || g->kh < 1 || g->kw < 1 || g->sh < 1 || g->sw < 1 ||
      floats < 1 || per_row < 0)
    return 0;
  /* every size below is at most `floats` (the scratch), checked before it is multiplied */
  const int64_t k = cd_mul_le(cd_mul_le(g->c, g->kh, floats), g->kw, floats);
  if (k < 0 || g->ow > floats || g->kw > floats || g->kh > floats || g->sh > floats) return 0;
  const int64_t span = g->ow == 1 ? 0 : cd_mul_le(g->ow - 1, g->sw, floats);
  if (span < 0 || span > floats - g->kw) return 0;
  const int64_t wq = span + g->kw, room = floats - cd_off_floats(g);
  const int64_t colrow = room <= 0 ? -1 : cd_mul_le(wq, g->c, room); /* floats per input row of the band */
  if (colrow < 0) return 0;
  /* the first output row: kh input rows; each further one: sh more */
  int64_t first = cd_mul_le(g->kh, colrow, room), step = cd_mul_le(g->sh, colrow, room);
  if (first < 0 || per_row > room - first) return 0;
  first += per_row;
  int64_t bh = step < 0 || step > room - per_row ? 1 : 1 + (room - first) / (step + per_row);
  if (bh > g->oh) bh = g->oh;
  const int64_t nb = (g->oh + bh - 1) / bh; /* balanced bands */
  bh = (g->oh + nb - 1) / nb;
  if (cd_band(g, bh).plane * g->c + bh * per_row > INT32_MAX) return 0; /* within room: no overflow */
  return bh;
}

/* Copies the input under output rows oh0 .. oh0 + bh - 1 into the band: plane ic row r, column j
 * holds x[ic][oh0 * sh + r - ph][j - pw], 0 outside the input. */
static void cd_fill(const berth_conv_direct_geom_t *g, const cd_band_t *b, const float *x, int64_t oh0, int64_t bh,
                    float *band) {
  const int64_t rows = (bh - 1) * g->sh + g->kh, il = g->ih * g->iw;
  const int64_t lo = g->pw < b->wq ? g->pw : b->wq, hi = g->pw + g->iw < b->wq ? g->pw + g->iw : b->wq;
  for (int64_t ic = 0; ic < g->c; ic++) {
    float *d = band + ic * b->plane;
    for (int64_t r = 0; r < rows; r++, d += b->wq) {
      const int64_t i = oh0 * g->sh + r - g->ph;
      if (i < 0 || i >= g->ih || lo >= hi) {
        memset(d, 0, (size_t)b->wq * sizeof(float));
        continue;
      }
      memset(d, 0, (size_t)lo * sizeof(float));
      memcpy(d + lo, x + ic * il + i * g->iw + (lo - g->pw), (size_t)(hi - lo) * sizeof(float));
      memset(d + hi, 0, (size_t)(b->wq - hi) * sizeof(float));
    }
  }
}

/* The offset of tap (ic, kh, kw) in a band (or the input: planes `plane` floats, rows `wq`),
 * in the weights' order. */
static void cd_offsets(const berth_conv_direct_geom_t *g, int64_t plane, int64_t wq, int32_t *off) {
  int64_t q = 0;
  for (int64_t ic = 0; ic < g->c; ic++)
    for (int64_t kh = 0; kh < g->kh; kh++)
      for (int64_t kw = 0; kw < g->kw; kw++) off[q++] = (int32_t)(ic * plane + kh * wq + kw);
}

typedef struct cd_out {
  const float *wp, *bias;
  int64_t ap;
  float *y, *part; /* part: the band's partial sums, [position][conv_direct_nr] */
  const berth_ukr_epi_t *epi;
  int64_t rs, cs; /* an output row's and an output column's step in the band */
} cd_out_t;

/* One block of conv_direct_nr output channels over the band's n output positions (from output
 * row 0 of the band, in the order of y), K in blocks whose weights stay in L1 (the partial sums
 * in o->part between them). */
static void cd_block(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, const float *band,
                     const int32_t *off, int64_t t0, int64_t n, int64_t c0, const cd_out_t *o) {
  const int64_t nr = isa->conv_direct_nr, K = g->c * g->kh * g->kw, l = g->oh * g->ow;
  const int64_t nch = g->m - c0 < nr ? g->m - c0 : nr, nkb = (K * nr + CD_KB_FLOATS - 1) / CD_KB_FLOATS;
  const int64_t kb = (K + nkb - 1) / nkb;
  const float *w = o->wp + c0 / o->ap * o->ap * K + c0 % o->ap; /* column c at w[q * ap + c] */
  float bv[CD_MAX_NR];
  const float *bias = o->bias ? o->bias + c0 : NULL;
  if (!bias || nch < nr) {
    for (int64_t c = 0; c < nr; c++) bv[c] = bias && c < nch ? bias[c] : 0.0f;
    bias = bv;
  }
  berth_ukr_epi_t e;
  if (o->epi) {
    e = *o->epi;
    if (e.res) e.res += c0 * e.ldr + t0;
  }
  for (int64_t k0 = 0; k0 < K; k0 += kb) {
    const int64_t kc = K - k0 < kb ? K - k0 : kb;
    const bool last = k0 + kc == K;
    isa->conv_direct_ukr_f32(w + k0 * o->ap, o->ap, band, o->rs, o->cs, g->ow, 0, n, off + k0, kc,
                             k0 == 0 ? bias : NULL, o->part, last ? o->y + c0 * l + t0 : NULL, l, nch,
                             o->epi ? &e : NULL);
  }
}

/* Whether every window lies inside the input (no padding at either end): then the input is
 * read in place, one band of all output rows. */
static bool cd_in_place(const berth_conv_direct_geom_t *g) {
  return g->ph == 0 && g->pw == 0 && (g->oh - 1) * g->sh + g->kh <= g->ih && (g->ow - 1) * g->sw + g->kw <= g->iw;
}

int64_t berth_conv_direct_band_rows(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, int64_t ap,
                                    int64_t floats) {
  if (!isa->conv_direct_ukr_f32 || isa->conv_direct_nr < 1 || isa->conv_direct_nr > CD_MAX_NR || ap < 1 ||
      ap % isa->conv_direct_nr != 0 || g->c < 1 || g->m < 1 || g->ih < 1 || g->iw < 1 || g->oh < 1 || g->ow < 1 ||
      g->kh < 1 || g->kw < 1 || g->sh < 1 || g->sw < 1 || floats < 1)
    return 0;
  if (berth_conv_rows_wanted(isa, g, ap)) return berth_conv_rows_band_rows(g, floats);
  if (g->ow > floats / isa->conv_direct_nr) return 0;
  const int64_t nr = isa->conv_direct_nr;
  if (cd_in_place(g)) { /* the offsets and the partial sums of each row: no band */
    if (g->c > INT32_MAX / g->ih / g->iw || g->kh > g->ih || g->kw > g->iw) return 0;
    const int64_t room = floats - cd_off_floats(g);
    if (room < g->ow * nr) return 0;
    int64_t bh = room / (g->ow * nr);
    if (bh > g->oh) bh = g->oh;
    const int64_t nb = (g->oh + bh - 1) / bh;
    return (g->oh + nb - 1) / nb;
  }
  return cd_band_rows(g, floats, g->ow * nr);
}

uint64_t berth_conv_direct_scratch_floats(const berth_conv_direct_geom_t *g, int64_t rows) {
  const int64_t cap = (int64_t)1 << 40; /* past any scratch: then 0, no request */
  if (g->c < 1 || g->oh < 1 || g->ow < 1 || g->kh < 1 || g->kw < 1 || g->sh < 1 || g->sw < 1 || rows < 1 ||
      g->c > cap || g->oh > cap || g->ow > cap || g->kh > cap || g->kw > cap || g->sh > cap || g->sw > cap)
    return 0;
  if (rows > g->oh) rows = g->oh;
  if (berth_conv_rows_geom(g)) return berth_conv_rows_scratch_floats(g, rows); /* every variant's path */
  const int64_t k = cd_mul_le(cd_mul_le(g->c, g->kh, cap), g->kw, cap), part = cd_mul_le(rows * CD_MAX_NR, g->ow, cap);
  if (k < 0 || part < 0) return 0;
  if (cd_in_place(g)) return (uint64_t)(part + cd_off_floats(g));
  const int64_t span = rows == 1 ? 0 : cd_mul_le(rows - 1, g->sh, cap);
  const int64_t wspan = g->ow == 1 ? 0 : cd_mul_le(g->ow - 1, g->sw, cap);
  if (span < 0 || wspan < 0) return 0;
  const int64_t band = cd_mul_le(cd_mul_le(span + g->kh, wspan + g->kw, cap), g->c, cap); /* cd_band's planes */
  return band < 0 ? 0 : (uint64_t)(band + part + cd_off_floats(g));
}

bool berth_conv_direct_f32(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, const float *x,
                           const float *wp, int64_t ap, const float *bias, float *y, const berth_ukr_epi_t *epi,
                           float *buf, int64_t floats) {
  const int64_t bh = berth_conv_direct_band_rows(isa, g, ap, floats);
  if (bh == 0) return false;
  if (berth_conv_rows_wanted(isa, g, ap)) return berth_conv_rows_f32(isa, g, x, wp, ap, bias, y, epi, buf, floats);
  int32_t *off = (int32_t *)(void *)buf;
  float *band = buf + cd_off_floats(g);
  cd_out_t o = {wp, bias, ap, y, band, epi, g->sh * g->iw, g->sw}; /* in place: the input's rows */
  cd_band_t b = {g->ih, g->iw, g->ih * g->iw};
  const bool in_place = cd_in_place(g);
  if (!in_place) {
    b = cd_band(g, bh);
    o.part = band + g->c * b.plane;
    o.rs = g->sh * b.wq;
  }
  cd_offsets(g, b.plane, b.wq, off);
  for (int64_t oh0 = 0; oh0 < g->oh; oh0 += bh) {
    const int64_t n = g->oh - oh0 < bh ? g->oh - oh0 : bh;
    const float *src = x + oh0 * g->sh * g->iw;
    if (!in_place) {
      cd_fill(g, &b, x, oh0, n, band);
      src = band;
    }
    for (int64_t c0 = 0; c0 < g->m; c0 += isa->conv_direct_nr)
      cd_block(isa, g, src, off, oh0 * g->ow, n * g->ow, c0, &o);
  }
  return true;
}
