/* gather_nd(data, indices) {batch_dims}: ONNX GatherND. With b = batch_dims and
 * K = indices.dims[-1], the result is indices.dims[:-1] + data.dims[b+K:]: for each batch
 * (the first b dims, equal in data and indices) each K-tuple of indices picks one slice of
 * that batch's data. indices are i64; a negative index counts from the end.
 *
 * Indices are data, known at run time only: the ONNX importer checks them with a run-time
 * assert before the gather (the call fails loudly); a tuple out of range that reaches the
 * kernel anyway (a program written by hand) yields a slice of zeros, never a read out of
 * bounds. */
#include "kernel_util.h"

#include <string.h>

enum { GND_BATCH_DIMS };

static berth_status_t gather_nd_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                      berth_type_t *out, berth_diag_t *diag) {
  const char *op = "gather_nd";
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_gather_nd, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 1, in[1].dtype, BERTH_DTYPE_BIT(I64), diag));
  const berth_type_t *d = &in[0], *ix = &in[1];
  char sa[160], sb[160];
  int64_t b = attrs[GND_BATCH_DIMS].i;
  if (d->rank == 0 || ix->rank == 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: data %s and indices %s need rank >= 1", op,
                      berth_type_format(d, sa, sizeof sa), berth_type_format(ix, sb, sizeof sb));
  if (b < 0 || b >= d->rank || b >= ix->rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: batch_dims is %lld, expected 0 to %d", op, (long long)b,
                      (int)(d->rank < ix->rank ? d->rank : ix->rank) - 1);
  int64_t K = ix->dims[ix->rank - 1];
  if (K < 1 || K > d->rank - b)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: indices %s index %lld dims of data %s past %lld batch dims, expected 1 to %lld",
                      op, berth_type_format(ix, sa, sizeof sa), (long long)K, berth_type_format(d, sb, sizeof sb),
                      (long long)b, (long long)(d->rank - b));
  for (int32_t k = 0; k < b; k++)
    if (d->dims[k] != ix->dims[k])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: data %s and indices %s differ in batch dim %d, expected equal",
                        op, berth_type_format(d, sa, sizeof sa), berth_type_format(ix, sb, sizeof sb), (int)k);
  if (ix->rank - 1 + d->rank - b - K > BERTH_MAX_RANK)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "%s: data %s with indices %s gives rank %lld, expected at most %d", op,
                      berth_type_format(d, sa, sizeof sa), berth_type_format(ix, sb, sizeof sb),
                      (long long)(ix->rank - 1 + d->rank - b - K), BERTH_MAX_RANK);
  berth_type_t t;
  berth_kernel_type_init(&t, d->dtype, 0);
  for (int32_t k = 0; k + 1 < ix->rank; k++) t.dims[t.rank++] = ix->dims[k];
  for (int64_t k = b + K; k < d->rank; k++) t.dims[t.rank++] = d->dims[k];
  BERTH_TRY(berth_kernel_check_output(op, &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void gather_nd_run(const berth_kernel_call_t *call) {
  const berth_type_t *d = call->in[0].type, *ix = call->in[1].type, *o = call->out[0].type;
  size_t out_bytes = berth_type_bytes(o), es = berth_dtype_size(d->dtype);
  if (out_bytes == 0) return;
  unsigned char *dst = (unsigned char *)call->out[0].data;
  /* the output is nonempty; empty data is empty in a dim the tuples index: all out of range */
  if (berth_kernel_is_empty(d)) {
    memset(dst, 0, out_bytes);
    return;
  }
  int32_t b = (int32_t)call->attrs[GND_BATCH_DIMS].i, K = (int32_t)ix->dims[ix->rank - 1];
  int64_t batches = 1, per_batch = 1, slice = 1, stride[BERTH_MAX_RANK];
  for (int32_t k = 0; k < b; k++) batches *= d->dims[k];
  for (int32_t k = b; k + 1 < ix->rank; k++) per_batch *= ix->dims[k];
  for (int32_t k = b + K; k < d->rank; k++) slice *= d->dims[k];
  for (int32_t k = K - 1; k >= 0; k--) stride[k] = k == K - 1 ? slice : stride[k + 1] * d->dims[b + k + 1];
  int64_t batch_size = stride[0] * d->dims[b];
  const int64_t *idx = (const int64_t *)call->in[1].data;
  const unsigned char *src = (const unsigned char *)call->in[0].data;
  size_t slice_bytes = (size_t)slice * es;
  for (int64_t bi = 0; bi < batches; bi++)
    for (int64_t e = 0; e < per_batch; e++, dst += slice_bytes) {
      const int64_t *t = idx + (bi * per_batch + e) * K;
      int64_t off = bi * batch_size;
      bool ok = true;
      for (int32_t k = 0; k < K && ok; k++) {
        int64_t v = t[k], dim = d->dims[b + k];
        if (v < 0 && v >= -dim) v += dim;
        ok = v >= 0 && v < dim;
        off += v * stride[k];
      }
      if (ok) memcpy(dst, src + (size_t)off * es, slice_bytes);
      else memset(dst, 0, slice_bytes);
    }
}

static const berth_attr_spec_t gather_nd_attrs[] = {{"batch_dims", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_gather_nd = {"gather_nd", BERTH_OPKIND_KERNEL, 2, 2, 1, 1, gather_nd_attrs,
                                               gather_nd_infer, gather_nd_run};
