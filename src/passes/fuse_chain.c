/* Elementwise-chain fusion: a run of f32 elementwise nodes of one graph, each the only reader
 * of the one before (no other node at any depth, no graph result), becomes one
 * elementwise_chain node (kernel_chain.h) that computes the same values in one pass over the
 * data: relu, neg, abs, sqrt, exp, sigmoid, tanh, clip, leaky_relu, hard_sigmoid, hard_swish,
 * and add, sub, mul, div, minimum, maximum whose other operand broadcasts into the chain's shape along one run
 * of its dims (a scalar, a per-channel constant, a same-shape tensor such as ResNet's skip),
 * and batch_norm (DenseNet's pre-activation batch_norm, mul, add, relu is one chain).
 * Every link keeps the chain's type. At most BERTH_CHAIN_MAX links per node; a longer run
 * is split. The last node of the run becomes the chain (it keeps its result; every operand is
 * defined before it), the others are left dead for the DCE pass that must follow. The
 * kernel's formulas are the separate kernels': results are unchanged bit for bit. Run after
 * the activation fusion (fuse.c), which puts a conv's relu into the conv. */
#include "kernels/kernel_chain.h"
#include "passes/passes.h"

#include <stdlib.h>
#include <string.h>

static int fc_code(berth_op_t op) {
  switch (op) {
    case BERTH_OP_RELU: return BERTH_CHAIN_OP_RELU;
    case BERTH_OP_NEG: return BERTH_CHAIN_OP_NEG;
    case BERTH_OP_ABS: return BERTH_CHAIN_OP_ABS;
    case BERTH_OP_SQRT: return BERTH_CHAIN_OP_SQRT;
    case BERTH_OP_EXP: return BERTH_CHAIN_OP_EXP;
    case BERTH_OP_SIGMOID: return BERTH_CHAIN_OP_SIGMOID;
    case BERTH_OP_TANH: return BERTH_CHAIN_OP_TANH;
    case BERTH_OP_CLIP: return BERTH_CHAIN_OP_CLIP;
    case BERTH_OP_LEAKY_RELU: return BERTH_CHAIN_OP_LEAKY_RELU;
    case BERTH_OP_HARD_SIGMOID: return BERTH_CHAIN_OP_HARD_SIGMOID;
    case BERTH_OP_HARD_SWISH: return BERTH_CHAIN_OP_HARD_SWISH;
    case BERTH_OP_ADD: return BERTH_CHAIN_OP_ADD;
    case BERTH_OP_SUB: return BERTH_CHAIN_OP_SUB;
    case BERTH_OP_MUL: return BERTH_CHAIN_OP_MUL;
    case BERTH_OP_DIV: return BERTH_CHAIN_OP_DIV;
    case BERTH_OP_MINIMUM: return BERTH_CHAIN_OP_MINIMUM;
    case BERTH_OP_MAXIMUM: return BERTH_CHAIN_OP_MAXIMUM;
    case BERTH_OP_BATCH_NORM: return BERTH_CHAIN_OP_BATCH_NORM;
    default: return 0;
  }
}

/* Whether node ni can be a link whose running value is its operand `at` (0 or 1); the chain's
 * type is its result's. */
static bool fc_link(const berth_ir_method_t *m, int32_t ni, int32_t at) {
  const berth_ir_node_t *n = &m->nodes[ni];
  const int code = fc_code(n->op);
  if (!code || n->n_out != 1) return false;
  const berth_type_t *y = &m->values[n->out[0]].type;
  if (y->dtype != BERTH_DTYPE_F32 || at >= n->n_in || !berth_type_equal(&m->values[n->in[at]].type, y)) return false;
  if (code == BERTH_CHAIN_OP_BATCH_NORM) return at == 0 && y->rank >= 2; /* params: infer checked them */
  if (code < BERTH_CHAIN_OP_ADD) return n->n_in == 1;
  return n->n_in == 2 && berth_chain_operand_ok(&m->values[n->in[1 - at]].type, y, NULL, NULL);
}

/* The running-value operand of node ni when it is the head of a chain: its first operand that
 * makes it a link, -1 if none. */
static int32_t fc_head_at(const berth_ir_method_t *m, int32_t ni) {
  for (int32_t at = 0; at < 2; at++)
    if (fc_link(m, ni, at)) return at;
  return -1;
}

typedef struct fc_chain {
  int32_t n, node[BERTH_CHAIN_MAX], at[BERTH_CHAIN_MAX];
} fc_chain_t;

/* The links from head h on: each next one the only reader of the one before, in its graph. */
static void fc_collect(const berth_ir_method_t *m, const int32_t *uses, const int32_t *reader, int32_t h,
                       fc_chain_t *c) {
  c->n = 1;
  c->node[0] = h;
  c->at[0] = fc_head_at(m, h);
  while (c->n < BERTH_CHAIN_MAX) {
    const int32_t v = m->nodes[c->node[c->n - 1]].out[0], r = reader[v];
    if (uses[v] != 1 || r < 0 || m->nodes[r].graph != m->nodes[h].graph) break;
    const int32_t at = m->nodes[r].in[0] == v ? 0 : 1;
    if (!fc_link(m, r, at) || (m->nodes[r].n_in == 2 && m->nodes[r].in[1 - at] == v)) break;
    c->node[c->n] = r;
    c->at[c->n++] = at;
  }
}

static int64_t fc_bits(double d) {
  int64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* Turns the chain's last node into elementwise_chain; false (nothing changed) when out of
 * memory. */
static bool fc_rewrite(berth_ir_method_t *m, const fc_chain_t *c) {
  int32_t *in = malloc((size_t)(1 + 4 * c->n) * sizeof *in);
  if (!in) return false;
  berth_attr_value_t attrs[BERTH_MAX_OP_ATTRS];
  memset(attrs, 0, sizeof attrs);
  int32_t n_in = 1;
  in[0] = m->nodes[c->node[0]].in[c->at[0]];
  for (int32_t i = 0; i < c->n; i++) {
    const berth_ir_node_t *n = &m->nodes[c->node[i]];
    const int code = fc_code(n->op);
    int64_t word = code;
    if (code == BERTH_CHAIN_OP_BATCH_NORM) {
      word |= (int64_t)n_in << 8;
      for (int32_t q = 1; q < 5; q++) in[n_in++] = n->in[q];
    } else if (code >= BERTH_CHAIN_OP_ADD) {
      in[n_in] = n->in[1 - c->at[i]];
      word |= (int64_t)n_in++ << 8 | (int64_t)(c->at[i] == 1) << 16;
    }
    const bool p2 = code == BERTH_CHAIN_OP_CLIP || code == BERTH_CHAIN_OP_HARD_SIGMOID;
    const bool p1 = p2 || code == BERTH_CHAIN_OP_LEAKY_RELU || code == BERTH_CHAIN_OP_BATCH_NORM;
    attrs[0].ints[i] = word;
    attrs[1].ints[i] = fc_bits(p1 ? n->attrs[0].f : 0.0);
    attrs[2].ints[i] = fc_bits(p2 ? n->attrs[1].f : 0.0);
  }
  attrs[0].n = attrs[1].n = attrs[2].n = c->n;
  berth_ir_node_t *last = &m->nodes[c->node[c->n - 1]];
  free(last->in);
  last->in = in;
  last->n_in = n_in;
  last->op = BERTH_OP_ELEMENTWISE_CHAIN;
  memcpy(last->attrs, attrs, sizeof attrs);
  return true;
}

static int32_t fc_method(berth_ir_method_t *m, int32_t *uses, int32_t *reader, bool *taken) {
  for (int32_t ni = 0; ni < m->n_nodes; ni++) taken[ni] = false;
  berth_pass_uses(m, uses, reader);
  int32_t fused = 0;
  const int32_t n_nodes = m->n_nodes;
  for (int32_t h = 0; h < n_nodes; h++) {
    const berth_ir_node_t *n = &m->nodes[h];
    if (taken[h] || fc_head_at(m, h) < 0) continue;
    /* a head: not a link of a chain before it (that chain would have taken it) */
    bool linked = false;
    for (int32_t at = 0; at < n->n_in && !linked; at++) {
      const berth_ir_value_t *pv = &m->values[n->in[at]];
      linked = pv->kind == BERTH_IR_NODE && pv->node >= 0 && uses[n->in[at]] == 1 &&
               m->nodes[pv->node].graph == n->graph && fc_head_at(m, pv->node) >= 0 && fc_link(m, h, at) &&
               !(n->n_in == 2 && n->in[0] == n->in[1]);
    }
    if (linked) continue;
    for (int32_t start = h; start >= 0;) {
      fc_chain_t c;
      fc_collect(m, uses, reader, start, &c);
      const int32_t v = m->nodes[c.node[c.n - 1]].out[0];
      /* a chain of the maximum length that goes on: the next chain starts at the next link */
      start = c.n == BERTH_CHAIN_MAX && uses[v] == 1 && reader[v] >= 0 && fc_head_at(m, reader[v]) >= 0 &&
                      m->nodes[reader[v]].graph == n->graph
                  ? reader[v]
                  : -1;
      for (int32_t i = 0; i < c.n; i++) taken[c.node[i]] = true;
      if (c.n < 2) continue;
      if (!fc_rewrite(m, &c)) return fused;
      fused++;
    }
  }
  return fused;
}

int32_t berth_pass_fuse_chains(berth_ir_program_t *p) {
  int32_t fused = 0;
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    berth_ir_method_t *m = &p->methods[mi];
    const size_t nv = (size_t)(m->n_values ? m->n_values : 1);
    int32_t *uses = malloc(nv * sizeof *uses), *reader = malloc(nv * sizeof *reader);
    bool *taken = malloc((size_t)(m->n_nodes ? m->n_nodes : 1) * sizeof *taken);
    if (uses && reader && taken) fused += fc_method(m, uses, reader, taken);
    free(taken);
    free(uses);
    free(reader);
  }
  return fused;
}
