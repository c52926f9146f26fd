/* The sequence family's ONNX translations (onnx_ops_sequence.c) where the suite does not
 * reach: class indices, position ids and sequence lengths outside their range fail the call
 * at run time (or the import, when they are constants) with a message naming the node;
 * float16 values are rounded where the reference rounds them (SoftmaxCrossEntropyLoss reads
 * log_prob as float16 holds it; CausalConvWithState's SiLU takes the rounded convolution);
 * unknown RNN activations and bad update rules are refused by name; TfIdfVectorizer's pool
 * attributes are checked number by number and its weights read per output coordinate. */
#define _POSIX_C_SOURCE 200809L
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "fuzzgen/onnx_build.h"
#include "onnx_run.h"
#pragma GCC diagnostic pop
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void attr_s(ob_t *b, Onnx__NodeProto *n, const char *name, const char *v) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  a->has_s = 1;
  a->s.data = (uint8_t *)ob_str(b, v, strlen(v));
  a->s.len = strlen(v);
}

/* The op defining value v in method 0 (BERTH_OP_COUNT for a parameter or constant). */
static berth_op_t def_op(const berth_ir_program_t *p, int32_t v) {
  const berth_ir_method_t *m = &p->methods[0];
  for (int32_t k = 0; k < m->n_nodes; k++)
    for (int32_t o = 0; o < m->nodes[k].n_out; o++)
      if (m->nodes[k].out[o] == v) return m->nodes[k].op;
  return BERTH_OP_COUNT;
}

static const berth_ir_node_t *find_node(const berth_ir_program_t *p, berth_op_t op) {
  const berth_ir_method_t *m = &p->methods[0];
  for (int32_t k = 0; k < m->n_nodes; k++)
    if (m->nodes[k].op == op) return &m->nodes[k];
  return NULL;
}

/* NegativeLogLikelihoodLoss: a runtime target outside 0..C-1 fails the call; ignore_index
 * does not; a constant target outside fails the import. */
static void test_nll_range(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2,3");
  ob_input(&b, g, "t", ONNX_I64, "2");
  ob_attr_i(&b, ob_node(&b, g, "NegativeLogLikelihoodLoss", "x,t", "loss"), "ignore_index", -7);
  ob_output(&b, g, "loss", ONNX_F, "");
  size_t len;
  uint8_t *m = ob_model(&b, g, 13, &len);
  berth_ir_program_t *p = onnx_import_ok("nll_range", m, len, NULL);
  if (p) {
    static const float x[6] = {1, 2, 3, 4, 5, 6};
    static const int64_t good[2] = {2, -7}, bad[2] = {0, 3}, neg[2] = {-1, 0};
    char msg[1024];
    CHECK_MSG(onnx_run_status(p, (const void *[]){x, good}, msg, sizeof msg) == BERTH_OK, "nll good targets: %s", msg);
    onnx_expect_check_fails("nll target 3", m, len, NULL, (const void *[]){x, bad}, "outside 0..2");
    onnx_expect_check_fails("nll target 3 names the op", m, len, NULL, (const void *[]){x, bad},
                            "NegativeLogLikelihoodLoss");
    onnx_expect_check_fails("nll target -1", m, len, NULL, (const void *[]){x, neg}, "outside 0..2");
    berth_ir_program_destroy(p);
  }
  ob_deinit(&b);
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2,3");
  ob_const(&b, g, "t", ONNX_I64, "2", "0,5");
  ob_node(&b, g, "NegativeLogLikelihoodLoss", "x,t", "loss");
  ob_output(&b, g, "loss", ONNX_F, "");
  m = ob_model(&b, g, 13, &len);
  onnx_expect_fail("nll_const_range", m, len, NULL, BERTH_OK, "outside 0..2");
  ob_deinit(&b);
}

/* RotaryEmbedding: a position id past the caches fails the call. */
static void test_rotary_range(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "1,1,1,2");
  ob_input(&b, g, "c", ONNX_F, "2,1");
  ob_input(&b, g, "s", ONNX_F, "2,1");
  ob_input(&b, g, "pos", ONNX_I64, "1,1");
  ob_node(&b, g, "RotaryEmbedding", "x,c,s,pos", "y");
  ob_output(&b, g, "y", ONNX_F, "1,1,1,2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 23, &len);
  berth_ir_program_t *p = onnx_import_ok("rotary_range", m, len, NULL);
  if (p) {
    static const float x[2] = {1, 2}, c[2] = {1, 0}, s[2] = {0, 1};
    static const int64_t ok[1] = {1}, bad[1] = {2};
    char msg[1024];
    CHECK_MSG(onnx_run_status(p, (const void *[]){x, c, s, ok}, msg, sizeof msg) == BERTH_OK, "rotary pos 1: %s", msg);
    onnx_expect_check_fails("rotary pos 2", m, len, NULL, (const void *[]){x, c, s, bad}, "position id");
    berth_ir_program_destroy(p);
  }
  ob_deinit(&b);
}

/* RNN: a sequence length past X's fails the call; an unknown activation fails the import. */
static void test_rnn_range(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2,1,1");
  ob_input(&b, g, "w", ONNX_F, "1,1,1");
  ob_input(&b, g, "r", ONNX_F, "1,1,1");
  ob_input(&b, g, "sl", ONNX_I32, "1");
  ob_attr_i(&b, ob_node(&b, g, "RNN", "x,w,r,,sl", "y,yh"), "hidden_size", 1);
  ob_output(&b, g, "y", ONNX_F, "2,1,1,1");
  ob_output(&b, g, "yh", ONNX_F, "1,1,1");
  size_t len;
  uint8_t *m = ob_model(&b, g, 14, &len);
  berth_ir_program_t *p = onnx_import_ok("rnn_range", m, len, NULL);
  if (p) {
    static const float x[2] = {1, 2}, w[1] = {0.5f}, r[1] = {0.25f};
    static const int32_t ok[1] = {1}, bad[1] = {3};
    char msg[1024];
    CHECK_MSG(onnx_run_status(p, (const void *[]){x, w, r, ok}, msg, sizeof msg) == BERTH_OK, "rnn length 1: %s", msg);
    onnx_expect_check_fails("rnn length 3", m, len, NULL, (const void *[]){x, w, r, bad}, "sequence length");
    berth_ir_program_destroy(p);
  }
  ob_deinit(&b);
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2,1,1");
  ob_input(&b, g, "w", ONNX_F, "1,1,1");
  ob_input(&b, g, "r", ONNX_F, "1,1,1");
  Onnx__NodeProto *n = ob_node(&b, g, "RNN", "x,w,r", "y");
  Onnx__AttributeProto *a = ob_attr(&b, n, "activations", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
  a->n_strings = 1;
  a->strings = ob_alloc(&b, sizeof *a->strings);
  a->strings[0].data = (uint8_t *)ob_str(&b, "Gelu", 4);
  a->strings[0].len = 4;
  ob_output(&b, g, "y", ONNX_F, "2,1,1,1");
  m = ob_model(&b, g, 14, &len);
  onnx_expect_fail("rnn_activation", m, len, NULL, BERTH_OK, "activation 'Gelu' is not an ONNX RNN activation");
  ob_deinit(&b);
}

/* float16: SoftmaxCrossEntropyLoss's loss reads the rounded log_prob, CausalConvWithState's
 * SiLU the rounded convolution (a narrow_cast defines each). */
static void test_f16_rounding(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F16, "2,3");
  ob_input(&b, g, "t", ONNX_I64, "2");
  ob_input(&b, g, "w", ONNX_F16, "3");
  ob_node(&b, g, "SoftmaxCrossEntropyLoss", "x,t,w", "loss");
  ob_output(&b, g, "loss", ONNX_F16, "");
  size_t len;
  uint8_t *m = ob_model(&b, g, 13, &len);
  berth_ir_program_t *p = onnx_import_ok("sce_f16", m, len, NULL);
  if (p) {
    const berth_ir_node_t *nd = find_node(p, BERTH_OP_NLL_LOSS);
    CHECK_MSG(nd && def_op(p, nd->in[0]) == BERTH_OP_NARROW_CAST, "sce_f16: nll_loss does not read a rounded log_prob");
    berth_ir_program_destroy(p);
  }
  ob_deinit(&b);
  ob_init(&b);
  g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F16, "1,1,4");
  ob_input(&b, g, "w", ONNX_F16, "1,1,2");
  attr_s(&b, ob_node(&b, g, "CausalConvWithState", "x,w", "y,st"), "activation", "silu");
  ob_output(&b, g, "y", ONNX_F16, "1,1,4");
  m = ob_model(&b, g, 27, &len);
  p = onnx_import_ok("cconv_f16", m, len, NULL);
  if (p) {
    /* x sigmoid(x) is one elementwise_chain (src/passes/fuse_chain.c) whose input is x */
    const berth_ir_node_t *nd = find_node(p, BERTH_OP_SIGMOID);
    if (!nd) nd = find_node(p, BERTH_OP_ELEMENTWISE_CHAIN);
    CHECK_MSG(nd && def_op(p, nd->in[0]) == BERTH_OP_NARROW_CAST, "cconv_f16: the SiLU does not read a rounded conv");
    berth_ir_program_destroy(p);
  }
  ob_deinit(&b);
}

/* LinearAttention's update rule says which of decay and beta must be there. */
static void test_linear_attention_rule(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "q", ONNX_F, "1,2,4");
  Onnx__NodeProto *n = ob_node(&b, g, "LinearAttention", "q,q,q", "y");
  ob_attr_i(&b, n, "q_num_heads", 2);
  ob_attr_i(&b, n, "kv_num_heads", 2);
  ob_output(&b, g, "y", ONNX_F, "1,2,4");
  size_t len;
  uint8_t *m = ob_model(&b, g, 27, &len);
  onnx_expect_fail("la_rule", m, len, NULL, BERTH_OK, "update_rule 'gated_delta' needs the decay input");
  ob_deinit(&b);
}

/* TfIdfVectorizer: the importer checks every number of the pool's attributes, refuses
 * string pools as string tensors, and reads weights per output coordinate (as onnxruntime
 * and the ONNX reference do; the permuted ngram_indexes below tell the two readings apart). */
typedef struct tfv_case {
  const char *name, *mode, *counts, *indexes, *pool, *weights; /* weights NULL: absent */
  int64_t min_gram, max_gram, skip, opset;
  int x_elem;
  const char *x_dims, *want_err; /* want_err NULL: imports */
  bool strings;
} tfv_case_t;

static uint8_t *tfv_model(ob_t *b, const tfv_case_t *c, size_t *len) {
  Onnx__GraphProto *g = ob_graph(b, "main");
  ob_input(b, g, "x", c->x_elem, c->x_dims);
  Onnx__NodeProto *n = ob_node(b, g, "TfIdfVectorizer", "x", "y");
  if (c->mode) attr_s(b, n, "mode", c->mode);
  ob_attr_i(b, n, "min_gram_length", c->min_gram);
  ob_attr_i(b, n, "max_gram_length", c->max_gram);
  ob_attr_i(b, n, "max_skip_count", c->skip);
  ob_attr_ints(b, n, "ngram_counts", c->counts);
  ob_attr_ints(b, n, "ngram_indexes", c->indexes);
  if (c->strings) {
    Onnx__AttributeProto *a = ob_attr(b, n, "pool_strings", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
    a->strings = ob_alloc(b, sizeof *a->strings);
    a->strings[0].data = (uint8_t *)ob_str(b, "a", 1);
    a->strings[0].len = 1;
    a->n_strings = 1;
  } else {
    ob_attr_ints(b, n, "pool_int64s", c->pool);
  }
  if (c->weights) {
    Onnx__AttributeProto *a = ob_attr(b, n, "weights", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    char **v;
    a->n_floats = ob_split(b, c->weights, &v);
    a->floats = ob_alloc(b, sizeof(float) * (a->n_floats + 1));
    for (size_t k = 0; k < a->n_floats; k++) a->floats[k] = strtof(v[k], NULL);
  }
  ob_output(b, g, "y", ONNX_F, "");
  return ob_model(b, g, c->opset, len);
}

static void test_tfidf_import(void) {
  static const tfv_case_t bad[] = {
      {"strings", "TF", "0", "0", "", NULL, 1, 1, 0, 9, ONNX_I64, "3", "element type string", true},
      {"decreasing", "TF", "0,3,2", "0,1", "1,2,3,4", NULL, 1, 3, 0, 9, ONNX_I64, "3", "ngram_counts decreases at 2", false},
      {"past pool", "TF", "0,9", "0", "1,2,3,4", NULL, 1, 2, 0, 9, ONNX_I64, "3", "is 9, expected 0..4", false},
      {"not whole", "TF", "0,2", "0,1", "1,2,3", NULL, 1, 2, 0, 9, ONNX_I64, "3", "no whole number of 2-grams", false},
      {"indexes count", "TF", "0", "0,1", "1,2,3", NULL, 1, 1, 0, 9, ONNX_I64, "3", "has 2 values, expected 3", false},
      {"negative index", "TF", "0", "0,-1", "1,2", NULL, 1, 1, 0, 9, ONNX_I64, "3", "ngram_indexes[1] is -1", false},
      {"twice", "TF", "0,2", "0,1,2,3", "5,6,1,2,1,2", NULL, 1, 2, 0, 9, ONNX_I64, "3",
       "one 2-gram twice (for coordinates 2 and 3)", false},
      {"weights count", "IDF", "0", "0,1", "1,2", "1", 1, 1, 0, 9, ONNX_I64, "3", "weights has 1 values, expected 2", false},
      {"weights short", "IDF", "0", "0,5", "1,2", "1,1", 1, 1, 0, 9, ONNX_I64, "3", "reaches coordinate 5", false},
      {"mode", "TFX", "0", "0", "1", NULL, 1, 1, 0, 9, ONNX_I64, "3", "mode 'TFX', expected TF, IDF or TFIDF", false},
      {"no mode", NULL, "0", "0", "1", NULL, 1, 1, 0, 9, ONNX_I64, "3", "attribute 'mode'", false},
      {"min 0", "TF", "0", "0", "1", NULL, 0, 1, 0, 9, ONNX_I64, "3", "expected 1 <= min <= max", false},
      {"max < min", "TF", "0", "0", "1", NULL, 2, 1, 0, 9, ONNX_I64, "3", "expected 1 <= min <= max", false},
      {"skip", "TF", "0", "0", "1", NULL, 1, 1, -1, 9, ONNX_I64, "3", "max_skip_count -1", false},
      {"opset", "TF", "0", "0", "1", NULL, 1, 1, 0, 8, ONNX_I64, "3", "from opset 9", false},
      {"float x", "TF", "0", "0", "1", NULL, 1, 1, 0, 9, ONNX_F, "3", "expected one of i32, i64", false},
      {"rank 3", "TF", "0", "0", "1", NULL, 1, 1, 0, 9, ONNX_I64, "1,1,3", "expected rank 1 [C] or 2 [N, C]", false},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    ob_t b;
    ob_init(&b);
    size_t len;
    uint8_t *m = tfv_model(&b, &bad[k], &len);
    onnx_expect_fail(bad[k].name, m, len, NULL, BERTH_OK, bad[k].want_err);
    ob_deinit(&b);
  }
  /* 10 -> coordinate 2 (twice), 20 -> 0, 30 -> 1; weights 0.25, 2, 8 belong to coordinates
   * 0, 1, 2 (by pool n-gram they would give 2, 8, 0.5 and 2, 8, 0.25) */
  static const int64_t x[5] = {10, 10, 20, 30, 99};
  tfv_case_t c = {"weights", "TFIDF", "0", "2,0,1", "10,20,30", "0.25,2,8", 1, 1, 0, 9, ONNX_I64, "5", NULL, false};
  ob_t b;
  ob_init(&b);
  size_t len;
  uint8_t *m = tfv_model(&b, &c, &len);
  onnx_expect_run("tfidf weights", m, len, (const void *[]){x}, (float[]){0.25f, 2, 16}, 3 * sizeof(float));
  ob_deinit(&b);
  c.mode = "IDF";
  ob_init(&b);
  m = tfv_model(&b, &c, &len);
  onnx_expect_run("idf weights", m, len, (const void *[]){x}, (float[]){0.25f, 2, 8}, 3 * sizeof(float));
  ob_deinit(&b);
  /* bigrams only (min 2): the 1-grams' coordinates are skipped over, and a 1-gram given
   * twice is no error since it is never counted; i32 tokens */
  static const int32_t x4[4] = {1, 2, 2, 1};
  tfv_case_t d = {"bigrams", "TF", "0,2", "0,1,2,3", "1,1,1,2,2,1", NULL, 2, 2, 0, 9, ONNX_I32, "4", NULL, false};
  ob_init(&b);
  m = tfv_model(&b, &d, &len);
  onnx_expect_run("tfidf bigrams", m, len, (const void *[]){x4}, (float[]){0, 0, 1, 1}, 4 * sizeof(float));
  ob_deinit(&b);
}

int main(void) {
  test_nll_range();
  test_rotary_range();
  test_rnn_range();
  test_f16_rounding();
  test_linear_attention_rule();
  test_tfidf_import();
  return test_finish("test_onnx_sequence");
}
