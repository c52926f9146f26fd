/* berth ops: the ONNX ops the importer translates (by family), or berth's own kernel ops. */
#include "cli.h"
#include "kernels/op_table.h"
#include "onnx/onnx_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ops_row {
  const char *name, *family;
} ops_row_t;

static int row_cmp(const void *a, const void *b) {
  return strcmp(((const ops_row_t *)a)->name, ((const ops_row_t *)b)->name);
}

static int print_onnx_ops(void) {
  int32_t n = berth_onnx_op_count();
  ops_row_t *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
  if (!rows) {
    fprintf(stderr, "berth ops: out of memory\n");
    return 1;
  }
  for (int32_t k = 0; k < n; k++) rows[k].name = berth_onnx_op_name(k, &rows[k].family);
  qsort(rows, (size_t)n, sizeof *rows, row_cmp);
  printf("# %d ONNX ops of the default domain (ai.onnx, opsets 1 to 27): op family\n", (int)n);
  for (int32_t k = 0; k < n; k++) printf("%s %s\n", rows[k].name, rows[k].family);
  free(rows);
  return 0;
}

static const char *kind_name(berth_op_kind_t k) {
  switch (k) {
    case BERTH_OPKIND_KERNEL: return "kernel";
    case BERTH_OPKIND_COND: case BERTH_OPKIND_WHILE_LOOP: case BERTH_OPKIND_SCAN: case BERTH_OPKIND_MAP: return "control";
    case BERTH_OPKIND_COPY_: return "mutation";
    case BERTH_OPKIND_ASSERT: return "check";
  }
  return "?";
}

static int print_kernel_ops(void) {
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

int berth_cmd_ops(int argc, char **argv) {
  bool kernels = false;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--kernels") == 0 && !kernels) kernels = true;
    else {
      fprintf(stderr, "berth ops: unexpected argument '%s' (usage: berth ops [--kernels])\n", argv[i]);
      return BERTH_EXIT_USAGE;
    }
  }
  return kernels ? print_kernel_ops() : print_onnx_ops();
}
