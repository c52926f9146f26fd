/* MatMul and Gemm with pre-packed weights: matmul_packed (src/kernels/kernel_matmul_packed.c)
 * and its packing (src/passes/pack.c).
 *  - The kernel against a plain loop in double, under every kernel variant this CPU has
 *    (AVX2's and AVX-512's micro-kernels straight over slices of the panels, the others'
 *    copied panels, the row path of one row), with the scratch it asks for and with none: one to 70 rows (tiles of
 *    every height), K past one block of the micro-kernel loop (512), N with part-filled last
 *    panels, batch dims, a 1-D a, c of every broadcast shape with beta, K = 0.
 *  - The pass: which matmuls and gemms it packs (f32 constant B read by that node alone, 2-D,
 *    at least 16 columns, padding to whole panels at most a quarter more; gemm without trans_a), that the packed program is valid, prints and
 *    parses back, and computes what the unpacked one does under every variant (the reference
 *    interpreter runs both): trans_b, alpha, beta, a bias, a 3-D a.
 *  - infer's messages for bad calls.
 * Randomized: BERTH_TEST_SEED. */
#include "berth/kernels.h"
#include "kernels/kernel_scratch.h"
#include "passes/passes.h"
#include "reference/reference.h"
#include "test_kernel_util.h"

#define F32 BERTH_DTYPE_F32

static uint64_t rng_state, rng_seed;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}
static float rndv(void) { return (float)((double)(rnd() % 2001) / 1000.0 - 1.0); }
static float *rnd_floats(int64_t n) {
  float *p = malloc((size_t)(n ? n : 1) * sizeof(float));
  for (int64_t i = 0; i < n; i++) p[i] = rndv();
  return p;
}

static const berth_kernels_isa_t isas[] = {BERTH_KERNELS_PORTABLE, BERTH_KERNELS_AVX2, BERTH_KERNELS_AVX512,
                                           BERTH_KERNELS_NEON};

/* One kernel case: a [batch, M, K] (or [K] when one_d), W [K, N] (trans: stored [N, K]),
 * c of shape cdims (crank -1: none), alpha folded into the packing. */
typedef struct mm_case {
  int64_t batch, m, k, n;
  bool one_d, trans;
  int crank;
  int64_t cdims[2];
  float alpha, beta;
} mm_case_t;

static void check_case(int line, const mm_case_t *g) {
  const int64_t rows = g->batch * g->m, K = g->k, N = g->n, np = (N + BERTH_MM_BPANEL - 1) / BERTH_MM_BPANEL;
  float *a = rnd_floats(rows * K), *w = rnd_floats(K * N), *c = NULL;
  int64_t cn = 1;
  for (int d = 0; d < g->crank; d++) cn *= g->cdims[d];
  if (g->crank >= 0) c = rnd_floats(cn);
  float *wp = malloc((size_t)(np * K * BERTH_MM_BPANEL + 1) * sizeof(float));
  berth_mm_pack_weights(w, K, N, g->trans, g->alpha, wp);
  float *want = malloc((size_t)(rows * N + 1) * sizeof(float));
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < N; j++) {
      double s = 0;
      for (int64_t q = 0; q < K; q++) s += (double)a[i * K + q] * (g->trans ? w[j * K + q] : w[q * N + j]);
      s *= g->alpha;
      if (c) {
        const int64_t ci = g->crank == 2 ? (g->cdims[0] == 1 ? 0 : i) * g->cdims[1] : 0;
        const int64_t cj = g->crank >= 1 && g->cdims[g->crank - 1] != 1 ? j : 0;
        s += (double)g->beta * c[ci + cj];
      }
      want[i * N + j] = (float)s;
    }
  tcall_t t = tc_op(&berth_op_def_matmul_packed);
  berth_type_t ta = g->one_d ? ty(F32, 1, (int)K) : ty(F32, 3, (int)g->batch, (int)g->m, (int)K);
  berth_type_t tyy = g->one_d ? ty(F32, 1, (int)N) : ty(F32, 3, (int)g->batch, (int)g->m, (int)N);
  if (g->crank == 2) { /* a rank-2 c needs a 2-D a */
    ta = ty(F32, 2, (int)rows, (int)K);
    tyy = ty(F32, 2, (int)rows, (int)N);
  }
  tc_arg(&t, ta, a);
  tc_arg(&t, ty(F32, 3, (int)np, (int)K, BERTH_MM_BPANEL), wp);
  if (c) {
    berth_type_t tcc = ty(F32, 0);
    tcc.rank = g->crank;
    for (int d = 0; d < g->crank; d++) tcc.dims[d] = g->cdims[d];
    tc_arg(&t, tcc, c);
  }
  TC_INTS(&t, "wshape", K, N);
  tc_scalar(&t, "beta", g->beta);
  for (size_t v = 0; v < sizeof isas / sizeof isas[0]; v++) {
    if (!berth_kernels_available(isas[v]) || berth_kernels_select(isas[v]) != BERTH_OK) continue;
    for (int s = 0; s < 2; s++) {
      t.scratch_max = s ? 0 : -1;
      float *got = tc_run(line, &t, tyy);
      if (!got) continue;
      int64_t bad = -1;
      CHECK_MSG(tc_values_equal(F32, rows * N, got, want, 1e-4, &bad),
                "line %d: %s kernels, %s scratch, %lldx%lldx%lld x %lld%s: element %lld is %.9g, expected %.9g (seed "
                "%llu)",
                line, berth_kernels_isa_name(isas[v]), s ? "no" : "the requested", (long long)g->batch,
                (long long)g->m, (long long)K, (long long)N, g->trans ? " (trans)" : "", (long long)bad,
                bad >= 0 ? (double)got[bad] : 0.0, bad >= 0 ? (double)want[bad] : 0.0, (unsigned long long)rng_seed);
      free(got);
    }
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  free(a), free(w), free(c), free(wp), free(want);
}

static void test_kernel(void) {
  static const int64_t ms[] = {1, 2, 3, 4, 5, 11, 12, 13, 25, 40, 70};
  static const int64_t ks[] = {1, 3, 4, 7, 64, 130, 600};
  static const int64_t ns[] = {1, 8, 16, 31, 32, 33, 100};
  for (int it = 0; it < 60; it++) {
    mm_case_t g = {1, ms[rnd() % 11], ks[rnd() % 7], ns[rnd() % 7], false, (rnd() & 1) != 0, -1, {1, 1}, 1, 1};
    g.batch = 1 + rnd() % 2;
    if (it % 3 == 1) g.alpha = 0.5f;
    if (it % 4 == 2) { /* a c of every broadcast shape */
      g.batch = 1;
      g.crank = (int)(rnd() % 3);
      g.cdims[0] = rnd() & 1 ? g.m : 1;
      g.cdims[1] = rnd() & 1 ? g.n : 1;
      if (g.crank == 1) g.cdims[0] = g.cdims[1];
      g.beta = it % 8 == 2 ? 2.0f : 0.0f;
    }
    check_case(__LINE__, &g);
  }
  /* the slices of wp's 32-column panels read in place (gemm_ukr_ldb32_f32): rows not a
   * multiple of MR (4, 6, 8, 12), K in two and three blocks, N short of 8, 16 and 32 */
  check_case(__LINE__, &(mm_case_t){1, 13, 600, 47, false, false, -1, {1, 1}, 1, 1});
  check_case(__LINE__, &(mm_case_t){1, 7, 1100, 100, false, true, 1, {100}, 1, 1});
  check_case(__LINE__, &(mm_case_t){2, 5, 513, 23, false, false, -1, {1, 1}, 0.5f, 1});
  check_case(__LINE__, &(mm_case_t){1, 1, 9, 40, true, false, -1, {1, 1}, 1, 1});   /* 1-D a */
  check_case(__LINE__, &(mm_case_t){1, 1, 4100, 33, true, true, 1, {33}, 2, 0.5}); /* a long row */
  check_case(__LINE__, &(mm_case_t){1, 3, 0, 20, false, false, 1, {20}, 1, 1});     /* K = 0: beta * c */
  check_case(__LINE__, &(mm_case_t){1, 3, 0, 20, false, false, -1, {1, 1}, 1, 1});  /* K = 0: zeros */
}

/* ---- the pass --------------------------------------------------------------------------- */

static void add_const(char **s, size_t *n, const char *name, int d0, int d1) {
  *s = realloc(*s, *n + (size_t)(d0 * d1) * 12 + 256);
  *n += (size_t)sprintf(*s + *n, "const @%s : f32[%d,%d] = [", name, d0, d1);
  for (int i = 0; i < d0 * d1; i++) *n += (size_t)sprintf(*s + *n, "%s%.4f", i ? ", " : "", (double)rndv());
  *n += (size_t)sprintf(*s + *n, "]\n");
}

static int count_op(const berth_ir_program_t *p, berth_op_t op) {
  int k = 0;
  for (int32_t i = 0; i < p->methods[0].n_nodes; i++) k += p->methods[0].nodes[i].op == op;
  return k;
}

static bool run_ref(const berth_ir_program_t *p, const void *const *ins, void **outs) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ref_t *r = NULL;
  bool ok = berth_ref_create(p, &r, &d) == BERTH_OK && berth_ref_call(r, 0, ins, outs, &d) == BERTH_OK;
  CHECK_MSG(ok, "reference run: %s", msg);
  berth_ref_destroy(r);
  return ok;
}

static void test_pass(void) {
  size_t n = 0;
  char *src = malloc(64);
  n += (size_t)sprintf(src, "program {alloc_inputs = 1, alloc_outputs = 1}\n\n");
  add_const(&src, &n, "w1", 24, 120); /* matmul, 3-D a (a part-filled panel) */
  add_const(&src, &n, "w2", 60, 24);  /* gemm trans_b, alpha, beta, bias */
  add_const(&src, &n, "w3", 24, 30);  /* gemm with a [M, N] c */
  add_const(&src, &n, "w4", 24, 20);  /* gemm trans_a: not packed */
  add_const(&src, &n, "w5", 24, 20);  /* read twice: not packed */
  add_const(&src, &n, "w6", 24, 15);  /* 15 columns: not packed */
  add_const(&src, &n, "w7", 24, 40);  /* 40 columns, 24 of padding: not packed */
  add_const(&src, &n, "b2", 1, 60);
  add_const(&src, &n, "c3", 5, 30);
  static const char body[] =
      "\nfunc @f(%x : f32[2,5,24], %y : f32[5,24], %z : f32[24,5]) -> (f32[2,5,120], f32[5,60], f32[5,30], f32[5,20], "
      "f32[5,20], f32[5,20], f32[5,15], f32[5,40]) {\n"
      "  %a = matmul(%x, @w1) : f32[2,5,120]\n"
      "  %b = gemm(%y, @w2, @b2) {trans_b = 1, alpha = 0.5, beta = 2} : f32[5,60]\n"
      "  %c = gemm(%y, @w3, @c3) {beta = 0.25} : f32[5,30]\n"
      "  %d = gemm(%z, @w4) {trans_a = 1} : f32[5,20]\n"
      "  %e = matmul(%y, @w5) : f32[5,20]\n"
      "  %g = gemm(%y, @w5) : f32[5,20]\n"
      "  %h = matmul(%y, @w6) : f32[5,15]\n"
      "  %i = matmul(%y, @w7) : f32[5,40]\n"
      "  return %a, %b, %c, %d, %e, %g, %h, %i\n}\n";
  src = realloc(src, n + sizeof body);
  memcpy(src + n, body, sizeof body);
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *plain = NULL, *packed = NULL;
  CHECK_MSG(berth_ir_parse(src, strlen(src), "mm.bir", &plain, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_parse(src, strlen(src), "mm.bir", &packed, &d) == BERTH_OK, "%s", msg);
  free(src);
  if (!plain || !packed) return;
  const int32_t npacked = berth_pass_pack_weights(packed);
  CHECK_MSG(npacked == 3, "%d nodes packed, expected 3", (int)npacked);
  CHECK_MSG(berth_pass_dce(&packed, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_validate(packed, &d) == BERTH_OK, "%s", msg);
  CHECK(count_op(packed, BERTH_OP_MATMUL_PACKED) == 3 && count_op(packed, BERTH_OP_GEMM) == 2 &&
        count_op(packed, BERTH_OP_MATMUL) == 3);
  char *text = berth_ir_print(packed);
  CHECK_MSG(text && strstr(text, "matmul_packed(%y, @packed0_1, @b2) {wshape = [24, 60], beta = 2} : f32[5,60]"),
            "no packed gemm in\n%s", text ? text : "");
  berth_ir_program_t *again = NULL;
  CHECK_MSG(text && berth_ir_parse(text, strlen(text), "packed.bir", &again, &d) == BERTH_OK, "%s", msg);
  berth_ir_program_destroy(again);
  free(text);
  float *x = rnd_floats(240), *y = rnd_floats(120), *z = rnd_floats(120);
  const void *ins[3] = {x, y, z};
  static const int64_t sizes[] = {1200, 300, 150, 100, 100, 100, 75, 200};
  for (size_t v = 0; v < sizeof isas / sizeof isas[0]; v++) {
    if (!berth_kernels_available(isas[v]) || berth_kernels_select(isas[v]) != BERTH_OK) continue;
    void *want[8] = {0}, *got[8] = {0};
    if (run_ref(plain, ins, want) && run_ref(packed, ins, got))
      for (int o = 0; o < 8; o++) {
        int64_t bad = -1;
        CHECK_MSG(tc_values_equal(F32, sizes[o], got[o], want[o], 1e-5, &bad),
                  "%s kernels: output %d element %lld differs with packed weights (seed %llu)",
                  berth_kernels_isa_name(isas[v]), o, (long long)bad, (unsigned long long)rng_seed);
      }
    for (int o = 0; o < 8; o++) free(want[o]), free(got[o]);
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  free(x), free(y), free(z);
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(packed);
}

static void test_infer(void) {
  tcall_t c = tc_op(&berth_op_def_matmul_packed);
  tc_arg(&c, ty(F32, 3, 2, 5, 24), NULL);
  tc_arg(&c, ty(F32, 3, 2, 24, 32), NULL);
  TC_INTS(&c, "wshape", 24, 40);
  char msg[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out, want = ty(F32, 3, 2, 5, 40);
  CHECK_MSG(c.def->infer(c.attrs, c.in, c.n_in, &out, &d) == BERTH_OK && berth_type_equal(&out, &want), "%s", msg);
  TC_INTS(&c, "wshape", 24, 70);
  EXPECT_REJECT(&c, "matmul_packed: packed weights f32[2,24,32], expected f32[3,24,32] for wshape [24, 70]");
  TC_INTS(&c, "wshape", 25, 40);
  EXPECT_REJECT(&c, "matmul_packed: a f32[2,5,24], expected f32 of rank >= 1 with 25 (K of wshape) in its last dim");
  TC_INTS(&c, "wshape", 24);
  EXPECT_REJECT(&c, "wshape has 1 values, expected 2");
  TC_INTS(&c, "wshape", 24, 40);
  tc_arg(&c, ty(F32, 2, 10, 40), NULL);
  EXPECT_REJECT(&c, "matmul_packed: c f32[10,40] does not broadcast to the result [10,40]");
  tcall_t g = tc_op(&berth_op_def_matmul_packed);
  tc_arg(&g, ty(F32, 2, 10, 24), NULL);
  tc_arg(&g, ty(F32, 3, 2, 24, 32), NULL);
  tc_arg(&g, ty(F32, 1, 7), NULL);
  TC_INTS(&g, "wshape", 24, 40);
  EXPECT_REJECT(&g, "c f32[7] does not broadcast to the result [10,40]");
  tcall_t f = tc_op(&berth_op_def_matmul_packed);
  tc_arg(&f, ty(BERTH_DTYPE_F64, 2, 10, 24), NULL);
  tc_arg(&f, ty(F32, 3, 2, 24, 32), NULL);
  TC_INTS(&f, "wshape", 24, 40);
  EXPECT_REJECT(&f, "matmul_packed: a f64[10,24], expected f32");
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 20261204u;
  rng_state = rng_seed;
  test_kernel();
  test_pass();
  test_infer();
  return test_finish("test_kernel_matmul");
}
