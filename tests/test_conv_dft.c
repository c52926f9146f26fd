/* STFT convolutions as FFTs (src/passes/conv_dft.c, src/kernels/kernel_conv_dft.c): which
 * convs the pass rewrites (weights a windowed onesided DFT within two f32 ulps, N a power of
 * two up to 256, no bias, read by that conv alone), that the rewritten program is valid and
 * prints and parses back, and what conv_dft computes: every output against the transform
 * computed directly in double (within 2e-7 of the frame's sum of |w x|; a wrong bin, sign,
 * twiddle or frame is off by the size of the signal), and against the conv it replaced
 * (within that conv's f32 rounding), with stride, both pads, frames that cross the padding,
 * two batch items, N = 4, 8 and 256 (Silero's periodic Hann window) and a window with
 * negative entries. The convs left alone compute what they did, bit for bit. The magnitude
 * of the two halves fused into one conv_dft (and what is not fused); the signal's reflect or
 * zero padding folded into it (an edge pad not). Then infer's refusals. Randomized: BERTH_TEST_SEED. */
#include "passes/passes.h"
#include "reference/reference.h"
#include "test_kernel_util.h"

#include <math.h>

static uint64_t rng_state, rng_seed;
static double rnd(void) { /* -1 .. 1 */
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(uint32_t)(rng_state >> 33) / 2147483648.0 - 1.0;
}

typedef struct sbuf {
  char *s;
  size_t n, cap;
} sbuf_t;

static void put(sbuf_t *b, const char *fmt, double v) {
  if (b->n + 64 > b->cap) {
    b->cap = (b->cap + 64) * 2;
    b->s = realloc(b->s, b->cap);
  }
  b->n += (size_t)sprintf(b->s + b->n, fmt, v);
}
static void puts_(sbuf_t *b, const char *text) {
  const size_t l = strlen(text);
  if (b->n + l + 1 > b->cap) {
    b->cap = (b->n + l + 1) * 2;
    b->s = realloc(b->s, b->cap);
  }
  memcpy(b->s + b->n, text, l + 1);
  b->n += l;
}

/* Appends "const @name : f32[2*(n/2+1)+extra,1,n] = [...]": w[j] cos(2 pi k j / n) then
 * -w[j] sin(...), rounded to f32, extra rows of a constant; entry `bad` (if >= 0) moved
 * by 1e-4. Writes the f32 window (row 0) to win. */
static void add_dft(sbuf_t *b, const char *name, int n, const double *w, int extra, int bad, float *win) {
  const int bins = n / 2 + 1, rows = 2 * bins + extra;
  char head[128];
  snprintf(head, sizeof head, "const @%s : f32[%d,1,%d] = [", name, rows, n);
  puts_(b, head);
  for (int r = 0, e = 0; r < rows; r++)
    for (int j = 0; j < n; j++, e++) {
      const int k = r < bins ? r : r - bins;
      const double a = 2 * 3.14159265358979323846 * (double)((k * j) % n) / n;
      double v = r >= 2 * bins ? 0.25 : r < bins ? w[j] * cos(a) : -w[j] * sin(a);
      if (e == bad) v += 1e-4;
      if (r == 0 && win) win[j] = (float)v;
      put(b, e ? ", %.9g" : "%.9g", (double)(float)v);
    }
  puts_(b, "]\n");
}

/* The exact transform of frame t of row x (len samples), window win, as conv_dft defines it. */
static void exact_dft(const float *x, int len, int s, const float *win, int n, int k, double *re, double *im,
                      double *mag) {
  *re = *im = *mag = 0;
  for (int j = 0; j < n; j++) {
    const int p = s + j;
    if (p < 0 || p >= len) continue;
    const double v = (double)win[j] * x[p], a = 2 * 3.14159265358979323846 * (double)((k * j) % n) / n;
    *re += v * cos(a);
    *im -= v * sin(a);
    *mag += fabs(v);
  }
}

static int count_op(const berth_ir_program_t *p, berth_op_t op) {
  int k = 0;
  for (int32_t i = 0; i < p->methods[0].n_nodes; i++) k += p->methods[0].nodes[i].op == op;
  return k;
}

static bool run_ref(const berth_ir_program_t *p, const float *x, const float *y, void **outs) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ref_t *r = NULL;
  bool ok = berth_ref_create(p, &r, &d) == BERTH_OK &&
            berth_ref_call(r, 0, (const void *[]){x, y}, outs, &d) == BERTH_OK;
  CHECK_MSG(ok, "reference run: %s (seed %llu)", msg, (unsigned long long)rng_seed);
  berth_ref_destroy(r);
  return ok;
}

/* Checks output o ([batch, n+2, frames] of the signal rows x, len each) against the exact
 * transform: within tol times the frame's sum of |w x| (plus 1e-30). Returns the largest
 * error relative to that sum. */
static double check_dft(const char *what, const float *o, const float *x, int batch, int len, int stride, int p0,
                        const float *win, int n, int frames, double tol) {
  double worst = 0;
  const int bins = n / 2 + 1;
  for (int b = 0; b < batch; b++)
    for (int t = 0; t < frames; t++)
      for (int k = 0; k < bins; k++) {
        double re, im, mag;
        exact_dft(x + b * len, len, t * stride - p0, win, n, k, &re, &im, &mag);
        const float gr = o[(b * 2 * bins + k) * frames + t], gi = o[(b * 2 * bins + bins + k) * frames + t];
        const double e = fmax(fabs(gr - re), fabs(gi - im)) / (mag + 1e-30);
        if (e > worst) worst = e;
        if (!(e <= tol)) {
          CHECK_MSG(false, "%s: batch %d frame %d bin %d: %.9g%+.9gi, exact %.9g%+.9gi (seed %llu)", what, b, t, k,
                    (double)gr, (double)gi, re, im, (unsigned long long)rng_seed);
          return worst;
        }
      }
  return worst;
}

static char *make_source(float *w256, float *w8, float *w4) {
  sbuf_t b = {0};
  puts_(&b, "program {alloc_inputs = 1, alloc_outputs = 1}\n\n");
  double hann[256], neg[8], w4d[4];
  for (int j = 0; j < 256; j++) hann[j] = 0.5 - 0.5 * cos(2 * 3.14159265358979323846 * j / 256);
  for (int j = 0; j < 8; j++) neg[j] = rnd(); /* negative entries too */
  for (int j = 0; j < 4; j++) w4d[j] = 1.0 + 0.5 * rnd();
  add_dft(&b, "k256", 256, hann, 0, -1, w256);
  add_dft(&b, "k8", 8, neg, 0, -1, w8);
  add_dft(&b, "k4", 4, w4d, 0, -1, w4);
  add_dft(&b, "kbad", 8, neg, 0, 8 * 3 + 5, NULL); /* one weight 1e-4 off */
  add_dft(&b, "kextra", 8, neg, 2, -1, NULL);      /* 12 rows: not onesided */
  add_dft(&b, "kbias", 8, neg, 0, -1, NULL);       /* with a bias */
  add_dft(&b, "kshared", 8, neg, 0, -1, NULL);     /* read by two convs */
  puts_(&b, "const @b10 : f32[10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n");
  puts_(&b, "\nfunc @f(%x : f32[2,1,600], %y : f32[1,1,20]) -> (f32[2,258,3], f32[1,10,7], f32[1,6,17], "
            "f32[1,10,7], f32[1,12,13], f32[1,10,13], f32[1,10,13], f32[1,10,13]) {\n"
            "  %a = conv(%x, @k256) {strides = [128]} : f32[2,258,3]\n"
            "  %b = conv(%y, @k8) {strides = [3], pads = [2, 5], dilations = [1]} : f32[1,10,7]\n"
            "  %c = conv(%y, @k4) : f32[1,6,17]\n"
            "  %d = conv(%y, @kbad) {strides = [3], pads = [2, 5]} : f32[1,10,7]\n"
            "  %e = conv(%y, @kextra) : f32[1,12,13]\n"
            "  %g = conv(%y, @kbias, @b10) : f32[1,10,13]\n"
            "  %h = conv(%y, @kshared) : f32[1,10,13]\n"
            "  %i = conv(%y, @kshared) : f32[1,10,13]\n"
            "  return %a, %b, %c, %d, %e, %g, %h, %i\n"
            "}\n");
  return b.s;
}

static void test_pass(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  float w256[256], w8[8], w4[4];
  char *src = make_source(w256, w8, w4);
  berth_ir_program_t *plain = NULL, *fft = NULL, *back = NULL;
  CHECK_MSG(berth_ir_parse(src, strlen(src), "dft.bir", &plain, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_parse(src, strlen(src), "dft.bir", &fft, &d) == BERTH_OK, "%s", msg);
  free(src);
  if (!plain || !fft) return;
  const int32_t n = berth_pass_conv_dft(fft);
  CHECK_MSG(n == 3, "%d convs rewritten, expected 3 (k256, k8, k4)", (int)n);
  CHECK(count_op(fft, BERTH_OP_CONV_DFT) == 3 && count_op(fft, BERTH_OP_CONV) == 5);
  CHECK_MSG(berth_pass_dce(&fft, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_validate(fft, &d) == BERTH_OK, "%s", msg);
  char *text = berth_ir_print(fft);
  CHECK_MSG(text && strstr(text, "conv_dft(%y, @dft0_1) {stride = 3, pad_begin = 2, pad_end = 5, magnitude = 0, pad_mode = 0}"),
            "no conv_dft with stride and pads in the printed program");
  CHECK_MSG(text && berth_ir_parse(text, strlen(text), "dft2.bir", &back, &d) == BERTH_OK, "parse back: %s", msg);
  free(text);

  float x[1200], y[20];
  for (int i = 0; i < 1200; i++) x[i] = (float)rnd();
  for (int i = 0; i < 20; i++) y[i] = (float)rnd();
  void *po[8] = {0}, *fo[8] = {0}, *bo[8] = {0};
  if (run_ref(plain, x, y, po) && run_ref(fft, x, y, fo) && back && run_ref(back, x, y, bo)) {
    const double e256 = check_dft("conv_dft N=256", fo[0], x, 2, 600, 128, 0, w256, 256, 3, 2e-7);
    check_dft("conv_dft N=8", fo[1], y, 1, 20, 3, 2, w8, 8, 7, 2e-7);
    check_dft("conv_dft N=4", fo[2], y, 1, 20, 1, 0, w4, 4, 17, 2e-7);
    /* the conv it replaced rounds in f32: within its error of the exact transform too */
    const double c256 = check_dft("conv N=256", po[0], x, 2, 600, 128, 0, w256, 256, 3, 1e-5);
    if (getenv("CONV_DFT_VERBOSE")) printf("N=256: conv_dft error %.3g, conv error %.3g (of the frame sum of abs(w x))\n", e256, c256);
    CHECK_MSG(e256 <= c256 + 1e-7, "conv_dft's error %.3g exceeds conv's %.3g", e256, c256);
    static const int64_t sizes[8] = {2 * 258 * 3, 70, 102, 70, 156, 130, 130, 130};
    for (int i = 3; i < 8; i++)
      CHECK_MSG(memcmp(po[i], fo[i], (size_t)sizes[i] * 4) == 0, "output %d (a conv left alone) changed", i);
    for (int i = 0; i < 8; i++)
      CHECK_MSG(memcmp(fo[i], bo[i], (size_t)sizes[i] * 4) == 0, "output %d differs after print and parse", i);
  }
  for (int i = 0; i < 8; i++) {
    free(po[i]);
    free(fo[i]);
    free(bo[i]);
  }
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(fft);
  berth_ir_program_destroy(back);
}

/* The magnitude: sqrt(pow(re, 2) + pow(im, 2)) of the two halves of an STFT conv (through
 * slices, one of them an identity on axis 0, a negative axis, the add's operands swapped)
 * becomes one conv_dft with magnitude = 1, the slices, pows, add and the first conv_dft gone;
 * not with an exponent of 3, nor with rows that are not the two halves. */
static void test_magnitude(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  sbuf_t b = {0};
  float w8[8];
  double neg[8];
  for (int j = 0; j < 8; j++) neg[j] = rnd();
  puts_(&b, "program {alloc_inputs = 1, alloc_outputs = 1}\n\n");
  add_dft(&b, "ka", 8, neg, 0, -1, w8);
  add_dft(&b, "kb", 8, neg, 0, -1, NULL);
  add_dft(&b, "kc", 8, neg, 0, -1, NULL);
  puts_(&b, "const @two : f32[] = [2]\nconst @three : f32[] = [3]\n"
            "\nfunc @g(%y : f32[1,1,20]) -> (f32[1,5,13], f32[1,5,13], f32[1,5,13]) {\n"
            "  %d = conv(%y, @ka) : f32[1,10,13]\n"
            "  %s0 = slice(%d) {axes = [0], starts = [0], ends = [9223372036854775807], steps = [1]} : f32[1,10,13]\n"
            "  %re = slice(%s0) {axes = [1], starts = [0], ends = [5]} : f32[1,5,13]\n"
            "  %im = slice(%s0) {axes = [-2], starts = [5], ends = [9223372036854775807]} : f32[1,5,13]\n"
            "  %p = pow(%re, @two) : f32[1,5,13]\n"
            "  %q = pow(%im, @two) : f32[1,5,13]\n"
            "  %a = add(%q, %p) : f32[1,5,13]\n"
            "  %m = sqrt(%a) : f32[1,5,13]\n"
            "  %d2 = conv(%y, @kb) : f32[1,10,13]\n"
            "  %re2 = slice(%d2) {axes = [1], starts = [0], ends = [5]} : f32[1,5,13]\n"
            "  %im2 = slice(%d2) {axes = [1], starts = [5], ends = [10]} : f32[1,5,13]\n"
            "  %p2 = pow(%re2, @three) : f32[1,5,13]\n"
            "  %q2 = pow(%im2, @two) : f32[1,5,13]\n"
            "  %a2 = add(%p2, %q2) : f32[1,5,13]\n"
            "  %m2 = sqrt(%a2) : f32[1,5,13]\n"
            "  %d3 = conv(%y, @kc) : f32[1,10,13]\n"
            "  %re3 = slice(%d3) {axes = [1], starts = [1], ends = [6]} : f32[1,5,13]\n"
            "  %im3 = slice(%d3) {axes = [1], starts = [5], ends = [10]} : f32[1,5,13]\n"
            "  %p3 = pow(%re3, @two) : f32[1,5,13]\n"
            "  %q3 = pow(%im3, @two) : f32[1,5,13]\n"
            "  %a3 = add(%p3, %q3) : f32[1,5,13]\n"
            "  %m3 = sqrt(%a3) : f32[1,5,13]\n"
            "  return %m, %m2, %m3\n"
            "}\n");
  berth_ir_program_t *plain = NULL, *fft = NULL;
  CHECK_MSG(berth_ir_parse(b.s, b.n, "mag.bir", &plain, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_parse(b.s, b.n, "mag.bir", &fft, &d) == BERTH_OK, "%s", msg);
  free(b.s);
  if (!plain || !fft) return;
  const int32_t n = berth_pass_conv_dft(fft);
  CHECK_MSG(n == 4, "%d rewritten or fused, expected 4 (three convs, one magnitude)", (int)n);
  CHECK_MSG(berth_pass_dce(&fft, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_validate(fft, &d) == BERTH_OK, "%s", msg);
  CHECK(count_op(fft, BERTH_OP_CONV_DFT) == 3 && count_op(fft, BERTH_OP_SQRT) == 2 && count_op(fft, BERTH_OP_POW) == 4);
  char *text = berth_ir_print(fft);
  CHECK_MSG(text && strstr(text, "%m = conv_dft(%y, @dft0_0) {stride = 1, pad_begin = 0, pad_end = 0, magnitude = 1, pad_mode = 0}"),
            "no magnitude conv_dft in\n%s", text ? text : "");
  free(text);
  float y[20];
  for (int i = 0; i < 20; i++) y[i] = (float)rnd();
  void *po[3] = {0}, *fo[3] = {0};
  char m2[512];
  berth_diag_t d2 = berth_diag_make(m2, sizeof m2);
  berth_ref_t *r = NULL;
  bool ok = berth_ref_create(fft, &r, &d2) == BERTH_OK && berth_ref_call(r, 0, (const void *[]){y}, fo, &d2) == BERTH_OK;
  berth_ref_destroy(r);
  r = NULL;
  ok = ok && berth_ref_create(plain, &r, &d2) == BERTH_OK && berth_ref_call(r, 0, (const void *[]){y}, po, &d2) == BERTH_OK;
  berth_ref_destroy(r);
  CHECK_MSG(ok, "reference run: %s", m2);
  for (int k = 0; ok && k < 5; k++)
    for (int t = 0; t < 13; t++) {
      double re, im, mag;
      exact_dft(y, 20, t, w8, 8, k, &re, &im, &mag);
      const double want = sqrt(re * re + im * im), got = ((const float *)fo[0])[k * 13 + t];
      const double unfused = ((const float *)po[0])[k * 13 + t];
      CHECK_MSG(fabs(got - want) <= 2e-7 * (mag + 1e-30), "magnitude bin %d frame %d: %.9g, exact %.9g (seed %llu)", k,
                t, got, want, (unsigned long long)rng_seed);
      CHECK_MSG(fabs(unfused - want) <= 1e-5 * (mag + 1e-30), "unfused bin %d frame %d: %.9g, exact %.9g", k, t,
                unfused, want);
    }
  for (int i = 0; i < 3; i++) {
    free(po[i]);
    free(fo[i]);
  }
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(fft);
}

/* The signal's padding (pad on the last axis, then unsqueeze to [B, 1, L']) moves into the
 * conv_dft: reflect (frames over both ends, batch 2) and zeros; an edge pad stays a pad. */
static void test_pad_fold(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  sbuf_t b = {0};
  float w8[8];
  double neg[8];
  for (int j = 0; j < 8; j++) neg[j] = rnd();
  puts_(&b, "program {alloc_inputs = 1, alloc_outputs = 1}\n\n");
  add_dft(&b, "ka", 8, neg, 0, -1, w8);
  add_dft(&b, "kb", 8, neg, 0, -1, NULL);
  add_dft(&b, "kc", 8, neg, 0, -1, NULL);
  puts_(&b, "\nfunc @h(%x : f32[2,12]) -> (f32[2,10,7], f32[2,10,6], f32[2,10,6]) {\n"
            "  %pa = pad(%x) {pads = [0, 3, 0, 5], mode = 1} : f32[2,20]\n"
            "  %ua = unsqueeze(%pa) {axes = [1]} : f32[2,1,20]\n"
            "  %a = conv(%ua, @ka) {strides = [2]} : f32[2,10,7]\n"
            "  %pb = pad(%x) {pads = [0, 0, 0, 6], mode = 0} : f32[2,18]\n"
            "  %ub = unsqueeze(%pb) {axes = [-2]} : f32[2,1,18]\n"
            "  %b = conv(%ub, @kb) {strides = [2]} : f32[2,10,6]\n"
            "  %pc = pad(%x) {pads = [0, 0, 0, 6], mode = 2} : f32[2,18]\n"
            "  %uc = unsqueeze(%pc) {axes = [1]} : f32[2,1,18]\n"
            "  %c = conv(%uc, @kc) {strides = [2]} : f32[2,10,6]\n"
            "  return %a, %b, %c\n"
            "}\n");
  berth_ir_program_t *plain = NULL, *fft = NULL;
  CHECK_MSG(berth_ir_parse(b.s, b.n, "pad.bir", &plain, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_parse(b.s, b.n, "pad.bir", &fft, &d) == BERTH_OK, "%s", msg);
  free(b.s);
  if (!plain || !fft) return;
  const int32_t n = berth_pass_conv_dft(fft);
  CHECK_MSG(n == 5, "%d rewritten or folded, expected 5 (three convs, two pads)", (int)n);
  CHECK_MSG(berth_pass_dce(&fft, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_validate(fft, &d) == BERTH_OK, "%s", msg);
  CHECK(count_op(fft, BERTH_OP_CONV_DFT) == 3 && count_op(fft, BERTH_OP_PAD) == 1);
  char *text = berth_ir_print(fft);
  CHECK_MSG(text && strstr(text, "{stride = 2, pad_begin = 3, pad_end = 5, magnitude = 0, pad_mode = 1}") &&
                strstr(text, "{stride = 2, pad_begin = 0, pad_end = 6, magnitude = 0, pad_mode = 0}"),
            "no folded pads in\n%s", text ? text : "");
  free(text);
  float x[24], xa[2 * 20];
  for (int i = 0; i < 24; i++) x[i] = (float)rnd();
  for (int r = 0; r < 2; r++) /* numpy's reflect by hand */
    for (int i = 0; i < 20; i++) {
      const int p = i - 3;
      xa[r * 20 + i] = x[r * 12 + (p < 0 ? -p : p > 11 ? 22 - p : p)];
    }
  void *po[3] = {0}, *fo[3] = {0};
  char m2[512];
  berth_diag_t d2 = berth_diag_make(m2, sizeof m2);
  berth_ref_t *r = NULL;
  bool ok = berth_ref_create(fft, &r, &d2) == BERTH_OK && berth_ref_call(r, 0, (const void *[]){x}, fo, &d2) == BERTH_OK;
  berth_ref_destroy(r);
  r = NULL;
  ok = ok && berth_ref_create(plain, &r, &d2) == BERTH_OK && berth_ref_call(r, 0, (const void *[]){x}, po, &d2) == BERTH_OK;
  berth_ref_destroy(r);
  CHECK_MSG(ok, "reference run: %s", m2);
  if (ok) {
    check_dft("reflect-padded conv_dft", fo[0], xa, 2, 20, 2, 0, w8, 8, 7, 2e-7);
    float xb[2 * 18] = {0};
    for (int rr = 0; rr < 2; rr++) memcpy(xb + rr * 18, x + rr * 12, 12 * sizeof(float));
    check_dft("zero-padded conv_dft", fo[1], xb, 2, 18, 2, 0, w8, 8, 6, 2e-7);
    for (int i = 0; i < 2 * 10 * 6; i++) {
      const double e = fabs(((const float *)po[2])[i] - ((const float *)fo[2])[i]);
      if (!(e <= 1e-5)) {
        CHECK_MSG(false, "edge-padded output %d: %.9g, unfused %.9g", i, (double)((const float *)fo[2])[i],
                  (double)((const float *)po[2])[i]);
        break;
      }
    }
  }
  for (int i = 0; i < 3; i++) {
    free(po[i]);
    free(fo[i]);
  }
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(fft);
}

static void test_infer(void) {
  tcall_t c = tc_op(&berth_op_def_conv_dft);
  tc_arg(&c, ty(BERTH_DTYPE_F32, 3, 2, 1, 600), NULL);
  tc_arg(&c, ty(BERTH_DTYPE_F64, 2, 3, 256), NULL);
  tc_int(&c, "stride", 128);
  tc_int(&c, "pad_end", 40);
  char msg[256];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_type_t out, want = ty(BERTH_DTYPE_F32, 3, 2, 258, 4); /* (600 + 40 - 256) / 128 + 1 */
  CHECK_MSG(c.def->infer(c.attrs, c.in, c.n_in, &out, &d) == BERTH_OK && berth_type_equal(&out, &want), "%s", msg);
  tc_int(&c, "magnitude", 1);
  want = ty(BERTH_DTYPE_F32, 3, 2, 129, 4);
  CHECK_MSG(c.def->infer(c.attrs, c.in, c.n_in, &out, &d) == BERTH_OK && berth_type_equal(&out, &want), "%s", msg);
  tc_int(&c, "magnitude", 2);
  EXPECT_REJECT(&c, "magnitude");
  tc_int(&c, "magnitude", 0);
  tc_int(&c, "pad_mode", 2);
  EXPECT_REJECT(&c, "conv_dft: pad_mode 2, expected 0 (zeros) or 1 (reflect)");
  tc_int(&c, "pad_mode", 1);
  tc_int(&c, "pad_end", 600);
  EXPECT_REJECT(&c, "conv_dft: reflect pads 0, 600 over a signal of 600 samples, expected at most 599");
  tc_int(&c, "pad_mode", 0);
  tc_int(&c, "pad_end", 40);
  tc_int(&c, "stride", 0);
  EXPECT_REJECT(&c, "conv_dft: stride 0, expected 1..2^40");
  tc_int(&c, "stride", 1);
  tc_int(&c, "pad_begin", -1);
  EXPECT_REJECT(&c, "conv_dft: pads -1, 40, expected 0..2^40");
  tcall_t s = tc_op(&berth_op_def_conv_dft);
  tc_arg(&s, ty(BERTH_DTYPE_F32, 3, 1, 1, 200), NULL);
  tc_arg(&s, ty(BERTH_DTYPE_F64, 2, 3, 256), NULL);
  EXPECT_REJECT(&s, "conv_dft: the padded signal has 200 samples, fewer than the window's 256");
  static const struct {
    int r0, r1, r2;
  } bad_tab[] = {{3, 512, 0}, {3, 96, 0}, {3, 2, 0}, {2, 256, 0}};
  for (size_t i = 0; i < sizeof bad_tab / sizeof bad_tab[0]; i++) {
    tcall_t t = tc_op(&berth_op_def_conv_dft);
    tc_arg(&t, ty(BERTH_DTYPE_F32, 3, 1, 1, 600), NULL);
    tc_arg(&t, ty(BERTH_DTYPE_F64, 2, bad_tab[i].r0, bad_tab[i].r1), NULL);
    EXPECT_REJECT(&t, "expected [3, N] with N a power of two in 4..256");
  }
  tcall_t r = tc_op(&berth_op_def_conv_dft);
  tc_arg(&r, ty(BERTH_DTYPE_F32, 3, 1, 2, 600), NULL);
  tc_arg(&r, ty(BERTH_DTYPE_F64, 2, 3, 256), NULL);
  EXPECT_REJECT(&r, "conv_dft: x (operand 0) is f32[1,2,600], expected [batch, 1, length]");
  tcall_t f = tc_op(&berth_op_def_conv_dft);
  tc_arg(&f, ty(BERTH_DTYPE_F32, 3, 1, 1, 600), NULL);
  tc_arg(&f, ty(BERTH_DTYPE_F32, 2, 3, 256), NULL);
  EXPECT_REJECT(&f, "conv_dft");
}

int main(void) {
  const char *s = getenv("BERTH_TEST_SEED");
  rng_seed = s ? strtoull(s, NULL, 10) : 20261205u;
  rng_state = rng_seed;
  test_pass();
  test_magnitude();
  test_pad_fold();
  test_infer();
  return test_finish("test_conv_dft");
}
