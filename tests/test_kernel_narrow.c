/* narrow_cast: values rounded to float16, bfloat16, the float8 types, float4e2m1,
 * float8e8m0 and wrapped to 4- and 2-bit integers, checked against known bit patterns
 * (ties to even, the largest finite values, overflow, subnormals, NaN, -0), sources of
 * every kind (f64 and i64 without double rounding), the f32 bit-level paths against the
 * generic one on random and boundary inputs, idempotence, and infer's rejections. */
#include "kernels/kernel_narrow.h"
#include "test_kernel_util.h"

#include <float.h>

#define F32 BERTH_DTYPE_F32
#define F64 BERTH_DTYPE_F64

static uint32_t f32_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

static float bits_f32(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}

/* Runs narrow_cast on n values of dtype dt; returns the malloc'd result. */
static void *narrow(int line, berth_narrow_format_t f, int saturate, berth_narrow_round_t rm, berth_dtype_t dt,
                    const void *x, int n) {
  tcall_t c = tc_op(&berth_op_def_narrow_cast);
  tc_int(&c, "format", f);
  tc_int(&c, "saturate", saturate);
  tc_int(&c, "round_mode", rm);
  tc_arg(&c, ty(dt, 1, n), x);
  return tc_run(line, &c, ty(berth_narrow_dtype(f), 1, n));
}

/* The f32 results must be exactly want, bit for bit (so -0 is not 0); any NaN matches NaN. */
static void expect_bits(int line, berth_narrow_format_t f, int saturate, berth_narrow_round_t rm, berth_dtype_t dt,
                        const void *x, const float *want, int n) {
  float *got = narrow(line, f, saturate, rm, dt, x, n);
  if (!got) return;
  for (int i = 0; i < n; i++) {
    bool ok = (isnan(got[i]) && isnan(want[i])) || f32_bits(got[i]) == f32_bits(want[i]);
    CHECK_MSG(ok, "line %d: format %d element %d: got %a, expected %a", line, (int)f, i, got[i], want[i]);
  }
  free(got);
}

#define EXPECT_F32(f, sat, x, ...)                                                                 \
  expect_bits(__LINE__, f, sat, BERTH_NARROW_ROUND_UP, F32, x, (const float[]){__VA_ARGS__},      \
              (int)(sizeof((const float[]){__VA_ARGS__}) / sizeof(float)))

static void test_float16(void) {
  /* ties to even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 (odd mantissa) */
  static const float x[] = {1.0f + 0x1p-11f,         1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-11f + 0x1p-20f,
                            65504.0f,                65519.0f,            65520.0f,
                            -65520.0f,               1e10f,               0x1p-24f,
                            0x1p-25f,                0x1p-25f * 1.0001f,  3 * 0x1p-25f,
                            1023.5f * 0x1p-24f,      0x1p-14f - 0x1p-30f, 0.1f,
                            -0.0f,                   INFINITY,            -INFINITY,
                            NAN,                     1e-45f,              -3 * 0x1p-26f,
                            2049.0f,                 2051.0f,             -1.0f - 0x1p-11f};
  EXPECT_F32(BERTH_NARROW_F16, 1, x, 1.0f, 1.0f + 0x1p-9f, 1.0f + 0x1p-10f, 65504.0f, 65504.0f, INFINITY, -INFINITY,
             INFINITY, 0x1p-24f, 0.0f, 0x1p-24f, 0x1p-23f, 0x1p-14f, 0x1p-14f, 0.0999755859375f, -0.0f, INFINITY,
             -INFINITY, NAN, 0.0f, -0x1p-24f, 2048.0f, 2052.0f, -1.0f);
  /* saturate does not apply to float16: overflow is inf either way */
  EXPECT_F32(BERTH_NARROW_F16, 0, (const float[]){65520.0f}, INFINITY);
  /* a signaling NaN (payload in the low bits only) stays NaN */
  float snan = bits_f32(0x7f800001u);
  EXPECT_F32(BERTH_NARROW_F16, 1, &snan, NAN);
}

static void test_bfloat16(void) {
  static const uint32_t xb[] = {0x3f808000u, 0x3f818000u, 0x3f808001u, 0x7f7fffffu, 0x7f7f7fffu, 0x7f800001u,
                                0x3dcccccdu, 0x00008000u, 0x00018000u, 0x80000000u, 0xff7f8000u};
  float x[sizeof xb / sizeof xb[0]];
  for (size_t i = 0; i < sizeof xb / sizeof xb[0]; i++) x[i] = bits_f32(xb[i]);
  EXPECT_F32(BERTH_NARROW_BF16, 1, x, 1.0f, bits_f32(0x3f820000u), bits_f32(0x3f810000u), INFINITY,
             bits_f32(0x7f7f0000u), NAN, 0.10009765625f, 0.0f, bits_f32(0x00020000u), -0.0f, -INFINITY);
}

/* Sources other than f32 round once, from the exact value. */
static void test_sources(void) {
  /* f64: 1 + 2^-11 + 2^-40 is above the tie; through f32 it would become the tie and round down */
  double d[] = {1.0 + 0x1p-11 + 0x1p-40, 65519.99, 1e300, -1e-300};
  expect_bits(__LINE__, BERTH_NARROW_F16, 1, BERTH_NARROW_ROUND_UP, F64, d,
              (const float[]){1.0f + 0x1p-10f, 65504.0f, INFINITY, -0.0f}, 4);
  /* i64: 2^60 + 2^52 + 1 is above the bfloat16 tie 2^60 + 2^52; through a double it is the tie */
  int64_t i[] = {((int64_t)1 << 60) + ((int64_t)1 << 52) + 1, ((int64_t)1 << 60) + ((int64_t)1 << 52), -3, INT64_MIN};
  expect_bits(__LINE__, BERTH_NARROW_BF16, 1, BERTH_NARROW_ROUND_UP, BERTH_DTYPE_I64, i,
              (const float[]){0x1p60f + 0x1p53f, 0x1p60f, -3.0f, -0x1p63f}, 4);
  uint64_t u[] = {UINT64_MAX, 65519, 65520};
  expect_bits(__LINE__, BERTH_NARROW_F16, 1, BERTH_NARROW_ROUND_UP, BERTH_DTYPE_U64, u,
              (const float[]){INFINITY, 65504.0f, INFINITY}, 3);
  uint8_t b[] = {0, 1, 7};
  expect_bits(__LINE__, BERTH_NARROW_F8E4M3FN, 1, BERTH_NARROW_ROUND_UP, BERTH_DTYPE_BOOL, b,
              (const float[]){0.0f, 1.0f, 1.0f}, 3);
  int32_t i32[] = {17, -17, 1000};
  expect_bits(__LINE__, BERTH_NARROW_F8E5M2, 1, BERTH_NARROW_ROUND_UP, BERTH_DTYPE_I32, i32,
              (const float[]){16.0f, -16.0f, 1024.0f}, 3);
}

static void test_float8(void) {
  /* e4m3fn: largest 448, spacing 32 there; 464 ties to 448 (even); 480 would be the NaN code */
  static const float a[] = {448, 464, 465, 480, 1000, INFINITY, -INFINITY, 0.001f, -0.0f, NAN, 0x1p-10f, 3 * 0x1p-10f};
  EXPECT_F32(BERTH_NARROW_F8E4M3FN, 1, a, 448, 448, 448, 448, 448, 448, -448, 0x1p-9f, -0.0f, NAN, 0.0f, 0x1p-8f);
  EXPECT_F32(BERTH_NARROW_F8E4M3FN, 0, a, 448, 448, NAN, NAN, NAN, NAN, NAN, 0x1p-9f, -0.0f, NAN, 0.0f, 0x1p-8f);
  /* e4m3fnuz: largest 240, no -0 (it is the NaN code) */
  static const float b[] = {240, 247, 248, 1000, -0.0f, -0x1p-12f, INFINITY, 0.3f};
  EXPECT_F32(BERTH_NARROW_F8E4M3FNUZ, 1, b, 240, 240, 240, 240, 0.0f, 0.0f, 240, 0.3125f);
  EXPECT_F32(BERTH_NARROW_F8E4M3FNUZ, 0, b, 240, 240, NAN, NAN, 0.0f, 0.0f, NAN, 0.3125f);
  /* e5m2: largest 57344, spacing 8192 there, with inf */
  static const float c[] = {57344, 61439, 61440, INFINITY, -1e6f, 0.3f, 0x1p-16f, 0x1p-17f};
  EXPECT_F32(BERTH_NARROW_F8E5M2, 1, c, 57344, 57344, 57344, 57344, -57344, 0.3125f, 0x1p-16f, 0.0f);
  EXPECT_F32(BERTH_NARROW_F8E5M2, 0, c, 57344, 57344, INFINITY, INFINITY, -INFINITY, 0.3125f, 0x1p-16f, 0.0f);
  /* e5m2fnuz: largest 57344, no inf, no -0 */
  static const float d[] = {57344, 61440, -INFINITY, -0.0f, 0x1p-17f};
  EXPECT_F32(BERTH_NARROW_F8E5M2FNUZ, 1, d, 57344, 57344, -57344, 0.0f, 0x1p-17f);
  EXPECT_F32(BERTH_NARROW_F8E5M2FNUZ, 0, d, 57344, NAN, NAN, 0.0f, 0x1p-17f);
  /* float4e2m1: 0, 0.5, 1, 1.5, 2, 3, 4, 6; no inf, no NaN (NaN gives -0) */
  static const float e[] = {5, 7, 100, NAN, 0.25f, 0.75f, INFINITY, -2.5f, -0.0f};
  EXPECT_F32(BERTH_NARROW_F4E2M1, 1, e, 4, 6, 6, -0.0f, 0.0f, 1, 6, -2, -0.0f);
  EXPECT_F32(BERTH_NARROW_F4E2M1, 0, e, 4, 6, 6, -0.0f, 0.0f, 1, 6, -2, -0.0f);
}

static void test_e8m0(void) {
  static const float x[] = {3, 2.9f, 2, 0, -4, 0x1p-130f, 0x1p127f * 1.5f, INFINITY, NAN};
  expect_bits(__LINE__, BERTH_NARROW_F8E8M0, 1, BERTH_NARROW_ROUND_UP, F32, x,
              (const float[]){4, 4, 2, 0x1p-127f, 4, 0x1p-127f, 0x1p127f, 0x1p127f, NAN}, 9);
  expect_bits(__LINE__, BERTH_NARROW_F8E8M0, 1, BERTH_NARROW_ROUND_DOWN, F32, x,
              (const float[]){2, 2, 2, 0x1p-127f, 4, 0x1p-127f, 0x1p127f, 0x1p127f, NAN}, 9);
  expect_bits(__LINE__, BERTH_NARROW_F8E8M0, 1, BERTH_NARROW_ROUND_NEAREST, F32, x,
              (const float[]){4, 2, 2, 0x1p-127f, 4, 0x1p-127f, 0x1p127f, 0x1p127f, NAN}, 9);
  expect_bits(__LINE__, BERTH_NARROW_F8E8M0, 0, BERTH_NARROW_ROUND_UP, F32, x,
              (const float[]){4, 4, 2, 0x1p-127f, 4, 0x1p-127f, NAN, NAN, NAN}, 9);
}

static void test_ints(void) {
  /* floats round half to even, then the integer wraps modulo 2^bits (ONNX's int4 Cast) */
  static const float x[] = {7.5f, 8.5f, -9, 300.7f, NAN, 2.5f, -8.5f, 100, 1e30f, -0.5f};
  tcall_t c = tc_op(&berth_op_def_narrow_cast);
  tc_int(&c, "format", BERTH_NARROW_I4);
  tc_arg(&c, ty(F32, 1, 10), x);
  EXPECT(&c, ty(BERTH_DTYPE_I8, 1, 10), ((int8_t[]){-8, -8, 7, -3, 0, 2, -8, 4, -1, 0}));
  tc_int(&c, "format", BERTH_NARROW_U4);
  EXPECT(&c, ty(BERTH_DTYPE_U8, 1, 10), ((uint8_t[]){8, 8, 7, 13, 0, 2, 8, 4, 15, 0}));
  tc_int(&c, "format", BERTH_NARROW_I2);
  EXPECT(&c, ty(BERTH_DTYPE_I8, 1, 10), ((int8_t[]){0, 0, -1, 1, 0, -2, 0, 0, -1, 0}));
  tc_int(&c, "format", BERTH_NARROW_U2);
  EXPECT(&c, ty(BERTH_DTYPE_U8, 1, 10), ((uint8_t[]){0, 0, 3, 1, 0, 2, 0, 0, 3, 0}));
  static const int64_t i[] = {-9, 16, INT64_MIN, 7};
  tcall_t d = tc_op(&berth_op_def_narrow_cast);
  tc_int(&d, "format", BERTH_NARROW_I4);
  tc_arg(&d, ty(BERTH_DTYPE_I64, 1, 4), i);
  EXPECT(&d, ty(BERTH_DTYPE_I8, 1, 4), ((int8_t[]){7, 0, 0, 7}));
  static const uint8_t b[] = {0, 1, 2};
  tcall_t e = tc_op(&berth_op_def_narrow_cast);
  tc_int(&e, "format", BERTH_NARROW_U2);
  tc_arg(&e, ty(BERTH_DTYPE_BOOL, 1, 3), b);
  EXPECT(&e, ty(BERTH_DTYPE_U8, 1, 3), ((uint8_t[]){0, 1, 1}));
  /* an empty tensor */
  tcall_t z = tc_op(&berth_op_def_narrow_cast);
  tc_int(&z, "format", BERTH_NARROW_I4);
  tc_arg(&z, ty(F32, 2, 0, 3), NULL);
  EXPECT(&z, ty(BERTH_DTYPE_I8, 2, 0, 3), NULL);
}

static uint64_t rng_state;
static uint32_t rng(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 32);
}

/* The f32 bit-level paths (float16, bfloat16) against the generic rounding (taken for f64
 * sources) on every f32 near the formats' boundaries and on random bit patterns; then every
 * format rounds its own results to themselves. */
static void test_paths_agree(uint64_t seed) {
  enum { N = 1 << 19 };
  float *x = malloc(sizeof(float) * N);
  double *xd = malloc(sizeof(double) * N);
  rng_state = seed;
  int n = 0;
  /* every sign, exponent and top 7 mantissa bits, with low halves at the float16 ties (even
   * and odd last bit), the bfloat16 tie, and a random one; then random bit patterns */
  for (uint32_t hi = 0; hi < 0x10000; hi++) {
    x[n++] = bits_f32((hi << 16) | 0x1000);
    x[n++] = bits_f32((hi << 16) | 0x3000);
    x[n++] = bits_f32((hi << 16) | 0x8000);
    x[n++] = bits_f32((hi << 16) | (rng() & 0xffff));
  }
  while (n < N) x[n++] = bits_f32(rng());
  for (int i = 0; i < N; i++) xd[i] = x[i];
  for (int f = 0; f < BERTH_NARROW_FORMAT_COUNT; f++) {
    for (int sat = 0; sat <= 1; sat++) {
      void *a = narrow(__LINE__, (berth_narrow_format_t)f, sat, BERTH_NARROW_ROUND_NEAREST, F32, x, N);
      void *b = narrow(__LINE__, (berth_narrow_format_t)f, sat, BERTH_NARROW_ROUND_NEAREST, F64, xd, N);
      if (!a || !b) {
        free(a);
        free(b);
        continue;
      }
      berth_dtype_t dt = berth_narrow_dtype((berth_narrow_format_t)f);
      void *again = narrow(__LINE__, (berth_narrow_format_t)f, sat, BERTH_NARROW_ROUND_NEAREST, dt, a, N);
      int bad = -1, bad_again = -1;
      for (int i = 0; i < N && (bad < 0 || bad_again < 0); i++) {
        if (dt == F32) {
          float p = ((float *)a)[i], q = ((float *)b)[i];
          if (bad < 0 && !(isnan(p) && isnan(q)) && f32_bits(p) != f32_bits(q)) bad = i;
          float r = again ? ((float *)again)[i] : p;
          if (bad_again < 0 && !(isnan(p) && isnan(r)) && f32_bits(p) != f32_bits(r)) bad_again = i;
        } else {
          uint8_t p = ((uint8_t *)a)[i], q = ((uint8_t *)b)[i], r = again ? ((uint8_t *)again)[i] : p;
          if (bad < 0 && p != q) bad = i;
          if (bad_again < 0 && p != r) bad_again = i;
        }
      }
      CHECK_MSG(bad < 0, "format %d saturate %d: f32 and f64 sources differ at %a (seed %llu)", f, sat,
                bad < 0 ? 0.0 : (double)x[bad], (unsigned long long)seed);
      CHECK_MSG(bad_again < 0, "format %d saturate %d: rounding %a twice differs from once (seed %llu)", f, sat,
                bad_again < 0 ? 0.0 : (double)x[bad_again], (unsigned long long)seed);
      free(a);
      free(b);
      free(again);
    }
  }
  free(x);
  free(xd);
}

/* Every float16 value converts to itself, and the midpoint between neighbours to the even
 * one: all 63488 finite codes. */
static void test_f16_exhaustive(void) {
  enum { N = 0x7c00 };
  float *v = malloc(sizeof(float) * N), *mid = malloc(sizeof(float) * (N - 1)), *want = malloc(sizeof(float) * (N - 1));
  for (uint32_t h = 0; h < N; h++) v[h] = h < 0x400 ? (float)h * 0x1p-24f : ldexpf(1.0f + (float)(h & 0x3ff) / 1024.0f, (int)(h >> 10) - 15);
  for (uint32_t h = 0; h + 1 < N; h++) {
    mid[h] = (v[h] + v[h + 1]) / 2; /* exact in f32 */
    want[h] = (h & 1) ? v[h + 1] : v[h];
  }
  float *got = narrow(__LINE__, BERTH_NARROW_F16, 1, BERTH_NARROW_ROUND_UP, F32, v, N);
  int bad = -1;
  for (int i = 0; got && i < N && bad < 0; i++)
    if (got[i] != v[i]) bad = i;
  CHECK_MSG(bad < 0, "float16 code %#x (%a) does not convert to itself", bad, bad < 0 ? 0.0 : (double)v[bad]);
  free(got);
  got = narrow(__LINE__, BERTH_NARROW_F16, 1, BERTH_NARROW_ROUND_UP, F32, mid, N - 1);
  bad = -1;
  for (int i = 0; got && i < N - 1 && bad < 0; i++)
    if (got[i] != want[i]) bad = i;
  CHECK_MSG(bad < 0, "the midpoint after float16 code %#x (%a) rounds to %a", bad, bad < 0 ? 0.0 : (double)mid[bad],
            bad < 0 || !got ? 0.0 : (double)got[bad]);
  free(got);
  free(v);
  free(mid);
  free(want);
}

static void test_infer(void) {
  static const float two[2] = {1, 2};
  tcall_t c = tc_op(&berth_op_def_narrow_cast);
  tc_arg(&c, ty(BERTH_DTYPE_I32, 2, 1, 2), (int32_t[]){1, 2});
  tc_int(&c, "format", BERTH_NARROW_BF16);
  EXPECT(&c, ty(F32, 2, 1, 2), two);
  tc_int(&c, "format", BERTH_NARROW_FORMAT_COUNT);
  EXPECT_REJECT(&c, "format 12 is out of range");
  tc_int(&c, "format", -1);
  EXPECT_REJECT(&c, "format -1 is out of range");
  tc_int(&c, "format", BERTH_NARROW_F16);
  tc_int(&c, "saturate", 2);
  EXPECT_REJECT(&c, "saturate is 2, expected 0 or 1");
  tc_int(&c, "saturate", 1);
  tc_int(&c, "round_mode", 3);
  EXPECT_REJECT(&c, "round_mode 3 is out of range");
  tcall_t none = tc_op(&berth_op_def_narrow_cast);
  EXPECT_REJECT(&none, "operands, expected");
  tcall_t two_in = tc_op(&berth_op_def_narrow_cast);
  tc_arg(&two_in, ty(F32, 1, 2), two);
  tc_arg(&two_in, ty(F32, 1, 2), two);
  EXPECT_REJECT(&two_in, "operands, expected");
  CHECK(berth_op_find("narrow_cast", 11) == BERTH_OP_NARROW_CAST);
  CHECK(berth_op_def_narrow_cast.attrs[0].required);
}

int main(int argc, char **argv) {
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 20240601u;
  test_float16();
  test_bfloat16();
  test_sources();
  test_float8();
  test_e8m0();
  test_ints();
  test_paths_agree(seed);
  test_f16_exhaustive();
  test_infer();
  return test_finish("test_kernel_narrow");
}
