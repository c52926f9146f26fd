/* The lowered method: state shared by the stages that turn one IR method into a planned
 * instruction stream: timeline.c (positions and lifetimes), views.c and coalesce.c (storage
 * groups: views, destination passing), emit.c (instructions). The stages after it
 * (plan_stages.h: groups, pools, offsets, state, exec method, report) change none of its
 * decisions and return typed results. Internal. */
#ifndef BERTH_PLAN_LOWER_CTX_H
#define BERTH_PLAN_LOWER_CTX_H

#include "plan/plan.h"

/* Storage class of a lowered value before offsets are known. */
enum {
  LV_ARENA = 0, /* planned in an arena pool (temporaries, planned inputs/outputs) */
  LV_CONST,     /* program constant */
  LV_STATE,     /* mutable buffer of the method (as a group root: the group lives in the
                   buffer's bytes, see coalesce.c state_in_place) */
  LV_INPUT,     /* caller memory for input io_index (inputs not planned) */
  LV_OUTPUT,    /* caller memory for output io_index (outputs not planned) */
  LV_WINDOW,    /* a slice of win_parent selected by register win_reg */
  LV_HOIST,     /* as a group root: computed from constants by the once-stream, in the
                   hoist region at hoist_off (hoist.c) */
};

typedef struct iv {
  int64_t lo, hi; /* inclusive timeline positions */
} iv_t;

#define LV_MAX_IVS 4

typedef struct lval {
  char *name;
  berth_type_t type;
  int32_t ir;    /* IR value id, or -1 for values the lowering made */
  int32_t alias; /* >= 0: this IR value is another value under a second name */
  int32_t graph; /* graph that defines it (-1: global) */
  uint8_t cls;
  int32_t global;   /* CONST/STATE: program global */
  int32_t io_index; /* method input/output index, -1 if none */
  int32_t win_parent, win_reg;
  int64_t win_stride;
  int32_t op; /* op of the defining node (pool rules), -1 if none */
  /* lifetime: intervals on the timeline */
  int32_t n_ivs;
  iv_t ivs[LV_MAX_IVS];
  /* storage groups: union-find with a circular member list */
  int32_t parent, next;
  bool is_carried;        /* a loop-carried storage (body parameter of while/scan) */
  bool has_windows;       /* group: some window value is a slice of a member */
  /* views (views.c, DESIGN rule 7): a view shares its source's storage group, at byte offset
   * `voff` from the group's base (0 for every value that is not a view); its node emits a VIEW */
  int32_t view_src;       /* the (resolved) source of a view, else -1 */
  uint64_t voff;
  bool has_views;         /* group: some member is a view */
  bool is_join;           /* a Concat's output whose parts were placed in its slots (views.c):
                             its node emits a JOIN; each part is a member at its slot's voff */
  int32_t snap_src;       /* a body parameter bound to a mutable buffer: copied from it at
                             the HOP's start (operands are values, buffers change), else -1 */
  int32_t snap_node;
  bool is_input, is_output;
  int32_t carried_cond_g; /* while_loop: its cond graph, where aliases of it are read */
  /* regions baseline only: a cond result that the then-branch hands over by copy (a
   * passthrough, say an exported clone that became an Identity) is stored where ExecuTorch
   * stores the branch's output, in that branch's region: the graph planning it, else -1,
   * and the only span that region's local view sees (the hand-over) */
  int32_t regions_home;
  iv_t regions_iv;
  uint64_t hoist_off; /* LV_HOIST: the group's offset in the hoist region */
} lval_t;

/* Positions of one HOP node on the timeline. */
typedef struct hop_pos {
  int64_t ts;    /* start: jump-if-false (cond), initial copies (loops) */
  int64_t tjf;   /* while_loop: the test of the cond graph's result */
  int64_t th[2]; /* hand-over of each body (cond: then, else; loops: body) */
  int64_t te;    /* end: results defined */
  int32_t reg;   /* scan/map: loop register */
} hop_pos_t;

/* One emitted instruction before storage is final. */
typedef struct linstr {
  berth_instr_t in;
  int32_t first_operand;
  int32_t attr_node; /* KERNEL, ASSERT: IR node whose attributes it uses */
} linstr_t;

typedef struct lctx {
  const berth_ir_program_t *p;
  const berth_ir_method_t *m;
  int32_t method;
  const berth_plan_options_t *opt;
  bool alloc_inputs, alloc_outputs;
  berth_diag_t *diag;

  int32_t n_vals, cap_vals;
  lval_t *vals; /* ids 0..m->n_values-1 are the IR values */

  int64_t *node_pos; /* per IR node: its position (kernels, copy_) */
  hop_pos_t *hop;    /* per IR node: HOP positions */
  int64_t *def_pos, *last_pos; /* per value: definition and last use (timeline.c) */
  int64_t *ho_base;  /* per IR node: first index of its hand-over decisions */
  int64_t n_handovers;
  int64_t t_ret;     /* position of the method's return */
  int64_t n_positions;
  int32_t n_regs;

  /* decisions */
  int8_t *handover;    /* per (node, body, result): HANDOVER_* */
  int32_t *ho_value;   /* per (node, body, result): copy temp / window value, or -1 */
  int32_t *out_value;  /* per method result: the value copied into output k, or -1 */
  int32_t *out_copy;   /* per method result: synthetic output value (COPY at return), or -1 */
  int32_t *x_copy;     /* per IR node x scanned input: materialised copy, or -1 */
  int64_t *x_copy_base;

  /* emitted stream */
  int32_t n_instrs, cap_instrs;
  linstr_t *instrs;
  int32_t n_operands, cap_operands;
  int32_t *operands;
  int32_t copies, renames, windows;
  int32_t views;          /* kernel calls turned into views (views.c) */
  int32_t joins;          /* Concat calls done in place (views.c: JOIN) */
  int32_t state_in_place; /* copy_ into a buffer turned into destination passing (coalesce.c) */
  int32_t scratch_values;  /* kernel scratch values made by the emitter */
  uint64_t scratch_bytes;  /* their bytes, summed */
  /* hoisting (hoist.c) */
  int32_t n_once;          /* the once-stream: instructions [0, n_once) */
  int32_t hoisted_kernels; /* kernel calls moved to it */
  int32_t hoisted_values;  /* storage groups in the hoist region */
  uint64_t hoist_size;     /* its bytes */
} lctx_t;

/* lower_ctx helpers (timeline.c) */
int32_t lctx_new_value(lctx_t *c, const char *name, const berth_type_t *type, int32_t graph);
int32_t lctx_resolve(const lctx_t *c, int32_t v);
void lctx_add_iv(lctx_t *c, int32_t v, int64_t lo, int64_t hi);
void lval_add_iv(lval_t *x, int64_t lo, int64_t hi); /* the same on a lifetime of one's own */
int32_t lctx_group(lctx_t *c, int32_t v);            /* the group's root (compresses the path) */
int32_t lctx_group_find(const lctx_t *c, int32_t v); /* the same, changing nothing */
bool lctx_groups_conflict(lctx_t *c, int32_t a, int32_t b);
/* Whether groups a and b are live at one time, with member v's lifetime read from *v_as
 * (a decision on a lifetime not applied yet; v = -1: none). Changes nothing. */
bool lctx_groups_conflict_as(const lctx_t *c, int32_t a, int32_t b, int32_t v, const lval_t *v_as);
void lctx_group_merge(lctx_t *c, int32_t a, int32_t b);

/* stages */
berth_status_t berth_timeline_build(lctx_t *c);  /* positions, aliases, lifetimes */
berth_status_t berth_views_decide(lctx_t *c);    /* views join their source's storage group */
berth_status_t berth_coalesce(lctx_t *c);        /* storage groups and hand-over decisions */
berth_status_t berth_emit_method(lctx_t *c);     /* the instruction stream */
berth_status_t berth_hoist(lctx_t *c);           /* constant-only work into the once-stream */

/* views.c helpers */
int32_t lctx_view_root(const lctx_t *c, int32_t v);        /* resolved, then the source of views, transitively */
uint64_t lctx_group_bytes(lctx_t *c, int32_t v);           /* bytes of v's group: max over members of voff + size */
bool lctx_group_at_base(lctx_t *c, int32_t v);             /* every member of v's group is at offset 0 */

/* Coalescing decision codes stored per hand-over. */
enum { HANDOVER_COPY = 0, HANDOVER_RENAME = 1, HANDOVER_WINDOW = 2, HANDOVER_NONE = 3 };
/* Index into c->coalesced for node n, body b (0/1), result i. */
int64_t lctx_handover_index(const lctx_t *c, int32_t node, int32_t body, int32_t result);

#endif
