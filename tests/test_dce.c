/* Dead code elimination (src/passes/dce.c): unused results go, nodes that act without
 * results stay (copy_ writes a buffer, assert may stop the call), and so does every HOP with
 * one of them in its bodies, even when the HOP's own results are unused. The program's
 * string table travels along, so assert messages survive the rebuild. */
#include "passes/passes.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static const char *src =
    "program {alloc_inputs = 1, alloc_outputs = 1}\n"
    "\n"
    "buffer @s : f32[2] = [0, 0]\n"
    "\n"
    "func @f(%x : f32[2], %p : bool[]) -> (f32[2]) {\n"
    "  %dead = neg(%x) : f32[2]\n"
    "  assert(%p) {message = \"top\"}\n"
    "  %r1 = cond(%p, %x) : f32[2]\n"
    "    then(%a : f32[2]) {\n"
    "      assert(%p) {message = \"in a branch\"}\n"
    "      return %a\n"
    "    }\n"
    "    else(%b : f32[2]) {\n"
    "      return %b\n"
    "    }\n"
    "  %r2 = cond(%p, %x) : f32[2]\n"
    "    then(%c : f32[2]) {\n"
    "      %d = neg(%c) : f32[2]\n"
    "      return %d\n"
    "    }\n"
    "    else(%e : f32[2]) {\n"
    "      return %e\n"
    "    }\n"
    "  %r3 = cond(%p, %x) : f32[2]\n"
    "    then(%g : f32[2]) {\n"
    "      copy_(@s, %g)\n"
    "      return %g\n"
    "    }\n"
    "    else(%h : f32[2]) {\n"
    "      return %h\n"
    "    }\n"
    "  %y = abs(%x) : f32[2]\n"
    "  return %y\n"
    "}\n";

/* what is left: the dead neg and %r2's cond go; the asserts, %r1's cond and %r3's cond stay */
static const char *want =
    "program {alloc_inputs = 1, alloc_outputs = 1}\n"
    "\n"
    "buffer @s : f32[2] = [0, 0]\n"
    "\n"
    "func @f(%x : f32[2], %p : bool[]) -> (f32[2]) {\n"
    "  assert(%p) {message = \"top\"}\n"
    "  %r1 = cond(%p, %x) : f32[2]\n"
    "    then(%a : f32[2]) {\n"
    "      assert(%p) {message = \"in a branch\"}\n"
    "      return %a\n"
    "    }\n"
    "    else(%b : f32[2]) {\n"
    "      return %b\n"
    "    }\n"
    "  %r3 = cond(%p, %x) : f32[2]\n"
    "    then(%g : f32[2]) {\n"
    "      copy_(@s, %g)\n"
    "      return %g\n"
    "    }\n"
    "    else(%h : f32[2]) {\n"
    "      return %h\n"
    "    }\n"
    "  %y = abs(%x) : f32[2]\n"
    "  return %y\n"
    "}\n";

int main(void) {
  char msg[512];
  berth_diag_t d = berth_diag_make(msg, sizeof msg);
  berth_ir_program_t *p = NULL;
  CHECK_MSG(berth_ir_parse(src, strlen(src), "dce.bir", &p, &d) == BERTH_OK, "%s", msg);
  if (p) CHECK_MSG(berth_pass_dce(&p, &d) == BERTH_OK, "%s", msg);
  if (p) {
    CHECK_MSG(berth_ir_validate(p, &d) == BERTH_OK, "%s", msg);
    char *text = berth_ir_print(p);
    CHECK_MSG(text && strcmp(text, want) == 0, "after dce:\n%s", text ? text : "(null)");
    free(text);
  }
  berth_ir_program_destroy(p);
  return test_finish("test_dce");
}
