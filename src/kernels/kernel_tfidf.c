/* tfidf(x, grams[, weights]) {mode, min_gram, max_gram, max_skip, size}: ONNX
 * TfIdfVectorizer over integer tokens.
 *
 * x (i32 or i64) is one row of tokens [C] or a batch of rows [N, C]. Each row is scanned
 * for the n-grams of `grams`, counted into `size` output coordinates, and weighted:
 *   - n-grams of length n in [min_gram, max_gram]; a 1-gram is counted once per position,
 *     an n-gram with n >= 2 once per position and skip distance d in 1..max_skip+1 (its
 *     tokens are x[p], x[p+d], ..., x[p+(n-1)d], all inside the row);
 *   - mode 0 (TF): the count; 1 (IDF): 1 where the count is nonzero, else 0; 2 (TFIDF): the
 *     count. With `weights` (f32 [size], IDF and TFIDF only) the value is multiplied by the
 *     weight of its output coordinate, as onnxruntime and the ONNX reference do.
 * The result is f32 [size] or [N, size].
 *
 * grams is the n-gram pool as a table i64 [K, max_gram + 2], one n-gram per row:
 *   [n, t_0, ..., t_{n-1}, 0 ..., coordinate]
 * sorted by (n, t_0, t_1, ...) with no two rows equal, which lets the kernel find a candidate
 * by binary search. The ONNX importer builds it from the node's attributes and checks every
 * number there; a table that breaks the order (a program written by hand) gives wrong counts
 * but never a read outside the table or a write outside the output: a row whose n or
 * coordinate is out of range is never counted.
 *
 * Counts are exact: they are kept as u32 in the output's own bytes, then converted, and
 * infer refuses a row long enough to overflow them. */
#include "base/checked.h"
#include "kernel_util.h"

#include <string.h>

enum { TF_MODE, TF_MIN_GRAM, TF_MAX_GRAM, TF_MAX_SKIP, TF_SIZE };
enum { TF_MODE_TF = 0, TF_MODE_IDF = 1, TF_MODE_TFIDF = 2 };

/* The longest n-gram berth counts (a cap on what a file controls; the pool's levels). */
#define TF_MAX_GRAM_CAP 64

/* The skip distances that can fit an n-gram of length >= 2 in a row of c tokens: at most
 * max_skip + 1, and no more than c (a distance d needs d * (n - 1) < c). */
static int64_t tf_max_distance(int64_t max_skip, int64_t c) { return max_skip < c ? max_skip + 1 : (c > 1 ? c : 1); }

static berth_status_t tfidf_check_attrs(const berth_attr_value_t *attrs, berth_diag_t *diag) {
  const char *op = "tfidf";
  int64_t mode = attrs[TF_MODE].i, lo = attrs[TF_MIN_GRAM].i, hi = attrs[TF_MAX_GRAM].i;
  if (mode < TF_MODE_TF || mode > TF_MODE_TFIDF)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: mode %lld, expected 0 (TF), 1 (IDF) or 2 (TFIDF)", op,
                      (long long)mode);
  if (lo < 1 || hi < lo || hi > TF_MAX_GRAM_CAP)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: n-gram lengths %lld..%lld, expected 1 <= min_gram <= max_gram <= %d",
                      op, (long long)lo, (long long)hi, TF_MAX_GRAM_CAP);
  if (attrs[TF_MAX_SKIP].i < 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: max_skip %lld, expected >= 0", op,
                      (long long)attrs[TF_MAX_SKIP].i);
  if (attrs[TF_SIZE].i < 1 || attrs[TF_SIZE].i > BERTH_MAX_DIM)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: size %lld, expected 1..%lld", op, (long long)attrs[TF_SIZE].i,
                      (long long)BERTH_MAX_DIM);
  return BERTH_OK;
}

static berth_status_t tfidf_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                  berth_diag_t *diag) {
  const char *op = "tfidf";
  char s[160];
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_tfidf, in, n_in, diag));
  BERTH_TRY(tfidf_check_attrs(attrs, diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 0, in[0].dtype, BERTH_DTYPE_BIT(I32) | BERTH_DTYPE_BIT(I64), diag));
  BERTH_TRY(berth_kernel_check_dtype(op, 1, in[1].dtype, BERTH_DTYPE_BIT(I64), diag));
  int64_t size = attrs[TF_SIZE].i, width = attrs[TF_MAX_GRAM].i + 2;
  if (in[0].rank != 1 && in[0].rank != 2)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: input %s, expected rank 1 [C] or 2 [N, C]", op,
                      berth_type_format(&in[0], s, sizeof s));
  if (in[1].rank != 2 || in[1].dims[1] != width)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: n-gram table %s, expected i64[K, %lld] (max_gram + 2 columns)", op,
                      berth_type_format(&in[1], s, sizeof s), (long long)width);
  if (n_in == 3) {
    if (attrs[TF_MODE].i == TF_MODE_TF)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: weights given in mode 0 (TF), which does not read them", op);
    BERTH_TRY(berth_kernel_check_dtype(op, 2, in[2].dtype, BERTH_DTYPE_BIT(F32), diag));
    if (in[2].rank != 1 || in[2].dims[0] != size)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: weights %s, expected f32[%lld] (one per output coordinate)", op,
                        berth_type_format(&in[2], s, sizeof s), (long long)size);
  }
  /* the most increments one row can make: C per length and skip distance */
  int64_t c = in[0].dims[in[0].rank - 1], levels = attrs[TF_MAX_GRAM].i - attrs[TF_MIN_GRAM].i + 1, most;
  if (!berth_mul_i64(c, tf_max_distance(attrs[TF_MAX_SKIP].i, c), &most) || !berth_mul_i64(most, levels, &most) ||
      most > (int64_t)UINT32_MAX)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: rows of %lld tokens with %lld lengths and max_skip %lld could count past 2^32",
                      op, (long long)c, (long long)levels, (long long)attrs[TF_MAX_SKIP].i);
  berth_kernel_type_init(&out[0], BERTH_DTYPE_F32, in[0].rank);
  if (in[0].rank == 2) out[0].dims[0] = in[0].dims[0];
  out[0].dims[in[0].rank - 1] = size;
  return berth_kernel_check_output(op, &out[0], diag);
}

/* ---- run -------------------------------------------------------------------------------- */

typedef struct tf_row {
  const void *x; /* the row's first token */
  bool wide;     /* i64 tokens (else i32) */
  const int64_t *grams;
  int64_t width; /* columns of the table */
} tf_row_t;

static inline int64_t tf_tok(const tf_row_t *r, int64_t i) {
  return r->wide ? ((const int64_t *)r->x)[i] : (int64_t)((const int32_t *)r->x)[i];
}

/* The first table row in [lo, hi) whose length column is >= n (the table is sorted by it). */
static int64_t tf_lower_len(const tf_row_t *r, int64_t lo, int64_t hi, int64_t n) {
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (r->grams[mid * r->width] < n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The table row in [lo, hi) (all of length n) equal to the n tokens at p, p+d, ...; -1 if none. */
static int64_t tf_find(const tf_row_t *r, int64_t lo, int64_t hi, int64_t n, int64_t p, int64_t d) {
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    const int64_t *g = r->grams + mid * r->width + 1;
    int cmp = 0;
    for (int64_t j = 0; j < n && cmp == 0; j++) {
      int64_t t = tf_tok(r, p + j * d);
      cmp = t < g[j] ? -1 : t > g[j] ? 1 : 0;
    }
    if (cmp == 0) return mid;
    if (cmp < 0) hi = mid;
    else lo = mid + 1;
  }
  return -1;
}

/* Counts the n-grams of one row into cnt[size]. */
static void tf_count_row(const berth_kernel_call_t *call, const tf_row_t *r, int64_t c, uint32_t *cnt) {
  const berth_attr_value_t *a = call->attrs;
  int64_t k_rows = call->in[1].type->dims[0], size = a[TF_SIZE].i;
  for (int64_t n = a[TF_MIN_GRAM].i; n <= a[TF_MAX_GRAM].i; n++) {
    int64_t lo = tf_lower_len(r, 0, k_rows, n), hi = tf_lower_len(r, lo, k_rows, n + 1);
    if (lo == hi) continue;
    int64_t dmax = n == 1 ? 1 : tf_max_distance(a[TF_MAX_SKIP].i, c);
    for (int64_t d = 1; d <= dmax && d * (n - 1) < c; d++)
      for (int64_t p = 0; p + d * (n - 1) < c; p++) {
        int64_t k = tf_find(r, lo, hi, n, p, d);
        if (k < 0) continue;
        int64_t at = r->grams[k * r->width + r->width - 1];
        if (at >= 0 && at < size) cnt[at]++;
      }
  }
}

static void tfidf_run(const berth_kernel_call_t *call) {
  const berth_type_t *xt = call->in[0].type;
  const berth_attr_value_t *a = call->attrs;
  int64_t c = xt->dims[xt->rank - 1], rows = xt->rank == 2 ? xt->dims[0] : 1, size = a[TF_SIZE].i;
  const float *w = call->n_in == 3 ? (const float *)call->in[2].data : NULL;
  tf_row_t r = {call->in[0].data, xt->dtype == BERTH_DTYPE_I64, (const int64_t *)call->in[1].data, a[TF_MAX_GRAM].i + 2};
  size_t tok = berth_dtype_size(xt->dtype);
  unsigned char *out = (unsigned char *)call->out[0].data;
  for (int64_t i = 0; i < rows; i++) {
    /* the counts live in the row's output bytes (u32 and f32 have one size) until converted */
    unsigned char *row = out + (size_t)(i * size) * sizeof(float);
    uint32_t *cnt = (uint32_t *)(void *)row;
    memset(cnt, 0, (size_t)size * sizeof(uint32_t));
    r.x = (const unsigned char *)call->in[0].data + (size_t)(i * c) * tok;
    tf_count_row(call, &r, c, cnt);
    for (int64_t j = 0; j < size; j++) {
      uint32_t f;
      memcpy(&f, row + (size_t)j * sizeof f, sizeof f);
      float v = a[TF_MODE].i == TF_MODE_IDF ? (f > 0 ? 1.0f : 0.0f) : (float)f;
      if (w) v = a[TF_MODE].i == TF_MODE_IDF ? (f > 0 ? w[j] : 0.0f) : v * w[j];
      memcpy(row + (size_t)j * sizeof v, &v, sizeof v);
    }
  }
}

static const berth_attr_spec_t tfidf_attrs[] = {
    {"mode", BERTH_ATTR_INT, false, TF_MODE_TF, 0}, {"min_gram", BERTH_ATTR_INT, false, 1, 0},
    {"max_gram", BERTH_ATTR_INT, false, 1, 0},      {"max_skip", BERTH_ATTR_INT, false, 0, 0},
    {"size", BERTH_ATTR_INT, true, 1, 0},
};
const berth_op_def_t berth_op_def_tfidf = {"tfidf", BERTH_OPKIND_KERNEL, 2, 3, 1, 5, tfidf_attrs, tfidf_infer, tfidf_run};
