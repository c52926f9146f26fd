/* Loading a program for the command-line tool: reads a .bir file, parses and validates it. */
#ifndef BERTH_TOOLS_PROGRAM_LOAD_H
#define BERTH_TOOLS_PROGRAM_LOAD_H

#include "ir/ir.h"

/* Returns NULL after printing one line "berth: ..." to stderr. */
berth_ir_program_t *berth_tool_load_program(const char *path);

#endif
