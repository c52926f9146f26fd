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
 * Then sqrt(pow(re, 2) + pow(im, 2)) of the two halves of a conv_dft's result (re rows
 * [0, N/2 + 1) of axis 1, im the rest, each reached through slices that keep every other
 * axis whole; the add's operands in either order), the spectrum's magnitude as an STFT
 * front end computes it, becomes one conv_dft with magnitude = 1: the sqrt node takes the
 * conv_dft's operands and attributes; the add, pows and slices are left for DCE.
 *
 * Before that, a pad of the signal before it (pad(x) on the last axis, zeros or reflect, then
 * unsqueeze to [B, 1, L']: Silero pads each frame's end by reflection) moves into the
 * conv_dft (its pads and pad_mode; the unsqueeze reads x): the same samples, one copy less.
 *
 * Results change by conv's own f32 rounding: the FFT computes the exact transform of the
 * windowed frame in double (the kernel's comment), where conv sums N f32 products; the
 * magnitude is taken in double too, rounded once. */
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

/* ---- the magnitude: sqrt(re^2 + im^2) of a conv_dft's two halves -------------------- */

/* Follows v back through slice nodes to a conv_dft's result: true with *lo the first row of
 * axis 1 that v starts at, when every slice takes whole extents on the other axes, unit
 * steps, rows [lo, lo + v's rows) on axis 1; *src the conv_dft node. */
static bool mag_trace(const berth_ir_method_t *m, int32_t v, int32_t *src, int64_t *lo) {
  static const int SL_AXES = 0, SL_STARTS = 1, SL_ENDS = 2, SL_STEPS = 3;
  int64_t off = 0;
  for (int depth = 0; depth < 16; depth++) {
    const berth_ir_value_t *val = &m->values[v];
    if (val->kind != BERTH_IR_NODE || val->node < 0) return false;
    const berth_ir_node_t *n = &m->nodes[val->node];
    if (n->op == BERTH_OP_CONV_DFT) {
      *src = val->node;
      *lo = off;
      return n->attrs[3].i == 0; /* not already a magnitude */
    }
    if (n->op != BERTH_OP_SLICE || n->n_in != 1) return false;
    const berth_attr_value_t *a = n->attrs;
    const berth_type_t *in = &m->values[n->in[0]].type;
    if (a[SL_AXES].n < 1 || a[SL_STARTS].n != a[SL_AXES].n || a[SL_ENDS].n != a[SL_AXES].n) return false;
    for (int32_t i = 0; i < a[SL_AXES].n; i++) {
      int64_t ax = a[SL_AXES].ints[i];
      if (ax < 0) ax += in->rank;
      if (ax < 0 || ax >= in->rank || (a[SL_STEPS].n && a[SL_STEPS].ints[i] != 1)) return false;
      const int64_t dim = in->dims[ax];
      int64_t st = a[SL_STARTS].ints[i], en = a[SL_ENDS].ints[i];
      if (st < 0) st += dim;
      if (en < 0) en += dim;
      st = st < 0 ? 0 : st > dim ? dim : st;
      en = en < 0 ? 0 : en > dim ? dim : en;
      if (ax != 1 && (st != 0 || en != dim)) return false;
      if (ax == 1) off += st; /* the rows kept are [st, en): v's type says how many */
    }
    v = n->in[0];
  }
  return false;
}

/* Whether value v is pow(x, 2) with 2 an f32 constant scalar; *x gets x. */
static bool mag_square(const berth_ir_program_t *p, const berth_ir_method_t *m, int32_t v, int32_t *x) {
  const berth_ir_value_t *val = &m->values[v];
  if (val->kind != BERTH_IR_NODE || val->node < 0) return false;
  const berth_ir_node_t *n = &m->nodes[val->node];
  if (n->op != BERTH_OP_POW || n->n_in != 2) return false;
  const berth_ir_value_t *e = &m->values[n->in[1]];
  if (e->kind != BERTH_IR_CONST || e->type.dtype != BERTH_DTYPE_F32 || berth_type_numel(&e->type) != 1) return false;
  const float *d = (const float *)p->globals[e->index].data;
  *x = n->in[0];
  return d && d[0] == 2.0f;
}

/* Node si (a sqrt) of sqrt(pow(re, 2) + pow(im, 2)), re and im the two halves of one
 * conv_dft's result (slices of it), becomes that conv_dft with magnitude = 1; the add, pows
 * and slices are left for DCE (the conv_dft too, when nothing else reads it). */
static bool mag_fuse(const berth_ir_program_t *p, berth_ir_method_t *m, int32_t si) {
  berth_ir_node_t *s = &m->nodes[si];
  if (s->n_in != 1 || s->n_out != 1) return false;
  const berth_ir_value_t *av = &m->values[s->in[0]];
  if (av->kind != BERTH_IR_NODE || av->node < 0) return false;
  const berth_ir_node_t *a = &m->nodes[av->node];
  int32_t x0, x1, d0, d1;
  int64_t lo0, lo1;
  if (a->op != BERTH_OP_ADD || a->n_in != 2 || !mag_square(p, m, a->in[0], &x0) || !mag_square(p, m, a->in[1], &x1) ||
      !mag_trace(m, x0, &d0, &lo0) || !mag_trace(m, x1, &d1, &lo1) || d0 != d1)
    return false;
  const berth_ir_node_t *d = &m->nodes[d0];
  const berth_type_t *dt = &m->values[d->out[0]].type, *ot = &m->values[s->out[0]].type;
  const int64_t bins = dt->dims[1] / 2;
  if (d->graph != s->graph || (lo0 != 0 && lo0 != bins) || lo1 != bins - lo0) return false;
  berth_type_t want = *dt; /* [B, bins, frames], and so are both halves */
  want.dims[1] = bins;
  if (!berth_type_equal(ot, &want) || !berth_type_equal(&m->values[x0].type, &want) ||
      !berth_type_equal(&m->values[x1].type, &want))
    return false;
  int32_t *nin = realloc(s->in, 2 * sizeof *nin);
  if (!nin) return false;
  nin[0] = d->in[0];
  nin[1] = d->in[1];
  s->in = nin;
  s->n_in = 2;
  s->op = BERTH_OP_CONV_DFT;
  memcpy(s->attrs, d->attrs, sizeof s->attrs);
  s->attrs[3].i = 1;
  return true;
}

/* ---- the signal's padding: pad(x) then unsqueeze into [B, 1, L'] ------------------- */

/* Node di (a conv_dft without pads of its own) reads unsqueeze(pad(x)) {axes = [1]}, each
 * read by the next alone, x [B, L], the pad's only on the last axis, zeros or reflect
 * (within L - 1): the unsqueeze now reads x itself, the conv_dft pads (pad_mode 1 for
 * reflect); the pad is left for DCE. */
static bool pad_fold(berth_ir_method_t *m, const int32_t *uses, int32_t di) {
  berth_ir_node_t *d = &m->nodes[di];
  if (d->attrs[1].i != 0 || d->attrs[2].i != 0 || uses[d->in[0]] != 1) return false;
  berth_ir_value_t *uv = &m->values[d->in[0]];
  if (uv->kind != BERTH_IR_NODE || uv->node < 0) return false;
  berth_ir_node_t *u = &m->nodes[uv->node];
  if (u->op != BERTH_OP_UNSQUEEZE || u->n_in != 1 || u->attrs[0].n != 1 || (u->attrs[0].ints[0] != 1 && u->attrs[0].ints[0] != -2))
    return false;
  const berth_ir_value_t *pv = &m->values[u->in[0]];
  if (uses[u->in[0]] != 1 || pv->kind != BERTH_IR_NODE || pv->node < 0) return false;
  const berth_ir_node_t *pd = &m->nodes[pv->node];
  if (pd->op != BERTH_OP_PAD || pd->n_in != 1 || pd->graph != d->graph) return false;
  const berth_type_t *x = &m->values[pd->in[0]].type;
  const berth_attr_value_t *a = pd->attrs; /* pads (begins, then ends), mode, value */
  if (x->rank != 2 || a[0].n != 4 || a[0].ints[0] != 0 || a[0].ints[2] != 0) return false;
  const int64_t pb = a[0].ints[1], pe = a[0].ints[3], len = x->dims[1];
  const bool zeros = a[1].i == 0 && a[2].f == 0, reflect = a[1].i == 1;
  if (pb < 0 || pe < 0 || !(zeros || (reflect && pb <= len - 1 && pe <= len - 1))) return false;
  u->in[0] = pd->in[0];
  uv->type.dims[2] = len;
  d->attrs[1].i = pb;
  d->attrs[2].i = pe;
  d->attrs[4].i = reflect ? 1 : 0;
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
    /* the pads first (the magnitude copies the conv_dft's operands and attributes) */
    berth_pass_uses(m, uses, NULL);
    for (int32_t ni = 0; ni < m->n_nodes; ni++)
      if (m->nodes[ni].op == BERTH_OP_CONV_DFT && pad_fold(m, uses, ni)) done++;
    free(uses);
    for (int32_t ni = 0; ni < m->n_nodes; ni++)
      if (m->nodes[ni].op == BERTH_OP_SQRT && mag_fuse(p, m, ni)) done++;
  }
  return done;
}
