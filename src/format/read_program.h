/* The program file loader (runtime side: no malloc, no stdio). The layout is documented in
 * docs/format.md; the constants below are its normative numbers, shared with the writer.
 *
 *   berth_format_sizes_t sz;
 *   if (berth_format_read_size(bytes, len, &sz, &diag) != BERTH_OK) reject (msg says why);
 *   void *mem = ...sz.program_bytes..., *scratch = ...sz.scratch_bytes...;
 *   const berth_format_program_t *prog;
 *   if (berth_format_read(bytes, len, mem, sz.program_bytes, scratch, sz.scratch_bytes, 0,
 *                         &prog, &diag) != BERTH_OK) reject;
 *   berth_exec_run(&prog->exec, ...);     // trusted from here on
 *
 * The file is untrusted. When the header carries a checksum (BERTH_FORMAT_FLAG_CHECKSUM, the
 * writer's default), the CRC-32C of the whole file is compared first, so a damaged file is
 * refused as damaged; files without one are read too. Every byte must belong to a section
 * or be the zero padding that aligns the next one, and the file must end with its last
 * section. The loader checks everything once, then the interpreter trusts it:
 * the header (magic, version, flags, file size), the section table (known ids, each once,
 * inside the file, aligned, no two overlapping), every count against the caps below, that
 * each method's slice of every table is contiguous and in order, every string reference
 * (inside the string table, NUL-terminated, at most BERTH_FORMAT_MAX_NAME bytes), every
 * index (values, pools, registers, operands, attributes, inputs and outputs, jump targets),
 * dtype, rank and dims (<= BERTH_MAX_DIM) and byte size (<= BERTH_MAX_TENSOR_BYTES, with
 * overflow-checked arithmetic), every storage offset inside its arena pool, the constant
 * section or the state region and aligned to the element size (arena offsets also to the
 * method's alignment), window parents (a non-windowed value, so windows cannot chain or
 * cycle), opcodes, ops and their input/output/attribute counts, loop trip counts
 * (1..BERTH_MAX_DIM), that fields an instruction or value does not use are zero, and that
 * every instruction reachable from the entry can still reach a return (a jump cycle with no
 * exit is rejected; loops whose exit depends on data are bounded by the caller's step
 * limit). Then it runs the verifier (program/verify.h) on every method unless
 * BERTH_FORMAT_READ_NO_VERIFY is given (host tools such as `berth dis` only).
 *
 * Errors: BERTH_ERR_CORRUPT_DATA (malformed), BERTH_ERR_OUT_OF_RANGE (a count or size
 * beyond a cap), BERTH_ERR_UNIMPLEMENTED (another format version, or a file written by a
 * newer berth MAJOR.MINOR than this one: berth/version.h), BERTH_ERR_VERIFY_FAILED
 * (the plan breaks the memory rules), BERTH_ERR_INVALID_ARGUMENT (NULL arguments, bytes not
 * 8-byte aligned), BERTH_ERR_RESOURCE_EXHAUSTED (mem or scratch too small). Every message
 * says what is wrong and where: the section and the byte offset in the file, and the method,
 * value or instruction. Verifier messages are prefixed with "verifier: ". */
#ifndef BERTH_FORMAT_READ_PROGRAM_H
#define BERTH_FORMAT_READ_PROGRAM_H

#include "berth/status.h"
#include "berth/version.h"
#include "format/format_layout.h"
#include "program/exec_program.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- layout (version 1) ------------------------------------------------------------- */

#define BERTH_FORMAT_MAGIC "BERTH\0" /* 6 bytes, then a u16 version */
#define BERTH_FORMAT_MAGIC_SIZE 6
#define BERTH_FORMAT_VERSION BERTH_PROGRAM_FORMAT_VERSION /* berth/version.h */
#define BERTH_FORMAT_HEADER_SIZE 64 /* its fields' offsets: format/format_layout.h */
#define BERTH_FORMAT_SECTION_ENTRY_SIZE 24
#define BERTH_FORMAT_METHOD_SIZE 80
#define BERTH_FORMAT_VALUE_SIZE 104
#define BERTH_FORMAT_INSTR_SIZE 32
#define BERTH_FORMAT_ATTR_SIZE 88
#define BERTH_FORMAT_IO_SIZE 8
#define BERTH_FORMAT_BOUND_SIZE 16 /* u32 method, u32 output, u32 axis, i32 extent value id */
#define BERTH_FORMAT_HOIST_SIZE 16 /* per method: u32 n_once, u32 0, u64 hoist region bytes */
#define BERTH_FORMAT_IR_HEADER_SIZE 56
/* The IR section's budget unit (the u32 at offset 44): the i64 at 24 is milliseconds or
 * deterministic work units (berth_plan_options_t.budget_work). */
#define BERTH_FORMAT_IR_BUDGET_MS 0u
#define BERTH_FORMAT_IR_BUDGET_WORK 1u
/* The ir_ref section (docs/format.md): its header, one record per constant or buffer of the
 * IR, and where a record's bytes are. */
#define BERTH_FORMAT_IR_REF_HEADER_SIZE 64
#define BERTH_FORMAT_IR_GLOBAL_SIZE 80
#define BERTH_FORMAT_IR_MAX_GLOBALS (1u << 20)
#define BERTH_FORMAT_IR_IN_CONSTANTS 0u /* the bytes are in the constants section */
#define BERTH_FORMAT_IR_INLINE 1u       /* the bytes follow the records in this section */
#define BERTH_FORMAT_SECTION_ALIGN 8
#define BERTH_FORMAT_CONST_ALIGN 64 /* constants are used in place: align them in the file */
#define BERTH_FORMAT_STATE_ALIGN 16

/* Header flags. */
#define BERTH_FORMAT_FLAG_ALLOC_INPUTS 1u
#define BERTH_FORMAT_FLAG_ALLOC_OUTPUTS 2u
#define BERTH_FORMAT_FLAG_CHECKSUM 4u /* header bytes 32..35 (BERTH_FORMAT_CHECKSUM_AT) hold the file's CRC-32C */

typedef enum berth_format_section {
  BERTH_SECTION_STRINGS = 1,   /* NUL-terminated names; references are byte offsets */
  BERTH_SECTION_METHODS = 2,   /* one 80-byte record per method */
  BERTH_SECTION_VALUES = 3,    /* 104-byte value records, method by method */
  BERTH_SECTION_INSTRS = 4,    /* 32-byte instruction records */
  BERTH_SECTION_OPERANDS = 5,  /* i32 value ids */
  BERTH_SECTION_ATTRS = 6,     /* 88-byte attribute values */
  BERTH_SECTION_IO = 7,        /* 8-byte (value id, name) entries: inputs then outputs */
  BERTH_SECTION_POOLS = 8,     /* u64 arena bytes per pool */
  BERTH_SECTION_STATE = 9,     /* initial state bytes */
  BERTH_SECTION_CONSTANTS = 10, /* the constant blob, 64-byte aligned in the file */
  BERTH_SECTION_IR = 11,       /* optional: planner options and canonical IR text */
  BERTH_SECTION_BOUNDS = 12,   /* optional: 16-byte records, outputs with a run-time extent */
  BERTH_SECTION_IR_REF = 13,   /* optional, instead of ir: planner options, the IR text without its
                                  constants' data, and where each constant's bytes are */
  BERTH_SECTION_HOIST = 14,    /* optional: one 16-byte record per method, its once-stream and
                                  hoist region (when some method has them) */
  BERTH_SECTION_MAX = 14
} berth_format_section_t;

/* ---- caps on what a file may declare (BERTH_ERR_OUT_OF_RANGE beyond them) --------------- */

#define BERTH_FORMAT_MAX_SECTIONS 16
#define BERTH_FORMAT_MAX_METHODS 256
#define BERTH_FORMAT_MAX_VALUES (1 << 20)    /* per method */
#define BERTH_FORMAT_MAX_INSTRS (1 << 20)    /* per method */
#define BERTH_FORMAT_MAX_OPERANDS (1 << 22)  /* per method */
#define BERTH_FORMAT_MAX_ATTRS (1 << 20)     /* per method */
#define BERTH_FORMAT_MAX_IO (1 << 16)        /* inputs, and outputs, per method */
#define BERTH_FORMAT_MAX_REGS 1024           /* loop registers (nesting) per method */
#define BERTH_FORMAT_MAX_POOLS 16            /* arena pools per method */
#define BERTH_FORMAT_MAX_ALIGNMENT 4096
#define BERTH_FORMAT_MAX_ARENA_BYTES ((uint64_t)1 << 40) /* per pool, and the state region */
#define BERTH_FORMAT_MAX_NAME 1024           /* bytes of one name, without the NUL */

/* ---- the decoded program -------------------------------------------------------------- */

typedef struct berth_format_method {
  const char *const *input_names;  /* n_inputs names of the method's parameters */
  const char *const *output_names; /* n_outputs names of its results */
} berth_format_method_t;

typedef struct berth_format_program {
  berth_exec_program_t exec;             /* verified; strings, constants and state
                                            initial values point into the file bytes */
  const berth_format_method_t *methods;  /* parallel to exec.methods */
  const uint8_t *ir;                     /* the optional IR section (NULL when absent) */
  uint64_t ir_size;
  uint32_t ir_section;                   /* which: BERTH_SECTION_IR (text, files before
                                            ir_ref), BERTH_SECTION_IR_REF, or 0 */
  uint32_t version;
  uint16_t writer_version[3];            /* major, minor, patch; 0.0.0: not recorded */
  uint64_t file_size;
  bool verified;                         /* false only with BERTH_FORMAT_READ_NO_VERIFY */
} berth_format_program_t;

typedef struct berth_format_sizes {
  size_t program_bytes; /* caller memory holding the decoded program for its whole life */
  size_t scratch_bytes; /* caller memory used only during berth_format_read */
} berth_format_sizes_t;

/* Skips the verifier (structural checks still run, so the result is safe to print but
 * NOT to execute). For disassemblers. */
#define BERTH_FORMAT_READ_NO_VERIFY 1u
/* The caller has just checked these same bytes' checksum (berth_format_read_size in the same
 * load, as berth_program_load does): one pass over the file per load, not two. */
#define BERTH_FORMAT_READ_CHECKSUM_CHECKED 2u

/* True if bytes start with the program file magic (len >= 6). */
bool berth_format_is_program(const void *bytes, size_t len);

/* Checks the header, the section table and the method records, and computes the memory
 * berth_format_read needs. *out is written only on success. */
berth_status_t berth_format_read_size(const void *bytes, size_t len, berth_format_sizes_t *out,
                                      berth_diag_t *diag);

/* Decodes and checks the whole file into mem (mem_size >= program_bytes; any alignment) and
 * verifies it, using scratch (scratch_size >= scratch_bytes; any alignment; clobbered). bytes
 * must be 8-byte aligned and must stay alive and unchanged while the program is used: names,
 * constants, state initial values and the IR section are used in place. *out points into
 * mem and is written only on success. */
berth_status_t berth_format_read(const void *bytes, size_t len, void *mem, size_t mem_size, void *scratch,
                                 size_t scratch_size, uint32_t flags, const berth_format_program_t **out,
                                 berth_diag_t *diag);

/* The CRC-32C of a whole program file with the checksum field (4 bytes at
 * BERTH_FORMAT_CHECKSUM_AT) taken as zero: what the writer stores there when it sets
 * BERTH_FORMAT_FLAG_CHECKSUM, and what the loader compares it with. */
uint32_t berth_format_checksum(const void *bytes, size_t len);

/* ---- the ir_ref section, for the compiler side's codec (writer/ir_section.h) ------------ */

typedef struct berth_format_ir_ref {
  const uint8_t *sec; /* the section's bytes */
  uint64_t size;
  const char *pools, *text; /* pools_len and text_len bytes, not NUL-terminated */
  uint32_t pools_len, n_globals;
  uint64_t text_len;
  uint64_t records; /* offset of record 0 within the section */
} berth_format_ir_ref_t;

typedef struct berth_format_ir_global {
  uint32_t where;      /* BERTH_FORMAT_IR_IN_CONSTANTS or BERTH_FORMAT_IR_INLINE */
  bool is_state;       /* a buffer (its initial value) rather than a constant */
  berth_type_t type;
  uint64_t offset;     /* within the constants section, or within the ir_ref section */
  uint64_t bytes;      /* numel * element size */
} berth_format_ir_global_t;

/* Checks an ir_ref section of size bytes at byte file_off of a file whose constants section
 * has constants_size bytes: its header, every record (a dtype, a rank, dims and a byte size
 * within the caps, unused fields zero, bytes inside the constants section or exactly where
 * the next inline payload starts) and that the payloads and zero padding end the section.
 * The loader runs it on every file that has the section; the codec again before it decodes.
 * BERTH_ERR_CORRUPT_DATA or BERTH_ERR_OUT_OF_RANGE with the byte offset in the file. */
berth_status_t berth_format_ir_ref_open(const uint8_t *sec, uint64_t size, uint64_t file_off, uint64_t constants_size,
                                        berth_format_ir_ref_t *out, berth_diag_t *diag);

/* Record k (< ir->n_globals) of a section that berth_format_ir_ref_open accepted. */
void berth_format_ir_ref_global(const berth_format_ir_ref_t *ir, uint32_t k, berth_format_ir_global_t *out);

/* Name of a section id ("strings", "methods", ...; "section <id>" style "?" if unknown). */
const char *berth_format_section_name(uint32_t id);

#ifdef __cplusplus
}
#endif
#endif
