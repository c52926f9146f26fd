/* elementwise_chain: a chain of f32 elementwise ops run as one kernel (kernel_chain.c),
 * built by src/passes/fuse_chain.c. Shared by the kernel and the pass.
 *
 *   elementwise_chain(x, k1, ..., kn) {code, p0, p1}
 *
 * code lists up to BERTH_CHAIN_MAX instructions applied in order to x's elements, each
 * BERTH_CHAIN_OP_* | operand << 8 | swap << 16: a unary op takes operand 0; a binary op
 * combines the running value A with operand k (1 <= k < n_in) as A op K, or K op A when swap
 * is 1; batch_norm takes operands k to k + 3 (scale, bias, mean, var, each [C] for x's axis 1).
 * p0[i] and p1[i] are instruction i's parameters as the bits of an f64 (clip's min and
 * max, leaky_relu's alpha, hard_sigmoid's alpha and beta, batch_norm's epsilon), as the separate
 * op's attributes. At most 1 + 4 BERTH_CHAIN_MAX operands. */
#ifndef BERTH_KERNELS_KERNEL_CHAIN_H
#define BERTH_KERNELS_KERNEL_CHAIN_H

#include "berth/types.h"

#include <stdbool.h>
#include <stdint.h>

#define BERTH_CHAIN_MAX 8

enum {
  BERTH_CHAIN_OP_RELU = 1,
  BERTH_CHAIN_OP_NEG,
  BERTH_CHAIN_OP_ABS,
  BERTH_CHAIN_OP_SQRT,
  BERTH_CHAIN_OP_EXP,
  BERTH_CHAIN_OP_SIGMOID,
  BERTH_CHAIN_OP_TANH,
  BERTH_CHAIN_OP_CLIP,
  BERTH_CHAIN_OP_LEAKY_RELU,
  BERTH_CHAIN_OP_HARD_SIGMOID,
  BERTH_CHAIN_OP_HARD_SWISH,
  BERTH_CHAIN_OP_ADD, /* the binary ops from here on */
  BERTH_CHAIN_OP_SUB,
  BERTH_CHAIN_OP_MUL,
  BERTH_CHAIN_OP_DIV,
  BERTH_CHAIN_OP_MINIMUM,
  BERTH_CHAIN_OP_MAXIMUM,
  BERTH_CHAIN_OP_BATCH_NORM, /* operands k..k+3: scale, bias, mean, var [C]; p0 epsilon */
  BERTH_CHAIN_OP_END
};

/* Whether operand o of a binary instruction broadcasts into x's shape as the kernel runs it:
 * right-aligned, its dims other than 1 one run of x's dims (a scalar, a per-channel
 * [C, 1, 1], a same-shape tensor, a trailing [W]). *inner and *span (may be NULL): element i
 * of x meets element (i / inner) % span of o. */
bool berth_chain_operand_ok(const berth_type_t *o, const berth_type_t *x, int64_t *inner, int64_t *span);

#endif
