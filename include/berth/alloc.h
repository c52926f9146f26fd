/* berth's allocation algorithms: the packing core of the memory planner, as a library of
 * its own: pack buffers with known sizes and lifetimes into one arena (and read such
 * problems from CSV files, the minimalloc benchmark format).
 *
 *   berth_interval_t live_a[] = {{0, 3}}, live_b[] = {{2, 9}};
 *   berth_alloc_buffer_t bufs[] = {{64, 16, 1, live_a}, {32, 0, 1, live_b}};
 *   berth_alloc_problem_t p = {2, bufs, NULL};
 *   berth_alloc_options_t o = berth_alloc_options_default();   // greedy
 *   uint64_t offsets[2];
 *   berth_alloc_result_t r;
 *   berth_status_t st = berth_alloc_solve(&p, &o, offsets, &r, &diag);
 *   if (!st) st = berth_alloc_check(&p, offsets, r.arena, &diag);   // independent check
 *   // r.arena == 96: both are live at time 2, so b sits above a.
 *
 * The problem is abstract: n buffers, each with a size, an alignment and the set of
 * half-open time intervals on which it is live (one interval for a plain value; several
 * for a storage shared by coalesced values or by values of mutually exclusive branches,
 * which the planner places on disjoint stretches of one timeline). Two buffers conflict
 * iff an interval of one overlaps an interval of the other and both sizes are > 0; then
 * their byte ranges [offset, offset + size) must be disjoint. The arena is
 * max(offset + size) (0 when every buffer is empty). A zero-size buffer conflicts with
 * nothing and is given offset 0.
 *
 * Algorithms (all return a valid plan; all are checked by the tests with
 * berth_alloc_check, which shares no code with them):
 *   naive   no reuse: buffers stacked one after another (the baseline).
 *   greedy  places buffers in several orders with gap filling (first fit and best
 *           fit), keeping the best: a peak sweep (the buffers live at the busiest
 *           moment stacked first, then the others outwards in time), size, lifetime
 *           length, area, conflicts; an interval structure keeps each order near
 *           O(n log^2 n).
 *   search  improves the best greedy plan within budget_ms: bounded dives of the exact
 *           search aimed at capacities between the lower bound and the best plan (the
 *           dive has to re-place exactly the buffers that set the peak), or, on problems
 *           too large for that, ruin-and-recreate of the buffers live where the plan
 *           sticks out, or replays of the greedy order with those buffers moved earlier.
 *   exact   branch and bound over canonical placements (each buffer at the top of what
 *           lies below it, in offset order) with per-section bounds, dominance, symmetry
 *           breaking and dynamic splitting into independent groups, with restarts; proves
 *           optimality (r.optimal) or returns the best plan found and the remaining gap
 *           (arena - proven_bound) when the budget runs out.
 *
 * Every algorithm first splits the time line at each moment no buffer is live across (a
 * buffer counts as live between its intervals: it keeps one offset) and plans each part
 * alone, all from offset 0; the arena is the largest part's. Each part only has to reach
 * the whole problem's lower bound; search and exact spend their budget on the parts above
 * it, largest first.
 *
 * Budgets (search and exact): the budget covers the whole run. On problems of more than
 * 1,024 buffers greedy, which seeds them, stops trying further orders when the next run
 * would end past the deadline (it always completes one; their plan can then be worse than
 * greedy's own); smaller problems run full greedy, so search and exact never end worse
 * than greedy there. The result's budget_exceeded says when the budget was missed.
 *
 * This is compiler-side code (libberth.so, not libberth_runtime.a): it uses the heap, and
 * never prints; every function is thread-safe on distinct problems. */
#ifndef BERTH_ALLOC_H
#define BERTH_ALLOC_H

#include "berth/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A half-open time interval [lower, upper); lower < upper. */
typedef struct berth_interval {
  int64_t lower, upper;
} berth_interval_t;

typedef struct berth_alloc_buffer {
  uint64_t size;       /* bytes; 0 allowed (never conflicts) */
  uint64_t align;      /* a power of two; 0 or 1 means none */
  int32_t n_intervals; /* >= 0; a buffer with no interval conflicts with nothing */
  const berth_interval_t *intervals; /* sorted by lower, pairwise disjoint */
} berth_alloc_buffer_t;

typedef struct berth_alloc_problem {
  int32_t n;
  const berth_alloc_buffer_t *buffers;
  /* Optional (may be NULL): n names, used only in messages ("buffer 'x'"). */
  const char *const *names;
} berth_alloc_problem_t;

/* Caps on what a problem may hold (a problem can come from an untrusted file). */
#define BERTH_ALLOC_MAX_BUFFERS (1 << 24)
#define BERTH_ALLOC_MAX_INTERVALS (1 << 26) /* in total over all buffers */

typedef enum berth_alloc_algo {
  BERTH_ALLOC_NAIVE = 0,
  BERTH_ALLOC_GREEDY,
  BERTH_ALLOC_SEARCH,
  BERTH_ALLOC_EXACT,
} berth_alloc_algo_t;

typedef enum berth_alloc_fit {
  BERTH_ALLOC_FIT_AUTO = 0,  /* greedy tries both and keeps the better */
  BERTH_ALLOC_FIT_FIRST = 1, /* lowest offset that fits */
  BERTH_ALLOC_FIT_BEST = 2,  /* the smallest gap that fits */
} berth_alloc_fit_t;

typedef struct berth_alloc_options {
  berth_alloc_algo_t algo;
  /* Time budget for search and exact (wall clock, the whole run, including the greedy
   * they start from); <= 0 picks the default (search 100 ms, exact 10,000 ms). Naive and
   * greedy ignore it and are deterministic; search and exact stop on time, so their plans can
   * differ from run to run (each is valid; exact's "optimal" is always a proof). */
  int64_t budget_ms;
  /* > 0: the budget in deterministic work units instead of time: a branch-and-bound node
   * counts its unplaced buffers, a local-search step and a greedy run the buffers they
   * visit (about 10^3 to 10^4 units a millisecond on a 2020s x86 core). The same problem and options then give the same
   * plan on any machine under any load; budget_ms is ignored. */
  int64_t budget_work;
  uint64_t seed; /* search's random choices; the same seed gives the same moves */
  int fit;       /* a berth_alloc_fit_t: restricts greedy (and the seeds of search) */
} berth_alloc_options_t;

#define BERTH_ALLOC_DEFAULT_SEARCH_MS 100
#define BERTH_ALLOC_DEFAULT_EXACT_MS 10000

typedef struct berth_alloc_result {
  uint64_t arena;       /* max(offset + size) of the returned plan */
  uint64_t lower_bound; /* berth_alloc_lower_bound of the problem */
  uint64_t proven_bound; /* the best lower bound proven (>= lower_bound; exact may raise
                            it by proving smaller arenas infeasible); arena - proven_bound
                            is the remaining gap */
  bool optimal;         /* arena is proven minimal (arena == proven_bound) */
  double time_ms;       /* wall time of the whole solve */
  /* Which greedy order and fit produced the plan (or seeded search): a static string
   * such as "size/start, first fit". */
  const char *greedy_order;
  uint64_t greedy_arena; /* the best greedy arena (0 for naive) */
  int64_t iterations;    /* search and exact: branch-and-bound nodes (or local-search
                            steps, or greedy replays) spent improving the plan */
  int32_t segments;      /* independent parts of the time line, planned apart (below) */
  int64_t work;          /* work units spent (counted with a work budget; else 0) */
  /* Search and exact: the run took longer than the budget (by more than 5%, at least
   * 2 ms). Preparing the problem and one greedy run are never cut short, so on very large
   * problems (hundreds of thousands of buffers) a small budget cannot be met; the plan is
   * still valid, and this says so. */
  bool budget_exceeded;
} berth_alloc_result_t;

/* Greedy, fit auto, default budget, seed 1. */
berth_alloc_options_t berth_alloc_options_default(void);

/* Plans p with algorithm o->algo (o may be NULL for the defaults) and writes one offset
 * per buffer into offsets (n entries, caller-owned) and a summary into r (may be NULL).
 * Outputs are written only on success. Every algorithm returns a plan that satisfies
 * berth_alloc_check. Errors: INVALID_ARGUMENT (a malformed problem: NULL pointers, an
 * alignment that is not a power of two, intervals that are empty, unsorted or
 * overlapping), OUT_OF_RANGE (too many buffers or intervals, or sizes whose sum does not
 * fit in 64 bits), RESOURCE_EXHAUSTED (out of memory). */
berth_status_t berth_alloc_solve(const berth_alloc_problem_t *p, const berth_alloc_options_t *o,
                                 uint64_t *offsets, berth_alloc_result_t *r, berth_diag_t *diag);

/* The largest total size live at one time, with the padding that alignment forces: the
 * live sizes rounded up to the smallest alignment in the problem, minus the largest such
 * padding among them (the topmost buffer needs none). No plan's arena is smaller. The
 * problem must be valid (berth_alloc_validate); 0 if empty. */
uint64_t berth_alloc_lower_bound(const berth_alloc_problem_t *p);

/* Checks that p is well formed (see berth_alloc_solve's errors). */
berth_status_t berth_alloc_validate(const berth_alloc_problem_t *p, berth_diag_t *diag);

/* Independent validation of a plan: every offset is a multiple of its buffer's alignment,
 * every buffer lies within [0, arena), and no two conflicting buffers share a byte.
 * Returns VERIFY_FAILED naming the buffer (or the two buffers, the bytes and the time)
 * at fault, INVALID_ARGUMENT for a malformed problem, RESOURCE_EXHAUSTED if out of
 * memory. Runs in O(N log N) for N intervals and shares no code with the algorithms. */
berth_status_t berth_alloc_check(const berth_alloc_problem_t *p, const uint64_t *offsets, uint64_t arena,
                                 berth_diag_t *diag);

/* "naive", "greedy", "search", "exact". */
const char *berth_alloc_algo_name(berth_alloc_algo_t algo);
bool berth_alloc_algo_from_name(const char *name, berth_alloc_algo_t *out);

/* ---- allocation problems from CSV files (the minimalloc benchmark format) ----------------
 *
 *   berth_alloc_csv_t *csv;
 *   if (berth_alloc_csv_read("A.1048576.csv", &csv, &diag) == BERTH_OK) {
 *     const berth_alloc_problem_t *p = berth_alloc_csv_problem(csv);
 *     ... berth_alloc_solve(p, ...) ...
 *     berth_alloc_csv_destroy(csv);
 *   }
 *
 * The first non-blank line is a header naming the columns, in any order:
 *   id                  any string (may be quoted "like, this"; "" is a quote); unique
 *   lower, upper        half-open lifetime [lower, upper), lower < upper
 *   or start, end       inclusive lifetime [start, end], start <= end
 *   size                bytes, >= 0
 *   alignment           optional; a power of two, or 0 / 1 for none ("align" also works)
 *   offset              optional and ignored (so a plan written by --out reads back)
 * Each further non-blank line is one buffer with exactly one field per column. Errors
 * name the file, the line and what was wrong (CORRUPT_DATA), e.g.
 * "A.csv:12: size '-3' is not a non-negative integer". */

typedef struct berth_alloc_csv berth_alloc_csv_t;

/* Files larger than this are refused (OUT_OF_RANGE). */
#define BERTH_ALLOC_CSV_MAX_BYTES ((size_t)1 << 30)

/* Parses len bytes of CSV text; `name` prefixes messages (may be NULL). On success *out
 * owns everything the problem points to. Errors: CORRUPT_DATA (a bad header or row),
 * OUT_OF_RANGE (too many rows, sizes adding up past 2^63), RESOURCE_EXHAUSTED. */
berth_status_t berth_alloc_csv_parse(const char *text, size_t len, const char *name, berth_alloc_csv_t **out,
                                     berth_diag_t *diag);

/* Reads and parses a file. Errors as berth_alloc_csv_parse, plus INVALID_ARGUMENT when
 * the file cannot be read. */
berth_status_t berth_alloc_csv_read(const char *path, berth_alloc_csv_t **out, berth_diag_t *diag);

void berth_alloc_csv_destroy(berth_alloc_csv_t *csv);

/* The problem (names are the ids); valid until destroy. NULL for a NULL csv. */
const berth_alloc_problem_t *berth_alloc_csv_problem(const berth_alloc_csv_t *csv);

/* True if the file had an alignment column (false for a NULL csv). */
bool berth_alloc_csv_has_alignment(const berth_alloc_csv_t *csv);

#ifdef __cplusplus
}
#endif
#endif
