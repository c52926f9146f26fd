/* The small 1-D conv path (src/kernels/kernel_conv_small.c): against the plain ONNX Conv
 * in double (conv_reference.h) for every kernel variant this build and CPU have, on the
 * shapes of an audio frame (Silero VAD's STFT: one input channel, 256 taps, stride 128 or 64,
 * in place; its encoder: k 3, pad 1, stride 1 or 2, windows over both edges) and random ones
 * (dilations, output channels not a multiple of 4, kernels wider than the input with padding,
 * rows exactly one window long, whose patches are the input shifted);
 * nothing outside the output is written; it declines (writing nothing) more than
 * BERTH_CONV_SMALL_MAX_L positions, fewer than 4 output channels, and scratch too small for
 * the patches unless the patches are runs of the input; and the conv kernel gives the bits
 * of the path called directly (the general path sums in the same order where the patches fit
 * the scratch, so this pins the result, not which path ran). Randomized: BERTH_TEST_SEED
 * replays a seed (printed on failure). */
#include "berth/kernels.h"
#include "conv_reference.h"
#include "kernels/kernel_conv_small.h"
#include "kernels/kernel_isa.h"
#include "test_kernel_util.h"

#include <math.h>

static uint64_t rng_state;
static unsigned long long seed;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}
static float rndf(void) { return (float)(rnd() % 20001) / 10000.0f - 1.0f; }

enum { XN = 1 << 12, WN = 1 << 17, YN = 1 << 11, BN = 1 << 13 };
static float x[XN], w[WN], b[512], y[YN + 16], buf[BN];
static double xd[XN], wd[WN], bd[512], yd[YN];

/* One case: random data, the path, the reference. Returns whether the path took it. */
static bool run_case(const berth_conv_small_geom_t *g, bool bias, int64_t bufn, const char *what) {
  for (int64_t i = 0; i < g->cg * g->il; i++) xd[i] = x[i] = rndf();
  for (int64_t i = 0; i < g->mg * g->ck; i++) wd[i] = w[i] = rndf();
  for (int64_t i = 0; i < g->mg; i++) bd[i] = b[i] = rndf();
  for (int64_t i = 0; i < YN + 16; i++) y[i] = 12345.0f;
  const bool took = berth_conv_small_f32(g, x, w, bias ? b : NULL, y, buf, bufn);
  const int64_t total = took ? g->mg * g->l : 0;
  for (int64_t i = total; i < YN + 16; i++)
    if (y[i] != 12345.0f) {
      CHECK_MSG(0, "%s (%s): wrote y[%lld] outside the output, seed %llu", what,
                berth_kernels_isa_name(berth_kernels_active()), (long long)i, seed);
      break;
    }
  if (!took) return false;
  const conv_case_t c = {1, 1, g->cg, g->mg, 1, {g->il}, {g->k}, {g->stride}, {g->dil}, {g->pad}, {0}, bias};
  const int64_t out[1] = {g->l};
  conv_reference(&c, out, xd, wd, bd, yd);
  for (int64_t i = 0; i < total; i++) {
    const double tol = 1e-5 * (double)(g->ck + 1);
    if (!(fabs((double)y[i] - yd[i]) <= tol)) {
      CHECK_MSG(0, "%s (%s): y[%lld] = %.9g, expected %.9g, seed %llu", what,
                berth_kernels_isa_name(berth_kernels_active()), (long long)i, (double)y[i], yd[i], seed);
      break;
    }
  }
  return true;
}

/* The output positions of a geometry (floor, as ONNX; the end padding makes it exact). */
static int64_t positions(int64_t il, int64_t k, int64_t stride, int64_t pad, int64_t pad_end, int64_t dil) {
  return (il + pad + pad_end - dil * (k - 1) - 1) / stride + 1;
}

static void test_audio_shapes(void) {
  /* Silero's STFT frames (16 kHz/512: 576 samples, 8 kHz: 288 with stride 64) in place */
  berth_conv_small_geom_t stft = {1, 258, 576, 3, 256, 256, 128, 0, 1};
  CHECK(run_case(&stft, false, 0, "STFT 16 kHz/512, no scratch (in place)"));
  berth_conv_small_geom_t stft8 = {1, 130, 256, 3, 128, 128, 64, 0, 1};
  CHECK(run_case(&stft8, false, 0, "STFT 8 kHz, in place"));
  berth_conv_small_geom_t stft1 = {1, 258, 320, 1, 256, 256, 128, 0, 1};
  CHECK(run_case(&stft1, false, 0, "STFT one frame"));
  /* the encoder: k 3, pad 1 both ends */
  const int64_t enc[4][4] = {{129, 128, 3, 1}, {128, 64, 3, 2}, {64, 64, 2, 2}, {64, 128, 1, 1}};
  for (int i = 0; i < 4; i++) {
    const int64_t cg = enc[i][0], mg = enc[i][1], il = enc[i][2], st = enc[i][3];
    berth_conv_small_geom_t g = {cg, mg, il, positions(il, 3, st, 1, 1, 1), 3, cg * 3, st, 1, 1};
    CHECK(run_case(&g, true, BN, "Silero encoder layer"));
    CHECK(!run_case(&g, true, g.l * g.ck - 1, "encoder, scratch one float short")); /* declines */
  }
}

static void test_random(void) {
  for (int it = 0; it < 400; it++) {
    /* every third case rows one window long (il == k, unit dilation: the shifted-copy packer) */
    const bool row = it % 3 == 0;
    const int64_t cg = 1 + rnd() % 40, mg = 1 + rnd() % 40, k = 1 + rnd() % 6, dil = row ? 1 : 1 + rnd() % 3;
    const int64_t stride = 1 + rnd() % 3, pad = rnd() % (dil * (k - 1) + 1), pad_end = rnd() % (dil * (k - 1) + 1);
    int64_t il = row ? k : 1 + rnd() % 12;
    if (il + pad + pad_end < dil * (k - 1) + 1) il = dil * (k - 1) + 1;
    const int64_t l = positions(il, k, stride, pad, pad_end, dil);
    if (cg * il > XN || mg * cg * k > WN || mg * l > YN) continue;
    berth_conv_small_geom_t g = {cg, mg, il, l, k, cg * k, stride, pad, dil};
    const bool took = run_case(&g, rnd() % 2, BN, "random 1-D");
    CHECK_MSG(took == (l <= BERTH_CONV_SMALL_MAX_L && mg >= 4), "random 1-D: took %d with l %lld, mg %lld, seed %llu",
              (int)took, (long long)l, (long long)mg, seed);
  }
}

/* conv (the kernel) gives the bits of the path called directly. */
static void test_conv_takes_it(void) {
  const int64_t cg = 20, mg = 12, il = 3;
  berth_conv_small_geom_t g = {cg, mg, il, 3, 3, cg * 3, 1, 1, 1};
  CHECK(run_case(&g, true, BN, "conv's shape"));
  float direct[36];
  memcpy(direct, y, sizeof direct);
  tcall_t c = tc_op(&berth_op_def_conv);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 3, 1, (int)cg, (int)il), x);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 3, (int)mg, (int)cg, 3), w);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 1, (int)mg), b);
  TC_INTS(&c, "pads", 1, 1);
  float *got = tc_run(__LINE__, &c, ty(BERTH_DTYPE_F32, 3, 1, (int)mg, 3));
  for (int i = 0; got && i < 36; i++)
    CHECK_MSG(got[i] == direct[i], "conv y[%d] = %.9g, the path %.9g (%s)", i, (double)got[i], (double)direct[i],
              berth_kernels_isa_name(berth_kernels_active()));
  free(got);
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  seed = s ? strtoull(s, NULL, 10) : 20261204ull;
  static const berth_kernels_isa_t ids[] = {BERTH_KERNELS_PORTABLE, BERTH_KERNELS_AVX2, BERTH_KERNELS_AVX512,
                                            BERTH_KERNELS_NEON};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    if (berth_kernels_select(ids[i]) != BERTH_OK) continue; /* not in this build or CPU */
    rng_state = seed;
    test_audio_shapes();
    test_random();
    test_conv_takes_it();
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
  return test_finish("test_kernel_conv_small");
}
