/* The executable form of a program: what the emitter produces, what the program file
 * stores, what the loader decodes into caller memory, what the verifier checks and what
 * the planned runtime executes. Every value keeps its identity (an index into `values`),
 * and every instruction operand names the value it means; the value's storage says which
 * bytes that is. Nothing here is rebound at run time.
 *
 * Storage of a value:
 *   ARENA   pool `pool`, bytes [offset, offset + size) of that pool's arena
 *   CONST   bytes [offset, offset + size) of the program's constant blob (read-only)
 *   STATE   bytes [offset, offset + size) of the method's state region (persists)
 *   INPUT   the caller's buffer for input `index` (when inputs are not planned)
 *   OUTPUT  the caller's buffer for output `index` (when outputs are not planned)
 *   HOIST   bytes [offset, offset + size) of the method's hoist region: values computed from
 *           constants alone by the once-stream (below), kept between calls
 * A windowed value (window_parent >= 0) is one slice of a stacked value: its bytes are
 *   storage(parent) + offset_in_parent + reg[window_reg] * window_stride
 * (for scan inputs read in place and per-step outputs written in place). Its identity for
 * the verifier and the sanitizer is the parent's.
 *
 * Contracts the verifier (program/verify.h) checks beyond the field comments below: loop
 * registers are unset at method entry (LOOP_INIT before any use); every offset, and a
 * window's offset and stride, is a multiple of the element size; method input i is INPUT
 * index i (ARENA when alloc_inputs), method output j is OUTPUT index j (ARENA when
 * alloc_outputs); STATE values never share bytes; the last instruction is JUMP or RETURN;
 * a COPY may have src and dst on identical bytes (a no-op) but not partly overlapping; a
 * kernel's scratch value (berth_instr_t.n_scratch) is a plain ARENA u8[n] value named by no
 * other operand, disjoint from its instruction's inputs and outputs; to the memory rule it is
 * one more output of that instruction (it kills every value over its bytes); a VIEW's src and
 * dst are not windowed, dst's bytes start exactly view_offset bytes into src's and end inside
 * them (same storage), and no other instruction writes dst; a JOIN's parts and output are not
 * windowed, share one dtype, are distinct values, each part lies exactly at its slot of the
 * output's bytes, the parts fill them, and no other instruction defines the output.
 *
 * The once-stream: the first n_once instructions of a method (src/plan/hoist.c) compute the
 * HOIST values from constants, once, before the first call (berth_exec_run_once); every
 * call runs from instruction n_once. Verified: the once-stream holds only kernels without
 * scratch and views, reading CONST or HOIST values and writing HOIST values; no instruction
 * from n_once on writes or defines a HOIST value, and no jump goes below n_once. */
#ifndef BERTH_PROGRAM_EXEC_PROGRAM_H
#define BERTH_PROGRAM_EXEC_PROGRAM_H

#include "berth/types.h"
#include "kernels/op_table.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum berth_storage_class {
  BERTH_STORAGE_ARENA = 0,
  BERTH_STORAGE_CONST = 1,
  BERTH_STORAGE_STATE = 2,
  BERTH_STORAGE_INPUT = 3,
  BERTH_STORAGE_OUTPUT = 4,
  BERTH_STORAGE_HOIST = 5,
} berth_storage_class_t;

typedef struct berth_exec_value {
  const char *name; /* for diagnostics */
  berth_type_t type;
  uint8_t storage; /* berth_storage_class_t */
  uint32_t pool;   /* ARENA */
  uint64_t offset; /* ARENA, CONST, STATE; windowed: offset of slice 0 within the parent */
  uint32_t index;  /* INPUT, OUTPUT */
  int32_t window_parent; /* -1, or the stacked value this is a slice of */
  int32_t window_reg;    /* loop register selecting the slice */
  int64_t window_stride; /* bytes between consecutive slices (may be negative) */
} berth_exec_value_t;

typedef enum berth_opcode {
  BERTH_I_KERNEL = 0,    /* op(in...) -> out...; operands: n_in inputs, n_out outputs, then
                            n_scratch (0 or 1) scratch values */
  BERTH_I_COPY = 1,      /* operands[0] = src, operands[1] = dst; same byte size */
  BERTH_I_RENAME = 2,    /* dst takes over src's bytes (same storage): no work at run time */
  BERTH_I_JUMP = 3,      /* goto target */
  BERTH_I_JUMP_IF_FALSE = 4, /* operands[0]: one-element bool; if false goto target */
  BERTH_I_LOOP_INIT = 5, /* reg[reg] = 0 (a counted loop runs its body count >= 1 times) */
  BERTH_I_LOOP_NEXT = 6, /* reg[reg] += 1; if reg[reg] < count goto target (the body start) */
  BERTH_I_RETURN = 7,
  BERTH_I_ASSERT = 8,    /* operands[0]: one-element bool; if false the call fails with
                            BERTH_ERR_CHECK_FAILED and the message of its one attribute */
  BERTH_I_VIEW = 9,      /* operands[0] = src, operands[1] = dst: dst is a view of src (DESIGN
                            rule 7), its bytes src's from byte view_offset on (inside src's);
                            no work at run time. A
                            definition of dst that does not end src's: both are defined there
                            until a real write over those bytes */
  BERTH_I_JOIN = 10,     /* operands[0..n_in) = the parts, operands[n_in] = out (n_out = 1): a
                            Concat done in place (DESIGN rule 7, plan/views.c): each part was
                            written in its slot of out's bytes, part k at byte offset sum of
                            the sizes of parts 0..k-1, and together they fill out's bytes. No
                            work at run time: a read of the parts and a definition of out that
                            ends none of theirs */
  BERTH_I_COUNT
} berth_opcode_t;

typedef struct berth_instr {
  uint8_t opcode;
  uint8_t n_scratch;     /* KERNEL: 0, or 1: the call's working memory, a value of its own
                            (ARENA, u8[bytes], written by this instruction only and read by
                            none: the planner gives it the node's position only) */
  uint16_t op;           /* KERNEL: berth_op_t; ASSERT: BERTH_OP_ASSERT (its attribute specs) */
  uint16_t n_in, n_out;  /* KERNEL: counts; COPY/RENAME/VIEW: 1 in (src), 1 out (dst); JUMP_IF_FALSE, ASSERT: 1 in;
                            JOIN: n_in >= 1 parts, 1 out */
  uint32_t operands;     /* index of the first operand in the method's operand array */
  uint32_t attrs;        /* KERNEL, ASSERT: index of the first attribute value */
  int32_t target;        /* JUMP, JUMP_IF_FALSE, LOOP_NEXT: instruction index */
  int32_t reg;           /* LOOP_*: register */
  int64_t count;         /* LOOP_NEXT: trip count (>= 1) */
  uint64_t view_offset;  /* VIEW: byte offset of dst's bytes inside src's (the file stores it in
                            the record's count field, which a view does not otherwise use) */
} berth_instr_t;

/* An output whose extent along `axis` is known only at run time: its static extent there is
 * a capacity, the real extent is the value of `extent` (an i64 scalar the method defines,
 * live at the return like an output), and the real tensor is packed densely at the start
 * of the output's bytes. */
typedef struct berth_exec_bound {
  int32_t output; /* < n_outputs; bounds are in increasing output order, one per output */
  int32_t axis;   /* < the output's rank */
  int32_t extent; /* value id */
} berth_exec_bound_t;

typedef struct berth_exec_method {
  const char *name;
  int32_t n_values;
  const berth_exec_value_t *values;
  int32_t n_instrs;
  const berth_instr_t *instrs;
  int32_t n_operands;
  const int32_t *operands; /* value ids; COPY/RENAME/VIEW store src then dst, JOIN the parts then out */
  int32_t n_attrs;
  const berth_attr_value_t *attrs;
  int32_t n_inputs;
  const int32_t *inputs; /* value ids of the method's parameters, in order */
  int32_t n_outputs;
  const int32_t *outputs; /* value ids of the method's results, in order */
  int32_t n_bounds;
  const berth_exec_bound_t *bounds; /* outputs with a run-time extent (NULL when none) */
  int32_t n_regs;         /* loop registers */
  int32_t n_pools;
  const uint64_t *pool_sizes; /* arena bytes per pool */
  uint64_t state_size;        /* bytes of the state region */
  const uint8_t *state_init;  /* its initial contents (state_size bytes) */
  uint32_t alignment;         /* every ARENA offset is a multiple of this */
  int32_t n_once;             /* the once-stream: instructions [0, n_once) (0: none) */
  uint64_t hoist_size;        /* bytes of the hoist region (HOIST values) */
} berth_exec_method_t;

typedef struct berth_exec_program {
  bool alloc_inputs;  /* INPUT values are planned in the arena */
  bool alloc_outputs; /* OUTPUT values are planned in the arena */
  int32_t n_methods;
  const berth_exec_method_t *methods;
  uint64_t constants_size;
  const uint8_t *constants; /* constant blob (read-only) */
} berth_exec_program_t;

#endif
