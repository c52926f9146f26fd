/* berth ops: the ONNX ops the importer translates (by family), or berth's own op table
 * (ops_header.c). */
#include "cli.h"
#include "ops_header.h"

#include <berth/compiler.h>

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

int berth_cmd_ops(int argc, char **argv) {
  bool kernels = false;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--kernels") == 0 && !kernels) kernels = true;
    else {
      fprintf(stderr, "berth ops: unexpected argument '%s' (usage: berth ops [--kernels])\n", argv[i]);
      return BERTH_EXIT_USAGE;
    }
  }
  return kernels ? berth_tool_print_kernel_ops() : print_onnx_ops();
}
