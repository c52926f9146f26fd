/* Shared internals of the allocation algorithms (not part of the planner's interface).
 *
 * Every algorithm works on a prepared problem: buffers that can conflict with something
 * (size > 0 and at least one interval) are "active" and renumbered 0..m-1; time is
 * compressed to slots, slot j being [t_j, t_{j+1}) between consecutive distinct interval
 * endpoints, so each interval becomes a slot range [lo, hi). Two active buffers conflict
 * iff one of their slot ranges overlap. */
#ifndef BERTH_PLAN_ALLOC_INTERNAL_H
#define BERTH_PLAN_ALLOC_INTERNAL_H

#include "berth/alloc.h"

#include <stddef.h>
#include <stdint.h>

typedef struct berth_alloc_prep {
  int32_t n;          /* buffers of the original problem */
  int32_t m;          /* active buffers */
  int32_t *orig;      /* [m] original index of each active buffer */
  uint64_t *size;     /* [m] > 0 */
  uint64_t *align;    /* [m] >= 1, a power of two */
  int32_t *iv_first;  /* [m + 1] its slot ranges are iv_first[i] .. iv_first[i + 1] - 1 */
  int32_t *lo, *hi;   /* [n_iv] slot ranges, sorted and disjoint per buffer */
  int32_t n_iv;
  int32_t n_slots;    /* slots are 0 .. n_slots - 1 */
  int64_t *length;    /* [m] total live time (original units), for orderings */
  uint64_t lower_bound; /* berth_alloc_lower_bound, computed over slots */
} berth_alloc_prep_t;

/* Validates p and builds the prepared form. On failure nothing needs freeing. */
berth_status_t berth_alloc_prep_init(berth_alloc_prep_t *prep, const berth_alloc_problem_t *p, berth_diag_t *diag);
void berth_alloc_prep_deinit(berth_alloc_prep_t *prep);

/* Splits the time line where no buffer is live across (counting the gaps between a
 * buffer's intervals as live: it keeps one offset): writes the segment of each active
 * buffer into part[m] and the first slot of each segment into seg_first[] (room for
 * n_slots + 1 entries; seg_first[count] = n_slots). Returns the count (>= 1 when there
 * are slots), or -1 if out of memory. Buffers of different segments never conflict, so
 * each segment can be planned alone from offset 0. */
int32_t berth_alloc_prep_split(const berth_alloc_prep_t *prep, int32_t *part, int32_t *seg_first);

/* The prepared problem of the active buffers list[0..k) of prep (ascending), all within
 * slots [s0, s1), renumbered from 0; sub->orig[t] = list[t] (an index into prep's active
 * buffers), sub->n = k, its own lower bound. False if out of memory (nothing to free). */
bool berth_alloc_prep_sub(berth_alloc_prep_t *sub, const berth_alloc_prep_t *prep, const int32_t *list, int32_t k,
                          int32_t s0, int32_t s1);

/* Total size live in each slot (caller frees); NULL if out of memory. */
uint64_t *berth_alloc_prep_slot_load(const berth_alloc_prep_t *prep);

/* Monotonic milliseconds since an arbitrary origin. */
double berth_alloc_now_ms(void);

/* The budget of one solve: wall clock (deadline_ms on the berth_alloc_now_ms scale), or,
 * when work_limit > 0, deterministic work units: the buffers visited by branch-and-bound nodes
 * (their unplaced buffers), local-search steps and greedy runs. Each loop that spends budget adds
 * its work with berth_alloc_clock_tick, so in work mode the same problem and options stop
 * at the same point on any machine under any load. */
typedef struct berth_alloc_clock {
  double deadline_ms;
  int64_t work_limit; /* > 0: work mode */
  int64_t work;       /* units spent so far (work mode) */
} berth_alloc_clock_t;

static inline void berth_alloc_clock_tick(berth_alloc_clock_t *c, int64_t units) {
  if (c && units > 0) c->work = units > INT64_MAX - c->work ? INT64_MAX : c->work + units;
}
/* True when the budget is spent. */
static inline bool berth_alloc_clock_out(const berth_alloc_clock_t *c) {
  if (!c) return false;
  return c->work_limit > 0 ? c->work >= c->work_limit : berth_alloc_now_ms() > c->deadline_ms;
}

static inline uint64_t berth_alloc_align_up(uint64_t x, uint64_t align) {
  return align <= 1 ? x : (x + align - 1) & ~(align - 1);
}

/* splitmix64: a small deterministic generator for the search's choices. */
static inline uint64_t berth_alloc_rand(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static inline uint32_t berth_alloc_rand_below(uint64_t *state, uint32_t n) {
  return (uint32_t)(((berth_alloc_rand(state) >> 32) * (uint64_t)n) >> 32);
}

/* Writes offsets for the original problem from offsets of the active buffers (inactive
 * buffers get 0) and returns the arena. */
uint64_t berth_alloc_prep_scatter(const berth_alloc_prep_t *prep, const uint64_t *active_off, uint64_t *offsets);

/* ---- conflict graph ----------------------------------------------------------------- */

typedef struct berth_alloc_graph {
  int32_t m;
  int64_t *first; /* [m + 1] buffer b's neighbours are adj[first[b] .. first[b + 1] - 1] */
  int32_t *adj;   /* sorted, no duplicates */
} berth_alloc_graph_t;

/* Builds the conflict graph. Returns 0 on success, 1 if there are more than max_pairs
 * conflicting pairs (nothing is built), -1 if out of memory. */
int berth_alloc_graph_init(berth_alloc_graph_t *g, const berth_alloc_prep_t *prep, int64_t max_pairs);
void berth_alloc_graph_deinit(berth_alloc_graph_t *g);

/* ---- naive -------------------------------------------------------------------------- */

/* Stacks the active buffers in index order; returns the arena. */
uint64_t berth_alloc_naive_run(const berth_alloc_prep_t *prep, uint64_t *off);

/* ---- greedy ------------------------------------------------------------------------- */

/* The orders greedy tries, in this sequence. Each is a sort key list; ties end on index. */
typedef enum berth_alloc_order {
  BERTH_ALLOC_ORDER_SIZE = 0,   /* size desc, start asc */
  BERTH_ALLOC_ORDER_SIZE_CLASS, /* power-of-two size class desc, start asc, size desc */
  BERTH_ALLOC_ORDER_LENGTH,     /* lifetime length desc, size desc */
  BERTH_ALLOC_ORDER_AREA,       /* size x length desc */
  BERTH_ALLOC_ORDER_CONFLICTS,  /* number of conflicting buffers desc, size desc */
  BERTH_ALLOC_ORDER_SIZE_END,   /* size desc, end desc */
  BERTH_ALLOC_ORDER_PEAK,       /* sweep out from the busiest slot (the first of largest
                                   load): the buffers live there first (end asc, size desc),
                                   then the others by the distance from it to their nearest
                                   live slot asc, size desc, start asc */
  BERTH_ALLOC_ORDER_COUNT
} berth_alloc_order_t;

typedef struct berth_alloc_greedy berth_alloc_greedy_t;

/* An engine for repeated greedy runs over one prepared problem (it keeps its interval
 * structure's memory between runs). NULL if out of memory. */
berth_alloc_greedy_t *berth_alloc_greedy_create(const berth_alloc_prep_t *prep);
void berth_alloc_greedy_destroy(berth_alloc_greedy_t *g);

/* Fills order[m] with the active buffers sorted by the given order. Returns false if out
 * of memory. */
bool berth_alloc_greedy_order(berth_alloc_greedy_t *g, berth_alloc_order_t which, int32_t *order);

/* How a greedy run ended. */
typedef enum berth_alloc_run {
  BERTH_ALLOC_RUN_DONE,      /* every buffer placed: off[] and the arena are set */
  BERTH_ALLOC_RUN_STOPPED,   /* a buffer ended above stop_above: the run gave up */
  BERTH_ALLOC_RUN_NO_MEMORY, /* out of memory */
} berth_alloc_run_t;

/* Places the active buffers in the given order, each at the lowest offset that fits
 * (first fit) or in the smallest gap that fits (best fit); writes off[m] and *arena. If
 * stop_above is not UINT64_MAX the run gives up as soon as a buffer ends above it. */
berth_alloc_run_t berth_alloc_greedy_run(berth_alloc_greedy_t *g, const int32_t *order, int fit, uint64_t stop_above,
                                         uint64_t *off, uint64_t *arena);

/* Sets the budget (NULL for none) for berth_alloc_greedy_best: it then skips the orders
 * whose run would end past it, after the first, and adds each run's work to it. */
void berth_alloc_greedy_set_clock(berth_alloc_greedy_t *g, berth_alloc_clock_t *clock);

/* Runs the orders and fits allowed by `fit` (FIT_AUTO: both; all of them up to 1024
 * buffers, fewer above, stopping at the lower bound); keeps the best. Writes off[m],
 * best_order[m] (may be NULL), and the name of the winner. Returns the arena or
 * UINT64_MAX if out of memory. */
uint64_t berth_alloc_greedy_best(berth_alloc_greedy_t *g, int fit, uint64_t *off, int32_t *best_order,
                                 int *best_fit, const char **name);

/* ---- canonical branch and bound (alloc_dfs.c) ------------------------------------------ */

typedef struct berth_alloc_dfs berth_alloc_dfs_t;

enum { BERTH_ALLOC_DFS_FOUND = 0, BERTH_ALLOC_DFS_NONE = 1, BERTH_ALLOC_DFS_ABORTED = 2 };
#define BERTH_ALLOC_DFS_HEURISTICS 3

/* Prepares the decision procedure. *status: 0 ok, 1 the problem is too large (NULL is
 * returned), -1 out of memory (NULL). */
berth_alloc_dfs_t *berth_alloc_dfs_create(const berth_alloc_prep_t *prep, int *status);
void berth_alloc_dfs_destroy(berth_alloc_dfs_t *d);

/* Is there a plan with arena <= cap? FOUND writes one to off[m]; NONE proves there is
 * none; ABORTED when node_limit nodes were visited, the deadline passed or memory ran
 * out (berth_alloc_dfs_out_of_memory). heuristic picks the static preorder: 0 ..
 * BERTH_ALLOC_DFS_HEURISTICS - 1 are the fixed ones, larger values randomly perturbed
 * variants (one per value). Failed groups are remembered across calls. */
int berth_alloc_dfs_decide(berth_alloc_dfs_t *d, uint64_t cap, int heuristic, int64_t node_limit, berth_alloc_clock_t *clock,
                           uint64_t *off);
int64_t berth_alloc_dfs_nodes(const berth_alloc_dfs_t *d); /* of the last decide */
bool berth_alloc_dfs_out_of_memory(const berth_alloc_dfs_t *d);
/* The lift rule (buffers behind the canonical front; see alloc_dfs.c) is on by default;
 * tests turn it off to compare the answers with and without it. */
void berth_alloc_dfs_use_lifts(berth_alloc_dfs_t *d, bool on);

/* ---- search and exact --------------------------------------------------------------- */

typedef struct berth_alloc_seed {
  uint64_t arena;
  uint64_t *off;   /* [m] */
  int32_t *order;  /* [m] the greedy order that produced off */
  int fit;
} berth_alloc_seed_t;

/* The quantum of the problem: the gcd of its sizes and alignments (those above 1). Every
 * offset of a pushed-down plan (each buffer at the aligned top of one below it, or at 0)
 * is a multiple of it, and so is the arena: the optimum is a multiple of the quantum, and
 * a proof that no plan fits in C proves none fits below C + 1 rounded up to it. */
uint64_t berth_alloc_quantum(const berth_alloc_prep_t *prep);

/* x rounded up to a multiple of q (q >= 1; saturates at the largest multiple). */
static inline uint64_t berth_alloc_round_up(uint64_t x, uint64_t q) {
  uint64_t r = x % q;
  if (r == 0) return x;
  return x > UINT64_MAX - (q - r) ? x - r : x + (q - r);
}

/* Capacity-targeted dives (alloc_search.c): bounded decision searches at a capacity
 * between the proven bound and the best plan (see there). */
typedef struct berth_alloc_probe {
  uint64_t quantum; /* berth_alloc_quantum: capacities are multiples of it */
  uint64_t lo;     /* proven: no plan is smaller */
  uint64_t lo_try; /* lowest capacity not given up on at this node limit */
  int64_t limit;   /* node limit of one dive */
  int heuristic;   /* preorder of the next dive */
  int descend;     /* dives left at best - 1 before halving starts */
} berth_alloc_probe_t;

void berth_alloc_probe_init(berth_alloc_probe_t *pr, const berth_alloc_prep_t *prep);
/* One dive; a better plan replaces seed. Adds the nodes to *nodes. Returns
 * BERTH_ALLOC_DFS_FOUND / NONE (pr->lo rose) / ABORTED, or -1 if out of memory. */
int berth_alloc_probe_step(berth_alloc_dfs_t *d, berth_alloc_probe_t *pr, const berth_alloc_prep_t *prep,
                           berth_alloc_seed_t *seed, uint64_t *sol, berth_alloc_clock_t *clock, int64_t *nodes);

/* Improves seed (in place) until the budget is spent. Returns the
 * work done (nodes, steps or replays), or -1 if out of memory (seed is then still a
 * valid plan, possibly improved). */
int64_t berth_alloc_search_improve(const berth_alloc_prep_t *prep, berth_alloc_greedy_t *g, berth_alloc_seed_t *seed,
                                   berth_alloc_clock_t *clock, uint64_t rng_seed);

typedef struct berth_alloc_exact_out {
  uint64_t proven_bound; /* no plan is smaller than this */
  bool optimal;
  int64_t nodes;
} berth_alloc_exact_out_t;

/* Branch and bound from the plan in seed (improved in place) until the budget is spent. Returns
 * BERTH_OK or RESOURCE_EXHAUSTED. */
berth_status_t berth_alloc_exact_improve(const berth_alloc_prep_t *prep, berth_alloc_greedy_t *g,
                                         berth_alloc_seed_t *seed, berth_alloc_clock_t *clock,
                                         berth_alloc_exact_out_t *out, berth_diag_t *diag);

#endif
