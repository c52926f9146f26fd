/* The kernel-selection header: `berth compile ... --ops-header FILE.h` writes the list of
 * kernels a program calls, so that an embedded build of the runtime can link only those
 * (CMake: berth_add_runtime(NAME OPS_HEADER FILE.h); op_table.c reads the list). A runtime
 * built this way rejects, at load time, a program that calls any other kernel. */
#include "ops_header.h"

#include "kernels/op_table.h"

#include <stdio.h>

static const char *const op_enum_names[BERTH_OP_COUNT] = {
#define BERTH_X(E, s) #E,
    BERTH_OP_LIST(BERTH_X)
#undef BERTH_X
};

void berth_tool_write_ops_header(const berth_exec_program_t *exec, FILE *f) {
  bool used[BERTH_OP_COUNT] = {false};
  for (int32_t mi = 0; mi < exec->n_methods; mi++) {
    const berth_exec_method_t *m = &exec->methods[mi];
    for (int32_t i = 0; i < m->n_instrs; i++)
      if (m->instrs[i].opcode == BERTH_I_KERNEL && m->instrs[i].op < BERTH_OP_COUNT) used[m->instrs[i].op] = true;
  }
  fprintf(f,
          "/* Written by `berth compile --ops-header`: the kernels this program calls.\n"
          " * Build the runtime with -DBERTH_OPS_HEADER='\"this file\"' to link only these. */\n"
          "#define BERTH_OPS_USED(X) \\\n");
  int n = 0;
  for (int op = 0; op < BERTH_OP_COUNT; op++) {
    const berth_op_def_t *def = berth_op_get((uint32_t)op);
    if (!used[op] || def->kind != BERTH_OPKIND_KERNEL) continue;
    fprintf(f, "  X(%s, %s) \\\n", op_enum_names[op], def->name);
    n++;
  }
  fprintf(f, "  /* %d kernel%s */\n", n, n == 1 ? "" : "s");
}
