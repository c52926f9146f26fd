/* ONNX ops, nn family: pooling (MaxPool, AveragePool, LpPool and their global forms, MaxUnpool) and normalization (BatchNormalization, LayerNormalization, InstanceNormalization, GroupNormalization, LRN, RMSNormalization, MeanVarianceNormalization, LpNormalization). */
#include "onnx_internal.h"

const ox_op_row_t ox_ops_nn[] = {
    {NULL, NULL, BERTH_OP_COUNT},
};
