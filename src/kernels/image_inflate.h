/* The zlib/DEFLATE decompressor that the PNG and TIFF decoders share (RFC 1950, RFC 1951):
 * stored, fixed and dynamic Huffman blocks, the zlib header and the Adler-32 checked. Internal
 * to the image decoders (image_codec.h); no malloc, no stdio, its tables in the caller's
 * scratch (BERTH_INFLATE_TABLE_BYTES). */
#ifndef BERTH_KERNELS_IMAGE_INFLATE_H
#define BERTH_KERNELS_IMAGE_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#define BERTH_INFLATE_TABLE_BYTES 4096

/* The compressed bytes: one segment [p, end), or in PNG mode the data of consecutive IDAT
 * chunks (when a segment ends, the CRC is skipped and the next chunk must be an IDAT whose
 * data lies within [.., stream_end); the caller checked the chunks' CRCs and lengths). */
typedef struct berth_inflate_src {
  const uint8_t *p, *end;
  const uint8_t *stream_end;
  int png_idat;
} berth_inflate_src_t;

/* Inflates a zlib stream from *src into out[0, out_len): the stream must yield exactly
 * out_len bytes and end with a matching Adler-32. `tables` is BERTH_INFLATE_TABLE_BYTES of
 * scratch, 2-byte aligned. Returns NULL or a static message prefixed by `fmt` is not
 * possible (static), so messages read "deflate: ...". */
const char *berth_inflate_zlib(berth_inflate_src_t *src, uint8_t *out, size_t out_len, void *tables);

#endif
