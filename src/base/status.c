/* Status names and berth's own small formatter (the runtime may not use stdio). */
#include "berth/status.h"

#include <stdint.h>
#include <string.h>

const char *berth_status_name(berth_status_t status) {
  switch (status) {
    case BERTH_OK: return "ok";
    case BERTH_ERR_INVALID_ARGUMENT: return "invalid argument";
    case BERTH_ERR_OUT_OF_RANGE: return "out of range";
    case BERTH_ERR_CORRUPT_DATA: return "corrupt data";
    case BERTH_ERR_RESOURCE_EXHAUSTED: return "resource exhausted";
    case BERTH_ERR_UNIMPLEMENTED: return "unimplemented";
    case BERTH_ERR_INTERNAL: return "internal error";
    case BERTH_ERR_VERIFY_FAILED: return "verification failed";
    case BERTH_ERR_CHECK_FAILED: return "run-time check failed";
  }
  return "unknown status";
}

/* ---- output sink ---------------------------------------------------------------- */

typedef struct sink {
  char *buf;
  size_t cap;
  size_t len; /* total length that would have been written */
} sink_t;

static void put_char(sink_t *s, char c) {
  if (s->cap && s->len + 1 < s->cap) s->buf[s->len] = c;
  s->len++;
}

static void put_str(sink_t *s, const char *str, size_t n) {
  for (size_t i = 0; i < n; i++) put_char(s, str[i]);
}

static void put_u64(sink_t *s, uint64_t v, unsigned base) {
  char tmp[24];
  int n = 0;
  do {
    unsigned d = (unsigned)(v % base);
    tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    v /= base;
  } while (v);
  while (n) put_char(s, tmp[--n]);
}

static void put_i64(sink_t *s, int64_t v) {
  if (v < 0) {
    put_char(s, '-');
    put_u64(s, (uint64_t)0 - (uint64_t)v, 10);
  } else {
    put_u64(s, (uint64_t)v, 10);
  }
}

/* A plain %g-like rendering with up to 9 significant digits; enough for messages. */
static void put_double(sink_t *s, double v) {
  if (v != v) {
    put_str(s, "nan", 3);
    return;
  }
  if (v < 0) {
    put_char(s, '-');
    v = -v;
  }
  if (v > 1.7976931348623157e308) {
    put_str(s, "inf", 3);
    return;
  }
  int exp10 = 0;
  if (v != 0.0) {
    while (v >= 1e9) { v /= 10; exp10++; }
    while (v < 1e-4 * 1e4 && v < 1.0) { v *= 10; exp10--; }
  }
  /* v is now in [1, 1e9) (or 0); print integer part and up to 6 decimals */
  if (exp10 > 0 || exp10 < -4) {
    /* scientific: normalise to [1,10) */
    while (v >= 10) { v /= 10; exp10++; }
  } else {
    while (exp10 < 0) { v /= 10; exp10++; }
  }
  uint64_t ip = (uint64_t)v;
  double frac = v - (double)ip;
  uint64_t fp = (uint64_t)(frac * 1e6 + 0.5);
  if (fp >= 1000000) { ip++; fp -= 1000000; }
  put_u64(s, ip, 10);
  if (fp) {
    char d[6];
    for (int i = 5; i >= 0; i--) { d[i] = (char)('0' + fp % 10); fp /= 10; }
    int n = 6;
    while (n > 0 && d[n - 1] == '0') n--;
    put_char(s, '.');
    put_str(s, d, (size_t)n);
  }
  if (exp10 != 0) {
    put_char(s, 'e');
    put_i64(s, exp10);
  }
}

size_t berth_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap) {
  sink_t s = {buf, cap, 0};
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') {
      put_char(&s, *p);
      continue;
    }
    p++;
    int longs = 0, size_t_arg = 0;
    while (*p == 'l') { longs++; p++; }
    if (*p == 'z') { size_t_arg = 1; p++; }
    switch (*p) {
      case 's': {
        const char *str = va_arg(ap, const char *);
        if (!str) str = "(null)";
        put_str(&s, str, strlen(str));
        break;
      }
      case 'c': put_char(&s, (char)va_arg(ap, int)); break;
      case 'd':
      case 'i':
        if (size_t_arg) put_i64(&s, (int64_t)va_arg(ap, size_t));
        else if (longs >= 2) put_i64(&s, va_arg(ap, long long));
        else if (longs == 1) put_i64(&s, va_arg(ap, long));
        else put_i64(&s, va_arg(ap, int));
        break;
      case 'u':
      case 'x': {
        unsigned base = *p == 'x' ? 16 : 10;
        if (size_t_arg) put_u64(&s, va_arg(ap, size_t), base);
        else if (longs >= 2) put_u64(&s, va_arg(ap, unsigned long long), base);
        else if (longs == 1) put_u64(&s, va_arg(ap, unsigned long), base);
        else put_u64(&s, va_arg(ap, unsigned), base);
        break;
      }
      case 'g':
      case 'f': put_double(&s, va_arg(ap, double)); break;
      case '%': put_char(&s, '%'); break;
      case '\0': p--; break;
      default: put_char(&s, '%'); put_char(&s, *p); break;
    }
  }
  if (cap) buf[s.len < cap ? s.len : cap - 1] = '\0';
  return s.len;
}

size_t berth_snprintf(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t n = berth_vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
  return n;
}

berth_status_t berth_fail(berth_diag_t *diag, berth_status_t status, const char *fmt, ...) {
  if (diag && diag->buf && diag->cap) {
    va_list ap;
    va_start(ap, fmt);
    berth_vsnprintf(diag->buf, diag->cap, fmt, ap);
    va_end(ap);
  }
  return status;
}

berth_status_t berth_fail_prefix(berth_diag_t *diag, berth_status_t status, const char *fmt, ...) {
  if (diag && diag->buf && diag->cap) {
    char old[512];
    size_t n = strlen(diag->buf);
    if (n >= sizeof old) n = sizeof old - 1;
    memcpy(old, diag->buf, n);
    old[n] = '\0';
    va_list ap;
    va_start(ap, fmt);
    size_t len = berth_vsnprintf(diag->buf, diag->cap, fmt, ap);
    va_end(ap);
    if (n && len + 2 < diag->cap) berth_snprintf(diag->buf + len, diag->cap - len, ": %s", old);
  }
  return status;
}

void berth_diag_one_line(berth_diag_t *diag) {
  if (!diag || !diag->buf) return;
  for (char *c = diag->buf; *c; c++)
    if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f) *c = '?';
}
