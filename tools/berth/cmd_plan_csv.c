/* berth plan --csv FILE: plans an allocation problem read from a CSV file of buffers
 * (id,lower,upper,size[,alignment]), validates the plan independently, and reports.
 *
 *   berth plan --csv A.1048576.csv --algo exact --budget-ms 10000 --json
 *   berth plan --csv resnet50.csv --out offsets.csv --svg plan.svg */
#include "cli.h"
#include "berth/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what) {
  fprintf(stderr, "berth plan: %s\n", what);
  return BERTH_EXIT_FAIL;
}

static int usage_fail(const char *what) {
  fprintf(stderr, "berth plan: %s\n", what);
  return BERTH_EXIT_USAGE;
}

static bool parse_count(const char *s, int64_t *out) {
  if (!s || !*s) return false;
  int64_t v = 0;
  for (const char *c = s; *c; c++) {
    if (*c < '0' || *c > '9' || v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + (*c - '0');
  }
  *out = v;
  return true;
}

/* Writes s as a CSV field, quoted when it has to be. */
static void put_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && s[0] != '\t' && (!*s || (s[strlen(s) - 1] != ' ' && s[strlen(s) - 1] != '\t'))) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void put_xml(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '&': fputs("&amp;", f); break;
      case '"': fputs("&quot;", f); break;
      default:
        if ((unsigned char)*s >= 0x20) fputc(*s, f);
    }
  }
}

static void write_offsets(FILE *f, const berth_alloc_problem_t *p, bool with_align, const uint64_t *off) {
  fprintf(f, "id,lower,upper,size,%soffset\n", with_align ? "alignment," : "");
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    put_field(f, p->names[i]);
    fprintf(f, ",%lld,%lld,%llu,", (long long)b->intervals[0].lower, (long long)b->intervals[0].upper,
            (unsigned long long)b->size);
    if (with_align) fprintf(f, "%llu,", (unsigned long long)b->align);
    fprintf(f, "%llu\n", (unsigned long long)off[i]);
  }
}

/* Time left to right, bytes bottom to top, one rectangle per live interval, the lower
 * bound as a dashed line. */
static void write_svg(FILE *f, const char *title, const berth_alloc_problem_t *p, const uint64_t *off,
                      uint64_t arena, uint64_t lb) {
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (int32_t i = 0; i < p->n; i++)
    for (int32_t k = 0; k < p->buffers[i].n_intervals; k++) {
      if (p->buffers[i].intervals[k].lower < t0) t0 = p->buffers[i].intervals[k].lower;
      if (p->buffers[i].intervals[k].upper > t1) t1 = p->buffers[i].intervals[k].upper;
    }
  if (t0 > t1) t0 = t1 = 0;
  double span = (double)t1 - (double)t0;
  double W = 1200, H = 640, L = 70, R = 10, T = 30, B = 30;
  double sx = (W - L - R) / (span > 0 ? span : 1.0);
  double top = (double)(arena > lb ? arena : lb);
  double sy = (H - T - B) / (top > 0 ? top : 1.0);
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\" font-size=\"11\">\n",
          W, H);
  fprintf(f, "<title>");
  put_xml(f, title);
  fprintf(f, ": arena %llu bytes, lower bound %llu</title>\n", (unsigned long long)arena, (unsigned long long)lb);
  fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"#fafafa\" stroke=\"#888\"/>\n", L, T, W - L - R,
          H - T - B);
  for (int32_t i = 0; i < p->n; i++) {
    const berth_alloc_buffer_t *b = &p->buffers[i];
    if (b->size == 0) continue;
    /* A stable, well-spread hue per buffer. */
    unsigned hue = (unsigned)(((uint64_t)i * 2654435761u) % 360);
    for (int32_t k = 0; k < b->n_intervals; k++) {
      double x0 = L + ((double)b->intervals[k].lower - (double)t0) * sx;
      double w = ((double)b->intervals[k].upper - (double)b->intervals[k].lower) * sx;
      double y0 = H - B - ((double)off[i] + (double)b->size) * sy, h = (double)b->size * sy;
      fprintf(f,
              "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"hsl(%u,60%%,60%%)\" "
              "stroke=\"#222\" stroke-width=\"0.2\"><title>",
              x0, y0, w, h, hue);
      put_xml(f, p->names ? p->names[i] : "");
      fprintf(f, ": bytes [%llu, %llu), time [%lld, %lld)</title></rect>\n", (unsigned long long)off[i],
              (unsigned long long)(off[i] + b->size), (long long)b->intervals[k].lower,
              (long long)b->intervals[k].upper);
    }
  }
  double ly = H - B - (double)lb * sy;
  fprintf(f, "<line x1=\"%g\" x2=\"%g\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#d00\" stroke-dasharray=\"5 3\"/>\n", L, W - R,
          ly, ly);
  fprintf(f, "<text x=\"%g\" y=\"%.2f\" fill=\"#d00\">lower bound %llu</text>\n", L + 4, ly - 3,
          (unsigned long long)lb);
  fprintf(f, "<text x=\"%g\" y=\"%g\">time &#8594; [%lld, %lld)</text>\n", L, H - 10, (long long)t0, (long long)t1);
  fprintf(f, "<text x=\"4\" y=\"%g\">bytes</text><text x=\"4\" y=\"%g\">%llu</text><text x=\"4\" y=\"%g\">0</text>\n",
          T - 14, T + 4, (unsigned long long)(uint64_t)top, H - B);
  fprintf(f, "<text x=\"%g\" y=\"18\">", L);
  put_xml(f, title);
  fprintf(f, ": %d buffers, arena %llu bytes</text>\n", (int)p->n, (unsigned long long)arena);
  fprintf(f, "</svg>\n");
}

int berth_cmd_plan_csv(int argc, char **argv) {
  const char *csv_path = NULL, *out_path = NULL, *svg_path = NULL;
  berth_alloc_options_t opt = berth_alloc_options_default();
  bool json = false;
  char msg[1024];
  int i = 0;
  if (argc > 0 && strcmp(argv[0], "plan") == 0) i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--json") == 0) {
      if (!berth_cli_once(a)) return BERTH_EXIT_USAGE;
      json = true;
      continue;
    }
    bool takes = strcmp(a, "--csv") == 0 || strcmp(a, "--algo") == 0 || strcmp(a, "--budget-ms") == 0 ||
                 strcmp(a, "--budget-work") == 0 || strcmp(a, "--out") == 0 || strcmp(a, "--svg") == 0 || strcmp(a, "--seed") == 0 ||
                 strcmp(a, "--fit") == 0;
    if (!takes) {
      snprintf(msg, sizeof msg, "unknown option '%s' with --csv (expected --algo, --budget-ms, --budget-work, --json, --out, --svg, --seed, --fit)", a);
      return usage_fail(msg);
    }
    if (!v) {
      snprintf(msg, sizeof msg, "%s needs a value", a);
      return usage_fail(msg);
    }
    if (!berth_cli_once(a)) return BERTH_EXIT_USAGE;
    i++;
    if (strcmp(a, "--csv") == 0) csv_path = v;
    else if (strcmp(a, "--out") == 0) out_path = v;
    else if (strcmp(a, "--svg") == 0) svg_path = v;
    else if (strcmp(a, "--algo") == 0) {
      if (!berth_alloc_algo_from_name(v, &opt.algo)) {
        snprintf(msg, sizeof msg, "unknown algorithm '%s' (expected naive, greedy, search or exact)", v);
        return usage_fail(msg);
      }
    } else if (strcmp(a, "--budget-ms") == 0) {
      if (!parse_count(v, &opt.budget_ms)) {
        snprintf(msg, sizeof msg, "--budget-ms '%s' is not a non-negative integer", v);
        return usage_fail(msg);
      }
    } else if (strcmp(a, "--budget-work") == 0) {
      if (!parse_count(v, &opt.budget_work) || opt.budget_work == 0) {
        snprintf(msg, sizeof msg, "--budget-work '%s' is not a positive integer", v);
        return usage_fail(msg);
      }
    } else if (strcmp(a, "--seed") == 0) {
      int64_t s;
      if (!parse_count(v, &s)) {
        snprintf(msg, sizeof msg, "--seed '%s' is not a non-negative integer", v);
        return usage_fail(msg);
      }
      opt.seed = (uint64_t)s;
    } else if (strcmp(a, "--fit") == 0) {
      if (strcmp(v, "auto") == 0) opt.fit = BERTH_ALLOC_FIT_AUTO;
      else if (strcmp(v, "first") == 0) opt.fit = BERTH_ALLOC_FIT_FIRST;
      else if (strcmp(v, "best") == 0) opt.fit = BERTH_ALLOC_FIT_BEST;
      else {
        snprintf(msg, sizeof msg, "unknown fit '%s' (expected auto, first or best)", v);
        return usage_fail(msg);
      }
    }
  }
  if (!csv_path) return usage_fail("--csv needs a file");

  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_alloc_csv_t *csv = NULL;
  berth_status_t st = berth_alloc_csv_read(csv_path, &csv, &diag);
  if (st) return fail(msg);
  const berth_alloc_problem_t *p = berth_alloc_csv_problem(csv);
  uint64_t *off = malloc(((size_t)p->n + 1) * sizeof *off);
  if (!off) {
    berth_alloc_csv_destroy(csv);
    return fail("out of memory");
  }
  berth_alloc_result_t r;
  st = berth_alloc_solve(p, &opt, off, &r, &diag);
  if (!st) st = berth_alloc_check(p, off, r.arena, &diag);
  int rc = 0;
  if (st) {
    char line[1200];
    snprintf(line, sizeof line, "%s: %s", csv_path, msg);
    rc = fail(line);
  }
  uint64_t lb = r.lower_bound;
  double ratio = lb ? (double)r.arena / (double)lb : 1.0;
  /* both files are written and closed before either is put in place (berth/outfile.h) */
  berth_outfile_t *of = NULL, *sf = NULL;
  if (!rc && out_path) {
    if (!(of = berth_cli_out_open(out_path))) rc = 1;
    else {
      write_offsets(berth_outfile_stream(of), p, berth_alloc_csv_has_alignment(csv), off);
      rc = berth_cli_out_close(of);
    }
  }
  if (!rc && svg_path) {
    if (!(sf = berth_cli_out_open(svg_path))) rc = 1;
    else {
      write_svg(berth_outfile_stream(sf), csv_path, p, off, r.arena, lb);
      rc = berth_cli_out_close(sf);
    }
  }
  if (!rc && of) {
    rc = berth_cli_out_commit(of);
    of = NULL;
  }
  if (!rc && sf) {
    rc = berth_cli_out_commit(sf);
    sf = NULL;
  }
  berth_outfile_discard(of);
  berth_outfile_discard(sf);
  if (!rc && json) {
    printf("{\"file\": ");
    berth_cli_json_string(stdout, csv_path);
    printf(", \"algo\": \"%s\", \"buffers\": %d, \"lower_bound_bytes\": %llu, \"arena_bytes\": %llu, "
           "\"ratio\": %.6f, \"optimal\": %s, \"proven_bound_bytes\": %llu, \"time_ms\": %.3f, "
           "\"greedy_arena_bytes\": %llu, \"greedy_order\": ",
           berth_alloc_algo_name(opt.algo), (int)p->n, (unsigned long long)lb, (unsigned long long)r.arena, ratio,
           r.optimal ? "true" : "false", (unsigned long long)r.proven_bound, r.time_ms,
           (unsigned long long)r.greedy_arena);
    berth_cli_json_string(stdout, r.greedy_order ? r.greedy_order : "");
    printf(", \"iterations\": %lld, \"work\": %lld, \"segments\": %d, \"budget_exceeded\": %s}\n",
           (long long)r.iterations, (long long)r.work, (int)r.segments, r.budget_exceeded ? "true" : "false");
  } else if (!rc) {
    printf("file:         %s\n", csv_path);
    printf("algorithm:    %s\n", berth_alloc_algo_name(opt.algo));
    printf("buffers:      %d\n", (int)p->n);
    printf("lower bound:  %llu bytes\n", (unsigned long long)lb);
    printf("arena:        %llu bytes\n", (unsigned long long)r.arena);
    printf("ratio:        %.4f\n", ratio);
    if (r.optimal) printf("optimal:      yes\n");
    else if (opt.algo == BERTH_ALLOC_EXACT)
      printf("optimal:      not proven (gap %llu bytes above a proven bound of %llu)\n",
             (unsigned long long)(r.arena - r.proven_bound), (unsigned long long)r.proven_bound);
    else printf("optimal:      not proven\n");
    if (opt.algo != BERTH_ALLOC_NAIVE) printf("greedy:       %llu bytes (%s)\n", (unsigned long long)r.greedy_arena, r.greedy_order);
    printf("segments:     %d\n", (int)r.segments);
    printf("time:         %.3f ms%s\n", r.time_ms, r.budget_exceeded ? " (over the budget: too large to plan in time)" : "");
    if (opt.budget_work > 0) printf("work:         %lld units (budget %lld)\n", (long long)r.work, (long long)opt.budget_work);
    printf("validated:    yes (independent check)\n");
  }
  free(off);
  berth_alloc_csv_destroy(csv);
  return rc;
}
