/* JPEG 2000 inverse wavelets (T.800 Annex F): the reversible 5/3 in exact integers (the
 * standard's lifting with whole-sample symmetric extension, any parity of the tile or image
 * offset), and the irreversible 9/7 in float with OpenJPEG's constants and order of operations
 * (rows, then columns, at each resolution), so that lossy images match the reference. Each
 * level's samples sit OpenJPEG's way in the tile buffer: the lower resolution (low-pass) at the
 * left/top, the high-pass bands after it. */
#include "kernels/image_jp2_internal.h"

/* ---- 5/3 ---- */

static inline uint32_t ext(int64_t j, uint32_t n) {
  if (j < 0) j = -j;
  if (j >= (int64_t)n) j = 2 * ((int64_t)n - 1) - j;
  return (uint32_t)j;
}

/* x: n = sn + dn interleaved samples; position j is low-pass iff j + cas is even. */
static void idwt53_1d(int32_t *x, uint32_t n, int cas) {
  if (n == 1) {
    if (cas) x[0] /= 2; /* a lone high-pass sample (OpenJPEG truncates) */
    return;
  }
  for (uint32_t j = (uint32_t)cas; j < n; j += 2) {
    int64_t s = (int64_t)x[ext((int64_t)j - 1, n)] + x[ext((int64_t)j + 1, n)] + 2;
    x[j] = (int32_t)(uint32_t)((int64_t)x[j] - (s >> 2));
  }
  for (uint32_t j = (uint32_t)(cas ^ 1); j < n; j += 2) {
    int64_t s = (int64_t)x[ext((int64_t)j - 1, n)] + x[ext((int64_t)j + 1, n)];
    x[j] = (int32_t)(uint32_t)((int64_t)x[j] + (s >> 1));
  }
}

/* The 2-D inverse transform of one tile-component for sample type T: per resolution, the
 * rows, then the columns, each de-interleaved into tmp (low-pass samples at the parity cas),
 * transformed by ONE_D(tmp, sn, dn, cas) and written back. */
#define J2_IDWT_2D(NAME, T, ONE_D)                                                                  \
  static void NAME##_interleave(const T *src, size_t step, uint32_t sn, uint32_t dn, int cas, T *tmp) { \
    for (uint32_t i = 0; i < sn; i++) tmp[2 * i + (uint32_t)cas] = src[i * step];                    \
    for (uint32_t i = 0; i < dn; i++) tmp[2 * i + (uint32_t)(cas ^ 1)] = src[(sn + i) * step];       \
  }                                                                                                  \
  void NAME(T *a, uint32_t stride, const j2_tilec_t *tc, T *tmp) {                                   \
    for (uint32_t r = 1; r < tc->nres; r++) {                                                        \
      const j2_rect_t *lo = &tc->res[r - 1].r, *hi = &tc->res[r].r;                                   \
      uint32_t rw = hi->x1 - hi->x0, rh = hi->y1 - hi->y0;                                           \
      uint32_t snh = lo->x1 - lo->x0, snv = lo->y1 - lo->y0;                                         \
      int cash = (int)(hi->x0 & 1), casv = (int)(hi->y0 & 1);                                        \
      if (rw == 0 || rh == 0) continue;                                                              \
      for (uint32_t y = 0; y < rh; y++) {                                                            \
        T *row = a + (size_t)y * stride;                                                             \
        NAME##_interleave(row, 1, snh, rw - snh, cash, tmp);                                         \
        ONE_D(tmp, snh, rw - snh, cash);                                                             \
        for (uint32_t x = 0; x < rw; x++) row[x] = tmp[x];                                           \
      }                                                                                              \
      for (uint32_t x = 0; x < rw; x++) {                                                            \
        T *col = a + x;                                                                              \
        NAME##_interleave(col, stride, snv, rh - snv, casv, tmp);                                    \
        ONE_D(tmp, snv, rh - snv, casv);                                                             \
        for (uint32_t y = 0; y < rh; y++) col[(size_t)y * stride] = tmp[y];                          \
      }                                                                                              \
    }                                                                                                \
  }

#define IDWT53_1D(w, sn, dn, cas) idwt53_1d(w, (sn) + (dn), cas)
J2_IDWT_2D(j2_idwt53, int32_t, IDWT53_1D)

/* ---- 9/7 ---- */

static const float k_alpha = -1.586134342f, k_beta = -0.052980118f, k_gamma = 0.882911075f, k_delta = 0.443506852f;
static const float k_K = 1.230174105f, k_two_invK = 1.625732422f; /* OpenJPEG's historic 2/K */

/* One lifting step over the samples at widx - 1 + 2i, from their neighbours (OpenJPEG's step2). */
static void lift97(float *w, uint32_t lidx, uint32_t widx, uint32_t end, int64_t m, float c) {
  uint32_t fl = lidx, fw = widx;
  uint32_t mu = m < 0 ? UINT32_MAX : (uint32_t)m; /* OpenJPEG passes a negative m as unsigned */
  uint32_t imax = end < mu ? end : mu;
  for (uint32_t i = 0; i < imax; i++) {
    w[fw - 1] = w[fw - 1] + ((w[fl] + w[fw]) * c);
    fl = fw;
    fw += 2;
  }
  if (mu < end) {
    float c2 = c + c;
    w[fw - 1] = w[fw - 1] + w[fl] * c2;
  }
}

static void idwt97_1d(float *w, uint32_t sn, uint32_t dn, int cas) {
  uint32_t a = (uint32_t)cas, b = (uint32_t)(cas ^ 1);
  if (cas == 0 ? !(dn > 0 || sn > 1) : !(sn > 0 || dn > 1)) return;
  for (uint32_t i = 0; i < sn; i++) w[a + 2 * i] = w[a + 2 * i] * k_K;
  for (uint32_t i = 0; i < dn; i++) w[b + 2 * i] = w[b + 2 * i] * k_two_invK;
  int64_t ml = (int64_t)dn - a < (int64_t)sn ? (int64_t)dn - a : (int64_t)sn;
  int64_t mh = (int64_t)sn - b < (int64_t)dn ? (int64_t)sn - b : (int64_t)dn;
  lift97(w, b, a + 1, sn, ml, -k_delta);
  lift97(w, a, b + 1, dn, mh, -k_gamma);
  lift97(w, b, a + 1, sn, ml, -k_beta);
  lift97(w, a, b + 1, dn, mh, -k_alpha);
}

J2_IDWT_2D(j2_idwt97, float, idwt97_1d)
