/* Tests of the text format: canonical round trips, exact data and attribute values, error
 * messages with positions, caps, and printing of builder-made programs. */
#include "berth/testing.h"
#include "ir/ir.h"

#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static berth_ir_program_t *parse_ok(const char *text) {
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_ir_parse(text, strlen(text), "t.bir", &p, &diag);
  CHECK_MSG(st == BERTH_OK, "parse failed: %s", msg);
  return st == BERTH_OK ? p : NULL;
}

static void check_validates(const berth_ir_program_t *p) {
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_status_t st = berth_ir_validate(p, &diag);
  CHECK_MSG(st == BERTH_OK, "validate failed: %s", msg);
}

/* The round-trip property of the fuzz target, on a known input. */
static void check_roundtrip(const char *text) {
  char why[8192];
  int rc = berth_fuzz_parse_check((const uint8_t *)text, strlen(text), why, sizeof why);
  CHECK_MSG(rc == 0, "round trip: %s", why);
}

/* Parses text and checks that it prints as `expected` (text itself when NULL). */
static void check_prints_as(const char *text, const char *expected) {
  berth_ir_program_t *p = parse_ok(text);
  if (!p) return;
  char *s = berth_ir_print(p);
  CHECK(s != NULL);
  if (s) CHECK_MSG(strcmp(s, expected ? expected : text) == 0, "printed:\n%s\nexpected:\n%s", s, expected ? expected : text);
  free(s);
  berth_ir_program_destroy(p);
  check_roundtrip(text);
}

static void check_error(const char *text, const char *expected) {
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = (berth_ir_program_t *)(uintptr_t)1; /* must stay untouched */
  berth_status_t st = berth_ir_parse(text, strlen(text), "t.bir", &p, &diag);
  CHECK_MSG(st != BERTH_OK, "parse of an invalid input succeeded:\n%s", text);
  CHECK(p == (berth_ir_program_t *)(uintptr_t)1);
  CHECK_MSG(strcmp(msg, expected) == 0, "message\n  got:      %s\n  expected: %s", msg, expected);
  check_roundtrip(text); /* the fuzz property holds for failures too */
}

/* ---- canonical files ------------------------------------------------------------- */

static void test_files(void) {
  static const char *const files[] = {"tests/bir/nested.bir", "tests/bir/seed.bir", "tests/bir/assert.bir"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", BERTH_SOURCE_DIR, files[i]);
    size_t len;
    char *text = test_read_file(path, &len);
    CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text) continue;
    const char *canon = text;
    while (*canon == '#') canon = strchr(canon, '\n') ? strchr(canon, '\n') + 1 : canon + strlen(canon);
    berth_ir_program_t *p = parse_ok(text);
    if (p) {
      check_validates(p);
      char *s = berth_ir_print(p);
      CHECK(s && strcmp(s, canon) == 0);
      if (s && strcmp(s, canon) != 0) fprintf(stderr, "%s printed as:\n%s", files[i], s);
      free(s);
      berth_ir_program_destroy(p);
    }
    check_roundtrip(text);
    free(text);
  }
}

/* The example at the top of docs/ir-text.md parses, validates and is canonical. */
static void test_doc_example(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/docs/ir-text.md", BERTH_SOURCE_DIR);
  char *doc = test_read_file(path, NULL);
  CHECK_MSG(doc != NULL, "cannot read %s", path);
  if (!doc) return;
  char *start = strstr(doc, "```\n");
  char *end = start ? strstr(start + 4, "```\n") : NULL;
  CHECK(start && end);
  if (start && end) {
    *end = '\0';
    char *text = start + 4;
    char *canon = strchr(text, '\n') + 1; /* after the comment line */
    berth_ir_program_t *p = parse_ok(text);
    if (p) {
      check_validates(p);
      char *s = berth_ir_print(p);
      CHECK_MSG(s && strcmp(s, canon) == 0, "the doc example prints as:\n%s", s ? s : "(null)");
      free(s);
      berth_ir_program_destroy(p);
    }
    check_roundtrip(text);
  }
  free(doc);
}

/* ---- non-canonical input ------------------------------------------------------------ */

static void test_noncanonical(void) {
  const char *in =
      "# comment at the top\n"
      "buffer @s:i32[2]=[ +7 ,0x10 ]   # trailing comment\n"
      "program{alloc_outputs=false,alloc_inputs=true}\n";
  check_error(in, "t.bir:3:1: 'program' must come first and at most once");

  in = "program{alloc_outputs=false,alloc_inputs=true}\n"
       "buffer @s:i32[2]=[ +7 ,0x10 ]   # trailing comment\n"
       "const @b : bool[3] = [true, false, 1]\n"
       "const @f : f64[4] = [1.0, 1e0, 0x1p-2, .5]\n"
       "func @g(%x:i32[2])->(i32[2],i32[2]){%y=add(%x,@s):i32[2]\n"
       "  %z = sum(%y) {keepdims = 1, axes = [0]} : i32[1]\n"
       "  %w = expand(%z) {shape=[2]}:i32[2] copy_(@s,%w) return %w,@s}\n";
  const char *out =
      "program {alloc_inputs = 1, alloc_outputs = 0}\n"
      "\n"
      "buffer @s : i32[2] = [7, 16]\n"
      "const @b : bool[3] = [1, 0, 1]\n"
      "const @f : f64[4] = [1, 1, 0.25, 0.5]\n"
      "\n"
      "func @g(%x : i32[2]) -> (i32[2], i32[2]) {\n"
      "  %y = add(%x, @s) : i32[2]\n"
      "  %z = sum(%y) {axes = [0], keepdims = 1} : i32[1]\n"
      "  %w = expand(%z) {shape = [2]} : i32[2]\n"
      "  copy_(@s, %w)\n"
      "  return %w, @s\n"
      "}\n";
  check_prints_as(in, out);
  berth_ir_program_t *p = parse_ok(in);
  if (p) {
    check_validates(p);
    berth_ir_program_destroy(p);
  }
  /* an empty file is an empty program */
  check_prints_as("", "program {alloc_inputs = 1, alloc_outputs = 1}\n");
  check_prints_as("# nothing\n\n", "program {alloc_inputs = 1, alloc_outputs = 1}\n");
}

/* ---- exact values -------------------------------------------------------------------- */

static void test_data_exact(void) {
  const char *text =
      "const @i : i64[4] = [-9223372036854775808, 9223372036854775807, 9007199254740993, -0]\n"
      "const @u : u64[2] = [18446744073709551615, 0xFFFFFFFFFFFFFFFE]\n"
      "const @f : f32[5] = [0.1, -0, 16777217, 1.17549435e-38, 0x1.fffffep+127]\n"
      "const @d : f64[5] = [0.1, -0.0, 9007199254740993, nan, -inf]\n";
  berth_ir_program_t *p = parse_ok(text);
  if (!p) return;
  const int64_t *i = p->globals[0].data;
  CHECK(i[0] == INT64_MIN && i[1] == INT64_MAX && i[2] == 9007199254740993LL && i[3] == 0);
  const uint64_t *u = p->globals[1].data;
  CHECK(u[0] == UINT64_MAX && u[1] == UINT64_MAX - 1);
  const float *f = p->globals[2].data;
  CHECK(f[0] == 0.1f && f[1] == 0 && signbit(f[1]) && f[2] == 16777216.0f && f[3] == 1.17549435e-38f &&
        f[4] == 3.40282347e+38f);
  const double *d = p->globals[3].data;
  CHECK(d[0] == 0.1 && d[1] == 0 && signbit(d[1]) && d[2] == 9007199254740992.0 && isnan(d[3]) && isinf(d[4]) &&
        d[4] < 0);
  char *s = berth_ir_print(p);
  CHECK(s && strcmp(s,
                    "program {alloc_inputs = 1, alloc_outputs = 1}\n"
                    "\n"
                    "const @i : i64[4] = [-9223372036854775808, 9223372036854775807, 9007199254740993, 0]\n"
                    "const @u : u64[2] = [18446744073709551615, 18446744073709551614]\n"
                    "const @f : f32[5] = [0.1, -0, 16777216, 1.1754944e-38, 3.4028235e+38]\n"
                    "const @d : f64[5] = [0.1, -0, 9007199254740992, nan, -inf]\n") == 0);
  free(s);
  berth_ir_program_destroy(p);
  check_roundtrip(text);

  /* every f32 and f64 value round-trips bit-exactly through the shortest form */
  uint32_t x = 12345;
  for (int k = 0; k < 2000; k++) {
    x = x * 1664525u + 1013904223u;
    uint32_t bits32 = x;
    uint64_t bits64 = ((uint64_t)x << 32) | (x * 2654435761u);
    float fv;
    double dv;
    memcpy(&fv, &bits32, 4);
    memcpy(&dv, &bits64, 8);
    if (isnan(fv)) fv = 1.5f;
    if (isnan(dv)) dv = 2.5;
    berth_ir_program_t *q = berth_ir_program_create();
    berth_type_t t32 = {BERTH_DTYPE_F32, 0, {0}}, t64 = {BERTH_DTYPE_F64, 0, {0}};
    berth_ir_global_add(q, "a", &t32, false, &fv);
    berth_ir_global_add(q, "b", &t64, false, &dv);
    char *qs = berth_ir_print(q);
    berth_ir_program_t *r = qs ? parse_ok(qs) : NULL;
    if (r) {
      CHECK_MSG(memcmp(r->globals[0].data, &fv, 4) == 0, "f32 %a printed as %s", (double)fv, qs);
      CHECK_MSG(memcmp(r->globals[1].data, &dv, 8) == 0, "f64 %a printed as %s", dv, qs);
    }
    free(qs);
    berth_ir_program_destroy(q);
    berth_ir_program_destroy(r);
  }
}

static void test_scalar_attrs(void) {
  const char *text =
      "func @f() -> () {\n"
      "  %a = full() {shape = [], dtype = i64, value = 9223372036854775807} : i64[]\n"
      "  %b = full() {shape = [], dtype = f64, value = 1e300} : f64[]\n"
      "  %c = full() {shape = [], dtype = f64, value = -0.0} : f64[]\n"
      "  %d = full() {shape = [], dtype = f64, value = nan} : f64[]\n"
      "  %e = full() {shape = [], dtype = f64, value = -inf} : f64[]\n"
      "  %g = full() {shape = [], dtype = f64, value = 2.5} : f64[]\n"
      "  %h = full() {shape = [], dtype = f64, value = 2.0} : f64[]\n"
      "  %i = full() {shape = [2, 2], dtype = i8, value = -128} : i8[2,2]\n"
      "  %j = full() {shape = [], dtype = f64, value = 18446744073709551615} : f64[]\n"
      "  %k = full() {shape = [], dtype = f64, value = inf} : f64[]\n"
      "  return\n"
      "}\n";
  berth_ir_program_t *p = parse_ok(text);
  if (!p) return;
  const berth_ir_node_t *n = p->methods[0].nodes;
  CHECK(n[0].attrs[2].n == 1 && n[0].attrs[2].i == INT64_MAX);
  CHECK(n[1].attrs[2].n == 0 && n[1].attrs[2].f == 1e300);
  CHECK(n[2].attrs[2].n == 0 && n[2].attrs[2].f == 0 && signbit(n[2].attrs[2].f));
  CHECK(n[3].attrs[2].n == 0 && isnan(n[3].attrs[2].f));
  CHECK(n[4].attrs[2].n == 0 && isinf(n[4].attrs[2].f) && n[4].attrs[2].f < 0);
  CHECK(n[5].attrs[2].n == 0 && n[5].attrs[2].f == 2.5);
  CHECK(n[6].attrs[2].n == 1 && n[6].attrs[2].i == 2 && n[6].attrs[2].f == 2.0);
  CHECK(n[7].attrs[2].n == 1 && n[7].attrs[2].i == -128 && n[7].attrs[0].n == 2);
  CHECK(n[8].attrs[2].n == 0 && n[8].attrs[2].f == 18446744073709551615.0);
  check_validates(p);
  char *s = berth_ir_print(p);
  const char *expected =
      "program {alloc_inputs = 1, alloc_outputs = 1}\n"
      "\n"
      "func @f() -> () {\n"
      "  %a = full() {shape = [], dtype = i64, value = 9223372036854775807} : i64[]\n"
      "  %b = full() {shape = [], dtype = f64, value = 1e+300} : f64[]\n"
      "  %c = full() {shape = [], dtype = f64, value = -0.0} : f64[]\n"
      "  %d = full() {shape = [], dtype = f64, value = nan} : f64[]\n"
      "  %e = full() {shape = [], dtype = f64, value = -inf} : f64[]\n"
      "  %g = full() {shape = [], dtype = f64, value = 2.5} : f64[]\n"
      "  %h = full() {shape = [], dtype = f64, value = 2} : f64[]\n"
      "  %i = full() {shape = [2, 2], dtype = i8, value = -128} : i8[2,2]\n"
      "  %j = full() {shape = [], dtype = f64, value = 1.8446744073709552e+19} : f64[]\n"
      "  %k = full() {shape = [], dtype = f64, value = inf} : f64[]\n"
      "  return\n"
      "}\n";
  CHECK_MSG(s && strcmp(s, expected) == 0, "printed:\n%s", s ? s : "(null)");
  free(s);
  berth_ir_program_destroy(p);
  check_roundtrip(text);
  check_roundtrip(expected);
}

/* ---- errors ---------------------------------------------------------------------- */

static void test_errors(void) {
  static const struct {
    const char *text, *msg;
  } cases[] = {
      {"func @f() -> () {\n  return %x\n}\n", "t.bir:2:10: use of undefined %x"},
      {"func @f(%x : f32[2]) -> () {\n  %y = foo(%x) : f32[2]\n  return\n}\n", "t.bir:2:8: unknown op 'foo'"},
      {"func @f(%x : f32[2]) -> () {\n  %y = select(%x) {foo = 1} : f32[]\n  return\n}\n",
       "t.bir:2:20: unknown attribute 'foo' for op select"},
      {"func @f(%x : f32[2]) -> () {\n  %y = unsqueeze(%x) {axes = 0} : f32[1,2]\n  return\n}\n",
       "t.bir:2:30: attribute 'axes' of unsqueeze expects a list of integers, found '0'"},
      {"func @f(%x : f32[2]) -> () {\n  %y = select(%x) {dim = 1.5} : f32[]\n  return\n}\n",
       "t.bir:2:26: attribute 'dim' of select expects an integer, found '1.5'"},
      {"func @f(%x : f32[2]) -> () {\n  %x = neg(%x) : f32[2]\n  return\n}\n",
       "t.bir:2:3: redefinition of %x (first defined at line 1)"},
      {"const @c : f32[2,2] = [1, 2, 3]\n", "t.bir:1:23: data has 3 values but f32[2,2] needs 4"},
      {"const @c : f32[2] = [1, 2, 3]\n", "t.bir:1:21: data has 3 values but f32[2] needs 2"},
      {"const @c : f16[2] = [1, 2]\n", "t.bir:1:12: unknown dtype 'f16'"},
      {"const @c : f32[1,1,1,1,1,1,1,1,1] = [0]\n", "t.bir:1:32: rank > 8"},
      {"const @c : f32[-1] = []\n", "t.bir:1:16: dimension '-1' out of range [0, 1099511627776]"},
      {"const @c : f32[1099511627777] = []\n",
       "t.bir:1:16: dimension '1099511627777' out of range [0, 1099511627776]"},
      {"const @c : f64[1048576,1048576] = []\n",
       "t.bir:1:12: type f64[1048576,1048576] is larger than 1099511627776 bytes"},
      {"const @c f32[1] = [1]\n", "t.bir:1:10: expected ':', found 'f32'"},
      {"const @c : i8[1] = [128]\n", "t.bir:1:21: value '128' out of range for i8"},
      {"const @c : u8[1] = [-1]\n", "t.bir:1:21: value '-1' out of range for u8"},
      {"const @c : i32[1] = [1.0]\n", "t.bir:1:22: expected an integer (i32 data), found '1.0'"},
      {"const @c : bool[1] = [2]\n", "t.bir:1:23: expected 0, 1, true or false (bool data), found '2'"},
      {"const @c : f32[1] = [1e39]\n", "t.bir:1:22: value '1e39' out of range for f32"},
      {"const @c : f32[1] = [1e5x]\n", "t.bir:1:22: expected a number (f32 data), found invalid number '1e5x'"},
      {"const @c : f32[1] = [1]\nconst @c : f32[1] = [2]\n",
       "t.bir:2:7: redefinition of @c (first defined at line 1)"},
      {"func @f() -> () {\n  return\n}\nfunc @f() -> () {\n  return\n}\n",
       "t.bir:4:6: redefinition of func @f (first defined at line 1)"},
      {"func @f() -> () {\n  return @nope\n}\n", "t.bir:2:10: use of undefined @nope"},
      {"func @f() -> () {\n  %y = neg(%x) : f32[2]\n", "t.bir:2:12: use of undefined %x"},
      {"func @f(%x : f32[2]) -> () {\n  %y = neg(%x) : f32[2]\n", "t.bir:3:1: expected a node or 'return', found end of file"},
      {"func @f(%x : f32[2]) -> () {\n  %y = neg(%x) $ f32[2]\n",
       "t.bir:2:16: expected ':' and the result types, found unexpected character '$'"},
      {"func @f(%x : f32[2]) -> (f32[2], f32[2]) {\n  return %x\n}\n",
       "t.bir:2:3: func @f returns 1 values but its signature declares 2"},
      {"func @f(%x : f32[2]) -> (f32[3]) {\n  return %x\n}\n",
       "t.bir:2:3: func @f returns %x : f32[2] as result 0 but its signature declares f32[3]"},
      {"func @f(%x : f32[2]) -> () {\n  %y = neg(%x) : f32[2], f32[2]\n  return\n}\n",
       "t.bir:2:16: node neg names 1 results but declares 2 types"},
      {"func @f(%x : f32[2]) -> () {\n  neg(%x) : f32[2]\n  return\n}\n",
       "t.bir:2:11: node neg names 0 results but declares 1 types"},
      {"func @f(%x : f32[2]) -> () {\n  %y = scan(%x) : f32[2]\n    body(%a : f32[]) {\n      return %a\n    }\n  return\n}\n",
       "t.bir:2:8: op scan requires attribute 'carry'"},
      {"func @f(%p : bool[]) -> () {\n  cond(%p)\n    then() {\n      return\n    }\n  return\n}\n",
       "t.bir:6:3: expected 'else' (a body of cond), found 'return'"},
      {"func @f(%p : bool[]) -> () {\n  %r = cond(%p) : bool[]\n    then() {\n      return %r\n    }\n"
       "    else() {\n      return %p\n    }\n  return\n}\n",
       "t.bir:4:14: use of %r inside its own definition"},
      {"func @f(%p : bool[]) -> () {\n  %r = cond(%p) : bool[]\n    then() {\n      %c = clone(%p) : bool[]\n"
       "      return %c\n    }\n    else() {\n      return %c\n    }\n  return\n}\n",
       "t.bir:8:14: use of %c outside its scope (it is defined inside another body at line 4)"},
      {"func @f(%p : bool[]) -> () {\n  %r = cond(%p) : bool[]\n    then() {\n      %c = clone(%p) : bool[]\n"
       "      return %c\n    }\n    else(%c : bool[]) {\n      return %c\n    }\n  return\n}\n",
       "t.bir:7:10: redefinition of %c (first defined at line 4)"},
      {"program {alloc_inputs = 2}\n", "t.bir:1:25: alloc_inputs must be 0 or 1"},
      {"program {alloc_inputs = 1, alloc_inputs = 0}\n", "t.bir:1:28: attribute 'alloc_inputs' given twice"},
      {"func @f(%x : f32[2]) -> () {\n  %y = full() {value = 1e999} : f32[]\n  return\n}\n",
       "t.bir:2:24: attribute 'value' of full: '1e999' is out of range for f64"},
      {"func @f(%x : f32[2]) -> () {\n  %y = full() {value = f32} : f32[]\n  return\n}\n",
       "t.bir:2:24: attribute 'value' of full expects a number, found 'f32'"},
      {"func @f(%x : f32[2]) -> () {\n  %y = reshape(%x) {shape = [99999999999999999999]} : f32[]\n  return\n}\n",
       "t.bir:2:30: attribute 'shape' of reshape: '99999999999999999999' is out of range for int64"},
      {"func @f(%x : f32[2]) -> (f32[2]) {\n  return %\n}\n",
       "t.bir:2:10: expected an operand ('%name' or '@name'), found unexpected character '%'"},
      {"program {alloc = 1}\n", "t.bir:1:10: unknown program attribute 'alloc'"},
      {"program {}\n", "t.bir:1:10: expected an attribute name, found '}'"},
      {"func @f(%x : f32[2]) -> () {\n  %y = select(%x) {dim = 0, dim = 0} : f32[]\n  return\n}\n",
       "t.bir:2:29: attribute 'dim' given twice"},
      {"func @f(%x : f32[2]) -> () {\n  %y = unsqueeze(%x) {axes = [0, 1, 2, 3, 4, 5, 6, 7, 8]} : f32[2]\n  return\n}\n",
       "t.bir:2:55: attribute 'axes' of unsqueeze has more than 8 values"},
      {"func @f(%x : f32[2]) -> () {\n  %y = cast(%x) {dtype = f16} : f32[2]\n  return\n}\n",
       "t.bir:2:26: unknown dtype 'f16'"},
      {"func @f(%x : f32[2]) -> () {\n  %y = select(%x) {dim = 99999999999999999999} : f32[]\n  return\n}\n",
       "t.bir:2:26: attribute 'dim' of select: '99999999999999999999' is out of range for int64"},
      {"fn @f() -> () {}\n", "t.bir:1:1: expected 'program', 'const', 'buffer' or 'func', found 'fn'"},
      {"func @f() -> () {\n  return\n}\nfoo\n", "t.bir:4:1: expected 'const', 'buffer' or 'func', found 'foo'"},
      {"func @f(%x : f32[2]) -> () {\n  %y = neg(%x, ) : f32[2]\n  return\n}\n",
       "t.bir:2:16: expected an operand ('%name' or '@name'), found ')'"},
      {"func @f() -> () {\n  return\n}\n\x01", "t.bir:4:1: expected 'const', 'buffer' or 'func', found unexpected byte 0x1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_error(cases[i].text, cases[i].msg);

  /* a name over the cap */
  size_t long_len = 2000;
  char *text = malloc(long_len + 64);
  if (text) {
    strcpy(text, "const @");
    memset(text + 7, 'a', long_len);
    strcpy(text + 7 + long_len, " : f32[] = [1]\n");
    check_error(text, "t.bir:1:7: name longer than 1024 characters");
    free(text);
  }

  /* NULL arguments and an input with NUL bytes */
  char msg[256];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_ir_parse("x", 1, NULL, NULL, &diag) != BERTH_OK);
  berth_ir_program_t *p = NULL;
  CHECK(berth_ir_parse("const @c : f32[] = [1]\0junk", 27, NULL, &p, &diag) != BERTH_OK);
  CHECK(p == NULL);
  CHECK(strcmp(msg, "<input>:1:23: expected 'const', 'buffer' or 'func', found unexpected byte 0x0") == 0);
  CHECK(berth_ir_parse("const @c : f32[] = [1]\0junk", 22, NULL, &p, &diag) == BERTH_OK);
  berth_ir_program_destroy(p);
}

/* ---- nesting cap --------------------------------------------------------------------- */

static char *nested_conds(int depth) {
  size_t cap = (size_t)depth * 256 + 256;
  char *s = malloc(cap);
  if (!s) return NULL;
  size_t n = (size_t)snprintf(s, cap, "func @f(%%p : bool[]) -> (bool[]) {\n");
  for (int d = 0; d < depth; d++)
    n += (size_t)snprintf(s + n, cap - n, "%%r%d = cond(%%p) : bool[]\nthen() {\n", d);
  n += (size_t)snprintf(s + n, cap - n, "return %%p\n}\nelse() {\nreturn %%p\n}\n");
  for (int d = depth - 2; d >= 0; d--)
    n += (size_t)snprintf(s + n, cap - n, "return %%r%d\n}\nelse() {\nreturn %%p\n}\n", d + 1);
  snprintf(s + n, cap - n, "return %%r0\n}\n");
  return s;
}

static void test_depth(void) {
  char *ok = nested_conds(64), *bad = nested_conds(65);
  if (ok) {
    berth_ir_program_t *p = parse_ok(ok);
    if (p) {
      check_validates(p);
      CHECK(p->methods[0].n_graphs == 1 + 2 * 64);
      CHECK(berth_ir_graph_depth(&p->methods[0], 64) == 64);
      berth_ir_program_destroy(p);
    }
    check_roundtrip(ok);
  }
  if (bad) check_error(bad, "t.bir:131:1: bodies nested deeper than 64");
  free(ok);
  free(bad);
}

/* ---- printing builder-made programs -------------------------------------------------- */

static void test_builder_names(void) {
  berth_ir_program_t *p = berth_ir_program_create();
  berth_type_t f2 = {BERTH_DTYPE_F32, 1, {2}};
  float init[2] = {1, 2};
  int32_t g0 = berth_ir_global_add(p, "model/w:0", &f2, false, init);
  int32_t g1 = berth_ir_global_add(p, "model_w_0", &f2, false, init);
  int32_t mi = berth_ir_method_add(p, "main");
  berth_ir_method_t *m = &p->methods[mi];
  int32_t x = berth_ir_param_add(m, 0, "", &f2);
  int32_t y = berth_ir_param_add(m, 0, "x", &f2);
  int32_t w0 = berth_ir_global_ref(p, m, g0), w1 = berth_ir_global_ref(p, m, g1);
  int32_t a = berth_ir_node_add(m, 0, BERTH_OP_ADD, 2, (int32_t[]){x, w0});
  int32_t av = berth_ir_node_result_add(m, a, "x", &f2); /* duplicate name */
  int32_t b = berth_ir_node_add(m, 0, BERTH_OP_ADD, 2, (int32_t[]){av, w1});
  int32_t bv = berth_ir_node_result_add(m, b, "1st", &f2); /* starts with a digit */
  berth_ir_graph_result_add(m, 0, bv);
  berth_ir_graph_result_add(m, 0, y);
  check_validates(p);
  char *s = berth_ir_print(p);
  const char *expected =
      "program {alloc_inputs = 1, alloc_outputs = 1}\n"
      "\n"
      "const @model_w_0_1 : f32[2] = [1, 2]\n"
      "const @model_w_0 : f32[2] = [1, 2]\n"
      "\n"
      "func @main(%v : f32[2], %x : f32[2]) -> (f32[2], f32[2]) {\n"
      "  %x_1 = add(%v, @model_w_0_1) : f32[2]\n"
      "  %v1st = add(%x_1, @model_w_0) : f32[2]\n"
      "  return %v1st, %x\n"
      "}\n";
  CHECK_MSG(s && strcmp(s, expected) == 0, "printed:\n%s", s ? s : "(null)");
  if (s) check_roundtrip(s);
  free(s);
  berth_ir_program_destroy(p);
}

/* String attributes (assert's message): escapes decode exactly and print canonically, a
 * program's string table holds each text once, and bad strings fail with a position. */
static void test_strings(void) {
  const char *head = "program {alloc_inputs = 1, alloc_outputs = 1}\n\nfunc @f(%p : bool[]) -> () {\n";
  char in[512], want[512];
  snprintf(in, sizeof in, "%s  assert(%%p) {message = \"a\\x41\\\"\\\\\\n\\t\\xFF\\x7f~\"}\n  return\n}\n", head);
  snprintf(want, sizeof want, "%s  assert(%%p) {message = \"aA\\\"\\\\\\n\\t\\xff\\x7f~\"}\n  return\n}\n", head);
  check_prints_as(in, want);
  berth_ir_program_t *p = parse_ok(in);
  if (p) {
    const char *text = berth_ir_string(p, p->methods[0].nodes[0].attrs[0].i);
    CHECK(text && strcmp(text, "aA\"\\\n\t\xff\x7f~") == 0);
    check_validates(p);
  }
  berth_ir_program_destroy(p);
  /* no message: the empty string, printed; each message has its own table entry */
  snprintf(in, sizeof in, "%s  assert(%%p)\n  return\n}\n", head);
  snprintf(want, sizeof want, "%s  assert(%%p) {message = \"\"}\n  return\n}\n", head);
  check_prints_as(in, want);
  snprintf(in, sizeof in, "%s  assert(%%p) {message = \"m\"}\n  assert(%%p) {message = \"m\"}\n  return\n}\n", head);
  check_prints_as(in, NULL);
  p = parse_ok(in);
  CHECK(p && p->n_strings == 2 && p->methods[0].nodes[1].attrs[0].i == 1);
  berth_ir_program_destroy(p);
  /* the cap: 1024 bytes (the program file's cap on a name) */
  char big[1200];
  memset(big, 'x', 1025);
  big[1025] = '\0';
  char *t = malloc(2048);
  snprintf(t, 2048, "func @f(%%p : bool[]) -> () {\n  assert(%%p) {message = \"%s\"}\n  return\n}\n", big);
  check_error(t, "t.bir:2:25: attribute 'message' of assert: a string longer than 1024 bytes");
  big[1024] = '\0';
  snprintf(t, 2048, "func @f(%%p : bool[]) -> () {\n  assert(%%p) {message = \"%s\"}\n  return\n}\n", big);
  p = parse_ok(t);
  CHECK(p && strlen(p->strings[0]) == 1024);
  berth_ir_program_destroy(p);
  free(t);
  static const struct {
    const char *attr, *msg;
  } bad[] = {
      {"\"abc}", "t.bir:2:25: attribute 'message' of assert: the string has no closing '\"' on its line"},
      {"\"a\\qb\"", "t.bir:2:27: attribute 'message' of assert: unknown escape in a string (\\\", \\\\, \\n, \\t, \\xHH)"},
      {"\"a\\x4\"", "t.bir:2:27: attribute 'message' of assert: unknown escape in a string (\\\", \\\\, \\n, \\t, \\xHH)"},
      {"\"a\\x00b\"", "t.bir:2:27: attribute 'message' of assert: a string cannot hold a NUL byte"},
      {"\"a\tb\"", "t.bir:2:27: attribute 'message' of assert: control byte 0x9 in a string (escape it: \\n, \\t, \\xHH)"},
      {"3", "t.bir:2:25: attribute 'message' of assert expects a string (\"...\"), found '3'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(in, sizeof in, "func @f(%%p : bool[]) -> () {\n  assert(%%p) {message = %s}\n  return\n}\n", bad[i].attr);
    check_error(in, bad[i].msg);
  }
  check_error("func @f(%p : bool[]) -> () {\n  assert(\"p\")\n  return\n}\n",
              "t.bir:2:10: expected an operand ('%name' or '@name'), found '\"p\"'");
  check_error("const @c : f32[1] = [\"1\"]\n", "t.bir:1:22: expected a number (f32 data), found '\"1\"'");
}

int main(void) {
  test_files();
  test_doc_example();
  test_noncanonical();
  test_data_exact();
  test_scalar_attrs();
  test_errors();
  test_depth();
  test_builder_names();
  test_strings();
  return test_finish("test_ir_text");
}
