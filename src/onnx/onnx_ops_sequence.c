/* ONNX ops, sequence family: sequence-model ops (Attention, RotaryEmbedding, RNN, GRU) and the loss functions. */
#include "onnx_internal.h"

const ox_op_row_t ox_ops_sequence[] = {
    {NULL, NULL, BERTH_OP_COUNT},
};
