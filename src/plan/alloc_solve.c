/* berth_alloc_solve: validates, prepares, runs the chosen algorithm and reports. */
#include "plan/alloc_internal.h"
#include "base/try.h"

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

/* The state of one solve: the prepared problem, its parts and the seed they improve. */
typedef struct solve_run {
  const berth_alloc_options_t *opt;
  berth_alloc_clock_t *clock;
  berth_alloc_prep_t *prep;
  berth_alloc_seed_t seed;
  int32_t *list; /* the buffers of each part, part by part (only with several segments) */
  uint64_t *loff;
  part_plan_t *parts;
  int32_t n_parts;
  berth_alloc_result_t res;
  berth_diag_t *diag;
} solve_run_t;

static berth_status_t solve_oom(const solve_run_t *s) {
  return berth_fail(s->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory planning %d buffers", (int)s->prep->n);
}

/* The options, checked. */
static berth_status_t solve_check_options(const berth_alloc_problem_t *p, const berth_alloc_options_t *opt,
                                          const uint64_t *offsets, berth_diag_t *diag) {
  if ((unsigned)opt->algo > (unsigned)BERTH_ALLOC_EXACT)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unknown allocation algorithm %d", (int)opt->algo);
  if (opt->fit < BERTH_ALLOC_FIT_AUTO || opt->fit > BERTH_ALLOC_FIT_BEST)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unknown fit %d; expected 0 (auto), 1 (first) or 2 (best)",
                      opt->fit);
  if (p && p->n > 0 && !offsets)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no offset array for %d buffers", (int)p->n);
  return BERTH_OK;
}

/* The parts: the problem's time line split into independent segments (one for naive, the
 * no-reuse baseline), each with the buffers it holds (s->list, a counting sort). */
static berth_status_t solve_split(solve_run_t *s) {
  const berth_alloc_prep_t *prep = s->prep;
  size_t mm = (size_t)prep->m + 1;
  int32_t *part = malloc(mm * sizeof *part);
  int32_t *seg_first = malloc(((size_t)prep->n_slots + 2) * sizeof *seg_first);
  int32_t n_seg = 0;
  if (s->seed.off && s->seed.order && part && seg_first && prep->m > 0 && s->opt->algo == BERTH_ALLOC_NAIVE) {
    /* naive is the no-reuse baseline: one part, no reuse across segments either */
    for (int32_t i = 0; i < prep->m; i++) part[i] = 0;
    seg_first[0] = 0;
    seg_first[1] = prep->n_slots;
    n_seg = 1;
  } else if (s->seed.off && s->seed.order && part && seg_first) {
    n_seg = prep->m > 0 ? berth_alloc_prep_split(prep, part, seg_first) : 0;
  }
  if (n_seg >= 0) s->parts = malloc(((size_t)n_seg + 1) * sizeof *s->parts);
  if (n_seg > 1) {
    s->list = malloc(mm * sizeof *s->list);
    s->loff = malloc(mm * sizeof *s->loff);
  }
  if (!s->seed.off || !s->seed.order || !part || !seg_first || n_seg < 0 || !s->parts ||
      (n_seg > 1 && (!s->list || !s->loff))) {
    free(part);
    free(seg_first);
    return solve_oom(s);
  }
  /* The buffers of each segment, in index order (a counting sort). */
  part_plan_t *parts = s->parts;
  int32_t *count = seg_first; /* reuse: segment starts are copied into parts first */
  for (int32_t k = 0; k < n_seg; k++) parts[k] = (part_plan_t){0, 0, seg_first[k], seg_first[k + 1], 0, 0, false, "none"};
  for (int32_t i = 0; i < prep->m; i++) parts[part[i]].count++;
  int32_t at = 0;
  for (int32_t k = 0; k < n_seg; k++) {
    parts[k].first = at;
    at += parts[k].count;
    count[k] = parts[k].first;
  }
  if (s->list)
    for (int32_t i = 0; i < prep->m; i++) s->list[count[part[i]]++] = i;
  int32_t kept = 0;
  for (int32_t k = 0; k < n_seg; k++)
    if (parts[k].count > 0) parts[kept++] = parts[k];
  s->n_parts = kept;
  free(part); /* 4 bytes a buffer and a slot, not needed while planning */
  free(seg_first);
  return BERTH_OK;
}

/* Greedy (or naive) on every part. A part only has to reach the whole problem's lower
 * bound, so it gets that as its target; the seeds' orders are kept in seed.order (local
 * indices, each part's slice). */
static berth_status_t solve_greedy(solve_run_t *s) {
  const berth_alloc_prep_t *prep = s->prep;
  berth_status_t st = BERTH_OK;
  for (int32_t k = 0; k < s->n_parts && !st; k++) {
    part_plan_t *pp = &s->parts[k];
    if (s->n_parts == 1) {
      st = part_greedy(prep, prep->m, s->opt, s->clock, s->seed.off, s->seed.order, pp, s->diag);
      continue;
    }
    berth_alloc_prep_t sp;
    if (!berth_alloc_prep_sub(&sp, prep, s->list + pp->first, pp->count, pp->s0, pp->s1)) return solve_oom(s);
    if (sp.lower_bound < prep->lower_bound) sp.lower_bound = prep->lower_bound;
    st = part_greedy(&sp, prep->m, s->opt, s->clock, s->loff, s->seed.order + pp->first, pp, s->diag);
    for (int32_t t = 0; !st && t < pp->count; t++) s->seed.off[s->list[pp->first + t]] = s->loff[t];
    berth_alloc_prep_deinit(&sp);
  }
  if (st) return st;
  s->seed.arena = 0;
  for (int32_t k = 0; k < s->n_parts; k++)
    if (s->parts[k].arena > s->seed.arena) {
      s->seed.arena = s->parts[k].arena;
      s->res.greedy_order = s->parts[k].greedy_order;
    }
  if (s->opt->algo != BERTH_ALLOC_NAIVE) s->res.greedy_arena = s->seed.arena;
  return BERTH_OK;
}

/* The part that sets the arena among those not improved yet and above the lower bound, or
 * -1 when there is none or an improved one is as large; *others: the largest of the rest. */
static int32_t solve_worst_part(const solve_run_t *s, uint64_t *others) {
  int32_t worst = -1;
  uint64_t done_max = 0;
  *others = 0;
  for (int32_t k = 0; k < s->n_parts; k++) {
    const part_plan_t *pk = &s->parts[k];
    if (pk->improved && pk->arena > done_max) done_max = pk->arena;
    if (pk->improved || pk->arena <= s->prep->lower_bound) continue;
    if (worst < 0 || pk->arena > s->parts[worst].arena) worst = k;
  }
  if (worst < 0 || s->parts[worst].arena <= done_max) return -1;
  for (int32_t k = 0; k < s->n_parts; k++)
    if (k != worst && s->parts[k].arena > *others) *others = s->parts[k].arena;
  return worst;
}

/* Search or exact on part pp of several, aiming one quantum below the others (search) or at
 * the lower bound (exact). *stop: the part cannot go below the others, or time is out. */
static berth_status_t solve_improve_part(solve_run_t *s, part_plan_t *pp, uint64_t others, bool *stop) {
  const berth_alloc_prep_t *prep = s->prep;
  bool search = s->opt->algo == BERTH_ALLOC_SEARCH;
  berth_alloc_prep_t sp;
  if (!berth_alloc_prep_sub(&sp, prep, s->list + pp->first, pp->count, pp->s0, pp->s1)) return solve_oom(s);
  /* one quantum below the others: search rounds its target up to the quantum */
  uint64_t q = berth_alloc_quantum(&sp);
  uint64_t target = search && others > q ? others - q : prep->lower_bound;
  if (target < prep->lower_bound) target = prep->lower_bound;
  if (sp.lower_bound < target) sp.lower_bound = target;
  berth_alloc_seed_t ps = {pp->arena, s->loff, s->seed.order + pp->first, pp->fit};
  for (int32_t t = 0; t < pp->count; t++) s->loff[t] = s->seed.off[s->list[pp->first + t]];
  berth_status_t st = part_improve(&sp, s->opt, s->clock, &ps, &s->res, s->diag);
  if (!st && ps.arena < pp->arena) {
    pp->arena = ps.arena;
    for (int32_t t = 0; t < pp->count; t++) s->seed.off[s->list[pp->first + t]] = s->loff[t];
  }
  berth_alloc_prep_deinit(&sp);
  /* out of time, or this part cannot go below the others (search proved it) */
  *stop = search && (pp->arena > target || berth_alloc_clock_out(s->clock));
  return st;
}

/* Search and exact: the parts above the lower bound, largest first, each with all the time
 * left (the largest sets the arena; the next ones only matter once it is below them).
 * Search: the part that sets the arena, until it is below the next largest (a target for the
 * search only, not a bound), then that one, while time lasts. Exact: each part above the
 * bound once, largest first, with the whole bound as its own (exact's proofs rest on it). */
static berth_status_t solve_improve(solve_run_t *s) {
  berth_status_t st = BERTH_OK;
  for (int64_t round = 0; round < 4 * (int64_t)s->n_parts + 16; round++) {
    uint64_t others;
    int32_t worst = solve_worst_part(s, &others);
    if (worst < 0) break;
    part_plan_t *pp = &s->parts[worst];
    if (s->opt->algo != BERTH_ALLOC_SEARCH) pp->improved = true;
    if (s->n_parts == 1) {
      s->seed.fit = pp->fit;
      st = part_improve(s->prep, s->opt, s->clock, &s->seed, &s->res, s->diag);
      break;
    }
    bool stop = false;
    st = solve_improve_part(s, pp, others, &stop);
    if (st || stop) break;
  }
  if (st) return st;
  if (s->n_parts > 1) {
    s->seed.arena = 0;
    for (int32_t k = 0; k < s->n_parts; k++)
      if (s->parts[k].arena > s->seed.arena) s->seed.arena = s->parts[k].arena;
  }
  return BERTH_OK;
}

berth_status_t berth_alloc_solve(const berth_alloc_problem_t *p, const berth_alloc_options_t *o, uint64_t *offsets,
                                 berth_alloc_result_t *r, berth_diag_t *diag) {
  double t0 = berth_alloc_now_ms();
  berth_alloc_options_t opt = o ? *o : berth_alloc_options_default();
  BERTH_TRY(solve_check_options(p, &opt, offsets, diag));
  int64_t budget = opt.budget_ms;
  if (budget <= 0)
    budget = opt.algo == BERTH_ALLOC_EXACT ? BERTH_ALLOC_DEFAULT_EXACT_MS : BERTH_ALLOC_DEFAULT_SEARCH_MS;
  berth_alloc_clock_t clock = {t0 + (double)budget, opt.budget_work > 0 ? opt.budget_work : 0, 0};

  berth_alloc_prep_t prep;
  BERTH_TRY(berth_alloc_prep_init(&prep, p, diag));
  solve_run_t s;
  memset(&s, 0, sizeof s);
  s.opt = &opt;
  s.clock = &clock;
  s.prep = &prep;
  s.diag = diag;
  size_t mm = (size_t)prep.m + 1;
  s.seed.off = malloc(mm * sizeof *s.seed.off);
  s.seed.order = malloc(mm * sizeof *s.seed.order);
  s.res.lower_bound = prep.lower_bound;
  s.res.proven_bound = prep.lower_bound;
  s.res.greedy_order = "none";
  berth_status_t st = solve_split(&s);
  if (!st) st = solve_greedy(&s);
  if (!st && (opt.algo == BERTH_ALLOC_SEARCH || opt.algo == BERTH_ALLOC_EXACT)) st = solve_improve(&s);
  if (!st) {
    s.res.arena = s.seed.arena;
    s.res.segments = s.n_parts;
    if (p->n > 0) berth_alloc_prep_scatter(&prep, s.seed.off, offsets);
    finish_result(&s.res, &opt, &clock, budget, t0);
    if (r) *r = s.res;
  }
  free(s.seed.off);
  free(s.seed.order);
  free(s.list);
  free(s.loff);
  free(s.parts);
  berth_alloc_prep_deinit(&prep);
  return st;
}
