/* berth fuzz: differential fuzzing of the planner against the reference interpreter. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "berth/testing.h"
#include "program_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Failure lines go to stderr; --quiet keeps the seed, the failure and the file written,
 * and drops the shrinking details. */
static void print_line(void *ctx, const char *line) {
  if (*(const bool *)ctx && strstr(line, ": shrunk from ")) return;
  berth_cli_progress_end();
  fprintf(stderr, "%s\n", line);
  fflush(stderr);
}

static void print_progress(void *ctx, int64_t done, int64_t count, int64_t failed) {
  (void)ctx;
  berth_cli_progress(done == count, "fuzz: %lld of %lld programs, %lld failing", (long long)done, (long long)count,
                     (long long)failed);
}

static bool parse_int(const char *opt, const char *v, long long lo, long long hi, long long *out) {
  char *end;
  long long n = strtoll(v, &end, 10);
  if (!*v || *end || n < lo || n > hi) {
    fprintf(stderr, "berth fuzz: %s takes an integer in %lld..%lld, not '%s'\n", opt, lo, hi, v);
    return false;
  }
  *out = n;
  return true;
}

/* The seed (and calls) of a file the fuzzer wrote: its header's "--seed N" ("--calls K"),
 * else the last number in the file name. */
static bool replay_seed(const char *path, berth_fuzz_options_t *o) {
  FILE *f = fopen(path, "r");
  char line[1024];
  bool found = false;
  for (int i = 0; f && i < 8 && fgets(line, sizeof line, f) && line[0] == '#'; i++) {
    const char *s = strstr(line, "--seed "), *c = strstr(line, "--calls ");
    if (s) {
      o->seed = strtoull(s + 7, NULL, 10);
      found = true;
    }
    if (c && atoi(c + 8) > 0) o->calls = atoi(c + 8);
  }
  if (f) fclose(f);
  if (found) return true;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  const char *end = dot ? dot : base + strlen(base), *k = end;
  while (k > base && k[-1] >= '0' && k[-1] <= '9') k--;
  if (k == end) return false;
  o->seed = strtoull(k, NULL, 10);
  return true;
}

static void usage(FILE *f) {
  fputs("usage: berth fuzz [--count N] [--seed S] [--max-depth D] [--calls K] [--out-dir DIR] [--quiet]\n"
        "                  [--time-limit SECONDS] [--mutants M] [--no-shrink] [--budget-ms T]\n"
        "                  [--nodes N] [--graph-nodes N] [--asserts PERCENT] [--strategy global|regions]\n"
        "                  [--no-verify] [--no-sanitize] [--alignment N] [--pools RULES] [--fixed-layout]\n"
        "                  [--quick] [--print] [--avoid empty-scan,state-operands,while] [--max-steps N]\n"
        "       berth fuzz --replay FILE.bir [--seed S] [--calls K]\n"
        "  Generates N programs from seeds S, S+1, ... and checks each against the reference\n"
        "  interpreter under every allocation algorithm and alloc_inputs/outputs option with the\n"
        "  sanitizer on; failing programs are shrunk and written to DIR/fuzz-fail-<seed>.bir.\n"
        "  --replay checks one program with the inputs of seed S (default: from its header or name).\n"
        "  Unless --alignment, --pools or --fixed-layout is given, each program gets an arena\n"
        "  alignment and pool rule picked from its seed. --quick runs search and exact under one\n"
        "  alloc_inputs/outputs combination per program. --print only prints the programs.\n"
        "  --asserts sets the chance (default 8) that a generated node is an assert; a call that\n"
        "  fails one must fail on the same assert in every plan, with the same buffers after it.\n"
        "  --max-steps caps the loop iterations of one call, the same in both interpreters\n"
        "  (default 100000).\n",
        f);
}

/* The options berth_cli_once sees (each may be given once). */
static const char *const known[] = {
    "--quiet", "--no-shrink", "--quick", "--print", "--fixed-layout", "--no-verify", "--no-sanitize",
    "--count", "--seed", "--max-depth", "--calls", "--mutants", "--budget-ms", "--nodes", "--asserts",
    "--graph-nodes", "--time-limit", "--alignment", "--pools", "--strategy", "--avoid", "--out-dir", "--replay"};

int berth_cmd_fuzz(int argc, char **argv) {
  berth_fuzz_options_t o = berth_fuzz_options_default();
  o.out_dir = ".";
  bool quiet = false, seed_given = false, print_only = false;
  o.log = print_line;
  o.progress = print_progress;
  o.log_ctx = &quiet;
  const char *replay = NULL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    long long n;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    }
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
      if (strcmp(a, known[k]) == 0 && !berth_cli_once(a)) return BERTH_EXIT_USAGE;
    if (strcmp(a, "--quiet") == 0) {
      quiet = true;
      continue;
    }
    if (strcmp(a, "--no-shrink") == 0) {
      o.shrink = false;
      continue;
    }
    if (strcmp(a, "--quick") == 0) {
      o.quick = true;
      continue;
    }
    if (strcmp(a, "--print") == 0) {
      print_only = true;
      continue;
    }
    if (strcmp(a, "--fixed-layout") == 0) {
      o.vary_layout = false;
      continue;
    }
    if (strcmp(a, "--no-verify") == 0) {
      o.verify = false;
      continue;
    }
    if (strcmp(a, "--no-sanitize") == 0) {
      o.sanitize = false;
      continue;
    }
    int ms = berth_cli_max_steps_option(argc, argv, &i, &o.max_steps);
    if (ms < 0) return 2;
    if (ms > 0) continue;
    if (i + 1 >= argc) {
      fprintf(stderr, "berth fuzz: unknown option or missing value: '%s'\n", a);
      usage(stderr);
      return 2;
    }
    const char *v = argv[++i];
    if (strcmp(a, "--count") == 0) {
      if (!parse_int(a, v, 0, (long long)1 << 40, &n)) return 2;
      o.count = n;
    } else if (strcmp(a, "--seed") == 0) {
      char *end;
      o.seed = strtoull(v, &end, 10);
      if (!*v || *end) {
        fprintf(stderr, "berth fuzz: --seed takes an unsigned integer, not '%s'\n", v);
        return 2;
      }
      seed_given = true;
    } else if (strcmp(a, "--max-depth") == 0) {
      if (!parse_int(a, v, 0, 16, &n)) return 2;
      o.gen.max_depth = (int32_t)n;
    } else if (strcmp(a, "--calls") == 0) {
      if (!parse_int(a, v, 1, 64, &n)) return 2;
      o.calls = (int32_t)n;
    } else if (strcmp(a, "--mutants") == 0) {
      if (!parse_int(a, v, 0, 1000, &n)) return 2;
      o.mutants = (int32_t)n;
    } else if (strcmp(a, "--budget-ms") == 0) {
      if (!parse_int(a, v, 1, 100000, &n)) return 2;
      o.search_budget_ms = o.exact_budget_ms = n;
    } else if (strcmp(a, "--nodes") == 0) {
      if (!parse_int(a, v, 1, 100000, &n)) return 2;
      o.gen.node_budget = (int32_t)n;
    } else if (strcmp(a, "--asserts") == 0) {
      if (!parse_int(a, v, 0, 100, &n)) return 2;
      o.gen.assert_percent = (int32_t)n;
    } else if (strcmp(a, "--graph-nodes") == 0) {
      if (!parse_int(a, v, 1, 1000, &n)) return 2;
      o.gen.max_nodes = (int32_t)n;
    } else if (strcmp(a, "--time-limit") == 0) {
      if (!parse_int(a, v, 0, 1000000, &n)) return 2;
      o.time_limit_s = (double)n;
    } else if (strcmp(a, "--alignment") == 0) {
      if (!parse_int(a, v, 1, 4096, &n) || (n & (n - 1))) {
        fprintf(stderr, "berth fuzz: --alignment takes a power of two\n");
        return 2;
      }
      o.alignment = (uint32_t)n;
    } else if (strcmp(a, "--pools") == 0) {
      if (!berth_cli_check_pools(a, v)) return BERTH_EXIT_USAGE;
      o.pools = v;
    } else if (strcmp(a, "--strategy") == 0) {
      if (strcmp(v, "global") == 0) o.strategy = BERTH_FUZZ_STRATEGY_GLOBAL;
      else if (strcmp(v, "regions") == 0) o.strategy = BERTH_FUZZ_STRATEGY_REGIONS;
      else {
        fprintf(stderr, "berth fuzz: unknown strategy '%s' (global, regions)\n", v);
        return 2;
      }
    } else if (strcmp(a, "--avoid") == 0) {
      for (const char *t = v; *t;) {
        size_t len = strcspn(t, ",");
        if (len == 10 && !strncmp(t, "empty-scan", len)) o.gen.avoid |= BERTH_FUZZGEN_AVOID_EMPTY_SCAN;
        else if (len == 14 && !strncmp(t, "state-operands", len)) o.gen.avoid |= BERTH_FUZZGEN_AVOID_STATE_OPERANDS;
        else if (len == 5 && !strncmp(t, "while", len)) o.gen.avoid |= BERTH_FUZZGEN_AVOID_WHILE;
        else {
          fprintf(stderr, "berth fuzz: --avoid takes empty-scan,state-operands,while, not '%s'\n", v);
          return 2;
        }
        t += len + (t[len] == ',');
      }
    } else if (strcmp(a, "--out-dir") == 0) {
      o.out_dir = v;
    } else if (strcmp(a, "--replay") == 0) {
      replay = v;
    } else {
      fprintf(stderr, "berth fuzz: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }

  if (!print_only && !replay) { /* failing programs go there: know now that they can */
    struct stat dst;
    if (stat(o.out_dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
      fprintf(stderr, "berth fuzz: --out-dir %s: %s\n", o.out_dir,
              stat(o.out_dir, &dst) != 0 ? strerror(errno) : "not a directory");
      return BERTH_EXIT_FAIL;
    }
  }
  if (replay) {
    if (!seed_given && !replay_seed(replay, &o)) {
      fprintf(stderr, "berth fuzz: --replay %s: give --seed (neither the header nor the file name has one)\n", replay);
      return 2;
    }
    berth_source_t *p = berth_tool_load_program(replay);
    if (!p) return 1;
    char msg[2048];
    berth_fuzz_stats_t st;
    memset(&st, 0, sizeof st);
    berth_fuzz_kind_t k = berth_fuzz_check_source(p, o.seed, &o, &st, msg, sizeof msg);
    berth_source_destroy(p);
    if (k) printf("%s (seed %llu): %s: %s\n", replay, (unsigned long long)o.seed, berth_fuzz_kind_name(k), msg);
    else printf("%s (seed %llu): ok (%lld plans, %lld mutants: %lld rejected)\n", replay, (unsigned long long)o.seed,
                (long long)st.plans, (long long)st.mutants, (long long)st.mutants_rejected);
    return k ? 1 : 0;
  }

  if (print_only) { /* the programs only, as .bir text, without running anything */
    for (int64_t i = 0; i < o.count; i++) {
      char *text = NULL;
      if (berth_fuzz_program_text(o.seed + (uint64_t)i, &o.gen, &text)) {
        fprintf(stderr, "berth fuzz: out of memory\n");
        return 1;
      }
      printf("# seed %llu\n%s", (unsigned long long)(o.seed + (uint64_t)i), text);
      free(text);
    }
    return 0;
  }

  berth_fuzz_stats_t st;
  berth_status_t s = berth_fuzz_run(&o, &st);
  berth_cli_progress_end();
  if (s) {
    fprintf(stderr, "berth fuzz: %s\n", berth_status_name(s));
    return 1;
  }
  int64_t mismatches = st.by_kind[BERTH_FUZZ_MISMATCH] + st.by_kind[BERTH_FUZZ_RUN_ERROR];
  printf("%lld programs, %lld mismatches\n", (long long)st.programs, (long long)mismatches);
  if (!quiet) {
    printf("failures: %lld verifier rejections, %lld mutation misses, %lld compile errors, %lld reference errors, "
           "%lld invalid programs\n",
           (long long)st.by_kind[BERTH_FUZZ_VERIFY_REJECT], (long long)st.by_kind[BERTH_FUZZ_MUTATION_MISS],
           (long long)st.by_kind[BERTH_FUZZ_COMPILE_ERROR], (long long)st.by_kind[BERTH_FUZZ_REF_ERROR],
           (long long)st.by_kind[BERTH_FUZZ_INVALID]);
    printf("mutants: %lld tried, %lld rejected (%lld structurally), %lld accepted (all ran correctly unless a miss "
           "is counted above); %lld moved a view's source within reach of the view, %lld of them rejected; %lld "
           "moved a join's part out of its slot, %lld of them rejected\n",
           (long long)st.mutants, (long long)st.mutants_rejected, (long long)st.mutants_rejected_structural,
           (long long)st.mutants_accepted, (long long)st.mutants_on_views, (long long)st.mutants_on_views_rejected,
           (long long)st.mutants_on_joins, (long long)st.mutants_on_joins_rejected);
    printf("coverage: %lld nodes, %lld cond, %lld while_loop, %lld scan, %lld map, %lld copy_; programs by depth:",
           (long long)st.nodes, (long long)st.hops[0], (long long)st.hops[1], (long long)st.hops[2],
           (long long)st.hops[3], (long long)st.copies);
    for (int d = 0; d < 8; d++)
      if (st.depth_hist[d]) printf(" %d%s:%lld", d, d == 7 ? "+" : "", (long long)st.depth_hist[d]);
    printf("\n");
    printf("checks: %lld asserts (%lld inside bodies); %lld of %lld reference calls failed a check (%.1f %%), "
           "%lld programs failed one in every call, %lld planned calls failed the same one; %lld mutants on a "
           "check's operand, %lld rejected\n",
           (long long)st.asserts, (long long)st.asserts_nested, (long long)st.ref_traps, (long long)st.ref_calls,
           st.ref_calls ? 100.0 * (double)st.ref_traps / (double)st.ref_calls : 0.0,
           (long long)st.ref_programs_always_trapped, (long long)st.calls_trapped,
           (long long)st.mutants_on_checks, (long long)st.mutants_on_checks_rejected);
    printf("body results: %lld local, %lld passed through, %lld swapped, %lld outer captures, %lld constants or "
           "buffers, %lld returned twice; %lld method results are inputs, constants or buffers\n",
           (long long)st.body_results[0], (long long)st.body_results[1], (long long)st.body_results[2],
           (long long)st.body_results[3], (long long)st.body_results[4], (long long)st.body_results[5],
           (long long)st.method_results_io);
    printf("%lld plans (%lld views, %lld concats in place, %lld hoisted calls in them), %lld planned calls compared, "
           "%.1f s, %.1f programs/s\n",
           (long long)st.plans, (long long)st.plan_views, (long long)st.plan_joins, (long long)st.plan_hoisted, (long long)st.calls, st.seconds, st.seconds > 0 ? (double)st.programs / st.seconds : 0.0);
    if (st.failed) printf("first failing seed: %llu\n", (unsigned long long)st.first_failed_seed);
  }
  return st.failed ? 1 : 0;
}
