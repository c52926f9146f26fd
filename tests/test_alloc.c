/* Tests of the allocation algorithms (src/plan/alloc_*.c): every algorithm on random
 * problems, validated by the independent checker; exact against a brute-force optimum on
 * small problems; the branch and bound's decision search against every stacking order; multi-interval, zero-size and aligned buffers; problem validation; the
 * lower bound against a direct per-time sum; and the checker against corrupted plans.
 *
 * Usage: test_alloc [SEED]   (seed of the random problems; printed on failure) */
#include "test_util.h"

#include "berth/alloc.h"
#include "plan/alloc_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_seed = 12345;

static uint64_t rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int64_t rnd_in(uint64_t *s, int64_t lo, int64_t hi) { return lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1)); }

/* A random problem with storage owned by the struct. */
typedef struct rproblem {
  berth_alloc_problem_t p;
  berth_alloc_buffer_t *buf;
  berth_interval_t *iv;
} rproblem_t;

static void rproblem_free(rproblem_t *r) {
  free(r->buf);
  free(r->iv);
}

/* n buffers on times [0, T); up to max_iv disjoint intervals each; sizes in [0, max_size]
 * (0 now and then); alignment 1, 2, 4 or 8 when aligned. */
static rproblem_t random_problem(uint64_t *s, int32_t n, int64_t T, int max_iv, uint64_t max_size, bool aligned) {
  rproblem_t r;
  r.buf = calloc((size_t)n + 1, sizeof *r.buf);
  r.iv = calloc((size_t)n * (size_t)max_iv + 1, sizeof *r.iv);
  int32_t k = 0;
  for (int32_t i = 0; i < n; i++) {
    berth_alloc_buffer_t *b = &r.buf[i];
    b->size = rnd(s) % 10 == 0 ? 0 : (uint64_t)rnd_in(s, 1, (int64_t)max_size);
    b->align = aligned ? (uint64_t)1 << rnd_in(s, 0, 3) : (uint64_t)rnd_in(s, 0, 1);
    int n_iv = (int)rnd_in(s, 1, max_iv);
    b->intervals = &r.iv[k];
    int64_t t = rnd_in(s, 0, T / 2);
    int32_t got = 0;
    for (int j = 0; j < n_iv && t < T; j++) {
      int64_t len = rnd_in(s, 1, T / 3 + 1);
      int64_t hi = t + len < T ? t + len : T;
      r.iv[k].lower = t;
      r.iv[k].upper = hi;
      k++;
      got++;
      t = hi + rnd_in(s, 0, 3); /* touching (gap 0) is allowed */
    }
    b->n_intervals = got;
  }
  r.p.n = n;
  r.p.buffers = r.buf;
  r.p.names = NULL;
  return r;
}

static bool conflict(const berth_alloc_buffer_t *a, const berth_alloc_buffer_t *b) {
  if (a->size == 0 || b->size == 0) return false;
  for (int32_t i = 0; i < a->n_intervals; i++)
    for (int32_t j = 0; j < b->n_intervals; j++)
      if (a->intervals[i].lower < b->intervals[j].upper && b->intervals[j].lower < a->intervals[i].upper) return true;
  return false;
}

/* ---- brute force: the optimum of a tiny problem ------------------------------------------- */

typedef struct brute {
  const berth_alloc_problem_t *p;
  int32_t order[16];
  uint64_t off[16];
  uint64_t best;
} brute_t;

static void brute_rec(brute_t *b, int32_t k, uint64_t top) {
  if (top >= b->best) return;
  if (k == b->p->n) {
    b->best = top;
    return;
  }
  int32_t i = b->order[k];
  const berth_alloc_buffer_t *x = &b->p->buffers[i];
  uint64_t al = x->align > 1 ? x->align : 1;
  if (x->size == 0 || x->n_intervals == 0) {
    brute_rec(b, k + 1, top);
    return;
  }
  for (uint64_t o = 0; o + x->size < b->best; o += al) {
    bool ok = true;
    for (int32_t q = 0; q < k && ok; q++) {
      int32_t j = b->order[q];
      const berth_alloc_buffer_t *y = &b->p->buffers[j];
      if (conflict(x, y) && o < b->off[j] + y->size && b->off[j] < o + x->size) ok = false;
    }
    if (!ok) continue;
    b->off[i] = o;
    brute_rec(b, k + 1, o + x->size > top ? o + x->size : top);
  }
}

static uint64_t brute_optimum(const berth_alloc_problem_t *p) {
  brute_t b;
  b.p = p;
  b.best = 1;
  for (int32_t i = 0; i < p->n; i++) {
    b.order[i] = i;
    b.best += p->buffers[i].size + (p->buffers[i].align > 1 ? p->buffers[i].align : 0);
  }
  /* Larger first prunes sooner. */
  for (int32_t i = 1; i < p->n; i++)
    for (int32_t j = i; j > 0 && p->buffers[b.order[j]].size > p->buffers[b.order[j - 1]].size; j--) {
      int32_t t = b.order[j];
      b.order[j] = b.order[j - 1];
      b.order[j - 1] = t;
    }
  brute_rec(&b, 0, 0);
  return b.best;
}

/* ---- helpers ------------------------------------------------------------------------------- */

/* Is buffer j live at t for the bound: on one of its intervals, or in a gap between two
 * of them that no interval of a buffer with bytes lies inside (alloc_bound.c)? */
static bool bound_live(const berth_alloc_problem_t *p, int32_t j, int64_t t) {
  const berth_alloc_buffer_t *b = &p->buffers[j];
  for (int32_t q = 0; q < b->n_intervals; q++) {
    if (b->intervals[q].lower <= t && t < b->intervals[q].upper) return true;
    if (q + 1 < b->n_intervals && b->intervals[q].upper <= t && t < b->intervals[q + 1].lower) {
      int64_t g = b->intervals[q].upper, h = b->intervals[q + 1].lower;
      for (int32_t x = 0; x < p->n; x++)
        for (int32_t y = 0; x != j && p->buffers[x].size > 0 && y < p->buffers[x].n_intervals; y++)
          if (p->buffers[x].intervals[y].lower >= g && p->buffers[x].intervals[y].upper <= h) return false;
      return true;
    }
  }
  return false;
}

/* The lower bound by its definition, at every interval end point: the sizes live there
 * (bound_live) rounded up to the smallest alignment taking part, minus the largest
 * padding among them. */
static uint64_t direct_lower_bound(const berth_alloc_problem_t *p) {
  uint64_t a = 0, best = 0;
  for (int32_t i = 0; i < p->n; i++)
    if (p->buffers[i].size > 0 && p->buffers[i].n_intervals > 0) {
      uint64_t al = p->buffers[i].align > 1 ? p->buffers[i].align : 1;
      if (a == 0 || al < a) a = al;
    }
  for (int32_t i = 0; i < p->n; i++)
    for (int32_t k = 0; k < 2 * p->buffers[i].n_intervals; k++) {
      int64_t t = k & 1 ? p->buffers[i].intervals[k / 2].upper : p->buffers[i].intervals[k / 2].lower;
      uint64_t sum = 0, pad = 0;
      for (int32_t j = 0; j < p->n; j++)
        if (p->buffers[j].size > 0 && bound_live(p, j, t)) {
          uint64_t r = (p->buffers[j].size + a - 1) / a * a;
          sum += r;
          if (r - p->buffers[j].size > pad) pad = r - p->buffers[j].size;
        }
      if (sum - pad > best) best = sum - pad;
    }
  return best;
}

/* Solves with algo, checks the plan, returns the arena (UINT64_MAX on failure). */
static uint64_t solve_checked(const berth_alloc_problem_t *p, berth_alloc_algo_t algo, int64_t budget, int fit,
                              berth_alloc_result_t *res, const char *what) {
  uint64_t *off = malloc(((size_t)p->n + 1) * sizeof *off);
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_alloc_options_t o = berth_alloc_options_default();
  o.algo = algo;
  o.budget_ms = budget;
  o.fit = fit;
  o.seed = g_seed;
  berth_alloc_result_t r;
  berth_status_t st = berth_alloc_solve(p, &o, off, &r, &diag);
  CHECK_MSG(st == BERTH_OK, "%s: %s failed: %s (seed %llu)", what, berth_alloc_algo_name(algo), msg,
            (unsigned long long)g_seed);
  if (st) {
    free(off);
    return UINT64_MAX;
  }
  st = berth_alloc_check(p, off, r.arena, &diag);
  CHECK_MSG(st == BERTH_OK, "%s: %s plan invalid: %s (seed %llu)", what, berth_alloc_algo_name(algo), msg,
            (unsigned long long)g_seed);
  uint64_t real = 0;
  for (int32_t i = 0; i < p->n; i++)
    if (off[i] + p->buffers[i].size > real) real = off[i] + p->buffers[i].size;
  CHECK_MSG(real == r.arena, "%s: %s reports arena %llu, plan reaches %llu", what, berth_alloc_algo_name(algo),
            (unsigned long long)r.arena, (unsigned long long)real);
  CHECK_MSG(r.arena >= r.lower_bound, "%s: %s arena %llu below the lower bound %llu (seed %llu)", what,
            berth_alloc_algo_name(algo), (unsigned long long)r.arena, (unsigned long long)r.lower_bound,
            (unsigned long long)g_seed);
  if (res) *res = r;
  free(off);
  return r.arena;
}

static berth_alloc_buffer_t buf1(uint64_t size, uint64_t align, const berth_interval_t *iv, int32_t n) {
  berth_alloc_buffer_t b;
  b.size = size;
  b.align = align;
  b.n_intervals = n;
  b.intervals = iv;
  return b;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_names(void) {
  for (int a = 0; a <= BERTH_ALLOC_EXACT; a++) {
    berth_alloc_algo_t back;
    CHECK(berth_alloc_algo_from_name(berth_alloc_algo_name((berth_alloc_algo_t)a), &back));
    CHECK(back == (berth_alloc_algo_t)a);
  }
  berth_alloc_algo_t x;
  CHECK(!berth_alloc_algo_from_name("best", &x));
  CHECK(!berth_alloc_algo_from_name(NULL, &x));
  CHECK(strcmp(berth_alloc_algo_name((berth_alloc_algo_t)99), "?") == 0);
}

static void test_trivial(void) {
  berth_alloc_problem_t empty = {0, NULL, NULL};
  for (int a = 0; a <= BERTH_ALLOC_EXACT; a++) {
    berth_alloc_result_t r;
    uint64_t arena = solve_checked(&empty, (berth_alloc_algo_t)a, 50, 0, &r, "empty");
    CHECK(arena == 0);
    CHECK(r.optimal);
  }
  CHECK(berth_alloc_lower_bound(&empty) == 0);
  CHECK(berth_alloc_check(&empty, NULL, 0, NULL) == BERTH_OK);

  /* Zero-size buffers and buffers with no interval conflict with nothing. */
  berth_interval_t all[] = {{0, 100}};
  berth_alloc_buffer_t b[] = {buf1(0, 0, all, 1), buf1(64, 16, all, 1), buf1(0, 8, all, 1), buf1(32, 0, NULL, 0),
                              buf1(64, 0, all, 1)};
  berth_alloc_problem_t p = {5, b, NULL};
  CHECK(berth_alloc_lower_bound(&p) == 128);
  for (int a = 0; a <= BERTH_ALLOC_EXACT; a++) {
    berth_alloc_result_t r;
    uint64_t arena = solve_checked(&p, (berth_alloc_algo_t)a, 50, 0, &r, "zero-size");
    if (a != BERTH_ALLOC_NAIVE) CHECK_MSG(arena == 128, "%s: arena %llu", berth_alloc_algo_name((berth_alloc_algo_t)a),
                                          (unsigned long long)arena);
  }
}

/* The minimalloc README example: optimum 12. */
static void test_input12(void) {
  berth_interval_t iv[] = {{0, 3}, {3, 9}, {0, 9}, {9, 21}, {0, 21}};
  berth_alloc_buffer_t b[5];
  for (int i = 0; i < 5; i++) b[i] = buf1(4, 0, &iv[i], 1);
  berth_alloc_problem_t p = {5, b, NULL};
  CHECK(berth_alloc_lower_bound(&p) == 12);
  berth_alloc_result_t r;
  CHECK(solve_checked(&p, BERTH_ALLOC_EXACT, 1000, 0, &r, "input.12") == 12);
  CHECK(r.optimal);
  CHECK(r.proven_bound == 12);
  CHECK(solve_checked(&p, BERTH_ALLOC_NAIVE, 0, 0, &r, "input.12") == 20);
  CHECK(!r.optimal);
}

/* A storage live on two stretches (coalesced values, or values of exclusive branches
 * placed on disjoint stretches of one timeline) shares with what lives in between. */
static void test_multi_interval(void) {
  berth_interval_t a_iv[] = {{0, 2}, {5, 7}}, b_iv[] = {{2, 5}}, c_iv[] = {{1, 6}};
  berth_alloc_buffer_t b[] = {buf1(100, 0, a_iv, 2), buf1(100, 0, b_iv, 1)};
  berth_alloc_problem_t p = {2, b, NULL};
  CHECK(berth_alloc_lower_bound(&p) == 100);
  for (int a = 1; a <= BERTH_ALLOC_EXACT; a++)
    CHECK(solve_checked(&p, (berth_alloc_algo_t)a, 100, 0, NULL, "two stretches") == 100);
  /* Overlapping both stretches forces stacking. */
  berth_alloc_buffer_t b2[] = {buf1(100, 0, a_iv, 2), buf1(100, 0, b_iv, 1), buf1(10, 0, c_iv, 1)};
  berth_alloc_problem_t p2 = {3, b2, NULL};
  CHECK(berth_alloc_lower_bound(&p2) == 110);
  berth_alloc_result_t r;
  CHECK(solve_checked(&p2, BERTH_ALLOC_EXACT, 1000, 0, &r, "three") == 110);
  CHECK(r.optimal);
  /* Offsets that stack a's two stretches on b are fine; the checker must accept. */
  uint64_t off[] = {0, 0, 100};
  CHECK(berth_alloc_check(&p2, off, 110, NULL) == BERTH_OK);
  /* ... and reject c inside a. */
  uint64_t bad[] = {0, 10, 50};
  CHECK(berth_alloc_check(&p2, bad, 150, NULL) == BERTH_ERR_VERIFY_FAILED);
}

static void test_alignment(void) {
  berth_interval_t iv[] = {{0, 10}};
  berth_alloc_buffer_t b[] = {buf1(3, 0, iv, 1), buf1(64, 64, iv, 1), buf1(5, 8, iv, 1), buf1(1, 32, iv, 1)};
  berth_alloc_problem_t p = {4, b, NULL};
  for (int a = 0; a <= BERTH_ALLOC_EXACT; a++) {
    for (int fit = 0; fit <= 2; fit++) {
      uint64_t off[4];
      berth_alloc_options_t o = berth_alloc_options_default();
      o.algo = (berth_alloc_algo_t)a;
      o.fit = fit;
      o.budget_ms = 50;
      berth_alloc_result_t r;
      char msg[256];
      berth_diag_t diag = berth_diag_make(msg, sizeof msg);
      CHECK(berth_alloc_solve(&p, &o, off, &r, &diag) == BERTH_OK);
      CHECK(off[1] % 64 == 0 && off[2] % 8 == 0 && off[3] % 32 == 0);
      CHECK_MSG(berth_alloc_check(&p, off, r.arena, &diag) == BERTH_OK, "%s", msg);
    }
  }
  uint64_t off[] = {0, 64, 4, 128}; /* buffer 2 at 4 breaks its alignment of 8 */
  char msg[256];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_alloc_check(&p, off, 200, &diag) == BERTH_ERR_VERIFY_FAILED);
  CHECK(strstr(msg, "buffer 2") && strstr(msg, "alignment 8"));
}

static void test_validation(void) {
  char msg[256];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  uint64_t off[4];
  berth_interval_t ok[] = {{0, 5}}, empty[] = {{3, 3}}, unsorted[] = {{5, 8}, {0, 6}};
  berth_alloc_buffer_t b1[] = {buf1(8, 3, ok, 1)};
  berth_alloc_problem_t p1 = {1, b1, NULL};
  CHECK(berth_alloc_solve(&p1, NULL, off, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(strstr(msg, "power of two") != NULL);
  berth_alloc_buffer_t b2[] = {buf1(8, 0, empty, 1)};
  berth_alloc_problem_t p2 = {1, b2, NULL};
  CHECK(berth_alloc_solve(&p2, NULL, off, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(strstr(msg, "empty") != NULL);
  const char *names[] = {"x"};
  berth_alloc_buffer_t b3[] = {buf1(8, 0, unsorted, 2)};
  berth_alloc_problem_t p3 = {1, b3, names};
  CHECK(berth_alloc_solve(&p3, NULL, off, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(strstr(msg, "buffer 'x'") != NULL);
  berth_alloc_buffer_t b4[] = {buf1(8, 0, NULL, 1)};
  berth_alloc_problem_t p4 = {1, b4, NULL};
  CHECK(berth_alloc_solve(&p4, NULL, off, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  berth_alloc_problem_t p5 = {2, NULL, NULL};
  CHECK(berth_alloc_solve(&p5, NULL, off, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  berth_alloc_problem_t p6 = {-1, b1, NULL};
  CHECK(berth_alloc_solve(&p6, NULL, off, NULL, &diag) == BERTH_ERR_OUT_OF_RANGE);
  berth_alloc_buffer_t b7[] = {buf1((uint64_t)1 << 62, 0, ok, 1), buf1((uint64_t)1 << 62, 0, ok, 1)};
  berth_alloc_problem_t p7 = {2, b7, NULL};
  CHECK(berth_alloc_solve(&p7, NULL, off, NULL, &diag) == BERTH_ERR_OUT_OF_RANGE);
  berth_alloc_buffer_t b8[] = {buf1(8, 0, ok, 1)};
  berth_alloc_problem_t p8 = {1, b8, NULL};
  berth_alloc_options_t o = berth_alloc_options_default();
  o.fit = 7;
  CHECK(berth_alloc_solve(&p8, &o, off, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  o = berth_alloc_options_default();
  o.algo = (berth_alloc_algo_t)9;
  CHECK(berth_alloc_solve(&p8, &o, off, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_alloc_solve(&p8, NULL, NULL, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  /* Outputs are untouched on failure. */
  uint64_t keep[1] = {77};
  berth_alloc_result_t r;
  memset(&r, 0x5a, sizeof r);
  berth_alloc_result_t r0 = r;
  CHECK(berth_alloc_solve(&p1, NULL, keep, &r, &diag) != BERTH_OK);
  CHECK(keep[0] == 77 && memcmp(&r, &r0, sizeof r) == 0);
}

/* The checker must catch a corrupted offset that makes two live buffers overlap, and name
 * both; and catch a plan that leaves the arena. */
static void test_check_catches(void) {
  uint64_t s = g_seed ^ 0xc0ffee;
  for (int round = 0; round < 40; round++) {
    rproblem_t r = random_problem(&s, 12, 30, 2, 50, round & 1);
    uint64_t *off = malloc((size_t)r.p.n * sizeof *off);
    berth_alloc_options_t o = berth_alloc_options_default();
    berth_alloc_result_t res;
    CHECK(berth_alloc_solve(&r.p, &o, off, &res, NULL) == BERTH_OK);
    CHECK(berth_alloc_check(&r.p, off, res.arena, NULL) == BERTH_OK);
    /* Move some buffer onto a conflicting one. */
    bool done = false;
    for (int32_t i = 0; i < r.p.n && !done; i++)
      for (int32_t j = 0; j < r.p.n && !done; j++) {
        if (i == j || !conflict(&r.buf[i], &r.buf[j])) continue;
        uint64_t save = off[i];
        off[i] = off[j];
        uint64_t al = r.buf[i].align > 1 ? r.buf[i].align : 1;
        off[i] -= off[i] % al;
        /* Still overlapping after aligning down? (sizes >= 1, so yes unless moved below) */
        bool overlap = off[i] < off[j] + r.buf[j].size && off[j] < off[i] + r.buf[i].size;
        if (overlap) {
          char msg[256];
          berth_diag_t diag = berth_diag_make(msg, sizeof msg);
          uint64_t arena = res.arena + r.buf[i].size + al;
          CHECK_MSG(berth_alloc_check(&r.p, off, arena, &diag) == BERTH_ERR_VERIFY_FAILED,
                    "corrupted plan accepted (seed %llu round %d)", (unsigned long long)g_seed, round);
          CHECK(strstr(msg, "overlap") != NULL);
          done = true;
        }
        off[i] = save;
      }
    /* Leaving the arena. */
    if (res.arena > 0) {
      char msg[256];
      berth_diag_t diag = berth_diag_make(msg, sizeof msg);
      CHECK(berth_alloc_check(&r.p, off, res.arena - 1, &diag) == BERTH_ERR_VERIFY_FAILED);
      CHECK(strstr(msg, "arena") != NULL);
    }
    free(off);
    rproblem_free(&r);
  }
  /* Names in messages. */
  berth_interval_t iv[] = {{0, 4}};
  berth_alloc_buffer_t b[] = {buf1(8, 0, iv, 1), buf1(8, 0, iv, 1)};
  const char *names[] = {"left", "right"};
  berth_alloc_problem_t p = {2, b, names};
  uint64_t off[] = {0, 4};
  char msg[256];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_alloc_check(&p, off, 12, &diag) == BERTH_ERR_VERIFY_FAILED);
  CHECK(strstr(msg, "'left'") && strstr(msg, "'right'") && strstr(msg, "time 0"));
}

static void test_lower_bound(void) {
  uint64_t s = g_seed ^ 0xb0b;
  for (int round = 0; round < 300; round++) {
    /* no alignment, mixed alignments, one alignment for all (as the planner asks) */
    rproblem_t r = random_problem(&s, (int32_t)rnd_in(&s, 1, 30), 40, 3, 1000, round % 3 == 1);
    if (round % 3 == 2)
      for (int32_t i = 0; i < r.p.n; i++) r.buf[i].align = (uint64_t)1 << (round % 7);
    uint64_t lb = berth_alloc_lower_bound(&r.p);
    CHECK_MSG(lb == direct_lower_bound(&r.p), "lower bound %llu, direct %llu (seed %llu round %d)",
              (unsigned long long)lb, (unsigned long long)direct_lower_bound(&r.p), (unsigned long long)g_seed, round);
    rproblem_free(&r);
  }
  /* Tiny problems with one alignment: never above the optimum, and the algorithms' own
   * (prepared) bound agrees. */
  for (int round = 0; round < 60; round++) {
    rproblem_t r = random_problem(&s, (int32_t)rnd_in(&s, 1, 6), 8, 2, 40, false);
    for (int32_t i = 0; i < r.p.n; i++) r.buf[i].align = (uint64_t)8 << (round % 3);
    uint64_t lb = berth_alloc_lower_bound(&r.p), opt = brute_optimum(&r.p);
    CHECK_MSG(lb <= opt, "lower bound %llu above the optimum %llu (round %d)", (unsigned long long)lb,
              (unsigned long long)opt, round);
    berth_alloc_result_t res;
    solve_checked(&r.p, BERTH_ALLOC_GREEDY, 0, 0, &res, "aligned bound");
    CHECK(res.lower_bound == lb);
    rproblem_free(&r);
  }
  /* Multi-interval buffers with gaps: never above the optimum (the gap rule's proof in
   * alloc_bound.c), with and without alignment. */
  for (int round = 0; round < 200; round++) {
    rproblem_t r = random_problem(&s, (int32_t)rnd_in(&s, 2, 6), 12, 3, 40, false);
    for (int32_t i = 0; i < r.p.n; i++) r.buf[i].align = (uint64_t)8 << (round % 2); /* keeps brute force small */
    uint64_t lb = berth_alloc_lower_bound(&r.p), opt = brute_optimum(&r.p);
    CHECK_MSG(lb <= opt, "gap bound %llu above the optimum %llu (round %d)", (unsigned long long)lb,
              (unsigned long long)opt, round);
    CHECK(lb == direct_lower_bound(&r.p));
    rproblem_free(&r);
  }
  /* A loop's carried storage g, live at the top of the body and again from its next
   * write, keeps its bytes in between, where x (read with g) and y (written into g) both
   * live: g, x and y pairwise conflict, so 16 + 24 + 32 = 72 is the optimum, which exact
   * proves. Counting g only where it is live gave 56. */
  berth_interval_t g_iv[] = {{0, 2}, {6, 8}}, x_iv[] = {{1, 4}}, y_iv[] = {{3, 7}};
  berth_alloc_buffer_t loop[] = {buf1(16, 8, g_iv, 2), buf1(24, 8, x_iv, 1), buf1(32, 8, y_iv, 1)};
  berth_alloc_problem_t pl = {3, loop, NULL};
  CHECK(berth_alloc_lower_bound(&pl) == 72 && brute_optimum(&pl) == 72);
  berth_alloc_result_t rl;
  CHECK(solve_checked(&pl, BERTH_ALLOC_GREEDY, 0, 0, &rl, "loop bound") == 72);
  CHECK(rl.lower_bound == 72 && rl.optimal);
  /* A value inside the gap that conflicts with nothing else of g lets g's bytes be used:
   * no gap filling then (the bound stays at the live sums). */
  berth_interval_t z_iv[] = {{4, 5}};
  berth_alloc_buffer_t loop2[] = {buf1(16, 8, g_iv, 2), buf1(24, 8, x_iv, 1), buf1(32, 8, y_iv, 1),
                                  buf1(8, 8, z_iv, 1)};
  berth_alloc_problem_t pl2 = {4, loop2, NULL};
  CHECK(berth_alloc_lower_bound(&pl2) == 56 && brute_optimum(&pl2) >= 56);
  /* The seed example's live set at alignment 16: 8 + 8 + 1 bytes need 16 + 16 + 1. */
  berth_interval_t all[] = {{0, 4}};
  berth_alloc_buffer_t b3[] = {buf1(8, 16, all, 1), buf1(8, 16, all, 1), buf1(1, 16, all, 1)};
  berth_alloc_problem_t p3 = {3, b3, NULL};
  CHECK(berth_alloc_lower_bound(&p3) == 33 && brute_optimum(&p3) == 33);
  berth_alloc_problem_t p2 = {2, b3, NULL};
  CHECK(berth_alloc_lower_bound(&p2) == 24 && brute_optimum(&p2) == 24);
}

/* Every algorithm and fit on random problems: valid plans, ordered sensibly. */
static void test_random_all(void) {
  uint64_t s = g_seed;
  for (int round = 0; round < 60; round++) {
    int32_t n = (int32_t)rnd_in(&s, 1, round < 40 ? 40 : 300);
    rproblem_t r = random_problem(&s, n, rnd_in(&s, 5, 200), (int)rnd_in(&s, 1, 3), (uint64_t)rnd_in(&s, 1, 5000),
                                  round % 3 == 0);
    char what[64];
    snprintf(what, sizeof what, "random round %d (n %d)", round, (int)n);
    berth_alloc_result_t rn, rg, rs, re;
    uint64_t naive = solve_checked(&r.p, BERTH_ALLOC_NAIVE, 0, 0, &rn, what);
    uint64_t greedy = solve_checked(&r.p, BERTH_ALLOC_GREEDY, 0, 0, &rg, what);
    uint64_t first = solve_checked(&r.p, BERTH_ALLOC_GREEDY, 0, BERTH_ALLOC_FIT_FIRST, NULL, what);
    uint64_t best = solve_checked(&r.p, BERTH_ALLOC_GREEDY, 0, BERTH_ALLOC_FIT_BEST, NULL, what);
    uint64_t search = solve_checked(&r.p, BERTH_ALLOC_SEARCH, 20, 0, &rs, what);
    uint64_t exact = solve_checked(&r.p, BERTH_ALLOC_EXACT, 50, 0, &re, what);
    CHECK_MSG(greedy <= naive && greedy <= first && greedy <= best, "%s: greedy %llu naive %llu first %llu best %llu",
              what, (unsigned long long)greedy, (unsigned long long)naive, (unsigned long long)first,
              (unsigned long long)best);
    CHECK_MSG(search <= greedy, "%s: search %llu worse than greedy %llu", what, (unsigned long long)search,
              (unsigned long long)greedy);
    CHECK_MSG(exact <= greedy, "%s: exact %llu worse than greedy %llu", what, (unsigned long long)exact,
              (unsigned long long)greedy);
    CHECK(rg.lower_bound == berth_alloc_lower_bound(&r.p));
    CHECK(re.proven_bound >= re.lower_bound && re.proven_bound <= exact);
    CHECK(re.optimal == (re.proven_bound == exact));
    rproblem_free(&r);
  }
}

/* exact against brute force on tiny problems: the same optimum, proven. */
static void test_exact_brute(void) {
  uint64_t s = g_seed ^ 0xe8ac7;
  for (int round = 0; round < 150; round++) {
    int32_t n = (int32_t)rnd_in(&s, 1, 7);
    rproblem_t r = random_problem(&s, n, rnd_in(&s, 3, 12), (int)rnd_in(&s, 1, 2), 6, round % 4 == 0);
    uint64_t opt = brute_optimum(&r.p);
    char what[64];
    snprintf(what, sizeof what, "brute round %d (n %d)", round, (int)n);
    berth_alloc_result_t re;
    uint64_t exact = solve_checked(&r.p, BERTH_ALLOC_EXACT, 5000, 0, &re, what);
    CHECK_MSG(exact == opt, "%s: exact %llu, brute force %llu (seed %llu)", what, (unsigned long long)exact,
              (unsigned long long)opt, (unsigned long long)g_seed);
    CHECK_MSG(re.optimal, "%s: exact did not prove its optimum (bound %llu, arena %llu)", what,
              (unsigned long long)re.proven_bound, (unsigned long long)exact);
    for (int a = 1; a <= 2; a++) {
      uint64_t x = solve_checked(&r.p, (berth_alloc_algo_t)a, 10, 0, NULL, what);
      CHECK_MSG(x >= opt, "%s: %s %llu beats the optimum %llu", what, berth_alloc_algo_name((berth_alloc_algo_t)a),
                (unsigned long long)x, (unsigned long long)opt);
    }
    rproblem_free(&r);
  }
}

/* ---- the decision search against every stacking order ----------------------------------- */

/* The optimum by brute force over orders: an optimal plan can be pushed down until each
 * buffer sits at the aligned top of the conflicting buffers below it, so stacking the
 * buffers in every order, each on the conflicting ones already stacked, reaches it. Shares
 * nothing with the branch and bound (n <= 8). */
static void perm_rec(const berth_alloc_problem_t *p, int32_t *order, uint64_t *off, int32_t k, uint64_t top,
                     uint64_t *best) {
  if (top >= *best) return;
  if (k == p->n) {
    *best = top;
    return;
  }
  for (int32_t i = k; i < p->n; i++) {
    int32_t t = order[k];
    order[k] = order[i];
    order[i] = t;
    int32_t b = order[k];
    const berth_alloc_buffer_t *x = &p->buffers[b];
    uint64_t o = 0;
    for (int32_t q = 0; q < k; q++) {
      const berth_alloc_buffer_t *y = &p->buffers[order[q]];
      if (conflict(x, y) && off[order[q]] + y->size > o) o = off[order[q]] + y->size;
    }
    if (x->align > 1) o = (o + x->align - 1) / x->align * x->align;
    if (x->size == 0 || x->n_intervals == 0) o = 0;
    off[b] = o;
    perm_rec(p, order, off, k + 1, o + x->size > top ? o + x->size : top, best);
    order[i] = order[k];
    order[k] = t;
  }
}

static uint64_t perm_optimum(const berth_alloc_problem_t *p) {
  int32_t order[9];
  uint64_t off[9], best = UINT64_MAX;
  for (int32_t i = 0; i < p->n; i++) order[i] = i;
  perm_rec(p, order, off, 0, 0, &best);
  return best;
}

/* The decision search at the optimum and just below it, under fixed and perturbed
 * preorders and without a node limit: FOUND with a valid plan at the optimum, NONE below.
 * Every pruning rule (dominance, sections, lifts behind the front, hatless buffers, the
 * memo of failed groups) is exercised; a wrong NONE shows here. */
static void test_decide_brute(void) {
  uint64_t s = g_seed ^ 0xdec1de;
  for (int round = 0; round < 400; round++) {
    int32_t n = (int32_t)rnd_in(&s, 2, 8);
    uint64_t max_size = round % 2 ? 12 : 1000;
    rproblem_t r = random_problem(&s, n, rnd_in(&s, 3, 10), (int)rnd_in(&s, 1, 2), max_size, round % 5 == 0);
    if (round % 2 == 0) {
      /* Two buffers live throughout keep one group of several sections, so the search
       * backtracks across sections and buffers fall behind the canonical front. */
      for (int32_t q = 0; q < n; q++) {
        int64_t lo = q < 2 ? 0 : rnd_in(&s, 0, 10), hi = q < 2 ? 12 : lo + rnd_in(&s, 1, 4);
        r.iv[q] = (berth_interval_t){lo, hi < 12 ? hi : 12};
        r.buf[q].intervals = &r.iv[q];
        r.buf[q].n_intervals = 1;
        r.buf[q].size = (uint64_t)rnd_in(&s, 1, (int64_t)max_size);
      }
    }
    char what[96];
    snprintf(what, sizeof what, "decide round %d (n %d, seed %llu)", round, (int)n, (unsigned long long)g_seed);
    uint64_t opt = perm_optimum(&r.p);
    char msg[512];
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    berth_alloc_prep_t prep;
    CHECK(berth_alloc_prep_init(&prep, &r.p, &diag) == BERTH_OK);
    int status = -1;
    berth_alloc_dfs_t *d = prep.m > 0 ? berth_alloc_dfs_create(&prep, &status) : NULL;
    CHECK(prep.m == 0 || (d && status == 0));
    if (!d) {
      CHECK(opt == 0);
      berth_alloc_prep_deinit(&prep);
      rproblem_free(&r);
      continue;
    }
    CHECK_MSG(berth_alloc_quantum(&prep) >= 1 && opt % berth_alloc_quantum(&prep) == 0, "%s: optimum %llu, quantum %llu",
              what, (unsigned long long)opt, (unsigned long long)berth_alloc_quantum(&prep));
    uint64_t *sol = malloc(((size_t)prep.m + 1) * sizeof *sol);
    uint64_t *off = malloc(((size_t)r.p.n + 1) * sizeof *off);
    const int heuristics[] = {0, 1, 2, 3, 4, 7, 11, 1000 + round};
    for (size_t h = 0; h < sizeof heuristics / sizeof heuristics[0]; h++) {
      berth_alloc_clock_t far_clock = {berth_alloc_now_ms() + 1e9, 0, 0}, *far = &far_clock;
      int res = berth_alloc_dfs_decide(d, opt, heuristics[h], INT64_MAX, far, sol);
      CHECK_MSG(res == BERTH_ALLOC_DFS_FOUND, "%s: heuristic %d finds no plan at the optimum %llu", what,
                heuristics[h], (unsigned long long)opt);
      if (res == BERTH_ALLOC_DFS_FOUND) {
        uint64_t arena = berth_alloc_prep_scatter(&prep, sol, off);
        CHECK_MSG(arena <= opt, "%s: plan %llu above the capacity %llu", what, (unsigned long long)arena,
                  (unsigned long long)opt);
        CHECK_MSG(berth_alloc_check(&r.p, off, arena, &diag) == BERTH_OK, "%s: %s", what, msg);
      }
      if (opt > 0) {
        res = berth_alloc_dfs_decide(d, opt - 1, heuristics[h], INT64_MAX, far, sol);
        CHECK_MSG(res == BERTH_ALLOC_DFS_NONE, "%s: heuristic %d answers %d below the optimum %llu", what,
                  heuristics[h], res, (unsigned long long)opt);
      }
    }
    free(sol);
    free(off);
    berth_alloc_dfs_destroy(d);
    berth_alloc_prep_deinit(&prep);
    rproblem_free(&r);
  }
}

/* The lift rule against the search without it, on problems too large for brute force:
 * buffers of up to three intervals over a short time (many sections, many overlaps, and
 * often no plan at the lower bound, so both searches must exhaust their trees).
 * Wherever the search without the rule settles a capacity, the search with it must give
 * the same answer, under fixed and perturbed preorders. */
static void test_decide_lifts(void) {
  uint64_t s = g_seed ^ 0x11f75;
  int compared = 0, none = 0;
  for (int round = 0; round < 60; round++) {
    int32_t n = (int32_t)rnd_in(&s, 8, 13), k = n;
    rproblem_t r = random_problem(&s, n, rnd_in(&s, 6, 20), 3, 64, false);
    char what[96];
    snprintf(what, sizeof what, "lifts round %d (n %d, seed %llu)", round, (int)k, (unsigned long long)g_seed);
    char msg[512];
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    berth_alloc_prep_t prep;
    CHECK(berth_alloc_prep_init(&prep, &r.p, &diag) == BERTH_OK);
    int status = -1;
    berth_alloc_dfs_t *d = berth_alloc_dfs_create(&prep, &status);
    CHECK(d && status == 0);
    uint64_t *sol = malloc(((size_t)prep.m + 1) * sizeof *sol);
    uint64_t *off = malloc(((size_t)k + 1) * sizeof *off);
    berth_alloc_clock_t far_clock = {berth_alloc_now_ms() + 1e9, 0, 0}, *far = &far_clock;
    for (uint64_t cap = prep.lower_bound; cap < prep.lower_bound + 4; cap++) {
      berth_alloc_dfs_use_lifts(d, false);
      int want = berth_alloc_dfs_decide(d, cap, 0, 200000, far, sol);
      if (want == BERTH_ALLOC_DFS_ABORTED) continue;
      compared++;
      none += want == BERTH_ALLOC_DFS_NONE;
      berth_alloc_dfs_use_lifts(d, true);
      const int heuristics[] = {0, 1, 2, 5, 6, 7, 500 + round};
      for (size_t h = 0; h < sizeof heuristics / sizeof heuristics[0]; h++) {
        int res = berth_alloc_dfs_decide(d, cap, heuristics[h], 2000000, far, sol);
        CHECK_MSG(res == want, "%s: capacity %llu, heuristic %d: %d with lifts, %d without", what,
                  (unsigned long long)cap, heuristics[h], res, want);
        if (res == BERTH_ALLOC_DFS_FOUND) {
          uint64_t arena = berth_alloc_prep_scatter(&prep, sol, off);
          CHECK(arena <= cap);
          CHECK_MSG(berth_alloc_check(&r.p, off, arena, &diag) == BERTH_OK, "%s: %s", what, msg);
        }
      }
      if (want == BERTH_ALLOC_DFS_FOUND) break;
    }
    free(sol);
    free(off);
    berth_alloc_dfs_destroy(d);
    berth_alloc_prep_deinit(&prep);
    rproblem_free(&r);
  }
  CHECK_MSG(compared >= 60 && none >= 10, "lift rounds: %d capacities compared, %d infeasible", compared, none);
}

/* A chain of many short-lived buffers: greedy must stay fast and find the bound. */
static void test_large_chain(void) {
  int32_t n = 60000;
  berth_alloc_buffer_t *b = malloc((size_t)n * sizeof *b);
  berth_interval_t *iv = malloc((size_t)n * sizeof *iv);
  uint64_t *off = malloc((size_t)n * sizeof *off);
  uint64_t s = g_seed ^ 0x60000;
  for (int32_t i = 0; i < n; i++) {
    iv[i].lower = i;
    iv[i].upper = i + 2 + (int64_t)(rnd(&s) % 4);
    b[i] = buf1(64 * (1 + rnd(&s) % 16), 64, &iv[i], 1);
  }
  berth_alloc_problem_t p = {n, b, NULL};
  berth_alloc_result_t r;
  char msg[256];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_alloc_solve(&p, NULL, off, &r, &diag) == BERTH_OK);
  CHECK_MSG(berth_alloc_check(&p, off, r.arena, &diag) == BERTH_OK, "%s", msg);
  CHECK(r.arena >= r.lower_bound && r.arena <= r.lower_bound + r.lower_bound / 2);
  fprintf(stderr, "test_alloc: 60000-buffer chain: greedy %.1f ms, arena %.4f x lower bound\n", r.time_ms,
          (double)r.arena / (double)r.lower_bound);
  free(b);
  free(iv);
  free(off);
}

int main(int argc, char **argv) {
  if (argc > 1) g_seed = strtoull(argv[1], NULL, 10);
  fprintf(stderr, "test_alloc: seed %llu\n", (unsigned long long)g_seed);
  test_names();
  test_trivial();
  test_input12();
  test_multi_interval();
  test_alignment();
  test_validation();
  test_check_catches();
  test_lower_bound();
  test_random_all();
  test_exact_brute();
  test_decide_brute();
  test_decide_lifts();
  test_large_chain();
  if (test_failures) fprintf(stderr, "test_alloc: failures with seed %llu\n", (unsigned long long)g_seed);
  return test_finish("test_alloc");
}
