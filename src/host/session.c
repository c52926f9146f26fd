/* Host-side sessions (see session.h). */
#include "session.h"

#include "runtime/interp.h"
#include "runtime/sanitizer.h"

#include <stdlib.h>
#include <string.h>

typedef struct msess {
  uint8_t **pools;
  uint8_t *state;
  int64_t *regs;
  void *san_mem;
  berth_sanitizer_t *san;
} msess_t;

struct berth_session {
  const berth_compiled_t *c;
  bool sanitize;
  uint64_t max_steps; /* 0: the runtime's default */
  msess_t *m;
};

static void *aligned(size_t bytes) {
  size_t n = (bytes + 63) / 64 * 64;
  return aligned_alloc(64, n ? n : 64);
}

void berth_session_set_max_steps(berth_session_t *s, uint64_t max_steps) { s->max_steps = max_steps; }

void berth_session_destroy(berth_session_t *s) {
  if (!s) return;
  for (int32_t mi = 0; s->m && mi < s->c->exec.n_methods; mi++) {
    msess_t *ms = &s->m[mi];
    for (int32_t p = 0; ms->pools && p < s->c->exec.methods[mi].n_pools; p++) free(ms->pools[p]);
    free(ms->pools);
    free(ms->state);
    free(ms->regs);
    free(ms->san_mem);
  }
  free(s->m);
  free(s);
}

berth_status_t berth_session_create(const berth_compiled_t *c, bool sanitize, berth_session_t **out,
                                    berth_diag_t *diag) {
  berth_session_t *s = calloc(1, sizeof *s);
  if (!s) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  s->c = c;
  s->sanitize = sanitize;
  s->m = calloc((size_t)(c->exec.n_methods ? c->exec.n_methods : 1), sizeof *s->m);
  if (!s->m) goto oom;
  for (int32_t mi = 0; mi < c->exec.n_methods; mi++) {
    const berth_exec_method_t *em = &c->exec.methods[mi];
    msess_t *ms = &s->m[mi];
    ms->pools = calloc((size_t)(em->n_pools ? em->n_pools : 1), sizeof *ms->pools);
    ms->state = aligned((size_t)em->state_size);
    ms->regs = calloc((size_t)(em->n_regs ? em->n_regs : 1), sizeof *ms->regs);
    if (!ms->pools || !ms->state || !ms->regs) goto oom;
    for (int32_t p = 0; p < em->n_pools; p++) {
      ms->pools[p] = aligned((size_t)em->pool_sizes[p]);
      if (!ms->pools[p]) goto oom;
      memset(ms->pools[p], 0xA5, (size_t)em->pool_sizes[p]); /* garbage, not zeros */
    }
    memcpy(ms->state, em->state_init, (size_t)em->state_size);
    if (sanitize) {
      size_t need = berth_sanitizer_size(&c->exec, mi);
      ms->san_mem = need == SIZE_MAX ? NULL : malloc(need ? need : 1);
      if (!ms->san_mem) goto oom;
      berth_status_t st = berth_sanitizer_init(ms->san_mem, need, &c->exec, mi, &ms->san, diag);
      if (st) {
        berth_session_destroy(s);
        return st;
      }
    }
  }
  *out = s;
  return BERTH_OK;
oom:
  berth_session_destroy(s);
  return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
}

berth_status_t berth_session_call(berth_session_t *s, int32_t method, const void *const *inputs,
                                  void **outputs, berth_diag_t *diag) {
  const berth_exec_program_t *p = &s->c->exec;
  if (method < 0 || method >= p->n_methods) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no method %d", (int)method);
  const berth_exec_method_t *em = &p->methods[method];
  msess_t *ms = &s->m[method];
  void **outbufs = calloc((size_t)(em->n_outputs ? em->n_outputs : 1), sizeof *outbufs);
  if (!outbufs) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_status_t st = BERTH_OK;
  for (int32_t k = 0; k < em->n_outputs && !st; k++) {
    size_t bytes = berth_type_bytes(&em->values[em->outputs[k]].type);
    outbufs[k] = malloc(bytes ? bytes : 1);
    if (!outbufs[k]) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    else memset(outbufs[k], 0x5A, bytes);
  }
  berth_exec_memory_t mem = {ms->pools, ms->state, inputs, outbufs, ms->regs};
  if (!st && p->alloc_inputs)
    for (int32_t k = 0; k < em->n_inputs; k++) {
      int32_t v = em->inputs[k];
      memcpy(berth_exec_addr(p, em, &mem, v), inputs[k], berth_type_bytes(&em->values[v].type));
    }
  if (!st) st = berth_exec_run(p, method, &mem, ms->san, s->max_steps, diag);
  for (int32_t k = 0; k < em->n_outputs && !st; k++) {
    int32_t v = em->outputs[k];
    size_t bytes = berth_type_bytes(&em->values[v].type);
    if (p->alloc_outputs) memcpy(outbufs[k], berth_exec_addr(p, em, &mem, v), bytes);
  }
  for (int32_t k = 0; k < em->n_outputs; k++) {
    if (st) free(outbufs[k]);
    else outputs[k] = outbufs[k];
  }
  free(outbufs);
  return st;
}

const void *berth_session_state(const berth_session_t *s, const berth_ir_program_t *p, int32_t method, int32_t g) {
  const berth_exec_method_t *em = &s->c->exec.methods[method];
  if (g < 0 || g >= p->n_globals || !p->globals[g].is_state) return NULL;
  for (int32_t v = 0; v < em->n_values; v++)
    if (em->values[v].storage == BERTH_STORAGE_STATE && em->values[v].window_parent < 0 &&
        strcmp(em->values[v].name, p->globals[g].name) == 0)
      return s->m[method].state + em->values[v].offset;
  return NULL;
}
