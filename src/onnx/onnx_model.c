/* An ONNX model decoded once (berth_onnx_model_t, berth/compiler.h): the wire check and the
 * protobuf-c decoding that every reader of a model file goes through, the model's boundary
 * and op list for callers without a decoder of their own (the conformance runner), and
 * imports of the decoded model. */
#include "berth/onnx_model.h"
#include "onnx_internal.h"

#include <stdlib.h>
#include <string.h>

#define MODEL_MAX_OPS 512

struct berth_onnx_model {
  Onnx__ModelProto *mp; /* NULL once an import released it (berth_onnx_model_import_ir_once) */
  berth_onnx_model_value_t *inputs, *outputs;
  int32_t n_inputs, n_outputs;
  berth_onnx_model_op_t ops[MODEL_MAX_OPS];
  int32_t n_ops;
  int64_t opset;
};

berth_status_t ox_model_decode(const void *bytes, size_t len, Onnx__ModelProto **out, berth_diag_t *diag) {
  if (!bytes && len) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: no bytes");
  berth_status_t st = ox_wire_check_model((const uint8_t *)bytes, len, diag);
  if (st) return st;
  Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, (const uint8_t *)bytes);
  if (!mp) return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "onnx: not a ModelProto (protobuf decoding failed)");
  if (!mp->graph) {
    onnx__model_proto__free_unpacked(mp, NULL);
    return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "onnx: the model has no graph");
  }
  *out = mp;
  return BERTH_OK;
}

bool berth_onnx_is_model(const void *bytes, size_t len) {
  if (!bytes || len == 0) return false;
  Onnx__ModelProto *mp;
  if (ox_model_decode(bytes, len, &mp, NULL) != BERTH_OK) return false;
  onnx__model_proto__free_unpacked(mp, NULL);
  return true;
}

/* ---- the boundary and the op list -------------------------------------------------------- */

static int32_t value_elem(const Onnx__ValueInfoProto *vi) {
  if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type)
    return 0;
  return vi->type->tensor_type->elem_type;
}

static bool has_initializer(const Onnx__GraphProto *g, const char *name) {
  for (size_t i = 0; name && i < g->n_initializer; i++)
    if (g->initializer[i] && g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0) return true;
  return false;
}

static berth_onnx_model_value_t *values_make(const Onnx__GraphProto *g, Onnx__ValueInfoProto **vis, size_t n) {
  berth_onnx_model_value_t *v = calloc(n + 1, sizeof *v);
  for (size_t k = 0; v && k < n; k++) {
    v[k].name = vis[k] ? vis[k]->name : NULL;
    v[k].elem_type = value_elem(vis[k]);
    v[k].non_tensor_kind = ox_non_tensor_kind(vis[k]);
    v[k].initialized = vis[k] && has_initializer(g, vis[k]->name);
  }
  return v;
}

/* The ONNX element types of node nd's inputs that are inputs or initializers of the model's
 * top graph g0 (a bit per type). */
static uint32_t node_elems(const Onnx__GraphProto *g0, const Onnx__NodeProto *nd) {
  uint32_t m = 0;
  for (size_t i = 0; i < nd->n_input; i++) {
    const char *x = nd->input[i];
    if (!x || !x[0]) continue;
    for (size_t k = 0; k < g0->n_input; k++) {
      const Onnx__ValueInfoProto *vi = g0->input[k];
      int32_t e = value_elem(vi);
      if (vi && vi->name && strcmp(vi->name, x) == 0 && e > 0 && e < 32) m |= 1u << e;
    }
    for (size_t k = 0; k < g0->n_initializer; k++) {
      const Onnx__TensorProto *tp = g0->initializer[k];
      if (tp && tp->name && strcmp(tp->name, x) == 0 && tp->data_type > 0 && tp->data_type < 32) m |= 1u << tp->data_type;
    }
  }
  return m;
}

/* Lists each default-domain op type of graph g (and of its sub-graphs) once. */
static void ops_collect(berth_onnx_model_t *m, const Onnx__GraphProto *g0, const Onnx__GraphProto *g) {
  for (size_t k = 0; g && k < g->n_node; k++) {
    const Onnx__NodeProto *nd = g->node[k];
    const char *dom = nd->domain ? nd->domain : "";
    const char *ty = nd->op_type ? nd->op_type : "";
    if ((!dom[0] || strcmp(dom, "ai.onnx") == 0) && ty[0]) {
      bool dup = false;
      for (int32_t s = 0; s < m->n_ops && !dup; s++) dup = strcmp(m->ops[s].op_type, ty) == 0;
      if (!dup && m->n_ops < MODEL_MAX_OPS) {
        m->ops[m->n_ops].op_type = ty;
        m->ops[m->n_ops++].input_elems = node_elems(g0, nd);
      }
    }
    for (size_t a = 0; a < nd->n_attribute; a++) {
      ops_collect(m, g0, nd->attribute[a]->g);
      for (size_t j = 0; j < nd->attribute[a]->n_graphs; j++) ops_collect(m, g0, nd->attribute[a]->graphs[j]);
    }
  }
}

/* ---- the handle -------------------------------------------------------------------------- */

berth_status_t berth_onnx_model_create(const void *bytes, size_t len, berth_onnx_model_t **out, berth_diag_t *diag) {
  if (!bytes || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_onnx_model_create: NULL argument");
  berth_onnx_model_t *m = calloc(1, sizeof *m);
  if (!m) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_status_t st = ox_model_decode(bytes, len, &m->mp, diag);
  if (st) {
    free(m);
    berth_diag_one_line(diag);
    return st;
  }
  const Onnx__GraphProto *g = m->mp->graph;
  m->n_inputs = (int32_t)g->n_input;
  m->n_outputs = (int32_t)g->n_output;
  m->inputs = values_make(g, g->input, g->n_input);
  m->outputs = values_make(g, g->output, g->n_output);
  if (!m->inputs || !m->outputs) {
    berth_onnx_model_destroy(m);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (size_t k = 0; k < m->mp->n_opset_import; k++) {
    const char *dom = m->mp->opset_import[k]->domain ? m->mp->opset_import[k]->domain : "";
    if (!dom[0] || strcmp(dom, "ai.onnx") == 0) m->opset = m->mp->opset_import[k]->version;
  }
  ops_collect(m, g, g);
  *out = m;
  return BERTH_OK;
}

void berth_onnx_model_destroy(berth_onnx_model_t *m) {
  if (!m) return;
  if (m->mp) onnx__model_proto__free_unpacked(m->mp, NULL);
  free(m->inputs);
  free(m->outputs);
  free(m);
}

void berth_onnx_model_info(const berth_onnx_model_t *m, berth_onnx_model_info_t *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (!m || !m->mp) return;
  out->n_inputs = m->n_inputs;
  out->n_outputs = m->n_outputs;
  out->inputs = m->inputs;
  out->outputs = m->outputs;
  out->opset = m->opset;
  out->n_ops = m->n_ops;
  out->ops = m->ops;
}

/* ---- imports ----------------------------------------------------------------------------- */

berth_status_t berth_onnx_model_import_ir(const berth_onnx_model_t *m, const berth_onnx_options_t *opt,
                                          berth_ir_program_t **out, berth_onnx_info_t *info, berth_diag_t *diag) {
  if (info) memset(info, 0, sizeof *info);
  if (!m || !m->mp || !out)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_onnx_model_import: NULL argument or a released model");
  berth_status_t st = ox_import_decoded(m->mp, NULL, opt, out, info, diag);
  if (st) berth_diag_one_line(diag); /* names in the file may hold newlines */
  return st;
}

berth_status_t berth_onnx_model_import_ir_once(berth_onnx_model_t *m, const berth_onnx_options_t *opt,
                                               berth_ir_program_t **out, berth_onnx_info_t *info, berth_diag_t *diag) {
  if (info) memset(info, 0, sizeof *info);
  if (!m || !m->mp || !out)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_onnx_model_import: NULL argument or a released model");
  berth_status_t st = ox_import_decoded(m->mp, &m->mp, opt, out, info, diag);
  if (st) berth_diag_one_line(diag);
  return st;
}
