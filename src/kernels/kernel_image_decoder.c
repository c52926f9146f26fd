/* ImageDecoder (ONNX opset 20) under --dynamic-bound N: the kernel image_decoder and the
 * dispatch over the decoders (image_codec.h) that the importer also calls to fold a constant
 * stream (image_sniff.h).
 *
 *   image_decoder(stream u8[n]) {pixel_format, bound}
 *     -> (y u8[bound, bound, C], height i64[], width i64[], status i64[])
 *
 * C is 3 (pixel_format 0 RGB, 1 BGR) or 1 (2 Grayscale). The decoded h x w image is packed
 * densely at the start of y (h*w*C bytes, a tensor [h, w, C]) and every byte after it is
 * zero; height and width are its real extents (the method reports them as the output's
 * shape). status: 0 decoded, 1 the image is larger than bound x bound, 2 no decoder
 * accepts the stream (then y is all zero and the extents 0); the importer's asserts after
 * the node fail the call on 1 and 2. Working memory: planned scratch (kernel_scratch.h) of
 * berth_scratch_image_decoder bytes, the decoders' largest need plus, for Grayscale, the
 * RGB image before conversion. */
#include "image_sniff.h"
#include "kernel_scratch.h"
#include "kernel_util.h"

#include <string.h>

/* ---- dispatch (shared with the importer's folding) ---------------------------------------- */

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

uint64_t berth_image_scratch_bytes(uint32_t max_h, uint32_t max_w) {
  uint64_t b = berth_image_bmp_scratch_bytes(max_h, max_w);
  b = max_u64(b, berth_image_pnm_scratch_bytes(max_h, max_w));
  b = max_u64(b, berth_image_tiff_scratch_bytes(max_h, max_w));
  b = max_u64(b, berth_image_png_scratch_bytes(max_h, max_w));
  b = max_u64(b, berth_image_jpeg_scratch_bytes(max_h, max_w));
  b = max_u64(b, berth_image_webp_scratch_bytes(max_h, max_w));
  return max_u64(b, berth_image_jp2_scratch_bytes(max_h, max_w));
}

static void to_pixels(uint8_t *p, uint64_t npx, berth_image_pixels_t pixels) {
  if (pixels == BERTH_IMAGE_BGR) {
    for (uint64_t i = 0; i < npx; i++) {
      uint8_t r = p[3 * i];
      p[3 * i] = p[3 * i + 2];
      p[3 * i + 2] = r;
    }
  } else if (pixels == BERTH_IMAGE_GRAY) { /* in place: output i <= input 3i */
    for (uint64_t i = 0; i < npx; i++)
      p[i] = (uint8_t)((p[3 * i] * 19595u + p[3 * i + 1] * 38470u + p[3 * i + 2] * 7471u + 0x8000u) >> 16);
  }
}

const char *berth_image_decode(const uint8_t *src, size_t n, berth_image_pixels_t pixels, berth_image_dst_t *dst) {
  const char *why;
  dst->height = dst->width = 0;
  switch (berth_image_sniff(src, n)) {
    case BERTH_IMAGE_BMP: why = berth_image_decode_bmp(src, n, dst); break;
    case BERTH_IMAGE_PNM: why = berth_image_decode_pnm(src, n, dst); break;
    case BERTH_IMAGE_TIFF: why = berth_image_decode_tiff(src, n, dst); break;
    case BERTH_IMAGE_PNG: why = berth_image_decode_png(src, n, dst); break;
    case BERTH_IMAGE_JPEG: why = berth_image_decode_jpeg(src, n, dst); break;
    case BERTH_IMAGE_WEBP: why = berth_image_decode_webp(src, n, dst); break;
    case BERTH_IMAGE_JP2: why = berth_image_decode_jp2(src, n, dst); break;
    default: why = "the stream is not an image format berth knows (BMP, PNM, TIFF, PNG, JPEG, WebP, JPEG 2000)";
  }
  if (why) return why;
  if (dst->height > dst->max_height || dst->width > dst->max_width) return "decoder reported an image beyond its bound";
  to_pixels(dst->rgb, (uint64_t)dst->height * dst->width, pixels);
  return NULL;
}

bool berth_image_too_large(const char *why) {
  static const char key[] = ": image is larger than the bound";
  size_t n = why ? strlen(why) : 0, k = sizeof key - 1;
  return n >= k && strcmp(why + n - k, key) == 0;
}

/* ---- the kernel ------------------------------------------------------------------------------ */

enum { ID_PIXELS, ID_BOUND };
#define ID_MAX_BOUND 32768

static int channels(int64_t pixel_format) { return pixel_format == BERTH_IMAGE_GRAY ? 1 : 3; }

static berth_status_t image_decoder_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                                          berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_image_decoder, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("image_decoder", 0, in[0].dtype, BERTH_DTYPE_BIT(U8), diag));
  if (in[0].rank != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "image_decoder: stream of rank %d, expected a 1-D byte tensor",
                      (int)in[0].rank);
  int64_t pf = attrs[ID_PIXELS].i, b = attrs[ID_BOUND].i;
  if (pf < 0 || pf > 2)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "image_decoder: pixel_format %lld, expected 0 (RGB), 1 (BGR) or 2 (Grayscale)",
                      (long long)pf);
  if (b < 1 || b > ID_MAX_BOUND)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "image_decoder: bound %lld is outside [1, %d]", (long long)b, ID_MAX_BOUND);
  berth_kernel_type_init(&out[0], BERTH_DTYPE_U8, 3);
  out[0].dims[0] = out[0].dims[1] = b;
  out[0].dims[2] = channels(pf);
  for (int k = 1; k < 4; k++) berth_kernel_type_init(&out[k], BERTH_DTYPE_I64, 0);
  return berth_kernel_check_output("image_decoder", &out[0], diag);
}

uint64_t berth_scratch_image_decoder(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in) {
  (void)in, (void)n_in;
  int64_t b = attrs[ID_BOUND].i;
  if (b < 1 || b > ID_MAX_BOUND) return 0;
  uint64_t dec = berth_image_scratch_bytes((uint32_t)b, (uint32_t)b), rgb = 0;
  if (attrs[ID_PIXELS].i == BERTH_IMAGE_GRAY) rgb = (uint64_t)b * (uint64_t)b * 3;
  if (dec == UINT64_MAX || dec > BERTH_SCRATCH_MAX_BYTES) return BERTH_SCRATCH_MAX_BYTES;
  /* rgb, rounded to 16 bytes, then the decoders' scratch (16-byte aligned) */
  return berth_scratch_request(((rgb + 15) & ~(uint64_t)15) + dec + 16, 1);
}

static void image_decoder_run(const berth_kernel_call_t *call) {
  const berth_type_t *st = call->in[0].type;
  int64_t b = call->attrs[ID_BOUND].i, pf = call->attrs[ID_PIXELS].i, c = channels(pf), avail = 0;
  uint8_t *y = (uint8_t *)call->out[0].data, *scratch = (uint8_t *)berth_scratch_take(call, 1, &avail);
  int64_t *h = (int64_t *)call->out[1].data, *w = (int64_t *)call->out[2].data, *status = (int64_t *)call->out[3].data;
  size_t ybytes = (size_t)(b * b * c), rgb_bytes = pf == BERTH_IMAGE_GRAY ? (size_t)(b * b * 3) : 0;
  rgb_bytes = (rgb_bytes + 15) & ~(size_t)15;
  berth_image_dst_t d = {y, (uint32_t)b, (uint32_t)b, NULL, 0, 0, 0};
  if (rgb_bytes) {
    if ((uint64_t)avail < rgb_bytes) scratch = NULL; /* too little: every decode fails */
    d.rgb = scratch;
  }
  if (scratch && (uint64_t)avail > rgb_bytes) d.scratch = scratch + rgb_bytes, d.scratch_bytes = (size_t)avail - rgb_bytes;
  const char *why = d.rgb ? berth_image_decode((const uint8_t *)call->in[0].data, (size_t)st->dims[0],
                                               (berth_image_pixels_t)pf, &d)
                          : "image_decoder: no working memory";
  size_t used = 0;
  if (why) {
    *status = berth_image_too_large(why) ? 1 : 2;
    *h = *w = 0;
  } else {
    *status = 0;
    *h = d.height, *w = d.width;
    used = (size_t)d.height * d.width * (size_t)c;
    if (d.rgb != y) memcpy(y, d.rgb, used);
  }
  memset(y + used, 0, ybytes - used);
}

static const berth_attr_spec_t image_decoder_attrs[] = {{"pixel_format", BERTH_ATTR_INT, false, 0, 0},
                                                        {"bound", BERTH_ATTR_INT, true, 0, 0}};
const berth_op_def_t berth_op_def_image_decoder = {"image_decoder", BERTH_OPKIND_KERNEL, 1, 1, 4, 2,
                                                   image_decoder_attrs, image_decoder_infer, image_decoder_run};
