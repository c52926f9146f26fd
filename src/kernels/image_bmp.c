/* BMP decoder (image_codec.h), as Pillow's BmpImagePlugin reads a file: the 12-byte core
 * header and the 40/64/108/124-byte info headers; BI_RGB at 1, 4, 8 (palette), 16 (5-5-5), 24
 * and 32 bits (the fourth byte ignored); BI_BITFIELDS with the layouts Pillow accepts (32:
 * BGRX, XBGR, ABGR, RGBA, BGRA; 24: BGR; 16: 5-6-5 and 5-5-5); bottom-up and top-down rows
 * padded to 4 bytes; RLE8 and RLE4. A palette index past the palette reads Pillow's grey
 * ramp (i, i, i). No scratch. */
#include "image_codec.h"

#include <string.h>

typedef struct bmp_info {
  uint32_t w, h;
  int top_down, bits, compression;
  const uint8_t *pal; /* palette entries of pal_step bytes (B, G, R[, X]) */
  uint32_t n_pal, pal_step;
  size_t data; /* offset of the pixel data */
  int rgb_pos[3]; /* 32-bit: the byte of R, G, B in a pixel; 16-bit: 5 (5-5-5) or 6 (5-6-5) green bits in rgb_pos[1] */
} bmp_info_t;

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

uint64_t berth_image_bmp_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  return max_height > 32768 || max_width > 32768 ? UINT64_MAX : 0;
}

/* BI_BITFIELDS: the masks (in the header from 56 bytes, else after it) as a layout Pillow knows. */
static const char *bitfields(const uint8_t *src, size_t n, uint32_t hsize, bmp_info_t *bi, size_t *after) {
  uint32_t m[4] = {0, 0, 0, 0};
  if (hsize >= 56) {
    for (int k = 0; k < 4; k++) m[k] = le32(src + 14 + 40 + 4 * k);
  } else {
    if (n - *after < 12) return "BMP: stream ends in the bit-field masks";
    for (int k = 0; k < 3; k++) m[k] = le32(src + *after + 4 * (size_t)k);
    *after += 12;
  }
  static const uint32_t k32[6][4] = {{0xFF0000, 0xFF00, 0xFF, 0},         {0xFF000000u, 0xFF0000, 0xFF00, 0},
                                     {0xFF000000u, 0xFF0000, 0xFF00, 0xFF}, {0xFF, 0xFF00, 0xFF0000, 0xFF000000u},
                                     {0xFF0000, 0xFF00, 0xFF, 0xFF000000u}, {0, 0, 0, 0}};
  static const int8_t pos32[6][3] = {{2, 1, 0}, {3, 2, 1}, {3, 2, 1}, {0, 1, 2}, {2, 1, 0}, {2, 1, 0}};
  if (bi->bits == 32) {
    for (int t = 0; t < 6; t++)
      if (memcmp(m, k32[t], sizeof m) == 0) {
        for (int c = 0; c < 3; c++) bi->rgb_pos[c] = pos32[t][c];
        return NULL;
      }
  } else if (bi->bits == 24) {
    if (m[0] == 0xFF0000 && m[1] == 0xFF00 && m[2] == 0xFF) return NULL;
  } else if (bi->bits == 16) {
    if (m[0] == 0xF800 && m[1] == 0x7E0 && m[2] == 0x1F) return bi->rgb_pos[1] = 6, NULL;
    if (m[0] == 0x7C00 && m[1] == 0x3E0 && m[2] == 0x1F) return bi->rgb_pos[1] = 5, NULL;
  }
  return "BMP: bit-field layout not supported";
}

/* The info header: size, depth, compression, masks, palette, data offset. */
static const char *read_header(const uint8_t *src, size_t n, bmp_info_t *bi) {
  if (n < 18 || src[0] != 'B' || src[1] != 'M') return "BMP: bad signature";
  uint32_t off = le32(src + 10), hsize = le32(src + 14);
  if (hsize != 12 && hsize != 40 && hsize != 64 && hsize != 108 && hsize != 124) return "BMP: unknown header size";
  if (n - 14 < hsize) return "BMP: stream ends in the header";
  const uint8_t *h = src + 18;
  bi->rgb_pos[0] = 2, bi->rgb_pos[1] = 1, bi->rgb_pos[2] = 0;
  uint32_t colors = 0;
  if (hsize == 12) {
    bi->w = le16(h), bi->h = le16(h + 2), bi->bits = (int)le16(h + 6), bi->compression = 0, bi->top_down = 0;
    bi->pal_step = 3;
  } else {
    uint32_t hv = le32(h + 4);
    bi->top_down = h[7] == 0xFF;
    bi->w = le32(h), bi->h = bi->top_down ? 0u - hv : hv;
    bi->bits = (int)le16(h + 10), bi->compression = (int)le32(h + 12), colors = le32(h + 28);
    bi->pal_step = 4;
  }
  if (bi->w == 0 || bi->h == 0 || bi->w > 0x7fffffffu || bi->h > 0x7fffffffu) return "BMP: bad image size";
  size_t after = 14 + (size_t)hsize;
  if (bi->bits != 1 && bi->bits != 4 && bi->bits != 8 && bi->bits != 16 && bi->bits != 24 && bi->bits != 32)
    return "BMP: bit depth not supported";
  if (bi->compression == 3) {
    const char *why = bitfields(src, n, hsize, bi, &after);
    if (why) return why;
  } else if (bi->compression == 1 || bi->compression == 2) {
    if (bi->bits != (bi->compression == 1 ? 8 : 4)) return "BMP: RLE compression at the wrong bit depth";
  } else if (bi->compression != 0) {
    return "BMP: compression not supported";
  }
  if (colors == 0) colors = bi->bits <= 16 ? 1u << bi->bits : 0;
  if (bi->bits <= 8) {
    if (colors > 65536) return "BMP: palette size not supported";
    if (off == 14 + hsize) off += 4 * colors; /* as Pillow: the palette's size is assumed */
    size_t avail = (n - after) / bi->pal_step;
    bi->pal = src + after;
    bi->n_pal = colors < avail ? colors : (uint32_t)avail;
    if (bi->n_pal > 256) bi->n_pal = 256;
    after += (size_t)colors * bi->pal_step; /* may pass n: only used when off is 0 */
  }
  bi->data = off ? off : after;
  return NULL;
}

static void pal_rgb(const bmp_info_t *bi, uint32_t i, uint8_t *o) {
  if (i < bi->n_pal) {
    const uint8_t *e = bi->pal + (size_t)i * bi->pal_step;
    o[0] = e[2], o[1] = e[1], o[2] = e[0];
  } else {
    o[0] = o[1] = o[2] = (uint8_t)i;
  }
}

static void unpack_row(const bmp_info_t *bi, const uint8_t *s, uint8_t *o) {
  for (uint32_t x = 0; x < bi->w; x++, o += 3) {
    switch (bi->bits) {
      case 1: pal_rgb(bi, s[x >> 3] >> (7 - (x & 7)) & 1, o); break;
      case 4: pal_rgb(bi, s[x >> 1] >> (x & 1 ? 0 : 4) & 15, o); break;
      case 8: pal_rgb(bi, s[x], o); break;
      case 16: {
        uint32_t p = le16(s + 2 * (size_t)x);
        if (bi->rgb_pos[1] == 6) {
          o[0] = (uint8_t)((p >> 11 & 31) * 255 / 31), o[1] = (uint8_t)((p >> 5 & 63) * 255 / 63);
        } else {
          o[0] = (uint8_t)((p >> 10 & 31) * 255 / 31), o[1] = (uint8_t)((p >> 5 & 31) * 255 / 31);
        }
        o[2] = (uint8_t)((p & 31) * 255 / 31);
        break;
      }
      default: {
        const uint8_t *q = s + (size_t)x * (size_t)(bi->bits / 8);
        for (int c = 0; c < 3; c++) o[c] = q[bi->rgb_pos[c]];
      }
    }
  }
}

/* RLE8 / RLE4 as Pillow's BmpRleDecoder: a flat run of indices fills the image (rows from the
 * bottom unless top-down); an encoded run is cut at the row's end, an absolute run is not
 * (RLE4 keeps an even count of its pixels); a delta and an end of line append index 0;
 * absolute runs end on an even file offset. Data that stops before the image is full (end
 * of bitmap included) is refused, as Pillow refuses it. */
typedef struct rle_out {
  const bmp_info_t *bi;
  uint8_t *rgb;
  uint64_t total, len;
} rle_out_t;

static void rle_put(rle_out_t *r, uint32_t idx) {
  if (r->len < r->total) {
    uint64_t y = r->len / r->bi->w, x = r->len % r->bi->w;
    uint64_t row = r->bi->top_down ? y : r->bi->h - 1 - y;
    pal_rgb(r->bi, idx, r->rgb + (row * r->bi->w + x) * 3);
  }
  r->len++;
}

/* Appends n zero indices (already in place: the image starts as index 0). */
static void rle_zeros(rle_out_t *r, uint64_t n) { r->len = n > r->total - r->len ? r->total : r->len + n; }

static const char *rle(const uint8_t *src, size_t n, const bmp_info_t *bi, uint8_t *rgb) {
  rle_out_t r = {bi, rgb, (uint64_t)bi->w * bi->h, 0};
  int rle4 = bi->compression == 2;
  size_t p = bi->data;
  uint64_t x = 0;
  for (uint64_t i = 0; i < r.total; i++) pal_rgb(bi, 0, rgb + i * 3);
  while (r.len < r.total && n - p >= 2) {
    uint32_t cnt = src[p], b = src[p + 1];
    p += 2;
    if (cnt) {
      if (x + cnt > bi->w) cnt = x < bi->w ? (uint32_t)(bi->w - x) : 0;
      for (uint32_t k = 0; k < cnt; k++) rle_put(&r, rle4 ? (k & 1 ? b & 15 : b >> 4) : b);
      x += cnt;
    } else if (b == 0) { /* end of line */
      rle_zeros(&r, (bi->w - r.len % bi->w) % bi->w);
      x = 0;
    } else if (b == 1) { /* end of bitmap */
      break;
    } else if (b == 2) { /* delta */
      if (n - p < 2) break;
      rle_zeros(&r, (uint64_t)src[p] + (uint64_t)src[p + 1] * bi->w);
      p += 2;
      x = r.len % bi->w;
    } else { /* absolute run */
      uint32_t bytes = rle4 ? b / 2 : b, got = n - p < bytes ? (uint32_t)(n - p) : bytes;
      for (uint32_t k = 0; k < got && r.len < r.total; k++) {
        if (rle4) rle_put(&r, src[p + k] >> 4), rle_put(&r, src[p + k] & 15);
        else rle_put(&r, src[p + k]);
      }
      p += got;
      if (got < bytes) break;
      x += b;
      if (p % 2 && p < n) p++;
    }
  }
  return r.len < r.total ? "BMP: RLE data ends before the image is complete" : NULL;
}

const char *berth_image_decode_bmp(const uint8_t *src, size_t n, berth_image_dst_t *dst) {
  bmp_info_t bi;
  const char *why = read_header(src, n, &bi);
  if (why) return why;
  if (bi.h > dst->max_height || bi.w > dst->max_width) return "BMP: image is larger than the bound";
  if (bi.data > n) return "BMP: pixel data offset past the end of the stream";
  if (bi.compression == 1 || bi.compression == 2) why = rle(src, n, &bi, dst->rgb);
  else {
    size_t row = ((size_t)bi.w * (size_t)bi.bits + 7) / 8, stride = (((size_t)bi.w * (size_t)bi.bits + 31) >> 3) & ~(size_t)3;
    size_t avail = n - bi.data;
    if (bi.h > 1 && (avail < row || (avail - row) / stride < bi.h - 1)) return "BMP: pixel data ends early";
    if (avail < row) return "BMP: pixel data ends early";
    for (uint32_t y = 0; y < bi.h; y++) {
      uint32_t out_row = bi.top_down ? y : bi.h - 1 - y;
      unpack_row(&bi, src + bi.data + (size_t)y * stride, dst->rgb + (size_t)out_row * bi.w * 3);
    }
  }
  if (why) return why;
  dst->height = bi.h;
  dst->width = bi.w;
  return NULL;
}
