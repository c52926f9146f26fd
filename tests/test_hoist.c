/* Hoisting (src/plan/hoist.c): kernel calls on constants alone run once, at method init, into
 * the hoist region; the arena no longer holds their results and a call no longer computes
 * them. Pinned here: which calls are hoisted (the size threshold, views of hoisted values,
 * method results stay per call), the plan summary and the runtime's hoist size, results
 * equal to the unhoisted plan's on two calls (also with the sanitizer), and the verifier's
 * rules for the once-stream (exec_program.h) on plans broken on purpose. */
#include "berth/compiler.h"
#include "berth/runtime.h"
#include "compiler/compiler_internal.h"
#include "program/verify.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static char msg[2048];

/* %f (4096 bytes out) and %g (8192 in, 4096 out) are constant-only and large enough; %r and
 * %r2 are views of %g; %s is constant-only but small, and a method result. */
static const char *k_program =
    "program {alloc_inputs = 1, alloc_outputs = 1}\n"
    "const @b : f32[4] = [1, 2, 3, 4]\n"
    "func @forward(%x : f32[1,32]) -> (f32[1,32], f32[4]) {\n"
    "  %f = full() {shape = [32, 32], dtype = f32, value = 0.5} : f32[32,32]\n"
    "  %g = add(%f, %f) : f32[32,32]\n"
    "  %r = reshape(%g) {shape = [1024]} : f32[1024]\n"
    "  %r2 = reshape(%r) {shape = [32, 32]} : f32[32,32]\n"
    "  %y = matmul(%x, %r2) : f32[1,32]\n"
    "  %s = mul(@b, @b) : f32[4]\n"
    "  return %y, %s\n"
    "}\n";

static berth_compilation_t *compile(bool hoist, int64_t min_bytes) {
  berth_compile_options_t o = berth_compile_options_default();
  o.hoist = hoist;
  o.hoist_min_bytes = min_bytes;
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_compilation_t *c = NULL;
  CHECK_MSG(berth_compile(k_program, strlen(k_program), "hoist", &o, &c, &d) == BERTH_OK, "%s", msg);
  return c;
}

/* The storage class of the value named name in method 0, or -1. */
static int storage_of(const berth_compilation_t *c, const char *name) {
  berth_plan_value_t v;
  for (int32_t k = 0; k < berth_compilation_value_count(c, 0); k++)
    if (berth_compilation_value(c, 0, k, &v, NULL) == BERTH_OK && strcmp(v.name, name) == 0) return (int)v.storage;
  return -1;
}

static uint64_t arena_of(const berth_compilation_t *c) {
  uint64_t a = 0;
  berth_compilation_totals(c, &a, NULL, NULL);
  return a;
}

static void test_what_is_hoisted(void) {
  berth_compilation_t *on = compile(true, 4096), *off = compile(false, 4096), *big = compile(true, 1 << 20),
                      *all = compile(true, 0);
  if (!on || !off || !big || !all) goto done;
  berth_plan_summary_t s;
  CHECK(berth_compilation_summary(on, 0, &s, NULL) == BERTH_OK);
  CHECK_MSG(s.hoisted == 2 && s.hoist_bytes == 8192, "%d hoisted calls, %llu bytes; want 2 (full, add), 8192", (int)s.hoisted,
            (unsigned long long)s.hoist_bytes);
  const char *hoisted[] = {"f", "g", "r", "r2"};
  for (int k = 0; k < 4; k++)
    CHECK_MSG(storage_of(on, hoisted[k]) == BERTH_PLAN_STORAGE_HOIST, "%%%s: storage %d", hoisted[k],
              storage_of(on, hoisted[k]));
  CHECK_MSG(storage_of(on, "s") == BERTH_PLAN_STORAGE_ARENA, "the small %%s: storage %d", storage_of(on, "s"));
  CHECK(strcmp(berth_plan_storage_name(BERTH_PLAN_STORAGE_HOIST), "hoist") == 0);
  /* the arena no longer holds %f and %g */
  CHECK_MSG(arena_of(on) <= 512 && arena_of(off) >= 8192, "arena %llu hoisted, %llu not", (unsigned long long)arena_of(on),
            (unsigned long long)arena_of(off));
  CHECK(berth_compilation_summary(off, 0, &s, NULL) == BERTH_OK && s.hoisted == 0 && s.hoist_bytes == 0);
  CHECK(storage_of(off, "g") == BERTH_PLAN_STORAGE_ARENA);
  CHECK(berth_compilation_summary(big, 0, &s, NULL) == BERTH_OK && s.hoisted == 0);
  /* with no threshold, %s is still computed per call: its bytes are the method's result */
  CHECK(berth_compilation_summary(all, 0, &s, NULL) == BERTH_OK && s.hoisted == 2);
  CHECK(storage_of(all, "s") == BERTH_PLAN_STORAGE_ARENA);
  berth_compile_options_t o = berth_compile_options_default();
  o.hoist_min_bytes = -1;
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  CHECK(berth_compile_options_check(&o, &d) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "hoist_min_bytes"));
done:
  berth_compilation_destroy(on);
  berth_compilation_destroy(off);
  berth_compilation_destroy(big);
  berth_compilation_destroy(all);
}

/* Loads c's file, runs forward twice (with the sanitizer when asked) and checks both results. */
static void run_twice(const berth_compilation_t *c, bool sanitize) {
  size_t len;
  const uint8_t *bytes = berth_compilation_bytes(c, &len);
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_program_sizes_t sz;
  CHECK(berth_program_query(bytes, len, &sz, &d) == BERTH_OK);
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes + 1);
  berth_program_t *prog = NULL;
  CHECK_MSG(berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &d) == BERTH_OK, "%s",
            msg);
  free(scratch);
  berth_plan_summary_t s;
  CHECK(berth_compilation_summary(c, 0, &s, NULL) == BERTH_OK);
  CHECK(!prog || berth_program_hoist_size(prog, 0) == s.hoist_bytes);
  CHECK(!prog || berth_program_hoist_size(prog, 5) == 0);
  size_t need = prog ? berth_method_memory_size(prog, 0) : 0;
  void *mmem = malloc(need ? need : 1), *smem = NULL;
  berth_method_t *h = NULL;
  CHECK(prog && berth_method_init(prog, 0, mmem, need, NULL, 0, &h, &d) == BERTH_OK);
  if (h && sanitize) {
    size_t sn = berth_method_sanitizer_size(prog, 0);
    smem = malloc(sn);
    CHECK_MSG(berth_method_set_sanitizer(h, smem, sn, &d) == BERTH_OK, "%s", msg);
  }
  for (int call = 0; h && call < 2; call++) {
    float x[32], sum = 0;
    for (int i = 0; i < 32; i++) sum += x[i] = (float)(i + call);
    CHECK(berth_method_set_input(h, 0, x, sizeof x, &d) == BERTH_OK);
    CHECK_MSG(berth_method_execute(h, &d) == BERTH_OK, "call %d: %s", call, msg);
    const void *y = NULL, *sq = NULL;
    size_t yb = 0, sb = 0;
    CHECK(berth_method_output(h, 0, &y, &yb, &d) == BERTH_OK && yb == 32 * sizeof(float));
    CHECK(berth_method_output(h, 1, &sq, &sb, &d) == BERTH_OK && sb == 4 * sizeof(float));
    for (int j = 0; y && j < 32; j++)
      CHECK_MSG(((const float *)y)[j] == sum, "call %d y[%d] = %g, want %g", call, j, ((const float *)y)[j], sum);
    for (int j = 0; sq && j < 4; j++) CHECK(((const float *)sq)[j] == (float)((j + 1) * (j + 1)));
  }
  free(smem);
  free(mmem);
  free(pmem);
}

static void test_runs(void) {
  berth_compilation_t *on = compile(true, 4096), *off = compile(false, 4096);
  if (on) run_twice(on, false);
  if (on) run_twice(on, true);
  if (off) run_twice(off, true);
  berth_compilation_destroy(on);
  berth_compilation_destroy(off);
}

/* Verifies p with method 0 replaced by *m; the status, the message in msg. */
static berth_status_t verify_as(const berth_exec_program_t *p, const berth_exec_method_t *m) {
  berth_exec_program_t q = *p;
  q.methods = m;
  q.n_methods = 1;
  size_t need = berth_verify_program_scratch_size(&q);
  void *scratch = malloc(need);
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_status_t st = berth_verify_program(&q, scratch, need, &d);
  free(scratch);
  return st;
}

static void test_verifier(void) {
  berth_compilation_t *c = compile(true, 4096);
  if (!c) return;
  const berth_exec_program_t *p = berth_compilation_exec(c);
  berth_exec_method_t m = p->methods[0];
  CHECK_MSG(m.n_once == 4 && verify_as(p, &m) == BERTH_OK, "n_once %d: %s", (int)m.n_once, msg); /* full, add, 2 views */
  m.n_once = 0; /* the hoisted calls would run on every call, writing the hoist region */
  CHECK_MSG(verify_as(p, &m) == BERTH_ERR_VERIFY_FAILED && strstr(msg, "in the hoist region"), "%s", msg);
  m.n_once = 2; /* the views of the hoisted %g would be defined by every call */
  CHECK_MSG(verify_as(p, &m) == BERTH_ERR_VERIFY_FAILED && strstr(msg, "defines"), "%s", msg);
  m.n_once = 5; /* the matmul reads the method's input */
  CHECK_MSG(verify_as(p, &m) == BERTH_ERR_VERIFY_FAILED && strstr(msg, "once-stream") && strstr(msg, "reads"), "%s", msg);
  m.n_once = m.n_instrs; /* the return cannot be in it */
  CHECK_MSG(verify_as(p, &m) == BERTH_ERR_CORRUPT_DATA && strstr(msg, "once-stream"), "%s", msg);
  m = p->methods[0];
  m.hoist_size = 4096; /* %g's bytes lie past it */
  CHECK_MSG(verify_as(p, &m) == BERTH_ERR_CORRUPT_DATA && strstr(msg, "hoist region"), "%s", msg);
  berth_compilation_destroy(c);
}

int main(void) {
  test_what_is_hoisted();
  test_runs();
  test_verifier();
  return test_finish("test_hoist");
}
