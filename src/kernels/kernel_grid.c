/* grid_sample(x, grid) {mode, padding, align_corners}: ONNX GridSample, 1 to 3 spatial dims.
 *
 * x is [N, C, D_1..D_r], grid [N, O_1..O_r, r] with normalized coordinates in -1..1 in
 * x, y, z order: the first one is for the last spatial dim D_r (as ONNX and PyTorch have it).
 * The result is [N, C, O_1..O_r].
 *   mode 0 linear, 1 nearest, 2 cubic (Keys, a = -0.75);
 *   padding 0 zeros, 1 border, 2 reflection;
 *   align_corners 1: -1 and 1 are the centres of the corner elements, else their outer edges.
 * Every step follows the ONNX reference: the coordinate is denormalized in the grid's float
 * type; nearest rounds half to even (in 3-D too: the conformance data does, though the
 * current Python reference and PyTorch round 3-D halves away from zero); an out-of-range
 * coordinate is clamped (border) or reflected (reflection) first, then every tap outside the
 * input reads 0 (zeros), the nearest edge element (border) or its reflection (reflection).
 * The taps of a grid point are computed once and used for all C channels. Floats only. */
#include "kernel_util.h"

#include <math.h>

enum { GS_MODE, GS_PADDING, GS_ALIGN };
enum { GS_LINEAR, GS_NEAREST, GS_CUBIC };
enum { GS_ZEROS, GS_BORDER, GS_REFLECTION };

static berth_status_t grid_sample_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                        berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_grid_sample, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("grid_sample", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  BERTH_TRY(berth_kernel_check_same_dtype("grid_sample", in, 0, 1, diag));
  bool align;
  BERTH_TRY(berth_kernel_get_flag("grid_sample", "align_corners", &attrs[GS_ALIGN], &align, diag));
  if (attrs[GS_MODE].i < 0 || attrs[GS_MODE].i > 2 || attrs[GS_PADDING].i < 0 || attrs[GS_PADDING].i > 2)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "grid_sample: mode %lld and padding %lld, expected 0..2",
                      (long long)attrs[GS_MODE].i, (long long)attrs[GS_PADDING].i);
  const berth_type_t *x = &in[0], *g = &in[1];
  char sa[160], sb[160];
  int32_t r = x->rank - 2;
  if (r < 1 || r > 3 || g->rank != x->rank || g->dims[0] != x->dims[0] || g->dims[g->rank - 1] != r)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "grid_sample: input %s and grid %s, expected [N, C, D_1..D_r] and [N, O_1..O_r, r] with r 1 to 3",
                      berth_type_format(x, sa, sizeof sa), berth_type_format(g, sb, sizeof sb));
  berth_type_t t;
  berth_kernel_type_init(&t, x->dtype, x->rank);
  t.dims[0] = x->dims[0];
  t.dims[1] = x->dims[1];
  for (int32_t k = 0; k < r; k++) {
    t.dims[2 + k] = g->dims[1 + k];
    if (x->dims[2 + k] == 0 && g->dims[1 + k] > 0 && x->dims[1] > 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "grid_sample: input %s is empty in spatial dim %d",
                        berth_type_format(x, sa, sizeof sa), (int)k);
  }
  BERTH_TRY(berth_kernel_check_output("grid_sample", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

/* Reflects v into [lo, hi] (the reference's rule: by the nearer border, repeatedly). */
static double gs_reflect(double v, double lo, double hi) {
  double rng = hi - lo;
  if (!(rng > 0)) return lo;
  if (v < lo) {
    double dx = lo - v, n = trunc(dx / rng), r = dx - n * rng;
    return fmod(n, 2) == 0 ? lo + r : hi - r;
  }
  if (v > hi) {
    double dx = v - hi, n = trunc(dx / rng), r = dx - n * rng;
    return fmod(n, 2) == 0 ? hi - r : lo + r;
  }
  return v;
}

typedef struct gs_taps {
  int32_t n;      /* taps per dim */
  int64_t idx[4]; /* -1: reads 0 */
  double w[4];
} gs_taps_t;

/* The taps of one dim for denormalized coordinate v (already clamped or reflected). */
static void gs_dim_taps(gs_taps_t *t, double v, int64_t d, int mode, int padding, double lo, double hi) {
  int64_t first;
  if (mode == GS_NEAREST) {
    double rv = nearbyint(v);
    t->n = 1;
    t->w[0] = 1;
    first = (int64_t)rv;
  } else {
    double f = floor(v), q = v - f;
    first = (int64_t)f;
    if (mode == GS_LINEAR) {
      t->n = 2;
      t->w[0] = 1 - q;
      t->w[1] = q;
      first = (int64_t)f;
    } else {
      const double A = -0.75;
      double q1 = q + 1, p = 1 - q, p1 = 2 - q;
      t->n = 4;
      t->w[0] = ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A;
      t->w[1] = ((A + 2) * q - (A + 3)) * q * q + 1;
      t->w[2] = ((A + 2) * p - (A + 3)) * p * p + 1;
      t->w[3] = ((A * p1 - 5 * A) * p1 + 8 * A) * p1 - 4 * A;
      first = (int64_t)f - 1;
    }
  }
  for (int32_t k = 0; k < t->n; k++) {
    int64_t i = first + k;
    if (padding == GS_ZEROS) {
      t->idx[k] = i >= 0 && i < d ? i : -1;
    } else if (padding == GS_BORDER) {
      t->idx[k] = i < 0 ? 0 : i >= d ? d - 1 : i;
    } else {
      int64_t j = (int64_t)gs_reflect((double)i, lo, hi);
      t->idx[k] = j < 0 ? 0 : j >= d ? d - 1 : j;
    }
  }
}

/* Taps of every dim for grid point gp (r coordinates, x first). Coordinates are bounded
 * before any conversion to an integer: NaN and huge values read as outside. */
static void gs_point_taps(gs_taps_t *taps, const double *gp, const int64_t *dims, int32_t r, int mode, int padding,
                          bool align, bool f32) {
  for (int32_t k = 0; k < r; k++) {
    int64_t d = dims[k];
    double nv = gp[r - 1 - k];
    double v = align ? (nv + 1) / 2.0 * (double)(d - 1) : ((nv + 1) * (double)d - 1) / 2.0;
    if (f32) v = (double)(float)v;
    double lo = align ? 0 : -0.5, hi = align ? (double)(d - 1) : (double)d - 0.5;
    if (v < lo || v > hi) {
      if (padding == GS_BORDER) v = v < 0 ? 0 : v > (double)(d - 1) ? (double)(d - 1) : v;
      else if (padding == GS_REFLECTION) v = gs_reflect(v, lo, hi);
    }
    if (!(fabs(v) < 4e15)) v = -1e15; /* NaN or far outside: every tap reads as outside */
    gs_dim_taps(&taps[k], v, d, mode, padding, lo, hi);
  }
}

#define GS_RUN_FN(s, T)                                                                                      \
  static void gs_run_##s(const berth_kernel_call_t *call) {                                                  \
    const berth_type_t *x = call->in[0].type, *ot = call->out[0].type;                                       \
    const T *xd = (const T *)call->in[0].data, *gd = (const T *)call->in[1].data;                            \
    T *y = (T *)call->out[0].data;                                                                           \
    int32_t r = x->rank - 2;                                                                                 \
    int mode = (int)call->attrs[GS_MODE].i, padding = (int)call->attrs[GS_PADDING].i;                        \
    bool align = call->attrs[GS_ALIGN].i != 0;                                                               \
    int64_t N = x->dims[0], C = x->dims[1], il = 1, ol = 1, dims[3], st[3];                                  \
    for (int32_t k = 0; k < r; k++) {                                                                        \
      dims[k] = x->dims[2 + k];                                                                              \
      il *= dims[k];                                                                                         \
      ol *= ot->dims[2 + k];                                                                                 \
    }                                                                                                        \
    st[r - 1] = 1;                                                                                           \
    for (int32_t k = r - 2; k >= 0; k--) st[k] = st[k + 1] * dims[k + 1];                                   \
    for (int64_t n = 0; n < N; n++)                                                                          \
      for (int64_t p = 0; p < ol; p++) {                                                                     \
        double gp[3];                                                                                        \
        for (int32_t k = 0; k < r; k++) gp[k] = (double)gd[(n * ol + p) * r + k];                           \
        gs_taps_t t[3];                                                                                      \
        gs_point_taps(t, gp, dims, r, mode, padding, align, sizeof(T) == 4);                                 \
        for (int32_t k = r; k < 3; k++) t[k].n = 1, t[k].idx[0] = 0, t[k].w[0] = 1;                          \
        int64_t s0 = r > 0 ? st[0] : 0, s1 = r > 1 ? st[1] : 0, sl = r > 2 ? st[2] : 0;                      \
        for (int64_t c = 0; c < C; c++) {                                                                    \
          const T *xc = xd + (n * C + c) * il;                                                               \
          double sum = 0;                                                                                    \
          for (int32_t a = 0; a < t[0].n; a++) {                                                             \
            if (t[0].idx[a] < 0) continue;                                                                   \
            for (int32_t b = 0; b < t[1].n; b++) {                                                           \
              if (t[1].idx[b] < 0) continue;                                                                 \
              for (int32_t e = 0; e < t[2].n; e++) {                                                         \
                if (t[2].idx[e] < 0) continue;                                                               \
                double w = t[0].w[a] * t[1].w[b] * t[2].w[e];                                                \
                sum += w * (double)xc[t[0].idx[a] * s0 + t[1].idx[b] * s1 + t[2].idx[e] * sl];               \
              }                                                                                              \
            }                                                                                                \
          }                                                                                                  \
          y[(n * C + c) * ol + p] = (T)sum;                                                                  \
        }                                                                                                    \
      }                                                                                                      \
  }
GS_RUN_FN(f32, float)
GS_RUN_FN(f64, double)

static void grid_sample_run(const berth_kernel_call_t *call) {
  if (berth_kernel_is_empty(call->out[0].type)) return;
  if (call->in[0].type->dtype == BERTH_DTYPE_F32) gs_run_f32(call);
  else gs_run_f64(call);
}

static const berth_attr_spec_t grid_sample_attrs[] = {
    {"mode", BERTH_ATTR_INT, false, 0, 0},
    {"padding", BERTH_ATTR_INT, false, 0, 0},
    {"align_corners", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_grid_sample = {"grid_sample", BERTH_OPKIND_KERNEL, 2, 2, 1, 3, grid_sample_attrs,
                                                 grid_sample_infer, grid_sample_run};
