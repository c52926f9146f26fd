/* The kernels that ask for planned scratch (kernel_scratch.h), looked up by op. A table of
 * its own rather than a field of berth_op_def_t: only the compiler and the test oracles
 * read it, so a runtime (even one cut to a few kernels) never links these functions, and
 * the op definitions stay as they are. */
#include "kernel_scratch.h"

typedef uint64_t (*scratch_fn)(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);

static const struct {
  berth_op_t op;
  scratch_fn fn;
} scratch_ops[] = {
    {BERTH_OP_CONV, berth_scratch_conv},
};

uint64_t berth_op_scratch_bytes(uint32_t op, const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  for (size_t i = 0; i < sizeof scratch_ops / sizeof scratch_ops[0]; i++)
    if ((uint32_t)scratch_ops[i].op == op) {
      uint64_t b = scratch_ops[i].fn(attrs, in, n_in);
      return b < BERTH_SCRATCH_MAX_BYTES ? b : BERTH_SCRATCH_MAX_BYTES;
    }
  return 0;
}
