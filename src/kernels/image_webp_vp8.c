/* The VP8 key frame decoder behind lossy WebP (RFC 6386): the boolean decoder, the frame
 * header (segments, loop filter, partitions, quantizers, coefficient probabilities), the
 * per-macroblock intra modes and DCT tokens, reconstruction into 4:2:0 planes and the loop
 * filter, row by row. It follows libwebp's decoder (src/dec/vp8_dec.c, tree_dec.c,
 * quant_dec.c, frame_dec.c) decision for decision, including how it treats a partition
 * that runs out of bytes (an error), so that every stream it decodes gives the same pixels.
 *
 * Memory: one state block and per-column arrays, then the planes, all in the caller's
 * scratch (berth_webp_vp8_scratch_bytes). */
#include "image_webp_internal.h"

#include "base/checked.h"

#include <string.h>

#define NUM_SEGMENTS 4
#define MAX_PARTITIONS 8

/* ---- boolean decoder (RFC 6386 section 7), as libwebp's VP8BitReader ----------------- */

typedef struct vp8_br {
  const uint8_t *buf, *end;
  uint64_t value;
  uint32_t range; /* range - 1, in [126, 254] between calls */
  int bits;       /* number of valid bits left below the current 8-bit window */
  int eof;        /* read past the end: libwebp then stops with an error */
} vp8_br_t;

static void br_load(vp8_br_t *br) {
  if (br->buf < br->end) {
    br->value = (br->value << 8) | *br->buf++;
    br->bits += 8;
  } else if (!br->eof) {
    br->value <<= 8;
    br->bits += 8;
    br->eof = 1;
  } else {
    br->bits = 0;
  }
}

static void br_init(vp8_br_t *br, const uint8_t *start, size_t size) {
  br->buf = start;
  br->end = start + size;
  br->value = 0;
  br->range = 255 - 1;
  br->bits = -8;
  br->eof = 0;
  br_load(br);
}

static int br_bit(vp8_br_t *br, int prob) {
  uint32_t range = br->range;
  if (br->bits < 0) br_load(br);
  const int pos = br->bits;
  const uint32_t split = (range * (uint32_t)prob) >> 8;
  const uint64_t value = br->value >> pos;
  const int bit = value > split;
  if (bit) {
    range -= split;
    br->value -= (uint64_t)(split + 1) << pos;
  } else {
    range = split + 1;
  }
  while (range < 128) { /* shift = 7 ^ floor(log2(range)) */
    range <<= 1;
    br->bits--;
  }
  br->range = range - 1;
  return bit;
}

/* A coefficient's sign: libwebp's VP8GetSigned (an even split, without renormalizing). */
static int br_signed(vp8_br_t *br, int v) {
  if (br->bits < 0) br_load(br);
  const int pos = br->bits;
  const uint32_t split = br->range >> 1;
  const uint64_t value = br->value >> pos;
  const int neg = value > split;
  br->bits -= 1;
  if (neg) {
    br->range -= 1;
    br->value -= (uint64_t)(split + 1) << pos;
  }
  br->range |= 1;
  return neg ? -v : v;
}

static uint32_t br_value(vp8_br_t *br, int bits) {
  uint32_t v = 0;
  while (bits-- > 0) v |= (uint32_t)br_bit(br, 0x80) << bits;
  return v;
}

static int32_t br_signed_value(vp8_br_t *br, int bits) {
  const int32_t value = (int32_t)br_value(br, bits);
  return br_value(br, 1) ? -value : value;
}

/* ---- decoder state ------------------------------------------------------------------ */

typedef struct vp8_quant {
  int y1[2], y2[2], uv[2]; /* dequantization factors: [DC, AC] */
} vp8_quant_t;

typedef struct vp8_finfo {
  uint8_t limit, ilevel, inner, hev_thresh;
} vp8_finfo_t;

typedef struct vp8_mb_nz {
  uint8_t nz, nz_dc; /* non-zero bits of the bottom / right sub-blocks, and of the Y2 DC */
} vp8_mb_nz_t;

typedef struct vp8_dec {
  vp8_br_t br; /* the first partition: modes */
  vp8_br_t parts[MAX_PARTITIONS];
  int num_parts_minus_one;
  int width, height, mb_w, mb_h;
  /* segments */
  int use_segment, update_map, absolute_delta;
  int seg_quant[NUM_SEGMENTS], seg_filter[NUM_SEGMENTS];
  uint8_t seg_proba[3];
  /* loop filter */
  int filter_simple, filter_level, sharpness, use_lf_delta;
  int ref_lf_delta[4], mode_lf_delta[4];
  int filter_type; /* 0 off, 1 simple, 2 normal */
  vp8_finfo_t fstrengths[NUM_SEGMENTS][2];
  vp8_quant_t dqm[NUM_SEGMENTS];
  uint8_t proba[4][8][3][11];
  int use_skip_proba, skip_p;
  /* the current macroblock */
  int segment, skip, is_i4x4, uvmode;
  uint8_t imodes[16];
  uint32_t non_zero_y, non_zero_uv;
  uint8_t intra_l[4];
  int16_t coeffs[384];
  uint8_t yuv_b[WEBP_YUV_SIZE];
  /* per macroblock column (in the scratch after this block) */
  uint8_t *intra_t;    /* 4 * mb_w */
  uint8_t *top;        /* 32 * mb_w: the unfiltered bottom row of Y (16), U (8), V (8) */
  vp8_mb_nz_t *mb_nz;  /* mb_w + 1: [0] is the left neighbour */
  vp8_finfo_t *finfo;  /* mb_w */
  uint8_t *y, *u, *v;  /* the planes: 16 mb_w x 16 mb_h, 8 mb_w x 8 mb_h */
  int y_stride, uv_stride;
} vp8_dec_t;

/* Bytes of each scratch region for mb_w x mb_h macroblocks, 16-byte aligned; false on
 * overflow. */
static int vp8_layout(uint64_t mb_w, uint64_t mb_h, uint64_t off[8]) {
  uint64_t area, sizes[7];
  if (!berth_mul_u64(mb_w, mb_h, &area)) return 0;
  sizes[0] = sizeof(vp8_dec_t);
  sizes[1] = 4 * mb_w;
  sizes[2] = 32 * mb_w;
  sizes[3] = sizeof(vp8_mb_nz_t) * (mb_w + 1);
  sizes[4] = sizeof(vp8_finfo_t) * mb_w;
  if (!berth_mul_u64(area, 256, &sizes[5]) || !berth_mul_u64(area, 64, &sizes[6])) return 0;
  uint64_t at = 0;
  for (int i = 0; i < 8; i++) {
    off[i] = at;
    if (i == 7) break;
    uint64_t sz = sizes[i], aligned;
    if (i == 6 && !berth_mul_u64(sz, 2, &sz)) return 0; /* U and V */
    if (!berth_align_u64(sz, 16, &aligned) || !berth_add_u64(at, aligned, &at)) return 0;
  }
  return 1;
}

static uint32_t mb_count(uint32_t max_dim) {
  const uint32_t d = max_dim > 16383 ? 16383 : max_dim; /* VP8 stores 14-bit sizes */
  return (d + 15) >> 4;
}

uint64_t berth_webp_vp8_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  uint64_t off[8];
  if (!vp8_layout(mb_count(max_width), mb_count(max_height), off)) return UINT64_MAX;
  return off[7];
}

/* ---- frame header (RFC 6386 sections 9.2 to 9.11) ------------------------------------ */

static void parse_segment_header(vp8_dec_t *d) {
  vp8_br_t *br = &d->br;
  d->use_segment = (int)br_value(br, 1);
  d->update_map = 0;
  if (!d->use_segment) return;
  d->update_map = (int)br_value(br, 1);
  if (br_value(br, 1)) { /* update data */
    d->absolute_delta = (int)br_value(br, 1);
    for (int s = 0; s < NUM_SEGMENTS; s++) d->seg_quant[s] = br_value(br, 1) ? br_signed_value(br, 7) : 0;
    for (int s = 0; s < NUM_SEGMENTS; s++) d->seg_filter[s] = br_value(br, 1) ? br_signed_value(br, 6) : 0;
  }
  if (d->update_map) {
    for (int s = 0; s < 3; s++) d->seg_proba[s] = (uint8_t)(br_value(br, 1) ? br_value(br, 8) : 255u);
  }
}

static void parse_filter_header(vp8_dec_t *d) {
  vp8_br_t *br = &d->br;
  d->filter_simple = (int)br_value(br, 1);
  d->filter_level = (int)br_value(br, 6);
  d->sharpness = (int)br_value(br, 3);
  d->use_lf_delta = (int)br_value(br, 1);
  if (d->use_lf_delta && br_value(br, 1)) {
    for (int i = 0; i < 4; i++) {
      if (br_value(br, 1)) d->ref_lf_delta[i] = br_signed_value(br, 6);
    }
    for (int i = 0; i < 4; i++) {
      if (br_value(br, 1)) d->mode_lf_delta[i] = br_signed_value(br, 6);
    }
  }
  d->filter_type = d->filter_level == 0 ? 0 : d->filter_simple ? 1 : 2;
}

/* The token partitions after the first one: 3-byte sizes, each clamped to what is left;
 * the last takes the rest and must not be empty. */
static const char *parse_partitions(vp8_dec_t *d, const uint8_t *buf, size_t size) {
  const uint8_t *sz = buf;
  d->num_parts_minus_one = (1 << br_value(&d->br, 2)) - 1;
  const size_t last = (size_t)d->num_parts_minus_one;
  if (size < 3 * last) return "WebP: VP8 partition sizes are truncated";
  const uint8_t *start = buf + 3 * last;
  size_t left = size - 3 * last;
  for (size_t p = 0; p < last; p++) {
    size_t psize = (size_t)sz[0] | ((size_t)sz[1] << 8) | ((size_t)sz[2] << 16);
    if (psize > left) psize = left;
    br_init(&d->parts[p], start, psize);
    start += psize;
    left -= psize;
    sz += 3;
  }
  if (left == 0) return "WebP: VP8 last token partition is empty (stream truncated)";
  br_init(&d->parts[last], start, left);
  return NULL;
}

static int clip_q(int v, int m) { return v < 0 ? 0 : v > m ? m : v; }

static void parse_quant(vp8_dec_t *d) {
  vp8_br_t *br = &d->br;
  const int base_q0 = (int)br_value(br, 7);
  int dq[5]; /* y1_dc, y2_dc, y2_ac, uv_dc, uv_ac */
  for (int i = 0; i < 5; i++) dq[i] = br_value(br, 1) ? br_signed_value(br, 4) : 0;
  for (int i = 0; i < NUM_SEGMENTS; i++) {
    int q = base_q0;
    if (d->use_segment) {
      q = d->seg_quant[i];
      if (!d->absolute_delta) q += base_q0;
    }
    vp8_quant_t *m = &d->dqm[i];
    m->y1[0] = berth_webp_dc_table[clip_q(q + dq[0], 127)];
    m->y1[1] = berth_webp_ac_table[clip_q(q, 127)];
    m->y2[0] = berth_webp_dc_table[clip_q(q + dq[1], 127)] * 2;
    m->y2[1] = (berth_webp_ac_table[clip_q(q + dq[2], 127)] * 101581) >> 16;
    if (m->y2[1] < 8) m->y2[1] = 8;
    m->uv[0] = berth_webp_dc_table[clip_q(q + dq[3], 117)];
    m->uv[1] = berth_webp_ac_table[clip_q(q + dq[4], 127)];
  }
}

static void parse_proba(vp8_dec_t *d) {
  vp8_br_t *br = &d->br;
  for (int t = 0; t < 4; t++) {
    for (int b = 0; b < 8; b++) {
      for (int c = 0; c < 3; c++) {
        for (int p = 0; p < 11; p++) {
          const int v = br_bit(br, berth_webp_coeff_update_proba[t][b][c][p]) ? (int)br_value(br, 8)
                                                                              : berth_webp_coeff_proba0[t][b][c][p];
          d->proba[t][b][c][p] = (uint8_t)v;
        }
      }
    }
  }
  d->use_skip_proba = (int)br_value(br, 1);
  if (d->use_skip_proba) d->skip_p = (int)br_value(br, 8);
}

static void precompute_filter_strengths(vp8_dec_t *d) {
  for (int s = 0; s < NUM_SEGMENTS; s++) {
    int base_level = d->filter_level;
    if (d->use_segment) {
      base_level = d->seg_filter[s];
      if (!d->absolute_delta) base_level += d->filter_level;
    }
    for (int i4x4 = 0; i4x4 <= 1; i4x4++) {
      vp8_finfo_t *info = &d->fstrengths[s][i4x4];
      int level = base_level;
      if (d->use_lf_delta) {
        level += d->ref_lf_delta[0];
        if (i4x4) level += d->mode_lf_delta[0];
      }
      level = level < 0 ? 0 : level > 63 ? 63 : level;
      info->limit = 0;
      info->ilevel = 0;
      info->hev_thresh = 0;
      if (level > 0) {
        int ilevel = level;
        if (d->sharpness > 0) {
          ilevel >>= d->sharpness > 4 ? 2 : 1;
          if (ilevel > 9 - d->sharpness) ilevel = 9 - d->sharpness;
        }
        if (ilevel < 1) ilevel = 1;
        info->ilevel = (uint8_t)ilevel;
        info->limit = (uint8_t)(2 * level + ilevel);
        info->hev_thresh = (uint8_t)(level >= 40 ? 2 : level >= 15 ? 1 : 0);
      }
      info->inner = (uint8_t)i4x4;
    }
  }
}

/* The 10-byte frame tag and the first partition's header fields. */
static const char *parse_headers(vp8_dec_t *d, const uint8_t *data, size_t n, uint32_t max_h, uint32_t max_w) {
  if (n < 10) return "WebP: VP8 frame header is truncated";
  const uint32_t bits = (uint32_t)data[0] | ((uint32_t)data[1] << 8) | ((uint32_t)data[2] << 16);
  if (bits & 1) return "WebP: VP8 frame is not a key frame";
  if (((bits >> 1) & 7) > 3) return "WebP: VP8 profile is not 0 to 3";
  if (!((bits >> 4) & 1)) return "WebP: VP8 frame is marked invisible";
  const size_t part_len = bits >> 5;
  if (data[3] != 0x9d || data[4] != 0x01 || data[5] != 0x2a) return "WebP: VP8 start code 9d 01 2a is missing";
  d->width = ((data[7] << 8) | data[6]) & 0x3fff;
  d->height = ((data[9] << 8) | data[8]) & 0x3fff;
  if (d->width == 0 || d->height == 0) return "WebP: VP8 image has a zero width or height";
  if ((uint32_t)d->width > max_w || (uint32_t)d->height > max_h) return "WebP: image is larger than the bound";
  d->mb_w = (d->width + 15) >> 4;
  d->mb_h = (d->height + 15) >> 4;
  if (part_len > n - 10) return "WebP: VP8 first partition is longer than the chunk";
  br_init(&d->br, data + 10, part_len);
  (void)br_value(&d->br, 1); /* colour space */
  (void)br_value(&d->br, 1); /* clamping type */
  d->absolute_delta = 1;
  memset(d->seg_proba, 255, sizeof d->seg_proba);
  parse_segment_header(d);
  if (d->br.eof) return "WebP: VP8 segment header is truncated";
  parse_filter_header(d);
  if (d->br.eof) return "WebP: VP8 filter header is truncated";
  const char *why = parse_partitions(d, data + 10 + part_len, n - 10 - part_len);
  if (why) return why;
  parse_quant(d);
  (void)br_value(&d->br, 1); /* refresh entropy probs: ignored on a key frame */
  parse_proba(d);
  precompute_filter_strengths(d);
  return NULL;
}

/* ---- macroblock modes (section 11) --------------------------------------------------- */

static int read_bmode(vp8_br_t *br, const uint8_t *prob) {
  if (!br_bit(br, prob[0])) return WEBP_B_DC_PRED;
  if (!br_bit(br, prob[1])) return WEBP_B_TM_PRED;
  if (!br_bit(br, prob[2])) return WEBP_B_VE_PRED;
  if (!br_bit(br, prob[3])) {
    if (!br_bit(br, prob[4])) return WEBP_B_HE_PRED;
    return br_bit(br, prob[5]) ? WEBP_B_VR_PRED : WEBP_B_RD_PRED;
  }
  if (!br_bit(br, prob[6])) return WEBP_B_LD_PRED;
  if (!br_bit(br, prob[7])) return WEBP_B_VL_PRED;
  return br_bit(br, prob[8]) ? WEBP_B_HU_PRED : WEBP_B_HD_PRED;
}

static void parse_intra_mode(vp8_dec_t *d, int mb_x) {
  vp8_br_t *br = &d->br;
  uint8_t *top = d->intra_t + 4 * mb_x;
  uint8_t *left = d->intra_l;
  d->segment = 0;
  if (d->update_map) {
    d->segment = !br_bit(br, d->seg_proba[0]) ? br_bit(br, d->seg_proba[1]) : br_bit(br, d->seg_proba[2]) + 2;
  }
  d->skip = d->use_skip_proba ? br_bit(br, d->skip_p) : 0;
  d->is_i4x4 = !br_bit(br, 145);
  if (!d->is_i4x4) {
    const int ymode = br_bit(br, 156) ? (br_bit(br, 128) ? WEBP_B_TM_PRED : WEBP_B_HE_PRED)
                                      : (br_bit(br, 163) ? WEBP_B_VE_PRED : WEBP_B_DC_PRED);
    d->imodes[0] = (uint8_t)ymode;
    memset(top, ymode, 4);
    memset(left, ymode, 4);
  } else {
    uint8_t *modes = d->imodes;
    for (int y = 0; y < 4; y++) {
      int ymode = left[y];
      for (int x = 0; x < 4; x++) {
        ymode = read_bmode(br, berth_webp_bmode_proba[top[x]][ymode]);
        top[x] = (uint8_t)ymode;
      }
      memcpy(modes, top, 4);
      modes += 4;
      left[y] = (uint8_t)ymode;
    }
  }
  d->uvmode = !br_bit(br, 142)   ? WEBP_B_DC_PRED
              : !br_bit(br, 114) ? WEBP_B_VE_PRED
              : br_bit(br, 183)  ? WEBP_B_TM_PRED
                                 : WEBP_B_HE_PRED;
}

/* ---- DCT tokens (section 13) --------------------------------------------------------- */

static const uint8_t kBands[16 + 1] = {0, 1, 2, 3, 6, 4, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 0};
static const uint8_t kZigzag[16] = {0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15};
static const uint8_t kCat3[] = {173, 148, 140, 0};
static const uint8_t kCat4[] = {176, 155, 140, 135, 0};
static const uint8_t kCat5[] = {180, 157, 141, 134, 130, 0};
static const uint8_t kCat6[] = {254, 254, 243, 230, 196, 177, 153, 140, 133, 130, 129, 0};
static const uint8_t *const kCat3456[] = {kCat3, kCat4, kCat5, kCat6};

static int large_value(vp8_br_t *br, const uint8_t *p) {
  int v;
  if (!br_bit(br, p[3])) {
    v = !br_bit(br, p[4]) ? 2 : 3 + br_bit(br, p[5]);
  } else if (!br_bit(br, p[6])) {
    if (!br_bit(br, p[7])) {
      v = 5 + br_bit(br, 159);
    } else {
      v = 7 + 2 * br_bit(br, 165);
      v += br_bit(br, 145);
    }
  } else {
    const int bit1 = br_bit(br, p[8]);
    const int bit0 = br_bit(br, p[9 + bit1]);
    const int cat = 2 * bit1 + bit0;
    v = 0;
    for (const uint8_t *tab = kCat3456[cat]; *tab; ++tab) v += v + br_bit(br, *tab);
    v += 3 + (8 << cat);
  }
  return v;
}

/* The tokens of one 4x4 block of type t from position n, dequantized into out (natural
 * order). Returns libwebp's count: one past the last token read (16 after a zero run to
 * the end). */
static int get_coeffs(vp8_br_t *br, const uint8_t (*bands)[3][11], int ctx, const int dq[2], int n, int16_t *out) {
  const uint8_t *p = bands[kBands[n]][ctx];
  for (; n < 16; ++n) {
    if (!br_bit(br, p[0])) return n; /* end of block */
    while (!br_bit(br, p[1])) {      /* zero */
      ++n;
      if (n == 16) return 16;
      p = bands[kBands[n]][0];
    }
    int v;
    if (!br_bit(br, p[2])) {
      v = 1;
      p = bands[kBands[n + 1]][1];
    } else {
      v = large_value(br, p);
      p = bands[kBands[n + 1]][2];
    }
    const int value = br_signed(br, v) * dq[n > 0];
    out[kZigzag[n]] = (int16_t)(uint16_t)((unsigned)value & 0xffffu); /* stored as int16, as libwebp does */
  }
  return 16;
}

static uint32_t nz_code_bits(uint32_t nz_coeffs, int nz, int dc_nz) {
  nz_coeffs <<= 2;
  nz_coeffs |= (nz > 3) ? 3 : (nz > 1) ? 2 : (uint32_t)dc_nz;
  return nz_coeffs;
}

static void parse_luma(vp8_dec_t *d, vp8_br_t *tbr, vp8_mb_nz_t *mb, vp8_mb_nz_t *left, const vp8_quant_t *q) {
  int16_t *dst = d->coeffs;
  int first;
  const uint8_t(*ac_proba)[3][11];
  if (!d->is_i4x4) { /* the Y2 block of the 16 DC values */
    int16_t dc[16] = {0};
    const int ctx = mb->nz_dc + left->nz_dc;
    const int nz = get_coeffs(tbr, d->proba[1], ctx, q->y2, 0, dc);
    mb->nz_dc = left->nz_dc = (uint8_t)(nz > 0);
    berth_webp_transform_wht(dc, dst);
    first = 1;
    ac_proba = d->proba[0];
  } else {
    first = 0;
    ac_proba = d->proba[3];
  }
  uint32_t tnz = mb->nz & 0x0f, lnz = left->nz & 0x0f, non_zero_y = 0;
  for (int y = 0; y < 4; y++) {
    uint32_t l = lnz & 1, nz_coeffs = 0;
    for (int x = 0; x < 4; x++) {
      const int ctx = (int)(l + (tnz & 1));
      const int nz = get_coeffs(tbr, ac_proba, ctx, q->y1, first, dst);
      l = nz > first;
      tnz = (tnz >> 1) | (l << 7);
      nz_coeffs = nz_code_bits(nz_coeffs, nz, dst[0] != 0);
      dst += 16;
    }
    tnz >>= 4;
    lnz = (lnz >> 1) | (l << 7);
    non_zero_y = (non_zero_y << 8) | nz_coeffs;
  }
  d->non_zero_y = non_zero_y;
  mb->nz = (uint8_t)tnz;
  left->nz = (uint8_t)(lnz >> 4);
}

static void parse_chroma(vp8_dec_t *d, vp8_br_t *tbr, vp8_mb_nz_t *mb, vp8_mb_nz_t *left, const vp8_quant_t *q,
                         uint32_t top_nz, uint32_t left_nz) {
  int16_t *dst = d->coeffs + 16 * 16;
  uint32_t non_zero_uv = 0, out_t_nz = mb->nz, out_l_nz = left->nz;
  for (int ch = 0; ch < 4; ch += 2) {
    uint32_t nz_coeffs = 0;
    uint32_t tnz = top_nz >> (4 + ch), lnz = left_nz >> (4 + ch);
    for (int y = 0; y < 2; y++) {
      uint32_t l = lnz & 1;
      for (int x = 0; x < 2; x++) {
        const int ctx = (int)(l + (tnz & 1));
        const int nz = get_coeffs(tbr, d->proba[2], ctx, q->uv, 0, dst);
        l = nz > 0;
        tnz = (tnz >> 1) | (l << 3);
        nz_coeffs = nz_code_bits(nz_coeffs, nz, dst[0] != 0);
        dst += 16;
      }
      tnz >>= 2;
      lnz = (lnz >> 1) | (l << 5);
    }
    non_zero_uv |= nz_coeffs << (4 * ch);
    out_t_nz |= (tnz << 4) << ch;
    out_l_nz |= (lnz & 0xf0) << ch;
  }
  mb->nz = (uint8_t)out_t_nz;
  left->nz = (uint8_t)out_l_nz;
  d->non_zero_uv = non_zero_uv;
}

/* Parses the macroblock's tokens; returns 1 when all its coefficients are zero. */
static int parse_residuals(vp8_dec_t *d, vp8_br_t *tbr, vp8_mb_nz_t *mb, vp8_mb_nz_t *left) {
  const vp8_quant_t *q = &d->dqm[d->segment];
  const uint32_t top_nz = mb->nz, left_nz = left->nz;
  memset(d->coeffs, 0, sizeof d->coeffs);
  parse_luma(d, tbr, mb, left, q);
  parse_chroma(d, tbr, mb, left, q, top_nz, left_nz);
  return !(d->non_zero_y | d->non_zero_uv);
}

/* ---- reconstruction (libwebp's ReconstructRow, one macroblock) ----------------------- */

static int check_mode(int mb_x, int mb_y, int mode) {
  if (mode != WEBP_B_DC_PRED) return mode;
  if (mb_x == 0) return mb_y == 0 ? WEBP_DC_PRED_NOTOPLEFT : WEBP_DC_PRED_NOLEFT;
  return mb_y == 0 ? WEBP_DC_PRED_NOTOP : WEBP_B_DC_PRED;
}

/* The work block's borders: the row above from the saved top samples (127 on the first
 * row), the left column from the previous macroblock (129 on the first column). */
static void prepare_borders(vp8_dec_t *d, int mb_x, int mb_y) {
  uint8_t *y_dst = d->yuv_b + WEBP_Y_OFF, *u_dst = d->yuv_b + WEBP_U_OFF, *v_dst = d->yuv_b + WEBP_V_OFF;
  const int B = WEBP_BPS;
  if (mb_x == 0) {
    for (int j = 0; j < 16; j++) y_dst[j * B - 1] = 129;
    for (int j = 0; j < 8; j++) u_dst[j * B - 1] = v_dst[j * B - 1] = 129;
    if (mb_y > 0) {
      y_dst[-1 - B] = u_dst[-1 - B] = v_dst[-1 - B] = 129;
    } else {
      memset(y_dst - B - 1, 127, 16 + 4 + 1);
      memset(u_dst - B - 1, 127, 8 + 1);
      memset(v_dst - B - 1, 127, 8 + 1);
    }
  } else {
    for (int j = -1; j < 16; j++) memcpy(&y_dst[j * B - 4], &y_dst[j * B + 12], 4);
    for (int j = -1; j < 8; j++) {
      memcpy(&u_dst[j * B - 4], &u_dst[j * B + 4], 4);
      memcpy(&v_dst[j * B - 4], &v_dst[j * B + 4], 4);
    }
  }
  if (mb_y > 0) {
    const uint8_t *top = d->top + 32 * mb_x;
    memcpy(y_dst - B, top, 16);
    memcpy(u_dst - B, top + 16, 8);
    memcpy(v_dst - B, top + 24, 8);
  }
}

static void reconstruct_luma(vp8_dec_t *d, int mb_x, int mb_y) {
  uint8_t *y_dst = d->yuv_b + WEBP_Y_OFF;
  const int B = WEBP_BPS;
  uint32_t bits = d->non_zero_y;
  if (d->is_i4x4) {
    uint8_t *top_right = y_dst - B + 16;
    if (mb_y > 0) {
      if (mb_x >= d->mb_w - 1) memset(top_right, d->top[32 * mb_x + 15], 4);
      else memcpy(top_right, d->top + 32 * (mb_x + 1), 4);
    }
    for (int r = 1; r <= 3; r++) memcpy(top_right + 4 * r * B, top_right, 4);
    for (int n = 0; n < 16; n++, bits <<= 2) {
      uint8_t *dst = y_dst + (n & 3) * 4 + (n >> 2) * 4 * B;
      berth_webp_pred_luma4(d->imodes[n], dst);
      if (bits >> 30) berth_webp_transform(d->coeffs + n * 16, dst);
    }
  } else {
    berth_webp_pred_luma16(check_mode(mb_x, mb_y, d->imodes[0]), y_dst);
    for (int n = 0; n < 16 && bits != 0; n++, bits <<= 2) {
      if (bits >> 30) berth_webp_transform(d->coeffs + n * 16, y_dst + (n & 3) * 4 + (n >> 2) * 4 * B);
    }
  }
}

static void reconstruct_chroma(vp8_dec_t *d, int mb_x, int mb_y) {
  const int mode = check_mode(mb_x, mb_y, d->uvmode);
  for (int c = 0; c < 2; c++) {
    uint8_t *dst = d->yuv_b + (c ? WEBP_V_OFF : WEBP_U_OFF);
    berth_webp_pred_chroma8(mode, dst);
    if ((d->non_zero_uv >> (8 * c)) & 0xff) {
      const int16_t *in = d->coeffs + (16 + 4 * c) * 16;
      berth_webp_transform(in, dst);
      berth_webp_transform(in + 16, dst + 4);
      berth_webp_transform(in + 32, dst + 4 * WEBP_BPS);
      berth_webp_transform(in + 48, dst + 4 * WEBP_BPS + 4);
    }
  }
}

static void reconstruct_mb(vp8_dec_t *d, int mb_x, int mb_y) {
  const int B = WEBP_BPS;
  prepare_borders(d, mb_x, mb_y);
  reconstruct_luma(d, mb_x, mb_y);
  reconstruct_chroma(d, mb_x, mb_y);
  const uint8_t *y_src = d->yuv_b + WEBP_Y_OFF, *u_src = d->yuv_b + WEBP_U_OFF, *v_src = d->yuv_b + WEBP_V_OFF;
  if (mb_y < d->mb_h - 1) {
    uint8_t *top = d->top + 32 * mb_x;
    memcpy(top, y_src + 15 * B, 16);
    memcpy(top + 16, u_src + 7 * B, 8);
    memcpy(top + 24, v_src + 7 * B, 8);
  }
  uint8_t *y_out = d->y + (size_t)mb_y * 16 * (size_t)d->y_stride + (size_t)mb_x * 16;
  uint8_t *u_out = d->u + (size_t)mb_y * 8 * (size_t)d->uv_stride + (size_t)mb_x * 8;
  uint8_t *v_out = d->v + (size_t)mb_y * 8 * (size_t)d->uv_stride + (size_t)mb_x * 8;
  for (int j = 0; j < 16; j++) memcpy(y_out + (size_t)j * (size_t)d->y_stride, y_src + j * B, 16);
  for (int j = 0; j < 8; j++) {
    memcpy(u_out + (size_t)j * (size_t)d->uv_stride, u_src + j * B, 8);
    memcpy(v_out + (size_t)j * (size_t)d->uv_stride, v_src + j * B, 8);
  }
}

/* ---- the frame ----------------------------------------------------------------------- */

static void filter_row(vp8_dec_t *d, int mb_y) {
  for (int mb_x = 0; mb_x < d->mb_w; mb_x++) {
    const vp8_finfo_t *f = &d->finfo[mb_x];
    if (f->limit == 0) continue;
    uint8_t *y = d->y + (size_t)mb_y * 16 * (size_t)d->y_stride + (size_t)mb_x * 16;
    if (d->filter_type == 1) {
      berth_webp_simple_filter_mb(y, d->y_stride, f->limit, mb_x > 0, mb_y > 0, f->inner);
    } else {
      uint8_t *u = d->u + (size_t)mb_y * 8 * (size_t)d->uv_stride + (size_t)mb_x * 8;
      uint8_t *v = d->v + (size_t)mb_y * 8 * (size_t)d->uv_stride + (size_t)mb_x * 8;
      berth_webp_normal_filter_mb(y, u, v, d->y_stride, d->uv_stride, f->limit, f->ilevel, f->hev_thresh, mb_x > 0,
                                  mb_y > 0, f->inner);
    }
  }
}

static const char *decode_row(vp8_dec_t *d, int mb_y) {
  vp8_br_t *tbr = &d->parts[mb_y & d->num_parts_minus_one];
  vp8_mb_nz_t *left = &d->mb_nz[0];
  left->nz = left->nz_dc = 0;
  memset(d->intra_l, WEBP_B_DC_PRED, sizeof d->intra_l);
  for (int mb_x = 0; mb_x < d->mb_w; mb_x++) {
    vp8_mb_nz_t *mb = &d->mb_nz[1 + mb_x];
    parse_intra_mode(d, mb_x);
    if (d->br.eof) return "WebP: VP8 first partition ends before the last macroblock";
    int skip = d->skip;
    if (!skip) {
      skip = parse_residuals(d, tbr, mb, left);
    } else {
      left->nz = mb->nz = 0;
      if (!d->is_i4x4) left->nz_dc = mb->nz_dc = 0;
      d->non_zero_y = d->non_zero_uv = 0;
    }
    if (tbr->eof) return "WebP: VP8 token partition ends before the last macroblock";
    if (d->filter_type > 0) {
      d->finfo[mb_x] = d->fstrengths[d->segment][d->is_i4x4];
      d->finfo[mb_x].inner |= (uint8_t)!skip;
    }
    reconstruct_mb(d, mb_x, mb_y);
  }
  if (d->filter_type > 0) filter_row(d, mb_y);
  return NULL;
}

const char *berth_webp_vp8_decode(const uint8_t *data, size_t n, uint32_t max_height, uint32_t max_width,
                                  void *scratch, size_t scratch_bytes, webp_yuv_t *out) {
  uint64_t off[8];
  if (!vp8_layout(0, 0, off) || scratch == NULL || scratch_bytes < off[7]) return "WebP: scratch memory is too small";
  vp8_dec_t *d = (vp8_dec_t *)scratch;
  memset(d, 0, sizeof *d);
  const char *why = parse_headers(d, data, n, max_height, max_width);
  if (why) return why;
  if (!vp8_layout((uint64_t)d->mb_w, (uint64_t)d->mb_h, off) || off[7] > scratch_bytes) {
    return "WebP: scratch memory is too small";
  }
  uint8_t *base = (uint8_t *)scratch;
  d->intra_t = base + off[1];
  d->top = base + off[2];
  d->mb_nz = (vp8_mb_nz_t *)(void *)(base + off[3]);
  d->finfo = (vp8_finfo_t *)(void *)(base + off[4]);
  d->y = base + off[5];
  d->u = base + off[6];
  d->y_stride = 16 * d->mb_w;
  d->uv_stride = 8 * d->mb_w;
  d->v = d->u + (size_t)d->uv_stride * 8 * (size_t)d->mb_h;
  memset(d->intra_t, WEBP_B_DC_PRED, 4 * (size_t)d->mb_w);
  memset(d->mb_nz, 0, sizeof(vp8_mb_nz_t) * ((size_t)d->mb_w + 1));
  for (int mb_y = 0; mb_y < d->mb_h; mb_y++) {
    why = decode_row(d, mb_y);
    if (why) return why;
  }
  out->y = d->y;
  out->u = d->u;
  out->v = d->v;
  out->y_stride = (uint32_t)d->y_stride;
  out->uv_stride = (uint32_t)d->uv_stride;
  out->width = (uint32_t)d->width;
  out->height = (uint32_t)d->height;
  return NULL;
}
