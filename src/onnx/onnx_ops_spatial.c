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

/* All tiled axes in one copy: reshape with a 1 before each tiled axis, expand those 1s to the
 * repeats, reshape back (the 1 and d_k become d_k * r). Possible while the rank with the 1s
 * added fits BERTH_MAX_RANK and nothing is empty; false otherwise. */
static berth_status_t tile_one_expand(ox_ctx_t *cx, int32_t x, const int64_t *rep, bool *done, int32_t *out) {
  const berth_type_t t = cx->vals[x].type;
  int64_t d[BERTH_MAX_RANK], e[BERTH_MAX_RANK], o[BERTH_MAX_RANK];
  int32_t n = 0, tiled = 0;
  *done = false;
  if (berth_type_numel(&t) == 0) return BERTH_OK;
  for (int32_t k = 0; k < t.rank; k++) {
    if (rep[k] == 0) return BERTH_OK;
    if (rep[k] == 1) continue;
    tiled++;
  }
  if (tiled < 2 || t.rank + tiled > BERTH_MAX_RANK) return BERTH_OK;
  for (int32_t k = 0; k < t.rank; k++) {
    if (rep[k] != 1) {
      d[n] = 1;
      e[n++] = rep[k];
    }
    d[n] = e[n] = t.dims[k];
    n++;
    o[k] = t.dims[k] * rep[k];
  }
  int32_t v, w;
  OX_TRY(ox_emit_reshape(cx, x, d, n, &v));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_EXPAND, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_EXPAND, a, "shape", e, n));
  OX_TRY(ox_emit1(cx, BERTH_OP_EXPAND, 1, &v, a, &w));
  OX_TRY(ox_emit_reshape(cx, w, o, t.rank, out));
  *done = true;
  return BERTH_OK;
}

/* Two or more tiled axes: one expand (tile_one_expand). Otherwise per tiled axis k: reshape to
 * [pre, 1, d_k, post], expand to [pre, r, d_k, post], reshape back with d_k * r. */
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
  bool done;
  OX_TRY(tile_one_expand(cx, x, rep, &done, &y));
  for (int32_t k = 0; k < n && !done; k++) {
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
  OX_TRY(ox_assert_ok(cx, out[1], "an index is out of range"));
  return ox_out(cx, 0, out[0]);
}

/* ---- Resize, Upsample ------------------------------------------------------------------- */

/* A constant float operand as doubles (n = its element count). */
static berth_status_t const_floats(ox_ctx_t *cx, int32_t v, const char *what, double *out, int32_t cap, int32_t *n) {
  if (!ox_is_const(cx, v)) return ox_need_const(cx, v, what);
  const berth_type_t *t = &cx->vals[v].type;
  int64_t cnt = berth_type_numel(t);
  if (cnt > cap) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%s has %lld values, at most %d", what, (long long)cnt, (int)cap);
  for (int64_t i = 0; i < cnt; i++) {
    if (t->dtype == BERTH_DTYPE_F32) out[i] = ((const float *)cx->vals[v].data)[i];
    else if (t->dtype == BERTH_DTYPE_F64) out[i] = ((const double *)cx->vals[v].data)[i];
    else return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s must be a float tensor", what);
  }
  *n = (int32_t)cnt;
  return BERTH_OK;
}

enum { RZ_NEAREST, RZ_LINEAR, RZ_CUBIC };
enum { CT_HALF_PIXEL, CT_HALF_PIXEL_SYM, CT_PYTORCH, CT_ALIGN, CT_ASYM, CT_TF_CROP, CT_TF_HALF_NN };
enum { NR_PREFER_FLOOR, NR_PREFER_CEIL, NR_FLOOR, NR_CEIL, NR_SIMPLE };

typedef struct rz_opts {
  int mode, ctm, nearest;
  double cubic_a, extrap;
  bool exclude_outside, antialias;
} rz_opts_t;

#define RZ_MAX_TAPS 4096

/* The ONNX reference's coefficients for one output position: n taps starting at index
 * `*lo` (ratio in (0, 1], the distance past the tap before x). */
static int32_t rz_coeffs(const rz_opts_t *o, double ratio, double scale, double *c, bool downscale) {
  double A = o->cubic_a;
  if (o->mode == RZ_NEAREST) {
    bool up;
    if (ratio == 1) up = true;
    else if (o->nearest == NR_PREFER_FLOOR) up = ratio > 0.5;
    else if (o->nearest == NR_PREFER_CEIL) up = ratio >= 0.5;
    else if (o->nearest == NR_FLOOR) up = false;
    else if (o->nearest == NR_CEIL) up = true;
    else up = downscale; /* opsets < 11: floor when upsampling, ceil when downsampling */
    c[0] = up ? 0 : 1;
    c[1] = up ? 1 : 0;
    return 2;
  }
  if (!o->antialias) {
    if (o->mode == RZ_LINEAR) {
      c[0] = 1 - ratio;
      c[1] = ratio;
      return 2;
    }
    double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
    c[0] = ((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A;
    c[1] = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1;
    c[2] = ((A + 2) * q - (A + 3)) * q * q + 1;
    c[3] = ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A;
    return 4;
  }
  double s = scale < 1 ? scale : 1, sum = 0;
  int32_t n;
  if (o->mode == RZ_LINEAR) {
    double st = floor(-1 / s) + 1;
    if (!(2 - 2 * st <= RZ_MAX_TAPS)) return RZ_MAX_TAPS + 1;
    int64_t start = (int64_t)st;
    n = (int32_t)(2 - 2 * start);
    for (int32_t i = 0; i < n; i++) {
      double v = 1 - fabs(((double)(start + i) - ratio) * s);
      c[i] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
  } else {
    double st = floor(-2 / s) + 1;
    if (!(2 - 2 * st <= RZ_MAX_TAPS)) return RZ_MAX_TAPS + 1;
    int64_t start = (int64_t)st;
    n = (int32_t)(2 - 2 * start);
    for (int32_t i = 0; i < n; i++) {
      double x = fabs(s * ((double)(start + i) - ratio)), x2 = x * x, x3 = x2 * x;
      c[i] = x <= 1 ? (A + 2) * x3 - (A + 3) * x2 + 1 : x < 2 ? A * x3 - 5 * A * x2 + 8 * A * x - 4 * A : 0;
    }
  }
  for (int32_t i = 0; i < n; i++) sum += c[i];
  for (int32_t i = 0; i < n; i++) c[i] /= sum;
  return n;
}

/* x_original for output position x (the reference's coordinate transformations; wf is the
 * output length as a float, scale * in). *outside: tf_crop_and_resize outside the box. */
static double rz_coord(const rz_opts_t *o, int64_t x, int64_t in, int64_t out, double scale, double r0, double r1,
                       bool *outside) {
  double wf = scale * (double)in, xo;
  *outside = false;
  switch (o->ctm) {
    case CT_ALIGN: return wf == 1 ? 0 : (double)x * (double)(in - 1) / (wf - 1);
    case CT_ASYM: return (double)x / scale;
    case CT_TF_CROP:
      xo = wf == 1 ? (r1 - r0) * (double)(in - 1) / 2 : (double)x * (r1 - r0) * (double)(in - 1) / (wf - 1);
      xo += r0 * (double)(in - 1);
      *outside = xo < 0 || xo > (double)(in - 1);
      return xo;
    case CT_PYTORCH: return wf == 1 ? -0.5 : ((double)x + 0.5) / scale - 0.5;
    case CT_HALF_PIXEL_SYM: {
      double adj = (double)out / wf, offset = (double)in / 2 * (1 - adj);
      return offset + ((double)x + 0.5) / scale - 0.5;
    }
    case CT_TF_HALF_NN: return ((double)x + 0.5) / scale;
    default: return ((double)x + 0.5) / scale - 0.5;
  }
}

/* The taps of one dim: out positions, k taps each (zero weights dropped), appended to idx/w. */
static berth_status_t rz_axis(ox_ctx_t *cx, const rz_opts_t *o, int64_t in, int64_t out, double scale, double r0,
                              double r1, int64_t **idx, double **w, int64_t *len, int64_t *k_out) {
  double c[RZ_MAX_TAPS];
  int64_t k = 1;
  /* two passes: count the taps with nonzero weight, then write them */
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      if (out > 0 && k > (((int64_t)1 << 28) - *len) / out)
        return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "the interpolation tables are too large");
      int64_t *ni = realloc(*idx, sizeof(int64_t) * (size_t)(*len + out * k + 1));
      if (ni) *idx = ni;
      double *nw = realloc(*w, sizeof(double) * (size_t)(*len + out * k + 1));
      if (nw) *w = nw;
      if (!ni || !nw) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
    }
    for (int64_t x = 0; x < out; x++) {
      bool outside;
      double xo = rz_coord(o, x, in, out, scale, r0, r1, &outside);
      int64_t *pi = pass ? *idx + *len + x * k : NULL;
      double *pw = pass ? *w + *len + x * k : NULL;
      if (outside || !isfinite(xo) || fabs(xo) > 1e15) {
        if (!outside)
          return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "scale %g maps output %lld outside the input", scale, (long long)x);
        if (pass)
          for (int64_t t = 0; t < k; t++) pi[t] = -1, pw[t] = 0;
        continue;
      }
      double fl = floor(xo), ratio = xo == fl ? 1 : xo - fl;
      int64_t base = (int64_t)fl - (xo == fl ? 1 : 0);
      int32_t n = rz_coeffs(o, ratio, scale, c, scale < 1);
      if (n < 2 || n > RZ_MAX_TAPS)
        return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "scale %g needs %d interpolation taps", scale, (int)n);
      int64_t pad = n / 2, lo = base - n / 2 + 1;
      if (lo < -pad) lo = -pad;
      if (lo + n > in + pad) lo = in + pad - n;
      if (o->exclude_outside) {
        double sum = 0;
        for (int32_t t = 0; t < n; t++) {
          if (lo + t < 0 || lo + t >= in) c[t] = 0;
          sum += c[t];
        }
        for (int32_t t = 0; t < n; t++) c[t] = sum != 0 ? c[t] / sum : 0;
      }
      int64_t m = 0;
      for (int32_t t = 0; t < n; t++) {
        if (c[t] == 0) continue;
        if (pass) {
          int64_t i = lo + t;
          pi[m] = i < 0 ? 0 : i >= in ? in - 1 : i;
          pw[m] = c[t];
        }
        m++;
      }
      if (!pass && m > k) k = m;
      if (pass && m == 0) pi[0] = 0, pw[0] = 0, m = 1; /* every weight 0 (exclude_outside) */
      if (pass)
        for (; m < k; m++) pi[m] = pi[0], pw[m] = 0; /* idle taps */
    }
  }
  *len += out * k;
  *k_out = k;
  return BERTH_OK;
}

static int rz_lookup(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(s, names[i]) == 0) return i;
  return -1;
}

static berth_status_t rz_read_opts(ox_ctx_t *cx, bool upsample, rz_opts_t *o) {
  char buf[64];
  memset(o, 0, sizeof *o);
  const char *mode = ox_attr_string(cx, "mode", "nearest", buf, sizeof buf);
  static const char *const modes[] = {"nearest", "linear", "cubic"};
  o->mode = rz_lookup(mode, modes, 3);
  if (upsample && cx->opset < 7 && strcmp(mode, "bilinear") == 0) o->mode = RZ_LINEAR;
  if (o->mode < 0 || (cx->opset < 11 && o->mode == RZ_CUBIC))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "mode '%s'", mode);
  o->cubic_a = -0.75;
  if (upsample || cx->opset < 11) {
    o->ctm = CT_ASYM;
    o->nearest = NR_SIMPLE;
    return BERTH_OK;
  }
  static const char *const ctms[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                     "asymmetric", "tf_crop_and_resize", "tf_half_pixel_for_nn"};
  const char *ctm = ox_attr_string(cx, "coordinate_transformation_mode", "half_pixel", buf, sizeof buf);
  o->ctm = rz_lookup(ctm, ctms, 7);
  if (o->ctm < 0 || (o->ctm == CT_HALF_PIXEL_SYM && cx->opset < 19) || (o->ctm == CT_TF_HALF_NN && cx->opset >= 13))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "coordinate_transformation_mode '%s' at opset %lld", ctm,
                   (long long)cx->opset);
  static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  const char *nm = ox_attr_string(cx, "nearest_mode", "round_prefer_floor", buf, sizeof buf);
  o->nearest = rz_lookup(nm, nms, 4);
  if (o->nearest < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "nearest_mode '%s'", nm);
  o->cubic_a = ox_attr_float(cx, "cubic_coeff_a", -0.75);
  o->extrap = ox_attr_float(cx, "extrapolation_value", 0.0);
  int64_t ex = ox_attr_int(cx, "exclude_outside", 0), aa = cx->opset >= 18 ? ox_attr_int(cx, "antialias", 0) : 0;
  if ((ex != 0 && ex != 1) || (aa != 0 && aa != 1))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "exclude_outside and antialias must be 0 or 1");
  o->exclude_outside = ex;
  o->antialias = aa;
  if (o->antialias && o->mode == RZ_NEAREST)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "antialias is not defined for mode nearest");
  return BERTH_OK;
}

/* Scales, sizes and roi per dim of x (opset-dependent operands and attributes; axes and
 * keep_aspect_ratio_policy from opset 18). */
static berth_status_t rz_geometry(ox_ctx_t *cx, bool upsample, const berth_type_t *xt, double *scale, int64_t *out,
                                  double *roi) {
  int32_t r = xt->rank, ns = -1, nz = -1, nr = -1, na = -1, sv = -1, zv = -1, rv = -1;
  double sc[OX_MAXV], rr[2 * OX_MAXV];
  int64_t sz[OX_MAXV], axes[OX_MAXV];
  if (upsample && cx->opset < 9) {
    float fs[OX_MAXV];
    const Onnx__AttributeProto *at = ox_attr(cx, "scales");
    if (!at || at->n_floats > OX_MAXV) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute 'scales' is missing");
    ns = (int32_t)at->n_floats;
    for (int32_t i = 0; i < ns; i++) fs[i] = at->floats[i], sc[i] = fs[i];
  } else if (cx->opset < 11) {
    OX_TRY(ox_in_req(cx, 1, &sv));
    OX_TRY(const_floats(cx, sv, "the scales operand", sc, OX_MAXV, &ns));
  } else {
    OX_TRY(ox_in(cx, 1, &rv));
    OX_TRY(ox_in(cx, 2, &sv));
    OX_TRY(ox_in(cx, 3, &zv));
    if (rv >= 0) OX_TRY(const_floats(cx, rv, "the roi operand", rr, 2 * OX_MAXV, &nr));
    if (sv >= 0) OX_TRY(const_floats(cx, sv, "the scales operand", sc, OX_MAXV, &ns));
    if (zv >= 0) OX_TRY(ox_const_ints(cx, zv, "the sizes operand", sz, OX_MAXV, &nz));
    if (ns == 0) ns = -1;
    if (nz == 0) nz = -1;
    if (nr == 0) nr = -1;
    if ((ns < 0) == (nz < 0)) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "exactly one of scales and sizes must be given");
  }
  if (cx->opset >= 18) OX_TRY(ox_attr_int_list(cx, "axes", axes, OX_MAXV, &na));
  if (na < 0)
    for (na = 0; na < r; na++) axes[na] = na;
  int32_t ax[OX_MAXV];
  bool seen[BERTH_MAX_RANK] = {false};
  for (int32_t i = 0; i < na; i++) {
    OX_TRY(ox_norm_axis(cx, axes[i], r, "axes entry", &ax[i]));
    if (seen[ax[i]]) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "axis %d is listed twice", (int)ax[i]);
    seen[ax[i]] = true;
  }
  int32_t given = ns >= 0 ? ns : nz;
  if (given != na) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s has %d values, expected %d", ns >= 0 ? "scales" : "sizes",
                                  (int)given, (int)na);
  if (nr >= 0 && nr != 2 * na) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "roi has %d values, expected %d", (int)nr, (int)(2 * na));
  for (int32_t a = 0; a < r; a++) scale[a] = 1, out[a] = xt->dims[a], roi[a] = 0, roi[r + a] = 1;
  for (int32_t i = 0; i < na; i++) {
    int32_t a = ax[i];
    if (nr >= 0) roi[a] = rr[i], roi[r + a] = rr[na + i];
    if (ns >= 0) {
      double o = floor(sc[i] * (double)xt->dims[a]);
      if (!(sc[i] > 0) || !(o <= (double)BERTH_MAX_DIM))
        return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "scales[%d] is %g", (int)i, sc[i]);
      scale[a] = sc[i];
      out[a] = (int64_t)o;
    } else {
      if (sz[i] < 0 || sz[i] > BERTH_MAX_DIM || (sz[i] > 0 && xt->dims[a] == 0))
        return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "sizes[%d] is %lld", (int)i, (long long)sz[i]);
      out[a] = sz[i];
      scale[a] = xt->dims[a] ? (double)sz[i] / (double)xt->dims[a] : 1;
    }
  }
  if (nz >= 0 && cx->opset >= 18) {
    char buf[32];
    const char *kp = ox_attr_string(cx, "keep_aspect_ratio_policy", "stretch", buf, sizeof buf);
    bool larger = strcmp(kp, "not_smaller") == 0;
    if (!larger && strcmp(kp, "not_larger") != 0 && strcmp(kp, "stretch") != 0)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "keep_aspect_ratio_policy '%s'", kp);
    if (strcmp(kp, "stretch") != 0) {
      double s = scale[ax[0]];
      for (int32_t i = 1; i < na; i++) s = larger ? fmax(s, scale[ax[i]]) : fmin(s, scale[ax[i]]);
      for (int32_t i = 0; i < na; i++) {
        scale[ax[i]] = s;
        out[ax[i]] = (int64_t)(s * (double)xt->dims[ax[i]] + 0.5);
      }
    }
  }
  return BERTH_OK;
}

static berth_status_t resize(ox_ctx_t *cx, bool upsample) {
  int32_t x, y;
  OX_TRY(ox_in_req(cx, 0, &x));
  const berth_type_t xt = cx->vals[x].type;
  rz_opts_t o;
  OX_TRY(rz_read_opts(cx, upsample, &o));
  double scale[BERTH_MAX_RANK], roi[2 * BERTH_MAX_RANK];
  int64_t out[BERTH_MAX_RANK], taps[BERTH_MAX_RANK], len = 0;
  OX_TRY(rz_geometry(cx, upsample, &xt, scale, out, roi));
  if (o.mode != RZ_NEAREST && !berth_dtype_is_float(xt.dtype))
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "berth resizes integer tensors with mode nearest only");
  int64_t *idx = NULL;
  double *w = NULL;
  berth_status_t st = BERTH_OK;
  for (int32_t a = 0; a < xt.rank && !st; a++)
    st = rz_axis(cx, &o, xt.dims[a], out[a], scale[a], roi[a], roi[xt.rank + a], &idx, &w, &len, &taps[a]);
  int32_t in[3] = {x, -1, -1};
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.rank = 1;
  t.dims[0] = len;
  if (!st) {
    t.dtype = BERTH_DTYPE_I64;
    st = ox_const_new(cx, &t, idx ? (void *)idx : malloc(8), &in[1]);
    idx = NULL;
  }
  if (!st) {
    t.dtype = BERTH_DTYPE_F64;
    st = ox_const_new(cx, &t, w ? (void *)w : malloc(8), &in[2]);
    w = NULL;
  }
  free(idx);
  free(w);
  OX_TRY(st);
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_RESAMPLE, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_RESAMPLE, a, "shape", out, xt.rank));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_RESAMPLE, a, "taps", taps, xt.rank));
  OX_TRY(ox_attr_f(cx, BERTH_OP_RESAMPLE, a, "extrapolation", o.extrap));
  OX_TRY(ox_emit1(cx, BERTH_OP_RESAMPLE, 3, in, a, &y));
  cx->vals[y].elem = cx->vals[x].elem;
  OX_TRY(ox_narrow_round(cx, y, &y));
  return ox_out(cx, 0, y);
}

static berth_status_t op_resize(ox_ctx_t *cx) { return resize(cx, false); }
static berth_status_t op_upsample(ox_ctx_t *cx) { return resize(cx, true); }

/* ---- ConvTranspose ------------------------------------------------------------------------ */

static int64_t floor_div2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

/* Integer list attribute with a default of `dflt` repeated n times; must have n values. */
static berth_status_t ints_or(ox_ctx_t *cx, const char *name, int64_t dflt, int32_t n, int64_t *v) {
  int32_t got;
  OX_TRY(ox_attr_int_list(cx, name, v, OX_MAXV, &got));
  if (got < 0)
    for (got = 0; got < n; got++) v[got] = dflt;
  if (got != n) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute '%s' has %d values, expected %d", name, (int)got, (int)n);
  for (int32_t k = 0; k < n; k++)
    if (v[k] < -BERTH_MAX_DIM || v[k] > BERTH_MAX_DIM)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "attribute '%s' [%d] is %lld", name, (int)k, (long long)v[k]);
  return BERTH_OK;
}

/* Pads (begin, end) with output_padding and output_shape folded into them, as the spec
 * computes them: output_shape or auto_pad SAME_* set the total padding, split in half (the
 * odd one at the end for SAME_UPPER, at the beginning otherwise). */
static berth_status_t convt_pads(ox_ctx_t *cx, const berth_type_t *xt, const berth_type_t *wt, int64_t *strides,
                                 int64_t *dil, int64_t *pads) {
  int32_t sp = xt->rank - 2, nos;
  int64_t opad[OX_MAXV], oshape[OX_MAXV], ks[OX_MAXV];
  OX_TRY(ints_or(cx, "strides", 1, sp, strides));
  OX_TRY(ints_or(cx, "dilations", 1, sp, dil));
  OX_TRY(ints_or(cx, "pads", 0, 2 * sp, pads));
  OX_TRY(ints_or(cx, "output_padding", 0, sp, opad));
  OX_TRY(ints_or(cx, "kernel_shape", 0, sp, ks));
  OX_TRY(ox_attr_int_list(cx, "output_shape", oshape, OX_MAXV, &nos));
  for (int32_t k = 0; k < sp; k++) {
    if (strides[k] < 1 || dil[k] < 1 || opad[k] < 0)
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "strides, dilations must be >= 1 and output_padding >= 0");
    if (ox_attr(cx, "kernel_shape") && ks[k] != wt->dims[2 + k])
      return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "kernel_shape[%d] is %lld, the weights have %lld", (int)k,
                     (long long)ks[k], (long long)wt->dims[2 + k]);
  }
  if (nos >= 0 && nos != sp && nos != sp + 2)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "output_shape has %d values, expected %d", (int)nos, (int)sp);
  char buf[32];
  const char *ap = ox_attr_string(cx, "auto_pad", "NOTSET", buf, sizeof buf);
  bool upper = strcmp(ap, "SAME_UPPER") == 0, same = upper || strcmp(ap, "SAME_LOWER") == 0;
  if (!same && strcmp(ap, "VALID") != 0 && strcmp(ap, "NOTSET") != 0)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "auto_pad '%s'", ap);
  if (strcmp(ap, "VALID") == 0)
    for (int32_t k = 0; k < 2 * sp; k++) pads[k] = 0;
  for (int32_t k = 0; k < sp; k++) {
    int64_t in = xt->dims[2 + k], natural = strides[k] * (in > 0 ? in - 1 : 0) + opad[k] + (wt->dims[2 + k] - 1) * dil[k] + 1;
    if (nos >= 0 || same) {
      int64_t want = nos >= 0 ? oshape[nos - sp + k] : in * strides[k];
      if (want < 1 || want > BERTH_MAX_DIM)
        return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "output size %lld in spatial dim %d", (long long)want, (int)k);
      int64_t total = natural - want;
      pads[k] = upper ? floor_div2(total) : total - floor_div2(total);
      pads[sp + k] = total - pads[k];
    }
    pads[sp + k] -= opad[k]; /* the kernel's output: natural size less both pads */
  }
  return BERTH_OK;
}

static berth_status_t op_conv_transpose(ox_ctx_t *cx) {
  int32_t in[3], n = 2, y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  OX_TRY(ox_in(cx, 2, &in[2]));
  if (in[2] >= 0) n = 3;
  const berth_type_t *xt = &cx->vals[in[0]].type, *wt = &cx->vals[in[1]].type;
  int32_t sp = xt->rank - 2;
  if (sp < 1 || sp > 3 || wt->rank != xt->rank)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "input rank %d and weight rank %d: berth's conv_transpose is 1-D to 3-D",
                   (int)xt->rank, (int)wt->rank);
  int64_t strides[OX_MAXV], dil[OX_MAXV], pads[OX_MAXV];
  OX_TRY(convt_pads(cx, xt, wt, strides, dil, pads));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_CONV_TRANSPOSE, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_CONV_TRANSPOSE, a, "strides", strides, sp));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_CONV_TRANSPOSE, a, "pads", pads, 2 * sp));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_CONV_TRANSPOSE, a, "dilations", dil, sp));
  OX_TRY(ox_attr_i(cx, BERTH_OP_CONV_TRANSPOSE, a, "group", ox_attr_int(cx, "group", 1)));
  OX_TRY(ox_emit1(cx, BERTH_OP_CONV_TRANSPOSE, n, in, a, &y));
  cx->vals[y].elem = cx->vals[in[0]].elem;
  OX_TRY(ox_narrow_round(cx, y, &y));
  return ox_out(cx, 0, y);
}

/* ---- GridSample --------------------------------------------------------------------------- */

static berth_status_t op_grid_sample(ox_ctx_t *cx) {
  int32_t in[2], y;
  OX_TRY(ox_in_req(cx, 0, &in[0]));
  OX_TRY(ox_in_req(cx, 1, &in[1]));
  char buf[32];
  const char *mode = ox_attr_string(cx, "mode", cx->opset >= 20 ? "linear" : "bilinear", buf, sizeof buf);
  int64_t m = -1;
  if (cx->opset >= 20) m = strcmp(mode, "linear") == 0 ? 0 : strcmp(mode, "nearest") == 0 ? 1 : strcmp(mode, "cubic") == 0 ? 2 : -1;
  else m = strcmp(mode, "bilinear") == 0 ? 0 : strcmp(mode, "nearest") == 0 ? 1 : strcmp(mode, "bicubic") == 0 ? 2 : -1;
  if (m < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "mode '%s' at opset %lld", mode, (long long)cx->opset);
  const char *pm = ox_attr_string(cx, "padding_mode", "zeros", buf, sizeof buf);
  int64_t p = strcmp(pm, "zeros") == 0 ? 0 : strcmp(pm, "border") == 0 ? 1 : strcmp(pm, "reflection") == 0 ? 2 : -1;
  if (p < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "padding_mode '%s'", pm);
  if (cx->opset < 20 && ox_rank_of(cx, in[0]) != 4)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "GridSample before opset 20 takes 4-D inputs");
  if (!berth_dtype_is_float(cx->vals[in[0]].type.dtype))
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "berth samples float tensors only");
  OX_TRY(ox_emit_cast(cx, in[1], cx->vals[in[0]].type.dtype, &in[1]));
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_GRID_SAMPLE, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_GRID_SAMPLE, a, "mode", m));
  OX_TRY(ox_attr_i(cx, BERTH_OP_GRID_SAMPLE, a, "padding", p));
  OX_TRY(ox_attr_i(cx, BERTH_OP_GRID_SAMPLE, a, "align_corners", ox_attr_int(cx, "align_corners", 0)));
  OX_TRY(ox_emit1(cx, BERTH_OP_GRID_SAMPLE, 2, in, a, &y));
  cx->vals[y].elem = cx->vals[in[0]].elem;
  OX_TRY(ox_narrow_round(cx, y, &y));
  return ox_out(cx, 0, y);
}

/* ---- Col2Im, AffineGrid ---------------------------------------------------------------- */

static berth_status_t op_col2im(ox_ctx_t *cx) {
  int32_t x, iv, bv, y, ni, nb;
  OX_TRY(ox_in_req(cx, 0, &x));
  OX_TRY(ox_in_req(cx, 1, &iv));
  OX_TRY(ox_in_req(cx, 2, &bv));
  int64_t img[OX_MAXV], blk[OX_MAXV], v[OX_MAXV];
  OX_TRY(ox_const_ints(cx, iv, "the image_shape operand", img, OX_MAXV, &ni));
  OX_TRY(ox_const_ints(cx, bv, "the block_shape operand", blk, OX_MAXV, &nb));
  if (ni != nb || ni < 1 || ni > 4)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "image_shape and block_shape have %d and %d values; berth's col2im takes 1 to 4",
                   (int)ni, (int)nb);
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_COL2IM, a);
  OX_TRY(ox_attr_ints(cx, BERTH_OP_COL2IM, a, "image", img, ni));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_COL2IM, a, "block", blk, nb));
  static const char *const names[3] = {"strides", "pads", "dilations"};
  for (int k = 0; k < 3; k++) {
    int32_t n;
    OX_TRY(ox_attr_int_list(cx, names[k], v, OX_MAXV, &n));
    if (n >= 0) OX_TRY(ox_attr_ints(cx, BERTH_OP_COL2IM, a, names[k], v, n));
  }
  OX_TRY(ox_emit1(cx, BERTH_OP_COL2IM, 1, &x, a, &y));
  cx->vals[y].elem = cx->vals[x].elem;
  OX_TRY(ox_narrow_round(cx, y, &y));
  return ox_out(cx, 0, y);
}

/* grid = base @ theta^T: base is the constant [1, prod(size), r + 1] of normalized
 * coordinates (x, y[, z], 1) over the output positions, theta [N, r, r + 1]. */
static berth_status_t op_affine_grid(ox_ctx_t *cx) {
  int32_t th, sv, n;
  OX_TRY(ox_in_req(cx, 0, &th));
  OX_TRY(ox_in_req(cx, 1, &sv));
  int64_t size[OX_MAXV];
  OX_TRY(ox_const_ints(cx, sv, "the size operand", size, OX_MAXV, &n));
  const berth_type_t tt = cx->vals[th].type;
  int32_t r = n - 2;
  if ((r != 2 && r != 3) || tt.rank != 3 || tt.dims[1] != r || tt.dims[2] != r + 1 || size[0] != tt.dims[0])
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "size has %d values and theta rank %d: expected [N, C, H, W] with theta "
                   "[N, 2, 3] or [N, C, D, H, W] with [N, 3, 4]", (int)n, (int)tt.rank);
  if (!berth_dtype_is_float(tt.dtype)) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "theta must be a float tensor");
  int64_t count = 1;
  for (int32_t k = 0; k < r; k++) {
    if (size[2 + k] < 1 || size[2 + k] > ((int64_t)1 << 24) || count > (((int64_t)1 << 24) / size[2 + k]))
      return ox_fail(cx, BERTH_ERR_OUT_OF_RANGE, "size[%d] is %lld (berth builds grids of at most 2^24 points)", (int)(2 + k),
                     (long long)size[2 + k]);
    count *= size[2 + k];
  }
  bool align = ox_attr_int(cx, "align_corners", 0) != 0;
  size_t es = berth_dtype_size(tt.dtype);
  unsigned char *base = malloc(es * (size_t)(count * (r + 1)));
  if (!base) return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory");
  for (int64_t p = 0; p < count; p++) {
    int64_t rest = p;
    double coord[4];
    for (int32_t k = r - 1; k >= 0; k--) { /* k: spatial dim (0 = D or H), coordinate r-1-k */
      int64_t d = size[2 + k], i = rest % d;
      rest /= d;
      double step = align ? (d > 1 ? 2.0 / (double)(d - 1) : 0) : 2.0 / (double)d;
      double start = align ? -1 : -1 + step / 2;
      coord[r - 1 - k] = start + (double)i * step;
    }
    coord[r] = 1;
    for (int32_t j = 0; j <= r; j++) {
      size_t at = (size_t)(p * (r + 1) + j);
      if (tt.dtype == BERTH_DTYPE_F32) ((float *)base)[at] = (float)coord[j];
      else ((double *)base)[at] = coord[j];
    }
  }
  berth_type_t bt;
  memset(&bt, 0, sizeof bt);
  bt.dtype = tt.dtype;
  bt.rank = 3;
  bt.dims[0] = 1;
  bt.dims[1] = count;
  bt.dims[2] = r + 1;
  int32_t bv, tr, mm, y;
  OX_TRY(ox_const_new(cx, &bt, base, &bv));
  int64_t perm[3] = {0, 2, 1};
  OX_TRY(emit_transpose(cx, th, perm, 3, &tr));
  int32_t in[2] = {bv, tr};
  OX_TRY(ox_emit1(cx, BERTH_OP_MATMUL, 2, in, NULL, &mm));
  int64_t out[5] = {size[0]};
  for (int32_t k = 0; k < r; k++) out[1 + k] = size[2 + k];
  out[1 + r] = r;
  OX_TRY(ox_emit_reshape(cx, mm, out, r + 2, &y));
  cx->vals[y].elem = cx->vals[th].elem;
  OX_TRY(ox_narrow_round(cx, y, &y));
  return ox_out(cx, 0, y);
}

/* ---- RoiAlign ------------------------------------------------------------------------------ */

static berth_status_t op_roi_align(ox_ctx_t *cx) {
  int32_t in[3], out[2];
  for (int32_t k = 0; k < 3; k++) OX_TRY(ox_in_req(cx, k, &in[k]));
  if (!berth_dtype_is_float(cx->vals[in[0]].type.dtype))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "X must be a float tensor");
  OX_TRY(ox_emit_cast(cx, in[1], cx->vals[in[0]].type.dtype, &in[1]));
  char buf[32];
  const char *mode = ox_attr_string(cx, "mode", "avg", buf, sizeof buf);
  int64_t m = strcmp(mode, "avg") == 0 ? 0 : strcmp(mode, "max") == 0 ? 1 : -1;
  if (m < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "mode '%s'", mode);
  const char *ct = cx->opset >= 16 ? ox_attr_string(cx, "coordinate_transformation_mode", "half_pixel", buf, sizeof buf)
                                   : "output_half_pixel";
  int64_t hp = strcmp(ct, "half_pixel") == 0 ? 1 : strcmp(ct, "output_half_pixel") == 0 ? 0 : -1;
  if (hp < 0) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "coordinate_transformation_mode '%s'", ct);
  int64_t size[2] = {ox_attr_int(cx, "output_height", 1), ox_attr_int(cx, "output_width", 1)};
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_ROI_ALIGN, a);
  OX_TRY(ox_attr_i(cx, BERTH_OP_ROI_ALIGN, a, "mode", m));
  OX_TRY(ox_attr_ints(cx, BERTH_OP_ROI_ALIGN, a, "output", size, 2));
  OX_TRY(ox_attr_i(cx, BERTH_OP_ROI_ALIGN, a, "sampling_ratio", ox_attr_int(cx, "sampling_ratio", 0)));
  OX_TRY(ox_attr_f(cx, BERTH_OP_ROI_ALIGN, a, "spatial_scale", ox_attr_float(cx, "spatial_scale", 1.0)));
  OX_TRY(ox_attr_i(cx, BERTH_OP_ROI_ALIGN, a, "half_pixel", hp));
  OX_TRY(ox_emit(cx, BERTH_OP_ROI_ALIGN, 3, in, a, 2, out));
  cx->vals[out[0]].elem = cx->vals[in[0]].elem;
  OX_TRY(ox_assert_ok(cx, out[1], "a batch index is out of range or a region is not finite or too large"));
  OX_TRY(ox_narrow_round(cx, out[0], &out[0]));
  return ox_out(cx, 0, out[0]);
}

/* ---- DeformConv ------------------------------------------------------------------------------ */

static berth_status_t op_deform_conv(ox_ctx_t *cx) {
  int32_t in[5], n = 3, y;
  for (int32_t k = 0; k < 3; k++) OX_TRY(ox_in_req(cx, k, &in[k]));
  OX_TRY(ox_in(cx, 3, &in[3]));
  OX_TRY(ox_in(cx, 4, &in[4]));
  const berth_type_t *xt = &cx->vals[in[0]].type, *wt = &cx->vals[in[1]].type;
  if (xt->rank != 4 || wt->rank != 4) return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "berth's DeformConv is 2-D only");
  if (in[4] >= 0 && in[3] < 0) { /* a mask without a bias: a zero bias */
    berth_type_t bt;
    memset(&bt, 0, sizeof bt);
    bt.dtype = xt->dtype;
    bt.rank = 1;
    bt.dims[0] = wt->dims[0];
    OX_TRY(ox_emit_full(cx, &bt, 0, 0, &in[3]));
  }
  if (in[3] >= 0) n = 4;
  if (in[4] >= 0) n = 5;
  int64_t v[OX_MAXV];
  berth_attr_value_t a[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_DEFORM_CONV, a);
  static const char *const names[3] = {"strides", "pads", "dilations"};
  for (int k = 0; k < 3; k++) {
    int32_t nv;
    OX_TRY(ox_attr_int_list(cx, names[k], v, OX_MAXV, &nv));
    if (nv >= 0) OX_TRY(ox_attr_ints(cx, BERTH_OP_DEFORM_CONV, a, names[k], v, nv));
  }
  int32_t nk;
  OX_TRY(ox_attr_int_list(cx, "kernel_shape", v, OX_MAXV, &nk));
  if (nk >= 0 && (nk != 2 || v[0] != wt->dims[2] || v[1] != wt->dims[3]))
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "kernel_shape does not match the weights");
  OX_TRY(ox_attr_i(cx, BERTH_OP_DEFORM_CONV, a, "group", ox_attr_int(cx, "group", 1)));
  OX_TRY(ox_attr_i(cx, BERTH_OP_DEFORM_CONV, a, "offset_group", ox_attr_int(cx, "offset_group", 1)));
  OX_TRY(ox_emit1(cx, BERTH_OP_DEFORM_CONV, n, in, a, &y));
  cx->vals[y].elem = cx->vals[in[0]].elem;
  OX_TRY(ox_narrow_round(cx, y, &y));
  return ox_out(cx, 0, y);
}

const ox_op_row_t ox_ops_spatial[] = {
    {"AffineGrid", op_affine_grid, BERTH_OP_COUNT},
    {"CenterCropPad", op_center_crop_pad, BERTH_OP_COUNT},
    {"Col2Im", op_col2im, BERTH_OP_COUNT},
    {"ConvTranspose", op_conv_transpose, BERTH_OP_COUNT},
    {"DeformConv", op_deform_conv, BERTH_OP_COUNT},
    {"DepthToSpace", op_depth_to_space, BERTH_OP_COUNT},
    {"GatherElements", op_gather_elements, BERTH_OP_COUNT},
    {"GridSample", op_grid_sample, BERTH_OP_COUNT},
    {"Resize", op_resize, BERTH_OP_COUNT},
    {"RoiAlign", op_roi_align, BERTH_OP_COUNT},
    {"SpaceToDepth", op_space_to_depth, BERTH_OP_COUNT},
    {"Split", op_split, BERTH_OP_COUNT},
    {"Tile", op_tile, BERTH_OP_COUNT},
    {"Upsample", op_upsample, BERTH_OP_COUNT},
    {NULL, NULL, BERTH_OP_COUNT},
};
