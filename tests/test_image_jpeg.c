/* The JPEG decoder (src/kernels/image_jpeg.c) against Pillow / libjpeg-turbo 2.1: the ONNX
 * suite's ImageDecoder JPEG folders and our own vectors (tests/images/jpeg, made by make.py
 * there with Debian's Pillow and cjpeg), bit for bit; refusals with their messages; the
 * scratch bound; and the truncation / corruption sweep (run under ASan/UBSan in the
 * sanitizer build). */
#include "image_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *decode(const uint8_t *src, size_t n, uint32_t max_h, uint32_t max_w, berth_image_dst_t *d, uint8_t **rgb) {
  return itu_decode(berth_image_decode_jpeg, berth_image_jpeg_scratch_bytes, src, n, max_h, max_w, d, rgb);
}

/* ------------------------------------------------------------------ the ONNX suite */

static void check_suite(const char *folder, int kind) {
  itu_case_t c;
  if (!itu_case_load(folder, &c)) return;
  CHECK(c.rank == 3);
  uint32_t h = (uint32_t)c.dims[0], w = (uint32_t)c.dims[1];
  berth_image_dst_t d;
  uint8_t *rgb;
  const char *why = decode(c.stream, c.stream_len, h, w, &d, &rgb);
  CHECK_MSG(!why, "%s: %s", folder, why);
  if (!why) {
    CHECK(d.height == h && d.width == w);
    size_t px = (size_t)h * w, bad = 0;
    for (size_t i = 0; i < px; i++) {
      const uint8_t *p = rgb + 3 * i;
      if (kind == 0) bad += memcmp(p, c.pixels + 3 * i, 3) != 0;
      if (kind == 1) bad += p[0] != c.pixels[3 * i + 2] || p[1] != c.pixels[3 * i + 1] || p[2] != c.pixels[3 * i];
      if (kind == 2) bad += ((p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16) != c.pixels[i];
    }
    CHECK_MSG(bad == 0, "%s: %zu of %zu pixels differ from the reference", folder, bad, px);
  }
  free(rgb);
  itu_case_free(&c);
}

/* ------------------------------------------------------------------ our vectors */

typedef struct vec {
  const char *name;
  uint32_t w, h;
} vec_t;

static const vec_t vectors[] = {
    {"size_1x1", 1, 1},       {"size_7x13", 7, 13},     {"size_33x17", 33, 17},     {"size_100x3", 100, 3},
    {"s444", 17, 19},         {"s422", 17, 19},         {"s420", 17, 19},           {"s411", 17, 19},
    {"s440", 17, 19},         {"s420_narrow", 3, 9},    {"s_chroma_big", 17, 19},   {"s_3x1", 17, 19},
    {"s_4x2", 33, 17},        {"s_1x4", 9, 33},        {"grey", 17, 19},           {"rgb_adobe", 17, 19},
    {"q5", 17, 19},           {"q100", 17, 19},         {"optimized", 17, 19},      {"progressive", 24, 18},
    {"progressive_grey", 24, 18}, {"progressive_restart", 24, 18}, {"restart", 17, 19}, {"restart_rows", 24, 18},
    {"multiscan", 17, 19},    {"cut_eoi", 24, 18},      {"cut_eoi_progressive", 24, 18}, {"cmyk", 21, 13},
    {"ycck", 21, 13},         {"dqt_dc247", 17, 19},
};

static uint8_t *load(const char *name, const char *ext, size_t *n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/images/jpeg/%s.%s", BERTH_SOURCE_DIR, name, ext);
  uint8_t *data = (uint8_t *)test_read_file(path, n);
  CHECK_MSG(data != NULL, "cannot read %s", path);
  return data;
}

static void check_vector(const vec_t *v) {
  size_t n, ne;
  uint8_t *jpg = load(v->name, "jpg", &n), *want = load(v->name, "rgb", &ne);
  if (!jpg || !want) goto out;
  CHECK_MSG(ne == (size_t)v->w * v->h * 3, "%s: expected pixels of the wrong size", v->name);
  /* the bound exactly the image, then a looser one: the same pixels */
  for (int loose = 0; loose < 2; loose++) {
    berth_image_dst_t d;
    uint8_t *rgb;
    const char *why = decode(jpg, n, v->h + 5u * (uint32_t)loose, v->w + 9u * (uint32_t)loose, &d, &rgb);
    CHECK_MSG(!why, "%s: %s", v->name, why);
    if (why) continue;
    CHECK_MSG(d.width == v->w && d.height == v->h, "%s: decoded %ux%u", v->name, d.width, d.height);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < ne; i++)
      if (rgb[i] != want[i] && bad++ == 0) first = i;
    CHECK_MSG(bad == 0, "%s: %zu of %zu bytes differ from Pillow (first at pixel %zu: %d vs %d)", v->name, bad, ne,
              first / 3, rgb[first], want[first]);
    free(rgb);
  }
  /* a bound one row or one column smaller is refused */
  berth_image_dst_t d;
  uint8_t *rgb;
  const char *why = decode(jpg, n, v->h - 1, v->w, &d, &rgb);
  CHECK_MSG(why && strstr(why, "larger than the bound"), "%s: bound h-1: %s", v->name, why ? why : "accepted");
  why = decode(jpg, n, v->h, v->w - 1, &d, &rgb);
  CHECK_MSG(why && strstr(why, "larger than the bound"), "%s: bound w-1: %s", v->name, why ? why : "accepted");
out:
  free(jpg);
  free(want);
}

/* ------------------------------------------------------------------ refusals */

static size_t find_sof(const uint8_t *p, size_t n) {
  for (size_t i = 2; i + 1 < n; i++)
    if (p[i] == 0xff && (p[i + 1] == 0xc0 || p[i + 1] == 0xc1 || p[i + 1] == 0xc2)) return i;
  return 0;
}

static void expect_refusal(const char *what, const uint8_t *p, size_t n, const char *needle) {
  berth_image_dst_t d;
  uint8_t *rgb;
  const char *why = decode(p, n, 64, 64, &d, &rgb);
  CHECK_MSG(why && strstr(why, needle), "%s: expected a refusal naming \"%s\", got %s", what, needle, why ? why : "an image");
  if (!why) free(rgb);
}

static void check_refusals(void) {
  size_t n;
  uint8_t *p = load("s420", "jpg", &n);
  if (!p) return;
  size_t sof = find_sof(p, n);
  CHECK(sof > 0);
  uint8_t *q = malloc(n);
  /* SOF9: arithmetic coding */
  memcpy(q, p, n);
  q[sof + 1] = 0xc9;
  expect_refusal("arithmetic", q, n, "arithmetic");
  /* SOF3: lossless */
  q[sof + 1] = 0xc3;
  expect_refusal("lossless", q, n, "lossless");
  /* 12-bit samples */
  memcpy(q, p, n);
  q[sof + 4] = 12;
  expect_refusal("12-bit", q, n, "12-bit");
  /* height 0 (DNL) */
  memcpy(q, p, n);
  q[sof + 5] = q[sof + 6] = 0;
  expect_refusal("DNL", q, n, "DNL");
  /* sampling factor 5 */
  memcpy(q, p, n);
  q[sof + 11] = 0x51;
  expect_refusal("sampling 5", q, n, "sampling factor");
  /* 2 and 3 horizontally: libjpeg has no fractional upsampling */
  memcpy(q, p, n);
  q[sof + 11] = 0x31;
  q[sof + 14] = 0x21;
  expect_refusal("3x1,2x1", q, n, "fractional");
  /* quantization table 2 never defined */
  memcpy(q, p, n);
  q[sof + 12] = 2;
  expect_refusal("quant table", q, n, "quantization table");
  /* a truncated file (no EOI, data cut) and a file without its EOI */
  expect_refusal("truncated", p, n - 40, "truncated");
  expect_refusal("no EOI", p, n - 2, "truncated");
  /* not JPEG */
  expect_refusal("not JPEG", (const uint8_t *)"GIF89a", 6, "SOI");
  /* 2 components: Pillow has no mode for them */
  static const uint8_t two[] = {0xff, 0xd8, 0xff, 0xc0, 0, 14, 8, 0, 8, 0, 8, 2, 1, 0x11, 0, 2, 0x11, 0};
  expect_refusal("2 components", two, sizeof two, "component");
  free(q);
  free(p);
  /* a progressive file missing its AC scans would be block-smoothed by libjpeg: refused */
  p = load("progressive", "jpg", &n);
  if (!p) return;
  size_t first_sos = 0, second_sos = 0;
  for (size_t i = 2; i + 1 < n; i++)
    if (p[i] == 0xff && p[i + 1] == 0xda) {
      if (!first_sos) first_sos = i;
      else if (!second_sos) second_sos = i;
    }
  CHECK(second_sos > first_sos);
  q = malloc(second_sos + 2);
  memcpy(q, p, second_sos);
  q[second_sos] = 0xff;
  q[second_sos + 1] = 0xd9;
  expect_refusal("DC-only progressive", q, second_sos + 2, "smoothing");
  free(q);
  /* the last scan repeated: decoded as libjpeg does up to the cap of 1000 scans */
  size_t last_sos = 0;
  for (size_t i = 2; i + 1 < n; i++)
    if (p[i] == 0xff && p[i + 1] == 0xda) last_sos = i;
  size_t scan = n - 2 - last_sos;
  q = malloc(last_sos + 1001 * scan + 2);
  memcpy(q, p, last_sos);
  size_t m = last_sos;
  for (int k = 0; k < 1001; k++, m += scan) memcpy(q + m, p + last_sos, scan);
  q[m++] = 0xff;
  q[m++] = 0xd9;
  expect_refusal("1001 scans", q, m, "1000 scans");
  free(q);
  free(p);
}

/* The stream without its DHT segments. */
static size_t strip_dht(const uint8_t *p, size_t n, uint8_t *out) {
  size_t o = 0, i = 0;
  while (i < n) {
    if (i + 3 < n && p[i] == 0xff && p[i + 1] == 0xc4) {
      i += 2 + (((size_t)p[i + 2] << 8) | p[i + 3]);
      continue;
    }
    out[o++] = p[i++];
  }
  return o;
}

/* libjpeg supplies the standard Huffman tables to a sequential stream that defines none
 * (Motion JPEG), but not to a progressive one. */
static void check_default_tables(void) {
  size_t n, ne;
  uint8_t *p = load("s420", "jpg", &n), *want = load("s420", "rgb", &ne);
  if (p && want) {
    uint8_t *q = malloc(n);
    size_t m = strip_dht(p, n, q);
    CHECK(m < n);
    berth_image_dst_t d;
    uint8_t *rgb;
    const char *why = decode(q, m, 19, 23, &d, &rgb);
    CHECK_MSG(!why, "s420 without DHT: %s", why);
    if (!why) CHECK(memcmp(rgb, want, ne) == 0); /* Pillow encodes with the standard tables */
    free(rgb);
    free(q);
  }
  free(p);
  free(want);
  p = load("progressive", "jpg", &n);
  if (p) {
    uint8_t *q = malloc(n);
    size_t m = strip_dht(p, n, q);
    expect_refusal("progressive without DHT", q, m, "undefined Huffman table");
    free(q);
  }
  free(p);
}

/* ------------------------------------------------------------------ scratch */

static void check_scratch(void) {
  uint64_t big = berth_image_jpeg_scratch_bytes(1u << 15, 1u << 15);
  CHECK(big != UINT64_MAX && big > (uint64_t)(1u << 15) * (1u << 15) * 6);
  CHECK(berth_image_jpeg_scratch_bytes(8, 8) < berth_image_jpeg_scratch_bytes(8, 16));
  CHECK(berth_image_jpeg_scratch_bytes(0, 0) > 0);
  CHECK(berth_image_jpeg_scratch_bytes(UINT32_MAX, UINT32_MAX) == UINT64_MAX);
  CHECK(berth_image_jpeg_scratch_bytes(UINT32_MAX, 8) != UINT64_MAX);
  /* With less scratch than the bound, a decode either works (the bound is generous) or is
   * refused by name; it never writes past the buffer (exact-size under ASan). The state
   * alone is not enough for any image. */
  size_t n, ne;
  uint8_t *p = load("s_4x2", "jpg", &n), *want = load("s_4x2", "rgb", &ne);
  if (!p || !want) {
    free(p);
    free(want);
    return;
  }
  uint64_t need = berth_image_jpeg_scratch_bytes(17, 33);
  int refused = 0;
  for (uint64_t have = 0; have < need; have += need / 61 + 1) {
    berth_image_dst_t d = {0};
    d.max_height = 17;
    d.max_width = 33;
    d.rgb = malloc(17 * 33 * 3);
    d.scratch_bytes = (size_t)have;
    d.scratch = have ? aligned_alloc(16, ((size_t)have + 15) & ~(size_t)15) : NULL;
    const char *why = berth_image_decode_jpeg(p, n, &d);
    if (why) refused++;
    CHECK_MSG(why ? strstr(why, "scratch") != NULL : memcmp(d.rgb, want, ne) == 0, "scratch %llu of %llu: %s",
              (unsigned long long)have, (unsigned long long)need, why ? why : "wrong pixels");
    free(d.scratch);
    free(d.rgb);
  }
  CHECK(refused >= 10);
  free(want);
  free(p);
}

/* ------------------------------------------------------------------ robustness */

static void check_sweep(const char *name, uint32_t h, uint32_t w) {
  size_t n;
  uint8_t *p = load(name, "jpg", &n);
  if (!p) return;
  int refused = itu_robustness_sweep(berth_image_decode_jpeg, berth_image_jpeg_scratch_bytes, p, n, h, w);
  CHECK_MSG(refused > (int)n, "%s: only %d of %zu damaged streams refused", name, refused, 4 * n);
  free(p);
}

int main(void) {
  check_suite("test_image_decoder_decode_jpeg_rgb", 0);
  check_suite("test_image_decoder_decode_jpeg_bgr", 1);
  check_suite("test_image_decoder_decode_jpeg_grayscale", 2);
  for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) check_vector(&vectors[i]);
  check_refusals();
  check_default_tables();
  check_scratch();
  check_sweep("s420", 19, 17);
  check_sweep("progressive_restart", 18, 24);
  check_sweep("restart_rows", 18, 24);
  check_sweep("multiscan", 19, 17);
  check_sweep("ycck", 13, 21);
  return test_finish("test_image_jpeg");
}
