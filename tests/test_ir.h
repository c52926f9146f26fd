/* IR helpers for the compiler-side tests (test_util.c stays free of the compiler: the NEON
 * cross build links it with the runtime alone). */
#ifndef BERTH_TESTS_TEST_IR_H
#define BERTH_TESTS_TEST_IR_H

#include "ir/ir.h"

#include <stdio.h>
#include <string.h>

/* The IR program of .bir text, parsed and validated; NULL (the message printed) if either
 * fails. The caller destroys it (berth_ir_program_destroy). */
static inline berth_ir_program_t *test_parse_ir(const char *text) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  if (berth_ir_parse(text, strlen(text), "test", &p, &d) || berth_ir_validate(p, &d)) {
    fprintf(stderr, "parse: %s\n", msg);
    berth_ir_program_destroy(p);
    return NULL;
  }
  return p;
}

#endif
