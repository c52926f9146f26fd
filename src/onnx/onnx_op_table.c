/* The ONNX op table: the families of translations (onnx_ops_<family>.c) and the dispatch
 * from a node's op_type to its row. */
#include "onnx_internal.h"

#include <string.h>

static const ox_op_row_t *const families[] = {
    ox_ops_core, ox_ops_nn, ox_ops_math, ox_ops_spatial, ox_ops_index, ox_ops_sequence, ox_ops_quant,
    ox_ops_image,
};

static const char *const family_names[] = {"core", "nn", "math", "spatial", "index", "sequence", "quant", "image"};
_Static_assert(sizeof family_names / sizeof family_names[0] == sizeof families / sizeof families[0],
               "one name per family");

int32_t berth_onnx_import_op_count(void) {
  int32_t n = 0;
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    for (const ox_op_row_t *r = families[f]; r->name; r++) n++;
  return n;
}

const char *berth_onnx_import_op_name(int32_t k, const char **family) {
  for (size_t f = 0; k >= 0 && f < sizeof families / sizeof families[0]; f++)
    for (const ox_op_row_t *r = families[f]; r->name; r++)
      if (k-- == 0) {
        if (family) *family = family_names[f];
        return r->name;
      }
  return NULL;
}

bool berth_onnx_import_op_support(int32_t k, const char **opsets, const char **types, int32_t counts[3]) {
  const char *name = berth_onnx_import_op_name(k, NULL);
  if (!name) return false;
  *opsets = *types = "";
  counts[0] = counts[1] = counts[2] = 0;
  for (const ox_op_support_t *s = ox_op_support; s->name; s++)
    if (strcmp(s->name, name) == 0) {
      *opsets = s->opsets;
      *types = s->types;
      counts[0] = s->passed;
      counts[1] = s->failed;
      counts[2] = s->unsupported;
    }
  return true;
}

static const ox_op_row_t *find_row(const char *op_type) {
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    for (const ox_op_row_t *r = families[f]; r->name; r++)
      if (strcmp(r->name, op_type) == 0) return r;
  return NULL;
}

bool ox_op_known(const char *op_type) { return find_row(op_type) != NULL; }

berth_status_t ox_translate_op(ox_ctx_t *cx) {
  const Onnx__NodeProto *n = cx->node;
  const char *domain = n->domain ? n->domain : "";
  if (domain[0] && strcmp(domain, "ai.onnx") != 0)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "op domain '%s' is not supported (berth implements ai.onnx only)", domain);
  const char *type = n->op_type ? n->op_type : "";
  const ox_op_row_t *row = find_row(type);
  if (!row) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "op %s is not supported by berth", type[0] ? type : "(empty)");
  /* operands of unsupported element types are caught here, once */
  for (size_t i = 0; i < n->n_input; i++) {
    int32_t v = n->input[i] && n->input[i][0] ? ox_lookup(cx, n->input[i]) : -1;
    if (v >= 0 && cx->vals[v].absent) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input %d is undefined", (int)i);
  }
  const char *saved_bad = cx->bad_attr;
  double saved_value = cx->bad_attr_value;
  const ox_op_row_t *saved_row = cx->row;
  cx->bad_attr = NULL;
  cx->row = row;
  berth_status_t st = row->fn(cx);
  if (cx->bad_attr) /* an INT attribute written as a float that is no integer */
    st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute '%s' is %g, expected an integer", cx->bad_attr,
                 cx->bad_attr_value);
  cx->bad_attr = saved_bad;
  cx->bad_attr_value = saved_value;
  cx->row = saved_row;
  return st;
}
