/* Element types and static tensor types. */
#include "berth/types.h"

#include "berth/status.h"
#include "checked.h"

#include <string.h>

static const struct {
  const char *name;
  size_t size;
} dtype_info[BERTH_DTYPE_COUNT] = {
#define BERTH_X(E, n, s) {#n, s},
    BERTH_DTYPE_LIST(BERTH_X)
#undef BERTH_X
};

size_t berth_dtype_size(berth_dtype_t d) {
  return (unsigned)d < BERTH_DTYPE_COUNT ? dtype_info[d].size : 0;
}

const char *berth_dtype_name(berth_dtype_t d) {
  return (unsigned)d < BERTH_DTYPE_COUNT ? dtype_info[d].name : "?";
}

bool berth_dtype_from_name(const char *name, size_t len, berth_dtype_t *out) {
  for (int i = 0; i < BERTH_DTYPE_COUNT; i++) {
    if (strlen(dtype_info[i].name) == len && memcmp(dtype_info[i].name, name, len) == 0) {
      *out = (berth_dtype_t)i;
      return true;
    }
  }
  return false;
}

bool berth_dtype_is_float(berth_dtype_t d) { return d == BERTH_DTYPE_F32 || d == BERTH_DTYPE_F64; }

bool berth_dtype_is_signed_int(berth_dtype_t d) {
  return d == BERTH_DTYPE_I8 || d == BERTH_DTYPE_I16 || d == BERTH_DTYPE_I32 || d == BERTH_DTYPE_I64;
}

bool berth_dtype_is_unsigned_int(berth_dtype_t d) {
  return d == BERTH_DTYPE_U8 || d == BERTH_DTYPE_U16 || d == BERTH_DTYPE_U32 || d == BERTH_DTYPE_U64;
}

int64_t berth_type_numel(const berth_type_t *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

size_t berth_type_bytes(const berth_type_t *t) {
  return (size_t)berth_type_numel(t) * berth_dtype_size(t->dtype);
}

bool berth_type_equal(const berth_type_t *a, const berth_type_t *b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

bool berth_type_check(const berth_type_t *t) {
  if ((unsigned)t->dtype >= BERTH_DTYPE_COUNT) return false;
  if (t->rank < 0 || t->rank > BERTH_MAX_RANK) return false;
  int64_t n = (int64_t)berth_dtype_size(t->dtype);
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0 || t->dims[i] > BERTH_MAX_DIM) return false;
    if (!berth_mul_i64(n, t->dims[i], &n)) return false;
    if (n > BERTH_MAX_TENSOR_BYTES) return false;
  }
  return true;
}

char *berth_type_format(const berth_type_t *t, char *buf, size_t cap) {
  size_t len = berth_snprintf(buf, cap, "%s[", berth_dtype_name(t->dtype));
  for (int i = 0; i < t->rank && len < cap; i++)
    len += berth_snprintf(buf + len, cap - len, i ? ",%lld" : "%lld", (long long)t->dims[i]);
  if (len < cap) berth_snprintf(buf + len, cap - len, "]");
  return buf;
}
