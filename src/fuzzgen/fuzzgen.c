/* The fuzzer's program generator (see fuzzgen.h).
 *
 * Generation walks the method once, in program order, keeping the values visible at the
 * current point in a flat scope stack (a body pushes its parameters and nodes and pops
 * them when it ends), so every operand it picks is in scope by construction. Kernel
 * result types come from the op's own infer; a combination infer rejects is simply not
 * emitted. HOP result types are chosen from values visible at the HOP, so every body can
 * always return at least an outer value of each type. */
#include "fuzzgen.h"

#include <stdlib.h>
#include <string.h>

uint64_t berth_fuzzgen_rand(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

berth_fuzzgen_options_t berth_fuzzgen_options_default(void) {
  berth_fuzzgen_options_t o;
  o.max_depth = 4;
  o.max_nodes = 5;
  o.node_budget = 40;
  o.max_inputs = 3;
  o.max_globals = 2;
  o.max_results = 3;
  o.hop_percent = 30;
  o.assert_percent = 0;
  o.avoid = 0;
  return o;
}

/* ---- generator state --------------------------------------------------------------- */

#define MAX_HOP_VALUES 8 /* operands / results of one generated HOP */

typedef struct gen {
  uint64_t rng;
  berth_fuzzgen_options_t o;
  berth_ir_program_t *p;
  berth_ir_method_t *m;
  int32_t *scope; /* visible PARAM / NODE values, innermost last */
  int32_t n_scope, cap_scope;
  int32_t *cand; /* scratch for candidate lists (never held across a call that generates) */
  int32_t cap_cand;
  int32_t gv[64]; /* the method's values of the program globals */
  int32_t n_gv;
  int32_t states[32];
  int32_t n_states;
  int32_t zero_i, one_i; /* i64 constants 0 and 1, or -1 */
  int32_t budget;
  int32_t names;
  berth_type_t base; /* the program's main f32 shape */
  uint8_t *varies;   /* per value id: 1 if it (probably) changes from call to call */
  int32_t cap_varies;
  int32_t n_asserts;
  bool oom;
} gen_t;

static uint32_t rnd(gen_t *g, uint32_t n) { return n <= 1 ? 0 : (uint32_t)(berth_fuzzgen_rand(&g->rng) % n); }
static bool pct(gen_t *g, int32_t p) { return (int32_t)rnd(g, 100) < p; }
/* A small f32 value that is exact in binary: a multiple of 1/8 in [-2, 2]. */
static double rval(gen_t *g) { return (double)((int32_t)rnd(g, 33) - 16) / 8.0; }

static berth_type_t vtype(const gen_t *g, int32_t v) { return g->m->values[v].type; }

static berth_type_t make_type(berth_dtype_t dt, int32_t rank, const int64_t *dims) {
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = dt;
  t.rank = rank;
  for (int32_t i = 0; i < rank; i++) t.dims[i] = dims[i];
  return t;
}

static berth_type_t scalar_type(berth_dtype_t dt) { return make_type(dt, 0, NULL); }

/* t stacked T times along a new axis 0. */
static berth_type_t stacked(const berth_type_t *t, int64_t T) {
  int64_t dims[BERTH_MAX_RANK];
  dims[0] = T;
  for (int32_t i = 0; i < t->rank && i + 1 < BERTH_MAX_RANK; i++) dims[i + 1] = t->dims[i];
  return make_type(t->dtype, t->rank + 1 < BERTH_MAX_RANK ? t->rank + 1 : BERTH_MAX_RANK, dims);
}

static berth_type_t sliced(const berth_type_t *t) { return make_type(t->dtype, t->rank - 1, t->dims + 1); }

static const char *fresh(gen_t *g, char *buf, size_t cap, const char *prefix) {
  berth_snprintf(buf, cap, "%s%d", prefix, (int)g->names++);
  return buf;
}

/* Whether value v (probably) differs from call to call: method inputs do, constants do
 * not, a buffer once something that varies has been copied into it, a node result when an
 * operand does, a body parameter when its HOP operand does. Values captured by bodies are
 * not followed, so a HOP result may vary when this says it does not; it only steers
 * run-time checks towards values that vary (a check on a value that never changes fails
 * in every call or in none). */
static bool varies(const gen_t *g, int32_t v) {
  return g->m->values[v].kind != BERTH_IR_CONST && v < g->cap_varies && g->varies[v];
}

static bool varies_room(gen_t *g, int32_t v) {
  if (v < g->cap_varies) return true;
  int32_t nc = g->cap_varies ? g->cap_varies * 2 : 256;
  while (nc <= v) nc *= 2;
  uint8_t *nv = realloc(g->varies, (size_t)nc);
  if (!nv) {
    g->oom = true;
    return false;
  }
  memset(nv + g->cap_varies, 0, (size_t)(nc - g->cap_varies));
  g->varies = nv;
  g->cap_varies = nc;
  return true;
}

static void note_varies(gen_t *g, int32_t v) {
  if (!varies_room(g, v)) return;
  const berth_ir_value_t *val = &g->m->values[v];
  bool y = false;
  if (val->kind == BERTH_IR_PARAM && val->graph == g->m->body) y = true;
  else if (val->kind == BERTH_IR_PARAM) {
    const berth_ir_node_t *n = &g->m->nodes[g->m->graphs[val->graph].parent_node];
    int32_t k = val->index + (n->op == BERTH_OP_COND ? 1 : 0);
    y = k < n->n_in && varies(g, n->in[k]);
  } else if (val->kind == BERTH_IR_NODE) {
    const berth_ir_node_t *n = &g->m->nodes[val->node];
    for (int32_t i = 0; i < n->n_in && !y; i++) y = varies(g, n->in[i]);
  }
  g->varies[v] = y;
}

static void push(gen_t *g, int32_t v) {
  if (v < 0) {
    g->oom = true;
    return;
  }
  note_varies(g, v);
  if (g->oom) return;
  if (g->n_scope == g->cap_scope) {
    int32_t nc = g->cap_scope ? g->cap_scope * 2 : 64;
    int32_t *ns = realloc(g->scope, (size_t)nc * sizeof *ns);
    if (!ns) {
      g->oom = true;
      return;
    }
    g->scope = ns;
    g->cap_scope = nc;
  }
  g->scope[g->n_scope++] = v;
}

static berth_attr_value_t a_int(int64_t i) {
  berth_attr_value_t a;
  memset(&a, 0, sizeof a);
  a.i = i;
  return a;
}

static berth_attr_value_t a_ints(const int64_t *v, int32_t n) {
  berth_attr_value_t a;
  memset(&a, 0, sizeof a);
  a.n = n;
  for (int32_t i = 0; i < n && i < BERTH_MAX_ATTR_INTS; i++) a.ints[i] = v[i];
  return a;
}

/* A SCALAR attribute as the parser stores it: i and n = 1 when the value is integral. */
static berth_attr_value_t a_scalar(double f) {
  berth_attr_value_t a;
  memset(&a, 0, sizeof a);
  a.f = f;
  if (f == (double)(int64_t)f) {
    a.i = (int64_t)f;
    a.n = 1;
  }
  return a;
}

/* ---- candidates ---------------------------------------------------------------------- */

typedef enum filt_kind {
  F_F32,       /* an f32 tensor small enough to compute with */
  F_ANY,       /* any small value */
  F_STACKABLE, /* f32 of rank <= 3 (stacking adds a dim) */
  F_STACKED,   /* f32 with a leading dim of 0..3 (equal to lead when lead >= 0) */
  F_STACKED_NONEMPTY, /* the same with a leading dim of 1..3 */
  F_COUNTER,   /* i64 scalar: every one the generator makes is in 0..3 */
  F_PRED,      /* one-element bool */
  F_CHECK,     /* a non-empty f32 tensor small enough to compute with */
  F_CHECK_VARYING, /* the same, one that changes from call to call */
  F_TYPE,      /* exactly type t */
} filt_kind_t;

typedef struct filt {
  filt_kind_t kind;
  berth_type_t t;
  int64_t lead;
} filt_t;

static filt_t filt(filt_kind_t kind) {
  filt_t f;
  memset(&f, 0, sizeof f);
  f.kind = kind;
  f.lead = -1;
  return f;
}

static filt_t filt_type(const berth_type_t *t) {
  filt_t f = filt(F_TYPE);
  f.t = *t;
  return f;
}

static bool small(const berth_type_t *t, int64_t numel) { return t->rank <= 5 && berth_type_numel(t) <= numel; }

static bool match(const gen_t *g, int32_t v, const filt_t *f) {
  const berth_type_t *t = &g->m->values[v].type;
  switch (f->kind) {
    case F_F32: return t->dtype == BERTH_DTYPE_F32 && small(t, 256);
    case F_ANY: return small(t, 256);
    case F_STACKABLE: return t->dtype == BERTH_DTYPE_F32 && t->rank <= 3 && small(t, 64);
    case F_STACKED:
      return t->dtype == BERTH_DTYPE_F32 && t->rank >= 1 && t->dims[0] <= 3 && small(t, 256) &&
             (f->lead < 0 || t->dims[0] == f->lead);
    case F_STACKED_NONEMPTY:
      return t->dtype == BERTH_DTYPE_F32 && t->rank >= 1 && t->dims[0] >= 1 && t->dims[0] <= 3 && small(t, 256) &&
             (f->lead < 0 || t->dims[0] == f->lead);
    case F_COUNTER: return t->dtype == BERTH_DTYPE_I64 && t->rank == 0;
    case F_PRED: return t->dtype == BERTH_DTYPE_BOOL && berth_type_numel(t) == 1;
    case F_CHECK: return t->dtype == BERTH_DTYPE_F32 && small(t, 256) && berth_type_numel(t) >= 1;
    case F_CHECK_VARYING:
      return t->dtype == BERTH_DTYPE_F32 && small(t, 256) && berth_type_numel(t) >= 1 && varies(g, v);
    case F_TYPE: return berth_type_equal(t, &f->t);
  }
  return false;
}

static bool cand_room(gen_t *g) {
  int32_t need = g->n_scope + g->n_gv + 1;
  if (need <= g->cap_cand) return true;
  int32_t *nc = realloc(g->cand, (size_t)need * 2 * sizeof *nc);
  if (!nc) {
    g->oom = true;
    return false;
  }
  g->cand = nc;
  g->cap_cand = need * 2;
  return true;
}

/* A visible value matching f (globals too when `globals`); half the time one defined in
 * `graph` itself when there is one. -1 if none matches. */
static int32_t pick(gen_t *g, int32_t graph, const filt_t *f, bool globals) {
  if (!cand_room(g)) return -1;
  int32_t n = 0, n_local = 0;
  for (int32_t i = 0; i < g->n_scope; i++)
    if (match(g, g->scope[i], f) && g->m->values[g->scope[i]].graph == graph) g->cand[n++] = g->scope[i];
  n_local = n;
  for (int32_t i = 0; i < g->n_scope; i++)
    if (match(g, g->scope[i], f) && g->m->values[g->scope[i]].graph != graph) g->cand[n++] = g->scope[i];
  if (globals)
    for (int32_t i = 0; i < g->n_gv; i++)
      if (match(g, g->gv[i], f)) g->cand[n++] = g->gv[i];
  if (!n) return -1;
  if (n_local && pct(g, 50)) return g->cand[rnd(g, (uint32_t)n_local)];
  return g->cand[rnd(g, (uint32_t)n)];
}

/* ---- nodes --------------------------------------------------------------------------- */

/* Appends a one-result kernel node when its infer accepts the operands; returns the result
 * value or -1 (nothing emitted). attrs (the op's n_attrs values) may be NULL: defaults. */
static int32_t kernel(gen_t *g, int32_t graph, berth_op_t op, int32_t n_in, const int32_t *in,
                      const berth_attr_value_t *attrs) {
  if (g->oom) return -1;
  const berth_op_def_t *def = berth_op_get(op);
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  memset(a, 0, sizeof a);
  berth_op_attrs_default(def, a);
  if (attrs && def->n_attrs) memcpy(a, attrs, (size_t)def->n_attrs * sizeof *a);
  berth_type_t it[8], out[2];
  if (n_in > 8) return -1;
  for (int32_t i = 0; i < n_in; i++) it[i] = vtype(g, in[i]);
  memset(out, 0, sizeof out);
  if (def->infer(a, it, n_in, out, NULL) != BERTH_OK) return -1;
  if (!berth_type_check(&out[0]) || out[0].rank > 6 || berth_type_numel(&out[0]) > 768) return -1;
  int32_t dummy = 0;
  int32_t nd = berth_ir_node_add(g->m, graph, op, n_in, n_in ? in : &dummy);
  if (nd < 0) {
    g->oom = true;
    return -1;
  }
  memcpy(g->m->nodes[nd].attrs, a, sizeof a);
  char name[24];
  int32_t v = berth_ir_node_result_add(g->m, nd, fresh(g, name, sizeof name, "v"), &out[0]);
  push(g, v);
  g->budget--;
  return g->oom ? -1 : v;
}

static int32_t full(gen_t *g, int32_t graph, const berth_type_t *t, double value) {
  berth_attr_value_t a[3];
  a[0] = a_ints(t->dims, t->rank);
  a[1] = a_int(t->dtype);
  a[2] = a_scalar(value);
  return kernel(g, graph, BERTH_OP_FULL, 0, NULL, a);
}

static int32_t any_f32(gen_t *g, int32_t graph) {
  filt_t f = filt(F_F32);
  int32_t v = pick(g, graph, &f, true);
  return v >= 0 ? v : full(g, graph, &g->base, rval(g));
}

static int32_t gen_unary_of(gen_t *g, int32_t graph, int32_t x) {
  static const berth_op_t ops[] = {BERTH_OP_NEG, BERTH_OP_ABS, BERTH_OP_TANH, BERTH_OP_CLONE};
  return x < 0 ? -1 : kernel(g, graph, ops[rnd(g, 4)], 1, &x, NULL);
}

/* One view-like call on x (the planner makes these views of x, DESIGN rule 7): reshape to
 * one axis, unsqueeze, squeeze of a leading 1, a slice of rows (contiguous: a view at an
 * offset) or, now and then, of the last axis (strided: stays a copy), or clone. */
static int32_t gen_view_step(gen_t *g, int32_t graph, int32_t x) {
  berth_type_t t = vtype(g, x);
  int64_t n = berth_type_numel(&t), zero = 0, one = 1;
  switch (rnd(g, 5)) {
    case 0: {
      berth_attr_value_t shape = a_ints(&n, 1);
      return kernel(g, graph, BERTH_OP_RESHAPE, 1, &x, &shape);
    }
    case 1: {
      int64_t axis = rnd(g, (uint32_t)t.rank + 1);
      berth_attr_value_t axes = a_ints(&axis, 1);
      return kernel(g, graph, BERTH_OP_UNSQUEEZE, 1, &x, &axes);
    }
    case 2: {
      berth_attr_value_t axes = a_ints(&zero, 1);
      if (t.rank > 0 && t.dims[0] == 1) return kernel(g, graph, BERTH_OP_SQUEEZE, 1, &x, &axes);
      return kernel(g, graph, BERTH_OP_UNSQUEEZE, 1, &x, &axes);
    }
    case 3: {
      if (t.rank == 0) break;
      int64_t axis = pct(g, 80) ? 0 : t.rank - 1, d = t.dims[axis];
      int64_t start = d ? (int64_t)rnd(g, (uint32_t)d) : 0, end = start + (d ? 1 + (int64_t)rnd(g, (uint32_t)(d - start)) : 0);
      berth_attr_value_t a[4] = {a_ints(&axis, 1), a_ints(&start, 1), a_ints(&end, 1), a_ints(&one, 1)};
      return kernel(g, graph, BERTH_OP_SLICE, 1, &x, a);
    }
    default: break;
  }
  return kernel(g, graph, BERTH_OP_CLONE, 1, &x, NULL);
}

/* A chain of one to three views of a visible f32 value (an input, a constant or buffer, a HOP
 * result, a body or loop parameter, a value computed here), half the time ending in the
 * source's own type (reshaped back), so it can be returned as a body or method result. */
static int32_t gen_view(gen_t *g, int32_t graph, int32_t x) {
  if (x < 0) return -1;
  berth_type_t xt = vtype(g, x);
  int32_t v = x, steps = 1 + (int32_t)rnd(g, 3);
  for (int32_t k = 0; k < steps && v >= 0; k++) v = gen_view_step(g, graph, v);
  if (v < 0 || !pct(g, 50)) return v;
  berth_type_t vt = vtype(g, v);
  if (berth_type_numel(&vt) != berth_type_numel(&xt) || berth_type_equal(&vt, &xt)) return v;
  berth_attr_value_t shape = a_ints(xt.dims, xt.rank);
  return kernel(g, graph, BERTH_OP_RESHAPE, 1, &v, &shape);
}

/* a (op) b with b of a's type, a scalar, or anything that broadcasts; falls back to a (op) a. */
static int32_t gen_binary_with(gen_t *g, int32_t graph, int32_t a) {
  static const berth_op_t ops[] = {BERTH_OP_ADD, BERTH_OP_SUB, BERTH_OP_MUL, BERTH_OP_MAXIMUM};
  if (a < 0) return -1;
  berth_op_t op = ops[rnd(g, 4)];
  berth_type_t at = vtype(g, a), st = scalar_type(BERTH_DTYPE_F32);
  uint32_t r = rnd(g, 10);
  filt_t f = r < 6 ? filt_type(&at) : r < 8 ? filt_type(&st) : filt(F_F32);
  int32_t b = pick(g, graph, &f, true);
  if (b < 0) b = a;
  int32_t in[2] = {a, b};
  if (pct(g, 50)) {
    in[0] = b;
    in[1] = a;
  }
  int32_t v = kernel(g, graph, op, 2, in, NULL);
  if (v < 0 && !g->oom) {
    in[0] = in[1] = a;
    v = kernel(g, graph, op, 2, in, NULL);
  }
  return v;
}

static void gen_copy(gen_t *g, int32_t graph) {
  if (!g->n_states) {
    gen_unary_of(g, graph, any_f32(g, graph));
    return;
  }
  int32_t s = g->states[rnd(g, (uint32_t)g->n_states)];
  berth_type_t st = vtype(g, s);
  int32_t src = -1;
  if (pct(g, 60)) {
    filt_t f = filt_type(&st);
    src = pick(g, graph, &f, true);
  }
  if (src < 0) {
    src = gen_binary_with(g, graph, s);
    if (src >= 0 && !berth_type_equal(&g->m->values[src].type, &st)) src = -1;
  }
  if (src < 0) src = kernel(g, graph, pct(g, 50) ? BERTH_OP_TANH : BERTH_OP_NEG, 1, &s, NULL);
  if (src < 0) return;
  int32_t in[2] = {s, src};
  if (berth_ir_node_add(g->m, graph, BERTH_OP_COPY_, 2, in) < 0) g->oom = true;
  if (varies(g, src) && varies_room(g, s)) g->varies[s] = 1;
  g->budget--;
}

/* A value stacked T times along a new axis 0: unsqueeze + concat of T values of one type
 * (`computed` percent of the parts computed by a kernel call on the unsqueezed value, so the
 * planner can do the concat in place, a JOIN; now and then one part twice, which it cannot),
 * or unsqueeze + expand. */
static int32_t gen_stack(gen_t *g, int32_t graph, int64_t T, int32_t computed) {
  filt_t f = filt(F_STACKABLE);
  int32_t x = pick(g, graph, &f, true);
  if (x < 0) x = full(g, graph, &g->base, rval(g));
  if (x < 0) return -1;
  berth_type_t xt = vtype(g, x);
  int64_t zero = 0;
  berth_attr_value_t axes0 = a_ints(&zero, 1);
  berth_type_t st = stacked(&xt, T);
  if (T == 0 || T > 3 || pct(g, 30)) {
    int32_t u = kernel(g, graph, BERTH_OP_UNSQUEEZE, 1, &x, &axes0);
    if (u < 0) return -1;
    berth_attr_value_t shape = a_ints(st.dims, st.rank);
    int32_t e = kernel(g, graph, BERTH_OP_EXPAND, 1, &u, &shape);
    return e >= 0 ? e : full(g, graph, &st, rval(g));
  }
  int32_t parts[3];
  filt_t same = filt_type(&xt);
  for (int64_t i = 0; i < T; i++) {
    int32_t xi = x;
    if (i > 0 && pct(g, 60)) {
      xi = pick(g, graph, &same, true);
      if (xi < 0) xi = x;
    }
    parts[i] = kernel(g, graph, BERTH_OP_UNSQUEEZE, 1, &xi, &axes0);
    if (parts[i] < 0) return -1;
    /* a part computed by a kernel call (not a view): the planner may compute it in its slot
     * of the concat (a JOIN, plan/views.c); now and then the same part twice (it may not) */
    if (T > 1 && pct(g, computed)) parts[i] = i > 0 && pct(g, 10) ? parts[i - 1] : gen_unary_of(g, graph, parts[i]);
    if (parts[i] < 0) return -1;
  }
  if (T == 1) return parts[0];
  berth_attr_value_t axis = a_int(0);
  return kernel(g, graph, BERTH_OP_CONCAT, (int32_t)T, parts, &axis);
}

/* A one-element bool: sometimes one already visible, usually sum(x) > threshold. */
static int32_t gen_pred(gen_t *g, int32_t graph) {
  if (pct(g, 30)) {
    filt_t f = filt(F_PRED);
    int32_t v = pick(g, graph, &f, false);
    if (v >= 0) return v;
  }
  int32_t x = any_f32(g, graph);
  if (x < 0) return -1;
  berth_type_t xt = vtype(g, x);
  int32_t s = x;
  if (berth_type_numel(&xt) != 1 || pct(g, 40)) {
    berth_attr_value_t a[2] = {a_ints(NULL, 0), a_int(1)};
    s = kernel(g, graph, BERTH_OP_SUM, 1, &x, a);
    if (s < 0) return -1;
  }
  berth_type_t sc = scalar_type(BERTH_DTYPE_F32);
  int32_t thr = -1;
  if (pct(g, 30)) {
    filt_t f = filt_type(&sc);
    thr = pick(g, graph, &f, true);
  }
  if (thr < 0) thr = full(g, graph, &sc, pct(g, 60) ? 0.0 : rval(g) / 4);
  if (thr < 0) return -1;
  int32_t in[2] = {s, thr};
  return kernel(g, graph, BERTH_OP_GT, 2, in, NULL);
}

/* ---- run-time checks ------------------------------------------------------------------ */

/* Thresholds for checks, as multiples of 1/4: a reduction of a value compared with one
 * of these a little outside its usual range holds for most inputs (tuned by measuring the
 * share of calls that fail a check; see fuzzgen.h). */
static const int8_t k_check_limits[] = {4, 5, 6, 7, 8, 10};

/* A one-element bool that holds for most inputs: mean, max, min or sum of a value (one that
 * changes from call to call when there is one) compared with a threshold, such as
 * mean(x) > -1.5 or max(x) < 2.25. */
static int32_t gen_check(gen_t *g, int32_t graph) {
  filt_t f = filt(F_CHECK_VARYING);
  int32_t x = pct(g, 90) ? pick(g, graph, &f, true) : -1;
  if (x < 0) {
    f = filt(F_CHECK);
    x = pick(g, graph, &f, true);
  }
  if (x < 0) x = full(g, graph, &g->base, rval(g));
  if (x < 0) return -1;
  /* sums grow with the element count: only of a few elements */
  static const berth_op_t reduce[] = {BERTH_OP_MEAN, BERTH_OP_MEAN, BERTH_OP_MAX, BERTH_OP_MIN, BERTH_OP_SUM};
  int64_t numel = berth_type_numel(&g->m->values[x].type);
  uint32_t r = rnd(g, numel <= 2 ? 5 : 4);
  int32_t s = x;
  if (numel > 1 || pct(g, 50)) {
    berth_attr_value_t a[2] = {a_ints(NULL, 0), a_int(pct(g, 50))};
    s = kernel(g, graph, reduce[r], 1, &x, a);
    if (s < 0) return -1;
  }
  /* max: below a high limit; min: above a low one; mean and sum: either */
  bool above = reduce[r] == BERTH_OP_MIN || (reduce[r] != BERTH_OP_MAX && pct(g, 50));
  double limit = (double)k_check_limits[rnd(g, sizeof k_check_limits / sizeof *k_check_limits)] / 4.0;
  if (reduce[r] == BERTH_OP_MAX || reduce[r] == BERTH_OP_MIN) limit += 0.75; /* extremes of many elements */
  berth_type_t sc = scalar_type(BERTH_DTYPE_F32);
  int32_t t = full(g, graph, &sc, above ? -limit : limit);
  if (t < 0) return -1;
  int32_t in[2] = {s, t};
  return kernel(g, graph, above ? BERTH_OP_GT : BERTH_OP_LT, 2, in, NULL);
}

/* assert(check) {message = "check N ..."}: every assert of a program has its own message,
 * so the driver can tell which one failed; some messages carry quotes, backslashes, tabs
 * or UTF-8 to exercise the string table. Sometimes the check is or'ed with a bool computed
 * earlier (a cond's predicate, an input flag, one captured from an enclosing graph), which
 * keeps that bool alive until the assert. */
static void gen_assert(gen_t *g, int32_t graph) {
  int32_t budget = g->budget - 1; /* the check's nodes come on top: HOPs keep their share */
  int32_t c = gen_check(g, graph);
  g->budget = budget;
  if (c < 0) return;
  if (pct(g, 25)) {
    filt_t f = filt(F_PRED);
    int32_t old = pick(g, graph, &f, false);
    if (old >= 0 && old != c) {
      int32_t in[2] = {old, c};
      if (pct(g, 50)) {
        in[0] = c;
        in[1] = old;
      }
      int32_t o = kernel(g, graph, BERTH_OP_LOGICAL_OR, 2, in, NULL);
      g->budget = budget;
      if (o >= 0) c = o;
    }
  }
  if (g->oom) return;
  static const char *const extra[] = {" \"quoted\"", " back\\slash", " tab\there", " caf\xc3\xa9 \xe2\x89\xa5 0"};
  char msg[128];
  berth_snprintf(msg, sizeof msg, "check %d on %%%s%s", (int)g->n_asserts++, g->m->values[c].name,
               pct(g, 15) ? extra[rnd(g, sizeof extra / sizeof *extra)] : "");
  int32_t text = -1;
  int32_t nd = berth_ir_string_add(g->p, msg, strlen(msg), &text) ? -1 : berth_ir_node_add(g->m, graph, BERTH_OP_ASSERT, 1, &c);
  if (nd < 0) {
    g->oom = true;
    return;
  }
  g->m->nodes[nd].attrs[0] = a_int(text);
}

/* An i64 trip count in 0..3. */
static int32_t gen_counter(gen_t *g, int32_t graph) {
  if (pct(g, 40)) {
    filt_t f = filt(F_COUNTER);
    int32_t v = pick(g, graph, &f, true);
    if (v >= 0) return v;
  }
  berth_type_t t = scalar_type(BERTH_DTYPE_I64);
  return full(g, graph, &t, rnd(g, 10) == 0 ? 0 : 1 + rnd(g, 3));
}

static void gen_reduce(gen_t *g, int32_t graph) {
  filt_t f = filt(F_STACKED);
  int32_t x = pct(g, 50) ? pick(g, graph, &f, true) : -1;
  if (x >= 0) { /* sum over the stacked axis */
    int64_t zero = 0;
    berth_attr_value_t a[2] = {a_ints(&zero, 1), a_int(0)};
    kernel(g, graph, BERTH_OP_SUM, 1, &x, a);
    return;
  }
  x = any_f32(g, graph);
  berth_attr_value_t a[2] = {a_ints(NULL, 0), a_int(1)};
  if (x >= 0) kernel(g, graph, BERTH_OP_SUM, 1, &x, a);
}

/* ---- results ------------------------------------------------------------------------- */

enum { R_TWICE, R_PARAM, R_SWAP, R_GLOBAL, R_OUTER, R_LOCAL, R_COUNT };

/* weights per category */
static const int32_t W_BRANCH[R_COUNT] = {10, 22, 0, 12, 18, 38};
static const int32_t W_LOOP[R_COUNT] = {8, 15, 15, 8, 10, 44};
static const int32_t W_STEP[R_COUNT] = {12, 15, 0, 8, 12, 53};
static const int32_t W_METHOD[R_COUNT] = {12, 15, 0, 15, 0, 58};

static bool in_list(int32_t v, const int32_t *list, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (list[i] == v) return true;
  return false;
}

static bool category_match(const gen_t *g, int32_t v, int32_t graph, int cat, int32_t self_param,
                           const int32_t *prev, int32_t n_prev) {
  const berth_ir_value_t *val = &g->m->values[v];
  switch (cat) {
    case R_TWICE: return in_list(v, prev, n_prev);
    case R_PARAM: return val->kind == BERTH_IR_PARAM && val->graph == graph && (self_param < 0 || val->index == self_param);
    case R_SWAP: return self_param >= 0 && val->kind == BERTH_IR_PARAM && val->graph == graph && val->index != self_param;
    case R_GLOBAL: return val->kind == BERTH_IR_CONST || val->kind == BERTH_IR_STATE;
    case R_OUTER: return (val->kind == BERTH_IR_PARAM || val->kind == BERTH_IR_NODE) && val->graph != graph;
    case R_LOCAL: return val->kind == BERTH_IR_NODE && val->graph == graph;
  }
  return false;
}

/* A value to return from `graph`: of type *t (any small type when t is NULL), chosen by
 * category (passthrough parameter, swapped loop parameter, constant or buffer, outer
 * capture, local value, or one already returned). self_param: for loop carries, the
 * parameter that carries this result (-1 otherwise). Creates a `full` if nothing fits. */
static int32_t pick_result(gen_t *g, int32_t graph, const berth_type_t *t, const int32_t *weights,
                           int32_t self_param, const int32_t *prev, int32_t n_prev) {
  if (!cand_room(g)) return -1;
  filt_t f = t ? filt_type(t) : filt(F_ANY);
  int32_t total = 0;
  for (int c = 0; c < R_COUNT; c++) total += weights[c];
  int32_t r = (int32_t)rnd(g, (uint32_t)total);
  int first = 0;
  while (r >= weights[first]) r -= weights[first++];
  static const int fallback[] = {R_LOCAL, R_PARAM, R_OUTER, R_GLOBAL, R_TWICE, R_SWAP};
  for (int k = -1; k < (int)(sizeof fallback / sizeof *fallback); k++) {
    int cat = k < 0 ? first : fallback[k];
    if (k >= 0 && !weights[cat] && cat != R_LOCAL && cat != R_OUTER && cat != R_PARAM) continue;
    int32_t n = 0;
    for (int32_t i = 0; i < g->n_scope; i++)
      if (match(g, g->scope[i], &f) && category_match(g, g->scope[i], graph, cat, self_param, prev, n_prev))
        g->cand[n++] = g->scope[i];
    for (int32_t i = 0; i < g->n_gv; i++)
      if (match(g, g->gv[i], &f) && category_match(g, g->gv[i], graph, cat, self_param, prev, n_prev))
        g->cand[n++] = g->gv[i];
    if (n) return g->cand[rnd(g, (uint32_t)n)];
  }
  if (t) return full(g, graph, t, 0);
  return any_f32(g, graph);
}

/* ---- HOPs ------------------------------------------------------------------------------ */

static void gen_nodes(gen_t *g, int32_t graph, int32_t depth, int32_t n);

static int32_t body_nodes(gen_t *g) { return pct(g, 15) ? 0 : 1 + (int32_t)rnd(g, (uint32_t)g->o.max_nodes); }

static int32_t add_param(gen_t *g, int32_t graph, const berth_type_t *t) {
  char name[24];
  int32_t v = berth_ir_param_add(g->m, graph, fresh(g, name, sizeof name, "p"), t);
  push(g, v);
  return v;
}

static void add_results(gen_t *g, int32_t node, const berth_type_t *types, int32_t n) {
  char name[24];
  for (int32_t i = 0; i < n && !g->oom; i++)
    push(g, berth_ir_node_result_add(g->m, node, fresh(g, name, sizeof name, "v"), &types[i]));
}

static void graph_result(gen_t *g, int32_t graph, int32_t v) {
  if (v < 0 || berth_ir_graph_result_add(g->m, graph, v) < 0) g->oom = true;
}

static int32_t hop_node(gen_t *g, int32_t graph, berth_op_t op, int32_t n_in, const int32_t *in) {
  int32_t dummy = 0;
  int32_t nd = berth_ir_node_add(g->m, graph, op, n_in, n_in ? in : &dummy);
  if (nd < 0) g->oom = true;
  g->budget--;
  return nd;
}

static int32_t add_graph(gen_t *g, int32_t node, const char *label) {
  int32_t gr = berth_ir_graph_add(g->m, node, label);
  if (gr < 0) g->oom = true;
  return gr;
}

/* An operand for a HOP: usually f32, sometimes any type (i64 counters, bools). */
static int32_t hop_operand(gen_t *g, int32_t graph) {
  filt_t f = filt(pct(g, 75) ? F_F32 : F_ANY);
  int32_t v = pick(g, graph, &f, true);
  if (v >= 0 && (g->o.avoid & BERTH_FUZZGEN_AVOID_STATE_OPERANDS) && g->m->values[v].kind == BERTH_IR_STATE)
    v = pick(g, graph, &f, false);
  return v >= 0 ? v : any_f32(g, graph);
}

static void gen_cond(gen_t *g, int32_t graph, int32_t depth) {
  int32_t in[1 + MAX_HOP_VALUES];
  in[0] = gen_pred(g, graph);
  if (in[0] < 0) return;
  int32_t n_ops = (int32_t)rnd(g, 4);
  for (int32_t i = 0; i < n_ops; i++)
    if ((in[1 + i] = hop_operand(g, graph)) < 0) return;
  int32_t n_res = 1 + (int32_t)rnd(g, (uint32_t)g->o.max_results);
  if (n_res > MAX_HOP_VALUES) n_res = MAX_HOP_VALUES;
  berth_type_t rt[MAX_HOP_VALUES];
  for (int32_t i = 0; i < n_res; i++) {
    int32_t v = n_ops && pct(g, 35) ? in[1 + rnd(g, (uint32_t)n_ops)] : hop_operand(g, graph);
    if (v < 0) return;
    rt[i] = vtype(g, v);
  }
  int32_t node = hop_node(g, graph, BERTH_OP_COND, 1 + n_ops, in);
  for (int b = 0; b < 2 && !g->oom; b++) {
    int32_t gb = add_graph(g, node, b ? "else" : "then");
    if (gb < 0) return;
    int32_t mark = g->n_scope;
    for (int32_t i = 0; i < n_ops; i++) {
      berth_type_t t = vtype(g, in[1 + i]);
      add_param(g, gb, &t);
    }
    gen_nodes(g, gb, depth + 1, body_nodes(g));
    int32_t res[MAX_HOP_VALUES];
    for (int32_t i = 0; i < n_res && !g->oom; i++) {
      res[i] = pick_result(g, gb, &rt[i], W_BRANCH, -1, res, i);
      graph_result(g, gb, res[i]);
    }
    g->n_scope = mark;
  }
  add_results(g, node, rt, n_res);
}

static void gen_while(gen_t *g, int32_t graph, int32_t depth) {
  berth_type_t i64 = scalar_type(BERTH_DTYPE_I64);
  int32_t in[1 + MAX_HOP_VALUES];
  in[0] = gen_counter(g, graph);
  if (in[0] < 0) return;
  int32_t one_outer = pct(g, 20) ? full(g, graph, &i64, 1) : -1;
  int32_t n_c = 1 + (int32_t)rnd(g, 3);
  for (int32_t i = 1; i <= n_c; i++)
    if ((in[i] = hop_operand(g, graph)) < 0) return;
  int32_t n = n_c + 1;
  berth_type_t ct[1 + MAX_HOP_VALUES];
  for (int32_t i = 0; i < n; i++) ct[i] = vtype(g, in[i]);
  int32_t node = hop_node(g, graph, BERTH_OP_WHILE_LOOP, n, in);
  if (g->oom) return;

  /* cond: counter > 0, sometimes after other work that reads captures */
  int32_t gc = add_graph(g, node, "cond");
  if (gc < 0) return;
  int32_t mark = g->n_scope;
  int32_t first_param = g->n_scope;
  for (int32_t i = 0; i < n; i++) add_param(g, gc, &ct[i]);
  if (g->oom) return;
  int32_t ci = g->scope[first_param];
  if (pct(g, 25)) gen_nodes(g, gc, depth + 1, 1 + (int32_t)rnd(g, 2));
  int32_t zero = g->zero_i >= 0 && pct(g, 40) ? g->zero_i : full(g, gc, &i64, 0);
  int32_t cin[2] = {ci, zero};
  graph_result(g, gc, zero < 0 ? -1 : kernel(g, gc, BERTH_OP_GT, 2, cin, NULL));
  g->n_scope = mark;

  /* body: counter - 1 first, then whatever; carried values passed through, swapped, or new */
  int32_t gb = add_graph(g, node, "body");
  if (gb < 0) return;
  first_param = g->n_scope;
  for (int32_t i = 0; i < n; i++) add_param(g, gb, &ct[i]);
  if (g->oom) return;
  int32_t params[1 + MAX_HOP_VALUES];
  for (int32_t i = 0; i < n; i++) params[i] = g->scope[first_param + i];
  int32_t one = one_outer >= 0 ? one_outer : g->one_i >= 0 && pct(g, 40) ? g->one_i : full(g, gb, &i64, 1);
  int32_t din[2] = {params[0], one};
  int32_t res[1 + MAX_HOP_VALUES];
  int32_t preset[1 + MAX_HOP_VALUES];
  for (int32_t i = 0; i < n; i++) preset[i] = -1;
  res[0] = one < 0 ? -1 : kernel(g, gb, BERTH_OP_SUB, 2, din, NULL);
  /* the old carried value still read after the new one is computed */
  int32_t j = 1 + (int32_t)rnd(g, (uint32_t)n_c);
  int32_t late = -1;
  if (pct(g, 35) && ct[j].dtype == BERTH_DTYPE_F32) {
    preset[j] = pct(g, 50) ? gen_unary_of(g, gb, params[j]) : gen_binary_with(g, gb, params[j]);
    if (preset[j] >= 0 && !berth_type_equal(&g->m->values[preset[j]].type, &ct[j])) preset[j] = -1;
    if (preset[j] >= 0) {
      int32_t lin[2] = {params[j], preset[j]};
      late = kernel(g, gb, BERTH_OP_MUL, 2, lin, NULL);
    }
  }
  gen_nodes(g, gb, depth + 1, body_nodes(g));
  if (late >= 0)
    for (int32_t k = 1; k < n; k++)
      if (k != j && preset[k] < 0 && berth_type_equal(&ct[k], &ct[j]) && pct(g, 70)) {
        preset[k] = late;
        break;
      }
  graph_result(g, gb, res[0]);
  for (int32_t i = 1; i < n && !g->oom; i++) {
    res[i] = preset[i] >= 0 ? preset[i] : pick_result(g, gb, &ct[i], W_LOOP, i, res, i);
    graph_result(g, gb, res[i]);
  }
  g->n_scope = mark;
  add_results(g, node, ct, n);
}

/* Scanned / mapped inputs: 1 or 2 stacked values with one leading dim T. */
static int32_t gen_xs(gen_t *g, int32_t graph, int32_t *xs) {
  bool no_empty = g->o.avoid & BERTH_FUZZGEN_AVOID_EMPTY_SCAN;
  int64_t T = pct(g, 8) && !no_empty ? 0 : 1 + rnd(g, 3);
  filt_t f = filt(no_empty ? F_STACKED_NONEMPTY : F_STACKED);
  bool globals = !(g->o.avoid & BERTH_FUZZGEN_AVOID_STATE_OPERANDS);
  xs[0] = pct(g, 50) ? pick(g, graph, &f, globals) : -1;
  if (xs[0] >= 0) T = g->m->values[xs[0]].type.dims[0];
  else xs[0] = gen_stack(g, graph, T, pct(g, 40) ? 100 : 30);
  if (xs[0] < 0) return 0;
  if (!pct(g, 35)) return 1;
  f.lead = T;
  xs[1] = pct(g, 50) ? pick(g, graph, &f, globals) : -1;
  if (xs[1] < 0) xs[1] = gen_stack(g, graph, T, pct(g, 40) ? 100 : 30);
  return xs[1] < 0 ? 1 : 2;
}

/* Per-step outputs of a scan or map body: n_y values (one of the carries sometimes). */
static void step_outputs(gen_t *g, int32_t gb, int32_t *res, int32_t n_carry, int32_t n_y) {
  for (int32_t j = 0; j < n_y && !g->oom; j++) {
    int32_t y = n_carry && pct(g, 25) ? res[rnd(g, (uint32_t)n_carry)] : pick_result(g, gb, NULL, W_STEP, -1, res, n_carry + j);
    if (y >= 0 && g->m->values[y].type.rank > 5) y = any_f32(g, gb);
    res[n_carry + j] = y;
    graph_result(g, gb, y);
  }
}

static void gen_scan_map(gen_t *g, int32_t graph, int32_t depth, bool is_scan) {
  int32_t xs[2], in[2 * MAX_HOP_VALUES];
  int32_t n_x = gen_xs(g, graph, xs);
  if (!n_x) return;
  int64_t T = g->m->values[xs[0]].type.dims[0];
  int32_t n_other = (int32_t)rnd(g, 3); /* scan: carries; map: invariant args */
  int32_t n = 0;
  if (!is_scan)
    for (int32_t i = 0; i < n_x; i++) in[n++] = xs[i];
  for (int32_t i = 0; i < n_other; i++)
    if ((in[n++] = hop_operand(g, graph)) < 0) return;
  if (is_scan)
    for (int32_t i = 0; i < n_x; i++) in[n++] = xs[i];
  berth_type_t pt[2 * MAX_HOP_VALUES];
  for (int32_t i = 0; i < n; i++) {
    pt[i] = vtype(g, in[i]);
    bool slice = is_scan ? i >= n_other : i < n_x;
    if (slice) pt[i] = sliced(&pt[i]);
  }
  int32_t node = hop_node(g, graph, is_scan ? BERTH_OP_SCAN : BERTH_OP_MAP, n, in);
  if (g->oom) return;
  g->m->nodes[node].attrs[0] = a_int(is_scan ? n_other : n_x);
  int32_t gb = add_graph(g, node, "body");
  if (gb < 0) return;
  int32_t mark = g->n_scope;
  for (int32_t i = 0; i < n; i++) add_param(g, gb, &pt[i]);
  gen_nodes(g, gb, depth + 1, body_nodes(g));
  int32_t res[2 * MAX_HOP_VALUES];
  int32_t n_carry = is_scan ? n_other : 0;
  for (int32_t i = 0; i < n_carry && !g->oom; i++) {
    res[i] = pick_result(g, gb, &pt[i], W_LOOP, i, res, i);
    graph_result(g, gb, res[i]);
  }
  int32_t n_y = (int32_t)rnd(g, 4);
  if (!is_scan || n_carry + n_y == 0) n_y = n_y ? n_y : 1;
  step_outputs(g, gb, res, n_carry, n_y);
  g->n_scope = mark;
  if (g->oom) return;
  berth_type_t rt[2 * MAX_HOP_VALUES];
  for (int32_t i = 0; i < n_carry; i++) rt[i] = pt[i];
  for (int32_t j = 0; j < n_y; j++) {
    berth_type_t yt = vtype(g, res[n_carry + j]);
    rt[n_carry + j] = stacked(&yt, T);
  }
  add_results(g, node, rt, n_carry + n_y);
}

/* ---- graphs ----------------------------------------------------------------------------- */

static void gen_node(gen_t *g, int32_t graph, int32_t depth) {
  /* a check before the node, on top of it: HOPs keep their share of the nodes */
  if (g->o.assert_percent > 0 && pct(g, g->o.assert_percent)) gen_assert(g, graph);
  if (depth < g->o.max_depth && pct(g, g->o.hop_percent)) {
    uint32_t kind = rnd(g, 4);
    if (kind == 1 && (g->o.avoid & BERTH_FUZZGEN_AVOID_WHILE)) kind = 0;
    switch (kind) {
      case 0: gen_cond(g, graph, depth); break;
      case 1: gen_while(g, graph, depth); break;
      case 2: gen_scan_map(g, graph, depth, true); break;
      default: gen_scan_map(g, graph, depth, false); break;
    }
    return;
  }
  uint32_t r = rnd(g, 100);
  if (r < 15) gen_unary_of(g, graph, any_f32(g, graph));
  else if (r < 22) gen_view(g, graph, any_f32(g, graph));
  else if (r < 52) gen_binary_with(g, graph, any_f32(g, graph));
  else if (r < 62) gen_copy(g, graph);
  else if (r < 67) {
    berth_type_t sc = scalar_type(BERTH_DTYPE_F32);
    full(g, graph, pct(g, 60) ? &g->base : &sc, rval(g));
  } else if (r < 77) {
    int32_t s = gen_stack(g, graph, pct(g, 10) ? 0 : 1 + rnd(g, 3), pct(g, 60) ? 100 : 30);
    if (s >= 0 && pct(g, 70)) { /* read by a kernel call: a concat in place stays in use */
      int64_t zero = 0;
      berth_attr_value_t a[2] = {a_ints(&zero, 1), a_int(0)};
      kernel(g, graph, BERTH_OP_SUM, 1, &s, a);
    }
  }
  else if (r < 85) gen_pred(g, graph);
  else if (r < 91) gen_reduce(g, graph);
  else { /* a constant or buffer read directly */
    filt_t f = filt(F_F32);
    int32_t c = -1;
    if (g->n_gv) {
      int32_t v = g->gv[rnd(g, (uint32_t)g->n_gv)];
      if (match(g, v, &f)) c = v;
    }
    if (c < 0) c = any_f32(g, graph);
    uint32_t how = rnd(g, 3);
    if (how == 0) gen_unary_of(g, graph, c);
    else if (how == 1) gen_view(g, graph, c);
    else gen_binary_with(g, graph, c);
  }
}

static void gen_nodes(gen_t *g, int32_t graph, int32_t depth, int32_t n) {
  for (int32_t k = 0; k < n && g->budget > 0 && !g->oom; k++) gen_node(g, graph, depth);
}

/* ---- program ---------------------------------------------------------------------------- */

static void random_data(gen_t *g, const berth_type_t *t, void *data) {
  int64_t n = berth_type_numel(t);
  for (int64_t i = 0; i < n; i++) {
    if (t->dtype == BERTH_DTYPE_F32) ((float *)data)[i] = (float)rval(g);
    else if (t->dtype == BERTH_DTYPE_I64) ((int64_t *)data)[i] = (int64_t)rnd(g, 4);
  }
}

static berth_type_t global_type(gen_t *g) {
  uint32_t r = rnd(g, 100);
  if (r < 60) return g->base;
  if (r < 85 || g->base.rank > 3) return scalar_type(BERTH_DTYPE_F32);
  return stacked(&g->base, 1 + rnd(g, 3));
}

static bool add_global(gen_t *g, const char *name, const berth_type_t *t, bool is_state, const void *fixed) {
  float buf[256];
  const void *data = fixed;
  if (!data) {
    if (berth_type_numel(t) > 256) return true;
    random_data(g, t, buf);
    data = buf;
  }
  return berth_ir_global_add(g->p, name, t, is_state, data) >= 0;
}

berth_status_t berth_fuzzgen_program(uint64_t seed, const berth_fuzzgen_options_t *o, berth_ir_program_t **out) {
  gen_t g;
  memset(&g, 0, sizeof g);
  g.rng = seed ^ 0x5EEDBE27F00DCAFEull;
  berth_fuzzgen_rand(&g.rng);
  g.o = o ? *o : berth_fuzzgen_options_default();
  if (g.o.max_nodes < 1) g.o.max_nodes = 1;
  if (g.o.max_inputs < 1) g.o.max_inputs = 1;
  if (g.o.max_inputs > BERTH_FUZZGEN_MAX_PARAMS - 2) g.o.max_inputs = BERTH_FUZZGEN_MAX_PARAMS - 2;
  if (g.o.max_globals < 0) g.o.max_globals = 0;
  if (g.o.max_globals > 8) g.o.max_globals = 8;
  if (g.o.max_results < 1) g.o.max_results = 1;
  if (g.o.max_depth < 0) g.o.max_depth = 0;
  if (g.o.assert_percent < 0) g.o.assert_percent = 0;
  g.budget = g.o.node_budget;
  g.zero_i = g.one_i = -1;
  g.p = berth_ir_program_create();
  if (!g.p) return BERTH_ERR_RESOURCE_EXHAUSTED;

  static const int64_t shapes[][3] = {{0, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 2, 2}, {2, 2, 3}, {2, 3, 2}, {2, 1, 3}};
  const int64_t *sh = shapes[rnd(&g, sizeof shapes / sizeof *shapes)];
  g.base = make_type(BERTH_DTYPE_F32, (int32_t)sh[0], sh + 1);

  /* constants and buffers */
  bool ok = true;
  char name[24];
  int32_t n_const = (int32_t)rnd(&g, (uint32_t)g.o.max_globals + 1);
  for (int32_t i = 0; i < n_const && ok; i++) {
    berth_type_t t = global_type(&g);
    berth_snprintf(name, sizeof name, "c%d", (int)i);
    ok = add_global(&g, name, &t, false, NULL);
  }
  berth_type_t i64 = scalar_type(BERTH_DTYPE_I64);
  int64_t zero = 0, one = 1;
  int32_t zero_g = -1, one_g = -1;
  if (ok && g.o.max_globals && pct(&g, 30)) {
    zero_g = g.p->n_globals;
    ok = add_global(&g, "zero_i", &i64, false, &zero);
  }
  if (ok && g.o.max_globals && pct(&g, 30)) {
    one_g = g.p->n_globals;
    ok = add_global(&g, "one_i", &i64, false, &one);
  }
  int32_t n_buf = (int32_t)rnd(&g, (uint32_t)g.o.max_globals + 1);
  for (int32_t i = 0; i < n_buf && ok; i++) {
    berth_type_t t = global_type(&g);
    berth_snprintf(name, sizeof name, "s%d", (int)i);
    ok = add_global(&g, name, &t, true, NULL);
  }
  int32_t mi = ok ? berth_ir_method_add(g.p, "forward") : -1;
  if (mi < 0) goto oom;
  g.m = &g.p->methods[mi];

  /* parameters: f32 tensors, and maybe a bool flag and an i64 trip count */
  int32_t n_in = 1 + (int32_t)rnd(&g, (uint32_t)g.o.max_inputs);
  for (int32_t i = 0; i < n_in; i++) {
    uint32_t r = rnd(&g, 100);
    berth_type_t t = r < 60 ? g.base : r < 80 || g.base.rank > 3 ? scalar_type(BERTH_DTYPE_F32) : stacked(&g.base, 1 + rnd(&g, 3));
    berth_snprintf(name, sizeof name, "x%d", (int)i);
    push(&g, berth_ir_param_add(g.m, 0, name, &t));
  }
  if (pct(&g, 40)) {
    berth_type_t t = scalar_type(BERTH_DTYPE_BOOL);
    push(&g, berth_ir_param_add(g.m, 0, "flag", &t));
  }
  if (pct(&g, 40)) push(&g, berth_ir_param_add(g.m, 0, "n", &i64));
  for (int32_t gi = 0; gi < g.p->n_globals && g.n_gv < 64; gi++) {
    int32_t v = berth_ir_global_ref(g.p, g.m, gi);
    if (v < 0) goto oom;
    g.gv[g.n_gv++] = v;
    if (g.p->globals[gi].is_state && g.n_states < 32) g.states[g.n_states++] = v;
    if (gi == zero_g) g.zero_i = v;
    if (gi == one_g) g.one_i = v;
  }

  gen_nodes(&g, 0, 0, g.o.max_nodes + (int32_t)rnd(&g, (uint32_t)g.o.max_nodes + 1));
  /* state that changes from call to call */
  for (int32_t i = 0; i < g.n_states && !g.oom; i++)
    if (pct(&g, 50)) {
      g.budget++;
      gen_copy(&g, 0);
    }
  /* a check after those writes: a failing call leaves the buffers written */
  if (g.o.assert_percent > 0 && pct(&g, 3 * g.o.assert_percent)) gen_assert(&g, 0);
  int32_t n_res = 1 + (int32_t)rnd(&g, (uint32_t)g.o.max_results);
  int32_t res[16];
  if (n_res > 16) n_res = 16;
  for (int32_t i = 0; i < n_res && !g.oom; i++) {
    res[i] = pick_result(&g, 0, NULL, W_METHOD, -1, res, i);
    graph_result(&g, 0, res[i]);
  }
  if (g.oom) goto oom;
  free(g.scope);
  free(g.cand);
  free(g.varies);
  *out = g.p;
  return BERTH_OK;
oom:
  free(g.scope);
  free(g.cand);
  free(g.varies);
  berth_ir_program_destroy(g.p);
  return BERTH_ERR_RESOURCE_EXHAUSTED;
}

/* ---- inputs ------------------------------------------------------------------------------- */

berth_status_t berth_fuzzgen_inputs_create(const berth_ir_program_t *p, int32_t method, uint64_t seed, int32_t call,
                                           void **inputs) {
  if (!p || method < 0 || method >= p->n_methods) return BERTH_ERR_INVALID_ARGUMENT;
  const berth_ir_method_t *m = &p->methods[method];
  const berth_ir_graph_t *body = &m->graphs[m->body];
  if (body->n_params > BERTH_FUZZGEN_MAX_PARAMS) return BERTH_ERR_INVALID_ARGUMENT;
  for (int32_t i = 0; i < body->n_params; i++) {
    const berth_type_t *t = &m->values[body->params[i]].type;
    size_t bytes = berth_type_bytes(t);
    inputs[i] = calloc(bytes ? bytes : 1, 1);
    if (!inputs[i]) {
      for (int32_t k = 0; k < i; k++) free(inputs[k]);
      return BERTH_ERR_RESOURCE_EXHAUSTED;
    }
    uint64_t s = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(call + 1)) ^ (0x8CB92BA72F3D8DD7ull * (uint64_t)(i + 1));
    int64_t n = berth_type_numel(t);
    for (int64_t k = 0; k < n; k++) {
      uint64_t r = berth_fuzzgen_rand(&s);
      switch (t->dtype) {
        case BERTH_DTYPE_F32: ((float *)inputs[i])[k] = (float)((int32_t)(r % 33) - 16) / 8.0f; break;
        case BERTH_DTYPE_I64: ((int64_t *)inputs[i])[k] = (int64_t)(r % 4); break;
        case BERTH_DTYPE_BOOL: ((uint8_t *)inputs[i])[k] = (uint8_t)(r & 1); break;
        default: break;
      }
    }
  }
  return BERTH_OK;
}

void berth_fuzzgen_inputs_destroy(const berth_ir_program_t *p, int32_t method, void **inputs) {
  if (!p || method < 0 || method >= p->n_methods) return;
  const berth_ir_method_t *m = &p->methods[method];
  int32_t n = m->graphs[m->body].n_params;
  for (int32_t i = 0; i < n && i < BERTH_FUZZGEN_MAX_PARAMS; i++) {
    free(inputs[i]);
    inputs[i] = NULL;
  }
}
