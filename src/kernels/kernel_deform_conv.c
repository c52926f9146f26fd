/* deform_conv(x, w, offset[, b[, mask]]) {strides, pads, dilations, group, offset_group}:
 * ONNX DeformConv, 2-D.
 *
 * x is [N, C, H, W], w [M, C/group, kH, kW], offset [N, offset_group * kH * kW * 2, oH, oW]
 * ((dh, dw) pairs per kernel position), b [M], mask [N, offset_group * kH * kW, oH, oW]. The
 * result is [N, M, oH, oW], where oH and oW must be the plain convolution's output sizes.
 * Kernel position (i, j) of output (p, q) samples input channel c at
 *   h = p * stride_h - pad_top + i * dilation_h + offset_h,  w likewise,
 * bilinearly with zeros outside the map, times the mask, times the weight (the ONNX
 * reference: GridSample with align_corners on the shifted kernel). The channels of offset
 * group g share its offsets. Empty attribute lists mean strides 1, pads 0, dilations 1.
 * f32 and f64, sums in double. */
#include "kernel_util.h"

#include <math.h>

enum { DC_STRIDES, DC_PADS, DC_DILATIONS, DC_GROUP, DC_OFFSET_GROUP };

typedef struct dc_plan {
  int64_t n, c, h, w, m, kh, kw, oh, ow, group, og, st[2], p[2], d[2];
} dc_plan_t;

static berth_status_t dc_plan(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, dc_plan_t *p,
                              berth_diag_t *diag) {
  char sa[160], sb[160], sc[160];
  const berth_type_t *x = &in[0], *w = &in[1], *o = &in[2];
  static const char *const names[3] = {"strides", "pads", "dilations"};
  for (int a = 0; a < 3; a++) {
    BERTH_TRY(berth_kernel_check_ints("deform_conv", names[a], &attrs[a], diag));
    int32_t want = a == DC_PADS ? 4 : 2;
    if (attrs[a].n != 0 && attrs[a].n != want)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "deform_conv: %s has %d values, expected %d (or none)",
                        names[a], (int)attrs[a].n, (int)want);
    for (int32_t i = 0; i < attrs[a].n; i++)
      if (attrs[a].ints[i] < (a == DC_PADS ? 0 : 1) || attrs[a].ints[i] > BERTH_MAX_DIM)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "deform_conv: %s[%d] is %lld", names[a], (int)i,
                          (long long)attrs[a].ints[i]);
  }
  if (x->rank != 4 || w->rank != 4 || o->rank != 4)
    return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "deform_conv: input %s, weights %s, offset %s: 2-D only",
                      berth_type_format(x, sa, sizeof sa), berth_type_format(w, sb, sizeof sb),
                      berth_type_format(o, sc, sizeof sc));
  p->n = x->dims[0], p->c = x->dims[1], p->h = x->dims[2], p->w = x->dims[3];
  p->m = w->dims[0], p->kh = w->dims[2], p->kw = w->dims[3], p->oh = o->dims[2], p->ow = o->dims[3];
  p->group = attrs[DC_GROUP].i;
  p->og = attrs[DC_OFFSET_GROUP].i;
  int64_t pe[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    p->st[k] = attrs[DC_STRIDES].n ? attrs[DC_STRIDES].ints[k] : 1;
    p->d[k] = attrs[DC_DILATIONS].n ? attrs[DC_DILATIONS].ints[k] : 1;
    p->p[k] = attrs[DC_PADS].n ? attrs[DC_PADS].ints[k] : 0;
    pe[k] = attrs[DC_PADS].n ? attrs[DC_PADS].ints[2 + k] : 0;
  }
  if (p->group < 1 || p->group > BERTH_MAX_DIM || p->og < 1 || p->og > BERTH_MAX_DIM || p->c % p->group != 0 ||
      p->m % p->group != 0 || w->dims[1] != p->c / p->group || p->c % p->og != 0 || p->kh < 1 || p->kw < 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "deform_conv: input %s and weights %s do not fit group %lld and offset_group %lld",
                      berth_type_format(x, sa, sizeof sa), berth_type_format(w, sb, sizeof sb), (long long)p->group,
                      (long long)p->og);
  int64_t in2[2] = {p->h, p->w}, k2[2] = {p->kh, p->kw}, out2[2];
  for (int k = 0; k < 2; k++) {
    int64_t padded = in2[k] + p->p[k] + pe[k];
    if (padded < 1 || k2[k] - 1 > (padded - 1) / p->d[k])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "deform_conv: the kernel spans more than the padded input");
    out2[k] = (padded - (p->d[k] * (k2[k] - 1) + 1)) / p->st[k] + 1;
  }
  int64_t kk = p->kh * p->kw; /* both <= 2^40 and the weights' element count is capped */
  if (o->dims[0] != p->n || o->dims[1] != p->og * kk * 2 || p->oh != out2[0] || p->ow != out2[1])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "deform_conv: offset %s, expected [%lld, %lld, %lld, %lld]",
                      berth_type_format(o, sa, sizeof sa), (long long)p->n, (long long)(p->og * kk * 2),
                      (long long)out2[0], (long long)out2[1]);
  if (n_in >= 4 && (in[3].rank != 1 || in[3].dims[0] != p->m))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "deform_conv: bias %s, expected [%lld]",
                      berth_type_format(&in[3], sa, sizeof sa), (long long)p->m);
  if (n_in == 5) {
    const berth_type_t *mk = &in[4];
    if (mk->rank != 4 || mk->dims[0] != p->n || mk->dims[1] != p->og * kk || mk->dims[2] != p->oh ||
        mk->dims[3] != p->ow)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "deform_conv: mask %s, expected [%lld, %lld, %lld, %lld]",
                        berth_type_format(mk, sa, sizeof sa), (long long)p->n, (long long)(p->og * kk),
                        (long long)p->oh, (long long)p->ow);
  }
  return BERTH_OK;
}

static berth_status_t deform_conv_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                        berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_deform_conv, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("deform_conv", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  for (int32_t i = 1; i < n_in; i++) BERTH_TRY(berth_kernel_check_same_dtype("deform_conv", in, 0, i, diag));
  dc_plan_t p;
  BERTH_TRY(dc_plan(attrs, in, n_in, &p, diag));
  berth_kernel_type_init(&out[0], in[0].dtype, 4);
  out[0].dims[0] = p.n, out[0].dims[1] = p.m, out[0].dims[2] = p.oh, out[0].dims[3] = p.ow;
  return berth_kernel_check_output("deform_conv", &out[0], diag);
}

#define DC_RUN_FN(s, T)                                                                                      \
  static double dc_sample_##s(const T *xc, int64_t H, int64_t W, double h, double w) {                        \
    if (!(h > -1 && h < (double)H && w > -1 && w < (double)W)) return 0;                                      \
    double fh = floor(h), fw = floor(w), lh = h - fh, lw = w - fw, v = 0;                                     \
    int64_t h0 = (int64_t)fh, w0 = (int64_t)fw;                                                               \
    for (int a = 0; a < 2; a++)                                                                               \
      for (int b = 0; b < 2; b++) {                                                                           \
        int64_t hh = h0 + a, ww = w0 + b;                                                                     \
        if (hh < 0 || hh >= H || ww < 0 || ww >= W) continue;                                                 \
        v += (a ? lh : 1 - lh) * (b ? lw : 1 - lw) * (double)xc[hh * W + ww];                                 \
      }                                                                                                       \
    return v;                                                                                                 \
  }                                                                                                           \
  static void dc_run_##s(const dc_plan_t *p, const berth_kernel_call_t *call) {                              \
    const T *x = call->in[0].data, *wt = call->in[1].data, *off = call->in[2].data;                           \
    const T *bias = call->n_in >= 4 ? call->in[3].data : NULL, *mask = call->n_in == 5 ? call->in[4].data : NULL;\
    T *y = call->out[0].data;                                                                                 \
    int64_t kk = p->kh * p->kw, cg = p->c / p->group, mg = p->m / p->group, cog = p->c / p->og;               \
    int64_t plane = p->oh * p->ow;                                                                            \
    for (int64_t n = 0; n < p->n; n++)                                                                        \
      for (int64_t m = 0; m < p->m; m++)                                                                      \
        for (int64_t q = 0; q < plane; q++) {                                                                 \
          int64_t oh = q / p->ow, ow = q % p->ow, g = m / mg;                                                 \
          double acc = bias ? (double)bias[m] : 0;                                                            \
          for (int64_t cc = 0; cc < cg; cc++) {                                                               \
            int64_t c = g * cg + cc, og = c / cog;                                                            \
            const T *xc = x + (n * p->c + c) * p->h * p->w, *wk = wt + (m * cg + cc) * kk;                    \
            for (int64_t k = 0; k < kk; k++) {                                                                \
              int64_t i = k / p->kw, j = k % p->kw;                                                           \
              const T *o = off + ((n * p->og + og) * kk * 2 + 2 * k) * plane + q;                             \
              double hh = (double)(oh * p->st[0] - p->p[0] + i * p->d[0]) + (double)o[0];                      \
              double ww = (double)(ow * p->st[1] - p->p[1] + j * p->d[1]) + (double)o[plane];                  \
              double v = dc_sample_##s(xc, p->h, p->w, hh, ww);                                               \
              if (mask) v *= (double)mask[((n * p->og + og) * kk + k) * plane + q];                           \
              acc += (double)wk[k] * v;                                                                       \
            }                                                                                                 \
          }                                                                                                   \
          y[(n * p->m + m) * plane + q] = (T)acc;                                                             \
        }                                                                                                     \
  }
DC_RUN_FN(f32, float)
DC_RUN_FN(f64, double)

static void deform_conv_run(const berth_kernel_call_t *call) {
  berth_type_t types[5];
  for (int32_t i = 0; i < call->n_in; i++) types[i] = *call->in[i].type;
  dc_plan_t p;
  if (dc_plan(call->attrs, types, call->n_in, &p, NULL) != BERTH_OK) return; /* infer accepted it */
  if (berth_kernel_is_empty(call->out[0].type)) return;
  if (types[0].dtype == BERTH_DTYPE_F32) dc_run_f32(&p, call);
  else dc_run_f64(&p, call);
}

static const berth_attr_spec_t deform_conv_attrs[] = {
    {"strides", BERTH_ATTR_INTS, false, 0, 0}, {"pads", BERTH_ATTR_INTS, false, 0, 0},
    {"dilations", BERTH_ATTR_INTS, false, 0, 0}, {"group", BERTH_ATTR_INT, false, 1, 0},
    {"offset_group", BERTH_ATTR_INT, false, 1, 0},
};
const berth_op_def_t berth_op_def_deform_conv = {"deform_conv", BERTH_OPKIND_KERNEL, 3, 5, 1, 5, deform_conv_attrs,
                                                 deform_conv_infer, deform_conv_run};
