/* Shadow memory for the planned runtime's --sanitize mode (DESIGN.md rule 9).
 *
 *   size_t need = berth_sanitizer_size(p, m);             // SIZE_MAX: too big
 *   berth_sanitizer_t *san;
 *   berth_sanitizer_init(mem, need, p, m, &san, &diag);    // at method load: tags the state
 *   // each execute:
 *   berth_sanitizer_begin_call(san);                       // arena/outputs unwritten, inputs tagged
 *   //   per instruction, once per operand, before running it:
 *   //   KERNEL: on_read(each input) then on_write(each output); COPY: on_read(src), on_write(dst);
 *   //   RENAME: on_rename(src, dst); JUMP_IF_FALSE: on_read(cond); RETURN: on_return
 *   if (berth_sanitizer_on_read(san, v, pc, regs, &diag) != BERTH_OK) stop: the plan is wrong;
 *
 * Every byte of every arena pool, of the state region and of every caller input/output
 * buffer carries one int32 owner tag: the value whose write last touched it, or
 * BERTH_SANITIZER_UNWRITTEN. A write tags exactly the bytes it touches (for a windowed value
 * only the current slice, but with the parent's identity); a read checks that every byte it
 * touches still belongs to the value read (the parent, for a slice). The seed bug shows up as
 * "read of %result1 at instruction 17 (copy): bytes [0,8) of arena pool 0 were last written
 * by %add_1 (at instruction 12)".
 *
 * Views (DESIGN rule 7): a VIEW writes nothing; the view records the identity that owns its
 * bytes (its source's, transitively) and that identity's write generation at that moment. A
 * read of a view accepts bytes tagged with that identity only while no write of it happened
 * since (every write of an identity starts a new generation), so a view read after its source
 * was rewritten, or after its bytes were taken by another value, is caught like any read. Constants have no shadow: they are read-only (the verifier
 * rejects writes to them, and so does on_write).
 *
 * The state tags persist across calls (state must survive to the next call); the arena and
 * the output buffers start every call unwritten. Runtime side: no malloc, no stdio; the
 * caller provides the memory. The program should have passed the verifier; the sanitizer
 * still never touches memory outside its shadow (a slice outside its parent is reported as
 * BERTH_ERR_INTERNAL). Cost: a few loads per byte touched. */
#ifndef BERTH_RUNTIME_SANITIZER_H
#define BERTH_RUNTIME_SANITIZER_H

#include "berth/status.h"
#include "program/exec_program.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BERTH_SANITIZER_UNWRITTEN (-1)

typedef struct berth_sanitizer berth_sanitizer_t;

/* Bytes of caller memory needed for method `method` of p: a header, per-region tables, one
 * int32 per value and four bytes per shadowed byte (sum of pool sizes + state size + input
 * and output buffer sizes). Any alignment is fine. 0 when p or method is invalid; SIZE_MAX
 * on overflow. */
size_t berth_sanitizer_size(const berth_exec_program_t *p, int32_t method);

/* Lays the sanitizer out in mem (size bytes, at least berth_sanitizer_size) and tags the
 * state region as holding its state values (the initial contents just copied in). p must
 * stay alive and unchanged while the sanitizer is used. Errors: BERTH_ERR_INVALID_ARGUMENT,
 * BERTH_ERR_RESOURCE_EXHAUSTED (mem too small). *out is written only on success. */
berth_status_t berth_sanitizer_init(void *mem, size_t size, const berth_exec_program_t *p,
                                    int32_t method, berth_sanitizer_t **out, berth_diag_t *diag);

/* Start of an execute: every arena and output byte becomes unwritten; every caller input
 * buffer and every arena-planned input is tagged with its method input value. State tags
 * are kept. */
void berth_sanitizer_begin_call(berth_sanitizer_t *s);

/* Value `value` is written by instruction `instr` (regs: the loop registers, needed for
 * windowed values; may be NULL when the method has none). Tags the touched bytes with the
 * value's identity. Fails with BERTH_ERR_VERIFY_FAILED on a write into a constant or a
 * caller input buffer, BERTH_ERR_INTERNAL on a slice outside its parent or a bad id. */
berth_status_t berth_sanitizer_on_write(berth_sanitizer_t *s, int32_t value, int32_t instr,
                                        const int64_t *regs, berth_diag_t *diag);

/* Value `value` is read by instruction `instr`. Fails with BERTH_ERR_VERIFY_FAILED, naming
 * the first run of bytes that another value (or nothing, this call) wrote last. */
berth_status_t berth_sanitizer_on_read(berth_sanitizer_t *s, int32_t value, int32_t instr,
                                       const int64_t *regs, berth_diag_t *diag);

/* RENAME src -> dst: a read of src, then dst takes the bytes over (they are retagged). */
berth_status_t berth_sanitizer_on_rename(berth_sanitizer_t *s, int32_t src, int32_t dst, int32_t instr,
                                         const int64_t *regs, berth_diag_t *diag);

/* VIEW src -> dst at byte `offset` of src: a read of src; dst's bytes must be src's from
 * `offset` on (else BERTH_ERR_VERIFY_FAILED, like a clobbered read); dst then names src's
 * bytes of this generation (no retag). */
berth_status_t berth_sanitizer_on_view(berth_sanitizer_t *s, int32_t src, int32_t dst, uint64_t offset,
                                       int32_t instr, const int64_t *regs, berth_diag_t *diag);

/* JOIN of parts ops[0..n_parts) into ops[n_parts]: a read of each part, which must lie at its
 * slot of the output's bytes (else BERTH_ERR_VERIFY_FAILED); the output's bytes are then
 * retagged as the output's, and each part becomes a view of the output (a later read of a
 * part holds while the output is not written again, like a view's). */
berth_status_t berth_sanitizer_on_join(berth_sanitizer_t *s, const int32_t *ops, int32_t n_parts, int32_t instr,
                                       const int64_t *regs, berth_diag_t *diag);

/* RETURN at `instr`: every method output and every state value must still own its bytes. */
berth_status_t berth_sanitizer_on_return(berth_sanitizer_t *s, int32_t instr, berth_diag_t *diag);

/* The owner tag of byte `offset` of a region, for tests and debuggers: `storage` is
 * BERTH_STORAGE_ARENA (index = pool), _STATE (index ignored), _INPUT or _OUTPUT (index =
 * buffer). Returns BERTH_SANITIZER_UNWRITTEN for unwritten or out-of-range bytes. */
int32_t berth_sanitizer_owner(const berth_sanitizer_t *s, uint8_t storage, uint32_t index,
                              uint64_t offset);

#ifdef __cplusplus
}
#endif
#endif
