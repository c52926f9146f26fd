/* The math family's ONNX translations (onnx_ops_math.c) where the suite does not reach
 * them: BitCast of float16 and bfloat16 (held in f32) to and from their bits, PRelu's
 * per-channel slope before opset 7, Hardmax's 2-D form before opset 13 and its axis form
 * after, and the one-line refusals (a slope that does not broadcast to X, an unknown
 * direction or approximation, a bitcast of a float8). Each model runs planned (with the
 * sanitizer) and in the reference interpreter; outputs must equal the expected bytes. */
#define _POSIX_C_SOURCE 200809L
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fuzzgen/onnx_build.h"
#include "onnx_run.h"
#pragma GCC diagnostic pop
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ONNX_U16 = 4, ONNX_I16 = 5, ONNX_BF16 = 16, ONNX_F8E4M3FN = 17 };

static void attr_s(ob_t *b, Onnx__NodeProto *n, const char *name, const char *v) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  a->has_s = 1;
  a->s.data = (uint8_t *)ob_str(b, v, strlen(v));
  a->s.len = strlen(v);
}

/* Imports, runs planned and in the reference interpreter, compares each output's bytes. */
static void run_model(const char *name, const uint8_t *bytes, size_t len, const void *const *inputs, int n_out,
                      const void *const *want, const size_t *want_bytes) {
  onnx_want_t w = {n_out, want, want_bytes, -1, false};
  onnx_expect_outputs(name, bytes, len, NULL, ONNX_BOTH, inputs, &w);
}

/* float16 -> uint16 bits, the bits back to float16, and float16 bits read as bfloat16 */
static void test_bitcast_f16(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "4");
  ob_attr_i(&b, ob_node(&b, g, "Cast", "x", "h"), "to", ONNX_F16);
  ob_attr_i(&b, ob_node(&b, g, "BitCast", "h", "bits"), "to", ONNX_U16);
  ob_attr_i(&b, ob_node(&b, g, "BitCast", "bits", "h2"), "to", ONNX_F16);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "h2", "back"), "to", ONNX_F);
  ob_attr_i(&b, ob_node(&b, g, "BitCast", "h", "bf"), "to", ONNX_BF16);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "bf", "bff"), "to", ONNX_F);
  ob_output(&b, g, "bits", ONNX_U16, "4");
  ob_output(&b, g, "back", ONNX_F, "4");
  ob_output(&b, g, "bff", ONNX_F, "4");
  size_t len;
  uint8_t *m = ob_model(&b, g, 26, &len);
  const float x[4] = {1, -2, 0.1f, 65504};
  const uint16_t bits[4] = {0x3C00, 0xC000, 0x2E66, 0x7BFF};
  const float back[4] = {1, -2, 0.0999755859375f, 65504};
  float bff[4];
  for (int i = 0; i < 4; i++) {
    uint32_t w = (uint32_t)bits[i] << 16;
    memcpy(&bff[i], &w, 4);
  }
  const void *in[] = {x};
  const void *want[] = {bits, back, bff};
  const size_t sizes[] = {sizeof bits, sizeof back, sizeof bff};
  run_model("bitcast float16", m, len, in, 3, want, sizes);
  ob_deinit(&b);

  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "4");
  ob_attr_i(&b, ob_node(&b, g, "Cast", "x", "h"), "to", ONNX_F16);
  ob_attr_i(&b, ob_node(&b, g, "BitCast", "h", "y"), "to", ONNX_I32);
  ob_output(&b, g, "y", ONNX_I32, "4");
  m = ob_model(&b, g, 26, &len);
  onnx_expect_fail("bitcast float16 to int32", m, len, NULL, BERTH_OK, "expected f32 to i16/u16");
  ob_deinit(&b);

  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_U8, "4");
  ob_attr_i(&b, ob_node(&b, g, "BitCast", "x", "y"), "to", ONNX_F8E4M3FN);
  ob_attr_i(&b, ob_node(&b, g, "Cast", "y", "z"), "to", ONNX_F);
  ob_output(&b, g, "z", ONNX_F, "4");
  m = ob_model(&b, g, 26, &len);
  onnx_expect_fail("bitcast to float8", m, len, NULL, BERTH_OK, "bitcasts only float16 and bfloat16");
  ob_deinit(&b);
}

/* PRelu-6: a 1-D slope of X's channel count is per channel; PRelu-9 broadcasts as numpy */
static void test_prelu_forms(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "1,2,3");
  ob_const(&b, g, "s", ONNX_F, "2", "0.5,2");
  ob_node(&b, g, "PRelu", "x,s", "y");
  ob_output(&b, g, "y", ONNX_F, "1,2,3");
  size_t len;
  uint8_t *m = ob_model(&b, g, 6, &len);
  const float x[6] = {-1, 1, -4, -1, 1, -4};
  const float y[6] = {-0.5f, 1, -2, -2, 1, -8};
  const void *in[] = {x};
  const void *want[] = {y};
  const size_t sizes[] = {sizeof y};
  run_model("prelu-6 per channel", m, len, in, 1, want, sizes);
  ob_deinit(&b);

  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2,3");
  ob_const(&b, g, "s", ONNX_F, "2,1,3", "1,2,3,4,5,6");
  ob_node(&b, g, "PRelu", "x,s", "y");
  ob_output(&b, g, "y", ONNX_F, "2,2,3");
  m = ob_model(&b, g, 16, &len);
  onnx_expect_fail("prelu slope wider than X", m, len, NULL, BERTH_OK, "does not broadcast to X");
  ob_deinit(&b);
}

/* Hardmax-11 flattens from axis 1 (default); Hardmax-13 takes the last axis (default) */
static void test_hardmax_forms(void) {
  const float x[8] = {1, 2, 3, 0, 9, 9, 9, 9};
  const float y11[8] = {0, 0, 1, 0, 1, 0, 0, 0}, y13[8] = {0, 1, 1, 0, 1, 0, 1, 0};
  for (int k = 0; k < 2; k++) {
    ob_t b;
    ob_init(&b);
    Onnx__GraphProto *g = ob_graph(&b, "main");
    ob_input(&b, g, "x", ONNX_F, "2,2,2");
    ob_node(&b, g, "Hardmax", "x", "y");
    ob_output(&b, g, "y", ONNX_F, "2,2,2");
    size_t len;
    uint8_t *m = ob_model(&b, g, k ? 13 : 11, &len);
    const void *in[] = {x};
    const void *want[] = {k ? y13 : y11};
    const size_t sizes[] = {sizeof y11};
    run_model(k ? "hardmax-13" : "hardmax-11", m, len, in, 1, want, sizes);
    ob_deinit(&b);
  }
}

static void test_refusals(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_U8, "2");
  attr_s(&b, ob_node(&b, g, "BitShift", "x,x", "y"), "direction", "UP");
  ob_output(&b, g, "y", ONNX_U8, "2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 11, &len);
  onnx_expect_fail("bitshift UP", m, len, NULL, BERTH_OK, "direction 'UP', expected 'LEFT' or 'RIGHT'");
  ob_deinit(&b);

  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  attr_s(&b, ob_node(&b, g, "Gelu", "x", "y"), "approximate", "fast");
  ob_output(&b, g, "y", ONNX_F, "2");
  m = ob_model(&b, g, 20, &len);
  onnx_expect_fail("gelu fast", m, len, NULL, BERTH_OK, "approximate 'fast', expected 'none' or 'tanh'");
  ob_deinit(&b);

  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_I32, "2");
  ob_node(&b, g, "Sin", "x", "y");
  ob_output(&b, g, "y", ONNX_I32, "2");
  m = ob_model(&b, g, 13, &len);
  onnx_expect_fail("sin of int32", m, len, NULL, BERTH_OK, "(Sin, opset 13)");
  ob_deinit(&b);
}

int main(void) {
  test_bitcast_f16();
  test_prelu_forms();
  test_hardmax_forms();
  test_refusals();
  return test_finish("test_onnx_math");
}
