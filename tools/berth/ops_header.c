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

/* ---- berth ops --kernels ---------------------------------------------------------- */

static const char *kind_name(berth_op_kind_t k) {
  switch (k) {
    case BERTH_OPKIND_KERNEL: return "kernel";
    case BERTH_OPKIND_COND: case BERTH_OPKIND_WHILE_LOOP: case BERTH_OPKIND_SCAN: case BERTH_OPKIND_MAP: return "control";
    case BERTH_OPKIND_COPY_: return "mutation";
    case BERTH_OPKIND_ASSERT: return "check";
  }
  return "?";
}

int berth_tool_print_kernel_ops(void) {
  printf("# %d berth ops (the IR's and the runtime's op table): op kind inputs outputs attributes\n", (int)BERTH_OP_COUNT);
  for (uint32_t i = 0; i < BERTH_OP_COUNT; i++) {
    const berth_op_def_t *d = berth_op_get(i);
    if (!d) continue;
    char ins[32];
    if (d->max_in < 0) snprintf(ins, sizeof ins, "%d+", (int)d->min_in);
    else if (d->min_in == d->max_in) snprintf(ins, sizeof ins, "%d", (int)d->min_in);
    else snprintf(ins, sizeof ins, "%d-%d", (int)d->min_in, (int)d->max_in);
    printf("%s %s %s %s", d->name, kind_name(d->kind), ins, d->n_out < 0 ? "any" : "");
    if (d->n_out >= 0) printf("%d", (int)d->n_out);
    for (int a = 0; a < d->n_attrs; a++) printf("%s%s", a ? "," : " ", d->attrs[a].name);
    printf("\n");
  }
  return 0;
}
