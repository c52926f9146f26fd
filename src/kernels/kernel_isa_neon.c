/* The AArch64 NEON (Advanced SIMD) kernel variant (kernel_isa.h, kernel_isa_simd.h): 16-byte
 * vectors, 32 registers. CMakeLists.txt compiles this file with -ffp-contract=fast when
 * BERTH_KERNELS_SIMD is on for an AArch64 target (NEON is part of the base architecture, so
 * no -march flag and no run-time detection); otherwise it is empty. tests/cli/neon_qemu.sh
 * cross-builds the kernel tests and runs them under qemu-aarch64. */
#if defined(BERTH_KERNELS_SIMD) && defined(__aarch64__)
#define ISA_VB 16
#define ISA_NC 4      /* dot4xn: 16 sums + 4 column vectors + 1 weight vector of the 32 */
#define ISA_MR 6      /* gemm_nn: 12 sums + 2 B vectors + 1 broadcast */
#define ISA_GEMM_MR 8 /* packed-GEMM tile: 8 x 2 vectors = 16 accumulators */
#define ISA_GEMM_NV 2
#define ISA_CD_P 6   /* conv_direct tile: 6 positions x 4 vectors (16 channels) = 24 accumulators */
#define ISA_CD_NV 4
#define ISA_CR_MR 8 /* conv_rows tile (few input channels): 8 channels x 3 vectors (12 positions) = 24 accumulators */
#define ISA_CR_NV 3
#define ISA_CB_P 6 /* conv_blocked tile: 6 positions x 1 block of 16 channels (4 vectors) = 24 accumulators */
#define ISA_CB_OB 1
#define ISA_ID BERTH_KERNELS_NEON
#define ISA_TABLE berth_kernel_isa_neon
#include "kernel_isa_simd.h"
#else
typedef int berth_kernel_isa_neon_unused; /* ISO C: a translation unit is not empty */
#endif
