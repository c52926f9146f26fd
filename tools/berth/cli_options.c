#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *value_of(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "berth: %s needs a value\n", argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

static int parse_bool01(const char *opt, const char *v, int *out) {
  if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
    *out = v[0] - '0';
    return 1;
  }
  fprintf(stderr, "berth: %s takes 0 or 1, not '%s'\n", opt, v);
  return -1;
}

int berth_cli_max_steps_option(int argc, char **argv, int *i, uint64_t *max_steps) {
  if (strcmp(argv[*i], "--max-steps") != 0) return 0;
  if (!berth_cli_once(argv[*i])) return -1;
  const char *v = value_of(argc, argv, i);
  if (!v) return -1;
  char *end;
  errno = 0;
  unsigned long long n = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
  if (!n || *end || errno) {
    fprintf(stderr, "berth: --max-steps takes a positive integer (loop iterations per call), not '%s'\n", v);
    return -1;
  }
  *max_steps = n;
  return 1;
}

/* 1 when opt's planner options are valid; else -1 after printing the compiler's message
 * ("berth: unknown algorithm 'x' (naive, ...)"), after "OPT: " when opt_name is given. */
static int check(const char *opt_name, const berth_compile_options_t *opt) {
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  if (berth_compile_options_check(opt, &diag) == BERTH_OK) return 1;
  fprintf(stderr, "berth: %s%s%s\n", opt_name ? opt_name : "", opt_name ? ": " : "", msg);
  return -1;
}

int berth_cli_plan_option(int argc, char **argv, int *i, berth_compile_options_t *opt) {
  const char *a = argv[*i], *v;
  if (strcmp(a, "--algo") == 0 || strcmp(a, "--strategy") == 0) {
    if (!berth_cli_once(a)) return -1;
    if (!(v = value_of(argc, argv, i))) return -1;
    *(a[2] == 'a' ? &opt->algo : &opt->strategy) = v;
    return check(NULL, opt);
  }
  if (strcmp(a, "--no-views") == 0) { /* views planned as copy kernels (to measure views) */
    if (!berth_cli_once(a)) return -1;
    opt->views = false;
    return 1;
  }
  if (strcmp(a, "--no-concat-in-place") == 0 || strcmp(a, "--concat-in-place-always") == 0) {
    /* Concats as copy kernels (to measure joins), or joins even where the arena grows */
    if (!berth_cli_once("--no-concat-in-place or --concat-in-place-always")) return -1;
    opt->concat_in_place = a[2] == 'n' ? 0 : 2;
    return 1;
  }
  if (strcmp(a, "--no-hoist") == 0) { /* constant-only work on every call (to measure hoisting) */
    if (!berth_cli_once(a)) return -1;
    opt->hoist = false;
    return 1;
  }
  if (strcmp(a, "--hoist-min-bytes") == 0) {
    if (!berth_cli_once(a)) return -1;
    if (!(v = value_of(argc, argv, i))) return -1;
    char *end;
    long long b = strtoll(v, &end, 10);
    if (*end || !*v || b < 0 || *v == '-' || *v == ' ') {
      fprintf(stderr, "berth: --hoist-min-bytes takes a non-negative integer, not '%s'\n", v);
      return -1;
    }
    opt->hoist_min_bytes = b;
    return 1;
  }
  if (strcmp(a, "--no-verify") == 0) {
    if (!berth_cli_once(a)) return -1;
    opt->verify = false;
    return 1;
  }
  if (strcmp(a, "--budget-ms") == 0) {
    if (!berth_cli_once(a)) return -1;
    if (!(v = value_of(argc, argv, i))) return -1;
    char *end;
    long long b = strtoll(v, &end, 10);
    if (*end || b < 0) {
      fprintf(stderr, "berth: --budget-ms takes a non-negative integer, not '%s'\n", v);
      return -1;
    }
    opt->budget_ms = b;
    return 1;
  }
  if (strcmp(a, "--budget-work") == 0) {
    if (!berth_cli_once(a)) return -1;
    if (!(v = value_of(argc, argv, i))) return -1;
    char *end;
    long long b = strtoll(v, &end, 10);
    if (*end || b <= 0 || *v == '-' || *v == ' ') {
      fprintf(stderr, "berth: --budget-work takes a positive integer, not '%s'\n", v);
      return -1;
    }
    opt->budget_work = b;
    return 1;
  }
  if (strcmp(a, "--alignment") == 0) {
    if (!berth_cli_once(a)) return -1;
    if (!(v = value_of(argc, argv, i))) return -1;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n <= 0 || n > 4096 || (n & (n - 1))) {
      fprintf(stderr, "berth: --alignment takes a power of two up to 4096, not '%s'\n", v);
      return -1;
    }
    opt->alignment = (uint32_t)n;
    return 1;
  }
  if (strcmp(a, "--pools") == 0) {
    if (!berth_cli_once(a)) return -1;
    if (!(v = value_of(argc, argv, i))) return -1;
    opt->pools = v;
    return check(a, opt);
  }
  if (strcmp(a, "--alloc-inputs") == 0) {
    if (!berth_cli_once(a)) return -1;
    if (!(v = value_of(argc, argv, i))) return -1;
    return parse_bool01(a, v, &opt->alloc_inputs);
  }
  if (strcmp(a, "--alloc-outputs") == 0) {
    if (!berth_cli_once(a)) return -1;
    if (!(v = value_of(argc, argv, i))) return -1;
    return parse_bool01(a, v, &opt->alloc_outputs);
  }
  return 0;
}
