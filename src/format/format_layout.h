/* Byte offsets of the fields of a program file's header and records (docs/format.md; the
 * record sizes are in read_program.h, which includes this). One table for everything that
 * reads or patches file bytes by offset: the loader, the IR section's codec, and the tests
 * that corrupt files on purpose (tests/test_corrupt.c), so a field moves in one place. The
 * writer emits each record field by field in this order; the round trips of
 * tests/test_format.c (decoded program == compiled program, field by field) tie its order to
 * these offsets. Offsets are from the start of the file (header) or of the record. */
#ifndef BERTH_FORMAT_FORMAT_LAYOUT_H
#define BERTH_FORMAT_FORMAT_LAYOUT_H

/* ---- header (BERTH_FORMAT_HEADER_SIZE bytes) -------------------------------------------- */
#define BERTH_FORMAT_HDR_MAGIC 0           /* u8[6] "BERTH\0" */
#define BERTH_FORMAT_HDR_VERSION 6         /* u16 format version */
#define BERTH_FORMAT_HDR_HEADER_SIZE 8     /* u32 */
#define BERTH_FORMAT_HDR_FLAGS 12          /* u32 BERTH_FORMAT_FLAG_* */
#define BERTH_FORMAT_HDR_FILE_SIZE 16      /* u64 */
#define BERTH_FORMAT_HDR_N_SECTIONS 24     /* u32 */
#define BERTH_FORMAT_HDR_TABLE 28          /* u32 offset of the section table */
#define BERTH_FORMAT_CHECKSUM_AT 32        /* u32 CRC-32C, computed with these 4 bytes taken as 0 */
#define BERTH_FORMAT_HDR_WRITER_VERSION 36 /* u16 major, minor, patch of the berth that wrote it */
#define BERTH_FORMAT_HDR_RESERVED 42       /* from here to the end of the header: zero */

/* ---- section table entry (BERTH_FORMAT_SECTION_ENTRY_SIZE bytes, from byte 64) --------- */
#define BERTH_FORMAT_ENTRY_ID 0       /* u32 section id */
#define BERTH_FORMAT_ENTRY_RESERVED 4 /* u32, 0 */
#define BERTH_FORMAT_ENTRY_OFFSET 8   /* u64 */
#define BERTH_FORMAT_ENTRY_BYTES 16   /* u64 size of the section */

/* ---- method record (BERTH_FORMAT_METHOD_SIZE bytes): sixteen u32, then two u64 --------- */
#define BERTH_FORMAT_METHOD_NAME 0
#define BERTH_FORMAT_METHOD_ALIGNMENT 4
#define BERTH_FORMAT_METHOD_N_REGS 8
#define BERTH_FORMAT_METHOD_N_POOLS 12
#define BERTH_FORMAT_METHOD_FIRST_POOL 16
#define BERTH_FORMAT_METHOD_N_VALUES 20
#define BERTH_FORMAT_METHOD_FIRST_VALUE 24
#define BERTH_FORMAT_METHOD_N_INSTRS 28
#define BERTH_FORMAT_METHOD_FIRST_INSTR 32
#define BERTH_FORMAT_METHOD_N_OPERANDS 36
#define BERTH_FORMAT_METHOD_FIRST_OPERAND 40
#define BERTH_FORMAT_METHOD_N_ATTRS 44
#define BERTH_FORMAT_METHOD_FIRST_ATTR 48
#define BERTH_FORMAT_METHOD_N_INPUTS 52
#define BERTH_FORMAT_METHOD_N_OUTPUTS 56
#define BERTH_FORMAT_METHOD_FIRST_IO 60
#define BERTH_FORMAT_METHOD_STATE_OFFSET 64 /* u64 within the state section */
#define BERTH_FORMAT_METHOD_STATE_BYTES 72  /* u64 */

/* ---- hoist record (BERTH_FORMAT_HOIST_SIZE bytes, one per method, in method order) ------ */
#define BERTH_FORMAT_HOIST_N_ONCE 0   /* u32 the once-stream: the method's first n_once instructions */
#define BERTH_FORMAT_HOIST_RESERVED 4 /* u32, 0 */
#define BERTH_FORMAT_HOIST_BYTES 8    /* u64 bytes of the hoist region */

/* ---- value record (BERTH_FORMAT_VALUE_SIZE bytes) --------------------------------------- */
#define BERTH_FORMAT_VALUE_NAME 0           /* u32 */
#define BERTH_FORMAT_VALUE_STORAGE 4        /* u8 berth_storage_class_t */
#define BERTH_FORMAT_VALUE_DTYPE 5          /* u8 */
#define BERTH_FORMAT_VALUE_RANK 6           /* u8 */
#define BERTH_FORMAT_VALUE_RESERVED 7       /* u8, 0 */
#define BERTH_FORMAT_VALUE_POOL 8           /* u32 */
#define BERTH_FORMAT_VALUE_INDEX 12         /* u32 */
#define BERTH_FORMAT_VALUE_OFFSET 16        /* u64 */
#define BERTH_FORMAT_VALUE_WINDOW_PARENT 24 /* i32 */
#define BERTH_FORMAT_VALUE_WINDOW_REG 28    /* i32 */
#define BERTH_FORMAT_VALUE_WINDOW_STRIDE 32 /* i64 */
#define BERTH_FORMAT_VALUE_DIMS 40          /* i64[BERTH_MAX_RANK] */
#define BERTH_FORMAT_VALUE_DIM(k) (BERTH_FORMAT_VALUE_DIMS + 8 * (k))

/* ---- instruction record (BERTH_FORMAT_INSTR_SIZE bytes) --------------------------------- */
#define BERTH_FORMAT_INSTR_OPCODE 0   /* u8 */
#define BERTH_FORMAT_INSTR_N_SCRATCH 1 /* u8: 0, or 1 on a kernel (its scratch operand follows the outputs) */
#define BERTH_FORMAT_INSTR_OP 2       /* u16 */
#define BERTH_FORMAT_INSTR_N_IN 4     /* u16 */
#define BERTH_FORMAT_INSTR_N_OUT 6    /* u16 */
#define BERTH_FORMAT_INSTR_OPERANDS 8 /* u32 first operand */
#define BERTH_FORMAT_INSTR_ATTRS 12   /* u32 first attribute */
#define BERTH_FORMAT_INSTR_TARGET 16  /* i32 */
#define BERTH_FORMAT_INSTR_REG 20     /* i32 */
#define BERTH_FORMAT_INSTR_COUNT 24   /* i64 trip count (loop_next) */
#define BERTH_FORMAT_INSTR_VIEW_OFFSET 24 /* i64 the same field: a view's byte offset inside its source */
#define BERTH_MAX_VIEW_OFFSET ((int64_t)1 << 62) /* beyond any storage a file can describe */

/* ---- attribute record (BERTH_FORMAT_ATTR_SIZE bytes) ------------------------------------ */
#define BERTH_FORMAT_ATTR_I 0     /* i64 */
#define BERTH_FORMAT_ATTR_F 8     /* f64 bits */
#define BERTH_FORMAT_ATTR_N 16    /* i32 */
#define BERTH_FORMAT_ATTR_S 20    /* u32 name of a string attribute */
#define BERTH_FORMAT_ATTR_INTS 24 /* i64[BERTH_MAX_ATTR_INTS] */

/* ---- io entry (BERTH_FORMAT_IO_SIZE bytes) ---------------------------------------------- */
#define BERTH_FORMAT_IO_VALUE 0 /* i32 value id */
#define BERTH_FORMAT_IO_NAME 4  /* u32 */

/* ---- bound record (BERTH_FORMAT_BOUND_SIZE bytes; section bounds) ---------------------- */
#define BERTH_FORMAT_BOUND_METHOD 0 /* u32 */
#define BERTH_FORMAT_BOUND_OUTPUT 4 /* u32 */
#define BERTH_FORMAT_BOUND_AXIS 8   /* u32 */
#define BERTH_FORMAT_BOUND_EXTENT 12 /* i32 value id of the extent */

/* ---- the IR section's header (BERTH_FORMAT_IR_HEADER_SIZE bytes), then the pool rules
 * (pools_len bytes) and the IR text (text_len bytes) ------------------------------------- */
enum {
  BERTH_IR_SECTION_ALGO = 0,           /* u32 berth_alloc_algo_t */
  BERTH_IR_SECTION_STRATEGY = 4,       /* u32 berth_strategy_t */
  BERTH_IR_SECTION_ALIGNMENT = 8,      /* u32 */
  BERTH_IR_SECTION_ALLOC_INPUTS = 12,  /* i32 -1, 0 or 1 */
  BERTH_IR_SECTION_ALLOC_OUTPUTS = 16, /* i32 -1, 0 or 1 */
  BERTH_IR_SECTION_FIT = 20,           /* u32 */
  BERTH_IR_SECTION_BUDGET = 24,        /* i64, in BUDGET_UNIT's unit */
  BERTH_IR_SECTION_SEED = 32,          /* u64 */
  BERTH_IR_SECTION_POOLS_LEN = 40,     /* u32 */
  BERTH_IR_SECTION_BUDGET_UNIT = 44,   /* u32 BERTH_FORMAT_IR_BUDGET_MS or _WORK (read_program.h) */
  BERTH_IR_SECTION_TEXT_LEN = 48,      /* u64 */
};

/* ---- the ir_ref section (id 13): the IR section's header fields above at the same offsets,
 * then n_globals (BERTH_FORMAT_IR_REF_HEADER_SIZE bytes in all); the pool rules, the IR text
 * (every constant and buffer printed empty), zero padding to a multiple of 8, n_globals
 * records of BERTH_FORMAT_IR_GLOBAL_SIZE bytes, then the inline payloads, each at the next
 * multiple of 8 (zero padding) ----------------------------------------------------------- */
enum {
  BERTH_IR_REF_N_GLOBALS = 56, /* u32, <= BERTH_FORMAT_IR_MAX_GLOBALS */
  BERTH_IR_REF_RESERVED = 60,  /* u32, 0 */
};
enum {
  BERTH_IR_GLOBAL_WHERE = 0,    /* u8 BERTH_FORMAT_IR_IN_CONSTANTS or BERTH_FORMAT_IR_INLINE */
  BERTH_IR_GLOBAL_DTYPE = 1,    /* u8 */
  BERTH_IR_GLOBAL_RANK = 2,     /* u8 0..8 */
  BERTH_IR_GLOBAL_IS_STATE = 3, /* u8 0 constant, 1 buffer */
  BERTH_IR_GLOBAL_RESERVED = 4, /* u32, 0 */
  BERTH_IR_GLOBAL_OFFSET = 8,   /* u64 within the constants section, or within this section */
  BERTH_IR_GLOBAL_DIMS = 16,    /* i64[8]: dims[k] for k < rank, the rest 0 */
};

#endif
