/* The register transposes of kernel_vec_tr.h (4, 8 and 16 lanes) and the planes-in-the-lanes
 * copies of kernel_vec_lanes.h (pooling's and depthwise conv's small-plane paths), each
 * instantiated here with GCC/clang vector types for every lane count, so that all of them run
 * on any machine (a machine without AVX-512 never reaches the 16-lane ones through the kernel
 * variants; before they had a 16-lane transpose, AVX-512's pools and depthwise convs over
 * small planes copied element by element and took 3-5x AVX2's time). Bit for bit against
 * plain index loops, with random bit patterns (NaNs, -0) and every count of planes 1 to L. */
#include "test_util.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static uint32_t rng_state = 0x6c616e65u; /* "lane" */
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}
static float rnd_bits(void) {
  const uint32_t u = rnd();
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static bool same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* 32- and 64-byte vectors in a build without AVX: GCC and clang lower them (and warn that
 * passing them by value would change the ABI; these are static functions, inlined) */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#define VEC_VB 16
#define VEC_F(x) l4_##x
#include "kernels/kernel_vec.h"
#define VT_W 4
#define VT_F(x) l4_##x
#include "kernels/kernel_vec_tr.h"
#define VL_VW 4
#define VL_F(x) l4_##x
#define VL_TR 1
#include "kernels/kernel_vec_lanes.h"

#define VEC_VB 32
#define VEC_F(x) l8_##x
#include "kernels/kernel_vec.h"
#define VT_W 8
#define VT_F(x) l8_##x
#include "kernels/kernel_vec_tr.h"
#define VL_VW 8
#define VL_F(x) l8_##x
#define VL_TR 1
#include "kernels/kernel_vec_lanes.h"

#define VEC_VB 64
#define VEC_F(x) l16_##x
#include "kernels/kernel_vec.h"
#define VT_W 16
#define VT_F(x) l16_##x
#include "kernels/kernel_vec_tr.h"
#define VL_VW 16
#define VL_F(x) l16_##x
#define VL_TR 1
#include "kernels/kernel_vec_lanes.h"

/* One lane count's checks, written once for the three prefixes. */
#define LANES_CHECKS(L, P)                                                                                           \
  static void check_##P(void) {                                                                                      \
    /* the transpose: r[i][j] <- r[j][i] */                                                                          \
    for (int round = 0; round < 20; round++) {                                                                       \
      float m[L][L], got[L][L];                                                                                      \
      P##vf r[L];                                                                                                    \
      for (int i = 0; i < L; i++) {                                                                                  \
        for (int j = 0; j < L; j++) m[i][j] = rnd_bits();                                                           \
        r[i] = P##ld(m[i]);                                                                                          \
      }                                                                                                              \
      P##tr(r);                                                                                                      \
      int bad = -1;                                                                                                  \
      for (int i = 0; i < L; i++) {                                                                                  \
        P##st(got[i], r[i]);                                                                                         \
        for (int j = 0; j < L; j++)                                                                                  \
          if (bad < 0 && !same_bits(got[i][j], m[j][i])) bad = i * L + j;                                            \
      }                                                                                                              \
      CHECK_MSG(bad < 0, "%d lanes: transpose element %d is not the old [%d][%d]", L, bad, bad % L, bad / L);       \
    }                                                                                                                \
    /* the copies in and out of the lanes: planes of ih x iw into a padded plane of lw vectors */                    \
    static const int shapes[][2] = {{1, 1}, {1, 3}, {2, 2}, {3, 5}, {4, 4}, {7, 7}, {5, 13}, {14, 14}, {1, 40}};    \
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)                                                    \
      for (int np = 1; np <= L; np++) {                                                                              \
        const int64_t ih = shapes[s][0], iw = shapes[s][1], lw = iw + 3, il = ih * iw;                               \
        float x[L * 14 * 40], b[16 * 50 * L], want[16 * 50 * L], y[L * 14 * 40];                                    \
        for (int64_t i = 0; i < L * il; i++) x[i] = rnd_bits();                                                      \
        for (int64_t i = 0; i < (ih + 2) * lw * L; i++) b[i] = want[i] = rnd_bits();                                \
        float *b0 = b + (lw + 1) * L, *w0 = want + (lw + 1) * L; /* one row and column of padding */                 \
        for (int p = 0; p < np; p++)                                                                                 \
          for (int64_t r = 0; r < ih; r++)                                                                           \
            for (int64_t c = 0; c < iw; c++) w0[(r * lw + c) * L + p] = x[p * il + r * iw + c];                      \
        P##lanes_copy_in(x, ih, iw, lw, np, b0);                                                                     \
        int64_t bad = -1;                                                                                            \
        for (int64_t i = 0; i < (ih + 2) * lw * L && bad < 0; i++)                                                   \
          if (!same_bits(b[i], want[i])) bad = i;                                                                    \
        CHECK_MSG(bad < 0, "%d lanes: copy in of %d planes of %lldx%lld: vector float %lld", L, np, (long long)ih,   \
                  (long long)iw, (long long)bad);                                                                    \
        /* out: il outputs per plane from il vectors */                                                              \
        for (int64_t i = 0; i < L * il; i++) y[i] = 1.5f;                                                            \
        P##lanes_copy_out(b, il, np, y);                                                                             \
        bad = -1;                                                                                                    \
        for (int64_t i = 0; i < L * il && bad < 0; i++) {                                                            \
          const int64_t p = i / il, k = i % il;                                                                      \
          if (!same_bits(y[i], p < np ? b[k * L + p] : 1.5f)) bad = i;                                               \
        }                                                                                                            \
        CHECK_MSG(bad < 0, "%d lanes: copy out of %d planes of %lld: element %lld", L, np, (long long)il,           \
                  (long long)bad);                                                                                   \
      }                                                                                                              \
  }

LANES_CHECKS(4, l4_)
LANES_CHECKS(8, l8_)
LANES_CHECKS(16, l16_)

int main(void) {
  check_l4_();
  check_l8_();
  check_l16_();
  return test_finish("test_kernel_vec_lanes");
}
