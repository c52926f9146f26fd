/* gather_elements(data, indices) {axis} -> (out, ok): ONNX GatherElements.
 *
 * out has the shape of indices (same rank as data, every dim other than axis at most data's);
 *   out[i_0, ..., i_{r-1}] = data[i_0, ..., indices[i_0, ..., i_{r-1}], ..., i_{r-1}]
 * with the index at position `axis`; a negative index counts from the end. indices are i32 or
 * i64; data has any dtype.
 *
 * An index out of range (>= dim or < -dim) is an error in ONNX, but index values are data,
 * known only at run time, and a kernel must not fail or read out of bounds: such an element
 * reads as zero and the second output, a bool scalar, is false (true when every index was in
 * range). The ONNX importer follows the node with assert(ok), so the call fails, naming the
 * node, instead of returning the zeros. */
#include "kernel_util.h"

#include <string.h>

enum { GE_AXIS };

static berth_status_t gather_elements_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                            berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_gather_elements, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("gather_elements", 1, in[1].dtype, BERTH_DTYPE_BIT(I32) | BERTH_DTYPE_BIT(I64),
                                     diag));
  const berth_type_t *d = &in[0], *ix = &in[1];
  char sa[160], sb[160];
  if (d->rank == 0 || ix->rank != d->rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "gather_elements: data %s and indices %s must have the same rank >= 1",
                      berth_type_format(d, sa, sizeof sa), berth_type_format(ix, sb, sizeof sb));
  int32_t axis;
  BERTH_TRY(berth_kernel_axis("gather_elements", "axis", attrs[GE_AXIS].i, d->rank, &axis, diag));
  for (int32_t k = 0; k < d->rank; k++)
    if (k != axis && ix->dims[k] > d->dims[k])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "gather_elements: indices %s are larger than data %s in dim %d (only the axis %d may differ)",
                        berth_type_format(ix, sb, sizeof sb), berth_type_format(d, sa, sizeof sa), (int)k, (int)axis);
  out[0] = *ix;
  out[0].dtype = d->dtype;
  berth_kernel_type_init(&out[1], BERTH_DTYPE_BOOL, 0);
  return BERTH_OK;
}

static void gather_elements_run(const berth_kernel_call_t *call) {
  const berth_type_t *d = call->in[0].type, *ix = call->in[1].type;
  uint8_t *ok = (uint8_t *)call->out[1].data;
  *ok = 1;
  if (berth_kernel_is_empty(ix)) return;
  int32_t r = d->rank;
  int32_t axis = (int32_t)(call->attrs[GE_AXIS].i < 0 ? call->attrs[GE_AXIS].i + r : call->attrs[GE_AXIS].i);
  /* data may be empty along axis only (other dims are >= the nonempty indices' dims) */
  int64_t dstride[BERTH_MAX_RANK], st = 1;
  for (int32_t k = r - 1; k >= 0; k--) {
    dstride[k] = st;
    st *= d->dims[k] ? d->dims[k] : 1;
  }
  const size_t es = berth_dtype_size(d->dtype);
  const unsigned char *src = (const unsigned char *)call->in[0].data;
  unsigned char *dst = (unsigned char *)call->out[0].data;
  const bool i64 = ix->dtype == BERTH_DTYPE_I64;
  const int64_t n = d->dims[axis], inner = ix->dims[r - 1], count = berth_type_numel(ix);
  int64_t idx[BERTH_MAX_RANK] = {0};
  bool all_ok = true;
  for (int64_t j = 0; j < count; j += inner) {
    int64_t base = 0;
    for (int32_t k = 0; k < r - 1; k++)
      if (k != axis) base += idx[k] * dstride[k];
    for (int64_t i = 0; i < inner; i++, dst += es) {
      int64_t v = i64 ? ((const int64_t *)call->in[1].data)[j + i] : ((const int32_t *)call->in[1].data)[j + i];
      if (v < 0 && v >= -n) v += n;
      if (v < 0 || v >= n) {
        memset(dst, 0, es);
        all_ok = false;
        continue;
      }
      int64_t off = base + v * dstride[axis] + (axis == r - 1 ? 0 : i);
      memcpy(dst, src + (size_t)off * es, es);
    }
    for (int32_t k = r - 2; k >= 0; k--) { /* next row of indices */
      if (++idx[k] < ix->dims[k]) break;
      idx[k] = 0;
    }
  }
  *ok = all_ok;
}

static const berth_attr_spec_t gather_elements_attrs[] = {
    {"axis", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_gather_elements = {
    "gather_elements", BERTH_OPKIND_KERNEL, 2, 2, 2, 1, gather_elements_attrs, gather_elements_infer,
    gather_elements_run};
