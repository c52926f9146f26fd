/* Planner scenarios: each program runs under the reference interpreter and under the
 * planned runtime (every algorithm, every alloc_inputs/outputs combination, sanitizer on),
 * and the outputs and state must match bit for bit; plus properties of the plans. */
#include "host/session.h"
#include "plan/plan.h"
#include "reference/reference.h"
#include "test_ir.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>


static berth_compiled_t *compile(const berth_ir_program_t *p, berth_plan_options_t o) {
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_compiled_t *c = NULL;
  if (berth_plan_compile(p, &o, &c, &d)) {
    fprintf(stderr, "compile: %s\n", msg);
    return NULL;
  }
  return c;
}

/* Runs `calls` calls of method 0 with inputs[call][k] under the oracle and under every
 * plan variant; returns true if all agree bit for bit (outputs and state). */
static bool agree(const berth_ir_program_t *p, int calls, const void *const *const *inputs) {
  static const berth_alloc_algo_t algos[] = {BERTH_ALLOC_NAIVE, BERTH_ALLOC_GREEDY, BERTH_ALLOC_SEARCH, BERTH_ALLOC_EXACT};
  const berth_ir_method_t *m = &p->methods[0];
  const berth_ir_graph_t *body = &m->graphs[0];
  bool ok = true;
  for (int a = 0; a < 4; a++)
    for (int io = 0; io < 4; io++) {
      berth_ref_t *ref = NULL;
      berth_ref_create(p, &ref, NULL);
      berth_plan_options_t o = berth_plan_options_default();
      o.algo = algos[a];
      o.budget_ms = 20;
      o.alloc_inputs = io & 1;
      o.alloc_outputs = io >> 1;
      berth_compiled_t *c = compile(p, o);
      berth_session_t *s = NULL;
      char msg[1024];
      berth_diag_t d = berth_diag_make(msg, sizeof msg);
      if (!c || berth_session_create(&c->exec, true, &s, &d)) {
        ok = false;
        berth_ref_destroy(ref);
        berth_compiled_destroy(c);
        continue;
      }
      for (int call = 0; call < calls; call++) {
        void *want[16], *got[16];
        if (berth_ref_call(ref, 0, inputs[call], want, NULL)) {
          ok = false;
          break;
        }
        if (berth_session_call(s, 0, inputs[call], got, &d)) {
          fprintf(stderr, "algo %d io %d call %d: %s\n", a, io, call, msg);
          ok = false;
          for (int32_t k = 0; k < body->n_results; k++) free(want[k]);
          break;
        }
        for (int32_t k = 0; k < body->n_results; k++) {
          size_t bytes = berth_type_bytes(&m->values[body->results[k]].type);
          if (memcmp(want[k], got[k], bytes)) {
            fprintf(stderr, "algo %d io %d call %d: output %d differs\n", a, io, call, (int)k);
            ok = false;
          }
          free(want[k]);
          free(got[k]);
        }
        for (int32_t g = 0; g < p->n_globals; g++) {
          if (!p->globals[g].is_state) continue;
          const void *rs = berth_ref_state(ref, 0, g), *ps = berth_session_state(s, 0, p->globals[g].name);
          if (rs && ps && memcmp(rs, ps, berth_type_bytes(&p->globals[g].type))) {
            fprintf(stderr, "algo %d io %d call %d: state %s differs\n", a, io, call, p->globals[g].name);
            ok = false;
          }
        }
      }
      berth_session_destroy(s);
      berth_compiled_destroy(c);
      berth_ref_destroy(ref);
    }
  return ok;
}

static uint64_t arena_of(const berth_ir_program_t *p, berth_alloc_algo_t algo, const char *pools, int32_t pool) {
  berth_plan_options_t o = berth_plan_options_default();
  o.algo = algo;
  o.pools = pools;
  o.alignment = 1;
  berth_compiled_t *c = compile(p, o);
  if (!c) return 0;
  uint64_t a = pool < c->reports[0].n_pools ? c->reports[0].pools[pool].arena_bytes : 0;
  berth_compiled_destroy(c);
  return a;
}

static void test_pools(void) {
  berth_ir_program_t *p = test_parse_ir(
      "func @forward(%a : f32[1]) -> (f32[1]) {\n"
      "  %b = add(%a, %a) : f32[1]\n  %c = mul(%a, %b) : f32[1]\n"
      "  %d = add(%c, %b) : f32[1]\n  %e = mul(%c, %d) : f32[1]\n  return %e\n}\n");
  CHECK(p != NULL);
  if (!p) return;
  const char *rule = "input=1,mul=1,add=3";
  CHECK(arena_of(p, BERTH_ALLOC_NAIVE, rule, 1) == 12);
  CHECK(arena_of(p, BERTH_ALLOC_NAIVE, rule, 3) == 8);
  CHECK(arena_of(p, BERTH_ALLOC_GREEDY, rule, 1) == 8);
  CHECK(arena_of(p, BERTH_ALLOC_GREEDY, rule, 3) == 8);
  float a = 1.5f;
  const void *in0[] = {&a};
  const void *const *ins[] = {in0};
  CHECK(agree(p, 1, ins));
  berth_ir_program_destroy(p);
}

/* Two sibling conds, both results returned (ExecuTorch puts both at offset 0). */
static void test_sibling_conds(void) {
  berth_ir_program_t *p = test_parse_ir(
      "func @forward(%p : bool[], %x : f32[4]) -> (f32[4], f32[4]) {\n"
      "  %first = cond(%p, %x) : f32[4]\n"
      "    then(%a : f32[4]) {\n      %a1 = add(%a, %a) : f32[4]\n      return %a1\n    }\n"
      "    else(%b : f32[4]) {\n      %b1 = sub(%b, %b) : f32[4]\n      return %b1\n    }\n"
      "  %second = cond(%p, %first) : f32[4]\n"
      "    then(%c : f32[4]) {\n      %c1 = mul(%c, %c) : f32[4]\n      return %c1\n    }\n"
      "    else(%d : f32[4]) {\n      %d1 = neg(%d) : f32[4]\n      return %d1\n    }\n"
      "  return %first, %second\n}\n");
  CHECK(p != NULL);
  if (!p) return;
  float x[4] = {1, 2, 3, 4};
  uint8_t t = 1, f = 0;
  const void *c0[] = {&t, x}, *c1[] = {&f, x};
  const void *const *ins[] = {c0, c1, c0};
  CHECK(agree(p, 3, ins));
  berth_ir_program_destroy(p);
}

/* Two conds consumed immediately may share memory: smaller than with no sharing. */
static void test_conds_share(void) {
  berth_ir_program_t *p = test_parse_ir(
      "func @forward(%p : bool[], %x : f32[64]) -> (f32[64]) {\n"
      "  %r1 = cond(%p, %x) : f32[64]\n"
      "    then(%a : f32[64]) {\n      %a1 = exp(%a) : f32[64]\n      return %a1\n    }\n"
      "    else(%b : f32[64]) {\n      %b1 = neg(%b) : f32[64]\n      return %b1\n    }\n"
      "  %s1 = sum(%r1) {axes = [], keepdims = 1} : f32[1]\n"
      "  %r2 = cond(%p, %x) : f32[64]\n"
      "    then(%c : f32[64]) {\n      %c1 = tanh(%c) : f32[64]\n      return %c1\n    }\n"
      "    else(%d : f32[64]) {\n      %d1 = abs(%d) : f32[64]\n      return %d1\n    }\n"
      "  %s2 = sum(%r2) {axes = [], keepdims = 1} : f32[1]\n"
      "  %out = add(%s1, %s2) : f32[1]\n"
      "  %outb = expand(%out) {shape = [64]} : f32[64]\n"
      "  return %outb\n}\n");
  CHECK(p != NULL);
  if (!p) return;
  uint64_t naive = arena_of(p, BERTH_ALLOC_NAIVE, NULL, 0), greedy = arena_of(p, BERTH_ALLOC_GREEDY, NULL, 0);
  CHECK_MSG(greedy < naive, "greedy %llu naive %llu", (unsigned long long)greedy, (unsigned long long)naive);
  float x[64];
  for (int i = 0; i < 64; i++) x[i] = (float)i / 10 - 3;
  uint8_t t = 1, f = 0;
  const void *c0[] = {&t, x}, *c1[] = {&f, x};
  const void *const *ins[] = {c0, c1};
  CHECK(agree(p, 2, ins));
  berth_ir_program_destroy(p);
}

/* A mutable buffer updated in place: one storage (state region), shared with nothing. */
static void test_state_own_storage(void) {
  berth_ir_program_t *p = test_parse_ir(
      "buffer @acc : f32[4] = [0, 0, 0, 0]\n"
      "func @forward(%x : f32[4]) -> (f32[4]) {\n"
      "  %n = add(@acc, %x) : f32[4]\n  copy_(@acc, %n)\n  %t = mul(%n, %n) : f32[4]\n  return %t\n}\n");
  CHECK(p != NULL);
  if (!p) return;
  berth_compiled_t *c = compile(p, berth_plan_options_default());
  CHECK(c != NULL);
  if (c) {
    const berth_exec_method_t *m = &c->exec.methods[0];
    int n_state = 0;
    for (int32_t v = 0; v < m->n_values; v++)
      if (m->values[v].storage == BERTH_STORAGE_STATE) n_state++;
    CHECK(n_state == 1);
    CHECK(m->state_size == 16);
    berth_compiled_destroy(c);
  }
  float x[4] = {1, 2, 3, 4};
  const void *c0[] = {x};
  const void *const *ins[] = {c0, c0, c0};
  CHECK(agree(p, 3, ins));
  berth_ir_program_destroy(p);
}

/* A loop whose carried values swap, and one whose old carried value is read after the new
 * one is computed (coalescing would be illegal: the planner must copy). */
static void test_loop_carried(void) {
  berth_ir_program_t *p = test_parse_ir(
      "func @forward(%n : i64[], %a : f32[2], %b : f32[2]) -> (f32[2], f32[2], f32[2]) {\n"
      "  %i_f, %a_f, %b_f, %c_f = while_loop(%n, %a, %b, %a) : i64[], f32[2], f32[2], f32[2]\n"
      "    cond(%ci : i64[], %ca : f32[2], %cb : f32[2], %cc : f32[2]) {\n"
      "      %z = full() {shape = [], dtype = i64, value = 0} : i64[]\n"
      "      %go = gt(%ci, %z) : bool[]\n      return %go\n    }\n"
      "    body(%i : i64[], %x : f32[2], %y : f32[2], %acc : f32[2]) {\n"
      "      %one = full() {shape = [], dtype = i64, value = 1} : i64[]\n"
      "      %i2 = sub(%i, %one) : i64[]\n"
      "      %acc2 = add(%acc, %x) : f32[2]\n"
      "      %late = mul(%acc, %y) : f32[2]\n"
      "      %acc3 = add(%acc2, %late) : f32[2]\n"
      "      return %i2, %y, %x, %acc3\n    }\n"
      "  return %a_f, %b_f, %c_f\n}\n");
  CHECK(p != NULL);
  if (!p) return;
  int64_t n3 = 3, n0 = 0;
  float a[2] = {1, 2}, b[2] = {0.5f, -1};
  const void *c0[] = {&n3, a, b}, *c1[] = {&n0, a, b};
  const void *const *ins[] = {c0, c1};
  CHECK(agree(p, 2, ins));
  berth_ir_program_destroy(p);
}

/* Nested scan inside map inside cond, reading outer values. */
static void test_nested(void) {
  berth_ir_program_t *p = test_parse_ir(
      "func @forward(%p : bool[], %x : f32[3,4], %w : f32[4]) -> (f32[3,4], f32[3]) {\n"
      "  %r, %t = cond(%p, %x) : f32[3,4], f32[3]\n"
      "    then(%xt : f32[3,4]) {\n"
      "      %m, %mt = map(%xt) {mapped = 1} : f32[3,4], f32[3]\n"
      "        body(%row : f32[4]) {\n"
      "          %z = full() {shape = [], dtype = f32, value = 0} : f32[]\n"
      "          %tot, %cs = scan(%z, %row) {carry = 1} : f32[], f32[4]\n"
      "            body(%acc : f32[], %e : f32[]) {\n"
      "              %s2 = add(%acc, %e) : f32[]\n"
      "              return %s2, %s2\n            }\n"
      "          %cw = mul(%cs, %w) : f32[4]\n"
      "          return %cw, %tot\n        }\n"
      "      return %m, %mt\n    }\n"
      "    else(%xe : f32[3,4]) {\n"
      "      %s = sum(%xe) {axes = [1], keepdims = 0} : f32[3]\n"
      "      return %xe, %s\n    }\n"
      "  return %r, %t\n}\n");
  CHECK(p != NULL);
  if (!p) return;
  float x[12], w[4] = {1, -1, 2, 0.5f};
  for (int i = 0; i < 12; i++) x[i] = (float)(i * i % 7) - 2;
  uint8_t t = 1, f = 0;
  const void *c0[] = {&t, x, w}, *c1[] = {&f, x, w};
  const void *const *ins[] = {c0, c1, c0};
  CHECK(agree(p, 3, ins));
  berth_ir_program_destroy(p);
}

/* A plan whose arena exceeds the file format's cap fails in the planner (one check that
 * `plan` and `compile` both go through), naming the pool and the size, instead of being
 * reported as verified and refused later when the written file is loaded. */
static void test_arena_cap(void) {
  berth_ir_program_t *p = test_parse_ir(
      "func @forward(%x : f32[274877906944]) -> (f32[274877906944]) {\n"
      "  %a = neg(%x) : f32[274877906944]\n"
      "  %b = add(%a, %x) : f32[274877906944]\n"
      "  return %b\n}\n");
  CHECK(p != NULL);
  if (!p) return;
  berth_plan_options_t o = berth_plan_options_default();
  o.alloc_inputs = 1;
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_compiled_t *c = NULL;
  berth_status_t st = berth_plan_compile(p, &o, &c, &d);
  CHECK(st == BERTH_ERR_OUT_OF_RANGE);
  CHECK_MSG(st && strstr(msg, "pool 0 needs an arena of 3298534883328 bytes") && strstr(msg, "1099511627776"),
            "message: %s", msg);
  berth_compiled_destroy(c);
  o.alloc_inputs = 0; /* %a and %b: 2 TiB, still above */
  st = berth_plan_compile(p, &o, &c, &d);
  CHECK(st == BERTH_ERR_OUT_OF_RANGE);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
}

/* Views (DESIGN rule 7): reshape, squeeze, unsqueeze, clone and a contiguous slice share their
 * operand's bytes (no kernel runs), a view of a constant reads the file's bytes, a branch
 * result that is a view of a value the branch computed is coalesced, one that is a view of a
 * parameter is copied, and results that are views of an input or of another result are copied
 * into their own output. Fails when views are switched off (every call would be a kernel). */
static void test_views(void) {
  berth_ir_program_t *p = test_parse_ir(
      "const @k : f32[2,4] = [1, 2, 3, 4, 5, 6, 7, 8]\n"
      "buffer @s : f32[8] = [0, 0, 0, 0, 0, 0, 0, 0]\n"
      "func @forward(%x : f32[2,4], %p : bool[]) -> (f32[8], f32[4], f32[2,4], f32[1,8], f32[8]) {\n"
      "  %t = add(%x, %x) : f32[2,4]\n"
      "  %f = reshape(%t) {shape = [8]} : f32[8]\n"
      "  %row = slice(%t) {axes = [0], starts = [1], ends = [2], steps = [1]} : f32[1,4]\n"
      "  %r = squeeze(%row) {axes = [0]} : f32[4]\n"
      "  %kv = reshape(@k) {shape = [8]} : f32[8]\n"
      "  %sum = add(%f, %kv) : f32[8]\n"
      "  %c = cond(%p, %t, %x) : f32[2,4]\n"
      "    then(%a : f32[2,4], %b : f32[2,4]) {\n"
      "      %m = mul(%a, %b) : f32[2,4]\n"
      "      %mv = clone(%m) : f32[2,4]\n"
      "      return %mv\n    }\n"
      "    else(%a2 : f32[2,4], %b2 : f32[2,4]) {\n"
      "      %bv = reshape(%b2) {shape = [2, 4]} : f32[2,4]\n"
      "      return %bv\n    }\n"
      "  %u = unsqueeze(%sum) {axes = [0]} : f32[1,8]\n"
      "  %xv = reshape(%x) {shape = [8]} : f32[8]\n"
      "  copy_(@s, %f)\n"
      "  return %sum, %r, %c, %u, %xv\n}\n");
  CHECK(p != NULL);
  if (!p) return;
  float x[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  bool yes = true, no = false;
  const void *c0[] = {x, &yes}, *c1[] = {x, &no};
  const void *const *ins[] = {c0, c1, c0};
  CHECK(agree(p, 3, ins));
  berth_compiled_t *c = compile(p, berth_plan_options_default());
  CHECK(c != NULL);
  if (c) {
    const berth_exec_method_t *m = &c->exec.methods[0];
    int32_t copy_kernels = 0, views = 0;
    for (int32_t i = 0; i < m->n_instrs; i++) {
      const berth_instr_t *in = &m->instrs[i];
      views += in->opcode == BERTH_I_VIEW;
      if (in->opcode == BERTH_I_KERNEL && (in->op == BERTH_OP_RESHAPE || in->op == BERTH_OP_SQUEEZE ||
                                           in->op == BERTH_OP_UNSQUEEZE || in->op == BERTH_OP_CLONE ||
                                           in->op == BERTH_OP_SLICE))
        copy_kernels++;
    }
    /* f, row, r, kv, mv, bv, u, xv; copies: bv -> c (a parameter's view), copy_ of the view f,
     * the outputs r (inside t), u (a view of the output sum) and xv (a view of the input) */
    CHECK_MSG(views == 8 && copy_kernels == 0 && c->reports[0].views == 8, "views %d, copy kernels %d", (int)views,
              (int)copy_kernels);
    CHECK_MSG(c->reports[0].copies == 5 && c->reports[0].coalesced == 1, "copies %d, coalesced %d",
              (int)c->reports[0].copies, (int)c->reports[0].coalesced);
    berth_compiled_destroy(c);
  }
  berth_ir_program_destroy(p);
}

int main(void) {
  test_views();
  test_arena_cap();
  test_pools();
  test_sibling_conds();
  test_conds_share();
  test_state_own_storage();
  test_loop_carried();
  test_nested();
  return test_finish("test_plan");
}
