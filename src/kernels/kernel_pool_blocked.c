/* pool_blocked(x) {kernel_shape, strides, pads, dilations, flags, kind}: 2-D max (kind 0) or
 * average (kind 1) pooling over a channel-blocked tensor x [N, C/16, H, W, 16]
 * (kernel_conv_blocked.h's layout; src/passes/layout.c puts pools inside regions of blocked
 * convs). The attributes and the result are max_pool's and avg_pool's (kernel_pool.c: the
 * same window rules, padding, ceil mode, count_include_pad), in the blocked layout
 * [N, C/16, OH, OW, 16]; each of the 16 lanes of a position is its channel's value, computed
 * as kernel_pool.c's per-element walk computes it: the same bits (max: the first element of
 * the window, then each later one that is greater or replaces a NaN; average: the sum in
 * window order from +0, divided by the count). The 16 channels of a position are one vector,
 * so the windows need no transposition. Runtime side: no allocation, no stdio. */
#include "kernel_conv_blocked.h"
#include "kernel_isa.h"
#include "kernel_util.h"
#include "op_table.h"

#include <math.h>
#include <string.h>

enum { PB_KERNEL, PB_STRIDES, PB_PADS, PB_DILATIONS, PB_FLAGS, PB_KIND };
enum { PB_COUNT_PAD = 2 }; /* kernel_pool.c's flag */


static berth_status_t pb_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                               berth_type_t *out, berth_diag_t *diag) {
  char sa[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_pool_blocked, in, n_in, diag));
  const berth_type_t *x = &in[0];
  if (x->dtype != BERTH_DTYPE_F32 || x->rank != 5 || x->dims[4] != BERTH_CONV_BLOCK)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "pool_blocked: input %s, expected f32 [N, C/16, H, W, 16]",
                      berth_type_format(x, sa, sizeof sa));
  const int64_t kind = attrs[PB_KIND].i;
  if (kind != 0 && kind != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "pool_blocked: kind is %lld, expected 0 (max) or 1 (average)",
                      (long long)kind);
  if (x->dims[1] > BERTH_MAX_DIM / BERTH_CONV_BLOCK)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "pool_blocked: input %s is too large",
                      berth_type_format(x, sa, sizeof sa));
  berth_type_t lx, lo;
  berth_kernel_type_init(&lx, BERTH_DTYPE_F32, 4);
  lx.dims[0] = x->dims[0], lx.dims[1] = x->dims[1] * BERTH_CONV_BLOCK, lx.dims[2] = x->dims[2], lx.dims[3] = x->dims[3];
  berth_status_t st = berth_pool_infer(kind == 0, attrs, &lx, &lo, diag);
  if (st) return berth_fail_prefix(diag, st, kind == 0 ? "pool_blocked (as max_pool)" : "pool_blocked (as avg_pool)");
  berth_kernel_type_init(out, BERTH_DTYPE_F32, 5);
  out->dims[0] = lo.dims[0], out->dims[1] = x->dims[1], out->dims[2] = lo.dims[2], out->dims[3] = lo.dims[3];
  out->dims[4] = BERTH_CONV_BLOCK;
  return berth_kernel_check_output("pool_blocked", out, diag);
}

/* The taps [lo, hi) of window start s inside [0, n) (kernel_pool.c's pool_taps). */
static void pb_taps(int64_t s, int64_t dil, int64_t k, int64_t n, int64_t *lo, int64_t *hi) {
  const int64_t a = s >= 0 ? 0 : (-s + dil - 1) / dil;
  const int64_t b = n > s ? (n - s + dil - 1) / dil : 0;
  *lo = a < k ? a : k;
  *hi = b < k ? b : k;
  if (*hi < *lo) *hi = *lo;
}

/* kernel_pool.c's walk for one lane: the window's first element, then each later one that is
 * greater or replaces a NaN (x: the lane at the window's first element inside the input, nr
 * rows rs apart and nc columns cs apart from it) */
static float pb_walk_max(const float *x, int64_t nr, int64_t nc, int64_t rs, int64_t cs) {
  float m = x[0];
  for (int64_t q0 = 0; q0 < nr; q0++)
    for (int64_t q1 = 0; q1 < nc; q1++) {
      const float v = x[q0 * rs + q1 * cs];
      if (v > m || m != m) m = v;
    }
  return m;
}

static void pb_run(const berth_kernel_call_t *call) {
  const berth_attr_value_t *at = call->attrs;
  const berth_type_t *xt = call->in[0].type, *ot = call->out[0].type;
  if (berth_kernel_is_empty(ot)) return;
  const int64_t ih = xt->dims[2], iw = xt->dims[3], oh = ot->dims[2], ow = ot->dims[3];
  const int64_t kh = at[PB_KERNEL].ints[0], kw = at[PB_KERNEL].ints[1];
  const int64_t sh = at[PB_STRIDES].n ? at[PB_STRIDES].ints[0] : 1;
  const int64_t dh = at[PB_DILATIONS].n ? at[PB_DILATIONS].ints[0] : 1;
  const int64_t ph = at[PB_PADS].n ? at[PB_PADS].ints[0] : 0, phe = at[PB_PADS].n ? at[PB_PADS].ints[2] : 0;
  const int64_t pwe = at[PB_PADS].n ? at[PB_PADS].ints[3] : 0;
  const bool max = at[PB_KIND].i == 0, count_pad = (at[PB_FLAGS].i & PB_COUNT_PAD) != 0;
  const berth_kernel_isa_t *isa = berth_kernel_isa();
  const float *x = (const float *)call->in[0].data;
  float *y = (float *)call->out[0].data;
  const int64_t planes = xt->dims[0] * xt->dims[1], B = BERTH_CONV_BLOCK;
  berth_pool_blk_row_t r = {
      .iw = iw,
      .rs = dh,
      .ow = ow,
      .sw = at[PB_STRIDES].n ? at[PB_STRIDES].ints[1] : 1,
      .pw = at[PB_PADS].n ? at[PB_PADS].ints[1] : 0,
      .kw = kw,
      .dw = at[PB_DILATIONS].n ? at[PB_DILATIONS].ints[1] : 1,
      .max = max,
  };
  r.cpad = count_pad ? iw + r.pw + pwe : 0;
  for (int64_t c = 0; c < planes; c++) {
    r.x = x + c * ih * iw * B;
    for (int64_t o0 = 0; o0 < oh; o0++) {
      const int64_t s0 = o0 * sh - ph;
      int64_t lo0, hi0, plo0, phi0;
      pb_taps(s0, dh, kh, ih, &lo0, &hi0);
      pb_taps(s0 + ph, dh, kh, ih + ph + phe, &plo0, &phi0);
      r.r0 = s0 + lo0 * dh;
      r.nr = hi0 - lo0;
      r.rdiv = count_pad ? phi0 - plo0 : hi0 - lo0;
      r.y = y + (c * oh + o0) * ow * B;
      if (!isa->pool_blocked_row_f32(&r) || !max) continue;
      for (int64_t o1 = 0; o1 < ow; o1++) /* lanes left at -inf: the exact walk */
        for (int64_t l = 0; l < B; l++)
          if (r.y[o1 * B + l] == -INFINITY) {
            const int64_t s1 = o1 * r.sw - r.pw;
            int64_t lo1, hi1;
            pb_taps(s1, r.dw, kw, iw, &lo1, &hi1);
            r.y[o1 * B + l] = pb_walk_max(r.x + (r.r0 * iw + s1 + lo1 * r.dw) * B + l, r.nr, hi1 - lo1, dh * iw * B, r.dw * B);
          }
    }
  }
}

static const berth_attr_spec_t pb_attrs[] = {
    {"kernel_shape", BERTH_ATTR_INTS, true, 0, 0}, {"strides", BERTH_ATTR_INTS, false, 0, 0},
    {"pads", BERTH_ATTR_INTS, false, 0, 0},        {"dilations", BERTH_ATTR_INTS, false, 0, 0},
    {"flags", BERTH_ATTR_INT, false, 0, 0},        {"kind", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_pool_blocked = {"pool_blocked", BERTH_OPKIND_KERNEL, 1, 1, 1, 6, pb_attrs,
                                                  pb_infer, pb_run};
