/* A bounds-checked little-endian reader over untrusted bytes (program files).
 *
 *   berth_byte_reader_t r = berth_byte_reader_make(bytes, len);
 *   uint32_t n;
 *   if (!berth_byte_reader_seek(&r, offset) || !berth_byte_reader_u32(&r, &n)) reject: truncated;
 *
 * Every read checks the remaining length first (compared as `n > len - pos`, which cannot
 * overflow because pos <= len always holds) and leaves the position and the output alone when
 * it fails. Values are assembled byte by byte, so the host's endianness and the alignment of
 * the bytes do not matter, and no file byte is ever cast to a struct. Runtime side: no
 * allocation, no stdio. */
#ifndef BERTH_BASE_BYTE_READER_H
#define BERTH_BASE_BYTE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct berth_byte_reader {
  const uint8_t *data;
  size_t len;
  size_t pos; /* invariant: pos <= len */
} berth_byte_reader_t;

static inline berth_byte_reader_t berth_byte_reader_make(const uint8_t *data, size_t len) {
  berth_byte_reader_t r;
  r.data = data;
  r.len = data ? len : 0;
  r.pos = 0;
  return r;
}

static inline size_t berth_byte_reader_remaining(const berth_byte_reader_t *r) { return r->len - r->pos; }

/* Moves to absolute position pos (pos == len is allowed: nothing left to read). */
static inline bool berth_byte_reader_seek(berth_byte_reader_t *r, uint64_t pos) {
  if (pos > r->len) return false;
  r->pos = (size_t)pos;
  return true;
}

static inline bool berth_byte_reader_skip(berth_byte_reader_t *r, uint64_t n) {
  if (n > berth_byte_reader_remaining(r)) return false;
  r->pos += (size_t)n;
  return true;
}

/* Points *out at the next n bytes (in place, no copy) and moves past them. */
static inline bool berth_byte_reader_bytes(berth_byte_reader_t *r, uint64_t n, const uint8_t **out) {
  if (n > berth_byte_reader_remaining(r)) return false;
  *out = r->data + r->pos;
  r->pos += (size_t)n;
  return true;
}

/* Little-endian loads from a pointer the caller has already bounds-checked. */
static inline uint16_t berth_load_le16(const uint8_t *p) { return (uint16_t)(p[0] | (uint16_t)p[1] << 8); }

static inline uint32_t berth_load_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t berth_load_le64(const uint8_t *p) {
  return (uint64_t)berth_load_le32(p) | (uint64_t)berth_load_le32(p + 4) << 32;
}

static inline bool berth_byte_reader_u8(berth_byte_reader_t *r, uint8_t *out) {
  if (berth_byte_reader_remaining(r) < 1) return false;
  *out = r->data[r->pos++];
  return true;
}

static inline bool berth_byte_reader_u16(berth_byte_reader_t *r, uint16_t *out) {
  if (berth_byte_reader_remaining(r) < 2) return false;
  *out = berth_load_le16(r->data + r->pos);
  r->pos += 2;
  return true;
}

static inline bool berth_byte_reader_u32(berth_byte_reader_t *r, uint32_t *out) {
  if (berth_byte_reader_remaining(r) < 4) return false;
  *out = berth_load_le32(r->data + r->pos);
  r->pos += 4;
  return true;
}

static inline bool berth_byte_reader_u64(berth_byte_reader_t *r, uint64_t *out) {
  if (berth_byte_reader_remaining(r) < 8) return false;
  *out = berth_load_le64(r->data + r->pos);
  r->pos += 8;
  return true;
}

/* Two's complement reinterpretation, without implementation-defined conversions. */
static inline int32_t berth_u32_to_i32(uint32_t u) {
  return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - (uint32_t)INT32_MAX - 1u) + INT32_MIN;
}

static inline int64_t berth_u64_to_i64(uint64_t u) {
  return u <= (uint64_t)INT64_MAX ? (int64_t)u : (int64_t)(u - (uint64_t)INT64_MAX - 1u) + INT64_MIN;
}

static inline bool berth_byte_reader_i32(berth_byte_reader_t *r, int32_t *out) {
  uint32_t u;
  if (!berth_byte_reader_u32(r, &u)) return false;
  *out = berth_u32_to_i32(u);
  return true;
}

static inline bool berth_byte_reader_i64(berth_byte_reader_t *r, int64_t *out) {
  uint64_t u;
  if (!berth_byte_reader_u64(r, &u)) return false;
  *out = berth_u64_to_i64(u);
  return true;
}

/* An IEEE-754 double stored as its 64-bit pattern. */
static inline bool berth_byte_reader_f64(berth_byte_reader_t *r, double *out) {
  uint64_t u;
  if (!berth_byte_reader_u64(r, &u)) return false;
  memcpy(out, &u, sizeof *out);
  return true;
}

#endif
