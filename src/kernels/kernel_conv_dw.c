/* Depthwise 2-D convolution (kernel_conv_dw.h): conv's groups of one input
 * channel, where the generic path (one short dot product per output, or a
 * packed GEMM with one weight row) reaches a few percent of peak. Here vectors
 * run along the output rows of a plane (kernel_dw_ukr.h, one body per kernel
 * variant), the kernel weights broadcast, the input rows copied once per plane
 * into zero-padded rows of conv's scratch buffer. MobileNet-, ShuffleNet- and
 * PP-OCR-style 3x3 and 5x5 kernels with stride 1 or 2, any padding and dilation
 * take this path; anything else (other widths, a row that does not fit the
 * buffer, f64) keeps kernel_conv.c's loop. */
#include "kernel_conv_dw.h"

#include <string.h>

enum {
  DW_MAX_KH = 8,
  DW_VW_MAX = 16, /* floats per vector of the widest variant */
  /* planes in the lanes up to outputs this wide and a buffer of this many vectors (measured
   * on AVX2, one-node models: see dw_lanes_lw) */
  DW_LANES_MAX_OW = 32,
  DW_LANES_MAX_VECS = 4096
};

/* The padded row length in floats (0: the shape does not take this path). */
static int64_t dw_row(const berth_dw_geom_t *g) {
  if ((g->kw != 3 && g->kw != 5) || g->kh < 1 || g->kh > DW_MAX_KH || (g->sw != 1 && g->sw != 2) || g->ow < 1 ||
      g->oh < 1)
    return 0;
  /* every value here is at most about 2^43 (conv's plan caps dims, strides,
   * pads and dilations at 2^40): no overflow in int64 */
  const int64_t cols = (g->ow + 2 * DW_VW_MAX - 1) / (2 * DW_VW_MAX) * (2 * DW_VW_MAX); /* whole pairs of vectors */
  if (g->sw == 2) { /* two halves, the even and the odd padded columns (kernel_dw_ukr.h's copy2) */
    int64_t half = cols + (g->kw - 1) * g->dw / 2;
    if (half < (g->pw + g->iw + 1) / 2) half = (g->pw + g->iw + 1) / 2;
    return 2 * ((half + DW_VW_MAX - 1) / DW_VW_MAX * DW_VW_MAX);
  }
  int64_t row = cols + (g->kw - 1) * g->dw;
  if (row < g->pw + g->iw) row = g->pw + g->iw;
  return (row + DW_VW_MAX - 1) / DW_VW_MAX * DW_VW_MAX; /* rows start on a vector */
}

/* The ring slots the row blocks want. */
static int64_t dw_want_slots(const berth_dw_geom_t *g) {
  int64_t want = (g->kh - 1) * g->dh + 1;
  if (g->kh == g->kw && g->dh == 1 && g->sh <= 2 && want < 3 * g->sh + g->kh) want = 3 * g->sh + g->kh;
  return want;
}

/* Planes in the lanes (kernel_dw_lanes_ukr.h): the padded plane's vectors per row, or 0
 * where the shape does not take them (a multiplier other than 1, one channel, a column
 * stride other than 1 and 2 or a column dilation, outputs wider than DW_LANES_MAX_OW, or a
 * buffer over DW_LANES_MAX_VECS vectors). */
static int64_t dw_lanes_lw(const berth_dw_geom_t *g, int64_t channels, int64_t mult) {
  if (mult != 1 || channels < 2 || (g->kw != 3 && g->kw != 5) || (g->sw != 1 && g->sw != 2) || g->dw != 1 ||
      g->kh < 1 || g->kh > DW_MAX_KH || g->ow < 1 ||
      g->oh < 1 || g->ow > DW_LANES_MAX_OW || g->ih > DW_LANES_MAX_VECS || g->pw > DW_LANES_MAX_VECS)
    return 0;
  int64_t lw = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw + 1;
  if (lw < g->pw + g->iw) lw = g->pw + g->iw;
  return g->ih * lw + g->oh * g->ow + g->kh * g->kw + 1 > DW_LANES_MAX_VECS ? 0 : lw;
}
static int64_t dw_lanes_floats(const berth_dw_geom_t *g) {
  return (g->ih * g->lw + g->oh * g->ow + g->kh * g->kw + 1) * BERTH_DW_MAX_LANES;
}

bool berth_conv_dw_lanes(berth_dw_geom_t g, int64_t channels, int64_t mult) {
  return dw_lanes_lw(&g, channels, mult) > 0;
}

int64_t berth_conv_dw_buffer_floats(berth_dw_geom_t g, int64_t channels, int64_t mult) {
  g.lw = dw_lanes_lw(&g, channels, mult);
  if (g.lw) return dw_lanes_floats(&g);
  int64_t row = dw_row(&g), want = dw_want_slots(&g), slots = 1;
  if (!row) return 0;
  while (slots < want && slots < BERTH_DW_MAX_SLOTS) slots *= 2;
  if (slots < g.kh) slots = g.kh;
  return (slots + 1) * row;
}

/* Planes in the lanes, BERTH_DW_MAX_LANES planes a call (whole groups of every variant's
 * lanes), each chunk's epilogue while its planes are still in cache. */
static void dw_lanes(const berth_dw_geom_t *g, int64_t channels, const float *x, const float *w, const float *b,
                     float *y, float *buf, berth_dw_epilogue_fn epilogue, const void *ctx) {
  const int64_t kk = g->kh * g->kw, ip = g->ih * g->iw, plane = g->oh * g->ow;
  memset(buf, 0, (size_t)(g->ih * g->lw * BERTH_DW_MAX_LANES) * sizeof(float));
  for (int64_t c = 0; c < channels; c += BERTH_DW_MAX_LANES) {
    const int64_t n = channels - c < BERTH_DW_MAX_LANES ? channels - c : BERTH_DW_MAX_LANES;
    BERTH_KCALL(dwconv_lanes_f32)(g, n, x + c * ip, w + c * kk, b ? b + c : NULL, y + c * plane, buf);
    for (int64_t i = 0; epilogue && i < n; i++) epilogue(y + (c + i) * plane, plane, ctx);
  }
}

bool berth_conv_dw_f32(berth_dw_geom_t g, int64_t channels, int64_t mult, const float *x, const float *w,
                       const float *b, float *y, float *buf, int64_t bufn, berth_dw_epilogue_fn epilogue,
                       const void *ctx) {
  g.lw = dw_lanes_lw(&g, channels, mult);
  if (g.lw && dw_lanes_floats(&g) <= bufn) {
    dw_lanes(&g, channels, x, w, b, y, buf, epilogue, ctx);
    return true;
  }
  g.lw = 0;
  int64_t row = dw_row(&g);
  if (!row || row > bufn) return false;
  /* the slots of the ring: a power of two (no division to find a row's slot),
   * enough for the row blocks where they apply, as many as fit, and a row of
   * zeros after them; else one slot per kernel row */
  int64_t want = dw_want_slots(&g), avail = bufn / row - 1, slots = 1;
  while (slots < want && slots < BERTH_DW_MAX_SLOTS && 2 * slots <= avail) slots *= 2;
  if (slots < want && avail >= g.kh) slots = g.kh;
  if (slots < g.kh) return false;
  g.slots = slots;
  g.row = row;
  const int64_t kk = g.kh * g.kw, plane = g.oh * g.ow, ip = g.ih * g.iw;
  memset(buf, 0, (size_t)((slots + 1) * row) * sizeof(float));
  for (int64_t c = 0; c < channels; c++)
    for (int64_t m = 0; m < mult; m++, w += kk, y += plane) {
      BERTH_KCALL(dwconv_f32)(&g, x + c * ip, w, b ? *b++ : 0.0f, y, buf);
      if (epilogue) epilogue(y, plane, ctx);
    }
  return true;
}
