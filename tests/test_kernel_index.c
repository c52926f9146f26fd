/* Tests of the index-family kernels (kernels/kernel_reduce.c prod and argmin,
 * kernel_cumsum.c, kernel_trilu.c, kernel_topk.c, kernel_scatter.c, kernel_gather_nd.c,
 * kernel_einsum.c, kernel_index_check.c, ...): small hand-computed cases, the edge cases the ONNX suite does not
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

/* runs a two-output kernel (topk) and compares both results */
static void expect2(int line, tcall_t *c, berth_type_t t0, const void *w0, berth_type_t t1, const void *w1) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out[2];
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, out, &d);
  CHECK_MSG(st == BERTH_OK, "line %d: infer failed: %s", line, msg);
  if (st) return;
  CHECK_MSG(berth_type_equal(&out[0], &t0) && berth_type_equal(&out[1], &t1), "line %d: result types differ", line);
  size_t b0 = berth_type_bytes(&t0), b1 = berth_type_bytes(&t1);
  void *o0 = malloc(b0 ? b0 : 1), *o1 = malloc(b1 ? b1 : 1);
  memset(o0, 0xA5, b0 ? b0 : 1);
  memset(o1, 0xA5, b1 ? b1 : 1);
  berth_tensor_ref_t ins[TC_MAX_IN], outs[2] = {{&out[0], o0}, {&out[1], o1}};
  for (int i = 0; i < c->n_in; i++) {
    ins[i].type = &c->in[i];
    ins[i].data = (void *)c->data[i];
  }
  berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, 2, NULL, 0};
  c->def->run(&call);
  int64_t bad = -1;
  CHECK_MSG(tc_values_equal(t0.dtype, berth_type_numel(&t0), o0, w0, 0, &bad), "line %d: values differ at %lld", line, (long long)bad);
  if (w1) /* NULL: a scratch output, not compared */
    CHECK_MSG(tc_values_equal(t1.dtype, berth_type_numel(&t1), o1, w1, 0, &bad), "line %d: indices differ at %lld", line,
              (long long)bad);
  free(o0);
  free(o1);
}

static void test_topk(void) {
  /* ties go to the lower index; NaN ranks above every number */
  const float x[] = {3, 1, 3, NAN, 1, 2};
  tcall_t c = tc_op(&berth_op_def_topk);
  tc_arg(&c, ty(F32, 1, 6), x);
  tc_int(&c, "k", 3);
  expect2(__LINE__, &c, ty(F32, 1, 3), (float[]){NAN, 3, 3}, ty(I64, 1, 3), (int64_t[]){3, 0, 2});
  tc_int(&c, "largest", 0);
  expect2(__LINE__, &c, ty(F32, 1, 3), (float[]){1, 1, 2}, ty(I64, 1, 3), (int64_t[]){1, 4, 5});
  tc_int(&c, "k", 6);
  expect2(__LINE__, &c, ty(F32, 1, 6), (float[]){1, 1, 2, 3, 3, NAN}, ty(I64, 1, 6), (int64_t[]){1, 4, 5, 0, 2, 3});
  tc_int(&c, "k", 0);
  expect2(__LINE__, &c, ty(F32, 1, 0), NULL, ty(I64, 1, 0), NULL);
  /* along axis 0, strided lines */
  c = tc_op(&berth_op_def_topk);
  tc_arg(&c, ty(I32, 2, 3, 2), (int32_t[]){5, 1, 7, 1, 5, 9});
  tc_int(&c, "axis", 0);
  tc_int(&c, "k", 2);
  expect2(__LINE__, &c, ty(I32, 2, 2, 2), (int32_t[]){7, 9, 5, 1}, ty(I64, 2, 2, 2), (int64_t[]){1, 2, 0, 0});
  tc_int(&c, "k", 4);
  EXPECT_REJECT(&c, "k is 4");
}

static void test_gather_nd(void) {
  const int32_t d[] = {0, 1, 2, 3, 4, 5, 6, 7};
  tcall_t c = tc_op(&berth_op_def_gather_nd);
  tc_arg(&c, ty(I32, 3, 2, 2, 2), d);
  tc_arg(&c, ty(I64, 2, 3, 2), (int64_t[]){1, 0, -1, -1, 0, 2});
  /* the last tuple is out of range: a slice of zeros (the importer's assert fails first) */
  EXPECT(&c, ty(I32, 2, 3, 2), ((int32_t[]){4, 5, 6, 7, 0, 0}));
  c = tc_op(&berth_op_def_gather_nd);
  tc_arg(&c, ty(I32, 3, 2, 2, 2), d);
  tc_arg(&c, ty(I64, 2, 2, 1), (int64_t[]){1, 0});
  tc_int(&c, "batch_dims", 1);
  EXPECT(&c, ty(I32, 2, 2, 2), ((int32_t[]){2, 3, 4, 5}));
  tc_arg(&c, ty(I64, 2, 3, 1), (int64_t[]){1, 0, 0}); /* a third operand */
  EXPECT_REJECT(&c, "operand");
  c = tc_op(&berth_op_def_gather_nd);
  tc_arg(&c, ty(I32, 3, 2, 2, 2), d);
  tc_arg(&c, ty(I64, 2, 3, 1), (int64_t[]){1, 0, 0});
  tc_int(&c, "batch_dims", 1);
  EXPECT_REJECT(&c, "batch dim 0");
  c = tc_op(&berth_op_def_gather_nd);
  tc_arg(&c, ty(I32, 3, 2, 0, 2), NULL);
  tc_arg(&c, ty(I64, 2, 1, 2), (int64_t[]){0, 0});
  EXPECT(&c, ty(I32, 2, 1, 2), ((int32_t[]){0, 0}));
}

static void test_scatter(void) {
  /* duplicates: none takes the last, add sums them; an out-of-range index is skipped */
  tcall_t c = tc_op(&berth_op_def_scatter_elements);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(I64, 2, 1, 3), (int64_t[]){2, 2, -3});
  tc_arg(&c, ty(F32, 2, 1, 3), (float[]){10, 20, 30});
  tc_int(&c, "axis", 1);
  EXPECT(&c, ty(F32, 2, 2, 3), ((float[]){30, 2, 20, 4, 5, 6}));
  tc_int(&c, "reduction", 1);
  EXPECT(&c, ty(F32, 2, 2, 3), ((float[]){31, 2, 33, 4, 5, 6}));
  tc_int(&c, "reduction", 4);
  EXPECT(&c, ty(F32, 2, 2, 3), ((float[]){1, 2, 3, 4, 5, 6}));
  c.data[1] = (int64_t[]){3, -4, 7};
  tc_int(&c, "reduction", 0);
  EXPECT(&c, ty(F32, 2, 2, 3), ((float[]){1, 2, 3, 4, 5, 6}));
  tc_int(&c, "reduction", 5);
  EXPECT_REJECT(&c, "reduction is 5");
  c = tc_op(&berth_op_def_scatter_elements);
  tc_arg(&c, ty(BOOL, 1, 2), (uint8_t[]){0, 0});
  tc_arg(&c, ty(I64, 1, 1), (int64_t[]){1});
  tc_arg(&c, ty(BOOL, 1, 1), (uint8_t[]){1});
  EXPECT(&c, ty(BOOL, 1, 2), ((uint8_t[]){0, 1}));
  tc_int(&c, "reduction", 1);
  EXPECT_REJECT(&c, "expected a numeric dtype");
  /* scatter_nd: slices, multiply, wrapping integers, a skipped tuple */
  c = tc_op(&berth_op_def_scatter_nd);
  tc_arg(&c, ty(I32, 2, 3, 2), (int32_t[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(I64, 2, 3, 1), (int64_t[]){-1, 0, 3});
  tc_arg(&c, ty(I32, 2, 3, 2), (int32_t[]){10, 20, 30, 40, 50, 60});
  tc_int(&c, "reduction", 2);
  EXPECT(&c, ty(I32, 2, 3, 2), ((int32_t[]){30, 80, 3, 4, 50, 120}));
  c = tc_op(&berth_op_def_scatter_nd);
  tc_arg(&c, ty(I32, 2, 3, 2), (int32_t[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(I64, 2, 1, 2), (int64_t[]){1, 1});
  tc_arg(&c, ty(I32, 1, 1), (int32_t[]){INT32_MAX});
  tc_int(&c, "reduction", 1);
  EXPECT(&c, ty(I32, 2, 3, 2), ((int32_t[]){1, 2, 3, INT32_MIN + 3, 5, 6}));
  c.in[2] = ty(I32, 1, 2);
  EXPECT_REJECT(&c, "expected i32[1]");
}

static void test_reverse_sequence(void) {
  const int32_t x[] = {0, 1, 2, 3, 4, 5, 6, 7}; /* [time 4, batch 2] */
  tcall_t c = tc_op(&berth_op_def_reverse_sequence);
  tc_arg(&c, ty(I32, 2, 4, 2), x);
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){3, 0});
  EXPECT(&c, ty(I32, 2, 4, 2), ((int32_t[]){4, 1, 2, 3, 0, 5, 6, 7}));
  /* lengths out of range are clamped (the importer's assert fails first) */
  c.data[1] = (int64_t[]){INT64_MAX, INT64_MIN};
  EXPECT(&c, ty(I32, 2, 4, 2), ((int32_t[]){6, 1, 4, 3, 2, 5, 0, 7}));
  tc_int(&c, "batch_axis", 0);
  tc_int(&c, "time_axis", 1);
  c.data[1] = (int64_t[]){2, 4, 0, 1}; /* batch 4 of 2 steps; 4 is clamped to 2 */
  EXPECT_REJECT(&c, "expected i64[4]");
  c.in[1] = ty(I64, 1, 4);
  EXPECT(&c, ty(I32, 2, 4, 2), ((int32_t[]){1, 0, 3, 2, 4, 5, 6, 7}));
  tc_int(&c, "time_axis", 0);
  EXPECT_REJECT(&c, "expected 0 and 1");
}

/* an einsum term from letters (a..z only here) */
static int64_t term(const char *t) {
  int64_t v = (int64_t)strlen(t);
  for (int k = 0; t[k]; k++) v |= (int64_t)(t[k] - 'a') << (4 + 6 * k);
  return v;
}

static void test_einsum(void) {
  /* matmul ij,jk->ik */
  tcall_t c = tc_op(&berth_op_def_einsum);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(F32, 2, 3, 1), (float[]){1, 0, -1});
  TC_INTS(&c, "terms", term("ij"), term("jk"));
  tc_int(&c, "output", term("ik"));
  EXPECT(&c, ty(F32, 2, 2, 1), ((float[]){-2, -2}));
  /* a diagonal (ii->i), its trace (ii->), a transpose (ij->ji) */
  const int32_t m[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  c = tc_op(&berth_op_def_einsum);
  tc_arg(&c, ty(I32, 2, 3, 3), m);
  TC_INTS(&c, "terms", term("ii"));
  tc_int(&c, "output", term("i"));
  EXPECT(&c, ty(I32, 1, 3), ((int32_t[]){1, 5, 9}));
  tc_int(&c, "output", term(""));
  EXPECT(&c, ty(I32, 0), ((int32_t[]){15}));
  TC_INTS(&c, "terms", term("ij"));
  tc_int(&c, "output", term("ji"));
  EXPECT(&c, ty(I32, 2, 3, 3), ((int32_t[]){1, 4, 7, 2, 5, 8, 3, 6, 9}));
  /* three operands, integers wrap, a summed label of size 0 gives 0 */
  c = tc_op(&berth_op_def_einsum);
  tc_arg(&c, ty(I32, 1, 2), (int32_t[]){65536, 2});
  tc_arg(&c, ty(I32, 1, 2), (int32_t[]){65536, 3});
  tc_arg(&c, ty(I32, 0), (int32_t[]){1});
  TC_INTS(&c, "terms", term("a"), term("a"), term(""));
  tc_int(&c, "output", term(""));
  EXPECT(&c, ty(I32, 0), ((int32_t[]){6}));
  c = tc_op(&berth_op_def_einsum);
  tc_arg(&c, ty(F64, 2, 2, 0), NULL);
  TC_INTS(&c, "terms", term("ab"));
  tc_int(&c, "output", term("a"));
  EXPECT(&c, ty(F64, 1, 2), ((double[]){0, 0}));
  /* rejections: sizes disagree, output label repeated or unknown, a term of the wrong rank */
  c = tc_op(&berth_op_def_einsum);
  tc_arg(&c, ty(F32, 1, 2), (float[]){1, 2});
  tc_arg(&c, ty(F32, 1, 3), (float[]){1, 2, 3});
  TC_INTS(&c, "terms", term("a"), term("a"));
  tc_int(&c, "output", term(""));
  EXPECT_REJECT(&c, "expected one size");
  TC_INTS(&c, "terms", term("a"), term("b"));
  tc_int(&c, "output", term("aa"));
  EXPECT_REJECT(&c, "repeats");
  tc_int(&c, "output", term("c"));
  EXPECT_REJECT(&c, "is in no operand");
  TC_INTS(&c, "terms", term("a"), term("bc"));
  tc_int(&c, "output", term(""));
  EXPECT_REJECT(&c, "names 2 dims");
  TC_INTS(&c, "terms", term("a"));
  EXPECT_REJECT(&c, "1 terms for 2 operands");
  TC_INTS(&c, "terms", term("a"), (int64_t)1 | ((int64_t)60 << 4));
  EXPECT_REJECT(&c, "has label 60");
}

static void test_det(void) {
  tcall_t c = tc_op(&berth_op_def_det);
  tc_arg(&c, ty(F64, 3, 3, 2, 2), (double[]){1, 2, 3, 4, 2, 4, 1, 2, 0, 1, 1, 0});
  berth_type_t w = ty(F64, 2, 2, 2);
  expect2(__LINE__, &c, ty(F64, 1, 3), (double[]){-2, 0, -1}, w, NULL);
  /* a pivot swap, f32 */
  c = tc_op(&berth_op_def_det);
  tc_arg(&c, ty(F32, 2, 3, 3), (float[]){0, 2, 0, 3, 0, 0, 0, 0, 4});
  expect2(__LINE__, &c, ty(F32, 0), (float[]){-24}, ty(F64, 2, 3, 3), NULL);
  /* 0 x 0 matrices have determinant 1 */
  c = tc_op(&berth_op_def_det);
  tc_arg(&c, ty(F32, 3, 2, 0, 0), NULL);
  expect2(__LINE__, &c, ty(F32, 1, 2), (float[]){1, 1}, ty(F64, 2, 0, 0), NULL);
  c = tc_op(&berth_op_def_det);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  EXPECT_REJECT(&c, "square");
  c = tc_op(&berth_op_def_det);
  tc_arg(&c, ty(I32, 2, 1, 1), (int32_t[]){1});
  EXPECT_REJECT(&c, "expected");
}

static void test_tensor_scatter(void) {
  /* cache [2 batches, 4 rows, 1], update of 2 rows at rows 1 and 3 (circular: 3, 0) */
  const float cache[] = {0, 0, 0, 0, 0, 0, 0, 0}, upd[] = {1, 2, 3, 4};
  tcall_t c = tc_op(&berth_op_def_tensor_scatter);
  tc_arg(&c, ty(F32, 3, 2, 4, 1), cache);
  tc_arg(&c, ty(F32, 3, 2, 2, 1), upd);
  tc_arg(&c, ty(I64, 1, 2), (int64_t[]){1, 2});
  EXPECT(&c, ty(F32, 3, 2, 4, 1), ((float[]){0, 1, 2, 0, 0, 0, 3, 4}));
  c.data[2] = (int64_t[]){3, 0};
  tc_int(&c, "circular", 1);
  EXPECT(&c, ty(F32, 3, 2, 4, 1), ((float[]){2, 0, 0, 1, 3, 4, 0, 0}));
  /* past the end (linear) or out of range: the rows that do not fit are skipped */
  tc_int(&c, "circular", 0);
  c.data[2] = (int64_t[]){3, -1};
  EXPECT(&c, ty(F32, 3, 2, 4, 1), ((float[]){0, 0, 0, 1, 0, 0, 0, 0}));
  tc_int(&c, "axis", 0);
  EXPECT_REJECT(&c, "an axis past the batch dim");
}

/* index_check: one bound for all, one per position of the last dim (GatherND's tuples), the
 * bounds' edges (lo in, hi out), INT64 extremes, an empty idx, and the rejections. */
static void test_index_check(void) {
  tcall_t c = tc_op(&berth_op_def_index_check);
  TC_INTS(&c, "lo", -3);
  TC_INTS(&c, "hi", 3);
  tc_arg(&c, ty(BERTH_DTYPE_I64, 2, 2, 2), (int64_t[]){-3, 2, 0, 1});
  EXPECT(&c, ty(BERTH_DTYPE_BOOL, 0), (uint8_t[]){1});
  int64_t bad[][4] = {{-3, 3, 0, 1}, {-4, 0, 0, 0}, {0, 0, 0, INT64_MAX}, {INT64_MIN, 0, 0, 0}};
  for (int k = 0; k < 4; k++) {
    c = tc_op(&berth_op_def_index_check);
    TC_INTS(&c, "lo", -3);
    TC_INTS(&c, "hi", 3);
    tc_arg(&c, ty(BERTH_DTYPE_I64, 2, 2, 2), bad[k]);
    EXPECT(&c, ty(BERTH_DTYPE_BOOL, 0), (uint8_t[]){0});
  }
  /* per last-dim position: [-2, 2) then [-5, 5) */
  c = tc_op(&berth_op_def_index_check);
  TC_INTS(&c, "lo", -2, -5);
  TC_INTS(&c, "hi", 2, 5);
  tc_arg(&c, ty(BERTH_DTYPE_I64, 2, 2, 2), (int64_t[]){1, 4, -2, -5});
  EXPECT(&c, ty(BERTH_DTYPE_BOOL, 0), (uint8_t[]){1});
  c = tc_op(&berth_op_def_index_check);
  TC_INTS(&c, "lo", -2, -5);
  TC_INTS(&c, "hi", 2, 5);
  tc_arg(&c, ty(BERTH_DTYPE_I64, 2, 2, 2), (int64_t[]){1, 4, 4, 1}); /* 4 is outside the first range */
  EXPECT(&c, ty(BERTH_DTYPE_BOOL, 0), (uint8_t[]){0});
  c = tc_op(&berth_op_def_index_check);
  TC_INTS(&c, "lo", 0);
  TC_INTS(&c, "hi", 0);
  tc_arg(&c, ty(BERTH_DTYPE_I64, 1, 0), NULL);
  EXPECT(&c, ty(BERTH_DTYPE_BOOL, 0), (uint8_t[]){1});
  /* rejections */
  c = tc_op(&berth_op_def_index_check);
  TC_INTS(&c, "lo", 0);
  TC_INTS(&c, "hi", 3);
  tc_arg(&c, ty(BERTH_DTYPE_I32, 1, 2), NULL);
  EXPECT_REJECT(&c, "has dtype i32, expected i64");
  c = tc_op(&berth_op_def_index_check);
  TC_INTS(&c, "lo", 0, 0);
  TC_INTS(&c, "hi", 3);
  tc_arg(&c, ty(BERTH_DTYPE_I64, 1, 2), NULL);
  EXPECT_REJECT(&c, "2 lower and 1 upper bounds");
  c = tc_op(&berth_op_def_index_check);
  TC_NO_INTS(&c, "lo");
  TC_NO_INTS(&c, "hi");
  tc_arg(&c, ty(BERTH_DTYPE_I64, 1, 2), NULL);
  EXPECT_REJECT(&c, "at least 1");
  c = tc_op(&berth_op_def_index_check);
  TC_INTS(&c, "lo", 0, 0, 0);
  TC_INTS(&c, "hi", 3, 3, 3);
  tc_arg(&c, ty(BERTH_DTYPE_I64, 2, 4, 2), NULL);
  EXPECT_REJECT(&c, "one per element of the last dim");
}

int main(void) {
  test_einsum();
  test_det();
  test_tensor_scatter();
  test_topk();
  test_gather_nd();
  test_scatter();
  test_reverse_sequence();
  test_cumulative();
  test_trilu();
  test_prod();
  test_argmin();
  test_index_check();
  return test_finish("test_kernel_index");
}
