/* The lower bound: the largest total size live at one time. Computed straight from the
 * problem with a sweep over interval endpoints (not from the algorithms' prepared form),
 * so that an "optimal" claim rests on code the algorithms do not share. */
#include "plan/alloc.h"

#include <stdlib.h>

typedef struct bound_event {
  int64_t time;
  int64_t delta; /* +size at a start, -size at an end */
} bound_event_t;

static int cmp_event(const void *a, const void *b) {
  const bound_event_t *x = a, *y = b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  /* Half-open intervals: what ends at t is gone before what starts at t arrives. */
  return (x->delta > 0) - (y->delta > 0);
}

uint64_t berth_alloc_lower_bound(const berth_alloc_problem_t *p) {
  if (!p || p->n <= 0 || !p->buffers) return 0;
  size_t k = 0;
  for (int32_t i = 0; i < p->n; i++)
    if (p->buffers[i].size > 0 && p->buffers[i].n_intervals > 0) k += (size_t)p->buffers[i].n_intervals;
  if (k == 0) return 0;
  bound_event_t *ev = malloc(2 * k * sizeof *ev);
  if (!ev) return 0; /* 0 is a valid (if weak) bound */
  size_t e = 0;
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    if (b->size == 0) continue;
    for (int32_t j = 0; j < b->n_intervals; j++) {
      /* A valid problem's sizes add up to less than 2^63. */
      ev[e].time = b->intervals[j].lower;
      ev[e++].delta = (int64_t)b->size;
      ev[e].time = b->intervals[j].upper;
      ev[e++].delta = -(int64_t)b->size;
    }
  }
  qsort(ev, e, sizeof *ev, cmp_event);
  int64_t cur = 0, best = 0;
  for (size_t i = 0; i < e; i++) {
    cur += ev[i].delta;
    if (cur > best) best = cur;
  }
  free(ev);
  return (uint64_t)best;
}
