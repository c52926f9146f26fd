/* Model-local functions (ONNX IR "Functions", ModelProto.functions): a node whose (domain,
 * op type, overload) names a function of the model is expanded in place, as the exporter's
 * torch.cond / while_loop / scan subgraphs and torchlib helpers need.
 *
 * The body is translated in the caller's IR graph with its own name scope: the formal
 * inputs are bound to the call's operands, names of the caller are hidden (scope_floor),
 * and the formal outputs are bound back to the call's output names, so two calls of one
 * function (or two functions using the same value names) never meet. Inside the body,
 * attributes with ref_attr_name take the calling node's attribute of that name, else the
 * function's default (attribute_proto), else are absent; the function's own ai.onnx opset
 * applies; an omitted optional input reads as omitted ("") in every body node that names
 * it; outputs the caller omits are not bound. A function that calls itself, directly or
 * through others, is refused with the cycle in the message. */
#include "onnx_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CALL_DEPTH 32  /* function calls nested in one another */
/* Nodes expanded from function bodies in one model, sub-graphs (If/Loop/Scan bodies inside a
 * function) included: a small file that calls a function many times must not become a
 * program that takes minutes to plan and verify. */
#define MAX_FN_NODES ((int64_t)1 << 18)

typedef struct ox_fn_frame {
  const Onnx__FunctionProto *fn;
  const Onnx__NodeProto *call; /* the calling node, its attributes already resolved */
  struct ox_fn_frame *up;
  int32_t index;
  int32_t depth;
} ox_fn_frame_t;

static const char *str_or(const char *s, const char *dflt) { return s && s[0] ? s : dflt; }

static berth_status_t oom(ox_ctx_t *cx) { return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory"); }

static bool same_domain(const char *a, const char *b) {
  a = str_or(a, "");
  b = str_or(b, "");
  if (strcmp(a, "ai.onnx") == 0) a = "";
  if (strcmp(b, "ai.onnx") == 0) b = "";
  return strcmp(a, b) == 0;
}

int32_t ox_function_find(const ox_ctx_t *cx, const char *domain, const char *name, const char *overload) {
  for (size_t k = 0; k < cx->n_functions; k++) {
    const Onnx__FunctionProto *f = cx->functions[k];
    if (f && f->name && name && strcmp(f->name, name) == 0 && same_domain(f->domain, domain) &&
        strcmp(str_or(f->overload, ""), str_or(overload, "")) == 0)
      return (int32_t)k;
  }
  return -1;
}

berth_status_t ox_functions_check(ox_ctx_t *cx) {
  if (cx->n_functions > OX_MAX_FUNCTIONS)
    return berth_fail(cx->diag, BERTH_ERR_OUT_OF_RANGE, "onnx: the model has %zu functions, over berth's cap of %d",
                      cx->n_functions, OX_MAX_FUNCTIONS);
  for (size_t k = 0; k < cx->n_functions; k++) {
    const Onnx__FunctionProto *f = cx->functions[k];
    if (!f || !f->name || !f->name[0])
      return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT, "onnx: function %zu of the model has no name", k);
    if (f->n_node > BERTH_ONNX_MAX_NODES)
      return berth_fail(cx->diag, BERTH_ERR_OUT_OF_RANGE, "onnx: function '%s' has %zu nodes, over berth's cap of %d",
                        f->name, f->n_node, BERTH_ONNX_MAX_NODES);
    if (ox_function_find(cx, f->domain, f->name, f->overload) != (int32_t)k)
      return berth_fail(cx->diag, BERTH_ERR_INVALID_ARGUMENT,
                        "onnx: the model defines function '%s' (domain '%s', overload '%s') twice", f->name,
                        str_or(f->domain, ""), str_or(f->overload, ""));
  }
  return BERTH_OK;
}

/* ==== resolving a body node ============================================================
 * A node inside a function body (at any sub-graph depth) may refer to the call's
 * attributes and name omitted inputs: it is translated as a shallow copy with those
 * resolved. */

typedef struct resolved {
  Onnx__NodeProto node;
  Onnx__AttributeProto **attr_ptrs;
  Onnx__AttributeProto *attrs;
  char **inputs;
} resolved_t;

static const Onnx__AttributeProto *call_attr(const ox_fn_frame_t *fr, const char *name) {
  for (size_t k = 0; k < fr->call->n_attribute; k++) {
    const Onnx__AttributeProto *a = fr->call->attribute[k];
    if (a && a->name && strcmp(a->name, name) == 0) return a;
  }
  for (size_t k = 0; k < fr->fn->n_attribute_proto; k++) {
    const Onnx__AttributeProto *a = fr->fn->attribute_proto[k];
    if (a && a->name && strcmp(a->name, name) == 0) return a;
  }
  return NULL;
}

static bool omitted(const ox_ctx_t *cx, const char *name) {
  if (!name || !name[0]) return false;
  int32_t v = ox_lookup(cx, name);
  return v >= 0 && cx->vals[v].absent;
}

/* Fills r when cx->node needs resolving (returns true), else leaves it alone. */
static berth_status_t resolve_node(ox_ctx_t *cx, resolved_t *r, bool *changed) {
  const Onnx__NodeProto *n = cx->node;
  *changed = false;
  bool any = false;
  for (size_t k = 0; k < n->n_attribute && !any; k++) any = n->attribute[k] && str_or(n->attribute[k]->ref_attr_name, NULL);
  for (size_t k = 0; k < n->n_input && !any; k++) any = omitted(cx, n->input[k]);
  if (!any) return BERTH_OK;
  memset(r, 0, sizeof *r);
  r->node = *n;
  r->attr_ptrs = calloc(n->n_attribute ? n->n_attribute : 1, sizeof *r->attr_ptrs);
  r->attrs = calloc(n->n_attribute ? n->n_attribute : 1, sizeof *r->attrs);
  r->inputs = calloc(n->n_input ? n->n_input : 1, sizeof *r->inputs);
  if (!r->attr_ptrs || !r->attrs || !r->inputs) {
    free(r->attr_ptrs);
    free(r->attrs);
    free(r->inputs);
    return oom(cx);
  }
  size_t na = 0;
  for (size_t k = 0; k < n->n_attribute; k++) {
    const Onnx__AttributeProto *a = n->attribute[k];
    if (!a) continue;
    const char *ref = str_or(a->ref_attr_name, NULL);
    if (!ref) {
      r->attr_ptrs[na++] = (Onnx__AttributeProto *)a;
      continue;
    }
    const Onnx__AttributeProto *actual = call_attr(cx->frame, ref);
    if (!actual) continue; /* neither given nor defaulted: the attribute is absent */
    r->attrs[na] = *actual;
    r->attrs[na].name = a->name;
    r->attrs[na].ref_attr_name = NULL;
    r->attr_ptrs[na] = &r->attrs[na];
    na++;
  }
  for (size_t k = 0; k < n->n_input; k++) r->inputs[k] = omitted(cx, n->input[k]) ? "" : n->input[k];
  r->node.attribute = r->attr_ptrs;
  r->node.n_attribute = na;
  r->node.input = r->inputs;
  *changed = true;
  return BERTH_OK;
}

static void resolved_free(resolved_t *r) {
  free(r->attr_ptrs);
  free(r->attrs);
  free(r->inputs);
}

/* ==== expansion ======================================================================== */

/* "f -> g -> f" for a call of function `index` made inside the frames. */
static void format_cycle(const ox_ctx_t *cx, int32_t index, char *buf, size_t cap) {
  const ox_fn_frame_t *chain[MAX_CALL_DEPTH + 1];
  int32_t n = 0;
  for (const ox_fn_frame_t *f = cx->frame; f && n < MAX_CALL_DEPTH; f = f->up) {
    chain[n++] = f;
    if (f->index == index) break;
  }
  size_t o = 0;
  for (int32_t i = n - 1; i >= 0 && o < cap; i--) o += berth_snprintf(buf + o, cap - o, "%s -> ", chain[i]->fn->name);
  if (o < cap) berth_snprintf(buf + o, cap - o, "%s", cx->functions[index]->name);
}

/* Nodes of a node list with every sub-graph they hold, counted up to cap (enough to refuse). */
static int64_t count_nodes(Onnx__NodeProto *const *nodes, size_t n, int depth, int64_t cap) {
  int64_t total = 0;
  for (size_t k = 0; k < n && total <= cap; k++) {
    total++;
    const Onnx__NodeProto *nd = nodes[k];
    if (!nd || depth >= 64) continue;
    for (size_t a = 0; a < nd->n_attribute; a++) {
      const Onnx__AttributeProto *at = nd->attribute[a];
      if (!at) continue;
      if (at->g) total += count_nodes(at->g->node, at->g->n_node, depth + 1, cap - total);
      for (size_t j = 0; j < at->n_graphs; j++)
        if (at->graphs[j]) total += count_nodes(at->graphs[j]->node, at->graphs[j]->n_node, depth + 1, cap - total);
    }
  }
  return total;
}

static berth_status_t expand(ox_ctx_t *cx, int32_t index) {
  const Onnx__NodeProto *call = cx->node;
  const Onnx__FunctionProto *fn = cx->functions[index];
  int32_t depth = cx->frame ? cx->frame->depth + 1 : 1;
  for (const ox_fn_frame_t *f = cx->frame; f; f = f->up)
    if (f->index == index) {
      char cyc[512];
      format_cycle(cx, index, cyc, sizeof cyc);
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "function '%s' calls itself (%s): recursive functions are not allowed",
                     fn->name, cyc);
    }
  if (depth > MAX_CALL_DEPTH)
    return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "function calls nest more than %d deep", MAX_CALL_DEPTH);
  if (call->n_input > fn->n_input || call->n_output > fn->n_output)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "calls function '%s' with %zu inputs and %zu outputs; it has %zu and %zu",
                   fn->name, call->n_input, call->n_output, fn->n_input, fn->n_output);
  int64_t body = count_nodes(fn->node, fn->n_node, 0, MAX_FN_NODES - cx->fn_nodes);
  if (body > MAX_FN_NODES - cx->fn_nodes)
    return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE,
                   "expanding function '%s' exceeds berth's cap of %lld nodes expanded from functions (sub-graphs "
                   "included)", fn->name, (long long)MAX_FN_NODES);
  cx->fn_nodes += body;
  /* the function's own ai.onnx opset (else the caller's) */
  int64_t opset = cx->opset;
  for (size_t k = 0; k < fn->n_opset_import; k++) {
    const Onnx__OperatorSetIdProto *o = fn->opset_import[k];
    if (o && same_domain(o->domain, "") && o->has_version) opset = o->version;
  }
  if (opset < BERTH_ONNX_MIN_OPSET || opset > BERTH_ONNX_MAX_OPSET)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "function '%s' uses ai.onnx opset %lld; berth supports opsets %d to %d",
                   fn->name, (long long)opset, BERTH_ONNX_MIN_OPSET, BERTH_ONNX_MAX_OPSET);
  /* operands, looked up in the caller's scope; omitted ones read as omitted in the body */
  size_t n_in = fn->n_input;
  int32_t *in = malloc((n_in ? n_in : 1) * sizeof *in);
  if (!in) return oom(cx);
  int32_t absent = -1;
  berth_status_t st = BERTH_OK;
  for (size_t k = 0; k < n_in && !st; k++) {
    if (k < call->n_input && call->input[k] && call->input[k][0]) {
      st = ox_in(cx, (int32_t)k, &in[k]);
    } else {
      if (absent < 0) {
        absent = ox_val_new(cx);
        if (absent < 0) st = oom(cx);
        else cx->vals[absent].absent = true;
      }
      in[k] = absent;
    }
  }
  if (st) {
    free(in);
    return st;
  }
  /* a name prefix for the IR values of this call: "f/" for the first call of f, then
   * "f.2/", ... so that values of different calls keep different names */
  if (!cx->fn_calls) cx->fn_calls = calloc(cx->n_functions, sizeof *cx->fn_calls);
  if (!cx->fn_calls) {
    free(in);
    return oom(cx);
  }
  int64_t nth = ++cx->fn_calls[index];
  size_t plen = strlen(cx->name_prefix ? cx->name_prefix : "") + strlen(fn->name) + 24;
  char *prefix = malloc(plen);
  if (!prefix) {
    free(in);
    return oom(cx);
  }
  if (nth == 1) berth_snprintf(prefix, plen, "%s%s/", cx->name_prefix ? cx->name_prefix : "", fn->name);
  else berth_snprintf(prefix, plen, "%s%s.%lld/", cx->name_prefix ? cx->name_prefix : "", fn->name, (long long)nth);

  ox_fn_frame_t frame = {.fn = fn, .call = call, .up = cx->frame, .index = index, .depth = depth};
  int32_t saved_binds = cx->n_binds, saved_floor = cx->scope_floor;
  int64_t saved_opset = cx->opset;
  const char *saved_prefix = cx->name_prefix;
  ox_fn_frame_t *saved_frame = cx->frame;
  cx->scope_floor = cx->n_binds;
  cx->frame = &frame;
  cx->opset = opset;
  cx->name_prefix = prefix;
  for (size_t k = 0; k < n_in && !st; k++) {
    const char *name = fn->input[k];
    if (!name || !name[0]) {
      st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "function '%s' input %zu has no name", fn->name, k);
      break;
    }
    if (ox_lookup(cx, name) >= 0)
      st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "function '%s' names two inputs '%s'", fn->name, name);
    else st = ox_bind(cx, name, in[k]);
  }
  free(in);
  for (size_t k = 0; k < fn->n_node && !st; k++) {
    if (!fn->node[k]) continue;
    cx->node = fn->node[k];
    st = ox_translate_node(cx);
  }
  /* the outputs the caller names */
  int32_t *out = calloc(call->n_output ? call->n_output : 1, sizeof *out);
  if (!out && !st) st = oom(cx);
  cx->node = call;
  for (size_t k = 0; k < call->n_output && !st; k++) {
    out[k] = -1;
    if (!call->output[k] || !call->output[k][0]) continue;
    const char *name = fn->output[k] ? fn->output[k] : "";
    int32_t v = name[0] ? ox_lookup(cx, name) : -1;
    if (v < 0 || cx->vals[v].absent)
      st = ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "function '%s' does not compute its output %zu '%s'", fn->name, k, name);
    out[k] = v;
  }
  ox_unbind_to(cx, saved_binds);
  cx->scope_floor = saved_floor;
  cx->frame = saved_frame;
  cx->opset = saved_opset;
  cx->name_prefix = saved_prefix;
  cx->node = call;
  free(prefix);
  for (size_t k = 0; k < call->n_output && !st; k++)
    if (out[k] >= 0) st = ox_bind(cx, call->output[k], out[k]);
  free(out);
  return st;
}

berth_status_t ox_translate_node(ox_ctx_t *cx) {
  if (!cx->frame && !cx->n_functions) return ox_translate_op(cx);
  const Onnx__NodeProto *orig = cx->node;
  resolved_t r;
  bool changed = false;
  if (cx->frame) OX_TRY(resolve_node(cx, &r, &changed));
  if (changed) cx->node = &r.node;
  const Onnx__NodeProto *n = cx->node;
  int32_t f = ox_function_find(cx, n->domain, n->op_type, n->overload);
  berth_status_t st = f >= 0 ? expand(cx, f) : ox_translate_op(cx);
  if (st && f >= 0 && !cx->frame)
    st = berth_fail_prefix(cx->diag, st, "onnx: in function '%s' (domain '%s') called by node '%s'", n->op_type,
                           str_or(n->domain, ""), str_or(n->name, str_or(n->n_output ? n->output[0] : NULL, "")));
  cx->node = orig;
  if (changed) resolved_free(&r);
  return st;
}
