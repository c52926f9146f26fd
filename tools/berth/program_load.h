/* Loading a program for the command-line tool: a .bir text file or a .berth program file,
 * told apart by the magic ("BERTH\0"), not by the extension. */
#ifndef BERTH_TOOLS_PROGRAM_LOAD_H
#define BERTH_TOOLS_PROGRAM_LOAD_H

#include "format/read_program.h"
#include "ir/ir.h"
#include "plan/plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The IR of PROGRAM: a .bir is parsed and validated; a .berth is loaded and verified, then
 * its IR section is parsed and validated (a .berth without one is an error). Returns NULL
 * after printing one line "berth: ..." to stderr. */
berth_ir_program_t *berth_tool_load_program(const char *path);

/* A loaded .berth file. */
typedef struct berth_tool_berth {
  const berth_format_program_t *prog; /* verified unless loaded with verify = false */
  berth_compiled_t compiled;          /* the stored plan as the host session takes it
                                         (exec only; reports NULL; never destroy it) */
  bool has_ir;                        /* it carries an IR section */
  uint8_t *bytes;                     /* the file, 64-byte aligned (owned) */
  size_t len;
  void *mem; /* the decoded program (owned) */
} berth_tool_berth_t;

/* True if path names a readable file that starts with the .berth magic. */
bool berth_tool_is_berth(const char *path);

/* Reads a whole file into a 64-byte aligned malloc'd buffer (NUL-terminated one byte past
 * len), refusing one over berth_tool_max_input_bytes (tensor_io.h; --max-input-size) with
 * a message naming the limit. NULL after printing "berth: ...". */
uint8_t *berth_tool_read_file(const char *path, size_t *len);

/* The bytes of a .berth file (refusing a pipe, and ONNX import options, which it would
 * ignore), 64-byte aligned, malloc'd; NULL after printing "berth: ...". */
uint8_t *berth_tool_read_berth_file(const char *path, size_t *len);

/* Loads a .berth file; verify = false skips the memory-plan verifier (structural checks
 * still run: for printing only, never for executing). NULL after printing the loader's
 * message ("berth: PATH: ..."). */
berth_tool_berth_t *berth_tool_load_berth(const char *path, bool verify);
void berth_tool_berth_free(berth_tool_berth_t *b);

/* The parsed and validated IR of a loaded .berth's IR section; NULL after printing. When
 * opt is not NULL it receives the planner options the file was compiled with (opt->pools
 * points into pools_buf). */
berth_ir_program_t *berth_tool_berth_ir(const berth_tool_berth_t *b, const char *path, berth_plan_options_t *opt,
                                        char *pools_buf, size_t pools_cap);

/* ONNX models (onnx_load.c). berth_tool_onnx_args takes --input NAME:DTYPE[DIMS],
 * --keep-control-flow and --max-trip-count N out of argv (for every later .onnx load);
 * -1 after printing an error. berth_tool_is_onnx: a .onnx path or a ModelProto file.
 * berth_tool_load_onnx imports one; NULL after printing. */
int berth_tool_onnx_args(int *argc, char **argv);
bool berth_tool_is_onnx(const char *path);
/* True, after printing why, when ONNX import options were given for path, which is not an
 * ONNX model (a .bir or .berth): they would be ignored. */
bool berth_tool_onnx_options_refused(const char *path);
berth_ir_program_t *berth_tool_load_onnx(const char *path);

#endif
