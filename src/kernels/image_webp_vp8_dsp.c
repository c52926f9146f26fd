/* VP8 pixel arithmetic (RFC 6386 sections 12, 14 and 15): intra prediction, the inverse
 * DCT and WHT, and the normal and simple loop filters, computed exactly as libwebp's C
 * decoder computes them (its transform constants 20091 and 35468 with its rounding, its
 * filter clamps), so that the output matches it bit for bit. */
#include "image_webp_internal.h"

#include <string.h>

#define BPS WEBP_BPS

static inline uint8_t clip_8b(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }
/* libwebp's lookup tables sclip1 ([-1020,1020] -> [-128,127]), sclip2 ([-112,112] ->
 * [-16,15]) and clip1 ([-255,511] -> [0,255]) as clamps. */
static inline int sclip1(int v) { return v < -128 ? -128 : v > 127 ? 127 : v; }
static inline int sclip2(int v) { return v < -16 ? -16 : v > 15 ? 15 : v; }
static inline int iabs(int v) { return v < 0 ? -v : v; }

/* ---- inverse transforms ------------------------------------------------------------- */

#define MUL1(a) ((((a) * 20091) >> 16) + (a))
#define MUL2(a) (((a) * 35468) >> 16)

void berth_webp_transform(const int16_t *in, uint8_t *dst) {
  int tmp[16];
  for (int i = 0; i < 4; i++) { /* vertical pass */
    const int a = in[i] + in[8 + i];
    const int b = in[i] - in[8 + i];
    const int c = MUL2(in[4 + i]) - MUL1(in[12 + i]);
    const int d = MUL1(in[4 + i]) + MUL2(in[12 + i]);
    tmp[4 * i + 0] = a + d;
    tmp[4 * i + 1] = b + c;
    tmp[4 * i + 2] = b - c;
    tmp[4 * i + 3] = a - d;
  }
  for (int i = 0; i < 4; i++) { /* horizontal pass */
    const int dc = tmp[i] + 4;
    const int a = dc + tmp[8 + i];
    const int b = dc - tmp[8 + i];
    const int c = MUL2(tmp[4 + i]) - MUL1(tmp[12 + i]);
    const int d = MUL1(tmp[4 + i]) + MUL2(tmp[12 + i]);
    uint8_t *row = dst + i * BPS;
    row[0] = clip_8b(row[0] + ((a + d) >> 3));
    row[1] = clip_8b(row[1] + ((b + c) >> 3));
    row[2] = clip_8b(row[2] + ((b - c) >> 3));
    row[3] = clip_8b(row[3] + ((a - d) >> 3));
  }
}

#undef MUL1
#undef MUL2

/* The outputs are stored as int16 like libwebp stores them (a corrupt stream's huge
 * values wrap the same way). */
static inline int16_t to_i16(int v) { return (int16_t)(uint16_t)((unsigned)v & 0xffffu); }

void berth_webp_transform_wht(const int16_t *in, int16_t *out) {
  int tmp[16];
  for (int i = 0; i < 4; i++) {
    const int a0 = in[0 + i] + in[12 + i];
    const int a1 = in[4 + i] + in[8 + i];
    const int a2 = in[4 + i] - in[8 + i];
    const int a3 = in[0 + i] - in[12 + i];
    tmp[0 + i] = a0 + a1;
    tmp[8 + i] = a0 - a1;
    tmp[4 + i] = a3 + a2;
    tmp[12 + i] = a3 - a2;
  }
  for (int i = 0; i < 4; i++) {
    const int dc = tmp[0 + i * 4] + 3;
    const int a0 = dc + tmp[3 + i * 4];
    const int a1 = tmp[1 + i * 4] + tmp[2 + i * 4];
    const int a2 = tmp[1 + i * 4] - tmp[2 + i * 4];
    const int a3 = dc - tmp[3 + i * 4];
    out[0] = to_i16((a0 + a1) >> 3);
    out[16] = to_i16((a3 + a2) >> 3);
    out[32] = to_i16((a0 - a1) >> 3);
    out[48] = to_i16((a3 - a2) >> 3);
    out += 64;
  }
}

/* ---- intra prediction --------------------------------------------------------------- */

static void true_motion(uint8_t *dst, int size) {
  const uint8_t *top = dst - BPS;
  const int tl = top[-1];
  for (int y = 0; y < size; y++) {
    const int left = dst[-1];
    for (int x = 0; x < size; x++) dst[x] = clip_8b(top[x] + left - tl);
    dst += BPS;
  }
}

static void fill(uint8_t *dst, int size, int v) {
  for (int j = 0; j < size; j++) memset(dst + j * BPS, v, (size_t)size);
}

static void vertical(uint8_t *dst, int size) {
  for (int j = 0; j < size; j++) memcpy(dst + j * BPS, dst - BPS, (size_t)size);
}

static void horizontal(uint8_t *dst, int size) {
  for (int j = 0; j < size; j++) memset(dst + j * BPS, dst[j * BPS - 1], (size_t)size);
}

/* DC of a 16x16 (shift 5) or 8x8 (shift 4) block from the row above and/or the left
 * column; size 16 or 8. */
static void dc_pred(uint8_t *dst, int size, int mode) {
  const int shift = size == 16 ? 5 : 4;
  int dc = 0;
  if (mode == WEBP_B_DC_PRED) {
    for (int j = 0; j < size; j++) dc += dst[-1 + j * BPS] + dst[j - BPS];
    dc = (dc + (1 << (shift - 1))) >> shift;
  } else if (mode == WEBP_DC_PRED_NOTOP) {
    for (int j = 0; j < size; j++) dc += dst[-1 + j * BPS];
    dc = (dc + (1 << (shift - 2))) >> (shift - 1);
  } else if (mode == WEBP_DC_PRED_NOLEFT) {
    for (int j = 0; j < size; j++) dc += dst[j - BPS];
    dc = (dc + (1 << (shift - 2))) >> (shift - 1);
  } else {
    dc = 0x80;
  }
  fill(dst, size, dc);
}

static void pred_block(int mode, uint8_t *dst, int size) {
  switch (mode) {
  case WEBP_B_TM_PRED: true_motion(dst, size); break;
  case WEBP_B_VE_PRED: vertical(dst, size); break;
  case WEBP_B_HE_PRED: horizontal(dst, size); break;
  default: dc_pred(dst, size, mode); break;
  }
}

void berth_webp_pred_luma16(int mode, uint8_t *dst) { pred_block(mode, dst, 16); }
void berth_webp_pred_chroma8(int mode, uint8_t *dst) { pred_block(mode, dst, 8); }

#define AVG3(a, b, c) ((uint8_t)(((a) + 2 * (b) + (c) + 2) >> 2))
#define AVG2(a, b) ((uint8_t)(((a) + (b) + 1) >> 1))
#define DST(x, y) dst[(x) + (y) * BPS]

static void ve4(uint8_t *dst) {
  const uint8_t *top = dst - BPS;
  const uint8_t vals[4] = {AVG3(top[-1], top[0], top[1]), AVG3(top[0], top[1], top[2]),
                           AVG3(top[1], top[2], top[3]), AVG3(top[2], top[3], top[4])};
  for (int i = 0; i < 4; i++) memcpy(dst + i * BPS, vals, 4);
}

static void he4(uint8_t *dst) {
  const int A = dst[-1 - BPS], B = dst[-1], C = dst[-1 + BPS], D = dst[-1 + 2 * BPS], E = dst[-1 + 3 * BPS];
  memset(dst + 0 * BPS, AVG3(A, B, C), 4);
  memset(dst + 1 * BPS, AVG3(B, C, D), 4);
  memset(dst + 2 * BPS, AVG3(C, D, E), 4);
  memset(dst + 3 * BPS, AVG3(D, E, E), 4);
}

static void dc4(uint8_t *dst) {
  unsigned dc = 4;
  for (int i = 0; i < 4; i++) dc += dst[i - BPS] + dst[-1 + i * BPS];
  dc >>= 3;
  for (int i = 0; i < 4; i++) memset(dst + i * BPS, (int)dc, 4);
}

static void rd4(uint8_t *dst) {
  const int I = dst[-1 + 0 * BPS], J = dst[-1 + 1 * BPS], K = dst[-1 + 2 * BPS], L = dst[-1 + 3 * BPS];
  const int X = dst[-1 - BPS], A = dst[0 - BPS], B = dst[1 - BPS], C = dst[2 - BPS], D = dst[3 - BPS];
  DST(0, 3) = AVG3(J, K, L);
  DST(1, 3) = DST(0, 2) = AVG3(I, J, K);
  DST(2, 3) = DST(1, 2) = DST(0, 1) = AVG3(X, I, J);
  DST(3, 3) = DST(2, 2) = DST(1, 1) = DST(0, 0) = AVG3(A, X, I);
  DST(3, 2) = DST(2, 1) = DST(1, 0) = AVG3(B, A, X);
  DST(3, 1) = DST(2, 0) = AVG3(C, B, A);
  DST(3, 0) = AVG3(D, C, B);
}

static void ld4(uint8_t *dst) {
  const int A = dst[0 - BPS], B = dst[1 - BPS], C = dst[2 - BPS], D = dst[3 - BPS];
  const int E = dst[4 - BPS], F = dst[5 - BPS], G = dst[6 - BPS], H = dst[7 - BPS];
  DST(0, 0) = AVG3(A, B, C);
  DST(1, 0) = DST(0, 1) = AVG3(B, C, D);
  DST(2, 0) = DST(1, 1) = DST(0, 2) = AVG3(C, D, E);
  DST(3, 0) = DST(2, 1) = DST(1, 2) = DST(0, 3) = AVG3(D, E, F);
  DST(3, 1) = DST(2, 2) = DST(1, 3) = AVG3(E, F, G);
  DST(3, 2) = DST(2, 3) = AVG3(F, G, H);
  DST(3, 3) = AVG3(G, H, H);
}

static void vr4(uint8_t *dst) {
  const int I = dst[-1 + 0 * BPS], J = dst[-1 + 1 * BPS], K = dst[-1 + 2 * BPS];
  const int X = dst[-1 - BPS], A = dst[0 - BPS], B = dst[1 - BPS], C = dst[2 - BPS], D = dst[3 - BPS];
  DST(0, 0) = DST(1, 2) = AVG2(X, A);
  DST(1, 0) = DST(2, 2) = AVG2(A, B);
  DST(2, 0) = DST(3, 2) = AVG2(B, C);
  DST(3, 0) = AVG2(C, D);
  DST(0, 3) = AVG3(K, J, I);
  DST(0, 2) = AVG3(J, I, X);
  DST(0, 1) = DST(1, 3) = AVG3(I, X, A);
  DST(1, 1) = DST(2, 3) = AVG3(X, A, B);
  DST(2, 1) = DST(3, 3) = AVG3(A, B, C);
  DST(3, 1) = AVG3(B, C, D);
}

static void vl4(uint8_t *dst) {
  const int A = dst[0 - BPS], B = dst[1 - BPS], C = dst[2 - BPS], D = dst[3 - BPS];
  const int E = dst[4 - BPS], F = dst[5 - BPS], G = dst[6 - BPS], H = dst[7 - BPS];
  DST(0, 0) = AVG2(A, B);
  DST(1, 0) = DST(0, 2) = AVG2(B, C);
  DST(2, 0) = DST(1, 2) = AVG2(C, D);
  DST(3, 0) = DST(2, 2) = AVG2(D, E);
  DST(0, 1) = AVG3(A, B, C);
  DST(1, 1) = DST(0, 3) = AVG3(B, C, D);
  DST(2, 1) = DST(1, 3) = AVG3(C, D, E);
  DST(3, 1) = DST(2, 3) = AVG3(D, E, F);
  DST(3, 2) = AVG3(E, F, G);
  DST(3, 3) = AVG3(F, G, H);
}

static void hu4(uint8_t *dst) {
  const int I = dst[-1 + 0 * BPS], J = dst[-1 + 1 * BPS], K = dst[-1 + 2 * BPS], L = dst[-1 + 3 * BPS];
  DST(0, 0) = AVG2(I, J);
  DST(2, 0) = DST(0, 1) = AVG2(J, K);
  DST(2, 1) = DST(0, 2) = AVG2(K, L);
  DST(1, 0) = AVG3(I, J, K);
  DST(3, 0) = DST(1, 1) = AVG3(J, K, L);
  DST(3, 1) = DST(1, 2) = AVG3(K, L, L);
  DST(3, 2) = DST(2, 2) = DST(0, 3) = DST(1, 3) = DST(2, 3) = DST(3, 3) = (uint8_t)L;
}

static void hd4(uint8_t *dst) {
  const int I = dst[-1 + 0 * BPS], J = dst[-1 + 1 * BPS], K = dst[-1 + 2 * BPS], L = dst[-1 + 3 * BPS];
  const int X = dst[-1 - BPS], A = dst[0 - BPS], B = dst[1 - BPS], C = dst[2 - BPS];
  DST(0, 0) = DST(2, 1) = AVG2(I, X);
  DST(0, 1) = DST(2, 2) = AVG2(J, I);
  DST(0, 2) = DST(2, 3) = AVG2(K, J);
  DST(0, 3) = AVG2(L, K);
  DST(3, 0) = AVG3(A, B, C);
  DST(2, 0) = AVG3(X, A, B);
  DST(1, 0) = DST(3, 1) = AVG3(I, X, A);
  DST(1, 1) = DST(3, 2) = AVG3(J, I, X);
  DST(1, 2) = DST(3, 3) = AVG3(K, J, I);
  DST(1, 3) = AVG3(L, K, J);
}

#undef AVG3
#undef AVG2
#undef DST

void berth_webp_pred_luma4(int mode, uint8_t *dst) {
  switch (mode) {
  case WEBP_B_TM_PRED: true_motion(dst, 4); break;
  case WEBP_B_VE_PRED: ve4(dst); break;
  case WEBP_B_HE_PRED: he4(dst); break;
  case WEBP_B_RD_PRED: rd4(dst); break;
  case WEBP_B_VR_PRED: vr4(dst); break;
  case WEBP_B_LD_PRED: ld4(dst); break;
  case WEBP_B_VL_PRED: vl4(dst); break;
  case WEBP_B_HD_PRED: hd4(dst); break;
  case WEBP_B_HU_PRED: hu4(dst); break;
  default: dc4(dst); break;
  }
}

/* ---- loop filters (RFC 6386 section 15) --------------------------------------------- */

/* p points at q0; step is the distance across the edge. */
static void do_filter2(uint8_t *p, int step) {
  const int p1 = p[-2 * step], p0 = p[-step], q0 = p[0], q1 = p[step];
  const int a = 3 * (q0 - p0) + sclip1(p1 - q1);
  const int a1 = sclip2((a + 4) >> 3);
  const int a2 = sclip2((a + 3) >> 3);
  p[-step] = clip_8b(p0 + a2);
  p[0] = clip_8b(q0 - a1);
}

static void do_filter4(uint8_t *p, int step) {
  const int p1 = p[-2 * step], p0 = p[-step], q0 = p[0], q1 = p[step];
  const int a = 3 * (q0 - p0);
  const int a1 = sclip2((a + 4) >> 3);
  const int a2 = sclip2((a + 3) >> 3);
  const int a3 = (a1 + 1) >> 1;
  p[-2 * step] = clip_8b(p1 + a3);
  p[-step] = clip_8b(p0 + a2);
  p[0] = clip_8b(q0 - a1);
  p[step] = clip_8b(q1 - a3);
}

static void do_filter6(uint8_t *p, int step) {
  const int p2 = p[-3 * step], p1 = p[-2 * step], p0 = p[-step];
  const int q0 = p[0], q1 = p[step], q2 = p[2 * step];
  const int a = sclip1(3 * (q0 - p0) + sclip1(p1 - q1));
  const int a1 = (27 * a + 63) >> 7;
  const int a2 = (18 * a + 63) >> 7;
  const int a3 = (9 * a + 63) >> 7;
  p[-3 * step] = clip_8b(p2 + a3);
  p[-2 * step] = clip_8b(p1 + a2);
  p[-step] = clip_8b(p0 + a1);
  p[0] = clip_8b(q0 - a1);
  p[step] = clip_8b(q1 - a2);
  p[2 * step] = clip_8b(q2 - a3);
}

static int hev(const uint8_t *p, int step, int thresh) {
  const int p1 = p[-2 * step], p0 = p[-step], q0 = p[0], q1 = p[step];
  return iabs(p1 - p0) > thresh || iabs(q1 - q0) > thresh;
}

static int needs_filter(const uint8_t *p, int step, int t) {
  const int p1 = p[-2 * step], p0 = p[-step], q0 = p[0], q1 = p[step];
  return 4 * iabs(p0 - q0) + iabs(p1 - q1) <= t;
}

static int needs_filter2(const uint8_t *p, int step, int t, int it) {
  const int p3 = p[-4 * step], p2 = p[-3 * step], p1 = p[-2 * step];
  const int p0 = p[-step], q0 = p[0];
  const int q1 = p[step], q2 = p[2 * step], q3 = p[3 * step];
  if (4 * iabs(p0 - q0) + iabs(p1 - q1) > t) return 0;
  return iabs(p3 - p2) <= it && iabs(p2 - p1) <= it && iabs(p1 - p0) <= it && iabs(q3 - q2) <= it &&
         iabs(q2 - q1) <= it && iabs(q1 - q0) <= it;
}

/* The simple filter along one edge of 16 pixels: hstride crosses the edge, vstride walks it. */
static void simple_edge(uint8_t *p, int hstride, int vstride, int thresh) {
  const int thresh2 = 2 * thresh + 1;
  for (int i = 0; i < 16; i++, p += vstride) {
    if (needs_filter(p, hstride, thresh2)) do_filter2(p, hstride);
  }
}

void berth_webp_simple_filter_mb(uint8_t *p, int stride, int limit, int left, int top, int inner) {
  if (left) simple_edge(p, 1, stride, limit + 4);
  if (inner) {
    for (int k = 1; k <= 3; k++) simple_edge(p + 4 * k, 1, stride, limit);
  }
  if (top) simple_edge(p, stride, 1, limit + 4);
  if (inner) {
    for (int k = 1; k <= 3; k++) simple_edge(p + 4 * k * stride, stride, 1, limit);
  }
}

/* The normal filter along one edge of size pixels: the macroblock edge variant (6 taps)
 * or the inner edge variant (4 taps). */
static void normal_edge(uint8_t *p, int hstride, int vstride, int size, int thresh, int ithresh, int hev_thresh,
                        int mb_edge) {
  const int thresh2 = 2 * thresh + 1;
  for (int i = 0; i < size; i++, p += vstride) {
    if (!needs_filter2(p, hstride, thresh2, ithresh)) continue;
    if (hev(p, hstride, hev_thresh)) do_filter2(p, hstride);
    else if (mb_edge) do_filter6(p, hstride);
    else do_filter4(p, hstride);
  }
}

void berth_webp_normal_filter_mb(uint8_t *y, uint8_t *u, uint8_t *v, int y_stride, int uv_stride, int limit,
                                 int ilevel, int hev_thresh, int left, int top, int inner) {
  if (left) {
    normal_edge(y, 1, y_stride, 16, limit + 4, ilevel, hev_thresh, 1);
    normal_edge(u, 1, uv_stride, 8, limit + 4, ilevel, hev_thresh, 1);
    normal_edge(v, 1, uv_stride, 8, limit + 4, ilevel, hev_thresh, 1);
  }
  if (inner) {
    for (int k = 1; k <= 3; k++) normal_edge(y + 4 * k, 1, y_stride, 16, limit, ilevel, hev_thresh, 0);
    normal_edge(u + 4, 1, uv_stride, 8, limit, ilevel, hev_thresh, 0);
    normal_edge(v + 4, 1, uv_stride, 8, limit, ilevel, hev_thresh, 0);
  }
  if (top) {
    normal_edge(y, y_stride, 1, 16, limit + 4, ilevel, hev_thresh, 1);
    normal_edge(u, uv_stride, 1, 8, limit + 4, ilevel, hev_thresh, 1);
    normal_edge(v, uv_stride, 1, 8, limit + 4, ilevel, hev_thresh, 1);
  }
  if (inner) {
    for (int k = 1; k <= 3; k++) normal_edge(y + 4 * k * y_stride, y_stride, 1, 16, limit, ilevel, hev_thresh, 0);
    normal_edge(u + 4 * uv_stride, uv_stride, 1, 8, limit, ilevel, hev_thresh, 0);
    normal_edge(v + 4 * uv_stride, uv_stride, 1, 8, limit, ilevel, hev_thresh, 0);
  }
}
