/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t mod_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "mod: not implemented yet");
}
static void mod_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t mod_attrs[] = {{"fmod", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_mod = {"mod", BERTH_OPKIND_KERNEL, 2, 2, 1, 1, mod_attrs, mod_infer, mod_run};

