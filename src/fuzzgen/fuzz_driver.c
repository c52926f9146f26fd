/* The differential fuzzer's driver (see fuzz_driver.h). */
#include "fuzz_driver.h"

#include "program/exec_names.h"
#include "program/verify.h"
#include "berth/outfile.h"
#include "host/session.h"
#include "plan/plan.h"
#include "reference/reference.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Static_assert((int)BERTH_FUZZ_STRATEGY_GLOBAL == (int)BERTH_STRATEGY_GLOBAL &&
               (int)BERTH_FUZZ_STRATEGY_REGIONS == (int)BERTH_STRATEGY_REGIONS,
               "berth/testing.h's strategies are the planner's");

static const char *const k_kind_names[BERTH_FUZZ_KIND_COUNT] = {
    "ok", "invalid program", "reference error", "compile error", "verifier rejection", "runtime error", "mismatch",
    "mutation miss"};

const char *berth_fuzz_kind_name(berth_fuzz_kind_t kind) {
  return (unsigned)kind < BERTH_FUZZ_KIND_COUNT ? k_kind_names[kind] : "?";
}

berth_fuzz_options_t berth_fuzz_options_default(void) {
  berth_fuzz_options_t o;
  memset(&o, 0, sizeof o);
  o.seed = 1;
  o.count = 1000;
  o.calls = 3;
  o.gen = berth_fuzzgen_options_default();
  o.gen.assert_percent = 8;
  o.search_budget_ms = 5;
  o.exact_budget_ms = 5;
  o.strategy = BERTH_FUZZ_STRATEGY_GLOBAL;
  o.verify = true;
  o.sanitize = true;
  o.vary_layout = true;
  o.mutants = 2;
  o.max_steps = 100000;
  o.shrink = true;
  return o;
}

static double now_s(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

BERTH_PRINTF_LIKE(2, 3) static void say(const berth_fuzz_options_t *o, const char *fmt, ...) {
  if (!o->log) return;
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  berth_vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  o->log(o->log_ctx, line);
}

/* ---- failures ---------------------------------------------------------------------------- */

typedef struct failure {
  berth_fuzz_kind_t kind;
  int algo, io, call; /* the configuration and call that failed; -1 when not applicable */
  char msg[2048];
} failure_t;

BERTH_PRINTF_LIKE(6, 7) static berth_fuzz_kind_t fail(failure_t *f, berth_fuzz_kind_t kind, int algo, int io, int call, const char *fmt, ...) {
  f->kind = kind;
  f->algo = algo;
  f->io = io;
  f->call = call;
  va_list ap;
  va_start(ap, fmt);
  berth_vsnprintf(f->msg, sizeof f->msg, fmt, ap);
  va_end(ap);
  return kind;
}

static const berth_alloc_algo_t k_algos[4] = {BERTH_ALLOC_NAIVE, BERTH_ALLOC_GREEDY, BERTH_ALLOC_SEARCH,
                                               BERTH_ALLOC_EXACT};

/* Arena layout for one program: the options' alignment and pool rule, or (vary_layout)
 * one picked from the program's seed, so that a replay with the same seed agrees. */
typedef struct layout {
  uint32_t alignment; /* 0: the planner's default */
  const char *pools;
  int64_t hoist_min;  /* -1: the planner's default; 0: every constant-only kernel call is hoisted
                         (the fuzzer's tensors are small: this is what exercises hoisting) */
  bool concat_always; /* Concats in place wherever allowed (--concat-in-place-always): in the
                         fuzzer's small programs the arena rule of the default often declines */
} layout_t;

static layout_t layout_for(const berth_fuzz_options_t *o, uint64_t seed) {
  layout_t l = {o->alignment, o->pools, -1, true};
  if (!o->vary_layout) return l;
  uint64_t h = seed ^ 0x484F495354303031ull; /* its own stream: the layouts below stay as they were */
  if (berth_fuzzgen_rand(&h) % 2) l.hoist_min = 0;
  uint64_t j = seed ^ 0x4A4F494E30303031ull; /* the same for joins: a quarter keep the default */
  l.concat_always = berth_fuzzgen_rand(&j) % 4 != 0;
  if (o->alignment || o->pools) return l;
  static const uint32_t aligns[] = {0, 0, 1, 8, 64};
  static const char *const rules[] = {NULL, NULL, NULL, "add=1,mul=2", "input=1,output=2", "tanh=1,neg=1,concat=2,full=3"};
  uint64_t r = seed ^ 0x4C41594F55543132ull;
  l.alignment = aligns[berth_fuzzgen_rand(&r) % (sizeof aligns / sizeof *aligns)];
  l.pools = rules[berth_fuzzgen_rand(&r) % (sizeof rules / sizeof *rules)];
  return l;
}

static berth_plan_options_t config(const berth_fuzz_options_t *o, const layout_t *l, int algo, int io) {
  berth_plan_options_t po = berth_plan_options_default();
  po.algo = k_algos[algo];
  if (algo == 2) po.budget_ms = o->search_budget_ms;
  if (algo == 3) po.budget_ms = o->exact_budget_ms;
  po.strategy = (berth_strategy_t)o->strategy;
  po.verify = o->verify;
  po.alloc_inputs = io & 1;
  po.alloc_outputs = (io >> 1) & 1;
  if (l->alignment) po.alignment = l->alignment;
  po.pools = l->pools;
  if (l->hoist_min >= 0) po.hoist_min_bytes = (uint64_t)l->hoist_min;
  if (l->concat_always) po.concat_in_place = BERTH_CONCAT_IN_PLACE;
  return po;
}

/* The configuration as `berth run` options (so a person can reproduce it). */
static const char *config_name(const berth_fuzz_options_t *o, const layout_t *l, int algo, int io, char *buf,
                               size_t cap) {
  char extra[160] = "";
  if (l->alignment) berth_snprintf(extra, sizeof extra, " --alignment %u", (unsigned)l->alignment);
  size_t n = strlen(extra);
  if (l->pools) berth_snprintf(extra + n, sizeof extra - n, " --pools %s", l->pools);
  n = strlen(extra);
  if (l->hoist_min >= 0) berth_snprintf(extra + n, sizeof extra - n, " --hoist-min-bytes %lld", (long long)l->hoist_min);
  n = strlen(extra);
  if (l->concat_always) berth_snprintf(extra + n, sizeof extra - n, " --concat-in-place-always");
  berth_snprintf(buf, cap, "--algo %s --strategy %s --alloc-inputs %d --alloc-outputs %d%s%s",
               berth_alloc_algo_name(k_algos[algo]), berth_strategy_name((berth_strategy_t)o->strategy), io & 1, (io >> 1) & 1,
               o->verify ? "" : " --no-verify", extra);
  return buf;
}

static const char *value_name(const berth_ir_method_t *m, int32_t v, char *buf, size_t cap) {
  const berth_ir_value_t *val = &m->values[v];
  bool global = val->kind == BERTH_IR_CONST || val->kind == BERTH_IR_STATE;
  berth_snprintf(buf, cap, "%c%s", global ? '@' : '%', val->name ? val->name : "");
  return buf;
}

/* Whether element i of two tensors of type t agree: the same bytes, or (f32, f64) both NaN.
 * Which NaN an operation on two NaNs returns is not part of any kernel's contract (IEEE 754
 * leaves it open, ONNX too): x86 returns the first source operand's, and GCC may commute an
 * addition or multiplication differently in a loop's vector body and in its scalar fallback,
 * which its run-time alias check takes when the output lies within a vector of an input. So
 * two plans of one program, placing a value 24 bytes after another or 32, can return the
 * same NaN with its sign flipped (seed 149504: `sum` over [2, 3] with the output 24 bytes
 * after the input picks the other row's NaN; tests/fuzz_regressions/nan-sign-plan-149504.bir).
 * Every other value, -0 against +0 included, must match bit for bit. */
static bool same_element(const berth_type_t *t, const uint8_t *a, const uint8_t *b, size_t es) {
  if (!memcmp(a, b, es)) return true;
  if (t->dtype == BERTH_DTYPE_F32) {
    float x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    return x != x && y != y;
  }
  if (t->dtype == BERTH_DTYPE_F64) {
    double x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return x != x && y != y;
  }
  return false;
}

/* Whether two tensors of type t agree element by element (same_element). */
static bool same_values(const berth_type_t *t, const void *want, const void *got) {
  const size_t es = berth_dtype_size(t->dtype), bytes = berth_type_bytes(t);
  if (!memcmp(want, got, bytes)) return true;
  const int64_t n = berth_type_numel(t);
  for (int64_t i = 0; i < n; i++)
    if (!same_element(t, (const uint8_t *)want + (size_t)i * es, (const uint8_t *)got + (size_t)i * es, es)) return false;
  return true;
}

/* "element 3: want 0.5 (bits 0x3f000000), got -0.25 (bits 0xbe800000)" for the first element
 * that differs (same_element). */
static const char *describe_diff(const berth_type_t *t, const void *want, const void *got, char *buf, size_t cap) {
  size_t es = berth_dtype_size(t->dtype);
  int64_t n = berth_type_numel(t);
  const uint8_t *w = want, *g = got;
  for (int64_t i = 0; i < n; i++) {
    if (same_element(t, w + (size_t)i * es, g + (size_t)i * es, es)) continue;
    switch (t->dtype) {
      case BERTH_DTYPE_F32: {
        float a, b;
        memcpy(&a, w + (size_t)i * es, 4);
        memcpy(&b, g + (size_t)i * es, 4);
        uint32_t ua, ub;
        memcpy(&ua, &a, 4);
        memcpy(&ub, &b, 4);
        /* the bits too: two NaNs (or zeros) that differ print alike */
        berth_snprintf(buf, cap, "element %lld: want %g (bits 0x%x), got %g (bits 0x%x)", (long long)i, (double)a,
                       (unsigned)ua, (double)b, (unsigned)ub);
        break;
      }
      case BERTH_DTYPE_I64: {
        int64_t a, b;
        memcpy(&a, w + (size_t)i * es, 8);
        memcpy(&b, g + (size_t)i * es, 8);
        berth_snprintf(buf, cap, "element %lld: want %lld, got %lld", (long long)i, (long long)a, (long long)b);
        break;
      }
      default:
        berth_snprintf(buf, cap, "element %lld: want byte %u, got %u", (long long)i, (unsigned)w[(size_t)i * es],
                     (unsigned)g[(size_t)i * es]);
        break;
    }
    return buf;
  }
  berth_snprintf(buf, cap, "(no element differs)");
  return buf;
}

/* ---- the oracle ---------------------------------------------------------------------------- */

/* A call that fails a run-time check (an `assert`) ends with BERTH_ERR_CHECK_FAILED in
 * both the reference and the planned runtime, without outputs; the buffers keep what the
 * call wrote before the failing assert (docs/ir-text.md, "Control flow"), so the calls
 * after it go on from that state, and the buffers are compared after a failed call too. */
typedef struct oracle {
  int32_t calls, n_in, n_out, n_globals;
  void **in;    /* [call * n_in + k]: the inputs */
  void **out;   /* [call * n_out + k]: the reference outputs (NULL after a failed check) */
  void **state; /* [call * n_globals + g]: each buffer after the call (NULL for constants) */
  char **trap;  /* [call]: the program's message of the assert that failed, NULL if none did */
  char **trap_diag; /* [call]: the reference's whole message for it */
} oracle_t;

static void oracle_free(oracle_t *ora) {
  for (int32_t c = 0; c < ora->calls; c++) {
    for (int32_t k = 0; ora->in && k < ora->n_in; k++) free(ora->in[c * ora->n_in + k]);
    for (int32_t k = 0; ora->out && k < ora->n_out; k++) free(ora->out[c * ora->n_out + k]);
    for (int32_t g = 0; ora->state && g < ora->n_globals; g++) free(ora->state[c * ora->n_globals + g]);
    if (ora->trap) free(ora->trap[c]);
    if (ora->trap_diag) free(ora->trap_diag[c]);
  }
  free(ora->in);
  free(ora->out);
  free(ora->state);
  free(ora->trap);
  free(ora->trap_diag);
  memset(ora, 0, sizeof *ora);
}

/* The program's own words in a failed-check message, the same in the reference ("node ...
 * in func @forward: run-time check failed (%ok is false): TEXT") and the runtime ("method
 * forward: run-time check failed at instruction 12 (%ok is false): TEXT"); "" when the
 * assert has no message. */
static const char *check_text(const char *msg) {
  const char *at = strstr(msg, "run-time check failed");
  at = at ? strstr(at, " is false)") : NULL;
  if (!at) return "";
  at += strlen(" is false)");
  return at[0] == ':' && at[1] == ' ' ? at + 2 : "";
}

static char *dup_text(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

static berth_fuzz_kind_t oracle_build(const berth_ir_program_t *p, uint64_t seed, int32_t calls, uint64_t max_steps,
                                      oracle_t *ora, berth_fuzz_stats_t *st, failure_t *f) {
  const berth_ir_method_t *m = &p->methods[0];
  const berth_ir_graph_t *body = &m->graphs[m->body];
  memset(ora, 0, sizeof *ora);
  ora->calls = calls;
  ora->n_in = body->n_params;
  ora->n_out = body->n_results;
  ora->n_globals = p->n_globals;
  if (ora->n_in > BERTH_FUZZGEN_MAX_PARAMS)
    return fail(f, BERTH_FUZZ_REF_ERROR, -1, -1, -1, "forward has %d parameters; the fuzzer supports %d",
                (int)ora->n_in, BERTH_FUZZGEN_MAX_PARAMS);
  ora->in = calloc((size_t)(calls * ora->n_in + 1), sizeof *ora->in);
  ora->out = calloc((size_t)(calls * ora->n_out + 1), sizeof *ora->out);
  ora->state = calloc((size_t)(calls * ora->n_globals + 1), sizeof *ora->state);
  ora->trap = calloc((size_t)calls + 1, sizeof *ora->trap);
  ora->trap_diag = calloc((size_t)calls + 1, sizeof *ora->trap_diag);
  if (!ora->in || !ora->out || !ora->state || !ora->trap || !ora->trap_diag)
    return fail(f, BERTH_FUZZ_REF_ERROR, -1, -1, -1, "out of memory");
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ref_t *ref = NULL;
  berth_fuzz_kind_t kind = BERTH_FUZZ_OK;
  if (berth_ref_create(p, &ref, &d)) return fail(f, BERTH_FUZZ_REF_ERROR, -1, -1, -1, "reference: %s", msg);
  berth_ref_set_max_steps(ref, max_steps);
  for (int32_t c = 0; c < calls && !kind; c++) {
    if (berth_fuzzgen_inputs_create(p, 0, seed, c, &ora->in[c * ora->n_in])) {
      kind = fail(f, BERTH_FUZZ_REF_ERROR, -1, -1, c, "out of memory making inputs");
      break;
    }
    berth_status_t rs =
        berth_ref_call(ref, 0, (const void *const *)&ora->in[c * ora->n_in], &ora->out[c * ora->n_out], &d);
    st->ref_calls++;
    if (rs == BERTH_ERR_CHECK_FAILED) {
      st->ref_traps++;
      ora->trap[c] = dup_text(check_text(msg));
      ora->trap_diag[c] = dup_text(msg);
      if (!ora->trap[c] || !ora->trap_diag[c]) {
        kind = fail(f, BERTH_FUZZ_REF_ERROR, -1, -1, c, "out of memory");
        break;
      }
    } else if (rs) {
      kind = fail(f, BERTH_FUZZ_REF_ERROR, -1, -1, c, "reference interpreter, call %d: %s", (int)c, msg);
      break;
    }
    for (int32_t g = 0; g < ora->n_globals; g++) {
      if (!p->globals[g].is_state) continue;
      const void *s = berth_ref_state(ref, 0, g);
      size_t bytes = berth_type_bytes(&p->globals[g].type);
      void *copy = malloc(bytes ? bytes : 1);
      if (!copy) {
        kind = fail(f, BERTH_FUZZ_REF_ERROR, -1, -1, c, "out of memory");
        break;
      }
      if (s) memcpy(copy, s, bytes);
      ora->state[c * ora->n_globals + g] = copy;
    }
  }
  berth_ref_destroy(ref);
  int32_t trapped = 0;
  for (int32_t c = 0; c < calls; c++) trapped += ora->trap[c] != NULL;
  if (!kind && trapped == calls) st->ref_programs_always_trapped++;
  return kind;
}

/* ---- running a plan ---------------------------------------------------------------------- */

/* Runs the oracle's calls on compiled program c and compares outputs and buffers. `what`
 * names the configuration in messages. */
static berth_fuzz_kind_t run_plan(const berth_compiled_t *c, const berth_ir_program_t *p, const oracle_t *ora,
                                  const berth_fuzz_options_t *o, const char *what, int algo, int io,
                                  berth_fuzz_stats_t *st, failure_t *f) {
  const berth_ir_method_t *m = &p->methods[0];
  const berth_ir_graph_t *body = &m->graphs[m->body];
  char msg[1024], nb[128], db[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_session_t *s = NULL;
  if (berth_session_create(&c->exec, o->sanitize, &s, &d))
    return fail(f, BERTH_FUZZ_RUN_ERROR, algo, io, -1, "%s: cannot start a session: %s", what, msg);
  berth_session_set_max_steps(s, o->max_steps);
  void **got = calloc((size_t)ora->n_out + 1, sizeof *got);
  berth_fuzz_kind_t kind = got ? BERTH_FUZZ_OK : fail(f, BERTH_FUZZ_RUN_ERROR, algo, io, -1, "out of memory");
  for (int32_t call = 0; call < ora->calls && !kind; call++) {
    berth_status_t cs = berth_session_call(s, 0, (const void *const *)&ora->in[call * ora->n_in], got, &d);
    const char *trap = ora->trap[call];
    if (cs == BERTH_ERR_CHECK_FAILED && !trap) {
      kind = fail(f, BERTH_FUZZ_MISMATCH, algo, io, call, "%s, call %d: the planned run failed a check that holds in "
                  "the reference: %s", what, (int)call, msg);
      break;
    }
    if (cs == BERTH_ERR_CHECK_FAILED && strcmp(check_text(msg), trap) != 0) {
      kind = fail(f, BERTH_FUZZ_MISMATCH, algo, io, call, "%s, call %d: the planned run failed another check than the "
                  "reference: %s; the reference: %s", what, (int)call, msg, ora->trap_diag[call]);
      break;
    }
    if (cs && cs != BERTH_ERR_CHECK_FAILED) {
      kind = fail(f, BERTH_FUZZ_RUN_ERROR, algo, io, call, "%s, call %d: %s", what, (int)call, msg);
      break;
    }
    if (!cs && trap) {
      for (int32_t k = 0; k < ora->n_out; k++) {
        free(got[k]);
        got[k] = NULL;
      }
      kind = fail(f, BERTH_FUZZ_MISMATCH, algo, io, call, "%s, call %d: the planned run returned, but the reference "
                  "failed a check: %s", what, (int)call, ora->trap_diag[call]);
      break;
    }
    st->calls++;
    if (trap) st->calls_trapped++;
    for (int32_t k = 0; k < ora->n_out && !trap; k++) {
      const berth_type_t *t = &m->values[body->results[k]].type;
      const void *want = ora->out[call * ora->n_out + k];
      if (!kind && !same_values(t, want, got[k]))
        kind = fail(f, BERTH_FUZZ_MISMATCH, algo, io, call, "%s, call %d: output %d (%s) differs, %s", what, (int)call,
                    (int)k, value_name(m, body->results[k], nb, sizeof nb), describe_diff(t, want, got[k], db, sizeof db));
      free(got[k]);
      got[k] = NULL;
    }
    for (int32_t g = 0; g < ora->n_globals && !kind; g++) {
      if (!p->globals[g].is_state) continue;
      const void *have = berth_session_state(s, 0, p->globals[g].name);
      const void *want = ora->state[call * ora->n_globals + g];
      const berth_type_t *t = &p->globals[g].type;
      if (have && want && !same_values(t, want, have))
        kind = fail(f, BERTH_FUZZ_MISMATCH, algo, io, call, "%s, call %d: buffer @%s differs after the call%s, %s", what,
                    (int)call, p->globals[g].name, trap ? " (which failed a check in both)" : "",
                    describe_diff(t, want, have, db, sizeof db));
    }
  }
  free(got);
  berth_session_destroy(s);
  return kind;
}

/* ---- mutation check of the verifier ---------------------------------------------------- */

static int32_t uf_find(int32_t *parent, int32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];
    v = parent[v];
  }
  return v;
}

static bool movable(const berth_exec_value_t *v) {
  return v->storage == BERTH_STORAGE_ARENA && v->window_parent < 0 && berth_type_bytes(&v->type) > 0;
}

/* Whether the planner's timeline intervals of exec values a and b overlap (false when the
 * report has no intervals). Only a bias for choosing mutants: the verifier is the judge. */
static bool lifetimes_overlap(const berth_plan_method_report_t *r, int32_t a, int32_t b) {
  if (!r || !r->n_ivs || !r->ivs || !r->iv_first || a >= r->n_values || b >= r->n_values) return false;
  for (int32_t i = 0; i < r->n_ivs[a]; i++)
    for (int32_t j = 0; j < r->n_ivs[b]; j++) {
      const int64_t *x = r->ivs[r->iv_first[a] + i], *y = r->ivs[r->iv_first[b] + j];
      if (x[0] <= y[1] && y[0] <= x[1]) return true;
    }
  return false;
}

typedef struct mutant {
  int32_t a, b;     /* move a (and, when group, its coalesced group) to offset `to`, onto b */
  uint64_t to;
  bool group;
  bool on_check;    /* a or b is an assert's operand */
  bool on_view;     /* a is a view's source moved within reach of its view (b) */
  bool on_join;     /* a is a join's part moved out of its slot of the join's output (b) */
} mutant_t;

/* A mutant that a view alone exposes: the source of a random arena VIEW moved by a multiple
 * of `align` while it still covers its view's bytes (a planner that misplaces a view's source,
 * or forgets the view's offset, makes exactly this). Every other value stays. Fills *mu;
 * false when the method has no such view or the source cannot move. */
/* Whether instruction `in` is a view that its source can move around (view_shift). */
static bool shiftable_view(const berth_exec_method_t *em, const berth_instr_t *in) {
  if (in->opcode != BERTH_I_VIEW) return false;
  const berth_exec_value_t *s = &em->values[em->operands[in->operands]];
  const berth_exec_value_t *d = &em->values[em->operands[in->operands + 1]];
  return movable(s) && movable(d) && berth_type_bytes(&s->type) > berth_type_bytes(&d->type);
}

static bool view_shift(const berth_exec_method_t *em, uint64_t align, uint64_t *rng, mutant_t *mu) {
  int32_t n_views = 0;
  for (int32_t i = 0; i < em->n_instrs; i++) n_views += shiftable_view(em, &em->instrs[i]);
  if (!n_views) return false;
  int32_t pick = (int32_t)(berth_fuzzgen_rand(rng) % (uint64_t)n_views);
  for (int32_t i = 0; i < em->n_instrs; i++) {
    if (!shiftable_view(em, &em->instrs[i]) || pick-- > 0) continue;
    int32_t src = em->operands[em->instrs[i].operands], dst = em->operands[em->instrs[i].operands + 1];
    const berth_exec_value_t *s = &em->values[src], *d = &em->values[dst];
    uint64_t ss = berth_type_bytes(&s->type), ds = berth_type_bytes(&d->type), pool = em->pool_sizes[s->pool];
    /* source starts in [dst.end - ss, dst.offset], aligned, inside the pool, not where it is */
    uint64_t lo = d->offset + ds > ss ? d->offset + ds - ss : 0, hi = d->offset;
    if (hi + ss > pool) hi = pool - ss;
    lo = (lo + align - 1) / align * align;
    hi = hi / align * align;
    if (lo >= hi) return false;
    uint64_t at = lo + berth_fuzzgen_rand(rng) % ((hi - lo) / align + 1) * align;
    if (at == s->offset) at = at == lo ? hi : lo;
    mu->a = src;
    mu->b = dst;
    mu->to = at;
    mu->on_view = true;
    return true;
  }
  return false;
}

/* Whether instruction `in` is a join with a part that can move (join_shift). */
static bool shiftable_join(const berth_exec_method_t *em, const berth_instr_t *in) {
  if (in->opcode != BERTH_I_JOIN) return false;
  for (int32_t k = 0; k < in->n_in; k++) {
    const berth_exec_value_t *v = &em->values[em->operands[in->operands + k]];
    if (movable(v) && berth_type_bytes(&v->type) > 0 && berth_type_bytes(&v->type) < em->pool_sizes[v->pool]) return true;
  }
  return false;
}

/* A mutant that a join alone exposes: one part of a random JOIN moved out of its slot, to
 * any other aligned offset of its pool (often another slot of the same output, where a
 * planner that mixed up the order would put it). The verifier must reject every one. */
static bool join_shift(const berth_exec_method_t *em, uint64_t align, uint64_t *rng, mutant_t *mu) {
  int32_t n_joins = 0;
  for (int32_t i = 0; i < em->n_instrs; i++) n_joins += shiftable_join(em, &em->instrs[i]);
  if (!n_joins) return false;
  int32_t pick = (int32_t)(berth_fuzzgen_rand(rng) % (uint64_t)n_joins);
  for (int32_t i = 0; i < em->n_instrs; i++) {
    const berth_instr_t *in = &em->instrs[i];
    if (!shiftable_join(em, in) || pick-- > 0) continue;
    int32_t k = (int32_t)(berth_fuzzgen_rand(rng) % in->n_in), part = -1;
    for (int32_t j = 0; j < in->n_in && part < 0; j++) {
      int32_t v = em->operands[in->operands + (k + j) % in->n_in];
      const berth_exec_value_t *x = &em->values[v];
      if (movable(x) && berth_type_bytes(&x->type) > 0 && berth_type_bytes(&x->type) < em->pool_sizes[x->pool]) part = v;
    }
    const berth_exec_value_t *x = &em->values[part];
    uint64_t size = berth_type_bytes(&x->type), room = (em->pool_sizes[x->pool] - size) / align;
    int32_t out = em->operands[in->operands + in->n_in];
    uint64_t base = em->values[out].offset, slots = berth_type_bytes(&em->values[out].type) / align;
    /* half the time another aligned offset inside the output, else anywhere in the pool */
    uint64_t at = (berth_fuzzgen_rand(rng) & 1) && slots > 1
                      ? base + berth_fuzzgen_rand(rng) % slots * align
                      : berth_fuzzgen_rand(rng) % (room + 1) * align;
    if (at + size > em->pool_sizes[x->pool]) at = room * align;
    if (at == x->offset) at = at >= align ? at - align : at + align;
    if (at + size > em->pool_sizes[x->pool]) return false;
    mu->a = part;
    mu->b = out;
    mu->to = at;
    mu->on_join = true;
    return true;
  }
  return false;
}

/* Chooses one mutant (false: none this time). cands: the movable values; preds: the movable
 * operands of asserts; bs, near: scratch of n_c entries. Draws the same random numbers as
 * before views existed when the method has none, so old seeds make the same mutants. */
static bool pick_mutant(const berth_exec_method_t *em, const berth_plan_method_report_t *rep, const int32_t *cands,
                        int32_t n_c, const int32_t *preds, int32_t n_p, int32_t *bs, int32_t *near, uint64_t align,
                        bool has_shiftable_views, bool has_shiftable_joins, uint64_t *rng, mutant_t *mu) {
  memset(mu, 0, sizeof *mu);
  if (has_shiftable_views && berth_fuzzgen_rand(rng) % 4 == 0 && view_shift(em, align, rng, mu)) return true;
  if (has_shiftable_joins && berth_fuzzgen_rand(rng) % 4 == 0 && join_shift(em, align, rng, mu)) return true;
  mu->on_check = n_p && berth_fuzzgen_rand(rng) % 3 == 0;
  int32_t a = mu->on_check ? preds[berth_fuzzgen_rand(rng) % (uint64_t)n_p] : cands[berth_fuzzgen_rand(rng) % (uint64_t)n_c];
  const berth_exec_value_t *va = &em->values[a];
  int32_t n_b = 0, n_near = 0;
  for (int32_t i = 0; i < n_c; i++) {
    const berth_exec_value_t *vb = &em->values[cands[i]];
    if (cands[i] == a || vb->pool != va->pool || vb->offset == va->offset) continue;
    bs[n_b++] = cands[i];
    if (lifetimes_overlap(rep, a, cands[i])) near[n_near++] = cands[i];
  }
  if (!n_b) return false;
  int32_t b = n_near && berth_fuzzgen_rand(rng) % 4 ? near[berth_fuzzgen_rand(rng) % (uint64_t)n_near]
                                                     : bs[berth_fuzzgen_rand(rng) % (uint64_t)n_b];
  if (mu->on_check && (berth_fuzzgen_rand(rng) & 1)) { /* b onto the check's operand instead */
    int32_t t = a;
    a = b;
    b = t;
    va = &em->values[a];
  }
  uint64_t size = berth_type_bytes(&va->type), pool_size = em->pool_sizes[va->pool];
  uint64_t to = em->values[b].offset / align * align;
  if (to + size > pool_size) to = (pool_size - size) / align * align;
  if (to == va->offset) return false;
  mu->a = a;
  mu->b = b;
  mu->to = to;
  mu->group = berth_fuzzgen_rand(rng) & 1;
  return true;
}

/* Moves one ARENA value of method 0 (or its whole coalesced group) onto another value of
 * the same pool, `n` times; runs the verifier on each mutant and runs those it accepts. A
 * quarter of the mutants of a method with views move a view's source within reach of the
 * view instead (view_shift). */
static berth_fuzz_kind_t mutate(const berth_compiled_t *c, const berth_ir_program_t *p, const oracle_t *ora,
                                const berth_fuzz_options_t *o, const layout_t *l, int32_t n, uint64_t *rng, int algo,
                                int io, berth_fuzz_stats_t *st, failure_t *f) {
  const berth_exec_program_t *ep = &c->exec;
  if (ep->n_methods < 1) return BERTH_FUZZ_OK;
  const berth_exec_method_t *em = &ep->methods[0];
  const berth_plan_method_report_t *rep = c->reports ? &c->reports[0] : NULL;
  int32_t nv = em->n_values;
  size_t scratch_size = berth_verify_program_scratch_size(ep);
  if (nv < 2 || scratch_size == SIZE_MAX) return BERTH_FUZZ_OK;
  int32_t *cands = malloc((size_t)nv * sizeof *cands), *bs = malloc((size_t)nv * sizeof *bs);
  int32_t *near = malloc((size_t)nv * sizeof *near), *parent = malloc((size_t)nv * sizeof *parent);
  int32_t *preds = malloc((size_t)(em->n_instrs + 1) * sizeof *preds);
  berth_exec_value_t *vals = malloc((size_t)nv * sizeof *vals);
  berth_exec_method_t *methods = malloc((size_t)ep->n_methods * sizeof *methods);
  void *scratch = malloc(scratch_size ? scratch_size : 1);
  berth_fuzz_kind_t kind = BERTH_FUZZ_OK;
  if (!cands || !bs || !near || !parent || !preds || !vals || !methods || !scratch) {
    kind = fail(f, BERTH_FUZZ_RUN_ERROR, algo, io, -1, "out of memory");
    goto done;
  }
  /* coalesced groups: values joined by RENAME share storage by construction */
  for (int32_t v = 0; v < nv; v++) parent[v] = v;
  for (int32_t i = 0; i < em->n_instrs; i++) {
    const berth_instr_t *in = &em->instrs[i];
    if (in->opcode != BERTH_I_RENAME) continue;
    int32_t a = em->operands[in->operands], b = em->operands[in->operands + 1];
    if (a >= 0 && a < nv && b >= 0 && b < nv) parent[uf_find(parent, a)] = uf_find(parent, b);
  }
  int32_t n_c = 0, n_p = 0;
  for (int32_t v = 0; v < nv; v++)
    if (movable(&em->values[v])) cands[n_c++] = v;
  /* the operands of run-time checks in the arena (an assert reading clobbered bytes may
   * pass or fail where it should not): a third of the mutants move one of them or move a
   * value onto one */
  for (int32_t i = 0; i < em->n_instrs; i++) {
    const berth_instr_t *in = &em->instrs[i];
    int32_t v = in->opcode == BERTH_I_ASSERT ? em->operands[in->operands] : -1;
    if (v >= 0 && v < nv && movable(&em->values[v])) preds[n_p++] = v;
  }
  if (n_c < 2) goto done;
  uint64_t align = em->alignment > 8 ? em->alignment : 8; /* keeps element alignment too */
  char what[512], cfg[256], na[128], nb[128], msg[1024];
  bool has_shiftable_views = false, has_shiftable_joins = false;
  for (int32_t i = 0; i < em->n_instrs; i++) {
    has_shiftable_views |= shiftable_view(em, &em->instrs[i]);
    has_shiftable_joins |= shiftable_join(em, &em->instrs[i]);
  }
  for (int32_t k = 0; k < n && !kind; k++) {
    mutant_t mu;
    if (!pick_mutant(em, rep, cands, n_c, preds, n_p, bs, near, align, has_shiftable_views, has_shiftable_joins, rng, &mu))
      continue;
    st->mutants_on_checks += mu.on_check;
    st->mutants_on_views += mu.on_view;
    st->mutants_on_joins += mu.on_join;
    int32_t a = mu.a, b = mu.b;
    uint64_t to = mu.to;
    const berth_exec_value_t *va = &em->values[a];
    bool group = mu.group;
    uint64_t pool_size = em->pool_sizes[va->pool];
    memcpy(vals, em->values, (size_t)nv * sizeof *vals);
    int32_t moved = 0;
    for (int32_t v = 0; v < nv; v++) {
      bool same = v == a || (group && movable(&em->values[v]) && em->values[v].pool == va->pool &&
                             em->values[v].offset == va->offset && uf_find(parent, v) == uf_find(parent, a));
      if (!same) continue;
      if (em->values[v].offset + berth_type_bytes(&em->values[v].type) - va->offset + to > pool_size) continue;
      vals[v].offset = to;
      moved++;
    }
    memcpy(methods, ep->methods, (size_t)ep->n_methods * sizeof *methods);
    methods[0].values = vals;
    berth_compiled_t cc = *c;
    cc.exec.methods = methods;
    st->mutants++;
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    berth_status_t vst = berth_verify_program(&cc.exec, scratch, scratch_size, &d);
    if (vst != BERTH_OK) {
      st->mutants_rejected++;
      st->mutants_on_checks_rejected += mu.on_check;
      st->mutants_on_views_rejected += mu.on_view;
      st->mutants_on_joins_rejected += mu.on_join;
      if (vst != BERTH_ERR_VERIFY_FAILED) st->mutants_rejected_structural++;
      continue;
    }
    st->mutants_accepted++;
    berth_snprintf(what, sizeof what, "mutant of %s: %s (%d value%s) moved from offset %llu to %llu of pool %u, onto %s",
                 config_name(o, l, algo, io, cfg, sizeof cfg),
                 em->values[a].name ? em->values[a].name : berth_exec_value_name(em, a, na, sizeof na), (int)moved,
                 moved == 1 ? "" : "s", (unsigned long long)va->offset, (unsigned long long)to, (unsigned)va->pool,
                 em->values[b].name ? em->values[b].name : berth_exec_value_name(em, b, nb, sizeof nb));
    if (mu.on_join) { /* a part out of its slot is wrong whatever the run shows */
      st->mutation_misses++;
      kind = fail(f, BERTH_FUZZ_MUTATION_MISS, algo, io, -1, "the verifier accepted a %s (a join's part out of its slot)",
                  what);
      break;
    }
    failure_t mf;
    if (run_plan(&cc, p, ora, o, what, algo, io, st, &mf) != BERTH_FUZZ_OK) {
      st->mutation_misses++;
      kind = fail(f, BERTH_FUZZ_MUTATION_MISS, algo, io, mf.call, "the verifier accepted a %s", mf.msg);
    }
  }
done:
  free(cands);
  free(bs);
  free(near);
  free(parent);
  free(preds);
  free(vals);
  free(methods);
  free(scratch);
  return kind;
}

/* ---- one program -------------------------------------------------------------------------- */

/* Checks p under every configuration (or only algo/io when they are >= 0). */
static berth_fuzz_kind_t check(const berth_ir_program_t *p, uint64_t seed, const berth_fuzz_options_t *o,
                               int32_t calls, int only_algo, int only_io, int32_t mutants, berth_fuzz_stats_t *st,
                               failure_t *f) {
  berth_fuzz_stats_t dummy;
  if (!st) {
    memset(&dummy, 0, sizeof dummy);
    st = &dummy;
  }
  fail(f, BERTH_FUZZ_OK, -1, -1, -1, "%s", "");
  char msg[1024], cfg[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  if (berth_ir_validate(p, &d)) return fail(f, BERTH_FUZZ_INVALID, -1, -1, -1, "the program does not validate: %s", msg);
  if (p->n_methods < 1) return fail(f, BERTH_FUZZ_INVALID, -1, -1, -1, "the program has no method");
  oracle_t ora;
  berth_fuzz_kind_t kind = oracle_build(p, seed, calls, o->max_steps, &ora, st, f);
  layout_t lay = layout_for(o, seed);
  uint64_t rng = seed ^ 0x6D757461746F7273ull;
  int mutate_cfg = (int)(berth_fuzzgen_rand(&rng) % (o->quick ? 8 : 16)); /* a configuration that runs */
  for (int cfg_i = 0; cfg_i < 16 && !kind; cfg_i++) {
    int algo = cfg_i / 4, io = cfg_i % 4;
    if ((only_algo >= 0 && algo != only_algo) || (only_io >= 0 && io != only_io)) continue;
    if (o->quick && only_algo < 0 && algo >= 2 && io != (int)((seed >> (2 * algo)) % 4)) continue;
    berth_plan_options_t po = config(o, &lay, algo, io);
    berth_compiled_t *c = NULL;
    d = berth_diag_make(msg, sizeof msg);
    berth_status_t cs = berth_plan_compile(p, &po, &c, &d);
    config_name(o, &lay, algo, io, cfg, sizeof cfg);
    if (cs == BERTH_ERR_VERIFY_FAILED) {
      kind = fail(f, BERTH_FUZZ_VERIFY_REJECT, algo, io, -1, "%s: the verifier rejected the plan: %s", cfg, msg);
      break;
    }
    if (cs) {
      kind = fail(f, BERTH_FUZZ_COMPILE_ERROR, algo, io, -1, "%s: %s: %s", cfg, berth_status_name(cs), msg);
      break;
    }
    st->plans++;
    for (int32_t mi = 0; mi < c->exec.n_methods; mi++) st->plan_views += c->reports[mi].views;
    for (int32_t mi = 0; mi < c->exec.n_methods; mi++) st->plan_joins += c->reports[mi].concats_in_place;
    for (int32_t mi = 0; mi < c->exec.n_methods; mi++) st->plan_hoisted += c->reports[mi].hoisted;
    kind = run_plan(c, p, &ora, o, cfg, algo, io, st, f);
    bool chosen = only_algo >= 0 || only_io >= 0 ? true : cfg_i == mutate_cfg;
    if (!kind && mutants > 0 && chosen) kind = mutate(c, p, &ora, o, &lay, mutants, &rng, algo, io, st, f);
    berth_compiled_destroy(c);
  }
  oracle_free(&ora);
  return kind;
}

/* ---- shrinking ---------------------------------------------------------------------------- */

/* A copy of sp without node skip_node (and its bodies), without method result skip_result
 * and without global skip_global; uses of values are redirected through subst (value ->
 * replacement) when given. NULL if a use has no definition left (or out of memory). */
typedef struct rebuild {
  const berth_ir_method_t *sm;
  berth_ir_program_t *dp;
  berth_ir_method_t *dm;
  int32_t *map;
  const int32_t *subst;
  const int32_t *gmap;
  int32_t skip_node, skip_result;
  bool fail;
} rebuild_t;

static int32_t rb_value(rebuild_t *r, int32_t v) {
  for (int hop = 0; r->subst && r->subst[v] != v && hop < 64; hop++) v = r->subst[v];
  if (r->map[v] >= 0) return r->map[v];
  const berth_ir_value_t *val = &r->sm->values[v];
  if (val->kind == BERTH_IR_CONST || val->kind == BERTH_IR_STATE) {
    int32_t g = r->gmap[val->index];
    int32_t dv = g < 0 ? -1 : berth_ir_global_ref(r->dp, r->dm, g);
    if (dv < 0) r->fail = true;
    return r->map[v] = dv;
  }
  r->fail = true;
  return -1;
}

static void rb_graph(rebuild_t *r, int32_t sg, int32_t dg) {
  const berth_ir_graph_t *g = &r->sm->graphs[sg];
  for (int32_t i = 0; i < g->n_params && !r->fail; i++) {
    const berth_ir_value_t *val = &r->sm->values[g->params[i]];
    r->map[g->params[i]] = berth_ir_param_add(r->dm, dg, val->name, &val->type);
    if (r->map[g->params[i]] < 0) r->fail = true;
  }
  for (int32_t k = 0; k < g->n_nodes && !r->fail; k++) {
    int32_t nd = g->nodes[k];
    if (nd == r->skip_node) continue;
    const berth_ir_node_t *n = &r->sm->nodes[nd];
    int32_t *in = malloc((size_t)(n->n_in + 1) * sizeof *in);
    if (!in) {
      r->fail = true;
      return;
    }
    for (int32_t i = 0; i < n->n_in; i++) in[i] = rb_value(r, n->in[i]);
    int32_t dn = r->fail ? -1 : berth_ir_node_add(r->dm, dg, n->op, n->n_in, in);
    free(in);
    if (dn < 0) {
      r->fail = true;
      return;
    }
    memcpy(r->dm->nodes[dn].attrs, n->attrs, sizeof n->attrs);
    for (int32_t b = 0; b < n->n_graphs && !r->fail; b++) {
      int32_t sb = n->graphs[b];
      int32_t db = berth_ir_graph_add(r->dm, dn, r->sm->graphs[sb].label);
      if (db < 0) r->fail = true;
      else rb_graph(r, sb, db);
    }
    for (int32_t i = 0; i < n->n_out && !r->fail; i++) {
      const berth_ir_value_t *val = &r->sm->values[n->out[i]];
      r->map[n->out[i]] = berth_ir_node_result_add(r->dm, dn, val->name, &val->type);
      if (r->map[n->out[i]] < 0) r->fail = true;
    }
  }
  for (int32_t i = 0; i < g->n_results && !r->fail; i++) {
    if (sg == r->sm->body && i == r->skip_result) continue;
    int32_t v = rb_value(r, g->results[i]);
    if (!r->fail && berth_ir_graph_result_add(r->dm, dg, v) < 0) r->fail = true;
  }
}

static berth_ir_program_t *rebuild(const berth_ir_program_t *sp, int32_t skip_node, const int32_t *subst,
                                   int32_t skip_result, int32_t skip_global) {
  berth_ir_program_t *dp = berth_ir_program_create();
  int32_t *gmap = malloc((size_t)(sp->n_globals + 1) * sizeof *gmap);
  bool ok = dp && gmap;
  if (ok) {
    dp->alloc_inputs = sp->alloc_inputs;
    dp->alloc_outputs = sp->alloc_outputs;
    ok = berth_ir_strings_copy(dp, sp); /* nodes keep their attributes' string indices */
  }
  for (int32_t g = 0; ok && g < sp->n_globals; g++) {
    const berth_ir_global_t *gl = &sp->globals[g];
    gmap[g] = g == skip_global ? -1 : berth_ir_global_add(dp, gl->name, &gl->type, gl->is_state, gl->data);
    if (g != skip_global && gmap[g] < 0) ok = false;
  }
  for (int32_t mi = 0; ok && mi < sp->n_methods; mi++) {
    const berth_ir_method_t *sm = &sp->methods[mi];
    int32_t dmi = berth_ir_method_add(dp, sm->name);
    int32_t *map = malloc((size_t)(sm->n_values + 1) * sizeof *map);
    if (dmi < 0 || !map) {
      free(map);
      ok = false;
      break;
    }
    for (int32_t v = 0; v < sm->n_values; v++) map[v] = -1;
    rebuild_t r = {sm, dp, &dp->methods[dmi], map, mi == 0 ? subst : NULL, gmap, mi == 0 ? skip_node : -1,
                   mi == 0 ? skip_result : -1, false};
    rb_graph(&r, sm->body, 0);
    free(map);
    if (r.fail) ok = false;
  }
  free(gmap);
  if (!ok) {
    berth_ir_program_destroy(dp);
    return NULL;
  }
  return dp;
}

/* A value of type t visible just before node nd: an operand of nd first (operand `pref`
 * preferred), else the nearest earlier value of its graph or an enclosing one, else a
 * global. -1 if none. */
static int32_t find_subst(const berth_ir_method_t *m, int32_t nd, const berth_type_t *t, int32_t pref) {
  const berth_ir_node_t *n = &m->nodes[nd];
  if (pref >= 0 && pref < n->n_in && berth_type_equal(&m->values[n->in[pref]].type, t)) return n->in[pref];
  for (int32_t i = 0; i < n->n_in; i++)
    if (berth_type_equal(&m->values[n->in[i]].type, t)) return n->in[i];
  int32_t at = nd;
  while (at >= 0) {
    const berth_ir_graph_t *g = &m->graphs[m->nodes[at].graph];
    int32_t pos = 0;
    while (pos < g->n_nodes && g->nodes[pos] != at) pos++;
    for (int32_t k = pos - 1; k >= 0; k--) {
      const berth_ir_node_t *e = &m->nodes[g->nodes[k]];
      for (int32_t i = e->n_out - 1; i >= 0; i--)
        if (berth_type_equal(&m->values[e->out[i]].type, t)) return e->out[i];
    }
    for (int32_t i = g->n_params - 1; i >= 0; i--)
      if (berth_type_equal(&m->values[g->params[i]].type, t)) return g->params[i];
    at = g->parent_node;
  }
  for (int32_t v = 0; v < m->n_values; v++)
    if ((m->values[v].kind == BERTH_IR_CONST || m->values[v].kind == BERTH_IR_STATE) &&
        berth_type_equal(&m->values[v].type, t))
      return v;
  return -1;
}

/* p without node nd, its results replaced by same-typed values visible before it. */
static berth_ir_program_t *delete_node(const berth_ir_program_t *p, int32_t nd) {
  const berth_ir_method_t *m = &p->methods[0];
  int32_t *subst = malloc((size_t)(m->n_values + 1) * sizeof *subst);
  if (!subst) return NULL;
  for (int32_t v = 0; v < m->n_values; v++) subst[v] = v;
  const berth_ir_node_t *n = &m->nodes[nd];
  int32_t shift = n->op == BERTH_OP_COND ? 1 : 0; /* cond result i most likely matches operand i + 1 */
  for (int32_t i = 0; i < n->n_out; i++) {
    int32_t s = find_subst(m, nd, &m->values[n->out[i]].type, i + shift);
    if (s >= 0) subst[n->out[i]] = s;
  }
  berth_ir_program_t *q = rebuild(p, nd, subst, -1, -1);
  free(subst);
  return q;
}

static int64_t program_size(const berth_ir_program_t *p) {
  int64_t n = p->n_globals;
  for (int32_t i = 0; i < p->n_methods; i++) n += p->methods[i].n_nodes + p->methods[i].graphs[0].n_results;
  return n;
}

typedef struct target {
  berth_fuzz_kind_t kind;
  int algo, io;
  int32_t calls;
} target_t;

static bool still_fails(const berth_ir_program_t *q, uint64_t seed, const berth_fuzz_options_t *o,
                        const target_t *t) {
  if (!q) return false;
  failure_t f;
  berth_fuzz_kind_t k = check(q, seed, o, t->calls, t->algo, t->io,
                              t->kind == BERTH_FUZZ_MUTATION_MISS ? o->mutants * 4 : 0, NULL, &f);
  return k == t->kind;
}

/* Replaces *p by q when q still fails like t; otherwise destroys q. */
static bool take_if_fails(berth_ir_program_t **p, berth_ir_program_t *q, uint64_t seed, const berth_fuzz_options_t *o,
                          const target_t *t) {
  if (q && program_size(q) <= program_size(*p) && still_fails(q, seed, o, t)) {
    berth_ir_program_destroy(*p);
    *p = q;
    return true;
  }
  berth_ir_program_destroy(q);
  return false;
}

static berth_ir_program_t *shrink(berth_ir_program_t *p, uint64_t seed, const berth_fuzz_options_t *o,
                                  const failure_t *f, int32_t *calls) {
  target_t t = {f->kind, f->algo, f->io, *calls};
  if (f->call >= 0 && f->call + 1 < t.calls) {
    target_t fewer = t;
    fewer.calls = f->call + 1;
    if (still_fails(p, seed, o, &fewer)) t = fewer;
  }
  /* 1. the same seed with smaller size options */
  berth_fuzzgen_options_t go = o->gen;
  for (int iter = 0; iter < 64; iter++) {
    bool progress = false;
    for (int c = 0; c < 7 && !progress; c++) {
      berth_fuzzgen_options_t cand = go;
      switch (c) {
        case 0: cand.max_depth--; break;
        case 1: cand.node_budget = cand.node_budget * 2 / 3; break;
        case 2: cand.max_nodes--; break;
        case 3: cand.max_results--; break;
        case 4: cand.max_inputs--; break;
        case 5: cand.max_globals--; break;
        default: cand.node_budget--; break;
      }
      if (cand.max_depth < 0 || cand.node_budget < 1 || cand.max_nodes < 1 || cand.max_results < 1 ||
          cand.max_inputs < 1 || cand.max_globals < 0)
        continue;
      berth_ir_program_t *q = NULL;
      if (berth_fuzzgen_program(seed, &cand, &q)) continue;
      if (take_if_fails(&p, q, seed, o, &t)) {
        go = cand;
        progress = true;
      }
    }
    if (!progress) break;
  }
  if (t.kind == BERTH_FUZZ_INVALID) goto out; /* a generator bug: deleting nodes would hide it */
  /* 2. method results */
  for (int32_t i = p->methods[0].graphs[0].n_results - 1; i >= 0 && p->methods[0].graphs[0].n_results > 1; i--)
    take_if_fails(&p, rebuild(p, -1, NULL, i, -1), seed, o, &t);
  /* 3. nodes, last first (ids below a deleted node do not move) */
  for (int pass = 0; pass < 4; pass++) {
    bool progress = false;
    for (int32_t nd = p->methods[0].n_nodes - 1; nd >= 0; nd--)
      if (nd < p->methods[0].n_nodes && take_if_fails(&p, delete_node(p, nd), seed, o, &t)) progress = true;
    if (!progress) break;
  }
  /* 4. globals nothing uses any more */
  for (int32_t g = p->n_globals - 1; g >= 0; g--) take_if_fails(&p, rebuild(p, -1, NULL, -1, g), seed, o, &t);
out:
  *calls = t.calls;
  return p;
}

/* Writes p as <out_dir>/fuzz-fail-<seed>.bir with a header saying how to reproduce it. */
static bool write_failure(const berth_fuzz_options_t *o, const berth_ir_program_t *p, uint64_t seed, int32_t calls,
                          const failure_t *f, char *path, size_t cap) {
  berth_snprintf(path, cap, "%s/fuzz-fail-%llu.bir", o->out_dir, (unsigned long long)seed);
  char *text = berth_ir_print(p);
  berth_outfile_t *of = NULL; /* complete or absent (berth/outfile.h) */
  if (!text || berth_outfile_open(path, &of, NULL)) {
    free(text);
    return false;
  }
  FILE *fp = berth_outfile_stream(of);
  fprintf(fp, "# berth fuzz: failing program (seed %llu; inputs from berth_fuzzgen_inputs_create with that seed, %d calls)\n",
          (unsigned long long)seed, (int)calls);
  fprintf(fp, "# replay: berth fuzz --replay %s --seed %llu --calls %d\n", path, (unsigned long long)seed, (int)calls);
  fprintf(fp, "# %s: ", berth_fuzz_kind_name(f->kind));
  for (const char *s = f->msg; *s; s++) {
    fputc(*s, fp);
    if (*s == '\n') fputs("#   ", fp);
  }
  fputs("\n", fp);
  fputs(text, fp);
  free(text);
  return berth_outfile_commit(of, NULL) == BERTH_OK;
}

/* ---- batches ------------------------------------------------------------------------------ */

static void coverage(const berth_ir_program_t *p, berth_fuzz_stats_t *st) {
  const berth_ir_method_t *m = &p->methods[0];
  int32_t deepest = 0;
  for (int32_t g = 0; g < m->n_graphs; g++) {
    int32_t d = berth_ir_graph_depth(m, g);
    if (d > deepest) deepest = d;
  }
  st->depth_hist[deepest < 7 ? deepest : 7]++;
  st->nodes += m->n_nodes;
  for (int32_t i = 0; i < m->n_nodes; i++) {
    berth_op_t op = m->nodes[i].op;
    if (op == BERTH_OP_COND) st->hops[0]++;
    else if (op == BERTH_OP_WHILE_LOOP) st->hops[1]++;
    else if (op == BERTH_OP_SCAN) st->hops[2]++;
    else if (op == BERTH_OP_MAP) st->hops[3]++;
    else if (op == BERTH_OP_COPY_) st->copies++;
    else if (op == BERTH_OP_ASSERT) {
      st->asserts++;
      if (m->nodes[i].graph != m->body) st->asserts_nested++;
    }
  }
  for (int32_t g = 0; g < m->n_graphs; g++) {
    const berth_ir_graph_t *gr = &m->graphs[g];
    if (gr->label && strcmp(gr->label, "cond") == 0) continue;
    bool loop = gr->parent_node >= 0 && m->nodes[gr->parent_node].op != BERTH_OP_COND &&
                m->nodes[gr->parent_node].op != BERTH_OP_MAP;
    for (int32_t i = 0; i < gr->n_results; i++) {
      int32_t v = gr->results[i];
      const berth_ir_value_t *val = &m->values[v];
      bool twice = false;
      for (int32_t j = 0; j < i; j++) twice |= gr->results[j] == v;
      bool global = val->kind == BERTH_IR_CONST || val->kind == BERTH_IR_STATE;
      if (g == 0) {
        if (global || val->kind == BERTH_IR_PARAM) st->method_results_io++;
        continue;
      }
      int k = twice ? 5 : global ? 4 : val->graph != g ? 3 : val->kind == BERTH_IR_NODE ? 0 : !loop || val->index == i ? 1 : 2;
      st->body_results[k]++;
    }
  }
}

static bool options_ok(const berth_fuzz_options_t *o) {
  return o && o->calls >= 1 && o->search_budget_ms >= 1 && o->exact_budget_ms >= 1 && o->count >= 0 && o->mutants >= 0 &&
         (o->strategy == BERTH_FUZZ_STRATEGY_GLOBAL || o->strategy == BERTH_FUZZ_STRATEGY_REGIONS);
}

berth_status_t berth_fuzz_run(const berth_fuzz_options_t *o, berth_fuzz_stats_t *st) {
  if (!st) return BERTH_ERR_INVALID_ARGUMENT;
  memset(st, 0, sizeof *st);
  if (!options_ok(o)) return BERTH_ERR_INVALID_ARGUMENT;
  double t0 = now_s();
  for (int64_t i = 0; i < o->count; i++) {
    if (o->time_limit_s > 0 && now_s() - t0 > o->time_limit_s) break;
    uint64_t seed = o->seed + (uint64_t)i;
    berth_ir_program_t *p = NULL;
    if (berth_fuzzgen_program(seed, &o->gen, &p)) {
      st->seconds = now_s() - t0;
      return BERTH_ERR_RESOURCE_EXHAUSTED;
    }
    coverage(p, st);
    failure_t f;
    berth_fuzz_kind_t kind = check(p, seed, o, o->calls, -1, -1, o->mutants, st, &f);
    st->programs++;
    if (kind) {
      if (!st->failed) st->first_failed_seed = seed;
      st->failed++;
      st->by_kind[kind]++;
      say(o, "seed %llu: %s: %s", (unsigned long long)seed, berth_fuzz_kind_name(kind), f.msg);
      int32_t calls = o->calls;
      if (o->shrink) {
        int64_t before = program_size(p);
        p = shrink(p, seed, o, &f, &calls);
        failure_t g;
        if (check(p, seed, o, calls, f.algo, f.io, kind == BERTH_FUZZ_MUTATION_MISS ? o->mutants * 4 : 0, NULL, &g))
          f = g;
        say(o, "seed %llu: shrunk from %lld to %lld nodes, globals and results: %s", (unsigned long long)seed,
            (long long)before, (long long)program_size(p), f.msg);
      }
      if (o->out_dir) {
        char path[1024];
        if (write_failure(o, p, seed, calls, &f, path, sizeof path))
          say(o, "seed %llu: wrote %s", (unsigned long long)seed, path);
        else say(o, "seed %llu: cannot write %s", (unsigned long long)seed, path);
      }
    }
    berth_ir_program_destroy(p);
    if (o->progress) o->progress(o->log_ctx, st->programs, o->count, st->failed);
    if (o->max_failures > 0 && st->failed >= o->max_failures) break;
  }
  st->seconds = now_s() - t0;
  return BERTH_OK;
}

berth_fuzz_kind_t berth_fuzz_check_program(const berth_ir_program_t *p, uint64_t seed, const berth_fuzz_options_t *o,
                                           berth_fuzz_stats_t *stats, char *msg, size_t cap) {
  failure_t f;
  berth_fuzz_stats_t dummy;
  if (!stats) {
    memset(&dummy, 0, sizeof dummy);
    stats = &dummy;
  }
  berth_fuzz_kind_t kind;
  if (!options_ok(o)) kind = fail(&f, BERTH_FUZZ_INVALID, -1, -1, -1, "invalid fuzzer options");
  else if (!p) kind = fail(&f, BERTH_FUZZ_INVALID, -1, -1, -1, "no program");
  else kind = check(p, seed, o, o->calls, -1, -1, o->mutants, stats, &f);
  stats->programs++;
  if (kind) {
    if (!stats->failed) stats->first_failed_seed = seed;
    stats->failed++;
    stats->by_kind[kind]++;
  }
  if (msg && cap) berth_snprintf(msg, cap, "%s", kind ? f.msg : "ok");
  return kind;
}

berth_status_t berth_fuzz_program_text(uint64_t seed, const berth_fuzzgen_options_t *gen, char **text) {
  if (!gen || !text) return BERTH_ERR_INVALID_ARGUMENT;
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_fuzzgen_program(seed, gen, &p);
  if (st) return st;
  char *t = berth_ir_print(p);
  berth_ir_program_destroy(p);
  if (!t) return BERTH_ERR_RESOURCE_EXHAUSTED;
  *text = t;
  return BERTH_OK;
}
