/* berth: the command-line tool. */
#include "cli.h"
#include "berth/kernels.h"
#include "program_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
  fputs(
      "usage: berth <command> [options]\n"
      "\n"
      "commands:\n"
      "  run PROGRAM [--method NAME] [--call 'ARGS']... [--json] [--out-dir DIR]\n"
      "              [--reference] [--algo A] [--strategy S] [--no-verify] [--sanitize]\n"
      "              [--alignment N] [--pools RULES] [--alloc-inputs 0|1] [--alloc-outputs 0|1]\n"
      "      runs the method once per --call, in order (state carries over). ARGS are the\n"
      "      inputs separated by spaces: DTYPE[DIMS]:V,V,... (f64[1]:6.0, i64[]:3, bool[]:1)\n"
      "      or @file.npy. Uses the planned runtime; --reference uses the oracle.\n"
      "  check PROGRAM\n"
      "      validates the program and prints it in canonical text form.\n"
      "  plan PROGRAM [--algo A] [--strategy S] [--json] [--svg FILE] [--alignment N] [--pools RULES]\n"
      "  plan --csv FILE [--algo A] [--budget-ms T] [--json] [--out OFFSETS.csv] [--svg FILE]\n"
      "      plans memory and reports arena bytes, lower bound and every algorithm side by side.\n"
      "  onnx-test [--sanitize] [--keep-control-flow] [--max-trip-count N] [-v] DIR...\n"
      "      runs ONNX backend-test folders (model.onnx, test_data_set_*) planned and verified;\n"
      "      prints FAIL/UNSUPPORTED lines and 'N passed, N failed, N unsupported'.\n"
      "  fuzz [--count N] [--seed S] [--max-depth D] [--out-dir DIR] [--asserts PERCENT] [--no-sanitize]\n"
      "  fuzz --replay FILE.bir [--seed S]\n"
      "      differential fuzzing of the planner against the reference interpreter\n"
      "      (berth fuzz --help lists every option).\n"
      "  compile PROGRAM -o FILE.berth [--algo A] [--strategy S] [--alignment N] [--pools RULES]\n"
      "              [--alloc-inputs 0|1] [--alloc-outputs 0|1] [--no-ir] [--ops-header FILE.h]\n"
      "      plans the program and writes a .berth program file for the embeddable runtime;\n"
      "      --ops-header writes the kernels it calls, to build a runtime with only those.\n"
      "  dis FILE.berth [--no-verify]\n"
      "      prints a .berth file's methods, values with their storage, and instructions.\n"
      "\n"
      "  PROGRAM is a .bir text file or a .berth file (told apart by content); a .berth runs\n"
      "  its stored plan, and with planner options or --reference uses its IR section.\n"
      "  PROGRAM may be a .onnx model; then --input NAME:DTYPE[DIMS] fixes an input's shape,\n"
      "  --keep-control-flow keeps If nodes whose condition folds to a constant (when both\n"
      "  branches build with one type), and --max-trip-count N bounds Loops with scan\n"
      "  outputs whose trip count is not known at compile time (a run that needs more\n"
      "  iterations fails).\n"
      "  A: naive | greedy | search | exact   S: global | regions\n"
      "  RULES: key=pool,... with key an op name, input or output (e.g. input=1,mul=1,add=3)\n"
      "\n"
      "  environment: BERTH_KERNELS=auto|portable|avx2|avx512 picks the kernel variant\n"
      "  (default auto: the widest this CPU has; include/berth/kernels.h).\n",
      f);
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *cmd = argv[1];
  const char *kv = getenv("BERTH_KERNELS");
  if (kv && *kv) {
    berth_kernels_isa_t isa;
    if (berth_kernels_isa_parse(kv, &isa) != BERTH_OK) {
      fprintf(stderr, "berth: BERTH_KERNELS=%s: unknown kernel variant, expected auto, portable, avx2 or avx512\n", kv);
      return 2;
    }
    if (berth_kernels_select(isa) != BERTH_OK) {
      fprintf(stderr, "berth: BERTH_KERNELS=%s: this build or this CPU lacks that kernel variant\n", kv);
      return 2;
    }
  }
  /* ONNX import options (--input, --keep-control-flow, --max-trip-count) apply to every
   * command that loads a PROGRAM; onnx-test parses its own */
  if (strcmp(cmd, "onnx-test") != 0 && berth_tool_onnx_args(&argc, argv) != 0) return 2;
  if (strcmp(cmd, "run") == 0) return berth_cmd_run(argc - 2, argv + 2);
  if (strcmp(cmd, "check") == 0) return berth_cmd_check(argc - 2, argv + 2);
  if (strcmp(cmd, "plan") == 0) return berth_cmd_plan(argc - 2, argv + 2);
  if (strcmp(cmd, "fuzz") == 0) return berth_cmd_fuzz(argc - 2, argv + 2);
  if (strcmp(cmd, "compile") == 0) return berth_cmd_compile(argc - 2, argv + 2);
  if (strcmp(cmd, "dis") == 0) return berth_cmd_dis(argc - 2, argv + 2);
  if (strcmp(cmd, "onnx-test") == 0) return berth_cmd_onnx_test(argc - 2, argv + 2);
  fprintf(stderr, "berth: unknown command '%s' (try berth --help)\n", cmd);
  return 2;
}
