/* Activation fusion: a relu, clip or leaky_relu whose operand is the result of a conv of
 * the same graph, read by nothing else (no other node at any depth, no graph result),
 * becomes the conv's epilogue (conv's act attributes, kernel_conv.c), so the activation
 * runs on the conv's output while it is still in cache and the program holds one tensor
 * less. The conv takes over the activation's result value (its name and its readers); the
 * activation is left reading and writing the conv's old result, which nothing else reads,
 * for the DCE pass that must follow to remove. Same formulas in the same dtype: the
 * results are unchanged bit for bit. */
#include "passes/passes.h"

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

static int32_t fuse_method(berth_ir_method_t *m, int32_t *uses) {
  berth_pass_uses(m, uses, NULL);
  const int act_idx = berth_op_attr_index(berth_op_get(BERTH_OP_CONV), "act", 3);
  const int alpha_idx = berth_op_attr_index(berth_op_get(BERTH_OP_CONV), "act_alpha", 9);
  const int beta_idx = berth_op_attr_index(berth_op_get(BERTH_OP_CONV), "act_beta", 8);
  int32_t fused = 0;
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
    if (!uses) continue; /* fusion is an optimization: without memory, the program stays as it is */
    fused += fuse_method(m, uses);
    free(uses);
  }
  return fused;
}
