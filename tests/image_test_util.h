/* Test helpers for the image decoders (src/kernels/image_codec.h): the ONNX suite's
 * ImageDecoder folders as (encoded stream, expected pixels), and the robustness sweep every
 * decoder must survive (every truncation, every single-byte corruption). Header-only. */
#ifndef BERTH_TESTS_IMAGE_TEST_UTIL_H
#define BERTH_TESTS_IMAGE_TEST_UTIL_H

#include "kernels/image_codec.h"
#include "test_util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A protobuf varint at *p (< end); false when malformed. */
static inline bool itu_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t x = 0;
  for (int s = 0; s < 64 && *p < end; s += 7) {
    uint8_t b = *(*p)++;
    x |= (uint64_t)(b & 0x7f) << s;
    if (!(b & 0x80)) { *v = x; return true; }
  }
  return false;
}

/* A serialized TensorProto's raw_data (field 9) and dims (field 1, packed or not, at most 8).
 * Returns false when the message is malformed or has no raw_data. */
static inline bool itu_tensor_raw(const uint8_t *m, size_t len, const uint8_t **raw, size_t *raw_len, int64_t *dims, int *rank) {
  const uint8_t *p = m, *end = m + len;
  *raw = NULL;
  *rank = 0;
  while (p < end) {
    uint64_t key, v;
    if (!itu_varint(&p, end, &key)) return false;
    unsigned field = (unsigned)(key >> 3), wire = (unsigned)(key & 7);
    if (wire == 0) {
      if (!itu_varint(&p, end, &v)) return false;
      if (field == 1 && *rank < 8) dims[(*rank)++] = (int64_t)v;
    } else if (wire == 2) {
      if (!itu_varint(&p, end, &v) || v > (uint64_t)(end - p)) return false;
      if (field == 9) { *raw = p; *raw_len = (size_t)v; }
      if (field == 1) {
        const uint8_t *q = p, *qe = p + v;
        while (q < qe && *rank < 8) {
          uint64_t d;
          if (!itu_varint(&q, qe, &d)) return false;
          dims[(*rank)++] = (int64_t)d;
        }
      }
      p += v;
    } else if (wire == 5) {
      if (end - p < 4) return false;
      p += 4;
    } else if (wire == 1) {
      if (end - p < 8) return false;
      p += 8;
    } else {
      return false;
    }
  }
  return *raw != NULL;
}

/* One suite case: the encoded stream and the expected decoded HxWxC bytes. */
typedef struct itu_case {
  char *in_file, *out_file; /* the whole .pb files (owned) */
  const uint8_t *stream;
  size_t stream_len;
  const uint8_t *pixels;
  size_t pixels_len;
  int64_t dims[8];
  int rank;
} itu_case_t;

/* Loads BERTH_DATA_DIR/onnx-backend-tests/node/<folder>/test_data_set_0; false (with a
 * message on stderr) when the suite is absent, so the caller can skip. */
static inline bool itu_case_load(const char *folder, itu_case_t *c) {
  char path[1024];
  size_t n_in = 0, n_out = 0;
  memset(c, 0, sizeof *c);
  snprintf(path, sizeof path, "%s/onnx-backend-tests/node/%s/test_data_set_0/input_0.pb", BERTH_DATA_DIR, folder);
  c->in_file = test_read_file(path, &n_in);
  snprintf(path, sizeof path, "%s/onnx-backend-tests/node/%s/test_data_set_0/output_0.pb", BERTH_DATA_DIR, folder);
  c->out_file = test_read_file(path, &n_out);
  if (!c->in_file || !c->out_file) {
    fprintf(stderr, "skip: %s not found under %s\n", folder, BERTH_DATA_DIR);
    free(c->in_file);
    free(c->out_file);
    return false;
  }
  int64_t in_dims[8];
  int in_rank;
  CHECK(itu_tensor_raw((const uint8_t *)c->in_file, n_in, &c->stream, &c->stream_len, in_dims, &in_rank));
  CHECK(itu_tensor_raw((const uint8_t *)c->out_file, n_out, &c->pixels, &c->pixels_len, c->dims, &c->rank));
  return c->stream && c->pixels;
}

static inline void itu_case_free(itu_case_t *c) {
  free(c->in_file);
  free(c->out_file);
}

/* Decodes with a bound of max_h x max_w into fresh exact-size heap buffers (so ASan sees any
 * out-of-bounds access); returns the decoder's message (NULL: success) and, on success,
 * the pixels in *rgb (malloc'd; the caller frees). */
typedef const char *(*itu_decode_fn)(const uint8_t *src, size_t n, berth_image_dst_t *dst);
typedef uint64_t (*itu_scratch_fn)(uint32_t max_h, uint32_t max_w);
static inline const char *itu_decode(itu_decode_fn dec, itu_scratch_fn scratch, const uint8_t *src, size_t n, uint32_t max_h,
                              uint32_t max_w, berth_image_dst_t *dst, uint8_t **rgb) {
  uint64_t sb = scratch(max_h, max_w);
  memset(dst, 0, sizeof *dst);
  dst->max_height = max_h;
  dst->max_width = max_w;
  dst->rgb = malloc((size_t)max_h * max_w * 3 + 1);
  dst->scratch_bytes = (size_t)sb;
  dst->scratch = sb ? aligned_alloc(16, ((size_t)sb + 15) & ~(size_t)15) : NULL;
  uint8_t *src_copy = malloc(n ? n : 1); /* exact size: a read past the end is caught */
  memcpy(src_copy, src, n);
  const char *why = dec(src_copy, n, dst);
  free(src_copy);
  free(dst->scratch);
  dst->scratch = NULL;
  if (why) {
    free(dst->rgb);
    dst->rgb = NULL;
  }
  *rgb = dst->rgb;
  return why;
}

/* Every truncation and every single-byte change (each byte xor 0xff, 0x01 and 0x80) of a
 * valid stream: the decoder must return (a message or an image within the bound), never
 * crash or touch memory outside its buffers (run under ASan/UBSan). Returns how many of
 * the damaged streams were refused, for the caller to check that damage is noticed. */
static inline int itu_robustness_sweep(itu_decode_fn dec, itu_scratch_fn scratch, const uint8_t *src, size_t n, uint32_t max_h,
                                uint32_t max_w) {
  int refused = 0;
  uint8_t *buf = malloc(n ? n : 1);
  for (size_t cut = 0; cut < n; cut++) {
    berth_image_dst_t d;
    uint8_t *rgb;
    if (itu_decode(dec, scratch, src, cut, max_h, max_w, &d, &rgb)) refused++;
    else CHECK(d.height <= max_h && d.width <= max_w);
    free(rgb);
  }
  static const uint8_t flips[3] = {0xff, 0x01, 0x80};
  for (size_t i = 0; i < n; i++) {
    for (int f = 0; f < 3; f++) {
      memcpy(buf, src, n);
      buf[i] ^= flips[f];
      berth_image_dst_t d;
      uint8_t *rgb;
      if (itu_decode(dec, scratch, buf, n, max_h, max_w, &d, &rgb)) refused++;
      else CHECK(d.height <= max_h && d.width <= max_w);
      free(rgb);
    }
  }
  free(buf);
  return refused;
}

#endif
