/* The berth version in the program file's header (docs/format.md, "Header"): the writer
 * records its version in bytes 36..41, berth_program_writer_version reports it, and the
 * loader refuses a file written by a newer MAJOR.MINOR with a message naming both versions,
 * while older writers (also files from before the field, 0.0.0) and newer patch releases of
 * the same MAJOR.MINOR load. The checksum is checked first (a damaged file is damaged, not
 * "newer"), the version before the flags (a newer berth may use flags this one lacks), and
 * the header bytes after the version stay reserved. `berth dis` shows the writer, and says
 * the same as the API about a newer file. */
#define _POSIX_C_SOURCE 200809L
#include "berth/compiler.h"
#include "berth/runtime.h"
#include "berth/version.h"
#include "format/read_program.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static char msg[2048];

typedef struct file {
  uint8_t *b;
  size_t len;
} file_t;

/* The seed example compiled by the public compiler, copied into 8-byte aligned memory. */
static file_t compile_seed(void) {
  file_t f = {NULL, 0};
  size_t len;
  char *src = test_read_file(BERTH_SOURCE_DIR "/examples/seed/seed.bir", &len);
  CHECK(src != NULL);
  if (!src) return f;
  berth_compile_options_t opt = berth_compile_options_default();
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_compilation_t *c = NULL;
  CHECK_MSG(berth_compile(src, len, "seed.bir", &opt, &c, &d) == BERTH_OK, "%s", msg);
  free(src);
  if (!c) return f;
  const uint8_t *bytes = berth_compilation_bytes(c, &f.len);
  f.b = aligned_alloc(64, (f.len + 63) / 64 * 64);
  memcpy(f.b, bytes, f.len);
  berth_compilation_destroy(c);
  return f;
}

static file_t dup_file(file_t f) {
  file_t g = {aligned_alloc(64, (f.len + 63) / 64 * 64), f.len};
  memcpy(g.b, f.b, f.len);
  return g;
}

static void put16(uint8_t *p, unsigned v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

/* Sets the writer version and, when the file has a checksum, recomputes it (else the loader
 * would rightly call the file damaged). */
static void set_writer(file_t f, unsigned major, unsigned minor, unsigned patch) {
  put16(f.b + BERTH_FORMAT_HDR_WRITER_VERSION, major);
  put16(f.b + BERTH_FORMAT_HDR_WRITER_VERSION + 2, minor);
  put16(f.b + BERTH_FORMAT_HDR_WRITER_VERSION + 4, patch);
  if (f.b[BERTH_FORMAT_HDR_FLAGS] & BERTH_FORMAT_FLAG_CHECKSUM) {
    uint32_t sum = berth_format_checksum(f.b, f.len);
    for (int k = 0; k < 4; k++) f.b[BERTH_FORMAT_CHECKSUM_AT + k] = (uint8_t)(sum >> (8 * k));
  }
}

/* query then load through the public API; the status of the first that fails, with its
 * message in msg; on success the writer version in *v. */
static berth_status_t load(file_t f, berth_version_triple_t *v) {
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  msg[0] = 0;
  berth_program_sizes_t sz;
  berth_status_t st = berth_program_query(f.b, f.len, &sz, &d);
  if (st) return st;
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
  berth_program_t *p = NULL;
  st = berth_program_load(f.b, f.len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &p, &d);
  if (st == BERTH_OK && v) *v = berth_program_writer_version(p);
  free(scratch);
  free(pmem);
  return st;
}

static void expect_newer_refused(file_t base, unsigned major, unsigned minor, unsigned patch) {
  file_t f = dup_file(base);
  set_writer(f, major, minor, patch);
  char want[512];
  snprintf(want, sizeof want,
           "header (byte 36): program written by berth %u.%u.%u; this runtime is berth %s: rebuild the runtime with "
           "berth %u.%u or newer, or recompile the program with berth %s",
           major, minor, patch, BERTH_VERSION_STRING, major, minor, BERTH_VERSION_STRING);
  berth_status_t st = load(f, NULL);
  CHECK_MSG(st == BERTH_ERR_UNIMPLEMENTED && strcmp(msg, want) == 0, "writer %u.%u.%u: %s: %s\n  want: %s", major, minor,
            patch, berth_status_name(st), msg, want);
  free(f.b);
}

static void expect_loads(file_t base, unsigned major, unsigned minor, unsigned patch) {
  file_t f = dup_file(base);
  set_writer(f, major, minor, patch);
  berth_version_triple_t v = {9, 9, 9};
  berth_status_t st = load(f, &v);
  CHECK_MSG(st == BERTH_OK && v.major == major && v.minor == minor && v.patch == patch,
            "writer %u.%u.%u: %s: %s (reported %u.%u.%u)", major, minor, patch, berth_status_name(st), msg,
            (unsigned)v.major, (unsigned)v.minor, (unsigned)v.patch);
  free(f.b);
}

static void writer_versions(file_t seed) {
  /* what the compiler writes: its own version, which is the runtime's */
  CHECK(strcmp(berth_runtime_version(), BERTH_VERSION_STRING) == 0);
  CHECK(strcmp(berth_version(), berth_runtime_version()) == 0);
  berth_version_triple_t v = {9, 9, 9};
  CHECK_MSG(load(seed, &v) == BERTH_OK, "%s", msg);
  CHECK_MSG(v.major == BERTH_VERSION_MAJOR && v.minor == BERTH_VERSION_MINOR && v.patch == BERTH_VERSION_PATCH,
            "the writer recorded %u.%u.%u", (unsigned)v.major, (unsigned)v.minor, (unsigned)v.patch);
  CHECK(berth_program_writer_version(NULL).major == 0);
  CHECK(BERTH_VERSION_NUMBER == BERTH_VERSION_MAJOR * 10000 + BERTH_VERSION_MINOR * 100 + BERTH_VERSION_PATCH);

  /* newer MAJOR.MINOR: refused, naming both */
  expect_newer_refused(seed, BERTH_VERSION_MAJOR, BERTH_VERSION_MINOR + 1, 0);
  expect_newer_refused(seed, BERTH_VERSION_MAJOR, BERTH_VERSION_MINOR + 1, 7);
  expect_newer_refused(seed, BERTH_VERSION_MAJOR + 1, 0, 0);
  expect_newer_refused(seed, 65535, 65535, 65535);
  /* same format, older writer, a newer patch release, or no version recorded: loads */
  expect_loads(seed, BERTH_VERSION_MAJOR, BERTH_VERSION_MINOR, BERTH_VERSION_PATCH + 1);
  expect_loads(seed, 0, 0, 0);
  expect_loads(seed, 0, 1, 0);
  if (BERTH_VERSION_MINOR > 0) expect_loads(seed, BERTH_VERSION_MAJOR, BERTH_VERSION_MINOR - 1, 9);
  if (BERTH_VERSION_MAJOR > 0) expect_loads(seed, BERTH_VERSION_MAJOR - 1, 99, 0);
}

static void check_order(file_t seed) {
  /* a damaged file is damaged, whatever its version bytes say */
  file_t f = dup_file(seed);
  CHECK(f.b[BERTH_FORMAT_HDR_FLAGS] & BERTH_FORMAT_FLAG_CHECKSUM);
  put16(f.b + BERTH_FORMAT_HDR_WRITER_VERSION + 2, BERTH_VERSION_MINOR + 1);
  CHECK_MSG(load(f, NULL) == BERTH_ERR_CORRUPT_DATA && strstr(msg, "(the file is damaged)"), "%s", msg);
  /* a newer writer's unknown flag: the version is the reason given */
  f.b[BERTH_FORMAT_HDR_FLAGS] |= 0x80;
  set_writer(f, BERTH_VERSION_MAJOR, BERTH_VERSION_MINOR + 1, 0);
  CHECK_MSG(load(f, NULL) == BERTH_ERR_UNIMPLEMENTED && strstr(msg, "program written by berth"), "%s", msg);
  /* ... but from this berth or an older one, an unknown flag is corruption */
  set_writer(f, BERTH_VERSION_MAJOR, BERTH_VERSION_MINOR, BERTH_VERSION_PATCH);
  CHECK_MSG(load(f, NULL) == BERTH_ERR_CORRUPT_DATA && strstr(msg, "header (byte 12): unknown flag bits 0x80"), "%s", msg);
  free(f.b);
  /* another format version: the format decides first, and the message names this berth */
  f = dup_file(seed);
  put16(f.b + BERTH_FORMAT_HDR_VERSION, BERTH_PROGRAM_FORMAT_VERSION + 1);
  set_writer(f, BERTH_VERSION_MAJOR, BERTH_VERSION_MINOR + 1, 0);
  char want[256];
  snprintf(want, sizeof want, "header (byte 6): format version %d; this runtime reads version %d (berth %s)",
           BERTH_PROGRAM_FORMAT_VERSION + 1, BERTH_PROGRAM_FORMAT_VERSION, BERTH_VERSION_STRING);
  CHECK_MSG(load(f, NULL) == BERTH_ERR_UNIMPLEMENTED && strcmp(msg, want) == 0, "%s\n  want: %s", msg, want);
  free(f.b);
}

/* Bytes 42..63 stay reserved: each refused alone when not 0, with its offset. */
static void reserved_bytes(file_t seed) {
  CHECK(BERTH_FORMAT_HDR_RESERVED == BERTH_FORMAT_HDR_WRITER_VERSION + 6);
  int refused = 0;
  for (int at = BERTH_FORMAT_HDR_RESERVED; at < BERTH_FORMAT_HEADER_SIZE; at++) {
    file_t f = dup_file(seed);
    f.b[at] = 1;
    uint32_t sum = berth_format_checksum(f.b, f.len);
    for (int k = 0; k < 4; k++) f.b[BERTH_FORMAT_CHECKSUM_AT + k] = (uint8_t)(sum >> (8 * k));
    char want[128];
    snprintf(want, sizeof want, "header (byte %d): reserved byte is 1, not 0", at);
    berth_status_t st = load(f, NULL);
    CHECK_MSG(st == BERTH_ERR_CORRUPT_DATA && strcmp(msg, want) == 0, "byte %d: %s: %s", at, berth_status_name(st), msg);
    refused += st == BERTH_ERR_CORRUPT_DATA;
    free(f.b);
  }
  CHECK(refused == BERTH_FORMAT_HEADER_SIZE - BERTH_FORMAT_HDR_RESERVED);
}

static char *run_cmd(const char *cmd, int *rc) {
  FILE *f = popen(cmd, "r");
  if (!f) return NULL;
  static char buf[1 << 16];
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  buf[len] = 0;
  *rc = pclose(f);
  return buf;
}

static bool write_file(const char *path, file_t f) {
  FILE *o = fopen(path, "wb");
  bool ok = o && fwrite(f.b, 1, f.len, o) == f.len;
  if (o) fclose(o);
  return ok;
}

/* `berth dis` names the writer; on a newer file it fails with the loader's message. */
static void cli_dis(file_t seed) {
  char dir[] = "/tmp/berth_version_XXXXXX", path[256], cmd[1024];
  if (!mkdtemp(dir)) {
    CHECK_MSG(0, "mkdtemp failed");
    return;
  }
  int rc;
  snprintf(path, sizeof path, "%s/seed.berth", dir);
  CHECK(write_file(path, seed));
  snprintf(cmd, sizeof cmd, "'%s' dis '%s' 2>&1", BERTH_TOOL, path);
  char *o = run_cmd(cmd, &rc);
  CHECK_MSG(rc == 0 && o && strstr(o, "\nwritten by berth " BERTH_VERSION_STRING "\n"), "%s: %s", cmd, o ? o : "");
  file_t f = dup_file(seed);
  set_writer(f, 0, 0, 0);
  CHECK(write_file(path, f));
  o = run_cmd(cmd, &rc);
  CHECK_MSG(rc == 0 && o && strstr(o, "written by berth 0.4.0 or older (no version recorded)"), "%s: %s", cmd, o ? o : "");
  set_writer(f, BERTH_VERSION_MAJOR + 1, 2, 3);
  CHECK(write_file(path, f));
  o = run_cmd(cmd, &rc);
  char want[256];
  snprintf(want, sizeof want, "program written by berth %d.2.3; this runtime is berth %s", BERTH_VERSION_MAJOR + 1,
           BERTH_VERSION_STRING);
  CHECK_MSG(rc != 0 && o && strstr(o, want), "%s: %s", cmd, o ? o : "");
  free(f.b);
  snprintf(cmd, sizeof cmd, "'%s' --version", BERTH_TOOL);
  o = run_cmd(cmd, &rc);
  char ver[128];
  snprintf(ver, sizeof ver, "berth %s (program file format version %d)\n", BERTH_VERSION_STRING, BERTH_PROGRAM_FORMAT_VERSION);
  CHECK_MSG(rc == 0 && o && strcmp(o, ver) == 0, "%s: %s", cmd, o ? o : "");
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

int main(void) {
  file_t seed = compile_seed();
  if (!seed.b) return test_finish("test_format_version");
  writer_versions(seed);
  check_order(seed);
  reserved_bytes(seed);
  cli_dis(seed);
  free(seed.b);
  return test_finish("test_format_version");
}
