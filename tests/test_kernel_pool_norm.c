/* Edge cases of the pooling and normalization kernels (kernel_pool.c, kernel_norm.c) that the
 * ONNX suite does not reach, computed by hand: MaxPool's indices in both storage orders and
 * over channels, NaN and integer inputs with padding, ceil mode with count_include_pad
 * (windows past the explicit padding), the dropped last window of ceil mode, windows wholly
 * in padding, LpPool's generic p, MaxUnpool with larger outputs, duplicate and out-of-range
 * indices, MaxRoiPool (no suite test has it), LayerNormalization's Mean and InvStdDev (also over empty normalized dims),
 * GroupNormalization, LRN with an even size, the rejections; and, through the importer,
 * BatchNormalization folded into a Conv with constant weights (and not folded when they
 * are not), and refused in training mode. */
#include "test_kernel_util.h"

#include "berth/kernels.h"

#include "host/session.h"
#include "plan/plan.h"
#include "onnx/onnx_import.h"
#include "fuzzgen/onnx_build.h"

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64
#define I8 BERTH_DTYPE_I8
#define I64 BERTH_DTYPE_I64

/* Runs a kernel with several outputs; each must match want[k] (floats within tol). */
static void run_multi(int line, tcall_t *c, int n_out, const berth_type_t *want_t, const void *const *want, double tol) {
  char msg[512], a[160], b[160];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out[4];
  berth_status_t st = c->def->infer(c->attrs, c->in, c->n_in, out, &d);
  CHECK_MSG(st == BERTH_OK, "line %d: %s infer failed: %s", line, c->def->name, msg);
  if (st) return;
  void *bufs[4] = {0};
  berth_tensor_ref_t ins[TC_MAX_IN], outs[4];
  for (int i = 0; i < c->n_in; i++) ins[i] = (berth_tensor_ref_t){&c->in[i], (void *)c->data[i]};
  bool ok = true;
  for (int k = 0; k < n_out; k++) {
    CHECK_MSG(berth_type_equal(&out[k], &want_t[k]), "line %d: output %d is %s, expected %s", line, k,
              tc_fmt(&out[k], a), tc_fmt(&want_t[k], b));
    ok &= berth_type_equal(&out[k], &want_t[k]);
    size_t bytes = berth_type_bytes(&out[k]);
    bufs[k] = malloc(bytes ? bytes : 1);
    memset(bufs[k], 0xA5, bytes ? bytes : 1);
    outs[k] = (berth_tensor_ref_t){&out[k], bufs[k]};
  }
  if (ok) {
    uint64_t sb;
    void *scratch = tc_scratch(c->def, c->attrs, c->in, c->n_in, &sb);
    berth_kernel_call_t call = {c->attrs, ins, c->n_in, outs, n_out, scratch, sb};
    c->def->run(&call);
    free(scratch);
    for (int k = 0; k < n_out; k++) {
      int64_t bad = -1;
      CHECK_MSG(tc_values_equal(want_t[k].dtype, berth_type_numel(&want_t[k]), bufs[k], want[k], tol, &bad),
                "line %d: %s output %d element %lld differs", line, c->def->name, k, (long long)bad);
    }
  }
  for (int k = 0; k < n_out; k++) free(bufs[k]);
}

/* ---- pooling ------------------------------------------------------------------------------ */

static void test_max_pool_indices(void) {
  /* two channels of [3, 2]; kernel [2, 1]: the window maxima sit at (1,0), (1,1), (2,0), (2,1) */
  static const float x[12] = {0, 1, 2, 3, 9, 4, 10, 11, 12, 13, 19, 14};
  static const float y[8] = {2, 3, 9, 4, 12, 13, 19, 14};
  static const int64_t row[8] = {2, 3, 4, 5, 8, 9, 10, 11}, col[8] = {1, 4, 2, 5, 7, 10, 8, 11};
  berth_type_t t[2] = {ty(F32, 4, 1, 2, 2, 2), ty(I64, 4, 1, 2, 2, 2)};
  for (int order = 0; order < 2; order++) {
    tcall_t c = tc_op(&berth_op_def_max_pool_indices);
    tc_arg(&c, ty(F32, 4, 1, 2, 3, 2), x);
    TC_INTS(&c, "kernel_shape", 2, 1);
    tc_int(&c, "flags", order ? 4 : 0);
    run_multi(__LINE__, &c, 2, t, (const void *[]){y, order ? col : row}, 0);
  }
  /* 3-D, column-major: index h + w*H + d*H*W of the maximum at (1, 0, 1) of [2, 2, 2] */
  static const float x3[8] = {0, 0, 0, 0, 0, 5, 0, 0};
  static const float y3[1] = {5};
  static const int64_t i3[1] = {1 + 0 * 2 + 1 * 4};
  berth_type_t t3[2] = {ty(F32, 5, 1, 1, 1, 1, 1), ty(I64, 5, 1, 1, 1, 1, 1)};
  tcall_t c = tc_op(&berth_op_def_max_pool_indices);
  tc_arg(&c, ty(F32, 5, 1, 1, 2, 2, 2), x3);
  TC_INTS(&c, "kernel_shape", 2, 2, 2);
  tc_int(&c, "flags", 4);
  run_multi(__LINE__, &c, 2, t3, (const void *[]){y3, i3}, 0);
}

static void test_max_pool_values(void) {
  /* NaNs are skipped unless the window holds nothing else */
  tcall_t c = tc_op(&berth_op_def_max_pool);
  tc_arg(&c, ty(F32, 3, 1, 1, 4), (float[]){NAN, 1, NAN, NAN});
  TC_INTS(&c, "kernel_shape", 2);
  EXPECT(&c, ty(F32, 3, 1, 1, 3), ((float[]){1, 1, NAN}));
  /* int8 with padding: the padding never counts (a 0 would win over the negatives) */
  c = tc_op(&berth_op_def_max_pool);
  tc_arg(&c, ty(I8, 3, 1, 1, 3), (int8_t[]){-5, -7, -6});
  TC_INTS(&c, "kernel_shape", 2);
  TC_INTS(&c, "pads", 1, 1);
  EXPECT(&c, ty(I8, 3, 1, 1, 4), ((int8_t[]){-5, -5, -6, -6}));
  /* ceil mode: the third window would start past the input and is dropped */
  c = tc_op(&berth_op_def_max_pool);
  tc_arg(&c, ty(F32, 3, 1, 1, 4), (float[]){1, 2, 3, 4});
  TC_INTS(&c, "kernel_shape", 2);
  TC_INTS(&c, "strides", 2);
  TC_INTS(&c, "pads", 0, 1);
  tc_int(&c, "flags", 1);
  EXPECT(&c, ty(F32, 3, 1, 1, 2), ((float[]){2, 4}));
  /* dilation 2 with stride 2 */
  c = tc_op(&berth_op_def_max_pool);
  tc_arg(&c, ty(F32, 3, 1, 1, 6), (float[]){1, 9, 3, 8, 5, 7});
  TC_INTS(&c, "kernel_shape", 2);
  TC_INTS(&c, "strides", 2);
  TC_INTS(&c, "dilations", 2);
  EXPECT(&c, ty(F32, 3, 1, 1, 2), ((float[]){3, 5}));
  /* whole-plane windows (a chain of eight planes, then two alone): a NaN is replaced by the next
   * value, -inf included; otherwise only a greater value replaces the maximum (-0 before +0
   * stays -0) */
  c = tc_op(&berth_op_def_max_pool);
  tc_arg(&c, ty(F32, 4, 1, 10, 1, 3),
         (float[]){NAN, -INFINITY, NAN, -INFINITY, NAN, NAN, NAN,       NAN,       NAN,       -0.0f,
                   0.0f, -INFINITY, 0.0f, -0.0f,  NAN, NAN, -0.0f,     0.0f,      -INFINITY, -INFINITY,
                   -INFINITY, NAN, NAN, -INFINITY, 1,   NAN, 2,         NAN,       NAN,       5});
  TC_INTS(&c, "kernel_shape", 1, 3);
  EXPECT(&c, ty(F32, 4, 1, 10, 1, 1),
         ((float[]){-INFINITY, -INFINITY, NAN, -0.0f, 0.0f, -0.0f, -INFINITY, -INFINITY, 2, 5}));
}

/* The f32 row path of max and average pooling (kernel_pool.c) against a direct transcription
 * of ONNX's definition, on odd sizes, every kernel width and stride the row path specialises
 * (and others), padding, ceil mode, count_include_pad and row dilations, with NaNs, signed
 * zeros and ties in the data (and without NaNs, where max takes a cheaper update): the results must be bit-identical (the row path takes each
 * window's taps in the same order as the per-element walk). */
typedef struct pool_case {
  int64_t h, w, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, flags;
} pool_case_t;

/* Output size of one dim (ONNX, with ceil mode's dropped last window), or -1 if none fits. */
static int64_t naive_pool_out(int64_t in, int64_t k, int64_t s, int64_t pa, int64_t pb, int64_t d, bool ceil_mode) {
  int64_t span = in + pa + pb - (d * (k - 1) + 1);
  if (span < 0) return -1;
  int64_t o = span / s + 1;
  if (ceil_mode && span % s != 0 && o * s < in + pa) o++;
  return o;
}

/* y (oh x ow per plane, nc planes); false if some window holds no input element. */
static bool naive_pool(const pool_case_t *k, bool max, int64_t nc, const float *x, float *y, int64_t oh, int64_t ow) {
  for (int64_t c = 0; c < nc; c++)
    for (int64_t i = 0; i < oh; i++)
      for (int64_t j = 0; j < ow; j++) {
        float m = 0;
        int64_t n = 0, npad = 0;
        for (int64_t a = 0; a < k->kh; a++)
          for (int64_t b = 0; b < k->kw; b++) {
            int64_t r = i * k->sh - k->pt + a * k->dh, q = j * k->sw - k->pl + b * k->dw;
            if (r >= -k->pt && r < k->h + k->pb && q >= -k->pl && q < k->w + k->pr) npad++;
            if (r < 0 || r >= k->h || q < 0 || q >= k->w) continue;
            float v = x[(c * k->h + r) * k->w + q];
            if (!max) m += v;
            else if (n == 0 || v > m || m != m) m = v;
            n++;
          }
        if (n == 0) return false;
        y[(c * oh + i) * ow + j] = max ? m : m / (float)((k->flags & 2) ? npad : n);
      }
  return true;
}

/* nc planes of case k */
static void pool_planes_case(const pool_case_t *k, int64_t nc, bool max, bool nans, uint32_t *seed) {
  bool ceil_mode = (k->flags & 1) != 0;
  int64_t oh = naive_pool_out(k->h, k->kh, k->sh, k->pt, k->pb, k->dh, ceil_mode);
  int64_t ow = naive_pool_out(k->w, k->kw, k->sw, k->pl, k->pr, k->dw, ceil_mode);
  if (oh < 1 || ow < 1) return;
  int64_t nx = nc * k->h * k->w, ny = nc * oh * ow;
  float *x = malloc((size_t)nx * sizeof *x), *want = malloc((size_t)ny * sizeof *want);
  for (int64_t i = 0; i < nx; i++) {
    *seed = *seed * 1664525u + 1013904223u;
    uint32_t r = *seed >> 8;
    x[i] = nans && r % 23 == 0 ? NAN
           : nans && r % 29 == 0 ? -INFINITY
           : r % 11 == 0         ? -0.0f
           : r % 13 == 0         ? 0.0f
                                 : (float)((int)(r % 9) - 4) * 0.37f;
  }
  bool fits = naive_pool(k, max, nc, x, want, oh, ow);
  tcall_t c = tc_op(max ? &berth_op_def_max_pool : &berth_op_def_avg_pool);
  tc_arg(&c, ty(F32, 4, 1, nc, k->h, k->w), x);
  TC_INTS(&c, "kernel_shape", k->kh, k->kw);
  TC_INTS(&c, "strides", k->sh, k->sw);
  TC_INTS(&c, "pads", k->pt, k->pl, k->pb, k->pr);
  TC_INTS(&c, "dilations", k->dh, k->dw);
  tc_int(&c, "flags", k->flags);
  berth_type_t out;
  berth_status_t st = c.def->infer(c.attrs, c.in, c.n_in, &out, NULL);
  CHECK_MSG((st == BERTH_OK) == fits, "%s %lldx%lld k %lldx%lld s %lldx%lld: infer %d, windows fit %d",
            c.def->name, (long long)k->h, (long long)k->w, (long long)k->kh, (long long)k->kw, (long long)k->sh,
            (long long)k->sw, (int)st, (int)fits);
  /* with the planned scratch (padded rows, max's ring of rows) and without (the walk at the
   * borders) */
  for (int sc = 0; sc < 2 && st == BERTH_OK && fits; sc++) {
    c.scratch_max = sc ? 0 : -1;
    float *got = tc_run(__LINE__, &c, ty(F32, 4, 1, nc, oh, ow));
    if (got) {
      int64_t bad = -1;
      for (int64_t i = 0; i < ny && bad < 0; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0 && !(got[i] != got[i] && want[i] != want[i])) bad = i;
      CHECK_MSG(bad < 0,
                "%s %lldx%lld k %lldx%lld s %lldx%lld pads %lld %lld %lld %lld dil %lld %lld flags %lld: element %lld "
                "is %.9g, expected %.9g (%s scratch)",
                c.def->name, (long long)k->h, (long long)k->w, (long long)k->kh, (long long)k->kw, (long long)k->sh,
                (long long)k->sw, (long long)k->pt, (long long)k->pl, (long long)k->pb, (long long)k->pr,
                (long long)k->dh, (long long)k->dw, (long long)k->flags, (long long)bad, bad < 0 ? 0.0 : got[bad],
                bad < 0 ? 0.0 : want[bad], sc ? "without" : "with");
      free(got);
    }
  }
  free(x);
  free(want);
}

static void pool_row_case(const pool_case_t *k, bool max, bool nans, uint32_t *seed) {
  pool_planes_case(k, 3, max, nans, seed);
}

static void test_pool_rows_isa(void) {
  static const int64_t sizes[] = {1, 2, 3, 5, 8, 13, 18, 35};
  uint32_t seed = 12345;
  for (int mx = 0; mx < 2; mx++)
    for (size_t hi = 0; hi < sizeof sizes / sizeof *sizes; hi++)
      for (size_t wi = 0; wi < sizeof sizes / sizeof *sizes; wi++)
        for (int64_t kw = 1; kw <= 4; kw++)
          for (int64_t sw = 1; sw <= 3; sw++)
            for (int64_t v = 0; v < 6; v++) {
              pool_case_t k = {sizes[hi], sizes[wi], 1 + (kw + v) % 3, kw, 1 + v % 2, sw, 0, 0, 0, 0, 1, 1, 0};
              if (v & 1) k.pl = k.pt = kw > 1 ? kw - 1 : 0;
              if (v & 2) k.pr = kw / 2, k.pb = 1;
              if (v == 4) k.dh = 2, k.flags = 1;
              if (v == 5) k.flags = 3, k.pr = kw - 1;
              pool_row_case(&k, mx != 0, false, &seed);
              pool_row_case(&k, mx != 0, true, &seed);
            }
  /* column dilation and 1x1 windows leave the row path */
  pool_case_t k = {7, 9, 2, 3, 1, 2, 1, 1, 1, 1, 2, 2, 1};
  pool_row_case(&k, true, true, &seed);
  pool_row_case(&k, false, true, &seed);
  /* the CNNs' shapes (SqueezeNet's 3x3 stride 2 ceil mode, Inception's 3x3 stride 1 padded,
   * DenseNet's 2x2 stride 2), and wide padding (many columns take the per-element walk) */
  static const pool_case_t cnn[] = {
      {111, 111, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1}, {28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
      {28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},   {56, 56, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0},
      {3, 100, 2, 70, 1, 1, 1, 60, 0, 10, 1, 1, 0}, {3, 100, 2, 70, 1, 3, 1, 60, 0, 10, 1, 1, 3},
      /* the plane kernel (kernel_pool_ukr.h): blocks of four, two and one vectors and planes
       * narrower than a vector of each variant, stride 2 with odd pads (the deinterleaved halves
       * swap), 7x7 planes, wide kernels, tall row spans and the longest it takes */
      {112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0}, {7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
      {14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},   {9, 75, 3, 5, 2, 2, 1, 3, 2, 2, 1, 1, 1},
      {9, 150, 2, 3, 1, 2, 0, 1, 0, 2, 3, 1, 1},   {5, 70, 1, 32, 1, 2, 0, 31, 0, 30, 1, 1, 2},
      {20, 9, 4, 2, 1, 1, 3, 1, 3, 0, 5, 1, 0},    {20, 9, 3, 3, 1, 1, 2, 1, 2, 1, 7, 1, 2},
      {3, 40, 2, 33, 1, 1, 1, 16, 1, 16, 1, 1, 0}, {17, 71, 16, 4, 3, 2, 15, 2, 15, 1, 1, 1, 0},
  };
  for (size_t i = 0; i < sizeof cnn / sizeof *cnn; i++)
    for (int mx = 0; mx < 2; mx++) {
      pool_row_case(&cnn[i], mx != 0, false, &seed);
      pool_row_case(&cnn[i], mx != 0, true, &seed);
    }
  /* many planes: whole-plane windows (kernel_pool.c's chains of eight planes, and the rest one
   * by one) and small planes in the lanes (kernel_pool_ukr.h: full groups of every variant's
   * lane count, and a last group of fewer), Inception's and ShuffleNet's shapes, odd widths,
   * pads, ceil mode, count_include_pad, row dilation, column strides 1 to 3 */
  static const struct {
    pool_case_t k;
    int64_t nc;
  } many[] = {
      {{7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 1, 1, 0}, 37},      {{7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 1, 1, 0}, 16},
      {{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0}, 40},      {{13, 5, 13, 5, 1, 1, 0, 0, 0, 0, 1, 1, 3}, 19},
      {{3, 50, 3, 50, 2, 3, 0, 0, 0, 0, 1, 1, 1}, 9},     {{14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0}, 37},
      {{14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2}, 21},    {{14, 14, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1}, 35},
      {{14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0}, 17},    {{7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2}, 33},
      {{13, 13, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1}, 18},    {{27, 27, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1}, 20},
      {{9, 11, 3, 2, 2, 3, 1, 0, 2, 1, 2, 1, 3}, 23},     {{11, 9, 2, 5, 1, 2, 0, 2, 1, 2, 3, 1, 3}, 16},
      {{5, 3, 4, 3, 1, 1, 3, 2, 3, 2, 1, 1, 2}, 40},      {{28, 28, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0}, 19},
      {{6, 30, 2, 4, 1, 3, 1, 3, 1, 3, 1, 1, 3}, 17},     {{28, 28, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1}, 21},
      {{28, 28, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3}, 9},
  };
  for (size_t i = 0; i < sizeof many / sizeof *many; i++)
    for (int mx = 0; mx < 2; mx++) {
      pool_planes_case(&many[i].k, many[i].nc, mx != 0, false, &seed);
      pool_planes_case(&many[i].k, many[i].nc, mx != 0, true, &seed);
    }
  /* 3x3 stride 2 max with the rows reduced in registers (kernel_pool_ukr.h): widths around one,
   * two and four vectors of each variant (a first vector over the left pad, a last one that
   * reads its last tap alone or finds it past the row), odd and even heights, pads 0 and 1 at
   * either end, ceil mode, and the CNNs' planes; average takes the ring there */
  static const int64_t s2w[] = {8, 9, 15, 16, 17, 18, 19, 31, 32, 33, 34, 35, 36, 37, 63, 64, 65, 66, 67, 112};
  for (size_t wi = 0; wi < sizeof s2w / sizeof *s2w; wi++)
    for (int v = 0; v < 8; v++) {
      const int64_t h = 5 + (int64_t)(wi + (size_t)v) % 6;
      pool_case_t k = {h, s2w[wi], 3, 3, 2, 2, v & 1, (v >> 1) & 1, (v >> 2) & 1, (v >> 1) & 1, 1, 1, v >> 2};
      pool_planes_case(&k, 2, true, false, &seed);
      pool_planes_case(&k, 2, true, true, &seed);
      pool_planes_case(&k, 2, false, true, &seed);
    }
}

/* The row path on every kernel variant this build and CPU have (pool2d_f32 is per variant). */
static void test_pool_rows(void) {
  for (int i = BERTH_KERNELS_PORTABLE; i < BERTH_KERNELS_ISA_COUNT; i++) {
    if (!berth_kernels_available((berth_kernels_isa_t)i)) continue;
    CHECK(berth_kernels_select((berth_kernels_isa_t)i) == BERTH_OK);
    test_pool_rows_isa();
  }
  CHECK(berth_kernels_select(BERTH_KERNELS_AUTO) == BERTH_OK);
}

static void test_avg_lp_pool(void) {
  /* kernel 3, stride 2, pads 1 and 1, ceil: windows at -1, 1 and 3; the last reaches position
   * 5, past the padded input, which never counts */
  static const float x[4] = {1, 2, 3, 4};
  for (int include = 0; include < 2; include++) {
    tcall_t c = tc_op(&berth_op_def_avg_pool);
    tc_arg(&c, ty(F32, 3, 1, 1, 4), x);
    TC_INTS(&c, "kernel_shape", 3);
    TC_INTS(&c, "strides", 2);
    TC_INTS(&c, "pads", 1, 1);
    tc_int(&c, "flags", 1 | (include ? 2 : 0));
    if (include) EXPECT(&c, ty(F32, 3, 1, 1, 3), ((float[]){1, 3, 2}));
    else EXPECT(&c, ty(F32, 3, 1, 1, 3), ((float[]){1.5f, 3, 4}));
  }
  /* f64, 2-D, count_include_pad without ceil */
  tcall_t c = tc_op(&berth_op_def_avg_pool);
  tc_arg(&c, ty(F64, 4, 1, 1, 2, 2), (double[]){1, 2, 3, 4});
  TC_INTS(&c, "kernel_shape", 2, 2);
  TC_INTS(&c, "pads", 1, 1, 0, 0);
  tc_int(&c, "flags", 2);
  EXPECT(&c, ty(F64, 4, 1, 1, 2, 2), ((double[]){0.25, 0.75, 1, 2.5}));
  /* lp: p = 3 (the generic path), 1 and 2 */
  static const double ps[3] = {3, 1, 2};
  static const float want[3] = {2.080083823f, 3, 2.236067977f};
  for (int k = 0; k < 3; k++) {
    c = tc_op(&berth_op_def_lp_pool);
    tc_arg(&c, ty(F32, 3, 1, 1, 2), (float[]){1, -2});
    TC_INTS(&c, "kernel_shape", 2);
    tc_scalar(&c, "p", ps[k]);
    EXPECT_TOL(&c, ty(F32, 3, 1, 1, 1), &want[k], 1e-6);
  }
}

static void test_pool_rejects(void) {
  tcall_t c = tc_op(&berth_op_def_max_pool);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), (float[]){1, 2});
  TC_INTS(&c, "kernel_shape", 1);
  TC_INTS(&c, "pads", 1, 0);
  EXPECT_REJECT(&c, "wholly in the padding");
  TC_INTS(&c, "pads", 0, 0);
  TC_INTS(&c, "kernel_shape", 1, 1);
  EXPECT_REJECT(&c, "kernel_shape has 2 values, expected 1");
  TC_INTS(&c, "kernel_shape", 3);
  EXPECT_REJECT(&c, "spans more than the padded input");
  TC_INTS(&c, "kernel_shape", 1);
  tc_int(&c, "flags", 8);
  EXPECT_REJECT(&c, "flags is 8");
  c = tc_op(&berth_op_def_max_pool);
  tc_arg(&c, ty(F32, 2, 1, 2), (float[]){1, 2});
  TC_INTS(&c, "kernel_shape", 1);
  EXPECT_REJECT(&c, "expected 3 to 5");
  c = tc_op(&berth_op_def_avg_pool);
  tc_arg(&c, ty(I8, 3, 1, 1, 2), (int8_t[]){1, 2});
  TC_INTS(&c, "kernel_shape", 1);
  EXPECT_REJECT(&c, "expected one of f32, f64");
  c = tc_op(&berth_op_def_lp_pool);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), (float[]){1, 2});
  TC_INTS(&c, "kernel_shape", 1);
  tc_scalar(&c, "p", 0);
  EXPECT_REJECT(&c, "p is 0");
  c = tc_op(&berth_op_def_max_unpool);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), (float[]){1, 2});
  tc_arg(&c, ty(I64, 3, 1, 1, 3), (int64_t[]){0, 1, 2});
  TC_INTS(&c, "inferred", 1, 1, 4);
  TC_INTS(&c, "shape", 1, 1, 4);
  EXPECT_REJECT(&c, "do not have the shape");
  c = tc_op(&berth_op_def_max_unpool);
  tc_arg(&c, ty(F32, 3, 1, 1, 2), (float[]){1, 2});
  tc_arg(&c, ty(I64, 3, 1, 1, 2), (int64_t[]){0, 1});
  TC_INTS(&c, "inferred", 1, 1, 4);
  TC_INTS(&c, "shape", 1, 1, 3);
  EXPECT_REJECT(&c, "expected 0 <= inferred <= output");
}

/* infer reads only the def's n_attrs attributes (a program file holds no more): run with an
 * array of exactly that many, the sanitizer build catches a read past it. */
static void test_exact_attrs(void) {
  const berth_op_def_t *defs[] = {&berth_op_def_max_pool, &berth_op_def_max_pool_indices, &berth_op_def_avg_pool,
                                  &berth_op_def_lp_pool};
  for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++) {
    berth_attr_value_t full[BERTH_MAX_OP_ATTRS];
    berth_op_attrs_default(defs[k], full);
    full[0].n = 1;
    full[0].ints[0] = 2;
    berth_attr_value_t *a = malloc(sizeof *a * defs[k]->n_attrs);
    memcpy(a, full, sizeof *a * defs[k]->n_attrs);
    berth_type_t x = ty(F32, 3, 1, 1, 4), out[2];
    char msg[256];
    berth_diag_t d = berth_diag_make(msg, sizeof msg);
    CHECK_MSG(defs[k]->infer(a, &x, 1, out, &d) == BERTH_OK, "%s: %s", defs[k]->name, msg);
    free(a);
  }
}

static void test_max_unpool(void) {
  static const int64_t idx[3][2] = {{3, 0}, {1, 9}, {2, 2}};
  static const float want[3][5] = {{6, 0, 0, 5, 0}, {0, 5, 0, 0, 0}, {0, 0, 6, 0, 0}};
  for (int k = 0; k < 3; k++) { /* placed; out of range skipped; duplicates: the later wins */
    tcall_t c = tc_op(&berth_op_def_max_unpool);
    tc_arg(&c, ty(F32, 3, 1, 1, 2), (float[]){5, 6});
    tc_arg(&c, ty(I64, 3, 1, 1, 2), idx[k]);
    TC_INTS(&c, "inferred", 1, 1, 4);
    TC_INTS(&c, "shape", 1, 1, 5);
    EXPECT(&c, ty(F32, 3, 1, 1, 5), want[k]);
  }
  /* 2-D: index 3 of [2, 2] is (1, 1), at 4 in a [3, 3] output */
  tcall_t c = tc_op(&berth_op_def_max_unpool);
  tc_arg(&c, ty(F32, 4, 1, 1, 1, 1), (float[]){7});
  tc_arg(&c, ty(I64, 4, 1, 1, 1, 1), (int64_t[]){3});
  TC_INTS(&c, "inferred", 1, 1, 2, 2);
  TC_INTS(&c, "shape", 1, 1, 3, 3);
  EXPECT(&c, ty(F32, 4, 1, 1, 3, 3), ((float[]){0, 0, 0, 0, 7, 0, 0, 0, 0}));
}

static void test_max_roi_pool(void) {
  float x[16];
  for (int i = 0; i < 16; i++) x[i] = (float)i - 20; /* all negative: a bin's maximum is no 0 */
  /* rois: the whole map in 2 x 2 bins; with scale 0.5 (corners 0.5 and 2 round to 1 and 2) the
   * centre; a batch index past N; a roi hanging over the top-left corner */
  static const float rois[4][5] = {{0, 0, 0, 3, 3}, {0, 1, 1, 4, 4}, {1, 0, 0, 3, 3}, {0, -3, -3, 0, 0}};
  static const double scale[4] = {1, 0.5, 1, 1};
  static const float want[4][4] = {{-15, -13, -7, -5}, {-10}, {0, 0, 0, 0}, {-20}};
  static const int pooled[4] = {2, 1, 2, 1};
  for (int k = 0; k < 4; k++) {
    tcall_t c = tc_op(&berth_op_def_max_roi_pool);
    tc_arg(&c, ty(F32, 4, 1, 1, 4, 4), x);
    tc_arg(&c, ty(F32, 2, 1, 5), rois[k]);
    TC_INTS(&c, "pooled_shape", pooled[k], pooled[k]);
    tc_scalar(&c, "spatial_scale", scale[k]);
    EXPECT(&c, ty(F32, 4, 1, 1, pooled[k], pooled[k]), want[k]);
  }
  tcall_t c = tc_op(&berth_op_def_max_roi_pool);
  tc_arg(&c, ty(F32, 4, 1, 1, 4, 4), x);
  tc_arg(&c, ty(F32, 2, 1, 4), rois[0]);
  TC_INTS(&c, "pooled_shape", 1, 1);
  EXPECT_REJECT(&c, "expected [N, C, H, W] and [R, 5]");
}

/* ---- normalization ------------------------------------------------------------------------ */

static void test_batch_norm(void) {
  tcall_t c = tc_op(&berth_op_def_batch_norm);
  tc_arg(&c, ty(F64, 2, 2, 2), (double[]){1, 2, 3, 4});
  tc_arg(&c, ty(F64, 1, 2), (double[]){2, 1});
  tc_arg(&c, ty(F64, 1, 2), (double[]){0, 1});
  tc_arg(&c, ty(F64, 1, 2), (double[]){1, 2});
  tc_arg(&c, ty(F64, 1, 2), (double[]){3, 0});
  tc_scalar(&c, "epsilon", 1);
  EXPECT(&c, ty(F64, 2, 2, 2), ((double[]){0, 1, 2, 3}));
  c.in[4] = ty(F64, 1, 3);
  EXPECT_REJECT(&c, "expected shape f64[2]");
  c.in[4] = ty(F64, 1, 2);
  tc_scalar(&c, "epsilon", -1);
  EXPECT_REJECT(&c, "epsilon is -1");
}

static void test_layer_rms_norm(void) {
  tcall_t c = tc_op(&berth_op_def_layer_norm);
  tc_arg(&c, ty(F32, 2, 1, 2), (float[]){1, 3});
  tc_arg(&c, ty(F32, 1, 2), (float[]){1, 2});
  tc_arg(&c, ty(F32, 1, 2), (float[]){0, 1});
  tc_int(&c, "axis", 1);
  tc_scalar(&c, "epsilon", 0);
  berth_type_t t[3] = {ty(F32, 2, 1, 2), ty(F32, 2, 1, 1), ty(F32, 2, 1, 1)};
  run_multi(__LINE__, &c, 3, t, (const void *[]){(float[]){-1, 3}, (float[]){2}, (float[]){1}}, 1e-6);
  /* empty normalized dims: Mean and InvStdDev are 0 / 0 */
  c = tc_op(&berth_op_def_layer_norm);
  tc_arg(&c, ty(F32, 2, 2, 0), NULL);
  tc_arg(&c, ty(F32, 1, 0), NULL);
  berth_type_t te[3] = {ty(F32, 2, 2, 0), ty(F32, 2, 2, 1), ty(F32, 2, 2, 1)};
  run_multi(__LINE__, &c, 3, te, (const void *[]){NULL, (float[]){NAN, NAN}, (float[]){NAN, NAN}}, 0);
  c = tc_op(&berth_op_def_rms_norm);
  tc_arg(&c, ty(F32, 2, 1, 2), (float[]){3, 4});
  tc_arg(&c, ty(F32, 1, 2), (float[]){1, -1});
  tc_scalar(&c, "epsilon", 0);
  EXPECT_TOL(&c, ty(F32, 2, 1, 2), ((float[]){0.848528137f, -1.131370850f}), 1e-6);
  tc_int(&c, "axis", 0);
  EXPECT_REJECT(&c, "expected shape f32[1,2]");
  tc_int(&c, "axis", 2);
  EXPECT_REJECT(&c, "axis");
}

/* LRN's f32 path for beta 0.75 (a vector square root twice instead of powf) and
 * BatchNormalization's f32 path against double-precision transcriptions of the definitions,
 * on odd inner sizes (vector body and tail) and values across magnitudes. */
static void test_lrn_bn_f32(void) {
  enum { N = 2, C = 7, IN = 13 };
  static float x[N * C * IN], want[N * C * IN];
  static const double betas[3] = {0.75, 0.5, 1.3};
  uint32_t seed = 99;
  for (int i = 0; i < N * C * IN; i++) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (float)((double)(seed >> 8) / (1 << 24) - 0.5) * (i % 5 == 0 ? 400.0f : 3.0f);
  }
  for (int bi = 0; bi < 3; bi++) {
    const int64_t size = 5;
    const double alpha = 2e-3, bias = 0.8, beta = betas[bi];
    for (int b = 0; b < N; b++)
      for (int c = 0; c < C; c++)
        for (int i = 0; i < IN; i++) {
          double sum = 0;
          for (int cc = c - 2; cc <= c + 2; cc++)
            if (cc >= 0 && cc < C) sum += (double)x[(b * C + cc) * IN + i] * x[(b * C + cc) * IN + i];
          want[(b * C + c) * IN + i] = (float)(x[(b * C + c) * IN + i] / pow(bias + alpha / size * sum, beta));
        }
    tcall_t c = tc_op(&berth_op_def_lrn);
    tc_arg(&c, ty(F32, 3, N, C, IN), x);
    tc_int(&c, "size", size);
    tc_scalar(&c, "alpha", alpha);
    tc_scalar(&c, "beta", beta);
    tc_scalar(&c, "bias", bias);
    EXPECT_TOL(&c, ty(F32, 3, N, C, IN), want, 3e-6);
  }
  static const float sc[C] = {1, -2, 0.5f, 3, 0, 1e-3f, 7}, bs[C] = {0, 1, -1, 2, 5, -3, 0.25f};
  static const float mu[C] = {0, 0.5f, -1, 100, 2, 0, -0.125f}, va[C] = {1, 4, 0.25f, 9, 1, 1e-4f, 0};
  const double eps = 1e-5;
  for (int b = 0; b < N; b++)
    for (int c = 0; c < C; c++)
      for (int i = 0; i < IN; i++)
        want[(b * C + c) * IN + i] =
            (float)(sc[c] * ((double)x[(b * C + c) * IN + i] - mu[c]) / sqrt((double)va[c] + eps) + bs[c]);
  tcall_t c = tc_op(&berth_op_def_batch_norm);
  tc_arg(&c, ty(F32, 3, N, C, IN), x);
  tc_arg(&c, ty(F32, 1, C), sc);
  tc_arg(&c, ty(F32, 1, C), bs);
  tc_arg(&c, ty(F32, 1, C), mu);
  tc_arg(&c, ty(F32, 1, C), va);
  tc_scalar(&c, "epsilon", eps);
  EXPECT_TOL(&c, ty(F32, 3, N, C, IN), want, 2e-6);
}

static void test_group_norm_lrn(void) {
  tcall_t c = tc_op(&berth_op_def_group_norm);
  tc_arg(&c, ty(F32, 3, 1, 4, 1), (float[]){1, 3, 5, 9});
  tc_arg(&c, ty(F32, 1, 4), (float[]){1, 1, 2, 2});
  tc_arg(&c, ty(F32, 1, 4), (float[]){0, 0, 0, 1});
  tc_int(&c, "groups", 2);
  tc_scalar(&c, "epsilon", 0);
  EXPECT(&c, ty(F32, 3, 1, 4, 1), ((float[]){-1, 1, -2, 3}));
  tc_int(&c, "groups", 3);
  EXPECT_REJECT(&c, "groups is 3");
  /* size 2: the window of channel c is c..c+1 */
  c = tc_op(&berth_op_def_lrn);
  tc_arg(&c, ty(F32, 3, 1, 3, 1), (float[]){1, 2, 3});
  tc_int(&c, "size", 2);
  tc_scalar(&c, "alpha", 2);
  tc_scalar(&c, "beta", 1);
  tc_scalar(&c, "bias", 1);
  EXPECT_TOL(&c, ty(F32, 3, 1, 3, 1), ((float[]){1.0f / 6, 2.0f / 14, 3.0f / 10}), 1e-6);
  tc_int(&c, "size", 0);
  EXPECT_REJECT(&c, "size is 0");
}

/* ---- BatchNormalization through the importer ---------------------------------------------- */

static void attr_f(ob_t *b, Onnx__NodeProto *n, const char *name, float v) {
  Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
  a->has_f = 1;
  a->f = v;
}

/* Conv (weights a constant, or the graph input "w") then BatchNormalization; returns how
 * many batch_norm nodes the import kept and checks the values. */
static int bn_model(bool const_weights, int64_t training) {
  ob_t b;
  ob_init(&b);
  Onnx__GraphProto *g = ob_graph(&b, "bn");
  ob_input(&b, g, "x", ONNX_F, "1,1,3");
  if (const_weights) ob_init_tensor(&b, g, "w", ONNX_F, "2,1,1", "2,3");
  else ob_input(&b, g, "w", ONNX_F, "2,1,1");
  ob_init_tensor(&b, g, "cb", ONNX_F, "2", "1,-1");
  ob_init_tensor(&b, g, "s", ONNX_F, "2", "1,2");
  ob_init_tensor(&b, g, "bb", ONNX_F, "2", "0.5,0");
  ob_init_tensor(&b, g, "m", ONNX_F, "2", "1,0");
  ob_init_tensor(&b, g, "v", ONNX_F, "2", "3,0");
  ob_node(&b, g, "Conv", "x,w,cb", "c");
  Onnx__NodeProto *n = ob_node(&b, g, "BatchNormalization", "c,s,bb,m,v", "y");
  attr_f(&b, n, "epsilon", 1);
  if (training >= 0) ob_attr_i(&b, n, "training_mode", training);
  ob_output(&b, g, "y", ONNX_F, "1,2,3");
  size_t len;
  uint8_t *bytes = ob_model(&b, g, 15, &len);
  char msg[2048];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  berth_onnx_options_t opt = berth_onnx_options_default();
  berth_status_t st = berth_onnx_import(bytes, len, &opt, &p, NULL, &diag);
  ob_deinit(&b);
  if (training == 1) {
    CHECK_MSG(st == BERTH_ERR_UNIMPLEMENTED && strstr(msg, "training_mode is 1"), "training: %s", msg);
    berth_ir_program_destroy(p);
    return -1;
  }
  CHECK_MSG(st == BERTH_OK, "import: %s", msg);
  if (st) return -1;
  int kept = 0, convs = 0;
  for (int32_t k = 0; k < p->methods[0].n_nodes; k++) {
    kept += p->methods[0].nodes[k].op == BERTH_OP_BATCH_NORM;
    convs += p->methods[0].nodes[k].op == BERTH_OP_CONV;
  }
  CHECK_MSG(convs == 1, "%d conv nodes after the import, expected 1 (the unfolded one dropped)", convs);
  berth_plan_options_t popt = berth_plan_options_default();
  berth_compiled_t *c = NULL;
  berth_session_t *s = NULL;
  void *outs[4] = {0};
  static const float x[3] = {1, 2, 3}, w[2] = {2, 3}, want[6] = {1.5f, 2.5f, 3.5f, 4, 10, 16};
  const void *ins[2] = {x, w};
  st = berth_plan_compile(p, &popt, &c, &diag);
  if (!st) st = berth_session_create(&c->exec, true, &s, &diag);
  if (!st) st = berth_session_call(s, 0, ins, outs, &diag);
  CHECK_MSG(st == BERTH_OK, "run: %s", msg);
  for (int i = 0; !st && i < 6; i++)
    CHECK_MSG(fabsf(((float *)outs[0])[i] - want[i]) <= 1e-6f, "y[%d] = %g, expected %g", i, ((float *)outs[0])[i],
              want[i]);
  free(outs[0]);
  berth_session_destroy(s);
  berth_compiled_destroy(c);
  berth_ir_program_destroy(p);
  return kept;
}

static void test_batch_norm_fold(void) {
  CHECK_MSG(bn_model(true, -1) == 0, "BatchNormalization after a constant Conv was not folded");
  CHECK_MSG(bn_model(true, 0) == 0, "BatchNormalization (training_mode 0) after a constant Conv was not folded");
  CHECK_MSG(bn_model(false, -1) == 1, "BatchNormalization after a Conv with runtime weights was folded");
  bn_model(true, 1);
}

int main(void) {
  test_max_pool_indices();
  test_max_pool_values();
  test_pool_rows();
  test_avg_lp_pool();
  test_pool_rejects();
  test_exact_attrs();
  test_max_unpool();
  test_max_roi_pool();
  test_batch_norm();
  test_layer_rms_norm();
  test_group_norm_lrn();
  test_lrn_bn_f32();
  test_batch_norm_fold();
  return test_finish("test_kernel_pool_norm");
}
