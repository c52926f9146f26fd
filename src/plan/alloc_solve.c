/* berth_alloc_solve: validates, prepares, runs the chosen algorithm and reports. */
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const k_algo_names[] = {"naive", "greedy", "search", "exact"};

const char *berth_alloc_algo_name(berth_alloc_algo_t algo) {
  if ((unsigned)algo < sizeof k_algo_names / sizeof k_algo_names[0]) return k_algo_names[algo];
  return "?";
}

bool berth_alloc_algo_from_name(const char *name, berth_alloc_algo_t *out) {
  if (!name) return false;
  for (unsigned i = 0; i < sizeof k_algo_names / sizeof k_algo_names[0]; i++)
    if (strcmp(name, k_algo_names[i]) == 0) {
      *out = (berth_alloc_algo_t)i;
      return true;
    }
  return false;
}

berth_alloc_options_t berth_alloc_options_default(void) {
  berth_alloc_options_t o;
  memset(&o, 0, sizeof o);
  o.algo = BERTH_ALLOC_GREEDY;
  o.budget_ms = 0;
  o.seed = 1;
  o.fit = BERTH_ALLOC_FIT_AUTO;
  return o;
}

berth_status_t berth_alloc_solve(const berth_alloc_problem_t *p, const berth_alloc_options_t *o, uint64_t *offsets,
                                 berth_alloc_result_t *r, berth_diag_t *diag) {
  double t0 = berth_alloc_now_ms();
  berth_alloc_options_t opt = o ? *o : berth_alloc_options_default();
  if ((unsigned)opt.algo > (unsigned)BERTH_ALLOC_EXACT)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unknown allocation algorithm %d", (int)opt.algo);
  if (opt.fit < BERTH_ALLOC_FIT_AUTO || opt.fit > BERTH_ALLOC_FIT_BEST)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unknown fit %d; expected 0 (auto), 1 (first) or 2 (best)",
                      opt.fit);
  if (p && p->n > 0 && !offsets)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no offset array for %d buffers", (int)p->n);
  int64_t budget = opt.budget_ms;
  if (budget <= 0)
    budget = opt.algo == BERTH_ALLOC_EXACT ? BERTH_ALLOC_DEFAULT_EXACT_MS : BERTH_ALLOC_DEFAULT_SEARCH_MS;
  double deadline = t0 + (double)budget;

  berth_alloc_prep_t prep;
  berth_status_t st = berth_alloc_prep_init(&prep, p, diag);
  if (st) return st;
  size_t mm = (size_t)prep.m + 1;
  berth_alloc_seed_t seed;
  memset(&seed, 0, sizeof seed);
  seed.off = malloc(mm * sizeof *seed.off);
  seed.order = malloc(mm * sizeof *seed.order);
  berth_alloc_greedy_t *g = NULL;
  berth_alloc_result_t res;
  memset(&res, 0, sizeof res);
  res.lower_bound = prep.lower_bound;
  res.proven_bound = prep.lower_bound;
  res.greedy_order = "none";
  if (!seed.off || !seed.order) {
    st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)prep.n);
    goto done;
  }

  if (opt.algo == BERTH_ALLOC_NAIVE) {
    seed.arena = berth_alloc_naive_run(&prep, seed.off);
  } else {
    g = berth_alloc_greedy_create(&prep);
    if (!g) {
      st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)prep.n);
      goto done;
    }
    seed.arena = berth_alloc_greedy_best(g, opt.fit, seed.off, seed.order, &seed.fit, &res.greedy_order);
    if (seed.arena == UINT64_MAX) {
      st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)prep.n);
      goto done;
    }
    res.greedy_arena = seed.arena;
    if (opt.algo == BERTH_ALLOC_SEARCH && seed.arena > prep.lower_bound) {
      int64_t it = berth_alloc_search_improve(&prep, g, &seed, deadline, opt.seed);
      if (it < 0) {
        st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)prep.n);
        goto done;
      }
      res.iterations = it;
    } else if (opt.algo == BERTH_ALLOC_EXACT && seed.arena > prep.lower_bound) {
      berth_alloc_exact_out_t eo;
      memset(&eo, 0, sizeof eo);
      st = berth_alloc_exact_improve(&prep, g, &seed, deadline, &eo, diag);
      if (st) goto done;
      res.iterations = eo.nodes;
      if (eo.proven_bound > res.proven_bound) res.proven_bound = eo.proven_bound;
    }
  }
  res.arena = seed.arena;
  res.optimal = res.arena == res.proven_bound;
  if (p->n > 0) berth_alloc_prep_scatter(&prep, seed.off, offsets);
  res.time_ms = berth_alloc_now_ms() - t0;
  if (r) *r = res;

done:
  berth_alloc_greedy_destroy(g);
  free(seed.off);
  free(seed.order);
  berth_alloc_prep_deinit(&prep);
  return st;
}
