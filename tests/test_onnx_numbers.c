/* Numbers from an ONNX file that the importer converts: every conversion either keeps the
 * value exactly, saturates where ONNX says so, or refuses with a one-line message naming
 * the node and the attribute or operand. Each case was a silent wrong result or undefined
 * behaviour before (a Clip-6 min of 3e9 on int32 was a no-op; a Loop's M of INT64_MAX or
 * NaN went through a double; Concat's axis 1e30 as a float; an int64 Range or Pad value
 * past 2^53 lost its low bits; int32_data of 300 for an int8 wrapped to 44).
 *
 * `test_onnx_numbers --write-corpus DIR` writes the models as DIR/num_NAME.onnx. */
#define _POSIX_C_SOURCE 200809L
#include "fuzzgen/onnx_build.h"
#include "onnx_run.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *corpus_dir;

static void save(const char *name, const uint8_t *bytes, size_t len) {
  if (!corpus_dir) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/num_%s.onnx", corpus_dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(bytes, 1, len, f);
  fclose(f);
}

static void attr_f(ob_t *b, Onnx__NodeProto *n, const char *name, float v) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  a->has_f = 1;
  a->f = v;
}

/* onnx_expect_fail (onnx_run.h), after saving the model for the corpus. */
static void expect_fail(const char *name, const uint8_t *bytes, size_t len, berth_status_t want, const char *needle) {
  save(name, bytes, len);
  onnx_expect_fail(name, bytes, len, NULL, want, needle);
}

/* onnx_expect_run (onnx_run.h), after saving the model for the corpus. */
static void expect_run(const char *name, const uint8_t *bytes, size_t len, const void *const *inputs, const void *want,
                       size_t want_bytes) {
  save(name, bytes, len);
  onnx_expect_run(name, bytes, len, inputs, want, want_bytes);
}

/* Clip-6 (bounds are float attributes) on an int32 input. */
static uint8_t *clip6(ob_t *b, const float *lo, const float *hi, size_t *len) {
  Onnx__GraphProto *g = ob_graph(b, "main");
  ob_input(b, g, "x", ONNX_I32, "3");
  Onnx__NodeProto *n = ob_node(b, g, "Clip", "x", "y");
  if (lo) attr_f(b, n, "min", *lo);
  if (hi) attr_f(b, n, "max", *hi);
  ob_output(b, g, "y", ONNX_I32, "3");
  return ob_model(b, g, 6, len);
}

static void test_clip6_int(void) {
  int32_t x[3] = {-7, 3, 9};
  const void *in[] = {x};
  size_t len;
  ob_t b;
  /* min above every int32: no result fits (was: the input unchanged) */
  ob_init(&b);
  float big = 3e9f, nan_ = NAN, neg = -3e9f, lo = -2.5f, hi = 5.5f;
  uint8_t *m = clip6(&b, &big, NULL, &len);
  expect_fail("clip6_min_3e9", m, len, BERTH_ERR_OUT_OF_RANGE, "attribute 'min' is 3e9");
  ob_deinit(&b);
  ob_init(&b);
  m = clip6(&b, NULL, &neg, &len);
  expect_fail("clip6_max_neg3e9", m, len, BERTH_ERR_OUT_OF_RANGE, "attribute 'max' is -3e9");
  ob_deinit(&b);
  ob_init(&b);
  m = clip6(&b, &nan_, NULL, &len);
  expect_fail("clip6_min_nan", m, len, BERTH_ERR_INVALID_ARGUMENT, "attribute 'min' is NaN");
  ob_deinit(&b);
  /* bounds past the range on the side they do not clamp clamp nothing; fractions round
   * inward (min up, max down) */
  ob_init(&b);
  m = clip6(&b, &neg, &big, &len);
  expect_run("clip6_wide", m, len, in, x, sizeof x);
  ob_deinit(&b);
  ob_init(&b);
  m = clip6(&b, &lo, &hi, &len);
  int32_t want[3] = {-2, 3, 5};
  expect_run("clip6_fraction", m, len, in, want, sizeof want);
  ob_deinit(&b);
}

/* Loop with a scan output (so its trip count must be known) and a constant M. */
static uint8_t *loop_m(ob_t *b, int elem, const char *m_val, size_t *len) {
  Onnx__GraphProto *body = ob_graph(b, "body");
  ob_input(b, body, "i", ONNX_I64, "");
  ob_input(b, body, "cin", ONNX_BOOL, "");
  ob_input(b, body, "v", ONNX_F, "1");
  ob_node(b, body, "Identity", "cin", "cout");
  ob_node(b, body, "Add", "v,v", "v2");
  ob_output(b, body, "cout", ONNX_BOOL, "");
  ob_output(b, body, "v2", ONNX_F, "1");
  ob_output(b, body, "v2", ONNX_F, "1");
  Onnx__GraphProto *g = ob_graph(b, "main");
  ob_input(b, g, "v0", ONNX_F, "1");
  ob_const(b, g, "M", elem, "", m_val);
  Onnx__NodeProto *n = ob_node(b, g, "Loop", "M,,v0", "vf,ys");
  ob_attr_g(b, n, "body", body);
  ob_output(b, g, "vf", ONNX_F, "1");
  ob_output(b, g, "ys", ONNX_F, "?,1");
  return ob_model(b, g, 17, len);
}

static void test_loop_trip_count(void) {
  size_t len;
  ob_t b;
  ob_init(&b);
  uint8_t *m = loop_m(&b, ONNX_I64, "9223372036854775807", &len);
  /* was: a double rounded to 2^63, converted with undefined behaviour, "not known" */
  expect_fail("loop_m_int64_max", m, len, BERTH_ERR_OUT_OF_RANGE, "trip count 9223372036854775807 is over berth's cap");
  ob_deinit(&b);
  ob_init(&b);
  m = loop_m(&b, ONNX_F64, "nan", &len);
  expect_fail("loop_m_nan_double", m, len, BERTH_ERR_INVALID_ARGUMENT, "the trip count M has dtype f64, expected int64");
  ob_deinit(&b);
  ob_init(&b);
  m = loop_m(&b, ONNX_I64, "3", &len);
  float v0 = 1, want = 8;
  const void *in[] = {&v0};
  expect_run("loop_m_3", m, len, in, &want, sizeof want);
  ob_deinit(&b);
}

/* INT attributes written as floats: exact integers only. */
static void test_int_attr_as_float(void) {
  size_t len;
  ob_t b;
  float vals[] = {1e30f, NAN, 1.5f, -INFINITY};
  const char *names[] = {"concat_axis_1e30", "concat_axis_nan", "concat_axis_1_5", "concat_axis_minus_inf"};
  const char *needles[] = {"attribute 'axis' is 1e30, expected an integer", "attribute 'axis' is nan, expected an integer",
                           "attribute 'axis' is 1.5, expected an integer", "attribute 'axis' is -inf, expected an integer"};
  for (int k = 0; k < 4; k++) {
    ob_init(&b);
    Onnx__GraphProto *g = ob_graph(&b, "main");
    ob_input(&b, g, "x", ONNX_F, "1,2");
    Onnx__NodeProto *n = ob_node(&b, g, "Concat", "x,x", "y");
    attr_f(&b, n, "axis", vals[k]);
    ob_output(&b, g, "y", ONNX_F, "?,?");
    uint8_t *m = ob_model(&b, g, 13, &len);
    expect_fail(names[k], m, len, BERTH_ERR_INVALID_ARGUMENT, needles[k]);
    ob_deinit(&b);
  }
  /* an exact integer as a float is accepted */
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "1,2");
  Onnx__NodeProto *n = ob_node(&b, g, "Concat", "x,x", "y");
  attr_f(&b, n, "axis", 1.0f);
  ob_output(&b, g, "y", ONNX_F, "1,4");
  uint8_t *m = ob_model(&b, g, 13, &len);
  float x[2] = {1, 2}, want[4] = {1, 2, 1, 2};
  const void *in[] = {x};
  expect_run("concat_axis_1_0", m, len, in, want, sizeof want);
  ob_deinit(&b);
  /* Cast's 'to' past int32 (was: truncated to 1, a cast to float) */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_I32, "2");
  n = ob_node(&b, g, "Cast", "x", "y");
  ob_attr_i(&b, n, "to", ((int64_t)1 << 32) + 1);
  ob_output(&b, g, "y", ONNX_F, "2");
  m = ob_model(&b, g, 13, &len);
  expect_fail("cast_to_2p32", m, len, BERTH_ERR_INVALID_ARGUMENT, "attribute 'to' is 4294967297");
  ob_deinit(&b);
}

/* int64 values past 2^53 stay exact (they went through a double). */
static void test_int64_exact(void) {
  size_t len;
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_I64, "1");
  ob_const(&b, g, "s", ONNX_I64, "", "-4611686018427387904"); /* -2^62 */
  ob_const(&b, g, "l", ONNX_I64, "", "-4611686018427387901");
  ob_const(&b, g, "d", ONNX_I64, "", "1");
  ob_node(&b, g, "Range", "s,l,d", "r");
  ob_node(&b, g, "Add", "r,x", "y");
  ob_output(&b, g, "y", ONNX_I64, "3");
  uint8_t *m = ob_model(&b, g, 13, &len);
  int64_t x = 0, want[3] = {-4611686018427387904LL, -4611686018427387903LL, -4611686018427387902LL};
  const void *in[] = {&x};
  expect_run("range_int64_2p62", m, len, in, want, sizeof want);
  ob_deinit(&b);
  /* a Range over the whole int64 line: counted without overflow, then over the cap */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_const(&b, g, "s", ONNX_I64, "", "-9223372036854775808");
  ob_const(&b, g, "l", ONNX_I64, "", "9223372036854775807");
  ob_const(&b, g, "d", ONNX_I64, "", "4611686018427387904");
  ob_node(&b, g, "Range", "s,l,d", "y");
  ob_output(&b, g, "y", ONNX_I64, "4");
  m = ob_model(&b, g, 13, &len);
  int64_t want4[4] = {INT64_MIN, -4611686018427387904LL, 0, 4611686018427387904LL};
  expect_run("range_int64_full", m, len, NULL, want4, sizeof want4);
  ob_deinit(&b);
  /* Pad with an int64 constant_value of 2^62 + 1 */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_I64, "1");
  ob_const(&b, g, "p", ONNX_I64, "2", "1,0");
  ob_const(&b, g, "v", ONNX_I64, "", "4611686018427387905");
  ob_node(&b, g, "Pad", "x,p,v", "y");
  ob_output(&b, g, "y", ONNX_I64, "2");
  m = ob_model(&b, g, 13, &len);
  int64_t x1 = 7, want2[2] = {4611686018427387905LL, 7};
  const void *in1[] = {&x1};
  expect_run("pad_int64_2p62", m, len, in1, want2, sizeof want2);
  ob_deinit(&b);
  /* affine offsets of loop-counter-like values: no signed overflow at import (UBSan) */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_I64, "1");
  ob_const(&b, g, "big", ONNX_I64, "1", "9223372036854775807");
  ob_const(&b, g, "min", ONNX_I64, "1", "-9223372036854775808");
  ob_node(&b, g, "Add", "x,big", "a");
  ob_node(&b, g, "Add", "a,big", "c");
  ob_node(&b, g, "Sub", "c,min", "y");
  ob_output(&b, g, "y", ONNX_I64, "1");
  m = ob_model(&b, g, 13, &len);
  int64_t x2 = 2, want1 = (int64_t)((uint64_t)2 + 2 * (uint64_t)INT64_MAX + ((uint64_t)1 << 63));
  const void *in2[] = {&x2};
  expect_run("affine_overflow", m, len, in2, &want1, sizeof want1);
  ob_deinit(&b);
}

static void test_attr_ranges(void) {
  size_t len;
  ob_t b;
  /* Conv auto_pad SAME with a stride of INT64_MAX (overflowed in the padding arithmetic) */
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "1,1,4");
  ob_init_tensor(&b, g, "w", ONNX_F, "1,1,2", "1,1");
  Onnx__NodeProto *n = ob_node(&b, g, "Conv", "x,w", "y");
  ob_attr_ints(&b, n, "strides", "9223372036854775807");
  Onnx__AttributeProto *a = ob_attr(&b, n, "auto_pad", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  a->has_s = 1;
  a->s.data = (uint8_t *)ob_str(&b, "SAME_UPPER", 10);
  a->s.len = 10;
  ob_output(&b, g, "y", ONNX_F, "1,1,1");
  uint8_t *m = ob_model(&b, g, 13, &len);
  expect_fail("conv_stride_int64_max", m, len, BERTH_ERR_INVALID_ARGUMENT, "attribute 'strides' [0] is 9223372036854775807");
  ob_deinit(&b);
  /* LSTM hidden_size of 2^62 (8 * hidden_size overflowed) */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "X", ONNX_F, "1,1,2");
  ob_init_tensor(&b, g, "W", ONNX_F, "1,4,2", "0,0,0,0,0,0,0,0");
  ob_init_tensor(&b, g, "R", ONNX_F, "1,4,1", "0,0,0,0");
  n = ob_node(&b, g, "LSTM", "X,W,R", "Y");
  ob_attr_i(&b, n, "hidden_size", (int64_t)1 << 62);
  ob_output(&b, g, "Y", ONNX_F, "1,1,1,1");
  m = ob_model(&b, g, 14, &len);
  expect_fail("lstm_hidden_2p62", m, len, BERTH_ERR_INVALID_ARGUMENT, "attribute 'hidden_size' is 4611686018427387904");
  ob_deinit(&b);
}

/* TensorProto values that are no value of their type. */
static void test_tensor_values(void) {
  size_t len;
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_init_tensor(&b, g, "k", ONNX_I8, "2", "1,300");
  ob_node(&b, g, "Identity", "k", "y");
  ob_output(&b, g, "y", ONNX_I8, "2");
  uint8_t *m = ob_model(&b, g, 13, &len);
  expect_fail("int8_int32_data_300", m, len, BERTH_ERR_CORRUPT_DATA, "int32_data[1] is 300, which is no int8 value");
  ob_deinit(&b);
  ob_init(&b);
  g = ob_graph(&b, "main");
  Onnx__TensorProto *t = ob_tensor(&b, "k", ONNX_I8, "1", "0");
  t->data_type = 12; /* uint32: values in uint64_data */
  t->n_int32_data = 0;
  t->uint64_data = ob_alloc(&b, sizeof(uint64_t));
  t->uint64_data[0] = (uint64_t)1 << 33;
  t->n_uint64_data = 1;
  OB_PUSH(&b, g->initializer, g->n_initializer, t);
  ob_node(&b, g, "Identity", "k", "y");
  ob_output(&b, g, "y", 12, "1");
  m = ob_model(&b, g, 13, &len);
  expect_fail("uint32_uint64_data_2p33", m, len, BERTH_ERR_CORRUPT_DATA, "uint64_data[0] is 8589934592, which is no uint32");
  ob_deinit(&b);
}

/* Dropout in training mode draws random masks: refused, except with ratio 0 (the identity). */
static void test_dropout_training(void) {
  size_t len;
  ob_t b;
  float x[2] = {1, 2};
  const void *in[] = {x};
  for (int k = 0; k < 3; k++) {
    ob_init(&b);
    Onnx__GraphProto *g = ob_graph(&b, "main");
    ob_input(&b, g, "x", ONNX_F, "2");
    ob_const(&b, g, "r", ONNX_F, "", k == 1 ? "0" : "0.5");
    ob_const(&b, g, "t", ONNX_BOOL, "", k == 2 ? "0" : "1");
    ob_node(&b, g, "Dropout", "x,r,t", "y");
    ob_output(&b, g, "y", ONNX_F, "2");
    uint8_t *m = ob_model(&b, g, 13, &len);
    if (k == 0) expect_fail("dropout_training", m, len, BERTH_ERR_UNIMPLEMENTED, "training_mode is true with ratio 0.5");
    else expect_run(k == 1 ? "dropout_training_ratio0" : "dropout_inference", m, len, in, x, sizeof x);
    ob_deinit(&b);
  }
  /* Dropout-6 with is_test given as 0 */
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  Onnx__NodeProto *n = ob_node(&b, g, "Dropout", "x", "y");
  ob_attr_i(&b, n, "is_test", 0);
  ob_output(&b, g, "y", ONNX_F, "2");
  uint8_t *m = ob_model(&b, g, 6, &len);
  expect_fail("dropout6_is_test_0", m, len, BERTH_ERR_UNIMPLEMENTED, "training_mode is true");
  ob_deinit(&b);
  /* Dropout-1..6 without is_test: its default 0 is training mode; is_test 1 is inference */
  for (int k = 0; k < 2; k++) {
    ob_init(&b);
    g = ob_graph(&b, "main");
    ob_input(&b, g, "x", ONNX_F, "2");
    n = ob_node(&b, g, "Dropout", "x", "y");
    if (k) ob_attr_i(&b, n, "is_test", 1);
    ob_output(&b, g, "y", ONNX_F, "2");
    m = ob_model(&b, g, k ? 1 : 6, &len);
    if (k) expect_run("dropout1_is_test_1", m, len, in, x, sizeof x);
    else expect_fail("dropout6_no_is_test", m, len, BERTH_ERR_UNIMPLEMENTED, "is_test is 0, its default before opset 7");
    ob_deinit(&b);
  }
  /* the mask of Dropout-7 is of x's type (bool from Dropout-10 on) */
  for (int opset = 7; opset <= 22; opset += 3) {
    ob_init(&b);
    g = ob_graph(&b, "main");
    ob_input(&b, g, "x", ONNX_F, "2");
    ob_node(&b, g, "Dropout", "x", "y,z");
    ob_output(&b, g, "z", opset < 10 ? ONNX_F : ONNX_BOOL, "2");
    m = ob_model(&b, g, opset, &len);
    float ones[2] = {1, 1};
    uint8_t bones[2] = {1, 1};
    char name[32];
    snprintf(name, sizeof name, "dropout%d_mask", opset);
    expect_run(name, m, len, in, opset < 10 ? (const void *)ones : (const void *)bones, opset < 10 ? sizeof ones : 2);
    ob_deinit(&b);
  }
  /* training_mode computed from constants folds (Not(false) is training; Not(true) is not),
   * at opsets 12, 13 and 22; a training_mode graph input is refused */
  static const int64_t opsets[] = {12, 13, 22};
  for (int o = 0; o < 3; o++)
    for (int k = 0; k < 3; k++) {
      ob_init(&b);
      g = ob_graph(&b, "main");
      ob_input(&b, g, "x", ONNX_F, "2");
      if (k == 2) {
        ob_input(&b, g, "t", ONNX_BOOL, "");
      } else {
        ob_const(&b, g, "t0", ONNX_BOOL, "", k ? "1" : "0");
        ob_node(&b, g, "Not", "t0", "t");
      }
      ob_const(&b, g, "r", ONNX_F, "", "0.25");
      ob_node(&b, g, "Dropout", "x,r,t", "y");
      ob_output(&b, g, "y", ONNX_F, "2");
      m = ob_model(&b, g, opsets[o], &len);
      char name[48];
      snprintf(name, sizeof name, "dropout%d_training_%s", (int)opsets[o], k == 0 ? "folded" : k == 1 ? "off" : "input");
      if (k == 1) expect_run(name, m, len, in, x, sizeof x);
      else
        expect_fail(name, m, len, BERTH_ERR_UNIMPLEMENTED,
                    k == 0 ? "training_mode is true with ratio 0.25" : "training_mode (Dropout in training mode drops at "
                                                                       "random) must be known at compile time, but it "
                                                                       "depends on graph input 't'");
      ob_deinit(&b);
    }
}

/* ReduceMax / ReduceMin over an empty set give the spec's -inf / +inf; over bool, any / all. */
static void test_reduce_edges(void) {
  size_t len;
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_init_tensor(&b, g, "x", ONNX_F, "2,0", "");
  ob_const(&b, g, "ax", ONNX_I64, "1", "1");
  Onnx__NodeProto *n = ob_node(&b, g, "ReduceMax", "x,ax", "y");
  ob_attr_i(&b, n, "keepdims", 0);
  ob_output(&b, g, "y", ONNX_F, "2");
  uint8_t *m = ob_model(&b, g, 18, &len);
  float ninf[2] = {-INFINITY, -INFINITY};
  expect_run("reduce_max_empty", m, len, NULL, ninf, sizeof ninf);
  ob_deinit(&b);
  for (int mx = 0; mx < 2; mx++) {
    ob_init(&b);
    g = ob_graph(&b, "main");
    ob_input(&b, g, "x", ONNX_BOOL, "2,2");
    ob_const(&b, g, "ax", ONNX_I64, "1", "1");
    n = ob_node(&b, g, mx ? "ReduceMax" : "ReduceMin", "x,ax", "y");
    ob_attr_i(&b, n, "keepdims", 0);
    ob_output(&b, g, "y", ONNX_BOOL, "2");
    m = ob_model(&b, g, 20, &len);
    uint8_t x[4] = {1, 0, 0, 0}, any[2] = {1, 0}, all[2] = {0, 0};
    const void *in[] = {x};
    expect_run(mx ? "reduce_max_bool" : "reduce_min_bool", m, len, in, mx ? any : all, 2);
    ob_deinit(&b);
  }
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0) corpus_dir = argv[2];
  test_clip6_int();
  test_loop_trip_count();
  test_int_attr_as_float();
  test_int64_exact();
  test_attr_ranges();
  test_tensor_values();
  test_dropout_training();
  test_reduce_edges();
  return test_finish("test_onnx_numbers");
}
