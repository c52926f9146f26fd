/* einsum(x_0, ..., x_{n-1}) {terms, output}: ONNX Einsum as a direct kernel.
 *
 * The equation comes encoded (the ONNX importer parses the text, expands "...", computes an
 * implicit output and broadcasts size-1 ellipsis dims): each term is one integer, its rank
 * in bits 0..3 and label k (0..51) in bits 4+6k..9+6k. `terms` has one entry per operand
 * (at most BERTH_MAX_ATTR_INTS), `output` is the result's term; its labels are distinct and
 * each appears in some operand. A label names one size everywhere; a label repeated in one
 * term walks that operand's diagonal; labels not in the output are summed over:
 *   out[o] = sum over the other labels of prod_k x_k[...]
 * Numeric dtypes, all operands one dtype; integers wrap. */
#include "kernel_util.h"

#include "base/checked.h"

#include <string.h>

enum { EIN_TERMS, EIN_OUTPUT };

#define EIN_LABELS 52
#define EIN_MAX_SUM 16 /* summed labels (a fixed cap keeps the plan small on the stack) */

typedef struct ein_plan {
  int32_t n_ops, n_out, n_sum; /* operands, output labels, summed labels */
  int64_t out_dims[BERTH_MAX_RANK], sum_dims[EIN_MAX_SUM];
  /* element strides of each operand per output label and per summed label */
  int64_t out_stride[BERTH_MAX_ATTR_INTS][BERTH_MAX_RANK];
  int64_t sum_stride[BERTH_MAX_ATTR_INTS][EIN_MAX_SUM];
} ein_plan_t;

static int32_t term_rank(int64_t t) { return (int32_t)(t & 15); }
static int32_t term_label(int64_t t, int32_t k) { return (int32_t)((t >> (4 + 6 * k)) & 63); }

static berth_status_t ein_term_ok(int64_t t, const char *what, int32_t k, berth_diag_t *diag) {
  if (t < 0 || term_rank(t) > BERTH_MAX_RANK || (t >> (4 + 6 * term_rank(t))) != 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "einsum: %s %d is %lld, which encodes no term", what, (int)k, (long long)t);
  for (int32_t j = 0; j < term_rank(t); j++)
    if (term_label(t, j) >= EIN_LABELS)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "einsum: %s %d has label %d, expected 0 to %d", what, (int)k,
                        (int)term_label(t, j), EIN_LABELS - 1);
  return BERTH_OK;
}

/* in[k] is operand k's type. */
static berth_status_t ein_plan(const berth_attr_value_t *attrs, const berth_type_t *const *in, int32_t n_in, ein_plan_t *p,
                               berth_type_t *out, berth_diag_t *diag) {
  const berth_attr_value_t *terms = &attrs[EIN_TERMS];
  int64_t ot = attrs[EIN_OUTPUT].i, dim[EIN_LABELS];
  char a[96]; /* a type in a message (cut short if longer: keeps load within its stack budget) */
  if (terms->n != n_in)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "einsum: %d terms for %d operands, expected one per operand",
                      (int)terms->n, (int)n_in);
  for (int32_t l = 0; l < EIN_LABELS; l++) dim[l] = -1;
  memset(p, 0, sizeof *p);
  p->n_ops = n_in;
  for (int32_t k = 0; k < n_in; k++) {
    int64_t t = terms->ints[k];
    BERTH_TRY(ein_term_ok(t, "term", k, diag));
    if (term_rank(t) != in[k]->rank)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "einsum: term %d names %d dims of operand %s, expected %d", (int)k,
                        (int)term_rank(t), berth_type_format(in[k], a, sizeof a), (int)in[k]->rank);
    for (int32_t j = 0; j < in[k]->rank; j++) {
      int32_t l = term_label(t, j);
      if (dim[l] >= 0 && dim[l] != in[k]->dims[j])
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "einsum: label %d is %lld in operand %d %s but %lld before, expected one size",
                          (int)l, (long long)in[k]->dims[j], (int)k, berth_type_format(in[k], a, sizeof a), (long long)dim[l]);
      dim[l] = in[k]->dims[j];
    }
  }
  BERTH_TRY(ein_term_ok(ot, "output", 0, diag));
  bool in_out[EIN_LABELS] = {false};
  berth_kernel_type_init(out, in[0]->dtype, term_rank(ot));
  for (int32_t j = 0; j < term_rank(ot); j++) {
    int32_t l = term_label(ot, j);
    if (dim[l] < 0 || in_out[l])
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "einsum: output label %d %s, expected distinct labels of the operands",
                        (int)l, in_out[l] ? "repeats" : "is in no operand");
    in_out[l] = true;
    out->dims[j] = p->out_dims[j] = dim[l];
  }
  p->n_out = term_rank(ot);
  /* the work: every label's size multiplied, within int64 */
  int64_t work = 1;
  for (int32_t l = 0; l < EIN_LABELS; l++)
    if (dim[l] > 0 && !berth_mul_i64(work, dim[l], &work))
      return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "einsum: the product of the label sizes is over 2^63");
  int32_t sum_label[EIN_MAX_SUM];
  for (int32_t l = 0; l < EIN_LABELS; l++)
    if (dim[l] >= 0 && !in_out[l]) {
      if (p->n_sum == EIN_MAX_SUM)
        return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "einsum: more than %d summed labels", EIN_MAX_SUM);
      sum_label[p->n_sum] = l;
      p->sum_dims[p->n_sum++] = dim[l];
    }
  for (int32_t k = 0; k < n_in; k++) {
    int64_t t = terms->ints[k], s = 1;
    for (int32_t j = in[k]->rank - 1; j >= 0; j--) {
      int32_t l = term_label(t, j);
      for (int32_t o = 0; o < p->n_out; o++)
        if (term_label(ot, o) == l) p->out_stride[k][o] += s;
      for (int32_t q = 0; q < p->n_sum; q++)
        if (sum_label[q] == l) p->sum_stride[k][q] += s;
      s *= in[k]->dims[j] ? in[k]->dims[j] : 1;
    }
  }
  return BERTH_OK;
}

#define EIN_FN(E, s, T, U)                                                                            \
  static void ein_##s(const ein_plan_t *p, const berth_tensor_ref_t *in, void *out_, int64_t n_out_el) { \
    T *out = (T *)out_;                                                                               \
    int64_t oi[BERTH_MAX_RANK] = {0}, base[BERTH_MAX_ATTR_INTS] = {0};                          \
    int64_t n_sum_el = 1;                                                                             \
    for (int32_t q = 0; q < p->n_sum; q++) n_sum_el *= p->sum_dims[q];                                \
    for (int64_t e = 0; e < n_out_el; e++) {                                                          \
      U acc = 0;                                                                                      \
      int64_t si[EIN_MAX_SUM] = {0}, off[BERTH_MAX_ATTR_INTS];                                   \
      for (int32_t k = 0; k < p->n_ops; k++) off[k] = base[k];                                        \
      for (int64_t c = 0; c < n_sum_el; c++) {                                                        \
        U prod = (U)((const T *)in[0].data)[off[0]];                                                  \
        for (int32_t k = 1; k < p->n_ops; k++) prod = (U)(prod * (U)((const T *)in[k].data)[off[k]]); \
        acc = (U)(acc + prod);                                                                        \
        for (int32_t q = p->n_sum - 1; q >= 0; q--) {                                                 \
          for (int32_t k = 0; k < p->n_ops; k++) off[k] += p->sum_stride[k][q];                       \
          if (++si[q] < p->sum_dims[q]) break;                                                        \
          for (int32_t k = 0; k < p->n_ops; k++) off[k] -= p->sum_stride[k][q] * p->sum_dims[q];      \
          si[q] = 0;                                                                                  \
        }                                                                                             \
      }                                                                                               \
      out[e] = (T)acc;                                                                                \
      for (int32_t o = p->n_out - 1; o >= 0; o--) {                                                   \
        for (int32_t k = 0; k < p->n_ops; k++) base[k] += p->out_stride[k][o];                        \
        if (++oi[o] < p->out_dims[o]) break;                                                          \
        for (int32_t k = 0; k < p->n_ops; k++) base[k] -= p->out_stride[k][o] * p->out_dims[o];       \
        oi[o] = 0;                                                                                    \
      }                                                                                               \
    }                                                                                                 \
  }
BERTH_KERNEL_NUM_LIST(EIN_FN)

typedef void (*ein_fn)(const ein_plan_t *p, const berth_tensor_ref_t *in, void *out, int64_t n_out_el);
#define EIN_ENTRY(E, s, T, U) [BERTH_DTYPE_##E] = ein_##s,
static const ein_fn ein_kernels[BERTH_DTYPE_COUNT] = {BERTH_KERNEL_NUM_LIST(EIN_ENTRY)};

static berth_status_t einsum_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_einsum, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("einsum", 0, in[0].dtype, BERTH_MASK_NUM, diag));
  for (int32_t k = 1; k < n_in; k++) BERTH_TRY(berth_kernel_check_same_dtype("einsum", in, 0, k, diag));
  BERTH_TRY(berth_kernel_check_ints("einsum", "terms", &attrs[EIN_TERMS], diag));
  const berth_type_t *types[BERTH_MAX_ATTR_INTS];
  for (int32_t k = 0; k < n_in; k++) types[k] = &in[k];
  ein_plan_t p;
  BERTH_TRY(ein_plan(attrs, types, n_in, &p, out, diag));
  return berth_kernel_check_output("einsum", out, diag);
}

static void einsum_run(const berth_kernel_call_t *call) {
  const berth_type_t *types[BERTH_MAX_ATTR_INTS];
  berth_type_t out;
  for (int32_t k = 0; k < call->n_in; k++) types[k] = call->in[k].type;
  ein_plan_t p;
  ein_plan(call->attrs, types, call->n_in, &p, &out, NULL);
  int64_t n = berth_type_numel(&out);
  if (n == 0) return;
  ein_kernels[out.dtype](&p, call->in, call->out[0].data, n);
}

static const berth_attr_spec_t einsum_attrs[] = {{"terms", BERTH_ATTR_INTS, true, 0, 0},
                                                 {"output", BERTH_ATTR_INT, true, 0, 0}};
const berth_op_def_t berth_op_def_einsum = {"einsum", BERTH_OPKIND_KERNEL, 1, BERTH_MAX_ATTR_INTS, 1, 2, einsum_attrs,
                                            einsum_infer, einsum_run};
