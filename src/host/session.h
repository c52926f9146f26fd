/* A host-side session over an exec program: a thin heap-owning wrapper over the public
 * runtime API (berth/runtime.h), so that the command-line tool, the tests and the fuzzer run
 * programs through the same berth_method_* calls embedders use. It allocates each method's
 * handle, its arenas (filled with garbage, not zeros, so a read of unwritten bytes shows)
 * and, with sanitize, the sanitizer's shadow (berth_method_set_sanitizer), and copies
 * inputs in and outputs out per call.
 *
 *   berth_session_t *s;
 *   if (berth_session_create(&compiled->exec, true, &s, &diag) == BERTH_OK) {
 *     berth_session_call(s, 0, inputs, outputs, &diag);   // outputs[k]: malloc'd, free() them
 *     berth_session_destroy(s);
 *   }
 */
#ifndef BERTH_HOST_SESSION_H
#define BERTH_HOST_SESSION_H

#include "berth/runtime.h"
#include "program/exec_program.h"

typedef struct berth_session berth_session_t;

/* A session over p, which must stay alive and unchanged while the session is used; it is
 * run as given (the planner verifies what it emits; --no-verify runs an unverified plan on
 * purpose). Inputs and outputs are named after their values. Errors: those of
 * berth_method_init and berth_method_set_sanitizer, BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_session_create(const berth_exec_program_t *p, bool sanitize, berth_session_t **out,
                                    berth_diag_t *diag);
void berth_session_destroy(berth_session_t *s);

/* Runs one call: inputs[i] holds parameter i's bytes (berth_method_set_input); outputs[i]
 * receives a malloc'd copy of result i. Fails with the runtime's or the sanitizer's message;
 * then no output is returned. */
berth_status_t berth_session_call(berth_session_t *s, int32_t method, const void *const *inputs,
                                  void **outputs, berth_diag_t *diag);

/* The shape of output j of the last successful call of `method` (berth_method_output_shape:
 * the real extent of a bounded output; its bytes in outputs[j] are that tensor, packed). */
berth_status_t berth_session_output_shape(berth_session_t *s, int32_t method, int32_t j, berth_type_t *type,
                                          berth_diag_t *diag);

/* The step limit of every later call (berth_method_set_max_steps; 0: the default). */
void berth_session_set_max_steps(berth_session_t *s, uint64_t max_steps);

/* The bytes of method `method`'s mutable buffer `name` (berth_method_state), or NULL when it
 * has none of that name. */
const void *berth_session_state(berth_session_t *s, int32_t method, const char *name);

/* The public handle of method `method` (NULL if out of range), for callers that want the
 * runtime API itself. */
berth_method_t *berth_session_method(berth_session_t *s, int32_t method);

#endif
