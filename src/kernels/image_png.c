/* PNG decoder (image_codec.h): every chunk's CRC checked; IHDR, PLTE and the IDAT run (zlib,
 * image_inflate.c); colour types 0/2/3/4/6 at every bit depth the format allows; the five
 * filters; Adam7 interlace. As Pillow: an alpha channel and tRNS are dropped, 16-bit colour
 * keeps the high byte, 16-bit grey (Pillow's mode I) clips to 255, grey below 8 bits is
 * scaled (x255, x85, x17), a palette index past PLTE reads Pillow's grey ramp (i, i, i), and
 * chunks after the IDAT run are not read (a missing IEND is accepted).
 *
 * Scratch: the inflate tables, then the filtered image (every pass's rows with their filter
 * byte), unfiltered in place. */
#include "image_codec.h"
#include "image_inflate.h"

#include "base/checked.h"

#include <string.h>

typedef struct png_info {
  uint32_t w, h;
  int depth, ctype, interlace, channels;
  const uint8_t *plte; /* NULL when absent */
  uint32_t n_plte;
  const uint8_t *idat; /* the first IDAT chunk's header (its length field) */
} png_info_t;

static const uint8_t k_sig[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* CRC-32 (ISO-HDLC, as PNG), four bits at a time through a constant 16-entry table. */
static uint32_t crc32_png(const uint8_t *p, size_t n) {
  static const uint32_t t[16] = {0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
                                 0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
                                 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c};
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    c = (c >> 4) ^ t[c & 15];
    c = (c >> 4) ^ t[c & 15];
  }
  return ~c;
}

/* Row bytes of a w-pixel row (w < 2^31, 64 bits per pixel at most: no overflow in 64 bits). */
static uint64_t row_bytes(uint64_t w, int bits_per_pixel) { return (w * (uint64_t)bits_per_pixel + 7) / 8; }

static const uint8_t k_x0[7] = {0, 4, 0, 2, 0, 1, 0}, k_dx[7] = {8, 8, 4, 4, 2, 2, 1};
static const uint8_t k_y0[7] = {0, 0, 4, 0, 2, 0, 1}, k_dy[7] = {8, 8, 8, 4, 4, 2, 2};

static uint64_t pass_extent(uint64_t n, int start, int step) { return n > (uint64_t)start ? (n - (uint64_t)start + (uint64_t)step - 1) / (uint64_t)step : 0; }

/* Bytes of the filtered image (filter bytes included). */
static uint64_t filtered_bytes(uint64_t w, uint64_t h, int bpp_bits, int interlace) {
  if (!interlace) return h * (1 + row_bytes(w, bpp_bits));
  uint64_t total = 0;
  for (int p = 0; p < 7; p++) {
    uint64_t pw = pass_extent(w, k_x0[p], k_dx[p]), ph = pass_extent(h, k_y0[p], k_dy[p]);
    if (pw && ph) total += ph * (1 + row_bytes(pw, bpp_bits));
  }
  return total;
}

uint64_t berth_image_png_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  if (max_height > 32768 || max_width > 32768) return UINT64_MAX;
  uint64_t a = filtered_bytes(max_width, max_height, 64, 0), b = filtered_bytes(max_width, max_height, 64, 1);
  return BERTH_INFLATE_TABLE_BYTES + (a > b ? a : b);
}

static const char *check_ihdr(const uint8_t *d, png_info_t *pi) {
  pi->w = be32(d);
  pi->h = be32(d + 4);
  pi->depth = d[8];
  pi->ctype = d[9];
  pi->interlace = d[12];
  if (pi->w == 0 || pi->h == 0 || pi->w > 0x7fffffffu || pi->h > 0x7fffffffu) return "PNG: bad image size in IHDR";
  if (d[10] != 0 || d[11] != 0 || d[12] > 1) return "PNG: unknown compression, filter or interlace method";
  int dp = pi->depth, ok;
  switch (pi->ctype) {
    case 0: ok = dp == 1 || dp == 2 || dp == 4 || dp == 8 || dp == 16, pi->channels = 1; break;
    case 3: ok = dp == 1 || dp == 2 || dp == 4 || dp == 8, pi->channels = 1; break;
    case 2: ok = dp == 8 || dp == 16, pi->channels = 3; break;
    case 4: ok = dp == 8 || dp == 16, pi->channels = 2; break;
    case 6: ok = dp == 8 || dp == 16, pi->channels = 4; break;
    default: return "PNG: unknown colour type";
  }
  return ok ? NULL : "PNG: bit depth not allowed for the colour type";
}

/* Walks the chunks up to the end of the IDAT run, checking every CRC. */
static const char *read_chunks(const uint8_t *src, size_t n, png_info_t *pi) {
  if (n < 8 || memcmp(src, k_sig, 8) != 0) return "PNG: bad signature";
  size_t off = 8;
  int seen_ihdr = 0, in_idat = 0;
  pi->plte = NULL;
  pi->n_plte = 0;
  pi->idat = NULL;
  for (;;) {
    if (n - off < 12) {
      if (pi->idat) return NULL; /* the data after the IDAT run ends early: Pillow accepts it */
      return "PNG: stream ends before the image data";
    }
    uint32_t len = be32(src + off);
    const uint8_t *type = src + off + 4, *data = src + off + 8;
    if (len > 0x7fffffffu || len > n - off - 12) return pi->idat ? NULL : "PNG: chunk runs past the end of the stream";
    int is_idat = memcmp(type, "IDAT", 4) == 0;
    if (in_idat && !is_idat) return NULL; /* the run ended: the rest is not read */
    if (crc32_png(type, (size_t)len + 4) != be32(data + len)) return "PNG: chunk CRC mismatch";
    if (!seen_ihdr) {
      if (memcmp(type, "IHDR", 4) != 0 || len != 13) return "PNG: the first chunk is not a 13-byte IHDR";
      const char *why = check_ihdr(data, pi);
      if (why) return why;
      seen_ihdr = 1;
    } else if (memcmp(type, "PLTE", 4) == 0) {
      if (len % 3 || len == 0 || len > 768) return "PNG: bad PLTE length";
      pi->plte = data;
      pi->n_plte = len / 3;
    } else if (is_idat) {
      if (!pi->idat) pi->idat = src + off;
      in_idat = 1;
    } else if (memcmp(type, "IEND", 4) == 0) {
      return "PNG: no image data before IEND";
    }
    off += (size_t)len + 12;
  }
}

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
  int p = (int)a + b - c, pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p, pc = p > c ? p - c : c - p;
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Unfilters one row of rb bytes in place (prev: the unfiltered previous row, NULL for none). */
static const char *unfilter(uint8_t *row, const uint8_t *prev, size_t rb, size_t bpp, int ft) {
  switch (ft) {
    case 0: return NULL;
    case 1: for (size_t i = bpp; i < rb; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]); return NULL;
    case 2: if (prev) for (size_t i = 0; i < rb; i++) row[i] = (uint8_t)(row[i] + prev[i]); return NULL;
    case 3:
      for (size_t i = 0; i < rb; i++) {
        int a = i >= bpp ? row[i - bpp] : 0, b = prev ? prev[i] : 0;
        row[i] = (uint8_t)(row[i] + ((a + b) >> 1));
      }
      return NULL;
    case 4:
      for (size_t i = 0; i < rb; i++) {
        uint8_t a = i >= bpp ? row[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= bpp ? prev[i - bpp] : 0;
        row[i] = (uint8_t)(row[i] + paeth(a, b, c));
      }
      return NULL;
    default: return "PNG: unknown filter type";
  }
}

/* Sample c of pixel x of an unfiltered row as Pillow's 8-bit value (before the palette). */
static uint8_t sample(const png_info_t *pi, const uint8_t *row, uint32_t x, int c) {
  int d = pi->depth;
  if (d == 8) return row[(size_t)x * (size_t)pi->channels + (size_t)c];
  if (d == 16) {
    const uint8_t *s = row + ((size_t)x * (size_t)pi->channels + (size_t)c) * 2;
    if (pi->ctype == 0) return s[0] ? 255 : s[1]; /* mode I, clipped */
    return s[0];
  }
  uint32_t bit = x * (uint32_t)d;
  uint8_t v = (uint8_t)((row[bit >> 3] >> (8 - d - (int)(bit & 7))) & ((1 << d) - 1));
  if (pi->ctype == 3) return v;
  return (uint8_t)(v * (d == 1 ? 255 : d == 2 ? 85 : 17));
}

static void put_pixel(const png_info_t *pi, const uint8_t *row, uint32_t x, uint8_t *o) {
  if (pi->ctype == 3) {
    uint8_t i = sample(pi, row, x, 0);
    if (i < pi->n_plte) memcpy(o, pi->plte + 3 * (size_t)i, 3);
    else o[0] = o[1] = o[2] = i;
  } else if (pi->ctype == 2 || pi->ctype == 6) {
    for (int c = 0; c < 3; c++) o[c] = sample(pi, row, x, c);
  } else {
    o[0] = o[1] = o[2] = sample(pi, row, x, 0);
  }
}

/* Unfilters the pass (or whole image) of pw x ph pixels at buf and writes its pixels at
 * (x0 + i*dx, y0 + j*dy). Returns the bytes it used or sets *why. */
static size_t emit_pass(const png_info_t *pi, uint8_t *buf, uint32_t pw, uint32_t ph, const uint8_t *geo, uint8_t *rgb,
                        const char **why) {
  int bits = pi->depth * pi->channels;
  size_t rb = (size_t)row_bytes(pw, bits), bpp = bits >= 8 ? (size_t)bits / 8 : 1;
  const uint8_t *prev = NULL;
  for (uint32_t j = 0; j < ph; j++) {
    uint8_t *row = buf + (size_t)j * (rb + 1);
    *why = unfilter(row + 1, prev, rb, bpp, row[0]);
    if (*why) return 0;
    size_t y = geo[2] + (size_t)j * geo[3];
    uint8_t *o = rgb + (y * pi->w + geo[0]) * 3;
    if (pi->depth == 8 && pi->ctype == 2 && geo[1] == 1) memcpy(o, row + 1, (size_t)pw * 3); /* the common case */
    else for (uint32_t i = 0; i < pw; i++) put_pixel(pi, row + 1, i, o + (size_t)i * geo[1] * 3);
    prev = row + 1;
  }
  return (size_t)ph * (rb + 1);
}

const char *berth_image_decode_png(const uint8_t *src, size_t n, berth_image_dst_t *dst) {
  png_info_t pi;
  const char *why = read_chunks(src, n, &pi);
  if (why) return why;
  if (pi.ctype == 3 && !pi.plte) return "PNG: palette image without PLTE";
  if (pi.h > dst->max_height || pi.w > dst->max_width) return "PNG: image is larger than the bound";
  uint64_t need = filtered_bytes(pi.w, pi.h, pi.depth * pi.channels, pi.interlace);
  if (need > dst->scratch_bytes || dst->scratch_bytes - need < BERTH_INFLATE_TABLE_BYTES || !dst->scratch)
    return "PNG: working memory too small for the image";
  uint8_t *buf = (uint8_t *)dst->scratch + BERTH_INFLATE_TABLE_BYTES;
  uint32_t first_len = be32(pi.idat);
  berth_inflate_src_t in = {pi.idat + 8, pi.idat + 8 + first_len, src + n, 1};
  why = berth_inflate_zlib(&in, buf, (size_t)need, dst->scratch);
  if (why) return why;
  if (!pi.interlace) {
    static const uint8_t whole[4] = {0, 1, 0, 1};
    emit_pass(&pi, buf, pi.w, pi.h, whole, dst->rgb, &why);
  } else {
    for (int p = 0; p < 7 && !why; p++) {
      uint32_t pw = (uint32_t)pass_extent(pi.w, k_x0[p], k_dx[p]), ph = (uint32_t)pass_extent(pi.h, k_y0[p], k_dy[p]);
      if (!pw || !ph) continue;
      uint8_t geo[4] = {k_x0[p], k_dx[p], k_y0[p], k_dy[p]};
      buf += emit_pass(&pi, buf, pw, ph, geo, dst->rgb, &why);
    }
  }
  if (why) return why;
  dst->height = pi.h;
  dst->width = pi.w;
  return NULL;
}
