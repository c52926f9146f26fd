/* conv, and conv_packed (pre-packed weights), with less scratch than it asks for (berth_kernel_call_t.scratch, planned in the
 * arena; src/kernels/kernel_conv.c): a program compiled with a cap, or a hand-made one
 * without any. Each case runs with the request (berth_op_scratch_bytes), then 1024, 64, 16
 * and 0 usable bytes, against a plain loop in double and against the first: 1- to 3-D,
 * groups, strides, dilations, asymmetric padding, windows hanging over both edges, kernel
 * rows longer than the scratch (the direct loop), more kernel rows than one chunk (partial
 * sums across chunks), one position per chunk, and empty outputs. The scratch starts as
 * all-ones bytes (NaN), so reading scratch not written in this call shows, and it is
 * placed at an odd multiple of 16 bytes, so that alignment cannot change the result. With the
 * request, f32 conv and conv_packed also run with each fused act and a residual, bit for bit
 * against the call without them and the separate formulas (check_epi). Randomized; the seed
 * is printed, BERTH_TEST_SEED replays one. */
#include "test_kernel_util.h"
#include "conv_reference.h"
#include "kernels/kernel_gemm_pack.h"
#include "kernels/kernel_scratch.h"

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64

/* usable bytes; -1: what the op asks for */
static const struct {
  int64_t bytes;
  const char *name;
} variants[] = {
    {-1, "the request"}, {1024, "1024 bytes"}, {64, "64 bytes"}, {16, "16 bytes"}, {0, "none"},
};
enum { N_VARIANTS = sizeof variants / sizeof variants[0] };

/* tc_run with scratch of `usable` bytes (-1: the request) at 16 bytes past a 64-byte boundary. */
static void *run_with_scratch(int line, tcall_t *c, berth_type_t want, int64_t usable) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out;
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, &out, &d);
  CHECK_MSG(st == BERTH_OK && berth_type_equal(&out, &want), "line %d: conv infer: %s", line, msg);
  if (st != BERTH_OK || !berth_type_equal(&out, &want)) return NULL;
  const uint32_t op = (uint32_t)berth_op_find(c->def->name, strlen(c->def->name));
  uint64_t bytes = usable < 0 ? berth_op_scratch_bytes(op, c->attrs, c->in, c->n_in)
                   : usable == 0 ? 0 : (uint64_t)usable + BERTH_SCRATCH_SLACK;
  unsigned char *raw = malloc((size_t)bytes + 128), *scratch = NULL;
  uintptr_t at = ((uintptr_t)raw + 63) & ~(uintptr_t)63;
  if (bytes) scratch = (unsigned char *)at + 16;
  if (scratch) memset(scratch, 0xff, (size_t)bytes);
  size_t ob = berth_type_bytes(&out);
  void *buf = malloc(ob ? ob : 1);
  memset(buf, 0xA5, ob ? ob : 1);
  berth_tensor_ref_t ins[TC_MAX_IN];
  for (int i = 0; i < c->n_in; i++) {
    ins[i].type = &c->in[i];
    ins[i].data = (void *)c->data[i];
  }
  berth_tensor_ref_t outs[1] = {{&out, buf}};
  berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, 1, scratch, bytes};
  c->def->run(&call);
  free(raw);
  return buf;
}

static uint64_t rng_state, rng_seed;

static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1)); }

/* n random values in [-1, 1] as dtype dt, and the same values as doubles in *as_double. */
static void *rnd_tensor(berth_dtype_t dt, int64_t n, double **as_double) {
  void *p = malloc((size_t)(n ? n : 1) * (dt == F32 ? 4 : 8)); /* exact: the sanitizer sees a read past it */
  double *d = malloc((size_t)(n ? n : 1) * sizeof(double));
  for (int64_t i = 0; i < n; i++) {
    double v = (double)(rnd() % 2001) / 1000.0 - 1.0;
    if (dt == F32) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
    d[i] = dt == F32 ? (double)(float)v : v;
  }
  *as_double = d;
  return p;
}

/* conv_epi's scalar formulas (kernel_conv.c): v = y (+ r), then the activation. */
static float epi_ref(float y, const float *r, int act, float a, float b) {
  const float v = r ? y + *r : y;
  if (act == 1) return v < 0 ? 0.0f : v;
  if (act == 2) {
    const float u = v < a ? a : v;
    return u > b ? b : u;
  }
  return act == 3 ? (v < 0 ? a * v : v) : v;
}

/* The fused epilogue of a conv or conv_packed call c (inputs set, a bias among them for the
 * residual): each act with and without a residual, against the call without it (plain) and
 * conv_epi's formulas, bit for bit, on the path the request scratch takes (conv_packed's
 * narrow one for few positions; the micro-kernel's epilogue on the packed GEMM). The residual
 * holds signed zeros that meet -0 results (-0 + -0) and exact zeros. */
static void check_epi(int line, const tcall_t *c, berth_type_t tyy, const float *plain, bool has_bias) {
  const int64_t ny = berth_type_numel(&tyy);
  float *r = malloc((size_t)(ny ? ny : 1) * sizeof(float));
  for (int64_t i = 0; i < ny; i++) {
    const uint32_t k = rnd() % 8;
    r[i] = k == 0 ? -0.0f : k == 1 ? 0.0f : k == 2 ? -plain[i] : (float)((double)(rnd() % 2001) / 1000.0 - 1.0);
  }
  static const double alphas[] = {0.0, 0.25, -0.5}, betas[] = {0.0, 0.5, 6.0};
  for (int act = 0; act <= 3; act++)
    for (int res = 0; res <= (has_bias ? 1 : 0); res++) {
      if (!act && !res) continue;
      tcall_t e = *c;
      const float a = (float)alphas[rnd() % 3], b = (float)betas[rnd() % 3];
      tc_int(&e, "act", act);
      tc_scalar(&e, "act_alpha", a);
      tc_scalar(&e, "act_beta", b);
      if (res) tc_arg(&e, tyy, r);
      float *got = run_with_scratch(line, &e, tyy, -1);
      if (!got) continue;
      for (int64_t i = 0; i < ny; i++) {
        const float want = epi_ref(plain[i], res ? &r[i] : NULL, act, a, b);
        if (memcmp(&got[i], &want, sizeof want) != 0 && !(isnan(got[i]) && isnan(want))) {
          CHECK_MSG(0, "line %d: %s act %d (alpha %g, beta %g) residual %d (%s kernels): element %lld is %g, "
                       "conv then the epilogue %g (seed %llu)",
                    line, c->def->name, act, (double)a, (double)b, res, berth_kernels_isa_name(berth_kernels_active()),
                    (long long)i, (double)got[i], (double)want, (unsigned long long)rng_seed);
          break;
        }
      }
      free(got);
    }
  free(r);
}

/* conv_packed (weights packed as src/passes/pack.c packs them) with every scratch variant:
 * against the plain loop and conv's result. */
static void check_packed(int line, const conv_case_t *g, berth_type_t tx, berth_type_t tw, berth_type_t tb,
                         berth_type_t tyy, const int64_t *pads, const void *x, const void *w, const void *b,
                         const void *want_t, const void *conv_out) {
  tcall_t c = tc_op(&berth_op_def_conv);
  tc_ints_arr(&c, "strides", g->stride, g->sp);
  tc_ints_arr(&c, "dilations", g->dil, g->sp);
  tc_ints_arr(&c, "pads", pads, 2 * g->sp);
  tc_int(&c, "group", g->group);
  berth_type_t in[3] = {tx, tw, tb};
  const int64_t floats = (int64_t)berth_conv_packed_floats(c.attrs, in, g->bias ? 3 : 2);
  float *wp = malloc((size_t)(floats ? floats : 1) * sizeof(float));
  berth_type_t twp;
  berth_conv_pack_weights(c.attrs, in, g->bias ? 3 : 2, w, wp, &twp);
  tcall_t cp = tc_op(&berth_op_def_conv_packed);
  memcpy(cp.attrs, c.attrs, sizeof c.attrs);
  tc_ints_arr(&cp, "wshape", tw.dims, tw.rank);
  tc_arg(&cp, tx, x);
  tc_arg(&cp, twp, wp);
  if (g->bias) tc_arg(&cp, tb, b);
  const int64_t ny = berth_type_numel(&tyy);
  for (int v = 0; v < N_VARIANTS; v++) {
    float *got = run_with_scratch(line, &cp, tyy, variants[v].bytes);
    if (!got) continue;
    int64_t bad = -1;
    bool ok = tc_values_equal(F32, ny, got, want_t, 2e-4, &bad) && tc_values_equal(F32, ny, got, conv_out, 2e-4, &bad);
    CHECK_MSG(ok, "line %d: conv_packed %dd, scratch of %s: element %lld differs from the plain loop or conv (seed %llu)",
              line, g->sp, variants[v].name, (long long)bad, (unsigned long long)rng_seed);
    if (v == 0) check_epi(line, &cp, tyy, got, g->bias);
    free(got);
  }
  free(wp);
}

/* set around a few cases below: the input +0, the weights negative and the bias -0, so that
 * every product and every sum is -0 and each output of the plain call is -0: the epilogue's
 * activations then meet -0 (relu keeps it, as conv_epi's v < 0 ? 0 : v does) */
static bool g_neg_zeros;

static void neg_zeros(berth_dtype_t dt, void *x, double *xd, int64_t nx, void *w, double *wd, int64_t nw, void *b,
                      double *bd, int64_t nb) {
  for (int64_t i = 0; i < nx; i++) {
    if (dt == F32) ((float *)x)[i] = 0.0f;
    else ((double *)x)[i] = 0.0;
    xd[i] = 0.0;
  }
  for (int64_t i = 0; i < nw; i++) {
    const double v = -0.001 - (wd[i] < 0 ? -wd[i] : wd[i]);
    if (dt == F32) ((float *)w)[i] = (float)v;
    else ((double *)w)[i] = v;
    wd[i] = dt == F32 ? (double)(float)v : v;
  }
  for (int64_t i = 0; b && i < nb; i++) {
    if (dt == F32) ((float *)b)[i] = -0.0f;
    else ((double *)b)[i] = -0.0;
    bd[i] = -0.0;
  }
}

static void check(int line, const conv_case_t *g, berth_dtype_t dt) {
  berth_type_t tx, tw, tb, tyy;
  memset(&tx, 0, sizeof tx);
  memset(&tw, 0, sizeof tw);
  tx.dtype = tw.dtype = dt;
  tx.rank = tw.rank = g->sp + 2;
  tx.dims[0] = g->n;
  tx.dims[1] = g->c;
  tw.dims[0] = g->m;
  tw.dims[1] = g->c / g->group;
  tyy = tx;
  tyy.dims[1] = g->m;
  tb = ty(dt, 1, (int)g->m);
  int64_t out[3], pads[6];
  for (int d = 0; d < g->sp; d++) {
    tx.dims[2 + d] = g->in[d];
    tw.dims[2 + d] = g->k[d];
    out[d] = (g->in[d] + g->pb[d] + g->pe[d] - g->dil[d] * (g->k[d] - 1) - 1) / g->stride[d] + 1;
    tyy.dims[2 + d] = out[d];
    pads[d] = g->pb[d];
    pads[g->sp + d] = g->pe[d];
  }
  double *xd, *wd, *bd = NULL;
  void *x = rnd_tensor(dt, berth_type_numel(&tx), &xd), *w = rnd_tensor(dt, berth_type_numel(&tw), &wd), *b = NULL;
  if (g->bias) b = rnd_tensor(dt, g->m, &bd);
  if (g_neg_zeros) neg_zeros(dt, x, xd, berth_type_numel(&tx), w, wd, berth_type_numel(&tw), b, bd, g->m);
  int64_t ny = berth_type_numel(&tyy);
  double *want = malloc((size_t)(ny ? ny : 1) * sizeof(double));
  conv_reference(g, out, xd, wd, bd, want);
  void *want_t = malloc((size_t)(ny ? ny : 1) * 8), *first = NULL;
  for (int64_t i = 0; i < ny; i++) {
    if (dt == F32) ((float *)want_t)[i] = (float)want[i];
    else ((double *)want_t)[i] = want[i];
  }
  double tol = dt == F32 ? 2e-4 : 1e-10;
  for (int v = 0; v < N_VARIANTS; v++) {
    tcall_t c = tc_op(&berth_op_def_conv);
    tc_ints_arr(&c, "strides", g->stride, g->sp);
    tc_ints_arr(&c, "dilations", g->dil, g->sp);
    tc_ints_arr(&c, "pads", pads, 2 * g->sp);
    tc_int(&c, "group", g->group);
    tc_arg(&c, tx, x);
    tc_arg(&c, tw, w);
    if (g->bias) tc_arg(&c, tb, b);
    void *got = run_with_scratch(line, &c, tyy, variants[v].bytes);
    if (!got) continue;
    if (v == 0 && dt == F32) check_epi(line, &c, tyy, got, g->bias);
    int64_t bad = -1;
    bool ok = tc_values_equal(dt, ny, got, want_t, tol, &bad);
    CHECK_MSG(ok, "line %d: conv %dd %s, scratch of %s: element %lld differs from the plain loop (seed %llu)", line,
              g->sp, berth_dtype_name(dt), variants[v].name, (long long)bad, (unsigned long long)rng_seed);
    /* and from the full request: the same sums, in another order at most */
    if (ok && first) {
      ok = tc_values_equal(dt, ny, got, first, tol, &bad);
      CHECK_MSG(ok, "line %d: conv %dd %s, scratch of %s: element %lld differs from the full request (seed %llu)",
                line, g->sp, berth_dtype_name(dt), variants[v].name, (long long)bad, (unsigned long long)rng_seed);
    }
    if (!ok && bad >= 0) {
      fprintf(stderr, "  got ");
      tc_print_elem(dt, got, bad);
      fprintf(stderr, ", want %.17g\n", want[bad]);
    }
    if (first) free(got);
    else first = got;
  }
  if (dt == F32 && first) check_packed(line, g, tx, tw, tb, tyy, pads, x, w, b, want_t, first);
  free(first);
  free(x);
  free(w);
  free(b);
  free(xd);
  free(wd);
  free(bd);
  free(want);
  free(want_t);
}

static void test_random(void) {
  for (int it = 0; it < 400; it++) {
    conv_case_t g;
    memset(&g, 0, sizeof g);
    g.sp = (int)rnd_in(1, 3);
    g.n = rnd_in(1, 2);
    g.group = rnd_in(1, 3);
    g.c = g.group * rnd_in(1, g.sp == 1 ? 9 : 4);
    g.m = g.group * rnd_in(1, 9);
    g.bias = rnd() & 1;
    for (int d = 0; d < g.sp; d++) {
      /* 1-D rows up to 40 taps: longer than 64 bytes of f32 (16) and f64 (8) */
      g.k[d] = rnd_in(1, g.sp == 1 ? 40 : d == g.sp - 1 ? 12 : 3);
      g.dil[d] = rnd_in(1, 3);
      g.stride[d] = rnd_in(1, 3);
      g.pb[d] = rnd_in(0, 3);
      g.pe[d] = rnd_in(0, 3);
      int64_t span = g.dil[d] * (g.k[d] - 1) + 1, min_in = span - g.pb[d] - g.pe[d];
      if (min_in < 1) min_in = 1;
      g.in[d] = rnd_in(min_in, min_in + (g.sp == 3 ? 4 : 20));
    }
    check(__LINE__, &g, (rnd() & 1) ? F32 : F64);
  }
}

static void test_shapes(void) {
  /* Silero-like: many channels, short kernels (row chunks of the 1 KiB and 64-byte buffers) */
  conv_case_t s1 = {1, 1, 129, 128, 1, {4}, {3}, {1}, {1}, {1}, {1}, true};
  check(__LINE__, &s1, F32);
  /* the STFT layer: a 256-tap stride-128 window, longer than every small buffer */
  conv_case_t s2 = {1, 1, 1, 18, 1, {640}, {256}, {128}, {1}, {0}, {0}, false};
  check(__LINE__, &s2, F32);
  check(__LINE__, &s2, F64);
  /* a long signal: many position chunks, with dilation hanging over both edges */
  conv_case_t s3 = {1, 2, 3, 5, 1, {700}, {5}, {1}, {2}, {4}, {5}, true};
  check(__LINE__, &s3, F32);
  check(__LINE__, &s3, F64);
  /* depthwise and grouped 2-D with strides and asymmetric pads */
  conv_case_t s4 = {2, 1, 8, 8, 8, {9, 9}, {3, 3}, {2, 1}, {1, 2}, {1, 0}, {0, 2}, true};
  check(__LINE__, &s4, F32);
  conv_case_t s5 = {2, 2, 12, 6, 3, {11, 13}, {3, 5}, {1, 2}, {2, 1}, {2, 1}, {1, 3}, false};
  check(__LINE__, &s5, F64);
  /* 3-D, and kernel rows of 2, 8 and 16 taps: exactly one 16- or 64-byte buffer of f64 or f32 */
  conv_case_t s6 = {3, 1, 4, 4, 2, {5, 6, 9}, {2, 3, 8}, {1, 1, 1}, {1, 1, 1}, {1, 0, 1}, {0, 1, 2}, true};
  check(__LINE__, &s6, F64);
  conv_case_t s7 = {1, 1, 3, 4, 1, {40}, {16}, {1}, {1}, {2}, {2}, true};
  check(__LINE__, &s7, F32);
  check(__LINE__, &s7, F64);
  conv_case_t s8 = {1, 1, 2, 2, 1, {9}, {2}, {1}, {1}, {0}, {0}, false};
  check(__LINE__, &s8, F64);
  /* 1x1 kernels: one tap per kernel row, many rows per chunk */
  conv_case_t s9 = {2, 2, 6, 5, 1, {4, 5}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  check(__LINE__, &s9, F64);
  check(__LINE__, &s9, F32);
  /* the packed GEMM of the default build (x86 variants: at least one panel of positions and
   * four output channels): a 3x3 layer whose 180-long patches span two blocks of K, output
   * channels short of a tile, positions short of a panel, padding on every side */
  conv_case_t p1 = {2, 1, 20, 13, 1, {15, 17}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true};
  check(__LINE__, &p1, F32);
  /* strides and dilations over asymmetric padding, two groups, a batch of two */
  conv_case_t p2 = {2, 2, 12, 10, 2, {23, 29}, {3, 2}, {2, 3}, {2, 1}, {2, 0}, {1, 3}, false};
  check(__LINE__, &p2, F32);
  /* 1x1: without stride the rows packer, with stride 2 or padding the im2col packer */
  conv_case_t p3 = {2, 1, 150, 9, 1, {9, 11}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  check(__LINE__, &p3, F32);
  conv_case_t p4 = {2, 1, 7, 8, 1, {17, 16}, {1, 1}, {2, 1}, {1, 1}, {0, 1}, {1, 0}, true};
  check(__LINE__, &p4, F32);
  /* 1-D and 3-D */
  conv_case_t p5 = {1, 1, 9, 6, 1, {200}, {7}, {1}, {3}, {5}, {2}, false};
  check(__LINE__, &p5, F32);
  conv_case_t p6 = {3, 1, 3, 5, 1, {4, 7, 9}, {2, 3, 3}, {1, 2, 1}, {1, 1, 2}, {1, 1, 2}, {0, 1, 1}, true};
  check(__LINE__, &p6, F32);
  /* few positions, output channels a multiple of 32: the weights packed in panels of 32, which
   * AVX-512 takes as its B panels with the positions as the GEMM's rows (kernel_conv.c's
   * convp_narrow): two blocks of K, grouped 1x1 with stride, 1-D */
  conv_case_t w1 = {2, 1, 40, 64, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true};
  check(__LINE__, &w1, F32);
  conv_case_t w2 = {2, 2, 6, 64, 2, {13, 11}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false};
  check(__LINE__, &w2, F32);
  conv_case_t w3 = {1, 1, 5, 32, 1, {40}, {3}, {1}, {1}, {1}, {1}, true};
  check(__LINE__, &w3, F32);
  /* 1x1 at stride 1 without padding (kernel_conv.c's convp_wb_pack_rows: the positions' input
   * rows copied 8 floats at a time, 64 rows of K per call): 49 positions over 300 and 1200
   * channels (two and three blocks of K, several calls per block), a batch of two; 16 and 64
   * positions; two groups, whose last input row ends the tensor (the copy must not read past
   * it: the sanitizer build); 30 positions in 1-D; 48 output channels (no panels of 32: the
   * packed GEMM) */
  conv_case_t r1 = {2, 2, 300, 64, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  check(__LINE__, &r1, F32);
  conv_case_t r2 = {2, 1, 1200, 32, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false};
  check(__LINE__, &r2, F32);
  conv_case_t r3 = {2, 1, 70, 64, 2, {4, 4}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  check(__LINE__, &r3, F32);
  conv_case_t r4 = {2, 1, 40, 96, 1, {8, 8}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  check(__LINE__, &r4, F32);
  conv_case_t r5 = {1, 2, 33, 32, 1, {30}, {1}, {1}, {1}, {0}, {0}, true};
  check(__LINE__, &r5, F32);
  conv_case_t r6 = {2, 1, 130, 48, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  check(__LINE__, &r6, F32);
  /* 1x1 with padding (the im2col packer: the patches are not the input's rows) */
  conv_case_t r7 = {2, 1, 40, 32, 1, {6, 6}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true};
  check(__LINE__, &r7, F32);
  /* every output -0 (g_neg_zeros): relu must keep it on each path: the narrow one (49
   * positions, the rows packer and the im2col one), the direct one and the packed GEMM */
  conv_case_t z1 = {2, 1, 40, 64, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  conv_case_t z2 = {2, 1, 20, 64, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true};
  conv_case_t z3 = {2, 1, 16, 32, 1, {12, 12}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true};
  conv_case_t z4 = {2, 1, 24, 20, 1, {10, 10}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, true};
  g_neg_zeros = true;
  check(__LINE__, &z1, F32);
  check(__LINE__, &z2, F32);
  check(__LINE__, &z3, F32);
  check(__LINE__, &z4, F32);
  g_neg_zeros = false;
  /* empty: no batch */
  conv_case_t s10 = {1, 0, 2, 3, 1, {7}, {3}, {1}, {1}, {1}, {1}, true};
  check(__LINE__, &s10, F32);
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 20250611u;
  rng_state = rng_seed;
  fprintf(stderr, "seed %llu\n", (unsigned long long)rng_seed);
  test_shapes();
  test_random();
  return test_finish("test_kernel_conv_scratch");
}
