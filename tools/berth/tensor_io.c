/* Tensor literals, --call splitting, and readable / JSON printing for the berth tool.
 * The .npy reader and writer are in npy.c. */
#include "tensor_io.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TIO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TIO_PRINTF(f, a)
#endif

/* A value token longer than this is rejected; no honest number needs more. */
#define TIO_MAX_VALUE_CHARS 400
/* berth_tensor_print elides tensors with more elements than this... */
#define TIO_PRINT_THRESHOLD 1000
/* ...showing this many entries at each end of a long dim. */
#define TIO_PRINT_EDGE 3

size_t berth_tool_max_input_bytes = BERTH_TOOL_MAX_INPUT_DEFAULT;

TIO_PRINTF(4, 5)
static berth_status_t tio_fail(char *err, size_t cap, berth_status_t st, const char *fmt, ...) {
  if (err && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
  }
  return st;
}

void berth_host_tensor_free(berth_host_tensor_t *t) {
  if (!t) return;
  free(t->data);
  t->data = NULL;
}

/* ---------------------------------------------------------------------------------------
 * Literals: DTYPE[DIMS]:V,V,...
 * ------------------------------------------------------------------------------------- */

static void tio_dtype_list(char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (int d = 0; d < BERTH_DTYPE_COUNT && len < cap; d++)
    len += (size_t)snprintf(buf + len, cap - len, d ? ", %s" : "%s", berth_dtype_name((berth_dtype_t)d));
}

/* How a token is quoted in a message: at most 40 characters, then "...". */
#define TIO_TOK_FMT "'%.*s%s'"
#define TIO_TOK_ARGS(s, n) (int)((n) > 40 ? 40 : (n)), (s), ((n) > 40 ? "..." : "")

/* Parses [+-]digits exactly. Returns 0 on success, 1 if not an integer, 2 if the magnitude
 * does not fit 64 bits. */
static int tio_parse_int(const char *s, size_t len, bool *neg, uint64_t *mag) {
  size_t i = 0;
  *neg = false;
  if (i < len && (s[i] == '+' || s[i] == '-')) {
    *neg = s[i] == '-';
    i++;
  }
  if (i == len) return 1;
  uint64_t m = 0;
  bool over = false;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return 1;
    unsigned d = (unsigned)(s[i] - '0');
    if (m > (UINT64_MAX - d) / 10)
      over = true;
    else
      m = m * 10 + d;
  }
  if (over) return 2;
  *mag = m;
  return 0;
}

static unsigned tio_int_bits(berth_dtype_t d) { return (unsigned)berth_dtype_size(d) * 8u; }

/* Parses one value token s[0..len) at 1-based position pos and stores it at dst. */
static berth_status_t tio_parse_value(berth_dtype_t dt, const char *s, size_t len, size_t pos,
                                      unsigned char *dst, char *err, size_t cap) {
  const char *name = berth_dtype_name(dt);
  if (len == 0)
    return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                    "empty %s value at character %zu (values are separated by single commas)",
                    name, pos);
  if (dt == BERTH_DTYPE_BOOL) {
    static const struct {
      const char *word;
      unsigned char v;
    } words[] = {{"true", 1}, {"false", 0}, {"1", 1}, {"0", 0}, {"True", 1}, {"False", 0}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
      if (strlen(words[i].word) == len && memcmp(words[i].word, s, len) == 0) {
        *dst = words[i].v;
        return BERTH_OK;
      }
    }
    return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                    "invalid bool value " TIO_TOK_FMT " at character %zu (expected true, false, 1 or 0)",
                    TIO_TOK_ARGS(s, len), pos);
  }
  if (berth_dtype_is_int(dt)) {
    bool neg;
    uint64_t mag = 0;
    int r = tio_parse_int(s, len, &neg, &mag);
    if (r == 1)
      return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                      "invalid %s value " TIO_TOK_FMT " at character %zu (expected a decimal integer)",
                      name, TIO_TOK_ARGS(s, len), pos);
    unsigned bits = tio_int_bits(dt);
    bool ok;
    if (berth_dtype_is_signed_int(dt)) {
      uint64_t lim = (uint64_t)1 << (bits - 1); /* |min|; max is lim - 1 */
      ok = r == 0 && (neg ? mag <= lim : mag < lim);
      if (!ok) {
        long long hi = (long long)(lim - 1);
        return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                        "value " TIO_TOK_FMT " at character %zu is out of range for %s (%lld to %lld)",
                        TIO_TOK_ARGS(s, len), pos, name, -hi - 1, hi);
      }
      int64_t v = neg ? (mag == ((uint64_t)1 << 63) ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
      switch (dt) {
        case BERTH_DTYPE_I8: { int8_t x = (int8_t)v; memcpy(dst, &x, sizeof x); break; }
        case BERTH_DTYPE_I16: { int16_t x = (int16_t)v; memcpy(dst, &x, sizeof x); break; }
        case BERTH_DTYPE_I32: { int32_t x = (int32_t)v; memcpy(dst, &x, sizeof x); break; }
        default: memcpy(dst, &v, sizeof v); break;
      }
    } else {
      uint64_t max = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
      ok = r == 0 && (neg ? mag == 0 : mag <= max);
      if (!ok)
        return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                        "value " TIO_TOK_FMT " at character %zu is out of range for %s (0 to %llu)",
                        TIO_TOK_ARGS(s, len), pos, name, (unsigned long long)max);
      switch (dt) {
        case BERTH_DTYPE_U8: { uint8_t x = (uint8_t)mag; memcpy(dst, &x, sizeof x); break; }
        case BERTH_DTYPE_U16: { uint16_t x = (uint16_t)mag; memcpy(dst, &x, sizeof x); break; }
        case BERTH_DTYPE_U32: { uint32_t x = (uint32_t)mag; memcpy(dst, &x, sizeof x); break; }
        default: memcpy(dst, &mag, sizeof mag); break;
      }
    }
    return BERTH_OK;
  }
  /* Floats: strtod/strtof read the decimal directly into the target precision, so an f32
   * literal is rounded once, not twice through double. */
  if (len > TIO_MAX_VALUE_CHARS)
    return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                    "%s value at character %zu is %zu characters long (at most %d)", name, pos,
                    len, TIO_MAX_VALUE_CHARS);
  char buf[TIO_MAX_VALUE_CHARS + 1];
  memcpy(buf, s, len);
  buf[len] = '\0';
  /* strtod skips leading white space; a literal may not contain any. */
  bool ws = false;
  for (size_t i = 0; i < len; i++)
    if (buf[i] == ' ' || (buf[i] >= '\t' && buf[i] <= '\r')) ws = true;
  char *end = NULL;
  errno = 0;
  bool overflow;
  if (dt == BERTH_DTYPE_F32) {
    float v = strtof(buf, &end);
    overflow = errno == ERANGE && isinf(v);
    memcpy(dst, &v, sizeof v);
  } else {
    double v = strtod(buf, &end);
    overflow = errno == ERANGE && isinf(v);
    memcpy(dst, &v, sizeof v);
  }
  if (ws || end != buf + len)
    return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                    "invalid %s value " TIO_TOK_FMT " at character %zu (expected a number, nan, inf or -inf)",
                    name, TIO_TOK_ARGS(s, len), pos);
  if (overflow)
    return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                    "value " TIO_TOK_FMT " at character %zu is out of range for %s (write inf for infinity)",
                    TIO_TOK_ARGS(s, len), pos, name);
  return BERTH_OK;
}

static berth_status_t tio_parse_literal(const char *arg, berth_host_tensor_t *out, char *err,
                                        size_t cap) {
  char list[128];
  size_t n = 0;
  while (arg[n] && arg[n] != '[' && arg[n] != ':' && arg[n] != ',') n++;
  berth_dtype_t known;
  if (arg[n] != '[') {
    if (n == 0 || !berth_dtype_from_name(arg, n, &known))
      return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                      "expected a tensor literal DTYPE[DIMS]:V,V,... (e.g. f32[2]:1,2) or @FILE.npy");
    return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                    "expected '[' after the dtype at character %zu (a literal reads DTYPE[DIMS]:V,V,...)",
                    n + 1);
  }
  berth_type_t type;
  memset(&type, 0, sizeof type);
  if (!berth_dtype_from_name(arg, n, &type.dtype)) {
    tio_dtype_list(list, sizeof list);
    if (n == 0)
      return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                      "missing dtype at character 1 (expected one of %s)", list);
    return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                    "unknown dtype " TIO_TOK_FMT " at character 1 (expected one of %s)",
                    TIO_TOK_ARGS(arg, n), list);
  }

  /* Shape. */
  size_t i = n + 1;
  if (arg[i] != ']') {
    for (;;) {
      if (arg[i] < '0' || arg[i] > '9')
        return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                        arg[i] ? "expected a dimension (a non-negative integer) at character %zu"
                               : "expected a dimension (a non-negative integer) at character %zu "
                                 "(end of the argument)",
                        i + 1);
      size_t start = i;
      int64_t d = 0;
      while (arg[i] >= '0' && arg[i] <= '9') {
        d = d * 10 + (arg[i] - '0');
        if (d > BERTH_MAX_DIM)
          return tio_fail(err, cap, BERTH_ERR_OUT_OF_RANGE,
                          "dimension at character %zu exceeds berth's maximum %lld", start + 1,
                          (long long)BERTH_MAX_DIM);
        i++;
      }
      if (type.rank == BERTH_MAX_RANK)
        return tio_fail(err, cap, BERTH_ERR_OUT_OF_RANGE,
                        "too many dimensions at character %zu (berth's maximum rank is %d)",
                        start + 1, BERTH_MAX_RANK);
      type.dims[type.rank++] = d;
      if (arg[i] == ',') {
        i++;
        continue;
      }
      if (arg[i] == ']') break;
      return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                      arg[i] ? "expected ',' or ']' in the shape at character %zu"
                             : "expected ',' or ']' in the shape at character %zu (end of the argument)",
                      i + 1);
    }
  }
  i++; /* ']' */
  if (arg[i] != ':')
    return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                    arg[i] ? "expected ':' after the shape at character %zu"
                           : "expected ':' and the values after the shape at character %zu (end of the argument)",
                    i + 1);
  i++;
  char tbuf[160];
  berth_type_format(&type, tbuf, sizeof tbuf);
  if (!berth_type_check(&type))
    return tio_fail(err, cap, BERTH_ERR_OUT_OF_RANGE,
                    "%s is larger than berth's maximum tensor size of %lld bytes", tbuf,
                    (long long)BERTH_MAX_TENSOR_BYTES);

  /* Count the values first: the allocation is then bounded by the argument's length. */
  const char *vals = arg + i;
  uint64_t count = 0;
  if (*vals) {
    count = 1;
    for (const char *p = vals; *p; p++) count += *p == ',';
  }
  int64_t numel = berth_type_numel(&type);
  if (count != (uint64_t)numel)
    return tio_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT,
                    "%llu value%s given but %s needs %lld", (unsigned long long)count,
                    count == 1 ? "" : "s", tbuf, (long long)numel);

  size_t esize = berth_dtype_size(type.dtype);
  size_t bytes = berth_type_bytes(&type);
  unsigned char *data = malloc(bytes ? bytes : 1);
  if (!data)
    return tio_fail(err, cap, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory for %s", tbuf);
  const char *p = vals;
  for (int64_t k = 0; k < numel; k++) {
    const char *e = strchr(p, ',');
    if (!e) e = p + strlen(p);
    berth_status_t st = tio_parse_value(type.dtype, p, (size_t)(e - p), (size_t)(p - arg) + 1,
                                        data + (size_t)k * esize, err, cap);
    if (st != BERTH_OK) {
      free(data);
      return st;
    }
    p = *e ? e + 1 : e;
  }
  out->type = type;
  out->data = data;
  return BERTH_OK;
}

berth_status_t berth_tensor_parse_arg(const char *arg, berth_host_tensor_t *out, char *err,
                                      size_t err_cap) {
  if (err && err_cap) err[0] = '\0';
  if (!arg || !out) return tio_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT, "no argument given");
  if (arg[0] == '@') {
    if (arg[1] == '\0')
      return tio_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT,
                      "'@' must be followed by the path of a .npy file");
    return berth_npy_read(arg + 1, out, err, err_cap);
  }
  return tio_parse_literal(arg, out, err, err_cap);
}

/* ---------------------------------------------------------------------------------------
 * --call splitting
 * ------------------------------------------------------------------------------------- */

static bool tio_is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

berth_status_t berth_call_split(const char *call, char ***argv_out, int *argc_out, char *err,
                                size_t err_cap) {
  if (err && err_cap) err[0] = '\0';
  if (!call || !argv_out || !argc_out)
    return tio_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT, "no --call string given");
  size_t len = strlen(call);
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    if (!tio_is_space(call[i]) && (i == 0 || tio_is_space(call[i - 1]))) n++;
  if (n > (size_t)INT_MAX - 1)
    return tio_fail(err, err_cap, BERTH_ERR_OUT_OF_RANGE, "too many arguments in --call");
  size_t ptr_bytes = (n + 1) * sizeof(char *);
  char **argv = malloc(ptr_bytes + len + 1);
  if (!argv) return tio_fail(err, err_cap, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  char *s = (char *)argv + ptr_bytes;
  memcpy(s, call, len + 1);
  size_t k = 0;
  for (size_t i = 0; i < len; i++) {
    if (tio_is_space(s[i])) {
      s[i] = '\0';
    } else if (i == 0 || s[i - 1] == '\0') {
      argv[k++] = s + i;
    }
  }
  argv[k] = NULL;
  *argv_out = argv;
  *argc_out = (int)k;
  return BERTH_OK;
}

void berth_call_free(char **argv) { free(argv); }

/* ---------------------------------------------------------------------------------------
 * Printing
 * ------------------------------------------------------------------------------------- */

char *berth_float_format(char *buf, double v, bool is_f32, bool json) {
  if (isnan(v)) {
    strcpy(buf, json ? "\"nan\"" : "nan");
    return buf;
  }
  if (isinf(v)) {
    strcpy(buf, v < 0 ? (json ? "\"-inf\"" : "-inf") : (json ? "\"inf\"" : "inf"));
    return buf;
  }
  /* The fewest significant digits that read back to the same value. */
  char sci[40];
  int maxp = is_f32 ? 9 : 17;
  for (int p = 1; p <= maxp; p++) {
    snprintf(sci, sizeof sci, "%.*e", p - 1, v);
    if (is_f32 ? strtof(sci, NULL) == (float)v : strtod(sci, NULL) == v) break;
  }
  /* sci is [-]d[.ddd]e(+|-)dd; lay the digits out like Python's repr. */
  const char *s = sci;
  bool neg = *s == '-';
  if (neg) s++;
  char digits[24];
  int nd = 0;
  for (; *s && *s != 'e'; s++)
    if (*s >= '0' && *s <= '9' && nd < (int)sizeof digits) digits[nd++] = *s;
  int exp = *s == 'e' ? atoi(s + 1) : 0;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  char *o = buf;
  if (neg) *o++ = '-';
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      for (int i = 0; i <= exp; i++) *o++ = i < nd ? digits[i] : '0';
      if (nd > exp + 1) {
        *o++ = '.';
        for (int i = exp + 1; i < nd; i++) *o++ = digits[i];
      } else if (json) {
        *o++ = '.';
        *o++ = '0';
      }
    } else {
      *o++ = '0';
      *o++ = '.';
      for (int i = 0; i < -exp - 1; i++) *o++ = '0';
      for (int i = 0; i < nd; i++) *o++ = digits[i];
    }
    *o = '\0';
  } else {
    *o++ = digits[0];
    if (nd > 1) {
      *o++ = '.';
      for (int i = 1; i < nd; i++) *o++ = digits[i];
    }
    /* |exp| <= 324 for a double: two or three digits, like printf's %e. */
    unsigned ae = (unsigned)(exp < 0 ? -exp : exp) % 1000u;
    *o++ = 'e';
    *o++ = exp < 0 ? '-' : '+';
    if (ae >= 100) *o++ = (char)('0' + ae / 100);
    *o++ = (char)('0' + ae / 10 % 10);
    *o++ = (char)('0' + ae % 10);
    *o = '\0';
  }
  return buf;
}

static void tio_put_elem(FILE *f, berth_dtype_t dt, const unsigned char *p, bool json) {
  char b[BERTH_FLOAT_STR_CAP];
  switch (dt) {
    case BERTH_DTYPE_BOOL: fputs(*p ? "true" : "false", f); break;
    case BERTH_DTYPE_I8: { int8_t v; memcpy(&v, p, sizeof v); fprintf(f, "%d", (int)v); break; }
    case BERTH_DTYPE_U8: { uint8_t v; memcpy(&v, p, sizeof v); fprintf(f, "%u", (unsigned)v); break; }
    case BERTH_DTYPE_I16: { int16_t v; memcpy(&v, p, sizeof v); fprintf(f, "%d", (int)v); break; }
    case BERTH_DTYPE_U16: { uint16_t v; memcpy(&v, p, sizeof v); fprintf(f, "%u", (unsigned)v); break; }
    case BERTH_DTYPE_I32: { int32_t v; memcpy(&v, p, sizeof v); fprintf(f, "%" PRId32, v); break; }
    case BERTH_DTYPE_U32: { uint32_t v; memcpy(&v, p, sizeof v); fprintf(f, "%" PRIu32, v); break; }
    case BERTH_DTYPE_I64: { int64_t v; memcpy(&v, p, sizeof v); fprintf(f, "%" PRId64, v); break; }
    case BERTH_DTYPE_U64: { uint64_t v; memcpy(&v, p, sizeof v); fprintf(f, "%" PRIu64, v); break; }
    case BERTH_DTYPE_F32: { float v; memcpy(&v, p, sizeof v); fputs(berth_float_format(b, v, true, json), f); break; }
    case BERTH_DTYPE_F64: { double v; memcpy(&v, p, sizeof v); fputs(berth_float_format(b, v, false, json), f); break; }
    default: fputs("?", f); break;
  }
}

static void tio_print_rec(FILE *f, const berth_type_t *t, const unsigned char *data, size_t esize,
                          const int64_t *strides, int dim, int64_t offset, bool elide) {
  if (dim == t->rank) {
    tio_put_elem(f, t->dtype, data + (size_t)offset * esize, false);
    return;
  }
  int64_t n = t->dims[dim];
  fputc('[', f);
  for (int64_t i = 0; i < n; i++) {
    if (elide && n > 2 * TIO_PRINT_EDGE && i == TIO_PRINT_EDGE) {
      fputs(", ...", f);
      i = n - TIO_PRINT_EDGE;
    }
    if (i) fputs(", ", f);
    tio_print_rec(f, t, data, esize, strides, dim + 1, offset + i * strides[dim], elide);
  }
  fputc(']', f);
}

void berth_tensor_print(FILE *f, const berth_type_t *type, const void *data) {
  if (!berth_type_check(type) || (!data && berth_type_numel(type) > 0)) {
    fputs("<invalid tensor>", f);
    return;
  }
  char tbuf[160];
  fputs(berth_type_format(type, tbuf, sizeof tbuf), f);
  fputc(' ', f);
  int64_t strides[BERTH_MAX_RANK];
  int64_t s = 1;
  for (int d = type->rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= type->dims[d];
  }
  tio_print_rec(f, type, data, berth_dtype_size(type->dtype), strides, 0, 0,
                berth_type_numel(type) > TIO_PRINT_THRESHOLD);
}

void berth_tensor_print_json(FILE *f, const berth_type_t *type, const void *data) {
  if (!berth_type_check(type) || (!data && berth_type_numel(type) > 0)) {
    fputs("null", f);
    return;
  }
  fprintf(f, "{\"dtype\":\"%s\",\"shape\":[", berth_dtype_name(type->dtype));
  for (int d = 0; d < type->rank; d++) fprintf(f, d ? ",%lld" : "%lld", (long long)type->dims[d]);
  fputs("],\"data\":[", f);
  int64_t n = berth_type_numel(type);
  size_t esize = berth_dtype_size(type->dtype);
  const unsigned char *p = data;
  for (int64_t i = 0; i < n; i++) {
    if (i) fputc(',', f);
    tio_put_elem(f, type->dtype, p + (size_t)i * esize, true);
  }
  fputs("]}", f);
}
