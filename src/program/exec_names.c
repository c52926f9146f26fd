/* Names of opcodes, storage classes, values and instructions (exec_names.h). */
#include "program/exec_names.h"

#include "berth/status.h"

static const char *const opcode_names[BERTH_I_COUNT] = {
    [BERTH_I_KERNEL] = "kernel",       [BERTH_I_COPY] = "copy",
    [BERTH_I_RENAME] = "rename",       [BERTH_I_JUMP] = "jump",
    [BERTH_I_JUMP_IF_FALSE] = "jump_if_false", [BERTH_I_LOOP_INIT] = "loop_init",
    [BERTH_I_LOOP_NEXT] = "loop_next", [BERTH_I_RETURN] = "return",
    [BERTH_I_ASSERT] = "assert",       [BERTH_I_VIEW] = "view",
    [BERTH_I_JOIN] = "join",
};

const char *berth_exec_opcode_name(uint32_t opcode) {
  return opcode < BERTH_I_COUNT && opcode_names[opcode] ? opcode_names[opcode] : "?";
}

const char *berth_exec_storage_name(uint32_t storage) {
  switch (storage) {
    case BERTH_STORAGE_ARENA: return "arena";
    case BERTH_STORAGE_CONST: return "constant";
    case BERTH_STORAGE_STATE: return "state";
    case BERTH_STORAGE_HOIST: return "hoist";
    case BERTH_STORAGE_INPUT: return "caller input";
    case BERTH_STORAGE_OUTPUT: return "caller output";
  }
  return "?";
}

char *berth_exec_value_name(const berth_exec_method_t *m, int32_t v, char *buf, size_t cap) {
  const char *name = (m && v >= 0 && v < m->n_values && m->values) ? m->values[v].name : NULL;
  if (name && name[0]) berth_snprintf(buf, cap, name[0] == '%' ? "%s" : "%%%s", name);
  else berth_snprintf(buf, cap, "%%v%d", (int)v);
  return buf;
}

char *berth_exec_instr_name(const berth_exec_method_t *m, int32_t i, char *buf, size_t cap) {
  if (!m || !m->instrs || i < 0 || i >= m->n_instrs) {
    berth_snprintf(buf, cap, "?");
    return buf;
  }
  const berth_instr_t *ins = &m->instrs[i];
  if (ins->opcode == BERTH_I_KERNEL) {
    const berth_op_def_t *def = berth_op_get(ins->op);
    if (def) berth_snprintf(buf, cap, "kernel %s", def->name);
    else berth_snprintf(buf, cap, "kernel op %u", (unsigned)ins->op);
  } else {
    berth_snprintf(buf, cap, "%s", berth_exec_opcode_name(ins->opcode));
  }
  return buf;
}
