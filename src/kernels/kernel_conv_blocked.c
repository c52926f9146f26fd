/* conv_blocked (kernel_conv_blocked.h): conv over channel-blocked tensors, through the kernel
 * variant's micro-kernel (kernel_isa.h's conv_blocked_ukr_f32, kernel_conv_blocked_ukr.h).
 *
 * The driver cuts the output plane into rectangles whose positions see the same taps: the
 * rows whose windows reach above or below the input each on their own, the others together,
 * and likewise the columns, so the large interior rectangle takes whole tiles of positions
 * with every tap, and a border position takes only the taps inside the input (no padding is
 * copied, nothing reads outside the input). A group of fewer output blocks than the tile's
 * width takes run tiles of more positions where the rectangle has them consecutive
 * (cb_run_len, kernel_isa.h's conv_blocked_run_ukr_f32). For each group of output blocks (the
 * variant's tile width), a band of output rows at a time (or band by band, each band's groups in turn,
 * where that reads fewer bytes: cb_band_outer), the input blocks go in chunks (the partial
 * sums stay in y between chunks: the same bits as one pass), so a chunk's weights stay in
 * the level-1/level-2 caches while the band's positions stream past them (smaller chunks for
 * bands of few positions: CB_CHUNK_FEW_BYTES). While a chunk runs,
 * the next chunk's weights are fetched into the level-2 cache, a slice after each tile: in a
 * network the weights come from memory on every call (ResNet-50 streams ~100 MB of them),
 * and the hardware prefetchers lose each of the chunk's runs at every 4 KiB boundary.
 * Measured on ResNet-50 (AVX-512, whole network, alternating builds): 5-8 % faster, its 3x3
 * convs on 14x14 and 7x7 planes 10-20 %; with warm weights (one layer called in a loop) the
 * 1x1 convs on 7x7 planes are ~5 % slower (the prefetches take fill buffers from the
 * input's misses), which a network never sees. Variants measured and not kept: only the
 * first lines of each 4 KiB page (half the gain), prefetcht2 (the same as t1), prefetchnta
 * (slower). Tried and not kept (no change beyond the noise on ResNet-50's 7x7 and 14x14
 * stages, AVX-512): a zero-padded copy of small padded planes in planned scratch, so that
 * border positions fill whole tiles; a few prefetched lines per input block inside the
 * micro-kernel. Runtime side: no allocation, no stdio; the tap tables are on the stack (at
 * most BERTH_CONV_BLOCKED_MAX_TAPS). */
#include "kernel_conv_blocked.h"

#include "kernel_isa.h"
#include "kernel_util.h"
#include "op_table.h"

#include <string.h>

enum { CB_STRIDES, CB_PADS, CB_DILATIONS, CB_GROUP, CB_ACT, CB_ACT_ALPHA, CB_ACT_BETA, CB_WSHAPE };

/* Bytes of one chunk's weights (for the tile's output blocks) the driver aims at, and of a
 * band's outputs (for the tile's output blocks). A band of few positions (a 7x7 plane) reuses
 * a chunk's weights over few tiles, and they must stay in L1 between them: half the chunk
 * (AVX-512, one layer, the sizes alternated: ResNet-50's 2048 -> 512 1x1 on 7x7 592-631 ->
 * 534-541 us, 512 -> 2048 600-603 -> 553-617, its 3x3 512 -> 512 the same; on planes of 169
 * positions and more 24 KiB was the same as 48 or slower: 256 -> 64 on 56x56 565 -> 585). */
#define CB_CHUNK_BYTES (48 * 1024)
#define CB_CHUNK_FEW_BYTES (24 * 1024)
#define CB_FEW_POSITIONS 64
#define CB_BAND_BYTES (96 * 1024)

void berth_conv_blocked_pack_weights(const berth_type_t *w, const float *src, float *dst, berth_type_t *packed) {
  const int64_t m = w->dims[0], c = w->dims[1], kk = w->dims[2] * w->dims[3], B = BERTH_CONV_BLOCK;
  const int64_t P = c < B ? c : B; /* channels per input block: the plain input's C are one */
  for (int64_t ob = 0; ob < m / B; ob++)
    for (int64_t ib = 0; ib < c / P; ib++)
      for (int64_t t = 0; t < kk; t++)
        for (int64_t ic = 0; ic < P; ic++)
          for (int64_t l = 0; l < B; l++)
            dst[(((ob * (c / P) + ib) * kk + t) * P + ic) * B + l] = src[((ob * B + l) * c + ib * P + ic) * kk + t];
  berth_kernel_type_init(packed, BERTH_DTYPE_F32, 4);
  packed->dims[0] = m / B;
  packed->dims[1] = c / P;
  packed->dims[2] = kk;
  packed->dims[3] = P * B;
}

static int64_t cb_chunk_of(int64_t bytes, int64_t kk, int64_t ob) {
  const int64_t c = bytes / (kk * BERTH_CONV_BLOCK * BERTH_CONV_BLOCK * (int64_t)sizeof(float) * ob);
  return c < 1 ? 1 : c;
}

int64_t berth_conv_blocked_chunk(int64_t kk, int64_t ob) { return cb_chunk_of(CB_CHUNK_BYTES, kk, ob); }

/* The logical conv operand types of a conv_blocked call, checked: conv's own infer decides
 * the geometry, so the two ops agree on every attribute. */
static berth_status_t cb_types(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                               berth_type_t *out, berth_diag_t *diag) {
  char sa[160], sb[160];
  const berth_type_t *x = &in[0], *wb = &in[1];
  const berth_attr_value_t *ws = &attrs[CB_WSHAPE];
  BERTH_TRY(berth_kernel_check_ints("conv_blocked", "wshape", ws, diag));
  /* blocked [N, C/16, H, W, 16], or plain [N, C, H, W] with C < 16 (one block of C) */
  const bool plain = x->rank == 4;
  if (x->dtype != BERTH_DTYPE_F32 || (x->rank != 5 && !plain) || (!plain && x->dims[4] != BERTH_CONV_BLOCK) ||
      (plain && (x->dims[1] < 1 || x->dims[1] >= BERTH_CONV_BLOCK)))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv_blocked: input %s, expected f32 [N, C/16, H, W, 16], or [N, C, H, W] with C from 1 to 15",
                      berth_type_format(x, sa, sizeof sa));
  const int64_t cin = plain ? x->dims[1] : x->dims[1] * BERTH_CONV_BLOCK, cpb = plain ? cin : BERTH_CONV_BLOCK;
  if (ws->n != 4 || ws->ints[0] < BERTH_CONV_BLOCK || ws->ints[0] % BERTH_CONV_BLOCK || ws->ints[1] != cin ||
      ws->ints[2] < 1 || ws->ints[3] < 1 || ws->ints[0] > BERTH_MAX_DIM || ws->ints[2] > BERTH_CONV_BLOCKED_MAX_TAPS ||
      ws->ints[3] > BERTH_CONV_BLOCKED_MAX_TAPS || ws->ints[2] * ws->ints[3] > BERTH_CONV_BLOCKED_MAX_TAPS)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv_blocked: wshape must be [M, C, KH, KW] with M a positive multiple of 16, C = %lld (input "
                      "%s), and KH * KW from 1 to %d",
                      (long long)cin, berth_type_format(x, sa, sizeof sa), BERTH_CONV_BLOCKED_MAX_TAPS);
  if (attrs[CB_GROUP].i != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_blocked: group is %lld, expected 1",
                      (long long)attrs[CB_GROUP].i);
  if (plain && n_in == 4)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_blocked: a plain input takes no residual");
  const int64_t m = ws->ints[0], c = ws->ints[1], kk = ws->ints[2] * ws->ints[3];
  if (wb->dtype != BERTH_DTYPE_F32 || wb->rank != 4 || wb->dims[0] != m / BERTH_CONV_BLOCK ||
      wb->dims[1] != c / cpb || wb->dims[2] != kk || wb->dims[3] != cpb * BERTH_CONV_BLOCK)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "conv_blocked: packed weights %s, expected f32 [%lld, %lld, %lld, %lld] for wshape [%lld, %lld, "
                      "%lld, %lld]",
                      berth_type_format(wb, sa, sizeof sa), (long long)(m / BERTH_CONV_BLOCK), (long long)(c / cpb),
                      (long long)kk, (long long)(cpb * BERTH_CONV_BLOCK), (long long)m, (long long)c,
                      (long long)ws->ints[2], (long long)ws->ints[3]);
  berth_type_t tin[4];
  berth_kernel_type_init(&tin[0], BERTH_DTYPE_F32, 4);
  tin[0].dims[0] = x->dims[0];
  tin[0].dims[1] = c;
  tin[0].dims[2] = x->dims[2];
  tin[0].dims[3] = x->dims[3];
  berth_kernel_type_init(&tin[1], BERTH_DTYPE_F32, 4);
  for (int d = 0; d < 4; d++) tin[1].dims[d] = ws->ints[d];
  if (n_in >= 3) {
    BERTH_TRY(berth_kernel_check_same_dtype("conv_blocked", in, 0, 2, diag));
    tin[2] = in[2];
  }
  berth_type_t lo;
  berth_status_t st = berth_conv_infer(attrs, tin, n_in >= 3 ? 3 : 2, &lo, diag);
  if (st) return berth_fail_prefix(diag, st, "conv_blocked (as conv)");
  /* the driver's offsets run over the padded plane (a window's origin may lie in the padding):
   * its positions times 16 must stay far inside int64 */
  const berth_attr_value_t *pd = &attrs[CB_PADS];
  const int64_t ph = x->dims[2] + (pd->n ? pd->ints[0] + pd->ints[2] : 0);
  const int64_t pw = x->dims[3] + (pd->n ? pd->ints[1] + pd->ints[3] : 0);
  if (ph > 0 && pw > ((int64_t)1 << 56) / ph)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE,
                      "conv_blocked: input %s padded to %lld x %lld positions, expected at most 2^56 (a padding that large "
                      "runs as conv)",
                      berth_type_format(x, sa, sizeof sa), (long long)ph, (long long)pw);
  berth_kernel_type_init(out, BERTH_DTYPE_F32, 5);
  out->dims[0] = lo.dims[0];
  out->dims[1] = m / BERTH_CONV_BLOCK;
  out->dims[2] = lo.dims[2];
  out->dims[3] = lo.dims[3];
  out->dims[4] = BERTH_CONV_BLOCK;
  if (n_in == 4 && !berth_type_equal(&in[3], out))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "conv_blocked: residual %s, expected the result's type %s",
                      berth_type_format(&in[3], sa, sizeof sa), berth_type_format(out, sb, sizeof sb));
  return BERTH_OK;
}

static berth_status_t cb_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in,
                               berth_type_t *out, berth_diag_t *diag) {
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_conv_blocked, in, n_in, diag));
  BERTH_TRY(cb_types(attrs, in, n_in, out, diag));
  return berth_kernel_check_output("conv_blocked", out, diag);
}

/* The geometry of one spatial dim: input i, output o, kernel k, stride s, dilation d, padding
 * p at the start. */
typedef struct cb_dim {
  int64_t i, o, k, s, d, p;
} cb_dim_t;

/* The taps [*k0, *k1) of output index o that fall inside the input. */
static void cb_taps(const cb_dim_t *g, int64_t o, int64_t *k0, int64_t *k1) {
  const int64_t start = o * g->s - g->p; /* the window's first input index */
  int64_t a = 0, b = g->k;
  if (start < 0) a = (-start + g->d - 1) / g->d;
  const int64_t last = start + (g->k - 1) * g->d; /* the window's last input index */
  if (last >= g->i) b = g->k - ((last - g->i) / g->d + 1);
  if (b < a) b = a;
  *k0 = a;
  *k1 = b;
}

/* The end of the run of output indices from o on that see the same taps. */
static int64_t cb_run_end(const cb_dim_t *g, int64_t o) {
  int64_t a, b;
  cb_taps(g, o, &a, &b);
  int64_t e = o + 1;
  for (; e < g->o; e++) {
    int64_t a2, b2;
    cb_taps(g, e, &a2, &b2);
    if (a2 != a || b2 != b) break;
  }
  return e;
}

typedef struct cb_plan {
  const berth_kernel_isa_t *isa;
  void (*ukr)(const berth_conv_blk_args_t *, int64_t, const int64_t *, const int64_t *); /* the variant's, for the input */
  cb_dim_t h, w;
  int64_t cb, plane, oplane; /* input blocks, floats per input block, per output block */
  int64_t ps, cpb, cs;       /* floats between input positions, channels per input block, floats
                              * between them: 16, 16, 1 blocked; 1, C, H * W for a plain input */
  int64_t kw, kk, wblk;      /* kernel width, taps, weights per output and input block */
  int64_t mb, ob_max;        /* output blocks, the variant tile's output blocks */
  int64_t chunk, band;       /* input blocks per chunk, output rows per band */
  const float *wp, *bias;    /* packed weights, bias (or NULL) */
  int act;
  float alpha, beta;
} cb_plan_t;

/* The next chunk's weights, fetched into the level-2 cache a slice after each tile of the
 * current chunk: nob runs of len floats, wob apart (none: nob 0). */
typedef struct cb_prefetch {
  const float *w;
  int64_t nob, len, wob;
  int64_t tile, tiles; /* the tiles of the current chunk: done, in all */
  int64_t line, per, extra; /* the next line; lines per tile, one more for the first extra tiles */
} cb_prefetch_t;

/* The slices of the current chunk's tiles set (cb_chunk, once it has counted them): no
 * division per tile (two of them per tile cost a 16-channel conv ~4 % of its time). */
static void cb_prefetch_start(cb_prefetch_t *f) {
  const int64_t lines = (f->len + 15) / 16;
  f->tile = f->line = 0;
  f->per = f->tiles ? lines / f->tiles : 0;
  f->extra = f->tiles ? lines % f->tiles : 0;
}

static void cb_prefetch_step(cb_prefetch_t *f) {
#if defined(__GNUC__)
  if (!f->nob || f->tile >= f->tiles) return;
  const int64_t l0 = f->line, l1 = l0 + f->per + (f->tile < f->extra);
  for (int64_t b = 0; b < f->nob; b++)
    for (int64_t l = l0; l < l1; l++) __builtin_prefetch(f->w + b * f->wob + l * 16, 0, 2);
  f->line = l1;
  f->tile++;
#else
  (void)f;
#endif
}

/* The positions of a run tile (kernel_isa.h's conv_blocked_run_ukr_f32) for nob output
 * blocks: as many as a full tile's accumulators hold, where that is more than a tile's
 * positions and the input is blocked; 0 where none runs. Measured (AVX-512, one layer, the
 * two forms alternated): SqueezeNet's 64 -> 16 1x1 on 55x55 58 -> 41 us, 128 -> 32 on 27x27
 * 38 -> 30.5, 256 -> 48 on 13x13 24 -> 21, a 64 -> 16 3x3 on 55x55 380 -> 319; in the network
 * its six squeeze convs 375 -> 313 us (AVX2, 64 -> 16: 77 -> 63 us). */
static int64_t cb_run_len(const cb_plan_t *p, int64_t nob) {
  const int64_t P = p->isa->conv_blocked_p, R = P * p->ob_max / nob;
  return p->isa->conv_blocked_run_ukr_f32 && p->ps == BERTH_CONV_BLOCK && p->w.s == 1 && R > P ? R : 0;
}

/* Rows [r0, r1) x columns [c0, c1), all seeing the same taps, for a's output blocks and
 * input blocks. */
static void cb_rect(const cb_plan_t *p, berth_conv_blk_args_t *a, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                    cb_prefetch_t *f) {
  int64_t kh0, kh1, kw0, kw1;
  cb_taps(&p->h, r0, &kh0, &kh1);
  cb_taps(&p->w, c0, &kw0, &kw1);
  int64_t to[BERTH_CONV_BLOCKED_MAX_TAPS], tw[BERTH_CONV_BLOCKED_MAX_TAPS];
  int64_t nt = 0;
  for (int64_t i = kh0; i < kh1; i++)
    for (int64_t j = kw0; j < kw1; j++, nt++) {
      to[nt] = (i * p->h.d * p->w.i + j * p->w.d) * p->ps;
      tw[nt] = (i * p->kw + j) * p->cpb * BERTH_CONV_BLOCK;
    }
  a->to = to;
  a->tw = tw;
  a->nt = nt;
  /* positions in order along the rows, from (r, c): a run tile (R > 0) where R of them are
   * consecutive in the input and the output (along one row, or across whole rows where an
   * input row is an output row), else tiles of the variant's width */
  const int64_t P = p->isa->conv_blocked_p, R = cb_run_len(p, a->nob), width = c1 - c0;
  const bool rows_join = c0 == 0 && c1 == p->w.o && p->w.p == 0 && p->h.s * p->w.i == p->w.o;
  int64_t xo[8], yo[8];
  int64_t np = 0, r = r0, c = c0;
  while (r < r1) {
    if (np == 0 && R && (r1 - r) * width - (c - c0) >= R && (c + R <= c1 || rows_join)) {
      p->isa->conv_blocked_run_ukr_f32(a, ((r * p->h.s - p->h.p) * p->w.i + c - p->w.p) * p->ps,
                                        (r * p->w.o + c) * BERTH_CONV_BLOCK);
      cb_prefetch_step(f);
      const int64_t at = c - c0 + R;
      r += at / width;
      c = c0 + at % width;
      continue;
    }
    /* the window's origin may lie in the padding; every tap added to it lands inside */
    xo[np] = ((r * p->h.s - p->h.p) * p->w.i + c * p->w.s - p->w.p) * p->ps;
    yo[np] = (r * p->w.o + c) * BERTH_CONV_BLOCK;
    if (++np == P) {
      p->ukr(a, np, xo, yo);
      cb_prefetch_step(f);
      np = 0;
    }
    if (++c == c1) c = c0, r++;
  }
  if (np) {
    p->ukr(a, np, xo, yo);
    cb_prefetch_step(f);
  }
}

/* The plan of a call that infer accepted. */
static void cb_plan_init(const berth_kernel_call_t *call, cb_plan_t *p) {
  const berth_attr_value_t *at = call->attrs;
  const berth_type_t *xt = call->in[0].type, *ot = call->out[0].type;
  const berth_attr_value_t *st = &at[CB_STRIDES], *pd = &at[CB_PADS], *dl = &at[CB_DILATIONS];
  p->isa = berth_kernel_isa();
  p->h = (cb_dim_t){xt->dims[2], ot->dims[2], at[CB_WSHAPE].ints[2], st->n ? st->ints[0] : 1, dl->n ? dl->ints[0] : 1,
                    pd->n ? pd->ints[0] : 0};
  p->w = (cb_dim_t){xt->dims[3], ot->dims[3], at[CB_WSHAPE].ints[3], st->n ? st->ints[1] : 1, dl->n ? dl->ints[1] : 1,
                    pd->n ? pd->ints[1] : 0};
  const bool plain = xt->rank == 4;
  p->cb = plain ? 1 : xt->dims[1];
  p->ps = plain ? 1 : BERTH_CONV_BLOCK;
  p->cpb = plain ? xt->dims[1] : BERTH_CONV_BLOCK;
  p->cs = plain ? p->h.i * p->w.i : 1;
  p->plane = p->h.i * p->w.i * BERTH_CONV_BLOCK;
  p->oplane = p->h.o * p->w.o * BERTH_CONV_BLOCK;
  p->kw = p->w.k;
  p->kk = p->h.k * p->w.k;
  p->wblk = p->kk * p->cpb * BERTH_CONV_BLOCK;
  p->ukr = plain ? p->isa->conv_blocked_plain_ukr_f32 : p->isa->conv_blocked_ukr_f32;
  p->mb = ot->dims[1];
  p->ob_max = p->isa->conv_blocked_ob;
  /* output rows per band: the band's outputs for a tile's output blocks near CB_BAND_BYTES */
  p->band = CB_BAND_BYTES / (p->w.o * BERTH_CONV_BLOCK * (int64_t)sizeof(float) * p->ob_max);
  if (p->band < 1) p->band = 1;
  const bool few = (p->band < p->h.o ? p->band : p->h.o) * p->w.o <= CB_FEW_POSITIONS;
  p->chunk = cb_chunk_of(few ? CB_CHUNK_FEW_BYTES : CB_CHUNK_BYTES, p->kk, p->ob_max);
  p->wp = (const float *)call->in[1].data;
  p->bias = call->n_in >= 3 ? (const float *)call->in[2].data : NULL;
  p->act = (int)at[CB_ACT].i;
  p->alpha = (float)at[CB_ACT_ALPHA].f;
  p->beta = (float)at[CB_ACT_BETA].f;
  _Static_assert(BERTH_UKR_ACT_RELU == 1 && BERTH_UKR_ACT_CLIP == 2 && BERTH_UKR_ACT_LEAKY_RELU == 3,
                 "conv's act codes are the epilogue's");
}

/* Output blocks [ob, ob + nob) of output rows [r0, r1) over input blocks [ib, ib + nib) of
 * one image (x, y, its residual res or NULL): the bias on the first chunk, the epilogue on
 * the last. */
static void cb_chunk(const cb_plan_t *p, const float *x, float *y, const float *res, int64_t ob, int64_t nob,
                     int64_t r0, int64_t r1, int64_t ib, int64_t nib, cb_prefetch_t *f) {
  const bool last = ib + nib == p->cb;
  const berth_ukr_epi_t e = {res ? res + ob * p->oplane : NULL, 0, p->act, p->alpha, p->beta};
  berth_conv_blk_args_t a = {
      .x = x + ib * p->plane,
      .plane = p->plane,
      .cb = nib,
      .cpb = p->cpb,
      .cs = p->cs,
      .w = p->wp + (ob * p->cb + ib) * p->wblk,
      .wob = p->cb * p->wblk,
      .wib = p->wblk,
      .nob = nob,
      .bias = ib == 0 && p->bias ? p->bias + ob * BERTH_CONV_BLOCK : NULL,
      .load = ib > 0,
      .y = y + ob * p->oplane,
      .yob = p->oplane,
      .epi = last && (p->act || res) ? &e : NULL,
  };
  f->tiles = 0;
  const int64_t R = cb_run_len(p, nob), tp = R ? R : p->isa->conv_blocked_p; /* positions per tile, about */
  for (int64_t pass = 0; pass < 2; pass++) {
    if (pass == 1) cb_prefetch_start(f);
    for (int64_t r = r0; r < r1;) {
      const int64_t end = cb_run_end(&p->h, r), re = end < r1 ? end : r1;
      for (int64_t c = 0; c < p->w.o;) {
        const int64_t ce = cb_run_end(&p->w, c);
        if (pass == 0)
          f->tiles += ((re - r) * (ce - c) + tp - 1) / tp;
        else
          cb_rect(p, &a, r, re, c, ce, f);
        c = ce;
      }
      r = re;
    }
  }
}

/* The prefetch of the chunk after (output blocks from ob, the band ending at row r1, input
 * blocks from ib): the next input blocks, else the first of the next chunk in the loop order
 * (band_outer: the next output blocks of this band, else the first of the next band; else
 * the same output blocks for the next band, else the next output blocks); none after the
 * last. */
static void cb_next_chunk(const cb_plan_t *p, bool band_outer, int64_t ob, int64_t r1, int64_t ib, cb_prefetch_t *f) {
  int64_t ob2 = ob, ib2 = ib + p->chunk;
  *f = (cb_prefetch_t){0};
  if (ib2 >= p->cb) {
    ib2 = 0;
    if (band_outer) {
      ob2 = ob + p->ob_max;
      if (ob2 >= p->mb) {
        if (r1 >= p->h.o) return;
        ob2 = 0;
      }
    } else if (r1 >= p->h.o) {
      ob2 = ob + p->ob_max;
    }
  }
  if (ob2 >= p->mb) return;
  f->w = p->wp + (ob2 * p->cb + ib2) * p->wblk;
  f->nob = p->mb - ob2 < p->ob_max ? p->mb - ob2 : p->ob_max;
  f->len = (p->cb - ib2 < p->chunk ? p->cb - ib2 : p->chunk) * p->wblk;
  f->wob = p->cb * p->wblk;
}

/* Output blocks [ob, ob + ob_max) of the band of rows [r0, r1), chunk by chunk. */
static void cb_band(const cb_plan_t *p, bool band_outer, const float *x, float *y, const float *res, int64_t ob,
                    int64_t r0, int64_t r1) {
  const int64_t nob = p->mb - ob < p->ob_max ? p->mb - ob : p->ob_max;
  for (int64_t ib = 0; ib < p->cb; ib += p->chunk) {
    cb_prefetch_t f;
    cb_next_chunk(p, band_outer, ob, r1, ib, &f);
    cb_chunk(p, x, y, res, ob, nob, r0, r1, ib, p->cb - ib < p->chunk ? p->cb - ib : p->chunk, &f);
  }
}

/* Whether the bands go outside the output blocks: each band's input then stays in the caches
 * while every output block's weights pass it, instead of the whole input passing each output
 * block's weights. That order where it reads fewer bytes: the weights once per band against
 * the input once per group of output blocks. Measured (AVX-512, one layer, the two orders
 * alternated): ResNet-50's 64 -> 256 1x1 with its residual on 56x56 611 against 641 us, its
 * 256 -> 512 1x1 of stride 2 from 56x56 1,132-1,140 against 1,246-1,263; the same within the
 * noise where the input fits the level-2 cache (128 -> 512 on 28x28, 32 -> 128 on 27x27);
 * ResNet-50 as a whole ~1 % faster. */
static bool cb_band_outer(const cb_plan_t *p) {
  const int64_t bands = (p->h.o + p->band - 1) / p->band, groups = (p->mb + p->ob_max - 1) / p->ob_max;
  const double in = (double)p->cb * (double)p->plane, w = (double)p->mb * (double)p->cb * (double)p->wblk;
  return bands > 1 && groups > 1 && w * (double)bands < in * (double)groups;
}

static void cb_run(const berth_kernel_call_t *call) {
  if (berth_kernel_is_empty(call->out[0].type)) return;
  cb_plan_t p;
  cb_plan_init(call, &p);
  const float *x = (const float *)call->in[0].data, *res = call->n_in >= 4 ? (const float *)call->in[3].data : NULL;
  float *y = (float *)call->out[0].data;
  const bool band_outer = cb_band_outer(&p);
  for (int64_t n = 0; n < call->in[0].type->dims[0]; n++) {
    const float *xn = x + n * (p.ps == 1 ? p.cpb * p.cs : p.cb * p.plane), *rn = res ? res + n * p.mb * p.oplane : NULL;
    float *yn = y + n * p.mb * p.oplane;
    if (band_outer)
      for (int64_t r0 = 0; r0 < p.h.o; r0 += p.band)
        for (int64_t ob = 0; ob < p.mb; ob += p.ob_max)
          cb_band(&p, true, xn, yn, rn, ob, r0, p.h.o - r0 < p.band ? p.h.o : r0 + p.band);
    else
      for (int64_t ob = 0; ob < p.mb; ob += p.ob_max)
        for (int64_t r0 = 0; r0 < p.h.o; r0 += p.band)
          cb_band(&p, false, xn, yn, rn, ob, r0, p.h.o - r0 < p.band ? p.h.o : r0 + p.band);
  }
}

static const berth_attr_spec_t cb_attrs[] = {
    {"strides", BERTH_ATTR_INTS, false, 0, 0},  {"pads", BERTH_ATTR_INTS, false, 0, 0},
    {"dilations", BERTH_ATTR_INTS, false, 0, 0}, {"group", BERTH_ATTR_INT, false, 1, 0},
    {"act", BERTH_ATTR_INT, false, 0, 0},        {"act_alpha", BERTH_ATTR_SCALAR, false, 0, 0},
    {"act_beta", BERTH_ATTR_SCALAR, false, 0, 0}, {"wshape", BERTH_ATTR_INTS, true, 0, 0}};
const berth_op_def_t berth_op_def_conv_blocked = {"conv_blocked", BERTH_OPKIND_KERNEL, 2, 4, 1, 8, cb_attrs,
                                                  cb_infer, cb_run};
