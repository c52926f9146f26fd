/* Readers of each value of a method, shared by the fusion and folding passes. */
#include "passes/passes.h"

void berth_pass_uses(const berth_ir_method_t *m, int32_t *uses, int32_t *reader) {
  for (int32_t v = 0; v < m->n_values; v++) {
    uses[v] = 0;
    if (reader) reader[v] = -1;
  }
  for (int32_t ni = 0; ni < m->n_nodes; ni++)
    for (int32_t i = 0; i < m->nodes[ni].n_in; i++) {
      uses[m->nodes[ni].in[i]]++;
      if (reader) reader[m->nodes[ni].in[i]] = ni;
    }
  for (int32_t g = 0; g < m->n_graphs; g++)
    for (int32_t r = 0; r < m->graphs[g].n_results; r++) uses[m->graphs[g].results[r]]++;
}
