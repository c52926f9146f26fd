/* Edge cases of the spatial kernels and their ONNX translations that the conformance suite
 * does not cover: gather_elements out of range (the ok output, and the run-time check the
 * importer adds), resample's single-tap copy of integers and extrapolation marker, its
 * row-by-row copy of floats where every tap weighs 1 (bits kept, repeated rows),
 * conv_transpose with negative pads (output_padding), groups and dilations against a direct
 * sum, grid_sample's padding modes, col2im's overlaps, and small ONNX models (a Resize whose
 * sizes are computed inside the graph, Split at opset 18 with an uneven last chunk, Tile (one
 * expand, and one per axis where the rank would pass 8),
 * and the errors for operands that do not fold). */
#include "fuzzgen/onnx_build.h"
#include "onnx_run.h"
#include "test_kernel_util.h"

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64
#define I32 BERTH_DTYPE_I32
#define I64 BERTH_DTYPE_I64
#define U8 BERTH_DTYPE_U8
#define BOOL BERTH_DTYPE_BOOL

/* Runs a two-output kernel; returns the buffers (the caller frees them), NULL if infer failed. */
static bool run2(int line, tcall_t *c, const berth_type_t *want, void **bufs) {
  char msg[512], a[160], b[160];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out[2];
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, out, &d);
  CHECK_MSG(st == BERTH_OK, "line %d: %s infer failed: %s", line, c->def->name, msg);
  if (st) return false;
  berth_tensor_ref_t ins[TC_MAX_IN], outs[2];
  for (int i = 0; i < c->n_in; i++) ins[i].type = &c->in[i], ins[i].data = (void *)c->data[i];
  for (int i = 0; i < 2; i++) {
    CHECK_MSG(berth_type_equal(&out[i], &want[i]), "line %d: result %d is %s, expected %s", line, i, tc_fmt(&out[i], a),
              tc_fmt(&want[i], b));
    size_t bytes = berth_type_bytes(&out[i]);
    bufs[i] = malloc(bytes ? bytes : 1);
    memset(bufs[i], 0xA5, bytes ? bytes : 1);
    outs[i].type = &out[i];
    outs[i].data = bufs[i];
  }
  uint64_t sb;
  void *scratch = tc_scratch(c->def, c->attrs, c->in, c->n_in, &sb);
  berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, 2, scratch, sb};
  c->def->run(&call);
  free(scratch);
  return true;
}

/* ---- gather_elements ---------------------------------------------------------------------- */

static void test_gather_elements(void) {
  const float data[6] = {1, 2, 3, 4, 5, 6}; /* [2, 3] */
  void *bufs[2];
  /* axis 1, negative indices, indices narrower than data in dim 1 */
  tcall_t c = tc_op(&berth_op_def_gather_elements);
  tc_int(&c, "axis", 1);
  tc_arg(&c, ty(F32, 2, 2, 3), data);
  tc_arg(&c, ty(I64, 2, 2, 2), (int64_t[]){-1, 0, 2, -3});
  berth_type_t want[2] = {ty(F32, 2, 2, 2), ty(BOOL, 0)};
  if (run2(__LINE__, &c, want, bufs)) {
    const float *y = bufs[0];
    CHECK(y[0] == 3 && y[1] == 1 && y[2] == 6 && y[3] == 4);
    CHECK(*(uint8_t *)bufs[1] == 1);
    free(bufs[0]), free(bufs[1]);
  }
  /* axis 0 (not the last dim), i32 indices; one out of range: zero and ok = 0 */
  tcall_t c2 = tc_op(&berth_op_def_gather_elements);
  tc_arg(&c2, ty(F32, 2, 2, 3), data);
  tc_arg(&c2, ty(I32, 2, 3, 2), (int32_t[]){1, 0, 0, 1, 2, -2});
  berth_type_t want2[2] = {ty(F32, 2, 3, 2), ty(BOOL, 0)};
  if (run2(__LINE__, &c2, want2, bufs)) {
    const float *y = bufs[0];
    CHECK(y[0] == 4 && y[1] == 2 && y[2] == 1 && y[3] == 5 && y[4] == 0 && y[5] == 2);
    CHECK(*(uint8_t *)bufs[1] == 0);
    free(bufs[0]), free(bufs[1]);
  }
  tcall_t r1 = tc_op(&berth_op_def_gather_elements);
  tc_int(&r1, "axis", 1);
  tc_arg(&r1, ty(F32, 2, 2, 3), data);
  tc_arg(&r1, ty(I64, 2, 3, 1), (int64_t[]){0, 0, 0});
  EXPECT_REJECT(&r1, "larger than data");
  tcall_t r2 = tc_op(&berth_op_def_gather_elements);
  tc_arg(&r2, ty(F32, 2, 2, 3), data);
  tc_arg(&r2, ty(I64, 1, 2), (int64_t[]){0, 0});
  EXPECT_REJECT(&r2, "same rank");
  tcall_t r3 = tc_op(&berth_op_def_gather_elements);
  tc_int(&r3, "axis", 2);
  tc_arg(&r3, ty(F32, 2, 2, 3), data);
  tc_arg(&r3, ty(I64, 2, 1, 1), (int64_t[]){0});
  EXPECT_REJECT(&r3, "axis");
}

/* ---- resample ------------------------------------------------------------------------------- */

static void test_resample(void) {
  /* nearest on u8: a single-tap table copies exactly; -1 marks extrapolation (0 for ints) */
  tcall_t c = tc_op(&berth_op_def_resample);
  TC_INTS(&c, "shape", 1, 4);
  TC_INTS(&c, "taps", 1, 1);
  tc_arg(&c, ty(U8, 2, 1, 3), (uint8_t[]){10, 20, 250});
  tc_arg(&c, ty(I64, 1, 5), (int64_t[]){0, 2, 2, 0, -1});
  tc_arg(&c, ty(F64, 1, 5), (double[]){1, 1, 1, 1, 0});
  EXPECT(&c, ty(U8, 2, 1, 4), ((uint8_t[]){250, 250, 10, 0}));
  /* linear on f32 with two taps per position, and the extrapolation value */
  tcall_t c2 = tc_op(&berth_op_def_resample);
  TC_INTS(&c2, "shape", 3);
  TC_INTS(&c2, "taps", 2);
  tc_scalar(&c2, "extrapolation", -7.5);
  tc_arg(&c2, ty(F32, 1, 2), (float[]){1, 3});
  tc_arg(&c2, ty(I64, 1, 6), (int64_t[]){0, 1, 0, 1, -1, -1});
  tc_arg(&c2, ty(F64, 1, 6), (double[]){0.75, 0.25, 0.5, 0.5, 0, 0});
  EXPECT(&c2, ty(F32, 1, 3), ((float[]){1.5f, 2.0f, -7.5f}));
  /* an index past the input reads as extrapolation, never out of bounds */
  tcall_t c3 = tc_op(&berth_op_def_resample);
  TC_INTS(&c3, "shape", 1);
  TC_INTS(&c3, "taps", 2);
  tc_arg(&c3, ty(F64, 1, 2), (double[]){1, 3});
  tc_arg(&c3, ty(I64, 1, 2), (int64_t[]){1, 2});
  tc_arg(&c3, ty(F64, 1, 2), (double[]){0.5, 0.5});
  EXPECT(&c3, ty(F64, 1, 1), ((double[]){0}));
  /* nearest on f32, two dims: every tap weighs 1, so whole elements are copied (a signalling
   * NaN keeps its bits, which the float sums would quiet); an output row whose input row is the
   * one before's is that row again; an outer index outside the input fills the whole row */
  uint32_t snan = 0x7FA00001u;
  float xs[6] = {1, 2, 3, 4, -0.0f, 6};
  memcpy(&xs[1], &snan, sizeof snan);
  tcall_t c4 = tc_op(&berth_op_def_resample);
  TC_INTS(&c4, "shape", 4, 5);
  TC_INTS(&c4, "taps", 1, 1);
  tc_scalar(&c4, "extrapolation", -7.5);
  tc_arg(&c4, ty(F32, 2, 2, 3), xs);
  tc_arg(&c4, ty(I64, 1, 9), (int64_t[]){0, 0, 1, -1, 2, 1, 1, 0, 3});
  tc_arg(&c4, ty(F64, 1, 9), (double[]){1, 1, 1, 0, 1, 1, 1, 1, 0});
  const berth_type_t t4 = ty(F32, 2, 4, 5);
  float *g4 = tc_run(__LINE__, &c4, t4);
  if (g4) {
    const float fx = -7.5f;
    float w4[20];
    const int64_t col[5] = {2, 1, 1, 0, -1}, row[4] = {0, 0, 1, -1};
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 5; j++) w4[i * 5 + j] = row[i] < 0 || col[j] < 0 ? fx : xs[row[i] * 3 + col[j]];
    CHECK_MSG(memcmp(g4, w4, sizeof w4) == 0, "resample nearest f32: not the input's bits");
    free(g4);
  }
  /* a single tap weighing other than 1 (exclude_outside's all-zero taps, say) keeps the sum */
  tcall_t c5 = tc_op(&berth_op_def_resample);
  TC_INTS(&c5, "shape", 3);
  TC_INTS(&c5, "taps", 1);
  tc_arg(&c5, ty(F32, 1, 2), (float[]){1, 3});
  tc_arg(&c5, ty(I64, 1, 3), (int64_t[]){0, 1, 1});
  tc_arg(&c5, ty(F64, 1, 3), (double[]){1, 0, 0.5});
  EXPECT(&c5, ty(F32, 1, 3), ((float[]){1, 0, 1.5f}));
  tcall_t r1 = tc_op(&berth_op_def_resample);
  TC_INTS(&r1, "shape", 2);
  TC_INTS(&r1, "taps", 2);
  tc_arg(&r1, ty(I32, 1, 2), (int32_t[]){1, 3});
  tc_arg(&r1, ty(I64, 1, 4), (int64_t[]){0, 1, 0, 1});
  tc_arg(&r1, ty(F64, 1, 4), (double[]){1, 0, 0, 1});
  EXPECT_REJECT(&r1, "expected one of f32, f64");
  tcall_t r2 = tc_op(&berth_op_def_resample);
  TC_INTS(&r2, "shape", 2);
  TC_INTS(&r2, "taps", 2);
  tc_arg(&r2, ty(F32, 1, 2), (float[]){1, 3});
  tc_arg(&r2, ty(I64, 1, 3), (int64_t[]){0, 1, 0});
  tc_arg(&r2, ty(F64, 1, 3), (double[]){1, 0, 0});
  EXPECT_REJECT(&r2, "wrong shape, expected [4]");
  tcall_t r3 = tc_op(&berth_op_def_resample);
  TC_INTS(&r3, "shape", 2);
  TC_INTS(&r3, "taps", 0);
  tc_arg(&r3, ty(F32, 1, 2), (float[]){1, 3});
  tc_arg(&r3, ty(I64, 1, 0), NULL);
  tc_arg(&r3, ty(F64, 1, 0), NULL);
  EXPECT_REJECT(&r3, "taps");
  tcall_t r4 = tc_op(&berth_op_def_resample); /* a scalar has no dim to resample */
  tc_arg(&r4, ty(F32, 0), (float[]){1});
  tc_arg(&r4, ty(I64, 1, 0), NULL);
  tc_arg(&r4, ty(F64, 1, 0), NULL);
  EXPECT_REJECT(&r4, "shape and taps have 0 and 0 values");
}

/* resample's row path (no extrapolated position, at most 4 tap choices over the outer dims:
 * each input row interpolated along the last dim once per block of columns and kept for the
 * output rows that read it) against resample's formula written out here: for each output
 * element, over the outer dims' tap choices in order (the first dim's slowest), the weight
 * product from 1 times the sum from 0 of the last dim's taps, summed from 0, in double.
 * Bit for bit, f32 and f64 (f64 shows a change of order that f32's rounding hides): linear (2 x 2 taps), cubic-like (4 x 3), a last dim of 70
 * columns (three blocks of 32), and 3 x 2 choices (past the row path: the element path). */
static uint64_t rs_state = 88172645463325252ull;
static double rs_rnd(void) {
  rs_state ^= rs_state << 13, rs_state ^= rs_state >> 7, rs_state ^= rs_state << 17;
  return (double)(rs_state >> 11) / 9007199254740992.0;
}
static void rs_case(berth_dtype_t dt, const int64_t in[4], const int64_t out[4], const int64_t taps[4]) {
  int64_t total = 0;
  for (int a = 0; a < 4; a++) total += out[a] * taps[a];
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)total);
  double *w = malloc(sizeof(double) * (size_t)total), *x = malloc(sizeof(double) * 2 * 3 * 5 * 7);
  const int64_t nx = in[0] * in[1] * in[2] * in[3], ny = out[0] * out[1] * out[2] * out[3];
  for (int64_t i = 0; i < total; i++) w[i] = rs_rnd() * 2 - 0.5;
  for (int a = 0, e = 0; a < 4; a++)
    for (int64_t o = 0; o < out[a] * taps[a]; o++, e++) idx[e] = (int64_t)(rs_rnd() * (double)in[a]);
  for (int64_t i = 0; i < nx; i++) x[i] = rs_rnd() * 8 - 4;
  float xf[210];
  for (int64_t i = 0; i < nx; i++) xf[i] = (float)x[i];
  double *want = malloc(sizeof(double) * (size_t)ny);
  const int64_t *ix[4] = {idx, idx + out[0] * taps[0], idx + out[0] * taps[0] + out[1] * taps[1],
                          idx + out[0] * taps[0] + out[1] * taps[1] + out[2] * taps[2]};
  const double *wx[4] = {w, w + (ix[1] - idx), w + (ix[2] - idx), w + (ix[3] - idx)};
  int64_t e = 0;
  for (int64_t o0 = 0; o0 < out[0]; o0++)
    for (int64_t o1 = 0; o1 < out[1]; o1++)
      for (int64_t o2 = 0; o2 < out[2]; o2++)
        for (int64_t o3 = 0; o3 < out[3]; o3++, e++) {
          double sum = 0;
          for (int64_t t0 = 0; t0 < taps[0]; t0++)
            for (int64_t t1 = 0; t1 < taps[1]; t1++)
              for (int64_t t2 = 0; t2 < taps[2]; t2++) {
                const int64_t i0 = o0 * taps[0] + t0, i1 = o1 * taps[1] + t1, i2 = o2 * taps[2] + t2;
                double cw = 1;
                cw = cw * wx[0][i0], cw = cw * wx[1][i1], cw = cw * wx[2][i2];
                const int64_t base = ((ix[0][i0] * in[1] + ix[1][i1]) * in[2] + ix[2][i2]) * in[3];
                double part = 0;
                for (int64_t t3 = 0; t3 < taps[3]; t3++) {
                  const int64_t i3 = o3 * taps[3] + t3;
                  const double xv = dt == BERTH_DTYPE_F32 ? (double)xf[base + ix[3][i3]] : x[base + ix[3][i3]];
                  part += wx[3][i3] * xv;
                }
                sum += cw * part;
              }
          want[e] = sum;
        }
  tcall_t c = tc_op(&berth_op_def_resample);
  TC_INTS(&c, "shape", out[0], out[1], out[2], out[3]);
  TC_INTS(&c, "taps", taps[0], taps[1], taps[2], taps[3]);
  tc_arg(&c, ty(dt, 4, in[0], in[1], in[2], in[3]), dt == BERTH_DTYPE_F32 ? (const void *)xf : (const void *)x);
  tc_arg(&c, ty(I64, 1, total), idx);
  tc_arg(&c, ty(F64, 1, total), w);
  void *got = tc_run(__LINE__, &c, ty(dt, 4, out[0], out[1], out[2], out[3]));
  if (got) {
    int64_t bad = -1;
    for (int64_t i = 0; i < ny && bad < 0; i++) {
      if (dt == BERTH_DTYPE_F32) {
        const float g = ((float *)got)[i], wv = (float)want[i];
        if (memcmp(&g, &wv, sizeof g) != 0) bad = i;
      } else if (memcmp((double *)got + i, want + i, sizeof(double)) != 0) {
        bad = i;
      }
    }
    CHECK_MSG(bad < 0, "resample %s taps %lld,%lld,%lld,%lld: element %lld differs from the formula",
              dt == BERTH_DTYPE_F32 ? "f32" : "f64", (long long)taps[0], (long long)taps[1], (long long)taps[2],
              (long long)taps[3], (long long)bad);
    free(got);
  }
  free(idx), free(w), free(x), free(want);
}
static void test_resample_rows(void) {
  const int64_t in[4] = {2, 3, 5, 7};
  rs_case(F32, in, (const int64_t[]){2, 3, 9, 13}, (const int64_t[]){1, 1, 2, 2});
  rs_case(F64, in, (const int64_t[]){2, 3, 9, 13}, (const int64_t[]){1, 1, 2, 2});
  rs_case(F32, in, (const int64_t[]){2, 3, 11, 70}, (const int64_t[]){1, 1, 4, 3});
  rs_case(F64, in, (const int64_t[]){2, 3, 11, 70}, (const int64_t[]){1, 1, 4, 3});
  rs_case(F32, in, (const int64_t[]){2, 2, 6, 33}, (const int64_t[]){1, 3, 2, 2});
  rs_case(F32, in, (const int64_t[]){1, 3, 4, 5}, (const int64_t[]){2, 1, 2, 1});
}

/* ---- conv_transpose against a direct sum ------------------------------------------------------ */

static void convt_direct(const float *x, const float *w, const float *b, float *y, int64_t N, int64_t C, int64_t H,
                         int64_t G, int64_t Mg, int64_t K, int64_t s, int64_t d, int64_t pb, int64_t O) {
  int64_t Cg = C / G;
  for (int64_t i = 0; i < N * G * Mg * O; i++) y[i] = b ? b[(i / O) % (G * Mg)] : 0;
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t m = 0; m < Mg; m++)
        for (int64_t h = 0; h < H; h++)
          for (int64_t k = 0; k < K; k++) {
            int64_t o = h * s + k * d - pb;
            if (o >= 0 && o < O) y[(n * G * Mg + (c / Cg) * Mg + m) * O + o] += x[(n * C + c) * H + h] * w[(c * Mg + m) * K + k];
          }
}

static void test_conv_transpose(void) {
  /* 1-D, 4 input channels in 2 groups, 3 outputs per group, kernel 3, stride 2, dilation 2,
   * pad_begin 1 and pad_end -1 (one row of output_padding) */
  enum { N = 2, C = 4, H = 5, G = 2, Mg = 3, K = 3 };
  float x[N * C * H], w[C * Mg * K], b[G * Mg];
  for (int i = 0; i < N * C * H; i++) x[i] = (float)((i * 7) % 11) - 5;
  for (int i = 0; i < C * Mg * K; i++) w[i] = (float)((i * 5) % 7) * 0.5f - 1;
  for (int i = 0; i < G * Mg; i++) b[i] = (float)i * 0.25f;
  int64_t O = 2 * (H - 1) + 2 * (K - 1) + 1 - 1 + 1; /* 13 */
  float want[N * G * Mg * 13];
  convt_direct(x, w, b, want, N, C, H, G, Mg, K, 2, 2, 1, O);
  tcall_t c = tc_op(&berth_op_def_conv_transpose);
  TC_INTS(&c, "strides", 2);
  TC_INTS(&c, "dilations", 2);
  TC_INTS(&c, "pads", 1, -1);
  tc_int(&c, "group", G);
  tc_arg(&c, ty(F32, 3, N, C, H), x);
  tc_arg(&c, ty(F32, 3, C, Mg, K), w);
  tc_arg(&c, ty(F32, 1, G * Mg), b);
  EXPECT_TOL(&c, ty(F32, 3, N, G * Mg, 13), want, 1e-6);
  /* large pads cut the whole output away: rejected, not an empty loop */
  tcall_t r1 = tc_op(&berth_op_def_conv_transpose);
  TC_INTS(&r1, "pads", 3, 3);
  tc_arg(&r1, ty(F32, 3, 1, 1, 2), x);
  tc_arg(&r1, ty(F32, 3, 1, 1, 2), w);
  EXPECT_REJECT(&r1, "output size -3");
  tcall_t r2 = tc_op(&berth_op_def_conv_transpose);
  tc_int(&r2, "group", 3);
  tc_arg(&r2, ty(F32, 3, 1, 4, 2), x);
  tc_arg(&r2, ty(F32, 3, 4, 1, 2), w);
  EXPECT_REJECT(&r2, "group 3 must divide");
}

/* ---- grid_sample -------------------------------------------------------------------------- */

static void test_grid_sample(void) {
  /* 1-D input [1, 1, 4] = 0 1 2 3, align_corners 1: x = (g + 1) * 1.5 */
  const float in[4] = {0, 1, 2, 3};
  const float grid[4] = {-2, -0.5f, 1.5f, 3}; /* x = -1.5, 0.75, 3.75, 6 */
  static const struct {
    int mode, padding;
    float want[4];
  } cases[] = {
      {0, 0, {0, 0.75f, 0.75f, 0}},       /* zeros: taps outside read 0 */
      {0, 1, {0, 0.75f, 3, 3}},           /* border: the coordinate is clamped */
      {0, 2, {1.5f, 0.75f, 2.25f, 0}},    /* reflection about 0 and 3 */
      {1, 0, {0, 1, 0, 0}},               /* nearest, half to even: -1.5 -> -2 */
      {1, 2, {2, 1, 2, 0}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    tcall_t c = tc_op(&berth_op_def_grid_sample);
    tc_int(&c, "mode", cases[k].mode);
    tc_int(&c, "padding", cases[k].padding);
    tc_int(&c, "align_corners", 1);
    tc_arg(&c, ty(F32, 3, 1, 1, 4), in);
    tc_arg(&c, ty(F32, 3, 1, 4, 1), grid);
    EXPECT_TOL(&c, ty(F32, 3, 1, 1, 4), cases[k].want, 1e-6);
  }
  tcall_t r1 = tc_op(&berth_op_def_grid_sample);
  tc_arg(&r1, ty(F32, 4, 1, 1, 2, 2), in);
  tc_arg(&r1, ty(F32, 4, 1, 2, 2, 3), grid);
  EXPECT_REJECT(&r1, "expected [N, C, D_1..D_r]");
  tcall_t r2 = tc_op(&berth_op_def_grid_sample);
  tc_int(&r2, "mode", 3);
  tc_arg(&r2, ty(F32, 3, 1, 1, 4), in);
  tc_arg(&r2, ty(F32, 3, 1, 4, 1), grid);
  EXPECT_REJECT(&r2, "mode 3");
}

/* ---- col2im ------------------------------------------------------------------------------- */

static void test_col2im(void) {
  /* 1-D image of 5, block 3, stride 1: three block positions overlap in the middle */
  tcall_t c = tc_op(&berth_op_def_col2im);
  TC_INTS(&c, "image", 5);
  TC_INTS(&c, "block", 3);
  tc_arg(&c, ty(F32, 3, 1, 3, 3), (float[]){1, 2, 3, 10, 20, 30, 100, 200, 300});
  /* column l, block element k lands on l + k: out[p] = sum over l + k = p */
  EXPECT(&c, ty(F32, 3, 1, 1, 5), ((float[]){1, 12, 123, 230, 300}));
  tcall_t c2 = tc_op(&berth_op_def_col2im);
  TC_INTS(&c2, "image", 4);
  TC_INTS(&c2, "block", 2);
  TC_INTS(&c2, "strides", 2);
  TC_INTS(&c2, "pads", 1, 1);
  tc_arg(&c2, ty(F32, 3, 1, 2, 3), (float[]){1, 2, 3, 4, 5, 6});
  /* positions -1,1,3 (k=0) and 0,2,4 (k=1) */
  EXPECT(&c2, ty(F32, 3, 1, 1, 4), ((float[]){4, 2, 5, 3}));
  tcall_t r1 = tc_op(&berth_op_def_col2im);
  TC_INTS(&r1, "image", 5);
  TC_INTS(&r1, "block", 3);
  tc_arg(&r1, ty(F32, 3, 1, 3, 4), NULL);
  EXPECT_REJECT(&r1, "must be [N, C * 3, 3]");
}

/* ---- roi_align, deform_conv ---------------------------------------------------------------- */

static void test_roi_align(void) {
  const float x[4] = {1, 2, 3, 4}; /* [1, 1, 2, 2] */
  const float rois[4] = {0, 0, 1, 1};
  void *bufs[2];
  for (int mode = 0; mode < 2; mode++) {
    tcall_t c = tc_op(&berth_op_def_roi_align);
    tc_int(&c, "mode", mode);
    TC_INTS(&c, "output", 1, 1);
    tc_int(&c, "sampling_ratio", 1);
    tc_int(&c, "half_pixel", 0);
    tc_arg(&c, ty(F32, 4, 1, 1, 2, 2), x);
    tc_arg(&c, ty(F32, 2, 1, 4), rois);
    tc_arg(&c, ty(I64, 1, 1), (int64_t[]){0});
    berth_type_t want[2] = {ty(F32, 4, 1, 1, 1, 1), ty(BOOL, 0)};
    if (run2(__LINE__, &c, want, bufs)) {
      /* one sample at (0.5, 0.5): the mean of the four (avg), the largest weighted corner (max) */
      float got = *(float *)bufs[0];
      CHECK_MSG(got == (mode ? 1.0f : 2.5f), "roi_align mode %d: %g", mode, got);
      CHECK(*(uint8_t *)bufs[1] == 1);
      free(bufs[0]), free(bufs[1]);
    }
  }
  /* a batch index past N: zeros and ok = 0, never a read out of bounds */
  tcall_t c = tc_op(&berth_op_def_roi_align);
  TC_INTS(&c, "output", 1, 1);
  tc_arg(&c, ty(F32, 4, 1, 1, 2, 2), x);
  tc_arg(&c, ty(F32, 2, 1, 4), rois);
  tc_arg(&c, ty(I32, 1, 1), (int32_t[]){1});
  berth_type_t want[2] = {ty(F32, 4, 1, 1, 1, 1), ty(BOOL, 0)};
  if (run2(__LINE__, &c, want, bufs)) {
    CHECK(*(float *)bufs[0] == 0 && *(uint8_t *)bufs[1] == 0);
    free(bufs[0]), free(bufs[1]);
  }
  /* a box of 1e30: more than 2^16 samples per bin side is refused at run time */
  tcall_t c2 = tc_op(&berth_op_def_roi_align);
  TC_INTS(&c2, "output", 1, 1);
  tc_arg(&c2, ty(F32, 4, 1, 1, 2, 2), x);
  tc_arg(&c2, ty(F32, 2, 1, 4), (float[]){0, 0, 1e30f, 1});
  tc_arg(&c2, ty(I64, 1, 1), (int64_t[]){0});
  if (run2(__LINE__, &c2, want, bufs)) {
    CHECK(*(uint8_t *)bufs[1] == 0);
    free(bufs[0]), free(bufs[1]);
  }
}

static void test_deform_conv(void) {
  float x[9], off[18] = {0};
  for (int i = 0; i < 9; i++) x[i] = (float)i;
  off[0] = 0.5f; /* output (0, 0): dh 0.5 */
  off[9] = 1.0f; /* and dw 1: samples (0.5, 1), between 1 and 4 */
  off[8] = 10;   /* output (2, 2): dh 10, off the map: 0 */
  tcall_t c = tc_op(&berth_op_def_deform_conv);
  tc_arg(&c, ty(F32, 4, 1, 1, 3, 3), x);
  tc_arg(&c, ty(F32, 4, 1, 1, 1, 1), (float[]){2});
  tc_arg(&c, ty(F32, 4, 1, 2, 3, 3), off);
  EXPECT(&c, ty(F32, 4, 1, 1, 3, 3), ((float[]){5, 2, 4, 6, 8, 10, 12, 14, 0}));
  tcall_t r1 = tc_op(&berth_op_def_deform_conv);
  tc_arg(&r1, ty(F32, 4, 1, 1, 3, 3), x);
  tc_arg(&r1, ty(F32, 4, 1, 1, 1, 1), (float[]){2});
  tc_arg(&r1, ty(F32, 4, 1, 2, 2, 3), off);
  EXPECT_REJECT(&r1, "expected [1, 2, 3, 3]");
}

/* ---- ONNX models ------------------------------------------------------------------------------ */

/* Runs the model once, planned, and compares output k (n floats) with want within 1e-5. */
static void run_model(const char *name, const uint8_t *bytes, size_t len, const void *const *inputs, int k,
                      const float *want, int64_t n) {
  berth_ir_program_t *p = onnx_import_ok(name, bytes, len, NULL);
  if (!p) return;
  char msg[2048];
  void *outs[ONNX_RUN_MAX_OUT] = {0};
  berth_status_t st = onnx_call(p, false, inputs, outs, msg, sizeof msg);
  CHECK_MSG(st == BERTH_OK, "%s: %s", name, msg);
  if (!st) {
    const berth_type_t *t = onnx_result_type(p, k);
    CHECK_MSG(berth_type_numel(t) == n, "%s: output %d has %lld elements, expected %lld", name, k,
              (long long)berth_type_numel(t), (long long)n);
    for (int64_t i = 0; i < n && i < berth_type_numel(t); i++)
      CHECK_MSG(fabsf(((float *)outs[k])[i] - want[i]) <= 1e-5f, "%s: [%lld] = %g, expected %g", name, (long long)i,
                ((float *)outs[k])[i], want[i]);
  }
  onnx_outs_free(outs);
  berth_ir_program_destroy(p);
}

/* GatherElements with indices known only at run time: an index out of range fails the call
 * (planned and in the reference interpreter), naming the node; in range it runs. */
static void test_onnx_gather_elements_check(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "2,2");
  ob_input(&b, g, "i", ONNX_I64, "2,2");
  Onnx__NodeProto *n = ob_node(&b, g, "GatherElements", "x,i", "y");
  n->name = ob_str(&b, "pick", 4);
  ob_attr_i(&b, n, "axis", 1);
  ob_output(&b, g, "y", ONNX_F, "2,2");
  size_t len;
  uint8_t *m = ob_model(&b, g, 13, &len);
  const float x[4] = {1, 2, 3, 4};
  const int64_t ok_idx[4] = {1, -2, 0, -1}, bad_idx[4] = {0, 2, 0, 0};
  const void *in_ok[2] = {x, ok_idx}, *in_bad[2] = {x, bad_idx};
  run_model("gather_elements_ok", m, len, in_ok, 0, (const float[]){2, 1, 3, 4}, 4);
  onnx_expect_check_fails("gather_elements_bad", m, len, NULL, in_bad,
                          "GatherElements 'pick': an index is out of range");
  ob_deinit(&b);
}

/* Resize whose sizes are computed in the graph from the input's shape: Shape -> Slice ->
 * Mul -> Concat folds to constants. Nearest (asymmetric, floor) doubles H and W. */
static void test_onnx_resize_computed_sizes(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "1,1,2,2");
  ob_node(&b, g, "Shape", "x", "shp");
  ob_init_tensor(&b, g, "st", ONNX_I64, "1", "2");
  ob_init_tensor(&b, g, "en", ONNX_I64, "1", "4");
  ob_init_tensor(&b, g, "two", ONNX_I64, "1", "2");
  ob_init_tensor(&b, g, "nc", ONNX_I64, "2", "1,1");
  ob_node(&b, g, "Slice", "shp,st,en", "hw");
  ob_node(&b, g, "Mul", "hw,two", "hw2");
  Onnx__NodeProto *cat = ob_node(&b, g, "Concat", "nc,hw2", "sizes");
  ob_attr_i(&b, cat, "axis", 0);
  Onnx__NodeProto *n = ob_node(&b, g, "Resize", "x,,,sizes", "y");
  Onnx__AttributeProto *a = ob_attr(&b, n, "coordinate_transformation_mode", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  a->s.data = (uint8_t *)ob_str(&b, "asymmetric", 10);
  a->s.len = 10;
  Onnx__AttributeProto *nm = ob_attr(&b, n, "nearest_mode", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
  nm->s.data = (uint8_t *)ob_str(&b, "floor", 5);
  nm->s.len = 5;
  ob_output(&b, g, "y", ONNX_F, "1,1,4,4");
  size_t len;
  uint8_t *m = ob_model(&b, g, 19, &len);
  const float x[4] = {1, 2, 3, 4};
  const void *in[1] = {x};
  run_model("resize_computed_sizes", m, len, in, 0,
            (const float[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 16);
  ob_deinit(&b);
}

/* Split at opset 18 by num_outputs: chunks of ceil(5 / 3) = 2, the last one smaller. */
static void test_onnx_split_uneven(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "5");
  Onnx__NodeProto *n = ob_node(&b, g, "Split", "x", "a,b,c");
  ob_attr_i(&b, n, "num_outputs", 3);
  ob_output(&b, g, "a", ONNX_F, "2");
  ob_output(&b, g, "b", ONNX_F, "2");
  ob_output(&b, g, "c", ONNX_F, "1");
  size_t len;
  uint8_t *m = ob_model(&b, g, 18, &len);
  const float x[5] = {1, 2, 3, 4, 5};
  const void *in[1] = {x};
  run_model("split_uneven_b", m, len, in, 1, (const float[]){3, 4}, 2);
  run_model("split_uneven_c", m, len, in, 2, (const float[]){5}, 1);
  ob_deinit(&b);
}

/* Tile of a rank-3 tensor on two axes. */
static void test_onnx_tile(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "1,2,1");
  ob_init_tensor(&b, g, "rep", ONNX_I64, "3", "2,1,3");
  ob_node(&b, g, "Tile", "x,rep", "y");
  ob_output(&b, g, "y", ONNX_F, "2,2,3");
  size_t len;
  uint8_t *m = ob_model(&b, g, 13, &len);
  const float x[2] = {7, 8};
  const void *in[1] = {x};
  run_model("tile", m, len, in, 0, (const float[]){7, 7, 7, 8, 8, 8, 7, 7, 7, 8, 8, 8}, 12);
  ob_deinit(&b);
}

/* Tile's two lowerings against y[i] = x[i_k mod d_k]: three tiled axes of a rank-4 tensor (one
 * expand of rank 7), and five of a rank-5 tensor (rank 10 does not fit: one expand per axis). */
static void tile_case(const char *name, int rank, const int64_t *dims, const int64_t *reps) {
  char shape[64], rep[64], yshape[64];
  int a = 0, c = 0, e = 0;
  int64_t n = 1, ny = 1;
  for (int k = 0; k < rank; k++) {
    a += snprintf(shape + a, sizeof shape - (size_t)a, "%s%lld", k ? "," : "", (long long)dims[k]);
    c += snprintf(rep + c, sizeof rep - (size_t)c, "%s%lld", k ? "," : "", (long long)reps[k]);
    e += snprintf(yshape + e, sizeof yshape - (size_t)e, "%s%lld", k ? "," : "", (long long)(dims[k] * reps[k]));
    n *= dims[k];
    ny *= dims[k] * reps[k];
  }
  char rank_s[4];
  snprintf(rank_s, sizeof rank_s, "%d", rank);
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, shape);
  ob_init_tensor(&b, g, "rep", ONNX_I64, rank_s, rep);
  ob_node(&b, g, "Tile", "x,rep", "y");
  ob_output(&b, g, "y", ONNX_F, yshape);
  size_t len;
  uint8_t *m = ob_model(&b, g, 13, &len);
  float *x = malloc((size_t)n * sizeof *x), *want = malloc((size_t)ny * sizeof *want);
  for (int64_t i = 0; i < n; i++) x[i] = (float)(i + 1);
  int64_t idx[8] = {0};
  for (int64_t i = 0; i < ny; i++) {
    int64_t off = 0;
    for (int k = 0; k < rank; k++) off = off * dims[k] + idx[k] % dims[k];
    want[i] = x[off];
    for (int k = rank - 1; k >= 0; k--) {
      if (++idx[k] < dims[k] * reps[k]) break;
      idx[k] = 0;
    }
  }
  const void *in[1] = {x};
  run_model(name, m, len, in, 0, want, ny);
  free(x), free(want);
  ob_deinit(&b);
}

static void test_onnx_tile_paths(void) {
  tile_case("tile_one_expand", 4, (const int64_t[]){2, 3, 1, 5}, (const int64_t[]){2, 1, 3, 2});
  tile_case("tile_per_axis", 5, (const int64_t[]){2, 1, 3, 1, 2}, (const int64_t[]){2, 2, 2, 3, 2});
}

/* Operands that must fold but come from the caller fail the import with one line. */
static void test_onnx_errors(void) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "main");
  ob_input(&b, g, "x", ONNX_F, "1,1,2,2");
  ob_input(&b, g, "s", ONNX_F, "4");
  ob_node(&b, g, "Resize", "x,,s", "y");
  ob_output(&b, g, "y", ONNX_F, "");
  size_t len;
  uint8_t *m = ob_model(&b, g, 19, &len);
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_onnx_options_t opt = berth_onnx_options_default();
  berth_status_t st = berth_onnx_import(m, len, &opt, &p, NULL, &diag);
  CHECK_MSG(st != BERTH_OK && strstr(msg, "scales") && !strchr(msg, '\n'), "resize runtime scales: %s", msg);
  berth_ir_program_destroy(p);
  ob_deinit(&b);
}

int main(void) {
  test_gather_elements();
  test_resample();
  test_resample_rows();
  test_conv_transpose();
  test_grid_sample();
  test_col2im();
  test_roi_align();
  test_deform_conv();
  test_onnx_gather_elements_check();
  test_onnx_resize_computed_sizes();
  test_onnx_split_uneven();
  test_onnx_tile();
  test_onnx_tile_paths();
  test_onnx_errors();
  return test_finish("test_kernel_spatial");
}
