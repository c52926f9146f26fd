/* The naive baseline: no reuse at all. Every active buffer gets its own bytes, stacked in
 * index order. */
#include "plan/alloc_internal.h"

uint64_t berth_alloc_naive_run(const berth_alloc_prep_t *prep, uint64_t *off) {
  uint64_t top = 0;
  for (int32_t i = 0; i < prep->m; i++) {
    /* The validated total of sizes plus padding is below 2^63: no overflow. */
    off[i] = berth_alloc_align_up(top, prep->align[i]);
    top = off[i] + prep->size[i];
  }
  return top;
}
