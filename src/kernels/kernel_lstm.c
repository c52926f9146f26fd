/* Placeholder: being implemented. */
#include "kernel_util.h"

static berth_status_t lstm_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "lstm: not implemented yet");
}
static void lstm_run(const berth_kernel_call_t *call) { (void)call; }
static const berth_attr_spec_t lstm_attrs[] = {{"hidden_size", BERTH_ATTR_INT, true, 0, 0}, {"direction", BERTH_ATTR_INT, false, 0, 0}, {"layout", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_lstm = {"lstm", BERTH_OPKIND_KERNEL, 6, 6, 3, 3, lstm_attrs, lstm_infer, lstm_run};

