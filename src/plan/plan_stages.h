/* The planner's stages for one method, each a function from typed inputs to a typed result
 * (internal: plan.c runs them in order; tests/test_plan_stages.c runs and checks each alone).
 *
 *   stage                  reads                                 result
 *   berth_plan_lower       the IR method, options                berth_plan_lowered_t (lctx_t):
 *     berth_timeline_build   positions and lifetimes               the timeline,
 *     berth_views_decide     views join their source's group       storage groups and hand-over
 *     berth_coalesce         destination passing (coalesce.c)      decisions, and the instruction
 *     berth_emit_method      the instruction stream (emit.c)       stream over lowered values
 *   berth_plan_groups      lowered                               berth_plan_groups_t: the arena
 *                                                                groups (root, bytes, intervals)
 *   berth_plan_assign_pools lowered, groups                      berth_plan_pools_t: pool per group
 *   berth_plan_offsets     lowered, groups, pools                berth_plan_offsets_t: offset per
 *                                                                group; arena, bound per pool
 *   berth_plan_state       lowered                               berth_plan_state_t: state region
 *   berth_plan_assemble    all of the above, constant offsets    berth_plan_exec_t: the exec method
 *   berth_plan_report      lowered, offsets, state, exec         berth_plan_method_report_t
 *
 * One owner (berth_plan_owner_t) holds everything the results after the lowering point to,
 * and BERTH_PLAN_OWN is their one out-of-memory path: a stage that fails leaves nothing to
 * undo, and the compiled program frees it all at once. The lowered method's own arrays are
 * freed by berth_plan_lower_deinit. */
#ifndef BERTH_PLAN_PLAN_STAGES_H
#define BERTH_PLAN_PLAN_STAGES_H

#include "plan/lower_ctx.h"

/* ---- one owner for the stages' results ---------------------------------------------- */

typedef struct berth_plan_owner berth_plan_owner_t;

berth_plan_owner_t *berth_plan_owner_create(void); /* NULL when out of memory */
void berth_plan_owner_destroy(berth_plan_owner_t *o);
/* n zeroed elements of `size` bytes (at least one), owned by o; NULL when out of memory. */
void *berth_plan_own_n(berth_plan_owner_t *o, size_t n, size_t size);
/* bytes zeroed, on huge pages where the system offers them (berth/memory.h: the constant
 * blob, which every call streams through) */
void *berth_plan_own_big(berth_plan_owner_t *o, size_t bytes);

/* ptr = n zeroed elements owned by o, or the calling stage fails: the one out-of-memory path. */
#define BERTH_PLAN_OWN(o, ptr, n, diag)                                                       \
  do {                                                                                        \
    if (!((ptr) = berth_plan_own_n((o), (size_t)(n), sizeof *(ptr))))                         \
      return berth_fail((diag), BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");              \
  } while (0)

/* ---- the lowering ------------------------------------------------------------------- */

typedef lctx_t berth_plan_lowered_t;

/* An empty lowered method mi of p under opt (the context the lowering stages fill). */
void berth_plan_lower_init(berth_plan_lowered_t *c, const berth_ir_program_t *p, int32_t mi,
                           const berth_plan_options_t *opt, berth_diag_t *diag);
/* init, then timeline, views, coalescing and the instruction stream. Free it with
 * berth_plan_lower_deinit, also when it fails. */
berth_status_t berth_plan_lower(berth_plan_lowered_t *c, const berth_ir_program_t *p, int32_t mi,
                                const berth_plan_options_t *opt, berth_diag_t *diag);
void berth_plan_lower_deinit(berth_plan_lowered_t *c);

/* ---- storage groups ------------------------------------------------------------------- */

typedef struct berth_plan_group {
  int32_t root;          /* the lowered value at the group's root */
  int32_t home;          /* regions baseline: the graph that plans it */
  uint64_t size;         /* bytes: views sit inside it */
  int32_t n_ivs;         /* its lifetime: sorted, merged, half-open intervals */
  berth_interval_t *ivs; /* (regions: the home graph's local view of it) */
} berth_plan_group_t;

/* The storage groups planned in an arena (constants, state, caller buffers and windows are
 * not), in the order of their roots' ids. */
typedef struct berth_plan_groups {
  int32_t n;
  berth_plan_group_t *groups;
  int32_t *group_of; /* per lowered value: index of the group it roots, or -1 */
} berth_plan_groups_t;

berth_status_t berth_plan_groups(berth_plan_lowered_t *c, berth_plan_owner_t *o, berth_plan_groups_t *out);

/* ---- pool assignment ------------------------------------------------------------------ */

typedef struct berth_plan_pools {
  int32_t n_pools; /* at least 1 */
  int32_t *pool;   /* per group */
} berth_plan_pools_t;

/* Each group's pool by the options' pool rules (the first that matches the group's root:
 * input, output, then the op of its defining node; else pool 0). */
berth_status_t berth_plan_assign_pools(const berth_plan_lowered_t *c, berth_plan_owner_t *o,
                                       const berth_plan_groups_t *g, berth_plan_pools_t *out);

/* ---- offsets per pool ----------------------------------------------------------------- */

typedef struct berth_plan_offsets {
  uint64_t *offset; /* per group, in its pool's arena */
  uint64_t *sizes;  /* per pool: its arena bytes */
  int32_t n_pools;
  berth_plan_pool_report_t pools[BERTH_MAX_POOLS]; /* arena, lower bound and groups of each pool */
} berth_plan_offsets_t;

/* Packs the groups of each pool with the options' algorithm (regions: ExecuTorch's scheme).
 * Errors: BERTH_ERR_OUT_OF_RANGE when a pool is over the file format's arena cap. */
berth_status_t berth_plan_offsets(berth_plan_lowered_t *c, berth_plan_owner_t *o, const berth_plan_groups_t *g,
                                  const berth_plan_pools_t *pools, berth_plan_offsets_t *out);

/* ---- the state region ----------------------------------------------------------------- */

typedef struct berth_plan_state {
  uint64_t *offsets; /* per program global: its slot (0 for globals the method does not use) */
  uint64_t size;
  uint8_t *init;     /* the initial bytes */
} berth_plan_state_t;

berth_status_t berth_plan_state(const berth_plan_lowered_t *c, berth_plan_owner_t *o, berth_plan_state_t *out);

/* ---- the exec method ------------------------------------------------------------------ */

typedef struct berth_plan_exec {
  berth_exec_method_t method; /* everything it points to is owned */
  int32_t *exec_id;           /* per lowered value: its exec value id, or -1 (not in the program) */
} berth_plan_exec_t;

/* The exec values (those the stream refers to, densely renumbered) with their storage, the
 * instructions, operands and attributes, inputs, outputs, bounds, pools and state. */
berth_status_t berth_plan_assemble(berth_plan_lowered_t *c, berth_plan_owner_t *o, const uint64_t *const_offsets,
                                   const berth_plan_groups_t *g, const berth_plan_pools_t *pools,
                                   const berth_plan_offsets_t *offsets, const berth_plan_state_t *state,
                                   berth_plan_exec_t *out);

/* ---- the report ----------------------------------------------------------------------- */

/* Everything in rep but time_ms and verified: pools, counts, and the timeline of every exec
 * value and HOP for the plan drawing. */
berth_status_t berth_plan_report(const berth_plan_lowered_t *c, berth_plan_owner_t *o,
                                 const berth_plan_offsets_t *offsets, const berth_plan_state_t *state,
                                 const berth_plan_exec_t *exec, berth_plan_method_report_t *rep);

#endif
