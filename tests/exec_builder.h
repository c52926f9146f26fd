/* A small exec-program builder for the tests that drive the verifier, the sanitizer and the
 * interpreter with hand-built programs (tests/test_verify.c, tests/test_sanitizer.c): one
 * method, fixed-capacity tables, no heap.
 *
 *   pb_t b;
 *   pb_init(&b, 16);                              // pool 0 of 16 bytes, alignment 8
 *   int32_t x = input(&b, "x", F64, 0), out = output(&b, "out", F64, 0);
 *   int32_t a = arena(&b, "a", F64, 0);
 *   kern(&b, BERTH_OP_ADD, x, x, a);              // a = x + x
 *   copy(&b, a, out);
 *   ret(&b);
 *   finish(&b);                                   // b.p is the program, b.m its method
 *
 * Values and instructions are numbered in the order they are made; fields the builder does
 * not set (a jump's target made before its target exists, a value's pool) are patched in
 * b.v[] and b.ins[] directly. */
#ifndef BERTH_TESTS_EXEC_BUILDER_H
#define BERTH_TESTS_EXEC_BUILDER_H

#include "kernels/op_table.h"
#include "program/exec_program.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define MAXV 64
#define MAXI 64

typedef struct pb {
  berth_exec_value_t v[MAXV];
  int32_t nv;
  berth_instr_t ins[MAXI];
  int32_t n;
  int32_t ops[256];
  int32_t nops;
  int32_t in[8], ni;
  int32_t out[8], no;
  uint64_t pools[2];
  int32_t np;
  uint8_t state[64];
  uint64_t state_size;
  uint8_t consts[64];
  uint64_t consts_size;
  int32_t n_regs;
  uint32_t alignment;
  bool alloc_in, alloc_out;
  berth_attr_value_t attrs[4];
  int32_t nattrs;
  berth_exec_method_t m;
  berth_exec_program_t p;
} pb_t;

static inline berth_type_t ty(berth_dtype_t dt, int32_t rank, int64_t d0) {
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = dt;
  t.rank = rank;
  if (rank > 0) t.dims[0] = d0;
  return t;
}
#define F64 ty(BERTH_DTYPE_F64, 1, 1)
#define F64S ty(BERTH_DTYPE_F64, 0, 0)
#define F32 ty(BERTH_DTYPE_F32, 1, 1)
#define BOOL1 ty(BERTH_DTYPE_BOOL, 1, 1)

static inline void pb_init(pb_t *b, uint64_t pool0) {
  memset(b, 0, sizeof *b);
  b->np = 1;
  b->pools[0] = pool0;
  b->alignment = 8;
}

static inline int32_t val(pb_t *b, const char *name, berth_type_t t, uint8_t storage, uint64_t offset) {
  berth_exec_value_t *x = &b->v[b->nv];
  memset(x, 0, sizeof *x);
  x->name = name;
  x->type = t;
  x->storage = storage;
  x->offset = offset;
  x->window_parent = -1;
  return b->nv++;
}
static inline int32_t arena(pb_t *b, const char *name, berth_type_t t, uint64_t off) {
  return val(b, name, t, BERTH_STORAGE_ARENA, off);
}
static inline int32_t cnst(pb_t *b, const char *name, berth_type_t t, uint64_t off) {
  return val(b, name, t, BERTH_STORAGE_CONST, off);
}
static inline int32_t state(pb_t *b, const char *name, berth_type_t t, uint64_t off) {
  return val(b, name, t, BERTH_STORAGE_STATE, off);
}
/* A method input in the caller's buffer (or at `off` in the arena when alloc_in). */
static inline int32_t input(pb_t *b, const char *name, berth_type_t t, uint64_t off) {
  int32_t v = b->alloc_in ? arena(b, name, t, off) : val(b, name, t, BERTH_STORAGE_INPUT, 0);
  b->v[v].index = (uint32_t)b->ni;
  b->in[b->ni++] = v;
  return v;
}
static inline int32_t output(pb_t *b, const char *name, berth_type_t t, uint64_t off) {
  int32_t v = b->alloc_out ? arena(b, name, t, off) : val(b, name, t, BERTH_STORAGE_OUTPUT, 0);
  b->v[v].index = (uint32_t)b->no;
  b->out[b->no++] = v;
  return v;
}
static inline int32_t window(pb_t *b, const char *name, berth_type_t t, int32_t parent, int32_t reg,
                      uint64_t off, int64_t stride) {
  int32_t v = val(b, name, t, b->v[parent].storage, off);
  b->v[v].window_parent = parent;
  b->v[v].window_reg = reg;
  b->v[v].window_stride = stride;
  if (reg >= b->n_regs) b->n_regs = reg + 1;
  return v;
}

static inline int32_t instr(pb_t *b, uint8_t opcode, const int32_t *ops, int32_t nops) {
  berth_instr_t *x = &b->ins[b->n];
  memset(x, 0, sizeof *x);
  x->opcode = opcode;
  x->operands = (uint32_t)b->nops;
  for (int32_t k = 0; k < nops; k++) b->ops[b->nops++] = ops[k];
  return b->n++;
}
/* kernel op(a[, b]) -> out */
static inline int32_t kern(pb_t *b, berth_op_t op, int32_t a, int32_t a2, int32_t out) {
  int32_t ops[3] = {a, a2, out}, n = 3;
  if (a2 < 0) {
    ops[1] = out;
    n = 2;
  }
  int32_t i = instr(b, BERTH_I_KERNEL, ops, n);
  b->ins[i].op = (uint16_t)op;
  b->ins[i].n_in = (uint16_t)(n - 1);
  b->ins[i].n_out = 1;
  return i;
}
/* kernel op(a) -> out with scratch value sc (appended after the output) */
static inline int32_t kern_s(pb_t *b, berth_op_t op, int32_t a, int32_t out, int32_t sc) {
  int32_t ops[3] = {a, out, sc};
  int32_t i = instr(b, BERTH_I_KERNEL, ops, 3);
  b->ins[i].op = (uint16_t)op;
  b->ins[i].n_in = 1;
  b->ins[i].n_out = 1;
  b->ins[i].n_scratch = 1;
  return i;
}
static inline int32_t copy(pb_t *b, int32_t src, int32_t dst) {
  int32_t ops[2] = {src, dst};
  return instr(b, BERTH_I_COPY, ops, 2);
}
static inline int32_t ren(pb_t *b, int32_t src, int32_t dst) {
  int32_t ops[2] = {src, dst};
  return instr(b, BERTH_I_RENAME, ops, 2);
}
/* dst = view of src (DESIGN rule 7): dst's bytes lie inside src's, no work */
static inline int32_t view(pb_t *b, int32_t src, int32_t dst, uint64_t offset) {
  int32_t ops[2] = {src, dst};
  int32_t i = instr(b, BERTH_I_VIEW, ops, 2);
  b->ins[i].n_in = 1;
  b->ins[i].n_out = 1;
  b->ins[i].view_offset = offset;
  return i;
}
/* out = join of parts[0..n) (a Concat done in place): each part already in its slot of out */
static inline int32_t join(pb_t *b, const int32_t *parts, int32_t n, int32_t out) {
  int32_t ops[16];
  for (int32_t k = 0; k < n; k++) ops[k] = parts[k];
  ops[n] = out;
  int32_t i = instr(b, BERTH_I_JOIN, ops, n + 1);
  b->ins[i].n_in = (uint16_t)n;
  b->ins[i].n_out = 1;
  return i;
}
static inline int32_t jmp(pb_t *b, int32_t target) {
  int32_t i = instr(b, BERTH_I_JUMP, NULL, 0);
  b->ins[i].target = target;
  return i;
}
static inline int32_t jif(pb_t *b, int32_t cond, int32_t target) {
  int32_t i = instr(b, BERTH_I_JUMP_IF_FALSE, &cond, 1);
  b->ins[i].target = target;
  return i;
}
static inline int32_t linit(pb_t *b, int32_t reg) {
  int32_t i = instr(b, BERTH_I_LOOP_INIT, NULL, 0);
  b->ins[i].reg = reg;
  if (reg >= b->n_regs) b->n_regs = reg + 1;
  return i;
}
static inline int32_t lnext(pb_t *b, int32_t reg, int64_t count, int32_t target) {
  int32_t i = instr(b, BERTH_I_LOOP_NEXT, NULL, 0);
  b->ins[i].reg = reg;
  b->ins[i].count = count;
  b->ins[i].target = target;
  return i;
}
static inline int32_t ret(pb_t *b) { return instr(b, BERTH_I_RETURN, NULL, 0); }
/* assert(cond) {message = text} */
static inline int32_t asrt(pb_t *b, int32_t cond, const char *text) {
  int32_t i = instr(b, BERTH_I_ASSERT, &cond, 1);
  b->ins[i].op = BERTH_OP_ASSERT;
  b->ins[i].n_in = 1;
  b->ins[i].attrs = (uint32_t)b->nattrs;
  memset(&b->attrs[b->nattrs], 0, sizeof b->attrs[0]);
  b->attrs[b->nattrs++].s = text;
  return i;
}

static inline void finish(pb_t *b) {
  berth_exec_method_t *m = &b->m;
  memset(m, 0, sizeof *m);
  m->name = "forward";
  m->n_values = b->nv;
  m->values = b->v;
  m->n_instrs = b->n;
  m->instrs = b->ins;
  m->n_operands = b->nops;
  m->operands = b->ops;
  m->n_attrs = b->nattrs;
  m->attrs = b->attrs; /* never NULL, so &attrs[k] of an attribute-less kernel is defined */
  m->n_inputs = b->ni;
  m->inputs = b->in;
  m->n_outputs = b->no;
  m->outputs = b->out;
  m->n_regs = b->n_regs;
  m->n_pools = b->np;
  m->pool_sizes = b->pools;
  m->state_size = b->state_size;
  m->state_init = b->state;
  m->alignment = b->alignment;
  memset(&b->p, 0, sizeof b->p);
  b->p.alloc_inputs = b->alloc_in;
  b->p.alloc_outputs = b->alloc_out;
  b->p.n_methods = 1;
  b->p.methods = m;
  b->p.constants_size = b->consts_size;
  b->p.constants = b->consts;
}

#endif
