/* NumPy .npy files: a strict reader for untrusted files and a format 1.0 writer.
 *
 * The format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor version byte,
 * the header length (u16 little-endian in 1.0, u32 in 2.0 and 3.0), the header -- a Python
 * dict literal such as {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), } in ASCII
 * (UTF-8 in 3.0), padded with spaces and ended by '\n' so that the data is aligned -- and
 * then the raw array bytes. The reader parses the header with a small bounded parser (never
 * a general Python evaluator), caps its length, checks the shape against berth's caps, and
 * grows its data buffer only as bytes actually arrive, so a lying header cannot make it
 * allocate more than the file holds. */
#include "tensor_io.h"

#include "berth/outfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define NPY_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define NPY_PRINTF(f, a)
#endif

/* numpy itself refuses headers over 10000 bytes by default; berth allows more. */
#define NPY_MAX_HEADER ((size_t)1 << 20)
/* The data buffer starts at most this big and doubles as bytes arrive. */
#define NPY_FIRST_CHUNK ((size_t)1 << 24)
#define NPY_MAX_STRING 64

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

NPY_PRINTF(4, 5)
static berth_status_t npy_fail(char *err, size_t cap, berth_status_t st, const char *fmt, ...) {
  if (err && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
  }
  return st;
}

static bool npy_host_is_le(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

static void npy_swap(unsigned char *p, size_t count, size_t esize) {
  for (size_t i = 0; i < count; i++, p += esize)
    for (size_t a = 0, b = esize - 1; a < b; a++, b--) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

/* The descr berth writes for each dtype; the reader accepts these and a few spellings more. */
static const struct {
  const char *code; /* type letter and size, after the byte-order character */
  berth_dtype_t dtype;
  const char *descr;
} npy_types[] = {
    {"b1", BERTH_DTYPE_BOOL, "|b1"}, {"i1", BERTH_DTYPE_I8, "|i1"},  {"u1", BERTH_DTYPE_U8, "|u1"},
    {"i2", BERTH_DTYPE_I16, "<i2"},  {"u2", BERTH_DTYPE_U16, "<u2"}, {"i4", BERTH_DTYPE_I32, "<i4"},
    {"u4", BERTH_DTYPE_U32, "<u4"},  {"i8", BERTH_DTYPE_I64, "<i8"}, {"u8", BERTH_DTYPE_U64, "<u8"},
    {"f4", BERTH_DTYPE_F32, "<f4"},  {"f8", BERTH_DTYPE_F64, "<f8"},
};
#define NPY_NTYPES (sizeof npy_types / sizeof npy_types[0])
#define NPY_SUPPORTED "<f4 <f8 <i1 <i2 <i4 <i8 <u1 <u2 <u4 <u8 |b1"

/* Python's repr of a shape tuple: "()", "(3,)", "(2, 3)". */
static char *npy_shape_str(const berth_type_t *t, char *buf, size_t cap) {
  size_t len = (size_t)snprintf(buf, cap, "(");
  for (int i = 0; i < t->rank && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, i ? ", %lld" : "%lld", (long long)t->dims[i]);
  if (len < cap) snprintf(buf + len, cap - len, t->rank == 1 ? ",)" : ")");
  return buf;
}

/* ---------------------------------------------------------------------------------------
 * Header parser
 * ------------------------------------------------------------------------------------- */

typedef struct npy_hdr {
  const char *path;
  const unsigned char *s;
  size_t len;
  size_t pos;
  size_t base; /* file offset of s[0], for messages */
  char *err;
  size_t cap;
} npy_hdr_t;

NPY_PRINTF(3, 4)
static berth_status_t npy_hdr_fail(npy_hdr_t *h, berth_status_t st, const char *fmt, ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return npy_fail(h->err, h->cap, st, "%s: bad .npy header at byte %zu: %s", h->path,
                  h->base + h->pos, what);
}

static int npy_peek(const npy_hdr_t *h) { return h->pos < h->len ? h->s[h->pos] : -1; }

static void npy_skip_ws(npy_hdr_t *h) {
  while (h->pos < h->len) {
    unsigned char c = h->s[h->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    h->pos++;
  }
}

static berth_status_t npy_expect(npy_hdr_t *h, char c, const char *what) {
  if (npy_peek(h) != (unsigned char)c)
    return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "expected '%c' %s", c, what);
  h->pos++;
  return BERTH_OK;
}

/* A quoted Python string without escapes, of printable ASCII, at most NPY_MAX_STRING long. */
static berth_status_t npy_string(npy_hdr_t *h, char *out, size_t *out_len) {
  int q = npy_peek(h);
  if (q != '\'' && q != '"') return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "expected a quoted string");
  size_t start = h->pos++;
  size_t n = 0;
  for (;;) {
    int c = npy_peek(h);
    if (c < 0) {
      h->pos = start;
      return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "unterminated string");
    }
    if (c == q) break;
    if (c < 0x20 || c > 0x7e || c == '\\')
      return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA,
                          "unsupported character 0x%02x in a string (expected printable ASCII, no escapes)", c);
    if (n == NPY_MAX_STRING) {
      h->pos = start;
      return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "string longer than %d characters", NPY_MAX_STRING);
    }
    out[n++] = (char)c;
    h->pos++;
  }
  h->pos++;
  out[n] = '\0';
  *out_len = n;
  return BERTH_OK;
}

static bool npy_word(npy_hdr_t *h, const char *w) {
  size_t n = strlen(w);
  if (n > h->len - h->pos || memcmp(h->s + h->pos, w, n) != 0) return false;
  /* The word must end here ("Truex" is not True). */
  if (h->pos + n < h->len) {
    unsigned char c = h->s[h->pos + n];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') return false;
  }
  h->pos += n;
  return true;
}

static berth_status_t npy_descr(npy_hdr_t *h, const char *d, size_t n, berth_dtype_t *out) {
  if (n == 3) {
    char order = d[0];
    for (size_t i = 0; i < NPY_NTYPES; i++) {
      if (memcmp(d + 1, npy_types[i].code, 2) != 0) continue;
      bool one_byte = npy_types[i].code[1] == '1';
      if (order == '<' || (one_byte && (order == '|' || order == '>' || order == '=')))
        *out = npy_types[i].dtype;
      else if (order == '>')
        return npy_hdr_fail(h, BERTH_ERR_UNIMPLEMENTED,
                            "big-endian data ('%s') is not supported; save it as little-endian "
                            "(a.astype('<%s'))", d, npy_types[i].code);
      else
        return npy_hdr_fail(h, BERTH_ERR_UNIMPLEMENTED,
                            "descr '%s' has no definite byte order (expected '<%s')", d,
                            npy_types[i].code);
      return BERTH_OK;
    }
  }
  if (n >= 2 && d[1] == 'O')
    return npy_hdr_fail(h, BERTH_ERR_UNIMPLEMENTED,
                        "object arrays ('%s') are not supported (they hold pickled Python objects)", d);
  return npy_hdr_fail(h, BERTH_ERR_UNIMPLEMENTED, "unsupported dtype '%s' (berth reads " NPY_SUPPORTED ")", d);
}

static berth_status_t npy_shape(npy_hdr_t *h, berth_type_t *t) {
  berth_status_t st = npy_expect(h, '(', "to open the shape tuple");
  if (st) return st;
  npy_skip_ws(h);
  if (npy_peek(h) == ')') {
    h->pos++;
    return BERTH_OK;
  }
  for (;;) {
    int c = npy_peek(h);
    if (c < '0' || c > '9')
      return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "expected a non-negative integer in the shape");
    if (t->rank == BERTH_MAX_RANK)
      return npy_hdr_fail(h, BERTH_ERR_OUT_OF_RANGE, "the shape has more than %d dimensions (berth's maximum rank)",
                          BERTH_MAX_RANK);
    size_t start = h->pos;
    int64_t v = 0;
    while ((c = npy_peek(h)) >= '0' && c <= '9') {
      v = v * 10 + (c - '0');
      if (v > BERTH_MAX_DIM) {
        h->pos = start;
        return npy_hdr_fail(h, BERTH_ERR_OUT_OF_RANGE, "dimension %d of the shape exceeds berth's maximum %lld",
                            t->rank, (long long)BERTH_MAX_DIM);
      }
      h->pos++;
    }
    if (npy_peek(h) == 'L') h->pos++; /* Python 2 long literal, written by old numpy */
    t->dims[t->rank++] = v;
    npy_skip_ws(h);
    c = npy_peek(h);
    if (c == ')') {
      h->pos++;
      return BERTH_OK;
    }
    if (c != ',') return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "expected ',' or ')' in the shape");
    h->pos++;
    npy_skip_ws(h);
    if (npy_peek(h) == ')') {
      h->pos++;
      return BERTH_OK;
    }
  }
}

/* Parses the header dict into *t. descr receives the descr string for messages. */
static berth_status_t npy_parse_header(npy_hdr_t *h, berth_type_t *t, char *descr) {
  berth_status_t st;
  bool have_descr = false, have_order = false, have_shape = false, fortran = false;
  size_t fortran_at = 0;
  memset(t, 0, sizeof *t);
  npy_skip_ws(h);
  if ((st = npy_expect(h, '{', "to open the header dict"))) return st;
  for (;;) {
    npy_skip_ws(h);
    if (npy_peek(h) == '}') {
      h->pos++;
      break;
    }
    char key[NPY_MAX_STRING + 1];
    size_t klen;
    size_t key_at = h->pos;
    if ((st = npy_string(h, key, &klen))) return st;
    npy_skip_ws(h);
    if ((st = npy_expect(h, ':', "after a key"))) return st;
    npy_skip_ws(h);
    bool dup;
    if (strcmp(key, "descr") == 0) {
      dup = have_descr;
      have_descr = true;
      if (npy_peek(h) == '[')
        return npy_hdr_fail(h, BERTH_ERR_UNIMPLEMENTED, "structured dtypes are not supported");
      size_t at = h->pos, dlen;
      if ((st = npy_string(h, descr, &dlen))) return st;
      size_t end = h->pos;
      h->pos = at;
      if ((st = npy_descr(h, descr, dlen, &t->dtype))) return st;
      h->pos = end;
    } else if (strcmp(key, "fortran_order") == 0) {
      dup = have_order;
      have_order = true;
      fortran_at = h->pos;
      if (npy_word(h, "True"))
        fortran = true;
      else if (npy_word(h, "False"))
        fortran = false;
      else
        return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "expected True or False for 'fortran_order'");
    } else if (strcmp(key, "shape") == 0) {
      dup = have_shape;
      have_shape = true;
      t->rank = 0;
      if ((st = npy_shape(h, t))) return st;
    } else {
      h->pos = key_at;
      return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA,
                          "unexpected key '%s' (expected 'descr', 'fortran_order' and 'shape')", key);
    }
    if (dup) {
      h->pos = key_at;
      return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "duplicate key '%s'", key);
    }
    npy_skip_ws(h);
    int c = npy_peek(h);
    if (c == ',') {
      h->pos++;
      continue;
    }
    if (c == '}') {
      h->pos++;
      break;
    }
    return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "expected ',' or '}' after a value");
  }
  npy_skip_ws(h);
  if (h->pos != h->len)
    return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "unexpected bytes after the header dict");
  if (!have_descr || !have_order || !have_shape)
    return npy_hdr_fail(h, BERTH_ERR_CORRUPT_DATA, "the header dict lacks the key '%s'",
                        !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
  if (fortran) {
    h->pos = fortran_at;
    return npy_hdr_fail(h, BERTH_ERR_UNIMPLEMENTED,
                        "fortran_order True (column-major) arrays are not supported; save "
                        "np.ascontiguousarray(a) instead");
  }
  return BERTH_OK;
}

/* ---------------------------------------------------------------------------------------
 * Reader
 * ------------------------------------------------------------------------------------- */

static berth_status_t npy_read_file(FILE *f, const char *path, berth_host_tensor_t *out, char *err,
                                    size_t cap) {
  unsigned char pre[12];
  size_t got = fread(pre, 1, 10, f);
  if (ferror(f)) return npy_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT, "%s: cannot read: %s", path, strerror(errno));
  if (got < sizeof npy_magic || memcmp(pre, npy_magic, sizeof npy_magic) != 0)
    return npy_fail(err, cap, BERTH_ERR_CORRUPT_DATA,
                    "%s: not a .npy file (it does not start with the magic \\x93NUMPY)", path);
  if (got < 10)
    return npy_fail(err, cap, BERTH_ERR_CORRUPT_DATA,
                    "%s: truncated .npy file (%zu bytes; the preamble alone is 10)", path, got);
  unsigned major = pre[6], minor = pre[7];
  if (major < 1 || major > 3 || minor != 0)
    return npy_fail(err, cap, BERTH_ERR_UNIMPLEMENTED,
                    "%s: unsupported .npy format version %u.%u (berth reads 1.0, 2.0 and 3.0)", path,
                    major, minor);
  size_t hlen, base;
  if (major == 1) {
    hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    base = 10;
  } else {
    got = fread(pre + 10, 1, 2, f);
    if (got < 2)
      return npy_fail(err, cap, BERTH_ERR_CORRUPT_DATA,
                      "%s: truncated .npy file (the version %u.0 preamble is 12 bytes)", path, major);
    uint32_t l = (uint32_t)pre[8] | (uint32_t)pre[9] << 8 | (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
    hlen = l;
    base = 12;
    if (hlen > NPY_MAX_HEADER)
      return npy_fail(err, cap, BERTH_ERR_OUT_OF_RANGE,
                      "%s: .npy header length %zu exceeds berth's cap of %zu bytes", path, hlen, NPY_MAX_HEADER);
  }
  unsigned char *hdr = malloc(hlen ? hlen : 1);
  if (!hdr) return npy_fail(err, cap, BERTH_ERR_RESOURCE_EXHAUSTED, "%s: out of memory", path);
  got = fread(hdr, 1, hlen, f);
  if (got < hlen) {
    free(hdr);
    return npy_fail(err, cap, BERTH_ERR_CORRUPT_DATA,
                    "%s: truncated .npy header (%zu of the %zu bytes it declares)", path, got, hlen);
  }
  npy_hdr_t h = {path, hdr, hlen, 0, base, err, cap};
  berth_type_t t;
  char descr[NPY_MAX_STRING + 1] = "";
  berth_status_t st = npy_parse_header(&h, &t, descr);
  free(hdr);
  if (st) return st;

  char shape[160];
  npy_shape_str(&t, shape, sizeof shape);
  if (!berth_type_check(&t))
    return npy_fail(err, cap, BERTH_ERR_OUT_OF_RANGE,
                    "%s: shape %s of '%s' is larger than berth's maximum tensor size of %lld bytes",
                    path, shape, descr, (long long)BERTH_MAX_TENSOR_BYTES);

  /* Read exactly `need` bytes, growing the buffer only as data arrives. */
  size_t need = berth_type_bytes(&t);
  /* over the input limit: read no more than the limit (a short file is still "truncated") */
  size_t limit = berth_tool_max_input_bytes;
  size_t want = need > limit ? limit + 1 : need;
  size_t bufcap = want < NPY_FIRST_CHUNK ? want : NPY_FIRST_CHUNK;
  unsigned char *data = malloc(bufcap ? bufcap : 1);
  if (!data) return npy_fail(err, cap, BERTH_ERR_RESOURCE_EXHAUSTED, "%s: out of memory", path);
  size_t have = 0;
  while (have < want) {
    if (have == bufcap) {
      size_t ncap = bufcap > want / 2 ? want : bufcap * 2;
      unsigned char *nd = realloc(data, ncap);
      if (!nd) {
        free(data);
        return npy_fail(err, cap, BERTH_ERR_RESOURCE_EXHAUSTED, "%s: out of memory", path);
      }
      data = nd;
      bufcap = ncap;
    }
    size_t r = fread(data + have, 1, bufcap - have, f);
    have += r;
    if (r == 0) break;
  }
  if (ferror(f)) {
    free(data);
    return npy_fail(err, cap, BERTH_ERR_INVALID_ARGUMENT, "%s: cannot read: %s", path, strerror(errno));
  }
  if (have > limit) {
    free(data);
    return npy_fail(err, cap, BERTH_ERR_OUT_OF_RANGE,
                    "%s: shape %s of '%s' needs %zu bytes of data, over the input limit of %zu bytes "
                    "(--max-input-size raises it)",
                    path, shape, descr, need, limit);
  }
  if (have < need) {
    free(data);
    return npy_fail(err, cap, BERTH_ERR_CORRUPT_DATA,
                    "%s: data is %zu bytes but shape %s of '%s' needs %zu (truncated file?)", path,
                    have, shape, descr, need);
  }
  if (fgetc(f) != EOF) {
    free(data);
    return npy_fail(err, cap, BERTH_ERR_CORRUPT_DATA,
                    "%s: data is longer than the %zu bytes that shape %s of '%s' needs", path, need,
                    shape, descr);
  }
  size_t esize = berth_dtype_size(t.dtype);
  if (t.dtype == BERTH_DTYPE_BOOL)
    for (size_t i = 0; i < need; i++) data[i] = data[i] != 0;
  if (esize > 1 && !npy_host_is_le()) npy_swap(data, need / esize, esize);
  out->type = t;
  out->data = data;
  return BERTH_OK;
}

berth_status_t berth_npy_read(const char *path, berth_host_tensor_t *out, char *err, size_t err_cap) {
  if (err && err_cap) err[0] = '\0';
  if (!path || !out) return npy_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT, "no .npy path given");
  FILE *f = fopen(path, "rb");
  if (!f) return npy_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT, "%s: cannot open: %s", path, strerror(errno));
  berth_status_t st = npy_read_file(f, path, out, err, err_cap);
  fclose(f);
  return st;
}

/* ---------------------------------------------------------------------------------------
 * Writer
 * ------------------------------------------------------------------------------------- */

static bool npy_write_data(FILE *f, const unsigned char *data, size_t bytes, size_t esize) {
  if (bytes == 0) return true;
  if (esize == 1 || npy_host_is_le()) return fwrite(data, 1, bytes, f) == bytes;
  unsigned char chunk[1 << 16];
  size_t per = sizeof chunk / esize * esize;
  for (size_t off = 0; off < bytes; off += per) {
    size_t n = bytes - off < per ? bytes - off : per;
    memcpy(chunk, data + off, n);
    npy_swap(chunk, n / esize, esize);
    if (fwrite(chunk, 1, n, f) != n) return false;
  }
  return true;
}

/* The .npy header of type into hdr (numpy's layout: the dict, spaces, '\n', so that the
 * preamble and header fill a multiple of 64 bytes; with rank <= 8 it is far below the 1.0
 * limit of 65535). Returns the header's length, or 0 for a dtype .npy cannot hold. */
static size_t npy_header(const berth_type_t *type, unsigned char pre[10], char hdr[320]) {
  const char *descr = NULL;
  for (size_t i = 0; i < NPY_NTYPES; i++)
    if (npy_types[i].dtype == type->dtype) descr = npy_types[i].descr;
  if (!descr) return 0;
  char shape[160];
  int dlen = snprintf(hdr, 320, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr,
                      npy_shape_str(type, shape, sizeof shape));
  size_t len = (size_t)dlen;
  size_t pad = (64 - (10 + len + 1) % 64) % 64;
  memset(hdr + len, ' ', pad);
  len += pad;
  hdr[len++] = '\n';
  static const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  memcpy(pre, magic, 8);
  pre[8] = (unsigned char)(len & 0xff);
  pre[9] = (unsigned char)(len >> 8);
  return len;
}

berth_status_t berth_npy_write_stream(FILE *f, const char *path, const berth_type_t *type, const void *data,
                                      char *err, size_t err_cap) {
  if (err && err_cap) err[0] = '\0';
  if (!path) path = "(unnamed)";
  if (!f || !type || !berth_type_check(type))
    return npy_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT, "%s: invalid tensor type", path);
  size_t bytes = berth_type_bytes(type);
  if (!data && bytes > 0)
    return npy_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT, "%s: no tensor data", path);
  unsigned char pre[10];
  char hdr[320];
  size_t len = npy_header(type, pre, hdr);
  if (!len) return npy_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT, "%s: invalid dtype", path);
  bool ok = fwrite(pre, 1, sizeof pre, f) == sizeof pre && fwrite(hdr, 1, len, f) == len &&
            npy_write_data(f, data, bytes, berth_dtype_size(type->dtype));
  if (!ok) return npy_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT, "%s: cannot write: %s", path, strerror(errno));
  return BERTH_OK;
}

berth_status_t berth_npy_write(const char *path, const berth_type_t *type, const void *data, char *err,
                               size_t err_cap) {
  if (err && err_cap) err[0] = '\0';
  if (!path || !type || !berth_type_check(type))
    return npy_fail(err, err_cap, BERTH_ERR_INVALID_ARGUMENT, "%s: invalid tensor type", path ? path : "(null)");
  berth_diag_t diag = berth_diag_make(err, err_cap);
  berth_outfile_t *o;
  berth_status_t st = berth_outfile_open(path, &o, &diag);
  if (st) return st;
  st = berth_npy_write_stream(berth_outfile_stream(o), path, type, data, err, err_cap);
  if (st) {
    berth_outfile_discard(o);
    return st;
  }
  return berth_outfile_commit(o, &diag);
}
