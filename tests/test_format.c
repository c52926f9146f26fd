/* The program file: write -> load round trips through the public runtime API, compared bit
 * for bit with the planned host session and the reference interpreter over several calls,
 * for every example (examples/ * / *.bir) and random programs of the differential fuzzer's
 * generator, under all four alloc_inputs/alloc_outputs combinations, with arenas carved by
 * the runtime and placed by the caller. Also: the decoded program equals the compiled one
 * field by field, writing is deterministic, execute allocates nothing, the API's argument
 * checks, reset and the step limit, and the command-line tool on .berth files (compile,
 * run/check/plan giving the same results as the .bir, dis, --no-ir).
 *
 * Random inputs come from a seed printed with every failure. */
#define _POSIX_C_SOURCE 200809L
#include "berth/runtime.h"
#include "format/read_program.h"
#include "writer/ir_section.h"
#include "writer/write_program.h"
#include "fuzzgen/fuzzgen.h"
#include "host/session.h"
#include "onnx/onnx_import.h"
#include "plan/plan.h"
#include "reference/reference.h"
#include "test_util.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- counting allocator: execute must not allocate ----------------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define FORMAT_NO_INTERPOSE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FORMAT_NO_INTERPOSE 1
#endif
#endif

static int forbid;
static long forbidden_calls;

#ifndef FORMAT_NO_INTERPOSE
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
void *malloc(size_t n) {
  if (forbid) forbidden_calls++;
  return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
  if (forbid) forbidden_calls++;
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
  if (forbid) forbidden_calls++;
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n) {
  if (forbid) forbidden_calls++;
  return __libc_memalign(a, n);
}
void free(void *p) {
  if (forbid && p) forbidden_calls++;
  __libc_free(p);
}
#endif

/* ---- helpers --------------------------------------------------------------------------- */

static uint64_t rng(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Small values: floats multiples of 1/8 in [-4,4), integers 0..3, bools 0/1. */
static void *random_tensor(const berth_type_t *t, uint64_t *s) {
  size_t bytes = berth_type_bytes(t), n = (size_t)berth_type_numel(t);
  uint8_t *buf = calloc(1, bytes ? bytes : 1);
  for (size_t i = 0; buf && i < n; i++) {
    int64_t r = (int64_t)(rng(s) % 64) - 32;
    switch (t->dtype) {
      case BERTH_DTYPE_F32: ((float *)(void *)buf)[i] = (float)r / 8.0f; break;
      case BERTH_DTYPE_F64: ((double *)(void *)buf)[i] = (double)r / 8.0; break;
      case BERTH_DTYPE_BOOL: buf[i] = (uint8_t)(r & 1); break;
      case BERTH_DTYPE_I64: ((int64_t *)(void *)buf)[i] = r & 3; break;
      case BERTH_DTYPE_I32: ((int32_t *)(void *)buf)[i] = (int32_t)(r & 3); break;
      default: buf[i * berth_dtype_size(t->dtype)] = (uint8_t)(r & 3); break;
    }
  }
  return buf;
}

static berth_ir_program_t *parse_file(const char *path) {
  size_t len;
  char *text = test_read_file(path, &len);
  CHECK_MSG(text != NULL, "cannot read %s", path);
  if (!text) return NULL;
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_ir_parse(text, len, path, &p, &d);
  if (!st) st = berth_ir_validate(p, &d);
  free(text);
  CHECK_MSG(st == BERTH_OK, "%s: %s", path, msg);
  if (st) {
    berth_ir_program_destroy(p);
    return NULL;
  }
  return p;
}

/* ---- the decoded program equals the compiled one ------------------------------------------- */

static bool values_equal(const berth_exec_method_t *m, const berth_exec_value_t *a, const berth_exec_value_t *b) {
  if (strcmp(a->name, b->name) != 0 || !berth_type_equal(&a->type, &b->type)) return false;
  if (a->window_parent != b->window_parent) return false;
  if (a->window_parent >= 0)
    return a->window_reg == b->window_reg && a->window_stride == b->window_stride && a->offset == b->offset &&
           b->storage == m->values[a->window_parent].storage;
  if (a->storage != b->storage) return false;
  switch (a->storage) {
    case BERTH_STORAGE_ARENA: return a->pool == b->pool && a->offset == b->offset;
    case BERTH_STORAGE_CONST:
    case BERTH_STORAGE_STATE: return a->offset == b->offset;
    default: return a->index == b->index;
  }
}

static bool instrs_equal(const berth_instr_t *a, const berth_instr_t *b) {
  if (a->opcode != b->opcode) return false;
  switch (a->opcode) {
    case BERTH_I_KERNEL:
      return a->op == b->op && a->n_in == b->n_in && a->n_out == b->n_out && a->operands == b->operands &&
             (berth_op_get(a->op)->n_attrs == 0 || a->attrs == b->attrs);
    case BERTH_I_COPY:
    case BERTH_I_RENAME: return a->operands == b->operands;
    case BERTH_I_JUMP: return a->target == b->target;
    case BERTH_I_JUMP_IF_FALSE: return a->operands == b->operands && a->target == b->target;
    case BERTH_I_LOOP_INIT: return a->reg == b->reg;
    case BERTH_I_LOOP_NEXT: return a->reg == b->reg && a->target == b->target && a->count == b->count;
    case BERTH_I_ASSERT: return a->op == b->op && a->operands == b->operands && a->attrs == b->attrs;
    default: return true;
  }
}

static void check_decoded(const char *label, const berth_exec_program_t *a, const berth_exec_program_t *b) {
  CHECK_MSG(a->alloc_inputs == b->alloc_inputs && a->alloc_outputs == b->alloc_outputs, "%s: flags", label);
  CHECK_MSG(a->constants_size == b->constants_size &&
                (a->constants_size == 0 || memcmp(a->constants, b->constants, a->constants_size) == 0),
            "%s: constants", label);
  CHECK_MSG(a->n_methods == b->n_methods, "%s: methods", label);
  for (int32_t mi = 0; mi < a->n_methods && mi < b->n_methods; mi++) {
    const berth_exec_method_t *x = &a->methods[mi], *y = &b->methods[mi];
    bool ok = strcmp(x->name, y->name) == 0 && x->n_values == y->n_values && x->n_instrs == y->n_instrs &&
              x->n_operands == y->n_operands && x->n_attrs == y->n_attrs && x->n_inputs == y->n_inputs &&
              x->n_outputs == y->n_outputs && x->n_regs == y->n_regs && x->n_pools == y->n_pools &&
              x->state_size == y->state_size && x->alignment == y->alignment;
    CHECK_MSG(ok, "%s: method %d counts differ", label, (int)mi);
    if (!ok) continue;
    for (int32_t v = 0; v < x->n_values; v++)
      CHECK_MSG(values_equal(x, &x->values[v], &y->values[v]), "%s: value %d (%s) differs", label, (int)v, x->values[v].name);
    for (int32_t i = 0; i < x->n_instrs; i++)
      CHECK_MSG(instrs_equal(&x->instrs[i], &y->instrs[i]), "%s: instruction %d differs", label, (int)i);
    CHECK(x->n_operands == 0 || memcmp(x->operands, y->operands, (size_t)x->n_operands * 4) == 0);
    for (int32_t k = 0; k < x->n_attrs; k++) {
      const berth_attr_value_t *p = &x->attrs[k], *q = &y->attrs[k];
      CHECK_MSG(p->i == q->i && memcmp(&p->f, &q->f, sizeof p->f) == 0 && p->n == q->n &&
                    memcmp(p->ints, q->ints, sizeof p->ints) == 0 &&
                    ((!p->s && !q->s) || (p->s && q->s && strcmp(p->s, q->s) == 0)),
                "%s: attribute %d differs", label, (int)k);
    }
    CHECK(x->n_inputs == 0 || memcmp(x->inputs, y->inputs, (size_t)x->n_inputs * 4) == 0);
    CHECK(x->n_outputs == 0 || memcmp(x->outputs, y->outputs, (size_t)x->n_outputs * 4) == 0);
    CHECK(x->n_pools == 0 || memcmp(x->pool_sizes, y->pool_sizes, (size_t)x->n_pools * 8) == 0);
    CHECK(x->state_size == 0 || memcmp(x->state_init, y->state_init, (size_t)x->state_size) == 0);
  }
}

/* ---- one round trip ------------------------------------------------------------------------ */

typedef struct rt_opts {
  int alloc_inputs, alloc_outputs;
  bool separate_arenas;
  bool with_ref; /* also compare with the reference interpreter */
  int n_calls;
  uint64_t seed;
} rt_opts_t;

static int rt_programs, rt_skipped;

/* The IR section gives back the IR exactly (the same canonical text), and every constant is
 * stored by reference into the constants section, not a second time. */
static void check_ir_section(const char *label, const berth_ir_program_t *p, const berth_format_program_t *fp) {
  char msg[1024], pools[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *back = NULL;
  CHECK_MSG(fp->ir_section == BERTH_SECTION_IR_REF, "%s: section %u, not ir_ref", label, (unsigned)fp->ir_section);
  CHECK_MSG(berth_ir_section_program(fp, label, NULL, pools, sizeof pools, &back, &d) == BERTH_OK &&
                berth_ir_validate(back, &d) == BERTH_OK,
            "%s: IR section: %s", label, msg);
  char *t1 = berth_ir_print(p), *t2 = back ? berth_ir_print(back) : NULL;
  CHECK_MSG(t1 && t2 && strcmp(t1, t2) == 0, "%s: the IR section does not give back the IR", label);
  free(t1);
  free(t2);
  berth_ir_program_destroy(back);
  berth_format_ir_ref_t ir;
  CHECK_MSG(berth_format_ir_ref_open(fp->ir, fp->ir_size, 0, fp->exec.constants_size, &ir, &d) == BERTH_OK, "%s: %s", label, msg);
  CHECK_MSG(ir.n_globals == (uint32_t)p->n_globals, "%s: %u records for %d globals", label, (unsigned)ir.n_globals,
            (int)p->n_globals);
  for (uint32_t k = 0; k < ir.n_globals && k < (uint32_t)p->n_globals; k++) {
    berth_format_ir_global_t g;
    berth_format_ir_ref_global(&ir, k, &g);
    CHECK_MSG(p->globals[k].is_state || g.where == BERTH_FORMAT_IR_IN_CONSTANTS,
              "%s: constant %u is stored inline, not by reference", label, (unsigned)k);
  }
}

static void round_trip(const char *label, const berth_ir_program_t *p, const rt_opts_t *o) {
  char msg[2048];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_plan_options_t po = berth_plan_options_default();
  po.alloc_inputs = o->alloc_inputs;
  po.alloc_outputs = o->alloc_outputs;
  berth_compiled_t *c = NULL;
  if (berth_plan_compile(p, &po, &c, &d) != BERTH_OK) {
    /* a plan the compiler rejects is the planner's business (tests/test_plan.c, the fuzzer) */
    rt_skipped++;
    return;
  }
  rt_programs++;
  berth_format_write_options_t wo = berth_format_write_options_default();
  wo.ir = p;
  wo.store_ir = true;
  wo.plan = &po;
  uint8_t *bytes = NULL, *bytes2 = NULL;
  size_t len = 0, len2 = 0;
  CHECK_MSG(berth_format_write(&c->exec, &wo, &bytes, &len, &d) == BERTH_OK, "%s: write: %s", label, msg);
  CHECK_MSG(berth_format_write(&c->exec, &wo, &bytes2, &len2, &d) == BERTH_OK, "%s: write: %s", label, msg);
  CHECK_MSG(bytes && bytes2 && len == len2 && memcmp(bytes, bytes2, len) == 0, "%s: writing is not deterministic", label);
  free(bytes2);
  if (!bytes) {
    berth_compiled_destroy(c);
    return;
  }
  /* structural equality through the internal reader */
  berth_format_sizes_t fs;
  CHECK_MSG(berth_format_read_size(bytes, len, &fs, &d) == BERTH_OK, "%s: read_size: %s", label, msg);
  void *fmem = malloc(fs.program_bytes), *fscratch = malloc(fs.scratch_bytes);
  const berth_format_program_t *fp = NULL;
  CHECK_MSG(berth_format_read(bytes, len, fmem, fs.program_bytes, fscratch, fs.scratch_bytes, 0, &fp, &d) == BERTH_OK,
            "%s: read: %s", label, msg);
  if (fp) {
    check_decoded(label, &c->exec, &fp->exec);
    CHECK_MSG(fp->verified && fp->ir != NULL, "%s: not verified or no IR section", label);
    check_ir_section(label, p, fp);
  }
  free(fmem);
  free(fscratch);

  /* the public API */
  berth_program_sizes_t sz;
  CHECK_MSG(berth_program_query(bytes, len, &sz, &d) == BERTH_OK, "%s: query: %s", label, msg);
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
  berth_program_t *prog = NULL;
  CHECK_MSG(berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &d) == BERTH_OK,
            "%s: load: %s", label, msg);
  free(scratch);
  berth_session_t *sess = NULL;
  CHECK_MSG(berth_session_create(&c->exec, false, &sess, &d) == BERTH_OK, "%s: session: %s", label, msg);
  berth_ref_t *ref = NULL;
  if (o->with_ref) CHECK_MSG(berth_ref_create(p, &ref, &d) == BERTH_OK, "%s: reference: %s", label, msg);
  if (!prog || !sess || (o->with_ref && !ref)) goto done;
  CHECK(berth_program_method_count(prog) == p->n_methods);
  CHECK(berth_program_inputs_planned(prog) == c->exec.alloc_inputs);
  CHECK(berth_program_outputs_planned(prog) == c->exec.alloc_outputs);
  for (int32_t mi = 0; mi < p->n_methods; mi++) {
    const berth_ir_method_t *im = &p->methods[mi];
    const berth_ir_graph_t *body = &im->graphs[im->body];
    CHECK(berth_program_method_find(prog, im->name) == mi);
    CHECK(strcmp(berth_program_method_name(prog, mi), im->name) == 0);
    int32_t n_in = berth_program_input_count(prog, mi), n_out = berth_program_output_count(prog, mi);
    CHECK(n_in == body->n_params && n_out == body->n_results);
    if (n_in != body->n_params || n_out != body->n_results) continue;
    for (int32_t k = 0; k < n_in; k++) {
      berth_tensor_info_t info;
      CHECK(berth_program_input_info(prog, mi, k, &info) == BERTH_OK);
      CHECK(strcmp(info.name, im->values[body->params[k]].name) == 0);
      CHECK(berth_type_equal(&info.type, &im->values[body->params[k]].type));
    }
    for (int32_t k = 0; k < n_out; k++) {
      berth_tensor_info_t info;
      CHECK(berth_program_output_info(prog, mi, k, &info) == BERTH_OK);
      CHECK(strcmp(info.name, im->values[body->results[k]].name) == 0);
      CHECK(berth_type_equal(&info.type, &im->values[body->results[k]].type));
    }
    /* method memory: carved, or arenas placed by the caller */
    void *mmem = NULL;
    berth_arena_t arenas[BERTH_FORMAT_MAX_POOLS] = {{0}};
    int32_t n_pools = berth_program_pool_count(prog, mi);
    size_t need;
    if (o->separate_arenas) {
      need = berth_method_handle_size(prog, mi);
      size_t al = berth_program_arena_alignment(prog, mi);
      for (int32_t k = 0; k < n_pools; k++) {
        size_t ps = (size_t)berth_program_pool_size(prog, mi, k);
        /* exactly the pool's size (rounded up only for aligned_alloc): ASan sees a write past it */
        arenas[k].data = aligned_alloc(al, (ps + al - 1) / al * al + (ps ? 0 : al));
        arenas[k].bytes = ps;
        memset(arenas[k].data, 0xA5, ps);
      }
    } else {
      need = berth_method_memory_size(prog, mi);
    }
    mmem = malloc(need + 1);
    memset(mmem, 0xA5, need + 1);
    berth_method_t *h = NULL;
    /* an odd address: the runtime aligns the block itself */
    if (o->separate_arenas)
      for (int32_t k = 0; k < n_pools; k++) {
        /* an arena one byte short, and a wrong arena count, fail at init (not at execute) */
        if (arenas[k].bytes == 0) continue;
        arenas[k].bytes--;
        CHECK_MSG(berth_method_init(prog, mi, (uint8_t *)mmem + 1, need, arenas, n_pools, &h, &d) ==
                          BERTH_ERR_RESOURCE_EXHAUSTED &&
                      strstr(msg, "arena") && h == NULL,
                  "%s: an arena one byte short was accepted (%s)", label, msg);
        arenas[k].bytes++;
        CHECK(berth_method_init(prog, mi, (uint8_t *)mmem + 1, need, arenas, n_pools + 1, &h, &d) ==
                  BERTH_ERR_INVALID_ARGUMENT &&
              h == NULL);
      }
    CHECK_MSG(berth_method_init(prog, mi, (uint8_t *)mmem + 1, need, o->separate_arenas ? arenas : NULL,
                                o->separate_arenas ? n_pools : 0, &h, &d) == BERTH_OK,
              "%s: init: %s", label, msg);
    uint64_t s = o->seed;
    void **ins = calloc((size_t)n_in + 1, sizeof *ins), **api_out = calloc((size_t)n_out + 1, sizeof *api_out);
    for (int call = 0; h && call < o->n_calls; call++) {
      for (int32_t k = 0; k < n_in; k++) ins[k] = random_tensor(&im->values[body->params[k]].type, &s);
      void **sess_out = calloc((size_t)n_out + 1, sizeof *sess_out), **ref_out = calloc((size_t)n_out + 1, sizeof *ref_out);
      /* random inputs may fail a run-time check (an index out of range): then every path must
       * fail the same check */
      berth_status_t sess_st = berth_session_call(sess, mi, (const void *const *)ins, sess_out, &d);
      bool trapped = sess_st == BERTH_ERR_CHECK_FAILED;
      CHECK_MSG(sess_st == BERTH_OK || trapped, "%s: session call: %s", label, msg);
      if (ref) {
        berth_status_t ref_st = berth_ref_call(ref, mi, (const void *const *)ins, ref_out, &d);
        CHECK_MSG(ref_st == sess_st, "%s: reference: %s (the session gave %s)", label, msg, berth_status_name(sess_st));
      }
      for (int32_t k = 0; k < n_in; k++) {
        berth_tensor_info_t info;
        berth_program_input_info(prog, mi, k, &info);
        CHECK_MSG(berth_method_set_input(h, k, ins[k], info.bytes, &d) == BERTH_OK, "%s: set_input: %s", label, msg);
      }
      if (!berth_program_outputs_planned(prog))
        for (int32_t k = 0; k < n_out; k++) {
          berth_tensor_info_t info;
          berth_program_output_info(prog, mi, k, &info);
          if (!api_out[k]) api_out[k] = malloc(info.bytes ? info.bytes : 1);
          memset(api_out[k], 0x5A, info.bytes);
          CHECK_MSG(berth_method_set_output(h, k, api_out[k], info.bytes, &d) == BERTH_OK, "%s: set_output: %s", label, msg);
        }
      forbidden_calls = 0;
      forbid = 1;
      berth_status_t st = berth_method_execute(h, &d);
      forbid = 0;
      CHECK_MSG(st == (trapped ? BERTH_ERR_CHECK_FAILED : BERTH_OK), "%s (seed %llu): execute call %d: %s", label,
                (unsigned long long)o->seed, call + 1, msg);
      CHECK_MSG(forbidden_calls == 0, "%s: %ld heap calls during execute", label, forbidden_calls);
      for (int32_t k = 0; st == BERTH_OK && k < n_out; k++) {
        const void *data = NULL;
        size_t bytes_out = 0;
        CHECK(berth_method_output(h, k, &data, &bytes_out, &d) == BERTH_OK);
        size_t want = berth_type_bytes(&im->values[body->results[k]].type);
        CHECK(bytes_out == want);
        if (!berth_program_outputs_planned(prog) && want)
          CHECK_MSG(data == api_out[k], "%s: output %d is not in the caller's buffer", label, (int)k);
        if (data && sess_out[k])
          CHECK_MSG(memcmp(data, sess_out[k], want) == 0, "%s (seed %llu): call %d output %d differs from the planned session",
                    label, (unsigned long long)o->seed, call + 1, (int)k);
        if (data && ref_out[k])
          CHECK_MSG(memcmp(data, ref_out[k], want) == 0, "%s (seed %llu): call %d output %d differs from the reference",
                    label, (unsigned long long)o->seed, call + 1, (int)k);
      }
      for (int32_t k = 0; k < n_out; k++) {
        free(sess_out[k]);
        free(ref_out[k]);
      }
      free(sess_out);
      free(ref_out);
      for (int32_t k = 0; k < n_in; k++) free(ins[k]);
    }
    for (int32_t k = 0; k < n_out; k++) free(api_out[k]);
    free(api_out);
    free(ins);
    free(mmem);
    for (int k = 0; k < BERTH_FORMAT_MAX_POOLS; k++) free(arenas[k].data);
  }
done:
  berth_ref_destroy(ref);
  berth_session_destroy(sess);
  free(pmem);
  free(bytes);
  berth_compiled_destroy(c);
}

static void all_combos(const char *label, const berth_ir_program_t *p, bool with_ref, uint64_t seed) {
  for (int combo = 0; combo < 4; combo++) {
    rt_opts_t o = {combo & 1, combo >> 1, combo == 3, with_ref, 4, seed + (uint64_t)combo};
    char l[512];
    snprintf(l, sizeof l, "%s [alloc_inputs=%d alloc_outputs=%d%s]", label, o.alloc_inputs, o.alloc_outputs,
             o.separate_arenas ? ", caller arenas" : "");
    round_trip(l, p, &o);
  }
}

static int examples(void) {
  char root[1024];
  snprintf(root, sizeof root, "%s/examples", BERTH_SOURCE_DIR);
  DIR *d = opendir(root);
  CHECK_MSG(d != NULL, "cannot open %s", root);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e = readdir(d); e; e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char sub[2048];
    snprintf(sub, sizeof sub, "%s/%s", root, e->d_name);
    DIR *d2 = opendir(sub);
    if (!d2) continue;
    for (struct dirent *f = readdir(d2); f; f = readdir(d2)) {
      size_t l = strlen(f->d_name);
      if (l < 5 || strcmp(f->d_name + l - 4, ".bir") != 0) continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
      berth_ir_program_t *p = parse_file(path);
      if (!p) continue;
      all_combos(path, p, true, 1000 + (uint64_t)n);
      berth_ir_program_destroy(p);
      n++;
    }
    closedir(d2);
  }
  closedir(d);
  return n;
}

static void random_programs(int count, uint64_t seed0) {
  berth_fuzzgen_options_t fo = berth_fuzzgen_options_default();
  for (int i = 0; i < count; i++) {
    uint64_t seed = seed0 + (uint64_t)i;
    berth_ir_program_t *p = NULL;
    if (berth_fuzzgen_program(seed, &fo, &p) != BERTH_OK || !p) continue;
    char msg[512];
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    if (berth_ir_validate(p, &d) == BERTH_OK) {
      char label[64];
      snprintf(label, sizeof label, "fuzzgen seed %llu", (unsigned long long)seed);
      all_combos(label, p, false, seed);
    }
    berth_ir_program_destroy(p);
  }
}

/* The ONNX backend node tests (../shared/data/onnx-node-tests, when present): many kernels
 * and attributes. Models the importer or the planner does not take are skipped. */
static int onnx_node_tests(void) {
  char root[1024];
  snprintf(root, sizeof root, "%s/onnx-node-tests", BERTH_DATA_DIR);
  DIR *d = opendir(root);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e = readdir(d); e; e = readdir(d)) {
    if (strncmp(e->d_name, "test_", 5) != 0) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/model.onnx", root, e->d_name);
    size_t len;
    char *bytes = test_read_file(path, &len);
    if (!bytes) continue;
    berth_onnx_options_t oo = berth_onnx_options_default();
    berth_ir_program_t *p = NULL;
    berth_onnx_info_t info;
    memset(&info, 0, sizeof info);
    char msg[1024];
    berth_diag_t dg = berth_diag_make(msg, sizeof msg);
    if (berth_onnx_import(bytes, len, &oo, &p, &info, &dg) == BERTH_OK && p) {
      for (int combo = 0; combo < 4; combo += 3) {
        rt_opts_t o = {combo & 1, combo >> 1, false, false, 2, 77 + (uint64_t)n};
        char l[512];
        snprintf(l, sizeof l, "%s [alloc_inputs=%d alloc_outputs=%d]", e->d_name, o.alloc_inputs, o.alloc_outputs);
        round_trip(l, p, &o);
      }
      n++;
    }
    berth_onnx_info_deinit(&info);
    berth_ir_program_destroy(p);
    free(bytes);
  }
  closedir(d);
  return n;
}

/* ---- API contract --------------------------------------------------------------------------- */

static uint8_t *compile_file(const char *rel, const berth_plan_options_t *po, size_t *len) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", BERTH_SOURCE_DIR, rel);
  berth_ir_program_t *p = parse_file(path);
  if (!p) return NULL;
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_compiled_t *c = NULL;
  uint8_t *bytes = NULL;
  CHECK_MSG(berth_plan_compile(p, po, &c, &d) == BERTH_OK, "%s: %s", rel, msg);
  if (c) CHECK_MSG(berth_format_write(&c->exec, NULL, &bytes, len, &d) == BERTH_OK, "%s: %s", rel, msg);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  return bytes;
}

typedef struct loaded {
  berth_program_t *prog;
  void *pmem;
} loaded_t;

static bool load(const uint8_t *bytes, size_t len, loaded_t *l) {
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_program_sizes_t sz;
  memset(l, 0, sizeof *l);
  if (berth_program_query(bytes, len, &sz, &d) != BERTH_OK) return false;
  l->pmem = malloc(sz.program_bytes);
  void *scratch = malloc(sz.scratch_bytes);
  berth_status_t st = berth_program_load(bytes, len, l->pmem, sz.program_bytes, scratch, sz.scratch_bytes, &l->prog, &d);
  free(scratch);
  CHECK_MSG(st == BERTH_OK, "load: %s", msg);
  return st == BERTH_OK;
}

static void api_contract(void) {
  berth_plan_options_t po = berth_plan_options_default();
  size_t len = 0;
  uint8_t *bytes = compile_file("examples/seed/seed.bir", &po, &len);
  if (!bytes) return;
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  loaded_t l;
  CHECK(berth_program_is_berth(bytes, len));
  CHECK(!berth_program_is_berth("func @f", 7));
  if (!load(bytes, len, &l)) {
    free(bytes);
    return;
  }
  berth_program_t *prog = l.prog;
  CHECK(berth_program_method_find(prog, "nope") == -1);
  CHECK(berth_program_method_name(prog, 7) == NULL);
  CHECK(berth_program_input_count(prog, 3) == -1);
  berth_tensor_info_t info;
  CHECK(berth_program_input_info(prog, 0, 1, &info) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_program_state_size(prog, 0) == 8);
  /* too little memory */
  int32_t m = berth_program_method_find(prog, "forward");
  size_t need = berth_method_memory_size(prog, m);
  void *mem = malloc(need);
  berth_method_t *h = (berth_method_t *)(uintptr_t)1;
  CHECK(berth_method_init(prog, m, mem, need - 65, NULL, 0, &h, &d) == BERTH_ERR_RESOURCE_EXHAUSTED && msg[0]);
  CHECK(h == (berth_method_t *)(uintptr_t)1);
  CHECK(berth_method_init(prog, 9, mem, need, NULL, 0, &h, &d) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_method_init(prog, m, mem, need, NULL, 0, &h, &d) == BERTH_OK);
  const void *o0, *o1;
  size_t nb;
  CHECK(berth_method_output(h, 0, &o0, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT &&
        strcmp(msg, "method forward has no outputs yet: it has not been executed") == 0);
  /* unbound input, wrong size, planned outputs cannot be bound, no output after a failed execute */
  CHECK(berth_method_execute(h, &d) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "input 0 is not bound"));
  double x5 = 5.0, x6 = 6.0, dummy[1];
  CHECK(berth_method_set_input(h, 0, &x5, 4, &d) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "4 bytes given, 8 expected"));
  CHECK(berth_method_set_input(h, 1, &x5, 8, &d) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_method_set_output(h, 0, dummy, 8, &d) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "planned"));
  CHECK(berth_method_output(h, 0, &o0, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "its last execute failed"));
  /* the seed: (5,5) then (6,7); after reset, state is NaN again: (6,6) */
  double want[3][2] = {{5, 5}, {6, 7}, {6, 6}};
  double *in[3] = {&x5, &x6, &x6};
  for (int call = 0; call < 3; call++) {
    if (call == 2) berth_method_reset(h);
    CHECK(berth_method_set_input(h, 0, in[call], 8, &d) == BERTH_OK);
    CHECK_MSG(berth_method_execute(h, &d) == BERTH_OK, "%s", msg);
    CHECK(berth_method_output(h, 0, &o0, &nb, &d) == BERTH_OK && nb == 8);
    CHECK(berth_method_output(h, 1, &o1, &nb, &d) == BERTH_OK && nb == 8);
    CHECK_MSG(*(const double *)o0 == want[call][0] && *(const double *)o1 == want[call][1], "call %d: (%g, %g)", call + 1,
              *(const double *)o0, *(const double *)o1);
  }
  /* every reason berth_method_output has nothing to give is named */
  CHECK(berth_method_output(h, 2, &o0, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT &&
        strcmp(msg, "method forward has no output 2 (2 outputs)") == 0);
  CHECK(berth_method_output(h, -1, &o0, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "has no output -1"));
  CHECK(berth_method_output(h, 0, NULL, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT &&
        strcmp(msg, "berth_method_output: data is NULL") == 0);
  CHECK(berth_method_output(NULL, 0, &o0, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT &&
        strcmp(msg, "berth_method_output: not a method handle") == 0);
  CHECK(berth_method_output(h, 0, &o0, NULL, NULL) == BERTH_OK); /* bytes and diag may be NULL */
  berth_method_reset(h);
  CHECK(berth_method_output(h, 0, &o0, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT &&
        strcmp(msg, "method forward has no outputs: berth_method_reset was called after its last execute") == 0);
  free(mem);
  free(l.pmem);
  /* a failed execute (here: a planned input not bound again) leaves no outputs, not the
   * previous call's */
  free(bytes);
  berth_plan_options_t pin = po;
  pin.alloc_inputs = 1;
  bytes = compile_file("examples/seed/seed.bir", &pin, &len);
  if (bytes && load(bytes, len, &l)) {
    CHECK(berth_program_inputs_planned(l.prog));
    need = berth_method_memory_size(l.prog, m);
    mem = malloc(need);
    CHECK(berth_method_init(l.prog, m, mem, need, NULL, 0, &h, &d) == BERTH_OK);
    CHECK(berth_method_set_input(h, 0, &x5, 8, &d) == BERTH_OK);
    CHECK_MSG(berth_method_execute(h, &d) == BERTH_OK, "%s", msg);
    CHECK(berth_method_output(h, 0, &o0, &nb, &d) == BERTH_OK);
    CHECK(berth_method_execute(h, &d) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "not bound"));
    CHECK_MSG(berth_method_output(h, 0, &o0, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT &&
                  strcmp(msg, "method forward has no outputs: its last execute failed (berth_method_execute's message says why)") == 0,
              "after a failed execute, berth_method_output still gave the previous call's output, or said %s", msg);
    /* a planned input is copied into the arena the outputs live in: they are gone */
    CHECK(berth_method_set_input(h, 0, &x6, 8, &d) == BERTH_OK);
    CHECK_MSG(berth_method_execute(h, &d) == BERTH_OK, "%s", msg);
    CHECK(berth_method_set_input(h, 0, &x5, 8, &d) == BERTH_OK);
    CHECK(berth_method_output(h, 1, &o1, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT &&
          strstr(msg, "method forward has no outputs: input 0 was bound after the last execute"));
    free(mem);
    free(l.pmem);
  }
  /* outputs in the caller's buffers: binding one again ends the reading of all */
  free(bytes);
  berth_plan_options_t pout = po;
  pout.alloc_outputs = 0;
  bytes = compile_file("examples/seed/seed.bir", &pout, &len);
  if (bytes && load(bytes, len, &l)) {
    CHECK(!berth_program_outputs_planned(l.prog));
    need = berth_method_memory_size(l.prog, m);
    mem = malloc(need);
    double r0[1], r1[1];
    CHECK(berth_method_init(l.prog, m, mem, need, NULL, 0, &h, &d) == BERTH_OK);
    CHECK(berth_method_set_output(h, 0, r0, 8, &d) == BERTH_OK && berth_method_set_output(h, 1, r1, 8, &d) == BERTH_OK);
    CHECK(berth_method_set_input(h, 0, &x5, 8, &d) == BERTH_OK);
    CHECK_MSG(berth_method_execute(h, &d) == BERTH_OK, "%s", msg);
    CHECK(berth_method_output(h, 1, &o1, &nb, &d) == BERTH_OK && o1 == (const void *)r1 && nb == 8);
    CHECK(berth_method_set_output(h, 0, r0, 8, &d) == BERTH_OK);
    CHECK(berth_method_output(h, 1, &o1, &nb, &d) == BERTH_ERR_INVALID_ARGUMENT &&
          strcmp(msg, "method forward has no outputs: the buffer of output 0 was bound after the last execute") == 0);
    free(mem);
    free(l.pmem);
  }
  /* misaligned program bytes */
  uint8_t *shifted = malloc(len + 8);
  memcpy(shifted + 4, bytes, len);
  berth_program_sizes_t sz;
  CHECK(berth_program_query(shifted + 4, len, &sz, &d) == BERTH_OK);
  void *pm = malloc(sz.program_bytes), *sc = malloc(sz.scratch_bytes);
  berth_program_t *pp = NULL;
  CHECK(berth_program_load(shifted + 4, len, pm, sz.program_bytes, sc, sz.scratch_bytes, &pp, &d) ==
            BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "8-byte aligned"));
  CHECK(berth_program_load(bytes, len, pm, sz.program_bytes - 1, sc, sz.scratch_bytes, &pp, &d) ==
        BERTH_ERR_RESOURCE_EXHAUSTED && strstr(msg, "bytes of memory"));
  CHECK(berth_program_load(bytes, len, pm, sz.program_bytes, sc, sz.scratch_bytes - 1, &pp, &d) ==
        BERTH_ERR_RESOURCE_EXHAUSTED);
  CHECK(pp == NULL);
  free(pm);
  free(sc);
  free(shifted);
  free(bytes);

  /* the step limit ends a long loop with an error, and the method works again after reset */
  bytes = compile_file("examples/while_loop/countdown.bir", &po, &len);
  if (bytes && load(bytes, len, &l)) {
    need = berth_method_memory_size(l.prog, 0);
    mem = malloc(need);
    CHECK(berth_method_init(l.prog, 0, mem, need, NULL, 0, &h, &d) == BERTH_OK);
    int64_t n = 1000000;
    float xs[2] = {1, 2}, acc[2];
    int64_t i_final;
    bool planned_out = berth_program_outputs_planned(l.prog);
    if (!planned_out) {
      CHECK(berth_method_set_output(h, 0, &i_final, 8, &d) == BERTH_OK);
      CHECK(berth_method_set_output(h, 1, acc, 8, &d) == BERTH_OK);
    }
    CHECK(berth_method_set_input(h, 0, &n, 8, &d) == BERTH_OK);
    CHECK(berth_method_set_input(h, 1, xs, 8, &d) == BERTH_OK);
    berth_method_set_max_steps(h, 1000);
    CHECK(berth_method_execute(h, &d) == BERTH_ERR_OUT_OF_RANGE && strstr(msg, "more than 1000 loop iterations in one call"));
    berth_method_reset(h);
    berth_method_set_max_steps(h, 0);
    n = 3;
    CHECK(berth_method_set_input(h, 0, &n, 8, &d) == BERTH_OK);
    CHECK(berth_method_set_input(h, 1, xs, 8, &d) == BERTH_OK);
    CHECK_MSG(berth_method_execute(h, &d) == BERTH_OK, "%s", msg);
    CHECK(berth_method_output(h, 1, &o1, &nb, &d) == BERTH_OK && ((const float *)o1)[0] == 3 && ((const float *)o1)[1] == 6);
    free(mem);
    free(l.pmem);
  }
  free(bytes);
}

/* A failing assert ends execute with BERTH_ERR_CHECK_FAILED and the program's message, with
 * no heap call; the outputs are then unavailable, and the next call runs normally. */
static void api_assert(void) {
  char path[2048];
  snprintf(path, sizeof path, "%s/tests/bir/assert.bir", BERTH_SOURCE_DIR);
  berth_ir_program_t *p = parse_file(path);
  if (p) all_combos("tests/bir/assert.bir", p, true, 4242);
  berth_ir_program_destroy(p);
  for (int planned_out = 0; planned_out < 2; planned_out++) {
    berth_plan_options_t po = berth_plan_options_default();
    po.alloc_outputs = planned_out;
    size_t len = 0;
    uint8_t *bytes = compile_file("tests/bir/assert.bir", &po, &len);
    loaded_t l;
    if (!bytes || !load(bytes, len, &l)) {
      free(bytes);
      continue;
    }
    char msg[1024];
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    size_t need = berth_method_memory_size(l.prog, 0);
    void *mem = malloc(need);
    berth_method_t *h = NULL;
    CHECK(berth_method_init(l.prog, 0, mem, need, NULL, 0, &h, &d) == BERTH_OK);
    double y = 0;
    int64_t mo = 0;
    if (!planned_out) {
      CHECK(berth_method_set_output(h, 0, &y, 8, &d) == BERTH_OK);
      CHECK(berth_method_set_output(h, 1, &mo, 8, &d) == BERTH_OK);
    }
    static const struct {
      double x;
      int64_t n;
      const char *fails; /* NULL: passes */
      double y;
      int64_t m;
    } calls[] = {
        {3, -4, NULL, 6, 4},
        {11, 5, "run-time check failed at instruction 1 (%small is false): x must be at most 10", 0, 0},
        {2, 100, "(%under is false): n must be below 100 (a \"large\" n)", 0, 0},
        {1, 7, NULL, 2, 7},
    };
    for (size_t k = 0; h && k < sizeof calls / sizeof calls[0]; k++) {
      CHECK(berth_method_set_input(h, 0, &calls[k].x, 8, &d) == BERTH_OK);
      CHECK(berth_method_set_input(h, 1, &calls[k].n, 8, &d) == BERTH_OK);
      forbidden_calls = 0;
      forbid = 1;
      berth_status_t st = berth_method_execute(h, &d);
      forbid = 0;
      CHECK_MSG(forbidden_calls == 0, "assert call %zu: %ld heap calls during execute", k + 1, forbidden_calls);
      const void *o0 = NULL, *o1 = NULL;
      if (calls[k].fails) {
        CHECK_MSG(st == BERTH_ERR_CHECK_FAILED && strstr(msg, calls[k].fails), "assert call %zu: %s: %s", k + 1,
                  berth_status_name(st), msg);
        CHECK(berth_method_output(h, 0, &o0, NULL, &d) == BERTH_ERR_INVALID_ARGUMENT && strstr(msg, "its last execute failed"));
      } else {
        CHECK_MSG(st == BERTH_OK, "assert call %zu: %s", k + 1, msg);
        CHECK(berth_method_output(h, 0, &o0, NULL, &d) == BERTH_OK && berth_method_output(h, 1, &o1, NULL, &d) == BERTH_OK);
        CHECK_MSG(o0 && o1 && *(const double *)o0 == calls[k].y && *(const int64_t *)o1 == calls[k].m,
                  "assert call %zu: outputs", k + 1);
      }
    }
    free(mem);
    free(l.pmem);
    free(bytes);
  }
}

/* ---- the command-line tool on .berth files ------------------------------------------------- */

static char *run_cmd(const char *cmd, int *rc) {
  FILE *f = popen(cmd, "r");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (len + 1 == cap) buf = realloc(buf, cap *= 2);
  }
  int st = pclose(f);
  if (rc) *rc = st;
  if (buf) buf[len] = 0;
  return buf;
}

/* Drops "time_ms":N and "planned in N ms" / plan-ms columns so plan outputs compare. */
static void strip_times(char *s) {
  char *p;
  while ((p = strstr(s, "\"time_ms\":")) != NULL) {
    char *e = p + 10;
    while (*e && (*e == '.' || (*e >= '0' && *e <= '9'))) e++;
    memmove(p, e, strlen(e) + 1);
  }
}

static void cli(void) {
  char dir[] = "/tmp/berth_format_XXXXXX";
  if (!mkdtemp(dir)) {
    CHECK_MSG(0, "mkdtemp failed");
    return;
  }
  static const struct {
    const char *bir, *calls;
  } progs[] = {
      {"examples/seed/seed.bir", "--call 'f64[1]:5.0' --call 'f64[1]:6.0'"},
      {"examples/while_loop/countdown.bir", "--call 'i64[]:3 f32[2]:1,2' --call 'i64[]:0 f32[2]:1,2'"},
      {"examples/scan/scan.bir", "--call 'f32[4]:1,2,3,4'"},
      {"examples/map/map.bir", "--call 'f32[3,2]:1,2,3,4,5,6 f32[2]:10,20'"},
      {"tests/bir/assert.bir", "--call 'f64[1]:3 i64[]:-4' --call 'f64[1]:1 i64[]:7'"},
  };
  static const char *modes[] = {"", "--json", "--sanitize", "--reference", "--algo exact --sanitize",
                                "--alloc-inputs 1 --alloc-outputs 0"};
  char cmd[8192];
  int rc;
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
    char out[1024];
    snprintf(out, sizeof out, "%s/p%zu.berth", dir, i);
    snprintf(cmd, sizeof cmd, "'%s' compile '%s/%s' -o '%s' 2>&1", BERTH_TOOL, BERTH_SOURCE_DIR, progs[i].bir, out);
    char *o = run_cmd(cmd, &rc);
    CHECK_MSG(rc == 0 && o && strstr(o, "wrote"), "%s: %s", cmd, o ? o : "");
    free(o);
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
      snprintf(cmd, sizeof cmd, "'%s' run '%s/%s' %s %s 2>&1", BERTH_TOOL, BERTH_SOURCE_DIR, progs[i].bir, progs[i].calls, modes[k]);
      char *a = run_cmd(cmd, &rc);
      CHECK_MSG(rc == 0, "%s", cmd);
      snprintf(cmd, sizeof cmd, "'%s' run '%s' %s %s 2>&1", BERTH_TOOL, out, progs[i].calls, modes[k]);
      char *b = run_cmd(cmd, &rc);
      CHECK_MSG(rc == 0 && a && b && strcmp(a, b) == 0, "%s: differs from the .bir:\n%s\nvs\n%s", cmd, a ? a : "", b ? b : "");
      free(a);
      free(b);
    }
    static const char *others[] = {"check", "plan --json"};
    for (size_t k = 0; k < 2; k++) {
      snprintf(cmd, sizeof cmd, "'%s' %s '%s/%s' 2>&1", BERTH_TOOL, others[k], BERTH_SOURCE_DIR, progs[i].bir);
      char *a = run_cmd(cmd, &rc);
      snprintf(cmd, sizeof cmd, "'%s' %s '%s' 2>&1", BERTH_TOOL, others[k], out);
      char *b = run_cmd(cmd, &rc);
      if (a && b) {
        strip_times(a);
        strip_times(b);
      }
      CHECK_MSG(rc == 0 && a && b && strcmp(a, b) == 0, "%s: differs from the .bir", cmd);
      free(a);
      free(b);
    }
    snprintf(cmd, sizeof cmd, "'%s' dis '%s' 2>&1", BERTH_TOOL, out);
    char *dis = run_cmd(cmd, &rc);
    CHECK_MSG(rc == 0 && dis && strstr(dis, "instructions:") && strstr(dis, "return"), "%s", cmd);
    free(dis);
  }
  /* --no-ir: runs from the stored plan; --reference, plan and check need the IR section */
  char out[1024];
  snprintf(out, sizeof out, "%s/noir.berth", dir);
  snprintf(cmd, sizeof cmd, "'%s' compile '%s/examples/seed/seed.bir' --no-ir --algo exact -o '%s' >/dev/null 2>&1 && '%s' run '%s' %s 2>&1",
           BERTH_TOOL, BERTH_SOURCE_DIR, out, BERTH_TOOL, out, progs[0].calls);
  char *o = run_cmd(cmd, &rc);
  CHECK_MSG(rc == 0 && o && strstr(o, "%result2 = f64[1] [7]"), "%s: %s", cmd, o ? o : "");
  free(o);
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --reference %s 2>&1", BERTH_TOOL, out, progs[0].calls);
  o = run_cmd(cmd, &rc);
  CHECK_MSG(rc != 0 && o && strstr(o, "no IR source section"), "%s: %s", cmd, o ? o : "");
  free(o);
  snprintf(cmd, sizeof cmd, "'%s' check '%s' 2>&1", BERTH_TOOL, out);
  o = run_cmd(cmd, &rc);
  CHECK_MSG(rc == 0 && o && strstr(o, "valid program file"), "%s: %s", cmd, o ? o : "");
  free(o);
  /* the ExecuTorch-style plan compiles only unverified, and then never loads */
  snprintf(cmd, sizeof cmd, "'%s' compile '%s/examples/seed/seed.bir' --strategy regions -o '%s/r.berth' 2>&1", BERTH_TOOL,
           BERTH_SOURCE_DIR, dir);
  o = run_cmd(cmd, &rc);
  CHECK_MSG(rc != 0 && o && strstr(o, "%result1"), "%s: %s", cmd, o ? o : "");
  free(o);
  snprintf(cmd, sizeof cmd, "'%s' compile '%s/examples/seed/seed.bir' --strategy regions --no-verify -o '%s/r.berth' 2>&1", BERTH_TOOL,
           BERTH_SOURCE_DIR, dir);
  o = run_cmd(cmd, &rc);
  CHECK_MSG(rc == 0 && o && strstr(o, "not verified"), "%s: %s", cmd, o ? o : "");
  free(o);
  snprintf(cmd, sizeof cmd, "'%s' run '%s/r.berth' --call 'f64[1]:5' 2>&1", BERTH_TOOL, dir);
  o = run_cmd(cmd, &rc);
  CHECK_MSG(rc != 0 && o && strstr(o, "verifier: method forward"), "%s: %s", cmd, o ? o : "");
  free(o);
  snprintf(cmd, sizeof cmd, "'%s' dis --no-verify '%s/r.berth' 2>&1", BERTH_TOOL, dir);
  o = run_cmd(cmd, &rc);
  CHECK_MSG(rc == 0 && o && strstr(o, "NOT verified"), "%s: %s", cmd, o ? o : "");
  free(o);
  snprintf(cmd, sizeof cmd, "'%s' dis /dev/null 2>&1", BERTH_TOOL);
  o = run_cmd(cmd, &rc);
  CHECK_MSG(rc != 0 && o && strstr(o, "not a .berth program file"), "%s: %s", cmd, o ? o : "");
  free(o);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* The step limit means the same in both interpreters and in the API: tests/bir/nested.bir
 * runs a while loop n times, each iteration a scan of 3 steps, each step a map of 2: 10
 * loop iterations per trip, so n = 4 takes exactly 40 steps. A limit of 40 lets the call
 * through, 39 stops it with the same message everywhere; the CLI's --max-steps sets it. */
static void step_limit(void) {
  char path[2048], msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  snprintf(path, sizeof path, "%s/tests/bir/nested.bir", BERTH_SOURCE_DIR);
  berth_ir_program_t *p = parse_file(path);
  if (!p) return;
  berth_plan_options_t po = berth_plan_options_default();
  berth_compiled_t *c = NULL;
  CHECK_MSG(berth_plan_compile(p, &po, &c, &d) == BERTH_OK, "%s", msg);
  size_t len = 0;
  uint8_t *bytes = compile_file("tests/bir/nested.bir", &po, &len);
  loaded_t l;
  if (!c || !bytes || !load(bytes, len, &l)) {
    berth_compiled_destroy(c);
    berth_ir_program_destroy(p);
    free(bytes);
    return;
  }
  float x[2] = {1, 2};
  static const struct {
    int64_t n;
    uint64_t max;
    bool ok;
  } cases[] = {{4, 40, true}, {4, 39, false}, {1, 10, true}, {1, 9, false}, {0, 1, true}, {0, 0, true}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char want[160];
    snprintf(want, sizeof want, "method forward: more than %llu loop iterations in one call", (unsigned long long)cases[k].max);
    const void *ins[2] = {x, &cases[k].n};
    void *outs[2] = {NULL, NULL};
    /* the reference */
    berth_ref_t *ref = NULL;
    CHECK(berth_ref_create(p, &ref, &d) == BERTH_OK);
    berth_ref_set_max_steps(ref, cases[k].max);
    berth_status_t st = berth_ref_call(ref, 0, ins, outs, &d);
    CHECK_MSG(cases[k].ok ? st == BERTH_OK : st == BERTH_ERR_OUT_OF_RANGE && strstr(msg, want),
              "reference, n %lld, limit %llu: %s", (long long)cases[k].n, (unsigned long long)cases[k].max, msg);
    for (int j = 0; j < 2; j++) free(outs[j]), outs[j] = NULL;
    berth_ref_destroy(ref);
    /* the planned runtime through a session, with the sanitizer */
    berth_session_t *s = NULL;
    CHECK(berth_session_create(&c->exec, true, &s, &d) == BERTH_OK);
    berth_session_set_max_steps(s, cases[k].max);
    st = berth_session_call(s, 0, ins, outs, &d);
    CHECK_MSG(cases[k].ok ? st == BERTH_OK : st == BERTH_ERR_OUT_OF_RANGE && strstr(msg, want),
              "session, n %lld, limit %llu: %s", (long long)cases[k].n, (unsigned long long)cases[k].max, msg);
    for (int j = 0; j < 2; j++) free(outs[j]), outs[j] = NULL;
    berth_session_destroy(s);
    /* the public API on the loaded file */
    size_t need = berth_method_memory_size(l.prog, 0);
    void *mem = malloc(need);
    berth_method_t *h = NULL;
    CHECK(berth_method_init(l.prog, 0, mem, need, NULL, 0, &h, &d) == BERTH_OK);
    berth_method_set_max_steps(h, cases[k].max);
    CHECK(berth_method_set_input(h, 0, x, sizeof x, &d) == BERTH_OK);
    CHECK(berth_method_set_input(h, 1, &cases[k].n, 8, &d) == BERTH_OK);
    st = berth_method_execute(h, &d);
    CHECK_MSG(cases[k].ok ? st == BERTH_OK : st == BERTH_ERR_OUT_OF_RANGE && strstr(msg, want),
              "API, n %lld, limit %llu: %s", (long long)cases[k].n, (unsigned long long)cases[k].max, msg);
    free(mem);
  }
  free(l.pmem);
  free(bytes);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  /* the command line: --max-steps for the planned run and the reference */
  static const char *const modes[] = {"", "--reference"};
  for (int k = 0; k < 2; k++) {
    char cmd[4096];
    int rc;
    snprintf(cmd, sizeof cmd, "'%s' run '%s' %s --max-steps 39 --call 'f32[2]:1,2 i64[]:4' 2>&1", BERTH_TOOL, path, modes[k]);
    char *o = run_cmd(cmd, &rc);
    CHECK_MSG(rc != 0 && o && strstr(o, "more than 39 loop iterations in one call"), "%s: %s", cmd, o ? o : "");
    free(o);
    snprintf(cmd, sizeof cmd, "'%s' run '%s' %s --max-steps 40 --call 'f32[2]:1,2 i64[]:4' 2>&1", BERTH_TOOL, path, modes[k]);
    o = run_cmd(cmd, &rc);
    CHECK_MSG(rc == 0, "%s: %s", cmd, o ? o : "");
    free(o);
  }
  char cmd[4096];
  int rc;
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --max-steps 0 --call 'f32[2]:1,2 i64[]:4' 2>&1", BERTH_TOOL, path);
  char *o = run_cmd(cmd, &rc);
  CHECK_MSG(rc != 0 && o && strstr(o, "--max-steps takes a positive integer"), "%s: %s", cmd, o ? o : "");
  free(o);
}

/* Mutable buffers belong to each method (docs/ir-text.md): in tests/bir/nested.bir,
 * @overwrite_own_state writes @state, and @forward still sees its own copy. forward(x, 0)
 * returns -x + state and stores it: [-1,-2], then [-2,-4] (a shared @state, reset to -0
 * between the calls, would give [-1,-2] again). The reference and the API agree. */
static void per_method_state(void) {
  char path[2048], msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  snprintf(path, sizeof path, "%s/tests/bir/nested.bir", BERTH_SOURCE_DIR);
  berth_ir_program_t *p = parse_file(path);
  berth_plan_options_t po = berth_plan_options_default();
  size_t len = 0;
  uint8_t *bytes = compile_file("tests/bir/nested.bir", &po, &len);
  loaded_t l;
  if (!p || !bytes || !load(bytes, len, &l)) {
    berth_ir_program_destroy(p);
    free(bytes);
    return;
  }
  float x[2] = {1, 2}, want[2][2] = {{-1, -2}, {-2, -4}};
  int64_t n = 0;
  const void *ins[2] = {x, &n};
  berth_ref_t *ref = NULL;
  CHECK(berth_ref_create(p, &ref, &d) == BERTH_OK);
  int32_t fwd = berth_program_method_find(l.prog, "forward"), ow = berth_program_method_find(l.prog, "overwrite_own_state");
  CHECK(fwd >= 0 && ow >= 0);
  size_t nf = berth_method_memory_size(l.prog, fwd), no = berth_method_memory_size(l.prog, ow);
  void *mf = malloc(nf), *mo = malloc(no);
  berth_method_t *hf = NULL, *ho = NULL;
  CHECK(berth_method_init(l.prog, fwd, mf, nf, NULL, 0, &hf, &d) == BERTH_OK);
  CHECK(berth_method_init(l.prog, ow, mo, no, NULL, 0, &ho, &d) == BERTH_OK);
  for (int call = 0; ref && hf && ho && call < 2; call++) {
    void *outs[2] = {NULL, NULL};
    CHECK_MSG(berth_ref_call(ref, fwd, ins, outs, &d) == BERTH_OK, "%s", msg);
    CHECK_MSG(outs[0] && memcmp(outs[0], want[call], sizeof want[call]) == 0, "reference call %d", call + 1);
    for (int j = 0; j < 2; j++) free(outs[j]);
    CHECK(berth_method_set_input(hf, 0, x, sizeof x, &d) == BERTH_OK);
    CHECK(berth_method_set_input(hf, 1, &n, sizeof n, &d) == BERTH_OK);
    CHECK_MSG(berth_method_execute(hf, &d) == BERTH_OK, "%s", msg);
    const void *o = NULL;
    CHECK(berth_method_output(hf, 0, &o, NULL, &d) == BERTH_OK && o && memcmp(o, want[call], sizeof want[call]) == 0);
    /* the other method writes its own @state */
    CHECK_MSG(berth_ref_call(ref, ow, NULL, NULL, &d) == BERTH_OK, "%s", msg);
    CHECK_MSG(berth_method_execute(ho, &d) == BERTH_OK, "%s", msg);
  }
  free(mf);
  free(mo);
  berth_ref_destroy(ref);
  free(l.pmem);
  free(bytes);
  berth_ir_program_destroy(p);
}

/* The sanitizer through the public API (berth_method_set_sanitizer): on a verified program
 * it changes nothing (outputs, state after reset) and allocates nothing at execute; too
 * little memory is refused; and through the host session, which runs on this same hook, it
 * catches the seed's regions plan (run unverified) on its first call with the message of
 * README's example, where the unsanitized run returns ExecuTorch's (7, 7). */
static void api_sanitizer(void) {
  berth_plan_options_t po = berth_plan_options_default();
  size_t len = 0;
  uint8_t *bytes = compile_file("examples/seed/seed.bir", &po, &len);
  if (!bytes) return;
  char msg[1024];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  loaded_t l;
  if (!load(bytes, len, &l)) {
    free(bytes);
    return;
  }
  int32_t m = berth_program_method_find(l.prog, "forward");
  size_t need = berth_method_memory_size(l.prog, m), sneed = berth_method_sanitizer_size(l.prog, m);
  CHECK(sneed > 0 && sneed != SIZE_MAX && berth_method_sanitizer_size(l.prog, 7) == 0);
  void *mem = malloc(need), *smem = malloc(sneed);
  berth_method_t *h = NULL;
  CHECK(berth_method_init(l.prog, m, mem, need, NULL, 0, &h, &d) == BERTH_OK);
  CHECK(berth_method_set_sanitizer(h, smem, sneed - 1, &d) == BERTH_ERR_RESOURCE_EXHAUSTED && msg[0]);
  CHECK(berth_method_set_sanitizer(NULL, smem, sneed, &d) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK_MSG(berth_method_set_sanitizer(h, smem, sneed, &d) == BERTH_OK, "%s", msg);
  double want[3][2] = {{5, 5}, {6, 7}, {6, 6}}, xs[3] = {5, 6, 6};
  for (int call = 0; h && call < 3; call++) {
    if (call == 2) berth_method_reset(h); /* the state's tags are laid again */
    CHECK(berth_method_set_input(h, 0, &xs[call], sizeof xs[call], &d) == BERTH_OK);
    forbid = 1;
    berth_status_t st = berth_method_execute(h, &d);
    forbid = 0;
    CHECK_MSG(st == BERTH_OK, "sanitized call %d: %s", call + 1, msg);
    const void *o0, *o1;
    CHECK(berth_method_output(h, 0, &o0, NULL, &d) == BERTH_OK && berth_method_output(h, 1, &o1, NULL, &d) == BERTH_OK);
    CHECK_MSG(st || (((const double *)o0)[0] == want[call][0] && ((const double *)o1)[0] == want[call][1]),
              "sanitized call %d", call + 1);
  }
  CHECK(berth_method_set_sanitizer(h, NULL, 0, &d) == BERTH_OK); /* off again */
  CHECK(berth_method_set_input(h, 0, &xs[0], sizeof xs[0], &d) == BERTH_OK && berth_method_execute(h, &d) == BERTH_OK);
#ifndef FORMAT_NO_INTERPOSE
  CHECK_MSG(forbidden_calls == 0, "execute with the sanitizer allocated %ld times", forbidden_calls);
#endif
  free(smem);
  free(mem);
  free(l.pmem);
  free(bytes);

  /* a wrong plan, unverified, through the session's sanitizer */
  char path[2048];
  snprintf(path, sizeof path, "%s/examples/seed/seed.bir", BERTH_SOURCE_DIR);
  berth_ir_program_t *p = parse_file(path);
  if (!p) return;
  po.strategy = BERTH_STRATEGY_REGIONS;
  po.verify = false;
  berth_compiled_t *c = NULL;
  CHECK_MSG(berth_plan_compile(p, &po, &c, &d) == BERTH_OK, "%s", msg);
  for (int sanitize = 0; c && sanitize < 2; sanitize++) {
    berth_session_t *s = NULL;
    CHECK_MSG(berth_session_create(&c->exec, sanitize, &s, &d) == BERTH_OK, "%s", msg);
    berth_status_t st = BERTH_OK;
    void *outs[2] = {NULL, NULL};
    for (int call = 0; s && call < 2 && !st; call++) {
      const void *in[1] = {&xs[call]};
      st = berth_session_call(s, 0, in, outs, &d);
      if (!st && call == 1) /* ExecuTorch's answer */
        CHECK(((double *)outs[0])[0] == 7 && ((double *)outs[1])[0] == 7);
      for (int k = 0; !st && k < 2; k++) free(outs[k]);
    }
    if (sanitize)
      CHECK_MSG(st == BERTH_ERR_VERIFY_FAILED && strstr(msg, "read of %result1") && strstr(msg, "last written by %result2"),
                "the sanitizer missed the regions plan: %s", st ? msg : "no error");
    else CHECK_MSG(st == BERTH_OK, "%s", msg);
    berth_session_destroy(s);
  }
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
}

/* A file written before section ir_ref (tests/format/seed-ir-text.berth: examples/seed
 * compiled by berth 0.4.0 with its IR as text in section ir) still loads, and its IR decodes
 * to the seed's. */
static void old_text_ir_file(void) {
  size_t len = 0;
  char *raw = test_read_file(BERTH_SOURCE_DIR "/tests/format/seed-ir-text.berth", &len);
  berth_ir_program_t *seed = parse_file(BERTH_SOURCE_DIR "/examples/seed/seed.bir");
  CHECK(raw && seed);
  if (!raw || !seed) goto out;
  uint8_t *bytes = aligned_alloc(64, (len + 63) / 64 * 64);
  memcpy(bytes, raw, len);
  char msg[1024], pools[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_format_sizes_t fs;
  const berth_format_program_t *fp = NULL;
  void *mem = NULL, *scratch = NULL;
  if (berth_format_read_size(bytes, len, &fs, &d) == BERTH_OK) {
    mem = malloc(fs.program_bytes);
    scratch = malloc(fs.scratch_bytes);
    CHECK_MSG(berth_format_read(bytes, len, mem, fs.program_bytes, scratch, fs.scratch_bytes, 0, &fp, &d) == BERTH_OK,
              "old file: %s", msg);
  }
  CHECK_MSG(fp && fp->ir_section == BERTH_SECTION_IR, "old file: not loaded, or not a text IR section: %s", msg);
  berth_ir_program_t *back = NULL;
  if (fp)
    CHECK_MSG(berth_ir_section_program(fp, "seed-ir-text.berth", NULL, pools, sizeof pools, &back, &d) == BERTH_OK,
              "old file: %s", msg);
  char *t1 = berth_ir_print(seed), *t2 = back ? berth_ir_print(back) : NULL;
  CHECK_MSG(t1 && t2 && strcmp(t1, t2) == 0, "old file: its IR is not the seed's");
  free(t1);
  free(t2);
  berth_ir_program_destroy(back);
  free(mem);
  free(scratch);
  free(bytes);
out:
  free(raw);
  berth_ir_program_destroy(seed);
}

int main(int argc, char **argv) {
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 20240601;
#ifndef FORMAT_NO_INTERPOSE
  /* the counter itself must see allocations */
  void *(*volatile alloc_fn)(size_t) = malloc;
  forbid = 1;
  void *x = alloc_fn(8);
  forbid = 0;
  free(x);
  CHECK(forbidden_calls == 1);
#endif
  int n = examples();
  CHECK_MSG(n >= 6, "only %d examples", n);
  random_programs(40, seed);
  int onnx = onnx_node_tests();
  CHECK_MSG(rt_programs >= 100, "only %d round trips ran (%d plans rejected by the compiler)", rt_programs, rt_skipped);
  api_contract();
  api_assert();
  api_sanitizer();
  step_limit();
  per_method_state();
  cli();
  old_text_ir_file();
  fprintf(stderr, "test_format: %d round trips (%d ONNX node tests; %d plans the compiler rejected were skipped), seed %llu\n",
          rt_programs, onnx, rt_skipped, (unsigned long long)seed);
  return test_finish("test_format");
}
