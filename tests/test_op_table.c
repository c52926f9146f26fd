/* The op table's invariants: every op has a def with its own name and the name finds it;
 * the ops without a kernel are exactly BERTH_OP_LIST_NO_KERNEL (an embedded runtime built
 * with a kernel selection keeps that list and drops every unselected kernel, so an op
 * missing from it would vanish from such a runtime). */
#include "kernels/op_table.h"
#include "test_util.h"

#include <string.h>

int main(void) {
  bool listed[BERTH_OP_COUNT] = {false};
#define BERTH_X(E, s) listed[BERTH_OP_##E] = true;
  BERTH_OP_LIST_NO_KERNEL(BERTH_X)
#undef BERTH_X
  for (int op = 0; op < BERTH_OP_COUNT; op++) {
    const berth_op_def_t *def = berth_op_get((uint32_t)op);
    CHECK_MSG(def != NULL, "op %d has no def", op);
    if (!def) continue;
    CHECK_MSG(berth_op_find(def->name, strlen(def->name)) == (berth_op_t)op, "op %d (%s) is not found by name", op,
              def->name);
    bool kernel = def->kind == BERTH_OPKIND_KERNEL;
    CHECK_MSG(kernel == !listed[op], "op %d (%s): %s", op, def->name,
              kernel ? "a kernel listed in BERTH_OP_LIST_NO_KERNEL"
                     : "has no kernel but is missing from BERTH_OP_LIST_NO_KERNEL");
    if (kernel) CHECK_MSG(def->infer && def->run, "kernel %s lacks infer or run", def->name);
  }
  CHECK(berth_op_get(BERTH_OP_COUNT) == NULL);
  CHECK(berth_op_find("no_such_op", 10) == BERTH_OP_COUNT);
  return test_finish("test_op_table");
}
