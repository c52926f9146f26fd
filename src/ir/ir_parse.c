/* Parser of the text format (.bir): a hand-written lexer and a recursive-descent parser.
 *
 * The text is untrusted: every count, size and depth it controls is capped, recursion is
 * bounded by the region nesting cap, and a failing parse destroys what it built. Errors read
 * "file:line:col: expected X, found Y" or name the semantic problem at its position.
 *
 * The parser resolves names (scoping is enforced here, as in the validator) and checks the
 * syntax-level structure of HOP nodes (which bodies, in which order) and the method
 * signatures; it does not check types against the op table: berth_ir_validate does. */
#include "ir.h"
#include "base/try.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PARSE_MAX_INPUT ((size_t)1 << 30)  /* bytes of text */
#define PARSE_MAX_DEPTH 64                 /* nesting of HOP bodies */
#define PARSE_MAX_COUNT ((int32_t)1 << 24) /* values / nodes / graphs per method, globals, methods */
#define PARSE_MAX_LIST ((int32_t)1 << 16)  /* operands, results, params, types of one node/graph */
#define PARSE_MAX_NAME 1024                /* characters of a name */
#define PARSE_MAX_NUMBER 256               /* characters of a number literal */

/* ---- lexer -------------------------------------------------------------------- */

typedef enum tok_kind {
  TOK_EOF = 0,
  TOK_IDENT,  /* NAME: keywords, op names, dtypes, labels, attribute names, nan, inf */
  TOK_LOCAL,  /* %NAME (s/len exclude the sigil) */
  TOK_GLOBAL, /* @NAME */
  TOK_INT,    /* [+-]? decimal digits, or [+-]? 0x hex digits */
  TOK_FLOAT,  /* any other valid C number, and [+-]inf */
  TOK_LPAREN,
  TOK_RPAREN,
  TOK_LBRACE,
  TOK_RBRACE,
  TOK_LBRACKET,
  TOK_RBRACKET,
  TOK_COMMA,
  TOK_COLON,
  TOK_EQUAL,
  TOK_ARROW,
  TOK_STRING,     /* "..." on one line (s/len include the quotes; escapes decoded later) */
  TOK_BAD_STRING, /* a '"' without its closing quote on the same line */
  TOK_BAD_NUMBER, /* looked like a number but is not one */
  TOK_BAD_CHAR,   /* a byte that starts no token */
} tok_kind_t;

typedef struct token {
  tok_kind_t kind;
  const char *s;
  size_t len;
  int32_t line, col;
} token_t;

typedef struct name_entry {
  const char *s; /* points into the text */
  uint32_t len;
  int32_t value; /* value id / global index / method index; -1 while pending */
  int32_t line, col;
} name_entry_t;

typedef struct name_table {
  name_entry_t *e;
  uint32_t cap, n;
} name_table_t;

typedef struct parser {
  const char *text;
  size_t len, pos, line_start;
  int32_t line;
  const char *file;
  token_t tok;
  berth_diag_t *diag;
  berth_ir_program_t *p;
  int32_t mi;           /* current method */
  name_table_t locals;  /* % names of the current method */
  name_table_t globals; /* @ names of constants and buffers */
  name_table_t funcs;   /* @ names of methods */
  int32_t *gref;        /* global index -> the current method's value for it, or -1 */
  int32_t n_gref;
} parser_t;

static bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '.'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool tok_is(const token_t *t, const char *word) {
  size_t n = strlen(word);
  return t->kind == TOK_IDENT && t->len == n && memcmp(t->s, word, n) == 0;
}

/* Copies a token into a NUL-terminated buffer; false if it does not fit. */
static bool tok_copy(const token_t *t, char *buf, size_t cap) {
  if (t->len >= cap) return false;
  memcpy(buf, t->s, t->len);
  buf[t->len] = '\0';
  return true;
}

/* Classifies the number-like bytes [s, s+len): INT, FLOAT or BAD_NUMBER. */
static tok_kind_t classify_number(const char *s, size_t len) {
  if (len > PARSE_MAX_NUMBER) return TOK_BAD_NUMBER;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (len - i == 3 && memcmp(s + i, "inf", 3) == 0) return TOK_FLOAT;
  if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    size_t j = i + 2;
    while (j < len && is_hex(s[j])) j++;
    if (j == len) return TOK_INT;
  } else {
    size_t j = i;
    while (j < len && is_digit(s[j])) j++;
    if (j == len && j > i) return TOK_INT;
  }
  char buf[PARSE_MAX_NUMBER + 1];
  memcpy(buf, s, len);
  buf[len] = '\0';
  char *end = NULL;
  (void)strtod(buf, &end);
  return end == buf + len ? TOK_FLOAT : TOK_BAD_NUMBER;
}

static void lex(parser_t *ps) {
  const char *t = ps->text;
  size_t n = ps->len, i = ps->pos;
  for (;;) {
    if (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r')) {
      i++;
    } else if (i < n && t[i] == '\n') {
      i++;
      ps->line++;
      ps->line_start = i;
    } else if (i < n && t[i] == '#') {
      while (i < n && t[i] != '\n') i++;
    } else {
      break;
    }
  }
  token_t tok = {TOK_EOF, t + i, 0, ps->line, (int32_t)(i - ps->line_start + 1)};
  if (i >= n) {
    ps->tok = tok;
    ps->pos = i;
    return;
  }
  char c = t[i];
  char c1 = i + 1 < n ? t[i + 1] : '\0';
  char c2 = i + 2 < n ? t[i + 2] : '\0';
  size_t j = i + 1;
  if (is_name_start(c)) {
    while (j < n && is_name_char(t[j])) j++;
    tok.kind = TOK_IDENT;
  } else if ((c == '%' || c == '@') && is_name_start(c1)) {
    j = i + 2;
    while (j < n && is_name_char(t[j])) j++;
    tok.kind = c == '%' ? TOK_LOCAL : TOK_GLOBAL;
    tok.s = t + i + 1;
    tok.len = j - i - 1;
  } else if (c == '-' && c1 == '>') {
    j = i + 2;
    tok.kind = TOK_ARROW;
  } else if (is_digit(c) || (c == '.' && is_digit(c1)) ||
             ((c == '-' || c == '+') && (is_digit(c1) || (c1 == '.' && is_digit(c2))))) {
    j = i;
    if (c == '-' || c == '+') j++;
    bool hex = j + 1 < n && t[j] == '0' && (t[j + 1] == 'x' || t[j + 1] == 'X');
    while (j < n) {
      char d = t[j];
      if (is_name_char(d)) {
        j++;
      } else if ((d == '+' || d == '-') && j > i &&
                 (hex ? (t[j - 1] == 'p' || t[j - 1] == 'P') : (t[j - 1] == 'e' || t[j - 1] == 'E'))) {
        j++;
      } else {
        break;
      }
    }
    tok.kind = classify_number(t + i, j - i);
  } else if (c == '"') {
    /* a backslash escapes the next byte; the escapes themselves are checked when decoded */
    while (j < n && t[j] != '"' && t[j] != '\n') j += (t[j] == '\\' && j + 1 < n && t[j + 1] != '\n') ? 2 : 1;
    if (j < n && t[j] == '"') {
      j++;
      tok.kind = TOK_STRING;
    } else {
      tok.kind = TOK_BAD_STRING;
    }
  } else if ((c == '-' || c == '+') && i + 3 < n && memcmp(t + i + 1, "inf", 3) == 0 &&
             (i + 4 >= n || !is_name_char(t[i + 4]))) {
    j = i + 4;
    tok.kind = TOK_FLOAT;
  } else {
    switch (c) {
      case '(': tok.kind = TOK_LPAREN; break;
      case ')': tok.kind = TOK_RPAREN; break;
      case '{': tok.kind = TOK_LBRACE; break;
      case '}': tok.kind = TOK_RBRACE; break;
      case '[': tok.kind = TOK_LBRACKET; break;
      case ']': tok.kind = TOK_RBRACKET; break;
      case ',': tok.kind = TOK_COMMA; break;
      case ':': tok.kind = TOK_COLON; break;
      case '=': tok.kind = TOK_EQUAL; break;
      default: tok.kind = TOK_BAD_CHAR; break;
    }
  }
  if (tok.kind != TOK_LOCAL && tok.kind != TOK_GLOBAL) tok.len = j - i;
  ps->tok = tok;
  ps->pos = j;
}

/* ---- messages ----------------------------------------------------------------- */

/* Writes a short description of a token ("'foo'", "end of file", ...) into buf. */
static const char *describe(const token_t *t, char *buf, size_t cap) {
  char text[48];
  size_t n = t->len < 40 ? t->len : 40;
  memcpy(text, t->s, n);
  text[n] = '\0';
  const char *more = t->len > 40 ? "..." : "";
  switch (t->kind) {
    case TOK_EOF: berth_snprintf(buf, cap, "end of file"); break;
    case TOK_LOCAL: berth_snprintf(buf, cap, "'%%%s%s'", text, more); break;
    case TOK_GLOBAL: berth_snprintf(buf, cap, "'@%s%s'", text, more); break;
    case TOK_BAD_NUMBER: berth_snprintf(buf, cap, "invalid number '%s%s'", text, more); break;
    case TOK_BAD_STRING: berth_snprintf(buf, cap, "a string without its closing '\"' on the same line"); break;
    case TOK_BAD_CHAR: {
      unsigned char b = (unsigned char)t->s[0];
      if (b >= 0x20 && b < 0x7f) berth_snprintf(buf, cap, "unexpected character '%c'", (int)b);
      else berth_snprintf(buf, cap, "unexpected byte 0x%x", (unsigned)b);
      break;
    }
    default: berth_snprintf(buf, cap, "'%s%s'", text, more); break;
  }
  return buf;
}

/* Fails with "file:line:col: <message>". */
BERTH_PRINTF_LIKE(4, 5) static berth_status_t perr(parser_t *ps, const token_t *at, berth_status_t code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  berth_vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return berth_fail(ps->diag, code, "%s:%d:%d: %s", ps->file, (int)at->line, (int)at->col, msg);
}

static berth_status_t expected(parser_t *ps, const char *what) {
  char found[96];
  return perr(ps, &ps->tok, BERTH_ERR_INVALID_ARGUMENT, "expected %s, found %s", what,
              describe(&ps->tok, found, sizeof found));
}

static berth_status_t oom(parser_t *ps) {
  return perr(ps, &ps->tok, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
}

/* Consumes a token of the given kind or fails with "expected <what>". */
static berth_status_t expect(parser_t *ps, tok_kind_t kind, const char *what) {
  if (ps->tok.kind != kind) return expected(ps, what);
  lex(ps);
  return BERTH_OK;
}

/* ---- name tables -------------------------------------------------------------- */

static uint32_t name_hash(const char *s, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static name_entry_t *table_find(const name_table_t *t, const char *s, size_t len) {
  if (!t->cap) return NULL;
  for (uint32_t i = name_hash(s, len) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    name_entry_t *e = &t->e[i];
    if (!e->s) return NULL;
    if (e->len == len && memcmp(e->s, s, len) == 0) return e;
  }
}

/* Inserts a name known to be absent; NULL on allocation failure. */
static name_entry_t *table_insert(name_table_t *t, const char *s, size_t len) {
  if ((t->n + 1) * 2 > t->cap) {
    uint32_t nc = t->cap ? t->cap * 2 : 64;
    name_entry_t *ne = calloc(nc, sizeof *ne);
    if (!ne) return NULL;
    for (uint32_t k = 0; k < t->cap; k++) {
      if (!t->e[k].s) continue;
      uint32_t i = name_hash(t->e[k].s, t->e[k].len) & (nc - 1);
      while (ne[i].s) i = (i + 1) & (nc - 1);
      ne[i] = t->e[k];
    }
    free(t->e);
    t->e = ne;
    t->cap = nc;
  }
  uint32_t i = name_hash(s, len) & (t->cap - 1);
  while (t->e[i].s) i = (i + 1) & (t->cap - 1);
  t->e[i].s = s;
  t->e[i].len = (uint32_t)len;
  t->e[i].value = -1;
  t->n++;
  return &t->e[i];
}

/* Empties the table; a big one is freed so that many small funcs after one huge func
 * do not each pay for clearing it. */
static void table_clear(name_table_t *t) {
  if (t->cap > 1024) {
    free(t->e);
    t->e = NULL;
    t->cap = 0;
  } else if (t->cap) {
    memset(t->e, 0, t->cap * sizeof *t->e);
  }
  t->n = 0;
}

/* Copies a name token into buf (NUL-terminated) or fails: names are capped. */
static berth_status_t name_copy(parser_t *ps, const token_t *t, char *buf) {
  if (!tok_copy(t, buf, PARSE_MAX_NAME + 1))
    return perr(ps, t, BERTH_ERR_OUT_OF_RANGE, "name longer than %d characters", PARSE_MAX_NAME);
  return BERTH_OK;
}

/* ---- small growable arrays ------------------------------------------------------ */

typedef struct vec {
  void *data;
  int32_t n, cap;
} vec_t;

static bool vec_push(vec_t *v, const void *elem, size_t size) {
  if (v->n == v->cap) {
    int32_t nc = v->cap ? v->cap * 2 : 4;
    void *nd = realloc(v->data, (size_t)nc * size);
    if (!nd) return false;
    v->data = nd;
    v->cap = nc;
  }
  memcpy((char *)v->data + (size_t)v->n * size, elem, size);
  v->n++;
  return true;
}

/* ---- numbers ------------------------------------------------------------------ */

/* Sign and magnitude of an INT token; false if the magnitude exceeds 64 bits. */
static bool int_token(const token_t *t, bool *neg, uint64_t *mag) {
  size_t i = 0;
  *neg = false;
  if (t->s[0] == '-' || t->s[0] == '+') {
    *neg = t->s[0] == '-';
    i = 1;
  }
  unsigned base = 10;
  if (t->len - i > 2 && t->s[i] == '0' && (t->s[i + 1] == 'x' || t->s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  uint64_t v = 0;
  for (; i < t->len; i++) {
    char c = t->s[i];
    unsigned d = is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
    if (v > (UINT64_MAX - d) / base) return false;
    v = v * base + d;
  }
  *mag = v;
  return true;
}

/* An INT token as int64; false if out of range. */
static bool int64_token(const token_t *t, int64_t *out) {
  bool neg;
  uint64_t mag;
  if (!int_token(t, &neg, &mag)) return false;
  if (neg) {
    if (mag > (uint64_t)INT64_MAX + 1) return false;
    *out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
  } else {
    if (mag > (uint64_t)INT64_MAX) return false;
    *out = (int64_t)mag;
  }
  return true;
}

/* A number token (INT, FLOAT, nan, inf) as double or float. *range is false if a finite
 * literal overflows the type. Returns false if the token is not a number. */
static bool float_token(const token_t *t, bool f32, double *out, bool *range) {
  *range = true;
  if (tok_is(t, "nan")) {
    *out = f32 ? (double)(float)NAN : NAN;
    return true;
  }
  if (tok_is(t, "inf")) {
    *out = INFINITY;
    return true;
  }
  if (t->kind != TOK_INT && t->kind != TOK_FLOAT) return false;
  char buf[PARSE_MAX_NUMBER + 1];
  if (!tok_copy(t, buf, sizeof buf)) return false;
  bool inf_literal = strstr(buf, "inf") != NULL;
  errno = 0;
  if (f32) {
    float v = strtof(buf, NULL);
    if (errno == ERANGE && isinf(v) && !inf_literal) *range = false;
    *out = v;
  } else {
    double v = strtod(buf, NULL);
    if (errno == ERANGE && isinf(v) && !inf_literal) *range = false;
    *out = v;
  }
  return true;
}

/* SCALAR attribute from a double: integral values in int64 range also get i, n = 1. */
static void scalar_from_double(double f, berth_attr_value_t *a) {
  a->f = f;
  if (isfinite(f) && f == floor(f) && !(f == 0 && signbit(f)) && f >= -9223372036854775808.0 &&
      f < 9223372036854775808.0) {
    a->i = (int64_t)f;
    a->n = 1;
  } else {
    a->i = 0;
    a->n = 0;
  }
}

/* ---- types ------------------------------------------------------------------- */

static berth_status_t parse_type(parser_t *ps, berth_type_t *type) {
  memset(type, 0, sizeof *type);
  if (ps->tok.kind != TOK_IDENT) return expected(ps, "a type");
  if (!berth_dtype_from_name(ps->tok.s, ps->tok.len, &type->dtype)) {
    char found[96];
    return perr(ps, &ps->tok, BERTH_ERR_INVALID_ARGUMENT, "unknown dtype %s",
                describe(&ps->tok, found, sizeof found));
  }
  token_t start = ps->tok;
  lex(ps);
  BERTH_TRY(expect(ps, TOK_LBRACKET, "'['"));
  if (ps->tok.kind != TOK_RBRACKET) {
    for (;;) {
      if (ps->tok.kind != TOK_INT) return expected(ps, "a dimension");
      if (type->rank == BERTH_MAX_RANK)
        return perr(ps, &ps->tok, BERTH_ERR_OUT_OF_RANGE, "rank > %d", BERTH_MAX_RANK);
      bool neg;
      uint64_t mag;
      if (!int_token(&ps->tok, &neg, &mag) || (neg && mag) || mag > (uint64_t)BERTH_MAX_DIM) {
        char found[96];
        return perr(ps, &ps->tok, BERTH_ERR_OUT_OF_RANGE, "dimension %s out of range [0, %lld]",
                    describe(&ps->tok, found, sizeof found), (long long)BERTH_MAX_DIM);
      }
      type->dims[type->rank++] = (int64_t)mag;
      lex(ps);
      if (ps->tok.kind == TOK_RBRACKET) break;
      BERTH_TRY(expect(ps, TOK_COMMA, "',' or ']'"));
    }
  }
  lex(ps);
  if (!berth_type_check(type)) {
    char tb[160];
    return perr(ps, &start, BERTH_ERR_OUT_OF_RANGE, "type %s is larger than %lld bytes",
                berth_type_format(type, tb, sizeof tb), (long long)BERTH_MAX_TENSOR_BYTES);
  }
  return BERTH_OK;
}

/* Parses `type (',' type)*` into a vec of berth_type_t, stopping before a token that
 * cannot continue the list. */
static berth_status_t parse_types(parser_t *ps, vec_t *types) {
  for (;;) {
    berth_type_t t;
    BERTH_TRY(parse_type(ps, &t));
    if (types->n == PARSE_MAX_LIST)
      return perr(ps, &ps->tok, BERTH_ERR_OUT_OF_RANGE, "more than %d types", PARSE_MAX_LIST);
    if (!vec_push(types, &t, sizeof t)) return oom(ps);
    if (ps->tok.kind != TOK_COMMA) return BERTH_OK;
    lex(ps);
  }
}

/* ---- attributes ----------------------------------------------------------------- */

static int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes a TOK_STRING (escapes \" \\ \n \t \xHH) into buf (at most BERTH_MAX_ATTR_STRING
 * bytes, no NUL) and adds it to the program's string table; *index as berth_ir_string_add. */
static berth_status_t string_value(parser_t *ps, const token_t *t, const char *what, int64_t *index) {
  char buf[BERTH_MAX_ATTR_STRING];
  size_t n = 0;
  for (size_t k = 1; k + 1 < t->len; k++) {
    char ch = t->s[k];
    if ((unsigned char)ch < 0x20 || ch == 0x7f) {
      token_t at = *t;
      at.col += (int32_t)k;
      return perr(ps, &at, BERTH_ERR_INVALID_ARGUMENT, "%s: control byte 0x%x in a string (escape it: \\n, \\t, \\xHH)",
                  what, (unsigned)(unsigned char)ch);
    }
    if (ch == '\\') {
      token_t at = *t;
      at.col += (int32_t)k;
      char e = t->s[++k];
      if (e == '"' || e == '\\') ch = e;
      else if (e == 'n') ch = '\n';
      else if (e == 't') ch = '\t';
      else if (e == 'x' && k + 2 < t->len - 1 && hex_digit(t->s[k + 1]) >= 0 && hex_digit(t->s[k + 2]) >= 0) {
        ch = (char)(hex_digit(t->s[k + 1]) * 16 + hex_digit(t->s[k + 2]));
        k += 2;
        if (!ch) return perr(ps, &at, BERTH_ERR_INVALID_ARGUMENT, "%s: a string cannot hold a NUL byte", what);
      } else {
        return perr(ps, &at, BERTH_ERR_INVALID_ARGUMENT, "%s: unknown escape in a string (\\\", \\\\, \\n, \\t, \\xHH)",
                    what);
      }
    }
    if (n == sizeof buf)
      return perr(ps, t, BERTH_ERR_OUT_OF_RANGE, "%s: a string longer than %d bytes", what, BERTH_MAX_ATTR_STRING);
    buf[n++] = ch;
  }
  int32_t idx;
  if (berth_ir_string_add(ps->p, buf, n, &idx)) return oom(ps);
  *index = idx;
  return BERTH_OK;
}

/* Parses one attribute value of the given kind. `what` names it for messages. */
static berth_status_t parse_attr_value(parser_t *ps, berth_attr_kind_t kind, const char *what,
                                       berth_attr_value_t *out) {
  char found[96];
  token_t t = ps->tok;
  memset(out, 0, sizeof *out);
  switch (kind) {
    case BERTH_ATTR_INT:
      if (tok_is(&t, "true") || tok_is(&t, "false")) {
        out->i = tok_is(&t, "true");
        break;
      }
      if (t.kind != TOK_INT)
        return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "%s expects an integer, found %s", what,
                    describe(&t, found, sizeof found));
      if (!int64_token(&t, &out->i))
        return perr(ps, &t, BERTH_ERR_OUT_OF_RANGE, "%s: %s is out of range for int64", what,
                    describe(&t, found, sizeof found));
      break;
    case BERTH_ATTR_SCALAR: {
      if (tok_is(&t, "true") || tok_is(&t, "false")) {
        out->i = tok_is(&t, "true");
        out->f = (double)out->i;
        out->n = 1;
        break;
      }
      if (t.kind == TOK_INT && int64_token(&t, &out->i)) {
        out->f = (double)out->i;
        out->n = 1;
        break;
      }
      double f;
      bool range;
      if (!float_token(&t, false, &f, &range))
        return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "%s expects a number, found %s", what,
                    describe(&t, found, sizeof found));
      if (!range)
        return perr(ps, &t, BERTH_ERR_OUT_OF_RANGE, "%s: %s is out of range for f64", what,
                    describe(&t, found, sizeof found));
      scalar_from_double(f, out);
      break;
    }
    case BERTH_ATTR_INTS:
      if (t.kind != TOK_LBRACKET)
        return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "%s expects a list of integers, found %s",
                    what, describe(&t, found, sizeof found));
      lex(ps);
      if (ps->tok.kind != TOK_RBRACKET) {
        for (;;) {
          token_t e = ps->tok;
          if (e.kind != TOK_INT) return expected(ps, "an integer");
          if (out->n == BERTH_MAX_ATTR_INTS)
            return perr(ps, &e, BERTH_ERR_OUT_OF_RANGE, "%s has more than %d values", what,
                        BERTH_MAX_ATTR_INTS);
          if (!int64_token(&e, &out->ints[out->n]))
            return perr(ps, &e, BERTH_ERR_OUT_OF_RANGE, "%s: %s is out of range for int64", what,
                        describe(&e, found, sizeof found));
          out->n++;
          lex(ps);
          if (ps->tok.kind == TOK_RBRACKET) break;
          BERTH_TRY(expect(ps, TOK_COMMA, "',' or ']'"));
        }
      }
      break;
    case BERTH_ATTR_DTYPE: {
      berth_dtype_t d;
      if (t.kind != TOK_IDENT)
        return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "%s expects a dtype, found %s", what,
                    describe(&t, found, sizeof found));
      if (!berth_dtype_from_name(t.s, t.len, &d))
        return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "unknown dtype %s",
                    describe(&t, found, sizeof found));
      out->i = d;
      break;
    }
    case BERTH_ATTR_STRING:
      if (t.kind == TOK_BAD_STRING)
        return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "%s: the string has no closing '\"' on its line", what);
      if (t.kind != TOK_STRING)
        return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "%s expects a string (\"...\"), found %s", what,
                    describe(&t, found, sizeof found));
      BERTH_TRY(string_value(ps, &t, what, &out->i));
      break;
    default: return perr(ps, &t, BERTH_ERR_INTERNAL, "unknown attribute kind");
  }
  lex(ps);
  return BERTH_OK;
}

/* `{ name = value, ... }` for an op; `set` marks the attributes written. */
static berth_status_t parse_op_attrs(parser_t *ps, const berth_op_def_t *def, berth_attr_value_t *attrs,
                                     bool *set) {
  lex(ps); /* '{' */
  for (;;) {
    token_t name = ps->tok;
    if (name.kind != TOK_IDENT) return expected(ps, "an attribute name");
    int idx = berth_op_attr_index(def, name.s, name.len);
    char found[96];
    if (idx < 0)
      return perr(ps, &name, BERTH_ERR_INVALID_ARGUMENT, "unknown attribute %s for op %s",
                  describe(&name, found, sizeof found), def->name);
    if (set[idx])
      return perr(ps, &name, BERTH_ERR_INVALID_ARGUMENT, "attribute %s given twice",
                  describe(&name, found, sizeof found));
    set[idx] = true;
    lex(ps);
    BERTH_TRY(expect(ps, TOK_EQUAL, "'='"));
    char what[128];
    berth_snprintf(what, sizeof what, "attribute '%s' of %s", def->attrs[idx].name, def->name);
    BERTH_TRY(parse_attr_value(ps, def->attrs[idx].kind, what, &attrs[idx]));
    if (ps->tok.kind == TOK_RBRACE) break;
    BERTH_TRY(expect(ps, TOK_COMMA, "',' or '}'"));
  }
  lex(ps);
  return BERTH_OK;
}

/* `program {alloc_inputs = 0|1, alloc_outputs = 0|1}` */
static berth_status_t parse_program_attrs(parser_t *ps) {
  lex(ps); /* 'program' */
  if (ps->tok.kind != TOK_LBRACE) return expected(ps, "'{'");
  lex(ps);
  bool seen[2] = {false, false};
  for (;;) {
    token_t name = ps->tok;
    char found[96];
    int idx = tok_is(&name, "alloc_inputs") ? 0 : tok_is(&name, "alloc_outputs") ? 1 : -1;
    if (name.kind != TOK_IDENT) return expected(ps, "an attribute name");
    if (idx < 0)
      return perr(ps, &name, BERTH_ERR_INVALID_ARGUMENT, "unknown program attribute %s",
                  describe(&name, found, sizeof found));
    if (seen[idx])
      return perr(ps, &name, BERTH_ERR_INVALID_ARGUMENT, "attribute %s given twice",
                  describe(&name, found, sizeof found));
    seen[idx] = true;
    lex(ps);
    BERTH_TRY(expect(ps, TOK_EQUAL, "'='"));
    token_t vt = ps->tok;
    berth_attr_value_t v;
    BERTH_TRY(parse_attr_value(ps, BERTH_ATTR_INT, idx ? "alloc_outputs" : "alloc_inputs", &v));
    if (v.i != 0 && v.i != 1)
      return perr(ps, &vt, BERTH_ERR_INVALID_ARGUMENT, "%s must be 0 or 1",
                  idx ? "alloc_outputs" : "alloc_inputs");
    if (idx) ps->p->alloc_outputs = v.i != 0;
    else ps->p->alloc_inputs = v.i != 0;
    if (ps->tok.kind == TOK_RBRACE) break;
    BERTH_TRY(expect(ps, TOK_COMMA, "',' or '}'"));
  }
  lex(ps);
  return BERTH_OK;
}

/* ---- constants and buffers ------------------------------------------------------ */

/* Converts one data literal to an element of `dtype` in `elem`. */
static berth_status_t data_value(parser_t *ps, berth_dtype_t dtype, unsigned char *elem) {
  token_t t = ps->tok;
  char found[96];
  const char *dn = berth_dtype_name(dtype);
  if (berth_dtype_is_float(dtype)) {
    double f;
    bool range;
    bool f32 = dtype == BERTH_DTYPE_F32;
    if (!float_token(&t, f32, &f, &range))
      return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "expected a number (%s data), found %s", dn,
                  describe(&t, found, sizeof found));
    if (!range)
      return perr(ps, &t, BERTH_ERR_OUT_OF_RANGE, "value %s out of range for %s",
                  describe(&t, found, sizeof found), dn);
    if (f32) {
      float v = (float)f;
      memcpy(elem, &v, sizeof v);
    } else {
      memcpy(elem, &f, sizeof f);
    }
    return BERTH_OK;
  }
  if (dtype == BERTH_DTYPE_BOOL) {
    bool neg = false;
    uint64_t mag = 2;
    if (tok_is(&t, "true")) mag = 1;
    else if (tok_is(&t, "false")) mag = 0;
    else if (t.kind == TOK_INT && !int_token(&t, &neg, &mag)) mag = 2;
    if (mag > 1 || (t.kind == TOK_INT && neg && mag))
      return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT,
                  "expected 0, 1, true or false (bool data), found %s", describe(&t, found, sizeof found));
    elem[0] = (unsigned char)mag;
    return BERTH_OK;
  }
  bool neg;
  uint64_t mag;
  if (t.kind != TOK_INT)
    return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "expected an integer (%s data), found %s", dn,
                describe(&t, found, sizeof found));
  size_t size = berth_dtype_size(dtype);
  unsigned bits = (unsigned)size * 8;
  bool ok = int_token(&t, &neg, &mag);
  if (ok && berth_dtype_is_signed_int(dtype)) {
    uint64_t lim = (uint64_t)1 << (bits - 1); /* |min|; max is lim - 1 */
    ok = neg ? mag <= lim : mag < lim;
  } else if (ok) {
    ok = (neg && mag == 0) || (!neg && (bits == 64 || mag < ((uint64_t)1 << bits)));
  }
  if (!ok)
    return perr(ps, &t, BERTH_ERR_OUT_OF_RANGE, "value %s out of range for %s",
                describe(&t, found, sizeof found), dn);
  uint64_t u = neg ? (uint64_t)0 - mag : mag; /* two's complement bits */
  switch (size) {
    case 1: { uint8_t v = (uint8_t)u; memcpy(elem, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)u; memcpy(elem, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)u; memcpy(elem, &v, 4); break; }
    default: memcpy(elem, &u, 8); break;
  }
  return BERTH_OK;
}

/* `[v, v, ...]` with exactly numel(type) values. On success *out is a malloc'd buffer of
 * berth_type_bytes(type) bytes (NULL when empty) that the caller frees. */
static berth_status_t parse_data(parser_t *ps, const berth_type_t *type, unsigned char **out) {
  *out = NULL;
  token_t open = ps->tok;
  BERTH_TRY(expect(ps, TOK_LBRACKET, "'['"));
  int64_t numel = berth_type_numel(type);
  size_t esize = berth_dtype_size(type->dtype);
  int64_t count = 0;
  unsigned char *buf = NULL;
  size_t cap = 0;
  berth_status_t st = BERTH_OK;
  if (ps->tok.kind != TOK_RBRACKET) {
    for (;;) {
      unsigned char elem[8];
      st = data_value(ps, type->dtype, elem);
      if (st) goto fail;
      if (count < numel) {
        size_t need = (size_t)(count + 1) * esize;
        if (need > cap) {
          size_t nc = cap ? cap * 2 : 64;
          size_t total = (size_t)numel * esize;
          if (nc > total) nc = total;
          unsigned char *nb = realloc(buf, nc);
          if (!nb) {
            st = oom(ps);
            goto fail;
          }
          buf = nb;
          cap = nc;
        }
        memcpy(buf + (size_t)count * esize, elem, esize);
      }
      count++;
      lex(ps);
      if (ps->tok.kind == TOK_RBRACKET) break;
      st = expect(ps, TOK_COMMA, "',' or ']'");
      if (st) goto fail;
    }
  }
  lex(ps);
  if (count != numel) {
    char tb[160];
    st = perr(ps, &open, BERTH_ERR_INVALID_ARGUMENT, "data has %lld values but %s needs %lld",
              (long long)count, berth_type_format(type, tb, sizeof tb), (long long)numel);
    goto fail;
  }
  *out = buf;
  return BERTH_OK;
fail:
  free(buf);
  return st;
}

static berth_status_t parse_global(parser_t *ps, bool is_state) {
  lex(ps); /* 'const' / 'buffer' */
  token_t name = ps->tok;
  if (name.kind != TOK_GLOBAL) return expected(ps, "'@name'");
  char nbuf[PARSE_MAX_NAME + 1];
  BERTH_TRY(name_copy(ps, &name, nbuf));
  name_entry_t *e = table_find(&ps->globals, name.s, name.len);
  if (e)
    return perr(ps, &name, BERTH_ERR_INVALID_ARGUMENT, "redefinition of @%s (first defined at line %d)",
                nbuf, (int)e->line);
  if (ps->p->n_globals >= PARSE_MAX_COUNT)
    return perr(ps, &name, BERTH_ERR_OUT_OF_RANGE, "more than %d constants and buffers",
                PARSE_MAX_COUNT);
  lex(ps);
  BERTH_TRY(expect(ps, TOK_COLON, "':'"));
  berth_type_t type;
  BERTH_TRY(parse_type(ps, &type));
  BERTH_TRY(expect(ps, TOK_EQUAL, "'='"));
  unsigned char *data;
  BERTH_TRY(parse_data(ps, &type, &data));
  int32_t g = berth_ir_global_add(ps->p, nbuf, &type, is_state, data);
  free(data);
  if (g < 0) return oom(ps);
  e = table_insert(&ps->globals, name.s, name.len);
  if (!e) return oom(ps);
  e->value = g;
  e->line = name.line;
  e->col = name.col;
  return BERTH_OK;
}

/* ---- methods ------------------------------------------------------------------ */

static berth_ir_method_t *cur(parser_t *ps) { return &ps->p->methods[ps->mi]; }

/* Claims a % name for a new definition (value -1 until the value exists). */
static berth_status_t define_local(parser_t *ps, const token_t *name, name_entry_t **out) {
  name_entry_t *e = table_find(&ps->locals, name->s, name->len);
  char nbuf[PARSE_MAX_NAME + 1];
  BERTH_TRY(name_copy(ps, name, nbuf));
  if (e)
    return perr(ps, name, BERTH_ERR_INVALID_ARGUMENT, "redefinition of %%%s (first defined at line %d)",
                nbuf, (int)e->line);
  if ((int32_t)ps->locals.n >= PARSE_MAX_COUNT)
    return perr(ps, name, BERTH_ERR_OUT_OF_RANGE, "more than %d values in a method", PARSE_MAX_COUNT);
  e = table_insert(&ps->locals, name->s, name->len);
  if (!e) return oom(ps);
  e->line = name->line;
  e->col = name->col;
  *out = e;
  return BERTH_OK;
}

/* Resolves the operand at the current token, as seen from `graph`. */
static berth_status_t parse_operand(parser_t *ps, int32_t graph, int32_t *out) {
  token_t t = ps->tok;
  char nbuf[PARSE_MAX_NAME + 1];
  if (t.kind == TOK_LOCAL) {
    BERTH_TRY(name_copy(ps, &t, nbuf));
    name_entry_t *e = table_find(&ps->locals, t.s, t.len);
    if (!e) return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "use of undefined %%%s", nbuf);
    if (e->value < 0)
      return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "use of %%%s inside its own definition", nbuf);
    berth_ir_method_t *m = cur(ps);
    if (!berth_ir_graph_within(m, graph, m->values[e->value].graph))
      return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT,
                  "use of %%%s outside its scope (it is defined inside another body at line %d)", nbuf,
                  (int)e->line);
    *out = e->value;
  } else if (t.kind == TOK_GLOBAL) {
    BERTH_TRY(name_copy(ps, &t, nbuf));
    name_entry_t *e = table_find(&ps->globals, t.s, t.len);
    if (!e) return perr(ps, &t, BERTH_ERR_INVALID_ARGUMENT, "use of undefined @%s", nbuf);
    int32_t g = e->value;
    if (g >= ps->n_gref) return perr(ps, &t, BERTH_ERR_INTERNAL, "global table out of sync");
    if (ps->gref[g] < 0) {
      ps->gref[g] = berth_ir_global_ref(ps->p, cur(ps), g);
      if (ps->gref[g] < 0) return oom(ps);
    }
    *out = ps->gref[g];
  } else {
    return expected(ps, "an operand ('%name' or '@name')");
  }
  lex(ps);
  return BERTH_OK;
}

/* `(%a : T, ...)` : adds the parameters of `graph`. */
static berth_status_t parse_params(parser_t *ps, int32_t graph) {
  BERTH_TRY(expect(ps, TOK_LPAREN, "'('"));
  if (ps->tok.kind == TOK_RPAREN) {
    lex(ps);
    return BERTH_OK;
  }
  for (;;) {
    token_t name = ps->tok;
    if (name.kind != TOK_LOCAL) return expected(ps, "a parameter ('%name')");
    if (cur(ps)->graphs[graph].n_params >= PARSE_MAX_LIST)
      return perr(ps, &name, BERTH_ERR_OUT_OF_RANGE, "more than %d parameters", PARSE_MAX_LIST);
    name_entry_t *e;
    BERTH_TRY(define_local(ps, &name, &e));
    lex(ps);
    BERTH_TRY(expect(ps, TOK_COLON, "':'"));
    berth_type_t type;
    BERTH_TRY(parse_type(ps, &type));
    char nbuf[PARSE_MAX_NAME + 1];
    BERTH_TRY(name_copy(ps, &name, nbuf));
    /* an insert may move table entries: look the name up again */
    int32_t v = berth_ir_param_add(cur(ps), graph, nbuf, &type);
    if (v < 0) return oom(ps);
    e = table_find(&ps->locals, name.s, name.len);
    e->value = v;
    if (ps->tok.kind == TOK_RPAREN) break;
    BERTH_TRY(expect(ps, TOK_COMMA, "',' or ')'"));
  }
  lex(ps);
  return BERTH_OK;
}

static berth_status_t parse_block(parser_t *ps, int32_t graph, int depth, token_t *ret_at);

/* The labels of the bodies an op kind owns, in order. */
static int region_labels(berth_op_kind_t kind, const char *labels[2]) {
  switch (kind) {
    case BERTH_OPKIND_COND: labels[0] = "then"; labels[1] = "else"; return 2;
    case BERTH_OPKIND_WHILE_LOOP: labels[0] = "cond"; labels[1] = "body"; return 2;
    case BERTH_OPKIND_SCAN:
    case BERTH_OPKIND_MAP: labels[0] = "body"; return 1;
    default: return 0;
  }
}

static berth_status_t parse_node_inner(parser_t *ps, int32_t graph, int depth, vec_t *names,
                                       vec_t *ins, vec_t *types) {
  token_t start = ps->tok;
  if (ps->tok.kind == TOK_LOCAL) {
    for (;;) {
      token_t name = ps->tok;
      if (name.kind != TOK_LOCAL) return expected(ps, "a result name ('%name')");
      if (names->n == PARSE_MAX_LIST)
        return perr(ps, &name, BERTH_ERR_OUT_OF_RANGE, "more than %d results", PARSE_MAX_LIST);
      name_entry_t *e;
      BERTH_TRY(define_local(ps, &name, &e));
      if (!vec_push(names, &name, sizeof name)) return oom(ps);
      lex(ps);
      if (ps->tok.kind != TOK_COMMA) break;
      lex(ps);
    }
    BERTH_TRY(expect(ps, TOK_EQUAL, "',' or '='"));
  }
  token_t opt = ps->tok;
  if (opt.kind != TOK_IDENT) return expected(ps, "an op name");
  berth_op_t op = berth_op_find(opt.s, opt.len);
  const berth_op_def_t *def = berth_op_get(op);
  char found[96];
  if (!def)
    return perr(ps, &opt, BERTH_ERR_INVALID_ARGUMENT, "unknown op %s", describe(&opt, found, sizeof found));
  lex(ps);
  BERTH_TRY(expect(ps, TOK_LPAREN, "'('"));
  if (ps->tok.kind != TOK_RPAREN) {
    for (;;) {
      if (ins->n == PARSE_MAX_LIST)
        return perr(ps, &ps->tok, BERTH_ERR_OUT_OF_RANGE, "more than %d operands", PARSE_MAX_LIST);
      int32_t v;
      BERTH_TRY(parse_operand(ps, graph, &v));
      if (!vec_push(ins, &v, sizeof v)) return oom(ps);
      if (ps->tok.kind == TOK_RPAREN) break;
      BERTH_TRY(expect(ps, TOK_COMMA, "',' or ')'"));
    }
  }
  lex(ps);

  berth_attr_value_t attrs[BERTH_MAX_OP_ATTRS];
  bool set[BERTH_MAX_OP_ATTRS] = {false};
  memset(attrs, 0, sizeof attrs);
  if (def->n_attrs > BERTH_MAX_OP_ATTRS)
    return perr(ps, &opt, BERTH_ERR_INTERNAL, "op %s has too many attributes", def->name);
  berth_op_attrs_default(def, attrs);
  if (ps->tok.kind == TOK_LBRACE) BERTH_TRY(parse_op_attrs(ps, def, attrs, set));
  for (int i = 0; i < def->n_attrs; i++)
    if (def->attrs[i].required && !set[i])
      return perr(ps, &opt, BERTH_ERR_INVALID_ARGUMENT, "op %s requires attribute '%s'", def->name,
                  def->attrs[i].name);

  token_t colon = ps->tok;
  if (names->n > 0 && ps->tok.kind != TOK_COLON) return expected(ps, "':' and the result types");
  if (ps->tok.kind == TOK_COLON) {
    lex(ps);
    BERTH_TRY(parse_types(ps, types));
  }
  if (types->n != names->n) {
    return perr(ps, &colon, BERTH_ERR_INVALID_ARGUMENT, "node %s names %d results but declares %d types",
                def->name, (int)names->n, (int)types->n);
  }

  berth_ir_method_t *m = cur(ps);
  if (m->n_nodes >= PARSE_MAX_COUNT)
    return perr(ps, &start, BERTH_ERR_OUT_OF_RANGE, "more than %d nodes in a method", PARSE_MAX_COUNT);
  int32_t node = berth_ir_node_add(m, graph, op, ins->n, ins->data);
  if (node < 0) return oom(ps);
  memcpy(m->nodes[node].attrs, attrs, sizeof attrs);
  m->nodes[node].line = start.line;
  m->nodes[node].col = start.col;

  const char *labels[2];
  int n_regions = region_labels(def->kind, labels);
  for (int r = 0; r < n_regions; r++) {
    char what[64];
    berth_snprintf(what, sizeof what, "'%s' (a body of %s)", labels[r], def->name);
    if (!tok_is(&ps->tok, labels[r])) return expected(ps, what);
    if (depth + 1 > PARSE_MAX_DEPTH)
      return perr(ps, &ps->tok, BERTH_ERR_OUT_OF_RANGE, "bodies nested deeper than %d", PARSE_MAX_DEPTH);
    if (cur(ps)->n_graphs >= PARSE_MAX_COUNT)
      return perr(ps, &ps->tok, BERTH_ERR_OUT_OF_RANGE, "more than %d bodies in a method",
                  PARSE_MAX_COUNT);
    int32_t g = berth_ir_graph_add(cur(ps), node, labels[r]);
    if (g < 0) return oom(ps);
    lex(ps);
    BERTH_TRY(parse_params(ps, g));
    BERTH_TRY(parse_block(ps, g, depth + 1, NULL));
  }

  /* Results exist only now, so that no body of this node can see them. */
  const token_t *nt = names->data;
  const berth_type_t *tt = types->data;
  for (int32_t i = 0; i < names->n; i++) {
    char nbuf[PARSE_MAX_NAME + 1];
    BERTH_TRY(name_copy(ps, &nt[i], nbuf));
    int32_t v = berth_ir_node_result_add(cur(ps), node, nbuf, &tt[i]);
    if (v < 0) return oom(ps);
    table_find(&ps->locals, nt[i].s, nt[i].len)->value = v;
  }
  return BERTH_OK;
}

static berth_status_t parse_node(parser_t *ps, int32_t graph, int depth) {
  vec_t names = {0}, ins = {0}, types = {0};
  berth_status_t st = parse_node_inner(ps, graph, depth, &names, &ins, &types);
  free(names.data);
  free(ins.data);
  free(types.data);
  return st;
}

/* `bounded(AXIS, %extent)` after a method result: the result has a run-time extent along
 * AXIS (berth_ir_bound_t; the validator checks axis and extent). */
static berth_status_t parse_bound(parser_t *ps) {
  lex(ps);
  BERTH_TRY(expect(ps, TOK_LPAREN, "'('"));
  int64_t axis;
  if (ps->tok.kind != TOK_INT || !int64_token(&ps->tok, &axis) || axis < 0 || axis >= BERTH_MAX_RANK)
    return expected(ps, "an axis 0..7");
  lex(ps);
  BERTH_TRY(expect(ps, TOK_COMMA, "','"));
  int32_t e, r = cur(ps)->graphs[0].n_results - 1;
  BERTH_TRY(parse_operand(ps, 0, &e));
  BERTH_TRY(expect(ps, TOK_RPAREN, "')'"));
  if (berth_ir_bound_add(cur(ps), r, (int32_t)axis, e) < 0) return oom(ps);
  return BERTH_OK;
}

/* `{ node* return operands? }` for `graph`; *ret_at gets the 'return' token. A method
 * body's result may be followed by `bounded(AXIS, %extent)`, once per bounded axis. */
static berth_status_t parse_block(parser_t *ps, int32_t graph, int depth, token_t *ret_at) {
  BERTH_TRY(expect(ps, TOK_LBRACE, "'{'"));
  for (;;) {
    if (tok_is(&ps->tok, "return")) break;
    if (ps->tok.kind != TOK_LOCAL && ps->tok.kind != TOK_IDENT) return expected(ps, "a node or 'return'");
    BERTH_TRY(parse_node(ps, graph, depth));
  }
  if (ret_at) *ret_at = ps->tok;
  lex(ps);
  if (ps->tok.kind != TOK_RBRACE) {
    for (;;) {
      if (cur(ps)->graphs[graph].n_results >= PARSE_MAX_LIST)
        return perr(ps, &ps->tok, BERTH_ERR_OUT_OF_RANGE, "more than %d results", PARSE_MAX_LIST);
      int32_t v;
      BERTH_TRY(parse_operand(ps, graph, &v));
      if (berth_ir_graph_result_add(cur(ps), graph, v) < 0) return oom(ps);
      while (graph == 0 && tok_is(&ps->tok, "bounded")) BERTH_TRY(parse_bound(ps));
      if (ps->tok.kind == TOK_RBRACE) break;
      BERTH_TRY(expect(ps, TOK_COMMA, "',' or '}'"));
    }
  }
  lex(ps);
  return BERTH_OK;
}

static berth_status_t parse_func_inner(parser_t *ps, vec_t *sig) {
  lex(ps); /* 'func' */
  token_t name = ps->tok;
  if (name.kind != TOK_GLOBAL) return expected(ps, "'@name'");
  char nbuf[PARSE_MAX_NAME + 1];
  BERTH_TRY(name_copy(ps, &name, nbuf));
  name_entry_t *e = table_find(&ps->funcs, name.s, name.len);
  if (e)
    return perr(ps, &name, BERTH_ERR_INVALID_ARGUMENT,
                "redefinition of func @%s (first defined at line %d)", nbuf, (int)e->line);
  if (ps->p->n_methods >= PARSE_MAX_COUNT)
    return perr(ps, &name, BERTH_ERR_OUT_OF_RANGE, "more than %d funcs", PARSE_MAX_COUNT);
  int32_t mi = berth_ir_method_add(ps->p, nbuf);
  if (mi < 0) return oom(ps);
  e = table_insert(&ps->funcs, name.s, name.len);
  if (!e) return oom(ps);
  e->value = mi;
  e->line = name.line;
  e->col = name.col;
  ps->mi = mi;
  table_clear(&ps->locals);
  if (ps->n_gref < ps->p->n_globals) {
    int32_t *ng = realloc(ps->gref, (size_t)ps->p->n_globals * sizeof *ng);
    if (!ng) return oom(ps);
    ps->gref = ng;
    ps->n_gref = ps->p->n_globals;
  }
  for (int32_t i = 0; i < ps->n_gref; i++) ps->gref[i] = -1;
  lex(ps);

  BERTH_TRY(parse_params(ps, 0));
  BERTH_TRY(expect(ps, TOK_ARROW, "'->'"));
  BERTH_TRY(expect(ps, TOK_LPAREN, "'('"));
  if (ps->tok.kind != TOK_RPAREN) BERTH_TRY(parse_types(ps, sig));
  BERTH_TRY(expect(ps, TOK_RPAREN, "',' or ')'"));
  token_t ret;
  BERTH_TRY(parse_block(ps, 0, 0, &ret));

  const berth_ir_method_t *m = cur(ps);
  const berth_ir_graph_t *body = &m->graphs[0];
  if (body->n_results != sig->n)
    return perr(ps, &ret, BERTH_ERR_INVALID_ARGUMENT, "func @%s returns %d values but its signature declares %d",
                nbuf, (int)body->n_results, (int)sig->n);
  const berth_type_t *st = sig->data;
  for (int32_t i = 0; i < sig->n; i++) {
    const berth_ir_value_t *v = &m->values[body->results[i]];
    if (!berth_type_equal(&v->type, &st[i])) {
      char a[160], b[160];
      return perr(ps, &ret, BERTH_ERR_INVALID_ARGUMENT,
                  "func @%s returns %c%s : %s as result %d but its signature declares %s", nbuf,
                  v->kind == BERTH_IR_CONST || v->kind == BERTH_IR_STATE ? '@' : '%', v->name,
                  berth_type_format(&v->type, a, sizeof a), (int)i, berth_type_format(&st[i], b, sizeof b));
    }
  }
  return BERTH_OK;
}

static berth_status_t parse_func(parser_t *ps) {
  vec_t sig = {0};
  berth_status_t st = parse_func_inner(ps, &sig);
  free(sig.data);
  return st;
}

static berth_status_t parse_program(parser_t *ps) {
  bool first = true;
  lex(ps);
  while (ps->tok.kind != TOK_EOF) {
    if (tok_is(&ps->tok, "program")) {
      if (!first)
        return perr(ps, &ps->tok, BERTH_ERR_INVALID_ARGUMENT,
                    "'program' must come first and at most once");
      BERTH_TRY(parse_program_attrs(ps));
    } else if (tok_is(&ps->tok, "const") || tok_is(&ps->tok, "buffer")) {
      BERTH_TRY(parse_global(ps, tok_is(&ps->tok, "buffer")));
    } else if (tok_is(&ps->tok, "func")) {
      BERTH_TRY(parse_func(ps));
    } else {
      return expected(ps, first ? "'program', 'const', 'buffer' or 'func'" : "'const', 'buffer' or 'func'");
    }
    first = false;
  }
  return BERTH_OK;
}

berth_status_t berth_ir_parse(const char *text, size_t len, const char *filename,
                              berth_ir_program_t **out, berth_diag_t *diag) {
  parser_t ps;
  memset(&ps, 0, sizeof ps);
  ps.file = filename ? filename : "<input>";
  ps.diag = diag;
  ps.line = 1;
  if (!out || (!text && len))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_ir_parse: NULL argument");
  if (len > PARSE_MAX_INPUT)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "%s: input larger than %zu bytes", ps.file,
                      PARSE_MAX_INPUT);
  ps.text = text ? text : "";
  ps.len = len;
  ps.p = berth_ir_program_create();
  if (!ps.p) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  berth_status_t st = parse_program(&ps);
  free(ps.locals.e);
  free(ps.globals.e);
  free(ps.funcs.e);
  free(ps.gref);
  if (st != BERTH_OK) {
    berth_ir_program_destroy(ps.p);
    return st;
  }
  *out = ps.p;
  return BERTH_OK;
}
