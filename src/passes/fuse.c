/* Conv epilogue fusion.
 *
 * Residual: an add(y, r) or add(r, y) whose operand y is the result of a conv of the same
 * graph with a bias and no act yet, read by nothing else, becomes the conv's fourth operand r
 * (kernel_conv.c: y = act((conv + b) + r)), when r has the result's type (no broadcast) and is
 * ready before the conv: a method or body parameter, a constant, or a node result defined
 * earlier in the conv's graph or in an enclosing one (never a state buffer, which a copy_
 * between the conv and the add could change, nor y itself). ResNet's shortcuts: the add's
 * result no longer makes its own round trip through memory. Done first, so that the relu
 * after the add then fuses as the act.
 *
 * Activation: a relu, clip or leaky_relu whose operand is the result of a conv of
 * the same graph, read by nothing else (no other node at any depth, no graph result),
 * becomes the conv's epilogue (conv's act attributes, kernel_conv.c), so the activation
 * runs on the conv's output while it is still in cache and the program holds one tensor
 * less. The conv takes over the activation's result value (its name and its readers); the
 * activation is left reading and writing the conv's old result, which nothing else reads,
 * for the DCE pass that must follow to remove. Same formulas in the same dtype: the
 * results are unchanged bit for bit. */
#include "passes/passes.h"

#include <stdbool.h>
#include <stdlib.h>

enum { FUSE_ACT_RELU = 1, FUSE_ACT_CLIP = 2, FUSE_ACT_LEAKY_RELU = 3 }; /* conv's act values */

static int fuse_act_of(berth_op_t op) {
  switch (op) {
    case BERTH_OP_RELU: return FUSE_ACT_RELU;
    case BERTH_OP_CLIP: return FUSE_ACT_CLIP;
    case BERTH_OP_LEAKY_RELU: return FUSE_ACT_LEAKY_RELU;
    default: return 0;
  }
}

/* Whether value r is ready at node ci (conv) of graph g: pos gives each node's place in its graph. */
static bool fuse_ready_before(const berth_ir_method_t *m, const int32_t *pos, int32_t r, int32_t ci) {
  const berth_ir_value_t *rv = &m->values[r];
  if (rv->kind == BERTH_IR_CONST || rv->kind == BERTH_IR_PARAM) return true;
  if (rv->kind != BERTH_IR_NODE || rv->node < 0) return false;
  /* in an enclosing graph: defined before the HOP that holds the conv */
  return m->nodes[rv->node].graph != m->nodes[ci].graph || pos[rv->node] < pos[ci];
}

/* Node ai (an add) into the conv that defines its operand k, if it can; true if it did. */
static bool fuse_residual_try(berth_ir_method_t *m, const int32_t *uses, const int32_t *pos, int32_t ai, int k,
                              int act_idx) {
  berth_ir_node_t *a = &m->nodes[ai];
  const int32_t v = a->in[k], r = a->in[1 - k], u = a->out[0];
  const berth_ir_value_t *cv = &m->values[v];
  if (v == r || cv->kind != BERTH_IR_NODE || cv->node < 0 || uses[v] != 1) return false;
  const int32_t ci = cv->node;
  berth_ir_node_t *c = &m->nodes[ci];
  if (c->op != BERTH_OP_CONV || c->graph != a->graph || c->n_out != 1 || c->n_in != 3 || c->attrs[act_idx].i != 0)
    return false;
  if (!berth_type_equal(&cv->type, &m->values[u].type) || !berth_type_equal(&cv->type, &m->values[r].type))
    return false;
  if (!fuse_ready_before(m, pos, r, ci)) return false;
  int32_t *nin = realloc(c->in, 4 * sizeof *nin);
  if (!nin) return false; /* the program stays as it is */
  nin[3] = r;
  c->in = nin;
  c->n_in = 4;
  /* the conv now defines u; the add is left on v alone (dead) */
  c->out[0] = u;
  m->values[u].node = ci;
  m->values[u].index = 0;
  a->out[0] = v;
  m->values[v].node = ai;
  return true;
}

static int32_t fuse_residuals(berth_ir_method_t *m, const int32_t *uses, int32_t *pos, int act_idx) {
  for (int32_t gi = 0; gi < m->n_graphs; gi++)
    for (int32_t i = 0; i < m->graphs[gi].n_nodes; i++) pos[m->graphs[gi].nodes[i]] = i;
  int32_t fused = 0;
  for (int32_t ai = 0; ai < m->n_nodes; ai++) {
    const berth_ir_node_t *a = &m->nodes[ai];
    if (a->op != BERTH_OP_ADD || a->n_in != 2 || a->n_out != 1) continue;
    if (fuse_residual_try(m, uses, pos, ai, 0, act_idx) || fuse_residual_try(m, uses, pos, ai, 1, act_idx)) fused++;
  }
  return fused;
}

static int32_t fuse_method(berth_ir_method_t *m, int32_t *uses, int32_t *pos) {
  berth_pass_uses(m, uses, NULL);
  const int act_idx = berth_op_attr_index(berth_op_get(BERTH_OP_CONV), "act", 3);
  const int alpha_idx = berth_op_attr_index(berth_op_get(BERTH_OP_CONV), "act_alpha", 9);
  const int beta_idx = berth_op_attr_index(berth_op_get(BERTH_OP_CONV), "act_beta", 8);
  int32_t fused = fuse_residuals(m, uses, pos, act_idx);
  for (int32_t ai = 0; ai < m->n_nodes; ai++) {
    berth_ir_node_t *a = &m->nodes[ai];
    const int act = fuse_act_of(a->op);
    if (!act || a->n_in != 1 || a->n_out != 1) continue;
    const int32_t v = a->in[0], u = a->out[0];
    const berth_ir_value_t *cv = &m->values[v];
    if (cv->kind != BERTH_IR_NODE || cv->node < 0 || uses[v] != 1) continue;
    berth_ir_node_t *c = &m->nodes[cv->node];
    if (c->op != BERTH_OP_CONV || c->graph != a->graph || c->n_out != 1 || c->attrs[act_idx].i != 0) continue;
    if (!berth_type_equal(&cv->type, &m->values[u].type)) continue;
    c->attrs[act_idx].i = act;
    /* SCALAR attributes copied whole (f, and i and n for an integral value) */
    if (act == FUSE_ACT_CLIP) { /* clip {min, max} */
      c->attrs[alpha_idx] = a->attrs[0];
      c->attrs[beta_idx] = a->attrs[1];
    } else if (act == FUSE_ACT_LEAKY_RELU) { /* leaky_relu {alpha} */
      c->attrs[alpha_idx] = a->attrs[0];
    }
    /* the conv now defines u; the activation is left on v alone (dead) */
    c->out[0] = u;
    m->values[u].node = cv->node;
    a->out[0] = v;
    m->values[v].node = ai;
    fused++;
  }
  return fused;
}

int32_t berth_pass_fuse_act(berth_ir_program_t *p) {
  int32_t fused = 0;
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    berth_ir_method_t *m = &p->methods[mi];
    int32_t *uses = malloc((size_t)(m->n_values ? m->n_values : 1) * sizeof *uses);
    int32_t *pos = malloc((size_t)(m->n_nodes ? m->n_nodes : 1) * sizeof *pos);
    /* fusion is an optimization: without memory, the program stays as it is */
    if (uses && pos) fused += fuse_method(m, uses, pos);
    free(uses);
    free(pos);
  }
  return fused;
}
