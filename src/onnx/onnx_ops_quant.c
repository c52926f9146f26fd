/* ONNX ops, quant family: quantization (QuantizeLinear, DequantizeLinear, QLinear*, *Integer) and signal processing (DFT, STFT, window functions, MelWeightMatrix). */
#include "onnx_internal.h"

const ox_op_row_t ox_ops_quant[] = {
    {NULL, NULL, BERTH_OP_COUNT},
};
