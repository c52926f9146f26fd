/* Helpers of the channel-blocked conv kernel tests (test_kernel_conv_blocked.c,
 * test_kernel_conv_winograd.c): test_rng.h's generator, the blocked layout of a plain tensor,
 * and conv's activations in double. Included once per test. */
#ifndef BERTH_TESTS_BLOCKED_TEST_H
#define BERTH_TESTS_BLOCKED_TEST_H

#include "test_rng.h"

#include <stdint.h>

/* [N, C, H, W] -> [N, C/16, H, W, 16] */
static inline void to_blocked(const float *x, float *xb, int64_t n, int64_t c, int64_t hw) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t ch = 0; ch < c; ch++)
      for (int64_t p = 0; p < hw; p++) xb[((i * (c / 16) + ch / 16) * hw + p) * 16 + ch % 16] = x[(i * c + ch) * hw + p];
}

/* conv's activation act (1 relu, 2 clip to [al, be], 3 leaky relu of slope al, else none) */
static inline double act_d(double v, int act, double al, double be) {
  switch (act) {
  case 1: return v < 0 ? 0.0 : v;
  case 2: return v < al ? al : v > be ? be : v;
  case 3: return v < 0 ? al * v : v;
  default: return v;
  }
}

#endif
