/* The allocation algorithms at scale: independent segments of the time line planned
 * apart (time-disjoint copies of Pangu's trace reach the bound together, as each does
 * alone), and budgets that cover the whole run and say when they were missed. */
#include "test_util.h"

#include "berth/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static berth_status_t solve(const berth_alloc_problem_t *p, berth_alloc_algo_t algo, int64_t budget,
                            berth_alloc_result_t *r) {
  uint64_t *off = malloc(((size_t)p->n + 1) * sizeof *off);
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_alloc_options_t o = berth_alloc_options_default();
  o.algo = algo;
  o.budget_ms = budget;
  berth_status_t st = berth_alloc_solve(p, &o, off, r, &diag);
  CHECK_MSG(st == BERTH_OK, "%s: %s", berth_alloc_algo_name(algo), msg);
  if (!st) {
    st = berth_alloc_check(p, off, r->arena, &diag);
    CHECK_MSG(st == BERTH_OK, "%s: invalid plan: %s", berth_alloc_algo_name(algo), msg);
    CHECK(r->arena >= r->lower_bound);
  }
  free(off);
  return st;
}

/* k copies of problem p, each shifted in time past the end of the one before. */
typedef struct copies {
  berth_alloc_problem_t p;
  berth_alloc_buffer_t *b;
  berth_interval_t *iv;
} copies_t;

static copies_t make_copies(const berth_alloc_problem_t *p, int k) {
  copies_t c;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  size_t n_iv = 0;
  for (int32_t i = 0; i < p->n; i++)
    for (int32_t j = 0; j < p->buffers[i].n_intervals; j++) {
      n_iv++;
      if (p->buffers[i].intervals[j].lower < lo) lo = p->buffers[i].intervals[j].lower;
      if (p->buffers[i].intervals[j].upper > hi) hi = p->buffers[i].intervals[j].upper;
    }
  c.b = malloc((size_t)k * (size_t)p->n * sizeof *c.b);
  c.iv = malloc((size_t)k * n_iv * sizeof *c.iv + 1);
  size_t at = 0;
  for (int r = 0; r < k; r++)
    for (int32_t i = 0; i < p->n; i++) {
      berth_alloc_buffer_t *d = &c.b[(size_t)r * (size_t)p->n + (size_t)i];
      *d = p->buffers[i];
      d->intervals = &c.iv[at];
      for (int32_t j = 0; j < p->buffers[i].n_intervals; j++, at++) {
        c.iv[at].lower = p->buffers[i].intervals[j].lower + r * (hi - lo);
        c.iv[at].upper = p->buffers[i].intervals[j].upper + r * (hi - lo);
      }
    }
  c.p.n = k * p->n;
  c.p.buffers = c.b;
  c.p.names = NULL;
  return c;
}

/* Three time-disjoint copies of Pangu's trace: each meets the bound alone, and so must
 * the three together (greedy without segments: 1.0076). */
static void test_pangu_chain(void) {
  char path[512], msg[256];
  snprintf(path, sizeof path, "%s/traces/pangu_2.6B.csv", BERTH_DATA_DIR);
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_alloc_csv_t *csv = NULL;
  if (berth_alloc_csv_read(path, &csv, &diag)) {
    fprintf(stderr, "test_alloc_scale: %s absent; skipping the Pangu chain\n", path);
    return;
  }
  const berth_alloc_problem_t *one = berth_alloc_csv_problem(csv);
  berth_alloc_result_t r1, r3;
  CHECK(solve(one, BERTH_ALLOC_GREEDY, 0, &r1) == BERTH_OK && r1.arena == r1.lower_bound);
  copies_t c = make_copies(one, 3);
  CHECK(solve(&c.p, BERTH_ALLOC_GREEDY, 0, &r3) == BERTH_OK);
  CHECK(r3.lower_bound == r1.lower_bound);
  CHECK_MSG(r3.arena == r3.lower_bound, "Pangu x3: greedy %.4f x the lower bound", (double)r3.arena / (double)r3.lower_bound);
  CHECK(r3.segments == 3);
  fprintf(stderr, "test_alloc_scale: Pangu x3: greedy %.4f x the lower bound, %d segments\n",
          (double)r3.arena / (double)r3.lower_bound, (int)r3.segments);
  free(c.b);
  free(c.iv);
  berth_alloc_csv_destroy(csv);
}

/* Segments without data: two disjoint halves and a multi-interval buffer that joins two
 * stretches (it keeps one offset, so no split inside its gap). Every algorithm. */
static void test_segments(void) {
  berth_interval_t a[] = {{0, 4}}, b[] = {{2, 6}}, c[] = {{6, 9}}, d[] = {{7, 12}, {14, 16}}, e[] = {{12, 14}},
                   f[] = {{20, 22}};
  berth_alloc_buffer_t bufs[] = {{40, 8, 1, a}, {24, 8, 1, b}, {16, 8, 1, c},
                                 {32, 8, 2, d}, {48, 8, 1, e}, {0, 1, 1, f}};
  berth_alloc_problem_t p = {6, bufs, NULL};
  for (int al = 0; al < 4; al++) {
    berth_alloc_result_t r;
    if (solve(&p, (berth_alloc_algo_t)al, 200, &r)) continue;
    /* [0, 6) and [6, 16); the empty buffer takes part in nothing. naive is the no-reuse
     * baseline: one part, every buffer at its own bytes */
    int32_t want = al == BERTH_ALLOC_NAIVE ? 1 : 2;
    CHECK_MSG(r.segments == want, "%s: %d segments", berth_alloc_algo_name((berth_alloc_algo_t)al), (int)r.segments);
    if (al != BERTH_ALLOC_NAIVE) CHECK(r.arena == 64);
    else CHECK_MSG(r.arena == 160, "naive: arena %llu, want 160 (no reuse)", (unsigned long long)r.arena);
  }
}

/* A long chain of short-lived buffers (as bench/plan's). */
static copies_t make_chain(int32_t n) {
  copies_t c;
  c.b = malloc((size_t)n * sizeof *c.b);
  c.iv = malloc((size_t)n * sizeof *c.iv);
  uint64_t s = 60000;
  for (int32_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    c.iv[i].lower = i;
    c.iv[i].upper = i + 2 + (int64_t)((s >> 33) % 4);
    c.b[i] = (berth_alloc_buffer_t){64 * (1 + (s >> 45) % 16), 64, 1, &c.iv[i]};
  }
  c.p.n = n;
  c.p.buffers = c.b;
  c.p.names = NULL;
  return c;
}

/* The budget covers the whole run: with 1 ms for 50,000 buffers, search runs greedy's
 * first order only (full greedy would also try the size orders, and pick size/end) and
 * says that the budget was missed; a small problem within a generous budget says it was
 * met, and greedy alone never reports a budget. */
static void test_budget(void) {
  copies_t c = make_chain(50000);
  berth_alloc_result_t rs, rg;
  if (!solve(&c.p, BERTH_ALLOC_SEARCH, 1, &rs)) {
    CHECK(rs.budget_exceeded);
    CHECK_MSG(strcmp(rs.greedy_order, "peak sweep, first fit") == 0, "greedy order under a 1 ms budget: %s",
              rs.greedy_order);
  }
  if (!solve(&c.p, BERTH_ALLOC_GREEDY, 1, &rg)) {
    CHECK(!rg.budget_exceeded);
    CHECK_MSG(strcmp(rg.greedy_order, "peak sweep, first fit") != 0 && rg.arena <= rs.greedy_arena,
              "full greedy: %s", rg.greedy_order);
  }
  free(c.b);
  free(c.iv);
  copies_t small = make_chain(200);
  berth_alloc_result_t r;
  if (!solve(&small.p, BERTH_ALLOC_SEARCH, 5000, &r)) CHECK(!r.budget_exceeded);
  free(small.b);
  free(small.iv);
}

int main(void) {
  test_segments();
  test_budget();
  test_pangu_chain();
  return test_finish("test_alloc_scale");
}
