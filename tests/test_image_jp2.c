/* The JPEG 2000 decoder (src/kernels/image_jp2*.c): the ONNX suite's image bit for bit; our
 * own vectors (tests/images/jp2/, made by make.py with opj_compress and Pillow 9.4 /
 * OpenJPEG 2.5) bit for bit when lossless and within a stated tolerance when lossy; damaged
 * streams (every truncation, every byte flip) refused or decoded without touching memory
 * outside the buffers; a bound smaller than the image refused; exact-size scratch. */
#include "image_test_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *decode(const uint8_t *s, size_t n, uint32_t mh, uint32_t mw, berth_image_dst_t *d, uint8_t **rgb) {
  return itu_decode(berth_image_decode_jp2, berth_image_jp2_scratch_bytes, s, n, mh, mw, d, rgb);
}

static void test_suite_image(void) {
  itu_case_t c;
  if (!itu_case_load("test_image_decoder_decode_jpeg2k_rgb", &c)) return;
  CHECK(c.rank == 3 && c.dims[2] == 3);
  uint32_t h = (uint32_t)c.dims[0], w = (uint32_t)c.dims[1];
  berth_image_dst_t d;
  uint8_t *rgb;
  const char *why = decode(c.stream, c.stream_len, h, w, &d, &rgb);
  CHECK_MSG(why == NULL, "%s", why);
  if (!why) {
    CHECK(d.height == h && d.width == w);
    CHECK(c.pixels_len == (size_t)h * w * 3 && memcmp(rgb, c.pixels, c.pixels_len) == 0);
  }
  free(rgb);
  /* a bound smaller than the image is refused, in either dimension */
  CHECK(decode(c.stream, c.stream_len, h - 1, w, &d, &rgb) != NULL);
  CHECK(decode(c.stream, c.stream_len, h, w - 1, &d, &rgb) != NULL);
  /* a larger bound: the image is written packed at the start */
  why = decode(c.stream, c.stream_len, h + 5, w + 7, &d, &rgb);
  CHECK(why == NULL && d.height == h && d.width == w && memcmp(rgb, c.pixels, c.pixels_len) == 0);
  free(rgb);
  int refused = itu_robustness_sweep(berth_image_decode_jp2, berth_image_jp2_scratch_bytes, c.stream, c.stream_len, h, w);
  CHECK(refused > (int)c.stream_len); /* at least every truncation */
  itu_case_free(&c);
}

/* A binary PPM (P6, maxval 255): the expected pixels. */
static uint8_t *read_ppm(const char *path, uint32_t *h, uint32_t *w) {
  size_t n;
  char *f = test_read_file(path, &n);
  if (!f) return NULL;
  unsigned ww, hh, mx;
  int used = 0;
  if (sscanf(f, "P6 %u %u %u%n", &ww, &hh, &mx, &used) != 3 || mx != 255 || (size_t)used + 1 + (size_t)ww * hh * 3 > n) {
    free(f);
    return NULL;
  }
  uint8_t *px = malloc((size_t)ww * hh * 3 + 1);
  memcpy(px, f + used + 1, (size_t)ww * hh * 3);
  free(f);
  *h = hh;
  *w = ww;
  return px;
}

typedef struct vec {
  const char *name; /* tests/images/jp2/<name> and <name>.ppm */
  int tol;          /* max |difference| allowed (0: bit-exact) */
  int sweep;        /* also run the robustness sweep */
} vec_t;

/* Lossy (9/7) vectors: OpenJPEG's float wavelet is reproduced operation for operation, but
 * its SSE code and ours may round a sum differently, so a sample may land one off. */
static const vec_t k_vecs[] = {
#include "images/jp2/vectors.inc"
};

static void test_vectors(void) {
  for (size_t i = 0; i < sizeof k_vecs / sizeof k_vecs[0]; i++) {
    const vec_t *v = &k_vecs[i];
    char path[1024];
    size_t n;
    snprintf(path, sizeof path, "%s/tests/images/jp2/%s", BERTH_SOURCE_DIR, v->name);
    char *s = test_read_file(path, &n);
    snprintf(path, sizeof path, "%s/tests/images/jp2/%s.ppm", BERTH_SOURCE_DIR, v->name);
    uint32_t h = 0, w = 0;
    uint8_t *want = read_ppm(path, &h, &w);
    CHECK_MSG(s && want, "%s: vector files missing", v->name);
    if (!s || !want) {
      free(s);
      free(want);
      continue;
    }
    berth_image_dst_t d;
    uint8_t *rgb;
    const char *why = decode((const uint8_t *)s, n, h, w, &d, &rgb);
    CHECK_MSG(why == NULL, "%s: %s", v->name, why);
    if (!why) {
      CHECK_MSG(d.height == h && d.width == w, "%s: size", v->name);
      int maxd = 0;
      size_t ndiff = 0;
      for (size_t k = 0; k < (size_t)h * w * 3; k++) {
        int df = abs((int)rgb[k] - (int)want[k]);
        if (df > maxd) maxd = df;
        if (df) ndiff++;
      }
      CHECK_MSG(maxd <= v->tol, "%s: max |diff| %d over %zu samples (tolerance %d)", v->name, maxd, ndiff, v->tol);
      if (getenv("JP2_VERBOSE")) fprintf(stderr, "%s: %ux%u max |diff| %d, %zu samples differ\n", v->name, w, h, maxd, ndiff);
    }
    free(rgb);
    if (v->sweep) itu_robustness_sweep(berth_image_decode_jp2, berth_image_jp2_scratch_bytes, (const uint8_t *)s, n, h, w);
    free(s);
    free(want);
  }
}

static char *read_vector(const char *name, size_t *n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/images/jp2/%s", BERTH_SOURCE_DIR, name);
  char *s = test_read_file(path, n);
  CHECK_MSG(s != NULL, "%s missing", name);
  return s;
}

/* Patches the first occurrence of `from` (len bytes) with `to`; false if absent. */
static bool patch(char *s, size_t n, const void *from, const void *to, size_t len) {
  for (size_t i = 0; i + len <= n; i++)
    if (memcmp(s + i, from, len) == 0) {
      memcpy(s + i, to, len);
      return true;
    }
  return false;
}

/* Streams the decoder refuses, each with the message that names why. */
static void test_refusal_messages(void) {
  size_t n;
  char *s = read_vector("grey.j2k", &n);
  if (!s) return;
  berth_image_dst_t d;
  uint8_t *rgb;
  /* SIZ of one 8-bit component: Ssiz 07, XRsiz 01, YRsiz 01 */
  static const uint8_t siz_c[] = {0x00, 0x01, 0x07, 0x01, 0x01}, sub[] = {0x00, 0x01, 0x07, 0x02, 0x01};
  char *t = malloc(n);
  memcpy(t, s, n);
  CHECK(patch(t, n, siz_c, sub, sizeof sub));
  const char *why = decode((const uint8_t *)t, n, 64, 64, &d, &rgb);
  CHECK_MSG(why && strstr(why, "subsampled"), "%s", why ? why : "(decoded)");
  /* the COM segment OpenJPEG writes, turned into a PPM segment that does not parse */
  static const uint8_t com[] = {0xFF, 0x64}, ppm[] = {0xFF, 0x60};
  memcpy(t, s, n);
  CHECK(patch(t, n, com, ppm, 2));
  why = decode((const uint8_t *)t, n, 64, 64, &d, &rgb);
  CHECK_MSG(why && strstr(why, "PPM"), "%s", why ? why : "(decoded)");
  /* one byte less scratch than asked for */
  berth_image_dst_t e = {0};
  e.max_height = e.max_width = 64;
  e.rgb = malloc(64 * 64 * 3);
  e.scratch_bytes = (size_t)berth_image_jp2_scratch_bytes(64, 64) - 1;
  e.scratch = aligned_alloc(16, (e.scratch_bytes + 15) & ~(size_t)15);
  why = berth_image_decode_jp2((const uint8_t *)s, n, &e);
  CHECK_MSG(why && strstr(why, "scratch"), "%s", why ? why : "(decoded)");
  free(e.rgb);
  free(e.scratch);
  free(t);
  free(s);
}

static void test_refusals(void) {
  berth_image_dst_t d;
  uint8_t *rgb;
  static const uint8_t junk[] = {0xFF, 0x4F, 0xFF, 0x51, 0x00};
  CHECK(decode(junk, sizeof junk, 8, 8, &d, &rgb) != NULL);
  CHECK(decode(junk, 0, 8, 8, &d, &rgb) != NULL);
  /* the scratch bound is a function of the bound only and does not overflow */
  CHECK(berth_image_jp2_scratch_bytes(1u << 15, 1u << 15) != UINT64_MAX);
  CHECK(berth_image_jp2_scratch_bytes(UINT32_MAX, UINT32_MAX) == UINT64_MAX);
  CHECK(berth_image_jp2_scratch_bytes(1, 1) < berth_image_jp2_scratch_bytes(64, 64));
}

int main(void) {
  test_suite_image();
  test_vectors();
  test_refusals();
  test_refusal_messages();
  return test_finish("test_image_jp2");
}
