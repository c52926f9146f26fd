/* index_check(idx) {lo, hi} -> ok: a bool scalar, true when every element of idx (i64) lies
 * in [lo[j], hi[j]), j being the element's position in idx's last dim (lo and hi hold one
 * bound each, for every element, or one per position of the last dim).
 *
 * The run-time check of indices read from data: the ONNX importer computes `ok` with this
 * before a kernel that reads indices (Gather, GatherND, ScatterElements, ScatterND,
 * TensorScatter, ReverseSequence) and asserts it, so an index out of range fails the call
 * naming the node, as the kernels that compute their own `ok` result do (GatherElements,
 * RotaryEmbedding, the losses, RNN/GRU). */
#include "kernel_util.h"

enum { IC_LO, IC_HI };

static berth_status_t index_check_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                        berth_type_t *out, berth_diag_t *diag) {
  const char *op = "index_check";
  char s[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_index_check, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, BERTH_DTYPE_BIT(I64), diag));
  BERTH_TRY(berth_kernel_check_ints(op, "lo", &attrs[IC_LO], diag));
  BERTH_TRY(berth_kernel_check_ints(op, "hi", &attrs[IC_HI], diag));
  int32_t nb = attrs[IC_LO].n;
  if (nb < 1 || attrs[IC_HI].n != nb)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %d lower and %d upper bounds, expected as many, at least 1", op,
                      (int)nb, (int)attrs[IC_HI].n);
  if (nb > 1 && (in[0].rank < 1 || in[0].dims[in[0].rank - 1] != nb))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %d bounds for indices %s, expected one or one per element of the last dim",
                      op, (int)nb, berth_type_format(&in[0], s, sizeof s));
  berth_kernel_type_init(&out[0], BERTH_DTYPE_BOOL, 0);
  return BERTH_OK;
}

static void index_check_run(const berth_kernel_call_t *call) {
  const berth_attr_value_t *a = call->attrs;
  const int64_t *idx = (const int64_t *)call->in[0].data;
  int64_t n = berth_type_numel(call->in[0].type), nb = a[IC_LO].n;
  bool ok = true;
  for (int64_t i = 0, j = 0; i < n; i++, j = j + 1 == nb ? 0 : j + 1)
    ok &= idx[i] >= a[IC_LO].ints[j] && idx[i] < a[IC_HI].ints[j];
  *(uint8_t *)call->out[0].data = ok;
}

static const berth_attr_spec_t index_check_attrs[] = {{"lo", BERTH_ATTR_INTS, true, 0, 0}, {"hi", BERTH_ATTR_INTS, true, 0, 0}};
const berth_op_def_t berth_op_def_index_check = {"index_check", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, index_check_attrs,
                                                 index_check_infer, index_check_run};
