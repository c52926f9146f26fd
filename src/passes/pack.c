/* Weight packing: a conv whose f32 weights are a program constant read by nothing else, and
 * that takes the packed GEMM on every kernel variant (berth_conv_packable: not depthwise, at
 * least 4 output channels per group and 32 output positions), becomes conv_packed
 * (kernel_conv.c): the weights are packed once here into the micro-kernels' A panels
 * (kernel_gemm_pack.h's berth_gemm_pack_a, panels of BERTH_GEMM_APANEL rows, the same for
 * every variant) and stored as the new constant, the logical weight shape recorded in the
 * wshape attribute. The conv's other attributes (its fused activation included) carry over.
 * The old constant is left unused, for the DCE pass that must follow. */
#include "kernels/kernel_gemm_pack.h"
#include "kernels/kernel_scratch.h"
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Packs node ni's weights; false (the node unchanged) when out of memory. */
static bool pack_node(berth_ir_program_t *p, berth_ir_method_t *m, int32_t mi, int32_t ni, const int wshape_idx) {
  berth_ir_node_t *n = &m->nodes[ni];
  berth_type_t in[3];
  for (int32_t k = 0; k < n->n_in; k++) in[k] = m->values[n->in[k]].type;
  berth_ir_value_t *wv = &m->values[n->in[1]];
  const int64_t mg = in[1].dims[0] / n->attrs[3].i, ck = berth_type_numel(&in[1]) / (in[1].dims[0] ? in[1].dims[0] : 1);
  const size_t floats = (size_t)berth_gemm_apacked_floats(mg, ck) * (size_t)n->attrs[3].i;
  float *dst = malloc(floats ? floats * sizeof(float) : 1);
  if (!dst) return false;
  berth_type_t packed;
  berth_conv_pack_weights(n->attrs, in, n->n_in, (const float *)p->globals[wv->index].data, dst, &packed);
  char name[64];
  snprintf(name, sizeof name, "packed%d_%d", (int)mi, (int)ni);
  const int32_t g = berth_ir_global_add(p, name, &packed, false, dst);
  free(dst);
  if (g < 0) return false;
  n->op = BERTH_OP_CONV_PACKED;
  berth_attr_value_t *ws = &n->attrs[wshape_idx];
  memset(ws, 0, sizeof *ws);
  ws->n = in[1].rank;
  for (int32_t d = 0; d < in[1].rank; d++) ws->ints[d] = in[1].dims[d];
  wv->type = packed;
  wv->index = g;
  return true;
}

int32_t berth_pass_pack_weights(berth_ir_program_t *p) {
  const int wshape_idx = berth_op_attr_index(berth_op_get(BERTH_OP_CONV_PACKED), "wshape", 6);
  int32_t packed = 0;
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    berth_ir_method_t *m = &p->methods[mi];
    int32_t *uses = calloc((size_t)(m->n_values ? m->n_values : 1), sizeof *uses);
    if (!uses) return packed;
    berth_pass_uses(m, uses, NULL);
    for (int32_t ni = 0; ni < m->n_nodes; ni++) {
      berth_ir_node_t *n = &m->nodes[ni];
      if (n->op != BERTH_OP_CONV || n->n_out != 1 || n->n_in < 2 || n->n_in > 3) continue;
      const berth_ir_value_t *wv = &m->values[n->in[1]];
      if (wv->kind != BERTH_IR_CONST || uses[n->in[1]] != 1 || p->globals[wv->index].is_state) continue;
      berth_type_t in[3];
      for (int32_t k = 0; k < n->n_in; k++) in[k] = m->values[n->in[k]].type;
      if (!berth_conv_packable(n->attrs, in, n->n_in)) continue;
      if (!pack_node(p, m, mi, ni, wshape_idx)) break;
      packed++;
    }
    free(uses);
  }
  return packed;
}
