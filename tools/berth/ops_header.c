/* The kernel-selection header: `berth compile ... --ops-header FILE.h` writes the list of
 * kernels a program calls, so that an embedded build of the runtime can link only those
 * (CMake: berth_add_runtime(NAME OPS_HEADER FILE.h); op_table.c reads the list). A runtime
 * built this way rejects, at load time, a program that calls any other kernel. */
#include "ops_header.h"

#include "berth/ops.h"

#include <stdio.h>
#include <string.h>

void berth_tool_write_ops_header(const bool *used, FILE *f) {
  fprintf(f,
          "/* Written by `berth compile --ops-header`: the kernels this program calls.\n"
          " * Build the runtime with -DBERTH_OPS_HEADER='\"this file\"' to link only these. */\n"
          "#define BERTH_OPS_USED(X) \\\n");
  int n = 0;
  for (int32_t op = 0; op < berth_op_count(); op++) {
    berth_op_info_t info;
    if (!used[op] || berth_op_info(op, &info) != BERTH_OK || strcmp(info.kind, "kernel") != 0) continue;
    fprintf(f, "  X(%s, %s) \\\n", info.enum_name, info.name);
    n++;
  }
  fprintf(f, "  /* %d kernel%s */\n", n, n == 1 ? "" : "s");
}

/* ---- berth ops --kernels ---------------------------------------------------------- */

int berth_tool_print_kernel_ops(void) {
  printf("# %d berth ops (the IR's and the runtime's op table): op kind inputs outputs attributes\n", (int)berth_op_count());
  for (int32_t i = 0; i < berth_op_count(); i++) {
    berth_op_info_t d;
    if (berth_op_info(i, &d) != BERTH_OK) continue;
    char ins[32];
    if (d.max_inputs < 0) snprintf(ins, sizeof ins, "%d+", (int)d.min_inputs);
    else if (d.min_inputs == d.max_inputs) snprintf(ins, sizeof ins, "%d", (int)d.min_inputs);
    else snprintf(ins, sizeof ins, "%d-%d", (int)d.min_inputs, (int)d.max_inputs);
    printf("%s %s %s %s", d.name, d.kind, ins, d.n_outputs < 0 ? "any" : "");
    if (d.n_outputs >= 0) printf("%d", (int)d.n_outputs);
    for (int32_t a = 0; a < d.n_attrs; a++) printf("%s%s", a ? "," : " ", berth_op_attr_name(i, a));
    printf("\n");
  }
  return 0;
}
