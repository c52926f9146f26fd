/* Helpers for the kernel tests: build a call (attributes by name, typed inputs), run infer
 * and run, compare the result with hand-computed values, and check rejections.
 *
 *   tcall_t c = tc_op(&berth_op_def_add);
 *   tc_arg(&c, ty(BERTH_DTYPE_F32, 1, 2), (float[]){1, 2});
 *   tc_arg(&c, ty(BERTH_DTYPE_F32, 0), (float[]){10});
 *   EXPECT(&c, ty(BERTH_DTYPE_F32, 1, 2), (float[]){11, 12});
 *   EXPECT_REJECT(&c, "expected f32");
 *
 * Outputs are malloc'd with their exact size and pre-filled with garbage, so a kernel that
 * skips an element or writes past the end fails (the latter under ASan). */
#ifndef BERTH_TESTS_TEST_KERNEL_UTIL_H
#define BERTH_TESTS_TEST_KERNEL_UTIL_H

#include "kernels/op_table.h"
#include "test_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TC_MAX_IN 70

typedef struct tcall {
  const berth_op_def_t *def;
  berth_attr_value_t attrs[BERTH_MAX_OP_ATTRS];
  int32_t n_in;
  berth_type_t in[TC_MAX_IN];
  const void *data[TC_MAX_IN];
  int64_t scratch_max; /* < 0: the scratch the planner would give; else at most this many bytes */
} tcall_t;

static inline berth_type_t ty(berth_dtype_t dtype, int rank, ...) {
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.rank = rank;
  va_list ap;
  va_start(ap, rank);
  for (int k = 0; k < rank && k < BERTH_MAX_RANK; k++) t.dims[k] = va_arg(ap, int);
  va_end(ap);
  return t;
}

static inline tcall_t tc_op(const berth_op_def_t *def) {
  tcall_t c;
  memset(&c, 0, sizeof c);
  c.def = def;
  c.scratch_max = -1;
  berth_op_attrs_default(def, c.attrs);
  return c;
}

static inline void tc_arg(tcall_t *c, berth_type_t t, const void *data) {
  static const uint64_t dummy[1] = {0}; /* for empty tensors */
  c->in[c->n_in] = t;
  c->data[c->n_in++] = data ? data : dummy;
}

static inline berth_attr_value_t *tc_attr(tcall_t *c, const char *name) {
  int i = berth_op_attr_index(c->def, name, strlen(name));
  if (i < 0) {
    fprintf(stderr, "op %s has no attribute %s\n", c->def->name, name);
    abort();
  }
  return &c->attrs[i];
}

static inline void tc_int(tcall_t *c, const char *name, int64_t v) { tc_attr(c, name)->i = v; }
static inline void tc_dtype(tcall_t *c, const char *name, berth_dtype_t v) { tc_attr(c, name)->i = v; }
static inline void tc_ints_arr(tcall_t *c, const char *name, const int64_t *v, int n) {
  berth_attr_value_t *a = tc_attr(c, name);
  a->n = n;
  for (int i = 0; i < n && i < BERTH_MAX_ATTR_INTS; i++) a->ints[i] = v[i];
}
#define TC_INTS(c, name, ...) \
  tc_ints_arr(c, name, (int64_t[]){__VA_ARGS__}, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define TC_NO_INTS(c, name) tc_ints_arr(c, name, NULL, 0)
/* A SCALAR attribute as the text parser stores it: f always, i and n = 1 when integral. */
static inline void tc_scalar(tcall_t *c, const char *name, double f) {
  berth_attr_value_t *a = tc_attr(c, name);
  a->f = f;
  a->n = 0;
  a->i = 0;
  if (f == f && fabs(f) < 9.2e18 && (double)(int64_t)f == f) {
    a->i = (int64_t)f;
    a->n = 1;
  }
}
static inline void tc_scalar_i(tcall_t *c, const char *name, int64_t i) {
  berth_attr_value_t *a = tc_attr(c, name);
  a->i = i;
  a->f = (double)i;
  a->n = 1;
}

static inline const char *tc_fmt(const berth_type_t *t, char *buf) { return berth_type_format(t, buf, 160); }

/* Compares n elements; floats match if both NaN, equal, or within tol (relative above 1). */
static inline int tc_values_equal(berth_dtype_t dt, int64_t n, const void *got, const void *want, double tol,
                                  int64_t *bad) {
  size_t es = berth_dtype_size(dt);
  for (int64_t i = 0; i < n; i++) {
    const unsigned char *g = (const unsigned char *)got + i * es, *w = (const unsigned char *)want + i * es;
    int ok;
    if (dt == BERTH_DTYPE_F32 || dt == BERTH_DTYPE_F64) {
      double a, b;
      if (dt == BERTH_DTYPE_F32) {
        float fa, fb;
        memcpy(&fa, g, 4);
        memcpy(&fb, w, 4);
        a = fa;
        b = fb;
      } else {
        memcpy(&a, g, 8);
        memcpy(&b, w, 8);
      }
      if (a != a || b != b) ok = (a != a) && (b != b);
      else if (a == b) ok = 1;
      else ok = !isinf(a) && !isinf(b) && fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
    } else if (dt == BERTH_DTYPE_BOOL) {
      ok = *g <= 1 && (*g != 0) == (*w != 0);
    } else {
      ok = memcmp(g, w, es) == 0;
    }
    if (!ok) {
      *bad = i;
      return 0;
    }
  }
  return 1;
}

static inline void tc_print_elem(berth_dtype_t dt, const void *p, int64_t i) {
  switch (dt) {
    case BERTH_DTYPE_BOOL: fprintf(stderr, "%u", ((const uint8_t *)p)[i]); break;
    case BERTH_DTYPE_I8: fprintf(stderr, "%d", ((const int8_t *)p)[i]); break;
    case BERTH_DTYPE_U8: fprintf(stderr, "%u", ((const uint8_t *)p)[i]); break;
    case BERTH_DTYPE_I16: fprintf(stderr, "%d", ((const int16_t *)p)[i]); break;
    case BERTH_DTYPE_U16: fprintf(stderr, "%u", ((const uint16_t *)p)[i]); break;
    case BERTH_DTYPE_I32: fprintf(stderr, "%d", ((const int32_t *)p)[i]); break;
    case BERTH_DTYPE_U32: fprintf(stderr, "%u", ((const uint32_t *)p)[i]); break;
    case BERTH_DTYPE_I64: fprintf(stderr, "%lld", (long long)((const int64_t *)p)[i]); break;
    case BERTH_DTYPE_U64: fprintf(stderr, "%llu", (unsigned long long)((const uint64_t *)p)[i]); break;
    case BERTH_DTYPE_F32: fprintf(stderr, "%.9g", ((const float *)p)[i]); break;
    case BERTH_DTYPE_F64: fprintf(stderr, "%.17g", ((const double *)p)[i]); break;
    default: fprintf(stderr, "?"); break;
  }
}

/* The scratch the planner would give a call of def (berth_op_scratch_bytes), filled with
 * ones (NaN as floats) so that a kernel reading scratch it did not write shows; NULL and 0
 * for ops without. The caller frees it. */
static inline void *tc_scratch(const berth_op_def_t *def, const berth_attr_value_t *attrs, const berth_type_t *in,
                               int32_t n_in, uint64_t *bytes) {
  *bytes = berth_op_scratch_bytes((uint32_t)berth_op_find(def->name, strlen(def->name)), attrs, in, n_in);
  void *s = *bytes ? malloc((size_t)*bytes) : NULL;
  if (s) memset(s, 0xff, (size_t)*bytes);
  else *bytes = 0;
  return s;
}

/* Infers, checks the type, runs into a fresh exact-size buffer; returns the buffer (NULL
 * if infer failed) so a caller can inspect it further. The caller frees it. */
static inline void *tc_run(int line, tcall_t *c, berth_type_t want) {
  char msg[512], a[160], b[160];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out;
  memset(&out, 0x5a, sizeof out);
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, &out, &d);
  CHECK_MSG(st == BERTH_OK, "line %d: %s infer failed: %s", line, c->def->name, msg);
  if (st != BERTH_OK) return NULL;
  CHECK_MSG(berth_type_equal(&out, &want), "line %d: %s infers %s, expected %s", line, c->def->name, tc_fmt(&out, a),
            tc_fmt(&want, b));
  if (!berth_type_equal(&out, &want)) return NULL;
  size_t bytes = berth_type_bytes(&out);
  unsigned char *buf = (unsigned char *)malloc(bytes ? bytes : 1);
  memset(buf, 0xA5, bytes ? bytes : 1);
  berth_tensor_ref_t ins[TC_MAX_IN];
  for (int i = 0; i < c->n_in; i++) {
    ins[i].type = &c->in[i];
    ins[i].data = (void *)c->data[i];
  }
  berth_tensor_ref_t outs[1] = {{&out, buf}};
  uint64_t sb;
  void *scratch = tc_scratch(c->def, c->attrs, c->in, c->n_in, &sb);
  if (c->scratch_max >= 0 && sb > (uint64_t)c->scratch_max) sb = (uint64_t)c->scratch_max;
  berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, 1, sb ? scratch : NULL, sb};
  c->def->run(&call);
  free(scratch);
  return buf;
}

static inline void tc_expect(int line, tcall_t *c, berth_type_t want, const void *want_data, double tol) {
  void *buf = tc_run(line, c, want);
  if (!buf) return;
  int64_t n = berth_type_numel(&want), bad = -1;
  int ok = tc_values_equal(want.dtype, n, buf, want_data, tol, &bad);
  CHECK_MSG(ok, "line %d: %s: element %lld differs", line, c->def->name, (long long)bad);
  if (!ok) {
    fprintf(stderr, "  got:");
    for (int64_t i = 0; i < n && i < 32; i++) fprintf(stderr, " "), tc_print_elem(want.dtype, buf, i);
    fprintf(stderr, "\n  want:");
    for (int64_t i = 0; i < n && i < 32; i++) fprintf(stderr, " "), tc_print_elem(want.dtype, want_data, i);
    fprintf(stderr, "\n");
  }
  free(buf);
}

/* infer must accept the call and give the type `want`. */
static inline void tc_infer(int line, tcall_t *c, berth_type_t want) {
  char msg[512], a[160], b[160];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out;
  const berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, &out, &d);
  CHECK_MSG(st == BERTH_OK, "line %d: %s: infer: %s", line, c->def->name, msg);
  if (st == BERTH_OK)
    CHECK_MSG(berth_type_equal(&out, &want), "line %d: %s: infer gave %s, expected %s", line, c->def->name,
              tc_fmt(&out, a), tc_fmt(&want, b));
}

/* infer must fail with a message that contains `needle`. */
static inline void tc_reject(int line, tcall_t *c, const char *needle) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out;
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, &out, &d);
  CHECK_MSG(st != BERTH_OK, "line %d: %s infer accepted a bad call (expected \"%s\")", line, c->def->name, needle);
  if (st == BERTH_OK) return;
  CHECK_MSG(strstr(msg, needle) != NULL, "line %d: %s message \"%s\" lacks \"%s\"", line, c->def->name, msg, needle);
  CHECK_MSG(strncmp(msg, c->def->name, strlen(c->def->name)) == 0, "line %d: message \"%s\" does not name the op",
            line, msg);
}

#define EXPECT(c, type, data) tc_expect(__LINE__, c, type, data, 0.0)
#define EXPECT_TOL(c, type, data, tol) tc_expect(__LINE__, c, type, data, tol)
#define EXPECT_REJECT(c, needle) tc_reject(__LINE__, c, needle)
#define EXPECT_INFER(c, type) tc_infer(__LINE__, c, type)

#endif
