/* berth/testing.h's ONNX backend-test runner (`berth onnx-test`): test folders (model.onnx
 * and test_data_set_N/{input,output}_N.pb) through the importer, the default planner with
 * its verifier, and the planned runtime, compared with the expected outputs as ONNX's runner
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
 * A test_data_set_* without model.onnx, and an input_N.pb with no graph input to bind to, are
 * failures, never skipped. Library code: results go to the caller's callbacks. */
#define _POSIX_C_SOURCE 200809L
#include "berth/testing.h"

#include "berth/compiler.h"
#include "host/session.h"
#include "onnx/onnx_import.h"
#include "plan/plan.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_IO 64

typedef berth_onnx_test_options_t ot_opts_t;
typedef berth_onnx_test_result_t ot_result_t;
#define OT_PASS BERTH_ONNX_TEST_PASS
#define OT_FAIL BERTH_ONNX_TEST_FAIL
#define OT_UNSUPPORTED BERTH_ONNX_TEST_UNSUPPORTED

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
static void data_bind_free_inputs(ot_data_t *d, const berth_onnx_model_info_t *mi) {
  int free_at[MAX_IO], n_free = 0;
  for (int32_t k = 0; k < mi->n_inputs; k++) {
    if (mi->inputs[k].initialized) continue;
    if (n_free == MAX_IO || (int)k >= MAX_IO) return;
    free_at[n_free++] = (int)k;
  }
  if (n_free == (int)mi->n_inputs || d->n_in != n_free) return;
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

/* Imports the model with the set's input shapes; specializes on an input's value when the
 * importer needs it. info is always initialized (deinit it). */
static berth_status_t import_set(const ot_opts_t *o, const berth_onnx_model_t *model, const berth_onnx_model_info_t *mi,
                                 const ot_data_t *d, berth_onnx_input_spec_t *specs, int n_specs, berth_ir_program_t **pp,
                                 berth_onnx_info_t *ip, char *msg, size_t msg_cap) {
  berth_diag_t diag;
  berth_onnx_options_t opt = berth_onnx_options_default();
  opt.inputs = specs;
  opt.n_inputs = n_specs;
  opt.keep_control_flow = o->keep_control_flow;
  opt.max_trip_count = o->max_trip_count;
  opt.dynamic_bound = o->dynamic_bound;
  opt.plain_layout = o->plain_layout;
  opt.direct_3x3 = o->direct_3x3;
  berth_status_t st;
  /* import; specialize on an input's value when the importer needs it */
  for (int attempt = 0;; attempt++) {
    diag = berth_diag_make(msg, msg_cap);
    st = berth_onnx_model_import_ir(model, &opt, pp, ip, &diag);
    if (st == BERTH_OK || !ip->needs_value || attempt > n_specs) break;
    bool bound = false;
    for (int s = 0; s < n_specs; s++)
      if (strcmp(specs[s].name, ip->needs_value) == 0 && !specs[s].value) {
        for (int k = 0; k < d->n_in && k < mi->n_inputs; k++)
          if (d->has_in[k] && mi->inputs[k].name && strcmp(mi->inputs[k].name, specs[s].name) == 0)
            specs[s].value = d->in[k].data;
        bound = specs[s].value != NULL;
      }
    berth_onnx_info_deinit(ip);
    if (!bound) {
      diag = berth_diag_make(msg, msg_cap);
      st = berth_onnx_model_import_ir(model, &opt, pp, ip, &diag);
      break;
    }
  }
  return st;
}

/* Compares the call's outputs (each converted to its expected ONNX element type first)
 * with the set's expected tensors. */
static ot_result_t compare_outputs(const berth_onnx_info_t *ip, const ot_data_t *d, berth_session_t *sess, void **outputs,
                                   char *why, size_t cap) {
  ot_result_t r = OT_PASS;
  for (int k = 0; k < ip->n_outputs && r == OT_PASS; k++) {
    const berth_onnx_io_t *io = &ip->outputs[k];
    const berth_onnx_tensor_t *want = &d->out[io->graph_index];
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
  return r;
}

static ot_result_t run_set(const ot_opts_t *o, const berth_onnx_model_t *model, const char *set, char *why, size_t cap) {
  berth_onnx_model_info_t mi;
  berth_onnx_model_info(model, &mi);
  ot_data_t d;
  memset(&d, 0, sizeof d);
  ot_result_t r = check_set_files(set, mi.n_inputs, why, cap);
  if (r == OT_PASS) r = load_data(set, &d, why, cap);
  if (r != OT_PASS) {
    data_free(&d);
    return r;
  }
  data_bind_free_inputs(&d, &mi);
  berth_onnx_input_spec_t specs[MAX_IO];
  int n_specs = 0;
  for (int k = 0; k < d.n_in && k < mi.n_inputs; k++) {
    if (!d.has_in[k] || !mi.inputs[k].name) continue;
    berth_onnx_input_spec_t *s = &specs[n_specs++];
    memset(s, 0, sizeof *s);
    s->name = mi.inputs[k].name;
    s->dtype = d.in[k].type.dtype;
    s->rank = d.in[k].type.rank;
    memcpy(s->dims, d.in[k].type.dims, sizeof s->dims);
  }
  char msg[2048];
  berth_diag_t diag;
  berth_ir_program_t *p = NULL;
  berth_onnx_info_t info;
  berth_status_t st = import_set(o, model, &mi, &d, specs, n_specs, &p, &info, msg, sizeof msg);
  if (st) {
    snprintf(why, cap, "%s", msg);
    berth_onnx_info_deinit(&info);
    data_free(&d);
    return st == BERTH_ERR_UNIMPLEMENTED ? OT_UNSUPPORTED : OT_FAIL;
  }
  if (o->ir) {
    char *text = berth_ir_print(p);
    if (text) o->ir(o->ctx, text);
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
  r = compare_outputs(&info, &d, sess, outputs, why, cap);
done:
  for (int k = 0; k < MAX_IO; k++) free(outputs[k]);
  berth_session_destroy(sess);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  berth_onnx_info_deinit(&info);
  data_free(&d);
  return r;
}

/* Tells the caller each op type the folder's model uses, with this folder's result. */
static void count_ops(const ot_opts_t *o, const berth_onnx_model_t *model, ot_result_t r) {
  if (!o->op_used) return;
  berth_onnx_model_info_t mi;
  berth_onnx_model_info(model, &mi);
  for (int32_t k = 0; k < mi.n_ops; k++) o->op_used(o->ctx, mi.ops[k].op_type, r, mi.opset, mi.ops[k].input_elems);
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
  berth_onnx_model_t *mod = NULL;
  berth_status_t st = berth_onnx_model_create(model, len, &mod, NULL); /* decoded once for every set and import */
  free(model);
  if (st) {
    snprintf(why, cap, "model.onnx is not a valid ONNX model");
    return OT_FAIL;
  }
  /* sequence, optional and map values are outside berth's model: say so before reading data */
  berth_onnx_model_info_t mi;
  berth_onnx_model_info(mod, &mi);
  for (int io = 0; io < 2; io++) {
    int32_t cnt = io ? mi.n_outputs : mi.n_inputs;
    for (int32_t k = 0; k < cnt; k++) {
      const berth_onnx_model_value_t *v = io ? &mi.outputs[k] : &mi.inputs[k];
      if (v->non_tensor_kind) { /* the importer's own test, the same words */
        snprintf(why, cap, "onnx: graph %s '%s' has %s type; berth supports tensors only", io ? "output" : "input",
                 v->name ? v->name : "", v->non_tensor_kind);
        count_ops(o, mod, OT_UNSUPPORTED);
        berth_onnx_model_destroy(mod);
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
    r = run_set(o, mod, path, why, cap);
  }
  if (names) free_list(names, n);
  if (sets == 0 && r == OT_PASS) {
    snprintf(why, cap, "no test_data_set_* folder");
    r = OT_FAIL;
  }
  count_ops(o, mod, r);
  berth_onnx_model_destroy(mod);
  return r;
}

/* Runs the test folder dir, or those below it (to depth 2); returns how many it found. A
 * folder with test_data_set_* but no model.onnx fails. */
static int run_path(const ot_opts_t *o, const char *dir, int depth) {
  char path[4096];
  if (!fmt_ok(snprintf(path, sizeof path, "%s/model.onnx", dir), sizeof path)) return 0;
  if (is_file(path)) {
    char why[4096] = "";
    if (o->start) o->start(o->ctx, dir);
    ot_result_t r = run_folder(o, dir, why, sizeof why);
    for (char *s = why; *s; s++)
      if (*s == '\n') *s = ' ';
    o->result(o->ctx, dir, r, r == OT_PASS ? "" : why);
    return 1;
  }
  if (!is_dir(dir) || depth > 2) return 0; /* files beside the test folders (MANIFEST.tsv) */
  int n, found = 0;
  char **names = list_dir(dir, &n);
  bool has_sets = false;
  for (int i = 0; i < n; i++) {
    if (!fmt_ok(snprintf(path, sizeof path, "%s/%s", dir, names[i]), sizeof path) || !is_dir(path)) continue;
    if (strncmp(names[i], "test_data_set_", 14) == 0) has_sets = true;
    else found += run_path(o, path, depth + 1);
  }
  if (names) free_list(names, n);
  if (has_sets) { /* a test folder that lost its model */
    o->result(o->ctx, dir, OT_FAIL, "it has test_data_set_* folders but no model.onnx");
    found++;
  }
  return found;
}


int berth_onnx_test_path(const berth_onnx_test_options_t *o, const char *path) {
  if (!o || !o->result || !path) return 0;
  return run_path(o, path, 0);
}

const char *berth_onnx_element_type_name(int32_t elem) { return berth_onnx_elem_name(elem); }
