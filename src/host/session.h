/* A host-side session over a compiled program: allocates the arenas, the state region and
 * the loop registers once, then runs calls through the planned runtime (berth_exec_run),
 * with the sanitizer when asked. Used by the command-line tool, the tests and the fuzzer.
 * (Embedded users call the runtime directly with their own memory.) */
#ifndef BERTH_HOST_SESSION_H
#define BERTH_HOST_SESSION_H

#include "plan/plan.h"

typedef struct berth_session berth_session_t;

berth_status_t berth_session_create(const berth_compiled_t *c, bool sanitize, berth_session_t **out,
                                    berth_diag_t *diag);
void berth_session_destroy(berth_session_t *s);

/* Runs one call: inputs[i] holds parameter i's bytes; outputs[i] receives a malloc'd copy
 * of result i. When inputs are planned they are copied into the arena first; otherwise the
 * runtime reads the caller's buffers. Fails with the runtime's or the sanitizer's message. */
berth_status_t berth_session_call(berth_session_t *s, int32_t method, const void *const *inputs,
                                  void **outputs, berth_diag_t *diag);

/* The step limit of every later call (berth_method_set_max_steps's meaning; 0: the default,
 * BERTH_RUNTIME_DEFAULT_MAX_STEPS). */
void berth_session_set_max_steps(berth_session_t *s, uint64_t max_steps);

/* Bytes of mutable buffer (program global) g in method m's state, or NULL if unused. */
const void *berth_session_state(const berth_session_t *s, const berth_ir_program_t *p, int32_t method, int32_t g);

#endif
