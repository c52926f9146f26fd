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

/* One part of a problem (the whole, or a segment of its time line) with its own greedy
 * seed, kept between the greedy pass and the improvement pass. */
typedef struct part_plan {
  int32_t first, count; /* its buffers are list[first .. first + count) */
  int32_t s0, s1;       /* its slots */
  uint64_t arena;
  int fit;
  bool improved;
  const char *greedy_order;
} part_plan_t;

/* Problems of up to this many active buffers run full greedy whatever the budget (well
 * under a millisecond a run when the machine is idle): search and exact then never end
 * worse than greedy. Larger ones skip the orders that would end past the deadline. */
#define SMALL_PROBLEM 1024

/* Greedy (or naive) for one prepared part of a problem of whole_m active buffers; writes
 * the local offsets and order. */
static berth_status_t part_greedy(const berth_alloc_prep_t *sp, int32_t whole_m, const berth_alloc_options_t *opt,
                                  berth_alloc_clock_t *clock,
                                  uint64_t *off, int32_t *order, part_plan_t *pp, berth_diag_t *diag) {
  if (opt->algo == BERTH_ALLOC_NAIVE) {
    pp->arena = berth_alloc_naive_run(sp, off);
    for (int32_t i = 0; i < sp->m; i++) order[i] = i;
    pp->fit = BERTH_ALLOC_FIT_FIRST;
    pp->greedy_order = "none";
    return BERTH_OK;
  }
  berth_alloc_greedy_t *g = berth_alloc_greedy_create(sp);
  if (!g) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)sp->m);
  berth_alloc_greedy_set_clock(g, opt->algo == BERTH_ALLOC_GREEDY || whole_m <= SMALL_PROBLEM ? NULL : clock);
  pp->arena = berth_alloc_greedy_best(g, opt->fit, off, order, &pp->fit, &pp->greedy_order);
  berth_alloc_greedy_destroy(g);
  if (pp->arena == UINT64_MAX)
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)sp->m);
  return BERTH_OK;
}

/* Search or exact on one part from its greedy seed (improved in place). */
static berth_status_t part_improve(const berth_alloc_prep_t *sp, const berth_alloc_options_t *opt, berth_alloc_clock_t *clock,
                                   berth_alloc_seed_t *seed, berth_alloc_result_t *res, berth_diag_t *diag) {
  berth_alloc_greedy_t *g = berth_alloc_greedy_create(sp);
  if (!g) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)sp->m);
  berth_status_t st = BERTH_OK;
  if (opt->algo == BERTH_ALLOC_SEARCH) {
    int64_t it = berth_alloc_search_improve(sp, g, seed, clock, opt->seed);
    if (it < 0) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)sp->m);
    else res->iterations += it;
  } else {
    berth_alloc_exact_out_t eo;
    memset(&eo, 0, sizeof eo);
    st = berth_alloc_exact_improve(sp, g, seed, clock, &eo, diag);
    res->iterations += eo.nodes;
    if (!st && eo.proven_bound > res->proven_bound) res->proven_bound = eo.proven_bound;
  }
  berth_alloc_greedy_destroy(g);
  return st;
}

/* Slack on the budget before a result reports it missed (the search checks the clock
 * between steps). */
static double budget_slack_ms(int64_t budget) { return budget / 20.0 > 2.0 ? (double)budget / 20.0 : 2.0; }

/* The result's bound, time, work and budget verdict once the plan is final. */
static void finish_result(berth_alloc_result_t *res, const berth_alloc_options_t *opt, const berth_alloc_clock_t *clock,
                          int64_t budget, double t0) {
  if (res->proven_bound > res->arena) res->proven_bound = res->arena; /* cannot happen; keeps the report sane */
  res->optimal = res->arena == res->proven_bound;
  res->time_ms = berth_alloc_now_ms() - t0;
  res->work = clock->work;
  res->budget_exceeded = (opt->algo == BERTH_ALLOC_SEARCH || opt->algo == BERTH_ALLOC_EXACT) && clock->work_limit <= 0 &&
                         res->time_ms > (double)budget + budget_slack_ms(budget);
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
  berth_alloc_clock_t clock = {t0 + (double)budget, opt.budget_work > 0 ? opt.budget_work : 0, 0};

  berth_alloc_prep_t prep;
  berth_status_t st = berth_alloc_prep_init(&prep, p, diag);
  if (st) return st;
  size_t mm = (size_t)prep.m + 1;
  berth_alloc_seed_t seed;
  memset(&seed, 0, sizeof seed);
  seed.off = malloc(mm * sizeof *seed.off);
  seed.order = malloc(mm * sizeof *seed.order);
  int32_t *part = malloc(mm * sizeof *part);
  int32_t *seg_first = malloc(((size_t)prep.n_slots + 2) * sizeof *seg_first);
  int32_t *list = NULL; /* only with several segments */
  uint64_t *loff = NULL;
  part_plan_t *parts = NULL;
  berth_alloc_result_t res;
  memset(&res, 0, sizeof res);
  res.lower_bound = prep.lower_bound;
  res.proven_bound = prep.lower_bound;
  res.greedy_order = "none";
  int32_t n_seg = 0, n_parts = 0;
  if (seed.off && seed.order && part && seg_first && prep.m > 0 && opt.algo == BERTH_ALLOC_NAIVE) {
    /* naive is the no-reuse baseline: one part, no reuse across segments either */
    for (int32_t i = 0; i < prep.m; i++) part[i] = 0;
    seg_first[0] = 0;
    seg_first[1] = prep.n_slots;
    n_seg = 1;
  } else if (seed.off && seed.order && part && seg_first) {
    n_seg = prep.m > 0 ? berth_alloc_prep_split(&prep, part, seg_first) : 0;
  }
  if (n_seg >= 0) parts = malloc(((size_t)n_seg + 1) * sizeof *parts);
  if (n_seg > 1) {
    list = malloc(mm * sizeof *list);
    loff = malloc(mm * sizeof *loff);
  }
  if (!seed.off || !seed.order || !part || !seg_first || n_seg < 0 || !parts || (n_seg > 1 && (!list || !loff))) {
    st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)prep.n);
    goto done;
  }
  /* The buffers of each segment, in index order (a counting sort). */
  {
    int32_t *count = seg_first; /* reuse: segment starts are copied into parts first */
    for (int32_t k = 0; k < n_seg; k++) parts[k] = (part_plan_t){0, 0, seg_first[k], seg_first[k + 1], 0, 0, false, "none"};
    for (int32_t i = 0; i < prep.m; i++) parts[part[i]].count++;
    int32_t at = 0;
    for (int32_t k = 0; k < n_seg; k++) {
      parts[k].first = at;
      at += parts[k].count;
      count[k] = parts[k].first;
    }
    if (list)
      for (int32_t i = 0; i < prep.m; i++) list[count[part[i]]++] = i;
    int32_t kept = 0;
    for (int32_t k = 0; k < n_seg; k++)
      if (parts[k].count > 0) parts[kept++] = parts[k];
    n_parts = kept;
    free(part); /* 4 bytes a buffer and a slot, not needed while planning */
    free(seg_first);
    part = seg_first = NULL;
  }

  /* Greedy (or naive) on every part. A part only has to reach the whole problem's lower
   * bound, so it gets that as its target; the seeds' orders are kept in seed.order (local
   * indices, each part's slice). */
  for (int32_t k = 0; k < n_parts && !st; k++) {
    part_plan_t *pp = &parts[k];
    if (n_parts == 1) {
      st = part_greedy(&prep, prep.m, &opt, &clock, seed.off, seed.order, pp, diag);
      continue;
    }
    berth_alloc_prep_t sp;
    if (!berth_alloc_prep_sub(&sp, &prep, list + pp->first, pp->count, pp->s0, pp->s1)) {
      st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)prep.n);
      break;
    }
    if (sp.lower_bound < prep.lower_bound) sp.lower_bound = prep.lower_bound;
    st = part_greedy(&sp, prep.m, &opt, &clock, loff, seed.order + pp->first, pp, diag);
    for (int32_t t = 0; !st && t < pp->count; t++) seed.off[list[pp->first + t]] = loff[t];
    berth_alloc_prep_deinit(&sp);
  }
  if (st) goto done;
  seed.arena = 0;
  for (int32_t k = 0; k < n_parts; k++)
    if (parts[k].arena > seed.arena) {
      seed.arena = parts[k].arena;
      res.greedy_order = parts[k].greedy_order;
    }
  if (opt.algo != BERTH_ALLOC_NAIVE) res.greedy_arena = seed.arena;

  /* Search and exact: the parts above the lower bound, largest first, each with all the
   * time left (the largest sets the arena; the next ones only matter once it is below
   * them). */
  if (opt.algo == BERTH_ALLOC_SEARCH || opt.algo == BERTH_ALLOC_EXACT) {
    /* Search: the part that sets the arena, until it is below the next largest (a target
     * for the search only, not a bound), then that one, while time lasts. Exact: each
     * part above the bound once, largest first, with the whole bound as its own (exact's
     * proofs rest on it). */
    for (int64_t round = 0; round < 4 * (int64_t)n_parts + 16; round++) {
      int32_t worst = -1;
      uint64_t others = 0, done_max = 0;
      for (int32_t k = 0; k < n_parts; k++) {
        if (parts[k].improved && parts[k].arena > done_max) done_max = parts[k].arena;
        if (parts[k].improved || parts[k].arena <= prep.lower_bound) continue;
        if (worst < 0 || parts[k].arena > parts[worst].arena) worst = k;
      }
      if (worst < 0 || parts[worst].arena <= done_max) break;
      for (int32_t k = 0; k < n_parts; k++)
        if (k != worst && parts[k].arena > others) others = parts[k].arena;
      part_plan_t *pp = &parts[worst];
      bool search = opt.algo == BERTH_ALLOC_SEARCH;
      if (!search) pp->improved = true;
      if (n_parts == 1) {
        seed.fit = pp->fit;
        st = part_improve(&prep, &opt, &clock, &seed, &res, diag);
        break;
      }
      berth_alloc_prep_t sp;
      if (!berth_alloc_prep_sub(&sp, &prep, list + pp->first, pp->count, pp->s0, pp->s1)) {
        st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)prep.n);
        break;
      }
      /* one quantum below the others: search rounds its target up to the quantum */
      uint64_t q = berth_alloc_quantum(&sp);
      uint64_t target = search && others > q ? others - q : prep.lower_bound;
      if (target < prep.lower_bound) target = prep.lower_bound;
      if (sp.lower_bound < target) sp.lower_bound = target;
      berth_alloc_seed_t ps = {pp->arena, loff, seed.order + pp->first, pp->fit};
      for (int32_t t = 0; t < pp->count; t++) loff[t] = seed.off[list[pp->first + t]];
      st = part_improve(&sp, &opt, &clock, &ps, &res, diag);
      if (!st && ps.arena < pp->arena) {
        pp->arena = ps.arena;
        for (int32_t t = 0; t < pp->count; t++) seed.off[list[pp->first + t]] = loff[t];
      }
      berth_alloc_prep_deinit(&sp);
      if (st) break;
      /* out of time, or this part cannot go below the others (search proved it) */
      if (search && (pp->arena > target || berth_alloc_clock_out(&clock))) break;
    }
    if (st) goto done;
    if (n_parts > 1) {
      seed.arena = 0;
      for (int32_t k = 0; k < n_parts; k++)
        if (parts[k].arena > seed.arena) seed.arena = parts[k].arena;
    }
  }
  res.arena = seed.arena;
  res.segments = n_parts;
  if (p->n > 0) berth_alloc_prep_scatter(&prep, seed.off, offsets);
  finish_result(&res, &opt, &clock, budget, t0);
  if (r) *r = res;

done:
  free(seed.off);
  free(seed.order);
  free(part);
  free(seg_first);
  free(list);
  free(loff);
  free(parts);
  berth_alloc_prep_deinit(&prep);
  return st;
}
