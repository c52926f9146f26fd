/* What the testing library (src/host/runner.c) needs of the public compiler objects: the
 * IR behind a berth_source_t and the exec program behind a berth_compilation_t. Not for
 * the tools: they use include/berth only. */
#ifndef BERTH_COMPILER_INTERNAL_H
#define BERTH_COMPILER_INTERNAL_H

#include "berth/compiler.h"
#include "format/read_program.h"
#include "ir/ir.h"
#include "program/exec_program.h"

const berth_ir_program_t *berth_source_ir(const berth_source_t *s);
const berth_exec_program_t *berth_compilation_exec(const berth_compilation_t *c);

/* Loads a program file (checksum, structure, and the verifier unless verify is false) into
 * *mem (malloc'd, the caller frees it, also on failure) and *fp, which points into it. */
berth_status_t berth_compiler_load_file(const void *bytes, size_t len, bool verify, void **mem,
                                        const berth_format_program_t **fp, berth_diag_t *diag);

#endif
