/* Running sums and products along one axis: cumsum(x) {axis, exclusive, reverse} and
 * cumprod(x) {axis, exclusive, reverse} (ONNX CumSum, CumProd). Numeric dtypes; integers
 * wrap. exclusive: element i holds the fold of the elements before i (the first is 0 or 1);
 * reverse: the fold runs from the end. The result has x's type. */
#include "kernel_util.h"

enum { CUM_AXIS, CUM_EXCLUSIVE, CUM_REVERSE };

typedef struct cum_plan {
  int64_t outer, n, inner;
  bool exclusive, reverse;
} cum_plan_t;

static berth_status_t cum_plan(const char *op, const berth_attr_value_t *attrs, const berth_type_t *x, cum_plan_t *p,
                               berth_diag_t *diag) {
  int32_t axis;
  if (x->rank == 0) {
    char a[160];
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: input %s is a scalar, expected rank >= 1", op,
                      berth_type_format(x, a, sizeof a));
  }
  BERTH_TRY(berth_kernel_axis(op, "axis", attrs[CUM_AXIS].i, x->rank, &axis, diag));
  BERTH_TRY(berth_kernel_get_flag(op, "exclusive", &attrs[CUM_EXCLUSIVE], &p->exclusive, diag));
  BERTH_TRY(berth_kernel_get_flag(op, "reverse", &attrs[CUM_REVERSE], &p->reverse, diag));
  p->outer = p->inner = 1;
  p->n = x->dims[axis];
  if (berth_kernel_is_empty(x)) return BERTH_OK; /* products only of a nonempty tensor's dims */
  for (int32_t k = 0; k < axis; k++) p->outer *= x->dims[k];
  for (int32_t k = axis + 1; k < x->rank; k++) p->inner *= x->dims[k];
  return BERTH_OK;
}

#define CUM_ADD(a, v, T, U) (T)((U)(a) + (U)(v))
#define CUM_MUL(a, v, T, U) (T)((U)(a) * (U)(v))

/* Walks each line along the axis (stride inner) forwards or backwards. */
#define CUM_FN(name, s, T, U, OP, IDENT)                                                     \
  static void name##_##s(const cum_plan_t *p, const void *in_, void *out_) {                 \
    const T *in = (const T *)in_;                                                            \
    T *out = (T *)out_;                                                                      \
    int64_t n = p->n, inner = p->inner;                                                      \
    for (int64_t o = 0; o < p->outer; o++)                                                   \
      for (int64_t j = 0; j < inner; j++) {                                                  \
        const T *x = in + o * n * inner + j;                                                 \
        T *y = out + o * n * inner + j;                                                      \
        T acc = (T)(IDENT);                                                                  \
        for (int64_t t = 0; t < n; t++) {                                                    \
          int64_t i = (p->reverse ? n - 1 - t : t) * inner;                                  \
          if (p->exclusive) {                                                                \
            y[i] = acc;                                                                      \
            acc = OP(acc, x[i], T, U);                                                       \
          } else {                                                                           \
            acc = OP(acc, x[i], T, U);                                                       \
            y[i] = acc;                                                                      \
          }                                                                                  \
        }                                                                                    \
      }                                                                                      \
  }
#define CUM_BOTH(E, s, T, U) CUM_FN(cumsum, s, T, U, CUM_ADD, 0) CUM_FN(cumprod, s, T, U, CUM_MUL, 1)
BERTH_KERNEL_NUM_LIST(CUM_BOTH)

typedef void (*cum_fn)(const cum_plan_t *p, const void *in, void *out);
#define CUM_ENTRY(name, E, s) [BERTH_DTYPE_##E] = name##_##s,
#define CUMSUM_ENTRY(E, s, T, U) CUM_ENTRY(cumsum, E, s)
#define CUMPROD_ENTRY(E, s, T, U) CUM_ENTRY(cumprod, E, s)
static const cum_fn cumsum_kernels[BERTH_DTYPE_COUNT] = {BERTH_KERNEL_NUM_LIST(CUMSUM_ENTRY)};
static const cum_fn cumprod_kernels[BERTH_DTYPE_COUNT] = {BERTH_KERNEL_NUM_LIST(CUMPROD_ENTRY)};

static berth_status_t cum_infer(const berth_op_def_t *def, const berth_attr_value_t *attrs, const berth_type_t *in,
                                int32_t n_in, berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(def, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype(def->name, 0, in[0].dtype, BERTH_MASK_NUM, diag));
  cum_plan_t p;
  BERTH_TRY(cum_plan(def->name, attrs, &in[0], &p, diag));
  out[0] = in[0];
  return BERTH_OK;
}

static void cum_run(const cum_fn *kernels, const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  if (berth_kernel_is_empty(x)) return;
  cum_plan_t p;
  cum_plan("", call->attrs, x, &p, NULL);
  kernels[x->dtype](&p, call->in[0].data, call->out[0].data);
}

static berth_status_t cumsum_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                   berth_type_t *out, berth_diag_t *diag) {
  return cum_infer(&berth_op_def_cumsum, attrs, in, n_in, out, diag);
}
static berth_status_t cumprod_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                    berth_type_t *out, berth_diag_t *diag) {
  return cum_infer(&berth_op_def_cumprod, attrs, in, n_in, out, diag);
}
static void cumsum_run(const berth_kernel_call_t *call) { cum_run(cumsum_kernels, call); }
static void cumprod_run(const berth_kernel_call_t *call) { cum_run(cumprod_kernels, call); }

static const berth_attr_spec_t cum_attrs[] = {{"axis", BERTH_ATTR_INT, false, 0, 0},
                                              {"exclusive", BERTH_ATTR_INT, false, 0, 0},
                                              {"reverse", BERTH_ATTR_INT, false, 0, 0}};
const berth_op_def_t berth_op_def_cumsum = {"cumsum", BERTH_OPKIND_KERNEL, 1, 1, 1, 3, cum_attrs, cumsum_infer,
                                            cumsum_run};
const berth_op_def_t berth_op_def_cumprod = {"cumprod", BERTH_OPKIND_KERNEL, 1, 1, 1, 3, cum_attrs, cumprod_infer,
                                             cumprod_run};
