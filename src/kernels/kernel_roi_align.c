/* roi_align(x, rois, batch_indices) {mode, output, sampling_ratio, spatial_scale, half_pixel}
 *   -> (y, ok): ONNX RoiAlign.
 *
 * x is [N, C, H, W], rois [R, 4] (x1, y1, x2, y2 in input coordinates, times spatial_scale),
 * batch_indices [R] (i32 or i64); y is [R, C, output[0], output[1]]. Each output bin averages
 * (mode 0) or takes the max (mode 1) of sampling_ratio^2 bilinear samples (sampling_ratio 0:
 * ceil(roi size / bins) per dim), exactly as the ONNX reference and onnxruntime do: samples
 * more than one element outside the map read 0, and max mode takes the max of the four
 * weighted corner values. half_pixel 1 shifts the box by -0.5 (opset 16's default); 0 is
 * opset 10's rule, where a box is at least 1x1.
 *
 * batch_indices and rois are data: an index outside 0..N-1, a non-finite box or one needing
 * more than 2^16 samples per bin side makes that region's output 0 and clears ok (the ONNX
 * importer asserts it, so the call fails instead). */
#include "kernel_util.h"

#include <math.h>

enum { RA_MODE, RA_OUTPUT, RA_SAMPLING, RA_SCALE, RA_HALF_PIXEL };

#define RA_MAX_GRID 65536

static berth_status_t roi_align_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                      berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_roi_align, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("roi_align", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  BERTH_TRY(berth_kernel_check_same_dtype("roi_align", in, 0, 1, diag));
  BERTH_TRY(berth_kernel_check_dtype("roi_align", 2, in[2].dtype, BERTH_DTYPE_BIT(I32) | BERTH_DTYPE_BIT(I64), diag));
  BERTH_TRY(berth_kernel_check_ints("roi_align", "output", &attrs[RA_OUTPUT], diag));
  bool hp;
  BERTH_TRY(berth_kernel_get_flag("roi_align", "half_pixel", &attrs[RA_HALF_PIXEL], &hp, diag));
  const berth_type_t *x = &in[0], *r = &in[1], *b = &in[2];
  char sa[160], sb[160], sc[160];
  if (x->rank != 4 || r->rank != 2 || r->dims[1] != 4 || b->rank != 1 || b->dims[0] != r->dims[0])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "roi_align: input %s, rois %s and batch indices %s, expected [N, C, H, W], [R, 4] and [R]",
                      berth_type_format(x, sa, sizeof sa), berth_type_format(r, sb, sizeof sb),
                      berth_type_format(b, sc, sizeof sc));
  const berth_attr_value_t *o = &attrs[RA_OUTPUT];
  if (attrs[RA_MODE].i < 0 || attrs[RA_MODE].i > 1 || o->n != 2 || o->ints[0] < 1 || o->ints[0] > 65536 ||
      o->ints[1] < 1 || o->ints[1] > 65536 || attrs[RA_SAMPLING].i < 0 || attrs[RA_SAMPLING].i > RA_MAX_GRID ||
      !isfinite(attrs[RA_SCALE].f))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "roi_align: mode 0 or 1, two output sizes 1..65536, sampling_ratio 0..%d and a finite "
                      "spatial_scale expected",
                      RA_MAX_GRID);
  berth_kernel_type_init(&out[0], x->dtype, 4);
  out[0].dims[0] = r->dims[0];
  out[0].dims[1] = x->dims[1];
  out[0].dims[2] = o->ints[0];
  out[0].dims[3] = o->ints[1];
  BERTH_TRY(berth_kernel_check_output("roi_align", &out[0], diag));
  berth_kernel_type_init(&out[1], BERTH_DTYPE_BOOL, 0);
  return BERTH_OK;
}

typedef struct ra_box {
  double start_h, start_w, bin_h, bin_w;
  int64_t grid_h, grid_w, count;
} ra_box_t;

/* One bilinear sample at (y, x): four positions and weights (all 0 outside the map). */
static void ra_sample(double y, double x, int64_t H, int64_t W, int64_t *pos, double *w) {
  if (y < -1.0 || y > (double)H || x < -1.0 || x > (double)W) {
    for (int k = 0; k < 4; k++) pos[k] = 0, w[k] = 0;
    return;
  }
  if (y < 0) y = 0;
  if (x < 0) x = 0;
  int64_t yl = (int64_t)y, xl = (int64_t)x, yh, xh;
  if (yl >= H - 1) yh = yl = H - 1, y = (double)yl;
  else yh = yl + 1;
  if (xl >= W - 1) xh = xl = W - 1, x = (double)xl;
  else xh = xl + 1;
  double ly = y - (double)yl, lx = x - (double)xl, hy = 1 - ly, hx = 1 - lx;
  pos[0] = yl * W + xl, pos[1] = yl * W + xh, pos[2] = yh * W + xl, pos[3] = yh * W + xh;
  w[0] = hy * hx, w[1] = hy * lx, w[2] = ly * hx, w[3] = ly * lx;
}

#define RA_RUN_FN(s, T)                                                                                     \
  static void ra_bins_##s(const T *xc, T *yc, const ra_box_t *b, int64_t H, int64_t W, int64_t oh,          \
                          int64_t ow, bool max_mode) {                                                      \
    for (int64_t ph = 0; ph < oh; ph++)                                                                     \
      for (int64_t pw = 0; pw < ow; pw++) {                                                                 \
        double acc = 0;                                                                                     \
        bool first = true;                                                                                  \
        for (int64_t iy = 0; iy < b->grid_h; iy++) {                                                        \
          double y = b->start_h + (double)ph * b->bin_h + ((double)iy + 0.5) * b->bin_h / (double)b->grid_h;\
          for (int64_t ix = 0; ix < b->grid_w; ix++) {                                                      \
            double x = b->start_w + (double)pw * b->bin_w + ((double)ix + 0.5) * b->bin_w / (double)b->grid_w;\
            int64_t pos[4];                                                                                 \
            double w[4];                                                                                    \
            ra_sample(y, x, H, W, pos, w);                                                                  \
            if (!max_mode) {                                                                                \
              for (int k = 0; k < 4; k++) acc += w[k] * (double)xc[pos[k]];                                 \
            } else {                                                                                        \
              double v = w[0] * (double)xc[pos[0]];                                                         \
              for (int k = 1; k < 4; k++) v = fmax(v, w[k] * (double)xc[pos[k]]);                           \
              acc = first ? v : fmax(acc, v);                                                               \
              first = false;                                                                                \
            }                                                                                               \
          }                                                                                                 \
        }                                                                                                   \
        yc[ph * ow + pw] = (T)(max_mode ? acc : acc / (double)b->count);                                    \
      }                                                                                                     \
  }                                                                                                         \
  static bool ra_run_##s(const berth_kernel_call_t *call) {                                                 \
    const berth_type_t *x = call->in[0].type, *bt = call->in[2].type, *ot = call->out[0].type;              \
    const T *xd = (const T *)call->in[0].data, *rois = (const T *)call->in[1].data;                         \
    T *y = (T *)call->out[0].data;                                                                          \
    int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], R = ot->dims[0];                \
    int64_t oh = ot->dims[2], ow = ot->dims[3], plane = oh * ow;                                            \
    bool hp = call->attrs[RA_HALF_PIXEL].i != 0, max_mode = call->attrs[RA_MODE].i == 1, ok = true;         \
    double scale = call->attrs[RA_SCALE].f, off = hp ? 0.5 : 0;                                             \
    int64_t sr = call->attrs[RA_SAMPLING].i;                                                                \
    for (int64_t r = 0; r < R; r++) {                                                                       \
      int64_t bi = bt->dtype == BERTH_DTYPE_I64 ? ((const int64_t *)call->in[2].data)[r]                    \
                                                : ((const int32_t *)call->in[2].data)[r];                   \
      ra_box_t b;                                                                                           \
      b.start_w = (double)rois[r * 4 + 0] * scale - off;                                                    \
      b.start_h = (double)rois[r * 4 + 1] * scale - off;                                                    \
      double rw = (double)rois[r * 4 + 2] * scale - off - b.start_w;                                        \
      double rh = (double)rois[r * 4 + 3] * scale - off - b.start_h;                                        \
      if (!hp) rw = fmax(rw, 1.0), rh = fmax(rh, 1.0);                                                      \
      b.bin_h = rh / (double)oh;                                                                            \
      b.bin_w = rw / (double)ow;                                                                            \
      double gh = sr > 0 ? (double)sr : ceil(rh / (double)oh), gw = sr > 0 ? (double)sr : ceil(rw / (double)ow);\
      bool bad = bi < 0 || bi >= N || !isfinite(b.start_w) || !isfinite(b.start_h) || !(gh <= RA_MAX_GRID) || \
                 !(gw <= RA_MAX_GRID);                                                                      \
      T *yr = y + r * C * plane;                                                                            \
      if (bad) {                                                                                            \
        ok = false;                                                                                         \
        for (int64_t i = 0; i < C * plane; i++) yr[i] = 0;                                                  \
        continue;                                                                                           \
      }                                                                                                     \
      b.grid_h = gh > 0 ? (int64_t)gh : 0;                                                                  \
      b.grid_w = gw > 0 ? (int64_t)gw : 0;                                                                  \
      b.count = b.grid_h * b.grid_w > 1 ? b.grid_h * b.grid_w : 1;                                          \
      for (int64_t c = 0; c < C; c++)                                                                       \
        ra_bins_##s(xd + (bi * C + c) * H * W, yr + c * plane, &b, H, W, oh, ow, max_mode);                 \
    }                                                                                                       \
    return ok;                                                                                              \
  }
RA_RUN_FN(f32, float)
RA_RUN_FN(f64, double)

static void roi_align_run(const berth_kernel_call_t *call) {
  uint8_t *ok = (uint8_t *)call->out[1].data;
  *ok = 1;
  const berth_type_t *x = call->in[0].type;
  if (berth_kernel_is_empty(call->out[0].type)) return;
  if (x->dims[0] == 0 || x->dims[2] == 0 || x->dims[3] == 0) { /* no map to sample: every index is bad */
    *ok = 0;
    size_t bytes = berth_type_bytes(call->out[0].type);
    for (size_t i = 0; i < bytes; i++) ((unsigned char *)call->out[0].data)[i] = 0;
    return;
  }
  bool good = x->dtype == BERTH_DTYPE_F32 ? ra_run_f32(call) : ra_run_f64(call);
  *ok = good;
}

static const berth_attr_spec_t roi_align_attrs[] = {
    {"mode", BERTH_ATTR_INT, false, 0, 0},          {"output", BERTH_ATTR_INTS, true, 0, 0},
    {"sampling_ratio", BERTH_ATTR_INT, false, 0, 0}, {"spatial_scale", BERTH_ATTR_SCALAR, false, 0, 1.0},
    {"half_pixel", BERTH_ATTR_INT, false, 1, 0},
};
const berth_op_def_t berth_op_def_roi_align = {"roi_align", BERTH_OPKIND_KERNEL, 3, 3, 2, 5, roi_align_attrs,
                                               roi_align_infer, roi_align_run};
