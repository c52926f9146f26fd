/* The ImageDecoder kernel's format detection and dispatch (image_sniff.c,
 * kernel_image_decoder.c), shared with the importer, which folds a constant stream by the
 * same code. */
#ifndef BERTH_KERNELS_IMAGE_SNIFF_H
#define BERTH_KERNELS_IMAGE_SNIFF_H

#include "image_codec.h"

#include <stdbool.h>

/* The format of src[0, n) by its magic bytes (BERTH_IMAGE_UNKNOWN when none matches). */
berth_image_format_t berth_image_sniff(const uint8_t *src, size_t n);

/* Output channel orders of ImageDecoder (its pixel_format attribute). */
typedef enum berth_image_pixels { BERTH_IMAGE_RGB = 0, BERTH_IMAGE_BGR = 1, BERTH_IMAGE_GRAY = 2 } berth_image_pixels_t;

/* Working memory any decoder may need for images up to max_h x max_w (the largest of the
 * decoders' *_scratch_bytes; UINT64_MAX when too large). */
uint64_t berth_image_scratch_bytes(uint32_t max_h, uint32_t max_w);

/* Sniffs and decodes src into dst (as image_codec.h), then converts the h*w*3 RGB bytes in
 * place to `pixels` (Grayscale: h*w bytes, L = (19595 R + 38470 G + 7471 B + 2^15) >> 16,
 * Pillow's convert('L')). NULL on success, else the decoder's one-line message. */
const char *berth_image_decode(const uint8_t *src, size_t n, berth_image_pixels_t pixels, berth_image_dst_t *dst);

/* True when a decoder's message is its refusal of an image larger than the bound: every
 * decoder words it "<FORMAT>: image is larger than the bound" (image_codec.h), and the kernel
 * and the importer tell it from a damaged stream by this one test
 * (tests/cli/image_decoder.sh checks it for every format). */
bool berth_image_too_large(const char *why);

#endif
