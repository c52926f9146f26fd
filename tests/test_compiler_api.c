/* The public compiler API (berth/compiler.h), used the way an embedder or a binding would:
 * compile the seed program, load the file with the runtime API and run it three times (the second
 * observed: berth_method_set_observer, berth_method_instr_info); the plan
 * summary; ONNX input specs (shapes, bound values, every malformed form refused with a
 * message); options checked; the ONNX op list with its verified opsets and types; sources
 * (berth_source_*) parsed, printed, compiled and read back from a program file. */
#include "berth/compiler.h"
#include "berth/inspect.h"
#include "berth/profile.h"
#include "berth/runtime.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static char msg[2048];

static berth_compilation_t *compile_file(const char *path, const berth_compile_options_t *opt, berth_status_t *st) {
  size_t len;
  char *src = test_read_file(path, &len);
  CHECK_MSG(src != NULL, "cannot read %s", path);
  if (!src) return NULL;
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_compilation_t *c = NULL;
  *st = berth_compile(src, len, path, opt, &c, &diag);
  free(src);
  return c;
}

/* berth_method_set_observer's record of one execute: every event, in order. */
typedef struct obs_log {
  int32_t instr[256];
  bool begin[256];
  int n;
} obs_log_t;
static void observe(void *ctx, int32_t instr, bool begin) {
  obs_log_t *l = ctx;
  if (l->n < 256) l->instr[l->n] = instr, l->begin[l->n] = begin;
  l->n++;
}

/* The observer's events on the seed's second call: pairs (begin, end) of one instruction, in
 * stream order within a branch, each a kernel call or a copy by berth_method_instr_info. */
static void check_observed(const berth_method_t *fwd, const obs_log_t *l) {
  const int32_t n = berth_method_instr_count(fwd);
  CHECK_MSG(l->n >= 2 && l->n <= 256 && l->n % 2 == 0, "%d observer events", l->n);
  int kernels = 0;
  for (int e = 0; e + 1 < l->n && e + 1 < 256; e += 2) {
    CHECK_MSG(l->begin[e] && !l->begin[e + 1] && l->instr[e] == l->instr[e + 1], "events %d, %d: %d %d / %d %d", e,
              e + 1, (int)l->instr[e], (int)l->begin[e], (int)l->instr[e + 1], (int)l->begin[e + 1]);
    berth_instr_info_t info;
    CHECK(l->instr[e] >= 0 && l->instr[e] < n && berth_method_instr_info(fwd, l->instr[e], &info, NULL) == BERTH_OK);
    CHECK_MSG(info.op != NULL, "instruction %d observed but neither a kernel nor a copy", (int)l->instr[e]);
    if (info.op && strcmp(info.op, "copy") != 0) kernels++;
    CHECK_MSG(info.out_name[0] == '%' && info.out_type.rank >= 0, "instruction %d: output '%s'", (int)l->instr[e],
              info.out_name);
  }
  CHECK_MSG(kernels > 0, "no kernel call observed");
  /* the stream's other instructions (the conds' jumps, the return) have no op */
  int others = 0;
  for (int32_t i = 0; i < n; i++) {
    berth_instr_info_t info;
    CHECK(berth_method_instr_info(fwd, i, &info, NULL) == BERTH_OK);
    others += info.op == NULL;
  }
  CHECK_MSG(others > 0, "every one of %d instructions has an op", (int)n);
  berth_instr_info_t info;
  char m2[256];
  berth_diag_t d2 = berth_diag_make(m2, sizeof m2);
  CHECK(berth_method_instr_info(fwd, n, &info, &d2) == BERTH_ERR_INVALID_ARGUMENT && strstr(m2, "has no instruction"));
  CHECK(berth_method_instr_info(NULL, 0, &info, NULL) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_method_instr_count(NULL) == -1);
}

/* berth/profile.h on the seed: two calls profiled, each kernel call and copy that ran counted
 * twice, every other instruction never; cleared, and detached (the handle runs on). */
static void check_profile(berth_method_t *fwd, const berth_program_t *prog) {
  berth_profile_t *pr = NULL;
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_profile_attach(NULL, &pr, &diag) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "not a method handle"));
  CHECK(berth_profile_attach(fwd, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(berth_profile_attach(fwd, &pr, &diag) == BERTH_OK && pr, "%s", msg);
  double x = 6.0, out[2][1];
  for (int c = 0; c < 2; c++) {
    CHECK(berth_method_set_input(fwd, 0, &x, sizeof x, &diag) == BERTH_OK);
    if (!berth_program_outputs_planned(prog))
      for (int j = 0; j < 2; j++) CHECK(berth_method_set_output(fwd, j, out[j], sizeof out[j], &diag) == BERTH_OK);
    CHECK_MSG(berth_method_execute(fwd, &diag) == BERTH_OK, "%s", msg);
  }
  int ran = 0;
  for (int32_t i = 0; i < berth_method_instr_count(fwd); i++) {
    berth_instr_info_t info;
    CHECK(berth_method_instr_info(fwd, i, &info, NULL) == BERTH_OK);
    const uint64_t runs = berth_profile_runs(pr, i);
    CHECK_MSG(runs == 0 || (runs == 2 && info.op), "instruction %d (%s) ran %llu times in 2 calls", (int)i,
              info.op ? info.op : "no op", (unsigned long long)runs);
    CHECK_MSG(runs || berth_profile_ns(pr, i) == 0, "instruction %d: time without a run", (int)i);
    ran += runs > 0;
  }
  CHECK_MSG(ran > 0, "no instruction ran");
  CHECK(berth_profile_runs(pr, -1) == 0 && berth_profile_ns(pr, berth_method_instr_count(fwd)) == 0);
  berth_profile_clear(pr);
  for (int32_t i = 0; i < berth_method_instr_count(fwd); i++) CHECK(berth_profile_runs(pr, i) == 0);
  berth_profile_detach(pr);
  berth_profile_detach(NULL);
}

/* Runs forward of the compiled seed on 5.0 then 6.0: the seed issue's (5, 5) (6, 7); the
 * second call observed (berth_method_set_observer), then a third with the observer off. */
static void run_seed(const berth_compilation_t *c) {
  size_t len;
  const uint8_t *bytes = berth_compilation_bytes(c, &len);
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_program_sizes_t sz;
  CHECK(berth_program_query(bytes, len, &sz, &diag) == BERTH_OK);
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes + 1);
  berth_program_t *prog = NULL;
  CHECK_MSG(berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &diag) == BERTH_OK,
            "%s", msg);
  free(scratch);
  if (!prog) {
    free(pmem);
    return;
  }
  int32_t m = berth_program_method_find(prog, "forward");
  size_t need = berth_method_memory_size(prog, m);
  void *mmem = malloc(need);
  berth_method_t *fwd = NULL;
  CHECK(berth_method_init(prog, m, mmem, need, NULL, 0, &fwd, &diag) == BERTH_OK);
  double want[3][2] = {{5, 5}, {6, 7}, {7, 8}};
  obs_log_t log = {{0}, {0}, 0};
  int observed = 0;
  for (int call = 0; fwd && call < 3; call++) {
    double x = 5.0 + call, out[2][1];
    berth_method_set_observer(fwd, call == 1 ? observe : NULL, &log);
    CHECK(berth_method_set_input(fwd, 0, &x, sizeof x, &diag) == BERTH_OK);
    if (!berth_program_outputs_planned(prog))
      for (int j = 0; j < 2; j++) CHECK(berth_method_set_output(fwd, j, out[j], sizeof out[j], &diag) == BERTH_OK);
    CHECK_MSG(berth_method_execute(fwd, &diag) == BERTH_OK, "%s", msg);
    for (int j = 0; j < 2; j++) {
      const void *r = NULL;
      size_t rb = 0;
      CHECK(berth_method_output(fwd, j, &r, &rb, &diag) == BERTH_OK && rb == sizeof(double));
      double v;
      if (r) memcpy(&v, r, sizeof v);
      CHECK_MSG(r && v == want[call][j], "call %d output %d: %g, want %g", call + 1, j, r ? v : -1.0, want[call][j]);
    }
    if (call == 1) check_observed(fwd, &log), observed = log.n;
    if (call == 2) check_profile(fwd, prog);
    if (call == 2) CHECK_MSG(log.n == observed, "the observer, off, saw %d more events", log.n - observed);
  }
  free(mmem);
  free(pmem);
}

/* The seed's plan value by value: every value where the summary says the pools and the
 * state are, the state buffer in the state region, the nested conds' hand-overs at their
 * results' bytes, and lifetimes that are ordered intervals. */
static void check_seed_values(const berth_compilation_t *c, const berth_plan_summary_t *s) {
  int32_t n = berth_compilation_value_count(c, 0);
  CHECK_MSG(n == s->n_values && n > 0, "%d values, the summary says %d", (int)n, (int)s->n_values);
  CHECK(berth_compilation_value_count(c, 1) == 0 && berth_compilation_value_count(NULL, 0) == 0);
  int32_t state = 0, shared = 0, timed = 0;
  berth_plan_value_t v, w;
  for (int32_t k = 0; k < n; k++) {
    CHECK(berth_compilation_value(c, 0, k, &v, NULL) == BERTH_OK);
    CHECK_MSG(v.name && v.bytes == berth_type_bytes(&v.type), "value %d", (int)k);
    CHECK_MSG(v.window_of >= -1 && v.window_of < n, "value %d window_of %d", (int)k, (int)v.window_of);
    if (v.storage == BERTH_PLAN_STORAGE_ARENA && v.window_of < 0)
      CHECK_MSG(v.pool == 0 && v.offset + v.bytes <= s->arena_bytes[0], "%%%s at [%llu,+%llu) outside the arena", v.name,
                (unsigned long long)v.offset, (unsigned long long)v.bytes);
    /* live until the method returns both (result1 also holds the stretch of the branch value
     * coalesced into it) */
    if (strcmp(v.name, "result1") == 0 || strcmp(v.name, "result2") == 0)
      CHECK_MSG(v.storage == BERTH_PLAN_STORAGE_ARENA && v.n_intervals >= 1 &&
                    v.intervals[v.n_intervals - 1][1] == s->timeline_positions - 1,
                "%%%s", v.name);
    if (v.storage == BERTH_PLAN_STORAGE_STATE) {
      CHECK_MSG(strcmp(v.name, "state") == 0, "%%%s in the state region", v.name);
      state++;
      CHECK_MSG(v.offset + v.bytes <= s->state_bytes, "%%%s outside the state region", v.name);
    }
    for (int32_t i = 0; i < v.n_intervals; i++)
      CHECK_MSG(v.intervals[i][0] <= v.intervals[i][1] && (i == 0 || v.intervals[i - 1][1] < v.intervals[i][0]),
                "%%%s: interval %d is not ordered", v.name, (int)i);
    bool planned = v.storage != BERTH_PLAN_STORAGE_CONST && v.storage != BERTH_PLAN_STORAGE_STATE;
    CHECK_MSG(planned ? v.n_intervals > 0 : v.n_intervals == 0, "%%%s (%s): %d intervals", v.name,
              berth_plan_storage_name(v.storage), (int)v.n_intervals);
    timed += planned;
    for (int32_t j = 0; j < k && v.storage == BERTH_PLAN_STORAGE_ARENA && v.bytes; j++)
      if (berth_compilation_value(c, 0, j, &w, NULL) == BERTH_OK && w.storage == BERTH_PLAN_STORAGE_ARENA &&
          w.window_of < 0 && v.window_of < 0 && w.offset == v.offset && w.bytes == v.bytes) {
        shared++;
        break;
      }
  }
  CHECK_MSG(state >= 1, "no value in the state region");
  /* the seed's three conds: two in a row, one inside the second's then-branch; values of
   * the bodies are deeper */
  CHECK_MSG(s->n_hops == 3 && s->timeline_positions > 0 && s->time_ms >= 0, "%d HOPs, %lld positions", (int)s->n_hops,
            (long long)s->timeline_positions);
  berth_plan_hop_t h;
  int32_t depths = 0;
  for (int32_t k = 0; k < s->n_hops; k++) {
    CHECK(berth_compilation_hop(c, 0, k, &h, NULL) == BERTH_OK);
    CHECK_MSG(strcmp(h.kind, "cond") == 0 && h.begin <= h.split && h.split <= h.end && h.end < s->timeline_positions,
              "HOP %d: %s [%lld,%lld] split %lld", (int)k, h.kind, (long long)h.begin, (long long)h.end, (long long)h.split);
    depths |= 1 << h.depth;
  }
  CHECK_MSG(depths == 3, "the HOPs' depths (bits) %d, want 0 and 1", (int)depths);
  int32_t deeper = 0;
  for (int32_t k = 0; k < n; k++)
    if (berth_compilation_value(c, 0, k, &v, NULL) == BERTH_OK && v.depth > 0) deeper++;
  CHECK_MSG(deeper > 0 && deeper < n, "%d of %d values in bodies", (int)deeper, (int)n);
  CHECK(berth_compilation_hop(c, 0, s->n_hops, &h, NULL) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(timed >= n - 2, "%d of %d values are planned on the timeline", (int)timed, (int)n);
  CHECK_MSG(shared >= s->coalesced, "%d values share another's bytes; %d hand-overs are coalesced", (int)shared,
            (int)s->coalesced);
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_compilation_value(c, 0, n, &v, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "has no value"), "%s", msg);
  CHECK(berth_compilation_value(c, 1, 0, &v, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "berth_compilation_value: no method 1"), "%s", msg);
  CHECK(strcmp(berth_plan_storage_name(BERTH_PLAN_STORAGE_OUTPUT), "output") == 0);
  CHECK(strcmp(berth_plan_storage_name((berth_plan_storage_t)9), "?") == 0);
}

static void test_seed(void) {
  berth_compile_options_t opt = berth_compile_options_default();
  berth_status_t st;
  berth_compilation_t *c = compile_file("examples/seed/seed.bir", &opt, &st);
  CHECK_MSG(st == BERTH_OK && c, "%s", msg);
  if (!c) return;
  CHECK(berth_compilation_method_count(c) == 1);
  berth_plan_summary_t s;
  CHECK(berth_compilation_summary(c, 0, &s, NULL) == BERTH_OK);
  /* the seed's headline plan: four kernel calls are views (select and unsqueeze of the input,
   * two clones of a branch's parameter, which are then handed over by copy like any
   * pass-through: three copies), four hand-overs in place, 24 bytes = the lower bound (33
   * before views, with one copy, six in place and four copy kernels) */
  CHECK(strcmp(s.method, "forward") == 0);
  CHECK_MSG(s.copies == 3 && s.coalesced == 4 && s.views == 4, "copies %d coalesced %d views %d", s.copies, s.coalesced,
            s.views);
  CHECK_MSG(s.n_pools == 1 && s.arena_bytes[0] == 24 && s.lower_bound_bytes[0] == 24, "arena %llu lower bound %llu",
            (unsigned long long)s.arena_bytes[0], (unsigned long long)s.lower_bound_bytes[0]);
  CHECK(s.state_bytes == 8 && s.verified);
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_compilation_summary(c, 1, &s, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "berth_compilation_summary: no method 1 (1 methods)"), "%s", msg);
  CHECK(berth_compilation_summary(c, 0, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "berth_compilation_summary: out is NULL"), "%s", msg);
  check_seed_values(c, &s);
  run_seed(c);
  berth_compilation_destroy(c);

  /* ExecuTorch's scheme is rejected by the verifier, naming the value it clobbers */
  opt.strategy = "regions";
  c = compile_file("examples/seed/seed.bir", &opt, &st);
  CHECK(st == BERTH_ERR_VERIFY_FAILED && !c);
  CHECK_MSG(strstr(msg, "%result1") != NULL, "%s", msg);

  /* every algorithm compiles a verified program that runs */
  const char *algos[] = {"naive", "greedy", "search", "exact"};
  for (int a = 0; a < 4; a++) {
    opt = berth_compile_options_default();
    opt.algo = algos[a];
    opt.budget_ms = 20;
    c = compile_file("examples/seed/seed.bir", &opt, &st);
    CHECK_MSG(st == BERTH_OK, "%s: %s", algos[a], msg);
    if (c) run_seed(c);
    berth_compilation_destroy(c);
  }
}

/* A bad option fails with a message naming it, before anything is compiled. */
static void expect_fail(const char *path, const berth_compile_options_t *opt, berth_status_t want, const char *part) {
  berth_status_t st;
  berth_compilation_t *c = compile_file(path, opt, &st);
  CHECK_MSG(st == want && !c, "%s: status %d, want %d (%s)", part, (int)st, (int)want, msg);
  CHECK_MSG(strstr(msg, part) != NULL, "message '%s' lacks '%s'", msg, part);
  CHECK(strchr(msg, '\n') == NULL);
  berth_compilation_destroy(c);
}

static void test_bad_options(void) {
  const char *seed = "examples/seed/seed.bir";
  berth_compile_options_t o = berth_compile_options_default();
  o.algo = "fastest";
  expect_fail(seed, &o, BERTH_ERR_INVALID_ARGUMENT, "unknown algorithm 'fastest'");
  o = berth_compile_options_default();
  o.strategy = "local";
  expect_fail(seed, &o, BERTH_ERR_INVALID_ARGUMENT, "unknown strategy 'local'");
  o = berth_compile_options_default();
  o.alignment = 24;
  expect_fail(seed, &o, BERTH_ERR_INVALID_ARGUMENT, "alignment 24");
  /* pool rules go through the planner's check: a rule that could never apply is an error */
  o = berth_compile_options_default();
  o.pools = "frob=1";
  expect_fail(seed, &o, BERTH_ERR_INVALID_ARGUMENT, "'frob' is not an op name");
  o.pools = "add=16";
  expect_fail(seed, &o, BERTH_ERR_INVALID_ARGUMENT, "pool must be 0..15");
  o.pools = "add=1,add=2";
  expect_fail(seed, &o, BERTH_ERR_INVALID_ARGUMENT, "key 'add' given twice");
  o = berth_compile_options_default();
  o.alloc_outputs = 2;
  expect_fail(seed, &o, BERTH_ERR_INVALID_ARGUMENT, "alloc_outputs");
  o = berth_compile_options_default();
  const char *spec[] = {"x:f32[1]"};
  o.inputs = spec;
  o.n_inputs = 1;
  expect_fail(seed, &o, BERTH_ERR_INVALID_ARGUMENT, "ONNX models only");
  /* a .berth is already compiled */
  o = berth_compile_options_default();
  berth_status_t st;
  berth_compilation_t *c = compile_file(seed, &o, &st);
  if (c) {
    size_t len;
    const uint8_t *b = berth_compilation_bytes(c, &len);
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    berth_compilation_t *c2 = NULL;
    CHECK(berth_compile(b, len, "seed.berth", &o, &c2, &diag) == BERTH_ERR_INVALID_ARGUMENT && !c2);
    CHECK_MSG(strstr(msg, "seed.berth is a compiled program file") != NULL, "%s", msg);
  }
  berth_compilation_destroy(c);
  /* text that does not parse: the parser's file:line:col message */
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_compile("method forward(", 15, "bad.bir", &o, &c, &diag) != BERTH_OK);
  CHECK_MSG(strstr(msg, "bad.bir:1:") != NULL, "%s", msg);
}

/* ONNX: shapes and values through input specs; malformed specs refused by name. The model:
 * tests/onnx/if_branch_shapes (an If whose branches return different shapes). */
static void test_onnx_specs(void) {
  const char *model = "tests/onnx/if_branch_shapes/model.onnx";
  berth_compile_options_t o = berth_compile_options_default();
  berth_status_t st;
  /* its If's branches differ in shape, so the condition must be bound to a value */
  berth_compilation_t *c = compile_file(model, &o, &st);
  CHECK(st != BERTH_OK && !c);
  CHECK_MSG(strstr(msg, "depends on graph input 'c'") != NULL, "%s", msg);
  const char *bind[] = {"c:bool[]=true"};
  o.inputs = bind;
  o.n_inputs = 1;
  c = compile_file(model, &o, &st);
  CHECK_MSG(st == BERTH_OK && c, "%s", msg);
  CHECK(berth_compilation_method_count(c) == 1);
  berth_compilation_destroy(c);
  const struct {
    const char *spec, *part;
    berth_status_t st;
  } bad[] = {
      {"x", "expected NAME:DTYPE[DIMS]", BERTH_ERR_INVALID_ARGUMENT},
      {":f32[1]", "expected NAME:DTYPE[DIMS]", BERTH_ERR_INVALID_ARGUMENT},
      {"x:f33[1]", "unknown dtype 'f33'", BERTH_ERR_INVALID_ARGUMENT},
      {"x:f32[-1]", "dim 0 is not an integer", BERTH_ERR_INVALID_ARGUMENT},
      {"x:f32[1,99999999999999999999]", "dim 1 is not an integer", BERTH_ERR_INVALID_ARGUMENT},
      {"x:f32[1,2,3,4,5,6,7,8,9]", "more than 8 dims", BERTH_ERR_OUT_OF_RANGE},
      {"x:f32[1099511627776,1099511627776]", "too large", BERTH_ERR_OUT_OF_RANGE},
      {"x:f32[2]=1", "2 values needed", BERTH_ERR_INVALID_ARGUMENT},
      {"x:f32[1]=1,2", "more than 1 values", BERTH_ERR_INVALID_ARGUMENT},
      {"x:f32[1]=1e39", "value 0 is not a f32", BERTH_ERR_INVALID_ARGUMENT},
      {"x:f32[ -1]", "dim 0 is not an integer", BERTH_ERR_INVALID_ARGUMENT},
      {"x:u64[]= -1", "value 0 is not a u64", BERTH_ERR_INVALID_ARGUMENT},
      {"x:u64[]=-1", "value 0 is not a u64", BERTH_ERR_INVALID_ARGUMENT},
      {"x:i32[1]=3000000000", "value 0 is not a i32", BERTH_ERR_INVALID_ARGUMENT},
      {"x:u8[1]=-1", "value 0 is not a u8", BERTH_ERR_INVALID_ARGUMENT},
      {"x:i64[1]=9223372036854775808", "value 0 is not a i64", BERTH_ERR_INVALID_ARGUMENT},
      {"x:i8[1]=1.5", "value 0 is not a i8 ('1.5')", BERTH_ERR_INVALID_ARGUMENT},
      {"x:bool[1]=2", "value 0 is not a bool", BERTH_ERR_INVALID_ARGUMENT},
      {"x:f32[1]junk", "expected NAME:DTYPE[DIMS]", BERTH_ERR_INVALID_ARGUMENT},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *spec[] = {bad[i].spec};
    o.inputs = spec;
    o.n_inputs = 1;
    expect_fail(model, &o, bad[i].st, bad[i].part);
  }
  const char *const bad_states[] = {"state", "=out", "in=", "a=b=c"};
  for (int k = 0; k < 4; k++) {
    o = berth_compile_options_default();
    o.states = &bad_states[k];
    o.n_states = 1;
    expect_fail(model, &o, BERTH_ERR_INVALID_ARGUMENT, "expected INPUT=OUTPUT");
  }
  o = berth_compile_options_default();
  const char *twice[] = {"x:f32[1]", "x:f32[2]"};
  o.inputs = twice;
  o.n_inputs = 2;
  expect_fail(model, &o, BERTH_ERR_INVALID_ARGUMENT, "input 'x' is specified twice");
}

/* berth_onnx_model_*: a model decoded once, its boundary and ops as the file declares them,
 * imported twice with different bindings, the sources outliving the model; bytes that are
 * no model refused with a message. The model: tests/onnx/if_branch_shapes (inputs c: bool,
 * x: float[2]; output y; an If whose then-branch Adds x and whose else-branch is a
 * Constant). */
static void test_onnx_model(void) {
  size_t len;
  char *bytes = test_read_file("tests/onnx/if_branch_shapes/model.onnx", &len);
  CHECK(bytes != NULL);
  if (!bytes) return;
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_onnx_model_t *m = NULL;
  CHECK_MSG(berth_onnx_model_create(bytes, len, &m, &diag) == BERTH_OK && m, "%s", msg);
  free(bytes); /* the model keeps no reference to them */
  if (!m) return;
  berth_onnx_model_info_t mi;
  berth_onnx_model_info(m, &mi);
  CHECK(mi.n_inputs == 2 && mi.n_outputs == 1 && mi.opset > 0);
  CHECK(strcmp(mi.inputs[0].name, "c") == 0 && mi.inputs[0].elem_type == 9 && !mi.inputs[0].initialized &&
        !mi.inputs[0].non_tensor_kind);
  CHECK(strcmp(mi.inputs[1].name, "x") == 0 && mi.inputs[1].elem_type == 1);
  CHECK(strcmp(mi.outputs[0].name, "y") == 0 && mi.outputs[0].elem_type == 1);
  /* first use order, a node before its branches; the types of top-graph inputs each reads */
  CHECK_MSG(mi.n_ops == 3, "%d ops", (int)mi.n_ops);
  if (mi.n_ops == 3) {
    CHECK(strcmp(mi.ops[0].op_type, "If") == 0 && mi.ops[0].input_elems == 1u << 9);
    CHECK(strcmp(mi.ops[1].op_type, "Add") == 0 && mi.ops[1].input_elems == 1u << 1);
    CHECK(strcmp(mi.ops[2].op_type, "Constant") == 0 && mi.ops[2].input_elems == 0);
  }
  berth_compile_options_t o = berth_compile_options_default();
  berth_source_t *src = NULL, *src2 = NULL;
  CHECK(berth_onnx_model_import(m, &o, &src, &diag) != BERTH_OK && !src); /* c must be bound */
  CHECK_MSG(strstr(msg, "depends on graph input 'c'") != NULL, "%s", msg);
  const char *then_[] = {"c:bool[]=true"}, *else_[] = {"c:bool[]=false"};
  o.inputs = then_;
  o.n_inputs = 1;
  CHECK_MSG(berth_onnx_model_import(m, &o, &src, &diag) == BERTH_OK, "%s", msg);
  o.inputs = else_;
  CHECK_MSG(berth_onnx_model_import(m, &o, &src2, &diag) == BERTH_OK, "%s", msg);
  berth_onnx_model_destroy(m);
  berth_type_t t;
  const char *name;
  CHECK(src && berth_source_output(src, 0, 0, &name, &t, &diag) == BERTH_OK && t.rank == 1 && t.dims[0] == 2);
  CHECK(src2 && berth_source_output(src2, 0, 0, &name, &t, &diag) == BERTH_OK && t.rank == 1 && t.dims[0] == 3);
  berth_compilation_t *c = NULL;
  CHECK_MSG(src && berth_compile_source(src, &o, &c, &diag) == BERTH_OK, "%s", msg);
  berth_compilation_destroy(c);
  berth_source_destroy(src);
  berth_source_destroy(src2);
  CHECK(berth_onnx_model_create("method forward() {}", 19, &m, &diag) != BERTH_OK);
  CHECK_MSG(strncmp(msg, "onnx:", 5) == 0, "%s", msg);
  CHECK(berth_onnx_model_create(NULL, 0, &m, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  berth_onnx_model_info(NULL, &mi);
  CHECK(mi.n_inputs == 0 && mi.n_ops == 0 && !mi.inputs);
  berth_onnx_model_destroy(NULL);
}

/* berth_onnx_op_info: one entry per op of berth_onnx_op_name, the suite's verified opsets and
 * input types where it covers the op, "" where it does not, and the errors. */
static void test_onnx_op_info(void) {
  int32_t n = berth_onnx_op_count();
  int covered = 0;
  for (int32_t k = 0; k < n; k++) {
    berth_onnx_op_info_t info;
    const char *family = NULL, *name = berth_onnx_op_name(k, &family);
    CHECK(berth_onnx_op_info(k, &info) == BERTH_OK);
    CHECK(info.name && name && strcmp(info.name, name) == 0 && info.family == family);
    CHECK(info.opsets && info.input_types && info.suite_passed >= 0 && info.suite_failed >= 0 && info.suite_unsupported >= 0);
    /* opsets and types come from passing folders only */
    CHECK_MSG((info.suite_passed > 0) == (info.opsets[0] != '\0'), "%s: %d passed, opsets '%s'", info.name,
              (int)info.suite_passed, info.opsets);
    if (strcmp(info.name, "TfIdfVectorizer") == 0)
      CHECK(strcmp(info.opsets, "9") == 0 && strcmp(info.input_types, "int32") == 0 && info.suite_passed == 7);
    covered += info.suite_passed > 0;
  }
  CHECK_MSG(covered > n / 2, "only %d of %d ops have suite facts", covered, (int)n);
  berth_onnx_op_info_t info = {0};
  info.name = "untouched";
  CHECK(berth_onnx_op_info(n, &info) == BERTH_ERR_OUT_OF_RANGE && strcmp(info.name, "untouched") == 0);
  CHECK(berth_onnx_op_info(-1, &info) == BERTH_ERR_OUT_OF_RANGE);
  CHECK(berth_onnx_op_info(0, NULL) == BERTH_ERR_INVALID_ARGUMENT);
}

/* Sources (berth_source_*): the seed parsed, inspected, printed, compiled to the same bytes
 * as berth_compile, and read back from a program file's IR section. */
static void test_sources(void) {
  size_t len;
  char *text = test_read_file("examples/seed/seed.bir", &len);
  CHECK(text != NULL);
  if (!text) return;
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_compile_options_t opt = berth_compile_options_default();
  berth_source_t *src = NULL;
  CHECK_MSG(berth_source_create(text, len, "seed.bir", BERTH_SOURCE_TEXT, &opt, &src, &diag) == BERTH_OK, "%s", msg);
  if (!src) {
    free(text);
    return;
  }
  CHECK(!berth_source_is_onnx(text, len));
  CHECK(berth_source_method_count(src) == 1 && strcmp(berth_source_method_name(src, 0), "forward") == 0);
  CHECK(berth_source_method_find(src, "forward") == 0 && berth_source_method_find(src, "nope") == -1);
  CHECK(berth_source_method_name(src, 1) == NULL);
  const char *name = NULL;
  berth_type_t t;
  CHECK(berth_source_input_count(src, 0) == 1 && berth_source_output_count(src, 0) == 2);
  CHECK(berth_source_input(src, 0, 0, &name, &t, &diag) == BERTH_OK && t.dtype == BERTH_DTYPE_F64 && t.rank == 1);
  CHECK(berth_source_output(src, 0, 2, &name, &t, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  /* the same options give the same file as berth_compile */
  berth_compilation_t *a = NULL, *b = NULL;
  CHECK_MSG(berth_compile_source(src, &opt, &a, &diag) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_compile(text, len, "seed.bir", &opt, &b, &diag) == BERTH_OK, "%s", msg);
  size_t la = 0, lb = 0;
  const uint8_t *ba = berth_compilation_bytes(a, &la), *bb = berth_compilation_bytes(b, &lb);
  CHECK(ba && bb && la == lb && memcmp(ba, bb, la) == 0);
  /* totals and hand-overs agree with the summary: 24 arena bytes, 8 of state */
  berth_plan_summary_t s;
  CHECK(berth_compilation_summary(a, 0, &s, NULL) == BERTH_OK);
  uint64_t arena = 0, state = 0, constants = 0;
  berth_compilation_totals(a, &arena, &state, &constants);
  CHECK_MSG(arena == 24 && state == 8, "arena %llu state %llu", (unsigned long long)arena, (unsigned long long)state);
  int32_t copied = 0, in_place = 0;
  for (int32_t v = 0; v < berth_compilation_value_count(a, 0); v++) {
    berth_plan_handover_t h = berth_compilation_value_handover(a, 0, v);
    copied += h == BERTH_PLAN_HANDOVER_COPY;
    in_place += h == BERTH_PLAN_HANDOVER_IN_PLACE;
  }
  /* per value, not per instruction: both sides of a cond may hand over into one result */
  CHECK_MSG(copied >= 1 && copied <= s.copies && in_place >= 1 && in_place <= s.coalesced, "copied %d in place %d",
            (int)copied, (int)in_place);
  CHECK(berth_compilation_value_handover(a, 1, 0) == BERTH_PLAN_HANDOVER_NONE);
  /* the file's IR section is the source again; without it, an error saying so */
  berth_program_file_info_t info;
  CHECK(berth_program_file_info(ba, la, true, &info, &diag) == BERTH_OK && info.n_methods == 1 && info.has_ir);
  berth_source_t *back = NULL;
  CHECK_MSG(berth_source_create(ba, la, "seed.berth", BERTH_SOURCE_PROGRAM_FILE, NULL, &back, &diag) == BERTH_OK, "%s", msg);
  char *p1 = berth_source_print(src), *p2 = berth_source_print(back);
  CHECK(p1 && p2 && strcmp(p1, p2) == 0);
  free(p1);
  free(p2);
  berth_source_destroy(back);
  berth_compilation_destroy(b);
  b = NULL;
  opt.store_ir = false;
  CHECK(berth_compile_source(src, &opt, &b, &diag) == BERTH_OK);
  bb = berth_compilation_bytes(b, &lb);
  CHECK(berth_program_file_info(bb, lb, true, &info, &diag) == BERTH_OK && !info.has_ir);
  back = NULL;
  CHECK(berth_source_create(bb, lb, "seed.berth", BERTH_SOURCE_PROGRAM_FILE, NULL, &back, &diag) == BERTH_ERR_INVALID_ARGUMENT &&
        !back);
  CHECK_MSG(strstr(msg, "seed.berth has no IR source section"), "%s", msg);
  /* ONNX options on a text source, a bad planner option, a bad input spec: refused, named */
  const char *in[] = {"x:f32[1]"};
  opt.inputs = in;
  opt.n_inputs = 1;
  CHECK(berth_source_create(text, len, "seed.bir", BERTH_SOURCE_AUTO, &opt, &back, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "seed.bir is not an ONNX model"), "%s", msg);
  opt = berth_compile_options_default();
  opt.algo = "fastest";
  CHECK(berth_compile_options_check(&opt, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "unknown algorithm 'fastest'"), "%s", msg);
  opt.algo = NULL;
  opt.pools = "add=99";
  CHECK(berth_compile_options_check(&opt, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_onnx_input_spec_check("sr:i64[]=16000", &diag) == BERTH_OK);
  CHECK(berth_onnx_input_spec_check("sr:i64[]=2.5", &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "value 0 is not a i64 ('2.5')"), "%s", msg);
  berth_compilation_destroy(a);
  berth_compilation_destroy(b);
  berth_source_destroy(src);
  free(text);
}

int main(void) {
  CHECK(strcmp(berth_version(), BERTH_VERSION_STRING) == 0);
  test_seed();
  test_bad_options();
  test_onnx_specs();
  test_onnx_op_info();
  test_onnx_model();
  test_sources();
  return test_finish("test_compiler_api");
}
