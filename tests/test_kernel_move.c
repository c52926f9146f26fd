/* Tests of the block copies (kernels/kernel_move.c) and of the ops that use them (transpose,
 * expand, pad in every mode, and ONNX Tile's single expand): every path bit for bit against a
 * plain loop over indices, for elements of 1, 2, 4, 8 (and 16) bytes, odd sizes, sizes below,
 * at and above the register block (4) and the cache tile (32), every rank up to 6, and empty
 * tensors. Data are random bytes (NaN patterns, -0, denormals included), so a path that
 * moved values through float arithmetic would fail. Random cases use a fixed seed, printed
 * with each failure. */
#include "kernels/kernel_move.h"
#include "test_kernel_util.h"

#define SEED 0x6d6f7665u /* "move" */

static uint32_t rng_state = SEED;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

static void fill_random(unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)rnd();
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) abort();
  return p;
}

/* ---- berth_kernel_transpose_2d ---------------------------------------------------------- */

/* With leading dimensions larger than the block (ldo = cols + 3, ldi = rows + 5): the gaps must
 * stay as they were. */
static void check_transpose_2d(int64_t rows, int64_t cols, size_t es) {
  const int64_t ldo = cols + 3, ldi = rows + 5;
  const size_t in_bytes = (size_t)(cols * ldi) * es + es, out_bytes = (size_t)(rows * ldo) * es + es;
  unsigned char *in = xmalloc(in_bytes), *got = xmalloc(out_bytes), *want = xmalloc(out_bytes);
  fill_random(in, in_bytes);
  fill_random(got, out_bytes);
  memcpy(want, got, out_bytes);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) memcpy(want + (size_t)(r * ldo + c) * es, in + (size_t)(c * ldi + r) * es, es);
  berth_kernel_transpose_2d(got, ldo, in, ldi, rows, cols, es);
  CHECK_MSG(memcmp(got, want, out_bytes) == 0, "transpose_2d %lld x %lld of %zu-byte elements differs (seed %#x)",
            (long long)rows, (long long)cols, es, SEED);
  free(in), free(got), free(want);
}

static void test_transpose_2d(void) {
  static const int64_t sides[] = {0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 37, 64, 70};
  static const size_t sizes[] = {1, 2, 4, 8, 16};
  const int ns = (int)(sizeof sides / sizeof sides[0]);
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
    for (int a = 0; a < ns; a++)
      for (int b = 0; b < ns; b++) check_transpose_2d(sides[a], sides[b], sizes[z]);
}

/* ---- berth_kernel_fill -------------------------------------------------------------------- */

static void test_fill(void) {
  static const size_t sizes[] = {1, 2, 4, 8, 16};
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    const size_t es = sizes[z];
    for (int64_t n = 0; n <= 41; n++) {
      const size_t bytes = (size_t)(n + 2) * es;
      unsigned char value[16], *got = xmalloc(bytes), *want = xmalloc(bytes);
      fill_random(value, sizeof value);
      fill_random(got, bytes);
      memcpy(want, got, bytes);
      for (int64_t j = 0; j < n; j++) memcpy(want + (size_t)(j + 1) * es, value, es);
      berth_kernel_fill(got + es, value, n, es);
      CHECK_MSG(memcmp(got, want, bytes) == 0, "fill of %lld %zu-byte elements differs", (long long)n, es);
      free(got), free(want);
    }
  }
  unsigned char v = 7, guard = 9; /* n <= 0 writes nothing */
  berth_kernel_fill(&guard, &v, 0, 1);
  berth_kernel_fill(&guard, &v, -3, 1);
  CHECK(guard == 9);
}

/* ---- strided views: permute and expand ------------------------------------------------- */

typedef struct view_case {
  int32_t rank;
  int64_t dims[BERTH_MAX_RANK], strides[BERTH_MAX_RANK], base;
  int64_t in_numel; /* elements the input must hold */
} view_case_t;

typedef void (*view_fn)(void *out, const void *in, size_t esize, int32_t rank, const int64_t *dims,
                        const int64_t *strides, int64_t base);

/* Runs fn on the view and compares with out[i] = in[base + sum i_k strides_k] written as an
 * index loop; the output buffer has a guard element after it. */
static void check_view(const char *what, view_fn fn, const view_case_t *v, size_t es) {
  int64_t n = 1;
  for (int32_t k = 0; k < v->rank; k++) n *= v->dims[k];
  const size_t in_bytes = (size_t)v->in_numel * es, out_bytes = (size_t)(n + 1) * es;
  unsigned char *in = xmalloc(in_bytes), *got = xmalloc(out_bytes), *want = xmalloc(out_bytes);
  fill_random(in, in_bytes);
  fill_random(got, out_bytes);
  memcpy(want, got, out_bytes);
  int64_t idx[BERTH_MAX_RANK] = {0};
  for (int64_t i = 0; i < n; i++) {
    int64_t off = v->base;
    for (int32_t k = 0; k < v->rank; k++) off += idx[k] * v->strides[k];
    memcpy(want + (size_t)i * es, in + (size_t)off * es, es);
    for (int32_t k = v->rank - 1; k >= 0; k--) {
      if (++idx[k] < v->dims[k]) break;
      idx[k] = 0;
    }
  }
  fn(got, in, es, v->rank, v->dims, v->strides, v->base);
  char shape[160];
  int at = 0;
  for (int32_t k = 0; k < v->rank && at < 140; k++)
    at += snprintf(shape + at, sizeof shape - (size_t)at, "%s%lld:%lld", k ? " " : "", (long long)v->dims[k],
                   (long long)v->strides[k]);
  shape[at] = 0;
  CHECK_MSG(memcmp(got, want, out_bytes) == 0,
            "%s of dims:strides [%s] base %lld, %zu-byte elements differs (seed %#x)", what, shape,
            (long long)v->base, es, SEED);
  free(in), free(got), free(want);
}

/* The view transpose(perm) makes of a row-major tensor of dims x (what kernel_shape.c builds). */
static view_case_t permuted(int32_t rank, const int64_t *x, const int32_t *perm) {
  view_case_t v = {rank, {0}, {0}, 0, 1};
  int64_t s[BERTH_MAX_RANK];
  for (int32_t k = rank - 1; k >= 0; k--) {
    s[k] = v.in_numel;
    v.in_numel *= x[k];
  }
  for (int32_t k = 0; k < rank; k++) {
    v.dims[k] = x[perm[k]];
    v.strides[k] = s[perm[k]];
  }
  return v;
}

static void check_permute_all_sizes(const view_case_t *v) {
  static const size_t sizes[] = {1, 2, 4, 8, 16};
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) check_view("permute", berth_kernel_permute, v, sizes[z]);
}

static void test_permute(void) {
  /* the shapes of the one-op benchmark rows: NCHW to NHWC, 0213, SpaceToDepth and
   * DepthToSpace's 6-D transposes */
  static const int64_t nchw[4] = {1, 64, 56, 56}, bhd[4] = {1, 197, 12, 64};
  static const int32_t p0231[4] = {0, 2, 3, 1}, p0213[4] = {0, 2, 1, 3}, p0312[4] = {0, 3, 1, 2};
  view_case_t a = permuted(4, nchw, p0231), b = permuted(4, bhd, p0213), c = permuted(4, nchw, p0312);
  check_permute_all_sizes(&a);
  check_permute_all_sizes(&b);
  check_permute_all_sizes(&c);
  static const int64_t s2d[6] = {1, 16, 14, 2, 14, 2}, d2s[6] = {1, 2, 2, 16, 14, 14};
  static const int32_t ps2d[6] = {0, 3, 5, 1, 2, 4}, pd2s[6] = {0, 3, 4, 1, 5, 2};
  view_case_t e = permuted(6, s2d, ps2d), f = permuted(6, d2s, pd2s);
  check_permute_all_sizes(&e);
  check_permute_all_sizes(&f);
  /* random ranks 1..6, dims 0..9 (mostly >= 1), random permutations */
  for (int t = 0; t < 400; t++) {
    int32_t rank = 1 + (int32_t)(rnd() % 6), perm[BERTH_MAX_RANK];
    int64_t x[BERTH_MAX_RANK];
    for (int32_t k = 0; k < rank; k++) {
      x[k] = rnd() % 16 == 0 ? 0 : 1 + (int64_t)(rnd() % (rank <= 3 ? 40 : 9));
      perm[k] = k;
    }
    for (int32_t k = rank - 1; k > 0; k--) {
      int32_t j = (int32_t)(rnd() % (uint32_t)(k + 1)), tmp = perm[k];
      perm[k] = perm[j];
      perm[j] = tmp;
    }
    view_case_t v = permuted(rank, x, perm);
    check_view("permute", berth_kernel_permute, &v, (size_t)1 << (rnd() % 4));
  }
  view_case_t scalar = {0, {0}, {0}, 0, 1};
  check_permute_all_sizes(&scalar);
}

/* The view expand makes: x of rank rank, each axis kept or broadcast from 1 to dims[k]. */
static void test_expand(void) {
  /* Tile 1x64x28x28 by 1,1,2,2 as the importer's single expand: [64, 2, 28, 2, 28] */
  view_case_t tile = {5, {64, 2, 28, 2, 28}, {784, 0, 28, 0, 1}, 0, 64 * 784};
  view_case_t bcast_last = {3, {5, 7, 33}, {7, 1, 0}, 0, 35};
  view_case_t all_bcast = {3, {3, 4, 5}, {0, 0, 0}, 2, 3};
  view_case_t strided_row = {2, {6, 9}, {0, 3}, 1, 27};
  view_case_t cases[4] = {tile, bcast_last, all_bcast, strided_row};
  static const size_t sizes[] = {1, 2, 4, 8, 16};
  for (int c = 0; c < 4; c++)
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
      check_view("expand", berth_kernel_expand, &cases[c], sizes[z]);
  for (int t = 0; t < 400; t++) {
    view_case_t v = {1 + (int32_t)(rnd() % 6), {0}, {0}, 0, 1};
    for (int32_t k = v.rank - 1; k >= 0; k--) {
      v.dims[k] = rnd() % 20 == 0 ? 0 : 1 + (int64_t)(rnd() % 7);
      bool broadcast = rnd() % 2 == 0;
      v.strides[k] = broadcast ? 0 : v.in_numel;
      if (!broadcast) v.in_numel *= v.dims[k];
    }
    check_view("expand", berth_kernel_expand, &v, (size_t)1 << (rnd() % 4));
  }
  view_case_t scalar = {0, {0}, {0}, 3, 4};
  check_view("expand", berth_kernel_expand, &scalar, 8);
}

/* ---- pad: every mode, against a loop over the ONNX (numpy) definitions ---------------------- */

enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP };

/* The source index along one axis for output index o: the kept range after cropping is
 * [start, start + len), written after the left pad; -1 for the constant. */
static int64_t ref_pad_index(int mode, int64_t o, int64_t d, int64_t b, int64_t e) {
  const int64_t start = b < 0 ? -b : 0, len = d + (b < 0 ? b : 0) + (e < 0 ? e : 0);
  int64_t u = o - (b > 0 ? b : 0);
  if (u >= 0 && u < len) return start + u;
  if (mode == PAD_CONSTANT) return -1;
  if (mode == PAD_EDGE) return start + (u < 0 ? 0 : len - 1);
  if (mode == PAD_WRAP) return start + ((u % len) + len) % len;
  if (len == 1) return start; /* reflect */
  const int64_t period = 2 * (len - 1), m = ((u % period) + period) % period;
  return start + (m < len ? m : period - m);
}

static void check_pad(berth_dtype_t dt, int mode, int32_t rank, const int64_t *x, const int64_t *pads) {
  const size_t es = berth_dtype_size(dt);
  berth_type_t tx, ty_;
  memset(&tx, 0, sizeof tx);
  tx.dtype = dt;
  tx.rank = rank;
  int64_t nx = 1, ny = 1;
  for (int32_t k = 0; k < rank; k++) tx.dims[k] = x[k], nx *= x[k];
  ty_ = tx;
  for (int32_t k = 0; k < rank; k++) ty_.dims[k] = x[k] + pads[k] + pads[rank + k], ny *= ty_.dims[k];
  unsigned char *in = xmalloc((size_t)nx * es), *want = xmalloc((size_t)ny * es);
  fill_random(in, (size_t)nx * es);
  if (dt == BERTH_DTYPE_BOOL)
    for (int64_t i = 0; i < nx; i++) in[i] &= 1;
  unsigned char value[8] = {0};
  if (dt == BERTH_DTYPE_F32) {
    float f = -2.5f;
    memcpy(value, &f, 4);
  } else if (dt == BERTH_DTYPE_F64) {
    double f = -2.5;
    memcpy(value, &f, 8);
  } else if (dt == BERTH_DTYPE_BOOL) {
    value[0] = 1;
  } else {
    int64_t i = 3; /* little-endian: the low bytes are 3 */
    memcpy(value, &i, es);
  }
  int64_t idx[BERTH_MAX_RANK] = {0};
  for (int64_t i = 0; i < ny; i++) {
    int64_t off = 0;
    bool inside = true;
    for (int32_t k = 0; k < rank; k++) {
      int64_t c = ref_pad_index(mode, idx[k], x[k], pads[k], pads[rank + k]);
      if (c < 0) inside = false;
      off = off * x[k] + c;
    }
    memcpy(want + (size_t)i * es, inside ? in + (size_t)off * es : value, es);
    for (int32_t k = rank - 1; k >= 0; k--) {
      if (++idx[k] < ty_.dims[k]) break;
      idx[k] = 0;
    }
  }
  tcall_t c = tc_op(&berth_op_def_pad);
  tc_ints_arr(&c, "pads", pads, 2 * rank);
  tc_int(&c, "mode", mode);
  if (dt == BERTH_DTYPE_F32 || dt == BERTH_DTYPE_F64) tc_scalar(&c, "value", -2.5);
  else tc_scalar_i(&c, "value", dt == BERTH_DTYPE_BOOL ? 1 : 3);
  tc_arg(&c, tx, in);
  unsigned char *got = tc_run(__LINE__, &c, ty_);
  if (got) {
    CHECK_MSG(memcmp(got, want, (size_t)ny * es) == 0, "pad %s mode %d rank %d differs (seed %#x)",
              berth_dtype_name(dt), mode, (int)rank, SEED);
    free(got);
  }
  free(in), free(want);
}

static void test_pad(void) {
  static const berth_dtype_t dts[] = {BERTH_DTYPE_BOOL, BERTH_DTYPE_U8, BERTH_DTYPE_I16, BERTH_DTYPE_F32,
                                      BERTH_DTYPE_I32, BERTH_DTYPE_F64, BERTH_DTYPE_I64};
  const int ndt = (int)(sizeof dts / sizeof dts[0]);
  /* the benchmark row: 1x64x56x56, pads 1 on H and W */
  static const int64_t nchw[4] = {1, 64, 56, 56}, p1[8] = {0, 0, 1, 1, 0, 0, 1, 1};
  for (int mode = 0; mode < 4; mode++)
    for (int d = 0; d < ndt; d++) check_pad(dts[d], mode, 4, nchw, p1);
  /* crops and pads mixed, rows shorter and longer than a 16-byte fill, pads longer than the data */
  static const int64_t x3[3] = {3, 5, 37}, p3[6] = {1, -1, 20, 2, 0, -3};
  static const int64_t x1[1] = {0}, p1d[2] = {3, 17}, x2[2] = {1, 2}, p2[4] = {4, 5, 6, 7};
  for (int d = 0; d < ndt; d++) {
    for (int mode = 0; mode < 4; mode++) {
      check_pad(dts[d], mode, 3, x3, p3);
      check_pad(dts[d], mode, 2, x2, p2);
    }
    check_pad(dts[d], PAD_CONSTANT, 1, x1, p1d);
  }
  for (int t = 0; t < 400; t++) {
    const int mode = (int)(rnd() % 4);
    int32_t rank = 1 + (int32_t)(rnd() % 4);
    int64_t x[4], pads[8];
    for (int32_t k = 0; k < rank; k++) {
      x[k] = (int64_t)(rnd() % 9) + (mode != PAD_CONSTANT);
      int64_t *b = &pads[k], *e = &pads[rank + k];
      *b = (int64_t)(rnd() % 21) - 2;
      *e = (int64_t)(rnd() % 21) - 2;
      if (x[k] + *b + *e < 0) *b = *e = 0;
      /* the other modes need data left on the axis */
      if (mode != PAD_CONSTANT && x[k] + (*b < 0 ? *b : 0) + (*e < 0 ? *e : 0) < 1) *b = *e = 0;
    }
    check_pad(dts[rnd() % (uint32_t)ndt], mode, rank, x, pads);
  }
}

int main(void) {
  test_transpose_2d();
  test_fill();
  test_permute();
  test_expand();
  test_pad();
  return test_finish("test_kernel_move");
}
