/* Elements of a tensor compared in their dtype: the Unique kernel (kernel_select.c) sorts
 * with it at run time and the ONNX importer folds Unique of a constant with it at compile
 * time, so both order (and group) the same elements the same way.
 *
 *   int c = berth_elem_cmp(BERTH_DTYPE_F32, x, 3, 7); // -1, 0 or 1: x[3] against x[7]
 *
 * Runtime side: no allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_ELEM_H
#define BERTH_KERNELS_KERNEL_ELEM_H

#include "berth/types.h"

#include <stdint.h>

/* Elements i and j of x (a dense tensor of dtype dt: an integer or bool type compared as
 * that integer type, f32 and f64 as numbers with NaN above every number and equal to NaN,
 * so -0.0 equals 0.0): -1 when x[i] sorts first, 0 when they are equal, 1 otherwise. */
int berth_elem_cmp(berth_dtype_t dt, const void *x, int64_t i, int64_t j);

#endif
