/* Tests of the dot-product helpers of kernel_dot.h. The kernels use the vector path (GCC,
 * clang); this file includes the header with BERTH_DOT_PORTABLE, so the plain-C path other
 * compilers get is checked against the same naive sums, for every length up to a few
 * vector blocks (each main loop, tail loop and lane reduction). */
#define BERTH_DOT_PORTABLE 1
#include "kernels/kernel_dot.h"
#include "test_util.h"

#include <math.h>

static float af[80], bf[4][80], xf[80];
static double ad[80], bd[4][80], xd[80];

int main(void) {
  CHECK(BERTH_DOT_VECTOR == 0);
  for (int i = 0; i < 80; i++) {
    af[i] = (float)((i * 37) % 17) / 8 - 1;
    xf[i] = (float)((i * 11) % 13) / 4 - 1.5f;
    ad[i] = af[i];
    xd[i] = xf[i];
    for (int r = 0; r < 4; r++) {
      bf[r][i] = (float)(((i + 3) * (r + 5)) % 19) / 16 - 0.5f;
      bd[r][i] = bf[r][i];
    }
  }
  for (int n = 0; n <= 80; n++) {
    double want = 0, want4[4] = {0};
    for (int i = 0; i < n; i++) {
      want += ad[i] * xd[i];
      for (int r = 0; r < 4; r++) want4[r] += bd[r][i] * xd[i];
    }
    float g = berth_dot_f32(af, xf, n), g4[4];
    double gd = berth_dot_f64(ad, xd, n), gd4[4];
    berth_dot4_f32(bf[0], bf[1], bf[2], bf[3], xf, n, g4);
    berth_dot4_f64(bd[0], bd[1], bd[2], bd[3], xd, n, gd4);
    CHECK_MSG(fabs(g - want) <= 1e-4, "dot_f32 n=%d: %g vs %g", n, g, want);
    CHECK_MSG(fabs(gd - want) <= 1e-12, "dot_f64 n=%d: %g vs %g", n, gd, want);
    for (int r = 0; r < 4; r++) {
      CHECK_MSG(fabs(g4[r] - want4[r]) <= 1e-4, "dot4_f32 n=%d row %d: %g vs %g", n, r, g4[r], want4[r]);
      CHECK_MSG(fabs(gd4[r] - want4[r]) <= 1e-12, "dot4_f64 n=%d row %d: %g vs %g", n, r, gd4[r], want4[r]);
    }
  }
  return test_finish("test_kernel_dot");
}
