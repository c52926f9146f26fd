/* gemm(A, B[, C]) {alpha, beta, trans_a, trans_b}: ONNX Gemm,
 *   Y[M, N] = alpha * A' B' + beta * C,   A' = trans_a ? A^T : A,  B' = trans_b ? B^T : B,
 * with A' [M, K], B' [K, N] and C (rank 0 to 2) broadcast one way to [M, N]. All operands
 * share a numeric dtype. f32 accumulates in f32; integers wrap (arithmetic in the unsigned
 * type), and for them alpha and beta must be integers. beta * C is added even when beta is
 * 0 (so a NaN in C shows), as the ONNX reference does.
 *
 * trans_b = 1 with trans_a = 0 (the layout of fully connected layers: weight rows
 * contiguous) runs as dot products (f32: the register-blocked dot4xn of the active kernel
 * variant, kernel_isa.h; f64: four B rows against one A row, kernel_dot.h); the
 * other layouts run in i-k-j order with the innermost loop along a row of B' where B' is
 * not transposed. f32 with neither transposed takes the packed GEMM where it pays (kernel_gemm_pack.h: B
 * packed into panels, a micro-kernel of the active variant). With trans_b, packing B^T is a
 * transposition that costs more than it saves at FC-layer sizes (measured: 50 % of peak
 * with dot4xn, 24 % packed for 64x1024 * (1000x1024)^T), so the dot products stay. */
#include "kernel_dot.h"
#include "kernel_gemm_pack.h"
#include "kernel_scratch.h"
#include "kernel_isa.h"
#include "kernel_util.h"

#include <string.h>

enum { GEMM_ALPHA, GEMM_BETA, GEMM_TRANS_A, GEMM_TRANS_B };

typedef struct gemm_plan {
  int64_t m, k, n, c_rows, c_cols; /* C's extent along M and N: 1 (broadcast) or the full size */
  bool ta, tb;
} gemm_plan_t;

static berth_status_t gemm_plan(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, gemm_plan_t *p,
                                berth_diag_t *diag) {
  char sa[160], sb[160];
  BERTH_TRY(berth_kernel_get_flag("gemm", "trans_a", &attrs[GEMM_TRANS_A], &p->ta, diag));
  BERTH_TRY(berth_kernel_get_flag("gemm", "trans_b", &attrs[GEMM_TRANS_B], &p->tb, diag));
  for (int32_t i = 0; i < 2; i++)
    if (in[i].rank != 2)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "gemm: operand %d %s has rank %d, expected a matrix (rank 2)",
                        (int)i, berth_type_format(&in[i], sa, sizeof sa), (int)in[i].rank);
  const berth_type_t *a = &in[0], *b = &in[1];
  p->m = a->dims[p->ta ? 1 : 0];
  p->k = a->dims[p->ta ? 0 : 1];
  int64_t kb = b->dims[p->tb ? 1 : 0];
  p->n = b->dims[p->tb ? 0 : 1];
  if (kb != p->k)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "gemm: A%s %s gives K = %lld but B%s %s gives K = %lld, expected equal",
                      p->ta ? " (transposed)" : "", berth_type_format(a, sa, sizeof sa), (long long)p->k,
                      p->tb ? " (transposed)" : "", berth_type_format(b, sb, sizeof sb), (long long)kb);
  p->c_rows = p->c_cols = 1;
  if (n_in == 3) {
    const berth_type_t *c = &in[2];
    bool ok = c->rank <= 2;
    if (ok && c->rank >= 1) {
      p->c_cols = c->dims[c->rank - 1];
      ok = p->c_cols == 1 || p->c_cols == p->n;
    }
    if (ok && c->rank == 2) {
      p->c_rows = c->dims[0];
      ok = p->c_rows == 1 || p->c_rows == p->m;
    }
    if (!ok)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "gemm: C %s does not broadcast to the result [%lld,%lld] (expected rank <= 2 with dims 1 or "
                        "equal)",
                        berth_type_format(c, sa, sizeof sa), (long long)p->m, (long long)p->n);
  }
  return BERTH_OK;
}

static berth_status_t gemm_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                 berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_gemm, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("gemm", 0, in[0].dtype, BERTH_MASK_NUM, diag));
  for (int32_t i = 1; i < n_in; i++) BERTH_TRY(berth_kernel_check_same_dtype("gemm", in, 0, i, diag));
  gemm_plan_t p;
  BERTH_TRY(gemm_plan(attrs, in, n_in, &p, diag));
  if (berth_dtype_is_int(in[0].dtype)) {
    for (int32_t i = GEMM_ALPHA; i <= GEMM_BETA; i++)
      if (!attrs[i].n)
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "gemm: %s is %g, expected an integer for dtype %s",
                          i == GEMM_ALPHA ? "alpha" : "beta", attrs[i].f, berth_dtype_name(in[0].dtype));
  }
  berth_type_t t;
  berth_kernel_type_init(&t, in[0].dtype, 2);
  t.dims[0] = p.m;
  t.dims[1] = p.n;
  BERTH_TRY(berth_kernel_check_output("gemm", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

/* ---- run ----------------------------------------------------------------------------
 * MAC(c, a, b) = c + a * b and MUL(a, b): plain for floats, in U for integers. */
#define GEMM_MAC_F(c, a, b, T, U) ((c) + (a) * (b))
#define GEMM_MAC_I(c, a, b, T, U) (T)((U)(c) + (U)(a) * (U)(b))
#define GEMM_MUL_F(a, b, T, U) ((a) * (b))
#define GEMM_MUL_I(a, b, T, U) (T)((U)(a) * (U)(b))

#define GEMM_FN(s, T, U, MAC, MUL)                                                                          \
  /* Y = A' B' in i-k-j order (any transposition). */                                                      \
  static void gemm_ikj_##s(const gemm_plan_t *p, const T *A, const T *B, T *Y) {                            \
    const int64_t M = p->m, K = p->k, N = p->n;                                                             \
    const int64_t sam = p->ta ? 1 : K, sak = p->ta ? M : 1; /* A'[i,k] = A[i*sam + k*sak] */                \
    for (int64_t i = 0; i < M; i++) {                                                                       \
      T *restrict y = Y + i * N;                                                                            \
      for (int64_t j = 0; j < N; j++) y[j] = 0;                                                             \
      for (int64_t q = 0; q < K; q++) {                                                                     \
        const T a = A[i * sam + q * sak];                                                                   \
        if (!p->tb) {                                                                                       \
          const T *restrict b = B + q * N;                                                                  \
          BERTH_VLOOP(j, N, y[j] = MAC(y[j], a, b[j], T, U););                                              \
        } else {                                                                                            \
          for (int64_t j = 0; j < N; j++) y[j] = MAC(y[j], a, B[j * K + q], T, U);                          \
        }                                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
  }                                                                                                         \
  /* Y = alpha * Y + beta * C. */                                                                           \
  static void gemm_epilogue_##s(const gemm_plan_t *p, T alpha, T beta, const T *C, T *Y) {                  \
    const int64_t N = p->n;                                                                                 \
    for (int64_t i = 0; i < p->m; i++) {                                                                    \
      T *restrict y = Y + i * N;                                                                            \
      if (alpha != 1) BERTH_VLOOP(j, N, y[j] = MUL(alpha, y[j], T, U););                                    \
      if (!C) continue;                                                                                     \
      const T *restrict c = C + (p->c_rows == 1 ? 0 : i) * p->c_cols;                                       \
      if (p->c_cols == 1) {                                                                                 \
        const T cv = MUL(beta, c[0], T, U);                                                                 \
        BERTH_VLOOP(j, N, y[j] = MAC(y[j], cv, 1, T, U););                                                  \
      } else {                                                                                              \
        BERTH_VLOOP(j, N, y[j] = MAC(y[j], beta, c[j], T, U););                                             \
      }                                                                                                     \
    }                                                                                                       \
  }

#define GEMM_INT(E, s, T, U) GEMM_FN(s, T, U, GEMM_MAC_I, GEMM_MUL_I)
#define GEMM_FLOAT(E, s, T, U) GEMM_FN(s, T, U, GEMM_MAC_F, GEMM_MUL_F)
BERTH_KERNEL_INT_LIST(GEMM_INT)
BERTH_KERNEL_FLOAT_LIST(GEMM_FLOAT)

/* Y = A B^T as dot products (trans_a 0, trans_b 1), floats only. */
#define GEMM_DOT_FN(s, T)                                                                                   \
  static void gemm_dot_##s(const gemm_plan_t *p, const T *A, const T *B, T *Y) {                            \
    const int64_t M = p->m, K = p->k, N = p->n;                                                             \
    for (int64_t i = 0; i < M; i++) {                                                                       \
      const T *a = A + i * K;                                                                               \
      T *y = Y + i * N;                                                                                     \
      int64_t j = 0;                                                                                        \
      for (; j + 4 <= N; j += 4) {                                                                          \
        const T *b = B + j * K;                                                                             \
        berth_dot4_##s(b, b + K, b + 2 * K, b + 3 * K, a, K, y + j);                                        \
      }                                                                                                     \
      for (; j < N; j++) y[j] = berth_dot_##s(B + j * K, a, K);                                             \
    }                                                                                                       \
  }
GEMM_DOT_FN(f64, double)

/* f32 through the kernel variant (kernel_isa.h): four rows of A against blocks of B rows
 * (each loaded B row serves four outputs), or for fewer than four rows of A (a fully
 * connected layer on one input) four rows of B against each row of A. */
static void gemm_dot_f32(const gemm_plan_t *p, const float *A, const float *B, float *Y) {
  const int64_t M = p->m, K = p->k, N = p->n;
  for (int64_t i = 0; i < M * N; i++) Y[i] = 0;
  int64_t i = 0;
  if (M >= 4) {
    /* B in blocks of rows that stay in L2 (128 KiB) while every 4 rows of A pass over them */
    const int64_t nb = K > 8192 ? 4 : K > 0 ? 32768 / K : N;
    const int64_t m4 = M / 4 * 4;
    for (int64_t j0 = 0; j0 < N; j0 += nb) {
      const int64_t jn = N - j0 < nb ? N - j0 : nb;
      for (int64_t r = 0; r < m4; r += 4)
        BERTH_KCALL(dot4xn_f32)(A + r * K, K, B + j0 * K, K, jn, K, Y + r * N + j0, N);
    }
    i = m4;
  }
  for (; i < M; i++) {
    const float *a = A + i * K;
    float *y = Y + i * N;
    int64_t j = 0;
    for (; j + 4 <= N; j += 4) BERTH_KCALL(dot4xn_f32)(B + j * K, K, a, K, 1, K, y + j, 1);
    for (; j < N; j++) y[j] = BERTH_KCALL(dot_f32)(B + j * K, a, K);
  }
}

#define GEMM_CASE(E, s, T, U)                                                                               \
  case BERTH_DTYPE_##E: {                                                                                   \
    const T *A = (const T *)call->in[0].data, *B = (const T *)call->in[1].data;                             \
    T *Y = (T *)call->out[0].data;                                                                          \
    gemm_ikj_##s(&p, A, B, Y);                                                                              \
    gemm_epilogue_##s(&p, (T)attrs[GEMM_ALPHA].i, (T)attrs[GEMM_BETA].i, C ? (const T *)C : NULL, Y);       \
    break;                                                                                                  \
  }

static void gemm_run(const berth_kernel_call_t *call) {
  const berth_attr_value_t *attrs = call->attrs;
  berth_type_t in[3];
  for (int32_t i = 0; i < call->n_in; i++) in[i] = *call->in[i].type;
  gemm_plan_t p;
  gemm_plan(attrs, in, call->n_in, &p, NULL);
  if (p.m == 0 || p.n == 0) return;
  const void *C = call->n_in == 3 ? call->in[2].data : NULL;
  switch (in[0].dtype) {
    BERTH_KERNEL_INT_LIST(GEMM_CASE)
    case BERTH_DTYPE_F32: {
      const float *A = (const float *)call->in[0].data, *B = (const float *)call->in[1].data;
      float *Y = (float *)call->out[0].data;
      const berth_gemm_rows_t rows = {B, p.n};
      int64_t floats;
      float *buf = berth_scratch_take(call, sizeof(float), &floats);
      if (p.tb && !p.ta) gemm_dot_f32(&p, A, B, Y);
      else if (p.ta ||
               !berth_gemm_packed_try_f32(A, p.k, NULL, Y, p.n, p.m, p.n, p.k, berth_gemm_pack_rows, &rows, buf, floats))
        gemm_ikj_f32(&p, A, B, Y);
      gemm_epilogue_f32(&p, (float)attrs[GEMM_ALPHA].f, (float)attrs[GEMM_BETA].f, (const float *)C, Y);
      break;
    }
    case BERTH_DTYPE_F64: {
      const double *A = (const double *)call->in[0].data, *B = (const double *)call->in[1].data;
      double *Y = (double *)call->out[0].data;
      if (p.tb && !p.ta) gemm_dot_f64(&p, A, B, Y);
      else gemm_ikj_f64(&p, A, B, Y);
      gemm_epilogue_f64(&p, attrs[GEMM_ALPHA].f, attrs[GEMM_BETA].f, (const double *)C, Y);
      break;
    }
    default: break;
  }
}

uint64_t berth_scratch_gemm(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  gemm_plan_t p;
  if (n_in < 2 || n_in > 3 || in[0].dtype != BERTH_DTYPE_F32 || gemm_plan(attrs, in, n_in, &p, NULL) != BERTH_OK)
    return 0;
  if (p.ta || p.tb || p.m == 0 || p.n == 0) return 0; /* the packed path takes neither transposed */
  return berth_scratch_request(berth_gemm_scratch_floats(p.m, p.n, p.k), sizeof(float));
}

static const berth_attr_spec_t gemm_attrs[] = {
    {"alpha", BERTH_ATTR_SCALAR, false, 0, 1},
    {"beta", BERTH_ATTR_SCALAR, false, 0, 1},
    {"trans_a", BERTH_ATTR_INT, false, 0, 0},
    {"trans_b", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_gemm = {"gemm", BERTH_OPKIND_KERNEL, 2, 3, 1, 4, gemm_attrs, gemm_infer, gemm_run};
