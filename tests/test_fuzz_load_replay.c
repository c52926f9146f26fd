/* Replays the program-loader fuzz corpus (fuzz/corpus/load) and the corrupt files
 * (tests/corrupt) through the fuzz target's check (load + verify + execute), without
 * libFuzzer. Every file must satisfy the target's property: no crash, a message for every
 * rejection, and a verified program that executes, stops at the step limit, or stops at a
 * failing assert of the program. */
#define _POSIX_C_SOURCE 200809L
#define BERTH_FUZZ_NO_ENTRY
#include "../fuzz/fuzz_load.c"

#include "test_util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replay_dir(const char *rel, int *loaded) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", BERTH_SOURCE_DIR, rel);
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open %s", dir);
  if (!d) return 0;
  int n = 0;
  static char why[4096];
  for (struct dirent *e = readdir(d); e; e = readdir(d)) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "MANIFEST") == 0) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    size_t len = 0;
    char *data = test_read_file(path, &len);
    CHECK_MSG(data != NULL, "cannot read %s", path);
    if (!data) continue;
    berth_fuzz_load_result_t res;
    int rc = berth_fuzz_load_check((const uint8_t *)data, len, &res, why, sizeof why);
    CHECK_MSG(rc == 0, "%s: %s", path, why);
    if (res.phase == 1) (*loaded)++;
    free(data);
    n++;
  }
  closedir(d);
  return n;
}

int main(void) {
  int loaded = 0;
  int n = replay_dir("fuzz/corpus/load", &loaded);
  CHECK_MSG(n >= 5 && loaded == n, "%d corpus files, %d of them load (all should)", n, loaded);
  int bad_loaded = 0;
  int m = replay_dir("tests/corrupt", &bad_loaded);
  CHECK_MSG(m >= 60, "only %d corrupt files", m);
  CHECK_MSG(bad_loaded == 2, "%d corrupt files loaded (only the run-time endless loop and the failing assert should)",
            bad_loaded);
  return test_finish("test_fuzz_load_replay");
}
