/* Exact allocation: proves the best plan optimal, or returns the best plan found and the
 * remaining gap when the budget runs out.
 *
 * Three uses of the decision search (alloc_dfs.c: "is there a plan with arena <= C?")
 * share the budget, in nodes, 1 : 8 : 1, from the start (no warm-up: when the lower
 * bound is the answer, the low probes are what find it, mostly the random one; the top
 * probe's plans hardly improve with a larger share, but with short budgets search's plans
 * are better than exact's):
 *   low, fixed    C = the proven lower bound, round-robin over the three fixed preorders
 *                 under a node limit that doubles when all three run out;
 *   low, random   C = the proven lower bound, randomly perturbed preorders, each dive
 *                 limited to 4m nodes (m buffers, at least 64), every 16th to 4m times
 *                 the next Luby length: the search is heavy-tailed, and a fresh order
 *                 often finishes at once (on the minimalloc benchmarks, about one
 *                 noisy-width order in 100 to 800 reaches the lower bound, and within 1
 *                 to 4 m nodes);
 *   top           the search's capacity-targeted dives between the proven bound and the
 *                 best plan.
 * A low success is an optimal plan; a low exhaustion raises the proven bound past C. A
 * top success improves the plan; an exhausted top dive raises the proven bound, and
 * once it reaches the best plan, that plan is optimal. Bounds move in steps of the
 * quantum (alloc_search.c): every pushed-down plan's arena is a multiple of it. Problems
 * too large for branch and bound get the local search for the whole budget. */
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

/* The Luby sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...: restart lengths that waste at
 * most a logarithmic factor against the best fixed length. i >= 1. */
static int64_t luby(int64_t i) {
  for (;;) {
    int k = 1;
    while (k < 62 && ((int64_t)1 << k) - 1 < i) k++;
    if (i == ((int64_t)1 << k) - 1) return (int64_t)1 << (k - 1);
    i -= ((int64_t)1 << (k - 1)) - 1;
  }
}

static uint64_t plan_arena(const berth_alloc_prep_t *p, const uint64_t *off) {
  uint64_t a = 0;
  for (int32_t b = 0; b < p->m; b++)
    if (off[b] + p->size[b] > a) a = off[b] + p->size[b];
  return a;
}

enum { WAY_FIXED, WAY_RANDOM, WAY_TOP, WAY_COUNT };
static const int64_t k_way_weight[WAY_COUNT] = {1, 8, 1};

berth_status_t berth_alloc_exact_improve(const berth_alloc_prep_t *prep, berth_alloc_greedy_t *g,
                                         berth_alloc_seed_t *seed, berth_alloc_clock_t *clock, berth_alloc_exact_out_t *out,
                                         berth_diag_t *diag) {
  uint64_t quantum = berth_alloc_quantum(prep);
  uint64_t proven = berth_alloc_round_up(prep->lower_bound, quantum); /* no plan is smaller */
  out->proven_bound = proven;
  out->optimal = seed->arena <= proven;
  out->nodes = 0;
  if (out->optimal) return BERTH_OK;
  int status;
  berth_alloc_dfs_t *d = berth_alloc_dfs_create(prep, &status);
  if (status < 0) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory preparing the exact search");
  if (status > 0) { /* too large for branch and bound: the local search gets the budget */
    int64_t it = berth_alloc_search_improve(prep, g, seed, clock, 1);
    if (it < 0) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory in the local search");
    out->nodes = it;
    return BERTH_OK;
  }

  uint64_t *sol = malloc(((size_t)prep->m + 1) * sizeof *sol);
  if (!sol) {
    berth_alloc_dfs_destroy(d);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory in the exact search");
  }
  berth_status_t st = BERTH_OK;
  bool low_open = true;
  int64_t base = prep->m > 64 ? prep->m : 64;
  int64_t det_limit = 2 * base, spent[WAY_COUNT] = {0, 0, 0};
  int det_h = 0;
  int64_t restarts = 0;
  berth_alloc_probe_t top;
  berth_alloc_probe_init(&top, prep);
  top.descend = 0;
  while (seed->arena > proven) {
    if (berth_alloc_clock_out(clock)) break;
    if (low_open && proven + quantum >= seed->arena) low_open = false; /* top asks the same */
    /* The way with the fewest nodes for its weight goes next. */
    int way = low_open ? WAY_FIXED : WAY_TOP;
    if (low_open)
      for (int w = 1; w < WAY_COUNT; w++)
        if (spent[w] * k_way_weight[way] < spent[way] * k_way_weight[w]) way = w;
    int64_t nodes = 0;
    if (way != WAY_TOP) {
      int h = way == WAY_FIXED ? det_h : BERTH_ALLOC_DFS_HEURISTICS + (int)(restarts % 1000000);
      int64_t limit = det_limit;
      if (way == WAY_RANDOM) /* short dives, and every 16th a long one (Luby lengths) */
        limit = 4 * base * (restarts % 16 == 15 ? luby(restarts / 16 + 1) : 1);
      int res = berth_alloc_dfs_decide(d, proven, h, limit, clock, sol);
      nodes = berth_alloc_dfs_nodes(d);
      if (res == BERTH_ALLOC_DFS_FOUND) {
        uint64_t arena = plan_arena(prep, sol);
        if (arena < seed->arena) {
          seed->arena = arena;
          memcpy(seed->off, sol, (size_t)prep->m * sizeof *sol);
        }
      } else if (res == BERTH_ALLOC_DFS_NONE) {
        proven = berth_alloc_round_up(proven + 1, quantum);
        low_open = false;
      } else if (berth_alloc_dfs_out_of_memory(d)) {
        st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory in the exact search");
        break;
      } else if (way == WAY_RANDOM) {
        restarts++;
      } else if (++det_h == BERTH_ALLOC_DFS_HEURISTICS) {
        det_h = 0;
        if (det_limit <= INT64_MAX / 2) det_limit *= 2;
      }
    } else {
      if (top.lo < proven) top.lo = proven;
      int res = berth_alloc_probe_step(d, &top, prep, seed, sol, clock, &nodes);
      if (res < 0) {
        st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory in the exact search");
        break;
      }
      if (top.lo > proven) proven = top.lo;
    }
    /* Count at least one node so that a probe that returns at once still takes turns. */
    spent[way] += nodes > 0 ? nodes : 1;
    out->nodes += nodes;
  }
  if (proven > seed->arena) proven = seed->arena; /* cannot happen; keeps the report sane */
  out->proven_bound = proven;
  out->optimal = seed->arena <= proven;
  free(sol);
  berth_alloc_dfs_destroy(d);
  return st;
}
