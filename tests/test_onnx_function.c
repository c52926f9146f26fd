/* Model-local ONNX functions (src/onnx/onnx_function.c) and state pairs (onnx_state.c, the
 * planner's copy_ in place in coalesce.c):
 *  - errors: a recursive pair of functions is refused naming the cycle, a function's own
 *    opset is checked, a body cannot see the caller's names, an output the body does not
 *    compute, a function defined twice;
 *  - the seed program as PyTorch's exporter writes it (tests/onnx/torch_seed, the buffer a
 *    graph input and output) with --state b_state=copy: (5, 5) then (6, 7) then (6, 6)
 *    through the embeddable runtime, the buffer read and reset with berth_method_state /
 *    berth_method_reset, and ExecuTorch's `regions` strategy on it (rejected by the verifier);
 *  - a state update computed by a kernel is planned in the buffer's bytes (0 copies, one
 *    RENAME), one whose old value is still read afterwards keeps its copy, and both agree
 *    with the reference interpreter over several calls; the verifier rejects a corrupted
 *    in-place plan (a read of the old state after the new one is written).
 * Silero v5 with --state state=stateN against onnxruntime over several frames is in
 * tests/cli/onnx_state.sh. */
#define _POSIX_C_SOURCE 200809L
#include "berth/runtime.h"
#include "program/verify.h"
#include "writer/write_program.h"
#include "host/session.h"
#include "plan/plan.h"
#include "onnx/onnx_import.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fuzzgen/onnx_build.h"
#include "onnx_run.h"
#include "reference/reference.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building functions ------------------------------------------------------------- */

static Onnx__FunctionProto *fn_new(ob_t *b, const char *domain, const char *name, const char *ins, const char *outs,
                                   int64_t opset) {
  Onnx__FunctionProto *f = ob_alloc(b, sizeof *f);
  onnx__function_proto__init(f);
  f->name = ob_str(b, name, strlen(name));
  f->domain = ob_str(b, domain, strlen(domain));
  f->n_input = ob_split(b, ins, &f->input);
  f->n_output = ob_split(b, outs, &f->output);
  Onnx__OperatorSetIdProto *o = ob_alloc(b, sizeof *o);
  onnx__operator_set_id_proto__init(o);
  o->domain = ob_str(b, "", 0);
  o->has_version = 1;
  o->version = opset;
  f->opset_import = ob_alloc(b, sizeof *f->opset_import);
  f->opset_import[0] = o;
  f->n_opset_import = 1;
  f->node = ob_alloc(b, 16 * sizeof *f->node);
  return f;
}

/* A node in a function body (a scratch graph holds it while ob_node builds it). */
static Onnx__NodeProto *fn_node(ob_t *b, Onnx__FunctionProto *f, const char *domain, const char *op, const char *ins,
                                const char *outs) {
  Onnx__GraphProto *tmp = ob_graph(b, "tmp");
  Onnx__NodeProto *n = ob_node(b, tmp, op, ins, outs);
  n->domain = ob_str(b, domain, strlen(domain));
  f->node[f->n_node++] = n;
  return n;
}

static uint8_t *model_with(ob_t *b, Onnx__GraphProto *g, Onnx__FunctionProto **fns, size_t n_fns, size_t *len) {
  size_t l0;
  uint8_t *base = ob_model(b, g, 18, &l0);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, l0, base);
  m->functions = fns;
  m->n_functions = n_fns;
  *len = onnx__model_proto__get_packed_size(m);
  uint8_t *buf = ob_alloc(b, *len);
  onnx__model_proto__pack(m, buf);
  m->functions = NULL;
  m->n_functions = 0;
  onnx__model_proto__free_unpacked(m, NULL);
  return buf;
}


static void test_errors(void) {
  ob_t b;
  /* F -> G -> F */
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_node(&b, g, "F", "x", "y")->domain = "t";
  ob_output(&b, g, "y", ONNX_F, "2");
  Onnx__FunctionProto *fns[2];
  fns[0] = fn_new(&b, "t", "F", "a", "r", 18);
  fn_node(&b, fns[0], "t", "G", "a", "r");
  fns[1] = fn_new(&b, "t", "G", "a", "r", 18);
  fn_node(&b, fns[1], "", "Neg", "a", "n");
  fn_node(&b, fns[1], "t", "F", "n", "r");
  size_t len;
  uint8_t *bytes = model_with(&b, g, fns, 2, &len);
  onnx_expect_fail("recursive pair", bytes, len, NULL, BERTH_OK, "function 'F' calls itself (F -> G -> F)");
  ob_deinit(&b);

  /* ops a function body lacks are listed with the graph's, each function looked at once
   * (F calls G twice, G calls F twice: no exponential walk), before any expansion */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_node(&b, g, "F", "x", "y")->domain = "t";
  ob_node(&b, g, "Frobnicate", "y", "z");
  ob_output(&b, g, "z", ONNX_F, "2");
  fns[0] = fn_new(&b, "t", "F", "a", "r", 18);
  fn_node(&b, fns[0], "t", "G", "a", "p");
  fn_node(&b, fns[0], "t", "G", "p", "r");
  fns[1] = fn_new(&b, "t", "G", "a", "r", 18);
  fn_node(&b, fns[1], "", "Twiddle", "a", "n");
  fn_node(&b, fns[1], "t", "F", "n", "m");
  fn_node(&b, fns[1], "t", "F", "m", "r");
  bytes = model_with(&b, g, fns, 2, &len);
  onnx_expect_fail("ops a function lacks", bytes, len, NULL, BERTH_OK, "Twiddle");
  onnx_expect_fail("ops the graph lacks", bytes, len, NULL, BERTH_OK, "Frobnicate");
  ob_deinit(&b);

  /* a function's own opset is checked; a body cannot read the caller's values; outputs */
  const char *cases[][3] = {
      {"99", "Neg", "uses ai.onnx opset 99"},
      {"18", "Hidden", "'x' is not defined before this node"},
      {"18", "NoOut", "does not compute its output 0 'r'"},
  };
  for (int c = 0; c < 3; c++) {
    ob_init(&b);
    g = ob_graph(&b, "main");
    ob_input(&b, g, "x", ONNX_F, "2");
    ob_node(&b, g, "F", "x", "y")->domain = "t";
    ob_output(&b, g, "y", ONNX_F, "2");
    Onnx__FunctionProto *f = fn_new(&b, "t", "F", "a", "r", atoi(cases[c][0]));
    if (c == 0) fn_node(&b, f, "", "Neg", "a", "r");
    if (c == 1) fn_node(&b, f, "", "Add", "a,x", "r"); /* x is the caller's */
    if (c == 2) fn_node(&b, f, "", "Neg", "a", "s");
    bytes = model_with(&b, g, &f, 1, &len);
    onnx_expect_fail(cases[c][1], bytes, len, NULL, BERTH_OK, cases[c][2]);
    ob_deinit(&b);
  }

  /* defined twice */
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2");
  ob_node(&b, g, "F", "x", "y")->domain = "t";
  ob_output(&b, g, "y", ONNX_F, "2");
  fns[0] = fn_new(&b, "t", "F", "a", "r", 18);
  fn_node(&b, fns[0], "", "Neg", "a", "r");
  fns[1] = fns[0];
  bytes = model_with(&b, g, fns, 2, &len);
  onnx_expect_fail("twice", bytes, len, NULL, BERTH_OK, "defines function 'F' (domain 't', overload '') twice");
  ob_deinit(&b);
}

/* ---- the exported seed with a state pair ------------------------------------------- */

static berth_compiled_t *compile(const berth_ir_program_t *p, berth_strategy_t strategy, char *msg, size_t cap,
                                 berth_status_t *st) {
  berth_diag_t d = berth_diag_make(msg, cap);
  berth_plan_options_t popt = berth_plan_options_default();
  popt.strategy = strategy;
  berth_compiled_t *c = NULL;
  *st = berth_plan_compile(p, &popt, &c, &d);
  return c;
}

static void test_seed_state(void) {
  size_t len;
  char *bytes = test_read_file(BERTH_SOURCE_DIR "/tests/onnx/torch_seed/model.onnx", &len);
  CHECK_MSG(bytes != NULL, "tests/onnx/torch_seed/model.onnx missing (tools/onnxgen/gen_pytorch.js)");
  if (!bytes) return;
  double nan_v = NAN;
  berth_onnx_input_spec_t spec = {.name = "b_state", .dtype = BERTH_DTYPE_F64, .rank = 1, .dims = {1}, .value = &nan_v};
  berth_onnx_state_pair_t pair = {.input = "b_state", .output = "copy"};
  berth_onnx_options_t opt = berth_onnx_options_default();
  opt.inputs = &spec;
  opt.n_inputs = 1;
  opt.states = &pair;
  opt.n_states = 1;
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_onnx_info_t info;
  berth_status_t st = berth_onnx_import(bytes, len, &opt, &p, &info, &d);
  CHECK_MSG(st == BERTH_OK, "seed import: %s", msg);
  if (st) {
    berth_onnx_info_deinit(&info);
    free(bytes);
    return;
  }
  /* one parameter (data), two results (getitem, getitem_1): the pair became a buffer */
  CHECK(info.n_inputs == 1 && info.n_outputs == 2 && strcmp(info.outputs[0].name, "getitem") == 0);
  berth_onnx_info_deinit(&info);

  berth_compiled_t *c = compile(p, BERTH_STRATEGY_GLOBAL, msg, sizeof msg, &st);
  CHECK_MSG(st == BERTH_OK, "seed plan: %s", msg);
  uint8_t *file = NULL;
  size_t flen = 0;
  if (!st) {
    berth_format_write_options_t wo = berth_format_write_options_default();
    st = berth_format_write(&c->exec, &wo, &file, &flen, &d);
    CHECK_MSG(st == BERTH_OK, "seed write: %s", msg);
  }
  if (file) {
    berth_program_sizes_t sz;
    CHECK(berth_program_query(file, flen, &sz, &d) == BERTH_OK);
    void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
    berth_program_t *prog = NULL;
    CHECK_MSG(berth_program_load(file, flen, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &d) == BERTH_OK,
              "seed load: %s", msg);
    free(scratch);
    berth_method_t *fwd = NULL;
    void *mmem = NULL;
    if (prog) {
      size_t need = berth_method_memory_size(prog, 0);
      mmem = malloc(need);
      CHECK(berth_method_init(prog, 0, mmem, need, NULL, 0, &fwd, &d) == BERTH_OK);
    }
    if (fwd) {
      void *sdata = NULL;
      size_t sbytes = 0;
      CHECK_MSG(berth_method_state(fwd, "b_state", &sdata, &sbytes, &d) == BERTH_OK, "state: %s", msg);
      CHECK(berth_method_state(fwd, "nope", &sdata, &sbytes, &d) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "'nope'"));
      CHECK(berth_method_state(fwd, "b_state", &sdata, &sbytes, &d) == BERTH_OK && sbytes == 8);
      CHECK(sdata && isnan(*(double *)sdata));
      /* (5, 5), (6, 7), (6, 6): the ExecuTorch bug returns (7, 7) for the second call */
      const double in[3] = {5, 6, -1}, want[3][2] = {{5, 5}, {6, 7}, {6, 6}}, want_state[3] = {5, 6, 6};
      for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 3; k++) {
          CHECK(berth_method_set_input(fwd, 0, &in[k], sizeof in[k], &d) == BERTH_OK);
          st = berth_method_execute(fwd, &d);
          CHECK_MSG(st == BERTH_OK, "seed call %d: %s", k, msg);
          const void *r0 = NULL, *r1 = NULL;
          size_t n0, n1;
          if (st || berth_method_output(fwd, 0, &r0, &n0, &d) || berth_method_output(fwd, 1, &r1, &n1, &d)) continue;
          CHECK_MSG(*(const double *)r0 == want[k][0] && *(const double *)r1 == want[k][1],
                    "seed call %d (round %d): got (%g, %g), want (%g, %g)", k, round, *(const double *)r0,
                    *(const double *)r1, want[k][0], want[k][1]);
          CHECK(*(double *)sdata == want_state[k]);
        }
        berth_method_reset(fwd); /* state back to NaN: the same three results again */
        CHECK(isnan(*(double *)sdata));
      }
      /* the state is writable: with state 5, data 6 gives (6, 7) on the first call */
      *(double *)sdata = 5;
      CHECK(berth_method_set_input(fwd, 0, &in[1], sizeof in[1], &d) == BERTH_OK);
      const void *r1 = NULL;
      size_t n1;
      CHECK(berth_method_execute(fwd, &d) == BERTH_OK && berth_method_output(fwd, 1, &r1, &n1, &d) == BERTH_OK &&
            *(const double *)r1 == 7);
    }
    free(mmem);
    free(pmem);
    free(file);
  }
  berth_compiled_destroy(c);

  /* ExecuTorch's regions scheme on the exported seed: the exporter writes the branches'
   * clones as Identity, so the first cond's then-branch hands result1 over by copy; the
   * regions baseline stores that copy where ExecuTorch stores the branch's output, in the
   * branch's shared region, and the nested cond of the second call overwrites it: the
   * verifier must reject the plan, naming result1 (here getitem), as on tests/bir/seed.bir */
  c = compile(p, BERTH_STRATEGY_REGIONS, msg, sizeof msg, &st);
  CHECK_MSG(st == BERTH_ERR_VERIFY_FAILED && !c, "seed regions: status %d: %s", (int)st, msg);
  CHECK_MSG(strstr(msg, "read of %getitem ") != NULL, "seed regions: %s", msg);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  free(bytes);
}

/* ---- copy_ in place ------------------------------------------------------------------ */

static berth_ir_program_t *parse(const char *text) {
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  CHECK_MSG(berth_ir_parse(text, strlen(text), "t.bir", &p, &d) == BERTH_OK, "parse: %s", msg);
  return p;
}

/* Plans text, checks copies / in-place counts, and runs 4 calls against the reference. */
static void in_place_case(const char *name, const char *text, int want_copies, int want_in_place) {
  berth_ir_program_t *p = parse(text);
  if (!p) return;
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_status_t st;
  berth_compiled_t *c = compile(p, BERTH_STRATEGY_GLOBAL, msg, sizeof msg, &st);
  CHECK_MSG(st == BERTH_OK, "%s: plan: %s", name, msg);
  if (!c) {
    berth_ir_program_destroy(p);
    return;
  }
  CHECK_MSG(c->reports[0].copies == want_copies && c->reports[0].state_in_place == want_in_place,
            "%s: %d copies, %d in place; want %d, %d", name, c->reports[0].copies, c->reports[0].state_in_place,
            want_copies, want_in_place);
  berth_session_t *s = NULL;
  berth_ref_t *ref = NULL;
  CHECK(berth_session_create(&c->exec, true, &s, &d) == BERTH_OK);
  CHECK(berth_ref_create(p, &ref, &d) == BERTH_OK);
  for (int k = 0; s && ref && k < 4; k++) {
    float x[2] = {0.5f + (float)k, -1.0f * (float)k};
    const void *args[1] = {x};
    void *o1[1] = {NULL}, *o2[1] = {NULL};
    CHECK_MSG(berth_session_call(s, 0, args, o1, &d) == BERTH_OK, "%s: call %d: %s", name, k, msg);
    CHECK_MSG(berth_ref_call(ref, 0, args, o2, &d) == BERTH_OK, "%s: reference %d: %s", name, k, msg);
    CHECK_MSG(o1[0] && o2[0] && memcmp(o1[0], o2[0], 8) == 0, "%s: call %d differs from the reference", name, k);
    free(o1[0]);
    free(o2[0]);
  }
  berth_ref_destroy(ref);
  berth_session_destroy(s);

  /* a corrupted in-place plan: move the kernel that reads the old state after the one that
   * writes the new state in its bytes; the verifier must see the read of a clobbered state */
  if (want_in_place) {
    berth_exec_method_t *m = (berth_exec_method_t *)&c->exec.methods[0];
    berth_instr_t *ins = (berth_instr_t *)m->instrs;
    CHECK(ins[0].opcode == BERTH_I_KERNEL && ins[1].opcode == BERTH_I_KERNEL);
    berth_instr_t t = ins[0];
    ins[0] = ins[1];
    ins[1] = t;
    size_t sc = berth_verify_program_scratch_size(&c->exec);
    void *scratch = malloc(sc);
    st = berth_verify_program(&c->exec, scratch, sc, &d);
    CHECK_MSG(st == BERTH_ERR_VERIFY_FAILED, "%s: the corrupted plan was accepted (%d: %s)", name, (int)st, msg);
    free(scratch);
  }
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
}

static void test_in_place(void) {
  /* the new state is computed after the last read of the old one: in place, no copy */
  in_place_case("in_place",
                "buffer @s : f32[2] = [1, 2]\n"
                "func @forward(%x : f32[2]) -> (f32[2]) {\n"
                "  %a = add(@s, %x) : f32[2]\n"
                "  %b = mul(%a, %a) : f32[2]\n"
                "  copy_(@s, %b)\n"
                "  return %a\n"
                "}\n",
                0, 1);
  /* the old state is read after the new one is computed: copied at the copy_ */
  in_place_case("still_read",
                "buffer @s : f32[2] = [1, 2]\n"
                "func @forward(%x : f32[2]) -> (f32[2]) {\n"
                "  %b = mul(%x, %x) : f32[2]\n"
                "  %a = add(@s, %b) : f32[2]\n"
                "  copy_(@s, %b)\n"
                "  return %a\n"
                "}\n",
                1, 0);
}

/* ---- a function call plans as the same code written inline ------------------------ */

static berth_compiled_t *plan_model(const char *name, const uint8_t *bytes, size_t len, berth_ir_program_t **pp) {
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_status_t st = berth_onnx_import(bytes, len, NULL, pp, NULL, &d);
  CHECK_MSG(st == BERTH_OK, "%s: import: %s", name, msg);
  if (st) return NULL;
  berth_compiled_t *c = compile(*pp, BERTH_STRATEGY_GLOBAL, msg, sizeof msg, &st);
  CHECK_MSG(st == BERTH_OK, "%s: plan: %s", name, msg);
  return c;
}

static void test_same_plan_as_inline(void) {
  size_t len;
  char *exported = test_read_file(BERTH_SOURCE_DIR "/tests/onnx/torch_cond/model.onnx", &len);
  CHECK(exported != NULL);
  if (!exported) return;
  /* torch_cond with the branch functions written inline in the If's branches */
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2,3");
  ob_input(&b, g, "y", ONNX_F, "2,3");
  Onnx__NodeProto *rs = ob_node(&b, g, "ReduceSum", "x", "sum_1");
  ob_attr_i(&b, rs, "keepdims", 0);
  ob_const(&b, g, "zero", ONNX_F, "", "0");
  ob_node(&b, g, "Greater", "sum_1,zero", "gt");
  Onnx__GraphProto *t = ob_graph(&b, "then"), *e = ob_graph(&b, "else");
  ob_const(&b, t, "c2", ONNX_F, "", "2");
  ob_node(&b, t, "Mul", "x,c2", "mul");
  ob_const(&b, t, "c1", ONNX_F, "", "1");
  ob_node(&b, t, "Add", "mul,c1", "add");
  ob_output(&b, t, "add", ONNX_F, "2,3");
  ob_node(&b, e, "Sub", "x,y", "sub");
  ob_output(&b, e, "sub", ONNX_F, "2,3");
  Onnx__NodeProto *n = ob_node(&b, g, "If", "gt", "getitem");
  ob_attr_g(&b, n, "then_branch", t);
  ob_attr_g(&b, n, "else_branch", e);
  ob_output(&b, g, "getitem", ONNX_F, "2,3");
  size_t ilen;
  uint8_t *inline_bytes = ob_model(&b, g, 18, &ilen);
  berth_ir_program_t *p1 = NULL, *p2 = NULL;
  berth_compiled_t *c1 = plan_model("exported", (const uint8_t *)exported, len, &p1);
  berth_compiled_t *c2 = plan_model("inline", inline_bytes, ilen, &p2);
  if (c1 && c2) {
    const berth_plan_method_report_t *a = &c1->reports[0], *r = &c2->reports[0];
    CHECK_MSG(a->pools[0].arena_bytes == r->pools[0].arena_bytes && a->copies == r->copies &&
                  a->coalesced == r->coalesced && a->n_values == r->n_values && a->verified && r->verified,
              "function calls plan differently from inline code: arena %llu / %llu, copies %d / %d, coalesced %d / %d",
              (unsigned long long)a->pools[0].arena_bytes, (unsigned long long)r->pools[0].arena_bytes, a->copies, r->copies,
              a->coalesced, r->coalesced);
  }
  berth_compiled_destroy(c1);
  berth_compiled_destroy(c2);
  berth_ir_program_destroy(p1);
  berth_ir_program_destroy(p2);
  ob_deinit(&b);
  free(exported);
}

int main(void) {
  test_errors();
  test_same_plan_as_inline();
  test_seed_state();
  test_in_place();
  return test_finish("test_onnx_function");
}
