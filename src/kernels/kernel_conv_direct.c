/* conv's direct path (kernel_conv_direct.h): bands of zero-padded, phase-split input rows in
 * the scratch (or the input in place where no window reaches the padding), runs of output
 * positions of the variant's micro-kernel over them per block of 32 output channels, K in
 * blocks whose weights stay in L1, the sums transposed to y with the epilogue. */
#include "kernel_conv_direct.h"

#include <string.h>

#define CD_MAX_NR 32 /* the widest variant's conv_direct_nr (AVX-512, AVX2: 32): a bias block on the stack */
#define CD_KB_FLOATS 8192 /* weights per block of K (32 KiB: 256 taps of a 32-channel block; 128 taps
                           * measured 2 % faster on 128-256 input channels, 5 % slower on 16-32) */

/* The band's plane geometry for bh output rows. */
typedef struct cd_band {
  int64_t rows, wq, plane; /* rows per plane, padded width, floats per plane */
  int64_t planes;          /* c * sh * sw */
} cd_band_t;

static cd_band_t cd_band(const berth_conv_direct_geom_t *g, int64_t bh) {
  cd_band_t b;
  b.rows = bh + (g->kh - 1) / g->sh;
  b.wq = g->ow + (g->kw - 1) / g->sw;
  b.planes = g->c * g->sh * g->sw;
  b.plane = b.rows * b.wq;
  return b;
}

/* floats of scratch for the offsets (k int32, rounded up to a cache line) */
static int64_t cd_off_floats(const berth_conv_direct_geom_t *g) { return (g->c * g->kh * g->kw + 15) / 16 * 16; }

/* a * b if it is at most cap (a, b >= 1, cap >= 0), else -1: no product here can overflow */
static int64_t cd_mul_le(int64_t a, int64_t b, int64_t cap) { return a > cap / b ? -1 : a * b; }

/* The band rows for `floats` of scratch with `slack` floats after the last plane and `per_row`
 * more for each output row of the band (see berth_conv_direct_band_rows). */
static int64_t cd_band_rows(const berth_conv_direct_geom_t *g, int64_t floats, int64_t slack, int64_t per_row) {
  if (g->c < 1 || g->m < 1 || g->oh < 1 || g->ow < 1 || g->kh < 1 || g->kw < 1 || g->sh < 1 || g->sw < 1 ||
      floats < 1)
    return 0;
  /* every size below is at most `floats` (the scratch), checked before it is multiplied */
  const int64_t k = cd_mul_le(cd_mul_le(g->c, g->kh, floats), g->kw, floats);
  if (k < 0 || g->ow > floats || g->kw > floats || g->kh > floats) return 0;
  const int64_t room = floats - cd_off_floats(g) - slack;
  if (room <= 0) return 0;
  const int64_t sh = cd_mul_le(g->c, g->sh, room), planes = sh < 0 ? -1 : cd_mul_le(sh, g->sw, room);
  if (planes < 0) return 0;
  const cd_band_t one = cd_band(g, 1); /* rows <= kh, wq <= ow + kw, planes checked: no overflow */
  if (cd_mul_le(one.rows, one.wq, room / planes) < 0 || per_row > room) return 0;
  /* rows * wq * planes + bh * per_row <= room */
  const int64_t fixed = (one.rows - 1) * one.wq * planes, each = one.wq * planes + per_row;
  int64_t bh = room < fixed ? 0 : (room - fixed) / each;
  if (bh > g->oh) bh = g->oh;
  if (bh < 1) return 0;
  const int64_t nb = (g->oh + bh - 1) / bh; /* balanced bands */
  bh = (g->oh + nb - 1) / nb;
  if (cd_band(g, bh).plane * planes + slack + bh * per_row > INT32_MAX) return 0;
  return bh;
}

/* Copies the input under output rows oh0 .. oh0 + bh - 1 into the band: plane (ic, a, b) row r,
 * column j holds x[ic][(oh0 + r) * sh + a - ph][j * sw + b - pw], 0 outside the input. */
static void cd_fill(const berth_conv_direct_geom_t *g, const cd_band_t *b, const float *x, int64_t oh0, int64_t bh,
                    float *band) {
  const int64_t rows = bh + (g->kh - 1) / g->sh, il = g->ih * g->iw;
  const int64_t nb = g->sw;
  for (int64_t ic = 0; ic < g->c; ic++)
    for (int64_t pa = 0; pa < g->sh; pa++)
      for (int64_t pb = 0; pb < nb; pb++) {
        float *d = band + ((ic * g->sh + pa) * nb + pb) * b->plane;
        /* the columns j with 0 <= j * sw + pb - pw < iw: [lo, hi) */
        const int64_t s = pb - g->pw;
        int64_t lo = s >= 0 ? 0 : (-s + g->sw - 1) / g->sw;
        int64_t hi = g->iw - 1 - s < 0 ? 0 : (g->iw - 1 - s) / g->sw + 1;
        if (hi > b->wq) hi = b->wq;
        if (lo > hi) lo = hi;
        for (int64_t r = 0; r < rows; r++, d += b->wq) {
          const int64_t i = (oh0 + r) * g->sh + pa - g->ph;
          if (i < 0 || i >= g->ih || lo == hi) {
            memset(d, 0, (size_t)b->wq * sizeof(float));
            continue;
          }
          const float *src = x + ic * il + i * g->iw + s; /* column j at src[j * sw] */
          memset(d, 0, (size_t)lo * sizeof(float));
          if (g->sw == 1) {
            memcpy(d + lo, src + lo, (size_t)(hi - lo) * sizeof(float));
          } else {
            for (int64_t j = lo; j < hi; j++) d[j] = src[j * g->sw];
          }
          memset(d + hi, 0, (size_t)(b->wq - hi) * sizeof(float));
        }
      }
}

/* The offset of tap (ic, kh, kw) in the band, in the weights' order. */
static void cd_offsets(const berth_conv_direct_geom_t *g, const cd_band_t *b, int32_t *off) {
  int64_t q = 0;
  for (int64_t ic = 0; ic < g->c; ic++)
    for (int64_t kh = 0; kh < g->kh; kh++)
      for (int64_t kw = 0; kw < g->kw; kw++, q++) {
        const int64_t plane = (ic * g->sh + kh % g->sh) * g->sw + kw % g->sw;
        off[q] = (int32_t)(plane * b->plane + kh / g->sh * b->wq + kw / g->sw);
      }
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
      g->kh < 1 || g->kw < 1 || g->sh < 1 || g->sw < 1 || floats < 1 || g->ow > floats / isa->conv_direct_nr)
    return 0;
  const int64_t nr = isa->conv_direct_nr;
  if (cd_in_place(g)) { /* the offsets and the partial sums of each row: no band */
    if (g->c > INT32_MAX / g->ih / g->iw || g->kh > g->ih || g->kw > g->iw) return 0;
    const int64_t room = floats - cd_off_floats(g);
    if (g->c > INT32_MAX / g->ih / g->iw || room < g->ow * nr) return 0;
    int64_t bh = room / (g->ow * nr);
    if (bh > g->oh) bh = g->oh;
    const int64_t nb = (g->oh + bh - 1) / bh;
    return (g->oh + nb - 1) / nb;
  }
  return cd_band_rows(g, floats, 0, g->ow * nr);
}

uint64_t berth_conv_direct_scratch_floats(const berth_conv_direct_geom_t *g, int64_t rows) {
  if (g->c < 1 || g->oh < 1 || g->ow < 1 || g->kh < 1 || g->kw < 1 || g->sh < 1 || g->sw < 1 || rows < 1) return 0;
  if (rows > g->oh) rows = g->oh;
  const uint64_t cap = (uint64_t)1 << 40; /* past any scratch: then 0, no request */
  const uint64_t part = (uint64_t)rows * (uint64_t)g->ow * CD_MAX_NR, offs = (uint64_t)cd_off_floats(g);
  if (cd_in_place(g)) return part + offs;
  const cd_band_t b = cd_band(g, rows);
  if ((uint64_t)b.planes > cap / (uint64_t)b.plane) return 0;
  return (uint64_t)b.planes * (uint64_t)b.plane + part + offs;
}

bool berth_conv_direct_f32(const berth_kernel_isa_t *isa, const berth_conv_direct_geom_t *g, const float *x,
                           const float *wp, int64_t ap, const float *bias, float *y, const berth_ukr_epi_t *epi,
                           float *buf, int64_t floats) {
  const int64_t bh = berth_conv_direct_band_rows(isa, g, ap, floats);
  if (bh == 0) return false;
  int32_t *off = (int32_t *)(void *)buf;
  float *band = buf + cd_off_floats(g);
  cd_out_t o = {wp, bias, ap, y, band, epi, g->sh * g->iw, g->sw};
  cd_band_t b = {g->ih, g->iw, g->ih * g->iw, g->c}; /* the input itself, unsplit */
  const bool in_place = cd_in_place(g);
  if (!in_place) {
    b = cd_band(g, bh);
    o.part = band + b.planes * b.plane;
    o.rs = b.wq;
    o.cs = 1;
    cd_offsets(g, &b, off);
  } else {
    int64_t q = 0; /* tap (ic, kh, kw) of the window at (0, 0) */
    for (int64_t ic = 0; ic < g->c; ic++)
      for (int64_t kh = 0; kh < g->kh; kh++)
        for (int64_t kw = 0; kw < g->kw; kw++) off[q++] = (int32_t)(ic * b.plane + kh * g->iw + kw);
  }
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
