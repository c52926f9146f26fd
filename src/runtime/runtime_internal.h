/* Runtime internals for the host session (src/host/session.c): a public program handle over
 * a program that is already decoded in memory (a freshly planned exec program, which the
 * compiler has verified, or on purpose has not), so that planned programs run through the
 * same berth_method_* front door as loaded files. Not part of the public API. */
#ifndef BERTH_RUNTIME_RUNTIME_INTERNAL_H
#define BERTH_RUNTIME_RUNTIME_INTERNAL_H

#include "berth/runtime.h"
#include "format/read_program.h"

/* Bytes of memory berth_program_wrap needs (any alignment). */
size_t berth_program_wrap_size(void);

/* Lays a program handle over fp out in mem. fp (its exec program, and its methods' input
 * and output names) must stay alive and unchanged while the handle is used; nothing is
 * checked or verified here. Errors: BERTH_ERR_INVALID_ARGUMENT, BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_program_wrap(const berth_format_program_t *fp, void *mem, size_t mem_size, berth_program_t **out,
                                  berth_diag_t *diag);

#endif
