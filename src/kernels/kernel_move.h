/* Block copies for the data-movement kernels (transpose, pad, expand): element moves only, so
 * every result is bit for bit the simple loop's, for any element size (the 1-, 2-, 4- and
 * 8-byte sizes of berth's dtypes take typed or 16-byte vector paths, any other size a memcpy
 * per element). Runtime side: no allocation, no stdio.
 *
 *   berth_kernel_permute(out, in, esize, rank, dims, strides, base);  // a transposed view
 *   berth_kernel_fill(dst, &value, n, esize);                          // n copies of one element
 *   berth_kernel_expand(out, in, esize, rank, dims, strides, base);    // broadcast (stride 0) view
 */
#ifndef BERTH_KERNELS_KERNEL_MOVE_H
#define BERTH_KERNELS_KERNEL_MOVE_H

#include <stddef.h>
#include <stdint.h>

/* out[r * ldo + c] = in[c * ldi + r] for r < rows, c < cols (elements of esize bytes; out and in
 * do not overlap). Cache-sized tiles of 4 x 4 (4-byte) or 2 x 2 (8-byte) register transposes;
 * 1- and 2-byte elements in tiles of scalar moves; 4-byte elements into two rows or two columns
 * deinterleave or interleave pairs. */
void berth_kernel_transpose_2d(void *out, int64_t ldo, const void *in, int64_t ldi, int64_t rows, int64_t cols,
                               size_t esize);

/* dst[i] = *value for i < n (elements of esize bytes). */
void berth_kernel_fill(void *dst, const void *value, int64_t n, size_t esize);

/* The row-major copy of the strided view out[i] = in[base + sum_k i_k * strides[k]] (what
 * berth_kernel_gather writes), for views whose innermost axis is not contiguous in the input
 * but some other axis is: they run as 2-D transposes of that axis against the innermost one,
 * one per index of the other axes; any other view goes to berth_kernel_gather. */
void berth_kernel_permute(void *out, const void *in, size_t esize, int32_t rank, const int64_t *dims,
                          const int64_t *strides, int64_t base);

/* The same copy for views with broadcast axes (stride 0, ONNX Expand and Tile): the block of an
 * outer broadcast axis is written once from the input and then copied from the output. */
void berth_kernel_expand(void *out, const void *in, size_t esize, int32_t rank, const int64_t *dims,
                         const int64_t *strides, int64_t base);

#endif
