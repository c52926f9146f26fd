/* Canonical branch and bound: the decision procedure "is there a plan with arena <= C?"
 * behind search and exact (after minimalloc, Moffitt, ASPLOS 2023; written from the
 * paper's ideas, not its code).
 *
 * It places buffers one at a time, each at its minimum offset (the aligned top of the
 * placed buffers it conflicts with): every plan can be pushed down until no buffer can
 * move lower, and such a plan is found by placing its buffers in order of offset. So the
 * search only
 *   - places a buffer at its minimum offset, in nondecreasing (offset, rank) order
 *     (canonical order: symmetric orders are never tried twice);
 *   - skips a buffer whose offset is at or above some other unplaced buffer's minimum
 *     top (that buffer would fit below it: dominance);
 *   - stops at a buffer with nothing left to go on top of it (it sits where it is in
 *     every completion), and fails a branch that leaves such a buffer below the front;
 *   - prunes when a section (a maximal set of buffers live together) cannot hold its
 *     unplaced buffers: max(current offset, section floor) + their total size > C, the
 *     floor being the lowest minimum offset of its unplaced buffers, kept exact (never
 *     below a placed top);
 *   - prunes when a section's stack can no longer start low enough because its low
 *     buffers have fallen behind the canonical front and only a later neighbour can
 *     lift them (behind_ok);
 *   - splits the remaining problem into independent groups whenever no unplaced buffer
 *     spans the boundary between two sections, solves them one after the other, and
 *     remembers groups that failed (their state is their buffers' minimum offsets).
 * Ranks come from a static preorder (width/area/total in three rotations, as in the
 * paper, or a randomly perturbed one); callers round-robin them under node limits. */
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

/* Problems beyond these sizes are not searched (berth_alloc_dfs_create says so). */
#define DFS_MAX_BUFFERS 4096 /* the search recurses once per placed buffer */
#define DFS_MAX_PAIRS (8 * 1000 * 1000)
#define DFS_MAX_SECTION_ENTRIES (32 * 1000 * 1000)

#define UNPLACED UINT64_MAX

enum { RES_FOUND = BERTH_ALLOC_DFS_FOUND, RES_NOT_FOUND = BERTH_ALLOC_DFS_NONE, RES_ABORTED = BERTH_ALLOC_DFS_ABORTED };
enum { TRAIL_MINOFF, TRAIL_UMIN };

typedef struct trail_entry {
  int32_t kind, idx;
  uint64_t old;
  int32_t old_cnt;
} trail_entry_t;

typedef struct cand {
  uint64_t minoff;
  int32_t rank, buf;
} cand_t;

struct berth_alloc_dfs {
  const berth_alloc_prep_t *p;
  int32_t m, S;
  /* Sections (maximal sets of buffers live together), in time order. */
  int32_t *sec_first, *sec_mem; /* CSR */
  int32_t *rs_lo, *rs_hi;       /* per slot range: its sections [rs_lo, rs_hi) */
  int32_t *hull_lo, *hull_hi;   /* per buffer: first section, one past the last */
  berth_alloc_graph_t graph;    /* conflicts */
  double *width;                /* per buffer: total live time */
  /* Search state. */
  uint64_t cap;
  uint64_t *off, *minoff, *sol;
  uint64_t *total;         /* per section: size of its unplaced buffers */
  uint64_t *umin;          /* per section: lowest minimum offset of an unplaced buffer,
                              exactly (so never below a placed top of the section) */
  int32_t *ucnt;           /* how many unplaced buffers have it */
  uint64_t *sec_stamp;     /* see umin_leave */
  uint64_t stamp;
  int32_t *rescan;
  int32_t n_rescan;
  int32_t *touched;        /* sections whose umin or total changed in the last place() */
  uint8_t *touched_mark;
  int32_t n_touched;
  int32_t *cuts;           /* per section boundary s|s+1: buffers spanning it */
  int32_t *rank;
  int32_t *lpos; /* per buffer: its position in the innermost group's list */
  int32_t *open_deg; /* per buffer: its unplaced neighbours */
  uint64_t *eff;     /* per buffer: its lift when behind the front (see behind_ok) */
  uint64_t *eff_at;  /* the eff_stamp at which eff was set */
  uint64_t eff_stamp;
  bool no_lifts;     /* berth_alloc_dfs_use_lifts(d, false): for tests */
  /* Failed groups: a group's state is its unplaced buffers and their minimum offsets
   * (every placed neighbour lies below those), so a group that failed once at some
   * capacity fails again whenever it reappears, at that capacity or less. */
  uint64_t *memo_words; /* entries: [s0 | s1 << 32, n, cap, (buf, minoff) * n] */
  size_t n_memo_words, cap_memo_words;
  int64_t *memo_slot;   /* open addressing: word index of an entry, or -1 */
  size_t memo_slots, memo_used;
  trail_entry_t *trail;
  size_t n_trail, cap_trail;
  /* A stack for candidate lists, partition lists and saved ranks. */
  int32_t *stk;
  size_t n_stk, cap_stk;
  cand_t *cands;
  size_t n_cands, cap_cands;
  int heuristic;
  int64_t nodes, node_limit;
  berth_alloc_clock_t *clock;
  int64_t work; /* work units not yet added to clock (every 16 nodes) */
  bool oom, timed_out;
};
typedef struct berth_alloc_dfs exact_t;

/* ---- growable stacks ----------------------------------------------------------------- */

static bool grow(void **ptr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t nc = *cap ? *cap : 1024;
  while (nc < need) nc *= 2;
  void *np = realloc(*ptr, nc * elem);
  if (!np) return false;
  *ptr = np;
  *cap = nc;
  return true;
}

static int32_t *stk_push(exact_t *e, size_t k) {
  if (!grow((void **)&e->stk, &e->cap_stk, e->n_stk + k, sizeof *e->stk)) {
    e->oom = true;
    return NULL;
  }
  int32_t *r = e->stk + e->n_stk;
  e->n_stk += k;
  return r;
}

static bool trail_push(exact_t *e, int32_t kind, int32_t idx, uint64_t old, int32_t old_cnt) {
  if (!grow((void **)&e->trail, &e->cap_trail, e->n_trail + 1, sizeof *e->trail)) {
    e->oom = true;
    return false;
  }
  e->trail[e->n_trail++] = (trail_entry_t){kind, idx, old, old_cnt};
  return true;
}

static void trail_undo(exact_t *e, size_t mark) {
  while (e->n_trail > mark) {
    trail_entry_t *t = &e->trail[--e->n_trail];
    if (t->kind == TRAIL_MINOFF) {
      e->minoff[t->idx] = t->old;
    } else {
      e->umin[t->idx] = t->old;
      e->ucnt[t->idx] = t->old_cnt;
    }
  }
}

/* ---- preprocessing -------------------------------------------------------------------- */

static void dfs_free(exact_t *e) {
  free(e->sec_first);
  free(e->sec_mem);
  free(e->rs_lo);
  free(e->rs_hi);
  free(e->hull_lo);
  free(e->hull_hi);
  berth_alloc_graph_deinit(&e->graph);
  free(e->width);
  free(e->off);
  free(e->minoff);
  free(e->sol);
  free(e->total);
  free(e->cuts);
  free(e->rank);
  free(e->lpos);
  free(e->open_deg);
  free(e->eff);
  free(e->eff_at);
  free(e->memo_words);
  free(e->memo_slot);
  free(e->umin);
  free(e->sec_stamp);
  free(e->rescan);
  free(e->ucnt);
  free(e->touched);
  free(e->touched_mark);
  free(e->trail);
  free(e->stk);
  free(e->cands);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The sweep over the time line that finds the sections: ranges bucketed by start slot and by
 * end slot, and the live set (live[0 .. n) with each range's place in it). */
typedef struct dfs_sweep {
  int32_t *st_first, *en_first; /* per slot: first range starting (ending) there */
  int32_t *st_list, *en_list;
  int32_t *range_buf; /* per range: its buffer */
  int32_t *live, *live_pos;
} dfs_sweep_t;

static void dfs_sweep_free(dfs_sweep_t *w) {
  free(w->st_first);
  free(w->en_first);
  free(w->st_list);
  free(w->en_list);
  free(w->range_buf);
  free(w->live);
  free(w->live_pos);
}

/* Buckets p's ranges by start and end slot. False if out of memory. */
static bool dfs_sweep_init(dfs_sweep_t *w, const berth_alloc_prep_t *p) {
  int32_t m = p->m, nr = p->n_iv, T = p->n_slots;
  w->st_first = calloc((size_t)T + 2, sizeof *w->st_first);
  w->en_first = calloc((size_t)T + 2, sizeof *w->en_first);
  w->st_list = malloc(((size_t)nr + 1) * sizeof *w->st_list);
  w->en_list = malloc(((size_t)nr + 1) * sizeof *w->en_list);
  w->range_buf = malloc(((size_t)nr + 1) * sizeof *w->range_buf);
  size_t lcap = (size_t)(nr > T ? nr : T) + 2;
  w->live = malloc(lcap * sizeof *w->live);
  w->live_pos = malloc(lcap * sizeof *w->live_pos);
  if (!w->st_first || !w->en_first || !w->st_list || !w->en_list || !w->range_buf || !w->live || !w->live_pos)
    return false;
  for (int32_t b = 0; b < m; b++)
    for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++) w->range_buf[r] = b;
  for (int32_t r = 0; r < nr; r++) {
    w->st_first[p->lo[r] + 1]++;
    w->en_first[p->hi[r] + 1]++;
  }
  for (int32_t t = 0; t <= T; t++) {
    w->st_first[t + 1] += w->st_first[t];
    w->en_first[t + 1] += w->en_first[t];
  }
  memcpy(w->live, w->st_first, ((size_t)T + 1) * sizeof *w->live); /* borrowed as fill cursors */
  memcpy(w->live_pos, w->en_first, ((size_t)T + 1) * sizeof *w->live_pos);
  for (int32_t r = 0; r < nr; r++) {
    w->st_list[w->live[p->lo[r]]++] = r;
    w->en_list[w->live_pos[p->hi[r]]++] = r;
  }
  return true;
}

/* A section is emitted when something ends after something started: the live set is then a
 * maximal clique. Pass 1: counts sections and their entries; 1 if too many entries. */
static int dfs_count_sections(const dfs_sweep_t *w, int32_t T, int64_t *n_sec, int64_t *n_ent) {
  int32_t n_live = 0;
  bool grown = false;
  *n_sec = *n_ent = 0;
  for (int32_t t = 0; t <= T; t++) {
    if (grown && w->en_first[t] < w->en_first[t + 1]) {
      (*n_sec)++;
      *n_ent += n_live;
      grown = false;
    }
    n_live -= w->en_first[t + 1] - w->en_first[t];
    if (w->st_first[t] < w->st_first[t + 1]) grown = true;
    n_live += w->st_first[t + 1] - w->st_first[t];
    if (*n_ent > DFS_MAX_SECTION_ENTRIES) return 1;
  }
  return 0;
}

/* Pass 2: the sections' members and each range's first and last section. */
static void dfs_fill_sections(exact_t *e, dfs_sweep_t *w, int32_t T) {
  int32_t n_live = 0;
  int64_t s = 0, ent = 0;
  bool grown = false;
  for (int32_t t = 0; t <= T; t++) {
    if (grown && w->en_first[t] < w->en_first[t + 1]) {
      e->sec_first[s] = (int32_t)ent;
      for (int32_t k = 0; k < n_live; k++) e->sec_mem[ent++] = w->range_buf[w->live[k]];
      s++;
      grown = false;
    }
    for (int32_t k = w->en_first[t]; k < w->en_first[t + 1]; k++) {
      int32_t r = w->en_list[k];
      e->rs_hi[r] = (int32_t)s;
      int32_t at = w->live_pos[r], last = w->live[--n_live];
      w->live[at] = last;
      w->live_pos[last] = at;
    }
    for (int32_t k = w->st_first[t]; k < w->st_first[t + 1]; k++) {
      int32_t r = w->st_list[k];
      e->rs_lo[r] = (int32_t)s;
      w->live_pos[r] = n_live;
      w->live[n_live++] = r;
      grown = true;
    }
  }
  e->sec_first[s] = (int32_t)ent;
}

/* The search's per-buffer and per-section arrays. False if out of memory. */
static bool dfs_alloc_search(exact_t *e, int32_t m) {
  e->hull_lo = malloc(((size_t)m + 1) * sizeof *e->hull_lo);
  e->hull_hi = malloc(((size_t)m + 1) * sizeof *e->hull_hi);
  e->width = malloc(((size_t)m + 1) * sizeof *e->width);
  e->off = malloc(((size_t)m + 1) * sizeof *e->off);
  e->minoff = malloc(((size_t)m + 1) * sizeof *e->minoff);
  e->sol = malloc(((size_t)m + 1) * sizeof *e->sol);
  e->rank = malloc(((size_t)m + 1) * sizeof *e->rank);
  e->lpos = malloc(((size_t)m + 1) * sizeof *e->lpos);
  e->open_deg = malloc(((size_t)m + 1) * sizeof *e->open_deg);
  e->eff = malloc(((size_t)m + 1) * sizeof *e->eff);
  e->eff_at = calloc((size_t)m + 1, sizeof *e->eff_at);
  e->total = malloc(((size_t)e->S + 1) * sizeof *e->total);
  e->cuts = malloc(((size_t)e->S + 1) * sizeof *e->cuts);
  e->umin = malloc(((size_t)e->S + 1) * sizeof *e->umin);
  e->ucnt = malloc(((size_t)e->S + 1) * sizeof *e->ucnt);
  e->sec_stamp = calloc((size_t)e->S + 1, sizeof *e->sec_stamp);
  e->rescan = malloc(((size_t)e->S + 1) * sizeof *e->rescan);
  e->touched = malloc(((size_t)e->S + 1) * sizeof *e->touched);
  e->touched_mark = calloc((size_t)e->S + 1, 1);
  return e->hull_lo && e->hull_hi && e->width && e->off && e->minoff && e->sol && e->rank && e->lpos && e->open_deg &&
         e->eff && e->eff_at && e->total && e->cuts && e->umin && e->ucnt && e->sec_stamp && e->rescan && e->touched &&
         e->touched_mark;
}

/* Builds the conflict graph, sections, section ranges and hulls. Returns 0 on success,
 * 1 if the problem is too large, -1 if out of memory. */
static int dfs_build(exact_t *e, const berth_alloc_prep_t *p) {
  memset(e, 0, sizeof *e);
  e->p = p;
  e->m = p->m;
  int32_t m = p->m, nr = p->n_iv, T = p->n_slots;
  if (m > DFS_MAX_BUFFERS) return 1;
  int rc = berth_alloc_graph_init(&e->graph, p, DFS_MAX_PAIRS);
  if (rc != 0) return rc;
  dfs_sweep_t w;
  memset(&w, 0, sizeof w);
  int64_t n_sec = 0, n_ent = 0;
  rc = -1;
  if (!dfs_sweep_init(&w, p)) goto out;
  if (dfs_count_sections(&w, T, &n_sec, &n_ent)) {
    rc = 1;
    goto out;
  }
  e->S = (int32_t)n_sec;
  e->sec_first = malloc(((size_t)n_sec + 1) * sizeof *e->sec_first);
  e->sec_mem = malloc(((size_t)n_ent + 1) * sizeof *e->sec_mem);
  e->rs_lo = malloc(((size_t)nr + 1) * sizeof *e->rs_lo);
  e->rs_hi = malloc(((size_t)nr + 1) * sizeof *e->rs_hi);
  if (!e->sec_first || !e->sec_mem || !e->rs_lo || !e->rs_hi) goto out;
  dfs_fill_sections(e, &w, T);
  if (!dfs_alloc_search(e, m)) goto out;
  for (int32_t b = 0; b < m; b++) {
    e->hull_lo[b] = e->rs_lo[p->iv_first[b]];
    e->hull_hi[b] = e->rs_hi[p->iv_first[b + 1] - 1];
    e->width[b] = (double)p->length[b];
  }
  rc = 0;
out:
  dfs_sweep_free(&w);
  return rc;
}


/* ---- memo of failed groups -------------------------------------------------------------- */

#define MEMO_MAX_WORDS ((size_t)4 << 20) /* 32 MiB of keys; then the memo starts over */

static uint64_t mix64(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

static uint64_t group_hash(const exact_t *e, size_t list, int32_t n, int32_t s0, int32_t s1) {
  uint64_t h = mix64((uint64_t)s0, (uint64_t)s1);
  for (int32_t i = 0; i < n; i++) {
    int32_t b = e->stk[list + i];
    h = mix64(h, (uint64_t)b);
    h = mix64(h, e->minoff[b]);
  }
  return h;
}

static bool group_equal(const exact_t *e, const uint64_t *w, size_t list, int32_t n, int32_t s0, int32_t s1) {
  if (w[0] != ((uint64_t)(uint32_t)s0 | ((uint64_t)(uint32_t)s1 << 32)) || w[1] != (uint64_t)n) return false;
  for (int32_t i = 0; i < n; i++) {
    int32_t b = e->stk[list + i];
    if (w[3 + 2 * i] != (uint64_t)b || w[4 + 2 * i] != e->minoff[b]) return false;
  }
  return true;
}

/* The slot for this group: its entry, or the empty slot where it would go. */
static int64_t *memo_find(exact_t *e, uint64_t h, size_t list, int32_t n, int32_t s0, int32_t s1) {
  if (!e->memo_slots) return NULL;
  size_t i = (size_t)h & (e->memo_slots - 1);
  while (e->memo_slot[i] >= 0) {
    if (group_equal(e, e->memo_words + e->memo_slot[i], list, n, s0, s1)) return &e->memo_slot[i];
    i = (i + 1) & (e->memo_slots - 1);
  }
  return &e->memo_slot[i];
}

static void memo_clear(exact_t *e) {
  for (size_t i = 0; i < e->memo_slots; i++) e->memo_slot[i] = -1;
  e->memo_used = 0;
  e->n_memo_words = 0;
}

/* Records that the group fails at capacity e->cap. Silently skips when out of room. */
static void memo_add(exact_t *e, uint64_t h, size_t list, int32_t n, int32_t s0, int32_t s1) {
  if (!e->memo_slots) {
    e->memo_slot = malloc(4096 * sizeof *e->memo_slot);
    if (!e->memo_slot) return;
    e->memo_slots = 4096;
    memo_clear(e);
  }
  int64_t *slot = memo_find(e, h, list, n, s0, s1);
  if (*slot >= 0) {
    if (e->memo_words[*slot + 2] < e->cap) e->memo_words[*slot + 2] = e->cap;
    return;
  }
  size_t need = 3 + 2 * (size_t)n;
  if (e->n_memo_words + need > MEMO_MAX_WORDS) {
    memo_clear(e);
    slot = memo_find(e, h, list, n, s0, s1);
  }
  if (!grow((void **)&e->memo_words, &e->cap_memo_words, e->n_memo_words + need, sizeof *e->memo_words)) return;
  uint64_t *w = e->memo_words + e->n_memo_words;
  w[0] = (uint64_t)(uint32_t)s0 | ((uint64_t)(uint32_t)s1 << 32);
  w[1] = (uint64_t)n;
  w[2] = e->cap;
  for (int32_t i = 0; i < n; i++) {
    int32_t b = e->stk[list + i];
    w[3 + 2 * i] = (uint64_t)b;
    w[4 + 2 * i] = e->minoff[b];
  }
  *slot = (int64_t)e->n_memo_words;
  e->n_memo_words += need;
  if (++e->memo_used * 2 > e->memo_slots) { /* rehash into twice the slots */
    size_t ns = e->memo_slots * 2;
    int64_t *nslot = malloc(ns * sizeof *nslot);
    if (!nslot) return;
    for (size_t i = 0; i < ns; i++) nslot[i] = -1;
    for (size_t i = 0; i < e->memo_slots; i++) {
      int64_t at = e->memo_slot[i];
      if (at < 0) continue;
      const uint64_t *x = e->memo_words + at;
      uint64_t hh = mix64(x[0] & 0xffffffffu, x[0] >> 32);
      for (uint64_t k = 0; k < x[1]; k++) {
        hh = mix64(hh, x[3 + 2 * k]);
        hh = mix64(hh, x[4 + 2 * k]);
      }
      size_t j = (size_t)hh & (ns - 1);
      while (nslot[j] >= 0) j = (j + 1) & (ns - 1);
      nslot[j] = at;
    }
    free(e->memo_slot);
    e->memo_slot = nslot;
    e->memo_slots = ns;
  }
}

/* ---- the decision search -------------------------------------------------------------- */

/* Groups are lists of buffers kept on e->stk, passed by position (the stack may move). */
static int search(exact_t *e, size_t list, int32_t n, int32_t s0, int32_t s1, uint64_t last_off, int32_t last_rank);

typedef struct pre_key {
  double k[3];
  int32_t buf;
} pre_key_t;

static int cmp_pre(const void *a, const void *b) {
  const pre_key_t *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x->k[i] != y->k[i]) return x->k[i] > y->k[i] ? -1 : 1;
  return (x->buf > y->buf) - (x->buf < y->buf);
}

/* Solves one independent group: ranks its buffers by the current heuristic, searches,
 * and restores the ranks it overwrote. */
static int solve_group(exact_t *e, size_t list, int32_t n, int32_t s0, int32_t s1) {
  const berth_alloc_prep_t *p = e->p;
  uint64_t h = group_hash(e, list, n, s0, s1);
  int64_t *hit = memo_find(e, h, list, n, s0, s1);
  if (hit && *hit >= 0 && e->memo_words[*hit + 2] >= e->cap) {
    return RES_NOT_FOUND;
  }
  pre_key_t *keys = malloc(((size_t)n + 1) * sizeof *keys);
  size_t mark = e->n_stk;
  int32_t *saved = stk_push(e, 2 * (size_t)n); /* ranks, then list positions */
  if (!keys || !saved) {
    free(keys);
    e->oom = true;
    return RES_ABORTED;
  }
  for (int32_t i = 0; i < n; i++) {
    int32_t b = e->stk[list + i];
    saved[i] = e->rank[b];
    saved[n + i] = e->lpos[b];
    e->lpos[b] = i;
    uint64_t tot = 0;
    for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++)
      for (int32_t s = e->rs_lo[r]; s < e->rs_hi[r]; s++)
        if (e->total[s] > tot) tot = e->total[s];
    double w = e->width[b], a = (double)p->size[b] * e->width[b], t = (double)tot;
    keys[i].buf = b;
    int order = e->heuristic % BERTH_ALLOC_DFS_HEURISTICS;
    if (e->heuristic >= BERTH_ALLOC_DFS_HEURISTICS) {
      /* Perturbed: +-25% noise per key, which in effect orders by the noisy first key
       * alone. Three in four are WAT (noisy width), the rest TAW: on the minimalloc
       * benchmarks nearly every perturbed order that reaches the lower bound is a noisy
       * width, and it does so within a few times m nodes. */
      order = (e->heuristic & 3) == 3 ? 1 : 0;
      uint64_t st = ((uint64_t)e->heuristic << 32) ^ (uint64_t)b;
      for (int q = 0; q < 3; q++) {
        double noise = 0.75 + 0.5 * (double)(berth_alloc_rand(&st) >> 11) / 9007199254740992.0;
        if (q == 0) w *= noise;
        else if (q == 1) a *= noise;
        else t *= noise;
      }
    }
    switch (order) { /* "WAT", "TAW", "TWA" */
      case 0: keys[i].k[0] = w, keys[i].k[1] = a, keys[i].k[2] = t; break;
      case 1: keys[i].k[0] = t, keys[i].k[1] = a, keys[i].k[2] = w; break;
      default: keys[i].k[0] = t, keys[i].k[1] = w, keys[i].k[2] = a; break;
    }
  }
  qsort(keys, (size_t)n, sizeof *keys, cmp_pre);
  for (int32_t i = 0; i < n; i++) e->rank[keys[i].buf] = i;
  free(keys);
  /* The memo key below needs the list in its original (ascending) order; search only
   * permutes it, so sort it back (it is short: a group). */
  int res = search(e, list, n, s0, s1, 0, -1);
  qsort(e->stk + list, (size_t)n, sizeof *e->stk, cmp_i32);
  for (int32_t i = 0; i < n; i++) {
    int32_t b = e->stk[list + i];
    e->rank[b] = e->stk[mark + i];
    e->lpos[b] = e->stk[mark + n + i];
  }
  e->n_stk = mark;
  if (res == RES_NOT_FOUND) memo_add(e, h, list, n, s0, s1);
  return res;
}

static int cmp_cand(const void *a, const void *b) {
  const cand_t *x = a, *y = b;
  if (x->minoff != y->minoff) return x->minoff < y->minoff ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* umin[s] is the lowest minimum offset among the unplaced buffers of section s and ucnt[s]
 * how many have it; rescanning the section is needed only when the last of those goes. */
static void touch(exact_t *e, int32_t s) {
  if (e->touched_mark[s]) return;
  e->touched_mark[s] = 1;
  e->touched[e->n_touched++] = s;
}

static void umin_rescan(exact_t *e, int32_t s) {
  touch(e, s);
  uint64_t lo = UNPLACED;
  int32_t cnt = 0;
  for (int32_t k = e->sec_first[s]; k < e->sec_first[s + 1]; k++) {
    int32_t u = e->sec_mem[k];
    if (e->off[u] != UNPLACED) continue;
    if (e->minoff[u] < lo) {
      lo = e->minoff[u];
      cnt = 1;
    } else if (e->minoff[u] == lo) {
      cnt++;
    }
  }
  e->umin[s] = lo;
  e->ucnt[s] = cnt;
}

/* Buffer u (unplaced until now, minimum offset old) leaves the set that umin[s] ranges
 * over, for each of its sections, or its minimum offset rises above old. A section whose
 * last minimum goes is rescanned once, after the whole placement (place()). Each
 * section is trailed once per placement: undo always restores a whole placement. */
static bool umin_leave(exact_t *e, int32_t u, uint64_t old) {
  const berth_alloc_prep_t *p = e->p;
  for (int32_t r = p->iv_first[u]; r < p->iv_first[u + 1]; r++)
    for (int32_t s = e->rs_lo[r]; s < e->rs_hi[r]; s++) {
      if (e->umin[s] != old || e->sec_stamp[s] == e->stamp + 1) continue; /* or rescan pending */
      if (e->sec_stamp[s] != e->stamp) {
        if (!trail_push(e, TRAIL_UMIN, s, e->umin[s], e->ucnt[s])) return false;
        e->sec_stamp[s] = e->stamp;
      }
      if (--e->ucnt[s] == 0) {
        e->sec_stamp[s] = e->stamp + 1;
        e->rescan[e->n_rescan++] = s;
      }
    }
  return true;
}

/* Places b at off: raises its unplaced neighbours' minimum offsets (and so the floors of
 * their sections) and drops its size from the totals of its sections. */
static bool place(exact_t *e, int32_t b, uint64_t off) {
  const berth_alloc_prep_t *p = e->p;
  uint64_t top = off + p->size[b];
  e->off[b] = off;
  e->sol[b] = off;
  e->n_touched = 0;
  e->n_rescan = 0;
  e->stamp += 2; /* stamp: trailed in this placement; stamp + 1: rescan pending */
  /* In b's own sections every unplaced buffer is b's neighbour and now starts at or
   * above b's top, but often well above it (lifted earlier by buffers live at other
   * times): the floor is rescanned, exactly. (Taking b's top as the floor is cheaper
   * but much weaker: minimalloc instance F goes from 12 thousand nodes to millions.) */
  for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++)
    for (int32_t s = e->rs_lo[r]; s < e->rs_hi[r]; s++) {
      e->total[s] -= p->size[b];
      if (!trail_push(e, TRAIL_UMIN, s, e->umin[s], e->ucnt[s])) return false;
      e->sec_stamp[s] = e->stamp + 1;
      e->rescan[e->n_rescan++] = s;
    }
  for (int64_t k = e->graph.first[b]; k < e->graph.first[b + 1]; k++) {
    int32_t u = e->graph.adj[k];
    e->open_deg[u]--;
    if (e->off[u] != UNPLACED) continue;
    uint64_t nm = berth_alloc_align_up(top, p->align[u]);
    uint64_t old = e->minoff[u];
    if (old >= nm) continue;
    if (!trail_push(e, TRAIL_MINOFF, u, old, 0)) return false;
    e->minoff[u] = nm;
    if (!umin_leave(e, u, old)) return false;
  }
  for (int32_t i = 0; i < e->n_rescan; i++) {
    int32_t s = e->rescan[i];
    e->sec_stamp[s] = e->stamp;
    umin_rescan(e, s);
  }
  return true;
}

static void unplace(exact_t *e, int32_t b, size_t mark) {
  const berth_alloc_prep_t *p = e->p;
  trail_undo(e, mark);
  for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++)
    for (int32_t s = e->rs_lo[r]; s < e->rs_hi[r]; s++) e->total[s] += p->size[b];
  for (int64_t k = e->graph.first[b]; k < e->graph.first[b + 1]; k++) e->open_deg[e->graph.adj[k]]++;
  e->off[b] = UNPLACED;
}

/* After place(): can the sections whose floor or total just changed still hold their
 * unplaced buffers? (Their floor is the lowest minimum offset of an unplaced buffer, which
 * is at least every placed top in the section; the rest of the bound, max with the
 * current offset, is checked by the next search node for all sections at once.) */
static bool sections_ok(exact_t *e, int32_t s0, int32_t s1, uint64_t off) {
  bool ok = true;
  for (int32_t i = 0; i < e->n_touched; i++) {
    int32_t s = e->touched[i];
    e->touched_mark[s] = 0;
    if (!ok || s < s0 || s >= s1 || e->total[s] == 0) continue;
    uint64_t f = e->umin[s] > off ? e->umin[s] : off;
    if (f > e->cap || e->total[s] > e->cap - f) ok = false;
  }
  e->n_touched = 0;
  return ok;
}

/* After placing b in the group [s0, s1): if some boundary inside the group is no longer
 * spanned by an unplaced buffer, solves the pieces on their own. Returns -1 if there is
 * no split (the caller continues the search), else the result. */
static int split(exact_t *e, size_t list, int32_t n, int32_t s0, int32_t s1, int32_t b) {
  int32_t lo = e->hull_lo[b], hi = e->hull_hi[b];
  bool any = false;
  for (int32_t s = lo; s + 1 < hi; s++)
    if (--e->cuts[s] == 0 && s >= s0 && s + 1 < s1) any = true;
  int res = -1;
  if (any) {
    res = RES_FOUND;
    int32_t start = s0;
    for (int32_t s = s0; s < s1 && res == RES_FOUND; s++) {
      if (s + 1 < s1 && e->cuts[s] != 0) continue;
      /* The piece is sections [start, s + 1). */
      size_t mark = e->n_stk;
      int32_t k = 0;
      int32_t *sub = stk_push(e, (size_t)n);
      if (!sub) {
        res = RES_ABORTED;
        break;
      }
      for (int32_t i = 0; i < n; i++) {
        int32_t u = e->stk[list + i];
        if (e->hull_lo[u] <= s && e->hull_hi[u] > start) sub[k++] = u;
      }
      qsort(sub, (size_t)k, sizeof *sub, cmp_i32); /* a canonical key for the memo */
      if (k > 0) res = solve_group(e, mark, k, start, s + 1);
      e->n_stk = mark;
      start = s + 1;
    }
  }
  for (int32_t s = lo; s + 1 < hi; s++) e->cuts[s]++;
  return res;
}

/* Buffers behind the canonical front (below it, or at it with a lower rank) can only be
 * placed once a neighbour placed later, at or above the front, lifts them: such a buffer
 * u starts no lower than lift(u) = min over its unplaced neighbours w of
 * max(front, minoff(w)) + size(w). So a section can hold its unplaced buffers only if
 * one of them can start at or below cap - total: a buffer not behind the front at its
 * minimum offset, one behind it at its lift. This catches early what otherwise shows
 * only after many placements elsewhere, once the front has passed the point where the
 * section had to start its remaining stack. Lifts are computed lazily, and a scan stops
 * as soon as it finds a start low enough. */
static bool behind_ok(exact_t *e, int32_t s0, int32_t s1, uint64_t front, int32_t front_rank) {
  const berth_alloc_prep_t *p = e->p;
  if (front_rank < 0 || e->no_lifts) return true; /* a group's first node: nothing is behind */
  uint64_t stamp = ++e->eff_stamp;
  for (int32_t s = s0; s < s1; s++) {
    /* A section whose lowest minimum offset is above the front has nothing behind it
     * (and sections_ok and the candidate filter check the rest). */
    if (e->total[s] == 0 || e->umin[s] > front) continue;
    if (e->total[s] > e->cap || front > e->cap - e->total[s]) return false;
    uint64_t limit = e->cap - e->total[s]; /* the highest start the section allows */
    bool ok = false;
    for (int32_t k = e->sec_first[s]; k < e->sec_first[s + 1] && !ok; k++) {
      int32_t u = e->sec_mem[k];
      if (e->off[u] != UNPLACED) continue;
      uint64_t mo = e->minoff[u];
      if (mo > front || (mo == front && e->rank[u] > front_rank)) {
        ok = mo <= limit;
        continue;
      }
      if (e->eff_at[u] == stamp) {
        ok = e->eff[u] <= limit;
        continue;
      }
      uint64_t lift = UNPLACED;
      for (int64_t q = e->graph.first[u]; q < e->graph.first[u + 1]; q++) {
        int32_t w = e->graph.adj[q];
        if (e->off[w] != UNPLACED) continue;
        uint64_t t = (e->minoff[w] > front ? e->minoff[w] : front) + p->size[w];
        t = berth_alloc_align_up(t, p->align[u]);
        if (t <= limit) { /* low enough: the exact lift is not needed */
          lift = t;
          ok = true;
          break;
        }
        if (t < lift) lift = t;
      }
      if (!ok) {
        e->eff[u] = lift;
        e->eff_at[u] = stamp;
      }
    }
    if (!ok) return false;
  }
  return true;
}

static int search(exact_t *e, size_t list, int32_t n, int32_t s0, int32_t s1, uint64_t last_off, int32_t last_rank) {
  const berth_alloc_prep_t *p = e->p;
  if (n == 0) return RES_FOUND;
  if (e->nodes >= e->node_limit || e->oom) return RES_ABORTED;
  e->nodes++;
  e->work += n; /* a node weighs its unplaced buffers: the work of its candidate scan */
  if ((e->nodes & 15) == 0) {
    berth_alloc_clock_tick(e->clock, e->work);
    e->work = 0;
  }
  if ((e->nodes & 15) == 0 && berth_alloc_clock_out(e->clock)) {
    e->timed_out = true;
    return RES_ABORTED;
  }
  /* list[0 .. n) are the group's unplaced buffers (placed ones are swapped behind). */
  const int32_t *lst = e->stk + list; /* no push until the loops below are done */
  /* The lowest top any unplaced buffer could have: a buffer placed at or above it leaves
   * room that buffer would take (dominance). */
  uint64_t min_top = UNPLACED;
  for (int32_t i = 0; i < n; i++) {
    int32_t b = lst[i];
    uint64_t t = e->minoff[b] + p->size[b];
    if (t < min_top) min_top = t;
    /* A buffer below the canonical front whose minimum offset can no longer rise (no
     * unplaced neighbour) can never be placed: this branch is dead. */
    if (e->open_deg[b] == 0 &&
        (e->minoff[b] < last_off || (e->minoff[b] == last_off && e->rank[b] < last_rank)))
      return RES_NOT_FOUND;
  }
  if (!behind_ok(e, s0, s1, last_off, last_rank)) return RES_NOT_FOUND;
  /* Whatever is placed next, every later buffer sits at or above its offset (canonical
   * order), so an offset above cap - total[s] overfills section s. */
  uint64_t max_off = e->cap;
  for (int32_t s = s0; s < s1; s++)
    if (e->total[s] > 0 && e->cap - e->total[s] < max_off) max_off = e->cap - e->total[s];
  size_t c0 = e->n_cands;
  for (int32_t i = 0; i < n; i++) {
    int32_t b = lst[i];
    uint64_t mo = e->minoff[b];
    if (mo >= min_top || mo > max_off) continue;
    if (mo < last_off || (mo == last_off && e->rank[b] < last_rank)) continue; /* canonical order */
    if (mo + p->size[b] > e->cap) continue;
    if (!grow((void **)&e->cands, &e->cap_cands, e->n_cands + 1, sizeof *e->cands)) {
      e->oom = true;
      return RES_ABORTED;
    }
    e->cands[e->n_cands++] = (cand_t){mo, e->rank[b], b};
  }
  size_t c1 = e->n_cands;
  if (c1 - c0 > 48) {
    qsort(e->cands + c0, c1 - c0, sizeof *e->cands, cmp_cand);
  } else {
    for (size_t i = c0 + 1; i < c1; i++) {
      cand_t x = e->cands[i];
      size_t j = i;
      while (j > c0 && cmp_cand(&x, &e->cands[j - 1]) < 0) {
        e->cands[j] = e->cands[j - 1];
        j--;
      }
      e->cands[j] = x;
    }
  }
  int res = RES_NOT_FOUND;
  for (size_t c = c0; c < c1 && res == RES_NOT_FOUND; c++) {
    int32_t b = e->cands[c].buf;
    uint64_t mo = e->cands[c].minoff;
    size_t mark = e->n_trail;
    /* Nothing can go on top of b: it sits where it is in every completion, and every
     * later candidate would strand it below the canonical front. */
    bool hatless = e->open_deg[b] == 0;
    /* Move b behind the unplaced part of the list. */
    int32_t *l = e->stk + list;
    int32_t at = e->lpos[b], last = l[n - 1];
    l[at] = last;
    e->lpos[last] = at;
    l[n - 1] = b;
    e->lpos[b] = n - 1;
    if (!place(e, b, mo)) {
      res = RES_ABORTED;
      for (int32_t i = 0; i < e->n_touched; i++) e->touched_mark[e->touched[i]] = 0;
      e->n_touched = 0;
    } else if (sections_ok(e, s0, s1, mo)) {
      res = split(e, list, n - 1, s0, s1, b);
      if (res < 0) res = search(e, list, n - 1, s0, s1, mo, e->cands[c].rank);
    }
    unplace(e, b, mark);
    if (hatless) break;
  }
  e->n_cands = c0;
  return res;
}

/* ---- interface ------------------------------------------------------------------------- */

berth_alloc_dfs_t *berth_alloc_dfs_create(const berth_alloc_prep_t *prep, int *status) {
  exact_t *e = malloc(sizeof *e);
  if (!e) {
    *status = -1;
    return NULL;
  }
  int rc = dfs_build(e, prep);
  if (rc != 0) {
    dfs_free(e);
    free(e);
    *status = rc;
    return NULL;
  }
  *status = 0;
  return e;
}

void berth_alloc_dfs_destroy(berth_alloc_dfs_t *d) {
  if (!d) return;
  dfs_free(d);
  free(d);
}

int64_t berth_alloc_dfs_nodes(const berth_alloc_dfs_t *d) { return d->nodes; }

bool berth_alloc_dfs_out_of_memory(const berth_alloc_dfs_t *d) { return d->oom; }

void berth_alloc_dfs_use_lifts(berth_alloc_dfs_t *d, bool on) { d->no_lifts = !on; }

int berth_alloc_dfs_decide(berth_alloc_dfs_t *e, uint64_t cap, int heuristic, int64_t node_limit, berth_alloc_clock_t *clock,
                           uint64_t *off) {
  const berth_alloc_prep_t *p = e->p;
  e->cap = cap;
  e->heuristic = heuristic < 0 ? 0 : heuristic;
  e->clock = clock;
  e->work = 0;
  e->timed_out = false;
  e->nodes = 0;
  e->node_limit = node_limit;
  e->n_trail = e->n_stk = e->n_cands = 0;
  for (int32_t b = 0; b < e->m; b++) {
    e->off[b] = UNPLACED;
    e->minoff[b] = 0;
    e->rank[b] = 0;
    e->open_deg[b] = (int32_t)(e->graph.first[b + 1] - e->graph.first[b]);
  }
  for (int32_t s = 0; s < e->S; s++) {
    e->total[s] = 0;
    e->cuts[s] = 0;
  }
  for (int32_t s = 0; s < e->S; s++) {
    for (int32_t k = e->sec_first[s]; k < e->sec_first[s + 1]; k++) e->total[s] += p->size[e->sec_mem[k]];
    e->umin[s] = e->sec_first[s + 1] > e->sec_first[s] ? 0 : UNPLACED;
    e->ucnt[s] = e->sec_first[s + 1] - e->sec_first[s];
  }
  for (int32_t b = 0; b < e->m; b++)
    for (int32_t s = e->hull_lo[b]; s + 1 < e->hull_hi[b]; s++) e->cuts[s]++;
  /* Independent groups from the start: boundaries no buffer spans. */
  int res = RES_FOUND;
  int32_t start = 0;
  for (int32_t s = 0; s < e->S && res == RES_FOUND; s++) {
    if (s + 1 < e->S && e->cuts[s] != 0) continue;
    size_t mark = e->n_stk;
    int32_t k = 0;
    int32_t *sub = stk_push(e, (size_t)e->m);
    if (!sub) return RES_ABORTED;
    for (int32_t b = 0; b < e->m; b++)
      if (e->hull_lo[b] <= s && e->hull_hi[b] > start) sub[k++] = b;
    if (k > 0) res = solve_group(e, mark, k, start, s + 1);
    e->n_stk = mark;
    start = s + 1;
  }
  if (e->oom) res = RES_ABORTED;
  if (res == RES_FOUND) memcpy(off, e->sol, (size_t)e->m * sizeof *off);
  return res;
}


