/* Exact allocation: proves the best plan optimal, or returns the best plan found and the
 * remaining gap when the budget runs out.
 *
 * After a short search for a good first plan (5% of the budget, at most a second), three
 * uses of the decision search (alloc_dfs.c: "is there a plan with arena <= C?") share
 * the budget in equal numbers of nodes:
 *   low, fixed    C = the proven lower bound, round-robin over the three fixed preorders
 *                 under a node limit that doubles when all three run out;
 *   low, random   C = the proven lower bound, randomly perturbed preorders with Luby
 *                 restart lengths (many short dives, now and then a long one): the
 *                 search is heavy-tailed, and a fresh order often finishes at once;
 *   top           the search's capacity-targeted dives between the proven bound and the
 *                 best plan.
 * A low success is an optimal plan; a low exhaustion raises the proven bound to C + 1.
 * A top success improves the plan; an exhausted top dive raises the proven bound, and
 * once it reaches the best plan, that plan is optimal. Problems too large for branch and
 * bound get the local search for the whole budget. */
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

berth_status_t berth_alloc_exact_improve(const berth_alloc_prep_t *prep, berth_alloc_greedy_t *g,
                                         berth_alloc_seed_t *seed, double deadline_ms, berth_alloc_exact_out_t *out,
                                         berth_diag_t *diag) {
  out->proven_bound = prep->lower_bound;
  out->optimal = seed->arena <= prep->lower_bound;
  out->nodes = 0;
  if (out->optimal) return BERTH_OK;
  int status;
  berth_alloc_dfs_t *d = berth_alloc_dfs_create(prep, &status);
  if (status < 0) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory preparing the exact search");

  /* A good first plan: a short local search (or, if the problem is too large for branch
   * and bound, the whole budget). */
  double now = berth_alloc_now_ms();
  double wf = getenv("EX_WARM") ? atof(getenv("EX_WARM")) : 0.05;
  double wt[3] = {getenv("EX_W0") ? atof(getenv("EX_W0")) : 1, getenv("EX_W1") ? atof(getenv("EX_W1")) : 1, getenv("EX_W2") ? atof(getenv("EX_W2")) : 1};
  double warm = status > 0 ? deadline_ms : now + (deadline_ms - now) * wf;
  if (status == 0 && warm > now + 1000) warm = now + 1000;
  int64_t it = berth_alloc_search_improve(prep, g, seed, warm, 1);
  if (it < 0) {
    berth_alloc_dfs_destroy(d);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory in the local search");
  }
  out->nodes = it;
  if (status > 0) return BERTH_OK;

  uint64_t *sol = malloc(((size_t)prep->m + 1) * sizeof *sol);
  if (!sol) {
    berth_alloc_dfs_destroy(d);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory in the exact search");
  }
  berth_status_t st = BERTH_OK;
  uint64_t proven = prep->lower_bound; /* no plan is smaller */
  bool low_open = true;
  int64_t base = prep->m > 64 ? prep->m : 64;
  int64_t det_limit = 2 * base, spent[3] = {0, 0, 0};
  int det_h = 0;
  int64_t restarts = 0;
  berth_alloc_probe_t top;
  berth_alloc_probe_init(&top, prep);
  top.descend = 0;
  while (seed->arena > proven) {
    if (berth_alloc_now_ms() > deadline_ms) break;
    if (low_open && proven >= seed->arena - 1) low_open = false; /* top asks the same */
    /* Three ways to spend nodes, kept in balance: the low probe with the three fixed
     * preorders (doubling limits), the low probe with randomly perturbed preorders
     * (Luby restarts: many short dives, now and then a long one), the top probe. */
    int way = 2;
    if (low_open) {
      way = spent[0] / wt[0] <= spent[1] / wt[1] ? 0 : 1;
      if (spent[2] / wt[2] < spent[way] / wt[way]) way = 2;
    }
    int64_t nodes = 0;
    if (way < 2) {
      int h = way == 0 ? det_h : BERTH_ALLOC_DFS_HEURISTICS + (int)(restarts % 1000000);
      int64_t limit = way == 0 ? det_limit : 2 * base * luby(restarts + 1);
      int res = berth_alloc_dfs_decide(d, proven, h, limit, deadline_ms, sol);
      nodes = berth_alloc_dfs_nodes(d);
      if (res == BERTH_ALLOC_DFS_FOUND) {
        uint64_t arena = plan_arena(prep, sol);
        if (arena < seed->arena) {
          seed->arena = arena;
          memcpy(seed->off, sol, (size_t)prep->m * sizeof *sol);
        }
      } else if (res == BERTH_ALLOC_DFS_NONE) {
        proven++;
        low_open = false;
      } else if (berth_alloc_dfs_out_of_memory(d)) {
        st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory in the exact search");
        break;
      } else if (way == 1) {
        restarts++;
      } else if (++det_h == BERTH_ALLOC_DFS_HEURISTICS) {
        det_h = 0;
        if (det_limit <= INT64_MAX / 2) det_limit *= 2;
      }
    } else {
      if (top.lo < proven) top.lo = proven;
      int res = berth_alloc_probe_step(d, &top, prep, seed, sol, deadline_ms, &nodes);
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
