/* CRC-32C with the processor's instruction (src/base/crc32c_hw.c) against the 1 KiB table:
 * runtime only, so it also runs cross-built for AArch64 under qemu (tests/neon,
 * tests/cli/neon_qemu.sh), where the CRC extension computes it. */
#include "base/crc32c.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>

/* The instruction path (crc32c_hw.c) against the table: every length up to 300 at each of the
 * 8 alignments of its start (the head before the first aligned 8 bytes, the 8-byte steps and
 * the tail), lengths around the three-stream rounds, a start value carried in, 1 MiB whole
 * and in uneven pieces; the shipped function
 * switches between the two at 256 bytes, so lengths around it must agree too. Where the CPU or
 * the build has no instruction, update_hw is the table and this says so. */
static void hardware_form(uint64_t seed) {
  printf("crc32c: the processor's instruction %s\n",
         berth_crc32c_hw_available() ? "runs (compared with the table below)" : "is not available here: the table runs");
  enum { BIG = 1 << 20 };
  uint8_t *buf = malloc(BIG + 8);
  CHECK(buf != NULL);
  if (!buf) return;
  uint64_t s = seed;
  for (size_t i = 0; i < BIG + 8; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    buf[i] = (uint8_t)(s >> 56);
  }
  for (size_t off = 0; off < 8; off++)
    for (size_t n = 0; n <= 300; n++) {
      const uint32_t t = berth_crc32c_update_table(0x5eedu, buf + off, n);
      const uint32_t h = berth_crc32c_update_hw(0x5eedu, buf + off, n);
      CHECK_MSG(h == t, "offset %zu, %zu bytes: instruction 0x%08x, table 0x%08x", off, n, h, t);
      CHECK_MSG(berth_crc32c_update(0x5eedu, buf + off, n) == t, "offset %zu, %zu bytes: shipped", off, n);
    }
  /* around the three-stream rounds of 3 x 4096 bytes (crc32c_hw.c's CRC_HW_BLOCK) */
  static const size_t around[] = {12287, 12288, 12289, 12295, 24575, 24576, 24583, 36871, 65536};
  for (size_t off = 0; off < 8; off++)
    for (size_t k = 0; k < sizeof around / sizeof around[0]; k++) {
      const uint32_t t = berth_crc32c_update_table(0xfeedu, buf + off, around[k]);
      CHECK_MSG(berth_crc32c_update_hw(0xfeedu, buf + off, around[k]) == t, "offset %zu, %zu bytes", off, around[k]);
    }
  const uint32_t whole = berth_crc32c_update_table(0, buf + 3, BIG);
  CHECK(berth_crc32c_update_hw(0, buf + 3, BIG) == whole);
  CHECK(berth_crc32c_update(0, buf + 3, BIG) == whole);
  uint32_t c = 0;
  for (size_t at = 0, step = 1; at < BIG; at += step, step = step * 3 + 1) {
    const size_t n = BIG - at < step ? BIG - at : step;
    c = berth_crc32c_update(c, buf + 3 + at, n);
  }
  CHECK_MSG(c == whole, "1 MiB in pieces of 1, 4, 13, ... bytes: 0x%08x, whole 0x%08x", c, whole);
  free(buf);
}

int main(int argc, char **argv) {
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 7;
  hardware_form(seed);
  return test_finish("test_crc32c_hw");
}
