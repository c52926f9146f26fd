/* Replays the text-parser fuzz corpus (fuzz/corpus/parse) and the .bir test inputs
 * (tests/bir) through the fuzz target's check (berth/testing.h), without libFuzzer. */
#define _POSIX_C_SOURCE 200809L
#include "berth/testing.h"

#include "test_util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replay_dir(const char *rel) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", BERTH_SOURCE_DIR, rel);
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot open %s", dir);
  if (!d) return 0;
  int n = 0;
  static char why[1 << 16];
  for (struct dirent *e = readdir(d); e; e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    size_t len = 0;
    char *data = test_read_file(path, &len);
    CHECK_MSG(data != NULL, "cannot read %s", path);
    if (!data) continue;
    int rc = berth_fuzz_parse_check((const uint8_t *)data, len, why, sizeof why);
    CHECK_MSG(rc == 0, "%s: %s", path, why);
    free(data);
    n++;
  }
  closedir(d);
  return n;
}

int main(void) {
  int n = replay_dir("fuzz/corpus/parse");
  CHECK_MSG(n >= 5, "only %d corpus files", n);
  replay_dir("tests/bir");
  return test_finish("test_fuzz_parse_replay");
}
