/* The body of a wide-vector kernel variant (kernel_isa.h), included once per instruction
 * set by a file compiled with that set's target flags and fused multiply-adds allowed:
 *
 *   #define ISA_VB 32            // vector bytes
 *   #define ISA_NC 3             // columns of dot4xn's register block (4 x ISA_NC sums)
 *   #define ISA_MR 6             // rows of gemm_nn's register block (ISA_MR x 2 vectors)
 *   #define ISA_ID BERTH_KERNELS_AVX2
 *   #define ISA_TABLE berth_kernel_isa_avx2
 *   #include "kernel_isa_simd.h"
 *
 * Written with GCC/clang vector types, so the one body serves every width; the target
 * flags of the including file decide the instructions. Register blocking (the structure of
 * BLIS / MLAS micro-kernels): dot4xn keeps 4 x NC vector sums in registers, so each loaded
 * weight vector serves NC columns and each column vector 4 rows; gemm_nn keeps an MR x 2
 * vector tile of C in registers for the whole reduction. Tails shorter than a vector are
 * masked loads (zeros in the other lanes, no reads past the end), so no result depends on
 * the alignment of an operand. On x86 the tails are masked loads (immintrin.h); elsewhere
 * (AArch64 NEON, kernel_isa_neon.c) a copy of the k floats into a zeroed vector. */
#include "kernel_isa.h"
#include "kernel_vmath.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ISA_X86 1
#else
#define ISA_X86 0
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif
#include <stdint.h>
#include <string.h>

#define ISA_VW (ISA_VB / 4)
#define ISA_CAT2(a, b) a##b
#define ISA_CAT(a, b) ISA_CAT2(a, b)
#define ISA_FN(name) ISA_CAT(ISA_CAT(isa_, ISA_VB), _##name)

typedef float ISA_FN(vf) __attribute__((vector_size(ISA_VB)));
typedef float ISA_FN(v4) __attribute__((vector_size(16)));
#define VF ISA_FN(vf)
#define V4 ISA_FN(v4)

static inline VF ISA_FN(ld)(const float *p) {
  VF v;
  memcpy(&v, p, sizeof v);
  return v;
}
/* the first k (0 < k <= ISA_VW) floats of p, zeros after: a masked load, which reads (and
 * faults on) only those k */
static inline VF ISA_FN(ld_part)(const float *p, int64_t k) {
  VF v;
#if !ISA_X86
  v = (VF){0};
  memcpy(&v, p, (size_t)k * sizeof(float));
#else
#if ISA_VB == 64
  __m512 m = _mm512_maskz_loadu_ps((__mmask16)((1u << k) - 1u), p);
#else
  static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  __m256 m = _mm256_maskload_ps(p, _mm256_loadu_si256((const __m256i *)(const void *)(lanes + 8 - k)));
#endif
  memcpy(&v, &m, sizeof v);
#endif
  return v;
}
static inline void ISA_FN(st)(float *p, VF v) { memcpy(p, &v, sizeof v); }
/* v's first k (0 < k <= ISA_VW) lanes to p: a masked store, which writes (and faults on)
 * only those k (memcpy of a variable size compiled to `rep movsq`, slow for a few floats) */
static inline void ISA_FN(st_part)(float *p, VF v, int64_t k) {
#if !ISA_X86
  memcpy(p, &v, (size_t)k * sizeof(float));
#elif ISA_VB == 64
  __m512 m;
  memcpy(&m, &v, sizeof m);
  _mm512_mask_storeu_ps(p, (__mmask16)((1u << k) - 1u), m);
#else
  static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  __m256 m;
  memcpy(&m, &v, sizeof m);
  _mm256_maskstore_ps(p, _mm256_loadu_si256((const __m256i *)(const void *)(lanes + 8 - k)), m);
#endif
}

/* Sum of the lanes: halves added down to four lanes, then (0 + 2) + (1 + 3). */
static inline float ISA_FN(hsum)(VF v) {
#if ISA_VB == 64
  typedef float v8 __attribute__((vector_size(32)));
  v8 a, b;
  memcpy(&a, &v, 32);
  memcpy(&b, (const char *)&v + 32, 32);
  a += b;
  V4 c, d;
  memcpy(&c, &a, 16);
  memcpy(&d, (const char *)&a + 16, 16);
#elif ISA_VB == 32
  V4 c, d;
  memcpy(&c, &v, 16);
  memcpy(&d, (const char *)&v + 16, 16);
#endif
#if ISA_VB == 16
  V4 c = v;
#else
  c += d;
#endif
  return (c[0] + c[2]) + (c[1] + c[3]);
}

/* ---- dot4xn: 4 rows x NC columns per register block ---------------------------------- */

#define ISA_DOT4_BLOCK(NC)                                                                               \
  static inline void ISA_CAT(ISA_FN(dot4_blk), NC)(const float *w, int64_t ldw, const float *x, int64_t ldx, \
                                                 int64_t n, float *out, int64_t ldo) {                    \
    VF acc[4][NC];                                                                                       \
    for (int r = 0; r < 4; r++)                                                                          \
      for (int c = 0; c < NC; c++) acc[r][c] = (VF){0};                                                  \
    int64_t q = 0;                                                                                       \
    for (; q + ISA_VW <= n; q += ISA_VW) {                                                               \
      VF xv[NC];                                                                                         \
      for (int c = 0; c < NC; c++) xv[c] = ISA_FN(ld)(x + c * ldx + q);                                  \
      for (int r = 0; r < 4; r++) {                                                                      \
        VF wv = ISA_FN(ld)(w + r * ldw + q);                                                             \
        for (int c = 0; c < NC; c++) acc[r][c] += wv * xv[c];                                            \
      }                                                                                                  \
    }                                                                                                    \
    if (q < n) {                                                                                         \
      VF xv[NC];                                                                                         \
      for (int c = 0; c < NC; c++) xv[c] = ISA_FN(ld_part)(x + c * ldx + q, n - q);                      \
      for (int r = 0; r < 4; r++) {                                                                      \
        VF wv = ISA_FN(ld_part)(w + r * ldw + q, n - q);                                                 \
        for (int c = 0; c < NC; c++) acc[r][c] += wv * xv[c];                                            \
      }                                                                                                  \
    }                                                                                                    \
    for (int r = 0; r < 4; r++)                                                                          \
      for (int c = 0; c < NC; c++) out[r * ldo + c] += ISA_FN(hsum)(acc[r][c]);                           \
  }

ISA_DOT4_BLOCK(1)
ISA_DOT4_BLOCK(2)
ISA_DOT4_BLOCK(3)
#if ISA_NC >= 4
ISA_DOT4_BLOCK(4)
#endif

static void ISA_FN(dot4xn_f32)(const float *w, int64_t ldw, const float *x, int64_t ldx, int64_t cols, int64_t n,
                               float *out, int64_t ldo) {
  int64_t c = 0;
  for (; c + ISA_NC <= cols; c += ISA_NC)
    ISA_CAT(ISA_FN(dot4_blk), ISA_NC)(w, ldw, x + c * ldx, ldx, n, out + c, ldo);
  switch (cols - c) {
#if ISA_NC >= 4
  case 3: ISA_FN(dot4_blk3)(w, ldw, x + c * ldx, ldx, n, out + c, ldo); break;
#endif
  case 2: ISA_FN(dot4_blk2)(w, ldw, x + c * ldx, ldx, n, out + c, ldo); break;
  case 1: ISA_FN(dot4_blk1)(w, ldw, x + c * ldx, ldx, n, out + c, ldo); break;
  default: break;
  }
}

/* ---- dot, dot4_2seg ------------------------------------------------------------------- */

static float ISA_FN(dot_f32)(const float *a, const float *b, int64_t n) {
  VF a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
  int64_t q = 0;
  for (; q + 4 * ISA_VW <= n; q += 4 * ISA_VW) {
    a0 += ISA_FN(ld)(a + q) * ISA_FN(ld)(b + q);
    a1 += ISA_FN(ld)(a + q + ISA_VW) * ISA_FN(ld)(b + q + ISA_VW);
    a2 += ISA_FN(ld)(a + q + 2 * ISA_VW) * ISA_FN(ld)(b + q + 2 * ISA_VW);
    a3 += ISA_FN(ld)(a + q + 3 * ISA_VW) * ISA_FN(ld)(b + q + 3 * ISA_VW);
  }
  for (; q + ISA_VW <= n; q += ISA_VW) a0 += ISA_FN(ld)(a + q) * ISA_FN(ld)(b + q);
  if (q < n) a1 += ISA_FN(ld_part)(a + q, n - q) * ISA_FN(ld_part)(b + q, n - q);
  return ISA_FN(hsum)((a0 + a1) + (a2 + a3));
}

static void ISA_FN(dot4_2seg_f32)(const float *r0, const float *r1, const float *r2, const float *r3,
                                  const float *x, int64_t n, const float *u0, const float *u1, const float *u2,
                                  const float *u3, const float *y, int64_t m, float out[4]) {
  VF a[4] = {{0}}, b[4] = {{0}};
  for (int seg = 0; seg < 2; seg++) {
    const float *p[4] = {seg ? u0 : r0, seg ? u1 : r1, seg ? u2 : r2, seg ? u3 : r3};
    const float *v = seg ? y : x;
    const int64_t len = seg ? m : n;
    int64_t q = 0;
    for (; q + 2 * ISA_VW <= len; q += 2 * ISA_VW) {
      VF xv = ISA_FN(ld)(v + q), xw = ISA_FN(ld)(v + q + ISA_VW);
      for (int r = 0; r < 4; r++) {
        a[r] += ISA_FN(ld)(p[r] + q) * xv;
        b[r] += ISA_FN(ld)(p[r] + q + ISA_VW) * xw;
      }
    }
    for (; q < len; q += ISA_VW) {
      const int64_t k = len - q < ISA_VW ? len - q : ISA_VW;
      VF xv = ISA_FN(ld_part)(v + q, k);
      for (int r = 0; r < 4; r++) a[r] += ISA_FN(ld_part)(p[r] + q, k) * xv;
    }
  }
  for (int r = 0; r < 4; r++) out[r] = ISA_FN(hsum)(a[r] + b[r]);
}

/* ---- gemm_nn: an MR x (2 vectors) tile of C in registers ----------------------------- */

/* mr rows, nv (1 or 2) full vectors of columns; mr and nv are constants once inlined */
static inline __attribute__((always_inline)) void ISA_FN(gnn_tile)(int mr, int nv, const float *A, int64_t lda,
                                                                   const float *B, int64_t ldb, const float *bias,
                                                                   float *C, int64_t ldc, int64_t K) {
  VF acc[ISA_MR][2];
  for (int r = 0; r < mr; r++) {
    VF z = (VF){0} + (bias ? bias[r] : 0.0f);
    acc[r][0] = z;
    acc[r][1] = z;
  }
  for (int64_t q = 0; q < K; q++) {
    const float *b = B + q * ldb;
    VF b0 = ISA_FN(ld)(b), b1 = nv > 1 ? ISA_FN(ld)(b + ISA_VW) : (VF){0};
    for (int r = 0; r < mr; r++) {
      const float a = A[r * lda + q];
      acc[r][0] += a * b0;
      if (nv > 1) acc[r][1] += a * b1;
    }
  }
  for (int r = 0; r < mr; r++) {
    ISA_FN(st)(C + r * ldc, acc[r][0]);
    if (nv > 1) ISA_FN(st)(C + r * ldc + ISA_VW, acc[r][1]);
  }
}

/* mr rows of C, every column */
static inline __attribute__((always_inline)) void ISA_FN(gnn_rows)(int mr, const float *A, int64_t lda,
                                                                   const float *B, int64_t ldb, const float *bias,
                                                                   float *C, int64_t ldc, int64_t N, int64_t K) {
  int64_t j = 0;
  for (; j + 2 * ISA_VW <= N; j += 2 * ISA_VW) ISA_FN(gnn_tile)(mr, 2, A, lda, B + j, ldb, bias, C + j, ldc, K);
  for (; j + ISA_VW <= N; j += ISA_VW) ISA_FN(gnn_tile)(mr, 1, A, lda, B + j, ldb, bias, C + j, ldc, K);
  for (; j < N; j++) /* the last columns, fewer than a vector: in order of q like the tiles */
    for (int r = 0; r < mr; r++) {
      float s = bias ? bias[r] : 0.0f;
      for (int64_t q = 0; q < K; q++) s += A[r * lda + q] * B[q * ldb + j];
      C[r * ldc + j] = s;
    }
}

/* Column panels of B (about 256 KiB: they stay in L2 while every block of MR rows of A
 * passes over them), then MR rows at a time. */
static void ISA_FN(gemm_nn_f32)(const float *A, int64_t lda, const float *B, int64_t ldb, const float *bias,
                                float *C, int64_t ldc, int64_t M, int64_t N, int64_t K) {
  int64_t jb = K > 0 ? (int64_t)65536 / K / (2 * ISA_VW) * (2 * ISA_VW) : N;
  if (jb < 2 * ISA_VW) jb = 2 * ISA_VW;
  for (int64_t j0 = 0; j0 < N; j0 += jb) {
    const int64_t jn = N - j0 < jb ? N - j0 : jb;
    const float *Bj = B + j0;
    float *Cj = C + j0;
    int64_t i = 0;
    for (; i + ISA_MR <= M; i += ISA_MR)
      ISA_FN(gnn_rows)(ISA_MR, A + i * lda, lda, Bj, ldb, bias ? bias + i : NULL, Cj + i * ldc, ldc, jn, K);
    const float *bi = bias ? bias + i : NULL;
    switch (M - i) {
#if ISA_MR > 6
#error "ISA_MR above 6: add cases"
#endif
    case 5: ISA_FN(gnn_rows)(5, A + i * lda, lda, Bj, ldb, bi, Cj + i * ldc, ldc, jn, K); break;
    case 4: ISA_FN(gnn_rows)(4, A + i * lda, lda, Bj, ldb, bi, Cj + i * ldc, ldc, jn, K); break;
    case 3: ISA_FN(gnn_rows)(3, A + i * lda, lda, Bj, ldb, bi, Cj + i * ldc, ldc, jn, K); break;
    case 2: ISA_FN(gnn_rows)(2, A + i * lda, lda, Bj, ldb, bi, Cj + i * ldc, ldc, jn, K); break;
    case 1: ISA_FN(gnn_rows)(1, A + i * lda, lda, Bj, ldb, bi, Cj + i * ldc, ldc, jn, K); break;
    default: break;
    }
  }
}

/* ---- elementwise ---------------------------------------------------------------------- */

/* exp, sigmoid, tanh, erf: blocks of 64 that take shorter forms where they can (kernel_vmath.h) */
static void ISA_FN(exp_f32)(const float *x, float *y, int64_t n) {
  BERTH_VM_BLOCKED(x, y, n, BERTH_VM_EXP_NORMAL_BITS, berth_vm_exp_normal_f32, 0, berth_vm_exp_f32, berth_vm_exp_f32)
}
static void ISA_FN(sigmoid_f32)(const float *x, float *y, int64_t n) {
  BERTH_VM_BLOCKED(x, y, n, BERTH_VM_ONE_BITS, berth_vm_sigmoid_small_f32, BERTH_VM_EXP_NORMAL_BITS,
                 berth_vm_sigmoid_normal_f32, berth_vm_sigmoid_f32)
}
static void ISA_FN(tanh_f32)(const float *x, float *y, int64_t n) {
  BERTH_VM_BLOCKED(x, y, n, BERTH_VM_ONE_BITS, berth_vm_tanh_small_f32, 0, berth_vm_tanh_f32, berth_vm_tanh_f32)
}
static void ISA_FN(erf_f32)(const float *x, float *y, int64_t n) {
  BERTH_VM_BLOCKED(x, y, n, BERTH_VM_ERF_SMALL_BITS, berth_vm_erf_small_f32, 0, berth_vm_erf_f32, berth_vm_erf_f32)
}

/* The square-root instruction on whole vectors (a loop of sqrtf stays scalar: the C
 * library's errno for x < 0); the last n % ISA_VW floats through a zeroed vector. */
static inline VF ISA_FN(vsqrt)(VF v) {
#if ISA_X86 && ISA_VB == 64
  return (VF)_mm512_sqrt_ps((__m512)v);
#elif ISA_X86 && ISA_VB == 32
  return (VF)_mm256_sqrt_ps((__m256)v);
#elif defined(__aarch64__) && ISA_VB == 16
  return (VF)vsqrtq_f32((float32x4_t)v);
#else
  for (int l = 0; l < ISA_VW; l++) v[l] = __builtin_sqrtf(v[l]);
  return v;
#endif
}
static void ISA_FN(sqrt_f32)(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + ISA_VW <= n; i += ISA_VW) ISA_FN(st)(y + i, ISA_FN(vsqrt)(ISA_FN(ld)(x + i)));
  if (i < n) {
    float buf[ISA_VW];
    ISA_FN(st)(buf, ISA_FN(vsqrt)(ISA_FN(ld_part)(x + i, n - i)));
    memcpy(y + i, buf, (size_t)(n - i) * sizeof(float));
  }
}

static void ISA_FN(hard_sigmoid_f32)(const float *x, float *y, int64_t n, float alpha, float beta) {
  for (int64_t i = 0; i < n; i++) {
    float v = __builtin_fmaf(alpha, x[i], beta);
    v = berth_vm_sel(v < 0.0f, 0.0f, v);
    y[i] = berth_vm_sel(v > 1.0f, 1.0f, v);
  }
}
static void ISA_FN(elu_f32)(const float *x, float *y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; i++) y[i] = berth_vm_elu_f32(x[i], alpha);
}
static void ISA_FN(softplus_f32)(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = berth_vm_softplus_f32(x[i]);
}

/* ---- the packed-GEMM micro-kernel (kernel_ukr.h) ------------------------------------- */

#define UKR_VB ISA_VB
#define UKR_MR ISA_GEMM_MR
#define UKR_NV ISA_GEMM_NV
#define UKR_NAME ISA_FN(gemm_ukr_f32)
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV 1 /* the half-width tile of a narrow last panel */
#define UKR_NAME ISA_FN(gemm_ukr_half_f32)
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV ISA_GEMM_NV /* A from packed panels (pre-packed weights) */
#define UKR_NAME ISA_FN(gemm_ukr_pa_f32)
#define UKR_APACK
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV 1
#define UKR_NAME ISA_FN(gemm_ukr_pa_half_f32)
#define UKR_APACK
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV ISA_GEMM_NV /* A from packed panels, B in place */
#define UKR_NAME ISA_FN(gemm_ukr_pa_bs_f32)
#define UKR_APACK
#define UKR_BSTRIDE
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#if ISA_GEMM_NV * ISA_VW == 16 /* half of a 32-column panel (AVX2): B rows 32 floats apart */
#define UKR_NV ISA_GEMM_NV
#define UKR_NAME ISA_FN(gemm_ukr_pa_b2_f32)
#define UKR_APACK
#define UKR_LDB 32
#include "kernel_ukr.h"
#define ISA_UKR_PA_B2 ISA_FN(gemm_ukr_pa_b2_f32)
#else
#define ISA_UKR_PA_B2 NULL
#endif
#if 32 % (ISA_GEMM_NV * ISA_VW) == 0 /* slices of 32-column panels, A in place (matmul_packed) */
#if ISA_GEMM_NV * ISA_VW == 32
#define ISA_UKR_LDB32 ISA_FN(gemm_ukr_f32) /* the panel is the tile */
#else
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV ISA_GEMM_NV
#define UKR_NAME ISA_FN(gemm_ukr_ldb32_f32)
#define UKR_LDB 32
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define ISA_UKR_LDB32 ISA_FN(gemm_ukr_ldb32_f32)
#endif
#else
#define ISA_UKR_LDB32 NULL
#endif

/* ---- the depthwise plane kernel (kernel_dw_ukr.h) ------------------------------------ */

#define DW_VB ISA_VB
#define DW_NAME ISA_FN(dwconv_f32)
#define DW_LANES_NAME ISA_FN(dwconv_lanes_f32)
#include "kernel_dw_ukr.h"

/* ---- the pooling plane kernel (kernel_pool_ukr.h) ------------------------------------ */

#define PL_VB ISA_VB
#define PL_NAME ISA_FN(pool2d_f32)
#include "kernel_pool_ukr.h"

/* ---- conv's im2col panel packer (kernel_im2col.h; x86 masked loads) ------------------- */

#if ISA_X86 && (ISA_VB == 64 || ISA_VB == 32)
#define IM2COL_VB ISA_VB
#define IM2COL_NAME ISA_FN(im2col_f32)
#include "kernel_im2col.h"
#define ISA_IM2COL ISA_FN(im2col_f32)
#else
#define ISA_IM2COL NULL
#endif

/* ---- conv's direct micro-kernel, channels along the lanes (kernel_conv_direct_ukr.h) --- */

#define CDU_VB ISA_VB
#define CDU_P ISA_CD_P
#define CDU_NV ISA_CD_NV
#define CDU_NAME ISA_FN(conv_direct_ukr_f32)
#include "kernel_conv_direct_ukr.h"

#define CRU_VB ISA_VB /* the same for few input channels, positions along the lanes */
#define CRU_MR ISA_CR_MR
#define CRU_NV ISA_CR_NV
#define CRU_NAME ISA_FN(conv_rows_ukr_f32)
#include "kernel_conv_rows_ukr.h"

#define CBU_VB ISA_VB /* conv_blocked: channel-blocked tensors, channels along the lanes */
#define CBU_P ISA_CB_P
#define CBU_OB ISA_CB_OB
#define CBU_NAME ISA_FN(conv_blocked_ukr_f32)
#define CBU_PLAIN_NAME ISA_FN(conv_blocked_plain_ukr_f32)
#define CBU_RUN_NAME ISA_FN(conv_blocked_run_ukr_f32)
#include "kernel_conv_blocked_ukr.h"
#if ISA_CB_OB > 1
#define ISA_CB_RUN ISA_FN(conv_blocked_run_ukr_f32)
#else
#define ISA_CB_RUN NULL
#endif

#define WGU_VB ISA_VB /* conv_winograd's transforms */
#define WGU_IN ISA_FN(winograd_in_f32)
#define WGU_OUT ISA_FN(winograd_out_f32)
#include "kernel_winograd_ukr.h"

#define GVU_VB ISA_VB /* matmul_packed's row path */
#define GVU_NAME ISA_FN(gemv_p32_f32)
#include "kernel_gemv_ukr.h"

#define PBU_VB ISA_VB /* pool_blocked's output row */
#define PBU_NAME ISA_FN(pool_blocked_row_f32)
#include "kernel_pool_blocked_ukr.h"

#include "kernel_softmax_ukr.h" /* softmax and log_softmax of a contiguous run */
#include "kernel_norm_ukr.h"    /* layer_norm and rms_norm of a row */

const berth_kernel_isa_t ISA_TABLE = {
    .id = ISA_ID,
    .dot4xn_f32 = ISA_FN(dot4xn_f32),
    .dot_f32 = ISA_FN(dot_f32),
    .dot4_2seg_f32 = ISA_FN(dot4_2seg_f32),
    .gemm_nn_f32 = ISA_FN(gemm_nn_f32),
    .gemm_mr = ISA_GEMM_MR,
    .gemm_nr = ISA_GEMM_NV * ISA_VW,
    .gemm_ukr_f32 = ISA_FN(gemm_ukr_f32),
    .gemm_ukr_half_f32 = ISA_FN(gemm_ukr_half_f32),
    .gemm_ukr_pa_f32 = ISA_FN(gemm_ukr_pa_f32),
    .gemm_ukr_pa_half_f32 = ISA_FN(gemm_ukr_pa_half_f32),
    .exp_f32 = ISA_FN(exp_f32),
    .sigmoid_f32 = ISA_FN(sigmoid_f32),
    .tanh_f32 = ISA_FN(tanh_f32),
    .sqrt_f32 = ISA_FN(sqrt_f32),
    .erf_f32 = ISA_FN(erf_f32),
    .hard_sigmoid_f32 = ISA_FN(hard_sigmoid_f32),
    .elu_f32 = ISA_FN(elu_f32),
    .softplus_f32 = ISA_FN(softplus_f32),
    .dwconv_f32 = ISA_FN(dwconv_f32),
    .dwconv_lanes_f32 = ISA_FN(dwconv_lanes_f32),
    .pool2d_f32 = ISA_FN(pool2d_f32),
    .im2col_f32 = ISA_IM2COL,
    .gemm_ukr_pa_b2_f32 = ISA_UKR_PA_B2,
    .gemm_ukr_ldb32_f32 = ISA_UKR_LDB32,
    .gemm_ukr_pa_bs_f32 = ISA_FN(gemm_ukr_pa_bs_f32),
    .conv_direct_p = ISA_CD_P,
    .conv_direct_nr = ISA_CD_NV * ISA_VW,
    .conv_direct_ukr_f32 = ISA_FN(conv_direct_ukr_f32),
    .conv_rows_mr = ISA_CR_MR,
    .conv_rows_t = ISA_CR_NV * ISA_VW,
    .conv_rows_ukr_f32 = ISA_FN(conv_rows_ukr_f32),
    .conv_blocked_p = ISA_CB_P,
    .conv_blocked_ob = ISA_CB_OB,
    .conv_blocked_ukr_f32 = ISA_FN(conv_blocked_ukr_f32),
    .conv_blocked_plain_ukr_f32 = ISA_FN(conv_blocked_plain_ukr_f32),
    .conv_blocked_run_ukr_f32 = ISA_CB_RUN,
    .winograd_in_f32 = ISA_FN(winograd_in_f32),
    .winograd_out_f32 = ISA_FN(winograd_out_f32),
    .pool_blocked_row_f32 = ISA_FN(pool_blocked_row_f32),
    .softmax_row_f32 = ISA_FN(softmax_row_f32),
    .layer_norm_row_f32 = ISA_FN(layer_norm_row_f32),
    .gemv_p32_f32 = ISA_FN(gemv_p32_f32),
};
