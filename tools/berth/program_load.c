#define _POSIX_C_SOURCE 200809L
#include "program_load.h"

#include "berth/inspect.h"
#include "berth/memory.h"
#include "tensor_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* 64-byte aligned; a program file's bytes on huge pages where the system offers them (its
 * constants stream through every call: berth/memory.h) */
static void *alloc64(size_t n) { return berth_host_alloc(n); }

uint8_t *berth_tool_read_file(const char *path, size_t *len_out) {
  size_t limit = berth_tool_max_input_bytes;
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "berth: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  /* a regular file's size is known: refuse a big one before reading, and read it into one
   * buffer; anything else (a pipe, /dev/zero) grows the buffer up to the limit */
  struct stat st;
  size_t cap = (size_t)1 << 16;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
    if ((uint64_t)st.st_size > limit) {
      fclose(f);
      fprintf(stderr, "berth: %s: the file is %llu bytes, over the input limit of %zu bytes (--max-input-size raises it)\n",
              path, (unsigned long long)st.st_size, limit);
      return NULL;
    }
    cap = (size_t)st.st_size + 2; /* +1 to see the end of file, +1 for the NUL */
  }
  size_t len = 0;
  uint8_t *buf = alloc64(cap);
  bool over = false;
  while (buf) {
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    len += n;
    if (len > limit) {
      over = true;
      break;
    }
    if (len < cap - 1) break; /* end of file or error */
    size_t ncap = cap * 2 > limit + 2 ? limit + 2 : cap * 2;
    uint8_t *nb = alloc64(ncap);
    if (nb) memcpy(nb, buf, len);
    free(buf);
    buf = nb;
    cap = ncap;
  }
  int err = ferror(f) ? errno : 0;
  fclose(f);
  if (over) {
    free(buf);
    fprintf(stderr, "berth: %s: larger than the input limit of %zu bytes (--max-input-size raises it)\n", path, limit);
    return NULL;
  }
  if (!buf) {
    fprintf(stderr, "berth: cannot read %s: out of memory\n", path);
    return NULL;
  }
  if (err) {
    free(buf);
    fprintf(stderr, "berth: cannot read %s: %s\n", path, strerror(err));
    return NULL;
  }
  buf[len] = 0;
  *len_out = len;
  return buf;
}

/* A program is looked at more than once (is it ONNX? a .berth? then read): a pipe would lose
 * what the first look read, so programs come from files and devices only. */
static bool is_pipe(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

static bool refuse_pipe(const char *path) {
  if (!is_pipe(path)) return false;
  fprintf(stderr, "berth: %s is a pipe; a program must be a file (berth reads it more than once)\n", path);
  return true;
}

bool berth_tool_is_berth(const char *path) {
  if (is_pipe(path)) return false;
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  unsigned char magic[16];
  size_t n = fread(magic, 1, sizeof magic, f);
  fclose(f);
  return berth_program_is_berth(magic, n);
}

void berth_tool_berth_free(berth_tool_berth_t *b) {
  if (!b) return;
  free(b->mem);
  free(b->bytes);
  free(b);
}

uint8_t *berth_tool_read_berth_file(const char *path, size_t *len) {
  if (berth_tool_onnx_options_refused(path)) return NULL;
  if (refuse_pipe(path)) return NULL;
  return berth_tool_read_file(path, len);
}

berth_tool_berth_t *berth_tool_load_berth(const char *path) {
  size_t len = 0;
  uint8_t *bytes = berth_tool_read_berth_file(path, &len);
  if (!bytes) return NULL;
  berth_tool_berth_t *b = calloc(1, sizeof *b);
  if (!b) {
    free(bytes);
    fprintf(stderr, "berth: out of memory\n");
    return NULL;
  }
  b->bytes = bytes;
  b->len = len;
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_program_sizes_t sz;
  void *scratch = NULL;
  berth_status_t st = berth_program_query(b->bytes, b->len, &sz, &diag);
  if (!st) {
    b->mem = malloc(sz.program_bytes ? sz.program_bytes : 1);
    scratch = malloc(sz.scratch_bytes ? sz.scratch_bytes : 1);
    if (!b->mem || !scratch) st = berth_fail(&diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory (%zu + %zu bytes)",
                                             sz.program_bytes, sz.scratch_bytes);
  }
  if (!st) st = berth_program_load(b->bytes, b->len, b->mem, sz.program_bytes, scratch, sz.scratch_bytes, &b->prog, &diag);
  free(scratch);
  if (st) {
    fprintf(stderr, "berth: %s: %s\n", path, msg);
    berth_tool_berth_free(b);
    return NULL;
  }
  return b;
}

/* The source of path's bytes, of kind; NULL after printing. */
static berth_source_t *make_source(const char *path, berth_source_kind_t kind) {
  size_t len;
  uint8_t *buf = kind == BERTH_SOURCE_PROGRAM_FILE ? berth_tool_read_berth_file(path, &len) : berth_tool_read_file(path, &len);
  if (!buf) return NULL;
  berth_compile_options_t opt = berth_compile_options_default();
  if (kind == BERTH_SOURCE_ONNX) berth_tool_onnx_options(&opt);
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_source_t *s = NULL;
  if (berth_source_create(buf, len, path, kind, &opt, &s, &diag)) fprintf(stderr, "berth: %s\n", msg);
  free(buf);
  return s;
}

berth_source_t *berth_tool_load_program(const char *path) {
  if (refuse_pipe(path)) return NULL;
  if (berth_tool_is_onnx(path)) return make_source(path, BERTH_SOURCE_ONNX);
  if (berth_tool_onnx_options_refused(path)) return NULL;
  return make_source(path, berth_tool_is_berth(path) ? BERTH_SOURCE_PROGRAM_FILE : BERTH_SOURCE_TEXT);
}
