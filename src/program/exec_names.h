/* Names of the exec program's parts, in one place: what the verifier, the loader, the
 * sanitizer, the interpreter and the disassembler print for an opcode, a storage class, a
 * value or an instruction (runtime side: no stdio, no malloc).
 *
 *   char nb[96], ib[96];
 *   berth_snprintf(msg, cap, "read of %s at instruction %d (%s)",
 *                berth_exec_value_name(m, v, nb, sizeof nb), (int)i,
 *                berth_exec_instr_name(m, i, ib, sizeof ib));
 */
#ifndef BERTH_PROGRAM_EXEC_NAMES_H
#define BERTH_PROGRAM_EXEC_NAMES_H

#include "program/exec_program.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "kernel", "copy", "rename", "jump", "jump_if_false", "loop_init", "loop_next", "return",
 * "assert"; "?" for anything else. */
const char *berth_exec_opcode_name(uint32_t opcode);

/* "arena", "constant", "state", "caller input", "caller output"; "?" for anything else. */
const char *berth_exec_storage_name(uint32_t storage);

/* Writes "%name" of value v of m ("%v<id>" when it has no name or v is out of range; no
 * second '%' when the name has one). Returns buf. */
char *berth_exec_value_name(const berth_exec_method_t *m, int32_t v, char *buf, size_t cap);

/* Writes what instruction i of m is: "kernel add" (the op's name), or the opcode's name
 * ("copy", "jump_if_false", ...; "?" when i is out of range). Returns buf. */
char *berth_exec_instr_name(const berth_exec_method_t *m, int32_t i, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
