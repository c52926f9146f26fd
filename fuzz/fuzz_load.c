/* Fuzz target for the program file loader (libFuzzer): load + verify + execute, through the
 * public runtime API only, and the same check as a plain function.
 *
 * Property: any bytes either fail to load with a non-empty message, a status that names
 * the file's fault (corrupt data, out of range, unimplemented, verification failed; never
 * an internal error or "the memory the query asked for is too small") and nothing written
 * to the output handle, or load into a program whose every method (within the memory cap)
 * initializes (odd methods with caller-placed arenas of exactly their pool sizes), binds
 * its inputs and outputs, and executes twice, each time either
 * successfully, or by hitting the step limit (BERTH_ERR_OUT_OF_RANGE), or by an assert of
 * the program that fails (BERTH_ERR_CHECK_FAILED); the outputs of a successful execute are
 * readable. Memory errors and undefined behaviour are caught by the
 * sanitizers the target is built with.
 *
 * tests/test_fuzz_load_replay.c and tests/test_corrupt.c compile this file with
 * BERTH_FUZZ_NO_ENTRY defined and call berth_fuzz_load_check.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc fuzz/fuzz_load.c \
 *         src/base/ *.c src/kernels/ *.c src/program/ *.c src/format/ *.c \
 *         src/runtime/ *.c -lm -o fuzz_load
 *   ./fuzz_load -max_len=65536 -timeout=10 fuzz/corpus/load */
#include "berth/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MEM_CAP ((size_t)64 << 20) /* skip programs needing more memory than this */
#define FUZZ_MAX_STEPS 100000
#define FUZZ_MAX_METHODS 8

typedef struct berth_fuzz_load_result {
  int phase;               /* 0: load failed, 1: loaded and ran (run_status), 2: skipped (too big) */
  berth_status_t status;   /* the load's status (phase 0) or the first failing execute's */
  char msg[1024];
} berth_fuzz_load_result_t;

static void *fuzz_alloc(size_t n, int fill) {
  void *p = malloc(n ? n : 1);
  if (p) memset(p, fill, n ? n : 1);
  return p;
}

/* Runs every method twice. Returns 0 when the property holds, else nonzero with why. */
static int fuzz_run_methods(const berth_program_t *prog, berth_fuzz_load_result_t *res, char *why, size_t why_cap) {
  int32_t nm = berth_program_method_count(prog);
  if (nm < 1) {
    snprintf(why, why_cap, "a loaded program has %d methods", (int)nm);
    return 10;
  }
  for (int32_t mi = 0; mi < nm && mi < FUZZ_MAX_METHODS; mi++) {
    size_t need = berth_method_memory_size(prog, mi);
    if (need == 0 || need > FUZZ_MEM_CAP) {
      res->phase = 2;
      continue;
    }
    int32_t n_in = berth_program_input_count(prog, mi), n_out = berth_program_output_count(prog, mi);
    /* odd methods get caller-placed arenas, each exactly its pool's size (rounded up to the
     * alignment only), the handle and state in a block of their own */
    berth_arena_t arenas[16];
    int32_t n_pools = berth_program_pool_count(prog, mi);
    bool placed = (mi & 1) && n_pools >= 0 && n_pools <= 16;
    memset(arenas, 0, sizeof arenas);
    if (placed) {
      size_t al = berth_program_arena_alignment(prog, mi);
      need = berth_method_handle_size(prog, mi);
      for (int32_t k = 0; k < n_pools; k++) {
        size_t ps = (size_t)berth_program_pool_size(prog, mi, k);
        arenas[k].bytes = ps;
        arenas[k].data = aligned_alloc(al, (ps + al - 1) / al * al + (ps ? 0 : al));
        if (arenas[k].data) memset(arenas[k].data, 0xA5, ps);
      }
    }
    void *mem = fuzz_alloc(need, 0xA5);
    void **ins = calloc((size_t)n_in + 1, sizeof *ins), **outs = calloc((size_t)n_out + 1, sizeof *outs);
    int rc = 0;
    size_t total = need;
    berth_method_t *m = NULL;
    char msg[1024];
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    if (!mem || !ins || !outs) goto next;
    for (int32_t k = 0; placed && k < n_pools; k++)
      if (!arenas[k].data) goto next;
    if (berth_method_init(prog, mi, mem, need, placed ? arenas : NULL, placed ? n_pools : 0, &m, &diag) != BERTH_OK) {
      snprintf(why, why_cap, "method %d: init failed on a loaded program: %s", (int)mi, msg);
      rc = 11;
      goto next;
    }
    berth_method_set_max_steps(m, FUZZ_MAX_STEPS);
    for (int32_t k = 0; k < n_in; k++) {
      berth_tensor_info_t info;
      if (berth_program_input_info(prog, mi, k, &info) != BERTH_OK) {
        snprintf(why, why_cap, "method %d: no info for input %d", (int)mi, (int)k);
        rc = 12;
        goto next;
      }
      total += info.bytes;
      if (total > FUZZ_MEM_CAP) {
        res->phase = 2;
        goto next;
      }
      /* every element holds the small integer 3 in its low byte: counts stay small, so a
       * loop that runs into the step limit is one that never exits */
      ins[k] = fuzz_alloc(info.bytes, 0);
      if (!ins[k]) goto next;
      size_t esz = berth_dtype_size(info.type.dtype);
      for (size_t b = 0; esz && b < info.bytes; b += esz) ((uint8_t *)ins[k])[b] = 3;
    }
    if (!berth_program_outputs_planned(prog))
      for (int32_t k = 0; k < n_out; k++) {
        berth_tensor_info_t info;
        if (berth_program_output_info(prog, mi, k, &info) != BERTH_OK) {
          snprintf(why, why_cap, "method %d: no info for output %d", (int)mi, (int)k);
          rc = 13;
          goto next;
        }
        total += info.bytes;
        if (total > FUZZ_MEM_CAP) {
          res->phase = 2;
          goto next;
        }
        outs[k] = fuzz_alloc(info.bytes, 0x5A);
        if (!outs[k]) goto next;
        if (berth_method_set_output(m, k, outs[k], info.bytes, &diag) != BERTH_OK) {
          snprintf(why, why_cap, "method %d: set_output %d failed: %s", (int)mi, (int)k, msg);
          rc = 14;
          goto next;
        }
      }
    for (int call = 0; call < 2; call++) {
      for (int32_t k = 0; k < n_in; k++) {
        berth_tensor_info_t info;
        berth_program_input_info(prog, mi, k, &info);
        if (berth_method_set_input(m, k, ins[k], info.bytes, &diag) != BERTH_OK) {
          snprintf(why, why_cap, "method %d: set_input %d failed: %s", (int)mi, (int)k, msg);
          rc = 15;
          goto next;
        }
      }
      berth_status_t st = berth_method_execute(m, &diag);
      if (st != BERTH_OK) {
        /* the step limit, or a run-time check of the program (an assert) that failed */
        if ((st != BERTH_ERR_OUT_OF_RANGE && st != BERTH_ERR_CHECK_FAILED) || !msg[0]) {
          snprintf(why, why_cap, "method %d: execute of a verified program failed with %s: %s", (int)mi,
                   berth_status_name(st), msg);
          rc = 16;
          goto next;
        }
        const void *data;
        if (n_out > 0 && berth_method_output(m, 0, &data, NULL, NULL) == BERTH_OK) { /* msg keeps execute's */
          snprintf(why, why_cap, "method %d: an output is readable after a failed execute (%s)", (int)mi, msg);
          rc = 18;
          goto next;
        }
        if (res->status == BERTH_OK) {
          res->status = st;
          snprintf(res->msg, sizeof res->msg, "%s", msg);
        }
        break;
      }
      unsigned sum = 0;
      for (int32_t k = 0; k < n_out; k++) {
        const void *data;
        size_t bytes;
        if (berth_method_output(m, k, &data, &bytes, &diag) != BERTH_OK) {
          snprintf(why, why_cap, "method %d: output %d unreadable after a successful execute: %s", (int)mi, (int)k, msg);
          rc = 17;
          goto next;
        }
        for (size_t b = 0; b < bytes; b++) sum += ((const uint8_t *)data)[b];
      }
      (void)sum;
    }
  next:
    for (int32_t k = 0; ins && k < n_in; k++) free(ins[k]);
    for (int32_t k = 0; outs && k < n_out; k++) free(outs[k]);
    free(ins);
    free(outs);
    free(mem);
    for (int k = 0; k < 16; k++) free(arenas[k].data);
    if (rc) return rc;
  }
  return 0;
}

static int berth_fuzz_load_check(const uint8_t *data, size_t size, berth_fuzz_load_result_t *res, char *why,
                                 size_t why_cap) {
  memset(res, 0, sizeof *res);
  why[0] = '\0';
  /* the runtime uses the bytes in place: give it an aligned copy, exactly sized for ASan */
  uint8_t *bytes = malloc(size ? size : 1);
  if (!bytes) return 0;
  if (size) memcpy(bytes, data, size);
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_program_sizes_t sz;
  int rc = 0;
  void *pmem = NULL, *scratch = NULL;
  berth_status_t st = berth_program_query(bytes, size, &sz, &diag);
  if (st == BERTH_OK && (sz.program_bytes > FUZZ_MEM_CAP || sz.scratch_bytes > FUZZ_MEM_CAP)) {
    res->phase = 2;
    goto done;
  }
  if (st == BERTH_OK) {
    pmem = fuzz_alloc(sz.program_bytes, 0xA5);
    scratch = fuzz_alloc(sz.scratch_bytes, 0xA5);
    if (!pmem || !scratch) goto done;
    berth_program_t *prog = (berth_program_t *)(uintptr_t)0x1; /* must stay untouched on failure */
    st = berth_program_load(bytes, size, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &diag);
    if (st != BERTH_OK && prog != (berth_program_t *)(uintptr_t)0x1) {
      snprintf(why, why_cap, "a failed load wrote its output handle");
      rc = 2;
      goto done;
    }
    if (st == BERTH_OK) {
      free(scratch); /* only needed while loading */
      scratch = NULL;
      res->phase = 1;
      res->status = BERTH_OK;
      rc = fuzz_run_methods(prog, res, why, why_cap);
      goto done;
    }
  }
  res->phase = 0;
  res->status = st;
  snprintf(res->msg, sizeof res->msg, "%s", msg);
  if (!msg[0]) {
    snprintf(why, why_cap, "a failed load (%s) gave no message", berth_status_name(st));
    rc = 1;
  } else if (st != BERTH_ERR_CORRUPT_DATA && st != BERTH_ERR_OUT_OF_RANGE && st != BERTH_ERR_UNIMPLEMENTED &&
             st != BERTH_ERR_VERIFY_FAILED) {
    /* internal errors, or memory the query said was enough turning out too small, are bugs */
    snprintf(why, why_cap, "a load failed with %s: %s", berth_status_name(st), msg);
    rc = 3;
  }
done:
  free(pmem);
  free(scratch);
  free(bytes);
  return rc;
}

#ifndef BERTH_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char why[4096];
  berth_fuzz_load_result_t res;
  if (berth_fuzz_load_check(data, size, &res, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_load: %s\n", why);
    abort();
  }
  return 0;
}
#endif
