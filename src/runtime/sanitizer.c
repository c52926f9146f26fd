/* Shadow memory for --sanitize (see sanitizer.h): one int32 owner tag per byte of each
 * arena pool, of the state region and of each caller input/output buffer. Runtime side:
 * no malloc, no stdio. */
#include "runtime/sanitizer.h"

#include "base/checked.h"
#include "program/exec_names.h"
#include "program/verify.h"

#include <string.h>

struct berth_sanitizer {
  const berth_exec_program_t *p;
  const berth_exec_method_t *m;
  int32_t n_regions;     /* pools, the state region, input buffers, output buffers */
  uint64_t *region_off;  /* first tag of each region */
  uint64_t *region_size; /* bytes of each region */
  int32_t *last_write;   /* per value identity: instruction of its latest write this call, or -1 */
  uint64_t *write_gen;   /* per value identity: generation of its latest write this call (0: none) */
  int32_t *view_root;    /* per value: the identity a VIEW made it name, or -1 (latest definition not a view) */
  uint64_t *view_gen;    /* per value: write_gen of view_root when the view was made */
  uint64_t gen;          /* the last generation given out */
  int32_t *tags;
};

/* ---- layout --------------------------------------------------------------------------- */

static int32_t region_state(const berth_exec_method_t *m) { return m->n_pools; }
static int32_t region_input(const berth_exec_method_t *m, uint32_t i) { return m->n_pools + 1 + (int32_t)i; }
static int32_t region_output(const berth_exec_method_t *m, uint32_t j) {
  return m->n_pools + 1 + m->n_inputs + (int32_t)j;
}

/* Bytes of a type, in 64 bits; 0 for a type outside berth's caps (never in a verified program). */
static uint64_t type_bytes(const berth_type_t *t) {
  if (!berth_type_check(t)) return 0;
  return (uint64_t)berth_type_numel(t) * berth_dtype_size(t->dtype);
}

/* The caller's buffer for input/output `index`: as large as the largest value stored in it. */
static uint64_t io_buffer_size(const berth_exec_method_t *m, uint8_t cls, uint32_t index) {
  uint64_t best = 0;
  for (int32_t v = 0; v < m->n_values; v++) {
    const berth_exec_value_t *x = &m->values[v];
    if (x->window_parent >= 0 || x->storage != cls || x->index != index) continue;
    uint64_t b = type_bytes(&x->type);
    if (b > best) best = b;
  }
  return best;
}

typedef struct san_layout {
  uint64_t n_regions, region_off, region_size, last_write, write_gen, view_root, view_gen, tags, n_tags, total;
} san_layout_t;

static bool method_ok(const berth_exec_program_t *p, int32_t method) {
  if (!p || !p->methods || method < 0 || method >= p->n_methods) return false;
  const berth_exec_method_t *m = &p->methods[method];
  return m->n_values >= 0 && (m->n_values == 0 || m->values) && m->n_pools >= 0 &&
         (m->n_pools == 0 || m->pool_sizes) && m->n_inputs >= 0 && (m->n_inputs == 0 || m->inputs) &&
         m->n_outputs >= 0 && (m->n_outputs == 0 || m->outputs) && m->n_regs >= 0;
}

static bool add_region(uint64_t *total, uint64_t size) { return berth_add_u64(*total, size, total); }

static bool compute_layout(const berth_exec_method_t *m, san_layout_t *l) {
  uint64_t nreg = (uint64_t)m->n_pools + 1 + (uint64_t)m->n_inputs + (uint64_t)m->n_outputs;
  uint64_t tags = 0, off, bytes;
  for (int32_t i = 0; i < m->n_pools; i++)
    if (!add_region(&tags, m->pool_sizes[i])) return false;
  if (!add_region(&tags, m->state_size)) return false;
  for (int32_t i = 0; i < m->n_inputs; i++)
    if (!add_region(&tags, io_buffer_size(m, BERTH_STORAGE_INPUT, (uint32_t)i))) return false;
  for (int32_t j = 0; j < m->n_outputs; j++)
    if (!add_region(&tags, io_buffer_size(m, BERTH_STORAGE_OUTPUT, (uint32_t)j))) return false;
  l->n_regions = nreg;
  l->n_tags = tags;
  if (!berth_align_u64(sizeof(struct berth_sanitizer), 8, &off)) return false;
  l->region_off = off;
  if (!berth_mul_u64(nreg, 8, &bytes) || !berth_add_u64(off, bytes, &off)) return false;
  l->region_size = off;
  if (!berth_add_u64(off, bytes, &off)) return false;
  l->last_write = off;
  if (!berth_mul_u64((uint64_t)m->n_values, 4, &bytes) || !berth_add_u64(off, bytes, &off)) return false;
  l->view_root = off;
  if (!berth_add_u64(off, bytes, &off) || !berth_align_u64(off, 8, &off)) return false;
  l->write_gen = off;
  if (!berth_mul_u64((uint64_t)m->n_values, 8, &bytes) || !berth_add_u64(off, bytes, &off)) return false;
  l->view_gen = off;
  if (!berth_add_u64(off, bytes, &off)) return false;
  l->tags = off;
  if (!berth_mul_u64(tags, 4, &bytes) || !berth_add_u64(off, bytes, &off)) return false;
  /* slack for aligning the caller's pointer */
  if (!berth_add_u64(off, 8, &off) || off > (uint64_t)SIZE_MAX) return false;
  l->total = off;
  return nreg <= (uint64_t)INT32_MAX;
}

size_t berth_sanitizer_size(const berth_exec_program_t *p, int32_t method) {
  if (!method_ok(p, method)) return 0;
  san_layout_t l;
  if (!compute_layout(&p->methods[method], &l)) return SIZE_MAX;
  return (size_t)l.total;
}

static void fill(int32_t *t, uint64_t n, int32_t tag) {
  for (uint64_t k = 0; k < n; k++) t[k] = tag;
}

/* Per-value records at the start of a call: nothing written, no view made. */
static void reset_values(berth_sanitizer_t *s) {
  uint64_t n = (uint64_t)s->m->n_values;
  fill(s->last_write, n, -1);
  fill(s->view_root, n, -1);
  for (uint64_t k = 0; k < n; k++) s->write_gen[k] = s->view_gen[k] = 0;
}

/* Tags the bytes of a non-windowed value with its own id, if they are shadowed and in range. */
static void tag_whole(berth_sanitizer_t *s, int32_t v) {
  const berth_exec_method_t *m = s->m;
  const berth_exec_value_t *x = &m->values[v];
  int32_t region;
  uint64_t start = x->offset;
  if (x->window_parent >= 0) return;
  switch (x->storage) {
    case BERTH_STORAGE_ARENA:
      if (x->pool >= (uint32_t)m->n_pools) return;
      region = (int32_t)x->pool;
      break;
    case BERTH_STORAGE_STATE: region = region_state(m); break;
    case BERTH_STORAGE_INPUT:
      if (x->index >= (uint32_t)m->n_inputs) return;
      region = region_input(m, x->index);
      start = 0;
      break;
    case BERTH_STORAGE_OUTPUT:
      if (x->index >= (uint32_t)m->n_outputs) return;
      region = region_output(m, x->index);
      start = 0;
      break;
    default: return;
  }
  uint64_t len = type_bytes(&x->type), cap = s->region_size[region];
  if (len > cap || start > cap - len) return;
  fill(s->tags + s->region_off[region] + start, len, v);
}

berth_status_t berth_sanitizer_init(void *mem, size_t size, const berth_exec_program_t *p,
                                    int32_t method, berth_sanitizer_t **out, berth_diag_t *diag) {
  if (!mem || !out || !method_ok(p, method))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "sanitizer: bad program, method or memory");
  const berth_exec_method_t *m = &p->methods[method];
  san_layout_t l;
  if (!compute_layout(m, &l))
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "sanitizer: method %s is too big to shadow",
                      m->name ? m->name : "?");
  if (size < l.total)
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED,
                      "sanitizer: %zu bytes of shadow memory is too small; need %zu", size, (size_t)l.total);
  uint8_t *base = (uint8_t *)mem;
  base += (8 - ((uintptr_t)base & 7)) & 7;
  berth_sanitizer_t *s = (berth_sanitizer_t *)(void *)base;
  s->p = p;
  s->m = m;
  s->n_regions = (int32_t)l.n_regions;
  s->region_off = (uint64_t *)(void *)(base + l.region_off);
  s->region_size = (uint64_t *)(void *)(base + l.region_size);
  s->last_write = (int32_t *)(void *)(base + l.last_write);
  s->write_gen = (uint64_t *)(void *)(base + l.write_gen);
  s->view_root = (int32_t *)(void *)(base + l.view_root);
  s->view_gen = (uint64_t *)(void *)(base + l.view_gen);
  s->gen = 0;
  s->tags = (int32_t *)(void *)(base + l.tags);
  uint64_t off = 0;
  for (int32_t r = 0; r < s->n_regions; r++) {
    uint64_t rs;
    if (r < m->n_pools) rs = m->pool_sizes[r];
    else if (r == region_state(m)) rs = m->state_size;
    else if (r < region_output(m, 0)) rs = io_buffer_size(m, BERTH_STORAGE_INPUT, (uint32_t)(r - region_input(m, 0)));
    else rs = io_buffer_size(m, BERTH_STORAGE_OUTPUT, (uint32_t)(r - region_output(m, 0)));
    s->region_off[r] = off;
    s->region_size[r] = rs;
    off += rs;
  }
  fill(s->tags, l.n_tags, BERTH_SANITIZER_UNWRITTEN);
  reset_values(s);
  /* the state region holds its initial contents: each state value owns its bytes */
  for (int32_t v = 0; v < m->n_values; v++)
    if (m->values[v].storage == BERTH_STORAGE_STATE && berth_verify_value_is_buffer(m, v)) tag_whole(s, v);
  *out = s;
  return BERTH_OK;
}

void berth_sanitizer_begin_call(berth_sanitizer_t *s) {
  const berth_exec_method_t *m = s->m;
  for (int32_t r = 0; r < s->n_regions; r++) {
    if (r == region_state(m)) continue;
    fill(s->tags + s->region_off[r], s->region_size[r], BERTH_SANITIZER_UNWRITTEN);
  }
  reset_values(s);
  for (int32_t i = 0; i < m->n_inputs; i++) {
    int32_t v = m->inputs[i];
    if (v >= 0 && v < m->n_values) tag_whole(s, v);
  }
}

/* ---- resolving the bytes an operand touches ------------------------------------------- */

typedef struct span {
  int32_t ident;  /* the value whose identity the bytes carry (the parent of a slice) */
  int32_t region; /* -1: constant (no shadow) */
  uint64_t start, len;
} span_t;

static const char *region_desc(const berth_sanitizer_t *s, int32_t region, char *buf, size_t cap) {
  const berth_exec_method_t *m = s->m;
  if (region < m->n_pools) berth_snprintf(buf, cap, "arena pool %d", (int)region);
  else if (region == region_state(m)) berth_snprintf(buf, cap, "the state region");
  else if (region < region_output(m, 0)) berth_snprintf(buf, cap, "input buffer %d", (int)(region - region_input(m, 0)));
  else berth_snprintf(buf, cap, "output buffer %d", (int)(region - region_output(m, 0)));
  return buf;
}

static berth_status_t resolve(const berth_sanitizer_t *s, int32_t v, const int64_t *regs, span_t *sp,
                              berth_diag_t *diag) {
  const berth_exec_method_t *m = s->m;
  if (v < 0 || v >= m->n_values)
    return berth_fail(diag, BERTH_ERR_INTERNAL, "sanitizer: value id %d out of range", (int)v);
  const berth_exec_value_t *x = &m->values[v];
  int32_t u = v;
  uint64_t rel = 0, len = type_bytes(&x->type);
  if (x->window_parent >= 0) {
    u = x->window_parent;
    if (u >= m->n_values || m->values[u].window_parent >= 0 || x->window_reg < 0 ||
        x->window_reg >= m->n_regs || !regs)
      return berth_fail(diag, BERTH_ERR_INTERNAL, "sanitizer: bad window %d", (int)v);
    uint64_t psize = type_bytes(&m->values[u].type);
    int64_t k = regs[x->window_reg], st = x->window_stride;
    /* slice start relative to the parent: offset + k * stride, inside [0, psize - len] */
    bool ok = k >= 0 && x->offset <= psize;
    int64_t d = 0;
    if (ok && k > 0 && st != 0) {
      uint64_t as = st < 0 ? (uint64_t)0 - (uint64_t)st : (uint64_t)st;
      ok = (uint64_t)k <= ((uint64_t)1 << 42) / as;
      if (ok) d = st < 0 ? -(int64_t)((uint64_t)k * as) : (int64_t)((uint64_t)k * as);
    }
    int64_t start = ok ? (int64_t)x->offset + d : -1;
    if (start < 0 || (uint64_t)start > psize || len > psize - (uint64_t)start) {
      char nb[96];
      return berth_fail(diag, BERTH_ERR_INTERNAL, "sanitizer: slice %s at register value %lld lies outside its parent",
                        berth_exec_value_name(m, v, nb, sizeof nb), (long long)k);
    }
    rel = (uint64_t)start;
  }
  const berth_exec_value_t *ux = &m->values[u];
  sp->ident = u;
  sp->len = len;
  switch (ux->storage) {
    case BERTH_STORAGE_CONST: sp->region = -1; sp->start = ux->offset + rel; return BERTH_OK;
    /* written once before the first call (the once-stream), read-only in a call: like a constant */
    case BERTH_STORAGE_HOIST: sp->region = -2; sp->start = ux->offset + rel; return BERTH_OK;
    case BERTH_STORAGE_ARENA:
      if (ux->pool >= (uint32_t)m->n_pools) goto bad;
      sp->region = (int32_t)ux->pool;
      sp->start = ux->offset;
      break;
    case BERTH_STORAGE_STATE: sp->region = region_state(m); sp->start = ux->offset; break;
    case BERTH_STORAGE_INPUT:
      if (ux->index >= (uint32_t)m->n_inputs) goto bad;
      sp->region = region_input(m, ux->index);
      sp->start = 0;
      break;
    case BERTH_STORAGE_OUTPUT:
      if (ux->index >= (uint32_t)m->n_outputs) goto bad;
      sp->region = region_output(m, ux->index);
      sp->start = 0;
      break;
    default: goto bad;
  }
  {
    uint64_t cap = s->region_size[sp->region];
    if (rel > cap || sp->start > cap - rel) goto bad;
    sp->start += rel;
    if (len > cap - sp->start) goto bad;
  }
  return BERTH_OK;
bad : {
  char nb[96];
  return berth_fail(diag, BERTH_ERR_INTERNAL, "sanitizer: %s has storage outside its region",
                    berth_exec_value_name(m, v, nb, sizeof nb));
}
}

/* ---- the hooks ------------------------------------------------------------------------- */

/* A read of view `value` whose source identity `root` was written again after the view was
 * made: the view names bytes that no longer hold what it meant. */
static berth_status_t stale_view(const berth_sanitizer_t *s, int32_t value, int32_t root, int32_t instr,
                                 berth_diag_t *diag) {
  char vn[96], rn[96], in[96];
  berth_exec_value_name(s->m, value, vn, sizeof vn);
  berth_exec_value_name(s->m, root, rn, sizeof rn);
  berth_exec_instr_name(s->m, instr, in, sizeof in);
  return berth_fail(diag, BERTH_ERR_VERIFY_FAILED,
                    "read of %s at instruction %d (%s): it is a view of %s, which was written again (at "
                    "instruction %d) after the view was made", vn, (int)instr, in, rn, (int)s->last_write[root]);
}

berth_status_t berth_sanitizer_on_read(berth_sanitizer_t *s, int32_t value, int32_t instr,
                                       const int64_t *regs, berth_diag_t *diag) {
  span_t sp;
  berth_status_t st = resolve(s, value, regs, &sp, diag);
  if (st != BERTH_OK || sp.region < 0 || sp.len == 0) return st;
  /* a view (or a slice of one): its bytes belong to root, as written when the view was made */
  int32_t root = s->view_root[sp.ident];
  if (root >= 0) {
    if (s->write_gen[root] != s->view_gen[sp.ident]) return stale_view(s, sp.ident, root, instr, diag);
    sp.ident = root;
  }
  const int32_t *t = s->tags + s->region_off[sp.region] + sp.start;
  uint64_t k = 0;
  while (k < sp.len && t[k] == sp.ident) k++;
  if (k == sp.len) return BERTH_OK;
  int32_t owner = t[k];
  uint64_t e = k;
  while (e < sp.len && t[e] == owner) e++;
  char vn[96], on[96], in[96], rn[48];
  berth_exec_value_name(s->m, value, vn, sizeof vn);
  berth_exec_instr_name(s->m, instr, in, sizeof in);
  region_desc(s, sp.region, rn, sizeof rn);
  unsigned long long a = (unsigned long long)(sp.start + k), b = (unsigned long long)(sp.start + e);
  if (owner < 0 || owner >= s->m->n_values)
    return berth_fail(diag, BERTH_ERR_VERIFY_FAILED,
                      "read of %s at instruction %d (%s): bytes [%llu,%llu) of %s were not written "
                      "by any value%s", vn, (int)instr, in, a, b, rn,
                      sp.region == region_state(s->m) ? "" : " in this call");
  berth_exec_value_name(s->m, owner, on, sizeof on);
  int32_t lw = s->last_write[owner];
  if (lw < 0)
    return berth_fail(diag, BERTH_ERR_VERIFY_FAILED,
                      "read of %s at instruction %d (%s): bytes [%llu,%llu) of %s were last written by %s "
                      "(before this call)", vn, (int)instr, in, a, b, rn, on);
  return berth_fail(diag, BERTH_ERR_VERIFY_FAILED,
                    "read of %s at instruction %d (%s): bytes [%llu,%llu) of %s were last written by %s "
                    "(at instruction %d)", vn, (int)instr, in, a, b, rn, on, (int)lw);
}

berth_status_t berth_sanitizer_on_write(berth_sanitizer_t *s, int32_t value, int32_t instr,
                                        const int64_t *regs, berth_diag_t *diag) {
  span_t sp;
  berth_status_t st = resolve(s, value, regs, &sp, diag);
  if (st != BERTH_OK) return st;
  if (sp.len == 0) return BERTH_OK;
  if (sp.region < 0 || (sp.region >= region_input(s->m, 0) && sp.region < region_output(s->m, 0))) {
    char vn[96], in[96];
    return berth_fail(diag, BERTH_ERR_VERIFY_FAILED, "write of %s at instruction %d (%s) into %s",
                      berth_exec_value_name(s->m, value, vn, sizeof vn), (int)instr,
                      berth_exec_instr_name(s->m, instr, in, sizeof in),
                      sp.region == -2 ? "the hoist region (computed once before the first call, read-only in a call)"
                      : sp.region < 0 ? "a constant" : "the caller's input buffer");
  }
  fill(s->tags + s->region_off[sp.region] + sp.start, sp.len, sp.ident);
  s->last_write[sp.ident] = instr;
  s->write_gen[sp.ident] = ++s->gen;
  s->view_root[sp.ident] = -1;
  s->view_root[value] = -1;
  return BERTH_OK;
}

berth_status_t berth_sanitizer_on_rename(berth_sanitizer_t *s, int32_t src, int32_t dst, int32_t instr,
                                         const int64_t *regs, berth_diag_t *diag) {
  berth_status_t st = berth_sanitizer_on_read(s, src, instr, regs, diag);
  if (st != BERTH_OK) return st;
  return berth_sanitizer_on_write(s, dst, instr, regs, diag);
}

berth_status_t berth_sanitizer_on_view(berth_sanitizer_t *s, int32_t src, int32_t dst, uint64_t offset,
                                       int32_t instr, const int64_t *regs, berth_diag_t *diag) {
  berth_status_t st = berth_sanitizer_on_read(s, src, instr, regs, diag);
  if (st != BERTH_OK) return st;
  span_t sp, ss;
  if ((st = resolve(s, dst, regs, &sp, diag)) != BERTH_OK) return st;
  if ((st = resolve(s, src, regs, &ss, diag)) != BERTH_OK) return st;
  /* the view's bytes are the source's from `offset` on, in the same region (an empty view may
   * sit anywhere: it names no bytes) */
  if (sp.len > 0 && (sp.region != ss.region || offset > ss.len || sp.len > ss.len - offset ||
                     sp.start != ss.start + offset)) {
    char nb[96], sb[96];
    return berth_fail(diag, BERTH_ERR_VERIFY_FAILED,
                      "sanitizer: instruction %d (view): %s is not the bytes of %s from byte %llu on", (int)instr,
                      berth_exec_value_name(s->m, dst, nb, sizeof nb), berth_exec_value_name(s->m, src, sb, sizeof sb),
                      (unsigned long long)offset);
  }
  int32_t u = s->m->values[src].window_parent >= 0 ? s->m->values[src].window_parent : src;
  int32_t root = s->view_root[u] >= 0 ? s->view_root[u] : u;
  s->view_root[dst] = root;
  s->view_gen[dst] = s->write_gen[root];
  return BERTH_OK;
}

berth_status_t berth_sanitizer_on_join(berth_sanitizer_t *s, const int32_t *ops, int32_t n_parts, int32_t instr,
                                       const int64_t *regs, berth_diag_t *diag) {
  int32_t out = ops[n_parts];
  span_t so, sp;
  berth_status_t st = resolve(s, out, regs, &so, diag);
  uint64_t at = 0;
  for (int32_t k = 0; k < n_parts && !st; k++) {
    st = berth_sanitizer_on_read(s, ops[k], instr, regs, diag);
    if (!st) st = resolve(s, ops[k], regs, &sp, diag);
    if (st) break;
    if (sp.len > 0 && (sp.region != so.region || sp.start != so.start + at || sp.len > so.len - at)) {
      char pb[96], ob[96];
      return berth_fail(diag, BERTH_ERR_VERIFY_FAILED,
                        "sanitizer: instruction %d (join): part %d %s is not the bytes of %s from byte %llu on", (int)instr,
                        (int)k, berth_exec_value_name(s->m, ops[k], pb, sizeof pb),
                        berth_exec_value_name(s->m, out, ob, sizeof ob), (unsigned long long)at);
    }
    at += sp.len;
  }
  if (st) return st;
  /* the output owns its bytes from here; each part names them as a view of it */
  if ((st = berth_sanitizer_on_write(s, out, instr, regs, diag)) != BERTH_OK) return st;
  for (int32_t k = 0; k < n_parts; k++) {
    int32_t u = s->m->values[ops[k]].window_parent >= 0 ? s->m->values[ops[k]].window_parent : ops[k];
    s->view_root[u] = so.ident;
    s->view_gen[u] = s->write_gen[so.ident];
  }
  return BERTH_OK;
}

berth_status_t berth_sanitizer_on_return(berth_sanitizer_t *s, int32_t instr, berth_diag_t *diag) {
  const berth_exec_method_t *m = s->m;
  for (int32_t j = 0; j < m->n_outputs; j++) {
    berth_status_t st = berth_sanitizer_on_read(s, m->outputs[j], instr, NULL, diag);
    if (st != BERTH_OK) return st;
  }
  for (int32_t k = 0; k < m->n_bounds; k++) {
    berth_status_t st = berth_sanitizer_on_read(s, m->bounds[k].extent, instr, NULL, diag);
    if (st != BERTH_OK) return st;
  }
  for (int32_t v = 0; v < m->n_values; v++) {
    if (m->values[v].window_parent >= 0 || m->values[v].storage != BERTH_STORAGE_STATE ||
        !berth_verify_value_is_buffer(m, v))
      continue;
    berth_status_t st = berth_sanitizer_on_read(s, v, instr, NULL, diag);
    if (st != BERTH_OK)
      return berth_fail_prefix(diag, st, "state does not survive to the next call");
  }
  return BERTH_OK;
}

int32_t berth_sanitizer_owner(const berth_sanitizer_t *s, uint8_t storage, uint32_t index,
                              uint64_t offset) {
  const berth_exec_method_t *m = s->m;
  int32_t region;
  switch (storage) {
    case BERTH_STORAGE_ARENA:
      if (index >= (uint32_t)m->n_pools) return BERTH_SANITIZER_UNWRITTEN;
      region = (int32_t)index;
      break;
    case BERTH_STORAGE_STATE: region = region_state(m); break;
    case BERTH_STORAGE_INPUT:
      if (index >= (uint32_t)m->n_inputs) return BERTH_SANITIZER_UNWRITTEN;
      region = region_input(m, index);
      break;
    case BERTH_STORAGE_OUTPUT:
      if (index >= (uint32_t)m->n_outputs) return BERTH_SANITIZER_UNWRITTEN;
      region = region_output(m, index);
      break;
    default: return BERTH_SANITIZER_UNWRITTEN;
  }
  if (offset >= s->region_size[region]) return BERTH_SANITIZER_UNWRITTEN;
  return s->tags[s->region_off[region] + offset];
}
