/* Baseline TIFF decoder (image_codec.h): the first image of the file, either byte order,
 * strips (no tiles), chunky samples, uncompressed, PackBits, LZW (MSB-first codes with
 * TIFF's early change) and Deflate (image_inflate.c), predictor 2; bilevel/grey (WhiteIsZero
 * or BlackIsZero, 1/2/4/8/16 bits, with an extra alpha sample), RGB (8/16 bits, an extra
 * sample dropped) and palette (1/2/4/8 bits). As Pillow (libtiff): grey below 8 bits is
 * scaled, 16-bit grey (mode I;16) clips to 255, 16-bit colour keeps its most significant
 * byte, the colour map keeps the high byte of each entry, a palette index past the map
 * reads Pillow's grey ramp.
 *
 * Scratch: the inflate tables or the LZW dictionary, then one strip's decoded bytes. */
#include "image_codec.h"
#include "image_inflate.h"

#include "base/checked.h"

#include <string.h>

typedef struct tiff_info {
  const uint8_t *src;
  size_t n;
  int be;
  uint32_t w, h, bps, spp, photometric, compression, predictor, rps;
  uint32_t n_strips;
  size_t strip_off_at, strip_cnt_at; /* where the offsets/counts are (values inline or at an offset) */
  int strip_off_short, strip_cnt_short;
  size_t cmap_at; /* 0: none */
  int has_cmap;
} tiff_info_t;

#define TIFF_LZW_BYTES (4096 * 8)
#define TIFF_TABLE_BYTES (TIFF_LZW_BYTES > BERTH_INFLATE_TABLE_BYTES ? TIFF_LZW_BYTES : BERTH_INFLATE_TABLE_BYTES)

static uint32_t rd16(const tiff_info_t *t, size_t at) {
  const uint8_t *p = t->src + at;
  return t->be ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}
static uint32_t rd32(const tiff_info_t *t, size_t at) {
  return t->be ? rd16(t, at) << 16 | rd16(t, at + 2) : rd16(t, at + 2) << 16 | rd16(t, at);
}

uint64_t berth_image_tiff_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  if (max_height > 32768 || max_width > 32768) return UINT64_MAX;
  return TIFF_TABLE_BYTES + (uint64_t)max_height * max_width * 8; /* a strip of 16-bit RGBA at most */
}

/* One IFD entry: a single value (the first) and, for the arrays, where its values lie. */
static const char *entry(tiff_info_t *t, size_t e, uint32_t *tag, uint32_t *val, size_t *at, uint32_t *count, int *is_short) {
  *tag = rd16(t, e);
  uint32_t type = rd16(t, e + 2);
  *count = rd32(t, e + 4);
  uint32_t size = type == 3 ? 2 : type == 4 ? 4 : type == 1 ? 1 : 0;
  *is_short = type == 3;
  if (!size) {
    *val = 0;
    *at = 0;
    return NULL; /* a type the tags we read do not use: ignored unless read */
  }
  uint64_t bytes = (uint64_t)*count * size;
  *at = bytes <= 4 ? e + 8 : rd32(t, e + 8);
  if (bytes > t->n || *at > t->n - bytes) return "TIFF: tag values past the end of the stream";
  *val = *count == 0 ? 0 : size == 2 ? rd16(t, *at) : size == 4 ? rd32(t, *at) : t->src[*at];
  return NULL;
}

static const char *read_ifd(tiff_info_t *t) {
  const uint8_t *s = t->src;
  if (t->n < 8 || !((s[0] == 'I' && s[1] == 'I') || (s[0] == 'M' && s[1] == 'M'))) return "TIFF: bad signature";
  t->be = s[0] == 'M';
  if (rd16(t, 2) != 42) return "TIFF: bad signature";
  uint32_t ifd = rd32(t, 4);
  if (ifd > t->n - 2) return "TIFF: first IFD past the end of the stream";
  uint32_t ne = rd16(t, ifd);
  if ((uint64_t)ne * 12 > t->n - ifd - 2) return "TIFF: IFD past the end of the stream";
  t->bps = 1, t->spp = 1, t->compression = 1, t->predictor = 1, t->rps = 0xffffffffu, t->photometric = 99;
  t->w = t->h = 0, t->n_strips = 0, t->has_cmap = 0;
  uint32_t n_counts = 0, planar = 1, fill = 1, sfmt = 1, tiles = 0;
  for (uint32_t k = 0; k < ne; k++) {
    uint32_t tag, val, count;
    size_t at;
    int sh;
    const char *why = entry(t, ifd + 2 + (size_t)k * 12, &tag, &val, &at, &count, &sh);
    if (why) return why;
    switch (tag) {
      case 256: t->w = val; break;
      case 257: t->h = val; break;
      case 258:
        t->bps = val;
        for (uint32_t i = 1; i < count && sh; i++)
          if (rd16(t, at + 2 * (size_t)i) != val) return "TIFF: samples of different bit depths";
        break;
      case 259: t->compression = val; break;
      case 262: t->photometric = val; break;
      case 266: fill = val; break;
      case 273: t->n_strips = count, t->strip_off_at = at, t->strip_off_short = sh; break;
      case 277: t->spp = val; break;
      case 278: t->rps = val; break;
      case 279: n_counts = count, t->strip_cnt_at = at, t->strip_cnt_short = sh; break;
      case 284: planar = val; break;
      case 317: t->predictor = val; break;
      case 320:
        if (!sh) return "TIFF: colour map is not 16-bit";
        t->cmap_at = at, t->has_cmap = (int)count;
        break;
      case 322: case 323: case 324: case 325: tiles = 1; break;
      case 339: sfmt = val; break;
      default: break;
    }
  }
  if (tiles) return "TIFF: tiled images not supported";
  if (planar != 1) return "TIFF: planar configuration not supported";
  if (fill != 1) return "TIFF: fill order 2 not supported";
  if (sfmt != 1) return "TIFF: sample format other than unsigned integer not supported";
  if (!t->n_strips || n_counts != t->n_strips) return "TIFF: missing or mismatched strip offsets and byte counts";
  if (t->w == 0 || t->h == 0 || t->w > 0x7fffffffu || t->h > 0x7fffffffu) return "TIFF: bad image size";
  return NULL;
}

/* The layouts decoded here (the photometric interpretation, samples and depth). */
static const char *check_layout(const tiff_info_t *t) {
  uint32_t b = t->bps, s = t->spp;
  switch (t->photometric) {
    case 0: case 1:
      if (!(s == 1 && (b == 1 || b == 2 || b == 4 || b == 8 || b == 16)) && !(s == 2 && (b == 8 || b == 16)))
        return "TIFF: grey layout not supported";
      if (t->photometric == 0 && b == 16) return "TIFF: 16-bit WhiteIsZero not supported";
      break;
    case 2:
      if (!((s == 3 || s == 4) && (b == 8 || b == 16))) return "TIFF: RGB layout not supported";
      break;
    case 3:
      if (!(s == 1 && (b == 1 || b == 2 || b == 4 || b == 8))) return "TIFF: palette layout not supported";
      if (t->has_cmap != 3 << b) return "TIFF: colour map missing or of the wrong size";
      break;
    default: return "TIFF: photometric interpretation not supported";
  }
  if (t->compression != 1 && t->compression != 5 && t->compression != 8 && t->compression != 32946 &&
      t->compression != 32773)
    return "TIFF: compression not supported";
  if (t->predictor != 1 && t->predictor != 2) return "TIFF: predictor not supported";
  if (t->predictor == 2 && b < 8) return "TIFF: predictor 2 below 8 bits not supported";
  return NULL;
}

static const char *packbits(const uint8_t *s, size_t n, uint8_t *o, size_t need) {
  size_t p = 0, q = 0;
  while (q < need) {
    if (p >= n) return "TIFF: PackBits data ends early";
    int c = (int8_t)s[p++];
    if (c >= 0) {
      size_t k = (size_t)c + 1;
      if (n - p < k) return "TIFF: PackBits data ends early";
      if (k > need - q) k = need - q;
      memcpy(o + q, s + p, k);
      q += k;
      p += (size_t)c + 1;
    } else if (c != -128) {
      if (p >= n) return "TIFF: PackBits data ends early";
      size_t k = (size_t)(1 - c);
      if (k > need - q) k = need - q;
      memset(o + q, s[p++], k);
      q += k;
    }
  }
  return NULL;
}

/* LZW as TIFF 6.0 section 13 (codes MSB first, 9 to 12 bits, the width grows one code early). */
static const char *lzw(const uint8_t *s, size_t n, uint8_t *o, size_t need, void *scratch) {
  uint16_t *prefix = (uint16_t *)scratch, *len = prefix + 4096;
  uint8_t *suffix = (uint8_t *)(len + 4096), *first = suffix + 4096;
  for (int i = 0; i < 256; i++) prefix[i] = 0xffff, len[i] = 1, suffix[i] = first[i] = (uint8_t)i;
  uint32_t bitbuf = 0, next = 258, width = 9;
  int bitcnt = 0, prev = -1;
  size_t p = 0, q = 0;
  while (q < need) {
    while (bitcnt < (int)width) {
      if (p >= n) return "TIFF: LZW data ends early";
      bitbuf = bitbuf << 8 | s[p++];
      bitcnt += 8;
    }
    uint32_t code = bitbuf >> (bitcnt - (int)width) & ((1u << width) - 1);
    bitcnt -= (int)width;
    if (code == 256) {
      next = 258, width = 9, prev = -1;
      continue;
    }
    if (code == 257) return "TIFF: LZW data ends early";
    if (code > next || (code == next && prev < 0)) return "TIFF: bad LZW code";
    if (prev >= 0 && next < 4096) { /* the new entry: prev + first byte of code (of prev when code is new) */
      prefix[next] = (uint16_t)prev;
      len[next] = (uint16_t)(len[prev] + 1);
      first[next] = first[prev];
      suffix[next] = code == next ? first[prev] : first[code];
      next++;
    } else if (code == next) {
      return "TIFF: bad LZW code";
    }
    size_t l = len[code];
    for (uint32_t c = code, k = (uint32_t)l; k-- > 0; c = prefix[c])
      if (q + k < need) o[q + k] = suffix[c];
    q += l < need - q ? l : need - q;
    prev = (int)code;
    if (next + 1 >= (1u << width) && width < 12) width++;
  }
  return NULL;
}

static uint64_t strip_value(const tiff_info_t *t, size_t at, int sh, uint32_t i) {
  return sh ? rd16(t, at + 2 * (size_t)i) : rd32(t, at + 4 * (size_t)i);
}

/* Strip i's decoded rows into buf (need bytes). */
static const char *read_strip(const tiff_info_t *t, uint32_t i, uint8_t *buf, size_t need, void *tables) {
  uint64_t off = strip_value(t, t->strip_off_at, t->strip_off_short, i);
  uint64_t cnt = strip_value(t, t->strip_cnt_at, t->strip_cnt_short, i);
  if (off > t->n) return "TIFF: strip offset past the end of the stream";
  if (t->compression == 1) {
    if (need > t->n - off) return "TIFF: strip data ends early";
    memcpy(buf, t->src + off, need);
    return NULL;
  }
  if (cnt > t->n - off) cnt = t->n - off; /* a short last strip: the decoder finds out */
  const uint8_t *s = t->src + off;
  if (t->compression == 32773) return packbits(s, (size_t)cnt, buf, need);
  if (t->compression == 5) return lzw(s, (size_t)cnt, buf, need, tables);
  berth_inflate_src_t in = {s, s + cnt, s + cnt, 0};
  const char *why = berth_inflate_zlib(&in, buf, need, tables);
  return why ? "TIFF: bad Deflate strip" : NULL;
}

static void predict(const tiff_info_t *t, uint8_t *row) {
  uint32_t spp = t->spp;
  if (t->bps == 8) {
    for (size_t i = spp; i < (size_t)t->w * spp; i++) row[i] = (uint8_t)(row[i] + row[i - spp]);
    return;
  }
  for (size_t i = spp; i < (size_t)t->w * spp; i++) {
    uint8_t *a = row + 2 * i, *b = row + 2 * (i - spp);
    uint32_t va = t->be ? (uint32_t)a[0] << 8 | a[1] : (uint32_t)a[1] << 8 | a[0];
    uint32_t vb = t->be ? (uint32_t)b[0] << 8 | b[1] : (uint32_t)b[1] << 8 | b[0];
    uint32_t v = (va + vb) & 0xffff;
    a[t->be ? 0 : 1] = (uint8_t)(v >> 8), a[t->be ? 1 : 0] = (uint8_t)v;
  }
}

/* Sample c of pixel x of a decoded row as Pillow's 8-bit value (palette: the index). */
static uint32_t sample(const tiff_info_t *t, const uint8_t *row, uint32_t x, uint32_t c) {
  uint32_t b = t->bps;
  size_t i = (size_t)x * t->spp + c;
  if (b == 8) return row[i];
  if (b == 16) {
    uint32_t hi = row[2 * i + (t->be ? 0 : 1)], lo = row[2 * i + (t->be ? 1 : 0)];
    if (t->photometric <= 1) return hi ? 255 : lo; /* mode I;16, clipped */
    return hi;
  }
  size_t bit = i * b;
  uint32_t v = (uint32_t)(row[bit >> 3] >> (8 - b - (bit & 7))) & ((1u << b) - 1);
  if (t->photometric == 3) return v;
  return v * (b == 1 ? 255 : b == 2 ? 85 : 17);
}

static void put_row(const tiff_info_t *t, const uint8_t *row, uint8_t *o) {
  for (uint32_t x = 0; x < t->w; x++, o += 3) {
    if (t->photometric == 2) {
      for (uint32_t c = 0; c < 3; c++) o[c] = (uint8_t)sample(t, row, x, c);
    } else if (t->photometric == 3) {
      uint32_t i = sample(t, row, x, 0), nmap = 1u << t->bps;
      for (uint32_t c = 0; c < 3; c++) o[c] = (uint8_t)(rd16(t, t->cmap_at + 2 * ((size_t)c * nmap + i)) >> 8);
    } else {
      uint32_t v = sample(t, row, x, 0);
      if (t->photometric == 0) v = 255 - v;
      o[0] = o[1] = o[2] = (uint8_t)v;
    }
  }
}

const char *berth_image_decode_tiff(const uint8_t *src, size_t n, berth_image_dst_t *dst) {
  tiff_info_t t;
  memset(&t, 0, sizeof t);
  t.src = src, t.n = n;
  const char *why = read_ifd(&t);
  if (!why) why = check_layout(&t);
  if (why) return why;
  if (t.h > dst->max_height || t.w > dst->max_width) return "TIFF: image is larger than the bound";
  uint32_t rps = t.rps == 0 || t.rps > t.h ? t.h : t.rps;
  uint32_t strips = (t.h - 1) / rps + 1;
  if (t.n_strips < strips) return "TIFF: fewer strips than the image needs";
  size_t rb = ((size_t)t.w * t.spp * t.bps + 7) / 8;
  uint64_t strip_bytes = (uint64_t)rb * rps;
  if (!dst->scratch || dst->scratch_bytes < TIFF_TABLE_BYTES || dst->scratch_bytes - TIFF_TABLE_BYTES < strip_bytes)
    return "TIFF: working memory too small for the image";
  uint8_t *buf = (uint8_t *)dst->scratch + TIFF_TABLE_BYTES;
  for (uint32_t i = 0; i < strips; i++) {
    uint32_t rows = t.h - i * rps < rps ? t.h - i * rps : rps;
    why = read_strip(&t, i, buf, rb * rows, dst->scratch);
    if (why) return why;
    for (uint32_t r = 0; r < rows; r++) {
      if (t.predictor == 2) predict(&t, buf + rb * r);
      put_row(&t, buf + rb * r, dst->rgb + ((size_t)i * rps + r) * t.w * 3);
    }
  }
  dst->height = t.h;
  dst->width = t.w;
  return NULL;
}
