#define _POSIX_C_SOURCE 200809L
/* The planner's stages after the lowering (plan_stages.h): arena groups, pool assignment,
 * offsets per pool, the state region, the exec method and the report. */
#include "plan_stages.h"
#include "base/try.h"

#include "base/checked.h"
#include "format/read_program.h"
#include "berth/memory.h"

#include <stdlib.h>
#include <string.h>

/* ---- owned memory: a simple list of blocks freed together -------------------------- */

struct berth_plan_owner {
  void **blocks;
  size_t n, cap;
};

berth_plan_owner_t *berth_plan_owner_create(void) { return calloc(1, sizeof(berth_plan_owner_t)); }

/* p (NULL: out of memory), freed with the owner; NULL when it could not be recorded */
static void *keep(berth_plan_owner_t *o, void *p) {
  if (p && o->n == o->cap) {
    size_t nc = o->cap ? o->cap * 2 : 64;
    void **nb = realloc(o->blocks, nc * sizeof *nb);
    if (!nb) {
      free(p);
      return NULL;
    }
    o->blocks = nb;
    o->cap = nc;
  }
  if (p) o->blocks[o->n++] = p;
  return p;
}

static void *own(berth_plan_owner_t *o, size_t bytes) { return keep(o, calloc(1, bytes ? bytes : 1)); }

void *berth_plan_own_big(berth_plan_owner_t *o, size_t bytes) {
  void *p = keep(o, berth_host_alloc(bytes));
  if (p) memset(p, 0, bytes);
  return p;
}

void berth_plan_owner_destroy(berth_plan_owner_t *o) {
  if (!o) return;
  for (size_t i = 0; i < o->n; i++) free(o->blocks[i]);
  free(o->blocks);
  free(o);
}
static berth_status_t pool_of(const lctx_t *c, const lval_t *root, int32_t *pool) {
  *pool = 0;
  const char *rules = c->opt->pools;
  if (!rules || !*rules) return BERTH_OK;
  const char *want[2] = {NULL, NULL};
  if (root->is_input) want[0] = "input";
  if (root->is_output) want[0] = "output";
  if (root->op >= 0) want[1] = berth_op_get((uint32_t)root->op)->name;
  for (int w = 0; w < 2; w++) {
    if (!want[w]) continue;
    size_t wl = strlen(want[w]);
    for (const char *p = rules; *p;) {
      const char *eq = strchr(p, '='), *end = strchr(p, ',');
      if (!end) end = p + strlen(p);
      if (!eq || eq > end) return berth_fail(c->diag, BERTH_ERR_INVALID_ARGUMENT, "pool rule '%s': expected key=pool", p);
      char *stop;
      long id = strtol(eq + 1, &stop, 10);
      if (stop != end || id < 0 || id >= BERTH_MAX_POOLS)
        return berth_fail(c->diag, BERTH_ERR_INVALID_ARGUMENT, "pool rule '%s': pool must be 0..%d", p, BERTH_MAX_POOLS - 1);
      if ((size_t)(eq - p) == wl && memcmp(p, want[w], wl) == 0) {
        *pool = (int32_t)id;
        return BERTH_OK;
      }
      p = *end ? end + 1 : end;
    }
  }
  return BERTH_OK;
}

/* ---- allocation ----------------------------------------------------------------- */

static uint64_t align_up(uint64_t x, uint64_t a) {
  uint64_t r;
  return berth_align_u64(x, a, &r) ? r : x;
}

static int cmp_iv(const void *a, const void *b) {
  const iv_t *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Collects the interval set of a group (sorted, merged, half-open). With `home` >= 0 only
 * members defined in that graph count (the regions baseline's local view). */
static berth_status_t group_intervals(lctx_t *c, int32_t root, int32_t home, berth_plan_owner_t *o,
                                      berth_plan_group_t *b) {
  int32_t n = 0;
  int32_t x = root;
  do {
    n += c->vals[x].n_ivs + 1;
    x = c->vals[x].next;
  } while (x != root);
  iv_t *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
  b->ivs = own(o, (size_t)(n ? n : 1) * sizeof *b->ivs);
  if (!tmp || !b->ivs) {
    free(tmp);
    return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  n = 0;
  x = root;
  do {
    if (home < 0 || c->vals[x].graph == home)
      for (int32_t i = 0; i < c->vals[x].n_ivs; i++) tmp[n++] = c->vals[x].ivs[i];
    else if (c->vals[x].regions_home == home) /* a copied-in cond result: its hand-over only */
      tmp[n++] = c->vals[x].regions_iv;
    x = c->vals[x].next;
  } while (x != root);
  qsort(tmp, (size_t)n, sizeof *tmp, cmp_iv);
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    if (m > 0 && tmp[i].lo <= b->ivs[m - 1].upper) {
      if (tmp[i].hi + 1 > b->ivs[m - 1].upper) b->ivs[m - 1].upper = tmp[i].hi + 1;
    } else {
      b->ivs[m].lower = tmp[i].lo;
      b->ivs[m].upper = tmp[i].hi + 1;
      m++;
    }
  }
  b->n_ivs = m;
  free(tmp);
  return BERTH_OK;
}

/* The allocator's view of n groups (malloc'd; NULL when out of memory). */
static berth_alloc_buffer_t *to_buffers(const lctx_t *c, const berth_plan_group_t *bufs, int32_t n) {
  berth_alloc_buffer_t *ab = malloc((size_t)(n ? n : 1) * sizeof *ab);
  if (!ab) return NULL;
  for (int32_t i = 0; i < n; i++) {
    ab[i].size = bufs[i].size;
    /* never below the element size: kernels access elements at their natural alignment */
    uint64_t elem = berth_dtype_size(c->vals[bufs[i].root].type.dtype);
    ab[i].align = c->opt->alignment > elem ? c->opt->alignment : elem;
    ab[i].n_intervals = bufs[i].n_ivs;
    ab[i].intervals = bufs[i].ivs;
  }
  return ab;
}

/* The largest total size live at one time among n groups. */
static berth_status_t lower_bound_of(lctx_t *c, const berth_plan_group_t *bufs, int32_t n, uint64_t *lb) {
  berth_alloc_buffer_t *ab = to_buffers(c, bufs, n);
  if (!ab) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_alloc_problem_t prob = {n, ab, NULL};
  *lb = n ? berth_alloc_lower_bound(&prob) : 0;
  free(ab);
  return BERTH_OK;
}

static berth_status_t solve(lctx_t *c, berth_plan_group_t *bufs, int32_t n, uint64_t *offsets, uint64_t *arena,
                            uint64_t *lb) {
  berth_alloc_buffer_t *ab = to_buffers(c, bufs, n);
  if (!ab) return berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_alloc_problem_t prob = {n, ab, NULL};
  berth_alloc_options_t ao;
  memset(&ao, 0, sizeof ao);
  ao.algo = c->opt->algo;
  ao.budget_ms = c->opt->budget_ms;
  ao.budget_work = c->opt->budget_work;
  ao.seed = c->opt->seed;
  ao.fit = c->opt->fit;
  berth_alloc_result_t res;
  memset(&res, 0, sizeof res);
  berth_status_t st = n ? berth_alloc_solve(&prob, &ao, offsets, &res, c->diag) : BERTH_OK;
  if (!st && n) st = berth_alloc_check(&prob, offsets, res.arena, c->diag);
  *arena = n ? res.arena : 0;
  if (lb) *lb = n ? berth_alloc_lower_bound(&prob) : 0;
  free(ab);
  return st;
}

/* The regions baseline for one pool: each graph's groups are packed on their own; a graph's
 * nested bodies all start at offset 0 and its own values go after the largest of them. */
static berth_status_t solve_regions(lctx_t *c, berth_plan_group_t *bufs, int32_t n, uint64_t *offsets,
                                    uint64_t *arena) {
  const berth_ir_method_t *m = c->m;
  uint64_t *local = calloc((size_t)m->n_graphs, sizeof *local);
  uint64_t *total = calloc((size_t)m->n_graphs, sizeof *total);
  uint64_t *child = calloc((size_t)m->n_graphs, sizeof *child);
  berth_plan_group_t *sub = malloc((size_t)(n ? n : 1) * sizeof *sub);
  uint64_t *suboff = malloc((size_t)(n ? n : 1) * sizeof *suboff);
  int32_t *map = malloc((size_t)(n ? n : 1) * sizeof *map);
  berth_status_t st = BERTH_OK;
  if (!local || !total || !child || !sub || !suboff || !map) st = berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t g = 0; !st && g < m->n_graphs; g++) {
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++)
      if (bufs[i].home == g) {
        sub[k] = bufs[i];
        map[k++] = i;
      }
    st = solve(c, sub, k, suboff, &local[g], NULL);
    for (int32_t i = 0; !st && i < k; i++) offsets[map[i]] = suboff[i];
  }
  /* graphs are numbered parent before child: sizes bottom-up */
  for (int32_t g = m->n_graphs - 1; !st && g >= 0; g--) {
    total[g] = align_up(child[g] + local[g], 64); /* keeps every offset aligned */
    int32_t pn = m->graphs[g].parent_node;
    if (pn >= 0) {
      int32_t pg = m->nodes[pn].graph;
      if (total[g] > child[pg]) child[pg] = total[g];
    }
  }
  for (int32_t i = 0; !st && i < n; i++) offsets[i] += child[bufs[i].home];
  if (!st) *arena = total[0];
  free(local);
  free(total);
  free(child);
  free(sub);
  free(suboff);
  free(map);
  return st;
}

void berth_plan_lower_init(berth_plan_lowered_t *c, const berth_ir_program_t *p, int32_t mi,
                           const berth_plan_options_t *opt, berth_diag_t *diag) {
  memset(c, 0, sizeof *c);
  c->p = p;
  c->m = &p->methods[mi];
  c->method = mi;
  c->opt = opt;
  c->alloc_inputs = opt->alloc_inputs < 0 ? p->alloc_inputs : opt->alloc_inputs != 0;
  c->alloc_outputs = opt->alloc_outputs < 0 ? p->alloc_outputs : opt->alloc_outputs != 0;
  c->diag = diag;
}

berth_status_t berth_plan_lower(berth_plan_lowered_t *c, const berth_ir_program_t *p, int32_t mi,
                                const berth_plan_options_t *opt, berth_diag_t *diag) {
  berth_plan_lower_init(c, p, mi, opt, diag);
  BERTH_TRY(berth_timeline_build(c));
  BERTH_TRY(berth_views_decide(c));
  BERTH_TRY(berth_coalesce(c));
  BERTH_TRY(berth_emit_method(c));
  return berth_hoist(c);
}

void berth_plan_lower_deinit(berth_plan_lowered_t *c) {
  for (int32_t i = 0; i < c->n_vals; i++) free(c->vals[i].name);
  free(c->vals);
  free(c->node_pos);
  free(c->hop);
  free(c->def_pos);
  free(c->last_pos);
  free(c->ho_base);
  free(c->handover);
  free(c->ho_value);
  free(c->out_value);
  free(c->out_copy);
  free(c->x_copy);
  free(c->x_copy_base);
  free(c->instrs);
  free(c->operands);
}

/* ---- one method, stage by stage (plan_stages.h) -----------------------------------------
 * Each stage reads the lowered method and the typed results before it; everything it
 * allocates is owned (`own`), so a failed stage leaves nothing to undo. */

void *berth_plan_own_n(berth_plan_owner_t *o, size_t n, size_t size) {
  uint64_t bytes;
  if (!berth_mul_u64(n ? n : 1, size, &bytes) || bytes > SIZE_MAX) return NULL;
  return own(o, (size_t)bytes);
}

#define OWN BERTH_PLAN_OWN

/* The graph that plans group v under the regions baseline: the deepest graph that defines a
 * member (or plans a copied-in cond result, regions_home). */
static int32_t regions_home_of(const lctx_t *c, int32_t v) {
  int32_t x = v, best = -1, home = 0;
  do {
    int32_t g = c->vals[x].graph < 0 ? 0 : c->vals[x].graph;
    if (c->opt->strategy == BERTH_STRATEGY_REGIONS && c->vals[x].regions_home >= 0) g = c->vals[x].regions_home;
    int32_t d = berth_ir_graph_depth(c->m, g);
    if (d > best || (d == best && g < home)) {
      best = d;
      home = g;
    }
    x = c->vals[x].next;
  } while (x != v);
  return home;
}

berth_status_t berth_plan_groups(berth_plan_lowered_t *c, berth_plan_owner_t *o, berth_plan_groups_t *out) {
  berth_plan_groups_t g = {0, NULL, NULL};
  OWN(o, g.groups, (size_t)c->n_vals, c->diag);
  OWN(o, g.group_of, (size_t)c->n_vals, c->diag);
  bool regions = c->opt->strategy == BERTH_STRATEGY_REGIONS;
  for (int32_t v = 0; v < c->n_vals; v++) {
    g.group_of[v] = -1;
    if (c->vals[v].alias >= 0 || lctx_group(c, v) != v || c->vals[v].cls != LV_ARENA) continue;
    berth_plan_group_t *b = &g.groups[g.n];
    b->root = v;
    b->size = lctx_group_bytes(c, v); /* views sit inside it (views.c) */
    b->home = regions_home_of(c, v);
    BERTH_TRY(group_intervals(c, v, regions ? b->home : -1, o, b));
    g.group_of[v] = g.n++;
  }
  *out = g;
  return BERTH_OK;
}

berth_status_t berth_plan_assign_pools(const berth_plan_lowered_t *c, berth_plan_owner_t *o,
                                       const berth_plan_groups_t *g, berth_plan_pools_t *out) {
  berth_plan_pools_t r = {1, NULL};
  OWN(o, r.pool, (size_t)g->n, c->diag);
  for (int32_t i = 0; i < g->n; i++) {
    BERTH_TRY(pool_of(c, &c->vals[g->groups[i].root], &r.pool[i]));
    if (r.pool[i] + 1 > r.n_pools) r.n_pools = r.pool[i] + 1;
  }
  *out = r;
  return BERTH_OK;
}

/* Packs the k groups of one pool (pb; their offsets into po); arena and lower bound. */
static berth_status_t plan_one_pool(lctx_t *c, berth_plan_owner_t *o, berth_plan_group_t *pb, int32_t k, uint64_t *po,
                                    uint64_t *arena, uint64_t *lb) {
  *arena = *lb = 0;
  if (c->opt->strategy != BERTH_STRATEGY_REGIONS) return solve(c, pb, k, po, arena, lb);
  BERTH_TRY(solve_regions(c, pb, k, po, arena));
  /* the lower bound is that of the true lifetimes */
  for (int32_t i = 0; i < k; i++) BERTH_TRY(group_intervals(c, pb[i].root, -1, o, &pb[i]));
  return lower_bound_of(c, pb, k, lb);
}

berth_status_t berth_plan_offsets(berth_plan_lowered_t *c, berth_plan_owner_t *o, const berth_plan_groups_t *g,
                                  const berth_plan_pools_t *pools, berth_plan_offsets_t *out) {
  berth_plan_offsets_t r;
  memset(&r, 0, sizeof r);
  berth_plan_group_t *pb;
  uint64_t *po;
  int32_t *pm;
  OWN(o, r.offset, (size_t)g->n, c->diag);
  OWN(o, r.sizes, (size_t)pools->n_pools, c->diag);
  OWN(o, pb, (size_t)g->n, c->diag);
  OWN(o, po, (size_t)g->n, c->diag);
  OWN(o, pm, (size_t)g->n, c->diag);
  r.n_pools = pools->n_pools;
  for (int32_t pool = 0; pool < pools->n_pools; pool++) {
    int32_t k = 0;
    for (int32_t i = 0; i < g->n; i++)
      if (pools->pool[i] == pool) {
        pb[k] = g->groups[i];
        pm[k++] = i;
      }
    uint64_t arena, lb;
    BERTH_TRY(plan_one_pool(c, o, pb, k, po, &arena, &lb));
    for (int32_t i = 0; i < k; i++) r.offset[pm[i]] = po[i];
    /* The one place both `plan` and `compile` check the file format's cap. */
    if (arena > BERTH_FORMAT_MAX_ARENA_BYTES)
      return berth_fail(c->diag, BERTH_ERR_OUT_OF_RANGE,
                        "pool %d needs an arena of %llu bytes, above the cap of %llu bytes (2^40) per pool", (int)pool,
                        (unsigned long long)arena, (unsigned long long)BERTH_FORMAT_MAX_ARENA_BYTES);
    r.sizes[pool] = arena;
    r.pools[pool].arena_bytes = arena;
    r.pools[pool].lower_bound_bytes = lb;
    r.pools[pool].n_buffers = k;
  }
  *out = r;
  return BERTH_OK;
}

/* The state region: one slot per mutable buffer the method uses, with its initial value. */
berth_status_t berth_plan_state(const berth_plan_lowered_t *c, berth_plan_owner_t *o, berth_plan_state_t *out) {
  const berth_ir_program_t *p = c->p;
  berth_plan_state_t r = {NULL, 0, NULL};
  OWN(o, r.offsets, (size_t)p->n_globals, c->diag);
  for (int32_t g = 0; g < p->n_globals; g++) {
    r.offsets[g] = 0;
    if (!p->globals[g].is_state) continue;
    bool used = false;
    for (int32_t v = 0; v < c->m->n_values; v++)
      if (c->m->values[v].kind == BERTH_IR_STATE && c->m->values[v].index == g) used = true;
    if (!used) continue;
    r.size = align_up(r.size, BERTH_FORMAT_STATE_ALIGN);
    r.offsets[g] = r.size;
    r.size += berth_type_bytes(&p->globals[g].type);
  }
  if (r.size > BERTH_FORMAT_MAX_ARENA_BYTES)
    return berth_fail(c->diag, BERTH_ERR_OUT_OF_RANGE, "the state region needs %llu bytes, above the cap of %llu bytes (2^40)",
                      (unsigned long long)r.size, (unsigned long long)BERTH_FORMAT_MAX_ARENA_BYTES);
  OWN(o, r.init, (size_t)r.size, c->diag);
  for (int32_t v = 0; v < c->m->n_values; v++)
    if (c->m->values[v].kind == BERTH_IR_STATE) {
      int32_t g = c->m->values[v].index;
      memcpy(r.init + r.offsets[g], p->globals[g].data, berth_type_bytes(&p->globals[g].type));
    }
  *out = r;
  return BERTH_OK;
}

/* What the exec method is assembled from: the results of the stages before it. */
typedef struct plan_inputs {
  const uint64_t *const_offsets;
  const berth_plan_groups_t *g;
  const berth_plan_pools_t *pools;
  const berth_plan_offsets_t *offsets;
  const berth_plan_state_t *state;
} plan_inputs_t;

/* The exec values: only those the stream refers to (aliases and the values of bodies that
 * never run, like a zero-step scan's, are left out), renumbered densely. */
typedef struct plan_values {
  int32_t *xid; /* per lowered value: its exec id, or -1 */
  int32_t n;
  berth_exec_value_t *values;
} plan_values_t;

/* Marks the lowered values the exec program keeps and numbers them. */
static berth_status_t plan_value_ids(const lctx_t *c, berth_plan_owner_t *o, plan_values_t *r) {
  const berth_ir_graph_t *mbody = &c->m->graphs[c->m->body];
  OWN(o, r->xid, (size_t)c->n_vals, c->diag);
  int32_t *xid = r->xid;
  for (int32_t v = 0; v < c->n_vals; v++) xid[v] = 0;
  for (int32_t i = 0; i < c->n_operands; i++) xid[c->operands[i]] = 1;
  for (int32_t k = 0; k < mbody->n_params; k++) xid[mbody->params[k]] = 1;
  for (int32_t k = 0; k < mbody->n_results; k++) xid[c->out_copy[k] >= 0 ? c->out_copy[k] : c->out_value[k]] = 1;
  for (int32_t k = 0; k < c->m->n_bounds; k++) xid[lctx_resolve(c, c->m->bounds[k].extent)] = 1;
  for (int32_t v = 0; v < c->n_vals; v++) {
    if (!xid[v]) continue;
    const lval_t *x = &c->vals[v], *rt = &c->vals[lctx_group((lctx_t *)c, v)];
    if (x->cls == LV_WINDOW) xid[x->win_parent] = 1;
    else if (rt->cls == LV_WINDOW) xid[rt->win_parent] = 1;
  }
  r->n = 0;
  for (int32_t v = 0; v < c->n_vals; v++) xid[v] = xid[v] ? r->n++ : -1;
  return BERTH_OK;
}

/* Storage of lowered value v's exec record e. */
static void plan_value_storage(lctx_t *c, int32_t v, const int32_t *xid, const plan_inputs_t *in,
                               berth_exec_value_t *e) {
  int32_t rv = lctx_resolve(c, v), root = lctx_group(c, rv);
  const lval_t *x = &c->vals[rv], *r = &c->vals[root];
  e->window_parent = -1;
  e->window_reg = -1;
  /* x->voff: a view's offset in its group (views.c); 0 for every other value */
  if (r->cls == LV_HOIST) {
    e->storage = BERTH_STORAGE_HOIST;
    e->offset = r->hoist_off + x->voff;
  } else if (x->cls == LV_CONST || r->cls == LV_CONST) {
    e->storage = BERTH_STORAGE_CONST;
    e->offset = in->const_offsets[x->cls == LV_CONST ? x->global : r->global] + x->voff;
  } else if (x->cls == LV_STATE || r->cls == LV_STATE) {
    e->storage = BERTH_STORAGE_STATE;
    e->offset = in->state->offsets[x->cls == LV_STATE ? x->global : r->global] + x->voff;
  } else if (x->cls == LV_WINDOW || r->cls == LV_WINDOW) {
    const lval_t *w = x->cls == LV_WINDOW ? x : r;
    e->storage = BERTH_STORAGE_ARENA;
    e->window_parent = xid[w->win_parent];
    e->window_reg = w->win_reg;
    e->window_stride = w->win_stride;
    e->offset = 0;
  } else if (r->cls == LV_INPUT || r->cls == LV_OUTPUT) {
    e->storage = r->cls == LV_INPUT ? BERTH_STORAGE_INPUT : BERTH_STORAGE_OUTPUT;
    e->index = (uint32_t)r->io_index;
  } else {
    int32_t b = in->g->group_of[root];
    e->storage = BERTH_STORAGE_ARENA;
    e->pool = b >= 0 ? (uint32_t)in->pools->pool[b] : 0;
    e->offset = (b >= 0 ? in->offsets->offset[b] : 0) + x->voff;
  }
}

static berth_status_t plan_values(lctx_t *c, berth_plan_owner_t *o, const plan_inputs_t *in, plan_values_t *out) {
  plan_values_t r = {NULL, 0, NULL};
  BERTH_TRY(plan_value_ids(c, o, &r));
  OWN(o, r.values, (size_t)r.n, c->diag);
  for (int32_t v = 0; v < c->n_vals; v++) {
    if (r.xid[v] < 0) continue;
    berth_exec_value_t *e = &r.values[r.xid[v]];
    char *name;
    OWN(o, name, strlen(c->vals[v].name) + 1, c->diag);
    strcpy(name, c->vals[v].name);
    e->name = name;
    e->type = c->vals[v].type;
    plan_value_storage(c, v, r.xid, in, e);
  }
  /* windows take their parent's storage class for their own record */
  for (int32_t v = 0; v < r.n; v++) {
    berth_exec_value_t *e = &r.values[v];
    if (e->window_parent < 0) continue;
    const berth_exec_value_t *par = &r.values[e->window_parent];
    e->storage = par->storage;
    e->pool = par->pool;
    e->index = par->index;
  }
  *out = r;
  return BERTH_OK;
}

/* The attributes of instruction i, starting at attrs[at]: its node's, with every string
 * copied out of the IR's table into memory the exec program owns. */
static berth_status_t plan_instr_attrs(const lctx_t *c, berth_plan_owner_t *o, int32_t i, berth_attr_value_t *attrs) {
  const berth_op_def_t *def = berth_op_get(c->instrs[i].in.op);
  memcpy(attrs, c->m->nodes[c->instrs[i].attr_node].attrs, def->n_attrs * sizeof *attrs);
  for (int k = 0; k < def->n_attrs; k++) {
    berth_attr_value_t *a = &attrs[k];
    if (def->attrs[k].kind != BERTH_ATTR_STRING) continue;
    const char *text = berth_ir_string(c->p, a->i);
    if (!text)
      return berth_fail(c->diag, BERTH_ERR_INTERNAL, "method %s: attribute %s has no string %lld", c->m->name,
                        def->attrs[k].name, (long long)a->i);
    char *copy = NULL;
    if (text[0]) {
      OWN(o, copy, strlen(text) + 1, c->diag);
      strcpy(copy, text);
    }
    a->i = 0;
    a->s = copy;
  }
  return BERTH_OK;
}

static bool has_attrs(uint8_t opcode) { return opcode == BERTH_I_KERNEL || opcode == BERTH_I_ASSERT; }

/* Instructions, operands (exec ids) and attributes into em. */
static berth_status_t plan_instrs(const lctx_t *c, berth_plan_owner_t *o, const plan_values_t *vals,
                                  berth_exec_method_t *em) {
  berth_instr_t *ins;
  int32_t *ops;
  berth_attr_value_t *attrs;
  int32_t n_attrs = 0;
  for (int32_t i = 0; i < c->n_instrs; i++)
    if (has_attrs(c->instrs[i].in.opcode)) n_attrs += berth_op_get(c->instrs[i].in.op)->n_attrs;
  OWN(o, ins, (size_t)c->n_instrs, c->diag);
  OWN(o, ops, (size_t)c->n_operands, c->diag);
  OWN(o, attrs, (size_t)n_attrs, c->diag);
  for (int32_t i = 0; i < c->n_operands; i++) ops[i] = vals->xid[c->operands[i]];
  n_attrs = 0;
  for (int32_t i = 0; i < c->n_instrs; i++) {
    ins[i] = c->instrs[i].in;
    if (!has_attrs(ins[i].opcode)) continue;
    ins[i].attrs = (uint32_t)n_attrs;
    BERTH_TRY(plan_instr_attrs(c, o, i, &attrs[n_attrs]));
    n_attrs += berth_op_get(ins[i].op)->n_attrs;
  }
  em->n_instrs = c->n_instrs;
  em->instrs = ins;
  em->n_operands = c->n_operands;
  em->operands = ops;
  em->n_attrs = n_attrs;
  em->attrs = attrs;
  return BERTH_OK;
}

/* The rest of the exec method: name, values, inputs and outputs, registers, pools, state. */
static berth_status_t plan_method_rest(const lctx_t *c, berth_plan_owner_t *o, const plan_inputs_t *in,
                                       const plan_values_t *vals, berth_exec_method_t *em) {
  const berth_ir_graph_t *body = &c->m->graphs[c->m->body];
  int32_t *inputs, *outputs;
  char *mname;
  OWN(o, inputs, (size_t)body->n_params, c->diag);
  OWN(o, outputs, (size_t)body->n_results, c->diag);
  OWN(o, mname, strlen(c->m->name) + 1, c->diag);
  for (int32_t k = 0; k < body->n_params; k++) inputs[k] = vals->xid[body->params[k]];
  for (int32_t k = 0; k < body->n_results; k++)
    outputs[k] = vals->xid[c->out_copy[k] >= 0 ? c->out_copy[k] : c->out_value[k]];
  if (c->m->n_bounds) {
    berth_exec_bound_t *bounds;
    OWN(o, bounds, (size_t)c->m->n_bounds, c->diag);
    for (int32_t k = 0; k < c->m->n_bounds; k++) {
      const berth_ir_bound_t *b = &c->m->bounds[k];
      bounds[k] = (berth_exec_bound_t){b->result, b->axis, vals->xid[lctx_resolve(c, b->extent)]};
    }
    em->n_bounds = c->m->n_bounds;
    em->bounds = bounds;
  }
  strcpy(mname, c->m->name);
  em->name = mname;
  em->n_values = vals->n;
  em->values = vals->values;
  em->n_inputs = body->n_params;
  em->inputs = inputs;
  em->n_outputs = body->n_results;
  em->outputs = outputs;
  em->n_regs = c->n_regs;
  em->n_pools = in->pools->n_pools;
  em->pool_sizes = in->offsets->sizes;
  em->state_size = in->state->size;
  em->state_init = in->state->init;
  em->alignment = c->opt->alignment;
  em->n_once = c->n_once;
  em->hoist_size = c->hoist_size;
  return BERTH_OK;
}

berth_status_t berth_plan_assemble(berth_plan_lowered_t *c, berth_plan_owner_t *o, const uint64_t *const_offsets,
                                   const berth_plan_groups_t *g, const berth_plan_pools_t *pools,
                                   const berth_plan_offsets_t *offsets, const berth_plan_state_t *state,
                                   berth_plan_exec_t *out) {
  plan_inputs_t in = {const_offsets, g, pools, offsets, state};
  plan_values_t vals = {NULL, 0, NULL};
  berth_plan_exec_t r;
  memset(&r, 0, sizeof r);
  BERTH_TRY(plan_values(c, o, &in, &vals));
  BERTH_TRY(plan_instrs(c, o, &vals, &r.method));
  BERTH_TRY(plan_method_rest(c, o, &in, &vals, &r.method));
  r.exec_id = vals.xid;
  *out = r;
  return BERTH_OK;
}

/* A value's lifetime for the report: its intervals sorted and those that touch or overlap
 * merged (the timeline adds them in discovery order, and a view group's union can widen one
 * interval into its neighbour). Returns how many it wrote to out (at most LV_MAX_IVS). */
static int32_t report_ivs(const lval_t *x, int64_t (*out)[2]) {
  int32_t n = 0;
  for (int32_t i = 0; i < x->n_ivs; i++) {
    int32_t j = n++;
    for (; j > 0 && out[j - 1][0] > x->ivs[i].lo; j--) out[j][0] = out[j - 1][0], out[j][1] = out[j - 1][1];
    out[j][0] = x->ivs[i].lo, out[j][1] = x->ivs[i].hi;
  }
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    if (m > 0 && out[i][0] <= out[m - 1][1] + 1) {
      if (out[i][1] > out[m - 1][1]) out[m - 1][1] = out[i][1];
    } else {
      out[m][0] = out[i][0], out[m][1] = out[i][1];
      m++;
    }
  }
  return m;
}


/* The report: counts, and the timeline of every exec value and HOP for the plan drawing. */
berth_status_t berth_plan_report(const berth_plan_lowered_t *c, berth_plan_owner_t *o,
                                 const berth_plan_offsets_t *offsets, const berth_plan_state_t *state,
                                 const berth_plan_exec_t *exec, berth_plan_method_report_t *rep) {
  int32_t n_exec = exec->method.n_values;
  rep->n_pools = offsets->n_pools;
  memcpy(rep->pools, offsets->pools, sizeof rep->pools);
  rep->n_values = n_exec;
  rep->copies = c->copies;
  rep->coalesced = c->renames + c->windows;
  rep->views = c->views;
  rep->concats_in_place = c->joins;
  rep->state_in_place = c->state_in_place;
  rep->state_bytes = state->size;
  rep->n_scratch = c->scratch_values;
  rep->scratch_bytes = c->scratch_bytes;
  rep->hoisted = c->hoisted_kernels;
  rep->hoist_bytes = c->hoist_size;
  rep->n_positions = c->n_positions;
  OWN(o, rep->n_ivs, (size_t)n_exec, c->diag);
  OWN(o, rep->iv_first, (size_t)n_exec, c->diag);
  OWN(o, rep->depth, (size_t)n_exec, c->diag);
  OWN(o, rep->ivs, (size_t)(n_exec ? n_exec : 1) * LV_MAX_IVS, c->diag);
  OWN(o, rep->hops, (size_t)c->m->n_nodes, c->diag);
  int32_t total_ivs = 0;
  for (int32_t v = 0; v < c->n_vals; v++) {
    int32_t e = exec->exec_id[v];
    if (e < 0) continue;
    rep->iv_first[e] = total_ivs;
    rep->n_ivs[e] = report_ivs(&c->vals[v], &rep->ivs[total_ivs]);
    rep->depth[e] = c->vals[v].graph >= 0 ? berth_ir_graph_depth(c->m, c->vals[v].graph) : 0;
    total_ivs += rep->n_ivs[e];
  }
  for (int32_t ni = 0; ni < c->m->n_nodes; ni++) {
    const berth_op_def_t *def = berth_op_get(c->m->nodes[ni].op);
    if (def->kind == BERTH_OPKIND_KERNEL || def->kind == BERTH_OPKIND_COPY_ || def->kind == BERTH_OPKIND_ASSERT) continue;
    struct berth_plan_hop_span *h = &rep->hops[rep->n_hops++];
    h->ts = c->hop[ni].ts;
    h->te = c->hop[ni].te;
    h->split = def->kind == BERTH_OPKIND_COND ? c->hop[ni].th[0] + 2 : -1;
    h->depth = berth_ir_graph_depth(c->m, c->m->nodes[ni].graph);
    h->kind = def->name;
  }
  return BERTH_OK;
}
