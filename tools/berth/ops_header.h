/* Writes the kernel-selection header of a compiled program (see ops_header.c). */
#ifndef BERTH_TOOLS_OPS_HEADER_H
#define BERTH_TOOLS_OPS_HEADER_H

#include <stdbool.h>
#include <stdio.h>

/* Writes the header listing the kernels whose used[op] is set (berth_program_ops_used,
 * berth/inspect.h; berth_op_count() entries) to f (the caller opens it through berth_outfile
 * and reports errors). */
void berth_tool_write_ops_header(const bool *used, FILE *f);

/* berth ops --kernels: prints every op of berth's op table (kind, input and output counts,
 * attributes) to stdout; returns the exit status. */
int berth_tool_print_kernel_ops(void);

#endif
