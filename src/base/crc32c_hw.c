/* CRC-32C with the processor's own instruction (crc32c.h's berth_crc32c_update_hw): SSE4.2's
 * crc32 on x86-64, the CRC extension's crc32c on AArch64 Linux, eight bytes per instruction,
 * in libberth_runtime builds with kernel variants (BERTH_KERNELS_SIMD; a small runtime for a
 * microcontroller compiles this file empty and keeps the table). The same function as the
 * table: the instruction computes CRC-32C's reflected polynomial 0x82F63B78, and the register
 * starts and ends inverted as in crc32c.c. Availability is read from the CPU (cpuid through
 * libgcc / compiler-rt, getauxval on AArch64): no state of its own. No heap, no stdio. */
#include "base/crc32c.h"

#include <string.h>

#if defined(BERTH_KERNELS_SIMD) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC_HW_X86 1
#elif defined(BERTH_KERNELS_SIMD) && defined(__aarch64__) && defined(__linux__) && \
    (defined(__GNUC__) || defined(__clang__))
#define CRC_HW_ARM 1
#include <arm_acle.h>
#include <sys/auxv.h>
#define CRC_HWCAP_CRC32 (1ul << 7) /* <asm/hwcap.h>'s HWCAP_CRC32 */
#endif

#if defined(CRC_HW_X86)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n) {
  uint64_t c = ~crc;
  for (; n > 0 && ((uintptr_t)p & 7u) != 0; n--) c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    c = __builtin_ia32_crc32di(c, v);
  }
  for (; n > 0; n--) c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
  return ~(uint32_t)c;
}
static bool crc_hw_present(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#elif defined(CRC_HW_ARM)
__attribute__((target("+crc"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n) {
  uint32_t c = ~crc;
  for (; n > 0 && ((uintptr_t)p & 7u) != 0; n--) c = __crc32cb(c, *p++);
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    c = __crc32cd(c, v);
  }
  for (; n > 0; n--) c = __crc32cb(c, *p++);
  return ~c;
}
static bool crc_hw_present(void) { return (getauxval(AT_HWCAP) & CRC_HWCAP_CRC32) != 0; }
#endif

bool berth_crc32c_hw_available(void) {
#if defined(CRC_HW_X86) || defined(CRC_HW_ARM)
  return crc_hw_present();
#else
  return false;
#endif
}

uint32_t berth_crc32c_update_hw(uint32_t crc, const void *bytes, size_t n) {
#if defined(CRC_HW_X86) || defined(CRC_HW_ARM)
  if (n > 0 && crc_hw_present()) return crc_hw(crc, bytes, n);
#endif
  return berth_crc32c_update_table(crc, bytes, n);
}
