/* The image decoders' fuzz property (berth/testing.h, berth_fuzz_image_check): any bytes,
 * decoded by ImageDecoder's dispatch (kernels/image_sniff.h) with a 64x64 bound into
 * exact-size heap buffers (so ASan sees any access past them), either fail with a one-line
 * message or give an image within the bound; decoding twice gives the same pixels, and BGR
 * and Grayscale are RGB's channels reversed and Pillow's L of them. */
#include "berth/testing.h"

#include "kernels/image_sniff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FI_BOUND 64u

/* Decodes into fresh buffers; NULL with *rgb set (the caller frees it), or the message. */
static const char *decode(const uint8_t *data, size_t size, berth_image_pixels_t pf, berth_image_dst_t *d, uint8_t **rgb,
                          bool *oom) {
  size_t sb = (size_t)berth_image_scratch_bytes(FI_BOUND, FI_BOUND);
  memset(d, 0, sizeof *d);
  d->max_height = d->max_width = FI_BOUND;
  d->rgb = malloc((size_t)FI_BOUND * FI_BOUND * 3);
  d->scratch_bytes = (sb + 15) & ~(size_t)15;
  d->scratch = d->scratch_bytes ? aligned_alloc(16, d->scratch_bytes) : NULL;
  uint8_t *copy = malloc(size ? size : 1); /* exact size: a read past the end is caught */
  *rgb = NULL;
  *oom = !d->rgb || (d->scratch_bytes && !d->scratch) || !copy;
  const char *why = "out of memory";
  if (!*oom) {
    if (size) memcpy(copy, data, size);
    why = berth_image_decode(copy, size, pf, d);
  }
  free(copy);
  free(d->scratch);
  if (why) free(d->rgb);
  else *rgb = d->rgb;
  return why;
}

int berth_fuzz_image_check(const uint8_t *data, size_t size, char *why, size_t why_cap) {
  if (why && why_cap) why[0] = '\0';
  if (!data && size) return snprintf(why, why_cap, "berth_fuzz_image_check: NULL data"), 100;
  berth_image_dst_t d[3];
  uint8_t *px[3] = {NULL, NULL, NULL};
  const char *msg[3];
  bool oom = false, o;
  static const berth_image_pixels_t pf[3] = {BERTH_IMAGE_RGB, BERTH_IMAGE_BGR, BERTH_IMAGE_GRAY};
  for (int k = 0; k < 3; k++) msg[k] = decode(data, size, pf[k], &d[k], &px[k], &o), oom |= o;
  int rc = 0;
  if (oom) goto done; /* out of memory: the property holds */
  if (!!msg[0] != !!msg[1] || !!msg[0] != !!msg[2] || (msg[0] && (strcmp(msg[0], msg[1]) || strcmp(msg[0], msg[2])))) {
    rc = 1, snprintf(why, why_cap, "the pixel formats disagree: '%s', '%s', '%s'", msg[0] ? msg[0] : "ok",
                     msg[1] ? msg[1] : "ok", msg[2] ? msg[2] : "ok");
    goto done;
  }
  if (msg[0]) {
    if (!msg[0][0] || strchr(msg[0], '\n')) rc = 2, snprintf(why, why_cap, "not a one-line message: '%s'", msg[0]);
    goto done;
  }
  uint32_t h = d[0].height, w = d[0].width;
  if (h == 0 || w == 0 || h > FI_BOUND || w > FI_BOUND || d[1].height != h || d[1].width != w || d[2].height != h || d[2].width != w) {
    rc = 3, snprintf(why, why_cap, "image %ux%u outside the bound %ux%u or not the same every time", h, w, FI_BOUND, FI_BOUND);
    goto done;
  }
  for (size_t i = 0; i < (size_t)h * w && !rc; i++) {
    const uint8_t *p = px[0] + 3 * i, *q = px[1] + 3 * i;
    uint8_t l = (uint8_t)((p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16);
    if (q[0] != p[2] || q[1] != p[1] || q[2] != p[0] || px[2][i] != l)
      rc = 4, snprintf(why, why_cap, "pixel %zu: BGR or Grayscale is not RGB's", i);
  }
done:
  for (int k = 0; k < 3; k++) free(px[k]);
  return rc;
}
