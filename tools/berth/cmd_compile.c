/* berth compile: plans a program and writes it as a .berth program file. */
#include "berth/inspect.h"
#include "berth/ops.h"
#include "cli.h"
#include "ops_header.h"
#include "program_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loads the bytes just written, as the runtime would, so a file that the loader rejects is
 * never left behind as a success. */
static int self_check(const uint8_t *bytes, size_t len, bool verify, const char *out) {
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  if (berth_program_check(bytes, len, verify, &diag)) {
    fprintf(stderr, "berth compile: the written file does not load (%s): %s\n", out, msg);
    return 1;
  }
  return 0;
}

int berth_cmd_compile(int argc, char **argv) {
  const char *path = NULL, *out = NULL, *ops_header = NULL;
  bool store_ir = true;
  berth_compile_options_t opt = berth_compile_options_default();
  for (int i = 0; i < argc; i++) {
    int r = berth_cli_plan_option(argc, argv, &i, &opt);
    if (r < 0) return BERTH_EXIT_USAGE;
    if (r > 0) continue;
    if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--ops-header") == 0) {
      if (!berth_cli_once(argv[i])) return BERTH_EXIT_USAGE;
      if (i + 1 >= argc) {
        fprintf(stderr, "berth: %s needs a file\n", argv[i]);
        return BERTH_EXIT_USAGE;
      }
      *(argv[i][1] == 'o' ? &out : &ops_header) = argv[i + 1];
      i++;
    } else if (strcmp(argv[i], "--no-ir") == 0) {
      if (!berth_cli_once(argv[i])) return BERTH_EXIT_USAGE;
      store_ir = false;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "berth compile: unknown option '%s'\n", argv[i]);
      return BERTH_EXIT_USAGE;
    } else if (path) {
      fprintf(stderr, "berth compile: more than one program given ('%s' and '%s')\n", path, argv[i]);
      return BERTH_EXIT_USAGE;
    } else {
      path = argv[i];
    }
  }
  if (!path || !out) {
    fprintf(stderr, "berth compile: usage: berth compile PROGRAM -o FILE.berth [planner options] [--no-ir] [--ops-header FILE.h]\n");
    return BERTH_EXIT_USAGE;
  }
  if (ops_header && strcmp(ops_header, out) == 0) {
    fprintf(stderr, "berth compile: -o and --ops-header name the same file '%s'\n", out);
    return BERTH_EXIT_USAGE;
  }
  berth_source_t *p = berth_tool_load_program(path);
  if (!p) return 1;
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_compilation_t *c = NULL;
  opt.store_ir = store_ir;
  berth_cli_planning_note(&opt);
  berth_status_t plan_st = berth_compile_source(p, &opt, &c, &diag);
  berth_cli_progress_end();
  berth_source_destroy(p);
  if (plan_st) {
    fprintf(stderr, "berth: %s: %s\n", path, msg);
    return 1;
  }
  size_t len = 0;
  const uint8_t *bytes = berth_compilation_bytes(c, &len);
  bool *used = NULL;
  int rc = 1;
  if (!opt.verify)
    fprintf(stderr, "berth compile: warning: %s is not verified (--no-verify); the loader will verify it and may reject it\n", out);
  if (self_check(bytes, len, opt.verify, out)) goto done;
  if (ops_header) { /* the kernels the file calls, for the kernel-selection header */
    int32_t n_ops = berth_op_count();
    used = malloc((size_t)n_ops * sizeof *used);
    if (!used || berth_program_ops_used(bytes, len, opt.verify, used, n_ops, &diag)) {
      fprintf(stderr, "berth: %s: %s\n", path, used ? msg : "out of memory");
      goto done;
    }
  }
  /* both files are written and closed before either is put in place, so a failure leaves
   * neither (each goes through a temporary file, see berth/outfile.h) */
  berth_outfile_t *of = berth_cli_out_open(out), *hf = NULL;
  if (!of) goto done;
  FILE *summary = berth_outfile_is_stream(of) ? stderr : stdout; /* -o /dev/stdout carries only the program */
  fwrite(bytes, 1, len, berth_outfile_stream(of)); /* errors: berth_cli_out_close */
  if (berth_cli_out_close(of)) {
    berth_outfile_discard(of);
    goto done;
  }
  if (ops_header) {
    if (!(hf = berth_cli_out_open(ops_header)) ||
        (berth_tool_write_ops_header(used, berth_outfile_stream(hf)), berth_cli_out_close(hf))) {
      berth_outfile_discard(hf);
      berth_outfile_discard(of);
      goto done;
    }
  }
  if (berth_cli_out_commit(of)) {
    berth_outfile_discard(hf);
    goto done;
  }
  if (hf && berth_cli_out_commit(hf)) goto done;
  uint64_t arena = 0, state = 0, constants = 0;
  berth_compilation_totals(c, &arena, &state, &constants);
  int32_t n_methods = berth_compilation_method_count(c);
  fprintf(summary, "wrote %s: %zu bytes, %d method%s, arenas %llu bytes, state %llu bytes, constants %llu bytes%s\n", out, len,
         (int)n_methods, n_methods == 1 ? "" : "s", (unsigned long long)arena, (unsigned long long)state,
         (unsigned long long)constants, store_ir ? ", with IR" : "");
  rc = 0;
done:
  free(used);
  berth_compilation_destroy(c);
  return rc;
}
