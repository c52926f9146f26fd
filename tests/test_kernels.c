/* Tests of the elementwise kernels (binary, unary, cast, where, full) and of what every
 * kernel op must reject. Shape ops, reductions and matmul: test_kernel_shape.c. */
#include "test_kernel_util.h"

#include <float.h>
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

/* ---- every kernel op ------------------------------------------------------------------ */

/* The ops of this family (add .. matmul); later ops belong to other kernel files, which
 * have their own tests. */
static void test_table(void) {
  static const float two[2] = {1, 2};
  int kernels = 0;
  for (uint32_t op = BERTH_OP_ADD; op <= BERTH_OP_MATMUL; op++) {
    const berth_op_def_t *def = berth_op_get(op);
    CHECK(def != NULL);
    CHECK(def && def->kind == BERTH_OPKIND_KERNEL);
    if (!def || def->kind != BERTH_OPKIND_KERNEL) continue;
    kernels++;
    CHECK_MSG(def->infer && def->run, "%s lacks infer or run", def->name);
    CHECK_MSG(def->n_out == 1, "%s has %d outputs", def->name, def->n_out);
    CHECK(def->n_attrs <= BERTH_MAX_OP_ATTRS);
    CHECK(berth_op_find(def->name, strlen(def->name)) == (berth_op_t)op);
    if (!def->infer) continue;
    /* too many operands */
    tcall_t c = tc_op(def);
    int32_t too_many = def->max_in < 0 ? BERTH_MAX_KERNEL_OPERANDS + 1 : def->max_in + 1;
    for (int32_t i = 0; i < too_many; i++) tc_arg(&c, ty(F32, 1, 2), two);
    EXPECT_REJECT(&c, "operands, expected");
    /* too few */
    if (def->min_in > 0) {
      tcall_t c2 = tc_op(def);
      for (int32_t i = 0; i < def->min_in - 1; i++) tc_arg(&c2, ty(F32, 1, 2), two);
      EXPECT_REJECT(&c2, "operands, expected");
      /* an invalid input type (rank 9) in every position */
      tcall_t c3 = tc_op(def);
      for (int32_t i = 0; i < def->min_in; i++) tc_arg(&c3, ty(F32, 1, 2), two);
      c3.in[def->min_in - 1].rank = BERTH_MAX_RANK + 1;
      EXPECT_REJECT(&c3, "invalid type");
      c3.in[def->min_in - 1].rank = 1;
      c3.in[def->min_in - 1].dtype = (berth_dtype_t)BERTH_DTYPE_COUNT;
      EXPECT_REJECT(&c3, "invalid type");
    }
  }
  CHECK(kernels == BERTH_OP_MATMUL - BERTH_OP_ADD + 1);
}

/* ---- binary arithmetic ---------------------------------------------------------------- */

static void test_add_broadcast(void) {
  /* [2,3] + [3] */
  tcall_t c = tc_op(&berth_op_def_add);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(F32, 1, 3), (float[]){10, 20, 30});
  EXPECT(&c, ty(F32, 2, 2, 3), ((float[]){11, 22, 33, 14, 25, 36}));
  /* [3] + [2,3]: the other way round */
  tcall_t c2 = tc_op(&berth_op_def_add);
  tc_arg(&c2, ty(F32, 1, 3), (float[]){10, 20, 30});
  tc_arg(&c2, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  EXPECT(&c2, ty(F32, 2, 2, 3), ((float[]){11, 22, 33, 14, 25, 36}));
  /* [2,1] + [1,3]: both operands broadcast */
  tcall_t c3 = tc_op(&berth_op_def_add);
  tc_arg(&c3, ty(I32, 2, 2, 1), (int32_t[]){1, 2});
  tc_arg(&c3, ty(I32, 2, 1, 3), (int32_t[]){10, 20, 30});
  EXPECT(&c3, ty(I32, 2, 2, 3), ((int32_t[]){11, 21, 31, 12, 22, 32}));
  /* rank 0 with rank 0, and rank 0 with a vector on either side */
  tcall_t c4 = tc_op(&berth_op_def_add);
  tc_arg(&c4, ty(F64, 0), (double[]){1.5});
  tc_arg(&c4, ty(F64, 0), (double[]){2});
  EXPECT(&c4, ty(F64, 0), ((double[]){3.5}));
  tcall_t c5 = tc_op(&berth_op_def_sub);
  tc_arg(&c5, ty(I64, 0), (int64_t[]){100});
  tc_arg(&c5, ty(I64, 1, 3), (int64_t[]){1, 2, 3});
  EXPECT(&c5, ty(I64, 1, 3), ((int64_t[]){99, 98, 97}));
  tcall_t c6 = tc_op(&berth_op_def_sub);
  tc_arg(&c6, ty(I64, 1, 3), (int64_t[]){1, 2, 3});
  tc_arg(&c6, ty(I64, 0), (int64_t[]){100});
  EXPECT(&c6, ty(I64, 1, 3), ((int64_t[]){-99, -98, -97}));
  /* empty result */
  tcall_t c7 = tc_op(&berth_op_def_mul);
  tc_arg(&c7, ty(F32, 2, 0, 3), NULL);
  tc_arg(&c7, ty(F32, 1, 3), (float[]){1, 2, 3});
  EXPECT(&c7, ty(F32, 2, 0, 3), NULL);
  /* [2,1] with [0]: size 0 broadcasts against... 1 only */
  tcall_t c8 = tc_op(&berth_op_def_mul);
  tc_arg(&c8, ty(F32, 2, 2, 1), (float[]){1, 2});
  tc_arg(&c8, ty(F32, 1, 0), NULL);
  EXPECT(&c8, ty(F32, 2, 2, 0), NULL);
}

/* A general broadcast ([2,1,3,1] with [4,1,5] -> [2,4,3,5]) against a naive loop, for
 * several dtypes, so that plan collapsing and odometers are exercised. */
static void test_broadcast_general(void) {
  enum { N = 2 * 4 * 3 * 5 };
  int32_t a[6], b[20], want[N];
  for (int i = 0; i < 6; i++) a[i] = i * 7 - 11;
  for (int i = 0; i < 20; i++) b[i] = i * 3 + 1;
  for (int i0 = 0; i0 < 2; i0++)
    for (int i1 = 0; i1 < 4; i1++)
      for (int i2 = 0; i2 < 3; i2++)
        for (int i3 = 0; i3 < 5; i3++)
          want[((i0 * 4 + i1) * 3 + i2) * 5 + i3] = a[i0 * 3 + i2] * b[i1 * 5 + i3];
  tcall_t c = tc_op(&berth_op_def_mul);
  tc_arg(&c, ty(I32, 4, 2, 1, 3, 1), a);
  tc_arg(&c, ty(I32, 3, 4, 1, 5), b);
  EXPECT(&c, ty(I32, 4, 2, 4, 3, 5), want);
  /* the same as comparisons: a < b with output bool */
  uint8_t wantb[N];
  for (int i0 = 0; i0 < 2; i0++)
    for (int i1 = 0; i1 < 4; i1++)
      for (int i2 = 0; i2 < 3; i2++)
        for (int i3 = 0; i3 < 5; i3++)
          wantb[((i0 * 4 + i1) * 3 + i2) * 5 + i3] = a[i0 * 3 + i2] < b[i1 * 5 + i3];
  tcall_t c2 = tc_op(&berth_op_def_lt);
  tc_arg(&c2, ty(I32, 4, 2, 1, 3, 1), a);
  tc_arg(&c2, ty(I32, 3, 4, 1, 5), b);
  EXPECT(&c2, ty(BOOL, 4, 2, 4, 3, 5), wantb);
  /* rank 8 */
  float x8[2] = {1, 2}, y8[3] = {10, 20, 30};
  float w8[6] = {11, 21, 31, 12, 22, 32};
  tcall_t c3 = tc_op(&berth_op_def_add);
  tc_arg(&c3, ty(F32, 8, 1, 1, 1, 1, 1, 1, 2, 1), x8);
  tc_arg(&c3, ty(F32, 1, 3), y8);
  EXPECT(&c3, ty(F32, 8, 1, 1, 1, 1, 1, 1, 2, 3), w8);
}

static void test_int_arith(void) {
  /* wrap-around instead of signed overflow */
  tcall_t c = tc_op(&berth_op_def_sub);
  tc_arg(&c, ty(I32, 1, 2), (int32_t[]){INT32_MIN, 5});
  tc_arg(&c, ty(I32, 1, 2), (int32_t[]){1, 7});
  EXPECT(&c, ty(I32, 1, 2), ((int32_t[]){INT32_MAX, -2}));
  tcall_t c2 = tc_op(&berth_op_def_mul);
  tc_arg(&c2, ty(U16, 1, 2), (uint16_t[]){65535, 300});
  tc_arg(&c2, ty(U16, 1, 2), (uint16_t[]){65535, 300});
  EXPECT(&c2, ty(U16, 1, 2), ((uint16_t[]){1, (uint16_t)90000}));
  tcall_t c3 = tc_op(&berth_op_def_mul);
  tc_arg(&c3, ty(I64, 1, 2), (int64_t[]){INT64_MAX, INT64_MIN});
  tc_arg(&c3, ty(I64, 1, 2), (int64_t[]){2, -1});
  EXPECT(&c3, ty(I64, 1, 2), ((int64_t[]){-2, INT64_MIN}));
  tcall_t c4 = tc_op(&berth_op_def_add);
  tc_arg(&c4, ty(I8, 1, 2), (int8_t[]){127, -128});
  tc_arg(&c4, ty(I8, 1, 2), (int8_t[]){1, -1});
  EXPECT(&c4, ty(I8, 1, 2), ((int8_t[]){-128, 127}));
  /* division: truncation toward zero, by zero gives 0, INT_MIN / -1 wraps */
  tcall_t c5 = tc_op(&berth_op_def_div);
  tc_arg(&c5, ty(I32, 1, 6), (int32_t[]){7, -7, 7, 5, INT32_MIN, INT32_MIN});
  tc_arg(&c5, ty(I32, 1, 6), (int32_t[]){2, 2, -2, 0, -1, 1});
  EXPECT(&c5, ty(I32, 1, 6), ((int32_t[]){3, -3, -3, 0, INT32_MIN, INT32_MIN}));
  tcall_t c6 = tc_op(&berth_op_def_div);
  tc_arg(&c6, ty(I8, 1, 3), (int8_t[]){-128, -128, 9});
  tc_arg(&c6, ty(I8, 0), (int8_t[]){-1});
  EXPECT(&c6, ty(I8, 1, 3), ((int8_t[]){-128, -128, -9}));
  tcall_t c7 = tc_op(&berth_op_def_div);
  tc_arg(&c7, ty(U8, 1, 3), (uint8_t[]){200, 7, 0});
  tc_arg(&c7, ty(U8, 1, 3), (uint8_t[]){0, 2, 0});
  EXPECT(&c7, ty(U8, 1, 3), ((uint8_t[]){0, 3, 0}));
  tcall_t c8 = tc_op(&berth_op_def_div);
  tc_arg(&c8, ty(I64, 1, 2), (int64_t[]){INT64_MIN, -9});
  tc_arg(&c8, ty(I64, 1, 2), (int64_t[]){-1, 0});
  EXPECT(&c8, ty(I64, 1, 2), ((int64_t[]){INT64_MIN, 0}));
  /* pow by squaring; negative exponents */
  tcall_t c9 = tc_op(&berth_op_def_pow);
  tc_arg(&c9, ty(I32, 1, 8), (int32_t[]){2, 3, 2, 1, -1, -1, 0, -2});
  tc_arg(&c9, ty(I32, 1, 8), (int32_t[]){10, 0, -1, -5, -3, -2, 0, 3});
  EXPECT(&c9, ty(I32, 1, 8), ((int32_t[]){1024, 1, 0, 1, -1, 1, 1, -8}));
  tcall_t c10 = tc_op(&berth_op_def_pow);
  tc_arg(&c10, ty(I8, 1, 3), (int8_t[]){2, 3, -2});
  tc_arg(&c10, ty(I8, 1, 3), (int8_t[]){7, 5, 127});
  EXPECT(&c10, ty(I8, 1, 3), ((int8_t[]){-128, (int8_t)243, 0}));
  tcall_t c11 = tc_op(&berth_op_def_pow);
  tc_arg(&c11, ty(U64, 1, 2), (uint64_t[]){3, 2});
  tc_arg(&c11, ty(U64, 1, 2), (uint64_t[]){40, 64});
  EXPECT(&c11, ty(U64, 1, 2), ((uint64_t[]){12157665459056928801ull, 0}));
  tcall_t c12 = tc_op(&berth_op_def_pow);
  tc_arg(&c12, ty(I64, 1, 2), (int64_t[]){-1, 7});
  tc_arg(&c12, ty(I64, 1, 2), (int64_t[]){INT64_MIN, INT64_MIN});
  EXPECT(&c12, ty(I64, 1, 2), ((int64_t[]){1, 0}));
  /* integer minimum / maximum */
  tcall_t c13 = tc_op(&berth_op_def_minimum);
  tc_arg(&c13, ty(U32, 1, 3), (uint32_t[]){1, 4000000000u, 7});
  tc_arg(&c13, ty(U32, 0), (uint32_t[]){5});
  EXPECT(&c13, ty(U32, 1, 3), ((uint32_t[]){1, 5, 5}));
  tcall_t c14 = tc_op(&berth_op_def_maximum);
  tc_arg(&c14, ty(I16, 1, 3), (int16_t[]){-3, 4, -32768});
  tc_arg(&c14, ty(I16, 1, 3), (int16_t[]){-4, 2, 32767});
  EXPECT(&c14, ty(I16, 1, 3), ((int16_t[]){-3, 4, 32767}));
}

static void test_float_arith(void) {
  tcall_t c = tc_op(&berth_op_def_div);
  tc_arg(&c, ty(F32, 1, 4), (float[]){1, -1, 0, 7});
  tc_arg(&c, ty(F32, 1, 4), (float[]){0, 0, 0, 2});
  EXPECT(&c, ty(F32, 1, 4), ((float[]){INFINITY, -INFINITY, NAN, 3.5f}));
  tcall_t c2 = tc_op(&berth_op_def_pow);
  tc_arg(&c2, ty(F64, 1, 3), (double[]){2, 4, -8});
  tc_arg(&c2, ty(F64, 1, 3), (double[]){0.5, -0.5, 1.0 / 3});
  EXPECT_TOL(&c2, ty(F64, 1, 3), ((double[]){1.4142135623730951, 0.5, NAN}), 1e-15);
  /* NaN propagates through minimum and maximum from either side */
  tcall_t c3 = tc_op(&berth_op_def_minimum);
  tc_arg(&c3, ty(F32, 1, 4), (float[]){fnan, 1, 2, -0.5f});
  tc_arg(&c3, ty(F32, 1, 4), (float[]){1, fnan, 3, -1});
  EXPECT(&c3, ty(F32, 1, 4), ((float[]){NAN, NAN, 2, -1}));
  tcall_t c4 = tc_op(&berth_op_def_maximum);
  tc_arg(&c4, ty(F64, 1, 4), (double[]){NAN, 1, 2, -0.5});
  tc_arg(&c4, ty(F64, 1, 4), (double[]){1, NAN, 3, -1});
  EXPECT(&c4, ty(F64, 1, 4), ((double[]){NAN, NAN, 3, -0.5}));
  tcall_t c5 = tc_op(&berth_op_def_maximum);
  tc_arg(&c5, ty(F32, 1, 3), (float[]){1, 5, -2});
  tc_arg(&c5, ty(F32, 0), (float[]){fnan});
  EXPECT(&c5, ty(F32, 1, 3), ((float[]){NAN, NAN, NAN}));
}

static void test_compare_logical(void) {
  tcall_t c = tc_op(&berth_op_def_eq);
  tc_arg(&c, ty(F32, 1, 3), (float[]){fnan, 1, 2});
  tc_arg(&c, ty(F32, 1, 3), (float[]){fnan, 1, 3});
  EXPECT(&c, ty(BOOL, 1, 3), ((uint8_t[]){0, 1, 0}));
  tcall_t c2 = tc_op(&berth_op_def_ne);
  tc_arg(&c2, ty(F32, 1, 3), (float[]){fnan, 1, 2});
  tc_arg(&c2, ty(F32, 1, 3), (float[]){fnan, 1, 3});
  EXPECT(&c2, ty(BOOL, 1, 3), ((uint8_t[]){1, 0, 1}));
  const berth_op_def_t *ops[4] = {&berth_op_def_lt, &berth_op_def_le, &berth_op_def_gt, &berth_op_def_ge};
  const uint8_t want[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {0, 1, 1, 0}};
  for (int i = 0; i < 4; i++) {
    /* -1 < 0, 0 == 0, 1 > 0, NaN unordered */
    tcall_t f = tc_op(ops[i]);
    tc_arg(&f, ty(F64, 1, 4), (double[]){-1, 0, 1, NAN});
    tc_arg(&f, ty(F64, 0), (double[]){0});
    EXPECT(&f, ty(BOOL, 1, 4), want[i]);
    /* unsigned 64-bit values above INT64_MAX compare as unsigned */
    tcall_t u = tc_op(ops[i]);
    tc_arg(&u, ty(U64, 1, 4), (uint64_t[]){1, UINT64_MAX, UINT64_MAX, 5});
    tc_arg(&u, ty(U64, 1, 4), (uint64_t[]){UINT64_MAX, UINT64_MAX, 2, 5});
    const uint8_t wu[4][4] = {{1, 0, 0, 0}, {1, 1, 0, 1}, {0, 0, 1, 0}, {0, 1, 1, 1}};
    EXPECT(&u, ty(BOOL, 1, 4), wu[i]);
  }
  /* bool operands */
  tcall_t c3 = tc_op(&berth_op_def_lt);
  tc_arg(&c3, ty(BOOL, 1, 4), (uint8_t[]){0, 0, 1, 1});
  tc_arg(&c3, ty(BOOL, 1, 4), (uint8_t[]){0, 1, 0, 1});
  EXPECT(&c3, ty(BOOL, 1, 4), ((uint8_t[]){0, 1, 0, 0}));
  tcall_t c4 = tc_op(&berth_op_def_eq);
  tc_arg(&c4, ty(I8, 2, 2, 1), (int8_t[]){-1, 3});
  tc_arg(&c4, ty(I8, 1, 3), (int8_t[]){3, -1, 3});
  EXPECT(&c4, ty(BOOL, 2, 2, 3), ((uint8_t[]){0, 1, 0, 1, 0, 1}));
  /* logical ops with broadcasting */
  const uint8_t a[4] = {0, 0, 1, 1}, b[4] = {0, 1, 0, 1};
  tcall_t l1 = tc_op(&berth_op_def_logical_and);
  tc_arg(&l1, ty(BOOL, 1, 4), a);
  tc_arg(&l1, ty(BOOL, 1, 4), b);
  EXPECT(&l1, ty(BOOL, 1, 4), ((uint8_t[]){0, 0, 0, 1}));
  tcall_t l2 = tc_op(&berth_op_def_logical_or);
  tc_arg(&l2, ty(BOOL, 1, 4), a);
  tc_arg(&l2, ty(BOOL, 1, 4), b);
  EXPECT(&l2, ty(BOOL, 1, 4), ((uint8_t[]){0, 1, 1, 1}));
  tcall_t l3 = tc_op(&berth_op_def_logical_xor);
  tc_arg(&l3, ty(BOOL, 2, 2, 1), (uint8_t[]){0, 1});
  tc_arg(&l3, ty(BOOL, 1, 2), (uint8_t[]){0, 1});
  EXPECT(&l3, ty(BOOL, 2, 2, 2), ((uint8_t[]){0, 1, 1, 0}));
}

static void test_binary_reject(void) {
  tcall_t c = tc_op(&berth_op_def_add);
  tc_arg(&c, ty(F32, 1, 2), (float[]){1, 2});
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){1, 2});
  EXPECT_REJECT(&c, "operand 1 has dtype i64, expected f32 like operand 0");
  tcall_t c2 = tc_op(&berth_op_def_add);
  tc_arg(&c2, ty(BOOL, 1, 2), (uint8_t[]){1, 0});
  tc_arg(&c2, ty(BOOL, 1, 2), (uint8_t[]){1, 0});
  EXPECT_REJECT(&c2, "operand 0 has dtype bool, expected one of i8");
  tcall_t c3 = tc_op(&berth_op_def_mul);
  tc_arg(&c3, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c3, ty(F32, 1, 4), (float[]){1, 2, 3, 4});
  EXPECT_REJECT(&c3, "do not broadcast");
  tcall_t c4 = tc_op(&berth_op_def_logical_or);
  tc_arg(&c4, ty(F32, 1, 2), (float[]){1, 2});
  tc_arg(&c4, ty(F32, 1, 2), (float[]){1, 2});
  EXPECT_REJECT(&c4, "expected bool");
  tcall_t c5 = tc_op(&berth_op_def_eq);
  tc_arg(&c5, ty(BOOL, 1, 2), (uint8_t[]){1, 0});
  tc_arg(&c5, ty(U8, 1, 2), (uint8_t[]){1, 0});
  EXPECT_REJECT(&c5, "expected bool like operand 0");
  /* a broadcast result beyond berth's size limits */
  tcall_t c6 = tc_op(&berth_op_def_add);
  tc_arg(&c6, ty(F32, 2, 1 << 20, 1), NULL);
  tc_arg(&c6, ty(F32, 2, 1, 1 << 20), NULL);
  EXPECT_REJECT(&c6, "exceeds berth's limits");
}

/* ---- unary ------------------------------------------------------------------------- */

static void test_unary(void) {
  tcall_t c = tc_op(&berth_op_def_neg);
  tc_arg(&c, ty(I32, 1, 3), (int32_t[]){INT32_MIN, 5, -7});
  EXPECT(&c, ty(I32, 1, 3), ((int32_t[]){INT32_MIN, -5, 7}));
  tcall_t c2 = tc_op(&berth_op_def_neg);
  tc_arg(&c2, ty(F32, 0), (float[]){2.5f});
  EXPECT(&c2, ty(F32, 0), ((float[]){-2.5f}));
  tcall_t c3 = tc_op(&berth_op_def_abs);
  tc_arg(&c3, ty(I8, 1, 3), (int8_t[]){-128, -5, 6});
  EXPECT(&c3, ty(I8, 1, 3), ((int8_t[]){-128, 5, 6}));
  tcall_t c4 = tc_op(&berth_op_def_abs);
  tc_arg(&c4, ty(U8, 1, 2), (uint8_t[]){255, 0});
  EXPECT(&c4, ty(U8, 1, 2), ((uint8_t[]){255, 0}));
  tcall_t c5 = tc_op(&berth_op_def_abs);
  tc_arg(&c5, ty(F64, 1, 3), (double[]){-0.0, -3, NAN});
  void *r = tc_run(__LINE__, &c5, ty(F64, 1, 3));
  if (r) {
    const double *d = (const double *)r;
    CHECK(d[0] == 0 && !signbit(d[0]) && d[1] == 3 && d[2] != d[2]);
    free(r);
  }
  tcall_t c6 = tc_op(&berth_op_def_sqrt);
  tc_arg(&c6, ty(F32, 1, 4), (float[]){4, 2, -1, INFINITY});
  EXPECT_TOL(&c6, ty(F32, 1, 4), ((float[]){2, 1.41421356f, NAN, INFINITY}), 1e-6);
  tcall_t c7 = tc_op(&berth_op_def_exp);
  tc_arg(&c7, ty(F64, 1, 4), (double[]){0, 1, -INFINITY, 1000});
  EXPECT_TOL(&c7, ty(F64, 1, 4), ((double[]){1, 2.718281828459045, 0, INFINITY}), 1e-15);
  tcall_t c8 = tc_op(&berth_op_def_log);
  tc_arg(&c8, ty(F32, 1, 4), (float[]){1, 0, -1, 2.718281828f});
  EXPECT_TOL(&c8, ty(F32, 1, 4), ((float[]){0, -INFINITY, NAN, 1}), 1e-6);
  tcall_t c9 = tc_op(&berth_op_def_relu);
  tc_arg(&c9, ty(F32, 1, 4), (float[]){-1, 0, 3, fnan});
  EXPECT(&c9, ty(F32, 1, 4), ((float[]){0, 0, 3, NAN}));
  tcall_t c10 = tc_op(&berth_op_def_relu);
  tc_arg(&c10, ty(I64, 1, 3), (int64_t[]){INT64_MIN, 0, 9});
  EXPECT(&c10, ty(I64, 1, 3), ((int64_t[]){0, 0, 9}));
  tcall_t c11 = tc_op(&berth_op_def_sigmoid);
  tc_arg(&c11, ty(F32, 1, 5), (float[]){0, 2, -200, 200, fnan});
  EXPECT_TOL(&c11, ty(F32, 1, 5), ((float[]){0.5f, 0.880797078f, 0, 1, NAN}), 1e-6);
  tcall_t c12 = tc_op(&berth_op_def_tanh);
  tc_arg(&c12, ty(F64, 1, 4), (double[]){0, 0.5, -50, INFINITY});
  EXPECT_TOL(&c12, ty(F64, 1, 4), ((double[]){0, 0.46211715726000974, -1, 1}), 1e-15);
  tcall_t c13 = tc_op(&berth_op_def_logical_not);
  tc_arg(&c13, ty(BOOL, 2, 1, 2), (uint8_t[]){0, 1});
  EXPECT(&c13, ty(BOOL, 2, 1, 2), ((uint8_t[]){1, 0}));
  tcall_t c14 = tc_op(&berth_op_def_isnan);
  tc_arg(&c14, ty(F32, 1, 3), (float[]){fnan, INFINITY, 0});
  EXPECT(&c14, ty(BOOL, 1, 3), ((uint8_t[]){1, 0, 0}));
  tcall_t c15 = tc_op(&berth_op_def_isnan);
  tc_arg(&c15, ty(F64, 0), (double[]){NAN});
  EXPECT(&c15, ty(BOOL, 0), ((uint8_t[]){1}));
  /* clone: any dtype, any rank, empty too */
  tcall_t c16 = tc_op(&berth_op_def_clone);
  tc_arg(&c16, ty(U64, 2, 1, 2), (uint64_t[]){UINT64_MAX, 3});
  EXPECT(&c16, ty(U64, 2, 1, 2), ((uint64_t[]){UINT64_MAX, 3}));
  tcall_t c17 = tc_op(&berth_op_def_clone);
  tc_arg(&c17, ty(BOOL, 0), (uint8_t[]){1});
  EXPECT(&c17, ty(BOOL, 0), ((uint8_t[]){1}));
  tcall_t c18 = tc_op(&berth_op_def_clone);
  tc_arg(&c18, ty(F32, 2, 3, 0), NULL);
  EXPECT(&c18, ty(F32, 2, 3, 0), NULL);
  /* a long row, past any unrolled part of a loop */
  float x[37], want[37];
  for (int i = 0; i < 37; i++) x[i] = (float)(i - 18), want[i] = x[i] < 0 ? 0 : x[i];
  tcall_t c19 = tc_op(&berth_op_def_relu);
  tc_arg(&c19, ty(F32, 1, 37), x);
  EXPECT(&c19, ty(F32, 1, 37), want);
}

static void test_unary_reject(void) {
  struct {
    const berth_op_def_t *def;
    berth_dtype_t dt;
    const char *msg;
  } bad[] = {
      {&berth_op_def_sqrt, I32, "operand 0 has dtype i32, expected one of f32, f64"},
      {&berth_op_def_exp, BOOL, "expected one of f32, f64"},
      {&berth_op_def_log, U8, "expected one of f32, f64"},
      {&berth_op_def_sigmoid, I64, "expected one of f32, f64"},
      {&berth_op_def_tanh, I16, "expected one of f32, f64"},
      {&berth_op_def_neg, U8, "dtype u8, expected one of i8, i16, i32, i64, f32, f64"},
      {&berth_op_def_neg, BOOL, "dtype bool"},
      {&berth_op_def_abs, BOOL, "dtype bool"},
      {&berth_op_def_relu, U32, "dtype u32"},
      {&berth_op_def_logical_not, F32, "dtype f32, expected bool"},
      {&berth_op_def_isnan, I32, "dtype i32"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tcall_t c = tc_op(bad[i].def);
    tc_arg(&c, ty(bad[i].dt, 1, 1), (uint64_t[]){0});
    EXPECT_REJECT(&c, bad[i].msg);
  }
}

/* ---- cast ---------------------------------------------------------------------------- */

static void cast_expect(int line, berth_type_t from, const void *data, berth_dtype_t to, const void *want) {
  tcall_t c = tc_op(&berth_op_def_cast);
  tc_dtype(&c, "dtype", to);
  tc_arg(&c, from, data);
  berth_type_t w = from;
  w.dtype = to;
  tc_expect(line, &c, w, want, 0);
}
#define CAST(from, data, to, want) cast_expect(__LINE__, from, data, to, want)

static void test_cast(void) {
  /* float -> int: truncation, NaN -> 0, saturation */
  CAST(ty(F32, 1, 7), ((float[]){2.7f, -2.7f, fnan, 1e10f, -1e10f, INFINITY, -INFINITY}), I32,
       ((int32_t[]){2, -2, 0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN}));
  CAST(ty(F64, 1, 6), ((double[]){-5, 300, 255.9, -0.5, 0.99, NAN}), U8, ((uint8_t[]){0, 255, 255, 0, 0, 0}));
  /* 2^63 saturates; the largest float below it converts exactly */
  CAST(ty(F32, 1, 6), ((float[]){1e30f, -1e30f, 9.223372e18f, -9.223372e18f, 123456.75f, 9223371487098961920.0f}), I64,
       ((int64_t[]){INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, 123456, 9223371487098961920LL}));
  CAST(ty(F64, 1, 4), ((double[]){18446744073709551616.0, 18446744073709549568.0, -1, 1e300}), U64,
       ((uint64_t[]){UINT64_MAX, 18446744073709549568ull, 0, UINT64_MAX}));
  CAST(ty(F64, 1, 4), ((double[]){32767.9, 32768, -32768.9, -32769}), I16, ((int16_t[]){32767, 32767, -32768, -32768}));
  CAST(ty(F64, 1, 3), ((double[]){-2147483648.9, 2147483647.5, 4294967295.9}), U32,
       ((uint32_t[]){0, 2147483647u, 4294967295u}));
  CAST(ty(F64, 1, 3), ((double[]){-2147483648.9, 2147483647.5, -2147483649.0}), I32,
       ((int32_t[]){INT32_MIN, INT32_MAX, INT32_MIN}));
  CAST(ty(F32, 1, 3), ((float[]){-128.5f, 127.5f, 1000}), I8, ((int8_t[]){-128, 127, 127}));
  CAST(ty(F64, 1, 2), ((double[]){65535.5, 70000}), U16, ((uint16_t[]){65535, 65535}));
  /* int -> int wraps */
  CAST(ty(I32, 1, 3), ((int32_t[]){300, -129, 127}), I8, ((int8_t[]){44, 127, 127}));
  CAST(ty(U64, 1, 2), ((uint64_t[]){UINT64_MAX, 1}), I64, ((int64_t[]){-1, 1}));
  CAST(ty(I8, 1, 2), ((int8_t[]){-1, 5}), U32, ((uint32_t[]){UINT32_MAX, 5}));
  CAST(ty(I16, 1, 2), ((int16_t[]){-1, 5}), I64, ((int64_t[]){-1, 5}));
  /* to and from bool */
  CAST(ty(F32, 1, 5), ((float[]){0, -0.0f, fnan, 0.5f, -INFINITY}), BOOL, ((uint8_t[]){0, 0, 1, 1, 1}));
  CAST(ty(I64, 1, 3), ((int64_t[]){0, INT64_MIN, 256}), BOOL, ((uint8_t[]){0, 1, 1}));
  CAST(ty(BOOL, 1, 2), ((uint8_t[]){0, 1}), F64, ((double[]){0, 1}));
  CAST(ty(BOOL, 1, 2), ((uint8_t[]){1, 0}), I16, ((int16_t[]){1, 0}));
  CAST(ty(BOOL, 1, 2), ((uint8_t[]){1, 0}), BOOL, ((uint8_t[]){1, 0}));
  /* int -> float, float -> float */
  CAST(ty(I64, 1, 2), ((int64_t[]){INT64_MIN, 16777217}), F32, ((float[]){-9.223372e18f, 16777216.0f}));
  CAST(ty(U64, 0), ((uint64_t[]){UINT64_MAX}), F64, ((double[]){18446744073709551616.0}));
  CAST(ty(F64, 1, 3), ((double[]){1e300, 0.1, NAN}), F32, ((float[]){INFINITY, 0.1f, NAN}));
  CAST(ty(F32, 1, 2), ((float[]){0.1f, -INFINITY}), F64, ((double[]){(double)0.1f, -INFINITY}));
  /* same dtype */
  CAST(ty(I32, 0), ((int32_t[]){-7}), I32, ((int32_t[]){-7}));

  /* every pair of dtypes runs (values 0, 1, 100 survive every conversion) */
  const double vals[3] = {0, 1, 100};
  for (int from = 0; from < BERTH_DTYPE_COUNT; from++) {
    for (int to = 0; to < BERTH_DTYPE_COUNT; to++) {
      unsigned char in[24], want[24];
      tcall_t c = tc_op(&berth_op_def_cast);
      tc_dtype(&c, "dtype", (berth_dtype_t)to);
      for (int i = 0; i < 3; i++) {
        double v = (from == BOOL || to == BOOL) && vals[i] != 0 ? 1 : vals[i];
        /* write v as `from` into in and as `to` into want */
        for (int pass = 0; pass < 2; pass++) {
          int dt = pass ? to : from;
          unsigned char *p = (pass ? want : in) + i * berth_dtype_size((berth_dtype_t)dt);
          switch (dt) {
            case BOOL: *p = (uint8_t)v; break;
            case I8: *(int8_t *)p = (int8_t)v; break;
            case U8: *p = (uint8_t)v; break;
            case I16: { int16_t t = (int16_t)v; memcpy(p, &t, 2); } break;
            case U16: { uint16_t t = (uint16_t)v; memcpy(p, &t, 2); } break;
            case I32: { int32_t t = (int32_t)v; memcpy(p, &t, 4); } break;
            case U32: { uint32_t t = (uint32_t)v; memcpy(p, &t, 4); } break;
            case I64: { int64_t t = (int64_t)v; memcpy(p, &t, 8); } break;
            case U64: { uint64_t t = (uint64_t)v; memcpy(p, &t, 8); } break;
            case F32: { float t = (float)v; memcpy(p, &t, 4); } break;
            case F64: memcpy(p, &v, 8); break;
          }
        }
      }
      uint64_t inbuf[3], wantbuf[3];
      memcpy(inbuf, in, sizeof inbuf);
      memcpy(wantbuf, want, sizeof wantbuf);
      tc_arg(&c, ty((berth_dtype_t)from, 1, 3), inbuf);
      tc_expect(__LINE__, &c, ty((berth_dtype_t)to, 1, 3), wantbuf, 0);
    }
  }

  tcall_t bad = tc_op(&berth_op_def_cast);
  tc_int(&bad, "dtype", 99);
  tc_arg(&bad, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&bad, "attribute dtype is 99, not a dtype");
}

/* ---- where ----------------------------------------------------------------------------- */

static void test_where(void) {
  /* cond [2,1], a [1,3], b scalar -> [2,3] */
  tcall_t c = tc_op(&berth_op_def_where);
  tc_arg(&c, ty(BOOL, 2, 2, 1), (uint8_t[]){1, 0});
  tc_arg(&c, ty(F32, 2, 1, 3), (float[]){1, 2, 3});
  tc_arg(&c, ty(F32, 0), (float[]){-1});
  EXPECT(&c, ty(F32, 2, 2, 3), ((float[]){1, 2, 3, -1, -1, -1}));
  /* same shapes, 8-byte elements */
  tcall_t c2 = tc_op(&berth_op_def_where);
  tc_arg(&c2, ty(BOOL, 1, 3), (uint8_t[]){0, 1, 0});
  tc_arg(&c2, ty(I64, 1, 3), (int64_t[]){1, 2, 3});
  tc_arg(&c2, ty(I64, 1, 3), (int64_t[]){-1, -2, -3});
  EXPECT(&c2, ty(I64, 1, 3), ((int64_t[]){-1, 2, -3}));
  /* scalar cond, 1- and 2-byte elements, bool values */
  tcall_t c3 = tc_op(&berth_op_def_where);
  tc_arg(&c3, ty(BOOL, 0), (uint8_t[]){0});
  tc_arg(&c3, ty(I16, 1, 2), (int16_t[]){7, 8});
  tc_arg(&c3, ty(I16, 2, 2, 1), (int16_t[]){-1, -2});
  EXPECT(&c3, ty(I16, 2, 2, 2), ((int16_t[]){-1, -1, -2, -2}));
  tcall_t c4 = tc_op(&berth_op_def_where);
  tc_arg(&c4, ty(BOOL, 1, 2), (uint8_t[]){1, 0});
  tc_arg(&c4, ty(BOOL, 0), (uint8_t[]){1});
  tc_arg(&c4, ty(BOOL, 0), (uint8_t[]){0});
  EXPECT(&c4, ty(BOOL, 1, 2), ((uint8_t[]){1, 0}));
  /* rejections */
  tcall_t r1 = tc_op(&berth_op_def_where);
  tc_arg(&r1, ty(F32, 0), (float[]){1});
  tc_arg(&r1, ty(F32, 0), (float[]){1});
  tc_arg(&r1, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&r1, "operand 0 has dtype f32, expected bool");
  tcall_t r2 = tc_op(&berth_op_def_where);
  tc_arg(&r2, ty(BOOL, 0), (uint8_t[]){1});
  tc_arg(&r2, ty(F32, 0), (float[]){1});
  tc_arg(&r2, ty(F64, 0), (double[]){1});
  EXPECT_REJECT(&r2, "operand 2 has dtype f64, expected f32 like operand 1");
  tcall_t r3 = tc_op(&berth_op_def_where);
  tc_arg(&r3, ty(BOOL, 1, 2), (uint8_t[]){1, 0});
  tc_arg(&r3, ty(F32, 1, 3), (float[]){1, 2, 3});
  tc_arg(&r3, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&r3, "do not broadcast");
}

/* ---- full ------------------------------------------------------------------------------ */

static void test_full(void) {
  tcall_t c = tc_op(&berth_op_def_full);
  TC_INTS(&c, "shape", 2, 2);
  tc_dtype(&c, "dtype", F32);
  tc_scalar(&c, "value", 1.5);
  EXPECT(&c, ty(F32, 2, 2, 2), ((float[]){1.5f, 1.5f, 1.5f, 1.5f}));
  /* an exact int64 beyond double precision comes from attrs.i */
  tcall_t c2 = tc_op(&berth_op_def_full);
  TC_INTS(&c2, "shape", 2);
  tc_dtype(&c2, "dtype", I64);
  tc_scalar_i(&c2, "value", 9007199254740993LL);
  EXPECT(&c2, ty(I64, 1, 2), ((int64_t[]){9007199254740993LL, 9007199254740993LL}));
  /* rank 0, default value 0 */
  tcall_t c3 = tc_op(&berth_op_def_full);
  tc_dtype(&c3, "dtype", F64);
  EXPECT(&c3, ty(F64, 0), ((double[]){0}));
  tcall_t c4 = tc_op(&berth_op_def_full);
  TC_INTS(&c4, "shape", 3);
  tc_dtype(&c4, "dtype", BOOL);
  tc_scalar(&c4, "value", 1);
  EXPECT(&c4, ty(BOOL, 1, 3), ((uint8_t[]){1, 1, 1}));
  tcall_t c5 = tc_op(&berth_op_def_full);
  TC_INTS(&c5, "shape", 1);
  tc_dtype(&c5, "dtype", U8);
  tc_scalar(&c5, "value", 255);
  EXPECT(&c5, ty(U8, 1, 1), ((uint8_t[]){255}));
  tcall_t c6 = tc_op(&berth_op_def_full);
  TC_INTS(&c6, "shape", 2, 0);
  tc_dtype(&c6, "dtype", I32);
  tc_scalar(&c6, "value", -3);
  EXPECT(&c6, ty(I32, 2, 2, 0), NULL);
  tcall_t c7 = tc_op(&berth_op_def_full);
  TC_INTS(&c7, "shape", 2);
  tc_dtype(&c7, "dtype", F32);
  tc_scalar(&c7, "value", NAN);
  EXPECT(&c7, ty(F32, 1, 2), ((float[]){NAN, NAN}));
  tcall_t c8 = tc_op(&berth_op_def_full);
  TC_INTS(&c8, "shape", 2);
  tc_dtype(&c8, "dtype", I16);
  tc_scalar(&c8, "value", -32768);
  EXPECT(&c8, ty(I16, 1, 2), ((int16_t[]){-32768, -32768}));
  /* rejections */
  tcall_t r1 = tc_op(&berth_op_def_full);
  TC_INTS(&r1, "shape", 1);
  tc_dtype(&r1, "dtype", U8);
  tc_scalar(&r1, "value", 256);
  EXPECT_REJECT(&r1, "value 256 does not fit dtype u8");
  tcall_t r2 = tc_op(&berth_op_def_full);
  tc_dtype(&r2, "dtype", I32);
  tc_scalar(&r2, "value", 2.5);
  EXPECT_REJECT(&r2, "is not an integer");
  tcall_t r3 = tc_op(&berth_op_def_full);
  TC_INTS(&r3, "shape", 2, -1);
  tc_dtype(&r3, "dtype", F32);
  EXPECT_REJECT(&r3, "shape[1] is -1, expected a size >= 0");
  tcall_t r4 = tc_op(&berth_op_def_full);
  tc_int(&r4, "dtype", -1);
  EXPECT_REJECT(&r4, "not a dtype");
  tcall_t r5 = tc_op(&berth_op_def_full);
  TC_INTS(&r5, "shape", 1 << 30, 1 << 30);
  tc_dtype(&r5, "dtype", F32);
  EXPECT_REJECT(&r5, "exceeds berth's limits");
  tcall_t r6 = tc_op(&berth_op_def_full);
  tc_dtype(&r6, "dtype", U64);
  tc_scalar(&r6, "value", -1);
  EXPECT_REJECT(&r6, "does not fit dtype u64");
  tcall_t r7 = tc_op(&berth_op_def_full);
  tc_dtype(&r7, "dtype", F32);
  tc_attr(&r7, "shape")->n = 9;
  EXPECT_REJECT(&r7, "attribute shape has 9 values");
  tcall_t r8 = tc_op(&berth_op_def_full);
  tc_dtype(&r8, "dtype", F32);
  tc_arg(&r8, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&r8, "got 1 operands, expected 0");
}

int main(void) {
  test_table();
  test_add_broadcast();
  test_broadcast_general();
  test_int_arith();
  test_float_arith();
  test_compare_logical();
  test_binary_reject();
  test_unary();
  test_unary_reject();
  test_cast();
  test_where();
  test_full();
  return test_finish("test_kernels");
}
