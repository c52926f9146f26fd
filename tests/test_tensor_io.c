/* Tests of the command-line tool's tensor input and output (tools/berth/tensor_io.c, npy.c):
 * literals, --call splitting, .npy reading and writing (including hand-made and corrupt
 * files), and the readable and JSON printers. Tests link only berth_compiler, so the tool's
 * sources are compiled into this program.
 *
 * Usage: test_tensor_io [SEED]   (the seed of the randomized float-formatting check) */
#define _POSIX_C_SOURCE 200809L

#include "test_util.h"

#include "../tools/berth/tensor_io.h"

#include "../tools/berth/npy.c"
#include "../tools/berth/tensor_io.c"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir[64];

/* ---------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------- */

static void expect_literal(const char *arg, const char *type_str, const void *bytes, size_t n) {
  berth_host_tensor_t t = {{0}, NULL};
  char err[256];
  berth_status_t st = berth_tensor_parse_arg(arg, &t, err, sizeof err);
  CHECK_MSG(st == BERTH_OK, "'%s' failed: %s", arg, err);
  if (st != BERTH_OK) return;
  char buf[160];
  berth_type_format(&t.type, buf, sizeof buf);
  CHECK_MSG(strcmp(buf, type_str) == 0, "'%s' gave type %s, expected %s", arg, buf, type_str);
  CHECK_MSG(t.data != NULL, "'%s': data is NULL", arg);
  CHECK_MSG(berth_type_bytes(&t.type) == n && (n == 0 || memcmp(t.data, bytes, n) == 0),
            "'%s': data differs", arg);
  berth_host_tensor_free(&t);
  CHECK(t.data == NULL);
}

static void expect_error(const char *arg, berth_status_t code, const char *substr) {
  berth_host_tensor_t t = {{0}, NULL};
  char err[256];
  berth_status_t st = berth_tensor_parse_arg(arg, &t, err, sizeof err);
  CHECK_MSG(st == code, "'%s': status %d, expected %d (%s)", arg, (int)st, (int)code, err);
  CHECK_MSG(strstr(err, substr) != NULL, "'%s': message '%s' lacks '%s'", arg, err, substr);
  CHECK_MSG(strchr(err, '\n') == NULL, "'%s': message is not one line", arg);
  CHECK_MSG(t.data == NULL, "'%s': output written on failure", arg);
  if (st == BERTH_OK) berth_host_tensor_free(&t);
}

/* Runs a printer into a temporary stream and returns what it wrote (static buffer). */
static const char *printed(const berth_type_t *type, const void *data, bool json) {
  static char out[1 << 16];
  FILE *f = tmpfile();
  if (!f) return "<tmpfile failed>";
  if (json)
    berth_tensor_print_json(f, type, data);
  else
    berth_tensor_print(f, type, data);
  rewind(f);
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = '\0';
  fclose(f);
  return out;
}

static void expect_print(const char *arg, const char *text, const char *json) {
  berth_host_tensor_t t;
  char err[256];
  if (berth_tensor_parse_arg(arg, &t, err, sizeof err) != BERTH_OK) {
    CHECK_MSG(false, "'%s' failed: %s", arg, err);
    return;
  }
  const char *got = printed(&t.type, t.data, false);
  CHECK_MSG(strcmp(got, text) == 0, "print '%s':\n  got      %s\n  expected %s", arg, got, text);
  got = printed(&t.type, t.data, true);
  CHECK_MSG(strcmp(got, json) == 0, "json '%s':\n  got      %s\n  expected %s", arg, got, json);
  berth_host_tensor_free(&t);
}

static void tmp_path(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", tmp_dir, name); }

static void write_file(const char *path, const void *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK_MSG(f != NULL, "cannot create %s", path);
  if (!f) return;
  CHECK(fwrite(bytes, 1, n, f) == n);
  fclose(f);
}

/* Builds a .npy file the way numpy's spec describes it: preamble, the dict, spaces and '\n'
 * so that preamble + header is a multiple of 64, then the data. */
static size_t make_npy(unsigned char *buf, size_t cap, unsigned major, const char *dict, const void *data,
                       size_t data_len) {
  size_t pre = major == 1 ? 10 : 12;
  size_t dlen = strlen(dict);
  size_t hlen = dlen + 1;
  hlen += (64 - (pre + hlen) % 64) % 64;
  if (pre + hlen + data_len > cap) return 0;
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  if (major == 1) {
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
  } else {
    for (int i = 0; i < 4; i++) buf[8 + i] = (unsigned char)(hlen >> (8 * i));
  }
  memcpy(buf + pre, dict, dlen);
  memset(buf + pre + dlen, ' ', hlen - dlen - 1);
  buf[pre + hlen - 1] = '\n';
  if (data_len) memcpy(buf + pre + hlen, data, data_len);
  return pre + hlen + data_len;
}

static void expect_npy_error(const char *name, const void *bytes, size_t n, berth_status_t code,
                             const char *substr) {
  char path[128];
  tmp_path(path, sizeof path, name);
  write_file(path, bytes, n);
  berth_host_tensor_t t = {{0}, NULL};
  char err[320];
  berth_status_t st = berth_npy_read(path, &t, err, sizeof err);
  CHECK_MSG(st == code, "%s: status %d, expected %d (%s)", name, (int)st, (int)code, err);
  CHECK_MSG(strstr(err, substr) != NULL, "%s: message '%s' lacks '%s'", name, err, substr);
  CHECK_MSG(strstr(err, path) != NULL, "%s: message '%s' does not name the file", name, err);
  CHECK_MSG(strchr(err, '\n') == NULL, "%s: message is not one line", name);
  CHECK_MSG(t.data == NULL, "%s: output written on failure", name);
  if (st == BERTH_OK) berth_host_tensor_free(&t);
  /* The same through the literal parser's "@" form. */
  char arg[160];
  snprintf(arg, sizeof arg, "@%s", path);
  st = berth_tensor_parse_arg(arg, &t, err, sizeof err);
  CHECK_MSG(st == code, "@%s: status %d, expected %d", name, (int)st, (int)code);
  if (st == BERTH_OK) berth_host_tensor_free(&t);
  remove(path);
}

static void expect_npy_error_dict(const char *name, unsigned major, const char *dict, const void *data,
                                  size_t data_len, berth_status_t code, const char *substr) {
  unsigned char buf[1024];
  size_t n = make_npy(buf, sizeof buf, major, dict, data, data_len);
  CHECK(n > 0);
  expect_npy_error(name, buf, n, code, substr);
}

/* ---------------------------------------------------------------------------------------
 * Literals
 * ------------------------------------------------------------------------------------- */

static void test_literals(void) {
  {
    unsigned char v[] = {1, 0, 1, 0, 1, 0};
    expect_literal("bool[6]:true,false,1,0,True,False", "bool[6]", v, sizeof v);
    unsigned char s[] = {1};
    expect_literal("bool[]:1", "bool[]", s, 1);
  }
  {
    int8_t v[] = {-128, 127, 0, -1, 5};
    expect_literal("i8[5]:-128,127,0,-1,+5", "i8[5]", v, sizeof v);
    uint8_t u[] = {0, 255, 0};
    expect_literal("u8[3]:0,255,-0", "u8[3]", u, sizeof u);
  }
  {
    int16_t v[] = {-32768, 32767};
    expect_literal("i16[2]:-32768,32767", "i16[2]", v, sizeof v);
    uint16_t u[] = {65535};
    expect_literal("u16[]:65535", "u16[]", u, sizeof u);
  }
  {
    int32_t v[] = {INT32_MIN, INT32_MAX, 7};
    expect_literal("i32[3]:-2147483648,2147483647,007", "i32[3]", v, sizeof v);
    uint32_t u[] = {UINT32_MAX};
    expect_literal("u32[1]:4294967295", "u32[1]", u, sizeof u);
  }
  {
    int64_t v[] = {INT64_MIN, INT64_MAX};
    expect_literal("i64[2]:-9223372036854775808,9223372036854775807", "i64[2]", v, sizeof v);
    int64_t s[] = {16000};
    expect_literal("i64[]:16000", "i64[]", s, sizeof s);
    /* 2^53 + 1 is not a double: integers must not pass through one. */
    int64_t big[] = {9007199254740993LL};
    expect_literal("i64[1]:9007199254740993", "i64[1]", big, sizeof big);
    uint64_t u[] = {UINT64_MAX, 0};
    expect_literal("u64[2]:18446744073709551615,0", "u64[2]", u, sizeof u);
  }
  {
    float v[] = {1, 2, 3, 4};
    expect_literal("f32[2,2]:1,2,3,4", "f32[2,2]", v, sizeof v);
    float p[] = {0.1f, -2.5f, 1e-45f, 3.4028235e38f};
    expect_literal("f32[4]:0.1,-2.5,1e-45,3.4028235e38", "f32[4]", p, sizeof p);
    /* Rounded once to f32, not twice through double: this decimal lies just above the
     * midpoint of two floats but rounds to the lower one as a double first. */
    float once[] = {1.0f + 0x1p-23f};
    expect_literal("f32[1]:1.00000005960464477550", "f32[1]", once, sizeof once);
    double d[] = {6.0};
    expect_literal("f64[1]:6.0", "f64[1]", d, sizeof d);
    double e[] = {0.1, -1e-300, 1.7976931348623157e308, 0.0, 8.0};
    expect_literal("f64[5]:0.1,-1e-300,1.7976931348623157e308,1e-400,0x1p3", "f64[5]", e, sizeof e);
  }
  {
    berth_host_tensor_t t;
    char err[256];
    CHECK(berth_tensor_parse_arg("f64[4]:nan,inf,-inf,-nan", &t, err, sizeof err) == BERTH_OK);
    double *d = t.data;
    CHECK(isnan(d[0]) && isinf(d[1]) && d[1] > 0 && isinf(d[2]) && d[2] < 0 && isnan(d[3]));
    berth_host_tensor_free(&t);
    CHECK(berth_tensor_parse_arg("f32[3]:NaN,Infinity,-INF", &t, err, sizeof err) == BERTH_OK);
    float *f = t.data;
    CHECK(isnan(f[0]) && isinf(f[1]) && f[1] > 0 && isinf(f[2]) && f[2] < 0);
    berth_host_tensor_free(&t);
  }
  /* Empty tensors and the largest rank. */
  expect_literal("f32[0]:", "f32[0]", NULL, 0);
  expect_literal("i64[2,0,3]:", "i64[2,0,3]", NULL, 0);
  expect_literal("bool[0,1099511627776]:", "bool[0,1099511627776]", NULL, 0);
  {
    int8_t v[] = {7};
    expect_literal("i8[1,1,1,1,1,1,1,1]:7", "i8[1,1,1,1,1,1,1,1]", v, 1);
  }

  /* Integer range and syntax errors. */
  expect_error("i8[]:300", BERTH_ERR_INVALID_ARGUMENT, "value '300' at character 6 is out of range for i8 (-128 to 127)");
  expect_error("i8[]:-129", BERTH_ERR_INVALID_ARGUMENT, "out of range for i8");
  expect_error("u8[]:256", BERTH_ERR_INVALID_ARGUMENT, "out of range for u8 (0 to 255)");
  expect_error("u8[2]:1,-1", BERTH_ERR_INVALID_ARGUMENT, "value '-1' at character 9 is out of range for u8");
  expect_error("i16[]:32768", BERTH_ERR_INVALID_ARGUMENT, "out of range for i16");
  expect_error("u16[]:65536", BERTH_ERR_INVALID_ARGUMENT, "out of range for u16");
  expect_error("i32[]:2147483648", BERTH_ERR_INVALID_ARGUMENT, "out of range for i32");
  expect_error("u32[]:4294967296", BERTH_ERR_INVALID_ARGUMENT, "out of range for u32");
  expect_error("i64[]:9223372036854775808", BERTH_ERR_INVALID_ARGUMENT,
               "out of range for i64 (-9223372036854775808 to 9223372036854775807)");
  expect_error("i64[]:-9223372036854775809", BERTH_ERR_INVALID_ARGUMENT, "out of range for i64");
  expect_error("u64[]:18446744073709551616", BERTH_ERR_INVALID_ARGUMENT, "out of range for u64");
  expect_error("i64[]:999999999999999999999999999", BERTH_ERR_INVALID_ARGUMENT, "out of range for i64");
  expect_error("i32[1]:1.5", BERTH_ERR_INVALID_ARGUMENT, "invalid i32 value '1.5' at character 8 (expected a decimal integer)");
  expect_error("i32[1]:1e3", BERTH_ERR_INVALID_ARGUMENT, "expected a decimal integer");
  expect_error("i32[1]:-", BERTH_ERR_INVALID_ARGUMENT, "expected a decimal integer");
  expect_error("i32[1]:0x10", BERTH_ERR_INVALID_ARGUMENT, "expected a decimal integer");
  expect_error("bool[1]:2", BERTH_ERR_INVALID_ARGUMENT, "invalid bool value '2' at character 9 (expected true, false, 1 or 0)");
  expect_error("bool[1]:yes", BERTH_ERR_INVALID_ARGUMENT, "invalid bool value");

  /* Float errors. */
  expect_error("f32[1]:abc", BERTH_ERR_INVALID_ARGUMENT, "invalid f32 value 'abc' at character 8");
  expect_error("f64[2]:1,2x", BERTH_ERR_INVALID_ARGUMENT, "invalid f64 value '2x' at character 10");
  expect_error("f64[1]: 1", BERTH_ERR_INVALID_ARGUMENT, "invalid f64 value ' 1' at character 8");
  expect_error("f32[]:1e39", BERTH_ERR_INVALID_ARGUMENT, "value '1e39' at character 7 is out of range for f32");
  expect_error("f64[]:-1e400", BERTH_ERR_INVALID_ARGUMENT, "out of range for f64");
  expect_error("f32[3]:1,,2", BERTH_ERR_INVALID_ARGUMENT, "empty f32 value at character 10");
  expect_error("f32[2]:1,", BERTH_ERR_INVALID_ARGUMENT, "empty f32 value at character 10");

  /* Count mismatches. */
  expect_error("f32[2,2]:1,2,3", BERTH_ERR_INVALID_ARGUMENT, "3 values given but f32[2,2] needs 4");
  expect_error("f32[1]:", BERTH_ERR_INVALID_ARGUMENT, "0 values given but f32[1] needs 1");
  expect_error("f64[]:1,2", BERTH_ERR_INVALID_ARGUMENT, "2 values given but f64[] needs 1");
  expect_error("i64[0]:1", BERTH_ERR_INVALID_ARGUMENT, "1 value given but i64[0] needs 0");
  /* The count is checked before anything is allocated for the shape. */
  expect_error("u8[1099511627776]:1", BERTH_ERR_INVALID_ARGUMENT, "1 value given but u8[1099511627776] needs 1099511627776");

  /* Malformed literals. */
  expect_error("f32[2:1", BERTH_ERR_INVALID_ARGUMENT, "expected ',' or ']' in the shape at character 6");
  expect_error("q7[1]:1", BERTH_ERR_INVALID_ARGUMENT, "unknown dtype 'q7' at character 1 (expected one of bool, i8, u8");
  expect_error("[1]:1", BERTH_ERR_INVALID_ARGUMENT, "missing dtype at character 1");
  expect_error("f32:1", BERTH_ERR_INVALID_ARGUMENT, "expected '[' after the dtype at character 4");
  expect_error("5.0", BERTH_ERR_INVALID_ARGUMENT, "expected a tensor literal DTYPE[DIMS]:V,V,...");
  expect_error("", BERTH_ERR_INVALID_ARGUMENT, "expected a tensor literal");
  expect_error("f32[1]1", BERTH_ERR_INVALID_ARGUMENT, "expected ':' after the shape at character 7");
  expect_error("f32[1]", BERTH_ERR_INVALID_ARGUMENT, "at character 7 (end of the argument)");
  expect_error("f32[", BERTH_ERR_INVALID_ARGUMENT, "expected a dimension (a non-negative integer) at character 5 (end");
  expect_error("f32[2", BERTH_ERR_INVALID_ARGUMENT, "expected ',' or ']' in the shape at character 6 (end");
  expect_error("f32[-1]:", BERTH_ERR_INVALID_ARGUMENT, "expected a dimension (a non-negative integer) at character 5");
  expect_error("f32[1,]:1", BERTH_ERR_INVALID_ARGUMENT, "expected a dimension (a non-negative integer) at character 7");
  expect_error("f32[ 1]:1", BERTH_ERR_INVALID_ARGUMENT, "at character 5");
  expect_error("f32[1,1,1,1,1,1,1,1,1]:1", BERTH_ERR_OUT_OF_RANGE, "too many dimensions at character 21 (berth's maximum rank is 8)");
  expect_error("f32[99999999999999999999999]:", BERTH_ERR_OUT_OF_RANGE, "dimension at character 5 exceeds berth's maximum 1099511627776");
  expect_error("f64[1048576,1048576]:", BERTH_ERR_OUT_OF_RANGE, "f64[1048576,1048576] is larger than berth's maximum tensor size");
  expect_error("@", BERTH_ERR_INVALID_ARGUMENT, "'@' must be followed by the path of a .npy file");
  expect_error("@/nonexistent/berth/x.npy", BERTH_ERR_INVALID_ARGUMENT, "/nonexistent/berth/x.npy: cannot open: ");
  {
    /* A very long value is refused with its length, and its echo is shortened. */
    char arg[600] = "f64[1]:";
    memset(arg + 7, '1', 500);
    arg[507] = '\0';
    expect_error(arg, BERTH_ERR_INVALID_ARGUMENT, "f64 value at character 8 is 500 characters long (at most 400)");
    memcpy(arg, "i64[2]:1,z", 10);
    expect_error(arg, BERTH_ERR_INVALID_ARGUMENT,
                 "invalid i64 value 'z111111111111111111111111111111111111111...' at character 10");
  }
  /* A NULL err buffer is allowed. */
  berth_host_tensor_t t;
  CHECK(berth_tensor_parse_arg("q7[1]:1", &t, NULL, 0) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_tensor_parse_arg(NULL, &t, NULL, 0) == BERTH_ERR_INVALID_ARGUMENT);
}

static void test_call_split(void) {
  char **argv;
  int argc;
  char err[128];
  CHECK(berth_call_split("  f64[1]:5.0   @in.npy\ti64[]:3  ", &argv, &argc, err, sizeof err) == BERTH_OK);
  CHECK(argc == 3);
  if (argc == 3) {
    CHECK(strcmp(argv[0], "f64[1]:5.0") == 0);
    CHECK(strcmp(argv[1], "@in.npy") == 0);
    CHECK(strcmp(argv[2], "i64[]:3") == 0);
    CHECK(argv[3] == NULL);
  }
  berth_call_free(argv);
  CHECK(berth_call_split("f64[1]:6.0", &argv, &argc, err, sizeof err) == BERTH_OK);
  CHECK(argc == 1 && strcmp(argv[0], "f64[1]:6.0") == 0 && argv[1] == NULL);
  berth_call_free(argv);
  CHECK(berth_call_split("", &argv, &argc, err, sizeof err) == BERTH_OK);
  CHECK(argc == 0 && argv[0] == NULL);
  berth_call_free(argv);
  CHECK(berth_call_split("   \n ", &argv, &argc, err, sizeof err) == BERTH_OK);
  CHECK(argc == 0 && argv[0] == NULL);
  berth_call_free(argv);
  CHECK(berth_call_split("a b", &argv, &argc, err, sizeof err) == BERTH_OK);
  CHECK(argc == 2 && strcmp(argv[0], "a") == 0 && strcmp(argv[1], "b") == 0);
  berth_call_free(argv);
  CHECK(berth_call_split(NULL, &argv, &argc, err, sizeof err) == BERTH_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------------------------------
 * .npy
 * ------------------------------------------------------------------------------------- */

static void fill_pattern(berth_dtype_t dt, unsigned char *p, size_t bytes, unsigned seed) {
  for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)((i * 37u + seed * 11u + 5u) & 0xff);
  if (dt == BERTH_DTYPE_BOOL)
    for (size_t i = 0; i < bytes; i++) p[i] &= 1;
}

static void test_npy_round_trip(void) {
  static const int32_t ranks[] = {0, 1, 2, 3, 1};
  static const int64_t dims[][3] = {{0, 0, 0}, {5, 0, 0}, {2, 3, 0}, {2, 1, 4}, {0, 0, 0}};
  for (int d = 0; d < BERTH_DTYPE_COUNT; d++) {
    for (int s = 0; s < 5; s++) {
      berth_type_t type = {(berth_dtype_t)d, ranks[s], {0}};
      for (int i = 0; i < ranks[s]; i++) type.dims[i] = dims[s][i];
      size_t bytes = berth_type_bytes(&type);
      unsigned char data[256];
      fill_pattern(type.dtype, data, bytes, (unsigned)(d * 5 + s));
      char path[128], name[32], tbuf[64], err[256];
      berth_type_format(&type, tbuf, sizeof tbuf);
      snprintf(name, sizeof name, "rt_%d_%d.npy", d, s);
      tmp_path(path, sizeof path, name);
      berth_status_t st = berth_npy_write(path, &type, bytes ? data : NULL, err, sizeof err);
      CHECK_MSG(st == BERTH_OK, "write %s: %s", tbuf, err);

      /* numpy's layout: the data starts at a multiple of 64, the header ends with '\n'. */
      size_t flen = 0;
      char *file = test_read_file(path, &flen);
      CHECK_MSG(file != NULL, "cannot read back %s", path);
      if (file) {
        size_t hlen = (unsigned char)file[8] | (size_t)(unsigned char)file[9] << 8;
        CHECK_MSG(flen == 10 + hlen + bytes && (10 + hlen) % 64 == 0 && file[10 + hlen - 1] == '\n',
                  "%s: layout (file %zu bytes, header %zu)", tbuf, flen, hlen);
        free(file);
      }

      berth_host_tensor_t t = {{0}, NULL};
      st = berth_npy_read(path, &t, err, sizeof err);
      CHECK_MSG(st == BERTH_OK, "read %s: %s", tbuf, err);
      if (st == BERTH_OK) {
        CHECK_MSG(berth_type_equal(&t.type, &type), "%s: type differs after the round trip", tbuf);
        CHECK_MSG(t.data != NULL && (bytes == 0 || memcmp(t.data, data, bytes) == 0), "%s: data differs", tbuf);
        berth_host_tensor_free(&t);
      }
      remove(path);
    }
  }

  /* The exact header berth writes (what np.save writes, less its growth padding). */
  berth_type_t type = {BERTH_DTYPE_I32, 2, {2, 3}};
  int32_t v[6] = {1, -2, 3, -4, 5, -6};
  char path[128], err[256];
  tmp_path(path, sizeof path, "exact.npy");
  CHECK(berth_npy_write(path, &type, v, err, sizeof err) == BERTH_OK);
  size_t flen = 0;
  char *file = test_read_file(path, &flen);
  const char *dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  CHECK(file && flen == 128 + 24);
  if (file && flen == 128 + 24) {
    CHECK(memcmp(file, "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
    CHECK(memcmp(file + 10, dict, strlen(dict)) == 0);
    for (size_t i = 10 + strlen(dict); i < 127; i++) CHECK_MSG(file[i] == ' ', "byte %zu is not padding", i);
    CHECK(file[127] == '\n');
    CHECK(memcmp(file + 128, "\x01\x00\x00\x00\xfe\xff\xff\xff", 8) == 0);
  }
  free(file);
  remove(path);
  type.dtype = BERTH_DTYPE_BOOL;
  type.rank = 1;
  type.dims[0] = 3;
  unsigned char b[3] = {1, 0, 1};
  CHECK(berth_npy_write(path, &type, b, err, sizeof err) == BERTH_OK);
  file = test_read_file(path, &flen);
  dict = "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
  CHECK(file && flen == 128 + 3 && memcmp(file + 10, dict, strlen(dict)) == 0);
  free(file);
  remove(path);
  type.rank = 0;
  type.dtype = BERTH_DTYPE_F64;
  double d = 6.0;
  CHECK(berth_npy_write(path, &type, &d, err, sizeof err) == BERTH_OK);
  file = test_read_file(path, &flen);
  dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (), }";
  CHECK(file && flen == 128 + 8 && memcmp(file + 10, dict, strlen(dict)) == 0);
  free(file);
  remove(path);

  /* Write errors. */
  CHECK(berth_npy_write("/nonexistent/berth/out.npy", &type, &d, err, sizeof err) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err, "cannot write /nonexistent/berth/out.npy: ") != NULL, "%s", err);
  CHECK(berth_npy_write(path, &type, NULL, err, sizeof err) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err, "no tensor data") != NULL);
  berth_type_t bad = {BERTH_DTYPE_F32, 9, {0}};
  CHECK(berth_npy_write(path, &bad, &d, err, sizeof err) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err, "invalid tensor type") != NULL);
}

static void expect_npy_ok(const char *name, const unsigned char *bytes, size_t n, const char *type_str,
                          const void *data, size_t data_len) {
  char path[128], err[256], tbuf[160];
  tmp_path(path, sizeof path, name);
  write_file(path, bytes, n);
  berth_host_tensor_t t;
  berth_status_t st = berth_npy_read(path, &t, err, sizeof err);
  CHECK_MSG(st == BERTH_OK, "%s: %s", name, err);
  if (st == BERTH_OK) {
    berth_type_format(&t.type, tbuf, sizeof tbuf);
    CHECK_MSG(strcmp(tbuf, type_str) == 0, "%s: type %s, expected %s", name, tbuf, type_str);
    CHECK_MSG(berth_type_bytes(&t.type) == data_len && (data_len == 0 || memcmp(t.data, data, data_len) == 0),
              "%s: data", name);
    berth_host_tensor_free(&t);
  }
  remove(path);
}

static void test_npy_handmade(void) {
  unsigned char buf[1024];
  int32_t v[6] = {1, -2, 3, -4, 5, -6};
  unsigned char le[24];
  for (int i = 0; i < 6; i++)
    for (int k = 0; k < 4; k++) le[i * 4 + k] = (unsigned char)((uint32_t)v[i] >> (8 * k));

  /* Version 1.0 exactly as the spec lays it out: 10 + 118 = 128 bytes before the data. */
  {
    static const char hdr[] = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
    size_t n = 0;
    memcpy(buf, "\x93NUMPY\x01\x00\x76\x00", 10);
    n = 10;
    memcpy(buf + n, hdr, sizeof hdr - 1);
    n += sizeof hdr - 1;
    while (n < 127) buf[n++] = ' ';
    buf[n++] = '\n';
    CHECK(n == 128);
    memcpy(buf + n, le, sizeof le);
    n += sizeof le;
    expect_npy_ok("v1.npy", buf, n, "i32[2,3]", v, sizeof v);
  }
  /* Versions 2.0 and 3.0 (u32 header length). */
  size_t n = make_npy(buf, sizeof buf, 2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", le, 24);
  expect_npy_ok("v2.npy", buf, n, "i32[2,3]", v, sizeof v);
  n = make_npy(buf, sizeof buf, 3, "{'descr': '<i4', 'fortran_order': False, 'shape': (6,), }", le, 24);
  expect_npy_ok("v3.npy", buf, n, "i32[6]", v, sizeof v);
  /* Other key orders, double quotes, no trailing comma, Python 2 longs, no padding. */
  n = make_npy(buf, sizeof buf, 1, "{\"shape\": (3L, 2L), \"fortran_order\": False, \"descr\": \"<i4\"}", le, 24);
  expect_npy_ok("order.npy", buf, n, "i32[3,2]", v, sizeof v);
  {
    static const char hdr[] = "{'descr':'<i4','fortran_order':False,'shape':(2,3)}";
    size_t m = 10;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(sizeof hdr - 1);
    buf[9] = 0;
    memcpy(buf + m, hdr, sizeof hdr - 1);
    m += sizeof hdr - 1;
    memcpy(buf + m, le, 24);
    expect_npy_ok("nopad.npy", buf, m + 24, "i32[2,3]", v, sizeof v);
  }
  /* One-byte types in every spelling numpy uses, and bools that are not 0/1. */
  {
    unsigned char raw[4] = {0, 1, 2, 255};
    unsigned char norm[4] = {0, 1, 1, 1};
    n = make_npy(buf, sizeof buf, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", raw, 4);
    expect_npy_ok("b1.npy", buf, n, "bool[4]", norm, 4);
    n = make_npy(buf, sizeof buf, 1, "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 2), }", raw, 4);
    expect_npy_ok("i1.npy", buf, n, "i8[2,2]", raw, 4);
    n = make_npy(buf, sizeof buf, 1, "{'descr': '<u1', 'fortran_order': False, 'shape': (4,), }", raw, 4);
    expect_npy_ok("u1.npy", buf, n, "u8[4]", raw, 4);
  }
  /* f8 scalar and an empty f4 array. */
  {
    double d = -0.5;
    unsigned char dle[8];
    uint64_t bits;
    memcpy(&bits, &d, 8);
    for (int k = 0; k < 8; k++) dle[k] = (unsigned char)(bits >> (8 * k));
    n = make_npy(buf, sizeof buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", dle, 8);
    expect_npy_ok("f8.npy", buf, n, "f64[]", &d, 8);
    n = make_npy(buf, sizeof buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", NULL, 0);
    expect_npy_ok("f4empty.npy", buf, n, "f32[0,3]", NULL, 0);
  }
}

static void test_npy_corrupt(void) {
  unsigned char buf[1024];
  unsigned char data[64] = {0};
  const char *i4 = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  size_t n = make_npy(buf, sizeof buf, 1, i4, data, 24);

  /* Truncation at every layer. */
  expect_npy_error("empty.npy", buf, 0, BERTH_ERR_CORRUPT_DATA, "not a .npy file");
  expect_npy_error("short.npy", buf, 8, BERTH_ERR_CORRUPT_DATA, "truncated .npy file (8 bytes; the preamble alone is 10)");
  expect_npy_error("hdrcut.npy", buf, 50, BERTH_ERR_CORRUPT_DATA, "truncated .npy header (40 of the 118 bytes it declares)");
  expect_npy_error("datacut.npy", buf, n - 4, BERTH_ERR_CORRUPT_DATA, "data is 20 bytes but shape (2, 3) of '<i4' needs 24");
  expect_npy_error("nodata.npy", buf, n - 24, BERTH_ERR_CORRUPT_DATA, "data is 0 bytes but shape (2, 3) of '<i4' needs 24");
  {
    unsigned char big[1024];
    memcpy(big, buf, n);
    big[n] = 0;
    expect_npy_error("trailing.npy", big, n + 1, BERTH_ERR_CORRUPT_DATA,
                     "data is longer than the 24 bytes that shape (2, 3) of '<i4' needs");
  }
  {
    unsigned char m[1024];
    memcpy(m, buf, n);
    m[5] = 'X';
    expect_npy_error("magic.npy", m, n, BERTH_ERR_CORRUPT_DATA, "not a .npy file (it does not start with the magic \\x93NUMPY)");
    expect_npy_error("text.npy", "hello world, not numpy", 22, BERTH_ERR_CORRUPT_DATA, "not a .npy file");
    memcpy(m, buf, n);
    m[6] = 4;
    expect_npy_error("v4.npy", m, n, BERTH_ERR_UNIMPLEMENTED, "unsupported .npy format version 4.0");
    m[6] = 1;
    m[7] = 1;
    expect_npy_error("v11.npy", m, n, BERTH_ERR_UNIMPLEMENTED, "unsupported .npy format version 1.1");
    m[6] = 0;
    m[7] = 0;
    expect_npy_error("v0.npy", m, n, BERTH_ERR_UNIMPLEMENTED, "version 0.0");
  }
  {
    /* A 2.0 header that claims 4 GiB. */
    unsigned char m[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xff, 0xff, 0xff, 0xff, '{', '}'};
    expect_npy_error("hugehdr.npy", m, 14, BERTH_ERR_OUT_OF_RANGE, "header length 4294967295 exceeds berth's cap");
    unsigned char p[11] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0x10, 0};
    expect_npy_error("v2short.npy", p, 11, BERTH_ERR_CORRUPT_DATA, "the version 2.0 preamble is 12 bytes");
  }

  /* Layouts and dtypes berth does not take. */
  expect_npy_error_dict("fortran.npy", 1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", data, 24,
                        BERTH_ERR_UNIMPLEMENTED, "fortran_order True (column-major) arrays are not supported");
  expect_npy_error_dict("bigend.npy", 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", data, 16,
                        BERTH_ERR_UNIMPLEMENTED, "big-endian data ('>f8') is not supported");
  expect_npy_error_dict("object.npy", 1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", data, 16,
                        BERTH_ERR_UNIMPLEMENTED, "object arrays ('|O') are not supported");
  expect_npy_error_dict("f2.npy", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", data, 4,
                        BERTH_ERR_UNIMPLEMENTED, "unsupported dtype '<f2' (berth reads <f4 <f8");
  expect_npy_error_dict("c8.npy", 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", data, 16,
                        BERTH_ERR_UNIMPLEMENTED, "unsupported dtype '<c8'");
  expect_npy_error_dict("str.npy", 1, "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", data, 24,
                        BERTH_ERR_UNIMPLEMENTED, "unsupported dtype '<U3'");
  expect_npy_error_dict("native.npy", 1, "{'descr': '=f8', 'fortran_order': False, 'shape': (2,), }", data, 16,
                        BERTH_ERR_UNIMPLEMENTED, "no definite byte order");
  expect_npy_error_dict("struct.npy", 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
                        data, 8, BERTH_ERR_UNIMPLEMENTED, "structured dtypes are not supported");

  /* Shapes. */
  expect_npy_error_dict("huge.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }",
                        NULL, 0, BERTH_ERR_OUT_OF_RANGE, "shape (1099511627776, 1099511627776) of '<f8' is larger than berth's maximum");
  expect_npy_error_dict("hugedim.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
                        NULL, 0, BERTH_ERR_OUT_OF_RANGE, "dimension 0 of the shape exceeds berth's maximum");
  /* 1 TiB of u8 is within the caps: the reader must notice the missing data without
   * allocating for the declared size. */
  expect_npy_error_dict("lying.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1099511627776,), }", data,
                        3, BERTH_ERR_CORRUPT_DATA, "data is 3 bytes but shape (1099511627776,) of '|u1' needs 1099511627776");
  expect_npy_error_dict("rank9.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }",
                        data, 8, BERTH_ERR_OUT_OF_RANGE, "more than 8 dimensions");
  expect_npy_error_dict("negdim.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", data, 8,
                        BERTH_ERR_CORRUPT_DATA, "expected a non-negative integer in the shape");
  expect_npy_error_dict("shapestr.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': '3', }", data, 8,
                        BERTH_ERR_CORRUPT_DATA, "expected '(' to open the shape tuple");

  /* Malformed dicts. */
  expect_npy_error_dict("nokey.npy", 1, "{'descr': '<f8', 'fortran_order': False, }", data, 8,
                        BERTH_ERR_CORRUPT_DATA, "the header dict lacks the key 'shape'");
  expect_npy_error_dict("dupkey.npy", 1, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                        data, 8, BERTH_ERR_CORRUPT_DATA, "duplicate key 'descr'");
  expect_npy_error_dict("extrakey.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), 'x': 1}", data, 8,
                        BERTH_ERR_CORRUPT_DATA, "unexpected key 'x'");
  expect_npy_error_dict("unclosed.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), ", data, 8,
                        BERTH_ERR_CORRUPT_DATA, "bad .npy header at byte");
  expect_npy_error_dict("notdict.npy", 1, "['descr']", data, 8, BERTH_ERR_CORRUPT_DATA,
                        "bad .npy header at byte 10: expected '{' to open the header dict");
  expect_npy_error_dict("badbool.npy", 1, "{'descr': '<f8', 'fortran_order': Truest, 'shape': (), }", data, 8,
                        BERTH_ERR_CORRUPT_DATA, "bad .npy header at byte 44: expected True or False for 'fortran_order'");
  expect_npy_error_dict("unterm.npy", 1, "{'descr': '<f8' 'fortran_order': False, 'shape': (), }", data, 8,
                        BERTH_ERR_CORRUPT_DATA, "expected ',' or '}' after a value");
  expect_npy_error_dict("escape.npy", 1, "{'descr': '<f\\8', 'fortran_order': False, 'shape': (), }", data, 8,
                        BERTH_ERR_CORRUPT_DATA, "unsupported character 0x5c");
  expect_npy_error_dict("garbage.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), } x", data, 8,
                        BERTH_ERR_CORRUPT_DATA, "unexpected bytes after the header dict");
  {
    char dict[200] = "{'descr': '";
    memset(dict + 11, 'f', 80);
    strcpy(dict + 91, "', 'fortran_order': False, 'shape': (), }");
    expect_npy_error_dict("longstr.npy", 1, dict, data, 8, BERTH_ERR_CORRUPT_DATA, "string longer than 64 characters");
  }
  {
    /* A header with a NUL byte inside a string. */
    size_t m = make_npy(buf, sizeof buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", data, 8);
    buf[22] = 0;
    expect_npy_error("nul.npy", buf, m, BERTH_ERR_CORRUPT_DATA, "unsupported character 0x00");
  }

  /* Files that cannot be read at all. */
  berth_host_tensor_t t;
  char err[256];
  CHECK(berth_npy_read("/nonexistent/berth/in.npy", &t, err, sizeof err) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err, "/nonexistent/berth/in.npy: cannot open: ") != NULL, "%s", err);
  CHECK(berth_npy_read(tmp_dir, &t, err, sizeof err) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err, "cannot read") != NULL, "%s", err);
}

/* Every prefix of a valid file is rejected cleanly (no crash, no output). */
static void test_npy_prefixes(void) {
  unsigned char buf[256];
  double d[3] = {1, 2, 3};
  size_t n = make_npy(buf, sizeof buf, 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", d, 24);
  char path[128], err[256];
  tmp_path(path, sizeof path, "prefix.npy");
  int rejected = 0;
  for (size_t len = 0; len < n; len++) {
    write_file(path, buf, len);
    berth_host_tensor_t t = {{0}, NULL};
    berth_status_t st = berth_npy_read(path, &t, err, sizeof err);
    rejected += st == BERTH_ERR_CORRUPT_DATA && t.data == NULL && err[0] != '\0';
    if (st == BERTH_OK) berth_host_tensor_free(&t);
  }
  CHECK_MSG(rejected == (int)n, "%d of %zu prefixes rejected", rejected, n);
  remove(path);
}

/* ---------------------------------------------------------------------------------------
 * Printing
 * ------------------------------------------------------------------------------------- */

static void test_print(void) {
  expect_print("f64[1]:6.0", "f64[1] [6]", "{\"dtype\":\"f64\",\"shape\":[1],\"data\":[6.0]}");
  expect_print("f32[2,2]:1,2,3,4", "f32[2,2] [[1, 2], [3, 4]]",
               "{\"dtype\":\"f32\",\"shape\":[2,2],\"data\":[1.0,2.0,3.0,4.0]}");
  expect_print("i64[]:16000", "i64[] 16000", "{\"dtype\":\"i64\",\"shape\":[],\"data\":[16000]}");
  expect_print("bool[2]:true,0", "bool[2] [true, false]", "{\"dtype\":\"bool\",\"shape\":[2],\"data\":[true,false]}");
  expect_print("f64[4]:nan,inf,-inf,-0.0", "f64[4] [nan, inf, -inf, -0]",
               "{\"dtype\":\"f64\",\"shape\":[4],\"data\":[\"nan\",\"inf\",\"-inf\",-0.0]}");
  expect_print("f32[3]:-nan,0.1,1e20", "f32[3] [nan, 0.1, 1e+20]",
               "{\"dtype\":\"f32\",\"shape\":[3],\"data\":[\"nan\",0.1,1e+20]}");
  expect_print("f32[2]:16777216,3.4028235e38", "f32[2] [16777216, 3.4028235e+38]",
               "{\"dtype\":\"f32\",\"shape\":[2],\"data\":[16777216.0,3.4028235e+38]}");
  expect_print("f64[4]:0.30000000000000004,0.0001,0.00001,1e16",
               "f64[4] [0.30000000000000004, 0.0001, 1e-05, 1e+16]",
               "{\"dtype\":\"f64\",\"shape\":[4],\"data\":[0.30000000000000004,0.0001,1e-05,1e+16]}");
  expect_print("f64[4]:1234567890123456,123456789012345678,5e-324,1.7976931348623157e308",
               "f64[4] [1234567890123456, 1.2345678901234568e+17, 5e-324, 1.7976931348623157e+308]",
               "{\"dtype\":\"f64\",\"shape\":[4],\"data\":[1234567890123456.0,1.2345678901234568e+17,5e-324,"
               "1.7976931348623157e+308]}");
  expect_print("f64[3]:-2.5,100,0.000123", "f64[3] [-2.5, 100, 0.000123]",
               "{\"dtype\":\"f64\",\"shape\":[3],\"data\":[-2.5,100.0,0.000123]}");
  expect_print("i64[2]:-9223372036854775808,9223372036854775807", "i64[2] [-9223372036854775808, 9223372036854775807]",
               "{\"dtype\":\"i64\",\"shape\":[2],\"data\":[-9223372036854775808,9223372036854775807]}");
  expect_print("u64[]:18446744073709551615", "u64[] 18446744073709551615",
               "{\"dtype\":\"u64\",\"shape\":[],\"data\":[18446744073709551615]}");
  expect_print("i8[3]:-128,0,127", "i8[3] [-128, 0, 127]", "{\"dtype\":\"i8\",\"shape\":[3],\"data\":[-128,0,127]}");
  expect_print("u8[2]:0,255", "u8[2] [0, 255]", "{\"dtype\":\"u8\",\"shape\":[2],\"data\":[0,255]}");
  expect_print("i16[1]:-32768", "i16[1] [-32768]", "{\"dtype\":\"i16\",\"shape\":[1],\"data\":[-32768]}");
  expect_print("u16[1]:65535", "u16[1] [65535]", "{\"dtype\":\"u16\",\"shape\":[1],\"data\":[65535]}");
  expect_print("i32[1]:-2147483648", "i32[1] [-2147483648]", "{\"dtype\":\"i32\",\"shape\":[1],\"data\":[-2147483648]}");
  expect_print("u32[1]:4294967295", "u32[1] [4294967295]", "{\"dtype\":\"u32\",\"shape\":[1],\"data\":[4294967295]}");
  expect_print("f32[0]:", "f32[0] []", "{\"dtype\":\"f32\",\"shape\":[0],\"data\":[]}");
  expect_print("f64[2,0]:", "f64[2,0] [[], []]", "{\"dtype\":\"f64\",\"shape\":[2,0],\"data\":[]}");
  expect_print("i32[2,1,2]:1,2,3,4", "i32[2,1,2] [[[1, 2]], [[3, 4]]]",
               "{\"dtype\":\"i32\",\"shape\":[2,1,2],\"data\":[1,2,3,4]}");

  /* Elision of big tensors in the readable form, never in JSON. */
  static int32_t big[100 * 100];
  for (int i = 0; i < 100 * 100; i++) big[i] = i;
  berth_type_t t = {BERTH_DTYPE_I32, 1, {2000}};
  const char *s = printed(&t, big, false);
  CHECK_MSG(strcmp(s, "i32[2000] [0, 1, 2, ..., 1997, 1998, 1999]") == 0, "%s", s);
  t.dims[0] = 1000; /* at the threshold: printed in full */
  s = printed(&t, big, false);
  CHECK(strlen(s) > 3000 && strstr(s, "...") == NULL && strstr(s, ", 500, 501, ") != NULL);
  t.rank = 2;
  t.dims[0] = 100;
  t.dims[1] = 100;
  s = printed(&t, big, false);
  CHECK_MSG(strncmp(s, "i32[100,100] [[0, 1, 2, ..., 97, 98, 99], [100, 101, 102, ..., 197, 198, 199], "
                       "[200, 201, 202, ..., 297, 298, 299], ..., [9700, 9701, 9702, ..., 9797, 9798, 9799], ",
                    strlen("i32[100,100] [[0, 1, 2, ..., 97, 98, 99], [100, 101, 102, ..., 197, 198, 199], "
                           "[200, 201, 202, ..., 297, 298, 299], ..., [9700, 9701, 9702, ..., 9797, 9798, 9799], ")) == 0,
            "%.200s", s);
  CHECK(strstr(s, "[9900, 9901, 9902, ..., 9997, 9998, 9999]]") != NULL);
  t.dims[0] = 2;
  t.dims[1] = 1000; /* 2000 elements: the short dim stays whole */
  s = printed(&t, big, false);
  CHECK_MSG(strcmp(s, "i32[2,1000] [[0, 1, 2, ..., 997, 998, 999], [1000, 1001, 1002, ..., 1997, 1998, 1999]]") == 0,
            "%s", s);
  t.rank = 1;
  t.dims[0] = 2000;
  s = printed(&t, big, true);
  CHECK(strstr(s, "...") == NULL && strstr(s, ",1000,1001,") != NULL && strstr(s, ",1999]}") != NULL);

  /* Invalid input to the printers does not crash. */
  berth_type_t bad = {BERTH_DTYPE_F32, 9, {0}};
  CHECK(strcmp(printed(&bad, big, false), "<invalid tensor>") == 0);
  CHECK(strcmp(printed(&bad, big, true), "null") == 0);
  berth_type_t one = {BERTH_DTYPE_F32, 1, {1}};
  CHECK(strcmp(printed(&one, NULL, false), "<invalid tensor>") == 0);
}

/* Shortest formatting reads back exactly, for random bit patterns (all exponents). */
static void test_float_round_trip(unsigned long seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  int bad64 = 0, bad32 = 0, long64 = 0;
  char b[BERTH_FLOAT_STR_CAP];
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double d;
    memcpy(&d, &x, 8);
    float f;
    uint32_t x32 = (uint32_t)(x >> 17);
    memcpy(&f, &x32, 4);
    for (int json = 0; json < 2; json++) {
      if (isfinite(d)) {
        berth_float_format(b, d, false, json);
        double back = strtod(b, NULL);
        if (memcmp(&back, &d, 8) != 0) {
          if (bad64++ < 5) fprintf(stderr, "f64 %a printed as %s\n", d, b);
        }
        if (strlen(b) > 24) long64++;
        if (json && !strpbrk(b, ".e")) bad64++;
      }
      if (isfinite(f)) {
        berth_float_format(b, f, true, json);
        float back = strtof(b, NULL);
        if (memcmp(&back, &f, 4) != 0) {
          if (bad32++ < 5) fprintf(stderr, "f32 %a printed as %s\n", (double)f, b);
        }
        if (json && !strpbrk(b, ".e")) bad32++;
      }
    }
  }
  CHECK_MSG(bad64 == 0 && bad32 == 0 && long64 == 0, "seed %lu: %d f64 and %d f32 failures, %d too long", seed,
            bad64, bad32, long64);
  /* f32 uses f32 precision: 0.1f prints as 0.1, not 0.10000000149011612. */
  CHECK(strcmp(berth_float_format(b, 0.1f, true, false), "0.1") == 0);
  CHECK(strcmp(berth_float_format(b, 0.1f, false, false), "0.10000000149011612") == 0);
  CHECK(strcmp(berth_float_format(b, FLT_TRUE_MIN, true, true), "1e-45") == 0);
}

/* The input limit (--max-input-size): data over it is refused with a message naming the
 * limit, after reading no more than the limit; a short file is still "truncated". */
static void test_npy_limit(void) {
  berth_type_t type = {BERTH_DTYPE_I32, 2, {2, 3}};
  int32_t v[6] = {1, -2, 3, -4, 5, -6};
  char path[128], err[256];
  tmp_path(path, sizeof path, "limit.npy");
  CHECK(berth_npy_write(path, &type, v, err, sizeof err) == BERTH_OK);
  berth_host_tensor_t t = {{0}, NULL};
  berth_tool_max_input_bytes = 23;
  CHECK(berth_npy_read(path, &t, err, sizeof err) == BERTH_ERR_OUT_OF_RANGE);
  CHECK_MSG(strstr(err, "needs 24 bytes of data, over the input limit of 23 bytes (--max-input-size raises it)"), "%s", err);
  berth_tool_max_input_bytes = 24;
  CHECK_MSG(berth_npy_read(path, &t, err, sizeof err) == BERTH_OK, "%s", err);
  berth_host_tensor_free(&t);
  berth_tool_max_input_bytes = BERTH_TOOL_MAX_INPUT_DEFAULT;
  remove(path);
}

int main(int argc, char **argv) {
  unsigned long seed = argc > 1 ? strtoul(argv[1], NULL, 0) : 20240601ul;
  snprintf(tmp_dir, sizeof tmp_dir, "/tmp/berth_tensor_io_XXXXXX");
  if (!mkdtemp(tmp_dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_literals();
  test_call_split();
  test_npy_round_trip();
  test_npy_handmade();
  test_npy_corrupt();
  test_npy_prefixes();
  test_npy_limit();
  test_print();
  test_float_round_trip(seed);
  if (rmdir(tmp_dir) != 0) {
    CHECK_MSG(false, "%s is not empty after the tests", tmp_dir);
  }
  if (test_failures) fprintf(stderr, "test_tensor_io: seed %lu\n", seed);
  return test_finish("test_tensor_io");
}
