/* Independent validation of a plan. Shares no code with the algorithms: a sweep over
 * time keeps the live buffers ordered by offset (as ranks in a bit tree); a buffer that
 * overlaps any live buffer overlaps its neighbour in that order, because the live
 * buffers are already pairwise disjoint. */
#include "berth/alloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- a set of ranks 0..n-1 with next/prev queries (64-ary bit tree) ------------------ */

#define CHECK_MAX_LEVELS 8

typedef struct rank_set {
  int levels;
  uint64_t *bits[CHECK_MAX_LEVELS];
  int64_t words[CHECK_MAX_LEVELS];
} rank_set_t;

static void rank_set_deinit(rank_set_t *s) {
  for (int l = 0; l < s->levels; l++) free(s->bits[l]);
}

static bool rank_set_init(rank_set_t *s, int64_t n) {
  memset(s, 0, sizeof *s);
  int64_t count = n > 0 ? n : 1;
  do {
    int64_t w = (count + 63) / 64;
    s->bits[s->levels] = calloc((size_t)w, sizeof(uint64_t));
    s->words[s->levels] = w;
    if (!s->bits[s->levels++]) {
      rank_set_deinit(s);
      return false;
    }
    count = w;
  } while (count > 1 && s->levels < CHECK_MAX_LEVELS);
  return true;
}

static void rank_set_add(rank_set_t *s, int64_t x) {
  for (int l = 0; l < s->levels; l++) {
    s->bits[l][x >> 6] |= (uint64_t)1 << (x & 63);
    x >>= 6;
  }
}

static void rank_set_remove(rank_set_t *s, int64_t x) {
  for (int l = 0; l < s->levels; l++) {
    s->bits[l][x >> 6] &= ~((uint64_t)1 << (x & 63));
    if (s->bits[l][x >> 6]) break;
    x >>= 6;
  }
}

/* Smallest member > x, or -1. */
static int64_t rank_set_next(const rank_set_t *s, int64_t x) {
  x++;
  for (int l = 0; l < s->levels; l++) {
    int64_t w = x >> 6;
    if (w >= s->words[l]) return -1;
    uint64_t m = s->bits[l][w] & (~(uint64_t)0 << (x & 63));
    if (m) {
      x = (w << 6) | __builtin_ctzll(m);
      for (int d = l - 1; d >= 0; d--) x = (x << 6) | __builtin_ctzll(s->bits[d][x]);
      return x;
    }
    x = w + 1;
  }
  return -1;
}

/* Largest member < x, or -1. */
static int64_t rank_set_prev(const rank_set_t *s, int64_t x) {
  x--;
  if (x < 0) return -1;
  for (int l = 0; l < s->levels; l++) {
    int64_t w = x >> 6;
    int bit = (int)(x & 63);
    uint64_t mask = bit == 63 ? ~(uint64_t)0 : (((uint64_t)1 << (bit + 1)) - 1);
    uint64_t m = s->bits[l][w] & mask;
    if (m) {
      x = (w << 6) | (63 - __builtin_clzll(m));
      for (int d = l - 1; d >= 0; d--) x = (x << 6) | (63 - __builtin_clzll(s->bits[d][x]));
      return x;
    }
    if (w == 0) return -1;
    x = w - 1;
  }
  return -1;
}

/* ---- the check ----------------------------------------------------------------------- */

typedef struct check_event {
  int64_t time;
  int32_t buf;
  int32_t start; /* 0 end, 1 start: ends at t come first (half-open) */
} check_event_t;

typedef struct check_key {
  uint64_t off;
  int32_t buf;
} check_key_t;

static int cmp_event(const void *a, const void *b) {
  const check_event_t *x = a, *y = b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  if (x->start != y->start) return x->start - y->start;
  return (x->buf > y->buf) - (x->buf < y->buf);
}

static int cmp_key(const void *a, const void *b) {
  const check_key_t *x = a, *y = b;
  if (x->off != y->off) return x->off < y->off ? -1 : 1;
  return (x->buf > y->buf) - (x->buf < y->buf);
}

static const char *label(const berth_alloc_problem_t *p, int32_t i, char *buf, size_t cap) {
  if (p->names && p->names[i]) berth_snprintf(buf, cap, "buffer '%s'", p->names[i]);
  else berth_snprintf(buf, cap, "buffer %d", (int)i);
  return buf;
}

static berth_status_t overlap_error(const berth_alloc_problem_t *p, const uint64_t *off, int32_t a, int32_t b,
                                    int64_t time, berth_diag_t *diag) {
  char la[96], lb[96];
  if (a > b) {
    int32_t t = a;
    a = b;
    b = t;
  }
  return berth_fail(diag, BERTH_ERR_VERIFY_FAILED,
                    "%s and %s overlap: bytes [%llu, %llu) and [%llu, %llu) are both live at time %lld",
                    label(p, a, la, sizeof la), label(p, b, lb, sizeof lb), (unsigned long long)off[a],
                    (unsigned long long)(off[a] + p->buffers[a].size), (unsigned long long)off[b],
                    (unsigned long long)(off[b] + p->buffers[b].size), (long long)time);
}

berth_status_t berth_alloc_check(const berth_alloc_problem_t *p, const uint64_t *offsets, uint64_t arena,
                                 berth_diag_t *diag) {
  berth_status_t st = berth_alloc_validate(p, diag);
  if (st) return st;
  if (p->n > 0 && !offsets) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "plan has no offset array");
  char la[96];
  size_t n_ev = 0;
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    uint64_t o = offsets[i];
    if (b->align > 1 && (o & (b->align - 1)) != 0)
      return berth_fail(diag, BERTH_ERR_VERIFY_FAILED, "%s: offset %llu is not a multiple of its alignment %llu",
                        label(p, i, la, sizeof la), (unsigned long long)o, (unsigned long long)b->align);
    if (b->size > arena || o > arena - b->size)
      return berth_fail(diag, BERTH_ERR_VERIFY_FAILED, "%s: bytes [%llu, %llu + %llu) end beyond the arena of %llu bytes",
                        label(p, i, la, sizeof la), (unsigned long long)o, (unsigned long long)o,
                        (unsigned long long)b->size, (unsigned long long)arena);
    if (b->size > 0) n_ev += 2 * (size_t)b->n_intervals;
  }
  if (n_ev == 0) return BERTH_OK;

  check_event_t *ev = malloc(n_ev * sizeof *ev);
  check_key_t *by_off = malloc((size_t)p->n * sizeof *by_off);
  int32_t *rank = malloc((size_t)p->n * sizeof *rank);
  rank_set_t live;
  bool live_ok = rank_set_init(&live, p->n);
  if (!ev || !by_off || !rank || !live_ok) {
    free(ev);
    free(by_off);
    free(rank);
    if (live_ok) rank_set_deinit(&live);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory checking %d buffers", (int)p->n);
  }
  size_t e = 0;
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    by_off[i] = (check_key_t){offsets[i], i};
    if (b->size == 0) continue;
    for (int32_t k = 0; k < b->n_intervals; k++) {
      ev[e++] = (check_event_t){b->intervals[k].lower, i, 1};
      ev[e++] = (check_event_t){b->intervals[k].upper, i, 0};
    }
  }
  qsort(by_off, (size_t)p->n, sizeof *by_off, cmp_key);
  for (int32_t r = 0; r < p->n; r++) rank[by_off[r].buf] = r;
  qsort(ev, e, sizeof *ev, cmp_event);

  st = BERTH_OK;
  for (size_t k = 0; k < e && !st; k++) {
    int32_t b = ev[k].buf;
    if (!ev[k].start) {
      rank_set_remove(&live, rank[b]);
      continue;
    }
    int64_t lo = rank_set_prev(&live, rank[b]);
    int64_t hi = rank_set_next(&live, rank[b]);
    if (lo >= 0) {
      int32_t a = by_off[lo].buf;
      if (offsets[a] + p->buffers[a].size > offsets[b]) st = overlap_error(p, offsets, a, b, ev[k].time, diag);
    }
    if (!st && hi >= 0) {
      int32_t a = by_off[hi].buf;
      if (offsets[b] + p->buffers[b].size > offsets[a]) st = overlap_error(p, offsets, a, b, ev[k].time, diag);
    }
    rank_set_add(&live, rank[b]);
  }
  free(ev);
  free(by_off);
  free(rank);
  rank_set_deinit(&live);
  return st;
}
