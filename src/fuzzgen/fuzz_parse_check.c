/* The text parser's fuzz property (berth/testing.h, berth_fuzz_parse_check): the libFuzzer
 * target fuzz/fuzz_parse.c, tests/test_fuzz_parse_replay.c and tests/test_ir_text.c call it.
 *
 * Property: any bytes either fail to parse with a message, or parse into a program whose
 * canonical print parses again into an equal program with the same print, the same
 * validation outcome, and a clone that prints the same. */
#include "berth/testing.h"

#include "ir/ir.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Structural equality of two programs (ignores source positions). On a difference writes
 * where into why and returns false. */
static bool fuzz_str_equal(const char *a, const char *b);

/* Strings compare by text: each program has its own string table. */
static bool fuzz_attr_equal(const berth_ir_program_t *p, const berth_ir_program_t *q, const berth_attr_spec_t *spec,
                            const berth_attr_value_t *a, const berth_attr_value_t *b) {
  switch (spec->kind) {
    case BERTH_ATTR_STRING: return fuzz_str_equal(berth_ir_string(p, a->i), berth_ir_string(q, b->i));
    case BERTH_ATTR_INT:
    case BERTH_ATTR_DTYPE: return a->i == b->i;
    case BERTH_ATTR_SCALAR:
      if (a->n != b->n || a->i != b->i) return false;
      if (isnan(a->f) || isnan(b->f)) return isnan(a->f) && isnan(b->f);
      return memcmp(&a->f, &b->f, sizeof a->f) == 0;
    case BERTH_ATTR_INTS:
      return a->n == b->n && (a->n <= 0 || a->n > BERTH_MAX_ATTR_INTS ||
                              memcmp(a->ints, b->ints, (size_t)a->n * sizeof a->ints[0]) == 0);
  }
  return false;
}

static bool fuzz_ids_equal(const int32_t *a, int32_t na, const int32_t *b, int32_t nb) {
  return na == nb && (na == 0 || memcmp(a, b, (size_t)na * sizeof *a) == 0);
}

static bool fuzz_str_equal(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool berth_fuzz_program_equal(const berth_ir_program_t *p, const berth_ir_program_t *q, char *why,
                                     size_t cap) {
#define FUZZ_DIFF(...)                  \
  do {                                  \
    snprintf(why, cap, __VA_ARGS__);    \
    return false;                       \
  } while (0)
  if (p->alloc_inputs != q->alloc_inputs || p->alloc_outputs != q->alloc_outputs) FUZZ_DIFF("program options differ");
  if (p->n_globals != q->n_globals) FUZZ_DIFF("%d vs %d globals", (int)p->n_globals, (int)q->n_globals);
  for (int32_t i = 0; i < p->n_globals; i++) {
    const berth_ir_global_t *a = &p->globals[i], *b = &q->globals[i];
    if (!fuzz_str_equal(a->name, b->name) || a->is_state != b->is_state || !berth_type_equal(&a->type, &b->type))
      FUZZ_DIFF("global %d differs in name, kind or type", (int)i);
    if (memcmp(a->data, b->data, berth_type_bytes(&a->type)) != 0) FUZZ_DIFF("global @%s: data differs", a->name);
  }
  if (p->n_methods != q->n_methods) FUZZ_DIFF("%d vs %d methods", (int)p->n_methods, (int)q->n_methods);
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    const berth_ir_method_t *a = &p->methods[mi], *b = &q->methods[mi];
    if (!fuzz_str_equal(a->name, b->name)) FUZZ_DIFF("method %d: names differ", (int)mi);
    if (a->n_values != b->n_values || a->n_nodes != b->n_nodes || a->n_graphs != b->n_graphs)
      FUZZ_DIFF("@%s: %d/%d/%d vs %d/%d/%d values/nodes/graphs", a->name, (int)a->n_values, (int)a->n_nodes,
                (int)a->n_graphs, (int)b->n_values, (int)b->n_nodes, (int)b->n_graphs);
    for (int32_t v = 0; v < a->n_values; v++) {
      const berth_ir_value_t *x = &a->values[v], *y = &b->values[v];
      if (!fuzz_str_equal(x->name, y->name) || !berth_type_equal(&x->type, &y->type) || x->kind != y->kind ||
          x->graph != y->graph || x->node != y->node || x->index != y->index)
        FUZZ_DIFF("@%s: value %d (%s) differs", a->name, (int)v, x->name);
    }
    for (int32_t n = 0; n < a->n_nodes; n++) {
      const berth_ir_node_t *x = &a->nodes[n], *y = &b->nodes[n];
      if (x->op != y->op || x->graph != y->graph || !fuzz_ids_equal(x->in, x->n_in, y->in, y->n_in) ||
          !fuzz_ids_equal(x->out, x->n_out, y->out, y->n_out) ||
          !fuzz_ids_equal(x->graphs, x->n_graphs, y->graphs, y->n_graphs))
        FUZZ_DIFF("@%s: node %d differs", a->name, (int)n);
      const berth_op_def_t *def = berth_op_get(x->op);
      for (int k = 0; def && k < def->n_attrs; k++)
        if (!fuzz_attr_equal(p, q, &def->attrs[k], &x->attrs[k], &y->attrs[k]))
          FUZZ_DIFF("@%s: node %d attribute %s differs", a->name, (int)n, def->attrs[k].name);
    }
    for (int32_t g = 0; g < a->n_graphs; g++) {
      const berth_ir_graph_t *x = &a->graphs[g], *y = &b->graphs[g];
      if (x->parent_node != y->parent_node || !fuzz_str_equal(x->label, y->label) ||
          !fuzz_ids_equal(x->params, x->n_params, y->params, y->n_params) ||
          !fuzz_ids_equal(x->nodes, x->n_nodes, y->nodes, y->n_nodes) ||
          !fuzz_ids_equal(x->results, x->n_results, y->results, y->n_results))
        FUZZ_DIFF("@%s: graph %d differs", a->name, (int)g);
    }
  }
  return true;
#undef FUZZ_DIFF
}

int berth_fuzz_parse_check(const uint8_t *data, size_t size, char *why, size_t why_cap) {
  char none[1];
  if (!why || !why_cap) why = none, why_cap = sizeof none;
  why[0] = '\0';
  if (!data && size) return snprintf(why, why_cap, "berth_fuzz_parse_check: NULL data"), 100;
  if (!data) data = (const uint8_t *)"";
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL, *q = NULL, *c = NULL;
  char *s1 = NULL, *s2 = NULL, *s3 = NULL;
  int rc = 0;
  if (berth_ir_parse((const char *)data, size, "fuzz", &p, &diag) != BERTH_OK) {
    if (p) {
      snprintf(why, why_cap, "failed parse wrote its output");
      return 1;
    }
    if (!msg[0]) {
      snprintf(why, why_cap, "failed parse gave no message");
      return 2;
    }
    return 0;
  }
  berth_status_t v1 = berth_ir_validate(p, &diag);
  s1 = berth_ir_print(p);
  if (!s1) goto done; /* out of memory */
  diag = berth_diag_make(msg, sizeof msg);
  if (berth_ir_parse(s1, strlen(s1), "reprint", &q, &diag) != BERTH_OK) {
    snprintf(why, why_cap, "the print does not parse: %s\n--- print ---\n%s", msg, s1);
    rc = 3;
    goto done;
  }
  s2 = berth_ir_print(q);
  if (s2 && strcmp(s1, s2) != 0) {
    snprintf(why, why_cap, "print is not a fixed point\n--- first ---\n%s\n--- second ---\n%s", s1, s2);
    rc = 4;
    goto done;
  }
  if (!berth_fuzz_program_equal(p, q, msg, sizeof msg)) {
    snprintf(why, why_cap, "parse(print(p)) != p: %s", msg);
    rc = 5;
    goto done;
  }
  berth_status_t v2 = berth_ir_validate(q, &diag);
  if ((v1 == BERTH_OK) != (v2 == BERTH_OK)) {
    snprintf(why, why_cap, "validation differs after a round trip (%d vs %d): %s", (int)v1, (int)v2, msg);
    rc = 6;
    goto done;
  }
  c = berth_ir_program_clone(p);
  if (c) {
    s3 = berth_ir_print(c);
    if (s3 && strcmp(s1, s3) != 0) {
      snprintf(why, why_cap, "a clone prints differently");
      rc = 7;
      goto done;
    }
  }
done:
  free(s1);
  free(s2);
  free(s3);
  berth_ir_program_destroy(p);
  berth_ir_program_destroy(q);
  berth_ir_program_destroy(c);
  return rc;
}
