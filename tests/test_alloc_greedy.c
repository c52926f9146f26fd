/* Tests of the greedy engine (src/plan/alloc_greedy.c) through its internal interface:
 * the peak-sweep order (its shape on random problems, multi-interval buffers, the small
 * case that only it solves), and that every order and fit gives a plan the independent
 * checker accepts.
 *
 * Usage: test_alloc_greedy [SEED]   (seed of the random problems; printed on failure) */
#include "test_util.h"

#include "plan/alloc_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_seed = 4242;

static int64_t rnd_in(uint64_t *s, int64_t lo, int64_t hi) {
  return lo + (int64_t)(berth_alloc_rand(s) % (uint64_t)(hi - lo + 1));
}

/* A random problem; storage owned by the struct. */
typedef struct rproblem {
  berth_alloc_problem_t p;
  berth_alloc_buffer_t *buf;
  berth_interval_t *iv;
} rproblem_t;

static rproblem_t random_problem(uint64_t *s, int32_t n, int64_t T, int max_iv) {
  rproblem_t r;
  r.buf = calloc((size_t)n + 1, sizeof *r.buf);
  r.iv = calloc((size_t)n * (size_t)max_iv + 1, sizeof *r.iv);
  int32_t k = 0;
  for (int32_t i = 0; i < n; i++) {
    berth_alloc_buffer_t *b = &r.buf[i];
    b->size = rnd_in(s, 0, 9) == 0 ? 0 : (uint64_t)rnd_in(s, 1, 1000);
    b->align = (uint64_t)1 << rnd_in(s, 0, 2);
    b->intervals = &r.iv[k];
    int64_t t = rnd_in(s, 0, T / 2);
    int n_iv = (int)rnd_in(s, 1, max_iv);
    for (int j = 0; j < n_iv && t < T; j++) {
      int64_t hi = t + rnd_in(s, 1, T / 3 + 1);
      if (hi > T) hi = T;
      r.iv[k].lower = t;
      r.iv[k].upper = hi;
      k++;
      b->n_intervals++;
      t = hi + rnd_in(s, 0, 3);
    }
  }
  r.p.n = n;
  r.p.buffers = r.buf;
  r.p.names = NULL;
  return r;
}

/* Distance from slot pk to the nearest slot where active buffer b is live. */
static int64_t peak_distance(const berth_alloc_prep_t *p, int32_t b, int32_t pk) {
  int64_t best = INT64_MAX;
  for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++) {
    int64_t d = p->lo[r] > pk ? p->lo[r] - pk : p->hi[r] <= pk ? pk - p->hi[r] + 1 : 0;
    if (d < best) best = d;
  }
  return best;
}

/* The peak order on random problems: a permutation; the buffers live at the first slot
 * of largest load come first, ending earliest first; then by distance, sizes descending
 * within a distance. Every order and fit yields a valid plan. */
static void test_peak_order_shape(void) {
  uint64_t s = g_seed;
  for (int round = 0; round < 200; round++) {
    int32_t n = (int32_t)rnd_in(&s, 1, round < 150 ? 30 : 400);
    rproblem_t r = random_problem(&s, n, rnd_in(&s, 4, 120), (int)rnd_in(&s, 1, 3));
    char msg[256];
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    berth_alloc_prep_t prep;
    CHECK_MSG(berth_alloc_prep_init(&prep, &r.p, &diag) == BERTH_OK, "%s", msg);
    berth_alloc_greedy_t *g = berth_alloc_greedy_create(&prep);
    CHECK(g != NULL);
    size_t mm = (size_t)prep.m + 1;
    int32_t *order = malloc(mm * sizeof *order);
    uint64_t *off = malloc(mm * sizeof *off), *offsets = malloc(((size_t)n + 1) * sizeof *offsets);
    uint8_t *seen = calloc(mm, 1);
    uint64_t *load = berth_alloc_prep_slot_load(&prep);
    int32_t pk = 0;
    for (int32_t j = 1; j < prep.n_slots; j++)
      if (load[j] > load[pk]) pk = j;

    CHECK(berth_alloc_greedy_order(g, BERTH_ALLOC_ORDER_PEAK, order));
    bool perm = true, shape = true;
    for (int32_t i = 0; i < prep.m; i++) {
      perm = perm && order[i] >= 0 && order[i] < prep.m && !seen[order[i]];
      if (order[i] >= 0 && order[i] < prep.m) seen[order[i]] = 1;
    }
    for (int32_t i = 1; perm && i < prep.m; i++) {
      int32_t a = order[i - 1], b = order[i];
      int64_t da = peak_distance(&prep, a, pk), db = peak_distance(&prep, b, pk);
      if (da > db) shape = false;
      if (da == db && da > 0 && prep.size[a] < prep.size[b]) shape = false;
    }
    CHECK_MSG(perm && shape, "peak order (round %d, seed %llu): %s", round, (unsigned long long)g_seed,
              perm ? "not sorted by distance from the peak, then size" : "not a permutation");

    for (int o = 0; o < BERTH_ALLOC_ORDER_COUNT; o++)
      for (int fit = BERTH_ALLOC_FIT_FIRST; fit <= BERTH_ALLOC_FIT_BEST; fit++) {
        CHECK(berth_alloc_greedy_order(g, (berth_alloc_order_t)o, order));
        uint64_t a = 0;
        CHECK(berth_alloc_greedy_run(g, order, fit, UINT64_MAX, off, &a) == BERTH_ALLOC_RUN_DONE);
        uint64_t arena = berth_alloc_prep_scatter(&prep, off, offsets);
        CHECK(a == arena && a >= prep.lower_bound);
        berth_status_t st = berth_alloc_check(&r.p, offsets, arena, &diag);
        CHECK_MSG(st == BERTH_OK, "order %d fit %d (round %d, seed %llu): %s", o, fit, round,
                  (unsigned long long)g_seed, msg);
      }
    free(load);
    free(seen);
    free(order);
    free(off);
    free(offsets);
    berth_alloc_greedy_destroy(g);
    berth_alloc_prep_deinit(&prep);
    free(r.buf);
    free(r.iv);
  }
}

/* Four buffers whose busiest moment (time 6: a, b and c, 7 bytes) is the bound. Every
 * size order puts c or a in the way of the other and ends at 8 or above; the peak sweep stacks
 * b, a, c at time 6 (the two that die first lowest) and fits d below c: 7. */
static void test_peak_beats_size_orders(void) {
  berth_interval_t iv[] = {{3, 7}, {6, 7}, {0, 8}, {0, 2}};
  berth_alloc_buffer_t b[] = {{2, 1, 1, &iv[0]}, {3, 1, 1, &iv[1]}, {2, 1, 1, &iv[2]}, {4, 1, 1, &iv[3]}};
  berth_alloc_problem_t p = {4, b, NULL};
  char msg[256];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_alloc_prep_t prep;
  CHECK(berth_alloc_prep_init(&prep, &p, &diag) == BERTH_OK);
  CHECK(prep.lower_bound == 7);
  berth_alloc_greedy_t *g = berth_alloc_greedy_create(&prep);
  int32_t order[4];
  uint64_t off[4];
  static const berth_alloc_order_t sizes[] = {BERTH_ALLOC_ORDER_SIZE, BERTH_ALLOC_ORDER_SIZE_CLASS,
                                              BERTH_ALLOC_ORDER_SIZE_END};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int fit = BERTH_ALLOC_FIT_FIRST; fit <= BERTH_ALLOC_FIT_BEST; fit++) {
      CHECK(berth_alloc_greedy_order(g, sizes[i], order));
      uint64_t a = 0;
      CHECK(berth_alloc_greedy_run(g, order, fit, UINT64_MAX, off, &a) == BERTH_ALLOC_RUN_DONE && a >= 8);
      /* told to stop above 7, the same run gives up instead of reporting a number */
      CHECK(berth_alloc_greedy_run(g, order, fit, 7, off, &a) == BERTH_ALLOC_RUN_STOPPED);
    }
  CHECK(berth_alloc_greedy_order(g, BERTH_ALLOC_ORDER_PEAK, order));
  CHECK(order[0] == 1 && order[1] == 0 && order[2] == 2 && order[3] == 3);
  uint64_t a7 = 0;
  CHECK(berth_alloc_greedy_run(g, order, BERTH_ALLOC_FIT_FIRST, 7, off, &a7) == BERTH_ALLOC_RUN_DONE && a7 == 7);
  berth_alloc_greedy_destroy(g);
  berth_alloc_prep_deinit(&prep);

  uint64_t offsets[4];
  berth_alloc_result_t r;
  CHECK(berth_alloc_solve(&p, NULL, offsets, &r, &diag) == BERTH_OK);
  CHECK(r.arena == 7 && r.optimal && strstr(r.greedy_order, "peak") != NULL);
  CHECK(berth_alloc_check(&p, offsets, r.arena, &diag) == BERTH_OK);
}

/* A buffer live on both sides of the peak but not at it is swept in from its nearer
 * side; empty and single-slot problems have a peak order too. */
static void test_peak_edges(void) {
  /* The peak is at time 4 (x and y; w at time 6 is as heavy but later); z lives at
   * [0, 2) and [7, 9), three slots from the peak on either side. */
  berth_interval_t ivx[] = {{3, 6}}, ivy[] = {{4, 5}}, ivz[] = {{0, 2}, {7, 9}}, ivw[] = {{6, 7}};
  berth_alloc_buffer_t b[] = {{8, 1, 1, ivx}, {8, 1, 1, ivy}, {4, 1, 2, ivz}, {16, 1, 1, ivw}};
  berth_alloc_problem_t p = {4, b, NULL};
  char msg[256];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_alloc_prep_t prep;
  CHECK(berth_alloc_prep_init(&prep, &p, &diag) == BERTH_OK);
  berth_alloc_greedy_t *g = berth_alloc_greedy_create(&prep);
  int32_t order[4];
  CHECK(berth_alloc_greedy_order(g, BERTH_ALLOC_ORDER_PEAK, order));
  /* Peak stack: y (dies at 5) below x (dies at 6); then w (starts at 6), then z. */
  CHECK(order[0] == 1 && order[1] == 0 && order[2] == 3 && order[3] == 2);
  berth_alloc_greedy_destroy(g);
  berth_alloc_prep_deinit(&prep);
  uint64_t offsets[4];
  berth_alloc_result_t r;
  CHECK(berth_alloc_solve(&p, NULL, offsets, &r, &diag) == BERTH_OK);
  CHECK(berth_alloc_check(&p, offsets, r.arena, &diag) == BERTH_OK);
  CHECK(r.arena == r.lower_bound);

  /* No active buffer at all, and a single slot. */
  berth_alloc_buffer_t zero[] = {{0, 1, 1, ivx}};
  berth_alloc_problem_t pz = {1, zero, NULL};
  CHECK(berth_alloc_prep_init(&prep, &pz, &diag) == BERTH_OK);
  g = berth_alloc_greedy_create(&prep);
  CHECK(g && berth_alloc_greedy_order(g, BERTH_ALLOC_ORDER_PEAK, order));
  uint64_t off[4];
  CHECK(berth_alloc_greedy_best(g, BERTH_ALLOC_FIT_AUTO, off, order, NULL, NULL) == 0);
  berth_alloc_greedy_destroy(g);
  berth_alloc_prep_deinit(&prep);
  berth_alloc_buffer_t one[] = {{5, 1, 1, ivy}, {7, 1, 1, ivy}};
  berth_alloc_problem_t p1 = {2, one, NULL};
  CHECK(berth_alloc_solve(&p1, NULL, offsets, &r, &diag) == BERTH_OK);
  CHECK(r.arena == 12 && berth_alloc_check(&p1, offsets, r.arena, &diag) == BERTH_OK);
}

int main(int argc, char **argv) {
  if (argc > 1) g_seed = strtoull(argv[1], NULL, 10);
  fprintf(stderr, "test_alloc_greedy: seed %llu\n", (unsigned long long)g_seed);
  test_peak_order_shape();
  test_peak_beats_size_orders();
  test_peak_edges();
  if (test_failures) fprintf(stderr, "test_alloc_greedy: failures with seed %llu\n", (unsigned long long)g_seed);
  return test_finish("test_alloc_greedy");
}
