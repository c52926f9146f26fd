/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of .berth files.
 *
 *   uint32_t c = berth_crc32c_update(0, bytes, n);      // whole buffer
 *   c = berth_crc32c_update(c, more, m);                // or in pieces: same result
 *
 * Why CRC-32C: it detects every error of up to 3 bits and every burst up to 32 bits in
 * files of the sizes berth writes, it needs no multiply (a Cortex-M0 has no fast one), and
 * byte-at-a-time it is one table lookup, one shift and two XORs per byte. The table is
 * 1 KiB of read-only data (flash on a microcontroller). x86-64 (SSE4.2) and AArch64 (the CRC
 * extension) compute CRC-32C in one instruction per 8 bytes: libberth_runtime built with
 * kernel variants uses it where the CPU has it (crc32c_hw.c), a small runtime keeps the
 * table. bench/crc32c measured on x86-64 (gcc 12, -O2): 413 MB/s with this table, 100 MB/s
 * bitwise (no table), 2,380 MB/s slice-by-8 (8 KiB of tables); the instruction: see
 * bench/crc32c (ResNet-50's 103 MB program file took about a quarter of a second per pass
 * with the table). An xxHash-style hash is faster on 64-bit hosts but relies on 32x32-bit
 * multiplies and guarantees nothing for few-bit errors. No heap, no stdio. */
#ifndef BERTH_BASE_CRC32C_H
#define BERTH_BASE_CRC32C_H

#include "berth/checksum.h" /* berth_crc32c_update */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The same value computed bit by bit, without the table (for tests). */
uint32_t berth_crc32c_update_bitwise(uint32_t crc, const void *bytes, size_t n);

/* The same value from the 1 KiB table alone (what a small runtime ships). */
uint32_t berth_crc32c_update_table(uint32_t crc, const void *bytes, size_t n);

/* The same value with the processor's CRC-32C instruction (crc32c_hw.c: x86-64 SSE4.2, AArch64
 * Linux with the CRC extension, in builds with kernel variants), else from the table;
 * berth_crc32c_update takes it for buffers of 256 bytes and more. */
uint32_t berth_crc32c_update_hw(uint32_t crc, const void *bytes, size_t n);

/* Whether berth_crc32c_update_hw runs the instruction on this build and CPU. */
bool berth_crc32c_hw_available(void);

#endif
