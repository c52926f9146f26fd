/* The CSV reader for allocation problems (see berth/alloc.h for the format). The only file
 * of the allocator that uses stdio, to read the file. */
#include "berth/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct berth_alloc_csv {
  berth_alloc_problem_t problem;
  berth_alloc_buffer_t *buffers;
  berth_interval_t *intervals;
  const char **names;
  char *ids; /* every id, NUL-terminated, back to back */
  bool has_alignment;
};

enum { COL_ID, COL_LOWER, COL_UPPER, COL_START, COL_END, COL_SIZE, COL_ALIGN, COL_IGNORED, COL_KINDS };

#define CSV_MAX_COLUMNS 16

/* ---- tokenizer ----------------------------------------------------------------------- */

typedef struct csv_in {
  const char *p, *end;
  int64_t line; /* of the current position */
  const char *name;
  berth_diag_t *diag;
} csv_in_t;

typedef struct csv_field {
  const char *s; /* raw text without surrounding quotes; quoted fields keep "" pairs */
  size_t len;
  bool quoted;
} csv_field_t;

static berth_status_t csv_error(const csv_in_t *in, int64_t line, const char *what, const char *detail) {
  return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: %s%s", in->name, (long long)line, what,
                    detail ? detail : "");
}

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

/* Reads one record into fields (at most CSV_MAX_COLUMNS + 1 are stored; *n counts all).
 * Returns false at the end of input. *blank is set for a record with no text at all. */
static berth_status_t read_record(csv_in_t *in, csv_field_t *fields, int *n, bool *blank, bool *got) {
  *n = 0;
  *blank = true;
  *got = in->p < in->end;
  if (!*got) return BERTH_OK;
  for (;;) {
    while (in->p < in->end && is_blank(*in->p)) in->p++;
    csv_field_t f = {in->p, 0, false};
    if (in->p < in->end && *in->p == '"') {
      int64_t open_line = in->line;
      f.quoted = true;
      f.s = ++in->p;
      for (;;) {
        if (in->p >= in->end) return csv_error(in, open_line, "unterminated quoted field", NULL);
        if (*in->p == '"') {
          if (in->p + 1 < in->end && in->p[1] == '"') {
            in->p += 2;
            continue;
          }
          break;
        }
        if (*in->p == '\n') in->line++;
        in->p++;
      }
      f.len = (size_t)(in->p - f.s);
      in->p++; /* closing quote */
      while (in->p < in->end && is_blank(*in->p)) in->p++;
      if (in->p < in->end && *in->p != ',' && *in->p != '\n' && *in->p != '\r')
        return csv_error(in, in->line, "text after a closing quote", NULL);
      *blank = false;
    } else {
      while (in->p < in->end && *in->p != ',' && *in->p != '\n' && *in->p != '\r') in->p++;
      f.len = (size_t)(in->p - f.s);
      while (f.len > 0 && is_blank(f.s[f.len - 1])) f.len--;
      if (f.len > 0) *blank = false;
    }
    if (*n <= CSV_MAX_COLUMNS) fields[*n] = f;
    (*n)++;
    if (in->p < in->end && *in->p == ',') {
      *blank = false;
      in->p++;
      continue;
    }
    if (in->p < in->end && *in->p == '\r') in->p++;
    if (in->p < in->end && *in->p == '\n') {
      in->p++;
      in->line++;
    }
    return BERTH_OK;
  }
}

/* Copies a field's text (undoing "" escapes) into dst; returns the length. */
static size_t field_copy(const csv_field_t *f, char *dst) {
  size_t k = 0;
  for (size_t i = 0; i < f->len; i++) {
    dst[k++] = f->s[i];
    if (f->quoted && f->s[i] == '"') i++;
  }
  dst[k] = '\0';
  return k;
}

static bool field_is(const csv_field_t *f, const char *word) {
  size_t n = strlen(word);
  if (f->len != n) return false;
  for (size_t i = 0; i < n; i++) {
    char c = f->s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}

/* A short printable copy of a field for messages. */
static const char *field_show(const csv_field_t *f, char *buf, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < f->len && k + 4 < cap; i++) buf[k++] = (f->s[i] >= 32 && f->s[i] < 127) ? f->s[i] : '?';
  if (f->len > k) {
    buf[k++] = '.';
    buf[k++] = '.';
    buf[k++] = '.';
  }
  buf[k] = '\0';
  return buf;
}

static bool parse_u64(const csv_field_t *f, uint64_t *out) {
  if (f->len == 0 || f->len > 20) return false;
  uint64_t v = 0;
  size_t i = 0;
  if (f->s[0] == '+') i++;
  if (i == f->len) return false;
  for (; i < f->len; i++) {
    char c = f->s[i];
    if (c < '0' || c > '9') return false;
    uint64_t d = (uint64_t)(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

static bool parse_i64(const csv_field_t *f, int64_t *out) {
  if (f->len == 0) return false;
  bool neg = f->s[0] == '-';
  csv_field_t g = *f;
  if (neg) {
    g.s++;
    g.len--;
  }
  uint64_t v;
  if (!parse_u64(&g, &v)) return false;
  if (neg) {
    if (v > (uint64_t)INT64_MAX + 1) return false;
    *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
  } else {
    if (v > (uint64_t)INT64_MAX) return false;
    *out = (int64_t)v;
  }
  return true;
}

/* ---- id set (open addressing over row indices) ---------------------------------------- */

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* ---- parser -------------------------------------------------------------------------- */

void berth_alloc_csv_destroy(berth_alloc_csv_t *csv) {
  if (!csv) return;
  free(csv->buffers);
  free(csv->intervals);
  free(csv->names);
  free(csv->ids);
  free(csv);
}

const berth_alloc_problem_t *berth_alloc_csv_problem(const berth_alloc_csv_t *csv) { return csv ? &csv->problem : NULL; }

bool berth_alloc_csv_has_alignment(const berth_alloc_csv_t *csv) { return csv && csv->has_alignment; }

typedef struct row_cols {
  int kind[CSV_MAX_COLUMNS];
  int n;
  int where[COL_KINDS]; /* column index of each kind, -1 if absent */
} row_cols_t;

static berth_status_t parse_header(csv_in_t *in, int64_t line, const csv_field_t *f, int n, row_cols_t *cols) {
  char show[64];
  if (n > CSV_MAX_COLUMNS) return csv_error(in, line, "too many columns in the header", NULL);
  cols->n = n;
  for (int k = 0; k < COL_KINDS; k++) cols->where[k] = -1;
  for (int i = 0; i < n; i++) {
    int kind;
    if (field_is(&f[i], "id")) kind = COL_ID;
    else if (field_is(&f[i], "lower")) kind = COL_LOWER;
    else if (field_is(&f[i], "upper")) kind = COL_UPPER;
    else if (field_is(&f[i], "start")) kind = COL_START;
    else if (field_is(&f[i], "end")) kind = COL_END;
    else if (field_is(&f[i], "size")) kind = COL_SIZE;
    else if (field_is(&f[i], "alignment") || field_is(&f[i], "align")) kind = COL_ALIGN;
    else if (field_is(&f[i], "offset")) kind = COL_IGNORED;
    else {
      return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA,
                        "%s:%lld: unknown column '%s'; expected id, lower, upper (or start, end), size and optionally "
                        "alignment",
                        in->name, (long long)line, field_show(&f[i], show, sizeof show));
    }
    if (kind != COL_IGNORED && cols->where[kind] >= 0)
      return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: column '%s' appears twice", in->name,
                        (long long)line, field_show(&f[i], show, sizeof show));
    cols->kind[i] = kind;
    if (kind != COL_IGNORED) cols->where[kind] = i;
  }
  bool half_open = cols->where[COL_LOWER] >= 0 || cols->where[COL_UPPER] >= 0;
  bool inclusive = cols->where[COL_START] >= 0 || cols->where[COL_END] >= 0;
  if (cols->where[COL_ID] < 0 || cols->where[COL_SIZE] < 0 || half_open == inclusive ||
      (half_open && (cols->where[COL_LOWER] < 0 || cols->where[COL_UPPER] < 0)) ||
      (inclusive && (cols->where[COL_START] < 0 || cols->where[COL_END] < 0)))
    return csv_error(in, line, "the header must name the columns id, size and either lower, upper or start, end",
                     NULL);
  return BERTH_OK;
}

typedef struct csv_build {
  berth_alloc_buffer_t *buffers;
  berth_interval_t *intervals;
  int64_t *lines;
  size_t *id_at; /* offset of each id in ids */
  char *ids;
  size_t ids_len, ids_cap;
  int32_t n, cap;
} csv_build_t;

static bool build_grow(csv_build_t *b) {
  int32_t nc = b->cap ? (b->cap > INT32_MAX / 2 ? INT32_MAX : 2 * b->cap) : 256;
  berth_alloc_buffer_t *nb = realloc(b->buffers, (size_t)nc * sizeof *nb);
  if (!nb) return false;
  b->buffers = nb;
  berth_interval_t *ni = realloc(b->intervals, (size_t)nc * sizeof *ni);
  if (!ni) return false;
  b->intervals = ni;
  int64_t *nl = realloc(b->lines, (size_t)nc * sizeof *nl);
  if (!nl) return false;
  b->lines = nl;
  size_t *na = realloc(b->id_at, (size_t)nc * sizeof *na);
  if (!na) return false;
  b->id_at = na;
  b->cap = nc;
  return true;
}

static berth_status_t parse_row(csv_in_t *in, int64_t line, const csv_field_t *f, const row_cols_t *cols,
                                csv_build_t *b) {
  char show[64];
  if (b->n >= BERTH_ALLOC_MAX_BUFFERS)
    return berth_fail(in->diag, BERTH_ERR_OUT_OF_RANGE, "%s:%lld: more than %d buffers", in->name, (long long)line,
                      (int)BERTH_ALLOC_MAX_BUFFERS);
  if (b->n == b->cap && !build_grow(b)) return berth_fail(in->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_alloc_buffer_t *buf = &b->buffers[b->n];
  berth_interval_t *iv = &b->intervals[b->n];
  memset(buf, 0, sizeof *buf);
  buf->n_intervals = 1;

  const csv_field_t *id = &f[cols->where[COL_ID]];
  if (id->len == 0) return csv_error(in, line, "empty id", NULL);
  if (b->ids_len + id->len + 1 > b->ids_cap) {
    size_t nc = b->ids_cap ? 2 * b->ids_cap : 4096;
    while (nc < b->ids_len + id->len + 1) nc *= 2;
    char *ni = realloc(b->ids, nc);
    if (!ni) return berth_fail(in->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    b->ids = ni;
    b->ids_cap = nc;
  }
  b->id_at[b->n] = b->ids_len;
  b->ids_len += field_copy(id, b->ids + b->ids_len) + 1;

  const csv_field_t *size = &f[cols->where[COL_SIZE]];
  if (!parse_u64(size, &buf->size) || buf->size > (uint64_t)INT64_MAX)
    return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: size '%s' is not a non-negative integer below 2^63",
                      in->name, (long long)line, field_show(size, show, sizeof show));
  if (cols->where[COL_ALIGN] >= 0) {
    const csv_field_t *al = &f[cols->where[COL_ALIGN]];
    if (!parse_u64(al, &buf->align) || (buf->align > 1 && (buf->align & (buf->align - 1)) != 0))
      return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: alignment '%s' is not a power of two (or 0)",
                        in->name, (long long)line, field_show(al, show, sizeof show));
  }
  bool inclusive = cols->where[COL_START] >= 0;
  int c_lo = inclusive ? COL_START : COL_LOWER, c_hi = inclusive ? COL_END : COL_UPPER;
  const char *n_lo = inclusive ? "start" : "lower", *n_hi = inclusive ? "end" : "upper";
  int64_t lo, hi;
  if (!parse_i64(&f[cols->where[c_lo]], &lo))
    return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: %s '%s' is not an integer", in->name,
                      (long long)line, n_lo, field_show(&f[cols->where[c_lo]], show, sizeof show));
  if (!parse_i64(&f[cols->where[c_hi]], &hi))
    return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: %s '%s' is not an integer", in->name,
                      (long long)line, n_hi, field_show(&f[cols->where[c_hi]], show, sizeof show));
  if (inclusive) {
    if (hi < lo)
      return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: end %lld is before start %lld", in->name,
                        (long long)line, (long long)hi, (long long)lo);
    if (hi == INT64_MAX)
      return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: end %lld is too large", in->name, (long long)line,
                        (long long)hi);
    hi++;
  } else if (hi <= lo) {
    return berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: lower %lld is not below upper %lld", in->name,
                      (long long)line, (long long)lo, (long long)hi);
  }
  iv->lower = lo;
  iv->upper = hi;
  b->lines[b->n] = line;
  b->n++;
  return BERTH_OK;
}

/* Rejects repeated ids, naming both lines. */
static berth_status_t check_unique(csv_in_t *in, const csv_build_t *b) {
  size_t cap = 16;
  while (cap < 2 * (size_t)b->n) cap *= 2;
  int32_t *slot = malloc(cap * sizeof *slot);
  if (!slot) return berth_fail(in->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (size_t i = 0; i < cap; i++) slot[i] = -1;
  berth_status_t st = BERTH_OK;
  for (int32_t i = 0; i < b->n && !st; i++) {
    const char *id = b->ids + b->id_at[i];
    size_t h = (size_t)(hash_str(id) & (cap - 1));
    while (slot[h] >= 0) {
      if (strcmp(b->ids + b->id_at[slot[h]], id) == 0) {
        st = berth_fail(in->diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: id '%s' repeats line %lld", in->name,
                        (long long)b->lines[i], id, (long long)b->lines[slot[h]]);
        break;
      }
      h = (h + 1) & (cap - 1);
    }
    if (!st) slot[h] = i;
  }
  free(slot);
  return st;
}

berth_status_t berth_alloc_csv_parse(const char *text, size_t len, const char *name, berth_alloc_csv_t **out,
                                     berth_diag_t *diag) {
  csv_in_t in = {text, text + len, 1, name ? name : "<csv>", diag};
  if (!text && len) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no CSV text");
  if (len > BERTH_ALLOC_CSV_MAX_BYTES)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "%s: larger than %zu bytes", in.name, BERTH_ALLOC_CSV_MAX_BYTES);
  if (len >= 3 && (unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb && (unsigned char)text[2] == 0xbf)
    in.p += 3; /* UTF-8 byte order mark */
  csv_field_t f[CSV_MAX_COLUMNS + 1];
  row_cols_t cols;
  csv_build_t b;
  memset(&b, 0, sizeof b);
  bool have_header = false;
  berth_status_t st = BERTH_OK;
  for (;;) {
    int n;
    bool blank, got;
    int64_t line = in.line;
    st = read_record(&in, f, &n, &blank, &got);
    if (st || !got) break;
    if (blank) continue;
    if (!have_header) {
      st = parse_header(&in, line, f, n, &cols);
      if (st) break;
      have_header = true;
      continue;
    }
    if (n != cols.n) {
      st = berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "%s:%lld: expected %d fields, found %d", in.name, (long long)line,
                      cols.n, n);
      break;
    }
    st = parse_row(&in, line, f, &cols, &b);
    if (st) break;
  }
  if (!st && !have_header) st = csv_error(&in, in.line, "no header line (expected id,lower,upper,size)", NULL);
  if (!st) st = check_unique(&in, &b);

  berth_alloc_csv_t *csv = NULL;
  if (!st) {
    csv = calloc(1, sizeof *csv);
    const char **names = malloc(((size_t)b.n + 1) * sizeof *names);
    if (!csv || !names) {
      free(csv);
      free(names);
      csv = NULL;
      st = berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
    } else {
      for (int32_t i = 0; i < b.n; i++) {
        names[i] = b.ids + b.id_at[i];
        b.buffers[i].intervals = &b.intervals[i];
      }
      csv->buffers = b.buffers;
      csv->intervals = b.intervals;
      csv->names = names;
      csv->ids = b.ids;
      csv->has_alignment = cols.where[COL_ALIGN] >= 0;
      csv->problem.n = b.n;
      csv->problem.buffers = b.buffers;
      csv->problem.names = names;
      b.buffers = NULL;
      b.intervals = NULL;
      b.ids = NULL;
      st = berth_alloc_validate(&csv->problem, diag);
      if (st) {
        berth_fail_prefix(diag, st, "%s", in.name);
        berth_alloc_csv_destroy(csv);
        csv = NULL;
      }
    }
  }
  free(b.buffers);
  free(b.intervals);
  free(b.lines);
  free(b.id_at);
  free(b.ids);
  if (!st) *out = csv;
  return st;
}

berth_status_t berth_alloc_csv_read(const char *path, berth_alloc_csv_t **out, berth_diag_t *diag) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap);
  berth_status_t st = BERTH_OK;
  while (text) {
    if (len == cap) {
      if (cap > BERTH_ALLOC_CSV_MAX_BYTES) {
        st = berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "%s: larger than %zu bytes", path, BERTH_ALLOC_CSV_MAX_BYTES);
        break;
      }
      char *nt = realloc(text, 2 * cap);
      if (!nt) {
        free(text);
        text = NULL;
        break;
      }
      text = nt;
      cap *= 2;
    }
    size_t k = fread(text + len, 1, cap - len, fp);
    len += k;
    if (k == 0) {
      if (ferror(fp)) st = berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: read error", path);
      break;
    }
  }
  fclose(fp);
  if (!text) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "%s: out of memory reading the file", path);
  if (!st) st = berth_alloc_csv_parse(text, len, path, out, diag);
  free(text);
  return st;
}
