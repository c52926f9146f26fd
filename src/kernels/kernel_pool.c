/* Pooling: ONNX MaxPool, AveragePool, LpPool (and, with the window set to the whole input,
 * their global forms) for 1-, 2- and 3-D inputs, MaxUnpool and MaxRoiPool.
 *
 *   max_pool(x) {kernel_shape, strides, pads, dilations, flags}
 *   max_pool_indices(x) {same} -> (y, indices)
 *   avg_pool(x) {same}
 *   lp_pool(x) {same, p}
 *   max_unpool(x, indices) {inferred, shape}
 *   max_roi_pool(x, rois) {pooled_shape, spatial_scale}   (at the end of the file)
 *
 * x is [N, C, D...]; the result is [N, C, O...] with, per spatial dim,
 *   window = dilation * (kernel - 1) + 1,
 *   O = floor((D + pad_begin + pad_end - window) / stride) + 1,
 * rounded up instead when flags has POOL_CEIL; a window that would then start past the input
 * and its begin padding is dropped (O - 1 = the last window start must satisfy
 * (O - 1) * stride < D + pad_begin), as ONNX's reference and PyTorch do. Empty attribute
 * lists mean strides 1, pads 0, dilations 1; kernel_shape is required. Every window must
 * hold at least one input element (one lying wholly in padding is rejected at infer time).
 *
 * max: the largest input element of the window (padding never counts; NaNs are skipped
 *   unless the window holds nothing else); any numeric dtype. max_pool_indices also returns
 *   the i64 flat index of that element in x (the first one on ties), over [N, C, D...] in
 *   row-major order, or with the spatial dims in column-major order when flags has
 *   POOL_COL_MAJOR (ONNX storage_order 1).
 * avg: the sum of the window's input elements divided by their count, or with
 *   POOL_COUNT_PAD by the count of window positions inside the explicitly padded input
 *   (positions past it, which only ceil mode makes, never count). Floats.
 * lp: (sum over the window's input elements of |x|^p)^(1/p), p > 0 (padding is 0). Floats.
 *
 * Cost: one pass over each window (output elements times kernel elements); f32 max and average
 * pooling with at most two spatial dims ask for scratch (berth_scratch_max_pool,
 * berth_scratch_avg_pool): for small planes (output rows of at most POOL_LANES_MAX_OW) the
 * kernel variant's planes-in-the-lanes buffer, else at column stride 1 or 2 the ring of padded
 * rows of its plane kernel (kernel_pool_ukr.h), else a padded row and POOL_RING rows of the
 * output; without it they take the row loops and the walk. A window that is the whole plane
 * (a global pool) needs none: chains of planes (pool_whole_f32). */
#include "kernel_isa.h"
#include "kernel_scratch.h"
#include "kernel_util.h"

#include <math.h>
#include <string.h>

enum { POOL_KERNEL, POOL_STRIDES, POOL_PADS, POOL_DILATIONS, POOL_FLAGS, POOL_P };
enum { POOL_CEIL = 1, POOL_COUNT_PAD = 2, POOL_COL_MAJOR = 4 };
typedef enum { POOL_MAX, POOL_AVG, POOL_LP } pool_kind_t;

/* Spatial dims are normalized to 3 by prepending size-1 dims (kernel 1, stride 1, pad 0). */
typedef struct pool_plan {
  int64_t nc;
  int64_t in[3], k[3], out[3], stride[3], dil[3], pad[3], pad_end[3];
  int64_t il, l; /* input and output elements per plane */
  int64_t flags;
  double p;
  berth_type_t out_type;
} pool_plan_t;

/* Valid kernel taps q (0 <= q < k) for window start s: 0 <= s + q * dil < n. */
static void pool_taps(int64_t s, int64_t dil, int64_t k, int64_t n, int64_t *lo, int64_t *hi) {
  int64_t a = s >= 0 ? 0 : (-s + dil - 1) / dil;
  int64_t b = n > s ? (n - s + dil - 1) / dil : 0;
  *lo = a < k ? a : k;
  *hi = b < k ? b : k;
  if (*hi < *lo) *hi = *lo;
}

static berth_status_t pool_attr_lists(const char *op, const berth_attr_value_t *attrs, int32_t sp,
                                      berth_diag_t *diag) {
  static const char *const names[4] = {"kernel_shape", "strides", "pads", "dilations"};
  for (int a = 0; a < 4; a++) {
    const berth_attr_value_t *v = &attrs[a];
    BERTH_TRY(berth_kernel_check_ints(op, names[a], v, diag));
    int32_t want = a == POOL_PADS ? 2 * sp : sp;
    if (a == POOL_KERNEL ? v->n != want : v->n != 0 && v->n != want)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %s has %d values, expected %d%s for %d-D input", op,
                        names[a], (int)v->n, (int)want, a == POOL_KERNEL ? "" : " (or none)", (int)sp);
    for (int32_t i = 0; i < v->n; i++) {
      int64_t lo = a == POOL_PADS ? 0 : 1;
      if (v->ints[i] < lo || v->ints[i] > BERTH_MAX_DIM)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %s[%d] is %lld, expected %lld to 2^40", op, names[a],
                          (int)i, (long long)v->ints[i], (long long)lo);
    }
  }
  return BERTH_OK;
}

/* Every window of dim d holds an input element (checked window by window: the output has
 * at least as many elements as this loop runs, so it costs no more than running the op). */
static berth_status_t pool_check_windows(const char *op, const pool_plan_t *p, int32_t d, int32_t s,
                                         berth_diag_t *diag) {
  for (int64_t o = 0; o < p->out[d]; o++) {
    int64_t lo, hi, st = o * p->stride[d] - p->pad[d];
    if (st >= 0 && st < p->in[d]) continue;
    pool_taps(st, p->dil[d], p->k[d], p->in[d], &lo, &hi);
    if (lo == hi)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "%s: the window of output position %lld in spatial dim %d lies wholly in the padding "
                        "(input %lld, kernel %lld, stride %lld, dilation %lld, pads %lld and %lld)",
                        op, (long long)o, (int)s, (long long)p->in[d], (long long)p->k[d], (long long)p->stride[d],
                        (long long)p->dil[d], (long long)p->pad[d], (long long)p->pad_end[d]);
  }
  return BERTH_OK;
}

/* One spatial dim of the plan: sizes, the output size, or an error. */
static berth_status_t pool_dim(const char *op, const berth_attr_value_t *attrs, pool_plan_t *p, int32_t d,
                               int32_t s, int32_t sp, const berth_type_t *x, berth_diag_t *diag) {
  char sa[160];
  const berth_attr_value_t *st = &attrs[POOL_STRIDES], *pd = &attrs[POOL_PADS], *dl = &attrs[POOL_DILATIONS];
  p->in[d] = s < 0 ? 1 : x->dims[2 + s];
  p->k[d] = s < 0 ? 1 : attrs[POOL_KERNEL].ints[s];
  p->stride[d] = s >= 0 && st->n ? st->ints[s] : 1;
  p->dil[d] = s >= 0 && dl->n ? dl->ints[s] : 1;
  p->pad[d] = s >= 0 && pd->n ? pd->ints[s] : 0;
  p->pad_end[d] = s >= 0 && pd->n ? pd->ints[sp + s] : 0;
  int64_t padded = p->in[d] + p->pad[d] + p->pad_end[d]; /* <= 3 * 2^40 */
  if (padded < 1 || p->k[d] - 1 > (padded - 1) / p->dil[d])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "%s: kernel %lld with dilation %lld spans more than the padded input (%lld) in spatial dim %d of "
                      "input %s",
                      op, (long long)p->k[d], (long long)p->dil[d], (long long)padded, (int)s,
                      berth_type_format(x, sa, sizeof sa));
  int64_t span = padded - (p->dil[d] * (p->k[d] - 1) + 1);
  p->out[d] = span / p->stride[d] + 1;
  if ((p->flags & POOL_CEIL) && span % p->stride[d] != 0) {
    p->out[d]++;
    if ((p->out[d] - 1) * p->stride[d] >= p->in[d] + p->pad[d]) p->out[d]--;
  }
  if (s >= 0) p->out_type.dims[2 + s] = p->out[d];
  return BERTH_OK;
}

static berth_status_t pool_plan(const char *op, pool_kind_t kind, const berth_attr_value_t *attrs,
                                const berth_type_t *x, pool_plan_t *p, berth_diag_t *diag) {
  char sa[160];
  if (x->rank < 3 || x->rank > 5)
    return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED,
                      "%s: input %s has rank %d, expected 3 to 5 ([N, C, D...] with 1 to 3 spatial dims)", op,
                      berth_type_format(x, sa, sizeof sa), (int)x->rank);
  int32_t sp = x->rank - 2, off = 3 - sp;
  BERTH_TRY(pool_attr_lists(op, attrs, sp, diag));
  p->flags = attrs[POOL_FLAGS].i;
  if (p->flags < 0 || p->flags > 7)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: flags is %lld, expected 0 to 7", op, (long long)p->flags);
  p->p = kind == POOL_LP ? attrs[POOL_P].f : 0; /* only lp_pool has the attribute */
  if (kind == POOL_LP && !(p->p > 0 && p->p <= 1e6))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: p is %g, expected a number > 0", op, p->p);
  berth_kernel_type_init(&p->out_type, x->dtype, x->rank);
  p->out_type.dims[0] = x->dims[0];
  p->out_type.dims[1] = x->dims[1];
  for (int32_t d = 0; d < 3; d++) BERTH_TRY(pool_dim(op, attrs, p, d, d - off, sp, x, diag));
  BERTH_TRY(berth_kernel_check_output(op, &p->out_type, diag));
  p->nc = p->il = p->l = 0;
  if (berth_kernel_is_empty(x) || berth_kernel_is_empty(&p->out_type)) return BERTH_OK;
  for (int32_t d = 0; d < 3; d++) BERTH_TRY(pool_check_windows(op, p, d, d - off, diag));
  p->nc = x->dims[0] * x->dims[1];
  p->il = p->in[0] * p->in[1] * p->in[2];
  p->l = p->out[0] * p->out[1] * p->out[2];
  return BERTH_OK;
}

static berth_status_t pool_infer_common(const berth_op_def_t *def, pool_kind_t kind, const berth_attr_value_t *attrs,
                                        const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                        berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, kind == POOL_MAX ? BERTH_MASK_NUM : BERTH_MASK_FLOAT,
                                     diag));
  pool_plan_t p;
  BERTH_TRY(pool_plan(def->name, kind, attrs, &in[0], &p, diag));
  out[0] = p.out_type;
  if (def->n_out == 2) {
    out[1] = p.out_type;
    out[1].dtype = BERTH_DTYPE_I64;
    BERTH_TRY(berth_kernel_check_output(def->name, &out[1], diag));
  }
  return BERTH_OK;
}

/* ---- run ---------------------------------------------------------------------------- */

/* The walk shared by every kind: for each plane and output position, the valid tap ranges
 * [lo, hi) per dim and the window's start; BODY computes out[t] from them. */
#define POOL_WALK(p, ...)                                                                             \
  for (int64_t c = 0; c < (p)->nc; c++) {                                                             \
    const int64_t xoff = c * (p)->il, yoff = c * (p)->l;                                              \
    int64_t t = 0;                                                                                    \
    for (int64_t o0 = 0; o0 < (p)->out[0]; o0++) {                                                    \
      const int64_t s0 = o0 * (p)->stride[0] - (p)->pad[0];                                           \
      int64_t lo0, hi0;                                                                               \
      pool_taps(s0, (p)->dil[0], (p)->k[0], (p)->in[0], &lo0, &hi0);                                  \
      for (int64_t o1 = 0; o1 < (p)->out[1]; o1++) {                                                  \
        const int64_t s1 = o1 * (p)->stride[1] - (p)->pad[1];                                         \
        int64_t lo1, hi1;                                                                             \
        pool_taps(s1, (p)->dil[1], (p)->k[1], (p)->in[1], &lo1, &hi1);                                \
        for (int64_t o2 = 0; o2 < (p)->out[2]; o2++, t++) {                                           \
          const int64_t s2 = o2 * (p)->stride[2] - (p)->pad[2];                                       \
          int64_t lo2, hi2;                                                                           \
          pool_taps(s2, (p)->dil[2], (p)->k[2], (p)->in[2], &lo2, &hi2);                              \
          __VA_ARGS__                                                                                 \
        }                                                                                             \
      }                                                                                               \
    }                                                                                                 \
  }

/* Window positions inside [-pad, in + pad_end) for window start s (count_include_pad). */
static int64_t pool_padded_taps(const pool_plan_t *p, int32_t d, int64_t s) {
  int64_t lo, hi;
  pool_taps(s + p->pad[d], p->dil[d], p->k[d], p->in[d] + p->pad[d] + p->pad_end[d], &lo, &hi);
  return hi - lo;
}

#define POOL_MAX_FN(s, T, U)                                                                                  \
  static void pool_max_##s(const pool_plan_t *p, const T *x, T *y, int64_t *ix) {                             \
    const int64_t in1 = p->in[1], in2 = p->in[2], d0 = p->dil[0], d1 = p->dil[1], d2 = p->dil[2];            \
    POOL_WALK(p, {                                                                                            \
      const T *xc = x + xoff;                                                                                 \
      T m = 0;                                                                                                \
      int64_t best = -1;                                                                                      \
      for (int64_t q0 = lo0; q0 < hi0; q0++)                                                                  \
        for (int64_t q1 = lo1; q1 < hi1; q1++) {                                                              \
          const int64_t row = ((s0 + q0 * d0) * in1 + (s1 + q1 * d1)) * in2 + s2;                             \
          for (int64_t q2 = lo2; q2 < hi2; q2++) {                                                            \
            const int64_t at = row + q2 * d2;                                                                 \
            const T v = xc[at];                                                                               \
            if (best < 0 || v > m || m != m) {                                                                \
              m = v;                                                                                          \
              best = at;                                                                                      \
            }                                                                                                 \
          }                                                                                                   \
        }                                                                                                     \
      y[yoff + t] = m;                                                                                        \
      if (ix) {                                                                                               \
        int64_t i2 = best % in2, i1 = best / in2 % in1, i0 = best / in2 / in1;                                \
        ix[yoff + t] = xoff + ((p->flags & POOL_COL_MAJOR) ? i0 + (i1 + i2 * in1) * p->in[0] : best);         \
      }                                                                                                       \
    })                                                                                                        \
  }
#define BERTH_X(E, s, T, U) POOL_MAX_FN(s, T, U)
BERTH_KERNEL_NUM_LIST(BERTH_X)
#undef BERTH_X

/* avg and lp: the sum of f(x) over the valid taps, then the kind's finish. */
#define POOL_SUM_FN(s, T, POW, SQRT, FABS)                                                                    \
  static void pool_sum_##s(const pool_plan_t *p, pool_kind_t kind, const T *x, T *y) {                        \
    const int64_t in1 = p->in[1], in2 = p->in[2], d0 = p->dil[0], d1 = p->dil[1], d2 = p->dil[2];            \
    const bool count_pad = (p->flags & POOL_COUNT_PAD) != 0;                                                  \
    const T pp = (T)p->p, inv_p = (T)(1.0 / p->p);                                                            \
    const int lp_mode = kind != POOL_LP ? 0 : p->p == 1 ? 1 : p->p == 2 ? 2 : 3;                              \
    POOL_WALK(p, {                                                                                            \
      const T *xc = x + xoff;                                                                                 \
      T acc = 0;                                                                                              \
      for (int64_t q0 = lo0; q0 < hi0; q0++)                                                                  \
        for (int64_t q1 = lo1; q1 < hi1; q1++) {                                                              \
          const T *r = xc + ((s0 + q0 * d0) * in1 + (s1 + q1 * d1)) * in2 + s2;                               \
          switch (lp_mode) {                                                                                  \
            case 0: for (int64_t q2 = lo2; q2 < hi2; q2++) acc += r[q2 * d2]; break;                          \
            case 1: for (int64_t q2 = lo2; q2 < hi2; q2++) acc += FABS(r[q2 * d2]); break;                    \
            case 2: for (int64_t q2 = lo2; q2 < hi2; q2++) acc += r[q2 * d2] * r[q2 * d2]; break;             \
            default: for (int64_t q2 = lo2; q2 < hi2; q2++) acc += POW(FABS(r[q2 * d2]), pp); break;          \
          }                                                                                                   \
        }                                                                                                     \
      T res;                                                                                                  \
      if (kind == POOL_AVG) {                                                                                 \
        int64_t n = count_pad ? pool_padded_taps(p, 0, s0) * pool_padded_taps(p, 1, s1) *                    \
                                    pool_padded_taps(p, 2, s2)                                                \
                              : (hi0 - lo0) * (hi1 - lo1) * (hi2 - lo2);                                      \
        res = acc / (T)n;                                                                                     \
      } else {                                                                                                \
        res = lp_mode == 1 ? acc : lp_mode == 2 ? SQRT(acc) : POW(acc, inv_p);                                \
      }                                                                                                       \
      y[yoff + t] = res;                                                                                      \
    })                                                                                                        \
  }
POOL_SUM_FN(f32, float, powf, sqrtf, fabsf)
POOL_SUM_FN(f64, double, pow, sqrt, fabs)

/* ---- f32 row path ----------------------------------------------------------------------
 * Max (without indices) and average pooling of f32 with at most two spatial dims and
 * dilation 1 along the last: each output row is built from its valid input rows, one row at
 * a time, with the output row as the accumulator. The columns whose window lies inside the
 * input row run in loops over the whole row segment (specialised for kernel widths 2 and 3
 * and strides 1 and 2, which the compiler vectorises); the few next to the padding take the
 * per-element walk (a padded copy of the row ends costs more calls than it saves).
 *
 * Every output element equals POOL_WALK's bit for bit. Average: the taps are added in the
 * generic order (rows ascending, then columns) starting from +0, with the same divisor.
 * Max: the running maximum starts at -inf and takes a tap only when it is greater (one max
 * instruction), which keeps the first of equal values (so -0 and +0 come out as the generic
 * walk's) and skips NaNs; it differs from the generic update only for a window of NaNs
 * alone (or NaNs and -infs), where it gives -inf: every -inf of the row is recomputed by the
 * per-element walk at the end, so no pass looks for NaNs first. */

/* y[o] for o < n from the taps r[o * S + q], q < K: the first row starts from -inf (max) or
 * +0 (average), later rows continue from y. One loop per case, so that each vectorises
 * (-O2 does not unswitch loops). */
#define POOL_ROW_LOOP(K, S, INIT, STEP)                                                           \
  for (int64_t o = 0; o < n; o++) {                                                               \
    const float *t = r + o * (S);                                                                 \
    float m = INIT;                                                                               \
    for (int64_t q = 0; q < (K); q++) m = STEP;                                                   \
    y[o] = m;                                                                                     \
  }
#define POOL_ROW_FN(name, K, S)                                                                   \
  static void pool_row_##name(const float *restrict r, float *restrict y, int64_t n, int64_t k, int64_t s, \
                              bool max, bool first) {                                             \
    (void)k;                                                                                      \
    (void)s;                                                                                      \
    if (max && first) POOL_ROW_LOOP(K, S, -INFINITY, t[q] > m ? t[q] : m)                         \
    else if (max) POOL_ROW_LOOP(K, S, y[o], t[q] > m ? t[q] : m)                                  \
    else if (first) POOL_ROW_LOOP(K, S, 0.0f, m + t[q])                                           \
    else POOL_ROW_LOOP(K, S, y[o], m + t[q])                                                      \
  }
POOL_ROW_FN(k2s1, 2, 1)
POOL_ROW_FN(k2s2, 2, 2)
POOL_ROW_FN(k3s1, 3, 1)
POOL_ROW_FN(k3s2, 3, 2)
POOL_ROW_FN(any, k, s)

typedef void (*pool_row_fn)(const float *restrict r, float *restrict y, int64_t n, int64_t k, int64_t s, bool max,
                            bool first);

/* The columns of the window starting at s2 (dilation 1) that count for the average: the valid
 * ones, or with POOL_COUNT_PAD those inside the padded row. */
static int64_t pool_avg_cols(const pool_plan_t *p, int64_t s2) {
  const int64_t kw = p->k[2], iw = p->in[2];
  if (p->flags & POOL_COUNT_PAD) {
    const int64_t pe = iw + p->pad_end[2] - s2;
    return kw < pe ? kw : pe;
  }
  const int64_t lo2 = s2 < 0 ? -s2 : 0, hi2 = kw < iw - s2 ? kw : iw - s2;
  return hi2 - lo2;
}

/* One output element of the 2-D plane xc by the per-element walk (POOL_WALK's body), for
 * dilation 1 along the columns: the valid taps are max(0, -s2) .. min(kw, iw - s2), those
 * inside the padded row end at min(kw, iw + pad_end - s2); rows lo1..hi1 are valid, n1 of
 * them count for the average. */
static float pool_elem_f32(const pool_plan_t *p, bool max, const float *xc, int64_t s1, int64_t lo1, int64_t hi1,
                           int64_t n1, int64_t s2) {
  const int64_t kw = p->k[2], iw = p->in[2];
  const int64_t lo2 = s2 < 0 ? -s2 : 0, hi2 = kw < iw - s2 ? kw : iw - s2;
  float m = 0;
  bool any = false;
  for (int64_t q1 = lo1; q1 < hi1; q1++) {
    const float *r = xc + (s1 + q1 * p->dil[1]) * iw + s2;
    for (int64_t q2 = lo2; q2 < hi2; q2++) {
      if (!max) m += r[q2];
      else if (!any || r[q2] > m || m != m) m = r[q2];
      any = true;
    }
  }
  if (max) return m;
  return m / (float)(n1 * pool_avg_cols(p, s2));
}

static bool pool_rows_apply(const pool_plan_t *p, pool_kind_t kind, const berth_kernel_call_t *call) {
  if (p->out_type.dtype != BERTH_DTYPE_F32 || (kind != POOL_MAX && kind != POOL_AVG) || call->n_out != 1 ||
      p->in[0] != 1 || p->k[0] != 1 || p->pad[0] != 0 || p->pad_end[0] != 0 || p->dil[2] != 1)
    return false;
  return true;
}

/* The row path's column split of one plane: the row function and the interior columns
 * [ca, cb) (o * sw - pw >= 0 and o * sw - pw + kw <= iw); the others take the walk. */
typedef struct pool_cols {
  pool_row_fn fn;
  int64_t ca, cb;
} pool_cols_t;

static void pool_cols_init(const pool_plan_t *p, pool_cols_t *c) {
  const int64_t iw = p->in[2], kw = p->k[2], sw = p->stride[2], pw = p->pad[2], ow = p->out[2];
  c->fn = kw == 2 && sw == 1   ? pool_row_k2s1
          : kw == 2 && sw == 2 ? pool_row_k2s2
          : kw == 3 && sw == 1 ? pool_row_k3s1
          : kw == 3 && sw == 2 ? pool_row_k3s2
                               : pool_row_any;
  int64_t ca = (pw + sw - 1) / sw, cb = iw - kw + pw >= 0 ? (iw - kw + pw) / sw + 1 : 0;
  if (ca > ow) ca = ow;
  if (cb > ow) cb = ow;
  if (cb < ca) cb = ca;
  c->ca = ca;
  c->cb = cb;
}

/* One output row yr (output row o1) of plane xc. */
static void pool_row_out(const pool_plan_t *p, const pool_cols_t *c, bool max, const float *xc, float *yr, int64_t o1) {
  const int64_t iw = p->in[2], kw = p->k[2], sw = p->stride[2], pw = p->pad[2], ow = p->out[2];
  const int64_t ca = c->ca, cb = c->cb;
  const int64_t s1 = o1 * p->stride[1] - p->pad[1];
  int64_t lo1, hi1;
  pool_taps(s1, p->dil[1], p->k[1], p->in[1], &lo1, &hi1);
  const int64_t n1 = (p->flags & POOL_COUNT_PAD) ? pool_padded_taps(p, 1, s1) : hi1 - lo1;
  for (int64_t o = 0; o < ca; o++) yr[o] = pool_elem_f32(p, max, xc, s1, lo1, hi1, n1, o * sw - pw);
  for (int64_t o = cb; o < ow; o++) yr[o] = pool_elem_f32(p, max, xc, s1, lo1, hi1, n1, o * sw - pw);
  if (cb == ca) return;
  for (int64_t q1 = lo1; q1 < hi1; q1++)
    c->fn(xc + (s1 + q1 * p->dil[1]) * iw + ca * sw - pw, yr + ca, cb - ca, kw, sw, max, q1 == lo1);
  if (max) {
    int any = 0; /* a branch-free scan first: it vectorises, and a -inf is rare */
    for (int64_t o = ca; o < cb; o++) any |= yr[o] == -INFINITY;
    for (int64_t o = ca; any && o < cb; o++)
      if (yr[o] == -INFINITY) yr[o] = pool_elem_f32(p, max, xc, s1, lo1, hi1, n1, o * sw - pw);
    return;
  }
  const float n = (float)(n1 * kw);
  for (int64_t o = ca; o < cb; o++) yr[o] = yr[o] / n;
}

/* ---- padded rows ------------------------------------------------------------------------
 * With its planned scratch (berth_scratch_max_pool, berth_scratch_avg_pool), each input row
 * is copied between pad values once (-inf for max, +0 for average) and every output column
 * runs the row loop, none the walk. A -inf tap never replaces the running maximum, and adding
 * +0 never changes a sum that starts from +0 (it is never -0), so the bits are the walk's.
 * Max pooling at row stride 1 keeps each input row's reduction in a ring of POOL_RING rows, so
 * a row shared by several windows is reduced once; each output row is then the
 * maximum of its rows' reductions, rows ascending: the generic order (rows ascending, each
 * row's columns ascending), so the first of equal values wins as in the walk, -0 and +0
 * included. Scratch: the padded row ((ow - 1) * sw + kw floats), then the ring (POOL_RING
 * rows of ow floats). */
#define POOL_RING 4

typedef struct pool_pad {
  float *row, *ring;
  int64_t w, lo, n; /* padded width; the input row goes to [lo, lo + n) */
  bool direct;      /* every window lies inside the input row: no copy */
} pool_pad_t;

static int64_t pool_pad_floats(const pool_plan_t *p) {
  return (p->out[2] - 1) * p->stride[2] + p->k[2] + POOL_RING * p->out[2];
}

static bool pool_pad_init(const pool_plan_t *p, bool max, const berth_kernel_call_t *call, pool_pad_t *pp) {
  const int64_t ow = p->out[2], pw = p->pad[2], iw = p->in[2];
  int64_t have;
  float *buf = (float *)berth_scratch_take(call, sizeof(float), &have);
  if (!buf || ow < 1 || have < pool_pad_floats(p)) return false;
  pp->w = (ow - 1) * p->stride[2] + p->k[2];
  pp->row = buf;
  pp->ring = buf + pp->w;
  pp->lo = pw < pp->w ? pw : pp->w;
  pp->n = iw < pp->w - pp->lo ? iw : pp->w - pp->lo;
  pp->direct = pw == 0 && pp->w <= iw;
  const float v = max ? -INFINITY : 0.0f;
  for (int64_t i = 0; i < pp->w; i++) pp->row[i] = v;
  return true;
}

static const float *pool_pad_row(pool_pad_t *pp, const float *r) {
  if (pp->direct) return r; /* no window reaches past the row: the row itself */
  memcpy(pp->row + pp->lo, r, (size_t)pp->n * sizeof *r);
  return pp->row;
}

/* -inf (a window of NaNs or -infs alone) is recomputed by the walk; a branch-free scan first */
static void pool_fix_ninf(const pool_plan_t *p, const float *xc, float *yr, int64_t s1, int64_t lo1, int64_t hi1) {
  const int64_t ow = p->out[2];
  int any = 0;
  for (int64_t o = 0; o < ow; o++) any |= yr[o] == -INFINITY;
  for (int64_t o = 0; any && o < ow; o++)
    if (yr[o] == -INFINITY) yr[o] = pool_elem_f32(p, true, xc, s1, lo1, hi1, 0, o * p->stride[2] - p->pad[2]);
}

static void pool_max_ring_plane(const pool_plan_t *p, const pool_cols_t *c, pool_pad_t *pp, const float *xc,
                                float *yc) {
  const int64_t iw = p->in[2], ow = p->out[2];
  int64_t held[POOL_RING] = {-1, -1, -1, -1}; /* the input row in each slot */
  for (int64_t o1 = 0; o1 < p->out[1]; o1++) {
    float *restrict yr = yc + o1 * ow;
    const int64_t s1 = o1 * p->stride[1] - p->pad[1];
    int64_t lo1, hi1;
    pool_taps(s1, 1, p->k[1], p->in[1], &lo1, &hi1);
    const float *hr[POOL_RING] = {pp->ring, pp->ring, pp->ring, pp->ring};
    for (int64_t q1 = lo1; q1 < hi1; q1++) {
      const int64_t r = s1 + q1, slot = r % POOL_RING;
      float *h = pp->ring + slot * ow;
      if (held[slot] != r) c->fn(pool_pad_row(pp, xc + r * iw), h, ow, p->k[2], p->stride[2], true, true);
      held[slot] = r;
      hr[q1 - lo1] = h;
    }
    const float *restrict h0 = hr[0];
    if (hi1 - lo1 == 3) { /* one pass over three rows, in order */
      const float *restrict h1 = hr[1], *restrict h2 = hr[2];
      BERTH_VLOOP(o, ow, float m = h0[o]; m = h1[o] > m ? h1[o] : m; yr[o] = h2[o] > m ? h2[o] : m;);
    } else {
      memcpy(yr, h0, (size_t)ow * sizeof *yr);
      for (int64_t q = 1; q < hi1 - lo1; q++) {
        const float *restrict h = hr[q];
        BERTH_VLOOP(o, ow, yr[o] = h[o] > yr[o] ? h[o] : yr[o];);
      }
    }
    pool_fix_ninf(p, xc, yr, s1, lo1, hi1);
  }
}

/* Every window's rows accumulated into the output row in order (max without the ring, and
 * average), then average's divisors. */
static void pool_padded_plane(const pool_plan_t *p, const pool_cols_t *c, pool_pad_t *pp, bool max, const float *xc,
                              float *yc) {
  const int64_t iw = p->in[2], ow = p->out[2], kw = p->k[2], sw = p->stride[2], pw = p->pad[2];
  for (int64_t o1 = 0; o1 < p->out[1]; o1++) {
    float *restrict yr = yc + o1 * ow;
    const int64_t s1 = o1 * p->stride[1] - p->pad[1];
    int64_t lo1, hi1;
    pool_taps(s1, p->dil[1], p->k[1], p->in[1], &lo1, &hi1);
    for (int64_t q1 = lo1; q1 < hi1; q1++)
      c->fn(pool_pad_row(pp, xc + (s1 + q1 * p->dil[1]) * iw), yr, ow, kw, sw, max, q1 == lo1);
    if (max) {
      pool_fix_ninf(p, xc, yr, s1, lo1, hi1);
      continue;
    }
    const int64_t n1 = (p->flags & POOL_COUNT_PAD) ? pool_padded_taps(p, 1, s1) : hi1 - lo1;
    const float n = (float)(n1 * kw);
    for (int64_t o = 0; o < c->ca; o++) yr[o] = yr[o] / (float)(n1 * pool_avg_cols(p, o * sw - pw));
    for (int64_t o = c->ca; o < c->cb; o++) yr[o] = yr[o] / n;
    for (int64_t o = c->cb; o < ow; o++) yr[o] = yr[o] / (float)(n1 * pool_avg_cols(p, o * sw - pw));
  }
}

/* ---- the plane kernel -------------------------------------------------------------------
 * Column strides 1 and 2, kernels up to BERTH_POOL_MAX_KW columns and row spans up to
 * BERTH_POOL_MAX_SLOTS rows run the active kernel variant's pool2d_f32 (kernel_pool_ukr.h: a
 * ring of padded input rows, vectors along the output rows; the walk's bits). Its scratch:
 * the ring (slots x row floats), then for average the divisors of each output row and column. */
typedef struct pool_ukr_size {
  int64_t row, slots, rdiv, cdiv; /* floats of a slot, slots, and of the two divisor arrays */
  int64_t lh, lw;                 /* planes in the lanes: the padded plane's rows and columns, else 0 */
} pool_ukr_size_t;

/* Small planes put planes in the lanes (kernel_pool_ukr.h): one padded plane of
 * BERTH_POOL_MAX_LANES-float vectors and the output plane's vectors, then the divisors. The
 * float bound admits 28x28 planes whose windows reach one row and column past them (3x3 stride 2
 * ceil mode or pads 1, 29 x 29 + 14 x 14 vectors: 66 KB; measured, Inception v2's 320 x 28 x 28
 * max pool 118 -> 57 us on AVX2 against the ring). */
enum { POOL_LANES_MAX_OW = 14, POOL_LANES_MAX_FLOATS = 20480 };

static bool pool_lanes_size(const pool_plan_t *p, pool_ukr_size_t *z) {
  const int64_t ih = p->in[1], iw = p->in[2], oh = p->out[1], ow = p->out[2];
  const int64_t rows = (oh - 1) * p->stride[1] + (p->k[1] - 1) * p->dil[1] + 1, cols = (ow - 1) * p->stride[2] + p->k[2];
  const int64_t lh = p->pad[1] + ih > rows ? p->pad[1] + ih : rows, lw = p->pad[2] + iw > cols ? p->pad[2] + iw : cols;
  if (ow > POOL_LANES_MAX_OW || lh > POOL_LANES_MAX_FLOATS || lw > POOL_LANES_MAX_FLOATS ||
      (lh * lw + oh * ow) * BERTH_POOL_MAX_LANES > POOL_LANES_MAX_FLOATS)
    return false;
  z->lh = lh, z->lw = lw;
  z->row = (lh * lw + oh * ow) * BERTH_POOL_MAX_LANES, z->slots = 0;
  z->rdiv = (oh + 15) / 16 * 16;
  z->cdiv = (ow + 15) / 16 * 16;
  return true;
}

static bool pool_ukr_size(const pool_plan_t *p, pool_ukr_size_t *z) {
  if (pool_lanes_size(p, z)) return true;
  z->lh = z->lw = 0;
  const int64_t span = (p->k[1] - 1) * p->dil[1] + 1, kw = p->k[2], sw = p->stride[2];
  if ((sw != 1 && sw != 2) || kw > BERTH_POOL_MAX_KW || span > BERTH_POOL_MAX_SLOTS || p->out[2] > (1 << 20) ||
      p->in[2] > (1 << 20))
    return false;
  /* measured: where no input row serves two windows and none reaches into the padding (DenseNet's
   * 2x2 stride 2), the row loops on the input itself beat the copy into deinterleaved rows */
  if (sw == 2 && p->k[1] <= p->stride[1] && p->dil[1] == 1 && p->pad[2] == 0 && (p->out[2] - 1) * sw + kw <= p->in[2])
    return false;
  const int64_t m = p->out[2] > 16 ? p->out[2] : 16, iw = p->in[2], pw = p->pad[2];
  int64_t row;
  if (sw == 1) {
    row = m + kw - 1 > pw + iw ? m + kw - 1 : pw + iw;
    row = (row + 7) / 8 * 8; /* rows start on 32 bytes */
  } else {
    int64_t half = m + (kw - 1) / 2 > (pw + iw + 1) / 2 ? m + (kw - 1) / 2 : (pw + iw + 1) / 2;
    row = 2 * ((half + 7) / 8 * 8);
  }
  z->row = row;
  int64_t want = span;
  if (BERTH_POOL_BLOCKS(p->k[1], kw, p->stride[1], p->dil[1], p->out[1])) want = 3 * p->stride[1] + 3;
  for (z->slots = 1; z->slots < want;) z->slots *= 2;
  z->rdiv = (p->out[1] + 15) / 16 * 16;
  z->cdiv = (m + 15) / 16 * 16;
  return true;
}

static int64_t pool_ukr_floats(const pool_ukr_size_t *z, bool max) {
  return (z->slots + 1) * z->row + (max ? 0 : z->rdiv + z->cdiv);
}

static bool pool_ukr_f32(const pool_plan_t *p, bool max, const berth_kernel_call_t *call, const float *x, float *y) {
  pool_ukr_size_t z;
  int64_t have;
  float *buf = (float *)berth_scratch_take(call, sizeof(float), &have);
  if (!buf || !pool_ukr_size(p, &z) || have < pool_ukr_floats(&z, max)) return false;
  berth_pool_geom_t g = {p->in[1], p->in[2], p->out[1], p->out[2], p->k[1], p->k[2], p->stride[1], p->stride[2],
                         p->dil[1], p->pad[1], p->pad[2], z.row, z.slots, max, NULL, NULL, z.lh, z.lw};
  if (!max) {
    float *rdiv = buf + (z.slots + 1) * z.row, *cdiv = rdiv + z.rdiv;
    for (int64_t o1 = 0; o1 < g.oh; o1++) {
      const int64_t s1 = o1 * g.sh - g.ph;
      int64_t lo1, hi1;
      pool_taps(s1, g.dh, g.kh, g.ih, &lo1, &hi1);
      rdiv[o1] = (float)((p->flags & POOL_COUNT_PAD) ? pool_padded_taps(p, 1, s1) : hi1 - lo1);
    }
    for (int64_t o = 0; o < z.cdiv; o++) cdiv[o] = o < g.ow ? (float)pool_avg_cols(p, o * g.sw - g.pw) : 1.0f;
    g.rdiv = rdiv;
    g.cdiv = cdiv;
  }
  BERTH_KCALL(pool2d_f32)(&g, p->nc, x, y, buf);
  return true;
}

/* ---- whole-plane windows ----------------------------------------------------------------
 * A window that is the whole plane, without padding (a global pool written as MaxPool or
 * AveragePool: output 1x1): each output is its plane reduced in memory order, the walk's order
 * (rows ascending, then columns), POOL_CHAINS planes at a time as independent chains, so that
 * the adds (or max updates) of different planes overlap instead of each waiting on the one
 * before. Max starts from -inf and takes a tap when it is greater (the first of equal values
 * stays, NaNs are skipped); a -inf result (a plane of NaNs and -infs alone) is recomputed by the
 * walk's rule. Average divides by the plane's size, the walk's divisor. No scratch. */
enum { POOL_CHAINS = 8 };

static bool pool_whole_plane(const pool_plan_t *p) {
  return p->k[1] == p->in[1] && p->k[2] == p->in[2] && (p->dil[1] == 1 || p->in[1] == 1) && p->pad[1] == 0 &&
         p->pad[2] == 0 && p->pad_end[1] == 0 && p->pad_end[2] == 0 && p->out[1] == 1 && p->out[2] == 1;
}

/* The walk's maximum of the n elements at xc: the first taken, then any greater one, or any at
 * all while the maximum is a NaN. */
static float pool_walk_max_f32(const float *xc, int64_t n) {
  float m = xc[0];
  for (int64_t i = 1; i < n; i++)
    if (xc[i] > m || m != m) m = xc[i];
  return m;
}

/* y[k] for K planes at x (il elements each), K <= POOL_CHAINS. */
static inline __attribute__((always_inline)) void pool_whole_chains(int K, bool max, const float *x, int64_t il,
                                                                   float *y) {
  float a[POOL_CHAINS];
  _Pragma("GCC unroll 8") for (int k = 0; k < K; k++) a[k] = max ? -INFINITY : 0.0f;
  if (max) {
    for (int64_t i = 0; i < il; i++) {
      _Pragma("GCC unroll 8") for (int k = 0; k < K; k++) {
        const float t = x[k * il + i];
        a[k] = t > a[k] ? t : a[k];
      }
    }
  } else {
    for (int64_t i = 0; i < il; i++) {
      _Pragma("GCC unroll 8") for (int k = 0; k < K; k++) a[k] += x[k * il + i];
    }
  }
  const float n = (float)il;
  _Pragma("GCC unroll 8") for (int k = 0; k < K; k++) y[k] = max ? a[k] : a[k] / n;
}

static void pool_whole_f32(const pool_plan_t *p, bool max, const float *x, float *y) {
  const int64_t il = p->il;
  int64_t c = 0;
  for (; c + POOL_CHAINS <= p->nc; c += POOL_CHAINS) {
    if (max) pool_whole_chains(POOL_CHAINS, true, x + c * il, il, y + c);
    else pool_whole_chains(POOL_CHAINS, false, x + c * il, il, y + c);
  }
  for (; c < p->nc; c++) pool_whole_chains(1, max, x + c * il, il, y + c);
  if (!max) return;
  int any = 0; /* a branch-free scan first: a -inf is rare */
  for (c = 0; c < p->nc; c++) any |= y[c] == -INFINITY;
  for (c = 0; any && c < p->nc; c++)
    if (y[c] == -INFINITY) y[c] = pool_walk_max_f32(x + c * il, il);
}

static void pool_rows_f32(const pool_plan_t *p, bool max, const berth_kernel_call_t *call, const float *x, float *y) {
  if (pool_whole_plane(p)) {
    pool_whole_f32(p, max, x, y);
    return;
  }
  if (pool_ukr_f32(p, max, call, x, y)) return;
  pool_cols_t c;
  pool_cols_init(p, &c);
  pool_pad_t pp;
  /* measured (bench/ort_compare's pooling layers): the ring pays at stride 1 (a row reduced
   * once instead of kernel-height times), not at stride 2; a copied row costs more than the
   * walk at the borders where the row loop deinterleaves (stride 2) */
  if (pool_pad_init(p, max, call, &pp) && (pp.direct || p->stride[2] == 1)) {
    const bool ring = max && p->k[1] <= POOL_RING && p->dil[1] == 1 && p->stride[1] == 1 && p->k[1] > 1;
    for (int64_t ch = 0; ch < p->nc; ch++) {
      if (ring) pool_max_ring_plane(p, &c, &pp, x + ch * p->il, y + ch * p->l);
      else pool_padded_plane(p, &c, &pp, max, x + ch * p->il, y + ch * p->l);
    }
    return;
  }
  for (int64_t ch = 0; ch < p->nc; ch++)
    for (int64_t o1 = 0; o1 < p->out[1]; o1++)
      pool_row_out(p, &c, max, x + ch * p->il, y + ch * p->l + o1 * p->out[2], o1);
}

static uint64_t pool_scratch(const char *op, pool_kind_t kind, const berth_attr_value_t *attrs,
                             const berth_type_t *in, int32_t n_in) {
  pool_plan_t p;
  if (n_in != 1 || pool_plan(op, kind, attrs, &in[0], &p, NULL) != BERTH_OK || p.nc == 0) return 0;
  if (p.out_type.dtype != BERTH_DTYPE_F32 || p.in[0] != 1 || p.k[0] != 1 || p.pad[0] != 0 || p.pad_end[0] != 0 ||
      p.dil[2] != 1)
    return 0; /* pool_rows_apply's conditions */
  if (pool_whole_plane(&p)) return 0;
  pool_ukr_size_t z;
  if (pool_ukr_size(&p, &z)) return berth_scratch_request((uint64_t)pool_ukr_floats(&z, kind == POOL_MAX), sizeof(float));
  return berth_scratch_request((uint64_t)pool_pad_floats(&p), sizeof(float));
}
uint64_t berth_scratch_max_pool(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  return pool_scratch("max_pool", POOL_MAX, attrs, in, n_in);
}
uint64_t berth_scratch_avg_pool(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  return pool_scratch("avg_pool", POOL_AVG, attrs, in, n_in);
}

static void pool_run_common(const berth_kernel_call_t *call, pool_kind_t kind, const char *op) {
  pool_plan_t p;
  pool_plan(op, kind, call->attrs, call->in[0].type, &p, NULL);
  const void *x = call->in[0].data;
  void *y = call->out[0].data;
  if (pool_rows_apply(&p, kind, call)) {
    pool_rows_f32(&p, kind == POOL_MAX, call, (const float *)x, (float *)y);
    return;
  }
  if (kind != POOL_MAX) {
    if (p.out_type.dtype == BERTH_DTYPE_F32) pool_sum_f32(&p, kind, (const float *)x, (float *)y);
    else pool_sum_f64(&p, kind, (const double *)x, (double *)y);
    return;
  }
  int64_t *ix = call->n_out == 2 ? (int64_t *)call->out[1].data : NULL;
  switch (p.out_type.dtype) {
#define BERTH_X(E, s, T, U) \
  case BERTH_DTYPE_##E: pool_max_##s(&p, (const T *)x, (T *)y, ix); break;
    BERTH_KERNEL_NUM_LIST(BERTH_X)
#undef BERTH_X
    default: break;
  }
}

static berth_status_t max_pool_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                     berth_type_t *out, berth_diag_t *diag) {
  return pool_infer_common(&berth_op_def_max_pool, POOL_MAX, attrs, in, n_in, out, diag);
}
static berth_status_t max_pool_indices_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                             berth_type_t *out, berth_diag_t *diag) {
  return pool_infer_common(&berth_op_def_max_pool_indices, POOL_MAX, attrs, in, n_in, out, diag);
}
static berth_status_t avg_pool_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                     berth_type_t *out, berth_diag_t *diag) {
  return pool_infer_common(&berth_op_def_avg_pool, POOL_AVG, attrs, in, n_in, out, diag);
}
static berth_status_t lp_pool_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                    berth_type_t *out, berth_diag_t *diag) {
  return pool_infer_common(&berth_op_def_lp_pool, POOL_LP, attrs, in, n_in, out, diag);
}
static void max_pool_run(const berth_kernel_call_t *call) { pool_run_common(call, POOL_MAX, "max_pool"); }
static void max_pool_indices_run(const berth_kernel_call_t *call) {
  pool_run_common(call, POOL_MAX, "max_pool_indices");
}
static void avg_pool_run(const berth_kernel_call_t *call) { pool_run_common(call, POOL_AVG, "avg_pool"); }
static void lp_pool_run(const berth_kernel_call_t *call) { pool_run_common(call, POOL_LP, "lp_pool"); }

berth_status_t berth_pool_infer(bool max, const berth_attr_value_t *attrs, const berth_type_t *x, berth_type_t *out,
                                berth_diag_t *diag) {
  return max ? max_pool_infer(attrs, x, 1, out, diag) : avg_pool_infer(attrs, x, 1, out, diag);
}

static const berth_attr_spec_t pool_attrs[] = {
    {"kernel_shape", BERTH_ATTR_INTS, true, 0, 0}, {"strides", BERTH_ATTR_INTS, false, 0, 0},
    {"pads", BERTH_ATTR_INTS, false, 0, 0},        {"dilations", BERTH_ATTR_INTS, false, 0, 0},
    {"flags", BERTH_ATTR_INT, false, 0, 0},        {"p", BERTH_ATTR_SCALAR, false, 0, 2.0},
};
const berth_op_def_t berth_op_def_max_pool = {"max_pool", BERTH_OPKIND_KERNEL, 1, 1, 1, 5, pool_attrs,
                                              max_pool_infer, max_pool_run};
const berth_op_def_t berth_op_def_max_pool_indices = {"max_pool_indices", BERTH_OPKIND_KERNEL, 1, 1, 2, 5,
                                                      pool_attrs, max_pool_indices_infer, max_pool_indices_run};
const berth_op_def_t berth_op_def_avg_pool = {"avg_pool", BERTH_OPKIND_KERNEL, 1, 1, 1, 5, pool_attrs,
                                              avg_pool_infer, avg_pool_run};
const berth_op_def_t berth_op_def_lp_pool = {"lp_pool", BERTH_OPKIND_KERNEL, 1, 1, 1, 6, pool_attrs, lp_pool_infer,
                                             lp_pool_run};

/* ---- max_unpool --------------------------------------------------------------------------
 * max_unpool(x, indices) {inferred, shape}: y of dims `shape`, zero but where indices put
 * x's values. An index is a flat row-major index into a tensor of dims `inferred` (what
 * MaxUnpool computes from its kernel, strides and pads; `shape` may be larger in every
 * dim, and the inferred tensor sits at its start). Indices are data: one outside
 * [0, numel(inferred)) is skipped (the importer checks them at run time). Later indices win
 * on duplicates. */
enum { UNPOOL_INFERRED, UNPOOL_SHAPE };

static berth_status_t max_unpool_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                       berth_type_t *out, berth_diag_t *diag) {
  char sa[160], sb[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_max_unpool, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("max_unpool", 0, in[0].dtype, BERTH_MASK_NUM, diag));
  BERTH_TRY(berth_kernel_check_dtype("max_unpool", 1, in[1].dtype, BERTH_DTYPE_BIT(I64), diag));
  const berth_type_t *x = &in[0];
  bool same = in[1].rank == x->rank;
  for (int32_t k = 0; same && k < x->rank; k++) same = in[1].dims[k] == x->dims[k];
  if (!same)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "max_unpool: indices %s do not have the shape of input %s",
                      berth_type_format(&in[1], sa, sizeof sa), berth_type_format(x, sb, sizeof sb));
  BERTH_TRY(berth_kernel_check_ints("max_unpool", "inferred", &attrs[UNPOOL_INFERRED], diag));
  BERTH_TRY(berth_kernel_check_ints("max_unpool", "shape", &attrs[UNPOOL_SHAPE], diag));
  if (attrs[UNPOOL_INFERRED].n != x->rank || attrs[UNPOOL_SHAPE].n != x->rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "max_unpool: inferred and shape have %d and %d values, expected %d",
                      (int)attrs[UNPOOL_INFERRED].n, (int)attrs[UNPOOL_SHAPE].n, (int)x->rank);
  berth_type_t t;
  berth_kernel_type_init(&t, x->dtype, x->rank);
  for (int32_t k = 0; k < x->rank; k++) {
    int64_t a = attrs[UNPOOL_INFERRED].ints[k], b = attrs[UNPOOL_SHAPE].ints[k];
    if (a < 0 || b < a || b > BERTH_MAX_DIM)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "max_unpool: dim %d has inferred size %lld and output size %lld, expected 0 <= inferred <= "
                        "output <= 2^40",
                        (int)k, (long long)a, (long long)b);
    t.dims[k] = b;
  }
  BERTH_TRY(berth_kernel_check_output("max_unpool", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void max_unpool_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type, *y = call->out[0].type;
  const int64_t *inf = call->attrs[UNPOOL_INFERRED].ints;
  size_t es = berth_dtype_size(x->dtype);
  memset(call->out[0].data, 0, berth_type_bytes(y));
  if (berth_kernel_is_empty(x) || berth_kernel_is_empty(y)) return;
  int64_t total = 1;
  for (int32_t k = 0; k < x->rank; k++) total *= inf[k];
  const int64_t n = berth_type_numel(x), *ix = (const int64_t *)call->in[1].data;
  const unsigned char *src = (const unsigned char *)call->in[0].data;
  unsigned char *dst = (unsigned char *)call->out[0].data;
  for (int64_t i = 0; i < n; i++) {
    int64_t f = ix[i];
    if (f < 0 || f >= total) continue;
    int64_t off = 0, mul = 1;
    for (int32_t k = x->rank - 1; k >= 0; k--) {
      off += (f % inf[k]) * mul;
      f /= inf[k];
      mul *= y->dims[k];
    }
    memcpy(dst + (size_t)off * es, src + (size_t)i * es, es);
  }
}

static const berth_attr_spec_t max_unpool_attrs[] = {
    {"inferred", BERTH_ATTR_INTS, true, 0, 0},
    {"shape", BERTH_ATTR_INTS, true, 0, 0},
};
const berth_op_def_t berth_op_def_max_unpool = {"max_unpool", BERTH_OPKIND_KERNEL, 2, 2, 1, 2, max_unpool_attrs,
                                                max_unpool_infer, max_unpool_run};

/* ---- max_roi_pool ------------------------------------------------------------------------
 * max_roi_pool(x, rois) {pooled_shape, spatial_scale}: ONNX MaxRoiPool, as onnxruntime and
 * Caffe compute it. x is [N, C, H, W], rois [R, 5] rows (batch, x1, y1, x2, y2) of x's dtype;
 * the result is [R, C, PH, PW]. Per roi, its corners are round(coordinate * spatial_scale)
 * (half away from zero), its size (end - start + 1, at least 1) is split into PH x PW bins:
 * bin (i, j) covers rows start_y + floor(i * h / PH) .. start_y + ceil((i + 1) * h / PH) (end
 * excluded), clipped to the input, columns alike; its value is the largest element there,
 * 0 for a bin that the clipping empties. A roi's batch index is data: one that is not a
 * finite number in [0, N) (truncated), or a corner that is not finite, gives zeros. */
enum { ROI_POOLED_SHAPE, ROI_SPATIAL_SCALE };

static berth_status_t max_roi_pool_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                         berth_type_t *out, berth_diag_t *diag) {
  char sa[160], sb[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_max_roi_pool, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("max_roi_pool", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  BERTH_TRY(berth_kernel_check_same_dtype("max_roi_pool", in, 0, 1, diag));
  if (in[0].rank != 4 || in[1].rank != 2 || in[1].dims[1] != 5)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "max_roi_pool: input %s and rois %s, expected [N, C, H, W] and [R, 5]",
                      berth_type_format(&in[0], sa, sizeof sa), berth_type_format(&in[1], sb, sizeof sb));
  const berth_attr_value_t *ps = &attrs[ROI_POOLED_SHAPE];
  BERTH_TRY(berth_kernel_check_ints("max_roi_pool", "pooled_shape", ps, diag));
  if (ps->n != 2 || ps->ints[0] < 1 || ps->ints[1] < 1 || ps->ints[0] > BERTH_MAX_DIM || ps->ints[1] > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "max_roi_pool: pooled_shape must be two sizes >= 1");
  double s = attrs[ROI_SPATIAL_SCALE].f;
  if (!(s > 0 && s < INFINITY))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "max_roi_pool: spatial_scale is %g, expected a finite number > 0", s);
  berth_type_t t;
  berth_kernel_type_init(&t, in[0].dtype, 4);
  t.dims[0] = in[1].dims[0];
  t.dims[1] = in[0].dims[1];
  t.dims[2] = ps->ints[0];
  t.dims[3] = ps->ints[1];
  BERTH_TRY(berth_kernel_check_output("max_roi_pool", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

/* One roi corner on the feature map, or false when it is not a finite number within 2^40. */
#define ROI_COORD(v, scale, out) \
  (fabs((double)(v) * (double)(scale)) <= (double)BERTH_MAX_DIM && ((out) = (int64_t)round((v) * (scale)), true))

#define MAX_ROI_POOL_FN(s, T, FLOOR, CEIL)                                                                  \
  static void max_roi_pool_##s(const berth_kernel_call_t *call) {                                          \
    const berth_type_t *xt = call->in[0].type;                                                             \
    const int64_t n = xt->dims[0], ch = xt->dims[1], h = xt->dims[2], w = xt->dims[3];                     \
    const int64_t nr = call->in[1].type->dims[0], ph = call->attrs[ROI_POOLED_SHAPE].ints[0];              \
    const int64_t pw = call->attrs[ROI_POOLED_SHAPE].ints[1];                                              \
    const T scale = (T)call->attrs[ROI_SPATIAL_SCALE].f, *x = (const T *)call->in[0].data;                 \
    const T *rois = (const T *)call->in[1].data;                                                           \
    T *y = (T *)call->out[0].data;                                                                         \
    for (int64_t r = 0; r < nr; r++) {                                                                     \
      const T *roi = rois + r * 5;                                                                         \
      T *yr = y + r * ch * ph * pw;                                                                        \
      int64_t x1, y1, x2, y2;                                                                              \
      bool ok = roi[0] >= 0 && roi[0] < (T)n && ROI_COORD(roi[1], scale, x1) &&                            \
                ROI_COORD(roi[2], scale, y1) && ROI_COORD(roi[3], scale, x2) && ROI_COORD(roi[4], scale, y2); \
      if (!ok) {                                                                                           \
        for (int64_t i = 0; i < ch * ph * pw; i++) yr[i] = 0;                                              \
        continue;                                                                                          \
      }                                                                                                    \
      const int64_t b = (int64_t)roi[0], rh = y2 - y1 + 1 > 1 ? y2 - y1 + 1 : 1;                           \
      const int64_t rw = x2 - x1 + 1 > 1 ? x2 - x1 + 1 : 1;                                                \
      const T bh = (T)rh / (T)ph, bw = (T)rw / (T)pw;                                                      \
      for (int64_t c = 0; c < ch; c++) {                                                                   \
        const T *xc = x + (b * ch + c) * h * w;                                                            \
        for (int64_t i = 0; i < ph; i++) {                                                                 \
          int64_t hs = (int64_t)FLOOR((T)i * bh) + y1, he = (int64_t)CEIL((T)(i + 1) * bh) + y1;           \
          hs = hs < 0 ? 0 : hs > h ? h : hs;                                                               \
          he = he < 0 ? 0 : he > h ? h : he;                                                               \
          for (int64_t j = 0; j < pw; j++) {                                                               \
            int64_t ws = (int64_t)FLOOR((T)j * bw) + x1, we = (int64_t)CEIL((T)(j + 1) * bw) + x1;         \
            ws = ws < 0 ? 0 : ws > w ? w : ws;                                                             \
            we = we < 0 ? 0 : we > w ? w : we;                                                             \
            T m = 0;                                                                                       \
            bool any = false;                                                                              \
            for (int64_t hh = hs; hh < he; hh++)                                                           \
              for (int64_t ww = ws; ww < we; ww++) {                                                       \
                const T v = xc[hh * w + ww];                                                               \
                if (!any || v > m || m != m) m = v;                                                        \
                any = true;                                                                                \
              }                                                                                            \
            yr[(c * ph + i) * pw + j] = m;                                                                 \
          }                                                                                                \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
  }
MAX_ROI_POOL_FN(f32, float, floorf, ceilf)
MAX_ROI_POOL_FN(f64, double, floor, ceil)

static void max_roi_pool_run(const berth_kernel_call_t *call) {
  if (berth_kernel_is_empty(call->out[0].type)) return;
  if (call->in[0].type->dtype == BERTH_DTYPE_F32) max_roi_pool_f32(call);
  else max_roi_pool_f64(call);
}

static const berth_attr_spec_t max_roi_pool_attrs[] = {
    {"pooled_shape", BERTH_ATTR_INTS, true, 0, 0},
    {"spatial_scale", BERTH_ATTR_SCALAR, false, 0, 1.0},
};
const berth_op_def_t berth_op_def_max_roi_pool = {"max_roi_pool", BERTH_OPKIND_KERNEL, 2, 2, 1, 2, max_roi_pool_attrs,
                                                  max_roi_pool_infer, max_roi_pool_run};
