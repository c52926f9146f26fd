/* pad(x) {pads, mode, value}: ONNX Pad with the pads given as an attribute.
 *
 * pads holds 2 * rank values, all begins then all ends (so rank <= 4 fits the 8-value
 * attribute list); an empty list pads nothing, for any rank. A negative pad crops. The
 * result dim is d + begin + end (it must be >= 0). Cropping happens first, and the modes
 * fill the padding from the cropped data:
 *   0 constant: `value` (integers need an integral value that fits the dtype; bool is
 *     value != 0; f32 rounds to nearest);
 *   1 reflect:  mirror without repeating the edge (numpy "reflect"); a pad longer than
 *     the data keeps reflecting back and forth, and a one-element axis repeats it;
 *   2 edge:     repeat the edge element;
 *   3 wrap:     wrap around (numpy "wrap"), periodically for long pads.
 * The non-constant modes need at least one element on a padded axis. Any dtype. */
#include "kernel_move.h"
#include "kernel_util.h"

#include <string.h>

enum { PAD_PADS, PAD_MODE, PAD_VALUE };
#define PAD_INLINE inline __attribute__((always_inline))
enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP };

static const char *const pad_mode_names[4] = {"constant", "reflect", "edge", "wrap"};

static const struct {
  int64_t lo;
  uint64_t hi;
} pad_int_range[BERTH_DTYPE_COUNT] = {
    [BERTH_DTYPE_I8] = {INT8_MIN, INT8_MAX},    [BERTH_DTYPE_U8] = {0, UINT8_MAX},
    [BERTH_DTYPE_I16] = {INT16_MIN, INT16_MAX}, [BERTH_DTYPE_U16] = {0, UINT16_MAX},
    [BERTH_DTYPE_I32] = {INT32_MIN, INT32_MAX}, [BERTH_DTYPE_U32] = {0, UINT32_MAX},
    [BERTH_DTYPE_I64] = {INT64_MIN, INT64_MAX}, [BERTH_DTYPE_U64] = {0, INT64_MAX},
};

/* Per-axis geometry: the kept (cropped) source range [start, start + len), the left pad. */
typedef struct pad_axis {
  int64_t start, len, left, out;
} pad_axis_t;

static berth_status_t pad_plan(const berth_attr_value_t *attrs, const berth_type_t *x, pad_axis_t *ax,
                               berth_type_t *out, berth_diag_t *diag) {
  const berth_attr_value_t *pads = &attrs[PAD_PADS];
  BERTH_TRY(berth_kernel_check_ints("pad", "pads", pads, diag));
  int64_t mode = attrs[PAD_MODE].i;
  if (mode < 0 || mode > 3)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "pad: mode is %lld, expected 0 (constant), 1 (reflect), 2 (edge) or 3 (wrap)", (long long)mode);
  char sa[160];
  if (pads->n != 0 && pads->n != 2 * x->rank)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "pad: pads has %d values but input %s has rank %d, expected %d (begins then ends; rank <= 4)",
                      (int)pads->n, berth_type_format(x, sa, sizeof sa), (int)x->rank, (int)(2 * x->rank));
  *out = *x;
  for (int32_t k = 0; k < x->rank; k++) {
    int64_t d = x->dims[k], b = pads->n ? pads->ints[k] : 0, e = pads->n ? pads->ints[x->rank + k] : 0;
    if (b < -BERTH_MAX_DIM || b > BERTH_MAX_DIM || e < -BERTH_MAX_DIM || e > BERTH_MAX_DIM || d + b + e < 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "pad: pads %lld and %lld on axis %d of input %s leave a negative size, expected a size >= 0",
                        (long long)b, (long long)e, (int)k, berth_type_format(x, sa, sizeof sa));
    ax[k].start = b < 0 ? -b : 0;
    ax[k].len = d + (b < 0 ? b : 0) + (e < 0 ? e : 0);
    if (ax[k].len < 0) ax[k].len = 0;
    ax[k].left = b > 0 ? b : 0;
    ax[k].out = d + b + e;
    out->dims[k] = ax[k].out;
    if (mode != PAD_CONSTANT && ax[k].len == 0 && ax[k].out > 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "pad: %s mode cannot fill axis %d of input %s: no data is left on it (pads %lld, %lld); "
                        "expected at least one element",
                        pad_mode_names[mode], (int)k, berth_type_format(x, sa, sizeof sa), (long long)b, (long long)e);
  }
  return BERTH_OK;
}

static berth_status_t pad_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_pad, in, n_in, diag));
  pad_axis_t ax[BERTH_MAX_RANK];
  berth_type_t t;
  BERTH_TRY(pad_plan(attrs, &in[0], ax, &t, diag));
  BERTH_TRY(berth_kernel_check_output("pad", &t, diag));
  berth_dtype_t dt = in[0].dtype;
  const berth_attr_value_t *v = &attrs[PAD_VALUE];
  if (attrs[PAD_MODE].i == PAD_CONSTANT && berth_dtype_is_int(dt)) {
    if (!v->n)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "pad: value %g is not an integer, expected one for dtype %s",
                        v->f, berth_dtype_name(dt));
    if (v->i < pad_int_range[dt].lo || (v->i >= 0 && (uint64_t)v->i > pad_int_range[dt].hi))
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "pad: value %lld does not fit dtype %s", (long long)v->i,
                        berth_dtype_name(dt));
  }
  out[0] = t;
  return BERTH_OK;
}

/* Source coordinate within the kept range for output coordinate o, or -1 for the constant. */
static int64_t pad_map(const pad_axis_t *a, int64_t mode, int64_t o) {
  int64_t u = o - a->left, n = a->len;
  if (u >= 0 && u < n) return a->start + u;
  switch (mode) {
    case PAD_EDGE: u = u < 0 ? 0 : n - 1; break;
    case PAD_WRAP: u %= n; if (u < 0) u += n; break;
    case PAD_REFLECT:
      if (n == 1) {
        u = 0;
      } else {
        int64_t period = 2 * (n - 1);
        u %= period;
        if (u < 0) u += period;
        if (u >= n) u = period - u;
      }
      break;
    default: return -1;
  }
  return a->start + u;
}

/* The constant as bytes of the dtype. */
static void pad_value_bytes(const berth_attr_value_t *v, berth_dtype_t dt, unsigned char out[8]) {
  int64_t i = v->i;
  double f = v->f;
  switch (dt) {
    case BERTH_DTYPE_BOOL: out[0] = v->n ? i != 0 : f != 0; break;
    case BERTH_DTYPE_I8: { int8_t x = (int8_t)i; memcpy(out, &x, 1); break; }
    case BERTH_DTYPE_U8: { uint8_t x = (uint8_t)i; memcpy(out, &x, 1); break; }
    case BERTH_DTYPE_I16: { int16_t x = (int16_t)i; memcpy(out, &x, 2); break; }
    case BERTH_DTYPE_U16: { uint16_t x = (uint16_t)i; memcpy(out, &x, 2); break; }
    case BERTH_DTYPE_I32: { int32_t x = (int32_t)i; memcpy(out, &x, 4); break; }
    case BERTH_DTYPE_U32: { uint32_t x = (uint32_t)i; memcpy(out, &x, 4); break; }
    case BERTH_DTYPE_I64: memcpy(out, &i, 8); break;
    case BERTH_DTYPE_U64: { uint64_t x = (uint64_t)i; memcpy(out, &x, 8); break; }
    case BERTH_DTYPE_F32: { float x = (float)f; memcpy(out, &x, 4); break; }
    case BERTH_DTYPE_F64: memcpy(out, &f, 8); break;
    default: memset(out, 0, 8); break;
  }
}

/* berth_kernel_fill, with the one- to four-element edges of 4-byte rows (a 1- or 2-pixel border
 * of f32 images) stored in place rather than by a call. */
static PAD_INLINE void pad_fill(unsigned char *dst, const unsigned char *value, int64_t n, size_t es) {
  if (es == 4 && n <= 4) {
    for (int64_t j = 0; j < n; j++) memcpy(dst + 4 * j, value, 4);
    return;
  }
  berth_kernel_fill(dst, value, n, es);
}

/* Output elements [from, to) of a row outside the kept source range, in the reflect, edge or
 * wrap mode: the source element pad_map picks. */
static void pad_edges(unsigned char *dst, const unsigned char *s, const pad_axis_t *la, int64_t mode, int64_t from,
                      int64_t to, size_t es) {
  for (int64_t o = from; o < to; o++) memcpy(dst + (size_t)o * es, s + (size_t)pad_map(la, mode, o) * es, es);
}

/* One output row: the edges, the kept source row s between them; s NULL (only in the constant
 * mode: an outer coordinate in the padding, or nothing kept on the last axis) is all constant. */
static PAD_INLINE void pad_row(unsigned char *dst, const unsigned char *s, const pad_axis_t *la, int64_t mode,
                               const unsigned char *value, size_t es) {
  const int64_t row = la->out;
  if (!s || la->len == 0) {
    berth_kernel_fill(dst, value, row, es);
    return;
  }
  const int64_t left = la->left < row ? la->left : row, mid_end = la->left + la->len < row ? la->left + la->len : row;
  const int64_t right = mid_end > left ? mid_end : left;
  if (mode == PAD_CONSTANT) { /* the common case without pad_edges' per-element mapping */
    pad_fill(dst, value, left, es);
  } else {
    pad_edges(dst, s, la, mode, 0, left, es);
  }
  if (mid_end > left) memcpy(dst + (size_t)left * es, s + (size_t)la->start * es, (size_t)(mid_end - left) * es);
  if (mode == PAD_CONSTANT) {
    pad_fill(dst + (size_t)right * es, value, row - right, es);
  } else {
    pad_edges(dst, s, la, mode, right, row, es);
  }
}

/* Rank >= 1, by planes of the last two axes: the outer coordinates are mapped once per plane (a
 * plane in the constant padding is one fill), each row along its axis alone. Inlined into
 * pad_run twice, so that the constant mode's copy has its mode folded in. */
static PAD_INLINE void pad_planes(unsigned char *dst, const unsigned char *src, const berth_type_t *t,
                                  const pad_axis_t *ax, const int64_t *xs, int64_t mode, const unsigned char *value,
                                  size_t es) {
  const int32_t r = t->rank;
  const pad_axis_t one = {0, 1, 0, 1}, *ra = r >= 2 ? &ax[r - 2] : &one, *la = &ax[r - 1];
  const int64_t rstride = r >= 2 ? xs[r - 2] : 0, plane = ra->out * la->out;
  int64_t planes = 1, idx[BERTH_MAX_RANK] = {0};
  for (int32_t k = 0; k < r - 2; k++) planes *= t->dims[k];
  for (int64_t p = 0; p < planes; p++, dst += (size_t)plane * es) {
    int64_t base = 0;
    bool constant = false;
    for (int32_t k = 0; k < r - 2 && !constant; k++) {
      int64_t c = pad_map(&ax[k], mode, idx[k]);
      if (c < 0) constant = true;
      else base += c * xs[k];
    }
    if (constant) {
      berth_kernel_fill(dst, value, plane, es);
    } else {
      for (int64_t o = 0; o < ra->out; o++) {
        int64_t c = pad_map(ra, mode, o);
        pad_row(dst + (size_t)(o * la->out) * es, c < 0 ? NULL : src + (size_t)(base + c * rstride) * es, la, mode,
                value, es);
      }
    }
    for (int32_t k = r - 3; k >= 0; k--) {
      if (++idx[k] < t->dims[k]) break;
      idx[k] = 0;
    }
  }
}

static void pad_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  pad_axis_t ax[BERTH_MAX_RANK];
  berth_type_t t;
  pad_plan(call->attrs, x, ax, &t, NULL);
  if (berth_kernel_is_empty(&t)) return;
  const size_t es = berth_dtype_size(x->dtype);
  const unsigned char *src = (const unsigned char *)call->in[0].data;
  unsigned char *dst = (unsigned char *)call->out[0].data;
  if (t.rank == 0) {
    memcpy(dst, src, es);
    return;
  }
  unsigned char value[8];
  pad_value_bytes(&call->attrs[PAD_VALUE], x->dtype, value);
  int64_t xs[BERTH_MAX_RANK];
  berth_kernel_strides(x, xs); /* all 0 when x is empty: then every coordinate maps to -1 */
  const int64_t mode = call->attrs[PAD_MODE].i;
  if (mode == PAD_CONSTANT) pad_planes(dst, src, &t, ax, xs, PAD_CONSTANT, value, es);
  else pad_planes(dst, src, &t, ax, xs, mode, value, es);
}

static const berth_attr_spec_t pad_attrs[] = {
    {"pads", BERTH_ATTR_INTS, false, 0, 0},
    {"mode", BERTH_ATTR_INT, false, 0, 0},
    {"value", BERTH_ATTR_SCALAR, false, 0, 0},
};
const berth_op_def_t berth_op_def_pad = {"pad", BERTH_OPKIND_KERNEL, 1, 1, 1, 3, pad_attrs, pad_infer, pad_run};
