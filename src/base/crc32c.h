/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of .berth files.
 *
 *   uint32_t c = berth_crc32c_update(0, bytes, n);      // whole buffer
 *   c = berth_crc32c_update(c, more, m);                // or in pieces: same result
 *
 * Why CRC-32C: it detects every 1-, 2- and 3-bit error and every burst up to 32 bits in
 * files of the sizes berth writes (Hamming distance 4 up to ~2^31 bits of message for
 * Castagnoli's polynomial), it needs no multiply (a Cortex-M0 has no fast one), and
 * byte-at-a-time it is one table lookup, one shift and two XORs per byte. The table is
 * 1 KiB of read-only data (flash on a microcontroller); slice-by-8 would be 8 KiB for about
 * 2-3x the speed, and the bitwise form (no table) is about 8x slower: the file is checked
 * once per load, so 1 KiB of flash buys enough speed (see bench/crc32c.c). An xxHash-style
 * hash is faster on 64-bit hosts but relies on 32x32->64 multiplies and guarantees nothing
 * for few-bit errors. No heap, no stdio. */
#ifndef BERTH_BASE_CRC32C_H
#define BERTH_BASE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC-32C: crc is the value of the bytes so far (0 to start). */
uint32_t berth_crc32c_update(uint32_t crc, const void *bytes, size_t n);

/* The same value computed bit by bit, without the table (for tests and the benchmark). */
uint32_t berth_crc32c_update_bitwise(uint32_t crc, const void *bytes, size_t n);

#endif
