/* Local search (placeholder while the real one is written). */
#include "plan/alloc_internal.h"

int64_t berth_alloc_search_improve(const berth_alloc_prep_t *prep, berth_alloc_greedy_t *g, berth_alloc_seed_t *seed,
                                   double deadline_ms, uint64_t rng_seed) {
  (void)prep;
  (void)g;
  (void)seed;
  (void)deadline_ms;
  (void)rng_seed;
  return 0;
}
