/* Activation fusion (src/passes/fuse.c) and conv's act epilogue (src/kernels/kernel_conv.c):
 * a relu, clip or leaky_relu that is the only reader of a conv's result in the same graph
 * becomes the conv's act; a conv result with another reader, a graph result, a reader in a
 * HOP body, or a conv that already has an act stays as it is. Then the epilogue against
 * the separate kernels, bit for bit (depthwise fast path, packed GEMM, generic loop, f32 and
 * f64, every kernel variant), and infer's check of act. Randomized: BERTH_TEST_SEED. */
#include "berth/kernels.h"
#include "passes/passes.h"
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

static void test_epilogue(void) {
  static const berth_kernels_isa_t isas[] = {BERTH_KERNELS_PORTABLE, BERTH_KERNELS_AVX2, BERTH_KERNELS_AVX512,
                                             BERTH_KERNELS_NEON};
  for (size_t v = 0; v < sizeof isas / sizeof isas[0]; v++) {
    if (!berth_kernels_available(isas[v]) || berth_kernels_select(isas[v]) != BERTH_OK) continue;
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

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 20261203u;
  rng_state = rng_seed;
  test_pass();
  test_epilogue();
  test_infer();
  return test_finish("test_fuse");
}
