/* Kernel scratch planned in the arena (berth_kernel_call_t.scratch; the ops that ask for it
 * are listed in kernel_scratch.c).
 *
 *   uint64_t berth_scratch_conv(attrs, in, n_in) { ... return berth_scratch_request(n, sizeof(float)); }
 *   ...
 *   int64_t n;
 *   float *buf = berth_scratch_take(call, sizeof(float), &n);   // n floats, 64-byte aligned
 *
 * A request carries BERTH_SCRATCH_SLACK bytes beyond what the kernel wants, and a kernel
 * always uses (bytes - slack) / elem elements starting at the first 64-byte boundary: the
 * count does not depend on the address, so a call planned anywhere (the arena, the
 * reference interpreter's malloc) blocks its loops the same way and gives the same bits. */
#ifndef BERTH_KERNELS_KERNEL_SCRATCH_H
#define BERTH_KERNELS_KERNEL_SCRATCH_H

#include "op_table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BERTH_SCRATCH_ALIGN 64
#define BERTH_SCRATCH_SLACK 64

/* Bytes to ask for `elems` elements of `elem` bytes: with the slack, capped at
 * BERTH_SCRATCH_MAX_BYTES (then the kernel blocks its loops smaller); 0 for 0 elements. */
static inline uint64_t berth_scratch_request(uint64_t elems, uint64_t elem) {
  if (elems == 0 || elem == 0) return 0;
  if (elems > (BERTH_SCRATCH_MAX_BYTES - BERTH_SCRATCH_SLACK) / elem) return BERTH_SCRATCH_MAX_BYTES;
  return elems * elem + BERTH_SCRATCH_SLACK;
}

/* The call's scratch as elements of `elem` bytes aligned to BERTH_SCRATCH_ALIGN: *n of them
 * (0, and NULL returned, when the call has too little). */
static inline void *berth_scratch_take(const berth_kernel_call_t *call, size_t elem, int64_t *n) {
  *n = 0;
  if (!call->scratch || call->scratch_bytes <= BERTH_SCRATCH_SLACK) return NULL;
  uintptr_t a = (uintptr_t)call->scratch;
  uintptr_t b = (a + (BERTH_SCRATCH_ALIGN - 1)) & ~(uintptr_t)(BERTH_SCRATCH_ALIGN - 1);
  *n = (int64_t)((call->scratch_bytes - BERTH_SCRATCH_SLACK) / elem);
  return *n > 0 ? (void *)b : NULL;
}

/* The ops' requests (each in its kernel's file), for kernel_scratch.c's table. */
uint64_t berth_scratch_conv(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
uint64_t berth_scratch_matmul(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
uint64_t berth_scratch_gemm(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
uint64_t berth_scratch_image_decoder(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
uint64_t berth_scratch_conv_transpose(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
uint64_t berth_scratch_conv_packed(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
uint64_t berth_scratch_matmul_packed(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
uint64_t berth_scratch_max_pool(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
uint64_t berth_scratch_avg_pool(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
uint64_t berth_scratch_conv_winograd(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);

/* Compiler side of conv_packed (kernel_conv.c; src/passes/pack.c): whether a conv call with
 * these operand types and attributes has its weights packed (f32, and the packed GEMM
 * applies on every variant), and the packing: dst gets the packed weights of w (panels of 32
 * rows where 32 divides M / group, else of BERTH_GEMM_APANEL), *packed their type
 * (berth_conv_packed_floats floats). */
bool berth_conv_packable(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
/* The floats berth_conv_pack_weights writes for a packable conv. */
uint64_t berth_conv_packed_floats(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in);
void berth_conv_pack_weights(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, const float *w,
                             float *dst, berth_type_t *packed);

/* Compiler side of matmul_packed (kernel_matmul_packed.c; src/passes/pack.c): B' (B [K, N],
 * or B [N, K] with trans) times alpha into column panels of BERTH_MM_BPANEL floats, dst
 * f32[ceil(N / BERTH_MM_BPANEL), K, BERTH_MM_BPANEL], zeros past column N. */
#define BERTH_MM_BPANEL 32
void berth_mm_pack_weights(const float *b, int64_t K, int64_t N, bool trans, float alpha, float *dst);

#endif
