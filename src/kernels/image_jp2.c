/* placeholder, replaced by the real decoder at merge */
#include "image_codec.h"

const char *berth_image_decode_jp2(const uint8_t *src, size_t n, berth_image_dst_t *dst) {
  (void)src, (void)n, (void)dst;
  return "JPEG 2000: decoder not in this build";
}

uint64_t berth_image_jp2_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  (void)max_height, (void)max_width;
  return 0;
}
