/* rotary_embedding(x, cos, sin[, position_ids]) {interleaved, rotary_dim, num_heads} -> (y, ok):
 * ONNX RotaryEmbedding (opset 23).
 *
 *   x 4-D [B, H, S, D], or 3-D [B, S, H*D] with num_heads = H
 *   without position_ids: cos, sin [B, S, R/2]; with: cos, sin [P, R/2] and position_ids
 *   [B, S] (i32 or i64) picking row position_ids[b, s] for token (b, s)
 * R = rotary_dim (0: D) must be even and at most D. For each head vector, the first R
 * elements hold R/2 pairs (x1, x2): the two halves (x[i], x[i + R/2]), or with interleaved
 * the neighbours (x[2i], x[2i+1]); each pair becomes (c x1 - s x2, s x1 + c x2) with
 * c = cos[.., i], s = sin[.., i]. The other D - R elements are copied.
 *
 * Position ids are data: one outside 0..P-1 rotates nothing (its rows are copied) and the
 * second result `ok` (bool scalar) is false; the importer asserts on it. */
#include "kernel_util.h"

#include <string.h>

enum { ROPE_INTERLEAVED, ROPE_ROTARY_DIM, ROPE_NUM_HEADS };

typedef struct rope_dims {
  int64_t b, s, h, d, r;
  bool four_d;
} rope_dims_t;

static void rope_shape(const berth_attr_value_t *attrs, const berth_type_t *x, rope_dims_t *g) {
  g->four_d = x->rank == 4;
  g->b = x->dims[0];
  if (g->four_d) {
    g->h = x->dims[1];
    g->s = x->dims[2];
    g->d = x->dims[3];
  } else {
    g->s = x->dims[1];
    g->h = attrs[ROPE_NUM_HEADS].i > 0 ? attrs[ROPE_NUM_HEADS].i : 1;
    g->d = x->dims[2] / g->h;
  }
  g->r = attrs[ROPE_ROTARY_DIM].i ? attrs[ROPE_ROTARY_DIM].i : g->d;
}

static berth_status_t rope_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                 berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_rotary_embedding, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("rotary_embedding", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  BERTH_TRY(berth_kernel_check_same_dtype("rotary_embedding", in, 0, 1, diag));
  BERTH_TRY(berth_kernel_check_same_dtype("rotary_embedding", in, 0, 2, diag));
  bool il;
  BERTH_TRY(berth_kernel_get_flag("rotary_embedding", "interleaved", &attrs[ROPE_INTERLEAVED], &il, diag));
  const berth_type_t *x = &in[0];
  char sa[160], sb[160];
  if (x->rank != 3 && x->rank != 4)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "rotary_embedding: input %s, expected [B, H, S, D] or [B, S, H*D]",
                      berth_type_format(x, sa, sizeof sa));
  int64_t nh = attrs[ROPE_NUM_HEADS].i, rd = attrs[ROPE_ROTARY_DIM].i;
  if (x->rank == 3 && (nh < 1 || x->dims[2] % nh != 0))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "rotary_embedding: num_heads is %lld, expected >= 1 dividing the hidden size of 3-D input %s",
                      (long long)nh, berth_type_format(x, sa, sizeof sa));
  if (nh < 0 || rd < 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "rotary_embedding: num_heads %lld / rotary_embedding_dim %lld are negative",
                      (long long)nh, (long long)rd);
  rope_dims_t g;
  rope_shape(attrs, x, &g);
  if (x->rank == 4 && nh != 0 && nh != g.h)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "rotary_embedding: num_heads %lld, but input %s has %lld heads",
                      (long long)nh, berth_type_format(x, sa, sizeof sa), (long long)g.h);
  if (g.r > g.d || g.r % 2 != 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "rotary_embedding: rotary dim %lld, expected even and at most head size %lld",
                      (long long)g.r, (long long)g.d);
  const bool pos = n_in > 3;
  for (int32_t k = 1; k <= 2; k++) {
    const berth_type_t *c = &in[k];
    bool ok = pos ? c->rank == 2 && c->dims[1] == g.r / 2
                  : c->rank == 3 && c->dims[0] == g.b && c->dims[1] == g.s && c->dims[2] == g.r / 2;
    if (!ok)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "rotary_embedding: %s cache %s, expected %s, %lld] (rotary dim / 2)",
                        k == 1 ? "cos" : "sin", berth_type_format(c, sa, sizeof sa),
                        pos ? "[max_position" : "[batch, seq", (long long)(g.r / 2));
  }
  if (in[1].dims[0] != in[2].dims[0])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "rotary_embedding: cos cache %s and sin cache %s differ",
                      berth_type_format(&in[1], sa, sizeof sa), berth_type_format(&in[2], sb, sizeof sb));
  if (pos) {
    const berth_type_t *p = &in[3];
    BERTH_TRY(berth_kernel_check_dtype("rotary_embedding", 3, p->dtype, BERTH_DTYPE_BIT(I32) | BERTH_DTYPE_BIT(I64), diag));
    if (p->rank != 2 || p->dims[0] != g.b || p->dims[1] != g.s)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "rotary_embedding: position_ids %s, expected [%lld, %lld]",
                        berth_type_format(p, sa, sizeof sa), (long long)g.b, (long long)g.s);
  }
  out[0] = *x;
  berth_kernel_type_init(&out[1], BERTH_DTYPE_BOOL, 0);
  return BERTH_OK;
}

#define ROPE_FN(SFX, T)                                                                                          \
  static bool rope_run_##SFX(const rope_dims_t *g, bool il, const T *x, const T *cs, const T *sn, const void *pos, \
                           bool p64, int64_t npos, T *y) {                                                    \
    const int64_t half = g->r / 2;                                                                            \
    bool ok = true;                                                                                           \
    for (int64_t b = 0; b < g->b; b++)                                                                        \
      for (int64_t t = 0; t < g->s; t++) {                                                                    \
        int64_t row = b * g->s + t;                                                                           \
        if (pos) {                                                                                            \
          row = p64 ? ((const int64_t *)pos)[b * g->s + t] : ((const int32_t *)pos)[b * g->s + t];            \
          if (row < 0 || row >= npos) ok = false;                                                             \
        }                                                                                                     \
        const bool rot = row >= 0 && row < (pos ? npos : g->b * g->s);                                        \
        const T *c = cs + (rot ? row : 0) * half, *sv = sn + (rot ? row : 0) * half;                         \
        for (int64_t h = 0; h < g->h; h++) {                                                                  \
          const int64_t at = (g->four_d ? (b * g->h + h) * g->s + t : (b * g->s + t) * g->h + h) * g->d;      \
          const T *xv = x + at;                                                                               \
          T *yv = y + at;                                                                                     \
          memcpy(yv, xv, (size_t)g->d * sizeof(T));                                                           \
          if (!rot) continue;                                                                                 \
          for (int64_t i = 0; i < half; i++) {                                                                \
            const int64_t i1 = il ? 2 * i : i, i2 = il ? 2 * i + 1 : i + half;                                \
            const T x1 = xv[i1], x2 = xv[i2];                                                                 \
            yv[i1] = c[i] * x1 - sv[i] * x2;                                                                  \
            yv[i2] = sv[i] * x1 + c[i] * x2;                                                                  \
          }                                                                                                   \
        }                                                                                                     \
      }                                                                                                       \
    return ok;                                                                                                \
  }
ROPE_FN(f32, float)
ROPE_FN(f64, double)

static void rope_run(const berth_kernel_call_t *call) {
  rope_dims_t g;
  rope_shape(call->attrs, call->in[0].type, &g);
  const bool il = call->attrs[ROPE_INTERLEAVED].i != 0;
  const void *pos = call->n_in > 3 ? call->in[3].data : NULL;
  const bool p64 = pos && call->in[3].type->dtype == BERTH_DTYPE_I64;
  const int64_t npos = call->in[1].type->dims[0];
  bool ok; /* an empty x still has its position ids checked */
  if (call->in[0].type->dtype == BERTH_DTYPE_F32)
    ok = rope_run_f32(&g, il, (const float *)call->in[0].data, (const float *)call->in[1].data,
                      (const float *)call->in[2].data, pos, p64, npos, (float *)call->out[0].data);
  else
    ok = rope_run_f64(&g, il, (const double *)call->in[0].data, (const double *)call->in[1].data,
                      (const double *)call->in[2].data, pos, p64, npos, (double *)call->out[0].data);
  *(uint8_t *)call->out[1].data = ok ? 1 : 0;
}

static const berth_attr_spec_t rope_attrs[] = {
    {"interleaved", BERTH_ATTR_INT, false, 0, 0},
    {"rotary_dim", BERTH_ATTR_INT, false, 0, 0},
    {"num_heads", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_rotary_embedding = {"rotary_embedding", BERTH_OPKIND_KERNEL, 3, 4, 2, 3,
                                                      rope_attrs, rope_infer, rope_run};
