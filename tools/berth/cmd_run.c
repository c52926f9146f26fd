/* berth run: calls a method with the planned runtime (default) or the reference oracle.
 * PROGRAM is a .bir or a .berth file; a .berth runs the plan stored in it, unless planner
 * options or --reference ask for its IR section (then it behaves as the .bir it holds). */
#define _POSIX_C_SOURCE 200809L
#include "berth/inspect.h"
#include "berth/testing.h"
#include "cli.h"
#include "program_load.h"
#include "tensor_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_CALLS 4096

/* The method's signature, from the source or from a .berth file's own tables. */
typedef struct run_sig {
  const char *method;
  int32_t n_in, n_out;
  const char **in_name, **out_name;
  berth_type_t *in_type, *out_type;
} run_sig_t;

static void sig_free(run_sig_t *s) {
  free(s->in_name);
  free(s->out_name);
  free(s->in_type);
  free(s->out_type);
}

static bool sig_alloc(run_sig_t *s, int32_t n_in, int32_t n_out) {
  s->n_in = n_in;
  s->n_out = n_out;
  s->in_name = calloc((size_t)(n_in ? n_in : 1), sizeof *s->in_name);
  s->in_type = calloc((size_t)(n_in ? n_in : 1), sizeof *s->in_type);
  s->out_name = calloc((size_t)(n_out ? n_out : 1), sizeof *s->out_name);
  s->out_type = calloc((size_t)(n_out ? n_out : 1), sizeof *s->out_type);
  return s->in_name && s->in_type && s->out_name && s->out_type;
}

static bool sig_from_source(run_sig_t *s, const berth_source_t *src, int32_t mi) {
  if (!sig_alloc(s, berth_source_input_count(src, mi), berth_source_output_count(src, mi))) return false;
  s->method = berth_source_method_name(src, mi);
  for (int32_t k = 0; k < s->n_in; k++) berth_source_input(src, mi, k, &s->in_name[k], &s->in_type[k], NULL);
  for (int32_t k = 0; k < s->n_out; k++) berth_source_output(src, mi, k, &s->out_name[k], &s->out_type[k], NULL);
  return true;
}

static bool sig_from_berth(run_sig_t *s, const berth_program_t *p, int32_t mi) {
  if (!sig_alloc(s, berth_program_input_count(p, mi), berth_program_output_count(p, mi))) return false;
  s->method = berth_program_method_name(p, mi);
  berth_tensor_info_t info;
  for (int32_t k = 0; k < s->n_in; k++) {
    berth_program_input_info(p, mi, k, &info);
    s->in_name[k] = info.name;
    s->in_type[k] = info.type;
  }
  for (int32_t k = 0; k < s->n_out; k++) {
    berth_program_output_info(p, mi, k, &info);
    s->out_name[k] = info.name;
    s->out_type[k] = info.type;
  }
  return true;
}

/* Errors of a run: one line on stderr, and with --json the message that the JSON document
 * carries (the failed call's "error", and the top-level "error"). */
typedef struct run_out {
  bool json;
  bool failed;
  char msg[1024];
} run_out_t;

static void run_fail(run_out_t *o, const char *fmt, ...) BERTH_PRINTF_LIKE(2, 3);
static void run_fail(run_out_t *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->msg, sizeof o->msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "berth: %s\n", o->msg);
  o->failed = true;
}

/* Every call's arguments, parsed and checked against the signature before anything runs.
 * Returns 0, or the exit status after run_fail: a malformed literal is a wrong command line
 * (BERTH_EXIT_USAGE); a wrong count or type, or a .npy file that cannot be read, fails. */
static int parse_calls(const char *const *calls, int n_calls, const run_sig_t *sig, berth_host_tensor_t *ins,
                       run_out_t *ro) {
  for (int ci = 0; ci < n_calls; ci++) {
    char **args = NULL;
    int nargs = 0;
    char err[512];
    if (berth_call_split(calls[ci], &args, &nargs, err, sizeof err)) {
      run_fail(ro, "call %d: %s", ci + 1, err);
      return BERTH_EXIT_FAIL;
    }
    if (nargs != sig->n_in) {
      run_fail(ro, "call %d: method %s takes %d input%s, got %d", ci + 1, sig->method, (int)sig->n_in,
               sig->n_in == 1 ? "" : "s", nargs);
      berth_call_free(args);
      return BERTH_EXIT_FAIL;
    }
    for (int k = 0; k < nargs; k++) {
      berth_host_tensor_t *t = &ins[(size_t)ci * (size_t)sig->n_in + (size_t)k];
      if (berth_tensor_parse_arg(args[k], t, err, sizeof err)) {
        run_fail(ro, "call %d, argument %d: %s", ci + 1, k + 1, err);
        int rc = args[k][0] == '@' ? BERTH_EXIT_FAIL : BERTH_EXIT_USAGE;
        berth_call_free(args);
        return rc;
      }
      const berth_type_t *want = &sig->in_type[k];
      if (!berth_type_equal(&t->type, want)) {
        char a[128], b[128];
        run_fail(ro, "call %d, argument %d (%%%s): expected %s, got %s", ci + 1, k + 1, sig->in_name[k],
                 berth_type_format(want, a, sizeof a), berth_type_format(&t->type, b, sizeof b));
        berth_call_free(args);
        return BERTH_EXIT_FAIL;
      }
    }
    berth_call_free(args);
  }
  return 0;
}

int berth_cmd_run(int argc, char **argv) {
  const char *path = NULL, *method_name = NULL, *out_dir = NULL;
  const char **calls = calloc(MAX_CALLS, sizeof *calls);
  int n_calls = 0;
  bool reference = false, sanitize = false, plan_options = false;
  run_out_t ro;
  memset(&ro, 0, sizeof ro);
  berth_compile_options_t opt = berth_compile_options_default();
  uint64_t max_steps = 0;
  int rc = BERTH_EXIT_USAGE;
  if (!calls) return BERTH_EXIT_FAIL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int r = berth_cli_max_steps_option(argc, argv, &i, &max_steps);
    if (r < 0) goto out;
    if (r > 0) continue;
    r = berth_cli_plan_option(argc, argv, &i, &opt);
    if (r < 0) goto out;
    if (r > 0) {
      plan_options = true;
      continue;
    }
    if (strcmp(a, "--method") == 0 || strcmp(a, "--call") == 0 || strcmp(a, "--out-dir") == 0) {
      if (a[2] != 'c' && !berth_cli_once(a)) goto out;
      if (i + 1 >= argc) {
        fprintf(stderr, "berth: %s needs a value\n", a);
        goto out;
      }
      const char *v = argv[++i];
      if (a[2] == 'm') method_name = v;
      else if (a[2] == 'o') out_dir = v;
      else if (n_calls == MAX_CALLS) {
        fprintf(stderr, "berth: more than %d --call options\n", MAX_CALLS);
        goto out;
      } else calls[n_calls++] = v;
    } else if (strcmp(a, "--json") == 0 || strcmp(a, "--reference") == 0 || strcmp(a, "--sanitize") == 0) {
      if (!berth_cli_once(a)) goto out;
      if (a[2] == 'j') ro.json = true;
      else if (a[2] == 'r') reference = true;
      else sanitize = true;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "berth run: unknown option '%s'\n", a);
      goto out;
    } else if (path) {
      fprintf(stderr, "berth run: more than one program given ('%s' and '%s')\n", path, a);
      goto out;
    } else path = a;
  }
  if (!path) {
    fprintf(stderr, "berth run: missing PROGRAM (usage: berth run PROGRAM [--call 'ARGS']...)\n");
    goto out;
  }
  /* from here on the command line is well-formed: with --json stdout gets one JSON document,
   * whatever happens */
  rc = BERTH_EXIT_FAIL;
  if (ro.json) printf("{\"calls\":[");
  int n_done = 0, failed_call = 0;
  berth_tool_berth_t *bf = NULL;
  berth_source_t *p = NULL;
  run_sig_t sig;
  memset(&sig, 0, sizeof sig);
  berth_host_tensor_t *ins = NULL;
  berth_outfile_t **outs_staged = NULL;
  size_t n_staged = 0;
  berth_compilation_t *compiled = NULL;
  berth_runner_t *runner = NULL;
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  if (out_dir) {
    struct stat dst;
    if (stat(out_dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
      run_fail(&ro, "--out-dir %s: %s", out_dir, stat(out_dir, &dst) != 0 ? strerror(errno) : "not a directory");
      goto cleanup;
    }
  }
  /* a .berth runs its stored plan; planner options or --reference use its IR section */
  int32_t mi = -1, n_methods = 0;
  if (!reference && !plan_options && berth_tool_is_berth(path)) {
    bf = berth_tool_load_berth(path);
    if (!bf) goto load_failed;
    n_methods = berth_program_method_count(bf->prog);
    mi = berth_program_method_find(bf->prog, method_name ? method_name : "forward");
  } else {
    p = berth_tool_load_program(path);
    if (!p) goto load_failed;
    n_methods = berth_source_method_count(p);
    mi = berth_source_method_find(p, method_name ? method_name : "forward");
  }
  if (mi < 0 && !method_name && n_methods == 1) mi = 0;
  if (mi < 0) {
    run_fail(&ro, "%s has no method '%s'", path, method_name ? method_name : "forward");
    goto cleanup;
  }
  if (!(bf ? sig_from_berth(&sig, bf->prog, mi) : sig_from_source(&sig, p, mi))) {
    run_fail(&ro, "out of memory");
    goto cleanup;
  }
  ins = calloc((size_t)n_calls * (size_t)sig.n_in + 1, sizeof *ins);
  outs_staged = calloc((size_t)n_calls * (size_t)sig.n_out + 1, sizeof *outs_staged);
  if (!ins || !outs_staged) {
    run_fail(&ro, "out of memory");
    goto cleanup;
  }
  int prc = parse_calls(calls, n_calls, &sig, ins, &ro);
  if (prc) {
    rc = prc;
    goto cleanup;
  }
  berth_status_t st;
  if (reference) st = berth_runner_create_reference(p, &runner, &diag);
  else if (bf) st = berth_runner_create_file(bf->bytes, bf->len, sanitize, &runner, &diag);
  else {
    opt.store_ir = false; /* the runner runs the plan itself, not the file */
    berth_cli_planning_note(&opt);
    st = berth_compile_source(p, &opt, &compiled, &diag);
    berth_cli_progress_end();
    if (!st) st = berth_runner_create(compiled, sanitize, &runner, &diag);
  }
  if (runner) berth_runner_set_max_steps(runner, max_steps);
  if (st) {
    run_fail(&ro, "%s: %s", path, msg);
    goto cleanup;
  }
  for (int ci = 0; ci < n_calls; ci++) {
    const void **inptr = calloc((size_t)(sig.n_in ? sig.n_in : 1), sizeof *inptr);
    void **outs = calloc((size_t)(sig.n_out ? sig.n_out : 1), sizeof *outs);
    bool ok = inptr && outs;
    if (!ok) run_fail(&ro, "out of memory");
    for (int k = 0; ok && k < sig.n_in; k++) inptr[k] = ins[(size_t)ci * (size_t)sig.n_in + (size_t)k].data;
    if (ok) {
      st = berth_runner_call(runner, mi, inptr, outs, &diag);
      if (st) {
        run_fail(&ro, "call %d: %s", ci + 1, msg);
        failed_call = ci + 1;
        ok = false;
      }
    }
    if (ok) {
      if (ro.json) printf("%s{\"outputs\":[", ci ? "," : "");
      else printf("call %d:\n", ci + 1);
      for (int32_t k = 0; k < sig.n_out; k++) {
        berth_type_t real = sig.out_type[k]; /* a bounded output's real extent (--dynamic-bound) */
        if (berth_runner_output_shape(runner, mi, k, &real, NULL)) real = sig.out_type[k];
        const berth_type_t *t = &real;
        if (ro.json) {
          if (k) printf(",");
          berth_tensor_print_json(stdout, t, outs[k]);
        } else {
          printf("  %%%s = ", sig.out_name[k]);
          berth_tensor_print(stdout, t, outs[k]);
          printf("\n");
        }
        if (ok && out_dir) { /* staged: put in place only when every call succeeded */
          char file[4096], err[512];
          snprintf(file, sizeof file, "%s/call%d_out%d.npy", out_dir, ci + 1, (int)k);
          berth_outfile_t *of;
          berth_diag_t d2 = berth_diag_make(err, sizeof err);
          if (berth_outfile_open(file, &of, &d2)) {
            run_fail(&ro, "%s", err);
            ok = false;
          } else {
            outs_staged[n_staged++] = of;
            if (berth_npy_write_stream(berth_outfile_stream(of), file, t, outs[k], err, sizeof err) ||
                berth_outfile_close(of, &d2)) {
              run_fail(&ro, "%s", err);
              ok = false;
            }
          }
        }
      }
      if (ro.json) printf("]}");
      n_done = ci + 1;
    }
    for (int32_t k = 0; outs && k < sig.n_out; k++) free(outs[k]);
    free(inptr);
    free(outs);
    if (!ok) goto cleanup;
  }
  for (size_t k = 0; k < n_staged; k++) {
    char err[1024];
    berth_diag_t d2 = berth_diag_make(err, sizeof err);
    berth_outfile_t *of = outs_staged[k];
    outs_staged[k] = NULL;
    if (berth_outfile_commit(of, &d2)) {
      run_fail(&ro, "%s", err);
      goto cleanup;
    }
  }
  rc = 0;
  goto cleanup;
load_failed: /* the loader printed its message; the JSON document repeats that it failed */
  snprintf(ro.msg, sizeof ro.msg, "%s: cannot load the program (see stderr)", path);
  ro.failed = true;
cleanup:
  for (size_t k = 0; outs_staged && k < n_staged; k++) berth_outfile_discard(outs_staged[k]);
  free(outs_staged);
  if (ro.json) {
    if (failed_call) { /* the failed call carries its error */
      printf("%s{\"error\":", n_done ? "," : "");
      berth_cli_json_string(stdout, ro.msg);
      printf("}");
    }
    printf("]");
    if (ro.failed) {
      printf(",\"error\":");
      berth_cli_json_string(stdout, ro.msg);
    }
    printf("}\n");
  }
  fflush(stdout);
  for (size_t k = 0; ins && k < (size_t)n_calls * (size_t)sig.n_in; k++) berth_host_tensor_free(&ins[k]);
  free(ins);
  berth_runner_destroy(runner);
  berth_compilation_destroy(compiled);
  berth_source_destroy(p);
  berth_tool_berth_free(bf);
  sig_free(&sig);
out:
  free(calls);
  return rc;
}

int berth_cmd_check(int argc, char **argv) {
  if (argc != 1 || argv[0][0] == '-') {
    fprintf(stderr, "berth check: usage: berth check PROGRAM\n");
    return BERTH_EXIT_USAGE;
  }
  if (berth_tool_is_berth(argv[0])) {
    /* a .berth prints the IR it carries; one compiled with --no-ir has none to print */
    size_t len = 0;
    uint8_t *bytes = berth_tool_read_berth_file(argv[0], &len);
    if (!bytes) return 1;
    char msg[1024];
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    berth_program_file_info_t info;
    berth_status_t st = berth_program_file_info(bytes, len, true, &info, &diag);
    free(bytes);
    if (st) {
      fprintf(stderr, "berth: %s: %s\n", argv[0], msg);
      return 1;
    }
    if (!info.has_ir) {
      int32_t n = info.n_methods;
      fprintf(stderr, "berth check: %s is a valid program file (%d method%s) without an IR source section; nothing to print (berth dis shows its plan)\n",
              argv[0], (int)n, n == 1 ? "" : "s");
      return 0;
    }
  }
  berth_source_t *p = berth_tool_load_program(argv[0]);
  if (!p) return 1;
  char *text = berth_source_print(p);
  berth_source_destroy(p);
  if (!text) {
    fprintf(stderr, "berth: out of memory\n");
    return 1;
  }
  fputs(text, stdout);
  free(text);
  return 0;
}
