/* stack_depth: the worst-case stack depth of a program's call graph, from what gcc writes
 * with -fstack-usage -fcallgraph-info=su (GCC 10 or later): one .ci file per translation
 * unit, holding every function it emits with its frame size and every call it makes.
 *
 *   stack_depth --root execute=berth_method_execute:4096 --root load=berth_program_load \
 *               --pre interp.i ... [--linked nm.txt] [--slots berth_op_def_t=berth_op_def] \
 *               [--strip /src/] interp.c.ci ...
 *
 * For each root it prints the deepest call chain and its bytes (the sum of the frames on
 * it; on x86-64 a frame includes its return address). The first line sums every root up:
 *
 *   stack: execute 2976 bytes (deepest: a -> b -> c), load 3120 bytes (deepest: a -> d)
 *
 * Calls the .ci files do not define (the C library: memcpy, expf, ...) count 0 bytes and
 * are listed. Exit status 1 when a root with a budget (":BYTES") goes over it, reaches a
 * recursive cycle (its depth then has no static bound) or a frame of unbounded dynamic
 * size; 2 on bad arguments or unreadable files.
 *
 * Indirect calls. gcc records a call through a function pointer as an edge to
 * "__indirect_call" and cannot say where it goes; here it may go to any function whose
 * address is taken, narrowed three ways:
 *  - --pre FILE.i gives the preprocessed source of each translation unit (gcc -E, one per
 *    .ci file); a function is address-taken where its name appears not followed by "("
 *    (nor after "->", ".", struct, union or enum).
 *  - --slots TYPE=TAG: in an initializer "TYPE name = {...}" or "struct TAG name = {...}"
 *    (berth's op table entries, berth_op_def_t), a function in the k-th element is stored
 *    in the k-th member of "struct TAG" (infer, run). A call written "x->member(...)" or
 *    "x.member(...)" with such a member (read from the source at the call's line and
 *    column) reaches only the functions stored in that member: the interpreter's
 *    def->run(&call) every kernel's run function, the verifier's def->infer(...) every
 *    infer function. Any other indirect call (a kernel's per-dtype row functions) reaches
 *    every function whose address is taken outside such an entry; one whose source cannot
 *    be read reaches every address-taken function.
 *  - --linked FILE: `nm` output of the linked program; only functions it lists are targets
 *    (with --gc-sections a runtime cut down to some kernels keeps only their run functions).
 * The bound is for the code as compiled: inlined callees are in their caller's frame, and
 * a path that cannot happen at run time (a message formatted for an error that the
 * verifier already ruled out) still counts.
 *
 * A host tool: it uses the C library freely (the runtime's no-malloc rule is not for it). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROOTS 8
#define MAX_MEMBERS 31 /* class bits: 0 is "any other address-taken function" */
#define CLASS_REST 0u

typedef struct func {
  char *title; /* gcc's: "name" for an external symbol, "FILE:name" for a static one */
  const char *name;
  char *loc; /* FILE:LINE of the definition */
  long frame;
  bool defined, unbounded, linked;
  uint32_t classes; /* bit c: address taken as class c */
  int e0, ne;       /* edges [e0, e0 + ne) after sorting */
  int state;        /* 0 new, 1 on the DFS stack, 2 done */
  long total;       /* frame + the deepest callee */
  int best_edge, best_to;
  int seen; /* last root that reached it */
} func_t;

typedef struct edge {
  int from, to;  /* to: -1 for an indirect call */
  char *site;    /* FILE:LINE:COL of the call */
  uint32_t mask; /* indirect: the classes it may reach */
} edge_t;

static func_t *funcs;
static int n_funcs, cap_funcs;
static edge_t *edges;
static int n_edges, cap_edges;
static int *hash; /* open addressing over funcs, by title */
static int hash_cap;

static char **tus; /* the translation units of the .ci files, and whether a --pre file covers each */
static bool *tu_pre;
static int n_tus;

static char *members[MAX_MEMBERS + 1];
static int n_members;
static const char *slot_type, *slot_tag;
static const char *strip_prefix = "";

static void die(const char *fmt, const char *a) {
  fprintf(stderr, "stack_depth: ");
  fprintf(stderr, fmt, a);
  fprintf(stderr, "\n");
  exit(2);
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n);
  if (!p) die("%s", "out of memory");
  return p;
}

static char *xstrndup(const char *s, size_t n) {
  char *r = xrealloc(NULL, n + 1);
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = xrealloc(NULL, cap);
  for (;;) {
    if (n + 1 >= cap) buf = xrealloc(buf, cap *= 2);
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    if (got == 0) break;
    n += got;
  }
  fclose(f);
  buf[n] = 0;
  if (len) *len = n;
  return buf;
}

static const char *shorten(const char *path) {
  size_t k = strlen(strip_prefix);
  return k && strncmp(path, strip_prefix, k) == 0 ? path + k : path;
}

/* ---- the function table --------------------------------------------------------------- */

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static int find_func(const char *title) {
  if (!hash_cap) return -1;
  for (uint64_t i = hash_str(title) & (uint64_t)(hash_cap - 1);; i = (i + 1) & (uint64_t)(hash_cap - 1)) {
    if (hash[i] < 0) return -1;
    if (strcmp(funcs[hash[i]].title, title) == 0) return hash[i];
  }
}

static void hash_insert(int f) {
  for (uint64_t i = hash_str(funcs[f].title) & (uint64_t)(hash_cap - 1);; i = (i + 1) & (uint64_t)(hash_cap - 1))
    if (hash[i] < 0) {
      hash[i] = f;
      return;
    }
}

static int get_func(const char *title) {
  int f = find_func(title);
  if (f >= 0) return f;
  if (2 * (n_funcs + 1) > hash_cap) {
    hash_cap = hash_cap ? 2 * hash_cap : 1024;
    hash = xrealloc(hash, (size_t)hash_cap * sizeof *hash);
    for (int i = 0; i < hash_cap; i++) hash[i] = -1;
    for (int i = 0; i < n_funcs; i++) hash_insert(i);
  }
  if (n_funcs == cap_funcs) funcs = xrealloc(funcs, (size_t)(cap_funcs = cap_funcs ? 2 * cap_funcs : 1024) * sizeof *funcs);
  func_t *p = &funcs[n_funcs];
  memset(p, 0, sizeof *p);
  p->title = xstrndup(title, strlen(title));
  const char *colon = strrchr(p->title, ':');
  p->name = colon ? colon + 1 : p->title;
  p->best_edge = p->best_to = -1;
  p->seen = -1;
  hash_insert(n_funcs);
  return n_funcs++;
}

/* A name as written in translation unit tu: its own static function, else the external one. */
static int resolve_name(const char *tu, const char *name) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s:%s", tu, name);
  int f = find_func(buf);
  if (f >= 0 && funcs[f].defined) return f;
  f = find_func(name);
  return f >= 0 && funcs[f].defined ? f : -1;
}

/* ---- .ci files (VCG graphs) ------------------------------------------------------------- */

/* The quoted value after key on line (gcc escapes nothing we need), or NULL. */
static char *quoted(const char *line, const char *key) {
  const char *p = strstr(line, key);
  if (!p) return NULL;
  p += strlen(key);
  const char *q = strchr(p, '"');
  return q ? xstrndup(p, (size_t)(q - p)) : NULL;
}

static void read_ci(const char *path) {
  char *text = read_file(path, NULL);
  if (!text) die("cannot read %s", path);
  for (char *line = text, *next; *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    else next = line + strlen(line);
    if (strncmp(line, "graph:", 6) == 0) {
      tus = xrealloc(tus, (size_t)(n_tus + 1) * sizeof *tus);
      tu_pre = xrealloc(tu_pre, (size_t)(n_tus + 1) * sizeof *tu_pre);
      tus[n_tus] = quoted(line, "title: \"");
      if (!tus[n_tus]) die("bad graph line in %s", path);
      tu_pre[n_tus++] = false;
    } else if (strncmp(line, "node:", 5) == 0) {
      char *title = quoted(line, "title: \""), *label = quoted(line, "label: \"");
      if (!title || !label) die("bad node line in %s", path);
      int f = get_func(title);
      char *b = strstr(label, " bytes (");
      if (b) { /* a definition: "name\nFILE:L:C\nN bytes (static|dynamic[,bounded])" */
        char *num = b;
        while (num > label && isdigit((unsigned char)num[-1])) num--;
        long frame = strtol(num, NULL, 10);
        func_t *F = &funcs[f];
        if (F->defined && F->frame != frame)
          fprintf(stderr, "stack_depth: warning: %s is defined twice (%ld and %ld bytes), keeping the larger\n",
                  title, F->frame, frame);
        if (!F->defined || frame > F->frame) F->frame = frame;
        F->defined = true;
        if (strncmp(b + 8, "dynamic)", 8) == 0) F->unbounded = true;
        char *l1 = strstr(label, "\\n");
        if (l1 && !F->loc) {
          char *l2 = strstr(l1 + 2, "\\n");
          F->loc = xstrndup(l1 + 2, (size_t)((l2 ? l2 : l1 + 2 + strlen(l1 + 2)) - (l1 + 2)));
          char *c = strrchr(F->loc, ':'); /* drop the column */
          if (c) *c = 0;
        }
      }
      free(title);
      free(label);
    } else if (strncmp(line, "edge:", 5) == 0) {
      char *src = quoted(line, "sourcename: \""), *dst = quoted(line, "targetname: \"");
      char *site = quoted(line, "label: \"");
      if (!src || !dst) die("bad edge line in %s", path);
      if (n_edges == cap_edges)
        edges = xrealloc(edges, (size_t)(cap_edges = cap_edges ? 2 * cap_edges : 4096) * sizeof *edges);
      edge_t *e = &edges[n_edges++];
      e->from = get_func(src);
      e->to = strcmp(dst, "__indirect_call") == 0 ? -1 : get_func(dst);
      e->site = site ? site : xstrndup("?", 1);
      e->mask = 0;
      free(src);
      free(dst);
    }
  }
  free(text);
}

/* ---- preprocessed sources: who takes the address of what ------------------------------- */

typedef struct tok {
  const char *s;
  int n;
} tok_t;

static bool tok_is(tok_t t, const char *s) { return (int)strlen(s) == t.n && strncmp(t.s, s, (size_t)t.n) == 0; }
static bool is_ident_start(int c) { return isalpha(c) || c == '_'; }
static bool is_ident(tok_t t) { return t.n > 0 && is_ident_start((unsigned char)t.s[0]); }

/* Tokens of preprocessed C: identifiers, numbers, "->", and single punctuators; string
 * and character literals and # lines (line markers, pragmas) are skipped. */
static tok_t *tokenize(const char *s, int *count) {
  tok_t *v = NULL;
  int n = 0, cap = 0;
  bool line_start = true;
  while (*s) {
    unsigned char c = (unsigned char)*s;
    if (c == '\n') {
      line_start = true;
      s++;
      continue;
    }
    if (isspace(c)) {
      s++;
      continue;
    }
    if (c == '#' && line_start) {
      while (*s && *s != '\n') s++;
      continue;
    }
    line_start = false;
    const char *b = s;
    if (c == '"' || c == '\'') {
      for (s++; *s && *s != (char)c; s++)
        if (*s == '\\' && s[1]) s++;
      if (*s) s++;
      continue;
    }
    if (is_ident_start(c)) {
      while (isalnum((unsigned char)*s) || *s == '_') s++;
    } else if (isdigit(c)) {
      while (isalnum((unsigned char)*s) || *s == '_' || *s == '.') s++;
    } else if (c == '-' && s[1] == '>') {
      s += 2;
    } else {
      s++;
    }
    if (n == cap) v = xrealloc(v, (size_t)(cap = cap ? 2 * cap : 4096) * sizeof *v);
    v[n].s = b;
    v[n++].n = (int)(s - b);
  }
  *count = n;
  return v;
}

static int member_index(const char *s, int n) {
  for (int i = 0; i < n_members; i++)
    if ((int)strlen(members[i]) == n && strncmp(members[i], s, (size_t)n) == 0) return i;
  return -1;
}

/* struct TAG { ... }: the member names in order ("int8_t min_in, max_in;" gives two; the
 * name of "int (*run)(int);" is the one after "(*"). */
static void read_members(const tok_t *t, int n, int i) {
  if (n_members) return;
  int depth = 0;
  tok_t last = {NULL, 0};
  bool fn_ptr = false;
  for (; i < n; i++) {
    if (tok_is(t[i], "{") || tok_is(t[i], "(") || tok_is(t[i], "[")) depth++;
    else if (tok_is(t[i], ")") || tok_is(t[i], "]")) depth--;
    else if (tok_is(t[i], "}") && --depth == 0) break;
    else if (depth == 1 && is_ident(t[i]) && !fn_ptr) last = t[i];
    else if (depth == 2 && is_ident(t[i]) && !fn_ptr && tok_is(t[i - 1], "*") && tok_is(t[i - 2], "(")) {
      last = t[i];
      fn_ptr = true;
    } else if (depth == 1 && (tok_is(t[i], ";") || tok_is(t[i], ",")) && last.n) {
      if (n_members == MAX_MEMBERS) die("struct %s has too many members", slot_tag);
      members[n_members++] = xstrndup(last.s, (size_t)last.n);
      last.n = 0;
      fn_ptr = false;
    }
  }
}

static void read_pre(const char *path) {
  char *text = read_file(path, NULL);
  if (!text) die("cannot read %s", path);
  /* the translation unit: gcc -E starts with the line marker # 0 "FILE" */
  char *q1 = strchr(text, '"'), *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
  if (!q2 || text[0] != '#') die("%s does not start with a line marker (gcc -E output expected)", path);
  char *tu = xstrndup(q1 + 1, (size_t)(q2 - q1 - 1));
  for (int k = 0; k < n_tus; k++)
    if (strcmp(tus[k], tu) == 0) tu_pre[k] = true;
  int n;
  tok_t *t = tokenize(text, &n);
  if (slot_tag)
    for (int i = 0; i + 2 < n; i++)
      if (tok_is(t[i], "struct") && t[i + 1].n == (int)strlen(slot_tag) && tok_is(t[i + 1], slot_tag) &&
          tok_is(t[i + 2], "{"))
        read_members(t, n, i + 2);
  int init_depth = 0, elem = 0; /* inside "TYPE name = {": brace depth, element index */
  for (int i = 0; i < n; i++) {
    /* "TYPE name = {" or "struct TAG name = {" */
    bool typed = slot_type && tok_is(t[i], slot_type);
    typed |= slot_tag && i > 0 && tok_is(t[i], slot_tag) && tok_is(t[i - 1], "struct");
    if (typed && i + 3 < n && is_ident(t[i + 1]) && tok_is(t[i + 2], "=") && tok_is(t[i + 3], "{")) {
      init_depth = 1;
      elem = 0;
      i += 3;
      continue;
    }
    if (init_depth) {
      if (tok_is(t[i], "{") || tok_is(t[i], "(") || tok_is(t[i], "[")) init_depth++;
      else if (tok_is(t[i], "}") || tok_is(t[i], ")") || tok_is(t[i], "]")) init_depth--;
      else if (init_depth == 1 && tok_is(t[i], ",")) elem++;
    }
    if (!is_ident(t[i])) continue;
    if (i > 0 && (tok_is(t[i - 1], "->") || tok_is(t[i - 1], ".") || tok_is(t[i - 1], "struct") ||
                  tok_is(t[i - 1], "union") || tok_is(t[i - 1], "enum")))
      continue; /* a member or a tag, not the function */
    if (i + 1 < n && tok_is(t[i + 1], "(")) continue;
    char name[512];
    if (t[i].n >= (int)sizeof name) continue;
    memcpy(name, t[i].s, (size_t)t[i].n);
    name[t[i].n] = 0;
    int f = resolve_name(tu, name);
    if (f < 0) continue;
    uint32_t cls = CLASS_REST;
    if (init_depth == 1 && elem < n_members) cls = (uint32_t)elem + 1;
    funcs[f].classes |= 1u << cls;
  }
  free(t);
  free(tu);
  free(text);
}

/* ---- call sites ---------------------------------------------------------------------------- */

typedef struct src_file {
  char *path, *text;
} src_file_t;
static src_file_t *srcs;
static int n_srcs;

static const char *source_line(const char *path, long line) {
  int i = 0;
  for (; i < n_srcs && strcmp(srcs[i].path, path) != 0; i++) {
  }
  if (i == n_srcs) {
    srcs = xrealloc(srcs, (size_t)(n_srcs + 1) * sizeof *srcs);
    srcs[n_srcs].path = xstrndup(path, strlen(path));
    srcs[n_srcs++].text = read_file(path, NULL);
  }
  const char *s = srcs[i].text;
  for (long l = 1; s && l < line; l++) {
    s = strchr(s, '\n');
    if (s) s++;
  }
  return s;
}

/* The classes an indirect call at site (FILE:LINE:COL) may reach: the member's if the call
 * is written x->member(...) or x.member(...) with a member of the slot struct, every
 * address-taken function if the source cannot be read, else the rest. */
static uint32_t site_mask(const char *site) {
  uint32_t any = ~0u;
  char *s = xstrndup(site, strlen(site));
  char *c2 = strrchr(s, ':');
  if (!c2) return free(s), any;
  *c2 = 0;
  char *c1 = strrchr(s, ':');
  if (!c1) return free(s), any;
  *c1 = 0;
  long line = strtol(c1 + 1, NULL, 10), col = strtol(c2 + 1, NULL, 10);
  const char *p = source_line(s, line);
  free(s);
  if (!p || col < 1) return any;
  for (long k = 1; k < col && *p && *p != '\n'; k++) p++;
  /* the called expression: identifiers, "->", "." and [...] up to the first "(" */
  const char *last = NULL;
  int last_n = 0, depth = 0;
  bool member = false, prev_dot = false;
  while (*p && *p != '\n') {
    if (*p == '[') depth++;
    else if (*p == ']') depth--;
    else if (depth == 0 && *p == '(') break;
    if (depth == 0 && is_ident_start((unsigned char)*p)) {
      last = p;
      while (isalnum((unsigned char)*p) || *p == '_') p++;
      last_n = (int)(p - last);
      member = prev_dot;
      prev_dot = false;
      continue;
    }
    if (depth == 0 && (*p == '.' || (*p == '-' && p[1] == '>'))) {
      prev_dot = true;
      p += *p == '.' ? 1 : 2;
      continue;
    }
    if (depth == 0 && !isspace((unsigned char)*p)) prev_dot = false;
    p++;
  }
  if (!last) return any;
  int m = member ? member_index(last, last_n) : -1;
  return m >= 0 ? 1u << (m + 1) : 1u << CLASS_REST;
}

static const char *mask_name(uint32_t mask) {
  for (int m = 0; m < n_members; m++)
    if (mask == 1u << (m + 1)) return members[m];
  return mask == 1u << CLASS_REST ? "other" : "any";
}

/* ---- the deepest path ------------------------------------------------------------------ */

typedef struct cycle {
  int *f;
  int n;
} cycle_t;
static cycle_t *cycles;
static int n_cycles;
static int *dfs_stack;
static int dfs_top;

static bool target_ok(int t, uint32_t mask) { return funcs[t].defined && funcs[t].linked && (funcs[t].classes & mask); }

static long worst(int f) {
  func_t *F = &funcs[f];
  if (F->state == 2) return F->total;
  if (F->state == 1) { /* recursion: record the cycle, count it once */
    int k = dfs_top - 1;
    while (k >= 0 && dfs_stack[k] != f) k--;
    for (int c = 0; c < n_cycles; c++) /* seen already (a function calling itself twice) */
      if (cycles[c].n == dfs_top - k && memcmp(cycles[c].f, dfs_stack + k, (size_t)(dfs_top - k) * sizeof(int)) == 0)
        return 0;
    cycles = xrealloc(cycles, (size_t)(n_cycles + 1) * sizeof *cycles);
    cycles[n_cycles].n = dfs_top - k;
    cycles[n_cycles].f = xrealloc(NULL, (size_t)(dfs_top - k + 1) * sizeof(int));
    memcpy(cycles[n_cycles].f, dfs_stack + k, (size_t)(dfs_top - k) * sizeof(int));
    n_cycles++;
    return 0;
  }
  F->state = 1;
  dfs_stack[dfs_top++] = f;
  long best = 0;
  for (int e = F->e0; e < F->e0 + F->ne; e++) {
    /* a direct call has one callee; an indirect one each function its classes allow */
    for (int t = edges[e].to >= 0 ? edges[e].to : 0; t < n_funcs; t++) {
      if (edges[e].to >= 0 ? !funcs[t].defined : !target_ok(t, edges[e].mask)) {
        if (edges[e].to >= 0) break;
        continue;
      }
      bool back = funcs[t].state == 1; /* a cycle: worst() records it, it adds nothing */
      long w = worst(t);
      if (!back && (w > best || F->best_edge < 0)) {
        best = w;
        F->best_edge = e;
        F->best_to = t;
      }
      if (edges[e].to >= 0) break;
    }
  }
  dfs_top--;
  F->total = F->frame + best;
  F->state = 2;
  return F->total;
}

/* Everything a root reaches, for its notes. */
static void reach(int f, int root, int **list, int *n) {
  if (funcs[f].seen == root) return;
  funcs[f].seen = root;
  *list = xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
  (*list)[(*n)++] = f;
  for (int e = funcs[f].e0; e < funcs[f].e0 + funcs[f].ne; e++) {
    if (edges[e].to >= 0) {
      if (funcs[edges[e].to].defined) reach(edges[e].to, root, list, n);
      else funcs[edges[e].to].seen = root;
    } else {
      for (int t = 0; t < n_funcs; t++)
        if (target_ok(t, edges[e].mask)) reach(t, root, list, n);
    }
  }
}

static int cmp_edge(const void *a, const void *b) {
  const edge_t *x = a, *y = b;
  return x->from < y->from ? -1 : x->from > y->from;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

typedef struct root {
  char *label, *name;
  long budget; /* -1: none */
  int f;
} root_t;

int main(int argc, char **argv) {
  root_t roots[MAX_ROOTS];
  int n_roots = 0;
  const char **pre = xrealloc(NULL, (size_t)argc * sizeof *pre), *linked = NULL;
  int n_pre = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--root") == 0 && i + 1 < argc) {
      if (n_roots == MAX_ROOTS) die("%s", "too many roots");
      char *v = argv[++i], *eq = strchr(v, '=');
      if (!eq) die("--root %s: expected LABEL=FUNCTION[:BUDGET]", v);
      root_t *r = &roots[n_roots++];
      r->label = xstrndup(v, (size_t)(eq - v));
      char *colon = strrchr(eq + 1, ':');
      r->budget = -1;
      if (colon) {
        errno = 0;
        char *end;
        r->budget = strtol(colon + 1, &end, 10);
        if (errno || *end || r->budget < 0) die("--root %s: bad budget", v);
      }
      r->name = xstrndup(eq + 1, colon ? (size_t)(colon - eq - 1) : strlen(eq + 1));
    } else if (strcmp(a, "--pre") == 0 && i + 1 < argc) {
      pre[n_pre++] = argv[++i];
    } else if (strcmp(a, "--linked") == 0 && i + 1 < argc) {
      linked = argv[++i];
    } else if (strcmp(a, "--slots") == 0 && i + 1 < argc) {
      char *v = argv[++i], *eq = strchr(v, '=');
      if (!eq) die("--slots %s: expected TYPE=STRUCT_TAG", v);
      slot_type = xstrndup(v, (size_t)(eq - v));
      slot_tag = eq + 1;
    } else if (strcmp(a, "--strip") == 0 && i + 1 < argc) {
      strip_prefix = argv[++i];
    } else if (a[0] == '-') {
      die("unknown option %s (see the comment at the top of tools/stack/stack_depth.c)", a);
    } else {
      read_ci(a);
    }
  }
  if (n_roots == 0 || n_funcs == 0) die("%s", "usage: stack_depth --root LABEL=FUNCTION[:BUDGET]... [--pre F.i]... FILE.ci...");
  for (int i = 0; i < n_pre; i++) read_pre(pre[i]);
  for (int k = 0; k < n_tus && n_pre; k++) /* else its address-taken functions would be missed */
    if (!tu_pre[k]) die("no --pre file for %s (its first line marker must name it)", tus[k]);
  if (slot_type && !n_members) die("struct %s not found in the --pre files", slot_tag);

  /* linked: every function nm lists (by plain name), or all of them */
  if (linked) {
    char *text = read_file(linked, NULL);
    if (!text) die("cannot read %s", linked);
    int n = 0;
    char **names = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
      char *sp = strrchr(line, ' ');
      names = xrealloc(names, (size_t)(n + 1) * sizeof *names);
      names[n++] = sp ? sp + 1 : line;
    }
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int f = 0; f < n_funcs; f++) {
      const char *key = funcs[f].name;
      funcs[f].linked = bsearch(&key, names, (size_t)n, sizeof *names, cmp_str) != NULL;
    }
    free(names);
    free(text);
  } else {
    for (int f = 0; f < n_funcs; f++) funcs[f].linked = true;
  }

  qsort(edges, (size_t)n_edges, sizeof *edges, cmp_edge);
  for (int e = 0; e < n_edges; e++) {
    func_t *F = &funcs[edges[e].from];
    if (F->ne++ == 0) F->e0 = e;
    if (edges[e].to < 0) edges[e].mask = site_mask(edges[e].site);
  }
  dfs_stack = xrealloc(NULL, (size_t)n_funcs * sizeof *dfs_stack);

  int rc = 0;
  for (int r = 0; r < n_roots; r++) {
    roots[r].f = find_func(roots[r].name);
    if (roots[r].f < 0 || !funcs[roots[r].f].defined) {
      for (int f = 0; f < n_funcs && roots[r].f < 0; f++) /* a static function, by plain name */
        if (funcs[f].defined && strcmp(funcs[f].name, roots[r].name) == 0) roots[r].f = f;
      if (roots[r].f < 0) die("root %s is not defined in the .ci files", roots[r].name);
    }
    worst(roots[r].f);
  }

  /* the summary line */
  printf("stack:");
  for (int r = 0; r < n_roots; r++) {
    printf("%s %s %ld bytes (deepest: ", r ? "," : "", roots[r].label, funcs[roots[r].f].total);
    for (int f = roots[r].f, k = 0; f >= 0 && k < n_funcs; f = funcs[f].best_to, k++)
      printf("%s%s", f == roots[r].f ? "" : " -> ", funcs[f].name);
    printf(")");
  }
  printf("\n");

  for (int r = 0; r < n_roots; r++) {
    const root_t *R = &roots[r];
    long total = funcs[R->f].total;
    printf("\n%s (%s): %ld bytes", R->label, funcs[R->f].name, total);
    if (R->budget >= 0) printf(", budget %ld", R->budget);
    printf("\n  %6s %6s  deepest chain\n", "frame", "depth");
    for (int f = R->f, k = 0; f >= 0 && k < n_funcs; f = funcs[f].best_to, k++) {
      const func_t *F = &funcs[f];
      printf("  %6ld %6ld  %s  %s", F->frame, F->total, F->name, F->loc ? shorten(F->loc) : "?");
      if (F->best_edge >= 0 && edges[F->best_edge].to < 0)
        printf("  (calls through a pointer: %s)", mask_name(edges[F->best_edge].mask));
      printf("\n");
    }
    int *list = NULL, n = 0;
    reach(R->f, r, &list, &n);
    /* indirect calls reached, grouped by the classes they may reach: where, and the targets */
    uint32_t done[64];
    int n_done = 0;
    for (int i = 0; i < n; i++)
      for (int e = funcs[list[i]].e0; e < funcs[list[i]].e0 + funcs[list[i]].ne; e++) {
        uint32_t mask = edges[e].mask;
        bool seen_mask = false;
        for (int k = 0; k < n_done; k++) seen_mask |= done[k] == mask;
        if (edges[e].to >= 0 || seen_mask || n_done == 64) continue;
        done[n_done++] = mask;
        printf("  calls through a pointer (%s) in", mask_name(mask));
        int sites = 0;
        for (int i2 = 0; i2 < n; i2++)
          for (int e2 = funcs[list[i2]].e0; e2 < funcs[list[i2]].e0 + funcs[list[i2]].ne; e2++)
            if (edges[e2].to < 0 && edges[e2].mask == mask)
              printf("%s %s (%s)", sites++ ? "," : "", funcs[list[i2]].name, shorten(edges[e2].site));
        int count = 0, top[3] = {-1, -1, -1}; /* the three deepest targets */
        for (int t = 0; t < n_funcs; t++) {
          if (!target_ok(t, mask)) continue;
          count++;
          for (int k = 0; k < 3; k++)
            if (top[k] < 0 || funcs[t].total > funcs[top[k]].total) {
              for (int j = 2; j > k; j--) top[j] = top[j - 1];
              top[k] = t;
              break;
            }
        }
        printf(":\n    %d possible targets", count);
        for (int k = 0; k < 3 && top[k] >= 0; k++)
          printf("%s %s %ld", k ? "," : ", the deepest", funcs[top[k]].name, funcs[top[k]].total);
        printf("\n");
      }
    /* external calls: no stack data */
    const char **ext = NULL;
    int n_ext = 0;
    for (int f = 0; f < n_funcs; f++)
      if (!funcs[f].defined && funcs[f].seen == r) {
        ext = xrealloc(ext, (size_t)(n_ext + 1) * sizeof *ext);
        ext[n_ext++] = funcs[f].name;
      }
    qsort(ext, (size_t)n_ext, sizeof *ext, cmp_str);
    if (n_ext) {
      printf("  not counted (defined outside these files, e.g. the C library):");
      for (int i = 0; i < n_ext; i++) printf(" %s", ext[i]);
      printf("\n");
    }
    free((void *)ext);
    bool bad = false;
    for (int i = 0; i < n; i++)
      if (funcs[list[i]].unbounded) {
        printf("  UNBOUNDED: %s has a frame of dynamic size (alloca or a variable-length array)\n", funcs[list[i]].name);
        bad = true;
      }
    int rec = 0;
    for (int c = 0; c < n_cycles; c++) {
      bool in = false;
      for (int k = 0; k < cycles[c].n && !in; k++) in = funcs[cycles[c].f[k]].seen == r;
      if (!in) continue;
      rec++;
      printf("  RECURSION (counted once, no static bound): ");
      for (int k = 0; k < cycles[c].n; k++) printf("%s -> ", funcs[cycles[c].f[k]].name);
      printf("%s\n", funcs[cycles[c].f[0]].name);
    }
    if (!rec) printf("  recursion: none\n");
    free(list);
    if (R->budget >= 0 && (total > R->budget || rec || bad)) {
      if (total > R->budget)
        printf("  FAIL: %s needs %ld bytes of stack, over its budget of %ld\n", R->label, total, R->budget);
      if (rec || bad) printf("  FAIL: %s has no static bound on its stack (see above)\n", R->label);
      rc = 1;
    }
  }
  return rc;
}
