/* Builds small ONNX models with protobuf-c for the importer's tests, the fuzz corpus and the
 * numeric ONNX fuzz generator (onnx_numgen.c). Testing machinery only: out of memory aborts.
 *
 *   ob_t b;
 *   ob_init(&b);
 *   Onnx__GraphProto *g = ob_graph(&b, "main");
 *   ob_input(&b, g, "x", ONNX_F, "2,3");
 *   ob_node(&b, g, "Add", "x,x", "y");
 *   ob_output(&b, g, "y", ONNX_F, "2,3");
 *   size_t len;
 *   uint8_t *bytes = ob_model(&b, g, 17, &len);   // owned by b
 *   ob_deinit(&b);
 *
 * Lists are comma-separated strings ("x,y"; "" for none; an empty entry is an omitted
 * optional input). Everything is allocated from b and freed by ob_deinit. */
#ifndef BERTH_FUZZGEN_ONNX_BUILD_H
#define BERTH_FUZZGEN_ONNX_BUILD_H

#include "onnx/onnx.pb-c.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ONNX_F = 1, ONNX_U8 = 2, ONNX_I8 = 3, ONNX_I32 = 6, ONNX_I64 = 7, ONNX_BOOL = 9, ONNX_F16 = 10, ONNX_F64 = 11 };

typedef struct ob {
  void **ptrs;
  int n, cap;
} ob_t;

static inline void ob_init(ob_t *b) { memset(b, 0, sizeof *b); }

static inline void *ob_alloc(ob_t *b, size_t n) {
  if (b->n == b->cap) {
    b->cap = b->cap ? b->cap * 2 : 256;
    b->ptrs = realloc(b->ptrs, sizeof(void *) * (size_t)b->cap);
    if (!b->ptrs) abort();
  }
  void *p = calloc(1, n ? n : 1);
  if (!p) abort();
  b->ptrs[b->n++] = p;
  return p;
}

static inline void ob_deinit(ob_t *b) {
  for (int i = 0; i < b->n; i++) free(b->ptrs[i]);
  free(b->ptrs);
  memset(b, 0, sizeof *b);
}

static inline char *ob_str(ob_t *b, const char *s, size_t n) {
  char *d = ob_alloc(b, n + 1);
  memcpy(d, s, n);
  return d;
}

/* Splits "a,b,c" into a string array; returns the count. */
static inline size_t ob_split(ob_t *b, const char *list, char ***out) {
  size_t n = 0;
  if (list[0]) {
    n = 1;
    for (const char *p = list; *p; p++) n += *p == ',';
  }
  char **v = ob_alloc(b, sizeof(char *) * (n + 1));
  const char *p = list;
  for (size_t k = 0; k < n; k++) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    v[k] = ob_str(b, p, len);
    p = e ? e + 1 : p + len;
  }
  *out = v;
  return n;
}

static inline size_t ob_ints(ob_t *b, const char *list, int64_t **out) {
  char **s;
  size_t n = ob_split(b, list, &s);
  int64_t *v = ob_alloc(b, sizeof(int64_t) * (n + 1));
  for (size_t k = 0; k < n; k++) v[k] = strtoll(s[k], NULL, 10);
  *out = v;
  return n;
}

#define OB_PUSH(b, arr, n, item)                                                   \
  do {                                                                             \
    void **na_ = ob_alloc((b), sizeof(void *) * ((n) + 1));                        \
    if ((n)) memcpy(na_, (arr), sizeof(void *) * (n));                             \
    na_[(n)] = (item);                                                             \
    (arr) = (void *)na_;                                                           \
    (n)++;                                                                         \
  } while (0)

static inline Onnx__GraphProto *ob_graph(ob_t *b, const char *name) {
  Onnx__GraphProto *g = ob_alloc(b, sizeof *g);
  onnx__graph_proto__init(g);
  g->name = ob_str(b, name, strlen(name));
  return g;
}

/* dims "2,3"; "" is a scalar; "?" entries are dynamic (dim_param "N"); NULL: no shape. */
static inline Onnx__ValueInfoProto *ob_value_info(ob_t *b, const char *name, int elem, const char *dims) {
  Onnx__ValueInfoProto *vi = ob_alloc(b, sizeof *vi);
  onnx__value_info_proto__init(vi);
  vi->name = ob_str(b, name, strlen(name));
  if (elem < 0) return vi; /* untyped */
  Onnx__TypeProto *tp = ob_alloc(b, sizeof *tp);
  onnx__type_proto__init(tp);
  Onnx__TypeProto__Tensor *tt = ob_alloc(b, sizeof *tt);
  onnx__type_proto__tensor__init(tt);
  tt->has_elem_type = 1;
  tt->elem_type = elem;
  if (dims) {
    Onnx__TensorShapeProto *sh = ob_alloc(b, sizeof *sh);
    onnx__tensor_shape_proto__init(sh);
    char **d;
    size_t n = ob_split(b, dims, &d);
    for (size_t k = 0; k < n; k++) {
      Onnx__TensorShapeProto__Dimension *dim = ob_alloc(b, sizeof *dim);
      onnx__tensor_shape_proto__dimension__init(dim);
      if (d[k][0] == '?') {
        dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        dim->dim_param = ob_str(b, "N", 1);
      } else {
        dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        dim->dim_value = strtoll(d[k], NULL, 10);
      }
      OB_PUSH(b, sh->dim, sh->n_dim, dim);
    }
    tt->shape = sh;
  }
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  vi->type = tp;
  return vi;
}

static inline void ob_input(ob_t *b, Onnx__GraphProto *g, const char *name, int elem, const char *dims) {
  Onnx__ValueInfoProto *vi = ob_value_info(b, name, elem, dims);
  OB_PUSH(b, g->input, g->n_input, vi);
}

static inline void ob_output(ob_t *b, Onnx__GraphProto *g, const char *name, int elem, const char *dims) {
  Onnx__ValueInfoProto *vi = ob_value_info(b, name, elem, dims);
  OB_PUSH(b, g->output, g->n_output, vi);
}

/* A tensor of floats ("1,2.5"), int64 or other ints, bool: values as text. */
static inline Onnx__TensorProto *ob_tensor(ob_t *b, const char *name, int elem, const char *dims, const char *values) {
  Onnx__TensorProto *t = ob_alloc(b, sizeof *t);
  onnx__tensor_proto__init(t);
  t->name = ob_str(b, name, strlen(name));
  t->has_data_type = 1;
  t->data_type = elem;
  t->n_dims = ob_ints(b, dims, &t->dims);
  char **v;
  size_t n = ob_split(b, values, &v);
  if (elem == ONNX_F) {
    t->float_data = ob_alloc(b, sizeof(float) * (n + 1));
    for (size_t k = 0; k < n; k++) t->float_data[k] = strtof(v[k], NULL);
    t->n_float_data = n;
  } else if (elem == ONNX_F64) {
    t->double_data = ob_alloc(b, sizeof(double) * (n + 1));
    for (size_t k = 0; k < n; k++) t->double_data[k] = strtod(v[k], NULL);
    t->n_double_data = n;
  } else if (elem == ONNX_I64) {
    t->int64_data = ob_alloc(b, sizeof(int64_t) * (n + 1));
    for (size_t k = 0; k < n; k++) t->int64_data[k] = strtoll(v[k], NULL, 10);
    t->n_int64_data = n;
  } else {
    t->int32_data = ob_alloc(b, sizeof(int32_t) * (n + 1));
    for (size_t k = 0; k < n; k++) t->int32_data[k] = (int32_t)strtol(v[k], NULL, 0);
    t->n_int32_data = n;
  }
  return t;
}

static inline void ob_init_tensor(ob_t *b, Onnx__GraphProto *g, const char *name, int elem, const char *dims,
                           const char *values) {
  Onnx__TensorProto *t = ob_tensor(b, name, elem, dims, values);
  OB_PUSH(b, g->initializer, g->n_initializer, t);
}

static inline Onnx__NodeProto *ob_node(ob_t *b, Onnx__GraphProto *g, const char *op, const char *ins, const char *outs) {
  Onnx__NodeProto *n = ob_alloc(b, sizeof *n);
  onnx__node_proto__init(n);
  n->op_type = ob_str(b, op, strlen(op));
  n->n_input = ob_split(b, ins, &n->input);
  n->n_output = ob_split(b, outs, &n->output);
  n->name = ob_str(b, n->n_output ? n->output[0] : op, strlen(n->n_output ? n->output[0] : op));
  OB_PUSH(b, g->node, g->n_node, n);
  return n;
}

static inline Onnx__AttributeProto *ob_attr(ob_t *b, Onnx__NodeProto *n, const char *name, Onnx__AttributeProto__AttributeType t) {
  Onnx__AttributeProto *a = ob_alloc(b, sizeof *a);
  onnx__attribute_proto__init(a);
  a->name = ob_str(b, name, strlen(name));
  a->has_type = 1;
  a->type = t;
  OB_PUSH(b, n->attribute, n->n_attribute, a);
  return a;
}

static inline void ob_attr_i(ob_t *b, Onnx__NodeProto *n, const char *name, int64_t v) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  a->has_i = 1;
  a->i = v;
}

static inline void ob_attr_ints(ob_t *b, Onnx__NodeProto *n, const char *name, const char *v) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  a->n_ints = ob_ints(b, v, &a->ints);
}

static inline void ob_attr_g(ob_t *b, Onnx__NodeProto *n, const char *name, Onnx__GraphProto *g) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
  a->g = g;
}

static inline void ob_attr_t(ob_t *b, Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
  a->t = t;
}

/* A Constant node. */
static inline void ob_const(ob_t *b, Onnx__GraphProto *g, const char *out, int elem, const char *dims, const char *values) {
  Onnx__NodeProto *n = ob_node(b, g, "Constant", "", out);
  ob_attr_t(b, n, "value", ob_tensor(b, out, elem, dims, values));
}

static inline uint8_t *ob_model(ob_t *b, Onnx__GraphProto *g, int64_t opset, size_t *len) {
  Onnx__ModelProto m;
  onnx__model_proto__init(&m);
  m.has_ir_version = 1;
  m.ir_version = 8;
  Onnx__OperatorSetIdProto *o = ob_alloc(b, sizeof *o);
  onnx__operator_set_id_proto__init(o);
  o->domain = ob_str(b, "", 0);
  o->has_version = 1;
  o->version = opset;
  Onnx__OperatorSetIdProto **ops = ob_alloc(b, sizeof *ops);
  ops[0] = o;
  m.n_opset_import = 1;
  m.opset_import = ops;
  m.graph = g;
  m.producer_name = ob_str(b, "berth-test", 10);
  *len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = ob_alloc(b, *len);
  onnx__model_proto__pack(&m, buf);
  return buf;
}

#endif
