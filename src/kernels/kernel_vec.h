/* The vector preamble of a kernel variant's header kernels (kernel_ukr.h, kernel_dw_ukr.h):
 * a GCC/clang vector of VEC_VB / 4 floats and its unaligned load, store and broadcast, named
 * with the including header's prefix (no include guard: included once per kernel):
 *
 *   #define VEC_VB 64                 // vector bytes: 16, 32 or 64
 *   #define VEC_F(x) UKR_F(x)         // the names: UKR_F(vf), UKR_F(ld), UKR_F(st), UKR_F(splat)
 *   #include "kernel_vec.h"           // undefines VEC_VB and VEC_F
 *
 * Loads and stores go through memcpy, so no result depends on the alignment of an operand. */
#include <string.h>

typedef float VEC_F(vf) __attribute__((vector_size(VEC_VB)));

static inline VEC_F(vf) VEC_F(ld)(const float *p) {
  VEC_F(vf) v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void VEC_F(st)(float *p, VEC_F(vf) v) { memcpy(p, &v, sizeof v); }
/* x in every lane (a broadcast; (vf){0} + x would be an addition, since 0 + -0 is +0) */
static inline VEC_F(vf) VEC_F(splat)(float x) {
#if VEC_VB == 16
  return (VEC_F(vf)){x, x, x, x};
#elif VEC_VB == 32
  return (VEC_F(vf)){x, x, x, x, x, x, x, x};
#elif VEC_VB == 64
  return (VEC_F(vf)){x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
#else
#error "VEC_VB must be 16, 32 or 64"
#endif
}

#undef VEC_VB
#undef VEC_F
