/* ONNX ops, spatial family: spatial and data-movement ops (ConvTranspose, Resize, Upsample,
 * DepthToSpace, SpaceToDepth, Split, Tile, GatherElements, CenterCropPad, Col2Im, GridSample,
 * AffineGrid).
 *
 * Pure data movement is lowered into berth's shape ops where that is exact (Split into
 * slices, Tile into expands, DepthToSpace into reshape/transpose, CenterCropPad into slice and
 * pad); the rest have kernels of their own (kernel_convt.c, kernel_resize.c, kernel_grid.c,
 * kernel_spatial.c). Shapes, sizes and scales must fold to constants. */
#include "onnx_internal.h"

#include "base/checked.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* One slice of x along axis: [start, start + len). */
static berth_status_t slice_axis(ox_ctx_t *cx, int32_t x, int32_t axis, int64_t start, int64_t len, int32_t *out) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_SLICE, a);
  int64_t ax = axis, st = start, en = start + len;
  OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, a, "axes", &ax, 1));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, a, "starts", &st, 1));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_SLICE, a, "ends", &en, 1));
  return ox_emit1(cx, BERTH_OP_SLICE, 1, &x, a, out);
}

static berth_status_t emit_transpose(ox_ctx_t *cx, int32_t x, const int64_t *perm, int32_t n, int32_t *out) {
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_TRANSPOSE, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_TRANSPOSE, a, "perm", perm, n));
  return ox_emit1(cx, BERTH_OP_TRANSPOSE, 1, &x, a, out);
}

/* ---- Split ------------------------------------------------------------------------------ */

/* The split lengths: the 'split' attribute (opsets < 13; opset 1 also takes an input), the
 * split input (13+), num_outputs (18+: ceil-sized chunks, the last smaller), or equal parts. */
static berth_status_t split_lengths(ox_ctx_t *cx, int64_t dim, int32_t n_out, int64_t *len, int32_t *n) {
  *n = -1;
  if (cx->opset < 13) OX_TRY(ox_attr_int_list(cx, "split", len, OX_MAXV, n));
  if (*n < 0 && (cx->opset >= 13 || cx->opset < 2)) {
    int32_t s;
    OX_TRY(ox_in(cx, 1, &s));
    if (s >= 0) OX_TRY(ox_const_ints(cx, s, "the split operand", len, OX_MAXV, n));
  }
  if (*n >= 0) {
    if (*n != n_out)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "split has %d values for %d outputs", (int)*n, (int)n_out);
    int64_t sum = 0;
    for (int32_t k = 0; k < *n; k++) {
      if (len[k] < 0 || len[k] > BERTH_MAX_DIM)
        return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "split[%d] is %lld", (int)k, (long long)len[k]);
      sum += len[k];
    }
    if (sum != dim)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "split sums to %lld, the axis has %lld", (long long)sum, (long long)dim);
    return BERTH_OK;
  }
  int64_t parts = n_out;
  if (cx->opset >= 18 && ox_attr(cx, "num_outputs")) {
    parts = ox_attr_int(cx, "num_outputs", 0);
    if (parts != n_out)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "num_outputs is %lld but the node has %d outputs", (long long)parts,
                     (int)n_out);
    int64_t chunk = (dim + parts - 1) / parts;
    for (int32_t k = 0; k < n_out; k++) {
      int64_t lo = chunk * k < dim ? chunk * k : dim, hi = chunk * (k + 1) < dim ? chunk * (k + 1) : dim;
      len[k] = hi - lo;
    }
    if (parts > 1 && chunk * (parts - 1) >= dim)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%lld outputs of a dim of %lld leave an output empty", (long long)parts,
                     (long long)dim);
  } else {
    if (dim % parts != 0)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the axis of size %lld does not split into %lld equal parts",
                     (long long)dim, (long long)parts);
    for (int32_t k = 0; k < n_out; k++) len[k] = dim / parts;
  }
  *n = n_out;
  return BERTH_OK;
}

static berth_status_t op_split(ox_ctx_t *cx) {
  int32_t x, axis, n_out = ox_n_out(cx), n;
  OX_TRY(ox_in_req(cx, 0, &x));
  if (n_out < 1 || n_out > OX_MAXV)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%d outputs; berth splits into 1 to %d", (int)n_out, OX_MAXV);
  if (ox_rank_of(cx, x) < 1) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "the input is a scalar");
  OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", 0), ox_rank_of(cx, x), "axis", &axis));
  int64_t len[OX_MAXV], start = 0;
  OX_TRY(split_lengths(cx, cx->vals[x].type.dims[axis], n_out, len, &n));
  for (int32_t k = 0; k < n_out; k++) {
    int32_t y;
    OX_TRY(slice_axis(cx, x, axis, start, len[k], &y));
    start += len[k];
    OX_TRY(ox_out(cx, k, y));
  }
  return BERTH_OK;
}

/* ---- Tile ------------------------------------------------------------------------------- */

/* Per tiled axis k: reshape to [pre, 1, d_k, post], expand to [pre, r, d_k, post], reshape
 * back with d_k * r: one copy per tiled axis, any rank. */
static berth_status_t op_tile(ox_ctx_t *cx) {
  if (cx->opset < 6) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "Tile before opset 6 (tiles and axis inputs)");
  int32_t x, r;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &r));
  int64_t rep[OX_MAXV];
  int32_t n;
  OX_TRY(ox_const_ints(cx, r, "the repeats operand", rep, OX_MAXV, &n));
  berth_type_t t = cx->vals[x].type;
  if (n != t.rank)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "repeats has %d values for an input of rank %d", (int)n, (int)t.rank);
  for (int32_t k = 0; k < n; k++)
    if (rep[k] < 0 || rep[k] > BERTH_MAX_DIM || (t.dims[k] > 0 && rep[k] > BERTH_MAX_DIM / t.dims[k]))
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "repeats[%d] is %lld", (int)k, (long long)rep[k]);
  int32_t y = x;
  for (int32_t k = 0; k < n; k++) {
    if (rep[k] == 1) continue;
    int64_t pre = 1, post = 1;
    for (int32_t j = 0; j < k; j++) pre *= t.dims[j];
    for (int32_t j = k + 1; j < t.rank; j++) post *= t.dims[j];
    if (berth_type_numel(&t) == 0 || rep[k] == 0) {
      t.dims[k] *= rep[k];
      OX_TRY(ox_emit_full(cx, &t, 0, 0, &y));
      cx->vals[y].elem = cx->vals[x].elem;
      continue;
    }
    int64_t d4[4] = {pre, 1, t.dims[k], post}, e4[4] = {pre, rep[k], t.dims[k], post};
    int32_t v, w;
    OX_TRY(ox_emit_reshape(cx, y, d4, 4, &v));
    berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
    ox_attrs_default(BERTH_OP_EXPAND, a);
    OX_TRY(ox_attr_ints(cx, BERTH_OP_EXPAND, a, "shape", e4, 4));
    OX_TRY(ox_emit1(cx, BERTH_OP_EXPAND, 1, &v, a, &w));
    t.dims[k] *= rep[k];
    OX_TRY(ox_emit_reshape(cx, w, t.dims, t.rank, &y));
  }
  if (y == x) OX_TRY(ox_alias_val(cx, x, &y));
  return ox_out(cx, 0, y);
}

/* ---- DepthToSpace, SpaceToDepth ----------------------------------------------------------- */

static berth_status_t depth_space(ox_ctx_t *cx, bool to_space) {
  int32_t x, v, w, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  const berth_type_t *t = &cx->vals[x].type;
  if (t->rank != 4) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "input rank %d, expected 4 ([N, C, H, W])", (int)t->rank);
  int64_t b = ox_attr_int(cx, "blocksize", 0);
  if (b < 1 || b > 65536) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "blocksize %lld, expected 1..65536", (long long)b);
  int64_t N = t->dims[0], C = t->dims[1], H = t->dims[2], W = t->dims[3];
  int64_t d6[6], perm[6], o4[4];
  if (to_space) {
    if (C % (b * b) != 0)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%lld channels are not a multiple of blocksize^2 = %lld", (long long)C,
                     (long long)(b * b));
    char buf[16];
    const char *mode = cx->opset >= 11 ? ox_attr_string(cx, "mode", "DCR", buf, sizeof buf) : "DCR";
    int64_t c = C / (b * b);
    if (strcmp(mode, "DCR") == 0) {
      int64_t d[6] = {N, b, b, c, H, W}, p[6] = {0, 3, 4, 1, 5, 2};
      memcpy(d6, d, sizeof d6);
      memcpy(perm, p, sizeof perm);
    } else if (strcmp(mode, "CRD") == 0) {
      int64_t d[6] = {N, c, b, b, H, W}, p[6] = {0, 1, 4, 2, 5, 3};
      memcpy(d6, d, sizeof d6);
      memcpy(perm, p, sizeof perm);
    } else {
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "mode '%s', expected DCR or CRD", mode);
    }
    int64_t o[4] = {N, c, H * b, W * b};
    memcpy(o4, o, sizeof o4);
  } else {
    if (H % b != 0 || W % b != 0)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "height %lld and width %lld must be multiples of blocksize %lld",
                     (long long)H, (long long)W, (long long)b);
    int64_t d[6] = {N, C, H / b, b, W / b, b}, p[6] = {0, 3, 5, 1, 2, 4}, o[4] = {N, C * b * b, H / b, W / b};
    memcpy(d6, d, sizeof d6);
    memcpy(perm, p, sizeof perm);
    memcpy(o4, o, sizeof o4);
  }
  OX_TRY(ox_emit_reshape(cx, x, d6, 6, &v));
  OX_TRY(emit_transpose(cx, v, perm, 6, &w));
  OX_TRY(ox_emit_reshape(cx, w, o4, 4, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_depth_to_space(ox_ctx_t *cx) { return depth_space(cx, true); }
static berth_status_t op_space_to_depth(ox_ctx_t *cx) { return depth_space(cx, false); }

/* ---- CenterCropPad ----------------------------------------------------------------------- */

/* Per axis: a crop keeps the centre [floor(d/2), ...), a pad puts floor(d/2) zeros before. */
static berth_status_t op_center_crop_pad(ox_ctx_t *cx) {
  int32_t x, s, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &s));
  int32_t r = ox_rank_of(cx, x), ns, na;
  int64_t shape[OX_MAXV], axes[OX_MAXV];
  OX_TRY(ox_const_ints(cx, s, "the shape operand", shape, OX_MAXV, &ns));
  OX_TRY(ox_attr_int_list(cx, "axes", axes, OX_MAXV, &na));
  if (na < 0)
    for (na = 0; na < r; na++) axes[na] = na;
  if (ns != na) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "shape has %d values for %d axes", (int)ns, (int)na);
  int64_t pads[2 * BERTH_MAX_RANK] = {0};
  bool any_pad = false, seen[BERTH_MAX_RANK] = {false};
  y = x;
  for (int32_t k = 0; k < na; k++) {
    int32_t ax;
    OX_TRY(ox_norm_axis(cx, axes[k], r, "axes entry", &ax));
    if (seen[ax]) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "axis %d is listed twice", (int)ax);
    seen[ax] = true;
    int64_t dim = cx->vals[x].type.dims[ax], want = shape[k];
    if (want < 0 || want > BERTH_MAX_DIM)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "shape[%d] is %lld", (int)k, (long long)want);
    if (want < dim) {
      OX_TRY(slice_axis(cx, y, ax, (dim - want) / 2, want, &y));
    } else if (want > dim) {
      pads[ax] = (want - dim) / 2;
      pads[r + ax] = want - dim - pads[ax];
      any_pad = true;
    }
  }
  if (any_pad) {
    berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
    ox_attrs_default(BERTH_OP_PAD, a);
    OX_TRY(ox_attr_ints(cx, BERTH_OP_PAD, a, "pads", pads, 2 * r));
    OX_TRY(ox_emit1(cx, BERTH_OP_PAD, 1, &y, a, &y));
  }
  if (y == x) OX_TRY(ox_alias_val(cx, x, &y));
  return ox_out(cx, 0, y);
}

/* ---- GatherElements ---------------------------------------------------------------------- */

/* assert(ok) {message}: the call fails with the message when ok is false at run time (a
 * constant true needs no check; a constant false fails the import). */
static berth_status_t emit_assert(ox_ctx_t *cx, int32_t ok, const char *what) {
  const Onnx__NodeProto *n = cx->node;
  const char *name = n->name && n->name[0] ? n->name : n->n_output > 0 && n->output[0] ? n->output[0] : "";
  if (ox_is_const(cx, ok)) {
    if (*(const uint8_t *)cx->vals[ok].data) return BERTH_OK;
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s", what);
  }
  int32_t ok_id;
  OX_TRY(ox_ir(cx, ok, &ok_id));
  char msg[600];
  berth_format(msg, sizeof msg, "%s node '%s': %s", n->op_type ? n->op_type : "", name, what);
  int32_t text = berth_ir_string_add(cx->p, msg, strlen(msg));
  int32_t node = text < -1 ? -1 : berth_ir_node_add(cx->m, cx->graph, BERTH_OP_ASSERT, 1, &ok_id);
  if (node < 0) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  cx->m->nodes[node].attrs[0].i = text;
  return BERTH_OK;
}

static berth_status_t op_gather_elements(ox_ctx_t *cx) {
  int32_t in[2], out[2];
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  int32_t axis;
  OX_TRY(ox_norm_axis(cx, ox_attr_int(cx, "axis", 0), ox_rank_of(cx, in[0]), "axis", &axis));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_GATHER_ELEMENTS, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_GATHER_ELEMENTS, a, "axis", axis));
  OX_TRY(ox_emit(cx, BERTH_OP_GATHER_ELEMENTS, 2, in, a, 2, out));
  cx->vals[out[0]].elem = cx->vals[in[0]].elem;
  OX_TRY(emit_assert(cx, out[1], "an index is out of range"));
  return ox_out(cx, 0, out[0]);
}

const ox_op_row_t ox_ops_spatial[] = {
    {"CenterCropPad", op_center_crop_pad, BERTH_OP_COUNT},
    {"DepthToSpace", op_depth_to_space, BERTH_OP_COUNT},
    {"GatherElements", op_gather_elements, BERTH_OP_COUNT},
    {"SpaceToDepth", op_space_to_depth, BERTH_OP_COUNT},
    {"Split", op_split, BERTH_OP_COUNT},
    {"Tile", op_tile, BERTH_OP_COUNT},
    {NULL, NULL, BERTH_OP_COUNT},
};
