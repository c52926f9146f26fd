/* Exact search (placeholder while the real one is written). */
#include "plan/alloc_internal.h"

berth_status_t berth_alloc_exact_improve(const berth_alloc_prep_t *prep, berth_alloc_greedy_t *g,
                                         berth_alloc_seed_t *seed, double deadline_ms, berth_alloc_exact_out_t *out,
                                         berth_diag_t *diag) {
  (void)prep;
  (void)g;
  (void)seed;
  (void)deadline_ms;
  (void)diag;
  out->proven_bound = 0;
  out->optimal = false;
  out->nodes = 0;
  return BERTH_OK;
}
