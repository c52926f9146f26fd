/* gather(data, indices) {axis}: ONNX Gather.
 *
 * The result is data.dims[:axis] + indices.dims + data.dims[axis+1:]; each index picks one
 * slice of data along axis. indices are i32 or i64 of any rank (0 included); a negative
 * index counts from the end. data has any dtype and rank >= 1.
 *
 * Out-of-range indices (>= dim or < -dim) are an error in ONNX, but index values are data,
 * known only at run time, and a kernel must not fail or read out of bounds: such an index
 * yields a slice of zeros (all-zero bytes: 0, 0.0, false). The ONNX importer puts an assert
 * on the indices before the node (ox_index_check), so an imported model fails the call
 * instead. */
#include "kernel_util.h"

#include <string.h>

enum { GATHER_AXIS };

static berth_status_t gather_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_gather, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("gather", 1, in[1].dtype, BERTH_DTYPE_BIT(I32) | BERTH_DTYPE_BIT(I64), diag));
  const berth_type_t *d = &in[0], *ix = &in[1];
  char sa[160], sb[160];
  if (d->rank == 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "gather: data %s is a scalar, expected rank >= 1",
                      berth_type_format(d, sa, sizeof sa));
  int32_t axis;
  BERTH_TRY(berth_kernel_axis("gather", "axis", attrs[GATHER_AXIS].i, d->rank, &axis, diag));
  if (d->rank - 1 + ix->rank > BERTH_MAX_RANK)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE,
                      "gather: data %s with indices %s gives rank %d, expected at most %d",
                      berth_type_format(d, sa, sizeof sa), berth_type_format(ix, sb, sizeof sb),
                      (int)(d->rank - 1 + ix->rank), BERTH_MAX_RANK);
  berth_type_t t;
  berth_kernel_type_init(&t, d->dtype, 0);
  for (int32_t k = 0; k < axis; k++) t.dims[t.rank++] = d->dims[k];
  for (int32_t k = 0; k < ix->rank; k++) t.dims[t.rank++] = ix->dims[k];
  for (int32_t k = axis + 1; k < d->rank; k++) t.dims[t.rank++] = d->dims[k];
  BERTH_TRY(berth_kernel_check_output("gather", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void gather_run(const berth_kernel_call_t *call) {
  const berth_type_t *d = call->in[0].type, *ix = call->in[1].type;
  if (berth_kernel_is_empty(call->out[0].type)) return;
  int32_t axis = (int32_t)(call->attrs[GATHER_AXIS].i < 0 ? call->attrs[GATHER_AXIS].i + d->rank
                                                           : call->attrs[GATHER_AXIS].i);
  /* The output is nonempty, so every product below is bounded by its size, except that the
   * data may be empty along axis (then every index is out of range). */
  int64_t outer = 1, inner = 1, n = d->dims[axis], count = berth_type_numel(ix);
  for (int32_t k = 0; k < axis; k++) outer *= d->dims[k];
  for (int32_t k = axis + 1; k < d->rank; k++) inner *= d->dims[k];
  const size_t slice = (size_t)inner * berth_dtype_size(d->dtype);
  const unsigned char *src = (const unsigned char *)call->in[0].data;
  unsigned char *dst = (unsigned char *)call->out[0].data;
  const bool i64 = ix->dtype == BERTH_DTYPE_I64;
  for (int64_t o = 0; o < outer; o++) {
    const unsigned char *block = src + (size_t)(o * n) * slice;
    for (int64_t j = 0; j < count; j++, dst += slice) {
      int64_t v = i64 ? ((const int64_t *)call->in[1].data)[j] : ((const int32_t *)call->in[1].data)[j];
      if (v < 0 && v >= -n) v += n;
      if (v < 0 || v >= n) memset(dst, 0, slice);
      else memcpy(dst, block + (size_t)v * slice, slice);
    }
  }
}

static const berth_attr_spec_t gather_attrs[] = {
    {"axis", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_gather = {"gather", BERTH_OPKIND_KERNEL, 2, 2, 1, 1, gather_attrs, gather_infer,
                                            gather_run};
