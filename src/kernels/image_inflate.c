/* DEFLATE decoding for the image decoders (image_inflate.h). A canonical-code decoder in the
 * manner of RFC 1951's description (code lengths -> counts per length -> symbols in code
 * order), with a 9-bit lookup table for the short codes and a bit-at-a-time walk for the
 * rest. Every read is checked against the segment; every length, distance and code set
 * against the format's limits; every write against out_len. */
#include "image_inflate.h"

#include <string.h>

#define FAST_BITS 9

typedef struct huff {
  int16_t count[16];
  int16_t symbol[288];
  int16_t fast[1 << FAST_BITS]; /* the next FAST_BITS bits -> symbol << 4 | length; 0: longer code */
} huff_t;

typedef struct tables {
  huff_t lit, dist;
  uint8_t lengths[320];
} tables_t;

typedef struct inflate_state {
  berth_inflate_src_t *src;
  uint32_t bitbuf;
  int bitcnt;
  const char *err;
  uint8_t *out;
  size_t out_len, pos;
} inflate_state_t;

_Static_assert(sizeof(tables_t) <= BERTH_INFLATE_TABLE_BYTES, "inflate tables fit their scratch");

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* The next compressed byte, or -1 at the end of the data (nothing consumed then). */
static int raw_byte(berth_inflate_src_t *in) {
  while (in->p == in->end) {
    /* PNG: skip this chunk's CRC, then the next chunk must be an IDAT */
    if (!in->png_idat || in->stream_end - in->end < 12 || memcmp(in->end + 8, "IDAT", 4) != 0) return -1;
    uint32_t len = be32(in->end + 4);
    const uint8_t *data = in->end + 12;
    if (len > (uint64_t)(in->stream_end - data)) return -1;
    in->p = data;
    in->end = data + len;
  }
  return *in->p++;
}

/* The next compressed byte, or -1 (s->err set) at the end of the data. */
static int next_byte(inflate_state_t *s) {
  int b = raw_byte(s->src);
  if (b < 0) s->err = "deflate: compressed data ends early";
  return b;
}

/* Tops the bit buffer up to more than 24 bits where the data has them. */
static void refill(inflate_state_t *s) {
  while (s->bitcnt <= 24) {
    int b = raw_byte(s->src);
    if (b < 0) return;
    s->bitbuf |= (uint32_t)b << s->bitcnt;
    s->bitcnt += 8;
  }
}

static uint32_t bits(inflate_state_t *s, int need) {
  uint32_t v = s->bitbuf;
  while (s->bitcnt < need) {
    int b = next_byte(s);
    if (b < 0) return 0;
    v |= (uint32_t)b << s->bitcnt;
    s->bitcnt += 8;
  }
  s->bitbuf = v >> need;
  s->bitcnt -= need;
  return v & ((1u << need) - 1);
}

/* Builds the code of n symbols from their lengths: 0 when complete, > 0 when incomplete, -1
 * when over-subscribed. */
static int build(huff_t *h, const uint8_t *length, int n) {
  int16_t offs[16];
  memset(h->count, 0, sizeof h->count);
  for (int i = 0; i < n; i++) h->count[length[i]]++;
  if (h->count[0] == n) return 0; /* no codes: complete, and decode fails on use */
  int left = 1;
  for (int len = 1; len < 16; len++) {
    left <<= 1;
    left -= h->count[len];
    if (left < 0) return -1;
  }
  offs[1] = 0;
  for (int len = 1; len < 15; len++) offs[len + 1] = (int16_t)(offs[len] + h->count[len]);
  for (int i = 0; i < n; i++)
    if (length[i]) h->symbol[offs[length[i]]++] = (int16_t)i;
  /* the lookup table: canonical codes in symbol order, bit-reversed (DEFLATE sends codes
   * from their first bit, the buffer holds them from bit 0) */
  memset(h->fast, 0, sizeof h->fast);
  for (int len = 1, code = 0, k = 0; len < 16; len++, code <<= 1)
    for (int i = 0; i < h->count[len]; i++, k++, code++) {
      if (len > FAST_BITS) continue;
      int rev = 0;
      for (int b = 0; b < len; b++) rev |= (code >> b & 1) << (len - 1 - b);
      for (int j = rev; j < (1 << FAST_BITS); j += 1 << len) h->fast[j] = (int16_t)(h->symbol[k] << 4 | len);
    }
  return left;
}

/* One symbol: from the lookup table when the buffer holds its code, else a bit at a time. */
static int decode(inflate_state_t *s, const huff_t *h) {
  refill(s);
  int e = h->fast[s->bitbuf & ((1u << FAST_BITS) - 1)];
  if (e && (e & 15) <= s->bitcnt) {
    s->bitbuf >>= e & 15;
    s->bitcnt -= e & 15;
    return e >> 4;
  }
  int code = 0, first = 0, index = 0, left = s->bitcnt;
  uint32_t buf = s->bitbuf;
  for (int len = 1; len < 16; len++) {
    if (left == 0) {
      int b = next_byte(s);
      if (b < 0) return -1;
      buf = (uint32_t)b;
      left = 8;
    }
    code |= (int)(buf & 1);
    buf >>= 1;
    left--;
    int count = h->count[len];
    if (code - count < first) {
      s->bitbuf = buf;
      s->bitcnt = left;
      return h->symbol[index + (code - first)];
    }
    index += count;
    first += count;
    first <<= 1;
    code <<= 1;
  }
  s->err = "deflate: invalid Huffman code";
  return -1;
}

static void put(inflate_state_t *s, uint8_t b) {
  if (s->pos == s->out_len) {
    s->err = "deflate: more data than the image needs";
    return;
  }
  s->out[s->pos++] = b;
}

static void stored(inflate_state_t *s) {
  bits(s, s->bitcnt & 7); /* to a byte boundary (whole bytes may wait in the buffer) */
  uint32_t len = bits(s, 16), nlen = bits(s, 16);
  if (s->err) return;
  if (len != (~nlen & 0xffff)) {
    s->err = "deflate: stored block length does not match its complement";
    return;
  }
  for (; len && s->bitcnt >= 8 && !s->err; len--) put(s, (uint8_t)bits(s, 8));
  for (; len && !s->err; len--) { /* the buffer is empty: straight from the data */
    int b = next_byte(s);
    if (b < 0) return;
    put(s, (uint8_t)b);
  }
}

static const uint16_t k_lbase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                     31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t k_lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t k_dbase[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                     193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t k_dext[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* The symbols of one Huffman-coded block, up to its end-of-block. */
static void codes(inflate_state_t *s, const huff_t *lit, const huff_t *dist) {
  for (;;) {
    int sym = decode(s, lit);
    if (s->err) return;
    if (sym < 256) {
      put(s, (uint8_t)sym);
      if (s->err) return;
      continue;
    }
    if (sym == 256) return;
    sym -= 257;
    if (sym >= 29) {
      s->err = "deflate: invalid length code";
      return;
    }
    uint32_t len = k_lbase[sym] + bits(s, k_lext[sym]);
    int ds = decode(s, dist);
    if (s->err) return;
    if (ds >= 30) {
      s->err = "deflate: invalid distance code";
      return;
    }
    uint32_t d = k_dbase[ds] + bits(s, k_dext[ds]);
    if (s->err) return;
    if (d > s->pos) {
      s->err = "deflate: distance reaches before the start of the data";
      return;
    }
    if (len > s->out_len - s->pos) {
      s->err = "deflate: more data than the image needs";
      return;
    }
    for (uint32_t k = 0; k < len; k++, s->pos++) s->out[s->pos] = s->out[s->pos - d];
  }
}

static void fixed(inflate_state_t *s, tables_t *t) {
  int k = 0;
  for (; k < 144; k++) t->lengths[k] = 8;
  for (; k < 256; k++) t->lengths[k] = 9;
  for (; k < 280; k++) t->lengths[k] = 7;
  for (; k < 288; k++) t->lengths[k] = 8;
  build(&t->lit, t->lengths, 288);
  for (k = 0; k < 30; k++) t->lengths[k] = 5;
  build(&t->dist, t->lengths, 30);
  codes(s, &t->lit, &t->dist);
}

/* The code-length sequence of a dynamic block into t->lengths (nlen + ndist entries). */
static void dyn_lengths(inflate_state_t *s, tables_t *t, int nlen, int ndist, int ncode) {
  static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  memset(t->lengths, 0, sizeof t->lengths);
  for (int k = 0; k < ncode; k++) t->lengths[order[k]] = (uint8_t)bits(s, 3);
  if (s->err) return;
  if (build(&t->lit, t->lengths, 19) != 0) {
    s->err = "deflate: incomplete code-length code";
    return;
  }
  int k = 0;
  while (k < nlen + ndist) {
    int sym = decode(s, &t->lit);
    if (s->err) return;
    if (sym < 16) {
      t->lengths[k++] = (uint8_t)sym;
      continue;
    }
    uint8_t len = 0;
    uint32_t rep;
    if (sym == 16) {
      if (k == 0) {
        s->err = "deflate: repeat with no previous length";
        return;
      }
      len = t->lengths[k - 1];
      rep = 3 + bits(s, 2);
    } else if (sym == 17) {
      rep = 3 + bits(s, 3);
    } else {
      rep = 11 + bits(s, 7);
    }
    if (s->err) return;
    if (k + (int)rep > nlen + ndist) {
      s->err = "deflate: code lengths overrun their count";
      return;
    }
    while (rep--) t->lengths[k++] = len;
  }
}

static void dynamic(inflate_state_t *s, tables_t *t) {
  int nlen = (int)bits(s, 5) + 257, ndist = (int)bits(s, 5) + 1, ncode = (int)bits(s, 4) + 4;
  if (s->err) return;
  if (nlen > 286 || ndist > 30) {
    s->err = "deflate: bad counts in a dynamic block";
    return;
  }
  dyn_lengths(s, t, nlen, ndist, ncode);
  if (s->err) return;
  if (t->lengths[256] == 0) {
    s->err = "deflate: no end-of-block code";
    return;
  }
  int e = build(&t->lit, t->lengths, nlen);
  if (e < 0 || (e > 0 && nlen - t->lit.count[0] != 1)) {
    s->err = "deflate: bad literal/length code";
    return;
  }
  uint8_t dl[30];
  memcpy(dl, t->lengths + nlen, (size_t)ndist);
  e = build(&t->dist, dl, ndist);
  if (e < 0 || (e > 0 && ndist - t->dist.count[0] != 1)) {
    s->err = "deflate: bad distance code";
    return;
  }
  codes(s, &t->lit, &t->dist);
}

static uint32_t adler32(const uint8_t *p, size_t n) {
  uint32_t a = 1, b = 0;
  while (n) {
    size_t k = n < 5552 ? n : 5552;
    n -= k;
    while (k--) {
      a += *p++;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return b << 16 | a;
}

const char *berth_inflate_zlib(berth_inflate_src_t *src, uint8_t *out, size_t out_len, void *tables) {
  inflate_state_t s = {src, 0, 0, NULL, out, out_len, 0};
  tables_t *t = (tables_t *)tables;
  int cmf = next_byte(&s), flg = cmf < 0 ? -1 : next_byte(&s);
  if (flg < 0) return s.err;
  if ((cmf & 15) != 8 || (cmf >> 4) > 7 || ((cmf << 8) | flg) % 31 != 0)
    return "deflate: bad zlib header";
  if (flg & 0x20) return "deflate: zlib preset dictionary not allowed";
  int last = 0;
  while (!last && !s.err) {
    last = (int)bits(&s, 1);
    uint32_t type = bits(&s, 2);
    if (s.err) break;
    if (type == 0) stored(&s);
    else if (type == 1) fixed(&s, t);
    else if (type == 2) dynamic(&s, t);
    else s.err = "deflate: invalid block type";
  }
  if (s.err) return s.err;
  if (s.pos != out_len) return "deflate: less data than the image needs";
  uint32_t want = 0;
  bits(&s, s.bitcnt & 7); /* the Adler-32 starts at the next byte boundary */
  for (int k = 0; k < 4 && !s.err; k++) want = want << 8 | bits(&s, 8);
  if (s.err) return "deflate: zlib stream ends before its Adler-32";
  if (adler32(out, out_len) != want) return "deflate: Adler-32 mismatch";
  return NULL;
}
