/* The channel-blocked layout pass (src/passes/layout.c): a region of 1x1 convs over 256
 * channels (one reading another, a residual from the method's input, a result read plain at
 * the top level and in a cond body, a graph result) becomes conv_blocked with one reorder
 * into the layout (the input, shared by the first conv and the residual) and one out of it per
 * result read plain; the converted program computes what the plain one does (within the
 * rounding of another order of the sums) on every kernel variant under the reference
 * interpreter. The same region over 32 channels, where the reorders would cost more than the
 * layout saves, and convs that cannot run blocked (weights a parameter, 24 channels, group
 * 2) stay as they are. A pool and a concat between blocked convs run blocked too (pool_blocked,
 * a concat of blocks); a pool that would read a plain input stays plain (the region starts
 * after it, where the tensor to reorder is no larger). A first conv of a plain 3-channel input
 * joins the region after it without a reorder in. 3x3 stride-1 convs on large planes become
 * conv_winograd when asked. */
#include "berth/kernels.h"
#include "passes/passes.h"
#include "reference/reference.h"
#include "test_kernel_util.h"

#include <stdio.h>

/* A program of three 1x1 convs over x [1, C, hw, hw]; its text is malloc'd. */
static char *region_src(int C, int hw) {
  const size_t cap = 4u << 20;
  char *s = malloc(cap), *e = s + cap, *o = s;
  if (!s) return NULL;
  uint32_t r = 12345;
  for (int k = 1; k <= 3; k++) {
    o += snprintf(o, (size_t)(e - o), "const @w%d : f32[%d,%d,1,1] = [", k, C, C);
    for (int i = 0; i < C * C; i++) {
      r = r * 1103515245u + 12345u;
      o += snprintf(o, (size_t)(e - o), "%s%s0.%03d", i ? ", " : "", (r >> 20) % 2 ? "-" : "", (int)((r >> 8) % 60));
    }
    o += snprintf(o, (size_t)(e - o), "]\nconst @b%d : f32[%d] = [", k, C);
    for (int i = 0; i < C; i++) o += snprintf(o, (size_t)(e - o), "%s0.%02d", i ? ", " : "", i % 50);
    o += snprintf(o, (size_t)(e - o), "]\n");
  }
  char t[64];
  snprintf(t, sizeof t, "f32[1,%d,%d,%d]", C, hw, hw);
  o += snprintf(o, (size_t)(e - o),
                "func @f(%%x : %s, %%p : bool[]) -> (%s, %s, %s) {\n"
                "  %%a = conv(%%x, @w1, @b1) {act = 1} : %s\n"
                "  %%c = conv(%%a, @w2, @b2, %%x) {act = 1} : %s\n"
                "  %%d = conv(%%c, @w3, @b3) : %s\n"
                "  %%n = neg(%%c) : %s\n"
                "  %%e = cond(%%p, %%x) : %s\n"
                "    then(%%t : %s) {\n"
                "      %%u = abs(%%c) : %s\n"
                "      return %%u\n"
                "    }\n"
                "    else(%%v : %s) {\n"
                "      return %%v\n"
                "    }\n"
                "  return %%d, %%n, %%e\n"
                "}\n",
                t, t, t, t, t, t, t, t, t, t, t, t);
  return s;
}

static int count_op(const berth_ir_program_t *p, berth_op_t op) {
  int k = 0;
  for (int32_t i = 0; i < p->methods[0].n_nodes; i++) k += p->methods[0].nodes[i].op == op;
  return k;
}

static berth_ir_program_t *parse(const char *src) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  CHECK_MSG(berth_ir_parse(src, strlen(src), "layout.bir", &p, &d) == BERTH_OK, "%s", msg);
  return p;
}

/* The layout pass over *p (Winograd on or off), then DCE and validation; the nodes converted. */
static int32_t convert(berth_ir_program_t **p, bool winograd) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  const int32_t n = berth_pass_block_layout(*p, winograd);
  CHECK_MSG(berth_pass_dce(p, &d) == BERTH_OK, "%s", msg);
  CHECK_MSG(berth_ir_validate(*p, &d) == BERTH_OK, "the converted program is invalid: %s", msg);
  return n;
}

static bool run_ref(const berth_ir_program_t *p, const void *const *in, void **outs) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ref_t *r = NULL;
  bool ok = berth_ref_create(p, &r, &d) == BERTH_OK && berth_ref_call(r, 0, in, outs, &d) == BERTH_OK;
  CHECK_MSG(ok, "reference run: %s", msg);
  berth_ref_destroy(r);
  return ok;
}

/* The plain and the converted program (at most 4 outputs) called with `in` under the
 * reference interpreter on every kernel variant of this build: their first n_out outputs, of
 * nel floats each, agree within the rounding of another order of the sums. */
static void same_outputs(const berth_ir_program_t *plain, const berth_ir_program_t *blk, const void *const *in,
                         int n_out, int64_t nel, const char *what) {
  static const berth_kernels_isa_t isas[] = {BERTH_KERNELS_PORTABLE, BERTH_KERNELS_AVX2, BERTH_KERNELS_AVX512,
                                             BERTH_KERNELS_NEON};
  for (size_t v = 0; v < sizeof isas / sizeof isas[0]; v++) {
    if (!berth_kernels_available(isas[v]) || berth_kernels_select(isas[v]) != BERTH_OK) continue;
    void *a[4] = {0}, *b[4] = {0};
    if (run_ref(plain, in, a) && run_ref(blk, in, b))
      for (int o = 0; o < n_out; o++) {
        const float *fa = a[o], *fb = b[o];
        int64_t bad = -1;
        for (int64_t i = 0; i < nel && bad < 0; i++)
          if (!(fabsf(fa[i] - fb[i]) <= 1e-4f * (1.0f + fabsf(fa[i])))) bad = i;
        CHECK_MSG(bad < 0, "%s kernels, %s: output %d element %lld is %.9g blocked, %.9g plain",
                  berth_kernels_isa_name(isas[v]), what, o, (long long)bad, bad < 0 ? 0.0 : fb[bad],
                  bad < 0 ? 0.0 : fa[bad]);
      }
    for (int o = 0; o < 4; o++) free(a[o]), free(b[o]); /* every output, compared or not */
  }
  berth_kernels_select(BERTH_KERNELS_AUTO);
}

static void test_region(void) {
  const int C = 256, hw = 28;
  char *src = region_src(C, hw);
  if (!src) return;
  berth_ir_program_t *plain = parse(src), *blk = parse(src);
  free(src);
  if (!plain || !blk) goto done;
  const int32_t n = convert(&blk, true);
  CHECK_MSG(n == 3, "%d convs converted, expected 3", (int)n);
  CHECK(count_op(blk, BERTH_OP_CONV) == 0 && count_op(blk, BERTH_OP_CONV_BLOCKED) == 3);
  /* x in once (for the first conv and the residual), c out once (neg and the body), d out */
  CHECK_MSG(count_op(blk, BERTH_OP_TRANSPOSE) == 3, "%d transposes, expected 3", count_op(blk, BERTH_OP_TRANSPOSE));
  char *text = berth_ir_print(blk);
  static const char *const want[] = {
      "%x_split = reshape(%x) {shape = [1, 16, 16, 28, 28]} : f32[1,16,16,28,28]",
      "%x_split_blocked = transpose(%x_split) {perm = [0, 1, 3, 4, 2]} : f32[1,16,28,28,16]",
      "%a_blocked = conv_blocked(%x_split_blocked, @blocked0_0, @b1) {",
      "%c_blocked = conv_blocked(%a_blocked, @blocked0_1, @b2, %x_split_blocked) {",
      "%c = reshape(%c_blocked_nchw) {shape = [1, 256, 28, 28]} : f32[1,256,28,28]",
      "%d = reshape(%d_blocked_nchw)",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK_MSG(text && strstr(text, want[i]), "after the pass, no line with\n  %s\nin\n%s", want[i],
              text && strstr(text, "func @f") ? strstr(text, "func @f") : "");
  free(text);
  const int64_t nel = (int64_t)C * hw * hw;
  float *x = malloc((size_t)nel * sizeof(float));
  for (int64_t i = 0; i < nel; i++) x[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;
  for (uint8_t pred = 0; pred < 2; pred++) {
    const void *in[] = {x, &pred};
    same_outputs(plain, blk, in, 3, nel, pred ? "pred 1" : "pred 0");
  }
  free(x);
done:
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(blk);
}

/* Constants @w1.. (k of them, [m, c, 1, 1]) as text at o; returns the new end. */
static char *weights_src(char *o, char *e, int k0, int k1, int m, int c) {
  uint32_t r = 777;
  for (int k = k0; k <= k1; k++) {
    o += snprintf(o, (size_t)(e - o), "const @w%d : f32[%d,%d,1,1] = [", k, m, c);
    for (int i = 0; i < m * c; i++) {
      r = r * 1103515245u + 12345u;
      o += snprintf(o, (size_t)(e - o), "%s%s0.%03d", i ? ", " : "", (r >> 20) % 2 ? "-" : "", (int)((r >> 8) % 60));
    }
    o += snprintf(o, (size_t)(e - o), "]\n");
  }
  return o;
}

/* a pool and a concat inside a region of 1x1 convs; a pool reading a plain input stays plain */
static void test_pool_concat(void) {
  const size_t cap = 8u << 20;
  char *s = malloc(cap), *e = s + cap, *o = s;
  if (!s) return;
  o = weights_src(o, e, 1, 3, 256, 256);
  o = weights_src(o, e, 4, 4, 256, 512);
  const char *t = "f32[1,256,28,28]";
  snprintf(o, (size_t)(e - o),
           "func @f(%%x : %s) -> (%s) {\n"
           "  %%p = max_pool(%%x) {kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : %s\n"
           "  %%a = conv(%%p, @w1) : %s\n"
           "  %%q = max_pool(%%a) {kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : %s\n"
           "  %%b = conv(%%q, @w2) : %s\n"
           "  %%c = conv(%%a, @w3) : %s\n"
           "  %%j = concat(%%b, %%c) {axis = 1} : f32[1,512,28,28]\n"
           "  %%d = conv(%%j, @w4) : %s\n"
           "  return %%d\n"
           "}\n",
           t, t, t, t, t, t, t, t);
  berth_ir_program_t *plain = parse(s), *blk = parse(s);
  free(s);
  if (!plain || !blk) goto done;
  CHECK_MSG(convert(&blk, true) == 6, "expected 4 convs, a pool and a concat converted");
  CHECK(count_op(blk, BERTH_OP_CONV_BLOCKED) == 4 && count_op(blk, BERTH_OP_POOL_BLOCKED) == 1);
  CHECK(count_op(blk, BERTH_OP_MAX_POOL) == 1 && count_op(blk, BERTH_OP_TRANSPOSE) == 2);
  char *text = berth_ir_print(blk);
  static const char *const want[] = {
      "%p_split = reshape(%p) {shape = [1, 16, 16, 28, 28]}",
      "%q_blocked = pool_blocked(%a_blocked) {kernel_shape = [3, 3], strides = [], pads = [1, 1, 1, 1],",
      "dilations = [], flags = 0, kind = 0} : f32[1,16,28,28,16]",
      "%j_blocked = concat(%b_blocked, %c_blocked) {axis = 1} : f32[1,32,28,28,16]",
      "%d = reshape(%d_blocked_nchw) {shape = [1, 256, 28, 28]}",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK_MSG(text && strstr(text, want[i]), "after the pass, no line with\n  %s\nin\n%s", want[i],
              text && strstr(text, "func @f") ? strstr(text, "func @f") : "");
  free(text);
  const int64_t nel = 256 * 28 * 28;
  float *x = malloc((size_t)nel * sizeof(float));
  for (int64_t i = 0; i < nel; i++) x[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;
  const void *in[] = {x};
  same_outputs(plain, blk, in, 1, nel, "a pool and a concat");
  free(x);
done:
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(blk);
}

/* a parameter read blocked inside a cond body and later in the parent: each graph reorders it
 * itself (the parent's reorder comes after the cond, so the body cannot use it) */
static void test_body_then_parent(void) {
  const size_t cap = 8u << 20;
  char *s = malloc(cap), *e = s + cap, *o = s;
  if (!s) return;
  o = weights_src(o, e, 1, 4, 256, 256);
  const char *t = "f32[1,256,28,28]";
  snprintf(o, (size_t)(e - o),
           "func @f(%%x : %s, %%p : bool[]) -> (%s, %s) {\n"
           "  %%r = cond(%%p, %%x) : %s\n"
           "    then(%%u : %s) {\n"
           "      %%a = conv(%%x, @w1) : %s\n"
           "      %%b = conv(%%a, @w2) : %s\n"
           "      return %%b\n"
           "    }\n"
           "    else(%%v : %s) {\n"
           "      return %%v\n"
           "    }\n"
           "  %%c = conv(%%x, @w3) : %s\n"
           "  %%d = conv(%%c, @w4) : %s\n"
           "  return %%r, %%d\n"
           "}\n",
           t, t, t, t, t, t, t, t, t, t);
  berth_ir_program_t *plain = parse(s), *blk = parse(s);
  free(s);
  if (!plain || !blk) goto done;
  CHECK_MSG(convert(&blk, true) == 4, "expected the 4 convs converted");
  const int64_t nel = 256 * 28 * 28;
  float *x = malloc((size_t)nel * sizeof(float));
  for (int64_t i = 0; i < nel; i++) x[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;
  for (uint8_t pred = 0; pred < 2; pred++) {
    const void *in[] = {x, &pred};
    same_outputs(plain, blk, in, 2, nel, pred ? "body then parent, pred 1" : "body then parent, pred 0");
  }
  free(x);
done:
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(blk);
}

/* where the reorders cost more than the layout saves (few channels: little work per element
 * reordered): nothing changes */
static void test_few_channels(void) {
  char *src = region_src(32, 28);
  if (!src) return;
  berth_ir_program_t *p = parse(src);
  free(src);
  if (!p) return;
  CHECK_MSG(berth_pass_block_layout(p, true) == 0, "a region over 32 channels was converted");
  CHECK(count_op(p, BERTH_OP_CONV) == 3 && count_op(p, BERTH_OP_TRANSPOSE) == 0);
  berth_ir_program_destroy(p);
}

/* a first conv of a plain 3-channel input (a network's stem) joins the region that follows
 * it: conv_blocked reads the plain input as one block of 3 channels, nothing is reordered on
 * the way in, and the pool after it runs blocked */
static void test_plain_input(void) {
  const size_t cap = 4u << 20;
  char *s = malloc(cap), *e = s + cap, *o = s;
  if (!s) return;
  o = weights_src(o, e, 1, 1, 256, 64);
  o = weights_src(o, e, 2, 2, 256, 256);
  o += snprintf(o, (size_t)(e - o), "const @ws : f32[64,3,3,3] = [");
  for (int i = 0; i < 64 * 27; i++) o += snprintf(o, (size_t)(e - o), "%s%s0.%03d", i ? ", " : "", i % 3 ? "" : "-", (i * 37) % 97);
  o += snprintf(o, (size_t)(e - o),
                "]\nfunc @f(%%x : f32[1,3,33,33]) -> (f32[1,256,8,8]) {\n"
                "  %%s = conv(%%x, @ws) {strides = [2, 2], pads = [1, 1, 1, 1], act = 1} : f32[1,64,17,17]\n"
                "  %%p = max_pool(%%s) {kernel_shape = [3, 3], strides = [2, 2]} : f32[1,64,8,8]\n"
                "  %%a = conv(%%p, @w1) {act = 1} : f32[1,256,8,8]\n"
                "  %%b = conv(%%a, @w2) : f32[1,256,8,8]\n"
                "  return %%b\n}\n");
  berth_ir_program_t *plain = parse(s), *blk = parse(s);
  free(s);
  if (!plain || !blk) goto done;
  const int32_t n = convert(&blk, true);
  CHECK_MSG(n == 4, "%d nodes converted, expected 4 (the stem, the pool, two 1x1s)", (int)n);
  CHECK(count_op(blk, BERTH_OP_CONV) == 0 && count_op(blk, BERTH_OP_CONV_BLOCKED) == 3 &&
        count_op(blk, BERTH_OP_POOL_BLOCKED) == 1);
  CHECK_MSG(count_op(blk, BERTH_OP_TRANSPOSE) == 1, "%d transposes, expected 1 (the result out)",
            count_op(blk, BERTH_OP_TRANSPOSE));
  char *text = berth_ir_print(blk);
  CHECK_MSG(text && strstr(text, "%s_blocked = conv_blocked(%x, @blocked0_0) {"), "the stem does not read %%x plain:\n%s",
            text ? text : "");
  free(text);
  const int64_t nel = 3 * 33 * 33, nout = 256 * 8 * 8;
  float *x = malloc((size_t)nel * sizeof(float));
  for (int64_t i = 0; i < nel; i++) x[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;
  const void *in[] = {x};
  same_outputs(plain, blk, in, 1, nout, "a plain-input stem");
  free(x);
done:
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(blk);
}

/* convs that cannot run blocked, each linked to a conv that could */
static void test_ineligible(void) {
  static const char *src =
      "func @f(%x : f32[1,32,8,8], %w : f32[32,32,1,1], %y : f32[1,24,8,8], %v : f32[24,24,1,1], %g : "
      "f32[32,16,1,1]) -> (f32[1,32,8,8], f32[1,24,8,8], f32[1,32,8,8]) {\n"
      "  %a = conv(%x, %w) : f32[1,32,8,8]\n"
      "  %b = conv(%a, %w) : f32[1,32,8,8]\n"
      "  %c = conv(%y, %v) : f32[1,24,8,8]\n"
      "  %d = conv(%c, %v) : f32[1,24,8,8]\n"
      "  %e = conv(%x, %g) {group = 2} : f32[1,32,8,8]\n"
      "  %f = conv(%e, %g) {group = 2} : f32[1,32,8,8]\n"
      "  return %b, %d, %f\n"
      "}\n";
  berth_ir_program_t *p = parse(src);
  if (!p) return;
  CHECK_MSG(berth_pass_block_layout(p, true) == 0, "a conv with parameter weights, 24 channels or groups was converted");
  CHECK(count_op(p, BERTH_OP_CONV) == 6);
  berth_ir_program_destroy(p);
}

/* 3x3 convs of stride 1 on planes of 144 outputs or more become conv_winograd when the pass
 * is asked for it (with bias, activation and a residual), the others (stride 2, dilation 2, a
 * 7x7 plane, 1x1) conv_blocked; never with winograd off; the outputs agree with the plain
 * program's on every variant. */
static void test_winograd(void) {
  const size_t cap = 8u << 20;
  char *s = malloc(cap), *e = s + cap, *o = s;
  if (!s) return;
  uint32_t r = 4242;
  for (int k = 1; k <= 7; k++) {
    const int kk = k == 1 ? 1 : 3;
    o += snprintf(o, (size_t)(e - o), "const @w%d : f32[64,64,%d,%d] = [", k, kk, kk);
    for (int i = 0; i < 64 * 64 * kk * kk; i++) {
      r = r * 1103515245u + 12345u;
      o += snprintf(o, (size_t)(e - o), "%s%s0.%03d", i ? ", " : "", (r >> 20) % 2 ? "-" : "", (int)((r >> 8) % 40));
    }
    o += snprintf(o, (size_t)(e - o), "]\n");
  }
  o += snprintf(o, (size_t)(e - o), "const @b : f32[64] = [");
  for (int i = 0; i < 64; i++) o += snprintf(o, (size_t)(e - o), "%s0.%02d", i ? ", " : "", i % 37);
  snprintf(o, (size_t)(e - o),
           "]\nfunc @f(%%x : f32[1,64,28,28]) -> (f32[1,64,14,14], f32[1,64,7,7]) {\n"
           "  %%a = conv(%%x, @w1, @b) {act = 1} : f32[1,64,28,28]\n"
           "  %%b = conv(%%a, @w2, @b) {pads = [1, 1, 1, 1], act = 1} : f32[1,64,28,28]\n"
           "  %%c = conv(%%b, @w3) {strides = [2, 2], pads = [1, 1, 1, 1]} : f32[1,64,14,14]\n"
           "  %%d = conv(%%c, @w4, @b, %%c) {pads = [1, 1, 1, 1], act = 3, act_alpha = 0.1} : f32[1,64,14,14]\n"
           "  %%e = conv(%%d, @w5) {strides = [2, 2], pads = [1, 1, 1, 1]} : f32[1,64,7,7]\n"
           "  %%f = conv(%%e, @w6, @b) {pads = [1, 1, 1, 1], act = 1} : f32[1,64,7,7]\n"
           "  %%g = conv(%%f, @w7) {pads = [2, 2, 2, 2], dilations = [2, 2]} : f32[1,64,7,7]\n"
           "  return %%d, %%g\n"
           "}\n");
  berth_ir_program_t *plain = parse(s), *wino = parse(s), *direct = parse(s);
  free(s);
  if (!plain || !wino || !direct) goto done;
  CHECK_MSG(convert(&wino, true) == 7, "expected the 7 convs converted");
  CHECK_MSG(count_op(wino, BERTH_OP_CONV_WINOGRAD) == 2 && count_op(wino, BERTH_OP_CONV_BLOCKED) == 5,
            "%d conv_winograd and %d conv_blocked, expected 2 and 5", count_op(wino, BERTH_OP_CONV_WINOGRAD),
            count_op(wino, BERTH_OP_CONV_BLOCKED));
  char *text = berth_ir_print(wino);
  static const char *const want[] = {
      "%b_blocked = conv_winograd(%a_blocked, @winograd0_1, @b) {",
      "%d_blocked = conv_winograd(%c_blocked, @winograd0_3, @b, %c_blocked) {",
      "%f_blocked = conv_blocked(%e_blocked, @blocked0_5, @b) {",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    CHECK_MSG(text && strstr(text, want[i]), "after the pass, no line with\n  %s\nin\n%s", want[i],
              text && strstr(text, "func @f") ? strstr(text, "func @f") : "");
  CHECK_MSG(text && strstr(text, "const @winograd0_1 : f32[16,4,4,256]"), "no transformed weights f32[16,4,4,256]");
  free(text);
  CHECK(convert(&direct, false) == 7);
  CHECK(count_op(direct, BERTH_OP_CONV_WINOGRAD) == 0 && count_op(direct, BERTH_OP_CONV_BLOCKED) == 7);
  const int64_t nel = 64 * 28 * 28;
  float *x = malloc((size_t)nel * sizeof(float));
  for (int64_t i = 0; i < nel; i++) x[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;
  const void *in[] = {x};
  same_outputs(plain, wino, in, 1, 64 * 14 * 14, "winograd, the 14x14 result");
  free(x);
done:
  berth_ir_program_destroy(plain);
  berth_ir_program_destroy(wino);
  berth_ir_program_destroy(direct);
}

int main(void) {
  test_region();
  test_winograd();
  test_few_channels();
  test_pool_concat();
  test_body_then_parent();
  test_plain_input();
  test_ineligible();
  return test_finish("test_layout");
}
