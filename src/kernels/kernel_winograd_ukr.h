/* conv_winograd's input and output transforms (kernel_isa.h's winograd_in_f32 and
 * winograd_out_f32, driven by kernel_conv_winograd.c) with the variant's vectors, included
 * once per variant:
 *
 *   #define WGU_VB 64                        // vector bytes (16: portable and NEON, 32: AVX2, 64: AVX-512)
 *   #define WGU_IN isa_64_winograd_in_f32    // the two entry points' names
 *   #define WGU_OUT isa_64_winograd_out_f32
 *   #include "kernel_winograd_ukr.h"
 *
 * The 16 channels of a position are 16 / lanes vectors, transformed lane by lane: every sum
 * is the one written in kernel_conv_winograd.h, left to right, the same bits on every
 * variant. A patch wholly inside the plane is read without bounds checks. No allocation, no
 * stdio. */
#include "kernel_isa.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define WGU_VW (WGU_VB / 4)
#define WGU_NV (16 / WGU_VW)
#define WGU_C2(a, b) a##b
#define WGU_C(a, b) WGU_C2(a, b)
#define WGU_F(x) WGU_C(WGU_IN, _##x)

#define VEC_VB WGU_VB
#define VEC_F(x) WGU_F(x)
#include "kernel_vec.h"

/* B^T d B of one vector's lanes of a 4x4 patch d (row major) into v (component major) */
static inline __attribute__((always_inline)) void WGU_F(bdb)(const WGU_F(vf) d[16], WGU_F(vf) v[16]) {
  WGU_F(vf) e[16];
  for (int b = 0; b < 4; b++) {
    e[0 * 4 + b] = d[0 * 4 + b] - d[2 * 4 + b];
    e[1 * 4 + b] = d[1 * 4 + b] + d[2 * 4 + b];
    e[2 * 4 + b] = d[2 * 4 + b] - d[1 * 4 + b];
    e[3 * 4 + b] = d[1 * 4 + b] - d[3 * 4 + b];
  }
  for (int a = 0; a < 4; a++) {
    v[a * 4 + 0] = e[a * 4 + 0] - e[a * 4 + 2];
    v[a * 4 + 1] = e[a * 4 + 1] + e[a * 4 + 2];
    v[a * 4 + 2] = e[a * 4 + 2] - e[a * 4 + 1];
    v[a * 4 + 3] = e[a * 4 + 1] - e[a * 4 + 3];
  }
}

static void WGU_IN(const berth_wino_in_t *a) {
  typedef WGU_F(vf) vf;
  for (int64_t i = 0; i < a->nt; i++) {
    const int64_t t = a->t0 + i, r0 = (t / a->tw) * 2 - a->pt, c0 = (t % a->tw) * 2 - a->pl;
    const bool inside = r0 >= 0 && c0 >= 0 && r0 + 4 <= a->h && c0 + 4 <= a->w;
    float *v = a->v + i * 16;
    for (int n = 0; n < WGU_NV; n++) {
      vf d[16], o[16];
      if (inside) {
        const float *x = a->x + (r0 * a->w + c0) * 16 + n * WGU_VW;
        for (int r = 0; r < 4; r++)
          for (int c = 0; c < 4; c++) d[r * 4 + c] = WGU_F(ld)(x + (r * a->w + c) * 16);
      } else {
        for (int r = 0; r < 4; r++)
          for (int c = 0; c < 4; c++) {
            const int64_t rr = r0 + r, cc = c0 + c;
            d[r * 4 + c] = rr >= 0 && rr < a->h && cc >= 0 && cc < a->w
                               ? WGU_F(ld)(a->x + (rr * a->w + cc) * 16 + n * WGU_VW)
                               : (vf){0};
          }
      }
      WGU_F(bdb)(d, o);
      for (int k = 0; k < 16; k++) WGU_F(st)(v + k * a->vs + n * WGU_VW, o[k]);
    }
  }
}

static void WGU_OUT(const berth_wino_out_t *a) {
  typedef WGU_F(vf) vf;
  const vf al = WGU_F(splat)(a->alpha), be = WGU_F(splat)(a->beta); /* broadcasts, not 0 + x */
  for (int64_t i = 0; i < a->nt; i++) {
    const int64_t t = a->t0 + i, r0 = (t / a->tw) * 2, c0 = (t % a->tw) * 2;
    const float *m = a->m + i * 16;
    for (int n = 0; n < WGU_NV; n++) {
      vf q[16], s[8], y[4];
      for (int k = 0; k < 16; k++) q[k] = WGU_F(ld)(m + k * a->ms + n * WGU_VW);
      for (int b = 0; b < 4; b++) { /* A^T m */
        s[0 * 4 + b] = q[0 * 4 + b] + q[1 * 4 + b] + q[2 * 4 + b];
        s[1 * 4 + b] = q[1 * 4 + b] - q[2 * 4 + b] - q[3 * 4 + b];
      }
      for (int r = 0; r < 2; r++) { /* (A^T m) A */
        y[r * 2 + 0] = s[r * 4 + 0] + s[r * 4 + 1] + s[r * 4 + 2];
        y[r * 2 + 1] = s[r * 4 + 1] - s[r * 4 + 2] - s[r * 4 + 3];
      }
      const vf bias = a->bias ? WGU_F(ld)(a->bias + n * WGU_VW) : (vf){0};
      for (int r = 0; r < 2 && r0 + r < a->oh; r++)
        for (int c = 0; c < 2 && c0 + c < a->ow; c++) {
          const int64_t at = ((r0 + r) * a->ow + c0 + c) * 16 + n * WGU_VW;
          vf o = y[r * 2 + c];
          if (a->bias) o += bias;
          if (a->res) o += WGU_F(ld)(a->res + at);
          WGU_F(st)(a->y + at, WGU_F(act)(a->act, o, al, be));
        }
    }
  }
}

#undef WGU_F
#undef WGU_C
#undef WGU_C2
#undef WGU_NV
#undef WGU_VW
#undef WGU_VB
#undef WGU_IN
#undef WGU_OUT
