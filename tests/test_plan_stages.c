/* The planner's stages one by one (src/plan/plan_stages.h): small hand-written programs and
 * the exact result of each stage, so a regression names the stage that made it.
 *   timeline     positions and lifetimes            (test_timeline)
 *   groups       storage groups formed by coalescing (test_groups_*, test_carried)
 *   pools        the pool of each group             (test_pools)
 *   offsets      offsets per pool, arena, bound     (test_offsets, test_pools)
 *   state        the state region                   (test_state)
 *   assemble     the instruction list's shape       (test_assemble_*)
 *   report       the report's numbers               (test_report)
 * BERTH_STAGES_DUMP=1 prints every stage's result (to update an expectation on purpose). */
#include "plan/plan_stages.h"
#include "test_ir.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>


/* Every stage's result for method 0 of one program. */
typedef struct staged {
  berth_ir_program_t *p;
  berth_plan_options_t opt;
  berth_plan_lowered_t c;
  berth_plan_owner_t *o;
  berth_plan_groups_t groups;
  berth_plan_pools_t pools;
  berth_plan_offsets_t offsets;
  berth_plan_state_t state;
  berth_plan_exec_t exec;
  berth_plan_method_report_t rep;
  uint64_t const_offsets[16];
  char msg[512];
  berth_diag_t diag;
} staged_t;

/* Runs the stages up to and including `last` (1 lower .. 7 report); false (and a failed
 * check) if one fails. */
enum { ST_LOWER = 1, ST_GROUPS, ST_POOLS, ST_OFFSETS, ST_STATE, ST_ASSEMBLE, ST_REPORT };

static bool run_stages(staged_t *s, const char *text, const berth_plan_options_t *opt, int last) {
  memset(s, 0, sizeof *s);
  s->diag = berth_diag_make(s->msg, sizeof s->msg);
  s->opt = *opt;
  s->p = test_parse_ir(text);
  s->o = berth_plan_owner_create();
  CHECK(s->p != NULL && s->o != NULL);
  if (!s->p || !s->o) return false;
  berth_diag_t *d = &s->diag;
  berth_status_t st = berth_plan_lower(&s->c, s->p, 0, &s->opt, d);
  if (!st && last >= ST_GROUPS) st = berth_plan_groups(&s->c, s->o, &s->groups);
  if (!st && last >= ST_POOLS) st = berth_plan_assign_pools(&s->c, s->o, &s->groups, &s->pools);
  if (!st && last >= ST_OFFSETS) st = berth_plan_offsets(&s->c, s->o, &s->groups, &s->pools, &s->offsets);
  if (!st && last >= ST_STATE) st = berth_plan_state(&s->c, s->o, &s->state);
  if (!st && last >= ST_ASSEMBLE)
    st = berth_plan_assemble(&s->c, s->o, s->const_offsets, &s->groups, &s->pools, &s->offsets, &s->state, &s->exec);
  if (!st && last >= ST_REPORT) st = berth_plan_report(&s->c, s->o, &s->offsets, &s->state, &s->exec, &s->rep);
  CHECK_MSG(st == BERTH_OK, "%s", s->msg);
  return st == BERTH_OK;
}

static void staged_free(staged_t *s) {
  berth_plan_lower_deinit(&s->c);
  berth_plan_owner_destroy(s->o);
  berth_ir_program_destroy(s->p);
}

/* The lowered value named `name` (an IR value, or one the lowering made), or -1. */
static int32_t val(const staged_t *s, const char *name) {
  for (int32_t v = 0; v < s->c.n_vals; v++)
    if (strcmp(s->c.vals[v].name, name) == 0) return v;
  fprintf(stderr, "no value %s\n", name);
  return -1;
}

/* The group index of the arena group of the value named `name`, or -1. */
static int32_t group_of(staged_t *s, const char *name) {
  int32_t v = val(s, name);
  return v < 0 ? -1 : s->groups.group_of[lctx_group(&s->c, v)];
}

static bool same_group(staged_t *s, const char *a, const char *b) {
  int32_t x = val(s, a), y = val(s, b);
  return x >= 0 && y >= 0 && lctx_group(&s->c, x) == lctx_group(&s->c, y);
}

/* The instruction list as a string of letters: K kernel, C copy, R rename, J jump, F jump if
 * false, I loop init, N loop next, X return, A assert, V view. */
static void shape(const berth_exec_method_t *m, char *out, size_t cap) {
  static const char k_letter[] = "KCRJFINXAV";
  size_t n = 0;
  for (int32_t i = 0; i < m->n_instrs && n + 1 < cap; i++)
    out[n++] = m->instrs[i].opcode < sizeof k_letter - 1 ? k_letter[m->instrs[i].opcode] : '?';
  out[n] = '\0';
}

static void dump(staged_t *s, const char *title) {
  if (!getenv("BERTH_STAGES_DUMP")) return;
  lctx_t *c = &s->c;
  printf("== %s: %d positions, t_ret %lld\n", title, (int)c->n_positions, (long long)c->t_ret);
  for (int32_t v = 0; v < c->n_vals; v++) {
    const lval_t *x = &c->vals[v];
    printf("  v%d %-10s cls %d alias %d group %d def %lld last %lld ivs", (int)v, x->name, x->cls, (int)x->alias,
           (int)lctx_group(c, v), (long long)(v < c->m->n_values ? c->def_pos[v] : -1),
           (long long)(v < c->m->n_values ? c->last_pos[v] : -1));
    for (int32_t i = 0; i < x->n_ivs; i++) printf(" [%lld,%lld]", (long long)x->ivs[i].lo, (long long)x->ivs[i].hi);
    printf("\n");
  }
  for (int64_t k = 0; k < c->n_handovers; k++)
    if (c->handover[k] != HANDOVER_COPY || c->ho_value[k] >= 0)
      printf("  handover %lld: %d value %d\n", (long long)k, c->handover[k], (int)c->ho_value[k]);
  for (int32_t i = 0; i < s->groups.n; i++) {
    const berth_plan_group_t *g = &s->groups.groups[i];
    printf("  group %d root %s size %llu pool %d offset %llu ivs", (int)i, c->vals[g->root].name,
           (unsigned long long)g->size, s->pools.pool ? s->pools.pool[i] : -1,
           (unsigned long long)(s->offsets.offset ? s->offsets.offset[i] : 0));
    for (int32_t k = 0; k < g->n_ivs; k++) printf(" [%lld,%lld)", (long long)g->ivs[k].lower, (long long)g->ivs[k].upper);
    printf("\n");
  }
  for (int32_t p = 0; p < s->offsets.n_pools; p++)
    printf("  pool %d arena %llu bound %llu groups %d\n", (int)p, (unsigned long long)s->offsets.pools[p].arena_bytes,
           (unsigned long long)s->offsets.pools[p].lower_bound_bytes, (int)s->offsets.pools[p].n_buffers);
  char sh[256];
  shape(&s->exec.method, sh, sizeof sh);
  printf("  state %llu, exec %d values, instrs %s\n", (unsigned long long)s->state.size, (int)s->exec.method.n_values, sh);
  for (int32_t v = 0; v < s->exec.method.n_values; v++) {
    const berth_exec_value_t *e = &s->exec.method.values[v];
    printf("  exec v%d %s storage %d pool %u offset %llu window %d\n", (int)v, e->name, (int)e->storage, (unsigned)e->pool,
           (unsigned long long)e->offset, (int)e->window_parent);
  }
  for (int32_t h = 0; h < s->rep.n_hops; h++)
    printf("  hop %s ts %lld te %lld split %lld depth %d\n", s->rep.hops[h].kind, (long long)s->rep.hops[h].ts,
           (long long)s->rep.hops[h].te, (long long)s->rep.hops[h].split, (int)s->rep.hops[h].depth);
  printf("  report: values %d copies %d coalesced %d views %d in place %d\n", (int)s->rep.n_values, (int)s->rep.copies,
         (int)s->rep.coalesced, (int)s->rep.views, (int)s->rep.state_in_place);
}

static const char *k_chain =
    "func @forward(%a : f32[4]) -> (f32[4]) {\n"
    "  %b = add(%a, %a) : f32[4]\n"
    "  %c = mul(%b, %a) : f32[4]\n"
    "  %d = add(%c, %c) : f32[4]\n"
    "  %e = mul(%d, %a) : f32[4]\n"
    "  return %e\n"
    "}\n";

static const char *k_cond =
    "func @forward(%p : bool[], %x : f32[2]) -> (f32[2]) {\n"
    "  %r = cond(%p, %x) : f32[2]\n"
    "    then(%a : f32[2]) {\n"
    "      %t = add(%a, %a) : f32[2]\n"
    "      return %t\n"
    "    }\n"
    "    else(%e : f32[2]) {\n"
    "      return %e\n"
    "    }\n"
    "  %y = mul(%r, %r) : f32[2]\n"
    "  return %y\n"
    "}\n";

static const char *k_loop =
    "func @forward(%n : i64[], %x : f32[2]) -> (i64[], f32[2], f32[2]) {\n"
    "  %zeros = full() {shape = [2], dtype = f32, value = 0} : f32[2]\n"
    "  %i_final, %acc_final, %late_final = while_loop(%n, %zeros, %x) : i64[], f32[2], f32[2]\n"
    "    cond(%ci : i64[], %cacc : f32[2], %clate : f32[2]) {\n"
    "      %zero = full() {shape = [], dtype = i64, value = 0} : i64[]\n"
    "      %go = gt(%ci, %zero) : bool[]\n"
    "      return %go\n"
    "    }\n"
    "    body(%i : i64[], %acc : f32[2], %late : f32[2]) {\n"
    "      %one = full() {shape = [], dtype = i64, value = 1} : i64[]\n"
    "      %i1 = sub(%i, %one) : i64[]\n"
    "      %i_next = add(%i1, %one) : i64[]\n"
    "      %acc_next = add(%acc, %x) : f32[2]\n"
    "      %late_next = add(%x, %x) : f32[2]\n"
    "      %late_read = mul(%late, %late_next) : f32[2]\n"
    "      return %i_next, %acc_next, %late_read\n"
    "    }\n"
    "  return %i_final, %acc_final, %late_final\n"
    "}\n";

static const char *k_state =
    "buffer @s : f32[2] = [1, 2]\n"
    "buffer @unused : f32[8] = [0, 0, 0, 0, 0, 0, 0, 0]\n"
    "buffer @t : i64[] = [7]\n"
    "func @forward(%x : f32[2]) -> (f32[2]) {\n"
    "  %n = add(@s, %x) : f32[2]\n"
    "  %y = mul(%n, %x) : f32[2]\n"
    "  copy_(@s, %n)\n"
    "  %k = clone(@t) : i64[]\n"
    "  %k2 = add(%k, %k) : i64[]\n"
    "  copy_(@t, %k2)\n"
    "  return %y\n"
    "}\n";

static const char *k_view =
    "func @forward(%a : f32[4]) -> (f32[1,4]) {\n"
    "  %b = add(%a, %a) : f32[4]\n"
    "  %v = unsqueeze(%b) {axes = [0]} : f32[1,4]\n"
    "  %w = mul(%v, %v) : f32[1,4]\n"
    "  return %w\n"
    "}\n";

static bool ivs_are(const berth_plan_group_t *g, int32_t n, const int64_t (*want)[2]) {
  if (g->n_ivs != n) return false;
  for (int32_t i = 0; i < n; i++)
    if (g->ivs[i].lower != want[i][0] || g->ivs[i].upper != want[i][1]) return false;
  return true;
}

static bool lifetime_is(const staged_t *s, const char *name, int32_t n, const int64_t (*want)[2]) {
  int32_t v = val(s, name);
  if (v < 0 || s->c.vals[v].n_ivs != n) return false;
  for (int32_t i = 0; i < n; i++)
    if (s->c.vals[v].ivs[i].lo != want[i][0] || s->c.vals[v].ivs[i].hi != want[i][1]) return false;
  return true;
}

static bool shape_is(const staged_t *s, const char *want) {
  char got[256];
  shape(&s->exec.method, got, sizeof got);
  if (strcmp(got, want) == 0) return true;
  fprintf(stderr, "instructions %s, expected %s\n", got, want);
  return false;
}

/* Timeline: one position per kernel after the entry (0), the return after them; a value
 * lives from its definition to its last use. */
static void test_timeline(const berth_plan_options_t *opt) {
  staged_t s;
  if (run_stages(&s, k_chain, opt, ST_LOWER)) {
    dump(&s, "timeline");
    CHECK(s.c.n_positions == 6);
    CHECK(s.c.t_ret == 5);
    for (int32_t ni = 0; ni < 4; ni++) CHECK(s.c.node_pos[ni] == ni + 1);
    static const char *names[] = {"a", "b", "c", "d", "e"};
    static const int64_t def[] = {0, 1, 2, 3, 4}, last[] = {4, 2, 3, 4, 5};
    for (int i = 0; i < 5; i++) {
      int32_t v = val(&s, names[i]);
      CHECK_MSG(v >= 0 && s.c.def_pos[v] == def[i] && s.c.last_pos[v] == last[i], "%s", names[i]);
    }
    static const int64_t b_iv[][2] = {{1, 2}};
    CHECK(lifetime_is(&s, "b", 1, b_iv));
  }
  staged_free(&s);
}

/* Groups: straight-line code has one group per value, each its value's bytes and lifetime
 * (half-open); a view joins its source's group. */
static void test_groups_chain(const berth_plan_options_t *opt) {
  staged_t s;
  if (run_stages(&s, k_chain, opt, ST_GROUPS)) {
    dump(&s, "groups chain");
    CHECK(s.groups.n == 5);
    static const char *names[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++) {
      int32_t g = group_of(&s, names[i]);
      CHECK_MSG(g == i && s.groups.groups[g].size == 16, "%s", names[i]);
    }
    static const int64_t a_iv[][2] = {{0, 5}}, e_iv[][2] = {{4, 6}};
    CHECK(ivs_are(&s.groups.groups[0], 1, a_iv));
    CHECK(ivs_are(&s.groups.groups[4], 1, e_iv));
  }
  staged_free(&s);
  if (run_stages(&s, k_view, opt, ST_REPORT)) {
    dump(&s, "groups view");
    CHECK(s.groups.n == 3);
    CHECK(same_group(&s, "b", "v"));
    CHECK(group_of(&s, "v") == 1 && s.groups.groups[1].size == 16);
    static const int64_t b_iv[][2] = {{1, 4}};
    CHECK(ivs_are(&s.groups.groups[1], 1, b_iv));
    CHECK(shape_is(&s, "KVKX"));
    CHECK(s.rep.views == 1 && s.rep.copies == 0);
  }
  staged_free(&s);
}

/* Groups of a cond: the then-branch's own result is renamed into the HOP result (one
 * group); the else-branch hands its parameter over, so it is copied. */
static void test_groups_cond(const berth_plan_options_t *opt) {
  staged_t s;
  if (run_stages(&s, k_cond, opt, ST_REPORT)) {
    dump(&s, "groups cond");
    CHECK(s.c.handover[lctx_handover_index(&s.c, 0, 0, 0)] == HANDOVER_RENAME);
    CHECK(s.c.handover[lctx_handover_index(&s.c, 0, 1, 0)] == HANDOVER_COPY);
    CHECK(same_group(&s, "t", "r"));
    CHECK(!same_group(&s, "x", "r"));
    CHECK(s.groups.n == 4);
    int32_t g = group_of(&s, "t");
    static const int64_t r_iv[][2] = {{2, 4}, {5, 9}}; /* the then-branch's t, then r after the else's copy */
    CHECK(g == 2 && ivs_are(&s.groups.groups[g], 2, r_iv));
    CHECK(shape_is(&s, "FKRJCKX"));
  }
  staged_free(&s);
}

/* Groups of a loop's carried values, decided on the unchanged context and then applied:
 * i's new value is computed after every read of i (RENAME, the carried storage free from the
 * hand-over + 1); acc's is written by the kernel that reads acc, and late is read after its
 * new value is written (both COPY, the carried storage live over the whole hand-over). */
static void test_carried(const berth_plan_options_t *opt) {
  staged_t s;
  if (run_stages(&s, k_loop, opt, ST_REPORT)) {
    dump(&s, "carried");
    int32_t loop = 1; /* node 0 is %zeros */
    CHECK(s.c.handover[lctx_handover_index(&s.c, loop, 0, 0)] == HANDOVER_RENAME);
    CHECK(s.c.handover[lctx_handover_index(&s.c, loop, 0, 1)] == HANDOVER_COPY);
    CHECK(s.c.handover[lctx_handover_index(&s.c, loop, 0, 2)] == HANDOVER_COPY);
    for (int k = 0; k < 3; k++) CHECK(s.c.ho_value[lctx_handover_index(&s.c, loop, 0, k)] == -1);
    CHECK(same_group(&s, "i", "i_next") && same_group(&s, "i", "i_final"));
    CHECK(same_group(&s, "acc", "acc_final") && !same_group(&s, "acc", "acc_next"));
    CHECK(same_group(&s, "late", "late_final") && !same_group(&s, "late", "late_read"));
    static const int64_t i_iv[][2] = {{2, 7}, {13, 14}}, acc_iv[][2] = {{2, 9}, {12, 14}}, late_iv[][2] = {{2, 14}};
    CHECK(lifetime_is(&s, "i", 2, i_iv));
    CHECK(lifetime_is(&s, "acc", 2, acc_iv));
    CHECK(lifetime_is(&s, "late", 1, late_iv));
    CHECK(s.groups.n == 13);
    CHECK(shape_is(&s, "KCCCKKFKKKKKKCCRJRRRX"));
    CHECK(s.rep.copies == 5 && s.rep.coalesced == 4);
    CHECK(s.offsets.pools[0].arena_bytes == 88 && s.offsets.pools[0].lower_bound_bytes == 88);
  }
  staged_free(&s);
}

/* Offsets: greedy packs the chain at its lower bound (b and d share bytes, so do c and e). */
static void test_offsets(const berth_plan_options_t *opt) {
  staged_t s;
  if (run_stages(&s, k_chain, opt, ST_OFFSETS)) {
    dump(&s, "offsets");
    CHECK(s.pools.n_pools == 1 && s.offsets.n_pools == 1);
    static const uint64_t want[] = {32, 0, 16, 0, 16};
    for (int i = 0; i < 5; i++) CHECK_MSG(s.offsets.offset[i] == want[i], "group %d", i);
    CHECK(s.offsets.sizes[0] == 48);
    CHECK(s.offsets.pools[0].arena_bytes == 48 && s.offsets.pools[0].lower_bound_bytes == 48);
    CHECK(s.offsets.pools[0].n_buffers == 5);
  }
  staged_free(&s);
}

/* Pools: each group by its root's op (add=1, mul=2; the input a stays in 0), packed alone. */
static void test_pools(berth_plan_options_t opt) {
  opt.pools = "add=1,mul=2";
  staged_t s;
  if (run_stages(&s, k_chain, &opt, ST_REPORT)) {
    dump(&s, "pools");
    CHECK(s.pools.n_pools == 3);
    static const int32_t want[] = {0, 1, 2, 1, 2};
    for (int i = 0; i < 5; i++) CHECK_MSG(s.pools.pool[i] == want[i], "group %d", i);
    static const int32_t groups[] = {1, 2, 2};
    for (int p = 0; p < 3; p++) {
      CHECK(s.offsets.pools[p].arena_bytes == 16 && s.offsets.pools[p].lower_bound_bytes == 16);
      CHECK(s.offsets.pools[p].n_buffers == groups[p]);
      CHECK(s.exec.method.pool_sizes[p] == 16);
    }
    for (int i = 0; i < 5; i++) CHECK(s.offsets.offset[i] == 0);
    CHECK(s.exec.method.n_pools == 3 && s.exec.method.values[val(&s, "c")].pool == 2);
    CHECK(s.rep.n_pools == 3 && s.rep.pools[2].n_buffers == 2);
  }
  staged_free(&s);
}

/* State: one slot per buffer the method uses (aligned to 16; @unused gets none), with its
 * initial bytes; %k2 is computed in @t's bytes (in place), %n is not (the add that writes it
 * reads @s). */
static void test_state(const berth_plan_options_t *opt) {
  staged_t s;
  if (run_stages(&s, k_state, opt, ST_REPORT)) {
    dump(&s, "state");
    CHECK(s.state.size == 24);
    CHECK(s.state.offsets[0] == 0 && s.state.offsets[1] == 0 && s.state.offsets[2] == 16);
    float f[2];
    int64_t t;
    memcpy(f, s.state.init, sizeof f);
    memcpy(&t, s.state.init + 16, sizeof t);
    CHECK(f[0] == 1.0f && f[1] == 2.0f && t == 7);
    CHECK(s.c.state_in_place == 1);
    CHECK(s.c.vals[val(&s, "k2")].cls == LV_STATE && s.c.vals[val(&s, "n")].cls == LV_ARENA);
    CHECK(shape_is(&s, "KKCKKRX"));
    const berth_exec_value_t *k2 = &s.exec.method.values[s.exec.exec_id[val(&s, "k2")]];
    CHECK(k2->storage == BERTH_STORAGE_STATE && k2->offset == 16);
    CHECK(s.exec.method.state_size == 24);
    CHECK(s.rep.state_in_place == 1 && s.rep.state_bytes == 24 && s.rep.copies == 1 && s.rep.coalesced == 1);
  }
  staged_free(&s);
}

/* Assembly: the exec values and their storage; with inputs and outputs in caller memory the
 * arena holds b, c and d only. */
static void test_assemble(berth_plan_options_t opt) {
  opt.alloc_inputs = 0;
  opt.alloc_outputs = 0;
  staged_t s;
  if (run_stages(&s, k_chain, &opt, ST_ASSEMBLE)) {
    dump(&s, "assemble");
    const berth_exec_method_t *m = &s.exec.method;
    CHECK(shape_is(&s, "KKKKX"));
    CHECK(m->n_values == 5 && m->n_inputs == 1 && m->n_outputs == 1 && m->n_regs == 0);
    CHECK(strcmp(m->name, "forward") == 0);
    CHECK(m->inputs[0] == s.exec.exec_id[val(&s, "a")] && m->outputs[0] == s.exec.exec_id[val(&s, "e")]);
    CHECK(m->values[m->inputs[0]].storage == BERTH_STORAGE_INPUT && m->values[m->outputs[0]].storage == BERTH_STORAGE_OUTPUT);
    CHECK(s.groups.n == 3 && m->pool_sizes[0] == 32);
    /* mul(%b, %a) -> %c: operands in, then out */
    const berth_instr_t *in = &m->instrs[1];
    CHECK(in->op == BERTH_OP_MUL && in->n_in == 2 && in->n_out == 1);
    CHECK(m->operands[in->operands] == s.exec.exec_id[val(&s, "b")]);
    CHECK(m->operands[in->operands + 2] == s.exec.exec_id[val(&s, "c")]);
    CHECK(m->alignment == 16);
  }
  staged_free(&s);
}

/* Report: the counts, pools and the timeline of every exec value and HOP. */
static void test_report(const berth_plan_options_t *opt) {
  staged_t s;
  if (run_stages(&s, k_cond, opt, ST_REPORT)) {
    dump(&s, "report");
    const berth_plan_method_report_t *r = &s.rep;
    CHECK(r->n_values == 5 && r->copies == 1 && r->coalesced == 1 && r->views == 0 && r->state_in_place == 0);
    CHECK(r->n_pools == 1 && r->pools[0].arena_bytes == 24 && r->pools[0].lower_bound_bytes == 24);
    CHECK(r->pools[0].n_buffers == 4 && r->state_bytes == 0 && r->n_scratch == 0);
    CHECK(r->n_positions == 10);
    CHECK(r->n_hops == 1 && strcmp(r->hops[0].kind, "cond") == 0);
    CHECK(r->hops[0].ts == 1 && r->hops[0].te == 7 && r->hops[0].split == 5 && r->hops[0].depth == 0);
    int32_t e = s.exec.exec_id[val(&s, "r")];
    CHECK(r->n_ivs[e] == 1 && r->ivs[r->iv_first[e]][0] == 5 && r->ivs[r->iv_first[e]][1] == 8);
    CHECK(!r->verified && r->time_ms == 0); /* the driver's, not this stage's */
  }
  staged_free(&s);
}

int main(void) {
  berth_plan_options_t opt = berth_plan_options_default();
  test_timeline(&opt);
  test_groups_chain(&opt);
  test_groups_cond(&opt);
  test_carried(&opt);
  test_offsets(&opt);
  test_pools(opt);
  test_state(&opt);
  test_assemble(opt);
  test_report(&opt);
  return test_finish("test_plan_stages");
}
