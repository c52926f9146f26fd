#include "cli.h"

#include <stdio.h>

int berth_cmd_fuzz(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "berth fuzz: not built yet\n");
  return 1;
}
