/* trilu(x [, k]) {upper}: ONNX Trilu. Keeps the upper (upper = 1: column - row >= k) or
 * lower (column - row <= k) triangle of each matrix in the last two dims of x and zeroes the
 * rest. k, the diagonal offset, is an optional one-element i64 operand (default 0), read at
 * run time: any value is valid (far off the matrix it keeps everything or nothing). */
#include "kernel_util.h"

#include <string.h>

enum { TRILU_UPPER };

static berth_status_t trilu_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                  berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_trilu, in, n_in, diag));
  bool upper;
  BERTH_TRY(berth_kernel_get_flag("trilu", "upper", &attrs[TRILU_UPPER], &upper, diag));
  char a[160];
  if (in[0].rank < 2)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "trilu: input %s has rank %d, expected rank >= 2",
                      berth_type_format(&in[0], a, sizeof a), (int)in[0].rank);
  if (n_in > 1) {
    BERTH_TRY(berth_kernel_check_dtype("trilu", 1, in[1].dtype, BERTH_DTYPE_BIT(I64), diag));
    if (berth_type_numel(&in[1]) != 1)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "trilu: k is %s, expected one element",
                        berth_type_format(&in[1], a, sizeof a));
  }
  out[0] = in[0];
  return BERTH_OK;
}

static void trilu_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  if (berth_kernel_is_empty(x)) return;
  int64_t k = call->n_in > 1 ? *(const int64_t *)call->in[1].data : 0;
  bool upper = call->attrs[TRILU_UPPER].i != 0;
  int64_t rows = x->dims[x->rank - 2], cols = x->dims[x->rank - 1], mats = berth_type_numel(x) / (rows * cols);
  size_t es = berth_dtype_size(x->dtype);
  const unsigned char *src = (const unsigned char *)call->in[0].data;
  unsigned char *dst = (unsigned char *)call->out[0].data;
  for (int64_t m = 0; m < mats; m++)
    for (int64_t i = 0; i < rows; i++) {
      /* the kept columns of row i are [lo, hi) */
      int64_t lo = 0, hi = cols;
      if (upper) lo = k >= cols - i ? cols : k <= -i ? 0 : i + k;
      else hi = k >= cols - i ? cols : k < -i ? 0 : i + k + 1;
      size_t row = (size_t)((m * rows + i) * cols) * es;
      memset(dst + row, 0, (size_t)cols * es);
      if (hi > lo) memcpy(dst + row + (size_t)lo * es, src + row + (size_t)lo * es, (size_t)(hi - lo) * es);
    }
}

static const berth_attr_spec_t trilu_attrs[] = {{"upper", BERTH_ATTR_INT, false, 1, 0}};
const berth_op_def_t berth_op_def_trilu = {"trilu", BERTH_OPKIND_KERNEL, 1, 2, 1, 1, trilu_attrs, trilu_infer, trilu_run};
