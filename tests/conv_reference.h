/* The test suite's plain ONNX Conv in double, the reference for the conv kernel tests
 * (test_kernel_nn.c, test_kernel_conv_scratch.c). Header-only test code. */
#ifndef BERTH_TESTS_CONV_REFERENCE_H
#define BERTH_TESTS_CONV_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>

/* x [n, c, in...], w [m, c/group, k...], b [m]; pads: pb at the start, pe at the end. */
typedef struct conv_case {
  int sp; /* spatial dims, 1 to 3 */
  int64_t n, c, m, group, in[3], k[3], stride[3], dil[3], pb[3], pe[3];
  bool bias;
} conv_case_t;

/* ONNX Conv, one output element at a time, in double. */
static inline void conv_reference(const conv_case_t *g, const int64_t *out, const double *x, const double *w,
                                  const double *b, double *y) {
  int64_t cg = g->c / g->group, mg = g->m / g->group;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, o[3] = {1, 1, 1}, st[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pb[3] = {0};
  for (int d = 0; d < g->sp; d++) {
    int e = 3 - g->sp + d;
    in[e] = g->in[d];
    k[e] = g->k[d];
    o[e] = out[d];
    st[e] = g->stride[d];
    dl[e] = g->dil[d];
    pb[e] = g->pb[d];
  }
  int64_t il = in[0] * in[1] * in[2], kk = k[0] * k[1] * k[2], l = o[0] * o[1] * o[2];
  for (int64_t n = 0; n < g->n; n++)
    for (int64_t m = 0; m < g->m; m++)
      for (int64_t t = 0; t < l; t++) {
        int64_t o2 = t % o[2], o1 = (t / o[2]) % o[1], o0 = t / (o[2] * o[1]);
        double s = g->bias ? b[m] : 0;
        for (int64_t ic = 0; ic < cg; ic++)
          for (int64_t q0 = 0; q0 < k[0]; q0++)
            for (int64_t q1 = 0; q1 < k[1]; q1++)
              for (int64_t q2 = 0; q2 < k[2]; q2++) {
                int64_t i0 = o0 * st[0] - pb[0] + q0 * dl[0], i1 = o1 * st[1] - pb[1] + q1 * dl[1],
                        i2 = o2 * st[2] - pb[2] + q2 * dl[2];
                if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2]) continue;
                s += w[(m * cg + ic) * kk + (q0 * k[1] + q1) * k[2] + q2] *
                     x[(n * g->c + (m / mg) * cg + ic) * il + (i0 * in[1] + i1) * in[2] + i2];
              }
        y[(n * g->m + m) * l + t] = s;
      }
}

#endif
