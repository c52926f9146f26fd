/* topk(x) {axis, k, largest, sorted} -> (values, indices i64): ONNX TopK. The k largest
 * (largest = 1) or smallest elements of each line of x along axis, best first; equal values
 * go in index order (the lower index first), and NaN ranks above every number (so it is
 * among the largest, never among the smallest, as numpy's sort has it). The result is
 * always sorted, which sorted = 0 allows too.
 *
 * No scratch memory: the indices output holds a heap of the k best so far (the worst at the
 * root) while a line is scanned, O(n log k), then is sorted in place. */
#include "kernel_util.h"

#include <string.h>

enum { TOPK_AXIS, TOPK_K, TOPK_LARGEST, TOPK_SORTED };

typedef struct topk_plan {
  int32_t axis;
  int64_t k, outer, n, inner;
  bool largest;
} topk_plan_t;

static berth_status_t topk_plan(const berth_attr_value_t *attrs, const berth_type_t *x, topk_plan_t *p,
                                berth_type_t *out, berth_diag_t *diag) {
  char a[160];
  bool sorted;
  if (x->rank == 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "topk: input %s is a scalar, expected rank >= 1",
                      berth_type_format(x, a, sizeof a));
  BERTH_TRY(berth_kernel_axis("topk", "axis", attrs[TOPK_AXIS].i, x->rank, &p->axis, diag));
  BERTH_TRY(berth_kernel_get_flag("topk", "largest", &attrs[TOPK_LARGEST], &p->largest, diag));
  BERTH_TRY(berth_kernel_get_flag("topk", "sorted", &attrs[TOPK_SORTED], &sorted, diag));
  p->k = attrs[TOPK_K].i;
  p->n = x->dims[p->axis];
  if (p->k < 0 || p->k > p->n)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "topk: k is %lld for axis %d of %s, expected 0 to %lld",
                      (long long)p->k, (int)p->axis, berth_type_format(x, a, sizeof a), (long long)p->n);
  p->outer = p->inner = 1;
  bool empty = berth_kernel_is_empty(x);
  for (int32_t k = 0; k < x->rank; k++) {
    if (!empty && k < p->axis) p->outer *= x->dims[k];
    if (!empty && k > p->axis) p->inner *= x->dims[k];
  }
  berth_kernel_type_init(&out[0], x->dtype, x->rank);
  memcpy(out[0].dims, x->dims, sizeof x->dims);
  out[0].dims[p->axis] = p->k;
  out[1] = out[0];
  out[1].dtype = BERTH_DTYPE_I64;
  return BERTH_OK;
}

/* i ranks before j: a better value, or an equal one at a lower index. */
#define BEFORE_I(xi, xj, i, j, lg) ((lg) ? ((xi) > (xj) || ((xi) == (xj) && (i) < (j))) \
                                         : ((xi) < (xj) || ((xi) == (xj) && (i) < (j))))
#define NANLT(a, b) ((a) < (b) || ((a) == (a) && (b) != (b))) /* NaN above every number */
#define NANEQ(a, b) ((a) == (b) || ((a) != (a) && (b) != (b)))
#define BEFORE_F(xi, xj, i, j, lg) ((lg) ? (NANLT(xj, xi) || (NANEQ(xi, xj) && (i) < (j))) \
                                         : (NANLT(xi, xj) || (NANEQ(xi, xj) && (i) < (j))))

/* The heap h[0..m) (stride hs) orders by "ranks after": the root is the worst kept. */
#define TOPK_FN(s, T, BEFORE)                                                                     \
  static void sift_##s(const T *x, int64_t xs, int64_t *h, int64_t hs, int64_t m, int64_t r, bool lg) { \
    for (;;) {                                                                                    \
      int64_t c = 2 * r + 1, w = r;                                                               \
      if (c < m && BEFORE(x[h[w * hs] * xs], x[h[c * hs] * xs], h[w * hs], h[c * hs], lg)) w = c; \
      c++;                                                                                        \
      if (c < m && BEFORE(x[h[w * hs] * xs], x[h[c * hs] * xs], h[w * hs], h[c * hs], lg)) w = c; \
      if (w == r) return;                                                                         \
      int64_t t = h[r * hs];                                                                      \
      h[r * hs] = h[w * hs];                                                                      \
      h[w * hs] = t;                                                                              \
      r = w;                                                                                      \
    }                                                                                             \
  }                                                                                               \
  static void topk_##s(const topk_plan_t *p, const void *in_, void *vals_, int64_t *idx) {        \
    const T *in = (const T *)in_;                                                                 \
    T *vals = (T *)vals_;                                                                         \
    int64_t n = p->n, k = p->k, inner = p->inner;                                                 \
    bool lg = p->largest;                                                                         \
    for (int64_t o = 0; o < p->outer; o++)                                                        \
      for (int64_t j = 0; j < inner; j++) {                                                       \
        const T *x = in + o * n * inner + j;                                                      \
        int64_t *h = idx + o * k * inner + j;                                                     \
        T *v = vals + o * k * inner + j;                                                          \
        for (int64_t i = 0; i < k; i++) h[i * inner] = i;                                         \
        for (int64_t r = k / 2 - 1; r >= 0; r--) sift_##s(x, inner, h, inner, k, r, lg);          \
        for (int64_t i = k; i < n; i++)                                                           \
          if (BEFORE(x[i * inner], x[h[0] * inner], i, h[0], lg)) {                               \
            h[0] = i;                                                                             \
            sift_##s(x, inner, h, inner, k, 0, lg);                                               \
          }                                                                                       \
        for (int64_t m = k - 1; m > 0; m--) { /* the worst goes last */                           \
          int64_t t = h[0];                                                                       \
          h[0] = h[m * inner];                                                                    \
          h[m * inner] = t;                                                                       \
          sift_##s(x, inner, h, inner, m, 0, lg);                                                 \
        }                                                                                         \
        for (int64_t i = 0; i < k; i++) v[i * inner] = x[h[i * inner] * inner];                   \
      }                                                                                           \
  }
#define TOPK_INT(E, s, T, U) TOPK_FN(s, T, BEFORE_I)
#define TOPK_FLOAT(E, s, T, U) TOPK_FN(s, T, BEFORE_F)
BERTH_KERNEL_INT_LIST(TOPK_INT)
BERTH_KERNEL_FLOAT_LIST(TOPK_FLOAT)

typedef void (*topk_fn)(const topk_plan_t *p, const void *in, void *vals, int64_t *idx);
#define TOPK_ENTRY(E, s, T, U) [BERTH_DTYPE_##E] = topk_##s,
static const topk_fn topk_kernels[BERTH_DTYPE_COUNT] = {BERTH_KERNEL_NUM_LIST(TOPK_ENTRY)};

static berth_status_t topk_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                 berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_topk, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("topk", 0, in[0].dtype, BERTH_MASK_NUM, diag));
  topk_plan_t p;
  return topk_plan(attrs, &in[0], &p, out, diag);
}

static void topk_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  topk_plan_t p;
  berth_type_t out[2];
  topk_plan(call->attrs, x, &p, out, NULL);
  if (berth_kernel_is_empty(&out[0])) return;
  topk_kernels[x->dtype](&p, call->in[0].data, call->out[0].data, (int64_t *)call->out[1].data);
}

static const berth_attr_spec_t topk_attrs[] = {{"axis", BERTH_ATTR_INT, false, -1, 0},
                                               {"k", BERTH_ATTR_INT, true, 0, 0},
                                               {"largest", BERTH_ATTR_INT, false, 1, 0},
                                               {"sorted", BERTH_ATTR_INT, false, 1, 0}};
const berth_op_def_t berth_op_def_topk = {"topk", BERTH_OPKIND_KERNEL, 1, 1, 2, 4, topk_attrs, topk_infer, topk_run};
