/* Image decoders for ONNX ImageDecoder (opset 20): one file per container format
 * (image_bmp.c, image_pnm.c, image_tiff.c, image_png.c, image_jpeg.c, image_webp.c,
 * image_jp2.c), behind one contract so that the kernel (kernel_image_decoder.c) picks a
 * decoder by the stream's magic bytes and knows, before the call, how much working memory
 * any decoder may use.
 *
 * Every decoder:
 *   - reads only src[0, n): the stream is untrusted, so every length, count, offset and
 *     dimension in it is range-checked before use (base/checked.h for products);
 *   - writes the image as 8-bit RGB, row-major, height * width * 3 bytes packed at the start
 *     of dst->rgb (capacity max_height * max_width * 3); a grey image is written with R = G =
 *     B; an alpha channel is dropped; 16-bit samples are reduced the way the reference
 *     decoder (Pillow, which the ONNX reference implementation calls) reduces them;
 *   - matches the reference decoder bit for bit where the format is lossless, and for the
 *     lossy formats (JPEG, WebP) reproduces libjpeg's / libwebp's integer arithmetic
 *     (IDCT, upsampling, colour conversion) exactly;
 *   - returns NULL on success, else a static one-line message saying what is wrong with the
 *     stream ("JPEG: Huffman code not in table"); an image larger than the bound is refused
 *     with exactly "<FORMAT>: image is larger than the bound" (berth_image_too_large in
 *     image_sniff.h recognizes it); it never crashes and never reads or writes outside its
 *     buffers;
 *   - uses no memory but dst->scratch (dst->scratch_bytes bytes, 16-byte aligned, at least
 *     what its *_scratch_bytes function asks for the same bound), no malloc, no stdio, no
 *     static mutable state, and no stack frame over 512 bytes (tables go in the scratch):
 *     it runs inside the runtime, whose stack use is measured by a test.
 *
 * The scratch bound is a function of the maximum dimensions only (the planner reserves it
 * once, in the arena, with the node's lifetime); it must not overflow for max dimensions up
 * to 2^15 each (return UINT64_MAX where it would, and the planner refuses the node). */
#ifndef BERTH_KERNELS_IMAGE_CODEC_H
#define BERTH_KERNELS_IMAGE_CODEC_H

#include <stddef.h>
#include <stdint.h>

typedef struct berth_image_dst {
  uint8_t *rgb;             /* max_height * max_width * 3 bytes */
  uint32_t max_height;      /* the bound: a larger image is refused, not cropped */
  uint32_t max_width;
  void *scratch;            /* working memory, 16-byte aligned */
  size_t scratch_bytes;
  uint32_t height;          /* out: the decoded image's size */
  uint32_t width;
} berth_image_dst_t;

/* The container formats, told apart by their first bytes (berth_image_sniff). */
typedef enum berth_image_format {
  BERTH_IMAGE_UNKNOWN = 0,
  BERTH_IMAGE_BMP,  /* "BM" */
  BERTH_IMAGE_PNM,  /* "P1".."P6" */
  BERTH_IMAGE_TIFF, /* "II*\0" or "MM\0*" */
  BERTH_IMAGE_PNG,  /* 89 "PNG" 0D 0A 1A 0A */
  BERTH_IMAGE_JPEG, /* FF D8 FF */
  BERTH_IMAGE_WEBP, /* "RIFF" .... "WEBP" */
  BERTH_IMAGE_JP2,  /* JP2 box signature, or a raw J2K codestream FF 4F FF 51 */
} berth_image_format_t;

const char *berth_image_decode_bmp(const uint8_t *src, size_t n, berth_image_dst_t *dst);
const char *berth_image_decode_pnm(const uint8_t *src, size_t n, berth_image_dst_t *dst);
const char *berth_image_decode_tiff(const uint8_t *src, size_t n, berth_image_dst_t *dst);
const char *berth_image_decode_png(const uint8_t *src, size_t n, berth_image_dst_t *dst);
const char *berth_image_decode_jpeg(const uint8_t *src, size_t n, berth_image_dst_t *dst);
const char *berth_image_decode_webp(const uint8_t *src, size_t n, berth_image_dst_t *dst);
const char *berth_image_decode_jp2(const uint8_t *src, size_t n, berth_image_dst_t *dst);

uint64_t berth_image_bmp_scratch_bytes(uint32_t max_height, uint32_t max_width);
uint64_t berth_image_pnm_scratch_bytes(uint32_t max_height, uint32_t max_width);
uint64_t berth_image_tiff_scratch_bytes(uint32_t max_height, uint32_t max_width);
uint64_t berth_image_png_scratch_bytes(uint32_t max_height, uint32_t max_width);
uint64_t berth_image_jpeg_scratch_bytes(uint32_t max_height, uint32_t max_width);
uint64_t berth_image_webp_scratch_bytes(uint32_t max_height, uint32_t max_width);
uint64_t berth_image_jp2_scratch_bytes(uint32_t max_height, uint32_t max_width);

#endif
