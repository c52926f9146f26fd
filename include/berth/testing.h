/* berth's testing machinery: the properties its fuzz targets check, as plain functions.
 *
 *   char why[4096];
 *   if (berth_fuzz_parse_check(bytes, n, why, sizeof why) != 0) report(why);
 *
 * Each check takes untrusted bytes, runs them through berth (parser, importer, planner,
 * runtime, reference interpreter) and returns 0 when the property holds, else a nonzero
 * code with a reason in why (always NUL-terminated when why_cap > 0). Out of memory in berth
 * counts as the property holding. why may be NULL (with why_cap 0); data may be NULL only
 * when size is 0 (else the check fails, saying so). The libFuzzer targets in fuzz/ and the corpus replays in
 * tests/ call them.
 *
 * The differential fuzzer's driver (berth fuzz) is here too: random programs planned every
 * way and compared with the reference interpreter.
 *
 * Only libberth_testing.a (the berth tool, the tests and the fuzz targets link it) has
 * these functions: libberth.so and libberth_runtime.a do not ship a fuzzer, and this header
 * is not installed. */
#ifndef BERTH_TESTING_H
#define BERTH_TESTING_H

#include "berth/compiler.h"
#include "berth/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The text parser: any bytes either fail to parse with a message, or parse into a program
 * whose canonical print parses again into an equal program with the same print, the same
 * validation outcome, and a clone that prints the same. */
int berth_fuzz_parse_check(const uint8_t *data, size_t size, char *why, size_t why_cap);

/* The ONNX importer: any bytes either fail to import with a one-line message and no
 * program, or import (with and without keeping constant-condition Ifs) into a program that
 * validates and that the planner compiles or rejects with a message (never a verifier
 * rejection or an internal error). The same bytes read as a TensorProto decode or fail
 * with a message. */
int berth_fuzz_onnx_check(const uint8_t *data, size_t size, char *why, size_t why_cap);

/* The image decoders of ONNX ImageDecoder (BMP, PNM, TIFF, PNG, JPEG, WebP, JPEG 2000): any
 * bytes decode, with a 64x64 bound, into an image within it or fail with a one-line
 * message, never touching memory outside their buffers; the three pixel formats agree. */
int berth_fuzz_image_check(const uint8_t *data, size_t size, char *why, size_t why_cap);

/* Where the numeric ONNX generator takes its choices from: the bytes [at, n) of a
 * libFuzzer input (0 once they run out), or, when bytes is NULL, a splitmix64 stream whose
 * state is `state` (any seed). Both advance as choices are taken. */
typedef struct berth_fuzz_choices {
  const uint8_t *bytes;
  size_t n, at;
  uint64_t state;
} berth_fuzz_choices_t;

/* A small valid ONNX model built from choices c, whose attributes and constants hold
 * numeric edge values (NaN, +-inf, -0, denormals, 3e9, 1e30, INT32/INT64_MIN/MAX, 2^40
 * dims, negative axes). *model (malloc'd, *len bytes) is the caller's to free. Errors:
 * INVALID_ARGUMENT (a NULL argument), RESOURCE_EXHAUSTED. */
berth_status_t berth_fuzz_onnx_numbers_model(berth_fuzz_choices_t *c, uint8_t **model, size_t *len,
                                             berth_diag_t *diag);

/* The property of such a model (or any ONNX model): the import fails with a one-line
 * message and no program, or the program validates, plans, and runs planned (sanitizer on)
 * and in the reference interpreter on inputs drawn from c with the same status and, on
 * success, the same bytes (NaN payloads aside); a failed call writes no output and says
 * why. Models with more than 8 inputs or outputs, or more than 4 MiB of values, are only
 * imported and validated. */
int berth_fuzz_onnx_numbers_check(berth_fuzz_choices_t *c, const uint8_t *model, size_t len, char *why,
                                  size_t why_cap);

/* ---- the differential fuzzer (berth fuzz) --------------------------------------------- */

/* The differential fuzzer's driver: the proof, one random program at a time, that planned
 * execution equals the reference interpreter (DESIGN.md "How correctness is established").
 *
 *   berth_fuzz_options_t o = berth_fuzz_options_default();
 *   o.seed = 1; o.count = 1000; o.out_dir = ".";
 *   o.log = my_print; o.log_ctx = stderr;            // failures and shrunk files are reported here
 *   berth_fuzz_stats_t st;
 *   berth_fuzz_run(&o, &st);
 *   if (st.failed) ...;                              // st.by_kind says which kind
 *
 * For each program (program i of a batch is generated from seed + i) it runs `calls` calls
 * of `forward` with the same seeded inputs under the reference interpreter, then under
 * every allocation algorithm (naive, greedy, search, exact; small budgets) x every
 * alloc_inputs / alloc_outputs combination, with the strategy given (global), an arena
 * alignment and pool rule picked from the seed, and the sanitizer on, and compares every
 * output and every mutable buffer after every call bit for bit. A call that fails a
 * run-time check (`assert`) must fail in both, on the same assert (its message text), with
 * the same buffers afterwards (what the call wrote before the failing assert stays
 * written), and the next calls go on from there.
 *
 * Failures: a program that does not validate (a generator bug), a reference error, a
 * planner error, a verifier rejection of a plan, a runtime or sanitizer error, a mismatch
 * (of outputs, of buffers, or of whether and which check fails), and a verifier miss found
 * by mutation: for some plans, one ARENA value (or its whole coalesced group) is moved onto
 * another value of the same pool (a third of the mutants move an assert's operand or move
 * a value onto it, when there is one); a mutant the verifier accepts is run against the
 * oracle, and any sanitizer report or difference is a miss. A failing program is shrunk
 * (re-generated from its seed with smaller size options, then method results, nodes and
 * globals deleted while it still fails the same way) and written as
 * `fuzz-fail-<seed>.bir` to out_dir.
 *
 * Library code: it prints nothing itself; lines for a person go to the log callback. */

struct berth_ir_program; /* src/ir/ir.h: a parsed program (the berth tool's loader makes one) */

/* The random program generator's options (src/fuzzgen/fuzzgen.h makes the programs). */
typedef struct berth_fuzzgen_options {
  int32_t max_depth;   /* deepest HOP nesting: 0 means no HOPs, 4 a body 4 levels down */
  int32_t max_nodes;   /* nodes generated directly in one graph, at most (>= 1) */
  int32_t node_budget; /* nodes in the whole method, about (helpers may go a little over) */
  int32_t max_inputs;  /* f32 parameters of the method, 1..; plus an optional bool and i64 */
  int32_t max_globals; /* constants, and separately mutable buffers, 0.. each */
  int32_t max_results; /* results of the method and of each cond, 1.. */
  int32_t hop_percent; /* chance (0..100) that a node is a HOP while the depth allows one */
  int32_t assert_percent; /* chance (0..100) that a node is an assert, at any depth (0: none,
                             and then the programs are exactly those of a generator without
                             asserts) */
  uint32_t avoid;      /* BERTH_FUZZGEN_AVOID_* bits: shapes to leave out (to look past a known bug) */
} berth_fuzzgen_options_t;

#define BERTH_FUZZGEN_AVOID_EMPTY_SCAN 1u     /* scan/map over a leading dim of 0 */
#define BERTH_FUZZGEN_AVOID_STATE_OPERANDS 2u /* a mutable buffer as a HOP operand */
#define BERTH_FUZZGEN_AVOID_WHILE 4u          /* while_loop (for running plans nobody verified:
                                                 a clobbered counter would spin) */

/* max_depth 4, max_nodes 5, node_budget 40, max_inputs 3, max_globals 2, max_results 3,
 * hop_percent 30, assert_percent 0 (no asserts; berth_fuzz_options_default turns them
 * on), avoid 0. */
berth_fuzzgen_options_t berth_fuzzgen_options_default(void);

typedef enum berth_fuzz_strategy {
  BERTH_FUZZ_STRATEGY_GLOBAL = 0,  /* berth's planner */
  BERTH_FUZZ_STRATEGY_REGIONS = 1, /* ExecuTorch's scheme: a wrong plan, to show it is caught */
} berth_fuzz_strategy_t;

typedef enum berth_fuzz_kind {
  BERTH_FUZZ_OK = 0,
  BERTH_FUZZ_INVALID,        /* the generated program fails berth_ir_validate (generator bug) */
  BERTH_FUZZ_REF_ERROR,      /* the reference interpreter failed */
  BERTH_FUZZ_COMPILE_ERROR,  /* planning failed for a reason other than the verifier */
  BERTH_FUZZ_VERIFY_REJECT,  /* the verifier rejected a plan (planner or verifier bug) */
  BERTH_FUZZ_RUN_ERROR,      /* the planned runtime or its sanitizer reported an error */
  BERTH_FUZZ_MISMATCH,       /* an output or a buffer differs from the oracle */
  BERTH_FUZZ_MUTATION_MISS,  /* the verifier accepted a corrupted plan that then went wrong */
  BERTH_FUZZ_KIND_COUNT
} berth_fuzz_kind_t;

/* "ok", "invalid program", "reference error", "compile error", "verifier rejection",
 * "runtime error", "mismatch", "mutation miss". */
const char *berth_fuzz_kind_name(berth_fuzz_kind_t kind);

/* Receives one line (no trailing newline) for a person to read. */
typedef void (*berth_fuzz_log_fn)(void *ctx, const char *line);
/* Called after each program: programs checked so far, of count, and how many failed. */
typedef void (*berth_fuzz_progress_fn)(void *ctx, int64_t done, int64_t count, int64_t failed);

typedef struct berth_fuzz_options {
  uint64_t seed;       /* program i of the batch is generated from seed + i */
  int64_t count;       /* programs in the batch */
  int32_t calls;       /* calls per program, in a row (state carries over), >= 1 */
  berth_fuzzgen_options_t gen;
  int64_t search_budget_ms; /* >= 1 */
  int64_t exact_budget_ms;  /* >= 1 */
  berth_fuzz_strategy_t strategy; /* GLOBAL; REGIONS only to show that a wrong plan is caught */
  bool verify;               /* run the verifier when compiling (a rejection is a failure) */
  bool sanitize;             /* run the planned runtime with the sanitizer */
  uint32_t alignment;        /* planner arena alignment (0: the planner's default) */
  const char *pools;         /* planner pool rule, e.g. "add=1,mul=2" (NULL: one pool) */
  bool vary_layout;          /* with neither of those set: pick both per program from its seed */
  bool quick;                /* search and exact under one alloc_inputs/outputs combination per
                                program (picked from its seed) instead of all four: 10 plans a
                                program instead of 16 (for CI; the combinations rotate) */
  int32_t mutants;           /* verifier mutants tried per program (0: no mutation check) */
  bool shrink;               /* shrink failing programs */
  const char *out_dir;       /* where shrunk failing programs go; NULL: not written */
  int64_t max_failures;      /* stop after this many failing programs (0: never) */
  double time_limit_s;       /* start no program after this many seconds (0: no limit) */
  uint64_t max_steps;        /* the step limit of the reference and the planned runs, the same
                                for both (berth/runtime.h's meaning; default 100000) */
  berth_fuzz_log_fn log;     /* may be NULL */
  berth_fuzz_progress_fn progress; /* may be NULL */
  void *log_ctx;             /* passed to log and progress */
} berth_fuzz_options_t;

typedef struct berth_fuzz_stats {
  int64_t programs; /* programs checked */
  int64_t failed;   /* programs with a failure */
  int64_t by_kind[BERTH_FUZZ_KIND_COUNT]; /* failing programs, by their first failure */
  int64_t plans;    /* plans compiled and run */
  int64_t calls;    /* planned calls compared with the oracle */
  int64_t mutants, mutants_rejected, mutants_rejected_structural, mutants_accepted, mutation_misses;
  int64_t mutants_on_checks, mutants_on_checks_rejected; /* mutants that move an assert's operand
                                                            or move a value onto it */
  int64_t mutants_on_views, mutants_on_views_rejected;   /* mutants that move a view's source
                                                            while it still covers the view */
  int64_t mutants_on_joins, mutants_on_joins_rejected;   /* mutants that move a join's part out of
                                                            its slot (all must be rejected) */
  /* run-time checks: reference calls, those that failed a check (an assert), and planned
   * calls that failed the same check as the reference (counted in `calls` too) */
  int64_t ref_calls, ref_traps, calls_trapped;
  int64_t ref_programs_always_trapped; /* programs whose every call failed a check */
  /* coverage of the generated programs */
  int64_t depth_hist[8]; /* programs by deepest HOP nesting (7: 7 or more) */
  int64_t hops[4];       /* cond, while_loop, scan, map nodes */
  int64_t copies;        /* copy_ nodes */
  int64_t asserts, asserts_nested; /* assert nodes, and those inside HOP bodies */
  /* body results (of every HOP body but while_loop conds) by what they return: a local
   * value, the body's own parameter passed through (loops: the one it carries), another
   * parameter (a swap), an outer value, a constant or buffer, a value returned before */
  int64_t body_results[6];
  int64_t method_results_io; /* method results that are inputs, constants or buffers */
  int64_t nodes;         /* nodes in all programs */
  int64_t plan_views;    /* VIEW instructions in the plans run (calls sharing their operand's bytes) */
  int64_t plan_joins;    /* JOIN instructions in the plans run (Concats done in place) */
  int64_t plan_hoisted;  /* kernel calls in the plans' once-streams (constant-only work run once) */
  uint64_t first_failed_seed; /* seed of the first failing program (valid when failed > 0) */
  double seconds;
} berth_fuzz_stats_t;

/* seed 1, count 1000, calls 3, generator defaults but with asserts (assert_percent 8),
 * search and exact budgets 5 ms, strategy global, verify and sanitize on, layout varied per
 * program (alignment 16, 1, 8 or 64; one pool or a few pool rules), 2 mutants, shrink on,
 * out_dir NULL, no limits, no log. */
berth_fuzz_options_t berth_fuzz_options_default(void);

/* Runs the batch described by o and fills *stats (zeroed first). Returns BERTH_OK when the
 * batch ran (failures are counted in stats, not returned), INVALID_ARGUMENT for bad
 * options (or stats NULL), RESOURCE_EXHAUSTED when out of memory. */
berth_status_t berth_fuzz_run(const berth_fuzz_options_t *o, berth_fuzz_stats_t *stats);

/* Checks one given program (for example a regression file) with the inputs generated from
 * `seed`, under every configuration of o (o->count, o->gen and o->shrink are ignored).
 * Adds to *stats; returns the kind of the first failure and its description in msg. */
berth_fuzz_kind_t berth_fuzz_check_program(const struct berth_ir_program *p, uint64_t seed, const berth_fuzz_options_t *o,
                                           berth_fuzz_stats_t *stats, char *msg, size_t cap);

/* berth_fuzz_check_program of a source (berth/compiler.h; `berth fuzz --replay FILE`). */
berth_fuzz_kind_t berth_fuzz_check_source(const berth_source_t *s, uint64_t seed, const berth_fuzz_options_t *o,
                                          berth_fuzz_stats_t *stats, char *msg, size_t cap);

/* The program of `seed` as canonical .bir text (berth fuzz --print): *text malloc'd, the
 * caller's to free. Errors: INVALID_ARGUMENT (gen or text NULL), RESOURCE_EXHAUSTED. */
berth_status_t berth_fuzz_program_text(uint64_t seed, const berth_fuzzgen_options_t *gen, char **text);

/* ---- running a program: a plan, or the reference interpreter -------------------------- */

/* One handle that calls a program's methods, with heap-owned memory (`berth run`, `berth
 * onnx-test`): a compiled plan through the host session (optionally with the arena
 * sanitizer), a .berth file's stored plan, or the reference interpreter (the oracle):
 *
 *   berth_runner_t *r;
 *   berth_runner_create(compilation, false, &r, &diag);    // or _file, or _reference
 *   void *outs[2];
 *   if (berth_runner_call(r, 0, inputs, outs, &diag) == BERTH_OK) ... free(outs[k]);
 *   berth_runner_destroy(r);
 *
 * Calls of one runner share the methods' state (mutable buffers carry over). */
typedef struct berth_runner berth_runner_t;

/* The plan of c (c must outlive the runner). sanitize: check an owner tag per arena byte
 * on every read. */
berth_status_t berth_runner_create(const berth_compilation_t *c, bool sanitize, berth_runner_t **out, berth_diag_t *diag);
/* The plan stored in a .berth file (loaded and verified; bytes must outlive the runner).
 * Errors: the loader's. */
berth_status_t berth_runner_create_file(const void *bytes, size_t len, bool sanitize, berth_runner_t **out,
                                        berth_diag_t *diag);
/* The reference interpreter over s (s must outlive the runner). */
berth_status_t berth_runner_create_reference(const berth_source_t *s, berth_runner_t **out, berth_diag_t *diag);
void berth_runner_destroy(berth_runner_t *r);

/* The step limit (loop iterations one call may run; berth/runtime.h's meaning). */
void berth_runner_set_max_steps(berth_runner_t *r, uint64_t max_steps);

/* Calls method with its inputs in order (dense row-major data of the declared types).
 * On success outputs[j] holds output j, malloc'd: the caller frees each. */
berth_status_t berth_runner_call(berth_runner_t *r, int32_t method, const void *const *inputs, void **outputs,
                                 berth_diag_t *diag);

/* The real shape of output j after the last call (a bounded output's extent, under
 * --dynamic-bound); the declared type otherwise. */
berth_status_t berth_runner_output_shape(berth_runner_t *r, int32_t method, int32_t j, berth_type_t *type,
                                         berth_diag_t *diag);

/* ---- ONNX backend-test folders (berth onnx-test) ---------------------------------------- */

/* Runs ONNX backend-test folders: model.onnx plus test_data_set_N/{input,output}_N.pb,
 * imported (shapes from the input files; an input the importer needs at compile time is
 * bound to its value), compiled with the default planner and verified, run once per set,
 * and compared with the expected outputs as ONNX's runner does (same element type and
 * shape; floats within rtol 1e-3 and atol 1e-7, NaN equal to NaN, narrow float types also
 * within one unit in the last place; everything else exactly).
 *
 *   berth_onnx_test_options_t o = {0};
 *   o.result = print_line;  o.ctx = &counts;
 *   if (berth_onnx_test_path(&o, "onnx/backend/test/data/node") == 0) ...;  // no test found
 *
 * A result is PASS, FAIL (a wrong output, a failed compile or run, a malformed file, a
 * test_data_set_* without model.onnx, an input file with no graph input to bind to) or
 * UNSUPPORTED (what berth lacks: an op, a type, a sequence; why is the importer's message). */
typedef enum berth_onnx_test_result {
  BERTH_ONNX_TEST_PASS = 0,
  BERTH_ONNX_TEST_FAIL = 1,
  BERTH_ONNX_TEST_UNSUPPORTED = 2,
} berth_onnx_test_result_t;

typedef struct berth_onnx_test_options {
  bool sanitize;          /* run with the arena sanitizer */
  bool keep_control_flow; /* berth_compile_options_t's meaning */
  int64_t max_trip_count; /* 0: none */
  int64_t dynamic_bound;  /* 0: data-dependent shapes specialized on the input values */
  uint64_t max_steps;     /* 0: the runtime's default */
  bool plain_layout;      /* berth_compile_options_t's meaning: no channel-blocked regions */
  bool direct_3x3;        /* berth_compile_options_t's meaning: no conv_winograd */
  /* Before each test folder (may be NULL). */
  void (*start)(void *ctx, const char *folder);
  /* Each folder's result; why is one line ("" for a pass). Required. */
  void (*result)(void *ctx, const char *folder, berth_onnx_test_result_t r, const char *why);
  /* Per folder, each default-domain op type its model uses (nested graphs included), once,
   * with the folder's result, the model's ai.onnx opset and the ONNX element types (a bit
   * per TensorProto type number) of its inputs that are inputs or initializers of the top
   * graph. NULL: not reported. */
  void (*op_used)(void *ctx, const char *op, berth_onnx_test_result_t r, int64_t opset, uint32_t elems);
  /* Each imported program as .bir text (may be NULL). */
  void (*ir)(void *ctx, const char *text);
  void *ctx;
} berth_onnx_test_options_t;

/* Runs the test folder path (it holds model.onnx) or those below it, two levels down.
 * Returns how many test folders it found (0: none; nothing was reported). */
int berth_onnx_test_path(const berth_onnx_test_options_t *o, const char *path);

/* An ONNX element type's name as TensorProto spells it in lower case ("float", "int64",
 * "float16"); "unknown" for an unknown number. */
const char *berth_onnx_element_type_name(int32_t elem);

#ifdef __cplusplus
}
#endif
#endif
