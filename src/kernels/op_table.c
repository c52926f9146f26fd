/* The op table, built from BERTH_OP_LIST.
 *
 * An embedded build can keep only the kernels its programs call: compiled with
 * -DBERTH_OPS_HEADER='"ops.h"' (a header written by `berth compile --ops-header`, which
 * defines BERTH_OPS_USED(X) as a sub-list of BERTH_OP_LIST), the table holds the control
 * ops and those kernels only, the others are NULL (the loader rejects a program that calls
 * one), and the linker drops the unused kernels (-ffunction-sections, --gc-sections). */
#include "op_table.h"

#include <string.h>

static const berth_op_def_t *const op_table[BERTH_OP_COUNT] = {
#define BERTH_X(E, s) [BERTH_OP_##E] = &berth_op_def_##s,
#ifdef BERTH_OPS_HEADER
#include BERTH_OPS_HEADER
    BERTH_OP_LIST_NO_KERNEL(BERTH_X)
    BERTH_OPS_USED(BERTH_X)
#else
    BERTH_OP_LIST(BERTH_X)
#endif
#undef BERTH_X
};

const berth_op_def_t *berth_op_get(uint32_t op) { return op < BERTH_OP_COUNT ? op_table[op] : NULL; }

berth_op_t berth_op_find(const char *name, size_t len) {
  for (int i = 0; i < BERTH_OP_COUNT; i++) {
    if (!op_table[i]) continue;
    const char *n = op_table[i]->name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) return (berth_op_t)i;
  }
  return BERTH_OP_COUNT;
}

int berth_op_attr_index(const berth_op_def_t *def, const char *name, size_t len) {
  for (int i = 0; i < def->n_attrs; i++) {
    const char *n = def->attrs[i].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) return i;
  }
  return -1;
}

void berth_op_attrs_default(const berth_op_def_t *def, berth_attr_value_t *attrs) {
  for (int i = 0; i < def->n_attrs; i++) {
    memset(&attrs[i], 0, sizeof attrs[i]);
    attrs[i].i = def->attrs[i].default_i;
    attrs[i].f = def->attrs[i].default_f;
    if (def->attrs[i].kind == BERTH_ATTR_SCALAR) {
      double f = def->attrs[i].default_f;
      /* only a finite value in int64 range has an integer form (-inf, nan do not) */
      bool in_range = f >= -9223372036854775808.0 && f < 9223372036854775808.0;
      attrs[i].i = in_range ? (int64_t)f : 0;
      attrs[i].n = in_range && (double)attrs[i].i == f;
    }
  }
}
