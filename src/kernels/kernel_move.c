/* Block copies for the data-movement kernels: 2-D transposes in register tiles, fills,
 * transposed views as batches of 2-D transposes, broadcast views by copying written blocks.
 * Moves only (kernel_move.h): no value is computed, so each path gives the simple loop's bits.
 *
 * The vector paths use GCC/clang vector types of 16 bytes (SSE2 on x86-64, NEON on AArch64,
 * scalar code where there is neither), loaded and stored with memcpy so that no alignment
 * beyond the element's is assumed. */
#include "kernel_move.h"

#include "kernel_util.h"

#include <string.h>

typedef uint32_t move_v4u __attribute__((vector_size(16)));
typedef uint64_t move_v2u __attribute__((vector_size(16)));

/* ---- 2-D transpose ------------------------------------------------------------------ */

/* Tiles of MOVE_TILE x MOVE_TILE elements keep the rows read and written within L1. */
#ifndef MOVE_TILE
#define MOVE_TILE 32
#endif

/* out rows r..r+3, columns c..c+3 <- in rows c..c+3, columns r..r+3 (o at out[r * ldo + c],
 * i at in[c * ldi + r]) */
static inline void tr4x4_u32(uint32_t *o, int64_t ldo, const uint32_t *i, int64_t ldi) {
  move_v4u a0, a1, a2, a3;
  memcpy(&a0, i, 16);
  memcpy(&a1, i + ldi, 16);
  memcpy(&a2, i + 2 * ldi, 16);
  memcpy(&a3, i + 3 * ldi, 16);
  const move_v4u t0 = __builtin_shufflevector(a0, a1, 0, 4, 1, 5), t1 = __builtin_shufflevector(a0, a1, 2, 6, 3, 7);
  const move_v4u t2 = __builtin_shufflevector(a2, a3, 0, 4, 1, 5), t3 = __builtin_shufflevector(a2, a3, 2, 6, 3, 7);
  const move_v4u r0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5), r1 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  const move_v4u r2 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5), r3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
  memcpy(o, &r0, 16);
  memcpy(o + ldo, &r1, 16);
  memcpy(o + 2 * ldo, &r2, 16);
  memcpy(o + 3 * ldo, &r3, 16);
}

static inline void tr2x2_u64(uint64_t *o, int64_t ldo, const uint64_t *i, int64_t ldi) {
  move_v2u a0, a1;
  memcpy(&a0, i, 16);
  memcpy(&a1, i + ldi, 16);
  const move_v2u r0 = __builtin_shufflevector(a0, a1, 0, 2), r1 = __builtin_shufflevector(a0, a1, 1, 3);
  memcpy(o, &r0, 16);
  memcpy(o + ldo, &r1, 16);
}

/* One tile [r0, r1) x [c0, c1): register blocks of B x B where the tile has them, single
 * elements at its ragged right and bottom edges. */
#define MOVE_TR_TILE(T, B, BLOCK)                                                  \
  do {                                                                             \
    int64_t rb = r0 + (r1 - r0) / (B) * (B), cb = c0 + (c1 - c0) / (B) * (B);      \
    for (int64_t r = r0; r < rb; r += (B)) {                                       \
      for (int64_t c = c0; c < cb; c += (B)) BLOCK(o + r * ldo + c, ldo, i + c * ldi + r, ldi); \
      for (int64_t c = cb; c < c1; c++)                                            \
        for (int64_t q = r; q < r + (B); q++) o[q * ldo + c] = i[c * ldi + q];     \
    }                                                                              \
    for (int64_t r = rb; r < r1; r++)                                              \
      for (int64_t c = c0; c < c1; c++) o[r * ldo + c] = i[c * ldi + r];           \
  } while (0)

#define MOVE_TR_SCALAR(o_, l_, i_, m_) ((o_)[0] = (i_)[0])

#define MOVE_TR_ALL(T, B, BLOCK)                                                   \
  do {                                                                             \
    T *o = (T *)out;                                                               \
    const T *i = (const T *)in;                                                    \
    for (int64_t r0 = 0; r0 < rows; r0 += MOVE_TILE)                               \
      for (int64_t c0 = 0; c0 < cols; c0 += MOVE_TILE) {                           \
        int64_t r1 = rows - r0 < MOVE_TILE ? rows : r0 + MOVE_TILE;                \
        int64_t c1 = cols - c0 < MOVE_TILE ? cols : c0 + MOVE_TILE;                \
        MOVE_TR_TILE(T, B, BLOCK);                                                 \
      }                                                                            \
  } while (0)

/* Two output rows of 4-byte elements: each input row c holds the pair (row 0, row 1) of
 * column c, so four pairs deinterleave into four columns of both rows (SpaceToDepth). */
static void tr_rows2_u32(uint32_t *o, int64_t ldo, const uint32_t *i, int64_t ldi, int64_t cols) {
  int64_t c = 0;
  for (; c + 4 <= cols; c += 4) {
    uint64_t p0, p1, p2, p3; /* scalars, not an array: no stores to the stack and 16-byte reloads */
    memcpy(&p0, i + c * ldi, 8);
    memcpy(&p1, i + (c + 1) * ldi, 8);
    memcpy(&p2, i + (c + 2) * ldi, 8);
    memcpy(&p3, i + (c + 3) * ldi, 8);
    const move_v2u x = {p0, p1}, y = {p2, p3};
    const move_v4u r0 = __builtin_shufflevector((move_v4u)x, (move_v4u)y, 0, 2, 4, 6);
    const move_v4u r1 = __builtin_shufflevector((move_v4u)x, (move_v4u)y, 1, 3, 5, 7);
    memcpy(o + c, &r0, 16);
    memcpy(o + ldo + c, &r1, 16);
  }
  for (; c < cols; c++) {
    o[c] = i[c * ldi];
    o[ldo + c] = i[c * ldi + 1];
  }
}

/* Two output columns of 4-byte elements: the two contiguous input rows interleave into the
 * pairs of four output rows (DepthToSpace). */
static void tr_cols2_u32(uint32_t *o, int64_t ldo, const uint32_t *i, int64_t ldi, int64_t rows) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    move_v4u a, b;
    memcpy(&a, i + r, 16);
    memcpy(&b, i + ldi + r, 16);
    const move_v4u lo = __builtin_shufflevector(a, b, 0, 4, 1, 5), hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
    const move_v2u l = (move_v2u)lo, h = (move_v2u)hi;
    const uint64_t q[4] = {l[0], l[1], h[0], h[1]}; /* lanes by value: clang refuses &l[0] */
    for (int k = 0; k < 4; k++) memcpy(o + (r + k) * ldo, &q[k], 8);
  }
  for (; r < rows; r++) {
    o[r * ldo] = i[r];
    o[r * ldo + 1] = i[ldi + r];
  }
}

void berth_kernel_transpose_2d(void *out, int64_t ldo, const void *in, int64_t ldi, int64_t rows, int64_t cols,
                               size_t esize) {
  if (esize == 4 && rows == 2) {
    tr_rows2_u32((uint32_t *)out, ldo, (const uint32_t *)in, ldi, cols);
    return;
  }
  if (esize == 4 && cols == 2) {
    tr_cols2_u32((uint32_t *)out, ldo, (const uint32_t *)in, ldi, rows);
    return;
  }
  switch (esize) {
    case 1: MOVE_TR_ALL(uint8_t, 1, MOVE_TR_SCALAR); return;
    case 2: MOVE_TR_ALL(uint16_t, 1, MOVE_TR_SCALAR); return;
    case 4: MOVE_TR_ALL(uint32_t, 4, tr4x4_u32); return;
    case 8: MOVE_TR_ALL(uint64_t, 2, tr2x2_u64); return;
    default: break;
  }
  char *o = (char *)out;
  const char *i = (const char *)in;
  const int64_t es = (int64_t)esize;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) memcpy(o + (r * ldo + c) * es, i + (c * ldi + r) * es, esize);
}

/* ---- fill ------------------------------------------------------------------------------ */

#define MOVE_FILL(T)                                                               \
  do {                                                                             \
    T v;                                                                           \
    memcpy(&v, value, sizeof v);                                                   \
    T *d = (T *)dst;                                                               \
    int64_t j = 0;                                                                 \
    if (n >= (int64_t)(16 / sizeof v)) {                                           \
      unsigned char pat[16];                                                       \
      for (size_t b = 0; b < 16; b += sizeof v) memcpy(pat + b, &v, sizeof v);     \
      for (; j + (int64_t)(16 / sizeof v) <= n; j += (int64_t)(16 / sizeof v)) memcpy(d + j, pat, 16); \
    }                                                                              \
    for (; j < n; j++) d[j] = v;                                                   \
  } while (0)

void berth_kernel_fill(void *dst, const void *value, int64_t n, size_t esize) {
  if (n <= 0) return;
  switch (esize) {
    case 1: memset(dst, *(const unsigned char *)value, (size_t)n); return;
    case 2: MOVE_FILL(uint16_t); return;
    case 4: MOVE_FILL(uint32_t); return;
    case 8: MOVE_FILL(uint64_t); return;
    default: break;
  }
  for (int64_t j = 0; j < n; j++) memcpy((char *)dst + j * (int64_t)esize, value, esize);
}

/* ---- views ------------------------------------------------------------------------------- */

/* Below this many rows or columns a 2-D transpose has no full register block (but two rows
 * or columns of 4-byte elements have their own). */
#define MOVE_MIN_SIDE 4

void berth_kernel_permute(void *out, const void *in, size_t esize, int32_t rank, const int64_t *dims,
                          const int64_t *strides, int64_t base) {
  int64_t d[BERTH_MAX_RANK], s[BERTH_MAX_RANK];
  const int32_t r = berth_kernel_merge_axes(rank, dims, strides, d, s);
  if (r < 0) return;
  int32_t k = -1; /* the axis contiguous in the input */
  for (int32_t j = 0; r >= 2 && s[r - 1] != 1 && j < r - 1; j++)
    if (s[j] == 1) k = j;
  int64_t lo = 0, hi = 0; /* the shorter and the longer side of the 2-D transposes */
  if (k >= 0) {
    lo = d[k] < d[r - 1] ? d[k] : d[r - 1];
    hi = d[k] < d[r - 1] ? d[r - 1] : d[k];
  }
  const bool pairs = esize == 4 && lo == 2 && hi >= MOVE_MIN_SIDE; /* tr_rows2_u32, tr_cols2_u32 */
  if (k < 0 || (lo < MOVE_MIN_SIDE && !pairs)) {
    berth_kernel_gather(out, in, esize, rank, dims, strides, base);
    return;
  }
  int64_t os[BERTH_MAX_RANK]; /* output strides, row-major */
  os[r - 1] = 1;
  for (int32_t j = r - 2; j >= 0; j--) os[j] = os[j + 1] * d[j + 1];
  const int64_t es = (int64_t)esize;
  int64_t idx[BERTH_MAX_RANK] = {0}, ioff = base, ooff = 0;
  for (;;) {
    berth_kernel_transpose_2d((char *)out + ooff * es, os[k], (const char *)in + ioff * es, s[r - 1], d[k], d[r - 1],
                              esize);
    int32_t j = r - 2;
    for (; j >= 0; j--) {
      if (j == k) continue;
      ioff += s[j];
      ooff += os[j];
      if (++idx[j] < d[j]) break;
      ioff -= s[j] * d[j];
      ooff -= os[j] * d[j];
      idx[j] = 0;
    }
    if (j < 0) return;
  }
}

/* One output row of the innermost axis: n elements from src, stride s (0: broadcast). */
static void expand_row(char *o, const char *src, int64_t n, int64_t s, size_t esize) {
  if (s == 0) {
    berth_kernel_fill(o, src, n, esize);
  } else if (s == 1) {
    memcpy(o, src, (size_t)n * esize);
  } else {
    berth_kernel_gather(o, src, esize, 1, &n, &s, 0);
  }
}

void berth_kernel_expand(void *out, const void *in, size_t esize, int32_t rank, const int64_t *dims,
                         const int64_t *strides, int64_t base) {
  int64_t d[BERTH_MAX_RANK], s[BERTH_MAX_RANK];
  const int32_t r = berth_kernel_merge_axes(rank, dims, strides, d, s);
  if (r < 0) return;
  const char *src = (const char *)in;
  char *o = (char *)out;
  const int64_t es = (int64_t)esize;
  if (r == 0) {
    memcpy(o, src + base * es, esize);
    return;
  }
  int64_t block[BERTH_MAX_RANK]; /* bytes of one index of axis j */
  block[r - 1] = es;
  for (int32_t j = r - 2; j >= 0; j--) block[j] = block[j + 1] * d[j + 1];
  int64_t idx[BERTH_MAX_RANK] = {0}, off = base;
  for (;;) {
    expand_row(o, src + off * es, d[r - 1], s[r - 1], esize);
    o += d[r - 1] * es;
    int32_t j = r - 2;
    for (; j >= 0; j--) {
      if (s[j] == 0 && idx[j] == 0) {
        /* index 0 of a broadcast axis is written (every inner axis wrapped): its other
         * indices are copies of that block, doubling the copied span */
        char *start = o - block[j];
        int64_t done = 1;
        while (done < d[j]) {
          int64_t m = done < d[j] - done ? done : d[j] - done;
          memcpy(start + done * block[j], start, (size_t)(m * block[j]));
          done += m;
        }
        o = start + d[j] * block[j];
        continue; /* the axis wrapped: carry on outwards (off is unchanged by stride 0) */
      }
      off += s[j];
      if (++idx[j] < d[j]) break;
      off -= s[j] * d[j];
      idx[j] = 0;
    }
    if (j < 0) return;
  }
}
