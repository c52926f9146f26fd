/* PNM decoder (image_codec.h): P1-P6 as Pillow's PpmImagePlugin reads them. The header is
 * whitespace-separated decimal tokens of at most 10 characters ('#' comments run to CR/LF
 * and may sit inside a token); the data starts after the one whitespace byte that ends the
 * last token. Binary data with maxval 255 (and P5 at 65535) is taken raw; any other maxval is
 * scaled as Pillow scales it, round(v / maxval * out_max) with Python's round (half to
 * even) and out_max 255, or 65535 for grey above 255 (Pillow's mode I, which then clips to
 * 255 on the way to RGB). Plain (ASCII) data: comments removed; P1 digits need no
 * separators and every byte of the data must be 0/1/whitespace; P2/P3 values above maxval
 * are refused. No scratch. */
#include "image_codec.h"

#include <string.h>

typedef struct pnm_info {
  int kind; /* 1..6 */
  uint32_t w, h, maxval;
  size_t data;
} pnm_info_t;

uint64_t berth_image_pnm_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  return max_height > 32768 || max_width > 32768 ? UINT64_MAX : 0;
}

static int is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

/* Pillow's _read_token: a decimal token (a comment inside it is skipped). */
static const char *read_token(const uint8_t *src, size_t n, size_t *p, uint32_t *v) {
  char tok[12];
  int len = 0;
  while (len <= 10) {
    if (*p >= n) break;
    uint8_t c = src[(*p)++];
    if (is_ws(c)) {
      if (!len) continue;
      break;
    }
    if (c == '#') {
      while (*p < n && src[*p] != '\r' && src[*p] != '\n') (*p)++;
      if (*p < n) (*p)++;
      continue;
    }
    tok[len++] = (char)c;
  }
  if (!len) return "PNM: stream ends in the header";
  if (len > 10) return "PNM: header token too long";
  uint64_t x = 0;
  for (int k = 0; k < len; k++) {
    if (tok[k] < '0' || tok[k] > '9') return "PNM: header token is not a decimal number";
    x = x * 10 + (uint64_t)(tok[k] - '0');
  }
  if (x > 0xffffffffu) return "PNM: header number too large";
  *v = (uint32_t)x;
  return NULL;
}

static const char *read_header(const uint8_t *src, size_t n, pnm_info_t *pi) {
  if (n < 3 || src[0] != 'P' || src[1] < '1' || src[1] > '6' || !is_ws(src[2])) return "PNM: bad signature";
  pi->kind = src[1] - '0';
  size_t p = 3;
  const char *why = read_token(src, n, &p, &pi->w);
  if (!why) why = read_token(src, n, &p, &pi->h);
  pi->maxval = 1;
  if (!why && pi->kind != 1 && pi->kind != 4) {
    why = read_token(src, n, &p, &pi->maxval);
    if (!why && (pi->maxval == 0 || pi->maxval > 65535)) why = "PNM: maxval outside 1..65535";
  }
  if (why) return why;
  if (pi->w == 0 || pi->h == 0 || pi->w > 0x7fffffffu || pi->h > 0x7fffffffu) return "PNM: bad image size";
  pi->data = p;
  return NULL;
}

/* round(v / maxval * out_max) with Python's float arithmetic and round-half-even. */
static uint32_t scale(uint32_t v, uint32_t maxval, uint32_t out_max) {
  double t = (double)v / (double)maxval * (double)out_max;
  double f = (double)(uint64_t)t, frac = t - f; /* t >= 0 */
  uint64_t r = (uint64_t)f;
  if (frac > 0.5 || (frac == 0.5 && (r & 1))) r++;
  return r > out_max ? out_max : (uint32_t)r;
}

/* A scaled sample as the 8-bit RGB value (grey above 255 is Pillow's mode I, clipped). */
static uint8_t to8(const pnm_info_t *pi, uint32_t v) {
  int grey_i = (pi->kind == 2 || pi->kind == 5) && pi->maxval > 255;
  uint32_t s = scale(v, pi->maxval, grey_i ? 65535 : 255);
  return (uint8_t)(s > 255 ? 255 : s);
}

static const char *binary(const uint8_t *src, size_t n, const pnm_info_t *pi, uint8_t *rgb) {
  const uint8_t *d = src + pi->data;
  size_t avail = n - pi->data;
  uint64_t npx = (uint64_t)pi->w * pi->h;
  if (pi->kind == 4) {
    size_t rb = (pi->w + 7) / 8;
    if (avail / rb < pi->h) return "PNM: pixel data ends early";
    for (uint32_t y = 0; y < pi->h; y++)
      for (uint32_t x = 0; x < pi->w; x++) {
        uint8_t v = d[(size_t)y * rb + x / 8] >> (7 - x % 8) & 1 ? 0 : 255;
        memset(rgb + ((size_t)y * pi->w + x) * 3, v, 3);
      }
    return NULL;
  }
  uint32_t ch = pi->kind == 6 ? 3 : 1, bps = pi->maxval > 255 ? 2 : 1;
  if (avail / ((size_t)ch * bps) < npx) return "PNM: pixel data ends early";
  for (uint64_t i = 0; i < npx; i++)
    for (uint32_t c = 0; c < 3; c++) {
      const uint8_t *s = d + (i * ch + (ch == 3 ? c : 0)) * bps;
      uint32_t v = bps == 2 ? (uint32_t)s[0] << 8 | s[1] : s[0];
      if (pi->maxval == 255) rgb[i * 3 + c] = (uint8_t)v;
      else if (pi->maxval == 65535 && pi->kind == 5) rgb[i * 3 + c] = (uint8_t)(v > 255 ? 255 : v); /* raw I;16B */
      else rgb[i * 3 + c] = to8(pi, v); /* a value above maxval clips (Pillow's min) */
    }
  return NULL;
}

/* The next byte of plain data with comments removed (a comment runs to CR/LF, both
 * dropped); -1 at the end. */
static int plain_byte(const uint8_t *src, size_t n, size_t *p) {
  while (*p < n && src[*p] == '#') {
    while (*p < n && src[*p] != '\r' && src[*p] != '\n') (*p)++;
    if (*p < n) (*p)++;
  }
  return *p < n ? src[(*p)++] : -1;
}

static const char *plain_bits(const uint8_t *src, size_t n, const pnm_info_t *pi, uint8_t *rgb) {
  uint64_t npx = (uint64_t)pi->w * pi->h, i = 0;
  size_t p = pi->data;
  for (int c; (c = plain_byte(src, n, &p)) >= 0;) {
    if (is_ws((uint8_t)c)) continue;
    if (c != '0' && c != '1') return "PNM: P1 data holds a byte that is not 0 or 1";
    if (i < npx) memset(rgb + 3 * i++, c == '1' ? 0 : 255, 3);
  }
  return i < npx ? "PNM: pixel data ends early" : NULL;
}

static const char *plain_values(const uint8_t *src, size_t n, const pnm_info_t *pi, uint8_t *rgb) {
  uint64_t need = (uint64_t)pi->w * pi->h * (pi->kind == 3 ? 3 : 1), i = 0;
  size_t p = pi->data;
  while (i < need) {
    int c = plain_byte(src, n, &p);
    if (c < 0) return "PNM: pixel data ends early";
    if (is_ws((uint8_t)c)) continue;
    uint64_t v = 0;
    int len = 0;
    for (; c >= 0 && !is_ws((uint8_t)c); c = plain_byte(src, n, &p), len++) {
      if (c < '0' || c > '9') return "PNM: plain data value is not a decimal number";
      if (len == 10) return "PNM: plain data value too long";
      v = v * 10 + (uint64_t)(c - '0');
    }
    if (v > pi->maxval) return "PNM: plain data value above maxval";
    uint8_t b = to8(pi, (uint32_t)v);
    if (pi->kind == 3) rgb[i++] = b;
    else memset(rgb + 3 * i++, b, 3);
  }
  return NULL;
}

const char *berth_image_decode_pnm(const uint8_t *src, size_t n, berth_image_dst_t *dst) {
  pnm_info_t pi;
  const char *why = read_header(src, n, &pi);
  if (why) return why;
  if (pi.h > dst->max_height || pi.w > dst->max_width) return "PNM: image is larger than the bound";
  if (pi.kind >= 4) why = binary(src, n, &pi, dst->rgb);
  else if (pi.kind == 1) why = plain_bits(src, n, &pi, dst->rgb);
  else why = plain_values(src, n, &pi, dst->rgb);
  if (why) return why;
  dst->height = pi.h;
  dst->width = pi.w;
  return NULL;
}
