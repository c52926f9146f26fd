/* berth dis: prints a .berth file readably (berth_disassemble, berth/inspect.h): header, per
 * method its signature, pools, values with their storage, and the instruction stream. */
#include "berth/inspect.h"
#include "cli.h"
#include "program_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int berth_cmd_dis(int argc, char **argv) {
  const char *path = NULL;
  bool verify = true;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--no-verify") == 0) {
      if (!berth_cli_once(argv[i])) return BERTH_EXIT_USAGE;
      verify = false;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "berth dis: unknown option '%s'\n", argv[i]);
      return BERTH_EXIT_USAGE;
    } else if (path) {
      fprintf(stderr, "berth dis: more than one file given\n");
      return BERTH_EXIT_USAGE;
    } else {
      path = argv[i];
    }
  }
  if (!path) {
    fprintf(stderr, "berth dis: usage: berth dis FILE.berth [--no-verify]\n");
    return BERTH_EXIT_USAGE;
  }
  if (!berth_tool_is_berth(path)) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    fprintf(stderr, "berth dis: %s is not a .berth program file%s\n", path, f ? " (berth compile makes one)" : " (cannot open it)");
    return 1;
  }
  size_t len = 0;
  uint8_t *bytes = berth_tool_read_berth_file(path, &len);
  if (!bytes) return 1;
  char msg[1024], *text = NULL;
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_status_t st = berth_disassemble(bytes, len, path, verify, &text, &diag);
  free(bytes);
  if (st) {
    fprintf(stderr, "berth: %s: %s\n", path, msg);
    return 1;
  }
  fputs(text, stdout);
  free(text);
  return 0;
}
