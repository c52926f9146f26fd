/* Shared helpers of the portable kernels: C types per dtype for dispatch, the infer-side
 * checks that produce berth's messages, broadcasting plans and strided copies.
 *
 *   // infer: validate, then compute the output type
 *   BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_add, in, n_in, diag));
 *   BERTH_TRY(berth_kernel_broadcast("add", in, 2, &out[0], diag));
 *   // run: the same plan, then one call of a row function per contiguous output row
 *   berth_bcast_t plan;
 *   berth_bcast_init(&plan, call->out[0].type, call->in, 2);
 *   berth_bcast_run2(&plan, row_fn, out, 4, a, 4, b, 4);
 *
 * Runtime side: no allocation, no stdio. Tensors are dense row-major and aligned to their
 * element size; bool is one byte, read as uint8_t (any nonzero byte is true). */
#ifndef BERTH_KERNELS_KERNEL_UTIL_H
#define BERTH_KERNELS_KERNEL_UTIL_H

#include "op_table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BERTH_TRY(expr)                  \
  do {                                   \
    berth_status_t berth_try_ = (expr);  \
    if (berth_try_ != BERTH_OK) return berth_try_; \
  } while (0)

/* ---- dtype lists for dispatch ------------------------------------------------------
 * X(E, s, T, U): dtype BERTH_DTYPE_E, short name s, C type T, and U, the unsigned type in
 * which the dtype's integer arithmetic wraps (signed overflow is undefined in C, and small
 * unsigned types promote to int, so +, -, * are done in U and converted back). For floats
 * U is T. */
#define BERTH_KERNEL_SINT_LIST(X)       \
  X(I8, i8, int8_t, uint32_t)           \
  X(I16, i16, int16_t, uint32_t)        \
  X(I32, i32, int32_t, uint32_t)        \
  X(I64, i64, int64_t, uint64_t)
#define BERTH_KERNEL_UINT_LIST(X)       \
  X(U8, u8, uint8_t, uint32_t)          \
  X(U16, u16, uint16_t, uint32_t)       \
  X(U32, u32, uint32_t, uint32_t)       \
  X(U64, u64, uint64_t, uint64_t)
#define BERTH_KERNEL_FLOAT_LIST(X)      \
  X(F32, f32, float, float)             \
  X(F64, f64, double, double)
#define BERTH_KERNEL_INT_LIST(X) BERTH_KERNEL_SINT_LIST(X) BERTH_KERNEL_UINT_LIST(X)
#define BERTH_KERNEL_NUM_LIST(X) BERTH_KERNEL_INT_LIST(X) BERTH_KERNEL_FLOAT_LIST(X)
#define BERTH_KERNEL_ALL_LIST(X) X(BOOL, bool, uint8_t, uint32_t) BERTH_KERNEL_NUM_LIST(X)

/* Bit masks of dtypes, for the checks below. */
#define BERTH_DTYPE_BIT(E) (1u << BERTH_DTYPE_##E)
#define BERTH_MASK_BOOL BERTH_DTYPE_BIT(BOOL)
#define BERTH_MASK_SINT \
  (BERTH_DTYPE_BIT(I8) | BERTH_DTYPE_BIT(I16) | BERTH_DTYPE_BIT(I32) | BERTH_DTYPE_BIT(I64))
#define BERTH_MASK_UINT \
  (BERTH_DTYPE_BIT(U8) | BERTH_DTYPE_BIT(U16) | BERTH_DTYPE_BIT(U32) | BERTH_DTYPE_BIT(U64))
#define BERTH_MASK_INT (BERTH_MASK_SINT | BERTH_MASK_UINT)
#define BERTH_MASK_FLOAT (BERTH_DTYPE_BIT(F32) | BERTH_DTYPE_BIT(F64))
#define BERTH_MASK_NUM (BERTH_MASK_INT | BERTH_MASK_FLOAT)
#define BERTH_MASK_ALL (BERTH_MASK_BOOL | BERTH_MASK_NUM)

/* ---- infer-side checks ---------------------------------------------------------------
 * Each returns BERTH_OK or fails with a message "<op>: what was wrong, what was expected". */

/* Operand count against def->min_in/max_in, and every input type against berth's caps. */
berth_status_t berth_kernel_check_inputs(const berth_op_def_t *def, const berth_type_t *in,
                                         int32_t n_in, berth_diag_t *diag);
/* dtype `dt` of operand `operand` must be in `mask` (a set of BERTH_DTYPE_BIT). */
berth_status_t berth_kernel_check_dtype(const char *op, int32_t operand, berth_dtype_t dt,
                                        uint32_t mask, berth_diag_t *diag);
/* in[i] must have the dtype of in[first]. */
berth_status_t berth_kernel_check_same_dtype(const char *op, const berth_type_t *in, int32_t first,
                                             int32_t i, berth_diag_t *diag);
/* The output type must be within berth's caps (dims, bytes). */
berth_status_t berth_kernel_check_output(const char *op, const berth_type_t *out, berth_diag_t *diag);
/* An INTS attribute must hold 0..BERTH_MAX_ATTR_INTS values; a DTYPE a valid dtype; an INT
 * flag 0 or 1. */
berth_status_t berth_kernel_check_ints(const char *op, const char *attr, const berth_attr_value_t *v,
                                       berth_diag_t *diag);
berth_status_t berth_kernel_get_dtype(const char *op, const char *attr, const berth_attr_value_t *v,
                                      berth_dtype_t *out, berth_diag_t *diag);
berth_status_t berth_kernel_get_flag(const char *op, const char *attr, const berth_attr_value_t *v,
                                     bool *out, berth_diag_t *diag);
/* Normalizes a possibly negative axis against `rank` (valid: -rank..rank-1). */
berth_status_t berth_kernel_axis(const char *op, const char *attr, int64_t axis, int32_t rank,
                                 int32_t *out, berth_diag_t *diag);
/* numpy broadcasting of the shapes of in[0..n): writes out->rank and out->dims (the
 * dtype is left to the caller). */
berth_status_t berth_kernel_broadcast(const char *op, const berth_type_t *in, int32_t n,
                                      berth_type_t *out, berth_diag_t *diag);
/* Writes the names of the dtypes in mask ("i8, u8, f32") into buf. */
void berth_kernel_dtype_names(uint32_t mask, char *buf, size_t cap);
/* Sets out to an all-zero type of the given dtype and rank. */
void berth_kernel_type_init(berth_type_t *out, berth_dtype_t dtype, int32_t rank);

/* ---- run-side helpers --------------------------------------------------------------- */

/* A counted loop `for (int64_t i = 0; i < n; i++) body`, split in two so that it vectorizes
 * at -O2 too: GCC's -O2 vectorizer (the "very cheap" cost model) only takes loops whose trip
 * count is a known multiple of the vector length, so the main part runs a multiple of 16
 * iterations and the scalar tail the rest. At -O3, and with clang, both parts are optimized
 * as usual. The body is the variadic argument (it may contain commas). */
#define BERTH_VLOOP(i, n, ...)                                          \
  do {                                                                  \
    const int64_t berth_vl_n_ = (n);                                    \
    int64_t i = 0;                                                      \
    for (; i < (berth_vl_n_ & ~(int64_t)15); i++) { __VA_ARGS__ }       \
    for (; i < berth_vl_n_; i++) { __VA_ARGS__ }                        \
  } while (0)

/* True if some dim is 0 (the tensor is empty). Kernels check this before computing
 * products of trailing dims, which a valid type does not bound when it is empty. */
static inline bool berth_kernel_is_empty(const berth_type_t *t) {
  for (int32_t k = 0; k < t->rank; k++)
    if (t->dims[k] == 0) return true;
  return false;
}

/* Dense row-major element strides of a type (all 0 for an empty type). */
void berth_kernel_strides(const berth_type_t *t, int64_t strides[BERTH_MAX_RANK]);

#define BERTH_BCAST_MAX_IN 3

/* An elementwise loop nest over a broadcast output, with size-1 dims dropped and adjacent
 * dims merged where every operand is contiguous across them (equal shapes become one flat
 * row; a scalar operand becomes stride 0). Input strides are in elements and the innermost
 * one is always 0 (broadcast) or 1. */
typedef struct berth_bcast {
  int32_t rank; /* >= 1 */
  int32_t n_in;
  int64_t numel;
  int64_t dims[BERTH_MAX_RANK];
  int64_t strides[BERTH_BCAST_MAX_IN][BERTH_MAX_RANK];
} berth_bcast_t;

/* out's shape must be the broadcast of the n_in (<= 3) input shapes. */
void berth_bcast_init(berth_bcast_t *p, const berth_type_t *out, const berth_tensor_ref_t *in,
                      int32_t n_in);

/* A row function computes n outputs; an operand's stride flag is 1 (advance) or 0 (the
 * same element for the whole row). */
typedef void (*berth_row1_fn)(void *out, const void *a, int64_t n);
typedef void (*berth_row2_fn)(void *out, const void *a, const void *b, int64_t n, int sa, int sb);
typedef void (*berth_row3_fn)(void *out, const void *a, const void *b, const void *c, int64_t n,
                              int sa, int sb, int sc);

/* Walks the plan calling fn once per row; sizes are element sizes in bytes. */
void berth_bcast_run2(const berth_bcast_t *p, berth_row2_fn fn, void *out, size_t out_size,
                      const void *a, size_t a_size, const void *b, size_t b_size);
void berth_bcast_run3(const berth_bcast_t *p, berth_row3_fn fn, void *out, size_t out_size,
                      const void *a, size_t a_size, const void *b, size_t b_size, const void *c,
                      size_t c_size);

/* A strided view's axes with those of extent 1 dropped and neighbours that are one run in the
 * input merged (d, s: the merged dims and strides); returns the merged rank, or -1 when the
 * view is empty (a dim of 0). */
int32_t berth_kernel_merge_axes(int32_t rank, const int64_t *dims, const int64_t *strides, int64_t *d, int64_t *s);

/* Copies a strided view into a dense row-major output of shape dims:
 *   out[i_0, ..., i_{r-1}] = in[base + sum_k i_k * strides[k]]   (strides in elements,
 * any sign, 0 for broadcast). Contiguous inner runs are copied with memcpy. */
void berth_kernel_gather(void *out, const void *in, size_t esize, int32_t rank, const int64_t *dims,
                         const int64_t *strides, int64_t base);

#endif
