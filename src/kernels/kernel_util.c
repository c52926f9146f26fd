/* Shared kernel helpers: checks with messages, broadcasting plans, strided copies. */
#include "kernel_util.h"

#include <string.h>

/* ==== infer-side checks ============================================================== */

void berth_kernel_dtype_names(uint32_t mask, char *buf, size_t cap) {
  size_t len = 0;
  if (cap) buf[0] = '\0';
  for (int d = 0; d < BERTH_DTYPE_COUNT; d++) {
    if (!(mask & (1u << d))) continue;
    if (len >= cap) break;
    len += berth_snprintf(buf + len, cap - len, len ? ", %s" : "%s", berth_dtype_name((berth_dtype_t)d));
  }
}

void berth_kernel_type_init(berth_type_t *out, berth_dtype_t dtype, int32_t rank) {
  memset(out, 0, sizeof *out);
  out->dtype = dtype;
  out->rank = rank;
}

berth_status_t berth_kernel_check_inputs(const berth_op_def_t *def, const berth_type_t *in,
                                         int32_t n_in, berth_diag_t *diag) {
  int32_t max_in = def->max_in < 0 ? BERTH_MAX_KERNEL_OPERANDS : def->max_in;
  if (n_in < def->min_in || n_in > max_in) {
    if (def->min_in == max_in)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: got %d operands, expected %d",
                        def->name, (int)n_in, (int)def->min_in);
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: got %d operands, expected %d to %d",
                      def->name, (int)n_in, (int)def->min_in, (int)max_in);
  }
  for (int32_t i = 0; i < n_in; i++) {
    if (!berth_type_check(&in[i]))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "%s: operand %d has an invalid type (dtype %d, rank %d; expected a known "
                        "dtype, rank 0..%d and dims within berth's size limits)",
                        def->name, (int)i, (int)in[i].dtype, (int)in[i].rank, BERTH_MAX_RANK);
  }
  return BERTH_OK;
}

berth_status_t berth_kernel_check_dtype(const char *op, int32_t operand, berth_dtype_t dt,
                                        uint32_t mask, berth_diag_t *diag) {
  if ((unsigned)dt < BERTH_DTYPE_COUNT && (mask & (1u << dt))) return BERTH_OK;
  char names[128];
  berth_kernel_dtype_names(mask, names, sizeof names);
  return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: operand %d has dtype %s, expected %s%s",
                    op, (int)operand, berth_dtype_name(dt),
                    (mask & (mask - 1)) ? "one of " : "", names);
}

berth_status_t berth_kernel_check_same_dtype(const char *op, const berth_type_t *in, int32_t first,
                                             int32_t i, berth_diag_t *diag) {
  if (in[i].dtype == in[first].dtype) return BERTH_OK;
  return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: operand %d has dtype %s, expected %s like operand %d",
                    op, (int)i, berth_dtype_name(in[i].dtype), berth_dtype_name(in[first].dtype),
                    (int)first);
}

berth_status_t berth_kernel_check_output(const char *op, const berth_type_t *out, berth_diag_t *diag) {
  if (berth_type_check(out)) return BERTH_OK;
  char buf[160];
  return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE,
                    "%s: result %s exceeds berth's limits (rank <= %d, dims <= 2^40, <= 2^40 bytes)",
                    op, berth_type_format(out, buf, sizeof buf), BERTH_MAX_RANK);
}

berth_status_t berth_kernel_check_ints(const char *op, const char *attr, const berth_attr_value_t *v,
                                       berth_diag_t *diag) {
  if (v->n >= 0 && v->n <= BERTH_MAX_ATTR_INTS) return BERTH_OK;
  return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: attribute %s has %d values, expected 0 to %d",
                    op, attr, (int)v->n, BERTH_MAX_ATTR_INTS);
}

berth_status_t berth_kernel_get_dtype(const char *op, const char *attr, const berth_attr_value_t *v,
                                      berth_dtype_t *out, berth_diag_t *diag) {
  if (v->i < 0 || v->i >= BERTH_DTYPE_COUNT)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: attribute %s is %lld, not a dtype", op,
                      attr, (long long)v->i);
  *out = (berth_dtype_t)v->i;
  return BERTH_OK;
}

berth_status_t berth_kernel_get_flag(const char *op, const char *attr, const berth_attr_value_t *v,
                                     bool *out, berth_diag_t *diag) {
  if (v->i != 0 && v->i != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: attribute %s is %lld, expected 0 or 1",
                      op, attr, (long long)v->i);
  *out = v->i == 1;
  return BERTH_OK;
}

berth_status_t berth_kernel_axis(const char *op, const char *attr, int64_t axis, int32_t rank,
                                 int32_t *out, berth_diag_t *diag) {
  if (axis < -(int64_t)rank || axis >= rank) {
    if (rank == 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "%s: %s %lld is out of range for a rank-0 operand (it has no axes)", op, attr,
                        (long long)axis);
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "%s: %s %lld is out of range for rank %d (expected %d..%d)",
                      op, attr, (long long)axis, (int)rank, -(int)rank, (int)rank - 1);
  }
  *out = (int32_t)(axis < 0 ? axis + rank : axis);
  return BERTH_OK;
}

berth_status_t berth_kernel_broadcast(const char *op, const berth_type_t *in, int32_t n,
                                      berth_type_t *out, berth_diag_t *diag) {
  int32_t rank = 0;
  for (int32_t j = 0; j < n; j++)
    if (in[j].rank > rank) rank = in[j].rank;
  int64_t dims[BERTH_MAX_RANK];
  for (int32_t k = 0; k < rank; k++) {
    int64_t dim = 1;
    int32_t from = -1;
    for (int32_t j = 0; j < n; j++) {
      int32_t kj = k - (rank - in[j].rank);
      if (kj < 0) continue;
      int64_t d = in[j].dims[kj];
      if (d == 1 || d == dim) continue;
      if (dim != 1) {
        char a[160], b[160];
        return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                          "%s: operand %d %s and operand %d %s do not broadcast (dim %d from the end: %lld vs %lld; "
                          "expected equal sizes or 1)",
                          op, (int)from, berth_type_format(&in[from], a, sizeof a), (int)j,
                          berth_type_format(&in[j], b, sizeof b), (int)(rank - k), (long long)dim,
                          (long long)d);
      }
      dim = d;
      from = j;
    }
    dims[k] = dim;
  }
  out->rank = rank;
  for (int32_t k = 0; k < BERTH_MAX_RANK; k++) out->dims[k] = k < rank ? dims[k] : 0;
  return BERTH_OK;
}

/* ==== run-side helpers =============================================================== */

void berth_kernel_strides(const berth_type_t *t, int64_t strides[BERTH_MAX_RANK]) {
  /* An empty tensor is never read. Its suffix products could overflow (a valid type bounds
   * only the products up to its first zero dim), so its strides are all 0. */
  for (int32_t k = 0; k < t->rank; k++) {
    if (t->dims[k] == 0) {
      for (int32_t j = 0; j < t->rank; j++) strides[j] = 0;
      return;
    }
  }
  int64_t s = 1;
  for (int32_t k = t->rank - 1; k >= 0; k--) {
    strides[k] = s;
    s *= t->dims[k];
  }
}

void berth_bcast_init(berth_bcast_t *p, const berth_type_t *out, const berth_tensor_ref_t *in,
                      int32_t n_in) {
  int32_t R = out->rank;
  int64_t full[BERTH_BCAST_MAX_IN][BERTH_MAX_RANK];
  for (int32_t j = 0; j < n_in; j++) {
    const berth_type_t *t = in[j].type;
    int64_t s[BERTH_MAX_RANK];
    berth_kernel_strides(t, s);
    for (int32_t k = 0; k < R; k++) {
      int32_t kj = k - (R - t->rank);
      full[j][k] = (kj < 0 || t->dims[kj] == 1) ? 0 : s[kj];
    }
  }
  p->n_in = n_in;
  p->rank = 0;
  p->numel = 1;
  for (int32_t k = 0; k < R; k++) {
    int64_t d = out->dims[k];
    p->numel *= d;
    if (d == 1) continue;
    int32_t r = p->rank;
    bool merge = r > 0;
    for (int32_t j = 0; j < n_in && merge; j++)
      if (p->strides[j][r - 1] != full[j][k] * d) merge = false;
    if (merge) {
      p->dims[r - 1] *= d;
      for (int32_t j = 0; j < n_in; j++) p->strides[j][r - 1] = full[j][k];
    } else {
      p->dims[r] = d;
      for (int32_t j = 0; j < n_in; j++) p->strides[j][r] = full[j][k];
      p->rank++;
    }
  }
  if (p->rank == 0) {
    p->rank = 1;
    p->dims[0] = 1;
    for (int32_t j = 0; j < n_in; j++) p->strides[j][0] = 0;
  }
}

/* Advances the odometer over the outer dims (all but the innermost); returns nothing,
 * the caller counts rows. */
static inline void bcast_next(const berth_bcast_t *p, int64_t *idx, int64_t *off) {
  for (int32_t k = p->rank - 2; k >= 0; k--) {
    for (int32_t j = 0; j < p->n_in; j++) off[j] += p->strides[j][k];
    if (++idx[k] < p->dims[k]) return;
    for (int32_t j = 0; j < p->n_in; j++) off[j] -= p->strides[j][k] * p->dims[k];
    idx[k] = 0;
  }
}

void berth_bcast_run2(const berth_bcast_t *p, berth_row2_fn fn, void *out, size_t out_size,
                      const void *a, size_t a_size, const void *b, size_t b_size) {
  if (p->numel == 0) return;
  int64_t n = p->dims[p->rank - 1];
  int sa = p->strides[0][p->rank - 1] != 0, sb = p->strides[1][p->rank - 1] != 0;
  int64_t rows = p->numel / n;
  int64_t idx[BERTH_MAX_RANK] = {0}, off[BERTH_BCAST_MAX_IN] = {0};
  char *o = (char *)out;
  for (int64_t r = 0; r < rows; r++) {
    fn(o, (const char *)a + off[0] * (int64_t)a_size, (const char *)b + off[1] * (int64_t)b_size, n, sa, sb);
    o += n * (int64_t)out_size;
    bcast_next(p, idx, off);
  }
}

void berth_bcast_run3(const berth_bcast_t *p, berth_row3_fn fn, void *out, size_t out_size,
                      const void *a, size_t a_size, const void *b, size_t b_size, const void *c,
                      size_t c_size) {
  if (p->numel == 0) return;
  int32_t last = p->rank - 1;
  int64_t n = p->dims[last];
  int sa = p->strides[0][last] != 0, sb = p->strides[1][last] != 0, sc = p->strides[2][last] != 0;
  int64_t rows = p->numel / n;
  int64_t idx[BERTH_MAX_RANK] = {0}, off[BERTH_BCAST_MAX_IN] = {0};
  char *o = (char *)out;
  for (int64_t r = 0; r < rows; r++) {
    fn(o, (const char *)a + off[0] * (int64_t)a_size, (const char *)b + off[1] * (int64_t)b_size,
       (const char *)c + off[2] * (int64_t)c_size, n, sa, sb, sc);
    o += n * (int64_t)out_size;
    bcast_next(p, idx, off);
  }
}

/* ---- strided gather --------------------------------------------------------------- */

#define GATHER_ROW(T)                                  \
  do {                                                 \
    T *o_ = (T *)o;                                    \
    const T *i_ = (const T *)src;                      \
    for (int64_t j = 0; j < n; j++) o_[j] = i_[j * s]; \
  } while (0)

static void gather_row(char *o, const char *src, int64_t n, int64_t s, size_t esize) {
  if (s == 1) {
    memcpy(o, src, (size_t)n * esize);
    return;
  }
  switch (esize) {
    case 1: GATHER_ROW(uint8_t); break;
    case 2: GATHER_ROW(uint16_t); break;
    case 4: GATHER_ROW(uint32_t); break;
    case 8: GATHER_ROW(uint64_t); break;
    default:
      for (int64_t j = 0; j < n; j++) memcpy(o + j * (int64_t)esize, src + j * s * (int64_t)esize, esize);
      break;
  }
}

int32_t berth_kernel_merge_axes(int32_t rank, const int64_t *dims, const int64_t *strides, int64_t *d, int64_t *s) {
  int32_t r = 0;
  for (int32_t k = 0; k < rank; k++)
    if (dims[k] == 0) return -1;
  for (int32_t k = 0; k < rank; k++) {
    if (dims[k] == 1) continue;
    if (r > 0 && s[r - 1] == strides[k] * dims[k]) {
      d[r - 1] *= dims[k];
      s[r - 1] = strides[k];
    } else {
      d[r] = dims[k];
      s[r++] = strides[k];
    }
  }
  return r;
}

void berth_kernel_gather(void *out, const void *in, size_t esize, int32_t rank, const int64_t *dims,
                         const int64_t *strides, int64_t base) {
  int64_t d[BERTH_MAX_RANK], s[BERTH_MAX_RANK];
  const int32_t r = berth_kernel_merge_axes(rank, dims, strides, d, s);
  if (r < 0) return;
  const char *src = (const char *)in;
  char *o = (char *)out;
  if (r == 0) {
    memcpy(o, src + base * (int64_t)esize, esize);
    return;
  }
  int64_t n = d[r - 1], rows = 1;
  for (int32_t k = 0; k < r - 1; k++) rows *= d[k];
  int64_t idx[BERTH_MAX_RANK] = {0}, off = base;
  for (int64_t row = 0; row < rows; row++) {
    gather_row(o, src + off * (int64_t)esize, n, s[r - 1], esize);
    o += n * (int64_t)esize;
    for (int32_t k = r - 2; k >= 0; k--) {
      off += s[k];
      if (++idx[k] < d[k]) break;
      off -= s[k] * d[k];
      idx[k] = 0;
    }
  }
}
