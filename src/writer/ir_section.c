/* The IR section codec (ir_section.h). Compiler side. */
#include "writer/ir_section.h"

#include "base/byte_reader.h"
#include "base/checked.h"
#include "base/try.h"

#include <stdlib.h>
#include <string.h>

static void store_le32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static void store_le64(uint8_t *p, uint64_t v) {
  for (int k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* The canonical text of p with every constant and buffer printed as an empty tensor of its
 * dtype (`const @w : f32[0] = []`): the text without the data, which the records carry.
 * Except one that a method returns as it is: the parser checks its type against the
 * method's signature, so it is printed whole (rare, and then small). */
static char *print_without_data(const berth_ir_program_t *p) {
  berth_ir_program_t q = *p;
  berth_ir_global_t *g = calloc((size_t)(p->n_globals ? p->n_globals : 1), sizeof *g);
  if (!g) return NULL;
  for (int32_t i = 0; i < p->n_globals; i++) {
    g[i].name = p->globals[i].name;
    g[i].is_state = p->globals[i].is_state;
    g[i].type.dtype = p->globals[i].type.dtype;
    g[i].type.rank = 1; /* dims[0] = 0: no elements, no data */
  }
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    const berth_ir_method_t *m = &p->methods[mi];
    const berth_ir_graph_t *body = &m->graphs[m->body];
    for (int32_t r = 0; r < body->n_results; r++) {
      const berth_ir_value_t *v = &m->values[body->results[r]];
      if ((v->kind == BERTH_IR_CONST || v->kind == BERTH_IR_STATE) && v->index >= 0 && v->index < p->n_globals)
        g[v->index] = p->globals[v->index];
    }
  }
  q.globals = g;
  char *text = berth_ir_print(&q);
  free(g);
  return text;
}

/* Where each global's bytes go: by reference when the constants hold them at the planner's
 * offset (program order, each constant at the next multiple of BERTH_FORMAT_CONST_ALIGN),
 * else inline. where[i] and off[i] per global; *inline_end: the section size. */
static bool place_globals(const berth_ir_program_t *p, const uint8_t *constants, uint64_t csize, uint64_t first_inline,
                          uint8_t *where, uint64_t *off, uint64_t *end) {
  uint64_t run = 0, pos = first_inline;
  for (int32_t i = 0; i < p->n_globals; i++) {
    const berth_ir_global_t *g = &p->globals[i];
    uint64_t bytes = berth_type_bytes(&g->type), at = 0;
    bool ref = false;
    if (!g->is_state) {
      if (!berth_align_u64(run, BERTH_FORMAT_CONST_ALIGN, &at) || !berth_add_u64(at, bytes, &run)) return false;
      ref = constants && run <= csize && (bytes == 0 || memcmp(constants + at, g->data, (size_t)bytes) == 0);
    }
    where[i] = ref ? BERTH_FORMAT_IR_IN_CONSTANTS : BERTH_FORMAT_IR_INLINE;
    if (!ref && (!berth_align_u64(pos, 8, &at) || !berth_add_u64(at, bytes, &pos))) return false;
    off[i] = at;
  }
  *end = pos;
  return true;
}

static void store_header(uint8_t *b, const berth_plan_options_t *po, size_t pools_len, size_t text_len, uint32_t n) {
  store_le32(b + BERTH_IR_SECTION_ALGO, (uint32_t)po->algo);
  store_le32(b + BERTH_IR_SECTION_STRATEGY, (uint32_t)po->strategy);
  store_le32(b + BERTH_IR_SECTION_ALIGNMENT, po->alignment);
  store_le32(b + BERTH_IR_SECTION_ALLOC_INPUTS, (uint32_t)po->alloc_inputs);
  store_le32(b + BERTH_IR_SECTION_ALLOC_OUTPUTS, (uint32_t)po->alloc_outputs);
  store_le32(b + BERTH_IR_SECTION_FIT, (uint32_t)po->fit);
  store_le64(b + BERTH_IR_SECTION_BUDGET, (uint64_t)(po->budget_work > 0 ? po->budget_work : po->budget_ms));
  store_le32(b + BERTH_IR_SECTION_BUDGET_UNIT, po->budget_work > 0 ? BERTH_FORMAT_IR_BUDGET_WORK : BERTH_FORMAT_IR_BUDGET_MS);
  store_le64(b + BERTH_IR_SECTION_SEED, po->seed);
  store_le32(b + BERTH_IR_SECTION_POOLS_LEN, (uint32_t)pools_len);
  store_le64(b + BERTH_IR_SECTION_TEXT_LEN, text_len);
  store_le32(b + BERTH_IR_REF_N_GLOBALS, n);
}

static void store_record(uint8_t *r, const berth_ir_global_t *g, uint8_t where, uint64_t off) {
  r[BERTH_IR_GLOBAL_WHERE] = where;
  r[BERTH_IR_GLOBAL_DTYPE] = (uint8_t)g->type.dtype;
  r[BERTH_IR_GLOBAL_RANK] = (uint8_t)g->type.rank;
  r[BERTH_IR_GLOBAL_IS_STATE] = g->is_state ? 1 : 0;
  store_le64(r + BERTH_IR_GLOBAL_OFFSET, off);
  for (int d = 0; d < g->type.rank && d < BERTH_MAX_RANK; d++) store_le64(r + BERTH_IR_GLOBAL_DIMS + 8 * d, (uint64_t)g->type.dims[d]);
}

berth_status_t berth_ir_section_encode(const berth_ir_program_t *p, const berth_plan_options_t *opt,
                                       const uint8_t *constants, uint64_t constants_size, uint8_t **out,
                                       size_t *out_len, berth_diag_t *diag) {
  berth_plan_options_t po = opt ? *opt : berth_plan_options_default();
  size_t pools_len = po.pools ? strlen(po.pools) : 0;
  if (pools_len > UINT32_MAX) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "pool rules too long");
  if ((uint32_t)p->n_globals > BERTH_FORMAT_IR_MAX_GLOBALS)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%d constants and buffers: the IR section holds at most %u",
                      (int)p->n_globals, (unsigned)BERTH_FORMAT_IR_MAX_GLOBALS);
  char *text = print_without_data(p);
  size_t ng = (size_t)p->n_globals, text_len = text ? strlen(text) : 0;
  uint8_t *where = malloc(ng ? ng : 1), *b = NULL;
  uint64_t *off = malloc((ng ? ng : 1) * sizeof *off), records = 0, end = 0;
  bool fits = text && where && off && berth_align_u64(BERTH_FORMAT_IR_REF_HEADER_SIZE + pools_len + text_len, 8, &records) &&
              place_globals(p, constants, constants_size, records + ng * BERTH_FORMAT_IR_GLOBAL_SIZE, where, off, &end) &&
              end <= SIZE_MAX;
  if (fits) b = calloc(1, (size_t)end);
  if (b) {
    store_header(b, &po, pools_len, text_len, (uint32_t)ng);
    if (pools_len) memcpy(b + BERTH_FORMAT_IR_REF_HEADER_SIZE, po.pools, pools_len);
    memcpy(b + BERTH_FORMAT_IR_REF_HEADER_SIZE + pools_len, text, text_len);
    for (size_t i = 0; i < ng; i++) {
      const berth_ir_global_t *g = &p->globals[i];
      store_record(b + records + i * BERTH_FORMAT_IR_GLOBAL_SIZE, g, where[i], off[i]);
      if (where[i] == BERTH_FORMAT_IR_INLINE) memcpy(b + off[i], g->data, berth_type_bytes(&g->type));
    }
  }
  free(text);
  free(where);
  free(off);
  if (!b) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory encoding the IR section");
  *out = b;
  *out_len = (size_t)end;
  return BERTH_OK;
}

/* The planner options at the start of either section's header. */
static berth_status_t decode_options(const uint8_t *ir, uint32_t pools_len, const char *pools, berth_plan_options_t *opt,
                                     char *pools_buf, size_t pools_cap, berth_diag_t *diag) {
  berth_plan_options_t o = berth_plan_options_default();
  uint32_t algo = berth_load_le32(ir + BERTH_IR_SECTION_ALGO), strategy = berth_load_le32(ir + BERTH_IR_SECTION_STRATEGY);
  uint32_t fit = berth_load_le32(ir + BERTH_IR_SECTION_FIT);
  o.alignment = berth_load_le32(ir + BERTH_IR_SECTION_ALIGNMENT);
  o.alloc_inputs = berth_u32_to_i32(berth_load_le32(ir + BERTH_IR_SECTION_ALLOC_INPUTS));
  o.alloc_outputs = berth_u32_to_i32(berth_load_le32(ir + BERTH_IR_SECTION_ALLOC_OUTPUTS));
  int64_t budget = berth_u64_to_i64(berth_load_le64(ir + BERTH_IR_SECTION_BUDGET));
  uint32_t budget_unit = berth_load_le32(ir + BERTH_IR_SECTION_BUDGET_UNIT);
  if (budget_unit == BERTH_FORMAT_IR_BUDGET_WORK) o.budget_work = budget;
  else o.budget_ms = budget;
  o.seed = berth_load_le64(ir + BERTH_IR_SECTION_SEED);
  if (algo > BERTH_ALLOC_EXACT || strategy > BERTH_STRATEGY_REGIONS || fit > BERTH_ALLOC_FIT_BEST ||
      !berth_is_pow2(o.alignment) || o.alignment > BERTH_FORMAT_MAX_ALIGNMENT || o.alloc_inputs < -1 ||
      o.alloc_inputs > 1 || o.alloc_outputs < -1 || o.alloc_outputs > 1 || budget_unit > BERTH_FORMAT_IR_BUDGET_WORK ||
      budget < 0)
    return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "section ir: a recorded planner option is out of range");
  o.algo = (berth_alloc_algo_t)algo;
  o.strategy = (berth_strategy_t)strategy;
  o.fit = (int)fit;
  o.pools = NULL;
  if (pools_len > 0) {
    if (!pools_buf || pools_len >= pools_cap)
      return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "section ir: pool rules of %u bytes do not fit",
                        (unsigned)pools_len);
    memcpy(pools_buf, pools, pools_len);
    pools_buf[pools_len] = '\0';
    if (strlen(pools_buf) != pools_len)
      return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "section ir: pool rules contain a NUL byte");
    o.pools = pools_buf;
  }
  *opt = o;
  return BERTH_OK;
}

/* The layout of an ir_ref section, checked again (the codec does not rely on its caller
 * having loaded fp with the loader; byte offsets in messages are then within the section). */
static berth_status_t open_ref(const berth_format_program_t *fp, berth_format_ir_ref_t *ir, berth_diag_t *diag) {
  return berth_format_ir_ref_open(fp->ir, fp->ir_size, 0, fp->exec.constants_size, ir, diag);
}

berth_status_t berth_ir_section_decode(const berth_format_program_t *fp, berth_plan_options_t *opt, char *pools_buf,
                                       size_t pools_cap, const char **text, size_t *text_len, berth_diag_t *diag) {
  if (!fp || !fp->ir || !opt || !text || !text_len) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no IR section");
  if (fp->ir_section == BERTH_SECTION_IR_REF) {
    berth_format_ir_ref_t ir;
    BERTH_TRY(open_ref(fp, &ir, diag));
    BERTH_TRY(decode_options(fp->ir, ir.pools_len, ir.pools, opt, pools_buf, pools_cap, diag));
    *text = ir.text;
    *text_len = (size_t)ir.text_len;
    return BERTH_OK;
  }
  if (fp->ir_size < BERTH_FORMAT_IR_HEADER_SIZE) return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "section ir: too short");
  uint32_t pools_len = berth_load_le32(fp->ir + BERTH_IR_SECTION_POOLS_LEN);
  uint64_t tlen = berth_load_le64(fp->ir + BERTH_IR_SECTION_TEXT_LEN), total;
  if (!berth_add_u64(pools_len, tlen, &total) || total != fp->ir_size - BERTH_FORMAT_IR_HEADER_SIZE)
    return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "section ir: lengths do not add up");
  const char *pools = (const char *)fp->ir + BERTH_FORMAT_IR_HEADER_SIZE;
  BERTH_TRY(decode_options(fp->ir, pools_len, pools, opt, pools_buf, pools_cap, diag));
  *text = pools + pools_len;
  *text_len = (size_t)tlen;
  return BERTH_OK;
}

/* Gives every constant and buffer of p (parsed from an ir_ref text, so each empty) the type
 * and bytes of its record, and every method's value for it the same type. */
static berth_status_t restore_globals(const berth_format_program_t *fp, const berth_format_ir_ref_t *ir,
                                      berth_ir_program_t *p, berth_diag_t *diag) {
  if ((uint32_t)p->n_globals != ir->n_globals)
    return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "section ir_ref: the text has %d constants and buffers but %u records",
                      (int)p->n_globals, (unsigned)ir->n_globals);
  for (uint32_t k = 0; k < ir->n_globals; k++) {
    berth_ir_global_t *g = &p->globals[k];
    berth_format_ir_global_t rec;
    berth_format_ir_ref_global(ir, k, &rec);
    bool empty = g->type.rank == 1 && g->type.dims[0] == 0; /* printed without data, or printed whole */
    if (rec.is_state != g->is_state || rec.type.dtype != g->type.dtype || (!empty && !berth_type_equal(&g->type, &rec.type)))
      return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "section ir_ref: record %u does not match @%s in the text",
                        (unsigned)k, g->name);
    if (rec.bytes > SIZE_MAX - 1) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    void *data = malloc(rec.bytes ? (size_t)rec.bytes : 1);
    if (!data) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory restoring @%s", g->name);
    const uint8_t *src = rec.where == BERTH_FORMAT_IR_IN_CONSTANTS ? (const uint8_t *)fp->exec.constants : ir->sec;
    if (rec.bytes) memcpy(data, src + rec.offset, (size_t)rec.bytes);
    free(g->data);
    g->data = data;
    g->type = rec.type;
  }
  for (int32_t mi = 0; mi < p->n_methods; mi++)
    for (int32_t v = 0; v < p->methods[mi].n_values; v++) {
      berth_ir_value_t *x = &p->methods[mi].values[v];
      if ((x->kind == BERTH_IR_CONST || x->kind == BERTH_IR_STATE) && x->index >= 0 && x->index < p->n_globals)
        x->type = p->globals[x->index].type;
    }
  return BERTH_OK;
}

berth_status_t berth_ir_section_program(const berth_format_program_t *fp, const char *path, berth_plan_options_t *opt,
                                        char *pools_buf, size_t pools_cap, berth_ir_program_t **out,
                                        berth_diag_t *diag) {
  if (!out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_ir_section_program: NULL argument");
  berth_plan_options_t o;
  const char *text;
  size_t text_len;
  BERTH_TRY(berth_ir_section_decode(fp, &o, pools_buf, pools_cap, &text, &text_len, diag));
  berth_ir_program_t *p = NULL;
  BERTH_TRY(berth_ir_parse(text, text_len, path ? path : "<ir section>", &p, diag));
  berth_status_t st = BERTH_OK;
  if (fp->ir_section == BERTH_SECTION_IR_REF) {
    berth_format_ir_ref_t ir;
    st = open_ref(fp, &ir, diag);
    if (!st) st = restore_globals(fp, &ir, p, diag);
  }
  if (st) {
    berth_ir_program_destroy(p);
    return st;
  }
  if (opt) *opt = o;
  *out = p;
  return BERTH_OK;
}
