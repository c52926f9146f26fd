/* A 4 x 4, 8 x 8 or 16 x 16 transpose of f32 vectors in registers, for the header kernels that turn
 * [position][channel] tiles into NCHW rows (kernel_conv_direct_ukr.h) or planes into vector
 * lanes and back (kernel_pool_ukr.h), named with the including header's prefix (no include
 * guard: included once per kernel):
 *
 *   #define VT_W 8                 // lanes: 4, 8 or 16
 *   #define VT_F(x) CDU_F(x)       // the prefix of the function, VT_F(tr)
 *   #include "kernel_vec_tr.h"     // undefines VT_W and VT_F
 *
 * VT_F(tr)(r) sets r[i][j] <- r[j][i] for vectors of VT_W floats (any vector type of that size:
 * GCC and clang treat vector types of one element type and size as one type). Moves only: no
 * value changes. */
typedef float VT_F(trv) __attribute__((vector_size(VT_W * 4)));

static inline __attribute__((always_inline)) void VT_F(tr)(VT_F(trv) r[VT_W]) {
  typedef VT_F(trv) vt;
#if VT_W == 8
  vt a[8], b[8];
  for (int i = 0; i < 8; i += 2) {
    a[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    a[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int i = 0; i < 8; i += 4)
    for (int j = 0; j < 2; j++) {
      b[i + j] = __builtin_shufflevector(a[i + j], a[i + j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      b[i + j + 2] = __builtin_shufflevector(a[i + j], a[i + j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
  /* b[0] holds column 0 of rows 0..3 and column 4 of rows 0..3, b[2] columns 1 and 5, b[1]
   * columns 2 and 6, b[3] columns 3 and 7; b[4..7] the same for rows 4..7 */
  static const int col[8] = {0, 2, 1, 3, 0, 2, 1, 3};
  for (int c = 0; c < 8; c++) {
    const int s = col[c];
    r[c] = c < 4 ? __builtin_shufflevector(b[s], b[s + 4], 0, 1, 2, 3, 8, 9, 10, 11)
                 : __builtin_shufflevector(b[s], b[s + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
#elif VT_W == 4
  const vt a0 = __builtin_shufflevector(r[0], r[1], 0, 4, 1, 5), a1 = __builtin_shufflevector(r[0], r[1], 2, 6, 3, 7);
  const vt a2 = __builtin_shufflevector(r[2], r[3], 0, 4, 1, 5), a3 = __builtin_shufflevector(r[2], r[3], 2, 6, 3, 7);
  r[0] = __builtin_shufflevector(a0, a2, 0, 1, 4, 5);
  r[1] = __builtin_shufflevector(a0, a2, 2, 3, 6, 7);
  r[2] = __builtin_shufflevector(a1, a3, 0, 1, 4, 5);
  r[3] = __builtin_shufflevector(a1, a3, 2, 3, 6, 7);
#elif VT_W == 16
  /* four stages, h = 8, 4, 2, 1: rows i and i + h (bit h of i clear) swap their off-diagonal
   * h x h blocks (lanes of r[i] with bit h set <-> lanes of r[i + h] with it clear), so each
   * element's row and lane exchange bit h; after all four, r[i][j] holds the old r[j][i] */
#define VT_ARGS(...) __VA_ARGS__
#define VT_SWAP16(h, LO, HI)                                                                     \
  for (int i = 0; i < 16; i++)                                                                   \
    if (!(i & (h))) {                                                                            \
      const vt a = r[i], b = r[i + (h)];                                                         \
      r[i] = __builtin_shufflevector(a, b, VT_ARGS LO);                                          \
      r[i + (h)] = __builtin_shufflevector(a, b, VT_ARGS HI);                                    \
    }
  VT_SWAP16(8, (0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23),
            (8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31))
  VT_SWAP16(4, (0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27),
            (4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31))
  VT_SWAP16(2, (0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29),
            (2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31))
  VT_SWAP16(1, (0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30),
            (1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31))
#undef VT_SWAP16
#undef VT_ARGS
#else
#error "VT_W must be 4, 8 or 16"
#endif
}

#undef VT_W
#undef VT_F
