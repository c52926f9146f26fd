/* The public view of the op table (berth/ops.h). */
#include "berth/ops.h"

#include "kernels/op_table.h"

static const char *const enum_names[BERTH_OP_COUNT] = {
#define BERTH_X(E, s) #E,
    BERTH_OP_LIST(BERTH_X)
#undef BERTH_X
};

static const char *kind_name(berth_op_kind_t k) {
  switch (k) {
    case BERTH_OPKIND_KERNEL: return "kernel";
    case BERTH_OPKIND_COND: case BERTH_OPKIND_WHILE_LOOP: case BERTH_OPKIND_SCAN: case BERTH_OPKIND_MAP: return "control";
    case BERTH_OPKIND_COPY_: return "mutation";
    case BERTH_OPKIND_ASSERT: return "check";
  }
  return "?";
}

int32_t berth_op_count(void) { return (int32_t)BERTH_OP_COUNT; }

berth_status_t berth_op_info(int32_t op, berth_op_info_t *out) {
  if (!out || op < 0 || op >= (int32_t)BERTH_OP_COUNT) return BERTH_ERR_INVALID_ARGUMENT;
  const berth_op_def_t *d = berth_op_get((uint32_t)op);
  if (!d) return BERTH_ERR_UNIMPLEMENTED;
  out->name = d->name;
  out->enum_name = enum_names[op];
  out->kind = kind_name(d->kind);
  out->min_inputs = d->min_in;
  out->max_inputs = d->max_in;
  out->n_outputs = d->n_out;
  out->n_attrs = d->n_attrs;
  return BERTH_OK;
}

const char *berth_op_attr_name(int32_t op, int32_t k) {
  if (op < 0 || op >= (int32_t)BERTH_OP_COUNT) return NULL;
  const berth_op_def_t *d = berth_op_get((uint32_t)op);
  return d && k >= 0 && k < d->n_attrs ? d->attrs[k].name : NULL;
}
