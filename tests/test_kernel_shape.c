/* Tests of the shape and data movement kernels, the reductions and matmul. */
#include "test_kernel_util.h"

#include <limits.h>

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64
#define I8 BERTH_DTYPE_I8
#define U8 BERTH_DTYPE_U8
#define I16 BERTH_DTYPE_I16
#define U16 BERTH_DTYPE_U16
#define I32 BERTH_DTYPE_I32
#define U32 BERTH_DTYPE_U32
#define I64 BERTH_DTYPE_I64
#define U64 BERTH_DTYPE_U64
#define BOOL BERTH_DTYPE_BOOL

static const float fnan = NAN;
static const int32_t iota12[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

/* ---- select ------------------------------------------------------------------------- */

static void test_select(void) {
  tcall_t c = tc_op(&berth_op_def_select);
  tc_int(&c, "dim", 1);
  tc_int(&c, "index", -1);
  tc_arg(&c, ty(I32, 2, 3, 4), iota12);
  EXPECT(&c, ty(I32, 1, 3), ((int32_t[]){3, 7, 11}));
  tcall_t c2 = tc_op(&berth_op_def_select);
  tc_int(&c2, "dim", -2);
  tc_int(&c2, "index", 2);
  tc_arg(&c2, ty(I32, 2, 3, 4), iota12);
  EXPECT(&c2, ty(I32, 1, 4), ((int32_t[]){8, 9, 10, 11}));
  tcall_t c3 = tc_op(&berth_op_def_select);
  tc_int(&c3, "index", 1);
  tc_arg(&c3, ty(F64, 1, 2), (double[]){1.5, -2.5});
  EXPECT(&c3, ty(F64, 0), ((double[]){-2.5}));
  tcall_t c4 = tc_op(&berth_op_def_select);
  tc_int(&c4, "dim", 1);
  tc_int(&c4, "index", 1);
  tc_arg(&c4, ty(BOOL, 3, 2, 2, 1), (uint8_t[]){0, 1, 1, 0});
  EXPECT(&c4, ty(BOOL, 2, 2, 1), ((uint8_t[]){1, 0}));
  tcall_t r1 = tc_op(&berth_op_def_select);
  tc_int(&r1, "index", 3);
  tc_arg(&r1, ty(F32, 1, 3), (float[]){1, 2, 3});
  EXPECT_REJECT(&r1, "index 3 is out of range for dim 0 of size 3 (expected -3..2)");
  tcall_t r2 = tc_op(&berth_op_def_select);
  tc_arg(&r2, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&r2, "rank-0");
  tcall_t r3 = tc_op(&berth_op_def_select);
  tc_int(&r3, "dim", 2);
  tc_arg(&r3, ty(F32, 2, 1, 1), (float[]){1});
  EXPECT_REJECT(&r3, "dim 2 is out of range for rank 2");
  tcall_t r4 = tc_op(&berth_op_def_select);
  tc_int(&r4, "index", -4);
  tc_arg(&r4, ty(F32, 1, 3), (float[]){1, 2, 3});
  EXPECT_REJECT(&r4, "index -4");
}

/* ---- slice --------------------------------------------------------------------------- */

static void slice1(int line, const int64_t *st, const int64_t *en, const int64_t *sp, int32_t n_out, const int32_t *want) {
  tcall_t c = tc_op(&berth_op_def_slice);
  tc_ints_arr(&c, "starts", st, 1);
  tc_ints_arr(&c, "ends", en, 1);
  if (sp) tc_ints_arr(&c, "steps", sp, 1);
  tc_arg(&c, ty(I32, 1, 10), iota12);
  tc_expect(line, &c, ty(I32, 1, n_out), want, 0);
}
#define SLICE1(st, en, sp, n, ...) \
  slice1(__LINE__, (int64_t[]){st}, (int64_t[]){en}, sp, n, (int32_t[]){__VA_ARGS__})

static void test_slice(void) {
  SLICE1(2, 8, ((int64_t[]){3}), 2, 2, 5);
  SLICE1(-1, INT64_MIN, ((int64_t[]){-1}), 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  SLICE1(1, INT64_MAX, NULL, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  SLICE1(-3, -1, NULL, 2, 7, 8);
  SLICE1(8, 1, ((int64_t[]){-2}), 4, 8, 6, 4, 2);
  SLICE1(100, -100, ((int64_t[]){-3}), 4, 9, 6, 3, 0);
  SLICE1(-1, INT64_MIN, ((int64_t[]){INT64_MIN}), 1, 9);
  SLICE1(0, 10, ((int64_t[]){INT64_MAX}), 1, 0);
  SLICE1(-100, 3, NULL, 3, 0, 1, 2);
  /* empty results */
  tcall_t e = tc_op(&berth_op_def_slice);
  TC_INTS(&e, "starts", 20);
  TC_INTS(&e, "ends", 30);
  tc_arg(&e, ty(I32, 1, 10), iota12);
  EXPECT(&e, ty(I32, 1, 0), NULL);
  tcall_t e2 = tc_op(&berth_op_def_slice);
  TC_INTS(&e2, "starts", 5);
  TC_INTS(&e2, "ends", 2);
  tc_arg(&e2, ty(I32, 1, 10), iota12);
  EXPECT(&e2, ty(I32, 1, 0), NULL);
  tcall_t e3 = tc_op(&berth_op_def_slice); /* slicing an empty dim backwards */
  TC_INTS(&e3, "starts", -1);
  TC_INTS(&e3, "ends", INT64_MIN);
  TC_INTS(&e3, "steps", -1);
  tc_arg(&e3, ty(F32, 2, 0, 2), NULL);
  EXPECT(&e3, ty(F32, 2, 0, 2), NULL);
  /* 2-D: a negative axis */
  tcall_t c = tc_op(&berth_op_def_slice);
  TC_INTS(&c, "axes", -1);
  TC_INTS(&c, "starts", 1);
  TC_INTS(&c, "ends", 3);
  tc_arg(&c, ty(I32, 2, 3, 4), iota12);
  EXPECT(&c, ty(I32, 2, 3, 2), ((int32_t[]){1, 2, 5, 6, 9, 10}));
  /* no axes: axes 0..n-1, with steps */
  tcall_t c2 = tc_op(&berth_op_def_slice);
  TC_INTS(&c2, "starts", 1, 0);
  TC_INTS(&c2, "ends", 3, 4);
  TC_INTS(&c2, "steps", 1, 2);
  tc_arg(&c2, ty(I32, 2, 3, 4), iota12);
  EXPECT(&c2, ty(I32, 2, 2, 2), ((int32_t[]){4, 6, 8, 10}));
  /* axes out of order, both reversed */
  tcall_t c3 = tc_op(&berth_op_def_slice);
  TC_INTS(&c3, "axes", 1, 0);
  TC_INTS(&c3, "starts", -1, -1);
  TC_INTS(&c3, "ends", INT64_MIN, INT64_MIN);
  TC_INTS(&c3, "steps", -3, -2);
  tc_arg(&c3, ty(I32, 2, 3, 4), iota12);
  EXPECT(&c3, ty(I32, 2, 2, 2), ((int32_t[]){11, 8, 3, 0}));
  /* no starts: a copy; rank 0 too */
  tcall_t c4 = tc_op(&berth_op_def_slice);
  tc_arg(&c4, ty(F64, 0), (double[]){4});
  EXPECT(&c4, ty(F64, 0), ((double[]){4}));
  /* rejections */
  tcall_t r1 = tc_op(&berth_op_def_slice);
  TC_INTS(&r1, "starts", 0);
  TC_INTS(&r1, "ends", 1);
  TC_INTS(&r1, "steps", 0);
  tc_arg(&r1, ty(I32, 1, 10), iota12);
  EXPECT_REJECT(&r1, "steps[0] is 0, expected a nonzero step");
  tcall_t r2 = tc_op(&berth_op_def_slice);
  TC_INTS(&r2, "starts", 0);
  tc_arg(&r2, ty(I32, 1, 10), iota12);
  EXPECT_REJECT(&r2, "starts has 1 values and ends 0, expected the same count");
  tcall_t r3 = tc_op(&berth_op_def_slice);
  TC_INTS(&r3, "axes", 0, -2);
  TC_INTS(&r3, "starts", 0, 0);
  TC_INTS(&r3, "ends", 1, 1);
  tc_arg(&r3, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&r3, "names axis -2 twice");
  tcall_t r4 = tc_op(&berth_op_def_slice);
  TC_INTS(&r4, "axes", 2);
  TC_INTS(&r4, "starts", 0);
  TC_INTS(&r4, "ends", 1);
  tc_arg(&r4, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&r4, "axes entry 2 is out of range for rank 2");
  tcall_t r5 = tc_op(&berth_op_def_slice);
  TC_INTS(&r5, "starts", 0, 0);
  TC_INTS(&r5, "ends", 1, 1);
  tc_arg(&r5, ty(I32, 1, 10), iota12);
  EXPECT_REJECT(&r5, "starts has 2 values but the operand has rank 1");
  tcall_t r6 = tc_op(&berth_op_def_slice);
  TC_INTS(&r6, "axes", 0);
  TC_INTS(&r6, "starts", 0);
  TC_INTS(&r6, "ends", 1);
  TC_INTS(&r6, "steps", 1, 1);
  tc_arg(&r6, ty(I32, 1, 10), iota12);
  EXPECT_REJECT(&r6, "steps has 2 values and starts 1");
}

/* ---- squeeze, unsqueeze, reshape --------------------------------------------------------- */

static void test_squeeze_unsqueeze_reshape(void) {
  const float x3[3] = {1, 2, 3};
  tcall_t c = tc_op(&berth_op_def_squeeze);
  tc_arg(&c, ty(F32, 3, 1, 3, 1), x3);
  EXPECT(&c, ty(F32, 1, 3), x3);
  tcall_t c2 = tc_op(&berth_op_def_squeeze);
  TC_INTS(&c2, "axes", -1);
  tc_arg(&c2, ty(F32, 3, 1, 3, 1), x3);
  EXPECT(&c2, ty(F32, 2, 1, 3), x3);
  tcall_t c3 = tc_op(&berth_op_def_squeeze);
  tc_arg(&c3, ty(F32, 0), x3);
  EXPECT(&c3, ty(F32, 0), x3);
  tcall_t c3b = tc_op(&berth_op_def_squeeze);
  tc_arg(&c3b, ty(F32, 2, 1, 1), x3);
  EXPECT(&c3b, ty(F32, 0), x3);
  tcall_t r1 = tc_op(&berth_op_def_squeeze);
  TC_INTS(&r1, "axes", 1);
  tc_arg(&r1, ty(F32, 3, 1, 3, 1), x3);
  EXPECT_REJECT(&r1, "axis 1 has size 3, expected 1");
  tcall_t r2 = tc_op(&berth_op_def_squeeze);
  TC_INTS(&r2, "axes", 0, -3);
  tc_arg(&r2, ty(F32, 3, 1, 3, 1), x3);
  EXPECT_REJECT(&r2, "twice");

  tcall_t u = tc_op(&berth_op_def_unsqueeze);
  TC_INTS(&u, "axes", 0, -1);
  tc_arg(&u, ty(F32, 1, 3), x3);
  EXPECT(&u, ty(F32, 3, 1, 3, 1), x3);
  tcall_t u2 = tc_op(&berth_op_def_unsqueeze);
  TC_INTS(&u2, "axes", 0);
  tc_arg(&u2, ty(U16, 0), (uint16_t[]){7});
  EXPECT(&u2, ty(U16, 1, 1), ((uint16_t[]){7}));
  tcall_t u3 = tc_op(&berth_op_def_unsqueeze);
  TC_INTS(&u3, "axes", 1);
  tc_arg(&u3, ty(F32, 2, 3, 1), x3);
  EXPECT(&u3, ty(F32, 3, 3, 1, 1), x3);
  tcall_t ur1 = tc_op(&berth_op_def_unsqueeze);
  TC_INTS(&ur1, "axes", 3);
  tc_arg(&ur1, ty(F32, 1, 3), x3);
  EXPECT_REJECT(&ur1, "axes entry 3 is out of range for rank 2");
  tcall_t ur2 = tc_op(&berth_op_def_unsqueeze);
  TC_INTS(&ur2, "axes", 0, -3);
  tc_arg(&ur2, ty(F32, 1, 3), x3);
  EXPECT_REJECT(&ur2, "twice");
  tcall_t ur3 = tc_op(&berth_op_def_unsqueeze);
  TC_INTS(&ur3, "axes", 0, 1);
  tc_arg(&ur3, ty(F32, 7, 1, 1, 1, 1, 1, 1, 3), x3);
  EXPECT_REJECT(&ur3, "result rank 9 exceeds the maximum 8");
  tcall_t ur4 = tc_op(&berth_op_def_unsqueeze);
  tc_arg(&ur4, ty(F32, 1, 3), x3);
  EXPECT_REJECT(&ur4, "axes is empty");

  tcall_t s = tc_op(&berth_op_def_reshape);
  TC_INTS(&s, "shape", 4, -1);
  tc_arg(&s, ty(I32, 2, 3, 4), iota12);
  EXPECT(&s, ty(I32, 2, 4, 3), iota12);
  tcall_t s2 = tc_op(&berth_op_def_reshape);
  TC_INTS(&s2, "shape", 0, 2, 2);
  tc_arg(&s2, ty(I32, 2, 3, 4), iota12);
  EXPECT(&s2, ty(I32, 3, 3, 2, 2), iota12);
  tcall_t s3 = tc_op(&berth_op_def_reshape);
  tc_arg(&s3, ty(F32, 3, 1, 1, 1), x3);
  EXPECT(&s3, ty(F32, 0), x3);
  tcall_t s4 = tc_op(&berth_op_def_reshape);
  TC_INTS(&s4, "shape", -1);
  tc_arg(&s4, ty(F32, 0), x3);
  EXPECT(&s4, ty(F32, 1, 1), x3);
  tcall_t s5 = tc_op(&berth_op_def_reshape);
  TC_INTS(&s5, "shape", 0, -1);
  tc_arg(&s5, ty(F32, 3, 2, 0, 5), NULL);
  EXPECT(&s5, ty(F32, 2, 2, 0), NULL);
  tcall_t s5b = tc_op(&berth_op_def_reshape); /* -1 next to a 0 dim is ambiguous */
  TC_INTS(&s5b, "shape", 0, 0, -1);
  tc_arg(&s5b, ty(F32, 3, 2, 0, 5), NULL);
  EXPECT_REJECT(&s5b, "cannot infer the -1");
  tcall_t s6 = tc_op(&berth_op_def_reshape);
  TC_INTS(&s6, "shape", 5, 0);
  tc_arg(&s6, ty(F32, 3, 2, 0, 5), NULL);
  EXPECT(&s6, ty(F32, 2, 5, 0), NULL);
  tcall_t sr1 = tc_op(&berth_op_def_reshape);
  TC_INTS(&sr1, "shape", -1, -1);
  tc_arg(&sr1, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&sr1, "expected at most one");
  tcall_t sr2 = tc_op(&berth_op_def_reshape);
  TC_INTS(&sr2, "shape", 5, 2);
  tc_arg(&sr2, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&sr2, "i32[3,4] has 12 elements but shape i32[5,2] has 10");
  tcall_t sr3 = tc_op(&berth_op_def_reshape);
  TC_INTS(&sr3, "shape", -2, -6);
  tc_arg(&sr3, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&sr3, "shape[0] is -2");
  tcall_t sr4 = tc_op(&berth_op_def_reshape);
  TC_INTS(&sr4, "shape", 5, -1);
  tc_arg(&sr4, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&sr4, "cannot infer the -1");
  tcall_t sr5 = tc_op(&berth_op_def_reshape);
  TC_INTS(&sr5, "shape", 3, 4, 0);
  tc_arg(&sr5, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&sr5, "shape[2] is 0 (copy the input dim) but the input has rank 2");
  tcall_t sr6 = tc_op(&berth_op_def_reshape);
  TC_INTS(&sr6, "shape", INT64_MAX, INT64_MAX, 0);
  tc_arg(&sr6, ty(I32, 3, 3, 4, 0), NULL);
  EXPECT_REJECT(&sr6, "overflows");
}

/* ---- transpose ------------------------------------------------------------------------ */

static void test_transpose(void) {
  tcall_t c = tc_op(&berth_op_def_transpose);
  tc_arg(&c, ty(I32, 2, 3, 4), iota12);
  EXPECT(&c, ty(I32, 2, 4, 3), ((int32_t[]){0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  tcall_t c2 = tc_op(&berth_op_def_transpose);
  TC_INTS(&c2, "perm", 1, 0, 2);
  tc_arg(&c2, ty(I32, 3, 2, 3, 2), iota12);
  EXPECT(&c2, ty(I32, 3, 3, 2, 2), ((int32_t[]){0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));
  tcall_t c3 = tc_op(&berth_op_def_transpose);
  TC_INTS(&c3, "perm", -1, 0, 1);
  tc_arg(&c3, ty(I32, 3, 2, 3, 2), iota12);
  EXPECT(&c3, ty(I32, 3, 2, 2, 3), ((int32_t[]){0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
  tcall_t c4 = tc_op(&berth_op_def_transpose);
  tc_arg(&c4, ty(U8, 0), (uint8_t[]){9});
  EXPECT(&c4, ty(U8, 0), ((uint8_t[]){9}));
  /* big enough for the tiled 2-D path, with ragged edges; and a 3-D case that collapses to
   * it; checked against index arithmetic */
  enum { R = 37, C = 70 };
  static int64_t big[R * C], want[R * C];
  for (int i = 0; i < R * C; i++) big[i] = i * 3 - 1000;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) want[j * R + i] = big[i * C + j];
  tcall_t t = tc_op(&berth_op_def_transpose);
  tc_arg(&t, ty(I64, 2, R, C), big);
  EXPECT(&t, ty(I64, 2, C, R), want);
  tcall_t t2 = tc_op(&berth_op_def_transpose);
  TC_INTS(&t2, "perm", 1, 2, 0);
  tc_arg(&t2, ty(I64, 3, R, 7, 10), big);
  EXPECT(&t2, ty(I64, 3, 7, 10, R), want);
  static uint16_t b16[R * C], w16[R * C];
  for (int i = 0; i < R * C; i++) b16[i] = (uint16_t)(i * 7);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) w16[j * R + i] = b16[i * C + j];
  tcall_t t3 = tc_op(&berth_op_def_transpose);
  tc_arg(&t3, ty(U16, 2, R, C), b16);
  EXPECT(&t3, ty(U16, 2, C, R), w16);
  tcall_t t4 = tc_op(&berth_op_def_transpose);
  tc_arg(&t4, ty(F32, 3, 2, 0, 3), NULL);
  EXPECT(&t4, ty(F32, 3, 3, 0, 2), NULL);
  tcall_t r1 = tc_op(&berth_op_def_transpose);
  TC_INTS(&r1, "perm", 0, 0);
  tc_arg(&r1, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&r1, "perm names axis 0 twice");
  tcall_t r2 = tc_op(&berth_op_def_transpose);
  TC_INTS(&r2, "perm", 1, 0, 2);
  tc_arg(&r2, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&r2, "perm has 3 entries, expected 2");
  tcall_t r3 = tc_op(&berth_op_def_transpose);
  TC_INTS(&r3, "perm", 1, 2);
  tc_arg(&r3, ty(I32, 2, 3, 4), iota12);
  EXPECT_REJECT(&r3, "perm entry 2 is out of range");
}

/* ---- concat and expand ------------------------------------------------------------------ */

static void test_concat_expand(void) {
  tcall_t c = tc_op(&berth_op_def_concat);
  tc_int(&c, "axis", 1);
  tc_arg(&c, ty(F32, 2, 2, 1), (float[]){1, 2});
  tc_arg(&c, ty(F32, 2, 2, 2), (float[]){3, 4, 5, 6});
  EXPECT(&c, ty(F32, 2, 2, 3), ((float[]){1, 3, 4, 2, 5, 6}));
  tcall_t c2 = tc_op(&berth_op_def_concat);
  tc_int(&c2, "axis", -2);
  tc_arg(&c2, ty(I8, 2, 1, 2), (int8_t[]){1, 2});
  tc_arg(&c2, ty(I8, 2, 0, 2), NULL);
  tc_arg(&c2, ty(I8, 2, 2, 2), (int8_t[]){3, 4, 5, 6});
  EXPECT(&c2, ty(I8, 2, 3, 2), ((int8_t[]){1, 2, 3, 4, 5, 6}));
  tcall_t c3 = tc_op(&berth_op_def_concat);
  tc_arg(&c3, ty(BOOL, 1, 2), (uint8_t[]){1, 0});
  EXPECT(&c3, ty(BOOL, 1, 2), ((uint8_t[]){1, 0}));
  /* many operands */
  static int32_t vals[64];
  tcall_t c4 = tc_op(&berth_op_def_concat);
  for (int i = 0; i < 64; i++) {
    vals[i] = i * i;
    tc_arg(&c4, ty(I32, 1, 1), &vals[i]);
  }
  EXPECT(&c4, ty(I32, 1, 64), vals);
  tcall_t c5 = tc_op(&berth_op_def_concat);
  tc_int(&c5, "axis", 1);
  tc_arg(&c5, ty(F32, 3, 0, 1, 2), NULL);
  tc_arg(&c5, ty(F32, 3, 0, 3, 2), NULL);
  EXPECT(&c5, ty(F32, 3, 0, 4, 2), NULL);
  tcall_t r1 = tc_op(&berth_op_def_concat);
  tc_arg(&r1, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&r1, "rank-0");
  tcall_t r2 = tc_op(&berth_op_def_concat);
  tc_arg(&r2, ty(F32, 1, 1), (float[]){1});
  tc_arg(&r2, ty(F64, 1, 1), (double[]){1});
  EXPECT_REJECT(&r2, "operand 1 has dtype f64, expected f32 like operand 0");
  tcall_t r3 = tc_op(&berth_op_def_concat);
  tc_arg(&r3, ty(F32, 2, 1, 2), (float[]){1, 2});
  tc_arg(&r3, ty(F32, 2, 1, 3), (float[]){1, 2, 3});
  EXPECT_REJECT(&r3, "differs from operand 0 f32[1,2] in dim 1, expected equal dims except axis 0");
  tcall_t r4 = tc_op(&berth_op_def_concat);
  tc_arg(&r4, ty(F32, 2, 1, 2), (float[]){1, 2});
  tc_arg(&r4, ty(F32, 1, 2), (float[]){1, 2});
  EXPECT_REJECT(&r4, "has rank 1, expected 2");
  tcall_t r5 = tc_op(&berth_op_def_concat);
  tc_int(&r5, "axis", 2);
  tc_arg(&r5, ty(F32, 2, 1, 2), (float[]){1, 2});
  EXPECT_REJECT(&r5, "axis 2 is out of range for rank 2");

  tcall_t e = tc_op(&berth_op_def_expand);
  TC_INTS(&e, "shape", 2, 1, 4);
  tc_arg(&e, ty(I32, 2, 3, 1), (int32_t[]){1, 2, 3});
  EXPECT(&e, ty(I32, 3, 2, 3, 4),
         ((int32_t[]){1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
  tcall_t e2 = tc_op(&berth_op_def_expand);
  TC_INTS(&e2, "shape", 1);
  tc_arg(&e2, ty(F32, 1, 3), (float[]){1, 2, 3});
  EXPECT(&e2, ty(F32, 1, 3), ((float[]){1, 2, 3}));
  tcall_t e3 = tc_op(&berth_op_def_expand);
  TC_INTS(&e3, "shape", 2, 2);
  tc_arg(&e3, ty(F64, 0), (double[]){7});
  EXPECT(&e3, ty(F64, 2, 2, 2), ((double[]){7, 7, 7, 7}));
  tcall_t e4 = tc_op(&berth_op_def_expand);
  TC_INTS(&e4, "shape", 2, 1);
  tc_arg(&e4, ty(U8, 1, 3), (uint8_t[]){1, 2, 3});
  EXPECT(&e4, ty(U8, 2, 2, 3), ((uint8_t[]){1, 2, 3, 1, 2, 3}));
  tcall_t e5 = tc_op(&berth_op_def_expand);
  TC_INTS(&e5, "shape", 0, 1);
  tc_arg(&e5, ty(U8, 1, 3), (uint8_t[]){1, 2, 3});
  EXPECT(&e5, ty(U8, 2, 0, 3), NULL);
  tcall_t er1 = tc_op(&berth_op_def_expand);
  TC_INTS(&er1, "shape", 2);
  tc_arg(&er1, ty(F32, 1, 3), (float[]){1, 2, 3});
  EXPECT_REJECT(&er1, "does not broadcast with shape[0] = 2");
  tcall_t er2 = tc_op(&berth_op_def_expand);
  TC_INTS(&er2, "shape", -1);
  tc_arg(&er2, ty(F32, 1, 3), (float[]){1, 2, 3});
  EXPECT_REJECT(&er2, "shape[0] is -1");
  tcall_t er3 = tc_op(&berth_op_def_expand);
  TC_INTS(&er3, "shape", 1 << 30, 1 << 30);
  tc_arg(&er3, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&er3, "exceeds berth's limits");
}

/* ---- reductions ------------------------------------------------------------------------ */

static void red(int line, const berth_op_def_t *def, berth_type_t x, const void *data, const int64_t *axes, int n_axes,
                int keepdims, berth_type_t want, const void *want_data) {
  tcall_t c = tc_op(def);
  tc_ints_arr(&c, "axes", axes, n_axes);
  tc_int(&c, "keepdims", keepdims);
  tc_arg(&c, x, data);
  tc_expect(line, &c, want, want_data, 1e-6);
}
#define NOAXES NULL, 0
#define AXES(...) (int64_t[]){__VA_ARGS__}, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define RED(def, x, data, axes, keep, want, wdata) red(__LINE__, &berth_op_def_##def, x, data, axes, keep, want, wdata)

static void test_reduce(void) {
  const float x[6] = {1, 2, 3, 4, 5, 6};
  RED(sum, ty(F32, 2, 2, 3), x, AXES(1), 1, ty(F32, 2, 2, 1), ((float[]){6, 15}));
  RED(sum, ty(F32, 2, 2, 3), x, AXES(1), 0, ty(F32, 1, 2), ((float[]){6, 15}));
  RED(sum, ty(F32, 2, 2, 3), x, NOAXES, 1, ty(F32, 2, 1, 1), ((float[]){21}));
  RED(sum, ty(F32, 2, 2, 3), x, NOAXES, 0, ty(F32, 0), ((float[]){21}));
  RED(sum, ty(F32, 2, 2, 3), x, AXES(0), 1, ty(F32, 2, 1, 3), ((float[]){5, 7, 9}));
  RED(sum, ty(F32, 2, 2, 3), x, AXES(-2), 0, ty(F32, 1, 3), ((float[]){5, 7, 9}));
  RED(sum, ty(F32, 2, 2, 3), x, AXES(-1, 0), 0, ty(F32, 0), ((float[]){21}));
  RED(sum, ty(F32, 0), x, NOAXES, 1, ty(F32, 0), ((float[]){1}));
  RED(mean, ty(F32, 2, 2, 3), x, AXES(1), 0, ty(F32, 1, 2), ((float[]){2, 5}));
  RED(mean, ty(F64, 1, 2), ((double[]){1, 2}), NOAXES, 0, ty(F64, 0), ((double[]){1.5}));
  RED(max, ty(F32, 2, 2, 3), x, AXES(0), 0, ty(F32, 1, 3), ((float[]){4, 5, 6}));
  RED(min, ty(F32, 2, 2, 3), x, AXES(1), 0, ty(F32, 1, 2), ((float[]){1, 4}));
  /* NaN propagates through max and min, along the row and across rows */
  const float xn[6] = {1, fnan, 3, 4, 5, 6};
  RED(max, ty(F32, 2, 2, 3), xn, AXES(1), 0, ty(F32, 1, 2), ((float[]){NAN, 6}));
  RED(min, ty(F32, 2, 2, 3), xn, AXES(0), 0, ty(F32, 1, 3), ((float[]){1, NAN, 3}));
  RED(max, ty(F32, 1, 3), ((float[]){fnan, -INFINITY, 2}), NOAXES, 0, ty(F32, 0), ((float[]){NAN}));
  RED(max, ty(F32, 1, 2), ((float[]){-INFINITY, -INFINITY}), NOAXES, 0, ty(F32, 0), ((float[]){-INFINITY}));
  /* integers: sums wrap, means use a wide sum and truncate toward zero */
  RED(sum, ty(I8, 1, 2), ((int8_t[]){100, 100}), NOAXES, 0, ty(I8, 0), ((int8_t[]){-56}));
  RED(mean, ty(I8, 1, 2), ((int8_t[]){100, 100}), NOAXES, 0, ty(I8, 0), ((int8_t[]){100}));
  RED(mean, ty(I32, 2, 2, 2), ((int32_t[]){1, 2, -1, -2}), AXES(1), 1, ty(I32, 2, 2, 1), ((int32_t[]){1, -1}));
  RED(mean, ty(U8, 2, 2, 2), ((uint8_t[]){255, 254, 1, 2}), AXES(0), 0, ty(U8, 1, 2), ((uint8_t[]){128, 128}));
  RED(mean, ty(I64, 2, 2, 3), ((int64_t[]){1, 2, 4, -1, -2, -4}), NOAXES, 0, ty(I64, 0), ((int64_t[]){0}));
  RED(mean, ty(U64, 1, 2), ((uint64_t[]){UINT64_MAX - 1, 2}), NOAXES, 0, ty(U64, 0), ((uint64_t[]){0}));
  RED(max, ty(I16, 1, 3), ((int16_t[]){-32768, -5, -32768}), NOAXES, 0, ty(I16, 0), ((int16_t[]){-5}));
  RED(min, ty(U32, 1, 3), ((uint32_t[]){7, UINT32_MAX, 3}), NOAXES, 0, ty(U32, 0), ((uint32_t[]){3}));
  RED(max, ty(I64, 1, 1), ((int64_t[]){INT64_MIN}), NOAXES, 0, ty(I64, 0), ((int64_t[]){INT64_MIN}));
  RED(min, ty(U64, 1, 2), ((uint64_t[]){UINT64_MAX, UINT64_MAX}), NOAXES, 0, ty(U64, 0), ((uint64_t[]){UINT64_MAX}));
  /* empty reductions: sum 0, float mean NaN, integer mean 0; no output at all */
  RED(sum, ty(F32, 2, 2, 0), NULL, AXES(1), 0, ty(F32, 1, 2), ((float[]){0, 0}));
  RED(mean, ty(F32, 2, 2, 0), NULL, AXES(1), 1, ty(F32, 2, 2, 1), ((float[]){NAN, NAN}));
  RED(mean, ty(I32, 2, 2, 0), NULL, AXES(1), 0, ty(I32, 1, 2), ((int32_t[]){0, 0}));
  RED(max, ty(F32, 2, 0, 3), NULL, AXES(1), 0, ty(F32, 1, 0), NULL);
  RED(mean, ty(I16, 2, 0, 3), NULL, AXES(0), 0, ty(I16, 1, 3), ((int16_t[]){0, 0, 0}));
  /* a long row (the unrolled fold), a long kept row, and exact float sums */
  static float lr[203];
  static int32_t li[203];
  for (int i = 0; i < 203; i++) lr[i] = (float)(i + 1), li[i] = i % 2 ? -i : 3 * i;
  RED(sum, ty(F32, 1, 203), lr, NOAXES, 0, ty(F32, 0), ((float[]){20706}));
  RED(max, ty(F32, 1, 203), lr, NOAXES, 0, ty(F32, 0), ((float[]){203}));
  RED(min, ty(F32, 1, 203), lr, NOAXES, 0, ty(F32, 0), ((float[]){1}));
  int32_t lsum = 0, lmax = INT32_MIN;
  for (int i = 0; i < 203; i++) lsum += li[i], lmax = li[i] > lmax ? li[i] : lmax;
  RED(sum, ty(I32, 1, 203), li, NOAXES, 0, ty(I32, 0), (&lsum));
  RED(max, ty(I32, 1, 203), li, NOAXES, 0, ty(I32, 0), (&lmax));
  int32_t lmean = lsum / 203;
  RED(mean, ty(I32, 1, 203), li, NOAXES, 0, ty(I32, 0), (&lmean));
  lr[100] = fnan;
  RED(max, ty(F32, 1, 203), lr, NOAXES, 0, ty(F32, 0), ((float[]){NAN}));
  RED(min, ty(F32, 1, 203), lr, NOAXES, 0, ty(F32, 0), ((float[]){NAN}));
  lr[100] = 101;
}

/* Reductions over every subset of axes of a [2,3,4,5] tensor against a naive loop. */
static void test_reduce_general(void) {
  enum { D0 = 2, D1 = 3, D2 = 4, D3 = 5, N = D0 * D1 * D2 * D3 };
  const int dims[4] = {D0, D1, D2, D3};
  static int32_t xi[N];
  static double xd[N];
  for (int i = 0; i < N; i++) xi[i] = (i * 37) % 101 - 50, xd[i] = xi[i] * 0.25;
  for (int mask = 1; mask < 16; mask++) {
    int64_t axes[4];
    int na = 0;
    for (int k = 0; k < 4; k++)
      if (mask & (1 << k)) axes[na++] = k - (k % 2) * 4; /* mix positive and negative */
    int odims[4], onumel = 1;
    for (int k = 0; k < 4; k++) odims[k] = (mask & (1 << k)) ? 1 : dims[k], onumel *= odims[k];
    int32_t wsum[N], wmax[N], wmean[N];
    double dsum[N], dmin[N], dmean[N];
    int cnt = N / onumel;
    for (int o = 0; o < onumel; o++) wsum[o] = 0, wmax[o] = INT32_MIN, dsum[o] = 0, dmin[o] = INFINITY;
    for (int i0 = 0; i0 < D0; i0++)
      for (int i1 = 0; i1 < D1; i1++)
        for (int i2 = 0; i2 < D2; i2++)
          for (int i3 = 0; i3 < D3; i3++) {
            int idx[4] = {i0, i1, i2, i3}, o = 0;
            for (int k = 0; k < 4; k++) o = o * odims[k] + (odims[k] == 1 ? 0 : idx[k]);
            int i = ((i0 * D1 + i1) * D2 + i2) * D3 + i3;
            wsum[o] += xi[i];
            wmax[o] = xi[i] > wmax[o] ? xi[i] : wmax[o];
            dsum[o] += xd[i];
            dmin[o] = xd[i] < dmin[o] ? xd[i] : dmin[o];
          }
    for (int o = 0; o < onumel; o++) wmean[o] = wsum[o] / cnt, dmean[o] = dsum[o] / cnt;
    berth_type_t wt = ty(I32, 4, odims[0], odims[1], odims[2], odims[3]);
    berth_type_t xt = ty(I32, 4, D0, D1, D2, D3);
    red(__LINE__, &berth_op_def_sum, xt, xi, axes, na, 1, wt, wsum);
    red(__LINE__, &berth_op_def_max, xt, xi, axes, na, 1, wt, wmax);
    red(__LINE__, &berth_op_def_mean, xt, xi, axes, na, 1, wt, wmean);
    wt.dtype = xt.dtype = F64;
    red(__LINE__, &berth_op_def_sum, xt, xd, axes, na, 1, wt, dsum);
    red(__LINE__, &berth_op_def_min, xt, xd, axes, na, 1, wt, dmin);
    red(__LINE__, &berth_op_def_mean, xt, xd, axes, na, 1, wt, dmean);
  }
}

static void test_reduce_reject(void) {
  tcall_t r1 = tc_op(&berth_op_def_max);
  TC_INTS(&r1, "axes", 1);
  tc_arg(&r1, ty(F32, 2, 2, 0), NULL);
  EXPECT_REJECT(&r1, "reduces f32[2,0] over zero elements");
  tcall_t r2 = tc_op(&berth_op_def_sum);
  tc_arg(&r2, ty(BOOL, 1, 2), (uint8_t[]){1, 1});
  EXPECT_REJECT(&r2, "operand 0 has dtype bool");
  tcall_t r3 = tc_op(&berth_op_def_mean);
  TC_INTS(&r3, "axes", 0, -2);
  tc_arg(&r3, ty(F32, 2, 1, 1), (float[]){1});
  EXPECT_REJECT(&r3, "names axis -2 twice");
  tcall_t r4 = tc_op(&berth_op_def_min);
  TC_INTS(&r4, "axes", 2);
  tc_arg(&r4, ty(F32, 2, 1, 1), (float[]){1});
  EXPECT_REJECT(&r4, "axes entry 2 is out of range for rank 2");
  tcall_t r5 = tc_op(&berth_op_def_sum);
  tc_int(&r5, "keepdims", 2);
  tc_arg(&r5, ty(F32, 2, 1, 1), (float[]){1});
  EXPECT_REJECT(&r5, "keepdims is 2, expected 0 or 1");
  tcall_t r6 = tc_op(&berth_op_def_sum);
  TC_INTS(&r6, "axes", 0);
  tc_arg(&r6, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&r6, "rank-0");
  tcall_t r7 = tc_op(&berth_op_def_min);
  tc_arg(&r7, ty(I32, 1, 0), NULL);
  EXPECT_REJECT(&r7, "over zero elements");
  /* an empty input whose sum over the empty axis would be huge */
  tcall_t r8 = tc_op(&berth_op_def_sum);
  TC_INTS(&r8, "axes", 1);
  tc_int(&r8, "keepdims", 0);
  tc_arg(&r8, ty(F32, 3, 1 << 20, 0, 1 << 20), NULL);
  EXPECT_REJECT(&r8, "exceeds berth's limits");
}

static void test_argmax(void) {
  const float x[6] = {1, 3, 3, fnan, 2, fnan};
  tcall_t c = tc_op(&berth_op_def_argmax);
  tc_int(&c, "axis", 1);
  tc_arg(&c, ty(F32, 2, 2, 3), x);
  EXPECT(&c, ty(I64, 2, 2, 1), ((int64_t[]){1, 0}));
  tcall_t c2 = tc_op(&berth_op_def_argmax);
  tc_int(&c2, "axis", -1);
  tc_int(&c2, "select_last_index", 1);
  tc_int(&c2, "keepdims", 0);
  tc_arg(&c2, ty(F32, 2, 2, 3), x);
  EXPECT(&c2, ty(I64, 1, 2), ((int64_t[]){2, 2}));
  tcall_t c3 = tc_op(&berth_op_def_argmax);
  tc_arg(&c3, ty(F32, 2, 2, 3), x);
  EXPECT(&c3, ty(I64, 2, 1, 3), ((int64_t[]){1, 0, 1}));
  tcall_t c4 = tc_op(&berth_op_def_argmax);
  tc_arg(&c4, ty(I32, 2, 2, 2), (int32_t[]){5, 5, 5, 4});
  EXPECT(&c4, ty(I64, 2, 1, 2), ((int64_t[]){0, 0}));
  tcall_t c5 = tc_op(&berth_op_def_argmax);
  tc_int(&c5, "select_last_index", 1);
  tc_arg(&c5, ty(I32, 2, 2, 2), (int32_t[]){5, 5, 5, 4});
  EXPECT(&c5, ty(I64, 2, 1, 2), ((int64_t[]){1, 0}));
  tcall_t c6 = tc_op(&berth_op_def_argmax);
  tc_int(&c6, "keepdims", 0);
  tc_arg(&c6, ty(U8, 1, 4), (uint8_t[]){3, 255, 7, 255});
  EXPECT(&c6, ty(I64, 0), ((int64_t[]){1}));
  tcall_t c7 = tc_op(&berth_op_def_argmax); /* NaN at the start, first and last */
  tc_int(&c7, "keepdims", 0);
  tc_arg(&c7, ty(F64, 1, 4), (double[]){NAN, 5, NAN, 1});
  EXPECT(&c7, ty(I64, 0), ((int64_t[]){0}));
  tc_int(&c7, "select_last_index", 1);
  EXPECT(&c7, ty(I64, 0), ((int64_t[]){2}));
  tcall_t c8 = tc_op(&berth_op_def_argmax); /* middle axis, inner > 1 */
  tc_int(&c8, "axis", 1);
  tc_int(&c8, "keepdims", 0);
  tc_arg(&c8, ty(I32, 3, 2, 3, 2), (int32_t[]){1, 9, 5, 2, 3, 9, 7, 0, 7, 0, 8, 0});
  EXPECT(&c8, ty(I64, 2, 2, 2), ((int64_t[]){1, 0, 2, 0}));
  tc_int(&c8, "select_last_index", 1);
  EXPECT(&c8, ty(I64, 2, 2, 2), ((int64_t[]){1, 2, 2, 2}));
  tcall_t c9 = tc_op(&berth_op_def_argmax);
  tc_int(&c9, "axis", 1);
  tc_arg(&c9, ty(F32, 2, 0, 3), NULL);
  EXPECT(&c9, ty(I64, 2, 0, 1), NULL);
  tcall_t r1 = tc_op(&berth_op_def_argmax);
  tc_int(&r1, "axis", 1);
  tc_arg(&r1, ty(F32, 2, 2, 0), NULL);
  EXPECT_REJECT(&r1, "axis 1 of f32[2,0] has size 0");
  tcall_t r2 = tc_op(&berth_op_def_argmax);
  tc_arg(&r2, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&r2, "rank-0");
  tcall_t r3 = tc_op(&berth_op_def_argmax);
  tc_int(&r3, "axis", -3);
  tc_arg(&r3, ty(F32, 2, 1, 1), (float[]){1});
  EXPECT_REJECT(&r3, "axis -3 is out of range for rank 2 (expected -2..1)");
  tcall_t r4 = tc_op(&berth_op_def_argmax);
  tc_arg(&r4, ty(BOOL, 1, 1), (uint8_t[]){1});
  EXPECT_REJECT(&r4, "dtype bool");
  tcall_t r5 = tc_op(&berth_op_def_argmax);
  tc_int(&r5, "select_last_index", -1);
  tc_arg(&r5, ty(F32, 1, 1), (float[]){1});
  EXPECT_REJECT(&r5, "select_last_index is -1, expected 0 or 1");
}

/* ---- matmul ---------------------------------------------------------------------------- */

static void test_matmul_small(void) {
  tcall_t c = tc_op(&berth_op_def_matmul);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(F32, 2, 3, 2), (float[]){7, 8, 9, 10, 11, 12});
  EXPECT(&c, ty(F32, 2, 2, 2), ((float[]){58, 64, 139, 154}));
  tcall_t c2 = tc_op(&berth_op_def_matmul); /* 1-D . 1-D -> scalar */
  tc_arg(&c2, ty(F64, 1, 3), (double[]){1, 2, 3});
  tc_arg(&c2, ty(F64, 1, 3), (double[]){4, 5, 6});
  EXPECT(&c2, ty(F64, 0), ((double[]){32}));
  tcall_t c3 = tc_op(&berth_op_def_matmul); /* 1-D . 2-D -> [m] */
  tc_arg(&c3, ty(F32, 1, 3), (float[]){1, 2, 3});
  tc_arg(&c3, ty(F32, 2, 3, 2), (float[]){7, 8, 9, 10, 11, 12});
  EXPECT(&c3, ty(F32, 1, 2), ((float[]){58, 64}));
  tcall_t c4 = tc_op(&berth_op_def_matmul); /* 2-D . 1-D -> [n] */
  tc_arg(&c4, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c4, ty(F32, 1, 3), (float[]){1, 0, -1});
  EXPECT(&c4, ty(F32, 1, 2), ((float[]){-2, -2}));
  tcall_t c5 = tc_op(&berth_op_def_matmul); /* 3-D . 1-D: batch kept */
  tc_arg(&c5, ty(I32, 3, 2, 1, 2), (int32_t[]){1, 2, 3, 4});
  tc_arg(&c5, ty(I32, 1, 2), (int32_t[]){10, 1});
  EXPECT(&c5, ty(I32, 2, 2, 1), ((int32_t[]){12, 34}));
  tcall_t c6 = tc_op(&berth_op_def_matmul); /* integer wrap-around */
  tc_arg(&c6, ty(I32, 2, 1, 2), (int32_t[]){INT32_MAX, 2});
  tc_arg(&c6, ty(I32, 2, 2, 1), (int32_t[]){2, 1});
  EXPECT(&c6, ty(I32, 2, 1, 1), ((int32_t[]){0}));
  tcall_t c7 = tc_op(&berth_op_def_matmul);
  tc_arg(&c7, ty(U8, 2, 1, 2), (uint8_t[]){200, 100});
  tc_arg(&c7, ty(U8, 2, 2, 1), (uint8_t[]){2, 1});
  EXPECT(&c7, ty(U8, 2, 1, 1), ((uint8_t[]){(uint8_t)500}));
  tcall_t c8 = tc_op(&berth_op_def_matmul); /* k == 0: zeros */
  tc_arg(&c8, ty(F32, 2, 2, 0), NULL);
  tc_arg(&c8, ty(F32, 2, 0, 3), NULL);
  EXPECT(&c8, ty(F32, 2, 2, 3), ((float[]){0, 0, 0, 0, 0, 0}));
  tcall_t c9 = tc_op(&berth_op_def_matmul); /* empty batch */
  tc_arg(&c9, ty(F32, 3, 0, 2, 2), NULL);
  tc_arg(&c9, ty(F32, 2, 2, 2), (float[]){1, 2, 3, 4});
  EXPECT(&c9, ty(F32, 3, 0, 2, 2), NULL);
  tcall_t c10 = tc_op(&berth_op_def_matmul); /* NaN and inf propagate */
  tc_arg(&c10, ty(F32, 2, 1, 2), (float[]){fnan, 1});
  tc_arg(&c10, ty(F32, 2, 2, 2), (float[]){1, 0, 1, INFINITY});
  EXPECT(&c10, ty(F32, 2, 1, 2), ((float[]){NAN, NAN}));

  tcall_t r1 = tc_op(&berth_op_def_matmul);
  tc_arg(&r1, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&r1, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  EXPECT_REJECT(&r1, "operand 0 f32[2,3] has 3 columns but operand 1 f32[2,3] has 2 rows, expected equal");
  tcall_t r2 = tc_op(&berth_op_def_matmul);
  tc_arg(&r2, ty(F32, 3, 2, 1, 1), (float[]){1, 2});
  tc_arg(&r2, ty(F32, 3, 3, 1, 1), (float[]){1, 2, 3});
  EXPECT_REJECT(&r2, "batch dims");
  tcall_t r3 = tc_op(&berth_op_def_matmul);
  tc_arg(&r3, ty(F32, 0), (float[]){1});
  tc_arg(&r3, ty(F32, 1, 1), (float[]){1});
  EXPECT_REJECT(&r3, "operand 0 f32[] is a scalar, expected rank >= 1");
  tcall_t r4 = tc_op(&berth_op_def_matmul);
  tc_arg(&r4, ty(BOOL, 1, 1), (uint8_t[]){1});
  tc_arg(&r4, ty(BOOL, 1, 1), (uint8_t[]){1});
  EXPECT_REJECT(&r4, "dtype bool");
  tcall_t r5 = tc_op(&berth_op_def_matmul);
  tc_arg(&r5, ty(F32, 1, 1), (float[]){1});
  tc_arg(&r5, ty(F64, 1, 1), (double[]){1});
  EXPECT_REJECT(&r5, "operand 1 has dtype f64, expected f32 like operand 0");
}

/* Larger and batched products against a naive triple loop (in double for floats, in
 * wrapping unsigned arithmetic for integers), covering the 4-row blocks and remainders,
 * the column-block edge (m > 512) and the dot product path. */
static void matmul_case(int line, berth_type_t ta, berth_type_t tb) {
  int ra = ta.rank, rb = tb.rank;
  int64_t n = ra == 1 ? 1 : ta.dims[ra - 2], k = ta.dims[ra - 1], m = rb == 1 ? 1 : tb.dims[rb - 1];
  int bra = ra > 2 ? ra - 2 : 0, brb = rb > 2 ? rb - 2 : 0, br = bra > brb ? bra : brb;
  int64_t bd[BERTH_MAX_RANK], nb = 1;
  for (int q = 0; q < br; q++) {
    int qa = q - (br - bra), qb = q - (br - brb);
    int64_t da = qa >= 0 ? ta.dims[qa] : 1, db = qb >= 0 ? tb.dims[qb] : 1;
    bd[q] = da > db ? da : db;
    nb *= bd[q];
  }
  berth_type_t want = ty(ta.dtype, 0);
  for (int q = 0; q < br; q++) want.dims[want.rank++] = bd[q];
  if (ra > 1) want.dims[want.rank++] = n;
  if (rb > 1) want.dims[want.rank++] = m;
  int64_t na = berth_type_numel(&ta), nbn = berth_type_numel(&tb), nc = berth_type_numel(&want);
  float *af = malloc((size_t)na * 4), *bf = malloc((size_t)nbn * 4), *cf = malloc((size_t)nc * 4);
  int32_t *ai = malloc((size_t)na * 4), *bi = malloc((size_t)nbn * 4), *ci = malloc((size_t)nc * 4);
  for (int64_t i = 0; i < na; i++) af[i] = (float)((i * 13) % 17 - 8) / 8, ai[i] = (int32_t)((i * 2654435761u) >> 3);
  for (int64_t i = 0; i < nbn; i++) bf[i] = (float)((i * 7) % 11 - 5) / 4, bi[i] = (int32_t)((i * 40503u) + 12345);
  for (int64_t t = 0; t < nb; t++) {
    /* batch index -> operand matrices (broadcast) */
    int64_t rem = t, oa = 0, ob = 0, sa = 1, sb = 1;
    int64_t idx[BERTH_MAX_RANK];
    for (int q = br - 1; q >= 0; q--) idx[q] = rem % bd[q], rem /= bd[q];
    for (int q = br - 1; q >= 0; q--) {
      int qa = q - (br - bra), qb = q - (br - brb);
      if (qa >= 0) {
        if (ta.dims[qa] != 1) oa += idx[q] * sa;
        sa *= ta.dims[qa];
      }
      if (qb >= 0) {
        if (tb.dims[qb] != 1) ob += idx[q] * sb;
        sb *= tb.dims[qb];
      }
    }
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < m; j++) {
        double s = 0;
        uint32_t si = 0;
        for (int64_t q = 0; q < k; q++) {
          s += (double)af[oa * n * k + i * k + q] * bf[ob * k * m + q * m + j];
          si += (uint32_t)ai[oa * n * k + i * k + q] * (uint32_t)bi[ob * k * m + q * m + j];
        }
        cf[t * n * m + i * m + j] = (float)s;
        ci[t * n * m + i * m + j] = (int32_t)si;
      }
  }
  tcall_t c = tc_op(&berth_op_def_matmul);
  tc_arg(&c, ta, af);
  tc_arg(&c, tb, bf);
  tc_expect(line, &c, want, cf, 1e-5);
  berth_type_t tai = ta, tbi = tb, wi = want;
  tai.dtype = tbi.dtype = wi.dtype = I32;
  tcall_t c2 = tc_op(&berth_op_def_matmul);
  tc_arg(&c2, tai, ai);
  tc_arg(&c2, tbi, bi);
  tc_expect(line, &c2, wi, ci, 0);
  free(af), free(bf), free(cf), free(ai), free(bi), free(ci);
}

static void test_matmul_general(void) {
  matmul_case(__LINE__, ty(F32, 2, 7, 9), ty(F32, 2, 9, 13));
  matmul_case(__LINE__, ty(F32, 2, 8, 5), ty(F32, 2, 5, 600));
  matmul_case(__LINE__, ty(F32, 2, 5, 37), ty(F32, 2, 37, 1));
  matmul_case(__LINE__, ty(F32, 1, 37), ty(F32, 2, 37, 6));
  matmul_case(__LINE__, ty(F32, 2, 6, 37), ty(F32, 1, 37));
  matmul_case(__LINE__, ty(F32, 1, 19), ty(F32, 1, 19));
  matmul_case(__LINE__, ty(F32, 4, 2, 1, 3, 4), ty(F32, 3, 3, 4, 5));
  matmul_case(__LINE__, ty(F32, 3, 3, 5, 4), ty(F32, 4, 2, 1, 4, 2));
  matmul_case(__LINE__, ty(F32, 3, 1, 5, 4), ty(F32, 3, 3, 4, 1));
  matmul_case(__LINE__, ty(F32, 3, 4, 2, 3), ty(F32, 1, 3));
  matmul_case(__LINE__, ty(F32, 8, 2, 1, 1, 1, 1, 2, 3, 2), ty(F32, 3, 2, 2, 4));
}

int main(void) {
  test_select();
  test_slice();
  test_squeeze_unsqueeze_reshape();
  test_transpose();
  test_concat_expand();
  test_reduce();
  test_reduce_general();
  test_reduce_reject();
  test_argmax();
  test_matmul_small();
  test_matmul_general();
  return test_finish("test_kernel_shape");
}
