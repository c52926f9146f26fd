/* Affine folding into a conv: a per-output-channel affine map of a conv's result becomes part
 * of the conv's weights and bias at compile time. The maps folded, where the conv's result is
 * read by nothing else (no other node at any depth, no graph result), the node is in the
 * conv's graph and the conv has constant weights (and bias), no activation yet, and the
 * result has the conv's type:
 *   batch_norm(y, scale, bias, mean, var) {eps}   constants [M]: s = scale / sqrt(var + eps),
 *                                                 t = bias - mean s
 *   mul(y, k), mul(k, y), div(y, k)               s = k, 1 / k; t = 0
 *   add(y, k), add(k, y), sub(y, k)               s = 1; t = k, -k
 * with k a constant that broadcasts along the channel axis only (shape [M, 1, ..., 1] right
 * aligned, or one element). Then conv'(x) = conv(x) s + t: w'[m] = w[m] s[m],
 * b'[m] = b[m] s[m] + t[m], computed in double and rounded once to the dtype, so results
 * change by rounding only. The ONNX zoo's spatial BatchNormalization exported as Mul and Add
 * (Inception v2, DenseNet-121) folds whole. Run before the activation fusion (fuse.c: an act
 * ends a conv's folding) and the weight packing (pack.c). The conv takes over the folded
 * node's result; the node is left reading and writing the conv's old result, for the DCE
 * pass that must follow to remove, with the old constants. */
#include "passes/passes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double fb_get(const void *d, berth_dtype_t dt, int64_t i) {
  return dt == BERTH_DTYPE_F32 ? (double)((const float *)d)[i] : ((const double *)d)[i];
}
static void fb_set(void *d, berth_dtype_t dt, int64_t i, double v) {
  if (dt == BERTH_DTYPE_F32) ((float *)d)[i] = (float)v;
  else ((double *)d)[i] = v;
}

/* The data of value id if it is a program constant (not a buffer) of dtype dt, else NULL. */
static const void *fb_const(const berth_ir_program_t *p, const berth_ir_method_t *m, int32_t id, berth_dtype_t dt) {
  const berth_ir_value_t *v = &m->values[id];
  if (v->kind != BERTH_IR_CONST || v->index < 0 || v->index >= p->n_globals || v->type.dtype != dt) return NULL;
  return p->globals[v->index].is_state ? NULL : p->globals[v->index].data;
}

/* Whether constant k (type kt) broadcasts against y (rank >= 2) along y's channel axis 1
 * only; *per is 1 when it holds one value per channel, 0 when one value in all. */
static bool fb_per_channel(const berth_type_t *kt, const berth_type_t *y, int64_t *per) {
  if (kt->rank > y->rank) return false;
  *per = 0;
  for (int32_t k = 0; k < kt->rank; k++) {
    const int32_t axis = y->rank - kt->rank + k;
    if (kt->dims[k] == 1) continue;
    if (axis != 1 || kt->dims[k] != y->dims[1]) return false;
    *per = 1;
  }
  return true;
}

typedef struct fb_fold {
  int32_t node, conv, yin; /* the folded node, the conv, the operand that is the conv's result */
  double *s, *t;           /* [M] */
} fb_fold_t;

/* Folding is exact up to rounding only while every factor and shift is finite: a division
 * by 0, a variance below -epsilon or an infinite constant would turn the weights into inf
 * and NaN (0 * inf), where the unfused program gives inf. Those stay unfused. */
static bool fb_finite(const fb_fold_t *f, int64_t mc) {
  for (int64_t c = 0; c < mc; c++)
    if (!isfinite(f->s[c]) || !isfinite(f->t[c])) return false;
  return true;
}

/* s and t of node f->node (its operand f->yin the conv's result y, of type yt); false if it
 * is no affine map of constants. */
static bool fb_affine(const berth_ir_program_t *p, const berth_ir_method_t *m, fb_fold_t *f, const berth_type_t *yt) {
  const berth_ir_node_t *a = &m->nodes[f->node];
  const berth_dtype_t dt = yt->dtype;
  const int64_t mc = yt->dims[1];
  if (a->op == BERTH_OP_BATCH_NORM) {
    const void *d[4];
    for (int k = 0; k < 4; k++)
      if (!(d[k] = fb_const(p, m, a->in[1 + k], dt))) return false;
    const double eps = a->attrs[0].f;
    for (int64_t c = 0; c < mc; c++) {
      f->s[c] = fb_get(d[0], dt, c) / sqrt(fb_get(d[3], dt, c) + eps);
      f->t[c] = fb_get(d[1], dt, c) - fb_get(d[2], dt, c) * f->s[c];
    }
    return fb_finite(f, mc);
  }
  const int32_t kid = a->in[1 - f->yin];
  const void *k = fb_const(p, m, kid, dt);
  int64_t per;
  if (!k || !fb_per_channel(&m->values[kid].type, yt, &per)) return false;
  for (int64_t c = 0; c < mc; c++) {
    const double kv = fb_get(k, dt, c * per);
    f->s[c] = a->op == BERTH_OP_MUL ? kv : a->op == BERTH_OP_DIV ? 1.0 / kv : 1.0;
    f->t[c] = a->op == BERTH_OP_ADD ? kv : a->op == BERTH_OP_SUB ? -kv : 0.0;
  }
  return fb_finite(f, mc);
}

/* Which operand of node a may be the conv's result: -1 if a is no foldable op. */
static int32_t fb_operand(const berth_ir_method_t *m, const berth_ir_node_t *a) {
  if (a->n_out != 1) return -1;
  switch (a->op) {
    case BERTH_OP_BATCH_NORM: case BERTH_OP_SUB: case BERTH_OP_DIV: return 0;
    case BERTH_OP_MUL: case BERTH_OP_ADD: {
      const berth_ir_value_t *v = &m->values[a->in[0]];
      return v->kind == BERTH_IR_NODE && v->node >= 0 && m->nodes[v->node].op == BERTH_OP_CONV ? 0 : 1;
    }
    default: return -1;
  }
}

/* Writes w' and b' as new constants (the conv gains a bias operand if it had none). False
 * (the program unchanged) when out of memory. */
static bool fb_apply(berth_ir_program_t *p, berth_ir_method_t *m, int32_t mi, const fb_fold_t *f) {
  berth_ir_node_t *c = &m->nodes[f->conv];
  const berth_type_t wt = m->values[c->in[1]].type;
  const berth_dtype_t dt = wt.dtype;
  const int64_t mc = wt.dims[0], per = berth_type_numel(&wt) / (mc ? mc : 1);
  berth_type_t bt;
  memset(&bt, 0, sizeof bt);
  bt.dtype = dt;
  bt.rank = 1;
  bt.dims[0] = mc;
  void *nw = malloc(berth_type_bytes(&wt) ? berth_type_bytes(&wt) : 1), *nb = malloc((size_t)(mc ? mc : 1) * 8);
  int32_t *nin = c->n_in == 3 ? c->in : realloc(c->in, 3 * sizeof *nin);
  bool ok = nw && nb && nin;
  if (nin) c->in = nin;
  if (ok) {
    const void *w = p->globals[m->values[c->in[1]].index].data;
    const void *b = c->n_in == 3 ? p->globals[m->values[c->in[2]].index].data : NULL;
    for (int64_t o = 0; o < mc; o++) {
      for (int64_t i = 0; i < per; i++) fb_set(nw, dt, o * per + i, fb_get(w, dt, o * per + i) * f->s[o]);
      fb_set(nb, dt, o, (b ? fb_get(b, dt, o) : 0.0) * f->s[o] + f->t[o]);
    }
    char name[64];
    snprintf(name, sizeof name, "folded%d_%d_w", (int)mi, (int)f->node);
    const int32_t gw = berth_ir_global_add(p, name, &wt, false, nw);
    snprintf(name, sizeof name, "folded%d_%d_b", (int)mi, (int)f->node);
    const int32_t gb = gw < 0 ? -1 : berth_ir_global_add(p, name, &bt, false, nb);
    const int32_t bv = gb < 0 ? -1 : berth_ir_global_ref(p, m, gb);
    ok = bv >= 0;
    if (ok) {
      c = &m->nodes[f->conv];
      m->values[c->in[1]].index = gw; /* the weights' value is the conv's alone: repointed */
      c->in[2] = bv;
      c->n_in = 3;
    }
  }
  free(nw);
  free(nb);
  return ok;
}

/* Folds node ai into the conv whose result it reads if it can; true if it did. */
static bool fb_try(berth_ir_program_t *p, berth_ir_method_t *m, int32_t mi, int32_t ai, int32_t *uses,
                   double *buf) {
  const int act_idx = berth_op_attr_index(berth_op_get(BERTH_OP_CONV), "act", 3);
  berth_ir_node_t *a = &m->nodes[ai];
  fb_fold_t f = {ai, -1, fb_operand(m, a), buf, NULL};
  if (f.yin < 0 || a->n_in <= f.yin) return false;
  const int32_t v = a->in[f.yin], u = a->out[0];
  const berth_ir_value_t *cv = &m->values[v];
  if (cv->kind != BERTH_IR_NODE || cv->node < 0 || uses[v] != 1) return false;
  f.conv = cv->node;
  const berth_ir_node_t *c = &m->nodes[f.conv];
  /* (a fused residual, fuse.c, would be scaled too: n_in 4 stays) */
  if (c->op != BERTH_OP_CONV || c->graph != a->graph || c->n_out != 1 || c->n_in > 3 || c->attrs[act_idx].i != 0)
    return false;
  const berth_type_t yt = cv->type;
  if ((yt.dtype != BERTH_DTYPE_F32 && yt.dtype != BERTH_DTYPE_F64) || yt.rank < 3) return false;
  if (!berth_type_equal(&yt, &m->values[u].type) || yt.dims[1] > 4096) return false;
  if (!fb_const(p, m, c->in[1], yt.dtype) || uses[c->in[1]] != 1 || m->values[c->in[1]].type.dims[0] != yt.dims[1])
    return false;
  if (c->n_in == 3 && (!fb_const(p, m, c->in[2], yt.dtype) || uses[c->in[2]] != 1)) return false;
  f.t = buf + 4096;
  if (!fb_affine(p, m, &f, &yt) || !fb_apply(p, m, mi, &f)) return false;
  a = &m->nodes[ai];
  /* the conv now defines u; the folded node is left on v alone (dead) */
  m->nodes[f.conv].out[0] = u;
  m->values[u].node = f.conv;
  m->values[u].index = 0;
  a->out[0] = v;
  m->values[v].node = ai;
  uses[m->nodes[f.conv].in[2]] = 1; /* the new bias, the conv's alone */
  return true;
}

int32_t berth_pass_fold_affine(berth_ir_program_t *p) {
  int32_t folded = 0;
  double *buf = malloc(2 * 4096 * sizeof *buf);
  for (int32_t mi = 0; buf && mi < p->n_methods; mi++) {
    berth_ir_method_t *m = &p->methods[mi];
    /* a fold adds at most one value (a bias): room for one per node */
    int32_t *uses = calloc((size_t)(m->n_values + m->n_nodes + 1), sizeof *uses);
    if (!uses) break; /* folding is an optimization: without memory, the program stays as it is */
    berth_pass_uses(m, uses, NULL);
    /* in program order, so conv -> mul -> add folds the mul, then the add into the result */
    for (int32_t ai = 0; ai < m->n_nodes; ai++)
      if (fb_try(p, m, mi, ai, uses, buf)) folded++;
    free(uses);
  }
  free(buf);
  return folded;
}
