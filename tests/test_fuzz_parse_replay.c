/* Replays the text-parser fuzz corpus (fuzz/corpus/parse) and the .bir test inputs
 * (tests/bir) through the fuzz target's check (berth/testing.h), without libFuzzer. */
#define _POSIX_C_SOURCE 200809L
#include "berth/testing.h"

#include "test_util.h"

static void replay_one(const char *path, const char *name, const unsigned char *data, size_t len, void *ctx) {
  (void)name;
  (void)ctx;
  static char why[1 << 16];
  int rc = berth_fuzz_parse_check(data, len, why, sizeof why);
  CHECK_MSG(rc == 0, "%s: %s", path, why);
}

int main(void) {
  int n = test_replay_dir(BERTH_SOURCE_DIR "/fuzz/corpus/parse", NULL, 0, replay_one, NULL);
  CHECK_MSG(n >= 5, "only %d corpus files", n);
  test_replay_dir(BERTH_SOURCE_DIR "/tests/bir", NULL, 0, replay_one, NULL);
  return test_finish("test_fuzz_parse_replay");
}
