/* The optional IR section of a program file (docs/format.md): the planner options a file was
 * compiled with and the IR, so that a `.berth` can be checked, re-planned and run with the
 * reference interpreter. Compiler side (it knows the planner's options and the IR); the
 * runtime's reader checks the section's structure and hands its bytes on
 * (berth_format_program_t.ir, .ir_size, .ir_section).
 *
 * The writer stores section ir_ref: the canonical IR text with every constant and buffer
 * printed empty, and per constant or buffer its type and where its bytes are, by reference
 * into the constants section when the planner put them there (so they are not stored twice),
 * else inline. Files written before it have section ir: the whole text, constants in decimal.
 * Both decode here.
 *
 *   uint8_t *sec; size_t len;
 *   berth_ir_section_encode(program, &plan_options, exec.constants, exec.constants_size, &sec, &len, &diag);
 *   ...
 *   berth_plan_options_t o; char pools[256]; berth_ir_program_t *ir;
 *   berth_ir_section_program(fp, "model.berth", &o, pools, sizeof pools, &ir, &diag);   // then validate it
 */
#ifndef BERTH_WRITER_IR_SECTION_H
#define BERTH_WRITER_IR_SECTION_H

#include "berth/status.h"
#include "format/format_layout.h"
#include "format/read_program.h"
#include "ir/ir.h"
#include "plan/plan.h"

#include <stddef.h>
#include <stdint.h>

/* Encodes the ir_ref section for program p planned with opt (NULL: the defaults). constants
 * (constants_size bytes) is the program's constant blob: a constant whose bytes are there at
 * the offset the planner gives it (berth_plan_compile: program order, each at the next
 * multiple of 64) is stored as a reference, checked byte for byte; any other, and every
 * buffer, inline. On success *out is a malloc'd buffer of *out_len bytes (free() it).
 * Errors: BERTH_ERR_INVALID_ARGUMENT (pool rules too long, too many constants),
 * BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_ir_section_encode(const berth_ir_program_t *p, const berth_plan_options_t *opt,
                                       const uint8_t *constants, uint64_t constants_size, uint8_t **out,
                                       size_t *out_len, berth_diag_t *diag);

/* Decodes a loaded program's IR section (either kind): the planner options the file was
 * compiled with (opt->pools points into pools_buf, or is NULL) and the IR text (*text points
 * into the file, *text_len bytes, not NUL-terminated; for ir_ref without constant data).
 * BERTH_ERR_INVALID_ARGUMENT without an IR section; BERTH_ERR_CORRUPT_DATA when a recorded
 * option is out of range or the lengths do not add up; BERTH_ERR_RESOURCE_EXHAUSTED when the
 * pool rules do not fit pools_buf. */
berth_status_t berth_ir_section_decode(const berth_format_program_t *fp, berth_plan_options_t *opt, char *pools_buf,
                                       size_t pools_cap, const char **text, size_t *text_len, berth_diag_t *diag);

/* The IR a loaded program carries: decoded as above, its text parsed (messages name path),
 * and for ir_ref every constant's and buffer's type and bytes restored from its record.
 * *out (berth_ir_program_destroy) is not validated: the caller runs berth_ir_validate. */
berth_status_t berth_ir_section_program(const berth_format_program_t *fp, const char *path, berth_plan_options_t *opt,
                                        char *pools_buf, size_t pools_cap, berth_ir_program_t **out,
                                        berth_diag_t *diag);

#endif
