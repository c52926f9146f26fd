/* Tests of the index-family kernels (kernels/kernel_reduce.c prod and argmin,
 * kernel_cumsum.c, kernel_trilu.c, kernel_topk.c, kernel_scatter.c, kernel_gather_nd.c,
 * kernel_einsum.c, ...): small hand-computed cases, the edge cases the ONNX suite does not
 * reach (empty sets, wrapping integers, NaN, ties, out-of-range indices at run time), and
 * rejections. */
#include "test_kernel_util.h"

#include <float.h>
#include <limits.h>

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64
#define I32 BERTH_DTYPE_I32
#define I64 BERTH_DTYPE_I64
#define U8 BERTH_DTYPE_U8
#define U64 BERTH_DTYPE_U64
#define BOOL BERTH_DTYPE_BOOL

static void test_prod(void) {
  tcall_t c = tc_op(&berth_op_def_prod);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  TC_INTS(&c, "axes", 1);
  EXPECT(&c, ty(F32, 2, 2, 1), ((float[]){6, 120}));
  /* the product over an empty set is 1 */
  c = tc_op(&berth_op_def_prod);
  tc_arg(&c, ty(F32, 2, 2, 0), NULL);
  TC_INTS(&c, "axes", 1);
  tc_int(&c, "keepdims", 0);
  EXPECT(&c, ty(F32, 1, 2), ((float[]){1, 1}));
  c = tc_op(&berth_op_def_prod);
  tc_arg(&c, ty(I32, 2, 0, 3), NULL);
  TC_INTS(&c, "axes", 0);
  EXPECT(&c, ty(I32, 2, 1, 3), ((int32_t[]){1, 1, 1}));
  /* integers wrap (2^62 * 4 = 0 modulo 2^64) */
  c = tc_op(&berth_op_def_prod);
  tc_arg(&c, ty(I64, 1, 3), (int64_t[]){(int64_t)1 << 62, 4, 3});
  tc_int(&c, "keepdims", 0);
  EXPECT(&c, ty(I64, 0), ((int64_t[]){0}));
  c = tc_op(&berth_op_def_prod);
  tc_arg(&c, ty(U8, 1, 3), (uint8_t[]){16, 16, 3});
  EXPECT(&c, ty(U8, 1, 1), ((uint8_t[]){0}));
  c = tc_op(&berth_op_def_prod);
  tc_arg(&c, ty(BOOL, 1, 3), (uint8_t[]){1, 1, 0});
  EXPECT_REJECT(&c, "expected");
}

static void test_argmin(void) {
  tcall_t c = tc_op(&berth_op_def_argmin);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){3, 1, 1, 0, 5, 0});
  tc_int(&c, "axis", 1);
  EXPECT(&c, ty(I64, 2, 2, 1), ((int64_t[]){1, 0}));
  tc_int(&c, "select_last_index", 1);
  EXPECT(&c, ty(I64, 2, 2, 1), ((int64_t[]){2, 2}));
  /* NaN wins, the first one (numpy's argmin) */
  c = tc_op(&berth_op_def_argmin);
  tc_arg(&c, ty(F64, 1, 4), (double[]){1, NAN, -5, NAN});
  tc_int(&c, "keepdims", 0);
  EXPECT(&c, ty(I64, 0), ((int64_t[]){1}));
  /* along axis 0 with inner elements */
  c = tc_op(&berth_op_def_argmin);
  tc_arg(&c, ty(U64, 2, 3, 2), (uint64_t[]){5, UINT64_MAX, 2, 7, 2, 0});
  EXPECT(&c, ty(I64, 2, 1, 2), ((int64_t[]){1, 2}));
  c = tc_op(&berth_op_def_argmin);
  tc_arg(&c, ty(F32, 2, 2, 0), NULL);
  tc_int(&c, "axis", 1);
  EXPECT_REJECT(&c, "has size 0");
}

static void test_cumulative(void) {
  tcall_t c = tc_op(&berth_op_def_cumsum);
  tc_arg(&c, ty(I32, 2, 2, 3), (int32_t[]){1, 2, 3, 4, 5, 6});
  tc_int(&c, "axis", 1);
  EXPECT(&c, ty(I32, 2, 2, 3), ((int32_t[]){1, 3, 6, 4, 9, 15}));
  tc_int(&c, "exclusive", 1);
  tc_int(&c, "reverse", 1);
  EXPECT(&c, ty(I32, 2, 2, 3), ((int32_t[]){5, 3, 0, 11, 6, 0}));
  tc_int(&c, "axis", 0);
  EXPECT(&c, ty(I32, 2, 2, 3), ((int32_t[]){4, 5, 6, 0, 0, 0}));
  /* integers wrap */
  c = tc_op(&berth_op_def_cumsum);
  tc_arg(&c, ty(I32, 1, 2), (int32_t[]){INT32_MAX, 1});
  EXPECT(&c, ty(I32, 1, 2), ((int32_t[]){INT32_MAX, INT32_MIN}));
  c = tc_op(&berth_op_def_cumprod);
  tc_arg(&c, ty(F64, 1, 4), (double[]){2, 3, 4, 5});
  tc_int(&c, "exclusive", 1);
  EXPECT(&c, ty(F64, 1, 4), ((double[]){1, 2, 6, 24}));
  c = tc_op(&berth_op_def_cumprod);
  tc_arg(&c, ty(F64, 2, 0, 4), NULL);
  tc_int(&c, "axis", -1);
  EXPECT(&c, ty(F64, 2, 0, 4), NULL);
  tc_int(&c, "axis", 2);
  EXPECT_REJECT(&c, "axis");
  c = tc_op(&berth_op_def_cumsum);
  tc_arg(&c, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&c, "scalar");
}

static void test_trilu(void) {
  const float x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  tcall_t c = tc_op(&berth_op_def_trilu);
  tc_arg(&c, ty(F32, 2, 3, 4), x);
  EXPECT(&c, ty(F32, 2, 3, 4), ((float[]){1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));
  tc_int(&c, "upper", 0);
  EXPECT(&c, ty(F32, 2, 3, 4), ((float[]){1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}));
  tc_arg(&c, ty(I64, 0), (int64_t[]){-1});
  EXPECT(&c, ty(F32, 2, 3, 4), ((float[]){0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  /* k far off the matrix, either way, without overflow */
  c = tc_op(&berth_op_def_trilu);
  tc_arg(&c, ty(F32, 2, 3, 4), x);
  tc_arg(&c, ty(I64, 0), (int64_t[]){INT64_MAX});
  EXPECT(&c, ty(F32, 2, 3, 4), ((float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  tc_int(&c, "upper", 0);
  EXPECT(&c, ty(F32, 2, 3, 4), x);
  c = tc_op(&berth_op_def_trilu);
  tc_arg(&c, ty(F32, 2, 3, 4), x);
  tc_arg(&c, ty(I64, 1, 1), (int64_t[]){INT64_MIN});
  EXPECT(&c, ty(F32, 2, 3, 4), x);
  tc_int(&c, "upper", 0);
  EXPECT(&c, ty(F32, 2, 3, 4), ((float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  c = tc_op(&berth_op_def_trilu);
  tc_arg(&c, ty(F32, 1, 3), x);
  EXPECT_REJECT(&c, "rank >= 2");
  c = tc_op(&berth_op_def_trilu);
  tc_arg(&c, ty(F32, 2, 3, 4), x);
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){1, 2});
  EXPECT_REJECT(&c, "one element");
}

int main(void) {
  test_cumulative();
  test_trilu();
  test_prod();
  test_argmin();
  return test_finish("test_kernel_index");
}
