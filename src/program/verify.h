/* The independent verifier of emitted programs (DESIGN.md "Memory semantics", rule 8).
 *
 *   size_t need = berth_verify_program_scratch_size(p);     // SIZE_MAX: too big
 *   void *scratch = ...caller memory of `need` bytes...;
 *   char msg[512];
 *   berth_diag_t diag = berth_diag_make(msg, sizeof msg);
 *   if (berth_verify_program(p, scratch, need, &diag) != BERTH_OK) reject the file (msg says why);
 *
 * It works on the flat instruction stream of program/exec_program.h only and trusts nothing
 * the planner believed: the compiler runs it on everything it emits and the loader on every
 * file it loads (runtime side: no malloc, no stdio; working memory comes from the caller).
 *
 * Structural checks (BERTH_ERR_CORRUPT_DATA: the stream is malformed; after them the
 * interpreter may run the program without re-validating anything):
 *  - counts and pointers of the method; every operand, attribute range, jump target and
 *    loop register in range; LOOP_NEXT count in [1, 2^62]; the last instruction is JUMP or
 *    RETURN, so no path falls off the end;
 *  - every value's type within berth's caps; its storage inside its region (ARENA: pool <
 *    n_pools and [offset, offset+size) inside the pool; CONST inside the constant blob;
 *    STATE inside the state region; INPUT/OUTPUT: index < n_inputs/n_outputs, only when
 *    that side is not planned, and no larger than the method's own input/output value of
 *    that index, which sizes the caller's buffer); ARENA offsets a multiple of `alignment`;
 *    every offset (and a window's slice offset and stride) a multiple of the element size,
 *    because kernels access tensors aligned to their element size;
 *  - method input i is INPUT index i (or ARENA when alloc_inputs); method output j is
 *    OUTPUT index j (or ARENA when alloc_outputs); no input or output is windowed and
 *    none is listed twice;
 *  - windowed values (their own storage fields are ignored: the bytes are the parent's):
 *    the parent exists and is not windowed, the register exists, and a
 *    forward range analysis of the loop registers proves that wherever the window is used
 *    the register is set (LOOP_INIT on every path) and every slice it can select lies
 *    inside the parent;
 *  - KERNEL: the op is a kernel, n_in/n_out fit its definition, and the output types are
 *    exactly what the op's infer gives for the input types and attributes (this is what
 *    makes the kernels safe on untrusted files); COPY: src and dst of equal byte size;
 *    RENAME: src and dst on identical storage; JUMP_IF_FALSE: a one-element bool operand;
 *    ASSERT: op BERTH_OP_ASSERT, one input, no output, its attribute in range, a
 *    one-element bool operand.
 *
 * Memory rule (BERTH_ERR_VERIFY_FAILED): a must-dataflow "value v is intact" over the
 * control-flow graph, to a fixpoint. v is intact at a point iff on every path from the
 * method entry the last write touching v's bytes wrote v itself. A write of v (KERNEL
 * output, COPY dst, RENAME dst) makes v intact and every other value sharing a byte with v
 * not intact. At entry the method inputs, the state values, the constants and every
 * zero-byte value are intact. Every read (KERNEL input, COPY/RENAME src, JUMP_IF_FALSE
 * and ASSERT operand) needs its value intact, and at RETURN every method output and every
 * state value must be intact. An ASSERT writes nothing and continues to the next
 * instruction; the call it ends when its operand is false returns no outputs, so that
 * exit needs nothing intact (the fall-through path keeps every check).
 * Windowed values stand for their parent P (the stacked value): reading a slice reads P;
 * writing a slice makes every other value over P's bytes not intact, and makes P intact
 * if P was intact or "clean": not written over by another value since the LOOP_INIT of the
 * slice register (so a temporary over an already written slice is caught, and temporaries
 * that used P's bytes before the loop are fine). The verifier assumes, and does not prove,
 * that the loop writes every slice (the sanitizer checks that at run time), and it is
 * conservative in one way: a write over a slice inside the loop is rejected even when that
 * slice is written only later (a planner keeps P live over its whole loop anyway).
 * Also rejected: writes into constants or caller input buffers (checked before the
 * dataflow); state values that share bytes (each buffer has its own bytes); method inputs
 * that share bytes; a method output that is a constant, state or input value (DESIGN rule
 * 2: it must be copied); and, checked after the reads (whose message says more when the
 * clobbered value is read later): a kernel output sharing bytes with an input of the same
 * instruction or with another output, a COPY whose src and dst overlap without being
 * identical. A rejected read names the value, its bytes, the instruction, and the culprit
 * found by a backward search: the nearest write of another value over those bytes, or "not
 * written on some path from the method entry".
 *
 * Messages start with "method <name>: ". */
#ifndef BERTH_PROGRAM_VERIFY_H
#define BERTH_PROGRAM_VERIFY_H

#include "berth/status.h"
#include "program/exec_program.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of caller scratch that berth_verify_method needs for method `method` of p (any
 * alignment is fine). Returns SIZE_MAX if the size overflows (the program is too big to
 * verify) and 0 when p or method is invalid (verification then fails with a message).
 * The states are kept per basic block: about n_blocks * ((n_values + n_windows) / 8 +
 * 8 * n_regs) + 45 * n_values + 25 * n_instrs bytes, where n_blocks is bounded by
 * 1 + 2 * (jumps, branches and loop_nexts) + returns. p's tables must hold as many entries
 * as its counts say (the loader builds them so); their contents may be anything. */
size_t berth_verify_scratch_size(const berth_exec_program_t *p, int32_t method);

/* The maximum of berth_verify_scratch_size over p's methods. */
size_t berth_verify_program_scratch_size(const berth_exec_program_t *p);

/* Verifies one method. scratch must hold berth_verify_scratch_size(p, method) bytes; it is
 * clobbered. Returns BERTH_OK, BERTH_ERR_INVALID_ARGUMENT (NULL program, method out of
 * range), BERTH_ERR_RESOURCE_EXHAUSTED (scratch too small), BERTH_ERR_CORRUPT_DATA
 * (structural) or BERTH_ERR_VERIFY_FAILED (memory rule), with a message in diag. */
berth_status_t berth_verify_method(const berth_exec_program_t *p, int32_t method, void *scratch,
                                   size_t scratch_size, berth_diag_t *diag);

/* Verifies every method in order and stops at the first failure. scratch must hold
 * berth_verify_program_scratch_size(p) bytes. */
berth_status_t berth_verify_program(const berth_exec_program_t *p, void *scratch, size_t scratch_size,
                                    berth_diag_t *diag);

/* ---- helpers (also used by the sanitizer and the disassembler; names: exec_names.h) -- */

/* True if value v is a mutable buffer: STATE storage, not windowed, and neither written by a
 * kernel nor handed on by a RENAME (such a STATE value is a buffer's new value computed in
 * the buffer's own bytes, see the planner's copy_ in place). Buffers are intact at entry and
 * must be at return. Assumes a verified method. O(instructions). */
bool berth_verify_value_is_buffer(const berth_exec_method_t *m, int32_t v);

#ifdef __cplusplus
}
#endif
#endif
