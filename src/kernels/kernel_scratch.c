/* The kernels that ask for planned scratch (kernel_scratch.h), by op. A switch of its own
 * rather than a field of berth_op_def_t: only the compiler and the test oracles call it, so
 * a runtime (even one cut to a few kernels) never links it, the op definitions stay as they
 * are, and no function address is taken (tools/stack/stack_depth.c would count every
 * address-taken function as a possible target of the kernels' indirect calls). */
#include "kernel_scratch.h"

uint64_t berth_op_scratch_bytes(uint32_t op, const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  uint64_t b;
  switch (op) {
    case BERTH_OP_CONV: b = berth_scratch_conv(attrs, in, n_in); break;
    case BERTH_OP_MATMUL: b = berth_scratch_matmul(attrs, in, n_in); break;
    case BERTH_OP_GEMM: b = berth_scratch_gemm(attrs, in, n_in); break;
    case BERTH_OP_IMAGE_DECODER: b = berth_scratch_image_decoder(attrs, in, n_in); break;
    case BERTH_OP_CONV_TRANSPOSE: b = berth_scratch_conv_transpose(attrs, in, n_in); break;
    case BERTH_OP_CONV_PACKED: b = berth_scratch_conv_packed(attrs, in, n_in); break;
    case BERTH_OP_MATMUL_PACKED: b = berth_scratch_matmul_packed(attrs, in, n_in); break;
    case BERTH_OP_MAX_POOL: b = berth_scratch_max_pool(attrs, in, n_in); break;
    case BERTH_OP_AVG_POOL: b = berth_scratch_avg_pool(attrs, in, n_in); break;
    case BERTH_OP_CONV_WINOGRAD: b = berth_scratch_conv_winograd(attrs, in, n_in); break;
    default: return 0;
  }
  return b < BERTH_SCRATCH_MAX_BYTES ? b : BERTH_SCRATCH_MAX_BYTES;
}
