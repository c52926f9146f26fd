/* resample(x, index, weight) {shape, taps, extrapolation}: separable interpolation, the
 * kernel of ONNX Resize and Upsample.
 *
 * The result has dims `shape` (one per dim of x). Each dim a has taps[a] >= 1 taps per output
 * position; its table is shape[a] * taps[a] entries of the i64 `index` and f64 `weight`
 * tensors (the dims' tables one after the other):
 *   out[o] = sum over tap choices t_a of  prod_a weight_a[o_a][t_a] * x[index_a[o_a][t_a] ...]
 * An index outside 0..dims[a]-1 (the ONNX importer writes -1) marks an output position whose
 * value is `extrapolation` (tf_crop_and_resize outside the crop box).
 *
 * The ONNX importer computes the tables at compile time from the mode, the coordinate
 * transformation, the rounding or cubic coefficients, antialiasing and exclude_outside, so
 * this kernel is the same for all of them. Sums are in double; floats only, except that a
 * table of single taps (nearest) copies elements of any dtype exactly, and of floats where
 * every tap weighs 1 (x itself, the same bits), row by row. */
#include "kernel_util.h"

#include <string.h>

enum { RS_SHAPE, RS_TAPS, RS_EXTRAP };

#define RS_MAX_TAPS 4096
#define RS_MAX_COMBOS 64

static berth_status_t resample_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                     berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_resample, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("resample", 1, in[1].dtype, BERTH_DTYPE_BIT(I64), diag));
  BERTH_TRY(berth_kernel_check_dtype("resample", 2, in[2].dtype, BERTH_DTYPE_BIT(F64), diag));
  BERTH_TRY(berth_kernel_check_ints("resample", "shape", &attrs[RS_SHAPE], diag));
  BERTH_TRY(berth_kernel_check_ints("resample", "taps", &attrs[RS_TAPS], diag));
  const berth_type_t *x = &in[0];
  char sa[160];
  int32_t r = x->rank;
  if (r < 1 || attrs[RS_SHAPE].n != r || attrs[RS_TAPS].n != r)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "resample: shape and taps have %d and %d values for input %s",
                      (int)attrs[RS_SHAPE].n, (int)attrs[RS_TAPS].n, berth_type_format(x, sa, sizeof sa));
  int64_t total = 0;
  bool single = true;
  berth_type_t t;
  berth_kernel_type_init(&t, x->dtype, r);
  for (int32_t a = 0; a < r; a++) {
    int64_t o = attrs[RS_SHAPE].ints[a], k = attrs[RS_TAPS].ints[a];
    if (o < 0 || o > BERTH_MAX_DIM || k < 1 || k > RS_MAX_TAPS)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "resample: dim %d has size %lld and %lld taps, expected 0..2^40 "
                        "and 1..%d", (int)a, (long long)o, (long long)k, RS_MAX_TAPS);
    if (o > 0 && x->dims[a] == 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "resample: input %s is empty in dim %d, output is not",
                        berth_type_format(x, sa, sizeof sa), (int)a);
    single &= k == 1;
    total += o * k; /* <= 8 * 2^40 * 4096 */
    t.dims[a] = o;
  }
  if (!single) BERTH_TRY(berth_kernel_check_dtype("resample", 0, x->dtype, BERTH_MASK_FLOAT, diag));
  for (int32_t i = 1; i < 3; i++)
    if (in[i].rank != 1 || in[i].dims[0] != total)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "resample: table %s has the wrong shape, expected [%lld]",
                        berth_type_format(&in[i], sa, sizeof sa), (long long)total);
  BERTH_TRY(berth_kernel_check_output("resample", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

typedef struct rs_plan {
  int32_t r;
  int64_t in[BERTH_MAX_RANK], stride[BERTH_MAX_RANK], k[BERTH_MAX_RANK];
  const int64_t *idx[BERTH_MAX_RANK];
  const double *w[BERTH_MAX_RANK];
} rs_plan_t;

/* One row of single-tap output along the last dim: y[j] = x[ix[j]], or `fill` where ix[j] is
 * outside 0..n-1 (whole elements copied, so any dtype, NaN payloads included). */
#define RS_GATHER_ROW(T)                                                                         \
  {                                                                                              \
    const T *xs = (const T *)xr;                                                                 \
    T *yd = (T *)y, fv;                                                                          \
    memcpy(&fv, fill, sizeof fv);                                                                \
    for (int64_t j = 0; j < W; j++) yd[j] = ix[j] >= 0 && ix[j] < n ? xs[ix[j]] : fv;           \
  }
static void resample_gather_row(const unsigned char *xr, const int64_t *ix, int64_t n, unsigned char *y, int64_t W,
                                size_t es, const unsigned char *fill) {
  switch (es) {
    case 1: RS_GATHER_ROW(uint8_t) break;
    case 2: RS_GATHER_ROW(uint16_t) break;
    case 4: RS_GATHER_ROW(uint32_t) break;
    case 8: RS_GATHER_ROW(uint64_t) break;
    default:
      for (int64_t j = 0; j < W; j++, y += es) memcpy(y, ix[j] >= 0 && ix[j] < n ? xr + (size_t)ix[j] * es : fill, es);
  }
}

/* Single taps of weight 1 (nearest, or linear at whole-number positions): a gather of whole
 * elements, row by row along the last dim; an output row whose input row is the one before's
 * (an upsampled dim) is a copy of the row just written. Extrapolated positions read the
 * `extrapolation` value (f32, f64) or 0 (integers). */
static void resample_gather(const rs_plan_t *p, const berth_kernel_call_t *call, int64_t count) {
  const size_t es = berth_dtype_size(call->in[0].type->dtype);
  const unsigned char *src = (const unsigned char *)call->in[0].data;
  unsigned char *dst = (unsigned char *)call->out[0].data;
  const berth_type_t *ot = call->out[0].type;
  unsigned char fill[16];
  memset(fill, 0, sizeof fill);
  double e = call->attrs[RS_EXTRAP].f;
  switch (ot->dtype) {
    case BERTH_DTYPE_F32: { float f = (float)e; memcpy(fill, &f, sizeof f); break; }
    case BERTH_DTYPE_F64: memcpy(fill, &e, sizeof e); break;
    default: break; /* integers: extrapolated positions (tf_crop_and_resize only) read 0 */
  }
  const int32_t last = p->r - 1;
  const int64_t W = ot->dims[last], rows = count / W;
  const size_t row_bytes = (size_t)W * es;
  int64_t o[BERTH_MAX_RANK] = {0}, prev = -1; /* the input row of the row before (-1: none) */
  for (int64_t row = 0; row < rows; row++, dst += row_bytes) {
    int64_t off = 0;
    bool outside = false;
    for (int32_t a = 0; a < last; a++) {
      const int64_t i = p->idx[a][o[a]];
      if (i < 0 || i >= p->in[a]) outside = true;
      else off += i * p->stride[a];
    }
    if (outside) {
      for (int64_t j = 0; j < W; j++) memcpy(dst + (size_t)j * es, fill, es);
    } else if (off == prev) {
      memcpy(dst, dst - row_bytes, row_bytes);
    } else {
      resample_gather_row(src + (size_t)off * es, p->idx[last], p->in[last], dst, W, es, fill);
    }
    prev = outside ? -1 : off;
    for (int32_t a = last - 1; a >= 0; a--) {
      if (++o[a] < ot->dims[a]) break;
      o[a] = 0;
    }
  }
}

/* Whether every in-range tap of a single-tap table weighs exactly 1 (so that the float sums
 * w * x are x itself, and the gather gives the same bits). */
static bool resample_unit_weights(const rs_plan_t *p, const berth_type_t *ot) {
  for (int32_t a = 0; a < p->r; a++)
    for (int64_t o = 0; o < ot->dims[a]; o++)
      if (p->idx[a][o] >= 0 && p->idx[a][o] < p->in[a] && p->w[a][o] != 1.0) return false;
  return true;
}

/* The weighted sum of one output element over every choice of taps. */
#define RS_ELEM_FN(s, T)                                                                              \
  static T resample_elem_##s(const rs_plan_t *p, const T *x, const int64_t *o, double extrap) {       \
    int32_t act[BERTH_MAX_RANK], n_act = 0;                                                           \
    int64_t base = 0;                                                                                 \
    double w0 = 1;                                                                                    \
    for (int32_t a = 0; a < p->r; a++) {                                                              \
      const int64_t *ix = p->idx[a] + o[a] * p->k[a];                                                 \
      for (int64_t t = 0; t < p->k[a]; t++)                                                           \
        if (ix[t] < 0 || ix[t] >= p->in[a]) return (T)extrap;                                         \
      if (p->k[a] == 1) {                                                                             \
        base += ix[0] * p->stride[a];                                                                 \
        w0 *= p->w[a][o[a]];                                                                          \
      } else {                                                                                        \
        act[n_act++] = a;                                                                             \
      }                                                                                               \
    }                                                                                                 \
    if (n_act == 0) return (T)(w0 * (double)x[base]);                                                 \
    int64_t t[BERTH_MAX_RANK] = {0};                                                                  \
    double sum = 0;                                                                                   \
    for (;;) {                                                                                        \
      int64_t off = base;                                                                             \
      double w = w0;                                                                                  \
      for (int32_t j = 0; j < n_act; j++) {                                                           \
        int32_t a = act[j];                                                                           \
        int64_t e = o[a] * p->k[a] + t[j];                                                            \
        off += p->idx[a][e] * p->stride[a];                                                           \
        w *= p->w[a][e];                                                                              \
      }                                                                                               \
      sum += w * (double)x[off];                                                                      \
      int32_t j = n_act - 1;                                                                          \
      for (; j >= 0; j--) {                                                                           \
        if (++t[j] < p->k[act[j]]) break;                                                             \
        t[j] = 0;                                                                                     \
      }                                                                                               \
      if (j < 0) break;                                                                               \
    }                                                                                                 \
    return (T)sum;                                                                                    \
  }                                                                                                   \
  /* Row by row along the last dim: the tap choices of the other dims (at most RS_MAX_COMBOS;    \
   * more take the element-wise path) are expanded once per row into (offset, weight) pairs. */ \
  static void resample_sum_##s(const rs_plan_t *p, const berth_kernel_call_t *call, int64_t count) {  \
    const T *x = (const T *)call->in[0].data;                                                         \
    T *y = (T *)call->out[0].data;                                                                    \
    const berth_type_t *ot = call->out[0].type;                                                       \
    const double extrap = call->attrs[RS_EXTRAP].f;                                                   \
    const int32_t last = p->r - 1;                                                                    \
    const int64_t W = ot->dims[last], kl = p->k[last], rows = count / W;                              \
    int64_t o[BERTH_MAX_RANK] = {0}, coff[RS_MAX_COMBOS];                                             \
    double cw[RS_MAX_COMBOS];                                                                         \
    for (int64_t row = 0; row < rows; row++, y += W) {                                                \
      int64_t nc = 1;                                                                                 \
      bool outside = false, general = false;                                                          \
      coff[0] = 0;                                                                                    \
      cw[0] = 1;                                                                                      \
      for (int32_t a = 0; a < last && !outside && !general; a++) {                                    \
        const int64_t k = p->k[a], *ix = p->idx[a] + o[a] * k;                                        \
        const double *wx = p->w[a] + o[a] * k;                                                        \
        for (int64_t t = 0; t < k; t++) outside |= ix[t] < 0 || ix[t] >= p->in[a];                    \
        if (nc * k > RS_MAX_COMBOS) general = true;                                                   \
        if (outside || general) break;                                                                \
        for (int64_t c = nc - 1; c >= 0; c--) {                                                       \
          int64_t off = coff[c];                                                                      \
          double w = cw[c];                                                                           \
          for (int64_t t = k - 1; t >= 0; t--) {                                                      \
            coff[c * k + t] = off + ix[t] * p->stride[a];                                             \
            cw[c * k + t] = w * wx[t];                                                                \
          }                                                                                           \
        }                                                                                             \
        nc *= k;                                                                                      \
      }                                                                                               \
      for (int64_t j = 0; j < W; j++) {                                                               \
        if (general) {                                                                                \
          o[last] = j;                                                                                \
          y[j] = resample_elem_##s(p, x, o, extrap);                                                  \
          continue;                                                                                   \
        }                                                                                             \
        const int64_t *ij = p->idx[last] + j * kl;                                                    \
        const double *wj = p->w[last] + j * kl;                                                       \
        bool bad = outside;                                                                           \
        for (int64_t t = 0; t < kl; t++) bad |= ij[t] < 0 || ij[t] >= p->in[last];                    \
        if (bad) {                                                                                    \
          y[j] = (T)extrap;                                                                           \
          continue;                                                                                   \
        }                                                                                             \
        double sum = 0;                                                                               \
        for (int64_t c = 0; c < nc; c++) {                                                            \
          const T *xr = x + coff[c];                                                                  \
          double part = 0;                                                                            \
          for (int64_t t = 0; t < kl; t++) part += wj[t] * (double)xr[ij[t]];                         \
          sum += cw[c] * part;                                                                        \
        }                                                                                             \
        y[j] = (T)sum;                                                                                \
      }                                                                                               \
      o[last] = 0;                                                                                    \
      for (int32_t a = last - 1; a >= 0; a--) {                                                       \
        if (++o[a] < ot->dims[a]) break;                                                              \
        o[a] = 0;                                                                                     \
      }                                                                                               \
    }                                                                                                 \
  }
RS_ELEM_FN(f32, float)
RS_ELEM_FN(f64, double)

/* Whether every index of every table lies inside the input (no extrapolated position: all
 * but tf_crop_and_resize's tables). */
static bool resample_inside(const rs_plan_t *p, const berth_type_t *ot) {
  for (int32_t a = 0; a < p->r; a++)
    for (int64_t e = 0; e < ot->dims[a] * p->k[a]; e++)
      if (p->idx[a][e] < 0 || p->idx[a][e] >= p->in[a]) return false;
  return true;
}

#define RS_SLOTS 4  /* input rows interpolated along the last dim, kept for the output rows that share them */
#define RS_CHUNK 32 /* columns at a time (the slots on the stack: small runtimes' budget) */
/* resample_sum's values, the same operations in the same order for each element (so the same
 * bits), for tables with no extrapolated position and at most RS_SLOTS tap choices over the
 * other dims (bilinear and bicubic): each input row's interpolation along the last dim
 * (`part`) is computed once per block of RS_CHUNK columns and kept while the output rows that
 * read it (an upsampled dim's neighbours) are written, instead of once per output row and tap
 * choice; no per-element checks. False (nothing written) where it does not apply. */
#define RS_ROWS_FN(s, T)                                                                              \
  static bool resample_rows_##s(const rs_plan_t *p, const berth_kernel_call_t *call, int64_t count) { \
    const int32_t last = p->r - 1;                                                                    \
    int64_t nc = 1;                                                                                   \
    for (int32_t a = 0; a < last; a++)                                                                \
      if ((nc *= p->k[a]) > RS_SLOTS) return false;                                                   \
    const T *x = (const T *)call->in[0].data;                                                         \
    T *y = (T *)call->out[0].data;                                                                    \
    const berth_type_t *ot = call->out[0].type;                                                       \
    const int64_t W = ot->dims[last], kl = p->k[last], rows = count / W;                              \
    int64_t coff[RS_SLOTS], key[RS_SLOTS], used[RS_SLOTS];                                            \
    double cw[RS_SLOTS], hs[RS_SLOTS][RS_CHUNK], acc[RS_CHUNK];                                       \
    for (int64_t j0 = 0; j0 < W; j0 += RS_CHUNK) {                                                    \
      const int64_t jn = W - j0 < RS_CHUNK ? W - j0 : RS_CHUNK;                                       \
      const int64_t *ij = p->idx[last] + j0 * kl;                                                     \
      const double *wj = p->w[last] + j0 * kl;                                                        \
      for (int i = 0; i < RS_SLOTS; i++) key[i] = -1, used[i] = -1;                                   \
      int64_t o[BERTH_MAX_RANK] = {0};                                                                \
      for (int64_t row = 0; row < rows; row++) {                                                      \
        int64_t n = 1;                                                                                \
        coff[0] = 0, cw[0] = 1;                                                                       \
        for (int32_t a = 0; a < last; a++) { /* resample_sum's expansion of the tap choices */        \
          const int64_t k = p->k[a], *ix = p->idx[a] + o[a] * k;                                      \
          const double *wx = p->w[a] + o[a] * k;                                                      \
          for (int64_t c = n - 1; c >= 0; c--) {                                                      \
            const int64_t off = coff[c];                                                              \
            const double w = cw[c];                                                                   \
            for (int64_t t = k - 1; t >= 0; t--) {                                                    \
              coff[c * k + t] = off + ix[t] * p->stride[a];                                           \
              cw[c * k + t] = w * wx[t];                                                              \
            }                                                                                         \
          }                                                                                           \
          n *= k;                                                                                     \
        }                                                                                             \
        for (int64_t c = 0; c < n; c++) {                                                             \
          int sl = -1, old = 0;                                                                       \
          for (int i = 0; i < RS_SLOTS && sl < 0; i++)                                                \
            if (key[i] == coff[c]) sl = i;                                                            \
          if (sl < 0) { /* the slot used longest ago (never one of this row's: n <= RS_SLOTS) */      \
            for (int i = 1; i < RS_SLOTS; i++)                                                        \
              if (used[i] < used[old]) old = i;                                                       \
            sl = old;                                                                                 \
            key[sl] = coff[c];                                                                        \
            const T *xr = x + coff[c];                                                                \
            if (kl == 2) /* linear: the two taps unrolled */                                         \
              for (int64_t j = 0; j < jn; j++) {                                                      \
                double part = 0;                                                                      \
                part += wj[2 * j] * (double)xr[ij[2 * j]];                                            \
                part += wj[2 * j + 1] * (double)xr[ij[2 * j + 1]];                                    \
                hs[sl][j] = part;                                                                     \
              }                                                                                       \
            else                                                                                      \
              for (int64_t j = 0; j < jn; j++) {                                                      \
                double part = 0;                                                                      \
                for (int64_t t = 0; t < kl; t++) part += wj[j * kl + t] * (double)xr[ij[j * kl + t]]; \
                hs[sl][j] = part;                                                                     \
              }                                                                                       \
          }                                                                                           \
          used[sl] = row;                                                                             \
          if (c == 0) /* 0 + the first term, as resample_sum's sum from 0 (-0 becomes +0) */          \
            for (int64_t j = 0; j < jn; j++) acc[j] = 0.0 + cw[0] * hs[sl][j];                        \
          else                                                                                        \
            for (int64_t j = 0; j < jn; j++) acc[j] += cw[c] * hs[sl][j];                             \
        }                                                                                             \
        for (int64_t j = 0; j < jn; j++) y[row * W + j0 + j] = (T)acc[j];                             \
        for (int32_t a = last - 1; a >= 0; a--) {                                                     \
          if (++o[a] < ot->dims[a]) break;                                                            \
          o[a] = 0;                                                                                   \
        }                                                                                             \
      }                                                                                               \
    }                                                                                                 \
    return true;                                                                                      \
  }
RS_ROWS_FN(f32, float)
RS_ROWS_FN(f64, double)

static void resample_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type, *ot = call->out[0].type;
  if (berth_kernel_is_empty(ot)) return;
  rs_plan_t p;
  p.r = x->rank;
  const int64_t *idx = (const int64_t *)call->in[1].data;
  const double *w = (const double *)call->in[2].data;
  bool single = true;
  int64_t st = 1;
  for (int32_t a = p.r - 1; a >= 0; a--) {
    p.in[a] = x->dims[a];
    p.stride[a] = st;
    st *= x->dims[a]; /* nonzero: the output is nonempty */
  }
  for (int32_t a = 0; a < p.r; a++) {
    p.k[a] = call->attrs[RS_TAPS].ints[a];
    p.idx[a] = idx;
    p.w[a] = w;
    idx += ot->dims[a] * p.k[a];
    w += ot->dims[a] * p.k[a];
    single &= p.k[a] == 1;
  }
  int64_t count = berth_type_numel(ot);
  if (single && ((x->dtype != BERTH_DTYPE_F32 && x->dtype != BERTH_DTYPE_F64) || resample_unit_weights(&p, ot))) {
    resample_gather(&p, call, count);
    return;
  }
  const bool inside = resample_inside(&p, ot);
  if (x->dtype == BERTH_DTYPE_F32) {
    if (!inside || !resample_rows_f32(&p, call, count)) resample_sum_f32(&p, call, count);
  } else if (!inside || !resample_rows_f64(&p, call, count)) {
    resample_sum_f64(&p, call, count);
  }
}

static const berth_attr_spec_t resample_attrs[] = {
    {"shape", BERTH_ATTR_INTS, true, 0, 0},
    {"taps", BERTH_ATTR_INTS, true, 0, 0},
    {"extrapolation", BERTH_ATTR_SCALAR, false, 0, 0},
};
const berth_op_def_t berth_op_def_resample = {"resample", BERTH_OPKIND_KERNEL, 3, 3, 1, 3, resample_attrs,
                                              resample_infer, resample_run};
