/* Printer of the canonical text form (.bir).
 *
 * Canonical means: 2 spaces per nesting level, the program line first, constants and
 * buffers in program order, then the funcs; every attribute in the op's own order; floats
 * in the shortest form that reads back to the same bits at the dtype's precision. A name
 * that the parser would not accept (empty, bad characters, too long, or already taken in
 * its namespace) is printed as a fresh valid name, so the output always parses. */
#include "ir.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRINT_MAX_NAME 1024 /* the parser's cap on name length */

/* ---- output buffer ------------------------------------------------------------- */

typedef struct sbuf {
  char *s;
  size_t n, cap;
  bool oom;
} sbuf_t;

static void put(sbuf_t *b, const char *s, size_t n) {
  if (b->oom) return;
  if (n >= b->cap - b->n) {
    size_t nc = b->cap ? b->cap : 256;
    while (n >= nc - b->n) {
      if (nc > SIZE_MAX / 2) {
        b->oom = true;
        return;
      }
      nc *= 2;
    }
    char *ns = realloc(b->s, nc);
    if (!ns) {
      b->oom = true;
      return;
    }
    b->s = ns;
    b->cap = nc;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

static void puts_(sbuf_t *b, const char *s) { put(b, s, strlen(s)); }

BERTH_PRINTF_LIKE(2, 3) static void putf(sbuf_t *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void indent(sbuf_t *b, int n) {
  for (int i = 0; i < n; i++) put(b, " ", 1);
}

/* ---- numbers -------------------------------------------------------------------- */

/* The shortest %.Ng form of v that reads back to the same value at f32 or f64 precision. */
static void format_float(double v, bool f32, char *out, size_t cap) {
  if (isnan(v)) {
    snprintf(out, cap, "nan");
    return;
  }
  if (isinf(v)) {
    snprintf(out, cap, v > 0 ? "inf" : "-inf");
    return;
  }
  int max = f32 ? 9 : 17;
  for (int p = 1; p <= max; p++) {
    snprintf(out, cap, "%.*g", p, v);
    if (f32 ? strtof(out, NULL) == (float)v : strtod(out, NULL) == v) return;
  }
}

/* A SCALAR attribute: integral values as integers; others as floats that do not read as
 * integers (so that -0.0 keeps its sign). */
static void put_scalar(sbuf_t *b, const berth_attr_value_t *a) {
  if (a->n == 1) {
    putf(b, "%lld", (long long)a->i);
    return;
  }
  char num[64];
  format_float(a->f, false, num, sizeof num);
  puts_(b, num);
  if (strspn(num, "-0123456789") == strlen(num)) puts_(b, ".0");
}

static void put_type(sbuf_t *b, const berth_type_t *t) {
  char tb[192];
  berth_type_t c = *t; /* clamped: an invalid program must not make the printer read out of bounds */
  if (c.rank < 0) c.rank = 0;
  if (c.rank > BERTH_MAX_RANK) c.rank = BERTH_MAX_RANK;
  puts_(b, berth_type_format(&c, tb, sizeof tb));
}

static void put_data(sbuf_t *b, const berth_type_t *t, const void *data) {
  int64_t numel = berth_type_numel(t);
  const unsigned char *d = data;
  char num[64];
  put(b, "[", 1);
  for (int64_t k = 0; k < numel && !b->oom; k++) {
    if (k) put(b, ", ", 2);
    switch (t->dtype) {
      case BERTH_DTYPE_BOOL: puts_(b, d[k] ? "1" : "0"); break;
      case BERTH_DTYPE_I8: { int8_t v; memcpy(&v, d + k, 1); putf(b, "%d", (int)v); break; }
      case BERTH_DTYPE_U8: putf(b, "%u", (unsigned)d[k]); break;
      case BERTH_DTYPE_I16: { int16_t v; memcpy(&v, d + 2 * k, 2); putf(b, "%d", (int)v); break; }
      case BERTH_DTYPE_U16: { uint16_t v; memcpy(&v, d + 2 * k, 2); putf(b, "%u", (unsigned)v); break; }
      case BERTH_DTYPE_I32: { int32_t v; memcpy(&v, d + 4 * k, 4); putf(b, "%ld", (long)v); break; }
      case BERTH_DTYPE_U32: { uint32_t v; memcpy(&v, d + 4 * k, 4); putf(b, "%lu", (unsigned long)v); break; }
      case BERTH_DTYPE_I64: { int64_t v; memcpy(&v, d + 8 * k, 8); putf(b, "%lld", (long long)v); break; }
      case BERTH_DTYPE_U64: { uint64_t v; memcpy(&v, d + 8 * k, 8); putf(b, "%llu", (unsigned long long)v); break; }
      case BERTH_DTYPE_F32: {
        float v;
        memcpy(&v, d + 4 * k, 4);
        format_float(v, true, num, sizeof num);
        puts_(b, num);
        break;
      }
      case BERTH_DTYPE_F64: {
        double v;
        memcpy(&v, d + 8 * k, 8);
        format_float(v, false, num, sizeof num);
        puts_(b, num);
        break;
      }
      default: puts_(b, "0"); break;
    }
  }
  put(b, "]", 1);
}

/* ---- printed names ---------------------------------------------------------------- */

/* A set of NUL-terminated strings (not owned). */
typedef struct name_set {
  const char **e;
  size_t cap, n;
} name_set_t;

static uint32_t str_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static bool set_has(const name_set_t *t, const char *s) {
  if (!t->cap) return false;
  for (size_t i = str_hash(s) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    if (!t->e[i]) return false;
    if (strcmp(t->e[i], s) == 0) return true;
  }
}

static bool set_add(name_set_t *t, const char *s) {
  if ((t->n + 1) * 2 > t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 64;
    const char **ne = calloc(nc, sizeof *ne);
    if (!ne) return false;
    for (size_t k = 0; k < t->cap; k++) {
      if (!t->e[k]) continue;
      size_t i = str_hash(t->e[k]) & (nc - 1);
      while (ne[i]) i = (i + 1) & (nc - 1);
      ne[i] = t->e[k];
    }
    free(t->e);
    t->e = ne;
    t->cap = nc;
  }
  size_t i = str_hash(s) & (t->cap - 1);
  while (t->e[i]) i = (i + 1) & (t->cap - 1);
  t->e[i] = s;
  t->n++;
  return true;
}

static bool valid_name(const char *s) {
  if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  size_t n = 0;
  for (; *s; s++, n++) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.'))
      return false;
  }
  return n <= PRINT_MAX_NAME;
}

/* Printed names for a list of n names: a valid name keeps its spelling the first time it
 * appears; the others get a sanitized spelling with a numeric suffix that is not taken.
 * out[i] points either at names[i] or at a malloc'd string recorded in `owned`. Names
 * with skip[i] set get no name. Returns false on allocation failure. */
typedef struct printed_names {
  const char **name;
  char **owned;
  int32_t n;
} printed_names_t;

static void names_free(printed_names_t *pn) {
  if (pn->owned)
    for (int32_t i = 0; i < pn->n; i++) free(pn->owned[i]);
  free(pn->owned);
  free(pn->name);
  memset(pn, 0, sizeof *pn);
}

static bool names_assign(printed_names_t *pn, int32_t n, const char *(*get)(const void *, int32_t),
                         const void *ctx) {
  memset(pn, 0, sizeof *pn);
  pn->n = n;
  pn->name = calloc((size_t)(n ? n : 1), sizeof *pn->name);
  pn->owned = calloc((size_t)(n ? n : 1), sizeof *pn->owned);
  name_set_t set = {0};
  bool ok = pn->name && pn->owned;
  for (int32_t i = 0; ok && i < n; i++) {
    const char *s = get(ctx, i);
    if (!s || !valid_name(s) || set_has(&set, s)) continue;
    pn->name[i] = s;
    ok = set_add(&set, s);
  }
  for (int32_t i = 0; ok && i < n; i++) {
    const char *s = get(ctx, i);
    if (!s || pn->name[i]) continue;
    char base[80];
    size_t k = 0;
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) base[k++] = 'v';
    for (const char *c = s; *c && k < 48; c++) {
      bool ok_char = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                     *c == '_' || *c == '.';
      base[k++] = ok_char ? *c : '_';
    }
    base[k] = '\0';
    char *cand = malloc(k + 24);
    if (!cand) {
      ok = false;
      break;
    }
    strcpy(cand, base);
    for (unsigned long long suffix = 1; set_has(&set, cand); suffix++)
      snprintf(cand, k + 24, "%s_%llu", base, suffix);
    pn->owned[i] = cand;
    pn->name[i] = cand;
    ok = set_add(&set, cand);
  }
  free(set.e);
  if (!ok) names_free(pn);
  return ok;
}

static const char *global_name(const void *ctx, int32_t i) {
  return ((const berth_ir_program_t *)ctx)->globals[i].name;
}
static const char *method_name(const void *ctx, int32_t i) {
  return ((const berth_ir_program_t *)ctx)->methods[i].name;
}
static const char *value_name(const void *ctx, int32_t i) {
  const berth_ir_value_t *v = &((const berth_ir_method_t *)ctx)->values[i];
  return v->kind == BERTH_IR_CONST || v->kind == BERTH_IR_STATE ? NULL : v->name;
}

/* ---- program ---------------------------------------------------------------------- */

typedef struct printer {
  sbuf_t out;
  const berth_ir_program_t *p;
  const berth_ir_method_t *m;
  printed_names_t globals, values;
} printer_t;

static void put_value(printer_t *pr, int32_t v) {
  if (v < 0 || v >= pr->m->n_values) {
    puts_(&pr->out, "%?");
    return;
  }
  const berth_ir_value_t *val = &pr->m->values[v];
  if (val->kind == BERTH_IR_CONST || val->kind == BERTH_IR_STATE) {
    put(&pr->out, "@", 1);
    bool ok = val->index >= 0 && val->index < pr->p->n_globals;
    puts_(&pr->out, ok ? pr->globals.name[val->index] : "?");
  } else {
    put(&pr->out, "%", 1);
    puts_(&pr->out, pr->values.name[v]);
  }
}

static void put_values(printer_t *pr, const int32_t *ids, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    if (i) put(&pr->out, ", ", 2);
    put_value(pr, ids[i]);
  }
}

static void put_params(printer_t *pr, const berth_ir_graph_t *g) {
  put(&pr->out, "(", 1);
  for (int32_t i = 0; i < g->n_params; i++) {
    if (i) put(&pr->out, ", ", 2);
    put_value(pr, g->params[i]);
    put(&pr->out, " : ", 3);
    int32_t v = g->params[i];
    if (v >= 0 && v < pr->m->n_values) put_type(&pr->out, &pr->m->values[v].type);
  }
  put(&pr->out, ")", 1);
}

/* A string in double quotes: printable ASCII as is, except '"' and '\\'; \n and \t; every
 * other byte as \xHH (so the text stays one line of ASCII whatever the string holds). */
static void put_string(sbuf_t *b, const char *text) {
  static const char hex[] = "0123456789abcdef";
  put(b, "\"", 1);
  for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; c++) {
    if (*c == '"' || *c == '\\') {
      char e[2] = {'\\', (char)*c};
      put(b, e, 2);
    } else if (*c == '\n') {
      put(b, "\\n", 2);
    } else if (*c == '\t') {
      put(b, "\\t", 2);
    } else if (*c < 0x20 || *c >= 0x7f) {
      char e[4] = {'\\', 'x', hex[*c >> 4], hex[*c & 15]};
      put(b, e, 4);
    } else {
      put(b, (const char *)c, 1);
    }
  }
  put(b, "\"", 1);
}

static void put_attr(const printer_t *pr, sbuf_t *b, const berth_attr_spec_t *spec, const berth_attr_value_t *a) {
  switch (spec->kind) {
    case BERTH_ATTR_INT: putf(b, "%lld", (long long)a->i); break;
    case BERTH_ATTR_SCALAR: put_scalar(b, a); break;
    case BERTH_ATTR_INTS: {
      int32_t n = a->n < 0 ? 0 : a->n > BERTH_MAX_ATTR_INTS ? BERTH_MAX_ATTR_INTS : a->n;
      put(b, "[", 1);
      for (int32_t k = 0; k < n; k++) putf(b, k ? ", %lld" : "%lld", (long long)a->ints[k]);
      put(b, "]", 1);
      break;
    }
    case BERTH_ATTR_DTYPE: puts_(b, berth_dtype_name((berth_dtype_t)a->i)); break;
    case BERTH_ATTR_STRING: {
      const char *text = berth_ir_string(pr->p, a->i);
      if (text) put_string(b, text);
      else puts_(b, "?"); /* only on an invalid program */
      break;
    }
    default: puts_(b, "?"); break;
  }
}

static void put_graph(printer_t *pr, int32_t graph, int depth, int ind);

static void put_node(printer_t *pr, int32_t node, int depth, int ind) {
  const berth_ir_method_t *m = pr->m;
  const berth_ir_node_t *n = &m->nodes[node];
  const berth_op_def_t *def = berth_op_get(n->op);
  sbuf_t *b = &pr->out;
  indent(b, ind);
  if (n->n_out) {
    put_values(pr, n->out, n->n_out);
    put(b, " = ", 3);
  }
  puts_(b, def ? def->name : "?");
  put(b, "(", 1);
  put_values(pr, n->in, n->n_in);
  put(b, ")", 1);
  if (def && def->n_attrs) {
    put(b, " {", 2);
    for (int i = 0; i < def->n_attrs && i < BERTH_MAX_OP_ATTRS; i++) {
      if (i) put(b, ", ", 2);
      puts_(b, def->attrs[i].name);
      put(b, " = ", 3);
      put_attr(pr, b, &def->attrs[i], &n->attrs[i]);
    }
    put(b, "}", 1);
  }
  if (n->n_out) {
    put(b, " : ", 3);
    for (int32_t i = 0; i < n->n_out; i++) {
      if (i) put(b, ", ", 2);
      int32_t v = n->out[i];
      if (v >= 0 && v < m->n_values) put_type(b, &m->values[v].type);
    }
  }
  put(b, "\n", 1);
  for (int32_t k = 0; k < n->n_graphs; k++) {
    int32_t g = n->graphs[k];
    if (g <= 0 || g >= m->n_graphs || depth > 4096) continue; /* only on an invalid program */
    indent(b, ind + 2);
    puts_(b, m->graphs[g].label ? m->graphs[g].label : "?");
    put_params(pr, &m->graphs[g]);
    put(b, " {\n", 3);
    put_graph(pr, g, depth + 1, ind + 4);
    indent(b, ind + 2);
    put(b, "}\n", 2);
  }
}

/* The nodes and the return line of a graph, at indentation `ind`. */
static void put_graph(printer_t *pr, int32_t graph, int depth, int ind) {
  const berth_ir_graph_t *g = &pr->m->graphs[graph];
  for (int32_t i = 0; i < g->n_nodes && !pr->out.oom; i++) {
    int32_t nd = g->nodes[i];
    if (nd >= 0 && nd < pr->m->n_nodes) put_node(pr, nd, depth, ind);
  }
  indent(&pr->out, ind);
  puts_(&pr->out, "return");
  if (g->n_results) put(&pr->out, " ", 1);
  for (int32_t i = 0; i < g->n_results; i++) {
    if (i) put(&pr->out, ", ", 2);
    put_value(pr, g->results[i]);
    const berth_ir_bound_t *bd = graph == pr->m->body ? berth_ir_bound_of(pr->m, i) : NULL;
    for (; bd && bd < pr->m->bounds + pr->m->n_bounds && bd->result == i; bd++) {
      putf(&pr->out, " bounded(%d, ", (int)bd->axis);
      put_value(pr, bd->extent);
      put(&pr->out, ")", 1);
    }
  }
  put(&pr->out, "\n", 1);
}

static bool put_method(printer_t *pr, const berth_ir_method_t *m, const char *name) {
  pr->m = m;
  if (!names_assign(&pr->values, m->n_values, value_name, m)) return false;
  sbuf_t *b = &pr->out;
  put(b, "\nfunc @", 7);
  puts_(b, name);
  if (m->n_graphs < 1) {
    put(b, "() -> () {\n  return\n}\n", 22);
    names_free(&pr->values);
    return true;
  }
  const berth_ir_graph_t *body = &m->graphs[0];
  put_params(pr, body);
  put(b, " -> (", 5);
  for (int32_t i = 0; i < body->n_results; i++) {
    if (i) put(b, ", ", 2);
    int32_t v = body->results[i];
    if (v >= 0 && v < m->n_values) put_type(b, &m->values[v].type);
  }
  put(b, ") {\n", 4);
  put_graph(pr, 0, 0, 2);
  put(b, "}\n", 2);
  names_free(&pr->values);
  return true;
}

char *berth_ir_print(const berth_ir_program_t *p) {
  printer_t pr;
  memset(&pr, 0, sizeof pr);
  pr.p = p;
  printed_names_t methods;
  if (!names_assign(&pr.globals, p->n_globals, global_name, p)) return NULL;
  if (!names_assign(&methods, p->n_methods, method_name, p)) {
    names_free(&pr.globals);
    return NULL;
  }
  sbuf_t *b = &pr.out;
  putf(b, "program {alloc_inputs = %d, alloc_outputs = %d}\n", p->alloc_inputs ? 1 : 0,
       p->alloc_outputs ? 1 : 0);
  if (p->n_globals) put(b, "\n", 1);
  for (int32_t i = 0; i < p->n_globals && !b->oom; i++) {
    const berth_ir_global_t *g = &p->globals[i];
    puts_(b, g->is_state ? "buffer @" : "const @");
    puts_(b, pr.globals.name[i]);
    put(b, " : ", 3);
    put_type(b, &g->type);
    put(b, " = ", 3);
    put_data(b, &g->type, g->data);
    put(b, "\n", 1);
  }
  bool ok = true;
  for (int32_t i = 0; i < p->n_methods && ok && !b->oom; i++)
    ok = put_method(&pr, &p->methods[i], methods.name[i]);
  names_free(&pr.globals);
  names_free(&methods);
  if (!ok || b->oom) {
    free(b->s);
    return NULL;
  }
  return b->s;
}
