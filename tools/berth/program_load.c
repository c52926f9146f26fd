#include "program_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

berth_ir_program_t *berth_tool_load_program(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "berth: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t n = fread(buf + len, 1, cap - len, f);
    len += n;
    if (len < cap) break;
    char *nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  int err = ferror(f);
  fclose(f);
  if (!buf || err) {
    free(buf);
    fprintf(stderr, "berth: cannot read %s\n", path);
    return NULL;
  }
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_ir_parse(buf, len, path, &p, &diag);
  free(buf);
  if (st) {
    fprintf(stderr, "berth: %s\n", msg);
    return NULL;
  }
  st = berth_ir_validate(p, &diag);
  if (st) {
    fprintf(stderr, "berth: %s: %s\n", path, msg);
    berth_ir_program_destroy(p);
    return NULL;
  }
  return p;
}
