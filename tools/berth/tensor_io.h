/* Tensor input and output of the berth command-line tool: literals, NumPy .npy files, and
 * readable and JSON printing.
 *
 *   berth_host_tensor_t t;
 *   char err[256];
 *   if (berth_tensor_parse_arg("f32[2,2]:1,2,3,4", &t, err, sizeof err) != BERTH_OK) {
 *     fprintf(stderr, "berth: argument 1: %s\n", err);
 *     return 1;
 *   }
 *   berth_tensor_print(stdout, &t.type, t.data);       // f32[2,2] [[1, 2], [3, 4]]
 *   berth_tensor_print_json(stdout, &t.type, t.data);  // {"dtype":"f32","shape":[2,2],"data":[1.0,2.0,3.0,4.0]}
 *   berth_host_tensor_free(&t);
 *
 * This is tool code: it uses malloc and stdio. Tensor data is dense, row-major, in host byte
 * order; a bool element is one byte, 0 or 1. Every fallible function returns a berth_status_t
 * (0 is BERTH_OK), writes its outputs only on success, and on failure leaves a one-line
 * message in err (err may be NULL; the message is truncated to err_cap). Messages say what
 * was wrong and where (a 1-based character position in a literal, or the file and byte
 * offset in a .npy file) but do not repeat the whole argument: the caller adds context such
 * as "call 2, argument 1". */
#ifndef BERTH_TOOLS_TENSOR_IO_H
#define BERTH_TOOLS_TENSOR_IO_H

#include "berth/status.h"
#include "berth/types.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The cap on every input file the tool reads (programs: .bir, .berth, .onnx; .npy inputs):
 * a bigger file (or a stream such as /dev/zero that goes on past it) is refused with a
 * message naming the limit, before more than the limit is held in memory. The option
 * --max-input-size SIZE of every command sets it (up to BERTH_TOOL_MAX_INPUT_CAP). */
#define BERTH_TOOL_MAX_INPUT_DEFAULT ((size_t)256 << 20)
#define BERTH_TOOL_MAX_INPUT_CAP ((uint64_t)1 << 40)
extern size_t berth_tool_max_input_bytes;

/* A tensor owned by the tool. data is malloc'd and never NULL after a successful parse or
 * read, even for an empty tensor; it holds berth_type_bytes(&type) bytes. */
typedef struct berth_host_tensor {
  berth_type_t type;
  void *data;
} berth_host_tensor_t;

/* Frees t->data and sets it to NULL. t may be NULL; freeing twice is harmless. */
void berth_host_tensor_free(berth_host_tensor_t *t);

/* Parses one input argument into *out (the caller frees it with berth_host_tensor_free):
 *   - a literal DTYPE[DIMS]:V,V,...  e.g. "f64[1]:6.0", "i64[]:16000", "f32[2,2]:1,2,3,4",
 *     "bool[]:1", "f32[0]:" (empty). DTYPE is bool i8 u8 i16 u16 i32 u32 i64 u64 f32 f64;
 *     DIMS are non-negative integers separated by commas (none for a scalar). Floats accept
 *     what strtod accepts in the C locale, including nan, inf, -inf; out-of-range floats
 *     (1e999) are an error, underflow rounds to zero. Integers are decimal ([+-]digits),
 *     parsed exactly and range-checked for the dtype. Bools are true/false/1/0 (also
 *     True/False). The number of values must equal the shape's element count.
 *   - "@PATH" reads the NumPy file PATH (see berth_npy_read).
 * Errors: BERTH_ERR_INVALID_ARGUMENT (malformed literal, wrong count, value out of range
 * for the dtype), BERTH_ERR_OUT_OF_RANGE (shape over berth's caps), the errors of
 * berth_npy_read, BERTH_ERR_RESOURCE_EXHAUSTED (out of memory). */
berth_status_t berth_tensor_parse_arg(const char *arg, berth_host_tensor_t *out, char *err,
                                      size_t err_cap);

/* Splits a --call string into its arguments, separated by runs of whitespace (space, tab,
 * CR, LF); no quoting. "" or "  " gives zero arguments. *argv_out is one malloc'd block
 * (the pointer array, NULL-terminated, followed by the strings): release it with
 * berth_call_free (or free). Errors: BERTH_ERR_INVALID_ARGUMENT (call is NULL),
 * BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_call_split(const char *call, char ***argv_out, int *argc_out, char *err,
                                size_t err_cap);
void berth_call_free(char **argv);

/* Reads a NumPy .npy file (format versions 1.0, 2.0, 3.0; little-endian, C order; dtypes
 * <f4 <f8 <i1 <i2 <i4 <i8 <u1 <u2 <u4 <u8 |b1 |i1 |u1) into *out. The file is untrusted:
 * the header is parsed by a strict bounded parser (its length is capped at 1 MiB), the
 * shape must be within berth's caps, and the data must be exactly as long as the shape
 * needs, and no more than berth_tool_max_input_bytes. Bool bytes other than 0 are read as 1
 * (true).
 * Errors (the message names the file and, for header errors, the byte offset):
 * BERTH_ERR_INVALID_ARGUMENT (cannot open or read), BERTH_ERR_CORRUPT_DATA (bad magic,
 * malformed header, truncated file, data length that does not match the shape),
 * BERTH_ERR_UNIMPLEMENTED (fortran_order True, big-endian, object, structured or other
 * unsupported dtypes, unknown format version), BERTH_ERR_OUT_OF_RANGE (rank over
 * BERTH_MAX_RANK, shape over berth's size caps or data over the input limit),
 * BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_npy_read(const char *path, berth_host_tensor_t *out, char *err,
                              size_t err_cap);

/* Writes a dense row-major tensor as a .npy file (format 1.0, C order, little-endian, header
 * padded so the data starts at a multiple of 64 bytes) through berth_outfile
 * (berth/outfile.h): PATH is replaced only by a complete file, or left as it was.
 * data may be NULL only for an empty tensor. Errors: BERTH_ERR_INVALID_ARGUMENT (invalid
 * type, NULL data, cannot create or write: "cannot write PATH: reason"),
 * BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_npy_write(const char *path, const berth_type_t *type, const void *data,
                               char *err, size_t err_cap);

/* The same bytes written to an open stream f (path names it in messages); write errors that
 * stdio reports later (at flush or close) are the caller's to check. */
berth_status_t berth_npy_write_stream(FILE *f, const char *path, const berth_type_t *type,
                                      const void *data, char *err, size_t err_cap);

/* Prints a tensor on one line without a newline: its type, a space, then the values in
 * nested brackets, one level per dim: "f64[1] [6]", "f32[2,2] [[1, 2], [3, 4]]",
 * "i64[] 16000", "bool[2] [true, false]". Floats are printed as the shortest decimal that
 * reads back to the same value (f32 as f32), like Python's repr but without a trailing
 * ".0"; nan, inf, -inf as such. A tensor of more than 1000 elements shows only the first
 * and last 3 entries of each longer dim, with "..." between. */
void berth_tensor_print(FILE *f, const berth_type_t *type, const void *data);

/* Prints one tensor as JSON on one line without a newline:
 *   {"dtype":"f64","shape":[2],"data":[6.0,-0.5]}
 * data is the flat row-major list of every element (a scalar has one). Floats are the
 * shortest decimal that reads back exactly (always with a '.' or an exponent); non-finite
 * floats are the strings "nan", "inf", "-inf"; integers are exact; bools are true/false. */
void berth_tensor_print_json(FILE *f, const berth_type_t *type, const void *data);

/* Formats one float as berth_tensor_print does (json false) or as JSON (json true, where
 * non-finite values come out quoted). is_f32 picks the shortest form that round-trips as
 * an f32. buf needs at least BERTH_FLOAT_STR_CAP bytes. Returns buf. */
#define BERTH_FLOAT_STR_CAP 48
char *berth_float_format(char *buf, double v, bool is_f32, bool json);

#endif
