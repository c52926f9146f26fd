/* berth dis: prints a .berth file readably: header, per method its signature, pools,
 * values with their storage, and the instruction stream. */
#include "cli.h"
#include "format/read_program.h"
#include "program/exec_names.h"
#include "program/verify.h"
#include "writer/ir_section.h"
#include "program_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long ull;

static void print_value_ref(const berth_exec_method_t *m, int32_t v) {
  char b[128];
  fputs(berth_exec_value_name(m, v, b, sizeof b), stdout);
}

static void print_storage(const berth_exec_method_t *m, int32_t v) {
  const berth_exec_value_t *x = &m->values[v];
  ull bytes = (ull)berth_type_bytes(&x->type);
  if (x->window_parent >= 0) {
    printf("slice of ");
    print_value_ref(m, x->window_parent);
    printf(" (v%d) at +%llu + r%d * %lld", (int)x->window_parent, (ull)x->offset, (int)x->window_reg,
           (long long)x->window_stride);
    return;
  }
  switch (x->storage) {
    case BERTH_STORAGE_ARENA: printf("arena pool %u [%llu,%llu)", (unsigned)x->pool, (ull)x->offset, (ull)x->offset + bytes); break;
    case BERTH_STORAGE_CONST: printf("const [%llu,%llu)", (ull)x->offset, (ull)x->offset + bytes); break;
    case BERTH_STORAGE_STATE: printf("state [%llu,%llu)", (ull)x->offset, (ull)x->offset + bytes); break;
    case BERTH_STORAGE_INPUT: printf("caller input %u [0,%llu)", (unsigned)x->index, bytes); break;
    case BERTH_STORAGE_OUTPUT: printf("caller output %u [0,%llu)", (unsigned)x->index, bytes); break;
    default: printf("?"); break;
  }
}

/* A string attribute quoted as the text format writes it (docs/ir-text.md). */
static void print_string(const char *text) {
  putchar('"');
  for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; c++) {
    if (*c == '"' || *c == '\\') printf("\\%c", *c);
    else if (*c == '\n') printf("\\n");
    else if (*c == '\t') printf("\\t");
    else if (*c < 0x20 || *c >= 0x7f) printf("\\x%02x", *c);
    else putchar(*c);
  }
  putchar('"');
}

static void print_attrs(const berth_exec_method_t *m, const berth_instr_t *in) {
  const berth_op_def_t *def = berth_op_get(in->op);
  if (!def || def->n_attrs == 0) return;
  printf("  {");
  for (int k = 0; k < def->n_attrs; k++) {
    const berth_attr_value_t *a = &m->attrs[in->attrs + (uint32_t)k];
    printf("%s%s = ", k ? ", " : "", def->attrs[k].name);
    switch (def->attrs[k].kind) {
      case BERTH_ATTR_INT: printf("%lld", (long long)a->i); break;
      case BERTH_ATTR_SCALAR:
        if (a->n) printf("%lld", (long long)a->i);
        else printf("%.17g", a->f);
        break;
      case BERTH_ATTR_INTS:
        printf("[");
        for (int32_t j = 0; j < a->n && j < BERTH_MAX_ATTR_INTS; j++) printf("%s%lld", j ? ", " : "", (long long)a->ints[j]);
        printf("]");
        break;
      case BERTH_ATTR_DTYPE: printf("%s", berth_dtype_name((berth_dtype_t)a->i)); break;
      case BERTH_ATTR_STRING: print_string(a->s); break;
    }
  }
  printf("}");
}

static void print_method(const berth_format_program_t *fp, int32_t mi) {
  const berth_exec_method_t *m = &fp->exec.methods[mi];
  char t[128];
  printf("\nmethod %s: %d input%s, %d output%s, %d values, %d instructions, %d loop register%s, alignment %u\n", m->name,
         (int)m->n_inputs, m->n_inputs == 1 ? "" : "s", (int)m->n_outputs, m->n_outputs == 1 ? "" : "s", (int)m->n_values,
         (int)m->n_instrs, (int)m->n_regs, m->n_regs == 1 ? "" : "s", (unsigned)m->alignment);
  for (int32_t k = 0; k < m->n_inputs; k++)
    printf("  input %-3d %%%-16s %-14s v%d\n", (int)k, fp->methods[mi].input_names[k],
           berth_type_format(&m->values[m->inputs[k]].type, t, sizeof t), (int)m->inputs[k]);
  for (int32_t k = 0; k < m->n_outputs; k++)
    printf("  output %-2d %%%-16s %-14s v%d\n", (int)k, fp->methods[mi].output_names[k],
           berth_type_format(&m->values[m->outputs[k]].type, t, sizeof t), (int)m->outputs[k]);
  for (int32_t k = 0; k < m->n_pools; k++) printf("  pool %d: %llu bytes\n", (int)k, (ull)m->pool_sizes[k]);
  printf("  state: %llu bytes\n", (ull)m->state_size);
  printf("  values:\n");
  for (int32_t v = 0; v < m->n_values; v++) {
    char name[128];
    printf("    v%-5d %-22s %-14s ", (int)v, berth_exec_value_name(m, v, name, sizeof name),
           berth_type_format(&m->values[v].type, t, sizeof t));
    print_storage(m, v);
    printf("\n");
  }
  printf("  instructions:\n");
  for (int32_t i = 0; i < m->n_instrs; i++) {
    const berth_instr_t *in = &m->instrs[i];
    const int32_t *ops = m->operands + in->operands;
    char what[64];
    printf("    %-5d %-18s", (int)i, berth_exec_instr_name(m, i, what, sizeof what));
    switch (in->opcode) {
      case BERTH_I_KERNEL:
        for (int32_t k = 0; k < in->n_in; k++) {
          printf("%s", k ? ", " : " ");
          print_value_ref(m, ops[k]);
        }
        printf(" ->");
        for (int32_t k = 0; k < in->n_out; k++) {
          printf("%s", k ? ", " : " ");
          print_value_ref(m, ops[in->n_in + k]);
        }
        if (in->n_scratch) { /* the call's working memory: a value of its own */
          printf(" scratch ");
          print_value_ref(m, ops[in->n_in + in->n_out]);
        }
        print_attrs(m, in);
        break;
      case BERTH_I_COPY:
      case BERTH_I_RENAME:
        printf(" ");
        print_value_ref(m, ops[0]);
        printf(" -> ");
        print_value_ref(m, ops[1]);
        break;
      case BERTH_I_JUMP: printf(" to %d", (int)in->target); break;
      case BERTH_I_JUMP_IF_FALSE:
        printf(" ");
        print_value_ref(m, ops[0]);
        printf(", else to %d", (int)in->target);
        break;
      case BERTH_I_ASSERT:
        printf(" ");
        print_value_ref(m, ops[0]);
        print_attrs(m, in);
        break;
      case BERTH_I_LOOP_INIT: printf(" r%d = 0", (int)in->reg); break;
      case BERTH_I_LOOP_NEXT: printf(" r%d += 1; if r%d < %lld to %d", (int)in->reg, (int)in->reg, (long long)in->count, (int)in->target); break;
      default: break;
    }
    printf("\n");
  }
}

int berth_cmd_dis(int argc, char **argv) {
  const char *path = NULL;
  bool verify = true;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--no-verify") == 0) {
      if (!berth_cli_once(argv[i])) return BERTH_EXIT_USAGE;
      verify = false;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "berth dis: unknown option '%s'\n", argv[i]);
      return BERTH_EXIT_USAGE;
    } else if (path) {
      fprintf(stderr, "berth dis: more than one file given\n");
      return BERTH_EXIT_USAGE;
    } else {
      path = argv[i];
    }
  }
  if (!path) {
    fprintf(stderr, "berth dis: usage: berth dis FILE.berth [--no-verify]\n");
    return BERTH_EXIT_USAGE;
  }
  if (!berth_tool_is_berth(path)) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    fprintf(stderr, "berth dis: %s is not a .berth program file%s\n", path, f ? " (berth compile makes one)" : " (cannot open it)");
    return 1;
  }
  berth_tool_berth_t *b = berth_tool_load_berth(path, verify);
  if (!b) return 1;
  const berth_format_program_t *fp = b->prog;
  printf("%s: berth program file version %u, %llu bytes, %s\n", path, (unsigned)fp->version, (ull)fp->file_size,
         fp->verified ? "verified" : "NOT verified (--no-verify)");
  printf("inputs %s, outputs %s, constants %llu bytes\n",
         fp->exec.alloc_inputs ? "planned in the arena" : "in caller memory",
         fp->exec.alloc_outputs ? "planned in the arena" : "in caller memory", (ull)fp->exec.constants_size);
  if (fp->ir) {
    berth_plan_options_t o;
    char pools[1024], msg[256];
    const char *text;
    size_t text_len;
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    if (berth_ir_section_decode(fp->ir, fp->ir_size, &o, pools, sizeof pools, &text, &text_len, &diag) == BERTH_OK)
      printf("IR section: %zu bytes of text; planned with --algo %s --strategy %s --alignment %u%s%s\n", text_len,
             berth_alloc_algo_name(o.algo), berth_strategy_name(o.strategy), (unsigned)o.alignment,
             o.pools ? " --pools " : "", o.pools ? o.pools : "");
    else
      printf("IR section: %s\n", msg);
  } else {
    printf("no IR section\n");
  }
  for (int32_t mi = 0; mi < fp->exec.n_methods; mi++) print_method(fp, mi);
  berth_tool_berth_free(b);
  return 0;
}
