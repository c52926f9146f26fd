/* berth element types and static tensor types.
 *
 *   berth_type_t t = {BERTH_DTYPE_F32, 2, {2, 3}};
 *   int64_t n = berth_type_numel(&t);            // 6
 *   size_t bytes = berth_type_bytes(&t);         // 24
 *
 * A scalar is a rank-0 tensor (one element). Shapes are static: every dim is >= 0. */
#ifndef BERTH_TYPES_H
#define BERTH_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BERTH_MAX_RANK 8
/* Caps on what a program (and so an untrusted file) may declare. */
#define BERTH_MAX_DIM ((int64_t)1 << 40)
#define BERTH_MAX_TENSOR_BYTES ((int64_t)1 << 40)

/* The order is part of the program file format: append only. */
#define BERTH_DTYPE_LIST(X) \
  X(BOOL, bool, 1)          \
  X(I8, i8, 1)              \
  X(U8, u8, 1)              \
  X(I16, i16, 2)            \
  X(U16, u16, 2)            \
  X(I32, i32, 4)            \
  X(U32, u32, 4)            \
  X(I64, i64, 8)            \
  X(U64, u64, 8)            \
  X(F32, f32, 4)            \
  X(F64, f64, 8)

typedef enum berth_dtype {
#define BERTH_X(E, n, s) BERTH_DTYPE_##E,
  BERTH_DTYPE_LIST(BERTH_X)
#undef BERTH_X
  BERTH_DTYPE_COUNT
} berth_dtype_t;

typedef struct berth_type {
  berth_dtype_t dtype;
  int32_t rank;
  int64_t dims[BERTH_MAX_RANK];
} berth_type_t;

/* Size in bytes of one element; 0 for an invalid dtype. */
size_t berth_dtype_size(berth_dtype_t dtype);
/* Short name ("f32", "i64", "bool"); "?" for an invalid dtype. */
const char *berth_dtype_name(berth_dtype_t dtype);
/* Parses a short name; returns false if unknown. */
bool berth_dtype_from_name(const char *name, size_t len, berth_dtype_t *out);
bool berth_dtype_is_float(berth_dtype_t dtype);
bool berth_dtype_is_signed_int(berth_dtype_t dtype);
bool berth_dtype_is_unsigned_int(berth_dtype_t dtype);
static inline bool berth_dtype_is_int(berth_dtype_t d) {
  return berth_dtype_is_signed_int(d) || berth_dtype_is_unsigned_int(d);
}

/* Number of elements. The type must be valid (berth_type_check). */
int64_t berth_type_numel(const berth_type_t *type);
/* Bytes of a dense row-major tensor of this type. */
size_t berth_type_bytes(const berth_type_t *type);
bool berth_type_equal(const berth_type_t *a, const berth_type_t *b);
/* True if dtype, rank and dims are within berth's caps and the byte size cannot overflow. */
bool berth_type_check(const berth_type_t *type);
/* Writes "f32[2,3]" into buf (always NUL-terminated). Returns buf. */
char *berth_type_format(const berth_type_t *type, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
