/* The allocation algorithms on the public benchmarks in ../shared/data (minimalloc's
 * instances and real traces): every plan valid, never below the lower bound, search and
 * exact never worse than greedy, exact optimal on input.12, greedy within 0.5% of the
 * bound on the real traces. Skips (77) when the data is absent. Quality targets and
 * times are measured by bench/plan, not asserted here. */
#include "test_util.h"

#include "berth/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static berth_alloc_csv_t *load(const char *rel) {
  char path[512], msg[256];
  snprintf(path, sizeof path, "%s/%s", BERTH_DATA_DIR, rel);
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_alloc_csv_t *csv = NULL;
  berth_status_t st = berth_alloc_csv_read(path, &csv, &diag);
  CHECK_MSG(st == BERTH_OK, "%s", msg);
  return st ? NULL : csv;
}

static uint64_t run(const berth_alloc_problem_t *p, berth_alloc_algo_t algo, int64_t budget, const char *name,
                    berth_alloc_result_t *r) {
  uint64_t *off = malloc(((size_t)p->n + 1) * sizeof *off);
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_alloc_options_t o = berth_alloc_options_default();
  o.algo = algo;
  o.budget_ms = budget;
  berth_status_t st = berth_alloc_solve(p, &o, off, r, &diag);
  CHECK_MSG(st == BERTH_OK, "%s %s: %s", name, berth_alloc_algo_name(algo), msg);
  if (!st) {
    st = berth_alloc_check(p, off, r->arena, &diag);
    CHECK_MSG(st == BERTH_OK, "%s %s: invalid plan: %s", name, berth_alloc_algo_name(algo), msg);
    CHECK(r->arena >= r->lower_bound);
  }
  free(off);
  return st ? UINT64_MAX : r->arena;
}

int main(void) {
  char probe[512];
  snprintf(probe, sizeof probe, "%s/minimalloc/input.12.csv", BERTH_DATA_DIR);
  FILE *f = fopen(probe, "rb");
  if (!f) {
    fprintf(stderr, "test_alloc_data: %s absent; skipping\n", probe);
    return 77;
  }
  fclose(f);

  berth_alloc_csv_t *csv = load("minimalloc/input.12.csv");
  if (csv) {
    berth_alloc_result_t r;
    CHECK(run(berth_alloc_csv_problem(csv), BERTH_ALLOC_EXACT, 1000, "input.12", &r) == 12);
    CHECK(r.optimal);
    berth_alloc_csv_destroy(csv);
  }

  static const char *const mm[] = {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"};
  for (size_t i = 0; i < sizeof mm / sizeof mm[0]; i++) {
    char rel[64];
    snprintf(rel, sizeof rel, "minimalloc/%s.1048576.csv", mm[i]);
    csv = load(rel);
    if (!csv) continue;
    const berth_alloc_problem_t *p = berth_alloc_csv_problem(csv);
    berth_alloc_result_t rg, rs, re;
    uint64_t g = run(p, BERTH_ALLOC_GREEDY, 0, rel, &rg);
    uint64_t s = run(p, BERTH_ALLOC_SEARCH, 30, rel, &rs);
    CHECK_MSG(s <= g, "%s: search %llu worse than greedy %llu", rel, (unsigned long long)s, (unsigned long long)g);
    CHECK(rg.lower_bound == berth_alloc_lower_bound(p));
    if (i == 2) { /* C: exact usually proves its bound within milliseconds */
      uint64_t e = run(p, BERTH_ALLOC_EXACT, 3000, rel, &re);
      CHECK(e <= g);
      CHECK(!re.optimal || e == 1039360);
    }
    berth_alloc_csv_destroy(csv);
  }

  static const char *const traces[] = {"traces/resnet50.csv", "traces/G_1.csv", "traces/pangu_2.6B.csv"};
  for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
    csv = load(traces[i]);
    if (!csv) continue;
    berth_alloc_result_t r;
    uint64_t g = run(berth_alloc_csv_problem(csv), BERTH_ALLOC_GREEDY, 0, traces[i], &r);
    CHECK_MSG(g != UINT64_MAX && (double)g <= 1.005 * (double)r.lower_bound, "%s: greedy %.4f x lower bound", traces[i],
              (double)g / (double)r.lower_bound);
    berth_alloc_csv_destroy(csv);
  }
  return test_finish("test_alloc_data");
}
