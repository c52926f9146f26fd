/* berth status codes and the caller-owned diagnostics buffer.
 *
 *   char msg[256];
 *   berth_diag_t diag = berth_diag_make(msg, sizeof msg);
 *   berth_status_t st = berth_something(..., &diag);
 *   if (st != BERTH_OK) fprintf(stderr, "%s: %s\n", berth_status_name(st), msg);
 *
 * Every fallible function returns berth_status_t (0 is success) and writes its outputs only
 * on success. A human-readable reason (what, where, what was expected) goes into the
 * diagnostics buffer if one is given; library code never prints. */
#ifndef BERTH_STATUS_H
#define BERTH_STATUS_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum berth_status {
  BERTH_OK = 0,
  BERTH_ERR_INVALID_ARGUMENT = 1, /* the caller passed something malformed */
  BERTH_ERR_OUT_OF_RANGE = 2,     /* an index, size or count exceeds a limit */
  BERTH_ERR_CORRUPT_DATA = 3,     /* untrusted bytes (a file) are malformed */
  BERTH_ERR_RESOURCE_EXHAUSTED = 4, /* out of memory or caller-provided space */
  BERTH_ERR_UNIMPLEMENTED = 5,    /* a valid request berth does not support */
  BERTH_ERR_INTERNAL = 6,         /* a bug in berth */
  BERTH_ERR_VERIFY_FAILED = 7,    /* a memory plan breaks the memory rules */
  BERTH_ERR_CHECK_FAILED = 8,     /* a run-time check of the program (an assert) failed */
} berth_status_t;

/* Stable name of a status ("ok", "invalid argument", ...). Never NULL. */
const char *berth_status_name(berth_status_t status);

/* A caller-owned message buffer. buf may be NULL (messages are dropped). */
typedef struct berth_diag {
  char *buf;
  size_t cap;
} berth_diag_t;

static inline berth_diag_t berth_diag_make(char *buf, size_t cap) {
  berth_diag_t d;
  d.buf = buf;
  d.cap = cap;
  if (buf && cap) buf[0] = '\0';
  return d;
}

/* Lets the compiler check berth's format strings against their arguments as printf's. */
#if defined(__GNUC__) || defined(__clang__)
#define BERTH_PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define BERTH_PRINTF_LIKE(fmt, args)
#endif

/* Formats a message into diag (diag may be NULL) and returns status unchanged, so that
 * `return berth_fail(diag, BERTH_ERR_..., "...", ...);` reads naturally. The formatter is
 * berth's own (no stdio): %s %c %d %i %u %x %ld %lu %lld %llu %zu %g %%. */
berth_status_t berth_fail(berth_diag_t *diag, berth_status_t status, const char *fmt, ...) BERTH_PRINTF_LIKE(3, 4);

/* Like berth_fail but prefixes the existing message: "prefix: old message". */
berth_status_t berth_fail_prefix(berth_diag_t *diag, berth_status_t status, const char *fmt, ...)
    BERTH_PRINTF_LIKE(3, 4);

/* Replaces every control character in diag's message (a newline or tab in a name read
 * from a file, say) by '?', so that the message stays one line. diag may be NULL. */
void berth_diag_one_line(berth_diag_t *diag);

/* snprintf-like formatting with berth's formatter; always NUL-terminates when cap > 0.
 * Returns the length that the full message would have had. */
size_t berth_snprintf(char *buf, size_t cap, const char *fmt, ...) BERTH_PRINTF_LIKE(3, 4);
size_t berth_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap) BERTH_PRINTF_LIKE(3, 0);

#ifdef __cplusplus
}
#endif
#endif
