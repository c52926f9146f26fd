/* col2im(x) {image, block, strides, pads, dilations}: ONNX Col2Im, 1 to 6 spatial dims.
 *
 * x is [N, C * prod(block), L]; the result is [N, C, image...]. Column l is the l-th block
 * position in row-major order over the n_d = (image_d + pads - dilation_d * (block_d - 1) - 1)
 * / stride_d + 1 positions per dim, and L must be their product. Every element of a block
 * is added into the image at l_d * stride_d + k_d * dilation_d - pad_begin_d when that lies
 * inside. Empty strides, pads and dilations lists mean 1, 0 and 1. f32 and f64. */
#include "kernel_util.h"

#include <string.h>

enum { C2I_IMAGE, C2I_BLOCK, C2I_STRIDES, C2I_PADS, C2I_DILATIONS };

#define C2I_MAX_DIMS 4

typedef struct c2i_plan {
  int32_t r;
  int64_t n, c, l, kk, il;
  int64_t img[C2I_MAX_DIMS], blk[C2I_MAX_DIMS], st[C2I_MAX_DIMS], pad[C2I_MAX_DIMS], dil[C2I_MAX_DIMS],
      cnt[C2I_MAX_DIMS];
} c2i_plan_t;

static berth_status_t c2i_plan(const berth_attr_value_t *attrs, const berth_type_t *x, c2i_plan_t *p,
                               berth_type_t *out, berth_diag_t *diag) {
  static const char *const names[5] = {"image", "block", "strides", "pads", "dilations"};
  char sa[160];
  int32_t r = attrs[C2I_IMAGE].n;
  for (int a = 0; a < 5; a++) BERTH_TRY(berth_kernel_check_ints("col2im", names[a], &attrs[a], diag));
  if (x->rank != 3 || r < 1 || r > C2I_MAX_DIMS || attrs[C2I_BLOCK].n != r)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "col2im: input %s with %d image and %d block dims, expected [N, C*K, L] and 1 to %d dims",
                      berth_type_format(x, sa, sizeof sa), (int)r, (int)attrs[C2I_BLOCK].n, C2I_MAX_DIMS);
  for (int a = C2I_STRIDES; a <= C2I_DILATIONS; a++) {
    int32_t want = a == C2I_PADS ? 2 * r : r;
    if (attrs[a].n != 0 && attrs[a].n != want)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "col2im: %s has %d values, expected %d (or none)", names[a],
                        (int)attrs[a].n, (int)want);
  }
  p->r = r;
  p->n = x->dims[0];
  p->l = 1;
  p->kk = 1;
  p->il = 1;
  for (int32_t d = 0; d < r; d++) {
    p->img[d] = attrs[C2I_IMAGE].ints[d];
    p->blk[d] = attrs[C2I_BLOCK].ints[d];
    p->st[d] = attrs[C2I_STRIDES].n ? attrs[C2I_STRIDES].ints[d] : 1;
    p->dil[d] = attrs[C2I_DILATIONS].n ? attrs[C2I_DILATIONS].ints[d] : 1;
    p->pad[d] = attrs[C2I_PADS].n ? attrs[C2I_PADS].ints[d] : 0;
    int64_t pe = attrs[C2I_PADS].n ? attrs[C2I_PADS].ints[r + d] : 0;
    if (p->img[d] < 1 || p->img[d] > BERTH_MAX_DIM || p->blk[d] < 1 || p->blk[d] > BERTH_MAX_DIM || p->st[d] < 1 ||
        p->st[d] > BERTH_MAX_DIM || p->dil[d] < 1 || p->dil[d] > BERTH_MAX_DIM || p->pad[d] < 0 ||
        p->pad[d] > BERTH_MAX_DIM || pe < 0 || pe > BERTH_MAX_DIM)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "col2im: dim %d has image %lld, block %lld, stride %lld, dilation %lld, pads %lld and %lld; "
                        "expected sizes 1 to 2^40 and pads 0 to 2^40",
                        (int)d, (long long)p->img[d], (long long)p->blk[d], (long long)p->st[d], (long long)p->dil[d],
                        (long long)p->pad[d], (long long)pe);
    int64_t padded = p->img[d] + p->pad[d] + pe;
    if (p->blk[d] - 1 > (padded - 1) / p->dil[d])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "col2im: block %lld with dilation %lld exceeds the padded "
                        "image (%lld) in dim %d", (long long)p->blk[d], (long long)p->dil[d], (long long)padded, (int)d);
    p->cnt[d] = (padded - (p->dil[d] * (p->blk[d] - 1) + 1)) / p->st[d] + 1;
    if (p->l > BERTH_MAX_DIM / p->cnt[d] || p->kk > BERTH_MAX_DIM / p->blk[d] || p->il > BERTH_MAX_DIM / p->img[d])
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "col2im: the image or block is too large");
    p->l *= p->cnt[d];
    p->kk *= p->blk[d];
    p->il *= p->img[d];
  }
  if (x->dims[1] % p->kk != 0 || x->dims[2] != p->l)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "col2im: input %s must be [N, C * %lld, %lld] for these image and block shapes",
                      berth_type_format(x, sa, sizeof sa), (long long)p->kk, (long long)p->l);
  p->c = x->dims[1] / p->kk;
  berth_kernel_type_init(out, x->dtype, 2 + r);
  out->dims[0] = p->n;
  out->dims[1] = p->c;
  for (int32_t d = 0; d < r; d++) out->dims[2 + d] = p->img[d];
  return BERTH_OK;
}

static berth_status_t col2im_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_col2im, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("col2im", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  c2i_plan_t p;
  BERTH_TRY(c2i_plan(attrs, &in[0], &p, &out[0], diag));
  return berth_kernel_check_output("col2im", &out[0], diag);
}

#define C2I_RUN_FN(s, T)                                                                          \
  static void c2i_run_##s(const c2i_plan_t *p, const T *x, T *y) {                                \
    int64_t ist[C2I_MAX_DIMS];                                                                    \
    ist[p->r - 1] = 1;                                                                            \
    for (int32_t d = p->r - 2; d >= 0; d--) ist[d] = ist[d + 1] * p->img[d + 1];                 \
    memset(y, 0, sizeof(T) * (size_t)(p->n * p->c * p->il));                                      \
    for (int64_t nc = 0; nc < p->n * p->c; nc++) {                                                \
      T *yc = y + nc * p->il;                                                                     \
      int64_t k[C2I_MAX_DIMS] = {0};                                                              \
      for (int64_t kk = 0; kk < p->kk; kk++) {                                                    \
        const T *xr = x + (nc * p->kk + kk) * p->l;                                               \
        int64_t l[C2I_MAX_DIMS] = {0};                                                            \
        for (int64_t li = 0; li < p->l; li++) {                                                   \
          int64_t off = 0;                                                                        \
          bool in = true;                                                                         \
          for (int32_t d = 0; d < p->r && in; d++) {                                              \
            int64_t pos = l[d] * p->st[d] + k[d] * p->dil[d] - p->pad[d];                         \
            in = pos >= 0 && pos < p->img[d];                                                     \
            off += pos * ist[d];                                                                  \
          }                                                                                       \
          if (in) yc[off] += xr[li];                                                              \
          for (int32_t d = p->r - 1; d >= 0; d--) {                                               \
            if (++l[d] < p->cnt[d]) break;                                                        \
            l[d] = 0;                                                                             \
          }                                                                                       \
        }                                                                                         \
        for (int32_t d = p->r - 1; d >= 0; d--) {                                                 \
          if (++k[d] < p->blk[d]) break;                                                          \
          k[d] = 0;                                                                               \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }
C2I_RUN_FN(f32, float)
C2I_RUN_FN(f64, double)

static void col2im_run(const berth_kernel_call_t *call) {
  c2i_plan_t p;
  berth_type_t t;
  if (c2i_plan(call->attrs, call->in[0].type, &p, &t, NULL) != BERTH_OK) return; /* infer accepted it */
  if (berth_kernel_is_empty(&t)) return;
  if (call->in[0].type->dtype == BERTH_DTYPE_F32) c2i_run_f32(&p, call->in[0].data, call->out[0].data);
  else c2i_run_f64(&p, call->in[0].data, call->out[0].data);
}

static const berth_attr_spec_t col2im_attrs[] = {
    {"image", BERTH_ATTR_INTS, true, 0, 0},     {"block", BERTH_ATTR_INTS, true, 0, 0},
    {"strides", BERTH_ATTR_INTS, false, 0, 0},  {"pads", BERTH_ATTR_INTS, false, 0, 0},
    {"dilations", BERTH_ATTR_INTS, false, 0, 0},
};
const berth_op_def_t berth_op_def_col2im = {"col2im", BERTH_OPKIND_KERNEL, 1, 1, 1, 5, col2im_attrs, col2im_infer,
                                            col2im_run};
