/* berth's op table: the ops of the text IR (docs/ir-text.md) and of the runtime, by number.
 *
 *   for (int32_t k = 0; k < berth_op_count(); k++) {
 *     berth_op_info_t op;
 *     if (berth_op_info(k, &op) == BERTH_OK) printf("%s %s\n", op.name, op.kind);
 *   }
 *
 * Op numbers are the program file's (append only: a number never changes meaning). A
 * runtime built with BERTH_OPS_HEADER (berth_add_runtime's OPS_HEADER, the header that
 * `berth compile --ops-header` writes) leaves out the kernels the header does not list:
 * berth_op_info says so. Runtime side: no heap, no stdio; thread-safe. */
#ifndef BERTH_OPS_H
#define BERTH_OPS_H

#include "berth/status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct berth_op_info {
  const char *name;      /* the IR's spelling: "add", "conv", "while_loop" */
  const char *enum_name; /* the op table's: "ADD", "CONV" (the X(...) entries of an ops header) */
  const char *kind;      /* "kernel", "control" (cond, while_loop, scan, map), "mutation"
                            (copy_), "check" (assert) */
  int32_t min_inputs;
  int32_t max_inputs;    /* -1: any number from min_inputs on */
  int32_t n_outputs;     /* -1: set by each node (control ops) */
  int32_t n_attrs;       /* attributes, named by berth_op_attr_name */
} berth_op_info_t;

/* Ops in the table (kernels left out of this build included). */
int32_t berth_op_count(void);

/* Op `op` into *out (strings static). Errors: INVALID_ARGUMENT (out NULL, op outside
 * [0, berth_op_count())), UNIMPLEMENTED (a kernel this runtime was built without). */
berth_status_t berth_op_info(int32_t op, berth_op_info_t *out);

/* The name of attribute k of op (static); NULL when op or k is out of range or the op is
 * left out of this build. */
const char *berth_op_attr_name(int32_t op, int32_t k);

#ifdef __cplusplus
}
#endif
#endif
