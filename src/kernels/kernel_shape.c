/* Shape and data movement ops: select slice squeeze unsqueeze reshape transpose concat
 * expand. All dtypes; they only move bytes.
 *
 * Each op computes its output shape (and, where needed, a strided view of its input) in one
 * plan function that both infer and run call, so what run does is exactly what infer
 * accepted. Views are copied with berth_kernel_gather (transpose and expand with their block
 * copies in kernel_move.c); squeeze, unsqueeze and reshape keep
 * the row-major order and are a plain memcpy. */
#include "base/checked.h"
#include "kernel_move.h"
#include "kernel_util.h"

#include <string.h>

static void copy_dims(berth_type_t *t, const berth_type_t *from) {
  memcpy(t->dims, from->dims, (size_t)from->rank * sizeof t->dims[0]);
}

static void copy_all(const berth_kernel_call_t *call) {
  size_t bytes = berth_type_bytes(call->in[0].type);
  if (bytes) memcpy(call->out[0].data, call->in[0].data, bytes);
}

/* Marks axis `a` as seen; fails if it already was. */
static berth_status_t mark_axis(const char *op, const char *attr, bool *seen, int32_t a, int64_t raw,
                                berth_diag_t *diag) {
  if (seen[a])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %s names axis %lld twice, expected distinct axes", op,
                      attr, (long long)raw);
  seen[a] = true;
  return BERTH_OK;
}

/* A strided view of the input: out[i] = in[base + sum_k i_k * strides[k]]. */
typedef struct view {
  berth_type_t type; /* the output type */
  int64_t strides[BERTH_MAX_RANK];
  int64_t base;
} view_t;

static void run_view(const berth_kernel_call_t *call, const view_t *v) {
  berth_kernel_gather(call->out[0].data, call->in[0].data, berth_dtype_size(v->type.dtype), v->type.rank,
                      v->type.dims, v->strides, v->base);
}

static berth_status_t finish(const char *op, const berth_type_t *t, berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_output(op, t, diag));
  out[0] = *t;
  return BERTH_OK;
}

/* ==== select(x) {dim, index} ======================================================== */

static berth_status_t select_plan(const berth_attr_value_t *attrs, const berth_type_t *x, view_t *v,
                                  berth_diag_t *diag) {
  int32_t dim;
  BERTH_TRY(berth_kernel_axis("select", "dim", attrs[0].i, x->rank, &dim, diag));
  int64_t n = x->dims[dim], index = attrs[1].i;
  if (index < -n || index >= n)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "select: index %lld is out of range for dim %d of size %lld (expected %lld..%lld)",
                      (long long)index, (int)dim, (long long)n, (long long)-n, (long long)n - 1);
  if (index < 0) index += n;
  int64_t s[BERTH_MAX_RANK];
  berth_kernel_strides(x, s);
  berth_kernel_type_init(&v->type, x->dtype, x->rank - 1);
  for (int32_t k = 0, j = 0; k < x->rank; k++) {
    if (k == dim) continue;
    v->type.dims[j] = x->dims[k];
    v->strides[j++] = s[k];
  }
  v->base = index * s[dim];
  return BERTH_OK;
}

static berth_status_t select_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_select, in, n_in, diag));
  view_t v;
  BERTH_TRY(select_plan(attrs, &in[0], &v, diag));
  return finish("select", &v.type, out, diag);
}

static void select_run(const berth_kernel_call_t *call) {
  view_t v;
  select_plan(call->attrs, call->in[0].type, &v, NULL);
  run_view(call, &v);
}

/* ==== slice(x) {axes, starts, ends, steps}: ONNX Slice ================================ */

static berth_status_t slice_plan(const berth_attr_value_t *attrs, const berth_type_t *x, view_t *v,
                                 berth_diag_t *diag) {
  const berth_attr_value_t *axes = &attrs[0], *starts = &attrs[1], *ends = &attrs[2], *steps = &attrs[3];
  BERTH_TRY(berth_kernel_check_ints("slice", "axes", axes, diag));
  BERTH_TRY(berth_kernel_check_ints("slice", "starts", starts, diag));
  BERTH_TRY(berth_kernel_check_ints("slice", "ends", ends, diag));
  BERTH_TRY(berth_kernel_check_ints("slice", "steps", steps, diag));
  int32_t n = starts->n;
  if (ends->n != n)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "slice: starts has %d values and ends %d, expected the same count",
                      (int)n, (int)ends->n);
  if (axes->n != 0 && axes->n != n)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "slice: axes has %d values and starts %d, expected the same count (or no axes)",
                      (int)axes->n, (int)n);
  if (steps->n != 0 && steps->n != n)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "slice: steps has %d values and starts %d, expected the same count (or no steps)",
                      (int)steps->n, (int)n);
  if (axes->n == 0 && n > x->rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "slice: starts has %d values but the operand has rank %d; expected at most one per axis",
                      (int)n, (int)x->rank);
  int64_t s[BERTH_MAX_RANK];
  berth_kernel_strides(x, s);
  berth_kernel_type_init(&v->type, x->dtype, x->rank);
  copy_dims(&v->type, x);
  v->base = 0;
  for (int32_t k = 0; k < x->rank; k++) v->strides[k] = s[k];
  bool seen[BERTH_MAX_RANK] = {false};
  for (int32_t i = 0; i < n; i++) {
    int32_t a = i;
    if (axes->n) {
      BERTH_TRY(berth_kernel_axis("slice", "axes entry", axes->ints[i], x->rank, &a, diag));
      BERTH_TRY(mark_axis("slice", "axes", seen, a, axes->ints[i], diag));
    }
    int64_t step = steps->n ? steps->ints[i] : 1;
    if (step == 0) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "slice: steps[%d] is 0, expected a nonzero step", (int)i);
    int64_t d = x->dims[a], start = starts->ints[i], end = ends->ints[i], count;
    if (start < 0) start += d; /* no overflow: d >= 0 */
    if (end < 0) end += d;
    if (d == 0) {
      count = 0;
    } else if (step > 0) {
      start = start < 0 ? 0 : start > d ? d : start;
      end = end < 0 ? 0 : end > d ? d : end;
      count = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = start < 0 ? 0 : start > d - 1 ? d - 1 : start;
      end = end < -1 ? -1 : end > d - 1 ? d - 1 : end;
      uint64_t mag = (uint64_t)0 - (uint64_t)step; /* |step|, also for INT64_MIN */
      count = start > end ? (int64_t)((uint64_t)(start - end - 1) / mag) + 1 : 0;
    }
    v->type.dims[a] = count;
    if (count > 0) v->base += start * s[a];
    /* With two or more elements |step| < d, so the stride cannot overflow. */
    v->strides[a] = count > 1 ? step * s[a] : s[a];
  }
  return BERTH_OK;
}

static berth_status_t slice_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_slice, in, n_in, diag));
  view_t v;
  BERTH_TRY(slice_plan(attrs, &in[0], &v, diag));
  return finish("slice", &v.type, out, diag);
}

static void slice_run(const berth_kernel_call_t *call) {
  view_t v;
  slice_plan(call->attrs, call->in[0].type, &v, NULL);
  run_view(call, &v);
}

/* ==== squeeze(x) {axes} ============================================================= */

static berth_status_t squeeze_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                    berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_squeeze, in, n_in, diag));
  const berth_attr_value_t *axes = &attrs[0];
  BERTH_TRY(berth_kernel_check_ints("squeeze", "axes", axes, diag));
  const berth_type_t *x = &in[0];
  bool drop[BERTH_MAX_RANK] = {false};
  if (axes->n == 0) {
    for (int32_t k = 0; k < x->rank; k++) drop[k] = x->dims[k] == 1;
  }
  for (int32_t i = 0; i < axes->n; i++) {
    int32_t a;
    BERTH_TRY(berth_kernel_axis("squeeze", "axes entry", axes->ints[i], x->rank, &a, diag));
    BERTH_TRY(mark_axis("squeeze", "axes", drop, a, axes->ints[i], diag));
    if (x->dims[a] != 1)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "squeeze: axis %lld has size %lld, expected 1",
                        (long long)axes->ints[i], (long long)x->dims[a]);
  }
  berth_type_t t;
  berth_kernel_type_init(&t, x->dtype, 0);
  for (int32_t k = 0; k < x->rank; k++)
    if (!drop[k]) t.dims[t.rank++] = x->dims[k];
  return finish("squeeze", &t, out, diag);
}

/* ==== unsqueeze(x) {axes}: axes index the output ==================================== */

static berth_status_t unsqueeze_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                      berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_unsqueeze, in, n_in, diag));
  const berth_attr_value_t *axes = &attrs[0];
  BERTH_TRY(berth_kernel_check_ints("unsqueeze", "axes", axes, diag));
  const berth_type_t *x = &in[0];
  if (axes->n == 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unsqueeze: axes is empty, expected at least one axis");
  int32_t rank = x->rank + axes->n;
  if (rank > BERTH_MAX_RANK)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unsqueeze: result rank %d exceeds the maximum %d", (int)rank,
                      BERTH_MAX_RANK);
  bool added[BERTH_MAX_RANK] = {false};
  for (int32_t i = 0; i < axes->n; i++) {
    int32_t a;
    BERTH_TRY(berth_kernel_axis("unsqueeze", "axes entry", axes->ints[i], rank, &a, diag));
    BERTH_TRY(mark_axis("unsqueeze", "axes", added, a, axes->ints[i], diag));
  }
  berth_type_t t;
  berth_kernel_type_init(&t, x->dtype, rank);
  for (int32_t k = 0, j = 0; k < rank; k++) t.dims[k] = added[k] ? 1 : x->dims[j++];
  return finish("unsqueeze", &t, out, diag);
}

/* ==== reshape(x) {shape}: ONNX Reshape (0 copies the input dim, one -1 is inferred) ==== */

static berth_status_t reshape_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                    berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_reshape, in, n_in, diag));
  const berth_attr_value_t *shape = &attrs[0];
  BERTH_TRY(berth_kernel_check_ints("reshape", "shape", shape, diag));
  const berth_type_t *x = &in[0];
  berth_type_t t;
  berth_kernel_type_init(&t, x->dtype, shape->n);
  int32_t infer_at = -1;
  int64_t known = 1;
  bool overflow = false;
  for (int32_t k = 0; k < shape->n; k++) {
    int64_t d = shape->ints[k];
    if (d == 0) {
      if (k >= x->rank)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                          "reshape: shape[%d] is 0 (copy the input dim) but the input has rank %d", (int)k,
                          (int)x->rank);
      d = x->dims[k];
    } else if (d == -1) {
      if (infer_at >= 0)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "reshape: shape has -1 at %d and %d, expected at most one",
                          (int)infer_at, (int)k);
      infer_at = k;
      continue;
    } else if (d < -1) {
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "reshape: shape[%d] is %lld, expected a size, 0 or -1",
                        (int)k, (long long)d);
    }
    t.dims[k] = d;
    if (!berth_mul_i64(known, d, &known)) overflow = true;
  }
  int64_t numel = berth_type_numel(x);
  char a[160], b[160];
  if (infer_at >= 0) {
    if (overflow || known == 0 || numel % known != 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "reshape: cannot infer the -1 in shape: %s has %lld elements, expected a multiple of the "
                        "product of the other dims (%s%lld)",
                        berth_type_format(x, a, sizeof a), (long long)numel, overflow ? "overflowing " : "",
                        (long long)known);
    t.dims[infer_at] = numel / known;
  } else if (overflow) {
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "reshape: the product of shape's dims overflows, expected %lld elements like %s",
                      (long long)numel, berth_type_format(x, a, sizeof a));
  } else if (known != numel) {
    berth_type_format(&t, b, sizeof b);
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "reshape: %s has %lld elements but shape %s has %lld",
                      berth_type_format(x, a, sizeof a), (long long)numel, b, (long long)known);
  }
  return finish("reshape", &t, out, diag);
}

/* ==== transpose(x) {perm} ============================================================ */

static berth_status_t transpose_plan(const berth_attr_value_t *attrs, const berth_type_t *x, view_t *v,
                                     berth_diag_t *diag) {
  const berth_attr_value_t *perm = &attrs[0];
  BERTH_TRY(berth_kernel_check_ints("transpose", "perm", perm, diag));
  if (perm->n != 0 && perm->n != x->rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "transpose: perm has %d entries, expected %d (the rank) or none",
                      (int)perm->n, (int)x->rank);
  int64_t s[BERTH_MAX_RANK];
  berth_kernel_strides(x, s);
  bool seen[BERTH_MAX_RANK] = {false};
  berth_kernel_type_init(&v->type, x->dtype, x->rank);
  v->base = 0;
  for (int32_t k = 0; k < x->rank; k++) {
    int32_t a = x->rank - 1 - k;
    if (perm->n) {
      BERTH_TRY(berth_kernel_axis("transpose", "perm entry", perm->ints[k], x->rank, &a, diag));
      BERTH_TRY(mark_axis("transpose", "perm", seen, a, perm->ints[k], diag));
    }
    v->type.dims[k] = x->dims[a];
    v->strides[k] = s[a];
  }
  return BERTH_OK;
}

static berth_status_t transpose_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                      berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_transpose, in, n_in, diag));
  view_t v;
  BERTH_TRY(transpose_plan(attrs, &in[0], &v, diag));
  return finish("transpose", &v.type, out, diag);
}

/* A transposed view whose innermost axis is strided runs as 2-D register-tile transposes
 * (kernel_move.c); the others copy rows. */
static void transpose_run(const berth_kernel_call_t *call) {
  view_t v;
  transpose_plan(call->attrs, call->in[0].type, &v, NULL);
  berth_kernel_permute(call->out[0].data, call->in[0].data, berth_dtype_size(v.type.dtype), v.type.rank,
                       v.type.dims, v.strides, v.base);
}

/* ==== concat(xs...) {axis} ========================================================== */

static berth_status_t concat_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_concat, in, n_in, diag));
  int32_t axis;
  BERTH_TRY(berth_kernel_axis("concat", "axis", attrs[0].i, in[0].rank, &axis, diag));
  berth_type_t t = in[0];
  for (int32_t k = t.rank; k < BERTH_MAX_RANK; k++) t.dims[k] = 0;
  for (int32_t j = 1; j < n_in; j++) {
    BERTH_TRY(berth_kernel_check_same_dtype("concat", in, 0, j, diag));
    char a[160], b[160];
    if (in[j].rank != t.rank)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "concat: operand %d %s has rank %d, expected %d like operand 0 %s",
                        (int)j, berth_type_format(&in[j], a, sizeof a), (int)in[j].rank, (int)t.rank,
                        berth_type_format(&in[0], b, sizeof b));
    for (int32_t k = 0; k < t.rank; k++) {
      if (k != axis && in[j].dims[k] != in[0].dims[k])
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                          "concat: operand %d %s differs from operand 0 %s in dim %d, expected equal dims except axis %d",
                          (int)j, berth_type_format(&in[j], a, sizeof a), berth_type_format(&in[0], b, sizeof b),
                          (int)k, (int)axis);
    }
    t.dims[axis] += in[j].dims[axis]; /* <= 64 * 2^40: no overflow */
  }
  return finish("concat", &t, out, diag);
}

static void concat_run(const berth_kernel_call_t *call) {
  const berth_type_t *t = call->out[0].type;
  if (berth_kernel_is_empty(t)) return;
  int32_t axis = (int32_t)(call->attrs[0].i < 0 ? call->attrs[0].i + t->rank : call->attrs[0].i);
  size_t es = berth_dtype_size(t->dtype);
  int64_t outer = 1, inner = (int64_t)es;
  for (int32_t k = 0; k < axis; k++) outer *= t->dims[k];
  for (int32_t k = axis + 1; k < t->rank; k++) inner *= t->dims[k];
  char *o = (char *)call->out[0].data;
  for (int64_t i = 0; i < outer; i++) {
    for (int32_t j = 0; j < call->n_in; j++) {
      size_t chunk = (size_t)(call->in[j].type->dims[axis] * inner);
      if (chunk) memcpy(o, (const char *)call->in[j].data + (size_t)i * chunk, chunk);
      o += chunk;
    }
  }
}

/* ==== expand(x) {shape}: ONNX Expand (bidirectional broadcast) ======================== */

static berth_status_t expand_plan(const berth_attr_value_t *attrs, const berth_type_t *x, view_t *v,
                                  berth_diag_t *diag) {
  const berth_attr_value_t *shape = &attrs[0];
  BERTH_TRY(berth_kernel_check_ints("expand", "shape", shape, diag));
  int32_t rank = x->rank > shape->n ? x->rank : shape->n;
  int64_t s[BERTH_MAX_RANK];
  berth_kernel_strides(x, s);
  berth_kernel_type_init(&v->type, x->dtype, rank);
  v->base = 0;
  for (int32_t k = 0; k < rank; k++) {
    int32_t kx = k - (rank - x->rank), ks = k - (rank - shape->n);
    int64_t dx = kx >= 0 ? x->dims[kx] : 1, ds = ks >= 0 ? shape->ints[ks] : 1;
    if (ds < 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "expand: shape[%d] is %lld, expected a size >= 0", (int)ks,
                        (long long)ds);
    if (dx != ds && dx != 1 && ds != 1) {
      char a[160];
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "expand: %s does not broadcast with shape[%d] = %lld (dim %d of the input is %lld; expected equal sizes or 1)",
                        berth_type_format(x, a, sizeof a), (int)ks, (long long)ds, (int)kx, (long long)dx);
    }
    v->type.dims[k] = dx == 1 ? ds : dx;
    v->strides[k] = (kx >= 0 && dx != 1) ? s[kx] : 0;
  }
  return BERTH_OK;
}

static berth_status_t expand_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_expand, in, n_in, diag));
  view_t v;
  BERTH_TRY(expand_plan(attrs, &in[0], &v, diag));
  return finish("expand", &v.type, out, diag);
}

static void expand_run(const berth_kernel_call_t *call) {
  view_t v;
  expand_plan(call->attrs, call->in[0].type, &v, NULL);
  berth_kernel_expand(call->out[0].data, call->in[0].data, berth_dtype_size(v.type.dtype), v.type.rank, v.type.dims,
                      v.strides, v.base);
}

/* ==== table entries ================================================================ */

static const berth_attr_spec_t select_attrs[] = {{"dim", BERTH_ATTR_INT, false, 0, 0},
                                                 {"index", BERTH_ATTR_INT, false, 0, 0}};
static const berth_attr_spec_t slice_attrs[] = {{"axes", BERTH_ATTR_INTS, false, 0, 0},
                                                {"starts", BERTH_ATTR_INTS, false, 0, 0},
                                                {"ends", BERTH_ATTR_INTS, false, 0, 0},
                                                {"steps", BERTH_ATTR_INTS, false, 0, 0}};
static const berth_attr_spec_t squeeze_attrs[] = {{"axes", BERTH_ATTR_INTS, false, 0, 0}};
static const berth_attr_spec_t unsqueeze_attrs[] = {{"axes", BERTH_ATTR_INTS, true, 0, 0}};
static const berth_attr_spec_t reshape_attrs[] = {{"shape", BERTH_ATTR_INTS, false, 0, 0}};
static const berth_attr_spec_t transpose_attrs[] = {{"perm", BERTH_ATTR_INTS, false, 0, 0}};
static const berth_attr_spec_t concat_attrs[] = {{"axis", BERTH_ATTR_INT, false, 0, 0}};
static const berth_attr_spec_t expand_attrs[] = {{"shape", BERTH_ATTR_INTS, false, 0, 0}};

const berth_op_def_t berth_op_def_select = {"select", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, select_attrs, select_infer, select_run};
const berth_op_def_t berth_op_def_slice = {"slice", BERTH_OPKIND_KERNEL, 1, 1, 1, 4, slice_attrs, slice_infer, slice_run};
const berth_op_def_t berth_op_def_squeeze = {"squeeze", BERTH_OPKIND_KERNEL, 1, 1, 1, 1, squeeze_attrs, squeeze_infer, copy_all};
const berth_op_def_t berth_op_def_unsqueeze = {"unsqueeze", BERTH_OPKIND_KERNEL, 1, 1, 1, 1, unsqueeze_attrs, unsqueeze_infer, copy_all};
const berth_op_def_t berth_op_def_reshape = {"reshape", BERTH_OPKIND_KERNEL, 1, 1, 1, 1, reshape_attrs, reshape_infer, copy_all};
const berth_op_def_t berth_op_def_transpose = {"transpose", BERTH_OPKIND_KERNEL, 1, 1, 1, 1, transpose_attrs, transpose_infer, transpose_run};
const berth_op_def_t berth_op_def_concat = {"concat", BERTH_OPKIND_KERNEL, 1, -1, 1, 1, concat_attrs, concat_infer, concat_run};
const berth_op_def_t berth_op_def_expand = {"expand", BERTH_OPKIND_KERNEL, 1, 1, 1, 1, expand_attrs, expand_infer, expand_run};

/* ==== which calls are views (berth_op_view_offset) ==================================== */

/* A strided view is one contiguous run when every axis of extent > 1 has the row-major stride
 * of the output shape (axes of extent 1 never move). */
static bool view_is_contiguous(const view_t *v) {
  int64_t want = 1;
  for (int32_t k = v->type.rank - 1; k >= 0; k--) {
    if (v->type.dims[k] == 0) return true; /* no bytes at all */
    if (v->type.dims[k] != 1 && v->strides[k] != want) return false;
    want *= v->type.dims[k];
  }
  return true;
}

bool berth_op_view_offset(uint32_t op, const berth_attr_value_t *attrs, const berth_type_t *x, uint64_t *byte_offset) {
  *byte_offset = 0;
  view_t v;
  switch (op) {
    case BERTH_OP_CLONE:
    case BERTH_OP_RESHAPE:
    case BERTH_OP_SQUEEZE:
    case BERTH_OP_UNSQUEEZE: return true;
    case BERTH_OP_SLICE:
      if (slice_plan(attrs, x, &v, NULL) != BERTH_OK) return false;
      break;
    case BERTH_OP_SELECT:
      if (select_plan(attrs, x, &v, NULL) != BERTH_OK) return false;
      break;
    default: return false;
  }
  if (!view_is_contiguous(&v) || v.base < 0) return false;
  if (berth_type_numel(&v.type) == 0) return true; /* empty: no bytes to share, offset 0 */
  *byte_offset = (uint64_t)v.base * berth_dtype_size(x->dtype);
  return true;
}
