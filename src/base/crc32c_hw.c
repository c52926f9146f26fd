/* CRC-32C with the processor's own instruction (crc32c.h's berth_crc32c_update_hw): SSE4.2's
 * crc32 on x86-64, the CRC extension's crc32c on AArch64 Linux, eight bytes per instruction,
 * in libberth_runtime builds with kernel variants (BERTH_KERNELS_SIMD; a small runtime for a
 * microcontroller compiles this file empty and keeps the table). The same function as the
 * table: the instruction computes CRC-32C's reflected polynomial 0x82F63B78, and the register
 * starts and ends inverted as in crc32c.c. Availability is read from the CPU (cpuid through
 * libgcc / compiler-rt, getauxval on AArch64): no state of its own. No heap, no stdio.
 *
 * The instruction takes 3 cycles and can start every cycle, so long buffers run as three
 * streams over consecutive blocks of CRC_HW_BLOCK bytes, joined in GF(2): the register after
 * block 1 shifted over the next block's length (a multiplication by x^(8 * CRC_HW_BLOCK)
 * modulo the polynomial) is XORed with block 2's register computed from zero, and so on. */
#include "base/crc32c.h"

#include <string.h>

#if defined(BERTH_KERNELS_SIMD) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC_HW_X86 1
#define CRC_TARGET __attribute__((target("sse4.2")))
#define CRC_U8(c, b) __builtin_ia32_crc32qi((c), (b))
#define CRC_U64(c, v) ((uint32_t)__builtin_ia32_crc32di((c), (v)))
#elif defined(BERTH_KERNELS_SIMD) && defined(__aarch64__) && defined(__linux__) && \
    (defined(__GNUC__) || defined(__clang__))
#define CRC_HW_ARM 1
#include <arm_acle.h>
#include <sys/auxv.h>
#define CRC_HWCAP_CRC32 (1ul << 7) /* <asm/hwcap.h>'s HWCAP_CRC32 */
#define CRC_TARGET __attribute__((target("+crc")))
#define CRC_U8(c, b) __crc32cb((c), (b))
#define CRC_U64(c, v) __crc32cd((c), (v))
#endif

#if defined(CRC_HW_X86) || defined(CRC_HW_ARM)
#define CRC_POLY 0x82F63B78u
#define CRC_HW_BLOCK 4096 /* bytes per stream and round: the join's cost spread over 12 KiB */

/* a * b modulo the polynomial, both reflected (bit 31 is x^0) */
static uint32_t crc_mulmod(uint32_t a, uint32_t b) {
  uint32_t p = 0;
  for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
    if (a & m) p ^= b;
    b = (b & 1u) ? (b >> 1) ^ CRC_POLY : b >> 1;
  }
  return p;
}

/* x^(8 * n) modulo the polynomial (reflected), by squaring: x^8 is 0x00800000 */
static uint32_t crc_xpow8n(uint64_t n) {
  uint32_t r = 1u << 31, s = 1u << 23; /* x^0, x^8 */
  for (; n != 0; n >>= 1, s = crc_mulmod(s, s))
    if (n & 1u) r = crc_mulmod(r, s);
  return r;
}

/* The raw register (not inverted) over n bytes from c. */
CRC_TARGET static uint32_t crc_run(uint32_t c, const uint8_t *p, size_t n) {
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    c = CRC_U64(c, v);
  }
  for (; n > 0; n--) c = CRC_U8(c, *p++);
  return c;
}

CRC_TARGET static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n) {
  uint32_t c = ~crc;
  for (; n > 0 && ((uintptr_t)p & 7u) != 0; n--) c = CRC_U8(c, *p++);
  if (n >= 3 * CRC_HW_BLOCK) {
    const uint32_t shift = crc_xpow8n(CRC_HW_BLOCK); /* one block's length */
    for (; n >= 3 * CRC_HW_BLOCK; n -= 3 * CRC_HW_BLOCK, p += 3 * CRC_HW_BLOCK) {
      uint32_t c1 = 0, c2 = 0;
      for (size_t o = 0; o < CRC_HW_BLOCK; o += 8) {
        uint64_t v0, v1, v2;
        memcpy(&v0, p + o, 8);
        memcpy(&v1, p + CRC_HW_BLOCK + o, 8);
        memcpy(&v2, p + 2 * CRC_HW_BLOCK + o, 8);
        c = CRC_U64(c, v0);
        c1 = CRC_U64(c1, v1);
        c2 = CRC_U64(c2, v2);
      }
      c = crc_mulmod(crc_mulmod(c, shift) ^ c1, shift) ^ c2;
    }
  }
  return ~crc_run(c, p, n);
}
#endif

#if defined(CRC_HW_X86)
static bool crc_hw_present(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#elif defined(CRC_HW_ARM)
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
