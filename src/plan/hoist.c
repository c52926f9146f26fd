/* Hoisting: work that depends on constants alone runs once, not on every call.
 *
 * A model's weights are constants, and the computations on them that the importer could
 * not fold into the file (a transposed or reshaped fully-connected weight too large to
 * store twice, say) would otherwise run on every call and hold arena bytes for it. This
 * stage, run on the emitted stream (after emit.c), finds the instructions of the method's
 * top-level graph whose inputs are all constants or values hoisted before them:
 *  - a kernel call without scratch that reads or writes at least opt->hoist_min_bytes
 *    bytes in all (smaller work stays in the call: hoisting it saves little and costs
 *    persistent bytes); a call without inputs too (`full`: a fill too large to store), as
 *    every kernel is a pure function of its inputs and attributes;
 *  - a view of a hoisted value (no work; it lies in its source's hoisted bytes).
 * Their results move to the method's hoist region (storage class HOIST, lctx class
 * LV_HOIST on the storage group's root), packed one after the other at 64-byte offsets,
 * and the instructions move, in their order, to the front of the stream: the once-stream
 * [0, n_once) that the runtime runs once before the first call. Jump targets are renumbered
 * (a target that was a hoisted instruction becomes the next one that stays).
 *
 * A result's whole storage group must be private to the computation: its other members may
 * only be views defined in the top-level graph (so their VIEW instructions move too), and no
 * member is a method input or output, a loop-carried value, a buffer, a window parent or
 * a copy of a buffer. Everything else stays in the per-call stream; the verifier checks the
 * result (exec_program.h: the once-stream). */
#include "lower_ctx.h"

#include "base/checked.h"
#include "base/try.h"
#include "format/read_program.h"

#include <stdlib.h>
#include <string.h>

/* Is lowered value v (an operand) a constant or a hoisted value? */
static bool is_fixed(lctx_t *c, int32_t v) {
  v = lctx_resolve(c, v);
  const lval_t *x = &c->vals[v], *r = &c->vals[lctx_group(c, v)];
  if (x->cls == LV_WINDOW || r->cls == LV_WINDOW) return false;
  return x->cls == LV_CONST || r->cls == LV_CONST || r->cls == LV_HOIST;
}

/* Can the storage group of kernel result v move to the hoist region? */
static bool group_private(lctx_t *c, int32_t v) {
  int32_t body = c->m->body, root = lctx_group(c, v), x = root;
  if (c->vals[root].cls != LV_ARENA || c->vals[root].has_windows) return false;
  do {
    const lval_t *m = &c->vals[x];
    if (m->alias < 0) {
      if (x != v && m->view_src < 0) return false; /* another definition shares the bytes */
      if (m->graph != body || m->cls != LV_ARENA || m->is_input || m->is_output || m->is_carried ||
          m->snap_src >= 0)
        return false;
    }
    x = m->next;
  } while (x != root);
  return true;
}

/* Is instruction i a kernel call to hoist? */
static bool kernel_hoistable(lctx_t *c, int32_t i) {
  const berth_instr_t *in = &c->instrs[i].in;
  if (in->opcode != BERTH_I_KERNEL || in->n_scratch) return false;
  const int32_t *ops = &c->operands[in->operands];
  uint64_t bytes = 0;
  for (int32_t k = 0; k < in->n_in; k++) {
    if (!is_fixed(c, ops[k])) return false;
    bytes += berth_type_bytes(&c->vals[ops[k]].type);
  }
  for (int32_t k = 0; k < in->n_out; k++) {
    int32_t o = lctx_resolve(c, ops[in->n_in + k]);
    if (!group_private(c, o)) return false;
    bytes += berth_type_bytes(&c->vals[o].type);
  }
  return bytes >= c->opt->hoist_min_bytes;
}

/* Is instruction i a view whose result lies in a hoisted group? */
static bool view_hoisted(lctx_t *c, int32_t i) {
  const berth_instr_t *in = &c->instrs[i].in;
  if (in->opcode != BERTH_I_VIEW) return false;
  int32_t dst = lctx_resolve(c, c->operands[in->operands + 1]);
  return c->vals[lctx_group(c, dst)].cls == LV_HOIST;
}

/* Gives hoisted group root r its bytes in the hoist region. */
static berth_status_t place_group(lctx_t *c, int32_t r) {
  uint64_t at, end;
  if (!berth_align_u64(c->hoist_size, BERTH_FORMAT_CONST_ALIGN, &at) ||
      !berth_add_u64(at, lctx_group_bytes(c, r), &end) || end > BERTH_FORMAT_MAX_ARENA_BYTES)
    return berth_fail(c->diag, BERTH_ERR_OUT_OF_RANGE, "method %s: the hoist region is above the cap of %llu bytes (2^40)",
                      c->m->name, (unsigned long long)BERTH_FORMAT_MAX_ARENA_BYTES);
  c->vals[r].cls = LV_HOIST;
  c->vals[r].hoist_off = at;
  c->hoist_size = end;
  c->hoisted_values++;
  return BERTH_OK;
}

/* Marks the instructions to hoist (once[i]) and their results' groups. */
static berth_status_t mark(lctx_t *c, uint8_t *once) {
  for (int32_t i = 0; i < c->n_instrs; i++) {
    once[i] = 0;
    if (view_hoisted(c, i)) {
      once[i] = 1;
      continue;
    }
    if (!kernel_hoistable(c, i)) continue;
    const berth_instr_t *in = &c->instrs[i].in;
    const int32_t *ops = &c->operands[in->operands];
    for (int32_t k = 0; k < in->n_out; k++) BERTH_TRY(place_group(c, lctx_group(c, lctx_resolve(c, ops[in->n_in + k]))));
    once[i] = 1;
    c->hoisted_kernels++;
  }
  return BERTH_OK;
}

/* Moves the marked instructions to the front, in order, and renumbers the jump targets. */
static void reorder(lctx_t *c, const uint8_t *once, int32_t *newpos, linstr_t *tmp) {
  int32_t n_once = 0, n = c->n_instrs;
  for (int32_t i = 0; i < n; i++) n_once += once[i];
  /* newpos[i] for an instruction that stays; for a hoisted one, the next one that stays */
  int32_t a = 0, b = n_once;
  for (int32_t i = 0; i < n; i++) newpos[i] = once[i] ? a++ : b++;
  int32_t next = n;
  for (int32_t i = n - 1; i >= 0; i--) {
    if (!once[i]) next = newpos[i];
    else newpos[i] = next; /* only used as a jump target from here on */
  }
  a = 0, b = n_once;
  for (int32_t i = 0; i < n; i++) tmp[once[i] ? a++ : b++] = c->instrs[i];
  for (int32_t i = 0; i < n; i++) {
    berth_instr_t *in = &tmp[i].in;
    bool jumps = in->opcode == BERTH_I_JUMP || in->opcode == BERTH_I_JUMP_IF_FALSE || in->opcode == BERTH_I_LOOP_NEXT;
    if (jumps && in->target >= 0 && in->target < n) in->target = newpos[in->target];
  }
  memcpy(c->instrs, tmp, (size_t)n * sizeof *tmp);
  c->n_once = n_once;
}

berth_status_t berth_hoist(lctx_t *c) {
  c->n_once = 0;
  if (!c->opt->hoist || c->opt->strategy == BERTH_STRATEGY_REGIONS || c->n_instrs == 0) return BERTH_OK;
  uint8_t *once = malloc((size_t)c->n_instrs);
  int32_t *newpos = malloc((size_t)c->n_instrs * sizeof *newpos);
  linstr_t *tmp = malloc((size_t)c->n_instrs * sizeof *tmp);
  berth_status_t st = BERTH_OK;
  if (!once || !newpos || !tmp) st = berth_fail(c->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (!st) st = mark(c, once);
  if (!st && c->hoisted_kernels) reorder(c, once, newpos, tmp);
  free(once);
  free(newpos);
  free(tmp);
  return st;
}
