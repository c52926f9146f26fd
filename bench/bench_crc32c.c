/* bench/crc32c: the speed of the .berth checksum (CRC-32C) in the forms one could ship,
 * measured side by side on the same buffers: byte-at-a-time with a 1 KiB table (what a
 * small runtime ships; a copy here), libberth_runtime's berth_crc32c_update (with kernel
 * variants: the processor's instruction for 256 bytes and more where the CPU has it, else
 * the same table), bitwise with no table and slice-by-8 with 8 KiB of tables (both here
 * only, for comparison). Prints the median MB/s of --reps runs and the ratios.
 *
 *   crc32c [--reps N]        (default 15) */
#define _POSIX_C_SOURCE 200809L

#include "berth/checksum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint32_t t8[8][256];

#define POLY 0x82F63B78u

static uint32_t bitwise(uint32_t crc, const void *bytes, size_t n) {
  const uint8_t *p = bytes;
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (POLY & (0u - (crc & 1u)));
  }
  return ~crc;
}

static void slice8_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (POLY & (0u - (c & 1u)));
    t8[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int s = 1; s < 8; s++) t8[s][i] = (t8[s - 1][i] >> 8) ^ t8[0][t8[s - 1][i] & 0xFF];
}

/* byte-at-a-time with one 1 KiB table (t8[0]): src/base/crc32c.c's table form, what a small
 * runtime ships */
static uint32_t table1(uint32_t crc, const void *bytes, size_t n) {
  const uint8_t *p = bytes;
  crc = ~crc;
  for (size_t i = 0; i < n; i++) crc = t8[0][(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

static uint32_t slice8(uint32_t crc, const void *bytes, size_t n) {
  const uint8_t *p = bytes;
  crc = ~crc;
  while (n >= 8) {
    uint32_t a = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    crc = t8[7][a & 0xFF] ^ t8[6][(a >> 8) & 0xFF] ^ t8[5][(a >> 16) & 0xFF] ^ t8[4][a >> 24] ^ t8[3][p[4]] ^
          t8[2][p[5]] ^ t8[1][p[6]] ^ t8[0][p[7]];
    p += 8;
    n -= 8;
  }
  while (n--) crc = t8[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

/* Median MB/s of reps runs over buf, each run repeated until it lasts >= 20 ms. */
static double mbps(crc_fn f, const uint8_t *buf, size_t n, int reps, uint32_t *sink) {
  double *r = malloc(sizeof *r * (size_t)reps);
  for (int k = 0; k < reps; k++) {
    long it = 0;
    double t0 = now_s(), t;
    do {
      *sink ^= f(0, buf, n);
      it++;
    } while ((t = now_s() - t0) < 0.02);
    r[k] = (double)n * (double)it / t / 1e6;
  }
  qsort(r, (size_t)reps, sizeof *r, cmp_double);
  double med = r[reps / 2];
  free(r);
  return med;
}

int main(int argc, char **argv) {
  int reps = 15;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
  if (reps < 1) reps = 1;
  slice8_init();
  size_t sizes[] = {3720, 1 << 20}; /* the compiled seed example; a 1 MiB program */
  uint8_t *buf = malloc(sizes[1]);
  uint64_t s = 1;
  for (size_t i = 0; i < sizes[1]; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    buf[i] = (uint8_t)(s >> 56);
  }
  uint32_t sink = 0;
  if (berth_crc32c_update(0, buf, sizes[1]) != slice8(0, buf, sizes[1]) ||
      berth_crc32c_update(0, buf + 1, sizes[1] - 1) != table1(0, buf + 1, sizes[1] - 1) ||
      berth_crc32c_update(0, buf, 4099) != bitwise(0, buf, 4099)) {
    fprintf(stderr, "crc32c: the forms disagree\n");
    return 1;
  }
  printf("CRC-32C, median of %d runs (MB/s; ratio to the 1 KiB table, what a small runtime ships)\n", reps);
  printf("%-10s %14s %14s %18s %18s\n", "bytes", "table 1 KiB", "bitwise 0 B", "slice-by-8 8 KiB", "libberth_runtime");
  for (size_t k = 0; k < 2; k++) {
    double a = mbps(table1, buf, sizes[k], reps, &sink);
    double b = mbps(bitwise, buf, sizes[k], reps, &sink);
    double c = mbps(slice8, buf, sizes[k], reps, &sink);
    double d = mbps(berth_crc32c_update, buf, sizes[k], reps, &sink);
    printf("%-10zu %14.0f %8.0f (%.2fx) %10.0f (%.2fx) %10.0f (%.2fx)\n", sizes[k], a, b, b / a, c, c / a, d, d / a);
  }
  free(buf);
  return sink == 0x12345678u; /* keep the calls */
}
