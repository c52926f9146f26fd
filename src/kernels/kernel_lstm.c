/* lstm(X, W, R, B, initial_h, initial_c[, P]) {hidden_size, direction, layout} -> (Y, Y_h, Y_c):
 * ONNX LSTM with the default activations (f = sigmoid, g = h = tanh), gates in ONNX order
 * i, o, f, c, optional peepholes P, no sequence lengths, no clipping (the importer rejects
 * those, materializes zeros for a missing B or initial state so the first six inputs are
 * always present, and drops a P that is a constant of zeros).
 *
 *   layout 0: X [seq, batch, I], Y [seq, dirs, batch, H], states [dirs, batch, H]
 *   layout 1: X [batch, seq, I], Y [batch, seq, dirs, H], states [batch, dirs, H]
 *   W [dirs, 4H, I], R [dirs, 4H, H], B [dirs, 8H] (= Wb then Rb), P [dirs, 3H] (= Pi, Po, Pf)
 * direction 0 forward, 1 reverse, 2 bidirectional (dirs = 2, the second one reversed).
 * f32 and f64.
 *
 * With P the input and forget gates add Pi * c_{t-1} and Pf * c_{t-1}, and the output gate
 * adds Po * c_t: the new cell state, so o is computed after c (ONNX's equations).
 *
 * Each step takes the hidden units in blocks of LSTM_UNITS: the gate pre-activations of a
 * block (W x_t + R h_{t-1}, runs of consecutive rows of W and R, four rows per dot4_2seg
 * pass) go to a small stack buffer, then the activations, each over a whole row of the
 * block (vectorized sigmoid and tanh, kernel_vmath.h), update c and h of the block. f32
 * runs the active kernel variant's functions (kernel_isa.h), f64 kernel_dot.h and libm. h_{t-1} is read from Y at the previous time step (or initial_h) while h_t is
 * written to Y at this one, and c lives in Y_c, updated in place (each unit's c depends
 * only on its own old value), so no other scratch memory is needed. The batch loop sits
 * inside the block loop so a block's rows stay in cache across the batch. */
#include "kernel_dot.h"
#include "kernel_isa.h"
#include "kernel_util.h"

#include <math.h>
#include <string.h>

enum { LSTM_HIDDEN_SIZE, LSTM_DIRECTION, LSTM_LAYOUT };
enum { LSTM_X, LSTM_W, LSTM_R, LSTM_B, LSTM_H0, LSTM_C0, LSTM_P };

typedef struct lstm_dims {
  int64_t seq, batch, in, hid, dirs;
  int32_t direction, layout;
} lstm_dims_t;

static const char *const lstm_operand[7] = {"X", "W", "R", "B", "initial_h", "initial_c", "P"};

static berth_status_t lstm_expect(const berth_type_t *t, int32_t i, int32_t rank, const int64_t *dims,
                                  const char *form, berth_diag_t *diag) {
  bool ok = t->rank == rank;
  for (int32_t k = 0; ok && k < rank; k++) ok = t->dims[k] == dims[k];
  if (ok) return BERTH_OK;
  char a[160], want[160];
  berth_type_t w;
  berth_kernel_type_init(&w, t->dtype, rank);
  for (int32_t k = 0; k < rank; k++) w.dims[k] = dims[k];
  return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "lstm: %s (operand %d) is %s, expected %s (%s)", lstm_operand[i],
                    (int)i, berth_type_format(t, a, sizeof a), berth_type_format(&w, want, sizeof want), form);
}

/* The sizes, from the attributes and X alone: all that run needs (infer checked the rest),
 * so that run does not carry lstm_dims' messages on its stack. */
static void lstm_shape(const berth_attr_value_t *attrs, const berth_type_t *x, lstm_dims_t *d) {
  int64_t dir = attrs[LSTM_DIRECTION].i;
  d->hid = attrs[LSTM_HIDDEN_SIZE].i;
  d->direction = (int32_t)dir;
  d->layout = (int32_t)attrs[LSTM_LAYOUT].i;
  d->dirs = dir == 2 ? 2 : 1;
  d->seq = x->dims[d->layout ? 1 : 0];
  d->batch = x->dims[d->layout ? 0 : 1];
  d->in = x->dims[2];
}

static berth_status_t lstm_dims(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                lstm_dims_t *d, berth_diag_t *diag) {
  lstm_shape(attrs, &in[LSTM_X], d); /* first: then gcc sees d set on every path */
  int64_t h = attrs[LSTM_HIDDEN_SIZE].i, dir = attrs[LSTM_DIRECTION].i, layout = attrs[LSTM_LAYOUT].i;
  if (h < 1 || h > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "lstm: hidden_size is %lld, expected >= 1", (long long)h);
  if (dir < 0 || dir > 2)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "lstm: direction is %lld, expected 0 (forward), 1 (reverse) or 2 (bidirectional)", (long long)dir);
  if (layout != 0 && layout != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "lstm: layout is %lld, expected 0 or 1", (long long)layout);
  const berth_type_t *x = &in[LSTM_X];
  if (x->rank != 3) {
    char a[160];
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "lstm: X (operand 0) is %s, expected rank 3 (%s)",
                      berth_type_format(x, a, sizeof a), layout ? "[batch, seq, input]" : "[seq, batch, input]");
  }
  int64_t w[3] = {d->dirs, 4 * h, d->in}, r[3] = {d->dirs, 4 * h, h}, b[2] = {d->dirs, 8 * h}, p[2] = {d->dirs, 3 * h};
  int64_t st0[3] = {d->dirs, d->batch, h}, st1[3] = {d->batch, d->dirs, h};
  BERTH_TRY(lstm_expect(&in[LSTM_W], LSTM_W, 3, w, "[dirs, 4*hidden_size, input]", diag));
  BERTH_TRY(lstm_expect(&in[LSTM_R], LSTM_R, 3, r, "[dirs, 4*hidden_size, hidden_size]", diag));
  BERTH_TRY(lstm_expect(&in[LSTM_B], LSTM_B, 2, b, "[dirs, 8*hidden_size]", diag));
  for (int32_t i = LSTM_H0; i <= LSTM_C0; i++)
    BERTH_TRY(lstm_expect(&in[i], i, 3, layout ? st1 : st0, layout ? "[batch, dirs, hidden_size]" : "[dirs, batch, hidden_size]",
                          diag));
  if (n_in > LSTM_P) BERTH_TRY(lstm_expect(&in[LSTM_P], LSTM_P, 2, p, "[dirs, 3*hidden_size]", diag));
  return BERTH_OK;
}

static berth_status_t lstm_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                 berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_lstm, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("lstm", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  for (int32_t i = 1; i < n_in; i++) BERTH_TRY(berth_kernel_check_same_dtype("lstm", in, 0, i, diag));
  lstm_dims_t d;
  BERTH_TRY(lstm_dims(attrs, in, n_in, &d, diag));
  berth_type_t y;
  berth_kernel_type_init(&y, in[0].dtype, 4);
  if (d.layout == 0) {
    y.dims[0] = d.seq;
    y.dims[1] = d.dirs;
    y.dims[2] = d.batch;
  } else {
    y.dims[0] = d.batch;
    y.dims[1] = d.seq;
    y.dims[2] = d.dirs;
  }
  y.dims[3] = d.hid;
  BERTH_TRY(berth_kernel_check_output("lstm", &y, diag));
  out[0] = y;
  out[1] = in[LSTM_H0];
  out[2] = in[LSTM_C0];
  return BERTH_OK;
}

/* ---- run ---------------------------------------------------------------------------- */

static inline double lstm_sigmoid_f64(double v) { return 1.0 / (1.0 + exp(-v)); }
static inline double lstm_tanh_f64(double v) { return tanh(v); }

#define LSTM_UNITS 16 /* hidden units per block: 4 * 16 gate rows of W and R (~32 KiB at 128 + 128) */

#define LSTM_FN(s, T)                                                                                      \
  static void lstm_run_##s(const lstm_dims_t *d, const T *X, const T *W, const T *R, const T *B,          \
                           const T *H0, const T *C0, const T *P, T *Y, T *YH, T *YC) {                     \
    const int64_t seq = d->seq, nb = d->batch, I = d->in, H = d->hid, nd = d->dirs;                        \
    const bool l1 = d->layout == 1;                                                                        \
    T g[4 * LSTM_UNITS], a[4 * LSTM_UNITS]; /* gate pre-activations, activations */                       \
    memcpy(YC, C0, (size_t)(nd * nb * H) * sizeof(T));                                                     \
    for (int64_t dir = 0; dir < nd; dir++) {                                                               \
      const bool rev = d->direction == 1 || dir == 1;                                                      \
      const T *Wd = W + dir * 4 * H * I, *Rd = R + dir * 4 * H * H, *Bd = B + dir * 8 * H;                 \
      const T *Pd = P ? P + dir * 3 * H : NULL;                                                            \
      for (int64_t step = 0; step < seq; step++) {                                                         \
        const int64_t t = rev ? seq - 1 - step : step, tp = rev ? t + 1 : t - 1;                           \
        for (int64_t j0 = 0; j0 < H; j0 += LSTM_UNITS) {                                                   \
          const int64_t jn = H - j0 < LSTM_UNITS ? H - j0 : LSTM_UNITS;                                    \
          for (int64_t b = 0; b < nb; b++) {                                                               \
            const int64_t st = l1 ? (b * nd + dir) * H : (dir * nb + b) * H;                               \
            const T *xt = X + (l1 ? b * seq + t : t * nb + b) * I;                                         \
            const T *hp = step ? Y + (l1 ? (b * seq + tp) * nd + dir : (tp * nd + dir) * nb + b) * H       \
                               : H0 + st;                                                                  \
            T *yt = Y + (l1 ? (b * seq + t) * nd + dir : (t * nd + dir) * nb + b) * H;                     \
            /* gate pre-activations of units j0..j0+jn: W x + R h, four rows at a time */                  \
            for (int gate = 0; gate < 4; gate++) {                                                         \
              const T *w = Wd + (gate * H + j0) * I, *r = Rd + (gate * H + j0) * H;                        \
              T *gg = g + gate * LSTM_UNITS;                                                               \
              int64_t j = 0;                                                                               \
              for (; j + 4 <= jn; j += 4)                                                                  \
                LSTM_DOT4_2SEG_##s(w + j * I, w + (j + 1) * I, w + (j + 2) * I, w + (j + 3) * I, xt, I,   \
                                    r + j * H, r + (j + 1) * H, r + (j + 2) * H, r + (j + 3) * H, hp, H,   \
                                    gg + j);                                                               \
              for (; j < jn; j++) gg[j] = LSTM_DOT_##s(w + j * I, xt, I) + LSTM_DOT_##s(r + j * H, hp, H);   \
            }                                                                                              \
            /* + biases (and peepholes on c_{t-1}); then the activations over whole rows */                    \
            for (int64_t j = 0; j < jn; j++) {                                                                 \
              const int64_t u = j0 + j;                                                                        \
              g[j] += Bd[u] + Bd[4 * H + u];                                                                   \
              g[LSTM_UNITS + j] += Bd[H + u] + Bd[5 * H + u];                                                  \
              g[2 * LSTM_UNITS + j] += Bd[2 * H + u] + Bd[6 * H + u];                                          \
              g[3 * LSTM_UNITS + j] += Bd[3 * H + u] + Bd[7 * H + u];                                          \
              if (Pd) {                                                                                        \
                g[j] += Pd[u] * YC[st + u];                                                                    \
                g[2 * LSTM_UNITS + j] += Pd[2 * H + u] * YC[st + u];                                           \
              }                                                                                                \
            }                                                                                                  \
            LSTM_SIGMOIDS_##s(g, a, jn);                            /* i */                                    \
            LSTM_SIGMOIDS_##s(g + 2 * LSTM_UNITS, a + 2 * LSTM_UNITS, jn); /* f */                             \
            LSTM_TANHS_##s(g + 3 * LSTM_UNITS, a + 3 * LSTM_UNITS, jn);    /* c~ */                            \
            for (int64_t j = 0; j < jn; j++) {                                                                 \
              const int64_t u = j0 + j;                                                                        \
              const T c = a[2 * LSTM_UNITS + j] * YC[st + u] + a[j] * a[3 * LSTM_UNITS + j];                   \
              YC[st + u] = c;                                                                                  \
              if (Pd) g[LSTM_UNITS + j] += Pd[H + u] * c; /* o waits for the new c */                          \
            }                                                                                                  \
            LSTM_SIGMOIDS_##s(g + LSTM_UNITS, a + LSTM_UNITS, jn); /* o */                                     \
            LSTM_TANHS_##s(YC + st + j0, a, jn);                    /* tanh(c), i no longer needed */          \
            for (int64_t j = 0; j < jn; j++) yt[j0 + j] = a[LSTM_UNITS + j] * a[j];                            \
          }                                                                                                \
        }                                                                                                  \
      }                                                                                                    \
      for (int64_t b = 0; b < nb; b++) {                                                                   \
        const int64_t st = l1 ? (b * nd + dir) * H : (dir * nb + b) * H;                                   \
        const int64_t tl = rev ? 0 : seq - 1;                                                              \
        const T *last = seq ? Y + (l1 ? (b * seq + tl) * nd + dir : (tl * nd + dir) * nb + b) * H : H0 + st; \
        memcpy(YH + st, last, (size_t)H * sizeof(T));                                                      \
      }                                                                                                    \
    }                                                                                                      \
  }

/* f32 through the active kernel variant (kernel_isa.h): its dot products and its
 * vectorized sigmoid and tanh (kernel_vmath.h); f64 with kernel_dot.h and libm. */
#define LSTM_DOT4_2SEG_f32 BERTH_KCALL(dot4_2seg_f32)
#define LSTM_DOT_f32 BERTH_KCALL(dot_f32)
#define LSTM_SIGMOIDS_f32 BERTH_KCALL(sigmoid_f32)
#define LSTM_TANHS_f32 BERTH_KCALL(tanh_f32)
#define LSTM_DOT4_2SEG_f64 berth_dot4_2seg_f64
#define LSTM_DOT_f64 berth_dot_f64
static void LSTM_SIGMOIDS_f64(const double *x, double *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = lstm_sigmoid_f64(x[i]);
}
static void LSTM_TANHS_f64(const double *x, double *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = lstm_tanh_f64(x[i]);
}

LSTM_FN(f32, float)
LSTM_FN(f64, double)

static void lstm_run(const berth_kernel_call_t *call) {
  const void *p[7] = {NULL};
  for (int32_t i = 0; i < call->n_in; i++) p[i] = call->in[i].data;
  lstm_dims_t d;
  lstm_shape(call->attrs, call->in[LSTM_X].type, &d);
  if (d.batch == 0) return; /* every output is empty */
  if (call->in[LSTM_X].type->dtype == BERTH_DTYPE_F32)
    lstm_run_f32(&d, (const float *)p[0], (const float *)p[1], (const float *)p[2], (const float *)p[3],
                 (const float *)p[4], (const float *)p[5], (const float *)p[6], (float *)call->out[0].data,
                 (float *)call->out[1].data, (float *)call->out[2].data);
  else
    lstm_run_f64(&d, (const double *)p[0], (const double *)p[1], (const double *)p[2], (const double *)p[3],
                 (const double *)p[4], (const double *)p[5], (const double *)p[6], (double *)call->out[0].data,
                 (double *)call->out[1].data, (double *)call->out[2].data);
}

static const berth_attr_spec_t lstm_attrs[] = {
    {"hidden_size", BERTH_ATTR_INT, true, 0, 0},
    {"direction", BERTH_ATTR_INT, false, 0, 0},
    {"layout", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_lstm = {"lstm", BERTH_OPKIND_KERNEL, 6, 7, 3, 3, lstm_attrs, lstm_infer, lstm_run};
