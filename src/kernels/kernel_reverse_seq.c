/* reverse_sequence(x, lens) {batch_axis, time_axis}: ONNX ReverseSequence. x has rank >= 2
 * with its batch and time axes the first two (in either order); lens (i64, one per batch)
 * gives the length of each batch's sequence: its first lens[b] steps are reversed, the rest
 * copied.
 *
 * lens is data: the ONNX importer checks 0 <= lens[b] <= time steps with a run-time assert
 * before this runs (the call fails loudly); a length out of range that reaches the kernel
 * anyway (a program written by hand) is clamped to that range, never read past. */
#include "kernel_util.h"

#include <string.h>

enum { RS_BATCH_AXIS, RS_TIME_AXIS };

static berth_status_t reverse_sequence_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                             berth_type_t *out, berth_diag_t *diag) {
  const char *op = "reverse_sequence";
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_reverse_sequence, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 1, in[1].dtype, BERTH_DTYPE_BIT(I64), diag));
  int64_t ba = attrs[RS_BATCH_AXIS].i, ta = attrs[RS_TIME_AXIS].i;
  char sa[160], sb[160];
  if ((ba != 0 && ba != 1) || (ta != 0 && ta != 1) || ba == ta)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: batch_axis %lld and time_axis %lld, expected 0 and 1 in some order",
                      op, (long long)ba, (long long)ta);
  if (in[0].rank < 2)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: input %s has rank %d, expected rank >= 2", op,
                      berth_type_format(&in[0], sa, sizeof sa), (int)in[0].rank);
  if (in[1].rank != 1 || in[1].dims[0] != in[0].dims[ba])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: lens %s for input %s, expected i64[%lld]", op,
                      berth_type_format(&in[1], sa, sizeof sa), berth_type_format(&in[0], sb, sizeof sb),
                      (long long)in[0].dims[ba]);
  out[0] = in[0];
  return BERTH_OK;
}

static void reverse_sequence_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  if (berth_kernel_is_empty(x)) return;
  bool time_first = call->attrs[RS_TIME_AXIS].i == 0;
  int64_t T = x->dims[time_first ? 0 : 1], B = x->dims[time_first ? 1 : 0], inner = berth_type_numel(x) / (T * B);
  size_t slice = (size_t)inner * berth_dtype_size(x->dtype);
  const int64_t *lens = (const int64_t *)call->in[1].data;
  const unsigned char *src = (const unsigned char *)call->in[0].data;
  unsigned char *dst = (unsigned char *)call->out[0].data;
  for (int64_t b = 0; b < B; b++) {
    int64_t len = lens[b] < 0 ? 0 : lens[b] > T ? T : lens[b];
    for (int64_t t = 0; t < T; t++) {
      int64_t from = t < len ? len - 1 - t : t;
      size_t o = (size_t)(time_first ? t * B + b : b * T + t) * slice;
      size_t i = (size_t)(time_first ? from * B + b : b * T + from) * slice;
      memcpy(dst + o, src + i, slice);
    }
  }
}

static const berth_attr_spec_t reverse_sequence_attrs[] = {{"batch_axis", BERTH_ATTR_INT, false, 1, 0},
                                                           {"time_axis", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_reverse_sequence = {"reverse_sequence", BERTH_OPKIND_KERNEL, 2, 2, 1, 2,
                                                      reverse_sequence_attrs, reverse_sequence_infer,
                                                      reverse_sequence_run};
