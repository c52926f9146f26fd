/* JPEG 2000 tier-2 (T.800 Annex B): a tile's geometry (resolutions, bands, precincts, code
 * blocks), tag trees, packet headers (inclusion, zero bit-planes, coding passes, Lblock and
 * codeword-segment lengths), SOP/EPH markers and the five progression orders; then each code
 * block through tier-1 into the tile's sample planes. */
#include "kernels/image_jp2_internal.h"

#include <math.h>
#include <string.h>

/* ---- geometry ---- */

static uint32_t ceil_shift_signed(int64_t a, unsigned e) { /* ceil(a / 2^e) for a >= -2^(e-1) */
  int64_t r = (a + (((int64_t)1 << e) - 1)) >> e;
  return r < 0 ? 0 : (uint32_t)r;
}

static uint64_t tree_nodes(uint32_t w, uint32_t h) {
  uint64_t n = 0;
  if (!w || !h) return 0;
  for (;;) {
    n += (uint64_t)w * h;
    if (w == 1 && h == 1) return n;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
}

static const char *band_setup(j2_dec_t *d, const j2_tccp_t *tp, uint32_t c, uint32_t r, j2_res_t *res) {
  const j2_rect_t *t = &d->tc[c].r;
  for (uint32_t b = 0; b < res->nbands; b++) {
    j2_band_t *bd = &res->band[b];
    uint32_t bandno = r == 0 ? 0 : 3 * (r - 1) + b + 1;
    bd->orient = (uint8_t)(r == 0 ? 0 : b + 1);
    if (r == 0) {
      bd->r = res->r;
    } else {
      unsigned nb = tp->levels - r + 1;
      int64_t xo = (bd->orient & 1) ? ((int64_t)1 << (nb - 1)) : 0, yo = (bd->orient >> 1) ? ((int64_t)1 << (nb - 1)) : 0;
      bd->r.x0 = ceil_shift_signed((int64_t)t->x0 - xo, nb);
      bd->r.y0 = ceil_shift_signed((int64_t)t->y0 - yo, nb);
      bd->r.x1 = ceil_shift_signed((int64_t)t->x1 - xo, nb);
      bd->r.y1 = ceil_shift_signed((int64_t)t->y1 - yo, nb);
    }
    int expn, mant;
    if (tp->qstyle == 1) {
      expn = (int)tp->expn[0] - (int)((bandno ? bandno - 1 : 0) / 3);
      if (bandno && expn < 0) expn = 0;
      mant = tp->mant[0];
    } else {
      if (bandno >= tp->qn) return "JPEG 2000: QCD/QCC gives fewer step sizes than the component has bands";
      expn = tp->expn[bandno];
      mant = tp->mant[bandno];
    }
    bd->numbps = (int16_t)(expn + tp->guard - 1);
    /* OpenJPEG's decoder leaves out the band gain of E-4 for the 9/7: its wavelet scales the
     * high-pass samples by 2/K instead of 1/K (BUG_WEIRD_TWO_INVK), which makes up for it */
    bd->step = (float)((1.0 + mant / 2048.0) * ldexp(1.0, (int)d->siz.prec[c] - expn));
    bd->xcb = (uint8_t)(tp->xcb < (r == 0 ? res->ppx : res->ppx - 1) ? tp->xcb : (r == 0 ? res->ppx : res->ppx - 1));
    bd->ycb = (uint8_t)(tp->ycb < (r == 0 ? res->ppy : res->ppy - 1) ? tp->ycb : (r == 0 ? res->ppy : res->ppy - 1));
  }
  return NULL;
}

/* The resolutions and bands of every component; returns the precinct-band count in *npb. */
static const char *geometry(j2_dec_t *d, const j2_rect_t *tile, uint64_t *npb) {
  *npb = 0;
  d->nprec = 0;
  for (uint32_t c = 0; c < d->siz.ncomp; c++) {
    const j2_tccp_t *tp = &d->cur->tccp[c];
    j2_tilec_t *tc = &d->tc[c];
    tc->r = *tile;
    tc->nres = (uint8_t)(tp->levels + 1);
    for (uint32_t r = 0; r < tc->nres; r++) {
      j2_res_t *res = &tc->res[r];
      unsigned sh = tp->levels - r;
      res->r.x0 = j2_ceildivpow2(tile->x0, sh);
      res->r.y0 = j2_ceildivpow2(tile->y0, sh);
      res->r.x1 = j2_ceildivpow2(tile->x1, sh);
      res->r.y1 = j2_ceildivpow2(tile->y1, sh);
      res->ppx = tp->prcw[r];
      res->ppy = tp->prch[r];
      res->nbands = (uint8_t)(r == 0 ? 1 : 3);
      if (res->r.x0 == res->r.x1 || res->r.y0 == res->r.y1) {
        res->npx = res->npy = 0;
      } else {
        res->npx = j2_ceildivpow2(res->r.x1, res->ppx) - (res->r.x0 >> res->ppx);
        res->npy = j2_ceildivpow2(res->r.y1, res->ppy) - (res->r.y0 >> res->ppy);
      }
      res->pb0 = (uint32_t)*npb;
      uint64_t np = (uint64_t)res->npx * res->npy;
      *npb += np * res->nbands;
      if (*npb > UINT32_MAX / 2) return "JPEG 2000: too many precincts";
      res->prec0 = d->nprec;
      d->nprec += (uint32_t)np;
      const char *why = band_setup(d, tp, c, r, res);
      if (why) return why;
    }
  }
  return NULL;
}

/* One precinct's part of one band: its rectangle and code-block grid. */
static void pband_fill(const j2_res_t *res, uint32_t r, uint32_t p, const j2_band_t *bd, j2_pband_t *pb) {
  uint32_t px = p % res->npx, py = p / res->npx;
  uint64_t prx0 = ((uint64_t)(res->r.x0 >> res->ppx) + px) << res->ppx;
  uint64_t pry0 = ((uint64_t)(res->r.y0 >> res->ppy) + py) << res->ppy;
  unsigned ew = res->ppx, eh = res->ppy;
  if (r > 0) {
    prx0 >>= 1;
    pry0 >>= 1;
    ew--;
    eh--;
  }
  uint64_t x0 = prx0 > bd->r.x0 ? prx0 : bd->r.x0, y0 = pry0 > bd->r.y0 ? pry0 : bd->r.y0;
  uint64_t x1 = prx0 + ((uint64_t)1 << ew), y1 = pry0 + ((uint64_t)1 << eh);
  if (x1 > bd->r.x1) x1 = bd->r.x1;
  if (y1 > bd->r.y1) y1 = bd->r.y1;
  memset(pb, 0, sizeof *pb);
  if (x0 >= x1 || y0 >= y1) return;
  pb->r = (j2_rect_t){(uint32_t)x0, (uint32_t)y0, (uint32_t)x1, (uint32_t)y1};
  pb->cbx0 = (pb->r.x0 >> bd->xcb) << bd->xcb;
  pb->cby0 = (pb->r.y0 >> bd->ycb) << bd->ycb;
  pb->ncx = j2_ceildivpow2(pb->r.x1, bd->xcb) - (pb->r.x0 >> bd->xcb);
  pb->ncy = j2_ceildivpow2(pb->r.y1, bd->ycb) - (pb->r.y0 >> bd->ycb);
}

static void *pool_take(j2_pool_t *pl, uint64_t bytes) {
  uint64_t at = (pl->used + 15) & ~(uint64_t)15;
  if (at > pl->cap || bytes > pl->cap - at) return NULL;
  pl->used = (size_t)(at + bytes);
  return pl->base + at;
}

static const char *const k_pool_msg = "JPEG 2000: the tile has more precincts, code blocks or contributions than the scratch bound allows";

const char *j2_tile_setup(j2_dec_t *d, const j2_rect_t *tile) {
  uint64_t npb;
  const char *why = geometry(d, tile, &npb);
  if (why) return why;
  d->pool.used = 0;
  d->pb = pool_take(&d->pool, npb * sizeof(j2_pband_t));
  if (!d->pb) return k_pool_msg;
  uint64_t ncb = 0, nnodes = 0;
  for (uint32_t c = 0; c < d->siz.ncomp; c++)
    for (uint32_t r = 0; r < d->tc[c].nres; r++) {
      const j2_res_t *res = &d->tc[c].res[r];
      for (uint32_t p = 0; p < res->npx * res->npy; p++)
        for (uint32_t b = 0; b < res->nbands; b++) {
          j2_pband_t *pb = &d->pb[res->pb0 + p * res->nbands + b];
          pband_fill(res, r, p, &res->band[b], pb);
          pb->cb0 = (uint32_t)ncb;
          pb->incl = (uint32_t)nnodes;
          uint64_t tn = tree_nodes(pb->ncx, pb->ncy);
          pb->zbp = (uint32_t)(nnodes + tn);
          ncb += (uint64_t)pb->ncx * pb->ncy;
          nnodes += 2 * tn;
          if (ncb > UINT32_MAX / 4 || nnodes > UINT32_MAX / 4) return k_pool_msg;
        }
    }
  d->npb = (uint32_t)npb;
  d->ncb = (uint32_t)ncb;
  d->nnodes = (uint32_t)nnodes;
  d->cb = pool_take(&d->pool, ncb * sizeof(j2_cblk_t));
  d->nodes = pool_take(&d->pool, nnodes * sizeof(j2_node_t));
  if ((ncb && !d->cb) || (nnodes && !d->nodes)) return k_pool_msg;
  for (uint32_t i = 0; i < ncb; i++) d->cb[i] = (j2_cblk_t){0, 0, 0, 0, 3, 0};
  for (uint32_t i = 0; i < nnodes; i++) d->nodes[i] = (j2_node_t){UINT32_MAX, 0};
  d->chunks = pool_take(&d->pool, 0);
  uint64_t left = d->chunks ? d->pool.cap - d->pool.used : 0;
  d->chunk_cap = (uint32_t)(left / sizeof(j2_chunk_t) > UINT32_MAX - 1 ? UINT32_MAX - 1 : left / sizeof(j2_chunk_t));
  d->nchunks = 0;
  return NULL;
}

/* ---- packet headers ---- */

static void bio_init(j2_bio_t *b, const uint8_t *p, const uint8_t *end) {
  b->p = p;
  b->end = end;
  b->buf = 0;
  b->ct = 0;
  b->overrun = false;
}

static void bio_bytein(j2_bio_t *b) {
  b->buf = (b->buf << 8) & 0xFFFF;
  b->ct = b->buf == 0xFF00 ? 7 : 8;
  if (b->p < b->end) b->buf |= *b->p++;
  else b->overrun = true;
}

static uint32_t bio_bit(j2_bio_t *b) {
  if (b->ct == 0) bio_bytein(b);
  b->ct--;
  return (b->buf >> b->ct) & 1;
}

static uint32_t bio_bits(j2_bio_t *b, unsigned n) {
  uint32_t v = 0;
  for (unsigned i = 0; i < n; i++) v = (v << 1) | bio_bit(b);
  return v;
}

static void bio_align(j2_bio_t *b) {
  if ((b->buf & 0xFF) == 0xFF) bio_bytein(b);
  b->ct = 0;
}

/* Tag tree (B.10.2): is the leaf's value below threshold? Nodes are stored level by level. */
static bool tgt_decode(j2_dec_t *d, j2_bio_t *b, uint32_t base, uint32_t w, uint32_t h, uint32_t x, uint32_t y, uint32_t thr) {
  uint32_t path[40];
  int n = 0;
  uint32_t lvl_base = base;
  for (;;) {
    path[n++] = lvl_base + y * w + x;
    if (w == 1 && h == 1) break;
    lvl_base += w * h;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    x /= 2;
    y /= 2;
  }
  uint32_t low = 0;
  for (int i = n - 1; i >= 0; i--) {
    j2_node_t *nd = &d->nodes[path[i]];
    if (low > nd->low) nd->low = low;
    else low = nd->low;
    while (low < thr && low < nd->value) {
      if (b->overrun) return false;
      if (bio_bit(b)) nd->value = low;
      else low++;
    }
    nd->low = low;
  }
  return d->nodes[path[0]].value < thr;
}

static uint32_t num_passes(j2_bio_t *b) {
  if (!bio_bit(b)) return 1;
  if (!bio_bit(b)) return 2;
  uint32_t n = bio_bits(b, 2);
  if (n != 3) return 3 + n;
  n = bio_bits(b, 5);
  if (n != 31) return 6 + n;
  return 37 + bio_bits(b, 7);
}

/* Codeword segments (D.4.2): the first pass of the segment holding pass p, and its length. */
static uint32_t seg_start(uint32_t p, uint8_t sty) {
  if (sty & J2_CB_TERMALL) return p;
  if (!(sty & J2_CB_BYPASS) || p < 10) return 0;
  uint32_t q = p - 10;
  return q % 3 == 2 ? p : 10 + q / 3 * 3;
}

static uint32_t seg_max(uint32_t s, uint8_t sty) {
  if (sty & J2_CB_TERMALL) return 1;
  if (!(sty & J2_CB_BYPASS)) return 255;
  if (s == 0) return 10;
  return (s - 10) % 3 == 0 ? 2 : 1;
}

static unsigned floorlog2(uint32_t v) {
  unsigned l = 0;
  while (v >>= 1) l++;
  return l;
}

/* The lengths of a block's new passes, one chunk per codeword segment touched. */
static const char *block_lengths(j2_dec_t *d, j2_bio_t *b, j2_cblk_t *cb, uint32_t newp, uint8_t sty) {
  uint32_t done = cb->npasses;
  while (newp > 0) {
    uint32_t s = seg_start(done, sty), k = s + seg_max(s, sty) - done;
    if (k > newp) k = newp;
    unsigned bits = cb->lblock + floorlog2(k);
    if (bits > 32) return "JPEG 2000: a codeword-segment length has more than 32 bits";
    if (d->nchunks >= d->chunk_cap) return k_pool_msg;
    j2_chunk_t *ch = &d->chunks[d->nchunks++];
    *ch = (j2_chunk_t){0, 0, bio_bits(b, bits), (uint8_t)s, (uint8_t)k, {0, 0}};
    if (cb->tail) d->chunks[cb->tail - 1].next = d->nchunks;
    else cb->head = d->nchunks;
    cb->tail = d->nchunks;
    done += k;
    newp -= k;
  }
  cb->npasses = (uint8_t)done;
  return NULL;
}

static const char *block_header(j2_dec_t *d, j2_bio_t *b, const j2_pband_t *pb, const j2_band_t *bd, uint32_t i,
                                uint32_t layer, const j2_tccp_t *tp) {
  j2_cblk_t *cb = &d->cb[pb->cb0 + i];
  uint32_t x = i % pb->ncx, y = i / pb->ncx;
  if (!cb->included) {
    if (!tgt_decode(d, b, pb->incl, pb->ncx, pb->ncy, x, y, layer + 1)) return NULL;
    uint32_t t = 0;
    while (!tgt_decode(d, b, pb->zbp, pb->ncx, pb->ncy, x, y, t)) {
      if (b->overrun || ++t > (uint32_t)(bd->numbps + 1)) return "JPEG 2000: more zero bit-planes than the band has";
    }
    cb->numbps = (uint8_t)(bd->numbps + 1 - (int)t);
    cb->included = 1;
  } else if (!bio_bit(b)) {
    return NULL;
  }
  uint32_t newp = num_passes(b);
  int maxp = 3 * (cb->numbps + tp->roishift) - 2;
  if ((int)(cb->npasses + newp) > (maxp > 0 ? maxp : 0)) return "JPEG 2000: a code block has more coding passes than bit-planes";
  while (bio_bit(b)) {
    if (++cb->lblock > 32) return "JPEG 2000: Lblock grows past 32";
  }
  return block_lengths(d, b, cb, newp, tp->cbsty);
}

static const char *tile_data_ends = "JPEG 2000: a packet runs past the end of its tile-part";
/* Not an error: the tile's packets stop early (see packet_bytes); the loops unwind on it. */
static const char k_stop[] = "JPEG 2000: end of the tile's packets";

/* Makes sure the packet stream has bytes, moving on to the tile's next tile-part. When the
 * tile's last tile-part ends on a packet boundary before the progression does, the remaining
 * packets are absent: OpenJPEG (and so Pillow) decodes the tile from what is there, and
 * opj_compress itself writes such streams (POC with rate allocation). */
static const char *packet_bytes(j2_dec_t *d) {
  while (d->seg_pos >= d->seg_end) {
    const char *why = NULL;
    if (!j2_next_tilepart(d, &why)) return why ? why : k_stop;
  }
  return NULL;
}

/* The packet's body: its chunks' offsets in the data stream, after the header. */
static const char *packet_body(j2_dec_t *d, uint32_t first, size_t pos) {
  for (uint32_t k = first; k < d->nchunks; k++) {
    j2_chunk_t *ch = &d->chunks[k];
    if (ch->len > d->seg_end - pos) return "JPEG 2000: a packet's body runs past its tile-part";
    ch->off = (uint32_t)pos;
    pos += ch->len;
  }
  d->seg_pos = pos;
  return NULL;
}

static const char *packet_header(j2_dec_t *d, j2_bio_t *b, const j2_res_t *res, uint32_t p, uint32_t layer,
                                 const j2_tccp_t *tp) {
  if (!bio_bit(b)) return NULL;
  for (uint32_t bi = 0; bi < res->nbands; bi++) {
    const j2_pband_t *pb = &d->pb[res->pb0 + p * res->nbands + bi];
    for (uint32_t i = 0; i < pb->ncx * pb->ncy; i++) {
      const char *why = block_header(d, b, pb, &res->band[bi], i, layer, tp);
      if (why) return why;
      if (b->overrun) return tile_data_ends;
    }
  }
  return NULL;
}

/* With packed headers (PPM/PPT) the header comes from d->hdr and only the body (and SOP)
 * from the tile-parts' data; the tile's packets stop where its headers do. */
static const char *read_packet_packed(j2_dec_t *d, const j2_res_t *res, uint32_t p, uint32_t layer, const j2_tccp_t *tp) {
  if (d->hdr_pos >= d->hdr_len) return k_stop;
  const uint8_t *s = d->src;
  const char *why = NULL;
  if (d->seg_pos >= d->seg_end) (void)j2_next_tilepart(d, &why);
  if (why) return why;
  if (d->cur->cod.sop && d->seg_end - d->seg_pos >= 6 && s[d->seg_pos] == 0xFF && s[d->seg_pos + 1] == 0x91) d->seg_pos += 6;
  j2_bio_t bio, *b = &bio;
  bio_init(b, d->hdr + d->hdr_pos, d->hdr + d->hdr_len);
  uint32_t first = d->nchunks;
  why = packet_header(d, b, res, p, layer, tp);
  if (why) return why;
  bio_align(b);
  if (b->overrun) return "JPEG 2000: packed packet headers end inside a packet header";
  size_t hp = (size_t)(b->p - d->hdr);
  if (d->cur->cod.eph && d->hdr_len - hp >= 2 && d->hdr[hp] == 0xFF && d->hdr[hp + 1] == 0x92) hp += 2;
  d->hdr_pos = hp;
  uint64_t body = 0;
  for (uint32_t k = first; k < d->nchunks; k++) body += d->chunks[k].len;
  while (body && d->seg_pos >= d->seg_end) {
    if (!j2_next_tilepart(d, &why)) return why ? why : tile_data_ends;
  }
  return packet_body(d, first, d->seg_pos);
}

static const char *read_packet(j2_dec_t *d, uint32_t c, uint32_t r, uint32_t p, uint32_t layer) {
  const j2_res_t *res = &d->tc[c].res[r];
  const j2_tccp_t *tp = &d->cur->tccp[c];
  if (d->hdr) return read_packet_packed(d, res, p, layer, tp);
  const char *why = packet_bytes(d);
  if (why) return why;
  const uint8_t *s = d->src;
  if (d->cur->cod.sop && d->seg_end - d->seg_pos >= 6 && s[d->seg_pos] == 0xFF && s[d->seg_pos + 1] == 0x91) d->seg_pos += 6;
  j2_bio_t bio, *b = &bio;
  bio_init(b, s + d->seg_pos, s + d->seg_end);
  uint32_t first = d->nchunks;
  why = packet_header(d, b, res, p, layer, tp);
  if (why) return why;
  bio_align(b);
  if (b->overrun) return tile_data_ends;
  size_t pos = (size_t)(b->p - s);
  if (d->cur->cod.eph && d->seg_end - pos >= 2 && s[pos] == 0xFF && s[pos + 1] == 0x92) pos += 2;
  return packet_body(d, first, pos);
}

/* ---- progression orders ---- */

/* One progression: layers [0, l1), resolutions [r0, r1), components [c0, c1), an order. */
typedef struct prog {
  uint32_t l1, r0, r1, c0, c1, order;
} prog_t;

/* Reads packet (c, r, p, l) unless a progression before (POC) has read it. */
static const char *packet_once(j2_dec_t *d, uint32_t c, uint32_t r, uint32_t p, uint32_t l) {
  if (d->seen) {
    uint64_t k = ((uint64_t)d->tc[c].res[r].prec0 + p) * d->cur->cod.layers + l;
    if (d->seen[k >> 3] & (1u << (k & 7))) return NULL;
    d->seen[k >> 3] |= (uint8_t)(1u << (k & 7));
  }
  return read_packet(d, c, r, p, l);
}

static const char *packets_layer_first(j2_dec_t *d, const prog_t *g) {
  bool res_first = g->order == 1;
  uint32_t n_outer = res_first ? g->r1 : g->l1, n_inner = res_first ? g->l1 : g->r1;
  for (uint32_t o = res_first ? g->r0 : 0; o < n_outer; o++)
    for (uint32_t i = res_first ? 0 : g->r0; i < n_inner; i++) {
      uint32_t l = res_first ? i : o, r = res_first ? o : i;
      for (uint32_t c = g->c0; c < g->c1; c++) {
        if (r >= d->tc[c].nres) continue;
        const j2_res_t *res = &d->tc[c].res[r];
        for (uint32_t p = 0; p < res->npx * res->npy; p++) {
          const char *why = packet_once(d, c, r, p, l);
          if (why) return why;
        }
      }
    }
  return NULL;
}

/* Does (x, y) start a precinct of (c, r)? OpenJPEG's test (pi.c), in 64 bits. */
static bool prec_at(const j2_dec_t *d, uint32_t c, uint32_t r, uint64_t x, uint64_t y, uint32_t *pno) {
  const j2_tilec_t *tc = &d->tc[c];
  const j2_res_t *res = &tc->res[r];
  unsigned lv = tc->nres - 1u - r;
  unsigned rpx = res->ppx + lv, rpy = res->ppy + lv;
  if (!res->npx || !res->npy) return false;
  if (!((y % ((uint64_t)1 << rpy) == 0) || (y == tc->r.y0 && (((uint64_t)res->r.y0 << lv) % ((uint64_t)1 << rpy)))))
    return false;
  if (!((x % ((uint64_t)1 << rpx) == 0) || (x == tc->r.x0 && (((uint64_t)res->r.x0 << lv) % ((uint64_t)1 << rpx)))))
    return false;
  uint64_t pi = (((x + ((uint64_t)1 << lv) - 1) >> lv) >> res->ppx) - (res->r.x0 >> res->ppx);
  uint64_t pj = (((y + ((uint64_t)1 << lv) - 1) >> lv) >> res->ppy) - (res->r.y0 >> res->ppy);
  if (pi >= res->npx || pj >= res->npy) return false;
  *pno = (uint32_t)(pi + pj * res->npx);
  return true;
}

static const char *layers_at(j2_dec_t *d, const prog_t *g, uint32_t c, uint32_t r, uint64_t x, uint64_t y) {
  uint32_t p;
  if (r >= d->tc[c].nres || !prec_at(d, c, r, x, y, &p)) return NULL;
  for (uint32_t l = 0; l < g->l1; l++) {
    const char *why = packet_once(d, c, r, p, l);
    if (why) return why;
  }
  return NULL;
}

/* The packets at one position (x, y) for RPCL (resolution o), PCRL, CPRL (component o). */
static const char *position_packets(j2_dec_t *d, const prog_t *g, uint32_t o, uint64_t x, uint64_t y) {
  const char *why = NULL;
  if (g->order == 2) {
    for (uint32_t c = g->c0; c < g->c1 && !why; c++) why = layers_at(d, g, c, o, x, y);
  } else if (g->order == 3) {
    for (uint32_t c = g->c0; c < g->c1 && !why; c++)
      for (uint32_t r = g->r0; r < g->r1 && !why; r++) why = layers_at(d, g, c, r, x, y);
  } else {
    for (uint32_t r = g->r0; r < g->r1 && !why; r++) why = layers_at(d, g, o, r, x, y);
  }
  return why;
}

/* RPCL (2), PCRL (3), CPRL (4): walk the tile in steps of the smallest precinct. */
static const char *packets_position(j2_dec_t *d, const prog_t *g) {
  uint64_t dx = UINT64_MAX, dy = UINT64_MAX;
  const j2_rect_t *t = &d->tc[0].r;
  for (uint32_t c = 0; c < d->siz.ncomp; c++)
    for (uint32_t r = 0; r < d->tc[c].nres; r++) {
      unsigned lv = d->tc[c].nres - 1u - r;
      uint64_t sx = (uint64_t)1 << (d->tc[c].res[r].ppx + lv), sy = (uint64_t)1 << (d->tc[c].res[r].ppy + lv);
      if (sx < dx) dx = sx;
      if (sy < dy) dy = sy;
    }
  uint32_t o0 = g->order == 2 ? g->r0 : g->order == 4 ? g->c0 : 0;
  uint32_t o1 = g->order == 2 ? g->r1 : g->order == 4 ? g->c1 : 1;
  for (uint32_t o = o0; o < o1; o++)
    for (uint64_t y = t->y0; y < t->y1; y += dy - (y % dy))
      for (uint64_t x = t->x0; x < t->x1; x += dx - (x % dx)) {
        const char *why = position_packets(d, g, o, x, y);
        if (why) return why;
      }
  return NULL;
}

static const char *run_prog(j2_dec_t *d, const prog_t *g) {
  return g->order <= 1 ? packets_layer_first(d, g) : packets_position(d, g);
}

const char *j2_tile_packets(j2_dec_t *d) {
  uint32_t nr = 0;
  for (uint32_t c = 0; c < d->siz.ncomp; c++)
    if (d->tc[c].nres > nr) nr = d->tc[c].nres;
  d->seen = NULL;
  if (!d->cur->npoc) {
    prog_t g = {d->cur->cod.layers, 0, nr, 0, d->siz.ncomp, d->cur->cod.order};
    const char *why = run_prog(d, &g);
    return why == k_stop ? NULL : why;
  }
  /* POC: each packet once, in the order of the first progression that reaches it */
  uint64_t bits = (uint64_t)d->nprec * d->cur->cod.layers;
  d->seen = pool_take(&d->pool, (bits + 7) / 8);
  if (!d->seen) return k_pool_msg;
  memset(d->seen, 0, (size_t)((bits + 7) / 8));
  d->chunks = pool_take(&d->pool, 0); /* the chunks live after it now */
  if (!d->chunks) return k_pool_msg;
  uint64_t left = (d->pool.cap - d->pool.used) / sizeof(j2_chunk_t);
  d->chunk_cap = (uint32_t)(left > UINT32_MAX - 1 ? UINT32_MAX - 1 : left);
  for (uint32_t i = 0; i < d->cur->npoc; i++) {
    const j2_poc_t *pc = &d->cur->poc[i];
    prog_t g = {pc->l1 < d->cur->cod.layers ? pc->l1 : d->cur->cod.layers, pc->r0, pc->r1 < nr ? pc->r1 : nr, pc->c0,
                pc->c1 < d->siz.ncomp ? pc->c1 : d->siz.ncomp, pc->order};
    const char *why = run_prog(d, &g);
    if (why) return why == k_stop ? NULL : why;
  }
  return NULL;
}

/* ---- code blocks into the sample planes ---- */

static void block_store(j2_dec_t *d, uint32_t c, const j2_tilec_t *tc, uint32_t r, const j2_band_t *bd,
                        const j2_rect_t *cbr) {
  uint32_t stride = tc->r.x1 - tc->r.x0;
  uint32_t ox = cbr->x0 - bd->r.x0, oy = cbr->y0 - bd->r.y0;
  if (r > 0) {
    const j2_rect_t *lo = &tc->res[r - 1].r;
    if (bd->orient & 1) ox += lo->x1 - lo->x0;
    if (bd->orient & 2) oy += lo->y1 - lo->y0;
  }
  uint32_t w = cbr->x1 - cbr->x0, h = cbr->y1 - cbr->y0;
  const int32_t *src = d->t1_data;
  if (d->cur->tccp[c].reversible) {
    int32_t *dst = d->plane[c] + (size_t)oy * stride + ox;
    for (uint32_t y = 0; y < h; y++)
      for (uint32_t x = 0; x < w; x++) dst[(size_t)y * stride + x] = src[y * w + x] / 2;
  } else {
    float *dst = (float *)d->plane[c] + (size_t)oy * stride + ox;
    float step = 0.5f * bd->step;
    for (uint32_t y = 0; y < h; y++)
      for (uint32_t x = 0; x < w; x++) dst[(size_t)y * stride + x] = (float)src[y * w + x] * step;
  }
}

static const char *pband_blocks(j2_dec_t *d, uint32_t c, uint32_t r, const j2_band_t *bd, const j2_pband_t *pb) {
  const j2_tccp_t *tp = &d->cur->tccp[c];
  for (uint32_t i = 0; i < pb->ncx * pb->ncy; i++) {
    uint32_t bx = pb->cbx0 + ((i % pb->ncx) << bd->xcb), by = pb->cby0 + ((i / pb->ncx) << bd->ycb);
    j2_rect_t cbr = {bx > pb->r.x0 ? bx : pb->r.x0, by > pb->r.y0 ? by : pb->r.y0, 0, 0};
    uint64_t ex = (uint64_t)bx + (1u << bd->xcb), ey = (uint64_t)by + (1u << bd->ycb);
    cbr.x1 = ex < pb->r.x1 ? (uint32_t)ex : pb->r.x1;
    cbr.y1 = ey < pb->r.y1 ? (uint32_t)ey : pb->r.y1;
    const char *why = j2_t1_decode(d, &d->cb[pb->cb0 + i], cbr.x1 - cbr.x0, cbr.y1 - cbr.y0, bd->orient, tp->cbsty, tp->roishift);
    if (why) return why;
    block_store(d, c, &d->tc[c], r, bd, &cbr);
  }
  return NULL;
}

const char *j2_tile_blocks(j2_dec_t *d) {
  for (uint32_t c = 0; c < d->nout; c++) {
    const j2_tilec_t *tc = &d->tc[c];
    size_t area = (size_t)(tc->r.x1 - tc->r.x0) * (tc->r.y1 - tc->r.y0);
    memset(d->plane[c], 0, area * sizeof(int32_t));
    for (uint32_t r = 0; r < tc->nres; r++) {
      const j2_res_t *res = &tc->res[r];
      for (uint32_t p = 0; p < res->npx * res->npy; p++)
        for (uint32_t b = 0; b < res->nbands; b++) {
          const char *why = pband_blocks(d, c, r, &res->band[b], &d->pb[res->pb0 + p * res->nbands + b]);
          if (why) return why;
        }
    }
    if (d->cur->tccp[c].reversible) j2_idwt53(d->plane[c], tc->r.x1 - tc->r.x0, tc, d->dwt_tmp);
    else j2_idwt97((float *)d->plane[c], tc->r.x1 - tc->r.x0, tc, (float *)d->dwt_tmp);
  }
  return NULL;
}
