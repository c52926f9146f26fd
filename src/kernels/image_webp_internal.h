/* Internal interface of the WebP decoder (image_webp.c: the RIFF container and the colour
 * conversion; image_webp_vp8.c: the VP8 lossy frame; image_webp_vp8_dsp.c: prediction,
 * inverse transforms and loop filters; image_webp_tables.c: the format's constant tables;
 * image_webp_vp8l.c: the VP8L lossless image).
 * The arithmetic follows libwebp's decoder (the reference behind Pillow) step for step, so
 * that the decoded pixels are identical to it. */
#ifndef BERTH_KERNELS_IMAGE_WEBP_INTERNAL_H
#define BERTH_KERNELS_IMAGE_WEBP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* The work block where one macroblock is predicted and reconstructed: a stride of 32 with
 * room for the row above and the column to the left of Y (16x16), U and V (8x8 each). */
#define WEBP_BPS 32
#define WEBP_YUV_SIZE (WEBP_BPS * 17 + WEBP_BPS * 9)
#define WEBP_Y_OFF (WEBP_BPS * 1 + 8)
#define WEBP_U_OFF (WEBP_Y_OFF + WEBP_BPS * 16 + WEBP_BPS)
#define WEBP_V_OFF (WEBP_U_OFF + 16)

/* Intra modes, numbered as the mode probability tables index them. */
enum {
  WEBP_B_DC_PRED = 0,
  WEBP_B_TM_PRED,
  WEBP_B_VE_PRED,
  WEBP_B_HE_PRED,
  WEBP_B_RD_PRED,
  WEBP_B_VR_PRED,
  WEBP_B_LD_PRED,
  WEBP_B_VL_PRED,
  WEBP_B_HD_PRED,
  WEBP_B_HU_PRED,
  WEBP_NUM_BMODES,
  /* 16x16 and chroma: DC, TM, V, H share the numbers above; DC at the frame's edges: */
  WEBP_DC_PRED_NOTOP = 4,
  WEBP_DC_PRED_NOLEFT = 5,
  WEBP_DC_PRED_NOTOPLEFT = 6,
};

extern const uint8_t berth_webp_coeff_proba0[4][8][3][11];
extern const uint8_t berth_webp_coeff_update_proba[4][8][3][11];
extern const uint8_t berth_webp_bmode_proba[10][10][9];
extern const uint8_t berth_webp_dc_table[128];
extern const uint16_t berth_webp_ac_table[128];

/* A decoded frame in 4:2:0 planes (inside the scratch). */
typedef struct webp_yuv {
  const uint8_t *y, *u, *v;
  uint32_t y_stride, uv_stride;
  uint32_t width, height;
} webp_yuv_t;

/* Scratch bytes the VP8 decoder needs for frames up to max_height x max_width
 * (UINT64_MAX on overflow). */
uint64_t berth_webp_vp8_scratch_bytes(uint32_t max_height, uint32_t max_width);

/* Decodes the payload of a "VP8 " chunk (n bytes) into planes in scratch; the frame must fit
 * max_height x max_width. NULL on success, else a static message. */
const char *berth_webp_vp8_decode(const uint8_t *data, size_t n, uint32_t max_height, uint32_t max_width,
                                  void *scratch, size_t scratch_bytes, webp_yuv_t *out);

/* Scratch bytes the VP8L (lossless) decoder needs for images up to max_height x max_width
 * (UINT64_MAX on overflow). */
uint64_t berth_webp_vp8l_scratch_bytes(uint32_t max_height, uint32_t max_width);

/* Decodes the payload of a "VP8L" chunk (n bytes) into rgb (width * height * 3 bytes,
 * packed; alpha dropped). NULL on success, else a static message. */
const char *berth_webp_vp8l_decode(const uint8_t *data, size_t n, uint32_t max_height, uint32_t max_width,
                                   void *scratch, size_t scratch_bytes, uint8_t *rgb, uint32_t *width,
                                   uint32_t *height);

/* Prediction of the work block (dst points at the block's top-left pixel, stride
 * WEBP_BPS, with the row above and the column to the left filled in). */
void berth_webp_pred_luma4(int mode, uint8_t *dst);
void berth_webp_pred_luma16(int mode, uint8_t *dst);
void berth_webp_pred_chroma8(int mode, uint8_t *dst);

/* Inverse transforms: one 4x4 block of coefficients added to dst (stride WEBP_BPS), and
 * the Walsh-Hadamard transform of the 16 luma DC values into out[0], out[16], ... */
void berth_webp_transform(const int16_t *in, uint8_t *dst);
void berth_webp_transform_wht(const int16_t *in, int16_t *out);

/* Loop filters over a plane (p at a macroblock's top-left pixel). */
void berth_webp_simple_filter_mb(uint8_t *p, int stride, int limit, int left, int top, int inner);
void berth_webp_normal_filter_mb(uint8_t *y, uint8_t *u, uint8_t *v, int y_stride, int uv_stride, int limit,
                                 int ilevel, int hev_thresh, int left, int top, int inner);

#endif
