/* The differential fuzzer's program generator: random, always-valid berth programs with
 * nested control flow, and the inputs to call them with.
 *
 *   berth_fuzzgen_options_t o = berth_fuzzgen_options_default();
 *   berth_ir_program_t *p;
 *   if (berth_fuzzgen_program(seed, &o, &p) == BERTH_OK) {
 *     void *in[BERTH_FUZZGEN_MAX_PARAMS];
 *     berth_fuzzgen_inputs_create(p, 0, seed, call, in);        // one malloc'd buffer per param
 *     ...
 *     berth_fuzzgen_inputs_destroy(p, 0, in);
 *     berth_ir_program_destroy(p);
 *   }
 *
 * A program has one method, `forward`, a few constants and mutable buffers, and a body of
 * elementwise arithmetic with cond, while_loop, scan and map nested up to max_depth. It
 * deliberately produces the shapes a memory planner gets wrong: branches that pass their
 * parameters through or return outer values, constants and buffers directly; values
 * captured from enclosing graphs; `copy_` into buffers (also inside bodies); loops whose
 * carried values are swapped, passed through, or still read after the new value exists;
 * scans returning one value both as a carry and as a per-step output; maps with invariant
 * arguments; the same value returned twice. Every node's result type comes from its op's
 * infer, so the program passes berth_ir_validate (one that does not is a generator bug).
 *
 * Run-time checks: `assert` nodes at any depth (assert_percent per node, and sometimes one
 * after the method's last buffer writes) on a check that holds for most inputs, such as
 * mean(x) > -1.5 or max(x) < 2.25 of a value that changes from call to call, sometimes or'ed
 * with a bool computed earlier; each has its own message ("check N on %v12 ..."). With
 * assert_percent 8 (the fuzz driver's default) about 11 % of the calls of `berth fuzz` fail
 * a check, and under 4 % of the programs fail one in every call (measured over seeds).
 *
 * Only deterministic ops are used (add sub mul maximum neg abs tanh clone, sum mean max
 * min, gt lt logical_or, full, unsqueeze expand concat). Loop counters are i64 scalars in 0..3 that count down, so
 * every while_loop stops after at most 3 iterations. The same seed and options always give
 * the same program (the PRNG is splitmix64; no global state). */
#ifndef BERTH_FUZZGEN_FUZZGEN_H
#define BERTH_FUZZGEN_FUZZGEN_H

#include "berth/testing.h" /* berth_fuzzgen_options_t */
#include "ir/ir.h"

#include <stdint.h>

/* Method parameters never exceed this (inputs arrays can live on the stack). */
#define BERTH_FUZZGEN_MAX_PARAMS 16

/* Generates the program for `seed`. Returns BERTH_OK, or BERTH_ERR_RESOURCE_EXHAUSTED when
 * out of memory. The caller destroys *out. The program is not validated here. */
berth_status_t berth_fuzzgen_program(uint64_t seed, const berth_fuzzgen_options_t *o, berth_ir_program_t **out);

/* Inputs for call `call` of method `method`: inputs[i] receives a malloc'd buffer holding
 * parameter i (f32: multiples of 1/8 in [-2, 2]; i64: 0..3, a loop trip count; bool: 0/1;
 * other dtypes zero). Depends only on the parameter types, seed and call, so a shrunk or
 * re-parsed program gets the same inputs. The method may have at most
 * BERTH_FUZZGEN_MAX_PARAMS parameters. Returns RESOURCE_EXHAUSTED (nothing allocated) or
 * INVALID_ARGUMENT (too many parameters). */
berth_status_t berth_fuzzgen_inputs_create(const berth_ir_program_t *p, int32_t method, uint64_t seed, int32_t call,
                                           void **inputs);
void berth_fuzzgen_inputs_destroy(const berth_ir_program_t *p, int32_t method, void **inputs);

/* splitmix64: the generator's PRNG step, exposed for the driver's own random choices. */
uint64_t berth_fuzzgen_rand(uint64_t *state);

#endif
