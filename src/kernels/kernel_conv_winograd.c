/* conv_winograd (kernel_conv_winograd.h): F(2x2, 3x3) over channel-blocked tensors.
 *
 * The driver takes the output tiles (2x2 outputs each) in raster order, a band at a time
 * (as many as the planned scratch holds, CW_SCRATCH_BYTES asked): the band's patches are
 * transformed into V [16][C/16][T][16] (16 channels of a tile contiguous: a channel-blocked
 * tensor whose "positions" are the band's T tiles), then each component's V runs through
 * conv_blocked's micro-kernel as a 1x1 convolution by that component's U (in chunks of input
 * blocks, as conv_blocked), into m [16][M/16][T][16], and each tile's m goes back through A
 * into the result with the bias, residual and activation. Runtime side: no allocation, no
 * stdio; without scratch it falls back to a direct conv (cw_direct). */
#include "kernel_conv_winograd.h"

#include "kernel_conv_blocked.h"
#include "kernel_isa.h"
#include "kernel_scratch.h"
#include "kernel_util.h"

#include <string.h>

enum { CW_STRIDES, CW_PADS, CW_DILATIONS, CW_GROUP, CW_ACT, CW_ACT_ALPHA, CW_ACT_BETA, CW_WSHAPE };

#define CW_K BERTH_WINOGRAD_COMPONENTS
#define CW_B BERTH_CONV_BLOCK
/* The scratch a call asks for: every tile's V and products when they take at most
 * CW_WHOLE_BYTES (the weights, 16/9 the direct ones, then stream once: ResNet-50's 256 -> 256
 * on 14x14 0.64 of the direct time against 0.79 in bands of 768 KiB), else equal bands of at
 * most CW_BAND_BYTES (a band in the level-2 cache). */
#define CW_WHOLE_BYTES (2048 * 1024)
#define CW_BAND_BYTES (1024 * 1024)

void berth_conv_winograd_pack_weights(const berth_type_t *w, const float *src, float *dst, berth_type_t *packed) {
  const int64_t m = w->dims[0], c = w->dims[1], mb = m / CW_B, cb = c / CW_B;
  static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (int64_t o = 0; o < m; o++)
    for (int64_t i = 0; i < c; i++) {
      const float *g = src + (o * c + i) * 9;
      double gg[4][3]; /* G g */
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 3; b++) gg[a][b] = G[a][0] * g[0 * 3 + b] + G[a][1] * g[1 * 3 + b] + G[a][2] * g[2 * 3 + b];
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
          const double u = gg[a][0] * G[b][0] + gg[a][1] * G[b][1] + gg[a][2] * G[b][2];
          const int64_t k = a * 4 + b;
          dst[(((k * mb + o / CW_B) * cb + i / CW_B) * CW_B + i % CW_B) * CW_B + o % CW_B] = (float)u;
        }
    }
  berth_kernel_type_init(packed, BERTH_DTYPE_F32, 4);
  packed->dims[0] = CW_K;
  packed->dims[1] = mb;
  packed->dims[2] = cb;
  packed->dims[3] = CW_B * CW_B;
}

/* The logical conv operand types of a call, checked: conv's own infer decides the geometry. */
static berth_status_t cw_types(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                               berth_type_t *out, berth_diag_t *diag) {
  char sa[160], sb[160];
  const berth_type_t *x = &in[0], *u = &in[1];
  const berth_attr_value_t *ws = &attrs[CW_WSHAPE], *st = &attrs[CW_STRIDES], *dl = &attrs[CW_DILATIONS];
  BERTH_TRY(berth_kernel_check_ints("conv_winograd", "wshape", ws, diag));
  if (x->dtype != BERTH_DTYPE_F32 || x->rank != 5 || x->dims[4] != CW_B)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_winograd: input %s, expected f32 [N, C/16, H, W, 16]",
                      berth_type_format(x, sa, sizeof sa));
  const int64_t cin = x->dims[1] * CW_B;
  if (ws->n != 4 || ws->ints[0] < CW_B || ws->ints[0] % CW_B || ws->ints[0] > BERTH_MAX_DIM || ws->ints[1] != cin ||
      ws->ints[2] != 3 || ws->ints[3] != 3)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv_winograd: wshape must be [M, %lld, 3, 3] with M a positive multiple of 16 (input %s)",
                      (long long)cin, berth_type_format(x, sa, sizeof sa));
  for (int32_t d = 0; d < st->n || d < dl->n; d++)
    if ((d < st->n && st->ints[d] != 1) || (d < dl->n && dl->ints[d] != 1))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_winograd: strides and dilations must be 1");
  if (attrs[CW_GROUP].i != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_winograd: group is %lld, expected 1",
                      (long long)attrs[CW_GROUP].i);
  const int64_t mb = ws->ints[0] / CW_B;
  if (u->dtype != BERTH_DTYPE_F32 || u->rank != 4 || u->dims[0] != CW_K || u->dims[1] != mb ||
      u->dims[2] != x->dims[1] || u->dims[3] != CW_B * CW_B)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv_winograd: transformed weights %s, expected f32 [16, %lld, %lld, 256] for wshape [%lld, %lld, 3, 3]",
                      berth_type_format(u, sa, sizeof sa), (long long)mb, (long long)x->dims[1],
                      (long long)ws->ints[0], (long long)cin);
  berth_type_t tin[3];
  berth_kernel_type_init(&tin[0], BERTH_DTYPE_F32, 4);
  tin[0].dims[0] = x->dims[0];
  tin[0].dims[1] = cin;
  tin[0].dims[2] = x->dims[2];
  tin[0].dims[3] = x->dims[3];
  berth_kernel_type_init(&tin[1], BERTH_DTYPE_F32, 4);
  for (int d = 0; d < 4; d++) tin[1].dims[d] = ws->ints[d];
  if (n_in >= 3) {
    BERTH_TRY(berth_kernel_check_same_dtype("conv_winograd", in, 0, 2, diag));
    tin[2] = in[2];
  }
  berth_type_t lo;
  berth_status_t s = berth_conv_infer(attrs, tin, n_in >= 3 ? 3 : 2, &lo, diag);
  if (s) return berth_fail_prefix(diag, s, "conv_winograd (as conv)");
  berth_kernel_type_init(out, BERTH_DTYPE_F32, 5);
  out->dims[0] = lo.dims[0];
  out->dims[1] = mb;
  out->dims[2] = lo.dims[2];
  out->dims[3] = lo.dims[3];
  out->dims[4] = CW_B;
  if (n_in == 4 && !berth_type_equal(&in[3], out))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_winograd: residual %s, expected the result's type %s",
                      berth_type_format(&in[3], sa, sizeof sa), berth_type_format(out, sb, sizeof sb));
  return BERTH_OK;
}

static berth_status_t cw_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                               berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_conv_winograd, in, n_in, diag));
  BERTH_TRY(cw_types(attrs, in, n_in, out, diag));
  return berth_kernel_check_output("conv_winograd", out, diag);
}

typedef struct cw_plan {
  int64_t h, w, oh, ow, pt, pl; /* input and output planes, padding at the start */
  int64_t th, tw;               /* tile rows and columns */
  int64_t cb, mb;               /* input and output blocks */
  const float *u, *bias;
  int act;
  float alpha, beta;
} cw_plan_t;

/* Floats of scratch per tile: its V and its products. */
static int64_t cw_tile_floats(int64_t cb, int64_t mb) { return CW_K * (cb + mb) * CW_B; }

uint64_t berth_scratch_conv_winograd(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  (void)n_in;
  const berth_attr_value_t *pd = &attrs[CW_PADS];
  const int64_t oh = in[0].dims[2] + (pd->n ? pd->ints[0] + pd->ints[2] : 0) - 2;
  const int64_t ow = in[0].dims[3] + (pd->n ? pd->ints[1] + pd->ints[3] : 0) - 2;
  if (oh < 1 || ow < 1) return 0;
  const int64_t per = cw_tile_floats(in[0].dims[1], attrs[CW_WSHAPE].ints[0] / CW_B) * (int64_t)sizeof(float);
  const int64_t all = ((oh + 1) / 2) * ((ow + 1) / 2);
  if (all > INT64_MAX / per) return BERTH_SCRATCH_MAX_BYTES;
  int64_t t = all;
  if (all * per > CW_WHOLE_BYTES) {
    const int64_t per_band = CW_BAND_BYTES / per > 0 ? CW_BAND_BYTES / per : 1, bands = (all + per_band - 1) / per_band;
    t = (all + bands - 1) / bands;
  }
  return berth_scratch_request((uint64_t)t * (uint64_t)per, 1);
}

/* Tiles [t0, t0 + nt) of one image through the scratch s (nt tiles' worth). */
static void cw_band(const cw_plan_t *p, const berth_kernel_isa_t *isa, const float *x, float *y, const float *res,
                    float *s, int64_t t0, int64_t nt) {
  const int64_t plane = p->h * p->w * CW_B, oplane = p->oh * p->ow * CW_B, ts = nt * CW_B;
  float *v = s, *m = s + CW_K * p->cb * ts; /* V [16][cb][nt][16], m [16][mb][nt][16] */
  for (int64_t ib = 0; ib < p->cb; ib++) {
    const berth_wino_in_t in = {x + ib * plane, p->h, p->w, p->pt, p->pl, p->tw, t0, nt, v + ib * ts, p->cb * ts};
    isa->winograd_in_f32(&in);
  }
  const int64_t P = isa->conv_blocked_p, obm = isa->conv_blocked_ob, chunk = berth_conv_blocked_chunk(1, obm);
  static const int64_t zero = 0;
  int64_t xo[8], yo[8];
  for (int64_t k = 0; k < CW_K; k++)
    for (int64_t ob = 0; ob < p->mb; ob += obm) {
      const int64_t nob = p->mb - ob < obm ? p->mb - ob : obm;
      for (int64_t ib = 0; ib < p->cb; ib += chunk) {
        berth_conv_blk_args_t a = {
            .x = v + (k * p->cb + ib) * ts,
            .plane = ts,
            .cb = p->cb - ib < chunk ? p->cb - ib : chunk,
            .cpb = CW_B,
            .cs = 1,
            .to = &zero,
            .tw = &zero,
            .nt = 1,
            .w = p->u + ((k * p->mb + ob) * p->cb + ib) * CW_B * CW_B,
            .wob = p->cb * CW_B * CW_B,
            .wib = CW_B * CW_B,
            .nob = nob,
            .bias = NULL,
            .load = ib > 0,
            .y = m + (k * p->mb + ob) * ts,
            .yob = ts,
            .epi = NULL,
        };
        for (int64_t i = 0; i < nt; i += P) {
          const int64_t np = nt - i < P ? nt - i : P;
          for (int64_t q = 0; q < np; q++) xo[q] = yo[q] = (i + q) * CW_B;
          isa->conv_blocked_ukr_f32(&a, np, xo, yo);
        }
      }
    }
  for (int64_t ob = 0; ob < p->mb; ob++) {
    const berth_wino_out_t out = {m + ob * ts, p->mb * ts, t0, nt, p->tw, p->oh, p->ow,
                                  p->bias ? p->bias + ob * CW_B : NULL, res ? res + ob * oplane : NULL,
                                  p->act, p->alpha, p->beta, y + ob * oplane};
    isa->winograd_out_f32(&out);
  }
}

/* One image without scratch (a file that planned less than one tile's worth): a direct conv
 * whose 3x3 filters come back from the transformed ones, g = L U L^T with L's rows (1 0 0 0),
 * (0 1 -1 0), (0 0 0 1) (G's left inverse: exact in real arithmetic, here within the rounding
 * of U), summed from the bias over the input channels in order, each over its taps in order.
 * Slow, and a few bytes of stack. */
static float cw_filter(const cw_plan_t *p, int64_t ob, int64_t ib, int64_t c, int64_t l, int a, int b) {
  static const int first[3] = {0, 1, 3}; /* L's row a: +U[first], and -U[2] for row 1 */
  float g = 0;
  for (int i = 0; i < (a == 1 ? 2 : 1); i++)
    for (int j = 0; j < (b == 1 ? 2 : 1); j++) {
      const int ki = i ? 2 : first[a], kj = j ? 2 : first[b];
      const float u = p->u[((((int64_t)(ki * 4 + kj) * p->mb + ob) * p->cb + ib) * CW_B + c) * CW_B + l];
      g += (i ^ j) ? -u : u;
    }
  return g;
}

static void cw_direct(const cw_plan_t *p, const float *x, float *y, const float *res) {
  const int64_t plane = p->h * p->w * CW_B, oplane = p->oh * p->ow * CW_B;
  for (int64_t ob = 0; ob < p->mb; ob++)
    for (int64_t r = 0; r < p->oh; r++)
      for (int64_t q = 0; q < p->ow; q++)
        for (int64_t l = 0; l < CW_B; l++) {
          float s = p->bias ? p->bias[ob * CW_B + l] : 0.0f;
          for (int64_t ib = 0; ib < p->cb; ib++)
            for (int64_t c = 0; c < CW_B; c++)
              for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                  const int64_t i = r - p->pt + a, j = q - p->pl + b;
                  if (i < 0 || i >= p->h || j < 0 || j >= p->w) continue;
                  s += x[ib * plane + (i * p->w + j) * CW_B + c] * cw_filter(p, ob, ib, c, l, a, b);
                }
          const int64_t at = ob * oplane + (r * p->ow + q) * CW_B + l;
          if (res) s += res[at];
          switch (p->act) {
            case BERTH_UKR_ACT_RELU: s = s < 0 ? 0 : s; break;
            case BERTH_UKR_ACT_CLIP: s = s < p->alpha ? p->alpha : s, s = s > p->beta ? p->beta : s; break;
            case BERTH_UKR_ACT_LEAKY_RELU: s = s < 0 ? p->alpha * s : s; break;
            default: break;
          }
          y[at] = s;
        }
}

static void cw_run(const berth_kernel_call_t *call) {
  if (berth_kernel_is_empty(call->out[0].type)) return;
  const berth_attr_value_t *at = call->attrs, *pd = &at[CW_PADS];
  const berth_type_t *xt = call->in[0].type, *ot = call->out[0].type;
  cw_plan_t p = {
      .h = xt->dims[2],
      .w = xt->dims[3],
      .oh = ot->dims[2],
      .ow = ot->dims[3],
      .pt = pd->n ? pd->ints[0] : 0,
      .pl = pd->n ? pd->ints[1] : 0,
      .th = (ot->dims[2] + 1) / 2,
      .tw = (ot->dims[3] + 1) / 2,
      .cb = xt->dims[1],
      .mb = ot->dims[1],
      .u = (const float *)call->in[1].data,
      .bias = call->n_in >= 3 ? (const float *)call->in[2].data : NULL,
      .act = (int)at[CW_ACT].i,
      .alpha = (float)at[CW_ACT_ALPHA].f,
      .beta = (float)at[CW_ACT_BETA].f,
  };
  const berth_kernel_isa_t *isa = berth_kernel_isa();
  int64_t n;
  float *s = (float *)berth_scratch_take(call, sizeof(float), &n);
  const int64_t all = p.th * p.tw, per = cw_tile_floats(p.cb, p.mb);
  int64_t band = n / per < all ? n / per : all;
  if (band > 0) { /* equal bands */
    const int64_t bands = (all + band - 1) / band;
    band = (all + bands - 1) / bands;
  }
  const float *x = (const float *)call->in[0].data, *res = call->n_in >= 4 ? (const float *)call->in[3].data : NULL;
  float *y = (float *)call->out[0].data;
  for (int64_t b = 0; b < xt->dims[0]; b++) {
    const float *xn = x + b * p.cb * p.h * p.w * CW_B, *rn = res ? res + b * p.mb * p.oh * p.ow * CW_B : NULL;
    float *yn = y + b * p.mb * p.oh * p.ow * CW_B;
    if (band == 0) cw_direct(&p, xn, yn, rn);
    for (int64_t t = 0; band > 0 && t < all; t += band) cw_band(&p, isa, xn, yn, rn, s, t, all - t < band ? all - t : band);
  }
}

static const berth_attr_spec_t cw_attrs[] = {
    {"strides", BERTH_ATTR_INTS, false, 0, 0},  {"pads", BERTH_ATTR_INTS, false, 0, 0},
    {"dilations", BERTH_ATTR_INTS, false, 0, 0}, {"group", BERTH_ATTR_INT, false, 1, 0},
    {"act", BERTH_ATTR_INT, false, 0, 0},        {"act_alpha", BERTH_ATTR_SCALAR, false, 0, 0},
    {"act_beta", BERTH_ATTR_SCALAR, false, 0, 0}, {"wshape", BERTH_ATTR_INTS, true, 0, 0}};
const berth_op_def_t berth_op_def_conv_winograd = {"conv_winograd", BERTH_OPKIND_KERNEL, 2, 4, 1, 8, cw_attrs,
                                                   cw_infer, cw_run};
