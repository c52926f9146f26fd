/* JPEG 2000 (ITU-T T.800 Part 1) for ONNX ImageDecoder: the JP2 box structure or a raw J2K
 * codestream; the main and tile-part headers (SIZ, COD, COC, QCD, QCC, RGN; TLM, PLM, PLT,
 * CRG, COM, CAP and unknown segments skipped; POC, PPM and PPT used); the tile loop (tiles
 * and tile-parts in any order); the inverse RCT/ICT, DC level shift and clamp like OpenJPEG;
 * and the 8-bit RGB Pillow makes of it (Jpeg2KDecode.c's unpackers, then convert("RGB")).
 * Tier-2, tier-1 and the wavelets are in image_jp2_t2.c, image_jp2_t1.c and image_jp2_dwt.c.
 *
 * Limits (each refused with a message): 1..4 components (as Pillow), no subsampled components,
 * precision up to 24 bits, at most 32 decomposition levels, and per tile as many precincts,
 * code blocks and code-block contributions as the scratch pool (48 bytes per pixel of the
 * bound plus 64 KiB) holds; a code block's data at most 64 KiB. */
#include "base/checked.h"
#include "kernels/image_codec.h"
#include "kernels/image_jp2_internal.h"

#include <math.h>
#include <string.h>

enum { OUT_GREY8, OUT_GREY16, OUT_RGB };

static inline uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static inline uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* ---- scratch ---- */

enum { SC_DEC, SC_PLANES, SC_DWT, SC_T1DATA, SC_T1FLAGS, SC_T1BUF, SC_T1SEG, SC_POOL, SC_N };

static bool scratch_layout(uint32_t mh, uint32_t mw, uint64_t off[SC_N + 1]) {
  uint64_t area, sizes[SC_N];
  if (!berth_mul_u64(mh, mw, &area)) return false;
  sizes[SC_DEC] = sizeof(j2_dec_t);
  if (!berth_mul_u64(area, 12, &sizes[SC_PLANES])) return false;
  sizes[SC_DWT] = ((uint64_t)(mh > mw ? mh : mw) + 2) * 4;
  sizes[SC_T1DATA] = J2_CB_MAX_SAMPLES * 4;
  sizes[SC_T1FLAGS] = (1024 + 2) * (4 + 2) + 16;
  sizes[SC_T1BUF] = J2_CB_MAX_BYTES + 16;
  sizes[SC_T1SEG] = J2_MAX_PASSES * 3 * 4;
  if (!berth_mul_u64(area, 48, &sizes[SC_POOL]) || !berth_add_u64(sizes[SC_POOL], 65536, &sizes[SC_POOL])) return false;
  uint64_t at = 0;
  for (int i = 0; i < SC_N; i++) {
    off[i] = at;
    if (!berth_add_u64(at, sizes[i], &at) || !berth_align_u64(at, 16, &at)) return false;
  }
  off[SC_N] = at;
  return true;
}

uint64_t berth_image_jp2_scratch_bytes(uint32_t max_height, uint32_t max_width) {
  uint64_t off[SC_N + 1];
  if (!scratch_layout(max_height, max_width, off) || off[SC_N] > SIZE_MAX) return UINT64_MAX;
  return off[SC_N];
}

/* ---- JP2 boxes ---- */

typedef struct jp2_info {
  const uint8_t *cs;
  size_t cs_len;
  bool jp2;
  uint32_t ih_w, ih_h, nc;
  uint8_t bpc;
} jp2_info_t;

/* jp2h: ihdr gives Pillow's mode. The colour specification (colr) does not matter: through
 * OpenJPEG 2.5's tile interface Pillow sees an unspecified colour space and guesses it from the
 * component count (1-2 grey, 3-4 sRGB), so sYCC, ICC profiles or a missing colr box decode
 * as the bare components; a palette (pclr, cmap) is not applied either: the indices come out
 * as grey (ITU conformance file9.jp2 decodes so in Pillow). */
static const char *jp2_header_box(const uint8_t *p, size_t n, jp2_info_t *ji) {
  bool have_ihdr = false;
  size_t pos = 0;
  while (pos < n) {
    if (n - pos < 8) return "JPEG 2000: truncated box in jp2h";
    uint32_t len = be32(p + pos), type = be32(p + pos + 4);
    if (len < 8 || len > n - pos) return "JPEG 2000: bad box length in jp2h";
    const uint8_t *b = p + pos + 8;
    uint32_t bl = len - 8;
    if (type == 0x69686472) { /* ihdr */
      if (bl != 14) return "JPEG 2000: ihdr box is not 14 bytes";
      ji->ih_h = be32(b);
      ji->ih_w = be32(b + 4);
      ji->nc = be16(b + 8);
      ji->bpc = b[10];
      have_ihdr = true;
    }
    pos += len;
  }
  if (!have_ihdr) return "JPEG 2000: jp2h has no ihdr box";
  return NULL;
}

static const char *jp2_boxes(const uint8_t *src, size_t n, jp2_info_t *ji) {
  size_t pos = 0;
  bool have_jp2h = false;
  ji->jp2 = true;
  while (pos < n) {
    if (n - pos < 8) return "JPEG 2000: truncated box header";
    uint64_t len = be32(src + pos);
    uint32_t type = be32(src + pos + 4);
    size_t hdr = 8;
    if (len == 1) {
      if (n - pos < 16) return "JPEG 2000: truncated box header";
      len = (uint64_t)be32(src + pos + 8) << 32 | be32(src + pos + 12);
      hdr = 16;
    } else if (len == 0) {
      len = n - pos;
    }
    if (len < hdr || len > n - pos) return "JPEG 2000: box length runs past the end of the file";
    if (pos == 0 && (type != 0x6A502020 || len != 12 || be32(src + 8) != 0x0D0A870A)) return "JPEG 2000: bad JP2 signature box";
    if (type == 0x6A703268 && !have_jp2h) { /* jp2h */
      const char *why = jp2_header_box(src + pos + hdr, (size_t)len - hdr, ji);
      if (why) return why;
      have_jp2h = true;
    } else if (type == 0x6A703263) { /* jp2c */
      if (!have_jp2h) return "JPEG 2000: codestream box before the jp2h header box";
      ji->cs = src + pos + hdr;
      ji->cs_len = (size_t)len - hdr;
      return NULL;
    }
    pos += (size_t)len;
  }
  return "JPEG 2000: no codestream (jp2c) box";
}

/* ---- marker segments ---- */

static const char *read_siz(j2_dec_t *d, const uint8_t *p, uint32_t len) {
  j2_siz_t *s = &d->siz;
  if (len < 38) return "JPEG 2000: SIZ segment too short";
  s->xsiz = be32(p + 4);
  s->ysiz = be32(p + 8);
  s->x0 = be32(p + 12);
  s->y0 = be32(p + 16);
  s->tw = be32(p + 20);
  s->th = be32(p + 24);
  s->tx0 = be32(p + 28);
  s->ty0 = be32(p + 32);
  uint32_t nc = be16(p + 36);
  if (nc < 1 || nc > J2_MAX_COMPS) return "JPEG 2000: not 1 to 4 components (Pillow decodes only those)";
  if (len != 38 + 3 * nc) return "JPEG 2000: SIZ length does not match its component count";
  s->ncomp = (uint16_t)nc;
  if (s->x0 >= s->xsiz || s->y0 >= s->ysiz) return "JPEG 2000: SIZ image area is empty";
  if (!s->tw || !s->th) return "JPEG 2000: SIZ tile size is zero";
  if (s->tx0 > s->x0 || s->ty0 > s->y0 || (uint64_t)s->tx0 + s->tw <= s->x0 || (uint64_t)s->ty0 + s->th <= s->y0)
    return "JPEG 2000: SIZ tile origin does not cover the image origin";
  for (uint32_t c = 0; c < nc; c++) {
    const uint8_t *q = p + 38 + 3 * c;
    s->prec[c] = (uint8_t)((q[0] & 0x7F) + 1);
    s->sgnd[c] = q[0] >> 7;
    if (s->prec[c] > 24) return "JPEG 2000: component precision above 24 bits";
    if (q[1] != 1 || q[2] != 1) return "JPEG 2000: subsampled components (XRsiz/YRsiz > 1) are not supported";
  }
  uint64_t ntx = ((uint64_t)s->xsiz - s->tx0 + s->tw - 1) / s->tw, nty = ((uint64_t)s->ysiz - s->ty0 + s->th - 1) / s->th;
  if (ntx * nty > 65535) return "JPEG 2000: more than 65535 tiles";
  s->ntx = (uint32_t)ntx;
  s->nty = (uint32_t)nty;
  return NULL;
}

/* SPcod/SPcoc: levels, code-block size and style, wavelet, precinct sizes. */
static const char *read_spcod(j2_tccp_t *t, const uint8_t *p, uint32_t n, bool precincts) {
  if (n < 5) return "JPEG 2000: COD/COC segment too short";
  if (p[0] > J2_MAX_LEVELS) return "JPEG 2000: more than 32 decomposition levels";
  if (p[1] > 8 || p[2] > 8 || p[1] + p[2] > 8) return "JPEG 2000: code-block size out of range";
  if (p[3] & 0xC0) return "JPEG 2000: code-block style has high-throughput or unknown bits (Part 15 is not supported)";
  if (p[4] > 1) return "JPEG 2000: unknown wavelet transform";
  if (n != 5u + (precincts ? p[0] + 1u : 0u)) return "JPEG 2000: COD/COC length does not match its precinct sizes";
  t->levels = p[0];
  t->xcb = (uint8_t)(p[1] + 2);
  t->ycb = (uint8_t)(p[2] + 2);
  t->cbsty = p[3];
  t->reversible = p[4];
  for (uint32_t r = 0; r <= t->levels; r++) {
    uint8_t v = precincts ? p[5 + r] : 0xFF;
    t->prcw[r] = v & 15;
    t->prch[r] = v >> 4;
    if (r > 0 && (t->prcw[r] == 0 || t->prch[r] == 0)) return "JPEG 2000: precinct size 1 above the lowest resolution";
  }
  return NULL;
}

static const char *read_cod(j2_params_t *P, uint32_t nc, const uint8_t *p, uint32_t n) {
  if (n < 5) return "JPEG 2000: COD segment too short";
  if (p[0] & ~7u) return "JPEG 2000: COD has unknown Scod bits";
  if (p[1] > 4) return "JPEG 2000: unknown progression order";
  P->cod.order = p[1];
  P->cod.layers = (uint16_t)be16(p + 2);
  if (!P->cod.layers) return "JPEG 2000: zero quality layers";
  if (p[4] > 1) return "JPEG 2000: unknown multiple-component transform";
  P->cod.mct = p[4];
  P->cod.sop = (p[0] & 2) != 0;
  P->cod.eph = (p[0] & 4) != 0;
  for (uint32_t c = 0; c < nc; c++) {
    if (P->coc_set[c]) continue;
    const char *why = read_spcod(&P->tccp[c], p + 5, n - 5, p[0] & 1);
    if (why) return why;
  }
  return NULL;
}

static const char *comp_index(uint32_t nc, const uint8_t *p, uint32_t n, uint32_t *c, uint32_t *used) {
  *used = nc < 257 ? 1 : 2;
  if (n < *used + 1) return "JPEG 2000: COC/QCC/RGN segment too short";
  *c = *used == 1 ? p[0] : be16(p);
  if (*c >= nc) return "JPEG 2000: COC/QCC/RGN names a component that does not exist";
  return NULL;
}

static const char *read_coc(j2_params_t *P, uint32_t nc, const uint8_t *p, uint32_t n) {
  uint32_t c, k;
  const char *why = comp_index(nc, p, n, &c, &k);
  if (why) return why;
  if (p[k] & ~1u) return "JPEG 2000: COC has unknown Scoc bits";
  why = read_spcod(&P->tccp[c], p + k + 1, n - k - 1, p[k] & 1);
  P->coc_set[c] = 1;
  return why;
}

static const char *read_sq(j2_tccp_t *t, const uint8_t *p, uint32_t n) {
  if (n < 1) return "JPEG 2000: QCD/QCC segment too short";
  uint32_t style = p[0] & 0x1F;
  if (style > 2) return "JPEG 2000: unknown quantization style";
  t->qstyle = (uint8_t)style;
  t->guard = p[0] >> 5;
  uint32_t per = style == 0 ? 1 : 2, cnt = (n - 1) / per;
  if ((n - 1) % per || cnt == 0 || cnt > J2_MAX_BANDS || (style == 1 && cnt != 1)) return "JPEG 2000: QCD/QCC length does not fit its style";
  for (uint32_t i = 0; i < cnt; i++) {
    uint32_t v = style == 0 ? (uint32_t)p[1 + i] << 8 : be16(p + 1 + 2 * i);
    t->expn[i] = (uint8_t)(v >> 11);
    t->mant[i] = (uint16_t)(style == 0 ? 0 : v & 0x7FF);
  }
  t->qn = (uint8_t)cnt;
  return NULL;
}

static const char *read_qcd(j2_params_t *P, uint32_t nc, const uint8_t *p, uint32_t n) {
  for (uint32_t c = 0; c < nc; c++) {
    if (P->qcc_set[c]) continue;
    const char *why = read_sq(&P->tccp[c], p, n);
    if (why) return why;
  }
  return NULL;
}

static const char *read_qcc(j2_params_t *P, uint32_t nc, const uint8_t *p, uint32_t n) {
  uint32_t c, k;
  const char *why = comp_index(nc, p, n, &c, &k);
  if (why) return why;
  P->qcc_set[c] = 1;
  return read_sq(&P->tccp[c], p + k, n - k);
}

static const char *read_rgn(j2_params_t *P, uint32_t nc, const uint8_t *p, uint32_t n) {
  uint32_t c, k;
  const char *why = comp_index(nc, p, n, &c, &k);
  if (why) return why;
  if (n != k + 2) return "JPEG 2000: RGN length wrong";
  if (p[k] != 0) return "JPEG 2000: RGN style other than maximum shift";
  if (p[k + 1] > 30) return "JPEG 2000: RGN shift above 30";
  P->tccp[c].roishift = p[k + 1];
  return NULL;
}

/* POC: progression order changes. A tile-part header's entries are appended to the main
 * header's, as OpenJPEG does (each tile starts from a copy of the main header's list). */
static const char *read_poc(j2_params_t *P, uint32_t nc, const uint8_t *p, uint32_t n) {
  uint32_t cw = nc < 257 ? 1 : 2, esz = 5 + 2 * cw;
  if (n == 0 || n % esz) return "JPEG 2000: POC length is not a whole number of entries";
  for (const uint8_t *e = p; e < p + n; e += esz) {
    if (P->npoc >= J2_MAX_POC) return "JPEG 2000: more than 32 progression order changes";
    j2_poc_t *q = &P->poc[P->npoc++];
    q->r0 = e[0];
    q->c0 = (uint16_t)(cw == 1 ? e[1] : be16(e + 1));
    q->l1 = (uint16_t)be16(e + 1 + cw);
    q->r1 = e[3 + cw];
    uint32_t c1 = cw == 1 ? e[4 + cw] : be16(e + 4 + cw);
    q->c1 = (uint16_t)(c1 == 0 ? (cw == 1 ? 256 : 16384) : c1);
    q->order = e[4 + 2 * cw];
    if (q->order > 4) return "JPEG 2000: POC names an unknown progression order";
    if (q->r1 > J2_MAX_LEVELS + 1) return "JPEG 2000: POC resolution end above 33";
  }
  return NULL;
}

/* PPM (main header) and PPT (tile-part headers): Z, then packed packet headers; the segments
 * are concatenated in Z order, which need not be the order they come in. Here they are only
 * noted (the stream stays where it is). */
static const char *note_packed(j2_dec_t *d, const uint8_t *p, uint32_t n, bool ppm) {
  if (n < 1) return "JPEG 2000: PPM/PPT segment too short";
  if (!ppm && d->tp_mode == 2) return NULL; /* collected already */
  uint8_t *set = ppm ? d->ppm_set : d->ppt_set;
  if (set[p[0]]) return "JPEG 2000: two PPM/PPT segments with the same index";
  set[p[0]] = 1;
  (ppm ? d->ppm_off : d->ppt_off)[p[0]] = (uint32_t)(p + 1 - d->src);
  (ppm ? d->ppm_n : d->ppt_n)[p[0]] = n - 1;
  if (ppm) d->ppm_len = 1; /* the real length is set by ppm_gather */
  else d->has_ppt = true;
  return NULL;
}

/* The main header's PPM data, in Z order, at the top of the pool for the whole decode. */
static const char *ppm_gather(j2_dec_t *d) {
  uint64_t total = 0;
  for (int z = 0; z < 256; z++)
    if (d->ppm_set[z]) total += d->ppm_n[z];
  if (total > d->pool.cap) return "JPEG 2000: PPM data larger than the scratch bound allows";
  d->pool.cap -= (size_t)total;
  d->ppm = d->pool.base + d->pool.cap;
  d->ppm_len = 0;
  for (int z = 0; z < 256; z++)
    if (d->ppm_set[z]) {
      memcpy(d->ppm + d->ppm_len, d->src + d->ppm_off[z], d->ppm_n[z]);
      d->ppm_len += d->ppm_n[z];
    }
  return d->ppm_len ? NULL : "JPEG 2000: PPM without data";
}

/* Appends bytes to the tile's packed packet headers. */
static const char *hdr_append(j2_dec_t *d, const uint8_t *p, size_t n) {
  if (n > d->hdr_cap - d->hdr_len) return "JPEG 2000: packed packet headers larger than the scratch bound allows";
  memcpy(d->hdr + d->hdr_len, p, n);
  d->hdr_len += n;
  return NULL;
}

/* The PPM part of the tile-part with codestream index k, appended to the tile's headers. */
static const char *ppm_part(j2_dec_t *d, uint32_t k) {
  size_t pos = 0;
  for (uint32_t i = 0;; i++) {
    if (d->ppm_len - pos < 4) return "JPEG 2000: PPM has fewer tile-parts than the codestream";
    uint32_t len = be32(d->ppm + pos);
    if (len > d->ppm_len - pos - 4) return "JPEG 2000: PPM tile-part length runs past its data";
    if (i == k) return hdr_append(d, d->ppm + pos + 4, len);
    if (++d->work > (1u << 24)) return "JPEG 2000: too many tile-parts to search";
    pos += 4 + (size_t)len;
  }
}

/* One marker segment of a main (tile = false) or tile-part header. *seen: COD 1, QCD 2. */
static const char *header_segment(j2_dec_t *d, j2_params_t *P, uint32_t m, const uint8_t *p, uint32_t n, unsigned *seen) {
  uint32_t nc = d->siz.ncomp;
  switch (m) {
  case 0xFF52: *seen |= 1; return read_cod(P, nc, p, n);
  case 0xFF53: *seen |= 8; return read_coc(P, nc, p, n);
  case 0xFF5C: *seen |= 2; return read_qcd(P, nc, p, n);
  case 0xFF5D: *seen |= 8; return read_qcc(P, nc, p, n);
  case 0xFF5E: *seen |= 8; return read_rgn(P, nc, p, n);
  case 0xFF5F: *seen |= 4; return read_poc(P, nc, p, n);
  case 0xFF60: return P == &d->mainp ? note_packed(d, p, n, true) : "JPEG 2000: PPM in a tile-part header";
  case 0xFF61: return P == &d->mainp ? "JPEG 2000: PPT in the main header" : note_packed(d, p, n, false);
  case 0xFF51: return "JPEG 2000: a second SIZ segment";
  default: return NULL; /* TLM, PLM, PLT, CRG, COM, CAP, CPF, others: skipped */
  }
}

/* Reads marker segments from *pos until the marker `stop` (SOT or SOD), which it leaves *pos at. */
static const char *header_segments(j2_dec_t *d, j2_params_t *P, size_t *pos, size_t end, uint32_t stop, unsigned *seen) {
  const uint8_t *s = d->src;
  for (;;) {
    if (end - *pos < 2) return "JPEG 2000: header ends without SOT/SOD";
    uint32_t m = be16(s + *pos);
    if (m == stop) return NULL;
    if (m < 0xFF30) return "JPEG 2000: expected a marker in the header";
    if (m <= 0xFF3F) { /* no segment */
      *pos += 2;
      continue;
    }
    if (end - *pos < 4) return "JPEG 2000: truncated marker segment";
    uint32_t len = be16(s + *pos + 2);
    if (len < 2 || len > end - *pos - 2) return "JPEG 2000: marker segment length runs past its header";
    const char *why = header_segment(d, P, m, s + *pos + 4, len - 2, seen);
    if (why) return why;
    *pos += 2 + (size_t)len;
  }
}

static const char *main_header(j2_dec_t *d, size_t *pos) {
  const uint8_t *s = d->src;
  if (d->n < 6 || be16(s) != 0xFF4F || be16(s + 2) != 0xFF51) return "JPEG 2000: codestream does not start with SOC, SIZ";
  uint32_t len = be16(s + 4);
  if (len < 2 || len > d->n - 4) return "JPEG 2000: SIZ segment runs past the end";
  const char *why = read_siz(d, s + 4, len);
  if (why) return why;
  *pos = 4 + (size_t)len;
  memset(&d->mainp, 0, sizeof d->mainp);
  unsigned seen = 0;
  why = header_segments(d, &d->mainp, pos, d->n, 0xFF90, &seen);
  if (why) return why;
  if ((seen & 3) != 3) return "JPEG 2000: main header lacks COD or QCD";
  return NULL;
}

/* ---- tile-parts ---- */

typedef struct sot {
  uint32_t tile, tn; /* tn: TNsot, the tile's tile-part count (0: not given) */
  size_t end; /* end of the tile-part */
} sot_t;

/* The tile-part at pos: its tile and end; false at EOC / the end of the stream. */
static bool sot_at(const j2_dec_t *d, size_t pos, sot_t *t, const char **why) {
  const uint8_t *s = d->src;
  *why = NULL;
  if (d->n - pos < 2 || be16(s + pos) == 0xFFD9) return false;
  if (be16(s + pos) != 0xFF90 || d->n - pos < 12 || be16(s + pos + 2) != 10) {
    *why = "JPEG 2000: expected an SOT marker segment";
    return false;
  }
  t->tile = be16(s + pos + 4);
  t->tn = s[pos + 11];
  uint32_t psot = be32(s + pos + 6);
  if (t->tile >= d->siz.ntx * d->siz.nty) {
    *why = "JPEG 2000: SOT tile index out of range";
    return false;
  }
  if (psot == 0) {
    t->end = d->n >= 2 && be16(s + d->n - 2) == 0xFFD9 ? d->n - 2 : d->n;
    if (t->end < pos + 14) t->end = pos + 14;
  } else {
    t->end = pos + psot;
  }
  if (psot != 0 && (psot < 14 || psot > d->n - pos)) {
    *why = "JPEG 2000: SOT tile-part length runs past the end";
    return false;
  }
  if (t->end > d->n) {
    *why = "JPEG 2000: SOT tile-part length runs past the end";
    return false;
  }
  return true;
}

/* Tile-part headers are read in three modes: the tile's first part (its parameters start as a
 * copy of the main header's), a later part seen while collecting (POC entries appended, as
 * OpenJPEG reads every tile-part before decoding; coding parameters refused), and a later part
 * reached while reading packets (parsed into a throwaway copy, only to find SOD). */
enum { TP_FIRST, TP_COLLECT, TP_DATA };

static const char *tilepart_header(j2_dec_t *d, size_t pos, const sot_t *t, int mode) {
  size_t hp = pos + 12;
  unsigned seen = 0;
  j2_params_t *P = mode == TP_DATA ? &d->throwp : &d->tilep;
  if (mode == TP_FIRST) {
    d->tn_first = (uint8_t)t->tn;
    *P = d->mainp;
    memset(P->coc_set, 0, sizeof P->coc_set);
    memset(P->qcc_set, 0, sizeof P->qcc_set);
  } else if (mode == TP_DATA) {
    *P = d->tilep;
  }
  d->tp_mode = (uint8_t)mode;
  const char *why = header_segments(d, P, &hp, t->end, 0xFF93, &seen);
  if (why) return why;
  if (mode != TP_FIRST && (seen & ~4u)) return "JPEG 2000: COD, COC, QCD, QCC or RGN in a tile's later tile-part";
  if (d->ppm_len && mode != TP_DATA) {
    why = ppm_part(d, d->cur_idx);
    if (why) return why;
  }
  d->seg_pos = hp + 2;
  d->seg_end = t->end;
  d->next_sot = t->end;
  return NULL;
}

/* Finds the next tile-part of d->tile, from the first unconsumed one (mode TP_FIRST) or after
 * the last one found, and reads its header. */
static bool find_tilepart(j2_dec_t *d, int mode, const char **why) {
  size_t pos = mode == TP_FIRST ? d->tp_first : d->next_sot;
  uint32_t idx = mode == TP_FIRST ? d->tp_first_idx : d->next_idx;
  sot_t t;
  while (sot_at(d, pos, &t, why)) {
    if (++d->work > (1u << 24)) {
      *why = "JPEG 2000: too many tile-parts to search";
      return false;
    }
    if (t.tile == d->tile) {
      d->cur_idx = idx;
      *why = tilepart_header(d, pos, &t, mode);
      d->next_idx = idx + 1;
      return *why == NULL;
    }
    pos = t.end;
    idx++;
  }
  return false;
}

/* The tile's first tile-part, then its later ones' POC entries (TNsot, when given, says when
 * to stop looking); leaves the packet stream at the first part's data. */
static const char *tile_headers(j2_dec_t *d) {
  const char *why = NULL;
  d->pool.cap = d->pool_cap0;
  d->hdr = d->pool.base; /* the tile's packed headers go at the pool's bottom for now */
  d->hdr_cap = d->pool.cap;
  d->hdr_len = d->hdr_pos = 0;
  d->has_ppt = false;
  memset(d->ppt_set, 0, sizeof d->ppt_set);
  if (!find_tilepart(d, TP_FIRST, &why)) return why ? why : "JPEG 2000: a tile has no tile-part";
  size_t pos = d->seg_pos, end = d->seg_end;
  uint32_t nidx = d->next_idx;
  uint32_t found = 1, total = d->tn_first;
  while ((total == 0 || found < total) && find_tilepart(d, TP_COLLECT, &why)) found++;
  if (why) return why;
  d->seg_pos = pos;
  d->seg_end = end;
  d->next_sot = end;
  d->next_idx = nidx;
  if (d->has_ppt && d->ppm_len) return "JPEG 2000: both PPM and PPT";
  for (int z = 0; z < 256 && d->has_ppt; z++)
    if (d->ppt_set[z] && (why = hdr_append(d, d->src + d->ppt_off[z], d->ppt_n[z])) != NULL) return why;
  if (!d->ppm_len && !d->has_ppt) {
    d->hdr = NULL;
    return NULL;
  }
  /* move the headers to the pool's top (below PPM), out of the tile structures' way */
  uint8_t *top = d->pool.base + d->pool.cap - d->hdr_len;
  memmove(top, d->hdr, d->hdr_len);
  d->hdr = top;
  d->pool.cap -= d->hdr_len;
  return NULL;
}

bool j2_next_tilepart(j2_dec_t *d, const char **why) { return find_tilepart(d, TP_DATA, why); }

/* After tile d->tile: skip the leading tile-parts that belong to tiles already decoded. */
static void advance_first(j2_dec_t *d) {
  sot_t t;
  const char *why;
  while (sot_at(d, d->tp_first, &t, &why) && t.tile <= d->tile) {
    d->tp_first = t.end;
    d->tp_first_idx++;
  }
}

/* ---- colour and output ---- */

static void inverse_mct(j2_dec_t *d, size_t area) {
  if (d->cur->tccp[0].reversible) {
    int32_t *c0 = d->plane[0], *c1 = d->plane[1], *c2 = d->plane[2];
    for (size_t i = 0; i < area; i++) {
      int64_t y = c0[i], u = c1[i], v = c2[i];
      int64_t g = y - ((u + v) >> 2);
      c0[i] = (int32_t)(uint32_t)(v + g);
      c1[i] = (int32_t)(uint32_t)g;
      c2[i] = (int32_t)(uint32_t)(u + g);
    }
  } else {
    float *c0 = (float *)d->plane[0], *c1 = (float *)d->plane[1], *c2 = (float *)d->plane[2];
    for (size_t i = 0; i < area; i++) {
      float y = c0[i], u = c1[i], v = c2[i];
      c0[i] = y + (v * 1.402f);
      c1[i] = y - (u * 0.34413f) - (v * 0.71414f);
      c2[i] = y + (u * 1.772f);
    }
  }
}

/* DC level shift and clamp to the component's range, OpenJPEG's way (lrintf for 9/7). */
static void level_shift(j2_dec_t *d, uint32_t c, size_t area) {
  int64_t prec = d->siz.prec[c], sg = d->siz.sgnd[c];
  int64_t lo = sg ? -((int64_t)1 << (prec - 1)) : 0, hi = sg ? ((int64_t)1 << (prec - 1)) - 1 : ((int64_t)1 << prec) - 1;
  int64_t shift = sg ? 0 : (int64_t)1 << (prec - 1);
  int32_t *ip = d->plane[c];
  const float *fp = (const float *)d->plane[c];
  bool rev = d->cur->tccp[c].reversible;
  for (size_t i = 0; i < area; i++) {
    int64_t v;
    if (rev) {
      v = (int64_t)ip[i] + shift;
    } else {
      float f = fp[i];
      if (!(f <= 2147483647.0f)) v = f != f ? lo : hi; /* NaN: the low end */
      else if (f < -2147483648.0f) v = lo;
      else v = (int64_t)lrintf(f) + shift;
    }
    ip[i] = (int32_t)(v < lo ? lo : v > hi ? hi : v);
  }
}

/* Pillow's j2ku_shift of a sample as OpenJPEG hands it over (csiz bytes), to `bits` bits. */
static uint32_t pil_scale(int32_t v, uint32_t prec, uint32_t sg, int bits) {
  int shift = bits - (int)prec;
  uint32_t csiz = (prec + 7) >> 3, word = (uint32_t)v;
  uint32_t off = sg ? 1u << (prec - 1) : 0;
  if (csiz == 1) word &= 0xFF;
  else if (csiz == 2) word &= 0xFFFF;
  if (shift < 0) off += 1u << (-shift - 1);
  uint32_t x = off + word;
  return shift < 0 ? x >> -shift : x << shift;
}

static void write_tile(j2_dec_t *d, const j2_rect_t *t, int kind, berth_image_dst_t *dst) {
  uint32_t tw = t->x1 - t->x0, th = t->y1 - t->y0, W = d->siz.xsiz - d->siz.x0;
  for (uint32_t y = 0; y < th; y++) {
    uint8_t *row = dst->rgb + ((size_t)(t->y0 - d->siz.y0 + y) * W + (t->x0 - d->siz.x0)) * 3;
    for (uint32_t x = 0; x < tw; x++) {
      size_t i = (size_t)y * tw + x;
      if (kind == OUT_RGB) {
        for (uint32_t c = 0; c < 3; c++) row[3 * x + c] = (uint8_t)pil_scale(d->plane[c][i], d->siz.prec[c], d->siz.sgnd[c], 8);
      } else {
        uint32_t v = kind == OUT_GREY8 ? (uint8_t)pil_scale(d->plane[0][i], d->siz.prec[0], d->siz.sgnd[0], 8)
                                       : (uint16_t)pil_scale(d->plane[0][i], d->siz.prec[0], d->siz.sgnd[0], 16);
        uint8_t b = (uint8_t)(v > 255 ? 255 : v);
        row[3 * x] = row[3 * x + 1] = row[3 * x + 2] = b;
      }
    }
  }
}

static const char *decode_tile(j2_dec_t *d, int kind, berth_image_dst_t *dst) {
  const j2_siz_t *s = &d->siz;
  uint32_t p = d->tile % s->ntx, q = d->tile / s->ntx;
  uint64_t x0 = (uint64_t)s->tx0 + (uint64_t)p * s->tw, y0 = (uint64_t)s->ty0 + (uint64_t)q * s->th;
  j2_rect_t t = {(uint32_t)(x0 > s->x0 ? x0 : s->x0), (uint32_t)(y0 > s->y0 ? y0 : s->y0), 0, 0};
  t.x1 = (uint32_t)(x0 + s->tw < s->xsiz ? x0 + s->tw : s->xsiz);
  t.y1 = (uint32_t)(y0 + s->th < s->ysiz ? y0 + s->th : s->ysiz);
  const char *why = NULL;
  why = tile_headers(d);
  if (why) return why;
  d->cur = &d->tilep;
  why = j2_tile_setup(d, &t);
  if (!why) why = j2_tile_packets(d);
  if (!why) why = j2_tile_blocks(d);
  if (why) return why;
  size_t area = (size_t)(t.x1 - t.x0) * (t.y1 - t.y0);
  if (d->cur->cod.mct && s->ncomp >= 3) {
    if (d->cur->tccp[0].reversible != d->cur->tccp[1].reversible || d->cur->tccp[0].reversible != d->cur->tccp[2].reversible)
      return "JPEG 2000: component transform over components with different wavelets";
    if (d->nout == 3) inverse_mct(d, area);
  }
  for (uint32_t c = 0; c < d->nout; c++) level_shift(d, c, area);
  write_tile(d, &t, kind, dst);
  advance_first(d);
  return NULL;
}

/* Pillow's mode (from ihdr, or from SIZ for a raw codestream) and its unpacker table. */
static const char *output_kind(const j2_dec_t *d, const jp2_info_t *ji, int *kind) {
  uint32_t nc = d->siz.ncomp, mode_nc = ji->jp2 ? ji->nc : nc;
  /* Pillow reads the mode from ihdr's BPC, or for a raw codestream from the bytes it takes for
   * component 0's YRsiz: two bytes early, they are Ssiz. Both mean: 10 bits or more is I;16. */
  uint32_t bpc = ji->jp2 ? ji->bpc : (uint32_t)(d->siz.prec[0] - 1);
  bool i16 = mode_nc == 1 && (bpc & 0x7F) > 8;
  bool grey = nc <= 2; /* Pillow's guess for an unspecified colour space */
  if (mode_nc < 1 || mode_nc > 4) return "JPEG 2000: ihdr component count is not 1 to 4";
  if (ji->jp2 && (ji->ih_w != d->siz.xsiz - d->siz.x0 || ji->ih_h != d->siz.ysiz - d->siz.y0))
    return "JPEG 2000: ihdr size differs from the codestream's";
  if (grey && (mode_nc <= 2 ? nc == mode_nc : true)) {
    *kind = i16 ? OUT_GREY16 : OUT_GREY8;
    return NULL;
  }
  if (!grey && mode_nc >= 3) {
    *kind = OUT_RGB;
    return NULL;
  }
  return "JPEG 2000: ihdr's component count does not fit the codestream's (no Pillow unpacker)";
}

const char *berth_image_decode_jp2(const uint8_t *src, size_t n, berth_image_dst_t *dst) {
  uint64_t off[SC_N + 1];
  if (!scratch_layout(dst->max_height, dst->max_width, off) || dst->scratch_bytes < off[SC_N])
    return "JPEG 2000: scratch smaller than berth_image_jp2_scratch_bytes";
  uint8_t *sc = dst->scratch;
  j2_dec_t *d = (j2_dec_t *)(void *)(sc + off[SC_DEC]);
  memset(d, 0, sizeof *d);
  jp2_info_t ji = {0};
  if (n >= 12 && be32(src) == 12 && be32(src + 4) == 0x6A502020) {
    const char *why = jp2_boxes(src, n, &ji);
    if (why) return why;
  } else if (n >= 4 && be32(src) == 0xFF4FFF51) {
    ji.cs = src;
    ji.cs_len = n;
  } else {
    return "JPEG 2000: neither a JP2 file nor a J2K codestream";
  }
  if (ji.cs_len > UINT32_MAX) return "JPEG 2000: codestream larger than 4 GiB";
  d->src = ji.cs;
  d->n = ji.cs_len;
  d->pool.base = sc + off[SC_POOL];
  d->pool.cap = (size_t)(off[SC_N] - off[SC_POOL]);
  size_t pos;
  const char *why = main_header(d, &pos);
  if (why) return why;
  if (d->ppm_len && (why = ppm_gather(d)) != NULL) return why;
  d->pool_cap0 = d->pool.cap;
  uint32_t W = d->siz.xsiz - d->siz.x0, H = d->siz.ysiz - d->siz.y0;
  if (H > dst->max_height || W > dst->max_width) return "JPEG 2000: image is larger than the bound";
  int kind;
  why = output_kind(d, &ji, &kind);
  if (why) return why;
  d->nout = (uint8_t)(kind == OUT_RGB ? 3 : 1);
  for (int c = 0; c < 3; c++) d->plane[c] = (int32_t *)(void *)(sc + off[SC_PLANES] + (size_t)c * H * W * 4);
  d->dwt_tmp = (int32_t *)(void *)(sc + off[SC_DWT]);
  d->t1_data = (int32_t *)(void *)(sc + off[SC_T1DATA]);
  d->t1_flags = sc + off[SC_T1FLAGS];
  d->t1_buf = sc + off[SC_T1BUF];
  d->t1_seg = (uint32_t *)(void *)(sc + off[SC_T1SEG]);
  d->tp_first = pos;
  for (d->tile = 0; d->tile < d->siz.ntx * d->siz.nty; d->tile++) {
    why = decode_tile(d, kind, dst);
    if (why) return why;
  }
  dst->height = H;
  dst->width = W;
  return NULL;
}
