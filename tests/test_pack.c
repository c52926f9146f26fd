/* Weight packing (src/passes/pack.c) and conv_packed (src/kernels/kernel_conv.c): which
 * convs the pass packs (f32 constant weights read by that conv alone, not depthwise, at
 * least 4 output channels per group and 32 positions), that the packed program is valid,
 * prints and parses back, and that it computes what the unpacked one does under every
 * kernel variant (the reference interpreter runs both; odd output channel counts that
 * leave a part-filled panel, groups, a fused activation, a 1x1 conv, stride 2, a residual). conv_packed's
 * kernel against conv on every scratch size is in test_kernel_conv_scratch.c.
 * Randomized: BERTH_TEST_SEED. */
#include "berth/kernels.h"
#include "passes/passes.h"
#include "reference/reference.h"
#include "test_kernel_util.h"

static uint64_t rng_state, rng_seed;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}

/* Appends "const @name : f32[dims] = [random values]". */
static void add_const(char **s, size_t *n, size_t *cap, const char *name, const int *dims, int rank) {
  int64_t count = 1;
  for (int i = 0; i < rank; i++) count *= dims[i];
  size_t need = *n + (size_t)count * 12 + 256;
  if (need > *cap) {
    *cap = need * 2;
    *s = realloc(*s, *cap);
  }
  *n += (size_t)sprintf(*s + *n, "const @%s : f32[", name);
  for (int i = 0; i < rank; i++) *n += (size_t)sprintf(*s + *n, "%s%d", i ? "," : "", dims[i]);
  *n += (size_t)sprintf(*s + *n, "] = [");
  for (int64_t i = 0; i < count; i++)
    *n += (size_t)sprintf(*s + *n, "%s%.4f", i ? ", " : "", (double)(rnd() % 2001) / 1000.0 - 1.0);
  *n += (size_t)sprintf(*s + *n, "]\n");
}

static char *make_source(void) {
  size_t n = 0, cap = 1 << 16;
  char *s = malloc(cap);
  n += (size_t)sprintf(s, "program {alloc_inputs = 1, alloc_outputs = 1}\n\n");
  add_const(&s, &n, &cap, "w13", (const int[]){13, 4, 3, 3}, 4);   /* 13 channels: a part-filled panel */
  add_const(&s, &n, &cap, "wg", (const int[]){26, 2, 3, 3}, 4);    /* 2 groups of 13 */
  add_const(&s, &n, &cap, "w1", (const int[]){30, 4, 1, 1}, 4);    /* 1x1 */
  add_const(&s, &n, &cap, "wsh", (const int[]){8, 4, 3, 3}, 4);    /* read by two convs */
  add_const(&s, &n, &cap, "wdw", (const int[]){4, 1, 3, 3}, 4);    /* depthwise */
  add_const(&s, &n, &cap, "wsm", (const int[]){13, 4, 3, 3}, 4);   /* 25 positions */
  add_const(&s, &n, &cap, "wres", (const int[]){13, 4, 3, 3}, 4); /* with a residual */
  add_const(&s, &n, &cap, "b13", (const int[]){13}, 1);
  add_const(&s, &n, &cap, "b30", (const int[]){30}, 1);
  const char *body =
      "\nfunc @f(%x : f32[1,4,11,11]) -> (f32[1,13,11,11], f32[1,26,6,6], f32[1,30,11,11], f32[1,8,11,11], "
      "f32[1,8,11,11], f32[1,4,11,11], f32[1,13,5,5], f32[1,13,11,11]) {\n"
      "  %a = conv(%x, @w13, @b13) {pads = [1, 1, 1, 1], act = 1} : f32[1,13,11,11]\n"
      "  %b = conv(%x, @wg) {pads = [1, 1, 1, 1], strides = [2, 2], group = 2} : f32[1,26,6,6]\n"
      "  %c = conv(%x, @w1, @b30) {act = 3, act_alpha = 0.125} : f32[1,30,11,11]\n"
      "  %d = conv(%x, @wsh) {pads = [1, 1, 1, 1]} : f32[1,8,11,11]\n"
      "  %e = conv(%x, @wsh) {pads = [1, 1, 1, 1], dilations = [1, 1]} : f32[1,8,11,11]\n"
      "  %g = conv(%x, @wdw) {pads = [1, 1, 1, 1], group = 4} : f32[1,4,11,11]\n"
      "  %h = conv(%x, @wsm) {strides = [2, 2]} : f32[1,13,5,5]\n"
      "  %k = conv(%x, @wres, @b13, %a) {pads = [1, 1, 1, 1], act = 2, act_alpha = -0.5, act_beta = 0.5} : "
      "f32[1,13,11,11]\n"
      "  return %a, %b, %c, %d, %e, %g, %h, %k\n"
      "}\n";
  if (n + strlen(body) + 1 > cap) s = realloc(s, n + strlen(body) + 1);
  strcpy(s + n, body);
  return s;
}

static int count_op(const berth_ir_program_t *p, berth_op_t op) {
  int k = 0;
  for (int32_t i = 0; i < p->methods[0].n_nodes; i++) k += p->methods[0].nodes[i].op == op;
  return k;
}

/* Runs method 0 of p under the reference interpreter; outputs[8] malloc'd. */
static bool run_ref(const berth_ir_program_t *p, const float *x, void **outs) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ref_t *r = NULL;
  bool ok = berth_ref_create(p, &r, &d) == BERTH_OK && berth_ref_call(r, 0, (const void *[]){x}, outs, &d) == BERTH_OK;
  CHECK_MSG(ok, "reference run: %s", msg);
  berth_ref_destroy(r);
  return ok;
}

static void test_pass(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  char *src = make_source();
  berth_ir_program_t *plain = NULL, *packed = NULL;
  CHECK_MSG(berth_ir_parse(src, strlen(src), "pack.bir", &plain, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_parse(src, strlen(src), "pack.bir", &packed, &d) == BERTH_OK, "%s", msg);
  free(src);
  if (!plain || !packed) return;
  /* w13 (with the act), wg (groups, stride 2), w1 (1x1), wres (a residual and clip); not wsh
   * (two readers), wdw (depthwise) nor wsm (25 positions) */
  const int32_t npacked = berth_pass_pack_weights(packed);
  CHECK_MSG(npacked == 4, "%d convs packed, expected 4", (int)npacked);
  CHECK_MSG(berth_pass_dce(&packed, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_validate(packed, &d) == BERTH_OK, "%s", msg);
  CHECK(count_op(packed, BERTH_OP_CONV_PACKED) == 4 && count_op(packed, BERTH_OP_CONV) == 4);
  char *text = berth_ir_print(packed);
  CHECK_MSG(text && strstr(text, "conv_packed(%x, @packed0_1) {strides = [2, 2], pads = [1, 1, 1, 1], dilations = [], "
                                 "group = 2, act = 0, act_alpha = 0, act_beta = 0, wshape = [26, 2, 3, 3]} : "
                                 "f32[1,26,6,6]"),
            "no packed grouped conv in\n%s", text ? text : "");
  CHECK_MSG(text && strstr(text, "%k = conv_packed(%x, @packed0_7, @b13, %a) {"), "no packed conv with a residual in\n%s",
            text ? text : "");
  /* the text form parses back to a valid program */
  berth_ir_program_t *again = NULL;
  CHECK_MSG(text && berth_ir_parse(text, strlen(text), "packed.bir", &again, &d) == BERTH_OK, "%s", msg);
  berth_ir_program_destroy(again);
  free(text);
  float x[4 * 11 * 11];
  for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) x[i] = (float)((double)(rnd() % 2001) / 1000.0 - 1.0);
  static const berth_kernels_isa_t isas[] = {BERTH_KERNELS_PORTABLE, BERTH_KERNELS_AVX2, BERTH_KERNELS_AVX512,
                                             BERTH_KERNELS_NEON};
  static const int64_t sizes[] = {13 * 121, 26 * 36, 30 * 121, 8 * 121, 8 * 121, 4 * 121, 13 * 25, 13 * 121};
  for (size_t v = 0; v < sizeof isas / sizeof isas[0]; v++) {
    if (!berth_kernels_available(isas[v]) || berth_kernels_select(isas[v]) != BERTH_OK) continue;
    void *want[8] = {0}, *got[8] = {0};
    if (run_ref(plain, x, want) && run_ref(packed, x, got))
      for (int o = 0; o < 8; o++) {
        int64_t bad = -1;
        CHECK_MSG(tc_values_equal(BERTH_DTYPE_F32, sizes[o], got[o], want[o], 1e-5, &bad),
                  "%s kernels: output %d element %lld differs with packed weights (seed %llu)",
                  berth_kernels_isa_name(isas[v]), o, (long long)bad, (unsigned long long)rng_seed);
      }
    for (int o = 0; o < 8; o++) free(want[o]), free(got[o]);
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(packed);
}

static void test_infer(void) {
  tcall_t c = tc_op(&berth_op_def_conv_packed);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 1, 4, 8, 8), NULL);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 4, 1, 2, 36, 12), NULL);
  TC_INTS(&c, "wshape", 13, 4, 3, 3);
  char msg[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out, want = ty(BERTH_DTYPE_F32, 4, 1, 13, 6, 6);
  CHECK_MSG(c.def->infer(c.attrs, c.in, c.n_in, &out, &d) == BERTH_OK && berth_type_equal(&out, &want), "%s", msg);
  TC_INTS(&c, "wshape", 25, 4, 3, 3);
  EXPECT_REJECT(&c, "conv_packed: packed weights f32[1,2,36,12], expected [1, 3, 36, 12]");
  TC_INTS(&c, "wshape", 13, 4, 3);
  EXPECT_REJECT(&c, "wshape must have 4 dims (has 3)");
  TC_INTS(&c, "wshape", 13, 3, 3, 3);
  EXPECT_REJECT(&c, "weights f32[13,3,3,3] have 3 input channels, expected 4");
  tc_int(&c, "group", 2);
  TC_INTS(&c, "wshape", 26, 2, 3, 3);
  EXPECT_REJECT(&c, "expected [2, 2, 18, 12] for wshape of 26 output channels in 2 groups");
  tcall_t f = tc_op(&berth_op_def_conv_packed);
  tc_arg(&f, ty(BERTH_DTYPE_F64, 4, 1, 4, 8, 8), NULL);
  tc_arg(&f, ty(BERTH_DTYPE_F64, 4, 1, 2, 36, 12), NULL);
  TC_INTS(&f, "wshape", 13, 4, 3, 3);
  EXPECT_REJECT(&f, "must be f32");
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 20261203u;
  rng_state = rng_seed;
  test_pass();
  test_infer();
  return test_finish("test_pack");
}
