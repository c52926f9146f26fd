/* Greedy allocation: buffers in a fixed order, each placed in a gap left by the buffers
 * already placed (first fit: the lowest offset; best fit: the smallest gap), over several
 * orders, keeping the best plan.
 *
 * The orders (berth_alloc_order_t): by size with three tie rules, by power-of-two size
 * class, lifetime length, area and conflicts, and the peak sweep. The peak sweep takes
 * the buffers live at the busiest slot first, those that die first lowest, then the
 * others outwards in time by the distance from that slot to their nearest live slot. With
 * first fit the busiest moment gets a stack without holes, and each later buffer reuses
 * the bytes of those that died before it was born, lowest first. Tried first, it meets
 * the lower bound on the three real traces at hand (the best size order: Pangu's 2.6B
 * trace 1.0076, ResNet-50 1.0017, a hole at the peak). Small problems also sweep from
 * other busy slots (see PEAK_CANDIDATES).
 *
 * The interval structure. A buffer's conflicts are the placed buffers live in some slot
 * of its slot ranges; what the placement needs is only the union of their byte ranges.
 * A segment tree over slots keeps, per node v, two unions of byte ranges as sorted lists
 * of disjoint spans (adjacent spans merged):
 *   full(v)  the placed buffers whose canonical decomposition contains v;
 *   sub(v)   the placed buffers with a canonical node anywhere in v's subtree (for a
 *            leaf, full(v) itself).
 * The occupied bytes for slot range R are then the union of sub(c) over R's canonical
 * nodes c and full(a) over their strict ancestors a: O(log n) lists instead of the
 * (possibly thousands of) conflicting buffers, and stacks of buffers collapse into one
 * span. Placing scans the lists round robin with monotone cursors; inserting touches
 * O(log n) lists. A run is O(n log n) list operations of O(log n) each, plus the spans
 * the fit has to step over. */
#include "plan/alloc_internal.h"

#include "berth/memory.h" /* the large blocks a run fills: one page fault per 2 MiB, not per 4 KiB */

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
  /* Node 1 is the root, leaves are leaves .. 2 * leaves - 1. A leaf's sub list would
   * equal its full list, so sub holds the inner nodes only ([leaves]). */
  occ_list_t *full, *sub;
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
  sort_key_t *keys;   /* [2 m]: the keys and merge sort scratch, only while ordering (64
                         bytes a buffer: freed before the runs fill the span pool) */
  uint64_t *load;     /* [n_slots] total size live per slot, lazily computed */
  int64_t work;       /* list visits, steps and insertions so far: a deterministic clock */
  int32_t peak;       /* the slot BERTH_ALLOC_ORDER_PEAK sweeps from; -1 until known */
  berth_alloc_clock_t *clock; /* berth_alloc_greedy_set_clock; NULL: none */
  double run_ms;      /* the longest run of berth_alloc_greedy_best so far */
};

void berth_alloc_greedy_set_clock(berth_alloc_greedy_t *g, berth_alloc_clock_t *clock) { g->clock = clock; }

/* Would another run end past the budget? Never before the first run. A run costs m work
 * units (one per buffer placed), or about the longest run so far in wall time. */
static bool out_of_time(const berth_alloc_greedy_t *g, int runs) {
  const berth_alloc_clock_t *c = g->clock;
  if (!c || runs == 0) return false;
  if (c->work_limit > 0) return c->work > c->work_limit - g->prep->m;
  return berth_alloc_now_ms() + g->run_ms > c->deadline_ms;
}

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
  /* The first chunk is sized from m (a run takes 5 to 17 spans per buffer on the traces,
   * up to 64 MiB) so that large problems get one large block. */
  size_t first = 4096 + 8 * (size_t)g->prep->m;
  size_t cap = g->n_chunks ? 2 * g->chunk_cap[g->n_chunks - 1] : first < ((size_t)1 << 22) ? first : (size_t)1 << 22;
  if (cap < k) cap = k;
  occ_span_t *c = berth_host_alloc(cap * sizeof *c);
  if (!c) return NULL;
  g->chunks[g->n_chunks] = c;
  g->chunk_cap[g->n_chunks] = cap;
  g->cur_chunk = g->n_chunks++;
  g->used = k;
  return c;
}

/* Forgets every list; the chunks stay for the next run. */
static void pool_reset(berth_alloc_greedy_t *g) {
  memset(g->full, 0, 3 * (size_t)g->leaves * sizeof *g->full); /* and sub */
  g->cur_chunk = 0;
  g->used = 0;
  memset(g->free_list, 0, sizeof g->free_list);
}

/* Adds [off, top) to the union in l, merging spans that overlap or touch. */
static bool list_add(berth_alloc_greedy_t *g, occ_list_t *l, uint64_t off, uint64_t top) {
  g->work++;
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
      int32_t nc = l->cap ? 2 * l->cap : 2;
      int cls = 31 - __builtin_clz((unsigned)nc);
      occ_span_t *na;
      if (cls < 32 && g->free_list[cls]) { /* reuse an array another list outgrew */
        na = g->free_list[cls];
        memcpy(&g->free_list[cls], (const void *)na, sizeof(occ_span_t *));
      } else {
        na = pool_take(g, (size_t)nc);
        if (!na) return false;
      }
      if (l->n) memcpy(na, l->a, (size_t)l->n * sizeof *na);
      if (l->cap) {
        int old = 31 - __builtin_clz((unsigned)l->cap);
        memcpy((void *)l->a, &g->free_list[old], sizeof(occ_span_t *));
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
  free(g->full); /* g->sub lies in the same block */
  for (int32_t i = 0; i < g->n_chunks; i++) free(g->chunks[i]);
  free(g->chunks);
  free(g->chunk_cap);
  free(g->q);
  free(g->cur);
  free(g->conflicts);
  free(g->keys);
  free(g->load);
  free(g);
}

berth_alloc_greedy_t *berth_alloc_greedy_create(const berth_alloc_prep_t *prep) {
  berth_alloc_greedy_t *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->prep = prep;
  g->peak = -1;
  g->leaves = 1;
  while (g->leaves < prep->n_slots) g->leaves *= 2;
  g->full = berth_host_alloc(3 * (size_t)g->leaves * sizeof *g->full); /* pool_reset clears it */
  g->sub = g->full ? g->full + 2 * (size_t)g->leaves : NULL;
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
  if (!g->full || !g->sub || !g->q || !g->cur) {
    berth_alloc_greedy_destroy(g);
    return NULL;
  }
  return g;
}

static inline occ_list_t *sub_of(berth_alloc_greedy_t *g, int32_t node) {
  return node >= g->leaves ? &g->full[node] : &g->sub[node];
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

/* Lowest aligned x such that [x, x + s) misses every span of the lists. The lists are
 * visited round robin; x only grows, and the answer is found once every list has been
 * checked against the same x. */
static uint64_t first_fit(berth_alloc_greedy_t *g, int32_t nq, uint64_t s, uint64_t align) {
  uint64_t x = 0;
  int32_t q = 0, clean = 0; /* lists checked in a row without moving x */
  while (clean < nq) {
    const occ_list_t *l = g->q[q];
    int32_t k = seek(l, g->cur[q], x);
    bool moved = false;
    g->work++;
    while (k < l->n && l->a[k].off < x + s) {
      x = berth_alloc_align_up(l->a[k].top, align);
      moved = true;
      k = seek(l, k + 1, x);
      g->work++;
    }
    g->cur[q] = k;
    clean = moved ? 1 : clean + 1;
    q = q + 1 == nq ? 0 : q + 1;
  }
  return x;
}

/* Start of the smallest free gap that holds s aligned bytes (lowest on ties), else the
 * aligned end of the last span. */
static uint64_t best_fit(berth_alloc_greedy_t *g, int32_t nq, uint64_t s, uint64_t align) {
  uint64_t x = 0, best_x = UINT64_MAX, best_gap = UINT64_MAX;
  for (;;) {
    /* Move x to the next free byte (round robin, as in first_fit). */
    int32_t q = 0, clean = 0;
    while (clean < nq) {
      const occ_list_t *l = g->q[q];
      int32_t k = seek(l, g->cur[q], x);
      bool moved = false;
      g->work++;
      while (k < l->n && l->a[k].off <= x) {
        x = l->a[k].top;
        moved = true;
        k = seek(l, k + 1, x);
        g->work++;
      }
      g->cur[q] = k;
      clean = moved ? 1 : clean + 1;
      q = q + 1 == nq ? 0 : q + 1;
    }
    uint64_t end = UINT64_MAX;
    g->work += nq;
    for (int32_t i = 0; i < nq; i++) {
      const occ_list_t *l = g->q[i];
      if (g->cur[i] < l->n && l->a[g->cur[i]].off < end) end = l->a[g->cur[i]].off;
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

berth_alloc_run_t berth_alloc_greedy_run(berth_alloc_greedy_t *g, const int32_t *order, int fit, uint64_t stop_above,
                                         uint64_t *off, uint64_t *arena_out) {
  const berth_alloc_prep_t *p = g->prep;
  pool_reset(g);
  uint64_t arena = 0;
  for (int32_t t = 0; t < p->m; t++) {
    int32_t b = order[t];
    int32_t nq = 0;
    for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++) {
      FOR_RANGE_NODES(g, p->lo[r], p->hi[r], if (sub_of(g, node)->n) g->q[nq++] = sub_of(g, node),
                      if (g->full[node].n) g->q[nq++] = &g->full[node]);
    }
    memset(g->cur, 0, (size_t)nq * sizeof *g->cur);
    uint64_t s = p->size[b];
    uint64_t x = fit == BERTH_ALLOC_FIT_BEST ? best_fit(g, nq, s, p->align[b]) : first_fit(g, nq, s, p->align[b]);
    off[b] = x;
    if (x + s > arena) {
      arena = x + s;
      if (arena > stop_above) return BERTH_ALLOC_RUN_STOPPED;
    }
    bool ok = true;
    for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++) {
      FOR_RANGE_NODES(g, p->lo[r], p->hi[r],
                      ok = ok && list_add(g, &g->full[node], x, x + s) &&
                           (node >= g->leaves || list_add(g, &g->sub[node], x, x + s)),
                      ok = ok && list_add(g, &g->sub[node], x, x + s));
    }
    if (!ok) return BERTH_ALLOC_RUN_NO_MEMORY;
  }
  *arena_out = arena;
  return BERTH_ALLOC_RUN_DONE;
}

/* ---- orders -------------------------------------------------------------------------- */

static int cmp_key(const void *a, const void *b) {
  const sort_key_t *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x->k[i] != y->k[i]) return x->k[i] > y->k[i] ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

static inline bool key_before(const sort_key_t *x, const sort_key_t *y) {
  for (int i = 0; i < 3; i++)
    if (x->k[i] != y->k[i]) return x->k[i] > y->k[i];
  return x->idx < y->idx;
}

/* Sorts a[n] as cmp_key does (a merge sort: qsort's indirect calls were a third of a
 * run on 60,000 buffers); tmp has room for n keys. Returns a or tmp, whichever holds
 * the result. */
static sort_key_t *sort_keys(sort_key_t *a, sort_key_t *tmp, int32_t n) {
  enum { RUN = 16 };
  for (int32_t lo = 0; lo < n; lo += RUN) { /* insertion sort of short runs */
    int32_t hi = lo + RUN < n ? lo + RUN : n;
    for (int32_t i = lo + 1; i < hi; i++) {
      sort_key_t x = a[i];
      int32_t j = i;
      for (; j > lo && key_before(&x, &a[j - 1]); j--) a[j] = a[j - 1];
      a[j] = x;
    }
  }
  sort_key_t *src = a, *dst = tmp;
  for (int32_t w = RUN; w < n; w *= 2) {
    for (int32_t lo = 0; lo < n; lo += 2 * w) {
      int32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int32_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) dst[k++] = key_before(&src[j], &src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    sort_key_t *t = src;
    src = dst;
    dst = t;
  }
  return src;
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

/* The load of every slot and the first slot of largest load (the default peak). */
static bool compute_load(berth_alloc_greedy_t *g) {
  const berth_alloc_prep_t *p = g->prep;
  if (g->load) return true;
  g->load = berth_alloc_prep_slot_load(p);
  if (!g->load) return false;
  if (g->peak < 0) {
    g->peak = 0;
    for (int32_t j = 1; j < p->n_slots; j++)
      if (g->load[j] > g->load[g->peak]) g->peak = j;
  }
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
  if (which == BERTH_ALLOC_ORDER_PEAK && !compute_load(g)) return false;
  g->keys = berth_host_alloc(2 * ((size_t)p->m + 1) * sizeof *g->keys);
  if (!g->keys) return false;
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
      case BERTH_ALLOC_ORDER_PEAK: {
        /* Distance from the peak slot to the nearest slot where b is live; a buffer
         * live at the peak also records when that stretch of its life ends. */
        int32_t pk = g->peak;
        int64_t dist = INT64_MAX, until = 0;
        for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++) {
          int64_t d = p->lo[r] > pk ? (int64_t)p->lo[r] - pk : p->hi[r] <= pk ? (int64_t)pk - p->hi[r] + 1 : 0;
          if (d == 0) until = p->hi[r];
          if (d < dist) dist = d;
        }
        k->k[0] = UINT64_MAX - (uint64_t)dist;
        if (dist == 0) { /* the peak's stack: what dies first lowest, then size desc */
          k->k[1] = (uint64_t)(INT32_MAX - until);
          k->k[2] = size;
        } else {
          k->k[1] = size;
          k->k[2] = start_asc;
        }
        break;
      }
      case BERTH_ALLOC_ORDER_SIZE_END:
      default:
        k->k[0] = size;
        k->k[1] = end;
        break;
    }
  }
  const sort_key_t *sorted = sort_keys(g->keys, g->keys + p->m + 1, p->m);
  for (int32_t i = 0; i < p->m; i++) order[i] = sorted[i].idx;
  free(g->keys);
  g->keys = NULL;
  return true;
}

/* The (order, fit) pairs tried, most useful first: the peak sweep with first fit (see
 * the top of the file), then first fit in size orders, the best of the rest on every
 * benchmark at hand (ties broken by start time: with the opposite rule Pangu's trace
 * loses 14%; size/end is best on long chains of short-lived buffers). */
typedef struct greedy_try {
  berth_alloc_order_t order;
  int fit;
  const char *name;
} greedy_try_t;

static const greedy_try_t k_tries[] = {
    {BERTH_ALLOC_ORDER_PEAK, BERTH_ALLOC_FIT_FIRST, "peak sweep, first fit"},
    {BERTH_ALLOC_ORDER_SIZE_CLASS, BERTH_ALLOC_FIT_FIRST, "size class/start, first fit"},
    {BERTH_ALLOC_ORDER_SIZE, BERTH_ALLOC_FIT_FIRST, "size/start, first fit"},
    {BERTH_ALLOC_ORDER_SIZE_END, BERTH_ALLOC_FIT_FIRST, "size/end, first fit"},
    {BERTH_ALLOC_ORDER_PEAK, BERTH_ALLOC_FIT_BEST, "peak sweep, best fit"},
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

/* Problems up to this many buffers try every pair, and also sweep from other busy
 * moments than the busiest (up to PEAK_CANDIDATES in all, in decreasing load, spread
 * over the time line): minimalloc's instances meet the bound at many moments, and
 * on F, G and H a sweep from another one is the best greedy plan (1.08-1.15 x the bound;
 * the other orders 1.24-1.30). */
#define MANY_TRIES_MAX 1024
#define PEAK_CANDIDATES 8

/* How many pairs a problem of m buffers tries: all of them up to a thousand buffers,
 * then fewer (the first pairs win on every large benchmark at hand). The tries stop as
 * soon as a plan meets the lower bound, and above a thousand buffers after the first
 * three (which include the two size orders tried before the peak sweep existed) when the
 * runs so far took more than LARGE_WORK steps per buffer on average (the real traces
 * take 25 to 150; dense random lifetimes 800 to 3000, where a run takes a good part of a
 * second). */
#define LARGE_WORK 200

static int tries_for(int32_t m, int all) {
  if (m <= MANY_TRIES_MAX) return all;
  if (m <= 4096) return 8;
  return 4;
}

typedef struct best_state {
  uint64_t arena;
  uint64_t *off;
  int32_t *best_order;
  int *best_fit;
  const char **name;
} best_state_t;

/* Runs one (order, fit) pair and keeps it if it beats the best. Returns false if out of
 * memory. */
static bool try_pair(berth_alloc_greedy_t *g, berth_alloc_order_t which, int fit, const char *name, int32_t *order,
                     uint64_t *tmp, best_state_t *bs) {
  const berth_alloc_prep_t *p = g->prep;
  bool wall = g->clock && g->clock->work_limit <= 0;
  double t0 = wall ? berth_alloc_now_ms() : 0;
  if (!berth_alloc_greedy_order(g, which, order)) return false;
  uint64_t a = 0;
  berth_alloc_run_t run =
      berth_alloc_greedy_run(g, order, fit, bs->arena == UINT64_MAX ? UINT64_MAX : bs->arena - 1, tmp, &a);
  if (wall && berth_alloc_now_ms() - t0 > g->run_ms) g->run_ms = berth_alloc_now_ms() - t0;
  berth_alloc_clock_tick(g->clock, p->m);
  if (run == BERTH_ALLOC_RUN_NO_MEMORY) return false;
  if (run == BERTH_ALLOC_RUN_DONE && a < bs->arena) {
    bs->arena = a;
    memcpy(bs->off, tmp, (size_t)p->m * sizeof *tmp);
    if (bs->best_order) memcpy(bs->best_order, order, (size_t)p->m * sizeof *order);
    if (bs->best_fit) *bs->best_fit = fit;
    if (bs->name) *bs->name = name;
  }
  return true;
}

/* Up to max slots to sweep from besides g->peak, in decreasing load, each at least
 * n_slots / (2 PEAK_CANDIDATES) (and 1) from the peak and from each other. Returns the count, or -1 if
 * out of memory. */
static int32_t peak_candidates(berth_alloc_greedy_t *g, int32_t *cand, int32_t max) {
  const berth_alloc_prep_t *p = g->prep;
  int32_t ns = p->n_slots, gap = ns / (2 * PEAK_CANDIDATES), n = 0;
  if (gap < 1) gap = 1;
  sort_key_t *k = malloc(((size_t)ns + 1) * sizeof *k);
  if (!k) return -1;
  for (int32_t j = 0; j < ns; j++) {
    k[j].k[0] = g->load[j];
    k[j].k[1] = k[j].k[2] = 0;
    k[j].idx = j;
  }
  qsort(k, (size_t)ns, sizeof *k, cmp_key);
  for (int32_t i = 0; i < ns && n < max; i++) {
    int32_t s = k[i].idx;
    bool far = abs(s - g->peak) >= gap;
    for (int32_t c = 0; c < n && far; c++) far = abs(s - cand[c]) >= gap;
    if (far) cand[n++] = s;
  }
  free(k);
  return n;
}

uint64_t berth_alloc_greedy_best(berth_alloc_greedy_t *g, int fit, uint64_t *off, int32_t *best_order, int *best_fit,
                                 const char **name) {
  const berth_alloc_prep_t *p = g->prep;
  size_t mm = (size_t)p->m + 1;
  int32_t *order = malloc(mm * sizeof *order);
  uint64_t *tmp = malloc(mm * sizeof *tmp);
  best_state_t bs = {UINT64_MAX, off, best_order, best_fit, name};
  bool ok = order && tmp && compute_load(g);
  int n_tries = (int)(sizeof k_tries / sizeof k_tries[0]);
  int budget = tries_for(p->m, n_tries), runs = 0;
  int64_t work0 = g->work;
  for (int t = 0; ok && t < n_tries && budget > 0 && bs.arena > p->lower_bound; t++) {
    const greedy_try_t *tr = &k_tries[t];
    if (fit != BERTH_ALLOC_FIT_AUTO && tr->fit != fit) continue;
    if (p->m > MANY_TRIES_MAX && runs >= 3 && g->work - work0 > (int64_t)LARGE_WORK * runs * p->m) break;
    if (out_of_time(g, runs)) break;
    budget--;
    runs++;
    ok = try_pair(g, tr->order, tr->fit, tr->name, order, tmp, &bs);
  }
  if (ok && p->m <= MANY_TRIES_MAX && bs.arena > p->lower_bound) {
    int32_t cand[PEAK_CANDIDATES - 1];
    int32_t n_cand = peak_candidates(g, cand, PEAK_CANDIDATES - 1), peak = g->peak;
    ok = n_cand >= 0;
    for (int32_t c = 0; ok && c < n_cand && bs.arena > p->lower_bound && !out_of_time(g, runs); c++) {
      g->peak = cand[c];
      if (fit != BERTH_ALLOC_FIT_BEST) ok = try_pair(g, BERTH_ALLOC_ORDER_PEAK, BERTH_ALLOC_FIT_FIRST,
                                                     "peak sweep (another moment), first fit", order, tmp, &bs);
      if (ok && fit != BERTH_ALLOC_FIT_FIRST && bs.arena > p->lower_bound)
        ok = try_pair(g, BERTH_ALLOC_ORDER_PEAK, BERTH_ALLOC_FIT_BEST, "peak sweep (another moment), best fit", order,
                      tmp, &bs);
    }
    g->peak = peak;
  }
  /* When (nearly) everything conflicts, padding can make any order lose to stacking in
   * index order; never be worse than no reuse. */
  if (ok && bs.arena > p->lower_bound) {
    uint64_t a = berth_alloc_naive_run(p, tmp);
    if (a < bs.arena) {
      bs.arena = a;
      memcpy(off, tmp, (size_t)p->m * sizeof *off);
      if (best_order)
        for (int32_t i = 0; i < p->m; i++) best_order[i] = i;
      if (best_fit) *best_fit = BERTH_ALLOC_FIT_FIRST;
      if (name) *name = "index order, stacked";
    }
  }
  free(order);
  free(tmp);
  return ok ? bs.arena : UINT64_MAX;
}
