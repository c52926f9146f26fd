/* mod(a, b) {fmod}: ONNX Mod, elementwise with numpy broadcasting; a and b share a dtype.
 *
 * fmod 0 (integers only): the remainder takes the sign of the divisor (Python's %).
 * fmod 1: the remainder takes the sign of the dividend (C's % and fmod); floats require
 * fmod 1, as ONNX does. Integer b == 0 gives 0 (ONNX leaves it undefined; a kernel must
 * not trap), and b == -1 gives 0 (where C's INT_MIN % -1 would be undefined). */
#include "kernel_util.h"

#include <math.h>

enum { MOD_FMOD };

#define MOD_ROW(name, T, EXPR)                                                                \
  static void name(void *o_, const void *a_, const void *b_, int64_t n, int sa, int sb) {    \
    T *restrict o = (T *)o_;                                                                  \
    const T *restrict pa = (const T *)a_, *restrict pb = (const T *)b_;                       \
    int64_t ia = 0, ib = 0;                                                                   \
    for (int64_t i = 0; i < n; i++, ia += sa, ib += sb) {                                     \
      T A = pa[ia], B = pb[ib];                                                               \
      o[i] = (EXPR);                                                                          \
    }                                                                                         \
  }

/* Signed: truncating remainder r, then for fmod 0 shift into the divisor's sign. */
#define MOD_SINT(E, s, T, U)                                                                  \
  static inline T trem_##s(T a, T b) { return (T)(b == 0 || b == -1 ? 0 : a % b); }           \
  MOD_ROW(fmod_row_##s, T, trem_##s(A, B))                                                    \
  MOD_ROW(mod_row_##s, T, (trem_##s(A, B) != 0 && ((trem_##s(A, B) < 0) != (B < 0))) ? (T)(trem_##s(A, B) + B) : trem_##s(A, B))
BERTH_KERNEL_SINT_LIST(MOD_SINT)

#define MOD_UINT(E, s, T, U)                                                                  \
  MOD_ROW(fmod_row_##s, T, (T)(B == 0 ? 0 : A % B))                                           \
  MOD_ROW(mod_row_##s, T, (T)(B == 0 ? 0 : A % B))
BERTH_KERNEL_UINT_LIST(MOD_UINT)

MOD_ROW(fmod_row_f32, float, fmodf(A, B))
MOD_ROW(fmod_row_f64, double, fmod(A, B))

#define MOD_ENTRY(E, s, T, U) [BERTH_DTYPE_##E] = mod_row_##s,
#define FMOD_ENTRY(E, s, T, U) [BERTH_DTYPE_##E] = fmod_row_##s,
static const berth_row2_fn mod_rows[BERTH_DTYPE_COUNT] = {BERTH_KERNEL_INT_LIST(MOD_ENTRY)};
static const berth_row2_fn fmod_rows[BERTH_DTYPE_COUNT] = {BERTH_KERNEL_NUM_LIST(FMOD_ENTRY)};

static berth_status_t mod_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_mod, in, n_in, diag));
  bool fm;
  BERTH_TRY(berth_kernel_get_flag("mod", "fmod", &attrs[MOD_FMOD], &fm, diag));
  if (!fm && berth_dtype_is_float(in[0].dtype))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "mod: operand 0 has dtype %s, which needs fmod 1 (ONNX Mod with fmod 0 is for integers)",
                      berth_dtype_name(in[0].dtype));
  BERTH_TRY(berth_kernel_check_dtype("mod", 0, in[0].dtype, BERTH_MASK_NUM, diag));
  BERTH_TRY(berth_kernel_check_same_dtype("mod", in, 0, 1, diag));
  berth_type_t t;
  berth_kernel_type_init(&t, in[0].dtype, 0);
  BERTH_TRY(berth_kernel_broadcast("mod", in, 2, &t, diag));
  BERTH_TRY(berth_kernel_check_output("mod", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void mod_run(const berth_kernel_call_t *call) {
  const berth_type_t *to = call->out[0].type;
  if (berth_kernel_is_empty(to)) return;
  size_t es = berth_dtype_size(to->dtype);
  berth_bcast_t plan;
  berth_bcast_init(&plan, to, call->in, 2);
  berth_row2_fn fn = (call->attrs[MOD_FMOD].i ? fmod_rows : mod_rows)[to->dtype];
  berth_bcast_run2(&plan, fn, call->out[0].data, es, call->in[0].data, es, call->in[1].data, es);
}

static const berth_attr_spec_t mod_attrs[] = {
    {"fmod", BERTH_ATTR_INT, false, 0, 0},
};
const berth_op_def_t berth_op_def_mod = {"mod", BERTH_OPKIND_KERNEL, 2, 2, 1, 1, mod_attrs, mod_infer, mod_run};
