/* Tests of the sanitizer's shadow memory (src/runtime/sanitizer.c): the hooks driven by hand
 * on small exec programs, with the messages checked, and the seed reproducer run by the
 * planned interpreter with and without the sanitizer. */
#include "exec_builder.h"
#include "runtime/interp.h"
#include "runtime/sanitizer.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char msg[1024];
static void *san_mem;

/* A sanitizer for b's method in freshly allocated (deliberately misaligned) memory. */
static berth_sanitizer_t *make(pb_t *b) {
  finish(b);
  size_t need = berth_sanitizer_size(&b->p, 0);
  free(san_mem);
  san_mem = malloc(need + 3);
  berth_sanitizer_t *s = NULL;
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_status_t st = berth_sanitizer_init((char *)san_mem + 3, need, &b->p, 0, &s, &d);
  CHECK_MSG(st == BERTH_OK, "%s", msg);
  if (s) berth_sanitizer_begin_call(s);
  return s;
}

static berth_diag_t diag_;
static berth_diag_t *dg(void) {
  diag_ = berth_diag_make(msg, sizeof msg);
  return &diag_;
}

#define EXPECT_OK(expr)                                                               \
  do {                                                                                \
    berth_status_t st_ = (expr);                                                      \
    CHECK_MSG(st_ == BERTH_OK, "expected ok, got %s: %s", berth_status_name(st_), msg); \
  } while (0)
#define EXPECT_FAIL(expr, status, needle)                                                \
  do {                                                                                   \
    berth_status_t st_ = (expr);                                                         \
    CHECK_MSG(st_ == (status), "expected %s, got %s: %s", berth_status_name(status),     \
              berth_status_name(st_), msg);                                              \
    CHECK_MSG(strstr(msg, needle) != NULL, "message lacks \"%s\": %s", needle, msg);     \
  } while (0)

/* ---- tests ------------------------------------------------------------------------------- */

static void test_overwrite(void) {
  pb_t b;
  pb_init(&b, 16);
  int32_t x = input(&b, "x", F64, 0);
  int32_t out = output(&b, "out", F64, 0);
  int32_t a = arena(&b, "a", F64, 0), c = arena(&b, "c", F64, 0), s = arena(&b, "s", F64, 8);
  kern(&b, BERTH_OP_NEG, x, -1, a);
  kern(&b, BERTH_OP_ABS, x, -1, c);
  kern(&b, BERTH_OP_ADD, a, c, s);
  copy(&b, s, out);
  ret(&b);
  berth_sanitizer_t *san = make(&b);
  EXPECT_OK(berth_sanitizer_on_read(san, x, 0, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_write(san, a, 0, NULL, dg()));
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_ARENA, 0, 0) == a);
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_ARENA, 0, 8) == BERTH_SANITIZER_UNWRITTEN);
  EXPECT_OK(berth_sanitizer_on_read(san, a, 1, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_write(san, c, 1, NULL, dg()));
  EXPECT_FAIL(berth_sanitizer_on_read(san, a, 2, NULL, dg()), BERTH_ERR_VERIFY_FAILED,
              "read of %a at instruction 2 (kernel add): bytes [0,8) of arena pool 0 were last written by "
              "%c (at instruction 1)");
  /* unwritten bytes */
  EXPECT_FAIL(berth_sanitizer_on_read(san, s, 3, NULL, dg()), BERTH_ERR_VERIFY_FAILED,
              "read of %s at instruction 3 (copy): bytes [8,16) of arena pool 0 were not written by any "
              "value in this call");
  /* the output was never written: return says so */
  EXPECT_FAIL(berth_sanitizer_on_return(san, 4, dg()), BERTH_ERR_VERIFY_FAILED,
              "read of %out at instruction 4 (return): bytes [0,8) of output buffer 0 were not written");
  EXPECT_OK(berth_sanitizer_on_write(san, out, 3, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_return(san, 4, dg()));
  /* a new call: the arena and the outputs start unwritten again */
  berth_sanitizer_begin_call(san);
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_ARENA, 0, 0) == BERTH_SANITIZER_UNWRITTEN);
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_OUTPUT, 0, 0) == BERTH_SANITIZER_UNWRITTEN);
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_INPUT, 0, 7) == x);
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_INPUT, 0, 8) == BERTH_SANITIZER_UNWRITTEN);
  CHECK(berth_sanitizer_owner(san, 9, 0, 0) == BERTH_SANITIZER_UNWRITTEN);

  /* a partial overwrite names only the overwritten bytes */
  pb_init(&b, 16);
  x = input(&b, "x", ty(BERTH_DTYPE_F32, 1, 2), 0);
  a = arena(&b, "a", ty(BERTH_DTYPE_F32, 1, 2), 0);
  c = arena(&b, "c", ty(BERTH_DTYPE_F32, 1, 2), 4);
  kern(&b, BERTH_OP_NEG, x, -1, a);
  kern(&b, BERTH_OP_NEG, x, -1, c);
  kern(&b, BERTH_OP_NEG, a, -1, c);
  ret(&b);
  san = make(&b);
  EXPECT_OK(berth_sanitizer_on_write(san, a, 0, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_write(san, c, 1, NULL, dg()));
  EXPECT_FAIL(berth_sanitizer_on_read(san, a, 2, NULL, dg()), BERTH_ERR_VERIFY_FAILED,
              "bytes [4,8) of arena pool 0 were last written by %c (at instruction 1)");
}

static void test_rename_and_readonly(void) {
  pb_t b;
  pb_init(&b, 8);
  b.consts_size = 8;
  int32_t x = input(&b, "x", F64, 0);
  int32_t k = val(&b, "k", F64, BERTH_STORAGE_CONST, 0);
  int32_t t = arena(&b, "t", F64, 0), r = arena(&b, "r", F64, 0);
  kern(&b, BERTH_OP_ADD, x, k, t);
  ren(&b, t, r);
  ret(&b);
  berth_sanitizer_t *san = make(&b);
  EXPECT_OK(berth_sanitizer_on_read(san, k, 0, NULL, dg())); /* constants are always intact */
  EXPECT_OK(berth_sanitizer_on_write(san, t, 0, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_rename(san, t, r, 1, NULL, dg()));
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_ARENA, 0, 3) == r);
  EXPECT_OK(berth_sanitizer_on_read(san, r, 2, NULL, dg()));
  EXPECT_FAIL(berth_sanitizer_on_read(san, t, 2, NULL, dg()), BERTH_ERR_VERIFY_FAILED,
              "read of %t at instruction 2 (return): bytes [0,8) of arena pool 0 were last written by %r (at "
              "instruction 1)");
  /* a rename of a value that is not intact fails like a read */
  EXPECT_FAIL(berth_sanitizer_on_rename(san, t, r, 1, NULL, dg()), BERTH_ERR_VERIFY_FAILED, "read of %t");
  EXPECT_FAIL(berth_sanitizer_on_write(san, k, 0, NULL, dg()), BERTH_ERR_VERIFY_FAILED,
              "write of %k at instruction 0 (kernel add) into a constant");
  EXPECT_FAIL(berth_sanitizer_on_write(san, x, 0, NULL, dg()), BERTH_ERR_VERIFY_FAILED,
              "into the caller's input buffer");
  EXPECT_FAIL(berth_sanitizer_on_read(san, 99, 0, NULL, dg()), BERTH_ERR_INTERNAL, "value id 99 out of range");
}

static void test_windows(void) {
  pb_t b;
  pb_init(&b, 32);
  b.alloc_out = true;
  int32_t xs = input(&b, "xs", ty(BERTH_DTYPE_F64, 1, 3), 0);
  int32_t ys = output(&b, "ys", ty(BERTH_DTYPE_F64, 1, 3), 0);
  int32_t xk = window(&b, "x_k", F64S, xs, 0, 16, -8); /* reversed */
  int32_t yk = window(&b, "y_k", F64S, ys, 0, 0, 8);
  int32_t t = arena(&b, "t", F64S, 8);
  ret(&b);
  berth_sanitizer_t *san = make(&b);
  int64_t regs[1] = {0};
  for (regs[0] = 0; regs[0] < 3; regs[0]++) {
    EXPECT_OK(berth_sanitizer_on_read(san, xk, 0, regs, dg()));
    EXPECT_OK(berth_sanitizer_on_write(san, yk, 0, regs, dg()));
    /* only the current slice is tagged, with the parent's identity */
    CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_ARENA, 0, (uint64_t)regs[0] * 8) == ys);
    CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_ARENA, 0, (uint64_t)regs[0] * 8 + 8) == BERTH_SANITIZER_UNWRITTEN);
    if (regs[0] == 0) {
      /* the whole stacked value is not complete yet */
      EXPECT_FAIL(berth_sanitizer_on_read(san, ys, 0, NULL, dg()), BERTH_ERR_VERIFY_FAILED,
                  "read of %ys at instruction 0 (return): bytes [8,24) of arena pool 0 were not written");
    }
  }
  EXPECT_OK(berth_sanitizer_on_read(san, ys, 0, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_return(san, 0, dg()));
  /* a temporary over slice 1: reading slice 1 or the whole fails, slice 0 is fine */
  EXPECT_OK(berth_sanitizer_on_write(san, t, 0, regs, dg()));
  regs[0] = 0;
  EXPECT_OK(berth_sanitizer_on_read(san, yk, 0, regs, dg()));
  regs[0] = 1;
  EXPECT_FAIL(berth_sanitizer_on_read(san, yk, 0, regs, dg()), BERTH_ERR_VERIFY_FAILED,
              "read of %y_k at instruction 0 (return): bytes [8,16) of arena pool 0 were last written by %t");
  EXPECT_FAIL(berth_sanitizer_on_return(san, 0, dg()), BERTH_ERR_VERIFY_FAILED, "read of %ys");
  /* a register outside the parent never touches memory outside the shadow */
  regs[0] = 3;
  EXPECT_FAIL(berth_sanitizer_on_write(san, yk, 0, regs, dg()), BERTH_ERR_INTERNAL, "lies outside its parent");
  regs[0] = -1;
  EXPECT_FAIL(berth_sanitizer_on_read(san, yk, 0, regs, dg()), BERTH_ERR_INTERNAL, "lies outside its parent");
  regs[0] = INT64_MAX;
  EXPECT_FAIL(berth_sanitizer_on_read(san, xk, 0, regs, dg()), BERTH_ERR_INTERNAL, "lies outside its parent");
  EXPECT_FAIL(berth_sanitizer_on_read(san, xk, 0, NULL, dg()), BERTH_ERR_INTERNAL, "bad window");
}

static void test_state(void) {
  pb_t b;
  pb_init(&b, 8);
  b.state_size = 24;
  int32_t x = input(&b, "x", F64, 0);
  int32_t st = val(&b, "state", F64, BERTH_STORAGE_STATE, 0);
  int32_t tmp = val(&b, "tmp", F64, BERTH_STORAGE_STATE, 8); /* before state2: its tags win */
  int32_t st2 = val(&b, "state2", F64, BERTH_STORAGE_STATE, 8);
  int32_t t = arena(&b, "t", F64, 0);
  kern(&b, BERTH_OP_ADD, x, st, t);
  copy(&b, t, st);
  ret(&b);
  berth_sanitizer_t *san = make(&b);
  /* the initial contents belong to the state values; bytes of no state value to nobody */
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_STATE, 0, 0) == st);
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_STATE, 0, 8) == st2);
  CHECK(berth_sanitizer_owner(san, BERTH_STORAGE_STATE, 0, 16) == BERTH_SANITIZER_UNWRITTEN);
  EXPECT_OK(berth_sanitizer_on_read(san, st, 0, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_write(san, t, 0, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_read(san, t, 1, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_write(san, st, 1, NULL, dg()));
  EXPECT_OK(berth_sanitizer_on_read(san, st, 2, NULL, dg()));
  /* a temporary in the state region (the verifier rejects such plans): state2 does not survive */
  EXPECT_OK(berth_sanitizer_on_write(san, tmp, 1, NULL, dg()));
  EXPECT_FAIL(berth_sanitizer_on_return(san, 2, dg()), BERTH_ERR_VERIFY_FAILED,
              "state does not survive to the next call: read of %state2 at instruction 2 (return): bytes "
              "[8,16) of the state region were last written by %tmp (at instruction 1)");
  /* the state tags survive into the next call, the arena's do not */
  berth_sanitizer_begin_call(san);
  EXPECT_OK(berth_sanitizer_on_read(san, st, 0, NULL, dg()));
  EXPECT_FAIL(berth_sanitizer_on_read(san, st2, 0, NULL, dg()), BERTH_ERR_VERIFY_FAILED,
              "read of %state2 at instruction 0 (kernel add): bytes [8,16) of the state region were last "
              "written by %tmp (before this call)");
  EXPECT_FAIL(berth_sanitizer_on_read(san, t, 1, NULL, dg()), BERTH_ERR_VERIFY_FAILED, "not written by any value in this call");
}

static void test_api(void) {
  pb_t b;
  pb_init(&b, 16);
  b.alloc_in = true;
  int32_t x = input(&b, "x", F64, 8);
  ret(&b);
  finish(&b);
  size_t need = berth_sanitizer_size(&b.p, 0);
  /* header + 2 regions of tables + 1 value + 16 shadowed bytes * 4 */
  CHECK(need >= 16 * 4 && need < 16 * 4 + 256);
  CHECK(berth_sanitizer_size(&b.p, 1) == 0);
  CHECK(berth_sanitizer_size(NULL, 0) == 0);
  char *mem = malloc(need);
  berth_sanitizer_t *s = NULL;
  EXPECT_FAIL(berth_sanitizer_init(mem, need - 1, &b.p, 0, &s, dg()), BERTH_ERR_RESOURCE_EXHAUSTED, "too small");
  CHECK(s == NULL);
  EXPECT_FAIL(berth_sanitizer_init(mem, need, &b.p, 3, &s, dg()), BERTH_ERR_INVALID_ARGUMENT, "sanitizer");
  EXPECT_OK(berth_sanitizer_init(mem, need, &b.p, 0, &s, dg()));
  berth_sanitizer_begin_call(s);
  /* an input planned in the arena is tagged at the start of the call */
  CHECK(berth_sanitizer_owner(s, BERTH_STORAGE_ARENA, 0, 8) == x);
  CHECK(berth_sanitizer_owner(s, BERTH_STORAGE_ARENA, 0, 7) == BERTH_SANITIZER_UNWRITTEN);
  CHECK(berth_sanitizer_owner(s, BERTH_STORAGE_ARENA, 0, 16) == BERTH_SANITIZER_UNWRITTEN);
  CHECK(berth_sanitizer_owner(s, BERTH_STORAGE_ARENA, 5, 0) == BERTH_SANITIZER_UNWRITTEN);
  free(mem);

  /* sizes that overflow are refused */
  uint64_t huge[2] = {UINT64_MAX / 2, UINT64_MAX / 2};
  b.pools[0] = huge[0];
  b.np = 2;
  b.pools[1] = huge[1];
  finish(&b);
  CHECK(berth_sanitizer_size(&b.p, 0) == SIZE_MAX);
}

/* The seed reproducer as ExecuTorch plans it (every branch value from offset 0 of one shared
 * region): the nested cond's add_1 lands on result1. Run by the planned interpreter,
 * forward(6.0) returns (7, 7) instead of (6, 7); with the sanitizer the run stops at the
 * read of result1 and names add_1. */
static void build_seed(pb_t *b, bool regions, int32_t *read_result1, int32_t *write_add_1) {
  pb_init(b, 40);
  b->consts_size = 8;
  b->state_size = 8;
  double one_v = 1.0, nan_v = NAN;
  memcpy(b->consts, &one_v, 8);
  memcpy(b->state, &nan_v, 8);
  int32_t data = input(b, "data", F64, 0), pred = input(b, "pred", BOOL1, 0);
  int32_t out0 = output(b, "out0", F64, 0), out1 = output(b, "out1", F64, 0);
  int32_t st = val(b, "state", F64, BERTH_STORAGE_STATE, 0);
  int32_t one = val(b, "one", F64, BERTH_STORAGE_CONST, 0);
  int32_t result1 = arena(b, "result1", F64, 0);
  int32_t t1 = arena(b, "t1", F64, 0), e1 = arena(b, "e1", F64, 0);
  int32_t result2 = arena(b, "result2", F64, 8);
  int32_t isn = arena(b, "isn", BOOL1, 16);
  int32_t n1 = arena(b, "n1", F64, 8), r2c = arena(b, "r2c", F64, 24);
  int32_t add_1 = arena(b, "add_1", F64, regions ? 0 : 32);
  int32_t e2 = arena(b, "e2", F64, 8);
  int32_t j0 = jif(b, pred, -1);
  kern(b, BERTH_OP_CLONE, data, -1, t1);
  ren(b, t1, result1);
  int32_t j1 = jmp(b, -1);
  b->ins[j0].target = b->n;
  kern(b, BERTH_OP_CLONE, st, -1, e1);
  ren(b, e1, result1);
  b->ins[j1].target = b->n;
  int32_t j2 = jif(b, pred, -1);
  kern(b, BERTH_OP_ISNAN, st, -1, isn);
  int32_t j3 = jif(b, isn, -1);
  kern(b, BERTH_OP_CLONE, result1, -1, n1);
  ren(b, n1, result2);
  int32_t j4 = jmp(b, -1);
  b->ins[j3].target = b->n;
  kern(b, BERTH_OP_CLONE, result1, -1, r2c);
  *write_add_1 = kern(b, BERTH_OP_ADD, r2c, one, add_1);
  copy(b, add_1, result2);
  b->ins[j4].target = b->n;
  int32_t j5 = jmp(b, -1);
  b->ins[j2].target = b->n;
  kern(b, BERTH_OP_CLONE, st, -1, e2);
  ren(b, e2, result2);
  b->ins[j5].target = b->n;
  *read_result1 = copy(b, result1, st);
  copy(b, result1, out0);
  copy(b, result2, out1);
  ret(b);
}

static berth_status_t run_forward(pb_t *b, uint8_t *arena_mem, uint8_t *state_mem, berth_sanitizer_t *san,
                                  double data, double *r1, double *r2) {
  uint8_t pred = data >= 0.0;
  const void *inputs[2] = {&data, &pred};
  void *outputs[2] = {r1, r2};
  uint8_t *pools[1] = {arena_mem};
  int64_t regs[1] = {0};
  berth_exec_memory_t mem = {pools, state_mem, inputs, outputs, regs, NULL, NULL, NULL};
  return berth_exec_run(&b->p, 0, &mem, san, 0, dg());
}

static void test_seed(void) {
  for (int regions = 0; regions < 2; regions++) {
    for (int sanitize = 0; sanitize < 2; sanitize++) {
      pb_t b;
      int32_t read_result1, write_add_1;
      build_seed(&b, regions, &read_result1, &write_add_1);
      berth_sanitizer_t *san = sanitize ? make(&b) : (finish(&b), NULL);
      _Alignas(16) uint8_t arena_mem[40];
      _Alignas(16) uint8_t state_mem[8];
      memcpy(state_mem, b.state, 8);
      double r1 = 0, r2 = 0;
      berth_status_t st = run_forward(&b, arena_mem, state_mem, san, 5.0, &r1, &r2);
      CHECK_MSG(st == BERTH_OK, "%s", msg);
      CHECK(r1 == 5.0 && r2 == 5.0);
      st = run_forward(&b, arena_mem, state_mem, san, 6.0, &r1, &r2);
      if (!regions) {
        CHECK_MSG(st == BERTH_OK, "%s", msg);
        CHECK(r1 == 6.0 && r2 == 7.0);
      } else if (!sanitize) {
        /* the seed bug, reproduced: (7, 7) instead of (6, 7) */
        CHECK(st == BERTH_OK);
        CHECK(r1 == 7.0 && r2 == 7.0);
      } else {
        char want[256];
        snprintf(want, sizeof want,
                 "read of %%result1 at instruction %d (copy): bytes [0,8) of arena pool 0 were last written by "
                 "%%add_1 (at instruction %d)",
                 (int)read_result1, (int)write_add_1);
        CHECK(st == BERTH_ERR_VERIFY_FAILED);
        CHECK_MSG(strstr(msg, want) != NULL, "want \"%s\", got \"%s\"", want, msg);
      }
    }
  }
}

int main(void) {
  test_overwrite();
  test_rename_and_readonly();
  test_windows();
  test_state();
  test_api();
  test_seed();
  free(san_mem);
  return test_finish("test_sanitizer");
}
