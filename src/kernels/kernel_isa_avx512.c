/* The x86-64 AVX-512F kernel variant (kernel_isa.h, kernel_isa_simd.h). CMakeLists.txt
 * compiles this file with -mavx512f -mfma -ffp-contract=fast when BERTH_KERNELS_SIMD is on;
 * otherwise it is empty. Only reached through the table, which berth_kernel_isa() hands
 * out after cpuid says the CPU (and the OS) have AVX-512F. */
#if defined(BERTH_KERNELS_SIMD) && defined(__x86_64__) && defined(__AVX512F__)
#define ISA_VB 64
#define ISA_NC 4 /* 16 sums of the 32 zmm registers */
#define ISA_MR 6
#define ISA_GEMM_MR 12 /* packed-GEMM tile: MR x 2 vectors of accumulators */
#define ISA_GEMM_NV 2
#define ISA_CD_P 12 /* conv_direct tile: 12 positions x 2 vectors (32 channels: a whole wide panel) */
#define ISA_CD_NV 2
#define ISA_CR_MR 8 /* conv_rows tile (few input channels): 8 channels x 3 vectors (48 positions) */
#define ISA_CR_NV 3
#define ISA_CB_P 6 /* conv_blocked tile: 6 positions x 4 blocks of 16 channels = 24 accumulators */
#define ISA_CB_OB 4
#define ISA_ID BERTH_KERNELS_AVX512
#define ISA_TABLE berth_kernel_isa_avx512
#include "kernel_isa_simd.h"
#elif defined(BERTH_KERNELS_SIMD) && defined(__x86_64__)
#error "kernel_isa_avx512.c needs -mavx512f (CMakeLists.txt sets it with BERTH_KERNELS_SIMD)"
#else
typedef int berth_kernel_isa_avx512_unused; /* ISO C: a translation unit is not empty */
#endif
