/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t conv_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "conv: not implemented yet");
}
static void conv_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t conv_attrs[] = {{"strides", BERTH_ATTR_INTS, false, 0, 0}, {"pads", BERTH_ATTR_INTS, false, 0, 0}, {"dilations", BERTH_ATTR_INTS, false, 0, 0}, {"group", BERTH_ATTR_INT, false, 1, 0}};
const berth_op_def_t berth_op_def_conv = {"conv", BERTH_OPKIND_KERNEL, 2, 3, 1, 4, conv_attrs, conv_infer, conv_run};

