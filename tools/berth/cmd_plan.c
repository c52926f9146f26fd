/* berth plan: memory plan reports, the side-by-side algorithm table, JSON and SVG. */
#include "cli.h"

/* The version of `berth plan --json`'s document (docs/json.md); bump it on any change
 * that removes or renames a field or changes a meaning. */
#define BERTH_PLAN_JSON_VERSION 2
#include "plan_svg.h"
#include "program_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sum(const uint64_t *v, int32_t n) {
  uint64_t a = 0;
  for (int32_t p = 0; p < n; p++) a += v[p];
  return a;
}

/* One method's values as `berth plan --json` lists them. */
static void print_values_json(const berth_compilation_t *c, int32_t mi) {
  for (int32_t v = 0, n = berth_compilation_value_count(c, mi); v < n; v++) {
    berth_plan_value_t x;
    if (berth_compilation_value(c, mi, v, &x, NULL)) continue;
    printf("%s{\"id\":%d,\"name\":", v ? "," : "", (int)v);
    berth_cli_json_string(stdout, x.name);
    printf(",\"dtype\":\"%s\",\"shape\":[", berth_dtype_name(x.type.dtype));
    for (int32_t d = 0; d < x.type.rank; d++) printf("%s%lld", d ? "," : "", (long long)x.type.dims[d]);
    printf("],\"storage\":\"%s\",\"pool\":%u,\"offset\":%llu,\"bytes\":%llu", berth_plan_storage_name(x.storage),
           (unsigned)x.pool, (unsigned long long)x.offset, (unsigned long long)x.bytes);
    if (x.window_of >= 0) printf(",\"window_of\":%d", (int)x.window_of);
    printf(",\"lifetime\":[");
    for (int32_t i = 0; i < x.n_intervals; i++)
      printf("%s[%lld,%lld]", i ? "," : "", (long long)x.intervals[i][0], (long long)x.intervals[i][1]);
    printf("]}");
  }
}

int berth_cmd_plan(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (strcmp(argv[i], "--csv") == 0) return berth_cmd_plan_csv(argc, argv);
  const char *path = NULL, *svg = NULL;
  bool json = false;
  berth_compile_options_t opt = berth_compile_options_default();
  for (int i = 0; i < argc; i++) {
    int r = berth_cli_plan_option(argc, argv, &i, &opt);
    if (r < 0) return BERTH_EXIT_USAGE;
    if (r > 0) continue;
    if (strcmp(argv[i], "--json") == 0) {
      if (!berth_cli_once(argv[i])) return BERTH_EXIT_USAGE;
      json = true;
    } else if (strcmp(argv[i], "--svg") == 0) {
      if (!berth_cli_once(argv[i])) return BERTH_EXIT_USAGE;
      if (i + 1 >= argc) {
        fprintf(stderr, "berth: --svg needs a file\n");
        return BERTH_EXIT_USAGE;
      }
      svg = argv[++i];
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "berth plan: unknown option '%s'\n", argv[i]);
      return BERTH_EXIT_USAGE;
    } else if (path) {
      fprintf(stderr, "berth plan: more than one program given ('%s' and '%s')\n", path, argv[i]);
      return BERTH_EXIT_USAGE;
    } else path = argv[i];
  }
  if (!path) {
    fprintf(stderr, "berth plan: missing PROGRAM (or --csv FILE)\n");
    return BERTH_EXIT_USAGE;
  }
  berth_source_t *p = berth_tool_load_program(path);
  if (!p) return 1;
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_compilation_t *c = NULL;
  opt.store_ir = false; /* the file is not kept: no IR text to print into it */
  berth_cli_planning_note(&opt);
  berth_status_t plan_st = berth_compile_source(p, &opt, &c, &diag);
  berth_cli_progress_end();
  if (plan_st) {
    fprintf(stderr, "berth: %s: %s\n", path, msg);
    berth_source_destroy(p);
    return 1;
  }
  const char *algo = opt.algo ? opt.algo : "greedy", *strategy = opt.strategy ? opt.strategy : "global";
  unsigned alignment = opt.alignment ? opt.alignment : 16;
  int32_t n_methods = berth_compilation_method_count(c);
  /* every algorithm side by side, same strategy and options */
  static const char *const algos[] = {"naive", "greedy", "search", "exact"};
  size_t nm = n_methods > 0 ? (size_t)n_methods : 1;
  uint64_t *side[4] = {NULL};
  double *side_ms[4] = {NULL};
  bool side_ok[4];
  for (int a = 0; a < 4; a++) {
    side[a] = malloc(nm * sizeof *side[a]);
    side_ms[a] = malloc(nm * sizeof *side_ms[a]);
    if (!side[a] || !side_ms[a]) {
      fprintf(stderr, "berth: out of memory\n");
      for (int k = 0; k <= a; k++) free(side[k]), free(side_ms[k]);
      berth_compilation_destroy(c);
      berth_source_destroy(p);
      return 1;
    }
  }
  for (int a = 0; a < 4; a++) {
    berth_compile_options_t o2 = opt;
    o2.algo = algos[a];
    berth_compilation_t *c2 = NULL;
    berth_cli_progress(true, "planning with %s for the side-by-side table...", algos[a]);
    side_ok[a] = berth_compile_source(p, &o2, &c2, NULL) == BERTH_OK;
    berth_cli_progress_end();
    for (int32_t mi = 0; side_ok[a] && mi < n_methods; mi++) {
      berth_plan_summary_t s2;
      berth_compilation_summary(c2, mi, &s2, NULL);
      side[a][mi] = sum(s2.arena_bytes, s2.n_pools);
      side_ms[a][mi] = s2.time_ms;
    }
    berth_compilation_destroy(c2);
  }
  if (json) {
    /* schema "berth-plan" version 2: docs/json.md */
    printf("{\"schema\":\"berth-plan\",\"schema_version\":%d,\"strategy\":\"%s\",\"algo\":\"%s\",\"alignment\":%u,"
           "\"methods\":[",
           BERTH_PLAN_JSON_VERSION, strategy, algo, alignment);
    for (int32_t mi = 0; mi < n_methods; mi++) {
      berth_plan_summary_t r;
      berth_compilation_summary(c, mi, &r, NULL);
      printf("%s{\"name\":", mi ? "," : "");
      berth_cli_json_string(stdout, r.method);
      printf(",\"arena_bytes\":%llu,\"lower_bound_bytes\":%llu,\"state_bytes\":%llu,\"copies\":%d,\"coalesced\":%d,\"views\":%d,"
             "\"concats_in_place\":%d,\"state_in_place\":%d,\"hoisted\":%d,\"hoist_bytes\":%llu,\"time_ms\":%.3f,\"verified\":%s,"
             "\"timeline_positions\":%lld,\"pools\":[",
             (unsigned long long)sum(r.arena_bytes, r.n_pools), (unsigned long long)sum(r.lower_bound_bytes, r.n_pools),
             (unsigned long long)r.state_bytes, (int)r.copies, (int)r.coalesced, (int)r.views,
             (int)r.concats_in_place, (int)r.state_in_place,
             (int)r.hoisted, (unsigned long long)r.hoist_bytes, r.time_ms,
             r.verified ? "true" : "false", (long long)r.timeline_positions);
      for (int32_t pl = 0; pl < r.n_pools; pl++)
        printf("%s{\"pool\":%d,\"arena_bytes\":%llu,\"lower_bound_bytes\":%llu,\"buffers\":%d}", pl ? "," : "", (int)pl,
               (unsigned long long)r.arena_bytes[pl], (unsigned long long)r.lower_bound_bytes[pl], (int)r.buffers[pl]);
      printf("],\"algorithms\":{");
      for (int a = 0, first = 1; a < 4; a++)
        if (side_ok[a]) printf("%s\"%s\":%llu", first ? "" : ",", algos[a], (unsigned long long)side[a][mi]), first = 0;
      printf("},\"values\":[");
      print_values_json(c, mi);
      printf("]}");
    }
    printf("]}\n");
  } else {
    printf("strategy %s, algorithm %s, alignment %u%s\n", strategy, algo, alignment, opt.verify ? ", verified" : ", NOT verified");
    for (int32_t mi = 0; mi < n_methods; mi++) {
      berth_plan_summary_t r;
      berth_compilation_summary(c, mi, &r, NULL);
      printf("method %s: %d values, %d copies, %d coalesced, state %llu bytes, planned in %.2f ms\n", r.method,
             (int)r.n_values, (int)r.copies, (int)r.coalesced, (unsigned long long)r.state_bytes, r.time_ms);
      if (r.state_in_place)
        printf("  state updated in place: %d copy_ computed in the buffer's own bytes (a rename, no copy per call)\n",
               (int)r.state_in_place);
      if (r.views)
        printf("  views: %d kernel calls share their operand's bytes (no work at run time)\n", (int)r.views);
      if (r.concats_in_place)
        printf("  concats in place: %d Concat calls whose operands were computed in their slots of the result (no "
               "work at run time)\n", (int)r.concats_in_place);
      if (r.hoisted)
        printf("  hoisted: %d kernel calls on constants alone run once at init, into a hoist region of %llu bytes (not "
               "in the arena)\n", (int)r.hoisted, (unsigned long long)r.hoist_bytes);
      if (r.n_scratch)
        printf("  kernel scratch: %d calls, %llu bytes (each a value of its own at its node's position, packed with the rest)\n",
               (int)r.n_scratch, (unsigned long long)r.scratch_bytes);
      printf("  %-6s %12s %12s %8s %8s\n", "pool", "arena", "lower bound", "ratio", "tensors");
      for (int32_t pl = 0; pl < r.n_pools; pl++) {
        uint64_t ab = r.arena_bytes[pl], lb = r.lower_bound_bytes[pl];
        printf("  %-6d %12llu %12llu %8.3f %8d\n", (int)pl, (unsigned long long)ab, (unsigned long long)lb,
               lb ? (double)ab / (double)lb : 1.0, (int)r.buffers[pl]);
      }
      printf("  %-8s %12s %10s\n", "algo", "arena", "plan ms");
      for (int a = 0; a < 4; a++) {
        if (!side_ok[a]) printf("  %-8s %12s\n", algos[a], "rejected");
        else printf("  %-8s %12llu %10.2f\n", algos[a], (unsigned long long)side[a][mi], side_ms[a][mi]);
      }
    }
  }
  int rc = 0;
  if (svg) { /* complete or absent, and a failure says why (berth/outfile.h) */
    berth_outfile_t *o = berth_cli_out_open(svg);
    if (!o) rc = 1;
    else {
      if (berth_plan_svg_write(berth_outfile_stream(o), c)) rc = berth_cli_out_commit(o);
      else {
        berth_outfile_discard(o);
        fprintf(stderr, "berth: --svg %s: out of memory\n", svg);
        rc = 1;
      }
    }
  }
  for (int a = 0; a < 4; a++) free(side[a]), free(side_ms[a]);
  berth_compilation_destroy(c);
  berth_source_destroy(p);
  return rc;
}
