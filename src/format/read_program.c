/* The program file loader (see read_program.h and docs/format.md). Runtime side: no malloc,
 * no stdio. Every byte of the file goes through the bounds-checked little-endian helpers of
 * base/byte_reader.h, every size through base/checked.h; the decoded program lives in the
 * caller's memory and points into the caller's bytes for names, constants and state. */
#include "format/read_program.h"
#include "base/try.h"

#include "base/byte_reader.h"
#include "base/checked.h"
#include "base/crc32c.h"
#include "program/exec_names.h"
#include "program/verify.h"
#include "kernels/op_table.h"

#include <stdarg.h>
#include <string.h>

#define CORRUPT BERTH_ERR_CORRUPT_DATA
#define RANGE BERTH_ERR_OUT_OF_RANGE

typedef struct sect {
  bool present;
  uint32_t entry; /* index in the section table */
  uint64_t off, size;
} sect_t;

/* A method record, decoded (all fields unchecked until check_method_record). */
typedef struct mrec {
  uint32_t name, alignment, n_regs, n_pools, first_pool, n_values, first_value, n_instrs, first_instr,
      n_operands, first_operand, n_attrs, first_attr, n_inputs, n_outputs, first_io;
  uint64_t state_offset, state_size;
} mrec_t;

typedef struct rd {
  const uint8_t *b;
  size_t len;
  berth_diag_t *diag;
  uint32_t version, flags, n_methods;
  uint16_t writer[3]; /* the berth that wrote the file: major, minor, patch */
  bool checksum_checked; /* BERTH_FORMAT_READ_CHECKSUM_CHECKED: the CRC pass is skipped */
  sect_t s[BERTH_SECTION_MAX + 1];
  /* records per table */
  uint64_t n_values, n_instrs, n_operands, n_attrs, n_io, n_pools, n_bounds;
} rd_t;

BERTH_PRINTF_LIKE(3, 4) static berth_status_t rfail(rd_t *r, berth_status_t st, const char *fmt, ...) {
  if (r->diag && r->diag->buf && r->diag->cap) {
    va_list ap;
    va_start(ap, fmt);
    berth_vsnprintf(r->diag->buf, r->diag->cap, fmt, ap);
    va_end(ap);
  }
  return st;
}

typedef unsigned long long ull;

const char *berth_format_section_name(uint32_t id) {
  switch (id) {
    case BERTH_SECTION_STRINGS: return "strings";
    case BERTH_SECTION_METHODS: return "methods";
    case BERTH_SECTION_VALUES: return "values";
    case BERTH_SECTION_INSTRS: return "instructions";
    case BERTH_SECTION_OPERANDS: return "operands";
    case BERTH_SECTION_ATTRS: return "attributes";
    case BERTH_SECTION_IO: return "io";
    case BERTH_SECTION_POOLS: return "pools";
    case BERTH_SECTION_STATE: return "state";
    case BERTH_SECTION_CONSTANTS: return "constants";
    case BERTH_SECTION_IR: return "ir";
    case BERTH_SECTION_BOUNDS: return "bounds";
    case BERTH_SECTION_IR_REF: return "ir_ref";
    case BERTH_SECTION_HOIST: return "hoist";
  }
  return "?";
}

bool berth_format_is_program(const void *bytes, size_t len) {
  return bytes && len >= BERTH_FORMAT_MAGIC_SIZE && memcmp(bytes, BERTH_FORMAT_MAGIC, BERTH_FORMAT_MAGIC_SIZE) == 0;
}

/* Byte offset in the file of record i of section id (size rec). Sections are inside the
 * file and i is below the section's record count wherever this is called, so no overflow. */
static uint64_t rec_at(const rd_t *r, uint32_t id, uint64_t i, uint64_t rec) { return r->s[id].off + i * rec; }

static const uint8_t *rec_ptr(const rd_t *r, uint32_t id, uint64_t i, uint64_t rec) {
  return r->b + rec_at(r, id, i, rec);
}

/* A name reference: a byte offset into the string section, NUL-terminated there (the
 * section ends with a NUL, checked once), at most BERTH_FORMAT_MAX_NAME bytes long. */
static berth_status_t get_str(rd_t *r, uint32_t ref, const char *what, uint64_t at, const char **out) {
  const sect_t *s = &r->s[BERTH_SECTION_STRINGS];
  if ((uint64_t)ref >= s->size)
    return rfail(r, CORRUPT, "%s (byte %llu): name offset %u is outside the %llu-byte string section", what, (ull)at,
                 (unsigned)ref, (ull)s->size);
  const char *str = (const char *)(r->b + s->off + ref);
  uint64_t avail = s->size - ref, n = 0;
  while (n < avail && n <= BERTH_FORMAT_MAX_NAME && str[n]) n++;
  if (n > BERTH_FORMAT_MAX_NAME)
    return rfail(r, RANGE, "%s (byte %llu): the name at string offset %u is longer than %d bytes", what, (ull)at,
                 (unsigned)ref, BERTH_FORMAT_MAX_NAME);
  *out = str;
  return BERTH_OK;
}

/* ---- header and section table ----------------------------------------------------------- */

uint32_t berth_format_checksum(const void *bytes, size_t len) {
  static const uint8_t zero[4] = {0, 0, 0, 0};
  const uint8_t *b = bytes;
  if (len < BERTH_FORMAT_CHECKSUM_AT + 4) return berth_crc32c_update(0, b, len);
  uint32_t c = berth_crc32c_update(0, b, BERTH_FORMAT_CHECKSUM_AT);
  c = berth_crc32c_update(c, zero, sizeof zero);
  return berth_crc32c_update(c, b + BERTH_FORMAT_CHECKSUM_AT + 4, len - BERTH_FORMAT_CHECKSUM_AT - 4);
}

static uint64_t section_align(uint32_t id) {
  return id == BERTH_SECTION_CONSTANTS ? BERTH_FORMAT_CONST_ALIGN : BERTH_FORMAT_SECTION_ALIGN;
}

/* Every byte after the section table belongs to a section, except the zero padding that
 * aligns the next section (in file order, each starts at the first aligned byte after the
 * previous one ends), and the file ends where the last section does: a program has one
 * encoding, and nothing can hide in a file that loads. */
static berth_status_t check_coverage(rd_t *r, uint64_t table_end) {
  uint32_t ids[BERTH_SECTION_MAX];
  uint32_t n = 0;
  for (uint32_t id = 1; id <= BERTH_SECTION_MAX; id++) {
    if (!r->s[id].present) continue;
    uint32_t k = n++; /* insertion sort by (offset, size): empty sections before a full one at their offset */
    while (k > 0 && (r->s[ids[k - 1]].off > r->s[id].off ||
                     (r->s[ids[k - 1]].off == r->s[id].off && r->s[ids[k - 1]].size > r->s[id].size))) {
      ids[k] = ids[k - 1];
      k--;
    }
    ids[k] = id;
  }
  uint64_t pos = table_end;
  for (uint32_t k = 0; k < n; k++) {
    const sect_t *s = &r->s[ids[k]];
    const char *name = berth_format_section_name(ids[k]);
    uint64_t start = pos + (section_align(ids[k]) - pos % section_align(ids[k])) % section_align(ids[k]);
    if (s->off < start)
      return rfail(r, CORRUPT, "section %s (entry %u) starts at byte %llu, inside the previous section or its padding (which end at byte %llu)",
                   name, (unsigned)s->entry, (ull)s->off, (ull)start);
    for (uint64_t at = pos; at < start; at++)
      if (r->b[at])
        return rfail(r, CORRUPT, "padding byte %llu before section %s is %u, not 0", (ull)at, name, (unsigned)r->b[at]);
    if (s->off > start)
      return rfail(r, CORRUPT, "bytes [%llu,%llu) before section %s lie outside every section", (ull)start, (ull)s->off,
                   name);
    pos = s->off + s->size;
  }
  if (pos != r->len)
    return rfail(r, CORRUPT, "bytes [%llu,%zu) after the last section lie outside every section", (ull)pos, r->len);
  return BERTH_OK;
}

/* The IR section's fixed header: its lengths fill the section, its budget unit is known. */
static berth_status_t check_ir_header(rd_t *r, const sect_t *ir) {
  const uint8_t *h = r->b + ir->off;
  if (ir->size < BERTH_FORMAT_IR_HEADER_SIZE)
    return rfail(r, CORRUPT, "section ir (byte %llu): %llu bytes, shorter than its %d-byte header", (ull)ir->off,
                 (ull)ir->size, BERTH_FORMAT_IR_HEADER_SIZE);
  uint32_t pools_len = berth_load_le32(h + BERTH_IR_SECTION_POOLS_LEN);
  uint32_t unit = berth_load_le32(h + BERTH_IR_SECTION_BUDGET_UNIT);
  uint64_t text_len = berth_load_le64(h + BERTH_IR_SECTION_TEXT_LEN), total;
  if (unit > BERTH_FORMAT_IR_BUDGET_WORK)
    return rfail(r, CORRUPT, "section ir (byte %llu): budget unit %u is neither 0 (ms) nor 1 (work units)",
                 (ull)(ir->off + BERTH_IR_SECTION_BUDGET_UNIT), (unsigned)unit);
  if (!berth_add_u64(pools_len, text_len, &total) || total != ir->size - BERTH_FORMAT_IR_HEADER_SIZE)
    return rfail(r, CORRUPT, "section ir (byte %llu): %u bytes of pool rules and %llu of text do not fill its %llu bytes",
                 (ull)(ir->off + BERTH_IR_SECTION_POOLS_LEN), (unsigned)pools_len, (ull)text_len, (ull)(ir->size - BERTH_FORMAT_IR_HEADER_SIZE));
  return BERTH_OK;
}

/* The version of the berth that wrote the file (header bytes 36..41) against this runtime's:
 * a newer MAJOR.MINOR may give a field or an op a meaning this runtime does not know, so it
 * is refused with both versions named; an older writer, or a newer patch release of this
 * MAJOR.MINOR, loads (the format version already matched). 0.0.0: written before berth
 * recorded its version, by 0.4.0 or older. */
static berth_status_t check_writer_version(rd_t *r) {
  const uint8_t *v = r->b + BERTH_FORMAT_HDR_WRITER_VERSION;
  for (int k = 0; k < 3; k++) r->writer[k] = berth_load_le16(v + 2 * k);
  uint32_t major = r->writer[0], minor = r->writer[1];
  if (major > BERTH_VERSION_MAJOR || (major == BERTH_VERSION_MAJOR && minor > BERTH_VERSION_MINOR))
    return rfail(r, BERTH_ERR_UNIMPLEMENTED,
                 "header (byte %d): program written by berth %u.%u.%u; this runtime is berth %s: rebuild the runtime "
                 "with berth %u.%u or newer, or recompile the program with berth %s",
                 BERTH_FORMAT_HDR_WRITER_VERSION, (unsigned)major, (unsigned)minor, (unsigned)r->writer[2],
                 BERTH_VERSION_STRING, (unsigned)major, (unsigned)minor, BERTH_VERSION_STRING);
  return BERTH_OK;
}

/* The header's fields, in the order that gives the truest message: what the file is
 * (magic, format version, sizes), whether it is damaged (the checksum, before any other
 * field is believed), who wrote it (a newer berth may use flags this one does not know),
 * then everything else. */
static berth_status_t read_header_fields(rd_t *r, uint32_t *n_sections) {
  const uint8_t *b = r->b;
  if (r->len < BERTH_FORMAT_HEADER_SIZE)
    return rfail(r, CORRUPT, "header: the file is %zu bytes, shorter than the %d-byte header (truncated?)", r->len,
                 BERTH_FORMAT_HEADER_SIZE);
  if (memcmp(b, BERTH_FORMAT_MAGIC, BERTH_FORMAT_MAGIC_SIZE) != 0)
    return rfail(r, CORRUPT, "header (byte 0): not a berth program file (the magic is not \"BERTH\\0\")");
  r->version = berth_load_le16(b + BERTH_FORMAT_HDR_VERSION);
  if (r->version != BERTH_FORMAT_VERSION)
    return rfail(r, BERTH_ERR_UNIMPLEMENTED, "header (byte %d): format version %u; this runtime reads version %d (berth %s)",
                 BERTH_FORMAT_HDR_VERSION, (unsigned)r->version, BERTH_FORMAT_VERSION, BERTH_VERSION_STRING);
  uint32_t hsize = berth_load_le32(b + BERTH_FORMAT_HDR_HEADER_SIZE);
  if (hsize != BERTH_FORMAT_HEADER_SIZE)
    return rfail(r, CORRUPT, "header (byte %d): header size %u; expected %d", BERTH_FORMAT_HDR_HEADER_SIZE,
                 (unsigned)hsize, BERTH_FORMAT_HEADER_SIZE);
  uint64_t fsize = berth_load_le64(b + BERTH_FORMAT_HDR_FILE_SIZE);
  if (fsize != (uint64_t)r->len)
    return rfail(r, CORRUPT, "header (byte %d): the file size is %llu bytes but %zu were given (truncated or padded?)",
                 BERTH_FORMAT_HDR_FILE_SIZE, (ull)fsize, r->len);
  /* the checksum first: a damaged file is refused as damaged, whatever the damage says */
  r->flags = berth_load_le32(b + BERTH_FORMAT_HDR_FLAGS);
  uint32_t sum = berth_load_le32(b + BERTH_FORMAT_CHECKSUM_AT);
  if (r->flags & BERTH_FORMAT_FLAG_CHECKSUM) {
    uint32_t got = r->checksum_checked ? sum : berth_format_checksum(b, r->len);
    if (got != sum)
      return rfail(r, CORRUPT, "header (byte %d): the file's CRC-32C is 0x%x but the header records 0x%x (the file is damaged)",
                   BERTH_FORMAT_CHECKSUM_AT, (unsigned)got, (unsigned)sum);
  }
  BERTH_TRY(check_writer_version(r));
  uint32_t unknown = r->flags & ~(BERTH_FORMAT_FLAG_ALLOC_INPUTS | BERTH_FORMAT_FLAG_ALLOC_OUTPUTS | BERTH_FORMAT_FLAG_CHECKSUM);
  if (unknown) return rfail(r, CORRUPT, "header (byte %d): unknown flag bits 0x%x", BERTH_FORMAT_HDR_FLAGS, (unsigned)unknown);
  if (!(r->flags & BERTH_FORMAT_FLAG_CHECKSUM) && sum)
    return rfail(r, CORRUPT, "header (byte %d): a checksum 0x%x without the checksum flag (bit 2 of byte %d)",
                 BERTH_FORMAT_CHECKSUM_AT, (unsigned)sum, BERTH_FORMAT_HDR_FLAGS);
  *n_sections = berth_load_le32(b + BERTH_FORMAT_HDR_N_SECTIONS);
  uint32_t table = berth_load_le32(b + BERTH_FORMAT_HDR_TABLE);
  if (*n_sections == 0 || *n_sections > BERTH_FORMAT_MAX_SECTIONS)
    return rfail(r, CORRUPT, "header (byte %d): %u sections; expected 1 to %d", BERTH_FORMAT_HDR_N_SECTIONS,
                 (unsigned)*n_sections, BERTH_FORMAT_MAX_SECTIONS);
  if (table != BERTH_FORMAT_HEADER_SIZE)
    return rfail(r, CORRUPT, "header (byte %d): the section table starts at byte %u; expected %d", BERTH_FORMAT_HDR_TABLE,
                 (unsigned)table, BERTH_FORMAT_HEADER_SIZE);
  for (int i = BERTH_FORMAT_HDR_RESERVED; i < BERTH_FORMAT_HEADER_SIZE; i++)
    if (b[i]) return rfail(r, CORRUPT, "header (byte %d): reserved byte is %u, not 0", i, (unsigned)b[i]);
  return BERTH_OK;
}

static berth_status_t read_header(rd_t *r) {
  const uint8_t *b = r->b;
  uint32_t n_sections = 0;
  BERTH_TRY(read_header_fields(r, &n_sections));
  uint64_t table_end = BERTH_FORMAT_HEADER_SIZE + (uint64_t)n_sections * BERTH_FORMAT_SECTION_ENTRY_SIZE;
  if (table_end > r->len)
    return rfail(r, CORRUPT, "section table (byte %d): %u entries end at byte %llu, past the end of the %zu-byte file",
                 BERTH_FORMAT_HEADER_SIZE, (unsigned)n_sections, (ull)table_end, r->len);

  berth_byte_reader_t br = berth_byte_reader_make(b, r->len);
  for (uint32_t e = 0; e < n_sections; e++) {
    uint64_t at = BERTH_FORMAT_HEADER_SIZE + (uint64_t)e * BERTH_FORMAT_SECTION_ENTRY_SIZE;
    uint32_t id = 0, reserved = 0;
    uint64_t off = 0, size = 0;
    if (!berth_byte_reader_seek(&br, at) || !berth_byte_reader_u32(&br, &id) || !berth_byte_reader_u32(&br, &reserved) ||
        !berth_byte_reader_u64(&br, &off) || !berth_byte_reader_u64(&br, &size))
      return rfail(r, CORRUPT, "section table entry %u (byte %llu): truncated", (unsigned)e, (ull)at);
    if (id == 0 || id > BERTH_SECTION_MAX)
      return rfail(r, CORRUPT, "section table entry %u (byte %llu): unknown section id %u", (unsigned)e, (ull)at,
                   (unsigned)id);
    const char *name = berth_format_section_name(id);
    if (reserved)
      return rfail(r, CORRUPT, "section table entry %u (byte %llu, %s): reserved field is %u, not 0", (unsigned)e,
                   (ull)(at + BERTH_FORMAT_ENTRY_RESERVED), name, (unsigned)reserved);
    if (r->s[id].present)
      return rfail(r, CORRUPT, "section table entry %u (byte %llu): section %s appears twice (also entry %u)",
                   (unsigned)e, (ull)at, name, (unsigned)r->s[id].entry);
    if (size > r->len || off > r->len - size)
      return rfail(r, CORRUPT, "section %s (entry %u, byte %llu): bytes [%llu,+%llu) lie outside the %zu-byte file",
                   name, (unsigned)e, (ull)(at + BERTH_FORMAT_ENTRY_OFFSET), (ull)off, (ull)size, r->len);
    if (off < table_end)
      return rfail(r, CORRUPT, "section %s (entry %u, byte %llu): starts at byte %llu, inside the header or section table (which ends at byte %llu)",
                   name, (unsigned)e, (ull)(at + BERTH_FORMAT_ENTRY_OFFSET), (ull)off, (ull)table_end);
    uint64_t align = id == BERTH_SECTION_CONSTANTS ? BERTH_FORMAT_CONST_ALIGN : BERTH_FORMAT_SECTION_ALIGN;
    if (off % align)
      return rfail(r, CORRUPT, "section %s (entry %u, byte %llu): offset %llu is not a multiple of %llu", name,
                   (unsigned)e, (ull)(at + BERTH_FORMAT_ENTRY_OFFSET), (ull)off, (ull)align);
    r->s[id].present = true;
    r->s[id].entry = e;
    r->s[id].off = off;
    r->s[id].size = size;
  }
  for (uint32_t a = 1; a <= BERTH_SECTION_MAX; a++)
    for (uint32_t c = a + 1; c <= BERTH_SECTION_MAX; c++) {
      const sect_t *x = &r->s[a], *y = &r->s[c];
      if (!x->present || !y->present || !x->size || !y->size) continue;
      if (x->off < y->off + y->size && y->off < x->off + x->size)
        return rfail(r, CORRUPT, "section %s [%llu,%llu) overlaps section %s [%llu,%llu)", berth_format_section_name(a),
                     (ull)x->off, (ull)(x->off + x->size), berth_format_section_name(c), (ull)y->off,
                     (ull)(y->off + y->size));
    }
  static const struct {
    uint32_t id;
    uint64_t rec;
  } tables[] = {{BERTH_SECTION_STRINGS, 1},
                {BERTH_SECTION_METHODS, BERTH_FORMAT_METHOD_SIZE},
                {BERTH_SECTION_VALUES, BERTH_FORMAT_VALUE_SIZE},
                {BERTH_SECTION_INSTRS, BERTH_FORMAT_INSTR_SIZE},
                {BERTH_SECTION_OPERANDS, 4},
                {BERTH_SECTION_ATTRS, BERTH_FORMAT_ATTR_SIZE},
                {BERTH_SECTION_IO, BERTH_FORMAT_IO_SIZE},
                {BERTH_SECTION_POOLS, 8},
                {BERTH_SECTION_STATE, 1},
                {BERTH_SECTION_CONSTANTS, 1}};
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
    const sect_t *s = &r->s[tables[t].id];
    const char *name = berth_format_section_name(tables[t].id);
    if (!s->present) return rfail(r, CORRUPT, "section table: the required section %s is missing", name);
    if (s->size % tables[t].rec)
      return rfail(r, CORRUPT, "section %s (byte %llu): %llu bytes is not a whole number of %llu-byte records", name,
                   (ull)s->off, (ull)s->size, (ull)tables[t].rec);
  }
  const sect_t *str = &r->s[BERTH_SECTION_STRINGS];
  if (str->size == 0 || b[str->off + str->size - 1] != 0)
    return rfail(r, CORRUPT, "section strings (byte %llu): does not end with a NUL byte", (ull)(str->off + str->size));
  uint64_t nm = r->s[BERTH_SECTION_METHODS].size / BERTH_FORMAT_METHOD_SIZE;
  if (nm == 0) return rfail(r, CORRUPT, "section methods (byte %llu): no methods", (ull)r->s[BERTH_SECTION_METHODS].off);
  if (nm > BERTH_FORMAT_MAX_METHODS)
    return rfail(r, RANGE, "section methods (byte %llu): %llu methods exceed the cap of %d",
                 (ull)r->s[BERTH_SECTION_METHODS].off, (ull)nm, BERTH_FORMAT_MAX_METHODS);
  r->n_methods = (uint32_t)nm;
  r->n_values = r->s[BERTH_SECTION_VALUES].size / BERTH_FORMAT_VALUE_SIZE;
  r->n_instrs = r->s[BERTH_SECTION_INSTRS].size / BERTH_FORMAT_INSTR_SIZE;
  r->n_operands = r->s[BERTH_SECTION_OPERANDS].size / 4;
  r->n_attrs = r->s[BERTH_SECTION_ATTRS].size / BERTH_FORMAT_ATTR_SIZE;
  r->n_io = r->s[BERTH_SECTION_IO].size / BERTH_FORMAT_IO_SIZE;
  r->n_pools = r->s[BERTH_SECTION_POOLS].size / 8;
  const sect_t *ir = &r->s[BERTH_SECTION_IR], *bd = &r->s[BERTH_SECTION_BOUNDS];
  if (ir->present) BERTH_TRY(check_ir_header(r, ir));
  const sect_t *irr = &r->s[BERTH_SECTION_IR_REF];
  if (irr->present) {
    if (ir->present)
      return rfail(r, CORRUPT, "section table entry %u: section ir_ref with section ir (entry %u); a file has at most one",
                   (unsigned)irr->entry, (unsigned)ir->entry);
    berth_format_ir_ref_t layout;
    BERTH_TRY(berth_format_ir_ref_open(r->b + irr->off, irr->size, irr->off, r->s[BERTH_SECTION_CONSTANTS].size, &layout,
                                       r->diag));
  }
  if (bd->present && bd->size % BERTH_FORMAT_BOUND_SIZE)
    return rfail(r, CORRUPT, "section bounds (byte %llu): %llu bytes is not a whole number of %d-byte records",
                 (ull)bd->off, (ull)bd->size, BERTH_FORMAT_BOUND_SIZE);
  r->n_bounds = bd->present ? bd->size / BERTH_FORMAT_BOUND_SIZE : 0;
  const sect_t *hs = &r->s[BERTH_SECTION_HOIST];
  if (hs->present && hs->size != (uint64_t)nm * BERTH_FORMAT_HOIST_SIZE)
    return rfail(r, CORRUPT, "section hoist (byte %llu): %llu bytes, expected %llu (one %d-byte record per method)",
                 (ull)hs->off, (ull)hs->size, (ull)nm * BERTH_FORMAT_HOIST_SIZE, BERTH_FORMAT_HOIST_SIZE);
  return check_coverage(r, table_end);
}

/* ---- method records ----------------------------------------------------------------------- */

static void read_mrec(const rd_t *r, uint32_t i, mrec_t *m) {
  const uint8_t *p = rec_ptr(r, BERTH_SECTION_METHODS, i, BERTH_FORMAT_METHOD_SIZE);
  m->name = berth_load_le32(p + BERTH_FORMAT_METHOD_NAME);
  m->alignment = berth_load_le32(p + BERTH_FORMAT_METHOD_ALIGNMENT);
  m->n_regs = berth_load_le32(p + BERTH_FORMAT_METHOD_N_REGS);
  m->n_pools = berth_load_le32(p + BERTH_FORMAT_METHOD_N_POOLS);
  m->first_pool = berth_load_le32(p + BERTH_FORMAT_METHOD_FIRST_POOL);
  m->n_values = berth_load_le32(p + BERTH_FORMAT_METHOD_N_VALUES);
  m->first_value = berth_load_le32(p + BERTH_FORMAT_METHOD_FIRST_VALUE);
  m->n_instrs = berth_load_le32(p + BERTH_FORMAT_METHOD_N_INSTRS);
  m->first_instr = berth_load_le32(p + BERTH_FORMAT_METHOD_FIRST_INSTR);
  m->n_operands = berth_load_le32(p + BERTH_FORMAT_METHOD_N_OPERANDS);
  m->first_operand = berth_load_le32(p + BERTH_FORMAT_METHOD_FIRST_OPERAND);
  m->n_attrs = berth_load_le32(p + BERTH_FORMAT_METHOD_N_ATTRS);
  m->first_attr = berth_load_le32(p + BERTH_FORMAT_METHOD_FIRST_ATTR);
  m->n_inputs = berth_load_le32(p + BERTH_FORMAT_METHOD_N_INPUTS);
  m->n_outputs = berth_load_le32(p + BERTH_FORMAT_METHOD_N_OUTPUTS);
  m->first_io = berth_load_le32(p + BERTH_FORMAT_METHOD_FIRST_IO);
  m->state_offset = berth_load_le64(p + BERTH_FORMAT_METHOD_STATE_OFFSET);
  m->state_size = berth_load_le64(p + BERTH_FORMAT_METHOD_STATE_BYTES);
}

/* The method's name for messages, once its record is known to be valid; else "#i". */
static const char *mname(rd_t *r, uint32_t i, char *buf, size_t cap) {
  mrec_t m;
  read_mrec(r, i, &m);
  const sect_t *s = &r->s[BERTH_SECTION_STRINGS];
  if ((uint64_t)m.name < s->size) {
    const char *str = (const char *)(r->b + s->off + m.name);
    size_t n = 0;
    while (n < 64 && str[n]) n++;
    if (n < 64) return str;
  }
  berth_snprintf(buf, cap, "#%u", (unsigned)i);
  return buf;
}

typedef struct totals {
  uint64_t values, instrs, operands, attrs, io, pools;
} totals_t;

/* One table slice of a method: [first, first + n) must start where the previous method's
 * slice ended and stay inside the table. */
static berth_status_t check_slice(rd_t *r, const char *mn, uint64_t at, const char *what, uint32_t id, uint64_t first,
                                  uint64_t n, uint64_t *running, uint64_t table) {
  if (first != *running)
    return rfail(r, CORRUPT, "method %s record (byte %llu): its %s start at record %llu; expected %llu (each method's records follow the previous method's)",
                 mn, (ull)at, what, (ull)first, (ull)*running);
  if (n > table - first)
    return rfail(r, CORRUPT, "method %s record (byte %llu): %s [%llu,+%llu) exceed the %llu records of section %s", mn,
                 (ull)at, what, (ull)first, (ull)n, (ull)table, berth_format_section_name(id));
  *running += n;
  return BERTH_OK;
}

static berth_status_t check_cap(rd_t *r, const char *mn, uint64_t at, const char *what, uint64_t n, uint64_t cap) {
  if (n > cap)
    return rfail(r, RANGE, "method %s record (byte %llu): %llu %s exceed the cap of %llu", mn, (ull)at, (ull)n, what,
                 (ull)cap);
  return BERTH_OK;
}

static berth_status_t check_methods(rd_t *r) {
  totals_t run = {0, 0, 0, 0, 0, 0};
  for (uint32_t i = 0; i < r->n_methods; i++) {
    mrec_t m;
    read_mrec(r, i, &m);
    uint64_t at = rec_at(r, BERTH_SECTION_METHODS, i, BERTH_FORMAT_METHOD_SIZE);
    char what[48];
    berth_snprintf(what, sizeof what, "method %u record", (unsigned)i);
    const char *name;
    BERTH_TRY(get_str(r, m.name, what, at, &name));
    char nb[24];
    const char *mn = mname(r, i, nb, sizeof nb);
    for (uint32_t j = 0; j < i; j++) {
      char jb[24];
      if (strcmp(mname(r, j, jb, sizeof jb), name) == 0)
        return rfail(r, CORRUPT, "method %u record (byte %llu): method name '%s' is also method %u's", (unsigned)i,
                     (ull)at, name, (unsigned)j);
    }
    if (!berth_is_pow2(m.alignment) || m.alignment > BERTH_FORMAT_MAX_ALIGNMENT)
      return rfail(r, CORRUPT, "method %s record (byte %llu): alignment %u is not a power of two up to %d", mn,
                   (ull)(at + BERTH_FORMAT_METHOD_ALIGNMENT), (unsigned)m.alignment, BERTH_FORMAT_MAX_ALIGNMENT);
    BERTH_TRY(check_cap(r, mn, at, "loop registers", m.n_regs, BERTH_FORMAT_MAX_REGS));
    BERTH_TRY(check_cap(r, mn, at, "arena pools", m.n_pools, BERTH_FORMAT_MAX_POOLS));
    BERTH_TRY(check_cap(r, mn, at, "values", m.n_values, BERTH_FORMAT_MAX_VALUES));
    BERTH_TRY(check_cap(r, mn, at, "instructions", m.n_instrs, BERTH_FORMAT_MAX_INSTRS));
    BERTH_TRY(check_cap(r, mn, at, "operands", m.n_operands, BERTH_FORMAT_MAX_OPERANDS));
    BERTH_TRY(check_cap(r, mn, at, "attributes", m.n_attrs, BERTH_FORMAT_MAX_ATTRS));
    BERTH_TRY(check_cap(r, mn, at, "inputs", m.n_inputs, BERTH_FORMAT_MAX_IO));
    BERTH_TRY(check_cap(r, mn, at, "outputs", m.n_outputs, BERTH_FORMAT_MAX_IO));
    if (m.n_instrs == 0)
      return rfail(r, CORRUPT, "method %s record (byte %llu): no instructions (a method ends with return)", mn,
                   (ull)(at + BERTH_FORMAT_METHOD_N_INSTRS));
    BERTH_TRY(check_slice(r, mn, at, "pools", BERTH_SECTION_POOLS, m.first_pool, m.n_pools, &run.pools, r->n_pools));
    BERTH_TRY(check_slice(r, mn, at, "values", BERTH_SECTION_VALUES, m.first_value, m.n_values, &run.values, r->n_values));
    BERTH_TRY(check_slice(r, mn, at, "instructions", BERTH_SECTION_INSTRS, m.first_instr, m.n_instrs, &run.instrs,
                    r->n_instrs));
    BERTH_TRY(check_slice(r, mn, at, "operands", BERTH_SECTION_OPERANDS, m.first_operand, m.n_operands, &run.operands,
                    r->n_operands));
    BERTH_TRY(check_slice(r, mn, at, "attributes", BERTH_SECTION_ATTRS, m.first_attr, m.n_attrs, &run.attrs, r->n_attrs));
    BERTH_TRY(check_slice(r, mn, at, "inputs and outputs", BERTH_SECTION_IO, m.first_io, (uint64_t)m.n_inputs + m.n_outputs,
                    &run.io, r->n_io));
    const sect_t *st = &r->s[BERTH_SECTION_STATE];
    if (m.state_size > BERTH_FORMAT_MAX_ARENA_BYTES)
      return rfail(r, RANGE, "method %s record (byte %llu): a state region of %llu bytes exceeds the cap of 2^40", mn,
                   (ull)(at + BERTH_FORMAT_METHOD_STATE_BYTES), (ull)m.state_size);
    if (m.state_size > st->size || m.state_offset > st->size - m.state_size)
      return rfail(r, CORRUPT, "method %s record (byte %llu): state bytes [%llu,+%llu) lie outside the %llu-byte state section",
                   mn, (ull)(at + BERTH_FORMAT_METHOD_STATE_OFFSET), (ull)m.state_offset, (ull)m.state_size, (ull)st->size);
  }
  static const uint32_t ids[] = {BERTH_SECTION_POOLS, BERTH_SECTION_VALUES, BERTH_SECTION_INSTRS,
                                 BERTH_SECTION_OPERANDS, BERTH_SECTION_ATTRS, BERTH_SECTION_IO};
  const uint64_t used[] = {run.pools, run.values, run.instrs, run.operands, run.attrs, run.io};
  const uint64_t have[] = {r->n_pools, r->n_values, r->n_instrs, r->n_operands, r->n_attrs, r->n_io};
  for (int k = 0; k < 6; k++)
    if (used[k] != have[k])
      return rfail(r, CORRUPT, "section %s (byte %llu): %llu records, but the methods use %llu",
                   berth_format_section_name(ids[k]), (ull)r->s[ids[k]].off, (ull)have[k], (ull)used[k]);
  return BERTH_OK;
}

/* ---- memory layout ------------------------------------------------------------------------- */

typedef struct lay {
  uint64_t off;
  bool bad;
} lay_t;

static uint64_t take(lay_t *l, uint64_t count, uint64_t elem) {
  uint64_t bytes, start, end;
  if (!berth_mul_u64(count, elem, &bytes) || !berth_align_u64(l->off, 8, &start) || !berth_add_u64(start, bytes, &end)) {
    l->bad = true;
    return 0;
  }
  l->off = end;
  return start;
}

typedef struct plan {
  uint64_t prog, methods, fmethods, values, instrs, operands, attrs, pools, io_ids, io_names, bounds, total;
} plan_t;

static bool plan_program(const rd_t *r, plan_t *p) {
  lay_t l = {0, false};
  p->prog = take(&l, 1, sizeof(berth_format_program_t));
  p->methods = take(&l, r->n_methods, sizeof(berth_exec_method_t));
  p->fmethods = take(&l, r->n_methods, sizeof(berth_format_method_t));
  p->values = take(&l, r->n_values, sizeof(berth_exec_value_t));
  p->instrs = take(&l, r->n_instrs, sizeof(berth_instr_t));
  p->operands = take(&l, r->n_operands, sizeof(int32_t));
  p->attrs = take(&l, r->n_attrs, sizeof(berth_attr_value_t));
  p->pools = take(&l, r->n_pools, sizeof(uint64_t));
  p->io_ids = take(&l, r->n_io, sizeof(int32_t));
  p->io_names = take(&l, r->n_io, sizeof(const char *));
  p->bounds = take(&l, r->n_bounds, sizeof(berth_exec_bound_t));
  p->total = l.off + 8; /* slack to align the caller's pointer */
  return !l.bad && p->total <= (uint64_t)SIZE_MAX;
}

/* The loader's own control-flow check needs, per instruction: two flags, a predecessor
 * start, two predecessors and a stack slot. */
typedef struct cfg_lay {
  uint64_t reach, ok, pred_start, preds, stack, total;
} cfg_lay_t;

static bool plan_cfg(uint64_t n, cfg_lay_t *c) {
  lay_t l = {0, false};
  c->reach = take(&l, n, 1);
  c->ok = take(&l, n, 1);
  c->pred_start = take(&l, n + 1, sizeof(int32_t));
  c->preds = take(&l, 2 * n, sizeof(int32_t));
  c->stack = take(&l, n, sizeof(int32_t));
  c->total = l.off + 8;
  return !l.bad;
}

/* The verifier's scratch depends on the counts and on the number of windowed values, which
 * are only known once the values are decoded. Bound it from the counts: a method with
 * n_values + n_windows + 64 values and no windows needs at least as much (the windowed
 * bitsets are the same size as the value bitsets per value). berth_format_read checks the
 * exact need against this bound before it runs the verifier. */
static berth_status_t scratch_need(rd_t *r, uint32_t i, uint64_t *need) {
  mrec_t m;
  read_mrec(r, i, &m);
  uint64_t nwin = 0;
  for (uint64_t v = 0; v < m.n_values; v++) {
    const uint8_t *p = rec_ptr(r, BERTH_SECTION_VALUES, (uint64_t)m.first_value + v, BERTH_FORMAT_VALUE_SIZE);
    if (berth_u32_to_i32(berth_load_le32(p + BERTH_FORMAT_VALUE_WINDOW_PARENT)) >= 0) nwin++;
  }
  berth_exec_method_t fake;
  memset(&fake, 0, sizeof fake);
  fake.n_values = (int32_t)(m.n_values + nwin + 64);
  fake.n_instrs = (int32_t)m.n_instrs;
  fake.n_regs = (int32_t)m.n_regs;
  berth_exec_program_t fp;
  memset(&fp, 0, sizeof fp);
  fp.n_methods = 1;
  fp.methods = &fake;
  size_t v = berth_verify_scratch_size(&fp, 0);
  cfg_lay_t c;
  char nb[24];
  if (v == SIZE_MAX || !plan_cfg(m.n_instrs, &c))
    return rfail(r, RANGE, "method %s: verifying %u instructions over %u values needs more memory than this machine can address",
                 mname(r, i, nb, sizeof nb), (unsigned)m.n_instrs, (unsigned)m.n_values);
  uint64_t s = (uint64_t)v > c.total ? (uint64_t)v : c.total;
  if (!berth_add_u64(s, 64, need) || *need > (uint64_t)SIZE_MAX)
    return rfail(r, RANGE, "method %s: the verifier's scratch does not fit in size_t", mname(r, i, nb, sizeof nb));
  return BERTH_OK;
}

static berth_status_t prepare(rd_t *r, const void *bytes, size_t len, bool checksum_checked, berth_diag_t *diag,
                              berth_format_sizes_t *sizes, plan_t *plan) {
  memset(r, 0, sizeof *r);
  r->checksum_checked = checksum_checked;
  r->b = bytes;
  r->len = len;
  r->diag = diag;
  if (!bytes) return rfail(r, BERTH_ERR_INVALID_ARGUMENT, "no program bytes (NULL)");
  BERTH_TRY(read_header(r));
  BERTH_TRY(check_methods(r));
  if (!plan_program(r, plan)) return rfail(r, RANGE, "the decoded program does not fit in size_t");
  uint64_t scratch = 0;
  for (uint32_t i = 0; i < r->n_methods; i++) {
    uint64_t need;
    BERTH_TRY(scratch_need(r, i, &need));
    if (need > scratch) scratch = need;
  }
  sizes->program_bytes = (size_t)plan->total;
  sizes->scratch_bytes = (size_t)scratch;
  return BERTH_OK;
}

berth_status_t berth_format_read_size(const void *bytes, size_t len, berth_format_sizes_t *out, berth_diag_t *diag) {
  rd_t r;
  plan_t plan;
  berth_format_sizes_t sizes = {0, 0};
  memset(&plan, 0, sizeof plan);
  if (!out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_format_read_size: out is NULL");
  BERTH_TRY(prepare(&r, bytes, len, false, diag, &sizes, &plan));
  *out = sizes;
  return BERTH_OK;
}

/* ---- decoding one method ----------------------------------------------------------------- */

typedef struct mctx {
  rd_t *r;
  uint32_t index;
  const char *mn;
  mrec_t rec;
  berth_exec_method_t *em;
  berth_exec_value_t *values;
  berth_instr_t *instrs;
  int32_t *operands;
  berth_attr_value_t *attrs;
} mctx_t;

static uint64_t val_at(const mctx_t *c, uint32_t v) {
  return rec_at(c->r, BERTH_SECTION_VALUES, (uint64_t)c->rec.first_value + v, BERTH_FORMAT_VALUE_SIZE);
}

static uint64_t ins_at(const mctx_t *c, uint32_t i) {
  return rec_at(c->r, BERTH_SECTION_INSTRS, (uint64_t)c->rec.first_instr + i, BERTH_FORMAT_INSTR_SIZE);
}

/* "method forward, value 3 (%d0) at byte 1234" */
static const char *vwhere(const mctx_t *c, uint32_t v, char *buf, size_t cap) {
  const char *name = c->values[v].name;
  berth_snprintf(buf, cap, "method %s, value %u (%%%s) at byte %llu", c->mn, (unsigned)v, name ? name : "?",
               (ull)val_at(c, v));
  return buf;
}

/* Value v's record up to its storage: name, storage class, type (checked against the caps;
 * *bytes its size) and the storage fields, read but not yet checked. w receives "method M,
 * value V (%NAME) at byte B" for the messages that follow. */
static berth_status_t decode_value(mctx_t *c, uint32_t v, char *w, size_t wcap, uint64_t *bytes) {
  rd_t *r = c->r;
  uint64_t at = val_at(c, v);
  const uint8_t *p = r->b + at;
  berth_exec_value_t *x = &c->values[v];
  memset(x, 0, sizeof *x);
  berth_snprintf(w, wcap, "method %s, value %u", c->mn, (unsigned)v);
  BERTH_TRY(get_str(r, berth_load_le32(p + BERTH_FORMAT_VALUE_NAME), w, at + BERTH_FORMAT_VALUE_NAME, &x->name));
  vwhere(c, v, w, wcap);
  uint8_t storage = p[BERTH_FORMAT_VALUE_STORAGE], dtype = p[BERTH_FORMAT_VALUE_DTYPE], rank = p[BERTH_FORMAT_VALUE_RANK];
  if (p[BERTH_FORMAT_VALUE_RESERVED]) return rfail(r, CORRUPT, "%s: reserved byte %llu is not 0", w, (ull)(at + BERTH_FORMAT_VALUE_RESERVED));
  if (storage > BERTH_STORAGE_HOIST)
    return rfail(r, CORRUPT, "%s: unknown storage class %u (0..5)", w, (unsigned)storage);
  if (dtype >= BERTH_DTYPE_COUNT)
    return rfail(r, CORRUPT, "%s: dtype %u is not a dtype (0..%d)", w, (unsigned)dtype, BERTH_DTYPE_COUNT - 1);
  if (rank > BERTH_MAX_RANK)
    return rfail(r, CORRUPT, "%s: rank %u exceeds the maximum rank %d", w, (unsigned)rank, BERTH_MAX_RANK);
  x->storage = storage;
  x->type.dtype = (berth_dtype_t)dtype;
  x->type.rank = rank;
  uint64_t numel = 1, esz = berth_dtype_size(x->type.dtype);
  for (int k = 0; k < BERTH_MAX_RANK; k++) {
    int64_t d = berth_u64_to_i64(berth_load_le64(p + BERTH_FORMAT_VALUE_DIM(k)));
    if (k >= rank) {
      if (d != 0) return rfail(r, CORRUPT, "%s: dim %d (byte %llu) is %lld beyond rank %u; expected 0", w, k,
                               (ull)(at + BERTH_FORMAT_VALUE_DIM(k)), (long long)d, (unsigned)rank);
      continue; /* dims past the rank */
    }
    if (d < 0) return rfail(r, CORRUPT, "%s: dim %d (byte %llu) is negative (%lld)", w, k, (ull)(at + BERTH_FORMAT_VALUE_DIM(k)), (long long)d);
    if (d > BERTH_MAX_DIM)
      return rfail(r, RANGE, "%s: dim %d (byte %llu) is %lld, above the cap of 2^40", w, k, (ull)(at + BERTH_FORMAT_VALUE_DIM(k)),
                   (long long)d);
    x->type.dims[k] = d;
    if (!berth_mul_u64(numel, (uint64_t)d, &numel) || numel > (uint64_t)BERTH_MAX_TENSOR_BYTES)
      return rfail(r, RANGE, "%s: the tensor's byte size overflows the cap of 2^40 bytes", w);
  }
  if (!berth_mul_u64(numel, esz, bytes) || *bytes > (uint64_t)BERTH_MAX_TENSOR_BYTES || !berth_type_check(&x->type))
    return rfail(r, RANGE, "%s: %llu elements of %llu bytes exceed the tensor cap of 2^40 bytes", w, (ull)numel, (ull)esz);
  x->pool = berth_load_le32(p + BERTH_FORMAT_VALUE_POOL);
  x->index = berth_load_le32(p + BERTH_FORMAT_VALUE_INDEX);
  x->offset = berth_load_le64(p + BERTH_FORMAT_VALUE_OFFSET);
  x->window_parent = berth_u32_to_i32(berth_load_le32(p + BERTH_FORMAT_VALUE_WINDOW_PARENT));
  x->window_reg = berth_u32_to_i32(berth_load_le32(p + BERTH_FORMAT_VALUE_WINDOW_REG));
  x->window_stride = berth_u64_to_i64(berth_load_le64(p + BERTH_FORMAT_VALUE_WINDOW_STRIDE));
  return BERTH_OK;
}

/* Value v's storage fields against its class: a window names a parent (checked by
 * check_windows), the fields its class does not use are zero, and its bytes lie inside their
 * region at an aligned offset. */
static berth_status_t check_value_storage(mctx_t *c, uint32_t v, const char *w, uint64_t bytes) {
  rd_t *r = c->r;
  const berth_exec_method_t *em = c->em;
  berth_exec_value_t *x = &c->values[v];
  uint64_t at = val_at(c, v);
  if (x->window_parent >= 0) {
    if ((uint32_t)x->window_parent >= c->rec.n_values)
      return rfail(r, CORRUPT, "%s: window parent %d (byte %llu) is out of range (%u values)", w, (int)x->window_parent,
                   (ull)(at + BERTH_FORMAT_VALUE_WINDOW_PARENT), (unsigned)c->rec.n_values);
    return BERTH_OK; /* checked once every value is decoded (check_windows) */
  }
  if (x->window_parent != -1)
    return rfail(r, CORRUPT, "%s: window parent %d (byte %llu) is neither -1 nor a value id", w, (int)x->window_parent,
                 (ull)(at + BERTH_FORMAT_VALUE_WINDOW_PARENT));
  if (x->window_reg != -1 || x->window_stride != 0)
    return rfail(r, CORRUPT, "%s: not windowed, but its window register is %d and stride %lld (expected -1 and 0)", w,
                 (int)x->window_reg, (long long)x->window_stride);
  /* storage: the fields it does not use are zero; the bytes lie inside their region */
  uint8_t storage = x->storage;
  bool use_pool = storage == BERTH_STORAGE_ARENA;
  bool use_index = storage == BERTH_STORAGE_INPUT || storage == BERTH_STORAGE_OUTPUT;
  if ((!use_pool && x->pool) || (!use_index && x->index) || (use_index && x->offset))
    return rfail(r, CORRUPT, "%s: a field its storage class does not use is not 0 (pool %u, index %u, offset %llu)", w,
                 (unsigned)x->pool, (unsigned)x->index, (ull)x->offset);
  uint64_t cap = 0, align = berth_dtype_size(x->type.dtype);
  const char *region = "";
  char rbuf[32];
  switch (storage) {
    case BERTH_STORAGE_ARENA:
      if (x->pool >= (uint32_t)em->n_pools)
        return rfail(r, CORRUPT, "%s: arena pool %u (byte %llu) is out of range (%d pools)", w, (unsigned)x->pool,
                     (ull)(at + BERTH_FORMAT_VALUE_POOL), (int)em->n_pools);
      cap = em->pool_sizes[x->pool];
      berth_snprintf(rbuf, sizeof rbuf, "arena pool %u", (unsigned)x->pool);
      region = rbuf;
      break;
    case BERTH_STORAGE_CONST:
      cap = r->s[BERTH_SECTION_CONSTANTS].size;
      region = "the constant section";
      break;
    case BERTH_STORAGE_STATE:
      cap = em->state_size;
      region = "the state region";
      break;
    case BERTH_STORAGE_HOIST:
      cap = em->hoist_size;
      region = "the hoist region";
      break;
    case BERTH_STORAGE_INPUT:
    case BERTH_STORAGE_OUTPUT: {
      bool in = storage == BERTH_STORAGE_INPUT;
      uint32_t n = in ? c->rec.n_inputs : c->rec.n_outputs;
      if (x->index >= n)
        return rfail(r, CORRUPT, "%s: caller %s index %u (byte %llu) is out of range (%u %ss)", w, in ? "input" : "output",
                     (unsigned)x->index, (ull)(at + BERTH_FORMAT_VALUE_INDEX), (unsigned)n, in ? "input" : "output");
      return BERTH_OK;
    }
  }
  if (bytes > cap || x->offset > cap - bytes)
    return rfail(r, CORRUPT, "%s: bytes [%llu,+%llu) lie outside %s (%llu bytes)", w, (ull)x->offset, (ull)bytes, region,
                 (ull)cap);
  if (storage == BERTH_STORAGE_ARENA && bytes > 0 && x->offset % em->alignment)
    return rfail(r, CORRUPT, "%s: offset %llu (byte %llu) in %s is not a multiple of the method's alignment %u", w,
                 (ull)x->offset, (ull)(at + BERTH_FORMAT_VALUE_OFFSET), region, (unsigned)em->alignment);
  if (bytes > 0 && x->offset % align)
    return rfail(r, CORRUPT, "%s: offset %llu (byte %llu) in %s is not a multiple of the element size %llu", w,
                 (ull)x->offset, (ull)(at + BERTH_FORMAT_VALUE_OFFSET), region, (ull)align);
  return BERTH_OK;
}

/* Windows: one slice of a non-windowed parent (so windows never chain or cycle), of the
 * parent's storage, inside its bytes. */
static berth_status_t check_windows(mctx_t *c, char *w, size_t wcap) {
  rd_t *r = c->r;
  for (uint32_t v = 0; v < c->rec.n_values; v++) {
    berth_exec_value_t *x = &c->values[v];
    if (x->window_parent < 0) continue;
    vwhere(c, v, w, wcap);
    const berth_exec_value_t *par = &c->values[x->window_parent];
    if ((uint32_t)x->window_parent == v || par->window_parent >= 0)
      return rfail(r, CORRUPT, "%s: window parent %d (%%%s) is itself windowed; windows cannot nest", w,
                   (int)x->window_parent, par->name);
    if (x->storage != par->storage || x->pool != par->pool || x->index != par->index)
      return rfail(r, CORRUPT, "%s: a window's storage class, pool and index must repeat its parent's (%%%s)", w, par->name);
    if (x->window_reg < 0 || x->window_reg >= (int32_t)c->rec.n_regs)
      return rfail(r, CORRUPT, "%s: window register %d (byte %llu) is out of range (%u registers)", w, (int)x->window_reg,
                   (ull)(val_at(c, v) + 28), (unsigned)c->rec.n_regs);
    uint64_t esz = berth_dtype_size(x->type.dtype), size = berth_type_bytes(&x->type),
             psize = berth_type_bytes(&par->type);
    uint64_t as = x->window_stride < 0 ? (uint64_t)0 - (uint64_t)x->window_stride : (uint64_t)x->window_stride;
    if (as > (uint64_t)BERTH_MAX_TENSOR_BYTES)
      return rfail(r, RANGE, "%s: window stride %lld exceeds the tensor cap of 2^40 bytes", w, (long long)x->window_stride);
    if (as % esz || x->offset % esz)
      return rfail(r, CORRUPT, "%s: window offset %llu and stride %lld are not multiples of the element size %llu", w,
                   (ull)x->offset, (long long)x->window_stride, (ull)esz);
    if (size > psize || x->offset > psize - size)
      return rfail(r, CORRUPT, "%s: slice 0 [%llu,+%llu) lies outside its parent %%%s (%llu bytes)", w, (ull)x->offset,
                   (ull)size, par->name, (ull)psize);
  }
  return BERTH_OK;
}

static berth_status_t decode_values(mctx_t *c) {
  char w[256];
  for (uint32_t v = 0; v < c->rec.n_values; v++) {
    uint64_t bytes = 0;
    BERTH_TRY(decode_value(c, v, w, sizeof w, &bytes));
    BERTH_TRY(check_value_storage(c, v, w, bytes));
  }
  return check_windows(c, w, sizeof w);
}

static berth_status_t decode_attrs(mctx_t *c) {
  for (uint32_t a = 0; a < c->rec.n_attrs; a++) {
    uint64_t at = rec_at(c->r, BERTH_SECTION_ATTRS, (uint64_t)c->rec.first_attr + a, BERTH_FORMAT_ATTR_SIZE);
    const uint8_t *p = c->r->b + at;
    berth_attr_value_t *x = &c->attrs[a];
    uint64_t fbits = berth_load_le64(p + BERTH_FORMAT_ATTR_F);
    x->i = berth_u64_to_i64(berth_load_le64(p + BERTH_FORMAT_ATTR_I));
    memcpy(&x->f, &fbits, sizeof x->f);
    x->n = berth_u32_to_i32(berth_load_le32(p + BERTH_FORMAT_ATTR_N));
    /* s: the text of a string attribute; whether the op's spec allows one is checked with
     * the instruction that uses the record (decode_instrs) */
    uint32_t sref = berth_load_le32(p + BERTH_FORMAT_ATTR_S);
    x->s = NULL;
    if (sref) {
      char w[128];
      berth_snprintf(w, sizeof w, "method %s, attribute %u", c->mn, (unsigned)a);
      BERTH_TRY(get_str(c->r, sref, w, at + BERTH_FORMAT_ATTR_S, &x->s));
    }
    for (int k = 0; k < BERTH_MAX_ATTR_INTS; k++)
      x->ints[k] = berth_u64_to_i64(berth_load_le64(p + BERTH_FORMAT_ATTR_INTS + 8 * k));
  }
  return BERTH_OK;
}

/* A string attribute record uses only its string field: one encoding per program. */
static bool string_attr_clean(const berth_attr_value_t *a) {
  uint64_t fbits;
  memcpy(&fbits, &a->f, sizeof fbits);
  if (a->i || fbits || a->n) return false;
  for (int k = 0; k < BERTH_MAX_ATTR_INTS; k++)
    if (a->ints[k]) return false;
  return true;
}

/* Byte 1 of an instruction record: a kernel's count of scratch values (0 or 1); 0 elsewhere. */
static berth_status_t decode_n_scratch(rd_t *r, const char *w, uint8_t n, berth_instr_t *x) {
  if (n && x->opcode != BERTH_I_KERNEL)
    return rfail(r, CORRUPT, "%s: byte 1 (n_scratch) is %u; only a kernel has scratch (expected 0)", w, (unsigned)n);
  if (n > 1) return rfail(r, CORRUPT, "%s: n_scratch (byte 1) is %u; a kernel has 0 or 1 scratch values", w, (unsigned)n);
  x->n_scratch = n;
  return BERTH_OK;
}

/* Which fields instruction x's opcode uses (the others must be zero), after checking a
 * kernel's op and operand counts against the op table. */
typedef struct instr_use {
  uint32_t nops, n_attrs;
  bool target, reg, count;
} instr_use_t;

static berth_status_t instr_use(rd_t *r, const char *w, const berth_instr_t *x, instr_use_t *u) {
  memset(u, 0, sizeof *u);
  switch (x->opcode) {
    case BERTH_I_KERNEL: {
      const berth_op_def_t *def = berth_op_get(x->op);
      if (!def && x->op < BERTH_OP_COUNT)
        return rfail(r, BERTH_ERR_UNIMPLEMENTED,
                     "%s: op %u is a kernel this runtime was built without (its BERTH_OPS_HEADER "
                     "selection does not list it)",
                     w, (unsigned)x->op);
      if (!def || def->kind != BERTH_OPKIND_KERNEL || !def->infer || !def->run)
        return rfail(r, CORRUPT, "%s: op %u (%s) is not a kernel", w, (unsigned)x->op, def ? def->name : "unknown op");
      int32_t max_in = def->max_in < 0 || def->max_in > BERTH_MAX_KERNEL_OPERANDS ? BERTH_MAX_KERNEL_OPERANDS : def->max_in;
      if ((int32_t)x->n_in < def->min_in || (int32_t)x->n_in > max_in)
        return rfail(r, CORRUPT, "%s: kernel %s with %u inputs; expected %d to %d", w, def->name, (unsigned)x->n_in,
                     (int)def->min_in, (int)max_in);
      if (def->n_out < 0 || (int32_t)x->n_out != def->n_out)
        return rfail(r, CORRUPT, "%s: kernel %s with %u outputs; expected %d", w, def->name, (unsigned)x->n_out,
                     (int)def->n_out);
      u->nops = (uint32_t)x->n_in + x->n_out + x->n_scratch;
      u->n_attrs = def->n_attrs;
      break;
    }
    case BERTH_I_COPY:
    case BERTH_I_RENAME:
    case BERTH_I_VIEW:
      if (x->n_in != 1 || x->n_out != 1)
        return rfail(r, CORRUPT, "%s: %u inputs and %u outputs; expected 1 and 1 (src, dst)", w, (unsigned)x->n_in,
                     (unsigned)x->n_out);
      u->nops = 2;
      break;
    case BERTH_I_JOIN:
      if (x->n_in < 1 || x->n_in > BERTH_MAX_KERNEL_OPERANDS || x->n_out != 1)
        return rfail(r, CORRUPT, "%s: %u inputs and %u outputs; expected 1 to %d and 1 (the parts, the output)", w,
                     (unsigned)x->n_in, (unsigned)x->n_out, BERTH_MAX_KERNEL_OPERANDS);
      u->nops = (uint32_t)x->n_in + 1;
      break;
    case BERTH_I_JUMP_IF_FALSE:
      if (x->n_in != 1 || x->n_out != 0)
        return rfail(r, CORRUPT, "%s: %u inputs and %u outputs; expected 1 and 0 (the condition)", w, (unsigned)x->n_in,
                     (unsigned)x->n_out);
      u->nops = 1;
      u->target = true;
      break;
    case BERTH_I_ASSERT: {
      if (x->op != BERTH_OP_ASSERT)
        return rfail(r, CORRUPT, "%s: op field is %u; an assert carries op %d (assert)", w, (unsigned)x->op,
                     (int)BERTH_OP_ASSERT);
      if (x->n_in != 1 || x->n_out != 0)
        return rfail(r, CORRUPT, "%s: %u inputs and %u outputs; expected 1 and 0 (the condition)", w, (unsigned)x->n_in,
                     (unsigned)x->n_out);
      u->nops = 1;
      u->n_attrs = berth_op_get(x->op)->n_attrs;
      break;
    }
    case BERTH_I_JUMP: u->target = true; break;
    case BERTH_I_LOOP_NEXT:
      u->target = u->count = true;
      /* fall through */
    case BERTH_I_LOOP_INIT: u->reg = true; break;
    default: break;
  }
  return BERTH_OK;
}

/* The n_attrs attribute records of kernel or assert x against its op's attribute kinds. */
static berth_status_t check_instr_attrs(mctx_t *c, const char *w, const berth_instr_t *x, uint32_t n_attrs) {
  rd_t *r = c->r;
  const berth_op_def_t *def = berth_op_get(x->op);
  for (uint32_t k = 0; k < n_attrs; k++) {
    const berth_attr_value_t *a = &c->attrs[x->attrs + k];
    if (def->attrs[k].kind == BERTH_ATTR_INTS && (a->n < 0 || a->n > BERTH_MAX_ATTR_INTS))
      return rfail(r, CORRUPT, "%s: attribute %s (attribute %u) has %d integers (0..%d)", w, def->attrs[k].name,
                   (unsigned)(x->attrs + k), (int)a->n, BERTH_MAX_ATTR_INTS);
    if (def->attrs[k].kind == BERTH_ATTR_DTYPE && (a->i < 0 || a->i >= BERTH_DTYPE_COUNT))
      return rfail(r, CORRUPT, "%s: attribute %s (attribute %u) is dtype %lld, not a dtype", w, def->attrs[k].name,
                   (unsigned)(x->attrs + k), (long long)a->i);
    if (def->attrs[k].kind != BERTH_ATTR_STRING && a->s)
      return rfail(r, CORRUPT, "%s: attribute %s (attribute %u) has a string but is not a string attribute "
                   "(its string field must be 0)", w, def->attrs[k].name, (unsigned)(x->attrs + k));
    if (def->attrs[k].kind == BERTH_ATTR_STRING && !string_attr_clean(a))
      return rfail(r, CORRUPT, "%s: attribute %s (attribute %u) is a string; its other fields must be 0", w,
                   def->attrs[k].name, (unsigned)(x->attrs + k));
  }
  return BERTH_OK;
}

/* The jump target, loop register and trip count of instruction x (at byte at): in range
 * where its opcode uses them, zero where it does not. */
static berth_status_t check_instr_control(mctx_t *c, const char *w, uint64_t at, const berth_instr_t *x,
                                          const instr_use_t *u) {
  rd_t *r = c->r;
  const mrec_t *m = &c->rec;
  if (u->target) {
    if (x->target < 0 || (uint32_t)x->target >= m->n_instrs)
      return rfail(r, CORRUPT, "%s: jump target %d (byte %llu) is out of range [0,%u)", w, (int)x->target, (ull)(at + BERTH_FORMAT_INSTR_TARGET),
                   (unsigned)m->n_instrs);
  } else if (x->target) {
    return rfail(r, CORRUPT, "%s: target field is %d but it does not jump (expected 0)", w, (int)x->target);
  }
  if (u->reg) {
    if (x->reg < 0 || (uint32_t)x->reg >= m->n_regs)
      return rfail(r, CORRUPT, "%s: loop register %d (byte %llu) is out of range (%u registers)", w, (int)x->reg,
                   (ull)(at + BERTH_FORMAT_INSTR_REG), (unsigned)m->n_regs);
  } else if (x->reg) {
    return rfail(r, CORRUPT, "%s: register field is %d but it uses no register (expected 0)", w, (int)x->reg);
  }
  if (u->count) {
    if (x->count < 1) return rfail(r, CORRUPT, "%s: trip count %lld (byte %llu) is below 1", w, (long long)x->count, (ull)(at + BERTH_FORMAT_INSTR_COUNT));
    if (x->count > BERTH_MAX_DIM)
      return rfail(r, RANGE, "%s: trip count %lld (byte %llu) exceeds the cap of 2^40", w, (long long)x->count,
                   (ull)(at + BERTH_FORMAT_INSTR_COUNT));
  } else if (x->count) {
    return rfail(r, CORRUPT, "%s: count field is %lld but it is not loop_next (expected 0)", w, (long long)x->count);
  }
  return BERTH_OK;
}

static berth_status_t decode_instrs(mctx_t *c) {
  rd_t *r = c->r;
  const mrec_t *m = &c->rec;
  for (uint32_t i = 0; i < m->n_instrs; i++) {
    uint64_t at = ins_at(c, i);
    const uint8_t *p = r->b + at;
    berth_instr_t *x = &c->instrs[i];
    memset(x, 0, sizeof *x);
    x->opcode = p[BERTH_FORMAT_INSTR_OPCODE];
    x->op = berth_load_le16(p + BERTH_FORMAT_INSTR_OP);
    x->n_in = berth_load_le16(p + BERTH_FORMAT_INSTR_N_IN);
    x->n_out = berth_load_le16(p + BERTH_FORMAT_INSTR_N_OUT);
    x->operands = berth_load_le32(p + BERTH_FORMAT_INSTR_OPERANDS);
    x->attrs = berth_load_le32(p + BERTH_FORMAT_INSTR_ATTRS);
    x->target = berth_u32_to_i32(berth_load_le32(p + BERTH_FORMAT_INSTR_TARGET));
    x->reg = berth_u32_to_i32(berth_load_le32(p + BERTH_FORMAT_INSTR_REG));
    x->count = berth_u64_to_i64(berth_load_le64(p + BERTH_FORMAT_INSTR_COUNT));
    if (x->opcode == BERTH_I_VIEW) { /* a view keeps its byte offset in the count field */
      if (x->count < 0 || x->count > BERTH_MAX_VIEW_OFFSET)
        return rfail(r, RANGE, "method %s, instruction %u (view) at byte %llu: byte offset %lld (byte %llu) is out "
                     "of range [0,2^62]", c->mn, (unsigned)i, (ull)at, (long long)x->count,
                     (ull)(at + BERTH_FORMAT_INSTR_VIEW_OFFSET));
      x->view_offset = (uint64_t)x->count;
      x->count = 0;
    }
    char w[160];
    berth_snprintf(w, sizeof w, "method %s, instruction %u (%s) at byte %llu", c->mn, (unsigned)i, berth_exec_opcode_name(x->opcode),
                 (ull)at);
    if (x->opcode >= BERTH_I_COUNT) return rfail(r, CORRUPT, "%s: unknown opcode %u", w, (unsigned)x->opcode);
    BERTH_TRY(decode_n_scratch(r, w, p[BERTH_FORMAT_INSTR_N_SCRATCH], x));
    instr_use_t u;
    BERTH_TRY(instr_use(r, w, x, &u));
    if (x->opcode != BERTH_I_KERNEL && x->opcode != BERTH_I_ASSERT && x->op)
      return rfail(r, CORRUPT, "%s: op field is %u; only kernels and asserts use it (expected 0)", w, (unsigned)x->op);
    if (u.nops == 0 && (x->n_in || x->n_out || x->operands))
      return rfail(r, CORRUPT, "%s: operand fields are set (%u in, %u out, first %u) but it takes no operands", w,
                   (unsigned)x->n_in, (unsigned)x->n_out, (unsigned)x->operands);
    if (u.nops > 0 && ((uint64_t)x->operands > m->n_operands || u.nops > m->n_operands - x->operands))
      return rfail(r, CORRUPT, "%s: operands [%u,+%u) are out of range (%u operands)", w, (unsigned)x->operands,
                   (unsigned)u.nops, (unsigned)m->n_operands);
    if (u.n_attrs == 0 && x->attrs)
      return rfail(r, CORRUPT, "%s: attribute index %u, but it has no attributes (expected 0)", w, (unsigned)x->attrs);
    if (u.n_attrs > 0 && ((uint64_t)x->attrs > m->n_attrs || u.n_attrs > m->n_attrs - x->attrs))
      return rfail(r, CORRUPT, "%s: attributes [%u,+%u) are out of range (%u attributes)", w, (unsigned)x->attrs,
                   (unsigned)u.n_attrs, (unsigned)m->n_attrs);
    if (u.n_attrs > 0) BERTH_TRY(check_instr_attrs(c, w, x, u.n_attrs));
    BERTH_TRY(check_instr_control(c, w, at, x, &u));
  }
  return BERTH_OK;
}

/* Every instruction reachable from the entry must still be able to reach a return: a jump
 * cycle without an exit is an endless loop whatever the data. (Loops that exit on data are
 * bounded at run time by the caller's step limit.) No instruction may fall off the end. */
static berth_status_t check_cfg(mctx_t *c, uint8_t *scratch) {
  uint32_t n = c->rec.n_instrs;
  cfg_lay_t l;
  plan_cfg(n, &l); /* cannot fail: scratch_need planned it */
  uint8_t *reach = scratch + l.reach, *ok = scratch + l.ok;
  int32_t *pstart = (int32_t *)(void *)(scratch + l.pred_start), *preds = (int32_t *)(void *)(scratch + l.preds),
          *stack = (int32_t *)(void *)(scratch + l.stack);
  memset(reach, 0, n);
  memset(ok, 0, n);
  memset(pstart, 0, ((size_t)n + 1) * sizeof *pstart);
  int32_t succ[2];
#define SUCCS(i, ns)                                                                     \
  do {                                                                                   \
    const berth_instr_t *in_ = &c->instrs[i];                                            \
    ns = 0;                                                                              \
    switch (in_->opcode) {                                                               \
      case BERTH_I_RETURN: break;                                                        \
      case BERTH_I_JUMP: succ[ns++] = in_->target; break;                                \
      case BERTH_I_JUMP_IF_FALSE:                                                        \
      case BERTH_I_LOOP_NEXT:                                                            \
        succ[ns++] = (int32_t)(i) + 1;                                                   \
        succ[ns++] = in_->target;                                                        \
        break;                                                                           \
      default: succ[ns++] = (int32_t)(i) + 1; break;                                     \
    }                                                                                    \
  } while (0)
  for (uint32_t i = 0; i < n; i++) {
    int ns;
    SUCCS(i, ns);
    for (int k = 0; k < ns; k++) {
      if (succ[k] >= (int32_t)n)
        return rfail(c->r, CORRUPT, "method %s, instruction %u (%s) at byte %llu: falls off the end of the method (a method ends with return or jump)",
                     c->mn, (unsigned)i, berth_exec_opcode_name(c->instrs[i].opcode), (ull)ins_at(c, i));
      pstart[succ[k] + 1]++;
    }
  }
  for (uint32_t i = 0; i < n; i++) pstart[i + 1] += pstart[i];
  /* fill predecessors, using stack[] as the per-instruction fill cursor */
  for (uint32_t i = 0; i < n; i++) stack[i] = pstart[i];
  for (uint32_t i = 0; i < n; i++) {
    int ns;
    SUCCS(i, ns);
    for (int k = 0; k < ns; k++) preds[stack[succ[k]]++] = (int32_t)i;
  }
  /* forward: reachable from the entry */
  int32_t sp = 0;
  stack[sp++] = 0;
  reach[0] = 1;
  while (sp > 0) {
    int32_t i = stack[--sp];
    int ns;
    SUCCS(i, ns);
    for (int k = 0; k < ns; k++)
      if (!reach[succ[k]]) {
        reach[succ[k]] = 1;
        stack[sp++] = succ[k];
      }
  }
#undef SUCCS
  /* backward: can reach a return */
  sp = 0;
  for (uint32_t i = 0; i < n; i++)
    if (c->instrs[i].opcode == BERTH_I_RETURN) {
      ok[i] = 1;
      stack[sp++] = (int32_t)i;
    }
  while (sp > 0) {
    int32_t i = stack[--sp];
    for (int32_t k = pstart[i]; k < pstart[i + 1]; k++)
      if (!ok[preds[k]]) {
        ok[preds[k]] = 1;
        stack[sp++] = preds[k];
      }
  }
  for (uint32_t i = 0; i < n; i++)
    if (reach[i] && !ok[i])
      return rfail(c->r, CORRUPT, "method %s, instruction %u (%s) at byte %llu: reachable, but no path from it reaches a return (an endless loop)",
                   c->mn, (unsigned)i, berth_exec_opcode_name(c->instrs[i].opcode), (ull)ins_at(c, i));
  return BERTH_OK;
}

/* ---- the whole file ----------------------------------------------------------------------- */

static uint8_t *align_ptr(void *p, size_t *size) {
  uintptr_t a = (uintptr_t)p, b = (a + 7) & ~(uintptr_t)7;
  if (*size < (size_t)(b - a)) return NULL;
  *size -= (size_t)(b - a);
  return (uint8_t *)b;
}

/* The program-wide fields of the checked header and section table. */
static void decode_program_fields(const rd_t *r, berth_format_program_t *fp) {
  fp->version = r->version;
  for (int k = 0; k < 3; k++) fp->writer_version[k] = r->writer[k];
  fp->file_size = r->len;
  fp->exec.alloc_inputs = (r->flags & BERTH_FORMAT_FLAG_ALLOC_INPUTS) != 0;
  fp->exec.alloc_outputs = (r->flags & BERTH_FORMAT_FLAG_ALLOC_OUTPUTS) != 0;
  fp->exec.n_methods = (int32_t)r->n_methods;
  fp->exec.constants_size = r->s[BERTH_SECTION_CONSTANTS].size;
  fp->exec.constants = r->b + r->s[BERTH_SECTION_CONSTANTS].off;
  static const uint32_t ir_ids[2] = {BERTH_SECTION_IR, BERTH_SECTION_IR_REF}; /* at most one is present */
  for (int k = 0; k < 2; k++) {
    uint32_t id = ir_ids[k];
    if (r->s[id].present) {
      fp->ir = r->b + r->s[id].off;
      fp->ir_size = r->s[id].size;
      fp->ir_section = id;
    }
  }
}

/* Method mi's record of the optional hoist section: its once-stream (shorter than the
 * method, whose last instruction is a return or jump) and its hoist region (within the cap). */
static berth_status_t decode_hoist(rd_t *r, uint32_t mi, const char *mn, berth_exec_method_t *em) {
  em->n_once = 0;
  em->hoist_size = 0;
  if (!r->s[BERTH_SECTION_HOIST].present) return BERTH_OK;
  uint64_t at = r->s[BERTH_SECTION_HOIST].off + (uint64_t)mi * BERTH_FORMAT_HOIST_SIZE;
  const uint8_t *p = r->b + at;
  uint32_t n_once = berth_load_le32(p + BERTH_FORMAT_HOIST_N_ONCE), reserved = berth_load_le32(p + BERTH_FORMAT_HOIST_RESERVED);
  uint64_t bytes = berth_load_le64(p + BERTH_FORMAT_HOIST_BYTES);
  if (reserved)
    return rfail(r, CORRUPT, "section hoist, method %s (byte %llu): reserved field is %u, not 0", mn,
                 (ull)(at + BERTH_FORMAT_HOIST_RESERVED), (unsigned)reserved);
  if (n_once >= (uint32_t)em->n_instrs)
    return rfail(r, CORRUPT, "section hoist, method %s (byte %llu): a once-stream of %u instructions is not shorter than "
                 "the method (%d instructions)", mn, (ull)(at + BERTH_FORMAT_HOIST_N_ONCE), (unsigned)n_once,
                 (int)em->n_instrs);
  if (bytes > BERTH_FORMAT_MAX_ARENA_BYTES)
    return rfail(r, RANGE, "section hoist, method %s (byte %llu): a hoist region of %llu bytes exceeds the cap of 2^40", mn,
                 (ull)(at + BERTH_FORMAT_HOIST_BYTES), (ull)bytes);
  em->n_once = (int32_t)n_once;
  em->hoist_size = bytes;
  return BERTH_OK;
}

/* The optional bounds section: per record (method, output, axis, extent value id), in
 * increasing (method, output, axis) order (an output may have several bounded axes), the axis inside the output's
 * rank, the extent a value of the method (the verifier checks its type and that it is
 * written before the return). Each method gets its slice. */
static berth_status_t decode_bounds(rd_t *r, berth_exec_method_t *methods, berth_exec_bound_t *bounds) {
  uint64_t at0 = r->s[BERTH_SECTION_BOUNDS].off;
  int64_t prev_m = -1, prev_o = -1, prev_a = -1;
  for (uint64_t k = 0; k < r->n_bounds; k++) {
    uint64_t at = at0 + k * BERTH_FORMAT_BOUND_SIZE;
    const uint8_t *p = r->b + at;
    uint32_t mi = berth_load_le32(p + BERTH_FORMAT_BOUND_METHOD), out = berth_load_le32(p + BERTH_FORMAT_BOUND_OUTPUT);
    uint32_t axis = berth_load_le32(p + BERTH_FORMAT_BOUND_AXIS);
    int32_t ext = berth_u32_to_i32(berth_load_le32(p + BERTH_FORMAT_BOUND_EXTENT));
    if (mi >= r->n_methods)
      return rfail(r, CORRUPT, "section bounds, record %llu (byte %llu): method %u is out of range (%u methods)", (ull)k,
                   (ull)at, (unsigned)mi, (unsigned)r->n_methods);
    berth_exec_method_t *em = &methods[mi];
    if ((int64_t)mi < prev_m || ((int64_t)mi == prev_m && ((int64_t)out < prev_o || ((int64_t)out == prev_o && (int64_t)axis <= prev_a))))
      return rfail(r, CORRUPT, "section bounds, record %llu (byte %llu): method %u output %u axis %u is not after the "
                   "previous record's (records are in increasing method, output, axis order)", (ull)k, (ull)at,
                   (unsigned)mi, (unsigned)out, (unsigned)axis);
    if (out >= (uint32_t)em->n_outputs)
      return rfail(r, CORRUPT, "section bounds, record %llu (byte %llu): method %s has no output %u (%d outputs)", (ull)k,
                   (ull)(at + BERTH_FORMAT_BOUND_OUTPUT), em->name, (unsigned)out, (int)em->n_outputs);
    int32_t rank = em->values[em->outputs[out]].type.rank;
    if (axis >= (uint32_t)rank)
      return rfail(r, CORRUPT, "section bounds, record %llu (byte %llu): axis %u of method %s output %u is outside its "
                   "rank %d", (ull)k, (ull)(at + BERTH_FORMAT_BOUND_AXIS), (unsigned)axis, em->name, (unsigned)out, (int)rank);
    if (ext < 0 || ext >= em->n_values)
      return rfail(r, CORRUPT, "section bounds, record %llu (byte %llu): extent value id %d is out of range (method %s "
                   "has %d values)", (ull)k, (ull)(at + 12), (int)ext, em->name, (int)em->n_values);
    if ((int64_t)mi != prev_m) em->bounds = &bounds[k];
    em->n_bounds++;
    bounds[k] = (berth_exec_bound_t){(int32_t)out, (int32_t)axis, ext};
    prev_m = mi, prev_o = out, prev_a = axis;
  }
  return BERTH_OK;
}

/* Everything of berth_format_read but the verifier: checks and decodes the bytes into mem,
 * giving the program and the aligned scratch. Out of line, so that its large frame (the
 * reader's state, a method's decoding context) is gone while the verifier runs (the stack
 * budget of a small runtime's load, tests/cli/runtime_stack). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static berth_status_t decode_program(const void *bytes, size_t len, void *mem, size_t mem_size, void *scratch,
                                     size_t scratch_size, uint32_t flags, berth_format_program_t **out,
                                     uint8_t **scratch_out, size_t *scratch_size_out, berth_diag_t *diag) {
  rd_t r;
  plan_t plan;
  berth_format_sizes_t sizes = {0, 0};
  memset(&plan, 0, sizeof plan);
  if (!out || !mem || !scratch) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_format_read: NULL argument");
  if ((uintptr_t)bytes % 8)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "program bytes must be 8-byte aligned (constants are used in place); load them into aligned memory");
  BERTH_TRY(prepare(&r, bytes, len, (flags & BERTH_FORMAT_READ_CHECKSUM_CHECKED) != 0, diag, &sizes, &plan));
  if (mem_size < sizes.program_bytes)
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "the program needs %zu bytes of memory; %zu were given",
                      sizes.program_bytes, mem_size);
  if (scratch_size < sizes.scratch_bytes)
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "loading needs %zu bytes of scratch; %zu were given",
                      sizes.scratch_bytes, scratch_size);
  size_t msize = mem_size, ssize = scratch_size;
  uint8_t *base = align_ptr(mem, &msize), *sbase = align_ptr(scratch, &ssize);
  if (!base || !sbase) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "memory too small to align");
  memset(base, 0, (size_t)(plan.total - 8));
  berth_format_program_t *fp = (berth_format_program_t *)(void *)(base + plan.prog);
  berth_exec_method_t *methods = (berth_exec_method_t *)(void *)(base + plan.methods);
  berth_format_method_t *fmethods = (berth_format_method_t *)(void *)(base + plan.fmethods);
  berth_exec_value_t *values = (berth_exec_value_t *)(void *)(base + plan.values);
  berth_instr_t *instrs = (berth_instr_t *)(void *)(base + plan.instrs);
  int32_t *operands = (int32_t *)(void *)(base + plan.operands);
  berth_attr_value_t *attrs = (berth_attr_value_t *)(void *)(base + plan.attrs);
  uint64_t *pools = (uint64_t *)(void *)(base + plan.pools);
  int32_t *io_ids = (int32_t *)(void *)(base + plan.io_ids);
  const char **io_names = (const char **)(void *)(base + plan.io_names);

  const uint8_t *b = bytes;
  decode_program_fields(&r, fp);
  fp->exec.methods = methods;
  fp->methods = fmethods;
  for (uint32_t i = 0; i < r.n_methods; i++) {
    mctx_t c;
    memset(&c, 0, sizeof c);
    c.r = &r;
    c.index = i;
    read_mrec(&r, i, &c.rec);
    const mrec_t *m = &c.rec;
    berth_exec_method_t *em = &methods[i];
    uint64_t at = rec_at(&r, BERTH_SECTION_METHODS, i, BERTH_FORMAT_METHOD_SIZE);
    BERTH_TRY(get_str(&r, m->name, "method record", at, &em->name)); /* checked before: cannot fail */
    c.mn = em->name;
    c.em = em;
    c.values = values + m->first_value;
    c.instrs = instrs + m->first_instr;
    c.operands = operands + m->first_operand;
    c.attrs = attrs + m->first_attr;
    em->n_values = (int32_t)m->n_values;
    em->values = c.values;
    em->n_instrs = (int32_t)m->n_instrs;
    em->instrs = c.instrs;
    em->n_operands = (int32_t)m->n_operands;
    em->operands = c.operands;
    em->n_attrs = (int32_t)m->n_attrs;
    em->attrs = c.attrs;
    em->n_inputs = (int32_t)m->n_inputs;
    em->inputs = io_ids + m->first_io;
    em->n_outputs = (int32_t)m->n_outputs;
    em->outputs = io_ids + m->first_io + m->n_inputs;
    em->n_regs = (int32_t)m->n_regs;
    em->n_pools = (int32_t)m->n_pools;
    em->pool_sizes = pools + m->first_pool;
    em->state_size = m->state_size;
    em->state_init = b + r.s[BERTH_SECTION_STATE].off + m->state_offset;
    em->alignment = m->alignment;
    BERTH_TRY(decode_hoist(&r, i, c.mn, em));
    fmethods[i].input_names = io_names + m->first_io;
    fmethods[i].output_names = io_names + m->first_io + m->n_inputs;
    for (uint32_t k = 0; k < m->n_pools; k++) {
      uint64_t pat = rec_at(&r, BERTH_SECTION_POOLS, (uint64_t)m->first_pool + k, 8);
      uint64_t ps = berth_load_le64(b + pat);
      if (ps > BERTH_FORMAT_MAX_ARENA_BYTES)
        return rfail(&r, RANGE, "method %s, pool %u at byte %llu: an arena of %llu bytes exceeds the cap of 2^40", c.mn,
                     (unsigned)k, (ull)pat, (ull)ps);
      pools[m->first_pool + k] = ps;
    }
    BERTH_TRY(decode_values(&c));
    for (uint32_t k = 0; k < m->n_operands; k++) {
      uint64_t oat = rec_at(&r, BERTH_SECTION_OPERANDS, (uint64_t)m->first_operand + k, 4);
      int32_t v = berth_u32_to_i32(berth_load_le32(b + oat));
      if (v < 0 || (uint32_t)v >= m->n_values)
        return rfail(&r, CORRUPT, "method %s, operand %u at byte %llu: value id %d is out of range (%u values)", c.mn,
                     (unsigned)k, (ull)oat, (int)v, (unsigned)m->n_values);
      c.operands[k] = v;
    }
    for (uint32_t k = 0; k < m->n_inputs + m->n_outputs; k++) {
      uint64_t iat = rec_at(&r, BERTH_SECTION_IO, (uint64_t)m->first_io + k, BERTH_FORMAT_IO_SIZE);
      bool in = k < m->n_inputs;
      uint32_t idx = in ? k : k - m->n_inputs;
      char w[128];
      berth_snprintf(w, sizeof w, "method %s, %s %u", c.mn, in ? "input" : "output", (unsigned)idx);
      int32_t v = berth_u32_to_i32(berth_load_le32(b + iat + BERTH_FORMAT_IO_VALUE));
      if (v < 0 || (uint32_t)v >= m->n_values)
        return rfail(&r, CORRUPT, "%s (byte %llu): value id %d is out of range (%u values)", w, (ull)iat, (int)v,
                     (unsigned)m->n_values);
      io_ids[m->first_io + k] = v;
      BERTH_TRY(get_str(&r, berth_load_le32(b + iat + BERTH_FORMAT_IO_NAME), w, iat + BERTH_FORMAT_IO_NAME,
                        &io_names[m->first_io + k]));
    }
    BERTH_TRY(decode_attrs(&c));
    BERTH_TRY(decode_instrs(&c));
    BERTH_TRY(check_cfg(&c, sbase));
  }
  BERTH_TRY(decode_bounds(&r, methods, (berth_exec_bound_t *)(void *)(base + plan.bounds))); /* fp->verified: 0 */
  *out = fp;
  *scratch_out = sbase;
  *scratch_size_out = ssize;
  return BERTH_OK;
}

berth_status_t berth_format_read(const void *bytes, size_t len, void *mem, size_t mem_size, void *scratch,
                                 size_t scratch_size, uint32_t flags, const berth_format_program_t **out,
                                 berth_diag_t *diag) {
  berth_format_program_t *fp = NULL;
  uint8_t *sbase = NULL;
  size_t ssize = 0;
  BERTH_TRY(decode_program(bytes, len, mem, mem_size, scratch, scratch_size, flags, &fp, &sbase, &ssize, diag));
  if (!(flags & BERTH_FORMAT_READ_NO_VERIFY)) {
    size_t need = berth_verify_program_scratch_size(&fp->exec);
    if (need == SIZE_MAX || need > ssize)
      return berth_fail(diag, BERTH_ERR_INTERNAL,
                        "the verifier needs %zu bytes of scratch but berth_format_read_size planned %zu (a berth bug)",
                        need, ssize);
    berth_status_t st = berth_verify_program(&fp->exec, sbase, ssize, diag);
    if (st != BERTH_OK) return berth_fail_prefix(diag, st, "verifier");
    fp->verified = true;
  }
  *out = fp;
  return BERTH_OK;
}
