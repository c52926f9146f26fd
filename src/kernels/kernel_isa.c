/* The portable kernel variant, CPU feature detection and the process-wide choice of a
 * variant (kernel_isa.h, include/berth/kernels.h). */
#include "kernel_isa.h"

#include "kernel_dot.h"
#include "kernel_util.h"
#include "kernel_vmath.h"

#include <math.h>

/* ---- the portable variant: kernel_dot.h, the loops the kernels ran before variants ---- */

void berth_portable_dot4xn_f32(const float *w, int64_t ldw, const float *x, int64_t ldx, int64_t cols, int64_t n,
                               float *out, int64_t ldo) {
  for (int64_t c = 0; c < cols; c++) {
    float d[4];
    berth_dot4_f32(w, w + ldw, w + 2 * ldw, w + 3 * ldw, x + c * ldx, n, d);
    for (int r = 0; r < 4; r++) out[r * ldo + c] += d[r];
  }
}

float berth_portable_dot_f32(const float *a, const float *b, int64_t n) { return berth_dot_f32(a, b, n); }

void berth_portable_dot4_2seg_f32(const float *r0, const float *r1, const float *r2, const float *r3,
                                  const float *x, int64_t n, const float *u0, const float *u1, const float *u2,
                                  const float *u3, const float *y, int64_t m, float out[4]) {
  berth_dot4_2seg_f32(r0, r1, r2, r3, x, n, u0, u1, u2, u3, y, m, out);
}

/* Rows of C accumulate in place, four at a time, over column blocks that stay in cache. */
#define PORTABLE_MM_JBLOCK 512
void berth_portable_gemm_nn_f32(const float *A, int64_t lda, const float *B, int64_t ldb, const float *bias,
                                float *C, int64_t ldc, int64_t M, int64_t N, int64_t K) {
  for (int64_t j0 = 0; j0 < N; j0 += PORTABLE_MM_JBLOCK) {
    const int64_t jn = N - j0 < PORTABLE_MM_JBLOCK ? N - j0 : PORTABLE_MM_JBLOCK;
    int64_t i = 0;
    for (; i + 4 <= M; i += 4) {
      float *restrict c0 = C + i * ldc + j0, *restrict c1 = c0 + ldc, *restrict c2 = c1 + ldc,
                      *restrict c3 = c2 + ldc;
      const float z0 = bias ? bias[i] : 0, z1 = bias ? bias[i + 1] : 0, z2 = bias ? bias[i + 2] : 0,
                  z3 = bias ? bias[i + 3] : 0;
      BERTH_VLOOP(j, jn, c0[j] = z0; c1[j] = z1; c2[j] = z2; c3[j] = z3;);
      for (int64_t q = 0; q < K; q++) {
        const float *restrict b = B + q * ldb + j0;
        const float a0 = A[i * lda + q], a1 = A[(i + 1) * lda + q], a2 = A[(i + 2) * lda + q],
                    a3 = A[(i + 3) * lda + q];
        BERTH_VLOOP(j, jn, float bj = b[j]; c0[j] += a0 * bj; c1[j] += a1 * bj; c2[j] += a2 * bj;
                    c3[j] += a3 * bj;);
      }
    }
    for (; i < M; i++) {
      float *restrict c0 = C + i * ldc + j0;
      const float z0 = bias ? bias[i] : 0;
      BERTH_VLOOP(j, jn, c0[j] = z0;);
      for (int64_t q = 0; q < K; q++) {
        const float *restrict b = B + q * ldb + j0;
        const float a0 = A[i * lda + q];
        BERTH_VLOOP(j, jn, c0[j] += a0 * b[j];);
      }
    }
  }
}

/* in blocks of 64 that take shorter forms where they can, as the wide variants do */
void berth_portable_exp_f32(const float *x, float *y, int64_t n) {
  BERTH_VM_BLOCKED(x, y, n, BERTH_VM_EXP_NORMAL_BITS, berth_vm_exp_normal_f32, 0, berth_vm_exp_f32, berth_vm_exp_f32)
}
void berth_portable_sigmoid_f32(const float *x, float *y, int64_t n) {
  BERTH_VM_BLOCKED(x, y, n, BERTH_VM_ONE_BITS, berth_vm_sigmoid_small_f32, BERTH_VM_EXP_NORMAL_BITS,
                   berth_vm_sigmoid_normal_f32, berth_vm_sigmoid_f32)
}
void berth_portable_tanh_f32(const float *x, float *y, int64_t n) {
  BERTH_VM_BLOCKED(x, y, n, BERTH_VM_ONE_BITS, berth_vm_tanh_small_f32, 0, berth_vm_tanh_f32, berth_vm_tanh_f32)
}
void berth_portable_sqrt_f32(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = sqrtf(x[i]);
}
void berth_portable_erf_f32(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = erff(x[i]);
}
/* alpha x + beta in double: the product is exact, the sum rounded once to double */
void berth_portable_hard_sigmoid_f32(const float *x, float *y, int64_t n, float alpha, float beta) {
  BERTH_VLOOP(i, n, double v = (double)alpha * x[i] + (double)beta; double lo = berth_vm_sel_f64(v < 0, 0.0, v);
              y[i] = (float)berth_vm_sel_f64(lo > 1, 1.0, lo););
}
void berth_portable_elu_f32(const float *x, float *y, int64_t n, float alpha) {
  BERTH_VLOOP(i, n, y[i] = berth_vm_elu_f32(x[i], alpha););
}
void berth_portable_softplus_f32(const float *x, float *y, int64_t n) {
  BERTH_VLOOP(i, n, y[i] = berth_vm_softplus_f32(x[i]););
}

/* The packed-GEMM micro-kernel with 16-byte vectors: 4 x 8 tiles (8 accumulators). */
#define UKR_VB 16
#define UKR_MR 4
#define UKR_NV 2
#define UKR_NAME berth_portable_gemm_ukr_f32
#define UKR_LINKAGE
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV 1 /* 4 x 4: the half-width tile of a narrow last panel */
#define UKR_NAME portable_gemm_ukr_half_f32
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV 2 /* A from packed panels (pre-packed weights) */
#define UKR_NAME portable_gemm_ukr_pa_f32
#define UKR_APACK
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV 1
#define UKR_NAME portable_gemm_ukr_pa_half_f32
#define UKR_APACK
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV 2 /* A from packed panels, B in place */
#define UKR_NAME portable_gemm_ukr_pa_bs_f32
#define UKR_APACK
#define UKR_BSTRIDE
#include "kernel_ukr.h"
#undef UKR_NV
#undef UKR_NAME
#define UKR_NV 2 /* slices of 8 columns of matmul_packed's 32-column weight panels, read in place */
#define UKR_NAME portable_gemm_ukr_ldb32_f32
#define UKR_LDB 32
#include "kernel_ukr.h"

#define CBU_VB 16 /* conv_blocked's micro-kernel: 2 positions x 1 block of 16 channels (4 vectors) */
#define CBU_P 2
#define CBU_OB 1
#define CBU_NAME portable_conv_blocked_ukr_f32
#define CBU_PLAIN_NAME portable_conv_blocked_plain_ukr_f32
#include "kernel_conv_blocked_ukr.h"

#define WGU_VB 16 /* conv_winograd's transforms */
#define WGU_IN portable_winograd_in_f32
#define WGU_OUT portable_winograd_out_f32
#include "kernel_winograd_ukr.h"

#define GVU_VB 16 /* matmul_packed's row path */
#define GVU_NAME portable_gemv_p32_f32
#include "kernel_gemv_ukr.h"

#define PBU_VB 16 /* pool_blocked's output row */
#define PBU_NAME portable_pool_blocked_row_f32
#include "kernel_pool_blocked_ukr.h"

#define CDU_VB 16 /* conv's direct micro-kernel, channels along the lanes: 4 positions x 8 channels */
#define CDU_P 4
#define CDU_NV 2
#define CDU_NAME portable_conv_direct_ukr_f32
#include "kernel_conv_direct_ukr.h"

#define CRU_VB 16 /* conv's direct micro-kernel for few input channels: 4 channels x 12 positions */
#define CRU_MR 4
#define CRU_NV 3
#define CRU_NAME portable_conv_rows_ukr_f32
#include "kernel_conv_rows_ukr.h"

/* The depthwise plane kernel with 16-byte vectors, its loops rolled (the small runtime's
 * stack bound counts this frame; unrolled, GCC spills the row blocks' sums). */
#define DW_VB 16
#define DW_ROLLED
#define DW_NAME berth_portable_dwconv_f32
#define DW_LANES_NAME berth_portable_dwconv_lanes_f32
#define DW_LINKAGE
#include "kernel_dw_ukr.h"

#define PL_VB 16
#define PL_NAME berth_portable_pool2d_f32
#define PL_LINKAGE
#include "kernel_pool_ukr.h"

const berth_kernel_isa_t berth_kernel_isa_portable = {
    .id = BERTH_KERNELS_PORTABLE,
    .dot4xn_f32 = berth_portable_dot4xn_f32,
    .dot_f32 = berth_portable_dot_f32,
    .dot4_2seg_f32 = berth_portable_dot4_2seg_f32,
    .gemm_nn_f32 = berth_portable_gemm_nn_f32,
    .gemm_mr = 4,
    .gemm_nr = 8,
    .gemm_ukr_f32 = berth_portable_gemm_ukr_f32,
    .gemm_ukr_half_f32 = portable_gemm_ukr_half_f32,
    .gemm_ukr_pa_f32 = portable_gemm_ukr_pa_f32,
    .gemm_ukr_pa_half_f32 = portable_gemm_ukr_pa_half_f32,
    .exp_f32 = berth_portable_exp_f32,
    .sigmoid_f32 = berth_portable_sigmoid_f32,
    .tanh_f32 = berth_portable_tanh_f32,
    .sqrt_f32 = berth_portable_sqrt_f32,
    .erf_f32 = berth_portable_erf_f32,
    .hard_sigmoid_f32 = berth_portable_hard_sigmoid_f32,
    .elu_f32 = berth_portable_elu_f32,
    .softplus_f32 = berth_portable_softplus_f32,
    .dwconv_f32 = berth_portable_dwconv_f32,
    .dwconv_lanes_f32 = berth_portable_dwconv_lanes_f32,
    .pool2d_f32 = berth_portable_pool2d_f32,
    .gemm_ukr_ldb32_f32 = portable_gemm_ukr_ldb32_f32,
    .gemm_ukr_pa_bs_f32 = portable_gemm_ukr_pa_bs_f32,
    .conv_direct_p = 4,
    .conv_direct_nr = 8,
    .conv_direct_ukr_f32 = portable_conv_direct_ukr_f32,
    .conv_rows_mr = 4,
    .conv_rows_t = 12,
    .conv_rows_ukr_f32 = portable_conv_rows_ukr_f32,
    .conv_blocked_p = 2,
    .conv_blocked_ob = 1,
    .conv_blocked_ukr_f32 = portable_conv_blocked_ukr_f32,
    .conv_blocked_plain_ukr_f32 = portable_conv_blocked_plain_ukr_f32,
    .winograd_in_f32 = portable_winograd_in_f32,
    .winograd_out_f32 = portable_winograd_out_f32,
    .pool_blocked_row_f32 = portable_pool_blocked_row_f32,
    .gemv_p32_f32 = portable_gemv_p32_f32,
};

/* ---- detection and choice ------------------------------------------------------------ */

#if defined(BERTH_KERNELS_SIMD) && defined(__x86_64__)
/* libgcc's / compiler-rt's cpuid reading; it also checks that the OS saves the vector
 * registers (xgetbv) before it reports avx2 or avx512f. */
static int isa_cpu_has(berth_kernels_isa_t id) {
  __builtin_cpu_init();
  switch (id) {
  case BERTH_KERNELS_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case BERTH_KERNELS_AVX512: return __builtin_cpu_supports("avx512f");
  default: return 0;
  }
}
#endif

const berth_kernel_isa_t *berth_kernel_isa_table(berth_kernels_isa_t id) {
  switch (id) {
  case BERTH_KERNELS_PORTABLE: return &berth_kernel_isa_portable;
#if defined(BERTH_KERNELS_SIMD) && defined(__x86_64__)
  case BERTH_KERNELS_AVX2: return isa_cpu_has(id) ? &berth_kernel_isa_avx2 : NULL;
  case BERTH_KERNELS_AVX512: return isa_cpu_has(id) ? &berth_kernel_isa_avx512 : NULL;
#endif
#if defined(BERTH_KERNELS_SIMD) && defined(__aarch64__)
  case BERTH_KERNELS_NEON: return &berth_kernel_isa_neon; /* part of the base architecture */
#endif
  default: return NULL;
  }
}

static const berth_kernel_isa_t *isa_detect(void) {
  for (int id = BERTH_KERNELS_ISA_COUNT - 1; id > BERTH_KERNELS_PORTABLE; id--) {
    const berth_kernel_isa_t *t = berth_kernel_isa_table((berth_kernels_isa_t)id);
    if (t) return t;
  }
  return &berth_kernel_isa_portable;
}

/* NULL until the first call or berth_kernels_select. Threads that race on the first call
 * all store the same pointer (relaxed atomics: no torn pointer, no ordering needed). */
static const berth_kernel_isa_t *isa_active;

const berth_kernel_isa_t *berth_kernel_isa(void) {
#ifdef BERTH_KERNELS_SIMD
  const berth_kernel_isa_t *t = __atomic_load_n(&isa_active, __ATOMIC_RELAXED);
  if (!t) {
    t = isa_detect();
    __atomic_store_n(&isa_active, t, __ATOMIC_RELAXED);
  }
  return t;
#else
  return isa_active ? isa_active : &berth_kernel_isa_portable;
#endif
}

berth_status_t berth_kernels_select(berth_kernels_isa_t isa) {
  if ((unsigned)isa >= (unsigned)BERTH_KERNELS_ISA_COUNT) return BERTH_ERR_INVALID_ARGUMENT; /* enums may be unsigned */
  const berth_kernel_isa_t *t = isa == BERTH_KERNELS_AUTO ? isa_detect() : berth_kernel_isa_table(isa);
  if (!t) return BERTH_ERR_UNIMPLEMENTED;
#ifdef BERTH_KERNELS_SIMD
  __atomic_store_n(&isa_active, t, __ATOMIC_RELAXED);
#else
  isa_active = t;
#endif
  return BERTH_OK;
}

berth_kernels_isa_t berth_kernels_active(void) { return berth_kernel_isa()->id; }

int berth_kernels_available(berth_kernels_isa_t isa) {
  return isa == BERTH_KERNELS_AUTO ||
         ((unsigned)isa < (unsigned)BERTH_KERNELS_ISA_COUNT && berth_kernel_isa_table(isa) != NULL);
}

static const char *const isa_names[BERTH_KERNELS_ISA_COUNT] = {"auto", "portable", "avx2", "avx512", "neon"};

const char *berth_kernels_isa_name(berth_kernels_isa_t isa) {
  return (unsigned)isa < (unsigned)BERTH_KERNELS_ISA_COUNT ? isa_names[isa] : "?";
}

berth_status_t berth_kernels_isa_parse(const char *name, berth_kernels_isa_t *isa) {
  if (!name) return BERTH_ERR_INVALID_ARGUMENT;
  for (int i = 0; i < BERTH_KERNELS_ISA_COUNT; i++) {
    const char *a = isa_names[i], *b = name;
    while (*a && *a == *b) a++, b++;
    if (!*a && !*b) {
      *isa = (berth_kernels_isa_t)i;
      return BERTH_OK;
    }
  }
  return BERTH_ERR_INVALID_ARGUMENT;
}
