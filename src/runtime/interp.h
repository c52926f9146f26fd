/* The planned runtime's interpreter: executes one method of an exec program in caller
 * memory. No heap allocation, no stdio. The program must have been verified
 * (berth_verify_program); the interpreter trusts it.
 *
 *   uint8_t *pools[] = {arena0};                     // p->methods[m].pool_sizes[i] bytes each
 *   int64_t regs[8];                                  // p->methods[m].n_regs
 *   berth_exec_memory_t mem = {pools, state, inputs, outputs, regs, hoist, NULL, NULL};
 *   berth_exec_run_once(p, m, &mem, refs, &diag);    // fills hoist (hoist_size bytes)
 *   berth_exec_run(p, m, &mem, NULL, 0, &diag);
 */
#ifndef BERTH_RUNTIME_INTERP_H
#define BERTH_RUNTIME_INTERP_H

#include "berth/runtime.h"
#include "berth/status.h"
#include "program/exec_program.h"

struct berth_sanitizer;

typedef struct berth_exec_memory {
  uint8_t *const *pools;     /* one arena per pool, pool_sizes[i] bytes, aligned */
  uint8_t *state;            /* the method's state region (persists between calls) */
  const void *const *inputs; /* caller input buffers (INPUT storage), may be NULL */
  void *const *outputs;      /* caller output buffers (OUTPUT storage), may be NULL */
  int64_t *regs;             /* n_regs loop registers */
  uint8_t *hoist;            /* the method's hoist region (hoist_size bytes, persists) */
  berth_observer_fn observe; /* NULL, or called around each kernel call and copy (berth/runtime.h) */
  void *observe_ctx;
} berth_exec_memory_t;

/* The address of value v's bytes under mem (windows use the current registers). */
void *berth_exec_addr(const berth_exec_program_t *p, const berth_exec_method_t *m,
                      const berth_exec_memory_t *mem, int32_t v);

/* Runs the once-stream of method `method` (instructions [0, n_once): exec_program.h), which
 * fills the hoist region from the constants; once, before the first berth_exec_run of that
 * memory. Reads only constants and mem->hoist. refs as for berth_exec_run_refs. */
berth_status_t berth_exec_run_once(const berth_exec_program_t *p, int32_t method, const berth_exec_memory_t *mem,
                                   berth_tensor_ref_t *refs, berth_diag_t *diag);

/* Runs method `method` from instruction n_once (the once-stream must have run). With a sanitizer, every read is checked against the owner tags
 * (the first violation stops the run with BERTH_ERR_VERIFY_FAILED and names both values).
 * max_steps bounds the loop iterations of the call (BERTH_RUNTIME_DEFAULT_MAX_STEPS in
 * berth/runtime.h says what counts; 0: that default); exceeding it fails with
 * BERTH_ERR_OUT_OF_RANGE. An ASSERT whose
 * operand is false stops the run with BERTH_ERR_CHECK_FAILED and its message. */
berth_status_t berth_exec_run(const berth_exec_program_t *p, int32_t method, const berth_exec_memory_t *mem,
                              struct berth_sanitizer *san, uint64_t max_steps, berth_diag_t *diag);

/* berth_exec_run with room for one kernel call's operand list from the caller (refs: at
 * least berth_exec_max_operands(&p->methods[method]) entries) instead of its stack, where
 * berth_exec_run keeps 2 * BERTH_MAX_KERNEL_OPERANDS of them (2 KiB on a 64-bit target).
 * The embeddable runtime calls this, with the room in the method handle, so that an
 * execute fits a small thread stack. */
berth_status_t berth_exec_run_refs(const berth_exec_program_t *p, int32_t method, const berth_exec_memory_t *mem,
                                   berth_tensor_ref_t *refs, struct berth_sanitizer *san, uint64_t max_steps,
                                   berth_diag_t *diag);

/* The most operands (inputs + outputs) of one kernel instruction of m; 0 without kernels. */
int32_t berth_exec_max_operands(const berth_exec_method_t *m);

#endif
