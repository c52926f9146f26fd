/* The public compiler API (berth/compiler.h): source -> IR (text parser or ONNX importer)
 * -> planner -> program file, checked by loading it as the runtime would. */
#include "berth/compiler.h"

#include "berth/runtime.h"
#include "base/try.h"
#include "compiler_internal.h"
#include "format/read_program.h"
#include "writer/ir_section.h"
#include "writer/write_program.h"
#include "ir/ir.h"
#include "onnx/onnx_import.h"
#include "plan/plan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(BERTH_SUMMARY_MAX_POOLS == BERTH_MAX_POOLS, "the summary holds every pool");
_Static_assert((int)BERTH_PLAN_STORAGE_ARENA == (int)BERTH_STORAGE_ARENA &&
                   (int)BERTH_PLAN_STORAGE_CONST == (int)BERTH_STORAGE_CONST &&
                   (int)BERTH_PLAN_STORAGE_STATE == (int)BERTH_STORAGE_STATE &&
                   (int)BERTH_PLAN_STORAGE_INPUT == (int)BERTH_STORAGE_INPUT &&
                   (int)BERTH_PLAN_STORAGE_OUTPUT == (int)BERTH_STORAGE_OUTPUT &&
                   (int)BERTH_PLAN_STORAGE_HOIST == (int)BERTH_STORAGE_HOIST,
               "the public storage classes are the program file's");

/* The plan of every value of one method (berth_compilation_value). */
typedef struct method_values {
  int32_t n;
  berth_plan_value_t *values;
  berth_plan_hop_t *hops; /* berth_plan_summary_t.n_hops */
  int64_t (*ivs)[2]; /* every value's lifetime intervals, value by value */
  char *names;       /* value names, NUL-separated */
} method_values_t;

struct berth_source {
  berth_ir_program_t *ir;
};

struct berth_compilation {
  berth_compiled_t *cp; /* the plan itself (the host runner executes its exec program) */
  uint8_t *bytes;
  size_t len;
  int32_t n_methods;
  berth_plan_summary_t *summaries;
  method_values_t *values; /* one per method */
  char *names; /* method names, NUL-separated */
};

const char *berth_version(void) { return BERTH_VERSION_STRING; }

berth_compile_options_t berth_compile_options_default(void) {
  berth_compile_options_t o;
  memset(&o, 0, sizeof o);
  o.algo = "greedy";
  o.strategy = "global";
  o.alloc_inputs = -1;
  o.alloc_outputs = -1;
  o.verify = true;
  o.store_ir = true;
  o.views = true;
  o.concat_in_place = 1;
  o.hoist = true;
  o.hoist_min_bytes = 4096;
  return o;
}

/* ---- ONNX input specs ----------------------------------------------------------------- */

/* One value of dtype d from text at *p (advancing it); false if it is not a number of the
 * dtype or lies outside its range. Integers are exact (no float detour); floats must be
 * finite in the dtype unless written as nan/inf. */
static bool parse_value(const char **p, berth_dtype_t d, void *e) {
  const char *s = *p;
  char *end;
  if (*s == ' ' || (*s >= '\t' && *s <= '\r')) return false; /* strto* would skip it, and " -1" as u64 wrap */
  errno = 0;
  if (berth_dtype_is_float(d)) {
    double v = strtod(s, &end);
    if (end == s) return false;
    bool special = isnan(v) || isinf(v);
    if (d == BERTH_DTYPE_F32) {
      if (!special && (errno == ERANGE ? fabs(v) > 1 : fabs(v) > 3.4028234663852886e38)) return false;
      float f = (float)v;
      memcpy(e, &f, sizeof f);
    } else {
      if (!special && errno == ERANGE && fabs(v) > 1) return false;
      memcpy(e, &v, sizeof v);
    }
  } else if (d == BERTH_DTYPE_BOOL) {
    if (strncmp(s, "true", 4) == 0) *(uint8_t *)e = 1, end = (char *)s + 4;
    else if (strncmp(s, "false", 5) == 0) *(uint8_t *)e = 0, end = (char *)s + 5;
    else if (*s == '0' || *s == '1') *(uint8_t *)e = (uint8_t)(*s - '0'), end = (char *)s + 1;
    else return false;
  } else if (berth_dtype_is_signed_int(d)) {
    long long v = strtoll(s, &end, 10);
    if (end == s || errno == ERANGE) return false;
    size_t es = berth_dtype_size(d);
    long long lo = es == 8 ? INT64_MIN : -(1LL << (8 * es - 1)), hi = es == 8 ? INT64_MAX : (1LL << (8 * es - 1)) - 1;
    if (v < lo || v > hi) return false;
    if (es == 1) *(int8_t *)e = (int8_t)v;
    else if (es == 2) *(int16_t *)e = (int16_t)v;
    else if (es == 4) *(int32_t *)e = (int32_t)v;
    else *(int64_t *)e = (int64_t)v;
  } else {
    if (*s == '-') return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno == ERANGE) return false;
    size_t es = berth_dtype_size(d);
    if (es < 8 && v > (1ULL << (8 * es)) - 1) return false;
    if (es == 1) *(uint8_t *)e = (uint8_t)v;
    else if (es == 2) *(uint16_t *)e = (uint16_t)v;
    else if (es == 4) *(uint32_t *)e = (uint32_t)v;
    else *(uint64_t *)e = (uint64_t)v;
  }
  if (*end && *end != ',') return false; /* "2.5" is no integer, "1x" no number */
  *p = end;
  return true;
}

/* "NAME:DTYPE[D,...]" or "NAME:DTYPE[D,...]=V,...". spec->name and spec->value are malloc'd
 * (free them with spec_free) on success. */
static berth_status_t parse_spec(const char *s, berth_onnx_input_spec_t *spec, berth_diag_t *diag) {
  memset(spec, 0, sizeof *spec);
  const char *br = strchr(s, '['), *colon = NULL;
  for (const char *q = s; br && q < br; q++)
    if (*q == ':') colon = q;
  const char *want = "expected NAME:DTYPE[DIMS] or NAME:DTYPE[DIMS]=V,... (x:f32[1,512], sr:i64[]=16000)";
  if (!colon || colon == s) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec '%s': %s", s, want);
  if (!berth_dtype_from_name(colon + 1, (size_t)(br - colon - 1), &spec->dtype)) {
    char dt[16];
    size_t n = (size_t)(br - colon - 1) < sizeof dt - 1 ? (size_t)(br - colon - 1) : sizeof dt - 1;
    memcpy(dt, colon + 1, n);
    dt[n] = '\0';
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec '%s': unknown dtype '%s' (f32, f64, i64, bool, ...)", s, dt);
  }
  const char *p = br + 1;
  while (*p != ']') {
    if (spec->rank == BERTH_MAX_RANK)
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "input spec '%s': more than %d dims", s, BERTH_MAX_RANK);
    char *end;
    errno = 0;
    long long d = strtoll(p, &end, 10);
    if (end == p || *p < '0' || *p > '9' || errno == ERANGE || d < 0 || d > BERTH_MAX_DIM)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec '%s': dim %d is not an integer in [0, %lld]", s,
                        (int)spec->rank, (long long)BERTH_MAX_DIM);
    spec->dims[spec->rank++] = d;
    p = end;
    if (*p == ',') p++;
    else if (*p != ']') return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec '%s': %s", s, want);
  }
  berth_type_t t = {spec->dtype, spec->rank, {0}};
  memcpy(t.dims, spec->dims, sizeof t.dims);
  if (!berth_type_check(&t)) return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "input spec '%s': the tensor is too large", s);
  if (p[1] != '\0' && p[1] != '=') return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec '%s': %s", s, want);
  char *name = malloc((size_t)(colon - s) + 1);
  if (!name) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  memcpy(name, s, (size_t)(colon - s));
  name[colon - s] = '\0';
  spec->name = name;
  if (p[1] == '\0') return BERTH_OK;
  int64_t n = berth_type_numel(&t);
  size_t es = berth_dtype_size(t.dtype);
  uint8_t *buf = calloc((size_t)(n ? n : 1), es);
  if (!buf) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  spec->value = buf;
  p += 2;
  for (int64_t i = 0; i < n; i++) {
    if (!parse_value(&p, t.dtype, buf + (size_t)i * es)) {
      char v[64]; /* the value as written (berth_fail has no %.*s) */
      size_t vl = strcspn(p, ",") < sizeof v - 1 ? strcspn(p, ",") : sizeof v - 1;
      memcpy(v, p, vl);
      v[vl] = '\0';
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec '%s': value %lld is not a %s ('%s')", s, (long long)i,
                        berth_dtype_name(t.dtype), v);
    }
    if (i + 1 < n && *p++ != ',')
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec '%s': %lld values needed, separated by ','", s,
                        (long long)n);
  }
  if (*p) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec '%s': more than %lld values", s, (long long)n);
  return BERTH_OK;
}

static void specs_free(berth_onnx_input_spec_t *specs, int32_t n) {
  for (int32_t i = 0; specs && i < n; i++) {
    free((void *)specs[i].name);
    free((void *)specs[i].value);
  }
  free(specs);
}

/* berth_compile_options_t's ONNX fields as the importer's options (the strings parsed). */
typedef struct onnx_opts {
  berth_onnx_options_t o;
  berth_onnx_input_spec_t *specs;
  int32_t n_specs;
  berth_onnx_state_pair_t *pairs;
  char **names; /* opt->n_states copies "IN\0OUT" */
  int32_t n_names;
} onnx_opts_t;

static void onnx_opts_free(onnx_opts_t *oo) {
  for (int32_t k = 0; oo->names && k < oo->n_names; k++) free(oo->names[k]);
  free(oo->names);
  free(oo->pairs);
  if (oo->specs) specs_free(oo->specs, oo->n_specs);
  memset(oo, 0, sizeof *oo);
}

static berth_status_t state_pairs_make(const berth_compile_options_t *opt, onnx_opts_t *oo, berth_diag_t *diag) {
  oo->pairs = calloc((size_t)opt->n_states + 1, sizeof *oo->pairs);
  oo->names = calloc((size_t)opt->n_states + 1, sizeof *oo->names);
  oo->n_names = opt->n_states;
  if (!oo->pairs || !oo->names) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t k = 0; k < opt->n_states; k++) {
    const char *s = opt->states[k], *eq = s ? strchr(s, '=') : NULL;
    if (!eq || eq == s || !eq[1] || strchr(eq + 1, '='))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "state pair '%s': expected INPUT=OUTPUT (state=stateN)",
                        s ? s : "(null)");
    if (!(oo->names[k] = malloc(strlen(s) + 1))) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    memcpy(oo->names[k], s, strlen(s) + 1);
    oo->names[k][eq - s] = '\0';
    oo->pairs[k].input = oo->names[k];
    oo->pairs[k].output = oo->names[k] + (eq - s) + 1;
  }
  return BERTH_OK;
}

/* Checks and converts opt's ONNX fields into *oo (free it with onnx_opts_free, also after a
 * failure). */
static berth_status_t onnx_opts_make(const berth_compile_options_t *opt, onnx_opts_t *oo, berth_diag_t *diag) {
  memset(oo, 0, sizeof *oo);
  if (opt->n_inputs < 0 || (opt->n_inputs > 0 && !opt->inputs))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "n_inputs %d without inputs", (int)opt->n_inputs);
  if (opt->n_states < 0 || (opt->n_states > 0 && !opt->states))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "n_states %d without states", (int)opt->n_states);
  if (opt->max_trip_count < 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "max_trip_count %lld is negative", (long long)opt->max_trip_count);
  if (opt->dynamic_bound < 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "dynamic_bound %lld is negative", (long long)opt->dynamic_bound);
  oo->specs = calloc((size_t)opt->n_inputs + 1, sizeof *oo->specs);
  if (!oo->specs) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_status_t st = BERTH_OK;
  for (int32_t n = 0; n < opt->n_inputs && !st; n++) {
    st = opt->inputs[n] ? parse_spec(opt->inputs[n], &oo->specs[n], diag)
                        : berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec %d is NULL", (int)n);
    oo->n_specs = n + 1;
    for (int32_t k = 0; k < n && !st; k++)
      if (strcmp(oo->specs[k].name, oo->specs[n].name) == 0)
        st = berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input '%s' is specified twice", oo->specs[n].name);
  }
  if (!st) st = state_pairs_make(opt, oo, diag);
  if (st) return st;
  oo->o = berth_onnx_options_default();
  oo->o.inputs = oo->specs;
  oo->o.n_inputs = oo->n_specs;
  oo->o.states = oo->pairs;
  oo->o.n_states = opt->n_states;
  oo->o.keep_control_flow = opt->keep_control_flow;
  oo->o.max_trip_count = opt->max_trip_count;
  oo->o.dynamic_bound = opt->dynamic_bound;
  oo->o.plain_layout = opt->plain_layout;
  oo->o.direct_3x3 = opt->direct_3x3;
  return BERTH_OK;
}

/* Imports the ONNX model in src: m is that model decoded already (berth_compile's content
 * test), or NULL to decode it here; a model file is decoded once, and m is destroyed here. */
static berth_status_t import_onnx(const void *src, size_t len, berth_onnx_model_t *m, const berth_compile_options_t *opt,
                                  berth_ir_program_t **out, berth_diag_t *diag) {
  onnx_opts_t oo;
  berth_status_t st = onnx_opts_make(opt, &oo, diag);
  if (!st && !m) st = berth_onnx_model_create(src, len, &m, diag);
  if (!st) st = berth_onnx_model_import_ir_once(m, &oo.o, out, NULL, diag);
  onnx_opts_free(&oo);
  berth_onnx_model_destroy(m);
  return st;
}

/* ---- compile ------------------------------------------------------------------------ */

static berth_status_t plan_options(const berth_compile_options_t *o, berth_plan_options_t *p, berth_diag_t *diag) {
  *p = berth_plan_options_default();
  if (o->algo && !berth_alloc_algo_from_name(o->algo, &p->algo))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unknown algorithm '%s' (naive, greedy, search, exact)", o->algo);
  if (o->strategy && !berth_strategy_from_name(o->strategy, &p->strategy))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unknown strategy '%s' (global, regions)", o->strategy);
  if (o->budget_ms < 0) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "budget_ms %lld is negative", (long long)o->budget_ms);
  if (o->budget_ms) p->budget_ms = o->budget_ms;
  if (o->budget_work < 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "budget_work %lld is negative", (long long)o->budget_work);
  p->budget_work = o->budget_work;
  if (o->alignment) {
    if (o->alignment > 4096 || (o->alignment & (o->alignment - 1)))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "alignment %u is not a power of two up to 4096", o->alignment);
    p->alignment = o->alignment;
  }
  if (o->alloc_inputs < -1 || o->alloc_inputs > 1 || o->alloc_outputs < -1 || o->alloc_outputs > 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "alloc_inputs and alloc_outputs take -1, 0 or 1");
  if (o->pools) BERTH_TRY(berth_plan_pools_check(o->pools, diag));
  p->pools = o->pools;
  p->views = o->views;
  if (o->concat_in_place < 0 || o->concat_in_place > 2)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "concat_in_place %d: 0 (copy), 1 (auto) or 2 (always)",
                      o->concat_in_place);
  p->concat_in_place = (berth_concat_mode_t)o->concat_in_place;
  if (o->hoist_min_bytes < 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "hoist_min_bytes %lld is negative", (long long)o->hoist_min_bytes);
  p->hoist = o->hoist;
  p->hoist_min_bytes = (uint64_t)o->hoist_min_bytes;
  p->alloc_inputs = o->alloc_inputs;
  p->alloc_outputs = o->alloc_outputs;
  p->verify = o->verify;
  return BERTH_OK;
}

static bool onnx_options_given(const berth_compile_options_t *opt) {
  return opt->n_inputs || opt->n_states || opt->keep_control_flow || opt->max_trip_count || opt->dynamic_bound;
}

/* Re-fails with "NAME: message" (the messages of berth_source_create name the source). */
static berth_status_t named(berth_status_t st, const char *name, const char *msg, berth_diag_t *diag) {
  return st ? berth_fail(diag, st, "%s: %s", name, msg) : BERTH_OK;
}

static berth_status_t parse_text(const void *src, size_t len, const char *name, bool prefixed, berth_ir_program_t **out,
                                 berth_diag_t *diag) {
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_status_t st = berth_ir_parse(src, len, name, out, diag); /* the parser's messages name the file */
  if (!st && (st = berth_ir_validate(*out, prefixed ? &d : diag))) {
    berth_ir_program_destroy(*out);
    *out = NULL;
    if (prefixed) named(st, name, msg, diag);
  }
  return st;
}

/* The IR section of a .berth file, after loading it as `berth dis` would (verified). */
static berth_status_t program_file_ir(const void *src, size_t len, const char *name, berth_ir_program_t **out,
                                      berth_diag_t *diag) {
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  void *mem = NULL;
  const berth_format_program_t *prog = NULL;
  berth_status_t st = berth_compiler_load_file(src, len, true, &mem, &prog, &d);
  if (st) {
    free(mem);
    return named(st, name, msg, diag);
  }
  if (!prog->ir) {
    free(mem);
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "%s has no IR source section (it was compiled with --no-ir); berth dis shows its plan", name);
  }
  char pools[1024];
  berth_ir_program_t *p = NULL;
  st = berth_ir_section_program(prog, name, NULL, pools, sizeof pools, &p, &d); /* text and ir_ref sections */
  if (!st) st = berth_ir_validate(p, &d);
  free(mem);
  if (st) {
    berth_ir_program_destroy(p);
    if (strncmp(msg, name, strlen(name)) == 0) return berth_fail(diag, st, "%s", msg); /* the parser names the file */
    return named(st, name, msg, diag);
  }
  *out = p;
  return BERTH_OK;
}

/* The validated IR of src. prefixed: messages of the import, the validator and the loader
 * start with the source's name (berth_source_create); else as berth_compile has always
 * said them. */
static berth_status_t source_ir(const void *src, size_t len, const char *name, berth_source_kind_t kind,
                                const berth_compile_options_t *opt, bool prefixed, berth_ir_program_t **out,
                                berth_diag_t *diag) {
  berth_onnx_model_t *model = NULL; /* the content test's decoding, imported: a model file is decoded once */
  if (kind == BERTH_SOURCE_AUTO) {
    if (berth_program_is_berth(src, len))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s is a compiled program file (.berth), not a source", name);
    kind = len && berth_onnx_model_create(src, len, &model, NULL) == BERTH_OK ? BERTH_SOURCE_ONNX : BERTH_SOURCE_TEXT;
  }
  if (kind == BERTH_SOURCE_ONNX) {
    if (!prefixed) return import_onnx(src, len, model, opt, out, diag);
    char msg[2048];
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    return named(import_onnx(src, len, model, opt, out, &d), name, msg, diag);
  }
  if (onnx_options_given(opt))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s is not an ONNX model: inputs, states, keep_control_flow, "
                      "max_trip_count and dynamic_bound apply to ONNX models only", name);
  if (kind == BERTH_SOURCE_PROGRAM_FILE) return program_file_ir(src, len, name, out, diag);
  if (kind != BERTH_SOURCE_TEXT) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "unknown source kind %d", (int)kind);
  if (!prefixed && memchr(src, '\0', len)) /* the tool's own files: the parser says where */
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s is neither an ONNX model nor berth's text IR (it holds a NUL byte)", name);
  return parse_text(src, len, name, prefixed, out, diag);
}

/* Loads the bytes as the runtime will, so that with verify on a file the loader rejects is
 * never returned (with verify off the file is returned unchecked: the loader verifies every
 * plan and may refuse it). */
static berth_status_t load_check(const uint8_t *bytes, size_t len, berth_diag_t *diag) {
  berth_program_sizes_t sz;
  berth_status_t st = berth_program_query(bytes, len, &sz, diag);
  if (st) return st;
  void *mem = malloc(sz.program_bytes ? sz.program_bytes : 1), *scratch = malloc(sz.scratch_bytes ? sz.scratch_bytes : 1);
  berth_program_t *prog;
  st = mem && scratch ? berth_program_load(bytes, len, mem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, diag)
                      : berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  free(mem);
  free(scratch);
  return st;
}

/* The plan of every value of method m (its exec values, with the report's lifetimes) into
 * out, which owns copies of the names and intervals. */
static berth_status_t method_values(const berth_compiled_t *cp, int32_t m, method_values_t *out, berth_diag_t *diag) {
  const berth_exec_method_t *em = &cp->exec.methods[m];
  const berth_plan_method_report_t *r = &cp->reports[m];
  size_t names = 0, n_ivs = 0;
  for (int32_t v = 0; v < em->n_values; v++) {
    names += strlen(em->values[v].name ? em->values[v].name : "") + 1;
    if (r->n_ivs) n_ivs += (size_t)r->n_ivs[v];
  }
  out->n = em->n_values;
  out->values = calloc((size_t)em->n_values + 1, sizeof *out->values);
  out->ivs = malloc((n_ivs + 1) * sizeof *out->ivs);
  out->names = malloc(names + 1);
  out->hops = calloc((size_t)r->n_hops + 1, sizeof *out->hops);
  if (!out->values || !out->ivs || !out->names || !out->hops)
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t k = 0; k < r->n_hops; k++) {
    const struct berth_plan_hop_span *h = &r->hops[k];
    out->hops[k] = (berth_plan_hop_t){h->kind, h->depth, h->ts, h->te, h->split};
  }
  char *at = out->names;
  size_t iv_at = 0;
  for (int32_t v = 0; v < em->n_values; v++) {
    const berth_exec_value_t *x = &em->values[v];
    berth_plan_value_t *pv = &out->values[v];
    size_t l = strlen(x->name ? x->name : "") + 1;
    memcpy(at, x->name ? x->name : "", l);
    pv->name = at;
    at += l;
    pv->type = x->type;
    pv->storage = (berth_plan_storage_t)x->storage;
    pv->pool = x->storage == BERTH_STORAGE_ARENA ? (int32_t)x->pool : 0;
    pv->index = x->storage == BERTH_STORAGE_INPUT || x->storage == BERTH_STORAGE_OUTPUT ? (int32_t)x->index : 0;
    pv->offset = x->offset;
    pv->bytes = berth_type_bytes(&x->type);
    pv->window_of = x->window_parent;
    pv->depth = r->depth ? r->depth[v] : 0;
    pv->n_intervals = r->n_ivs ? r->n_ivs[v] : 0;
    pv->intervals = pv->n_intervals ? (const int64_t(*)[2])&out->ivs[iv_at] : NULL;
    for (int32_t i = 0; i < pv->n_intervals; i++, iv_at++) {
      out->ivs[iv_at][0] = r->ivs[r->iv_first[v] + i][0];
      out->ivs[iv_at][1] = r->ivs[r->iv_first[v] + i][1];
    }
  }
  return BERTH_OK;
}

static berth_status_t summarize(const berth_compiled_t *cp, berth_compilation_t *c, berth_diag_t *diag) {
  int32_t n = cp->exec.n_methods;
  size_t names = 0;
  for (int32_t m = 0; m < n; m++) names += strlen(cp->exec.methods[m].name) + 1;
  c->summaries = calloc((size_t)n + 1, sizeof *c->summaries);
  c->values = calloc((size_t)n + 1, sizeof *c->values);
  c->names = malloc(names + 1);
  if (!c->summaries || !c->values || !c->names) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  c->n_methods = n; /* from here on berth_compilation_destroy frees every method's values */
  char *at = c->names;
  for (int32_t m = 0; m < n; m++) {
    const berth_plan_method_report_t *r = &cp->reports[m];
    berth_plan_summary_t *s = &c->summaries[m];
    size_t l = strlen(cp->exec.methods[m].name) + 1;
    memcpy(at, cp->exec.methods[m].name, l);
    s->method = at;
    at += l;
    s->n_values = r->n_values;
    s->copies = r->copies;
    s->coalesced = r->coalesced;
    s->views = r->views;
    s->concats_in_place = r->concats_in_place;
    s->hoisted = r->hoisted;
    s->hoist_bytes = r->hoist_bytes;
    s->state_bytes = r->state_bytes;
    s->state_in_place = r->state_in_place;
    s->n_pools = r->n_pools;
    for (int32_t k = 0; k < r->n_pools; k++) {
      s->arena_bytes[k] = r->pools[k].arena_bytes;
      s->lower_bound_bytes[k] = r->pools[k].lower_bound_bytes;
      s->buffers[k] = r->pools[k].n_buffers;
    }
    s->verified = r->verified;
    s->n_scratch = r->n_scratch;
    s->scratch_bytes = r->scratch_bytes;
    s->timeline_positions = r->n_positions;
    s->time_ms = r->time_ms;
    s->n_hops = r->n_hops;
    BERTH_TRY(method_values(cp, m, &c->values[m], diag));
  }
  return BERTH_OK;
}

/* Plans ir and writes the program file into a new compilation. */
static berth_status_t compile_ir(const berth_ir_program_t *ir, const berth_compile_options_t *opt,
                                 berth_compilation_t **out, berth_diag_t *diag) {
  berth_plan_options_t popt;
  BERTH_TRY(plan_options(opt, &popt, diag));
  berth_compilation_t *c = calloc(1, sizeof *c);
  if (!c) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_status_t st = berth_plan_compile(ir, &popt, &c->cp, diag);
  if (!st) {
    berth_format_write_options_t wo = berth_format_write_options_default();
    wo.ir = ir;
    wo.store_ir = opt->store_ir;
    wo.plan = &popt;
    st = berth_format_write(&c->cp->exec, &wo, &c->bytes, &c->len, diag);
  }
  if (!st && popt.verify) st = load_check(c->bytes, c->len, diag); /* unverified plans: the loader would refuse them */
  if (!st) st = summarize(c->cp, c, diag);
  if (st) {
    berth_compilation_destroy(c);
    return st;
  }
  *out = c;
  return BERTH_OK;
}

berth_status_t berth_compile(const void *source, size_t len, const char *source_name,
                             const berth_compile_options_t *opt, berth_compilation_t **out, berth_diag_t *diag) {
  if (!source || !opt || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_compile: NULL argument");
  const char *name = source_name ? source_name : "<source>";
  berth_plan_options_t popt;
  BERTH_TRY(plan_options(opt, &popt, diag)); /* a bad option before any work */
  berth_ir_program_t *ir = NULL;
  BERTH_TRY(source_ir(source, len, name, BERTH_SOURCE_AUTO, opt, false, &ir, diag));
  berth_status_t st = compile_ir(ir, opt, out, diag);
  berth_ir_program_destroy(ir);
  return st;
}

berth_status_t berth_compile_source(const berth_source_t *s, const berth_compile_options_t *opt,
                                    berth_compilation_t **out, berth_diag_t *diag) {
  if (!s || !opt || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_compile_source: NULL argument");
  return compile_ir(s->ir, opt, out, diag);
}

berth_status_t berth_compile_options_check(const berth_compile_options_t *opt, berth_diag_t *diag) {
  if (!opt) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_compile_options_check: NULL options");
  berth_plan_options_t popt;
  return plan_options(opt, &popt, diag);
}

berth_status_t berth_onnx_input_spec_check(const char *spec, berth_diag_t *diag) {
  if (!spec) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "input spec is NULL");
  berth_onnx_input_spec_t sp;
  berth_status_t st = parse_spec(spec, &sp, diag);
  free((void *)sp.name);
  free((void *)sp.value);
  return st;
}

/* ---- sources -------------------------------------------------------------------------- */

berth_status_t berth_onnx_model_import(const berth_onnx_model_t *m, const berth_compile_options_t *opt,
                                       berth_source_t **out, berth_diag_t *diag) {
  if (!m || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_onnx_model_import: NULL argument");
  berth_compile_options_t dflt = berth_compile_options_default();
  onnx_opts_t oo;
  berth_source_t *s = NULL;
  berth_status_t st = onnx_opts_make(opt ? opt : &dflt, &oo, diag);
  if (!st && !(s = calloc(1, sizeof *s))) st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (!st) st = berth_onnx_model_import_ir(m, &oo.o, &s->ir, NULL, diag);
  onnx_opts_free(&oo);
  if (st) {
    free(s);
    return st;
  }
  *out = s;
  return BERTH_OK;
}

bool berth_source_is_onnx(const void *bytes, size_t len) { return bytes && berth_onnx_is_model(bytes, len); }

berth_status_t berth_source_create(const void *bytes, size_t len, const char *source_name, berth_source_kind_t kind,
                                   const berth_compile_options_t *opt, berth_source_t **out, berth_diag_t *diag) {
  if (!bytes || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_source_create: NULL argument");
  berth_compile_options_t dflt = berth_compile_options_default();
  berth_source_t *s = calloc(1, sizeof *s);
  if (!s) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_status_t st = source_ir(bytes, len, source_name ? source_name : "<source>", kind, opt ? opt : &dflt, true, &s->ir, diag);
  if (st) {
    free(s);
    return st;
  }
  *out = s;
  return BERTH_OK;
}

void berth_source_destroy(berth_source_t *s) {
  if (!s) return;
  berth_ir_program_destroy(s->ir);
  free(s);
}

char *berth_source_print(const berth_source_t *s) { return s ? berth_ir_print(s->ir) : NULL; }

int32_t berth_source_method_count(const berth_source_t *s) { return s ? s->ir->n_methods : 0; }

const char *berth_source_method_name(const berth_source_t *s, int32_t method) {
  return s && method >= 0 && method < s->ir->n_methods ? s->ir->methods[method].name : NULL;
}

int32_t berth_source_method_find(const berth_source_t *s, const char *name) {
  return s && name ? berth_ir_method_find(s->ir, name) : -1;
}

/* The body graph of method, or NULL. */
static const berth_ir_graph_t *source_body(const berth_source_t *s, int32_t method) {
  if (!s || method < 0 || method >= s->ir->n_methods) return NULL;
  const berth_ir_method_t *m = &s->ir->methods[method];
  return &m->graphs[m->body];
}

int32_t berth_source_input_count(const berth_source_t *s, int32_t method) {
  const berth_ir_graph_t *g = source_body(s, method);
  return g ? g->n_params : 0;
}

int32_t berth_source_output_count(const berth_source_t *s, int32_t method) {
  const berth_ir_graph_t *g = source_body(s, method);
  return g ? g->n_results : 0;
}

/* Parameter (results false) or result k of method. */
static berth_status_t source_io(const berth_source_t *s, int32_t method, int32_t k, bool results, const char **name,
                                berth_type_t *type, berth_diag_t *diag) {
  const berth_ir_graph_t *g = source_body(s, method);
  int32_t n = g ? (results ? g->n_results : g->n_params) : 0;
  if (!g || k < 0 || k >= n)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_source_%s: no method %d or no %s %d", results ? "output" : "input",
                      (int)method, results ? "result" : "parameter", (int)k);
  const berth_ir_value_t *v = &s->ir->methods[method].values[results ? g->results[k] : g->params[k]];
  if (name) *name = v->name;
  if (type) *type = v->type;
  return BERTH_OK;
}

berth_status_t berth_source_input(const berth_source_t *s, int32_t method, int32_t k, const char **name,
                                  berth_type_t *type, berth_diag_t *diag) {
  return source_io(s, method, k, false, name, type, diag);
}

berth_status_t berth_source_output(const berth_source_t *s, int32_t method, int32_t k, const char **name,
                                   berth_type_t *type, berth_diag_t *diag) {
  return source_io(s, method, k, true, name, type, diag);
}

const berth_ir_program_t *berth_source_ir(const berth_source_t *s) { return s ? s->ir : NULL; }

const berth_exec_program_t *berth_compilation_exec(const berth_compilation_t *c) { return c ? &c->cp->exec : NULL; }

void berth_compilation_totals(const berth_compilation_t *c, uint64_t *arena_bytes, uint64_t *state_bytes,
                              uint64_t *constant_bytes) {
  uint64_t arena = 0, state = 0;
  const berth_exec_program_t *x = c ? &c->cp->exec : NULL;
  for (int32_t mi = 0; x && mi < x->n_methods; mi++) {
    for (int32_t k = 0; k < x->methods[mi].n_pools; k++) arena += x->methods[mi].pool_sizes[k];
    state += x->methods[mi].state_size;
  }
  if (arena_bytes) *arena_bytes = arena;
  if (state_bytes) *state_bytes = state;
  if (constant_bytes) *constant_bytes = x ? x->constants_size : 0;
}

berth_plan_handover_t berth_compilation_value_handover(const berth_compilation_t *c, int32_t method, int32_t k) {
  if (!c || method < 0 || method >= c->n_methods) return BERTH_PLAN_HANDOVER_NONE;
  const berth_exec_method_t *m = &c->cp->exec.methods[method];
  berth_plan_handover_t how = BERTH_PLAN_HANDOVER_NONE;
  for (int32_t i = 0; k >= 0 && k < m->n_values && i < m->n_instrs; i++) {
    const berth_instr_t *in = &m->instrs[i];
    if ((in->opcode == BERTH_I_COPY || in->opcode == BERTH_I_RENAME) && m->operands[in->operands + 1] == k)
      how = in->opcode == BERTH_I_COPY ? BERTH_PLAN_HANDOVER_COPY : BERTH_PLAN_HANDOVER_IN_PLACE;
  }
  return how;
}

void berth_compilation_destroy(berth_compilation_t *c) {
  if (!c) return;
  berth_compiled_destroy(c->cp);
  free(c->bytes);
  for (int32_t m = 0; c->values && m < c->n_methods; m++) {
    free(c->values[m].values);
    free(c->values[m].ivs);
    free(c->values[m].names);
    free(c->values[m].hops);
  }
  free(c->values);
  free(c->summaries);
  free(c->names);
  free(c);
}

const uint8_t *berth_compilation_bytes(const berth_compilation_t *c, size_t *len) {
  if (len) *len = c ? c->len : 0;
  return c ? c->bytes : NULL;
}

int32_t berth_compilation_method_count(const berth_compilation_t *c) { return c ? c->n_methods : 0; }

/* c, out and method checked for the berth_compilation_* getters named fn. */
static berth_status_t check_method(const berth_compilation_t *c, int32_t method, const void *out, const char *fn,
                                   berth_diag_t *diag) {
  if (!c || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, c ? "out" : "the compilation");
  if (method < 0 || method >= c->n_methods)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: no method %d (%d methods)", fn, (int)method, (int)c->n_methods);
  return BERTH_OK;
}

berth_status_t berth_compilation_summary(const berth_compilation_t *c, int32_t method, berth_plan_summary_t *out,
                                         berth_diag_t *diag) {
  BERTH_TRY(check_method(c, method, out, "berth_compilation_summary", diag));
  *out = c->summaries[method];
  return BERTH_OK;
}

const char *berth_plan_storage_name(berth_plan_storage_t s) {
  switch (s) {
    case BERTH_PLAN_STORAGE_ARENA: return "arena";
    case BERTH_PLAN_STORAGE_CONST: return "const";
    case BERTH_PLAN_STORAGE_STATE: return "state";
    case BERTH_PLAN_STORAGE_INPUT: return "input";
    case BERTH_PLAN_STORAGE_OUTPUT: return "output";
    case BERTH_PLAN_STORAGE_HOIST: return "hoist";
  }
  return "?";
}

int32_t berth_compilation_value_count(const berth_compilation_t *c, int32_t method) {
  return c && method >= 0 && method < c->n_methods ? c->values[method].n : 0;
}

berth_status_t berth_compilation_value(const berth_compilation_t *c, int32_t method, int32_t k, berth_plan_value_t *out,
                                       berth_diag_t *diag) {
  BERTH_TRY(check_method(c, method, out, "berth_compilation_value", diag));
  const method_values_t *mv = &c->values[method];
  if (k < 0 || k >= mv->n)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_compilation_value: method %s has no value %d (%d values)",
                      c->summaries[method].method, (int)k, (int)mv->n);
  *out = mv->values[k];
  return BERTH_OK;
}

berth_status_t berth_compilation_hop(const berth_compilation_t *c, int32_t method, int32_t k, berth_plan_hop_t *out,
                                     berth_diag_t *diag) {
  BERTH_TRY(check_method(c, method, out, "berth_compilation_hop", diag));
  if (k < 0 || k >= c->summaries[method].n_hops)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_compilation_hop: method %s has no HOP %d (%d HOPs)",
                      c->summaries[method].method, (int)k, (int)c->summaries[method].n_hops);
  *out = c->values[method].hops[k];
  return BERTH_OK;
}

/* ---- the ONNX op list ------------------------------------------------------------------ */

int32_t berth_onnx_op_count(void) { return berth_onnx_import_op_count(); }

const char *berth_onnx_op_name(int32_t k, const char **family) { return berth_onnx_import_op_name(k, family); }

berth_status_t berth_onnx_op_info(int32_t k, berth_onnx_op_info_t *info) {
  if (!info) return BERTH_ERR_INVALID_ARGUMENT;
  berth_onnx_op_info_t r;
  int32_t counts[3];
  memset(&r, 0, sizeof r);
  r.name = berth_onnx_import_op_name(k, &r.family);
  if (!r.name || !berth_onnx_import_op_support(k, &r.opsets, &r.input_types, counts)) return BERTH_ERR_OUT_OF_RANGE;
  r.suite_passed = counts[0];
  r.suite_failed = counts[1];
  r.suite_unsupported = counts[2];
  *info = r;
  return BERTH_OK;
}
