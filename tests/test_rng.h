/* The seeded generator of the randomized kernel tests (a 64-bit LCG; each test prints its
 * seed, BERTH_TEST_SEED replays one). Included once per test program. */
#ifndef BERTH_TESTS_TEST_RNG_H
#define BERTH_TESTS_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state;
static unsigned long long seed;
static inline uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}
static inline int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1)); }
/* uniform in [-1, 1] in steps of 1e-4 */
static inline float rndf(void) { return (float)(rnd() % 20001) / 10000.0f - 1.0f; }

#endif
