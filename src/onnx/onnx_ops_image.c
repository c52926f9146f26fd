/* ONNX ImageDecoder (opset 20): an encoded image (a 1-D uint8 stream) to [H, W, C] uint8
 * pixels, C 3 for pixel_format RGB / BGR, 1 for Grayscale, as the ONNX reference decodes it
 * (Pillow). The decoders are the runtime's (src/kernels/image_*.c, image_sniff.h).
 *
 * The result's shape depends on the stream. A constant stream (a model constant, or a graph
 * input the model is specialized on) is decoded here and the result is a constant; a bad
 * stream fails the import naming the node and the decoder's message. Under --dynamic-bound N
 * a run-time stream goes to the kernel image_decoder: the result is planned [N, N, C] with
 * both its height and its width a run-time extent (it may only be a graph output), and
 * asserts after it fail the call when the image is larger than N x N or no decoder accepts
 * the stream. Otherwise the stream must be known at compile time. */
#include "onnx_internal.h"

#include "kernels/image_sniff.h"
#include "kernels/kernel_scratch.h"

#include <stdlib.h>
#include <string.h>

/* The largest constant image decoded at import (a square bound; tried after a small one). */
#define IMG_FOLD_SMALL 256u
#define IMG_FOLD_MAX 8192u

static berth_status_t oom(ox_ctx_t *cx) { return berth_fail(cx->diag, BERTH_ERR_RESOURCE_EXHAUSTED, "onnx: out of memory"); }

/* Decodes src with a b x b bound into fresh buffers; *why NULL on success (then *rgb is the
 * caller's to free). */
static berth_status_t decode_bounded(ox_ctx_t *cx, const uint8_t *src, size_t n, berth_image_pixels_t pf, uint32_t b,
                                     berth_image_dst_t *d, const char **why) {
  uint64_t sb = berth_image_scratch_bytes(b, b);
  memset(d, 0, sizeof *d);
  d->max_height = d->max_width = b;
  d->rgb = malloc((size_t)b * b * 3);
  d->scratch_bytes = (size_t)((sb + 15) & ~(uint64_t)15);
  d->scratch = d->scratch_bytes ? aligned_alloc(16, d->scratch_bytes) : NULL;
  if (!d->rgb || (d->scratch_bytes && !d->scratch)) {
    free(d->rgb);
    free(d->scratch);
    return oom(cx);
  }
  *why = berth_image_decode(src, n, pf, d);
  free(d->scratch);
  d->scratch = NULL;
  if (*why) {
    free(d->rgb);
    d->rgb = NULL;
  }
  return BERTH_OK;
}


/* A constant stream decoded now: the result is a constant [h, w, C]. */
static berth_status_t fold(ox_ctx_t *cx, int32_t x, berth_image_pixels_t pf) {
  const uint8_t *src = (const uint8_t *)cx->vals[x].data;
  size_t n = (size_t)cx->vals[x].type.dims[0];
  berth_image_dst_t d;
  const char *why = NULL;
  OX_TRY(decode_bounded(cx, src, n, pf, IMG_FOLD_SMALL, &d, &why));
  if (why && berth_image_too_large(why)) OX_TRY(decode_bounded(cx, src, n, pf, IMG_FOLD_MAX, &d, &why));
  if (why) {
    if (berth_image_too_large(why))
      return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "%s (berth decodes constant images up to %ux%u)", why, IMG_FOLD_MAX,
                     IMG_FOLD_MAX);
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "%s", why);
  }
  berth_type_t t;
  memset(&t, 0, sizeof t);
  t.dtype = BERTH_DTYPE_U8;
  t.rank = 3;
  t.dims[0] = d.height, t.dims[1] = d.width, t.dims[2] = pf == BERTH_IMAGE_GRAY ? 1 : 3;
  size_t bytes = (size_t)d.height * d.width * (size_t)t.dims[2];
  uint8_t *data = realloc(d.rgb, bytes ? bytes : 1); /* the pixels are at the start */
  if (!data) {
    free(d.rgb);
    return oom(cx);
  }
  int32_t y;
  OX_TRY(ox_const_new(cx, &t, data, &y));
  return ox_out(cx, 0, y);
}

/* Names an emitted value "<the node's output>_<what>". */
static berth_status_t name_val(ox_ctx_t *cx, int32_t v, const char *what) {
  const Onnx__NodeProto *nd = cx->node;
  if (cx->vals[v].id < 0) return BERTH_OK;
  char buf[300];
  berth_snprintf(buf, sizeof buf, "%s_%s", nd->n_output && nd->output[0] && nd->output[0][0] ? nd->output[0] : "r", what);
  size_t len = strlen(buf) + 1;
  char *name = malloc(len);
  if (!name) return oom(cx);
  memcpy(name, buf, len);
  berth_ir_value_t *xv = &cx->m->values[cx->vals[v].id];
  free(xv->name);
  xv->name = name;
  return BERTH_OK;
}

/* assert(status != code) with message what. */
static berth_status_t check_status(ox_ctx_t *cx, int32_t status, int64_t code, const char *what) {
  int32_t c, ok, in[2];
  OX_TRY(ox_const_i64(cx, &code, 1, true, &c));
  in[0] = status, in[1] = c;
  OX_TRY(ox_emit1(cx, BERTH_OP_NE, 2, in, NULL, &ok));
  return ox_assert_ok(cx, ok, what);
}

static berth_status_t bounded(ox_ctx_t *cx, int32_t x, berth_image_pixels_t pf) {
  int64_t N = cx->opt->dynamic_bound;
  if (N > 32768)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "--dynamic-bound %lld is above ImageDecoder's largest bound 32768", (long long)N);
  uint64_t dec = berth_image_scratch_bytes((uint32_t)N, (uint32_t)N), rgb = pf == BERTH_IMAGE_GRAY ? (uint64_t)N * N * 3 : 0;
  if (dec > BERTH_SCRATCH_MAX_BYTES || rgb + dec + 16 + 16 + BERTH_SCRATCH_SLACK > BERTH_SCRATCH_MAX_BYTES)
    return ox_fail(cx, BERTH_ERR_UNIMPLEMENTED, "--dynamic-bound %lld: decoding a %lldx%lld image needs more working memory "
                   "than a kernel may plan (%llu bytes)", (long long)N, (long long)N, (long long)N,
                   (unsigned long long)BERTH_SCRATCH_MAX_BYTES);
  berth_attr_value_t at[BERTH_MAX_OP_ATTRS];
  ox_attrs_default(BERTH_OP_IMAGE_DECODER, at);
  OX_TRY(ox_attr_i(cx, BERTH_OP_IMAGE_DECODER, at, "pixel_format", pf));
  OX_TRY(ox_attr_i(cx, BERTH_OP_IMAGE_DECODER, at, "bound", N));
  int32_t out[4];
  OX_TRY(ox_emit(cx, BERTH_OP_IMAGE_DECODER, 1, &x, at, 4, out));
  OX_TRY(name_val(cx, out[1], "height"));
  OX_TRY(name_val(cx, out[2], "width"));
  OX_TRY(name_val(cx, out[3], "status"));
  char what[160];
  berth_snprintf(what, sizeof what, "the image is larger than --dynamic-bound %lld (%lldx%lld pixels)", (long long)N,
               (long long)N, (long long)N);
  OX_TRY(check_status(cx, out[3], 1, what));
  OX_TRY(check_status(cx, out[3], 2, "no decoder accepts the stream (not an image berth decodes, or corrupt)"));
  ox_val_t *y = &cx->vals[out[0]];
  y->ext_count = out[1] + 1, y->ext_axis = 0, y->ext_count2 = out[2] + 1, y->ext_axis2 = 1;
  OX_TRY(ox_out(cx, 0, out[0]));
  int32_t bound_to = cx->node->n_output && cx->node->output[0] && cx->node->output[0][0] ? ox_lookup(cx, cx->node->output[0]) : -1;
  if (bound_to >= 0) {
    ox_val_t *b = &cx->vals[bound_to];
    b->ext_count = out[1] + 1, b->ext_axis = 0, b->ext_count2 = out[2] + 1, b->ext_axis2 = 1;
  }
  return BERTH_OK;
}

static berth_status_t op_image_decoder(ox_ctx_t *cx) {
  if (cx->opset < 20) return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "ImageDecoder exists from opset 20");
  int32_t x;
  OX_TRY(ox_in_req(cx, 0, &x));
  const berth_type_t *t = &cx->vals[x].type;
  if (t->dtype != BERTH_DTYPE_U8 || t->rank != 1 || cx->vals[x].elem != BERTH_ONNX_UINT8)
    return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "encoded_stream must be a 1-D uint8 tensor");
  char buf[16];
  const Onnx__AttributeProto *a = ox_attr(cx, "pixel_format");
  const char *s = ox_attr_string(cx, "pixel_format", "RGB", buf, sizeof buf);
  berth_image_pixels_t pf;
  if (a && a->s.len >= sizeof buf) s = "";
  if (strcmp(s, "RGB") == 0) pf = BERTH_IMAGE_RGB;
  else if (strcmp(s, "BGR") == 0) pf = BERTH_IMAGE_BGR;
  else if (strcmp(s, "Grayscale") == 0) pf = BERTH_IMAGE_GRAY;
  else return ox_fail(cx, BERTH_ERR_INVALID_ARGUMENT, "pixel_format '%s', expected RGB, BGR or Grayscale", s);
  if (ox_is_const(cx, x)) return fold(cx, x, pf);
  if (cx->opt->dynamic_bound > 0) return bounded(cx, x, pf);
  return ox_need_const(cx, x, "the encoded stream (it sets the result's shape; or bound it with --dynamic-bound N)");
}

const ox_op_row_t ox_ops_image[] = {
    {"ImageDecoder", op_image_decoder, BERTH_OP_COUNT},
    {NULL, NULL, BERTH_OP_COUNT},
};
