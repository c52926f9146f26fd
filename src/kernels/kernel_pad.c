/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t pad_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "pad: not implemented yet");
}
static void pad_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t pad_attrs[] = {{"pads", BERTH_ATTR_INTS, false, 0, 0}, {"mode", BERTH_ATTR_INT, false, 0, 0}, {"value", BERTH_ATTR_SCALAR, false, 0, 0}};
const berth_op_def_t berth_op_def_pad = {"pad", BERTH_OPKIND_KERNEL, 1, 1, 1, 3, pad_attrs, pad_infer, pad_run};

