/* Which instruction-set variant of the f32 kernels runs.
 *
 *   berth_kernels_select(BERTH_KERNELS_PORTABLE);   // force the portable C path
 *   printf("%s\n", berth_kernels_isa_name(berth_kernels_active()));
 *
 * berth's hot f32 kernels (conv, gemm, matmul, lstm, exp / sigmoid / tanh) come in variants
 * per instruction set: portable C (the reference, and the only one of an embedded runtime),
 * x86-64 AVX2 + FMA and AVX-512, AArch64 NEON. By default the first kernel call picks the widest one the
 * CPU and the OS support. Variants differ by rounding only (summation order, fused
 * multiply-adds), within the tolerances of the ONNX conformance suite.
 *
 * The choice is process-wide: call berth_kernels_select before running programs on other
 * threads, not while they run. The runtime reads no environment variable; host programs
 * (the berth tool, tests, benchmarks) read BERTH_KERNELS (portable, avx2, avx512, neon, auto)
 * and pass it here. */
#ifndef BERTH_KERNELS_H
#define BERTH_KERNELS_H

#include "berth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum berth_kernels_isa {
  BERTH_KERNELS_AUTO = 0,     /* the widest variant this build and CPU support */
  BERTH_KERNELS_PORTABLE = 1, /* plain C */
  BERTH_KERNELS_AVX2 = 2,     /* x86-64 AVX2 + FMA */
  BERTH_KERNELS_AVX512 = 3,   /* x86-64 AVX-512F */
  BERTH_KERNELS_NEON = 4,     /* AArch64 Advanced SIMD */
  BERTH_KERNELS_ISA_COUNT
} berth_kernels_isa_t;

/* Makes `isa` the variant of every later kernel call in this process. Returns
 * BERTH_ERR_UNIMPLEMENTED (and changes nothing) if this build or this CPU lacks it,
 * BERTH_ERR_INVALID_ARGUMENT for a value outside the enum. AUTO always succeeds. */
berth_status_t berth_kernels_select(berth_kernels_isa_t isa);
/* The variant kernel calls use now (never AUTO). */
berth_kernels_isa_t berth_kernels_active(void);
/* Whether this build and CPU have `isa` (AUTO and PORTABLE: always). */
int berth_kernels_available(berth_kernels_isa_t isa);
/* "auto", "portable", "avx2", "avx512", "neon"; "?" for a value outside the enum. Static storage. */
const char *berth_kernels_isa_name(berth_kernels_isa_t isa);
/* The variant named `name` (as berth_kernels_isa_name spells it) in *isa; returns
 * BERTH_ERR_INVALID_ARGUMENT for any other text, or NULL. */
berth_status_t berth_kernels_isa_parse(const char *name, berth_kernels_isa_t *isa);

#ifdef __cplusplus
}
#endif

#endif
