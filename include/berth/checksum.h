/* The checksum of .berth program files: CRC-32C (Castagnoli, reflected polynomial
 * 0x82F63B78), the same function the loader checks a file with.
 *
 *   uint32_t c = berth_crc32c_update(0, bytes, n);      // whole buffer
 *   c = berth_crc32c_update(c, more, m);                // or in pieces: same result
 *
 * For callers that keep their own integrity records of files or buffers (a bootloader
 * checking a program image in flash before handing it to berth_program_load, say).
 * Byte-at-a-time with a 1 KiB read-only table, or the processor's CRC-32C instruction for
 * buffers of 256 bytes and more where libberth_runtime has kernel variants and the CPU has
 * it (x86-64 SSE4.2, AArch64 Linux with the CRC extension): the same value either way; no
 * heap, no stdio; part of the runtime (libberth_runtime.a and libberth.so). */
#ifndef BERTH_CHECKSUM_H
#define BERTH_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Continues a CRC-32C: crc is the value of the bytes so far (0 to start); bytes may be
 * NULL when n is 0. berth_crc32c_update(0, "123456789", 9) == 0xE3069283. */
uint32_t berth_crc32c_update(uint32_t crc, const void *bytes, size_t n);

#ifdef __cplusplus
}
#endif
#endif
