/* berth onnx-test DIR...: runs ONNX backend-test folders (model.onnx and
 * test_data_set_N/{input,output}_N.pb) through the importer, the default planner with its
 * verifier, and the planned runtime, and compares with the expected outputs as ONNX's runner
 * does (same element type and shape; floats within rtol 1e-3 and atol 1e-7, NaN equal to
 * NaN; everything else exactly).
 *
 * Inputs bind to the graph inputs by position; a graph input with an initializer and no
 * input file takes the initializer. A set with one file per graph input that has no
 * initializer binds them to those in order, as ONNX's runner does (the model zoo's models
 * list their weights as graph inputs too). Shapes come from the input files. When the importer
 * needs an input's value at compile time (a Reshape shape, a Range bound, a trip count),
 * the test specializes the model on the value it is given and imports again.
 *
 * Prints one line per failing or unsupported test, "FAIL <folder>: <reason>" or
 * "UNSUPPORTED <folder>: <reason>", then "N passed, N failed, N unsupported". Exits 1 when
 * a test failed. A folder given that holds no test (no model.onnx in it or two levels
 * down), a test_data_set_* without model.onnx, a .onnx or .pb file given instead of its
 * folder, and an input_N.pb with no graph input to bind to are failures, never skipped
 * (other files given, such as a README that a glob of the folder reaches, are passed over). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "host/session.h"
#include "plan/plan.h"
#include "onnx/onnx.pb-c.h"
#include "onnx/onnx_import.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_IO 64

typedef struct ot_opts {
  bool sanitize, verbose, keep_control_flow, print_ir;
  struct ot_op_table *ops; /* --per-op: counts by op type (NULL: not counted) */
  int64_t max_trip_count;
  int64_t dynamic_bound; /* --dynamic-bound N: data-dependent shapes bounded, not specialized on the input values */
  uint64_t max_steps; /* --max-steps (0: the runtime's default) */
} ot_opts_t;

/* Why a folder is unsupported, from a short fixed list (printed with each UNSUPPORTED line
 * and totalled before the summary). "not implemented" is the catch-all
 * for anything else berth lacks. */
enum {
  OT_WHY_STRING, OT_WHY_SEQUENCE, OT_WHY_DOMAIN, OT_WHY_TRAINING, OT_WHY_RANDOM, OT_WHY_NOT_IMPLEMENTED,
  OT_WHY_COUNT
};
static const char *const k_why_name[OT_WHY_COUNT] = {
    "string tensors", "sequence/optional types", "a foreign domain", "training only", "randomness",
    "not implemented",
};

/* The category of an UNSUPPORTED reason (the importer's one-line message). */
static int why_category(const char *why) {
  static const char *const seq_ops[] = {"Sequence", "SplitToSequence", "ConcatFromSequence", "Optional"};
  static const char *const random_ops[] = {"RandomUniform", "RandomNormal", "Bernoulli", "Multinomial"};
  if (strstr(why, "element type string")) return OT_WHY_STRING;
  if (strstr(why, "sequence type") || strstr(why, "optional type") || strstr(why, "map type")) return OT_WHY_SEQUENCE;
  if (strstr(why, "domain '")) return OT_WHY_DOMAIN;
  if (strstr(why, "training")) return OT_WHY_TRAINING;
  const char *lacks = strstr(why, "this model uses: ");
  if (lacks) {
    lacks += strlen("this model uses: ");
    for (size_t k = 0; k < sizeof seq_ops / sizeof seq_ops[0]; k++)
      if (strncmp(lacks, seq_ops[k], strlen(seq_ops[k])) == 0) return OT_WHY_SEQUENCE;
    for (size_t k = 0; k < sizeof random_ops / sizeof random_ops[0]; k++)
      if (strncmp(lacks, random_ops[k], strlen(random_ops[k])) == 0) return OT_WHY_RANDOM;
  }
  return OT_WHY_NOT_IMPLEMENTED;
}

typedef struct ot_counts {
  int passed, failed, unsupported;
  int by_why[OT_WHY_COUNT]; /* unsupported folders by category */
} ot_counts_t;

typedef enum { OT_PASS, OT_FAIL, OT_UNSUPPORTED } ot_result_t;

/* --per-op: folders by result for every op type (of the default domain) their models use. */
typedef struct ot_op_count {
  char *name;
  int passed, failed, unsupported;
  uint64_t opsets;              /* the models' default-domain opsets over passing folders (bit per opset) */
  uint32_t elems;               /* ONNX element types of its inputs seen in passing folders (bit per type) */
} ot_op_count_t;
struct ot_op_table;
typedef struct ot_op_table {
  ot_op_count_t *rows;
  int n, cap;
} ot_op_table_t;

static void op_count(ot_op_table_t *t, const char *name, int result, int64_t opset, uint32_t elems) {
  int i = 0;
  while (i < t->n && strcmp(t->rows[i].name, name) != 0) i++;
  if (i == t->n) {
    if (t->n == t->cap) {
      int cap = t->cap ? 2 * t->cap : 64;
      ot_op_count_t *r = realloc(t->rows, (size_t)cap * sizeof *r);
      if (!r) return; /* the table is a report: a row lost to memory is not a test failure */
      t->rows = r;
      t->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) return;
    t->rows[t->n++] = (ot_op_count_t){copy, 0, 0, 0, 0, 0};
  }
  if (result == OT_PASS) {
    ot_op_count_t *row = &t->rows[i];
    if (opset >= 1 && opset < 64) row->opsets |= (uint64_t)1 << opset;
    row->elems |= elems;
  }
  int *slot = result == OT_PASS ? &t->rows[i].passed : result == OT_FAIL ? &t->rows[i].failed : &t->rows[i].unsupported;
  (*slot)++;
}

/* The ONNX element types of node nd's inputs that are inputs or initializers of the model's
 * top graph g0 (a bit per type). */
static uint32_t node_elems(const Onnx__GraphProto *g0, const Onnx__NodeProto *nd) {
  uint32_t m = 0;
  for (size_t i = 0; i < nd->n_input; i++) {
    const char *x = nd->input[i];
    if (!x || !x[0]) continue;
    for (size_t k = 0; k < g0->n_input; k++) {
      const Onnx__ValueInfoProto *vi = g0->input[k];
      if (vi && vi->name && strcmp(vi->name, x) == 0 && vi->type && vi->type->tensor_type &&
          vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && vi->type->tensor_type->elem_type > 0 &&
          vi->type->tensor_type->elem_type < 32)
        m |= 1u << vi->type->tensor_type->elem_type;
    }
    for (size_t k = 0; k < g0->n_initializer; k++) {
      const Onnx__TensorProto *tp = g0->initializer[k];
      if (tp && tp->name && strcmp(tp->name, x) == 0 && tp->data_type > 0 && tp->data_type < 32) m |= 1u << tp->data_type;
    }
  }
  return m;
}

/* Counts each op type of graph g (and of its sub-graphs) once for this folder's result. */
static void op_count_graph(ot_op_table_t *t, const Onnx__GraphProto *g0, const Onnx__GraphProto *g, int64_t opset,
                           int result, char **seen, int *n_seen, int cap) {
  for (size_t k = 0; g && k < g->n_node; k++) {
    const Onnx__NodeProto *nd = g->node[k];
    const char *dom = nd->domain ? nd->domain : "";
    const char *ty = nd->op_type ? nd->op_type : "";
    if ((!dom[0] || strcmp(dom, "ai.onnx") == 0) && ty[0]) {
      bool dup = false;
      for (int s = 0; s < *n_seen && !dup; s++) dup = strcmp(seen[s], ty) == 0;
      if (!dup && *n_seen < cap) {
        seen[(*n_seen)++] = (char *)ty;
        op_count(t, ty, result, opset, node_elems(g0, nd));
      }
    }
    for (size_t a = 0; a < nd->n_attribute; a++) {
      op_count_graph(t, g0, nd->attribute[a]->g, opset, result, seen, n_seen, cap);
      for (size_t j = 0; j < nd->attribute[a]->n_graphs; j++)
        op_count_graph(t, g0, nd->attribute[a]->graphs[j], opset, result, seen, n_seen, cap);
    }
  }
}

static int op_row_cmp(const void *a, const void *b) {
  return strcmp(((const ot_op_count_t *)a)->name, ((const ot_op_count_t *)b)->name);
}

/* The opsets of a bit set as ranges, "6-7,13" ("-" for none). */
static void opset_ranges(uint64_t set, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int o = 1; o < 64; o++) {
    if (!(set >> o & 1) || (set >> (o - 1) & 1)) continue; /* o starts a run */
    int end = o;
    while (end + 1 < 64 && (set >> (end + 1) & 1)) end++;
    int w = snprintf(buf + n, cap - n, end == o ? "%s%d" : "%s%d-%d", n ? "," : "", o, end);
    if (w < 0 || (size_t)w >= cap - n) break;
    n += (size_t)w;
  }
  if (!n) snprintf(buf, cap, "-");
}

static void op_table_print(ot_op_table_t *t) {
  if (t->n) qsort(t->rows, (size_t)t->n, sizeof *t->rows, op_row_cmp);
  printf("%-28s %7s %7s %12s  %-7s %s\n", "op", "passed", "failed", "unsupported", "opsets", "input types (passing)");
  for (int i = 0; i < t->n; i++) {
    const ot_op_count_t *r = &t->rows[i];
    char opsets[192];
    opset_ranges(r->opsets, opsets, sizeof opsets);
    printf("%-28s %7d %7d %12d  %-7s", r->name, r->passed, r->failed, r->unsupported, opsets);
    for (int e = 1, first = 1; e < 32; e++)
      if (r->elems & (1u << e)) {
        printf("%s%s", first ? " " : ",", berth_onnx_elem_name(e));
        first = 0;
      }
    printf("\n");
    free(t->rows[i].name);
  }
  free(t->rows);
}


/* snprintf that reports truncation (a path too long is a failure, not a silent cut). */
static bool fmt_ok(int rc, size_t cap) { return rc >= 0 && (size_t)rc < cap; }

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    char *nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  if (buf && ferror(f)) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

static bool is_dir(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool is_file(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted names in dir (without . entries); the caller frees. */
static char **list_dir(const char *dir, int *n) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  int cap = 16;
  char **names = malloc(sizeof *names * (size_t)cap);
  for (struct dirent *e = readdir(d); e && names; e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    if (*n == cap) {
      char **nn = realloc(names, sizeof *names * (size_t)(cap * 2));
      if (!nn) break;
      names = nn;
      cap *= 2;
    }
    names[*n] = strdup(e->d_name);
    if (names[*n]) (*n)++;
  }
  closedir(d);
  if (names) qsort(names, (size_t)*n, sizeof *names, cmp_str);
  return names;
}

static void free_list(char **l, int n) {
  for (int i = 0; i < n; i++) free(l[i]);
  free(l);
}

static const char *base_name(const char *p) {
  size_t n = strlen(p);
  while (n > 1 && p[n - 1] == '/') n--;
  const char *s = p + n;
  while (s > p && s[-1] != '/') s--;
  static char buf[512];
  size_t len = (size_t)(p + n - s);
  if (len >= sizeof buf) len = sizeof buf - 1;
  memcpy(buf, s, len);
  buf[len] = '\0';
  return buf;
}

/* ---- comparison ------------------------------------------------------------------------ */

static double ld(berth_dtype_t dt, const void *p, int64_t i) {
  switch (dt) {
    case BERTH_DTYPE_F32: return ((const float *)p)[i];
    case BERTH_DTYPE_F64: return ((const double *)p)[i];
    default: return 0;
  }
}

/* One unit in the last place of narrow element type elem at x (ONNX element type numbers:
 * float16, bfloat16, the float8 and float4 types), or 0 for another type. */
static double narrow_ulp(int32_t elem, double x) {
  int mbits, emin;
  switch (elem) {
    case 10: mbits = 10, emin = -14; break;          /* FLOAT16 */
    case 16: mbits = 7, emin = -126; break;          /* BFLOAT16 */
    case 17: case 18: mbits = 3, emin = -6; break;   /* FLOAT8E4M3FN(UZ) */
    case 19: case 20: mbits = 2, emin = -14; break;  /* FLOAT8E5M2(FNUZ) */
    case 23: mbits = 1, emin = 0; break;             /* FLOAT4E2M1 */
    default: return 0;
  }
  int e = 0;
  (void)frexp(fabs(x), &e); /* |x| = m 2^e, m in [0.5, 1): the leading bit is 2^(e-1) */
  int lead = x == 0 || e - 1 < emin ? emin : e - 1;
  return ldexp(1.0, lead - mbits);
}

/* Compares an output (already in the expected element type's compute dtype) with the
 * expected tensor; writes the first difference into why. Floats match within a relative
 * 1e-3 (absolute 1e-7) as ONNX's runner does. Those of a narrow type (float16, ...) hold
 * few values, so they must also be the expected value or one of its neighbours (one unit
 * in the last place): a graph computed node by node in float16 may round differently from
 * a reference computed in float64 and rounded once, but a missing rounding is caught. */
static bool compare(const berth_onnx_tensor_t *want, const berth_type_t *got_t, const void *got, char *why, size_t cap) {
  char a[160], b[160];
  if (!berth_type_equal(&want->type, got_t)) {
    snprintf(why, cap, "expected %s %s, got %s", berth_onnx_elem_name(want->elem), berth_type_format(&want->type, a, sizeof a),
             berth_type_format(got_t, b, sizeof b));
    return false;
  }
  int64_t n = berth_type_numel(got_t);
  if (berth_dtype_is_float(got_t->dtype)) {
    bool narrow = berth_onnx_elem_is_narrow(want->elem);
    for (int64_t i = 0; i < n; i++) {
      double w = ld(got_t->dtype, want->data, i), g = ld(got_t->dtype, got, i);
      if (isnan(w) && isnan(g)) continue;
      if (w == g) continue;
      bool ok = fabs(g - w) <= 1e-7 + 1e-3 * fabs(w);
      if (ok && narrow) {
        double u = narrow_ulp(want->elem, fabs(g) > fabs(w) ? g : w);
        ok = u > 0 && fabs(g - w) <= u;
      }
      if (!ok) {
        snprintf(why, cap, "element %lld: expected %.9g, got %.9g%s", (long long)i, w, g,
                 narrow ? " (more than one unit in the last place of the narrow type)" : "");
        return false;
      }
    }
    return true;
  }
  size_t es = berth_dtype_size(got_t->dtype);
  for (int64_t i = 0; i < n; i++) {
    if (memcmp((const char *)want->data + i * (int64_t)es, (const char *)got + i * (int64_t)es, es) != 0) {
      long long w = 0, g = 0;
      memcpy(&w, (const char *)want->data + i * (int64_t)es, es < 8 ? es : 8);
      memcpy(&g, (const char *)got + i * (int64_t)es, es < 8 ? es : 8);
      snprintf(why, cap, "element %lld differs (bits %llx expected, %llx got)", (long long)i, (unsigned long long)w,
               (unsigned long long)g);
      return false;
    }
  }
  return true;
}

/* ---- one test folder ------------------------------------------------------------------- */


typedef struct ot_data {
  int n_in, n_out;
  berth_onnx_tensor_t in[MAX_IO], out[MAX_IO];
  bool has_in[MAX_IO];
} ot_data_t;

static void data_free(ot_data_t *d) {
  for (int i = 0; i < MAX_IO; i++) {
    berth_onnx_tensor_deinit(&d->in[i]);
    berth_onnx_tensor_deinit(&d->out[i]);
  }
}

/* Every input_N.pb / output_N.pb of a set must be read: one past what the model takes (or
 * past MAX_IO) is an error, never ignored. */
static ot_result_t check_set_files(const char *set, int n_graph_inputs, char *why, size_t cap) {
  int n;
  char **names = list_dir(set, &n);
  ot_result_t r = OT_PASS;
  for (int i = 0; i < n && r == OT_PASS; i++) {
    int k = -1, end = 0;
    bool in = sscanf(names[i], "input_%d.pb%n", &k, &end) == 1 && end > 0 && names[i][end] == '\0';
    bool out = !in && sscanf(names[i], "output_%d.pb%n", &k, &end) == 1 && end > 0 && names[i][end] == '\0';
    if (!in && !out) continue;
    if (k < 0 || k >= MAX_IO) {
      snprintf(why, cap, "%s: berth's onnx-test reads files numbered 0 to %d", names[i], MAX_IO - 1);
      r = OT_FAIL;
    } else if (in && k >= n_graph_inputs) {
      snprintf(why, cap, "%s has no graph input to bind to (the model has %d)", names[i], n_graph_inputs);
      r = OT_FAIL;
    }
  }
  if (names) free_list(names, n);
  return r;
}

static ot_result_t load_data(const char *set, ot_data_t *d, char *why, size_t cap) {
  memset(d, 0, sizeof *d);
  char path[4096], msg[512];
  for (int k = 0; k < MAX_IO; k++) {
    for (int io = 0; io < 2; io++) {
      if (!fmt_ok(snprintf(path, sizeof path, "%s/%s_%d.pb", set, io ? "output" : "input", k), sizeof path) ||
          !is_file(path))
        continue;
      size_t len;
      char *bytes = read_all(path, &len);
      if (!bytes) {
        if (!fmt_ok(snprintf(why, cap, "cannot read %s", path), cap)) why[0] = '\0';
        return OT_FAIL;
      }
      berth_diag_t diag = berth_diag_make(msg, sizeof msg);
      berth_status_t st = berth_onnx_tensor_parse(bytes, len, io ? &d->out[k] : &d->in[k], &diag);
      free(bytes);
      if (st) {
        snprintf(why, cap, "%s_%d.pb: %s", io ? "output" : "input", k, msg);
        return st == BERTH_ERR_UNIMPLEMENTED ? OT_UNSUPPORTED : OT_FAIL;
      }
      if (io) d->n_out = k + 1;
      else {
        d->has_in[k] = true;
        d->n_in = k + 1;
      }
    }
  }
  return OT_PASS;
}

/* Older models (the model zoo's) list their weights among the graph inputs, with
 * initializers, and their sets hold files for the other inputs only: ONNX's runner feeds
 * input_k to the k-th graph input without an initializer. When the files are exactly those,
 * they move to those graph inputs' positions. */
static void data_bind_free_inputs(ot_data_t *d, const Onnx__GraphProto *g) {
  int free_at[MAX_IO], n_free = 0;
  for (size_t k = 0; k < g->n_input; k++) {
    const char *name = g->input[k] && g->input[k]->name ? g->input[k]->name : "";
    bool init = false;
    for (size_t i = 0; i < g->n_initializer && !init; i++)
      init = g->initializer[i] && g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0;
    if (init) continue;
    if (n_free == MAX_IO || (int)k >= MAX_IO) return;
    free_at[n_free++] = (int)k;
  }
  if (n_free == (int)g->n_input || d->n_in != n_free) return;
  for (int k = 0; k < d->n_in; k++)
    if (!d->has_in[k]) return;
  for (int k = d->n_in - 1; k >= 0; k--) { /* free_at[k] >= k: from the top, nothing is overwritten */
    if (free_at[k] == k) continue;
    d->in[free_at[k]] = d->in[k];
    d->has_in[free_at[k]] = true;
    memset(&d->in[k], 0, sizeof d->in[k]);
    d->has_in[k] = false;
  }
  d->n_in = free_at[n_free - 1] + 1;
}

static ot_result_t run_set(const ot_opts_t *o, const char *model, size_t model_len, const Onnx__ModelProto *mp,
                           const char *set, char *why, size_t cap) {
  ot_data_t d;
  memset(&d, 0, sizeof d);
  ot_result_t r = check_set_files(set, (int)mp->graph->n_input, why, cap);
  if (r == OT_PASS) r = load_data(set, &d, why, cap);
  if (r != OT_PASS) {
    data_free(&d);
    return r;
  }
  const Onnx__GraphProto *g = mp->graph;
  data_bind_free_inputs(&d, g);
  berth_onnx_input_spec_t specs[MAX_IO];
  int n_specs = 0;
  for (int k = 0; k < d.n_in && k < (int)g->n_input; k++) {
    if (!d.has_in[k] || !g->input[k] || !g->input[k]->name) continue;
    berth_onnx_input_spec_t *s = &specs[n_specs++];
    memset(s, 0, sizeof *s);
    s->name = g->input[k]->name;
    s->dtype = d.in[k].type.dtype;
    s->rank = d.in[k].type.rank;
    memcpy(s->dims, d.in[k].type.dims, sizeof s->dims);
  }
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_onnx_options_t opt = berth_onnx_options_default();
  opt.inputs = specs;
  opt.n_inputs = n_specs;
  opt.keep_control_flow = o->keep_control_flow;
  opt.max_trip_count = o->max_trip_count;
  opt.dynamic_bound = o->dynamic_bound;
  berth_ir_program_t *p = NULL;
  berth_onnx_info_t info;
  berth_status_t st;
  /* import; specialize on an input's value when the importer needs it */
  for (int attempt = 0;; attempt++) {
    diag = berth_diag_make(msg, sizeof msg);
    st = berth_onnx_import(model, model_len, &opt, &p, &info, &diag);
    if (st == BERTH_OK || !info.needs_value || attempt > n_specs) break;
    bool bound = false;
    for (int s = 0; s < n_specs; s++)
      if (strcmp(specs[s].name, info.needs_value) == 0 && !specs[s].value) {
        for (int k = 0; k < d.n_in && k < (int)g->n_input; k++)
          if (d.has_in[k] && g->input[k] && g->input[k]->name && strcmp(g->input[k]->name, specs[s].name) == 0)
            specs[s].value = d.in[k].data;
        bound = specs[s].value != NULL;
      }
    berth_onnx_info_deinit(&info);
    if (!bound) {
      diag = berth_diag_make(msg, sizeof msg);
      st = berth_onnx_import(model, model_len, &opt, &p, &info, &diag);
      break;
    }
  }
  if (st) {
    snprintf(why, cap, "%s", msg);
    berth_onnx_info_deinit(&info);
    data_free(&d);
    return st == BERTH_ERR_UNIMPLEMENTED ? OT_UNSUPPORTED : OT_FAIL;
  }
  if (o->print_ir) {
    char *text = berth_ir_print(p);
    if (text) fprintf(stderr, "%s\n", text);
    free(text);
  }
  r = OT_PASS;
  berth_plan_options_t popt = berth_plan_options_default();
  berth_compiled_t *c = NULL;
  berth_session_t *sess = NULL;
  const void *inputs[MAX_IO];
  void *outputs[MAX_IO] = {0};
  diag = berth_diag_make(msg, sizeof msg);
  st = berth_plan_compile(p, &popt, &c, &diag);
  if (st) {
    snprintf(why, cap, "plan: %s", msg);
    r = st == BERTH_ERR_UNIMPLEMENTED ? OT_UNSUPPORTED : OT_FAIL;
    goto done;
  }
  st = berth_session_create(&c->exec, o->sanitize, &sess, &diag);
  if (st) {
    snprintf(why, cap, "session: %s", msg);
    r = OT_FAIL;
    goto done;
  }
  berth_session_set_max_steps(sess, o->max_steps);
  if (info.n_inputs > MAX_IO || info.n_outputs > MAX_IO) {
    snprintf(why, cap, "too many inputs or outputs");
    r = OT_UNSUPPORTED;
    goto done;
  }
  for (int k = 0; k < info.n_inputs; k++) {
    int gi = info.inputs[k].graph_index;
    if (gi >= d.n_in || !d.has_in[gi]) {
      snprintf(why, cap, "no input file for graph input %d '%s'", gi, info.inputs[k].name);
      r = OT_FAIL;
      goto done;
    }
    inputs[k] = d.in[gi].data;
  }
  st = berth_session_call(sess, 0, inputs, outputs, &diag);
  if (st) {
    snprintf(why, cap, "run: %s", msg);
    r = OT_FAIL;
    goto done;
  }
  if (info.n_outputs != d.n_out) {
    snprintf(why, cap, "the model has %d outputs but the test expects %d", info.n_outputs, d.n_out);
    r = OT_FAIL;
    goto done;
  }
  for (int k = 0; k < info.n_outputs && r == OT_PASS; k++) {
    const berth_onnx_io_t *io = &info.outputs[k];
    const berth_onnx_tensor_t *want = &d.out[io->graph_index];
    char reason[512];
    if (want->elem != io->elem) {
      snprintf(why, cap, "output %d '%s': expected element type %s, got %s", k, io->name, berth_onnx_elem_name(want->elem),
               berth_onnx_elem_name(io->elem));
      r = OT_FAIL;
      break;
    }
    berth_dtype_t cdt;
    berth_onnx_elem_dtype(io->elem, &cdt);
    berth_type_t gt = io->type;
    berth_diag_t sd = berth_diag_make(reason, sizeof reason);
    if (berth_session_output_shape(sess, 0, k, &gt, &sd) != BERTH_OK) { /* a bounded output's real extent */
      snprintf(why, cap, "output %d '%s': no shape after the call: %s", k, io->name, reason);
      r = OT_FAIL;
      break;
    }
    gt.dtype = cdt;
    /* a result of a narrow type (float16, int4, ...) already holds values of that type, so it
     * is compared as it is (no rounding here that could hide a missing one in the program) */
    void *conv = NULL;
    if (io->type.dtype != cdt) {
      size_t bytes = berth_type_bytes(&gt);
      conv = malloc(bytes ? bytes : 1);
      if (!conv) {
        snprintf(why, cap, "out of memory");
        r = OT_FAIL;
        break;
      }
      berth_onnx_convert_to_elem(io->type.dtype, outputs[k], io->elem, 1, BERTH_ONNX_ROUND_UP, conv,
                                 berth_type_numel(&gt));
    }
    if (!compare(want, &gt, conv ? conv : outputs[k], reason, sizeof reason)) {
      snprintf(why, cap, "output %d '%s': %s", k, io->name, reason);
      r = OT_FAIL;
    }
    free(conv);
  }
done:
  for (int k = 0; k < MAX_IO; k++) free(outputs[k]);
  berth_session_destroy(sess);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  berth_onnx_info_deinit(&info);
  data_free(&d);
  return r;
}

static void count_ops(const ot_opts_t *o, const Onnx__ModelProto *mp, ot_result_t r) {
  if (!o->ops) return;
  char *seen[512];
  int n_seen = 0;
  int64_t opset = 0;
  for (size_t k = 0; k < mp->n_opset_import; k++) {
    const char *dom = mp->opset_import[k]->domain ? mp->opset_import[k]->domain : "";
    if (!dom[0] || strcmp(dom, "ai.onnx") == 0) opset = mp->opset_import[k]->version;
  }
  op_count_graph(o->ops, mp->graph, mp->graph, opset, r, seen, &n_seen, 512);
}

static ot_result_t run_folder(const ot_opts_t *o, const char *dir, char *why, size_t cap) {
  char path[4096];
  if (!fmt_ok(snprintf(path, sizeof path, "%s/model.onnx", dir), sizeof path)) {
    snprintf(why, cap, "path too long");
    return OT_FAIL;
  }
  size_t len;
  char *model = read_all(path, &len);
  if (!model) {
    if (!fmt_ok(snprintf(why, cap, "cannot read %s: %s", path, strerror(errno)), cap)) why[0] = '\0';
    return OT_FAIL;
  }
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  Onnx__ModelProto *mp = NULL;
  if (berth_onnx_is_model(model, len)) mp = onnx__model_proto__unpack(NULL, len, (const uint8_t *)model);
  if (!mp) {
    (void)diag;
    snprintf(why, cap, "model.onnx is not a valid ONNX model");
    free(model);
    return OT_FAIL;
  }
  /* sequence, optional and map values are outside berth's model: say so before reading data */
  for (int io = 0; io < 2; io++) {
    size_t cnt = io ? mp->graph->n_output : mp->graph->n_input;
    for (size_t k = 0; k < cnt; k++) {
      const Onnx__ValueInfoProto *vi = io ? mp->graph->output[k] : mp->graph->input[k];
      const char *kind = !vi || !vi->type ? NULL
                         : vi->type->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ? "a sequence"
                         : vi->type->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE ? "an optional"
                         : vi->type->value_case == ONNX__TYPE_PROTO__VALUE_MAP_TYPE     ? "a map"
                                                                                         : NULL;
      if (kind) {
        snprintf(why, cap, "onnx: graph %s '%s' has %s type; berth supports tensors only", io ? "output" : "input",
                 vi->name ? vi->name : "", kind);
        count_ops(o, mp, OT_UNSUPPORTED);
        onnx__model_proto__free_unpacked(mp, NULL);
        free(model);
        return OT_UNSUPPORTED;
      }
    }
  }
  int n;
  char **names = list_dir(dir, &n);
  ot_result_t r = OT_PASS;
  int sets = 0;
  for (int i = 0; i < n && r == OT_PASS; i++) {
    if (strncmp(names[i], "test_data_set_", 14) != 0) continue;
    if (!fmt_ok(snprintf(path, sizeof path, "%s/%s", dir, names[i]), sizeof path) || !is_dir(path)) continue;
    sets++;
    r = run_set(o, model, len, mp, path, why, cap);
  }
  if (names) free_list(names, n);
  if (sets == 0 && r == OT_PASS) {
    snprintf(why, cap, "no test_data_set_* folder");
    r = OT_FAIL;
  }
  count_ops(o, mp, r);
  onnx__model_proto__free_unpacked(mp, NULL);
  free(model);
  return r;
}

/* Runs the test folder dir, or those below it (to depth 2); returns how many it found. A
 * folder with test_data_set_* but no model.onnx fails. */
static int run_path(const ot_opts_t *o, const char *dir, ot_counts_t *c, int depth) {
  char path[4096];
  if (!fmt_ok(snprintf(path, sizeof path, "%s/model.onnx", dir), sizeof path)) return 0;
  if (is_file(path)) {
    char why[4096] = "";
    berth_cli_progress(false, "onnx-test: %d passed, %d failed, %d unsupported; %s", c->passed, c->failed,
                       c->unsupported, base_name(dir));
    ot_result_t r = run_folder(o, dir, why, sizeof why);
    if (r != OT_PASS || o->verbose) berth_cli_progress_end();
    for (char *s = why; *s; s++)
      if (*s == '\n') *s = ' ';
    if (r == OT_PASS) {
      c->passed++;
      if (o->verbose) printf("PASS %s\n", base_name(dir));
    } else if (r == OT_FAIL) {
      c->failed++;
      printf("FAIL %s: %s\n", base_name(dir), why);
    } else {
      c->unsupported++;
      int cat = why_category(why);
      c->by_why[cat]++;
      printf("UNSUPPORTED %s: %s [%s]\n", base_name(dir), why, k_why_name[cat]);
    }
    fflush(stdout);
    return 1;
  }
  if (!is_dir(dir) || depth > 2) return 0; /* files beside the test folders (MANIFEST.tsv) */
  int n, found = 0;
  char **names = list_dir(dir, &n);
  bool has_sets = false;
  for (int i = 0; i < n; i++) {
    if (!fmt_ok(snprintf(path, sizeof path, "%s/%s", dir, names[i]), sizeof path) || !is_dir(path)) continue;
    if (strncmp(names[i], "test_data_set_", 14) == 0) has_sets = true;
    else found += run_path(o, path, c, depth + 1);
  }
  if (names) free_list(names, n);
  if (has_sets) { /* a test folder that lost its model */
    berth_cli_progress_end();
    printf("FAIL %s: it has test_data_set_* folders but no model.onnx\n", base_name(dir));
    fflush(stdout);
    c->failed++;
    found++;
  }
  return found;
}

int berth_cmd_onnx_test(int argc, char **argv) {
  ot_opts_t o;
  memset(&o, 0, sizeof o);
  ot_op_table_t op_table = {NULL, 0, 0};
  int n_dirs = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--sanitize") == 0) o.sanitize = true;
    else if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) o.verbose = true;
    else if (strcmp(argv[i], "--print-ir") == 0) o.print_ir = true;
    else if (strcmp(argv[i], "--per-op") == 0) o.ops = &op_table;
    else if (strcmp(argv[i], "--keep-control-flow") == 0) o.keep_control_flow = true;
    else if (strcmp(argv[i], "--max-trip-count") == 0 && i + 1 < argc) o.max_trip_count = strtoll(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--dynamic-bound") == 0) {
      char *end = NULL;
      o.dynamic_bound = i + 1 < argc ? strtoll(argv[++i], &end, 10) : 0;
      if (!end || *end || o.dynamic_bound <= 0) {
        fprintf(stderr, "berth onnx-test: --dynamic-bound expects a positive integer\n");
        return 2;
      }
    }
    else if (strcmp(argv[i], "--max-steps") == 0) {
      if (berth_cli_max_steps_option(argc, argv, &i, &o.max_steps) < 0) return 2;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "berth onnx-test: unknown option %s\n", argv[i]);
      return 2;
    } else n_dirs++;
  }
  if (n_dirs == 0) {
    fprintf(stderr, "usage: berth onnx-test [--sanitize] [--keep-control-flow] [--max-trip-count N] [--dynamic-bound N] [--max-steps N] [-v] [--per-op] [--print-ir] DIR...\n");
    return 2;
  }
  ot_counts_t c;
  memset(&c, 0, sizeof c);
  for (int i = 0; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1]) {
      if (strcmp(argv[i], "--max-trip-count") == 0 || strcmp(argv[i], "--max-steps") == 0 ||
          strcmp(argv[i], "--dynamic-bound") == 0)
        i++;
      continue;
    }
    if (!is_dir(argv[i])) {
      /* files beside test folders (a glob of a folder reaches README.md, MANIFEST.tsv) are passed over,
       * a model or tensor file is a mistake */
      size_t len = strlen(argv[i]);
      bool model = (len >= 5 && strcmp(argv[i] + len - 5, ".onnx") == 0) || (len >= 3 && strcmp(argv[i] + len - 3, ".pb") == 0);
      if (is_file(argv[i]) && !model) continue;
      berth_cli_progress_end();
      printf("FAIL %s: %s\n", base_name(argv[i]),
             is_file(argv[i]) ? "not a folder (give the test folder that holds model.onnx)" : "no such folder");
      c.failed++;
      continue;
    }
    if (run_path(&o, argv[i], &c, 0) == 0) {
      berth_cli_progress_end();
      printf("FAIL %s: no model.onnx in it or in its sub-folders (two levels down)\n", base_name(argv[i]));
      c.failed++;
    }
  }
  berth_cli_progress_end();
  if (o.ops) op_table_print(o.ops);
  if (c.unsupported) {
    printf("unsupported by reason:");
    for (int w = 0, first = 1; w < OT_WHY_COUNT; w++)
      if (c.by_why[w]) {
        printf("%s %s %d", first ? "" : ",", k_why_name[w], c.by_why[w]);
        first = 0;
      }
    printf("\n");
  }
  printf("%d passed, %d failed, %d unsupported\n", c.passed, c.failed, c.unsupported);
  return c.failed ? 1 : 0;
}
