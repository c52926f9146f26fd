/* rnn(X, W, R, B, initial_h[, sequence_lens]) {direction, layout, clip, activations, act_params}
 *   -> (Y, Y_h, ok): ONNX RNN, one gate:     H_t = f(W x_t + R H_{t-1} + Wb + Rb)
 * gru(X, W, R, B, initial_h[, sequence_lens]) {direction, layout, linear_before_reset, clip,
 *   activations, act_params} -> (Y, Y_h, ok): ONNX GRU, gates z, r, h in ONNX order:
 *   z = f(Wz x + Rz H + Wbz + Rbz)      r = f(Wr x + Rr H + Wbr + Rbr)
 *   linear_before_reset 0: h = g(Wh x + Rh (r . H) + Rbh + Wbh)
 *   linear_before_reset 1: h = g(Wh x + r . (Rh H + Rbh) + Wbh)
 *   H_t = (1 - z) . h + z . H_{t-1}
 *
 *   layout 0: X [seq, batch, I], Y [seq, dirs, batch, H], initial_h and Y_h [dirs, batch, H]
 *   layout 1: X [batch, seq, I], Y [batch, seq, dirs, H], initial_h and Y_h [batch, dirs, H]
 *   W [dirs, G*H, I], R [dirs, G*H, H], B [dirs, 2*G*H] (Wb then Rb); G = 1 (rnn), 3 (gru)
 * The hidden size H is R's last dim. direction 0 forward, 1 reverse, 2 bidirectional (the
 * second direction reversed). The importer materializes zeros for a missing B or initial_h.
 *
 * activations: one kind per gate function per direction (rnn: f; gru: f, g), a
 * RNN_ACT_* value; act_params: their alpha and beta, as float32 bit patterns, two per
 * activation. clip > 0 clips every gate pre-activation to [-clip, clip] first.
 *
 * sequence_lens (i32 or i64, [batch]): batch entry b runs len_b steps (a reverse direction
 * from len_b - 1 down to 0); Y is 0 at the steps past len_b, and Y_h is the state after the
 * last step run (initial_h when len_b = 0). A length outside 0..seq is data: it runs seq
 * steps and the result `ok` (bool scalar) is false; the importer asserts on it.
 *
 * Arithmetic in double, stored in the dtype (f32 or f64). No scratch memory: H_{t-1} is read
 * from Y at the previous step (or initial_h), and gru with linear_before_reset 0 keeps r . H
 * in its Y_h row during a step (Y_h is written only after the last step). */
#include "kernel_util.h"

#include <math.h>
#include <string.h>

enum { RNN_DIRECTION, RNN_LAYOUT, RNN_CLIP, RNN_ACTIVATIONS, RNN_ACT_PARAMS, RNN_LBR };
enum { RNN_X, RNN_W, RNN_R, RNN_B, RNN_H0, RNN_SL };

/* Activation kinds (the values of the activations attribute). */
enum {
  RNN_ACT_SIGMOID,
  RNN_ACT_TANH,
  RNN_ACT_RELU,
  RNN_ACT_AFFINE,
  RNN_ACT_LEAKY_RELU,
  RNN_ACT_THRESHOLDED_RELU,
  RNN_ACT_SCALED_TANH,
  RNN_ACT_HARD_SIGMOID,
  RNN_ACT_ELU,
  RNN_ACT_SOFTSIGN,
  RNN_ACT_SOFTPLUS,
  RNN_ACT_COUNT
};

typedef struct rnn_act {
  int kind;
  double alpha, beta;
} rnn_act_t;

typedef struct rnn_dims {
  int64_t seq, batch, in, hid, dirs, gates;
  int32_t direction;
  bool l1, lbr;
  double clip;
  rnn_act_t act[2][2]; /* [dir][function] */
} rnn_dims_t;

static const char *const rnn_operand[6] = {"X", "W", "R", "B", "initial_h", "sequence_lens"};

static double rnn_param(const berth_attr_value_t *a, int32_t k) {
  uint32_t bits = (uint32_t)a->ints[k];
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Sizes and activations from the attributes and the shapes of X and R (infer checked them). */
static void rnn_shape(const berth_attr_value_t *attrs, const berth_type_t *in, int64_t gates, bool gru, rnn_dims_t *d) {
  d->direction = (int32_t)attrs[RNN_DIRECTION].i;
  d->l1 = attrs[RNN_LAYOUT].i == 1;
  d->lbr = gru && attrs[RNN_LBR].i != 0;
  d->clip = attrs[RNN_CLIP].f;
  d->dirs = d->direction == 2 ? 2 : 1;
  d->gates = gates;
  d->seq = in[RNN_X].dims[d->l1 ? 1 : 0];
  d->batch = in[RNN_X].dims[d->l1 ? 0 : 1];
  d->in = in[RNN_X].dims[2];
  d->hid = in[RNN_R].dims[2];
  const int32_t per = gru ? 2 : 1;
  for (int32_t dir = 0; dir < 2; dir++)
    for (int32_t f = 0; f < 2; f++) {
      const int32_t k = (dir < d->dirs ? dir : 0) * per + (f < per ? f : 0);
      d->act[dir][f].kind = k < attrs[RNN_ACTIVATIONS].n ? (int)attrs[RNN_ACTIVATIONS].ints[k] : RNN_ACT_TANH;
      d->act[dir][f].alpha = 2 * k < attrs[RNN_ACT_PARAMS].n ? rnn_param(&attrs[RNN_ACT_PARAMS], 2 * k) : 0;
      d->act[dir][f].beta = 2 * k + 1 < attrs[RNN_ACT_PARAMS].n ? rnn_param(&attrs[RNN_ACT_PARAMS], 2 * k + 1) : 0;
    }
}

static berth_status_t rnn_expect(const char *op, const berth_type_t *t, int32_t i, int32_t rank, const int64_t *dims,
                                 const char *form, berth_diag_t *diag) {
  bool ok = t->rank == rank;
  for (int32_t k = 0; ok && k < rank; k++) ok = t->dims[k] == dims[k];
  if (ok) return BERTH_OK;
  char a[160], want[160];
  berth_type_t w;
  berth_kernel_type_init(&w, t->dtype, rank);
  for (int32_t k = 0; k < rank; k++) w.dims[k] = dims[k];
  return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %s (operand %d) is %s, expected %s (%s)", op, rnn_operand[i],
                    (int)i, berth_type_format(t, a, sizeof a), berth_type_format(&w, want, sizeof want), form);
}

static berth_status_t rnn_check_attrs(const char *op, const berth_attr_value_t *attrs, int64_t n_act, berth_diag_t *diag) {
  int64_t dir = attrs[RNN_DIRECTION].i, layout = attrs[RNN_LAYOUT].i;
  if (dir < 0 || dir > 2)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "%s: direction is %lld, expected 0 (forward), 1 (reverse) or 2 (bidirectional)", op, (long long)dir);
  if (layout != 0 && layout != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: layout is %lld, expected 0 or 1", op, (long long)layout);
  double clip = attrs[RNN_CLIP].f;
  if (!(clip >= 0) || isinf(clip))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: clip is %g, expected a finite number >= 0 (0: none)", op, clip);
  const berth_attr_value_t *a = &attrs[RNN_ACTIVATIONS], *p = &attrs[RNN_ACT_PARAMS];
  BERTH_TRY(berth_kernel_check_ints(op, "activations", a, diag));
  BERTH_TRY(berth_kernel_check_ints(op, "act_params", p, diag));
  int64_t want = n_act * (dir == 2 ? 2 : 1);
  if (a->n != want || p->n != 2 * want)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %d activations with %d parameters, expected %lld and %lld", op,
                      (int)a->n, (int)p->n, (long long)want, (long long)(2 * want));
  for (int32_t k = 0; k < a->n; k++)
    if (a->ints[k] < 0 || a->ints[k] >= RNN_ACT_COUNT)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: activation kind %lld, expected 0..%d", op,
                        (long long)a->ints[k], RNN_ACT_COUNT - 1);
  for (int32_t k = 0; k < p->n; k++)
    if (p->ints[k] < 0 || p->ints[k] > (int64_t)UINT32_MAX)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: act_params entry %lld is no float32 bit pattern", op,
                        (long long)p->ints[k]);
  return BERTH_OK;
}

static berth_status_t rnn_infer_common(const berth_op_def_t *def, int64_t gates, bool gru, const berth_attr_value_t *attrs,
                                       const berth_type_t *in, int32_t n_in, berth_type_t *out, berth_diag_t *diag) {
  const char *op = def->name;
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  for (int32_t i = 1; i <= RNN_H0; i++) BERTH_TRY(berth_kernel_check_same_dtype(op, in, 0, i, diag));
  if (n_in > RNN_SL)
    BERTH_TRY(berth_kernel_check_dtype(op, RNN_SL, in[RNN_SL].dtype, BERTH_DTYPE_BIT(I32) | BERTH_DTYPE_BIT(I64), diag));
  BERTH_TRY(rnn_check_attrs(op, attrs, gru ? 2 : 1, diag));
  char a[160];
  if (in[RNN_X].rank != 3)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: X (operand 0) is %s, expected rank 3", op,
                      berth_type_format(&in[RNN_X], a, sizeof a));
  if (in[RNN_R].rank != 3 || in[RNN_R].dims[2] < 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: R (operand 2) is %s, expected [dirs, %lld*hidden, hidden]", op,
                      berth_type_format(&in[RNN_R], a, sizeof a), (long long)gates);
  rnn_dims_t d;
  rnn_shape(attrs, in, gates, gru, &d);
  const int64_t h = d.hid, gh = gates * h;
  int64_t w[3] = {d.dirs, gh, d.in}, r[3] = {d.dirs, gh, h}, b[2] = {d.dirs, 2 * gh};
  int64_t st[3] = {d.l1 ? d.batch : d.dirs, d.l1 ? d.dirs : d.batch, h}, sl[1] = {d.batch};
  BERTH_TRY(rnn_expect(op, &in[RNN_W], RNN_W, 3, w, "[dirs, gates*hidden, input]", diag));
  BERTH_TRY(rnn_expect(op, &in[RNN_R], RNN_R, 3, r, "[dirs, gates*hidden, hidden]", diag));
  BERTH_TRY(rnn_expect(op, &in[RNN_B], RNN_B, 2, b, "[dirs, 2*gates*hidden]", diag));
  BERTH_TRY(rnn_expect(op, &in[RNN_H0], RNN_H0, 3, st, d.l1 ? "[batch, dirs, hidden]" : "[dirs, batch, hidden]", diag));
  if (n_in > RNN_SL) BERTH_TRY(rnn_expect(op, &in[RNN_SL], RNN_SL, 1, sl, "[batch]", diag));
  berth_type_t y;
  berth_kernel_type_init(&y, in[0].dtype, 4);
  y.dims[0] = d.l1 ? d.batch : d.seq;
  y.dims[1] = d.l1 ? d.seq : d.dirs;
  y.dims[2] = d.l1 ? d.dirs : d.batch;
  y.dims[3] = h;
  BERTH_TRY(berth_kernel_check_output(op, &y, diag));
  out[0] = y;
  out[1] = in[RNN_H0];
  berth_kernel_type_init(&out[2], BERTH_DTYPE_BOOL, 0);
  return BERTH_OK;
}

static berth_status_t rnn_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                berth_diag_t *diag) {
  return rnn_infer_common(&berth_op_def_rnn, 1, false, attrs, in, n_in, out, diag);
}

static berth_status_t gru_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_get_flag("gru", "linear_before_reset", &attrs[RNN_LBR], &(bool){false}, diag));
  return rnn_infer_common(&berth_op_def_gru, 3, true, attrs, in, n_in, out, diag);
}

/* ---- run ---------------------------------------------------------------------------- */

static double rnn_apply(const rnn_act_t *a, double x) {
  switch (a->kind) {
    case RNN_ACT_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case RNN_ACT_TANH: return tanh(x);
    case RNN_ACT_RELU: return x > 0 ? x : 0;
    case RNN_ACT_AFFINE: return a->alpha * x + a->beta;
    case RNN_ACT_LEAKY_RELU: return x >= 0 ? x : a->alpha * x;
    case RNN_ACT_THRESHOLDED_RELU: return x > a->alpha ? x : 0;
    case RNN_ACT_SCALED_TANH: return a->alpha * tanh(a->beta * x);
    case RNN_ACT_HARD_SIGMOID: {
      double v = a->alpha * x + a->beta;
      return v < 0 ? 0 : v > 1 ? 1 : v;
    }
    case RNN_ACT_ELU: return x >= 0 ? x : a->alpha * (exp(x) - 1);
    case RNN_ACT_SOFTSIGN: return x / (1 + fabs(x));
    default: return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); /* softplus */
  }
}

static inline double rnn_clip(const rnn_dims_t *d, double v) {
  if (d->clip > 0) v = v < -d->clip ? -d->clip : v > d->clip ? d->clip : v;
  return v;
}

/* One step of one direction for one batch entry: x_t, H_{t-1} -> y (H_t). sc: gru's r . H row. */
#define RNN_STEP_FN(SFX, T)                                                                                     \
  static double rnn_dot_##SFX(const T *a, const T *b, int64_t n) {                                            \
    double s = 0;                                                                                             \
    for (int64_t i = 0; i < n; i++) s += (double)a[i] * (double)b[i];                                         \
    return s;                                                                                                 \
  }                                                                                                           \
  static void rnn_step_##SFX(const rnn_dims_t *d, int64_t dir, const T *W, const T *R, const T *Bd, const T *x, \
                             const T *hp, T *y, T *sc) {                                                      \
    const int64_t H = d->hid, I = d->in;                                                                      \
    const rnn_act_t *f = &d->act[dir][0], *g = &d->act[dir][1];                                               \
    if (d->gates == 1) {                                                                                      \
      for (int64_t j = 0; j < H; j++)                                                                         \
        y[j] = (T)rnn_apply(f, rnn_clip(d, rnn_dot_##SFX(W + j * I, x, I) + rnn_dot_##SFX(R + j * H, hp, H) +    \
                                               (double)Bd[j] + (double)Bd[H + j]));                           \
      return;                                                                                                 \
    }                                                                                                         \
    if (!d->lbr)                                                                                              \
      for (int64_t j = 0; j < H; j++) { /* r . H_{t-1}, needed whole by every unit's h */                     \
        const int64_t u = H + j;                                                                              \
        double r = rnn_apply(f, rnn_clip(d, rnn_dot_##SFX(W + u * I, x, I) + rnn_dot_##SFX(R + u * H, hp, H) +   \
                                                (double)Bd[u] + (double)Bd[3 * H + u]));                      \
        sc[j] = (T)(r * (double)hp[j]);                                                                       \
      }                                                                                                       \
    for (int64_t j = 0; j < H; j++) {                                                                         \
      const int64_t uz = j, ur = H + j, uh = 2 * H + j;                                                       \
      double z = rnn_apply(f, rnn_clip(d, rnn_dot_##SFX(W + uz * I, x, I) + rnn_dot_##SFX(R + uz * H, hp, H) +   \
                                              (double)Bd[uz] + (double)Bd[3 * H + uz]));                      \
      double hx = rnn_dot_##SFX(W + uh * I, x, I) + (double)Bd[uh], hh;                                       \
      if (d->lbr) {                                                                                           \
        double r = rnn_apply(f, rnn_clip(d, rnn_dot_##SFX(W + ur * I, x, I) + rnn_dot_##SFX(R + ur * H, hp, H) + \
                                                (double)Bd[ur] + (double)Bd[3 * H + ur]));                    \
        hh = r * (rnn_dot_##SFX(R + uh * H, hp, H) + (double)Bd[3 * H + uh]);                                 \
      } else {                                                                                                \
        hh = rnn_dot_##SFX(R + uh * H, sc, H) + (double)Bd[3 * H + uh];                                       \
      }                                                                                                       \
      double h = rnn_apply(g, rnn_clip(d, hx + hh));                                                          \
      y[j] = (T)((1 - z) * h + z * (double)hp[j]);                                                            \
    }                                                                                                         \
  }

/* The whole op: every direction, batch entry and step. Returns false when a length was out of range. */
#define RNN_FN(SFX, T)                                                                                          \
  RNN_STEP_FN(SFX, T)                                                                                         \
  static bool rnn_run_##SFX(const rnn_dims_t *d, const T *X, const T *W, const T *R, const T *B, const T *H0,  \
                            const void *SL, bool sl64, T *Y, T *YH) {                                         \
    const int64_t seq = d->seq, nb = d->batch, I = d->in, H = d->hid, nd = d->dirs, G = d->gates;             \
    bool ok = true;                                                                                           \
    for (int64_t dir = 0; dir < nd; dir++) {                                                                  \
      const bool rev = d->direction == 1 || dir == 1;                                                         \
      const T *Wd = W + dir * G * H * I, *Rd = R + dir * G * H * H, *Bd = B + dir * 2 * G * H;                \
      for (int64_t b = 0; b < nb; b++) {                                                                      \
        int64_t len = seq;                                                                                    \
        if (SL) {                                                                                             \
          len = sl64 ? ((const int64_t *)SL)[b] : ((const int32_t *)SL)[b];                                   \
          if (len < 0 || len > seq) {                                                                         \
            ok = false;                                                                                       \
            len = seq;                                                                                        \
          }                                                                                                   \
        }                                                                                                     \
        const int64_t st = d->l1 ? (b * nd + dir) * H : (dir * nb + b) * H;                                   \
        const T *hp = H0 + st;                                                                                \
        for (int64_t step = 0; step < len; step++) {                                                          \
          const int64_t t = rev ? len - 1 - step : step;                                                      \
          const T *xt = X + (d->l1 ? b * seq + t : t * nb + b) * I;                                           \
          T *yt = Y + (d->l1 ? (b * seq + t) * nd + dir : (t * nd + dir) * nb + b) * H;                       \
          rnn_step_##SFX(d, dir, Wd, Rd, Bd, xt, hp, yt, YH + st);                                            \
          hp = yt;                                                                                            \
        }                                                                                                     \
        for (int64_t t = len; t < seq; t++) /* past the sequence's end */                                     \
          memset(Y + (d->l1 ? (b * seq + t) * nd + dir : (t * nd + dir) * nb + b) * H, 0, (size_t)H * sizeof(T)); \
        memmove(YH + st, hp, (size_t)H * sizeof(T));                                                          \
      }                                                                                                       \
    }                                                                                                         \
    return ok;                                                                                                \
  }
RNN_FN(f32, float)
RNN_FN(f64, double)

static void rnn_run_common(const berth_kernel_call_t *call, int64_t gates, bool gru) {
  rnn_dims_t d;
  const berth_type_t *types[6];
  berth_type_t in[6];
  for (int32_t i = 0; i < call->n_in; i++) types[i] = call->in[i].type;
  for (int32_t i = 0; i < 5; i++) in[i] = *types[i];
  rnn_shape(call->attrs, in, gates, gru, &d);
  const void *sl = call->n_in > RNN_SL ? call->in[RNN_SL].data : NULL;
  const bool sl64 = sl && call->in[RNN_SL].type->dtype == BERTH_DTYPE_I64;
  bool ok;
  if (in[0].dtype == BERTH_DTYPE_F32)
    ok = rnn_run_f32(&d, call->in[0].data, call->in[1].data, call->in[2].data, call->in[3].data, call->in[4].data, sl, sl64,
                     call->out[0].data, call->out[1].data);
  else
    ok = rnn_run_f64(&d, call->in[0].data, call->in[1].data, call->in[2].data, call->in[3].data, call->in[4].data, sl, sl64,
                     call->out[0].data, call->out[1].data);
  *(uint8_t *)call->out[2].data = ok ? 1 : 0;
}

static void rnn_run(const berth_kernel_call_t *call) { rnn_run_common(call, 1, false); }
static void gru_run(const berth_kernel_call_t *call) { rnn_run_common(call, 3, true); }

static const berth_attr_spec_t rnn_attrs[] = {
    {"direction", BERTH_ATTR_INT, false, 0, 0},   {"layout", BERTH_ATTR_INT, false, 0, 0},
    {"clip", BERTH_ATTR_SCALAR, false, 0, 0},     {"activations", BERTH_ATTR_INTS, false, 0, 0},
    {"act_params", BERTH_ATTR_INTS, false, 0, 0}, {"linear_before_reset", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_rnn = {"rnn", BERTH_OPKIND_KERNEL, 5, 6, 3, 5, rnn_attrs, rnn_infer, rnn_run};
const berth_op_def_t berth_op_def_gru = {"gru", BERTH_OPKIND_KERNEL, 5, 6, 3, 6, rnn_attrs, gru_infer, gru_run};
