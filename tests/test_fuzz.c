/* The differential fuzzer: a quick seeded batch must pass (planned runtime == reference,
 * bit for bit, under every algorithm and alloc_inputs/outputs option, sanitizer on, verifier
 * mutants rejected or harmless); a deliberately wrong plan (ExecuTorch's `regions` scheme,
 * verifier off) must be caught, and rejected with the verifier on; the generator is
 * deterministic and its programs (asserts and their messages too) survive print/parse; the
 * shrinker writes a smaller program that still fails, and keeps an assert that the failure
 * needs; some calls fail a run-time check, the same one in every plan; and every program
 * kept in tests/fuzz_regressions/ passes, replayed with the inputs of its seed. */
#define _POSIX_C_SOURCE 200809L

#include "fuzzgen/fuzz_driver.h"
#include "test_util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Sized so that the whole test stays well under a minute in the ASan + UBSan build too. */
#define QUICK_SEED 20240601u
#define QUICK_COUNT 2000
#define REGIONS_COUNT 150

static void log_line(void *ctx, const char *line) {
  (void)ctx;
  fprintf(stderr, "  fuzz: %s\n", line);
}

static berth_fuzz_options_t quick_options(void) {
  berth_fuzz_options_t o = berth_fuzz_options_default();
  o.calls = 3;
  o.search_budget_ms = 1;
  o.exact_budget_ms = 1;
  o.mutants = 1;
  o.gen.node_budget = 28;
  o.shrink = true;
  o.max_failures = 3; /* a broken planner fails fast; the seeds are printed */
  o.quick = true;      /* search and exact under one alloc_inputs/outputs option per program */
  o.log = log_line;
  return o;
}

static void test_quick_batch(void) {
  berth_fuzz_options_t o = quick_options();
  o.seed = QUICK_SEED;
  o.count = QUICK_COUNT;
  berth_fuzz_stats_t st;
  CHECK(berth_fuzz_run(&o, &st) == BERTH_OK);
  fprintf(stderr, "quick batch: %lld programs from seed %llu, %lld failed; %lld plans, %lld calls, %.1f s\n",
          (long long)st.programs, (unsigned long long)o.seed, (long long)st.failed, (long long)st.plans,
          (long long)st.calls, st.seconds);
  CHECK_MSG(st.failed == 0,
            "%lld failing programs (first seed %llu): %lld mismatches, %lld runtime errors, %lld verifier rejections, "
            "%lld compile errors, %lld mutation misses, %lld invalid programs",
            (long long)st.failed, (unsigned long long)st.first_failed_seed, (long long)st.by_kind[BERTH_FUZZ_MISMATCH],
            (long long)st.by_kind[BERTH_FUZZ_RUN_ERROR], (long long)st.by_kind[BERTH_FUZZ_VERIFY_REJECT],
            (long long)st.by_kind[BERTH_FUZZ_COMPILE_ERROR], (long long)st.by_kind[BERTH_FUZZ_MUTATION_MISS],
            (long long)st.by_kind[BERTH_FUZZ_INVALID]);
  if (st.failed) return; /* the batch stopped early: coverage numbers mean nothing */
  CHECK(st.programs == QUICK_COUNT);
  CHECK(st.plans == 10 * st.programs);
  /* the generator really produces what the batch claims to test */
  CHECK_MSG(st.depth_hist[4] > st.programs / 10, "%lld of %lld programs reach depth 4", (long long)st.depth_hist[4],
            (long long)st.programs);
  for (int k = 0; k < 4; k++) CHECK_MSG(st.hops[k] > st.programs / 2, "HOP kind %d: %lld", k, (long long)st.hops[k]);
  CHECK(st.copies > st.programs / 2);
  /* half the programs plan with --hoist-min-bytes 0: constant-only chains (full, ops on
   * constants) run in the once-stream, compared with the reference interpreter like the rest */
  CHECK_MSG(st.plan_hoisted > st.programs / 4, "%lld hoisted calls in %lld programs", (long long)st.plan_hoisted,
            (long long)st.programs);
  /* mutation check: most mutants rejected, none accepted that then goes wrong */
  fprintf(stderr, "mutants: %lld tried, %lld rejected, %lld accepted\n", (long long)st.mutants,
          (long long)st.mutants_rejected, (long long)st.mutants_accepted);
  CHECK(st.mutants > st.programs / 2);
  CHECK_MSG(st.mutants_rejected * 2 > st.mutants, "only %lld of %lld mutants rejected", (long long)st.mutants_rejected,
            (long long)st.mutants);
  CHECK(st.mutation_misses == 0);
  /* views: sources moved while they still cover their views (caught by the views' offsets) */
  fprintf(stderr, "mutants on views: %lld tried, %lld rejected\n", (long long)st.mutants_on_views,
          (long long)st.mutants_on_views_rejected);
  CHECK(st.mutants_on_views > 0 && st.mutants_on_views_rejected == st.mutants_on_views);
  /* run-time checks: asserts at every depth; some calls fail one in the reference, and the
   * same one in every plan, with the same buffers after it */
  fprintf(stderr,
          "checks: %lld asserts (%lld in bodies); %lld of %lld reference calls failed one (%lld programs in every "
          "call), %lld planned calls failed the same; %lld mutants on a check's operand, %lld rejected\n",
          (long long)st.asserts, (long long)st.asserts_nested, (long long)st.ref_traps, (long long)st.ref_calls,
          (long long)st.ref_programs_always_trapped, (long long)st.calls_trapped, (long long)st.mutants_on_checks,
          (long long)st.mutants_on_checks_rejected);
  CHECK(st.asserts > st.programs / 2);
  CHECK(st.asserts_nested > st.programs / 4);
  CHECK(st.ref_calls == st.programs * o.calls);
  CHECK_MSG(st.ref_traps * 50 > st.ref_calls && st.ref_traps * 4 < st.ref_calls,
            "%lld of %lld calls fail a check (want 2..25 %%)", (long long)st.ref_traps, (long long)st.ref_calls);
  CHECK_MSG(st.ref_programs_always_trapped * 10 < st.programs, "%lld of %lld programs fail a check in every call",
            (long long)st.ref_programs_always_trapped, (long long)st.programs);
  CHECK(st.calls_trapped >= st.ref_traps * 10); /* 10 plans a program (and mutants) */
  CHECK(st.mutants_on_checks > 0 && st.mutants_on_checks_rejected > 0);
}

/* Runs fn(ctx, out) in a child process, whose stderr is dropped, and copies its `size`
 * bytes of *out back. A plan that was never verified may break the runtime's
 * preconditions (a copy between overlapping bytes, which AddressSanitizer turns into an
 * abort) or, without berth's sanitizer, clobber a loop counter and spin until the runtime's
 * step limit. Returns false if the child did not finish normally within `seconds`. */
static bool in_child(void (*fn)(void *ctx, void *out), void *ctx, void *out, size_t size, unsigned seconds) {
  memset(out, 0, size);
  int fds[2];
  if (pipe(fds) != 0) return false;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(seconds);
    FILE *null = freopen("/dev/null", "w", stderr);
    (void)null;
    void *r = calloc(1, size);
    if (!r) _exit(3);
    fn(ctx, r);
    const char *b = (const char *)r;
    size_t done = 0;
    while (done < size) {
      ssize_t k = write(fds[1], b + done, size - done);
      if (k <= 0) _exit(3);
      done += (size_t)k;
    }
    _exit(0);
  }
  close(fds[1]);
  size_t got = 0;
  char *b = (char *)out;
  while (got < size) {
    ssize_t k = read(fds[0], b + got, size - got);
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) fprintf(stderr, "  (the child stopped on signal %d)\n", WTERMSIG(status));
  else if (WIFEXITED(status) && WEXITSTATUS(status)) fprintf(stderr, "  (the child exited with %d)\n", WEXITSTATUS(status));
  return got == size && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void run_batch(void *ctx, void *out) { berth_fuzz_run((const berth_fuzz_options_t *)ctx, out); }

/* Runs a batch in a child process (see in_child). */
static bool run_isolated(const berth_fuzz_options_t *o, berth_fuzz_stats_t *st, unsigned seconds) {
  return in_child(run_batch, (void *)o, st, sizeof *st, seconds);
}

/* ExecuTorch's scheme with the verifier off must produce wrong answers or sanitizer
 * reports on some generated programs (so the comparison can see a planner bug), and with
 * the verifier on it must be rejected on some. */
static void test_wrong_plan_caught(void) {
  berth_fuzz_options_t o = quick_options();
  o.seed = 7;
  o.count = REGIONS_COUNT;
  o.strategy = BERTH_FUZZ_STRATEGY_REGIONS;
  o.verify = false;
  o.mutants = 0;
  o.shrink = false;
  o.max_failures = 0;
  o.log = NULL;
  berth_fuzz_stats_t st;
  bool finished = run_isolated(&o, &st, 120);
  int64_t caught = st.by_kind[BERTH_FUZZ_MISMATCH] + st.by_kind[BERTH_FUZZ_RUN_ERROR];
  if (finished)
    fprintf(stderr, "regions, no verifier: %lld of %lld programs caught (%lld mismatches, %lld sanitizer/runtime)\n",
            (long long)caught, (long long)st.programs, (long long)st.by_kind[BERTH_FUZZ_MISMATCH],
            (long long)st.by_kind[BERTH_FUZZ_RUN_ERROR]);
  else fprintf(stderr, "regions, no verifier: the run was stopped (by AddressSanitizer in this build)\n");
  CHECK(!finished || caught > 0);
#if !defined(__SANITIZE_ADDRESS__)
  CHECK_MSG(finished, "the batch crashed without AddressSanitizer");
#endif
  /* without berth's sanitizer the bit-for-bit comparison alone sees the wrong answers */
  o.sanitize = false;
  o.gen.avoid = BERTH_FUZZGEN_AVOID_WHILE; /* nothing would stop a loop whose counter is clobbered */
  o.count = 3 * REGIONS_COUNT;
  finished = run_isolated(&o, &st, 60);
  if (finished)
    fprintf(stderr, "regions, no verifier, no sanitizer: %lld of %lld programs give wrong outputs or buffers\n",
            (long long)st.by_kind[BERTH_FUZZ_MISMATCH], (long long)st.programs);
  else fprintf(stderr, "regions, no verifier, no sanitizer: the run was stopped (crash or runaway loop)\n");
  CHECK(!finished || st.by_kind[BERTH_FUZZ_MISMATCH] > 0);
#if !defined(__SANITIZE_ADDRESS__)
  CHECK_MSG(finished, "the batch crashed or hung without AddressSanitizer");
#endif
  o.gen.avoid = 0;
  o.sanitize = true;
  o.verify = true;
  o.count = REGIONS_COUNT / 3;
  CHECK(berth_fuzz_run(&o, &st) == BERTH_OK);
  CHECK_MSG(st.by_kind[BERTH_FUZZ_VERIFY_REJECT] > 0, "the verifier rejected none of %lld regions plans",
            (long long)st.programs);
}

/* The same seed gives the same program; print -> parse -> print is a fixed point; inputs
 * depend only on the seed, the call and the parameter types. */
static void test_generator(void) {
  berth_fuzzgen_options_t go = berth_fuzzgen_options_default();
  for (uint64_t seed = 1; seed <= 40; seed++) {
    berth_ir_program_t *a = NULL, *b = NULL, *c = NULL;
    CHECK(berth_fuzzgen_program(seed, &go, &a) == BERTH_OK);
    CHECK(berth_fuzzgen_program(seed, &go, &b) == BERTH_OK);
    if (!a || !b) {
      berth_ir_program_destroy(a);
      berth_ir_program_destroy(b);
      continue;
    }
    char msg[1024];
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    CHECK_MSG(berth_ir_validate(a, &d) == BERTH_OK, "seed %llu: %s", (unsigned long long)seed, msg);
    char *ta = berth_ir_print(a), *tb = berth_ir_print(b);
    CHECK(ta && tb && strcmp(ta, tb) == 0);
    d = berth_diag_make(msg, sizeof msg);
    CHECK_MSG(ta && berth_ir_parse(ta, strlen(ta), "gen", &c, &d) == BERTH_OK, "seed %llu: %s", (unsigned long long)seed,
              msg);
    if (c) {
      char *tc = berth_ir_print(c);
      CHECK_MSG(tc && strcmp(ta, tc) == 0, "seed %llu: print/parse/print differs", (unsigned long long)seed);
      void *ia[BERTH_FUZZGEN_MAX_PARAMS], *ic[BERTH_FUZZGEN_MAX_PARAMS];
      CHECK(berth_fuzzgen_inputs_create(a, 0, seed, 1, ia) == BERTH_OK);
      CHECK(berth_fuzzgen_inputs_create(c, 0, seed, 1, ic) == BERTH_OK);
      const berth_ir_method_t *m = &a->methods[0];
      for (int32_t i = 0; i < m->graphs[0].n_params; i++)
        CHECK(memcmp(ia[i], ic[i], berth_type_bytes(&m->values[m->graphs[0].params[i]].type)) == 0);
      berth_fuzzgen_inputs_destroy(a, 0, ia);
      berth_fuzzgen_inputs_destroy(c, 0, ic);
      free(tc);
    }
    free(ta);
    free(tb);
    berth_ir_program_destroy(a);
    berth_ir_program_destroy(b);
    berth_ir_program_destroy(c);
  }
  /* asserts: some in seeds 1..40, each with a message (some printed with escapes); none
   * with assert_percent 0 (the generator's default) */
  go.assert_percent = berth_fuzz_options_default().gen.assert_percent;
  CHECK(go.assert_percent > 0 && berth_fuzzgen_options_default().assert_percent == 0);
  int asserts = 0, escaped = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    berth_ir_program_t *a = NULL;
    CHECK(berth_fuzzgen_program(seed, &go, &a) == BERTH_OK);
    if (!a) continue;
    const berth_ir_method_t *m = &a->methods[0];
    for (int32_t i = 0; i < m->n_nodes; i++) {
      if (m->nodes[i].op != BERTH_OP_ASSERT) continue;
      asserts++;
      const char *text = berth_ir_string(a, m->nodes[i].attrs[0].i);
      CHECK_MSG(text && strncmp(text, "check ", 6) == 0, "seed %llu: assert message '%s'", (unsigned long long)seed,
                text ? text : "(none)");
      if (text && strpbrk(text, "\"\\\t\xc3\xe2")) escaped++;
    }
    berth_ir_program_destroy(a);
    berth_fuzzgen_options_t none = go;
    none.assert_percent = 0;
    CHECK(berth_fuzzgen_program(seed, &none, &a) == BERTH_OK);
    for (int32_t i = 0; a && i < a->methods[0].n_nodes; i++) CHECK(a->methods[0].nodes[i].op != BERTH_OP_ASSERT);
    berth_ir_program_destroy(a);
  }
  fprintf(stderr, "generator: %d asserts in 40 programs, %d with quotes, backslashes, tabs or UTF-8\n", asserts, escaped);
  CHECK(asserts > 20);
  CHECK(escaped > 0);
  /* depth 0: no HOPs at all */
  go.max_depth = 0;
  berth_ir_program_t *p = NULL;
  CHECK(berth_fuzzgen_program(3, &go, &p) == BERTH_OK);
  if (p) {
    CHECK(p->methods[0].n_graphs == 1);
    for (int32_t i = 0; i < p->methods[0].n_nodes; i++) {
      berth_op_kind_t k = berth_op_get(p->methods[0].nodes[i].op)->kind;
      CHECK(k == BERTH_OPKIND_KERNEL || k == BERTH_OPKIND_COPY_ || k == BERTH_OPKIND_ASSERT);
    }
  }
  berth_ir_program_destroy(p);
}

/* Shrinking: the first program whose `regions` plan the verifier rejects is shrunk and
 * written; the file parses, is smaller than the original, and fails the same way when
 * replayed with its seed. (No unverified plan runs here.) */
static void test_shrink_and_replay(void) {
  char dir[] = "/tmp/berth-test-fuzz-XXXXXX";
  if (!mkdtemp(dir)) {
    CHECK_MSG(0, "mkdtemp failed");
    return;
  }
  berth_fuzz_options_t o = quick_options();
  o.seed = 7;
  o.count = REGIONS_COUNT;
  o.strategy = BERTH_FUZZ_STRATEGY_REGIONS;
  o.mutants = 0;
  o.max_failures = 1;
  o.out_dir = dir;
  o.log = NULL;
  berth_fuzz_stats_t st;
  CHECK(berth_fuzz_run(&o, &st) == BERTH_OK);
  CHECK(st.failed == 1 && st.by_kind[BERTH_FUZZ_VERIFY_REJECT] == 1);
  if (st.failed != 1) {
    rmdir(dir);
    return;
  }
  uint64_t seed = st.first_failed_seed;
  char path[512];
  snprintf(path, sizeof path, "%s/fuzz-fail-%llu.bir", dir, (unsigned long long)seed);
  size_t len = 0;
  char *text = test_read_file(path, &len);
  CHECK_MSG(text != NULL, "no shrunk program at %s", path);
  if (text) {
    berth_ir_program_t *small = NULL, *orig = NULL;
    char msg[2048];
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    CHECK_MSG(berth_ir_parse(text, len, path, &small, &d) == BERTH_OK, "%s", msg);
    CHECK(berth_fuzzgen_program(seed, &o.gen, &orig) == BERTH_OK);
    if (small && orig) {
      CHECK_MSG(small->methods[0].n_nodes < orig->methods[0].n_nodes, "shrunk to %d nodes from %d",
                (int)small->methods[0].n_nodes, (int)orig->methods[0].n_nodes);
      berth_fuzz_kind_t k = berth_fuzz_check_program(small, seed, &o, NULL, msg, sizeof msg);
      CHECK_MSG(k == BERTH_FUZZ_VERIFY_REJECT, "replay gives %s: %s", berth_fuzz_kind_name(k), msg);
    }
    berth_ir_program_destroy(small);
    berth_ir_program_destroy(orig);
    free(text);
  }
  remove(path);
  rmdir(dir);
}

/* Shrinking keeps run-time checks (the shrinker copies the string table): a wrong plan
 * (`regions`, verifier and sanitizer off) under which an assert fails where the reference
 * passes it, or passes where the reference fails, is shrunk to a smaller program that still
 * holds the assert with its message and replays with the same failure. Plans that were
 * never verified run, so all of it happens in a child process. */
typedef struct check_seeds {
  unsigned long long seed[4];
  int n;
} check_seeds_t;

static void note_check_failure(void *ctx, const char *line) {
  check_seeds_t *cs = ctx;
  unsigned long long seed;
  bool outcome = strstr(line, "failed a check that holds") || strstr(line, "but the reference failed a check") ||
                 strstr(line, "another check than");
  if (outcome && cs->n < 4 && sscanf(line, "seed %llu:", &seed) == 1) cs->seed[cs->n++] = seed;
}

typedef struct check_shrink {
  unsigned long long seed; /* 0: no shrunk program held an assert */
  int32_t candidates, nodes, orig_nodes, replay_kind;
  char message[160];
} check_shrink_t;

static void shrink_check_child(void *ctx, void *out) {
  const char *dir = ctx;
  check_shrink_t *r = out;
  berth_fuzz_options_t o = quick_options();
  o.count = 50;
  o.strategy = BERTH_FUZZ_STRATEGY_REGIONS;
  o.verify = false;
  o.sanitize = false;
  o.gen.avoid = BERTH_FUZZGEN_AVOID_WHILE; /* nothing would stop a loop whose counter is clobbered */
  o.gen.assert_percent = 40;
  o.mutants = 0;
  o.shrink = false;
  o.max_failures = 0;
  check_seeds_t found = {{0}, 0};
  o.log = note_check_failure;
  o.log_ctx = &found;
  berth_fuzz_stats_t st;
  /* a few candidates: the shrinker may reach a smaller failure that no longer needs the check */
  for (o.seed = 7; o.seed < 7 + 1000 && found.n < 3; o.seed += (uint64_t)o.count) berth_fuzz_run(&o, &st);
  r->candidates = found.n;
  o.log = NULL;
  o.shrink = true;
  o.out_dir = dir;
  o.count = 1;
  for (int i = 0; i < found.n && !r->seed; i++) {
    o.seed = found.seed[i];
    berth_fuzz_run(&o, &st);
    char path[512], msg[2048];
    snprintf(path, sizeof path, "%s/fuzz-fail-%llu.bir", dir, found.seed[i]);
    size_t len = 0;
    char *text = test_read_file(path, &len);
    berth_ir_program_t *small = NULL, *orig = NULL;
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    if (text && berth_ir_parse(text, len, path, &small, &d) == BERTH_OK &&
        berth_fuzzgen_program(found.seed[i], &o.gen, &orig) == BERTH_OK) {
      const berth_ir_method_t *m = &small->methods[0];
      for (int32_t k = 0; k < m->n_nodes && !r->seed; k++) {
        if (m->nodes[k].op != BERTH_OP_ASSERT) continue;
        const char *t = berth_ir_string(small, m->nodes[k].attrs[0].i);
        snprintf(r->message, sizeof r->message, "%s", t ? t : "(none)");
        r->seed = found.seed[i];
        r->nodes = m->n_nodes;
        r->orig_nodes = orig->methods[0].n_nodes;
        berth_fuzz_options_t ro = o;
        const char *calls = strstr(text, "--calls ");
        if (calls && atoi(calls + 8) > 0) ro.calls = atoi(calls + 8);
        r->replay_kind = (int32_t)berth_fuzz_check_program(small, r->seed, &ro, NULL, msg, sizeof msg);
      }
    }
    berth_ir_program_destroy(small);
    berth_ir_program_destroy(orig);
    free(text);
  }
}

static void test_shrink_keeps_asserts(void) {
  char dir[] = "/tmp/berth-test-fuzz-XXXXXX";
  if (!mkdtemp(dir)) {
    CHECK_MSG(0, "mkdtemp failed");
    return;
  }
  check_shrink_t r;
  bool finished = in_child(shrink_check_child, dir, &r, sizeof r, 120);
  if (finished)
    fprintf(stderr, "shrinking with asserts: %d programs where a check went otherwise; seed %llu shrunk from %d to %d "
            "nodes, keeps assert \"%s\"; replay: %s\n", (int)r.candidates, r.seed, (int)r.orig_nodes, (int)r.nodes,
            r.message, berth_fuzz_kind_name((berth_fuzz_kind_t)r.replay_kind));
  else fprintf(stderr, "shrinking with asserts: the run was stopped (by AddressSanitizer in this build)\n");
#if !defined(__SANITIZE_ADDRESS__)
  CHECK_MSG(finished, "the batch crashed or hung without AddressSanitizer");
#endif
  if (finished) {
    CHECK_MSG(r.seed != 0, "no shrunk program kept its assert (%d candidates)", (int)r.candidates);
    CHECK(r.nodes < r.orig_nodes);
    CHECK(strncmp(r.message, "check ", 6) == 0);
    CHECK(r.replay_kind == BERTH_FUZZ_MISMATCH);
  }
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    remove(path);
  }
  if (d) closedir(d);
  rmdir(dir);
}

/* Every kept failing program must pass now. The seed, the number of calls and of verifier
 * mutants come from the header's replay line (the seed else from the file name's last
 * number; 8 mutants unless it says --mutants). */
static void replay_regression(const char *path, const char *name, const unsigned char *data, size_t len, void *ctx) {
  (void)ctx;
  const char *text = (const char *)data;
  /* the seed: the header's "--seed N", else the last number of the file name */
  unsigned long long seed = 0;
  const char *at = strstr(text, "--seed ");
  if (at) seed = strtoull(at + 7, NULL, 10);
  else {
    size_t k = strlen(name) - 4;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') k--;
    seed = strtoull(name + k, NULL, 10);
  }
  berth_fuzz_options_t o = quick_options();
  const char *calls = strstr(text, "--calls ");
  if (calls) o.calls = atoi(calls + 8) > 0 ? atoi(calls + 8) : 3;
  o.mutants = 8;
  const char *mutants = strstr(text, "--mutants "); /* a miss found by a later mutant of that program */
  if (mutants && atoi(mutants + 10) > 0) o.mutants = atoi(mutants + 10);
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  CHECK_MSG(berth_ir_parse(text, len, path, &p, &d) == BERTH_OK, "%s", msg);
  if (p) {
    berth_fuzz_kind_t k = berth_fuzz_check_program(p, seed, &o, NULL, msg, sizeof msg);
    CHECK_MSG(k == BERTH_FUZZ_OK, "%s (seed %llu): %s: %s", name, seed, berth_fuzz_kind_name(k), msg);
  }
  berth_ir_program_destroy(p);
}

static void test_regressions(void) {
  int n = test_replay_dir(BERTH_SOURCE_DIR "/tests/fuzz_regressions", ".bir", TEST_REPLAY_OPTIONAL, replay_regression,
                          NULL);
  fprintf(stderr, "replayed %d kept failing programs\n", n);
}

int main(void) {
  test_generator();
  test_regressions();
  test_wrong_plan_caught();
  test_shrink_and_replay();
  test_shrink_keeps_asserts();
  test_quick_batch();
  return test_finish("test_fuzz");
}
