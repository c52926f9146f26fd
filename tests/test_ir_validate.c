/* Tests of berth_ir_validate: programs built with the builder API, each breaking one rule
 * (many of them are programs the parser would refuse to produce). */
#include "ir/ir.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static berth_type_t ty(berth_dtype_t d, int32_t rank, int64_t d0, int64_t d1) {
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = d;
  t.rank = rank;
  t.dims[0] = d0;
  t.dims[1] = d1;
  return t;
}

#define F32_2 ty(BERTH_DTYPE_F32, 1, 2, 0)
#define F32_3 ty(BERTH_DTYPE_F32, 1, 3, 0)
#define F32_32 ty(BERTH_DTYPE_F32, 2, 3, 2)
#define F32_S ty(BERTH_DTYPE_F32, 0, 0, 0)
#define BOOL_S ty(BERTH_DTYPE_BOOL, 0, 0, 0)
#define I64_S ty(BERTH_DTYPE_I64, 0, 0, 0)

/* (p->methods moves when a method is added: index it only after the call) */
static berth_ir_method_t *add_method(berth_ir_program_t *p, const char *name) {
  int32_t i = berth_ir_method_add(p, name);
  return &p->methods[i];
}

static int32_t param(berth_ir_method_t *m, int32_t g, const char *name, berth_type_t t) {
  return berth_ir_param_add(m, g, name, &t);
}

static int32_t node(berth_ir_method_t *m, int32_t g, berth_op_t op, int32_t n_in, const int32_t *in) {
  return berth_ir_node_add(m, g, op, n_in, in);
}

static int32_t result(berth_ir_method_t *m, int32_t nd, const char *name, berth_type_t t) {
  return berth_ir_node_result_add(m, nd, name, &t);
}

static void ret(berth_ir_method_t *m, int32_t g, int32_t v) { berth_ir_graph_result_add(m, g, v); }

/* Validates and checks the outcome: NULL expects success, else the message must contain
 * every '|'-separated part of `expect`. Destroys p. */
static void check(berth_ir_program_t *p, const char *expect, int line) {
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_status_t st = berth_ir_validate(p, &diag);
  if (getenv("BERTH_TEST_VERBOSE")) fprintf(stderr, "line %d: %s\n", line, st ? msg : "ok");
  if (!expect) {
    CHECK_MSG(st == BERTH_OK, "line %d: expected valid, got: %s", line, msg);
  } else {
    CHECK_MSG(st != BERTH_OK, "line %d: expected an error containing '%s'", line, expect);
    char parts[512];
    snprintf(parts, sizeof parts, "%s", expect);
    for (char *part = strtok(parts, "|"); part; part = strtok(NULL, "|"))
      CHECK_MSG(strstr(msg, part) != NULL, "line %d: message '%s' lacks '%s'", line, msg, part);
  }
  berth_ir_program_destroy(p);
}
#define EXPECT(p, msg) check((p), (msg), __LINE__)

/* ---- kernels and structure ------------------------------------------------------- */

/* f(%x : f32[2], %x3 : f32[3]) -> (f32[2]) { %y = add(%x, %x) : f32[2] (line 4); return %y } */
static berth_ir_program_t *kernel_prog(int variant) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_ir_method_t *m = add_method(p, "f");
  int32_t x = param(m, 0, "x", F32_2);
  int32_t x3 = param(m, 0, "x3", F32_3);
  int32_t ins[2] = {x, variant == 4 ? x3 : x};
  int32_t nd = node(m, 0, variant == 6 ? (berth_op_t)200 : BERTH_OP_ADD, variant == 2 ? 1 : 2, ins);
  m->nodes[nd].line = 4;
  int32_t y = -1;
  if (variant != 3) y = result(m, nd, "y", variant == 1 ? F32_3 : F32_2);
  ret(m, 0, variant == 3 ? x : y);
  switch (variant) {
    case 5: berth_ir_graph_add(m, nd, "body"); break;
    case 7: { /* a transpose with 9 perm entries */
      int32_t t = node(m, 0, BERTH_OP_TRANSPOSE, 1, &x);
      result(m, t, "t", F32_2);
      m->nodes[t].attrs[0].n = 9;
      break;
    }
    case 8: { /* %z = neg(%w) before %w = neg(%x) */
      int32_t a = node(m, 0, BERTH_OP_NEG, 1, &x);
      result(m, a, "z", F32_2);
      int32_t b = node(m, 0, BERTH_OP_NEG, 1, &x);
      int32_t w = result(m, b, "w", F32_2);
      m->nodes[a].in[0] = w;
      break;
    }
    case 9: m->nodes[nd].in[0] = 999; break;
    case 10: m->nodes[nd].out[0] = x; break; /* %x defined as a param and as a result */
    case 11: { /* list the node twice (and leave a second node in no list) */
      int32_t again = node(m, 0, BERTH_OP_NEG, 1, &x);
      result(m, again, "again", F32_2);
      m->graphs[0].nodes[1] = nd;
      break;
    }
    case 12: m->graphs[0].n_nodes = 0; break; /* node in no graph */
    case 13: m->values[x3].type.rank = 9; break;
    case 14: m->graphs[0].results[0] = 77; break;
    case 15: { /* @c's value claims to be a buffer */
      berth_type_t t = F32_2;
      int32_t g = berth_ir_global_add(p, "c", &t, false, NULL);
      int32_t cv = berth_ir_global_ref(p, m, g);
      m->values[cv].kind = BERTH_IR_STATE;
      break;
    }
    case 16: { /* a neg node inside a body it owns itself */
      int32_t a = node(m, 0, BERTH_OP_COND, 1, &x);
      int32_t g = berth_ir_graph_add(m, a, "then");
      m->nodes[a].graph = g;
      m->graphs[0].n_nodes--; /* remove it from graph 0 ... */
      berth_ir_graph_t *gr = &m->graphs[g];
      gr->nodes = malloc(sizeof *gr->nodes);
      gr->nodes[0] = a; /* ... and list it in its own body */
      gr->n_nodes = gr->cap_nodes = 1;
      break;
    }
    default: break;
  }
  return p;
}

static void test_kernels(void) {
  EXPECT(kernel_prog(0), NULL);
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = kernel_prog(1);
  CHECK(berth_ir_validate(p, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strcmp(msg, "node %y = add (line 4) in func @f: declared f32[3] but infer gives f32[2]") == 0, "%s", msg);
  berth_ir_program_destroy(p);
  EXPECT(kernel_prog(2), "node %y = add (line 4) in func @f: has 1 operands but add takes 2");
  EXPECT(kernel_prog(3), "node add (line 4) in func @f: has 0 results but add has 1");
  EXPECT(kernel_prog(4), "node %y = add (line 4) in func @f: ");
  EXPECT(kernel_prog(5), "node %y = add (line 4) in func @f: has 1 bodies but should have 0");
  EXPECT(kernel_prog(6), "node #0 in func @f: unknown op 200");
  EXPECT(kernel_prog(7), "node %t = transpose in func @f: attribute 'perm' has 9 values (at most 8)");
  EXPECT(kernel_prog(8), "node %z = neg in func @f: operand 0 (%w) is not defined before this node");
  EXPECT(kernel_prog(9), "func @f: node #0 refers to an id out of range");
  EXPECT(kernel_prog(10), "func @f: %x is defined more than once");
  EXPECT(kernel_prog(11), "func @f: node #0 is listed twice");
  EXPECT(kernel_prog(12), "func @f: node #0 is in no graph");
  EXPECT(kernel_prog(13), "func @f: value %x3 has an invalid type");
  EXPECT(kernel_prog(14), "func @f: graph 0 lists an id out of range");
  EXPECT(kernel_prog(15), "func @f: value @c disagrees with its global on being a buffer");
  EXPECT(kernel_prog(16), "func @f: bodies nested deeper than 64 (or a cycle of bodies)");
}

/* ---- cond ---------------------------------------------------------------------- */

/* f(%p : bool[], %x : f32[2], %x3 : f32[3]) -> (f32[2]):
 *   %r = cond(%p, %x) : f32[2] then(%a : f32[2]) { return %a }
 *                              else(%b : f32[2]) { %nb = neg(%b) : f32[2]; return %nb }
 *   return %r */
static berth_ir_program_t *cond_prog(int variant) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_ir_method_t *m = add_method(p, "f");
  int32_t pr = param(m, 0, "p", variant == 2 ? ty(BERTH_DTYPE_BOOL, 1, 2, 0) : BOOL_S);
  int32_t x = param(m, 0, "x", F32_2);
  int32_t x3 = param(m, 0, "x3", F32_3);
  int32_t ins[2] = {variant == 1 ? x : pr, x};
  int32_t nd = node(m, 0, BERTH_OP_COND, 2, ins);
  int32_t r = result(m, nd, "r", F32_2);
  if (variant == 11) result(m, nd, "r2", F32_2);
  int32_t tg = berth_ir_graph_add(m, nd, variant == 7 ? "else" : "then");
  int32_t a = variant == 4 ? -1 : param(m, tg, "a", F32_2);
  if (variant != 3) {
    int32_t eg = berth_ir_graph_add(m, nd, "else");
    int32_t b = param(m, eg, "b", variant == 5 ? F32_3 : F32_2);
    int32_t neg = node(m, eg, BERTH_OP_NEG, 1, variant == 9 ? &r : &b);
    int32_t nb = result(m, neg, "nb", variant == 5 ? F32_3 : F32_2);
    ret(m, eg, variant == 6 ? x3 : nb);
    ret(m, tg, variant == 8 ? nb : variant == 4 ? x : a);
    ret(m, 0, variant == 10 ? nb : r);
  } else {
    ret(m, tg, a);
    ret(m, 0, r);
  }
  return p;
}

static void test_cond(void) {
  EXPECT(cond_prog(0), NULL);
  EXPECT(cond_prog(1), "node %r = cond in func @f: predicate %x must be a one-element bool tensor, found f32[2]");
  EXPECT(cond_prog(2), "predicate %p must be a one-element bool tensor, found bool[2]");
  EXPECT(cond_prog(3), "node %r = cond in func @f: has 1 bodies but should have 2");
  EXPECT(cond_prog(4), "then body has 0 parameters but needs 1");
  EXPECT(cond_prog(5), "else body parameter 0 (%b) is f32[3] but should be f32[2]");
  EXPECT(cond_prog(6), "else body result 0 (%x3) is f32[3] but should be f32[2]");
  EXPECT(cond_prog(7), "body 0 is labelled 'else' but should be 'then'");
  EXPECT(cond_prog(8), "then body of node %r = cond in func @f: result 0 (%nb) is not defined in this graph");
  EXPECT(cond_prog(9), "node %nb = neg in func @f: operand 0 (%r) is not defined before this node");
  EXPECT(cond_prog(10), "func @f: result 0 (%nb) is not defined in this graph or an enclosing one");
  EXPECT(cond_prog(11), "then body returns 1 values but should return 2");
}

/* ---- while_loop ------------------------------------------------------------------ */

/* f(%go : bool[], %x : f32[2], %i : i64[]) -> (f32[2], i64[]):
 *   %wx, %wi = while_loop(%x, %i) : f32[2], i64[]
 *     cond(%cx : f32[2], %ci : i64[]) { return %go }            (a capture)
 *     body(%bx : f32[2], %bi : i64[]) { %nx = neg(%bx) : f32[2]; return %nx, %bi }
 *   return %wx, %wi */
static berth_ir_program_t *while_prog(int variant) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_ir_method_t *m = add_method(p, "f");
  int32_t go = param(m, 0, "go", BOOL_S);
  int32_t x = param(m, 0, "x", F32_2);
  int32_t i = param(m, 0, "i", I64_S);
  int32_t nd = node(m, 0, BERTH_OP_WHILE_LOOP, 2, (int32_t[]){x, i});
  int32_t wx = result(m, nd, "wx", F32_2);
  int32_t wi = variant == 5 ? wx : result(m, nd, "wi", variant == 7 ? F32_S : I64_S);
  int32_t cg = berth_ir_graph_add(m, nd, "cond");
  int32_t cx = param(m, cg, "cx", F32_2);
  if (variant != 6) param(m, cg, "ci", I64_S);
  ret(m, cg, variant == 2 ? cx : go);
  if (variant == 1) ret(m, cg, go);
  int32_t bg = berth_ir_graph_add(m, nd, "body");
  int32_t bx = param(m, bg, "bx", variant == 3 ? I64_S : F32_2);
  int32_t bi = param(m, bg, "bi", variant == 3 ? F32_2 : I64_S);
  int32_t neg = node(m, bg, BERTH_OP_NEG, 1, &bx);
  int32_t nx = result(m, neg, "nx", variant == 3 ? I64_S : F32_2);
  ret(m, bg, variant == 4 ? bi : nx);
  ret(m, bg, variant == 4 ? nx : bi);
  ret(m, 0, wx);
  if (variant != 5) ret(m, 0, wi);
  return p;
}

static void test_while(void) {
  EXPECT(while_prog(0), NULL);
  EXPECT(while_prog(1), "node %wx = while_loop in func @f: cond body returns 2 values but should return one bool");
  EXPECT(while_prog(2), "cond body returns f32[2] but should return a one-element bool tensor");
  EXPECT(while_prog(3), "body parameter 0 (%bx) is i64[] but should be f32[2] (the carried types)");
  EXPECT(while_prog(4), "body result 0 (%bi) is i64[] but should be f32[2] (the carried types)");
  EXPECT(while_prog(5), "has 1 results but should have 2 (the carried types)");
  EXPECT(while_prog(6), "cond body has 1 parameters but needs 2 (the carried types)");
  EXPECT(while_prog(7), "result 1 (%wi) is declared f32[] but should be i64[]");
}

/* ---- scan ------------------------------------------------------------------------ */

/* f(%c : f32[2], %xs : f32[3,2]) -> (f32[2], f32[3,2]):
 *   %fc, %ys = scan(%c, %xs) {carry = 1} : f32[2], f32[3,2]
 *     body(%bc : f32[2], %bx : f32[2]) { %s = add(%bc, %bx) : f32[2]; return %s, %bx }
 *   return %fc, %ys */
static berth_ir_program_t *scan_prog(int variant) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_ir_method_t *m = add_method(p, "f");
  int32_t c = param(m, 0, "c", F32_2);
  int32_t xs = param(m, 0, "xs", variant == 4 ? F32_S : F32_32);
  int32_t xs4 = param(m, 0, "xs4", ty(BERTH_DTYPE_F32, 2, 4, 2));
  int32_t ins[3] = {c, xs, xs4};
  int32_t nd = node(m, 0, BERTH_OP_SCAN, variant == 3 ? 3 : 2, ins);
  m->nodes[nd].attrs[0].i = variant == 1 ? 3 : variant == 2 ? 2 : 1;
  int32_t fc = result(m, nd, "fc", F32_2);
  int32_t ys = variant == 8 ? -1 : result(m, nd, "ys", variant == 7 ? F32_2 : F32_32);
  int32_t bg = berth_ir_graph_add(m, nd, "body");
  int32_t bc = param(m, bg, "bc", F32_2);
  int32_t bx = param(m, bg, "bx", variant == 5 ? F32_32 : variant == 4 ? F32_S : F32_2);
  if (variant == 3) param(m, bg, "bx4", F32_2);
  int32_t add = node(m, bg, BERTH_OP_ADD, 2, (int32_t[]){bc, bx});
  int32_t s = result(m, add, "s", variant == 5 ? F32_32 : F32_2);
  if (variant != 8) {
    ret(m, bg, variant == 6 ? xs : s);
    ret(m, bg, bx);
  }
  ret(m, 0, fc);
  if (variant != 8) ret(m, 0, ys);
  return p;
}

static void test_scan(void) {
  EXPECT(scan_prog(0), NULL);
  EXPECT(scan_prog(1), "node %fc = scan in func @f: carry = 3 but the node has 2 operands");
  EXPECT(scan_prog(2), "scan needs at least one scanned input after its 2 carries");
  EXPECT(scan_prog(3), "scanned input %xs4 is f32[4,2] but the scanned inputs before it have leading dim 3");
  EXPECT(scan_prog(4), "scanned input %xs is f32[]: it needs a leading dimension");
  EXPECT(scan_prog(5), "body parameter 1 (%bx) is f32[3,2] but should be f32[2]");
  EXPECT(scan_prog(6), "body result 0 (%xs) is f32[3,2] but should be f32[2] (the carry type)");
  EXPECT(scan_prog(7), "result 1 (%ys) is declared f32[2] but should be f32[3,2]");
  EXPECT(scan_prog(8), "body returns 0 values but should return at least the 1 carries");
}

/* ---- map ---------------------------------------------------------------------- */

/* f(%xs : f32[3,2], %k : f32[]) -> (f32[3,2]):
 *   %ys = map(%xs, %k) {mapped = 1} : f32[3,2]
 *     body(%row : f32[2], %kk : f32[]) { %y = mul(%row, %kk) : f32[2]; return %y }
 *   return %ys */
static berth_ir_program_t *map_prog(int variant) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_ir_method_t *m = add_method(p, "f");
  int32_t xs = param(m, 0, "xs", F32_32);
  int32_t k = param(m, 0, "k", F32_S);
  int32_t nd = node(m, 0, BERTH_OP_MAP, 2, (int32_t[]){xs, k});
  m->nodes[nd].attrs[0].i = variant == 1 ? 0 : variant == 2 ? 3 : 1;
  int32_t ys = result(m, nd, "ys", variant == 4 ? F32_2 : F32_32);
  int32_t bg = berth_ir_graph_add(m, nd, "body");
  int32_t row, kk;
  if (variant == 3) {
    kk = param(m, bg, "kk", F32_S);
    row = param(m, bg, "row", F32_2);
  } else {
    row = param(m, bg, "row", F32_2);
    kk = param(m, bg, "kk", F32_S);
  }
  int32_t mul = node(m, bg, BERTH_OP_MUL, 2, (int32_t[]){row, kk});
  ret(m, bg, result(m, mul, "y", F32_2));
  ret(m, 0, ys);
  return p;
}

/* map whose body returns a captured rank-8 value: stacking it would need rank 9. */
static berth_ir_program_t *map_rank_prog(void) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_ir_method_t *m = add_method(p, "f");
  berth_type_t big = {BERTH_DTYPE_F32, 8, {1, 1, 1, 1, 1, 1, 1, 1}};
  int32_t xs = param(m, 0, "xs", F32_32);
  int32_t b = param(m, 0, "big", big);
  int32_t nd = node(m, 0, BERTH_OP_MAP, 1, &xs);
  m->nodes[nd].attrs[0].i = 1;
  ret(m, 0, result(m, nd, "ys", big));
  int32_t bg = berth_ir_graph_add(m, nd, "body");
  param(m, bg, "row", F32_2);
  ret(m, bg, b);
  return p;
}

static void test_map(void) {
  EXPECT(map_rank_prog(), "per-step output %big (f32[1,1,1,1,1,1,1,1]) cannot be stacked 3 times");
  EXPECT(map_prog(0), NULL);
  EXPECT(map_prog(1), "node %ys = map in func @f: mapped = 0 but the node has 2 operands");
  EXPECT(map_prog(2), "mapped = 3 but the node has 2 operands");
  EXPECT(map_prog(3), "body parameter 0 (%kk) is f32[] but should be f32[2] (the mapped slices, then the args)");
  EXPECT(map_prog(4), "result 0 (%ys) is declared f32[2] but should be f32[3,2]");
}

/* ---- copy_ ------------------------------------------------------------------------- */

/* const @c : f32[2]; buffer @s : f32[2]; buffer @t : f32[3]
 * f(%x : f32[2]) -> () { copy_(@s, %x); return } */
static berth_ir_program_t *copy_prog(int variant) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_type_t f2 = F32_2, f3 = F32_3;
  int32_t gc = berth_ir_global_add(p, "c", &f2, false, NULL);
  int32_t gs = berth_ir_global_add(p, "s", &f2, true, NULL);
  int32_t gt = berth_ir_global_add(p, "t", &f3, true, NULL);
  berth_ir_method_t *m = add_method(p, "f");
  int32_t x = param(m, 0, "x", F32_2);
  int32_t dst = variant == 1 ? berth_ir_global_ref(p, m, gc)
              : variant == 2 ? x
              : variant == 3 ? berth_ir_global_ref(p, m, gt)
                             : berth_ir_global_ref(p, m, gs);
  int32_t nd = node(m, 0, BERTH_OP_COPY_, variant == 5 ? 1 : 2, (int32_t[]){dst, x});
  if (variant == 4) result(m, nd, "oops", F32_2);
  return p;
}

static void test_copy(void) {
  EXPECT(copy_prog(0), NULL);
  EXPECT(copy_prog(1), "node copy_ in func @f: copy_ writes constant @c; constants are read-only");
  EXPECT(copy_prog(2), "copy_ destination %x is not a mutable buffer");
  EXPECT(copy_prog(3), "copy_ writes f32[2] into @t of type f32[3]");
  EXPECT(copy_prog(4), "node %oops = copy_ in func @f: copy_ has no results, found 1");
  EXPECT(copy_prog(5), "copy_ takes 2 operands, found 1");
}

/* ---- assert ------------------------------------------------------------------------ */

/* f(%p : bool[], %x : f32[2]) -> () { assert(%p) {message = "p holds"}; return } */
static berth_ir_program_t *assert_prog(int variant) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_ir_method_t *m = add_method(p, "f");
  int32_t pr = param(m, 0, "p", BOOL_S), x = param(m, 0, "x", F32_2);
  int32_t b2 = param(m, 0, "b2", ty(BERTH_DTYPE_BOOL, 1, 2, 0));
  int32_t in[2] = {variant == 1 ? x : variant == 2 ? b2 : pr, pr};
  int32_t nd = node(m, 0, BERTH_OP_ASSERT, variant == 3 ? 2 : 1, in);
  int32_t text = 7; /* variant 5: an index past the string table */
  if (variant != 5) CHECK(berth_ir_string_add(p, "p holds", 7, &text) == BERTH_OK && text == 0);
  m->nodes[nd].attrs[0].i = text;
  if (variant == 4) result(m, nd, "oops", BOOL_S);
  return p;
}

static void test_assert(void) {
  EXPECT(assert_prog(0), NULL);
  EXPECT(assert_prog(1), "node assert in func @f: assert's condition %x must be a one-element bool tensor, found f32[2]");
  EXPECT(assert_prog(2), "assert's condition %b2 must be a one-element bool tensor, found bool[2]");
  EXPECT(assert_prog(3), "assert takes 1 operand, found 2");
  EXPECT(assert_prog(4), "node %oops = assert in func @f: assert has no results, found 1");
  EXPECT(assert_prog(5), "attribute 'message' is string 7, not in the program's 0 strings");
  /* no message: index -1, the empty string */
  berth_ir_program_t *p = assert_prog(0);
  p->methods[0].nodes[0].attrs[0].i = -1;
  EXPECT(p, NULL);
  /* a clone keeps the table, so the indices stay right */
  p = assert_prog(0);
  berth_ir_program_t *c = berth_ir_program_clone(p);
  CHECK(c && c->n_strings == 1 && strcmp(berth_ir_string(c, c->methods[0].nodes[0].attrs[0].i), "p holds") == 0);
  berth_ir_program_destroy(p);
  EXPECT(c, NULL);
}

/* ---- globals, names, depth --------------------------------------------------------- */

static void test_globals(void) {
  berth_type_t b2 = ty(BERTH_DTYPE_BOOL, 1, 2, 0);
  berth_ir_program_t *p = berth_ir_program_create();
  berth_ir_global_add(p, "w", &b2, false, NULL);
  berth_ir_global_add(p, "w", &b2, true, NULL);
  EXPECT(p, "two constants or buffers are named @w");

  p = berth_ir_program_create();
  uint8_t bad[2] = {1, 2};
  berth_ir_global_add(p, "flags", &b2, true, bad);
  EXPECT(p, "buffer @flags: bool element 1 is 2, not 0 or 1");

  p = berth_ir_program_create();
  berth_ir_method_add(p, "f");
  berth_ir_method_add(p, "f");
  EXPECT(p, "two funcs are named @f");

  p = berth_ir_program_create();
  berth_ir_global_add(p, "", &b2, true, NULL);
  EXPECT(p, "has no name");

  p = berth_ir_program_create();
  berth_type_t r8 = {BERTH_DTYPE_F32, 8, {1, 1, 1, 1, 1, 1, 1, 1}};
  berth_ir_global_add(p, "g", &r8, false, NULL);
  p->globals[0].type.rank = 9; /* the builder would not take it */
  EXPECT(p, "const @g has an invalid type (dtype 9, rank 9)");

  /* a method with no nodes and no results is fine */
  p = berth_ir_program_create();
  berth_ir_method_add(p, "empty");
  EXPECT(p, NULL);
}

/* `depth` conds nested in their then bodies. */
static berth_ir_program_t *deep_prog(int depth) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_ir_method_t *m = add_method(p, "f");
  int32_t pr = param(m, 0, "p", BOOL_S);
  int32_t g = 0;
  for (int d = 0; d < depth; d++) {
    int32_t nd = node(m, g, BERTH_OP_COND, 1, &pr);
    char name[16];
    snprintf(name, sizeof name, "r%d", d);
    int32_t r = result(m, nd, name, BOOL_S);
    ret(m, g, r);
    int32_t then_g = berth_ir_graph_add(m, nd, "then");
    int32_t else_g = berth_ir_graph_add(m, nd, "else");
    ret(m, else_g, pr);
    g = then_g;
  }
  ret(m, g, pr);
  return p;
}

static void test_depth(void) {
  EXPECT(deep_prog(4), NULL);
  EXPECT(deep_prog(64), NULL);
  EXPECT(deep_prog(65), "func @f: bodies nested deeper than 64");
}

int main(void) {
  test_kernels();
  test_cond();
  test_while();
  test_scan();
  test_map();
  test_copy();
  test_assert();
  test_globals();
  test_depth();
  return test_finish("test_ir_validate");
}
