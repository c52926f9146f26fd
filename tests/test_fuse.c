/* Activation fusion (src/passes/fuse.c) and conv's act epilogue (src/kernels/kernel_conv.c):
 * a relu, clip or leaky_relu that is the only reader of a conv's result in the same graph
 * becomes the conv's act; a conv result with another reader, a graph result, a reader in a
 * HOP body, or a conv that already has an act stays as it is. Then the epilogue against
 * the separate kernels, bit for bit (depthwise fast path, packed GEMM, generic loop, f32 and
 * f64, every kernel variant), and infer's check of act. Randomized: BERTH_TEST_SEED. */
#include "berth/kernels.h"
#include "passes/passes.h"
#include "reference/reference.h"
#include "test_kernel_util.h"

static const char *src =
    "program {alloc_inputs = 1, alloc_outputs = 1}\n"
    "\n"
    "func @f(%x : f32[1,2,5,5], %w : f32[2,1,3,3], %p : bool[]) -> (f32[1,2,5,5], f32[1,2,5,5], f32[1,2,5,5], "
    "f32[1,2,5,5], f32[1,2,5,5], f32[1,2,5,5], f32[1,2,5,5], f32[1,2,5,5], f32[1,2,5,5]) {\n"
    "  %a = conv(%x, %w) {pads = [1, 1, 1, 1], group = 2} : f32[1,2,5,5]\n"
    "  %ra = relu(%a) : f32[1,2,5,5]\n"
    "  %b = conv(%x, %w) {pads = [1, 1, 1, 1], group = 2} : f32[1,2,5,5]\n"
    "  %cb = clip(%b) {min = 0, max = 6} : f32[1,2,5,5]\n"
    "  %c = conv(%x, %w) {pads = [1, 1, 1, 1], group = 2} : f32[1,2,5,5]\n"
    "  %lc = leaky_relu(%c) {alpha = 0.25} : f32[1,2,5,5]\n"
    "  %d = conv(%x, %w) {pads = [1, 1, 1, 1], group = 2} : f32[1,2,5,5]\n"
    "  %rd = relu(%d) : f32[1,2,5,5]\n"
    "  %nd = neg(%d) : f32[1,2,5,5]\n"
    "  %e = conv(%x, %w) {pads = [1, 1, 1, 1], group = 2} : f32[1,2,5,5]\n"
    "  %re = relu(%e) : f32[1,2,5,5]\n"
    "  %g = conv(%x, %w) {pads = [1, 1, 1, 1], group = 2} : f32[1,2,5,5]\n"
    "  %rg = cond(%p, %g) : f32[1,2,5,5]\n"
    "    then(%t : f32[1,2,5,5]) {\n"
    "      %rt = relu(%g) : f32[1,2,5,5]\n"
    "      return %rt\n"
    "    }\n"
    "    else(%u : f32[1,2,5,5]) {\n"
    "      return %u\n"
    "    }\n"
    "  %h = conv(%x, %w) {pads = [1, 1, 1, 1], group = 2, act = 3, act_alpha = 0.5} : f32[1,2,5,5]\n"
    "  %rh = relu(%h) : f32[1,2,5,5]\n"
    "  return %ra, %cb, %lc, %rd, %nd, %e, %re, %rg, %rh\n"
    "}\n";

static void count_ops(const berth_ir_program_t *p, int *relu, int *conv_act) {
  const berth_ir_method_t *m = &p->methods[0];
  const int act = berth_op_attr_index(berth_op_get(BERTH_OP_CONV), "act", 3);
  *relu = *conv_act = 0;
  for (int32_t i = 0; i < m->n_nodes; i++) {
    *relu +=
        m->nodes[i].op == BERTH_OP_RELU || m->nodes[i].op == BERTH_OP_CLIP || m->nodes[i].op == BERTH_OP_LEAKY_RELU;
    *conv_act += m->nodes[i].op == BERTH_OP_CONV && m->nodes[i].attrs[act].i != 0;
  }
}

static void test_pass(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  CHECK_MSG(berth_ir_parse(src, strlen(src), "fuse.bir", &p, &d) == BERTH_OK, "%s", msg);
  if (!p) return;
  int relu, conv_act;
  count_ops(p, &relu, &conv_act);
  CHECK(relu == 7 && conv_act == 1);
  CHECK(berth_pass_fuse_act(p) == 3);
  CHECK_MSG(berth_pass_dce(&p, &d) == BERTH_OK, "%s", msg);
  if (!p) return;
  CHECK_MSG(berth_ir_validate(p, &d) == BERTH_OK, "%s", msg);
  count_ops(p, &relu, &conv_act);
  CHECK_MSG(relu == 4 && conv_act == 4, "%d activations and %d convs with act left", relu, conv_act);
  char *text = berth_ir_print(p);
  static const char *const want[] = {
      "%ra = conv(%x, %w) {strides = [], pads = [1, 1, 1, 1], dilations = [], group = 2, act = 1, act_alpha = 0, "
      "act_beta = 0}",
      "%cb = conv(%x, %w) {strides = [], pads = [1, 1, 1, 1], dilations = [], group = 2, act = 2, act_alpha = 0, "
      "act_beta = 6}",
      "%lc = conv(%x, %w) {strides = [], pads = [1, 1, 1, 1], dilations = [], group = 2, act = 3, act_alpha = 0.25, "
      "act_beta = 0}",
      "%rd = relu(%d)",
      "%nd = neg(%d)",
      "%re = relu(%e)",
      "%rt = relu(%g)",
      "%rh = relu(%h)",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK_MSG(text && strstr(text, want[i]), "after fusion, no line with\n  %s\nin\n%s", want[i], text ? text : "");
  free(text);
  berth_ir_program_destroy(p);
}

/* ---- the epilogue against the separate kernels ---------------------------------------- */

static uint64_t rng_state, rng_seed;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}

static void *rnd_data(berth_dtype_t dt, int64_t n) {
  void *p = malloc((size_t)(n ? n : 1) * 8);
  for (int64_t i = 0; i < n; i++) {
    double v = (double)(rnd() % 2001) / 250.0 - 4.0; /* [-4, 4]: every side of clip(0, 6)'s bounds */
    if (dt == BERTH_DTYPE_F32)
      ((float *)p)[i] = (float)v;
    else
      ((double *)p)[i] = v;
  }
  return p;
}

/* conv {group, pads 1, act, alpha, beta} against conv then the activation's own kernel */
static void check_act(int line, berth_dtype_t dt, int c, int m, int group, int h, int k, int act, double alpha,
                      double beta) {
  berth_type_t tx = ty(dt, 4, 1, c, h, h), tw = ty(dt, 4, m, c / group, k, k), tb = ty(dt, 1, m);
  berth_type_t tyy = ty(dt, 4, 1, m, h - k + 3, h - k + 3);
  void *x = rnd_data(dt, berth_type_numel(&tx)), *w = rnd_data(dt, berth_type_numel(&tw)), *b = rnd_data(dt, m);
  const int64_t ny = berth_type_numel(&tyy);
  tcall_t plain = tc_op(&berth_op_def_conv), fused;
  TC_INTS(&plain, "pads", 1, 1, 1, 1);
  tc_int(&plain, "group", group);
  tc_arg(&plain, tx, x);
  tc_arg(&plain, tw, w);
  tc_arg(&plain, tb, b);
  fused = plain;
  tc_int(&fused, "act", act);
  tc_scalar(&fused, "act_alpha", alpha);
  tc_scalar(&fused, "act_beta", beta);
  void *y = tc_run(line, &plain, tyy), *got = tc_run(line, &fused, tyy), *want = NULL;
  if (y && got) {
    tcall_t a = tc_op(act == 1 ? &berth_op_def_relu : act == 2 ? &berth_op_def_clip : &berth_op_def_leaky_relu);
    if (act == 2) {
      tc_scalar(&a, "min", alpha);
      tc_scalar(&a, "max", beta);
    } else if (act == 3) {
      tc_scalar(&a, "alpha", alpha);
    }
    tc_arg(&a, tyy, y);
    want = tc_run(line, &a, tyy);
  }
  if (want)
    CHECK_MSG(memcmp(got, want, (size_t)ny * berth_dtype_size(dt)) == 0,
              "line %d: conv %s %d->%d group %d %dx%d k%d act %d (%s kernels) differs from conv then the "
              "activation (seed %llu)",
              line, berth_dtype_name(dt), c, m, group, h, h, k, act, berth_kernels_isa_name(berth_kernels_active()),
              (unsigned long long)rng_seed);
  free(x);
  free(w);
  free(b);
  free(y);
  free(got);
  free(want);
}

/* The kernel variants the fused-vs-unfused checks run under; select_isa(v) makes variant v
 * the active one, false when this machine lacks it. */
static const berth_kernels_isa_t k_isas[] = {BERTH_KERNELS_PORTABLE, BERTH_KERNELS_AVX2, BERTH_KERNELS_AVX512,
                                             BERTH_KERNELS_NEON};
#define N_ISAS (sizeof k_isas / sizeof k_isas[0])
static bool select_isa(size_t v) { return berth_kernels_available(k_isas[v]) && berth_kernels_select(k_isas[v]) == BERTH_OK; }

static void test_epilogue(void) {
  for (size_t v = 0; v < N_ISAS; v++) {
    if (!select_isa(v)) continue;
    for (int act = 1; act <= 3; act++)
      for (int f64 = 0; f64 < 2; f64++) {
        const berth_dtype_t dt = f64 ? BERTH_DTYPE_F64 : BERTH_DTYPE_F32;
        const double alpha = act == 2 ? 0 : 0.1, beta = act == 2 ? 6 : 0;
        check_act(__LINE__, dt, 6, 6, 6, 17, 3, act, alpha, beta);  /* depthwise */
        check_act(__LINE__, dt, 3, 6, 3, 9, 5, act, alpha, beta);   /* depthwise, multiplier 2 */
        check_act(__LINE__, dt, 8, 16, 1, 12, 3, act, alpha, beta); /* packed GEMM (f32) */
        check_act(__LINE__, dt, 4, 3, 1, 6, 3, act, alpha, beta);   /* dot products */
        check_act(__LINE__, dt, 4, 4, 2, 7, 3, act, alpha, beta);   /* grouped */
      }
    /* clip with bounds that cut both sides, and NaN bounds (clip nothing, as clip) */
    check_act(__LINE__, BERTH_DTYPE_F32, 5, 5, 5, 11, 3, 2, -0.5, 0.75);
    check_act(__LINE__, BERTH_DTYPE_F32, 5, 5, 5, 11, 3, 2, NAN, 1.0);
    check_act(__LINE__, BERTH_DTYPE_F64, 4, 4, 1, 11, 3, 2, -1.0, NAN);
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
}

static void test_infer(void) {
  tcall_t c = tc_op(&berth_op_def_conv);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 1, 1, 3, 3), NULL);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 1, 1, 3, 3), NULL);
  tc_int(&c, "act", 4);
  EXPECT_REJECT(&c, "act is 4, expected 0 (none), 1 (relu), 2 (clip) or 3 (leaky_relu)");
  tc_int(&c, "act", -1);
  EXPECT_REJECT(&c, "act is -1");
}

/* ---- elementwise chains (fuse_chain.c, kernel_chain.c) and affine folding (fold_bn.c) ---- */

static const char *chain_src =
    "const @c4 : f32[4,1,1] = [0.5, -1.25, 2, 0.75]\n"
    "const @three : f32[] = [3]\n"
    "const @zero : f32[] = [0]\n"
    "const @six : f32[] = [6]\n"
    "const @w : f32[10] = [1.5, -2, 0.25, 3, -0.5, 1, 2.5, -1.75, 0.125, 4]\n"
    "const @g4 : f32[4] = [1.1, 0.9, -1.2, 0.8]\n"
    "const @h4 : f32[4] = [0.1, -0.2, 0.3, 0.4]\n"
    "const @v4 : f32[4] = [0.9, 1.1, 0.5, 2]\n"
    "\n"
    "func @f(%x : f32[1,4,9,10], %s : f32[1,4,9,10], %p : bool[]) -> (f32[1,4,9,10], f32[1,4,9,10], "
    "f32[1,4,9,10], f32[1,4,9,10], f32[1,4,9,10], f32[1,4,9,10], f32[1,4,9,10], f32[1,4,9,10]) {\n"
    /* DenseNet's pre-activation: batch_norm, mul, add, relu */
    "  %f1 = batch_norm(%s, @g4, @h4, @h4, @v4) {epsilon = 0.001} : f32[1,4,9,10]\n"
    "  %f2 = mul(%f1, @c4) : f32[1,4,9,10]\n"
    "  %f3 = add(%f2, @c4) : f32[1,4,9,10]\n"
    "  %f4 = relu(%f3) : f32[1,4,9,10]\n"
    /* twelve links: a chain of eight and one of four */
    "  %a1 = add(%x, %s) : f32[1,4,9,10]\n"
    "  %a2 = relu(%a1) : f32[1,4,9,10]\n"
    "  %a3 = mul(@c4, %a2) : f32[1,4,9,10]\n"
    "  %a4 = sigmoid(%a3) : f32[1,4,9,10]\n"
    "  %a5 = sub(@three, %a4) : f32[1,4,9,10]\n"
    "  %a6 = tanh(%a5) : f32[1,4,9,10]\n"
    "  %a7 = div(%a6, @w) : f32[1,4,9,10]\n"
    "  %a8 = exp(%a7) : f32[1,4,9,10]\n"
    "  %a9 = clip(%a8) {min = 0.25, max = 2} : f32[1,4,9,10]\n"
    "  %a10 = leaky_relu(%a9) {alpha = 0.1} : f32[1,4,9,10]\n"
    "  %a11 = hard_sigmoid(%a10) {alpha = 0.3, beta = 0.4} : f32[1,4,9,10]\n"
    "  %a12 = hard_swish(%a11) : f32[1,4,9,10]\n"
    /* PaddleOCR's hard swish: x min(max(x + 3, 0), 6) / 6, x read twice */
    "  %b1 = add(%x, @three) : f32[1,4,9,10]\n"
    "  %b2 = maximum(%b1, @zero) : f32[1,4,9,10]\n"
    "  %b3 = minimum(%b2, @six) : f32[1,4,9,10]\n"
    "  %b4 = mul(%x, %b3) : f32[1,4,9,10]\n"
    "  %b5 = div(%b4, @six) : f32[1,4,9,10]\n"
    /* c2 has two readers: neg, abs fuse; sqrt and exp stay */
    "  %c1 = neg(%s) : f32[1,4,9,10]\n"
    "  %c2 = abs(%c1) : f32[1,4,9,10]\n"
    "  %c3 = sqrt(%c2) : f32[1,4,9,10]\n"
    "  %c4 = exp(%c2) : f32[1,4,9,10]\n"
    /* d1 is a graph result: nothing fuses */
    "  %d1 = neg(%x) : f32[1,4,9,10]\n"
    "  %d2 = relu(%d1) : f32[1,4,9,10]\n"
    /* e1 is read in a body only: the chain stops at the body's edge, relu, abs fuse inside */
    "  %e1 = sigmoid(%s) : f32[1,4,9,10]\n"
    "  %e = cond(%p, %x) : f32[1,4,9,10]\n"
    "    then(%t : f32[1,4,9,10]) {\n"
    "      %e2 = relu(%e1) : f32[1,4,9,10]\n"
    "      %e3 = abs(%e2) : f32[1,4,9,10]\n"
    "      return %e3\n"
    "    }\n"
    "    else(%u : f32[1,4,9,10]) {\n"
    "      return %u\n"
    "    }\n"
    "  return %a12, %b5, %c3, %c4, %d1, %d2, %e, %f4\n"
    "}\n";

static int count_op_all(const berth_ir_program_t *p, berth_op_t op) {
  int k = 0;
  for (int32_t i = 0; i < p->methods[0].n_nodes; i++) k += p->methods[0].nodes[i].op == op;
  return k;
}

/* Runs method 0 under the reference interpreter; n_out outputs malloc'd into outs. */
static bool run_ref(const berth_ir_program_t *p, const void *const *in, void **outs) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ref_t *r = NULL;
  bool ok = berth_ref_create(p, &r, &d) == BERTH_OK && berth_ref_call(r, 0, in, outs, &d) == BERTH_OK;
  CHECK_MSG(ok, "reference run: %s", msg);
  berth_ref_destroy(r);
  return ok;
}

/* Runs plain and fused on the same inputs and requires their n_out outputs (bytes each) to
 * be identical, bit for bit. */
static void check_same_outputs(const berth_ir_program_t *plain, const berth_ir_program_t *fused, const void *const *in,
                               int n_out, size_t bytes, berth_kernels_isa_t isa) {
  void *a[16] = {0}, *b[16] = {0};
  if (run_ref(plain, in, a) && run_ref(fused, in, b))
    for (int o = 0; o < n_out; o++)
      CHECK_MSG(memcmp(a[o], b[o], bytes) == 0,
                "%s kernels: output %d of the fused program differs from the unfused one (seed %llu)",
                berth_kernels_isa_name(isa), o, (unsigned long long)rng_seed);
  for (int o = 0; o < n_out; o++) free(a[o]), free(b[o]);
}

/* src parsed twice: the program as written and one for the passes */
static bool parse_two(const char *src, berth_ir_program_t **a, berth_ir_program_t **b) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  CHECK_MSG(berth_ir_parse(src, strlen(src), "fuse.bir", a, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_parse(src, strlen(src), "fuse.bir", b, &d) == BERTH_OK, "%s", msg);
  return *a && *b;
}

static void test_chain(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *plain = NULL, *fused = NULL;
  if (!parse_two(chain_src, &plain, &fused)) return;
  const int32_t n = berth_pass_fuse_chains(fused);
  CHECK_MSG(n == 6, "%d chains, expected 6", (int)n);
  CHECK_MSG(berth_pass_dce(&fused, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_validate(fused, &d) == BERTH_OK, "%s", msg);
  CHECK(count_op_all(fused, BERTH_OP_ELEMENTWISE_CHAIN) == 6); /* one in the body */
  char *text = berth_ir_print(fused);
  static const char *const want[] = {
      "%c3 = sqrt(%", "%c4 = exp(%", "%d1 = neg(%x)", "%d2 = relu(%d1)", "%e1 = sigmoid(%s)",
      "%b5 = elementwise_chain(%x, @three, @zero, @six, %x, @six) {code = [268, 529, 784, 66574, 1295]",
      "%e3 = elementwise_chain(%e1) {code = [1, 3]",
      "%f4 = elementwise_chain(%s, @g4, @h4, @h4, @v4, @c4, @c4) {code = [274, 1294, 1548, 1]",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK_MSG(text && strstr(text, want[i]), "after fusion, no line with\n  %s\nin\n%s", want[i], text ? text : "");
  berth_ir_program_t *again = NULL;
  CHECK_MSG(text && berth_ir_parse(text, strlen(text), "fused.bir", &again, &d) == BERTH_OK, "%s", msg);
  berth_ir_program_destroy(again);
  free(text);
  enum { N = 360 };
  float x[N], sk[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)((double)(rnd() % 4001) / 500.0 - 4.0);
    sk[i] = (float)((double)(rnd() % 4001) / 500.0 - 4.0);
  }
  x[7] = NAN;
  sk[200] = -INFINITY;
  for (size_t v = 0; v < N_ISAS; v++) {
    if (!select_isa(v)) continue;
    for (uint8_t pred = 0; pred < 2; pred++) {
      const void *in[] = {x, sk, &pred};
      check_same_outputs(plain, fused, in, 8, N * sizeof(float), k_isas[v]);
    }
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(fused);
}

/* kernel_chain.c's per-channel runs: planes longer than its block (13 x 13) and shorter
 * (3 x 5), two images, a same-shape operand and a scalar in the same chain: the fused program
 * equals the unfused one bit for bit on every variant, and the formula's values. */
static const char *chain_planes_src =
    "const @g3 : f32[3] = [1.1, -0.9, 0.7]\n"
    "const @h3 : f32[3] = [0.1, -0.2, 0.3]\n"
    "const @v3 : f32[3] = [0.9, 1.1, 0.5]\n"
    "const @c3 : f32[3,1,1] = [0.5, -1.25, 2]\n"
    "const @two : f32[] = [2]\n"
    "\n"
    "func @f(%x : f32[2,3,13,13], %s : f32[2,3,13,13], %t : f32[2,3,3,5]) -> (f32[2,3,13,13], f32[2,3,3,5]) {\n"
    "  %a1 = batch_norm(%x, @g3, @h3, @h3, @v3) {epsilon = 0.001} : f32[2,3,13,13]\n"
    "  %a2 = mul(%a1, @c3) : f32[2,3,13,13]\n"
    "  %a3 = add(%s, %a2) : f32[2,3,13,13]\n"
    "  %a4 = sub(%a3, @two) : f32[2,3,13,13]\n"
    "  %a5 = relu(%a4) : f32[2,3,13,13]\n"
    "  %b1 = batch_norm(%t, @g3, @h3, @h3, @v3) {epsilon = 0.001} : f32[2,3,3,5]\n"
    "  %b2 = add(@c3, %b1) : f32[2,3,3,5]\n"
    "  %b3 = relu(%b2) : f32[2,3,3,5]\n"
    "  return %a5, %b3\n"
    "}\n";

static void test_chain_planes(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *plain = NULL, *fused = NULL;
  if (!parse_two(chain_planes_src, &plain, &fused)) return;
  CHECK(berth_pass_fuse_chains(fused) == 2);
  CHECK_MSG(berth_pass_dce(&fused, &d) == BERTH_OK, "%s", msg);
  CHECK(count_op_all(fused, BERTH_OP_ELEMENTWISE_CHAIN) == 2);
  enum { N = 2 * 3 * 13 * 13, M = 2 * 3 * 3 * 5 };
  static float x[N], sk[N], t[M];
  for (int i = 0; i < N; i++) {
    x[i] = (float)((double)(rnd() % 4001) / 500.0 - 4.0);
    sk[i] = (float)((double)(rnd() % 4001) / 500.0 - 4.0);
  }
  for (int i = 0; i < M; i++) t[i] = (float)((double)(rnd() % 4001) / 500.0 - 4.0);
  x[300] = NAN;
  t[17] = -INFINITY;
  for (size_t v = 0; v < N_ISAS; v++) {
    if (!select_isa(v)) continue;
    void *a[2] = {0}, *b[2] = {0};
    const void *in[] = {x, sk, t};
    if (run_ref(plain, in, a) && run_ref(fused, in, b)) {
      CHECK_MSG(memcmp(a[0], b[0], N * sizeof(float)) == 0, "%s kernels: the 13x13 chain differs (seed %llu)",
                berth_kernels_isa_name(k_isas[v]), (unsigned long long)rng_seed);
      CHECK_MSG(memcmp(a[1], b[1], M * sizeof(float)) == 0, "%s kernels: the 3x5 chain differs (seed %llu)",
                berth_kernels_isa_name(k_isas[v]), (unsigned long long)rng_seed);
      /* and the values are the formula's, not only the same in both */
      const float *y = (const float *)b[0];
      const float k0 = 1.1f / sqrtf(0.9f + 0.001f), k1 = -0.9f / sqrtf(1.1f + 0.001f);
      float w0 = sk[5] + ((x[5] - 0.1f) * k0 + 0.1f) * 0.5f - 2.0f;
      float w1 = sk[N / 2 + 169 + 7] + ((x[N / 2 + 169 + 7] - -0.2f) * k1 + -0.2f) * -1.25f - 2.0f;
      CHECK_MSG(y[5] == (w0 < 0 ? 0 : w0) && y[N / 2 + 169 + 7] == (w1 < 0 ? 0 : w1), "chain values %g %g, expected %g %g",
                (double)y[5], (double)y[N / 2 + 169 + 7], (double)(w0 < 0 ? 0 : w0), (double)(w1 < 0 ? 0 : w1));
    }
    for (int o = 0; o < 2; o++) free(a[o]), free(b[o]);
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(fused);
}

/* kernel_chain.c's plane path with every instruction it runs: 7x7 planes (one block of 32
 * and a tail of 17), 4x8 (one block exactly), 6x11 over two images; per-channel, scalar and
 * same-shape operands, swapped operands, NaN, infinities, -0 and +0 in the data and a -0 in an
 * operand. The fused program equals the unfused one bit for bit on every variant. */
static const char *chain_ops_src =
    "const @c5 : f32[5,1,1] = [0.5, -1.25, 2, -0, 0.75]\n"
    "const @g5 : f32[5] = [1.1, -0.9, 0.7, 1.3, 0.2]\n"
    "const @h5 : f32[5] = [0.1, -0.2, 0.3, 0, -0.4]\n"
    "const @v5 : f32[5] = [0.9, 1.1, 0.5, 2, 0.3]\n"
    "const @half : f32[] = [0.5]\n"
    "\n"
    "func @f(%x : f32[2,5,7,7], %s : f32[2,5,7,7], %u : f32[1,5,4,8], %w : f32[1,5,4,8], %q : f32[2,5,6,11], "
    "%r : f32[2,5,6,11]) -> (f32[2,5,7,7], f32[1,5,4,8], f32[2,5,6,11]) {\n"
    "  %a1 = batch_norm(%x, @g5, @h5, @h5, @v5) {epsilon = 0.001} : f32[2,5,7,7]\n"
    "  %a2 = leaky_relu(%a1) {alpha = 0.1} : f32[2,5,7,7]\n"
    "  %a3 = sub(@c5, %a2) : f32[2,5,7,7]\n"
    "  %a4 = minimum(%a3, %s) : f32[2,5,7,7]\n"
    "  %a5 = abs(%a4) : f32[2,5,7,7]\n"
    "  %a6 = div(%s, %a5) : f32[2,5,7,7]\n"
    "  %a7 = clip(%a6) {min = -0.5, max = 3} : f32[2,5,7,7]\n"
    "  %a8 = maximum(%s, %a7) : f32[2,5,7,7]\n"
    "  %b1 = neg(%u) : f32[1,5,4,8]\n"
    "  %b2 = maximum(%b1, %w) : f32[1,5,4,8]\n"
    "  %b3 = mul(%b2, @c5) : f32[1,5,4,8]\n"
    "  %b4 = relu(%b3) : f32[1,5,4,8]\n"
    "  %b5 = minimum(@c5, %b4) : f32[1,5,4,8]\n"
    "  %b6 = sub(%b5, %w) : f32[1,5,4,8]\n"
    "  %b7 = mul(@half, %b6) : f32[1,5,4,8]\n"
    "  %c1 = batch_norm(%q, @g5, @h5, @h5, @v5) {epsilon = 0.001} : f32[2,5,6,11]\n"
    "  %c2 = add(%c1, %r) : f32[2,5,6,11]\n"
    "  %c3 = maximum(%c2, @c5) : f32[2,5,6,11]\n"
    "  %c4 = div(%c3, @c5) : f32[2,5,6,11]\n"
    "  %c5 = leaky_relu(%c4) {alpha = 0.2} : f32[2,5,6,11]\n"
    "  %c6 = add(@half, %c5) : f32[2,5,6,11]\n"
    "  %c7 = div(@half, %c6) : f32[2,5,6,11]\n"
    "  return %a8, %b7, %c7\n"
    "}\n";

static float chain_edge_value(void) {
  static const float edge[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 0.5f, -1.25f};
  const uint64_t k = rnd() % 40;
  return k < 7 ? edge[k] : (float)((double)(rnd() % 4001) / 500.0 - 4.0);
}

static void test_chain_plane_ops(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *plain = NULL, *fused = NULL;
  if (!parse_two(chain_ops_src, &plain, &fused)) return;
  CHECK(berth_pass_fuse_chains(fused) == 3);
  CHECK_MSG(berth_pass_dce(&fused, &d) == BERTH_OK, "%s", msg);
  CHECK(count_op_all(fused, BERTH_OP_ELEMENTWISE_CHAIN) == 3);
  enum { A = 2 * 5 * 7 * 7, B = 5 * 4 * 8, C = 2 * 5 * 6 * 11 };
  static float x[A], sk[A], u[B], w[B], q[C], r[C];
  for (int i = 0; i < A; i++) x[i] = chain_edge_value(), sk[i] = chain_edge_value();
  for (int i = 0; i < B; i++) u[i] = chain_edge_value(), w[i] = chain_edge_value();
  for (int i = 0; i < C; i++) q[i] = chain_edge_value(), r[i] = chain_edge_value();
  static const size_t bytes[3] = {A * sizeof(float), B * sizeof(float), C * sizeof(float)};
  for (size_t v = 0; v < N_ISAS; v++) {
    if (!select_isa(v)) continue;
    void *a[3] = {0}, *b[3] = {0};
    const void *in[] = {x, sk, u, w, q, r};
    if (run_ref(plain, in, a) && run_ref(fused, in, b))
      for (int o = 0; o < 3; o++)
        CHECK_MSG(memcmp(a[o], b[o], bytes[o]) == 0, "%s kernels: chain %d differs from the unfused ops (seed %llu)",
                  berth_kernels_isa_name(k_isas[v]), o, (unsigned long long)rng_seed);
    for (int o = 0; o < 3; o++) free(a[o]), free(b[o]);
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(fused);
}

#define FOLD_W                                                                                                 \
  "[0.5, -0.25, 1, 0.75, -1, 0.125, 0.3, -0.6, 0.9, 0.2, 0.1, -0.4, 0.8, -0.7, 0.6, 0.05, -0.15, 0.35, 1.5, -1.25, " \
  "0.45, 0.55, -0.65, 0.85, 0.95, -0.05, 0.15, -0.35, 0.25, 0.65, -0.75, 0.4, -0.2, 0.7, -0.9, 0.1, 1, 1, -1, 0.5, " \
  "0.5, -0.5, 0.25, 0.25, -0.25, 0.3, 0.3, -0.3, 0.6, 0.6, -0.6, 0.9, 0.9, -0.9, 0.2, 0.2, -0.2, 0.4, 0.4, -0.4, "  \
  "0.8, 0.8, -0.8, 0.7, 0.7, -0.7, 0.1, 0.1, -0.1, 0.05, 0.05, -0.05]"
static const char *fold_src =
    "const @w1 : f32[4,2,3,3] = " FOLD_W "\n"
    "const @w2 : f32[4,2,3,3] = " FOLD_W "\n"
    "const @w3 : f32[4,2,3,3] = " FOLD_W "\n"
    "const @w4 : f32[4,2,3,3] = " FOLD_W "\n"
    "const @w5 : f32[4,2,3,3] = " FOLD_W "\n"
    "const @dz : f32[4,1,1] = [1, 0, 2, 1]\n"
    "const @b : f32[4] = [0.1, -0.2, 0.3, -0.4]\n"
    "const @sc : f32[1,4,1,1] = [1.5, -0.5, 2, 0.25]\n"
    "const @sh : f32[4,1,1] = [0.2, 0.4, -0.6, 0.8]\n"
    "const @bs : f32[4] = [1.1, 0.9, 1.2, 0.8]\n"
    "const @bb : f32[4] = [0.1, 0.2, 0.3, 0.4]\n"
    "const @bm : f32[4] = [-0.1, 0.05, 0.2, 0]\n"
    "const @bv : f32[4] = [0.9, 1.1, 0.5, 2]\n"
    "const @row : f32[6] = [1, 2, 3, 4, 5, 6]\n"
    "\n"
    "func @f(%x : f32[1,2,6,6]) -> (f32[1,4,6,6], f32[1,4,6,6], f32[1,4,6,6], f32[1,4,6,6], f32[1,4,6,6]) {\n"
    /* conv, mul, add, relu: mul and add fold, relu fuses */
    "  %y = conv(%x, @w1, @b) {pads = [1, 1, 1, 1]} : f32[1,4,6,6]\n"
    "  %m = mul(%y, @sc) : f32[1,4,6,6]\n"
    "  %a = add(@sh, %m) : f32[1,4,6,6]\n"
    "  %r = relu(%a) : f32[1,4,6,6]\n"
    /* conv without bias, batch_norm: folds */
    "  %z = conv(%x, @w2) {pads = [1, 1, 1, 1]} : f32[1,4,6,6]\n"
    "  %n = batch_norm(%z, @bs, @bb, @bm, @bv) {epsilon = 0.001} : f32[1,4,6,6]\n"
    /* a constant along the last axis: not per channel, stays */
    "  %q = conv(%x, @w3) {pads = [1, 1, 1, 1]} : f32[1,4,6,6]\n"
    "  %qm = mul(%q, @row) : f32[1,4,6,6]\n"
    /* the conv's result read twice: stays */
    "  %t = conv(%x, @w4) {pads = [1, 1, 1, 1]} : f32[1,4,6,6]\n"
    "  %tm = sub(%t, @sh) : f32[1,4,6,6]\n"
    "  %tt = add(%tm, %t) : f32[1,4,6,6]\n"
    /* a division by 0 in one channel: folding would make that channel's weights inf and
     * its outputs NaN where the division gives inf, so it stays */
    "  %u = conv(%x, @w5) {pads = [1, 1, 1, 1]} : f32[1,4,6,6]\n"
    "  %ud = div(%u, @dz) : f32[1,4,6,6]\n"
    "  return %r, %n, %qm, %tt, %ud\n"
    "}\n";

static void test_fold(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *plain = NULL, *folded = NULL;
  if (!parse_two(fold_src, &plain, &folded)) return;
  const int32_t n = berth_pass_fold_affine(folded);
  CHECK_MSG(n == 3, "%d folded, expected 3", (int)n);
  CHECK(berth_pass_fuse_act(folded) == 1);
  CHECK_MSG(berth_pass_dce(&folded, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_validate(folded, &d) == BERTH_OK, "%s", msg);
  CHECK(count_op_all(folded, BERTH_OP_CONV) == 5 && count_op_all(folded, BERTH_OP_BATCH_NORM) == 0);
  CHECK(count_op_all(folded, BERTH_OP_MUL) == 1 && count_op_all(folded, BERTH_OP_ADD) == 1 &&
        count_op_all(folded, BERTH_OP_RELU) == 0 && count_op_all(folded, BERTH_OP_SUB) == 1 &&
        count_op_all(folded, BERTH_OP_DIV) == 1);
  float x[72];
  for (int i = 0; i < 72; i++) x[i] = (float)((double)(rnd() % 2001) / 500.0 - 2.0);
  void *a[5] = {0}, *b[5] = {0};
  const void *in[] = {x};
  if (run_ref(plain, in, a) && run_ref(folded, in, b))
    for (int o = 0; o < 4; o++) {
      int64_t bad = -1;
      CHECK_MSG(tc_values_equal(BERTH_DTYPE_F32, 144, b[o], a[o], 1e-5, &bad),
                "output %d element %lld of the folded program is off by more than rounding", o, (long long)bad);
    }
  for (int o = 0; o < 5; o++) free(a[o]), free(b[o]);
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(folded);
}

/* ---- residual fusion (fuse.c) ----------------------------------------------------------- */

#define RES_T "f32[1,4,6,6]"
#define RES_CONV(y, x) "  %" y " = conv(%" x ", %w, %b) {pads = [1, 1, 1, 1]} : " RES_T "\n"
static const char *res_src =
    "func @f(%x : " RES_T ", %w : f32[4,4,3,3], %b : f32[4], %s : " RES_T ", %k : f32[4,1,1], %p : bool[]) -> ("
    RES_T ", " RES_T ", " RES_T ", " RES_T ", " RES_T ", " RES_T ", " RES_T ", " RES_T ", " RES_T ", " RES_T ", "
    RES_T ", " RES_T ", " RES_T ") {\n"
    /* add then relu: both fuse (residual, then act) */
    RES_CONV("c1", "x") "  %a1 = add(%c1, %s) : " RES_T "\n  %r1 = relu(%a1) : " RES_T "\n"
    /* the residual first, computed before the conv: fuses */
    "  %s2 = neg(%x) : " RES_T "\n" RES_CONV("c2", "x") "  %a2 = add(%s2, %c2) : " RES_T "\n"
    /* the residual computed after the conv: stays */
    RES_CONV("c3", "x") "  %s3 = abs(%x) : " RES_T "\n  %a3 = add(%c3, %s3) : " RES_T "\n"
    /* the conv's result read twice: stays */
    RES_CONV("c4", "x") "  %a4 = add(%c4, %s) : " RES_T "\n  %n4 = neg(%c4) : " RES_T "\n"
    /* the conv's result added to itself: stays */
    RES_CONV("c5", "x") "  %a5 = add(%c5, %c5) : " RES_T "\n"
    /* a residual that broadcasts: stays */
    RES_CONV("c6", "x") "  %a6 = add(%c6, %k) : " RES_T "\n"
    /* a conv without bias, and one with an act already: stay */
    "  %c7 = conv(%x, %w) {pads = [1, 1, 1, 1]} : " RES_T "\n  %a7 = add(%c7, %s) : " RES_T "\n"
    "  %c8 = conv(%x, %w, %b) {pads = [1, 1, 1, 1], act = 1} : " RES_T "\n  %a8 = add(%c8, %s) : " RES_T "\n"
    /* two convs (a projection shortcut): the later one takes the earlier one's result */
    RES_CONV("c9", "x") RES_CONV("d9", "s") "  %a9 = add(%c9, %d9) : " RES_T "\n"
    /* in a body, the residual from the enclosing graph: fuses; the add in a body: stays */
    RES_CONV("c10", "x")
    "  %e = cond(%p, %x) : " RES_T "\n"
    "    then(%t : " RES_T ") {\n"
    "      %ct = conv(%t, %w, %b) {pads = [1, 1, 1, 1]} : " RES_T "\n"
    "      %at = add(%ct, %s) : " RES_T "\n"
    "      return %at\n"
    "    }\n"
    "    else(%u : " RES_T ") {\n"
    "      %au = add(%c10, %u) : " RES_T "\n"
    "      return %au\n"
    "    }\n"
    "  return %r1, %a2, %a3, %a4, %n4, %a5, %a6, %a7, %a8, %a9, %e, %s3, %s2\n"
    "}\n";

static void test_residual_pass(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *plain = NULL, *fused = NULL;
  if (!parse_two(res_src, &plain, &fused)) return;
  const int32_t n = berth_pass_fuse_act(fused);
  CHECK_MSG(n == 5, "%d fused, expected 5 (4 residuals, 1 relu)", (int)n);
  CHECK_MSG(berth_pass_dce(&fused, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_validate(fused, &d) == BERTH_OK, "%s", msg);
  CHECK(count_op_all(fused, BERTH_OP_RELU) == 0);
  char *text = berth_ir_print(fused);
  static const char *const want[] = {
      "%r1 = conv(%x, %w, %b, %s) {strides = [], pads = [1, 1, 1, 1], dilations = [], group = 1, act = 1,",
      "%a2 = conv(%x, %w, %b, %s2) {", "%a3 = add(%c3, %s3)", "%a4 = add(%c4, %s)", "%a5 = add(%c5, %c5)",
      "%a6 = add(%c6, %k)", "%a7 = add(%c7, %s)", "%a8 = add(%c8, %s)", "%a9 = conv(%s, %w, %b, %c9) {",
      "%at = conv(%t, %w, %b, %s) {", "%au = add(%c10, %u)",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK_MSG(text && strstr(text, want[i]), "after fusion, no line with\n  %s\nin\n%s", want[i], text ? text : "");
  free(text);
  enum { N = 144 };
  float x[N], w[144], b[4], sk[N], k[4];
  for (int i = 0; i < N; i++) x[i] = (float)((double)(rnd() % 2001) / 500.0 - 2.0);
  for (int i = 0; i < N; i++) sk[i] = (float)((double)(rnd() % 2001) / 500.0 - 2.0);
  for (int i = 0; i < 144; i++) w[i] = (float)((double)(rnd() % 2001) / 4000.0 - 0.25);
  for (int i = 0; i < 4; i++) b[i] = (float)((double)(rnd() % 2001) / 1000.0 - 1.0), k[i] = (float)i - 1.5f;
  for (size_t v = 0; v < N_ISAS; v++) {
    if (!select_isa(v)) continue;
    for (uint8_t pred = 0; pred < 2; pred++) {
      const void *in[] = {x, w, b, sk, k, &pred};
      check_same_outputs(plain, fused, in, 13, N * sizeof(float), k_isas[v]);
    }
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(fused);
}

/* conv {group, pads 1, act} with a residual r against conv, add r, then the activation's kernel */
static void check_res(int line, berth_dtype_t dt, int c, int m, int group, int h, int k, int act) {
  berth_type_t tx = ty(dt, 4, 1, c, h, h), tw = ty(dt, 4, m, c / group, k, k), tb = ty(dt, 1, m);
  berth_type_t tyy = ty(dt, 4, 1, m, h - k + 3, h - k + 3);
  const int64_t ny = berth_type_numel(&tyy);
  void *x = rnd_data(dt, berth_type_numel(&tx)), *w = rnd_data(dt, berth_type_numel(&tw)), *b = rnd_data(dt, m);
  void *r = rnd_data(dt, ny);
  tcall_t plain = tc_op(&berth_op_def_conv), fused;
  TC_INTS(&plain, "pads", 1, 1, 1, 1);
  tc_int(&plain, "group", group);
  tc_arg(&plain, tx, x);
  tc_arg(&plain, tw, w);
  tc_arg(&plain, tb, b);
  fused = plain;
  tc_arg(&fused, tyy, r);
  tc_int(&fused, "act", act);
  tc_scalar(&fused, "act_alpha", act == 2 ? -0.5 : 0.1);
  tc_scalar(&fused, "act_beta", 0.75);
  void *y = tc_run(line, &plain, tyy), *got = tc_run(line, &fused, tyy), *z = NULL, *want = NULL;
  if (y && got) {
    tcall_t a = tc_op(&berth_op_def_add);
    tc_arg(&a, tyy, y);
    tc_arg(&a, tyy, r);
    want = z = tc_run(line, &a, tyy);
  }
  if (z && act) {
    tcall_t a = tc_op(act == 1 ? &berth_op_def_relu : act == 2 ? &berth_op_def_clip : &berth_op_def_leaky_relu);
    if (act == 2) {
      tc_scalar(&a, "min", -0.5);
      tc_scalar(&a, "max", 0.75);
    } else if (act == 3) {
      tc_scalar(&a, "alpha", 0.1);
    }
    tc_arg(&a, tyy, z);
    want = tc_run(line, &a, tyy);
  }
  if (want)
    CHECK_MSG(memcmp(got, want, (size_t)ny * berth_dtype_size(dt)) == 0,
              "line %d: conv %s %d->%d group %d %dx%d k%d act %d with a residual (%s kernels) differs from conv, add, "
              "then the activation (seed %llu)",
              line, berth_dtype_name(dt), c, m, group, h, h, k, act, berth_kernels_isa_name(berth_kernels_active()),
              (unsigned long long)rng_seed);
  if (want != z) free(want);
  free(x), free(w), free(b), free(r), free(y), free(got), free(z);
}

static void test_residual_kernel(void) {
  for (size_t v = 0; v < N_ISAS; v++) {
    if (!select_isa(v)) continue;
    for (int act = 0; act <= 3; act++)
      for (int f64 = 0; f64 < 2; f64++) {
        const berth_dtype_t dt = f64 ? BERTH_DTYPE_F64 : BERTH_DTYPE_F32;
        check_res(__LINE__, dt, 6, 6, 6, 17, 3, act);  /* depthwise */
        check_res(__LINE__, dt, 3, 6, 3, 9, 5, act);   /* depthwise, multiplier 2 */
        check_res(__LINE__, dt, 8, 16, 1, 12, 3, act); /* packed GEMM (f32) */
        check_res(__LINE__, dt, 8, 40, 1, 14, 1, act); /* packed GEMM, 1x1 (pads 1: im2col) */
        check_res(__LINE__, dt, 64, 16, 1, 10, 3, act); /* packed GEMM, two blocks of K (576) */
        check_res(__LINE__, dt, 4, 3, 1, 6, 3, act);   /* dot products */
        check_res(__LINE__, dt, 4, 4, 2, 7, 3, act);   /* grouped */
      }
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  /* infer: the residual must have the result's type */
  tcall_t c = tc_op(&berth_op_def_conv);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 1, 1, 3, 3), NULL);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 2, 1, 3, 3), NULL);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 1, 2), NULL);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 1, 2, 1, 2), NULL);
  EXPECT_REJECT(&c, "conv: residual f32[1,2,1,2], expected the result's type f32[1,2,1,1]");
}

static void test_chain_infer(void) {
  tcall_t c = tc_op(&berth_op_def_elementwise_chain);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 2, 3, 4), NULL);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 1, 3), NULL);
  TC_INTS(&c, "code", 12 | 1 << 8);
  TC_INTS(&c, "p0", 0);
  TC_INTS(&c, "p1", 0);
  EXPECT_REJECT(&c, "elementwise_chain: operand 1 is f32[3], expected the dtype of f32[3,4]");
  TC_INTS(&c, "code", 12 | 2 << 8);
  EXPECT_REJECT(&c, "instruction 0 is 524");
  TC_INTS(&c, "code", 1 | 1 << 8);
  EXPECT_REJECT(&c, "instruction 0 is 257");
  TC_INTS(&c, "code", 18 | 1 << 8);
  EXPECT_REJECT(&c, "instruction 0 is batch_norm of operands 1 to 4 of 2 on f32[3,4]");
  TC_INTS(&c, "code", 1, 1);
  EXPECT_REJECT(&c, "code has 2 instructions and p0, p1 1 and 1");
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 20261203u;
  rng_state = rng_seed;
  test_pass();
  test_epilogue();
  test_infer();
  test_chain();
  test_chain_planes();
  test_chain_plane_ops();
  test_fold();
  test_residual_pass();
  test_residual_kernel();
  test_chain_infer();
  return test_finish("test_fuse");
}
