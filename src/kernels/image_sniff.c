/* berth_image_sniff: the container format of an encoded image, from its first bytes. */
#include "image_sniff.h"

#include <string.h>

berth_image_format_t berth_image_sniff(const uint8_t *src, size_t n) {
  static const uint8_t png[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
  static const uint8_t jp2[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0d, 0x0a, 0x87, 0x0a};
  if (n >= 8 && memcmp(src, png, 8) == 0) return BERTH_IMAGE_PNG;
  if (n >= 3 && src[0] == 0xff && src[1] == 0xd8 && src[2] == 0xff) return BERTH_IMAGE_JPEG;
  if (n >= 12 && memcmp(src, "RIFF", 4) == 0 && memcmp(src + 8, "WEBP", 4) == 0) return BERTH_IMAGE_WEBP;
  if ((n >= 12 && memcmp(src, jp2, 12) == 0) || (n >= 4 && src[0] == 0xff && src[1] == 0x4f && src[2] == 0xff && src[3] == 0x51))
    return BERTH_IMAGE_JP2;
  if (n >= 4 && (memcmp(src, "II*\0", 4) == 0 || memcmp(src, "MM\0*", 4) == 0)) return BERTH_IMAGE_TIFF;
  if (n >= 2 && src[0] == 'B' && src[1] == 'M') return BERTH_IMAGE_BMP;
  if (n >= 2 && src[0] == 'P' && src[1] >= '1' && src[1] <= '6') return BERTH_IMAGE_PNM;
  return BERTH_IMAGE_UNKNOWN;
}
