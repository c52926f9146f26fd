/* berth bench: times a method with the planned runtime, the way an embedder calls it (the
 * public API of berth/runtime.h: the program loaded and verified, one method handle, inputs
 * bound, berth_method_execute timed alone), and with --profile says where the time goes:
 * per op and per instruction, timed around each kernel call and copy (berth/profile.h over
 * the runtime's observer). Inputs are --call's arguments (berth run's syntax) or else
 * fixed pseudo-random data: floats uniform in [-1, 1), every other element type zeros (an
 * index or a count from random bits would be out of range). --json prints one JSON document
 * instead of the text (nothing on stdout when the command fails). */
#define _POSIX_C_SOURCE 200809L
#include "berth/kernels.h"
#include "berth/profile.h"
#include "berth/runtime.h"
#include "cli.h"
#include "program_load.h"
#include "berth/memory.h"
#include "tensor_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_CALLS 100000

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* One row of the per-op table. */
typedef struct bench_op {
  const char *op;
  double ns;
  int64_t runs, instrs;
} bench_op_t;

static int cmp_op(const void *a, const void *b) {
  const bench_op_t *x = a, *y = b;
  return x->ns > y->ns ? -1 : x->ns < y->ns;
}

typedef struct bench_row {
  int32_t instr;
  double ns;
} bench_row_t;

static int cmp_row(const void *a, const void *b) {
  const bench_row_t *x = a, *y = b;
  return x->ns > y->ns ? -1 : x->ns < y->ns ? 1 : (x->instr > y->instr) - (x->instr < y->instr);
}

/* Fills an input: floats uniform in [-1, 1) from a fixed xorshift stream, anything else zeros. */
static void bench_fill(const berth_tensor_info_t *t, void *data, uint32_t *rng) {
  memset(data, 0, t->bytes);
  const size_t n = t->type.dtype == BERTH_DTYPE_F32 ? t->bytes / 4 : t->type.dtype == BERTH_DTYPE_F64 ? t->bytes / 8 : 0;
  for (size_t i = 0; i < n; i++) {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 17;
    *rng ^= *rng << 5;
    const double u = (double)(*rng >> 8) / 8388608.0 - 1.0; /* 24 bits: [-1, 1) */
    if (t->type.dtype == BERTH_DTYPE_F32) ((float *)data)[i] = (float)u;
    else ((double *)data)[i] = u;
  }
}

/* A type as JSON members: "dtype":"f32","shape":[1,3] */
static void bench_json_type(const berth_type_t *t) {
  printf("\"dtype\":\"%s\",\"shape\":[", berth_dtype_name(t->dtype));
  for (int32_t d = 0; d < t->rank; d++) printf("%s%lld", d ? "," : "", (long long)t->dims[d]);
  printf("]");
}

/* The profile as text (the op table, then the top slowest instructions) or, with json, as the
 * document's "profile" member (every op and every instruction that ran). */
static void bench_print_profile(berth_method_t *h, const berth_profile_t *pr, int calls, double call_ns, int top,
                                bool json) {
  const int32_t n = berth_method_instr_count(h);
  bench_op_t *ops = calloc((size_t)n + 1, sizeof *ops);
  bench_row_t *rows = calloc((size_t)n + 1, sizeof *rows);
  if (!ops || !rows) {
    fprintf(stderr, "berth: out of memory\n");
    free(ops);
    free(rows);
    return;
  }
  int32_t n_ops = 0, n_rows = 0;
  double inside = 0;
  for (int32_t i = 0; i < n; i++) {
    berth_instr_info_t info;
    const double ns = (double)berth_profile_ns(pr, i);
    const int64_t runs = (int64_t)berth_profile_runs(pr, i);
    if (berth_method_instr_info(h, i, &info, NULL) || !info.op || runs == 0) continue;
    inside += ns;
    rows[n_rows++] = (bench_row_t){i, ns};
    int32_t k = 0;
    while (k < n_ops && strcmp(ops[k].op, info.op) != 0) k++;
    if (k == n_ops) ops[n_ops++] = (bench_op_t){info.op, 0, 0, 0};
    ops[k].ns += ns;
    ops[k].runs += runs;
    ops[k].instrs++;
  }
  qsort(ops, (size_t)n_ops, sizeof *ops, cmp_op);
  qsort(rows, (size_t)n_rows, sizeof *rows, cmp_row);
  const double per = 1.0 / calls / 1e3; /* ns summed over the calls -> us per call */
  if (json) {
    printf(",\"profile\":{\"calls\":%d,\"mean_us\":%.3f,\"in_kernels_us\":%.3f,\"ops\":[", calls, call_ns / 1e3,
           inside * per);
    for (int32_t k = 0; k < n_ops; k++) {
      printf("%s{\"op\":", k ? "," : "");
      berth_cli_json_string(stdout, ops[k].op);
      printf(",\"instrs\":%lld,\"runs\":%lld,\"us\":%.3f}", (long long)ops[k].instrs,
             (long long)(ops[k].runs / calls), ops[k].ns * per);
    }
    printf("],\"instructions\":[");
    for (int32_t r = 0; r < n_rows; r++) {
      berth_instr_info_t info;
      berth_method_instr_info(h, rows[r].instr, &info, NULL);
      printf("%s{\"instr\":%d,\"op\":", r ? "," : "", (int)rows[r].instr);
      berth_cli_json_string(stdout, info.op);
      printf(",\"output\":");
      berth_cli_json_string(stdout, info.out_name[0] == '%' ? info.out_name + 1 : info.out_name);
      printf(",");
      bench_json_type(&info.out_type);
      printf(",\"runs\":%lld,\"us\":%.3f}", (long long)(berth_profile_runs(pr, rows[r].instr) / (uint64_t)calls),
             rows[r].ns * per);
    }
    printf("]}");
    free(ops);
    free(rows);
    return;
  }
  printf("\nprofile: %d calls with the observer on, mean %.1f us per call, %.1f us of it in kernels and copies\n",
         calls, call_ns / 1e3, inside * per);
  printf("  %-24s %8s %8s %12s %7s\n", "op", "instrs", "runs", "us/call", "share");
  for (int32_t k = 0; k < n_ops; k++)
    printf("  %-24s %8lld %8lld %12.1f %6.1f%%\n", ops[k].op, (long long)ops[k].instrs,
           (long long)(ops[k].runs / calls), ops[k].ns * per, inside > 0 ? 100.0 * ops[k].ns / inside : 0.0);
  if (top > n_rows) top = n_rows;
  if (top > 0) printf("\n  the %d slowest instructions (berth dis numbers them):\n", top);
  for (int32_t r = 0; r < top; r++) {
    berth_instr_info_t info;
    char ty[160];
    berth_method_instr_info(h, rows[r].instr, &info, NULL);
    printf("  %6d  %-22s %10.1f us %6.1f%%  %s %s\n", (int)rows[r].instr, info.op, rows[r].ns * per,
           inside > 0 ? 100.0 * rows[r].ns / inside : 0.0, info.out_name, berth_type_format(&info.out_type, ty, sizeof ty));
  }
  free(ops);
  free(rows);
}

int berth_cmd_bench(int argc, char **argv) {
  const char *path = NULL, *method_name = NULL, *call = NULL;
  long calls = 20, warmup = 3, top = 20;
  bool profile = false, plan_options = false, json = false;
  berth_compile_options_t opt = berth_compile_options_default();
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    int r = berth_cli_plan_option(argc, argv, &i, &opt);
    if (r < 0) return BERTH_EXIT_USAGE;
    if (r > 0) {
      plan_options = true;
      continue;
    }
    if (strcmp(a, "--calls") == 0 || strcmp(a, "--warmup") == 0 || strcmp(a, "--top") == 0 ||
        strcmp(a, "--method") == 0 || strcmp(a, "--call") == 0) {
      if (!berth_cli_once(a)) return BERTH_EXIT_USAGE;
      if (i + 1 >= argc) {
        fprintf(stderr, "berth: %s needs a value\n", a);
        return BERTH_EXIT_USAGE;
      }
      const char *v = argv[++i];
      if (strcmp(a, "--method") == 0) {
        method_name = v;
        continue;
      }
      if (strcmp(a, "--call") == 0) {
        call = v;
        continue;
      }
      /* --calls, --warmup, --top: whole numbers (at least one timed call) */
      long *dst = strcmp(a, "--calls") == 0 ? &calls : strcmp(a, "--warmup") == 0 ? &warmup : &top;
      char *end;
      const long lo = dst == &calls ? 1 : 0, n = strtol(v, &end, 10);
      if (end == v || *end || n < lo || n > BENCH_MAX_CALLS) {
        fprintf(stderr, "berth: %s %s: expected a whole number from %ld to %d\n", a, v, lo, BENCH_MAX_CALLS);
        return BERTH_EXIT_USAGE;
      }
      *dst = n;
    } else if (strcmp(a, "--profile") == 0 || strcmp(a, "--json") == 0) {
      if (!berth_cli_once(a)) return BERTH_EXIT_USAGE;
      if (a[2] == 'p') profile = true;
      else json = true;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "berth bench: unknown option '%s'\n", a);
      return BERTH_EXIT_USAGE;
    } else if (path) {
      fprintf(stderr, "berth bench: more than one program given ('%s' and '%s')\n", path, a);
      return BERTH_EXIT_USAGE;
    } else path = a;
  }
  if (!path) {
    fprintf(stderr, "berth bench: missing PROGRAM (usage: berth bench PROGRAM [--calls N] [--profile])\n");
    return BERTH_EXIT_USAGE;
  }
  int rc = BERTH_EXIT_FAIL;
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_source_t *src = NULL;
  berth_compilation_t *compiled = NULL;
  uint8_t *bytes = NULL, *pmem = NULL, *scratch = NULL, *mmem = NULL;
  void **in = NULL, **out = NULL;
  double *times = NULL;
  berth_profile_t *pr = NULL;
  berth_program_t *prog = NULL;
  berth_method_t *h = NULL;
  size_t len = 0;
  int32_t mi = -1, n_in = 0, n_out = 0;
  char **args = NULL;
  /* the bytes of a program file, 64-byte aligned: a .berth as it is (its stored plan, read
   * aligned), anything else compiled and copied once */
  if (!plan_options && berth_tool_is_berth(path)) {
    if (!(bytes = berth_tool_read_berth_file(path, &len))) goto out;
  } else {
    if (!(src = berth_tool_load_program(path))) goto out;
    opt.store_ir = false;
    berth_cli_planning_note(&opt);
    berth_status_t st = berth_compile_source(src, &opt, &compiled, &diag);
    berth_cli_progress_end();
    if (st) {
      fprintf(stderr, "berth: %s: %s\n", path, msg);
      goto out;
    }
    const uint8_t *b = berth_compilation_bytes(compiled, &len);
    if (!(bytes = berth_host_alloc(len))) goto oom; /* on huge pages, as berth_tool_read_berth_file reads a .berth */
    memcpy(bytes, b, len);
  }
  berth_program_sizes_t sz;
  if (berth_program_query(bytes, len, &sz, &diag)) goto fail;
  pmem = malloc(sz.program_bytes ? sz.program_bytes : 1);
  scratch = malloc(sz.scratch_bytes ? sz.scratch_bytes : 1);
  if (!pmem || !scratch) goto oom;
  if (berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &diag)) goto fail;
  free(scratch);
  scratch = NULL;
  mi = berth_program_method_find(prog, method_name ? method_name : "forward");
  if (mi < 0 && !method_name && berth_program_method_count(prog) == 1) mi = 0;
  if (mi < 0) {
    fprintf(stderr, "berth: %s has no method '%s'\n", path, method_name ? method_name : "forward");
    goto out;
  }
  const size_t need = berth_method_memory_size(prog, mi);
  if (!(mmem = berth_host_alloc(need))) goto oom;
  if (berth_method_init(prog, mi, mmem, need, NULL, 0, &h, &diag)) goto fail;
  n_in = berth_program_input_count(prog, mi);
  n_out = berth_program_output_count(prog, mi);
  in = calloc((size_t)n_in + 1, sizeof *in);
  out = calloc((size_t)n_out + 1, sizeof *out);
  times = calloc((size_t)calls, sizeof *times);
  if (!in || !out || !times) goto oom;
  if (!json)
    printf("berth bench: %s, method %s, %s kernels, %ld calls after %ld warm-up calls\n", path,
           berth_program_method_name(prog, mi), berth_kernels_isa_name(berth_kernels_active()), calls, warmup);
  uint32_t rng = 0x62656e63u; /* "benc" */
  berth_tensor_info_t info;
  int nargs = 0;
  if (call) {
    char err[512];
    if (berth_call_split(call, &args, &nargs, err, sizeof err)) {
      fprintf(stderr, "berth: --call: %s\n", err);
      goto out;
    }
    if (nargs != n_in) {
      fprintf(stderr, "berth: --call: method %s takes %d input%s, got %d\n", berth_program_method_name(prog, mi),
              (int)n_in, n_in == 1 ? "" : "s", nargs);
      goto out;
    }
  }
  for (int32_t i = 0; i < n_in; i++) {
    char ty[160], ty2[160], err[512];
    berth_program_input_info(prog, mi, i, &info);
    if (!(in[i] = aligned_alloc(64, (info.bytes + 63) / 64 * 64 + 64))) goto oom;
    if (!call) {
      bench_fill(&info, in[i], &rng);
      const bool f = info.type.dtype == BERTH_DTYPE_F32 || info.type.dtype == BERTH_DTYPE_F64;
      if (!json)
        printf("  input %%%s %s: %s\n", info.name, berth_type_format(&info.type, ty, sizeof ty),
               f ? "uniform in [-1, 1)" : "zeros");
      continue;
    }
    berth_host_tensor_t t = {{0}, NULL};
    if (berth_tensor_parse_arg(args[i], &t, err, sizeof err)) {
      fprintf(stderr, "berth: --call, argument %d: %s\n", (int)i + 1, err);
      goto out;
    }
    if (!berth_type_equal(&t.type, &info.type)) {
      fprintf(stderr, "berth: --call, argument %d (%%%s): expected %s, got %s\n", (int)i + 1, info.name,
              berth_type_format(&info.type, ty, sizeof ty), berth_type_format(&t.type, ty2, sizeof ty2));
      berth_host_tensor_free(&t);
      goto out;
    }
    memcpy(in[i], t.data, info.bytes);
    berth_host_tensor_free(&t);
  }
  if (!berth_program_outputs_planned(prog))
    for (int32_t j = 0; j < n_out; j++) {
      berth_program_output_info(prog, mi, j, &info);
      if (!(out[j] = aligned_alloc(64, (info.bytes + 63) / 64 * 64 + 64))) goto oom;
      if (berth_method_set_output(h, j, out[j], info.bytes, &diag)) goto fail;
    }
  /* warm-up, the timed calls, then (--profile) as many again with the observer on */
  const long total = warmup + calls + (profile ? calls : 0);
  double prof_ns = 0;
  for (long c = 0; c < total; c++) {
    if (profile && c == warmup + calls && berth_profile_attach(h, &pr, &diag)) goto fail;
    for (int32_t i = 0; i < n_in; i++) {
      berth_program_input_info(prog, mi, i, &info);
      if (berth_method_set_input(h, i, in[i], info.bytes, &diag)) goto fail;
    }
    const double t0 = now_ns();
    if (berth_method_execute(h, &diag)) {
      fprintf(stderr, "berth: %s: call %ld: %s\n", path, c + 1, msg);
      goto out;
    }
    const double t = now_ns() - t0;
    if (c >= warmup && c < warmup + calls) times[c - warmup] = t;
    else if (c >= warmup + calls) prof_ns += t;
  }
  double mean = 0;
  for (long c = 0; c < calls; c++) mean += times[c] / (double)calls;
  qsort(times, (size_t)calls, sizeof *times, cmp_double);
  const double med = calls % 2 ? times[calls / 2] : (times[calls / 2 - 1] + times[calls / 2]) / 2;
  if (json) {
    printf("{\"program\":");
    berth_cli_json_string(stdout, path);
    printf(",\"method\":");
    berth_cli_json_string(stdout, berth_program_method_name(prog, mi));
    printf(",\"kernels\":\"%s\",\"warmup\":%ld,\"calls\":%ld,\"inputs\":[",
           berth_kernels_isa_name(berth_kernels_active()), warmup, calls);
    for (int32_t i = 0; i < n_in; i++) {
      berth_program_input_info(prog, mi, i, &info);
      const bool f = info.type.dtype == BERTH_DTYPE_F32 || info.type.dtype == BERTH_DTYPE_F64;
      printf("%s{\"name\":", i ? "," : "");
      berth_cli_json_string(stdout, info.name);
      printf(",");
      bench_json_type(&info.type);
      printf(",\"data\":\"%s\"}", call ? "given" : f ? "uniform" : "zeros");
    }
    printf("],\"us\":{\"min\":%.3f,\"median\":%.3f,\"mean\":%.3f,\"max\":%.3f}", times[0] / 1e3, med / 1e3,
           mean / 1e3, times[calls - 1] / 1e3);
  } else {
    printf("  per call: min %.1f us, median %.1f us, mean %.1f us, max %.1f us\n", times[0] / 1e3, med / 1e3,
           mean / 1e3, times[calls - 1] / 1e3);
  }
  if (profile) bench_print_profile(h, pr, (int)calls, prof_ns / (double)calls, (int)top, json);
  if (json) printf("}\n");
  rc = 0;
  goto out;
oom:
  fprintf(stderr, "berth: out of memory\n");
  goto out;
fail:
  fprintf(stderr, "berth: %s: %s\n", path, msg);
out:
  berth_call_free(args);
  for (int32_t i = 0; in && i < n_in; i++) free(in[i]);
  for (int32_t j = 0; out && j < n_out; j++) free(out[j]);
  free(in);
  free(out);
  free(times);
  berth_profile_detach(pr);
  free(mmem);
  free(scratch);
  free(pmem);
  free(bytes);
  berth_compilation_destroy(compiled);
  berth_source_destroy(src);
  return rc;
}
