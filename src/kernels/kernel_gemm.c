/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t gemm_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "gemm: not implemented yet");
}
static void gemm_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t gemm_attrs[] = {{"alpha", BERTH_ATTR_SCALAR, false, 0, 1}, {"beta", BERTH_ATTR_SCALAR, false, 0, 1}, {"trans_a", BERTH_ATTR_INT, false, 0, 0}, {"trans_b", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_gemm = {"gemm", BERTH_OPKIND_KERNEL, 2, 3, 1, 4, gemm_attrs, gemm_infer, gemm_run};

