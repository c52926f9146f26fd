/* The VP8L lossless image behind lossless WebP (the WebP Lossless Bitstream
 * Specification, RFC 9649 section 3): LSB-first bits, canonical prefix codes (simple or
 * length-coded, validated the way libwebp validates them), meta prefix codes (an entropy
 * image selecting one of several code groups per tile), LZ77 backward references with the
 * 120-entry distance map, the colour cache, and the four transforms (predictor, colour,
 * subtract green, colour indexing with pixel packing), undone in reverse order. It is exact
 * integer decoding, following libwebp's src/dec/vp8l_dec.c and src/dsp/lossless.c.
 *
 * Memory (all in the caller's scratch, sized from the bound): the ARGB image, the
 * transforms' sub-images, the colour cache and the prefix codes of at most
 * VP8L_MAX_GROUPS code groups in use (a stream that uses more is refused). Codes are kept
 * as canonical (count per length, symbols in code order) and decoded bit by bit. */
#include "image_webp_internal.h"

#include "base/checked.h"

#include <string.h>

#define VP8L_MAX_GROUPS 1024u
#define NUM_LITERAL 256
#define NUM_LENGTH 24
#define NUM_DIST 40
#define MAX_CACHE_BITS 11
#define GREEN_MAX (NUM_LITERAL + NUM_LENGTH + (1 << MAX_CACHE_BITS))
#define MAX_DIM 16384u

enum { GREEN = 0, RED, BLUE, ALPHA, DIST };
enum { PREDICTOR = 0, CROSS_COLOR = 1, SUBTRACT_GREEN = 2, COLOR_INDEXING = 3 };

/* ---- bits ----------------------------------------------------------------------------- */

typedef struct vp8l_br {
  const uint8_t *buf;
  size_t len;
  uint64_t pos; /* bits consumed; past 8 * len the stream is over (zeros are read) */
} vp8l_br_t;

static uint32_t read_bits(vp8l_br_t *br, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; i++, br->pos++) {
    const uint64_t byte = br->pos >> 3;
    if (byte < br->len) v |= (uint32_t)((br->buf[byte] >> (br->pos & 7)) & 1) << i;
  }
  return v;
}

static int eos(const vp8l_br_t *br) { return br->pos > 8 * (uint64_t)br->len; }

/* ---- prefix codes --------------------------------------------------------------------- */

typedef struct vp8l_code {
  uint16_t count[16]; /* codes of each length */
  uint16_t nsym;      /* symbols with a code; 1: the code has zero bits */
  uint16_t *sym;      /* symbols in canonical order */
} vp8l_code_t;

typedef struct vp8l_group {
  vp8l_code_t code[5];
  uint16_t sym[GREEN_MAX + 3 * NUM_LITERAL + NUM_DIST];
} vp8l_group_t;

static const uint16_t kAlphabet[5] = {NUM_LITERAL + NUM_LENGTH, NUM_LITERAL, NUM_LITERAL, NUM_LITERAL, NUM_DIST};

/* Builds the canonical code of these lengths (0: unused), rejecting what libwebp's
 * BuildHuffmanTable rejects: no symbol, an over-subscribed or an incomplete code (one
 * symbol alone is a valid zero-bit code). */
static int build_code(vp8l_code_t *c, uint16_t *sym, const uint8_t *lengths, int n) {
  uint16_t offset[16];
  int num_open = 1, num_nodes = 1, total = 0;
  memset(c->count, 0, sizeof c->count);
  for (int s = 0; s < n; s++) c->count[lengths[s]]++;
  c->count[0] = 0;
  for (int len = 1; len < 16; len++) total += c->count[len];
  if (total == 0) return 0;
  for (int len = 1; len < 15; len++) {
    if (c->count[len] > (1 << len)) return 0;
  }
  offset[1] = 0;
  for (int len = 1; len < 15; len++) offset[len + 1] = (uint16_t)(offset[len] + c->count[len]);
  for (int s = 0; s < n; s++) {
    if (lengths[s]) sym[offset[lengths[s]]++] = (uint16_t)s;
  }
  c->sym = sym;
  c->nsym = (uint16_t)total;
  if (total == 1) return 1;
  for (int len = 1; len < 16; len++) {
    num_open <<= 1;
    num_nodes += num_open;
    num_open -= c->count[len];
    if (num_open < 0) return 0;
  }
  return num_nodes == 2 * total - 1;
}

static int read_symbol(vp8l_br_t *br, const vp8l_code_t *c) {
  if (c->nsym == 1) return c->sym[0];
  int code = 0, first = 0, index = 0;
  for (int len = 1; len < 16; len++) {
    code |= (int)read_bits(br, 1);
    const int count = c->count[len];
    if (code - count < first) return c->sym[index + (code - first)];
    index += count;
    first += count;
    first <<= 1;
    code <<= 1;
  }
  return 0; /* unreachable for a complete code */
}

typedef struct vp8l_dec {
  vp8l_br_t br;
  uint8_t lengths[GREEN_MAX];
  uint16_t clc_sym[19];
  uint32_t width, height;
  int transforms_seen, num_transforms;
  struct {
    int type, bits;
    uint32_t xsize;
    uint32_t *data;
  } transform[4];
  uint32_t *argb, *pred_data, *cross_data, *palette, *entropy, *cache;
  uint16_t *mapping;    /* meta code -> group in use, 0xffff: unused */
  vp8l_group_t *groups; /* group_cap of them for the main image */
  vp8l_group_t *spare;  /* one more: sub-images' codes, and unused codes read and dropped */
  uint32_t group_cap;
} vp8l_dec_t;

static const uint8_t kCodeLengthOrder[19] = {17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* Code lengths coded with the code-length code (libwebp's ReadHuffmanCodeLengths). */
static int read_code_lengths(vp8l_dec_t *L, const vp8l_code_t *clc, int n) {
  vp8l_br_t *br = &L->br;
  int max_symbol = n, prev = 8;
  if (read_bits(br, 1)) {
    const int length_nbits = 2 + 2 * (int)read_bits(br, 3);
    max_symbol = 2 + (int)read_bits(br, length_nbits);
    if (max_symbol > n) return 0;
  }
  for (int s = 0; s < n;) {
    if (max_symbol-- == 0) break;
    const int len = read_symbol(br, clc);
    if (len < 16) {
      L->lengths[s++] = (uint8_t)len;
      if (len != 0) prev = len;
    } else {
      static const uint8_t kExtra[3] = {2, 3, 7}, kOffset[3] = {3, 3, 11};
      const int repeat = (int)read_bits(br, kExtra[len - 16]) + kOffset[len - 16];
      if (s + repeat > n) return 0;
      const uint8_t v = (uint8_t)(len == 16 ? prev : 0);
      for (int k = 0; k < repeat; k++) L->lengths[s++] = v;
    }
    if (eos(br)) return 0;
  }
  return 1;
}

static int read_code(vp8l_dec_t *L, int n, vp8l_code_t *c, uint16_t *sym) {
  vp8l_br_t *br = &L->br;
  memset(L->lengths, 0, (size_t)n);
  if (read_bits(br, 1)) { /* simple: one or two symbols */
    const int num = (int)read_bits(br, 1) + 1;
    const int first_bits = read_bits(br, 1) ? 8 : 1;
    int s = (int)read_bits(br, first_bits);
    if (s < n) L->lengths[s] = 1;
    if (num == 2) {
      s = (int)read_bits(br, 8);
      if (s < n) L->lengths[s] = 1;
    }
  } else {
    uint8_t clc_lengths[19] = {0};
    vp8l_code_t clc;
    const int num_codes = (int)read_bits(br, 4) + 4;
    for (int i = 0; i < num_codes; i++) clc_lengths[kCodeLengthOrder[i]] = (uint8_t)read_bits(br, 3);
    if (!build_code(&clc, L->clc_sym, clc_lengths, 19)) return 0;
    if (!read_code_lengths(L, &clc, n)) return 0;
  }
  if (eos(br)) return 0;
  return build_code(c, sym, L->lengths, n);
}

static int read_group(vp8l_dec_t *L, vp8l_group_t *g, int cache_bits) {
  uint16_t *sym = g->sym;
  for (int j = 0; j < 5; j++) {
    int n = kAlphabet[j];
    if (j == GREEN && cache_bits > 0) n += 1 << cache_bits;
    if (!read_code(L, n, &g->code[j], sym)) return 0;
    sym += n;
  }
  return 1;
}

/* ---- pixels --------------------------------------------------------------------------- */

static const uint8_t kCodeToPlane[120] = {
    0x18, 0x07, 0x17, 0x19, 0x28, 0x06, 0x27, 0x29, 0x16, 0x1a, 0x26, 0x2a, 0x38, 0x05, 0x37, 0x39, 0x15, 0x1b, 0x36, 0x3a,
    0x25, 0x2b, 0x48, 0x04, 0x47, 0x49, 0x14, 0x1c, 0x35, 0x3b, 0x46, 0x4a, 0x24, 0x2c, 0x58, 0x45, 0x4b, 0x34, 0x3c, 0x03,
    0x57, 0x59, 0x13, 0x1d, 0x56, 0x5a, 0x23, 0x2d, 0x44, 0x4c, 0x55, 0x5b, 0x33, 0x3d, 0x68, 0x02, 0x67, 0x69, 0x12, 0x1e,
    0x66, 0x6a, 0x22, 0x2e, 0x54, 0x5c, 0x43, 0x4d, 0x65, 0x6b, 0x32, 0x3e, 0x78, 0x01, 0x77, 0x79, 0x53, 0x5d, 0x11, 0x1f,
    0x64, 0x6c, 0x42, 0x4e, 0x76, 0x7a, 0x21, 0x2f, 0x75, 0x7b, 0x31, 0x3f, 0x63, 0x6d, 0x52, 0x5e, 0x00, 0x74, 0x7c, 0x41,
    0x4f, 0x10, 0x20, 0x62, 0x6e, 0x30, 0x73, 0x7d, 0x51, 0x5f, 0x40, 0x72, 0x7e, 0x61, 0x6f, 0x50, 0x71, 0x7f, 0x60, 0x70};

static uint32_t copy_distance(vp8l_br_t *br, int symbol) {
  if (symbol < 4) return (uint32_t)symbol + 1;
  const int extra = (symbol - 2) >> 1;
  const uint32_t offset = (uint32_t)(2 + (symbol & 1)) << extra;
  return offset + read_bits(br, extra) + 1;
}

static uint64_t plane_to_distance(uint32_t xsize, uint32_t code) {
  if (code > 120) return code - 120;
  const int dist_code = kCodeToPlane[code - 1];
  const int64_t d = (int64_t)(dist_code >> 4) * xsize + (8 - (dist_code & 0xf));
  return d >= 1 ? (uint64_t)d : 1;
}

static uint32_t subsample(uint32_t size, int bits) { return (size + (1u << bits) - 1) >> bits; }

/* How the pixels of one image are coded: its groups (entropy image, or the one group). */
typedef struct vp8l_codes {
  const vp8l_group_t *single; /* no entropy image */
  const uint32_t *entropy;    /* group index per tile */
  int bits;
  uint32_t exsize;
  int cache_bits;
} vp8l_codes_t;

static const vp8l_group_t *group_at(const vp8l_dec_t *L, const vp8l_codes_t *k, uint32_t x, uint32_t y) {
  if (k->single) return k->single;
  return &L->groups[k->entropy[(size_t)(y >> k->bits) * k->exsize + (x >> k->bits)]];
}

static void cache_insert(uint32_t *cache, int cache_bits, uint32_t argb) {
  if (cache_bits > 0) cache[(uint32_t)(argb * 0x1e35a7bdu) >> (32 - cache_bits)] = argb;
}

static const char *decode_pixels(vp8l_dec_t *L, uint32_t *data, uint32_t width, uint32_t height, const vp8l_codes_t *k) {
  vp8l_br_t *br = &L->br;
  const size_t total = (size_t)width * height;
  const int cache_bits = k->cache_bits;
  uint32_t x = 0, y = 0;
  if (cache_bits > 0) memset(L->cache, 0, sizeof(uint32_t) << cache_bits);
  for (size_t at = 0; at < total;) {
    const vp8l_group_t *g = group_at(L, k, x, y);
    const int code = read_symbol(br, &g->code[GREEN]);
    if (code < NUM_LITERAL) {
      const uint32_t red = (uint32_t)read_symbol(br, &g->code[RED]);
      const uint32_t blue = (uint32_t)read_symbol(br, &g->code[BLUE]);
      const uint32_t alpha = (uint32_t)read_symbol(br, &g->code[ALPHA]);
      data[at] = (alpha << 24) | (red << 16) | ((uint32_t)code << 8) | blue;
      cache_insert(L->cache, cache_bits, data[at]);
      at++;
      if (++x == width) x = 0, y++;
    } else if (code < NUM_LITERAL + NUM_LENGTH) {
      const uint32_t length = copy_distance(br, code - NUM_LITERAL);
      const int dist_symbol = read_symbol(br, &g->code[DIST]);
      const uint64_t dist = plane_to_distance(width, copy_distance(br, dist_symbol));
      if (eos(br)) break;
      if (at < dist || total - at < length) return "WebP: VP8L backward reference is outside the image";
      for (uint32_t i = 0; i < length; i++, at++) {
        data[at] = data[at - dist];
        cache_insert(L->cache, cache_bits, data[at]);
      }
      x += length;
      while (x >= width) x -= width, y++;
    } else {
      const uint32_t key = (uint32_t)(code - NUM_LITERAL - NUM_LENGTH);
      data[at] = L->cache[key];
      cache_insert(L->cache, cache_bits, data[at]);
      at++;
      if (++x == width) x = 0, y++;
    }
    if (eos(br)) break;
  }
  if (eos(br)) return "WebP: VP8L stream is truncated";
  return NULL;
}

/* ---- image streams -------------------------------------------------------------------- */

static const char *read_cache_bits(vp8l_dec_t *L, int *cache_bits) {
  *cache_bits = 0;
  if (read_bits(&L->br, 1)) {
    *cache_bits = (int)read_bits(&L->br, 4);
    if (*cache_bits < 1 || *cache_bits > MAX_CACHE_BITS) return "WebP: VP8L colour cache size is not 1 to 11 bits";
  }
  return NULL;
}

/* A sub-image (transform data, entropy image): its own colour cache and one code group. */
static const char *decode_sub_image(vp8l_dec_t *L, uint32_t *data, uint32_t width, uint32_t height) {
  vp8l_codes_t k = {0};
  const char *why = read_cache_bits(L, &k.cache_bits);
  if (why) return why;
  vp8l_group_t *g = L->spare;
  if (!read_group(L, g, k.cache_bits)) return "WebP: VP8L prefix code is invalid or truncated";
  k.single = g;
  return decode_pixels(L, data, width, height, &k);
}

static const char *read_transform(vp8l_dec_t *L, uint32_t *xsize) {
  const int type = (int)read_bits(&L->br, 2);
  if (L->transforms_seen & (1 << type)) return "WebP: VP8L transform is repeated";
  L->transforms_seen |= 1 << type;
  const int t = L->num_transforms++;
  L->transform[t].type = type;
  L->transform[t].xsize = *xsize;
  L->transform[t].bits = 0;
  L->transform[t].data = NULL;
  if (type == PREDICTOR || type == CROSS_COLOR) {
    const int bits = (int)read_bits(&L->br, 3) + 2;
    uint32_t *data = type == PREDICTOR ? L->pred_data : L->cross_data;
    L->transform[t].bits = bits;
    L->transform[t].data = data;
    return decode_sub_image(L, data, subsample(*xsize, bits), subsample(L->height, bits));
  }
  if (type == COLOR_INDEXING) {
    const uint32_t num_colors = read_bits(&L->br, 8) + 1;
    const int bits = num_colors > 16 ? 0 : num_colors > 4 ? 1 : num_colors > 2 ? 2 : 3;
    L->transform[t].bits = bits;
    L->transform[t].data = L->palette;
    *xsize = subsample(*xsize, bits);
    const char *why = decode_sub_image(L, L->palette, num_colors, 1);
    if (why) return why;
    /* the palette is delta-coded per channel; entries past num_colors are 0 */
    uint8_t prev[4] = {0, 0, 0, 0};
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t v = 0;
      for (int c = 0; c < 4; c++) {
        const uint32_t ch = i < num_colors ? (uint32_t)((L->palette[i] >> (8 * c)) + prev[c]) & 0xff : 0;
        if (i < num_colors) prev[c] = (uint8_t)ch;
        v |= ch << (8 * c);
      }
      L->palette[i] = v;
    }
  }
  return NULL;
}

/* The main image's codes: the optional entropy image, then the groups (unused ones are
 * read and dropped, as libwebp does). */
static const char *read_main_codes(vp8l_dec_t *L, uint32_t xsize, vp8l_codes_t *k) {
  uint32_t num_groups = 1, used = 1;
  if (read_bits(&L->br, 1)) {
    k->bits = (int)read_bits(&L->br, 3) + 2;
    k->exsize = subsample(xsize, k->bits);
    const uint32_t eysize = subsample(L->height, k->bits);
    const char *why = decode_sub_image(L, L->entropy, k->exsize, eysize);
    if (why) return why;
    const size_t n = (size_t)k->exsize * eysize;
    num_groups = 0;
    for (size_t i = 0; i < n; i++) {
      const uint32_t gi = (L->entropy[i] >> 8) & 0xffff;
      if (gi + 1 > num_groups) num_groups = gi + 1;
    }
    memset(L->mapping, 0xff, sizeof(uint16_t) * num_groups);
    used = 0;
    for (size_t i = 0; i < n; i++) {
      const uint32_t gi = (L->entropy[i] >> 8) & 0xffff;
      if (L->mapping[gi] == 0xffff) {
        if (used == L->group_cap) return "WebP: VP8L image uses more prefix code groups than supported (1024)";
        L->mapping[gi] = (uint16_t)used++;
      }
      L->entropy[i] = L->mapping[gi];
    }
    k->entropy = L->entropy;
  } else {
    L->mapping[0] = 0;
    k->single = &L->groups[0];
  }
  for (uint32_t i = 0; i < num_groups; i++) {
    vp8l_group_t *g = L->mapping[i] == 0xffff ? L->spare : &L->groups[L->mapping[i]];
    if (!read_group(L, g, k->cache_bits)) return "WebP: VP8L prefix code is invalid or truncated";
  }
  (void)used;
  return NULL;
}

/* ---- inverse transforms --------------------------------------------------------------- */

static uint32_t add_pixels(uint32_t a, uint32_t b) {
  const uint32_t ag = (a & 0xff00ff00u) + (b & 0xff00ff00u);
  const uint32_t rb = (a & 0x00ff00ffu) + (b & 0x00ff00ffu);
  return (ag & 0xff00ff00u) | (rb & 0x00ff00ffu);
}

static uint32_t average2(uint32_t a, uint32_t b) { return (((a ^ b) & 0xfefefefeu) >> 1) + (a & b); }

static int sub3(int a, int b, int c) {
  const int pb = b - c, pa = a - c;
  return (pb < 0 ? -pb : pb) - (pa < 0 ? -pa : pa);
}

static uint32_t select_pred(uint32_t a, uint32_t b, uint32_t c) {
  int d = 0;
  for (int s = 0; s < 32; s += 8) d += sub3((int)((a >> s) & 0xff), (int)((b >> s) & 0xff), (int)((c >> s) & 0xff));
  return d <= 0 ? a : b;
}

static uint32_t clamp255(int v) { return (uint32_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

static uint32_t add_sub_full(uint32_t c0, uint32_t c1, uint32_t c2) {
  uint32_t out = 0;
  for (int s = 0; s < 32; s += 8) {
    out |= clamp255((int)((c0 >> s) & 0xff) + (int)((c1 >> s) & 0xff) - (int)((c2 >> s) & 0xff)) << s;
  }
  return out;
}

static uint32_t add_sub_half(uint32_t c0, uint32_t c1, uint32_t c2) {
  const uint32_t ave = average2(c0, c1);
  uint32_t out = 0;
  for (int s = 0; s < 32; s += 8) {
    const int a = (int)((ave >> s) & 0xff), b = (int)((c2 >> s) & 0xff);
    out |= clamp255(a + (a - b) / 2) << s;
  }
  return out;
}

/* Predictor mode m for the pixel with left neighbour L and top row pointer T (T[-1], T[0],
 * T[1]). */
static uint32_t predict(int m, uint32_t left, const uint32_t *top) {
  switch (m) {
  case 1: return left;
  case 2: return top[0];
  case 3: return top[1];
  case 4: return top[-1];
  case 5: return average2(average2(left, top[1]), top[0]);
  case 6: return average2(left, top[-1]);
  case 7: return average2(left, top[0]);
  case 8: return average2(top[-1], top[0]);
  case 9: return average2(top[0], top[1]);
  case 10: return average2(average2(left, top[-1]), average2(top[0], top[1]));
  case 11: return select_pred(top[0], left, top[-1]);
  case 12: return add_sub_full(left, top[0], top[-1]);
  case 13: return add_sub_half(left, top[0], top[-1]);
  default: return 0xff000000u; /* 0, and 14, 15 as libwebp */
  }
}

static void inverse_predictor(uint32_t *px, uint32_t width, uint32_t height, const uint32_t *modes, int bits) {
  const uint32_t tiles_per_row = subsample(width, bits);
  px[0] = add_pixels(px[0], 0xff000000u);
  for (uint32_t x = 1; x < width; x++) px[x] = add_pixels(px[x], px[x - 1]);
  for (uint32_t y = 1; y < height; y++) {
    uint32_t *row = px + (size_t)y * width;
    const uint32_t *top = row - width;
    const uint32_t *mode_row = modes + (size_t)(y >> bits) * tiles_per_row;
    row[0] = add_pixels(row[0], top[0]);
    for (uint32_t x = 1; x < width; x++) {
      const int m = (int)((mode_row[x >> bits] >> 8) & 0xf);
      row[x] = add_pixels(row[x], predict(m, row[x - 1], top + x));
    }
  }
}

static int color_delta(int8_t pred, int8_t color) { return ((int)pred * color) >> 5; }

static void inverse_cross_color(uint32_t *px, uint32_t width, uint32_t height, const uint32_t *codes, int bits) {
  const uint32_t tiles_per_row = subsample(width, bits);
  for (uint32_t y = 0; y < height; y++) {
    uint32_t *row = px + (size_t)y * width;
    const uint32_t *code_row = codes + (size_t)(y >> bits) * tiles_per_row;
    for (uint32_t x = 0; x < width; x++) {
      const uint32_t cc = code_row[x >> bits], argb = row[x];
      const int8_t g2r = (int8_t)(cc & 0xff), g2b = (int8_t)((cc >> 8) & 0xff), r2b = (int8_t)((cc >> 16) & 0xff);
      const int8_t green = (int8_t)(argb >> 8);
      int new_red = (int)((argb >> 16) & 0xff), new_blue = (int)(argb & 0xff);
      new_red += color_delta(g2r, green);
      new_red &= 0xff;
      new_blue += color_delta(g2b, green);
      new_blue += color_delta(r2b, (int8_t)new_red);
      new_blue &= 0xff;
      row[x] = (argb & 0xff00ff00u) | ((uint32_t)new_red << 16) | (uint32_t)new_blue;
    }
  }
}

static void inverse_subtract_green(uint32_t *px, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const uint32_t argb = px[i], green = (argb >> 8) & 0xff;
    const uint32_t rb = ((argb & 0x00ff00ffu) + ((green << 16) | green)) & 0x00ff00ffu;
    px[i] = (argb & 0xff00ff00u) | rb;
  }
}

/* Expands packed indices (xsize_in wide) to colours (width wide), in place from the end:
 * every index is read before its slot can be overwritten. */
static void inverse_color_indexing(uint32_t *px, uint32_t width, uint32_t height, uint32_t xsize_in,
                                   const uint32_t *palette, int bits) {
  const int bits_per_pixel = 8 >> bits;
  const uint32_t count_mask = (1u << bits) - 1, bit_mask = (1u << bits_per_pixel) - 1;
  for (size_t y = height; y-- > 0;) {
    for (size_t x = width; x-- > 0;) {
      const uint32_t packed = (px[y * xsize_in + (x >> bits)] >> 8) & 0xff;
      const uint32_t index = (packed >> (bits_per_pixel * (x & count_mask))) & bit_mask;
      px[y * width + x] = palette[index];
    }
  }
}

static void inverse_transforms(vp8l_dec_t *L, uint32_t xsize) {
  for (int t = L->num_transforms - 1; t >= 0; t--) {
    const uint32_t w = L->transform[t].xsize;
    const int bits = L->transform[t].bits;
    switch (L->transform[t].type) {
    case PREDICTOR: inverse_predictor(L->argb, w, L->height, L->transform[t].data, bits); break;
    case CROSS_COLOR: inverse_cross_color(L->argb, w, L->height, L->transform[t].data, bits); break;
    case SUBTRACT_GREEN: inverse_subtract_green(L->argb, (size_t)w * L->height); break;
    default: inverse_color_indexing(L->argb, w, L->height, xsize, L->palette, bits); break;
    }
    xsize = w;
  }
}

/* ---- scratch and entry point ---------------------------------------------------------- */

/* Code groups the main image may use: at most one per tile of the smallest entropy image
 * (4x4 tiles), and at most VP8L_MAX_GROUPS. */
static uint32_t group_cap(uint32_t max_h, uint32_t max_w) {
  const uint64_t w = max_w > MAX_DIM ? MAX_DIM : max_w, h = max_h > MAX_DIM ? MAX_DIM : max_h;
  const uint64_t q = ((w + 3) / 4) * ((h + 3) / 4);
  return q < 1 ? 1 : q > VP8L_MAX_GROUPS ? VP8L_MAX_GROUPS : (uint32_t)q;
}

static int vp8l_layout(uint32_t max_h, uint32_t max_w, uint64_t off[10]) {
  const uint64_t w = max_w > MAX_DIM ? MAX_DIM : max_w, h = max_h > MAX_DIM ? MAX_DIM : max_h;
  const uint64_t q = ((w + 3) / 4) * ((h + 3) / 4);
  uint64_t sizes[9];
  sizes[0] = sizeof(vp8l_dec_t);
  if (!berth_mul_u64(w * h, 4, &sizes[1])) return 0; /* ARGB */
  sizes[2] = sizes[3] = sizes[5] = q * 4;             /* predictor, cross colour, entropy image */
  sizes[4] = 256 * 4;                                  /* palette */
  sizes[6] = (1u << MAX_CACHE_BITS) * 4;               /* colour cache */
  sizes[7] = 65536 * 2;                                /* mapping */
  sizes[8] = (group_cap(max_h, max_w) + 1) * sizeof(vp8l_group_t);
  uint64_t at = 0;
  for (int i = 0; i < 9; i++) {
    uint64_t aligned;
    off[i] = at;
    if (!berth_align_u64(sizes[i], 16, &aligned) || !berth_add_u64(at, aligned, &at)) return 0;
  }
  off[9] = at;
  return 1;
}

uint64_t berth_webp_vp8l_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  uint64_t off[10];
  return vp8l_layout(max_height, max_width, off) ? off[9] : UINT64_MAX;
}

static const char *read_header(vp8l_dec_t *L, uint32_t max_h, uint32_t max_w) {
  vp8l_br_t *br = &L->br;
  if (L->br.len < 5) return "WebP: VP8L header is truncated";
  if (read_bits(br, 8) != 0x2f) return "WebP: VP8L signature byte 0x2f is missing";
  L->width = read_bits(br, 14) + 1;
  L->height = read_bits(br, 14) + 1;
  (void)read_bits(br, 1); /* alpha is used: dropped anyway */
  if (read_bits(br, 3) != 0) return "WebP: VP8L version is not 0";
  if (L->width > max_w || L->height > max_h) return "WebP: image is larger than the bound";
  return NULL;
}

const char *berth_webp_vp8l_decode(const uint8_t *data, size_t n, uint32_t max_height, uint32_t max_width,
                                   void *scratch, size_t scratch_bytes, uint8_t *rgb, uint32_t *width,
                                   uint32_t *height) {
  uint64_t off[10];
  if (!vp8l_layout(max_height, max_width, off) || scratch == NULL || scratch_bytes < off[9]) {
    return "WebP: scratch memory is too small";
  }
  uint8_t *base = (uint8_t *)scratch;
  vp8l_dec_t *L = (vp8l_dec_t *)scratch;
  memset(L, 0, sizeof *L);
  L->br.buf = data;
  L->br.len = n;
  L->argb = (uint32_t *)(void *)(base + off[1]);
  L->pred_data = (uint32_t *)(void *)(base + off[2]);
  L->cross_data = (uint32_t *)(void *)(base + off[3]);
  L->palette = (uint32_t *)(void *)(base + off[4]);
  L->entropy = (uint32_t *)(void *)(base + off[5]);
  L->cache = (uint32_t *)(void *)(base + off[6]);
  L->mapping = (uint16_t *)(void *)(base + off[7]);
  L->groups = (vp8l_group_t *)(void *)(base + off[8]);
  L->group_cap = group_cap(max_height, max_width);
  L->spare = L->groups + L->group_cap;
  const char *why = read_header(L, max_height, max_width);
  if (why) return why;
  uint32_t xsize = L->width;
  while (read_bits(&L->br, 1)) {
    if (L->num_transforms == 4) return "WebP: VP8L transform is repeated";
    why = read_transform(L, &xsize);
    if (why) return why;
  }
  vp8l_codes_t k = {0};
  why = read_cache_bits(L, &k.cache_bits);
  if (!why) why = read_main_codes(L, xsize, &k);
  if (!why) why = decode_pixels(L, L->argb, xsize, L->height, &k);
  if (why) return why;
  inverse_transforms(L, xsize);
  const size_t count = (size_t)L->width * L->height;
  for (size_t i = 0; i < count; i++) {
    const uint32_t argb = L->argb[i];
    rgb[3 * i + 0] = (uint8_t)(argb >> 16);
    rgb[3 * i + 1] = (uint8_t)(argb >> 8);
    rgb[3 * i + 2] = (uint8_t)argb;
  }
  *width = L->width;
  *height = L->height;
  return NULL;
}
