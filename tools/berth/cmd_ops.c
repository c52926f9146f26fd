/* berth ops: the ONNX ops the importer translates (by family) with the opsets and input
 * element types the shared conformance suite verifies of each (berth_onnx_op_info; one table,
 * src/onnx/onnx_op_support.c, that docs/ops.md shows too), as text or JSON; or berth's own op
 * table (ops_header.c). */
#include "cli.h"
#include "ops_header.h"

#include <berth/compiler.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int row_cmp(const void *a, const void *b) {
  return strcmp(((const berth_onnx_op_info_t *)a)->name, ((const berth_onnx_op_info_t *)b)->name);
}

/* Prints "6-7,13" as [6, 7, 13]. */
static void print_opsets_json(const char *s) {
  printf("[");
  for (int first = 1; *s;) {
    char *end;
    long lo = strtol(s, &end, 10), hi = lo;
    if (end == s) break; /* the table is generated: never happens */
    if (*end == '-') hi = strtol(end + 1, &end, 10);
    for (long o = lo; o <= hi; o++, first = 0) printf("%s%ld", first ? "" : ", ", o);
    s = *end == ',' ? end + 1 : end;
  }
  printf("]");
}

/* Prints "float,int64" as ["float", "int64"] (type names are plain identifiers). */
static void print_types_json(const char *s) {
  printf("[");
  for (int first = 1; *s; first = 0) {
    size_t n = strcspn(s, ",");
    printf("%s\"%.*s\"", first ? "" : ", ", (int)n, s);
    s += n + (s[n] == ',');
  }
  printf("]");
}

static void print_text(const berth_onnx_op_info_t *rows, int32_t n) {
  printf("# %d ONNX ops of the default domain (ai.onnx, opsets 1 to 27).\n", (int)n);
  printf("# opsets and input types: what the shared ONNX conformance suite verifies, not berth's limits: the\n"
         "# opsets of the suite folders that use the op and pass, and the ONNX element types of the op's inputs\n"
         "# there (\"-\": no passing folder uses it). passed failed unsupported: the suite folders using the op.\n");
  printf("# op family opsets input-types passed failed unsupported\n");
  for (int32_t k = 0; k < n; k++) {
    const berth_onnx_op_info_t *r = &rows[k];
    printf("%s %s %s %s %d %d %d\n", r->name, r->family, r->opsets[0] ? r->opsets : "-",
           r->input_types[0] ? r->input_types : "-", (int)r->suite_passed, (int)r->suite_failed,
           (int)r->suite_unsupported);
  }
}

static void print_json(const berth_onnx_op_info_t *rows, int32_t n) {
  printf("{\"note\": \"opsets and input_types are what the shared ONNX conformance suite verifies (its passing "
         "folders that use the op), not berth's limits\",\n \"ops\": [\n");
  for (int32_t k = 0; k < n; k++) {
    const berth_onnx_op_info_t *r = &rows[k];
    printf("  {\"op\": \"%s\", \"family\": \"%s\", \"opsets\": ", r->name, r->family);
    print_opsets_json(r->opsets);
    printf(", \"input_types\": ");
    print_types_json(r->input_types);
    printf(", \"suite\": {\"passed\": %d, \"failed\": %d, \"unsupported\": %d}}%s\n", (int)r->suite_passed,
           (int)r->suite_failed, (int)r->suite_unsupported, k + 1 < n ? "," : "");
  }
  printf("]}\n");
}

static int print_onnx_ops(bool json) {
  int32_t n = berth_onnx_op_count();
  berth_onnx_op_info_t *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
  if (!rows) {
    fprintf(stderr, "berth ops: out of memory\n");
    return 1;
  }
  for (int32_t k = 0; k < n; k++)
    if (berth_onnx_op_info(k, &rows[k]) != BERTH_OK) {
      fprintf(stderr, "berth ops: op %d of %d has no entry (a bug)\n", (int)k, (int)n);
      free(rows);
      return 1;
    }
  qsort(rows, (size_t)n, sizeof *rows, row_cmp);
  if (json) print_json(rows, n);
  else print_text(rows, n);
  free(rows);
  return 0;
}

int berth_cmd_ops(int argc, char **argv) {
  bool kernels = false, json = false;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--kernels") == 0 && !kernels) kernels = true;
    else if (strcmp(argv[i], "--json") == 0 && !json) json = true;
    else {
      fprintf(stderr, "berth ops: unexpected argument '%s' (usage: berth ops [--json] | berth ops --kernels)\n", argv[i]);
      return BERTH_EXIT_USAGE;
    }
  }
  if (kernels && json) {
    fprintf(stderr, "berth ops: --json is for the ONNX op list, not --kernels\n");
    return BERTH_EXIT_USAGE;
  }
  return kernels ? berth_tool_print_kernel_ops() : print_onnx_ops(json);
}
