/* The memory planner: lowers every method of a validated IR program to the flat
 * instruction stream of exec_program.h and gives every value one storage for the method's
 * whole life (DESIGN.md "Memory semantics"), then runs the independent verifier on the
 * result.
 *
 *   berth_plan_options_t opt = berth_plan_options_default();
 *   berth_compiled_t *c;
 *   if (berth_plan_compile(program, &opt, &c, &diag) == BERTH_OK) {
 *     run c->exec ...; read c->reports[m] ...
 *     berth_compiled_destroy(c);
 *   }
 *
 * How it works:
 *  - timeline: every node of every nested graph gets positions on one timeline per method;
 *    a HOP's bodies sit inside the HOP's span (cond: then, else; loops: cond, body); a
 *    value lives from its definition to its last use, and a use inside a nested body keeps
 *    the value live for that HOP's whole span;
 *  - destination passing: HOP results are parent values; each body result is coalesced
 *    with the HOP result (same storage, a zero-cost RENAME in the stream) unless that is
 *    illegal (passthrough of a parameter or outer value, constant, state, the same value
 *    returned twice, or storage conflict: lifetimes that would overlap), in which case it
 *    is COPYed at the end of the body. Per-step scan/map outputs are written in place into
 *    their slice of the stacked result (windowed values); scanned inputs are read in place;
 *  - a storage group (coalesced values) is live on a set of intervals, not their hull, so
 *    exclusive branches share bytes;
 *  - the groups of each pool are packed by the allocation algorithm chosen.
 * The `regions` strategy reproduces ExecuTorch's scheme (each body planned alone from
 * offset 0 of one shared region, parent values after it, branch results reaching the parent
 * through the branch's own storage). It is only a comparison baseline: the verifier rejects
 * it on the seed program. */
#ifndef BERTH_PLAN_PLAN_H
#define BERTH_PLAN_PLAN_H

#include "ir/ir.h"
#include "berth/alloc.h"
#include "program/exec_program.h"

typedef enum berth_strategy {
  BERTH_STRATEGY_GLOBAL = 0,
  BERTH_STRATEGY_REGIONS = 1,
} berth_strategy_t;

#define BERTH_MAX_POOLS 16

typedef enum berth_concat_mode {
  BERTH_CONCAT_COPY = 0,      /* every Concat runs its copy kernel */
  BERTH_CONCAT_AUTO = 1,      /* in place unless that makes the method's arena larger */
  BERTH_CONCAT_IN_PLACE = 2,  /* in place wherever allowed */
} berth_concat_mode_t;

typedef struct berth_plan_options {
  berth_alloc_algo_t algo;
  int fit;
  int64_t budget_ms;
  int64_t budget_work; /* > 0: a deterministic budget in work units instead (alloc.h) */
  uint64_t seed;
  berth_strategy_t strategy;
  uint32_t alignment; /* arena offsets are multiples of this (power of two) */
  /* Pool rule: "key=pool,..." where key is an op name, "input" or "output"; other
   * values go to pool 0. NULL: everything in pool 0. */
  const char *pools;
  int alloc_inputs;  /* -1: as the program says; 0 or 1: override */
  int alloc_outputs; /* -1: as the program says; 0 or 1: override */
  bool verify;       /* run the verifier on the result (default true) */
  bool views;        /* calls that only reproduce their operand's bytes (reshape, squeeze,
                        unsqueeze, clone, contiguous slices) share its storage (DESIGN rule 7;
                        default true; false: copy kernels, for comparison) */
  berth_concat_mode_t concat_in_place; /* Concats whose parts can be produced in their slots of
                        the output (plan/views.c: JOIN, no work at run time): off, auto (the
                        default: a method is planned with and without them and keeps the smaller
                        arena, joins on a tie) or always */
  bool hoist;        /* work on constants alone runs once, into the hoist region (hoist.c;
                        default true) */
  uint64_t hoist_min_bytes; /* a kernel call is hoisted when it reads and writes at least
                               this many bytes (default 4096) */
} berth_plan_options_t;

berth_plan_options_t berth_plan_options_default(void);

/* Checks a pool rule list "key=pool,...": key an op name (as in the text format), input or
 * output, each key once; pool 0..BERTH_MAX_POOLS-1. berth_plan_compile checks opt->pools
 * with it, so a rule that could never apply is an error, not ignored.
 * Errors: BERTH_ERR_INVALID_ARGUMENT naming the rule. */
berth_status_t berth_plan_pools_check(const char *rules, berth_diag_t *diag);

/* Where one value ended up (for reports and --json). */
typedef struct berth_plan_pool_report {
  uint64_t arena_bytes;
  uint64_t lower_bound_bytes;
  int32_t n_buffers; /* storage groups packed in this pool */
} berth_plan_pool_report_t;

typedef struct berth_plan_method_report {
  int32_t n_pools;
  berth_plan_pool_report_t pools[BERTH_MAX_POOLS];
  int32_t n_values;     /* values with storage */
  int32_t copies;       /* COPY instructions inserted (hand-overs, outputs, copy_) */
  int32_t coalesced;    /* hand-overs done in place (RENAME, windowed per-step outputs) */
  int32_t views;        /* kernel calls that became views of their operand (VIEW, no work;
                           DESIGN rule 7, plan/views.c) */
  int32_t concats_in_place; /* Concat calls whose parts were produced in their slots of the output
                               (JOIN, no work; plan/views.c) */
  int32_t state_in_place; /* copy_ writes of a buffer done in place (the new value computed in
                             the buffer's bytes: a RENAME, no copy per call) */
  uint64_t state_bytes;
  int32_t n_scratch;      /* kernel calls given scratch in the arena (their own values) */
  uint64_t scratch_bytes; /* the bytes those calls asked for, summed (packed like any value) */
  int32_t hoisted;        /* kernel calls in the once-stream (run once, not per call) */
  uint64_t hoist_bytes;   /* the hoist region: the bytes of their results */
  double time_ms;       /* planning time */
  bool verified;
  /* For the plan drawing: timeline interval sets of each exec value, inclusive
   * positions (n_ivs[v] pairs at ivs[v]); depth of the graph that defines it. */
  int32_t *n_ivs;
  int64_t (*ivs)[2];
  int32_t *iv_first;
  int32_t *depth;
  int64_t n_positions;
  /* HOP spans on the timeline: [ts, te]; for cond, `split` is where the else-body starts
   * (the two sides are exclusive), else -1. */
  int32_t n_hops;
  struct berth_plan_hop_span {
    int64_t ts, te, split;
    int32_t depth;
    const char *kind;
  } *hops;
} berth_plan_method_report_t;

typedef struct berth_compiled {
  berth_exec_program_t exec;
  berth_plan_method_report_t *reports; /* one per method */
  void *owned;                         /* everything the arrays point to */
} berth_compiled_t;

/* Plans and emits every method. The program must have passed berth_ir_validate. When
 * opt->verify is set, a plan the verifier rejects fails with BERTH_ERR_VERIFY_FAILED and
 * the verifier's message (naming the two values, their bytes and the instruction). */
berth_status_t berth_plan_compile(const berth_ir_program_t *p, const berth_plan_options_t *opt,
                                  berth_compiled_t **out, berth_diag_t *diag);
void berth_compiled_destroy(berth_compiled_t *c);

const char *berth_strategy_name(berth_strategy_t s);
bool berth_strategy_from_name(const char *name, berth_strategy_t *out);

#endif
