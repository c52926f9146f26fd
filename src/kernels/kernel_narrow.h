/* Narrow storage formats (float16, bfloat16, the float8 and float4 types, 4- and 2-bit
 * integers) held in a wider compute dtype, and the conversion that rounds a value to one
 * of them: the narrow_cast kernel and the ONNX importer's boundary conversions share it.
 *
 *   // three f32 values as float16 would store them, read back as f32
 *   berth_narrow_convert(BERTH_NARROW_F16, true, BERTH_NARROW_ROUND_UP, BERTH_DTYPE_F32, src, dst, 3);
 *
 * Runtime side: no allocation, no stdio. */
#ifndef BERTH_KERNELS_KERNEL_NARROW_H
#define BERTH_KERNELS_KERNEL_NARROW_H

#include "berth/types.h"

#include <stdbool.h>
#include <stdint.h>

/* The `format` attribute of narrow_cast. The numbers are part of the program file format:
 * append only. */
typedef enum berth_narrow_format {
  BERTH_NARROW_F16 = 0,         /* IEEE binary16: overflow gives inf */
  BERTH_NARROW_BF16 = 1,        /* bfloat16: overflow gives inf */
  BERTH_NARROW_F8E4M3FN = 2,    /* no inf; NaN is S.1111.111 */
  BERTH_NARROW_F8E4M3FNUZ = 3,  /* no inf, no -0; NaN is 0x80 */
  BERTH_NARROW_F8E5M2 = 4,      /* IEEE-like, with inf */
  BERTH_NARROW_F8E5M2FNUZ = 5,  /* no inf, no -0; NaN is 0x80 */
  BERTH_NARROW_F4E2M1 = 6,      /* no inf, no NaN (NaN gives -0) */
  BERTH_NARROW_F8E8M0 = 7,      /* unsigned powers of two 2^-127..2^127, NaN */
  BERTH_NARROW_I4 = 8,          /* integers: floats round half to even, then wrap */
  BERTH_NARROW_U4 = 9,
  BERTH_NARROW_I2 = 10,
  BERTH_NARROW_U2 = 11,
  BERTH_NARROW_FORMAT_COUNT
} berth_narrow_format_t;

/* The `round_mode` attribute: how a value rounds to float8e8m0 (ONNX Cast's round_mode);
 * every other format rounds to nearest, ties to even. */
typedef enum berth_narrow_round {
  BERTH_NARROW_ROUND_UP = 0,      /* to the next power of two in magnitude */
  BERTH_NARROW_ROUND_DOWN = 1,    /* to the previous one (truncation) */
  BERTH_NARROW_ROUND_NEAREST = 2, /* to the nearest, ties up */
  BERTH_NARROW_ROUND_COUNT
} berth_narrow_round_t;

/* The dtype a format is held in: f32 for the float formats, i8 for i4 and i2, u8 for u4
 * and u2. Every value of the format is exact in it. */
berth_dtype_t berth_narrow_dtype(berth_narrow_format_t format);

/* Converts n values of dtype `from` (any dtype; bool is 0 or 1) to `format` and back, into
 * dst (n values of berth_narrow_dtype(format)), exactly as storing each value in the
 * format and reading it back:
 *   float formats  round to nearest, ties to even, from the exact source value (no double
 *                  rounding, also from f64 and 64-bit integers); float16 and bfloat16
 *                  overflow to inf; the float8 types with saturate clamp to their largest
 *                  finite value, without it overflow to inf (float8e5m2) or NaN; NaN
 *                  stays NaN; float8e8m0 rounds by round_mode
 *   integer formats the integer value (floats rounded half to even, NaN 0, saturated to
 *                  int64) wraps modulo 2^bits, as ONNX's Cast to int4 does
 * src and dst must not overlap. */
void berth_narrow_convert(berth_narrow_format_t format, bool saturate, berth_narrow_round_t round_mode,
                          berth_dtype_t from, const void *src, void *dst, int64_t n);

#endif
