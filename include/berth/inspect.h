/* Looking inside a compiled program file (.berth): the disassembler behind `berth dis`, and
 * the kernels a program calls (for `berth compile --ops-header`).
 *
 *   char *text;
 *   if (berth_disassemble(file, len, "model.berth", true, &text, &diag) == BERTH_OK) {
 *     fputs(text, stdout);
 *     free(text);
 *   }
 *
 * The text: the file's version, size and whether it was verified; where inputs and outputs
 * live and the constants' size; the IR section (its size and the planner options the file
 * was compiled with) or its absence; then per method its signature (inputs and outputs with
 * their names, types and values), pool and state sizes, every value with its type and
 * storage (arena pool and byte range, constant, state, caller input or output, or a window
 * of another value), and the instruction stream (kernels with operands and attributes,
 * copies, jumps, asserts, loop registers). The layout is for people and may change between
 * versions; the file format (docs/format.md) is the contract.
 *
 * Compiler side (libberth.so): it allocates with malloc. */
#ifndef BERTH_INSPECT_H
#define BERTH_INSPECT_H

#include "berth/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the len bytes of a program file as berth_program_load does (header, checksum,
 * structure, and the memory-plan verifier unless verify is false: a file that only fails
 * the verifier can still be read, then the first line says "NOT verified") and writes its
 * text into *text: NUL-terminated, malloc'd, the caller's to free. name (may be NULL) begins
 * the first line. Errors: INVALID_ARGUMENT (bytes or text NULL), the loader's
 * CORRUPT_DATA, UNIMPLEMENTED, OUT_OF_RANGE and VERIFY_FAILED with its one-line message,
 * RESOURCE_EXHAUSTED. *text is written only on success. */
berth_status_t berth_disassemble(const void *bytes, size_t len, const char *name, bool verify, char **text,
                                 berth_diag_t *diag);

/* Checks a program file the way berth_program_load does (header, checksum, structure, and
 * the memory-plan verifier unless verify is false), without keeping it: for tools that write
 * or receive files and want to refuse a damaged one early. Errors: INVALID_ARGUMENT (bytes
 * NULL), the loader's CORRUPT_DATA, UNIMPLEMENTED, OUT_OF_RANGE and VERIFY_FAILED with its
 * one-line message, RESOURCE_EXHAUSTED. */
berth_status_t berth_program_check(const void *bytes, size_t len, bool verify, berth_diag_t *diag);

/* Loads a program file as berth_disassemble does and sets used[op] for every op (numbered
 * as in berth/ops.h) that an instruction of the program runs as a kernel, clearing the other
 * entries of used (n of them; n >= berth_op_count()). The kernel-selection header of an
 * embedded runtime lists these. Errors: INVALID_ARGUMENT (a NULL pointer, n too small), the
 * loader's errors, RESOURCE_EXHAUSTED; used is written only on success. */
berth_status_t berth_program_ops_used(const void *bytes, size_t len, bool verify, bool *used, int32_t n,
                                      berth_diag_t *diag);

/* What a program file holds, loaded as berth_program_check loads it: its methods, and
 * whether it carries the IR source section (what `berth check` prints and `berth run
 * --reference` runs; berth/compiler.h's BERTH_SOURCE_PROGRAM_FILE reads it). Errors as
 * berth_program_check's; *info is written only on success. */
typedef struct berth_program_file_info {
  int32_t n_methods;
  bool has_ir;
} berth_program_file_info_t;
berth_status_t berth_program_file_info(const void *bytes, size_t len, bool verify, berth_program_file_info_t *info,
                                       berth_diag_t *diag);

#ifdef __cplusplus
}
#endif
#endif
