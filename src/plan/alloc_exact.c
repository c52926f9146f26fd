/* Exact allocation: proves the best plan optimal, or returns the best plan found and the
 * remaining gap when the budget runs out.
 *
 * After a short local search for a good first plan, two decision probes share the
 * budget (alloc_dfs.c answers "is there a plan with arena <= C?"):
 *   low  C = the proven lower bound: success is an optimal plan;
 *   top  C = best arena - 1: success improves the plan, exhaustion proves it optimal.
 * Each probe round-robins the three preorders under its own node limit, which doubles
 * when all three run out; low gets twice the nodes of top, because on most real
 * instances the optimum equals the lower bound. An exhausted low probe raises the proven
 * bound. */
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

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
  double warm = status > 0 ? deadline_ms : now + (deadline_ms - now) * 0.05;
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
  int64_t base = 2 * (int64_t)(prep->m > 64 ? prep->m : 64);
  int64_t limit[2] = {base, base}, spent[2] = {0, 0};
  bool timed_out = false;
  while (seed->arena > proven && !timed_out) {
    int probe = low_open && spent[0] <= 2 * spent[1] ? 0 : 1;
    uint64_t cap = probe == 0 ? proven : seed->arena - 1;
    if (probe == 0 && cap >= seed->arena - 1) {
      low_open = false; /* the top probe asks the same question */
      continue;
    }
    bool settled = false;
    for (int h = 0; h < BERTH_ALLOC_DFS_HEURISTICS && !settled; h++) {
      int res = berth_alloc_dfs_decide(d, cap, h, limit[probe], deadline_ms, sol);
      int64_t nodes = berth_alloc_dfs_nodes(d);
      spent[probe] += nodes;
      out->nodes += nodes;
      if (res == BERTH_ALLOC_DFS_FOUND) {
        uint64_t arena = plan_arena(prep, sol);
        if (arena < seed->arena) {
          seed->arena = arena;
          memcpy(seed->off, sol, (size_t)prep->m * sizeof *sol);
        }
        settled = true;
      } else if (res == BERTH_ALLOC_DFS_NONE) {
        if (cap + 1 > proven) proven = cap + 1;
        if (probe == 0) low_open = false;
        settled = true;
      } else if (berth_alloc_dfs_out_of_memory(d)) {
        st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory in the exact search");
        timed_out = true;
        break;
      } else if (berth_alloc_now_ms() > deadline_ms) {
        timed_out = true;
        break;
      }
    }
    if (!settled && limit[probe] <= INT64_MAX / 2) limit[probe] *= 2;
  }
  if (proven > seed->arena) proven = seed->arena; /* cannot happen; keeps the report sane */
  out->proven_bound = proven;
  out->optimal = seed->arena <= proven;
  free(sol);
  berth_alloc_dfs_destroy(d);
  return st;
}
