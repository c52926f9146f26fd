/* The BMP, PNM, TIFF and PNG decoders (src/kernels/image_*.c) and the ImageDecoder dispatch
 * (image_sniff.h): the suite's folders and tests/images' vectors (written by
 * tests/images/make.py, the expected pixels from Pillow) bit for bit; a bound one pixel too
 * small refused with the decoder's message; the pixel formats; and every truncation and
 * single-byte corruption of every vector survived (tests/image_test_util.h). */
#include "image_test_util.h"
#include "kernels/image_sniff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fmt {
  const char *ext[3];
  itu_decode_fn dec;
  itu_scratch_fn scratch;
  berth_image_format_t id;
} fmt_t;

static const fmt_t k_fmts[] = {
    {{".bmp", NULL, NULL}, berth_image_decode_bmp, berth_image_bmp_scratch_bytes, BERTH_IMAGE_BMP},
    {{".ppm", ".pgm", ".pbm"}, berth_image_decode_pnm, berth_image_pnm_scratch_bytes, BERTH_IMAGE_PNM},
    {{".tif", NULL, NULL}, berth_image_decode_tiff, berth_image_tiff_scratch_bytes, BERTH_IMAGE_TIFF},
    {{".png", NULL, NULL}, berth_image_decode_png, berth_image_png_scratch_bytes, BERTH_IMAGE_PNG},
};

static const fmt_t *fmt_of(const char *name) {
  size_t n = strlen(name);
  for (size_t f = 0; f < sizeof k_fmts / sizeof k_fmts[0]; f++)
    for (int e = 0; e < 3 && k_fmts[f].ext[e]; e++) {
      size_t k = strlen(k_fmts[f].ext[e]);
      if (n > k && strcmp(name + n - k, k_fmts[f].ext[e]) == 0) return &k_fmts[f];
    }
  return NULL;
}

static int g_vectors, g_swept;

/* Decodes with bound h x w (must give `want`) and (h-1) x w, h x (w-1) (must be refused as
 * larger than the bound); then the robustness sweep. */
static void check_vector(const char *name, const fmt_t *f, const uint8_t *src, size_t n, uint32_t h, uint32_t w,
                         const uint8_t *want, bool sweep) {
  berth_image_dst_t d;
  uint8_t *rgb;
  CHECK(berth_image_sniff(src, n) == f->id);
  const char *why = itu_decode(f->dec, f->scratch, src, n, h, w, &d, &rgb);
  CHECK_MSG(!why, "%s: %s", name, why);
  if (!why) {
    CHECK_MSG(d.height == h && d.width == w, "%s: %ux%u, expected %ux%u", name, d.height, d.width, h, w);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)h * w * 3; i++) bad += rgb[i] != want[i];
    CHECK_MSG(bad == 0, "%s: %zu of %zu bytes differ from Pillow's", name, bad, (size_t)h * w * 3);
  }
  free(rgb);
  if (h > 1) {
    why = itu_decode(f->dec, f->scratch, src, n, h - 1, w, &d, &rgb);
    CHECK_MSG(why && strstr(why, "larger than the bound"), "%s: bound %ux%u: %s", name, h - 1, w, why ? why : "accepted");
    free(rgb);
  }
  if (w > 1) {
    why = itu_decode(f->dec, f->scratch, src, n, h, w - 1, &d, &rgb);
    CHECK_MSG(why && strstr(why, "larger than the bound"), "%s: bound %ux%u: %s", name, h, w - 1, why ? why : "accepted");
    free(rgb);
  }
  g_vectors++;
  if (sweep) {
    int refused = itu_robustness_sweep(f->dec, f->scratch, src, n, h, w);
    CHECK_MSG(refused > 0, "%s: no damaged stream was refused", name);
    g_swept++;
  }
}

static void test_vectors(void) {
  size_t len;
  char *manifest = test_read_file(BERTH_SOURCE_DIR "/tests/images/manifest.txt", &len);
  CHECK(manifest != NULL);
  if (!manifest) return;
  const char *only = getenv("BERTH_IMAGE_VECTOR"); /* one vector, when debugging */
  for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
    char name[128], path[512];
    unsigned h, w;
    CHECK(sscanf(line, "%127s %u %u", name, &h, &w) == 3);
    if (only && strcmp(only, name) != 0) continue;
    const fmt_t *f = fmt_of(name);
    CHECK_MSG(f != NULL, "%s: unknown extension", name);
    size_t n, m;
    snprintf(path, sizeof path, "%s/tests/images/%s", BERTH_SOURCE_DIR, name);
    char *src = test_read_file(path, &n);
    snprintf(path, sizeof path, "%s/tests/images/%s.rgb", BERTH_SOURCE_DIR, name);
    char *want = test_read_file(path, &m);
    CHECK_MSG(src && want && m == (size_t)h * w * 3, "%s: files missing or of the wrong size", name);
    if (f && src && want && m == (size_t)h * w * 3) check_vector(name, f, (const uint8_t *)src, n, h, w, (const uint8_t *)want, true);
    free(src);
    free(want);
  }
  free(manifest);
}

/* The suite's folders of our formats, through berth_image_decode with each pixel format. */
static void test_suite(void) {
  static const char *const folders[] = {"test_image_decoder_decode_bmp_rgb", "test_image_decoder_decode_pnm_rgb",
                                        "test_image_decoder_decode_tiff_rgb", "test_image_decoder_decode_png_rgb"};
  for (size_t k = 0; k < sizeof folders / sizeof folders[0]; k++) {
    itu_case_t c;
    if (!itu_case_load(folders[k], &c)) continue;
    CHECK(c.rank == 3 && c.dims[2] == 3);
    uint32_t h = (uint32_t)c.dims[0], w = (uint32_t)c.dims[1];
    berth_image_format_t id = berth_image_sniff(c.stream, c.stream_len);
    const fmt_t *f = NULL;
    for (size_t i = 0; i < sizeof k_fmts / sizeof k_fmts[0]; i++)
      if (k_fmts[i].id == id) f = &k_fmts[i];
    CHECK_MSG(f != NULL, "%s: format not sniffed", folders[k]);
    if (f) check_vector(folders[k], f, c.stream, c.stream_len, h, w, c.pixels, false);
    /* BGR and Grayscale through the dispatch */
    berth_image_dst_t d = {malloc((size_t)h * w * 3), h, w, NULL, 0, 0, 0};
    d.scratch_bytes = (size_t)berth_image_scratch_bytes(h, w);
    d.scratch = aligned_alloc(16, (d.scratch_bytes + 15) & ~(size_t)15);
    CHECK(berth_image_decode(c.stream, c.stream_len, BERTH_IMAGE_BGR, &d) == NULL);
    for (size_t i = 0; i < (size_t)h * w; i++)
      CHECK(d.rgb[3 * i] == c.pixels[3 * i + 2] && d.rgb[3 * i + 1] == c.pixels[3 * i + 1] && d.rgb[3 * i + 2] == c.pixels[3 * i]);
    CHECK(berth_image_decode(c.stream, c.stream_len, BERTH_IMAGE_GRAY, &d) == NULL);
    for (size_t i = 0; i < (size_t)h * w; i++) {
      const uint8_t *p = c.pixels + 3 * i;
      CHECK(d.rgb[i] == (uint8_t)((p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16));
    }
    free(d.rgb);
    free(d.scratch);
    itu_case_free(&c);
  }
}

/* Streams no decoder takes, and the dispatch's refusals. */
static void test_dispatch(void) {
  static const uint8_t junk[] = {'G', 'I', 'F', '8', '9', 'a', 0, 0};
  uint8_t rgb[3];
  berth_image_dst_t d = {rgb, 1, 1, NULL, 0, 0, 0};
  CHECK(berth_image_sniff(junk, sizeof junk) == BERTH_IMAGE_UNKNOWN);
  const char *why = berth_image_decode(junk, sizeof junk, BERTH_IMAGE_RGB, &d);
  CHECK(why && strstr(why, "not an image format"));
  CHECK(berth_image_decode(junk, 0, BERTH_IMAGE_RGB, &d) != NULL);
  /* a PNG with too little working memory is refused, not overrun */
  static const char *const path = BERTH_SOURCE_DIR "/tests/images/png_rgb.png";
  size_t n;
  char *src = test_read_file(path, &n);
  CHECK(src != NULL);
  if (src) {
    uint8_t big[7 * 5 * 3], scratch[64];
    berth_image_dst_t e = {big, 5, 7, scratch, sizeof scratch, 0, 0};
    why = berth_image_decode_png((const uint8_t *)src, n, &e);
    CHECK(why && strstr(why, "working memory"));
    free(src);
  }
  /* the scratch bounds: monotone, and UINT64_MAX past 2^15 */
  CHECK(berth_image_png_scratch_bytes(32769, 1) == UINT64_MAX && berth_image_tiff_scratch_bytes(1, 40000) == UINT64_MAX);
  CHECK(berth_image_scratch_bytes(64, 64) >= berth_image_png_scratch_bytes(64, 64));
  CHECK(berth_image_scratch_bytes(32768, 32768) < UINT64_MAX);
}

/* An RLE8 delta moves right and up by its two bytes (the format, and Pillow from 10.0;
 * Pillow 9.4, which made the vectors, reads two more bytes, so make.py has no delta). */
static void test_bmp_rle_delta(void) {
  static const uint8_t rle[] = {1, 5, 0, 2, 1, 0, 1, 7, 0, 0, 3, 9, 0, 1};
  uint8_t bmp[14 + 40 + 1024 + sizeof rle];
  memset(bmp, 0, sizeof bmp);
  bmp[0] = 'B', bmp[1] = 'M';
  uint32_t off = 14 + 40 + 1024;
  memcpy(bmp + 10, &off, 4); /* little-endian host (every target berth tests on) */
  uint32_t info[10] = {40, 3, 2, 1 | 8u << 16, 1, sizeof rle, 0, 0, 256, 0};
  memcpy(bmp + 14, info, sizeof info);
  for (int i = 0; i < 256; i++) bmp[54 + 4 * i] = (uint8_t)(i + 2), bmp[55 + 4 * i] = (uint8_t)(i + 1), bmp[56 + 4 * i] = (uint8_t)i;
  memcpy(bmp + off, rle, sizeof rle);
  berth_image_dst_t d;
  uint8_t *rgb;
  const char *why = itu_decode(berth_image_decode_bmp, berth_image_bmp_scratch_bytes, bmp, sizeof bmp, 2, 3, &d, &rgb);
  CHECK_MSG(!why, "%s", why);
  if (rgb) {
    static const uint8_t want_idx[6] = {9, 9, 9, 5, 0, 7}; /* top row first; the bottom row has the delta's gap */
    for (int i = 0; i < 6; i++) CHECK(rgb[3 * i] == want_idx[i] && rgb[3 * i + 1] == want_idx[i] + 1 && rgb[3 * i + 2] == want_idx[i] + 2);
  }
  free(rgb);
}

int main(void) {
  test_dispatch();
  test_bmp_rle_delta();
  test_suite();
  test_vectors();
  printf("%d vectors decoded, %d swept\n", g_vectors, g_swept);
  return test_finish("test_image_decoders");
}
