/* One output row of pool_blocked (kernel_pool_blocked.c; kernel_isa.h's pool_blocked_row_f32)
 * with the variant's vectors, included once per variant:
 *
 *   #define PBU_VB 64                   // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define PBU_NAME isa_64_pool_blocked_row_f32
 *   #include "kernel_pool_blocked_ukr.h"
 *
 * The 16 channels of a position are 16 / lanes vectors: every window element is whole
 * vectors, so no transposition and no padded copy. Max starts from -inf and takes each
 * greater element (x86's max instruction; a NaN never replaces), so a lane left at -inf (a
 * window of -infs or NaNs) is for the caller to walk again (the return value says whether the
 * row has one); average sums from +0 in window
 * order and divides by the count. No allocation, no stdio. */
#include "kernel_isa.h"

#include <math.h>
#include <stdint.h>
#include <string.h>


#define PBU_VW (PBU_VB / 4)
#define PBU_NV (16 / PBU_VW)
#define PBU_C2(a, b) a##b
#define PBU_C(a, b) PBU_C2(a, b)
#define PBU_F(x) PBU_C(PBU_NAME, _##x)

#define VEC_VB PBU_VB
#define VEC_F(x) PBU_F(x)
#include "kernel_vec.h"

/* The taps [lo, hi) of window start s inside [0, n) */
static inline void PBU_F(taps)(int64_t s, int64_t dil, int64_t k, int64_t n, int64_t *lo, int64_t *hi) {
  const int64_t a = s >= 0 ? 0 : (-s + dil - 1) / dil;
  const int64_t b = n > s ? (n - s + dil - 1) / dil : 0;
  *lo = a < k ? a : k;
  *hi = b < k ? b : k;
  if (*hi < *lo) *hi = *lo;
}

/* The window of one position over nr rows (rstep apart) and taps [lo1, hi1) of the columns
 * (cstep apart) from e into a (max a constant once inlined; kw3: three taps, unrolled). */
static inline __attribute__((always_inline)) void PBU_F(win)(int max, int kw3, const float *e, int64_t nr,
                                                             int64_t rstep, int64_t cstep, int64_t nt,
                                                             PBU_F(vf) *a) {
  for (int64_t q0 = 0; q0 < nr; q0++, e += rstep) {
    if (kw3) {
      for (int q1 = 0; q1 < 3; q1++)
        for (int v = 0; v < PBU_NV; v++) {
          const PBU_F(vf) t = PBU_F(ld)(e + q1 * cstep + v * PBU_VW);
          a[v] = max ? PBU_F(vmax)(t, a[v]) : a[v] + t;
        }
    } else {
      for (int64_t q1 = 0; q1 < nt; q1++)
        for (int v = 0; v < PBU_NV; v++) {
          const PBU_F(vf) t = PBU_F(ld)(e + q1 * cstep + v * PBU_VW);
          a[v] = max ? PBU_F(vmax)(t, a[v]) : a[v] + t;
        }
    }
  }
}

static int PBU_NAME(const berth_pool_blk_row_t *r) {
  typedef PBU_F(vf) vf;
  const int64_t B = 16, rstep = r->rs * r->iw * B, cstep = r->dw * B;
  const float *x0 = r->x + r->r0 * r->iw * B;
  const vf ninf = PBU_F(splat)(-INFINITY);
  PBU_F(vi) any = {0};
  for (int64_t o1 = 0; o1 < r->ow; o1++) {
    const int64_t s1 = o1 * r->sw - r->pw;
    int64_t lo1, hi1;
    PBU_F(taps)(s1, r->dw, r->kw, r->iw, &lo1, &hi1);
    vf a[PBU_NV];
    for (int v = 0; v < PBU_NV; v++) a[v] = r->max ? ninf : PBU_F(splat)(0.0f);
    const float *e = x0 + (s1 + lo1 * r->dw) * B;
    const int kw3 = hi1 - lo1 == 3;
    if (r->max) {
      if (kw3) PBU_F(win)(1, 1, e, r->nr, rstep, cstep, 3, a);
      else PBU_F(win)(1, 0, e, r->nr, rstep, cstep, hi1 - lo1, a);
      for (int v = 0; v < PBU_NV; v++) any |= (PBU_F(vi))(a[v] == ninf);
    } else {
      if (kw3) PBU_F(win)(0, 1, e, r->nr, rstep, cstep, 3, a);
      else PBU_F(win)(0, 0, e, r->nr, rstep, cstep, hi1 - lo1, a);
    }
    if (!r->max) {
      int64_t nc = hi1 - lo1;
      if (r->cpad) {
        int64_t plo, phi;
        PBU_F(taps)(s1 + r->pw, r->dw, r->kw, r->cpad, &plo, &phi);
        nc = phi - plo;
      }
      const vf d = PBU_F(splat)((float)(r->rdiv * nc));
      for (int v = 0; v < PBU_NV; v++) a[v] = a[v] / d;
    }
    for (int v = 0; v < PBU_NV; v++) PBU_F(st)(r->y + o1 * B + v * PBU_VW, a[v]);
  }
  int32_t m = 0;
  for (int l = 0; l < PBU_VW; l++) m |= any[l];
  return m != 0;
}

#undef PBU_F
#undef PBU_C
#undef PBU_C2
#undef PBU_NV
#undef PBU_VW
#undef PBU_VB
#undef PBU_NAME
