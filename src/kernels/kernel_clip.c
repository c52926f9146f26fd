/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t clip_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "clip: not implemented yet");
}
static void clip_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t clip_attrs[] = {{"min", BERTH_ATTR_SCALAR, false, 0, 0}, {"max", BERTH_ATTR_SCALAR, false, 0, 0}};
const berth_op_def_t berth_op_def_clip = {"clip", BERTH_OPKIND_KERNEL, 1, 1, 1, 2, clip_attrs, clip_infer, clip_run};

