/* ONNX ops, index family: reductions beyond Sum/Mean/Max/Min, index ops (ArgMin, TopK, CumSum, Trilu, GatherND, ScatterElements, ScatterND, OneHot, EyeLike, ...). */
#include "onnx_internal.h"

const ox_op_row_t ox_ops_index[] = {
    {NULL, NULL, BERTH_OP_COUNT},
};
