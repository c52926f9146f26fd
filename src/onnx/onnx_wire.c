/* A structural check of protobuf wire bytes before protobuf-c decodes them.
 *
 * protobuf-c recurses once per nested message without a depth limit, so a file of a few
 * megabytes nesting GraphProto -> NodeProto -> AttributeProto -> GraphProto ... could
 * exhaust the stack. This walk knows which fields of ONNX's messages are messages, checks
 * every key, varint and length against the bytes that remain, and rejects nesting deeper
 * than BERTH_ONNX_MAX_NESTING. It recurses too, but only to that depth. */
#include "onnx_internal.h"

#include <stdio.h>

typedef enum wire_msg {
  W_NONE = 0,
  W_MODEL,
  W_GRAPH,
  W_NODE,
  W_ATTR,
  W_VALUE_INFO,
  W_TENSOR,
  W_SPARSE,
  W_TYPE,
  W_TYPE_TENSOR,
  W_TYPE_ONE, /* Sequence / Optional: field 1 is a TypeProto */
  W_TYPE_MAP, /* field 2 is a TypeProto */
  W_SHAPE,
  W_FUNCTION,
  W_LEAF, /* a message without message fields (Dimension, Segment, entries, opset ids) */
} wire_msg_t;

/* The message type of field `f` of message `m`, W_NONE if it is not a message. */
static wire_msg_t sub_message(wire_msg_t m, uint64_t f) {
  switch (m) {
    case W_MODEL: return f == 7 ? W_GRAPH : (f == 8 || f == 14) ? W_LEAF : f == 25 ? W_FUNCTION : W_NONE;
    case W_FUNCTION:
      return f == 7 ? W_NODE : f == 11 ? W_ATTR : f == 12 ? W_VALUE_INFO : (f == 9 || f == 14) ? W_LEAF : W_NONE;
    case W_GRAPH:
      return f == 1 ? W_NODE : f == 5 ? W_TENSOR : f == 15 ? W_SPARSE : (f >= 11 && f <= 13) ? W_VALUE_INFO
             : f == 16 ? W_LEAF : W_NONE;
    case W_NODE: return f == 5 ? W_ATTR : f == 9 ? W_LEAF : W_NONE;
    case W_ATTR:
      return (f == 5 || f == 10) ? W_TENSOR : (f == 6 || f == 11) ? W_GRAPH : (f == 22 || f == 23) ? W_SPARSE
             : (f == 14 || f == 15) ? W_TYPE : W_NONE;
    case W_VALUE_INFO: return f == 2 ? W_TYPE : f == 4 ? W_LEAF : W_NONE;
    case W_TENSOR: return (f == 3 || f == 13 || f == 16) ? W_LEAF : W_NONE;
    case W_SPARSE: return (f == 1 || f == 2) ? W_TENSOR : W_NONE;
    case W_TYPE:
      return f == 1 ? W_TYPE_TENSOR : (f == 4 || f == 9) ? W_TYPE_ONE : f == 5 ? W_TYPE_MAP : f == 8 ? W_TYPE_TENSOR
                                                                                                     : W_NONE;
    case W_TYPE_TENSOR: return f == 2 ? W_SHAPE : W_NONE;
    case W_TYPE_ONE: return f == 1 ? W_TYPE : W_NONE;
    case W_TYPE_MAP: return f == 2 ? W_TYPE : W_NONE;
    case W_SHAPE: return f == 1 ? W_LEAF : W_NONE;
    default: return W_NONE;
  }
}

static bool read_varint(const uint8_t *b, size_t len, size_t *pos, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*pos >= len) return false;
    uint8_t c = b[(*pos)++];
    if (shift == 63 && (c & 0x7e)) return false; /* more than 64 bits */
    v |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

static berth_status_t walk(const uint8_t *b, size_t len, size_t base, wire_msg_t m, int depth, berth_diag_t *diag) {
  if (depth > BERTH_ONNX_MAX_NESTING)
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE,
                      "onnx: messages nest more than %d deep at byte %zu (graphs inside graphs too deep)",
                      BERTH_ONNX_MAX_NESTING, base);
  size_t pos = 0;
  while (pos < len) {
    size_t at = pos;
    uint64_t key;
    if (!read_varint(b, len, &pos, &key))
      return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "onnx: truncated field key at byte %zu", base + at);
    uint64_t field = key >> 3;
    unsigned wt = (unsigned)(key & 7);
    if (field == 0 || field > 536870911u)
      return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "onnx: invalid field number %llu at byte %zu",
                        (unsigned long long)field, base + at);
    uint64_t v;
    switch (wt) {
      case 0:
        if (!read_varint(b, len, &pos, &v))
          return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "onnx: truncated varint at byte %zu", base + pos);
        break;
      case 1:
        if (len - pos < 8)
          return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "onnx: truncated 64-bit field at byte %zu", base + pos);
        pos += 8;
        break;
      case 5:
        if (len - pos < 4)
          return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "onnx: truncated 32-bit field at byte %zu", base + pos);
        pos += 4;
        break;
      case 2: {
        if (!read_varint(b, len, &pos, &v))
          return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "onnx: truncated length at byte %zu", base + pos);
        if (v > len - pos)
          return berth_fail(diag, BERTH_ERR_CORRUPT_DATA,
                            "onnx: field %llu at byte %zu has length %llu but only %zu bytes remain",
                            (unsigned long long)field, base + at, (unsigned long long)v, len - pos);
        wire_msg_t sub = sub_message(m, field);
        if (sub != W_NONE) {
          berth_status_t st = walk(b + pos, (size_t)v, base + pos, sub, depth + 1, diag);
          if (st) return st;
        }
        pos += (size_t)v;
        break;
      }
      default:
        return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "onnx: unsupported wire type %u at byte %zu", wt, base + at);
    }
  }
  return BERTH_OK;
}

berth_status_t ox_wire_check_model(const uint8_t *bytes, size_t len, berth_diag_t *diag) {
  return walk(bytes, len, 0, W_MODEL, 0, diag);
}

berth_status_t ox_wire_check_tensor(const uint8_t *bytes, size_t len, berth_diag_t *diag) {
  return walk(bytes, len, 0, W_TENSOR, 0, diag);
}
