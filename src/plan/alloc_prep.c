/* Problem validation and the prepared form shared by the allocation algorithms:
 * active buffers, time compressed to slots, slot ranges per interval. */
#define _POSIX_C_SOURCE 200809L

#include "plan/alloc_internal.h"

#include "base/checked.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double berth_alloc_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- validation --------------------------------------------------------------------- */

/* Prints "buffer 'name'" or "buffer 12" into buf for messages. */
static const char *buffer_label(const berth_alloc_problem_t *p, int32_t i, char *buf, size_t cap) {
  if (p->names && p->names[i]) berth_snprintf(buf, cap, "buffer '%s'", p->names[i]);
  else berth_snprintf(buf, cap, "buffer %d", (int)i);
  return buf;
}

berth_status_t berth_alloc_validate(const berth_alloc_problem_t *p, berth_diag_t *diag) {
  char lab[96];
  if (!p) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "allocation problem is NULL");
  if (p->n < 0 || p->n > BERTH_ALLOC_MAX_BUFFERS)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "allocation problem has %d buffers; expected 0 to %d", (int)p->n,
                      (int)BERTH_ALLOC_MAX_BUFFERS);
  if (p->n > 0 && !p->buffers) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "allocation problem has no buffer array");
  /* Every plan fits below the sum of (size + padding), so keeping that sum below 2^63
   * keeps all offset arithmetic exact. */
  uint64_t total = 0;
  int64_t n_iv = 0;
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    if (b->align > 1 && !berth_is_pow2(b->align))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: alignment %llu is not a power of two",
                        buffer_label(p, i, lab, sizeof lab), (unsigned long long)b->align);
    if (b->n_intervals < 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: negative interval count %d",
                        buffer_label(p, i, lab, sizeof lab), (int)b->n_intervals);
    if (b->n_intervals > 0 && !b->intervals)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %d intervals but no interval array",
                        buffer_label(p, i, lab, sizeof lab), (int)b->n_intervals);
    n_iv += b->n_intervals;
    if (n_iv > BERTH_ALLOC_MAX_INTERVALS)
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "allocation problem has more than %d intervals",
                        (int)BERTH_ALLOC_MAX_INTERVALS);
    for (int32_t k = 0; k < b->n_intervals; k++) {
      const berth_interval_t *iv = &b->intervals[k];
      if (iv->lower >= iv->upper)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: interval %d [%lld, %lld) is empty; expected lower < upper",
                          buffer_label(p, i, lab, sizeof lab), (int)k, (long long)iv->lower, (long long)iv->upper);
      if (k > 0 && iv->lower < b->intervals[k - 1].upper)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                          "%s: interval %d [%lld, %lld) starts before interval %d ends (%lld); expected sorted, disjoint "
                          "intervals",
                          buffer_label(p, i, lab, sizeof lab), (int)k, (long long)iv->lower, (long long)iv->upper,
                          (int)(k - 1), (long long)b->intervals[k - 1].upper);
    }
    uint64_t pad = b->align > 1 ? b->align - 1 : 0;
    if (!berth_add_u64(total, b->size, &total) || !berth_add_u64(total, pad, &total) || total >= ((uint64_t)1 << 63))
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "buffer sizes add up to more than 2^63 bytes (at %s)",
                        buffer_label(p, i, lab, sizeof lab));
  }
  return BERTH_OK;
}

/* ---- preparation -------------------------------------------------------------------- */

typedef struct pad_iv {
  uint64_t pad;
  int32_t lo, hi;
} pad_iv_t;

static int cmp_pad_desc(const void *a, const void *b) {
  const pad_iv_t *x = a, *y = b;
  return x->pad < y->pad ? 1 : x->pad > y->pad ? -1 : 0;
}

/* The next slot at or after j not yet given a padding (path halving). */
static int32_t next_free(int32_t *next, int32_t j) {
  while (next[j] != j) {
    next[j] = next[next[j]];
    j = next[j];
  }
  return j;
}

/* prep->lower_bound: per slot, the live sizes rounded up to the smallest alignment a,
 * minus the largest such padding among them, where a buffer also counts as live in a gap
 * between two of its intervals that no other interval lies inside (berth_alloc_lower_bound
 * says why both are sound; it computes the same bound by another route). The largest
 * padding per slot comes from painting slots with the paddings in decreasing order. False
 * if out of memory. */
static bool prep_lower_bound(berth_alloc_prep_t *prep) {
  int32_t S = prep->n_slots;
  uint64_t a = 0;
  for (int32_t i = 0; i < prep->m; i++)
    if (a == 0 || prep->align[i] < a) a = prep->align[i];
  if (a == 0) a = 1;
  int64_t *diff = calloc((size_t)S + 1, sizeof *diff);
  uint64_t *maxpad = calloc((size_t)S + 1, sizeof *maxpad);
  int32_t *next = malloc(((size_t)S + 2) * sizeof *next);
  pad_iv_t *ivs = malloc(((size_t)prep->n_iv + 1) * sizeof *ivs);
  bool ok = diff && maxpad && next && ivs;
  if (ok) {
    /* next[s] first serves as the smallest end of a range that starts at slot s or later:
     * some range lies inside the gap [g, h) iff next[g] <= h. */
    for (int32_t j = 0; j <= S + 1; j++) next[j] = INT32_MAX;
    for (int32_t k = 0; k < prep->n_iv; k++)
      if (prep->hi[k] < next[prep->lo[k]]) next[prep->lo[k]] = prep->hi[k];
    for (int32_t j = S - 1; j >= 0; j--)
      if (next[j + 1] < next[j]) next[j] = next[j + 1];
    int32_t n = 0;
    for (int32_t i = 0; i < prep->m; i++) {
      uint64_t rounded = (prep->size[i] + a - 1) / a * a;
      int32_t k = prep->iv_first[i], end = prep->iv_first[i + 1];
      while (k < end) {
        int32_t lo = prep->lo[k], hi = prep->hi[k];
        for (k++; k < end && next[hi] > prep->lo[k]; k++) hi = prep->hi[k]; /* fill empty gaps */
        diff[lo] += (int64_t)rounded; /* below 2^63 in total (validated) */
        diff[hi] -= (int64_t)rounded;
        if (rounded > prep->size[i]) ivs[n++] = (pad_iv_t){rounded - prep->size[i], lo, hi};
      }
    }
    qsort(ivs, (size_t)n, sizeof *ivs, cmp_pad_desc);
    for (int32_t j = 0; j <= S; j++) next[j] = j;
    for (int32_t k = 0; k < n; k++)
      for (int32_t j = next_free(next, ivs[k].lo); j < ivs[k].hi; j = next_free(next, j)) {
        maxpad[j] = ivs[k].pad;
        next[j] = j + 1;
      }
    int64_t cur = 0;
    uint64_t lb = 0;
    for (int32_t j = 0; j < S; j++) {
      cur += diff[j];
      uint64_t here = (uint64_t)cur - maxpad[j];
      if (cur > 0 && here > lb) lb = here;
    }
    prep->lower_bound = lb;
  }
  free(diff);
  free(maxpad);
  free(next);
  free(ivs);
  return ok;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Index of t in the sorted, distinct times[0..k). t is present. */
static int32_t slot_of(const int64_t *times, int32_t k, int64_t t) {
  int32_t lo = 0, hi = k;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void berth_alloc_prep_deinit(berth_alloc_prep_t *prep) {
  if (!prep) return;
  free(prep->orig);
  free(prep->size);
  free(prep->align);
  free(prep->iv_first);
  free(prep->lo);
  free(prep->hi);
  free(prep->length);
  memset(prep, 0, sizeof *prep);
}

uint64_t *berth_alloc_prep_slot_load(const berth_alloc_prep_t *prep) {
  int64_t *diff = calloc((size_t)prep->n_slots + 1, sizeof *diff);
  uint64_t *load = malloc(((size_t)prep->n_slots + 1) * sizeof *load);
  if (!diff || !load) {
    free(diff);
    free(load);
    return NULL;
  }
  /* Sizes are below 2^63 in total, so the signed running sum cannot overflow. */
  for (int32_t i = 0; i < prep->m; i++)
    for (int32_t k = prep->iv_first[i]; k < prep->iv_first[i + 1]; k++) {
      diff[prep->lo[k]] += (int64_t)prep->size[i];
      diff[prep->hi[k]] -= (int64_t)prep->size[i];
    }
  int64_t cur = 0;
  for (int32_t j = 0; j < prep->n_slots; j++) {
    cur += diff[j];
    load[j] = (uint64_t)cur;
  }
  free(diff);
  return load;
}

berth_status_t berth_alloc_prep_init(berth_alloc_prep_t *prep, const berth_alloc_problem_t *p, berth_diag_t *diag) {
  memset(prep, 0, sizeof *prep);
  berth_status_t st = berth_alloc_validate(p, diag);
  if (st) return st;
  int32_t m = 0, n_iv = 0;
  for (int32_t i = 0; i < p->n; i++)
    if (p->buffers[i].size > 0 && p->buffers[i].n_intervals > 0) {
      m++;
      n_iv += p->buffers[i].n_intervals;
    }
  prep->n = p->n;
  prep->m = m;
  prep->n_iv = n_iv;
  size_t mm = (size_t)m + 1, nn = (size_t)n_iv + 1;
  prep->orig = malloc(mm * sizeof *prep->orig);
  prep->size = malloc(mm * sizeof *prep->size);
  prep->align = malloc(mm * sizeof *prep->align);
  prep->iv_first = malloc(mm * sizeof *prep->iv_first);
  prep->lo = malloc(nn * sizeof *prep->lo);
  prep->hi = malloc(nn * sizeof *prep->hi);
  prep->length = malloc(mm * sizeof *prep->length);
  int64_t *times = malloc(2 * nn * sizeof *times);
  if (!prep->orig || !prep->size || !prep->align || !prep->iv_first || !prep->lo || !prep->hi || !prep->length ||
      !times) {
    free(times);
    berth_alloc_prep_deinit(prep);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory preparing %d buffers", (int)p->n);
  }
  int32_t nt = 0;
  m = 0;
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    if (b->size == 0 || b->n_intervals == 0) continue;
    prep->orig[m] = i;
    prep->size[m] = b->size;
    prep->align[m] = b->align > 1 ? b->align : 1;
    int64_t len = 0;
    for (int32_t k = 0; k < b->n_intervals; k++) {
      times[nt++] = b->intervals[k].lower;
      times[nt++] = b->intervals[k].upper;
      /* Saturate: lengths only order buffers. */
      uint64_t d = (uint64_t)b->intervals[k].upper - (uint64_t)b->intervals[k].lower;
      len = d > (uint64_t)(INT64_MAX - len) ? INT64_MAX : len + (int64_t)d;
    }
    prep->length[m] = len;
    m++;
  }
  qsort(times, (size_t)nt, sizeof *times, cmp_i64);
  int32_t k = 0;
  for (int32_t i = 0; i < nt; i++)
    if (k == 0 || times[k - 1] != times[i]) times[k++] = times[i];
  prep->n_slots = k > 0 ? k - 1 : 0;
  int32_t iv = 0;
  for (int32_t a = 0; a < m; a++) {
    const berth_alloc_buffer_t *b = &p->buffers[prep->orig[a]];
    prep->iv_first[a] = iv;
    for (int32_t j = 0; j < b->n_intervals; j++) {
      prep->lo[iv] = slot_of(times, k, b->intervals[j].lower);
      prep->hi[iv] = slot_of(times, k, b->intervals[j].upper);
      iv++;
    }
  }
  prep->iv_first[m] = iv;
  free(times);
  if (!prep_lower_bound(prep)) {
    berth_alloc_prep_deinit(prep);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory preparing %d buffers", (int)p->n);
  }
  return BERTH_OK;
}

uint64_t berth_alloc_prep_scatter(const berth_alloc_prep_t *prep, const uint64_t *active_off, uint64_t *offsets) {
  uint64_t arena = 0;
  for (int32_t i = 0; i < prep->n; i++) offsets[i] = 0;
  for (int32_t a = 0; a < prep->m; a++) {
    offsets[prep->orig[a]] = active_off[a];
    if (active_off[a] + prep->size[a] > arena) arena = active_off[a] + prep->size[a];
  }
  return arena;
}

/* ---- independent segments --------------------------------------------------------------- */

int32_t berth_alloc_prep_split(const berth_alloc_prep_t *prep, int32_t *part, int32_t *seg_first) {
  int32_t S = prep->n_slots;
  /* cross[j]: buffers live (or between two of their intervals) both in slot j - 1 and in
   * slot j; a segment starts at every slot j > 0 with none. */
  int32_t *cross = calloc((size_t)S + 2, sizeof *cross);
  if (!cross) return -1;
  for (int32_t i = 0; i < prep->m; i++) {
    int32_t lo = prep->lo[prep->iv_first[i]], hi = prep->hi[prep->iv_first[i + 1] - 1];
    cross[lo + 1]++;
    cross[hi]--;
  }
  int32_t n = 0, c = 0;
  for (int32_t j = 0; j < S; j++) {
    c += cross[j];
    if (j == 0 || c == 0) seg_first[n++] = j;
    cross[j] = n - 1; /* the segment of slot j, from here on */
  }
  seg_first[n] = S;
  for (int32_t i = 0; i < prep->m; i++) part[i] = cross[prep->lo[prep->iv_first[i]]];
  free(cross);
  return n;
}

bool berth_alloc_prep_sub(berth_alloc_prep_t *sub, const berth_alloc_prep_t *prep, const int32_t *list, int32_t k,
                          int32_t s0, int32_t s1) {
  memset(sub, 0, sizeof *sub);
  int32_t n_iv = 0;
  for (int32_t t = 0; t < k; t++) n_iv += prep->iv_first[list[t] + 1] - prep->iv_first[list[t]];
  size_t mm = (size_t)k + 1, nn = (size_t)n_iv + 1;
  sub->n = k;
  sub->m = k;
  sub->n_iv = n_iv;
  sub->n_slots = s1 - s0;
  sub->orig = malloc(mm * sizeof *sub->orig);
  sub->size = malloc(mm * sizeof *sub->size);
  sub->align = malloc(mm * sizeof *sub->align);
  sub->iv_first = malloc(mm * sizeof *sub->iv_first);
  sub->lo = malloc(nn * sizeof *sub->lo);
  sub->hi = malloc(nn * sizeof *sub->hi);
  sub->length = malloc(mm * sizeof *sub->length);
  if (!sub->orig || !sub->size || !sub->align || !sub->iv_first || !sub->lo || !sub->hi || !sub->length) {
    berth_alloc_prep_deinit(sub);
    return false;
  }
  int32_t iv = 0;
  for (int32_t t = 0; t < k; t++) {
    int32_t a = list[t];
    sub->orig[t] = a;
    sub->size[t] = prep->size[a];
    sub->align[t] = prep->align[a];
    sub->length[t] = prep->length[a];
    sub->iv_first[t] = iv;
    for (int32_t r = prep->iv_first[a]; r < prep->iv_first[a + 1]; r++, iv++) {
      sub->lo[iv] = prep->lo[r] - s0;
      sub->hi[iv] = prep->hi[r] - s0;
    }
  }
  sub->iv_first[k] = iv;
  if (!prep_lower_bound(sub)) {
    berth_alloc_prep_deinit(sub);
    return false;
  }
  return true;
}
