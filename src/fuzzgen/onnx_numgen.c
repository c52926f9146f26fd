/* A structure-aware generator of small valid ONNX models whose attributes and constants
 * hold numeric edge values (NaN, +-inf, -0, denormals, 3e9, 1e30, INT32/INT64_MIN/MAX,
 * 2^40 dims, negative axes), and the property every such model must have:
 *
 *   the import fails with a one-line message and no program, or the program validates,
 *   plans, and runs planned (sanitizer on) and in the reference interpreter with the same
 *   status and, on success, the same bytes (NaN payloads aside); a failed call writes no
 *   output and says why.
 *
 * Choices come from a byte string (libFuzzer's input: fuzz/fuzz_onnx_numbers.c) or from a
 * seeded PRNG (tests/test_fuzz_onnx_numbers.c, the ctest fuzz mode). A byte flip of a
 * protobuf rarely survives decoding; this keeps every model well-formed and puts the odd
 * numbers where the importer converts them.
 *
 * berth/testing.h: berth_fuzz_onnx_numbers_model and berth_fuzz_onnx_numbers_check. */
#include "berth/testing.h"

#include "fuzzgen/onnx_build.h"
#include "host/session.h"
#include "onnx/onnx_import.h"
#include "plan/plan.h"
#include "reference/reference.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- choices ------------------------------------------------------------------------- */

typedef berth_fuzz_choices_t ng_t; /* fuzzer bytes, or (bytes NULL) the PRNG's state */

static uint32_t ng_byte(ng_t *g) {
  if (g->bytes) return g->at < g->n ? g->bytes[g->at++] : 0;
  g->state += 0x9e3779b97f4a7c15ull; /* splitmix64 */
  uint64_t z = g->state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (uint32_t)((z ^ (z >> 31)) & 0xff);
}

static uint32_t ng_pick(ng_t *g, uint32_t n) { return n ? ng_byte(g) % n : 0; }

static const int64_t ng_ints[] = {0, 1, -1, 2, 3, -2, -3, 4, 7, 255, 256, -128, -129, 65536, 1 << 24, (1 << 24) + 1,
                                  1 << 28, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, 3000000000LL,
                                  (int64_t)1 << 40, ((int64_t)1 << 40) + 1, -((int64_t)1 << 40), (int64_t)1 << 53,
                                  ((int64_t)1 << 53) + 1, (int64_t)1 << 62, INT64_MAX, INT64_MIN, INT64_MIN + 1,
                                  INT64_MAX - 1};
static const double ng_floats[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 3.0, NAN, INFINITY, -INFINITY, 3e9, -3e9, 1e30,
                                   -1e30, 1e-45, -1e-45, 1e-310, 3.4028234663852886e38, 2147483648.0, 2147483647.5,
                                   9223372036854775808.0, -9223372036854775808.0, 18446744073709551616.0, 255.5, 256.0,
                                   -128.5, 65535.0, 1e300};

/* A small int: mostly 0..3 and -1, sometimes an edge value. */
static int64_t ng_int(ng_t *g) {
  uint32_t c = ng_pick(g, 8);
  if (c < 5) return (int64_t)c - 1;
  return ng_ints[ng_pick(g, sizeof ng_ints / sizeof ng_ints[0])];
}
static double ng_float(ng_t *g) { return ng_floats[ng_pick(g, sizeof ng_floats / sizeof ng_floats[0])]; }

/* ---- building ------------------------------------------------------------------------ */

static const int ng_elems[] = {ONNX_F, ONNX_F64, ONNX_I32, ONNX_I64, ONNX_I8, ONNX_U8, ONNX_BOOL, ONNX_F16, 12 /* u32 */,
                               13 /* u64 */, 5 /* i16 */, 4 /* u16 */};

static int ng_elem(ng_t *g) { return ng_elems[ng_pick(g, sizeof ng_elems / sizeof ng_elems[0])]; }
static int ng_elem_int(ng_t *g) {
  static const int e[] = {ONNX_I32, ONNX_I64, ONNX_I8, ONNX_U8, 12, 13, 5, 4};
  return e[ng_pick(g, 8)];
}

/* A TensorProto of n values of elem, each an edge value, in raw_data or the typed field. */
static Onnx__TensorProto *ng_tensor(ob_t *b, ng_t *g, const char *name, int elem, const int64_t *dims, int rank,
                                    bool ints_only) {
  Onnx__TensorProto *t = ob_alloc(b, sizeof *t);
  onnx__tensor_proto__init(t);
  t->name = ob_str(b, name, strlen(name));
  t->has_data_type = 1;
  t->data_type = elem;
  t->dims = ob_alloc(b, sizeof(int64_t) * (size_t)(rank + 1));
  int64_t n = 1;
  for (int k = 0; k < rank; k++) {
    t->dims[k] = dims[k];
    n *= dims[k];
  }
  t->n_dims = (size_t)rank;
  if (n > 64) n = 64; /* the import refuses the mismatch: also a case */
  int bytes = elem == ONNX_F64 || elem == ONNX_I64 || elem == 13 ? 8 : elem == ONNX_F || elem == ONNX_I32 || elem == 12 ? 4
              : elem == ONNX_F16 || elem == 5 || elem == 4 ? 2 : 1;
  t->has_raw_data = 1;
  t->raw_data.len = (size_t)(n * bytes);
  t->raw_data.data = ob_alloc(b, t->raw_data.len + 1);
  for (int64_t i = 0; i < n; i++) {
    uint8_t *d = t->raw_data.data + i * bytes;
    bool flt = !ints_only && (elem == ONNX_F || elem == ONNX_F64);
    if (elem == ONNX_F16) {
      uint16_t h = (uint16_t)(ng_byte(g) | ng_byte(g) << 8);
      memcpy(d, &h, 2);
    } else if (flt && elem == ONNX_F) {
      float f = (float)ng_float(g);
      memcpy(d, &f, 4);
    } else if (flt) {
      double f = ng_float(g);
      memcpy(d, &f, 8);
    } else if (elem == ONNX_F || elem == ONNX_F64) {
      double f = (double)ng_int(g);
      if (elem == ONNX_F) {
        float x = (float)f;
        memcpy(d, &x, 4);
      } else {
        memcpy(d, &f, 8);
      }
    } else {
      int64_t v = ng_int(g);
      memcpy(d, &v, (size_t)bytes); /* little-endian: the low bytes, wrapped */
    }
  }
  return t;
}

static void ng_const(ob_t *b, ng_t *g, Onnx__GraphProto *gr, const char *out, int elem, const int64_t *dims, int rank,
                     bool ints_only) {
  Onnx__NodeProto *n = ob_node(b, gr, "Constant", "", out);
  ob_attr_t(b, n, "value", ng_tensor(b, g, out, elem, dims, rank, ints_only));
}

/* An INT attribute, written as an INT or (sometimes) as a FLOAT holding an edge value. */
static void ng_attr_int(ob_t *b, ng_t *g, Onnx__NodeProto *n, const char *name) {
  uint32_t c = ng_pick(g, 8);
  if (c == 7) {
    Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = (float)(ng_pick(g, 2) ? ng_float(g) : (double)ng_int(g));
  } else if (c != 6) {
    ob_attr_i(b, n, name, ng_int(g));
  }
}

static void ng_attr_float(ob_t *b, ng_t *g, Onnx__NodeProto *n, const char *name) {
  if (ng_pick(g, 4) == 0) return;
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  a->has_f = 1;
  a->f = (float)ng_float(g);
}

static void ng_attr_ints(ob_t *b, ng_t *g, Onnx__NodeProto *n, const char *name, int count) {
  if (ng_pick(g, 5) == 0) return;
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  a->ints = ob_alloc(b, sizeof(int64_t) * (size_t)(count + 1));
  for (int k = 0; k < count; k++) a->ints[k] = ng_int(g);
  a->n_ints = (size_t)count;
}

static void ng_attr_string(ob_t *b, Onnx__NodeProto *n, const char *name, const char *v) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  a->has_s = 1;
  a->s.len = strlen(v);
  a->s.data = (uint8_t *)ob_str(b, v, a->s.len);
}

static char *ng_dims_text(ob_t *b, const int64_t *dims, int rank) {
  char *s = ob_alloc(b, 16 * (size_t)(rank + 1));
  size_t o = 0;
  for (int k = 0; k < rank; k++) o += (size_t)sprintf(s + o, "%s%lld", k ? "," : "", (long long)dims[k]);
  return s;
}

/* Node kinds 0-11 (shapes, axes, reductions, Cast, Clip, Reshape). Returns the opset. */
static int64_t ng_node_shape(ob_t *b, ng_t *g, Onnx__GraphProto *gr, int kind, int rank, int elem, int64_t opset) {
  int64_t one[1] = {1}, rk[1] = {rank};
  Onnx__NodeProto *n = NULL;
  switch (kind) {
    case 0: n = ob_node(b, gr, "Concat", "x,x", "y"); ng_attr_int(b, g, n, "axis"); break;
    case 1: n = ob_node(b, gr, "Flatten", "x", "y"); ng_attr_int(b, g, n, "axis"); break;
    case 2:
      n = ob_node(b, gr, ng_pick(g, 2) ? "Softmax" : "LogSoftmax", "x", "y");
      ng_attr_int(b, g, n, "axis");
      break;
    case 3:
      n = ob_node(b, gr, "ArgMax", "x", "y");
      ng_attr_int(b, g, n, "axis");
      ng_attr_int(b, g, n, "keepdims");
      ng_attr_int(b, g, n, "select_last_index");
      break;
    case 4: n = ob_node(b, gr, "Transpose", "x", "y"); ng_attr_ints(b, g, n, "perm", rank); break;
    case 5: {
      const char *ops[] = {"Squeeze", "Unsqueeze", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean"};
      n = ob_node(b, gr, ops[ng_pick(g, 6)], "x", "y");
      opset = 6 + ng_pick(g, 5); /* axes as an attribute */
      ng_attr_ints(b, g, n, "axes", 1 + (int)ng_pick(g, 2));
      ng_attr_int(b, g, n, "keepdims");
      break;
    }
    case 6: {
      const char *ops[] = {"Squeeze", "Unsqueeze", "ReduceSum"};
      ng_const(b, g, gr, "ax", ONNX_I64, one, 1, true);
      n = ob_node(b, gr, ops[ng_pick(g, 3)], "x,ax", "y");
      opset = 13 + ng_pick(g, 5);
      ng_attr_int(b, g, n, "keepdims");
      ng_attr_int(b, g, n, "noop_with_empty_axes");
      break;
    }
    case 7:
      n = ob_node(b, gr, "Shape", "x", "y");
      opset = 15 + ng_pick(g, 5);
      ng_attr_int(b, g, n, "start");
      ng_attr_int(b, g, n, "end");
      break;
    case 8: n = ob_node(b, gr, "Cast", "x", "y"); ng_attr_int(b, g, n, "to"); ng_attr_int(b, g, n, "saturate"); break;
    case 9:
      n = ob_node(b, gr, "Clip", "x", "y");
      opset = 6 + ng_pick(g, 5);
      ng_attr_float(b, g, n, "min");
      ng_attr_float(b, g, n, "max");
      break;
    case 10:
      ng_const(b, g, gr, "lo", elem, NULL, 0, false);
      ng_const(b, g, gr, "hi", elem, NULL, 0, false);
      n = ob_node(b, gr, "Clip", ng_pick(g, 2) ? "x,lo,hi" : "x,,hi", "y");
      opset = 13;
      break;
    case 11:
      ng_const(b, g, gr, "s", ONNX_I64, ng_pick(g, 2) ? rk : one, 1, true);
      n = ob_node(b, gr, ng_pick(g, 2) ? "Reshape" : "Expand", "x,s", "y");
      opset = 13;
      ng_attr_int(b, g, n, "allowzero");
      break;
    default: break;
  }
  return opset;
}

/* Node kinds 12-18 (ConstantOfShape, Range, Slice, Pad, Gather). Returns the opset. */
static int64_t ng_node_ranges(ob_t *b, ng_t *g, Onnx__GraphProto *gr, int kind, int rank, int elem, int64_t opset) {
  int64_t one[1] = {1}, two[1] = {2};
  Onnx__NodeProto *n = NULL;
  switch (kind) {
    case 12: {
      ng_const(b, g, gr, "s", ONNX_I64, ng_pick(g, 2) ? one : two, 1, true);
      Onnx__NodeProto *c = ob_node(b, gr, "ConstantOfShape", "s", "k");
      int64_t d1[1] = {1};
      ob_attr_t(b, c, "value", ng_tensor(b, g, "v", ng_elem(g), d1, 1, false));
      n = ob_node(b, gr, "Shape", "k", "y");
      break;
    }
    case 13: {
      int e = ng_pick(g, 2) ? ng_elem_int(g) : ng_elem(g);
      ng_const(b, g, gr, "s", e, NULL, 0, false);
      ng_const(b, g, gr, "l", e, NULL, 0, false);
      ng_const(b, g, gr, "d", e, NULL, 0, false);
      ob_node(b, gr, "Range", "s,l,d", "r");
      n = ob_node(b, gr, "Shape", "r", "y");
      opset = 11 + ng_pick(g, 10);
      break;
    }
    case 14: {
      int64_t k = 1 + ng_pick(g, 2);
      int64_t kd[1] = {k};
      ng_const(b, g, gr, "st", ONNX_I64, kd, 1, true);
      ng_const(b, g, gr, "en", ONNX_I64, kd, 1, true);
      ng_const(b, g, gr, "ax", ONNX_I64, kd, 1, true);
      ng_const(b, g, gr, "sp", ONNX_I64, kd, 1, true);
      n = ob_node(b, gr, "Slice", ng_pick(g, 2) ? "x,st,en,ax,sp" : "x,st,en", "y");
      opset = 10 + ng_pick(g, 10);
      break;
    }
    case 15:
      n = ob_node(b, gr, "Slice", "x", "y");
      opset = 6 + ng_pick(g, 4);
      ng_attr_ints(b, g, n, "starts", 1);
      ng_attr_ints(b, g, n, "ends", 1);
      ng_attr_ints(b, g, n, "axes", 1);
      break;
    case 16: {
      int64_t pd[1] = {2 * rank};
      ng_const(b, g, gr, "p", ONNX_I64, pd, 1, true);
      ng_const(b, g, gr, "v", ng_pick(g, 2) ? elem : ng_elem(g), NULL, 0, false);
      n = ob_node(b, gr, "Pad", ng_pick(g, 2) ? "x,p,v" : "x,p", "y");
      opset = 11 + ng_pick(g, 10);
      if (ng_pick(g, 2)) ng_attr_string(b, n, "mode", ng_pick(g, 2) ? "reflect" : "edge");
      break;
    }
    case 17:
      n = ob_node(b, gr, "Pad", "x", "y");
      opset = 2 + ng_pick(g, 9);
      ng_attr_ints(b, g, n, "pads", 2 * rank);
      ng_attr_float(b, g, n, "value");
      break;
    case 18: {
      int64_t ik[1] = {1 + ng_pick(g, 3)};
      ng_const(b, g, gr, "i", ng_pick(g, 2) ? ONNX_I64 : ONNX_I32, ik, 1, true);
      n = ob_node(b, gr, "Gather", "x,i", "y");
      ng_attr_int(b, g, n, "axis");
      break;
    }
    default: break;
  }
  return opset;
}

/* A float initializer of dims (text) holding n values of a short repeating pattern. */
static void ng_weights(ob_t *b, Onnx__GraphProto *gr, const char *name, const char *dims, size_t n) {
  Onnx__TensorProto *t = ob_tensor(b, name, ONNX_F, dims, "");
  t->float_data = ob_alloc(b, sizeof(float) * (n + 1));
  for (size_t k = 0; k < n; k++) t->float_data[k] = (float)((int)(k % 7) - 3) * 0.015625f;
  t->n_float_data = n;
  OB_PUSH(b, gr->initializer, gr->n_initializer, t);
}

/* Node kinds 19-24 (Conv, Loop, folded constants, LSTM, two linked Convs). Returns the opset. */
static int64_t ng_node_misc(ob_t *b, ng_t *g, Onnx__GraphProto *gr, int kind, int rank, int elem, int64_t opset) {
  int64_t two[1] = {2}, four[1] = {4};
  Onnx__NodeProto *n = NULL;
  switch (kind) {
    case 19: {
      /* Conv on a [1,1,L] or [1,1,H,W] float input */
      int sp = 1 + (int)ng_pick(g, 2);
      Onnx__GraphProto *g2 = gr;
      g2->input[0] = ob_value_info(b, "x", ONNX_F, sp == 1 ? "1,1,4" : "1,1,3,3");
      Onnx__TensorProto *w = ob_tensor(b, "w", ONNX_F, sp == 1 ? "1,1,2" : "1,1,2,2", sp == 1 ? "1,1" : "1,1,1,1");
      OB_PUSH(b, g2->initializer, g2->n_initializer, w);
      n = ob_node(b, g2, "Conv", "x,w", "y");
      ng_attr_ints(b, g, n, "strides", sp);
      ng_attr_ints(b, g, n, "dilations", sp);
      if (ng_pick(g, 4) == 0) ob_attr_ints(b, n, "pads", sp == 1 ? "0,0" : "0,0,0,0");
      else ng_attr_ints(b, g, n, "pads", 2 * sp);
      ng_attr_int(b, g, n, "group");
      if (ng_pick(g, 2)) ng_attr_string(b, n, "auto_pad", ng_pick(g, 2) ? "SAME_UPPER" : "SAME_LOWER");
      break;
    }
    case 20: {
      /* Loop with a constant M (any dtype, any value) and a scan output */
      Onnx__GraphProto *body = ob_graph(b, "body");
      ob_input(b, body, "i", ONNX_I64, "");
      ob_input(b, body, "cin", ONNX_BOOL, "");
      ob_node(b, body, "Identity", "cin", "cout");
      ob_node(b, body, "Identity", "i", "s");
      ob_output(b, body, "cout", ONNX_BOOL, "");
      ob_output(b, body, "s", ONNX_I64, "");
      if (ng_pick(g, 3)) { /* int64 M: small, or past berth's cap of 2^24 (long loops are slow, not odd) */
        static const char *const mv[] = {"0", "1", "3", "-1", "16777217", "9223372036854775807", "-9223372036854775808",
                                         "1099511627776"};
        ob_const(b, gr, "M", ONNX_I64, "", mv[ng_pick(g, 8)]);
      } else {
        ng_const(b, g, gr, "M", ng_elem(g), NULL, 0, false);
      }
      ng_const(b, g, gr, "C", ng_pick(g, 3) ? ONNX_BOOL : ng_elem(g), NULL, 0, false);
      n = ob_node(b, gr, "Loop", ng_pick(g, 2) ? "M,C" : "M,", "ys");
      ob_attr_g(b, n, "body", body);
      ob_node(b, gr, "Shape", "ys", "y");
      opset = 11 + ng_pick(g, 10);
      break;
    }
    case 21: {
      /* Mul / Add / Div / Mod / Pow of two constants: folded at import */
      const char *ops[] = {"Mul", "Add", "Sub", "Div", "Mod", "Pow"};
      int e = ng_elem(g);
      ng_const(b, g, gr, "a", e, two, 1, false);
      ng_const(b, g, gr, "c", e, two, 1, false);
      n = ob_node(b, gr, ops[ng_pick(g, 6)], "a,c", "k");
      if (ng_pick(g, 2)) ng_attr_int(b, g, n, "fmod");
      n = ob_node(b, gr, "Identity", "k", "y");
      break;
    }
    case 22: {
      /* Cast of a constant: folded at import, saturating */
      ng_const(b, g, gr, "a", ng_elem(g), four, 1, false);
      n = ob_node(b, gr, "Cast", "a", "y");
      ob_attr_i(b, n, "to", ng_elems[ng_pick(g, sizeof ng_elems / sizeof ng_elems[0])]);
      break;
    }
    case 24: {
      /* two linked 3x3 Convs of 64 channels, the second with edge values in its attributes:
       * the layout pass (src/passes/layout.c) runs such a pair as one channel-blocked region
       * when the attributes make a conv it can take, and leaves it plain otherwise */
      gr->input[0] = ob_value_info(b, "x", ONNX_F, "1,64,5,5");
      ng_weights(b, gr, "w1", "64,64,3,3", 64 * 64 * 9);
      ng_weights(b, gr, "w2", "64,64,3,3", 64 * 64 * 9);
      n = ob_node(b, gr, "Conv", "x,w1", "t");
      ob_attr_ints(b, n, "pads", "1,1,1,1");
      n = ob_node(b, gr, "Conv", ng_pick(g, 2) ? "t,w2" : "t,w2,b2", "y");
      if (n->n_input == 3) ng_weights(b, gr, "b2", "64", 64);
      if (ng_pick(g, 2)) { /* edge values */
        ng_attr_ints(b, g, n, "strides", 2);
        ng_attr_ints(b, g, n, "dilations", 2);
        ng_attr_ints(b, g, n, "pads", 4);
        if (ng_pick(g, 4) == 0) ng_attr_int(b, g, n, "group");
      } else { /* small legal ones: a region the pass converts, borders of every kind */
        char v[64];
        snprintf(v, sizeof v, "%u,%u", 1 + ng_pick(g, 3), 1 + ng_pick(g, 3));
        ob_attr_ints(b, n, "strides", v);
        snprintf(v, sizeof v, "%u,%u", 1 + ng_pick(g, 2), 1 + ng_pick(g, 2));
        ob_attr_ints(b, n, "dilations", v);
        snprintf(v, sizeof v, "%u,%u,%u,%u", ng_pick(g, 4), ng_pick(g, 4), ng_pick(g, 4), ng_pick(g, 4));
        ob_attr_ints(b, n, "pads", v);
      }
      opset = 11 + ng_pick(g, 12);
      break;
    }
    default: {
      /* LSTM sizes */
      gr->input[0] = ob_value_info(b, "x", ONNX_F, "1,1,2");
      ob_init_tensor(b, gr, "W", ONNX_F, "1,4,2", "0,0,0,0,0,0,0,0");
      ob_init_tensor(b, gr, "R", ONNX_F, "1,4,1", "0,0,0,0");
      n = ob_node(b, gr, "LSTM", "x,W,R", "y");
      ng_attr_int(b, g, n, "hidden_size");
      ng_attr_int(b, g, n, "layout");
      opset = 14;
      break;
    }
  }
  return opset;
}

/* One model: input x (a small shape of a random type), one node of a random kind with edge
 * values in its attributes and constant operands, output y (untyped: the importer infers). */
static uint8_t *ng_model(ob_t *b, ng_t *g, size_t *len) {
  Onnx__GraphProto *gr = ob_graph(b, "main");
  int rank = (int)ng_pick(g, 4);
  int64_t dims[4];
  for (int k = 0; k < rank; k++) dims[k] = 1 + ng_pick(g, 3);
  int elem = ng_elem(g);
  ob_input(b, gr, "x", elem, ng_dims_text(b, dims, rank));
  int64_t opset = 6 + ng_pick(g, 17);
  int kind = (int)ng_pick(g, 25);
  if (kind < 12) opset = ng_node_shape(b, g, gr, kind, rank, elem, opset);
  else if (kind < 19) opset = ng_node_ranges(b, g, gr, kind, rank, elem, opset);
  else opset = ng_node_misc(b, g, gr, kind, rank, elem, opset);
  ob_output(b, gr, "y", -1, NULL);
  return ob_model(b, gr, opset, len);
}

/* ---- the property ---------------------------------------------------------------------- */

/* Inputs: each graph input filled with a repeating pattern of edge values. */
static void *ng_input_data(ng_t *g, const berth_type_t *t) {
  size_t bytes = berth_type_bytes(t), es = berth_dtype_size(t->dtype);
  uint8_t *d = malloc(bytes ? bytes : 1);
  if (!d) return NULL;
  int64_t n = berth_type_numel(t);
  for (int64_t i = 0; i < n; i++) {
    uint8_t *p = d + (size_t)i * es;
    if (t->dtype == BERTH_DTYPE_F32) {
      float f = (float)ng_float(g);
      memcpy(p, &f, 4);
    } else if (t->dtype == BERTH_DTYPE_F64) {
      double f = ng_float(g);
      memcpy(p, &f, 8);
    } else if (t->dtype == BERTH_DTYPE_BOOL) {
      *p = (uint8_t)(ng_byte(g) & 1);
    } else {
      int64_t v = ng_int(g);
      memcpy(p, &v, es);
    }
  }
  return d;
}

/* Equal bytes, or both NaN (payloads may differ between kernels). */
static bool ng_same(const berth_type_t *t, const void *a, const void *b) {
  int64_t n = berth_type_numel(t);
  size_t es = berth_dtype_size(t->dtype);
  for (int64_t i = 0; i < n; i++) {
    const uint8_t *x = (const uint8_t *)a + (size_t)i * es, *y = (const uint8_t *)b + (size_t)i * es;
    if (memcmp(x, y, es) == 0) continue;
    if (t->dtype == BERTH_DTYPE_F32) {
      float f, h;
      memcpy(&f, x, 4);
      memcpy(&h, y, 4);
      if (isnan(f) && isnan(h)) continue;
    } else if (t->dtype == BERTH_DTYPE_F64) {
      double f, h;
      memcpy(&f, x, 8);
      memcpy(&h, y, 8);
      if (isnan(f) && isnan(h)) continue;
    }
    return false;
  }
  return true;
}

#define NG_MAX_IO 8

/* Returns 0 when the property holds for the model in bytes (inputs drawn from g); else
 * nonzero with a reason in why. */
static int ng_check_model(ng_t *g, const uint8_t *bytes, size_t len, char *why, size_t why_cap) {
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_onnx_options_t opt = berth_onnx_options_default();
  opt.max_trip_count = 4;
  berth_ir_program_t *p = NULL;
  berth_status_t st = berth_onnx_import(bytes, len, &opt, &p, NULL, &diag);
  if (st) {
    if (p) return snprintf(why, why_cap, "a failed import wrote its output"), 1;
    if (!msg[0] || strchr(msg, '\n')) return snprintf(why, why_cap, "a failed import gave no one-line message: '%s'", msg), 2;
    if (st == BERTH_ERR_INTERNAL) return snprintf(why, why_cap, "internal error: %s", msg), 3;
    return 0;
  }
  int rc = 0;
  berth_compiled_t *c = NULL;
  berth_session_t *s = NULL;
  berth_ref_t *r = NULL;
  void *ins[NG_MAX_IO] = {0}, *a[NG_MAX_IO] = {0}, *bo[NG_MAX_IO] = {0};
  const berth_ir_method_t *m = &p->methods[0];
  const berth_ir_graph_t *g0 = &m->graphs[0];
  if (berth_ir_validate(p, &diag) != BERTH_OK) {
    rc = 4;
    snprintf(why, why_cap, "an imported program does not validate: %s", msg);
    goto done;
  }
  if (g0->n_params > NG_MAX_IO || g0->n_results > NG_MAX_IO) goto done;
  /* huge values (a pad of 3e9, an expand to 2^24 rows) are legitimate and only slow: their
   * import is checked, their run is not */
  uint64_t total = 0;
  for (int32_t k = 0; k < m->n_values; k++) total += berth_type_bytes(&m->values[k].type);
  if (total > ((uint64_t)1 << 22)) goto done;
  berth_plan_options_t popt = berth_plan_options_default();
  st = berth_plan_compile(p, &popt, &c, &diag);
  if (st == BERTH_ERR_VERIFY_FAILED || st == BERTH_ERR_INTERNAL) {
    rc = 5;
    snprintf(why, why_cap, "the planner fails on an imported program: %s", msg);
    goto done;
  }
  if (st) goto done;
  for (int32_t k = 0; k < g0->n_params; k++) {
    ins[k] = ng_input_data(g, &m->values[g0->params[k]].type);
    if (!ins[k]) goto done;
  }
  st = berth_session_create(&c->exec, true, &s, &diag);
  if (st && st != BERTH_ERR_RESOURCE_EXHAUSTED) {
    rc = 6;
    snprintf(why, why_cap, "session: %s", msg);
    goto done;
  }
  if (st) goto done;
  char msg2[2048];
  berth_diag_t d2 = berth_diag_make(msg2, sizeof msg2);
  berth_status_t s1 = berth_session_call(s, 0, (const void *const *)ins, a, &diag);
  if (berth_ref_create(p, &r, &d2) != BERTH_OK) {
    rc = 7;
    snprintf(why, why_cap, "reference: %s", msg2);
    goto done;
  }
  berth_status_t s2 = berth_ref_call(r, 0, (const void *const *)ins, bo, &d2);
  if (s1 != s2) {
    rc = 8;
    snprintf(why, why_cap, "planned and reference disagree: %s '%s' vs %s '%s'", berth_status_name(s1), msg,
             berth_status_name(s2), msg2);
    goto done;
  }
  if (s1) {
    for (int k = 0; k < NG_MAX_IO; k++)
      if (a[k] || bo[k]) {
        rc = 9;
        snprintf(why, why_cap, "a failed call wrote output %d", k);
        goto done;
      }
    if (!msg[0] || !msg2[0]) {
      rc = 10;
      snprintf(why, why_cap, "a failed call gave no message");
    }
    goto done;
  }
  for (int32_t k = 0; k < g0->n_results; k++) {
    const berth_type_t *t = &m->values[g0->results[k]].type;
    if (!ng_same(t, a[k], bo[k])) {
      rc = 11;
      snprintf(why, why_cap, "output %d differs between planned and reference", (int)k);
      goto done;
    }
  }
done:
  for (int k = 0; k < NG_MAX_IO; k++) {
    free(ins[k]);
    free(a[k]);
    free(bo[k]);
  }
  berth_ref_destroy(r);
  berth_session_destroy(s);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  return rc;
}

/* ---- berth/testing.h ------------------------------------------------------------------- */

berth_status_t berth_fuzz_onnx_numbers_model(berth_fuzz_choices_t *c, uint8_t **model, size_t *len,
                                             berth_diag_t *diag) {
  if (!c || !model || !len) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "berth_fuzz_onnx_numbers_model: NULL argument");
  ob_t b;
  ob_init(&b);
  size_t n = 0;
  uint8_t *m = ng_model(&b, c, &n), *copy = malloc(n ? n : 1);
  if (copy) memcpy(copy, m, n);
  ob_deinit(&b);
  if (!copy) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  *model = copy;
  *len = n;
  return BERTH_OK;
}

int berth_fuzz_onnx_numbers_check(berth_fuzz_choices_t *c, const uint8_t *model, size_t len, char *why,
                                  size_t why_cap) {
  char none[1];
  if (!why || !why_cap) why = none, why_cap = sizeof none;
  why[0] = '\0';
  if (!c || (!model && len)) return snprintf(why, why_cap, "berth_fuzz_onnx_numbers_check: NULL argument"), 12;
  return ng_check_model(c, model ? model : (const uint8_t *)"", len, why, why_cap);
}
