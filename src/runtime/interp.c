/* The planned runtime's interpreter (see interp.h). */
#include "interp.h"

#include "berth/runtime.h"
#include "program/exec_names.h"
#include "program/verify.h"
#include "kernels/op_table.h"
#include "runtime/sanitizer.h"

#include <string.h>

/* The bytes of a value that is not a window. */
static uint8_t *storage_addr(const berth_exec_program_t *p, const berth_exec_memory_t *mem,
                             const berth_exec_value_t *x) {
  switch (x->storage) {
    case BERTH_STORAGE_ARENA: return mem->pools[x->pool] + x->offset;
    case BERTH_STORAGE_CONST: return (uint8_t *)(uintptr_t)p->constants + x->offset;
    case BERTH_STORAGE_STATE: return mem->state + x->offset;
    case BERTH_STORAGE_HOIST: return mem->hoist + x->offset;
    case BERTH_STORAGE_INPUT: return (uint8_t *)(uintptr_t)mem->inputs[x->index];
    case BERTH_STORAGE_OUTPUT: return (uint8_t *)mem->outputs[x->index];
  }
  return NULL;
}

/* Not recursive: the loader checks that a window's parent is never a window itself, so one
 * step up reaches the storage (and the stack depth stays statically bounded). */
void *berth_exec_addr(const berth_exec_program_t *p, const berth_exec_method_t *m,
                      const berth_exec_memory_t *mem, int32_t v) {
  const berth_exec_value_t *x = &m->values[v];
  if (x->window_parent < 0) return storage_addr(p, mem, x);
  uint8_t *base = storage_addr(p, mem, &m->values[x->window_parent]);
  return base + (int64_t)x->offset + mem->regs[x->window_reg] * x->window_stride;
}

int32_t berth_exec_max_operands(const berth_exec_method_t *m) {
  int32_t most = 0;
  for (int32_t i = 0; i < m->n_instrs; i++) {
    const berth_instr_t *in = &m->instrs[i];
    if (in->opcode == BERTH_I_KERNEL && in->n_in + in->n_out > most) most = in->n_in + in->n_out;
  }
  return most;
}

/* Sanitizer checks of one instruction, before it runs: reads, then writes. */
static berth_status_t sanitize(berth_sanitizer_t *san, const berth_instr_t *in, const int32_t *ops, int32_t pc,
                               const int64_t *regs, berth_diag_t *diag) {
  berth_status_t st = BERTH_OK;
  switch (in->opcode) {
    case BERTH_I_KERNEL:
      for (int32_t i = 0; i < in->n_in && !st; i++) st = berth_sanitizer_on_read(san, ops[i], pc, regs, diag);
      /* the scratch (after the outputs) is written by this call: its bytes now belong to it, so a
       * later read of a value planned over them is caught */
      for (int32_t i = 0; i < in->n_out + in->n_scratch && !st; i++)
        st = berth_sanitizer_on_write(san, ops[in->n_in + i], pc, regs, diag);
      return st;
    case BERTH_I_COPY:
      st = berth_sanitizer_on_read(san, ops[0], pc, regs, diag);
      return st ? st : berth_sanitizer_on_write(san, ops[1], pc, regs, diag);
    case BERTH_I_RENAME: return berth_sanitizer_on_rename(san, ops[0], ops[1], pc, regs, diag);
    case BERTH_I_VIEW: return berth_sanitizer_on_view(san, ops[0], ops[1], in->view_offset, pc, regs, diag);
    case BERTH_I_JOIN: return berth_sanitizer_on_join(san, ops, in->n_in, pc, regs, diag);
    case BERTH_I_JUMP_IF_FALSE:
    case BERTH_I_ASSERT: return berth_sanitizer_on_read(san, ops[0], pc, regs, diag);
    case BERTH_I_RETURN: return berth_sanitizer_on_return(san, pc, diag);
    default: return BERTH_OK;
  }
}

/* One kernel call. */
static void run_kernel(const berth_exec_program_t *p, const berth_exec_method_t *m, const berth_exec_memory_t *mem,
                       const berth_instr_t *in, const int32_t *ops, berth_tensor_ref_t *refs, bool poison_scratch) {
  const berth_op_def_t *def = berth_op_get(in->op);
  int32_t n = in->n_in + in->n_out;
  for (int32_t i = 0; i < n; i++) {
    refs[i].type = &m->values[ops[i]].type;
    refs[i].data = berth_exec_addr(p, m, mem, ops[i]);
  }
  berth_kernel_call_t call = {m->attrs ? &m->attrs[in->attrs] : NULL, refs, in->n_in, refs + in->n_in, in->n_out,
                              NULL, 0};
  if (in->n_scratch) {
    call.scratch = berth_exec_addr(p, m, mem, ops[n]);
    call.scratch_bytes = berth_type_bytes(&m->values[ops[n]].type);
    /* Sanitizer: the scratch starts as all-ones bytes (NaN as f32 and f64), so a kernel
     * that reads scratch it did not write in this call shows in its results, which the
     * differential tests compare with the reference interpreter's. */
    if (poison_scratch) memset(call.scratch, 0xff, (size_t)call.scratch_bytes);
  }
  def->run(&call);
}

berth_status_t berth_exec_run_once(const berth_exec_program_t *p, int32_t method, const berth_exec_memory_t *mem,
                                   berth_tensor_ref_t *refs, berth_diag_t *diag) {
  if (method < 0 || method >= p->n_methods)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no method %d", (int)method);
  const berth_exec_method_t *m = &p->methods[method];
  /* verified: kernels without scratch and views only, reading constants and hoisted values */
  for (int32_t pc = 0; pc < m->n_once; pc++) {
    const berth_instr_t *in = &m->instrs[pc];
    if (in->opcode == BERTH_I_KERNEL) run_kernel(p, m, mem, in, &m->operands[in->operands], refs, false);
  }
  return BERTH_OK;
}

/* The message of a failed assert: which check, where, and the program's own words. */
static berth_status_t assert_failed(const berth_exec_method_t *m, const berth_instr_t *in, int32_t pc,
                                    berth_diag_t *diag) {
  char name[96];
  berth_exec_value_name(m, m->operands[in->operands], name, sizeof name);
  const char *text = m->attrs ? m->attrs[in->attrs].s : NULL;
  if (text && text[0])
    return berth_fail(diag, BERTH_ERR_CHECK_FAILED, "method %s: run-time check failed at instruction %d (%s is false): %s",
                      m->name, (int)pc, name, text);
  return berth_fail(diag, BERTH_ERR_CHECK_FAILED, "method %s: run-time check failed at instruction %d (%s is false)",
                    m->name, (int)pc, name);
}

berth_status_t berth_exec_run(const berth_exec_program_t *p, int32_t method, const berth_exec_memory_t *mem,
                              struct berth_sanitizer *san, uint64_t max_steps, berth_diag_t *diag) {
  berth_tensor_ref_t refs[2 * BERTH_MAX_KERNEL_OPERANDS];
  return berth_exec_run_refs(p, method, mem, refs, san, max_steps, diag);
}

berth_status_t berth_exec_run_refs(const berth_exec_program_t *p, int32_t method, const berth_exec_memory_t *mem,
                                   berth_tensor_ref_t *refs, struct berth_sanitizer *san, uint64_t max_steps,
                                   berth_diag_t *diag) {
  if (method < 0 || method >= p->n_methods)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no method %d", (int)method);
  const berth_exec_method_t *m = &p->methods[method];
  if (max_steps == 0) max_steps = BERTH_RUNTIME_DEFAULT_MAX_STEPS;
  berth_status_t st = BERTH_OK;
  if (san) berth_sanitizer_begin_call(san);
  int32_t pc = m->n_once; /* the once-stream ran before the first call (berth_exec_run_once) */
  /* A step is one finished loop iteration: every loop_next, and every jump taken backward
   * (a while loop's jump to its head). Code can only run forever through backward jumps,
   * so this bounds every call; the reference interpreter counts the same iterations. */
  uint64_t steps = 0;
#define STEP()                                                                                                        \
  do {                                                                                                                \
    if (++steps > max_steps)                                                                                          \
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE,                                                                 \
                        "method %s: more than %llu loop iterations in one call (the step limit; an endless loop?)",  \
                        m->name, (unsigned long long)max_steps);                                                      \
  } while (0)
  for (;;) {
    const berth_instr_t *in = &m->instrs[pc];
    const int32_t *ops = &m->operands[in->operands];
    if (san && (st = sanitize(san, in, ops, pc, mem->regs, diag))) return st;
    switch (in->opcode) {
      case BERTH_I_KERNEL:
        if (mem->observe) { /* berth_method_set_observer: around the call, one test when off */
          mem->observe(mem->observe_ctx, pc, true);
          run_kernel(p, m, mem, in, ops, refs, san != NULL);
          mem->observe(mem->observe_ctx, pc, false);
        } else {
          run_kernel(p, m, mem, in, ops, refs, san != NULL);
        }
        pc++;
        break;
      case BERTH_I_COPY: {
        void *src = berth_exec_addr(p, m, mem, ops[0]);
        void *dst = berth_exec_addr(p, m, mem, ops[1]);
        size_t bytes = berth_type_bytes(&m->values[ops[1]].type);
        if (mem->observe) {
          mem->observe(mem->observe_ctx, pc, true);
          if (src != dst) memmove(dst, src, bytes);
          mem->observe(mem->observe_ctx, pc, false);
        } else if (src != dst) {
          memmove(dst, src, bytes);
        }
        pc++;
        break;
      }
      case BERTH_I_RENAME:
      case BERTH_I_VIEW:
      case BERTH_I_JOIN: pc++; break;
      case BERTH_I_JUMP:
        if (in->target <= pc) STEP();
        pc = in->target;
        break;
      case BERTH_I_JUMP_IF_FALSE: {
        const uint8_t *c = berth_exec_addr(p, m, mem, ops[0]);
        if (!*c && in->target <= pc) STEP();
        pc = *c ? pc + 1 : in->target;
        break;
      }
      case BERTH_I_LOOP_INIT:
        mem->regs[in->reg] = 0;
        pc++;
        break;
      case BERTH_I_LOOP_NEXT:
        STEP();
        mem->regs[in->reg]++;
        pc = mem->regs[in->reg] < in->count ? in->target : pc + 1;
        break;
      case BERTH_I_ASSERT: {
        const uint8_t *c = berth_exec_addr(p, m, mem, ops[0]);
        if (!*c) return assert_failed(m, in, pc, diag);
        pc++;
        break;
      }
      case BERTH_I_RETURN: return BERTH_OK;
      default: return berth_fail(diag, BERTH_ERR_INTERNAL, "bad opcode %d at instruction %d", in->opcode, (int)pc);
    }
  }
#undef STEP
}
