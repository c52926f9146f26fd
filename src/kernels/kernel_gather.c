/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t gather_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "gather: not implemented yet");
}
static void gather_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t gather_attrs[] = {{"axis", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_gather = {"gather", BERTH_OPKIND_KERNEL, 2, 2, 1, 1, gather_attrs, gather_infer, gather_run};

