/* The reference interpreter: runs a method straight from the IR, with fresh memory for
 * every value it defines, using the same kernels as the planned runtime. It is the oracle
 * that every planned execution is compared against, so it is written to be obviously
 * correct rather than fast.
 *
 *   berth_ref_t *r;
 *   berth_ref_create(program, &r, &diag);
 *   void *outs[2];
 *   berth_ref_call(r, method, (const void *[]){x}, outs, &diag); // outs[i]: malloc'd
 *   ...free(outs[i]); berth_ref_destroy(r);
 *
 * Mutable buffers belong to each method and keep their values from call to call. */
#ifndef BERTH_REFERENCE_REFERENCE_H
#define BERTH_REFERENCE_REFERENCE_H

#include "ir/ir.h"

typedef struct berth_ref berth_ref_t;

/* The program must be valid (berth_ir_validate) and outlive the interpreter. */
berth_status_t berth_ref_create(const berth_ir_program_t *p, berth_ref_t **out, berth_diag_t *diag);
void berth_ref_destroy(berth_ref_t *r);

/* The step limit: loop iterations (while_loop bodies, scan and map steps, nested loops
 * counted in full) one call may run before it fails with BERTH_ERR_OUT_OF_RANGE; the same
 * count and message as berth_method_set_max_steps. 0: BERTH_RUNTIME_DEFAULT_MAX_STEPS. */
void berth_ref_set_max_steps(berth_ref_t *r, uint64_t max_steps);

/* Runs one call. inputs[i] holds the dense bytes of parameter i (types as declared).
 * On success outputs[i] receives a malloc'd copy of result i (the caller frees it). */
berth_status_t berth_ref_call(berth_ref_t *r, int32_t method, const void *const *inputs,
                              void **outputs, berth_diag_t *diag);

/* The shape of result j of the last successful call of `method`: the declared type, except
 * along the axis of a bounded result (berth_ir_bound_t), where it is the real extent (the
 * result's bytes hold that tensor packed at their start). BERTH_ERR_INVALID_ARGUMENT when
 * method was not the last successful call or j is out of range. */
berth_status_t berth_ref_output_shape(const berth_ref_t *r, int32_t method, int32_t j, berth_type_t *type);

/* The current bytes of a method's mutable buffer (program global index g), or NULL. */
const void *berth_ref_state(const berth_ref_t *r, int32_t method, int32_t g);

#endif
