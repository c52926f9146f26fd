/* The public headers the berth tool's dis, ops and compile --ops-header use, as an embedder
 * would: berth/ops.h (the op table by number), berth/inspect.h (the disassembler, the file
 * check and the kernels a program file calls) and the argument checks of berth/testing.h. */
#include "berth/compiler.h"
#include "berth/inspect.h"
#include "berth/ops.h"
#include "berth/testing.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static char msg[2048];

static int32_t op_number(const char *name) {
  for (int32_t k = 0; k < berth_op_count(); k++) {
    berth_op_info_t o;
    if (berth_op_info(k, &o) == BERTH_OK && strcmp(o.name, name) == 0) return k;
  }
  return -1;
}

static void test_ops(void) {
  int32_t n = berth_op_count();
  CHECK(n > 100);
  berth_op_info_t o;
  for (int32_t k = 0; k < n; k++) {
    CHECK_MSG(berth_op_info(k, &o) == BERTH_OK, "op %d", (int)k);
    CHECK(o.name && o.enum_name && o.kind && o.n_attrs >= 0 && o.min_inputs >= 0);
    CHECK(o.max_inputs == -1 || o.max_inputs >= o.min_inputs);
    for (int32_t a = 0; a < o.n_attrs; a++) CHECK(berth_op_attr_name(k, a) != NULL);
    CHECK(berth_op_attr_name(k, o.n_attrs) == NULL && berth_op_attr_name(k, -1) == NULL);
    CHECK_MSG(op_number(o.name) == k, "op %d (%s) is not the first of its name", (int)k, o.name);
  }
  CHECK(berth_op_info(-1, &o) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_op_info(n, &o) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_op_info(0, NULL) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_op_attr_name(n, 0) == NULL && berth_op_attr_name(-1, 0) == NULL);

  int32_t add = op_number("add"), conv = op_number("conv"), loop = op_number("while_loop"), as = op_number("assert");
  CHECK(add >= 0 && conv >= 0 && loop >= 0 && as >= 0);
  if (add >= 0 && berth_op_info(add, &o) == BERTH_OK)
    CHECK(strcmp(o.enum_name, "ADD") == 0 && strcmp(o.kind, "kernel") == 0 && o.min_inputs == 2 && o.max_inputs == 2 &&
          o.n_outputs == 1 && o.n_attrs == 0);
  if (conv >= 0 && berth_op_info(conv, &o) == BERTH_OK) {
    CHECK(strcmp(o.enum_name, "CONV") == 0 && o.min_inputs == 2 && o.max_inputs == 4 && o.n_attrs == 7);
    CHECK(strcmp(berth_op_attr_name(conv, 0), "strides") == 0 && strcmp(berth_op_attr_name(conv, 3), "group") == 0 &&
          strcmp(berth_op_attr_name(conv, 4), "act") == 0);
  }
  if (loop >= 0 && berth_op_info(loop, &o) == BERTH_OK)
    CHECK(strcmp(o.kind, "control") == 0 && o.n_outputs == -1 && o.max_inputs == -1);
  if (as >= 0 && berth_op_info(as, &o) == BERTH_OK) CHECK(strcmp(o.kind, "check") == 0);
}

/* The seed; with regions, ExecuTorch's scheme, unverified: a plan the verifier rejects. */
static berth_compilation_t *compile_seed(bool regions) {
  size_t len;
  char *src = test_read_file("examples/seed/seed.bir", &len);
  CHECK(src != NULL);
  if (!src) return NULL;
  berth_compile_options_t opt = berth_compile_options_default();
  if (regions) {
    opt.strategy = "regions";
    opt.verify = false;
  }
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_compilation_t *c = NULL;
  CHECK_MSG(berth_compile(src, len, "seed.bir", &opt, &c, &diag) == BERTH_OK, "%s", msg);
  free(src);
  return c;
}

static void test_check(const uint8_t *file, size_t len) {
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK_MSG(berth_program_check(file, len, true, &diag) == BERTH_OK, "%s", msg);
  CHECK(berth_program_check(file, len, false, &diag) == BERTH_OK);
  CHECK(berth_program_check(NULL, len, true, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_program_check(file, 8, true, &diag) != BERTH_OK && msg[0]);
  uint8_t *bad = malloc(len);
  if (!bad) return;
  memcpy(bad, file, len);
  bad[len - 1] ^= 1;
  CHECK(berth_program_check(bad, len, false, &diag) == BERTH_ERR_CORRUPT_DATA);
  free(bad);
}

/* A file whose plan breaks the memory rules: refused with verify, readable without. */
static void test_unverified(void) {
  berth_compilation_t *c = compile_seed(true);
  if (!c) return;
  size_t len;
  const uint8_t *file = berth_compilation_bytes(c, &len);
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_program_check(file, len, true, &diag) == BERTH_ERR_VERIFY_FAILED && strstr(msg, "verifier"));
  CHECK(berth_program_check(file, len, false, &diag) == BERTH_OK);
  char *text = NULL;
  CHECK(berth_disassemble(file, len, "r", true, &text, &diag) == BERTH_ERR_VERIFY_FAILED && !text);
  CHECK(berth_disassemble(file, len, "r", false, &text, &diag) == BERTH_OK && text &&
        strstr(text, "NOT verified") != NULL);
  free(text);
  berth_compilation_destroy(c);
}

static void test_disassemble(const uint8_t *file, size_t len) {
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  char *text = NULL;
  CHECK_MSG(berth_disassemble(file, len, "seed.berth", true, &text, &diag) == BERTH_OK, "%s", msg);
  if (text) {
    CHECK(strncmp(text, "seed.berth: berth program file version ", 39) == 0);
    CHECK(strstr(text, ", verified\n") && strstr(text, "\nmethod forward: 1 input, 2 outputs") &&
          strstr(text, "  instructions:\n") && strstr(text, "IR section: "));
    free(text);
  }
  text = NULL;
  CHECK(berth_disassemble(file, len, NULL, false, &text, &diag) == BERTH_OK);
  if (text) {
    CHECK(strncmp(text, "<program>: ", 11) == 0);
    free(text);
  }
  /* errors: NULL arguments, a damaged file (nothing written) */
  char *keep = (char *)"untouched";
  text = keep;
  CHECK(berth_disassemble(NULL, len, "x", true, &text, &diag) == BERTH_ERR_INVALID_ARGUMENT && text == keep);
  CHECK(berth_disassemble(file, len, "x", true, NULL, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  uint8_t *bad = malloc(len);
  if (!bad) return;
  memcpy(bad, file, len);
  bad[len / 2] ^= 0x10;
  diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_disassemble(bad, len, "x", true, &text, &diag) == BERTH_ERR_CORRUPT_DATA && text == keep && msg[0]);
  CHECK(berth_disassemble(bad, 10, "x", true, &text, &diag) != BERTH_OK && text == keep);
  free(bad);
}

static void test_ops_used(const uint8_t *file, size_t len) {
  int32_t n = berth_op_count();
  bool *used = calloc((size_t)n + 1, sizeof *used);
  if (!used) return;
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  CHECK(berth_program_ops_used(file, len, true, used, n - 1, &diag) == BERTH_ERR_INVALID_ARGUMENT && msg[0]);
  CHECK(berth_program_ops_used(NULL, len, true, used, n, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_program_ops_used(file, len, true, NULL, n, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  used[n] = true; /* beyond n: never touched */
  CHECK_MSG(berth_program_ops_used(file, len, true, used, n, &diag) == BERTH_OK, "%s", msg);
  CHECK(used[n]);
  /* the seed adds and compares (examples/seed/seed.bir); it never convolves */
  int32_t add = op_number("add"), conv = op_number("conv");
  CHECK(add >= 0 && used[add]);
  CHECK(conv >= 0 && !used[conv]);
  int kernels = 0;
  for (int32_t k = 0; k < n; k++) {
    berth_op_info_t o;
    if (!used[k]) continue;
    kernels++;
    CHECK_MSG(berth_op_info(k, &o) == BERTH_OK && strcmp(o.kind, "kernel") == 0, "op %d used", (int)k);
  }
  CHECK(kernels >= 2);
  free(used);
}

static void test_testing_arguments(void) {
  char why[64];
  CHECK(berth_fuzz_parse_check((const uint8_t *)"", 0, NULL, 0) == 0);
  CHECK(berth_fuzz_parse_check(NULL, 3, why, sizeof why) != 0 && strstr(why, "NULL data"));
  CHECK(berth_fuzz_onnx_check(NULL, 3, why, sizeof why) != 0 && strstr(why, "NULL data"));
  CHECK(berth_fuzz_onnx_check(NULL, 0, why, sizeof why) == 0);
  berth_fuzz_choices_t c = {NULL, 0, 0, 7};
  uint8_t *m = NULL;
  size_t len = 0;
  CHECK(berth_fuzz_onnx_numbers_model(NULL, &m, &len, NULL) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(berth_fuzz_onnx_numbers_model(&c, &m, &len, NULL) == BERTH_OK && m && len > 0);
  uint64_t after_model = c.state;
  CHECK(after_model != 7); /* the choices advanced */
  CHECK(berth_fuzz_onnx_numbers_check(NULL, m, len, why, sizeof why) != 0);
  CHECK(berth_fuzz_onnx_numbers_check(&c, NULL, 5, why, sizeof why) != 0);
  CHECK_MSG(berth_fuzz_onnx_numbers_check(&c, m, len, why, sizeof why) == 0, "%s", why);
  /* the same seed gives the same model */
  berth_fuzz_choices_t c2 = {NULL, 0, 0, 7};
  uint8_t *m2 = NULL;
  size_t len2 = 0;
  CHECK(berth_fuzz_onnx_numbers_model(&c2, &m2, &len2, NULL) == BERTH_OK && len2 == len && m2 &&
        memcmp(m, m2, len) == 0 && c2.state == after_model);
  free(m);
  free(m2);
}

int main(void) {
  test_ops();
  berth_compilation_t *c = compile_seed(false);
  if (c) {
    size_t len;
    const uint8_t *file = berth_compilation_bytes(c, &len);
    test_check(file, len);
    test_disassemble(file, len);
    test_ops_used(file, len);
    berth_compilation_destroy(c);
  }
  test_unverified();
  test_testing_arguments();
  return test_finish("test_public_inspect");
}
