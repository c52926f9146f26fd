/* Search: improves the best greedy plan within a time budget. Never proves anything; it
 * only looks for better plans.
 *
 * Capacity-targeted dives (problems the branch and bound of alloc_dfs.c can hold). A
 * dive asks the decision search for a plan with arena <= C under a small node limit, so
 * it descends greedily (lowest minimum offset first, as the canonical search does) and
 * backtracks only a little. C is first just below the best plan (three dives, one per
 * preorder), then halfway between the lowest capacity not yet given up on and the best
 * plan; a capacity whose dive runs out of nodes is given up on for now, and when the
 * window closes the node limit doubles and it reopens. Capacities are multiples of the
 * problem's quantum (the gcd of sizes and alignments), as every optimal arena is. The
 * buffers that set the peak are exactly the ones such a dive has to place differently.
 *
 * Ruin and recreate (when there is no branch and bound but the conflict graph fits in
 * memory). Aims at T = best arena - 1 and minimises the overhang above T: picks a buffer
 * that sticks out, a moment of its lifetime, lifts out the buffers live then (all, or
 * those above a random height) and reinserts them one by one in a randomised size order,
 * each at the lowest (or best fitting) gap its placed neighbours leave; keeps the step if
 * the overhang did not grow.
 *
 * Order search (problems too large for either). Moves buffers that reach the peak earlier
 * in the greedy order and replays the greedy; keeps orders that are no worse. */
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

#define SEARCH_MAX_PAIRS (4 * 1000 * 1000)
#define OVERHANG_CAP ((uint64_t)1 << 38) /* per buffer: keeps the sum below 2^62 */

typedef struct span {
  uint64_t off, top;
} span_t;

typedef struct lns {
  const berth_alloc_prep_t *p;
  const berth_alloc_graph_t *g;
  uint64_t *off, *old_off;
  uint8_t *out;       /* lifted out of the plan */
  int32_t *ruin;      /* the lifted buffers */
  int32_t n_ruin;
  uint64_t *key;      /* recreate order keys */
  span_t *spans;      /* scratch: placed neighbours */
  int32_t *hot;
  uint64_t target;
  uint64_t total; /* overhang of the whole plan */
  uint64_t rng;
} lns_t;

static uint64_t plan_arena(const berth_alloc_prep_t *p, const uint64_t *off) {
  uint64_t a = 0;
  for (int32_t b = 0; b < p->m; b++)
    if (off[b] + p->size[b] > a) a = off[b] + p->size[b];
  return a;
}

static uint64_t overhang(const lns_t *s, int32_t b) {
  uint64_t top = s->off[b] + s->p->size[b];
  if (top <= s->target) return 0;
  uint64_t d = top - s->target;
  return d > OVERHANG_CAP ? OVERHANG_CAP : d;
}

static int cmp_span(const void *a, const void *b) {
  const span_t *x = a, *y = b;
  return (x->off > y->off) - (x->off < y->off);
}

/* Lowest (first fit) or tightest (best fit) aligned offset for b among its placed
 * neighbours. */
static uint64_t fit_offset(lns_t *s, int32_t b, bool best) {
  const berth_alloc_prep_t *p = s->p;
  int32_t k = 0;
  for (int64_t q = s->g->first[b]; q < s->g->first[b + 1]; q++) {
    int32_t u = s->g->adj[q];
    if (s->out[u]) continue;
    s->spans[k].off = s->off[u];
    s->spans[k++].top = s->off[u] + p->size[u];
  }
  if (k > 1) {
    if (k <= 24) {
      for (int32_t i = 1; i < k; i++) {
        span_t x = s->spans[i];
        int32_t j = i;
        while (j > 0 && s->spans[j - 1].off > x.off) {
          s->spans[j] = s->spans[j - 1];
          j--;
        }
        s->spans[j] = x;
      }
    } else {
      qsort(s->spans, (size_t)k, sizeof *s->spans, cmp_span);
    }
  }
  uint64_t size = p->size[b], align = p->align[b];
  uint64_t x = 0, best_x = UINT64_MAX, best_gap = UINT64_MAX;
  for (int32_t i = 0; i < k; i++) {
    uint64_t ax = berth_alloc_align_up(x, align);
    if (s->spans[i].off >= ax + size) {
      if (!best) return ax;
      uint64_t gap = s->spans[i].off - x;
      if (gap < best_gap) {
        best_gap = gap;
        best_x = ax;
      }
    }
    if (s->spans[i].top > x) x = s->spans[i].top;
  }
  if (best_x != UINT64_MAX) return best_x;
  return berth_alloc_align_up(x, align);
}

/* Picks the buffers to lift out: those live at a random moment of hot buffer h (a
 * clique), all of them or only those reaching above a random height. */
static void ruin(lns_t *s, int32_t h) {
  const berth_alloc_prep_t *p = s->p;
  int32_t r0 = p->iv_first[h], nr = p->iv_first[h + 1] - r0;
  int32_t r = r0 + (int32_t)berth_alloc_rand_below(&s->rng, (uint32_t)nr);
  int32_t t = p->lo[r] + (int32_t)berth_alloc_rand_below(&s->rng, (uint32_t)(p->hi[r] - p->lo[r]));
  uint64_t floor = 0;
  uint32_t mode = berth_alloc_rand_below(&s->rng, 4);
  uint64_t top_h = s->off[h] + p->size[h];
  if (mode >= 2) floor = (uint64_t)((double)top_h * (0.25 * (double)(mode - 1)) * 0.9);
  s->n_ruin = 0;
  s->ruin[s->n_ruin++] = h;
  s->out[h] = 1;
  for (int64_t q = s->g->first[h]; q < s->g->first[h + 1]; q++) {
    int32_t u = s->g->adj[q];
    if (s->off[u] + p->size[u] <= floor) continue;
    for (int32_t k = p->iv_first[u]; k < p->iv_first[u + 1]; k++)
      if (p->lo[k] <= t && t < p->hi[k]) {
        s->ruin[s->n_ruin++] = u;
        s->out[u] = 1;
        break;
      }
  }
}

/* Puts the lifted buffers back, one by one, in a randomised size-based order. */
static void recreate(lns_t *s) {
  const berth_alloc_prep_t *p = s->p;
  uint32_t mode = berth_alloc_rand_below(&s->rng, 8);
  bool best = berth_alloc_rand_below(&s->rng, 4) == 0;
  int32_t n = s->n_ruin;
  for (int32_t i = 0; i < n; i++) {
    int32_t b = s->ruin[i];
    uint64_t noise = berth_alloc_rand(&s->rng) >> 40; /* 24 bits */
    uint64_t size = p->size[b], len = (uint64_t)p->length[b];
    double jitter = 1.0 + ((double)(noise & 0xffff) / 65536.0 - 0.5) * 0.3;
    switch (mode) {
      case 0: case 1: case 2: /* size, ties at random */
        s->key[i] = size;
        break;
      case 3: /* size with +-15% noise */
        s->key[i] = (uint64_t)((double)size * jitter);
        break;
      case 4: /* area */
        s->key[i] = (uint64_t)((double)size * (double)len * jitter);
        break;
      case 5: /* lifetime */
        s->key[i] = len;
        break;
      default: /* fully random */
        s->key[i] = noise;
        break;
    }
  }
  /* Sort ruin by key descending, random ties (insertion sort on a shuffled list). */
  for (int32_t i = n - 1; i > 0; i--) {
    int32_t j = (int32_t)berth_alloc_rand_below(&s->rng, (uint32_t)(i + 1));
    int32_t tb = s->ruin[i];
    s->ruin[i] = s->ruin[j];
    s->ruin[j] = tb;
    uint64_t tk = s->key[i];
    s->key[i] = s->key[j];
    s->key[j] = tk;
  }
  for (int32_t i = 1; i < n; i++) {
    int32_t b = s->ruin[i];
    uint64_t k = s->key[i];
    int32_t j = i;
    while (j > 0 && s->key[j - 1] < k) {
      s->ruin[j] = s->ruin[j - 1];
      s->key[j] = s->key[j - 1];
      j--;
    }
    s->ruin[j] = b;
    s->key[j] = k;
  }
  for (int32_t i = 0; i < n; i++) {
    int32_t b = s->ruin[i];
    s->off[b] = fit_offset(s, b, best);
    s->out[b] = 0;
  }
}

static void lns_free(lns_t *s) {
  free(s->off);
  free(s->old_off);
  free(s->out);
  free(s->ruin);
  free(s->key);
  free(s->spans);
  free(s->hot);
}

/* Restarts the local search from plan off (arena `arena`). */
static void lns_reset(lns_t *s, const uint64_t *off, uint64_t arena) {
  memcpy(s->off, off, (size_t)s->p->m * sizeof *s->off);
  s->target = arena - 1;
  s->total = 0;
  for (int32_t b = 0; b < s->p->m; b++) s->total += overhang(s, b);
}

static bool lns_init(lns_t *s, const berth_alloc_prep_t *p, const berth_alloc_graph_t *g, uint64_t rng) {
  size_t mm = (size_t)p->m + 1;
  int64_t max_deg = 1;
  for (int32_t b = 0; b < p->m; b++)
    if (g->first[b + 1] - g->first[b] > max_deg) max_deg = g->first[b + 1] - g->first[b];
  memset(s, 0, sizeof *s);
  s->p = p;
  s->g = g;
  s->rng = rng;
  s->off = malloc(mm * sizeof *s->off);
  s->old_off = malloc(mm * sizeof *s->old_off);
  s->out = calloc(mm, 1);
  s->ruin = malloc(((size_t)max_deg + 2) * sizeof *s->ruin);
  s->key = malloc(((size_t)max_deg + 2) * sizeof *s->key);
  s->spans = malloc(((size_t)max_deg + 2) * sizeof *s->spans);
  s->hot = malloc(mm * sizeof *s->hot);
  if (!s->off || !s->old_off || !s->out || !s->ruin || !s->key || !s->spans || !s->hot) {
    lns_free(s);
    return false;
  }
  return true;
}

/* Runs `steps` ruin-and-recreate steps; a plan better than seed replaces it. */
static void lns_steps(lns_t *s, berth_alloc_seed_t *seed, int steps) {
  const berth_alloc_prep_t *p = s->p;
  for (int it = 0; it < steps && seed->arena > p->lower_bound; it++) {
    int32_t n_hot = 0;
    for (int32_t b = 0; b < p->m; b++)
      if (s->off[b] + p->size[b] > s->target) s->hot[n_hot++] = b;
    if (n_hot == 0) return; /* cannot happen: total > 0 */
    int32_t h = s->hot[berth_alloc_rand_below(&s->rng, (uint32_t)n_hot)];
    ruin(s, h);
    uint64_t before = 0;
    for (int32_t i = 0; i < s->n_ruin; i++) {
      int32_t b = s->ruin[i];
      before += overhang(s, b);
      s->old_off[b] = s->off[b];
    }
    recreate(s);
    uint64_t after = 0;
    for (int32_t i = 0; i < s->n_ruin; i++) after += overhang(s, s->ruin[i]);
    if (after > before) {
      for (int32_t i = 0; i < s->n_ruin; i++) s->off[s->ruin[i]] = s->old_off[s->ruin[i]];
      continue;
    }
    s->total = s->total - before + after;
    if (s->total == 0) {
      uint64_t arena = plan_arena(p, s->off);
      if (arena < seed->arena) {
        seed->arena = arena;
        memcpy(seed->off, s->off, (size_t)p->m * sizeof *seed->off);
      }
      lns_reset(s, seed->off, seed->arena);
    }
  }
}

/* ---- capacity-targeted dives ------------------------------------------------------------ */

static uint64_t gcd64(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

uint64_t berth_alloc_quantum(const berth_alloc_prep_t *prep) {
  uint64_t q = 0;
  for (int32_t b = 0; b < prep->m && q != 1; b++) {
    q = gcd64(q, prep->size[b]);
    if (prep->align[b] > 1) q = gcd64(q, prep->align[b]);
  }
  return q ? q : 1;
}

void berth_alloc_probe_init(berth_alloc_probe_t *pr, const berth_alloc_prep_t *p) {
  pr->quantum = berth_alloc_quantum(p);
  pr->lo = pr->lo_try = berth_alloc_round_up(p->lower_bound, pr->quantum);
  pr->limit = 2 * (int64_t)(p->m > 64 ? p->m : 64);
  pr->heuristic = 0;
  pr->descend = BERTH_ALLOC_DFS_HEURISTICS;
}

int berth_alloc_probe_step(berth_alloc_dfs_t *d, berth_alloc_probe_t *pr, const berth_alloc_prep_t *p,
                           berth_alloc_seed_t *seed, uint64_t *sol, berth_alloc_clock_t *clock, int64_t *nodes) {
  if (pr->lo_try < pr->lo) pr->lo_try = pr->lo;
  if (seed->arena <= pr->lo_try + pr->quantum + seed->arena / 1024) { /* the window closed */
    pr->lo_try = pr->lo;
    if (pr->limit <= INT64_MAX / 2) pr->limit *= 2;
  }
  uint64_t cap = pr->lo_try + (seed->arena - pr->lo_try) / 2;
  if (pr->descend > 0) {
    pr->descend--;
    cap = seed->arena - 1;
  }
  if (cap >= seed->arena) cap = seed->arena - 1;
  cap -= cap % pr->quantum; /* the same question: an optimal arena is a multiple */
  if (cap < pr->lo) cap = pr->lo; /* cannot happen: lo (a multiple) < arena */
  int res = berth_alloc_dfs_decide(d, cap, pr->heuristic, pr->limit, clock, sol);
  *nodes += berth_alloc_dfs_nodes(d);
  pr->heuristic = (pr->heuristic + 1) % BERTH_ALLOC_DFS_HEURISTICS;
  if (res == BERTH_ALLOC_DFS_FOUND) {
    uint64_t arena = plan_arena(p, sol);
    if (arena < seed->arena) {
      seed->arena = arena;
      memcpy(seed->off, sol, (size_t)p->m * sizeof *sol);
    }
    return BERTH_ALLOC_DFS_FOUND;
  }
  if (res == BERTH_ALLOC_DFS_NONE) {
    pr->lo = pr->lo_try = berth_alloc_round_up(cap + 1, pr->quantum);
    return res;
  }
  if (berth_alloc_dfs_out_of_memory(d)) return -1;
  pr->lo_try = cap + pr->quantum; /* cap is too hard for now */
  return res;
}

/* ---- order search (problems too large for the graph) ------------------------------------ */

/* Moves buffers that reach the peak earlier in the greedy order and replays it. */
static int64_t order_search(const berth_alloc_prep_t *p, berth_alloc_greedy_t *g, berth_alloc_seed_t *seed,
                            berth_alloc_clock_t *clock, uint64_t rng) {
  size_t mm = (size_t)p->m + 1;
  int32_t *order = malloc(mm * sizeof *order);
  int32_t *pos = malloc(mm * sizeof *pos);
  uint64_t *off = malloc(mm * sizeof *off);
  int64_t it = -1;
  if (!order || !pos || !off) goto out;
  it = 0;
  memcpy(order, seed->order, (size_t)p->m * sizeof *order);
  while (seed->arena > p->lower_bound && !berth_alloc_clock_out(clock)) {
    it++;
    berth_alloc_clock_tick(clock, p->m); /* a greedy replay places every buffer */
    for (int32_t i = 0; i < p->m; i++) pos[order[i]] = i;
    /* Pick up to 4 buffers at the top of the plan and move each earlier. */
    int moved = 0;
    for (int tries = 0; tries < 64 && moved < 4; tries++) {
      int32_t b = (int32_t)berth_alloc_rand_below(&rng, (uint32_t)p->m);
      if (seed->off[b] + p->size[b] + (seed->arena >> 6) < seed->arena) continue;
      int32_t at = pos[b];
      if (at == 0) continue;
      int32_t to = (int32_t)berth_alloc_rand_below(&rng, (uint32_t)at);
      memmove(order + to + 1, order + to, (size_t)(at - to) * sizeof *order);
      order[to] = b;
      for (int32_t i = to; i <= at; i++) pos[order[i]] = i;
      moved++;
    }
    uint64_t a = 0;
    berth_alloc_run_t run = berth_alloc_greedy_run(g, order, seed->fit, seed->arena, off, &a);
    if (run == BERTH_ALLOC_RUN_NO_MEMORY) {
      it = -1;
      break;
    }
    if (run == BERTH_ALLOC_RUN_DONE && a <= seed->arena) {
      seed->arena = a;
      memcpy(seed->off, off, (size_t)p->m * sizeof *off);
      memcpy(seed->order, order, (size_t)p->m * sizeof *order);
    } else {
      memcpy(order, seed->order, (size_t)p->m * sizeof *order);
    }
  }
out:
  free(order);
  free(pos);
  free(off);
  return it;
}

int64_t berth_alloc_search_improve(const berth_alloc_prep_t *prep, berth_alloc_greedy_t *g, berth_alloc_seed_t *seed,
                                   berth_alloc_clock_t *clock, uint64_t rng_seed) {
  if (prep->m == 0 || seed->arena <= prep->lower_bound) return 0;
  int dst;
  berth_alloc_dfs_t *d = berth_alloc_dfs_create(prep, &dst);
  if (dst < 0) return -1;
  int64_t it = 0;
  if (d) {
    uint64_t *sol = malloc(((size_t)prep->m + 1) * sizeof *sol);
    berth_alloc_probe_t pr;
    berth_alloc_probe_init(&pr, prep);
    while (sol && seed->arena > pr.lo && !berth_alloc_clock_out(clock))
      if (berth_alloc_probe_step(d, &pr, prep, seed, sol, clock, &it) < 0) break;
    if (!sol || berth_alloc_dfs_out_of_memory(d)) it = -1;
    free(sol);
    berth_alloc_dfs_destroy(d);
    return it;
  }
  berth_alloc_graph_t graph;
  int grc = berth_alloc_graph_init(&graph, prep, SEARCH_MAX_PAIRS);
  if (grc < 0) return -1;
  if (grc > 0) return order_search(prep, g, seed, clock, rng_seed);
  lns_t lns;
  if (!lns_init(&lns, prep, &graph, rng_seed ^ 0x5eed5eed5eedull)) {
    berth_alloc_graph_deinit(&graph);
    return -1;
  }
  lns_reset(&lns, seed->off, seed->arena);
  while (seed->arena > prep->lower_bound && !berth_alloc_clock_out(clock)) {
    lns_steps(&lns, seed, 1);
    it++;
    berth_alloc_clock_tick(clock, prep->m); /* a step scans every buffer */
  }
  lns_free(&lns);
  berth_alloc_graph_deinit(&graph);
  return it;
}
