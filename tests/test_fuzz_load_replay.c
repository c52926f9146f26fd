/* Replays the program-loader fuzz corpus (fuzz/corpus/load) and the corrupt files
 * (tests/corrupt) through the fuzz target's check (load + verify + execute), without
 * libFuzzer. Every file must satisfy the target's property: no crash, a message for every
 * rejection, and a verified program that executes, stops at the step limit, or stops at a
 * failing assert of the program. */
#define _POSIX_C_SOURCE 200809L
#define BERTH_FUZZ_NO_ENTRY
#include "../fuzz/fuzz_load.c"

#include "test_util.h"

static void replay_one(const char *path, const char *name, const unsigned char *data, size_t len, void *ctx) {
  (void)name;
  static char why[4096];
  berth_fuzz_load_result_t res;
  int rc = berth_fuzz_load_check(data, len, &res, why, sizeof why);
  CHECK_MSG(rc == 0, "%s: %s", path, why);
  if (res.phase == 1) ++*(int *)ctx;
}

int main(void) {
  int loaded = 0;
  int n = test_replay_dir(BERTH_SOURCE_DIR "/fuzz/corpus/load", NULL, 0, replay_one, &loaded);
  CHECK_MSG(n >= 5 && loaded == n, "%d corpus files, %d of them load (all should)", n, loaded);
  int bad_loaded = 0;
  int m = test_replay_dir(BERTH_SOURCE_DIR "/tests/corrupt", NULL, 0, replay_one, &bad_loaded);
  CHECK_MSG(m >= 60, "only %d corrupt files", m);
  CHECK_MSG(bad_loaded == 2, "%d corrupt files loaded (only the run-time endless loop and the failing assert should)",
            bad_loaded);
  return test_finish("test_fuzz_load_replay");
}
