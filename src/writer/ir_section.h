/* The optional IR section of a program file (docs/format.md, section 11): the planner options
 * a file was compiled with and the canonical IR text, so that a `.berth` can be checked,
 * re-planned and run with the reference interpreter. Compiler side (it knows the planner's
 * options); the runtime's reader only hands the section's bytes on (berth_format_program_t.ir).
 *
 *   uint8_t *sec; size_t len;
 *   berth_ir_section_encode(program, &plan_options, &sec, &len, &diag);   // the writer
 *   ...
 *   berth_plan_options_t o; char pools[256]; const char *text; size_t text_len;
 *   berth_ir_section_decode(prog->ir, prog->ir_size, &o, pools, sizeof pools, &text, &text_len, &diag);
 */
#ifndef BERTH_WRITER_IR_SECTION_H
#define BERTH_WRITER_IR_SECTION_H

#include "berth/status.h"
#include "format/format_layout.h"
#include "ir/ir.h"
#include "plan/plan.h"

#include <stddef.h>
#include <stdint.h>

/* The section's header fields are at the BERTH_IR_SECTION_* offsets of format/format_layout.h,
 * shared with the loader. */

/* Encodes the section for program p planned with opt (NULL: the defaults). On success *out
 * is a malloc'd buffer of *out_len bytes (free() it). Errors: BERTH_ERR_INVALID_ARGUMENT
 * (pool rules too long), BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_ir_section_encode(const berth_ir_program_t *p, const berth_plan_options_t *opt, uint8_t **out,
                                       size_t *out_len, berth_diag_t *diag);

/* Decodes a loaded program's IR section (berth_format_program_t.ir, .ir_size): the planner
 * options the file was compiled with (opt->pools points into pools_buf, or is NULL) and the
 * canonical IR text (*text points into ir, *text_len bytes, not NUL-terminated).
 * BERTH_ERR_CORRUPT_DATA when a recorded option is out of range or the lengths do not add up;
 * BERTH_ERR_RESOURCE_EXHAUSTED when the pool rules do not fit pools_buf. */
berth_status_t berth_ir_section_decode(const uint8_t *ir, uint64_t ir_size, berth_plan_options_t *opt, char *pools_buf,
                                       size_t pools_cap, const char **text, size_t *text_len, berth_diag_t *diag);

#endif
