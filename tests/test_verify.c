/* Tests of the independent verifier (src/program/verify.c) on hand-built exec programs:
 * accepted plans, one rejection per rule with its message, a mutation test (moving one
 * planned offset onto a value live at the same time must be rejected), and a differential
 * test against the sanitizer (a plan is accepted iff no path of it trips the shadow tags). */
#include "exec_builder.h"
#include "program/exec_names.h"
#include "program/verify.h"
#include "runtime/interp.h"
#include "runtime/sanitizer.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static char msg[1024];

/* Verifies with exactly the advertised scratch, deliberately misaligned. */
static berth_status_t verify(pb_t *b) {
  finish(b);
  size_t need = berth_verify_program_scratch_size(&b->p);
  char *mem = malloc(need + 1);
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_status_t st = berth_verify_program(&b->p, mem + 1, need, &d);
  free(mem);
  return st;
}

#define EXPECT_OK(b)                                                                 \
  do {                                                                               \
    berth_status_t st_ = verify(b);                                                  \
    CHECK_MSG(st_ == BERTH_OK, "expected ok, got %s: %s", berth_status_name(st_), msg); \
  } while (0)

#define EXPECT_FAIL(b, status, needle)                                                       \
  do {                                                                                       \
    berth_status_t st_ = verify(b);                                                          \
    CHECK_MSG(st_ == (status), "expected %s, got %s: %s", berth_status_name(status),         \
              berth_status_name(st_), msg);                                                  \
    CHECK_MSG(strstr(msg, needle) != NULL, "message lacks \"%s\": %s", needle, msg);         \
  } while (0)

/* ---- programs --------------------------------------------------------------------------- */

/* Views (DESIGN rule 7). a = x + x (f64[2] at 0); w = view a (all of it); h = view a (its second
 * element, at 8); hh = view h; out = w + h + hh: accepted. The broken variants:
 *  CLOBBER_SOURCE  z written over h's bytes, then a read of the source a;
 *  OUTLIVE         z written over a's bytes (a's planned lifetime is over), then a read of w;
 *  REWRITE_SOURCE  a written again by a copy after the view was made, then a read of w (the
 *                  view names the old a: a carried value or a buffer rewritten in place);
 *  RENAME_OVER     a hand-over renamed onto a's bytes (a coalesced HOP result) while w is live. */
enum { VIEWS_OK, VIEWS_CLOBBER_SOURCE, VIEWS_OUTLIVE, VIEWS_REWRITE_SOURCE, VIEWS_RENAME_OVER };
static void build_views(pb_t *b, int variant) {
  pb_init(b, 48);
  berth_type_t f2 = ty(BERTH_DTYPE_F64, 1, 2);
  int32_t x = input(b, "x", f2, 0), y = input(b, "y", F64, 0);
  int32_t out = output(b, "out", f2, 0);
  int32_t a = arena(b, "a", f2, 0), w = arena(b, "w", f2, 0), h = arena(b, "h", F64, 8), hh = arena(b, "hh", F64, 8);
  int32_t z = arena(b, "z", F64, variant == VIEWS_CLOBBER_SOURCE ? 8 : 0);
  int32_t t = arena(b, "t", F64, 16), r = arena(b, "r", f2, 0), q = arena(b, "q", f2, 32);
  kern(b, BERTH_OP_ADD, x, x, a);
  view(b, a, w, 0);
  view(b, a, h, 8);
  view(b, h, hh, 0);
  if (variant == VIEWS_CLOBBER_SOURCE || variant == VIEWS_OUTLIVE) kern(b, BERTH_OP_NEG, y, -1, z);
  if (variant == VIEWS_REWRITE_SOURCE) copy(b, x, a);
  if (variant == VIEWS_RENAME_OVER) {
    kern(b, BERTH_OP_NEG, x, -1, q);
    copy(b, q, r);
    ren(b, r, a);
  }
  kern(b, BERTH_OP_ADD, h, hh, t);
  kern(b, BERTH_OP_NEG, variant == VIEWS_CLOBBER_SOURCE ? a : w, -1, q);
  kern(b, BERTH_OP_ADD, q, t, out);
  ret(b);
}

/* Joins (a Concat done in place, DESIGN rule 7): p0 = neg x at 0 and p1 = abs x at 8 are
 * produced in their slots of j (f64[2] at 0); j = join(p0, p1); out = neg j; out2 = p0 + p1
 * (the parts are still valid after the join): accepted. The broken variants:
 *  CLOBBER_PART   z written over p1's bytes between its production and the join;
 *  CLOBBER_OUT    z written over j's bytes after the join, then a read of j. */
enum { JOINS_OK, JOINS_CLOBBER_PART, JOINS_CLOBBER_OUT };
static void build_joins(pb_t *b, int variant) {
  pb_init(b, 48);
  berth_type_t f2 = ty(BERTH_DTYPE_F64, 1, 2);
  int32_t x = input(b, "x", F64, 0);
  int32_t out = output(b, "out", f2, 0), out2 = output(b, "out2", F64, 0);
  int32_t p0 = arena(b, "p0", F64, 0), p1 = arena(b, "p1", F64, 8), j = arena(b, "j", f2, 0);
  int32_t z = arena(b, "z", F64, variant == JOINS_OK ? 32 : 8);
  kern(b, BERTH_OP_NEG, x, -1, p0);
  kern(b, BERTH_OP_ABS, x, -1, p1);
  if (variant == JOINS_CLOBBER_PART) kern(b, BERTH_OP_NEG, x, -1, z);
  int32_t parts[2] = {p0, p1};
  join(b, parts, 2, j);
  if (variant == JOINS_CLOBBER_OUT) kern(b, BERTH_OP_NEG, x, -1, z);
  kern(b, BERTH_OP_NEG, j, -1, out);
  kern(b, BERTH_OP_ADD, p0, p1, out2);
  ret(b);
}

/* The id of the value called `name` (the builders number values as they make them). */
static int32_t vid(const pb_t *b, const char *name) {
  for (int32_t v = 0; v < b->nv; v++)
    if (strcmp(b->v[v].name, name) == 0) return v;
  return -1;
}

/* a = x + y; b = a + x; out = copy b */
static void build_straight(pb_t *b) {
  pb_init(b, 16);
  int32_t x = input(b, "x", F64, 0), y = input(b, "y", F64, 0);
  int32_t out = output(b, "out", F64, 0);
  int32_t a = arena(b, "a", F64, 0), bb = arena(b, "b", F64, 8);
  kern(b, BERTH_OP_ADD, x, y, a);
  kern(b, BERTH_OP_ADD, a, x, bb);
  copy(b, bb, out);
  ret(b);
}

/* r = cond(pred, x + x, clone(x)), both branch results coalesced with r; out = copy r */
static void build_diamond(pb_t *b, bool else_writes) {
  pb_init(b, 8);
  int32_t x = input(b, "x", F64, 0), pred = input(b, "pred", BOOL1, 0);
  int32_t out = output(b, "out", F64, 0);
  int32_t r = arena(b, "r", F64, 0), t = arena(b, "t", F64, 0), e = arena(b, "e", F64, 0);
  int32_t j0 = jif(b, pred, -1);
  kern(b, BERTH_OP_ADD, x, x, t);
  ren(b, t, r);
  int32_t j1 = jmp(b, -1);
  b->ins[j0].target = b->n;
  if (else_writes) {
    kern(b, BERTH_OP_CLONE, x, -1, e);
    ren(b, e, r);
  }
  b->ins[j1].target = b->n;
  copy(b, r, out);
  ret(b);
}

/* c = x; while (c < limit) { t = c + one; cn = clone(t) (coalesced with c); c <- cn }
 * With `bad`, the old c is read after cn overwrote it (illegal coalescing). */
static void build_while(pb_t *b, bool bad) {
  pb_init(b, 40);
  b->consts_size = 16;
  int32_t x = input(b, "x", F64, 0);
  int32_t out = output(b, "out", F64, 0);
  int32_t one = cnst(b, "one", F64, 0), limit = cnst(b, "limit", F64, 8);
  int32_t c = arena(b, "c", F64, 0), t = arena(b, "t", F64, 8), cn = arena(b, "cn", F64, 0);
  int32_t p = arena(b, "p", BOOL1, 16), t2 = arena(b, "t2", F64, 24);
  copy(b, x, c);
  int32_t head = kern(b, BERTH_OP_LT, c, limit, p);
  int32_t j = jif(b, p, -1);
  kern(b, BERTH_OP_ADD, c, one, t);
  kern(b, BERTH_OP_CLONE, t, -1, cn);
  if (bad) kern(b, BERTH_OP_ADD, c, t, t2);
  ren(b, cn, c);
  jmp(b, head);
  b->ins[j].target = b->n;
  copy(b, c, out);
  ret(b);
}

/* scan: acc = zero; for k in 0..3 { s = acc + xs[k]; ys[k] = clone(s); acc <- clone(s) }
 * ys is the stacked output (slices written in place), xs is read in place. */
static void build_scan(pb_t *b, int64_t count, int64_t stride, bool with_init) {
  pb_init(b, 16);
  b->consts_size = 8;
  int32_t xs = input(b, "xs", ty(BERTH_DTYPE_F64, 1, 4), 0);
  int32_t ys = output(b, "ys", ty(BERTH_DTYPE_F64, 1, 4), 0);
  int32_t zero = cnst(b, "zero", F64S, 0);
  int32_t acc = arena(b, "acc", F64S, 0), s = arena(b, "s", F64S, 8), accn = arena(b, "acc_n", F64S, 0);
  uint64_t off = stride < 0 ? 24 : 0;
  int32_t xk = window(b, "x_k", F64S, xs, 0, off, stride);
  int32_t yk = window(b, "y_k", F64S, ys, 0, off, stride);
  b->n_regs = 1;
  copy(b, zero, acc);
  if (with_init) linit(b, 0);
  int32_t body = kern(b, BERTH_OP_ADD, acc, xk, s);
  kern(b, BERTH_OP_CLONE, s, -1, yk);
  kern(b, BERTH_OP_CLONE, s, -1, accn);
  ren(b, accn, acc);
  lnext(b, 0, count, body);
  ret(b);
}

/* The seed reproducer (reference/seed-issue.txt), lowered with destination passing:
 *   result1 = cond(pred, clone(data), clone(state))
 *   result2 = cond(pred, cond(isnan(state), clone(result1), clone(result1) + one), clone(state))
 *   state.copy_(result1); return result1, result2
 * `regions` places it the way ExecuTorch does: every branch value from offset 0 of one shared
 * region, so the nested cond's add_1 lands on result1's bytes. */
typedef struct seed_ids {
  int32_t result1, result2, add_1, st, read_result1, write_add_1;
} seed_ids_t;

static seed_ids_t build_seed(pb_t *b, bool regions) {
  seed_ids_t id;
  pb_init(b, 40);
  b->consts_size = 8;
  b->state_size = 8;
  int32_t data = input(b, "data", F64, 0), pred = input(b, "pred", BOOL1, 0);
  int32_t out0 = output(b, "out0", F64, 0), out1 = output(b, "out1", F64, 0);
  int32_t st = state(b, "state", F64, 0);
  int32_t one = cnst(b, "one", F64, 0);
  int32_t result1 = arena(b, "result1", F64, 0);
  int32_t t1 = arena(b, "t1", F64, 0), e1 = arena(b, "e1", F64, 0);
  int32_t result2 = arena(b, "result2", F64, 8);
  int32_t isn = arena(b, "isn", BOOL1, 16);
  int32_t n1 = arena(b, "n1", F64, 8), r2c = arena(b, "r2c", F64, 24);
  int32_t add_1 = arena(b, "add_1", F64, regions ? 0 : 32);
  int32_t e2 = arena(b, "e2", F64, 8);
  /* first cond */
  int32_t j0 = jif(b, pred, -1);
  kern(b, BERTH_OP_CLONE, data, -1, t1);
  ren(b, t1, result1);
  int32_t j1 = jmp(b, -1);
  b->ins[j0].target = b->n;
  kern(b, BERTH_OP_CLONE, st, -1, e1);
  ren(b, e1, result1);
  b->ins[j1].target = b->n;
  /* second cond, with the nested one in its then-branch */
  int32_t j2 = jif(b, pred, -1);
  kern(b, BERTH_OP_ISNAN, st, -1, isn);
  int32_t j3 = jif(b, isn, -1);
  kern(b, BERTH_OP_CLONE, result1, -1, n1);
  ren(b, n1, result2);
  int32_t j4 = jmp(b, -1);
  b->ins[j3].target = b->n;
  kern(b, BERTH_OP_CLONE, result1, -1, r2c);
  id.write_add_1 = kern(b, BERTH_OP_ADD, r2c, one, add_1);
  copy(b, add_1, result2);
  b->ins[j4].target = b->n;
  int32_t j5 = jmp(b, -1);
  b->ins[j2].target = b->n;
  kern(b, BERTH_OP_CLONE, st, -1, e2);
  ren(b, e2, result2);
  b->ins[j5].target = b->n;
  /* state.copy_(result1); outputs */
  id.read_result1 = copy(b, result1, st);
  copy(b, result1, out0);
  copy(b, result2, out1);
  ret(b);
  id.result1 = result1;
  id.result2 = result2;
  id.add_1 = add_1;
  id.st = st;
  return id;
}

/* ---- accepted plans ----------------------------------------------------------------------- */

static void test_accepted(void) {
  pb_t b;
  build_straight(&b);
  EXPECT_OK(&b);
  build_diamond(&b, true);
  EXPECT_OK(&b);
  build_while(&b, false);
  EXPECT_OK(&b);
  build_scan(&b, 4, 8, true);
  EXPECT_OK(&b);
  build_scan(&b, 4, -8, true); /* reverse scan */
  EXPECT_OK(&b);
  build_seed(&b, false);
  EXPECT_OK(&b);

  /* planned inputs and outputs */
  pb_init(&b, 24);
  b.alloc_in = b.alloc_out = true;
  int32_t x = input(&b, "x", F64, 0);
  int32_t out = output(&b, "out", F64, 8);
  int32_t t = arena(&b, "t", F64, 16);
  kern(&b, BERTH_OP_NEG, x, -1, t);
  kern(&b, BERTH_OP_NEG, t, -1, out);
  ret(&b);
  EXPECT_OK(&b);

  /* a zero-byte value may sit anywhere and is always intact */
  pb_init(&b, 8);
  x = input(&b, "x", ty(BERTH_DTYPE_F64, 1, 0), 0);
  out = output(&b, "out", ty(BERTH_DTYPE_F64, 1, 0), 0);
  int32_t e = arena(&b, "e", ty(BERTH_DTYPE_F64, 1, 0), 8);
  kern(&b, BERTH_OP_NEG, x, -1, out);
  kern(&b, BERTH_OP_NEG, x, -1, e);
  ret(&b);
  EXPECT_OK(&b);

  /* planned inputs must not share bytes: both are intact at entry */
  pb_init(&b, 24);
  b.alloc_in = b.alloc_out = true;
  x = input(&b, "x", F64, 0);
  int32_t y = input(&b, "y", ty(BERTH_DTYPE_F64, 1, 2), 0);
  out = output(&b, "out", F64, 16);
  kern(&b, BERTH_OP_NEG, x, -1, out);
  ret(&b);
  (void)y;
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "values %x (arena pool 0 [0,8)) and %y (arena pool 0 [0,16)) share "
                                           "bytes; method inputs and state must not share bytes");
  b.v[y].offset = 8;
  b.pools[0] = 32;
  b.v[out].offset = 24;
  EXPECT_OK(&b);

  /* instruction 0 may be a loop head (the entry state meets the back edge) */
  pb_init(&b, 8);
  b.consts_size = 8;
  int32_t one = cnst(&b, "one", F64S, 0);
  int32_t ys = output(&b, "ys", ty(BERTH_DTYPE_F64, 1, 3), 0);
  int32_t yk = window(&b, "y_k", F64S, ys, 0, 0, 8);
  b.n_regs = 1;
  linit(&b, 0);
  int32_t body = kern(&b, BERTH_OP_NEG, one, -1, yk);
  lnext(&b, 0, 3, body);
  ret(&b);
  EXPECT_OK(&b);
}

/* ---- rejections --------------------------------------------------------------------------- */

static void test_seed_bug(void) {
  pb_t b;
  seed_ids_t id = build_seed(&b, true);
  char want[256];
  snprintf(want, sizeof want,
           "read of %%result1 (arena pool 0 [0,8)) at instruction %d (copy) may see %%add_1 "
           "(arena pool 0 [0,8)) written at instruction %d",
           (int)id.read_result1, (int)id.write_add_1);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, want);
  CHECK(strncmp(msg, "method forward: ", 16) == 0);
}

static void test_overlapping_temporaries(void) {
  pb_t b;
  pb_init(&b, 16);
  int32_t x = input(&b, "x", F64, 0);
  int32_t out = output(&b, "out", F64, 0);
  int32_t a = arena(&b, "a", F64, 0), c = arena(&b, "c", F64, 0);
  int32_t s = arena(&b, "s", F64, 8);
  kern(&b, BERTH_OP_NEG, x, -1, a);
  kern(&b, BERTH_OP_ABS, x, -1, c);
  kern(&b, BERTH_OP_ADD, a, c, s);
  copy(&b, s, out);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "read of %a (arena pool 0 [0,8)) at instruction 2 (kernel add) may see %c (arena pool 0 "
              "[0,8)) written at instruction 1");

  /* a partial overlap is an overlap too (f32 pairs in f64 slots) */
  pb_init(&b, 16);
  b.alignment = 4;
  x = input(&b, "x", ty(BERTH_DTYPE_F32, 1, 2), 0);
  out = output(&b, "out", ty(BERTH_DTYPE_F32, 1, 2), 0);
  a = arena(&b, "a", ty(BERTH_DTYPE_F32, 1, 2), 0);
  c = arena(&b, "c", ty(BERTH_DTYPE_F32, 1, 2), 4);
  kern(&b, BERTH_OP_NEG, x, -1, a);
  kern(&b, BERTH_OP_NEG, x, -1, c);
  kern(&b, BERTH_OP_NEG, a, -1, out);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "may see %c (arena pool 0 [4,12)) written at instruction 1");
}

static void test_illegal_coalescing(void) {
  pb_t b;
  build_while(&b, true);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "read of %c (arena pool 0 [0,8)) at instruction 5 (kernel add) may see %cn (arena pool 0 "
              "[0,8)) written at instruction 4");
}

static void test_output_clobbered(void) {
  pb_t b;
  pb_init(&b, 16);
  b.alloc_out = true;
  int32_t x = input(&b, "x", F64, 0);
  int32_t out = output(&b, "out", F64, 0);
  int32_t tmp = arena(&b, "tmp", F64, 0);
  kern(&b, BERTH_OP_NEG, x, -1, out);
  kern(&b, BERTH_OP_ABS, x, -1, tmp);
  ret(&b);
  (void)out;
  (void)tmp;
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "read of %out (arena pool 0 [0,8)) at instruction 2 (return) may see %tmp (arena pool 0 "
              "[0,8)) written at instruction 1");
}

static void test_state(void) {
  pb_t b;
  /* a temporary placed in the state region over the state buffer, and the buffer read after
   * it is written (a kernel-written STATE value is a buffer's new value, not a buffer: the
   * dataflow sees the clobbered read) */
  pb_init(&b, 8);
  b.state_size = 16;
  int32_t x = input(&b, "x", F64, 0);
  int32_t out = output(&b, "out", F64, 0);
  int32_t st = state(&b, "state", F64, 0);
  int32_t tmp = state(&b, "tmp", F64, 0);
  kern(&b, BERTH_OP_NEG, x, -1, tmp);
  kern(&b, BERTH_OP_ADD, tmp, st, out);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "read of %state (state [0,8)) at instruction 1 (kernel add) may see %tmp (state [0,8)) written at "
              "instruction 0");

  /* state updated with copy_ (a COPY into the state value) survives */
  pb_init(&b, 8);
  b.state_size = 8;
  x = input(&b, "x", F64, 0);
  out = output(&b, "out", F64, 0);
  st = state(&b, "state", F64, 0);
  int32_t t = arena(&b, "t", F64, 0);
  kern(&b, BERTH_OP_ADD, x, st, t);
  copy(&b, t, st);
  copy(&b, st, out);
  ret(&b);
  EXPECT_OK(&b);

  /* a method output may not be the state buffer itself (rule 2) */
  pb_init(&b, 8);
  b.state_size = 8;
  b.alloc_out = true;
  st = state(&b, "state", F64, 0);
  b.out[b.no++] = st;
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "output 0 (%state) has state storage");

  /* state written slice by slice from a loop is intact at return */
  pb_init(&b, 8);
  b.state_size = 24;
  b.consts_size = 8;
  int32_t one = cnst(&b, "one", F64S, 0);
  st = state(&b, "state", ty(BERTH_DTYPE_F64, 1, 2), 0);
  int32_t sk = window(&b, "s_k", F64S, st, 0, 0, 8);
  int32_t clob = state(&b, "clob", F64S, 16);
  (void)clob;
  linit(&b, 0);
  int32_t body = kern(&b, BERTH_OP_NEG, one, -1, sk);
  lnext(&b, 0, 2, body);
  ret(&b);
  EXPECT_OK(&b);
}

static void test_write_to_constant(void) {
  pb_t b;
  pb_init(&b, 8);
  b.consts_size = 8;
  int32_t x = input(&b, "x", F64, 0);
  int32_t out = output(&b, "out", F64, 0);
  int32_t k = cnst(&b, "k", F64, 0);
  copy(&b, x, k);
  copy(&b, k, out);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "instruction 0 (copy) writes %k into constant bytes (const [0,8)); constants are read-only");

  /* nor into the caller's input buffer */
  pb_init(&b, 8);
  x = input(&b, "x", F64, 0);
  out = output(&b, "out", F64, 0);
  kern(&b, BERTH_OP_NEG, out, -1, x);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "writes %x into the caller's input buffer");
}

static void test_uninitialized(void) {
  pb_t b;
  build_diamond(&b, false);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "read of %r (arena pool 0 [0,8)) at instruction 4 (copy) may see uninitialized bytes: %r "
              "is not written on some path from the method entry");
}

/* assert reads its condition (which must be intact and a one-element bool) and writes
 * nothing; failing ends the call, so nothing needs to be intact at it. */
static void build_assert(pb_t *b) {
  pb_init(b, 16);
  int32_t x = input(b, "x", F64, 0), lim = input(b, "lim", F64, 0);
  int32_t out = output(b, "out", F64, 0);
  int32_t ok = arena(b, "ok", BOOL1, 0), t = arena(b, "t", F64, 8);
  kern(b, BERTH_OP_LE, x, lim, ok);
  asrt(b, ok, "x must be at most lim");
  kern(b, BERTH_OP_ADD, x, x, t);
  copy(b, t, out);
  ret(b);
}

static void test_assert(void) {
  pb_t b;
  build_assert(&b);
  EXPECT_OK(&b);
  /* a value written over the condition's bytes before the check */
  build_assert(&b);
  b.ins[1] = b.ins[2];
  b.ins[2].opcode = BERTH_I_ASSERT;
  b.ins[2].op = BERTH_OP_ASSERT;
  b.ins[2].n_in = 1;
  b.ins[2].n_out = 0;
  b.ins[2].operands = 3; /* asrt's operand %ok, after le's three */
  b.ins[2].attrs = 0;
  b.v[4].offset = 0; /* %t on %ok's bytes */
  b.pools[0] = 8;
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "read of %ok (arena pool 0 [0,1)) at instruction 2 (assert) may see %t (arena pool 0 [0,8)) written at "
              "instruction 1");
  /* a condition never written */
  build_assert(&b);
  b.ins[0].opcode = BERTH_I_JUMP;
  b.ins[0].target = 1;
  b.ins[0].n_in = b.ins[0].n_out = 0;
  b.ins[0].op = 0;
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %ok (arena pool 0 [0,1)) at instruction 1 (assert) may see "
                                           "uninitialized bytes");
  /* structure */
  build_assert(&b);
  b.ops[3] = 0; /* the condition is %x */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (assert): condition %x is f64[1]; expected a one-element bool");
  build_assert(&b);
  b.ins[1].op = BERTH_OP_ADD;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (assert): op 5 is not assert");
  build_assert(&b);
  b.ins[1].n_out = 1;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (assert): 1 inputs and 1 outputs; expected 1 and 0");
  build_assert(&b);
  b.ins[1].attrs = 1;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (assert): attributes [1,+1) out of range (1 attributes)");
  build_assert(&b);
  b.n = 2; /* ends with the assert */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (assert) is the last one and can fall off the end");
  /* the interpreter: a false condition stops the call with the message, no output written */
  build_assert(&b);
  EXPECT_OK(&b);
  uint8_t pool[16];
  double x = 3, lim = 2, out = -1;
  const void *ins[2] = {&x, &lim};
  void *outs[1] = {&out};
  uint8_t *pools[1] = {pool};
  berth_exec_memory_t mem = {pools, NULL, ins, outs, NULL, NULL, NULL, NULL};
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_status_t st = berth_exec_run(&b.p, 0, &mem, NULL, 0, &d);
  CHECK_MSG(st == BERTH_ERR_CHECK_FAILED && strcmp(msg, "method forward: run-time check failed at instruction 1 (%ok is "
                                                        "false): x must be at most lim") == 0,
            "%s: %s", berth_status_name(st), msg);
  CHECK(out == -1);
  lim = 4;
  CHECK(berth_exec_run(&b.p, 0, &mem, NULL, 0, &d) == BERTH_OK && out == 6);
  /* the empty message */
  b.attrs[0].s = NULL;
  lim = 2;
  CHECK(berth_exec_run(&b.p, 0, &mem, NULL, 0, &d) == BERTH_ERR_CHECK_FAILED &&
        strcmp(msg, "method forward: run-time check failed at instruction 1 (%ok is false)") == 0);
  /* the sanitizer checks the read like any other */
  size_t need = berth_sanitizer_size(&b.p, 0);
  void *smem = malloc(need);
  berth_sanitizer_t *san = NULL;
  CHECK(berth_sanitizer_init(smem, need, &b.p, 0, &san, &d) == BERTH_OK);
  lim = 4;
  CHECK(san && berth_exec_run(&b.p, 0, &mem, san, 0, &d) == BERTH_OK && out == 6);
  free(smem);
}

static void test_kernel_overlap(void) {
  pb_t b;
  pb_init(&b, 24);
  int32_t x = input(&b, "x", ty(BERTH_DTYPE_F64, 1, 2), 0);
  int32_t out = output(&b, "out", ty(BERTH_DTYPE_F64, 1, 2), 0);
  int32_t c = arena(&b, "c", ty(BERTH_DTYPE_F64, 1, 2), 0);
  int32_t d = arena(&b, "d", ty(BERTH_DTYPE_F64, 1, 2), 8);
  copy(&b, x, c);
  kern(&b, BERTH_OP_NEG, c, -1, d);
  copy(&b, d, out);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "instruction 1 (kernel neg): output %d (arena pool 0 [8,24)) overlaps input %c (arena pool "
              "0 [0,16)); kernels need disjoint inputs, outputs and scratch");

  /* slices of one parent with the same register and stride are compared exactly */
  pb_init(&b, 8);
  b.consts_size = 8;
  int32_t one = cnst(&b, "one", F64S, 0);
  int32_t ys = output(&b, "ys", ty(BERTH_DTYPE_F64, 1, 4), 0);
  int32_t lo = window(&b, "lo", F64S, ys, 0, 0, 16), hi = window(&b, "hi", F64S, ys, 0, 8, 16);
  int32_t t = arena(&b, "t", F64S, 0);
  linit(&b, 0);
  int32_t body = kern(&b, BERTH_OP_NEG, one, -1, lo);
  kern(&b, BERTH_OP_NEG, one, -1, t);
  kern(&b, BERTH_OP_NEG, t, -1, hi);
  lnext(&b, 0, 2, body);
  ret(&b);
  EXPECT_OK(&b);
  b.ops[b.ins[3].operands] = lo; /* neg(lo) -> hi: disjoint slices of one parent */
  EXPECT_OK(&b);
  b.v[hi].offset = 0; /* now the same slice */
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "instruction 3 (kernel neg): output %hi (slice of %ys in output 0 [0,32)) overlaps input %lo");

  /* a copy whose source and destination overlap without being the same bytes */
  pb_init(&b, 24);
  x = input(&b, "x", ty(BERTH_DTYPE_F64, 1, 2), 0);
  out = output(&b, "out", ty(BERTH_DTYPE_F64, 1, 2), 0);
  c = arena(&b, "c", ty(BERTH_DTYPE_F64, 1, 2), 0);
  d = arena(&b, "d", ty(BERTH_DTYPE_F64, 1, 2), 8);
  copy(&b, x, c);
  copy(&b, c, d);
  copy(&b, d, out);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "instruction 1 (copy): source %c (arena pool 0 [0,16)) and "
                                           "destination %d (arena pool 0 [8,24)) overlap");
}

static void test_structural(void) {
  pb_t b;
  /* out-of-bounds offset */
  build_straight(&b);
  b.v[4].offset = 16; /* %b: [16,24) in a pool of 16 */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "value 4 (%b): bytes [16,+8) exceed the arena pool 0 (16 bytes)");
  /* misaligned offset */
  build_straight(&b);
  b.pools[0] = 24;
  b.v[4].offset = 12;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "offset 12 in the arena pool 0 is not a multiple of 8");
  /* bad pool */
  build_straight(&b);
  b.v[4].pool = 3;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "arena pool 3 out of range");
  /* overflow in offset + size */
  build_straight(&b);
  b.v[4].offset = UINT64_MAX - 3;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "exceed the arena pool 0");
  /* bad jump target */
  build_diamond(&b, true);
  b.ins[3].target = 99;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 3 (jump): target 99 out of range [0,8)");
  build_diamond(&b, true);
  b.ins[0].target = -1;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 0 (jump_if_false): target -1 out of range");
  /* falling off the end */
  build_straight(&b);
  b.n--; /* drop the return */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 2 (copy) is the last one and can fall off the end");
  /* kernel output type differs from infer */
  build_straight(&b);
  b.v[3].type = F32; /* %a = add(f64, f64) declared f32 */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA,
              "instruction 0 (kernel add): output 0 (%a) is declared f32[1] but add gives f64[1]");
  /* infer itself rejects (dtype mismatch) */
  build_straight(&b);
  b.v[1].type = F32;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "method forward: instruction 0 (kernel add): ");
  /* operand id out of range */
  build_straight(&b);
  b.ops[1] = 40;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 0 (kernel): operand 1 is value id 40, out of range");
  /* operands out of the operand table */
  build_straight(&b);
  b.ins[2].operands = 1000;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 2 (copy): operands [1000,+2) out of range");
  /* operand counts against the op */
  build_straight(&b);
  b.ins[0].n_in = 1;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 0 (kernel add): 1 inputs; expected 2 to 2");
  build_straight(&b);
  b.ins[0].n_out = 2;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "2 outputs; expected 1");
  /* not a kernel */
  build_straight(&b);
  b.ins[0].op = BERTH_OP_COND;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "op 0 (cond) is not a kernel");
  build_straight(&b);
  b.ins[0].op = 9999;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "op 9999 (unknown) is not a kernel");
  /* unknown opcode */
  build_straight(&b);
  b.ins[1].opcode = 200;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1: unknown opcode 200");
  /* copy between different sizes */
  build_straight(&b);
  b.v[2].type = ty(BERTH_DTYPE_F64, 1, 2);
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 2 (copy): %b has 8 bytes but %out has 16");
  /* rename between different bytes */
  build_diamond(&b, true);
  b.v[4].offset = 8; /* %t */
  b.pools[0] = 16;
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "instruction 2 (rename): %t (arena pool 0 [8,16)) and %r (arena "
                                           "pool 0 [0,8)) are not on the same storage");
  /* condition not a one-element bool */
  build_diamond(&b, true);
  b.v[1].type = F64;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "condition %pred is f64[1]; expected a one-element bool");
  /* input / output storage contracts */
  build_straight(&b);
  b.v[1].index = 0;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "input 1 (%y) has caller input storage; expected the caller's input buffer");
  build_straight(&b);
  b.v[2].index = 5;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "value 2 (%out): output index 5 out of range (1 outputs)");
  build_straight(&b);
  b.out[0] = 0;
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "output 0 (%x) is a method input");
  build_straight(&b);
  b.in[1] = 0;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "input 1 (%x) is listed twice");
  build_straight(&b);
  b.alloc_in = true;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "value 0 (%x): caller input storage, but the program plans its inputs");
  /* invalid type */
  build_straight(&b);
  b.v[3].type.rank = 99;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "value 3 (%a): invalid type");
  /* unknown storage class */
  build_straight(&b);
  b.v[3].storage = 9;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "value 3 (%a): unknown storage class 9");
  /* no instructions */
  build_straight(&b);
  b.n = 0;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "no instructions");
  /* state without initial contents */
  build_seed(&b, false);
  finish(&b);
  b.m.state_init = NULL;
  {
    size_t need = berth_verify_program_scratch_size(&b.p);
    void *mem = malloc(need);
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    CHECK(berth_verify_program(&b.p, mem, need, &d) == BERTH_ERR_CORRUPT_DATA);
    CHECK(strstr(msg, "has no initial contents") != NULL);
    free(mem);
  }
}

static void test_loops(void) {
  pb_t b;
  /* the trip count selects slices outside the stacked parent */
  build_scan(&b, 5, 8, true);
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "slice %x_k at register value up to 4");
  build_scan(&b, 5, -8, true);
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "lies outside its parent %xs (32 bytes)");
  /* a slice used before its register is set */
  build_scan(&b, 4, 8, false);
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "slice %x_k uses register 0, which may be unset");
  /* a slice used after the loop, where the register equals the count */
  build_scan(&b, 4, 8, true);
  b.n--; /* drop return */
  int32_t extra = arena(&b, "late", F64S, 8);
  kern(&b, BERTH_OP_CLONE, 6 /* x_k */, -1, extra);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 7 (kernel clone): slice %x_k at register value up to 4");
  /* loop register and count checks */
  build_scan(&b, 0, 8, true);
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "trip count 0 out of range");
  build_scan(&b, 4, 8, true);
  b.ins[1].reg = 3;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (loop_init): register 3 out of range (1 registers)");
  build_scan(&b, 4, 8, true);
  b.v[6].window_reg = 2;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "window register 2 out of range");
  build_scan(&b, 4, 8, true);
  b.v[6].window_parent = 7; /* a window of a window */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "is itself windowed");
  build_scan(&b, 4, 4, true); /* stride not a multiple of the element size */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "are not aligned to the element size 8");
  /* loop_next on a register never initialized */
  pb_init(&b, 8);
  b.consts_size = 8;
  int32_t one = cnst(&b, "one", F64S, 0);
  int32_t out = output(&b, "out", F64S, 0);
  b.n_regs = 1;
  int32_t body = kern(&b, BERTH_OP_NEG, one, -1, out);
  lnext(&b, 0, 3, body);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (loop_next): register 0 may be unset");

  /* a temporary written over the stacked output between two slice writes: the later slices
   * do not make it whole again (ys in the arena here) */
  int32_t ys, yk;
  for (int bad = 0; bad < 2; bad++) {
    pb_init(&b, 48);
    b.alloc_out = true;
    b.consts_size = 8;
    one = cnst(&b, "one", F64S, 0);
    ys = output(&b, "ys", ty(BERTH_DTYPE_F64, 1, 4), 0);
    yk = window(&b, "y_k", F64S, ys, 0, 0, 8);
    int32_t tmp = arena(&b, "tmp", F64S, bad ? 0 : 32), t2 = arena(&b, "t2", F64S, 40);
    linit(&b, 0);
    body = kern(&b, BERTH_OP_NEG, one, -1, tmp);
    kern(&b, BERTH_OP_NEG, tmp, -1, t2);
    kern(&b, BERTH_OP_NEG, t2, -1, yk);
    lnext(&b, 0, 4, body);
    ret(&b);
    if (bad)
      EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
                  "read of %ys (arena pool 0 [0,32)) at instruction 5 (return) may see %tmp (arena pool 0 "
                  "[0,8)) written at instruction 1");
    else
      EXPECT_OK(&b);
  }
  /* Conservative by design: a temporary inside the loop over a slice not written yet (slice 2,
   * dead before iteration 2 writes it) is rejected too. The planner keeps a stacked result
   * live over its whole loop, so it never plans this. */
  pb_init(&b, 48);
  b.alloc_out = true;
  b.consts_size = 8;
  one = cnst(&b, "one", F64S, 0);
  ys = output(&b, "ys", ty(BERTH_DTYPE_F64, 1, 3), 0);
  yk = window(&b, "y_k", F64S, ys, 0, 0, 8);
  int32_t t1 = arena(&b, "t1", F64S, 16), t3 = arena(&b, "t3", F64S, 40);
  linit(&b, 0);
  body = kern(&b, BERTH_OP_NEG, one, -1, t1);
  kern(&b, BERTH_OP_NEG, t1, -1, t3);
  kern(&b, BERTH_OP_NEG, t3, -1, yk);
  lnext(&b, 0, 3, body);
  ret(&b);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %ys (arena pool 0 [0,24)) at instruction 5 (return) may see %t1");

  /* ...while temporaries before the loop may use those bytes */
  pb_init(&b, 40);
  b.alloc_out = true;
  b.consts_size = 8;
  one = cnst(&b, "one", F64S, 0);
  ys = output(&b, "ys", ty(BERTH_DTYPE_F64, 1, 4), 0);
  yk = window(&b, "y_k", F64S, ys, 0, 0, 8);
  int32_t early = arena(&b, "early", F64S, 8), t2 = arena(&b, "t2", F64S, 32);
  kern(&b, BERTH_OP_NEG, one, -1, early);
  kern(&b, BERTH_OP_NEG, early, -1, t2);
  linit(&b, 0);
  body = kern(&b, BERTH_OP_NEG, t2, -1, yk);
  lnext(&b, 0, 4, body);
  ret(&b);
  EXPECT_OK(&b);
}

static void test_api(void) {
  pb_t b;
  build_seed(&b, false);
  finish(&b);
  size_t need = berth_verify_scratch_size(&b.p, 0);
  CHECK(need > 0 && need != SIZE_MAX);
  CHECK(berth_verify_program_scratch_size(&b.p) == need);
  char *mem = malloc(need);
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  CHECK(berth_verify_method(&b.p, 0, mem, need, &d) == BERTH_OK);
  CHECK(berth_verify_method(&b.p, 0, mem, need - 1, &d) == BERTH_ERR_RESOURCE_EXHAUSTED);
  CHECK(strstr(msg, "too small") != NULL);
  CHECK(berth_verify_method(&b.p, 0, NULL, need, &d) == BERTH_ERR_RESOURCE_EXHAUSTED);
  CHECK(berth_verify_method(&b.p, 1, mem, need, &d) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_verify_method(NULL, 0, mem, need, &d) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_verify_method(&b.p, 0, mem, need, NULL) == BERTH_OK);
  CHECK(berth_verify_scratch_size(&b.p, 7) == 0);
  CHECK(berth_verify_scratch_size(NULL, 0) == 0);
  /* huge counts: the size overflows or is refused, never wraps */
  berth_exec_method_t big = b.m;
  big.n_values = INT32_MAX;
  big.n_instrs = INT32_MAX;
  big.n_regs = INT32_MAX;
  big.values = NULL; /* counts and tables always come together: no table, nothing to read */
  big.instrs = NULL;
  berth_exec_program_t bp = b.p;
  bp.methods = &big;
  size_t bs = berth_verify_scratch_size(&bp, 0);
  CHECK(bs == SIZE_MAX || bs > ((size_t)1 << 40));
  CHECK(berth_verify_method(&bp, 0, mem, need, &d) == BERTH_ERR_CORRUPT_DATA);
  free(mem);

  /* two methods: the second one fails, and its name is in the message */
  pb_t a, c;
  build_straight(&a);
  finish(&a);
  build_seed(&c, true);
  finish(&c);
  berth_exec_method_t ms[2] = {a.m, c.m};
  ms[1].name = "second";
  berth_exec_program_t two = c.p;
  two.n_methods = 2;
  two.methods = ms;
  need = berth_verify_program_scratch_size(&two);
  CHECK(need >= berth_verify_scratch_size(&two, 0) && need >= berth_verify_scratch_size(&two, 1));
  mem = malloc(need);
  CHECK(berth_verify_program(&two, mem, need, &d) == BERTH_ERR_VERIFY_FAILED);
  CHECK_MSG(strncmp(msg, "method second: read of %result1", 31) == 0, "%s", msg);
  free(mem);

  /* formatting helpers */
  char buf[64];
  CHECK(strcmp(berth_exec_value_name(&b.m, 0, buf, sizeof buf), "%data") == 0);
  b.v[0].name = NULL;
  CHECK(strcmp(berth_exec_value_name(&b.m, 0, buf, sizeof buf), "%v0") == 0);
  b.v[0].name = "%named";
  CHECK(strcmp(berth_exec_value_name(&b.m, 0, buf, sizeof buf), "%named") == 0);
  CHECK(strcmp(berth_exec_instr_name(&b.m, 1, buf, sizeof buf), "kernel clone") == 0);
  CHECK(strcmp(berth_exec_instr_name(&b.m, 0, buf, sizeof buf), "jump_if_false") == 0);
  CHECK(strcmp(berth_exec_instr_name(&b.m, 999, buf, sizeof buf), "?") == 0);
}

/* ---- mutation test ------------------------------------------------------------------------ */

/* Pairs of values of the correct seed plan that are live at the same time on some path. Moving
 * the first onto the second's bytes must be rejected. */
static void test_mutations(void) {
  static const char *const live_pairs[][2] = {
      {"result1", "result2"}, {"result1", "isn"},  {"result1", "n1"},   {"result1", "r2c"},
      {"result1", "add_1"},   {"result1", "e2"},   {"result2", "result1"}, {"r2c", "result1"},
      {"add_1", "result1"},   {"isn", "result1"},  {"n1", "result1"},   {"e2", "result1"},
      {"add_1", "r2c"},       {"r2c", "add_1"},    {"t1", "result2"},
  };
  int rejected = 0;
  for (size_t k = 0; k < sizeof live_pairs / sizeof live_pairs[0]; k++) {
    pb_t b;
    build_seed(&b, false);
    int32_t a = -1, c = -1;
    for (int32_t v = 0; v < b.nv; v++) {
      if (strcmp(b.v[v].name, live_pairs[k][0]) == 0) a = v;
      if (strcmp(b.v[v].name, live_pairs[k][1]) == 0) c = v;
    }
    CHECK(a >= 0 && c >= 0);
    b.v[a].offset = b.v[c].offset;
    berth_status_t st = verify(&b);
    CHECK_MSG(st == BERTH_ERR_VERIFY_FAILED, "moving %s onto %s: %s %s", live_pairs[k][0], live_pairs[k][1],
              berth_status_name(st), msg);
    rejected += st == BERTH_ERR_VERIFY_FAILED;
  }
  CHECK(rejected == (int)(sizeof live_pairs / sizeof live_pairs[0]));
}

/* ---- differential test against the sanitizer ---------------------------------------------- */

/* Runs the method once along the path chosen by `choices` (bit j: the j-th jump_if_false
 * executed falls through), calling the sanitizer hooks as the interpreter does. Returns the
 * first sanitizer failure, or BERTH_OK at return (or when the path runs out of choices). */
static berth_status_t walk(const pb_t *b, berth_sanitizer_t *s, uint32_t choices, int max_choices,
                           berth_diag_t *d) {
  const berth_exec_method_t *m = &b->m;
  int64_t regs[4] = {0, 0, 0, 0};
  int used = 0;
  berth_sanitizer_begin_call(s);
  for (int32_t pc = 0, steps = 0; steps < 400; steps++) {
    const berth_instr_t *in = &m->instrs[pc];
    const int32_t *ops = m->operands + in->operands;
    berth_status_t st = BERTH_OK;
    switch (in->opcode) {
      case BERTH_I_KERNEL:
        for (int32_t k = 0; k < in->n_in && !st; k++) st = berth_sanitizer_on_read(s, ops[k], pc, regs, d);
        for (int32_t k = 0; k < in->n_out + in->n_scratch && !st; k++) /* as interp.c: scratch is written */
          st = berth_sanitizer_on_write(s, ops[in->n_in + k], pc, regs, d);
        pc++;
        break;
      case BERTH_I_COPY:
        st = berth_sanitizer_on_read(s, ops[0], pc, regs, d);
        if (!st) st = berth_sanitizer_on_write(s, ops[1], pc, regs, d);
        pc++;
        break;
      case BERTH_I_RENAME: st = berth_sanitizer_on_rename(s, ops[0], ops[1], pc, regs, d); pc++; break;
      case BERTH_I_VIEW: st = berth_sanitizer_on_view(s, ops[0], ops[1], in->view_offset, pc, regs, d); pc++; break;
      case BERTH_I_JOIN: st = berth_sanitizer_on_join(s, ops, in->n_in, pc, regs, d); pc++; break;
      case BERTH_I_JUMP: pc = in->target; break;
      case BERTH_I_JUMP_IF_FALSE:
        st = berth_sanitizer_on_read(s, ops[0], pc, regs, d);
        if (used >= max_choices) return st;
        pc = (choices >> used++) & 1 ? pc + 1 : in->target;
        break;
      case BERTH_I_LOOP_INIT: regs[in->reg] = 0; pc++; break;
      case BERTH_I_LOOP_NEXT: pc = ++regs[in->reg] < in->count ? in->target : pc + 1; break;
      case BERTH_I_ASSERT: st = berth_sanitizer_on_read(s, ops[0], pc, regs, d); pc++; break;
      case BERTH_I_RETURN: return berth_sanitizer_on_return(s, pc, d);
    }
    if (st) return st;
  }
  return BERTH_OK;
}

/* Every path up to `max_choices` branch decisions, two calls in a row (state must survive). */
static bool sanitizer_finds(pb_t *b, int max_choices, char *why, size_t cap) {
  finish(b);
  size_t need = berth_sanitizer_size(&b->p, 0);
  void *mem = malloc(need);
  bool found = false;
  for (uint32_t ch = 0; ch < (1u << max_choices) && !found; ch++) {
    berth_sanitizer_t *s;
    berth_diag_t d = berth_diag_make(why, cap);
    if (berth_sanitizer_init(mem, need, &b->p, 0, &s, &d) != BERTH_OK) {
      found = true;
      break;
    }
    for (int call = 0; call < 2 && !found; call++) found = walk(b, s, ch, max_choices, &d) != BERTH_OK;
  }
  free(mem);
  return found;
}

/* a = neg(x) [scratch s1]; c = neg(a) [scratch s2]; out = a + c: each scratch may share
 * bytes only with values dead or unborn at its instruction (s1 with c, s2 with x) */
static void build_scratch(pb_t *b) {
  pb_init(b, 48);
  b->alloc_in = true;
  int32_t x = input(b, "x", F64, 0);
  int32_t out = output(b, "out", F64, 0);
  int32_t a = arena(b, "a", F64, 8), c = arena(b, "c", F64, 16);
  int32_t s1 = arena(b, "a.scratch", ty(BERTH_DTYPE_U8, 1, 8), 16);
  int32_t s2 = arena(b, "c.scratch", ty(BERTH_DTYPE_U8, 1, 16), 24);
  b->v[out].offset = 40;
  kern_s(b, BERTH_OP_NEG, x, a, s1);
  kern_s(b, BERTH_OP_NEG, a, c, s2);
  kern(b, BERTH_OP_ADD, a, c, out);
  ret(b);
}

typedef void (*builder_fn)(pb_t *b);
static void seed_ok(pb_t *b) { build_seed(b, false); }
static void while_ok(pb_t *b) { build_while(b, false); }
static void diamond_ok(pb_t *b) { build_diamond(b, true); }
static void straight_ok(pb_t *b) { build_straight(b); }
static void scratch_ok(pb_t *b) { build_scratch(b); }
static void views_ok(pb_t *b) { build_views(b, VIEWS_OK); }
static void joins_ok(pb_t *b) { build_joins(b, JOINS_OK); }
static void scan_arena(pb_t *b) {
  /* scan with its stacked output in the arena, next to the carried value */
  pb_init(b, 56);
  b->alloc_out = true;
  b->consts_size = 8;
  int32_t xs = input(b, "xs", ty(BERTH_DTYPE_F64, 1, 3), 0);
  int32_t ys = output(b, "ys", ty(BERTH_DTYPE_F64, 1, 3), 0);
  int32_t zero = cnst(b, "zero", F64S, 0);
  int32_t acc = arena(b, "acc", F64S, 24), s = arena(b, "s", F64S, 32), accn = arena(b, "acc_n", F64S, 24);
  int32_t t = arena(b, "t", F64S, 40);
  int32_t xk = window(b, "x_k", F64S, xs, 0, 0, 8);
  int32_t yk = window(b, "y_k", F64S, ys, 0, 0, 8);
  copy(b, zero, acc);
  linit(b, 0);
  int32_t body = kern(b, BERTH_OP_ADD, acc, xk, s);
  kern(b, BERTH_OP_NEG, s, -1, t);
  kern(b, BERTH_OP_NEG, t, -1, yk);
  kern(b, BERTH_OP_CLONE, s, -1, accn);
  ren(b, accn, acc);
  lnext(b, 0, 3, body);
  ret(b);
}

/* Is the value named at `name` (up to a space) a stacked value (the parent of a window)? */
static bool is_window_parent(const pb_t *b, const char *name) {
  size_t len = strcspn(name, " ");
  for (int32_t v = 0; v < b->nv; v++) {
    if (strlen(b->v[v].name) != len || strncmp(b->v[v].name, name, len) != 0) continue;
    for (int32_t w = 0; w < b->nv; w++)
      if (b->v[w].window_parent == v) return true;
  }
  return false;
}

/* For every single arena offset mutation of several correct plans: the verifier accepts iff
 * no path trips the sanitizer. Rejections that only the static rules make (kernel in/out
 * overlap, rename across storage) are not comparable and are counted apart. */
/* Kernel scratch (berth_instr_t.n_scratch): accepted when it lies on bytes dead at its
 * instruction; a scratch over a value still live (the seed bug's shape), over its own
 * instruction's operands, named by another operand, or not plain arena bytes is rejected
 * with a message, and the sanitizer finds the clobbered read too. */
static void test_scratch(void) {
  pb_t b;
  char why[512];
  build_scratch(&b);
  EXPECT_OK(&b);
  CHECK_MSG(!sanitizer_finds(&b, 0, why, sizeof why), "sanitizer: %s", why);
  /* c.scratch moved onto a, which the add still reads after the neg that owns the scratch */
  build_scratch(&b);
  b.v[5].offset = 8; /* c.scratch [8,24) over a [8,16), its own input */
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "read of %a (arena pool 0 [8,16)) at instruction 2 (kernel add) may see %c.scratch (arena pool 0 "
              "[8,24)) written at instruction 1");
  CHECK_MSG(sanitizer_finds(&b, 0, why, sizeof why) && strstr(why, "were last written by %c.scratch"), "sanitizer: %s",
            why);
  /* a scratch over its own input that nobody reads later still breaks the kernel */
  build_scratch(&b);
  b.ins[2].opcode = BERTH_I_COPY; /* out = copy c: a is dead after instruction 1 */
  b.ins[2].op = 0;
  b.ops[b.ins[2].operands] = 3;
  b.ops[b.ins[2].operands + 1] = 1;
  b.v[5].offset = 8;
  b.v[5].type.dims[0] = 8; /* [8,16): a only */
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED,
              "instruction 1 (kernel neg): scratch %c.scratch (arena pool 0 [8,16)) overlaps input %a (arena pool 0 "
              "[8,16)); kernels need disjoint inputs, outputs and scratch");
  /* nobody else may name a scratch value */
  build_scratch(&b);
  b.ops[b.ins[1].operands + 2] = 4; /* both kernels get a.scratch */
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "scratch %a.scratch is named by 2 operands or windows");
  build_scratch(&b);
  b.v[4].type = F64; /* an f64 that the add reads: not plain bytes */
  b.ops[b.ins[2].operands] = 4;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 0 (kernel neg): scratch %a.scratch is not plain arena bytes");
  /* structure: a scratch in state memory, two scratches, scratch on a return */
  build_scratch(&b);
  b.v[4].storage = BERTH_STORAGE_STATE;
  b.state_size = 64;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 0 (kernel neg): scratch %a.scratch is not plain arena bytes");
  build_scratch(&b);
  b.ins[0].n_scratch = 2;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 0 (kernel): 2 scratch values; a kernel has 0 or 1");
  build_scratch(&b);
  b.ins[3].n_scratch = 1;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 3 (return): 1 scratch values");
}

static void test_differential(void) {
  static const builder_fn builders[] = {seed_ok,    while_ok, diamond_ok, straight_ok,
                                        scan_arena, scratch_ok, views_ok, joins_ok};
  int agree = 0, static_only = 0, accepted = 0, rejected = 0, conservative = 0;
  for (size_t bi = 0; bi < sizeof builders / sizeof builders[0]; bi++) {
    pb_t base;
    builders[bi](&base);
    /* group 0: move one value; group 1: move every value at its offset (a coalesced group) */
    for (int group = 0; group < 2; group++) {
      for (int32_t v = 0; v < base.nv; v++) {
        if (base.v[v].storage != BERTH_STORAGE_ARENA || base.v[v].window_parent >= 0) continue;
        uint64_t bytes = berth_type_bytes(&base.v[v].type), from = base.v[v].offset;
        for (uint64_t off = 0; off + bytes <= base.pools[0]; off += 8) {
          if (off == from) continue;
          pb_t b = base;
          for (int32_t w = 0; w < base.nv; w++)
            if (w == v || (group && base.v[w].storage == BERTH_STORAGE_ARENA &&
                           base.v[w].window_parent < 0 && base.v[w].offset == from))
              b.v[w].offset = off;
          berth_status_t st = verify(&b);
          char why[512];
          bool san = sanitizer_finds(&b, 6, why, sizeof why);
          if (st == BERTH_OK) {
            accepted++;
            CHECK_MSG(!san, "builder %d: %s at %llu: verifier accepts, sanitizer: %s", (int)bi, b.v[v].name,
                      (unsigned long long)off, why);
            agree += !san;
          } else if (st == BERTH_ERR_VERIFY_FAILED && strstr(msg, ": read of ")) {
            /* Known imprecision: the verifier takes a write over any byte of a stacked value
             * after its loop began as fatal, though it may hit a slice written later. */
            bool stacked = is_window_parent(&b, strstr(msg, ": read of %") + 11);
            CHECK_MSG(san || stacked, "builder %d: %s at %llu: verifier rejects (%s), sanitizer finds nothing",
                      (int)bi, b.v[v].name, (unsigned long long)off, msg);
            agree += san;
            rejected += san;
            conservative += !san && stacked;
          } else {
            /* fits fail only where the group runs off the pool */
            CHECK_MSG(st == BERTH_ERR_VERIFY_FAILED || st == BERTH_ERR_CORRUPT_DATA, "builder %d: %s at %llu: %s %s",
                      (int)bi, b.v[v].name, (unsigned long long)off, berth_status_name(st), msg);
            static_only++;
            if (getenv("BERTH_TEST_VERBOSE")) fprintf(stderr, "  other: %s\n", msg);
          }
        }
      }
    }
  }
  fprintf(stderr,
          "differential: %d agree (%d accepted, %d rejected by the dataflow), %d conservative, %d other "
          "rejections\n", agree, accepted, rejected, conservative, static_only);
  CHECK(accepted > 20 && rejected > 20 && conservative < 5);
}

/* ---- randomized hostile input --------------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void) {
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return rng_state = x;
}
static int64_t pick(const int64_t *v, int n) { return v[rnd() % (uint64_t)n]; }

/* One random change of one field. */
static void mutate(pb_t *b) {
  static const int64_t small[] = {-1, 0, 1, 2, 3, 4, 5, 7, 8, 16, 24, 32, 40, 63, 64, 1000, INT32_MAX, -8};
  static const int64_t offs[] = {0, 1, 4, 8, 16, 24, 32, 40, 48, 56, 64, 4096};
  int ns = (int)(sizeof small / sizeof small[0]), no = (int)(sizeof offs / sizeof offs[0]);
  int32_t v = b->nv ? (int32_t)(rnd() % (uint64_t)b->nv) : 0;
  int32_t i = b->n ? (int32_t)(rnd() % (uint64_t)b->n) : 0;
  berth_exec_value_t *x = &b->v[v];
  berth_instr_t *in = &b->ins[i];
  /* every random number is drawn in its own statement: the order is then fixed */
  uint64_t r1 = rnd(), r2 = rnd();
  int64_t ps = pick(small, ns);
  switch (rnd() % 24) {
    case 0: case 1: case 2: x->offset = (uint64_t)pick(offs, no); break;
    case 3: x->offset = rnd(); break;
    case 4: x->storage = (uint8_t)(rnd() % 6); break;
    case 5: x->pool = (uint32_t)(rnd() % 3); break;
    case 6: x->index = (uint32_t)(rnd() % 3); break;
    case 7: x->type.dims[r1 % 2] = ps; break;
    case 8: x->type.dtype = (berth_dtype_t)(rnd() % (BERTH_DTYPE_COUNT + 1)); break;
    case 9: x->type.rank = (int32_t)(rnd() % 3); break;
    case 10: x->window_parent = (int32_t)pick(small, 6); break;
    case 11: x->window_reg = (int32_t)(rnd() % 3) - 1; break;
    case 12: x->window_stride = ps * (r1 % 2 ? 1 : -1); break;
    case 13: in->opcode = (uint8_t)(rnd() % (BERTH_I_COUNT + 1)); break;
    case 14: in->op = (uint16_t)(rnd() % (BERTH_OP_COUNT + 2)); break;
    case 15: in->n_in = (uint16_t)(rnd() % 4); break;
    case 16: in->target = (int32_t)(rnd() % (uint64_t)(b->n + 2)) - 1; break;
    case 17: in->count = pick(small, ns); break;
    case 18: in->reg = (int32_t)(rnd() % 3) - 1; break;
    case 19: in->attrs = (uint32_t)(rnd() % 5); break;
    case 20: if (b->nops) b->ops[r1 % (uint64_t)b->nops] = (int32_t)(r2 % (uint64_t)(b->nv + 1)); break;
    case 21: b->pools[0] = (uint64_t)pick(offs, no); break;
    case 22: {
      berth_attr_value_t *a = &b->attrs[r1 % 4];
      a->i = ps;
      a->n = (int32_t)(r2 % 10);
      a->ints[(r1 >> 8) % BERTH_MAX_ATTR_INTS] = pick(small, ns);
      break;
    }
    default: b->n_regs = (int32_t)(rnd() % 3); break;
  }
}

static uint8_t *alloc_bytes(uint64_t n) {
  uint8_t *p = malloc(n ? n : 1);
  for (uint64_t k = 0; k < n; k++) p[k] = (uint8_t)rnd();
  return p;
}

/* Runs an accepted program twice with the real interpreter and the sanitizer, in buffers of
 * exactly the planned sizes (ASan catches any byte outside them). */
static void run_accepted(pb_t *b, uint64_t seed) {
  const berth_exec_method_t *m = &b->m;
  for (int32_t k = 0; k < m->n_pools; k++)
    if (m->pool_sizes[k] > (1u << 20)) return;
  if (m->state_size > (1u << 20)) return;
  for (int32_t k = 0; k < m->n_inputs; k++)
    if (berth_type_bytes(&m->values[m->inputs[k]].type) > (1u << 20)) return;
  for (int32_t k = 0; k < m->n_outputs; k++)
    if (berth_type_bytes(&m->values[m->outputs[k]].type) > (1u << 20)) return;
  uint8_t *pools[2] = {NULL, NULL};
  void *ins[8] = {NULL}, *outs[8] = {NULL};
  for (int32_t k = 0; k < m->n_pools; k++) pools[k] = alloc_bytes(m->pool_sizes[k]);
  uint8_t *st = alloc_bytes(m->state_size);
  if (m->state_size) memcpy(st, m->state_init, m->state_size);
  for (int32_t k = 0; k < m->n_inputs; k++) ins[k] = alloc_bytes(berth_type_bytes(&m->values[m->inputs[k]].type));
  for (int32_t k = 0; k < m->n_outputs; k++) outs[k] = alloc_bytes(berth_type_bytes(&m->values[m->outputs[k]].type));
  int64_t regs[4] = {0, 0, 0, 0};
  size_t need = berth_sanitizer_size(&b->p, 0);
  void *smem = malloc(need);
  berth_sanitizer_t *san = NULL;
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  CHECK(berth_sanitizer_init(smem, need, &b->p, 0, &san, &d) == BERTH_OK);
  bool windows = false;
  for (int32_t v = 0; v < m->n_values; v++) windows |= m->values[v].window_parent >= 0;
  berth_exec_memory_t mem = {pools, st, (const void *const *)ins, outs, regs, NULL, NULL, NULL};
  for (int call = 0; call < 2 && san; call++) {
    berth_status_t rs = berth_exec_run(&b->p, 0, &mem, san, 2000, &d);
    bool fine = rs == BERTH_OK || rs == BERTH_ERR_OUT_OF_RANGE || rs == BERTH_ERR_CHECK_FAILED ||
                (rs == BERTH_ERR_VERIFY_FAILED && windows && strstr(msg, "were not written by any value"));
    CHECK_MSG(fine, "seed %llu: accepted program fails at run time: %s %s", (unsigned long long)seed,
              berth_status_name(rs), msg);
    if (rs != BERTH_OK) break;
  }
  free(smem);
  for (int32_t k = 0; k < m->n_pools; k++) free(pools[k]);
  free(st);
  for (int32_t k = 0; k < m->n_inputs; k++) free(ins[k]);
  for (int32_t k = 0; k < m->n_outputs; k++) free(outs[k]);
}

static void test_random_mutations(void) {
  static const builder_fn builders[] = {seed_ok,    while_ok, diamond_ok, straight_ok,
                                        scan_arena, scratch_ok, views_ok, joins_ok};
  uint64_t seed0 = 0x5eed;
  const char *env = getenv("BERTH_TEST_SEED");
  if (env) seed0 = strtoull(env, NULL, 0);
  int accepted = 0, n = 20000;
  for (int it = 0; it < n; it++) {
    uint64_t seed = seed0 * 1000003u + (uint64_t)it + 1;
    rng_state = seed;
    pb_t b;
    builders[rnd() % (sizeof builders / sizeof builders[0])](&b);
    b.nattrs = 4;
    int muts = 1 + (int)(rnd() % 3);
    for (int k = 0; k < muts; k++) mutate(&b);
    berth_status_t st = verify(&b);
    CHECK_MSG(st == BERTH_OK || st == BERTH_ERR_CORRUPT_DATA || st == BERTH_ERR_VERIFY_FAILED ||
                  st == BERTH_ERR_RESOURCE_EXHAUSTED,
              "seed %llu: %s %s", (unsigned long long)seed, berth_status_name(st), msg);
    CHECK_MSG(st == BERTH_OK || strncmp(msg, "method forward: ", 16) == 0, "seed %llu: %s",
              (unsigned long long)seed, msg);
    if (getenv("BERTH_TEST_TRACE")) fprintf(stderr, "it %d: %d %s\n", it, (int)st, msg);
    if (st == BERTH_OK) {
      accepted++;
      run_accepted(&b, seed);
    }
  }
  fprintf(stderr, "random mutations: %d of %d accepted and run (seed 0x%llx)\n", accepted, n,
          (unsigned long long)seed0);
}

/* The memory rule with joins: a join reads its parts in their slots and defines its output
 * without ending them; a write between a part's production and the join, or over the output
 * after it, is caught; a part out of its slot, a gap, another definition of the output are
 * rejected outright. The sanitizer agrees. */
static void test_joins(void) {
  pb_t b;
  char why[512];
  build_joins(&b, JOINS_OK);
  EXPECT_OK(&b);
  CHECK_MSG(!sanitizer_finds(&b, 0, why, sizeof why), "joins: the sanitizer rejects the good program: %s", why);
  build_joins(&b, JOINS_CLOBBER_PART);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %p1 (arena pool 0 [8,16)) at instruction 3 (join) may see %z");
  CHECK_MSG(sanitizer_finds(&b, 0, why, sizeof why), "joins: the sanitizer misses a clobbered part");
  CHECK_MSG(strstr(why, "read of %p1 at instruction 3 (join)") != NULL, "%s", why);
  build_joins(&b, JOINS_CLOBBER_OUT);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %j (arena pool 0 [0,16)) at instruction 4 (kernel neg) may see %z");
  CHECK_MSG(sanitizer_finds(&b, 0, why, sizeof why), "joins: the sanitizer misses a clobbered output");
  /* a part moved out of its slot, to free bytes or to the other slot (the parts swapped) */
  build_joins(&b, JOINS_OK);
  b.v[vid(&b, "p1")].offset = 16;
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "instruction 2 (join): part 1 %p1 (arena pool 0 [16,24)) is not at byte 8 "
                                           "of %j (arena pool 0 [0,16)), its slot");
  CHECK_MSG(sanitizer_finds(&b, 0, why, sizeof why), "joins: the sanitizer misses a part out of its slot");
  CHECK_MSG(strstr(why, "instruction 2 (join): part 1 %p1 is not the bytes of %j from byte 8 on") != NULL, "%s", why);
  build_joins(&b, JOINS_OK);
  b.ops[b.ins[2].operands] = vid(&b, "p1");
  b.ops[b.ins[2].operands + 1] = vid(&b, "p0");
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "instruction 2 (join): part 0 %p1 (arena pool 0 [8,16)) is not at byte 0");
  build_joins(&b, JOINS_OK);
  b.ops[b.ins[2].operands + 1] = vid(&b, "p0"); /* one part twice */
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "part 1 %p0 (arena pool 0 [0,8)) is not at byte 8");
  /* structure: the parts do not fill the output, another dtype, the output also written by a
   * kernel or defined by a view, no parts, a part in another storage class */
  build_joins(&b, JOINS_OK);
  b.v[vid(&b, "j")].type.dims[0] = 3;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 2 (join): the parts have 16 bytes but %j has 24");
  build_joins(&b, JOINS_OK);
  b.ops[b.ins[2].operands + 1] = vid(&b, "j"); /* the output among its parts */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 2 (join): %j -> %j; a join's parts and output are distinct "
                                          "arena values of one dtype");
  build_joins(&b, JOINS_OK);
  b.ops[b.ins[3].operands + 1] = vid(&b, "j"); /* neg j -> j instead of out */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 3 (kernel neg) writes %j, which instruction 2 makes a join");
  build_joins(&b, JOINS_OK);
  b.ins[0].opcode = BERTH_I_VIEW; /* view x -> p0 at 0: not a kernel; now a view defines p0 */
  b.ins[0].n_in = b.ins[0].n_out = 1;
  b.ins[0].op = 0;
  b.ops[b.ins[0].operands] = vid(&b, "p1");
  b.ops[b.ins[0].operands + 1] = vid(&b, "j");
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "");
  /* a join takes its output's bytes over: a value overlapping them that is not a part ends
   * there (found by the random mutations: hh = view h turned into hh = join(h) while w, a
   * view of all of a, is read later; the sanitizer retags hh's bytes) */
  build_views(&b, VIEWS_OK);
  b.ins[3].opcode = BERTH_I_JOIN;
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %w (arena pool 0 [0,16)) at instruction 5 (kernel neg) may see %hh");
  CHECK_MSG(sanitizer_finds(&b, 0, why, sizeof why), "joins: the sanitizer accepts a read over a join's output");
  build_joins(&b, JOINS_OK);
  b.ins[2].n_in = 0;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 2 (join): 0 parts and 1 outputs");
  build_joins(&b, JOINS_OK);
  b.v[vid(&b, "p0")].storage = BERTH_STORAGE_STATE;
  b.state_size = 8;
  b.v[vid(&b, "p0")].offset = 0;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "");
}

/* The memory rule with views: a view is a definition that does not end its source's; a real
 * write over the bytes ends both. */
static void test_views(void) {
  pb_t b;
  build_views(&b, VIEWS_OK);
  EXPECT_OK(&b);
  build_views(&b, VIEWS_CLOBBER_SOURCE);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %h (arena pool 0 [8,16)) at instruction 5 (kernel add) may see %z");
  b.ins[5] = b.ins[4]; /* without the reads of the views: the read of the source a is caught */
  b.ins[5].opcode = BERTH_I_JUMP;
  b.ins[5].target = 6;
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %a (arena pool 0 [0,16)) at instruction 6 (kernel neg) may see %z");
  build_views(&b, VIEWS_OUTLIVE);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %w (arena pool 0 [0,16)) at instruction 6 (kernel neg) may see %z");
  build_views(&b, VIEWS_REWRITE_SOURCE);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %h (arena pool 0 [8,16)) at instruction 5 (kernel add) may see %a");
  build_views(&b, VIEWS_RENAME_OVER);
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "read of %h (arena pool 0 [8,16)) at instruction 7 (kernel add) may see %a");
  /* each of them trips the sanitizer too, on every path */
  for (int variant = VIEWS_CLOBBER_SOURCE; variant <= VIEWS_RENAME_OVER; variant++) {
    char why[512];
    build_views(&b, variant);
    CHECK_MSG(sanitizer_finds(&b, 0, why, sizeof why), "views variant %d: the sanitizer finds nothing", variant);
    if (variant == VIEWS_REWRITE_SOURCE) /* the bytes carry a's tag, but not the a the views name */
      CHECK_MSG(strstr(why, "read of %h at instruction 5 (kernel add): it is a view of %a, which was written again (at "
                            "instruction 4)") != NULL, "%s", why);
  }
  build_views(&b, VIEWS_OK);
  {
    char why[512];
    CHECK_MSG(!sanitizer_finds(&b, 0, why, sizeof why), "views: the sanitizer rejects the good program: %s", why);
  }
  /* structure: a view outside its source, a windowed view, a view of another dtype, a view
   * that a kernel also writes (a view is defined by views only), a view of a constant written */
  build_views(&b, VIEWS_OK);
  b.v[vid(&b, "h")].offset = 16;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 2 (view): %h (arena pool 0 [16,24)) does not lie inside its source %a");
  build_views(&b, VIEWS_OK);
  b.v[vid(&b, "w")].type.dtype = BERTH_DTYPE_I64;
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (view): %a -> %w; a view's source and destination are two values of one dtype");
  build_views(&b, VIEWS_OK);
  b.ops[b.ins[3].operands + 1] = vid(&b, "w"); /* hh = view h becomes w = view h: w is bigger */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "does not lie inside its source %h");
  /* where inside: a view's bytes must start exactly its offset into its source's, so a source
   * that a planner bug moved while it still covers the view is caught (the verifier and the
   * sanitizer each) */
  build_views(&b, VIEWS_OK);
  b.ins[2].view_offset = 0; /* h is a's second element, the view says its first */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 2 (view): %h (arena pool 0 [8,16)) starts 8 bytes into its "
                                          "source %a (arena pool 0 [0,16)); the view says 0");
  {
    char why[512];
    CHECK_MSG(sanitizer_finds(&b, 0, why, sizeof why), "views: the sanitizer misses a wrong view offset");
    CHECK_MSG(strstr(why, "instruction 2 (view): %h is not the bytes of %a from byte 0 on") != NULL, "%s", why);
  }
  build_views(&b, VIEWS_OK);
  b.ins[1].view_offset = 8; /* w (all 16 bytes of a) said to start at a's byte 8: past a's end */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (view): byte offset 8 with 16 bytes of %w runs past the 16 "
                                          "bytes of its source %a");
  build_views(&b, VIEWS_OK);
  b.ins[3].view_offset = UINT64_MAX - 3; /* no wrap-around in the bound */
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 3 (view): byte offset");
  pb_init(&b, 16);
  b.consts_size = 16;
  {
    int32_t x = input(&b, "x", F64, 0), out = output(&b, "out", F64, 0);
    int32_t c = cnst(&b, "c", F64, 8), cv = cnst(&b, "cv", F64, 8);
    view(&b, c, cv, 0);
    kern(&b, BERTH_OP_NEG, x, -1, cv);
    kern(&b, BERTH_OP_ADD, cv, c, out);
    ret(&b);
  }
  EXPECT_FAIL(&b, BERTH_ERR_CORRUPT_DATA, "instruction 1 (kernel neg) writes %cv, which instruction 0 makes a view");
  b.ins[0].opcode = BERTH_I_COPY; /* without the view: a write into a constant */
  EXPECT_FAIL(&b, BERTH_ERR_VERIFY_FAILED, "writes %cv into constant bytes");
}

int main(void) {
  test_accepted();
  test_views();
  test_joins();
  test_seed_bug();
  test_overlapping_temporaries();
  test_illegal_coalescing();
  test_output_clobbered();
  test_state();
  test_write_to_constant();
  test_uninitialized();
  test_assert();
  test_kernel_overlap();
  test_scratch();
  test_structural();
  test_loops();
  test_api();
  test_mutations();
  test_differential();
  test_random_mutations();
  return test_finish("test_verify");
}
