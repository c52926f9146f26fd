/* berth's embeddable runtime: load a compiled program (.berth) from caller-owned bytes and
 * run its methods in caller-provided memory. No heap, no stdio, no copy of the program.
 *
 *   // 1. the file's bytes, 8-byte aligned, alive and unchanged while the program is used
 *   berth_program_sizes_t sz;
 *   if (berth_program_query(bytes, len, &sz, &diag)) fail(msg);
 *   void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
 *   berth_program_t *prog;
 *   if (berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes,
 *                          &prog, &diag)) fail(msg);   // checks and verifies everything once
 *   free(scratch);                                     // only needed while loading
 *
 *   // 2. a method: its handle, state and arenas in one caller block
 *   int32_t m = berth_program_method_find(prog, "forward");
 *   size_t need = berth_method_memory_size(prog, m);
 *   void *mmem = malloc(need);
 *   berth_method_t *fwd;
 *   if (berth_method_init(prog, m, mmem, need, NULL, 0, &fwd, &diag)) fail(msg);  // copies state in
 *
 *   // 3. calls: bind inputs (and output buffers if outputs are not planned), execute, read
 *   double x = 6.0, out[1];
 *   berth_method_set_input(fwd, 0, &x, sizeof x, &diag);
 *   if (!berth_program_outputs_planned(prog)) berth_method_set_output(fwd, 0, out, sizeof out, &diag);
 *   if (berth_method_execute(fwd, &diag)) fail(msg);   // no allocation, bounded steps
 *   const void *r; size_t rbytes;
 *   berth_method_output(fwd, 0, &r, &rbytes, &diag);   // planned storage or the caller's buffer
 *   berth_method_reset(fwd);                           // state back to its initial values
 *
 * Ownership: the caller owns the program bytes and every memory block; handles are laid out
 * inside those blocks and need no destroy (free the blocks when done, program last). A
 * method handle is not thread-safe; two handles of one program may run in parallel. Every
 * fallible function returns berth_status_t (berth/status.h) with a message in diag (may be
 * NULL) and writes its outputs only on success. */
#ifndef BERTH_RUNTIME_H
#define BERTH_RUNTIME_H

#include "berth/status.h"
#include "berth/types.h"
#include "berth/version.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct berth_program berth_program_t;
typedef struct berth_method berth_method_t;

/* The step limit: how many loop iterations one execute may run before it fails with
 * BERTH_ERR_OUT_OF_RANGE ("more than N loop iterations in one call"), so that a loop that
 * never exits ends instead of hanging. A step is one finished iteration of any loop: a
 * while_loop (ONNX Loop) body, a scan or map step; nested loops count every inner
 * iteration. Code outside loops takes no steps. The reference interpreter counts the same
 * steps with the same limit (berth_ref_set_max_steps), and the command-line tool's
 * `--max-steps N` sets both. This default allows 10^9 iterations. */
#define BERTH_RUNTIME_DEFAULT_MAX_STEPS 1000000000ull

/* ---- loading --------------------------------------------------------------------------- */

typedef struct berth_program_sizes {
  size_t program_bytes; /* memory holding the loaded program for its whole life */
  size_t scratch_bytes; /* memory needed only during berth_program_load */
} berth_program_sizes_t;

/* True if the bytes start with the .berth magic ("BERTH\0"). */
bool berth_program_is_berth(const void *bytes, size_t len);

/* Checks the header (and the checksum when the file has one), the section table and the
 * counts of a program file and says how much memory berth_program_load needs. Errors:
 * BERTH_ERR_CORRUPT_DATA, BERTH_ERR_OUT_OF_RANGE (beyond a cap), BERTH_ERR_UNIMPLEMENTED
 * (another format version, or written by a newer berth MAJOR.MINOR than this runtime: see
 * berth_program_writer_version). */
berth_status_t berth_program_query(const void *bytes, size_t len, berth_program_sizes_t *sizes, berth_diag_t *diag);

/* Loads a program without copying it: checks the file's CRC-32C when it has one (what
 * `berth compile` writes by default; docs/format.md), every field of the file once and that
 * every byte belongs to a section, then runs the memory-plan verifier. bytes (len bytes,
 * 8-byte aligned: constants are used in place) must outlive the program. mem holds the
 * program (mem_size >= program_bytes, any alignment); scratch (scratch_size >=
 * scratch_bytes) is used only during the call and may then be reused. Errors:
 * BERTH_ERR_CORRUPT_DATA and BERTH_ERR_OUT_OF_RANGE (the file, with the section and byte
 * offset; a checksum mismatch says "the file is damaged"), BERTH_ERR_VERIFY_FAILED (the
 * plan breaks the memory rules), BERTH_ERR_UNIMPLEMENTED (as berth_program_query),
 * BERTH_ERR_INVALID_ARGUMENT (NULL,
 * misaligned bytes), BERTH_ERR_RESOURCE_EXHAUSTED (mem or scratch too small). */
berth_status_t berth_program_load(const void *bytes, size_t len, void *mem, size_t mem_size, void *scratch,
                                  size_t scratch_size, berth_program_t **out, berth_diag_t *diag);

/* ---- versions ----------------------------------------------------------------------------- */

/* "MAJOR.MINOR.PATCH" of the runtime library that is linked (berth/version.h's
 * BERTH_VERSION_STRING when headers and library match). Static string. */
const char *berth_runtime_version(void);

typedef struct berth_version_triple {
  uint16_t major, minor, patch;
} berth_version_triple_t;

/* The version of the berth that wrote the program file (header bytes 36..41). {0, 0, 0}
 * for a file written before berth recorded it (0.4.0 and older), or when p is not a
 * program. A loaded program's writer is never a newer MAJOR.MINOR than the runtime:
 * berth_program_query and berth_program_load refuse such a file with
 * BERTH_ERR_UNIMPLEMENTED ("program written by berth 0.5.0; this runtime is berth 0.4.0:
 * ..."); older writers of the same format version, and newer patch releases, load. */
berth_version_triple_t berth_program_writer_version(const berth_program_t *p);

/* ---- program queries (methods are numbered 0..count-1) ---------------------------------- */

int32_t berth_program_method_count(const berth_program_t *p);
/* The method's name; NULL if method is out of range. Points into the program bytes. */
const char *berth_program_method_name(const berth_program_t *p, int32_t method);
/* The index of the method called name, or -1. */
int32_t berth_program_method_find(const berth_program_t *p, const char *name);

/* Inputs planned: set_input copies into the method's arena. Not planned: set_input
 * records the caller's pointer and the method reads the caller's memory. */
bool berth_program_inputs_planned(const berth_program_t *p);
/* Outputs planned: results are read from the arena (berth_method_output). Not planned:
 * the caller binds an output buffer per result (berth_method_set_output) before execute. */
bool berth_program_outputs_planned(const berth_program_t *p);

typedef struct berth_tensor_info {
  const char *name;  /* the parameter's or result's name (points into the program bytes) */
  berth_type_t type; /* dtype and static shape */
  size_t bytes;      /* dense row-major size */
  /* -1, or (outputs only) the axis whose extent depends on data (a model compiled with
   * --dynamic-bound N): type.dims[bounded_axis] is then its capacity N, and each execute
   * sets the real extent (berth_method_output_shape). An output may have several such axes
   * (ImageDecoder's height and width): this is the first, and berth_method_output_shape
   * gives every real extent */
  int32_t bounded_axis;
} berth_tensor_info_t;

/* Counts of a method's inputs and outputs; -1 if method is out of range. */
int32_t berth_program_input_count(const berth_program_t *p, int32_t method);
int32_t berth_program_output_count(const berth_program_t *p, int32_t method);
/* Name, type and size of input i / output i. BERTH_ERR_INVALID_ARGUMENT if out of range. */
berth_status_t berth_program_input_info(const berth_program_t *p, int32_t method, int32_t i, berth_tensor_info_t *info);
berth_status_t berth_program_output_info(const berth_program_t *p, int32_t method, int32_t i, berth_tensor_info_t *info);

/* Arena pools of a method and their sizes in bytes (the plan's, fixed at compile time);
 * -1 / 0 when out of range. An arena must be aligned to berth_program_arena_alignment. */
int32_t berth_program_pool_count(const berth_program_t *p, int32_t method);
uint64_t berth_program_pool_size(const berth_program_t *p, int32_t method, int32_t pool);
size_t berth_program_arena_alignment(const berth_program_t *p, int32_t method);
/* Bytes of the method's persistent state (mutable buffers). */
uint64_t berth_program_state_size(const berth_program_t *p, int32_t method);
/* Bytes of the method's hoist region: values the program computes from its constants alone
 * (transposed or reshaped weights, say), once, when berth_method_init runs, and keeps for
 * every call. Part of berth_method_memory_size and berth_method_handle_size (carved from the
 * method's block like the state), never of an arena. 0 when nothing is hoisted. */
uint64_t berth_program_hoist_size(const berth_program_t *p, int32_t method);

/* ---- methods --------------------------------------------------------------------------- */

/* Memory for berth_method_init with arenas == NULL: the handle, the state and hoist regions and every
 * arena pool, carved from one block (any alignment). 0 if method is out of range or the
 * size does not fit in size_t. */
size_t berth_method_memory_size(const berth_program_t *p, int32_t method);
/* Memory for berth_method_init when the caller places the arenas itself (the handle and the
 * state and hoist regions only). */
size_t berth_method_handle_size(const berth_program_t *p, int32_t method);

/* One arena pool placed by the caller (berth_method_init): its bytes and how many there are. */
typedef struct berth_arena {
  void *data;   /* aligned to berth_program_arena_alignment; may be NULL only for a 0-byte pool */
  size_t bytes; /* at least berth_program_pool_size of its pool (more is allowed and unused) */
} berth_arena_t;

/* Lays a method handle out in mem, copies the state's initial values in and runs the
 * once-stream into the hoist region (berth_program_hoist_size). arenas: NULL
 * (n_arenas 0) to carve every pool from mem (mem_size >= berth_method_memory_size), or one
 * entry per pool, n_arenas == berth_program_pool_count, each at least that pool's size and
 * aligned to berth_program_arena_alignment (they may live in different memories), with
 * mem_size >= berth_method_handle_size. The arena sizes are checked here, so a short arena
 * fails at init rather than being written past at execute. The arenas and mem must stay
 * alive while the handle is used; nothing else may write them. Errors:
 * BERTH_ERR_INVALID_ARGUMENT (bad method, wrong arena count, NULL or misaligned arena),
 * BERTH_ERR_RESOURCE_EXHAUSTED (mem or an arena too small; diag names the pool and both
 * sizes). */
berth_status_t berth_method_init(const berth_program_t *p, int32_t method, void *mem, size_t mem_size,
                                 const berth_arena_t *arenas, int32_t n_arenas, berth_method_t **out,
                                 berth_diag_t *diag);

/* Binds input i for the next execute; bytes must equal the input's size. Planned inputs are
 * copied into the arena now and must be bound again before every execute (the arena is
 * reused while the method runs). Otherwise the pointer is kept until rebound, and data must
 * be aligned to the element size and stay unchanged until each execute returns (data may
 * be NULL only for a 0-byte input). Errors: BERTH_ERR_INVALID_ARGUMENT. */
berth_status_t berth_method_set_input(berth_method_t *m, int32_t i, const void *data, size_t bytes, berth_diag_t *diag);

/* Binds the caller's buffer for output j when outputs are not planned (bytes >= the
 * output's size, aligned to the element size); kept until rebound. Errors:
 * BERTH_ERR_INVALID_ARGUMENT (also when outputs are planned). */
berth_status_t berth_method_set_output(berth_method_t *m, int32_t j, void *data, size_t bytes, berth_diag_t *diag);

/* Sets the step limit of every later execute: loop iterations per call, as
 * BERTH_RUNTIME_DEFAULT_MAX_STEPS describes (0: that default). */
void berth_method_set_max_steps(berth_method_t *m, uint64_t max_steps);

/* Runs the method once: no heap allocation, no stdio. Needs every input bound (planned
 * inputs since the last execute) and, when outputs are not planned, every output buffer.
 * State carries over to the next execute. Errors: BERTH_ERR_INVALID_ARGUMENT (an unbound
 * input or output), BERTH_ERR_OUT_OF_RANGE (more than max_steps loop iterations),
 * BERTH_ERR_CHECK_FAILED (a run-time check of the program, an `assert`, was false; diag
 * names the method, the instruction, the checked value and the program's message, such as
 * "Loop 'L' needs more than --max-trip-count 8 iterations"). After an error the outputs
 * are unavailable and the state may be partly updated; berth_method_reset restores it. */
berth_status_t berth_method_execute(berth_method_t *m, berth_diag_t *diag);

/* The bytes of output j after a successful execute: in the arena when outputs are planned
 * (valid until the next set_input, execute or reset), else the caller's buffer. bytes may
 * be NULL; *bytes is the size of the output's real shape (berth_method_output_shape): for a
 * bounded output (berth_tensor_info_t.bounded_axis >= 0) the real tensor is packed densely at
 * the start of the output's storage, and *bytes covers only it (the rest is zero). Errors: BERTH_ERR_INVALID_ARGUMENT, with diag saying which: not a method handle,
 * data NULL, no output j, or no outputs to read (not executed yet, the last execute failed,
 * reset since, a planned input or an output buffer bound since). */
berth_status_t berth_method_output(const berth_method_t *m, int32_t j, const void **data, size_t *bytes,
                                   berth_diag_t *diag);

/* The shape of output j after the last successful execute: the static shape, except along
 * a bounded output's axis, where it is the extent this execute produced (0..capacity; a
 * call whose extent would exceed the capacity fails in berth_method_execute, naming the
 * node and the bound). Valid as long as berth_method_output's bytes. Errors:
 * BERTH_ERR_INVALID_ARGUMENT, with diag saying which, as berth_method_output does: not a
 * method handle, type NULL, no output j, or no outputs to read (not executed yet, the last
 * execute failed, reset since, a planned input or an output buffer bound since). *type is
 * written only on success. */
berth_status_t berth_method_output_shape(const berth_method_t *m, int32_t j, berth_type_t *type,
                                         berth_diag_t *diag);

/* Copies the state's initial values in again (as at init). Outputs become unavailable. */
void berth_method_reset(berth_method_t *m);

/* The bytes of the method's mutable buffer `name` (the buffer of a .bir `buffer @name`, or
 * the graph input IN of an ONNX state pair, --state IN=OUT), inside the method's state
 * region: read them between calls to see the state, or write them to set it before the
 * next execute (berth_method_reset restores the initial values). *data stays valid as long
 * as the handle. Errors: BERTH_ERR_INVALID_ARGUMENT (not a method handle, or the method has
 * no buffer of that name); outputs are written only on success. */
berth_status_t berth_method_state(berth_method_t *m, const char *name, void **data, size_t *bytes, berth_diag_t *diag);

/* ---- profiling --------------------------------------------------------------------------- */

/* An observer of every later execute of m: fn(ctx, instr, true) just before each kernel call
 * and each copy of the method's instruction stream, fn(ctx, instr, false) just after, with
 * the instruction's index in the stream (the numbering of `berth dis`; berth_method_instr_info
 * says what it runs). The runtime reads no clock: the observer does (`berth bench --profile`
 * reads CLOCK_MONOTONIC around each one, as ExecuTorch's event tracer and onnxruntime's
 * profiler time each node). It must not call back into m. fn NULL turns it off; off, an
 * execute pays one test per kernel call or copy. Ignored for a handle that is not one. */
typedef void (*berth_observer_fn)(void *ctx, int32_t instr, bool begin);
void berth_method_set_observer(berth_method_t *m, berth_observer_fn fn, void *ctx);

/* The length of m's instruction stream (instructions 0 .. count - 1); -1 for a bad handle. */
int32_t berth_method_instr_count(const berth_method_t *m);

/* What instruction instr of m runs, for a profile's labels: op is the kernel's op name
 * (berth/ops.h) or "copy", NULL for the stream's other instructions (jumps, loop registers,
 * renames, views: they move no data); out_name and out_type describe the value it writes (a
 * kernel's first output, a copy's destination). Errors: BERTH_ERR_INVALID_ARGUMENT (not a
 * method handle, info NULL, instr out of range); *info is written only on success. */
typedef struct berth_instr_info {
  const char *op;
  char out_name[96];
  berth_type_t out_type;
} berth_instr_info_t;
berth_status_t berth_method_instr_info(const berth_method_t *m, int32_t instr, berth_instr_info_t *info,
                                       berth_diag_t *diag);

/* ---- sanitizer (debugging) --------------------------------------------------------------- */

/* Memory for berth_method_set_sanitizer: an owner tag for every byte of the method's arenas,
 * state and caller input and output buffers (4 bytes each), plus per-value tables. 0 if
 * method is out of range; SIZE_MAX if the size does not fit in size_t. */
size_t berth_method_sanitizer_size(const berth_program_t *p, int32_t method);

/* Turns the sanitizer on for every later execute of m (DESIGN rule 9): each write tags the
 * bytes it touches with the value written, each read checks that its bytes still belong to
 * the value read, and at return every output and state value must own its bytes; the first
 * violation fails the execute with BERTH_ERR_VERIFY_FAILED naming both values, the bytes and
 * the instructions. Call it between executes (the state is taken as holding the method's
 * state values, as it does after init, reset and every successful execute). mem (any
 * alignment, mem_size >= berth_method_sanitizer_size) must stay alive while the handle is
 * used; NULL turns the sanitizer off. Slow: a few loads per byte touched. Errors:
 * BERTH_ERR_INVALID_ARGUMENT, BERTH_ERR_RESOURCE_EXHAUSTED (mem too small). */
berth_status_t berth_method_set_sanitizer(berth_method_t *m, void *mem, size_t mem_size, berth_diag_t *diag);

#ifdef __cplusplus
}
#endif
#endif
