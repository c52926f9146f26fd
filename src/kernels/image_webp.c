/* WebP for ONNX ImageDecoder (image_codec.h): the RIFF container, simple ("VP8 ") and
 * extended ("VP8X": ICCP/EXIF/XMP/ALPH and unknown chunks skipped, the alpha channel
 * dropped; animations refused), and the conversion of the decoded 4:2:0 frame to RGB the
 * way libwebp does it by default: "fancy" upsampling of the chroma (a 9-3-3-1 filter
 * between the two nearest chroma rows and columns) and its 14-bit fixed-point YUV -> RGB.
 * The VP8 frame itself is decoded by image_webp_vp8.c, a lossless ("VP8L") image by
 * image_webp_vp8l.c. */
#include "image_codec.h"
#include "image_webp_internal.h"

#define ANIMATION_FLAG 0x02u

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint32_t le24(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16); }

static int tag_is(const uint8_t *p, const char *tag) {
  return p[0] == (uint8_t)tag[0] && p[1] == (uint8_t)tag[1] && p[2] == (uint8_t)tag[2] && p[3] == (uint8_t)tag[3];
}

uint64_t berth_image_webp_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  const uint64_t lossy = berth_webp_vp8_scratch_bytes(max_height, max_width);
  const uint64_t lossless = berth_webp_vp8l_scratch_bytes(max_height, max_width);
  return lossy > lossless ? lossy : lossless;
}

/* ---- colour conversion (libwebp's dsp/yuv.h and dsp/upsampling.c) ------------------- */

static inline int mult_hi(int v, int coeff) { return (v * coeff) >> 8; }

static inline uint8_t clip8(int v) { /* a 6-bit fixed-point value to 0..255 */
  return (uint8_t)((v & ~16383) == 0 ? (v >> 6) : v < 0 ? 0 : 255);
}

static inline void yuv_to_rgb(int y, int u, int v, uint8_t *rgb) {
  rgb[0] = clip8(mult_hi(y, 19077) + mult_hi(v, 26149) - 14234);
  rgb[1] = clip8(mult_hi(y, 19077) - mult_hi(u, 6419) - mult_hi(v, 13320) + 8708);
  rgb[2] = clip8(mult_hi(y, 19077) + mult_hi(u, 33050) - 17685);
}

/* The chroma at output column 2x-1 (between samples x-1 and x) of a row whose nearest
 * chroma row is a and second nearest b: 9-3-3-1 weights, computed in libwebp's two
 * rounding steps. */
static inline int upsample_mid(int near, int side, int vert, int diag) {
  const int avg = near + side + vert + diag + 8;
  return (near + ((avg + 2 * (side + vert)) >> 3)) >> 1;
}

/* One output row: luma row y_row, chroma rows near (weight 3) and far (weight 1). */
static void upsample_row(const uint8_t *y_row, const uint8_t *nu, const uint8_t *nv, const uint8_t *fu,
                         const uint8_t *fv, uint32_t len, uint8_t *dst) {
  yuv_to_rgb(y_row[0], (3 * nu[0] + fu[0] + 2) >> 2, (3 * nv[0] + fv[0] + 2) >> 2, dst);
  const uint32_t last_pair = (len - 1) >> 1;
  for (uint32_t x = 1; x <= last_pair; x++) {
    int u = upsample_mid(nu[x - 1], nu[x], fu[x - 1], fu[x]);
    int v = upsample_mid(nv[x - 1], nv[x], fv[x - 1], fv[x]);
    yuv_to_rgb(y_row[2 * x - 1], u, v, dst + 3 * (2 * x - 1));
    u = upsample_mid(nu[x], nu[x - 1], fu[x], fu[x - 1]);
    v = upsample_mid(nv[x], nv[x - 1], fv[x], fv[x - 1]);
    yuv_to_rgb(y_row[2 * x], u, v, dst + 3 * (2 * x));
  }
  if (!(len & 1)) {
    const uint32_t x = last_pair;
    yuv_to_rgb(y_row[len - 1], (3 * nu[x] + fu[x] + 2) >> 2, (3 * nv[x] + fv[x] + 2) >> 2, dst + 3 * (len - 1));
  }
}

/* Row r's nearest chroma row is r/2 (rounded down); the other is the row above for an even
 * r and the row below for an odd r, clamped to the plane (libwebp's EmitFancyRGB mirrors
 * the first and, for an even height, the last row). */
static void yuv_to_rgb_image(const webp_yuv_t *f, uint8_t *rgb) {
  const uint32_t uv_rows = (f->height + 1) / 2;
  for (uint32_t r = 0; r < f->height; r++) {
    const uint32_t near = r / 2;
    uint32_t far;
    if (r & 1) far = near + 1 < uv_rows ? near + 1 : near;
    else far = near > 0 ? near - 1 : 0;
    const size_t n_off = (size_t)near * f->uv_stride, f_off = (size_t)far * f->uv_stride;
    upsample_row(f->y + (size_t)r * f->y_stride, f->u + n_off, f->v + n_off, f->u + f_off, f->v + f_off, f->width,
                 rgb + (size_t)r * f->width * 3);
  }
}

/* ---- the container ------------------------------------------------------------------- */

/* Finds the image chunk after a VP8X header: skips the optional chunks (ICCP, ALPH, EXIF,
 * XMP, unknown ones), each padded to an even size. p points after the VP8X chunk. */
static const char *skip_optional_chunks(const uint8_t **p, const uint8_t *end) {
  for (;;) {
    if (end - *p < 8) return "WebP: no VP8 or VP8L image chunk after the VP8X header";
    if (tag_is(*p, "VP8 ") || tag_is(*p, "VP8L")) return NULL;
    if (tag_is(*p, "ANMF") || tag_is(*p, "ANIM")) return "WebP: animated WebP is not supported";
    const uint64_t size = le32(*p + 4), padded = 8 + size + (size & 1);
    if (padded > (uint64_t)(end - *p)) return "WebP: a chunk is longer than the RIFF data";
    *p += padded;
  }
}

/* The VP8X header: flags, canvas size; *p moves past it. */
static const char *parse_vp8x(const uint8_t **p, const uint8_t *end, uint32_t *cw, uint32_t *ch) {
  if (le32(*p + 4) != 10) return "WebP: VP8X chunk size is not 10";
  if (end - *p < 18) return "WebP: VP8X chunk is truncated";
  const uint32_t flags = le32(*p + 8);
  if (flags & ANIMATION_FLAG) return "WebP: animated WebP is not supported";
  *cw = 1 + le24(*p + 12);
  *ch = 1 + le24(*p + 15);
  *p += 18;
  return skip_optional_chunks(p, end);
}

static const char *decode_lossless(const uint8_t *data, size_t size, int extended, uint32_t canvas_w,
                                   uint32_t canvas_h, berth_image_dst_t *dst) {
  uint32_t w = 0, h = 0;
  const char *why = berth_webp_vp8l_decode(data, size, dst->max_height, dst->max_width, dst->scratch,
                                           dst->scratch_bytes, dst->rgb, &w, &h);
  if (why) return why;
  if (extended && (w != canvas_w || h != canvas_h)) return "WebP: VP8X canvas size differs from the VP8L image size";
  dst->width = w;
  dst->height = h;
  return NULL;
}

const char *berth_image_decode_webp(const uint8_t *src, size_t n, berth_image_dst_t *dst) {
  if (n < 12) return "WebP: stream is shorter than the 12-byte RIFF header";
  if (!tag_is(src, "RIFF") || !tag_is(src + 8, "WEBP")) return "WebP: not a RIFF WEBP stream";
  const uint32_t riff_size = le32(src + 4);
  if (riff_size < 12) return "WebP: RIFF size is too small";
  if (riff_size > 0xfffffff6u) return "WebP: RIFF size is too large";
  if (riff_size > n - 8) return "WebP: stream is shorter than its RIFF size (truncated)";
  const uint8_t *p = src + 12, *end = src + 8 + riff_size;
  if (end - p < 8) return "WebP: RIFF data has no chunk";
  uint32_t canvas_w = 0, canvas_h = 0;
  const int extended = tag_is(p, "VP8X");
  if (extended) {
    const char *why = parse_vp8x(&p, end, &canvas_w, &canvas_h);
    if (why) return why;
  }
  const int lossless = tag_is(p, "VP8L");
  if (!lossless && !tag_is(p, "VP8 ")) return "WebP: expected a VP8, VP8L or VP8X chunk";
  const uint32_t size = le32(p + 4);
  if (size > (uint64_t)(end - p) - 8) return "WebP: image chunk is longer than the RIFF data";
  if (lossless) return decode_lossless(p + 8, size, extended, canvas_w, canvas_h, dst);
  webp_yuv_t frame;
  const char *why = berth_webp_vp8_decode(p + 8, size, dst->max_height, dst->max_width, dst->scratch,
                                          dst->scratch_bytes, &frame);
  if (why) return why;
  if (extended && (frame.width != canvas_w || frame.height != canvas_h)) {
    return "WebP: VP8X canvas size differs from the VP8 frame size";
  }
  yuv_to_rgb_image(&frame, dst->rgb);
  dst->width = frame.width;
  dst->height = frame.height;
  return NULL;
}
