/* STFT convolutions as FFTs: a conv whose constant f32 weights are a windowed onesided DFT
 * (an STFT exported as Conv1d, Silero VAD's front end) becomes conv_dft (kernel_conv_dft.c).
 *
 * The weights must be [2 * (N/2 + 1), 1, N], N a power of two up to the kernel's limit, and
 * for some window w (taken from row 0, whose cosines are all 1):
 *   K[k, 0, n]           ~  w[n] cos(2 pi k n / N)
 *   K[N/2 + 1 + k, 0, n] ~ -w[n] sin(2 pi k n / N)       k <= N/2, n < N
 * each within CONV_DFT_TOL times the window's largest magnitude (about two f32 ulps there:
 * the rounding of weights computed in f32 or f64 and stored as f32; Silero's are within
 * 7.7e-8 of it). Only a plain conv: no bias, no fused activation or residual, one group,
 * unit dilation, one input channel, 1-D, weights read by nothing else. The table constant
 * (window, twiddles' cosines and sines, in f64, kernel_conv_dft.c's layout) replaces the weights in place; the old bytes are left
 * unused for the DCE pass that must follow.
 *
 * Results change by conv's own f32 rounding: the FFT computes the exact transform of the
 * windowed frame in double (the kernel's comment), where conv sums N f32 products. */
#include "kernels/kernel_util.h"
#include "passes/passes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONV_DFT_TOL 2.5e-7
#define CONV_DFT_MAX_N 256 /* kernel_conv_dft.c's limit */
#define CONV_DFT_PI 3.14159265358979323846

/* conv's attributes (kernel_conv.c's CONV_ATTR_SPECS order) */
enum { CV_STRIDES, CV_PADS, CV_DILATIONS, CV_GROUP, CV_ACT };

/* The DFT size N if weights of type wt hold a windowed onesided DFT, else 0. */
static int64_t conv_dft_size(const berth_type_t *wt, const float *k) {
  if (wt->dtype != BERTH_DTYPE_F32 || wt->rank != 3 || wt->dims[1] != 1) return 0;
  const int64_t n = wt->dims[2], bins = n / 2 + 1;
  if (n < 4 || n > CONV_DFT_MAX_N || (n & (n - 1)) != 0 || wt->dims[0] != 2 * bins) return 0;
  double wmax = 0;
  for (int64_t j = 0; j < n; j++) wmax = fmax(wmax, fabs((double)k[j]));
  if (!(wmax > 0)) return 0;
  const double tol = CONV_DFT_TOL * wmax;
  for (int64_t f = 0; f < bins; f++)
    for (int64_t j = 0; j < n; j++) {
      const double a = 2 * CONV_DFT_PI * (double)((f * j) % n) / (double)n, w = k[j];
      if (!(fabs(k[f * n + j] - w * cos(a)) <= tol) || !(fabs(k[(bins + f) * n + j] + w * sin(a)) <= tol)) return 0;
    }
  return n;
}

/* Whether conv node n (in method m) is the plain 1-D single-channel kind conv_dft takes. */
static bool conv_dft_plain(const berth_ir_method_t *m, const berth_ir_node_t *n) {
  if (n->n_in != 2 || n->n_out != 1) return false;
  const berth_type_t *x = &m->values[n->in[0]].type;
  if (x->dtype != BERTH_DTYPE_F32 || x->rank != 3 || x->dims[1] != 1) return false;
  const berth_attr_value_t *a = n->attrs;
  if (a[CV_GROUP].i != 1 || a[CV_ACT].i != 0 || a[CV_STRIDES].n > 1 || a[CV_DILATIONS].n > 1) return false;
  if (a[CV_DILATIONS].n == 1 && a[CV_DILATIONS].ints[0] != 1) return false;
  if (a[CV_PADS].n != 0 && a[CV_PADS].n != 2) return false;
  return true;
}

/* Rewrites node ni (its weights a DFT of size n); false (unchanged) when out of memory. */
static bool conv_dft_rewrite(berth_ir_program_t *p, berth_ir_method_t *m, int32_t mi, int32_t ni, int64_t n) {
  berth_ir_node_t *nd = &m->nodes[ni];
  berth_ir_value_t *wv = &m->values[nd->in[1]];
  const float *k = (const float *)p->globals[wv->index].data;
  double *tab = malloc((size_t)(3 * n) * sizeof(double));
  if (!tab) return false;
  const int64_t half = n / 2;
  for (int64_t j = 0; j < n; j++) { /* kernel_conv_dft.c's layout */
    double a = 2 * CONV_DFT_PI * (double)j / (double)n; /* the split's twiddles */
    if (j == half) a = 0; /* unused */
    if (j > half) {       /* stage h's */
      int64_t h = 1;
      while (2 * h <= j - half) h *= 2;
      a = CONV_DFT_PI * (double)(j - half - h) / (double)h;
    }
    tab[j] = k[j];
    tab[n + j] = cos(a);
    tab[2 * n + j] = sin(a);
  }
  berth_type_t tt;
  berth_kernel_type_init(&tt, BERTH_DTYPE_F64, 2);
  tt.dims[0] = 3;
  tt.dims[1] = n;
  char name[64];
  snprintf(name, sizeof name, "dft%d_%d", (int)mi, (int)ni);
  const int32_t g = berth_ir_global_add(p, name, &tt, false, tab);
  free(tab);
  if (g < 0) return false;
  const berth_attr_value_t *a = nd->attrs;
  const int64_t stride = a[CV_STRIDES].n ? a[CV_STRIDES].ints[0] : 1;
  const int64_t p0 = a[CV_PADS].n ? a[CV_PADS].ints[0] : 0, p1 = a[CV_PADS].n ? a[CV_PADS].ints[1] : 0;
  nd->op = BERTH_OP_CONV_DFT;
  berth_op_attrs_default(berth_op_get(BERTH_OP_CONV_DFT), nd->attrs);
  nd->attrs[0].i = stride;
  nd->attrs[1].i = p0;
  nd->attrs[2].i = p1;
  wv->type = tt;
  wv->index = g;
  return true;
}

int32_t berth_pass_conv_dft(berth_ir_program_t *p) {
  int32_t done = 0;
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    berth_ir_method_t *m = &p->methods[mi];
    int32_t *uses = calloc((size_t)(m->n_values ? m->n_values : 1), sizeof *uses);
    if (!uses) return done;
    berth_pass_uses(m, uses, NULL);
    for (int32_t ni = 0; ni < m->n_nodes; ni++) {
      berth_ir_node_t *n = &m->nodes[ni];
      if (n->op != BERTH_OP_CONV || !conv_dft_plain(m, n)) continue;
      const berth_ir_value_t *wv = &m->values[n->in[1]];
      if (wv->kind != BERTH_IR_CONST || uses[n->in[1]] != 1 || p->globals[wv->index].is_state) continue;
      const int64_t size = conv_dft_size(&wv->type, (const float *)p->globals[wv->index].data);
      if (!size) continue;
      if (!conv_dft_rewrite(p, m, mi, ni, size)) break;
      done++;
    }
    free(uses);
  }
  return done;
}
