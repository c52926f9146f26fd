/* Depthwise convolution's fast path (src/kernels/kernel_conv_dw.c,
 * kernel_dw_ukr.h): for every kernel variant this build and CPU have, conv on
 * random depthwise shapes (3x3 and 5x5 and other kernels, strides 1 to 3,
 * dilations, asymmetric padding wider than the kernel's reach, widths around
 * the vector sizes, planes too wide for the four-row blocks or for the ring of
 * rows, channel multipliers, batches) against a plain loop in double, against
 * the portable variant, and against the generic path (kernel_conv.c built with
 * 16 bytes of scratch, where no row fits).
 * berth_conv_dw_f32 itself takes exactly the shapes it documents and writes
 * nothing outside its planes. Randomized; the seed is printed, BERTH_TEST_SEED
 * replays one. */
#include "berth/kernels.h"
#include "conv_reference.h"
#include "kernels/kernel_conv_dw.h"
#include "test_kernel_util.h"


static uint64_t rng_state, rng_seed;

static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1)); }

static float *rnd_floats(int64_t n, double **as_double) {
  float *p = malloc((size_t)(n ? n : 1) * sizeof(float));
  double *d = malloc((size_t)(n ? n : 1) * sizeof(double));
  for (int64_t i = 0; i < n; i++) {
    p[i] = (float)((double)(rnd() % 2001) / 1000.0 - 1.0);
    d[i] = p[i];
  }
  *as_double = d;
  return p;
}

static const berth_kernels_isa_t isas[] = {BERTH_KERNELS_PORTABLE, BERTH_KERNELS_AVX2, BERTH_KERNELS_AVX512,
                                           BERTH_KERNELS_NEON};
enum { N_ISAS = sizeof isas / sizeof isas[0] };

static void *run_conv(int line, int64_t scratch_max, const conv_case_t *g, berth_type_t tx, berth_type_t tw,
                      berth_type_t tb, berth_type_t tyy, const float *x, const float *w, const float *b) {
  int64_t pads[4] = {g->pb[0], g->pb[1], g->pe[0], g->pe[1]};
  tcall_t c = tc_op(&berth_op_def_conv);
  c.scratch_max = scratch_max;
  tc_ints_arr(&c, "strides", g->stride, 2);
  tc_ints_arr(&c, "dilations", g->dil, 2);
  tc_ints_arr(&c, "pads", pads, 4);
  tc_int(&c, "group", g->group);
  tc_arg(&c, tx, x);
  tc_arg(&c, tw, w);
  if (g->bias) tc_arg(&c, tb, b);
  return tc_run(line, &c, tyy);
}

static void check(int line, const conv_case_t *g) {
  const berth_dtype_t F32 = BERTH_DTYPE_F32;
  berth_type_t tx = ty(F32, 4, (int)g->n, (int)g->c, (int)g->in[0], (int)g->in[1]);
  berth_type_t tw = ty(F32, 4, (int)g->m, 1, (int)g->k[0], (int)g->k[1]), tb = ty(F32, 1, (int)g->m);
  int64_t out[2];
  for (int d = 0; d < 2; d++)
    out[d] = (g->in[d] + g->pb[d] + g->pe[d] - g->dil[d] * (g->k[d] - 1) - 1) / g->stride[d] + 1;
  berth_type_t tyy = ty(F32, 4, (int)g->n, (int)g->m, (int)out[0], (int)out[1]);
  double *xd, *wd, *bd = NULL;
  float *x = rnd_floats(berth_type_numel(&tx), &xd), *w = rnd_floats(berth_type_numel(&tw), &wd), *b = NULL;
  if (g->bias) b = rnd_floats(g->m, &bd);
  const int64_t ny = berth_type_numel(&tyy);
  double *want = malloc((size_t)(ny ? ny : 1) * sizeof(double));
  float *want_f = malloc((size_t)(ny ? ny : 1) * sizeof(float));
  conv_reference(g, out, xd, wd, bd, want);
  for (int64_t i = 0; i < ny; i++) want_f[i] = (float)want[i];
  void *generic = run_conv(line, 16, g, tx, tw, tb, tyy, x, w, b), *portable = NULL;
  int64_t bad = -1;
  if (generic)
    CHECK_MSG(tc_values_equal(F32, ny, generic, want_f, 2e-4, &bad),
              "line %d: the generic path's element %lld differs from the plain "
              "loop (seed %llu)",
              line, (long long)bad, (unsigned long long)rng_seed);
  for (int v = 0; v < N_ISAS; v++) {
    if (!berth_kernels_available(isas[v]) || berth_kernels_select(isas[v]) != BERTH_OK) continue;
    const char *name = berth_kernels_isa_name(isas[v]);
    float *got = run_conv(line, -1, g, tx, tw, tb, tyy, x, w, b);
    if (!got) continue;
    CHECK_MSG(tc_values_equal(F32, ny, got, want_f, 2e-4, &bad),
              "line %d, %s: element %lld is %.9g, the plain loop %.9g (seed %llu)", line, name, (long long)bad,
              bad >= 0 ? got[bad] : 0.0, bad >= 0 ? want[bad] : 0.0, (unsigned long long)rng_seed);
    if (generic)
      CHECK_MSG(tc_values_equal(F32, ny, got, generic, 2e-5, &bad),
                "line %d, %s: element %lld differs from the generic path (seed %llu)", line, name, (long long)bad,
                (unsigned long long)rng_seed);
    if (portable)
      CHECK_MSG(tc_values_equal(F32, ny, got, portable, 2e-5, &bad),
                "line %d, %s: element %lld differs from the portable variant "
                "(seed %llu)",
                line, name, (long long)bad, (unsigned long long)rng_seed);
    if (!portable)
      portable = got;
    else
      free(got);
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  free(portable);
  free(generic);
  free(x);
  free(w);
  free(b);
  free(xd);
  free(wd);
  free(bd);
  free(want);
  free(want_f);
}

/* a random depthwise case with a kh x kw kernel, inputs up to max_in past the
 * smallest */
static conv_case_t rnd_case(int64_t kh, int64_t kw, int64_t max_in) {
  conv_case_t g;
  memset(&g, 0, sizeof g);
  g.sp = 2;
  g.n = rnd_in(1, 2);
  g.c = g.group = rnd_in(1, 4);
  g.m = g.c * rnd_in(1, 3);
  g.bias = rnd() & 1;
  const int64_t k[2] = {kh, kw};
  for (int d = 0; d < 2; d++) {
    g.k[d] = k[d];
    g.dil[d] = rnd() % 3 ? 1 : rnd_in(2, 3);
    g.stride[d] = rnd() % 4 ? rnd_in(1, 2) : 3;
    g.pb[d] = rnd_in(0, g.k[d]);
    g.pe[d] = rnd_in(0, g.k[d]);
    int64_t span = g.dil[d] * (g.k[d] - 1) + 1, min_in = span - g.pb[d] - g.pe[d];
    if (min_in < 1) min_in = 1;
    g.in[d] = rnd_in(min_in, min_in + max_in);
  }
  return g;
}

static void test_random(void) {
  static const int64_t ks[][2] = {{3, 3}, {5, 5}, {3, 5}, {1, 3}, {7, 5}, {9, 3}, {3, 1}, {3, 4}, {2, 2}};
  for (int it = 0; it < 500; it++) {
    const int64_t *k = ks[it % 9 < 4 ? rnd() % 2 : rnd() % 9];
    conv_case_t g = rnd_case(k[0], k[1], rnd() % 4 ? 20 : 70);
    check(__LINE__, &g);
  }
}

static void test_shapes(void) {
  /* MobileNet-like 3x3, pads 1, stride 1 and 2; widths one under, at and over a
   * vector */
  for (int64_t w = 14; w <= 18; w++) {
    conv_case_t a = {2, 1, 3, 3, 3, {9, w}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true};
    check(__LINE__, &a);
    conv_case_t b = {2, 1, 2, 2, 2, {11, 2 * w + 1}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false};
    check(__LINE__, &b);
  }
  /* 5x5 with pads 2, 33 and 64 columns (two vectors and a tail), a multiplier
   * of 2 */
  conv_case_t c = {2, 2, 2, 4, 2, {13, 33}, {5, 5}, {1, 1}, {1, 1}, {2, 2}, {2, 2}, true};
  check(__LINE__, &c);
  conv_case_t d = {2, 1, 2, 2, 2, {6, 64}, {5, 5}, {2, 1}, {1, 2}, {2, 2}, {2, 2}, true};
  check(__LINE__, &d);
  /* wide planes: 3x3 stride 2 (row blocks), 5x5 stride 2 at 640 (no room for
   * the blocks: one slot per kernel row), dilation 2 (the ring without blocks)
   */
  conv_case_t e = {2, 1, 2, 2, 2, {9, 300}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true};
  check(__LINE__, &e);
  conv_case_t f = {2, 1, 1, 1, 1, {12, 640}, {5, 5}, {2, 2}, {1, 1}, {2, 2}, {2, 2}, true};
  check(__LINE__, &f);
  conv_case_t h = {2, 1, 2, 2, 2, {17, 40}, {3, 3}, {1, 1}, {2, 2}, {2, 2}, {2, 2}, false};
  check(__LINE__, &h);
  /* padding wider than the kernel's reach: whole rows and columns of bias alone
   */
  conv_case_t i = {2, 1, 2, 2, 2, {3, 4}, {3, 3}, {1, 1}, {1, 1}, {4, 5}, {3, 6}, true};
  check(__LINE__, &i);
  /* stride 2's deinterleaved rows: input widths around the copy's blocks of 8
   * and 16 floats, odd and even, with an odd and an even left padding (the
   * even input columns land in the odd half) and a dilation of 3 (taps in both
   * halves) */
  for (int64_t w = 7; w <= 19; w++)
    for (int64_t pw = 1; pw <= 2; pw++) {
      conv_case_t s2 = {2, 1, 1, 1, 1, {6, w}, {3, 3}, {2, 2}, {1, 1}, {1, pw}, {1, 1}, true};
      check(__LINE__, &s2);
      conv_case_t s2d = {2, 1, 1, 1, 1, {9, w + 6}, {3, 5}, {2, 2}, {1, 3}, {1, pw}, {1, pw}, false};
      check(__LINE__, &s2d);
    }
  /* one input pixel */
  conv_case_t j = {2, 1, 1, 1, 1, {1, 1}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true};
  check(__LINE__, &j);
}

/* berth_conv_dw_f32 directly: which shapes it takes, and nothing written
 * outside the planes */
static void test_direct(void) {
  enum { IH = 20, IW = 37, K = 5, BUF = 4096 };
  static float x[IH * IW], w[2 * K * K], y[2 * IH * IW + 64];
  static _Alignas(64) float buf[BUF];
  for (int i = 0; i < IH * IW; i++) x[i] = (float)(rnd() % 7) - 3;
  for (int i = 0; i < 2 * K * K; i++) w[i] = (float)(rnd() % 5) - 2;
  const berth_dw_geom_t base = {IH, IW, IH, IW, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0};
  for (int v = 0; v < N_ISAS; v++) {
    if (!berth_kernels_available(isas[v]) || berth_kernels_select(isas[v]) != BERTH_OK) continue;
    berth_dw_geom_t g = base;
    for (int i = 0; i < 2 * IH * IW + 64; i++) y[i] = 12345;
    CHECK(berth_conv_dw_f32(g, 1, 2, x, w, NULL, y, buf, BUF, NULL, NULL));
    int64_t bad = 0;
    for (int i = 0; i < 2 * IH * IW; i++) bad += y[i] == 12345;
    for (int i = 2 * IH * IW; i < 2 * IH * IW + 64; i++) bad += y[i] != 12345;
    CHECK_MSG(bad == 0, "%s: %lld elements wrong inside or outside the planes", berth_kernels_isa_name(isas[v]),
              (long long)bad);
    /* exact small-integer sums (the second plane: weights 9 to 17): every
     * variant gives the plain loop's value */
    for (int64_t o0 = 0; o0 < IH; o0++)
      for (int64_t o1 = 0; o1 < IW; o1++) {
        double s = 0;
        for (int q0 = 0; q0 < 3; q0++)
          for (int q1 = 0; q1 < 3; q1++) {
            int64_t i0 = o0 - 1 + q0, i1 = o1 - 1 + q1;
            if (i0 >= 0 && i0 < IH && i1 >= 0 && i1 < IW) s += w[9 + q0 * 3 + q1] * x[i0 * IW + i1];
          }
        bad += y[IH * IW + o0 * IW + o1] != (float)s;
      }
    CHECK_MSG(bad == 0, "%s: %lld elements differ from exact sums", berth_kernels_isa_name(isas[v]), (long long)bad);
    /* not covered: kernel widths other than 3 and 5, column stride 3, more than
     * 8 kernel rows, rows longer than the buffer */
    g.kw = 4;
    CHECK(!berth_conv_dw_f32(g, 1, 1, x, w, NULL, y, buf, BUF, NULL, NULL));
    g = base;
    g.sw = 3;
    CHECK(!berth_conv_dw_f32(g, 1, 1, x, w, NULL, y, buf, BUF, NULL, NULL));
    g = base;
    g.kh = 9;
    CHECK(!berth_conv_dw_f32(g, 1, 1, x, w, NULL, y, buf, BUF, NULL, NULL));
    g = base;
    /* rows of 80 floats (37 columns round up to 64, a pair of the widest
     * vectors, + 2 for the taps, to a vector): three rows are too few for three
     * kernel rows and the zero row, four enough */
    CHECK(!berth_conv_dw_f32(g, 1, 1, x, w, NULL, y, buf, 4 * 80 - 1, NULL, NULL));
    CHECK(berth_conv_dw_f32(g, 1, 1, x, w, NULL, y, buf, 4 * 80, NULL, NULL));
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
}

/* The planes in the lanes (kernel_dw_lanes_ukr.h) against the row kernel on one shape, every
 * variant: the same bits (the same terms in the same order), the epilogue once per plane after
 * it is stored, nothing written outside the planes, and the plain loop in double. */
static int epi_calls;
static void epi_double_plus_one(float *y, int64_t n, const void *ctx) {
  (void)ctx;
  epi_calls++;
  for (int64_t i = 0; i < n; i++) y[i] = 2.0f * y[i] + 1.0f;
}
static void check_lanes(int line, berth_dw_geom_t g, int64_t channels, bool bias) {
  const int64_t ip = g.ih * g.iw, plane = g.oh * g.ow, kk = g.kh * g.kw, ny = channels * plane;
  const int64_t lanes = berth_conv_dw_buffer_floats(g, channels, 1), rows = berth_conv_dw_buffer_floats(g, 1, 1);
  const bool takes = berth_conv_dw_lanes(g, channels, 1) && !berth_conv_dw_lanes(g, 1, 1);
  CHECK_MSG(takes && rows > 0, "line %d: the lanes not taken, or no row kernel", line);
  if (!takes || rows <= 0) return;
  double *xd, *wd, *bd = NULL;
  float *x = rnd_floats(channels * ip, &xd), *w = rnd_floats(channels * kk, &wd), *b = NULL;
  if (bias) b = rnd_floats(channels, &bd);
  const int64_t nbuf = (lanes > rows ? lanes : rows) + 16;
  float *buf = aligned_alloc(64, ((size_t)nbuf * sizeof(float) + 63) / 64 * 64);
  float *ya = malloc((size_t)(ny + 32) * sizeof(float)), *yb = malloc((size_t)(ny + 32) * sizeof(float));
  for (int v = 0; v < N_ISAS; v++) {
    if (!berth_kernels_available(isas[v]) || berth_kernels_select(isas[v]) != BERTH_OK) continue;
    const char *name = berth_kernels_isa_name(isas[v]);
    for (int64_t i = 0; i < ny + 32; i++) ya[i] = yb[i] = 12345.0f;
    for (int64_t i = 0; i < nbuf; i++) buf[i] = 777.0f; /* berth_conv_dw_f32 zeroes what it reads */
    epi_calls = 0;
    CHECK(berth_conv_dw_f32(g, channels, 1, x, w, b, ya, buf, lanes, epi_double_plus_one, NULL));
    CHECK_MSG(epi_calls == channels, "line %d, %s: %d epilogue calls for %lld planes", line, name, epi_calls,
              (long long)channels);
    int64_t over = 0; /* nothing written past the buffer it was given */
    for (int64_t i = lanes; i < nbuf; i++) over += buf[i] != 777.0f;
    CHECK_MSG(over == 0, "line %d, %s: %lld floats written past the buffer", line, name, (long long)over);
    for (int64_t c = 0; c < channels; c++) /* one channel: the row kernel */
      CHECK(berth_conv_dw_f32(g, 1, 1, x + c * ip, w + c * kk, b ? b + c : NULL, yb + c * plane, buf, rows,
                              epi_double_plus_one, NULL));
    int64_t bad = -1;
    for (int64_t i = 0; i < ny + 32 && bad < 0; i++)
      if (memcmp(&ya[i], &yb[i], sizeof(float)) != 0) bad = i;
    CHECK_MSG(bad < 0, "line %d, %s: lanes vs rows, element %lld (of %lld, plane %lld) is %.9g, rows %.9g (seed %llu)",
              line, name, (long long)bad, (long long)ny, (long long)(bad / (plane ? plane : 1)),
              bad >= 0 ? ya[bad] : 0.0, bad >= 0 ? yb[bad] : 0.0, (unsigned long long)rng_seed);
    for (int64_t c = 0; c < channels; c++)
      for (int64_t o = 0; o < plane; o++) {
        const int64_t o0 = o / g.ow, o1 = o % g.ow;
        double sum = bias ? bd[c] : 0.0;
        for (int64_t q0 = 0; q0 < g.kh; q0++)
          for (int64_t q1 = 0; q1 < g.kw; q1++) {
            const int64_t i0 = o0 * g.sh - g.ph + q0 * g.dh, i1 = o1 * g.sw - g.pw + q1 * g.dw;
            if (i0 >= 0 && i0 < g.ih && i1 >= 0 && i1 < g.iw) sum += wd[c * kk + q0 * g.kw + q1] * xd[c * ip + i0 * g.iw + i1];
          }
        const double want = 2.0 * sum + 1.0, got = ya[c * plane + o];
        if (fabs(got - want) > 1e-4 * (1.0 + fabs(want)) && bad < 0) bad = c * plane + o;
      }
    CHECK_MSG(bad < 0, "line %d, %s: element %lld differs from the plain loop (seed %llu)", line, name, (long long)bad,
              (unsigned long long)rng_seed);
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  free(x), free(w), free(b), free(xd), free(wd), free(bd), free(buf), free(ya), free(yb);
}

/* planes in the lanes: strides 1 and 2 (and 3 along rows), 3x3 and 5x5 and other row counts,
 * pads 0 to the kernel's reach, row dilations, planes from 1x1 to 112 rows, 28x28 and odd widths, channel
 * counts that leave partial groups of 4, 8 and 16 lanes, with and without bias */
static void test_lanes(void) {
  static const int64_t ch[] = {2, 3, 5, 8, 9, 16, 17, 19, 33};
  /* MobileNet, ShuffleNet and EfficientNet shapes */
  const berth_dw_geom_t s14 = {14, 14, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0};
  check_lanes(__LINE__, s14, 40, true);
  const berth_dw_geom_t s28 = {28, 28, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0};
  check_lanes(__LINE__, s28, 24, false);
  const berth_dw_geom_t s7 = {7, 7, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0};
  check_lanes(__LINE__, s7, 17, true);
  const berth_dw_geom_t s14to7 = {14, 14, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0};
  check_lanes(__LINE__, s14to7, 9, true);
  const berth_dw_geom_t f14 = {14, 14, 14, 14, 5, 5, 1, 1, 1, 1, 2, 2, 0, 0, 0};
  check_lanes(__LINE__, f14, 20, true);
  const berth_dw_geom_t f7 = {14, 13, 7, 7, 5, 5, 2, 2, 1, 1, 2, 2, 0, 0, 0};
  check_lanes(__LINE__, f7, 11, false);
  const berth_dw_geom_t one = {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0};
  check_lanes(__LINE__, one, 5, true);
  const berth_dw_geom_t tall = {112, 3, 112, 3, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0};
  check_lanes(__LINE__, tall, 9, true);
  const berth_dw_geom_t s28s1 = {28, 28, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0};
  check_lanes(__LINE__, s28s1, 12, true);
  const berth_dw_geom_t s56to28 = {56, 56, 28, 28, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0};
  check_lanes(__LINE__, s56to28, 10, false);
  const berth_dw_geom_t odd = {29, 31, 15, 16, 5, 5, 2, 2, 1, 1, 2, 2, 0, 0, 0};
  check_lanes(__LINE__, odd, 7, true);
  /* the row kernel keeps wide planes (56 and 112 columns), a column dilation, column stride 3,
   * a multiplier of 2 and one channel */
  const berth_dw_geom_t s56 = {56, 56, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0};
  const berth_dw_geom_t s112 = {112, 112, 56, 56, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0};
  berth_dw_geom_t dil = s14, st3 = s14;
  dil.dw = 2, dil.pw = 2;
  st3.sw = 3, st3.ow = 5;
  CHECK(!berth_conv_dw_lanes(s56, 64, 1) && !berth_conv_dw_lanes(s112, 64, 1) && !berth_conv_dw_lanes(dil, 64, 1));
  CHECK(!berth_conv_dw_lanes(st3, 64, 1) && !berth_conv_dw_lanes(s14, 64, 2) && !berth_conv_dw_lanes(s14, 1, 1));
  for (int it = 0; it < 300; it++) {
    berth_dw_geom_t g;
    memset(&g, 0, sizeof g);
    g.kw = rnd() & 1 ? 3 : 5;
    g.kh = it % 3 ? g.kw : rnd_in(1, 6);
    g.sh = rnd_in(1, it % 5 ? 2 : 3);
    g.sw = rnd_in(1, 2);
    g.dh = rnd() % 4 ? 1 : 2;
    g.dw = 1; /* a column dilation keeps the row kernel */
    g.ph = rnd_in(0, g.kh);
    g.pw = rnd_in(0, g.kw);
    const int64_t sph = g.dh * (g.kh - 1) + 1, spw = g.dw * (g.kw - 1) + 1;
    const int64_t mh = sph - 2 * g.ph > 1 ? sph - 2 * g.ph : 1, mw = spw - 2 * g.pw > 1 ? spw - 2 * g.pw : 1;
    g.ih = rnd_in(mh, mh + 20);
    g.iw = rnd_in(mw, mw + 40);
    g.oh = (g.ih + 2 * g.ph - sph) / g.sh + 1;
    g.ow = (g.iw + 2 * g.pw - spw) / g.sw + 1;
    if (g.oh < 1 || g.ow < 1 || !berth_conv_dw_lanes(g, 2, 1)) continue;
    check_lanes(__LINE__, g, ch[rnd() % (sizeof ch / sizeof ch[0])], rnd() & 1);
  }
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 20261203u;
  rng_state = rng_seed;
  fprintf(stderr, "seed %llu\n", (unsigned long long)rng_seed);
  test_direct();
  test_shapes();
  test_random();
  test_lanes();
  return test_finish("test_kernel_conv_dw");
}
