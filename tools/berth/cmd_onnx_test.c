/* berth onnx-test DIR...: runs ONNX backend-test folders (model.onnx and
 * test_data_set_N/{input,output}_N.pb) through the importer, the default planner with its
 * verifier, and the planned runtime, and compares with the expected outputs as ONNX's runner
 * does (same element type and shape; floats within rtol 1e-3 and atol 1e-7, NaN equal to
 * NaN; everything else exactly).
 *
 * Inputs bind to the graph inputs by position; a graph input with an initializer and no
 * input file takes the initializer. A set with one file per graph input that has no
 * initializer binds them to those in order, as ONNX's runner does (the model zoo's models
 * list their weights as graph inputs too). Shapes come from the input files. When the importer
 * needs an input's value at compile time (a Reshape shape, a Range bound, a trip count),
 * the test specializes the model on the value it is given and imports again.
 *
 * Prints one line per failing or unsupported test, "FAIL <folder>: <reason>" or
 * "UNSUPPORTED <folder>: <reason>", then "N passed, N failed, N unsupported". Exits 1 when
 * a test failed. A folder given that holds no test (no model.onnx in it or two levels
 * down), a test_data_set_* without model.onnx, a .onnx or .pb file given instead of its
 * folder, and an input_N.pb with no graph input to bind to are failures, never skipped
 * (other files given, such as a README that a glob of the folder reaches, are passed over).
 * The folders run in berth/testing.h (berth_onnx_test_path); this file prints. */
#define _POSIX_C_SOURCE 200809L
#include "berth/testing.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_IO 64


/* Why a folder is unsupported, from a short fixed list (printed with each UNSUPPORTED line
 * and totalled before the summary). "not implemented" is the catch-all
 * for anything else berth lacks. */
enum {
  OT_WHY_STRING, OT_WHY_SEQUENCE, OT_WHY_DOMAIN, OT_WHY_TRAINING, OT_WHY_RANDOM, OT_WHY_NOT_IMPLEMENTED,
  OT_WHY_COUNT
};
static const char *const k_why_name[OT_WHY_COUNT] = {
    "string tensors", "sequence/optional types", "a foreign domain", "training only", "randomness",
    "not implemented",
};

/* The category of an UNSUPPORTED reason (the importer's one-line message). */
static int why_category(const char *why) {
  static const char *const seq_ops[] = {"Sequence", "SplitToSequence", "ConcatFromSequence", "Optional"};
  static const char *const random_ops[] = {"RandomUniform", "RandomNormal", "Bernoulli", "Multinomial"};
  if (strstr(why, "element type string")) return OT_WHY_STRING;
  if (strstr(why, "sequence type") || strstr(why, "optional type") || strstr(why, "map type")) return OT_WHY_SEQUENCE;
  if (strstr(why, "domain '")) return OT_WHY_DOMAIN;
  if (strstr(why, "training")) return OT_WHY_TRAINING;
  const char *lacks = strstr(why, "this model uses: ");
  if (lacks) {
    lacks += strlen("this model uses: ");
    for (size_t k = 0; k < sizeof seq_ops / sizeof seq_ops[0]; k++)
      if (strncmp(lacks, seq_ops[k], strlen(seq_ops[k])) == 0) return OT_WHY_SEQUENCE;
    for (size_t k = 0; k < sizeof random_ops / sizeof random_ops[0]; k++)
      if (strncmp(lacks, random_ops[k], strlen(random_ops[k])) == 0) return OT_WHY_RANDOM;
  }
  return OT_WHY_NOT_IMPLEMENTED;
}

typedef struct ot_counts {
  int passed, failed, unsupported;
  int by_why[OT_WHY_COUNT]; /* unsupported folders by category */
} ot_counts_t;

#define OT_PASS BERTH_ONNX_TEST_PASS
#define OT_FAIL BERTH_ONNX_TEST_FAIL

/* --per-op: folders by result for every op type (of the default domain) their models use. */
typedef struct ot_op_count {
  char *name;
  int passed, failed, unsupported;
  uint64_t opsets;              /* the models' default-domain opsets over passing folders (bit per opset) */
  uint32_t elems;               /* ONNX element types of its inputs seen in passing folders (bit per type) */
} ot_op_count_t;
struct ot_op_table;
typedef struct ot_op_table {
  ot_op_count_t *rows;
  int n, cap;
} ot_op_table_t;

static void op_count(ot_op_table_t *t, const char *name, int result, int64_t opset, uint32_t elems) {
  int i = 0;
  while (i < t->n && strcmp(t->rows[i].name, name) != 0) i++;
  if (i == t->n) {
    if (t->n == t->cap) {
      int cap = t->cap ? 2 * t->cap : 64;
      ot_op_count_t *r = realloc(t->rows, (size_t)cap * sizeof *r);
      if (!r) return; /* the table is a report: a row lost to memory is not a test failure */
      t->rows = r;
      t->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) return;
    t->rows[t->n++] = (ot_op_count_t){copy, 0, 0, 0, 0, 0};
  }
  if (result == OT_PASS) {
    ot_op_count_t *row = &t->rows[i];
    if (opset >= 1 && opset < 64) row->opsets |= (uint64_t)1 << opset;
    row->elems |= elems;
  }
  int *slot = result == OT_PASS ? &t->rows[i].passed : result == OT_FAIL ? &t->rows[i].failed : &t->rows[i].unsupported;
  (*slot)++;
}

static int op_row_cmp(const void *a, const void *b) {
  return strcmp(((const ot_op_count_t *)a)->name, ((const ot_op_count_t *)b)->name);
}

/* The opsets of a bit set as ranges, "6-7,13" ("-" for none). */
static void opset_ranges(uint64_t set, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int o = 1; o < 64; o++) {
    if (!(set >> o & 1) || (set >> (o - 1) & 1)) continue; /* o starts a run */
    int end = o;
    while (end + 1 < 64 && (set >> (end + 1) & 1)) end++;
    int w = snprintf(buf + n, cap - n, end == o ? "%s%d" : "%s%d-%d", n ? "," : "", o, end);
    if (w < 0 || (size_t)w >= cap - n) break;
    n += (size_t)w;
  }
  if (!n) snprintf(buf, cap, "-");
}

static void op_table_print(ot_op_table_t *t) {
  if (t->n) qsort(t->rows, (size_t)t->n, sizeof *t->rows, op_row_cmp);
  printf("%-28s %7s %7s %12s  %-7s %s\n", "op", "passed", "failed", "unsupported", "opsets", "input types (passing)");
  for (int i = 0; i < t->n; i++) {
    const ot_op_count_t *r = &t->rows[i];
    char opsets[192];
    opset_ranges(r->opsets, opsets, sizeof opsets);
    printf("%-28s %7d %7d %12d  %-7s", r->name, r->passed, r->failed, r->unsupported, opsets);
    for (int e = 1, first = 1; e < 32; e++)
      if (r->elems & (1u << e)) {
        printf("%s%s", first ? " " : ",", berth_onnx_element_type_name(e));
        first = 0;
      }
    printf("\n");
    free(t->rows[i].name);
  }
  free(t->rows);
}

static bool is_dir(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool is_file(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static const char *base_name(const char *p) {
  size_t n = strlen(p);
  while (n > 1 && p[n - 1] == '/') n--;
  const char *s = p + n;
  while (s > p && s[-1] != '/') s--;
  static char buf[512];
  size_t len = (size_t)(p + n - s);
  if (len >= sizeof buf) len = sizeof buf - 1;
  memcpy(buf, s, len);
  buf[len] = '\0';
  return buf;
}

/* berth_onnx_test_options_t's callbacks: progress, one line per folder, the per-op table. */
typedef struct ot_run {
  bool verbose;
  ot_counts_t c;
  ot_op_table_t *ops; /* --per-op, or NULL */
} ot_run_t;

static void on_start(void *ctx, const char *dir) {
  ot_run_t *r = ctx;
  berth_cli_progress(false, "onnx-test: %d passed, %d failed, %d unsupported; %s", r->c.passed, r->c.failed,
                     r->c.unsupported, base_name(dir));
}

static void on_result(void *ctx, const char *dir, berth_onnx_test_result_t res, const char *why) {
  ot_run_t *r = ctx;
  if (res != OT_PASS || r->verbose) berth_cli_progress_end();
  if (res == OT_PASS) {
    r->c.passed++;
    if (r->verbose) printf("PASS %s\n", base_name(dir));
  } else if (res == OT_FAIL) {
    r->c.failed++;
    printf("FAIL %s: %s\n", base_name(dir), why);
  } else {
    r->c.unsupported++;
    int cat = why_category(why);
    r->c.by_why[cat]++;
    printf("UNSUPPORTED %s: %s [%s]\n", base_name(dir), why, k_why_name[cat]);
  }
  fflush(stdout);
}

static void on_op(void *ctx, const char *op, berth_onnx_test_result_t res, int64_t opset, uint32_t elems) {
  op_count(((ot_run_t *)ctx)->ops, op, res, opset, elems);
}

static void on_ir(void *ctx, const char *text) {
  (void)ctx;
  fprintf(stderr, "%s\n", text);
}

int berth_cmd_onnx_test(int argc, char **argv) {
  berth_onnx_test_options_t o;
  memset(&o, 0, sizeof o);
  ot_op_table_t op_table = {NULL, 0, 0};
  ot_run_t run;
  memset(&run, 0, sizeof run);
  o.start = on_start;
  o.result = on_result;
  o.ctx = &run;
  int n_dirs = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--sanitize") == 0) o.sanitize = true;
    else if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) run.verbose = true;
    else if (strcmp(argv[i], "--print-ir") == 0) o.ir = on_ir;
    else if (strcmp(argv[i], "--per-op") == 0) run.ops = &op_table, o.op_used = on_op;
    else if (strcmp(argv[i], "--keep-control-flow") == 0) o.keep_control_flow = true;
    else if (strcmp(argv[i], "--plain-layout") == 0) o.plain_layout = true;
    else if (strcmp(argv[i], "--direct-3x3") == 0) o.direct_3x3 = true;
    else if (strcmp(argv[i], "--max-trip-count") == 0 && i + 1 < argc) o.max_trip_count = strtoll(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--dynamic-bound") == 0) {
      char *end = NULL;
      o.dynamic_bound = i + 1 < argc ? strtoll(argv[++i], &end, 10) : 0;
      if (!end || *end || o.dynamic_bound <= 0) {
        fprintf(stderr, "berth onnx-test: --dynamic-bound expects a positive integer\n");
        return 2;
      }
    }
    else if (strcmp(argv[i], "--max-steps") == 0) {
      if (berth_cli_max_steps_option(argc, argv, &i, &o.max_steps) < 0) return 2;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "berth onnx-test: unknown option %s\n", argv[i]);
      return 2;
    } else n_dirs++;
  }
  if (n_dirs == 0) {
    fprintf(stderr, "usage: berth onnx-test [--sanitize] [--keep-control-flow] [--max-trip-count N] [--dynamic-bound N] [--max-steps N] [-v] [--per-op] [--print-ir] DIR...\n");
    return 2;
  }
  ot_counts_t *cnt = &run.c;
  for (int i = 0; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1]) {
      if (strcmp(argv[i], "--max-trip-count") == 0 || strcmp(argv[i], "--max-steps") == 0 ||
          strcmp(argv[i], "--dynamic-bound") == 0)
        i++;
      continue;
    }
    if (!is_dir(argv[i])) {
      /* files beside test folders (a glob of a folder reaches README.md, MANIFEST.tsv) are passed over,
       * a model or tensor file is a mistake */
      size_t len = strlen(argv[i]);
      bool model = (len >= 5 && strcmp(argv[i] + len - 5, ".onnx") == 0) || (len >= 3 && strcmp(argv[i] + len - 3, ".pb") == 0);
      if (is_file(argv[i]) && !model) continue;
      berth_cli_progress_end();
      printf("FAIL %s: %s\n", base_name(argv[i]),
             is_file(argv[i]) ? "not a folder (give the test folder that holds model.onnx)" : "no such folder");
      cnt->failed++;
      continue;
    }
    if (berth_onnx_test_path(&o, argv[i]) == 0) {
      berth_cli_progress_end();
      printf("FAIL %s: no model.onnx in it or in its sub-folders (two levels down)\n", base_name(argv[i]));
      cnt->failed++;
    }
  }
  berth_cli_progress_end();
  if (run.ops) op_table_print(run.ops);
  if (cnt->unsupported) {
    printf("unsupported by reason:");
    for (int w = 0, first = 1; w < OT_WHY_COUNT; w++)
      if (cnt->by_why[w]) {
        printf("%s %s %d", first ? "" : ",", k_why_name[w], cnt->by_why[w]);
        first = 0;
      }
    printf("\n");
  }
  printf("%d passed, %d failed, %d unsupported\n", cnt->passed, cnt->failed, cnt->unsupported);
  return cnt->failed ? 1 : 0;
}
