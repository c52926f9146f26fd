/* Channel-blocked layout for regions of convolutions (kernels/kernel_conv_blocked.h).
 *
 * A conv can run over channel-blocked tensors ([N, C/16, H, W, 16]: conv_blocked) when it is
 * 2-D, f32, group 1, its weights a constant, C and M multiples of 16 and its kernel at most
 * BERTH_CONV_BLOCKED_MAX_TAPS taps (C may also be below 16 with no residual: a network's first
 * conv, which reads its plain input in place and writes the layout); a 2-D max or average pool (pool_blocked) and a concat
 * along the channels (a concat of blocks, the same op) when every tensor has a multiple of 16
 * channels. The pass converts such nodes that are linked (one's layout operand, a conv's input
 * or residual, a pool's input, a concat's parts, made by another), pools and concats only with
 * every operand made in the layout, in the regions (nodes so linked) where the layout pays
 * for its reorders (ly_worth's model). The blocked values are tensors of their own
 * type, [N, C/16, H, W, 16], so every op, the planner, the verifier and the sanitizer see
 * them as what they are; at a region's edges the pass inserts the reorders as ordinary ops:
 *   into the layout:  reshape [N, C/16, 16, H, W], transpose (0, 1, 3, 4, 2)
 *   out of it:        transpose (0, 1, 4, 2, 3), reshape [N, C, H, W]
 * (the reshape a view, the transpose a copy). A converted conv's plain result keeps its value
 * and its readers: it becomes the result of the reorder out, emitted right after the node,
 * which the DCE pass that must follow removes when nothing plain reads it; the node writes a
 * new value named <name>/blocked. A value read in the layout by converted nodes is reordered
 * into it once, before its first such reader. The weights are packed into a new constant
 * (berth_conv_blocked_pack_weights); the old one is left for DCE. Results change by the
 * rounding of another order of the sums only (kernel_conv_blocked.h). A converted 3x3 conv of
 * stride and dilation 1 on a large enough plane becomes conv_winograd instead, its weights
 * transformed (berth_conv_winograd_pack_weights; kernel_conv_winograd.h: 16 multiply-adds
 * per 2x2 outputs and channel pair instead of 36, results within the rounding of the
 * transforms), unless the caller asks for direct convs. */
#include "kernels/kernel_conv_blocked.h"
#include "kernels/kernel_conv_winograd.h"
#include "kernels/kernel_util.h"
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LY_GROUP = 3, LY_WSHAPE = 7 }; /* conv's group, conv_blocked's wshape */
enum { LY_POOL_KERNEL = 0, LY_POOL_FLAGS = 4, LY_POOL_KIND = 5 }; /* max_pool's, pool_blocked's */
enum { LY_POOL_COL_MAJOR = 4 };                                   /* kernel_pool.c's flag */

/* What a node can become in the layout: nothing, conv_blocked, conv_blocked of a plain input
 * of fewer than 16 channels (a network's first conv: its input stays plain, its result is
 * blocked), pool_blocked, a concat of blocks (concat along the channels of [N, C, H, W] is
 * concat along the blocks). */
typedef enum { LY_NONE, LY_CONV, LY_CONV_PLAIN_IN, LY_POOL, LY_CONCAT } ly_kind_t;

/* Whether t is an f32 [N, C, H, W] with C a positive multiple of 16 and no empty dim. */
static bool ly_blockable(const berth_type_t *t) {
  return t->dtype == BERTH_DTYPE_F32 && t->rank == 4 && t->dims[1] >= BERTH_CONV_BLOCK &&
         t->dims[1] % BERTH_CONV_BLOCK == 0 && berth_type_numel(t) > 0;
}

/* Whether operand k of a node of kind k is read in the layout (the others stay plain). */
static bool ly_layout_operand(ly_kind_t kind, int32_t k) {
  return kind != LY_CONV_PLAIN_IN && (kind == LY_CONCAT || k == 0 || (kind == LY_CONV && k == 3));
}

static ly_kind_t ly_pool_kind(const berth_ir_method_t *m, const berth_ir_node_t *n) {
  if ((n->op != BERTH_OP_MAX_POOL && n->op != BERTH_OP_AVG_POOL) || n->n_out != 1 || n->n_in != 1) return LY_NONE;
  if (n->attrs[LY_POOL_KERNEL].n != 2 || (n->attrs[LY_POOL_FLAGS].i & LY_POOL_COL_MAJOR)) return LY_NONE;
  return ly_blockable(&m->values[n->in[0]].type) && ly_blockable(&m->values[n->out[0]].type) ? LY_POOL : LY_NONE;
}

static ly_kind_t ly_concat_kind(const berth_ir_method_t *m, const berth_ir_node_t *n) {
  if (n->op != BERTH_OP_CONCAT || n->n_out != 1 || n->n_in < 1) return LY_NONE;
  if (n->attrs[0].i != 1 && n->attrs[0].i != -3) return LY_NONE;
  for (int32_t k = 0; k < n->n_in; k++)
    if (!ly_blockable(&m->values[n->in[k]].type)) return LY_NONE;
  return ly_blockable(&m->values[n->out[0]].type) ? LY_CONCAT : LY_NONE;
}

/* The channel-blocked type [N, C/16, H, W, 16] of a plain f32 [N, C, H, W] (C a multiple of 16). */
static berth_type_t ly_blocked_type(const berth_type_t *t) {
  berth_type_t b;
  berth_kernel_type_init(&b, BERTH_DTYPE_F32, 5);
  b.dims[0] = t->dims[0], b.dims[1] = t->dims[1] / BERTH_CONV_BLOCK, b.dims[2] = t->dims[2];
  b.dims[3] = t->dims[3], b.dims[4] = BERTH_CONV_BLOCK;
  return b;
}

/* What node n of m can become. */
static ly_kind_t ly_kind(const berth_ir_program_t *p, const berth_ir_method_t *m, const berth_ir_node_t *n) {
  if (n->op == BERTH_OP_MAX_POOL || n->op == BERTH_OP_AVG_POOL) return ly_pool_kind(m, n);
  if (n->op == BERTH_OP_CONCAT) return ly_concat_kind(m, n);
  if (n->op != BERTH_OP_CONV || n->n_out != 1 || n->n_in < 2 || n->attrs[LY_GROUP].i != 1) return LY_NONE;
  const berth_ir_value_t *x = &m->values[n->in[0]], *w = &m->values[n->in[1]], *y = &m->values[n->out[0]];
  if (x->type.dtype != BERTH_DTYPE_F32 || x->type.rank != 4 || w->type.dtype != BERTH_DTYPE_F32 || w->type.rank != 4 ||
      w->kind != BERTH_IR_CONST || p->globals[w->index].is_state || y->type.rank != 4)
    return LY_NONE;
  const int64_t c = x->type.dims[1], mo = w->type.dims[0];
  const bool plain_in = c >= 1 && c < BERTH_CONV_BLOCK && n->n_in <= 3; /* one block of c, no residual */
  if ((!plain_in && (c < BERTH_CONV_BLOCK || c % BERTH_CONV_BLOCK)) || mo < BERTH_CONV_BLOCK || mo % BERTH_CONV_BLOCK ||
      w->type.dims[1] != c || w->type.dims[2] * w->type.dims[3] > BERTH_CONV_BLOCKED_MAX_TAPS)
    return LY_NONE;
  if (berth_type_numel(&x->type) == 0 || berth_type_numel(&y->type) == 0) return LY_NONE;
  if (n->n_in >= 3 && m->values[n->in[2]].type.dtype != BERTH_DTYPE_F32) return LY_NONE;
  /* conv_blocked's own infer on the operands it would get: the pass never makes a node the
   * loader would refuse (a padding too large for its offsets stays a conv) */
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  memcpy(at, n->attrs, sizeof at);
  memset(&at[LY_WSHAPE], 0, sizeof at[LY_WSHAPE]);
  at[LY_WSHAPE].n = 4;
  for (int d = 0; d < 4; d++) at[LY_WSHAPE].ints[d] = w->type.dims[d];
  berth_type_t in[4], out;
  const int64_t cpb = plain_in ? c : BERTH_CONV_BLOCK; /* input channels per block */
  in[0] = plain_in ? x->type : ly_blocked_type(&x->type);
  berth_kernel_type_init(&in[1], BERTH_DTYPE_F32, 4);
  in[1].dims[0] = mo / BERTH_CONV_BLOCK, in[1].dims[1] = c / cpb;
  in[1].dims[2] = w->type.dims[2] * w->type.dims[3], in[1].dims[3] = cpb * BERTH_CONV_BLOCK;
  if (n->n_in >= 3) in[2] = m->values[n->in[2]].type;
  if (n->n_in == 4) in[3] = ly_blocked_type(&m->values[n->in[3]].type);
  if (berth_op_def_conv_blocked.infer(at, in, n->n_in, &out, NULL) != BERTH_OK) return LY_NONE;
  return plain_in ? LY_CONV_PLAIN_IN : LY_CONV;
}

typedef struct ly_ctx {
  berth_ir_program_t *p;
  berth_ir_method_t *m;
  int32_t mi;
  bool winograd;  /* 3x3 stride-1 convs on large planes as conv_winograd */
  uint8_t *in_b;  /* per node: its ly_kind_t while it is to be converted, else LY_NONE */
  int32_t *blk;   /* per value: its blocked value, -1 if none yet */
  int32_t *blk_g; /* per value: the graph whose readers may use blk (a reorder's), -1 for any
                   * (a converted node's own result, made where the value is) */
  int32_t *order; /* the graph's new node order */
  int32_t n_order, cap_order;
  bool oom;
} ly_ctx_t;

static void ly_emit(ly_ctx_t *c, int32_t node) {
  if (c->oom) return;
  if (c->n_order == c->cap_order) {
    const int32_t cap = c->cap_order ? 2 * c->cap_order : 64;
    int32_t *o = realloc(c->order, (size_t)cap * sizeof *o);
    if (!o) {
      c->oom = true;
      return;
    }
    c->order = o;
    c->cap_order = cap;
  }
  c->order[c->n_order++] = node;
}

/* Value v's name with suffix (a file holds names of at most BERTH_MAX_ATTR_STRING bytes; a
 * longer one becomes "v<id>" with the suffix, still unique). */
static void ly_name(char *buf, size_t cap, const berth_ir_method_t *m, int32_t v, const char *suffix) {
  const char *base = m->values[v].name ? m->values[v].name : "";
  if (strlen(base) + strlen(suffix) + 8 <= BERTH_MAX_ATTR_STRING) snprintf(buf, cap, "%s%s", base, suffix);
  else snprintf(buf, cap, "v%d%s", (int)v, suffix);
}

/* A node of op in graph g reading `in`, its attribute `attr` set to ints v[0..n), and its one
 * result of type t named name + suffix (or, out >= 0, the existing value out, which becomes
 * its result); emitted in the new order. Returns the result, -1 when out of memory. */
static int32_t ly_node(ly_ctx_t *c, int32_t g, berth_op_t op, int32_t in, const char *attr, const int64_t *v,
                       int32_t nv, const berth_type_t *t, const char *suffix, int32_t out) {
  berth_ir_method_t *m = c->m;
  const int32_t ni = berth_ir_node_add(m, g, op, 1, &in);
  if (ni < 0) return -1;
  /* berth_ir_node_add appended it to the graph's list, which is rebuilt from the new order */
  m->graphs[g].n_nodes--;
  berth_attr_value_t *a = &m->nodes[ni].attrs[berth_op_attr_index(berth_op_get(op), attr, strlen(attr))];
  a->n = nv;
  for (int32_t k = 0; k < nv; k++) a->ints[k] = v[k];
  int32_t r = out;
  if (out < 0) {
    char name[BERTH_MAX_ATTR_STRING + 1];
    ly_name(name, sizeof name, m, in, suffix);
    r = berth_ir_node_result_add(m, ni, name, t);
    if (r < 0) return -1;
  } else {
    int32_t *o = malloc(sizeof *o);
    if (!o) return -1;
    o[0] = out;
    m->nodes[ni].out = o;
    m->nodes[ni].n_out = 1;
    m->values[out].node = ni;
    m->values[out].index = 0;
    m->values[out].graph = g;
  }
  ly_emit(c, ni);
  return r;
}

/* The blocked value of plain value v for a reader in graph g: made there on first need. */
static int32_t ly_to_blocked(ly_ctx_t *c, int32_t g, int32_t v) {
  if (c->blk[v] >= 0 && (c->blk_g[v] < 0 || c->blk_g[v] == g)) return c->blk[v];
  const berth_type_t t = c->m->values[v].type;
  berth_type_t r, b;
  berth_kernel_type_init(&r, BERTH_DTYPE_F32, 5);
  const int64_t rs[5] = {t.dims[0], t.dims[1] / BERTH_CONV_BLOCK, BERTH_CONV_BLOCK, t.dims[2], t.dims[3]};
  for (int d = 0; d < 5; d++) r.dims[d] = rs[d];
  b = r;
  b.dims[2] = t.dims[2], b.dims[3] = t.dims[3], b.dims[4] = BERTH_CONV_BLOCK;
  static const int64_t perm[5] = {0, 1, 3, 4, 2};
  const int32_t rv = ly_node(c, g, BERTH_OP_RESHAPE, v, "shape", rs, 5, &r, "/split", -1);
  if (rv < 0) return -1;
  const int32_t bv = ly_node(c, g, BERTH_OP_TRANSPOSE, rv, "perm", perm, 5, &b, "/blocked", -1);
  if (bv < 0) return -1;
  /* reordered in its own graph, it serves the later readers of that graph (not a body's: the
   * reorder may come after the HOP that holds it, when the graph's first blocked reader does);
   * a value of an enclosing graph or a constant reordered in a body serves that reader only */
  if (c->m->values[v].graph == g) c->blk[v] = bv, c->blk_g[v] = g;
  return bv;
}

/* Whether conv node ni (of kind LY_CONV, its operands still plain) runs as
 * conv_winograd: 3x3, strides and dilations 1, a plane of LY_WINOGRAD_MIN_OUT outputs (36
 * tiles) or more, and conv_winograd's infer accepts it. On fewer tiles the transformed
 * weights, 16/9 the direct ones, cost more to stream than the products save: ResNet-50's
 * 512 -> 512 on 7x7 (16 tiles) in the network 1.57 ms direct, 1.77 Winograd; SqueezeNet's
 * 13x13 convs (49 tiles) 170 -> 130 and 305 -> 228 us. */
#define LY_WINOGRAD_MIN_OUT 144
/* The shape of it (the cost model's test): 3x3, strides and dilations 1, a large plane. */
static bool ly_winograd_shape(const ly_ctx_t *c, const berth_ir_node_t *n) {
  const berth_type_t *w = &c->m->values[n->in[1]].type, *y = &c->m->values[n->out[0]].type;
  if (!c->winograd || w->dims[2] != 3 || w->dims[3] != 3 || y->dims[2] * y->dims[3] < LY_WINOGRAD_MIN_OUT) return false;
  for (int a = 0; a < 3; a += 2) /* strides, dilations */
    for (int32_t d = 0; d < n->attrs[a].n; d++)
      if (n->attrs[a].ints[d] != 1) return false;
  return true;
}

static bool ly_winograd(const ly_ctx_t *c, int32_t ni) {
  const berth_ir_method_t *m = c->m;
  const berth_ir_node_t *n = &m->nodes[ni];
  const berth_type_t *x = &m->values[n->in[0]].type, *w = &m->values[n->in[1]].type, *y = &m->values[n->out[0]].type;
  if (!ly_winograd_shape(c, n)) return false;
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  memcpy(at, n->attrs, sizeof at);
  memset(&at[LY_WSHAPE], 0, sizeof at[LY_WSHAPE]);
  at[LY_WSHAPE].n = 4;
  for (int d = 0; d < 4; d++) at[LY_WSHAPE].ints[d] = w->dims[d];
  berth_type_t in[4], out;
  in[0] = ly_blocked_type(x);
  berth_kernel_type_init(&in[1], BERTH_DTYPE_F32, 4);
  in[1].dims[0] = BERTH_WINOGRAD_COMPONENTS, in[1].dims[1] = w->dims[0] / BERTH_CONV_BLOCK;
  in[1].dims[2] = w->dims[1] / BERTH_CONV_BLOCK, in[1].dims[3] = BERTH_CONV_BLOCK * BERTH_CONV_BLOCK;
  if (n->n_in >= 3) in[2] = m->values[n->in[2]].type;
  if (n->n_in == 4) in[3] = ly_blocked_type(y);
  return berth_op_def_conv_winograd.infer(at, in, n->n_in, &out, NULL) == BERTH_OK;
}

/* Conv node ni's weights packed for conv_blocked, or transformed for conv_winograd, into a
 * new constant, its value in *wv. */
static bool ly_pack(ly_ctx_t *c, int32_t ni, bool winograd, int32_t *wv) {
  berth_ir_method_t *m = c->m;
  const int32_t w = m->nodes[ni].in[1];
  const berth_type_t wt = m->values[w].type;
  const int64_t n = winograd ? berth_type_numel(&wt) / 9 * BERTH_WINOGRAD_COMPONENTS : berth_type_numel(&wt);
  float *dst = malloc((size_t)n * sizeof(float));
  if (!dst) return false;
  berth_type_t packed;
  const float *src = (const float *)c->p->globals[m->values[w].index].data;
  if (winograd)
    berth_conv_winograd_pack_weights(&wt, src, dst, &packed);
  else
    berth_conv_blocked_pack_weights(&wt, src, dst, &packed);
  char name[64];
  snprintf(name, sizeof name, "%s%d_%d", winograd ? "winograd" : "blocked", (int)c->mi, (int)ni);
  const int32_t gi = berth_ir_global_add(c->p, name, &packed, false, dst);
  free(dst);
  if (gi < 0) return false;
  *wv = berth_ir_global_ref(c->p, c->m, gi);
  if (*wv < 0) return false;
  berth_attr_value_t *ws = &c->m->nodes[ni].attrs[LY_WSHAPE];
  memset(ws, 0, sizeof *ws);
  ws->n = 4;
  for (int d = 0; d < 4; d++) ws->ints[d] = wt.dims[d];
  return true;
}

/* Node ni (to be converted, of kind k) becomes conv_blocked, pool_blocked or a concat of
 * blocks over blocked operands; its plain result is reordered back right after it. */
static bool ly_convert(ly_ctx_t *c, int32_t ni, ly_kind_t kind) {
  berth_ir_method_t *m = c->m;
  const int32_t g = m->nodes[ni].graph, y = m->nodes[ni].out[0], n_in = m->nodes[ni].n_in;
  const bool conv = kind == LY_CONV || kind == LY_CONV_PLAIN_IN, winograd = kind == LY_CONV && ly_winograd(c, ni);
  for (int32_t k = 0; k < n_in; k++) {
    if (!ly_layout_operand(kind, k)) continue;
    const int32_t vb = ly_to_blocked(c, g, c->m->nodes[ni].in[k]);
    if (vb < 0) return false;
    c->m->nodes[ni].in[k] = vb;
  }
  int32_t wv = -1;
  if (conv && !ly_pack(c, ni, winograd, &wv)) return false;
  m = c->m;
  /* the blocked result */
  const berth_type_t yt = m->values[y].type, bt = ly_blocked_type(&yt);
  char yname[BERTH_MAX_ATTR_STRING + 1];
  ly_name(yname, sizeof yname, m, y, "/blocked");
  const int32_t yb = berth_ir_node_result_add(m, ni, yname, &bt);
  if (yb < 0) return false;
  berth_ir_node_t *n = &m->nodes[ni];
  n->out[0] = yb;
  n->n_out = 1;
  m->values[yb].index = 0;
  if (conv) {
    n->op = winograd ? BERTH_OP_CONV_WINOGRAD : BERTH_OP_CONV_BLOCKED;
    n->in[1] = wv;
  } else if (kind == LY_POOL) {
    n->attrs[LY_POOL_KIND].i = n->op == BERTH_OP_MAX_POOL ? 0 : 1;
    n->op = BERTH_OP_POOL_BLOCKED;
  } else {
    n->attrs[0].i = 1; /* the blocks' axis */
  }
  ly_emit(c, ni);
  c->blk[y] = yb;
  c->blk_g[y] = -1;
  /* the plain result, for whatever reads it plain (DCE drops it otherwise) */
  berth_type_t tt = bt;
  tt.dims[2] = BERTH_CONV_BLOCK, tt.dims[3] = yt.dims[2], tt.dims[4] = yt.dims[3];
  static const int64_t perm[5] = {0, 1, 4, 2, 3};
  const int32_t tv = ly_node(c, g, BERTH_OP_TRANSPOSE, yb, "perm", perm, 5, &tt, "/nchw", -1);
  if (tv < 0) return false;
  return ly_node(c, g, BERTH_OP_RESHAPE, tv, "shape", yt.dims, 4, &yt, "", y) >= 0;
}

/* The share of a conv's time at 150 GFLOP/s that the layout saves (ly_worth) */
#define LY_GAIN_1X1 0.2
#define LY_GAIN_KXK 0.1
#define LY_GAIN_MIN_M 64     /* fewer output channels than the AVX-512 tile's 64: */
#define LY_GAIN_NARROW -0.12 /* slower blocked (DenseNet's 3x3 128 -> 32: 1.93 ms against 1.70) */
#define LY_GAIN_PLAIN_IN 0.1 /* a first conv of a plain input (SqueezeNet's 3 -> 64 3x3: 524 us plain, 476 blocked) */
#define LY_GAIN_WINOGRAD 0.4 /* a 3x3 conv that runs as conv_winograd (ResNet-50's 3x3s: 0.55-0.62 of the plain time) */

/* The root of node i's region (union-find over the converted convs). */
static int32_t ly_root(int32_t *up, int32_t i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

/* Drops the regions whose reorders cost more than the layout saves, by a model measured on
 * ResNet-50, VGG-19, DenseNet-121 and the rest of the light model zoo (AVX-512, 2026-12-06): a
 * 1x1 conv runs about a fifth faster blocked (no panel packing: 135-160 GFLOP/s against
 * 115-130), a larger kernel about a tenth (VGG-19's 3x3s: 25.0 ms against 28.3), a conv of fewer
 * than 64 output channels about a tenth slower (the AVX-512 tile's 64 half used: DenseNet's
 * 3x3 128 -> 32, 1.93 ms against 1.70), a 3x3 conv that runs as conv_winograd about two
 * fifths (ResNet-50's 3x3s 0.55-0.62 of their plain time; DenseNet's narrow ones stay under
 * the narrow rule: converted with it they came out 1-3 % faster and their arena 15 % larger);
 * pools and concats gain nothing; a reorder moves about
 * 8.5 bytes per ns. So a region pays when those shares of its convs' time at 150 GFLOP/s
 * exceed the time of its reorders (the plain values read in the layout, the results read
 * plain). Without it, SqueezeNet 1.1 with its region starting at the first pool ran 7 %
 * slower, DenseNet's layers (each its own region, the concatenated input reordered every time)
 * 5-8 %. Returns the nodes left marked. */
static int32_t ly_worth(ly_ctx_t *c) {
  const berth_ir_method_t *m = c->m;
  const int32_t nn = m->n_nodes, nv = m->n_values;
  int32_t *up = malloc((size_t)(nn ? nn : 1) * sizeof *up);
  double *gain = calloc((size_t)(nn ? nn : 1), sizeof *gain), *cost = calloc((size_t)(nn ? nn : 1), sizeof *cost);
  int32_t *seen = malloc((size_t)(nv ? nv : 1) * sizeof *seen); /* per value: the region it was counted for */
  int32_t n = 0;
  if (!up || !gain || !cost || !seen) goto out;
  for (int32_t i = 0; i < nn; i++) up[i] = i;
  for (int32_t v = 0; v < nv; v++) seen[v] = -1;
  for (int32_t i = 0; i < nn; i++) {
    if (!c->in_b[i]) continue;
    const berth_ir_node_t *nd = &m->nodes[i];
    for (int32_t k = 0; k < nd->n_in; k++) {
      const berth_ir_value_t *v = &m->values[nd->in[k]];
      if (ly_layout_operand((ly_kind_t)c->in_b[i], k) && v->kind == BERTH_IR_NODE && v->node >= 0 && c->in_b[v->node])
        up[ly_root(up, i)] = ly_root(up, v->node);
    }
  }
  /* values read plain: by a node left as it is, as a plain operand, or as a graph result */
  bool *plain = calloc((size_t)(nv ? nv : 1), sizeof *plain);
  if (!plain) goto out;
  for (int32_t i = 0; i < nn; i++) {
    const berth_ir_node_t *nd = &m->nodes[i];
    for (int32_t k = 0; k < nd->n_in; k++)
      if (!c->in_b[i] || !ly_layout_operand((ly_kind_t)c->in_b[i], k)) plain[nd->in[k]] = true;
  }
  for (int32_t g = 0; g < m->n_graphs; g++)
    for (int32_t k = 0; k < m->graphs[g].n_results; k++) plain[m->graphs[g].results[k]] = true;
  for (int32_t i = 0; i < nn; i++) {
    if (!c->in_b[i]) continue;
    const berth_ir_node_t *nd = &m->nodes[i];
    const int32_t r = ly_root(up, i);
    const berth_type_t *yt = &m->values[nd->out[0]].type;
    if (c->in_b[i] == LY_CONV || c->in_b[i] == LY_CONV_PLAIN_IN) {
      const berth_type_t *wt = &m->values[nd->in[1]].type;
      const double us = 2.0 * (double)berth_type_numel(yt) * (double)(wt->dims[1] * wt->dims[2] * wt->dims[3]) / 150e3;
      gain[r] += (c->in_b[i] == LY_CONV_PLAIN_IN ? LY_GAIN_PLAIN_IN
                  : wt->dims[0] < LY_GAIN_MIN_M  ? LY_GAIN_NARROW
                  : ly_winograd_shape(c, nd)     ? LY_GAIN_WINOGRAD
                  : wt->dims[2] * wt->dims[3] == 1 ? LY_GAIN_1X1
                                                   : LY_GAIN_KXK) *
                 us;
    }
    for (int32_t k = 0; k < nd->n_in; k++) {
      if (!ly_layout_operand((ly_kind_t)c->in_b[i], k)) continue;
      const int32_t x = nd->in[k];
      const berth_ir_value_t *v = &m->values[x];
      if ((v->kind != BERTH_IR_NODE || v->node < 0 || !c->in_b[v->node]) && seen[x] != r) {
        seen[x] = r;
        cost[r] += (double)berth_type_bytes(&v->type) / 8.5e3;
      }
    }
    if (plain[nd->out[0]]) cost[r] += (double)berth_type_bytes(yt) / 8.5e3;
  }
  free(plain);
  for (int32_t i = 0; i < nn; i++) {
    if (!c->in_b[i]) continue;
    const int32_t r = ly_root(up, i);
    if (gain[r] > cost[r]) n++;
    else c->in_b[i] = LY_NONE;
  }
out:
  free(up), free(gain), free(cost), free(seen);
  return n;
}

/* Marks the nodes to convert in c->in_b; returns how many. */
static int32_t ly_choose(ly_ctx_t *c) {
  const berth_ir_method_t *m = c->m;
  int32_t n = 0;
  for (int32_t i = 0; i < m->n_nodes; i++) n += (c->in_b[i] = (uint8_t)ly_kind(c->p, m, &m->nodes[i])) != LY_NONE;
  /* a candidate reads from a candidate or feeds one: drop the others until none changes */
  bool *linked = calloc((size_t)(m->n_nodes ? m->n_nodes : 1), sizeof *linked);
  if (!linked) return 0;
  for (bool changed = true; changed && n > 0;) {
    changed = false;
    memset(linked, 0, (size_t)m->n_nodes * sizeof *linked);
    for (int32_t i = 0; i < m->n_nodes; i++) {
      if (!c->in_b[i]) continue;
      const berth_ir_node_t *nd = &m->nodes[i];
      for (int32_t k = 0; k < nd->n_in; k++) {
        const berth_ir_value_t *v = &m->values[nd->in[k]];
        if (ly_layout_operand((ly_kind_t)c->in_b[i], k) && v->kind == BERTH_IR_NODE && v->node >= 0 && c->in_b[v->node])
          linked[i] = linked[v->node] = true;
      }
    }
    for (int32_t i = 0; i < m->n_nodes; i++) {
      if (!c->in_b[i]) continue;
      /* a pool or concat gains nothing itself: it joins a region only with every operand made
       * in the layout (a region that starts at a pool would reorder its larger input) */
      bool inside = true;
      const berth_ir_node_t *nd = &m->nodes[i];
      for (int32_t k = 0; k < nd->n_in && c->in_b[i] != LY_CONV && c->in_b[i] != LY_CONV_PLAIN_IN; k++) {
        const berth_ir_value_t *v = &m->values[nd->in[k]];
        inside = inside && v->kind == BERTH_IR_NODE && v->node >= 0 && c->in_b[v->node];
      }
      if (!linked[i] || !inside) c->in_b[i] = LY_NONE, n--, changed = true;
    }
  }
  free(linked);
  return n > 0 ? ly_worth(c) : 0;
}

static int32_t ly_method(berth_ir_program_t *p, int32_t mi, bool winograd) {
  berth_ir_method_t *m = &p->methods[mi];
  ly_ctx_t c = {.p = p, .m = m, .mi = mi, .winograd = winograd};
  const int32_t n_nodes = m->n_nodes, n_values = m->n_values;
  c.in_b = calloc((size_t)(n_nodes ? n_nodes : 1), sizeof *c.in_b);
  c.blk = malloc((size_t)(n_values ? n_values : 1) * sizeof *c.blk);
  c.blk_g = malloc((size_t)(n_values ? n_values : 1) * sizeof *c.blk_g);
  int32_t done = 0;
  if (!c.in_b || !c.blk || !c.blk_g || ly_choose(&c) == 0) goto out;
  for (int32_t v = 0; v < n_values; v++) c.blk[v] = c.blk_g[v] = -1;
  /* graphs in order of creation: an enclosing graph before its bodies */
  for (int32_t g = 0; g < m->n_graphs && !c.oom; g++) {
    c.n_order = 0;
    const int32_t len = m->graphs[g].n_nodes;
    for (int32_t k = 0; k < len && !c.oom; k++) {
      const int32_t ni = m->graphs[g].nodes[k];
      if (ni < n_nodes && c.in_b[ni]) {
        if (!ly_convert(&c, ni, (ly_kind_t)c.in_b[ni])) c.oom = true;
        else done++;
      } else {
        ly_emit(&c, ni);
      }
      m = c.m = &p->methods[mi];
    }
    if (c.oom) break;
    berth_ir_graph_t *gr = &m->graphs[g];
    if (gr->cap_nodes < c.n_order) {
      int32_t *nn = realloc(gr->nodes, (size_t)c.n_order * sizeof *nn);
      if (!nn) {
        c.oom = true;
        break;
      }
      gr->nodes = nn;
      gr->cap_nodes = c.n_order;
    }
    if (c.n_order) memcpy(gr->nodes, c.order, (size_t)c.n_order * sizeof *c.order); /* a body may be empty */
    gr->n_nodes = c.n_order;
  }
out:
  free(c.in_b), free(c.blk), free(c.blk_g), free(c.order);
  return c.oom ? -1 : done;
}

int32_t berth_pass_block_layout(berth_ir_program_t *p, bool winograd) {
  int32_t n = 0;
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    const int32_t k = ly_method(p, mi, winograd);
    if (k < 0) return -1;
    n += k;
  }
  return n;
}
