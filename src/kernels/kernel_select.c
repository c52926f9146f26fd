/* The bounded forms of the ops whose result's shape depends on data (ONNX NonZero, Compress,
 * Unique, NonMaxSuppression; the importer emits them under --dynamic-bound N, see
 * onnx_ops_index.c). Each result's data-dependent axis has the static extent `bound` in the
 * plan; the kernel also writes the real extent (`count`, an i64 scalar) and:
 *
 *   count <= bound: the real result, packed densely at the start of its buffer (as a tensor
 *                   whose axis has `count` entries), every byte after it zero;
 *   count >  bound: the whole result zero (the importer's assert after the node then fails
 *                   the call naming the node and the bound).
 *
 * So every byte is written on every call. Unique and nonmaxsuppression sort: their last
 * output, `work`, is scratch planned like any other value (nothing reads it afterwards). */
#include "kernel_elem.h"
#include "kernel_util.h"

#include <string.h>

/* ---- shared ------------------------------------------------------------------------------ */

/* The bound attribute: 0..2^40 (the result's extent along its data-dependent axis). */
static berth_status_t get_bound(const char *op, const berth_attr_value_t *a, int64_t *n, berth_diag_t *diag) {
  if (a->i < 0 || a->i > ((int64_t)1 << 40))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: bound %lld is outside [0, 2^40]", op, (long long)a->i);
  *n = a->i;
  return BERTH_OK;
}

static void type_i64(berth_type_t *t, int32_t rank, const int64_t *dims) {
  berth_kernel_type_init(t, BERTH_DTYPE_I64, rank);
  for (int32_t k = 0; k < rank; k++) t->dims[k] = dims[k];
}

/* Element i of x is nonzero (NaN is nonzero, -0.0 is zero). */
static bool elem_nonzero(berth_dtype_t dt, const void *x, int64_t i) {
  switch (dt) {
    case BERTH_DTYPE_F32: return ((const float *)x)[i] != 0;
    case BERTH_DTYPE_F64: return ((const double *)x)[i] != 0;
    default: {
      size_t es = berth_dtype_size(dt);
      const uint8_t *b = (const uint8_t *)x + (size_t)i * es;
      for (size_t k = 0; k < es; k++)
        if (b[k]) return true;
      return false;
    }
  }
}

/* Element i of a float or integer tensor as a double. */
static double elem_f(berth_dtype_t dt, const void *x, int64_t i) {
  switch (dt) {
    case BERTH_DTYPE_F32: return ((const float *)x)[i];
    case BERTH_DTYPE_F64: return ((const double *)x)[i];
    case BERTH_DTYPE_I64: return (double)((const int64_t *)x)[i];
    case BERTH_DTYPE_I32: return ((const int32_t *)x)[i];
    default: return 0;
  }
}

/* Outer/axis/inner split of x along axis (axis < 0: x flattened). */
typedef struct split {
  int64_t outer, n, inner;
} split_t;

static split_t split_of(const berth_type_t *x, int32_t axis) {
  split_t s = {1, berth_type_numel(x), 1};
  if (axis < 0) return s;
  s.n = x->dims[axis];
  if (berth_kernel_is_empty(x)) {
    s.outer = s.inner = 0;
    return s;
  }
  for (int32_t k = 0; k < axis; k++) s.outer *= x->dims[k];
  for (int32_t k = axis + 1; k < x->rank; k++) s.inner *= x->dims[k];
  return s;
}

/* The type of x with its axis (the whole of it, flattened, when axis < 0) resized to n. */
static void resized(const berth_type_t *x, int32_t axis, int64_t n, berth_type_t *out) {
  if (axis < 0) {
    berth_kernel_type_init(out, x->dtype, 1);
    out->dims[0] = n;
    return;
  }
  *out = *x;
  out->dims[axis] = n;
}

/* y (axis packed to cnt entries) = the slices pos[0..cnt) of x along axis. */
static void gather_slices(const berth_type_t *x, const void *xd, const split_t *s, const int64_t *pos, int64_t cnt,
                          void *y) {
  size_t es = berth_dtype_size(x->dtype), row = (size_t)s->inner * es;
  for (int64_t o = 0; o < s->outer; o++)
    for (int64_t j = 0; j < cnt; j++)
      memcpy((uint8_t *)y + (size_t)(o * cnt + j) * row, (const uint8_t *)xd + (size_t)(o * s->n + pos[j]) * row, row);
}

/* ---- nonzero_bounded(x) {bound} -> (indices i64[rank, bound], count i64[]) -------------- */

enum { NZ_BOUND };

static berth_status_t nonzero_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                    berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_nonzero_bounded, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("nonzero_bounded", 0, in[0].dtype, BERTH_MASK_ALL, diag));
  int64_t n = 0, d[2] = {0, 0};
  BERTH_TRY(get_bound("nonzero_bounded", &attrs[NZ_BOUND], &n, diag));
  d[0] = in[0].rank ? in[0].rank : 1, d[1] = n;
  type_i64(&out[0], 2, d);
  type_i64(&out[1], 0, d);
  return berth_kernel_check_output("nonzero_bounded", &out[0], diag);
}

static void nonzero_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  const void *xd = call->in[0].data;
  int64_t *y = (int64_t *)call->out[0].data, numel = berth_type_numel(x), cnt = 0;
  int64_t bound = call->attrs[NZ_BOUND].i;
  int32_t r = x->rank ? x->rank : 1;
  for (int64_t i = 0; i < numel; i++) cnt += elem_nonzero(x->dtype, xd, i);
  *(int64_t *)call->out[1].data = cnt;
  memset(y, 0, sizeof(int64_t) * (size_t)(r * bound));
  if (cnt > bound) return;
  int64_t pos[BERTH_MAX_RANK] = {0}, j = 0;
  for (int64_t i = 0; i < numel; i++) {
    if (elem_nonzero(x->dtype, xd, i)) {
      for (int32_t k = 0; k < r; k++) y[k * cnt + j] = x->rank ? pos[k] : 0;
      j++;
    }
    for (int32_t k = x->rank - 1; k >= 0; k--) {
      if (++pos[k] < x->dims[k]) break;
      pos[k] = 0;
    }
  }
}

static const berth_attr_spec_t nonzero_attrs[] = {{"bound", BERTH_ATTR_INT, true, 0, 0}};
const berth_op_def_t berth_op_def_nonzero_bounded = {"nonzero_bounded", BERTH_OPKIND_KERNEL, 1, 1, 2, 1,
                                                     nonzero_attrs, nonzero_infer, nonzero_run};

/* ---- compress_bounded(x, cond) {axis, bound} -> (y, count i64[]) -------------------------
 * ONNX Compress with a condition known only at run time: the slices of x along axis (the
 * elements of x flattened when flat = 1) whose condition entry is nonzero. The condition
 * may be shorter than the axis (the rest counts as false), not longer. */

enum { CP_AXIS, CP_FLAT, CP_BOUND };

static berth_status_t compress_plan(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t *axis,
                                    berth_type_t *out, berth_diag_t *diag) {
  char a[160], b[160];
  bool flat;
  int64_t n = 0;
  BERTH_TRY(berth_kernel_get_flag("compress_bounded", "flat", &attrs[CP_FLAT], &flat, diag));
  BERTH_TRY(get_bound("compress_bounded", &attrs[CP_BOUND], &n, diag));
  *axis = -1;
  if (!flat) {
    if (in[0].rank == 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "compress_bounded: input %s is a scalar, expected an axis",
                        berth_type_format(&in[0], a, sizeof a));
    BERTH_TRY(berth_kernel_axis("compress_bounded", "axis", attrs[CP_AXIS].i, in[0].rank, axis, diag));
  }
  int64_t dim = *axis < 0 ? berth_type_numel(&in[0]) : in[0].dims[*axis];
  if (in[1].rank != 1 || in[1].dims[0] > dim)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "compress_bounded: condition %s for an axis of %lld, expected rank 1 and at most that long",
                      berth_type_format(&in[1], b, sizeof b), (long long)dim);
  resized(&in[0], *axis, n, &out[0]);
  type_i64(&out[1], 0, NULL);
  return berth_kernel_check_output("compress_bounded", &out[0], diag);
}

static berth_status_t compress_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                     berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_compress_bounded, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("compress_bounded", 0, in[0].dtype, BERTH_MASK_ALL, diag));
  BERTH_TRY(berth_kernel_check_dtype("compress_bounded", 1, in[1].dtype, BERTH_MASK_ALL, diag));
  int32_t axis;
  return compress_plan(attrs, in, &axis, out, diag);
}

static void compress_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type, *c = call->in[1].type;
  int32_t axis;
  berth_type_t out[2];
  compress_plan(call->attrs, (const berth_type_t[]){*x, *c}, &axis, out, NULL);
  split_t s = split_of(x, axis);
  int64_t bound = call->attrs[CP_BOUND].i, cnt = 0, nc = c->dims[0];
  for (int64_t i = 0; i < nc; i++) cnt += elem_nonzero(c->dtype, call->in[1].data, i);
  *(int64_t *)call->out[1].data = cnt;
  memset(call->out[0].data, 0, (size_t)berth_type_numel(&out[0]) * berth_dtype_size(x->dtype));
  if (cnt > bound || s.outer == 0 || s.inner == 0) return;
  /* the condition is scanned again per outer index: no scratch needed */
  size_t es = berth_dtype_size(x->dtype), row = (size_t)s.inner * es;
  uint8_t *y = (uint8_t *)call->out[0].data;
  const uint8_t *xd = (const uint8_t *)call->in[0].data;
  for (int64_t o = 0; o < s.outer; o++)
    for (int64_t i = 0, j = 0; i < nc; i++)
      if (elem_nonzero(c->dtype, call->in[1].data, i)) memcpy(y + (size_t)(o * cnt + j++) * row, xd + (size_t)(o * s.n + i) * row, row);
}

static const berth_attr_spec_t compress_attrs[] = {{"axis", BERTH_ATTR_INT, false, 0, 0},
                                                   {"flat", BERTH_ATTR_INT, false, 0, 0},
                                                   {"bound", BERTH_ATTR_INT, true, 0, 0}};
const berth_op_def_t berth_op_def_compress_bounded = {"compress_bounded", BERTH_OPKIND_KERNEL, 2, 2, 2, 3,
                                                      compress_attrs, compress_infer, compress_run};

/* ---- unique_bounded(x) {axis, flat, sorted, bound}
 *        -> (y, indices i64[bound], inverse i64[n], counts i64[bound], count i64[], work i64[3n])
 * ONNX Unique: the distinct slices of x along axis (elements when flat), in ascending order
 * (sorted = 1) or in order of first occurrence; indices: the first occurrence of each,
 * inverse: each slice's place in y, counts: how often each occurs. */

enum { UQ_AXIS, UQ_FLAT, UQ_SORTED, UQ_BOUND };

static berth_status_t unique_plan(const berth_attr_value_t *attrs, const berth_type_t *x, int32_t *axis,
                                  berth_type_t *out, berth_diag_t *diag) {
  char a[160];
  bool flat, sorted;
  int64_t n = 0;
  BERTH_TRY(berth_kernel_get_flag("unique_bounded", "flat", &attrs[UQ_FLAT], &flat, diag));
  BERTH_TRY(berth_kernel_get_flag("unique_bounded", "sorted", &attrs[UQ_SORTED], &sorted, diag));
  BERTH_TRY(get_bound("unique_bounded", &attrs[UQ_BOUND], &n, diag));
  *axis = -1;
  if (!flat) {
    if (x->rank == 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unique_bounded: input %s is a scalar, expected an axis",
                        berth_type_format(x, a, sizeof a));
    BERTH_TRY(berth_kernel_axis("unique_bounded", "axis", attrs[UQ_AXIS].i, x->rank, axis, diag));
  }
  int64_t len = *axis < 0 ? berth_type_numel(x) : x->dims[*axis], w = 3 * len;
  resized(x, *axis, n, &out[0]);
  type_i64(&out[1], 1, &n);
  type_i64(&out[2], 1, &len);
  type_i64(&out[3], 1, &n);
  type_i64(&out[4], 0, NULL);
  type_i64(&out[5], 1, &w);
  BERTH_TRY(berth_kernel_check_output("unique_bounded", &out[0], diag));
  return berth_kernel_check_output("unique_bounded", &out[5], diag);
}

static berth_status_t unique_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_unique_bounded, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("unique_bounded", 0, in[0].dtype, BERTH_MASK_ALL, diag));
  int32_t axis;
  return unique_plan(attrs, &in[0], &axis, out, diag);
}

typedef struct uq {
  berth_dtype_t dt;
  const void *x;
  split_t s;
} uq_t;

static int uq_cmp(const uq_t *u, int64_t a, int64_t b) {
  for (int64_t o = 0; o < u->s.outer; o++)
    for (int64_t i = 0; i < u->s.inner; i++) {
      int c = berth_elem_cmp(u->dt, u->x, (o * u->s.n + a) * u->s.inner + i, (o * u->s.n + b) * u->s.inner + i);
      if (c) return c;
    }
  return 0;
}

/* A stable merge sort of order[0..n) by slice (tmp: n entries). */
static void uq_sort(const uq_t *u, int64_t *order, int64_t *tmp, int64_t n) {
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = uq_cmp(u, order[j], order[i]) < 0 ? order[j++] : order[i++];
      while (i < mid) tmp[k++] = order[i++];
      while (j < hi) tmp[k++] = order[j++];
    }
    memcpy(order, tmp, sizeof(int64_t) * (size_t)n);
  }
}

/* The groups of equal slices: inv[i] = the sorted group of slice i, first[g] its first
 * member, cnt[g] its size (order: sorted slice indices). Returns the group count. */
static int64_t uq_groups(const uq_t *u, const int64_t *order, int64_t n, int64_t *inv, int64_t *first, int64_t *cnt) {
  int64_t g = 0;
  for (int64_t k = 0; k < n; k++) {
    if (k == 0 || uq_cmp(u, order[k - 1], order[k]) != 0) first[g] = order[k], cnt[g++] = 0;
    inv[order[k]] = g - 1;
    cnt[g - 1]++;
  }
  return g;
}

static void unique_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  int32_t axis;
  berth_type_t out[6];
  unique_plan(call->attrs, x, &axis, out, NULL);
  uq_t u = {x->dtype, call->in[0].data, split_of(x, axis)};
  int64_t n = u.s.n, bound = call->attrs[UQ_BOUND].i;
  int64_t *idx = (int64_t *)call->out[1].data, *inv = (int64_t *)call->out[2].data, *cnts = (int64_t *)call->out[3].data;
  int64_t *order = (int64_t *)call->out[5].data, *tmp = order + n, *rank = order + 2 * n;
  for (int64_t i = 0; i < n; i++) order[i] = i;
  if (u.s.outer == 0) u.s.inner = 0; /* empty slices: all equal */
  uq_sort(&u, order, tmp, n);
  /* tmp: first member per sorted group; rank (for now): its size */
  int64_t groups = uq_groups(&u, order, n, inv, tmp, rank);
  *(int64_t *)call->out[4].data = groups;
  memset(call->out[0].data, 0, (size_t)berth_type_numel(&out[0]) * berth_dtype_size(x->dtype));
  memset(idx, 0, sizeof(int64_t) * (size_t)bound);
  memset(cnts, 0, sizeof(int64_t) * (size_t)bound);
  if (groups > bound) {
    memset(inv, 0, sizeof(int64_t) * (size_t)n);
    return;
  }
  memcpy(cnts, rank, sizeof(int64_t) * (size_t)groups);
  memcpy(idx, tmp, sizeof(int64_t) * (size_t)groups);
  if (!call->attrs[UQ_SORTED].i) { /* renumber the groups by first occurrence */
    for (int64_t g = 0; g < groups; g++) rank[g] = -1;
    for (int64_t i = 0, next = 0; i < n; i++)
      if (rank[inv[i]] < 0) rank[inv[i]] = next++;
    for (int64_t g = 0; g < groups; g++) idx[rank[g]] = tmp[g], order[rank[g]] = cnts[g];
    memcpy(cnts, order, sizeof(int64_t) * (size_t)groups);
    for (int64_t i = 0; i < n; i++) inv[i] = rank[inv[i]];
  }
  split_t s = split_of(x, axis);
  if (s.outer && s.inner) gather_slices(x, call->in[0].data, &s, idx, groups, call->out[0].data);
}

static const berth_attr_spec_t unique_attrs[] = {{"axis", BERTH_ATTR_INT, false, 0, 0},
                                                 {"flat", BERTH_ATTR_INT, false, 0, 0},
                                                 {"sorted", BERTH_ATTR_INT, false, 1, 0},
                                                 {"bound", BERTH_ATTR_INT, true, 0, 0}};
const berth_op_def_t berth_op_def_unique_bounded = {"unique_bounded", BERTH_OPKIND_KERNEL, 1, 1, 6, 4,
                                                    unique_attrs, unique_infer, unique_run};

/* ---- nms_bounded(boxes, scores, max_out, iou, score) {center, has_score, bound}
 *        -> (selected i64[bound, 3], count i64[], work i64[3N])
 * ONNX NonMaxSuppression: boxes float [B, N, 4], scores [B, C, N] of the same dtype, max_out
 * an i64 one-element tensor (at most that many kept per batch and class; <= 0: none), iou
 * and score one-element tensors of the boxes' dtype (score used only when has_score). Per
 * batch and class, the candidates scoring above the threshold, best first (ties: the lower
 * index first), each kept unless its IoU with one already kept exceeds iou. */

enum { NMS_CENTER, NMS_HAS_SCORE, NMS_BOUND };

static berth_status_t nms_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                berth_type_t *out, berth_diag_t *diag) {
  char a[160], b[160];
  bool flag;
  int64_t n = 0, d[2] = {0, 0};
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_nms_bounded, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("nms_bounded", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  for (int32_t k = 1; k < 5; k++) {
    if (k != 2) BERTH_TRY(berth_kernel_check_same_dtype("nms_bounded", in, 0, k, diag));
    else BERTH_TRY(berth_kernel_check_dtype("nms_bounded", 2, in[2].dtype, BERTH_DTYPE_BIT(I64), diag));
    if (k > 1 && berth_type_numel(&in[k]) != 1)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "nms_bounded: operand %d is %s, expected one element",
                        (int)k, berth_type_format(&in[k], a, sizeof a));
  }
  const berth_type_t *bt = &in[0], *st = &in[1];
  if (bt->rank != 3 || bt->dims[2] != 4 || st->rank != 3 || st->dims[0] != bt->dims[0] || st->dims[2] != bt->dims[1])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "nms_bounded: boxes %s and scores %s, expected [B, N, 4] and [B, C, N]",
                      berth_type_format(bt, a, sizeof a), berth_type_format(st, b, sizeof b));
  BERTH_TRY(berth_kernel_get_flag("nms_bounded", "center_point_box", &attrs[NMS_CENTER], &flag, diag));
  BERTH_TRY(berth_kernel_get_flag("nms_bounded", "has_score", &attrs[NMS_HAS_SCORE], &flag, diag));
  BERTH_TRY(get_bound("nms_bounded", &attrs[NMS_BOUND], &n, diag));
  d[0] = n, d[1] = 3;
  type_i64(&out[0], 2, d);
  type_i64(&out[1], 0, d);
  d[0] = 3 * bt->dims[1];
  type_i64(&out[2], 1, d);
  return berth_kernel_check_output("nms_bounded", &out[0], diag);
}

typedef struct nms {
  berth_dtype_t dt;
  const void *boxes, *scores;
  int64_t B, N, C, max_out;
  double iou, score;
  bool has_score, center;
} nms_t;

/* Box i of batch b as [x1, x2] and [y1, y2], each ordered. */
static void nms_box(const nms_t *a, int64_t b, int64_t i, double xs[2], double ys[2]) {
  double p[4];
  for (int k = 0; k < 4; k++) p[k] = elem_f(a->dt, a->boxes, (b * a->N + i) * 4 + k);
  if (a->center) {
    xs[0] = p[0] - p[2] / 2, xs[1] = p[0] + p[2] / 2, ys[0] = p[1] - p[3] / 2, ys[1] = p[1] + p[3] / 2;
    return;
  }
  xs[0] = p[1] < p[3] ? p[1] : p[3], xs[1] = p[1] < p[3] ? p[3] : p[1];
  ys[0] = p[0] < p[2] ? p[0] : p[2], ys[1] = p[0] < p[2] ? p[2] : p[0];
}

static bool nms_suppress(const nms_t *a, int64_t b, int64_t i, int64_t j) {
  double x1[2], y1[2], x2[2], y2[2];
  nms_box(a, b, i, x1, y1);
  nms_box(a, b, j, x2, y2);
  double ix = (x1[1] < x2[1] ? x1[1] : x2[1]) - (x1[0] > x2[0] ? x1[0] : x2[0]);
  double iy = (y1[1] < y2[1] ? y1[1] : y2[1]) - (y1[0] > y2[0] ? y1[0] : y2[0]);
  if (!(ix > 0) || !(iy > 0)) return false;
  double inter = ix * iy, a1 = (x1[1] - x1[0]) * (y1[1] - y1[0]), a2 = (x2[1] - x2[0]) * (y2[1] - y2[0]);
  double uni = a1 + a2 - inter;
  if (!(inter > 0) || !(a1 > 0) || !(a2 > 0) || !(uni > 0)) return false;
  return inter / uni > a->iou;
}

/* Selects the boxes of (b, c): rows written to sel while *m < bound; *m counts them all.
 * work: 3N entries (candidates, sort scratch, kept). */
static void nms_class(const nms_t *a, int64_t b, int64_t c, int64_t *work, int64_t *sel, int64_t bound, int64_t *m) {
  int64_t *cand = work, *tmp = work + a->N, *kept = work + 2 * a->N, nc = 0, nk = 0, base = (b * a->C + c) * a->N;
  for (int64_t i = 0; i < a->N; i++)
    if (!a->has_score || elem_f(a->dt, a->scores, base + i) > a->score) cand[nc++] = i;
  for (int64_t w = 1; w < nc; w *= 2) { /* stable merge sort, higher score first */
    for (int64_t lo = 0; lo < nc; lo += 2 * w) {
      int64_t mid = lo + w < nc ? lo + w : nc, hi = lo + 2 * w < nc ? lo + 2 * w : nc, i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = elem_f(a->dt, a->scores, base + cand[j]) > elem_f(a->dt, a->scores, base + cand[i]) ? cand[j++] : cand[i++];
      while (i < mid) tmp[k++] = cand[i++];
      while (j < hi) tmp[k++] = cand[j++];
    }
    memcpy(cand, tmp, sizeof(int64_t) * (size_t)nc);
  }
  for (int64_t k = 0; k < nc && nk < a->max_out; k++) {
    bool keep = true;
    for (int64_t q = 0; q < nk && keep; q++) keep = !nms_suppress(a, b, cand[k], kept[q]);
    if (!keep) continue;
    kept[nk++] = cand[k];
    if (*m < bound) sel[*m * 3] = b, sel[*m * 3 + 1] = c, sel[*m * 3 + 2] = cand[k];
    (*m)++;
  }
}

static void nms_run(const berth_kernel_call_t *call) {
  const berth_type_t *bt = call->in[0].type, *st = call->in[1].type;
  nms_t a = {bt->dtype, call->in[0].data, call->in[1].data, bt->dims[0], bt->dims[1], st->dims[1], 0,
             elem_f(bt->dtype, call->in[3].data, 0), elem_f(bt->dtype, call->in[4].data, 0),
             call->attrs[NMS_HAS_SCORE].i != 0, call->attrs[NMS_CENTER].i != 0};
  int64_t mo = *(const int64_t *)call->in[2].data, bound = call->attrs[NMS_BOUND].i, m = 0;
  a.max_out = mo > 0 ? (mo < a.N ? mo : a.N) : 0;
  int64_t *sel = (int64_t *)call->out[0].data;
  memset(sel, 0, sizeof(int64_t) * 3 * (size_t)bound);
  for (int64_t b = 0; b < a.B; b++)
    for (int64_t c = 0; c < a.C; c++) nms_class(&a, b, c, (int64_t *)call->out[2].data, sel, bound, &m);
  *(int64_t *)call->out[1].data = m;
  if (m > bound) memset(sel, 0, sizeof(int64_t) * 3 * (size_t)bound);
}

static const berth_attr_spec_t nms_attrs[] = {{"center_point_box", BERTH_ATTR_INT, false, 0, 0},
                                              {"has_score", BERTH_ATTR_INT, false, 0, 0},
                                              {"bound", BERTH_ATTR_INT, true, 0, 0}};
const berth_op_def_t berth_op_def_nms_bounded = {"nms_bounded", BERTH_OPKIND_KERNEL, 5, 5, 3, 3,
                                                 nms_attrs, nms_infer, nms_run};
