/* JPEG 2000 tier-1: the MQ arithmetic decoder (T.800 Annex C) and the code-block coding
 * passes (Annex D): significance propagation, magnitude refinement and cleanup with run-length
 * mode, and every code-block style flag (selective bypass, context reset, termination on each
 * pass, vertically causal contexts, segmentation symbols; predictable termination needs nothing
 * from a decoder). Coefficients are reconstructed like OpenJPEG: one extra fraction bit and the
 * mid-point of the last decoded interval, so truncated (lossy) code blocks match it. */
#include "kernels/image_jp2_internal.h"

#include <string.h>

/* Table C.2: Qe, next state on MPS, next state on LPS, MPS switch. */
static const uint16_t mq_qe[47] = {
    0x5601, 0x3401, 0x1801, 0x0AC1, 0x0521, 0x0221, 0x5601, 0x5401, 0x4801, 0x3801, 0x3001, 0x2401,
    0x1C01, 0x1601, 0x5601, 0x5401, 0x5101, 0x4801, 0x3801, 0x3401, 0x3001, 0x2801, 0x2401, 0x2201,
    0x1C01, 0x1801, 0x1601, 0x1401, 0x1201, 0x1101, 0x0AC1, 0x09C1, 0x08A1, 0x0521, 0x0441, 0x02A1,
    0x0221, 0x0141, 0x0111, 0x0085, 0x0049, 0x0025, 0x0015, 0x0009, 0x0005, 0x0001, 0x5601};
static const uint8_t mq_nmps[47] = {1,  2,  3,  4,  5,  38, 7,  8,  9,  10, 11, 12, 13, 29, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
                                    33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 45, 46};
static const uint8_t mq_nlps[47] = {1,  6,  9,  12, 29, 33, 6,  14, 14, 14, 17, 18, 20, 21, 14, 14,
                                    15, 16, 17, 18, 19, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                                    30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 46};
static const uint8_t mq_switch[47] = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

#define CTX_RL 17
#define CTX_UNI 18
#define NCTX 19

/* Sample flags (one byte each, with a one-sample border). */
#define F_SIG 1
#define F_NEG 2
#define F_VISIT 4
#define F_REF 8

typedef struct mq {
  const uint8_t *p, *end; /* the segment; bytes past end read as 0xFF */
  uint32_t a, c, ct;
  uint8_t st[NCTX], mps[NCTX];
} mq_t;

static inline uint32_t mq_byte(const mq_t *m, const uint8_t *p) { return p < m->end ? *p : 0xFF; }

static inline void mq_bytein(mq_t *m) {
  if (mq_byte(m, m->p) == 0xFF) {
    uint32_t b1 = mq_byte(m, m->p + 1);
    if (b1 > 0x8F) {
      m->c += 0xFF00;
      m->ct = 8;
    } else {
      m->p++;
      m->c += b1 << 9;
      m->ct = 7;
    }
  } else {
    m->p++;
    m->c += mq_byte(m, m->p) << 8;
    m->ct = 8;
  }
}

static void mq_init(mq_t *m, const uint8_t *p, uint32_t len) {
  m->p = p;
  m->end = p + len;
  m->c = mq_byte(m, p) << 16;
  mq_bytein(m);
  m->c <<= 7;
  m->ct -= 7;
  m->a = 0x8000;
}

static void mq_reset(mq_t *m) {
  memset(m->st, 0, sizeof m->st);
  memset(m->mps, 0, sizeof m->mps);
  m->st[0] = 4;
  m->st[CTX_RL] = 3;
  m->st[CTX_UNI] = 46;
}

static inline void mq_renorm(mq_t *m) {
  do {
    if (m->ct == 0) mq_bytein(m);
    m->a <<= 1;
    m->c <<= 1;
    m->ct--;
  } while (m->a < 0x8000);
}

static inline int mq_decode(mq_t *m, int cx) {
  uint32_t s = m->st[cx], qe = mq_qe[s];
  int d;
  m->a -= qe;
  if ((m->c >> 16) < qe) { /* LPS exchange */
    if (m->a < qe) {
      d = m->mps[cx];
      m->st[cx] = mq_nmps[s];
    } else {
      d = !m->mps[cx];
      if (mq_switch[s]) m->mps[cx] = (uint8_t)!m->mps[cx];
      m->st[cx] = mq_nlps[s];
    }
    m->a = qe;
    mq_renorm(m);
  } else {
    m->c -= qe << 16;
    if ((m->a & 0x8000) == 0) { /* MPS exchange */
      if (m->a < qe) {
        d = !m->mps[cx];
        if (mq_switch[s]) m->mps[cx] = (uint8_t)!m->mps[cx];
        m->st[cx] = mq_nlps[s];
      } else {
        d = m->mps[cx];
        m->st[cx] = mq_nmps[s];
      }
      mq_renorm(m);
    } else {
      d = m->mps[cx];
    }
  }
  return d;
}

/* Raw (bypass) segments: bits MSB first, a stuffed 0 bit after each 0xFF. */
static void raw_init(mq_t *m, const uint8_t *p, uint32_t len) {
  m->p = p;
  m->end = p + len;
  m->c = 0;
  m->ct = 0;
}

static inline int raw_decode(mq_t *m) {
  if (m->ct == 0) {
    if (m->c == 0xFF) {
      uint32_t b = mq_byte(m, m->p);
      if (b > 0x8F) {
        m->c = 0xFF;
        m->ct = 8;
      } else {
        m->c = b;
        m->p++;
        m->ct = 7;
      }
    } else {
      m->c = mq_byte(m, m->p);
      m->p++;
      m->ct = 8;
    }
  }
  m->ct--;
  return (int)((m->c >> m->ct) & 1);
}

typedef struct t1 {
  mq_t mq;
  int32_t *data;
  uint8_t *flags;
  uint32_t w, h, fs; /* flags stride = w + 2 */
  uint8_t orient, vsc;
} t1_t;

#define FL(t, x, y) ((t)->flags[((y) + 1) * (t)->fs + (x) + 1])

/* Neighbour significance: h (left/right), v (up/down), d (diagonals). With vertically causal
 * contexts the row below a stripe's last row counts as insignificant. */
static inline void t1_nbr(const t1_t *t, uint32_t x, uint32_t y, int *h, int *v, int *d) {
  const uint8_t *f = &t->flags[(y + 1) * t->fs + x + 1];
  const uint8_t *up = f - t->fs, *dn = f + t->fs;
  bool causal = t->vsc && (y & 3) == 3;
  *h = (f[-1] & F_SIG) + (f[1] & F_SIG);
  *v = (up[0] & F_SIG) + (causal ? 0 : (dn[0] & F_SIG));
  *d = (up[-1] & F_SIG) + (up[1] & F_SIG) + (causal ? 0 : (dn[-1] & F_SIG) + (dn[1] & F_SIG));
}

static int t1_zc_ctx(const t1_t *t, uint32_t x, uint32_t y) {
  int h, v, d;
  t1_nbr(t, x, y, &h, &v, &d);
  if (t->orient == 1) {
    int s = h;
    h = v;
    v = s;
  }
  if (t->orient == 3) {
    int hv = h + v;
    if (d >= 3) return 8;
    if (d == 2) return hv >= 1 ? 7 : 6;
    if (d == 1) return hv >= 2 ? 5 : hv == 1 ? 4 : 3;
    return hv >= 2 ? 2 : hv;
  }
  if (h == 2) return 8;
  if (h == 1) return v >= 1 ? 7 : d >= 1 ? 6 : 5;
  if (v == 2) return 4;
  if (v == 1) return 3;
  return d >= 2 ? 2 : d;
}

static inline int t1_contrib(uint8_t f) { return (f & F_SIG) ? ((f & F_NEG) ? -1 : 1) : 0; }

/* Table D.3: the sign context and the bit to xor with. */
static int t1_sign(t1_t *t, uint32_t x, uint32_t y, bool raw) {
  if (raw) return raw_decode(&t->mq);
  const uint8_t *f = &t->flags[(y + 1) * t->fs + x + 1];
  bool causal = t->vsc && (y & 3) == 3;
  int h = t1_contrib(f[-1]) + t1_contrib(f[1]);
  int v = t1_contrib(f[-(int)t->fs]) + (causal ? 0 : t1_contrib(f[t->fs]));
  h = h < -1 ? -1 : h > 1 ? 1 : h;
  v = v < -1 ? -1 : v > 1 ? 1 : v;
  int ctx = h == 0 ? (v == 0 ? 9 : 10) : (v == 0 ? 12 : (h == v ? 13 : 11));
  int xr = h == 0 ? (v < 0) : (h < 0);
  return mq_decode(&t->mq, ctx) ^ xr;
}

static inline void t1_set_sig(t1_t *t, uint32_t x, uint32_t y, int neg, int32_t oneplushalf) {
  FL(t, x, y) |= (uint8_t)(F_SIG | (neg ? F_NEG : 0));
  t->data[y * t->w + x] = neg ? -oneplushalf : oneplushalf;
}

static void t1_sigpass(t1_t *t, int bp, bool raw) {
  int32_t one = (int32_t)1 << bp, oph = one | (one >> 1);
  for (uint32_t k = 0; k < t->h; k += 4)
    for (uint32_t x = 0; x < t->w; x++)
      for (uint32_t y = k; y < k + 4 && y < t->h; y++) {
        uint8_t f = FL(t, x, y);
        if (f & (F_SIG | F_VISIT)) continue;
        int ctx = t1_zc_ctx(t, x, y);
        if (ctx == 0) continue;
        int bit = raw ? raw_decode(&t->mq) : mq_decode(&t->mq, ctx);
        if (bit) t1_set_sig(t, x, y, t1_sign(t, x, y, raw), oph);
        FL(t, x, y) |= F_VISIT;
      }
}

static void t1_refpass(t1_t *t, int bp, bool raw) {
  int32_t half = ((int32_t)1 << bp) >> 1;
  for (uint32_t k = 0; k < t->h; k += 4)
    for (uint32_t x = 0; x < t->w; x++)
      for (uint32_t y = k; y < k + 4 && y < t->h; y++) {
        uint8_t f = FL(t, x, y);
        if ((f & (F_SIG | F_VISIT)) != F_SIG) continue;
        int bit;
        if (raw) {
          bit = raw_decode(&t->mq);
        } else {
          int ctx = 16;
          if (!(f & F_REF)) {
            int h, v, d;
            t1_nbr(t, x, y, &h, &v, &d);
            ctx = (h + v + d) ? 15 : 14;
          }
          bit = mq_decode(&t->mq, ctx);
        }
        int32_t *dp = &t->data[y * t->w + x];
        *dp += ((bit ^ (*dp < 0)) ? half : -half);
        FL(t, x, y) |= F_REF;
      }
}

/* The cleanup pass decodes, for one sample not yet coded in this bit-plane, its significance. */
static void t1_clean_one(t1_t *t, uint32_t x, uint32_t y, int32_t oph) {
  uint8_t f = FL(t, x, y);
  if (!(f & (F_SIG | F_VISIT)) && mq_decode(&t->mq, t1_zc_ctx(t, x, y))) t1_set_sig(t, x, y, t1_sign(t, x, y, false), oph);
}

static bool t1_rl_ok(const t1_t *t, uint32_t x, uint32_t k) {
  for (uint32_t y = k; y < k + 4; y++) {
    if (FL(t, x, y) & (F_SIG | F_VISIT)) return false;
    int h, v, d;
    t1_nbr(t, x, y, &h, &v, &d);
    if (h + v + d) return false;
  }
  return true;
}

static void t1_cleanpass(t1_t *t, int bp, bool segsym) {
  int32_t one = (int32_t)1 << bp, oph = one | (one >> 1);
  for (uint32_t k = 0; k < t->h; k += 4)
    for (uint32_t x = 0; x < t->w; x++) {
      uint32_t y = k;
      if (k + 4 <= t->h && t1_rl_ok(t, x, k)) {
        if (!mq_decode(&t->mq, CTX_RL)) continue;
        uint32_t r = (uint32_t)mq_decode(&t->mq, CTX_UNI) << 1;
        r |= (uint32_t)mq_decode(&t->mq, CTX_UNI);
        y = k + r;
        t1_set_sig(t, x, y, t1_sign(t, x, y, false), oph);
        y++;
      }
      for (; y < k + 4 && y < t->h; y++) t1_clean_one(t, x, y, oph);
    }
  for (uint32_t y = 0; y < t->h; y++)
    for (uint32_t x = 0; x < t->w; x++) FL(t, x, y) &= (uint8_t)~F_VISIT;
  if (segsym) {
    for (int i = 0; i < 4; i++) (void)mq_decode(&t->mq, CTX_UNI);
  }
}

/* Gathers the block's chunks into d->t1_buf: segment i is bytes [seg[3i], +seg[3i+1]) with
 * seg[3i+2] passes. Returns the segment count, or -1 when the data is too large. */
static int t1_gather(j2_dec_t *d, const j2_cblk_t *cb) {
  uint32_t pos = 0;
  int nseg = 0;
  int last_start = -1;
  for (uint32_t ci = cb->head; ci; ci = d->chunks[ci - 1].next) {
    const j2_chunk_t *c = &d->chunks[ci - 1];
    if (c->len > J2_CB_MAX_BYTES - pos) return -1;
    memcpy(d->t1_buf + pos, d->src + c->off, c->len);
    if ((int)c->seg_start != last_start) {
      if (nseg >= J2_MAX_PASSES) return -1;
      d->t1_seg[3 * nseg] = pos;
      d->t1_seg[3 * nseg + 1] = 0;
      d->t1_seg[3 * nseg + 2] = 0;
      nseg++;
      last_start = c->seg_start;
    }
    d->t1_seg[3 * (nseg - 1) + 1] += c->len;
    d->t1_seg[3 * (nseg - 1) + 2] += c->passes;
    pos += c->len;
  }
  return nseg;
}

/* Decodes one code block into d->t1_data (w * h, row-major, OpenJPEG's doubled scale). */
const char *j2_t1_decode(j2_dec_t *d, const j2_cblk_t *cb, uint32_t w, uint32_t h, uint8_t orient, uint8_t cbsty,
                         uint8_t roishift) {
  t1_t t1, *t = &t1; /* under 512 bytes */
  memset(d->t1_data, 0, (size_t)w * h * sizeof(int32_t));
  memset(d->t1_flags, 0, (size_t)(w + 2) * (h + 2));
  if (!cb->npasses) return NULL;
  int nseg = t1_gather(d, cb);
  if (nseg < 0) return "JPEG 2000: a code block's data is larger than 64 KiB";
  t->data = d->t1_data;
  t->flags = d->t1_flags;
  t->w = w;
  t->h = h;
  t->fs = w + 2;
  t->orient = orient;
  t->vsc = (cbsty & J2_CB_VSC) != 0;
  mq_reset(&t->mq);
  int bpp1 = (int)roishift + cb->numbps; /* bit-plane + 1, OpenJPEG's doubled scale */
  if (bpp1 >= 31) return "JPEG 2000: more than 30 magnitude bit-planes in a code block";
  int passtype = 2;
  uint32_t pass = 0;
  for (int s = 0; s < nseg; s++) {
    const uint8_t *p = d->t1_buf + d->t1_seg[3 * s];
    uint32_t len = d->t1_seg[3 * s + 1], np = d->t1_seg[3 * s + 2];
    bool seg_raw = (cbsty & J2_CB_BYPASS) && bpp1 <= (int)cb->numbps - 4 && passtype < 2;
    if (seg_raw) raw_init(&t->mq, p, len);
    else mq_init(&t->mq, p, len);
    for (uint32_t i = 0; i < np && bpp1 >= 1; i++, pass++) {
      if (passtype == 0) t1_sigpass(t, bpp1, seg_raw);
      else if (passtype == 1) t1_refpass(t, bpp1, seg_raw);
      else t1_cleanpass(t, bpp1, (cbsty & J2_CB_SEGSYM) != 0);
      if ((cbsty & J2_CB_RESET) && !seg_raw) mq_reset(&t->mq);
      if (++passtype == 3) {
        passtype = 0;
        bpp1--;
      }
    }
  }
  if (roishift) {
    int32_t thresh = (int32_t)1 << roishift;
    for (uint32_t i = 0; i < w * h; i++) {
      int32_t v = d->t1_data[i], mag = v < 0 ? -v : v;
      if (mag >= thresh) {
        mag >>= roishift;
        d->t1_data[i] = v < 0 ? -mag : mag;
      }
    }
  }
  return NULL;
}
