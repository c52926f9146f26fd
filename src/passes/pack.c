/* Weight packing: a conv whose f32 weights are a program constant read by nothing else, and
 * that takes the packed GEMM on every kernel variant (berth_conv_packable: not depthwise, at
 * least 4 output channels per group and 32 output positions), becomes conv_packed
 * (kernel_conv.c): the weights are packed once here into the micro-kernels' A panels
 * (kernel_gemm_pack.h's berth_gemm_pack_a, panels of BERTH_GEMM_APANEL rows, the same for
 * every variant) and stored as the new constant, the logical weight shape recorded in the
 * wshape attribute. The conv's other attributes (its fused activation included) carry over.
 * The old constant is left unused, for the DCE pass that must follow.
 *
 * Likewise a matmul or gemm whose B is such a constant (f32, 2-D, at least 16 columns, whose
 * padding to whole panels adds at most a quarter; gemm without trans_a) becomes matmul_packed (kernel_matmul_packed.c): B' (trans_b applied) times
 * alpha in column panels of BERTH_MM_BPANEL floats, the micro-kernels' B panels, the logical
 * [K, N] in wshape; gemm's C and beta carry over. */
#include "kernels/kernel_gemm_pack.h"
#include "kernels/kernel_scratch.h"
#include "kernels/kernel_util.h"
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Packs node ni's weights; false (the node unchanged) when out of memory. */
static bool pack_node(berth_ir_program_t *p, berth_ir_method_t *m, int32_t mi, int32_t ni, const int wshape_idx) {
  berth_ir_node_t *n = &m->nodes[ni];
  berth_type_t in[4];
  for (int32_t k = 0; k < n->n_in; k++) in[k] = m->values[n->in[k]].type;
  berth_ir_value_t *wv = &m->values[n->in[1]];
  const size_t floats = (size_t)berth_conv_packed_floats(n->attrs, in, n->n_in);
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

/* Whether node n is a matmul or gemm whose B (operand 1, a constant) packs for matmul_packed;
 * *trans gets gemm's trans_b. */
static bool mm_packable(const berth_ir_method_t *m, const berth_ir_node_t *n, bool *trans) {
  const berth_type_t *a = &m->values[n->in[0]].type, *b = &m->values[n->in[1]].type;
  if (a->dtype != BERTH_DTYPE_F32 || b->dtype != BERTH_DTYPE_F32 || b->rank != 2 || a->rank < 1) return false;
  *trans = n->op == BERTH_OP_GEMM && n->attrs[3].i != 0;
  if (n->op == BERTH_OP_GEMM && (a->rank != 2 || n->attrs[2].i != 0)) return false; /* trans_a stays */
  const int64_t k = b->dims[*trans ? 1 : 0], cols = b->dims[*trans ? 0 : 1];
  const int64_t pad = (cols + BERTH_MM_BPANEL - 1) / BERTH_MM_BPANEL * BERTH_MM_BPANEL - cols;
  /* the panels' zero columns cost at most a quarter more bytes (a program's size matters on
   * small targets): 120 columns pack (128), 40 do not (64) */
  return k > 0 && cols >= BERTH_MM_BPANEL / 2 && 4 * pad <= cols && a->dims[a->rank - 1] == k &&
         berth_type_numel(a) > 0;
}

/* Packs node ni's B (mm_packable); false (the node unchanged) when out of memory. */
static bool pack_mm_node(berth_ir_program_t *p, berth_ir_method_t *m, int32_t mi, int32_t ni, bool trans) {
  berth_ir_node_t *n = &m->nodes[ni];
  berth_ir_value_t *bv = &m->values[n->in[1]];
  const berth_type_t b = bv->type;
  const int64_t k = b.dims[trans ? 1 : 0], cols = b.dims[trans ? 0 : 1], np = (cols + BERTH_MM_BPANEL - 1) / BERTH_MM_BPANEL;
  const float alpha = n->op == BERTH_OP_GEMM ? (float)n->attrs[0].f : 1.0f;
  const double beta = n->op == BERTH_OP_GEMM ? n->attrs[1].f : 1.0;
  float *dst = malloc((size_t)(np * k * BERTH_MM_BPANEL) * sizeof(float));
  if (!dst) return false;
  berth_mm_pack_weights((const float *)p->globals[bv->index].data, k, cols, trans, alpha, dst);
  berth_type_t packed;
  berth_kernel_type_init(&packed, BERTH_DTYPE_F32, 3);
  packed.dims[0] = np;
  packed.dims[1] = k;
  packed.dims[2] = BERTH_MM_BPANEL;
  char name[64];
  snprintf(name, sizeof name, "packed%d_%d", (int)mi, (int)ni);
  const int32_t g = berth_ir_global_add(p, name, &packed, false, dst);
  free(dst);
  if (g < 0) return false;
  n->op = BERTH_OP_MATMUL_PACKED;
  berth_op_attrs_default(berth_op_get(BERTH_OP_MATMUL_PACKED), n->attrs);
  n->attrs[0].n = 2;
  n->attrs[0].ints[0] = k;
  n->attrs[0].ints[1] = cols;
  n->attrs[1].f = beta;
  n->attrs[1].i = (int64_t)beta;
  n->attrs[1].n = (double)n->attrs[1].i == beta;
  bv->type = packed;
  bv->index = g;
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
      const bool conv = n->op == BERTH_OP_CONV, mm = n->op == BERTH_OP_MATMUL || n->op == BERTH_OP_GEMM;
      /* (a conv's fourth operand is its fused residual, fuse.c) */
      if (!(conv || mm) || n->n_out != 1 || n->n_in < 2 || n->n_in > (conv ? 4 : 3)) continue;
      const berth_ir_value_t *wv = &m->values[n->in[1]];
      if (wv->kind != BERTH_IR_CONST || uses[n->in[1]] != 1 || p->globals[wv->index].is_state) continue;
      bool trans;
      if (mm) {
        if (!mm_packable(m, n, &trans)) continue;
        if (!pack_mm_node(p, m, mi, ni, trans)) break;
        packed++;
        continue;
      }
      berth_type_t in[4];
      for (int32_t k = 0; k < n->n_in; k++) in[k] = m->values[n->in[k]].type;
      if (!berth_conv_packable(n->attrs, in, n->n_in)) continue;
      if (!pack_node(p, m, mi, ni, wshape_idx)) break;
      packed++;
    }
    free(uses);
  }
  return packed;
}
