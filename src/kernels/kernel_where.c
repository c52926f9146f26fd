/* where(cond, a, b): cond ? a : b elementwise, with 3-way numpy broadcasting. cond is bool
 * (any nonzero byte is true); a and b share a dtype, which the result takes. The selection
 * only moves bytes, so there is one row function per element size. */
#include "kernel_util.h"

#define WHERE_ROW(bits)                                                                    \
  static void where_row_##bits(void *o_, const void *c_, const void *a_, const void *b_,   \
                               int64_t n, int sc, int sa, int sb) {                       \
    uint##bits##_t *restrict o = (uint##bits##_t *)o_;                                     \
    const uint8_t *restrict c = (const uint8_t *)c_;                                       \
    const uint##bits##_t *restrict a = (const uint##bits##_t *)a_;                         \
    const uint##bits##_t *restrict b = (const uint##bits##_t *)b_;                         \
    if (sc && sa && sb) {                                                                  \
      BERTH_VLOOP(i, n, o[i] = c[i] ? a[i] : b[i];);                                       \
    } else {                                                                               \
      int64_t ic = 0, ia = 0, ib = 0;                                                      \
      for (int64_t i = 0; i < n; i++, ic += sc, ia += sa, ib += sb)                        \
        o[i] = c[ic] ? a[ia] : b[ib];                                                      \
    }                                                                                      \
  }
WHERE_ROW(8)
WHERE_ROW(16)
WHERE_ROW(32)
WHERE_ROW(64)

static berth_status_t where_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_where, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("where", 0, in[0].dtype, BERTH_MASK_BOOL, diag));
  BERTH_TRY(berth_kernel_check_same_dtype("where", in, 1, 2, diag));
  berth_type_t t;
  berth_kernel_type_init(&t, in[1].dtype, 0);
  BERTH_TRY(berth_kernel_broadcast("where", in, 3, &t, diag));
  BERTH_TRY(berth_kernel_check_output("where", &t, diag));
  out[0] = t;
  return BERTH_OK;
}

static void where_run(const berth_kernel_call_t *call) {
  const berth_type_t *to = call->out[0].type;
  size_t es = berth_dtype_size(to->dtype);
  berth_bcast_t plan;
  berth_bcast_init(&plan, to, call->in, 3);
  berth_row3_fn fn = es == 1 ? where_row_8 : es == 2 ? where_row_16 : es == 4 ? where_row_32 : where_row_64;
  berth_bcast_run3(&plan, fn, call->out[0].data, es, call->in[0].data, 1, call->in[1].data, es,
                   call->in[2].data, es);
}

const berth_op_def_t berth_op_def_where = {"where", BERTH_OPKIND_KERNEL, 3, 3, 1, 0, NULL, where_infer, where_run};
