/* Compiler passes over the IR: constant evaluation of kernel nodes (fold.c) and dead code
 * elimination (dce.c). The ONNX importer folds while it builds (every node whose operands
 * are all constants is evaluated at once) and runs DCE at the end. */
#ifndef BERTH_PASSES_PASSES_H
#define BERTH_PASSES_PASSES_H

#include "ir/ir.h"

/* Runs kernel op `op` on constant operands: infers the output types (the op's infer, so
 * every check of the planned runtime applies) and computes them into malloc'd buffers,
 * which the caller frees. Fails without outputs if infer rejects the operands, if the op is
 * not a kernel, or if an output exceeds max_bytes. */
berth_status_t berth_fold_kernel(berth_op_t op, const berth_attr_value_t *attrs, int32_t n_in,
                                 const berth_type_t *in_types, const void *const *in_data, int32_t n_out,
                                 berth_type_t *out_types, void **out_data, int64_t max_bytes, berth_diag_t *diag);

/* Folds every kernel node of every method whose operands are all program constants into a
 * new constant (outputs up to max_bytes each), then removes dead code. Returns the number
 * of nodes folded in *n_folded (may be NULL). *p is replaced when anything was folded. */
berth_status_t berth_pass_fold(berth_ir_program_t **p, int64_t max_bytes, int32_t *n_folded, berth_diag_t *diag);

/* Counts the readers of each value of m (nodes at any depth, and graph results) into
 * uses[n_values]; reader (may be NULL) gets a node that reads it (-1 if none). */
void berth_pass_uses(const berth_ir_method_t *m, int32_t *uses, int32_t *reader);

/* Folds each per-output-channel affine map of constants (batch_norm; mul, add, sub, div by
 * a constant that broadcasts along the channel axis) that is the only reader of a conv's
 * result (same graph, conv with constant weights and bias, no act) into the conv's weights
 * and bias (fold_bn.c), in place: results change by rounding only. The folded node is left
 * dead, so berth_pass_dce must run next; run it before berth_pass_fuse_act and
 * berth_pass_pack_weights. Returns the number folded (0 also when out of memory). */
int32_t berth_pass_fold_affine(berth_ir_program_t *p);

/* Fuses each add that is the only reader of a conv's result (same graph, conv with a bias,
 * the other operand of the result's type and ready before the conv) into the conv as its
 * residual operand, then each relu, clip or leaky_relu that is the only reader of a conv's
 * result (same graph, not a graph result) into the conv's activation epilogue (kernel_conv.c's
 * act attributes), in place (fuse.c); the fused nodes are left dead, so berth_pass_dce must
 * run next. Returns the number fused (0 also when out of memory: the program is unchanged). */
int32_t berth_pass_fuse_act(berth_ir_program_t *p);

/* Turns each run of f32 elementwise nodes of one graph, each the only reader of the one
 * before, into one elementwise_chain node (fuse_chain.c, kernel_chain.h), in place: same
 * results bit for bit. The nodes before the run's last are left dead, so berth_pass_dce must
 * run next. Run after berth_pass_fuse_act. Returns the number of chains made (0 also when out
 * of memory). */
int32_t berth_pass_fuse_chains(berth_ir_program_t *p);

/* Packs the f32 constant weights of each conv that takes the packed GEMM (and whose
 * weights nothing else reads) into the micro-kernels' panels: the node becomes conv_packed
 * (kernel_conv.c), in place; the old constant is left unused, so berth_pass_dce must run
 * next. Returns the number packed (it stops early when out of memory, leaving a valid
 * program). */
int32_t berth_pass_pack_weights(berth_ir_program_t *p);

/* Turns each conv whose constant f32 weights are a windowed onesided DFT (an STFT written as
 * Conv1d: weights [2 * (N/2 + 1), 1, N], N a power of two up to 256, within about two f32
 * ulps of w[n] cos(2 pi k n / N) and -w[n] sin(2 pi k n / N)) into conv_dft, an FFT
 * (conv_dft.c, kernel_conv_dft.c), in place: results change by conv's f32 rounding only;
 * then each sqrt(pow(re, 2) + pow(im, 2)) of a conv_dft's two halves into one conv_dft with
 * magnitude = 1. Run it before berth_pass_fuse_chains (which would hide the sqrt). The old
 * weights and the magnitude's add, pows and slices are left unused, so berth_pass_dce must
 * run next. Returns the number rewritten and fused (it stops early when out of memory,
 * leaving a valid program). */
int32_t berth_pass_conv_dft(berth_ir_program_t *p);

/* Converts the regions of convs that can run over channel-blocked tensors (2-D, f32, group 1,
 * constant weights, C and M multiples of 16, small kernels; each reading from or feeding
 * another such conv), with the pools and channel concats between them, into conv_blocked,
 * pool_blocked and concats over [N, C/16, H, W, 16] values, where a cost model says the
 * reorders (reshape and transpose) at the regions' edges pay (layout.c,
 * kernels/kernel_conv_blocked.h), in place: results change by the rounding of another order
 * of the sums; with winograd, its 3x3 stride-1 convs on planes of 144 outputs or more become
 * conv_winograd (kernels/kernel_conv_winograd.h; results within the transforms' rounding).
 * The plain results and old weights are left for berth_pass_dce, which must run next. Run
 * it after the
 * fusion passes and before berth_pass_pack_weights. Returns the number converted, -1 when out
 * of memory (the program is then unusable). */
int32_t berth_pass_block_layout(berth_ir_program_t *p, bool winograd);

/* Removes nodes whose results are never used (HOP nodes with their bodies; copy_ and
 * assert, and every HOP with one in its bodies, are always kept) and constants no method
 * uses. Method signatures are unchanged. Rebuilds the
 * program: *p is replaced (the old one destroyed) on success. */
berth_status_t berth_pass_dce(berth_ir_program_t **p, berth_diag_t *diag);

#endif
