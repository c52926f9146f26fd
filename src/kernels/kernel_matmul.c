/* matmul(a, b): numpy matmul. A 1-D a is a row [1, k] and a 1-D b a column [k, 1], with
 * the added dim removed from the result; dims before the last two are batch dims and
 * broadcast. Both operands have the same numeric dtype; f32 accumulates in f32 (as ONNX
 * runtimes do) and integers wrap.
 *
 * Each batch is C[n, m] = A[n, k] B[k, m] in i-k-j order: four rows of C at a time take one
 * pass over a block of B, so each B element loaded feeds four multiply-adds, and the
 * innermost loop runs along contiguous rows of B and C (it vectorizes). A single column
 * (m == 1) is a dot product per row instead. Every C element sums its k products in order
 * 0..k-1 (the dot product path uses eight partial sums). f32 goes through the active kernel
 * variant's gemm_nn (kernel_isa.h), which keeps a tile of C in registers. */
#include "kernel_gemm_pack.h"
#include "kernel_scratch.h"
#include "kernel_isa.h"
#include "kernel_util.h"

#include <string.h>

typedef struct mm_plan {
  int64_t n, k, m;
  berth_type_t out;
  int32_t batch_rank;
  int64_t batch_dims[BERTH_MAX_RANK];
} mm_plan_t;

static berth_status_t mm_plan(const berth_type_t *a, const berth_type_t *b, mm_plan_t *p, berth_diag_t *diag) {
  char sa[160], sb[160];
  for (int32_t j = 0; j < 2; j++) {
    const berth_type_t *t = j ? b : a;
    if (t->rank == 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "matmul: operand %d %s is a scalar, expected rank >= 1", (int)j,
                        berth_type_format(t, sa, sizeof sa));
  }
  p->n = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  p->k = a->dims[a->rank - 1];
  int64_t kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
  p->m = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  if (kb != p->k)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "matmul: operand 0 %s has %lld columns but operand 1 %s has %lld rows, expected equal",
                      berth_type_format(a, sa, sizeof sa), (long long)p->k, berth_type_format(b, sb, sizeof sb),
                      (long long)kb);
  int32_t ra = a->rank > 2 ? a->rank - 2 : 0, rb = b->rank > 2 ? b->rank - 2 : 0;
  p->batch_rank = ra > rb ? ra : rb;
  for (int32_t q = 0; q < p->batch_rank; q++) {
    int32_t qa = q - (p->batch_rank - ra), qb = q - (p->batch_rank - rb);
    int64_t da = qa >= 0 ? a->dims[qa] : 1, db = qb >= 0 ? b->dims[qb] : 1;
    if (da != db && da != 1 && db != 1)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "matmul: batch dims of operand 0 %s and operand 1 %s do not broadcast (%lld vs %lld; "
                        "expected equal sizes or 1)",
                        berth_type_format(a, sa, sizeof sa), berth_type_format(b, sb, sizeof sb), (long long)da,
                        (long long)db);
    p->batch_dims[q] = da == 1 ? db : da;
  }
  berth_kernel_type_init(&p->out, a->dtype, 0);
  for (int32_t q = 0; q < p->batch_rank; q++) p->out.dims[p->out.rank++] = p->batch_dims[q];
  if (a->rank > 1) p->out.dims[p->out.rank++] = p->n;
  if (b->rank > 1) p->out.dims[p->out.rank++] = p->m;
  return BERTH_OK;
}

static berth_status_t matmul_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_matmul, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("matmul", 0, in[0].dtype, BERTH_MASK_NUM, diag));
  BERTH_TRY(berth_kernel_check_same_dtype("matmul", in, 0, 1, diag));
  mm_plan_t p;
  BERTH_TRY(mm_plan(&in[0], &in[1], &p, diag));
  BERTH_TRY(berth_kernel_check_output("matmul", &p.out, diag));
  out[0] = p.out;
  return BERTH_OK;
}

/* ---- per-dtype kernels --------------------------------------------------------------
 * MAC(c, a, b) is c + a * b: plain for floats, in the unsigned type U for integers. */
#define MAC_F(c, a, b, T, U) ((c) + (a) * (b))
#define MAC_I(c, a, b, T, U) (T)((U)(c) + (U)(a) * (U)(b))

typedef void (*mm_fn)(void *C, const void *A, const void *B, int64_t n, int64_t k, int64_t m);

#define MM_ROWS 4
#define MM_JBLOCK 512

#define MATMUL_FN(s, T, U, MAC)                                                                 \
  static void mm_##s(void *C_, const void *A_, const void *B_, int64_t n, int64_t k, int64_t m) { \
    T *restrict C = (T *)C_;                                                                    \
    const T *restrict A = (const T *)A_, *restrict B = (const T *)B_;                           \
    if (m == 1) {                                                                               \
      for (int64_t i = 0; i < n; i++) {                                                         \
        const T *a = A + i * k;                                                                 \
        T s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;                       \
        int64_t q = 0;                                                                          \
        for (; q + 8 <= k; q += 8) {                                                            \
          s0 = MAC(s0, a[q], B[q], T, U);                                                       \
          s1 = MAC(s1, a[q + 1], B[q + 1], T, U);                                               \
          s2 = MAC(s2, a[q + 2], B[q + 2], T, U);                                               \
          s3 = MAC(s3, a[q + 3], B[q + 3], T, U);                                               \
          s4 = MAC(s4, a[q + 4], B[q + 4], T, U);                                               \
          s5 = MAC(s5, a[q + 5], B[q + 5], T, U);                                               \
          s6 = MAC(s6, a[q + 6], B[q + 6], T, U);                                               \
          s7 = MAC(s7, a[q + 7], B[q + 7], T, U);                                               \
        }                                                                                       \
        for (; q < k; q++) s0 = MAC(s0, a[q], B[q], T, U);                                      \
        s0 = MAC(s0, s1, 1, T, U);                                                              \
        s2 = MAC(s2, s3, 1, T, U);                                                              \
        s4 = MAC(s4, s5, 1, T, U);                                                              \
        s6 = MAC(s6, s7, 1, T, U);                                                              \
        s0 = MAC(s0, s2, 1, T, U);                                                              \
        s4 = MAC(s4, s6, 1, T, U);                                                              \
        C[i] = MAC(s0, s4, 1, T, U);                                                            \
      }                                                                                         \
      return;                                                                                   \
    }                                                                                           \
    for (int64_t j0 = 0; j0 < m; j0 += MM_JBLOCK) {                                             \
      int64_t jn = m - j0 < MM_JBLOCK ? m - j0 : MM_JBLOCK;                                     \
      int64_t i = 0;                                                                            \
      for (; i + MM_ROWS <= n; i += MM_ROWS) {                                                  \
        T *restrict c0 = C + i * m + j0, *restrict c1 = c0 + m, *restrict c2 = c1 + m,          \
                    *restrict c3 = c2 + m;                                                      \
        BERTH_VLOOP(j, jn, c0[j] = 0; c1[j] = 0; c2[j] = 0; c3[j] = 0;);                       \
        for (int64_t q = 0; q < k; q++) {                                                       \
          const T *restrict b = B + q * m + j0;                                                 \
          T a0 = A[i * k + q], a1 = A[(i + 1) * k + q], a2 = A[(i + 2) * k + q],                \
            a3 = A[(i + 3) * k + q];                                                            \
          BERTH_VLOOP(j, jn, T bj = b[j]; c0[j] = MAC(c0[j], a0, bj, T, U);                     \
                      c1[j] = MAC(c1[j], a1, bj, T, U); c2[j] = MAC(c2[j], a2, bj, T, U);       \
                      c3[j] = MAC(c3[j], a3, bj, T, U););                                       \
        }                                                                                       \
      }                                                                                         \
      for (; i < n; i++) {                                                                      \
        T *restrict c0 = C + i * m + j0;                                                        \
        BERTH_VLOOP(j, jn, c0[j] = 0;);                                                         \
        for (int64_t q = 0; q < k; q++) {                                                       \
          const T *restrict b = B + q * m + j0;                                                 \
          T a0 = A[i * k + q];                                                                  \
          BERTH_VLOOP(j, jn, c0[j] = MAC(c0[j], a0, b[j], T, U););                              \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
  }

#define MM_INT(E, s, T, U) MATMUL_FN(s, T, U, MAC_I)
#define MM_FLOAT(E, s, T, U) MATMUL_FN(s, T, U, MAC_F)
BERTH_KERNEL_INT_LIST(MM_INT)
BERTH_KERNEL_FLOAT_LIST(MM_FLOAT)

/* f32 with more than one column: the packed GEMM where it pays (kernel_gemm_pack.h), else
 * the register-blocked gemm_nn of the active kernel variant (kernel_isa.h; the portable one
 * is the i-k-j loop above, in the same order). */
static void mm_f32_isa(void *C, const void *A, const void *B, int64_t n, int64_t k, int64_t m, float *buf,
                       int64_t floats) {
  if (m == 1) {
    mm_f32(C, A, B, n, k, m);
    return;
  }
  const berth_gemm_rows_t rows = {(const float *)B, m};
  if (berth_gemm_packed_try_f32((const float *)A, k, NULL, (float *)C, m, n, m, k, berth_gemm_pack_rows, &rows, buf,
                                floats))
    return;
  BERTH_KCALL(gemm_nn_f32)((const float *)A, k, (const float *)B, m, NULL, (float *)C, m, n, m, k);
}

#define MM_ENTRY(E, s, T, U) [BERTH_DTYPE_##E] = mm_##s,
static const mm_fn mm_kernels[BERTH_DTYPE_COUNT] = {BERTH_KERNEL_NUM_LIST(MM_ENTRY)};

static void matmul_run(const berth_kernel_call_t *call) {
  const berth_type_t *a = call->in[0].type, *b = call->in[1].type;
  mm_plan_t p;
  mm_plan(a, b, &p, NULL);
  size_t es = berth_dtype_size(a->dtype);
  if (berth_kernel_is_empty(&p.out)) return;
  if (p.k == 0) { /* empty sums */
    memset(call->out[0].data, 0, berth_type_bytes(&p.out));
    return;
  }
  /* Everything is nonempty now, so the products below are bounded by the operands' sizes.
   * Batch strides in matrices; 0 where an operand's batch dim is 1 or absent. */
  int64_t sa[BERTH_MAX_RANK], sb[BERTH_MAX_RANK], nb = 1;
  int32_t R = p.batch_rank, ra = a->rank > 2 ? a->rank - 2 : 0, rb = b->rank > 2 ? b->rank - 2 : 0;
  int64_t ma = 1, mb = 1;
  for (int32_t q = R - 1; q >= 0; q--) {
    int32_t qa = q - (R - ra), qb = q - (R - rb);
    sa[q] = (qa >= 0 && a->dims[qa] != 1) ? ma : 0;
    sb[q] = (qb >= 0 && b->dims[qb] != 1) ? mb : 0;
    if (qa >= 0) ma *= a->dims[qa];
    if (qb >= 0) mb *= b->dims[qb];
    nb *= p.batch_dims[q];
  }
  int64_t a_mat = p.n * p.k * (int64_t)es, b_mat = p.k * p.m * (int64_t)es, c_mat = p.n * p.m * (int64_t)es;
  mm_fn fn = mm_kernels[a->dtype];
  int64_t floats = 0; /* f32: the packed GEMM's panels, in the call's scratch */
  float *buf = a->dtype == BERTH_DTYPE_F32 ? berth_scratch_take(call, sizeof(float), &floats) : NULL;
  const char *A = (const char *)call->in[0].data, *B = (const char *)call->in[1].data;
  char *C = (char *)call->out[0].data;
  int64_t idx[BERTH_MAX_RANK] = {0}, oa = 0, ob = 0;
  for (int64_t t = 0; t < nb; t++) {
    if (a->dtype == BERTH_DTYPE_F32) mm_f32_isa(C + t * c_mat, A + oa * a_mat, B + ob * b_mat, p.n, p.k, p.m, buf, floats);
    else fn(C + t * c_mat, A + oa * a_mat, B + ob * b_mat, p.n, p.k, p.m);
    for (int32_t q = R - 1; q >= 0; q--) {
      oa += sa[q];
      ob += sb[q];
      if (++idx[q] < p.batch_dims[q]) break;
      oa -= sa[q] * p.batch_dims[q];
      ob -= sb[q] * p.batch_dims[q];
      idx[q] = 0;
    }
  }
}

uint64_t berth_scratch_matmul(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  mm_plan_t p;
  if (n_in != 2 || in[0].dtype != BERTH_DTYPE_F32 || mm_plan(&in[0], &in[1], &p, NULL) != BERTH_OK) return 0;
  if (berth_kernel_is_empty(&p.out) || p.m == 1) return 0;
  return berth_scratch_request(berth_gemm_scratch_floats(p.n, p.m, p.k), sizeof(float));
}

const berth_op_def_t berth_op_def_matmul = {"matmul", BERTH_OPKIND_KERNEL, 2, 2, 1, 0, NULL, matmul_infer, matmul_run};
