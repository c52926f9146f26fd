/* Corrupt program files (tests/corrupt/ *.berth) must each fail with their named error and
 * never crash. tests/corrupt/MANIFEST lists every file with the phase it must fail in
 * ("load": berth_program_load rejects it; "run": it loads, and executing it ends with the
 * error, e.g. a loop that never exits hitting the step limit), the status, and a substring
 * of the message. Each file is named after its error. They run through the same function
 * as the fuzz target (fuzz/fuzz_load.c), so the replay is exactly what the fuzzer checks.
 *
 * The corpus is generated from valid files compiled from examples/, tests/bir/assert.bir,
 * tests/bir/hoist.bir and tests/bir/dynamic_bound.bir,
 * by this program:
 *   build/tests/test_corrupt --write-corpus tests/corrupt
 * (the ir_ref cases alone, appended to MANIFEST: --append-ir-ref-corpus tests/corrupt; the
 * view-offset cases alone: --append-view-corpus tests/corrupt; the hoist cases:
 * --append-hoist-corpus tests/corrupt)
 * (it checks every expectation before writing) and committed as regression inputs: the
 * test itself only reads them. Every byte it patches is named by the field offsets of
 * src/format/format_layout.h, the table the loader reads the file with. */
#define _POSIX_C_SOURCE 200809L
#define BERTH_FUZZ_NO_ENTRY
#include "../fuzz/fuzz_load.c"

#include "base/byte_reader.h"
#include "format/read_program.h"
#include "writer/write_program.h"
#include "plan/plan.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  berth_status_t st;
} statuses[] = {
    {"corrupt_data", BERTH_ERR_CORRUPT_DATA},         {"out_of_range", BERTH_ERR_OUT_OF_RANGE},
    {"unimplemented", BERTH_ERR_UNIMPLEMENTED},       {"verify_failed", BERTH_ERR_VERIFY_FAILED},
    {"invalid_argument", BERTH_ERR_INVALID_ARGUMENT}, {"resource_exhausted", BERTH_ERR_RESOURCE_EXHAUSTED},
    {"check_failed", BERTH_ERR_CHECK_FAILED},
};

static const char *status_word(berth_status_t st) {
  for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
    if (statuses[i].st == st) return statuses[i].name;
  return "ok";
}

static bool status_from_word(const char *w, berth_status_t *st) {
  for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
    if (strcmp(statuses[i].name, w) == 0) {
      *st = statuses[i].st;
      return true;
    }
  return false;
}

/* ---- replay ------------------------------------------------------------------------------ */

static void count_file(const char *path, const char *name, const unsigned char *data, size_t len, void *ctx) {
  (void)path, (void)name, (void)data, (void)len, (void)ctx;
}

static int replay(void) {
  char dir[1024], path[2048];
  snprintf(dir, sizeof dir, "%s/tests/corrupt", BERTH_SOURCE_DIR);
  snprintf(path, sizeof path, "%s/MANIFEST", dir);
  size_t mlen;
  char *manifest = test_read_file(path, &mlen);
  CHECK_MSG(manifest != NULL, "cannot read %s", path);
  if (!manifest) return 0;
  int n = 0;
  char *save = NULL;
  static char why[4096];
  for (char *line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#' || !line[0]) continue;
    char *f[4];
    char *p = line;
    for (int k = 0; k < 4; k++) {
      f[k] = p;
      char *t = k < 3 ? strchr(p, '\t') : NULL;
      if (k < 3 && !t) {
        f[k] = NULL;
        break;
      }
      if (t) {
        *t = '\0';
        p = t + 1;
      }
    }
    CHECK_MSG(f[3] != NULL, "MANIFEST: malformed line '%s'", line);
    if (!f[3]) continue;
    berth_status_t want = BERTH_OK;
    CHECK_MSG(status_from_word(f[2], &want), "MANIFEST: unknown status '%s'", f[2]);
    bool run_phase = strcmp(f[1], "run") == 0;
    CHECK_MSG(run_phase || strcmp(f[1], "load") == 0, "MANIFEST: unknown phase '%s'", f[1]);
    snprintf(path, sizeof path, "%s/%s", dir, f[0]);
    size_t len;
    char *data = test_read_file(path, &len);
    CHECK_MSG(data != NULL, "cannot read %s", path);
    if (!data) continue;
    berth_fuzz_load_result_t res;
    int rc = berth_fuzz_load_check((const uint8_t *)data, len, &res, why, sizeof why);
    CHECK_MSG(rc == 0, "%s: %s", f[0], why);
    CHECK_MSG(res.phase == (run_phase ? 1 : 0) && res.status == want && strstr(res.msg, f[3]) != NULL,
              "%s: expected %s to fail with %s '%s'; got phase %d, %s: %s", f[0], f[1], f[2], f[3], res.phase,
              berth_status_name(res.status), res.msg);
    free(data);
    n++;
  }
  free(manifest);
  /* every corpus file is listed */
  int files = test_replay_dir(BERTH_SOURCE_DIR "/tests/corrupt", ".berth", 0, count_file, NULL);
  CHECK_MSG(files == n, "%d .berth files in tests/corrupt but %d MANIFEST entries", files, n);
  return n;
}

/* ---- generation ------------------------------------------------------------------------- */

typedef struct buf {
  uint8_t *b;
  size_t len;
} buf_t;

static bool gen_store_ir; /* compile_example* add the IR section (ir_ref) */

/* Compiled without a checksum unless asked: a changed byte then reaches the check that it
 * is about, instead of the checksum (which would refuse every one of them first). */
static buf_t compile_example_sum(const char *rel, const berth_plan_options_t *po, bool checksum) {
  buf_t out = {NULL, 0};
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", BERTH_SOURCE_DIR, rel);
  size_t len;
  char *text = test_read_file(path, &len);
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_compiled_t *c = NULL;
  berth_format_write_options_t wo = berth_format_write_options_default();
  wo.checksum = checksum;
  wo.store_ir = gen_store_ir;
  if (!text || berth_ir_parse(text, len, rel, &p, &d) || berth_ir_validate(p, &d) || berth_plan_compile(p, po, &c, &d) ||
      (wo.ir = gen_store_ir ? p : NULL, berth_format_write(&c->exec, &wo, &out.b, &out.len, &d)))
    fprintf(stderr, "cannot compile %s: %s\n", rel, msg);
  free(text);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  return out;
}

static buf_t compile_example(const char *rel, const berth_plan_options_t *po) {
  return compile_example_sum(rel, po, false);
}

static buf_t copy(buf_t b) {
  buf_t c = {malloc(b.len + 64), b.len};
  memcpy(c.b, b.b, b.len);
  return c;
}

static void w16(buf_t *m, uint64_t at, uint16_t v) {
  m->b[at] = (uint8_t)v;
  m->b[at + 1] = (uint8_t)(v >> 8);
}
static void w32(buf_t *m, uint64_t at, uint32_t v) {
  for (int k = 0; k < 4; k++) m->b[at + (uint64_t)k] = (uint8_t)(v >> (8 * k));
}
static void w64(buf_t *m, uint64_t at, uint64_t v) {
  for (int k = 0; k < 8; k++) m->b[at + (uint64_t)k] = (uint8_t)(v >> (8 * k));
}
static uint16_t r16(const buf_t *m, uint64_t at) { return berth_load_le16(m->b + at); }
static uint32_t r32(const buf_t *m, uint64_t at) { return berth_load_le32(m->b + at); }
static uint64_t r64(const buf_t *m, uint64_t at) { return berth_load_le64(m->b + at); }

/* Byte offset of the section table entry of section id. */
static uint64_t entry_at(uint32_t e) { return BERTH_FORMAT_HEADER_SIZE + (uint64_t)BERTH_FORMAT_SECTION_ENTRY_SIZE * e; }
static uint64_t entry(const buf_t *m, uint32_t id) {
  uint32_t n = r32(m, BERTH_FORMAT_HDR_N_SECTIONS);
  for (uint32_t e = 0; e < n; e++)
    if (r32(m, entry_at(e) + BERTH_FORMAT_ENTRY_ID) == id) return entry_at(e);
  fprintf(stderr, "no section %u\n", (unsigned)id);
  abort();
}
static uint64_t soff(const buf_t *m, uint32_t id) { return r64(m, entry(m, id) + BERTH_FORMAT_ENTRY_OFFSET); }
static uint64_t ssize(const buf_t *m, uint32_t id) { return r64(m, entry(m, id) + BERTH_FORMAT_ENTRY_BYTES); }
static uint64_t val_at(const buf_t *m, uint32_t v) {
  return soff(m, BERTH_SECTION_VALUES) + (uint64_t)BERTH_FORMAT_VALUE_SIZE * v;
}
static uint64_t ins_at(const buf_t *m, uint32_t i) {
  return soff(m, BERTH_SECTION_INSTRS) + (uint64_t)BERTH_FORMAT_INSTR_SIZE * i;
}
/* The first attribute record of instruction i. */
static uint64_t attr_of(const buf_t *m, uint32_t i) {
  return soff(m, BERTH_SECTION_ATTRS) + (uint64_t)BERTH_FORMAT_ATTR_SIZE * r32(m, ins_at(m, i) + BERTH_FORMAT_INSTR_ATTRS);
}
/* The first operand of instruction i. */
static uint64_t operand_of(const buf_t *m, uint32_t i) {
  return soff(m, BERTH_SECTION_OPERANDS) + 4ull * r32(m, ins_at(m, i) + BERTH_FORMAT_INSTR_OPERANDS);
}
static uint64_t meth_at(const buf_t *m) { return soff(m, BERTH_SECTION_METHODS); }

/* The decoded base program (no verification), to find values and instructions by name. */
typedef struct base {
  buf_t f;
  void *mem;
  const berth_format_program_t *fp;
} base_t;

static base_t decode(buf_t f) {
  base_t b = {f, NULL, NULL};
  berth_format_sizes_t sz;
  if (berth_format_read_size(f.b, f.len, &sz, NULL)) abort();
  b.mem = malloc(sz.program_bytes);
  void *scratch = malloc(sz.scratch_bytes);
  if (berth_format_read(f.b, f.len, b.mem, sz.program_bytes, scratch, sz.scratch_bytes, BERTH_FORMAT_READ_NO_VERIFY, &b.fp,
                        NULL))
    abort();
  free(scratch);
  return b;
}

static uint32_t value_named(const base_t *b, const char *name) {
  const berth_exec_method_t *m = &b->fp->exec.methods[0];
  for (int32_t v = 0; v < m->n_values; v++)
    if (strcmp(m->values[v].name, name) == 0) return (uint32_t)v;
  fprintf(stderr, "no value %s\n", name);
  abort();
}

static uint32_t first_windowed(const base_t *b, int nth) {
  const berth_exec_method_t *m = &b->fp->exec.methods[0];
  for (int32_t v = 0; v < m->n_values; v++)
    if (m->values[v].window_parent >= 0 && nth-- == 0) return (uint32_t)v;
  abort();
}

static uint32_t instr_where(const base_t *b, uint8_t opcode, int op) {
  const berth_exec_method_t *m = &b->fp->exec.methods[0];
  for (int32_t i = 0; i < m->n_instrs; i++)
    if (m->instrs[i].opcode == opcode && (op < 0 || m->instrs[i].op == op)) return (uint32_t)i;
  fprintf(stderr, "no instruction with opcode %u op %d\n", (unsigned)opcode, op);
  abort();
}

static const char *out_dir;
static FILE *manifest;
static int written, gen_failures;

/* Checks the expectation, then writes the file and its MANIFEST line. substr NULL: record
 * whatever the loader says (for random flips). */
static void emit(const char *file, buf_t m, const char *phase, berth_status_t want, const char *substr) {
  berth_fuzz_load_result_t res;
  static char why[4096];
  int rc = berth_fuzz_load_check(m.b, m.len, &res, why, sizeof why);
  int want_phase = strcmp(phase, "run") == 0 ? 1 : 0;
  const char *sub = substr ? substr : res.msg;
  if (rc || res.phase != want_phase || (substr && (res.status != want || !strstr(res.msg, substr))) ||
      (!substr && res.status == BERTH_OK)) {
    fprintf(stderr, "GEN FAIL %s: want %s %s '%s'; got rc %d phase %d %s: %s %s\n", file, phase, status_word(want),
            substr ? substr : "", rc, res.phase, berth_status_name(res.status), res.msg, why);
    gen_failures++;
    free(m.b);
    return;
  }
  char name[256], path[2048];
  snprintf(name, sizeof name, "%s-%s.berth", status_word(res.status), file);
  snprintf(path, sizeof path, "%s/%s", out_dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(m.b, 1, m.len, f) != m.len) abort();
  fclose(f);
  fprintf(manifest, "%s\t%s\t%s\t%s\n", name, phase, status_word(res.status), sub);
  written++;
  free(m.b);
}

#define LOAD(file, st, sub) emit(file, m, "load", st, sub)
#define CORRUPT_(file, sub) emit(file, m, "load", BERTH_ERR_CORRUPT_DATA, sub)
#define RANGE_(file, sub) emit(file, m, "load", BERTH_ERR_OUT_OF_RANGE, sub)

/* The optional bounds section (tests/bir/dynamic_bound.bir: output 0 bounded along axis 1
 * by %count): each field out of range, and an extent that is no i64 scalar; two records of
 * one output out of axis order. */
/* The ir_ref section (examples/seed/seed.bir: @one, a constant stored by reference into the
 * constants section, then @state, a buffer stored inline). */
static void generate_ir_ref(void) {
  berth_plan_options_t po = berth_plan_options_default();
  gen_store_ir = true;
  buf_t seed = compile_example("examples/seed/seed.bir", &po);
  gen_store_ir = false;
  if (!seed.b) abort();
  uint64_t sec = soff(&seed, BERTH_SECTION_IR_REF), size = ssize(&seed, BERTH_SECTION_IR_REF);
  uint64_t text_end = sec + BERTH_FORMAT_IR_REF_HEADER_SIZE + r32(&seed, sec + BERTH_IR_SECTION_POOLS_LEN) +
                      r64(&seed, sec + BERTH_IR_SECTION_TEXT_LEN);
  uint64_t rec0 = (text_end + 7) / 8 * 8, rec1 = rec0 + BERTH_FORMAT_IR_GLOBAL_SIZE;
  if (r32(&seed, sec + BERTH_IR_REF_N_GLOBALS) != 2 || seed.b[rec0 + BERTH_IR_GLOBAL_WHERE] != BERTH_FORMAT_IR_IN_CONSTANTS ||
      seed.b[rec1 + BERTH_IR_GLOBAL_WHERE] != BERTH_FORMAT_IR_INLINE || rec1 + BERTH_FORMAT_IR_GLOBAL_SIZE + 8 != sec + size)
    abort(); /* the layout these cases patch */
  buf_t m = copy(seed);
  m.b[rec0 + BERTH_IR_GLOBAL_WHERE] = 2;
  CORRUPT_("ir-ref-where", "section ir_ref (byte");
  m = copy(seed);
  w64(&m, rec0 + BERTH_IR_GLOBAL_OFFSET, ssize(&seed, BERTH_SECTION_CONSTANTS) - 4); /* 8 bytes from 4 before the end */
  CORRUPT_("ir-ref-outside-constants", "lie outside the 8-byte constants section");
  m = copy(seed);
  w64(&m, rec1 + BERTH_IR_GLOBAL_OFFSET, r64(&seed, rec1 + BERTH_IR_GLOBAL_OFFSET) - 8);
  CORRUPT_("ir-ref-inline-offset", "expected them at");
  m = copy(seed);
  m.b[rec1 + BERTH_IR_GLOBAL_RANK] = 2; /* dim 1 is 0: no bytes, so the payload's 8 belong to nothing */
  CORRUPT_("ir-ref-trailing-bytes", "after the last payload belong to nothing");
  m = copy(seed);
  m.b[rec1 + BERTH_IR_GLOBAL_RANK] = 9;
  CORRUPT_("ir-ref-rank", "rank 9 out of range");
  m = copy(seed);
  w64(&m, rec1 + BERTH_IR_GLOBAL_DIMS, (uint64_t)1 << 41);
  RANGE_("ir-ref-huge-dim", "dim 0 is 2199023255552");
  m = copy(seed);
  w32(&m, sec + BERTH_IR_REF_N_GLOBALS, 0xFFFFFFFFu);
  RANGE_("ir-ref-too-many-globals", "constants and buffers exceed the cap");
  m = copy(seed);
  w64(&m, sec + BERTH_IR_SECTION_TEXT_LEN, UINT64_MAX);
  CORRUPT_("ir-ref-text-length", "do not fit its");
  m = copy(seed);
  w32(&m, sec + BERTH_IR_REF_RESERVED, 1);
  CORRUPT_("ir-ref-reserved", "reserved field is not 0");
  m = copy(seed);
  w32(&m, entry(&m, BERTH_SECTION_IR_REF) + BERTH_FORMAT_ENTRY_ID, BERTH_SECTION_IR); /* read as the old text section */
  CORRUPT_("ir-ref-as-ir", "do not fill");
  free(seed.b);
}

static void generate_bounds(void) {
  berth_plan_options_t po = berth_plan_options_default();
  buf_t dyn = compile_example("tests/bir/dynamic_bound.bir", &po);
  if (!dyn.b) abort();
  base_t bd = decode(dyn);
  uint64_t rec = soff(&dyn, BERTH_SECTION_BOUNDS);
  buf_t m = copy(dyn);
  w32(&m, rec + BERTH_FORMAT_BOUND_METHOD, 1);
  CORRUPT_("bounds-method-out-of-range", "section bounds, record 0 (byte");
  m = copy(dyn);
  w32(&m, rec + BERTH_FORMAT_BOUND_OUTPUT, 7);
  CORRUPT_("bounds-output-out-of-range", "method forward has no output 7 (2 outputs)");
  m = copy(dyn);
  w32(&m, rec + BERTH_FORMAT_BOUND_AXIS, 2);
  CORRUPT_("bounds-axis-outside-rank", "axis 2 of method forward output 0 is outside its rank 2");
  m = copy(dyn);
  w32(&m, rec + BERTH_FORMAT_BOUND_EXTENT, 100000);
  CORRUPT_("bounds-extent-out-of-range", "extent value id 100000 is out of range (method forward has");
  m = copy(dyn);
  w32(&m, rec + BERTH_FORMAT_BOUND_EXTENT, value_named(&bd, "x"));
  CORRUPT_("bounds-extent-not-i64", "the extent of output 0, %x, is not an i64 scalar the method computes");
  m = copy(dyn);
  w32(&m, rec + BERTH_FORMAT_BOUND_EXTENT, value_named(&bd, "fits")); /* a bool: no extent either */
  CORRUPT_("bounds-extent-bool", "the extent of output 0, %fits, is not an i64 scalar the method computes");
  free(bd.mem);
  free(dyn.b);
  /* an output with two bounded axes (tests/bir/image_decoder.bir: axis 0 by %h, then axis 1
   * by %w): the records must be in increasing axis order, each axis once */
  buf_t img = compile_example("tests/bir/image_decoder.bir", &po);
  if (!img.b) abort();
  rec = soff(&img, BERTH_SECTION_BOUNDS);
  m = copy(img);
  w32(&m, rec + BERTH_FORMAT_BOUND_SIZE + BERTH_FORMAT_BOUND_AXIS, 0);
  CORRUPT_("bounds-axis-twice", "record 1 (byte");
  m = copy(img);
  w32(&m, rec + BERTH_FORMAT_BOUND_AXIS, 1);
  w32(&m, rec + BERTH_FORMAT_BOUND_SIZE + BERTH_FORMAT_BOUND_AXIS, 0);
  CORRUPT_("bounds-axes-out-of-order", "method 0 output 0 axis 0 is not after the previous record's");
  free(img.b);
}

/* A view's byte offset (tests/bir/view_offset.bir: %row is a view 128 bytes into %a): one that
 * does not say where the view's bytes are, one past its source, one that is negative. */
static void generate_views(void) {
  berth_plan_options_t po = berth_plan_options_default();
  buf_t vw = compile_example("tests/bir/view_offset.bir", &po);
  if (!vw.b) abort();
  base_t bv = decode(vw);
  uint32_t vi = instr_where(&bv, BERTH_I_VIEW, -1);
  if (r64(&vw, ins_at(&vw, vi) + BERTH_FORMAT_INSTR_VIEW_OFFSET) != 128) abort();
  buf_t m = copy(vw);
  w64(&m, ins_at(&m, vi) + BERTH_FORMAT_INSTR_VIEW_OFFSET, 64);
  CORRUPT_("view-offset-wrong", "starts 128 bytes into its source %a (arena pool 0 [");
  m = copy(vw);
  w64(&m, ins_at(&m, vi) + BERTH_FORMAT_INSTR_VIEW_OFFSET, 256);
  CORRUPT_("view-offset-past-source", "byte offset 256 with 64 bytes of %row runs past the 256 bytes of its source %a");
  m = copy(vw);
  w64(&m, ins_at(&m, vi) + BERTH_FORMAT_INSTR_VIEW_OFFSET, (uint64_t)-8);
  RANGE_("view-offset-negative", "(view) at byte");
  free(vw.b);
}

/* A join (tests/bir/concat_in_place.bir: %abc = join of %a, %b, %c, 128 bytes each): no
 * parts, two outputs, more parts than a kernel may have, and two parts swapped (each out of
 * its slot: the verifier's memory rule). */
static void generate_joins(void) {
  berth_plan_options_t po = berth_plan_options_default();
  buf_t j = compile_example("tests/bir/concat_in_place.bir", &po);
  if (!j.b) abort();
  base_t bj = decode(j);
  uint32_t ji = instr_where(&bj, BERTH_I_JOIN, -1);
  if (r16(&j, ins_at(&j, ji) + BERTH_FORMAT_INSTR_N_IN) != 3) abort();
  buf_t m = copy(j);
  w16(&m, ins_at(&m, ji) + BERTH_FORMAT_INSTR_N_IN, 0);
  CORRUPT_("join-no-parts", "(join) at byte");
  m = copy(j);
  w16(&m, ins_at(&m, ji) + BERTH_FORMAT_INSTR_N_OUT, 2);
  CORRUPT_("join-two-outputs", "3 inputs and 2 outputs; expected 1 to 64 and 1 (the parts, the output)");
  m = copy(j);
  w16(&m, ins_at(&m, ji) + BERTH_FORMAT_INSTR_N_IN, 65);
  CORRUPT_("join-65-parts", "65 inputs and 1 outputs; expected 1 to 64 and 1 (the parts, the output)");
  m = copy(j);
  uint64_t op = operand_of(&m, ji);
  uint32_t p0 = r32(&m, op), p1 = r32(&m, op + 4);
  w32(&m, op, p1);
  w32(&m, op + 4, p0);
  LOAD("join-parts-swapped", BERTH_ERR_VERIFY_FAILED, "(join): part 0 %b (arena pool 0 [");
  free(j.b);
}

/* The optional hoist section (tests/bir/hoist.bir: the once-stream is full, add and two
 * views; %g lies at [4096, 8192) of the 8192-byte hoist region): each field of its record,
 * a storage class past hoist, and a once-stream that reads the method's input. */
static void generate_hoist(void) {
  berth_plan_options_t po = berth_plan_options_default();
  buf_t h = compile_example("tests/bir/hoist.bir", &po);
  if (!h.b) abort();
  base_t bh = decode(h);
  const berth_exec_method_t *em = &bh.fp->exec.methods[0];
  uint64_t rec = soff(&h, BERTH_SECTION_HOIST);
  if (em->n_once != 4 || em->hoist_size != 8192 || ssize(&h, BERTH_SECTION_HOIST) != BERTH_FORMAT_HOIST_SIZE) abort();
  buf_t m = copy(h);
  w64(&m, entry(&m, BERTH_SECTION_HOIST) + BERTH_FORMAT_ENTRY_BYTES, 8);
  CORRUPT_("hoist-section-size", "section hoist (byte");
  m = copy(h);
  w32(&m, rec + BERTH_FORMAT_HOIST_RESERVED, 1);
  CORRUPT_("hoist-reserved", "section hoist, method forward (byte");
  m = copy(h);
  w32(&m, rec + BERTH_FORMAT_HOIST_N_ONCE, (uint32_t)em->n_instrs);
  CORRUPT_("hoist-once-stream-too-long", "is not shorter than the method");
  m = copy(h);
  w64(&m, rec + BERTH_FORMAT_HOIST_BYTES, (uint64_t)1 << 41);
  RANGE_("hoist-region-over-cap", "exceeds the cap of 2^40");
  m = copy(h);
  w64(&m, rec + BERTH_FORMAT_HOIST_BYTES, 4096);
  CORRUPT_("hoist-region-too-small", "lie outside the hoist region (4096 bytes)");
  m = copy(h);
  m.b[val_at(&m, value_named(&bh, "g")) + BERTH_FORMAT_VALUE_STORAGE] = 6;
  CORRUPT_("hoist-storage-class-6", "unknown storage class 6 (0..5)");
  m = copy(h);
  w32(&m, rec + BERTH_FORMAT_HOIST_N_ONCE, 5); /* the matmul joins it */
  LOAD("hoist-once-stream-reads-input", BERTH_ERR_VERIFY_FAILED, "in the once-stream reads %x");
  m = copy(h);
  w32(&m, rec + BERTH_FORMAT_HOIST_N_ONCE, 0); /* every call would write the hoist region */
  LOAD("hoist-written-per-call", BERTH_ERR_VERIFY_FAILED, "in the hoist region");
  free(bh.mem);
  free(h.b);
}

static void generate(void) {
  berth_plan_options_t po = berth_plan_options_default();
  buf_t seed = compile_example("examples/seed/seed.bir", &po);
  buf_t scan = compile_example("examples/scan/scan.bir", &po);
  buf_t count = compile_example("examples/while_loop/countdown.bir", &po);
  berth_plan_options_t rg = po;
  rg.strategy = BERTH_STRATEGY_REGIONS;
  rg.verify = false;
  buf_t regions = compile_example("examples/seed/seed.bir", &rg);
  if (!seed.b || !scan.b || !count.b || !regions.b) abort();
  base_t bs = decode(seed), bc = decode(scan), bw = decode(count);
  buf_t m;

  /* ---- truncations, sizes and the header ---- */
  size_t cuts[] = {0, 7, 40, 63};
  for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
    m = copy(seed);
    m.len = cuts[k];
    char n[64];
    snprintf(n, sizeof n, "truncated-to-%zu-bytes", cuts[k]);
    CORRUPT_(n, "shorter than the 64-byte header");
  }
  size_t cuts2[] = {64, 100, 1000, seed.len / 2, seed.len - 1};
  for (size_t k = 0; k < sizeof cuts2 / sizeof cuts2[0]; k++) {
    m = copy(seed);
    m.len = cuts2[k];
    char n[64];
    snprintf(n, sizeof n, "truncated-to-%zu-bytes", cuts2[k]);
    CORRUPT_(n, "truncated or padded");
  }
  m = copy(seed);
  m.len = seed.len / 2;
  w64(&m, BERTH_FORMAT_HDR_FILE_SIZE, m.len);
  CORRUPT_("truncated-half-with-matching-size", "lie outside the");
  m = copy(seed);
  memset(m.b + m.len, 0, 8);
  m.len += 8;
  CORRUPT_("padded", "truncated or padded");
  m = copy(seed);
  m.b[BERTH_FORMAT_HDR_MAGIC] = 'X';
  CORRUPT_("bad-magic", "not a berth program file");
  m = copy(seed);
  w16(&m, BERTH_FORMAT_HDR_VERSION, BERTH_FORMAT_VERSION + 1);
  LOAD("version-next", BERTH_ERR_UNIMPLEMENTED, "format version 3; this runtime reads version 2");
  m = copy(seed);
  w32(&m, BERTH_FORMAT_HDR_HEADER_SIZE, 32);
  CORRUPT_("header-size", "header size 32");
  m = copy(seed);
  w32(&m, BERTH_FORMAT_HDR_FLAGS, 0x80);
  CORRUPT_("unknown-flags", "unknown flag bits 0x80");
  m = copy(seed);
  w32(&m, BERTH_FORMAT_HDR_N_SECTIONS, 0);
  CORRUPT_("zero-sections", "0 sections");
  m = copy(seed);
  w32(&m, BERTH_FORMAT_HDR_N_SECTIONS, 0xFFFFFFFFu);
  CORRUPT_("huge-section-count", "4294967295 sections; expected 1 to 16");
  m = copy(seed);
  m.b[BERTH_FORMAT_HDR_RESERVED] = 1;
  CORRUPT_("reserved-header-byte", "header (byte 42): reserved byte");
  m = copy(seed);
  m.b[BERTH_FORMAT_HEADER_SIZE - 1] = 1;
  CORRUPT_("last-reserved-header-byte", "header (byte 63): reserved byte");
  /* a far-future writer, so the file stays newer than every runtime that replays it */
  m = copy(seed);
  w16(&m, BERTH_FORMAT_HDR_WRITER_VERSION, 65535);
  w16(&m, BERTH_FORMAT_HDR_WRITER_VERSION + 2, 0);
  LOAD("newer-writer", BERTH_ERR_UNIMPLEMENTED, "program written by berth 65535.0.0; this runtime is berth");
  m = copy(seed);
  w16(&m, BERTH_FORMAT_HDR_WRITER_VERSION, 65535);
  w16(&m, BERTH_FORMAT_HDR_WRITER_VERSION + 2, 0);
  w32(&m, BERTH_FORMAT_HDR_FLAGS, 0x80);
  LOAD("newer-writer-unknown-flag", BERTH_ERR_UNIMPLEMENTED, "program written by berth 65535.0.0");

  /* ---- the section table ---- */
  m = copy(seed);
  w32(&m, entry_at(0) + BERTH_FORMAT_ENTRY_ID, 99);
  CORRUPT_("unknown-section-id", "unknown section id 99");
  m = copy(seed);
  w32(&m, entry_at(1) + BERTH_FORMAT_ENTRY_ID, r32(&m, entry_at(0) + BERTH_FORMAT_ENTRY_ID));
  CORRUPT_("duplicate-section", "appears twice");
  m = copy(seed);
  w64(&m, entry(&m, BERTH_SECTION_CONSTANTS) + BERTH_FORMAT_ENTRY_BYTES, (uint64_t)1 << 60);
  CORRUPT_("huge-section-size", "section constants (entry 9, byte 288): bytes [");
  m = copy(seed);
  w64(&m, entry(&m, BERTH_SECTION_VALUES) + BERTH_FORMAT_ENTRY_OFFSET, UINT64_MAX - 7);
  CORRUPT_("section-offset-wraps", "lie outside the");
  m = copy(seed);
  w64(&m, entry(&m, BERTH_SECTION_VALUES) + BERTH_FORMAT_ENTRY_OFFSET, soff(&m, BERTH_SECTION_METHODS));
  CORRUPT_("sections-overlap", "overlaps section");
  m = copy(seed);
  w64(&m, entry(&m, BERTH_SECTION_STRINGS) + BERTH_FORMAT_ENTRY_OFFSET, 8);
  CORRUPT_("section-inside-header", "inside the header or section table");
  m = copy(seed);
  w64(&m, entry(&m, BERTH_SECTION_CONSTANTS) + BERTH_FORMAT_ENTRY_OFFSET, soff(&m, BERTH_SECTION_CONSTANTS) - 8);
  CORRUPT_("constants-misaligned", "is not a multiple of 64");
  m = copy(seed);
  w32(&m, BERTH_FORMAT_HDR_N_SECTIONS, r32(&m, BERTH_FORMAT_HDR_N_SECTIONS) - 1); /* drops the last entry: constants */
  CORRUPT_("missing-section", "the required section constants is missing");
  m = copy(seed);
  w64(&m, entry(&m, BERTH_SECTION_VALUES) + BERTH_FORMAT_ENTRY_BYTES, ssize(&m, BERTH_SECTION_VALUES) - 1);
  CORRUPT_("partial-record", "is not a whole number of 104-byte records");
  m = copy(seed);
  m.b[soff(&m, BERTH_SECTION_STRINGS) + ssize(&m, BERTH_SECTION_STRINGS) - 1] = 'x';
  CORRUPT_("strings-not-terminated", "does not end with a NUL byte");

  /* ---- method records ---- */
  uint64_t mr = meth_at(&seed);
  m = copy(seed);
  w32(&m, mr, 0x00FFFFFF);
  CORRUPT_("method-name-out-of-range", "name offset 16777215 is outside");
  m = copy(seed);
  w32(&m, mr + BERTH_FORMAT_METHOD_ALIGNMENT, 3);
  CORRUPT_("method-alignment", "alignment 3 is not a power of two");
  m = copy(seed);
  w32(&m, mr + BERTH_FORMAT_METHOD_N_VALUES, 0xFFFFFFFFu);
  RANGE_("huge-value-count", "4294967295 values exceed the cap");
  m = copy(seed);
  w32(&m, mr + BERTH_FORMAT_METHOD_N_REGS, 1u << 20);
  RANGE_("huge-register-count", "loop registers exceed the cap");
  m = copy(seed);
  w32(&m, mr + BERTH_FORMAT_METHOD_N_OPERANDS, 1u << 30);
  RANGE_("huge-operand-count", "operands exceed the cap");
  m = copy(seed);
  w32(&m, mr + BERTH_FORMAT_METHOD_FIRST_VALUE, 1);
  CORRUPT_("values-not-contiguous", "its values start at record 1; expected 0");
  m = copy(seed);
  w32(&m, mr + BERTH_FORMAT_METHOD_N_VALUES, r32(&m, mr + BERTH_FORMAT_METHOD_N_VALUES) + 1);
  CORRUPT_("values-beyond-table", "records of section values");
  m = copy(seed);
  w32(&m, mr + BERTH_FORMAT_METHOD_N_VALUES, r32(&m, mr + BERTH_FORMAT_METHOD_N_VALUES) - 1);
  CORRUPT_("values-left-over", "but the methods use");
  m = copy(seed);
  w32(&m, mr + BERTH_FORMAT_METHOD_N_INSTRS, 0);
  CORRUPT_("no-instructions", "no instructions");
  m = copy(seed);
  w64(&m, mr + BERTH_FORMAT_METHOD_STATE_OFFSET, (uint64_t)1 << 39);
  CORRUPT_("state-outside-section", "state bytes [549755813888,+8)");
  m = copy(seed);
  w64(&m, mr + BERTH_FORMAT_METHOD_STATE_BYTES, (uint64_t)1 << 50);
  RANGE_("huge-state", "a state region of 1125899906842624 bytes exceeds the cap");
  m = copy(seed);
  w64(&m, soff(&m, BERTH_SECTION_POOLS), (uint64_t)1 << 50);
  RANGE_("huge-arena", "an arena of 1125899906842624 bytes exceeds the cap");

  /* ---- values ---- */
  uint32_t pred = value_named(&bs, "pred"), zero = value_named(&bs, "zero"), val = value_named(&bs, "val");
  uint32_t data = value_named(&bs, "data"), one = value_named(&bs, "one"), r1 = value_named(&bs, "result1");
  m = copy(seed);
  m.b[val_at(&m, pred) + BERTH_FORMAT_VALUE_DTYPE] = 77;
  CORRUPT_("bad-dtype", "dtype 77 is not a dtype");
  m = copy(seed);
  m.b[val_at(&m, pred) + BERTH_FORMAT_VALUE_RANK] = 9;
  CORRUPT_("bad-rank", "rank 9 exceeds the maximum rank 8");
  m = copy(seed);
  w64(&m, val_at(&m, pred) + BERTH_FORMAT_VALUE_DIM(0), (uint64_t)-3);
  CORRUPT_("negative-dim", "is negative (-3)");
  m = copy(seed);
  w64(&m, val_at(&m, pred) + BERTH_FORMAT_VALUE_DIM(0), (uint64_t)1 << 50);
  RANGE_("huge-dim", "above the cap of 2^40");
  m = copy(seed);
  m.b[val_at(&m, val) + BERTH_FORMAT_VALUE_RANK] = 4;
  for (int k = 0; k < 4; k++) w64(&m, val_at(&m, val) + BERTH_FORMAT_VALUE_DIM((uint64_t)k), (uint64_t)1 << 20);
  RANGE_("huge-tensor-bytes", "overflows the cap of 2^40 bytes");
  m = copy(seed);
  w64(&m, val_at(&m, pred) + BERTH_FORMAT_VALUE_DIM(5), 3);
  CORRUPT_("dim-beyond-rank", "dim 5 (byte");
  m = copy(seed);
  m.b[val_at(&m, pred) + BERTH_FORMAT_VALUE_STORAGE] = 9;
  CORRUPT_("bad-storage-class", "unknown storage class 9");
  m = copy(seed);
  w64(&m, val_at(&m, r1) + BERTH_FORMAT_VALUE_OFFSET, r64(&m, soff(&m, BERTH_SECTION_POOLS)));
  CORRUPT_("offset-outside-arena", "lie outside arena pool 0");
  m = copy(seed);
  w64(&m, val_at(&m, r1) + BERTH_FORMAT_VALUE_OFFSET, UINT64_MAX - 7);
  CORRUPT_("offset-wraps", "lie outside arena pool 0");
  m = copy(seed);
  w64(&m, val_at(&m, r1) + BERTH_FORMAT_VALUE_OFFSET, 8);
  CORRUPT_("offset-misaligned", "is not a multiple of the method's alignment 16");
  m = copy(seed);
  w32(&m, val_at(&m, r1) + BERTH_FORMAT_VALUE_POOL, 5);
  CORRUPT_("pool-out-of-range", "arena pool 5 (byte");
  m = copy(seed);
  w64(&m, val_at(&m, one) + BERTH_FORMAT_VALUE_OFFSET, 4096);
  CORRUPT_("constant-outside-section", "lie outside the constant section");
  m = copy(seed);
  w32(&m, val_at(&m, data) + BERTH_FORMAT_VALUE_INDEX, 3);
  CORRUPT_("input-index-out-of-range", "caller input index 3");
  m = copy(seed);
  w32(&m, val_at(&m, zero) + BERTH_FORMAT_VALUE_INDEX, 7);
  CORRUPT_("unused-value-field", "a field its storage class does not use is not 0");
  m = copy(seed);
  w32(&m, val_at(&m, zero), 0x7FFFFFFF);
  CORRUPT_("value-name-out-of-range", "name offset 2147483647");
  uint32_t w0 = first_windowed(&bc, 0), w1 = first_windowed(&bc, 1);
  m = copy(scan);
  w32(&m, val_at(&m, w0) + BERTH_FORMAT_VALUE_WINDOW_PARENT, 100000);
  CORRUPT_("window-parent-out-of-range", "window parent 100000");
  m = copy(scan);
  w32(&m, val_at(&m, w0) + BERTH_FORMAT_VALUE_WINDOW_PARENT, w1);
  CORRUPT_("window-parent-windowed", "windows cannot nest");
  m = copy(scan);
  w32(&m, val_at(&m, w0) + BERTH_FORMAT_VALUE_WINDOW_REG, 50);
  CORRUPT_("window-register-out-of-range", "window register 50");
  m = copy(scan);
  w64(&m, val_at(&m, w0) + BERTH_FORMAT_VALUE_OFFSET, 4096);
  CORRUPT_("window-outside-parent", "lies outside its parent");
  m = copy(scan);
  w64(&m, val_at(&m, w0) + BERTH_FORMAT_VALUE_WINDOW_STRIDE, (uint64_t)1 << 50);
  RANGE_("huge-window-stride", "window stride");

  /* ---- operands, io, attributes, instructions ---- */
  m = copy(seed);
  w32(&m, soff(&m, BERTH_SECTION_OPERANDS), 9999);
  CORRUPT_("operand-out-of-range", "value id 9999 is out of range");
  m = copy(seed);
  w32(&m, soff(&m, BERTH_SECTION_IO), (uint32_t)-5);
  CORRUPT_("io-value-out-of-range", "method forward, input 0 (byte");
  uint32_t sel = instr_where(&bs, BERTH_I_KERNEL, BERTH_OP_SELECT), uns = instr_where(&bs, BERTH_I_KERNEL, BERTH_OP_UNSQUEEZE);
  uint32_t jif = instr_where(&bs, BERTH_I_JUMP_IF_FALSE, -1), jmp = instr_where(&bs, BERTH_I_JUMP, -1);
  uint32_t ret = instr_where(&bs, BERTH_I_RETURN, -1);
  m = copy(seed);
  m.b[ins_at(&m, sel)] = 200;
  CORRUPT_("bad-opcode", "unknown opcode 200");
  m = copy(seed); /* kernel scratch (byte 1): kernels only, at most one, plain arena bytes */
  m.b[ins_at(&m, jmp) + BERTH_FORMAT_INSTR_N_SCRATCH] = 1;
  CORRUPT_("scratch-on-jump", "byte 1 (n_scratch) is 1; only a kernel has scratch (expected 0)");
  m = copy(seed);
  m.b[ins_at(&m, sel) + BERTH_FORMAT_INSTR_N_SCRATCH] = 2;
  CORRUPT_("two-scratches", "n_scratch (byte 1) is 2; a kernel has 0 or 1 scratch values");
  m = copy(seed);
  m.b[ins_at(&m, sel) + BERTH_FORMAT_INSTR_N_SCRATCH] = 1; /* the next instruction's first operand becomes its scratch */
  CORRUPT_("scratch-not-bytes", "is not plain arena bytes");
  m = copy(seed);
  w16(&m, ins_at(&m, sel) + BERTH_FORMAT_INSTR_OP, 999);
  CORRUPT_("bad-op", "op 999 (unknown op) is not a kernel");
  m = copy(seed);
  w16(&m, ins_at(&m, sel) + BERTH_FORMAT_INSTR_OP, BERTH_OP_COND);
  CORRUPT_("hop-as-kernel", "op 0 (cond) is not a kernel");
  m = copy(seed);
  w16(&m, ins_at(&m, sel) + BERTH_FORMAT_INSTR_N_IN, 2);
  CORRUPT_("kernel-arity", "kernel select with 2 inputs; expected 1 to 1");
  m = copy(seed);
  w32(&m, ins_at(&m, sel) + BERTH_FORMAT_INSTR_OPERANDS, 100000);
  CORRUPT_("operands-out-of-range", "operands [100000,+2) are out of range");
  m = copy(seed);
  w32(&m, ins_at(&m, sel) + BERTH_FORMAT_INSTR_ATTRS, 100000);
  CORRUPT_("attributes-out-of-range", "attributes [100000,+2) are out of range");
  m = copy(seed);
  w32(&m, attr_of(&m, uns) + BERTH_FORMAT_ATTR_N, 99);
  CORRUPT_("attribute-int-count", "has 99 integers");
  m = copy(seed);
  w32(&m, ins_at(&m, jmp) + BERTH_FORMAT_INSTR_TARGET, 10000);
  CORRUPT_("jump-out-of-range", "jump target 10000");
  m = copy(seed);
  w32(&m, ins_at(&m, jif) + BERTH_FORMAT_INSTR_TARGET, (uint32_t)-1);
  CORRUPT_("jump-negative", "jump target -1");
  m = copy(seed);
  w32(&m, ins_at(&m, ret) + BERTH_FORMAT_INSTR_TARGET, 3);
  CORRUPT_("unused-instruction-field", "target field is 3 but it does not jump");
  m = copy(seed);
  m.b[ins_at(&m, ret)] = BERTH_I_JUMP;
  w32(&m, ins_at(&m, ret) + BERTH_FORMAT_INSTR_TARGET, ret);
  CORRUPT_("endless-jump-cycle", "no path from it reaches a return (an endless loop)");
  m = copy(seed);
  m.b[ins_at(&m, 0) + BERTH_FORMAT_INSTR_OPCODE] = BERTH_I_JUMP;
  w16(&m, ins_at(&m, 0) + BERTH_FORMAT_INSTR_OP, 0);
  w16(&m, ins_at(&m, 0) + BERTH_FORMAT_INSTR_N_IN, 0);
  w16(&m, ins_at(&m, 0) + BERTH_FORMAT_INSTR_N_OUT, 0);
  w32(&m, ins_at(&m, 0) + BERTH_FORMAT_INSTR_OPERANDS, 0);
  w32(&m, ins_at(&m, 0) + BERTH_FORMAT_INSTR_ATTRS, 0);
  w32(&m, ins_at(&m, 0) + BERTH_FORMAT_INSTR_TARGET, 0);
  CORRUPT_("entry-jumps-to-itself", "instruction 0 (jump) at byte");
  uint32_t sret = instr_where(&bc, BERTH_I_RETURN, -1), lnext = instr_where(&bc, BERTH_I_LOOP_NEXT, -1);
  m = copy(scan);
  m.b[ins_at(&m, sret)] = BERTH_I_LOOP_INIT;
  CORRUPT_("falls-off-the-end", "falls off the end of the method");
  m = copy(scan);
  w64(&m, ins_at(&m, lnext) + BERTH_FORMAT_INSTR_COUNT, 0);
  CORRUPT_("loop-count-zero", "trip count 0 (byte");
  m = copy(scan);
  w64(&m, ins_at(&m, lnext) + BERTH_FORMAT_INSTR_COUNT, (uint64_t)1 << 50);
  RANGE_("huge-loop-count", "trip count 1125899906842624");
  m = copy(scan);
  w32(&m, ins_at(&m, lnext) + BERTH_FORMAT_INSTR_REG, 77);
  CORRUPT_("loop-register-out-of-range", "loop register 77");
  m = copy(scan);
  w64(&m, ins_at(&m, lnext) + BERTH_FORMAT_INSTR_COUNT, 5); /* one more step than the stacked values hold */
  emit("loop-count-beyond-windows", m, "load", BERTH_ERR_CORRUPT_DATA, "verifier: method forward");

  /* ---- the verifier: overlapping storage, writes into constants, types ---- */
  m = copy(regions);
  emit("seed-executorch-regions-overlap", m, "load", BERTH_ERR_VERIFY_FAILED, "verifier: method forward");
  m = copy(seed);
  w64(&m, val_at(&m, val) + BERTH_FORMAT_VALUE_OFFSET, r64(&m, val_at(&m, r1) + BERTH_FORMAT_VALUE_OFFSET));
  w64(&m, val_at(&m, pred) + BERTH_FORMAT_VALUE_OFFSET, r64(&m, val_at(&m, r1) + BERTH_FORMAT_VALUE_OFFSET));
  emit("overlapping-planned-storage", m, "load", BERTH_ERR_VERIFY_FAILED, "verifier: method forward");
  m = copy(seed);
  m.b[val_at(&m, zero) + BERTH_FORMAT_VALUE_STORAGE] = BERTH_STORAGE_CONST;
  w32(&m, val_at(&m, zero) + BERTH_FORMAT_VALUE_POOL, 0);
  w64(&m, val_at(&m, zero) + BERTH_FORMAT_VALUE_OFFSET, r64(&m, val_at(&m, one) + BERTH_FORMAT_VALUE_OFFSET));
  emit("write-into-constant", m, "load", BERTH_ERR_VERIFY_FAILED, "constants are read-only");
  m = copy(seed);
  m.b[val_at(&m, pred) + BERTH_FORMAT_VALUE_DTYPE] = BERTH_DTYPE_U8;
  emit("declared-type-disagrees", m, "load", BERTH_ERR_CORRUPT_DATA, "is declared u8[1] but ge gives bool[1]");

  /* ---- a loop that never exits: loads, then hits the step limit ---- */
  uint32_t sub = instr_where(&bw, BERTH_I_KERNEL, BERTH_OP_SUB);
  m = copy(count);
  w16(&m, ins_at(&m, sub) + BERTH_FORMAT_INSTR_OP, BERTH_OP_ADD);
  emit("endless-loop-at-run-time", m, "run", BERTH_ERR_OUT_OF_RANGE, "more than 100000 loop iterations in one call");

  /* ---- bytes outside every section, padding, and the checksum ---- */
  m = copy(seed);
  memset(m.b + m.len, 0, 64);
  m.len += 64;
  w64(&m, BERTH_FORMAT_HDR_FILE_SIZE, m.len);
  CORRUPT_("64-bytes-after-the-last-section", "after the last section lie outside every section");
  {
    /* 64 bytes between two sections: move the constants (64-byte aligned, offsets relative
     * to the section) up by 64 */
    uint64_t ce = entry(&seed, BERTH_SECTION_CONSTANTS);
    uint64_t co = r64(&seed, ce + BERTH_FORMAT_ENTRY_OFFSET), cs = r64(&seed, ce + BERTH_FORMAT_ENTRY_BYTES);
    m = copy(seed);
    m.b = realloc(m.b, m.len + 128);
    memmove(m.b + co + 64, m.b + co, cs);
    memset(m.b + co, 0, 64);
    m.len += 64;
    w64(&m, BERTH_FORMAT_HDR_FILE_SIZE, m.len);
    w64(&m, ce + BERTH_FORMAT_ENTRY_OFFSET, co + 64);
    char want[128];
    snprintf(want, sizeof want, "bytes [%llu,%llu) before section constants lie outside every section",
             (unsigned long long)co, (unsigned long long)co + 64);
    CORRUPT_("64-bytes-between-sections", want);
    /* a padding byte that is not 0: the last byte before the constants, when it is padding */
    uint64_t end = 0;
    for (uint32_t id = 1; id <= BERTH_SECTION_MAX; id++) {
      uint32_t n = r32(&seed, 24);
      for (uint32_t e = 0; e < n; e++)
        if (r32(&seed, entry_at(e) + BERTH_FORMAT_ENTRY_ID) == id && id != BERTH_SECTION_CONSTANTS) {
          uint64_t se =
              r64(&seed, entry_at(e) + BERTH_FORMAT_ENTRY_OFFSET) + r64(&seed, entry_at(e) + BERTH_FORMAT_ENTRY_BYTES);
          if (se <= co && se > end) end = se;
        }
    }
    if (end >= co) abort(); /* the seed's constants follow padding */
    m = copy(seed);
    m.b[co - 1] = 0x5A;
    snprintf(want, sizeof want, "padding byte %llu before section constants is 90, not 0", (unsigned long long)co - 1);
    CORRUPT_("nonzero-padding", want);
  }
  /* an empty section (countdown has no state) placed inside another one: no overlap, but
   * a second place the same file could put it */
  m = copy(count);
  uint64_t se = entry(&count, BERTH_SECTION_STATE);
  if (r64(&count, se + BERTH_FORMAT_ENTRY_BYTES) != 0) abort();
  w64(&m, se + BERTH_FORMAT_ENTRY_OFFSET, soff(&count, BERTH_SECTION_VALUES) + 8);
  CORRUPT_("empty-section-inside-another", "inside the previous section or its padding");
  buf_t summed = compile_example_sum("examples/seed/seed.bir", &po, true);
  if (!summed.b) abort();
  m = copy(summed);
  m.b[val_at(&m, 1) + BERTH_FORMAT_VALUE_DIM(0)] ^= 1; /* a dim: a valid-looking change the checksum must catch */
  CORRUPT_("checksum-flipped-bit", "the file is damaged");
  m = copy(summed);
  m.b[BERTH_FORMAT_CHECKSUM_AT] ^= 0x80;
  CORRUPT_("checksum-field-flipped", "the file is damaged");
  m = copy(summed);
  m.b[BERTH_FORMAT_HDR_FLAGS] &= (uint8_t)~BERTH_FORMAT_FLAG_CHECKSUM;
  CORRUPT_("checksum-without-flag", "without the checksum flag");
  m = copy(seed);
  m.b[BERTH_FORMAT_HDR_FLAGS] |= BERTH_FORMAT_FLAG_CHECKSUM;
  CORRUPT_("checksum-flag-without-checksum", "but the header records 0x0 (the file is damaged)");
  free(summed.b);

  /* ---- assert: its instruction, its message attribute, its condition ---- */
  buf_t asrt = compile_example("tests/bir/assert.bir", &po);
  if (!asrt.b) abort();
  base_t ba = decode(asrt);
  uint32_t as0 = instr_where(&ba, BERTH_I_ASSERT, BERTH_OP_ASSERT);
  uint64_t amsg = attr_of(&asrt, as0);
  m = copy(asrt);
  w16(&m, ins_at(&m, as0) + BERTH_FORMAT_INSTR_OP, BERTH_OP_ADD);
  CORRUPT_("assert-op-not-assert", "an assert carries op");
  m = copy(asrt);
  w16(&m, ins_at(&m, as0) + BERTH_FORMAT_INSTR_N_OUT, 1);
  CORRUPT_("assert-with-an-output", "1 inputs and 1 outputs; expected 1 and 0 (the condition)");
  m = copy(asrt);
  w32(&m, ins_at(&m, as0) + BERTH_FORMAT_INSTR_ATTRS, 100000);
  CORRUPT_("assert-attributes-out-of-range", "attributes [100000,+1) are out of range");
  m = copy(asrt);
  w32(&m, ins_at(&m, as0) + BERTH_FORMAT_INSTR_TARGET, 3);
  CORRUPT_("assert-target-field", "target field is 3 but it does not jump");
  m = copy(asrt);
  w32(&m, amsg + BERTH_FORMAT_ATTR_S, 0xFFFFFF);
  CORRUPT_("assert-message-outside-strings", "name offset 16777215 is outside the");
  m = copy(asrt);
  w64(&m, amsg + BERTH_FORMAT_ATTR_I, 1);
  CORRUPT_("assert-message-with-integer", "attribute message (attribute 0) is a string; its other fields must be 0");
  m = copy(seed);
  w32(&m, attr_of(&m, sel) + BERTH_FORMAT_ATTR_S, 1);
  CORRUPT_("string-on-integer-attribute", "has a string but is not a string attribute");
  m = copy(asrt);
  w32(&m, operand_of(&m, as0), value_named(&ba, "x"));
  emit("assert-condition-not-bool", m, "load", BERTH_ERR_CORRUPT_DATA,
       "instruction 1 (assert): condition %x is f64[1]; expected a one-element bool");
  m = copy(asrt);
  w32(&m, operand_of(&m, as0), value_named(&ba, "under"));
  emit("assert-reads-a-later-value", m, "load", BERTH_ERR_VERIFY_FAILED,
       "verifier: method forward: read of %under (arena pool 0 [");
  /* a valid file whose check fails when run: @limit = -1 (the inputs hold small numbers) */
  m = copy(asrt);
  double minus1 = -1.0;
  uint64_t bits;
  memcpy(&bits, &minus1, sizeof bits);
  w64(&m, soff(&m, BERTH_SECTION_CONSTANTS) + r64(&m, val_at(&m, value_named(&ba, "limit")) + BERTH_FORMAT_VALUE_OFFSET), bits);
  emit("assert-fails-at-run-time", m, "run", BERTH_ERR_CHECK_FAILED,
       "method forward: run-time check failed at instruction 1 (%small is false): x must be at most 10");
  free(ba.mem);
  free(asrt.b);

  /* ---- flipped bits in the structural sections, recorded as the loader reports them ---- */
  uint64_t s = 12345;
  const buf_t *bases[] = {&seed, &scan, &count};
  const char *bnames[] = {"seed", "scan", "countdown"};
  for (int b = 0; b < 3; b++) {
    int made = 0;
    uint64_t end = soff(bases[b], BERTH_SECTION_POOLS);
    for (int tries = 0; tries < 400 && made < 8; tries++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t at = 64 + (s >> 33) % (end - 64);
      int bit = (int)((s >> 20) % 8);
      m = copy(*bases[b]);
      m.b[at] ^= (uint8_t)(1u << bit);
      berth_fuzz_load_result_t res;
      static char why[4096];
      berth_fuzz_load_check(m.b, m.len, &res, why, sizeof why);
      if (res.phase != 0) {
        free(m.b);
        continue;
      }
      char n[96];
      snprintf(n, sizeof n, "flip-%s-byte-%llu-bit-%d", bnames[b], (unsigned long long)at, bit);
      emit(n, m, "load", res.status, NULL);
      made++;
    }
  }
  free(bs.mem);
  free(bc.mem);
  free(bw.mem);
  free(seed.b);
  free(scan.b);
  free(count.b);
  free(regions.b);
  generate_bounds();
  generate_ir_ref();
  generate_views();
  generate_hoist();
  generate_joins();
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0) {
    out_dir = argv[2];
    char path[2048];
    snprintf(path, sizeof path, "%s/MANIFEST", out_dir);
    manifest = fopen(path, "w");
    if (!manifest) {
      fprintf(stderr, "cannot write %s\n", path);
      return 1;
    }
    fprintf(manifest, "# file\tphase\tstatus\tmessage substring (generated by test_corrupt --write-corpus)\n");
    generate();
    fclose(manifest);
    fprintf(stderr, "wrote %d corrupt files to %s, %d expectations failed\n", written, out_dir, gen_failures);
    return gen_failures ? 1 : 0;
  }
  if (argc == 3 && (strcmp(argv[1], "--append-ir-ref-corpus") == 0 || strcmp(argv[1], "--append-hoist-corpus") == 0)) {
    /* only the ir_ref (or hoist) cases, added to MANIFEST */
    out_dir = argv[2];
    char path[2048];
    snprintf(path, sizeof path, "%s/MANIFEST", out_dir);
    manifest = fopen(path, "a");
    if (!manifest) return 1;
    if (argv[1][9] == 'i') generate_ir_ref();
    else generate_hoist();
    fclose(manifest);
    fprintf(stderr, "wrote %d corrupt files to %s, %d expectations failed\n", written, out_dir, gen_failures);
    return gen_failures ? 1 : 0;
  }
  if (argc == 3 && strcmp(argv[1], "--append-join-corpus") == 0) { /* only the join cases */
    out_dir = argv[2];
    char path[2048];
    snprintf(path, sizeof path, "%s/MANIFEST", out_dir);
    manifest = fopen(path, "a");
    if (!manifest) return 1;
    generate_joins();
    fclose(manifest);
    fprintf(stderr, "wrote %d corrupt files to %s, %d expectations failed\n", written, out_dir, gen_failures);
    return gen_failures ? 1 : 0;
  }
  if (argc == 3 && strcmp(argv[1], "--append-view-corpus") == 0) { /* only the view-offset cases */
    out_dir = argv[2];
    char path[2048];
    snprintf(path, sizeof path, "%s/MANIFEST", out_dir);
    manifest = fopen(path, "a");
    if (!manifest) return 1;
    generate_views();
    fclose(manifest);
    fprintf(stderr, "wrote %d corrupt files to %s, %d expectations failed\n", written, out_dir, gen_failures);
    return gen_failures ? 1 : 0;
  }
  int n = replay();
  CHECK_MSG(n >= 60, "only %d corrupt files", n);
  return test_finish("test_corrupt");
}
