/* The program file writer (see write_program.h and docs/format.md). Compiler side. */
#include "writer/write_program.h"

#include "base/byte_reader.h"
#include "base/checked.h"
#include "format/read_program.h"
#include "writer/ir_section.h"
#include "base/try.h"
#include "berth/memory.h"

#include <stdlib.h>
#include <string.h>

/* ---- a growable little-endian byte buffer -------------------------------------------------- */

typedef struct wbuf {
  uint8_t *data;
  size_t len, cap;
  bool oom;
} wbuf_t;

static bool wb_reserve(wbuf_t *b, size_t extra) {
  if (b->oom) return false;
  if (extra <= b->cap - b->len) return true;
  size_t nc = b->cap ? b->cap : 256;
  while (nc - b->len < extra) {
    if (nc > SIZE_MAX / 2) {
      b->oom = true;
      return false;
    }
    nc *= 2;
  }
  uint8_t *nd = realloc(b->data, nc);
  if (!nd) {
    b->oom = true;
    return false;
  }
  b->data = nd;
  b->cap = nc;
  return true;
}

static void wb_bytes(wbuf_t *b, const void *src, size_t n) {
  if (!n || !wb_reserve(b, n)) return;
  memcpy(b->data + b->len, src, n);
  b->len += n;
}

static void wb_zeros(wbuf_t *b, size_t n) {
  if (!n || !wb_reserve(b, n)) return;
  memset(b->data + b->len, 0, n);
  b->len += n;
}

static void wb_u8(wbuf_t *b, uint8_t v) { wb_bytes(b, &v, 1); }

static void wb_u16(wbuf_t *b, uint16_t v) {
  uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  wb_bytes(b, x, 2);
}

static void wb_u32(wbuf_t *b, uint32_t v) {
  uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  wb_bytes(b, x, 4);
}

static void wb_u64(wbuf_t *b, uint64_t v) {
  wb_u32(b, (uint32_t)v);
  wb_u32(b, (uint32_t)(v >> 32));
}

static void wb_i32(wbuf_t *b, int32_t v) { wb_u32(b, (uint32_t)v); }
static void wb_i64(wbuf_t *b, int64_t v) { wb_u64(b, (uint64_t)v); }

static void wb_f64(wbuf_t *b, double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  wb_u64(b, u);
}

static void wb_pad(wbuf_t *b, size_t align) {
  size_t r = b->len % align;
  if (r) wb_zeros(b, align - r);
}

static void wb_free(wbuf_t *b) { free(b->data); }

/* ---- strings --------------------------------------------------------------------------- */

/* Appends a name (NULL or "" share offset 0). Returns false if it is too long. */
static bool add_str(wbuf_t *s, const char *str, uint32_t *ref) {
  size_t n = str ? strlen(str) : 0;
  if (n == 0) {
    *ref = 0;
    return true;
  }
  if (n > BERTH_FORMAT_MAX_NAME || s->len > UINT32_MAX) return false;
  *ref = (uint32_t)s->len;
  wb_bytes(s, str, n + 1);
  return true;
}

berth_format_write_options_t berth_format_write_options_default(void) {
  berth_format_write_options_t o;
  memset(&o, 0, sizeof o);
  o.checksum = true;
  return o;
}

/* The IR method matching exec method mi, if names and signature counts agree. */
static const berth_ir_method_t *ir_method(const berth_format_write_options_t *o, const berth_exec_program_t *p, int32_t mi) {
  if (!o->ir || o->ir->n_methods != p->n_methods) return NULL;
  const berth_ir_method_t *m = &o->ir->methods[mi];
  const berth_exec_method_t *em = &p->methods[mi];
  if (!m->name || !em->name || strcmp(m->name, em->name) != 0) return NULL;
  const berth_ir_graph_t *body = &m->graphs[m->body];
  if (body->n_params != em->n_inputs || body->n_results != em->n_outputs) return NULL;
  return m;
}

/* ---- the writer, stage by stage ----------------------------------------------------------
 * per method: check its tables (write_check_method), then its record and state
 * (write_method_record), pools, values, instructions, operands, attributes and io entries
 * into their sections; the optional IR section; then the file: header, section table and the
 * sections into one 64-byte aligned buffer of the final size (write_assemble); then its
 * checksum (write_finish). */

enum { NS = BERTH_SECTION_MAX + 1 };

typedef struct wctx {
  const berth_exec_program_t *p;
  berth_format_write_options_t o;
  wbuf_t s[NS];       /* the sections, filled method by method */
  uint64_t first[NS]; /* records written so far per section: the next method's first index */
  bool store_ir;
  bool hoists; /* some method has a once-stream or a hoist region: write the hoist section */
  berth_diag_t *diag;
} wctx_t;

#define WFAIL(...) berth_fail(w->diag, BERTH_ERR_INVALID_ARGUMENT, __VA_ARGS__)

static bool bad_table(int32_t n, const void *p) { return n < 0 || (n > 0 && !p); }

static berth_status_t write_check_method(wctx_t *w, const berth_exec_method_t *m, const char *mn) {
  if (bad_table(m->n_values, m->values) || bad_table(m->n_instrs, m->instrs) || bad_table(m->n_operands, m->operands) ||
      bad_table(m->n_attrs, m->attrs) || bad_table(m->n_inputs, m->inputs) || bad_table(m->n_outputs, m->outputs) ||
      bad_table(m->n_pools, m->pool_sizes) || bad_table(m->n_bounds, m->bounds) || m->n_regs < 0 ||
      (m->state_size > 0 && !m->state_init))
    return WFAIL("method %s: a table has a negative count or no data", mn);
  if (m->n_pools > BERTH_FORMAT_MAX_POOLS || m->n_regs > BERTH_FORMAT_MAX_REGS || m->n_inputs > BERTH_FORMAT_MAX_IO ||
      m->n_outputs > BERTH_FORMAT_MAX_IO)
    return WFAIL("method %s: more pools, registers, inputs or outputs than the format holds", mn);
  return BERTH_OK;
}

/* The method's record (METHOD_SIZE bytes), its state's initial bytes and its pool sizes;
 * advances the first-record counters past the method's records. */
static berth_status_t write_method_record(wctx_t *w, const berth_exec_method_t *m, const char *mn) {
  wbuf_t *mb = &w->s[BERTH_SECTION_METHODS], *stb = &w->s[BERTH_SECTION_STATE];
  uint64_t *first = w->first;
  uint32_t name;
  if (!add_str(&w->s[BERTH_SECTION_STRINGS], m->name, &name)) return WFAIL("method %s: name too long", mn);
  wb_pad(stb, BERTH_FORMAT_STATE_ALIGN);
  uint64_t state_off = stb->len;
  wb_bytes(stb, m->state_init, (size_t)m->state_size);
  wb_u32(mb, name);
  wb_u32(mb, m->alignment);
  wb_u32(mb, (uint32_t)m->n_regs);
  wb_u32(mb, (uint32_t)m->n_pools);
  wb_u32(mb, (uint32_t)first[BERTH_SECTION_POOLS]);
  wb_u32(mb, (uint32_t)m->n_values);
  wb_u32(mb, (uint32_t)first[BERTH_SECTION_VALUES]);
  wb_u32(mb, (uint32_t)m->n_instrs);
  wb_u32(mb, (uint32_t)first[BERTH_SECTION_INSTRS]);
  wb_u32(mb, (uint32_t)m->n_operands);
  wb_u32(mb, (uint32_t)first[BERTH_SECTION_OPERANDS]);
  wb_u32(mb, (uint32_t)m->n_attrs);
  wb_u32(mb, (uint32_t)first[BERTH_SECTION_ATTRS]);
  wb_u32(mb, (uint32_t)m->n_inputs);
  wb_u32(mb, (uint32_t)m->n_outputs);
  wb_u32(mb, (uint32_t)first[BERTH_SECTION_IO]);
  wb_u64(mb, state_off);
  wb_u64(mb, m->state_size);
  first[BERTH_SECTION_POOLS] += (uint64_t)m->n_pools;
  first[BERTH_SECTION_VALUES] += (uint64_t)m->n_values;
  first[BERTH_SECTION_INSTRS] += (uint64_t)m->n_instrs;
  first[BERTH_SECTION_OPERANDS] += (uint64_t)m->n_operands;
  first[BERTH_SECTION_ATTRS] += (uint64_t)m->n_attrs;
  first[BERTH_SECTION_IO] += (uint64_t)m->n_inputs + (uint64_t)m->n_outputs;
  for (int k = BERTH_SECTION_VALUES; k <= BERTH_SECTION_POOLS; k++)
    if (first[k] > UINT32_MAX) return WFAIL("too many records for the format (section %s)", berth_format_section_name((uint32_t)k));
  for (int32_t k = 0; k < m->n_pools; k++) wb_u64(&w->s[BERTH_SECTION_POOLS], m->pool_sizes[k]);
  return BERTH_OK;
}

/* Values: the fields a storage class does not use are written as zero; a window repeats
 * its parent's storage class, pool and index. */
static berth_status_t write_values(wctx_t *w, const berth_exec_method_t *m, const char *mn) {
  for (int32_t v = 0; v < m->n_values; v++) {
    const berth_exec_value_t *x = &m->values[v];
    const berth_exec_value_t *home = x;
    bool win = x->window_parent >= 0;
    if (win) {
      if (x->window_parent >= m->n_values)
        return WFAIL("method %s: value %d has window parent %d out of range", mn, (int)v, (int)x->window_parent);
      home = &m->values[x->window_parent];
    }
    if (x->type.rank < 0 || x->type.rank > BERTH_MAX_RANK || (unsigned)x->type.dtype >= BERTH_DTYPE_COUNT)
      return WFAIL("method %s: value %d has an invalid type", mn, (int)v);
    uint32_t vname;
    if (!add_str(&w->s[BERTH_SECTION_STRINGS], x->name, &vname))
      return WFAIL("method %s: value %d's name is too long", mn, (int)v);
    wbuf_t *vb = &w->s[BERTH_SECTION_VALUES];
    uint8_t cls = home->storage;
    wb_u32(vb, vname);
    wb_u8(vb, cls);
    wb_u8(vb, (uint8_t)x->type.dtype);
    wb_u8(vb, (uint8_t)x->type.rank);
    wb_u8(vb, 0);
    wb_u32(vb, cls == BERTH_STORAGE_ARENA ? home->pool : 0);
    wb_u32(vb, cls == BERTH_STORAGE_INPUT || cls == BERTH_STORAGE_OUTPUT ? home->index : 0);
    bool use_off = win || cls == BERTH_STORAGE_ARENA || cls == BERTH_STORAGE_CONST || cls == BERTH_STORAGE_STATE ||
                   cls == BERTH_STORAGE_HOIST;
    wb_u64(vb, use_off ? x->offset : 0);
    wb_i32(vb, win ? x->window_parent : -1);
    wb_i32(vb, win ? x->window_reg : -1);
    wb_i64(vb, win ? x->window_stride : 0);
    for (int d = 0; d < BERTH_MAX_RANK; d++) wb_i64(vb, d < x->type.rank ? x->type.dims[d] : 0);
  }
  return BERTH_OK;
}

/* An instruction with only the fields its opcode uses (the others zero). */
static berth_instr_t instr_used_fields(const berth_instr_t *x) {
  berth_instr_t r;
  memset(&r, 0, sizeof r);
  r.opcode = x->opcode;
  switch (x->opcode) {
    case BERTH_I_KERNEL: {
      const berth_op_def_t *def = berth_op_get(x->op);
      r.op = x->op;
      r.n_in = x->n_in;
      r.n_out = x->n_out;
      r.n_scratch = x->n_scratch;
      r.operands = x->operands;
      r.attrs = def && def->n_attrs > 0 ? x->attrs : 0;
      break;
    }
    case BERTH_I_VIEW:
      r.view_offset = x->view_offset;
      /* fall through */
    case BERTH_I_COPY:
    case BERTH_I_RENAME:
      r.n_in = 1;
      r.n_out = 1;
      r.operands = x->operands;
      break;
    case BERTH_I_JOIN:
      r.n_in = x->n_in;
      r.n_out = 1;
      r.operands = x->operands;
      break;
    case BERTH_I_JUMP_IF_FALSE:
      r.n_in = 1;
      r.operands = x->operands;
      r.target = x->target;
      break;
    case BERTH_I_ASSERT:
      r.op = x->op;
      r.n_in = 1;
      r.operands = x->operands;
      r.attrs = x->attrs;
      break;
    case BERTH_I_JUMP: r.target = x->target; break;
    case BERTH_I_LOOP_NEXT:
      r.target = x->target;
      r.count = x->count;
      r.reg = x->reg;
      break;
    case BERTH_I_LOOP_INIT: r.reg = x->reg; break;
    default: break;
  }
  return r;
}

static void write_instrs(wctx_t *w, const berth_exec_method_t *m) {
  wbuf_t *ib = &w->s[BERTH_SECTION_INSTRS];
  for (int32_t i = 0; i < m->n_instrs; i++) {
    berth_instr_t x = instr_used_fields(&m->instrs[i]);
    wb_u8(ib, x.opcode);
    wb_u8(ib, x.n_scratch);
    wb_u16(ib, x.op);
    wb_u16(ib, x.n_in);
    wb_u16(ib, x.n_out);
    wb_u32(ib, x.operands);
    wb_u32(ib, x.attrs);
    wb_i32(ib, x.target);
    wb_i32(ib, x.reg);
    /* one i64 field: a loop_next's trip count, a view's byte offset (docs/format.md) */
    wb_i64(ib, x.opcode == BERTH_I_VIEW ? (int64_t)x.view_offset : x.count);
  }
  for (int32_t k = 0; k < m->n_operands; k++) wb_i32(&w->s[BERTH_SECTION_OPERANDS], m->operands[k]);
}

static berth_status_t write_attrs(wctx_t *w, const berth_exec_method_t *m, const char *mn) {
  for (int32_t k = 0; k < m->n_attrs; k++) {
    const berth_attr_value_t *a = &m->attrs[k];
    wbuf_t *ab = &w->s[BERTH_SECTION_ATTRS];
    wb_i64(ab, a->i);
    wb_f64(ab, a->f);
    uint32_t sref;
    if (!add_str(&w->s[BERTH_SECTION_STRINGS], a->s, &sref))
      return WFAIL("method %s: attribute %d: a string of more than %d bytes", mn, (int)k, BERTH_FORMAT_MAX_NAME);
    wb_i32(ab, a->n);
    wb_u32(ab, sref);
    for (int j = 0; j < BERTH_MAX_ATTR_INTS; j++) wb_i64(ab, a->ints[j]);
  }
  return BERTH_OK;
}

/* Inputs then outputs, each with the name the caller knows it by (the IR's, when given). */
static berth_status_t write_io(wctx_t *w, const berth_exec_method_t *m, const berth_ir_method_t *irm, const char *mn) {
  for (int32_t k = 0; k < m->n_inputs + m->n_outputs; k++) {
    bool in = k < m->n_inputs;
    int32_t v = in ? m->inputs[k] : m->outputs[k - m->n_inputs];
    const char *name = v >= 0 && v < m->n_values ? m->values[v].name : NULL;
    if (irm) {
      const berth_ir_graph_t *body = &irm->graphs[irm->body];
      int32_t iv = in ? body->params[k] : body->results[k - m->n_inputs];
      if (iv >= 0 && iv < irm->n_values) name = irm->values[iv].name;
    }
    uint32_t ref;
    if (!add_str(&w->s[BERTH_SECTION_STRINGS], name, &ref))
      return WFAIL("method %s: an input or output name is too long", mn);
    wb_i32(&w->s[BERTH_SECTION_IO], v);
    wb_u32(&w->s[BERTH_SECTION_IO], ref);
  }
  return BERTH_OK;
}

static berth_status_t write_method(wctx_t *w, int32_t mi) {
  const berth_exec_method_t *m = &w->p->methods[mi];
  const char *mn = m->name ? m->name : "?";
  BERTH_TRY(write_check_method(w, m, mn));
  BERTH_TRY(write_method_record(w, m, mn));
  BERTH_TRY(write_values(w, m, mn));
  write_instrs(w, m);
  BERTH_TRY(write_attrs(w, m, mn));
  for (int32_t k = 0; k < m->n_bounds; k++) { /* the optional bounds section: only when a method has one */
    wbuf_t *bb = &w->s[BERTH_SECTION_BOUNDS];
    wb_u32(bb, (uint32_t)mi);
    wb_u32(bb, (uint32_t)m->bounds[k].output);
    wb_u32(bb, (uint32_t)m->bounds[k].axis);
    wb_i32(bb, m->bounds[k].extent);
  }
  wbuf_t *hb = &w->s[BERTH_SECTION_HOIST]; /* written only when some method hoists (section_written) */
  wb_u32(hb, (uint32_t)m->n_once);
  wb_u32(hb, 0);
  wb_u64(hb, m->hoist_size);
  if (m->n_once || m->hoist_size) w->hoists = true;
  return write_io(w, m, ir_method(&w->o, w->p, mi), mn);
}

/* The IR section only when stored, the bounds section only when some output has one, the
 * hoist section only when some method hoists. */
static bool section_written(const wctx_t *w, uint32_t id) {
  if (id == BERTH_SECTION_IR_REF) return w->store_ir;
  if (id == BERTH_SECTION_BOUNDS) return w->s[id].len > 0;
  if (id == BERTH_SECTION_HOIST) return w->hoists;
  return true;
}

/* The sections in file order (constants last). */
static const uint32_t section_order[] = {BERTH_SECTION_STRINGS, BERTH_SECTION_METHODS, BERTH_SECTION_VALUES,
                                         BERTH_SECTION_INSTRS,  BERTH_SECTION_OPERANDS, BERTH_SECTION_ATTRS,
                                         BERTH_SECTION_IO,      BERTH_SECTION_POOLS,   BERTH_SECTION_STATE,
                                         BERTH_SECTION_BOUNDS,  BERTH_SECTION_HOIST,   BERTH_SECTION_IR_REF,
                                         BERTH_SECTION_CONSTANTS};
#define N_ORDER (sizeof section_order / sizeof section_order[0])

/* Header, section table, then the sections, into file. */
static berth_status_t write_assemble(wctx_t *w, wbuf_t *file) {
  const berth_exec_program_t *p = w->p;
  uint32_t n_sections = 0;
  for (size_t k = 0; k < N_ORDER; k++)
    if (section_written(w, section_order[k])) n_sections++;
  for (int k = 0; k < NS; k++)
    if (w->s[k].oom) return berth_fail(w->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  uint64_t offs[NS], sizes[NS];
  uint64_t pos = BERTH_FORMAT_HEADER_SIZE + (uint64_t)n_sections * BERTH_FORMAT_SECTION_ENTRY_SIZE;
  for (size_t k = 0; k < N_ORDER; k++) {
    uint32_t id = section_order[k];
    if (!section_written(w, id)) continue;
    uint64_t align = id == BERTH_SECTION_CONSTANTS ? BERTH_FORMAT_CONST_ALIGN : BERTH_FORMAT_SECTION_ALIGN;
    uint64_t size = id == BERTH_SECTION_CONSTANTS ? p->constants_size : w->s[id].len;
    if (!berth_align_u64(pos, align, &offs[id]) || !berth_add_u64(offs[id], size, &pos)) return WFAIL("program too large");
    sizes[id] = size;
  }
  if (pos > SIZE_MAX - 64) return WFAIL("program too large");
  /* the file in one 64-byte aligned allocation of its final size (rounded up to 64), so the
   * constants can be used in place straight away and nothing is copied twice; on huge pages
   * where the system offers them (berth/memory.h: the weights stream through every call) */
  file->cap = ((size_t)pos + 63) / 64 * 64;
  file->data = berth_host_alloc(file->cap);
  if (!file->data) return berth_fail(w->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory (%llu bytes)", (unsigned long long)pos);
  wb_bytes(file, BERTH_FORMAT_MAGIC, BERTH_FORMAT_MAGIC_SIZE);
  wb_u16(file, BERTH_FORMAT_VERSION);
  wb_u32(file, BERTH_FORMAT_HEADER_SIZE);
  wb_u32(file, (p->alloc_inputs ? BERTH_FORMAT_FLAG_ALLOC_INPUTS : 0) | (p->alloc_outputs ? BERTH_FORMAT_FLAG_ALLOC_OUTPUTS : 0) |
                   (w->o.checksum ? BERTH_FORMAT_FLAG_CHECKSUM : 0));
  wb_u64(file, pos);
  wb_u32(file, n_sections);
  wb_u32(file, BERTH_FORMAT_HEADER_SIZE);
  wb_u32(file, 0); /* the checksum, filled in by write_finish */
  wb_u16(file, BERTH_VERSION_MAJOR);
  wb_u16(file, BERTH_VERSION_MINOR);
  wb_u16(file, BERTH_VERSION_PATCH);
  wb_zeros(file, BERTH_FORMAT_HEADER_SIZE - BERTH_FORMAT_HDR_RESERVED);
  for (size_t k = 0; k < N_ORDER; k++) {
    uint32_t id = section_order[k];
    if (!section_written(w, id)) continue;
    wb_u32(file, id);
    wb_u32(file, 0);
    wb_u64(file, offs[id]);
    wb_u64(file, sizes[id]);
  }
  for (size_t k = 0; k < N_ORDER; k++) {
    uint32_t id = section_order[k];
    if (!section_written(w, id)) continue;
    wb_zeros(file, (size_t)(offs[id] - file->len));
    if (id == BERTH_SECTION_CONSTANTS) wb_bytes(file, p->constants, (size_t)p->constants_size);
    else wb_bytes(file, w->s[id].data, w->s[id].len);
  }
  if (file->oom || file->len != pos) return berth_fail(w->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  return BERTH_OK;
}

/* The file's checksum; hands the buffer to the caller. */
static berth_status_t write_finish(wctx_t *w, wbuf_t *file, uint8_t **out, size_t *out_len) {
  uint8_t *res = file->data;
  memset(res + file->len, 0, file->cap - file->len);
  if (w->o.checksum) {
    uint32_t sum = berth_format_checksum(res, file->len); /* over the finished file, the field still 0 */
    for (int k = 0; k < 4; k++) res[BERTH_FORMAT_CHECKSUM_AT + k] = (uint8_t)(sum >> (8 * k));
  }
  *out = res;
  *out_len = file->len;
  file->data = NULL;
  return BERTH_OK;
}

static berth_status_t write_program(wctx_t *w, wbuf_t *file, uint8_t **out, size_t *out_len) {
  const berth_exec_program_t *p = w->p;
  if (p->n_methods < 1 || p->n_methods > BERTH_FORMAT_MAX_METHODS || !p->methods)
    return WFAIL("a program file holds 1 to %d methods, not %d", BERTH_FORMAT_MAX_METHODS, (int)p->n_methods);
  if (p->constants_size > 0 && !p->constants)
    return WFAIL("constants of %llu bytes have no data", (unsigned long long)p->constants_size);
  wb_u8(&w->s[BERTH_SECTION_STRINGS], 0); /* offset 0: the empty name */
  for (int32_t mi = 0; mi < p->n_methods; mi++) BERTH_TRY(write_method(w, mi));
  /* optional IR section: the planner options, then the pool rules, then the text */
  if (w->store_ir) {
    uint8_t *ir_sec = NULL;
    size_t ir_len;
    BERTH_TRY(berth_ir_section_encode(w->o.ir, w->o.plan, p->constants, p->constants_size, &ir_sec, &ir_len, w->diag));
    wbuf_t *irb = &w->s[BERTH_SECTION_IR_REF]; /* takes the encoded section over */
    irb->data = ir_sec;
    irb->len = irb->cap = ir_len;
  }
  BERTH_TRY(write_assemble(w, file));
  return write_finish(w, file, out, out_len);
}

berth_status_t berth_format_write(const berth_exec_program_t *p, const berth_format_write_options_t *opt,
                                  uint8_t **out, size_t *out_len, berth_diag_t *diag) {
  if (!p || !out || !out_len) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_format_write: NULL argument");
  wctx_t *w = calloc(1, sizeof *w);
  if (!w) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  w->p = p;
  w->o = opt ? *opt : berth_format_write_options_default();
  w->store_ir = w->o.store_ir && w->o.ir;
  w->diag = diag;
  wbuf_t file = {NULL, 0, 0, false};
  berth_status_t st = write_program(w, &file, out, out_len);
  for (int k = 0; k < NS; k++) wb_free(&w->s[k]);
  wb_free(&file);
  free(w);
  return st;
}
