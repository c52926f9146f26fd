/* State pairs (berth_onnx_state_pair_t): an exported model carries state as a graph input
 * and a graph output that the caller copies back (Silero's state -> stateN, the buffers a
 * functionalized torch module mutates). berth imports the pair as one mutable buffer: the
 * input reads it, the output's value is written into it by a copy_ at the end of the call,
 * which the planner turns into destination passing where it can (the value is computed in
 * the buffer's bytes). */
#include "onnx_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static berth_status_t oom(ox_ctx_t *cx) { return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory"); }

int32_t ox_state_of_input(const ox_ctx_t *cx, const char *name) {
  for (int32_t k = 0; name && k < cx->opt->n_states; k++)
    if (cx->opt->states[k].input && strcmp(cx->opt->states[k].input, name) == 0) return k;
  return -1;
}

int32_t ox_state_of_output(const ox_ctx_t *cx, const char *name) {
  for (int32_t k = 0; name && k < cx->opt->n_states; k++)
    if (cx->opt->states[k].output && strcmp(cx->opt->states[k].output, name) == 0) return k;
  return -1;
}

berth_status_t ox_state_check(ox_ctx_t *cx, const Onnx__GraphProto *g) {
  for (int32_t s = 0; s < cx->opt->n_states; s++) {
    const berth_onnx_state_pair_t *sp = &cx->opt->states[s];
    const char *in = sp->input ? sp->input : "", *out = sp->output ? sp->output : "";
    bool has_in = false, has_out = false;
    for (size_t k = 0; k < g->n_input; k++) has_in |= g->input[k] && g->input[k]->name && strcmp(g->input[k]->name, in) == 0;
    for (size_t k = 0; k < g->n_output; k++)
      has_out |= g->output[k] && g->output[k]->name && strcmp(g->output[k]->name, out) == 0;
    if (!has_in || !has_out)
      return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: --state %s=%s: the model has no graph %s named '%s'", in, out,
                        has_in ? "output" : "input", has_in ? out : in);
    for (int32_t t = 0; t < s; t++)
      if ((cx->opt->states[t].input && strcmp(cx->opt->states[t].input, in) == 0) ||
          (cx->opt->states[t].output && strcmp(cx->opt->states[t].output, out) == 0))
        return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: --state %s=%s: '%s' or '%s' is in another state pair too",
                          in, out, in, out);
  }
  return BERTH_OK;
}

berth_status_t ox_state_input(ox_ctx_t *cx, const Onnx__ValueInfoProto *vi) {
  const char *name = vi->name;
  const berth_onnx_input_spec_t *spec = NULL;
  for (int32_t s = 0; s < cx->opt->n_inputs; s++)
    if (cx->opt->inputs[s].name && strcmp(cx->opt->inputs[s].name, name) == 0) spec = &cx->opt->inputs[s];
  int32_t init = ox_lookup(cx, name); /* the initializer, if any */
  if (init >= 0 && !ox_is_const(cx, init)) init = -1;
  int32_t elem = BERTH_ONNX_UNDEFINED;
  berth_type_t decl, t;
  bool complete = false;
  bool typed = ox_value_info_type(vi, &elem, &decl, &complete);
  char buf[160];
  if (spec && spec->rank >= 0) {
    memset(&t, 0, sizeof t);
    t.dtype = spec->dtype;
    t.rank = spec->rank;
    for (int32_t d = 0; d < t.rank; d++) t.dims[d] = spec->dims[d];
  } else if (init >= 0) {
    t = cx->vals[init].type;
  } else if (typed && complete) {
    t = decl;
  } else {
    return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT,
                      "onnx: --state: graph input '%s' has dynamic or unknown dims: fix them with --input %s:DTYPE[DIMS]", name, name);
  }
  if (init >= 0 && !berth_type_equal(&t, &cx->vals[init].type))
    return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: --state: graph input '%s' is %s but its initializer is %s", name,
                      berth_type_format(&t, buf, sizeof buf), berth_type_format(&cx->vals[init].type, buf + 80, 80));
  berth_dtype_t dt;
  if (typed && elem != BERTH_ONNX_UNDEFINED && (!berth_onnx_elem_dtype(elem, &dt) || dt != t.dtype || berth_onnx_elem_is_narrow(elem)))
    return berth_fail(cx->diag, BERTH_ERR_UNIMPLEMENTED, "onnx: --state: graph input '%s' is %s, which berth cannot hold as %s state",
                      name, berth_onnx_elem_name(elem), berth_dtype_name(t.dtype));
  if (!berth_type_check(&t))
    return berth_fail(cx->diag, BERTH_ERR_OUT_OF_RANGE, "onnx: --state: graph input '%s' %s exceeds berth's caps", name,
                      berth_type_format(&t, buf, sizeof buf));
  size_t bytes = berth_type_bytes(&t);
  void *data = calloc(bytes ? bytes : 1, 1); /* zeros unless the model or the spec gives a value */
  if (!data) return oom(cx);
  if (init >= 0) memcpy(data, cx->vals[init].data, bytes);
  else if (spec && spec->value) memcpy(data, spec->value, bytes);
  /* the buffer is named after the input; k<digits> is how the importer names constants */
  char gname[300];
  bool clash = name[0] == 'k' && name[1];
  for (const char *q = name + 1; clash && *q; q++) clash = isdigit((unsigned char)*q);
  berth_snprintf(gname, sizeof gname, "%s%s", clash ? "state_" : "", name);
  if (berth_ir_global_find(cx->p, gname, strlen(gname)) >= 0) {
    free(data);
    return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: --state: two buffers named '%s'", gname);
  }
  int32_t g = berth_ir_global_add(cx->p, gname, &t, true, data);
  free(data);
  if (g < 0) return oom(cx);
  int32_t id = berth_ir_global_ref(cx->p, cx->m, g);
  if (id < 0) return oom(cx);
  int32_t v = ox_val_ir(cx, id);
  if (v < 0) return oom(cx);
  return ox_bind(cx, name, v);
}

berth_status_t ox_state_output(ox_ctx_t *cx, const Onnx__ValueInfoProto *vi) {
  const char *name = vi->name;
  const berth_onnx_state_pair_t *sp = &cx->opt->states[ox_state_of_output(cx, name)];
  int32_t v = ox_lookup(cx, name), buf = ox_lookup(cx, sp->input);
  if (v < 0 || cx->vals[v].absent)
    return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: graph output '%s' is not computed by any node", name);
  if (buf < 0) return berth_fail(cx->diag, BERTH_ERR_INTERNAL, "onnx: --state %s=%s: the buffer is not bound", sp->input, name);
  if (cx->vals[v].ext_count)
    return berth_fail(cx->diag, BERTH_ERR_UNIMPLEMENTED, "onnx: --state %s=%s: the output has a data-dependent shape "
                      "(--dynamic-bound); berth supports data-dependent shapes only as graph outputs", sp->input, name);
  char a[80], b[80];
  if (!berth_type_equal(&cx->vals[v].type, &cx->vals[buf].type))
    return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: --state %s=%s: the output is %s but the input %s", sp->input,
                      name, berth_type_format(&cx->vals[v].type, a, sizeof a), berth_type_format(&cx->vals[buf].type, b, sizeof b));
  int32_t ids[2];
  OX_TRY(ox_ir(cx, buf, &ids[0]));
  OX_TRY(ox_ir(cx, v, &ids[1]));
  if (ids[0] == ids[1]) return BERTH_OK; /* the state passed through unchanged */
  if (berth_ir_node_add(cx->m, 0, BERTH_OP_COPY_, 2, ids) < 0) return oom(cx);
  return BERTH_OK;
}
