#define _POSIX_C_SOURCE 200809L
/* What every command of the tool shares: options given once, --pools checks, the input size
 * limit, output files that are complete or absent, and stdout's write errors. */
#include "cli.h"
#include "tensor_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- options given once --------------------------------------------------------------- */

#define MAX_SEEN 64
static const char *g_seen[MAX_SEEN];
static int g_n_seen;

bool berth_cli_once(const char *opt) {
  for (int i = 0; i < g_n_seen; i++)
    if (strcmp(g_seen[i], opt) == 0) {
      fprintf(stderr, "berth: %s given twice (each option may be given once; --call and --input repeat)\n", opt);
      return false;
    }
  if (g_n_seen < MAX_SEEN) g_seen[g_n_seen++] = opt;
  return true;
}

/* ---- --pools -------------------------------------------------------------------------- */

bool berth_cli_check_pools(const char *opt, const char *rules) {
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_compile_options_t o = berth_compile_options_default();
  o.pools = rules;
  if (berth_compile_options_check(&o, &diag) == BERTH_OK) return true;
  fprintf(stderr, "berth: %s: %s\n", opt, msg);
  return false;
}

/* ---- options every command takes -------------------------------------------------------- */

/* "4096", "64K", "256M", "2G" (binary units). */
static bool parse_size(const char *s, size_t *out) {
  uint64_t v = 0;
  const char *c = s;
  if (!(*c >= '0' && *c <= '9')) return false;
  for (; *c >= '0' && *c <= '9'; c++) {
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + (uint64_t)(*c - '0');
  }
  int shift = 0;
  if (*c == 'K' || *c == 'k') shift = 10;
  else if (*c == 'M' || *c == 'm') shift = 20;
  else if (*c == 'G' || *c == 'g') shift = 30;
  else if (*c == 'T' || *c == 't') shift = 40;
  if (shift) c++;
  if (*c || v > (BERTH_TOOL_MAX_INPUT_CAP >> shift)) return false;
  v <<= shift;
  if (v == 0) return false;
  *out = (size_t)v;
  return true;
}

int berth_cli_global_args(int *argc, char **argv) {
  int out = 0;
  for (int i = 0; i < *argc; i++) {
    if (strcmp(argv[i], "--max-input-size") != 0) {
      argv[out++] = argv[i];
      continue;
    }
    if (!berth_cli_once(argv[i])) return -1;
    if (i + 1 >= *argc) {
      fprintf(stderr, "berth: --max-input-size needs a value\n");
      return -1;
    }
    if (!parse_size(argv[++i], &berth_tool_max_input_bytes)) {
      fprintf(stderr, "berth: --max-input-size takes a byte count from 1 to 1T (suffix K, M, G or T: 1024-based), not '%s'\n",
              argv[i]);
      return -1;
    }
  }
  *argc = out;
  argv[out] = NULL;
  return 0;
}

/* ---- output files --------------------------------------------------------------------- */

berth_outfile_t *berth_cli_out_open(const char *path) {
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_outfile_t *o = NULL;
  if (berth_outfile_open(path, &o, &diag)) {
    fprintf(stderr, "berth: %s\n", msg);
    return NULL;
  }
  return o;
}

int berth_cli_out_close(berth_outfile_t *o) {
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  if (berth_outfile_close(o, &diag)) {
    fprintf(stderr, "berth: %s\n", msg);
    return 1;
  }
  return 0;
}

int berth_cli_out_commit(berth_outfile_t *o) {
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  if (berth_outfile_commit(o, &diag)) {
    fprintf(stderr, "berth: %s\n", msg);
    return 1;
  }
  return 0;
}

/* ---- stdout --------------------------------------------------------------------------- */

int berth_cli_finish_stdout(int rc) {
  int prior = errno; /* after a failed write, usually that write's reason */
  errno = 0;
  bool ok = fflush(stdout) == 0;
  int e = ok ? 0 : errno;
  if (ok && ferror(stdout)) {
    ok = false;
    e = prior;
  }
  if (fclose(stdout) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (ok) return rc;
  if (e) fprintf(stderr, "berth: cannot write standard output: %s\n", strerror(e));
  else fprintf(stderr, "berth: cannot write standard output (write error)\n");
  return rc ? rc : BERTH_EXIT_FAIL;
}

void berth_cli_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* ---- progress on a terminal ---------------------------------------------------------- */

static int g_progress_tty = -1; /* unknown until first use */
static bool g_progress_shown;
static double g_progress_last;

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void berth_cli_progress(bool force, const char *fmt, ...) {
  if (g_progress_tty < 0) g_progress_tty = isatty(STDERR_FILENO) ? 1 : 0;
  if (!g_progress_tty) return;
  double now = mono_s();
  if (!force && g_progress_shown && now - g_progress_last < 0.2) return;
  g_progress_last = now;
  char line[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\r\033[K%s", line);
  fflush(stderr);
  g_progress_shown = true;
}

void berth_cli_progress_end(void) {
  if (!g_progress_shown) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  g_progress_shown = false;
}

void berth_cli_planning_note(const berth_compile_options_t *opt) {
  if (!opt->algo || (strcmp(opt->algo, "search") != 0 && strcmp(opt->algo, "exact") != 0)) return;
  if (opt->budget_work > 0)
    berth_cli_progress(true, "planning with %s, up to %lld work units...", opt->algo, (long long)opt->budget_work);
  else if (opt->budget_ms >= 1000)
    berth_cli_progress(true, "planning with %s, up to %.1f s...", opt->algo, (double)opt->budget_ms / 1000.0);
}
