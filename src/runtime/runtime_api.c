/* The public embeddable runtime API (include/berth/runtime.h) over the program file
 * loader, the verifier and the interpreter. No malloc, no stdio: every handle is laid out
 * in memory the caller provides. */
#include "berth/runtime.h"

#include "base/checked.h"
#include "base/try.h"
#include "format/read_program.h"
#include "kernels/op_table.h"
#include "program/exec_names.h"
#include "program/verify.h"
#include "runtime/interp.h"
#include "runtime/runtime_internal.h"
#include "runtime/sanitizer.h"

#include <string.h>

#define PROGRAM_MAGIC 0x50485442u /* "BTHP" */
#define METHOD_MAGIC 0x4d485442u  /* "BTHM" */
#define CARVE_ALIGN 64

struct berth_program {
  uint32_t magic;
  const berth_format_program_t *fp;
};

struct berth_method {
  uint32_t magic;
  const berth_program_t *prog;
  const berth_exec_program_t *exec;
  const berth_exec_method_t *m;
  int32_t index;
  uint8_t outputs_state; /* OUTPUTS_READY, or why berth_method_output has nothing to give */
  int32_t outputs_lost_by; /* the input or output bound since the last execute */
  uint64_t max_steps;
  uint8_t **pools;
  const void **inputs; /* caller input buffers (inputs not planned) */
  void **outputs;      /* caller output buffers (outputs not planned) */
  int64_t *regs;
  uint8_t *in_bound, *out_bound;
  uint8_t *state;
  uint8_t *hoist;           /* the hoist region: filled by the once-stream at init */
  berth_tensor_ref_t *refs; /* one kernel call's operands: kept here, not on the stack */
  berth_sanitizer_t *san;   /* NULL unless berth_method_set_sanitizer */
  berth_observer_fn observe; /* NULL unless berth_method_set_observer */
  void *observe_ctx;
  void *san_mem;
  size_t san_size;
};

/* The outputs of the last execute are readable (OUTPUTS_READY), or why not. */
enum {
  OUTPUTS_NOT_RUN,      /* no execute since init */
  OUTPUTS_READY,
  OUTPUTS_FAILED,       /* the last execute failed */
  OUTPUTS_RESET,        /* berth_method_reset since */
  OUTPUTS_INPUT_BOUND,  /* a planned input was copied into the arena since */
  OUTPUTS_OUTPUT_BOUND, /* an output buffer was bound since */
};

/* Zero-byte tensors and empty regions still need a valid, aligned address. */
static uint64_t empty_slot[8];

static uint8_t *align_up_ptr(void *p, size_t align, size_t *size) {
  uintptr_t a = (uintptr_t)p, b = (a + (align - 1)) & ~(uintptr_t)(align - 1);
  if (*size < (size_t)(b - a)) return NULL;
  *size -= (size_t)(b - a);
  return (uint8_t *)b;
}

static bool valid_program(const berth_program_t *p) { return p && p->magic == PROGRAM_MAGIC && p->fp; }

static const berth_exec_method_t *method_of(const berth_program_t *p, int32_t method) {
  if (!valid_program(p) || method < 0 || method >= p->fp->exec.n_methods) return NULL;
  return &p->fp->exec.methods[method];
}

/* ---- loading ------------------------------------------------------------------------------ */

static size_t header_bytes(void) { return (sizeof(struct berth_program) + 7) / 8 * 8 + 8; }

bool berth_program_is_berth(const void *bytes, size_t len) { return berth_format_is_program(bytes, len); }

berth_status_t berth_program_query(const void *bytes, size_t len, berth_program_sizes_t *sizes, berth_diag_t *diag) {
  if (!sizes) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_program_query: sizes is NULL");
  berth_format_sizes_t fs;
  berth_status_t st = berth_format_read_size(bytes, len, &fs, diag);
  if (st != BERTH_OK) return st;
  if (fs.program_bytes > SIZE_MAX - header_bytes())
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "the program does not fit in memory");
  sizes->program_bytes = fs.program_bytes + header_bytes();
  sizes->scratch_bytes = fs.scratch_bytes;
  return BERTH_OK;
}

size_t berth_program_wrap_size(void) { return header_bytes(); }

berth_status_t berth_program_wrap(const berth_format_program_t *fp, void *mem, size_t mem_size, berth_program_t **out,
                                  berth_diag_t *diag) {
  if (!fp || !mem || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_program_wrap: NULL argument");
  size_t size = mem_size;
  uint8_t *base = align_up_ptr(mem, 8, &size);
  if (!base || size < sizeof(struct berth_program))
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "berth_program_wrap: %zu bytes of memory are too few", mem_size);
  berth_program_t *p = (berth_program_t *)(void *)base;
  p->magic = PROGRAM_MAGIC;
  p->fp = fp;
  *out = p;
  return BERTH_OK;
}

berth_status_t berth_program_load(const void *bytes, size_t len, void *mem, size_t mem_size, void *scratch,
                                  size_t scratch_size, berth_program_t **out, berth_diag_t *diag) {
  if (!bytes || !mem || !scratch || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_program_load: NULL argument");
  berth_program_sizes_t sz = {0, 0};
  berth_status_t st = berth_program_query(bytes, len, &sz, diag);
  if (st != BERTH_OK) return st;
  if (mem_size < sz.program_bytes)
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "the program needs %zu bytes of memory; %zu were given",
                      sz.program_bytes, mem_size);
  if (scratch_size < sz.scratch_bytes)
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "loading needs %zu bytes of scratch; %zu were given",
                      sz.scratch_bytes, scratch_size);
  size_t size = mem_size;
  uint8_t *base = align_up_ptr(mem, 8, &size);
  size_t hb = header_bytes() - 8;
  if (!base || size < hb)
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "berth_program_load: %zu bytes of memory are too few", mem_size);
  const berth_format_program_t *fp;
  /* berth_program_query above checked the checksum of these bytes */
  st = berth_format_read(bytes, len, base + hb, size - hb, scratch, scratch_size, BERTH_FORMAT_READ_CHECKSUM_CHECKED, &fp,
                         diag);
  if (st != BERTH_OK) return st;
  berth_program_t *p = (berth_program_t *)(void *)base;
  p->magic = PROGRAM_MAGIC;
  p->fp = fp;
  *out = p;
  return BERTH_OK;
}

/* ---- queries ------------------------------------------------------------------------------- */

const char *berth_runtime_version(void) { return BERTH_VERSION_STRING; }

berth_version_triple_t berth_program_writer_version(const berth_program_t *p) {
  berth_version_triple_t v = {0, 0, 0};
  if (!valid_program(p)) return v;
  v.major = p->fp->writer_version[0];
  v.minor = p->fp->writer_version[1];
  v.patch = p->fp->writer_version[2];
  return v;
}

int32_t berth_program_method_count(const berth_program_t *p) { return valid_program(p) ? p->fp->exec.n_methods : -1; }

const char *berth_program_method_name(const berth_program_t *p, int32_t method) {
  const berth_exec_method_t *m = method_of(p, method);
  return m ? m->name : NULL;
}

int32_t berth_program_method_find(const berth_program_t *p, const char *name) {
  if (!valid_program(p) || !name) return -1;
  for (int32_t i = 0; i < p->fp->exec.n_methods; i++)
    if (strcmp(p->fp->exec.methods[i].name, name) == 0) return i;
  return -1;
}

bool berth_program_inputs_planned(const berth_program_t *p) { return valid_program(p) && p->fp->exec.alloc_inputs; }
bool berth_program_outputs_planned(const berth_program_t *p) { return valid_program(p) && p->fp->exec.alloc_outputs; }

int32_t berth_program_input_count(const berth_program_t *p, int32_t method) {
  const berth_exec_method_t *m = method_of(p, method);
  return m ? m->n_inputs : -1;
}

int32_t berth_program_output_count(const berth_program_t *p, int32_t method) {
  const berth_exec_method_t *m = method_of(p, method);
  return m ? m->n_outputs : -1;
}

static berth_status_t io_info(const berth_program_t *p, int32_t method, int32_t i, bool input, berth_tensor_info_t *info) {
  const berth_exec_method_t *m = method_of(p, method);
  int32_t n = m ? (input ? m->n_inputs : m->n_outputs) : 0;
  if (!m || !info || i < 0 || i >= n) return BERTH_ERR_INVALID_ARGUMENT;
  int32_t v = input ? m->inputs[i] : m->outputs[i];
  const berth_format_method_t *fm = &p->fp->methods[method];
  info->name = input ? fm->input_names[i] : fm->output_names[i];
  info->type = m->values[v].type;
  info->bytes = berth_type_bytes(&m->values[v].type);
  info->bounded_axis = -1;
  for (int32_t k = 0; k < m->n_bounds && !input; k++)
    if (m->bounds[k].output == i && info->bounded_axis < 0) info->bounded_axis = m->bounds[k].axis; /* the first */
  return BERTH_OK;
}

berth_status_t berth_program_input_info(const berth_program_t *p, int32_t method, int32_t i, berth_tensor_info_t *info) {
  return io_info(p, method, i, true, info);
}

berth_status_t berth_program_output_info(const berth_program_t *p, int32_t method, int32_t i, berth_tensor_info_t *info) {
  return io_info(p, method, i, false, info);
}

int32_t berth_program_pool_count(const berth_program_t *p, int32_t method) {
  const berth_exec_method_t *m = method_of(p, method);
  return m ? m->n_pools : -1;
}

uint64_t berth_program_pool_size(const berth_program_t *p, int32_t method, int32_t pool) {
  const berth_exec_method_t *m = method_of(p, method);
  return m && pool >= 0 && pool < m->n_pools ? m->pool_sizes[pool] : 0;
}

size_t berth_program_arena_alignment(const berth_program_t *p, int32_t method) {
  const berth_exec_method_t *m = method_of(p, method);
  if (!m) return 0;
  size_t a = m->alignment < CARVE_ALIGN ? m->alignment : CARVE_ALIGN;
  return a < 8 ? 8 : a; /* at least the largest element size */
}

uint64_t berth_program_state_size(const berth_program_t *p, int32_t method) {
  const berth_exec_method_t *m = method_of(p, method);
  return m ? m->state_size : 0;
}

uint64_t berth_program_hoist_size(const berth_program_t *p, int32_t method) {
  const berth_exec_method_t *m = method_of(p, method);
  return m ? m->hoist_size : 0;
}

/* ---- method handles ----------------------------------------------------------------------- */

typedef struct mlay {
  uint64_t handle, pools, inputs, outputs, regs, refs, in_bound, out_bound, state, hoist, arena[BERTH_FORMAT_MAX_POOLS], total;
  bool bad;
} mlay_t;

static uint64_t mtake(mlay_t *l, uint64_t count, uint64_t elem, uint64_t align) {
  uint64_t bytes, start, end;
  if (!berth_mul_u64(count, elem, &bytes) || !berth_align_u64(l->total, align, &start) || !berth_add_u64(start, bytes, &end)) {
    l->bad = true;
    return 0;
  }
  l->total = end;
  return start;
}

/* Offsets within a CARVE_ALIGN-aligned block; total includes the slack to align it. */
static bool method_layout(const berth_exec_method_t *m, bool with_arenas, mlay_t *l) {
  memset(l, 0, sizeof *l);
  l->handle = mtake(l, 1, sizeof(struct berth_method), 8);
  l->pools = mtake(l, (uint64_t)m->n_pools, sizeof(uint8_t *), 8);
  l->inputs = mtake(l, (uint64_t)m->n_inputs, sizeof(void *), 8);
  l->outputs = mtake(l, (uint64_t)m->n_outputs, sizeof(void *), 8);
  l->regs = mtake(l, (uint64_t)m->n_regs, sizeof(int64_t), 8);
  l->refs = mtake(l, (uint64_t)berth_exec_max_operands(m), sizeof(berth_tensor_ref_t), 8);
  l->in_bound = mtake(l, (uint64_t)m->n_inputs, 1, 1);
  l->out_bound = mtake(l, (uint64_t)m->n_outputs, 1, 1);
  l->state = mtake(l, m->state_size, 1, CARVE_ALIGN);
  l->hoist = mtake(l, m->hoist_size, 1, CARVE_ALIGN);
  if (with_arenas)
    for (int32_t k = 0; k < m->n_pools && k < BERTH_FORMAT_MAX_POOLS; k++) l->arena[k] = mtake(l, m->pool_sizes[k], 1, CARVE_ALIGN);
  if (!berth_add_u64(l->total, CARVE_ALIGN, &l->total)) l->bad = true;
  return !l->bad && l->total <= (uint64_t)SIZE_MAX;
}

size_t berth_method_memory_size(const berth_program_t *p, int32_t method) {
  const berth_exec_method_t *m = method_of(p, method);
  mlay_t l;
  return m && method_layout(m, true, &l) ? (size_t)l.total : 0;
}

size_t berth_method_handle_size(const berth_program_t *p, int32_t method) {
  const berth_exec_method_t *m = method_of(p, method);
  mlay_t l;
  return m && method_layout(m, false, &l) ? (size_t)l.total : 0;
}

static berth_exec_memory_t exec_memory(const berth_method_t *h);

berth_status_t berth_method_init(const berth_program_t *p, int32_t method, void *mem, size_t mem_size,
                                 const berth_arena_t *arenas, int32_t n_arenas, berth_method_t **out,
                                 berth_diag_t *diag) {
  const berth_exec_method_t *m = method_of(p, method);
  if (!m) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_init: no method %d", (int)method);
  if (!mem || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_init: NULL argument");
  if (!arenas && n_arenas != 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s: arenas is NULL but n_arenas is %d (0 expected)", m->name,
                      (int)n_arenas);
  if (arenas && n_arenas != m->n_pools)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s: %d arenas given, %d expected (one per pool)", m->name,
                      (int)n_arenas, (int)m->n_pools);
  mlay_t l;
  if (!method_layout(m, arenas == NULL, &l))
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "method %s: its memory does not fit in size_t", m->name);
  if (mem_size < l.total)
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "method %s needs %llu bytes of memory; %zu were given", m->name,
                      (unsigned long long)l.total, mem_size);
  size_t align = berth_program_arena_alignment(p, method);
  for (int32_t k = 0; arenas && k < m->n_pools; k++) {
    if (arenas[k].bytes < m->pool_sizes[k])
      return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "method %s: arena %d has %zu bytes; pool %d needs %llu", m->name,
                        (int)k, arenas[k].bytes, (int)k, (unsigned long long)m->pool_sizes[k]);
    if (m->pool_sizes[k] == 0) continue;
    if (!arenas[k].data || (uintptr_t)arenas[k].data % align)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s: arena %d is NULL or not aligned to %zu bytes", m->name,
                        (int)k, align);
  }
  size_t size = mem_size;
  uint8_t *base = align_up_ptr(mem, CARVE_ALIGN, &size);
  if (!base) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "method %s: memory too small", m->name);
  memset(base, 0, (size_t)l.state);
  berth_method_t *h = (berth_method_t *)(void *)(base + l.handle);
  h->magic = METHOD_MAGIC;
  h->prog = p;
  h->exec = &p->fp->exec;
  h->m = m;
  h->index = method;
  h->max_steps = BERTH_RUNTIME_DEFAULT_MAX_STEPS;
  h->pools = (uint8_t **)(void *)(base + l.pools);
  h->inputs = (const void **)(void *)(base + l.inputs);
  h->outputs = (void **)(void *)(base + l.outputs);
  h->regs = (int64_t *)(void *)(base + l.regs);
  h->refs = (berth_tensor_ref_t *)(void *)(base + l.refs);
  h->in_bound = base + l.in_bound;
  h->out_bound = base + l.out_bound;
  h->state = m->state_size ? base + l.state : (uint8_t *)empty_slot;
  h->hoist = m->hoist_size ? base + l.hoist : (uint8_t *)empty_slot;
  for (int32_t k = 0; k < m->n_pools; k++) {
    uint8_t *a = arenas ? (uint8_t *)arenas[k].data : base + l.arena[k];
    h->pools[k] = m->pool_sizes[k] == 0 || !a ? (uint8_t *)empty_slot : a;
  }
  berth_method_reset(h);
  h->outputs_state = OUTPUTS_NOT_RUN;
  berth_exec_memory_t xm = exec_memory(h);
  BERTH_TRY(berth_exec_run_once(h->exec, method, &xm, h->refs, diag)); /* the hoist region, once */
  *out = h;
  return BERTH_OK;
}

static bool valid_method(const berth_method_t *h) { return h && h->magic == METHOD_MAGIC; }

static berth_exec_memory_t exec_memory(const berth_method_t *h) {
  berth_exec_memory_t mem;
  mem.pools = h->pools;
  mem.state = h->state;
  mem.inputs = h->inputs;
  mem.outputs = h->outputs;
  mem.regs = h->regs;
  mem.hoist = h->hoist;
  mem.observe = h->observe;
  mem.observe_ctx = h->observe_ctx;
  return mem;
}

void berth_method_reset(berth_method_t *h) {
  if (!valid_method(h)) return;
  if (h->m->state_size) memcpy(h->state, h->m->state_init, (size_t)h->m->state_size);
  if (h->outputs_state == OUTPUTS_READY) h->outputs_state = OUTPUTS_RESET;
  /* the state holds its state values again: tag it so (the same memory fits again) */
  if (h->san && berth_sanitizer_init(h->san_mem, h->san_size, h->exec, h->index, &h->san, NULL) != BERTH_OK) h->san = NULL;
}

size_t berth_method_sanitizer_size(const berth_program_t *p, int32_t method) {
  return method_of(p, method) ? berth_sanitizer_size(&p->fp->exec, method) : 0;
}

berth_status_t berth_method_set_sanitizer(berth_method_t *h, void *mem, size_t mem_size, berth_diag_t *diag) {
  if (!valid_method(h)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_set_sanitizer: not a method handle");
  h->san = NULL;
  h->san_mem = NULL;
  h->san_size = 0;
  if (!mem) return BERTH_OK;
  berth_sanitizer_t *san;
  berth_status_t st = berth_sanitizer_init(mem, mem_size, h->exec, h->index, &san, diag);
  if (st != BERTH_OK) return st;
  h->san = san;
  h->san_mem = mem;
  h->san_size = mem_size;
  return BERTH_OK;
}

berth_status_t berth_method_state(berth_method_t *h, const char *name, void **data, size_t *bytes, berth_diag_t *diag) {
  if (!valid_method(h)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_state: not a method handle");
  if (!name || !data || !bytes) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_state: NULL argument");
  const berth_exec_method_t *m = h->m;
  for (int32_t v = 0; name && v < m->n_values; v++)
    if (m->values[v].name && strcmp(m->values[v].name, name) == 0 && berth_verify_value_is_buffer(m, v)) {
      *data = h->state + m->values[v].offset;
      *bytes = (size_t)berth_type_bytes(&m->values[v].type);
      return BERTH_OK;
    }
  return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_state: method '%s' has no buffer named '%s'",
                    m->name ? m->name : "", name ? name : "(null)");
}

void berth_method_set_observer(berth_method_t *h, berth_observer_fn fn, void *ctx) {
  if (!valid_method(h)) return;
  h->observe = fn;
  h->observe_ctx = fn ? ctx : NULL;
}

int32_t berth_method_instr_count(const berth_method_t *h) { return valid_method(h) ? h->m->n_instrs : -1; }

berth_status_t berth_method_instr_info(const berth_method_t *h, int32_t instr, berth_instr_info_t *info,
                                       berth_diag_t *diag) {
  if (!valid_method(h)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_instr_info: not a method handle");
  const berth_exec_method_t *m = h->m;
  if (!info) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_instr_info: info is NULL");
  if (instr < 0 || instr >= m->n_instrs)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s has no instruction %d (%d instructions)", m->name,
                      (int)instr, (int)m->n_instrs);
  const berth_instr_t *in = &m->instrs[instr];
  const int32_t *ops = &m->operands[in->operands];
  berth_instr_info_t r;
  memset(&r, 0, sizeof r);
  int32_t out = -1;
  if (in->opcode == BERTH_I_KERNEL) {
    const berth_op_def_t *def = berth_op_get(in->op);
    r.op = def ? def->name : "?";
    if (in->n_out > 0) out = ops[in->n_in];
  } else if (in->opcode == BERTH_I_COPY) {
    r.op = "copy";
    out = ops[1];
  }
  if (out >= 0) {
    berth_exec_value_name(m, out, r.out_name, sizeof r.out_name);
    r.out_type = m->values[out].type;
  }
  *info = r;
  return BERTH_OK;
}

void berth_method_set_max_steps(berth_method_t *h, uint64_t max_steps) {
  if (valid_method(h)) h->max_steps = max_steps ? max_steps : BERTH_RUNTIME_DEFAULT_MAX_STEPS;
}

berth_status_t berth_method_set_input(berth_method_t *h, int32_t i, const void *data, size_t bytes, berth_diag_t *diag) {
  if (!valid_method(h)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_set_input: not a method handle");
  const berth_exec_method_t *m = h->m;
  if (i < 0 || i >= m->n_inputs)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s has no input %d (%d inputs)", m->name, (int)i, (int)m->n_inputs);
  const berth_exec_value_t *x = &m->values[m->inputs[i]];
  size_t want = berth_type_bytes(&x->type), esz = berth_dtype_size(x->type.dtype);
  if (bytes != want)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s, input %d (%%%s): %zu bytes given, %zu expected", m->name,
                      (int)i, x->name, bytes, want);
  if (!data && want) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s, input %d: NULL data", m->name, (int)i);
  if (h->exec->alloc_inputs) {
    berth_exec_memory_t mem = exec_memory(h);
    if (want) memcpy(berth_exec_addr(h->exec, m, &mem, m->inputs[i]), data, want);
    if (h->outputs_state == OUTPUTS_READY) { /* the copy may overwrite a previous call's planned outputs */
      h->outputs_state = OUTPUTS_INPUT_BOUND;
      h->outputs_lost_by = i;
    }
  } else {
    if ((uintptr_t)data % esz)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s, input %d: data is not aligned to its element size %zu",
                        m->name, (int)i, esz);
    h->inputs[i] = data ? data : (const void *)empty_slot;
  }
  h->in_bound[i] = 1;
  return BERTH_OK;
}

berth_status_t berth_method_set_output(berth_method_t *h, int32_t j, void *data, size_t bytes, berth_diag_t *diag) {
  if (!valid_method(h)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_set_output: not a method handle");
  const berth_exec_method_t *m = h->m;
  if (j < 0 || j >= m->n_outputs)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s has no output %d (%d outputs)", m->name, (int)j,
                      (int)m->n_outputs);
  if (h->exec->alloc_outputs)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "method %s: outputs are planned in the arena; read them with berth_method_output", m->name);
  const berth_exec_value_t *x = &m->values[m->outputs[j]];
  size_t want = berth_type_bytes(&x->type), esz = berth_dtype_size(x->type.dtype);
  if (bytes < want || (!data && want))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s, output %d (%%%s): a buffer of %zu bytes is too small (%zu needed)",
                      m->name, (int)j, x->name, bytes, want);
  if ((uintptr_t)data % esz)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s, output %d: buffer not aligned to its element size %zu",
                      m->name, (int)j, esz);
  h->outputs[j] = data ? data : (void *)empty_slot;
  h->out_bound[j] = 1;
  if (h->outputs_state == OUTPUTS_READY) {
    h->outputs_state = OUTPUTS_OUTPUT_BOUND;
    h->outputs_lost_by = j;
  }
  return BERTH_OK;
}

berth_status_t berth_method_execute(berth_method_t *h, berth_diag_t *diag) {
  if (!valid_method(h)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_execute: not a method handle");
  const berth_exec_method_t *m = h->m;
  h->outputs_state = OUTPUTS_FAILED; /* every failure below leaves no outputs, not the last call's */
  for (int32_t i = 0; i < m->n_inputs; i++)
    if (!h->in_bound[i])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s: input %d is not bound%s", m->name, (int)i,
                        h->exec->alloc_inputs ? " (planned inputs are bound again before every execute)" : "");
  if (!h->exec->alloc_outputs)
    for (int32_t j = 0; j < m->n_outputs; j++)
      if (!h->out_bound[j])
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s: output %d has no buffer (berth_method_set_output)",
                          m->name, (int)j);
  if (m->n_regs) memset(h->regs, 0, (size_t)m->n_regs * sizeof *h->regs);
  berth_exec_memory_t mem = exec_memory(h);
  berth_status_t st = berth_exec_run_refs(h->exec, h->index, &mem, h->refs, h->san, h->max_steps, diag);
  if (h->exec->alloc_inputs) memset(h->in_bound, 0, (size_t)m->n_inputs);
  /* a run-time extent outside [0, capacity] (a program without the importer's check) fails
   * the call rather than describing bytes the output does not have */
  for (int32_t k = 0; k < m->n_bounds && st == BERTH_OK; k++) {
    const berth_exec_bound_t *b = &m->bounds[k];
    int64_t e, cap = m->values[m->outputs[b->output]].type.dims[b->axis];
    memcpy(&e, berth_exec_addr(h->exec, m, &mem, b->extent), sizeof e);
    if (e < 0 || e > cap)
      st = berth_fail(diag, BERTH_ERR_CHECK_FAILED, "method %s: output %d has %lld entries along axis %d, outside "
                      "its capacity [0, %lld]", m->name, (int)b->output, (long long)e, (int)b->axis, (long long)cap);
  }
  if (st == BERTH_OK) h->outputs_state = OUTPUTS_READY;
  return st;
}

/* Why method h has no outputs to read now (h->outputs_state != OUTPUTS_READY). */
static berth_status_t no_outputs(const berth_method_t *h, berth_diag_t *diag) {
  const char *mn = h->m->name;
  switch (h->outputs_state) {
    case OUTPUTS_NOT_RUN:
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s has no outputs yet: it has not been executed", mn);
    case OUTPUTS_FAILED:
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "method %s has no outputs: its last execute failed (berth_method_execute's message says why)", mn);
    case OUTPUTS_RESET:
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "method %s has no outputs: berth_method_reset was called after its last execute", mn);
    case OUTPUTS_INPUT_BOUND:
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "method %s has no outputs: input %d was bound after the last execute (planned inputs share the "
                        "arena with the outputs; read them before binding the next call's inputs)",
                        mn, (int)h->outputs_lost_by);
    default:
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "method %s has no outputs: the buffer of output %d was bound after the last execute", mn,
                        (int)h->outputs_lost_by);
  }
}

/* The shape of output j after the last execute (the static one unless it is bounded). */
static berth_type_t output_type(const berth_method_t *h, int32_t j) {
  const berth_exec_method_t *m = h->m;
  berth_type_t t = m->values[m->outputs[j]].type;
  for (int32_t k = 0; k < m->n_bounds; k++) {
    if (m->bounds[k].output != j) continue;
    berth_exec_memory_t mem = exec_memory(h);
    int64_t e, cap = t.dims[m->bounds[k].axis];
    memcpy(&e, berth_exec_addr(h->exec, m, &mem, m->bounds[k].extent), sizeof e);
    t.dims[m->bounds[k].axis] = e < 0 ? 0 : e > cap ? cap : e; /* execute checked it; the arena is the caller's */
  }
  return t;
}

berth_status_t berth_method_output_shape(const berth_method_t *h, int32_t j, berth_type_t *type,
                                         berth_diag_t *diag) {
  if (!valid_method(h))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_output_shape: not a method handle");
  if (!type) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_output_shape: type is NULL");
  if (j < 0 || j >= h->m->n_outputs)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s has no output %d (%d outputs)", h->m->name, (int)j,
                      (int)h->m->n_outputs);
  if (h->outputs_state != OUTPUTS_READY) return no_outputs(h, diag);
  *type = output_type(h, j);
  return BERTH_OK;
}

berth_status_t berth_method_output(const berth_method_t *h, int32_t j, const void **data, size_t *bytes,
                                   berth_diag_t *diag) {
  if (!valid_method(h)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_output: not a method handle");
  const berth_exec_method_t *m = h->m;
  if (!data) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_method_output: data is NULL");
  if (j < 0 || j >= m->n_outputs)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "method %s has no output %d (%d outputs)", m->name, (int)j,
                      (int)m->n_outputs);
  if (h->outputs_state != OUTPUTS_READY) return no_outputs(h, diag);
  berth_exec_memory_t mem = exec_memory(h);
  size_t n = berth_type_bytes(&m->values[m->outputs[j]].type);
  *data = n ? berth_exec_addr(h->exec, m, &mem, m->outputs[j]) : (const void *)empty_slot;
  if (bytes) {
    berth_type_t t = output_type(h, j); /* a bounded output's real bytes: a prefix */
    *bytes = berth_type_bytes(&t);
  }
  return BERTH_OK;
}
