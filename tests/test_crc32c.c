/* CRC-32C (src/base/crc32c.c) and the .berth checksum built on it.
 *
 * 1. The table and the bitwise form agree with the standard check value
 *    (CRC-32C("123456789") = 0xE3069283), with each other on random buffers of every length
 *    up to 300 and when fed in pieces (the instruction form: test_crc32c_hw.c).
 * 2. Every single-bit flip of a compiled example with a checksum is refused at load (the
 *    whole file: header, table, sections, padding). Without the checksum some flips load
 *    and compute something else; that count is printed, for the README. */
#include "base/crc32c.h"
#include "berth/runtime.h"
#include "format/read_program.h"
#include "writer/write_program.h"
#include "ir/ir.h"
#include "plan/plan.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void known_values(uint64_t seed) {
  CHECK(berth_crc32c_update(0, "123456789", 9) == 0xE3069283u);
  CHECK(berth_crc32c_update_bitwise(0, "123456789", 9) == 0xE3069283u);
  CHECK(berth_crc32c_update(0, "", 0) == 0);
  CHECK(berth_crc32c_update(0x1234u, NULL, 0) == 0x1234u); /* berth/checksum.h: NULL with n = 0 */
  uint8_t buf[300];
  uint64_t s = seed;
  for (size_t n = 0; n <= sizeof buf; n++) {
    for (size_t i = 0; i < n; i++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      buf[i] = (uint8_t)(s >> 56);
    }
    uint32_t a = berth_crc32c_update(0, buf, n), b = berth_crc32c_update_bitwise(0, buf, n);
    CHECK_MSG(a == b, "seed %llu, %zu bytes: shipped 0x%08x, bitwise 0x%08x", (unsigned long long)seed, n, a, b);
    CHECK_MSG(berth_crc32c_update_table(0, buf, n) == b, "seed %llu, %zu bytes: table", (unsigned long long)seed, n);
    size_t cut = n / 3;
    CHECK_MSG(berth_crc32c_update(berth_crc32c_update(0, buf, cut), buf + cut, n - cut) == a,
              "seed %llu, %zu bytes: in two pieces", (unsigned long long)seed, n);
  }
}

static uint8_t *compile(const char *rel, bool checksum, size_t *len) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", BERTH_SOURCE_DIR, rel);
  size_t tlen;
  char *text = test_read_file(path, &tlen);
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_compiled_t *c = NULL;
  uint8_t *out = NULL;
  berth_plan_options_t po = berth_plan_options_default();
  berth_format_write_options_t wo = berth_format_write_options_default();
  CHECK(wo.checksum); /* written by default */
  wo.checksum = checksum;
  wo.ir = NULL;
  if (!text || berth_ir_parse(text, tlen, rel, &p, &d) || berth_ir_validate(p, &d) || berth_plan_compile(p, &po, &c, &d) ||
      berth_format_write(&c->exec, &wo, &out, len, &d)) {
    CHECK_MSG(0, "cannot compile %s: %s", rel, msg);
    out = NULL;
  }
  free(text);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  return out;
}

/* Loads bytes through the public API; true if they load. */
static bool loads(const uint8_t *bytes, size_t len, char *msg, size_t cap) {
  berth_diag_t d = berth_diag_make(msg, cap);
  berth_program_sizes_t sz;
  if (berth_program_query(bytes, len, &sz, &d)) return false;
  if (sz.program_bytes > (64u << 20) || sz.scratch_bytes > (64u << 20)) return false;
  void *mem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
  berth_program_t *prog = NULL;
  berth_status_t st = berth_program_load(bytes, len, mem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &d);
  free(mem);
  free(scratch);
  return st == BERTH_OK;
}

static void every_flip(const char *rel) {
  for (int with = 1; with >= 0; with--) {
    size_t len = 0;
    uint8_t *orig = compile(rel, with, &len);
    if (!orig) return;
    uint8_t *m = aligned_alloc(64, (len + 63) / 64 * 64);
    char msg[1024];
    CHECK_MSG(loads(orig, len, msg, sizeof msg), "%s: %s", rel, msg);
    CHECK(((orig[12] & BERTH_FORMAT_FLAG_CHECKSUM) != 0) == with);
    long loaded = 0, damaged = 0;
    for (size_t at = 0; at < len; at++)
      for (int bit = 0; bit < 8; bit++) {
        memcpy(m, orig, len);
        m[at] ^= (uint8_t)(1u << bit);
        if (loads(m, len, msg, sizeof msg)) {
          loaded++;
          if (with) CHECK_MSG(0, "%s: the flip of bit %d of byte %zu loads despite the checksum", rel, bit, at);
        } else if (strstr(msg, "the file is damaged")) {
          damaged++;
        }
      }
    printf("%s, %s checksum: %zu bytes, %ld of %zu single-bit flips load (%ld refused by the checksum)\n", rel,
           with ? "with" : "without", len, loaded, len * 8, damaged);
    free(m);
    free(orig);
  }
}

int main(int argc, char **argv) {
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 7;
  known_values(seed);
  every_flip("examples/seed/seed.bir");
  every_flip("examples/while_loop/countdown.bir");
  every_flip("examples/scan/scan.bir");
  return test_finish("test_crc32c");
}
