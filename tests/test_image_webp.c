/* The WebP decoder (src/kernels/image_webp*.c) against libwebp 1.2.4 (Pillow, the ONNX
 * reference): the suite's WebP case and our own vectors (tests/images/webp/, made by
 * make.py with cwebp and Pillow) decode bit for bit. Lossy: odd sizes, qualities 5 to 100,
 * 1 and 4 segments, filter strengths 0 to 100 with sharpness, the simple filter, 2 and 8
 * token partitions, the skip flag, VP8X with alpha and with ICC/EXIF. Lossless (VP8L):
 * predictor, colour, subtract-green and colour-indexing transforms (2, 4, 16 and 200
 * colours), colour cache, meta prefix codes, near-lossless, alpha. Damaged and truncated
 * streams are refused or decoded within the bound without touching memory outside the
 * buffers; animations and images over the bound are refused with a message; exactly the
 * advertised scratch works. */
#include "image_test_util.h"
#include "kernels/image_webp_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vector {
  const char *name;
  uint32_t width, height;
} vector_t;

static const vector_t kVectors[] = {
    {"tiny_1x1", 1, 1},          {"odd_7x13", 7, 13},          {"odd_33x17_q5", 33, 17},
    {"wide_100x3_q100", 100, 3}, {"photo_q50", 64, 48},         {"photo_q100", 48, 40},
    {"flat_q75", 40, 40},        {"seg1", 48, 32},              {"seg4_sns100", 64, 40},
    {"sns0", 40, 40},            {"nofilter", 40, 40},          {"filter100_sharp7", 40, 40},
    {"filter60_sharp3", 40, 40}, {"simple_filter", 40, 40},     {"simple_sharp5", 33, 33},
    {"autofilter", 48, 48},      {"fast_m0", 40, 24},           {"vp8x_alpha", 37, 29},
    {"vp8x_icc_exif", 30, 20},   {"photo_big_q90", 130, 90},    {"partitions8", 40, 150},
    {"partitions2", 50, 40},     {"flat_skip", 160, 96},        {"ll_photo", 64, 48},
    {"ll_odd_7x13", 7, 13},      {"ll_z0", 33, 17},             {"ll_z9", 64, 50},
    {"ll_big_m6", 100, 80},      {"ll_near", 50, 30},           {"ll_pal2", 37, 11},
    {"ll_pal4", 29, 13},         {"ll_pal16", 45, 20},          {"ll_pal200", 64, 40},
    {"ll_alpha", 41, 23},        {"ll_pillow", 30, 30},         {"ll_flat_1x1", 1, 1},
};

static char *read_vector(const char *name, const char *ext, size_t *n) {
  char path[512];
  snprintf(path, sizeof path, "%s/tests/images/webp/%s.%s", BERTH_SOURCE_DIR, name, ext);
  char *data = test_read_file(path, n);
  CHECK_MSG(data != NULL, "cannot read %s", path);
  return data;
}

/* Decodes with the given bound; checks the size and every byte against want. */
static void check_exact(const char *label, const uint8_t *src, size_t n, uint32_t max_h, uint32_t max_w,
                        const uint8_t *want, uint32_t w, uint32_t h) {
  berth_image_dst_t d;
  uint8_t *rgb;
  const char *why = itu_decode(berth_image_decode_webp, berth_image_webp_scratch_bytes, src, n, max_h, max_w, &d, &rgb);
  CHECK_MSG(why == NULL, "%s: %s", label, why);
  if (why) return;
  CHECK_MSG(d.width == w && d.height == h, "%s: decoded %ux%u, expected %ux%u", label, d.width, d.height, w, h);
  if (d.width == w && d.height == h) {
    size_t diff = 0, first = 0;
    for (size_t i = 0; i < (size_t)w * h * 3; i++) {
      if (rgb[i] != want[i] && diff++ == 0) first = i;
    }
    CHECK_MSG(diff == 0, "%s: %zu bytes differ from libwebp, first at pixel %zu channel %zu (%u vs %u)", label, diff,
              first / 3, first % 3, rgb[first], want[first]);
  }
  free(rgb);
}

static void test_suite_case(void) {
  itu_case_t c;
  if (!itu_case_load("test_image_decoder_decode_webp_rgb", &c)) return;
  CHECK(c.rank == 3 && c.dims[2] == 3);
  if (c.rank == 3) {
    const uint32_t h = (uint32_t)c.dims[0], w = (uint32_t)c.dims[1];
    CHECK(c.pixels_len == (size_t)h * w * 3);
    check_exact("suite", c.stream, c.stream_len, h, w, c.pixels, w, h);
    check_exact("suite, larger bound", c.stream, c.stream_len, h + 5, w + 17, c.pixels, w, h);
  }
  itu_case_free(&c);
}

static void test_vectors(void) {
  for (size_t i = 0; i < sizeof kVectors / sizeof kVectors[0]; i++) {
    const vector_t *v = &kVectors[i];
    size_t n_webp = 0, n_rgb = 0;
    char *webp = read_vector(v->name, "webp", &n_webp);
    char *rgb = read_vector(v->name, "rgb", &n_rgb);
    if (webp && rgb) {
      CHECK_MSG(n_rgb == (size_t)v->width * v->height * 3, "%s: .rgb has %zu bytes", v->name, n_rgb);
      check_exact(v->name, (const uint8_t *)webp, n_webp, v->height, v->width, (const uint8_t *)rgb, v->width,
                  v->height);
    }
    free(webp);
    free(rgb);
  }
}

static const char *decode_msg(const uint8_t *src, size_t n, uint32_t max_h, uint32_t max_w) {
  berth_image_dst_t d;
  uint8_t *rgb;
  const char *why = itu_decode(berth_image_decode_webp, berth_image_webp_scratch_bytes, src, n, max_h, max_w, &d, &rgb);
  free(rgb);
  return why;
}

static void check_refused(const char *label, const uint8_t *src, size_t n, uint32_t max_h, uint32_t max_w,
                          const char *want) {
  const char *why = decode_msg(src, n, max_h, max_w);
  CHECK_MSG(why != NULL && strstr(why, want) != NULL, "%s: got \"%s\", expected a message with \"%s\"", label,
            why ? why : "(decoded)", want);
}

static void test_refusals(void) {
  size_t n = 0;
  char *s = read_vector("animated", "webp", &n);
  if (s) check_refused("animated", (const uint8_t *)s, n, 16, 16, "animated");
  free(s);
  s = read_vector("photo_q50", "webp", &n);
  if (s) {
    check_refused("bound height", (const uint8_t *)s, n, 47, 64, "larger than the bound");
    check_refused("bound width", (const uint8_t *)s, n, 48, 63, "larger than the bound");
    check_refused("empty bound", (const uint8_t *)s, n, 0, 0, "larger than the bound");
    check_refused("truncated", (const uint8_t *)s, n - 1, 48, 64, "truncated");
    uint8_t *bad = malloc(n);
    memcpy(bad, s, n);
    bad[8] = 'X'; /* WEBP -> XEBP */
    check_refused("signature", bad, n, 48, 64, "not a RIFF WEBP");
    memcpy(bad, s, n);
    bad[20 + 3] ^= 0xff; /* the VP8 start code */
    check_refused("start code", bad, n, 48, 64, "start code");
    free(bad);
  }
  free(s);
}

/* Scratch: exactly what berth_image_webp_scratch_bytes asks works, for a lossy and a
 * lossless stream; one byte less than the decoder's own layout is refused. */
static void check_scratch(const char *name, uint32_t h, uint32_t w, uint64_t need) {
  size_t n = 0;
  char *s = read_vector(name, "webp", &n);
  if (!s) return;
  const uint64_t sb = berth_image_webp_scratch_bytes(h, w);
  CHECK(need <= sb);
  berth_image_dst_t d = {0};
  d.max_height = h;
  d.max_width = w;
  d.rgb = malloc((size_t)h * w * 3);
  d.scratch = aligned_alloc(16, ((size_t)sb + 15) & ~(size_t)15);
  d.scratch_bytes = (size_t)need - 1;
  CHECK_MSG(berth_image_decode_webp((const uint8_t *)s, n, &d) != NULL, "%s: decoded with too little scratch", name);
  d.scratch_bytes = (size_t)sb;
  const char *why = berth_image_decode_webp((const uint8_t *)s, n, &d);
  CHECK_MSG(why == NULL, "%s: %s", name, why);
  free(d.scratch);
  free(d.rgb);
  free(s);
}

static void test_scratch_exact(void) {
  check_scratch("odd_33x17_q5", 17, 33, berth_webp_vp8_scratch_bytes(17, 33));
  check_scratch("ll_z0", 17, 33, berth_webp_vp8l_scratch_bytes(17, 33));
  CHECK(berth_image_webp_scratch_bytes(1u << 15, 1u << 15) != UINT64_MAX);
  CHECK(berth_image_webp_scratch_bytes(0, 0) > 0);
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Every truncation of the image chunk's payload with the RIFF and chunk sizes patched to
 * match, so that the bitstream readers (not the container) meet the end of the data. */
static void truncated_payloads(const char *name, const uint8_t *src, size_t n, uint32_t max_h, uint32_t max_w) {
  int refused = 0, tried = 0;
  uint8_t *buf = malloc(n);
  for (size_t cut = 21; cut < n; cut++) {
    memcpy(buf, src, cut);
    put_le32(buf + 4, (uint32_t)(cut - 8));
    put_le32(buf + 16, (uint32_t)(cut - 20));
    berth_image_dst_t d;
    uint8_t *rgb;
    tried++;
    if (itu_decode(berth_image_decode_webp, berth_image_webp_scratch_bytes, buf, cut, max_h, max_w, &d, &rgb)) refused++;
    else CHECK(d.height <= max_h && d.width <= max_w);
    free(rgb);
  }
  CHECK_MSG(refused > tried / 2, "%s: only %d of %d truncated payloads refused", name, refused, tried);
  free(buf);
}

static void test_robustness(void) {
  static const char *const names[] = {"odd_7x13", "simple_sharp5", "partitions2", "vp8x_alpha",
                                      "ll_pal4",  "ll_odd_7x13",   "ll_pal200"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t n = 0;
    char *s = read_vector(names[i], "webp", &n);
    if (!s) continue;
    const int refused = itu_robustness_sweep(berth_image_decode_webp, berth_image_webp_scratch_bytes,
                                             (const uint8_t *)s, n, 64, 64);
    CHECK_MSG(refused > (int)n, "%s: only %d of %zu damaged streams refused", names[i], refused, 4 * n);
    if (memcmp(s + 12, "VP8X", 4) != 0) truncated_payloads(names[i], (const uint8_t *)s, n, 64, 64);
    free(s);
  }
}

int main(void) {
  test_suite_case();
  test_vectors();
  test_refusals();
  test_scratch_exact();
  test_robustness();
  return test_finish("test_image_webp");
}
