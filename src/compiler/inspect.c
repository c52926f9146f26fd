/* Looking inside program files (berth/inspect.h): the disassembler (a program file as text,
 * the way `berth dis` prints it: header, per method its signature, pools, values with their
 * storage, and the instruction stream) and the kernels a program calls. */
#include "berth/inspect.h"

#include "compiler_internal.h"
#include "format/read_program.h"
#include "program/exec_names.h"
#include "writer/ir_section.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing NUL-terminated string; after an allocation failure it stops growing (oom). */
typedef struct sb {
  char *p;
  size_t len, cap;
  bool oom;
} sb_t;

static void out(sb_t *s, const char *fmt, ...) BERTH_PRINTF_LIKE(2, 3);
static void out(sb_t *s, const char *fmt, ...) {
  if (s->oom) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? s->cap - s->len : 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    s->oom = true;
    return;
  }
  if (s->p && (size_t)n < s->cap - s->len) {
    s->len += (size_t)n;
    return;
  }
  size_t need = s->len + (size_t)n + 1, cap = s->cap ? s->cap : 4096;
  while (cap < need) cap *= 2;
  char *p = realloc(s->p, cap);
  if (!p) {
    s->oom = true;
    return;
  }
  s->p = p;
  s->cap = cap;
  va_start(ap, fmt);
  vsnprintf(s->p + s->len, s->cap - s->len, fmt, ap);
  va_end(ap);
  s->len += (size_t)n;
}

typedef unsigned long long ull;

static void print_value_ref(sb_t *s, const berth_exec_method_t *m, int32_t v) {
  char b[128];
  out(s, "%s", berth_exec_value_name(m, v, b, sizeof b));
}

static void print_storage(sb_t *s, const berth_exec_method_t *m, int32_t v) {
  const berth_exec_value_t *x = &m->values[v];
  ull bytes = (ull)berth_type_bytes(&x->type);
  if (x->window_parent >= 0) {
    out(s, "slice of ");
    print_value_ref(s, m, x->window_parent);
    out(s, " (v%d) at +%llu + r%d * %lld", (int)x->window_parent, (ull)x->offset, (int)x->window_reg,
        (long long)x->window_stride);
    return;
  }
  switch (x->storage) {
    case BERTH_STORAGE_ARENA: out(s, "arena pool %u [%llu,%llu)", (unsigned)x->pool, (ull)x->offset, (ull)x->offset + bytes); break;
    case BERTH_STORAGE_CONST: out(s, "const [%llu,%llu)", (ull)x->offset, (ull)x->offset + bytes); break;
    case BERTH_STORAGE_STATE: out(s, "state [%llu,%llu)", (ull)x->offset, (ull)x->offset + bytes); break;
    case BERTH_STORAGE_HOIST: out(s, "hoist [%llu,%llu)", (ull)x->offset, (ull)x->offset + bytes); break;
    case BERTH_STORAGE_INPUT: out(s, "caller input %u [0,%llu)", (unsigned)x->index, bytes); break;
    case BERTH_STORAGE_OUTPUT: out(s, "caller output %u [0,%llu)", (unsigned)x->index, bytes); break;
    default: out(s, "?"); break;
  }
}

/* A string attribute quoted as the text format writes it (docs/ir-text.md). */
static void print_string(sb_t *s, const char *text) {
  out(s, "%c", '"');
  for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; c++) {
    if (*c == '"' || *c == '\\') out(s, "\\%c", *c);
    else if (*c == '\n') out(s, "\\n");
    else if (*c == '\t') out(s, "\\t");
    else if (*c < 0x20 || *c >= 0x7f) out(s, "\\x%02x", *c);
    else out(s, "%c", *c);
  }
  out(s, "%c", '"');
}

static void print_attrs(sb_t *s, const berth_exec_method_t *m, const berth_instr_t *in) {
  const berth_op_def_t *def = berth_op_get(in->op);
  if (!def || def->n_attrs == 0) return;
  out(s, "  {");
  for (int k = 0; k < def->n_attrs; k++) {
    const berth_attr_value_t *a = &m->attrs[in->attrs + (uint32_t)k];
    out(s, "%s%s = ", k ? ", " : "", def->attrs[k].name);
    switch (def->attrs[k].kind) {
      case BERTH_ATTR_INT: out(s, "%lld", (long long)a->i); break;
      case BERTH_ATTR_SCALAR:
        if (a->n) out(s, "%lld", (long long)a->i);
        else out(s, "%.17g", a->f);
        break;
      case BERTH_ATTR_INTS:
        out(s, "[");
        for (int32_t j = 0; j < a->n && j < BERTH_MAX_ATTR_INTS; j++) out(s, "%s%lld", j ? ", " : "", (long long)a->ints[j]);
        out(s, "]");
        break;
      case BERTH_ATTR_DTYPE: out(s, "%s", berth_dtype_name((berth_dtype_t)a->i)); break;
      case BERTH_ATTR_STRING: print_string(s, a->s); break;
    }
  }
  out(s, "}");
}

static void print_method(sb_t *s, const berth_format_program_t *fp, int32_t mi) {
  const berth_exec_method_t *m = &fp->exec.methods[mi];
  char t[128];
  out(s, "\nmethod %s: %d input%s, %d output%s, %d values, %d instructions, %d loop register%s, alignment %u\n", m->name,
      (int)m->n_inputs, m->n_inputs == 1 ? "" : "s", (int)m->n_outputs, m->n_outputs == 1 ? "" : "s", (int)m->n_values,
      (int)m->n_instrs, (int)m->n_regs, m->n_regs == 1 ? "" : "s", (unsigned)m->alignment);
  for (int32_t k = 0; k < m->n_inputs; k++)
    out(s, "  input %-3d %%%-16s %-14s v%d\n", (int)k, fp->methods[mi].input_names[k],
        berth_type_format(&m->values[m->inputs[k]].type, t, sizeof t), (int)m->inputs[k]);
  for (int32_t k = 0, b = 0; k < m->n_outputs; k++) {
    out(s, "  output %-2d %%%-16s %-14s v%d", (int)k, fp->methods[mi].output_names[k],
        berth_type_format(&m->values[m->outputs[k]].type, t, sizeof t), (int)m->outputs[k]);
    for (; b < m->n_bounds && m->bounds[b].output == k; b++) /* --dynamic-bound: the real extent at run time */
      out(s, "  axis %d bounded, extent v%d", (int)m->bounds[b].axis, (int)m->bounds[b].extent);
    out(s, "\n");
  }
  for (int32_t k = 0; k < m->n_pools; k++) out(s, "  pool %d: %llu bytes\n", (int)k, (ull)m->pool_sizes[k]);
  out(s, "  state: %llu bytes\n", (ull)m->state_size);
  if (m->n_once) out(s, "  hoist: %llu bytes, once-stream: instructions [0,%d)\n", (ull)m->hoist_size, (int)m->n_once);
  out(s, "  values:\n");
  for (int32_t v = 0; v < m->n_values; v++) {
    char name[128];
    out(s, "    v%-5d %-22s %-14s ", (int)v, berth_exec_value_name(m, v, name, sizeof name),
        berth_type_format(&m->values[v].type, t, sizeof t));
    print_storage(s, m, v);
    out(s, "\n");
  }
  out(s, "  instructions:\n");
  for (int32_t i = 0; i < m->n_instrs; i++) {
    const berth_instr_t *in = &m->instrs[i];
    const int32_t *ops = m->operands + in->operands;
    char what[64];
    out(s, "    %-5d %-18s", (int)i, berth_exec_instr_name(m, i, what, sizeof what));
    switch (in->opcode) {
      case BERTH_I_KERNEL:
      case BERTH_I_JOIN: /* the parts, then the output they fill in place */
        for (int32_t k = 0; k < in->n_in; k++) {
          out(s, "%s", k ? ", " : " ");
          print_value_ref(s, m, ops[k]);
        }
        out(s, " ->");
        for (int32_t k = 0; k < in->n_out; k++) {
          out(s, "%s", k ? ", " : " ");
          print_value_ref(s, m, ops[in->n_in + k]);
        }
        if (in->opcode == BERTH_I_JOIN) break;
        if (in->n_scratch) { /* the call's working memory: a value of its own */
          out(s, " scratch ");
          print_value_ref(s, m, ops[in->n_in + in->n_out]);
        }
        print_attrs(s, m, in);
        break;
      case BERTH_I_COPY:
      case BERTH_I_RENAME:
      case BERTH_I_VIEW:
        out(s, " ");
        print_value_ref(s, m, ops[0]);
        if (in->opcode == BERTH_I_VIEW && in->view_offset) out(s, " +%llu", (unsigned long long)in->view_offset);
        out(s, " -> ");
        print_value_ref(s, m, ops[1]);
        break;
      case BERTH_I_JUMP: out(s, " to %d", (int)in->target); break;
      case BERTH_I_JUMP_IF_FALSE:
        out(s, " ");
        print_value_ref(s, m, ops[0]);
        out(s, ", else to %d", (int)in->target);
        break;
      case BERTH_I_ASSERT:
        out(s, " ");
        print_value_ref(s, m, ops[0]);
        print_attrs(s, m, in);
        break;
      case BERTH_I_LOOP_INIT: out(s, " r%d = 0", (int)in->reg); break;
      case BERTH_I_LOOP_NEXT: out(s, " r%d += 1; if r%d < %lld to %d", (int)in->reg, (int)in->reg, (long long)in->count, (int)in->target); break;
      default: break;
    }
    out(s, "\n");
  }
}

static void print_header(sb_t *s, const berth_format_program_t *fp, const char *name) {
  out(s, "%s: berth program file version %u, %llu bytes, %s\n", name, (unsigned)fp->version, (ull)fp->file_size,
      fp->verified ? "verified" : "NOT verified (--no-verify)");
  const uint16_t *wv = fp->writer_version;
  if (wv[0] | wv[1] | wv[2]) out(s, "written by berth %u.%u.%u\n", (unsigned)wv[0], (unsigned)wv[1], (unsigned)wv[2]);
  else out(s, "written by berth 0.4.0 or older (no version recorded)\n");
  out(s, "inputs %s, outputs %s, constants %llu bytes\n",
      fp->exec.alloc_inputs ? "planned in the arena" : "in caller memory",
      fp->exec.alloc_outputs ? "planned in the arena" : "in caller memory", (ull)fp->exec.constants_size);
  if (fp->ir) {
    berth_plan_options_t o;
    char pools[1024], msg[256];
    const char *text;
    size_t text_len;
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    if (berth_ir_section_decode(fp, &o, pools, sizeof pools, &text, &text_len, &diag) == BERTH_OK)
      out(s, "IR section: %zu bytes of text, %llu in all (section %s); planned with --algo %s --strategy %s --alignment %u%s%s\n",
          text_len, (ull)fp->ir_size, berth_format_section_name(fp->ir_section), berth_alloc_algo_name(o.algo),
          berth_strategy_name(o.strategy), (unsigned)o.alignment,
          o.pools ? " --pools " : "", o.pools ? o.pools : "");
    else
      out(s, "IR section: %s\n", msg);
  } else {
    out(s, "no IR section\n");
  }
}

/* Loads bytes as the runtime does (the checksum checked; the memory-plan verifier unless
 * verify is false) into *mem (the caller frees it). */
berth_status_t berth_compiler_load_file(const void *bytes, size_t len, bool verify, void **mem,
                                        const berth_format_program_t **fp, berth_diag_t *diag) {
  berth_format_sizes_t sz;
  berth_status_t st = berth_format_read_size(bytes, len, &sz, diag);
  if (st) return st;
  void *scratch = malloc(sz.scratch_bytes ? sz.scratch_bytes : 1);
  *mem = malloc(sz.program_bytes ? sz.program_bytes : 1);
  if (!*mem || !scratch)
    st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory (%zu + %zu bytes)", sz.program_bytes, sz.scratch_bytes);
  else
    st = berth_format_read(bytes, len, *mem, sz.program_bytes, scratch, sz.scratch_bytes,
                           BERTH_FORMAT_READ_CHECKSUM_CHECKED | (verify ? 0 : BERTH_FORMAT_READ_NO_VERIFY), fp, diag);
  free(scratch);
  return st;
}

berth_status_t berth_disassemble(const void *bytes, size_t len, const char *name, bool verify, char **text,
                                 berth_diag_t *diag) {
  if (!bytes || !text) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_disassemble: NULL argument");
  void *mem = NULL;
  const berth_format_program_t *fp = NULL;
  berth_status_t st = berth_compiler_load_file(bytes, len, verify, &mem, &fp, diag);
  sb_t s = {NULL, 0, 0, false};
  if (!st) {
    print_header(&s, fp, name ? name : "<program>");
    for (int32_t mi = 0; mi < fp->exec.n_methods; mi++) print_method(&s, fp, mi);
    if (s.oom || !s.p) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  free(mem);
  if (st) {
    free(s.p);
    return st;
  }
  *text = s.p;
  return BERTH_OK;
}

berth_status_t berth_program_ops_used(const void *bytes, size_t len, bool verify, bool *used, int32_t n,
                                      berth_diag_t *diag) {
  if (!bytes || !used) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_program_ops_used: NULL argument");
  if (n < (int32_t)BERTH_OP_COUNT)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_program_ops_used: %d entries for %d ops (berth_op_count)",
                      (int)n, (int)BERTH_OP_COUNT);
  void *mem = NULL;
  const berth_format_program_t *fp = NULL;
  berth_status_t st = berth_compiler_load_file(bytes, len, verify, &mem, &fp, diag);
  if (!st) {
    for (int32_t k = 0; k < n; k++) used[k] = false;
    for (int32_t mi = 0; mi < fp->exec.n_methods; mi++) {
      const berth_exec_method_t *m = &fp->exec.methods[mi];
      for (int32_t i = 0; i < m->n_instrs; i++)
        if (m->instrs[i].opcode == BERTH_I_KERNEL && m->instrs[i].op < BERTH_OP_COUNT) used[m->instrs[i].op] = true;
    }
  }
  free(mem);
  return st;
}

berth_status_t berth_program_check(const void *bytes, size_t len, bool verify, berth_diag_t *diag) {
  if (!bytes) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_program_check: NULL bytes");
  void *mem = NULL;
  const berth_format_program_t *fp = NULL;
  berth_status_t st = berth_compiler_load_file(bytes, len, verify, &mem, &fp, diag);
  free(mem);
  return st;
}

berth_status_t berth_program_file_info(const void *bytes, size_t len, bool verify, berth_program_file_info_t *info,
                                       berth_diag_t *diag) {
  if (!bytes || !info) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_program_file_info: NULL argument");
  void *mem = NULL;
  const berth_format_program_t *fp = NULL;
  berth_status_t st = berth_compiler_load_file(bytes, len, verify, &mem, &fp, diag);
  if (!st) {
    info->n_methods = fp->exec.n_methods;
    info->has_ir = fp->ir != NULL;
  }
  free(mem);
  return st;
}
