/* Host-side sessions (see session.h): heap memory around the public runtime API. */
#include "host/session.h"

#include "format/read_program.h"
#include "runtime/runtime_internal.h"
#include "berth/memory.h"

#include <stdlib.h>
#include <string.h>

typedef struct msess {
  void *mem;              /* the handle and state (berth_method_handle_size) */
  uint8_t **arenas;       /* one per pool, garbage-filled */
  berth_arena_t *arena_list;
  void *san_mem;
  berth_method_t *h;
  const char **names;     /* input names, then output names */
} msess_t;

struct berth_session {
  const berth_exec_program_t *exec;
  berth_format_program_t fp;    /* exec plus the names the public API reports */
  berth_format_method_t *fm;
  void *prog_mem;
  berth_program_t *prog;
  msess_t *m;
};

/* arenas and method memory: on huge pages where offered, as an embedder on a host would
 * (berth/memory.h) */
static void *aligned(size_t bytes) { return berth_host_alloc(bytes); }

void berth_session_set_max_steps(berth_session_t *s, uint64_t max_steps) {
  for (int32_t mi = 0; mi < s->exec->n_methods; mi++) berth_method_set_max_steps(s->m[mi].h, max_steps);
}

void berth_session_destroy(berth_session_t *s) {
  if (!s) return;
  for (int32_t mi = 0; s->m && mi < s->exec->n_methods; mi++) {
    msess_t *ms = &s->m[mi];
    for (int32_t p = 0; ms->arenas && p < s->exec->methods[mi].n_pools; p++) free(ms->arenas[p]);
    free(ms->arenas);
    free(ms->arena_list);
    free(ms->mem);
    free(ms->san_mem);
    free(ms->names);
  }
  free(s->m);
  free(s->fm);
  free(s->prog_mem);
  free(s);
}

/* Method mi's names, arenas, handle and sanitizer. */
static berth_status_t method_open(berth_session_t *s, int32_t mi, bool sanitize, berth_diag_t *diag) {
  const berth_exec_method_t *em = &s->exec->methods[mi];
  msess_t *ms = &s->m[mi];
  size_t n_io = (size_t)em->n_inputs + (size_t)em->n_outputs;
  ms->names = calloc(n_io ? n_io : 1, sizeof *ms->names);
  ms->arenas = calloc((size_t)(em->n_pools ? em->n_pools : 1), sizeof *ms->arenas);
  ms->arena_list = calloc((size_t)(em->n_pools ? em->n_pools : 1), sizeof *ms->arena_list);
  if (!ms->names || !ms->arenas || !ms->arena_list) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t k = 0; k < em->n_inputs + em->n_outputs; k++) {
    int32_t v = k < em->n_inputs ? em->inputs[k] : em->outputs[k - em->n_inputs];
    ms->names[k] = em->values[v].name ? em->values[v].name : "";
  }
  s->fm[mi].input_names = ms->names;
  s->fm[mi].output_names = ms->names + em->n_inputs;
  for (int32_t p = 0; p < em->n_pools; p++) {
    size_t bytes = (size_t)em->pool_sizes[p];
    ms->arenas[p] = aligned(bytes);
    if (!ms->arenas[p]) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    memset(ms->arenas[p], 0xA5, bytes); /* garbage, not zeros */
    ms->arena_list[p].data = ms->arenas[p];
    ms->arena_list[p].bytes = bytes;
  }
  size_t need = em->n_pools ? berth_method_handle_size(s->prog, mi) : berth_method_memory_size(s->prog, mi);
  if (!need) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "method %s: its memory does not fit in size_t", em->name);
  ms->mem = aligned(need);
  if (!ms->mem) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_status_t st = berth_method_init(s->prog, mi, ms->mem, need, em->n_pools ? ms->arena_list : NULL, em->n_pools,
                                        &ms->h, diag);
  if (st != BERTH_OK || !sanitize) return st;
  size_t san = berth_method_sanitizer_size(s->prog, mi);
  ms->san_mem = san == SIZE_MAX ? NULL : malloc(san ? san : 1);
  if (!ms->san_mem) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  return berth_method_set_sanitizer(ms->h, ms->san_mem, san, diag);
}

berth_status_t berth_session_create(const berth_exec_program_t *p, bool sanitize, berth_session_t **out,
                                    berth_diag_t *diag) {
  if (!p || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_session_create: NULL argument");
  berth_session_t *s = calloc(1, sizeof *s);
  if (!s) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  s->exec = p;
  size_t n = (size_t)(p->n_methods > 0 ? p->n_methods : 1);
  s->m = calloc(n, sizeof *s->m);
  s->fm = calloc(n, sizeof *s->fm);
  s->prog_mem = malloc(berth_program_wrap_size());
  berth_status_t st = BERTH_OK;
  if (!s->m || !s->fm || !s->prog_mem) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  s->fp.exec = *p;
  s->fp.methods = s->fm;
  s->fp.verified = true;
  if (!st) st = berth_program_wrap(&s->fp, s->prog_mem, berth_program_wrap_size(), &s->prog, diag);
  for (int32_t mi = 0; !st && mi < p->n_methods; mi++) st = method_open(s, mi, sanitize, diag);
  if (st) {
    berth_session_destroy(s);
    return st;
  }
  *out = s;
  return BERTH_OK;
}

berth_method_t *berth_session_method(berth_session_t *s, int32_t method) {
  return s && method >= 0 && method < s->exec->n_methods ? s->m[method].h : NULL;
}

berth_status_t berth_session_call(berth_session_t *s, int32_t method, const void *const *inputs,
                                  void **outputs, berth_diag_t *diag) {
  const berth_exec_program_t *p = s->exec;
  if (method < 0 || method >= p->n_methods) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no method %d", (int)method);
  const berth_exec_method_t *em = &p->methods[method];
  berth_method_t *h = s->m[method].h;
  void **outbufs = calloc((size_t)(em->n_outputs ? em->n_outputs : 1), sizeof *outbufs);
  if (!outbufs) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_status_t st = BERTH_OK;
  for (int32_t k = 0; k < em->n_outputs && !st; k++) {
    size_t bytes = berth_type_bytes(&em->values[em->outputs[k]].type);
    outbufs[k] = malloc(bytes ? bytes : 1);
    if (!outbufs[k]) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    else memset(outbufs[k], 0x5A, bytes); /* garbage: an output the call does not write shows */
    if (!st && !p->alloc_outputs) st = berth_method_set_output(h, k, outbufs[k], bytes, diag);
  }
  for (int32_t k = 0; k < em->n_inputs && !st; k++)
    st = berth_method_set_input(h, k, inputs[k], berth_type_bytes(&em->values[em->inputs[k]].type), diag);
  if (!st) st = berth_method_execute(h, diag);
  for (int32_t k = 0; k < em->n_outputs && !st && p->alloc_outputs; k++) {
    const void *data;
    size_t bytes;
    st = berth_method_output(h, k, &data, &bytes, diag);
    if (!st) memcpy(outbufs[k], data, bytes);
  }
  for (int32_t k = 0; k < em->n_outputs; k++) {
    if (st) free(outbufs[k]);
    else outputs[k] = outbufs[k];
  }
  free(outbufs);
  return st;
}

berth_status_t berth_session_output_shape(berth_session_t *s, int32_t method, int32_t j, berth_type_t *type,
                                          berth_diag_t *diag) {
  berth_method_t *h = berth_session_method(s, method);
  if (!h) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_session_output_shape: no method %d", (int)method);
  return berth_method_output_shape(h, j, type, diag);
}

const void *berth_session_state(berth_session_t *s, int32_t method, const char *name) {
  berth_method_t *h = berth_session_method(s, method);
  void *data;
  size_t bytes;
  return h && berth_method_state(h, name, &data, &bytes, NULL) == BERTH_OK ? data : NULL;
}
