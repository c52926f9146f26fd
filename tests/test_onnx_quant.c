/* The quant family's ONNX translations where the suite does not look: QuantizeLinear's
 * precision attribute (the division in float16), output_dtype against the zero point,
 * float8 zero points that are not zero, ConvInteger kernels whose int32 sums might
 * overflow, DFT's onesided on a complex signal, a window of integer type. */
#include "fuzzgen/onnx_build.h"
#include "onnx_run.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

enum { ONNX_I16 = 5, ONNX_F8E4M3FN = 17 };

/* QuantizeLinear-23 of 2049.25 to int16: 2049 in float32 precision, 2050 with precision
 * float16 (x is rounded to float16 first). */
static void test_precision(void) {
  float x[1] = {2049.25f};
  const void *in[] = {x};
  for (int k = 0; k < 2; k++) {
    ob_t b;
    ob_init(&b);
    Onnx__GraphProto *g = ob_graph(&b, "main");
    ob_input(&b, g, "x", ONNX_F, "1");
    ob_const(&b, g, "s", ONNX_F, "", "1");
    ob_const(&b, g, "z", ONNX_I16, "", "0");
    Onnx__NodeProto *n = ob_node(&b, g, "QuantizeLinear", "x,s,z", "y");
    if (k) ob_attr_i(&b, n, "precision", ONNX_F16);
    ob_output(&b, g, "y", ONNX_I16, "1");
    size_t len;
    uint8_t *m = ob_model(&b, g, 23, &len);
    int16_t want[1] = {k ? 2050 : 2049};
    onnx_expect_run(k ? "quantize_precision_f16" : "quantize_precision_f32", m, len, in, want, sizeof want);
    ob_deinit(&b);
  }
}

static void test_refusals(void) {
  ob_t b;
  size_t len;
  /* output_dtype int8 with a uint8 zero point */
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_const(&b, g, "s", ONNX_F, "", "1");
  ob_const(&b, g, "z", ONNX_U8, "", "0");
  Onnx__NodeProto *n = ob_node(&b, g, "QuantizeLinear", "x,s,z", "y");
  ob_attr_i(&b, n, "output_dtype", ONNX_I8);
  ob_output(&b, g, "y", ONNX_U8, "2");
  uint8_t *m = ob_model(&b, g, 21, &len);
  onnx_expect_fail("quantize_output_dtype", m, len, NULL, BERTH_OK,
      "output_dtype 3 does not match the zero point's type uint8");
  ob_deinit(&b);
  /* a float8 zero point of 1.0 (0x38) */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_const(&b, g, "s", ONNX_F, "", "1");
  ob_const(&b, g, "z", ONNX_F8E4M3FN, "", "56");
  ob_node(&b, g, "QuantizeLinear", "x,s,z", "y");
  ob_output(&b, g, "y", ONNX_F8E4M3FN, "2");
  m = ob_model(&b, g, 21, &len);
  onnx_expect_fail("quantize_f8_zero_point", m, len, NULL, BERTH_OK,
      "the zero point of type float8e4m3fn is 1 at element 0; berth takes only zero");
  ob_deinit(&b);
  /* ConvInteger with 64 x 32 x 32 products per output: the int32 sum might overflow */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_U8, "1,64,32,32");
  ob_input(&b, g, "w", ONNX_U8, "1,64,32,32");
  ob_node(&b, g, "ConvInteger", "x,w", "y");
  ob_output(&b, g, "y", ONNX_I32, "1,1,1,1");
  m = ob_model(&b, g, 10, &len);
  onnx_expect_fail("conv_integer_overflow", m, len, NULL, BERTH_OK,
      "65536 products per output may overflow the int32 sum");
  ob_deinit(&b);
  /* onesided on a complex signal */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "1,4,2");
  n = ob_node(&b, g, "DFT", "x", "y");
  ob_attr_i(&b, n, "onesided", 1);
  ob_output(&b, g, "y", ONNX_F, "1,3,2");
  m = ob_model(&b, g, 17, &len);
  onnx_expect_fail("dft_onesided_complex", m, len, NULL, BERTH_OK, "onesided is set for a complex signal");
  ob_deinit(&b);
}

/* HannWindow of 4 as int32 (truncated toward zero, as the reference's astype): all 0 but the
 * middle 1 of the symmetric window of 3 */
static void test_int_window(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_const(&b, g, "n", ONNX_I64, "", "3");
  Onnx__NodeProto *n = ob_node(&b, g, "HannWindow", "n", "y");
  ob_attr_i(&b, n, "output_datatype", ONNX_I32);
  ob_attr_i(&b, n, "periodic", 0);
  ob_output(&b, g, "y", ONNX_I32, "3");
  size_t len;
  uint8_t *m = ob_model(&b, g, 17, &len);
  int32_t want[3] = {0, 1, 0};
  onnx_expect_run("hann_int32", m, len, NULL, want, sizeof want);
  ob_deinit(&b);
}

int main(void) {
  test_precision();
  test_refusals();
  test_int_window();
  return test_finish("test_onnx_quant");
}
