/* Loading a program for the command-line tool: a .bir text file, a .berth program file or
 * an ONNX model, told apart by content (the magic "BERTH\0", a ModelProto), not by the
 * extension (but a .onnx path is always imported). Public API only (berth/compiler.h). */
#ifndef BERTH_TOOLS_PROGRAM_LOAD_H
#define BERTH_TOOLS_PROGRAM_LOAD_H

#include "berth/compiler.h"
#include "berth/runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The program of PROGRAM: a .bir is parsed and validated; a .berth is loaded and verified,
 * then its IR section is parsed and validated (a .berth without one is an error); a .onnx
 * is imported with the command line's ONNX options. Returns NULL after printing one line
 * "berth: ..." to stderr. */
berth_source_t *berth_tool_load_program(const char *path);

/* A loaded .berth file (berth/runtime.h's program, for its signature). */
typedef struct berth_tool_berth {
  berth_program_t *prog; /* verified */
  uint8_t *bytes;        /* the file, 64-byte aligned (owned) */
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

/* Loads a .berth file with the runtime's loader (verified). NULL after printing the
 * loader's message ("berth: PATH: ..."). */
berth_tool_berth_t *berth_tool_load_berth(const char *path);
void berth_tool_berth_free(berth_tool_berth_t *b);

/* ONNX models (onnx_load.c). berth_tool_onnx_args takes --input NAME:DTYPE[DIMS],
 * --state IN=OUT, --keep-control-flow, --max-trip-count N and --dynamic-bound N out of argv
 * (for every later .onnx load); -1 after printing an error. berth_tool_is_onnx: a .onnx
 * path or a ModelProto file. */
int berth_tool_onnx_args(int *argc, char **argv);
bool berth_tool_is_onnx(const char *path);
/* True, after printing why, when ONNX import options were given for path, which is not an
 * ONNX model (a .bir or .berth): they would be ignored. */
bool berth_tool_onnx_options_refused(const char *path);
/* Sets opt's ONNX import fields to the command line's (the strings stay valid). */
void berth_tool_onnx_options(berth_compile_options_t *opt);

#endif
