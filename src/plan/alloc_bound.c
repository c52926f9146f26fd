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
 * with a = 1 this is the plain sum.
 *
 * Gaps. A buffer live on several intervals (a coalesced group, a loop's carried storage)
 * keeps one offset for its whole life, so in a gap [g, h) between two of its intervals it
 * still blocks its bytes for every buffer that conflicts with it. The bound counts it as
 * live in such a gap when no interval of any other buffer (size > 0) lies inside [g, h).
 * Why that is sound: the bound at a moment t is the weight of a set of buffers that must
 * pairwise take disjoint bytes (a clique of the conflict graph), and the padding argument
 * above holds for any such set. Let C(t) be the buffers live at t plus the buffers G with
 * t in a filled gap [g, h) of G. Then C(t) is a clique:
 *  - X live at t, G filled at t: X's interval I holding t meets [g, h) and does not lie
 *    inside it, so I starts before g (and holds g - 1, where G is live: G's interval
 *    before the gap ends at g) or ends after h (and holds h, where G's next interval
 *    starts). Either way X and G overlap in time: they conflict.
 *  - G1, G2 both filled at t, gaps [g1, h1) and [g2, h2), say g1 <= g2 <= t. If g1 = g2,
 *    both are live just before g1: they conflict. Otherwise G2's interval that ends at g2
 *    holds g2 - 1, which lies in [g1, h1) (g1 <= g2 - 1 < t < h1), so that interval meets
 *    G1's gap without lying inside it (G1 is filled), and as above it overlaps G1.
 *  - two buffers live at t overlap at t.
 * Conflicts are those of the real intervals throughout, so filling one gap never feeds
 * another: one pass suffices. The check "no interval inside [g, h)" is conservative (an
 * interval inside the gap may belong to a buffer that conflicts with G elsewhere); it is
 * what a loop's carried storage needs: the values of the next iteration's body that live
 * between its last read and its next write all overlap one of the two.
 *
 * alloc_prep.c computes the same bound over slots, and finds the gaps no interval lies
 * inside by a suffix minimum of interval ends over starts; this file by a prefix maximum
 * of starts over ends. The tests check the two agree, and both against a direct sum. */
#include "berth/alloc.h"

#include <stdbool.h>
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

typedef struct iv_end {
  int64_t upper, lower;
} iv_end_t;

static int cmp_iv_end(const void *a, const void *b) {
  const iv_end_t *x = a, *y = b;
  return x->upper != y->upper ? (x->upper < y->upper ? -1 : 1) : 0;
}

/* Does an interval of ends[0..k) (sorted by upper, with lower replaced by the running
 * maximum of lower) lie inside [g, h)? Exactly when one with upper <= h starts at g or
 * later. */
static bool interval_inside(const iv_end_t *ends, size_t k, int64_t g, int64_t h) {
  size_t lo = 0, hi = k; /* the number of intervals with upper <= h */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ends[mid].upper <= h) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && ends[lo - 1].lower >= g;
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
  iv_end_t *ends = malloc(k * sizeof *ends);
  if (!ev || !heap || !ends) { /* 0 is a valid (if weak) bound */
    free(ev);
    free(heap);
    free(ends);
    return 0;
  }
  size_t e = 0, ne = 0;
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    if (b->size == 0) continue;
    for (int32_t j = 0; j < b->n_intervals; j++) ends[ne++] = (iv_end_t){b->intervals[j].upper, b->intervals[j].lower};
  }
  qsort(ends, ne, sizeof *ends, cmp_iv_end);
  for (size_t j = 1; j < ne; j++)
    if (ends[j - 1].lower > ends[j].lower) ends[j].lower = ends[j - 1].lower;
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    if (b->size == 0) continue;
    for (int32_t j = 0; j < b->n_intervals;) {
      int64_t lower = b->intervals[j].lower, upper = b->intervals[j].upper;
      for (j++; j < b->n_intervals && !interval_inside(ends, ne, upper, b->intervals[j].lower); j++)
        upper = b->intervals[j].upper; /* a gap nothing lies inside: still blocked */
      ev[e++] = (bound_event_t){lower, i, 1, upper};
      ev[e++] = (bound_event_t){upper, i, 0, 0};
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
  free(ends);
  return best;
}
