/* .onnx programs for the command-line tool: the ONNX import options that every command
 * taking a PROGRAM accepts (main.c takes them out of argv before the command parses the
 * rest) and the import itself. */
#include "onnx/onnx_import.h"
#include "program_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SPECS 64

static struct {
  berth_onnx_input_spec_t specs[MAX_SPECS];
  char names[MAX_SPECS][256];
  int32_t n;
  bool keep_control_flow;
  int64_t max_trip_count;
  int64_t dynamic_bound;
  berth_onnx_state_pair_t states[MAX_SPECS];
  char state_names[MAX_SPECS][2][256];
  int32_t n_states;
} g_onnx;

/* --state IN=OUT */
static int parse_state(const char *v) {
  const char *eq = strchr(v, '=');
  if (!eq || eq == v || !eq[1] || (size_t)(eq - v) >= 256 || strlen(eq + 1) >= 256) {
    fprintf(stderr, "berth: --state '%s': expected INPUT=OUTPUT (a graph input and the output that updates it: state=stateN)\n", v);
    return -1;
  }
  if (g_onnx.n_states == MAX_SPECS) {
    fprintf(stderr, "berth: more than %d --state options\n", MAX_SPECS);
    return -1;
  }
  char(*names)[256] = g_onnx.state_names[g_onnx.n_states];
  memcpy(names[0], v, (size_t)(eq - v));
  names[0][eq - v] = '\0';
  strcpy(names[1], eq + 1);
  g_onnx.states[g_onnx.n_states].input = names[0];
  g_onnx.states[g_onnx.n_states].output = names[1];
  g_onnx.n_states++;
  return 0;
}

/* Values "V,V,..." of a spec's type into a malloc'd buffer. */
static bool parse_values(const char *p, berth_onnx_input_spec_t *spec) {
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = spec->dtype;
  t.rank = spec->rank;
  memcpy(t.dims, spec->dims, sizeof t.dims);
  if (!berth_type_check(&t)) return false;
  int64_t n = berth_type_numel(&t);
  size_t es = berth_dtype_size(t.dtype);
  uint8_t *buf = calloc((size_t)(n ? n : 1), es);
  if (!buf) return false;
  for (int64_t i = 0; i < n; i++) {
    char *end;
    double d = strtod(p, &end);
    if (end == p) {
      free(buf);
      return false;
    }
    void *e = buf + (size_t)i * es;
    switch (t.dtype) {
      case BERTH_DTYPE_F32: *(float *)e = (float)d; break;
      case BERTH_DTYPE_F64: *(double *)e = d; break;
      case BERTH_DTYPE_BOOL: *(uint8_t *)e = d != 0; break;
      default: {
        /* an integer written as one, that fits the dtype: never wrapped or rounded */
        char *iend;
        long long iv = 0;
        unsigned long long uv = 0;
        bool neg = *p == '-';
        errno = 0;
        if (t.dtype == BERTH_DTYPE_U64 && !neg) uv = strtoull(p, &iend, 0);
        else iv = strtoll(p, &iend, 0);
        static const long long lo[] = {[BERTH_DTYPE_I8] = INT8_MIN, [BERTH_DTYPE_I16] = INT16_MIN,
                                       [BERTH_DTYPE_I32] = INT32_MIN, [BERTH_DTYPE_I64] = INT64_MIN};
        static const unsigned long long hi[] = {[BERTH_DTYPE_I8] = INT8_MAX, [BERTH_DTYPE_U8] = UINT8_MAX,
                                                [BERTH_DTYPE_I16] = INT16_MAX, [BERTH_DTYPE_U16] = UINT16_MAX,
                                                [BERTH_DTYPE_I32] = INT32_MAX, [BERTH_DTYPE_U32] = UINT32_MAX,
                                                [BERTH_DTYPE_I64] = INT64_MAX, [BERTH_DTYPE_U64] = UINT64_MAX};
        bool fits = iend == end && errno != ERANGE && (size_t)t.dtype < sizeof hi / sizeof hi[0];
        if (fits && t.dtype == BERTH_DTYPE_U64) fits = !neg;
        else if (fits) fits = iv >= ((size_t)t.dtype < sizeof lo / sizeof lo[0] ? lo[t.dtype] : 0) && (iv < 0 || (unsigned long long)iv <= hi[t.dtype]);
        if (!fits) {
          fprintf(stderr, "berth: --input value '%.*s' is no %s value\n", (int)(end - p), p, berth_dtype_name(t.dtype));
          free(buf);
          return false;
        }
        if (t.dtype == BERTH_DTYPE_U64) memcpy(e, &uv, es);
        else memcpy(e, &iv, es); /* little-endian: the low bytes, which hold it */
        break;
      }
    }
    p = end;
    if (i + 1 < n) {
      if (*p != ',') {
        free(buf);
        return false;
      }
      p++;
    }
  }
  if (*p) {
    free(buf);
    return false;
  }
  spec->value = buf;
  return true;
}

/* NAME:DTYPE[D,D,...] or NAME:DTYPE[D,D,...]=V,V,... (binds the value: a constant) */
static bool parse_spec(const char *s, berth_onnx_input_spec_t *spec, char *name, size_t cap) {
  const char *br = strchr(s, '[');
  const char *colon = NULL;
  for (const char *q = s; br && q < br; q++)
    if (*q == ':') colon = q;
  if (!colon || colon == s || (size_t)(colon - s) >= cap) return false;
  memcpy(name, s, (size_t)(colon - s));
  name[colon - s] = '\0';
  const char *t = colon + 1;
  if (!berth_dtype_from_name(t, (size_t)(br - t), &spec->dtype)) return false;
  const char *p = br + 1;
  spec->rank = 0;
  const char *close;
  if (*p == ']') {
    close = p;
  } else {
    for (;;) {
      char *end;
      long long d = strtoll(p, &end, 10);
      if (end == p || d < 0 || spec->rank == BERTH_MAX_RANK) return false;
      spec->dims[spec->rank++] = d;
      if (*end == ']') {
        close = end;
        break;
      }
      if (*end != ',') return false;
      p = end + 1;
    }
  }
  if (close[1] == '\0') return true;
  return close[1] == '=' && parse_values(close + 2, spec);
}

int berth_tool_onnx_args(int *argc, char **argv) {
  int out = 0;
  for (int i = 0; i < *argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--keep-control-flow") == 0) {
      g_onnx.keep_control_flow = true;
    } else if (strcmp(a, "--state") == 0) {
      if (i + 1 >= *argc) {
        fprintf(stderr, "berth: --state needs a value\n");
        return -1;
      }
      if (parse_state(argv[++i]) != 0) return -1;
    } else if (strcmp(a, "--dynamic-bound") == 0) {
      char *end = NULL;
      long long n = i + 1 < *argc ? strtoll(argv[++i], &end, 10) : 0;
      if (!end || *end || n <= 0) {
        fprintf(stderr, "berth: --dynamic-bound '%s': expected a positive integer\n", end ? argv[i] : "");
        return -1;
      }
      g_onnx.dynamic_bound = n;
    } else if (strcmp(a, "--max-trip-count") == 0 || strcmp(a, "--input") == 0) {
      if (i + 1 >= *argc) {
        fprintf(stderr, "berth: %s needs a value\n", a);
        return -1;
      }
      const char *v = argv[++i];
      if (a[2] == 'm') {
        char *end;
        long long n = strtoll(v, &end, 10);
        if (*end || n <= 0) {
          fprintf(stderr, "berth: --max-trip-count '%s': expected a positive integer\n", v);
          return -1;
        }
        g_onnx.max_trip_count = n;
      } else {
        if (g_onnx.n == MAX_SPECS) {
          fprintf(stderr, "berth: more than %d --input options\n", MAX_SPECS);
          return -1;
        }
        berth_onnx_input_spec_t *s = &g_onnx.specs[g_onnx.n];
        memset(s, 0, sizeof *s);
        if (!parse_spec(v, s, g_onnx.names[g_onnx.n], sizeof g_onnx.names[0])) {
          fprintf(stderr, "berth: --input '%s': expected NAME:DTYPE[DIMS] or NAME:DTYPE[DIMS]=V,... (x:f32[1,512], sr:i64[]=16000)\n", v);
          return -1;
        }
        s->name = g_onnx.names[g_onnx.n++];
      }
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return 0;
}

bool berth_tool_onnx_options_refused(const char *path) {
  if (!g_onnx.n && !g_onnx.n_states && !g_onnx.keep_control_flow && !g_onnx.max_trip_count && !g_onnx.dynamic_bound)
    return false;
  fprintf(stderr, "berth: %s is not an ONNX model: --input, --state, --keep-control-flow, --max-trip-count and "
          "--dynamic-bound apply to ONNX models only\n", path);
  return true;
}

bool berth_tool_is_onnx(const char *path) {
  size_t n = strlen(path);
  if (n > 5 && strcmp(path + n - 5, ".onnx") == 0) return true;
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  int c = fgetc(f);
  fclose(f);
  if (c != 0x08) return false; /* ModelProto field 1 (ir_version), as every exporter writes first */
  size_t len;
  uint8_t *buf = berth_tool_read_file(path, &len);
  bool ok = buf && berth_onnx_is_model(buf, len);
  free(buf);
  return ok;
}

berth_ir_program_t *berth_tool_load_onnx(const char *path) {
  size_t len;
  uint8_t *buf = berth_tool_read_file(path, &len);
  if (!buf) return NULL;
  berth_onnx_options_t opt = berth_onnx_options_default();
  opt.inputs = g_onnx.specs;
  opt.n_inputs = g_onnx.n;
  opt.keep_control_flow = g_onnx.keep_control_flow;
  opt.max_trip_count = g_onnx.max_trip_count;
  opt.dynamic_bound = g_onnx.dynamic_bound;
  opt.states = g_onnx.states;
  opt.n_states = g_onnx.n_states;
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_onnx_info_t info;
  berth_status_t st = berth_onnx_import(buf, len, &opt, &p, &info, &diag);
  free(buf);
  if (st) fprintf(stderr, "berth: %s: %s\n", path, msg);
  berth_onnx_info_deinit(&info);
  return st ? NULL : p;
}
