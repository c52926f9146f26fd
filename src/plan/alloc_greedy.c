/* Greedy allocation: buffers in a fixed order, each placed in a gap left by the buffers
 * already placed (first fit: the lowest offset; best fit: the smallest gap), over several
 * orders, keeping the best plan.
 *
 * The interval structure. A buffer's conflicts are the placed buffers live in some slot
 * of its slot ranges; what the placement needs is only the union of their byte ranges.
 * A segment tree over slots keeps, per node v, two unions of byte ranges as sorted lists
 * of disjoint spans (adjacent spans merged):
 *   full(v)  the placed buffers whose canonical decomposition contains v;
 *   sub(v)   the placed buffers with a canonical node anywhere in v's subtree.
 * The occupied bytes for slot range R are then the union of sub(c) over R's canonical
 * nodes c and full(a) over their strict ancestors a: O(log n) lists instead of the
 * (possibly thousands of) conflicting buffers, and stacks of buffers collapse into one
 * span. Placing scans the lists with monotone cursors; inserting touches O(log n) lists. */
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct occ_span {
  uint64_t off, top; /* [off, top) */
} occ_span_t;

typedef struct occ_list {
  occ_span_t *a;
  int32_t n, cap;
} occ_list_t;

typedef struct sort_key {
  uint64_t k[3]; /* compared descending, then idx ascending */
  int32_t idx;
} sort_key_t;

struct berth_alloc_greedy {
  const berth_alloc_prep_t *prep;
  int32_t leaves; /* a power of two >= n_slots */
  occ_list_t *full, *sub; /* [2 * leaves]; node 1 is the root */
  /* List storage comes from a bump pool of chunks, reset between runs. */
  occ_span_t **chunks;
  size_t *chunk_cap;
  int32_t n_chunks, cap_chunks, cur_chunk;
  size_t used; /* in chunk cur_chunk */
  occ_span_t *free_list[32]; /* outgrown arrays by log2 capacity, linked through their first bytes */
  /* Query scratch. */
  occ_list_t **q;
  int32_t *cur;
  int32_t q_cap;
  int32_t max_iv; /* most slot ranges of one buffer */
  int64_t *conflicts; /* [m] lazily computed */
  sort_key_t *keys;   /* [m] */
};

/* ---- list storage -------------------------------------------------------------------- */

static occ_span_t *pool_take(berth_alloc_greedy_t *g, size_t k) {
  while (g->cur_chunk < g->n_chunks) {
    if (g->used + k <= g->chunk_cap[g->cur_chunk]) {
      occ_span_t *r = g->chunks[g->cur_chunk] + g->used;
      g->used += k;
      return r;
    }
    if (g->cur_chunk + 1 == g->n_chunks) break;
    g->cur_chunk++; /* chunks kept from an earlier run */
    g->used = 0;
  }
  if (g->n_chunks == g->cap_chunks) {
    int32_t nc = g->cap_chunks ? 2 * g->cap_chunks : 8;
    occ_span_t **c = realloc(g->chunks, (size_t)nc * sizeof *c);
    if (!c) return NULL;
    g->chunks = c;
    size_t *cc = realloc(g->chunk_cap, (size_t)nc * sizeof *cc);
    if (!cc) return NULL;
    g->chunk_cap = cc;
    g->cap_chunks = nc;
  }
  size_t cap = g->n_chunks ? 2 * g->chunk_cap[g->n_chunks - 1] : 4096;
  if (cap < k) cap = k;
  occ_span_t *c = malloc(cap * sizeof *c);
  if (!c) return NULL;
  g->chunks[g->n_chunks] = c;
  g->chunk_cap[g->n_chunks] = cap;
  g->cur_chunk = g->n_chunks++;
  g->used = k;
  return c;
}

/* Forgets every list; the chunks stay for the next run. */
static void pool_reset(berth_alloc_greedy_t *g) {
  memset(g->full, 0, 2 * (size_t)g->leaves * sizeof *g->full);
  memset(g->sub, 0, 2 * (size_t)g->leaves * sizeof *g->sub);
  g->cur_chunk = 0;
  g->used = 0;
  memset(g->free_list, 0, sizeof g->free_list);
}

/* Adds [off, top) to the union in l, merging spans that overlap or touch. */
static bool list_add(berth_alloc_greedy_t *g, occ_list_t *l, uint64_t off, uint64_t top) {
  int32_t lo = 0, hi = l->n;
  while (lo < hi) { /* first span with top >= off */
    int32_t mid = lo + (hi - lo) / 2;
    if (l->a[mid].top < off) lo = mid + 1;
    else hi = mid;
  }
  int32_t i = lo, j = lo;
  while (j < l->n && l->a[j].off <= top) {
    if (l->a[j].off < off) off = l->a[j].off;
    if (l->a[j].top > top) top = l->a[j].top;
    j++;
  }
  if (j == i) {
    if (l->n == l->cap) {
      int32_t nc = l->cap ? 2 * l->cap : 4;
      int cls = 31 - __builtin_clz((unsigned)nc);
      occ_span_t *na;
      if (cls < 32 && g->free_list[cls]) { /* reuse an array another list outgrew */
        na = g->free_list[cls];
        memcpy(&g->free_list[cls], na, sizeof na);
      } else {
        na = pool_take(g, (size_t)nc);
        if (!na) return false;
      }
      if (l->n) memcpy(na, l->a, (size_t)l->n * sizeof *na);
      if (l->cap) {
        int old = 31 - __builtin_clz((unsigned)l->cap);
        memcpy(l->a, &g->free_list[old], sizeof l->a);
        g->free_list[old] = l->a;
      }
      l->a = na;
      l->cap = nc;
    }
    memmove(l->a + i + 1, l->a + i, (size_t)(l->n - i) * sizeof *l->a);
    l->n++;
  } else if (j > i + 1) {
    memmove(l->a + i + 1, l->a + j, (size_t)(l->n - j) * sizeof *l->a);
    l->n -= j - i - 1;
  }
  l->a[i].off = off;
  l->a[i].top = top;
  return true;
}

/* ---- engine -------------------------------------------------------------------------- */

void berth_alloc_greedy_destroy(berth_alloc_greedy_t *g) {
  if (!g) return;
  free(g->full);
  free(g->sub);
  for (int32_t i = 0; i < g->n_chunks; i++) free(g->chunks[i]);
  free(g->chunks);
  free(g->chunk_cap);
  free(g->q);
  free(g->cur);
  free(g->conflicts);
  free(g->keys);
  free(g);
}

berth_alloc_greedy_t *berth_alloc_greedy_create(const berth_alloc_prep_t *prep) {
  berth_alloc_greedy_t *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->prep = prep;
  g->leaves = 1;
  while (g->leaves < prep->n_slots) g->leaves *= 2;
  g->full = calloc(2 * (size_t)g->leaves, sizeof *g->full);
  g->sub = calloc(2 * (size_t)g->leaves, sizeof *g->sub);
  int32_t depth = 1;
  for (int32_t l = g->leaves; l > 1; l /= 2) depth++;
  g->max_iv = 1;
  for (int32_t i = 0; i < prep->m; i++) {
    int32_t k = prep->iv_first[i + 1] - prep->iv_first[i];
    if (k > g->max_iv) g->max_iv = k;
  }
  /* Per range: at most 2 canonical nodes and 2 partial ancestors per level. */
  int64_t qc = (int64_t)g->max_iv * 4 * depth + 4;
  g->q_cap = qc > INT32_MAX / 2 ? INT32_MAX / 2 : (int32_t)qc;
  g->q = malloc((size_t)g->q_cap * sizeof *g->q);
  g->cur = malloc((size_t)g->q_cap * sizeof *g->cur);
  g->keys = malloc(((size_t)prep->m + 1) * sizeof *g->keys);
  if (!g->full || !g->sub || !g->q || !g->cur || !g->keys) {
    berth_alloc_greedy_destroy(g);
    return NULL;
  }
  return g;
}

/* Calls visit(g, node, canonical) for the canonical nodes of leaf range [a, c) (leaf
 * indices already offset by g->leaves) and their strict ancestors ("partial" nodes). */
#define FOR_RANGE_NODES(g, lo_slot, hi_slot, CANON, PARTIAL)                      \
  do {                                                                            \
    int32_t a_ = (lo_slot) + (g)->leaves, c_ = (hi_slot) + (g)->leaves;           \
    for (int32_t x_ = a_, y_ = c_; x_ < y_; x_ >>= 1, y_ >>= 1) {                 \
      if (x_ & 1) {                                                               \
        int32_t node = x_++;                                                      \
        CANON;                                                                    \
      }                                                                           \
      if (y_ & 1) {                                                               \
        int32_t node = --y_;                                                      \
        CANON;                                                                    \
      }                                                                           \
    }                                                                             \
    for (int32_t h_ = 1, va_ = a_ >> 1, vc_ = (c_ - 1) >> 1; va_ >= 1;            \
         h_++, va_ >>= 1, vc_ >>= 1) {                                            \
      int64_t f_ = (int64_t)va_ << h_, l_ = ((int64_t)va_ + 1) << h_;             \
      if (!(f_ >= a_ && l_ <= c_)) {                                              \
        int32_t node = va_;                                                       \
        PARTIAL;                                                                  \
      }                                                                           \
      if (vc_ != va_) {                                                           \
        f_ = (int64_t)vc_ << h_;                                                  \
        l_ = ((int64_t)vc_ + 1) << h_;                                            \
        if (!(f_ >= a_ && l_ <= c_)) {                                            \
          int32_t node = vc_;                                                     \
          PARTIAL;                                                                \
        }                                                                         \
      }                                                                           \
    }                                                                             \
  } while (0)

/* Advances cursor *k of list l to the first span with top > x. */
static inline int32_t seek(const occ_list_t *l, int32_t k, uint64_t x) {
  if (k >= l->n || l->a[k].top > x) return k;
  int32_t lo = k + 1, hi = l->n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (l->a[mid].top <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Lowest aligned x such that [x, x + s) misses every span of the lists. */
static uint64_t first_fit(berth_alloc_greedy_t *g, int32_t nq, uint64_t s, uint64_t align) {
  uint64_t x = 0;
  bool moved = true;
  while (moved) {
    moved = false;
    for (int32_t q = 0; q < nq; q++) {
      const occ_list_t *l = g->q[q];
      int32_t k = g->cur[q] = seek(l, g->cur[q], x);
      if (k < l->n && l->a[k].off < x + s) {
        x = berth_alloc_align_up(l->a[k].top, align);
        moved = true;
      }
    }
  }
  return x;
}

/* Start of the smallest free gap that holds s aligned bytes (lowest on ties), else the
 * aligned end of the last span. */
static uint64_t best_fit(berth_alloc_greedy_t *g, int32_t nq, uint64_t s, uint64_t align) {
  uint64_t x = 0, best_x = UINT64_MAX, best_gap = UINT64_MAX;
  for (;;) {
    /* Move x to the next free byte. */
    bool moved = true;
    while (moved) {
      moved = false;
      for (int32_t q = 0; q < nq; q++) {
        const occ_list_t *l = g->q[q];
        int32_t k = g->cur[q] = seek(l, g->cur[q], x);
        if (k < l->n && l->a[k].off <= x) {
          x = l->a[k].top;
          moved = true;
        }
      }
    }
    uint64_t end = UINT64_MAX;
    for (int32_t q = 0; q < nq; q++) {
      const occ_list_t *l = g->q[q];
      if (g->cur[q] < l->n && l->a[g->cur[q]].off < end) end = l->a[g->cur[q]].off;
    }
    if (end == UINT64_MAX) break;
    uint64_t ax = berth_alloc_align_up(x, align);
    if (ax < end && end - ax >= s && end - x < best_gap) {
      best_gap = end - x;
      best_x = ax;
      if (end - ax == s) break; /* a perfect fit cannot be beaten */
    }
    x = end;
  }
  return best_x != UINT64_MAX ? best_x : berth_alloc_align_up(x, align);
}

uint64_t berth_alloc_greedy_run(berth_alloc_greedy_t *g, const int32_t *order, int fit, uint64_t stop_above,
                                uint64_t *off) {
  const berth_alloc_prep_t *p = g->prep;
  pool_reset(g);
  uint64_t arena = 0;
  for (int32_t t = 0; t < p->m; t++) {
    int32_t b = order[t];
    int32_t nq = 0;
    for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++) {
      FOR_RANGE_NODES(g, p->lo[r], p->hi[r], if (g->sub[node].n) g->q[nq++] = &g->sub[node],
                      if (g->full[node].n) g->q[nq++] = &g->full[node]);
    }
    memset(g->cur, 0, (size_t)nq * sizeof *g->cur);
    uint64_t s = p->size[b];
    uint64_t x = fit == BERTH_ALLOC_FIT_BEST ? best_fit(g, nq, s, p->align[b]) : first_fit(g, nq, s, p->align[b]);
    off[b] = x;
    if (x + s > arena) {
      arena = x + s;
      if (arena > stop_above) return UINT64_MAX - 1;
    }
    bool ok = true;
    for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++) {
      FOR_RANGE_NODES(g, p->lo[r], p->hi[r],
                      ok = ok && list_add(g, &g->full[node], x, x + s) && list_add(g, &g->sub[node], x, x + s),
                      ok = ok && list_add(g, &g->sub[node], x, x + s));
    }
    if (!ok) return UINT64_MAX;
  }
  return arena;
}

/* ---- orders -------------------------------------------------------------------------- */

static int cmp_key(const void *a, const void *b) {
  const sort_key_t *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x->k[i] != y->k[i]) return x->k[i] > y->k[i] ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Number of slot ranges of other buffers overlapping each buffer's ranges (a buffer that
 * overlaps two of them counts twice: it only orders buffers). */
static bool compute_conflicts(berth_alloc_greedy_t *g) {
  const berth_alloc_prep_t *p = g->prep;
  if (g->conflicts) return true;
  int32_t n = p->n_iv;
  int32_t *los = malloc(((size_t)n + 1) * sizeof *los);
  int32_t *his = malloc(((size_t)n + 1) * sizeof *his);
  g->conflicts = malloc(((size_t)p->m + 1) * sizeof *g->conflicts);
  if (!los || !his || !g->conflicts) {
    free(los);
    free(his);
    free(g->conflicts);
    g->conflicts = NULL;
    return false;
  }
  memcpy(los, p->lo, (size_t)n * sizeof *los);
  memcpy(his, p->hi, (size_t)n * sizeof *his);
  qsort(los, (size_t)n, sizeof *los, cmp_i32);
  qsort(his, (size_t)n, sizeof *his, cmp_i32);
  for (int32_t b = 0; b < p->m; b++) {
    int64_t c = 0;
    for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++) {
      /* overlapping = n - #(lo' >= hi) - #(hi' <= lo), minus the range itself */
      int32_t a = 0, z = n;
      while (a < z) {
        int32_t mid = a + (z - a) / 2;
        if (los[mid] < p->hi[r]) a = mid + 1;
        else z = mid;
      }
      int64_t starts_after = n - a;
      a = 0;
      z = n;
      while (a < z) {
        int32_t mid = a + (z - a) / 2;
        if (his[mid] <= p->lo[r]) a = mid + 1;
        else z = mid;
      }
      c += n - starts_after - a - 1;
    }
    g->conflicts[b] = c;
  }
  free(los);
  free(his);
  return true;
}

/* Doubles >= 0 order like their bit patterns. */
static uint64_t dbits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

bool berth_alloc_greedy_order(berth_alloc_greedy_t *g, berth_alloc_order_t which, int32_t *order) {
  const berth_alloc_prep_t *p = g->prep;
  if (which == BERTH_ALLOC_ORDER_CONFLICTS && !compute_conflicts(g)) return false;
  for (int32_t b = 0; b < p->m; b++) {
    sort_key_t *k = &g->keys[b];
    uint64_t size = p->size[b];
    uint64_t start_asc = (uint64_t)(INT32_MAX - p->lo[p->iv_first[b]]);
    uint64_t end = (uint64_t)p->hi[p->iv_first[b + 1] - 1];
    uint64_t len = (uint64_t)p->length[b];
    k->idx = b;
    k->k[0] = k->k[1] = k->k[2] = 0;
    switch (which) {
      case BERTH_ALLOC_ORDER_SIZE:
        k->k[0] = size;
        k->k[1] = start_asc;
        break;
      case BERTH_ALLOC_ORDER_SIZE_CLASS:
        k->k[0] = (uint64_t)(63 - __builtin_clzll(size));
        k->k[1] = start_asc;
        k->k[2] = size;
        break;
      case BERTH_ALLOC_ORDER_LENGTH:
        k->k[0] = len;
        k->k[1] = size;
        k->k[2] = start_asc;
        break;
      case BERTH_ALLOC_ORDER_AREA:
        k->k[0] = dbits((double)size * (double)len);
        k->k[1] = size;
        k->k[2] = start_asc;
        break;
      case BERTH_ALLOC_ORDER_CONFLICTS:
        k->k[0] = (uint64_t)g->conflicts[b];
        k->k[1] = size;
        k->k[2] = start_asc;
        break;
      case BERTH_ALLOC_ORDER_SIZE_END:
      default:
        k->k[0] = size;
        k->k[1] = end;
        break;
    }
  }
  qsort(g->keys, (size_t)p->m, sizeof *g->keys, cmp_key);
  for (int32_t i = 0; i < p->m; i++) order[i] = g->keys[i].idx;
  return true;
}

/* The (order, fit) pairs tried, most useful first: first fit in a size order is the best
 * single rule on every benchmark at hand (ties broken by start time: with the opposite
 * rule Pangu's trace loses 14%). */
typedef struct greedy_try {
  berth_alloc_order_t order;
  int fit;
  const char *name;
} greedy_try_t;

static const greedy_try_t k_tries[] = {
    {BERTH_ALLOC_ORDER_SIZE_CLASS, BERTH_ALLOC_FIT_FIRST, "size class/start, first fit"},
    {BERTH_ALLOC_ORDER_SIZE, BERTH_ALLOC_FIT_FIRST, "size/start, first fit"},
    {BERTH_ALLOC_ORDER_SIZE_END, BERTH_ALLOC_FIT_FIRST, "size/end, first fit"},
    {BERTH_ALLOC_ORDER_SIZE_CLASS, BERTH_ALLOC_FIT_BEST, "size class/start, best fit"},
    {BERTH_ALLOC_ORDER_SIZE, BERTH_ALLOC_FIT_BEST, "size/start, best fit"},
    {BERTH_ALLOC_ORDER_SIZE_END, BERTH_ALLOC_FIT_BEST, "size/end, best fit"},
    {BERTH_ALLOC_ORDER_LENGTH, BERTH_ALLOC_FIT_BEST, "length/size, best fit"},
    {BERTH_ALLOC_ORDER_CONFLICTS, BERTH_ALLOC_FIT_BEST, "conflicts/size, best fit"},
    {BERTH_ALLOC_ORDER_AREA, BERTH_ALLOC_FIT_FIRST, "area, first fit"},
    {BERTH_ALLOC_ORDER_AREA, BERTH_ALLOC_FIT_BEST, "area, best fit"},
    {BERTH_ALLOC_ORDER_LENGTH, BERTH_ALLOC_FIT_FIRST, "length/size, first fit"},
    {BERTH_ALLOC_ORDER_CONFLICTS, BERTH_ALLOC_FIT_FIRST, "conflicts/size, first fit"},
};

/* How many pairs a problem of m buffers tries: all of them up to a thousand buffers,
 * then fewer (the first pairs win on every large benchmark at hand). */
static int tries_for(int32_t m, int all) {
  if (m <= 1024) return all;
  if (m <= 4096) return 6;
  return 2;
}

uint64_t berth_alloc_greedy_best(berth_alloc_greedy_t *g, int fit, uint64_t *off, int32_t *best_order, int *best_fit,
                                 const char **name) {
  const berth_alloc_prep_t *p = g->prep;
  size_t mm = (size_t)p->m + 1;
  int32_t *order = malloc(mm * sizeof *order);
  uint64_t *tmp = malloc(mm * sizeof *tmp);
  if (!order || !tmp) {
    free(order);
    free(tmp);
    return UINT64_MAX;
  }
  uint64_t best = UINT64_MAX;
  int n_tries = (int)(sizeof k_tries / sizeof k_tries[0]);
  int budget = tries_for(p->m, n_tries);
  for (int t = 0; t < n_tries && budget > 0; t++) {
    const greedy_try_t *tr = &k_tries[t];
    if (fit != BERTH_ALLOC_FIT_AUTO && tr->fit != fit) continue;
    budget--;
    if (!berth_alloc_greedy_order(g, tr->order, order)) {
      best = UINT64_MAX;
      break;
    }
    uint64_t a = berth_alloc_greedy_run(g, order, tr->fit, best == UINT64_MAX ? UINT64_MAX : best - 1, tmp);
    if (a == UINT64_MAX) {
      best = UINT64_MAX;
      break;
    }
    if (a < best) {
      best = a;
      memcpy(off, tmp, (size_t)p->m * sizeof *off);
      if (best_order) memcpy(best_order, order, (size_t)p->m * sizeof *order);
      if (best_fit) *best_fit = tr->fit;
      if (name) *name = tr->name;
      if (best <= p->lower_bound) break; /* cannot be beaten */
    }
  }
  /* When (nearly) everything conflicts, padding can make any order lose to stacking in
   * index order; never be worse than no reuse. */
  if (best != UINT64_MAX && best > p->lower_bound) {
    uint64_t a = berth_alloc_naive_run(p, tmp);
    if (a < best) {
      best = a;
      memcpy(off, tmp, (size_t)p->m * sizeof *off);
      if (best_order)
        for (int32_t i = 0; i < p->m; i++) best_order[i] = i;
      if (best_fit) *best_fit = BERTH_ALLOC_FIT_FIRST;
      if (name) *name = "index order, stacked";
    }
  }
  free(order);
  free(tmp);
  return best;
}
