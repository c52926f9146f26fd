/* ONNX ops, spatial family: spatial and data-movement ops (ConvTranspose, Resize, Upsample, DepthToSpace, SpaceToDepth, Split, Tile, GatherElements, CenterCropPad, Col2Im, GridSample). */
#include "onnx_internal.h"

const ox_op_row_t ox_ops_spatial[] = {
    {NULL, NULL, BERTH_OP_COUNT},
};
