/* berth's runtime on a Cortex-M4 (QEMU mps2-an386, bare metal): the compiled seed program
 * lives in flash as a const array (berth_m4_program, generated from seed.berth at build
 * time) and is loaded in place; the program, the load scratch and the method (handle, state,
 * arenas) come from one static pool. forward is called on 5.0 and then 6.0 and prints
 * (5, 5) and (6, 7), as examples/embed does on a desktop.
 *
 * stdout (semihosting) gets the results only; stderr gets the memory used and the stack
 * depth measured by painting (cortex_m_startup.c), or berth's message on an error. Exits
 * with status 0, or 1 on any error. */
#include "cortex_m_board.h"
#include "semihost.h"

#include <berth/runtime.h>

#include <stdbool.h>
#include <stdint.h>

extern const unsigned char berth_m4_program[];
extern const size_t berth_m4_program_len;

/* The static pool; its size is fixed at build time (BERTH_M4_POOL_BYTES) and checked here
 * against what the runtime asks for. Load needs program + scratch bytes; once loaded, the
 * scratch is given to the method. */
#ifndef BERTH_M4_POOL_BYTES
#define BERTH_M4_POOL_BYTES 20480
#endif
static _Alignas(8) unsigned char pool[BERTH_M4_POOL_BYTES];

static inline uintptr_t stack_pointer(void) {
  uintptr_t sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

/* ---- output without stdio ------------------------------------------------------------- */

static char *put_str(char *p, const char *s) {
  while (*s) *p++ = *s++;
  return p;
}

static char *put_uint(char *p, uint64_t v) {
  char digits[20];
  int n = 0;
  do digits[n++] = (char)('0' + v % 10); while ((v /= 10) != 0);
  while (n) *p++ = digits[--n];
  return p;
}

/* As printf's %g for the values this program prints: integers exactly, other finite values
 * with up to six decimals (trailing zeros dropped), and nan / inf. */
static char *put_double(char *p, double v) {
  if (v != v) return put_str(p, "nan");
  if (v < 0) {
    *p++ = '-';
    v = -v;
  }
  if (v - v != v - v) return put_str(p, "inf");
  if (v >= 1e19) return put_str(p, "(beyond 1e19)");
  uint64_t whole = (uint64_t)v;
  uint64_t frac = (uint64_t)((v - (double)whole) * 1e6 + 0.5);
  if (frac >= 1000000) {
    whole++;
    frac -= 1000000;
  }
  p = put_uint(p, whole);
  if (frac) {
    *p++ = '.';
    for (uint64_t d = 100000; frac; d /= 10) {
      *p++ = (char)('0' + frac / d);
      frac %= d;
    }
  }
  return p;
}

static void print_line(char *buf, char *end, bool toerr) {
  *end++ = '\n';
  *end = '\0';
  semihost_puts(buf, toerr);
}

static int fail(const char *what, const char *msg) {
  char line[320];
  char *p = put_str(line, "berth-m4: ");
  p = put_str(p, what);
  if (msg) {
    p = put_str(p, ": ");
    const char *s = msg;
    while (*s && p < line + sizeof line - 2) *p++ = *s++;
  }
  print_line(line, p, true);
  return 1;
}

static int pool_too_small(const char *what, size_t a, size_t b) {
  char line[160], *p = line;
  p = put_str(p, "berth-m4: the static pool of ");
  p = put_uint(p, sizeof pool);
  p = put_str(p, " B (BERTH_M4_POOL_BYTES) is too small for ");
  p = put_str(p, what);
  p = put_str(p, ": ");
  p = put_uint(p, a);
  p = put_str(p, " + ");
  p = put_uint(p, b);
  p = put_str(p, " B");
  print_line(line, p, true);
  return 1;
}

/* ---- the program ----------------------------------------------------------------------- */

int main(void) {
  char msg[256];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  const uintptr_t sp_main = stack_pointer();
  uintptr_t deepest = sp_main;

  /* load: query, then check and verify the whole file once, in place */
  berth_program_sizes_t sz;
  if (berth_program_query(berth_m4_program, berth_m4_program_len, &sz, &diag)) return fail("query", msg);
  if (sz.program_bytes > sizeof pool || sz.scratch_bytes > sizeof pool - sz.program_bytes)
    return pool_too_small("load (program + scratch)", sz.program_bytes, sz.scratch_bytes);
  berth_program_t *prog;
  stack_paint();
  berth_status_t st = berth_program_load(berth_m4_program, berth_m4_program_len, pool, sz.program_bytes,
                                         pool + sz.program_bytes, sz.scratch_bytes, &prog, &diag);
  const uintptr_t hw_load = stack_high_water();
  if (st) return fail("load", msg);

  /* the method: handle, state and arenas in the rest of the pool (the scratch is free again) */
  int32_t m = berth_program_method_find(prog, "forward");
  if (m < 0) return fail("no method forward", NULL);
  size_t need = berth_method_memory_size(prog, m);
  if (need == 0) return fail("method forward does not fit in memory", NULL);
  if (need > sizeof pool - sz.program_bytes) return pool_too_small("method forward (program + method)", sz.program_bytes, need);
  berth_method_t *fwd;
  if (berth_method_init(prog, m, pool + sz.program_bytes, need, NULL, 0, &fwd, &diag)) return fail("init", msg);

  double out[2][1]; /* used when the program leaves the outputs to the caller */
  if (!berth_program_outputs_planned(prog))
    for (int32_t j = 0; j < 2; j++)
      if (berth_method_set_output(fwd, j, out[j], sizeof out[j], &diag)) return fail("set_output", msg);
  static const double inputs[2] = {5.0, 6.0};
  uintptr_t hw_exec = sp_main;
  for (int call = 0; call < 2; call++) {
    if (berth_method_set_input(fwd, 0, &inputs[call], sizeof inputs[call], &diag)) return fail("set_input", msg);
    stack_paint();
    st = berth_method_execute(fwd, &diag);
    const uintptr_t hw = stack_high_water();
    if (hw < hw_exec) hw_exec = hw;
    if (st) return fail("execute", msg);
    const void *r1, *r2;
    if (berth_method_output(fwd, 0, &r1, NULL, &diag) || berth_method_output(fwd, 1, &r2, NULL, &diag))
      return fail("output", msg);
    char line[64], *p = line;
    *p++ = '(';
    p = put_double(p, *(const double *)r1);
    p = put_str(p, ", ");
    p = put_double(p, *(const double *)r2);
    *p++ = ')';
    print_line(line, p, false);
  }

  /* what it took: the pool's bytes and the stack below main's frame */
  if (hw_load < deepest) deepest = hw_load;
  if (hw_exec < deepest) deepest = hw_exec;
  char line[200], *p = line;
  p = put_str(p, "memory: program ");
  p = put_uint(p, sz.program_bytes);
  p = put_str(p, " B, load scratch ");
  p = put_uint(p, sz.scratch_bytes);
  p = put_str(p, " B, method ");
  p = put_uint(p, need);
  p = put_str(p, " B; static pool ");
  p = put_uint(p, sizeof pool);
  p = put_str(p, " B");
  print_line(line, p, true);
  p = put_str(line, "stack: load ");
  p = put_uint(p, sp_main - hw_load);
  p = put_str(p, " B, execute ");
  p = put_uint(p, sp_main - hw_exec);
  p = put_str(p, " B (below main's frame); deepest from reset ");
  p = put_uint(p, stack_top() - deepest);
  p = put_str(p, " B of ");
  p = put_uint(p, stack_size());
  print_line(line, p, true);
  return 0;
}
