/* Replays the image fuzz corpus (fuzz/corpus/image) and the decoder vectors (tests/images,
 * their .rgb expectations included as plain bytes) through the fuzz target's check
 * (berth/testing.h), without libFuzzer. */
#define _POSIX_C_SOURCE 200809L
#include "berth/testing.h"

#include "test_util.h"

static void replay_one(const char *path, const char *name, const unsigned char *data, size_t len, void *ctx) {
  (void)name;
  (void)ctx;
  static char why[4096];
  int rc = berth_fuzz_image_check(data, len, why, sizeof why);
  CHECK_MSG(rc == 0, "%s: %s", path, why);
}

int main(void) {
  int n = test_replay_dir(BERTH_SOURCE_DIR "/fuzz/corpus/image", NULL, 0, replay_one, NULL);
  CHECK_MSG(n >= 4, "only %d corpus files", n);
  n = test_replay_dir(BERTH_SOURCE_DIR "/tests/images", NULL, 0, replay_one, NULL);
  CHECK_MSG(n >= 60, "only %d files in tests/images", n);
  return test_finish("test_fuzz_image_replay");
}
