/* `execute` performs no heap allocation: the test replaces malloc and friends with counting
 * versions that fail (return NULL) while execute runs, then runs the example programs
 * through the planned runtime, several calls each, with and without the sanitizer. */
#include "runtime/interp.h"
#include "runtime/sanitizer.h"
#include "plan/plan.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define BERTH_HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BERTH_HAVE_ASAN 1
#endif
#endif

#ifndef BERTH_HAVE_ASAN
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static int forbid;
static long forbidden_calls;

void *malloc(size_t n) {
  if (forbid) { forbidden_calls++; return NULL; }
  return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
  if (forbid) { forbidden_calls++; return NULL; }
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
  if (forbid) { forbidden_calls++; return NULL; }
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n) {
  if (forbid) { forbidden_calls++; return NULL; }
  return __libc_memalign(a, n);
}
void free(void *p) {
  if (forbid && p) forbidden_calls++;
  __libc_free(p);
}

static void run_program(const char *path, int n_calls) {
  size_t len;
  char file[1024];
  snprintf(file, sizeof file, "%s/%s", BERTH_SOURCE_DIR, path);
  char *text = test_read_file(file, &len);
  CHECK_MSG(text != NULL, "cannot read %s", file);
  if (!text) return;
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  CHECK_MSG(berth_ir_parse(text, len, path, &p, &d) == BERTH_OK && berth_ir_validate(p, &d) == BERTH_OK, "%s", msg);
  free(text);
  if (!p) return;
  for (int sanitize = 0; sanitize < 2; sanitize++) {
    berth_plan_options_t o = berth_plan_options_default();
    berth_compiled_t *c = NULL;
    CHECK_MSG(berth_plan_compile(p, &o, &c, &d) == BERTH_OK, "%s", msg);
    if (!c) continue;
    const berth_exec_method_t *m = &c->exec.methods[0];
    uint8_t *pools[BERTH_MAX_POOLS];
    for (int32_t i = 0; i < m->n_pools; i++) pools[i] = aligned_alloc(64, (m->pool_sizes[i] + 64) / 64 * 64);
    uint8_t *state = aligned_alloc(64, (m->state_size + 64) / 64 * 64);
    memcpy(state, m->state_init, m->state_size);
    int64_t regs[64];
    void *ins[16], *outs[16];
    for (int32_t k = 0; k < m->n_inputs; k++) ins[k] = calloc(1, berth_type_bytes(&m->values[m->inputs[k]].type) + 1);
    for (int32_t k = 0; k < m->n_outputs; k++) outs[k] = calloc(1, berth_type_bytes(&m->values[m->outputs[k]].type) + 1);
    void *san_mem = NULL;
    berth_sanitizer_t *san = NULL;
    if (sanitize) {
      size_t need = berth_sanitizer_size(&c->exec, 0);
      san_mem = malloc(need);
      CHECK(berth_sanitizer_init(san_mem, need, &c->exec, 0, &san, &d) == BERTH_OK);
    }
    uint8_t *hoist = aligned_alloc(64, (m->hoist_size + 64) / 64 * 64);
    berth_exec_memory_t mem = {pools, state, (const void *const *)ins, outs, regs, hoist, NULL, NULL};
    berth_tensor_ref_t refs[2 * BERTH_MAX_KERNEL_OPERANDS];
    CHECK(berth_exec_run_once(&c->exec, 0, &mem, refs, &d) == BERTH_OK); /* at init: may allocate nothing either */
    for (int call = 0; call < n_calls; call++) {
      if (c->exec.alloc_inputs)
        for (int32_t k = 0; k < m->n_inputs; k++)
          memcpy(berth_exec_addr(&c->exec, m, &mem, m->inputs[k]), ins[k], berth_type_bytes(&m->values[m->inputs[k]].type));
      forbidden_calls = 0;
      forbid = 1;
      berth_status_t st = berth_exec_run(&c->exec, 0, &mem, san, 0, &d);
      forbid = 0;
      CHECK_MSG(st == BERTH_OK, "%s: %s", path, msg);
      CHECK_MSG(forbidden_calls == 0, "%s: %ld heap calls during execute", path, forbidden_calls);
    }
    for (int32_t i = 0; i < m->n_pools; i++) free(pools[i]);
    for (int32_t k = 0; k < m->n_inputs; k++) free(ins[k]);
    for (int32_t k = 0; k < m->n_outputs; k++) free(outs[k]);
    free(state);
    free(hoist);
    free(san_mem);
    berth_compiled_destroy(c);
  }
  berth_ir_program_destroy(p);
}

int main(void) {
  /* the counter itself must be able to fail */
  void *(*volatile alloc_fn)(size_t) = malloc;
  forbid = 1;
  void *x = alloc_fn(8);
  forbid = 0;
  CHECK(x == NULL && forbidden_calls == 1);
  run_program("examples/seed/seed.bir", 3);
  run_program("examples/three_buffers/three_buffers.bir", 4);
  run_program("examples/while_loop/countdown.bir", 2);
  run_program("examples/scan/scan.bir", 2);
  run_program("examples/map/map.bir", 2);
  run_program("examples/passthrough/passthrough.bir", 2);
  return test_finish("test_no_alloc");
}
#else
int main(void) {
  fprintf(stderr, "test_no_alloc: skipped under AddressSanitizer (it replaces malloc itself); the plain build runs it\n");
  return 77;
}
#endif
