/* ONNX ops, math family: activations (LeakyRelu, PRelu, HardSigmoid, Elu, Selu, Gelu, ...), the remaining elementwise math (trigonometric, Erf, Sign, Round, IsInf) and the bitwise ops. */
#include "onnx_internal.h"

const ox_op_row_t ox_ops_math[] = {
    {NULL, NULL, BERTH_OP_COUNT},
};
