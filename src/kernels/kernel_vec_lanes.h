/* Planes in the vector lanes, for the header kernels that run VW small planes at once with
 * plane p in lane p (pooling's and depthwise conv's small-plane paths: kernel_pool_ukr.h,
 * kernel_dw_lanes_ukr.h): the copy of np planes into a padded plane of vectors, and of the
 * output vectors back to the planes, named with the including header's prefix after its
 * kernel_vec.h (no include guard: included once per kernel):
 *
 *   #define VL_VW 8                 // lanes (the prefix's vf holds VL_VW floats)
 *   #define VL_F(x) DW_F(x)         // the prefix of kernel_vec.h's vf, ld, st
 *   #define VL_TR 1                 // optional: the prefix has kernel_vec_tr.h's tr (4, 8 or 16 lanes)
 *   #include "kernel_vec_lanes.h"   // undefines VL_VW, VL_F and VL_TR
 *
 * Both copies take VW consecutive elements of each plane through the VW x VW register
 * transpose where the prefix has one and all VW lanes are taken (the last block overlaps the
 * one before), else element by element. Copies only: no value changes. */
#include <stdint.h>

/* np planes of x (ih x iw each, one after the other) into lanes 0 .. np - 1 of the vectors
 * from b0 (element (r, c) of a plane at vector r * lw + c: b0 is the plane's first element
 * in a padded plane of lw vectors per row). */
static void VL_F(lanes_copy_in)(const float *x, int64_t ih, int64_t iw, int64_t lw, int np, float *b0) {
  enum { L = VL_VW };
  const int64_t il = ih * iw;
#ifdef VL_TR
  if (np == L && il >= L) {
    int64_t rr = 0, cc = 0; /* the row and column of element f */
    for (int64_t f = 0; f < il; f += L) {
      if (f + L > il) f = il - L, rr = f / iw, cc = f % iw;
      VL_F(vf) r[L];
      for (int p = 0; p < L; p++) r[p] = VL_F(ld)(x + p * il + f);
      VL_F(tr)(r);
      for (int j = 0; j < L; j++) {
        VL_F(st)(b0 + (rr * lw + cc) * L, r[j]);
        if (++cc == iw) cc = 0, rr++;
      }
    }
    return;
  }
#endif
  for (int p = 0; p < np; p++)
    for (int64_t r = 0; r < ih; r++) {
      float *br = b0 + r * lw * L + p;
      const float *xr = x + p * il + r * iw;
      for (int64_t c = 0; c < iw; c++) br[c * L] = xr[c];
    }
}

/* The np planes' l outputs each (y, l floats apart) from the output vectors ob (output i of
 * plane p in lane p of ob's vector i). */
static void VL_F(lanes_copy_out)(const float *ob, int64_t l, int np, float *y) {
  enum { L = VL_VW };
#ifdef VL_TR
  if (l >= L) {
    for (int64_t f = 0; f < l; f += L) {
      if (f + L > l) f = l - L;
      VL_F(vf) r[L];
      for (int j = 0; j < L; j++) r[j] = VL_F(ld)(ob + (f + j) * L);
      VL_F(tr)(r);
      for (int p = 0; p < np; p++) VL_F(st)(y + p * l + f, r[p]);
    }
    return;
  }
#endif
  for (int p = 0; p < np; p++)
    for (int64_t i = 0; i < l; i++) y[p * l + i] = ob[i * L + p];
}

#undef VL_VW
#undef VL_F
#undef VL_TR
