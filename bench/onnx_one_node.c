/* One-node ONNX models for bench/ort_compare (onnx_one_node.h), written with a few lines of
 * protobuf encoding: ModelProto{ir_version 8, graph{node, initializer (at most one), input x,
 * output y}, opset_import{"" 13}}. */
#include "onnx_one_node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pbuf {
  uint8_t *p;
  size_t n, cap;
} pbuf_t;
static void pb_put(pbuf_t *b, const void *d, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2;
    b->p = realloc(b->p, b->cap);
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void pb_varint(pbuf_t *b, uint64_t v) {
  uint8_t c[10];
  int n = 0;
  do c[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)), v >>= 7; while (v);
  pb_put(b, c, (size_t)n);
}
static void pb_int(pbuf_t *b, int field, uint64_t v) {
  pb_varint(b, (uint64_t)field << 3);
  pb_varint(b, v);
}
static void pb_bytes(pbuf_t *b, int field, const void *d, size_t n) {
  pb_varint(b, (uint64_t)field << 3 | 2);
  pb_varint(b, n);
  pb_put(b, d, n);
}
static void pb_str(pbuf_t *b, int field, const char *s) { pb_bytes(b, field, s, strlen(s)); }
static void pb_sub(pbuf_t *b, int field, pbuf_t *sub) { /* appends and frees sub */
  pb_bytes(b, field, sub->p, sub->n);
  free(sub->p);
  memset(sub, 0, sizeof *sub);
}
static void pb_value_info(pbuf_t *g, int field, const char *name, const int64_t *dims, int rank) {
  pbuf_t shape = {0}, tt = {0}, ty = {0}, vi = {0};
  for (int i = 0; i < rank; i++) {
    pbuf_t d = {0};
    pb_int(&d, 1, (uint64_t)dims[i]);
    pb_sub(&shape, 1, &d);
  }
  pb_int(&tt, 1, 1); /* FLOAT */
  pb_sub(&tt, 2, &shape);
  pb_sub(&ty, 1, &tt);
  pb_str(&vi, 1, name);
  pb_sub(&vi, 2, &ty);
  pb_sub(g, field, &vi);
}
/* ModelProto{ir_version 8, graph{node, initializer init (none if empty), input x [4 dims],
 * output y [4 dims]}, opset 13} into `path` (node and init are consumed); 0 on success. */
static int one_node_model(const char *path, pbuf_t *node, pbuf_t *init, const int64_t xd[4],
                                const int64_t yd[4]) {
  pbuf_t g = {0}, model = {0}, ops = {0};
  pb_sub(&g, 1, node);
  pb_str(&g, 2, "one_node");
  if (init->n) pb_sub(&g, 5, init);
  pb_value_info(&g, 11, "x", xd, 4);
  pb_value_info(&g, 12, "y", yd, 4);
  pb_int(&model, 1, 8); /* ir_version */
  pb_sub(&model, 7, &g);
  pb_str(&ops, 1, "");
  pb_int(&ops, 2, 13);
  pb_sub(&model, 8, &ops);
  FILE *f = fopen(path, "wb");
  int bad = !f || fwrite(model.p, 1, model.n, f) != model.n;
  if (f) bad |= fclose(f) != 0;
  free(model.p);
  return bad;
}

int onnx_write_conv(const char *path, int64_t c, int64_t m, int64_t h, int64_t k, int64_t group, int64_t s,
                    float (*rnd)(void)) {
  pbuf_t node = {0}, attr = {0}, w = {0};
  pb_str(&node, 1, "x");
  pb_str(&node, 1, "w");
  pb_str(&node, 2, "y");
  pb_str(&node, 4, "Conv");
  pb_str(&attr, 1, "pads");
  for (int i = 0; i < 4; i++) pb_int(&attr, 8, (uint64_t)(k / 2));
  pb_int(&attr, 20, 7); /* INTS */
  pb_sub(&node, 5, &attr);
  pb_str(&attr, 1, "group");
  pb_int(&attr, 3, (uint64_t)group);
  pb_int(&attr, 20, 2); /* INT */
  pb_sub(&node, 5, &attr);
  pb_str(&attr, 1, "strides");
  for (int i = 0; i < 2; i++) pb_int(&attr, 8, (uint64_t)s);
  pb_int(&attr, 20, 7); /* INTS */
  pb_sub(&node, 5, &attr);
  const int64_t o = (h + 2 * (k / 2) - k) / s + 1;
  const int64_t wd[4] = {m, c / group, k, k}, xd[4] = {1, c, h, h}, yd[4] = {1, m, o, o};
  const size_t nw = (size_t)(m * (c / group) * k * k);
  float *wv = malloc(nw * sizeof *wv);
  for (size_t i = 0; i < nw; i++) wv[i] = rnd() * 0.1f;
  for (int i = 0; i < 4; i++) pb_int(&w, 1, (uint64_t)wd[i]);
  pb_int(&w, 2, 1);
  pb_str(&w, 8, "w");
  pb_bytes(&w, 9, wv, nw * sizeof *wv); /* raw_data: little-endian floats */
  free(wv);
  return one_node_model(path, &node, &w, xd, yd);
}

int onnx_write_pool(const char *path, const char *op, int64_t c, int64_t h, int64_t k, int64_t s, int64_t pad,
                    int ceil) {
  pbuf_t node = {0}, attr = {0}, none = {0};
  pb_str(&node, 1, "x");
  pb_str(&node, 2, "y");
  pb_str(&node, 4, op);
  pb_str(&attr, 1, "kernel_shape");
  for (int i = 0; i < 2; i++) pb_int(&attr, 8, (uint64_t)k);
  pb_int(&attr, 20, 7); /* INTS */
  pb_sub(&node, 5, &attr);
  pb_str(&attr, 1, "strides");
  for (int i = 0; i < 2; i++) pb_int(&attr, 8, (uint64_t)s);
  pb_int(&attr, 20, 7);
  pb_sub(&node, 5, &attr);
  pb_str(&attr, 1, "pads");
  for (int i = 0; i < 4; i++) pb_int(&attr, 8, (uint64_t)pad);
  pb_int(&attr, 20, 7);
  pb_sub(&node, 5, &attr);
  pb_str(&attr, 1, "ceil_mode");
  pb_int(&attr, 3, (uint64_t)ceil);
  pb_int(&attr, 20, 2); /* INT */
  pb_sub(&node, 5, &attr);
  const int64_t span = h + 2 * pad - k, o = (ceil ? (span + s - 1) / s : span / s) + 1;
  const int64_t xd[4] = {1, c, h, h}, yd[4] = {1, c, o, o};
  return one_node_model(path, &node, &none, xd, yd);
}

int onnx_write_resize(const char *path, const char *mode, const char *ctm, int64_t c, int64_t h, int64_t scale) {
  pbuf_t node = {0}, attr = {0}, sc = {0};
  pb_str(&node, 1, "x");
  pb_str(&node, 1, "");
  pb_str(&node, 1, "s");
  pb_str(&node, 2, "y");
  pb_str(&node, 4, "Resize");
  pb_str(&attr, 1, "mode");
  pb_str(&attr, 4, mode);
  pb_int(&attr, 20, 3); /* STRING */
  pb_sub(&node, 5, &attr);
  pb_str(&attr, 1, "coordinate_transformation_mode");
  pb_str(&attr, 4, ctm);
  pb_int(&attr, 20, 3);
  pb_sub(&node, 5, &attr);
  const float sv[4] = {1, 1, (float)scale, (float)scale};
  pb_int(&sc, 1, 4);
  pb_int(&sc, 2, 1);
  pb_str(&sc, 8, "s");
  pb_bytes(&sc, 9, sv, sizeof sv);
  const int64_t xd[4] = {1, c, h, h}, yd[4] = {1, c, h * scale, h * scale};
  return one_node_model(path, &node, &sc, xd, yd);
}

/* Node attributes and initializers for the one-op rows below. */
static void pb_attr_int(pbuf_t *node, const char *name, int64_t v) {
  pbuf_t a = {0};
  pb_str(&a, 1, name);
  pb_int(&a, 3, (uint64_t)v);
  pb_int(&a, 20, 2); /* INT */
  pb_sub(node, 5, &a);
}
static void pb_attr_ints(pbuf_t *node, const char *name, const int64_t *v, int n) {
  pbuf_t a = {0};
  pb_str(&a, 1, name);
  for (int i = 0; i < n; i++) pb_int(&a, 8, (uint64_t)v[i]);
  pb_int(&a, 20, 7); /* INTS */
  pb_sub(node, 5, &a);
}
/* A TensorProto named "s" of dims d (rank r): f32 values v + 0.001 (i % 7), or the i64 values
 * of iv (n of them, repeated). */
static void pb_init_s(pbuf_t *t, const int64_t *d, int r, float v, const int64_t *iv, int n) {
  int64_t count = 1;
  for (int i = 0; i < r; i++) pb_int(t, 1, (uint64_t)d[i]), count *= d[i];
  pb_int(t, 2, iv ? 7 : 1); /* INT64 or FLOAT */
  pb_str(t, 8, "s");
  if (iv) {
    int64_t *b = malloc(sizeof *b * (size_t)count);
    for (int64_t i = 0; i < count; i++) b[i] = iv[i % n];
    pb_bytes(t, 9, b, sizeof *b * (size_t)count);
    free(b);
  } else {
    float *b = malloc(sizeof *b * (size_t)count);
    for (int64_t i = 0; i < count; i++) b[i] = v + 0.001f * (float)(i % 7);
    pb_bytes(t, 9, b, sizeof *b * (size_t)count);
    free(b);
  }
}

static void op_row_node(int kind, const int64_t *x, const int64_t *y, pbuf_t *node, pbuf_t *init) {
  const int64_t ch[4] = {1, x[1], 1, 1}, one[1] = {1}, eight[1] = {8}, four[1] = {4}, mm[2] = {x[3], y[3]};
  int64_t every_other[1024];
  for (int64_t i = 0; i < y[1] && i < 1024; i++) every_other[i] = (2 * i) % x[1];
  static const int64_t pads[8] = {0, 0, 1, 1, 0, 0, 1, 1}, reps[4] = {1, 1, 2, 2}, three[1] = {3};
  switch (kind) {
    case OP_LN: pb_init_s(init, x + 3, 1, 1.0f, NULL, 0); break;
    case OP_PER_CHANNEL: pb_init_s(init, ch, 4, 0.5f, NULL, 0); break;
    case OP_PRELU: pb_init_s(init, ch + 1, 3, 0.25f, NULL, 0); break;
    case OP_PAD_1: pb_init_s(init, eight, 1, 0, pads, 8); break;
    case OP_TILE_22: pb_init_s(init, four, 1, 0, reps, 4); break;
    case OP_POW_2: pb_init_s(init, NULL, 0, 2.0f, NULL, 0); break;
    case OP_CUMSUM_3: pb_init_s(init, NULL, 0, 0, three, 1); break;
    case OP_RSUM_3: pb_init_s(init, one, 1, 0, three, 1); break;
    case OP_CLIP_06: pb_init_s(init, NULL, 0, 6.0f, NULL, 0); break;
    case OP_MATMUL: pb_init_s(init, mm, 2, -0.01f, NULL, 0); break;
    case OP_SAME: pb_init_s(init, x, 4, 0.25f, NULL, 0); break;
    case OP_GATHER_1: pb_init_s(init, y + 1, 1, 0, every_other, (int)(y[1] < 1024 ? y[1] : 1024)); break;
    case OP_EXPAND: pb_init_s(init, four, 1, 0, y, 4); break;
    default: break;
  }
  if (kind == OP_CLIP_06) pb_str(node, 1, ""); /* no min: max "s" */
  if (init->n) pb_str(node, 1, "s");
  pb_str(node, 2, "y");
}
static void op_row_attrs(int kind, pbuf_t *node) {
  static const int64_t p0213[4] = {0, 2, 1, 3}, p0231[4] = {0, 2, 3, 1}, a3[1] = {3}, a23[2] = {2, 3}, a1[1] = {1};
  switch (kind) {
    case OP_AXIS_LAST: case OP_LN: pb_attr_int(node, "axis", -1); break;
    case OP_SAME: case OP_GATHER_1: pb_attr_int(node, "axis", 1); break;
    case OP_PERM_0213: pb_attr_ints(node, "perm", p0213, 4); break;
    case OP_PERM_0231: pb_attr_ints(node, "perm", p0231, 4); break;
    case OP_AXES_3: pb_attr_ints(node, "axes", a3, 1); break;
    case OP_AXES_23: pb_attr_ints(node, "axes", a23, 2); break;
    case OP_AXES_1: pb_attr_ints(node, "axes", a1, 1); break;
    case OP_BLOCK_2: pb_attr_int(node, "blocksize", 2); break;
    case OP_LRN_5: pb_attr_int(node, "size", 5); break;
    default: break;
  }
}
int onnx_write_op(const char *path, const char *op, int kind, const int64_t x[4], const int64_t y[4]) {
  pbuf_t node = {0}, init = {0};
  pb_str(&node, 1, "x");
  op_row_node(kind, x, y, &node, &init);
  pb_str(&node, 4, op);
  op_row_attrs(kind, &node);
  return one_node_model(path, &node, &init, x, y);
}
