/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t softmax_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "softmax: not implemented yet");
}
static void softmax_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t softmax_attrs[] = {{"axis", BERTH_ATTR_INT, false, -1, 0}, {"legacy", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_softmax = {"softmax", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, softmax_attrs, softmax_infer, softmax_run};

static berth_status_t log_softmax_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "log_softmax: not implemented yet");
}
static void log_softmax_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t log_softmax_attrs[] = {{"axis", BERTH_ATTR_INT, false, -1, 0}, {"legacy", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_log_softmax = {"log_softmax", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, log_softmax_attrs, log_softmax_infer, log_softmax_run};

