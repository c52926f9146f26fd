/* Scatters: scatter_elements(data, indices, updates) {axis, reduction} (ONNX Scatter,
 * ScatterElements) and scatter_nd(data, indices, updates) {reduction} (ONNX ScatterND).
 * The result is a copy of data into which each update is written (reduction 0) or combined
 * with the element there (1 add, 2 mul, 3 max, 4 min), in the order of the updates, so a
 * duplicate index takes the last update, or combines all of them. indices are i64; a
 * negative index counts from the end.
 *
 * Indices are data, known only at run time, and a kernel must not fail: the ONNX importer
 * checks them with a run-time assert before the scatter runs (the call fails loudly), and an
 * index out of range that reaches the kernel anyway (a program written by hand) is skipped,
 * so nothing is ever written out of bounds. */
#include "kernel_util.h"

#include <string.h>

enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN, RED_COUNT };

#define S_ADD(a, v, T, U) (T)((U)(a) + (U)(v))
#define S_MUL(a, v, T, U) (T)((U)(a) * (U)(v))
#define S_MAX_I(a, v, T, U) ((v) > (a) ? (v) : (a))
#define S_MIN_I(a, v, T, U) ((v) < (a) ? (v) : (a))
#define S_MAX_F(a, v, T, U) (((v) > (a) || (v) != (v)) ? (v) : (a))
#define S_MIN_F(a, v, T, U) (((v) < (a) || (v) != (v)) ? (v) : (a))

/* dst[i] = red(dst[i], src[i]) for n elements. */
typedef void (*combine_fn)(void *dst, const void *src, int64_t n, int red);
#define COMBINE_FN(s, T, U, MAXOP, MINOP)                                        \
  static void combine_##s(void *dst_, const void *src_, int64_t n, int red) {   \
    T *d = (T *)dst_;                                                            \
    const T *x = (const T *)src_;                                                \
    switch (red) {                                                               \
      case RED_ADD: for (int64_t i = 0; i < n; i++) d[i] = S_ADD(d[i], x[i], T, U); break; \
      case RED_MUL: for (int64_t i = 0; i < n; i++) d[i] = S_MUL(d[i], x[i], T, U); break; \
      case RED_MAX: for (int64_t i = 0; i < n; i++) d[i] = MAXOP(d[i], x[i], T, U); break; \
      default: for (int64_t i = 0; i < n; i++) d[i] = MINOP(d[i], x[i], T, U); break;      \
    }                                                                            \
  }
#define COMBINE_INT(E, s, T, U) COMBINE_FN(s, T, U, S_MAX_I, S_MIN_I)
#define COMBINE_FLOAT(E, s, T, U) COMBINE_FN(s, T, U, S_MAX_F, S_MIN_F)
BERTH_KERNEL_INT_LIST(COMBINE_INT)
BERTH_KERNEL_FLOAT_LIST(COMBINE_FLOAT)
#define COMBINE_ENTRY(E, s, T, U) [BERTH_DTYPE_##E] = combine_##s,
static const combine_fn combine_kernels[BERTH_DTYPE_COUNT] = {BERTH_KERNEL_NUM_LIST(COMBINE_ENTRY)};

/* Writes or combines n elements of size es. */
static void put(const berth_type_t *t, int red, unsigned char *dst, const unsigned char *src, int64_t n) {
  if (red == RED_NONE) memcpy(dst, src, (size_t)n * berth_dtype_size(t->dtype));
  else combine_kernels[t->dtype](dst, src, n, red);
}

static berth_status_t check_reduction(const char *op, const berth_attr_value_t *v, berth_dtype_t dt, berth_diag_t *diag) {
  if (v->i < 0 || v->i >= RED_COUNT)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: reduction is %lld, expected 0 (none), 1 (add), 2 (mul), 3 (max) or 4 (min)",
                      op, (long long)v->i);
  if (v->i != RED_NONE && !berth_dtype_is_int(dt) && !berth_dtype_is_float(dt))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: reduction %lld over %s, expected a numeric dtype", op,
                      (long long)v->i, berth_dtype_name(dt));
  return BERTH_OK;
}

static bool same_dims(const berth_type_t *a, const berth_type_t *b) {
  if (a->rank != b->rank) return false;
  for (int32_t k = 0; k < a->rank; k++)
    if (a->dims[k] != b->dims[k]) return false;
  return true;
}

/* ==== scatter_elements ============================================================= */

enum { SE_AXIS, SE_REDUCTION };

static berth_status_t scatter_elements_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                             berth_type_t *out, berth_diag_t *diag) {
  const char *op = "scatter_elements";
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_scatter_elements, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 1, in[1].dtype, BERTH_DTYPE_BIT(I64), diag));
  BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, 2, diag));
  BERTH_TRY(check_reduction(op, &attrs[SE_REDUCTION], in[0].dtype, diag));
  const berth_type_t *d = &in[0], *ix = &in[1], *u = &in[2];
  char sa[160], sb[160];
  if (d->rank == 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: data %s is a scalar, expected rank >= 1", op,
                      berth_type_format(d, sa, sizeof sa));
  int32_t axis;
  BERTH_TRY(berth_kernel_axis(op, "axis", attrs[SE_AXIS].i, d->rank, &axis, diag));
  if (!same_dims(ix, u))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: indices %s and updates %s differ in shape, expected one shape", op,
                      berth_type_format(ix, sa, sizeof sa), berth_type_format(u, sb, sizeof sb));
  if (ix->rank != d->rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: indices %s and data %s differ in rank, expected one rank", op,
                      berth_type_format(ix, sa, sizeof sa), berth_type_format(d, sb, sizeof sb));
  for (int32_t k = 0; k < d->rank; k++)
    if (k != axis && ix->dims[k] > d->dims[k])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: indices %s exceed data %s in dim %d, expected at most the data's dims", op,
                        berth_type_format(ix, sa, sizeof sa), berth_type_format(d, sb, sizeof sb), (int)k);
  out[0] = *d;
  return BERTH_OK;
}

static void scatter_elements_run(const berth_kernel_call_t *call) {
  const berth_type_t *d = call->in[0].type, *ix = call->in[1].type;
  size_t bytes = berth_type_bytes(d), es = berth_dtype_size(d->dtype);
  if (bytes) memcpy(call->out[0].data, call->in[0].data, bytes);
  if (bytes == 0 || berth_kernel_is_empty(ix)) return; /* empty data: every index is out of range */
  int32_t axis = (int32_t)(call->attrs[SE_AXIS].i < 0 ? call->attrs[SE_AXIS].i + d->rank : call->attrs[SE_AXIS].i);
  int red = (int)call->attrs[SE_REDUCTION].i;
  int64_t ds[BERTH_MAX_RANK], pos[BERTH_MAX_RANK] = {0}, n = berth_type_numel(ix), dim = d->dims[axis], s = 1;
  for (int32_t k = d->rank - 1; k >= 0; k--) {
    ds[k] = s;
    s *= d->dims[k];
  }
  const int64_t *idx = (const int64_t *)call->in[1].data;
  const unsigned char *upd = (const unsigned char *)call->in[2].data;
  unsigned char *out = (unsigned char *)call->out[0].data;
  for (int64_t e = 0; e < n; e++) {
    int64_t v = idx[e];
    if (v < 0 && v >= -dim) v += dim;
    if (v >= 0 && v < dim) {
      int64_t off = v * ds[axis];
      for (int32_t k = 0; k < d->rank; k++)
        if (k != axis) off += pos[k] * ds[k];
      put(d, red, out + (size_t)off * es, upd + (size_t)e * es, 1);
    }
    for (int32_t k = ix->rank - 1; k >= 0; k--) {
      if (++pos[k] < ix->dims[k]) break;
      pos[k] = 0;
    }
  }
}

/* ==== scatter_nd =================================================================== */

enum { SND_REDUCTION };

static berth_status_t scatter_nd_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                       berth_type_t *out, berth_diag_t *diag) {
  const char *op = "scatter_nd";
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_scatter_nd, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 1, in[1].dtype, BERTH_DTYPE_BIT(I64), diag));
  BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, 2, diag));
  BERTH_TRY(check_reduction(op, &attrs[SND_REDUCTION], in[0].dtype, diag));
  const berth_type_t *d = &in[0], *ix = &in[1], *u = &in[2];
  char sa[160], sb[160], sc[160], sd[160];
  if (d->rank == 0 || ix->rank == 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: data %s and indices %s need rank >= 1", op,
                      berth_type_format(d, sa, sizeof sa), berth_type_format(ix, sb, sizeof sb));
  int64_t K = ix->dims[ix->rank - 1];
  if (K < 1 || K > d->rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: indices %s index %lld dims of data %s, expected 1 to %d", op,
                      berth_type_format(ix, sa, sizeof sa), (long long)K, berth_type_format(d, sb, sizeof sb), (int)d->rank);
  berth_type_t want;
  berth_kernel_type_init(&want, d->dtype, 0);
  for (int32_t k = 0; k + 1 < ix->rank; k++) want.dims[want.rank++] = ix->dims[k];
  for (int32_t k = (int32_t)K; k < d->rank; k++) {
    if (want.rank == BERTH_MAX_RANK) break;
    want.dims[want.rank++] = d->dims[k];
  }
  if (ix->rank - 1 + d->rank - K > BERTH_MAX_RANK || !same_dims(&want, u))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: updates %s for data %s and indices %s, expected %s", op,
                      berth_type_format(u, sa, sizeof sa), berth_type_format(d, sb, sizeof sb),
                      berth_type_format(ix, sc, sizeof sc), ix->rank - 1 + d->rank - K > BERTH_MAX_RANK ? "a lower rank" : berth_type_format(&want, sd, sizeof sd));
  out[0] = *d;
  return BERTH_OK;
}

static void scatter_nd_run(const berth_kernel_call_t *call) {
  const berth_type_t *d = call->in[0].type, *ix = call->in[1].type;
  size_t bytes = berth_type_bytes(d), es = berth_dtype_size(d->dtype);
  if (bytes) memcpy(call->out[0].data, call->in[0].data, bytes);
  if (bytes == 0 || berth_kernel_is_empty(ix)) return; /* empty data: every index is out of range */
  int32_t K = (int32_t)ix->dims[ix->rank - 1];
  int64_t slice = 1, stride[BERTH_MAX_RANK];
  for (int32_t k = K; k < d->rank; k++) slice *= d->dims[k];
  for (int32_t k = K - 1; k >= 0; k--) stride[k] = k == K - 1 ? slice : stride[k + 1] * d->dims[k + 1];
  int32_t red = (int32_t)call->attrs[SND_REDUCTION].i;
  int64_t m = berth_type_numel(ix) / K;
  const int64_t *idx = (const int64_t *)call->in[1].data;
  const unsigned char *upd = (const unsigned char *)call->in[2].data;
  unsigned char *out = (unsigned char *)call->out[0].data;
  for (int64_t e = 0; e < m; e++) {
    int64_t off = 0;
    bool ok = true;
    for (int32_t k = 0; k < K && ok; k++) {
      int64_t v = idx[e * K + k], dim = d->dims[k];
      if (v < 0 && v >= -dim) v += dim;
      ok = v >= 0 && v < dim;
      off += v * stride[k];
    }
    if (ok) put(d, red, out + (size_t)off * es, upd + (size_t)(e * slice) * es, slice);
  }
}

/* ==== tensor_scatter ================================================================ */

/* cache [B, ..., S_max (at axis), ...] and update [B, ..., S (at axis), ...], equal off the
 * axis, S <= S_max, axis >= 1; write_indices i64[B] (default 0): batch b's update rows go to
 * rows w[b], w[b] + 1, ... of the cache (modulo S_max when circular). Rows that fall outside
 * the cache are skipped (the importer's assert fails first). */
enum { TS_AXIS, TS_CIRCULAR };

static berth_status_t tensor_scatter_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                           berth_type_t *out, berth_diag_t *diag) {
  const char *op = "tensor_scatter";
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_tensor_scatter, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, 1, diag));
  bool circular;
  BERTH_TRY(berth_kernel_get_flag(op, "circular", &attrs[TS_CIRCULAR], &circular, diag));
  const berth_type_t *c = &in[0], *u = &in[1];
  char sa[160], sb[160];
  int32_t axis = 0;
  if (c->rank >= 2) BERTH_TRY(berth_kernel_axis(op, "axis", attrs[TS_AXIS].i, c->rank, &axis, diag));
  bool ok = c->rank >= 2 && axis >= 1 && u->rank == c->rank && u->dims[axis] <= c->dims[axis];
  for (int32_t k = 0; ok && k < c->rank; k++) ok = k == axis || c->dims[k] == u->dims[k];
  if (!ok)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "%s: cache %s and update %s with axis %lld, expected rank >= 2, an axis past the batch dim, equal dims off "
                      "the axis and no more update rows than cache rows", op, berth_type_format(c, sa, sizeof sa),
                      berth_type_format(u, sb, sizeof sb), (long long)attrs[TS_AXIS].i);
  if (n_in > 2) {
    BERTH_TRY(berth_kernel_check_dtype(op, 2, in[2].dtype, BERTH_DTYPE_BIT(I64), diag));
    if (in[2].rank != 1 || in[2].dims[0] != c->dims[0])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: write_indices %s, expected i64[%lld]", op,
                        berth_type_format(&in[2], sa, sizeof sa), (long long)c->dims[0]);
  }
  out[0] = *c;
  return BERTH_OK;
}

static void tensor_scatter_run(const berth_kernel_call_t *call) {
  const berth_type_t *c = call->in[0].type, *u = call->in[1].type;
  size_t bytes = berth_type_bytes(c);
  if (bytes) memcpy(call->out[0].data, call->in[0].data, bytes);
  if (berth_kernel_is_empty(u)) return; /* nonempty update: the cache is nonempty too */
  int32_t axis = (int32_t)(call->attrs[TS_AXIS].i < 0 ? call->attrs[TS_AXIS].i + c->rank : call->attrs[TS_AXIS].i);
  bool circular = call->attrs[TS_CIRCULAR].i != 0;
  int64_t prefix = 1, inner = 1, smax = c->dims[axis], s = u->dims[axis];
  for (int32_t k = 0; k < axis; k++) prefix *= c->dims[k];
  for (int32_t k = axis + 1; k < c->rank; k++) inner *= c->dims[k];
  int64_t per_batch = prefix / c->dims[0];
  size_t row = (size_t)inner * berth_dtype_size(c->dtype);
  const int64_t *w = call->n_in > 2 ? (const int64_t *)call->in[2].data : NULL;
  const unsigned char *src = (const unsigned char *)call->in[1].data;
  unsigned char *dst = (unsigned char *)call->out[0].data;
  for (int64_t p = 0; p < prefix; p++) {
    int64_t start = w ? w[p / per_batch] : 0;
    for (int64_t t = 0; t < s; t++) {
      if (start < 0 || start >= smax) break;
      int64_t r = circular ? (start + t) % smax : start + t; /* start < smax: no overflow */
      if (r >= smax) break;
      memcpy(dst + (size_t)(p * smax + r) * row, src + (size_t)(p * s + t) * row, row);
    }
  }
}

static const berth_attr_spec_t scatter_elements_attrs[] = {{"axis", BERTH_ATTR_INT, false, 0, 0},
                                                           {"reduction", BERTH_ATTR_INT, false, 0, 0}};
static const berth_attr_spec_t scatter_nd_attrs[] = {{"reduction", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_scatter_elements = {"scatter_elements", BERTH_OPKIND_KERNEL, 3, 3, 1, 2,
                                                      scatter_elements_attrs, scatter_elements_infer,
                                                      scatter_elements_run};
static const berth_attr_spec_t tensor_scatter_attrs[] = {{"axis", BERTH_ATTR_INT, false, -2, 0},
                                                         {"circular", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_tensor_scatter = {"tensor_scatter", BERTH_OPKIND_KERNEL, 2, 3, 1, 2,
                                                    tensor_scatter_attrs, tensor_scatter_infer, tensor_scatter_run};
const berth_op_def_t berth_op_def_scatter_nd = {"scatter_nd", BERTH_OPKIND_KERNEL, 3, 3, 1, 1, scatter_nd_attrs,
                                                scatter_nd_infer, scatter_nd_run};
