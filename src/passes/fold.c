/* Constant evaluation with berth's kernels: the same infer and run as the planned runtime,
 * each output in its own buffer (kernels need disjoint inputs and outputs). */
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

berth_status_t berth_fold_kernel(berth_op_t op, const berth_attr_value_t *attrs, int32_t n_in,
                                 const berth_type_t *in_types, const void *const *in_data, int32_t n_out,
                                 berth_type_t *out_types, void **out_data, int64_t max_bytes, berth_diag_t *diag) {
  const berth_op_def_t *def = berth_op_get(op);
  if (!def || def->kind != BERTH_OPKIND_KERNEL || !def->infer || !def->run)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "fold: op %d is not a kernel", (int)op);
  if (n_out != def->n_out || n_in > BERTH_MAX_KERNEL_OPERANDS)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "fold: %s has %d outputs, not %d", def->name, (int)def->n_out,
                      (int)n_out);
  berth_type_t types[BERTH_MAX_KERNEL_OPERANDS];
  berth_status_t st = def->infer(attrs, in_types, n_in, types, diag);
  if (st) return st;
  for (int32_t k = 0; k < n_out; k++) {
    if ((int64_t)berth_type_bytes(&types[k]) > max_bytes)
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "fold: %s output %d has %zu bytes, over the folding cap of %lld",
                        def->name, (int)k, berth_type_bytes(&types[k]), (long long)max_bytes);
  }
  berth_tensor_ref_t in[BERTH_MAX_KERNEL_OPERANDS], out[BERTH_MAX_KERNEL_OPERANDS];
  void *bufs[BERTH_MAX_KERNEL_OPERANDS] = {0};
  for (int32_t k = 0; k < n_out; k++) {
    size_t b = berth_type_bytes(&types[k]);
    bufs[k] = calloc(1, b ? b : 1);
    if (!bufs[k]) {
      for (int32_t j = 0; j < k; j++) free(bufs[j]);
      return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "fold: out of memory");
    }
    out[k].type = &types[k];
    out[k].data = bufs[k];
  }
  for (int32_t k = 0; k < n_in; k++) {
    in[k].type = &in_types[k];
    in[k].data = (void *)in_data[k];
  }
  /* the scratch the planner would give the node, so that folding computes what the program would */
  uint64_t sb = berth_op_scratch_bytes(op, attrs, in_types, n_in);
  void *scratch = sb ? calloc(1, (size_t)sb) : NULL;
  if (sb && !scratch) {
    for (int32_t k = 0; k < n_out; k++) free(bufs[k]);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "fold: out of memory");
  }
  berth_kernel_call_t call = {attrs, in, n_in, out, n_out, scratch, scratch ? sb : 0};
  def->run(&call);
  free(scratch);
  for (int32_t k = 0; k < n_out; k++) {
    out_types[k] = types[k];
    out_data[k] = bufs[k];
  }
  return BERTH_OK;
}

/* ---- the IR pass ----------------------------------------------------------------- */

berth_status_t berth_pass_fold(berth_ir_program_t **pp, int64_t max_bytes, int32_t *n_folded, berth_diag_t *diag) {
  berth_ir_program_t *p = *pp;
  int32_t folded = 0;
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    berth_ir_method_t *m = &p->methods[mi];
    for (int32_t ni = 0; ni < m->n_nodes; ni++) {
      berth_ir_node_t *n = &m->nodes[ni];
      const berth_op_def_t *def = berth_op_get(n->op);
      if (!def || def->kind != BERTH_OPKIND_KERNEL || n->n_out != def->n_out || n->n_in > BERTH_MAX_KERNEL_OPERANDS)
        continue;
      berth_type_t in_types[BERTH_MAX_KERNEL_OPERANDS];
      const void *in_data[BERTH_MAX_KERNEL_OPERANDS];
      bool all_const = true;
      for (int32_t k = 0; k < n->n_in; k++) {
        const berth_ir_value_t *v = &m->values[n->in[k]];
        if (v->kind != BERTH_IR_CONST) {
          all_const = false;
          break;
        }
        in_types[k] = v->type;
        in_data[k] = p->globals[v->index].data;
      }
      if (!all_const) continue;
      berth_type_t out_types[BERTH_MAX_KERNEL_OPERANDS];
      void *out_data[BERTH_MAX_KERNEL_OPERANDS];
      char msg[256];
      berth_diag_t d2 = berth_diag_make(msg, sizeof msg);
      if (berth_fold_kernel(n->op, n->attrs, n->n_in, in_types, in_data, n->n_out, out_types, out_data, max_bytes, &d2))
        continue; /* left to run time (validation reports real errors) */
      /* Each result becomes a constant; its value record turns into a CONST reference. */
      bool ok = true;
      for (int32_t k = 0; k < n->n_out; k++) {
        char name[64];
        snprintf(name, sizeof name, "fold%d_%d_%d", (int)mi, (int)ni, (int)k);
        int32_t g = ok ? berth_ir_global_add(p, name, &out_types[k], false, out_data[k]) : -1;
        free(out_data[k]);
        if (g < 0) {
          ok = false;
          continue;
        }
        berth_ir_value_t *v = &m->values[n->out[k]];
        v->kind = BERTH_IR_CONST;
        v->graph = -1;
        v->node = -1;
        v->index = g;
      }
      if (!ok) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "fold: out of memory");
      /* The node now defines nothing: detach its results (DCE removes it). */
      n->n_out = 0;
      folded++;
    }
  }
  if (n_folded) *n_folded = folded;
  return folded ? berth_pass_dce(pp, diag) : BERTH_OK;
}
