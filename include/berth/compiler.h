/* berth's compiler: a program (text IR `.bir`, or an ONNX model) in, a planned and verified
 * program file (`.berth`, for berth/runtime.h) and its plan report out.
 *
 *   berth_compile_options_t opt = berth_compile_options_default();
 *   const char *inputs[] = {"input:f32[1,512]", "state:f32[2,1,128]", "sr:i64[]=16000"};
 *   opt.inputs = inputs;                 // ONNX only: fix shapes (and bind values)
 *   opt.n_inputs = 3;
 *   const char *states[] = {"state=stateN"}; // the state pair becomes a mutable buffer
 *   opt.states = states;
 *   opt.n_states = 1;
 *   berth_compilation_t *c;
 *   if (berth_compile(model_bytes, model_len, "silero_vad.onnx", &opt, &c, &diag)) fail(msg);
 *   size_t len;
 *   const uint8_t *file = berth_compilation_bytes(c, &len);  // write it, or load it
 *   berth_plan_summary_t s;
 *   berth_compilation_summary(c, 0, &s, &diag);              // arena, lower bound, copies...
 *   berth_plan_value_t v;
 *   berth_compilation_value(c, 0, 3, &v, &diag);             // value 3: storage, bytes, lifetime
 *   berth_compilation_destroy(c);
 *
 * The source kind is told by content: an ONNX ModelProto, else the text IR (a `.berth` file
 * is refused: it is already compiled). The compiler allocates with malloc and is not meant
 * for embedded targets; the runtime (berth/runtime.h) is. Every function is thread-safe on
 * distinct objects. Fallible functions return berth_status_t with a one-line message in diag
 * (may be NULL) naming what was wrong and where, and write their outputs only on success. */
#ifndef BERTH_COMPILER_H
#define BERTH_COMPILER_H

#include "berth/onnx_model.h"
#include "berth/status.h"
#include "berth/types.h"
#include "berth/version.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "MAJOR.MINOR.PATCH" of the library that is linked (may differ from the header's
 * BERTH_VERSION_STRING, berth/version.h); the writer records it in every program file's
 * header. */
const char *berth_version(void);

/* The ONNX ops of the default domain (ai.onnx, opsets 1 to 27) that the importer translates,
 * family by family ("core", "nn", "math", "spatial", "index", "sequence", "quant"):
 * berth_onnx_op_count() of them. berth_onnx_op_name returns op k's type ("Conv") and
 * stores its family in *family (family may be NULL); NULL for k out of range. The strings
 * are static. */
int32_t berth_onnx_op_count(void);
const char *berth_onnx_op_name(int32_t k, const char **family);

/* ONNX op k with what the shared ONNX conformance suite verifies of it (the table that
 * `berth ops` prints and docs/ops.md shows, generated from `berth onnx-test --per-op`):
 *
 *   berth_onnx_op_info_t info;
 *   for (int32_t k = 0; berth_onnx_op_info(k, &info) == BERTH_OK; k++)
 *     printf("%s %s %s\n", info.name, info.opsets, info.input_types);  // Conv 11,22 float
 *
 * opsets and input_types are verified facts, not the limits of berth: the default-domain
 * opsets of the suite folders that use the op and pass, and the ONNX element types
 * (TensorProto names: "float", "int64", "float16") of the op's inputs there; "" when no
 * passing folder uses the op (an op the suite does not cover is still imported). The strings
 * are static. Errors: INVALID_ARGUMENT (info NULL), OUT_OF_RANGE (k outside
 * 0..berth_onnx_op_count()-1); info is written only on success. */
typedef struct berth_onnx_op_info {
  const char *name;        /* "Conv" */
  const char *family;      /* "core", "nn", ... as berth_onnx_op_name gives it */
  const char *opsets;      /* "6-7,13": opsets as comma-separated numbers and ranges */
  const char *input_types; /* "float,int64": comma-separated */
  int32_t suite_passed, suite_failed, suite_unsupported; /* the suite's folders using the op, by result */
} berth_onnx_op_info_t;
berth_status_t berth_onnx_op_info(int32_t k, berth_onnx_op_info_t *info);

typedef struct berth_compile_options {
  /* ---- planner -------------------------------------------------------------------- */
  const char *algo;     /* "naive", "greedy" (default), "search", "exact" */
  const char *strategy; /* "global" (default); "regions" is ExecuTorch's scheme, a baseline
                           that the verifier rejects wherever it aliases live values */
  int64_t budget_ms;    /* search / exact time budget; 0: the planner's default */
  int64_t budget_work;  /* > 0: search / exact budget in deterministic work units instead
                           (buffers visited by branch-and-bound nodes, search steps and
                           greedy runs; about 10^3-10^4 a millisecond): the same plan on any
                           machine under any load. 0: budget_ms */
  uint32_t alignment;   /* arena offsets are multiples of it; power of two <= 4096; 0: 16 */
  const char *pools;    /* pool rules "KEY=POOL,..." (KEY an op name, "input" or "output");
                           NULL: everything in pool 0 */
  int alloc_inputs;     /* -1: as the program says; 0 or 1: inputs planned in the arena */
  int alloc_outputs;    /* -1: as the program says; 0 or 1: outputs planned in the arena */
  bool verify;          /* run the memory-plan verifier on the result (default true) */
  bool store_ir;        /* keep the source IR in the file (default true) */
  /* ---- ONNX import (ignored for the text IR) -------------------------------------- */
  const char *const *inputs; /* n_inputs specs "NAME:DTYPE[D,...]" or "NAME:DTYPE[D,...]=V,..."
                                (the second binds the input to a value: a constant) */
  int32_t n_inputs;
  const char *const *states; /* n_states pairs "IN=OUT": graph input IN and the output OUT
                                that updates it become one mutable buffer (initialised from
                                IN's initializer, its input spec's value, or zeros), updated
                                in place by the plan; read and set it with berth_method_state */
  int32_t n_states;
  bool keep_control_flow; /* keep Ifs whose condition folds to a constant */
  int64_t max_trip_count; /* 0: none; bound for Loops whose trip count is dynamic */
  /* 0: none; else the capacity of a result whose shape depends on data (NonZero, Compress,
   * Unique, NonMaxSuppression on run-time data): such a result may only be a graph output,
   * gets that many entries along its data-dependent axis, and a call that yields more fails
   * (berth_method_output_shape gives the real shape) */
  int64_t dynamic_bound;
  /* ---- planner, continued ---------------------------------------------------------- */
  bool views; /* reshape, squeeze, unsqueeze, clone and contiguous slices share their
                 operand's bytes (default true); false: they copy (to measure views) */
  /* Concats whose parts can be computed straight into their slots of the output (every dim
   * before the axis 1; plan/views.c): 1 (default) in place unless that makes a method's arena
   * larger (it is planned both ways), 2 in place wherever allowed, 0 never (to measure it);
   * other values: INVALID_ARGUMENT */
  int concat_in_place;
  bool hoist; /* work on constants alone (a reshaped or filled weight) runs once, when a method
                 is initialised, into its hoist region instead of on every call (default true) */
  int64_t hoist_min_bytes; /* such a kernel call is hoisted when it reads and writes at least
                              this many bytes (default 4096; negative: INVALID_ARGUMENT) */
  /* ONNX: false (default): regions of convs where it pays run over channel-blocked tensors
   * ([N, C/16, H, W, 16], conv_blocked, with reorders at the regions' edges); true: plain
   * NCHW throughout (to measure the layout) */
  bool plain_layout;
  /* ONNX: false (default): the 3x3 stride-1 convs of those regions on planes of 144 outputs
   * or more run by Winograd's F(2x2, 3x3) (conv_winograd: 16 multiply-adds per 2x2 outputs
   * and channel pair instead of 36; results differ from the direct sums by rounding); true:
   * direct (conv_blocked), to measure it or to keep the direct sums */
  bool direct_3x3;
} berth_compile_options_t;

/* The defaults described above. */
berth_compile_options_t berth_compile_options_default(void);

/* Checks the planner options of opt (algo, strategy, budgets, alignment, pool rules,
 * alloc_inputs/outputs) as berth_compile would, without compiling: a command line can
 * refuse a bad option before it reads a program. Errors: INVALID_ARGUMENT (opt NULL, or
 * the first bad option, e.g. "unknown algorithm 'x' (naive, greedy, search, exact)"). */
berth_status_t berth_compile_options_check(const berth_compile_options_t *opt, berth_diag_t *diag);

/* Checks one ONNX input spec ("NAME:DTYPE[D,...]" or "NAME:DTYPE[D,...]=V,...", the
 * grammar of berth_compile_options_t.inputs) without a model. Errors: INVALID_ARGUMENT or
 * OUT_OF_RANGE with the spec and what is wrong. */
berth_status_t berth_onnx_input_spec_check(const char *spec, berth_diag_t *diag);

/* ---- sources: a program before planning --------------------------------------------- */

/* A parsed, validated program (berth's IR), to print, to inspect or to compile several ways:
 *
 *   berth_source_t *src;
 *   if (berth_source_create(bytes, len, "model.onnx", BERTH_SOURCE_AUTO, &opt, &src, &diag)) fail(msg);
 *   char *text = berth_source_print(src);              // canonical .bir text
 *   berth_compilation_t *c;
 *   berth_compile_source(src, &opt, &c, &diag);         // as often as wanted, any options
 *   berth_source_destroy(src);
 *
 * Messages name the source (source_name) where the fault is not inside its text. */
typedef struct berth_source berth_source_t;

typedef enum berth_source_kind {
  BERTH_SOURCE_AUTO = 0,         /* told by content: an ONNX ModelProto, else the text IR (a
                                    .berth program file is refused: use PROGRAM_FILE) */
  BERTH_SOURCE_TEXT = 1,         /* berth's text IR (.bir) */
  BERTH_SOURCE_ONNX = 2,         /* an ONNX model, imported with opt's ONNX fields */
  BERTH_SOURCE_PROGRAM_FILE = 3, /* a .berth program file: loaded and verified, then the IR
                                    source section it carries (absent with store_ir off: an
                                    INVALID_ARGUMENT error saying so) */
} berth_source_kind_t;

/* True when bytes hold an ONNX ModelProto (what BERTH_SOURCE_AUTO imports). */
bool berth_source_is_onnx(const void *bytes, size_t len);

/* Parses (TEXT), imports (ONNX: opt's inputs, states, keep_control_flow, max_trip_count and
 * dynamic_bound; opt may be NULL for the defaults) or loads (PROGRAM_FILE) bytes into a
 * validated program. ONNX import options given for a source that is not ONNX are an
 * INVALID_ARGUMENT error. Errors as berth_compile's. The result is the caller's. */
berth_status_t berth_source_create(const void *bytes, size_t len, const char *source_name, berth_source_kind_t kind,
                                   const berth_compile_options_t *opt, berth_source_t **out, berth_diag_t *diag);
void berth_source_destroy(berth_source_t *s);

/* The canonical text form (`berth check`): malloc'd, the caller's to free; NULL when out of
 * memory. */
char *berth_source_print(const berth_source_t *s);

/* Methods: count, name of method k (owned by s; NULL out of range), and the index of the
 * method named name (-1 when none). */
int32_t berth_source_method_count(const berth_source_t *s);
const char *berth_source_method_name(const berth_source_t *s, int32_t method);
int32_t berth_source_method_find(const berth_source_t *s, const char *name);

/* Method's parameters and results: counts, and the name and type of parameter or result k
 * (name owned by s). Errors: INVALID_ARGUMENT (NULL, method or k out of range). */
int32_t berth_source_input_count(const berth_source_t *s, int32_t method);
int32_t berth_source_output_count(const berth_source_t *s, int32_t method);
berth_status_t berth_source_input(const berth_source_t *s, int32_t method, int32_t k, const char **name,
                                  berth_type_t *type, berth_diag_t *diag);
berth_status_t berth_source_output(const berth_source_t *s, int32_t method, int32_t k, const char **name,
                                   berth_type_t *type, berth_diag_t *diag);

/* ---- ONNX models decoded once (berth/onnx_model.h), imported ------------------------- */

/* Imports m as berth_source_create imports ONNX bytes (opt's inputs, states,
 * keep_control_flow, max_trip_count and dynamic_bound; opt may be NULL for the defaults).
 * m is not changed. Errors as berth_source_create's; messages start with "onnx:" or name the
 * node. The result is the caller's. */
berth_status_t berth_onnx_model_import(const berth_onnx_model_t *m, const berth_compile_options_t *opt,
                                       berth_source_t **out, berth_diag_t *diag);

typedef struct berth_compilation berth_compilation_t;

/* Compiles source (len bytes; source_name names it in messages, may be NULL). Errors:
 * BERTH_ERR_INVALID_ARGUMENT (a bad option or spec, a program that breaks the IR's rules),
 * BERTH_ERR_CORRUPT_DATA (malformed bytes), BERTH_ERR_UNIMPLEMENTED (an op or feature berth
 * lacks), BERTH_ERR_OUT_OF_RANGE (a cap), BERTH_ERR_VERIFY_FAILED (the plan breaks the memory
 * rules), BERTH_ERR_RESOURCE_EXHAUSTED. The result is owned by the caller. */
berth_status_t berth_compile(const void *source, size_t len, const char *source_name,
                             const berth_compile_options_t *opt, berth_compilation_t **out,
                             berth_diag_t *diag);
void berth_compilation_destroy(berth_compilation_t *c);

/* berth_compile of a source already made (its ONNX import options are not looked at
 * again): plans, writes and checks the program file. s is not changed; compile it again
 * with other planner options for a side-by-side comparison. Errors as berth_compile's. */
berth_status_t berth_compile_source(const berth_source_t *s, const berth_compile_options_t *opt,
                                    berth_compilation_t **out, berth_diag_t *diag);

/* Totals over every method: arena bytes (all pools), state bytes, and the constant
 * section's bytes. Any pointer may be NULL; all zero when c is NULL. */
void berth_compilation_totals(const berth_compilation_t *c, uint64_t *arena_bytes, uint64_t *state_bytes,
                              uint64_t *constant_bytes);

/* The program file: *len bytes, 64-byte aligned, owned by c (valid until destroy). */
const uint8_t *berth_compilation_bytes(const berth_compilation_t *c, size_t *len);

/* The plan of one method. */
#define BERTH_SUMMARY_MAX_POOLS 16
typedef struct berth_plan_summary {
  const char *method;          /* owned by c */
  int32_t n_values;            /* values with storage */
  int32_t copies;              /* COPY instructions (hand-overs that could not be in place) */
  int32_t coalesced;           /* hand-overs written in place by their producers */
  uint64_t state_bytes;        /* mutable buffers */
  int32_t state_in_place;      /* copy_s computed in the buffer's own bytes (state pairs) */
  int32_t n_pools;
  uint64_t arena_bytes[BERTH_SUMMARY_MAX_POOLS];       /* per pool */
  uint64_t lower_bound_bytes[BERTH_SUMMARY_MAX_POOLS]; /* per pool: no plan can be smaller */
  int32_t buffers[BERTH_SUMMARY_MAX_POOLS];            /* storage groups packed per pool */
  bool verified;
  int32_t n_scratch;           /* kernel calls given scratch in the arena (values of their own) */
  uint64_t scratch_bytes;      /* the bytes those calls asked for, summed (packed like any value) */
  int64_t timeline_positions;  /* length of the method's timeline (every node of every nested graph) */
  double time_ms;              /* planning time */
  int32_t n_hops;              /* control-flow bodies on the timeline (berth_compilation_hop) */
  int32_t views;               /* kernel calls that share their operand's bytes (DESIGN rule 7) */
  int32_t concats_in_place;    /* Concat calls whose parts were computed in their slots (no work) */
  int32_t hoisted;             /* kernel calls run once at init, not per call (the once-stream) */
  uint64_t hoist_bytes;        /* the hoist region: their results, kept for every call */
} berth_plan_summary_t;

int32_t berth_compilation_method_count(const berth_compilation_t *c);
/* The plan of method (0..berth_compilation_method_count(c)-1). Errors:
 * BERTH_ERR_INVALID_ARGUMENT (c or out NULL, method out of range, with diag saying which);
 * *out is written only on success. */
berth_status_t berth_compilation_summary(const berth_compilation_t *c, int32_t method, berth_plan_summary_t *out,
                                         berth_diag_t *diag);

/* ---- the plan of every value ------------------------------------------------------------ */

/* Where a value's bytes live (the program file's storage classes, docs/format.md). */
typedef enum berth_plan_storage {
  BERTH_PLAN_STORAGE_ARENA = 0,  /* planned in an arena pool of the method */
  BERTH_PLAN_STORAGE_CONST = 1,  /* the file's constant section (read-only) */
  BERTH_PLAN_STORAGE_STATE = 2,  /* the method's state region (mutable buffers) */
  BERTH_PLAN_STORAGE_INPUT = 3,  /* a buffer the caller binds (inputs not planned) */
  BERTH_PLAN_STORAGE_OUTPUT = 4, /* a buffer the caller binds (outputs not planned) */
  BERTH_PLAN_STORAGE_HOIST = 5,  /* the method's hoist region (computed once from constants) */
} berth_plan_storage_t;

/* "arena", "const", "state", "input", "output", "hoist"; "?" outside the enum. Static storage. */
const char *berth_plan_storage_name(berth_plan_storage_t s);

/* One value of a method's plan, as `berth plan --json` lists it under "values":
 *
 *   berth_plan_value_t v;
 *   for (int32_t k = 0; k < berth_compilation_value_count(c, 0); k++) {
 *     berth_compilation_value(c, 0, k, &v, &diag);
 *     printf("%%%s %s pool %d [%llu,+%llu)\n", v.name, berth_plan_storage_name(v.storage), v.pool,
 *            (unsigned long long)v.offset, (unsigned long long)v.bytes);
 *   }
 *
 * Values are numbered as in the program file (`berth dis`). Coalesced hand-overs (a branch or
 * loop-body result planned at its HOP result's storage) show as values with the same bytes
 * whose lifetimes do not overlap; a value's lifetime is a set of intervals on the method's
 * timeline (DESIGN.md rules 3 and 4), not their hull. */
typedef struct berth_plan_value {
  const char *name;              /* owned by c */
  berth_type_t type;
  berth_plan_storage_t storage;
  int32_t pool;                  /* ARENA: the pool; else 0 */
  int32_t index;                 /* INPUT, OUTPUT: the caller's input or output index; else 0 */
  uint64_t offset;               /* ARENA, CONST, STATE, HOIST: the first byte in the pool, section or
                                    region (a window: in its parent); else 0 */
  uint64_t bytes;                /* the type's size */
  int32_t window_of;             /* -1, or the value this one is a per-step slice of (a scan or
                                    map step reading or writing its stacked value in place) */
  int32_t depth;                 /* nesting depth of the graph that defines it (0: the method's body) */
  int32_t n_intervals;           /* lifetime: n_intervals pairs of inclusive timeline positions,
                                    ascending (0 for CONST and STATE: they live for the whole
                                    method) */
  const int64_t (*intervals)[2]; /* owned by c; NULL when n_intervals is 0 */
} berth_plan_value_t;

/* The number of values of method (those with storage: berth_plan_summary_t.n_values); 0 when
 * c is NULL or method is out of range. */
int32_t berth_compilation_value_count(const berth_compilation_t *c, int32_t method);

/* Value k of method. Errors: BERTH_ERR_INVALID_ARGUMENT (c or out NULL, method or k out of
 * range, with diag saying which); *out is written only on success and points into c. */
berth_status_t berth_compilation_value(const berth_compilation_t *c, int32_t method, int32_t k, berth_plan_value_t *out,
                                       berth_diag_t *diag);

/* How value k of method gets its bytes written, beyond its producing kernel (what `berth
 * plan --svg` marks): by a COPY instruction (a hand-over that could not be in place), or
 * in place as a RENAME's result (a hand-over written by its producer). NONE for anything
 * else, and for c NULL or method or k out of range. */
typedef enum berth_plan_handover {
  BERTH_PLAN_HANDOVER_NONE = 0,
  BERTH_PLAN_HANDOVER_COPY = 1,
  BERTH_PLAN_HANDOVER_IN_PLACE = 2,
} berth_plan_handover_t;
berth_plan_handover_t berth_compilation_value_handover(const berth_compilation_t *c, int32_t method, int32_t k);

/* One control-flow body on a method's timeline (what `berth plan --svg` shades): a HOP's
 * span [begin, end] of inclusive positions, inside which its bodies' nodes sit. */
typedef struct berth_plan_hop {
  const char *kind; /* the HOP's op: "cond", "while_loop", "scan", "map" (static) */
  int32_t depth;    /* nesting depth of the graph the HOP is in (0: the method's body) */
  int64_t begin, end;
  int64_t split;    /* cond: the first position of the else-body (the two sides are exclusive,
                       DESIGN.md rule 4); -1 for the other HOPs */
} berth_plan_hop_t;

/* HOP k of method (0..berth_plan_summary_t.n_hops-1). Errors: BERTH_ERR_INVALID_ARGUMENT (c
 * or out NULL, method or k out of range, with diag saying which); *out is written only on
 * success. */
berth_status_t berth_compilation_hop(const berth_compilation_t *c, int32_t method, int32_t k, berth_plan_hop_t *out,
                                     berth_diag_t *diag);

#ifdef __cplusplus
}
#endif
#endif
