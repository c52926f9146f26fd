/* conv(x, w[, b[, r]]) {strides, pads, dilations, group}: ONNX Conv for 1-, 2- and 3-D inputs.
 *
 * x is [N, C, D...], w [M, C/group, K...], b [M]; the result is [N, M, O...] with
 *   O = (D + pad_begin + pad_end - dilation * (K - 1) - 1) / stride + 1   (floor).
 * Empty attribute lists mean strides 1, pads 0, dilations 1. f32 and f64; f32 accumulates
 * in f32 as ONNX runtimes do. A kernel larger than the padded input is rejected (ONNX
 * leaves it undefined; PyTorch rejects it too).
 *
 * act {act_alpha, act_beta}: an activation applied to each output in the kernel's epilogue
 * (the ONNX importer fuses a Relu, Clip or LeakyRelu that is a conv's only reader, see
 * src/passes/fuse.c), with exactly the formulas of the separate kernels, in the dtype:
 *   0 none;  1 relu: y < 0 ? 0 : y;  2 clip: min(max(y, act_alpha), act_beta) (clip's loop);
 *   3 leaky_relu: y < 0 ? act_alpha * y : y.
 *
 * r: a residual of the result's type, added before the activation: y = act((conv + b) + r),
 * the same bits as the separate add (and activation) kernels (the ONNX importer fuses an add
 * of a conv's only reader whose other operand is ready before the conv, see src/passes/fuse.c:
 * ResNet's shortcuts). It is added in the epilogue together with the activation: on the
 * packed GEMM path by the micro-kernel, on each tile's accumulators before they are stored
 * (kernel_isa.h's berth_ukr_epi_t), on conv_packed's narrow path as its transposed result goes
 * to y, on the other paths in one pass over each group's outputs; so neither the add nor the
 * activation makes a round trip through memory of its own.
 *
 * Method: every output element is a dot product of a weight row w[m] (C/group * K values,
 * contiguous) with the input patch under the kernel window. Patches for a block of output
 * positions are packed into the call's scratch (zeros where the window hangs over the
 * padding), then each group of four output channels takes one dot4 pass per position:
 * four weight rows against one patch, vectorized (kernel_dot.h). The patch of a long
 * window is packed in chunks of whole kernel rows and the partial sums accumulate in the
 * output. This suits the shapes of audio models (many channels, short kernels, few output
 * positions per frame) and is a packed GEMM for large images. A kernel row longer than the
 * scratch (rare, or no scratch at all) takes a direct loop instead.
 *
 * The scratch is planned in the arena by the compiler with the node's lifetime
 * (berth_scratch_conv below; kernel_scratch.h): nothing on the stack. Less of it (a program
 * compiled with a cap, a hand-made one without) only makes the chunks smaller or takes the
 * direct loop, so the results are the same up to the order of the sums
 * (tests/test_kernel_conv_scratch.c runs every path with 0, 16, 64, 1024 bytes and the
 * request). */
#include "kernel_conv_blocked.h"
#include "kernel_conv_direct.h"
#include "kernel_conv_rows.h"
#include "kernel_conv_dw.h"
#include "kernel_conv_small.h"
#include "kernel_dot.h"
#include "kernel_gemm_pack.h"
#include "kernel_isa.h"
#include "kernel_scratch.h"
#include "kernel_util.h"

#include <string.h>

enum { CONV_STRIDES, CONV_PADS, CONV_DILATIONS, CONV_GROUP, CONV_ACT, CONV_ACT_ALPHA, CONV_ACT_BETA };
enum { CONV_ACT_NONE, CONV_ACT_RELU, CONV_ACT_CLIP, CONV_ACT_LEAKY_RELU, CONV_ACT_COUNT };

/* Spatial dims are normalized to 3 by prepending size-1 dims (stride 1, pad 0, dil 1). */
typedef struct conv_plan {
  int64_t n, c, m, group, cg, mg;
  int64_t in[3], k[3], out[3], stride[3], dil[3], pad[3];
  int64_t kk, ck, l, il; /* kernel elements, patch length, output and input positions */
  berth_type_t out_type;
  int64_t ap; /* conv_packed: the weight panels' height (BERTH_GEMM_APANEL or CONV_WPANEL_WIDE) */
  int act;    /* CONV_ACT_*, with its parameters */
  double act_alpha, act_beta;
} conv_plan_t;

/* a * b if it stays <= BERTH_MAX_DIM (a, b >= 0), else -1. */
static int64_t conv_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a < 0 || b < 0 || a > BERTH_MAX_DIM / b) return -1;
  return a * b;
}

static berth_status_t conv_plan(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                conv_plan_t *p, berth_diag_t *diag) {
  char sa[160], sb[160];
  const berth_type_t *x = &in[0], *w = &in[1];
  if (x->rank < 3 || x->rank > 5)
    return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED,
                      "conv: input %s has rank %d, expected 3 to 5 ([N, C, D...] with 1 to 3 spatial dims)",
                      berth_type_format(x, sa, sizeof sa), (int)x->rank);
  if (w->rank != x->rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv: weights %s have rank %d, expected %d like input %s",
                      berth_type_format(w, sa, sizeof sa), (int)w->rank, (int)x->rank,
                      berth_type_format(x, sb, sizeof sb));
  int32_t sp = x->rank - 2, off = 3 - sp;
  const berth_attr_value_t *st = &attrs[CONV_STRIDES], *pd = &attrs[CONV_PADS], *dl = &attrs[CONV_DILATIONS];
  static const char *const names[3] = {"strides", "pads", "dilations"};
  for (int a = 0; a < 3; a++) {
    const berth_attr_value_t *v = &attrs[a];
    BERTH_TRY(berth_kernel_check_ints("conv", names[a], v, diag));
    int32_t want = a == CONV_PADS ? 2 * sp : sp;
    if (v->n != 0 && v->n != want)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv: %s has %d values, expected %d (or none) for %d-D input",
                        names[a], (int)v->n, (int)want, (int)sp);
    for (int32_t i = 0; i < v->n; i++) {
      int64_t lo = a == CONV_PADS ? 0 : 1;
      if (v->ints[i] < lo || v->ints[i] > BERTH_MAX_DIM)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv: %s[%d] is %lld, expected %lld to 2^40", names[a],
                          (int)i, (long long)v->ints[i], (long long)lo);
    }
  }
  p->n = x->dims[0];
  p->c = x->dims[1];
  p->m = w->dims[0];
  p->group = attrs[CONV_GROUP].i;
  p->ap = BERTH_GEMM_APANEL;
  if (p->group < 1 || p->group > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv: group is %lld, expected >= 1", (long long)p->group);
  if (p->c % p->group != 0 || p->m % p->group != 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv: group %lld does not divide the %lld input channels of %s and the %lld output channels of "
                      "weights %s",
                      (long long)p->group, (long long)p->c, berth_type_format(x, sa, sizeof sa), (long long)p->m,
                      berth_type_format(w, sb, sizeof sb));
  const int64_t act = attrs[CONV_ACT].i;
  if (act < 0 || act >= CONV_ACT_COUNT)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv: act is %lld, expected 0 (none), 1 (relu), 2 (clip) or 3 (leaky_relu)", (long long)act);
  p->act = (int)act;
  p->act_alpha = attrs[CONV_ACT_ALPHA].f;
  p->act_beta = attrs[CONV_ACT_BETA].f;
  p->cg = p->c / p->group;
  p->mg = p->m / p->group;
  if (w->dims[1] != p->cg)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv: weights %s have %lld input channels, expected %lld (input %s has %lld channels in %lld "
                      "groups)",
                      berth_type_format(w, sa, sizeof sa), (long long)w->dims[1], (long long)p->cg,
                      berth_type_format(x, sb, sizeof sb), (long long)p->c, (long long)p->group);
  if (n_in >= 3) {
    const berth_type_t *b = &in[2];
    if (b->rank != 1 || b->dims[0] != p->m)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv: bias %s has the wrong shape, expected [%lld]",
                        berth_type_format(b, sa, sizeof sa), (long long)p->m);
  }
  berth_kernel_type_init(&p->out_type, x->dtype, x->rank);
  p->out_type.dims[0] = p->n;
  p->out_type.dims[1] = p->m;
  p->kk = 1;
  p->il = 1;
  p->l = 1;
  for (int32_t d = 0; d < 3; d++) {
    int32_t s = d - off; /* index into the attribute lists, < 0 for an added dim */
    p->in[d] = s < 0 ? 1 : x->dims[2 + s];
    p->k[d] = s < 0 ? 1 : w->dims[2 + s];
    p->stride[d] = s >= 0 && st->n ? st->ints[s] : 1;
    p->dil[d] = s >= 0 && dl->n ? dl->ints[s] : 1;
    p->pad[d] = s >= 0 && pd->n ? pd->ints[s] : 0;
    int64_t pad_end = s >= 0 && pd->n ? pd->ints[sp + s] : 0;
    if (p->k[d] < 1)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv: weights %s have an empty kernel, expected sizes >= 1",
                        berth_type_format(w, sa, sizeof sa));
    int64_t padded = p->in[d] + p->pad[d] + pad_end; /* <= 3 * 2^40 */
    if (padded < 1 || p->k[d] - 1 > (padded - 1) / p->dil[d])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "conv: kernel %lld with dilation %lld spans more than the padded input (%lld) in spatial dim %d "
                        "of input %s",
                        (long long)p->k[d], (long long)p->dil[d], (long long)padded, (int)s,
                        berth_type_format(x, sa, sizeof sa));
    p->out[d] = (padded - (p->dil[d] * (p->k[d] - 1) + 1)) / p->stride[d] + 1;
    if (s >= 0) p->out_type.dims[2 + s] = p->out[d];
    p->kk = conv_mul(p->kk, p->k[d]);
    p->il = conv_mul(p->il, p->in[d]);
    p->l = conv_mul(p->l, p->out[d]);
    if (p->kk < 0 || p->il < 0 || p->l < 0)
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "conv: input %s with weights %s is too large (over 2^40 elements)",
                        berth_type_format(x, sa, sizeof sa), berth_type_format(w, sb, sizeof sb));
  }
  p->ck = conv_mul(p->cg, p->kk);
  if (p->ck < 0)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "conv: weights %s are too large (over 2^40 elements per channel)",
                      berth_type_format(w, sa, sizeof sa));
  if (n_in == 4 && !berth_type_equal(&in[3], &p->out_type))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv: residual %s, expected the result's type %s",
                      berth_type_format(&in[3], sa, sizeof sa), berth_type_format(&p->out_type, sb, sizeof sb));
  return BERTH_OK;
}

static berth_status_t conv_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                 berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_conv, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("conv", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  for (int32_t i = 1; i < n_in; i++) BERTH_TRY(berth_kernel_check_same_dtype("conv", in, 0, i, diag));
  conv_plan_t p;
  BERTH_TRY(conv_plan(attrs, in, n_in, &p, diag));
  BERTH_TRY(berth_kernel_check_output("conv", &p.out_type, diag));
  out[0] = p.out_type;
  return BERTH_OK;
}

/* ---- run ---------------------------------------------------------------------------- */

/* Scratch (kernel_scratch.h, planned in the arena with the node's lifetime): what conv asks
 * for, in elements. The patch chunks of the dot4xn path take up to CONV_DOT_SCRATCH_BYTES (a
 * chunk of 8 positions' patches stays in L1 while the weight rows pass); the packed GEMM (f32)
 * a block of panels (berth_gemm_scratch_floats: up to 512 rows of K by 128 columns, 256 KiB):
 * they stay in L2 while every tile of weights passes over them, so each tile of A is read
 * once per 128 columns instead of once per panel, and C is reloaded once per 512 rows of K
 * (against the 16 KiB stack buffer this replaced, 5-10 % faster on the ResNet-50 layers,
 * measured side by side in one process). Less scratch only makes the blocks smaller; none at
 * all (a hand-made program) leaves the direct loop. */
#define CONV_DOT_SCRATCH_BYTES 16384

/* Valid kernel taps q (0 <= q < k) for window start s: 0 <= s + q * dil < n. */
static void conv_taps(int64_t s, int64_t dil, int64_t k, int64_t n, int64_t *lo, int64_t *hi) {
  int64_t a = s >= 0 ? 0 : (-s + dil - 1) / dil;
  int64_t b = n > s ? (n - s + dil - 1) / dil : 0;
  *lo = a < k ? a : k;
  *hi = b < k ? b : k;
  if (*hi < *lo) *hi = *lo;
}

#define CONV_FN(s, T)                                                                                          \
  /* Packs the patches of positions t0..t0+tn, kernel rows r0..r0+rn, as buf[t][row * k2 + q2]. */             \
  static void conv_pack_##s(const conv_plan_t *p, const T *xg, int64_t t0, int64_t tn, int64_t r0, int64_t rn, \
                            T *restrict buf) {                                                                 \
    const int64_t k0 = p->k[0], k1 = p->k[1], k2 = p->k[2], in1 = p->in[1], in2 = p->in[2];                    \
    T *dst = buf;                                                                                              \
    for (int64_t t = t0; t < t0 + tn; t++) {                                                                   \
      int64_t o2 = t % p->out[2], o01 = t / p->out[2], o1 = o01 % p->out[1], o0 = o01 / p->out[1];             \
      int64_t s0 = o0 * p->stride[0] - p->pad[0], s1 = o1 * p->stride[1] - p->pad[1];                          \
      int64_t s2 = o2 * p->stride[2] - p->pad[2], lo, hi;                                                      \
      conv_taps(s2, p->dil[2], k2, in2, &lo, &hi);                                                             \
      /* row r is (ic, q0, q1): split r0 once, then count up (divisions are slow) */                           \
      int64_t q1 = r0 % k1, q0 = (r0 / k1) % k0, ic = r0 / k1 / k0;                                            \
      for (int64_t r = 0; r < rn; r++, dst += k2) {                                                            \
        int64_t i0 = s0 + q0 * p->dil[0], i1 = s1 + q1 * p->dil[1];                                            \
        if (i0 < 0 || i0 >= p->in[0] || i1 < 0 || i1 >= in1 || lo == hi) {                                     \
          for (int64_t q = 0; q < k2; q++) dst[q] = 0;                                                         \
        } else {                                                                                               \
          /* an index, not a pointer: the window start s2 may lie before the row */                            \
          const int64_t base = ic * p->il + (i0 * in1 + i1) * in2 + s2;                                        \
          int64_t q = 0;                                                                                       \
          for (; q < lo; q++) dst[q] = 0;                                                                      \
          if (p->dil[2] == 1 && hi - lo >= 16) {                                                               \
            memcpy(dst + lo, xg + base + lo, (size_t)(hi - lo) * sizeof(T));                                   \
            q = hi;                                                                                            \
          } else {                                                                                             \
            for (; q < hi; q++) dst[q] = xg[base + q * p->dil[2]];                                             \
          }                                                                                                    \
          for (; q < k2; q++) dst[q] = 0;                                                                      \
        }                                                                                                      \
        if (++q1 == k1) {                                                                                      \
          q1 = 0;                                                                                              \
          if (++q0 == k0) {                                                                                    \
            q0 = 0;                                                                                            \
            ic++;                                                                                              \
          }                                                                                                    \
        }                                                                                                      \
      }                                                                                                        \
    }                                                                                                          \
  }                                                                                                            \
                                                                                                               \
  /* One output element the direct way, for kernel rows too long for the buffer. */                            \
  static T conv_point_##s(const conv_plan_t *p, const T *xg, const T *wm, int64_t t) {                         \
    int64_t o2 = t % p->out[2], o01 = t / p->out[2], o1 = o01 % p->out[1], o0 = o01 / p->out[1];               \
    int64_t s0 = o0 * p->stride[0] - p->pad[0], s1 = o1 * p->stride[1] - p->pad[1];                            \
    int64_t s2 = o2 * p->stride[2] - p->pad[2], lo, hi;                                                        \
    conv_taps(s2, p->dil[2], p->k[2], p->in[2], &lo, &hi);                                                     \
    T acc = 0;                                                                                                 \
    for (int64_t ic = 0; ic < p->cg; ic++)                                                                     \
      for (int64_t q0 = 0; q0 < p->k[0]; q0++) {                                                               \
        int64_t i0 = s0 + q0 * p->dil[0];                                                                      \
        if (i0 < 0 || i0 >= p->in[0]) continue;                                                                \
        for (int64_t q1 = 0; q1 < p->k[1]; q1++) {                                                             \
          int64_t i1 = s1 + q1 * p->dil[1];                                                                    \
          if (i1 < 0 || i1 >= p->in[1]) continue;                                                              \
          const int64_t base = ic * p->il + (i0 * p->in[1] + i1) * p->in[2] + s2;                              \
          const T *wr = wm + ((ic * p->k[0] + q0) * p->k[1] + q1) * p->k[2];                                   \
          for (int64_t q = lo; q < hi; q++) acc += wr[q] * xg[base + q * p->dil[2]];                           \
        }                                                                                                      \
      }                                                                                                        \
    return acc;                                                                                                \
  }                                                                                                            \
                                                                                                               \
  /* One input and one output channel per group (depthwise): no packing; per kernel                  \
   * tap, a run of output positions adds that tap's weight times the input row (vectorizes                     \
   * with stride 1). Taps over the padding are skipped, not multiplied by zeros. */                            \
  static void conv_depthwise_##s(const conv_plan_t *p, const T *xg, const T *wg, const T *bg, T *yg) {         \
    const int64_t O1 = p->out[1], O2 = p->out[2], k0 = p->k[0], k1 = p->k[1], k2 = p->k[2];                    \
    const int64_t st2 = p->stride[2], in1 = p->in[1], in2 = p->in[2];                                          \
    for (int64_t m = 0; m < p->mg; m++) {                                                                      \
      const T *w = wg + m * p->kk;                                                                             \
      T *y = yg + m * p->l;                                                                                    \
      const T b = bg ? bg[m] : 0;                                                                              \
      for (int64_t t = 0; t < p->l; t++) y[t] = b;                                                             \
      for (int64_t o0 = 0; o0 < p->out[0]; o0++)                                                               \
        for (int64_t o1 = 0; o1 < O1; o1++) {                                                                  \
          T *restrict yr = y + (o0 * O1 + o1) * O2;                                                            \
          for (int64_t q0 = 0; q0 < k0; q0++) {                                                                \
            const int64_t i0 = o0 * p->stride[0] - p->pad[0] + q0 * p->dil[0];                                 \
            if (i0 < 0 || i0 >= p->in[0]) continue;                                                            \
            for (int64_t q1 = 0; q1 < k1; q1++) {                                                              \
              const int64_t i1 = o1 * p->stride[1] - p->pad[1] + q1 * p->dil[1];                               \
              if (i1 < 0 || i1 >= in1) continue;                                                               \
              const T *xr = xg + (i0 * in1 + i1) * in2;                                                        \
              for (int64_t q2 = 0; q2 < k2; q2++) {                                                            \
                const T wv = w[(q0 * k1 + q1) * k2 + q2];                                                      \
                /* positions o2 with 0 <= o2 * st2 + off < in2 */                                              \
                const int64_t off = q2 * p->dil[2] - p->pad[2];                                                \
                /* (divisions only for strides above 1: they cost more than a short row) */                    \
                const int64_t lo = off >= 0 ? 0 : st2 == 1 ? -off : (-off + st2 - 1) / st2;                    \
                int64_t hi = in2 - 1 - off < 0 ? 0 : st2 == 1 ? in2 - off : (in2 - 1 - off) / st2 + 1;          \
                if (hi > O2) hi = O2;                                                                          \
                if (lo >= hi) continue;                                                                        \
                const T *restrict xs = xr + lo * st2 + off;                                                    \
                if (st2 == 1)                                                                                  \
                  for (int64_t o = 0; o < hi - lo; o++) yr[lo + o] += wv * xs[o];                              \
                else                                                                                           \
                  for (int64_t o = 0; o < hi - lo; o++) yr[lo + o] += wv * xs[o * st2];                        \
              }                                                                                                \
            }                                                                                                  \
          }                                                                                                    \
        }                                                                                                      \
    }                                                                                                          \
  }                                                                                                            \
                                                                                                               \
  /* The group's outputs; true if the epilogue (act, residual rg) was applied too. */                           \
  static bool conv_group_##s(const conv_plan_t *p, const T *xg, const T *wg, const T *bg, T *yg, const T *rg, \
                             T *restrict buf, int64_t BUFN) {                                                  \
    const int64_t k2 = p->k[2], rows = p->ck / k2, l = p->l, mg = p->mg, ck = p->ck;                           \
    if (p->cg == 1 && mg == 1) {                                                                               \
      conv_depthwise_##s(p, xg, wg, bg, yg);                                                                   \
      return false;                                                                                            \
    }                                                                                                          \
    const int fast = CONV_FAST_##s(p, xg, wg, bg, yg, rg, buf, BUFN);                                          \
    if (fast) return fast == 2;                                                                                \
    if (k2 > BUFN) { /* (also without scratch: BUFN 0) */                                                     \
      for (int64_t m = 0; m < mg; m++)                                                                         \
        for (int64_t t = 0; t < l; t++) yg[m * l + t] = (bg ? bg[m] : 0) + conv_point_##s(p, xg, wg + m * ck, t); \
      return false;                                                                                            \
    }                                                                                                          \
    /* Chunk: up to 8 positions (so a weight row chunk is reused from cache), as many whole                    \
     * kernel rows as fit, then as many positions as fit with those rows. */                                   \
    int64_t t_want = l < 8 ? l : 8;                                                                            \
    int64_t rb = BUFN / (k2 * t_want);                                                                         \
    if (rb < 1) rb = 1;                                                                                        \
    if (rb > rows) rb = rows;                                                                                  \
    int64_t tb = BUFN / (rb * k2);                                                                             \
    if (tb > l) tb = l;                                                                                        \
    for (int64_t m = 0; m < mg; m++) /* the sums of every chunk accumulate on the bias */                    \
      for (int64_t t = 0; t < l; t++) yg[m * l + t] = bg ? bg[m] : 0;                                         \
    for (int64_t t0 = 0; t0 < l; t0 += tb) {                                                                   \
      int64_t tn = l - t0 < tb ? l - t0 : tb;                                                                  \
      for (int64_t r0 = 0; r0 < rows; r0 += rb) {                                                              \
        int64_t rn = rows - r0 < rb ? rows - r0 : rb, cn = rn * k2, c0 = r0 * k2;                              \
        conv_pack_##s(p, xg, t0, tn, r0, rn, buf);                                                             \
        int64_t m = 0;                                                                                         \
        for (; m + 4 <= mg; m += 4) /* four weight rows against tn patches, added to y */                      \
          CONV_DOT4XN_##s(wg + m * ck + c0, ck, buf, cn, tn, cn, yg + m * l + t0, l);                          \
        for (; m < mg; m++) {                                                                                  \
          const T *w0 = wg + m * ck + c0;                                                                      \
          T *y0 = yg + m * l + t0;                                                                             \
          for (int64_t t = 0; t < tn; t++) y0[t] += CONV_DOT_##s(w0, buf + t * cn, cn);                        \
        }                                                                                                      \
      }                                                                                                        \
    }                                                                                                          \
    return false;                                                                                              \
  }                                                                                                            \
                                                                                                               \
  static void conv_run_##s(const conv_plan_t *p, const T *x, const T *w, const T *b, const T *r, T *y,       \
                           T *restrict buf, int64_t bufn) {                                                    \
    for (int64_t n = 0; n < p->n; n++) {                                                                       \
      if (p->cg == 1 && CONV_DW_##s(p, x + n * p->c * p->il, w, b, y + n * p->m * p->l,                        \
                                    r ? r + n * p->m * p->l : NULL, buf, bufn))                                \
        continue;                                                                                              \
      for (int64_t g = 0; g < p->group; g++) {                                                                 \
        const T *xg = x + (n * p->c + g * p->cg) * p->il;                                                      \
        const T *bg = b ? b + g * p->mg : NULL;                                                                \
        T *yg = y + (n * p->m + g * p->mg) * p->l;                                                             \
        const T *rg = r ? r + (n * p->m + g * p->mg) * p->l : NULL;                                            \
        bool done = false;                                                                                     \
        if (p->ck == 0) { /* no input channels: the bias alone */                                              \
          for (int64_t m = 0; m < p->mg; m++)                                                                  \
            for (int64_t t = 0; t < p->l; t++) yg[m * p->l + t] = bg ? bg[m] : 0;                              \
        } else {                                                                                               \
          done = conv_group_##s(p, xg, w + g * p->mg * p->ck, bg, yg, rg, buf, bufn);                          \
        }                                                                                                      \
        /* the epilogue on the group's outputs, still in cache (the packed GEMM's runs per tile) */           \
        if ((p->act || r) && !done) conv_epi_##s(yg, rg, p->mg * p->l, p);                                     \
      }                                                                                                        \
    }                                                                                                          \
  }

/* out[r * ldo + c] += dot(w row r, patch c): f32 through the kernel variant (kernel_isa.h),
 * f64 with kernel_dot.h (the portable f32 variant is this same loop). */
#define CONV_DOT4XN_f32 BERTH_KCALL(dot4xn_f32)
#define CONV_DOT_f32 BERTH_KCALL(dot_f32)
#define CONV_DOT_f64 berth_dot_f64
static void CONV_DOT4XN_f64(const double *w, int64_t ldw, const double *x, int64_t ldx, int64_t cols, int64_t n,
                            double *out, int64_t ldo) {
  for (int64_t c = 0; c < cols; c++) {
    double d[4];
    berth_dot4_f64(w, w + ldw, w + 2 * ldw, w + 3 * ldw, x + c * ldx, n, d);
    for (int r = 0; r < 4; r++) out[r * ldo + c] += d[r];
  }
}

static bool conv_is_1x1(const conv_plan_t *p) {
  for (int d = 0; d < 3; d++)
    if (p->k[d] != 1 || p->stride[d] != 1 || p->pad[d] != 0 || p->out[d] != p->in[d]) return false;
  return true;
}

static void conv_epi_f32(float *restrict y, const float *restrict r, int64_t n, const conv_plan_t *p);

#ifdef BERTH_KERNELS_SIMD
/* ---- f32 as a packed GEMM (kernel_gemm_pack.h) ----------------------------------------
 * y[mg, l] = w[mg, ck] patches[ck, l]: the weights are A (read in place), the patches B,
 * packed straight from the input into the micro-kernel's panels (im2col one panel at a
 * time, never the whole matrix): a panel's positions split into runs along one output row,
 * and each kernel tap copies each run's input row (memcpy at stride 1), zeros where the
 * window hangs over the padding. */
typedef struct conv_pack_ctx {
  const conv_plan_t *p;
  const float *xg;
  const berth_kernel_isa_t *isa; /* its im2col_f32, where it has one */
  berth_im2col_geom_t g;         /* p's geometry for it */
} conv_pack_ctx_t;

static conv_pack_ctx_t conv_pack_ctx(const conv_plan_t *p, const float *xg, const berth_kernel_isa_t *isa) {
  conv_pack_ctx_t c = {p, xg, isa, {.il = p->il}};
  for (int d = 0; d < 3; d++) {
    c.g.in[d] = p->in[d];
    c.g.k[d] = p->k[d];
    c.g.out[d] = p->out[d];
    c.g.stride[d] = p->stride[d];
    c.g.dil[d] = p->dil[d];
    c.g.pad[d] = p->pad[d];
  }
  return c;
}

#define CONV_PACK_MAX_NR 64


#define CONV_PACK_TAB_K2 8 /* kernel widths up to this get conv_pack_panel's table */

/* Elements o < n of a run whose window starts at input column i2 read column i2 + o * st2:
 * valid for lo <= o < hi (lo <= hi <= n; no division at stride 1). */
static inline void conv_pack_span(int64_t i2, int64_t st2, int64_t in2, int64_t n, int64_t *plo, int64_t *phi) {
  int64_t lo, hi;
  if (st2 == 1) {
    lo = i2 >= 0 ? 0 : -i2;
    hi = in2 - i2;
  } else {
    lo = i2 >= 0 ? 0 : (-i2 + st2 - 1) / st2;
    hi = i2 >= in2 ? 0 : (in2 - 1 - i2) / st2 + 1;
  }
  if (lo > n) lo = n;
  if (hi > n) hi = n;
  if (hi < lo) hi = lo;
  *plo = lo;
  *phi = hi;
}
/* Short runs (a panel row holds one to a few runs of at most NR floats): fixed-size chunks
 * of 8 floats, the last one overlapping the one before, instead of a memset or memcpy call
 * per run (the calls cost more than the copies here). */
static inline void conv_fill0(float *restrict d, int64_t n) {
  static const float z[8];
  if (n >= 8) {
    for (int64_t o = 0; o + 8 < n; o += 8) memcpy(d + o, z, sizeof z);
    memcpy(d + n - 8, z, sizeof z);
  } else if (n >= 4) {
    memcpy(d, z, 4 * sizeof(float));
    memcpy(d + n - 4, z, 4 * sizeof(float));
  } else {
    for (int64_t o = 0; o < n; o++) d[o] = 0;
  }
}
static inline void conv_copy1(float *restrict d, const float *restrict s, int64_t n) {
  if (n >= 8) {
    for (int64_t o = 0; o + 8 < n; o += 8) memcpy(d + o, s + o, 8 * sizeof(float));
    memcpy(d + n - 8, s + n - 8, 8 * sizeof(float));
  } else if (n >= 4) {
    memcpy(d, s, 4 * sizeof(float));
    memcpy(d + n - 4, s + n - 4, 4 * sizeof(float));
  } else {
    for (int64_t o = 0; o < n; o++) d[o] = s[o];
  }
}
static inline void conv_copys(float *restrict d, const float *restrict s, int64_t n, int64_t st) {
  for (int64_t o = 0; o < n; o++) d[o] = s[o * st];
}

static void conv_pack_panel(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst, int64_t nr) {
  const conv_pack_ctx_t *cx = (const conv_pack_ctx_t *)ctx;
  if (cx->isa->im2col_f32 && cx->isa->im2col_f32(&cx->g, cx->xg, k0, kc, j0, nc, dst, nr)) return;
  const conv_plan_t *p = cx->p;
  const float *xg = cx->xg;
  const int64_t in0 = p->in[0], in1 = p->in[1], in2 = p->in[2], st2 = p->stride[2];
  int64_t at[CONV_PACK_MAX_NR], len[CONV_PACK_MAX_NR], s0[CONV_PACK_MAX_NR], s1[CONV_PACK_MAX_NR],
      s2[CONV_PACK_MAX_NR];
  const int nrun = berth_im2col_runs(&cx->g, j0, nc, CONV_PACK_MAX_NR, at, len, s0, s1, s2); /* nc <= nr <= max */
  /* the valid elements [lo, hi) of each run for each kernel column q2 (they depend on the run
   * and q2 only: computed once per panel, not per row; uint8 since lo, hi <= nc <= 64) */
  const int64_t k2 = p->k[2], dl2 = p->dil[2];
  uint8_t lohi[CONV_PACK_MAX_NR][CONV_PACK_TAB_K2][2];
  const int tab = k2 <= CONV_PACK_TAB_K2;
  for (int r = 0; tab && r < nrun; r++)
    for (int64_t c = 0; c < k2; c++) {
      int64_t lo, hi;
      conv_pack_span(s2[r] + c * dl2, st2, in2, len[r], &lo, &hi);
      lohi[r][c][0] = (uint8_t)lo;
      lohi[r][c][1] = (uint8_t)hi;
    }
  /* row k is (ic, q0, q1, q2): split k0 once, then count up */
  int64_t q2 = k0 % k2, q1 = (k0 / k2) % p->k[1], q0 = (k0 / k2 / p->k[1]) % p->k[0];
  int64_t ic = k0 / k2 / p->k[1] / p->k[0];
  for (int64_t q = 0; q < kc; q++, dst += nr) {
    const float *xc = xg + ic * p->il;
    const int64_t a0 = q0 * p->dil[0], a1 = q1 * p->dil[1], a2 = q2 * dl2;
    for (int r = 0; r < nrun; r++) {
      float *d = dst + at[r];
      const int64_t n = len[r], i0 = s0[r] + a0, i1 = s1[r] + a1, i2 = s2[r] + a2;
      if (i0 < 0 || i0 >= in0 || i1 < 0 || i1 >= in1) {
        conv_fill0(d, n);
        continue;
      }
      int64_t lo, hi;
      if (tab) {
        lo = lohi[r][q2][0];
        hi = lohi[r][q2][1];
      } else {
        conv_pack_span(i2, st2, in2, n, &lo, &hi);
      }
      conv_fill0(d, lo);
      const float *src = xc + (i0 * in1 + i1) * in2 + (i2 + lo * st2); /* element lo */
      if (st2 == 1)
        conv_copy1(d + lo, src, hi - lo);
      else
        conv_copys(d + lo, src, hi - lo, st2);
      conv_fill0(d + hi, n - hi);
    }
    if (nc < nr) memset(dst + nc, 0, (size_t)(nr - nc) * sizeof(float));
    if (++q2 == k2) {
      q2 = 0;
      if (++q1 == p->k[1]) {
        q1 = 0;
        if (++q0 == p->k[0]) q0 = 0, ic++;
      }
    }
  }
}

/* The epilogue (act, residual) of the packed GEMM: applied by the micro-kernel to each tile's
 * accumulators at its last block of K, before the store (kernel_isa.h's berth_ukr_epi_t, the
 * formulas of conv_epi below), rather than a pass over the group's outputs. */
_Static_assert((int)CONV_ACT_RELU == (int)BERTH_UKR_ACT_RELU && (int)CONV_ACT_CLIP == (int)BERTH_UKR_ACT_CLIP &&
                   (int)CONV_ACT_LEAKY_RELU == (int)BERTH_UKR_ACT_LEAKY_RELU,
               "conv's act values are the micro-kernel epilogue's");
static berth_ukr_epi_t conv_ukr_epi(const conv_plan_t *p, const float *rg) {
  const berth_ukr_epi_t e = {rg, p->l, p->act, (float)p->act_alpha, (float)p->act_beta};
  return e;
}

/* yg = bg + wg patches (and the epilogue) on the packed GEMM, A = the weights in place (ap 0)
 * or pre-packed in panels of ap rows. */
static void conv_gemm_f32(const conv_plan_t *p, const berth_kernel_isa_t *isa, const float *xg, const float *wg,
                          int64_t ap, const float *bg, float *yg, const float *rg, float *buf, int64_t bufn) {
  const berth_ukr_epi_t e = conv_ukr_epi(p, rg);
  const berth_ukr_epi_t *epi = p->act || rg ? &e : NULL;
  if (conv_is_1x1(p)) {
    const berth_gemm_rows_t rows = {xg, p->l};
    berth_gemm_packed_epi_f32(isa, wg, p->ck, ap, bg, yg, p->l, p->mg, p->l, p->ck, berth_gemm_pack_rows, &rows, buf,
                              bufn, epi);
  } else {
    const conv_pack_ctx_t ctx = conv_pack_ctx(p, xg, isa);
    berth_gemm_packed_epi_f32(isa, wg, p->ck, ap, bg, yg, p->l, p->mg, p->l, p->ck, conv_pack_panel, &ctx, buf,
                              bufn, epi);
  }
}

/* The packed path where it pays: at least one full panel of positions and four output
 * channels (audio models' short convolutions keep the dot4xn path below). 2 (done with the
 * epilogue) or 0 (does not apply). */
static int conv_packed_f32(const conv_plan_t *p, const float *xg, const float *wg, const float *bg, float *yg,
                           const float *rg, float *buf, int64_t bufn) {
  const berth_kernel_isa_t *isa = berth_kernel_isa();
  if (!berth_gemm_packed_fits(isa, bufn) || isa->gemm_nr > CONV_PACK_MAX_NR || p->l < isa->gemm_nr || p->mg < 4)
    return 0;
  conv_gemm_f32(p, isa, xg, wg, 0, bg, yg, rg, buf, bufn);
  return 2;
}
#endif

/* f32 fast paths: the packed GEMM (builds with kernel variants; it applies the epilogue too),
 * else a 1x1 convolution with unit strides and no padding as the variant's gemm_nn, y[mg, l] =
 * w[mg, cg] x[cg, l], no packing. Returns 0 where none applies (then the dot4xn path runs), 1
 * when the epilogue is left to the caller, 2 when it is done. */
static int conv_fast_f32(const conv_plan_t *p, const float *xg, const float *wg, const float *bg, float *yg,
                         const float *rg, float *buf, int64_t bufn) {
  if (p->in[0] == 1 && p->in[1] == 1 && p->k[0] == 1 && p->k[1] == 1 && p->out[0] == 1 && p->out[1] == 1) {
    const berth_conv_small_geom_t sg = {p->cg, p->mg, p->in[2], p->l, p->k[2], p->ck, p->stride[2], p->pad[2], p->dil[2]};
    if (berth_conv_small_f32(&sg, xg, wg, bg, yg, buf, bufn)) return 1; /* 1-D, few positions */
  }
#ifdef BERTH_KERNELS_SIMD
  const int packed = conv_packed_f32(p, xg, wg, bg, yg, rg, buf, bufn);
  if (packed) return packed;
#else
  (void)rg, (void)buf, (void)bufn;
#endif
  if (!conv_is_1x1(p)) return 0;
  BERTH_KCALL(gemm_nn_f32)(wg, p->cg, xg, p->l, bg, yg, p->l, p->mg, p->l, p->cg);
  return 1;
}
static int conv_fast_f64(const conv_plan_t *p, const double *xg, const double *wg, const double *bg, double *yg,
                         const double *rg, double *buf, int64_t bufn) {
  (void)p, (void)xg, (void)wg, (void)bg, (void)yg, (void)rg, (void)buf, (void)bufn;
  return 0;
}
#define CONV_FAST_f32 conv_fast_f32
#define CONV_FAST_f64 conv_fast_f64

/* The activation epilogue (act): the loops of kernel_unary.c's relu, kernel_clip.c's clip
 * and kernel_activation.c's leaky_relu, so a fused conv gives the same bits. leaky_relu's
 * select is on the bits (GCC keeps `c ? a * v : v` a branch, so the loop would stay scalar). */
static inline float conv_sel_f32(int c, float x, float y) {
  uint32_t a, b;
  memcpy(&a, &x, sizeof a);
  memcpy(&b, &y, sizeof b);
  const uint32_t m = (uint32_t)0 - (uint32_t)c, r = (a & m) | (b & ~m);
  memcpy(&x, &r, sizeof x);
  return x;
}
static inline double conv_sel_f64(int c, double x, double y) {
  uint64_t a, b;
  memcpy(&a, &x, sizeof a);
  memcpy(&b, &y, sizeof b);
  const uint64_t m = (uint64_t)0 - (uint64_t)c, r = (a & m) | (b & ~m);
  memcpy(&x, &r, sizeof x);
  return x;
}
/* The cases of the epilogue, V the value before the activation. */
#define CONV_ACT_CASES(T, V)                                                                                   \
  switch (p->act) {                                                                                            \
    case CONV_ACT_RELU: BERTH_VLOOP(i, n, T v = V; y[i] = v < 0 ? (T)0 : v;); break;                          \
    case CONV_ACT_CLIP: BERTH_VLOOP(i, n, T u = V; T v = u < a ? a : u; y[i] = v > b ? b : v;); break;        \
    case CONV_ACT_LEAKY_RELU: BERTH_VLOOP(i, n, T v = V; y[i] = conv_sel_##T(v < 0, a * v, v);); break;        \
    default: BERTH_VLOOP(i, n, y[i] = V;); break;                                                              \
  }
#define conv_sel_float conv_sel_f32
#define conv_sel_double conv_sel_f64
/* y = act(y + r) (r: the residual, or NULL for y = act(y)), n elements. */
#define CONV_EPI_FN(s, T)                                                                                      \
  static void conv_epi_##s(T *restrict y, const T *restrict r, int64_t n, const conv_plan_t *p) {             \
    const T a = (T)p->act_alpha, b = (T)p->act_beta;                                                           \
    if (r) {                                                                                                   \
      CONV_ACT_CASES(T, y[i] + r[i])                                                                           \
    } else if (p->act) {                                                                                       \
      CONV_ACT_CASES(T, y[i])                                                                                  \
    }                                                                                                          \
  }
CONV_EPI_FN(f32, float)
CONV_EPI_FN(f64, double)

/* The depthwise path's epilogue on one plane y of the batch item at y0 (residual at r0). */
typedef struct conv_epi_ctx {
  const conv_plan_t *p;
  const float *y0, *r0;
} conv_epi_ctx_t;
static void conv_epi_plane_f32(float *y, int64_t n, const void *ctx) {
  const conv_epi_ctx_t *c = (const conv_epi_ctx_t *)ctx;
  conv_epi_f32(y, c->r0 ? c->r0 + (y - c->y0) : NULL, n, c->p);
}

/* Depthwise 2-D f32 (groups of one input channel, kernel_conv_dw.c) where it applies: every
 * group of one batch item, the activation applied to each plane as it is done. */
static bool conv_dw_f32(const conv_plan_t *p, const float *xg, const float *wg, const float *bg, float *yg,
                        const float *rg, float *buf, int64_t bufn) {
  if (p->in[0] != 1 || p->k[0] != 1 || p->out[0] != 1) return false;
  const berth_dw_geom_t g = {p->in[1],  p->in[2],     p->out[1], p->out[2], p->k[1],  p->k[2], p->stride[1],
                             p->stride[2], p->dil[1], p->dil[2], p->pad[1], p->pad[2], 0,      0, 0};
  const conv_epi_ctx_t ctx = {p, yg, rg};
  return p->ck > 0 && berth_conv_dw_f32(g, p->group, p->mg, xg, wg, bg, yg, buf, bufn,
                                       p->act || rg ? conv_epi_plane_f32 : NULL, &ctx);
}
#define CONV_DW_f32 conv_dw_f32
#define CONV_DW_f64(p, xg, wg, bg, yg, rg, buf, bufn) false

CONV_FN(f32, float)
CONV_FN(f64, double)

/* Out of line, so that conv_plan (with the messages it could format) and the paths are
 * never on the stack together: conv_run calls one, then the other. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void conv_exec(const conv_plan_t *p, const berth_kernel_call_t *call) {
  const void *b = call->n_in >= 3 ? call->in[2].data : NULL, *r = call->n_in == 4 ? call->in[3].data : NULL;
  int64_t n;
  if (p->out_type.dtype == BERTH_DTYPE_F32) {
    float *buf = berth_scratch_take(call, sizeof(float), &n);
    conv_run_f32(p, (const float *)call->in[0].data, (const float *)call->in[1].data, (const float *)b,
                 (const float *)r, (float *)call->out[0].data, buf, n);
  } else {
    double *buf = berth_scratch_take(call, sizeof(double), &n);
    conv_run_f64(p, (const double *)call->in[0].data, (const double *)call->in[1].data, (const double *)b,
                 (const double *)r, (double *)call->out[0].data, buf, n);
  }
}

static void conv_run(const berth_kernel_call_t *call) {
  conv_plan_t p;
  berth_type_t in[4];
  for (int32_t i = 0; i < call->n_in; i++) in[i] = *call->in[i].type;
  conv_plan(call->attrs, in, call->n_in, &p, NULL);
  if (berth_kernel_is_empty(&p.out_type)) return;
  conv_exec(&p, call);
}

/* min(a * b, cap) for a, b >= 0. */
static uint64_t conv_mul_cap(uint64_t a, uint64_t b, uint64_t cap) {
  if (a == 0 || b == 0) return 0;
  return a > cap / b ? cap : a * b < cap ? a * b : cap;
}

uint64_t berth_scratch_conv(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  conv_plan_t p;
  if (n_in < 2 || n_in > 4 || conv_plan(attrs, in, n_in, &p, NULL) != BERTH_OK) return 0;
  if (berth_kernel_is_empty(&p.out_type) || p.ck == 0) return 0;
  const uint64_t es = berth_dtype_size(p.out_type.dtype), cap = BERTH_SCRATCH_MAX_BYTES / es;
  if (p.cg == 1 && p.out_type.dtype == BERTH_DTYPE_F32 && p.in[0] == 1 && p.k[0] == 1 && p.out[0] == 1) {
    /* depthwise: the fast path's padded rows when it applies (kernel_conv_dw.c) */
    const berth_dw_geom_t g = {p.in[1],  p.in[2],  p.out[1], p.out[2], p.k[1],   p.k[2], p.stride[1],
                               p.stride[2], p.dil[1], p.dil[2], p.pad[1], p.pad[2], 0,      0, 0};
    int64_t f = berth_conv_dw_buffer_floats(g, p.group, p.mg);
    if (f > 0 && (uint64_t)f <= cap) return berth_scratch_request((uint64_t)f, es);
  }
  if (p.cg == 1 && p.mg == 1) return 0; /* the direct loop of a depthwise conv needs none */
  /* dot4xn: every position's patch, up to the chunk size, but at least one kernel row */
  uint64_t want = conv_mul_cap((uint64_t)p.l, (uint64_t)p.ck, CONV_DOT_SCRATCH_BYTES / es);
  if ((uint64_t)p.k[2] > want) want = (uint64_t)p.k[2] < cap ? (uint64_t)p.k[2] : cap;
  /* the packed GEMM (f32; the same for every variant: the request must not depend on the
   * machine) */
  if (p.out_type.dtype == BERTH_DTYPE_F32) {
    uint64_t packed = berth_gemm_scratch_floats(p.mg, p.l, p.ck);
    if (packed > want) want = packed;
  }
  return berth_scratch_request(want, es);
}

/* conv's seven attributes, also the first seven of conv_packed (same order, same meaning) */
#define CONV_ATTR_SPECS                              \
  {"strides", BERTH_ATTR_INTS, false, 0, 0},         \
  {"pads", BERTH_ATTR_INTS, false, 0, 0},            \
  {"dilations", BERTH_ATTR_INTS, false, 0, 0},       \
  {"group", BERTH_ATTR_INT, false, 1, 0},            \
  {"act", BERTH_ATTR_INT, false, 0, 0},              \
  {"act_alpha", BERTH_ATTR_SCALAR, false, 0, 0},     \
  {"act_beta", BERTH_ATTR_SCALAR, false, 0, 0}
static const berth_attr_spec_t conv_attrs[] = {CONV_ATTR_SPECS};
berth_status_t berth_conv_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                berth_diag_t *diag) {
  return conv_infer(attrs, in, n_in, out, diag);
}
const berth_op_def_t berth_op_def_conv = {"conv", BERTH_OPKIND_KERNEL, 2, 4, 1, 7, conv_attrs, conv_infer, conv_run};

/* ---- conv_packed: conv with pre-packed weights ----------------------------------------
 * conv_packed(x, wp[, b[, r]]) {strides, pads, dilations, group, act, act_alpha, act_beta, wshape}:
 * conv (above, the same attributes and result) with f32 weights packed at compile time
 * (src/passes/pack.c) into the packed GEMM's A panels (kernel_gemm_pack.h's
 * berth_gemm_pack_a): wshape is the weights' own shape [M, C/group, K...], and wp is
 * [group, P, C/group * prod(K), BERTH_GEMM_APANEL] with P = ceil(M / group / APANEL): each
 * group's M/group x (C/group * prod(K)) weight matrix in panels of APANEL rows, zeros past its
 * last row. The micro-kernels read each tile's weights as one contiguous stream instead of
 * MR rows far apart, and no call packs them. The file is the same for every kernel variant
 * (APANEL 12 is a multiple of the AVX-512, AVX2 and portable MR and splits in two NEON
 * tiles). Without scratch enough for a panel (a program compiled with a cap), in a build
 * without kernel variants, or where the packed GEMM does not apply, a direct loop over the
 * packed weights runs (slow; the pass packs only convs that take the GEMM path). */
enum { CONVP_WSHAPE = 7 };
#define CONV_WPANEL_WIDE BERTH_GEMM_WB_PANEL /* the wide weight panels' height (32): AVX-512's NR */
#define CONV_NARROW_L 64    /* convp_narrow: at most this many output positions */
#define CONV_WB_KC 256      /* berth_gemm_packed_wb_f32's block of K at most */
#define CONVP_WB_PACK_KQ 64 /* convp_wb_pack_rows: rows of K per call */
#define CONV_DIRECT_MIN_K 64 /* the direct path's taps per output at least, unless at most
                              * BERTH_CONV_ROWS_MAX_C input channels (kernel_conv_rows.h: SqueezeNet's
                              * 3x3 stride-2 conv1, 27 taps, 835-861 us packed against 715-740 there;
                              * channels along the lanes it measured 1240) */
#define CONV_DIRECT_BAND_POSITIONS 128 /* the direct path's scratch request at least: bands of this many
                                        * output positions (whole rows): each band streams all the
                                        * weights once, so VGG-19's 512-channel 28x28 convs (9.4 MB of
                                        * weights) ran 1.24-1.35x onnxruntime's time in one-row bands */

/* The logical operand types of a conv_packed call (the weights from wshape); checks wp. */
static berth_status_t convp_types(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *tin, conv_plan_t *p, berth_diag_t *diag) {
  char sa[160];
  const berth_attr_value_t *ws = &attrs[CONVP_WSHAPE];
  BERTH_TRY(berth_kernel_check_ints("conv_packed", "wshape", ws, diag));
  if (in[0].dtype != BERTH_DTYPE_F32 || in[1].dtype != BERTH_DTYPE_F32 || ws->n != in[0].rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv_packed: input %s and packed weights must be f32, and wshape must have %d dims (has %d)",
                      berth_type_format(&in[0], sa, sizeof sa), (int)in[0].rank, (int)ws->n);
  for (int32_t i = 0; i < n_in; i++) tin[i] = in[i];
  berth_kernel_type_init(&tin[1], BERTH_DTYPE_F32, in[0].rank);
  for (int32_t d = 0; d < ws->n; d++) {
    if (ws->ints[d] < 0 || ws->ints[d] > BERTH_MAX_DIM)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_packed: wshape[%d] is %lld, expected 0 to 2^40",
                        (int)d, (long long)ws->ints[d]);
    tin[1].dims[d] = ws->ints[d];
  }
  berth_status_t st = conv_plan(attrs, tin, n_in, p, diag);
  if (st) return berth_fail_prefix(diag, st, "conv_packed (weights of wshape)");
  const berth_type_t *w = &in[1];
  const int64_t ap = w->rank == 4 && w->dims[3] == CONV_WPANEL_WIDE ? CONV_WPANEL_WIDE : BERTH_GEMM_APANEL;
  const int64_t np = (p->mg + ap - 1) / ap;
  if (w->rank != 4 || w->dims[0] != p->group || w->dims[1] != np || w->dims[2] != p->ck || w->dims[3] != ap)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv_packed: packed weights %s, expected [%lld, %lld, %lld, %lld] for wshape of %lld output "
                      "channels in %lld groups (panels of %d or %d rows)",
                      berth_type_format(w, sa, sizeof sa), (long long)p->group, (long long)np, (long long)p->ck,
                      (long long)ap, (long long)p->m, (long long)p->group, BERTH_GEMM_APANEL, CONV_WPANEL_WIDE);
  p->ap = ap;
  return BERTH_OK;
}

static berth_status_t convp_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_conv_packed, in, n_in, diag));
  for (int32_t i = 1; i < n_in; i++) BERTH_TRY(berth_kernel_check_same_dtype("conv_packed", in, 0, i, diag));
  berth_type_t tin[4];
  conv_plan_t p;
  BERTH_TRY(convp_types(attrs, in, n_in, tin, &p, diag));
  BERTH_TRY(berth_kernel_check_output("conv_packed", &p.out_type, diag));
  out[0] = p.out_type;
  return BERTH_OK;
}

/* yg = bg + conv of one group, reading the packed weights wp (the group's panels) directly:
 * each output element a sum over (ic, q0, q1, q2) in order. */
static void convp_direct(const conv_plan_t *p, const float *xg, const float *wp, const float *bg, float *yg) {
  const int64_t ap = p->ap;
  for (int64_t m = 0; m < p->mg; m++) {
    const float *wm = wp + (m / ap) * ap * p->ck + m % ap; /* element j at wm[j * ap] */
    for (int64_t t = 0; t < p->l; t++) {
      const int64_t o2 = t % p->out[2], o1 = (t / p->out[2]) % p->out[1], o0 = t / p->out[2] / p->out[1];
      float s = bg ? bg[m] : 0.0f;
      int64_t j = 0;
      for (int64_t ic = 0; ic < p->cg; ic++)
        for (int64_t q0 = 0; q0 < p->k[0]; q0++)
          for (int64_t q1 = 0; q1 < p->k[1]; q1++)
            for (int64_t q2 = 0; q2 < p->k[2]; q2++, j++) {
              const int64_t i0 = o0 * p->stride[0] - p->pad[0] + q0 * p->dil[0];
              const int64_t i1 = o1 * p->stride[1] - p->pad[1] + q1 * p->dil[1];
              const int64_t i2 = o2 * p->stride[2] - p->pad[2] + q2 * p->dil[2];
              if (i0 < 0 || i0 >= p->in[0] || i1 < 0 || i1 >= p->in[1] || i2 < 0 || i2 >= p->in[2]) continue;
              s += wm[j * ap] * xg[ic * p->il + (i0 * p->in[1] + i1) * p->in[2] + i2];
            }
      yg[m * p->l + t] = s;
    }
  }
}

/* Few output positions (ResNet-50's 7x7 stage): the positions are the rows of the GEMM and the
 * output channels its columns, along the vector lanes, with the pre-packed weights as the
 * vector operand (berth_gemm_packed_wb_f32), where the variant's panel width is the weights'
 * panel height or half of it (AVX2: two 16-column tiles per panel); a tile of positions wastes
 * no lanes where a panel of 32 positions over 49 would waste a quarter, and AVX2's 6-row tiles
 * no longer split a 32-row weight panel into 6, 6, 5, 5, 5, 5. The result comes out
 * transposed, [positions, channels], in the scratch (started from the bias), then goes to y
 * through the epilogue (convp_wb_out). */
static uint64_t convp_wb_floats(const conv_plan_t *p) {
  const int64_t w = CONV_WPANEL_WIDE, kc = p->ck < CONV_WB_KC ? p->ck : CONV_WB_KC;
  return (uint64_t)(p->l * p->mg + (p->l + w - 1) / w * w * kc);
}
#ifdef BERTH_KERNELS_SIMD
static bool convp_narrow(const conv_plan_t *p, const berth_kernel_isa_t *isa) {
  return p->ap == CONV_WPANEL_WIDE && berth_gemm_packed_wb_ok(isa) && p->l <= CONV_NARROW_L;
}
/* y[m, t] = act(ct[t, m] (+ r[m, t])) for positions t0 .. L - 1, eight at a time (eight rows of
 * ct stream together): the transposed result goes to y through the epilogue (conv_epi's
 * formulas), so no pass of its own over y. */
static void convp_wb_out_rows(const conv_plan_t *p, const float *ct, const float *rg, float *yg, int64_t t0) {
  const int64_t L = p->l, Mg = p->mg;
  const float a = (float)p->act_alpha, b = (float)p->act_beta;
  for (; t0 < L; t0 += 8) {
    const int64_t n = L - t0 < 8 ? L - t0 : 8;
    for (int64_t m = 0; m < Mg; m++) {
      const float *c = ct + t0 * Mg + m;
      float *y = yg + m * L + t0;
      if (rg) {
        const float *r = rg + m * L + t0;
        CONV_ACT_CASES(float, c[i * Mg] + r[i])
      } else {
        CONV_ACT_CASES(float, c[i * Mg])
      }
    }
  }
}
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
/* Four positions by four channels of ct transposed in registers (GCC/clang vector extensions:
 * SSE or NEON shuffles), the residual added and relu applied as vectors (a select on the sign
 * compare's mask: the scalar formula's bits), then four stores of four positions: the scalar
 * pass above, one strided load per element, measured 60 us of ResNet-50's 1x1 512->2048 conv
 * (4 % of it). Clip and leaky_relu, and positions past the last four, take that pass. */
typedef float convp_v4 __attribute__((vector_size(16)));
typedef int32_t convp_v4i __attribute__((vector_size(16)));
#if defined(__clang__)
#define CONVP_SHUF(x, y, a, b, c, d) __builtin_shufflevector(x, y, a, b, c, d)
#else
#define CONVP_SHUF(x, y, a, b, c, d) __builtin_shuffle(x, y, (convp_v4i){a, b, c, d})
#endif
static inline convp_v4 convp_v4_ld(const float *s) {
  convp_v4 v;
  memcpy(&v, s, sizeof v);
  return v;
}
static void convp_wb_out(const conv_plan_t *p, const float *ct, const float *rg, float *yg) {
  const bool vec = (p->act == CONV_ACT_NONE || p->act == CONV_ACT_RELU) && p->mg % 4 == 0;
  const int64_t L = p->l, Mg = p->mg, L4 = vec ? L / 4 * 4 : 0;
  const convp_v4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int64_t t0 = 0; t0 < L4; t0 += 4)
    for (int64_t m0 = 0; m0 + 4 <= Mg; m0 += 4) {
      const float *c = ct + t0 * Mg + m0;
      const convp_v4 r0 = convp_v4_ld(c), r1 = convp_v4_ld(c + Mg), r2 = convp_v4_ld(c + 2 * Mg),
                     r3 = convp_v4_ld(c + 3 * Mg);
      const convp_v4 u0 = CONVP_SHUF(r0, r1, 0, 4, 1, 5), u1 = CONVP_SHUF(r2, r3, 0, 4, 1, 5);
      const convp_v4 u2 = CONVP_SHUF(r0, r1, 2, 6, 3, 7), u3 = CONVP_SHUF(r2, r3, 2, 6, 3, 7);
      convp_v4 col[4] = {CONVP_SHUF(u0, u1, 0, 1, 4, 5), CONVP_SHUF(u0, u1, 2, 3, 6, 7),
                         CONVP_SHUF(u2, u3, 0, 1, 4, 5), CONVP_SHUF(u2, u3, 2, 3, 6, 7)};
      for (int j = 0; j < 4; j++) {
        float *y = yg + (m0 + j) * L + t0;
        if (rg) col[j] += convp_v4_ld(rg + (m0 + j) * L + t0);
        if (p->act == CONV_ACT_RELU) col[j] = (convp_v4)((convp_v4i)col[j] & ~(col[j] < zero));
        memcpy(y, &col[j], sizeof col[j]);
      }
    }
  convp_wb_out_rows(p, ct, rg, yg, L4);
}
#else
static void convp_wb_out(const conv_plan_t *p, const float *ct, const float *rg, float *yg) {
  convp_wb_out_rows(p, ct, rg, yg, 0);
}
#endif
/* Whether the patches are the input's rows (1x1, stride 1, no padding: Inception's 1x1 convs
 * over 1024 channels, ResNet-50's 7x7 stage but for its stride-2 projection). */
static bool convp_wb_rows(const conv_plan_t *p) {
  for (int d = 0; d < 3; d++)
    if (p->k[d] != 1 || p->stride[d] != 1 || p->pad[d] != 0 || p->in[d] != p->out[d]) return false;
  return true;
}
/* berth_gemm_packed_wb_f32's packer where convp_wb_rows: tap k of positions j0 .. j0 + nc - 1 is
 * one run of the input's row k, so each row of the tile is one copy of 8 floats (AVX2's 6-row
 * tiles in panels of 8; the AVX2 im2col's masked loads took 17 % of Inception v2's 1x1 1024->128
 * conv), nc floats only where 8 would read past the group's input. Lanes nc .. nr - 1 keep the
 * next positions' values or what was there (the micro-kernel reads nc lanes of a tile; zeroing
 * them, stores of their own, measured 5 % of that conv). */
static void convp_wb_pack_rows(const void *ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nc, float *dst,
                               int64_t nr) {
  const conv_pack_ctx_t *cx = (const conv_pack_ctx_t *)ctx;
  const int64_t L = cx->p->l, end = cx->p->ck * L; /* the group's input: ck rows of L */
  const float *src = cx->xg + k0 * L + j0;
  for (int64_t q = 0, at = k0 * L + j0; q < kc; q++, src += L, at += L, dst += nr) {
    if (nr == 8 && at + 8 <= end)
      memcpy(dst, src, 8 * sizeof(float));
    else
      memcpy(dst, src, (size_t)nc * sizeof(float));
  }
}
static bool convp_gemm_wb(const conv_plan_t *p, const berth_kernel_isa_t *isa, const float *xg, const float *wp,
                          const float *bg, float *yg, const float *rg, float *buf, int64_t bufn) {
  const int64_t L = p->l, Mg = p->mg, ct_n = L * Mg;
  if (bufn <= ct_n || berth_gemm_packed_wb_kc(isa, L, p->ck, bufn - ct_n) == 0) return false;
  float *ct = buf; /* [L, Mg] */
  for (int64_t t = 0; t < L; t++)
    for (int64_t m = 0; m < Mg; m++) ct[t * Mg + m] = bg ? bg[m] : 0.0f;
  const conv_pack_ctx_t ctx = conv_pack_ctx(p, xg, isa);
  /* the rows packer 64 rows of K at a time (the tiles' shared input rows stay in L1: 2-3 % of
   * Inception v2's 1x1 1024->128 conv; the im2col packer measured 3-5 % slower so, its setup per
   * call repeated) */
  const bool rows = convp_wb_rows(p);
  berth_gemm_packed_wb_f32(isa, rows ? convp_wb_pack_rows : conv_pack_panel, &ctx, rows ? CONVP_WB_PACK_KQ : 0, wp,
                           ct, Mg, L, Mg, p->ck, buf + ct_n, bufn - ct_n);
  convp_wb_out(p, ct, rg, yg);
  return true;
}
#endif

/* The direct path (kernel_conv_direct.h: no im2col; the output channels along the lanes, the
 * input broadcast from bands of padded input rows in the scratch) where it measured faster than
 * the packed GEMM on AVX2 (one-node models side by side, minimums): kernels of 3x3 and more
 * with a multiple of 32 output channels per group, more positions than the narrow path takes
 * and at least CONV_DIRECT_MIN_K taps per output or few input channels (the first conv of an image
 * network: kernel_conv_rows.h's positions-along-the-lanes variant, 0.90-0.96x onnxruntime's time
 * per node for the 3x3 and 7x7 stride-2 first convs, the GEMM 1.05-1.17x). ResNet-50's 3x3
 * stages 1-3: 2855 -> 2540, 2670 -> 2557, 2656 -> 2552 us; DenseNet-121's 3x3 128->32: 824 -> 676 (28x28), 212 -> 179
 * (14x14); SqueezeNet's expand 3x3s 5-9 % less; the 7x7 stride-2 first conv 2960 -> 2690. 1x1
 * convs keep the GEMM (the direct path measured 5-60 % slower: with one tap per input channel
 * its broadcasts walk a new cache line per step of K). The weights come in 32-row panels for
 * it (conv_wpanel, when they are packed: the same choice on every variant). The same bits as
 * the packed GEMM (tests/test_kernel_conv_direct.c). */
static bool conv_direct_wanted(const conv_plan_t *p) {
  if (p->in[0] != 1 || p->k[0] != 1 || p->out[0] != 1 || p->dil[1] != 1 || p->dil[2] != 1) return false;
  return p->mg % CONV_WPANEL_WIDE == 0 && p->l > CONV_NARROW_L && p->k[1] * p->k[2] >= 9 &&
         (p->ck >= CONV_DIRECT_MIN_K ||
          (p->cg <= BERTH_CONV_ROWS_MAX_C && p->k[1] * p->k[2] <= BERTH_CONV_ROWS_MAX_TAPS));
}
static berth_conv_direct_geom_t conv_direct_geom(const conv_plan_t *p) {
  const berth_conv_direct_geom_t g = {p->cg,   p->mg,   p->in[1],     p->in[2],     p->out[1], p->out[2],
                                      p->k[1], p->k[2], p->stride[1], p->stride[2], p->pad[1], p->pad[2]};
  return g;
}
#ifdef BERTH_KERNELS_SIMD
static bool convp_direct_f32(const conv_plan_t *p, const berth_kernel_isa_t *isa, const float *xg, const float *wp,
                             const float *bg, float *yg, const float *rg, float *buf, int64_t bufn) {
  if (p->ap != CONV_WPANEL_WIDE || !conv_direct_wanted(p)) return false;
  const berth_conv_direct_geom_t g = conv_direct_geom(p);
  const berth_ukr_epi_t e = conv_ukr_epi(p, rg);
  return berth_conv_direct_f32(isa, &g, xg, wp, p->ap, bg, yg, p->act || rg ? &e : NULL, buf, bufn);
}
#endif

/* The packed GEMM over pre-packed weights (as conv_packed_f32): 0 where it does not apply, 2
 * done with the epilogue (in the micro-kernel, or on the narrow path's way to y). */
static int convp_gemm(const conv_plan_t *p, const float *xg, const float *wp, const float *bg, float *yg,
                      const float *rg, float *buf, int64_t bufn) {
#ifdef BERTH_KERNELS_SIMD
  const berth_kernel_isa_t *isa = berth_kernel_isa();
  if (!buf || !berth_gemm_packed_fits(isa, bufn) || !isa->gemm_ukr_pa_f32 || isa->gemm_nr > CONV_PACK_MAX_NR ||
      p->l < isa->gemm_nr)
    return 0;
  if (convp_narrow(p, isa) && convp_gemm_wb(p, isa, xg, wp, bg, yg, rg, buf, bufn)) return 2;
  if (convp_direct_f32(p, isa, xg, wp, bg, yg, rg, buf, bufn)) return 2;
  conv_gemm_f32(p, isa, xg, wp, p->ap, bg, yg, rg, buf, bufn);
  return 2;
#else
  (void)p, (void)xg, (void)wp, (void)bg, (void)yg, (void)rg, (void)buf, (void)bufn;
  return 0;
#endif
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void convp_exec(const conv_plan_t *p, const berth_kernel_call_t *call) {
  const float *x = call->in[0].data, *wp = call->in[1].data, *b = call->n_in >= 3 ? call->in[2].data : NULL;
  const float *r = call->n_in == 4 ? call->in[3].data : NULL;
  float *y = call->out[0].data;
  int64_t bufn;
  float *buf = berth_scratch_take(call, sizeof(float), &bufn);
  const int64_t wg_floats = (p->mg + p->ap - 1) / p->ap * p->ap * p->ck;
  for (int64_t n = 0; n < p->n; n++)
    for (int64_t g = 0; g < p->group; g++) {
      const float *xg = x + (n * p->c + g * p->cg) * p->il, *wg = wp + g * wg_floats, *bg = b ? b + g * p->mg : NULL;
      float *yg = y + (n * p->m + g * p->mg) * p->l;
      const float *rg = r ? r + (n * p->m + g * p->mg) * p->l : NULL;
      const int done = convp_gemm(p, xg, wg, bg, yg, rg, buf, bufn);
      if (!done) convp_direct(p, xg, wg, bg, yg);
      if ((p->act || r) && done != 2) conv_epi_f32(yg, rg, p->mg * p->l, p);
    }
}

static void convp_run(const berth_kernel_call_t *call) {
  berth_type_t in[4], tin[4];
  for (int32_t i = 0; i < call->n_in; i++) in[i] = *call->in[i].type;
  conv_plan_t p;
  if (convp_types(call->attrs, in, call->n_in, tin, &p, NULL) != BERTH_OK) return; /* infer accepted it */
  if (berth_kernel_is_empty(&p.out_type)) return;
  convp_exec(&p, call);
}

uint64_t berth_scratch_conv_packed(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  berth_type_t tin[4];
  conv_plan_t p;
  if (n_in < 2 || n_in > 4 || convp_types(attrs, in, n_in, tin, &p, NULL) != BERTH_OK) return 0;
  if (berth_kernel_is_empty(&p.out_type) || p.ck == 0) return 0;
  uint64_t want = berth_gemm_scratch_floats(p.mg < 4 ? 4 : p.mg, p.l, p.ck);
  /* the narrow path and the direct path where a variant could take them (the same request on
   * every machine) */
  if (p.ap == CONV_WPANEL_WIDE && p.l <= CONV_NARROW_L && convp_wb_floats(&p) > want) want = convp_wb_floats(&p);
  if (p.ap == CONV_WPANEL_WIDE && conv_direct_wanted(&p)) {
    const berth_conv_direct_geom_t g = conv_direct_geom(&p);
    const uint64_t d = berth_conv_direct_scratch_floats(&g, (CONV_DIRECT_BAND_POSITIONS + g.ow - 1) / g.ow);
    if (d > want) want = d;
  }
  return berth_scratch_request(want, sizeof(float));
}

bool berth_conv_packable(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  conv_plan_t p;
  if (n_in < 2 || n_in > 4 || in[0].dtype != BERTH_DTYPE_F32 || in[1].dtype != BERTH_DTYPE_F32) return false;
  if (conv_plan(attrs, in, n_in, &p, NULL) != BERTH_OK || berth_kernel_is_empty(&p.out_type)) return false;
  /* where conv takes the packed GEMM on every variant (NR <= 32): not depthwise (cg 1), at
   * least 4 output channels per group and 32 positions */
  return p.cg >= 2 && p.mg >= 4 && p.l >= 32 && p.ck > 0;
}

/* The panel height of the packed weights: 32 where the direct path takes them (conv_direct_wanted:
 * 32 output channels per step of its micro-kernel on AVX2 and AVX-512, two on NEON) or AVX-512
 * takes them as its B panels (convp_narrow: few positions, and 32 divides the output channels
 * of a group, so no padding), else 12 (the A panels of the packed GEMM on every variant; 32-row
 * panels would cut AVX-512's A tiles to 11 and 10 rows, measured 8 % slower there). */
static int64_t conv_wpanel(const conv_plan_t *p) {
  if (conv_direct_wanted(p)) return CONV_WPANEL_WIDE;
  return p->mg % CONV_WPANEL_WIDE == 0 && p->l <= CONV_NARROW_L ? CONV_WPANEL_WIDE : BERTH_GEMM_APANEL;
}

uint64_t berth_conv_packed_floats(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  conv_plan_t p;
  if (conv_plan(attrs, in, n_in, &p, NULL) != BERTH_OK) return 0;
  const int64_t ap = conv_wpanel(&p);
  return (uint64_t)((p.mg + ap - 1) / ap * ap * p.ck * p.group);
}

void berth_conv_pack_weights(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, const float *w,
                             float *dst, berth_type_t *packed) {
  conv_plan_t p;
  (void)conv_plan(attrs, in, n_in, &p, NULL); /* berth_conv_packable accepted it */
  const int64_t ap = conv_wpanel(&p), np = (p.mg + ap - 1) / ap;
  for (int64_t g = 0; g < p.group; g++)
    berth_gemm_pack_a_ap(w + g * p.mg * p.ck, p.ck, p.mg, p.ck, ap, dst + g * np * ap * p.ck);
  berth_kernel_type_init(packed, BERTH_DTYPE_F32, 4);
  packed->dims[0] = p.group;
  packed->dims[1] = np;
  packed->dims[2] = p.ck;
  packed->dims[3] = ap;
}

static const berth_attr_spec_t convp_attrs[] = {CONV_ATTR_SPECS, {"wshape", BERTH_ATTR_INTS, true, 0, 0}};
const berth_op_def_t berth_op_def_conv_packed = {"conv_packed", BERTH_OPKIND_KERNEL, 2, 4, 1, 8, convp_attrs,
                                                 convp_infer, convp_run};
