/* JPEG decoder for ONNX ImageDecoder (contract: image_codec.h).
 *
 * The reference (the ONNX reference implementation) decodes with Pillow, i.e. libjpeg-turbo
 * with its defaults, so this file reproduces libjpeg-turbo 2.1's integer arithmetic: the
 * accurate integer IDCT ("islow", computed as its x86-64 SIMD code computes it, which is
 * what Pillow runs there and equals jidctint.c on any real image), "fancy" upsampling
 * (h2v1, h1v2 and h2v2 triangle filters, replication for other integral factors, and the
 * same per-component choice as jdsample.c), and the fixed-point YCbCr->RGB of jdcolor.c.
 * Grey images are written R = G = B (Pillow's L->RGB); 4-component images go through
 * Pillow's CMYK path (Adobe-inverted samples, YCCK converted by libjpeg, then cmyk2rgb).
 *
 * Supported: baseline and extended sequential Huffman (8-bit), progressive (spectral
 * selection and successive approximation), restart intervals (with libjpeg's resync rules),
 * sampling factors 1..4, 1, 3 and 4 components, the colour space decided as libjpeg does
 * (JFIF, Adobe transform, "RGB" component ids). Refused with a message: arithmetic coding,
 * lossless and hierarchical frames, precision other than 8 bits, 2 or 5+ components (Pillow
 * has no mode for them), fractional sampling ratios (libjpeg refuses them), progressive
 * files whose AC 1..9 stay inexact (libjpeg would block-smooth them), more than 1000 scans.
 *
 * Damage: a scan cut short by a marker (e.g. a truncated file with an EOI appended) is
 * padded with zero bits and the rest of its restart interval left as it is, as libjpeg does
 * and Pillow returns; a stream that ends without its EOI is refused, as Pillow refuses a
 * truncated file; an invalid Huffman code is refused (libjpeg would warn and go on with a
 * zero); other damage is decoded as libjpeg-turbo decodes it.
 *
 * Memory: everything lives in the caller's scratch: the decoder state (tables), the
 * quantized coefficients of the whole image (needed for progressive files; every scan mode
 * decodes into them), a ring of three iMCU rows of samples per component (the row above and
 * below for the vertical filters), and one upsampled row per component. */
#include "kernels/image_codec.h"

#include "base/checked.h"

#include <stdint.h>
#include <string.h>

#define JPG_MAXC 4         /* components we decode (1, 3 or 4) */
#define JPG_MAX_DIM 65500u /* libjpeg's JPEG_MAX_DIMENSION */
#define JPG_BOMB 178956970ull /* Pillow refuses images of more pixels (2 * MAX_IMAGE_PIXELS) */
#define JPG_LOOK 9         /* Huffman lookahead bits */
#define JPG_MAX_SCANS 1000 /* a cap on work: real progressive files have about 10 scans */

/* zigzag index -> natural index, with 16 extra 63s as libjpeg has (a corrupt run past the
 * end of a block lands on coefficient 63 rather than outside it). */
static const uint8_t jpg_natural[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33,
    40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36,
    29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54,
    47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/* The standard tables of ITU-T T.81 Annex K.3, which libjpeg installs in slots 0 and 1 when a
 * stream (Motion JPEG) defines none. */
static const uint8_t jpg_std_bits[4][17] = {
    {0, 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
    {0, 0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d},
    {0, 0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77}};
static const uint8_t jpg_std_ac_lum[162] = {
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71,
    0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
    0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37,
    0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
    0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83,
    0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3,
    0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
    0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
    0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa};
static const uint8_t jpg_std_ac_chr[162] = {
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22,
    0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1,
    0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36,
    0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
    0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
    0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a,
    0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba,
    0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
    0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa};

/* A Huffman table as defined by DHT (raw), and its decoding form (built per scan, as
 * libjpeg's jpeg_make_d_derived_tbl, with the same validation). */
typedef struct jpg_rawhuff {
  uint8_t bits[17];
  uint8_t val[256];
  uint8_t defined; /* 1: by DHT, 2: the standard table (slots 0 and 1) */
} jpg_rawhuff_t;

typedef struct jpg_huff {
  uint16_t look[1 << JPG_LOOK]; /* (length << 8) | symbol; 0: code longer than JPG_LOOK */
  int32_t maxcode[18];          /* largest code of each length, -1 if none */
  int32_t valoff[18];           /* index into val of the first code of each length, minus that code */
  uint8_t val[256];
} jpg_huff_t;

enum { JPG_GREY, JPG_YCC, JPG_RGB, JPG_CMYK, JPG_YCCK };
enum { JPG_UP_FULL, JPG_UP_H2V1, JPG_UP_H1V2, JPG_UP_H2V2, JPG_UP_INT };

typedef struct jpg_comp {
  int id, h, v, tq;
  int dc_tbl, ac_tbl;
  uint32_t wblocks, hblocks; /* blocks holding image samples (a non-interleaved scan's extent) */
  uint32_t bw, bh;           /* blocks stored: padded to whole MCUs */
  uint32_t dw, dh;           /* downsampled size in samples */
  int16_t *coef;             /* bw * bh blocks of 64, natural order */
  int latched;               /* quantization table copied at the component's first scan */
  uint16_t q[64];
  int coef_bits[64];         /* progressive: libjpeg's coef_bits (successive-approximation state) */
  int up, hexp, vexp;        /* upsampling method */
  uint8_t *band;             /* ring of 3 iMCU rows of samples, stride bw * 8 */
  int32_t band_done;         /* last iMCU row written into the ring, -1: none */
  uint8_t *row;              /* one upsampled row, width + 16 */
} jpg_comp_t;

typedef struct jpg {
  const uint8_t *src;
  size_t n, pos;
  /* entropy-coded segment reader (libjpeg's bit buffer semantics) */
  uint64_t buf;
  int left;         /* valid bits at the bottom of buf */
  int marker;       /* marker read past by the reader (0: none), as libjpeg's unread_marker */
  int insufficient; /* the segment ran out and zero bits were supplied */
  const char *err;  /* sticky error of the entropy decoder */
  jpg_rawhuff_t raw[2][4]; /* [0]: DC, [1]: AC */
  jpg_huff_t huff[2][4];
  uint16_t qt[4][64];
  uint8_t qt_defined[4];
  uint32_t restart_interval;
  int saw_jfif, saw_adobe, adobe_transform;
  int saw_sof, saw_sos, progressive, multiscan, ncomp, nscans;
  int space; /* JPG_GREY, JPG_YCC, JPG_RGB, JPG_CMYK or JPG_YCCK: libjpeg's jpeg_color_space */
  uint32_t width, height;
  int hmax, vmax;
  uint32_t mcux, mcuy;
  jpg_comp_t comp[JPG_MAXC];
  /* the current scan */
  int sn, scomp[4];
  int ss, se, ah, al;
  uint32_t restarts_to_go, eobrun;
  int next_rst;
  int32_t pred[4];
  int32_t ws[128]; /* IDCT workspace: the pass-1 output, and the dequantized input */
} jpg_t;

static uint32_t jpg_u16(const uint8_t *p) { return ((uint32_t)p[0] << 8) | p[1]; }
static uint32_t jpg_div_up(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a + b - 1) / b); }

/* Two's-complement narrowing, as libjpeg's (JCOEF) and (int) casts do on its platforms. */
static int16_t jpg_i16(uint32_t v) {
  v &= 0xffffu;
  return v < 0x8000u ? (int16_t)v : (int16_t)((int32_t)v - 0x10000);
}
static int32_t jpg_i32(uint32_t v) { return v < 0x80000000u ? (int32_t)v : (int32_t)(v - 0x80000000u) - 0x7fffffff - 1; }
/* Arithmetic right shift, defined for negative values. */
static int64_t jpg_sra(int64_t v, int n) { return v >= 0 ? v >> n : ~((~v) >> n); }

/* ---------------------------------------------------------------- entropy-coded data */

/* Loads bytes until 57 bits are buffered, a marker is met (its code is kept in j->marker),
 * or the stream ends (an error: Pillow refuses a stream that ends inside the scan data). */
static void jpg_fill(jpg_t *j) {
  while (j->left <= 56 && !j->marker) {
    if (j->pos >= j->n) {
      if (!j->err) j->err = "JPEG: stream ends inside entropy-coded data (truncated file)";
      return;
    }
    uint32_t c = j->src[j->pos++];
    if (c == 0xff) {
      do {
        if (j->pos >= j->n) {
          if (!j->err) j->err = "JPEG: stream ends inside entropy-coded data (truncated file)";
          return;
        }
        c = j->src[j->pos++];
      } while (c == 0xff);
      if (c != 0) {
        j->marker = (int)c;
        return;
      }
      c = 0xff;
    }
    j->buf = (j->buf << 8) | c;
    j->left += 8;
  }
}

/* Makes n (<= 16) bits available: past a marker, zero bits (libjpeg's behaviour, which
 * flags the segment as having run out of data). */
static void jpg_need(jpg_t *j, int n) {
  if (j->left >= n) return;
  jpg_fill(j);
  if (j->left < n) {
    j->insufficient = 1;
    j->buf <<= 57 - j->left;
    j->left = 57;
  }
}

static uint32_t jpg_bits(jpg_t *j, int n) {
  if (n == 0) return 0;
  jpg_need(j, n);
  j->left -= n;
  return (uint32_t)(j->buf >> j->left) & ((1u << n) - 1);
}

/* Figure F.12: the s-bit value x as a signed coefficient. */
static int32_t jpg_extend(uint32_t x, int s) { return x < (1u << (s - 1)) ? (int32_t)x - (int32_t)(1u << s) + 1 : (int32_t)x; }

static int jpg_decode_huff(jpg_t *j, const jpg_huff_t *h) {
  if (j->left < JPG_LOOK) jpg_fill(j);
  if (j->left >= JPG_LOOK) {
    uint32_t e = h->look[(j->buf >> (j->left - JPG_LOOK)) & ((1u << JPG_LOOK) - 1)];
    if (e) {
      j->left -= (int)(e >> 8);
      return (int)(e & 0xff);
    }
  }
  int32_t code = 0;
  for (int l = 1; l <= 16; l++) {
    code = (int32_t)((uint32_t)code << 1 | jpg_bits(j, 1));
    if (code <= h->maxcode[l]) return h->val[(code + h->valoff[l]) & 0xff];
  }
  if (!j->err) j->err = "JPEG: Huffman code not in table";
  return 0;
}

/* jpeg_make_d_derived_tbl: canonical codes from the counts, with its checks. */
static const char *jpg_build_huff(jpg_t *j, int ac, int slot) {
  const jpg_rawhuff_t *r = &j->raw[ac][slot];
  jpg_huff_t *h = &j->huff[ac][slot];
  /* libjpeg's standard tables stand in for missing ones in sequential files only */
  if (!r->defined || (r->defined == 2 && j->progressive)) return "JPEG: scan uses an undefined Huffman table";
  memset(h->look, 0, sizeof h->look);
  uint32_t code = 0;
  int p = 0;
  for (int l = 1; l <= 16; l++) {
    int cnt = r->bits[l];
    if (p + cnt > 256) return "JPEG: bad Huffman table (more than 256 codes)";
    if (cnt) {
      h->valoff[l] = p - (int32_t)code;
      for (int i = 0; i < cnt; i++, p++, code++) {
        if (l <= JPG_LOOK) {
          uint32_t first = code << (JPG_LOOK - l), span = 1u << (JPG_LOOK - l);
          for (uint32_t k = 0; k < span; k++) h->look[first + k] = (uint16_t)((l << 8) | r->val[p]);
        }
      }
      h->maxcode[l] = (int32_t)code - 1;
    } else {
      h->maxcode[l] = -1;
    }
    /* One past the last code of length l must still fit in l bits: no all-ones code. */
    if (code >= (1u << l)) return "JPEG: bad Huffman table (code lengths overflow)";
    code <<= 1;
  }
  h->maxcode[17] = 0x7fffffff;
  memcpy(h->val, r->val, sizeof h->val);
  if (!ac)
    for (int i = 0; i < p; i++)
      if (r->val[i] > 15) return "JPEG: bad Huffman table (DC symbol above 15)";
  return NULL;
}

/* ---------------------------------------------------------------- markers */

/* libjpeg's next_marker: skips anything that is not a marker (garbage, FF 00 pairs, fill
 * FFs). Returns the marker code, or -1 when the stream ends first. */
static int jpg_next_marker(jpg_t *j) {
  for (;;) {
    while (j->pos < j->n && j->src[j->pos] != 0xff) j->pos++;
    while (j->pos < j->n && j->src[j->pos] == 0xff) j->pos++;
    if (j->pos >= j->n) return -1;
    int c = j->src[j->pos++];
    if (c != 0) return c;
  }
}

/* A marker segment's payload: [*p, *p + *len). */
static const char *jpg_segment(jpg_t *j, const uint8_t **p, uint32_t *len) {
  if (j->n - j->pos < 2) return "JPEG: stream ends inside a marker segment";
  uint32_t l = jpg_u16(j->src + j->pos);
  if (l < 2) return "JPEG: marker segment length below 2";
  if (l > j->n - j->pos) return "JPEG: stream ends inside a marker segment";
  *p = j->src + j->pos + 2;
  *len = l - 2;
  j->pos += l;
  return NULL;
}

static const char *jpg_dht(jpg_t *j) {
  const uint8_t *p;
  uint32_t len;
  const char *why = jpg_segment(j, &p, &len);
  if (why) return why;
  while (len > 16) {
    uint32_t index = p[0], count = 0;
    for (int i = 1; i <= 16; i++) count += p[i];
    len -= 17;
    if (count > 256 || count > len) return "JPEG: bad Huffman table (counts exceed the segment)";
    int ac = (index & 0x10) != 0;
    if (ac) index -= 0x10;
    if (index >= 4) return "JPEG: Huffman table index out of range 0..3";
    jpg_rawhuff_t *r = &j->raw[ac][index];
    memcpy(r->bits, p, 17);
    r->bits[0] = 0;
    memset(r->val, 0, sizeof r->val);
    memcpy(r->val, p + 17, count);
    r->defined = 1;
    p += 17 + count;
    len -= count;
  }
  return len ? "JPEG: DHT segment length does not match its tables" : NULL;
}

static const char *jpg_dqt(jpg_t *j) {
  const uint8_t *p;
  uint32_t len;
  const char *why = jpg_segment(j, &p, &len);
  if (why) return why;
  while (len > 0) {
    uint32_t n = p[0] & 15, wide = p[0] >> 4, need = wide ? 129u : 65u;
    if (n >= 4) return "JPEG: quantization table index out of range 0..3";
    if (len < need) return "JPEG: DQT segment length does not match its tables";
    for (int i = 0; i < 64; i++)
      j->qt[n][jpg_natural[i]] = (uint16_t)(wide ? jpg_u16(p + 1 + 2 * i) : p[1 + i]);
    j->qt_defined[n] = 1;
    p += need;
    len -= need;
  }
  return NULL;
}

static const char *jpg_dri(jpg_t *j) {
  const uint8_t *p;
  uint32_t len;
  const char *why = jpg_segment(j, &p, &len);
  if (why) return why;
  if (len != 2) return "JPEG: DRI segment length is not 4";
  j->restart_interval = jpg_u16(p);
  return NULL;
}

/* APPn and COM: skipped, but APP0 "JFIF" and APP14 "Adobe" decide the colour space as in
 * libjpeg (examine_app0 / examine_app14). A length below 2 is tolerated as libjpeg does. */
static const char *jpg_app(jpg_t *j, int marker) {
  if (j->n - j->pos < 2) return "JPEG: stream ends inside a marker segment";
  uint32_t l = jpg_u16(j->src + j->pos);
  if (l < 2) {
    j->pos += 2;
    return NULL;
  }
  if (l > j->n - j->pos) return "JPEG: stream ends inside a marker segment";
  const uint8_t *p = j->src + j->pos + 2;
  uint32_t len = l - 2;
  if (marker == 0xe0 && len >= 14 && memcmp(p, "JFIF", 5) == 0) j->saw_jfif = 1;
  if (marker == 0xee && len >= 12 && memcmp(p, "Adobe", 5) == 0) {
    j->saw_adobe = 1;
    j->adobe_transform = p[11];
  }
  j->pos += l;
  return NULL;
}

static const char *jpg_sof(jpg_t *j, int progressive) {
  const uint8_t *p;
  uint32_t len;
  const char *why = jpg_segment(j, &p, &len);
  if (why) return why;
  if (j->saw_sof) return "JPEG: more than one SOF marker";
  if (len < 6) return "JPEG: SOF segment too short";
  if (p[0] != 8) return "JPEG: sample precision is not 8 bits (12-bit JPEG is not supported)";
  j->height = jpg_u16(p + 1);
  j->width = jpg_u16(p + 3);
  uint32_t nc = p[5];
  if (j->height == 0) return "JPEG: image height 0 (height defined by DNL is not supported)";
  if (j->width == 0 || nc == 0) return "JPEG: empty image (width or component count 0)";
  if (len != 6 + 3 * nc) return "JPEG: SOF segment length does not match its component count";
  if (nc != 1 && nc != 3 && nc != 4) return "JPEG: only 1-, 3- and 4-component images are supported (as Pillow)";
  j->ncomp = (int)nc;
  j->progressive = progressive;
  j->hmax = j->vmax = 1;
  for (uint32_t i = 0; i < nc; i++) {
    jpg_comp_t *c = &j->comp[i];
    c->id = p[6 + 3 * i];
    c->h = p[7 + 3 * i] >> 4;
    c->v = p[7 + 3 * i] & 15;
    c->tq = p[8 + 3 * i];
    if (c->h < 1 || c->h > 4 || c->v < 1 || c->v > 4) return "JPEG: sampling factor out of range 1..4";
    if (c->h > j->hmax) j->hmax = c->h;
    if (c->v > j->vmax) j->vmax = c->v;
  }
  j->saw_sof = 1;
  return NULL;
}

/* ---------------------------------------------------------------- layout */

static uint64_t jpg_state_bytes(void) { return ((uint64_t)sizeof(jpg_t) + 15) & ~(uint64_t)15; }

/* Per component, for an image of width x height whatever its sampling: coefficients (bw <=
 * ceil(w/8) + 3 blocks a row, as mcux * h <= ceil(w/8) + h - 1; likewise bh), the
 * 3-iMCU-row ring (at most 3 * 32 rows of bw * 8 samples) and one upsampled row, each
 * component's share rounded up to 16 bytes. UINT64_MAX if that does not fit 64 bits. */
uint64_t berth_image_jpeg_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  uint64_t bw = ((uint64_t)max_width + 7) / 8 + 3, bh = ((uint64_t)max_height + 7) / 8 + 3;
  uint64_t coef, ring, comp, all;
  if (!berth_mul_u64(bw, bh, &coef) || !berth_mul_u64(coef, 128, &coef) || !berth_mul_u64(bw, 3 * 32 * 8, &ring) ||
      !berth_add_u64(coef, ring, &comp) || !berth_add_u64(comp, (uint64_t)max_width + 16 + 15, &comp) ||
      !berth_mul_u64(comp & ~(uint64_t)15, JPG_MAXC, &all) || !berth_add_u64(all, jpg_state_bytes(), &all))
    return UINT64_MAX;
  return all;
}

/* libjpeg's jinit_upsampler choice of method for one component. */
static const char *jpg_pick_upsampler(jpg_t *j, jpg_comp_t *c) {
  int hi = c->h, vi = c->v, ho = j->hmax, vo = j->vmax;
  c->hexp = c->vexp = 1;
  if (hi == ho && vi == vo) {
    c->up = JPG_UP_FULL;
  } else if (hi * 2 == ho && vi == vo) {
    c->up = c->dw > 2 ? JPG_UP_H2V1 : JPG_UP_INT;
    c->hexp = 2;
  } else if (hi == ho && vi * 2 == vo) {
    c->up = JPG_UP_H1V2;
  } else if (hi * 2 == ho && vi * 2 == vo) {
    c->up = c->dw > 2 ? JPG_UP_H2V2 : JPG_UP_INT;
    c->hexp = c->vexp = 2;
  } else if (ho % hi == 0 && vo % vi == 0) {
    c->up = JPG_UP_INT;
    c->hexp = ho / hi;
    c->vexp = vo / vi;
  } else {
    return "JPEG: sampling factors need fractional upsampling (not supported by libjpeg)";
  }
  return NULL;
}

/* At the first SOS (libjpeg's initial_setup): component geometry, and the scratch carved. */
static const char *jpg_setup(jpg_t *j, const berth_image_dst_t *dst) {
  if (j->width > JPG_MAX_DIM || j->height > JPG_MAX_DIM) return "JPEG: image dimension above 65500";
  if (j->height > dst->max_height || j->width > dst->max_width) return "JPEG: image is larger than the bound";
  if ((uint64_t)j->width * j->height > JPG_BOMB) return "JPEG: image has more pixels than Pillow accepts (decompression bomb)";
  j->mcux = jpg_div_up(j->width, 8u * (uint32_t)j->hmax);
  j->mcuy = jpg_div_up(j->height, 8u * (uint32_t)j->vmax);
  uint8_t *base = (uint8_t *)dst->scratch;
  uint64_t off = jpg_state_bytes();
  for (int i = 0; i < j->ncomp; i++) {
    jpg_comp_t *c = &j->comp[i];
    uint64_t wh = (uint64_t)j->width * (uint64_t)c->h, hv = (uint64_t)j->height * (uint64_t)c->v;
    c->wblocks = (uint32_t)((wh + 8u * (uint64_t)j->hmax - 1) / (8u * (uint64_t)j->hmax));
    c->hblocks = (uint32_t)((hv + 8u * (uint64_t)j->vmax - 1) / (8u * (uint64_t)j->vmax));
    c->dw = (uint32_t)((wh + (uint64_t)j->hmax - 1) / (uint64_t)j->hmax);
    c->dh = (uint32_t)((hv + (uint64_t)j->vmax - 1) / (uint64_t)j->vmax);
    c->bw = j->mcux * (uint32_t)c->h;
    c->bh = j->mcuy * (uint32_t)c->v;
    const char *why = jpg_pick_upsampler(j, c);
    if (why) return why;
    uint64_t coef = (uint64_t)c->bw * c->bh * 128, band = 3ull * 8u * (uint64_t)c->v * c->bw * 8u;
    uint64_t need = (coef + band + j->width + 16 + 15) & ~(uint64_t)15;
    if (need > dst->scratch_bytes || off > dst->scratch_bytes - need)
      return "JPEG: scratch smaller than berth_image_jpeg_scratch_bytes asks";
    c->coef = (int16_t *)(void *)(base + off);
    c->band = base + off + coef;
    c->row = base + off + coef + band;
    memset(c->coef, 0, (size_t)coef);
    c->band_done = -1;
    c->latched = 0;
    for (int k = 0; k < 64; k++) c->coef_bits[k] = -1;
    off += need;
  }
  /* The colour space, as libjpeg's default_decompress_parms decides it. */
  if (j->ncomp == 1) {
    j->space = JPG_GREY;
  } else if (j->ncomp == 3) {
    int rgb;
    if (j->saw_jfif) rgb = 0;
    else if (j->saw_adobe) rgb = j->adobe_transform == 0;
    else rgb = j->comp[0].id == 82 && j->comp[1].id == 71 && j->comp[2].id == 66;
    j->space = rgb ? JPG_RGB : JPG_YCC;
  } else {
    j->space = j->saw_adobe && j->adobe_transform != 0 ? JPG_YCCK : JPG_CMYK;
  }
  return NULL;
}

/* get_sos and the per-scan checks of jdinput.c, jdhuff.c and jdphuff.c. */
static const char *jpg_sos(jpg_t *j) {
  const uint8_t *p;
  uint32_t len;
  const char *why = jpg_segment(j, &p, &len);
  if (why) return why;
  if (!j->saw_sof) return "JPEG: SOS before SOF";
  if (len < 1) return "JPEG: SOS segment too short";
  uint32_t n = p[0];
  if (n < 1 || n > 4 || len != 4 + 2 * n) return "JPEG: SOS segment length does not match its component count";
  j->sn = (int)n;
  for (uint32_t i = 0; i < n; i++) {
    int cc = p[1 + 2 * i], t = p[2 + 2 * i], found = -1;
    /* libjpeg-turbo takes the first component at or after scan position i with this id. */
    for (int ci = (int)i; ci < j->ncomp; ci++)
      if (j->comp[ci].id == cc) {
        found = ci;
        break;
      }
    if (found < 0) return "JPEG: scan names a component not in the frame (or out of frame order)";
    for (uint32_t k = 0; k < i; k++)
      if (j->scomp[k] == found) return "JPEG: scan names a component twice";
    j->scomp[i] = found;
    j->comp[found].dc_tbl = t >> 4;
    j->comp[found].ac_tbl = t & 15;
  }
  j->ss = p[1 + 2 * n];
  j->se = p[2 + 2 * n];
  j->ah = p[3 + 2 * n] >> 4;
  j->al = p[3 + 2 * n] & 15;
  j->next_rst = 0;
  return NULL;
}

/* Quantization tables latched at a component's first scan, MCU size, progression rules and
 * Huffman tables: everything libjpeg checks before it reads a scan's data. */
static const char *jpg_scan_setup(jpg_t *j) {
  int blocks = 0;
  for (int i = 0; i < j->sn; i++) {
    jpg_comp_t *c = &j->comp[j->scomp[i]];
    if (!c->latched) {
      if (c->tq >= 4 || !j->qt_defined[c->tq]) return "JPEG: component uses an undefined quantization table";
      memcpy(c->q, j->qt[c->tq], sizeof c->q);
      c->latched = 1;
    }
    blocks += c->h * c->v;
  }
  if (j->sn > 1 && blocks > 10) return "JPEG: more than 10 blocks in an MCU";
  if (j->progressive) {
    int bad = 0;
    if (j->ss == 0) bad = j->se != 0;
    else bad = j->ss > j->se || j->se > 63 || j->sn != 1;
    if (j->ah != 0 && j->al != j->ah - 1) bad = 1;
    if (j->al > 13) bad = 1;
    if (bad) return "JPEG: invalid progressive scan parameters (Ss, Se, Ah, Al)";
    for (int i = 0; i < j->sn; i++) {
      jpg_comp_t *c = &j->comp[j->scomp[i]];
      for (int k = j->ss; k <= j->se; k++) c->coef_bits[k] = j->al;
      /* a DC refinement reads no Huffman codes, so needs no table */
      int ac = j->ss != 0, slot = ac ? c->ac_tbl : c->dc_tbl;
      if (ac || j->ah == 0) {
        const char *why = slot < 4 ? jpg_build_huff(j, ac, slot) : "JPEG: scan uses an undefined Huffman table";
        if (why) return why;
      }
    }
  } else {
    for (int i = 0; i < j->sn; i++) {
      jpg_comp_t *c = &j->comp[j->scomp[i]];
      if (c->dc_tbl >= 4 || c->ac_tbl >= 4) return "JPEG: scan uses an undefined Huffman table";
      const char *why = jpg_build_huff(j, 0, c->dc_tbl);
      if (!why) why = jpg_build_huff(j, 1, c->ac_tbl);
      if (why) return why;
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- scans */

/* Sequential (jdhuff.c decode_mcu_slow): DC difference, then run/size coded AC values. */
static void jpg_block_seq(jpg_t *j, int16_t *blk, const jpg_comp_t *c, int32_t *pred) {
  int s = jpg_decode_huff(j, &j->huff[0][c->dc_tbl]);
  int32_t diff = s ? jpg_extend(jpg_bits(j, s), s) : 0;
  *pred = jpg_i32((uint32_t)*pred + (uint32_t)diff);
  blk[0] = jpg_i16((uint32_t)*pred);
  const jpg_huff_t *ac = &j->huff[1][c->ac_tbl];
  for (int k = 1; k < 64; k++) {
    int rs = jpg_decode_huff(j, ac), r = rs >> 4;
    s = rs & 15;
    if (s) {
      k += r;
      blk[jpg_natural[k]] = (int16_t)jpg_extend(jpg_bits(j, s), s);
    } else {
      if (r != 15) break;
      k += 15;
    }
  }
}

/* Progressive, first DC scan (decode_mcu_DC_first). */
static void jpg_block_dc_first(jpg_t *j, int16_t *blk, const jpg_comp_t *c, int32_t *pred) {
  int s = jpg_decode_huff(j, &j->huff[0][c->dc_tbl]);
  int32_t diff = s ? jpg_extend(jpg_bits(j, s), s) : 0;
  int64_t v = (int64_t)*pred + diff;
  if (v > INT32_MAX || v < INT32_MIN) {
    if (!j->err) j->err = "JPEG: DC coefficient out of range";
    return;
  }
  *pred = (int32_t)v;
  blk[0] = jpg_i16((uint32_t)*pred << j->al);
}

/* Progressive, first AC scan of a band (decode_mcu_AC_first). */
static void jpg_block_ac_first(jpg_t *j, int16_t *blk, const jpg_comp_t *c) {
  if (j->eobrun > 0) {
    j->eobrun--;
    return;
  }
  const jpg_huff_t *ac = &j->huff[1][c->ac_tbl];
  for (int k = j->ss; k <= j->se; k++) {
    int rs = jpg_decode_huff(j, ac), r = rs >> 4, s = rs & 15;
    if (s) {
      k += r;
      blk[jpg_natural[k]] = jpg_i16((uint32_t)jpg_extend(jpg_bits(j, s), s) << j->al);
    } else if (r == 15) {
      k += 15;
    } else {
      j->eobrun = 1u << r;
      if (r) j->eobrun += jpg_bits(j, r);
      j->eobrun--;
      break;
    }
  }
}

/* A correction bit for a coefficient already nonzero (decode_mcu_AC_refine). */
static void jpg_refine_coef(jpg_t *j, int16_t *coef) {
  int32_t p1 = 1 << j->al;
  if (jpg_bits(j, 1) && (*coef & p1) == 0) *coef = jpg_i16((uint32_t)(*coef + (*coef >= 0 ? p1 : -p1)));
}

/* Progressive AC refinement scan (decode_mcu_AC_refine). */
static void jpg_block_ac_refine(jpg_t *j, int16_t *blk, const jpg_comp_t *c) {
  int32_t p1 = 1 << j->al, m1 = -p1;
  int k = j->ss;
  if (j->eobrun == 0) {
    const jpg_huff_t *ac = &j->huff[1][c->ac_tbl];
    for (; k <= j->se; k++) {
      int rs = jpg_decode_huff(j, ac), r = rs >> 4, s = rs & 15;
      int32_t val = 0;
      if (s) {
        val = jpg_bits(j, 1) ? p1 : m1; /* a size other than 1 is bad data libjpeg accepts */
      } else if (r != 15) {
        j->eobrun = 1u << r;
        if (r) j->eobrun += jpg_bits(j, r);
        break;
      }
      do {
        int16_t *coef = &blk[jpg_natural[k]];
        if (*coef != 0) jpg_refine_coef(j, coef);
        else if (--r < 0) break;
        k++;
      } while (k <= j->se);
      if (val) blk[jpg_natural[k]] = (int16_t)val;
      if (j->err) return;
    }
  }
  if (j->eobrun > 0) {
    for (; k <= j->se; k++) {
      int16_t *coef = &blk[jpg_natural[k]];
      if (*coef != 0) jpg_refine_coef(j, coef);
    }
    j->eobrun--;
  }
}

/* libjpeg's jpeg_resync_to_restart: what to do when the marker met is not the expected
 * RSTn. Returns an error only when the stream ends. */
static const char *jpg_resync(jpg_t *j, int desired) {
  int m = j->marker;
  for (;;) {
    int action;
    if (m < 0xc0) action = 2;
    else if (m < 0xd0 || m > 0xd7) action = 3;
    else if (m == 0xd0 + ((desired + 1) & 7) || m == 0xd0 + ((desired + 2) & 7)) action = 3;
    else if (m == 0xd0 + ((desired - 1) & 7) || m == 0xd0 + ((desired - 2) & 7)) action = 2;
    else action = 1;
    if (action == 1) {
      j->marker = 0;
      return NULL;
    }
    if (action == 3) {
      j->marker = m;
      return NULL;
    }
    m = jpg_next_marker(j);
    if (m < 0) return "JPEG: stream ends inside entropy-coded data (truncated file)";
  }
}

/* process_restart: drop the partial byte, read the RSTn marker, reset the predictions. */
static const char *jpg_restart(jpg_t *j) {
  j->left = 0;
  if (!j->marker) {
    int m = jpg_next_marker(j);
    if (m < 0) return "JPEG: stream ends inside entropy-coded data (truncated file)";
    j->marker = m;
  }
  if (j->marker == 0xd0 + j->next_rst) {
    j->marker = 0;
  } else {
    const char *why = jpg_resync(j, j->next_rst);
    if (why) return why;
  }
  j->next_rst = (j->next_rst + 1) & 7;
  for (int i = 0; i < 4; i++) j->pred[i] = 0;
  j->eobrun = 0;
  j->restarts_to_go = j->restart_interval;
  if (!j->marker) j->insufficient = 0;
  return NULL;
}

static int16_t *jpg_block_at(const jpg_comp_t *c, uint32_t bx, uint32_t by) {
  return c->coef + ((size_t)by * c->bw + bx) * 64;
}

/* One MCU of the current scan: its blocks in order, each by the scan's kind. */
static void jpg_mcu(jpg_t *j, uint32_t mx, uint32_t my) {
  int dc_refine = j->progressive && j->ss == 0 && j->ah != 0;
  if (j->insufficient && !dc_refine) return; /* the rest of the segment stays as it is */
  for (int i = 0; i < j->sn; i++) {
    jpg_comp_t *c = &j->comp[j->scomp[i]];
    int bh = j->sn == 1 ? 1 : c->v, bwid = j->sn == 1 ? 1 : c->h;
    for (int by = 0; by < bh; by++)
      for (int bx = 0; bx < bwid; bx++) {
        int16_t *blk = jpg_block_at(c, mx * (uint32_t)bwid + (uint32_t)bx, my * (uint32_t)bh + (uint32_t)by);
        if (!j->progressive) jpg_block_seq(j, blk, c, &j->pred[i]);
        else if (j->ss == 0 && j->ah == 0) jpg_block_dc_first(j, blk, c, &j->pred[i]);
        else if (j->ss == 0) {
          if (jpg_bits(j, 1)) blk[0] = (int16_t)(blk[0] | (1 << j->al));
        } else if (j->ah == 0) jpg_block_ac_first(j, blk, c);
        else jpg_block_ac_refine(j, blk, c);
      }
  }
}

/* Decodes the entropy-coded data of the scan whose header was just read. */
static const char *jpg_scan(jpg_t *j) {
  uint32_t nx = j->mcux, ny = j->mcuy;
  if (j->sn == 1) {
    nx = j->comp[j->scomp[0]].wblocks;
    ny = j->comp[j->scomp[0]].hblocks;
  }
  j->buf = 0;
  j->left = 0;
  j->marker = 0;
  j->insufficient = 0;
  j->eobrun = 0;
  j->err = NULL;
  for (int i = 0; i < 4; i++) j->pred[i] = 0;
  j->restarts_to_go = j->restart_interval;
  for (uint32_t my = 0; my < ny; my++)
    for (uint32_t mx = 0; mx < nx; mx++) {
      if (j->restart_interval) {
        if (j->restarts_to_go == 0) {
          const char *why = jpg_restart(j);
          if (why) return why;
        }
      }
      jpg_mcu(j, mx, my);
      if (j->err) return j->err;
      if (j->restart_interval) j->restarts_to_go--;
    }
  return NULL;
}

/* ---------------------------------------------------------------- output */

/* The islow IDCT (jidctint.c's LL&M algorithm with CONST_BITS 13, PASS1_BITS 2) exactly as
 * libjpeg-turbo's x86-64 SIMD code computes it (jidctint-avx2.asm, which Pillow runs on
 * x86-64): 16-bit lanes where the assembly has them. For coefficients of real images this
 * equals the C jidctint.c bit for bit; for the extreme values of damaged streams the SIMD
 * arithmetic differs from the C one (wrapping dequantization, saturating packs instead of
 * the range-limit table), and this follows the SIMD, which is what the reference returns. */
#define JPG_F_0_298 2446
#define JPG_F_0_390 3196
#define JPG_F_0_541 4433
#define JPG_F_0_765 6270
#define JPG_F_0_899 7373
#define JPG_F_1_175 9633
#define JPG_F_1_501 12299
#define JPG_F_1_847 15137
#define JPG_F_1_961 16069
#define JPG_F_2_053 16819
#define JPG_F_2_562 20995
#define JPG_F_3_072 25172

static int32_t jpg_w16(int32_t v) { return jpg_i16((uint32_t)v); }
static int32_t jpg_sat16(int32_t v) { return v < -32768 ? -32768 : v > 32767 ? 32767 : v; }
/* pmaddwd: a * b + c * d of 16-bit values, in a 32-bit lane (wraps only for 2 * -32768^2). */
static uint32_t jpg_madd(int32_t a, int32_t b, int32_t c, int32_t d) { return (uint32_t)((int64_t)a * b + (int64_t)c * d); }
/* vpaddd of the rounding constant, vpsrad, vpackssdw. */
static int32_t jpg_descale(uint32_t v, int n) { return jpg_sat16((int32_t)jpg_sra(jpg_i32(v + (1u << (n - 1))), n)); }

/* One pass of the macro dodct over in[0], in[st], ..., in[7 st] (16-bit values). */
static void jpg_idct_pass(const int32_t *in, int st, int n, int32_t *out, int ost) {
  int32_t i0 = in[0], i1 = in[st], i2 = in[2 * st], i3 = in[3 * st], i4 = in[4 * st], i5 = in[5 * st], i6 = in[6 * st],
          i7 = in[7 * st];
  uint32_t tmp3 = jpg_madd(i2, JPG_F_0_541 + JPG_F_0_765, i6, JPG_F_0_541);
  uint32_t tmp2 = jpg_madd(i2, JPG_F_0_541, i6, JPG_F_0_541 - JPG_F_1_847);
  uint32_t tmp0 = (uint32_t)jpg_w16(i0 + i4) * 8192u, tmp1 = (uint32_t)jpg_w16(i0 + jpg_w16(-i4)) * 8192u;
  uint32_t tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
  int32_t z3 = jpg_w16(i7 + i3), z4 = jpg_w16(i5 + i1);
  uint32_t z3p = jpg_madd(z3, JPG_F_1_175 - JPG_F_1_961, z4, JPG_F_1_175);
  uint32_t z4p = jpg_madd(z3, JPG_F_1_175, z4, JPG_F_1_175 - JPG_F_0_390);
  uint32_t o0 = jpg_madd(i7, JPG_F_0_298 - JPG_F_0_899, i1, -JPG_F_0_899) + z3p;
  uint32_t o1 = jpg_madd(i5, JPG_F_2_053 - JPG_F_2_562, i3, -JPG_F_2_562) + z4p;
  uint32_t o3 = jpg_madd(i7, -JPG_F_0_899, i1, JPG_F_1_501 - JPG_F_0_899) + z4p;
  uint32_t o2 = jpg_madd(i5, -JPG_F_2_562, i3, JPG_F_3_072 - JPG_F_2_562) + z3p;
  out[0] = jpg_descale(tmp10 + o3, n);
  out[7 * ost] = jpg_descale(tmp10 - o3, n);
  out[1 * ost] = jpg_descale(tmp11 + o2, n);
  out[6 * ost] = jpg_descale(tmp11 - o2, n);
  out[2 * ost] = jpg_descale(tmp12 + o1, n);
  out[5 * ost] = jpg_descale(tmp12 - o1, n);
  out[3 * ost] = jpg_descale(tmp13 + o0, n);
  out[4 * ost] = jpg_descale(tmp13 - o0, n);
}

static void jpg_idct(jpg_t *j, const int16_t *coef, const uint16_t *q, uint8_t *out, size_t stride) {
  int32_t *ws = j->ws, *in = j->ws + 64, row[8];
  int ac = 0;
  for (int i = 0; i < 64; i++) {
    in[i] = jpg_w16((int32_t)((uint32_t)(uint16_t)coef[i] * q[i])); /* vpmullw */
    ac |= i >= 8 && coef[i] != 0;
  }
  if (!ac) { /* all rows 1..7 zero: the DC row shifted (vpsllw), as the assembly's shortcut */
    for (int i = 0; i < 64; i++) ws[i] = jpg_w16(in[i & 7] * 4);
  } else {
    for (int x = 0; x < 8; x++) jpg_idct_pass(in + x, 8, 11, ws + x, 8);
  }
  for (int y = 0; y < 8; y++) {
    jpg_idct_pass(ws + 8 * y, 1, 18, row, 1);
    uint8_t *o = out + (size_t)y * stride;
    for (int x = 0; x < 8; x++) o[x] = (uint8_t)((row[x] < -128 ? -128 : row[x] > 127 ? 127 : row[x]) + 128);
  }
}

/* Sample row y (clamped into [0, dh), as libjpeg's context rows replicate the edge rows)
 * of a component, inverse-transforming iMCU rows into the ring as they are first needed. */
static const uint8_t *jpg_comp_row(jpg_t *j, jpg_comp_t *c, int64_t y) {
  if (y < 0) y = 0;
  if (y >= (int64_t)c->dh) y = (int64_t)c->dh - 1;
  uint32_t rows = 8u * (uint32_t)c->v, m = (uint32_t)y / rows;
  size_t stride = (size_t)c->bw * 8;
  while (c->band_done < (int32_t)m) {
    uint32_t r = (uint32_t)++c->band_done;
    uint8_t *slot = c->band + (size_t)(r % 3) * rows * stride;
    for (uint32_t by = 0; by < (uint32_t)c->v; by++)
      for (uint32_t bx = 0; bx < c->bw; bx++)
        jpg_idct(j, jpg_block_at(c, bx, r * (uint32_t)c->v + by), c->q, slot + (size_t)by * 8 * stride + (size_t)bx * 8, stride);
  }
  return c->band + ((size_t)(m % 3) * rows + ((uint32_t)y - m * rows)) * stride;
}

/* h2v1_fancy_upsample / the horizontal half of h2v2: triangle filter over dw samples
 * (dw > 2), from column sums scaled by `scale` (1: h2v1 with biases 1, 2 and shift 2; 4:
 * h2v2 sums of 3 * near + far with biases 8, 7 and shift 4). */
static void jpg_fancy_h2(const uint8_t *p0, const uint8_t *p1, uint32_t dw, uint8_t *out) {
  if (!p1) {
    out[0] = p0[0];
    out[1] = (uint8_t)((p0[0] * 3 + p0[1] + 2) >> 2);
    for (uint32_t i = 1; i + 1 < dw; i++) {
      int v = p0[i] * 3;
      out[2 * i] = (uint8_t)((v + p0[i - 1] + 1) >> 2);
      out[2 * i + 1] = (uint8_t)((v + p0[i + 1] + 2) >> 2);
    }
    out[2 * dw - 2] = (uint8_t)((p0[dw - 1] * 3 + p0[dw - 2] + 1) >> 2);
    out[2 * dw - 1] = p0[dw - 1];
    return;
  }
  int last, cur = p0[0] * 3 + p1[0], next = p0[1] * 3 + p1[1];
  out[0] = (uint8_t)((cur * 4 + 8) >> 4);
  out[1] = (uint8_t)((cur * 3 + next + 7) >> 4);
  for (uint32_t i = 1; i + 1 < dw; i++) {
    last = cur;
    cur = next;
    next = p0[i + 1] * 3 + p1[i + 1];
    out[2 * i] = (uint8_t)((cur * 3 + last + 8) >> 4);
    out[2 * i + 1] = (uint8_t)((cur * 3 + next + 7) >> 4);
  }
  last = cur;
  cur = next;
  out[2 * dw - 2] = (uint8_t)((cur * 3 + last + 8) >> 4);
  out[2 * dw - 1] = (uint8_t)((cur * 4 + 7) >> 4);
}

/* Output row y of a component at full resolution (width samples, maybe one more). */
static const uint8_t *jpg_up_row(jpg_t *j, jpg_comp_t *c, uint32_t y) {
  switch (c->up) {
  case JPG_UP_FULL:
    return jpg_comp_row(j, c, y);
  case JPG_UP_H2V1:
    jpg_fancy_h2(jpg_comp_row(j, c, y), NULL, c->dw, c->row);
    return c->row;
  case JPG_UP_H1V2:
  case JPG_UP_H2V2: {
    /* the nearer row, and the next nearer: above for even output rows, below for odd */
    int64_t iy = y / 2, other = (y & 1) ? iy + 1 : iy - 1;
    const uint8_t *p0 = jpg_comp_row(j, c, other);
    const uint8_t *near = jpg_comp_row(j, c, iy);
    if (c->up == JPG_UP_H2V2) {
      jpg_fancy_h2(near, p0, c->dw, c->row);
    } else {
      int bias = (y & 1) ? 2 : 1;
      for (uint32_t x = 0; x < c->dw; x++) c->row[x] = (uint8_t)((near[x] * 3 + p0[x] + bias) >> 2);
    }
    return c->row;
  }
  default: {
    const uint8_t *p = jpg_comp_row(j, c, y / (uint32_t)c->vexp);
    for (uint32_t x = 0; x < j->width; x++) c->row[x] = p[x / (uint32_t)c->hexp];
    return c->row;
  }
  }
}

static uint8_t jpg_clamp(int64_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* jdcolor.c's ycc_rgb_convert in closed form (its tables hold exactly these values); for
 * YCCK (ycck_cmyk_convert) the same sums are subtracted from 255. */
static void jpg_ycc(uint32_t y, uint32_t cb8, uint32_t cr8, int invert, uint8_t *out) {
  int32_t cb = (int32_t)cb8 - 128, cr = (int32_t)cr8 - 128;
  int64_t r = y + jpg_sra((int64_t)91881 * cr + 32768, 16);
  int64_t g = y + jpg_sra((int64_t)-22554 * cb + 32768 + (int64_t)-46802 * cr, 16);
  int64_t b = y + jpg_sra((int64_t)116130 * cb + 32768, 16);
  out[0] = jpg_clamp(invert ? 255 - r : r);
  out[1] = jpg_clamp(invert ? 255 - g : g);
  out[2] = jpg_clamp(invert ? 255 - b : b);
}

/* Pillow's view of 4-component JPEG: libjpeg's CMYK samples read as "CMYK;I" (inverted,
 * Adobe's convention), then Convert.c's cmyk2rgb: nk - nk * c / 255 with its rounding. */
static void jpg_cmyk_rgb(const uint8_t *s, uint8_t *out) {
  uint32_t nk = s[3];
  for (int i = 0; i < 3; i++) {
    uint32_t c = 255u - s[i], t = c * nk + 128, m = ((t >> 8) + t) >> 8;
    out[i] = (uint8_t)(nk >= m ? nk - m : 0);
  }
}

static void jpg_convert_row(const jpg_t *j, const uint8_t *const *p, uint8_t *out) {
  for (uint32_t x = 0; x < j->width; x++, out += 3) {
    uint8_t s[4];
    switch (j->space) {
    case JPG_GREY: out[0] = out[1] = out[2] = p[0][x]; break;
    case JPG_RGB: out[0] = p[0][x], out[1] = p[1][x], out[2] = p[2][x]; break;
    case JPG_YCC: jpg_ycc(p[0][x], p[1][x], p[2][x], 0, out); break;
    default:
      if (j->space == JPG_YCCK) jpg_ycc(p[0][x], p[1][x], p[2][x], 1, s);
      else s[0] = p[0][x], s[1] = p[1][x], s[2] = p[2][x];
      s[3] = p[3][x];
      jpg_cmyk_rgb(s, out);
      break;
    }
  }
}

static void jpg_output(jpg_t *j, uint8_t *rgb) {
  const uint8_t *p[JPG_MAXC];
  for (uint32_t y = 0; y < j->height; y++) {
    for (int i = 0; i < j->ncomp; i++) p[i] = jpg_up_row(j, &j->comp[i], y);
    jpg_convert_row(j, p, rgb + (size_t)y * j->width * 3);
  }
}

/* ---------------------------------------------------------------- the stream */

/* libjpeg's smoothing_ok at the end of a progressive file: block smoothing (which we do not
 * reproduce) runs when every component has its DC and some of AC 1..9 are not exact. */
static int jpg_would_smooth(const jpg_t *j) {
  int useful = 0;
  for (int i = 0; i < j->ncomp; i++) {
    const jpg_comp_t *c = &j->comp[i];
    if (!c->latched) return 0;
    for (int k = 0; k < 10; k++)
      if (c->q[jpg_natural[k]] == 0) return 0;
    if (c->coef_bits[0] < 0) return 0;
    for (int k = 1; k < 10; k++)
      if (c->coef_bits[k] != 0) useful = 1;
  }
  return useful;
}

/* An SOS: geometry at the first one, checks, then the scan's data. */
static const char *jpg_handle_sos(jpg_t *j, const berth_image_dst_t *dst) {
  const char *why = jpg_sos(j);
  if (why) return why;
  if (!j->saw_sos) {
    why = jpg_setup(j, dst);
    if (why) return why;
    j->multiscan = j->progressive || j->sn < j->ncomp;
  } else if (!j->multiscan) {
    return "JPEG: more than one scan in a single-scan image";
  } else if (++j->nscans > JPG_MAX_SCANS) {
    return "JPEG: more than 1000 scans (each one a pass over the whole image)";
  }
  j->saw_sos = 1;
  why = jpg_scan_setup(j);
  if (why) return why;
  return jpg_scan(j);
}

/* One marker (after SOI). Returns 1 at EOI, 0 to go on, -1 with *why set on error. */
static int jpg_marker(jpg_t *j, int m, const berth_image_dst_t *dst, const char **why) {
  *why = NULL;
  switch (m) {
  case 0xd8: *why = "JPEG: second SOI marker"; break;
  case 0xc0:
  case 0xc1: *why = jpg_sof(j, 0); break;
  case 0xc2: *why = jpg_sof(j, 1); break;
  case 0xc9:
  case 0xca: *why = "JPEG: arithmetic coding is not supported"; break;
  case 0xc3: case 0xc5: case 0xc6: case 0xc7: case 0xc8: case 0xcb: case 0xcd: case 0xce: case 0xcf:
    *why = "JPEG: lossless or hierarchical JPEG (SOF3, SOF5..7, SOF11, SOF13..15) is not supported";
    break;
  case 0xc4: *why = jpg_dht(j); break;
  case 0xdb: *why = jpg_dqt(j); break;
  case 0xdd: *why = jpg_dri(j); break;
  case 0xda: *why = jpg_handle_sos(j, dst); break;
  case 0xd9:
    if (!j->saw_sos) *why = "JPEG: EOI before any scan";
    return *why ? -1 : 1;
  case 0xcc: /* DAC: only for arithmetic coding, which its SOF refuses */
  case 0xdc: /* DNL: ignored, as libjpeg ignores it */
  case 0xfe: {
    const uint8_t *p;
    uint32_t len;
    *why = jpg_segment(j, &p, &len);
    break;
  }
  case 0xd0: case 0xd1: case 0xd2: case 0xd3: case 0xd4: case 0xd5: case 0xd6: case 0xd7:
    break; /* a stray RSTn between segments: libjpeg ignores it */
  case 0x01:
    if (!j->saw_sos) *why = "JPEG: TEM marker in the header (Pillow refuses it)";
    break;
  default:
    if (m >= 0xe0 && m <= 0xef) *why = jpg_app(j, m);
    else *why = "JPEG: unknown or reserved marker";
    break;
  }
  return *why ? -1 : 0;
}

const char *berth_image_decode_jpeg(const uint8_t *src, size_t n, berth_image_dst_t *dst) {
  dst->height = dst->width = 0;
  if (n < 3 || src[0] != 0xff || src[1] != 0xd8 || src[2] != 0xff) return "JPEG: no SOI marker (not a JPEG stream)";
  if (!dst->scratch || dst->scratch_bytes < jpg_state_bytes())
    return "JPEG: scratch smaller than berth_image_jpeg_scratch_bytes asks";
  jpg_t *j = (jpg_t *)dst->scratch;
  memset(j, 0, sizeof *j);
  j->src = src;
  j->n = n;
  j->pos = 2;
  for (int t = 0; t < 2; t++) { /* libjpeg's defaults for slots 0 and 1 */
    memcpy(j->raw[0][t].bits, jpg_std_bits[t], 17);
    for (int i = 0; i < 12; i++) j->raw[0][t].val[i] = (uint8_t)i;
    j->raw[0][t].defined = 2;
    memcpy(j->raw[1][t].bits, jpg_std_bits[2 + t], 17);
    memcpy(j->raw[1][t].val, t ? jpg_std_ac_chr : jpg_std_ac_lum, 162);
    j->raw[1][t].defined = 2;
  }
  for (;;) {
    /* after a scan, the marker its data ended on, if the reader met one */
    int m = j->marker ? j->marker : jpg_next_marker(j);
    j->marker = 0;
    if (m < 0) return j->saw_sos ? "JPEG: stream ends before the EOI marker" : "JPEG: stream ends before the first scan";
    const char *why;
    int r = jpg_marker(j, m, dst, &why);
    if (r < 0) return why;
    if (r > 0) break;
  }
  if (j->progressive && jpg_would_smooth(j))
    return "JPEG: progressive image with incomplete AC scans (libjpeg block smoothing is not supported)";
  jpg_output(j, dst->rgb);
  dst->height = j->height;
  dst->width = j->width;
  return NULL;
}
