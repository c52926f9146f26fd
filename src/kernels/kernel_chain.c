/* elementwise_chain (kernel_chain.h): the chain runs block by block, CHAIN_BLOCK elements at
 * a time through two local buffers (the last instruction writes the output), so each element
 * is read and written once instead of once per op. Every instruction computes exactly what
 * its separate f32 kernel computes, the same float operations in the same order: add, sub,
 * mul, div, minimum, maximum as kernel_binary.c; relu, neg, abs, sqrt as kernel_unary.c, and exp, sigmoid and
 * tanh through the active kernel variant's functions that kernel_unary.c calls (kernel_isa.h);
 * clip as kernel_clip.c; leaky_relu, hard_sigmoid and hard_swish as kernel_activation.c (its
 * parameters rounded to f32 first, hard_sigmoid and hard_swish in double); batch_norm as
 * kernel_norm.c ((x - mean) * k + bias, k = scale / sqrt(var + eps) once per channel, eps rounded
 * to f32). So the results equal the unfused program's bit for bit, on every variant. */
#include "kernel_chain.h"
#include "kernel_dot.h"
#include "kernel_isa.h"
#include "kernel_util.h"

#include <math.h>
#include <string.h>

#define CHAIN_BLOCK 128

bool berth_chain_operand_ok(const berth_type_t *o, const berth_type_t *x, int64_t *inner, int64_t *span) {
  if (o->dtype != x->dtype || o->rank > x->rank) return false;
  const int32_t off = x->rank - o->rank;
  int32_t lo = -1, hi = -1; /* o's first and last dim other than 1, as x's axes */
  for (int32_t k = 0; k < o->rank; k++)
    if (o->dims[k] != 1) {
      if (lo < 0) lo = off + k;
      hi = off + k;
    }
  int64_t in = 1, sp = 1;
  for (int32_t a = 0; a < x->rank; a++) {
    if (lo >= 0 && a >= lo && a <= hi) {
      if (o->dims[a - off] != x->dims[a]) return false;
      sp *= x->dims[a];
    } else if (lo >= 0 && a > hi) in *= x->dims[a];
  }
  if (lo < 0) in = berth_type_numel(x); /* one element for all */
  if (inner) *inner = in ? in : 1;
  if (span) *span = sp;
  return true;
}

/* kernel_activation.c's clip to [0, 1] (it selects on the bits: the same values) */
static inline double ch_clip01(double v) {
  double lo = v < 0 ? 0.0 : v;
  return lo > 1 ? 1.0 : lo;
}

typedef struct ch_op {
  int code, operand, swap;
  float p0, p1;       /* the parameters rounded to f32 */
  double d0, d1;      /* hard_sigmoid's: (double)(float) */
  const float *k;     /* a binary op's operand */
  int64_t inner, span;
} ch_op_t;

static double ch_param(const berth_attr_value_t *a, int32_t i) {
  double d;
  int64_t b = i < a->n ? a->ints[i] : 0;
  memcpy(&d, &b, sizeof d);
  return d;
}

static void ch_unary(const ch_op_t *op, const float *restrict s, float *restrict d, int64_t n) {
  const float P0 = op->p0, P1 = op->p1;
  switch (op->code) {
    case BERTH_CHAIN_OP_RELU: BERTH_VLOOP(i, n, float A = s[i]; d[i] = A < 0 ? 0.0f : A;); break;
    case BERTH_CHAIN_OP_NEG: BERTH_VLOOP(i, n, d[i] = -s[i];); break;
    case BERTH_CHAIN_OP_ABS: BERTH_VLOOP(i, n, d[i] = fabsf(s[i]);); break;
    case BERTH_CHAIN_OP_SQRT: BERTH_VLOOP(i, n, d[i] = sqrtf(s[i]);); break;
    case BERTH_CHAIN_OP_EXP: BERTH_KCALL(exp_f32)(s, d, n); break;
    case BERTH_CHAIN_OP_SIGMOID: BERTH_KCALL(sigmoid_f32)(s, d, n); break;
    case BERTH_CHAIN_OP_TANH: BERTH_KCALL(tanh_f32)(s, d, n); break;
    case BERTH_CHAIN_OP_CLIP: BERTH_VLOOP(i, n, float v = s[i] < P0 ? P0 : s[i]; d[i] = v > P1 ? P1 : v;); break;
    case BERTH_CHAIN_OP_LEAKY_RELU: BERTH_VLOOP(i, n, float x = s[i]; d[i] = x < 0 ? P0 * x : x;); break;
    case BERTH_CHAIN_OP_HARD_SIGMOID: {
      const double a = op->d0, b = op->d1;
      BERTH_VLOOP(i, n, float x = s[i]; d[i] = (float)ch_clip01(a * x + b););
      break;
    }
    case BERTH_CHAIN_OP_HARD_SWISH:
      BERTH_VLOOP(i, n, float x = s[i]; d[i] = (float)((double)x * ch_clip01(((double)x + 3.0) / 6.0)););
      break;
    default: break;
  }
}

/* d = s op k over n elements; kv: k a vector (kp) or one value (kc) */
#define CH_BIN(EXPR_AK, EXPR_KA)                                                  \
  do {                                                                            \
    if (kp && !op->swap) BERTH_VLOOP(i, n, float A = s[i]; float K = kp[i]; d[i] = EXPR_AK;); \
    else if (kp) BERTH_VLOOP(i, n, float A = s[i]; float K = kp[i]; d[i] = EXPR_KA;);         \
    else if (!op->swap) BERTH_VLOOP(i, n, float A = s[i]; float K = kc; d[i] = EXPR_AK;);      \
    else BERTH_VLOOP(i, n, float A = s[i]; float K = kc; d[i] = EXPR_KA;);                     \
  } while (0)

static void ch_binary_run(const ch_op_t *op, const float *restrict s, float *restrict d, int64_t n,
                          const float *restrict kp, float kc) {
  switch (op->code) {
    case BERTH_CHAIN_OP_ADD: CH_BIN(A + K, K + A); break;
    case BERTH_CHAIN_OP_SUB: CH_BIN(A - K, K - A); break;
    case BERTH_CHAIN_OP_MUL: CH_BIN(A * K, K * A); break;
    case BERTH_CHAIN_OP_DIV: CH_BIN(A / K, K / A); break;
    case BERTH_CHAIN_OP_MINIMUM: CH_BIN((A < K || A != A) ? A : K, (K < A || K != K) ? K : A); break;
    case BERTH_CHAIN_OP_MAXIMUM: CH_BIN((A > K || A != A) ? A : K, (K > A || K != K) ? K : A); break;
    default: break;
  }
}

/* elements [start, start + n) of the chain value against the operand's matching elements */
static void ch_binary(const ch_op_t *op, const float *s, float *d, int64_t n, int64_t start) {
  int64_t j = 0;
  while (j < n) {
    const int64_t g = start + j, bi = (g / op->inner) % op->span;
    int64_t run;
    if (op->inner == 1) {
      run = op->span - bi;
      run = run < n - j ? run : n - j;
      ch_binary_run(op, s + j, d + j, run, op->k + bi, 0.0f);
    } else {
      run = op->inner - g % op->inner;
      run = run < n - j ? run : n - j;
      ch_binary_run(op, s + j, d + j, run, NULL, op->k[bi]);
    }
    j += run;
  }
}

/* batch_norm: the channel of element i is (i / inner) % span */
static void ch_batch_norm(const ch_op_t *op, const berth_kernel_call_t *call, const float *s, float *d, int64_t n,
                          int64_t start) {
  const float *sc = (const float *)call->in[op->operand].data, *bi = (const float *)call->in[op->operand + 1].data;
  const float *mu = (const float *)call->in[op->operand + 2].data, *va = (const float *)call->in[op->operand + 3].data;
  const float eps = op->p0;
  for (int64_t j = 0; j < n;) {
    const int64_t g = start + j, c = (g / op->inner) % op->span;
    int64_t run = op->inner - g % op->inner;
    run = run < n - j ? run : n - j;
    const float k = sc[c] / sqrtf(va[c] + eps), m = mu[c], o = bi[c]; /* as kernel_norm.c's batch_norm */
    const float *restrict xr = s + j;
    float *restrict yr = d + j;
    BERTH_VLOOP(i, run, yr[i] = (xr[i] - m) * k + o;);
    j += run;
  }
}

static int32_t ch_decode(const berth_kernel_call_t *call, ch_op_t *ops) {
  const berth_attr_value_t *code = &call->attrs[0];
  for (int32_t i = 0; i < code->n; i++) {
    ch_op_t *op = &ops[i];
    memset(op, 0, sizeof *op);
    op->code = (int)(code->ints[i] & 0xFF);
    op->operand = (int)((code->ints[i] >> 8) & 0xFF);
    op->swap = (int)((code->ints[i] >> 16) & 1);
    const double a = ch_param(&call->attrs[1], i), b = ch_param(&call->attrs[2], i);
    op->p0 = (float)a;
    op->p1 = (float)b;
    op->d0 = (double)op->p0;
    op->d1 = (double)op->p1;
    if (op->code == BERTH_CHAIN_OP_BATCH_NORM) {
      const berth_type_t *x = call->in[0].type;
      op->span = x->dims[1];
      op->inner = 1;
      for (int32_t a = 2; a < x->rank; a++) op->inner *= x->dims[a];
      if (!op->inner) op->inner = 1;
    } else if (op->code >= BERTH_CHAIN_OP_ADD) {
      op->k = (const float *)call->in[op->operand].data;
      berth_chain_operand_ok(call->in[op->operand].type, call->in[0].type, &op->inner, &op->span);
    }
  }
  return (int32_t)code->n;
}

#if BERTH_DOT_VECTOR
/* ---- the plane path ---------------------------------------------------------------------
 * When every operand is constant along runs of P elements (a per-channel or scalar operand,
 * batch_norm: P divides the operand's inner) or walks them in step (a same-shape operand:
 * inner 1 and P divides its span), and every instruction is one of those below, the chain
 * runs plane by plane: each instruction's constants once per plane, and the whole chain on
 * 8 vectors of 4 floats held in registers, one dispatch per instruction for CH_W elements. Each lane computes the block path's float expression for its element (the same
 * operations, no contraction), so the results are the same bits. A plane's tail goes
 * through the same code on a zero-padded copy. */
#define CH_W 32 /* 8 vectors of 4 */
typedef int32_t ch_v4i __attribute__((vector_size(16)));

typedef struct ch_step {
  int op;          /* code * 4 + swap * 2 + (kp != NULL) */
  float a, b, c;   /* the constants: K, or batch_norm's mean, k and bias, or clip's min and max */
  const float *kp; /* a same-shape operand's elements of this plane, or NULL */
} ch_step_t;

static bool ch_plane_op_ok(const ch_op_t *op, int64_t P) {
  switch (op->code) {
    case BERTH_CHAIN_OP_RELU: case BERTH_CHAIN_OP_NEG: case BERTH_CHAIN_OP_ABS: case BERTH_CHAIN_OP_CLIP:
    case BERTH_CHAIN_OP_LEAKY_RELU: return true;
    case BERTH_CHAIN_OP_BATCH_NORM: return op->inner % P == 0;
    default: return op->code >= BERTH_CHAIN_OP_ADD && (op->inner % P == 0 || (op->inner == 1 && op->span % P == 0));
  }
}

/* The longest run P (>= CH_W) of the chain's value that every instruction allows: the whole
 * tensor, one image, or one channel plane; 0 if none. */
static int64_t ch_plane_len(const ch_op_t *ops, int32_t n_ops, const berth_type_t *x) {
  int64_t cand[3] = {berth_type_numel(x), 1, 1};
  for (int32_t a = 1; a < x->rank; a++) cand[1] *= x->dims[a];
  for (int32_t a = 2; a < x->rank; a++) cand[2] *= x->dims[a];
  for (int k = 0; k < 3; k++) {
    const int64_t P = cand[k];
    bool ok = P >= CH_W;
    for (int32_t i = 0; ok && i < n_ops; i++) ok = ch_plane_op_ok(&ops[i], P);
    if (ok) return P;
  }
  return 0;
}

static inline berth_v4f ch_splat(float v) { return (berth_v4f){v, v, v, v}; }
static inline berth_v4f ch_sel(ch_v4i m, berth_v4f a, berth_v4f b) { /* m ? a : b, lanewise */
  return (berth_v4f)(((ch_v4i)a & m) | ((ch_v4i)b & ~m));
}

/* Apply EXPR (of A, the running value, and K, the operand) to the 8 vectors v0..v7 in
 * registers; KX(j) is vector j's operand. */
#define CH_K_CONST(j) a
#define CH_K_PLANE(j) berth_ld_f32(kp + 4 * (j))
#define CH_ONE(V, J, KX, EXPR)         \
  {                                    \
    const berth_v4f A = V, K = KX(J);  \
    (void)K;                           \
    V = EXPR;                          \
  }
#define CH_ALL(KX, EXPR)                                                                                        \
  CH_ONE(v0, 0, KX, EXPR) CH_ONE(v1, 1, KX, EXPR) CH_ONE(v2, 2, KX, EXPR) CH_ONE(v3, 3, KX, EXPR)               \
  CH_ONE(v4, 4, KX, EXPR) CH_ONE(v5, 5, KX, EXPR) CH_ONE(v6, 6, KX, EXPR) CH_ONE(v7, 7, KX, EXPR) break
/* a step's dispatch index: code * 4 + swap * 2 + (a same-shape operand) */
#define CH_CASE_UNARY(OP, EXPR) case 4 * (OP): CH_ALL(CH_K_CONST, EXPR);
#define CH_CASE_BINARY(OP, EXPR_AK, EXPR_KA)          \
  case 4 * (OP): CH_ALL(CH_K_CONST, EXPR_AK);         \
  case 4 * (OP) + 1: CH_ALL(CH_K_PLANE, EXPR_AK);     \
  case 4 * (OP) + 2: CH_ALL(CH_K_CONST, EXPR_KA);     \
  case 4 * (OP) + 3: CH_ALL(CH_K_PLANE, EXPR_KA);

/* y[0 .. CH_W) = the chain of x[0 .. CH_W); a step's kp is read at kp[off ..] */
static void ch_plane_block(const ch_step_t *st, int32_t n, const float *x, float *y, int64_t off) {
  berth_v4f v0 = berth_ld_f32(x), v1 = berth_ld_f32(x + 4), v2 = berth_ld_f32(x + 8), v3 = berth_ld_f32(x + 12);
  berth_v4f v4 = berth_ld_f32(x + 16), v5 = berth_ld_f32(x + 20), v6 = berth_ld_f32(x + 24), v7 = berth_ld_f32(x + 28);
  const berth_v4f z = ch_splat(0.0f);
  const ch_v4i abs_mask = {~INT32_MIN, ~INT32_MIN, ~INT32_MIN, ~INT32_MIN};
  for (int32_t s = 0; s < n; s++) {
    const ch_step_t *t = &st[s];
    const berth_v4f a = ch_splat(t->a);
    const float *kp = t->kp ? t->kp + off : NULL;
    switch (t->op) {
      CH_CASE_UNARY(BERTH_CHAIN_OP_RELU, ch_sel(A < z, z, A))
      CH_CASE_UNARY(BERTH_CHAIN_OP_NEG, -A)
      CH_CASE_UNARY(BERTH_CHAIN_OP_ABS, (berth_v4f)((ch_v4i)A & abs_mask))
      CH_CASE_UNARY(BERTH_CHAIN_OP_LEAKY_RELU, ch_sel(A < z, a * A, A))
      case 4 * BERTH_CHAIN_OP_CLIP: {
        const berth_v4f b = ch_splat(t->b);
        CH_ALL(CH_K_CONST, ch_sel(ch_sel(A < a, a, A) > b, b, ch_sel(A < a, a, A)));
      }
      case 4 * BERTH_CHAIN_OP_BATCH_NORM: {
        const berth_v4f b = ch_splat(t->b), c = ch_splat(t->c);
        CH_ALL(CH_K_CONST, (A - a) * b + c);
      }
      CH_CASE_BINARY(BERTH_CHAIN_OP_ADD, A + K, K + A)
      CH_CASE_BINARY(BERTH_CHAIN_OP_SUB, A - K, K - A)
      CH_CASE_BINARY(BERTH_CHAIN_OP_MUL, A * K, K * A)
      CH_CASE_BINARY(BERTH_CHAIN_OP_DIV, A / K, K / A)
      CH_CASE_BINARY(BERTH_CHAIN_OP_MINIMUM, ch_sel((A < K) | (A != A), A, K), ch_sel((K < A) | (K != K), K, A))
      CH_CASE_BINARY(BERTH_CHAIN_OP_MAXIMUM, ch_sel((A > K) | (A != A), A, K), ch_sel((K > A) | (K != K), K, A))
      default: break;
    }
  }
  memcpy(y, &v0, 16), memcpy(y + 4, &v1, 16), memcpy(y + 8, &v2, 16), memcpy(y + 12, &v3, 16);
  memcpy(y + 16, &v4, 16), memcpy(y + 20, &v5, 16), memcpy(y + 24, &v6, 16), memcpy(y + 28, &v7, 16);
}
#undef CH_CASE_BINARY
#undef CH_CASE_UNARY
#undef CH_ALL
#undef CH_ONE
#undef CH_K_PLANE
#undef CH_K_CONST

/* The chain over the elements [g, g + P) of one plane, its steps' constants set. */
static void ch_plane(ch_step_t *st, int32_t n_ops, const float *x, float *y, int64_t P) {
  int64_t i = 0;
  for (; i + CH_W <= P; i += CH_W) ch_plane_block(st, n_ops, x + i, y + i, i);
  if (i == P) return;
  const int64_t r = P - i;
  float xt[CH_W] = {0}, yt[CH_W], kt[BERTH_CHAIN_MAX][CH_W];
  memcpy(xt, x + i, (size_t)r * sizeof *xt);
  for (int32_t s = 0; s < n_ops; s++)
    if (st[s].kp) {
      memset(kt[s], 0, sizeof kt[s]);
      memcpy(kt[s], st[s].kp + i, (size_t)r * sizeof(float));
      st[s].kp = kt[s];
    }
  ch_plane_block(st, n_ops, xt, yt, 0);
  memcpy(y + i, yt, (size_t)r * sizeof *yt);
}

static void ch_planes_run(const berth_kernel_call_t *call, const ch_op_t *ops, int32_t n_ops, int64_t P) {
  const int64_t n = berth_type_numel(call->in[0].type);
  const float *x = (const float *)call->in[0].data;
  float *y = (float *)call->out[0].data;
  ch_step_t st[BERTH_CHAIN_MAX];
  for (int64_t g = 0; g < n; g += P) {
    for (int32_t i = 0; i < n_ops; i++) {
      const ch_op_t *op = &ops[i];
      ch_step_t *t = &st[i];
      t->a = op->p0;
      t->b = op->p1;
      t->kp = NULL;
      if (op->code == BERTH_CHAIN_OP_BATCH_NORM) {
        const int64_t c = (g / op->inner) % op->span;
        const float sc = ((const float *)call->in[op->operand].data)[c];
        const float va = ((const float *)call->in[op->operand + 3].data)[c];
        t->a = ((const float *)call->in[op->operand + 2].data)[c];
        t->b = sc / sqrtf(va + op->p0); /* as kernel_norm.c's batch_norm */
        t->c = ((const float *)call->in[op->operand + 1].data)[c];
      } else if (op->code >= BERTH_CHAIN_OP_ADD) {
        if (op->inner % P == 0) t->a = op->k[(g / op->inner) % op->span];
        else t->kp = op->k + g % op->span;
      }
      t->op = op->code * 4 + op->swap * 2 + (t->kp != NULL);
    }
    ch_plane(st, n_ops, x + g, y + g, P);
  }
}
#endif

static void chain_run(const berth_kernel_call_t *call) {
  ch_op_t ops[BERTH_CHAIN_MAX];
  const int32_t n_ops = ch_decode(call, ops);
  const int64_t n = berth_type_numel(call->in[0].type);
  const float *x = (const float *)call->in[0].data;
  float *y = (float *)call->out[0].data;
#if BERTH_DOT_VECTOR
  const int64_t P = n ? ch_plane_len(ops, n_ops, call->in[0].type) : 0;
  if (P) {
    ch_planes_run(call, ops, n_ops, P);
    return;
  }
#endif
  float buf[2][CHAIN_BLOCK];
  for (int64_t start = 0; start < n; start += CHAIN_BLOCK) {
    const int64_t len = n - start < CHAIN_BLOCK ? n - start : CHAIN_BLOCK;
    const float *s = x + start;
    for (int32_t i = 0; i < n_ops; i++) {
      float *d = i == n_ops - 1 ? y + start : buf[i & 1];
      if (ops[i].code == BERTH_CHAIN_OP_BATCH_NORM) ch_batch_norm(&ops[i], call, s, d, len, start);
      else if (ops[i].code >= BERTH_CHAIN_OP_ADD) ch_binary(&ops[i], s, d, len, start);
      else ch_unary(&ops[i], s, d, len);
      s = d;
    }
  }
}

/* batch_norm's operands k..k+3: f32 [C], C x's axis 1 (rank >= 2) */
static berth_status_t ch_check_bn(const berth_type_t *in, int32_t n_in, int32_t i, int32_t k, berth_diag_t *diag) {
  char sa[160];
  if (in[0].rank < 2 || k + 3 >= n_in)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "elementwise_chain: instruction %d is batch_norm of operands %d to %d of %d on %s, expected "
                      "rank >= 2",
                      (int)i, (int)k, (int)k + 3, (int)n_in, berth_type_format(&in[0], sa, sizeof sa));
  for (int32_t q = k; q < k + 4; q++)
    if (in[q].dtype != BERTH_DTYPE_F32 || in[q].rank != 1 || in[q].dims[0] != in[0].dims[1])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "elementwise_chain: operand %d is %s, expected f32[%lld]",
                        (int)q, berth_type_format(&in[q], sa, sizeof sa), (long long)in[0].dims[1]);
  return BERTH_OK;
}

static berth_status_t chain_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  char sa[160], sb[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_elementwise_chain, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("elementwise_chain", 0, in[0].dtype, 1u << BERTH_DTYPE_F32, diag));
  const berth_attr_value_t *code = &attrs[0];
  if (code->n < 1 || code->n > BERTH_CHAIN_MAX || attrs[1].n != code->n || attrs[2].n != code->n)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "elementwise_chain: code has %d instructions and p0, p1 %d and %d, expected 1 to %d each",
                      (int)code->n, (int)attrs[1].n, (int)attrs[2].n, BERTH_CHAIN_MAX);
  for (int32_t i = 0; i < code->n; i++) {
    const int64_t c = code->ints[i], op = c & 0xFF, k = (c >> 8) & 0xFF;
    const bool binary = op >= BERTH_CHAIN_OP_ADD;
    if (op < 1 || op >= BERTH_CHAIN_OP_END || (c >> 17) != 0 || (binary ? k < 1 || k >= n_in : k != 0 || (c >> 16)))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "elementwise_chain: instruction %d is %lld, expected an op 1 to %d, a binary op's operand 1 to "
                        "%d (a unary op's 0) and swap 0 or 1",
                        (int)i, (long long)c, BERTH_CHAIN_OP_END - 1, (int)n_in - 1);
    if (op == BERTH_CHAIN_OP_BATCH_NORM) {
      BERTH_TRY(ch_check_bn(in, n_in, (int32_t)i, (int32_t)k, diag));
      continue;
    }
    if (binary && !berth_chain_operand_ok(&in[k], &in[0], NULL, NULL))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "elementwise_chain: operand %d is %s, expected the dtype of %s and a shape that broadcasts "
                        "along one run of its dims",
                        (int)k, berth_type_format(&in[k], sa, sizeof sa), berth_type_format(&in[0], sb, sizeof sb));
  }
  out[0] = in[0];
  return BERTH_OK;
}

static const berth_attr_spec_t chain_attrs[] = {
    {"code", BERTH_ATTR_INTS, true, 0, 0},
    {"p0", BERTH_ATTR_INTS, true, 0, 0},
    {"p1", BERTH_ATTR_INTS, true, 0, 0},
};
const berth_op_def_t berth_op_def_elementwise_chain = {"elementwise_chain", BERTH_OPKIND_KERNEL, 1, 1 + 4 * BERTH_CHAIN_MAX,
                                                       1, 3, chain_attrs, chain_infer, chain_run};
