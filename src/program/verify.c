/* The independent verifier of emitted programs: structural checks, a loop-register range
 * analysis, and the "intact" must-dataflow of DESIGN rule 8 (see verify.h). Runtime side:
 * no malloc, no stdio; every array lives in the caller's scratch. */
#include "program/verify.h"
#include "base/try.h"

#include "program/exec_names.h"

#include "base/checked.h"

#include <stdarg.h>
#include <string.h>

#define MAX_LOOP_COUNT ((int64_t)1 << 62)
/* Register range "unknown": unset on some path, or not bounded by a loop count. Otherwise a
 * register's abstract value hi >= 0 means the register holds a value in [0, hi]. */
#define REG_UNKNOWN (-1)

/* Per-value flags. */
enum {
  F_INPUT = 1,  /* a method input */
  F_OUTPUT = 2, /* a method output */
  F_ENTRY = 4,  /* intact at method entry */
  F_STATE = 8,  /* a (non-windowed) value with STATE storage */
};

/* The bytes of a value: a space (storage class << 32 | pool or buffer index) and a range.
 * A windowed value has its parent's extent: for the dataflow it is the parent. */
typedef struct ext {
  uint64_t key;
  uint64_t start, end;
} ext_t;

typedef struct vctx {
  const berth_exec_program_t *p;
  const berth_exec_method_t *m;
  berth_diag_t *diag;
  int32_t n, nv, nr; /* instructions, values, registers */
  size_t nw;         /* 64-bit words per value bitset */
  ext_t *ext;        /* [nv] */
  uint64_t *size;    /* [nv] own byte size (a window: one slice) */
  uint8_t *flags;    /* [nv] */
  int32_t *order;    /* [nv] non-windowed non-empty values sorted by (key, start) */
  uint64_t *pmax;    /* [nv] max end over order[block start .. j] of the same space */
  int32_t n_sorted;
  int32_t *slot;     /* [nv] index of a window parent among the parents, else -1 */
  int32_t n_slots;
  size_t nwn;        /* 64-bit words per parent bitset */
  int32_t nb;          /* basic blocks */
  int32_t *block_of;    /* [n] block of each instruction */
  int32_t *block_start; /* [nb + 1] first instruction of each block */
  uint64_t *in;      /* [nb][nw] intact values at block entry */
  uint64_t *in_n;    /* [nb][nwn] window parents not written over since their loop began */
  int64_t *regs;     /* [nb][nr] register ranges at block entry */
  uint8_t *reached;  /* [nb] */
  uint8_t *inq;      /* [nb] queued */
  int32_t *queue;    /* [nb] worklist */
  uint64_t *tmp;     /* [nw] running state */
  uint64_t *tmp_n;   /* [nwn] */
  int64_t *rcur;     /* [nr] */
  int64_t *rtaken;   /* [nr] registers on a LOOP_NEXT's taken edge */
  int64_t *rfall;    /* [nr] and on its fall-through edge */
  int32_t *pred_start; /* [n + 1] culprit search: predecessors of each instruction */
  int32_t *preds;      /* [2n] */
  uint8_t *ivisit;     /* [n] */
  int32_t *iqueue;     /* [n] */
  berth_type_t *tin;   /* [BERTH_MAX_KERNEL_OPERANDS] */
  berth_type_t *tout;  /* [BERTH_MAX_KERNEL_OPERANDS] */
} vctx_t;

/* ---- scratch layout --------------------------------------------------------------------- */

typedef struct layout {
  uint64_t off;
  bool bad;
} layout_t;

static uint64_t take(layout_t *l, uint64_t count, uint64_t elem) {
  uint64_t bytes, start, end;
  if (!berth_mul_u64(count, elem, &bytes) || !berth_align_u64(l->off, 8, &start) ||
      !berth_add_u64(start, bytes, &end)) {
    l->bad = true;
    return 0;
  }
  l->off = end;
  return start;
}

typedef struct offsets {
  uint64_t ext, size, flags, order, pmax, slot, block_of, block_start, in, in_n, regs, reached, inq,
      queue, tmp, tmp_n, rcur, rtaken, rfall, pred_start, preds, ivisit, iqueue, tin, tout, total;
} offsets_t;

static uint64_t nonneg(int32_t x) { return x > 0 ? (uint64_t)x : 0; }

/* The same sequence sizes the scratch and carves it, so the two cannot disagree. */
static bool compute_layout(const berth_exec_method_t *m, offsets_t *o) {
  uint64_t n = nonneg(m->n_instrs), nv = nonneg(m->n_values), nr = nonneg(m->n_regs);
  uint64_t nw = (nv + 63) / 64, bits, nbits, regs, nwin = 0;
  /* window parents are at most the windowed values */
  if (m->values)
    for (uint64_t v = 0; v < nv; v++) nwin += m->values[v].window_parent >= 0;
  uint64_t nwn = (nwin + 63) / 64;
  /* blocks: instruction 0, plus at most a target and a fall-through per branch or return */
  uint64_t nb = n;
  if (m->instrs && n) {
    nb = 1;
    for (uint64_t i = 0; i < n; i++) {
      uint8_t op = m->instrs[i].opcode;
      if (op == BERTH_I_RETURN) nb += 1;
      else if (op == BERTH_I_JUMP || op == BERTH_I_JUMP_IF_FALSE || op == BERTH_I_LOOP_NEXT) nb += 2;
    }
    if (nb > n) nb = n;
  }
  layout_t l = {0, false};
  o->ext = take(&l, nv, sizeof(ext_t));
  o->size = take(&l, nv, sizeof(uint64_t));
  o->flags = take(&l, nv, 1);
  o->order = take(&l, nv, sizeof(int32_t));
  o->pmax = take(&l, nv, sizeof(uint64_t));
  o->slot = take(&l, nv, sizeof(int32_t));
  if (!berth_mul_u64(nb, nw, &bits) || !berth_mul_u64(nb, nwn, &nbits) || !berth_mul_u64(nb, nr, &regs))
    return false;
  o->block_of = take(&l, n, sizeof(int32_t));
  o->block_start = take(&l, nb + 1, sizeof(int32_t));
  o->in = take(&l, bits, sizeof(uint64_t));
  o->in_n = take(&l, nbits, sizeof(uint64_t));
  o->regs = take(&l, regs, sizeof(int64_t));
  o->reached = take(&l, nb, 1);
  o->inq = take(&l, nb, 1);
  o->queue = take(&l, nb, sizeof(int32_t));
  o->tmp = take(&l, nw, sizeof(uint64_t));
  o->tmp_n = take(&l, nwn, sizeof(uint64_t));
  o->rcur = take(&l, nr, sizeof(int64_t));
  o->rtaken = take(&l, nr, sizeof(int64_t));
  o->rfall = take(&l, nr, sizeof(int64_t));
  o->pred_start = take(&l, n + 1, sizeof(int32_t));
  o->preds = take(&l, 2 * n, sizeof(int32_t));
  o->ivisit = take(&l, n, 1);
  o->iqueue = take(&l, n, sizeof(int32_t));
  o->tin = take(&l, BERTH_MAX_KERNEL_OPERANDS, sizeof(berth_type_t));
  o->tout = take(&l, BERTH_MAX_KERNEL_OPERANDS, sizeof(berth_type_t));
  o->total = l.off; /* plus 8 bytes of slack for aligning the caller's pointer */
  return !l.bad;
}

size_t berth_verify_scratch_size(const berth_exec_program_t *p, int32_t method) {
  if (!p || !p->methods || method < 0 || method >= p->n_methods) return 0;
  offsets_t o;
  if (!compute_layout(&p->methods[method], &o)) return SIZE_MAX;
  if (o.total + 8 > (uint64_t)SIZE_MAX) return SIZE_MAX;
  return (size_t)(o.total + 8);
}

size_t berth_verify_program_scratch_size(const berth_exec_program_t *p) {
  size_t best = 0;
  if (!p || !p->methods) return 0;
  for (int32_t i = 0; i < p->n_methods; i++) {
    size_t s = berth_verify_scratch_size(p, i);
    if (s > best) best = s;
  }
  return best;
}

/* ---- names and messages ----------------------------------------------------------------- */

static const char *method_name(const berth_exec_method_t *m) {
  return m->name && m->name[0] ? m->name : "?";
}

/* Fails with "method <name>: <message>". */
BERTH_PRINTF_LIKE(3, 4) static berth_status_t vfail(vctx_t *c, berth_status_t st, const char *fmt, ...) {
  berth_diag_t *d = c->diag;
  if (d && d->buf && d->cap) {
    size_t len = berth_snprintf(d->buf, d->cap, "method %s: ", method_name(c->m));
    if (len < d->cap) {
      va_list ap;
      va_start(ap, fmt);
      berth_vsnprintf(d->buf + len, d->cap - len, fmt, ap);
      va_end(ap);
    }
  }
  return st;
}

#define CORRUPT(...) vfail(c, BERTH_ERR_CORRUPT_DATA, __VA_ARGS__)
#define VIOLATION(...) vfail(c, BERTH_ERR_VERIFY_FAILED, __VA_ARGS__)

typedef struct name_buf {
  char s[96];
} name_buf_t;

typedef struct bytes_buf {
  char s[224];
} bytes_buf_t;

static const char *vname(const vctx_t *c, int32_t v, name_buf_t *b) {
  return berth_exec_value_name(c->m, v, b->s, sizeof b->s);
}

static const char *iname(const vctx_t *c, int32_t i, name_buf_t *b) {
  return berth_exec_instr_name(c->m, i, b->s, sizeof b->s);
}

static int32_t ident(const vctx_t *c, int32_t v) {
  int32_t par = c->m->values[v].window_parent;
  return par >= 0 ? par : v;
}

/* "arena pool 0 [0,8)", "state [8,16)", "input 1 [0,24)"; a window: "slice of %ys in ...". */
static const char *fmt_bytes(const vctx_t *c, int32_t v, bytes_buf_t *b) {
  int32_t u = ident(c, v);
  const berth_exec_value_t *x = &c->m->values[u];
  const ext_t *e = &c->ext[u];
  size_t len = 0;
  if (u != v) {
    name_buf_t nb;
    len = berth_snprintf(b->s, sizeof b->s, "slice of %s in ", vname(c, u, &nb));
    if (len >= sizeof b->s) return b->s;
  }
  char *s = b->s + len;
  size_t cap = sizeof b->s - len;
  unsigned long long lo = (unsigned long long)e->start, hi = (unsigned long long)e->end;
  switch (x->storage) {
    case BERTH_STORAGE_ARENA: berth_snprintf(s, cap, "arena pool %u [%llu,%llu)", (unsigned)x->pool, lo, hi); break;
    case BERTH_STORAGE_CONST: berth_snprintf(s, cap, "const [%llu,%llu)", lo, hi); break;
    case BERTH_STORAGE_STATE: berth_snprintf(s, cap, "state [%llu,%llu)", lo, hi); break;
    case BERTH_STORAGE_HOIST: berth_snprintf(s, cap, "hoist [%llu,%llu)", lo, hi); break;
    case BERTH_STORAGE_INPUT: berth_snprintf(s, cap, "input %u [%llu,%llu)", (unsigned)x->index, lo, hi); break;
    case BERTH_STORAGE_OUTPUT: berth_snprintf(s, cap, "output %u [%llu,%llu)", (unsigned)x->index, lo, hi); break;
    default: berth_snprintf(s, cap, "?"); break;
  }
  return b->s;
}

/* ---- value geometry ------------------------------------------------------------------- */

static bool ext_overlap(const ext_t *a, const ext_t *b) {
  return a->key == b->key && a->start < b->end && b->start < a->end && a->start < a->end &&
         b->start < b->end;
}

/* Does slice k of windowed value v lie inside its parent? */
static bool slice_fits(const vctx_t *c, int32_t v, int64_t k) {
  const berth_exec_value_t *x = &c->m->values[v];
  uint64_t psize = c->size[x->window_parent], size = c->size[v], o = x->offset;
  if (o > psize || k < 0) return false;
  int64_t d = 0;
  if (k > 0 && x->window_stride != 0) {
    uint64_t as = x->window_stride < 0 ? (uint64_t)0 - (uint64_t)x->window_stride
                                       : (uint64_t)x->window_stride;
    /* psize <= 2^40, so any displacement beyond 2^42 leaves the parent */
    if ((uint64_t)k > ((uint64_t)1 << 42) / as) return false;
    d = (int64_t)((uint64_t)k * as);
    if (x->window_stride < 0) d = -d;
  }
  int64_t start = (int64_t)o + d;
  if (start < 0) return false;
  return (uint64_t)start <= psize && size <= psize - (uint64_t)start;
}

/* Do operands a and b of one instruction share a byte? Slices of one parent selected by the
 * same register with the same stride are compared exactly; other windows as their parent. */
static bool operands_overlap(const vctx_t *c, int32_t a, int32_t b) {
  if (c->size[a] == 0 || c->size[b] == 0) return false;
  const berth_exec_value_t *x = &c->m->values[a], *y = &c->m->values[b];
  if (x->window_parent >= 0 && x->window_parent == y->window_parent &&
      x->window_reg == y->window_reg && x->window_stride == y->window_stride) {
    return x->offset < y->offset + c->size[b] && y->offset < x->offset + c->size[a];
  }
  return ext_overlap(&c->ext[a], &c->ext[b]);
}

/* Same bytes, whatever the register: identical storage and size. */
static bool same_bytes(const vctx_t *c, int32_t a, int32_t b) {
  const berth_exec_value_t *x = &c->m->values[a], *y = &c->m->values[b];
  if (c->size[a] != c->size[b]) return false;
  if ((x->window_parent >= 0) != (y->window_parent >= 0)) return false;
  if (x->window_parent >= 0)
    return x->window_parent == y->window_parent && x->window_reg == y->window_reg &&
           x->window_stride == y->window_stride && x->offset == y->offset;
  return c->ext[a].key == c->ext[b].key && c->ext[a].start == c->ext[b].start;
}

/* ---- operands ------------------------------------------------------------------------- */

bool berth_verify_value_is_buffer(const berth_exec_method_t *m, int32_t v) {
  if (v < 0 || v >= m->n_values || m->values[v].window_parent >= 0 || m->values[v].storage != BERTH_STORAGE_STATE)
    return false;
  for (int32_t i = 0; i < m->n_instrs; i++) {
    const berth_instr_t *ins = &m->instrs[i];
    const int32_t *ops = m->operands + ins->operands;
    if ((ins->opcode == BERTH_I_RENAME && ops[0] == v) || (ins->opcode == BERTH_I_VIEW && ops[1] == v) ||
        (ins->opcode == BERTH_I_JOIN && ops[ins->n_in] == v))
      return false;
    if (ins->opcode == BERTH_I_KERNEL)
      for (int32_t k = 0; k < ins->n_out; k++)
        if (ops[ins->n_in + k] == v) return false;
  }
  return true;
}

static const int32_t *ops_of(const vctx_t *c, const berth_instr_t *ins) {
  return c->m->operands + ins->operands;
}

/* Values read by an instruction (not RETURN). */
static int32_t reads_of(const vctx_t *c, const berth_instr_t *ins, const int32_t **out) {
  *out = ops_of(c, ins);
  switch (ins->opcode) {
    case BERTH_I_KERNEL:
    case BERTH_I_JOIN: return ins->n_in;
    case BERTH_I_COPY:
    case BERTH_I_RENAME:
    case BERTH_I_VIEW:
    case BERTH_I_JUMP_IF_FALSE:
    case BERTH_I_ASSERT: return 1;
    default: return 0;
  }
}

/* Writes: a VIEW or a JOIN writes nothing (it defines its dst without ending anything, see
 * transfer). */
static int32_t writes_of(const vctx_t *c, const berth_instr_t *ins, const int32_t **out) {
  *out = ops_of(c, ins);
  switch (ins->opcode) {
    case BERTH_I_KERNEL: *out += ins->n_in; return ins->n_out + ins->n_scratch; /* scratch: one more output */
    case BERTH_I_COPY:
    case BERTH_I_RENAME: *out += 1; return 1;
    default: return 0;
  }
}

static int32_t n_operands_of(const berth_instr_t *ins) {
  switch (ins->opcode) {
    case BERTH_I_KERNEL: return (int32_t)ins->n_in + (int32_t)ins->n_out + (int32_t)ins->n_scratch;
    case BERTH_I_JOIN: return (int32_t)ins->n_in + 1;
    case BERTH_I_COPY:
    case BERTH_I_RENAME:
    case BERTH_I_VIEW: return 2;
    case BERTH_I_JUMP_IF_FALSE:
    case BERTH_I_ASSERT: return 1;
    default: return 0;
  }
}

/* ---- structural checks ---------------------------------------------------------------- */

static berth_status_t check_header(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  if (m->n_values < 0 || (m->n_values > 0 && !m->values))
    return CORRUPT("bad value table (%d values)", (int)m->n_values);
  if (m->n_instrs < 1 || !m->instrs)
    return CORRUPT("no instructions (a method ends with return)");
  if (m->n_operands < 0 || (m->n_operands > 0 && !m->operands))
    return CORRUPT("bad operand table (%d operands)", (int)m->n_operands);
  if (m->n_attrs < 0 || (m->n_attrs > 0 && !m->attrs))
    return CORRUPT("bad attribute table (%d attributes)", (int)m->n_attrs);
  if (m->n_inputs < 0 || (m->n_inputs > 0 && !m->inputs))
    return CORRUPT("bad input list (%d inputs)", (int)m->n_inputs);
  if (m->n_outputs < 0 || (m->n_outputs > 0 && !m->outputs))
    return CORRUPT("bad output list (%d outputs)", (int)m->n_outputs);
  if (m->n_regs < 0) return CORRUPT("negative register count %d", (int)m->n_regs);
  if (m->n_pools < 0 || (m->n_pools > 0 && !m->pool_sizes))
    return CORRUPT("bad pool table (%d pools)", (int)m->n_pools);
  if (m->state_size > 0 && !m->state_init)
    return CORRUPT("state region of %llu bytes has no initial contents",
                   (unsigned long long)m->state_size);
  if (m->n_once < 0 || m->n_once >= m->n_instrs)
    return CORRUPT("once-stream of %d instructions out of range [0,%d) (%d instructions, the last a return or jump)",
                   (int)m->n_once, (int)m->n_instrs, (int)m->n_instrs);
  return BERTH_OK;
}

/* [offset, offset + size) inside a region of `cap` bytes, offset aligned to `align`. */
static berth_status_t check_range(vctx_t *c, int32_t v, const char *where, uint64_t offset,
                                  uint64_t size, uint64_t cap, uint64_t align) {
  name_buf_t nb;
  if (size > cap || offset > cap - size)
    return CORRUPT("value %d (%s): bytes [%llu,+%llu) exceed the %s (%llu bytes)", (int)v,
                   vname(c, v, &nb), (unsigned long long)offset, (unsigned long long)size, where,
                   (unsigned long long)cap);
  if (size > 0 && align > 1 && offset % align != 0)
    return CORRUPT("value %d (%s): offset %llu in the %s is not a multiple of %llu", (int)v,
                   vname(c, v, &nb), (unsigned long long)offset, where, (unsigned long long)align);
  return BERTH_OK;
}

static uint64_t space_key(uint8_t cls, uint32_t id) { return (uint64_t)cls << 32 | id; }

static berth_status_t check_values(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb, pb;
  for (int32_t v = 0; v < c->nv; v++) {
    const berth_exec_value_t *x = &m->values[v];
    if (!berth_type_check(&x->type))
      return CORRUPT("value %d (%s): invalid type (dtype, rank or dims out of range)", (int)v,
                     vname(c, v, &nb));
    /* in 64 bits: size_t may be narrower than BERTH_MAX_TENSOR_BYTES */
    c->size[v] = (uint64_t)berth_type_numel(&x->type) * berth_dtype_size(x->type.dtype);
    if (x->window_parent < -1 || x->window_parent >= c->nv)
      return CORRUPT("value %d (%s): window parent %d out of range", (int)v, vname(c, v, &nb),
                     (int)x->window_parent);
  }
  for (int32_t v = 0; v < c->nv; v++) {
    const berth_exec_value_t *x = &m->values[v];
    if (x->window_parent >= 0) continue;
    uint64_t size = c->size[v], esz = berth_dtype_size(x->type.dtype);
    ext_t *e = &c->ext[v];
    char where[48];
    switch (x->storage) {
      case BERTH_STORAGE_ARENA:
        if (x->pool >= (uint32_t)m->n_pools)
          return CORRUPT("value %d (%s): arena pool %u out of range (%d pools)", (int)v,
                         vname(c, v, &nb), (unsigned)x->pool, (int)m->n_pools);
        berth_snprintf(where, sizeof where, "arena pool %u", (unsigned)x->pool);
        BERTH_TRY(check_range(c, v, where, x->offset, size, m->pool_sizes[x->pool], m->alignment));
        BERTH_TRY(check_range(c, v, where, x->offset, size, m->pool_sizes[x->pool], esz));
        e->key = space_key(BERTH_STORAGE_ARENA, x->pool);
        e->start = x->offset;
        break;
      case BERTH_STORAGE_CONST:
        BERTH_TRY(check_range(c, v, "constant blob", x->offset, size, c->p->constants_size, esz));
        e->key = space_key(BERTH_STORAGE_CONST, 0);
        e->start = x->offset;
        break;
      case BERTH_STORAGE_STATE:
        BERTH_TRY(check_range(c, v, "state region", x->offset, size, m->state_size, esz));
        e->key = space_key(BERTH_STORAGE_STATE, 0);
        e->start = x->offset;
        break;
      case BERTH_STORAGE_HOIST:
        BERTH_TRY(check_range(c, v, "hoist region", x->offset, size, m->hoist_size, esz));
        e->key = space_key(BERTH_STORAGE_HOIST, 0);
        e->start = x->offset;
        break;
      case BERTH_STORAGE_INPUT:
      case BERTH_STORAGE_OUTPUT: {
        bool in = x->storage == BERTH_STORAGE_INPUT;
        if (in ? c->p->alloc_inputs : c->p->alloc_outputs)
          return CORRUPT("value %d (%s): caller %s storage, but the program plans its %ss in the arena",
                         (int)v, vname(c, v, &nb), in ? "input" : "output", in ? "input" : "output");
        if (x->index >= (uint32_t)(in ? m->n_inputs : m->n_outputs))
          return CORRUPT("value %d (%s): %s index %u out of range (%d %ss)", (int)v, vname(c, v, &nb),
                         in ? "input" : "output", (unsigned)x->index,
                         (int)(in ? m->n_inputs : m->n_outputs), in ? "input" : "output");
        e->key = space_key(x->storage, x->index);
        e->start = 0;
        break;
      }
      default:
        return CORRUPT("value %d (%s): unknown storage class %u", (int)v, vname(c, v, &nb),
                       (unsigned)x->storage);
    }
    e->end = e->start + size;
  }
  for (int32_t v = 0; v < c->nv; v++) {
    const berth_exec_value_t *x = &m->values[v];
    int32_t par = x->window_parent;
    if (par < 0) continue;
    const berth_exec_value_t *px = &m->values[par];
    if (par == v || px->window_parent >= 0)
      return CORRUPT("value %d (%s): window parent %d (%s) is itself windowed", (int)v,
                     vname(c, v, &nb), (int)par, vname(c, par, &pb));
    if (x->window_reg < 0 || x->window_reg >= m->n_regs)
      return CORRUPT("value %d (%s): window register %d out of range (%d registers)", (int)v,
                     vname(c, v, &nb), (int)x->window_reg, (int)m->n_regs);
    c->ext[v] = c->ext[par];
    if (c->size[v] == 0) continue;
    if (!slice_fits(c, v, 0))
      return CORRUPT("value %d (%s): slice 0 [%llu,+%llu) lies outside its parent %s (%llu bytes)",
                     (int)v, vname(c, v, &nb), (unsigned long long)x->offset,
                     (unsigned long long)c->size[v], vname(c, par, &pb),
                     (unsigned long long)c->size[par]);
    uint64_t esz = berth_dtype_size(x->type.dtype);
    uint64_t base = (px->storage == BERTH_STORAGE_INPUT || px->storage == BERTH_STORAGE_OUTPUT)
                        ? 0 : c->ext[par].start;
    uint64_t as = x->window_stride < 0 ? (uint64_t)0 - (uint64_t)x->window_stride
                                       : (uint64_t)x->window_stride;
    if ((base % esz + x->offset % esz) % esz != 0 || as % esz != 0)
      return CORRUPT("value %d (%s): slices (offset %llu, stride %lld in %s) are not aligned to "
                     "the element size %llu", (int)v, vname(c, v, &nb), (unsigned long long)x->offset,
                     (long long)x->window_stride, vname(c, par, &pb), (unsigned long long)esz);
  }
  return BERTH_OK;
}

/* Outputs with a run-time extent: in increasing (output, axis) order (an output may have
 * several bounded axes), the axis inside the
 * output's rank, the extent an i64 scalar the method defines (not an input, state or
 * window; that it is written before the return is the dataflow check at the return). */
static berth_status_t check_bounds(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb;
  if (m->n_bounds < 0 || (m->n_bounds > 0 && !m->bounds)) return CORRUPT("bad bound list (%d bounds)", (int)m->n_bounds);
  for (int32_t k = 0; k < m->n_bounds; k++) {
    const berth_exec_bound_t *b = &m->bounds[k];
    const berth_exec_bound_t *pb = k ? &m->bounds[k - 1] : NULL;
    if (b->output < 0 || b->output >= m->n_outputs ||
        (pb && (b->output < pb->output || (b->output == pb->output && b->axis <= pb->axis))))
      return CORRUPT("bound %d: output %d axis %d is out of range [0,%d) or not after the previous bound's", (int)k,
                     (int)b->output, (int)b->axis, (int)m->n_outputs);
    const berth_type_t *t = &m->values[m->outputs[b->output]].type;
    if (b->axis < 0 || b->axis >= t->rank)
      return CORRUPT("bound %d: axis %d of output %d is outside its rank %d", (int)k, (int)b->axis, (int)b->output,
                     (int)t->rank);
    if (b->extent < 0 || b->extent >= c->nv)
      return CORRUPT("bound %d: extent value id %d out of range [0,%d)", (int)k, (int)b->extent, (int)c->nv);
    const berth_exec_value_t *x = &m->values[b->extent];
    if (x->type.dtype != BERTH_DTYPE_I64 || x->type.rank != 0 || x->window_parent >= 0 ||
        x->storage == BERTH_STORAGE_INPUT || x->storage == BERTH_STORAGE_STATE)
      return CORRUPT("bound %d: the extent of output %d, %s, is not an i64 scalar the method computes", (int)k,
                     (int)b->output, vname(c, b->extent, &nb));
  }
  return BERTH_OK;
}

static berth_status_t check_io(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb;
  memset(c->flags, 0, (size_t)c->nv);
  for (int32_t i = 0; i < m->n_inputs; i++) {
    int32_t v = m->inputs[i];
    if (v < 0 || v >= c->nv) return CORRUPT("input %d: value id %d out of range", (int)i, (int)v);
    const berth_exec_value_t *x = &m->values[v];
    if (x->window_parent >= 0) return CORRUPT("input %d (%s) is windowed", (int)i, vname(c, v, &nb));
    if (c->flags[v] & F_INPUT) return CORRUPT("input %d (%s) is listed twice", (int)i, vname(c, v, &nb));
    c->flags[v] |= F_INPUT;
    bool ok = c->p->alloc_inputs ? x->storage == BERTH_STORAGE_ARENA
                                 : x->storage == BERTH_STORAGE_INPUT && x->index == (uint32_t)i;
    if (!ok)
      return CORRUPT("input %d (%s) has %s storage; expected %s", (int)i, vname(c, v, &nb),
                     berth_exec_storage_name(x->storage),
                     c->p->alloc_inputs ? "arena (inputs are planned)" : "the caller's input buffer of its index");
  }
  for (int32_t j = 0; j < m->n_outputs; j++) {
    int32_t v = m->outputs[j];
    if (v < 0 || v >= c->nv) return CORRUPT("output %d: value id %d out of range", (int)j, (int)v);
    const berth_exec_value_t *x = &m->values[v];
    if (x->window_parent >= 0) return CORRUPT("output %d (%s) is windowed", (int)j, vname(c, v, &nb));
    if (c->flags[v] & F_OUTPUT)
      return VIOLATION("output %d (%s) is also an earlier output; each result needs its own output "
                       "storage (DESIGN rule 2)", (int)j, vname(c, v, &nb));
    if (c->flags[v] & F_INPUT)
      return VIOLATION("output %d (%s) is a method input; a result that is an input must be copied "
                       "into its own output storage (DESIGN rule 2)", (int)j, vname(c, v, &nb));
    c->flags[v] |= F_OUTPUT;
    if (x->storage == BERTH_STORAGE_CONST || x->storage == BERTH_STORAGE_STATE ||
        x->storage == BERTH_STORAGE_INPUT || x->storage == BERTH_STORAGE_HOIST)
      return VIOLATION("output %d (%s) has %s storage; such a result must be copied into its own "
                       "output storage (DESIGN rule 2)", (int)j, vname(c, v, &nb), berth_exec_storage_name(x->storage));
    bool ok = c->p->alloc_outputs ? x->storage == BERTH_STORAGE_ARENA
                                  : x->storage == BERTH_STORAGE_OUTPUT && x->index == (uint32_t)j;
    if (!ok)
      return CORRUPT("output %d (%s) has %s storage; expected %s", (int)j, vname(c, v, &nb),
                     berth_exec_storage_name(x->storage),
                     c->p->alloc_outputs ? "arena (outputs are planned)" : "the caller's output buffer of its index");
  }
  BERTH_TRY(check_bounds(c));
  /* A caller buffer is sized by the method's own input/output value of that index. */
  for (int32_t v = 0; v < c->nv; v++) {
    const berth_exec_value_t *x = &m->values[v];
    if (x->window_parent >= 0) continue;
    int32_t owner;
    if (x->storage == BERTH_STORAGE_INPUT) owner = m->inputs[x->index];
    else if (x->storage == BERTH_STORAGE_OUTPUT) owner = m->outputs[x->index];
    else continue;
    if (c->size[v] > c->size[owner]) {
      name_buf_t ob;
      return CORRUPT("value %d (%s): %llu bytes do not fit the caller's %s buffer %u of %llu bytes (%s)",
                     (int)v, vname(c, v, &nb), (unsigned long long)c->size[v],
                     x->storage == BERTH_STORAGE_INPUT ? "input" : "output", (unsigned)x->index,
                     (unsigned long long)c->size[owner], vname(c, owner, &ob));
    }
  }
  return BERTH_OK;
}

static bool in_range(int32_t target, int32_t n) { return target >= 0 && target < n; }

static berth_status_t check_kernel(vctx_t *c, int32_t i, const berth_instr_t *ins) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb, ib;
  const berth_op_def_t *def = berth_op_get(ins->op);
  if (!def || def->kind != BERTH_OPKIND_KERNEL || !def->infer || !def->run)
    return CORRUPT("instruction %d: op %u (%s) is not a kernel", (int)i, (unsigned)ins->op,
                   def ? def->name : "unknown");
  int32_t max_in = def->max_in < 0 ? BERTH_MAX_KERNEL_OPERANDS : def->max_in;
  if (max_in > BERTH_MAX_KERNEL_OPERANDS) max_in = BERTH_MAX_KERNEL_OPERANDS;
  if ((int32_t)ins->n_in < def->min_in || (int32_t)ins->n_in > max_in)
    return CORRUPT("instruction %d (kernel %s): %u inputs; expected %d to %d", (int)i, def->name,
                   (unsigned)ins->n_in, (int)def->min_in, (int)max_in);
  if (def->n_out < 0 || def->n_out > BERTH_MAX_KERNEL_OPERANDS || (int32_t)ins->n_out != def->n_out)
    return CORRUPT("instruction %d (kernel %s): %u outputs; expected %d", (int)i, def->name,
                   (unsigned)ins->n_out, (int)def->n_out);
  const berth_attr_value_t *attrs = NULL;
  if (def->n_attrs > 0) {
    if ((uint64_t)ins->attrs + def->n_attrs > (uint64_t)m->n_attrs)
      return CORRUPT("instruction %d (kernel %s): attributes [%u,+%u) out of range (%d attributes)",
                     (int)i, def->name, (unsigned)ins->attrs, (unsigned)def->n_attrs, (int)m->n_attrs);
    attrs = m->attrs + ins->attrs;
  }
  const int32_t *ops = ops_of(c, ins);
  for (int32_t k = 0; k < ins->n_in; k++) c->tin[k] = m->values[ops[k]].type;
  berth_status_t st = def->infer(attrs, c->tin, ins->n_in, c->tout, c->diag);
  if (st != BERTH_OK)
    return berth_fail_prefix(c->diag, BERTH_ERR_CORRUPT_DATA, "method %s: instruction %d (kernel %s)",
                             method_name(m), (int)i, def->name);
  for (int32_t k = 0; k < ins->n_out; k++) {
    int32_t v = ops[ins->n_in + k];
    if (!berth_type_equal(&c->tout[k], &m->values[v].type)) {
      char want[64], got[64];
      berth_type_format(&m->values[v].type, got, sizeof got);
      berth_type_format(&c->tout[k], want, sizeof want);
      return CORRUPT("instruction %d (%s): output %d (%s) is declared %s but %s gives %s", (int)i,
                     iname(c, i, &ib), (int)k, vname(c, v, &nb), got, def->name, want);
    }
  }
  return BERTH_OK;
}

/* The operand of jump_if_false and assert: a one-element bool. */
static berth_status_t check_condition(vctx_t *c, int32_t i, const berth_instr_t *ins) {
  name_buf_t nb;
  const berth_type_t *t = &c->m->values[ops_of(c, ins)[0]].type;
  if (t->dtype != BERTH_DTYPE_BOOL || berth_type_numel(t) != 1) {
    char ts[64];
    return CORRUPT("instruction %d (%s): condition %s is %s; expected a one-element bool", (int)i,
                   berth_exec_opcode_name(ins->opcode), vname(c, ops_of(c, ins)[0], &nb), berth_type_format(t, ts, sizeof ts));
  }
  return BERTH_OK;
}

/* An assert reads its condition and, when it is false, ends the call with an error: no
 * successor but the next instruction, no write, and no return reached (so no output or
 * state needs to be intact there). Its one attribute is the assert op's message. */
static berth_status_t check_assert(vctx_t *c, int32_t i, const berth_instr_t *ins) {
  const berth_exec_method_t *m = c->m;
  const berth_op_def_t *def = berth_op_get(ins->op);
  if (ins->op != BERTH_OP_ASSERT || !def || def->kind != BERTH_OPKIND_ASSERT)
    return CORRUPT("instruction %d (assert): op %u is not assert", (int)i, (unsigned)ins->op);
  if (ins->n_in != 1 || ins->n_out != 0)
    return CORRUPT("instruction %d (assert): %u inputs and %u outputs; expected 1 and 0", (int)i,
                   (unsigned)ins->n_in, (unsigned)ins->n_out);
  if ((uint64_t)ins->attrs + def->n_attrs > (uint64_t)m->n_attrs)
    return CORRUPT("instruction %d (assert): attributes [%u,+%u) out of range (%d attributes)", (int)i,
                   (unsigned)ins->attrs, (unsigned)def->n_attrs, (int)m->n_attrs);
  return check_condition(c, i, ins);
}

/* A view's operands: neither windowed, one dtype, dst's bytes inside src's (same storage). That
 * no other instruction writes dst is check_view_defs. */
static berth_status_t check_view(vctx_t *c, int32_t i, const berth_instr_t *ins) {
  const int32_t *ops = ops_of(c, ins);
  int32_t src = ops[0], dst = ops[1];
  const berth_exec_value_t *x = &c->m->values[src], *y = &c->m->values[dst];
  name_buf_t sb, db;
  bytes_buf_t b1, b2;
  if (x->window_parent >= 0 || y->window_parent >= 0 || x->type.dtype != y->type.dtype || src == dst)
    return CORRUPT("instruction %d (view): %s -> %s; a view's source and destination are two values of one "
                   "dtype, neither windowed", (int)i, vname(c, src, &sb), vname(c, dst, &db));
  const ext_t *e = &c->ext[src], *f = &c->ext[dst];
  if (c->size[dst] > 0 && (f->key != e->key || f->start < e->start || f->end > e->end))
    return CORRUPT("instruction %d (view): %s (%s) does not lie inside its source %s (%s)", (int)i,
                   vname(c, dst, &db), fmt_bytes(c, dst, &b1), vname(c, src, &sb), fmt_bytes(c, src, &b2));
  /* where inside: exactly view_offset bytes in, so a source moved by a planner bug (its bytes
   * still covering the view's) is caught, not only a view outside its source */
  uint64_t off = ins->view_offset;
  if (off > c->size[src] || c->size[dst] > c->size[src] - off)
    return CORRUPT("instruction %d (view): byte offset %llu with %llu bytes of %s runs past the %llu bytes of its "
                   "source %s", (int)i, (unsigned long long)off, (unsigned long long)c->size[dst], vname(c, dst, &db),
                   (unsigned long long)c->size[src], vname(c, src, &sb));
  if (c->size[dst] > 0 && f->start != e->start + off)
    return CORRUPT("instruction %d (view): %s (%s) starts %lld bytes into its source %s (%s); the view says %llu",
                   (int)i, vname(c, dst, &db), fmt_bytes(c, dst, &b1), (long long)(f->start - e->start),
                   vname(c, src, &sb), fmt_bytes(c, src, &b2), (unsigned long long)off);
  return BERTH_OK;
}

/* A join's operands: at least one part and one output, all plain arena values (not windowed)
 * of one dtype, the output not among the parts; part k lies exactly at its slot of the
 * output's bytes (byte offset: the sizes of parts 0..k-1 summed) and the parts fill them, so
 * a part moved by a planner bug, even within the output, is caught. Two uses of one part
 * cannot both sit at their slots unless it is empty. That only the join defines the output is
 * check_view_defs. */
static berth_status_t check_join(vctx_t *c, int32_t i, const berth_instr_t *ins) {
  if (ins->n_in < 1 || ins->n_in > BERTH_MAX_KERNEL_OPERANDS || ins->n_out != 1)
    return CORRUPT("instruction %d (join): %u parts and %u outputs; a join has 1 to %d parts and one output", (int)i,
                   (unsigned)ins->n_in, (unsigned)ins->n_out, BERTH_MAX_KERNEL_OPERANDS);
  const int32_t *ops = ops_of(c, ins);
  int32_t out = ops[ins->n_in];
  const berth_exec_value_t *y = &c->m->values[out];
  const ext_t *f = &c->ext[out];
  name_buf_t pb, ob;
  bytes_buf_t b1, b2;
  uint64_t at = 0;
  for (int32_t k = 0; k <= ins->n_in; k++) {
    const berth_exec_value_t *x = &c->m->values[ops[k]];
    if (x->window_parent >= 0 || x->storage != BERTH_STORAGE_ARENA || x->type.dtype != y->type.dtype ||
        (k < ins->n_in && ops[k] == out))
      return CORRUPT("instruction %d (join): %s -> %s; a join's parts and output are distinct arena values of one "
                     "dtype, none windowed", (int)i, vname(c, ops[k], &pb), vname(c, out, &ob));
    if (k == ins->n_in) break;
    uint64_t n = c->size[ops[k]];
    if (n > c->size[out] - at)
      return CORRUPT("instruction %d (join): part %d %s (%llu bytes) runs past the %llu bytes of %s", (int)i, (int)k,
                     vname(c, ops[k], &pb), (unsigned long long)n, (unsigned long long)c->size[out], vname(c, out, &ob));
    const ext_t *e = &c->ext[ops[k]];
    if (n > 0 && (e->key != f->key || e->start != f->start + at))
      return VIOLATION("instruction %d (join): part %d %s (%s) is not at byte %llu of %s (%s), its slot; a join's "
                       "parts are produced in place, one after the other", (int)i, (int)k, vname(c, ops[k], &pb),
                       fmt_bytes(c, ops[k], &b1), (unsigned long long)at, vname(c, out, &ob), fmt_bytes(c, out, &b2));
    at += n;
  }
  if (at != c->size[out])
    return CORRUPT("instruction %d (join): the parts have %llu bytes but %s has %llu", (int)i, (unsigned long long)at,
                   vname(c, out, &ob), (unsigned long long)c->size[out]);
  return BERTH_OK;
}

static berth_status_t check_instrs(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb, ib, sb;
  for (int32_t i = 0; i < c->n; i++) {
    const berth_instr_t *ins = &m->instrs[i];
    if (ins->opcode >= BERTH_I_COUNT)
      return CORRUPT("instruction %d: unknown opcode %u", (int)i, (unsigned)ins->opcode);
    if (ins->n_scratch > (ins->opcode == BERTH_I_KERNEL ? 1 : 0))
      return CORRUPT("instruction %d (%s): %u scratch values; a kernel has 0 or 1, other instructions none", (int)i,
                     berth_exec_opcode_name(ins->opcode), (unsigned)ins->n_scratch);
    int32_t nops = n_operands_of(ins);
    if (nops > 0) {
      if ((uint64_t)ins->operands + (uint64_t)nops > (uint64_t)m->n_operands)
        return CORRUPT("instruction %d (%s): operands [%u,+%d) out of range (%d operands)", (int)i,
                       berth_exec_opcode_name(ins->opcode), (unsigned)ins->operands, (int)nops, (int)m->n_operands);
      const int32_t *ops = ops_of(c, ins);
      for (int32_t k = 0; k < nops; k++)
        if (ops[k] < 0 || ops[k] >= c->nv)
          return CORRUPT("instruction %d (%s): operand %d is value id %d, out of range (%d values)",
                         (int)i, berth_exec_opcode_name(ins->opcode), (int)k, (int)ops[k], (int)c->nv);
    }
    switch (ins->opcode) {
      case BERTH_I_KERNEL: BERTH_TRY(check_kernel(c, i, ins)); break;
      case BERTH_I_COPY:
      case BERTH_I_RENAME: {
        const int32_t *ops = ops_of(c, ins);
        if (c->size[ops[0]] != c->size[ops[1]])
          return CORRUPT("instruction %d (%s): %s has %llu bytes but %s has %llu", (int)i,
                         iname(c, i, &ib), vname(c, ops[0], &sb), (unsigned long long)c->size[ops[0]],
                         vname(c, ops[1], &nb), (unsigned long long)c->size[ops[1]]);
        if (ins->opcode == BERTH_I_RENAME && !same_bytes(c, ops[0], ops[1])) {
          bytes_buf_t b1, b2;
          return VIOLATION("instruction %d (rename): %s (%s) and %s (%s) are not on the same "
                           "storage; a hand-over between different bytes must be a copy", (int)i,
                           vname(c, ops[0], &sb), fmt_bytes(c, ops[0], &b1), vname(c, ops[1], &nb),
                           fmt_bytes(c, ops[1], &b2));
        }
        break;
      }
      case BERTH_I_ASSERT: BERTH_TRY(check_assert(c, i, ins)); break;
      case BERTH_I_VIEW: BERTH_TRY(check_view(c, i, ins)); break;
      case BERTH_I_JOIN: BERTH_TRY(check_join(c, i, ins)); break;
      case BERTH_I_JUMP_IF_FALSE: BERTH_TRY(check_condition(c, i, ins));
        /* fall through */
      case BERTH_I_JUMP:
        if (!in_range(ins->target, c->n))
          return CORRUPT("instruction %d (%s): target %d out of range [0,%d)", (int)i,
                         berth_exec_opcode_name(ins->opcode), (int)ins->target, (int)c->n);
        break;
      case BERTH_I_LOOP_NEXT:
        if (!in_range(ins->target, c->n))
          return CORRUPT("instruction %d (loop_next): target %d out of range [0,%d)", (int)i,
                         (int)ins->target, (int)c->n);
        if (ins->count < 1 || ins->count > MAX_LOOP_COUNT)
          return CORRUPT("instruction %d (loop_next): trip count %lld out of range [1,2^62]", (int)i,
                         (long long)ins->count);
        /* fall through */
      case BERTH_I_LOOP_INIT:
        if (ins->reg < 0 || ins->reg >= m->n_regs)
          return CORRUPT("instruction %d (%s): register %d out of range (%d registers)", (int)i,
                         berth_exec_opcode_name(ins->opcode), (int)ins->reg, (int)m->n_regs);
        break;
      default: break;
    }
  }
  uint8_t last = m->instrs[c->n - 1].opcode;
  if (last != BERTH_I_JUMP && last != BERTH_I_RETURN)
    return CORRUPT("instruction %d (%s) is the last one and can fall off the end; a method ends "
                   "with return or jump", (int)(c->n - 1), berth_exec_opcode_name(last));
  return BERTH_OK;
}

/* The value instruction j defines without writing it (a view's dst, a join's output), or -1. */
static int32_t defined_in_place(const vctx_t *c, int32_t j) {
  const berth_instr_t *ins = &c->m->instrs[j];
  if (ins->opcode == BERTH_I_VIEW) return ops_of(c, ins)[1];
  if (ins->opcode == BERTH_I_JOIN) return ops_of(c, ins)[ins->n_in];
  return -1;
}

/* A view's destination is defined by views only: no kernel, copy or rename writes it (its
 * bytes may sit where a write of them would break an alignment or aliasing rule). A join's
 * output is defined by that join only: nothing writes it and no view or other join defines it
 * (its parts' producers wrote its bytes, each as its own value). */
static berth_status_t check_view_defs(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb, ib;
  for (int32_t i = 0; i < c->n; i++) {
    const berth_instr_t *ins = &m->instrs[i];
    int32_t dst = defined_in_place(c, i);
    if (dst < 0) continue;
    bool join = ins->opcode == BERTH_I_JOIN;
    for (int32_t j = 0; j < c->n; j++) {
      const int32_t *w;
      int32_t nwr = writes_of(c, &m->instrs[j], &w);
      for (int32_t k = 0; k < nwr; k++)
        if (w[k] == dst)
          return CORRUPT("instruction %d (%s) writes %s, which instruction %d makes a %s; a %s", (int)j,
                         iname(c, j, &ib), vname(c, dst, &nb), (int)i, join ? "join" : "view",
                         join ? "join's output is defined only by its join" : "view is defined only by views");
      if (join && j != i && defined_in_place(c, j) == dst)
        return CORRUPT("instruction %d (%s) defines %s, which instruction %d joins; a join's output is defined only "
                       "by its join", (int)j, iname(c, j, &ib), vname(c, dst, &nb), (int)i);
    }
  }
  return BERTH_OK;
}

/* A kernel's scratch value: plain arena bytes (u8, not windowed, not an input or output),
 * named by its instruction only, as scratch. To the dataflow it is one more output of that
 * instruction (writes_of), so a scratch over a value still live is caught there like any
 * other clobbering write. Uses c->order as a counter before sort_values fills it. */
static berth_status_t check_scratch(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb, ib;
  int32_t *uses = c->order;
  memset(uses, 0, (size_t)c->nv * sizeof *uses);
  for (int32_t i = 0; i < c->n; i++) {
    const int32_t *ops = ops_of(c, &m->instrs[i]);
    for (int32_t k = 0, n = n_operands_of(&m->instrs[i]); k < n; k++) uses[ops[k]]++;
  }
  for (int32_t v = 0; v < c->nv; v++)
    if (m->values[v].window_parent >= 0) uses[m->values[v].window_parent]++;
  for (int32_t i = 0; i < c->n; i++) {
    const berth_instr_t *ins = &m->instrs[i];
    if (!ins->n_scratch) continue;
    int32_t v = ops_of(c, ins)[ins->n_in + ins->n_out];
    const berth_exec_value_t *x = &m->values[v];
    if (x->window_parent >= 0 || x->storage != BERTH_STORAGE_ARENA || x->type.dtype != BERTH_DTYPE_U8 ||
        x->type.rank != 1 || c->size[v] == 0 || (c->flags[v] & (F_INPUT | F_OUTPUT)))
      return CORRUPT("instruction %d (%s): scratch %s is not plain arena bytes (expected a non-empty u8[n] arena "
                     "value, not windowed, not a method input or output)", (int)i, iname(c, i, &ib), vname(c, v, &nb));
    if (uses[v] != 1)
      return VIOLATION("instruction %d (%s): scratch %s is named by %d operands or windows; a kernel's scratch "
                       "belongs to its one call, and no other instruction may read or write it", (int)i,
                       iname(c, i, &ib), vname(c, v, &nb), (int)uses[v]);
  }
  return BERTH_OK;
}

/* ---- rules that need no dataflow ------------------------------------------------------- */

static bool is_hoist(const vctx_t *c, int32_t v) { return c->m->values[ident(c, v)].storage == BERTH_STORAGE_HOIST; }

/* The once-stream [0, n_once) runs once, before the first call, into the hoist region, and
 * every call starts at n_once (exec_program.h). So it may only compute: kernels without
 * scratch and views, reading constants and hoisted values, defining hoisted values; it falls
 * through into the call's stream, and the dataflow from instruction 0 is the first call. For
 * every later call to see the same hoisted bytes, nothing from n_once on writes or defines a
 * HOIST value, and no jump goes back below n_once. */
static berth_status_t check_once_stream(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb, ib;
  for (int32_t i = 0; i < m->n_once; i++) {
    const berth_instr_t *ins = &m->instrs[i];
    if (!(ins->opcode == BERTH_I_KERNEL && !ins->n_scratch) && ins->opcode != BERTH_I_VIEW)
      return CORRUPT("instruction %d (%s) is in the once-stream (the first %d instructions), which holds only "
                     "kernels without scratch and views", (int)i, iname(c, i, &ib), (int)m->n_once);
    const int32_t *ops = ops_of(c, ins);
    int32_t n_in = ins->opcode == BERTH_I_KERNEL ? ins->n_in : 1, n = n_operands_of(ins);
    for (int32_t k = 0; k < n; k++) {
      uint8_t cls = m->values[ident(c, ops[k])].storage;
      if (k < n_in ? (cls == BERTH_STORAGE_CONST || cls == BERTH_STORAGE_HOIST) : cls == BERTH_STORAGE_HOIST) continue;
      return VIOLATION("instruction %d (%s) in the once-stream %s %s, which has %s storage; it may read only "
                       "constants and hoisted values and write only hoisted values", (int)i, iname(c, i, &ib),
                       k < n_in ? "reads" : "defines", vname(c, ops[k], &nb), berth_exec_storage_name(cls));
    }
  }
  for (int32_t i = m->n_once; i < c->n; i++) {
    const berth_instr_t *ins = &m->instrs[i];
    if ((ins->opcode == BERTH_I_JUMP || ins->opcode == BERTH_I_JUMP_IF_FALSE || ins->opcode == BERTH_I_LOOP_NEXT) &&
        ins->target < m->n_once)
      return CORRUPT("instruction %d (%s): target %d lies in the once-stream (the first %d instructions)", (int)i,
                     iname(c, i, &ib), (int)ins->target, (int)m->n_once);
    const int32_t *w;
    int32_t nwr = writes_of(c, ins, &w);
    for (int32_t k = 0; k < nwr; k++)
      if (is_hoist(c, w[k]))
        return VIOLATION("instruction %d (%s) writes %s in the hoist region; hoisted values are computed once, "
                         "before the first call, and only read by calls", (int)i, iname(c, i, &ib), vname(c, w[k], &nb));
    int32_t d = ins->opcode == BERTH_I_RENAME ? ops_of(c, ins)[1] : defined_in_place(c, i);
    if (d >= 0 && is_hoist(c, d))
      return VIOLATION("instruction %d (%s) defines %s in the hoist region; hoisted values are defined once, in the "
                       "once-stream", (int)i, iname(c, i, &ib), vname(c, d, &nb));
  }
  return BERTH_OK;
}

/* Writes into constants or caller inputs (checked before the dataflow: the direct reason). */
static berth_status_t check_readonly(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb, ib;
  bytes_buf_t b1;
  for (int32_t i = 0; i < c->n; i++) {
    const int32_t *w;
    int32_t nwr = writes_of(c, &m->instrs[i], &w);
    for (int32_t k = 0; k < nwr; k++) {
      if (c->size[w[k]] == 0) continue;
      uint8_t cls = m->values[ident(c, w[k])].storage;
      if (cls == BERTH_STORAGE_CONST)
        return VIOLATION("instruction %d (%s) writes %s into constant bytes (%s); constants are "
                         "read-only", (int)i, iname(c, i, &ib), vname(c, w[k], &nb), fmt_bytes(c, w[k], &b1));
      if (cls == BERTH_STORAGE_INPUT)
        return VIOLATION("instruction %d (%s) writes %s into the caller's input buffer (%s); inputs "
                         "are read-only", (int)i, iname(c, i, &ib), vname(c, w[k], &nb), fmt_bytes(c, w[k], &b1));
    }
  }
  return BERTH_OK;
}

/* Kernel outputs disjoint from its inputs and from each other; copies between disjoint or
 * identical bytes. Checked after the reads: when the clobbered input is read later, the
 * read's message (with the culprit) says more. */
static berth_status_t check_disjoint_operands(vctx_t *c) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb, ib, ob;
  bytes_buf_t b1, b2;
  for (int32_t i = 0; i < c->n; i++) {
    const berth_instr_t *ins = &m->instrs[i];
    const int32_t *w, *r;
    int32_t nwr = writes_of(c, ins, &w), nrd = reads_of(c, ins, &r);
    if (ins->opcode == BERTH_I_KERNEL) {
      for (int32_t k = 0; k < nwr; k++) {
        const char *what = k < ins->n_out ? "output" : "scratch";
        for (int32_t j = 0; j < nrd; j++)
          if (operands_overlap(c, w[k], r[j]))
            return VIOLATION("instruction %d (%s): %s %s (%s) overlaps input %s (%s); kernels "
                             "need disjoint inputs, outputs and scratch", (int)i, iname(c, i, &ib), what,
                             vname(c, w[k], &nb), fmt_bytes(c, w[k], &b1), vname(c, r[j], &ob),
                             fmt_bytes(c, r[j], &b2));
        for (int32_t j = 0; j < k; j++)
          if (w[j] == w[k] || operands_overlap(c, w[k], w[j]))
            return VIOLATION("instruction %d (%s): %s %s (%s) and %s %s (%s) share bytes", (int)i,
                             iname(c, i, &ib), "output", vname(c, w[j], &ob), fmt_bytes(c, w[j], &b2), what,
                             vname(c, w[k], &nb), fmt_bytes(c, w[k], &b1));
      }
    } else if (ins->opcode == BERTH_I_COPY) {
      if (operands_overlap(c, r[0], w[0]) && !same_bytes(c, r[0], w[0]))
        return VIOLATION("instruction %d (copy): source %s (%s) and destination %s (%s) overlap", (int)i,
                         vname(c, r[0], &ob), fmt_bytes(c, r[0], &b2), vname(c, w[0], &nb),
                         fmt_bytes(c, w[0], &b1));
    }
  }
  return BERTH_OK;
}

/* ---- sorted extents ------------------------------------------------------------------- */

static bool ext_less(const vctx_t *c, int32_t a, int32_t b) {
  const ext_t *x = &c->ext[a], *y = &c->ext[b];
  if (x->key != y->key) return x->key < y->key;
  if (x->start != y->start) return x->start < y->start;
  return a < b;
}

static void sift_down(const vctx_t *c, int32_t *a, int32_t root, int32_t n) {
  for (;;) {
    int32_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && ext_less(c, a[child], a[child + 1])) child++;
    if (!ext_less(c, a[root], a[child])) return;
    int32_t t = a[root];
    a[root] = a[child];
    a[child] = t;
    root = child;
  }
}

/* Heapsort: no recursion, no extra memory, O(n log n) on hostile input. */
static void sort_values(vctx_t *c) {
  int32_t n = 0;
  for (int32_t v = 0; v < c->nv; v++)
    if (c->m->values[v].window_parent < 0 && c->size[v] > 0) c->order[n++] = v;
  c->n_sorted = n;
  for (int32_t i = n / 2 - 1; i >= 0; i--) sift_down(c, c->order, i, n);
  for (int32_t end = n - 1; end > 0; end--) {
    int32_t t = c->order[0];
    c->order[0] = c->order[end];
    c->order[end] = t;
    sift_down(c, c->order, 0, end);
  }
  for (int32_t j = 0; j < n; j++) {
    const ext_t *e = &c->ext[c->order[j]];
    uint64_t pm = e->end;
    if (j > 0 && c->ext[c->order[j - 1]].key == e->key && c->pmax[j - 1] > pm) pm = c->pmax[j - 1];
    c->pmax[j] = pm;
  }
}

/* Values intact at entry must not share bytes, except constants (read-only, may be shared). */
static berth_status_t check_entry_disjoint(vctx_t *c) {
  int32_t best = -1;
  uint64_t best_end = 0, key = 0;
  for (int32_t j = 0; j < c->n_sorted; j++) {
    int32_t v = c->order[j];
    const ext_t *e = &c->ext[v];
    if (!(c->flags[v] & (F_INPUT | F_STATE))) continue;
    if (best < 0 || e->key != key) {
      key = e->key;
      best = v;
      best_end = e->end;
      continue;
    }
    if (e->start < best_end) {
      name_buf_t a, b;
      bytes_buf_t ba, bb;
      bool both_state = (c->flags[v] & F_STATE) && (c->flags[best] & F_STATE);
      return VIOLATION("%s %s (%s) and %s (%s) share bytes; %s", both_state ? "state values" : "values",
                       vname(c, best, &a), fmt_bytes(c, best, &ba), vname(c, v, &b), fmt_bytes(c, v, &bb),
                       both_state ? "each state buffer needs bytes of its own"
                                  : "method inputs and state must not share bytes");
    }
    if (e->end > best_end) {
      best = v;
      best_end = e->end;
    }
  }
  return BERTH_OK;
}

/* ---- basic blocks ---------------------------------------------------------------------- */

static bool ends_block(uint8_t op) {
  return op == BERTH_I_JUMP || op == BERTH_I_JUMP_IF_FALSE || op == BERTH_I_LOOP_NEXT ||
         op == BERTH_I_RETURN;
}

static bool has_target(uint8_t op) {
  return op == BERTH_I_JUMP || op == BERTH_I_JUMP_IF_FALSE || op == BERTH_I_LOOP_NEXT;
}

/* Leaders: instruction 0, jump targets, and the instruction after a branch or return. */
static void build_blocks(vctx_t *c) {
  memset(c->block_of, 0, (size_t)c->n * sizeof *c->block_of);
  c->block_of[0] = 1;
  for (int32_t i = 0; i < c->n; i++) {
    const berth_instr_t *ins = &c->m->instrs[i];
    if (has_target(ins->opcode)) c->block_of[ins->target] = 1;
    if (ends_block(ins->opcode) && i + 1 < c->n) c->block_of[i + 1] = 1;
  }
  int32_t nb = 0;
  for (int32_t i = 0; i < c->n; i++) {
    if (c->block_of[i]) c->block_start[nb++] = i;
    c->block_of[i] = nb - 1;
  }
  c->block_start[nb] = c->n;
  c->nb = nb;
}

/* ---- dataflow ------------------------------------------------------------------------- */

static void bit_set(uint64_t *b, int32_t v) { b[v >> 6] |= (uint64_t)1 << (v & 63); }
static void bit_clear(uint64_t *b, int32_t v) { b[v >> 6] &= ~((uint64_t)1 << (v & 63)); }
static bool bit_get(const uint64_t *b, int32_t v) { return (b[v >> 6] >> (v & 63)) & 1; }

/* Position of the first sorted value at or after (key, start >= end). */
static int32_t lower_bound(const vctx_t *c, uint64_t key, uint64_t end) {
  int32_t lo = 0, hi = c->n_sorted;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    const ext_t *e = &c->ext[c->order[mid]];
    if (e->key < key || (e->key == key && e->start < end)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* A write of v. A whole write makes v intact (and, for a window parent, clean); a slice
 * write of parent P keeps P intact if it was, and makes it intact if P is clean: nothing
 * else wrote over P's bytes since the loop that writes its slices began (LOOP_INIT of the
 * slice register). Every other value sharing a byte with the bytes of v's identity is
 * no longer intact, nor clean. */
static void apply_write(const vctx_t *c, uint64_t *bits, uint64_t *nbits, int32_t v) {
  if (c->size[v] == 0) return;
  int32_t u = ident(c, v), slot = c->slot[u];
  bool old_i = bit_get(bits, u), old_n = slot >= 0 && bit_get(nbits, slot);
  const ext_t *e = &c->ext[u];
  for (int32_t j = lower_bound(c, e->key, e->end) - 1; j >= 0; j--) {
    const ext_t *x = &c->ext[c->order[j]];
    if (x->key != e->key || c->pmax[j] <= e->start) break;
    if (x->end > e->start) {
      int32_t w = c->order[j];
      bit_clear(bits, w);
      if (c->slot[w] >= 0) bit_clear(nbits, c->slot[w]);
    }
  }
  if (u == v) {
    bit_set(bits, u);
    if (slot >= 0) bit_set(nbits, slot);
  } else {
    if (old_i || old_n) bit_set(bits, u);
    if (old_n) bit_set(nbits, slot);
  }
}

/* The effect of instruction i on the running state (bits, nbits, regs). */
static void transfer(const vctx_t *c, int32_t i, uint64_t *bits, uint64_t *nbits, int64_t *regs) {
  const berth_instr_t *ins = &c->m->instrs[i];
  if (ins->opcode == BERTH_I_LOOP_INIT) {
    /* it starts the loops that write slices selected by this register: their parents are clean */
    regs[ins->reg] = 0;
    for (int32_t v = 0; v < c->nv; v++) {
      const berth_exec_value_t *x = &c->m->values[v];
      if (x->window_parent >= 0 && x->window_reg == ins->reg) bit_set(nbits, c->slot[x->window_parent]);
    }
    return;
  }
  if (ins->opcode == BERTH_I_VIEW) {
    /* dst is defined at its bytes and src stays defined: nothing is killed */
    const int32_t *ops = ops_of(c, ins);
    if ((c->size[ops[0]] == 0 || bit_get(bits, ident(c, ops[0]))) && c->size[ops[1]] > 0) bit_set(bits, ops[1]);
    return;
  }
  if (ins->opcode == BERTH_I_JOIN) {
    /* out takes its bytes over like a write (every other value there ends: the sanitizer
     * retags them), except that the parts stay defined; out is defined when every part is */
    const int32_t *ops = ops_of(c, ins);
    int32_t out = ops[ins->n_in];
    bool had[BERTH_MAX_KERNEL_OPERANDS], had_n[BERTH_MAX_KERNEL_OPERANDS], all = true;
    for (int32_t k = 0; k < ins->n_in; k++) { /* verified: at most BERTH_MAX_KERNEL_OPERANDS, not windowed */
      int32_t s = c->slot[ops[k]];
      had[k] = bit_get(bits, ops[k]);
      had_n[k] = s >= 0 && bit_get(nbits, s);
      all = all && (c->size[ops[k]] == 0 || had[k]);
    }
    if (c->size[out] == 0) return;
    apply_write(c, bits, nbits, out);
    if (!all) {
      bit_clear(bits, out);
      if (c->slot[out] >= 0) bit_clear(nbits, c->slot[out]);
    }
    for (int32_t k = 0; k < ins->n_in; k++) {
      if (had[k]) bit_set(bits, ops[k]);
      if (had_n[k]) bit_set(nbits, c->slot[ops[k]]);
    }
    return;
  }
  const int32_t *w;
  int32_t n = writes_of(c, ins, &w);
  for (int32_t k = 0; k < n; k++) apply_write(c, bits, nbits, w[k]);
}

static int32_t successors(const vctx_t *c, int32_t i, int32_t out[2]) {
  const berth_instr_t *ins = &c->m->instrs[i];
  switch (ins->opcode) {
    case BERTH_I_JUMP: out[0] = ins->target; return 1;
    case BERTH_I_JUMP_IF_FALSE:
    case BERTH_I_LOOP_NEXT: out[0] = ins->target; out[1] = i + 1; return 2;
    case BERTH_I_RETURN: return 0;
    default: out[0] = i + 1; return 1;
  }
}

static void enqueue(vctx_t *c, int32_t b, int32_t *tail, int32_t *count) {
  if (c->inq[b]) return;
  c->inq[b] = 1;
  c->queue[*tail] = b;
  *tail = (*tail + 1) % c->nb;
  (*count)++;
}

/* Meets (bits, nbits, regs) into block b's entry state. */
static void push(vctx_t *c, int32_t b, const uint64_t *bits, const uint64_t *nbits,
                 const int64_t *regs, int32_t *tail, int32_t *count) {
  uint64_t *in = c->in + (size_t)b * c->nw;
  uint64_t *in_n = c->in_n + (size_t)b * c->nwn;
  int64_t *rs = c->regs + (size_t)b * (size_t)c->nr;
  bool changed = false;
  if (!c->reached[b]) {
    c->reached[b] = 1;
    if (c->nw) memcpy(in, bits, c->nw * sizeof *in);
    if (c->nwn) memcpy(in_n, nbits, c->nwn * sizeof *in_n);
    if (c->nr) memcpy(rs, regs, (size_t)c->nr * sizeof *rs);
    changed = true;
  } else {
    for (size_t k = 0; k < c->nw; k++) {
      uint64_t nb = in[k] & bits[k];
      if (nb != in[k]) {
        in[k] = nb;
        changed = true;
      }
    }
    for (size_t k = 0; k < c->nwn; k++) {
      uint64_t nb = in_n[k] & nbits[k];
      if (nb != in_n[k]) {
        in_n[k] = nb;
        changed = true;
      }
    }
    for (int32_t r = 0; r < c->nr; r++) {
      int64_t a = rs[r], x = regs[r];
      int64_t j = (a < 0 || x < 0) ? REG_UNKNOWN : (a > x ? a : x);
      if (j != a) {
        rs[r] = j;
        changed = true;
      }
    }
  }
  if (changed) enqueue(c, b, tail, count);
}

/* Loads block b's entry state into the running state (tmp, tmp_n, rcur). */
static void load_block(vctx_t *c, int32_t b) {
  if (c->nw) memcpy(c->tmp, c->in + (size_t)b * c->nw, c->nw * sizeof *c->tmp);
  if (c->nwn) memcpy(c->tmp_n, c->in_n + (size_t)b * c->nwn, c->nwn * sizeof *c->tmp_n);
  if (c->nr) memcpy(c->rcur, c->regs + (size_t)b * (size_t)c->nr, (size_t)c->nr * sizeof *c->rcur);
}

static void run_dataflow(vctx_t *c) {
  memset(c->reached, 0, (size_t)c->nb);
  memset(c->inq, 0, (size_t)c->nb);
  /* entry state */
  memset(c->tmp, 0, c->nw * sizeof *c->tmp);
  memset(c->tmp_n, 0, c->nwn * sizeof *c->tmp_n);
  for (int32_t v = 0; v < c->nv; v++) {
    const berth_exec_value_t *x = &c->m->values[v];
    if (x->window_parent >= 0) continue;
    if ((c->flags[v] & (F_INPUT | F_STATE)) || x->storage == BERTH_STORAGE_CONST || c->size[v] == 0) {
      c->flags[v] |= F_ENTRY;
      bit_set(c->tmp, v);
      if (c->slot[v] >= 0) bit_set(c->tmp_n, c->slot[v]);
    }
  }
  for (int32_t r = 0; r < c->nr; r++) c->rcur[r] = REG_UNKNOWN; /* registers are unset at entry */
  int32_t head = 0, tail = 0, count = 0;
  push(c, 0, c->tmp, c->tmp_n, c->rcur, &tail, &count);
  while (count > 0) {
    int32_t b = c->queue[head];
    head = (head + 1) % c->nb;
    count--;
    c->inq[b] = 0;
    load_block(c, b);
    int32_t last = c->block_start[b + 1] - 1;
    for (int32_t i = c->block_start[b]; i <= last; i++) transfer(c, i, c->tmp, c->tmp_n, c->rcur);
    const berth_instr_t *ins = &c->m->instrs[last];
    if (c->nr) {
      memcpy(c->rtaken, c->rcur, (size_t)c->nr * sizeof *c->rcur);
      memcpy(c->rfall, c->rcur, (size_t)c->nr * sizeof *c->rcur);
    }
    if (ins->opcode == BERTH_I_LOOP_NEXT) {
      /* reg += 1; taken while reg < count: the body sees [0, count-1]; on exit reg == count
       * when it was at most count-1 before, else it is unbounded. */
      int64_t hi = c->rcur[ins->reg];
      c->rtaken[ins->reg] = hi < 0 ? REG_UNKNOWN : ins->count - 1;
      c->rfall[ins->reg] = (hi < 0 || hi > ins->count - 1) ? REG_UNKNOWN : ins->count;
    }
    int32_t succ[2];
    int32_t ns = successors(c, last, succ);
    for (int32_t k = 0; k < ns; k++) {
      bool fall = ins->opcode == BERTH_I_LOOP_NEXT && k == 1;
      push(c, c->block_of[succ[k]], c->tmp, c->tmp_n, fall ? c->rfall : c->rtaken, &tail, &count);
    }
  }
}

/* ---- reporting a failed read ---------------------------------------------------------- */

static bool instr_reached(const vctx_t *c, int32_t i) { return c->reached[c->block_of[i]]; }

static void build_preds(vctx_t *c) {
  memset(c->pred_start, 0, ((size_t)c->n + 1) * sizeof *c->pred_start);
  int32_t succ[2];
  for (int32_t i = 0; i < c->n; i++) {
    if (!instr_reached(c, i)) continue;
    int32_t ns = successors(c, i, succ);
    for (int32_t k = 0; k < ns; k++) c->pred_start[succ[k] + 1]++;
  }
  for (int32_t i = 0; i < c->n; i++) c->pred_start[i + 1] += c->pred_start[i];
  for (int32_t i = 0; i < c->n; i++) c->iqueue[i] = c->pred_start[i]; /* fill cursors */
  for (int32_t i = 0; i < c->n; i++) {
    if (!instr_reached(c, i)) continue;
    int32_t ns = successors(c, i, succ);
    for (int32_t k = 0; k < ns; k++) c->preds[c->iqueue[succ[k]]++] = i;
  }
}

/* Whether u is one of join instruction q's parts. */
static bool join_part_of(const vctx_t *c, int32_t q, int32_t u) {
  const berth_instr_t *ins = &c->m->instrs[q];
  for (int32_t k = 0; k < ins->n_in; k++)
    if (ops_of(c, ins)[k] == u) return true;
  return false;
}

/* The nearest write (backwards from instruction i) over the bytes of identity u that is not
 * a write of u, or -1; *uninit is set when some path from entry reaches i with u unwritten. */
static int32_t find_culprit(vctx_t *c, int32_t i, int32_t u, int32_t *culprit_value, bool *uninit) {
  build_preds(c);
  memset(c->ivisit, 0, (size_t)c->n);
  *uninit = false;
  int32_t head = 0, tail = 0;
  int32_t x = i;
  for (;;) {
    /* expand x: entry edge, then its predecessors */
    if (x == 0 && !(c->flags[u] & F_ENTRY)) *uninit = true;
    for (int32_t k = c->pred_start[x]; k < c->pred_start[x + 1]; k++) {
      int32_t q = c->preds[k];
      if (c->ivisit[q]) continue;
      c->ivisit[q] = 1;
      c->iqueue[tail++] = q;
    }
    /* next node whose writes do not settle the path */
    for (;;) {
      if (head == tail) return -1;
      int32_t q = c->iqueue[head++];
      const int32_t *w;
      int32_t nwr = writes_of(c, &c->m->instrs[q], &w);
      /* a view of u, or the join of u's parts, defines u */
      bool stop = defined_in_place(c, q) == u;
      if (!stop && c->m->instrs[q].opcode == BERTH_I_JOIN && !join_part_of(c, q, u)) {
        w = ops_of(c, &c->m->instrs[q]) + c->m->instrs[q].n_in; /* a join takes its output's bytes over */
        nwr = 1;
      }
      for (int32_t k = 0; k < nwr; k++) {
        if (c->size[w[k]] == 0) continue;
        int32_t uw = ident(c, w[k]);
        if (uw == u) {
          /* a whole write of u settles the path; a slice write leaves the rest of u as it was */
          if (w[k] == u) stop = true;
        } else if (ext_overlap(&c->ext[uw], &c->ext[u])) {
          *culprit_value = w[k];
          return q;
        }
      }
      if (!stop) {
        x = q;
        break;
      }
    }
  }
}

static berth_status_t report_read(vctx_t *c, int32_t i, int32_t v, const char *what) {
  name_buf_t nb, cb;
  bytes_buf_t b1, b2;
  int32_t u = ident(c, v), w = -1;
  bool uninit = false;
  int32_t q = find_culprit(c, i, u, &w, &uninit);
  if (q >= 0)
    return VIOLATION("read of %s (%s) at instruction %d (%s) may see %s (%s) written at instruction %d",
                     vname(c, v, &nb), fmt_bytes(c, v, &b1), (int)i, what, vname(c, w, &cb),
                     fmt_bytes(c, w, &b2), (int)q);
  if (uninit)
    return VIOLATION("read of %s (%s) at instruction %d (%s) may see uninitialized bytes: %s is not "
                     "written on some path from the method entry", vname(c, v, &nb), fmt_bytes(c, v, &b1),
                     (int)i, what, vname(c, u, &cb));
  return VIOLATION("read of %s (%s) at instruction %d (%s): the value may not be intact here",
                   vname(c, v, &nb), fmt_bytes(c, v, &b1), (int)i, what);
}

/* ---- final checks on the fixpoint ----------------------------------------------------- */

/* Loop registers where slices and LOOP_NEXT use them (rs: the registers before i). */
static berth_status_t check_windows_at(vctx_t *c, int32_t i, const int64_t *rs) {
  const berth_exec_method_t *m = c->m;
  name_buf_t nb, ib, pb;
  const berth_instr_t *ins = &m->instrs[i];
  if (ins->opcode == BERTH_I_LOOP_NEXT && rs[ins->reg] < 0)
    return CORRUPT("instruction %d (loop_next): register %d may be unset or unbounded here (no "
                   "loop_init on some path)", (int)i, (int)ins->reg);
  int32_t nops = n_operands_of(ins);
  const int32_t *ops = ops_of(c, ins);
  for (int32_t k = 0; k < nops; k++) {
    int32_t v = ops[k];
    const berth_exec_value_t *x = &m->values[v];
    if (x->window_parent < 0 || c->size[v] == 0) continue;
    int64_t hi = rs[x->window_reg];
    if (hi < 0)
      return CORRUPT("instruction %d (%s): slice %s uses register %d, which may be unset or "
                     "unbounded here", (int)i, iname(c, i, &ib), vname(c, v, &nb), (int)x->window_reg);
    if (!slice_fits(c, v, hi))
      return CORRUPT("instruction %d (%s): slice %s at register value up to %lld (offset %llu, "
                     "stride %lld, %llu bytes) lies outside its parent %s (%llu bytes)", (int)i,
                     iname(c, i, &ib), vname(c, v, &nb), (long long)hi, (unsigned long long)x->offset,
                     (long long)x->window_stride, (unsigned long long)c->size[v],
                     vname(c, x->window_parent, &pb), (unsigned long long)c->size[x->window_parent]);
  }
  return BERTH_OK;
}

static bool intact(const vctx_t *c, const uint64_t *bits, int32_t v) {
  if (c->size[v] == 0) return true;
  return bit_get(bits, ident(c, v));
}

/* Reads at i need their values intact (bits: the state before i). */
static berth_status_t check_reads_at(vctx_t *c, int32_t i, const uint64_t *bits) {
  const berth_exec_method_t *m = c->m;
  name_buf_t ib;
  const berth_instr_t *ins = &m->instrs[i];
  const int32_t *r;
  int32_t nrd = reads_of(c, ins, &r);
  for (int32_t k = 0; k < nrd; k++)
    if (!intact(c, bits, r[k])) return report_read(c, i, r[k], iname(c, i, &ib));
  if (ins->opcode != BERTH_I_RETURN) return BERTH_OK;
  for (int32_t j = 0; j < m->n_outputs; j++)
    if (!intact(c, bits, m->outputs[j])) return report_read(c, i, m->outputs[j], "return");
  for (int32_t k = 0; k < m->n_bounds; k++)
    if (!intact(c, bits, m->bounds[k].extent)) return report_read(c, i, m->bounds[k].extent, "return (an output's extent)");
  for (int32_t v = 0; v < c->nv; v++)
    if ((c->flags[v] & F_STATE) && !intact(c, bits, v))
      return report_read(c, i, v, "return: state must survive to the next call");
  return BERTH_OK;
}

/* Replays every reached block from its fixpoint entry state and checks each instruction:
 * pass 0 the loop registers (structural), pass 1 the reads (memory rule). */
static berth_status_t check_fixpoint(vctx_t *c, int pass) {
  for (int32_t b = 0; b < c->nb; b++) {
    if (!c->reached[b]) continue;
    load_block(c, b);
    for (int32_t i = c->block_start[b]; i < c->block_start[b + 1]; i++) {
      BERTH_TRY(pass == 0 ? check_windows_at(c, i, c->rcur) : check_reads_at(c, i, c->tmp));
      transfer(c, i, c->tmp, c->tmp_n, c->rcur);
    }
  }
  return BERTH_OK;
}

/* ---- entry points --------------------------------------------------------------------- */

static void *at(uint8_t *base, uint64_t off) { return base + off; }

berth_status_t berth_verify_method(const berth_exec_program_t *p, int32_t method, void *scratch,
                                   size_t scratch_size, berth_diag_t *diag) {
  if (!p) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "verify: no program");
  if (p->n_methods < 0 || (p->n_methods > 0 && !p->methods))
    return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "verify: bad method table (%d methods)",
                      (int)p->n_methods);
  if (method < 0 || method >= p->n_methods)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "verify: method %d out of range (%d methods)",
                      (int)method, (int)p->n_methods);
  vctx_t ctx;
  memset(&ctx, 0, sizeof ctx);
  vctx_t *c = &ctx;
  c->p = p;
  c->m = &p->methods[method];
  c->diag = diag;
  BERTH_TRY(check_header(c));
  offsets_t o;
  if (!compute_layout(c->m, &o) || o.total + 8 > (uint64_t)SIZE_MAX)
    return vfail(c, BERTH_ERR_RESOURCE_EXHAUSTED, "too big to verify (%d values, %d instructions)",
                 (int)c->m->n_values, (int)c->m->n_instrs);
  if (!scratch || scratch_size < o.total + 8)
    return vfail(c, BERTH_ERR_RESOURCE_EXHAUSTED, "verifier scratch of %zu bytes is too small; need %zu",
                 scratch_size, (size_t)(o.total + 8));
  uint8_t *base = (uint8_t *)scratch;
  base += (8 - ((uintptr_t)base & 7)) & 7;
  c->n = c->m->n_instrs;
  c->nv = c->m->n_values;
  c->nr = c->m->n_regs;
  c->nw = ((size_t)c->nv + 63) / 64;
  c->ext = at(base, o.ext);
  c->size = at(base, o.size);
  c->flags = at(base, o.flags);
  c->order = at(base, o.order);
  c->pmax = at(base, o.pmax);
  c->slot = at(base, o.slot);
  c->block_of = at(base, o.block_of);
  c->block_start = at(base, o.block_start);
  c->in = at(base, o.in);
  c->in_n = at(base, o.in_n);
  c->regs = at(base, o.regs);
  c->reached = at(base, o.reached);
  c->inq = at(base, o.inq);
  c->queue = at(base, o.queue);
  c->tmp = at(base, o.tmp);
  c->tmp_n = at(base, o.tmp_n);
  c->rcur = at(base, o.rcur);
  c->rtaken = at(base, o.rtaken);
  c->rfall = at(base, o.rfall);
  c->pred_start = at(base, o.pred_start);
  c->preds = at(base, o.preds);
  c->ivisit = at(base, o.ivisit);
  c->iqueue = at(base, o.iqueue);
  c->tin = at(base, o.tin);
  c->tout = at(base, o.tout);

  BERTH_TRY(check_values(c));
  BERTH_TRY(check_io(c));
  BERTH_TRY(check_instrs(c));
  BERTH_TRY(check_view_defs(c));
  BERTH_TRY(check_scratch(c));
  BERTH_TRY(check_readonly(c));
  BERTH_TRY(check_once_stream(c));
  for (int32_t v = 0; v < c->nv; v++)
    if (c->m->values[v].window_parent < 0 && c->m->values[v].storage == BERTH_STORAGE_STATE)
      c->flags[v] |= F_STATE;
  /* A STATE value that a kernel writes, or whose bytes a RENAME hands on, is not a buffer but
   * a buffer's new value computed in the buffer's own bytes (copy_ done in place): it is not
   * intact at entry, and the buffer it is renamed into must still be intact at return. */
  for (int32_t i = 0; i < c->m->n_instrs; i++) {
    const berth_instr_t *ins = &c->m->instrs[i];
    const int32_t *w;
    int32_t nw = ins->opcode == BERTH_I_KERNEL ? writes_of(c, ins, &w) : 0;
    for (int32_t k = 0; k < nw; k++) c->flags[w[k]] &= ~F_STATE;
    if (ins->opcode == BERTH_I_RENAME) c->flags[ops_of(c, ins)[0]] &= ~F_STATE;
    if (defined_in_place(c, i) >= 0) c->flags[defined_in_place(c, i)] &= ~F_STATE; /* defined mid-call */
  }
  sort_values(c);
  BERTH_TRY(check_entry_disjoint(c));
  c->n_slots = 0;
  for (int32_t v = 0; v < c->nv; v++) c->slot[v] = -1;
  for (int32_t v = 0; v < c->nv; v++) {
    int32_t par = c->m->values[v].window_parent;
    if (par >= 0 && c->slot[par] < 0) c->slot[par] = c->n_slots++;
  }
  c->nwn = ((size_t)c->n_slots + 63) / 64;
  build_blocks(c);
  run_dataflow(c);
  BERTH_TRY(check_fixpoint(c, 0));
  BERTH_TRY(check_fixpoint(c, 1));
  BERTH_TRY(check_disjoint_operands(c));
  return BERTH_OK;
}

berth_status_t berth_verify_program(const berth_exec_program_t *p, void *scratch, size_t scratch_size,
                                    berth_diag_t *diag) {
  if (!p) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "verify: no program");
  if (p->n_methods < 0 || (p->n_methods > 0 && !p->methods))
    return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "verify: bad method table (%d methods)",
                      (int)p->n_methods);
  for (int32_t i = 0; i < p->n_methods; i++) BERTH_TRY(berth_verify_method(p, i, scratch, scratch_size, diag));
  return BERTH_OK;
}
