/* The lower bound: the largest total size live at one time, counting the alignment padding
 * no placement can avoid. Computed straight from the problem with a sweep over interval
 * endpoints (not from the algorithms' prepared form), so that an "optimal" claim rests on
 * code the algorithms do not share.
 *
 * With alignments: let a be the smallest alignment of any buffer that takes part. Every
 * offset is a multiple of a, so in any plan the live buffers at one moment, taken in
 * offset order, each end at least round_up(size, a) below the next one's start, except
 * the topmost, which ends the arena. Hence the arena is at least the sum of round_up(size,
 * a) over the live buffers minus the largest padding round_up(size, a) - size among them;
 * with a = 1 this is the plain sum. */
#include "plan/alloc.h"

#include <stdlib.h>

typedef struct bound_event {
  int64_t time;
  int32_t buffer; /* the buffer's index */
  int32_t start;  /* 1 at lower, 0 at upper */
  int64_t upper;  /* the interval's end (for starts) */
} bound_event_t;

static int cmp_event(const void *a, const void *b) {
  const bound_event_t *x = a, *y = b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  /* Half-open intervals: what ends at t is gone before what starts at t arrives. */
  return x->start - y->start;
}

/* A max-heap of the paddings of live intervals; an entry whose interval has ended is
 * dropped when it reaches the top. */
typedef struct pad_entry {
  uint64_t pad;
  int64_t upper;
} pad_entry_t;

static void heap_push(pad_entry_t *h, size_t *n, pad_entry_t e) {
  size_t i = (*n)++;
  while (i > 0 && h[(i - 1) / 2].pad < e.pad) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = e;
}

static void heap_pop(pad_entry_t *h, size_t *n) {
  pad_entry_t last = h[--*n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && h[c + 1].pad > h[c].pad) c++;
    if (h[c].pad <= last.pad) break;
    h[i] = h[c];
    i = c;
  }
  if (*n > 0) h[i] = last;
}

uint64_t berth_alloc_lower_bound(const berth_alloc_problem_t *p) {
  if (!p || p->n <= 0 || !p->buffers) return 0;
  size_t k = 0;
  uint64_t a = 0; /* the smallest alignment taking part */
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    if (b->size == 0 || b->n_intervals <= 0) continue;
    k += (size_t)b->n_intervals;
    uint64_t al = b->align > 1 ? b->align : 1;
    if (a == 0 || al < a) a = al;
  }
  if (k == 0) return 0;
  bound_event_t *ev = malloc(2 * k * sizeof *ev);
  pad_entry_t *heap = malloc(k * sizeof *heap);
  if (!ev || !heap) { /* 0 is a valid (if weak) bound */
    free(ev);
    free(heap);
    return 0;
  }
  size_t e = 0;
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    if (b->size == 0) continue;
    for (int32_t j = 0; j < b->n_intervals; j++) {
      ev[e++] = (bound_event_t){b->intervals[j].lower, i, 1, b->intervals[j].upper};
      ev[e++] = (bound_event_t){b->intervals[j].upper, i, 0, 0};
    }
  }
  qsort(ev, e, sizeof *ev, cmp_event);
  /* A valid problem's sizes plus alignment paddings add up to less than 2^63, and
   * round_up(size, a) <= size + align - 1. */
  uint64_t cur = 0, best = 0;
  size_t n_heap = 0;
  for (size_t i = 0; i < e;) {
    int64_t t = ev[i].time;
    for (; i < e && ev[i].time == t; i++) {
      uint64_t size = p->buffers[ev[i].buffer].size;
      uint64_t rounded = (size + a - 1) / a * a;
      if (ev[i].start) {
        cur += rounded;
        if (rounded > size) heap_push(heap, &n_heap, (pad_entry_t){rounded - size, ev[i].upper});
      } else {
        cur -= rounded;
      }
    }
    while (n_heap > 0 && heap[0].upper <= t) heap_pop(heap, &n_heap);
    uint64_t here = cur - (n_heap > 0 ? heap[0].pad : 0);
    if (cur > 0 && here > best) best = here;
  }
  free(ev);
  free(heap);
  return best;
}
