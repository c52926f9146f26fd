/* The ir_ref section's structure (read_program.h, docs/format.md): checked by the loader on
 * every file that has one, and decoded by the compiler side's codec (writer/ir_section.c).
 * Runtime side: no malloc, no stdio. */
#include "format/read_program.h"

#include "base/byte_reader.h"
#include "base/checked.h"

#include <string.h>

typedef unsigned long long ull;

#define IRFAIL(st, fmt, ...) berth_fail(diag, st, "section ir_ref " fmt, __VA_ARGS__)

/* The record at at (within the section), its type checked like a value record's. */
static berth_status_t read_global(const uint8_t *p, uint64_t at_file, berth_format_ir_global_t *g, berth_diag_t *diag) {
  memset(g, 0, sizeof *g);
  uint32_t where = p[BERTH_IR_GLOBAL_WHERE], dtype = p[BERTH_IR_GLOBAL_DTYPE], rank = p[BERTH_IR_GLOBAL_RANK];
  uint32_t is_state = p[BERTH_IR_GLOBAL_IS_STATE], reserved = berth_load_le32(p + BERTH_IR_GLOBAL_RESERVED);
  if (where > BERTH_FORMAT_IR_INLINE || is_state > 1 || reserved)
    return IRFAIL(BERTH_ERR_CORRUPT_DATA, "(byte %llu): record: where %u, kind %u or reserved field %u out of range",
                  (ull)at_file, (unsigned)where, (unsigned)is_state, (unsigned)reserved);
  if (dtype >= BERTH_DTYPE_COUNT || rank > BERTH_MAX_RANK)
    return IRFAIL(BERTH_ERR_CORRUPT_DATA, "(byte %llu): record: dtype %u or rank %u out of range", (ull)at_file,
                  (unsigned)dtype, (unsigned)rank);
  g->where = where;
  g->is_state = is_state != 0;
  g->type.dtype = (berth_dtype_t)dtype;
  g->type.rank = (int32_t)rank;
  uint64_t numel = 1;
  for (uint32_t k = 0; k < BERTH_MAX_RANK; k++) {
    int64_t d = berth_u64_to_i64(berth_load_le64(p + BERTH_IR_GLOBAL_DIMS + 8 * k));
    if (k >= rank ? d != 0 : (d < 0 || d > BERTH_MAX_DIM))
      return IRFAIL(k >= rank ? BERTH_ERR_CORRUPT_DATA : BERTH_ERR_OUT_OF_RANGE, "(byte %llu): record: dim %u is %lld",
                    (ull)at_file, (unsigned)k, (long long)d);
    if (k >= rank) continue;
    g->type.dims[k] = d;
    if (!berth_mul_u64(numel, (uint64_t)d, &numel) || numel > (uint64_t)BERTH_MAX_TENSOR_BYTES)
      return IRFAIL(BERTH_ERR_OUT_OF_RANGE, "(byte %llu): record: the byte size exceeds the cap of 2^40", (ull)at_file);
  }
  if (!berth_mul_u64(numel, berth_dtype_size(g->type.dtype), &g->bytes) || g->bytes > (uint64_t)BERTH_MAX_TENSOR_BYTES)
    return IRFAIL(BERTH_ERR_OUT_OF_RANGE, "(byte %llu): record: the byte size exceeds the cap of 2^40", (ull)at_file);
  g->offset = berth_load_le64(p + BERTH_IR_GLOBAL_OFFSET);
  return BERTH_OK;
}

/* Zero bytes [from, to) of the section (padding). */
static berth_status_t check_zero(const uint8_t *sec, uint64_t from, uint64_t to, uint64_t file_off, berth_diag_t *diag) {
  for (uint64_t at = from; at < to; at++)
    if (sec[at]) return IRFAIL(BERTH_ERR_CORRUPT_DATA, "(byte %llu): padding byte is %u, not 0", (ull)(file_off + at), (unsigned)sec[at]);
  return BERTH_OK;
}

/* The header: lengths inside the section, a known budget unit, the reserved field zero. */
static berth_status_t open_header(const uint8_t *sec, uint64_t size, uint64_t file_off, berth_format_ir_ref_t *ir,
                                  berth_diag_t *diag) {
  if (size < BERTH_FORMAT_IR_REF_HEADER_SIZE)
    return IRFAIL(BERTH_ERR_CORRUPT_DATA, "(byte %llu): %llu bytes, shorter than its %d-byte header", (ull)file_off,
                  (ull)size, BERTH_FORMAT_IR_REF_HEADER_SIZE);
  uint32_t unit = berth_load_le32(sec + BERTH_IR_SECTION_BUDGET_UNIT);
  if (unit > BERTH_FORMAT_IR_BUDGET_WORK)
    return IRFAIL(BERTH_ERR_CORRUPT_DATA, "(byte %llu): budget unit %u is neither 0 (ms) nor 1 (work units)",
                  (ull)(file_off + BERTH_IR_SECTION_BUDGET_UNIT), (unsigned)unit);
  if (berth_load_le32(sec + BERTH_IR_REF_RESERVED))
    return IRFAIL(BERTH_ERR_CORRUPT_DATA, "(byte %llu): reserved field is not 0", (ull)(file_off + BERTH_IR_REF_RESERVED));
  ir->pools_len = berth_load_le32(sec + BERTH_IR_SECTION_POOLS_LEN);
  ir->text_len = berth_load_le64(sec + BERTH_IR_SECTION_TEXT_LEN);
  ir->n_globals = berth_load_le32(sec + BERTH_IR_REF_N_GLOBALS);
  if (ir->n_globals > BERTH_FORMAT_IR_MAX_GLOBALS)
    return IRFAIL(BERTH_ERR_OUT_OF_RANGE, "(byte %llu): %u constants and buffers exceed the cap of %u",
                  (ull)(file_off + BERTH_IR_REF_N_GLOBALS), (unsigned)ir->n_globals, (unsigned)BERTH_FORMAT_IR_MAX_GLOBALS);
  uint64_t text_end, rec_end;
  if (!berth_add_u64(BERTH_FORMAT_IR_REF_HEADER_SIZE + (uint64_t)ir->pools_len, ir->text_len, &text_end) ||
      text_end > size || !berth_align_u64(text_end, 8, &ir->records) ||
      !berth_add_u64(ir->records, (uint64_t)ir->n_globals * BERTH_FORMAT_IR_GLOBAL_SIZE, &rec_end) || rec_end > size)
    return IRFAIL(BERTH_ERR_CORRUPT_DATA,
                  "(byte %llu): %u bytes of pool rules, %llu of text and %u records do not fit its %llu bytes",
                  (ull)(file_off + BERTH_IR_SECTION_POOLS_LEN), (unsigned)ir->pools_len, (ull)ir->text_len,
                  (unsigned)ir->n_globals, (ull)size);
  ir->sec = sec;
  ir->size = size;
  ir->pools = (const char *)sec + BERTH_FORMAT_IR_REF_HEADER_SIZE;
  ir->text = ir->pools + ir->pools_len;
  return check_zero(sec, text_end, ir->records, file_off, diag);
}

berth_status_t berth_format_ir_ref_open(const uint8_t *sec, uint64_t size, uint64_t file_off, uint64_t constants_size,
                                        berth_format_ir_ref_t *out, berth_diag_t *diag) {
  if (!sec || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_format_ir_ref_open: NULL argument");
  berth_format_ir_ref_t ir;
  memset(&ir, 0, sizeof ir);
  berth_status_t st = open_header(sec, size, file_off, &ir, diag);
  if (st) return st;
  /* the inline payloads follow the records in record order, each at the next multiple of 8 */
  uint64_t pos = ir.records + (uint64_t)ir.n_globals * BERTH_FORMAT_IR_GLOBAL_SIZE;
  for (uint32_t k = 0; k < ir.n_globals; k++) {
    uint64_t at = ir.records + (uint64_t)k * BERTH_FORMAT_IR_GLOBAL_SIZE, end;
    berth_format_ir_global_t g;
    if ((st = read_global(sec + at, file_off + at, &g, diag))) return st;
    if (g.where == BERTH_FORMAT_IR_IN_CONSTANTS) {
      if (g.offset > constants_size || g.bytes > constants_size - g.offset)
        return IRFAIL(BERTH_ERR_CORRUPT_DATA, "(byte %llu): record: bytes [%llu,+%llu) lie outside the %llu-byte constants section",
                      (ull)(file_off + at), (ull)g.offset, (ull)g.bytes, (ull)constants_size);
      continue;
    }
    uint64_t start = 0;
    if (!berth_align_u64(pos, 8, &start) || g.offset != start || !berth_add_u64(start, g.bytes, &end) || end > size)
      return IRFAIL(BERTH_ERR_CORRUPT_DATA, "(byte %llu): record: inline bytes [%llu,+%llu); expected them at %llu, inside its %llu bytes",
                    (ull)(file_off + at), (ull)g.offset, (ull)g.bytes, (ull)start, (ull)size);
    if ((st = check_zero(sec, pos, start, file_off, diag))) return st;
    pos = end;
  }
  if (pos != size)
    return IRFAIL(BERTH_ERR_CORRUPT_DATA, "(byte %llu): bytes up to %llu after the last payload belong to nothing", (ull)(file_off + pos),
                  (ull)(file_off + size));
  *out = ir;
  return BERTH_OK;
}

void berth_format_ir_ref_global(const berth_format_ir_ref_t *ir, uint32_t k, berth_format_ir_global_t *out) {
  uint64_t at = ir->records + (uint64_t)k * BERTH_FORMAT_IR_GLOBAL_SIZE;
  if (read_global(ir->sec + at, at, out, NULL)) memset(out, 0, sizeof *out); /* checked by open: cannot fail */
}
