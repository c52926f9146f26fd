/* The program file writer (compiler side: uses the heap). Layout: docs/format.md.
 *
 *   berth_format_write_options_t wo = berth_format_write_options_default();
 *   wo.ir = program;           // names inputs/outputs after the IR, and
 *   wo.store_ir = true;        // stores the IR (section ir_ref) so .berth files can be checked,
 *   wo.plan = &plan_options;   // re-planned and run with --reference
 *   uint8_t *bytes; size_t len;
 *   if (berth_format_write(&compiled->exec, &wo, &bytes, &len, &diag) == BERTH_OK) {
 *     fwrite(bytes, 1, len, f);
 *     free(bytes);
 *   }
 *
 * The writer does not verify: it serializes what it is given (the compiler verifies what it
 * emits, and the loader re-checks everything). Fields a value or instruction does not use
 * are written as zero, so the output is canonical: the same program gives the same bytes. */
#ifndef BERTH_WRITER_WRITE_PROGRAM_H
#define BERTH_WRITER_WRITE_PROGRAM_H

#include "berth/status.h"
#include "ir/ir.h"
#include "plan/plan.h"
#include "program/exec_program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct berth_format_write_options {
  /* The IR the program was compiled from (optional). When its methods match the program's,
   * method inputs and outputs are named after the IR's parameters and results. */
  const berth_ir_program_t *ir;
  bool store_ir;                    /* add the optional IR section (needs ir) */
  const berth_plan_options_t *plan; /* recorded in the IR section; NULL: the defaults */
  bool checksum; /* store the file's CRC-32C in the header (default true; the loader
                    verifies it when present and reads files without one) */
} berth_format_write_options_t;

berth_format_write_options_t berth_format_write_options_default(void);

/* Serializes p. On success *out is a malloc'd, 64-byte aligned buffer of *out_len bytes
 * (release it with free()). Errors: BERTH_ERR_INVALID_ARGUMENT (NULL arguments, counts,
 * ranks or names that the format cannot hold), BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_format_write(const berth_exec_program_t *p, const berth_format_write_options_t *opt,
                                  uint8_t **out, size_t *out_len, berth_diag_t *diag);

#endif
