/* berth's decoded ONNX model (the compiler, libberth.so): a model file checked and decoded
 * once (what the conformance runner and berth_compile use), to look at its graph's boundary
 * and ops without a protobuf decoder of one's own, and to import it as often as wanted with
 * different input specs (berth_onnx_model_import, in berth/compiler.h, which includes this
 * header):
 *
 *   berth_onnx_model_t *m;
 *   if (berth_onnx_model_create(bytes, len, &m, &diag)) fail(msg);  // bytes may go now
 *   berth_onnx_model_info_t info;
 *   berth_onnx_model_info(m, &info);
 *   for (int32_t k = 0; k < info.n_inputs; k++)
 *     printf("%s %s\n", info.inputs[k].name, info.inputs[k].initialized ? "(has a default)" : "");
 *   berth_source_t *src;
 *   berth_onnx_model_import(m, &opt, &src, &diag);  // berth/compiler.h: inputs, states, ...
 *   berth_onnx_model_destroy(m);                    // src stays valid
 */
#ifndef BERTH_ONNX_MODEL_H
#define BERTH_ONNX_MODEL_H

#include "berth/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct berth_onnx_model berth_onnx_model_t;

/* A graph input or output as the file declares it. */
typedef struct berth_onnx_model_value {
  const char *name;            /* owned by the model; NULL when the file gives none */
  int32_t elem_type;           /* the tensor's ONNX element type (TensorProto.DataType: 1
                                  float, 7 int64, ...); 0 when not given or not a tensor */
  const char *non_tensor_kind; /* NULL for a tensor (or no type); else "a sequence", "an
                                  optional", "a map" or "a sparse tensor" (static), which
                                  berth does not import */
  bool initialized;            /* inputs: an initializer of the same name gives it a value
                                  (older models list their weights among the inputs) */
} berth_onnx_model_value_t;

/* An op type of the default domain (ai.onnx) that the model's nodes use, each once, in the
 * order of first use (a node before the graphs of its attributes). */
typedef struct berth_onnx_model_op {
  const char *op_type;   /* owned by the model: "Conv" */
  uint32_t input_elems;  /* of the first node using it: bit e set when an input of that node is
                            a graph input or initializer of the top graph of element type e */
} berth_onnx_model_op_t;

typedef struct berth_onnx_model_info {
  int32_t n_inputs, n_outputs;
  const berth_onnx_model_value_t *inputs;  /* the top graph's, in order (owned by the model) */
  const berth_onnx_model_value_t *outputs;
  int64_t opset;                           /* the last ai.onnx opset the model imports; 0: none */
  int32_t n_ops;                           /* at most 512 distinct op types are listed */
  const berth_onnx_model_op_t *ops;
} berth_onnx_model_info_t;

/* Checks (nesting depth, lengths) and decodes len bytes of a ModelProto; the bytes are not
 * kept. Errors: BERTH_ERR_CORRUPT_DATA (not a ModelProto, or one without a graph, with diag
 * saying which), BERTH_ERR_OUT_OF_RANGE (a cap), BERTH_ERR_INVALID_ARGUMENT (NULL),
 * BERTH_ERR_RESOURCE_EXHAUSTED. The result is the caller's. */
berth_status_t berth_onnx_model_create(const void *bytes, size_t len, berth_onnx_model_t **out, berth_diag_t *diag);
void berth_onnx_model_destroy(berth_onnx_model_t *m);

/* The model's boundary and ops; pointers into m, valid until it is destroyed. Zeros when m
 * is NULL. */
void berth_onnx_model_info(const berth_onnx_model_t *m, berth_onnx_model_info_t *out);

#ifdef __cplusplus
}
#endif
#endif
