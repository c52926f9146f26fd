/* Tests of the kernels ONNX models need: conv, lstm, gemm, pad, softmax, log_softmax, clip,
 * range, gather, ceil, floor, mod. Small hand-computed cases and rejections, then the
 * official ONNX node tests for these ops where ../shared/data/onnx-node-tests has them
 * (their TensorProto files are read here; attributes are written out per test). Random
 * cases against naive references: test_kernel_nn.c. */
#include "test_kernel_util.h"

#include <float.h>
#include <limits.h>

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64
#define I8 BERTH_DTYPE_I8
#define U8 BERTH_DTYPE_U8
#define I16 BERTH_DTYPE_I16
#define I32 BERTH_DTYPE_I32
#define U32 BERTH_DTYPE_U32
#define I64 BERTH_DTYPE_I64
#define U64 BERTH_DTYPE_U64
#define BOOL BERTH_DTYPE_BOOL

static const float fnan = NAN;
static const float finf = INFINITY;

/* ---- a kernel with several outputs ------------------------------------------------------ */

/* Infers, checks the n_out types, runs into garbage-filled exact-size buffers (the caller
 * frees them). Returns false if infer failed or a type differs. */
static bool tc_run_multi(int line, tcall_t *c, int n_out, const berth_type_t *want, void **bufs) {
  char msg[512], a[160], b[160];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out[4];
  memset(out, 0x5a, sizeof out);
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, out, &d);
  CHECK_MSG(st == BERTH_OK, "line %d: %s infer failed: %s", line, c->def->name, msg);
  if (st != BERTH_OK) return false;
  for (int i = 0; i < n_out; i++) {
    CHECK_MSG(berth_type_equal(&out[i], &want[i]), "line %d: %s result %d is %s, expected %s", line, c->def->name, i,
              tc_fmt(&out[i], a), tc_fmt(&want[i], b));
    if (!berth_type_equal(&out[i], &want[i])) return false;
  }
  berth_tensor_ref_t ins[TC_MAX_IN], outs[4];
  for (int i = 0; i < c->n_in; i++) {
    ins[i].type = &c->in[i];
    ins[i].data = (void *)c->data[i];
  }
  for (int i = 0; i < n_out; i++) {
    size_t bytes = berth_type_bytes(&out[i]);
    bufs[i] = malloc(bytes ? bytes : 1);
    memset(bufs[i], 0xA5, bytes ? bytes : 1);
    outs[i].type = &out[i];
    outs[i].data = bufs[i];
  }
  uint64_t sb;
  void *scratch = tc_scratch(c->def, c->attrs, c->in, c->n_in, &sb);
  berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, n_out, scratch, sb};
  c->def->run(&call);
  free(scratch);
  return true;
}

static void tc_compare(int line, const char *what, berth_type_t t, const void *got, const void *want, double tol) {
  int64_t bad = -1, n = berth_type_numel(&t);
  int ok = tc_values_equal(t.dtype, n, got, want, tol, &bad);
  CHECK_MSG(ok, "line %d: %s: element %lld differs", line, what, (long long)bad);
  if (!ok) {
    fprintf(stderr, "  got:");
    for (int64_t i = 0; i < n && i < 32; i++) fprintf(stderr, " "), tc_print_elem(t.dtype, got, i);
    fprintf(stderr, "\n  want:");
    for (int64_t i = 0; i < n && i < 32; i++) fprintf(stderr, " "), tc_print_elem(t.dtype, want, i);
    fprintf(stderr, "\n");
  }
}

/* ---- TensorProto files ------------------------------------------------------------------ */

typedef struct pbt {
  berth_type_t t;
  void *data;
} pbt_t;

static bool pb_varint(const unsigned char *b, size_t n, size_t *i, uint64_t *v) {
  *v = 0;
  for (int s = 0; s < 64; s += 7) {
    if (*i >= n) return false;
    unsigned char c = b[(*i)++];
    *v |= (uint64_t)(c & 0x7f) << s;
    if (c < 0x80) return true;
  }
  return false;
}

/* Reads the repeated numeric field (packed or not) into dst as elements of esize bytes:
 * kind 0 varint, 4 fixed32, 8 fixed64. Returns the number of elements, -1 on error. */
static int64_t pb_repeated(const unsigned char *b, size_t n, int field, int kind, unsigned char *dst, size_t esize,
                           int64_t cap) {
  size_t i = 0;
  int64_t count = 0;
  while (i < n) {
    uint64_t key, len;
    if (!pb_varint(b, n, &i, &key)) return -1;
    int f = (int)(key >> 3), w = (int)(key & 7);
    size_t start = i, end;
    if (w == 0) {
      uint64_t v;
      if (!pb_varint(b, n, &i, &v)) return -1;
      if (f == field && kind == 0) {
        if (count >= cap) return -1;
        if (dst) memcpy(dst + (size_t)count * esize, &v, esize); /* little-endian truncation */
        count++;
      }
      continue;
    } else if (w == 1) {
      end = i + 8;
    } else if (w == 5) {
      end = i + 4;
    } else if (w == 2) {
      if (!pb_varint(b, n, &i, &len) || len > n - i) return -1;
      start = i;
      end = i + len;
      if (f == field) {
        size_t j = start;
        while (j < end) {
          if (count >= cap) return -1;
          if (kind == 0) {
            uint64_t v;
            if (!pb_varint(b, end, &j, &v)) return -1;
            if (dst) memcpy(dst + (size_t)count * esize, &v, esize);
          } else {
            if ((size_t)kind > end - j) return -1;
            if (dst) memcpy(dst + (size_t)count * esize, b + j, esize);
            j += (size_t)kind;
          }
          count++;
        }
      }
    } else {
      return -1;
    }
    if (end > n) return -1;
    if (w != 2 && f == field && kind != 0) {
      if (count >= cap) return -1;
      if (dst) memcpy(dst + (size_t)count * esize, b + start, esize);
      count++;
    }
    i = end;
  }
  return count;
}

/* The bytes of field 9 (raw_data), or NULL. */
static const unsigned char *pb_raw(const unsigned char *b, size_t n, size_t *len) {
  size_t i = 0;
  while (i < n) {
    uint64_t key, v;
    if (!pb_varint(b, n, &i, &key)) return NULL;
    int w = (int)(key & 7);
    if (w == 0) {
      if (!pb_varint(b, n, &i, &v)) return NULL;
    } else if (w == 1 || w == 5) {
      i += w == 1 ? 8 : 4;
    } else if (w == 2) {
      if (!pb_varint(b, n, &i, &v) || v > n - i) return NULL;
      if ((key >> 3) == 9) {
        *len = (size_t)v;
        return b + i;
      }
      i += (size_t)v;
    } else {
      return NULL;
    }
  }
  return NULL;
}

/* Parses one TensorProto of n bytes; out->data is malloc'd. */
static bool pb_parse(const unsigned char *b, size_t n, pbt_t *out) {
  int64_t dims[BERTH_MAX_RANK + 1], dt = 0;
  int64_t rank = pb_repeated(b, n, 1, 0, (unsigned char *)dims, 8, BERTH_MAX_RANK);
  bool ok = rank >= 0 && pb_repeated(b, n, 2, 0, (unsigned char *)&dt, 8, 1) == 1;
  static const int map[14] = {-1, BERTH_DTYPE_F32, BERTH_DTYPE_U8, BERTH_DTYPE_I8, BERTH_DTYPE_U16,
                              BERTH_DTYPE_I16, BERTH_DTYPE_I32, BERTH_DTYPE_I64, -1, BERTH_DTYPE_BOOL,
                              -1, BERTH_DTYPE_F64, BERTH_DTYPE_U32, BERTH_DTYPE_U64};
  ok = ok && dt > 0 && dt < 14 && map[dt] >= 0;
  if (ok) {
    memset(&out->t, 0, sizeof out->t);
    out->t.dtype = (berth_dtype_t)map[dt];
    out->t.rank = (int32_t)rank;
    for (int64_t k = 0; k < rank; k++) out->t.dims[k] = dims[k];
    ok = berth_type_check(&out->t);
  }
  if (ok) {
    size_t bytes = berth_type_bytes(&out->t), es = berth_dtype_size(out->t.dtype), rl = 0;
    int64_t numel = berth_type_numel(&out->t);
    out->data = calloc(bytes ? bytes : 1, 1);
    const unsigned char *raw = pb_raw(b, n, &rl);
    if (raw) {
      ok = rl == bytes;
      if (ok && bytes) memcpy(out->data, raw, bytes);
    } else {
      int64_t got;
      switch (out->t.dtype) {
        case BERTH_DTYPE_F32: got = pb_repeated(b, n, 4, 4, out->data, 4, numel); break;
        case BERTH_DTYPE_F64: got = pb_repeated(b, n, 10, 8, out->data, 8, numel); break;
        case BERTH_DTYPE_I64: got = pb_repeated(b, n, 7, 0, out->data, 8, numel); break;
        case BERTH_DTYPE_U32:
        case BERTH_DTYPE_U64: got = pb_repeated(b, n, 11, 0, out->data, es, numel); break;
        default: got = pb_repeated(b, n, 5, 0, out->data, es, numel); break;
      }
      ok = got == numel;
    }
    if (!ok) free(out->data);
  }
  return ok;
}

static bool pb_load(const char *path, pbt_t *out) {
  size_t n = 0;
  unsigned char *b = (unsigned char *)test_read_file(path, &n);
  if (!b) return false;
  bool ok = pb_parse(b, n, out);
  free(b);
  return ok;
}

/* The next length-delimited field `field` at or after *i in b[0..n), or NULL. */
static const unsigned char *pb_next(const unsigned char *b, size_t n, size_t *i, int field, size_t *len) {
  while (*i < n) {
    uint64_t key, v;
    if (!pb_varint(b, n, i, &key)) return NULL;
    int w = (int)(key & 7);
    if (w == 0) {
      if (!pb_varint(b, n, i, &v)) return NULL;
    } else if (w == 1 || w == 5) {
      *i += w == 1 ? 8 : 4;
    } else if (w == 2) {
      if (!pb_varint(b, n, i, &v) || v > n - *i) return NULL;
      const unsigned char *p = b + *i;
      *i += (size_t)v;
      if ((int)(key >> 3) == field) {
        *len = (size_t)v;
        return p;
      }
    } else {
      return NULL;
    }
  }
  return NULL;
}

/* Appends the graph initializers of model.onnx after the given inputs: the
 * pytorch-converted tests list their weights as graph inputs, in the same order, but ship
 * only input_0.pb. */
static void onnx_add_initializers(const char *name, pbt_t *in, int *n_in, int cap) {
  char path[1024];
  snprintf(path, sizeof path, "%s/onnx-node-tests/%s/model.onnx", BERTH_DATA_DIR, name);
  size_t n = 0, i = 0, glen = 0, gi = 0, tlen = 0;
  unsigned char *b = (unsigned char *)test_read_file(path, &n);
  if (!b) return;
  const unsigned char *g = pb_next(b, n, &i, 7, &glen), *t;
  while (g && *n_in < cap && (t = pb_next(g, glen, &gi, 5, &tlen)) != NULL)
    if (pb_parse(t, tlen, &in[*n_in])) (*n_in)++;
  free(b);
}

/* Loads input_0.. and output_0.. of an official test; false (and a note) if absent. */
typedef struct onnx_case {
  int n_in, n_out;
  pbt_t in[8], out[4];
} onnx_case_t;

static int onnx_cases_run, onnx_cases_missing;

static bool onnx_load(const char *name, onnx_case_t *c) {
  char path[1024];
  memset(c, 0, sizeof *c);
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < (k ? 4 : 8); i++) {
      snprintf(path, sizeof path, "%s/onnx-node-tests/%s/test_data_set_0/%s_%d.pb", BERTH_DATA_DIR, name,
               k ? "output" : "input", i);
      pbt_t *p = k ? &c->out[i] : &c->in[i];
      if (!pb_load(path, p)) break;
      if (k) c->n_out++;
      else c->n_in++;
    }
  }
  if (c->n_out == 0) {
    onnx_cases_missing++;
    return false;
  }
  onnx_cases_run++;
  return true;
}

static void onnx_free(onnx_case_t *c) {
  for (int i = 0; i < c->n_in; i++) free(c->in[i].data);
  for (int i = 0; i < c->n_out; i++) free(c->out[i].data);
}

/* Runs a one-output op on the case's first n inputs, compares with output_0. */
static void onnx_expect(int line, tcall_t *c, onnx_case_t *oc, int n) {
  for (int i = 0; i < n; i++) tc_arg(c, oc->in[i].t, oc->in[i].data);
  tc_expect(line, c, oc->out[0].t, oc->out[0].data, 1e-5);
}

static double pb_scalar(const pbt_t *p) {
  switch (p->t.dtype) {
    case BERTH_DTYPE_F32: return *(const float *)p->data;
    case BERTH_DTYPE_F64: return *(const double *)p->data;
    case BERTH_DTYPE_I8: return *(const int8_t *)p->data;
    case BERTH_DTYPE_I32: return *(const int32_t *)p->data;
    case BERTH_DTYPE_I64: return (double)*(const int64_t *)p->data;
    default: return 0;
  }
}

/* ---- every op of this file: operand counts and invalid types ------------------------------- */

static void test_table(void) {
  static const float two[2] = {1, 2};
  for (uint32_t op = BERTH_OP_CONV; op <= BERTH_OP_MOD; op++) {
    const berth_op_def_t *def = berth_op_get(op);
    CHECK(def && def->kind == BERTH_OPKIND_KERNEL);
    if (!def || def->kind != BERTH_OPKIND_KERNEL) continue;
    CHECK_MSG(def->infer && def->run, "%s lacks infer or run", def->name);
    CHECK_MSG(def->n_out == (op == BERTH_OP_LSTM ? 3 : 1), "%s has %d outputs", def->name, def->n_out);
    CHECK(def->n_attrs <= BERTH_MAX_OP_ATTRS);
    CHECK(berth_op_find(def->name, strlen(def->name)) == (berth_op_t)op);
    tcall_t c = tc_op(def);
    for (int32_t i = 0; i < def->max_in + 1; i++) tc_arg(&c, ty(F32, 1, 2), two);
    EXPECT_REJECT(&c, "operands, expected");
    if (def->min_in > 0) {
      tcall_t c2 = tc_op(def);
      for (int32_t i = 0; i < def->min_in - 1; i++) tc_arg(&c2, ty(F32, 1, 2), two);
      EXPECT_REJECT(&c2, "operands, expected");
      for (int32_t bad = 0; bad < def->max_in; bad++) {
        tcall_t c3 = tc_op(def);
        for (int32_t i = 0; i < def->max_in; i++) tc_arg(&c3, ty(F32, 1, 2), two);
        c3.in[bad].rank = BERTH_MAX_RANK + 1;
        EXPECT_REJECT(&c3, "invalid type");
        c3.in[bad].rank = 1;
        c3.in[bad].dtype = (berth_dtype_t)BERTH_DTYPE_COUNT;
        EXPECT_REJECT(&c3, "invalid type");
      }
    }
  }
}

/* ---- conv --------------------------------------------------------------------------------- */

static void test_conv_small(void) {
  const float x[5] = {1, 2, 3, 4, 5};
  /* w = [1, 0, -1], pads 1: y[t] = x[t-1] - x[t+1] with zeros outside */
  tcall_t c = tc_op(&berth_op_def_conv);
  TC_INTS(&c, "pads", 1, 1);
  tc_arg(&c, ty(F32, 3, 1, 1, 5), x);
  tc_arg(&c, ty(F32, 3, 1, 1, 3), (float[]){1, 0, -1});
  EXPECT(&c, ty(F32, 3, 1, 1, 5), ((float[]){-2, -2, -2, -2, 4}));
  tc_arg(&c, ty(F32, 1, 1), (float[]){10});
  EXPECT(&c, ty(F32, 3, 1, 1, 5), ((float[]){8, 8, 8, 8, 14}));
  TC_INTS(&c, "strides", 2);
  EXPECT(&c, ty(F32, 3, 1, 1, 3), ((float[]){8, 8, 14}));
  /* dilation 2, no pads: one output x0 - x4 */
  tcall_t c2 = tc_op(&berth_op_def_conv);
  TC_INTS(&c2, "dilations", 2);
  tc_arg(&c2, ty(F64, 3, 1, 1, 5), (double[]){1, 2, 3, 4, 5});
  tc_arg(&c2, ty(F64, 3, 1, 1, 3), (double[]){1, 0, -1});
  EXPECT(&c2, ty(F64, 3, 1, 1, 1), ((double[]){-4}));
  /* two groups of one channel each, two batches */
  tcall_t c3 = tc_op(&berth_op_def_conv);
  tc_int(&c3, "group", 2);
  tc_arg(&c3, ty(F32, 3, 2, 2, 2), (float[]){1, 2, 3, 4, 5, 6, 7, 8});
  tc_arg(&c3, ty(F32, 3, 2, 1, 1), (float[]){10, 100});
  EXPECT(&c3, ty(F32, 3, 2, 2, 2), ((float[]){10, 20, 300, 400, 50, 60, 700, 800}));
  /* 2-D: 3x3 ones over a 3x3 input padded by 1 */
  tcall_t c4 = tc_op(&berth_op_def_conv);
  TC_INTS(&c4, "pads", 1, 1, 1, 1);
  tc_arg(&c4, ty(F32, 4, 1, 1, 3, 3), (float[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
  tc_arg(&c4, ty(F32, 4, 1, 1, 3, 3), (float[]){1, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT(&c4, ty(F32, 4, 1, 1, 3, 3), ((float[]){12, 21, 16, 27, 45, 33, 24, 39, 28}));
  /* 3-D: a 1x1x2 kernel over [1,1,2,2,2] */
  tcall_t c5 = tc_op(&berth_op_def_conv);
  tc_arg(&c5, ty(F32, 5, 1, 1, 2, 2, 2), (float[]){1, 2, 3, 4, 5, 6, 7, 8});
  tc_arg(&c5, ty(F32, 5, 1, 1, 1, 1, 2), (float[]){1, -1});
  EXPECT(&c5, ty(F32, 5, 1, 1, 2, 2, 1), ((float[]){-1, -1, -1, -1}));
  /* empty batch, and zero input channels (bias only) */
  tcall_t c6 = tc_op(&berth_op_def_conv);
  tc_arg(&c6, ty(F32, 3, 0, 1, 5), NULL);
  tc_arg(&c6, ty(F32, 3, 2, 1, 3), (float[]){1, 2, 3, 4, 5, 6});
  EXPECT(&c6, ty(F32, 3, 0, 2, 3), NULL);
  tcall_t c7 = tc_op(&berth_op_def_conv);
  tc_arg(&c7, ty(F32, 3, 1, 0, 4), NULL);
  tc_arg(&c7, ty(F32, 3, 2, 0, 3), NULL);
  tc_arg(&c7, ty(F32, 1, 2), (float[]){7, 8});
  EXPECT(&c7, ty(F32, 3, 1, 2, 2), ((float[]){7, 7, 8, 8}));
}

static void test_conv_reject(void) {
  const float z[64] = {0};
  tcall_t c = tc_op(&berth_op_def_conv);
  tc_arg(&c, ty(I32, 3, 1, 1, 5), z);
  tc_arg(&c, ty(I32, 3, 1, 1, 3), z);
  EXPECT_REJECT(&c, "expected one of f32, f64");
  tcall_t c1 = tc_op(&berth_op_def_conv);
  tc_arg(&c1, ty(F32, 3, 1, 1, 5), z);
  tc_arg(&c1, ty(F64, 3, 1, 1, 3), z);
  EXPECT_REJECT(&c1, "expected f32 like operand 0");
  tcall_t c2 = tc_op(&berth_op_def_conv);
  tc_arg(&c2, ty(F32, 2, 1, 5), z);
  tc_arg(&c2, ty(F32, 2, 1, 3), z);
  EXPECT_REJECT(&c2, "expected 3 to 5");
  tcall_t c3 = tc_op(&berth_op_def_conv);
  tc_arg(&c3, ty(F32, 3, 1, 1, 5), z);
  tc_arg(&c3, ty(F32, 4, 1, 1, 3, 1), z);
  EXPECT_REJECT(&c3, "expected 3 like input");
  tcall_t c4 = tc_op(&berth_op_def_conv);
  tc_arg(&c4, ty(F32, 3, 1, 3, 5), z);
  tc_arg(&c4, ty(F32, 3, 2, 3, 3), z);
  tc_int(&c4, "group", 2);
  EXPECT_REJECT(&c4, "does not divide");
  tc_int(&c4, "group", 0);
  EXPECT_REJECT(&c4, "group is 0");
  tc_int(&c4, "group", 1);
  c4.in[1].dims[1] = 2;
  EXPECT_REJECT(&c4, "input channels, expected 3");
  c4.in[1].dims[1] = 3;
  c4.in[1].dims[2] = 6;
  EXPECT_REJECT(&c4, "spans more than the padded input");
  TC_INTS(&c4, "pads", 1, 0);
  c4.in[1].dims[2] = 7;
  EXPECT_REJECT(&c4, "spans more than the padded input");
  c4.in[1].dims[2] = 6;
  TC_INTS(&c4, "pads", 1);
  EXPECT_REJECT(&c4, "pads has 1 values, expected 2");
  TC_INTS(&c4, "pads", 1, -1);
  EXPECT_REJECT(&c4, "pads[1] is -1");
  TC_NO_INTS(&c4, "pads");
  c4.in[1].dims[2] = 0;
  EXPECT_REJECT(&c4, "empty kernel");
  c4.in[1].dims[2] = 3;
  TC_INTS(&c4, "strides", 0);
  EXPECT_REJECT(&c4, "strides[0] is 0");
  TC_INTS(&c4, "strides", 1, 1);
  EXPECT_REJECT(&c4, "strides has 2 values, expected 1");
  TC_NO_INTS(&c4, "strides");
  TC_INTS(&c4, "dilations", (int64_t)1 << 41);
  EXPECT_REJECT(&c4, "dilations[0]");
  TC_INTS(&c4, "dilations", 3);
  EXPECT_REJECT(&c4, "spans more");
  TC_INTS(&c4, "dilations", 2);
  tc_arg(&c4, ty(F32, 1, 3), z);
  EXPECT_REJECT(&c4, "bias f32[3] has the wrong shape, expected [2]");
}

/* The official tests. Conv attributes: (dilations, group, pads, strides) as listed. */
typedef struct conv_case {
  const char *name;
  int sp;
  int64_t dil[2], group, pads[4], strides[2];
  int n_in;
} conv_case_t;

static void test_conv_onnx(void) {
  static const conv_case_t cases[] = {
      {"test_Conv1d", 1, {1}, 1, {0, 0}, {1}, 3},
      {"test_Conv1d_dilated", 1, {2}, 1, {0, 0}, {1}, 3},
      {"test_Conv1d_groups", 1, {1}, 2, {0, 0}, {1}, 3},
      {"test_Conv1d_pad1", 1, {1}, 1, {1, 1}, {1}, 3},
      {"test_Conv1d_pad1size1", 1, {1}, 1, {1, 1}, {1}, 3},
      {"test_Conv1d_pad2", 1, {1}, 1, {2, 2}, {1}, 3},
      {"test_Conv1d_pad2size1", 1, {1}, 1, {2, 2}, {1}, 3},
      {"test_Conv1d_stride", 1, {1}, 1, {0, 0}, {2}, 3},
      {"test_Conv2d", 2, {1, 1}, 1, {0, 0, 0, 0}, {1, 1}, 3},
      {"test_Conv2d_depthwise", 2, {1, 1}, 4, {0, 0, 0, 0}, {1, 1}, 3},
      {"test_Conv2d_depthwise_padded", 2, {1, 1}, 4, {1, 1, 1, 1}, {1, 1}, 3},
      {"test_Conv2d_depthwise_strided", 2, {1, 1}, 4, {0, 0, 0, 0}, {2, 2}, 3},
      {"test_Conv2d_dilated", 2, {2, 2}, 1, {1, 1, 1, 1}, {2, 2}, 3},
      {"test_Conv2d_groups", 2, {1, 1}, 2, {0, 0, 0, 0}, {1, 1}, 3},
      {"test_Conv2d_groups_thnn", 2, {1, 1}, 2, {0, 0, 0, 0}, {1, 1}, 3},
      {"test_Conv2d_no_bias", 2, {1, 1}, 1, {0, 0, 0, 0}, {1, 1}, 2},
      {"test_Conv2d_padding", 2, {1, 1}, 1, {1, 1, 1, 1}, {2, 2}, 3},
      {"test_Conv2d_strided", 2, {1, 1}, 1, {0, 0, 0, 0}, {2, 2}, 3},
      {"test_basic_conv_with_padding", 2, {1, 1}, 1, {1, 1, 1, 1}, {1, 1}, 2},
      {"test_basic_conv_without_padding", 2, {1, 1}, 1, {0, 0, 0, 0}, {1, 1}, 2},
      {"test_conv_with_strides_no_padding", 2, {1, 1}, 1, {0, 0, 0, 0}, {2, 2}, 2},
      {"test_conv_with_strides_padding", 2, {1, 1}, 1, {1, 1, 1, 1}, {2, 2}, 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const conv_case_t *k = &cases[i];
    onnx_case_t oc;
    if (!onnx_load(k->name, &oc)) continue;
    if (oc.n_in < k->n_in) onnx_add_initializers(k->name, oc.in, &oc.n_in, 8);
    CHECK_MSG(oc.n_in >= k->n_in, "%s: %d inputs", k->name, oc.n_in);
    if (oc.n_in >= k->n_in) {
      tcall_t c = tc_op(&berth_op_def_conv);
      tc_ints_arr(&c, "dilations", k->dil, k->sp);
      tc_ints_arr(&c, "pads", k->pads, 2 * k->sp);
      tc_ints_arr(&c, "strides", k->strides, k->sp);
      tc_int(&c, "group", k->group);
      fprintf(stderr, "  %s\n", k->name);
      onnx_expect(__LINE__, &c, &oc, k->n_in);
    }
    onnx_free(&oc);
  }
}

/* ---- lstm --------------------------------------------------------------------------------- */

/* Runs lstm with zero B / initial states where the test omits them, and the peepholes P
 * when it has them; compares Y_h (and Y when the test has it). */
static void lstm_onnx(const char *name, int64_t hidden, int64_t layout, bool has_y) {
  onnx_case_t oc;
  if (!onnx_load(name, &oc)) return;
  fprintf(stderr, "  %s\n", name);
  const berth_type_t *x = &oc.in[0].t;
  int64_t batch = x->dims[layout ? 0 : 1], seq = x->dims[layout ? 1 : 0];
  berth_type_t tb = ty(F32, 2, 1, (int)(8 * hidden));
  berth_type_t ts = layout ? ty(F32, 3, (int)batch, 1, (int)hidden) : ty(F32, 3, 1, (int)batch, (int)hidden);
  float *zeros = calloc((size_t)(8 * hidden + batch * hidden), sizeof(float));
  tcall_t c = tc_op(&berth_op_def_lstm);
  tc_int(&c, "hidden_size", hidden);
  tc_int(&c, "layout", layout);
  for (int i = 0; i < 3; i++) tc_arg(&c, oc.in[i].t, oc.in[i].data);
  tc_arg(&c, tb, oc.n_in > 3 ? oc.in[3].data : zeros);
  tc_arg(&c, ts, oc.n_in > 5 ? oc.in[5].data : zeros);
  tc_arg(&c, ts, oc.n_in > 6 ? oc.in[6].data : zeros);
  if (oc.n_in > 7) tc_arg(&c, oc.in[7].t, oc.in[7].data);
  berth_type_t want[3] = {layout ? ty(F32, 4, (int)batch, (int)seq, 1, (int)hidden)
                                 : ty(F32, 4, (int)seq, 1, (int)batch, (int)hidden),
                          ts, ts};
  void *bufs[3];
  if (tc_run_multi(__LINE__, &c, 3, want, bufs)) {
    int yh = has_y ? 1 : 0;
    tc_compare(__LINE__, name, oc.out[yh].t, bufs[1], oc.out[yh].data, 1e-5);
    if (has_y) tc_compare(__LINE__, name, oc.out[0].t, bufs[0], oc.out[0].data, 1e-5);
    for (int i = 0; i < 3; i++) free(bufs[i]);
  }
  free(zeros);
  onnx_free(&oc);
}

static void test_lstm_onnx(void) {
  lstm_onnx("test_lstm_defaults", 3, 0, false);
  lstm_onnx("test_lstm_with_initial_bias", 4, 0, false);
  lstm_onnx("test_lstm_batchwise", 7, 1, true);
  lstm_onnx("test_lstm_with_peepholes", 3, 0, false);
}

/* One step, one unit, by hand: with all weights 0 and bias b per gate,
 * c = sig(bf) * c0 + sig(bi) * tanh(bc), h = sig(bo) * tanh(c). */
static void test_lstm_small(void) {
  double bi = 0.5, bo = -1, bf = 2, bc = 0.25, c0 = 3, h0 = 7;
  double si = 1 / (1 + exp(-bi)), so = 1 / (1 + exp(-bo)), sf = 1 / (1 + exp(-bf));
  double c = sf * c0 + si * tanh(bc), h = so * tanh(c);
  tcall_t k = tc_op(&berth_op_def_lstm);
  tc_int(&k, "hidden_size", 1);
  tc_arg(&k, ty(F64, 3, 1, 1, 2), (double[]){1, 2});                       /* X */
  tc_arg(&k, ty(F64, 3, 1, 4, 2), (double[]){0, 0, 0, 0, 0, 0, 0, 0});     /* W */
  tc_arg(&k, ty(F64, 3, 1, 4, 1), (double[]){0, 0, 0, 0});                 /* R */
  tc_arg(&k, ty(F64, 2, 1, 8), (double[]){bi, bo, bf, bc, 0, 0, 0, 0});   /* B: Wb then Rb */
  tc_arg(&k, ty(F64, 3, 1, 1, 1), (double[]){h0});
  tc_arg(&k, ty(F64, 3, 1, 1, 1), (double[]){c0});
  berth_type_t want[3] = {ty(F64, 4, 1, 1, 1, 1), ty(F64, 3, 1, 1, 1), ty(F64, 3, 1, 1, 1)};
  void *bufs[3];
  if (tc_run_multi(__LINE__, &k, 3, want, bufs)) {
    tc_compare(__LINE__, "lstm Y", want[0], bufs[0], (double[]){h}, 1e-12);
    tc_compare(__LINE__, "lstm Y_h", want[1], bufs[1], (double[]){h}, 1e-12);
    tc_compare(__LINE__, "lstm Y_c", want[2], bufs[2], (double[]){c}, 1e-12);
    for (int i = 0; i < 3; i++) free(bufs[i]);
  }
  /* the same with peepholes P = (pi, po, pf): i and f see c0, o sees the new c */
  double pi = 0.75, po = -0.5, pf = 0.125;
  double si_p = 1 / (1 + exp(-(bi + pi * c0))), sf_p = 1 / (1 + exp(-(bf + pf * c0)));
  double c_p = sf_p * c0 + si_p * tanh(bc), so_p = 1 / (1 + exp(-(bo + po * c_p))), h_p = so_p * tanh(c_p);
  tc_arg(&k, ty(F64, 2, 1, 3), (double[]){pi, po, pf});
  if (tc_run_multi(__LINE__, &k, 3, want, bufs)) {
    tc_compare(__LINE__, "lstm P Y", want[0], bufs[0], (double[]){h_p}, 1e-12);
    tc_compare(__LINE__, "lstm P Y_h", want[1], bufs[1], (double[]){h_p}, 1e-12);
    tc_compare(__LINE__, "lstm P Y_c", want[2], bufs[2], (double[]){c_p}, 1e-12);
    for (int i = 0; i < 3; i++) free(bufs[i]);
  }
  /* seq 0: the states pass through */
  tcall_t k0 = tc_op(&berth_op_def_lstm);
  tc_int(&k0, "hidden_size", 1);
  tc_arg(&k0, ty(F32, 3, 0, 1, 2), NULL);
  tc_arg(&k0, ty(F32, 3, 1, 4, 2), (float[]){0, 0, 0, 0, 0, 0, 0, 0});
  tc_arg(&k0, ty(F32, 3, 1, 4, 1), (float[]){0, 0, 0, 0});
  tc_arg(&k0, ty(F32, 2, 1, 8), (float[]){0, 0, 0, 0, 0, 0, 0, 0});
  tc_arg(&k0, ty(F32, 3, 1, 1, 1), (float[]){5});
  tc_arg(&k0, ty(F32, 3, 1, 1, 1), (float[]){6});
  berth_type_t want0[3] = {ty(F32, 4, 0, 1, 1, 1), ty(F32, 3, 1, 1, 1), ty(F32, 3, 1, 1, 1)};
  if (tc_run_multi(__LINE__, &k0, 3, want0, bufs)) {
    tc_compare(__LINE__, "lstm Y_h", want0[1], bufs[1], (float[]){5}, 0);
    tc_compare(__LINE__, "lstm Y_c", want0[2], bufs[2], (float[]){6}, 0);
    for (int i = 0; i < 3; i++) free(bufs[i]);
  }
}

static void test_lstm_reject(void) {
  const float z[256] = {0};
  tcall_t k = tc_op(&berth_op_def_lstm);
  tc_int(&k, "hidden_size", 2);
  tc_arg(&k, ty(F32, 3, 3, 1, 4), z);
  tc_arg(&k, ty(F32, 3, 1, 8, 4), z);
  tc_arg(&k, ty(F32, 3, 1, 8, 2), z);
  tc_arg(&k, ty(F32, 2, 1, 16), z);
  tc_arg(&k, ty(F32, 3, 1, 1, 2), z);
  tc_arg(&k, ty(F32, 3, 1, 1, 2), z);
  char msg[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out[3];
  CHECK_MSG(k.def->infer(k.attrs, k.in, k.n_in, out, &d) == BERTH_OK, "%s", msg);
  tc_int(&k, "hidden_size", 0);
  EXPECT_REJECT(&k, "hidden_size is 0");
  tc_int(&k, "hidden_size", 2);
  tc_int(&k, "direction", 3);
  EXPECT_REJECT(&k, "direction is 3");
  tc_int(&k, "direction", 2);
  EXPECT_REJECT(&k, "W (operand 1) is f32[1,8,4], expected f32[2,8,4]");
  tc_int(&k, "direction", 0);
  tc_int(&k, "layout", 2);
  EXPECT_REJECT(&k, "layout is 2");
  tc_int(&k, "layout", 1);
  EXPECT_REJECT(&k, "initial_h (operand 4) is f32[1,1,2], expected f32[3,1,2]");
  tc_int(&k, "layout", 0);
  k.in[3].dims[1] = 8;
  EXPECT_REJECT(&k, "B (operand 3)");
  k.in[3].dims[1] = 16;
  k.in[2].dims[2] = 3;
  EXPECT_REJECT(&k, "R (operand 2)");
  k.in[2].dims[2] = 2;
  k.in[0].dtype = F64;
  EXPECT_REJECT(&k, "expected f64 like operand 0");
  k.in[0].dtype = F32;
  k.in[0].rank = 2;
  EXPECT_REJECT(&k, "expected rank 3");
  k.in[0].rank = 3;
  /* peepholes P [dirs, 3*hidden_size] */
  tc_arg(&k, ty(F32, 2, 1, 6), z);
  CHECK_MSG(k.def->infer(k.attrs, k.in, k.n_in, out, &d) == BERTH_OK, "%s", msg);
  k.in[6].dims[1] = 4;
  EXPECT_REJECT(&k, "lstm: P (operand 6) is f32[1,4], expected f32[1,6] ([dirs, 3*hidden_size])");
  k.in[6].dims[1] = 6;
  k.in[6].rank = 1;
  EXPECT_REJECT(&k, "P (operand 6) is f32[1], expected f32[1,6]");
  k.in[6].rank = 2;
  tc_int(&k, "direction", 2);
  k.in[1].dims[0] = k.in[2].dims[0] = k.in[3].dims[0] = k.in[4].dims[0] = k.in[5].dims[0] = 2;
  EXPECT_REJECT(&k, "P (operand 6) is f32[1,6], expected f32[2,6]");
  k.in[6].dims[0] = 2;
  CHECK_MSG(k.def->infer(k.attrs, k.in, k.n_in, out, &d) == BERTH_OK, "%s", msg);
  k.in[6].dtype = F64;
  EXPECT_REJECT(&k, "operand 6 has dtype f64, expected f32 like operand 0");
  k.in[6].dtype = F32;
  tc_arg(&k, ty(F32, 2, 2, 6), z);
  EXPECT_REJECT(&k, "lstm: got 8 operands, expected 6 to 7");
}

/* ---- gemm --------------------------------------------------------------------------------- */

static void test_gemm_small(void) {
  /* A [2,3] = 1..6, B [3,2] = 1..6: AB = [[22, 28], [49, 64]] */
  tcall_t c = tc_op(&berth_op_def_gemm);
  tc_arg(&c, ty(F32, 2, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c, ty(F32, 2, 3, 2), (float[]){1, 2, 3, 4, 5, 6});
  EXPECT(&c, ty(F32, 2, 2, 2), ((float[]){22, 28, 49, 64}));
  tc_scalar(&c, "alpha", 2);
  tc_arg(&c, ty(F32, 1, 2), (float[]){1, 2});
  EXPECT(&c, ty(F32, 2, 2, 2), ((float[]){45, 58, 99, 130}));
  tc_scalar(&c, "beta", -1);
  c.in[2] = ty(F32, 2, 2, 1);
  EXPECT(&c, ty(F32, 2, 2, 2), ((float[]){43, 55, 96, 126}));
  /* the same with B given transposed, and A transposed too */
  tcall_t c2 = tc_op(&berth_op_def_gemm);
  tc_int(&c2, "trans_b", 1);
  tc_arg(&c2, ty(F64, 2, 2, 3), (double[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c2, ty(F64, 2, 2, 3), (double[]){1, 3, 5, 2, 4, 6});
  EXPECT(&c2, ty(F64, 2, 2, 2), ((double[]){22, 28, 49, 64}));
  tc_int(&c2, "trans_a", 1);
  c2.in[0] = ty(F64, 2, 3, 2);
  c2.data[0] = (double[]){1, 4, 2, 5, 3, 6};
  EXPECT(&c2, ty(F64, 2, 2, 2), ((double[]){22, 28, 49, 64}));
  tc_int(&c2, "trans_b", 0);
  c2.in[1] = ty(F64, 2, 3, 2);
  c2.data[1] = (double[]){1, 2, 3, 4, 5, 6};
  EXPECT(&c2, ty(F64, 2, 2, 2), ((double[]){22, 28, 49, 64}));
  /* integers wrap; alpha and beta are integers */
  tcall_t c3 = tc_op(&berth_op_def_gemm);
  tc_scalar(&c3, "alpha", 3);
  tc_scalar(&c3, "beta", 2);
  tc_arg(&c3, ty(I32, 2, 1, 2), (int32_t[]){INT32_MAX, 1});
  tc_arg(&c3, ty(I32, 2, 2, 1), (int32_t[]){2, 5});
  tc_arg(&c3, ty(I32, 0), (int32_t[]){-1});
  EXPECT(&c3, ty(I32, 2, 1, 1), ((int32_t[]){(int32_t)(3u * (2u * (uint32_t)INT32_MAX + 5u) - 2u)}));
  tc_scalar(&c3, "alpha", 0.5);
  EXPECT_REJECT(&c3, "alpha is 0.5, expected an integer");
  /* K = 0: alpha * 0 + beta * C */
  tcall_t c4 = tc_op(&berth_op_def_gemm);
  tc_arg(&c4, ty(F32, 2, 2, 0), NULL);
  tc_arg(&c4, ty(F32, 2, 0, 2), NULL);
  tc_arg(&c4, ty(F32, 2, 1, 2), (float[]){3, 4});
  EXPECT(&c4, ty(F32, 2, 2, 2), ((float[]){3, 4, 3, 4}));
  /* dot-product path with N and K not multiples of 4 or 8 */
  enum { M = 3, N = 7, K = 11 };
  float A[M * K], B[N * K], want[M * N];
  for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 5) - 2;
  for (int i = 0; i < N * K; i++) B[i] = (float)((i * 3) % 7) - 3;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int q = 0; q < K; q++) s += A[i * K + q] * B[j * K + q];
      want[i * N + j] = s;
    }
  tcall_t c5 = tc_op(&berth_op_def_gemm);
  tc_int(&c5, "trans_b", 1);
  tc_arg(&c5, ty(F32, 2, M, K), A);
  tc_arg(&c5, ty(F32, 2, N, K), B);
  EXPECT(&c5, ty(F32, 2, M, N), want);
}

static void test_gemm_reject(void) {
  const float z[16] = {0};
  tcall_t c = tc_op(&berth_op_def_gemm);
  tc_arg(&c, ty(F32, 2, 2, 3), z);
  tc_arg(&c, ty(F32, 2, 2, 3), z);
  EXPECT_REJECT(&c, "gives K = 3 but B");
  tc_int(&c, "trans_b", 2);
  EXPECT_REJECT(&c, "trans_b is 2");
  tc_int(&c, "trans_b", 1);
  tc_arg(&c, ty(F32, 1, 3), z);
  EXPECT_REJECT(&c, "does not broadcast to the result [2,2]");
  c.in[2] = ty(F32, 3, 1, 2, 2);
  EXPECT_REJECT(&c, "does not broadcast");
  c.in[2] = ty(F32, 2, 2, 2);
  c.in[0] = ty(F32, 1, 3);
  EXPECT_REJECT(&c, "expected a matrix");
  c.in[0] = ty(BOOL, 2, 2, 3);
  EXPECT_REJECT(&c, "operand 0 has dtype bool");
}

static void gemm_onnx(const char *name, double alpha, double beta, int ta, int tb) {
  onnx_case_t oc;
  if (!onnx_load(name, &oc)) return;
  fprintf(stderr, "  %s\n", name);
  tcall_t c = tc_op(&berth_op_def_gemm);
  tc_scalar(&c, "alpha", alpha);
  tc_scalar(&c, "beta", beta);
  tc_int(&c, "trans_a", ta);
  tc_int(&c, "trans_b", tb);
  onnx_expect(__LINE__, &c, &oc, oc.n_in);
  onnx_free(&oc);
}

static void test_gemm_onnx(void) {
  gemm_onnx("test_gemm_alpha", 0.5, 1, 0, 0);
  gemm_onnx("test_gemm_beta", 1, 0.5, 0, 0);
  gemm_onnx("test_gemm_default_matrix_bias", 1, 1, 0, 0);
  gemm_onnx("test_gemm_default_no_bias", 1, 1, 0, 0);
  gemm_onnx("test_gemm_default_scalar_bias", 1, 1, 0, 0);
  gemm_onnx("test_gemm_default_single_elem_vector_bias", 1, 1, 0, 0);
  gemm_onnx("test_gemm_default_vector_bias", 1, 1, 0, 0);
  gemm_onnx("test_gemm_default_zero_bias", 1, 1, 0, 0);
  gemm_onnx("test_gemm_transposeA", 1, 1, 1, 0);
  gemm_onnx("test_gemm_transposeB", 1, 1, 0, 1);
}

/* ---- pad ---------------------------------------------------------------------------------- */

static void test_pad(void) {
  tcall_t c = tc_op(&berth_op_def_pad);
  TC_INTS(&c, "pads", 0, 1, 0, 2);
  tc_scalar(&c, "value", 9);
  tc_arg(&c, ty(I32, 2, 2, 3), (int32_t[]){1, 2, 3, 4, 5, 6});
  EXPECT(&c, ty(I32, 2, 2, 6), ((int32_t[]){9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9, 9}));
  /* outer axis padding and cropping together */
  TC_INTS(&c, "pads", 1, -1, 0, 0);
  EXPECT(&c, ty(I32, 2, 3, 2), ((int32_t[]){9, 9, 2, 3, 5, 6}));
  const float x[3] = {1, 2, 3};
  struct {
    int mode;
    float want[7];
  } modes[] = {{0, {0, 0, 1, 2, 3, 0, 0}}, {1, {3, 2, 1, 2, 3, 2, 1}}, {2, {1, 1, 1, 2, 3, 3, 3}},
               {3, {2, 3, 1, 2, 3, 1, 2}}};
  for (int i = 0; i < 4; i++) {
    tcall_t m = tc_op(&berth_op_def_pad);
    TC_INTS(&m, "pads", 2, 2);
    tc_int(&m, "mode", modes[i].mode);
    tc_arg(&m, ty(F32, 1, 3), x);
    EXPECT(&m, ty(F32, 1, 7), modes[i].want);
  }
  /* long reflection, crop then edge, a one-element reflect, f64 constant, rank 0, empty */
  tcall_t r = tc_op(&berth_op_def_pad);
  TC_INTS(&r, "pads", 5, 0);
  tc_int(&r, "mode", 1);
  tc_arg(&r, ty(F32, 1, 3), x);
  EXPECT(&r, ty(F32, 1, 8), ((float[]){2, 1, 2, 3, 2, 1, 2, 3}));
  TC_INTS(&r, "pads", -1, 1);
  tc_int(&r, "mode", 2);
  EXPECT(&r, ty(F32, 1, 3), ((float[]){2, 3, 3}));
  TC_INTS(&r, "pads", 2, -2);
  tc_int(&r, "mode", 1);
  EXPECT(&r, ty(F32, 1, 3), ((float[]){1, 1, 1}));
  tc_int(&r, "mode", 3);
  TC_INTS(&r, "pads", -3, 0);
  EXPECT(&r, ty(F32, 1, 0), NULL);
  tcall_t r2 = tc_op(&berth_op_def_pad);
  TC_INTS(&r2, "pads", 1, 1);
  tc_scalar(&r2, "value", -0.5);
  tc_arg(&r2, ty(F64, 1, 0), NULL);
  EXPECT(&r2, ty(F64, 1, 2), ((double[]){-0.5, -0.5}));
  tcall_t r3 = tc_op(&berth_op_def_pad);
  tc_arg(&r3, ty(U8, 0), (uint8_t[]){7});
  EXPECT(&r3, ty(U8, 0), ((uint8_t[]){7}));
  tcall_t r4 = tc_op(&berth_op_def_pad);
  TC_INTS(&r4, "pads", 0, 1, 1, 0);
  tc_scalar(&r4, "value", 1);
  tc_arg(&r4, ty(BOOL, 2, 1, 2), (uint8_t[]){0, 1});
  EXPECT(&r4, ty(BOOL, 2, 2, 3), ((uint8_t[]){1, 0, 1, 1, 1, 1}));
}

static void test_pad_reject(void) {
  const float z[8] = {0};
  tcall_t c = tc_op(&berth_op_def_pad);
  tc_arg(&c, ty(F32, 2, 2, 2), z);
  TC_INTS(&c, "pads", 1, 1);
  EXPECT_REJECT(&c, "pads has 2 values but input f32[2,2] has rank 2, expected 4");
  TC_INTS(&c, "pads", 0, -2, 0, -1);
  EXPECT_REJECT(&c, "leave a negative size");
  TC_INTS(&c, "pads", 0, 0, 0, 0);
  tc_int(&c, "mode", 4);
  EXPECT_REJECT(&c, "mode is 4");
  tc_int(&c, "mode", 1);
  TC_INTS(&c, "pads", 0, -2, 0, 1);
  EXPECT_REJECT(&c, "reflect mode cannot fill axis 1");
  tcall_t c2 = tc_op(&berth_op_def_pad);
  TC_INTS(&c2, "pads", 1, 0);
  tc_scalar(&c2, "value", 0.5);
  tc_arg(&c2, ty(I8, 1, 2), z);
  EXPECT_REJECT(&c2, "value 0.5 is not an integer");
  tc_scalar(&c2, "value", 200);
  EXPECT_REJECT(&c2, "value 200 does not fit dtype i8");
}

static void pad_onnx(const char *name, int mode, bool has_value) {
  onnx_case_t oc;
  if (!onnx_load(name, &oc)) return;
  fprintf(stderr, "  %s\n", name);
  tcall_t c = tc_op(&berth_op_def_pad);
  tc_ints_arr(&c, "pads", (const int64_t *)oc.in[1].data, (int)oc.in[1].t.dims[0]);
  tc_int(&c, "mode", mode);
  if (has_value) tc_scalar(&c, "value", pb_scalar(&oc.in[2]));
  onnx_expect(__LINE__, &c, &oc, 1);
  onnx_free(&oc);
}

static void test_pad_onnx(void) {
  pad_onnx("test_constant_pad", 0, true);
  pad_onnx("test_reflect_pad", 1, false);
  pad_onnx("test_edge_pad", 2, false);
  pad_onnx("test_wrap_pad", 3, false);
}

/* ---- softmax ------------------------------------------------------------------------------ */

static void test_softmax(void) {
  tcall_t c = tc_op(&berth_op_def_softmax);
  tc_arg(&c, ty(F32, 1, 3), (float[]){1, 2, 3});
  EXPECT_TOL(&c, ty(F32, 1, 3), ((float[]){0.09003057f, 0.24472847f, 0.66524096f}), 1e-6);
  tcall_t l = tc_op(&berth_op_def_log_softmax);
  tc_arg(&l, ty(F64, 1, 3), (double[]){1, 2, 3});
  EXPECT_TOL(&l, ty(F64, 1, 3), ((double[]){-2.40760596444438, -1.40760596444438, -0.40760596444438}), 1e-12);
  /* axis 0 of [2,2]: columns; legacy: the whole flattened tensor */
  tcall_t a = tc_op(&berth_op_def_softmax);
  tc_int(&a, "axis", 0);
  tc_arg(&a, ty(F64, 2, 2, 2), (double[]){1, 2, 3, 4});
  EXPECT_TOL(&a, ty(F64, 2, 2, 2), ((double[]){0.11920292202211755, 0.11920292202211755, 0.8807970779778823,
                                              0.8807970779778823}),
             1e-12);
  tc_int(&a, "legacy", 1);
  EXPECT_TOL(&a, ty(F64, 2, 2, 2), ((double[]){0.03205860328008499, 0.08714431874203257, 0.23688281808991013,
                                              0.6439142598879722}),
             1e-12);
  /* large values, a NaN row, an all -inf row */
  tcall_t b = tc_op(&berth_op_def_softmax);
  tc_arg(&b, ty(F32, 2, 3, 2), (float[]){1000, 1000, 1, fnan, -finf, -finf});
  EXPECT(&b, ty(F32, 2, 3, 2), ((float[]){0.5f, 0.5f, fnan, fnan, fnan, fnan}));
  tcall_t lb = tc_op(&berth_op_def_log_softmax);
  tc_arg(&lb, ty(F32, 1, 2), (float[]){1000, 0});
  EXPECT_TOL(&lb, ty(F32, 1, 2), ((float[]){0, -1000}), 1e-6);
  /* empty */
  tcall_t e = tc_op(&berth_op_def_softmax);
  tc_arg(&e, ty(F32, 2, 0, 3), NULL);
  EXPECT(&e, ty(F32, 2, 0, 3), NULL);
  /* rejects */
  tcall_t r = tc_op(&berth_op_def_softmax);
  tc_arg(&r, ty(F32, 0), (float[]){1});
  EXPECT_REJECT(&r, "is a scalar");
  r.in[0] = ty(I32, 1, 1);
  EXPECT_REJECT(&r, "expected one of f32, f64");
  r.in[0] = ty(F32, 1, 1);
  tc_int(&r, "axis", 1);
  EXPECT_REJECT(&r, "axis 1 is out of range");
  tc_int(&r, "axis", 0);
  tc_int(&r, "legacy", 2);
  EXPECT_REJECT(&r, "legacy is 2");
}

static void softmax_onnx(const char *name, int64_t axis) {
  onnx_case_t oc;
  if (!onnx_load(name, &oc)) return;
  fprintf(stderr, "  %s\n", name);
  tcall_t c = tc_op(&berth_op_def_softmax);
  tc_int(&c, "axis", axis);
  onnx_expect(__LINE__, &c, &oc, 1);
  onnx_free(&oc);
}

static void test_softmax_onnx(void) {
  softmax_onnx("test_softmax_axis_0", 0);
  softmax_onnx("test_softmax_axis_1", 1);
  softmax_onnx("test_softmax_axis_2", 2);
  softmax_onnx("test_softmax_example", -1);
  softmax_onnx("test_softmax_large_number", -1);
  softmax_onnx("test_softmax_negative_axis", -1);
}

/* ---- clip --------------------------------------------------------------------------------- */

static void test_clip(void) {
  tcall_t c = tc_op(&berth_op_def_clip);
  tc_arg(&c, ty(F32, 1, 5), (float[]){-2, 0.5f, 3, fnan, -finf});
  EXPECT(&c, ty(F32, 1, 5), ((float[]){-2, 0.5f, 3, fnan, -finf}));
  tc_scalar(&c, "min", -1);
  tc_scalar(&c, "max", 1);
  EXPECT(&c, ty(F32, 1, 5), ((float[]){-1, 0.5f, 1, fnan, -1}));
  tc_scalar(&c, "min", 2); /* min > max: everything becomes max */
  EXPECT(&c, ty(F32, 1, 5), ((float[]){1, 1, 1, fnan, 1}));
  tc_scalar(&c, "min", NAN);
  EXPECT(&c, ty(F32, 1, 5), ((float[]){-2, 0.5f, 1, fnan, -finf}));
  tcall_t i = tc_op(&berth_op_def_clip);
  tc_arg(&i, ty(I8, 1, 4), (int8_t[]){-128, 0, 127, -6});
  EXPECT(&i, ty(I8, 1, 4), ((int8_t[]){-128, 0, 127, -6}));
  tc_scalar(&i, "min", -5.5);
  tc_scalar(&i, "max", 100.7);
  EXPECT(&i, ty(I8, 1, 4), ((int8_t[]){-5, 0, 100, -5}));
  tc_scalar(&i, "min", -1000);
  tc_scalar(&i, "max", 1000);
  EXPECT(&i, ty(I8, 1, 4), ((int8_t[]){-128, 0, 127, -6}));
  tcall_t u = tc_op(&berth_op_def_clip);
  tc_scalar(&u, "min", -3);
  tc_scalar(&u, "max", 1e30);
  tc_arg(&u, ty(U64, 1, 2), (uint64_t[]){0, UINT64_MAX});
  EXPECT(&u, ty(U64, 1, 2), ((uint64_t[]){0, UINT64_MAX}));
  tc_scalar(&u, "max", 1e19);
  EXPECT(&u, ty(U64, 1, 2), ((uint64_t[]){0, 10000000000000000000ull}));
  tcall_t l = tc_op(&berth_op_def_clip);
  tc_scalar_i(&l, "max", INT64_MAX - 1);
  tc_arg(&l, ty(I64, 1, 2), (int64_t[]){INT64_MIN, INT64_MAX});
  EXPECT(&l, ty(I64, 1, 2), ((int64_t[]){INT64_MIN, INT64_MAX - 1}));
  tcall_t r = tc_op(&berth_op_def_clip);
  tc_arg(&r, ty(BOOL, 1, 1), (uint8_t[]){1});
  EXPECT_REJECT(&r, "operand 0 has dtype bool");
}

static void clip_onnx(const char *name, int min_input, int max_input) {
  onnx_case_t oc;
  if (!onnx_load(name, &oc)) return;
  fprintf(stderr, "  %s\n", name);
  tcall_t c = tc_op(&berth_op_def_clip);
  if (min_input) tc_scalar(&c, "min", pb_scalar(&oc.in[min_input]));
  if (max_input) tc_scalar(&c, "max", pb_scalar(&oc.in[max_input]));
  onnx_expect(__LINE__, &c, &oc, 1);
  onnx_free(&oc);
}

static void test_clip_onnx(void) {
  clip_onnx("test_clip", 1, 2);
  clip_onnx("test_clip_example", 1, 2);
  clip_onnx("test_clip_outbounds", 1, 2);
  clip_onnx("test_clip_splitbounds", 1, 2);
  clip_onnx("test_clip_min_greater_than_max", 1, 2);
  clip_onnx("test_clip_default_min", 1, 0);
  clip_onnx("test_clip_default_max", 0, 1);
  clip_onnx("test_clip_default_inbounds", 0, 0);
  clip_onnx("test_clip_default_int8_min", 1, 0);
  clip_onnx("test_clip_default_int8_max", 0, 1);
  clip_onnx("test_clip_default_int8_inbounds", 0, 0);
}

/* ---- range -------------------------------------------------------------------------------- */

static void range_case(int line, berth_dtype_t dt, double s, double l, double d, berth_type_t want, const void *data) {
  tcall_t c = tc_op(&berth_op_def_range);
  tc_dtype(&c, "dtype", dt);
  tc_scalar(&c, "start", s);
  tc_scalar(&c, "limit", l);
  tc_scalar(&c, "delta", d);
  tc_expect(line, &c, want, data, 1e-6);
}

static void test_range(void) {
  range_case(__LINE__, I32, 10, 4, -3, ty(I32, 1, 2), (int32_t[]){10, 7});
  range_case(__LINE__, F32, 1, 5, 2, ty(F32, 1, 2), (float[]){1, 3});
  range_case(__LINE__, F64, 0, 1, 0.25, ty(F64, 1, 4), (double[]){0, 0.25, 0.5, 0.75});
  range_case(__LINE__, F32, 0, 1.01, 0.25, ty(F32, 1, 5), (float[]){0, 0.25, 0.5, 0.75, 1});
  range_case(__LINE__, I8, -128, 127, 100, ty(I8, 1, 3), (int8_t[]){-128, -28, 72});
  range_case(__LINE__, I64, 5, 1, 1, ty(I64, 1, 0), NULL);
  range_case(__LINE__, U8, 3, 3, -1, ty(U8, 1, 0), NULL);
  /* exact int64 near the ends of the range */
  tcall_t c = tc_op(&berth_op_def_range);
  tc_dtype(&c, "dtype", I64);
  tc_scalar_i(&c, "start", INT64_MAX - 2);
  tc_scalar_i(&c, "limit", INT64_MAX);
  EXPECT(&c, ty(I64, 1, 2), ((int64_t[]){INT64_MAX - 2, INT64_MAX - 1}));
  tc_scalar_i(&c, "start", INT64_MIN);
  tc_scalar_i(&c, "delta", INT64_MAX);
  EXPECT(&c, ty(I64, 1, 3), ((int64_t[]){INT64_MIN, -1, INT64_MAX - 1}));
  /* rejects */
  tcall_t r = tc_op(&berth_op_def_range);
  tc_dtype(&r, "dtype", I8);
  tc_scalar(&r, "limit", 300);
  tc_scalar(&r, "delta", 100);
  EXPECT_REJECT(&r, "values 0 to 200 do not fit dtype i8");
  tc_scalar(&r, "delta", 0);
  EXPECT_REJECT(&r, "delta is 0");
  tc_scalar(&r, "delta", 0.5);
  EXPECT_REJECT(&r, "delta is 0.5, expected an integer");
  tc_dtype(&r, "dtype", F32);
  tc_scalar(&r, "limit", INFINITY);
  EXPECT_REJECT(&r, "expected finite");
  tc_scalar(&r, "limit", 1e30);
  tc_scalar(&r, "delta", 1);
  EXPECT_REJECT(&r, "exceed 2^40");
  tc_dtype(&r, "dtype", BOOL);
  EXPECT_REJECT(&r, "dtype is bool");
  tc_dtype(&r, "dtype", 99);
  EXPECT_REJECT(&r, "not a dtype");
  tc_dtype(&r, "dtype", I64);
  tc_scalar_i(&r, "start", 0);
  tc_scalar_i(&r, "limit", INT64_MAX);
  tc_scalar_i(&r, "delta", 1);
  EXPECT_REJECT(&r, "exceed 2^40");
}

static void test_range_onnx(void) {
  static const char *const names[] = {"test_range_float_type_positive_delta", "test_range_int32_type_negative_delta"};
  for (int i = 0; i < 2; i++) {
    onnx_case_t oc;
    if (!onnx_load(names[i], &oc)) continue;
    fprintf(stderr, "  %s\n", names[i]);
    range_case(__LINE__, oc.in[0].t.dtype, pb_scalar(&oc.in[0]), pb_scalar(&oc.in[1]), pb_scalar(&oc.in[2]),
               oc.out[0].t, oc.out[0].data);
    onnx_free(&oc);
  }
}

/* ---- gather ------------------------------------------------------------------------------- */

static void test_gather(void) {
  const int32_t d32[6] = {1, 2, 3, 4, 5, 6};
  tcall_t c = tc_op(&berth_op_def_gather);
  tc_arg(&c, ty(I32, 2, 3, 2), d32);
  tc_arg(&c, ty(I64, 2, 2, 2), (int64_t[]){0, 1, 1, 2});
  EXPECT(&c, ty(I32, 3, 2, 2, 2), ((int32_t[]){1, 2, 3, 4, 3, 4, 5, 6}));
  /* negative indices wrap; out-of-range ones give zeros */
  tcall_t c2 = tc_op(&berth_op_def_gather);
  tc_arg(&c2, ty(I32, 2, 3, 2), d32);
  tc_arg(&c2, ty(I32, 1, 5), (int32_t[]){-1, 3, -4, -3, INT32_MIN});
  EXPECT(&c2, ty(I32, 2, 5, 2), ((int32_t[]){5, 6, 0, 0, 0, 0, 1, 2, 0, 0}));
  /* axis 1 with a scalar index; axis -1 */
  tcall_t c3 = tc_op(&berth_op_def_gather);
  tc_int(&c3, "axis", 1);
  tc_arg(&c3, ty(F64, 2, 2, 3), (double[]){1, 2, 3, 4, 5, 6});
  tc_arg(&c3, ty(I64, 0), (int64_t[]){2});
  EXPECT(&c3, ty(F64, 1, 2), ((double[]){3, 6}));
  tc_int(&c3, "axis", -1);
  c3.data[1] = (int64_t[]){INT64_MAX};
  EXPECT(&c3, ty(F64, 1, 2), ((double[]){0, 0}));
  /* empty data along axis: every index is out of range */
  tcall_t c4 = tc_op(&berth_op_def_gather);
  tc_arg(&c4, ty(U8, 2, 0, 2), NULL);
  tc_arg(&c4, ty(I64, 1, 2), (int64_t[]){0, -1});
  EXPECT(&c4, ty(U8, 2, 2, 2), ((uint8_t[]){0, 0, 0, 0}));
  tcall_t c5 = tc_op(&berth_op_def_gather);
  tc_arg(&c5, ty(BOOL, 1, 3), (uint8_t[]){1, 0, 1});
  tc_arg(&c5, ty(I64, 1, 0), NULL);
  EXPECT(&c5, ty(BOOL, 1, 0), NULL);
  /* rejects */
  tcall_t r = tc_op(&berth_op_def_gather);
  tc_arg(&r, ty(F32, 1, 3), d32);
  tc_arg(&r, ty(F32, 1, 1), d32);
  EXPECT_REJECT(&r, "operand 1 has dtype f32, expected one of i32, i64");
  r.in[1] = ty(I32, 8, 1, 1, 1, 1, 1, 1, 1, 1);
  r.in[0] = ty(F32, 2, 1, 3);
  EXPECT_REJECT(&r, "gives rank 9");
  r.in[1] = ty(I32, 0);
  r.in[0] = ty(F32, 0);
  EXPECT_REJECT(&r, "is a scalar");
  r.in[0] = ty(F32, 1, 3);
  tc_int(&r, "axis", 1);
  EXPECT_REJECT(&r, "axis 1 is out of range");
}

static void test_gather_onnx(void) {
  static const struct {
    const char *name;
    int axis;
  } cases[] = {{"test_gather_0", 0}, {"test_gather_1", 1}, {"test_gather_2d_indices", 1},
               {"test_gather_negative_indices", 0}};
  for (int i = 0; i < 4; i++) {
    onnx_case_t oc;
    if (!onnx_load(cases[i].name, &oc)) continue;
    fprintf(stderr, "  %s\n", cases[i].name);
    tcall_t c = tc_op(&berth_op_def_gather);
    tc_int(&c, "axis", cases[i].axis);
    onnx_expect(__LINE__, &c, &oc, 2);
    onnx_free(&oc);
  }
}

/* ---- ceil, floor, mod --------------------------------------------------------------------- */

static void test_rounding(void) {
  const float x[7] = {-1.5f, -0.5f, 0.5f, 1.5f, fnan, finf, 2};
  tcall_t c = tc_op(&berth_op_def_ceil);
  tc_arg(&c, ty(F32, 1, 7), x);
  EXPECT(&c, ty(F32, 1, 7), ((float[]){-1, -0.0f, 1, 2, fnan, finf, 2}));
  tcall_t f = tc_op(&berth_op_def_floor);
  tc_arg(&f, ty(F32, 1, 7), x);
  EXPECT(&f, ty(F32, 1, 7), ((float[]){-2, -1, 0, 1, fnan, finf, 2}));
  tcall_t d = tc_op(&berth_op_def_floor);
  tc_arg(&d, ty(F64, 2, 1, 2), (double[]){-1e300, 2.5});
  EXPECT(&d, ty(F64, 2, 1, 2), ((double[]){-1e300, 2}));
  tcall_t r = tc_op(&berth_op_def_ceil);
  tc_arg(&r, ty(I32, 1, 1), (int32_t[]){1});
  EXPECT_REJECT(&r, "expected one of f32, f64");
}

static void test_mod(void) {
  const int32_t a[7] = {-7, 7, -7, 7, 5, INT32_MIN, INT32_MIN};
  const int32_t b[7] = {3, 3, -3, -3, 0, -1, 3};
  tcall_t c = tc_op(&berth_op_def_mod);
  tc_arg(&c, ty(I32, 1, 7), a);
  tc_arg(&c, ty(I32, 1, 7), b);
  EXPECT(&c, ty(I32, 1, 7), ((int32_t[]){2, 1, -1, -2, 0, 0, 1}));
  tc_int(&c, "fmod", 1);
  EXPECT(&c, ty(I32, 1, 7), ((int32_t[]){-1, 1, -1, 1, 0, 0, -2}));
  tcall_t i8 = tc_op(&berth_op_def_mod);
  tc_arg(&i8, ty(I8, 1, 3), (int8_t[]){-128, 127, -1});
  tc_arg(&i8, ty(I8, 0), (int8_t[]){127});
  EXPECT(&i8, ty(I8, 1, 3), ((int8_t[]){126, 0, 126}));
  tcall_t u = tc_op(&berth_op_def_mod);
  tc_arg(&u, ty(U8, 1, 2), (uint8_t[]){200, 9});
  tc_arg(&u, ty(U8, 2, 2, 1), (uint8_t[]){7, 0});
  EXPECT(&u, ty(U8, 2, 2, 2), ((uint8_t[]){4, 2, 0, 0}));
  tcall_t f = tc_op(&berth_op_def_mod);
  tc_int(&f, "fmod", 1);
  tc_arg(&f, ty(F32, 1, 4), (float[]){-7, 7, 5.5f, 1});
  tc_arg(&f, ty(F32, 1, 4), (float[]){3, -3, 2, 0});
  EXPECT(&f, ty(F32, 1, 4), ((float[]){-1, 1, 1.5f, fnan}));
  tc_int(&f, "fmod", 0);
  EXPECT_REJECT(&f, "needs fmod 1");
  tc_int(&f, "fmod", 2);
  EXPECT_REJECT(&f, "fmod is 2");
  tc_int(&f, "fmod", 1);
  f.in[1] = ty(F32, 1, 3);
  EXPECT_REJECT(&f, "do not broadcast");
  f.in[1] = ty(F64, 1, 4);
  EXPECT_REJECT(&f, "expected f32 like operand 0");
}

int main(void) {
  test_table();
  test_conv_small();
  test_conv_reject();
  test_lstm_small();
  test_lstm_reject();
  test_gemm_small();
  test_gemm_reject();
  test_pad();
  test_pad_reject();
  test_softmax();
  test_clip();
  test_range();
  test_gather();
  test_rounding();
  test_mod();
  fprintf(stderr, "official ONNX node tests:\n");
  test_conv_onnx();
  test_lstm_onnx();
  test_gemm_onnx();
  test_pad_onnx();
  test_softmax_onnx();
  test_clip_onnx();
  test_range_onnx();
  test_gather_onnx();
  if (onnx_cases_missing)
    fprintf(stderr, "%d official test folders not found under %s/onnx-node-tests (skipped)\n", onnx_cases_missing,
            BERTH_DATA_DIR);
  fprintf(stderr, "%d official test cases run\n", onnx_cases_run);
  return test_finish("test_kernel_onnx");
}
