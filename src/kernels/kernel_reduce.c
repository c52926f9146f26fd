/* Reductions: sum mean max min prod (x) {axes, keepdims} and argmax argmin (x) {axis,
 * keepdims, select_last_index}. Numeric dtypes only (bool is rejected: its sum would need another
 * output dtype).
 *
 * sum, max, min and float mean stream once through the input in memory order: the output
 * starts at the identity (0, -inf / INT_MIN, +inf / INT_MAX, 1) and each contiguous input row
 * is either folded into one output element (the innermost dim is reduced) or added
 * elementwise into an output row (it is kept). Integer sums and products wrap; a product
 * over an empty set is 1. Float max/min propagate
 * NaN. Integer mean sums each output's elements in 64 bits and truncates toward zero
 * (64-bit sums that overflow wrap); float mean of zero elements is NaN (0/0). */
#include "kernel_util.h"

#include <math.h>
#include <string.h>

/* ==== plans ========================================================================= */

enum { RED_AXES, RED_KEEPDIMS };

typedef struct reduce_plan {
  bool reduced[BERTH_MAX_RANK];
  int64_t count; /* input elements per output element */
  berth_type_t out;
} reduce_plan_t;

static berth_status_t reduce_plan(const char *op, bool needs_elements, const berth_attr_value_t *attrs,
                                  const berth_type_t *x, reduce_plan_t *p, berth_diag_t *diag) {
  const berth_attr_value_t *axes = &attrs[RED_AXES];
  BERTH_TRY(berth_kernel_check_ints(op, "axes", axes, diag));
  bool keepdims;
  BERTH_TRY(berth_kernel_get_flag(op, "keepdims", &attrs[RED_KEEPDIMS], &keepdims, diag));
  for (int32_t k = 0; k < BERTH_MAX_RANK; k++) p->reduced[k] = axes->n == 0 && k < x->rank;
  for (int32_t i = 0; i < axes->n; i++) {
    int32_t a;
    BERTH_TRY(berth_kernel_axis(op, "axes entry", axes->ints[i], x->rank, &a, diag));
    if (p->reduced[a])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: axes names axis %lld twice, expected distinct axes", op,
                        (long long)axes->ints[i]);
    p->reduced[a] = true;
  }
  berth_kernel_type_init(&p->out, x->dtype, 0);
  p->count = 1;
  bool empty_reduced = false;
  for (int32_t k = 0; k < x->rank; k++)
    if (p->reduced[k] && x->dims[k] == 0) empty_reduced = true;
  for (int32_t k = 0; k < x->rank; k++) {
    if (p->reduced[k]) {
      /* with no zero dim the product is at most numel(x) */
      p->count = empty_reduced ? 0 : p->count * x->dims[k];
      if (keepdims) p->out.dims[p->out.rank++] = 1;
    } else {
      p->out.dims[p->out.rank++] = x->dims[k];
    }
  }
  BERTH_TRY(berth_kernel_check_output(op, &p->out, diag));
  if (needs_elements && p->count == 0 && !berth_kernel_is_empty(&p->out)) {
    char a[160];
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: reduces %s over zero elements, which has no result; expected nonempty reduced axes",
                      op, berth_type_format(x, a, sizeof a));
  }
  return BERTH_OK;
}

/* The input as segments of merged dims, alternating kept and reduced (size-1 dims
 * dropped), with each segment's input and output strides in elements. */
typedef struct segs {
  int32_t m;
  int64_t d[BERTH_MAX_RANK], in_s[BERTH_MAX_RANK], out_s[BERTH_MAX_RANK];
  bool red[BERTH_MAX_RANK];
} segs_t;

static void make_segs(const berth_type_t *x, const bool *reduced, segs_t *g) {
  g->m = 0;
  for (int32_t k = 0; k < x->rank; k++) {
    if (x->dims[k] == 1) continue;
    if (g->m > 0 && g->red[g->m - 1] == reduced[k]) {
      g->d[g->m - 1] *= x->dims[k];
    } else {
      g->d[g->m] = x->dims[k];
      g->red[g->m++] = reduced[k];
    }
  }
  if (g->m == 0) {
    g->m = 1;
    g->d[0] = 1;
    g->red[0] = false;
  }
  int64_t si = 1, so = 1;
  for (int32_t k = g->m - 1; k >= 0; k--) {
    g->in_s[k] = si;
    si *= g->d[k];
    g->out_s[k] = g->red[k] ? 0 : so;
    if (!g->red[k]) so *= g->d[k];
  }
}

/* ==== sum / max / min / float mean: one streaming pass ============================== */

typedef void (*row_fn)(void *out, const void *in, int64_t n);
typedef void (*fill_fn)(void *out, int64_t n);

/* Identities and combines per dtype. X(s, T, U, LOWEST, HIGHEST) */
#define RED_INT_LIST(X)                                        \
  X(i8, int8_t, uint32_t, INT8_MIN, INT8_MAX)                  \
  X(u8, uint8_t, uint32_t, 0, UINT8_MAX)                       \
  X(i16, int16_t, uint32_t, INT16_MIN, INT16_MAX)              \
  X(u16, uint16_t, uint32_t, 0, UINT16_MAX)                    \
  X(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX)              \
  X(u32, uint32_t, uint32_t, 0, UINT32_MAX)                    \
  X(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX)              \
  X(u64, uint64_t, uint64_t, 0, UINT64_MAX)
#define RED_FLOAT_LIST(X) X(f32, float, float, -INFINITY, INFINITY) X(f64, double, double, -INFINITY, INFINITY)

#define SUM_I(acc, v, T, U) (T)((U)(acc) + (U)(v))
#define SUM_F(acc, v, T, U) ((acc) + (v))
#define PROD_I(acc, v, T, U) (T)((U)(acc) * (U)(v))
#define PROD_F(acc, v, T, U) ((acc) * (v))
#define MAX_I(acc, v, T, U) ((v) > (acc) ? (v) : (acc))
#define MIN_I(acc, v, T, U) ((v) < (acc) ? (v) : (acc))
#define MAX_F(acc, v, T, U) (((v) > (acc) || (v) != (v)) ? (v) : (acc))
#define MIN_F(acc, v, T, U) (((v) < (acc) || (v) != (v)) ? (v) : (acc))

/* acc_: out[j] = op(out[j], in[j]); red_: out[0] = op(out[0], in[0..n)); fill_: identity. */
#define RED_FNS(name, s, T, U, OP, IDENT)                                                    \
  static void fill_##name##_##s(void *o_, int64_t n) {                                       \
    T *o = (T *)o_;                                                                          \
    BERTH_VLOOP(j, n, o[j] = (T)(IDENT););                                                   \
  }                                                                                          \
  static void acc_##name##_##s(void *o_, const void *i_, int64_t n) {                        \
    T *restrict o = (T *)o_;                                                                 \
    const T *restrict x = (const T *)i_;                                                     \
    BERTH_VLOOP(j, n, o[j] = OP(o[j], x[j], T, U););                                         \
  }                                                                                          \
  static void red_##name##_##s(void *o_, const void *i_, int64_t n) {                        \
    T *restrict o = (T *)o_;                                                                 \
    const T *restrict x = (const T *)i_;                                                     \
    /* Eight independent accumulators let the compiler vectorize the fold (for floats   \
     * this fixes a summation order that differs from a sequential loop). */                \
    T a0 = (T)(IDENT), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;        \
    int64_t j = 0;                                                                           \
    for (; j + 8 <= n; j += 8) {                                                             \
      a0 = OP(a0, x[j], T, U);                                                               \
      a1 = OP(a1, x[j + 1], T, U);                                                           \
      a2 = OP(a2, x[j + 2], T, U);                                                           \
      a3 = OP(a3, x[j + 3], T, U);                                                           \
      a4 = OP(a4, x[j + 4], T, U);                                                           \
      a5 = OP(a5, x[j + 5], T, U);                                                           \
      a6 = OP(a6, x[j + 6], T, U);                                                           \
      a7 = OP(a7, x[j + 7], T, U);                                                           \
    }                                                                                        \
    for (; j < n; j++) a0 = OP(a0, x[j], T, U);                                              \
    a0 = OP(a0, a1, T, U);                                                                   \
    a2 = OP(a2, a3, T, U);                                                                   \
    a4 = OP(a4, a5, T, U);                                                                   \
    a6 = OP(a6, a7, T, U);                                                                   \
    a0 = OP(a0, a2, T, U);                                                                   \
    a4 = OP(a4, a6, T, U);                                                                   \
    a0 = OP(a0, a4, T, U);                                                                   \
    o[0] = OP(o[0], a0, T, U);                                                               \
  }

#define RED_INT(s, T, U, LO, HI)      \
  RED_FNS(sum, s, T, U, SUM_I, 0)     \
  RED_FNS(max, s, T, U, MAX_I, LO)    \
  RED_FNS(min, s, T, U, MIN_I, HI)    \
  RED_FNS(prod, s, T, U, PROD_I, 1)
#define RED_FLOAT(s, T, U, LO, HI)    \
  RED_FNS(sum, s, T, U, SUM_F, 0)     \
  RED_FNS(max, s, T, U, MAX_F, LO)    \
  RED_FNS(min, s, T, U, MIN_F, HI)    \
  RED_FNS(prod, s, T, U, PROD_F, 1)
RED_INT_LIST(RED_INT)
RED_FLOAT_LIST(RED_FLOAT)

typedef struct red_kernel {
  fill_fn fill;
  row_fn acc, red;
} red_kernel_t;

#define RED_ENTRY(name, E, s) [BERTH_DTYPE_##E] = {fill_##name##_##s, acc_##name##_##s, red_##name##_##s}
#define RED_TABLE(name)                                                                      \
  static const red_kernel_t name##_kernels[BERTH_DTYPE_COUNT] = {                            \
      RED_ENTRY(name, I8, i8),   RED_ENTRY(name, U8, u8),   RED_ENTRY(name, I16, i16),       \
      RED_ENTRY(name, U16, u16), RED_ENTRY(name, I32, i32), RED_ENTRY(name, U32, u32),       \
      RED_ENTRY(name, I64, i64), RED_ENTRY(name, U64, u64), RED_ENTRY(name, F32, f32),       \
      RED_ENTRY(name, F64, f64)};
RED_TABLE(sum)
RED_TABLE(max)
RED_TABLE(min)
RED_TABLE(prod)

static void reduce_stream(const red_kernel_t *k, const berth_type_t *x, const reduce_plan_t *p,
                          const void *in, void *out) {
  size_t es = berth_dtype_size(x->dtype);
  k->fill(out, berth_type_numel(&p->out));
  int64_t numel = berth_type_numel(x);
  if (numel == 0) return;
  segs_t g;
  make_segs(x, p->reduced, &g);
  int32_t last = g.m - 1;
  int64_t n = g.d[last], rows = numel / n;
  row_fn fn = g.red[last] ? k->red : k->acc;
  int64_t idx[BERTH_MAX_RANK] = {0}, off = 0;
  const char *src = (const char *)in;
  char *dst = (char *)out;
  for (int64_t r = 0; r < rows; r++) {
    fn(dst + off * (int64_t)es, src + r * n * (int64_t)es, n);
    for (int32_t k2 = last - 1; k2 >= 0; k2--) {
      off += g.out_s[k2];
      if (++idx[k2] < g.d[k2]) break;
      off -= g.out_s[k2] * g.d[k2];
      idx[k2] = 0;
    }
  }
}

/* ==== integer mean: a 64-bit sum per output ========================================== */

/* Walks the kept segments in output order and, for each output, the reduced segments. */
#define MEAN_INT(s, T, U, LO, HI)                                                              \
  static void mean_##s(const segs_t *g, int64_t count, const void *in_, void *out_) {          \
    const T *in = (const T *)in_;                                                              \
    T *out = (T *)out_;                                                                        \
    int64_t kd[BERTH_MAX_RANK], ks[BERTH_MAX_RANK], rd[BERTH_MAX_RANK], rs[BERTH_MAX_RANK];    \
    int32_t nk = 0, nr = 0;                                                                    \
    int64_t n_out = 1;                                                                         \
    for (int32_t k = 0; k < g->m; k++) {                                                       \
      if (g->red[k]) {                                                                         \
        rd[nr] = g->d[k];                                                                      \
        rs[nr++] = g->in_s[k];                                                                 \
      } else {                                                                                 \
        kd[nk] = g->d[k];                                                                      \
        ks[nk++] = g->in_s[k];                                                                 \
        n_out *= g->d[k];                                                                      \
      }                                                                                        \
    }                                                                                          \
    int64_t ki[BERTH_MAX_RANK] = {0}, base = 0;                                                \
    for (int64_t o = 0; o < n_out; o++) {                                                      \
      uint64_t acc = 0;                                                                        \
      int64_t ri[BERTH_MAX_RANK] = {0}, off = base;                                            \
      for (int64_t e = 0; e < count; e++) {                                                    \
        acc += (uint64_t)in[off]; /* sign-extends signed values: the sum is modulo 2^64 */     \
        for (int32_t k = nr - 1; k >= 0; k--) {                                                \
          off += rs[k];                                                                        \
          if (++ri[k] < rd[k]) break;                                                          \
          off -= rs[k] * rd[k];                                                                \
          ri[k] = 0;                                                                           \
        }                                                                                      \
      }                                                                                        \
      out[o] = count == 0 ? (T)0 : (LO) < 0 ? (T)((int64_t)acc / count) : (T)(acc / (uint64_t)count); \
      for (int32_t k = nk - 1; k >= 0; k--) {                                                  \
        base += ks[k];                                                                         \
        if (++ki[k] < kd[k]) break;                                                            \
        base -= ks[k] * kd[k];                                                                 \
        ki[k] = 0;                                                                             \
      }                                                                                        \
    }                                                                                          \
  }
RED_INT_LIST(MEAN_INT)

typedef void (*mean_int_fn)(const segs_t *g, int64_t count, const void *in, void *out);
static const mean_int_fn mean_int_kernels[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_I8] = mean_i8,   [BERTH_DTYPE_U8] = mean_u8,   [BERTH_DTYPE_I16] = mean_i16,
    [BERTH_DTYPE_U16] = mean_u16, [BERTH_DTYPE_I32] = mean_i32, [BERTH_DTYPE_U32] = mean_u32,
    [BERTH_DTYPE_I64] = mean_i64, [BERTH_DTYPE_U64] = mean_u64};

/* ==== infer and run ================================================================ */

static berth_status_t reduce_infer(const berth_op_def_t *def, bool needs_elements, const berth_attr_value_t *attrs,
                                   const berth_type_t *in, int32_t n_in, berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, BERTH_MASK_NUM, diag));
  reduce_plan_t p;
  BERTH_TRY(reduce_plan(def->name, needs_elements, attrs, &in[0], &p, diag));
  out[0] = p.out;
  return BERTH_OK;
}

#define DEFINE_REDUCE_INFER(op, needs_elements)                                                   \
  static berth_status_t op##_infer(const berth_attr_value_t *attrs, const berth_type_t *in,       \
                                   int32_t n_in, berth_type_t *out, berth_diag_t *diag) {         \
    return reduce_infer(&berth_op_def_##op, needs_elements, attrs, in, n_in, out, diag);          \
  }
DEFINE_REDUCE_INFER(sum, false)
DEFINE_REDUCE_INFER(mean, false)
DEFINE_REDUCE_INFER(max, true)
DEFINE_REDUCE_INFER(min, true)
DEFINE_REDUCE_INFER(prod, false)

#define DEFINE_REDUCE_RUN(op)                                                       \
  static void op##_run(const berth_kernel_call_t *call) {                          \
    const berth_type_t *x = call->in[0].type;                                      \
    reduce_plan_t p;                                                               \
    reduce_plan(#op, false, call->attrs, x, &p, NULL);                             \
    reduce_stream(&op##_kernels[x->dtype], x, &p, call->in[0].data, call->out[0].data); \
  }
DEFINE_REDUCE_RUN(sum)
DEFINE_REDUCE_RUN(max)
DEFINE_REDUCE_RUN(min)
DEFINE_REDUCE_RUN(prod)

static void mean_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  reduce_plan_t p;
  reduce_plan("mean", false, call->attrs, x, &p, NULL);
  if (berth_dtype_is_int(x->dtype)) {
    if (berth_kernel_is_empty(x)) { /* no outputs, or outputs of zero elements: 0 */
      size_t bytes = berth_type_bytes(&p.out);
      if (bytes) memset(call->out[0].data, 0, bytes);
      return;
    }
    segs_t g;
    make_segs(x, p.reduced, &g);
    mean_int_kernels[x->dtype](&g, p.count, call->in[0].data, call->out[0].data);
    return;
  }
  reduce_stream(&sum_kernels[x->dtype], x, &p, call->in[0].data, call->out[0].data);
  int64_t n = berth_type_numel(&p.out);
  if (x->dtype == BERTH_DTYPE_F32) {
    float *o = (float *)call->out[0].data, c = (float)p.count;
    BERTH_VLOOP(i, n, o[i] /= c;);
  } else {
    double *o = (double *)call->out[0].data, c = (double)p.count;
    BERTH_VLOOP(i, n, o[i] /= c;);
  }
}

/* ==== argmax argmin (x) {axis, keepdims, select_last_index} -> i64 ===================== */

enum { ARG_AXIS, ARG_KEEPDIMS, ARG_LAST };

typedef struct argmax_plan {
  int32_t axis;
  bool last;
  int64_t outer, n, inner;
  berth_type_t out;
} argmax_plan_t;

static berth_status_t argmax_plan(const char *op, const berth_attr_value_t *attrs, const berth_type_t *x,
                                  argmax_plan_t *p, berth_diag_t *diag) {
  bool keepdims;
  BERTH_TRY(berth_kernel_axis(op, "axis", attrs[ARG_AXIS].i, x->rank, &p->axis, diag));
  BERTH_TRY(berth_kernel_get_flag(op, "keepdims", &attrs[ARG_KEEPDIMS], &keepdims, diag));
  BERTH_TRY(berth_kernel_get_flag(op, "select_last_index", &attrs[ARG_LAST], &p->last, diag));
  berth_kernel_type_init(&p->out, BERTH_DTYPE_I64, 0);
  p->outer = p->inner = 1;
  p->n = x->dims[p->axis];
  bool empty = berth_kernel_is_empty(x);
  for (int32_t k = 0; k < x->rank; k++) {
    /* Products only of a nonempty tensor's dims (they are then at most its numel). */
    if (!empty && k < p->axis) p->outer *= x->dims[k];
    if (!empty && k > p->axis) p->inner *= x->dims[k];
    if (k != p->axis || keepdims) p->out.dims[p->out.rank++] = k == p->axis ? 1 : x->dims[k];
  }
  if (p->n == 0 && !berth_kernel_is_empty(&p->out)) {
    char a[160];
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: axis %d of %s has size 0, expected at least one element",
                      op, (int)p->axis, berth_type_format(x, a, sizeof a));
  }
  return BERTH_OK;
}

/* v beats the best so far b. NaN wins (it counts as the largest value for argmax and the
 * smallest for argmin, as numpy's argmax and argmin have it); ties go to the first index,
 * or to the last with select_last_index. */
#define BEATS_I(v, b, last) ((last) ? (v) >= (b) : (v) > (b))
#define BEATS_F(v, b, last) ((last) ? ((v) >= (b) || (v) != (v)) : ((v) > (b) || ((v) != (v) && (b) == (b))))
#define BEATS_MIN_I(v, b, last) ((last) ? (v) <= (b) : (v) < (b))
#define BEATS_MIN_F(v, b, last) ((last) ? ((v) <= (b) || (v) != (v)) : ((v) < (b) || ((v) != (v) && (b) == (b))))

#define ARGMAX_FN(name, s, T, BEATS)                                                            \
  static void name##_##s(const argmax_plan_t *p, const void *in_, int64_t *out) {               \
    const T *in = (const T *)in_;                                                               \
    int64_t n = p->n, inner = p->inner;                                                         \
    bool last = p->last;                                                                        \
    for (int64_t o = 0; o < p->outer; o++) {                                                    \
      const T *x = in + o * n * inner;                                                          \
      int64_t *idx = out + o * inner;                                                           \
      if (inner == 1) {                                                                         \
        T best = x[0];                                                                          \
        int64_t bi = 0;                                                                         \
        for (int64_t k = 1; k < n; k++)                                                         \
          if (BEATS(x[k], best, last)) {                                                        \
            best = x[k];                                                                        \
            bi = k;                                                                             \
          }                                                                                     \
        idx[0] = bi;                                                                            \
        continue;                                                                               \
      }                                                                                         \
      /* Rows of the reduced axis are walked in memory order; the best so far is reread     \
       * through its index, so no scratch memory is needed. */                                 \
      for (int64_t j = 0; j < inner; j++) idx[j] = 0;                                           \
      for (int64_t k = 1; k < n; k++) {                                                         \
        const T *row = x + k * inner;                                                           \
        for (int64_t j = 0; j < inner; j++)                                                     \
          if (BEATS(row[j], x[idx[j] * inner + j], last)) idx[j] = k;                           \
      }                                                                                         \
    }                                                                                           \
  }
#define ARGMAX_INT(s, T, U, LO, HI) ARGMAX_FN(argmax, s, T, BEATS_I) ARGMAX_FN(argmin, s, T, BEATS_MIN_I)
#define ARGMAX_FLOAT(s, T, U, LO, HI) ARGMAX_FN(argmax, s, T, BEATS_F) ARGMAX_FN(argmin, s, T, BEATS_MIN_F)
RED_INT_LIST(ARGMAX_INT)
RED_FLOAT_LIST(ARGMAX_FLOAT)

typedef void (*argmax_fn)(const argmax_plan_t *p, const void *in, int64_t *out);
static const argmax_fn argmax_kernels[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_I8] = argmax_i8,   [BERTH_DTYPE_U8] = argmax_u8,   [BERTH_DTYPE_I16] = argmax_i16,
    [BERTH_DTYPE_U16] = argmax_u16, [BERTH_DTYPE_I32] = argmax_i32, [BERTH_DTYPE_U32] = argmax_u32,
    [BERTH_DTYPE_I64] = argmax_i64, [BERTH_DTYPE_U64] = argmax_u64, [BERTH_DTYPE_F32] = argmax_f32,
    [BERTH_DTYPE_F64] = argmax_f64};
static const argmax_fn argmin_kernels[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_I8] = argmin_i8,   [BERTH_DTYPE_U8] = argmin_u8,   [BERTH_DTYPE_I16] = argmin_i16,
    [BERTH_DTYPE_U16] = argmin_u16, [BERTH_DTYPE_I32] = argmin_i32, [BERTH_DTYPE_U32] = argmin_u32,
    [BERTH_DTYPE_I64] = argmin_i64, [BERTH_DTYPE_U64] = argmin_u64, [BERTH_DTYPE_F32] = argmin_f32,
    [BERTH_DTYPE_F64] = argmin_f64};

static berth_status_t arg_infer(const berth_op_def_t *def, const berth_attr_value_t *attrs, const berth_type_t *in,
                                int32_t n_in, berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, BERTH_MASK_NUM, diag));
  argmax_plan_t p;
  BERTH_TRY(argmax_plan(def->name, attrs, &in[0], &p, diag));
  BERTH_TRY(berth_kernel_check_output(def->name, &p.out, diag));
  out[0] = p.out;
  return BERTH_OK;
}

static void arg_run(const argmax_fn *kernels, const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  argmax_plan_t p;
  argmax_plan("", call->attrs, x, &p, NULL);
  if (berth_kernel_is_empty(x)) return; /* then there are no outputs (infer checked) */
  kernels[x->dtype](&p, call->in[0].data, (int64_t *)call->out[0].data);
}

static berth_status_t argmax_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return arg_infer(&berth_op_def_argmax, attrs, in, n_in, out, diag);
}
static berth_status_t argmin_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return arg_infer(&berth_op_def_argmin, attrs, in, n_in, out, diag);
}
static void argmax_run(const berth_kernel_call_t *call) { arg_run(argmax_kernels, call); }
static void argmin_run(const berth_kernel_call_t *call) { arg_run(argmin_kernels, call); }

/* ==== table entries ================================================================ */

static const berth_attr_spec_t reduce_attrs[] = {{"axes", BERTH_ATTR_INTS, false, 0, 0},
                                                 {"keepdims", BERTH_ATTR_INT, false, 1, 0}};
static const berth_attr_spec_t argmax_attrs[] = {{"axis", BERTH_ATTR_INT, false, 0, 0},
                                                 {"keepdims", BERTH_ATTR_INT, false, 1, 0},
                                                 {"select_last_index", BERTH_ATTR_INT, false, 0, 0}};

const berth_op_def_t berth_op_def_sum = {"sum", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, reduce_attrs, sum_infer, sum_run};
const berth_op_def_t berth_op_def_mean = {"mean", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, reduce_attrs, mean_infer, mean_run};
const berth_op_def_t berth_op_def_max = {"max", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, reduce_attrs, max_infer, max_run};
const berth_op_def_t berth_op_def_min = {"min", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, reduce_attrs, min_infer, min_run};
const berth_op_def_t berth_op_def_prod = {"prod", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, reduce_attrs, prod_infer, prod_run};
const berth_op_def_t berth_op_def_argmin = {"argmin", BERTH_OPKIND_KERNEL, 1, 1, 1, 3, argmax_attrs, argmin_infer,
                                            argmin_run};
const berth_op_def_t berth_op_def_argmax = {"argmax", BERTH_OPKIND_KERNEL, 1, 1, 1, 3, argmax_attrs, argmax_infer,
                                            argmax_run};
