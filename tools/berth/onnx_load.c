/* .onnx programs for the command-line tool: the ONNX import options that every command
 * taking a PROGRAM accepts (main.c takes them out of argv before the command parses the
 * rest), kept as berth_compile_options_t's strings for berth_source_create. */
#include "program_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SPECS 64

static struct {
  const char *specs[MAX_SPECS]; /* --input values (argv strings) */
  int32_t n;
  bool keep_control_flow;
  bool plain_layout;
  bool direct_3x3;
  int64_t max_trip_count;
  int64_t dynamic_bound;
  const char *states[MAX_SPECS]; /* --state values */
  int32_t n_states;
} g_onnx;

/* --state IN=OUT */
static int parse_state(const char *v) {
  const char *eq = strchr(v, '=');
  if (!eq || eq == v || !eq[1] || (size_t)(eq - v) >= 256 || strlen(eq + 1) >= 256 || strchr(eq + 1, '=')) {
    fprintf(stderr, "berth: --state '%s': expected INPUT=OUTPUT (a graph input and the output that updates it: state=stateN)\n", v);
    return -1;
  }
  if (g_onnx.n_states == MAX_SPECS) {
    fprintf(stderr, "berth: more than %d --state options\n", MAX_SPECS);
    return -1;
  }
  g_onnx.states[g_onnx.n_states++] = v;
  return 0;
}

int berth_tool_onnx_args(int *argc, char **argv) {
  int out = 0;
  for (int i = 0; i < *argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--keep-control-flow") == 0) {
      g_onnx.keep_control_flow = true;
    } else if (strcmp(a, "--plain-layout") == 0) {
      g_onnx.plain_layout = true;
    } else if (strcmp(a, "--direct-3x3") == 0) {
      g_onnx.direct_3x3 = true;
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
        char msg[512];
        berth_diag_t diag = berth_diag_make(msg, sizeof msg);
        if (berth_onnx_input_spec_check(v, &diag)) { /* the compiler's grammar, checked before any load */
          fprintf(stderr, "berth: --input: %s\n", msg);
          return -1;
        }
        g_onnx.specs[g_onnx.n++] = v;
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
  bool ok = buf && berth_source_is_onnx(buf, len);
  free(buf);
  return ok;
}

void berth_tool_onnx_options(berth_compile_options_t *opt) {
  opt->inputs = g_onnx.specs;
  opt->n_inputs = g_onnx.n;
  opt->states = g_onnx.states;
  opt->n_states = g_onnx.n_states;
  opt->keep_control_flow = g_onnx.keep_control_flow;
  opt->max_trip_count = g_onnx.max_trip_count;
  opt->dynamic_bound = g_onnx.dynamic_bound;
  opt->plain_layout = g_onnx.plain_layout;
  opt->direct_3x3 = g_onnx.direct_3x3;
}
