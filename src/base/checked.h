/* Overflow-checked size arithmetic. Each returns false (and leaves *out alone) on overflow. */
#ifndef BERTH_BASE_CHECKED_H
#define BERTH_BASE_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

static inline bool berth_add_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (a > UINT64_MAX - b) return false;
  *out = a + b;
  return true;
}

static inline bool berth_mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (a != 0 && b > UINT64_MAX / a) return false;
  *out = a * b;
  return true;
}

/* Rounds a up to a multiple of align (align a power of two, or 0/1 for none). */
static inline bool berth_align_u64(uint64_t a, uint64_t align, uint64_t *out) {
  if (align <= 1) {
    *out = a;
    return true;
  }
  uint64_t r = a % align;
  if (r == 0) {
    *out = a;
    return true;
  }
  return berth_add_u64(a, align - r, out);
}

static inline bool berth_mul_i64(int64_t a, int64_t b, int64_t *out) {
  if (a < 0 || b < 0) return false;
  if (a != 0 && b > INT64_MAX / a) return false;
  *out = a * b;
  return true;
}

static inline bool berth_is_pow2(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

#endif
