/* The memory-plan picture of `berth plan --svg`: one panel per method and pool, time
 * (timeline positions) across and arena bytes up, both axes with ticks. Every tensor is a
 * block at its bytes over its live positions, labelled with its name where the block is
 * large enough and with a tooltip always. Tensors written by a copy are hatched; hand-overs
 * done in place (a RENAME: the result takes over its producer's bytes) have a dashed green
 * outline; bodies of control-flow ops are shaded by depth with their kind on top; the
 * lower bound and the arena size are labelled on the right, clear of the legend below. */
#include "plan_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_W 1000.0
#define PLOT_L 78.0  /* left margin: byte tick labels */
#define PLOT_R 150.0 /* right margin: arena and lower-bound labels */
#define PLOT_H 300.0
#define PANEL_TITLE 34.0  /* title lines above the plot, then a strip of body labels */
#define HOP_ROW 11.0      /* one row of body labels per nesting depth */
#define PANEL_BOTTOM 64.0 /* time ticks, axis title and legend below the plot */
#define EMPTY_PANEL_H 30.0 /* a pool with an empty arena: its title line only */

/* A tick step of 1, 2 or 5 times a power of ten giving about `want` ticks over range. */
static double tick_step(double range, int want) {
  if (range <= 0) return 1;
  double raw = range / want, p = pow(10, floor(log10(raw))), f = raw / p;
  double step = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
  return step * p < 1 ? 1 : step * p;
}

static void bytes_label(char *buf, size_t cap, double b) {
  if (b >= 1048576 && fmod(b, 1048576 / 10.0) == 0) snprintf(buf, cap, "%g MiB", b / 1048576);
  else if (b >= 1024 && fmod(b, 1024 / 10.0) == 0) snprintf(buf, cap, "%g KiB", b / 1024);
  else snprintf(buf, cap, "%.0f", b);
}

/* Text with XML's special characters escaped. */
static void xml_text(FILE *f, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '&': fputs("&amp;", f); break;
      case '"': fputs("&quot;", f); break;
      default: fputc(*s, f);
    }
  }
}

typedef struct panel {
  FILE *f;
  const berth_compilation_t *c;
  int32_t method;
  const berth_plan_summary_t *r;
  int32_t pool;
  double top;           /* y of the plot's top edge */
  double sx, sy;        /* pixels per position, per byte */
  uint64_t arena;       /* the pool's arena bytes (at least 1) */
  const uint8_t *mark;  /* per value: 1 written by a COPY, 2 the result of a RENAME */
  int32_t hop_rows;     /* rows of body labels above the plot: the deepest body + 1 */
} panel_t;

static double px(const panel_t *p, double pos) { return PLOT_L + pos * p->sx; }
static double py(const panel_t *p, double bytes) { return p->top + PLOT_H - bytes * p->sy; }

static void draw_axes(const panel_t *p) {
  FILE *f = p->f;
  double x1 = SVG_W - PLOT_R, y1 = p->top + PLOT_H;
  fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"#fcfcfc\" stroke=\"#666\"/>\n", PLOT_L, p->top,
          x1 - PLOT_L, PLOT_H);
  double n = (double)(p->r->timeline_positions ? p->r->timeline_positions : 1), st = tick_step(n, 10);
  for (double t = 0; t <= n + 1e-9; t += st) {
    double x = px(p, t);
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%g\" y2=\"%g\" stroke=\"#666\"/>", x, x, y1, y1 + 4);
    fprintf(f, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\" fill=\"#333\">%.0f</text>\n", x, y1 + 15, t);
  }
  fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\" fill=\"#333\">time (timeline positions)</text>\n",
          (PLOT_L + x1) / 2, y1 + 29);
  double sb = tick_step((double)p->arena, 6);
  char lab[32];
  for (double b = 0; b <= (double)p->arena + 1e-9; b += sb) {
    double y = py(p, b);
    bytes_label(lab, sizeof lab, b);
    fprintf(f, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#666\"/>", PLOT_L - 4, PLOT_L, y, y);
    fprintf(f, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", PLOT_L, x1, y, y);
    fprintf(f, "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%s</text>\n", PLOT_L - 6, y + 3.5, lab);
  }
  fprintf(f, "<text transform=\"translate(12,%g) rotate(-90)\" text-anchor=\"middle\" fill=\"#333\">bytes</text>\n",
          p->top + PLOT_H / 2);
}

/* Control-flow bodies: shaded spans, darker with depth, the kind on top (one row per depth). */
static void draw_hops(const panel_t *p) {
  for (int32_t i = 0; i < p->r->n_hops; i++) {
    berth_plan_hop_t hop;
    if (berth_compilation_hop(p->c, p->method, i, &hop, NULL)) continue;
    const berth_plan_hop_t *h = &hop;
    double x0 = px(p, (double)h->begin), w = (double)(h->end + 1 - h->begin) * p->sx;
    fprintf(p->f, "<rect x=\"%.2f\" y=\"%g\" width=\"%.2f\" height=\"%g\" fill=\"#5060a0\" fill-opacity=\"%.2f\" "
            "stroke=\"#8890b0\" stroke-dasharray=\"3 2\"><title>%s body, depth %d, positions [%lld,%lld]</title></rect>\n",
            x0, p->top, w, PLOT_H, 0.05 + 0.03 * (h->depth < 5 ? h->depth : 5), h->kind, (int)h->depth, (long long)h->begin,
            (long long)h->end);
    /* the kind in the strip above the plot, one row per depth, the outermost on top */
    double ly = p->top - 3 - HOP_ROW * (double)(p->hop_rows - 1 - h->depth);
    fprintf(p->f, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%g\" stroke=\"#8890b0\"/>", x0, x0, ly - 8, p->top);
    if (w >= 5.5 * (double)strlen(h->kind) + 4)
      fprintf(p->f, "<text x=\"%.2f\" y=\"%.2f\" fill=\"#404a80\" font-size=\"9\">%s</text>\n", x0 + 2, ly, h->kind);
    if (h->split >= 0) {
      double xs = px(p, (double)h->split);
      fprintf(p->f, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%g\" y2=\"%g\" stroke=\"#404a80\" stroke-dasharray=\"6 2\">"
              "<title>then | else: the two sides are exclusive (they may share bytes)</title></line>\n",
              xs, xs, p->top, p->top + PLOT_H);
    }
  }
}

static const char *const k_fill[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759"};

static void draw_block(const panel_t *p, int32_t v, const berth_plan_value_t *x, const int64_t *iv) {
  FILE *f = p->f;
  uint64_t bytes = x->bytes;
  int32_t d = x->depth < 3 ? x->depth : 3; /* the legend's four colours */
  double x0 = px(p, (double)iv[0]), w = (double)(iv[1] + 1 - iv[0]) * p->sx;
  double y0 = py(p, (double)(x->offset + bytes)), h = (double)bytes * p->sy;
  if (h < 0.5) h = 0.5;
  const char *how = p->mark[v] == 1 ? ", written by a copy" : p->mark[v] == 2 ? ", handed over in place" : "";
  fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" fill-opacity=\"0.8\" stroke=\"#222\" "
          "stroke-width=\"0.4\"><title>%%", x0, y0, w, h, k_fill[d]);
  xml_text(f, x->name);
  fprintf(f, ": %llu bytes at [%llu, %llu), positions [%lld, %lld], depth %d%s</title></rect>\n",
          (unsigned long long)bytes, (unsigned long long)x->offset, (unsigned long long)(x->offset + bytes),
          (long long)iv[0], (long long)iv[1], (int)x->depth, how);
  if (p->mark[v] == 1)
    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"url(#copy)\" pointer-events=\"none\"/>\n",
            x0, y0, w, h);
  else if (p->mark[v] == 2)
    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#0a0\" stroke-width=\"1.6\" "
            "stroke-dasharray=\"3 2\" pointer-events=\"none\"/>\n", x0, y0, w, h);
  /* a label where it fits: about 5.5 px a character at font size 9 */
  size_t len = x->name ? strlen(x->name) + 1 : 1;
  if (h >= 11 && w >= 5.5 * (double)len + 4) {
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"9\" fill=\"#fff\" pointer-events=\"none\">%%", x0 + 2,
            y0 + h / 2 + 3);
    xml_text(f, x->name);
    fputs("</text>\n", f);
  }
}

static void draw_blocks(const panel_t *p) {
  for (int32_t v = 0, n = berth_compilation_value_count(p->c, p->method); v < n; v++) {
    berth_plan_value_t x;
    if (berth_compilation_value(p->c, p->method, v, &x, NULL)) continue;
    if (x.storage != BERTH_PLAN_STORAGE_ARENA || x.window_of >= 0 || x.pool != p->pool || !x.bytes) continue;
    for (int32_t i = 0; i < x.n_intervals; i++) draw_block(p, v, &x, x.intervals[i]);
  }
}

/* The arena top and the lower bound, labelled in the right margin (moved apart when close). */
static void draw_bounds(const panel_t *p, uint64_t lower) {
  FILE *f = p->f;
  double x1 = SVG_W - PLOT_R, ya = py(p, (double)p->arena), yl = py(p, (double)lower);
  char a[32], l[32];
  bytes_label(a, sizeof a, (double)p->arena);
  bytes_label(l, sizeof l, (double)lower);
  fprintf(f, "<line x1=\"%g\" x2=\"%g\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#d00\" stroke-width=\"1.2\" stroke-dasharray=\"5 3\"/>\n",
          PLOT_L, x1, yl, yl);
  double ta = ya + 4, tl = yl + 4;
  if (tl - ta < 13) tl = ta + 13; /* keep the two labels apart */
  fprintf(f, "<text x=\"%g\" y=\"%.2f\" fill=\"#000\">arena %s</text>\n", x1 + 6, ta, a);
  fprintf(f, "<text x=\"%g\" y=\"%.2f\" fill=\"#d00\">lower bound %s</text>\n", x1 + 6, tl, l);
}

static void draw_legend(const panel_t *p) {
  FILE *f = p->f;
  double y = p->top + PLOT_H + 46, x = PLOT_L;
  fprintf(f, "<g font-size=\"10\" fill=\"#333\">");
  for (int d = 0; d < 4; d++) {
    fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"12\" height=\"10\" fill=\"%s\" fill-opacity=\"0.8\"/>", x, y - 9, k_fill[d]);
    fprintf(f, "<text x=\"%g\" y=\"%g\">depth %d%s</text>", x + 15, y, d, d == 3 ? "+" : "");
    x += 70;
  }
  fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"12\" height=\"10\" fill=\"url(#copy)\" stroke=\"#222\" stroke-width=\"0.4\"/>"
          "<text x=\"%g\" y=\"%g\">written by a copy</text>", x, y - 9, x + 15, y);
  x += 120;
  fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"12\" height=\"10\" fill=\"none\" stroke=\"#0a0\" stroke-width=\"1.6\" "
          "stroke-dasharray=\"3 2\"/><text x=\"%g\" y=\"%g\">handed over in place</text>", x, y - 9, x + 15, y);
  x += 140;
  fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"12\" height=\"10\" fill=\"#5060a0\" fill-opacity=\"0.2\"/>"
          "<text x=\"%g\" y=\"%g\">control-flow body</text>", x, y - 9, x + 15, y);
  fprintf(f, "</g>\n");
}

/* Per value of method m: 1 when a COPY writes it, 2 when it is a RENAME's result. */
static uint8_t *value_marks(const berth_compilation_t *c, int32_t m) {
  int32_t n = berth_compilation_value_count(c, m);
  uint8_t *mark = calloc((size_t)n + 1, 1);
  for (int32_t v = 0; mark && v < n; v++) {
    berth_plan_handover_t h = berth_compilation_value_handover(c, m, v);
    mark[v] = h == BERTH_PLAN_HANDOVER_COPY ? 1 : h == BERTH_PLAN_HANDOVER_IN_PLACE ? 2 : 0;
  }
  return mark;
}

static int32_t hop_rows(const berth_compilation_t *c, int32_t m) {
  berth_plan_summary_t r;
  int32_t rows = 0;
  if (berth_compilation_summary(c, m, &r, NULL)) return 0;
  for (int32_t i = 0; i < r.n_hops; i++) {
    berth_plan_hop_t h;
    if (!berth_compilation_hop(c, m, i, &h, NULL) && h.depth + 1 > rows) rows = h.depth + 1;
  }
  return rows;
}

bool berth_plan_svg_write(FILE *f, const berth_compilation_t *c) {
  double height = 8;
  int32_t n_methods = berth_compilation_method_count(c);
  for (int32_t mi = 0; mi < n_methods; mi++) {
    berth_plan_summary_t r;
    berth_compilation_summary(c, mi, &r, NULL);
    for (int32_t pl = 0; pl < r.n_pools; pl++)
      height += r.arena_bytes[pl] ? PANEL_TITLE + HOP_ROW * hop_rows(c, mi) + PLOT_H + PANEL_BOTTOM : EMPTY_PANEL_H;
  }
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\" "
          "font-size=\"10\">\n<title>berth memory plan</title>\n", SVG_W, height);
  fputs("<defs><pattern id=\"copy\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" stroke-width=\"2\" "
        "stroke-opacity=\"0.45\"/></pattern></defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", f);
  double top = 8;
  for (int32_t mi = 0; mi < n_methods; mi++) {
    berth_plan_summary_t r;
    berth_compilation_summary(c, mi, &r, NULL);
    uint8_t *mark = value_marks(c, mi);
    if (!mark) return false;
    int32_t rows = hop_rows(c, mi);
    for (int32_t pl = 0; pl < r.n_pools; pl++) {
      uint64_t ab = r.arena_bytes[pl], lb = r.lower_bound_bytes[pl];
      panel_t p = {f, c, mi, &r, pl, top + PANEL_TITLE + HOP_ROW * rows, 0, 0, ab ? ab : 1, mark, rows};
      p.sx = (SVG_W - PLOT_L - PLOT_R) / (double)(r.timeline_positions ? r.timeline_positions : 1);
      p.sy = PLOT_H / (double)p.arena;
      fprintf(f, "<g><text x=\"%g\" y=\"%g\" font-size=\"13\" font-weight=\"bold\">method ", PLOT_L, top + 14);
      xml_text(f, r.method);
      fprintf(f, ", pool %d%s</text>\n", (int)pl, ab ? "" : ": no tensors in the arena (0 bytes)");
      if (!ab) {
        fputs("</g>\n", f);
        top += EMPTY_PANEL_H;
        continue;
      }
      fprintf(f, "<text x=\"%g\" y=\"%g\" fill=\"#333\">arena %llu bytes, lower bound %llu (ratio %.3f), %d tensors; "
              "method: %d copies, %d hand-overs in place</text>\n", PLOT_L, top + 27,
              (unsigned long long)ab, (unsigned long long)lb, lb ? (double)ab / (double)lb : 1.0, (int)r.buffers[pl],
              (int)r.copies, (int)r.coalesced);
      draw_axes(&p);
      draw_hops(&p);
      draw_blocks(&p);
      draw_bounds(&p, lb);
      draw_legend(&p);
      fputs("</g>\n", f);
      top = p.top + PLOT_H + PANEL_BOTTOM;
    }
    free(mark);
  }
  fputs("</svg>\n", f);
  return true;
}
