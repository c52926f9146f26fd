/* The x86-64 AVX2 + FMA kernel variant (kernel_isa.h, kernel_isa_simd.h). CMakeLists.txt
 * compiles this file with -mavx2 -mfma -ffp-contract=fast when BERTH_KERNELS_SIMD is on;
 * otherwise (an embedded runtime, another architecture) it is empty. Only reached through
 * the table, which berth_kernel_isa() hands out after cpuid says the CPU has AVX2 and FMA. */
#if defined(BERTH_KERNELS_SIMD) && defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#define ISA_VB 32
#define ISA_NC 3 /* 12 sums + 3 column vectors + 1 weight vector = the 16 ymm registers */
#define ISA_MR 6 /* 12 sums + 2 B vectors + 1 broadcast */
#define ISA_GEMM_MR 6 /* packed-GEMM tile: MR x 2 vectors of accumulators */
#define ISA_GEMM_NV 2
#define ISA_CD_P 3 /* conv_direct tile: 3 positions x 4 vectors (32 channels, a wide panel) + 1 broadcast, weights
                     * as the multiply-adds' memory operands: 6-12 % faster than 6 x 16 here (Zen 3) */
#define ISA_CD_NV 4
#define ISA_CR_MR 4 /* conv_rows tile (few input channels): 4 channels x 3 vectors (24 positions) + 3 inputs + 1 */
#define ISA_CR_NV 3
#define ISA_CB_P 3 /* conv_blocked tile: 3 positions x 2 blocks of 16 channels (4 vectors) = 12 accumulators + 3 broadcasts + 1 */
#define ISA_CB_OB 2
#define ISA_ID BERTH_KERNELS_AVX2
#define ISA_TABLE berth_kernel_isa_avx2
#include "kernel_isa_simd.h"
#elif defined(BERTH_KERNELS_SIMD) && defined(__x86_64__)
#error "kernel_isa_avx2.c needs -mavx2 -mfma (CMakeLists.txt sets them with BERTH_KERNELS_SIMD)"
#else
typedef int berth_kernel_isa_avx2_unused; /* ISO C: a translation unit is not empty */
#endif
