#define _POSIX_C_SOURCE 200809L
/* The planner's driver: per method, the stages of plan_stages.h in order (the lowering:
 * timeline, storage groups, instruction stream; then arena groups -> pools -> offsets per
 * pool -> state -> the exec method -> report), then the independent verifier. */
#include "plan.h"
#include "base/try.h"

#include "base/checked.h"
#include "format/read_program.h"
#include "program/verify.h"
#include "plan_stages.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

berth_plan_options_t berth_plan_options_default(void) {
  berth_plan_options_t o;
  memset(&o, 0, sizeof o);
  o.algo = BERTH_ALLOC_GREEDY;
  o.budget_ms = 100;
  o.seed = 1;
  o.strategy = BERTH_STRATEGY_GLOBAL;
  o.alignment = 16;
  o.pools = NULL;
  o.alloc_inputs = -1;
  o.alloc_outputs = -1;
  o.verify = true;
  o.views = true;
  o.concat_in_place = BERTH_CONCAT_AUTO;
  o.hoist = true;
  o.hoist_min_bytes = 4096;
  return o;
}

const char *berth_strategy_name(berth_strategy_t s) { return s == BERTH_STRATEGY_REGIONS ? "regions" : "global"; }

bool berth_strategy_from_name(const char *name, berth_strategy_t *out) {
  if (strcmp(name, "global") == 0) *out = BERTH_STRATEGY_GLOBAL;
  else if (strcmp(name, "regions") == 0) *out = BERTH_STRATEGY_REGIONS;
  else return false;
  return true;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}


void berth_compiled_destroy(berth_compiled_t *c) {
  if (!c) return;
  berth_plan_owner_destroy(c->owned);
  free(c);
}

/* ---- pools ---------------------------------------------------------------------- */

/* Pool of a group: the first rule whose key matches ("input", "output", or the op of the
 * node that defines the group's root). */
berth_status_t berth_plan_pools_check(const char *rules, berth_diag_t *diag) {
  if (!rules || !*rules)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "pool rules take key=pool,... (key an op name, input or output), not an empty string");
  for (const char *p = rules; *p;) {
    size_t len = strcspn(p, ",");
    const char *eq = memchr(p, '=', len);
    if (!eq || eq == p) {
      char rule[64];
      berth_snprintf(rule, sizeof rule, "%s", p);
      rule[len < sizeof rule ? len : sizeof rule - 1] = '\0';
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "rule '%s' is not key=pool (key an op name, input or output)", rule);
    }
    size_t klen = (size_t)(eq - p);
    char key[64];
    berth_snprintf(key, sizeof key, "%s", p);
    key[klen < sizeof key ? klen : sizeof key - 1] = '\0';
    bool io = (klen == 5 && !memcmp(p, "input", 5)) || (klen == 6 && !memcmp(p, "output", 6));
    if (!io && berth_op_find(p, klen) == BERTH_OP_COUNT)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "'%s' is not an op name, input or output (op names as in the text format: add, mul, matmul, ...)", key);
    const char *v = eq + 1, *end = p + len;
    long id = 0;
    bool ok = v < end && end - v <= 3;
    for (const char *c = v; ok && c < end; c++) {
      if (*c < '0' || *c > '9') ok = false;
      else id = id * 10 + (*c - '0');
    }
    if (!ok || id >= BERTH_MAX_POOLS) {
      char rule[64];
      berth_snprintf(rule, sizeof rule, "%s", p);
      rule[len < sizeof rule ? len : sizeof rule - 1] = '\0';
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "rule '%s': pool must be 0..%d", rule, BERTH_MAX_POOLS - 1);
    }
    for (const char *q = rules; q < p;) { /* each key once: a second rule would never apply */
      size_t ql = strcspn(q, ",");
      const char *qe = memchr(q, '=', ql);
      if ((size_t)(qe - q) == klen && !memcmp(q, p, klen))
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "key '%s' given twice", key);
      q += ql + 1;
    }
    p = *end ? end + 1 : end;
    if (!*p && end[0] == ',') return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "'%s' ends with ','", rules);
  }
  return BERTH_OK;
}

/* Every stage after the lowering, in order (plan_stages.h). */
static berth_status_t plan_stages(berth_plan_lowered_t *c, berth_plan_owner_t *o, const uint64_t *const_offsets,
                                  berth_exec_method_t *em, berth_plan_method_report_t *rep) {
  berth_plan_groups_t groups;
  berth_plan_pools_t pools;
  berth_plan_offsets_t offsets;
  berth_plan_state_t state;
  berth_plan_exec_t exec;
  BERTH_TRY(berth_plan_groups(c, o, &groups));
  BERTH_TRY(berth_plan_assign_pools(c, o, &groups, &pools));
  BERTH_TRY(berth_plan_offsets(c, o, &groups, &pools, &offsets));
  BERTH_TRY(berth_plan_state(c, o, &state));
  BERTH_TRY(berth_plan_assemble(c, o, const_offsets, &groups, &pools, &offsets, &state, &exec));
  *em = exec.method;
  return berth_plan_report(c, o, &offsets, &state, &exec, rep);
}

static berth_status_t plan_method_once(const berth_ir_program_t *p, int32_t mi, const berth_plan_options_t *opt,
                                       const uint64_t *const_offsets, berth_plan_owner_t *o, berth_exec_method_t *em,
                                       berth_plan_method_report_t *rep, berth_diag_t *diag) {
  berth_plan_lowered_t c;
  berth_status_t st = berth_plan_lower(&c, p, mi, opt, diag);
  if (!st) st = plan_stages(&c, o, const_offsets, em, rep);
  berth_plan_lower_deinit(&c);
  return st;
}

static uint64_t arena_total(const berth_plan_method_report_t *rep) {
  uint64_t t = 0;
  for (int32_t k = 0; k < rep->n_pools; k++) t += rep->pools[k].arena_bytes;
  return t;
}

/* One method. With BERTH_CONCAT_AUTO, a plan with Concats done in place (views.c: they
 * lengthen their parts' lifetimes) is kept only when its arena is no larger than the plan
 * without them; the loser's memory stays with the owner until the compilation is freed. */
static berth_status_t plan_method(const berth_ir_program_t *p, int32_t mi, const berth_plan_options_t *opt,
                                  const uint64_t *const_offsets, berth_plan_owner_t *o, berth_exec_method_t *em,
                                  berth_plan_method_report_t *rep, berth_diag_t *diag) {
  double t0 = now_ms();
  berth_status_t st = plan_method_once(p, mi, opt, const_offsets, o, em, rep, diag);
  if (!st && opt->concat_in_place == BERTH_CONCAT_AUTO && rep->concats_in_place > 0) {
    berth_plan_options_t copy = *opt;
    copy.concat_in_place = BERTH_CONCAT_COPY;
    berth_exec_method_t em2;
    berth_plan_method_report_t rep2;
    memset(&em2, 0, sizeof em2); /* the stages fill what they own; the report counts up from 0 */
    memset(&rep2, 0, sizeof rep2);
    st = plan_method_once(p, mi, &copy, const_offsets, o, &em2, &rep2, diag);
    if (!st && arena_total(&rep2) < arena_total(rep)) {
      *em = em2;
      *rep = rep2;
    }
  }
  if (!st) rep->time_ms = now_ms() - t0;
  return st;
}

berth_status_t berth_plan_compile(const berth_ir_program_t *p, const berth_plan_options_t *opt,
                                  berth_compiled_t **out, berth_diag_t *diag) {
  if (opt->alignment == 0 || !berth_is_pow2(opt->alignment))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "alignment %u is not a power of two", (unsigned)opt->alignment);
  if (opt->pools && *opt->pools) {
    berth_status_t pst = berth_plan_pools_check(opt->pools, diag);
    if (pst) return berth_fail_prefix(diag, pst, "pool rules '%s': ", opt->pools);
  }
  berth_compiled_t *c = calloc(1, sizeof *c);
  berth_plan_owner_t *o = berth_plan_owner_create();
  if (!c || !o) {
    free(c);
    berth_plan_owner_destroy(o);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  c->owned = o;
  berth_status_t st = BERTH_OK;
  /* constants: one blob, each aligned to 64 so kernels can use them in place */
  uint64_t *coff = berth_plan_own_n(o, (size_t)p->n_globals, sizeof *coff);
  uint64_t csize = 0;
  for (int32_t g = 0; coff && g < p->n_globals; g++) {
    if (p->globals[g].is_state) continue;
    uint64_t aligned;
    if (berth_align_u64(csize, BERTH_FORMAT_CONST_ALIGN, &aligned)) csize = aligned;
    coff[g] = csize;
    csize += berth_type_bytes(&p->globals[g].type);
  }
  uint8_t *blob = csize > SIZE_MAX ? NULL : berth_plan_own_big(o, (size_t)csize);
  berth_exec_method_t *methods = berth_plan_own_n(o, (size_t)p->n_methods, sizeof *methods);
  c->reports = berth_plan_own_n(o, (size_t)p->n_methods, sizeof *c->reports);
  if (!coff || !blob || !methods || !c->reports) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t g = 0; !st && g < p->n_globals; g++)
    if (!p->globals[g].is_state) memcpy(blob + coff[g], p->globals[g].data, berth_type_bytes(&p->globals[g].type));
  c->exec.alloc_inputs = opt->alloc_inputs < 0 ? p->alloc_inputs : opt->alloc_inputs != 0;
  c->exec.alloc_outputs = opt->alloc_outputs < 0 ? p->alloc_outputs : opt->alloc_outputs != 0;
  c->exec.constants = blob;
  c->exec.constants_size = csize;
  c->exec.methods = methods;
  c->exec.n_methods = p->n_methods;
  for (int32_t mi = 0; !st && mi < p->n_methods; mi++) {
    st = plan_method(p, mi, opt, coff, o, &methods[mi], &c->reports[mi], diag);
    if (st) berth_fail_prefix(diag, st, "method %s", p->methods[mi].name);
  }
  if (!st && opt->verify) {
    size_t need = berth_verify_program_scratch_size(&c->exec);
    void *scratch = need == SIZE_MAX ? NULL : malloc(need ? need : 1);
    if (!scratch) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "verifier scratch: out of memory");
    else st = berth_verify_program(&c->exec, scratch, need, diag);
    free(scratch);
    for (int32_t mi = 0; !st && mi < p->n_methods; mi++) c->reports[mi].verified = true;
  }
  if (st) {
    berth_compiled_destroy(c);
    return st;
  }
  *out = c;
  return BERTH_OK;
}
