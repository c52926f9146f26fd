/* Writes the kernel-selection header of a compiled program (see ops_header.c). */
#ifndef BERTH_TOOLS_OPS_HEADER_H
#define BERTH_TOOLS_OPS_HEADER_H

#include "runtime/exec_program.h"

/* Returns 0, or 1 after printing an error. */
int berth_tool_write_ops_header(const berth_exec_program_t *exec, const char *path);

#endif
