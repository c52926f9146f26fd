/* Where an execute's time goes, per instruction: a host-side profiler over the runtime's
 * observer (berth/runtime.h's berth_method_set_observer). The runtime reads no clock; this
 * one, in libberth (it allocates with malloc), reads CLOCK_MONOTONIC around every kernel call
 * and copy, the way ExecuTorch's event tracer and onnxruntime's profiler time each node.
 * `berth bench --profile` and the Python package's Method.profile use it.
 *
 *   berth_profile_t *pr;
 *   if (berth_profile_attach(m, &pr, &diag)) fail(msg);    // observes every later execute of m
 *   ... berth_method_execute(m, &diag) ...
 *   for (int32_t i = 0; i < berth_method_instr_count(m); i++)
 *     if (berth_profile_runs(pr, i))                       // a kernel call or copy that ran
 *       printf("%d %s %llu ns\n", i, info.op, berth_profile_ns(pr, i));   // info: berth_method_instr_info
 *   berth_profile_detach(pr);                              // the observer off, the memory freed
 *
 * An observed execute takes two clock reads more per kernel call or copy (tens of
 * nanoseconds each): time whole calls without it. */
#ifndef BERTH_PROFILE_H
#define BERTH_PROFILE_H

#include "berth/runtime.h"
#include "berth/status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct berth_profile berth_profile_t;

/* Starts observing m (its observer is replaced; one profile per method handle at a time).
 * Errors: BERTH_ERR_INVALID_ARGUMENT (not a method handle, out NULL),
 * BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_profile_attach(berth_method_t *m, berth_profile_t **out, berth_diag_t *diag);

/* Nanoseconds spent in instruction instr, summed over the observed executes since attach or
 * the last clear, and how many times it ran (a kernel in a loop body runs once per
 * iteration); 0 for an instruction out of range or one that never ran. */
uint64_t berth_profile_ns(const berth_profile_t *p, int32_t instr);
uint64_t berth_profile_runs(const berth_profile_t *p, int32_t instr);

/* Sets every count back to zero (after warm-up calls, say). */
void berth_profile_clear(berth_profile_t *p);

/* Turns m's observer off and frees p (NULL: nothing). The method handle must still be alive. */
void berth_profile_detach(berth_profile_t *p);

#ifdef __cplusplus
}
#endif
#endif
