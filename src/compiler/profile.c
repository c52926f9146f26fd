/* The host-side profiler (berth/profile.h): a CLOCK_MONOTONIC read before and after each
 * kernel call and copy the runtime's observer reports, summed per instruction. */
#define _POSIX_C_SOURCE 200809L
#include "berth/profile.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct berth_profile {
  berth_method_t *m;
  int32_t n;
  uint64_t t0; /* the running instruction's start */
  uint64_t *ns, *runs;
};

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void observe(void *ctx, int32_t instr, bool begin) {
  berth_profile_t *p = ctx;
  const uint64_t t = now_ns();
  if (begin) {
    p->t0 = t;
  } else if (instr >= 0 && instr < p->n) {
    p->ns[instr] += t - p->t0;
    p->runs[instr]++;
  }
}

berth_status_t berth_profile_attach(berth_method_t *m, berth_profile_t **out, berth_diag_t *diag) {
  const int32_t n = berth_method_instr_count(m);
  if (n < 0) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_profile_attach: not a method handle");
  if (!out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_profile_attach: out is NULL");
  berth_profile_t *p = calloc(1, sizeof *p);
  if (p) {
    p->ns = calloc((size_t)n + 1, sizeof *p->ns);
    p->runs = calloc((size_t)n + 1, sizeof *p->runs);
  }
  if (!p || !p->ns || !p->runs) {
    if (p) free(p->ns), free(p->runs);
    free(p);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "berth_profile_attach: out of memory (%d instructions)",
                      (int)n);
  }
  p->m = m;
  p->n = n;
  berth_method_set_observer(m, observe, p);
  *out = p;
  return BERTH_OK;
}

uint64_t berth_profile_ns(const berth_profile_t *p, int32_t instr) {
  return p && instr >= 0 && instr < p->n ? p->ns[instr] : 0;
}

uint64_t berth_profile_runs(const berth_profile_t *p, int32_t instr) {
  return p && instr >= 0 && instr < p->n ? p->runs[instr] : 0;
}

void berth_profile_clear(berth_profile_t *p) {
  if (!p) return;
  memset(p->ns, 0, (size_t)p->n * sizeof *p->ns);
  memset(p->runs, 0, (size_t)p->n * sizeof *p->runs);
}

void berth_profile_detach(berth_profile_t *p) {
  if (!p) return;
  berth_method_set_observer(p->m, NULL, NULL);
  free(p->ns);
  free(p->runs);
  free(p);
}
