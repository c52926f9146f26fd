/* The vector preamble of a kernel variant's header kernels (kernel_ukr.h, kernel_dw_ukr.h):
 * a GCC/clang vector of VEC_VB / 4 floats and its unaligned load, store and broadcast, a
 * select, the maximum and the conv epilogue's activation, named with the including header's
 * prefix (no include guard: included once per kernel):
 *
 *   #define VEC_VB 64                 // vector bytes: 16, 32 or 64
 *   #define VEC_F(x) UKR_F(x)         // the names: UKR_F(vf), UKR_F(ld), UKR_F(st), UKR_F(splat), ...
 *   #include "kernel_vec.h"           // undefines VEC_VB and VEC_F
 *
 * Loads and stores go through memcpy, so no result depends on the alignment of an operand. */
#include "kernel_isa.h"

#include <stdint.h>
#include <string.h>
#if (VEC_VB == 64 && defined(__AVX512F__)) || (VEC_VB == 32 && defined(__AVX2__))
#include <immintrin.h>
#endif

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

typedef int32_t VEC_F(vi) __attribute__((vector_size(VEC_VB)));

/* m ? x : y lane by lane (m a compare's mask) */
static inline VEC_F(vf) VEC_F(sel)(VEC_F(vi) m, VEC_F(vf) x, VEC_F(vf) y) {
  return (VEC_F(vf))(((VEC_F(vi))x & m) | ((VEC_F(vi))y & ~m));
}

/* t > m ? t : m, lane by lane (x86's max instruction is exactly that; NEON's is not) */
static inline VEC_F(vf) VEC_F(vmax)(VEC_F(vf) t, VEC_F(vf) m) {
#if VEC_VB == 64 && defined(__AVX512F__)
  __m512 a, b;
  memcpy(&a, &t, sizeof a);
  memcpy(&b, &m, sizeof b);
  a = _mm512_max_ps(a, b);
  memcpy(&t, &a, sizeof t);
  return t;
#elif VEC_VB == 32 && defined(__AVX2__)
  __m256 a, b;
  memcpy(&a, &t, sizeof a);
  memcpy(&b, &m, sizeof b);
  a = _mm256_max_ps(a, b);
  memcpy(&t, &a, sizeof t);
  return t;
#else
  return VEC_F(sel)((VEC_F(vi))(t > m), t, m);
#endif
}

/* conv's epilogue activation act (BERTH_UKR_ACT_*; al, be: alpha and beta broadcast) as
 * selects on compare masks: the bits of the scalar formulas */
static inline __attribute__((always_inline)) VEC_F(vf) VEC_F(act)(int act, VEC_F(vf) a, VEC_F(vf) al, VEC_F(vf) be) {
  const VEC_F(vf) zero = VEC_F(splat)(0.0f);
  if (act == BERTH_UKR_ACT_RELU) return VEC_F(sel)(a < zero, zero, a);
  if (act == BERTH_UKR_ACT_CLIP) {
    const VEC_F(vf) u = VEC_F(sel)(a < al, al, a);
    return VEC_F(sel)(u > be, be, u);
  }
  if (act == BERTH_UKR_ACT_LEAKY_RELU) return VEC_F(sel)(a < zero, al * a, a);
  return a;
}

#undef VEC_VB
#undef VEC_F
