/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t ceil_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "ceil: not implemented yet");
}
static void ceil_run(const berth_kernel_call_t *call) { (void)call; }
const berth_op_def_t berth_op_def_ceil = {"ceil", BERTH_OPKIND_KERNEL, 1, 1, 1, 0, NULL, ceil_infer, ceil_run};

static berth_status_t floor_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "floor: not implemented yet");
}
static void floor_run(const berth_kernel_call_t *call) { (void)call; }
const berth_op_def_t berth_op_def_floor = {"floor", BERTH_OPKIND_KERNEL, 1, 1, 1, 0, NULL, floor_infer, floor_run};

