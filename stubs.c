#include "kernels/op_table.h"
const berth_op_def_t berth_op_def_symbol = {"symbol", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_conv = {"conv", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_lstm = {"lstm", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_gemm = {"gemm", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_pad = {"pad", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_softmax = {"softmax", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_log_softmax = {"log_softmax", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_clip = {"clip", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_range = {"range", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_gather = {"gather", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_ceil = {"ceil", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_floor = {"floor", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_mod = {"mod", BERTH_OPKIND_KERNEL, 0, 0, 1, 0, NULL, NULL, NULL};
