/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t range_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "range: not implemented yet");
}
static void range_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t range_attrs[] = {{"dtype", BERTH_ATTR_DTYPE, true, 0, 0}, {"start", BERTH_ATTR_SCALAR, false, 0, 0}, {"limit", BERTH_ATTR_SCALAR, false, 0, 0}, {"delta", BERTH_ATTR_SCALAR, false, 0, 1}};
const berth_op_def_t berth_op_def_range = {"range", BERTH_OPKIND_KERNEL, 0, 0, 1, 4, range_attrs, range_infer, range_run};

