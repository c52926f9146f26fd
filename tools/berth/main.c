/* berth: the command-line tool. */
#include "berth/compiler.h"
#include "cli.h"
#include "berth/kernels.h"
#include "program_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define PLANNER_OPTIONS                                                                            \
  "  --algo naive|greedy|search|exact   allocation algorithm (default greedy)\n"                  \
  "  --strategy global|regions          one timeline per method (default), or ExecuTorch's\n"     \
  "                                     per-body regions (a baseline the verifier rejects)\n"     \
  "  --budget-ms T                      time budget of search and exact (default 100)\n"          \
  "  --budget-work N                    a deterministic budget instead: N work units (buffers\n"          \
  "                                     visited; ~10^3-10^4 a ms): the same plan on any machine\n"          \
  "  --alignment N                      arena offsets are multiples of N (a power of two\n"      \
  "                                     <= 4096; default 16)\n"                                 \
  "  --pools RULES                      key=pool,... with key an op name, input or output\n"      \
  "                                     (input=1,mul=1,add=3); pools 0..15\n"                     \
  "  --alloc-inputs 0|1, --alloc-outputs 0|1   plan inputs / outputs in the arena or not\n"      \
  "  --no-verify                        skip the plan verifier (for experiments only)\n"          \
  "  --no-views                         reshape, squeeze, unsqueeze, clone and contiguous slices\n" \
  "                                     copy instead of sharing their operand's bytes (to measure)\n" \
  "  --no-concat-in-place               Concats copy their operands instead of having them\n"    \
  "                                     computed in their slots of the result (to measure)\n"    \
  "  --concat-in-place-always           Concats in place even where that makes the arena larger\n" \
  "                                     (default: a method is planned both ways, smaller kept)\n" \
  "  --no-hoist                         compute constant-only work on every call instead of once\n" \
  "                                     into the hoist region (to measure)\n"                    \
  "  --hoist-min-bytes N                hoist a constant-only kernel call when it reads and\n"   \
  "                                     writes at least N bytes (default 4096)\n"

#define PROGRAM_OPTIONS                                                                            \
  "  PROGRAM is a .bir text file, a .berth program file or an .onnx model (told apart by\n"       \
  "  content). For .onnx: --input NAME:DTYPE[DIMS][=V,...] fixes an input's shape (repeat it),\n" \
  "  --keep-control-flow keeps If nodes whose condition folds to a constant, --max-trip-count N\n" \
  "  bounds Loops with scan outputs whose trip count is dynamic, --state IN=OUT makes graph\n"     \
  "  input IN and the output OUT that updates it one mutable buffer (repeat it),\n"               \
  "  --dynamic-bound N gives NonZero, Compress, Unique and NonMaxSuppression results computed\n"  \
  "  at run time N entries along their data-dependent axis, and ImageDecoder's N x N pixels\n"   \
  "  (graph outputs only; more fails), --plain-layout keeps every conv in plain NCHW (default:\n" \
  "  regions of convs where it pays run over channel-blocked tensors; to measure them),\n"      \
  "  --direct-3x3 runs their 3x3 convs direct (default: by Winograd's F(2x2, 3x3) on planes of\n" \
  "  144 outputs or more).\n"                                                                   \
  "  --max-input-size SIZE   refuse input files over SIZE bytes (K, M, G, T suffixes; default\n"  \
  "                          256M)\n"

typedef struct cmd_help {
  const char *name;
  const char *text;
} cmd_help_t;

static const cmd_help_t helps[] = {
    {"run",
     "usage: berth run PROGRAM [--method NAME] [--call 'ARGS']... [--json] [--out-dir DIR]\n"
     "                 [--reference] [--sanitize] [planner options]\n"
     "Calls the method (default forward, or the only one) once per --call, in order; state\n"
     "carries over from call to call. ARGS are the inputs separated by spaces: tensor literals\n"
     "DTYPE[DIMS]:V,V,... (f64[1]:6.0, i64[]:16000, f32[2,2]:1,2,3,4, bool[]:1) or @FILE.npy.\n"
     "Every call's arguments are checked before the first call runs.\n"
     "  --method NAME      the method to call\n"
     "  --call 'ARGS'      one call (repeat it)\n"
     "  --json             print {\"calls\":[{\"outputs\":[...]},...]}; a failed call is\n"
     "                     {\"error\":\"...\"} and ends the list (the exit status is then 1)\n"
     "  --out-dir DIR      write each output as DIR/call<N>_out<K>.npy; written only when\n"
     "                     every call succeeded\n"
     "  --reference        run the reference interpreter (the oracle) instead of the plan\n"
     "  --sanitize         check an owner tag per arena byte on every read\n"
     "  --max-steps N      the step limit: loop iterations one call may run (default 10^9)\n"
     "A .berth runs its stored plan; planner options or --reference use its IR section.\n"
     "planner options:\n" PLANNER_OPTIONS PROGRAM_OPTIONS},
    {"check",
     "usage: berth check PROGRAM\n"
     "Validates the program and prints it in canonical text form.\n" PROGRAM_OPTIONS},
    {"plan",
     "usage: berth plan PROGRAM [--json] [--svg FILE] [planner options]\n"
     "       berth plan --csv FILE [--algo A] [--budget-ms T | --budget-work N] [--seed S] [--fit auto|first|best]\n"
     "                  [--json] [--out OFFSETS.csv] [--svg FILE]\n"
     "Plans memory and reports, per method and pool, arena bytes, lower bound, ratio, tensors,\n"
     "copies and coalesced hand-overs, and every algorithm side by side.\n"
     "  --json           the report as JSON, with each value's storage\n"
     "  --svg FILE       draw pool 0 of the first method\n"
     "  --csv FILE       plan a standalone allocation problem (id,lower,upper,size[,alignment])\n"
     "                   and validate the result independently\n"
     "  --out FILE       with --csv: write the offsets as CSV\n"
     "planner options:\n" PLANNER_OPTIONS PROGRAM_OPTIONS},
    {"compile",
     "usage: berth compile PROGRAM -o FILE.berth [planner options] [--no-ir] [--ops-header FILE.h]\n"
     "Plans the program and writes a .berth program file for the embeddable runtime (loaded\n"
     "back and checked before it is written).\n"
     "  -o FILE.berth       the program file; written through a temporary file in the same\n"
     "                      directory and renamed into place, so it is complete or untouched\n"
     "  --no-ir             leave out the IR source section (smaller; no --reference, no re-plan)\n"
     "  --ops-header FILE.h also write the list of kernels the program calls, to build a\n"
     "                      runtime with only those (both files are written, or neither)\n"
     "planner options:\n" PLANNER_OPTIONS PROGRAM_OPTIONS},
    {"dis",
     "usage: berth dis FILE.berth [--no-verify]\n"
     "Prints a .berth file's header, and per method its signature, pools, values with their\n"
     "storage, and instructions.\n"
     "  --no-verify   print a file the plan verifier rejects (structural checks still run)\n"
     "  --max-input-size SIZE   refuse input files over SIZE bytes (default 256M)\n"},
    {"onnx-test",
     "usage: berth onnx-test [--sanitize] [--keep-control-flow] [--max-trip-count N] [--dynamic-bound N]\n"
     "                       [--max-steps N] [--plain-layout] [--direct-3x3] [-v] [--per-op] [--print-ir] DIR...\n"
     "Runs ONNX backend-test folders (model.onnx plus test_data_set_*), compiled with the\n"
     "default planner and verified, and compares with the expected outputs. Prints FAIL and\n"
     "UNSUPPORTED lines and 'N passed, N failed, N unsupported'; exits 1 if any failed.\n"
     "  --sanitize            run with the arena sanitizer\n"
     "  --keep-control-flow   keep If nodes whose condition folds to a constant\n"
     "  --max-trip-count N    bound Loops with scan outputs whose trip count is dynamic\n"
     "  --dynamic-bound N     bound data-dependent results (NonZero, Compress, Unique,\n"
     "                        NonMaxSuppression; ImageDecoder's height and width) to N\n"
     "                        entries instead of specializing the model on the input\n"
     "                        values that set them\n"
     "  --max-steps N         the step limit: loop iterations one call may run (default 10^9)\n"
     "  --plain-layout        keep every conv in plain NCHW (no channel-blocked regions)\n"
     "  --direct-3x3          run the blocked 3x3 convs direct (no Winograd F(2x2, 3x3))\n"
     "  -v, --verbose         also print PASS lines\n"
     "  --per-op              before the totals, a table of folders passed, failed and\n"
     "                        unsupported for every op type (default domain) their models use\n"
     "  --print-ir            print each imported program's IR text to stderr\n"},
    {"bench",
     "usage: berth bench PROGRAM [--calls N] [--warmup N] [--profile] [--top N] [--method NAME]\n"
     "                   [--call 'ARGS'] [--json] [planner options]\n"
     "Times a method with the planned runtime as an embedder calls it (the program loaded and\n"
     "verified, one method handle, berth_method_execute timed alone) and prints the minimum,\n"
     "median, mean and maximum per call. Inputs: --call's arguments (berth run's syntax:\n"
     "DTYPE[DIMS]:V,... or @FILE.npy), else fixed pseudo-random data: floats uniform in\n"
     "[-1, 1), other element types zeros (an ONNX --input NAME:DTYPE[DIMS]=V fixes one).\n"
     "  --calls N     timed calls (default 20), after --warmup N untimed ones (default 3)\n"
     "  --profile     then as many calls again with an observer around each kernel call and\n"
     "                copy (berth_method_set_observer): time per op, and the slowest\n"
     "                instructions with their outputs (--top N of them, default 20)\n"
     "  --method NAME the method to call\n"
     "  --json        one JSON document instead of the text: program, method, kernels, inputs,\n"
     "                \"us\" (min, median, mean, max) and with --profile \"profile\" (every op and\n"
     "                every instruction that ran); nothing on stdout when the command fails\n"
     "A .berth runs its stored plan; planner options re-plan its IR section.\n"
     "planner options:\n" PLANNER_OPTIONS PROGRAM_OPTIONS},
    {"fuzz", NULL}, /* its own --help (cmd_fuzz.c) */
    {"ops",
     "usage: berth ops [--json] | berth ops --kernels\n"
     "Prints the ONNX ops of the default domain that the importer translates, one a line: op,\n"
     "family, and what the shared ONNX conformance suite verifies of it (the opsets and input\n"
     "element types of the suite folders that use it and pass; its folders passed, failed and\n"
     "unsupported). docs/ops.md shows the same table.\n"
     "  --json      the same as one JSON object\n"
     "  --kernels   print berth's own op table instead: every op of the IR and the runtime\n"
     "              with its kind, input and output counts and attributes\n"},
    {"help",
     "usage: berth help [COMMAND]\n"
     "Prints the list of commands, or COMMAND's options (also: berth COMMAND --help).\n"},
};

static const cmd_help_t *find_help(const char *name) {
  for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
    if (strcmp(helps[i].name, name) == 0) return &helps[i];
  return NULL;
}

static void usage(FILE *f) {
  fputs(
      "usage: berth <command> [options]      (berth help COMMAND, or berth COMMAND --help)\n"
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
      "  plan --csv FILE [--algo A] [--budget-ms T | --budget-work N] [--json] [--out OFFSETS.csv] [--svg FILE]\n"
      "      plans memory and reports arena bytes, lower bound and every algorithm side by side.\n"
      "  onnx-test [--sanitize] [--keep-control-flow] [--max-trip-count N] [--dynamic-bound N] [--max-steps N]\n"
      "            [--plain-layout] [--direct-3x3] [-v] [--per-op] DIR...\n"
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
      "  bench PROGRAM [--calls N] [--warmup N] [--profile] [--top N] [--call 'ARGS'] [--json] [planner options]\n"
      "      times a method with the planned runtime; --profile: time per op and instruction.\n"
      "  dis FILE.berth [--no-verify]\n"
      "      prints a .berth file's methods, values with their storage, and instructions.\n"
      "  ops [--kernels]\n"
      "      lists the ONNX ops berth imports, or its own kernel ops.\n"
      "  help [COMMAND]\n"
      "      prints this, or COMMAND's options.\n"
      "\n"
      "  PROGRAM is a .bir text file or a .berth file (told apart by content); a .berth runs\n"
      "  its stored plan, and with planner options or --reference uses its IR section.\n"
      "  PROGRAM may be a .onnx model; then --input NAME:DTYPE[DIMS] fixes an input's shape,\n"
      "  --keep-control-flow keeps If nodes whose condition folds to a constant (when both\n"
      "  branches build with one type), and --max-trip-count N bounds Loops with scan\n"
      "  outputs whose trip count is not known at compile time (a run that needs more\n"
      "  iterations fails), --dynamic-bound N gives data-dependent results (NonZero, Compress,\n"
      "  Unique, NonMaxSuppression on run-time data; ImageDecoder's height and width) N\n"
      "  entries (graph outputs only; a call that yields more fails), and --state IN=OUT\n"
      "  makes a graph input and the output that updates it one mutable buffer (initialised\n"
      "  from IN's initializer, its --input value or zeros; updated in place each call, read\n"
      "  with the runtime's berth_method_state).\n"
      "  --max-steps N (run, onnx-test, fuzz) is the step limit: the loop iterations one call\n"
      "  may run, nested loops counted in full, in both interpreters (default 10^9; fuzz 10^5).\n"
      "  A: naive | greedy | search | exact   S: global | regions\n"
      "  RULES: key=pool,... with key an op name, input or output (e.g. input=1,mul=1,add=3)\n"
      "  Every command takes --max-input-size SIZE (default 256M): input files over SIZE bytes\n"
      "  are refused.\n"
      "  Each option may be given once (--call, --input and --state repeat). Exit status: 0 success,\n"
      "  1 failure, 2 a wrong command line.\n"
      "  environment: BERTH_KERNELS=auto|portable|avx2|avx512|neon picks the kernel variant\n"
      "  (default auto: the widest this CPU has; include/berth/kernels.h).\n",
      f);
}

/* Prints COMMAND's help to stdout; BERTH_EXIT_USAGE for an unknown command. */
static int command_help(const char *name) {
  const cmd_help_t *h = find_help(name);
  if (!h) {
    fprintf(stderr, "berth: unknown command '%s' (try berth --help)\n", name);
    return BERTH_EXIT_USAGE;
  }
  if (!h->text) {
    char arg[] = "--help";
    char *args[] = {arg, NULL};
    return berth_cmd_fuzz(1, args);
  }
  fputs(h->text, stdout);
  return 0;
}

static int dispatch(int argc, char **argv) {
  /* options every command takes, before or after the command's name */
  if (berth_cli_global_args(&argc, argv) != 0) return BERTH_EXIT_USAGE;
  if (argc < 2) {
    usage(stderr);
    return BERTH_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  const char *kv = getenv("BERTH_KERNELS");
  if (kv && *kv) {
    berth_kernels_isa_t isa;
    if (berth_kernels_isa_parse(kv, &isa) != BERTH_OK) {
      fprintf(stderr, "berth: BERTH_KERNELS=%s: unknown kernel variant, expected auto, portable, avx2, avx512 or neon\n", kv);
      return BERTH_EXIT_USAGE;
    }
    if (berth_kernels_select(isa) != BERTH_OK) {
      fprintf(stderr, "berth: BERTH_KERNELS=%s: this build or this CPU lacks that kernel variant\n", kv);
      return BERTH_EXIT_USAGE;
    }
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    if (argc == 2) {
      usage(stdout);
      return 0;
    }
    if (argc == 3 && strcmp(cmd, "help") == 0)
      return command_help(strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0 ? "help" : argv[2]);
    fprintf(stderr, "berth: usage: berth help [COMMAND]\n");
    return BERTH_EXIT_USAGE;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    if (argc != 2) {
      fprintf(stderr, "berth: --version takes nothing else\n");
      return BERTH_EXIT_USAGE;
    }
    printf("berth %s (program file format version %d)\n", berth_version(), BERTH_PROGRAM_FORMAT_VERSION);
    return 0;
  }
  if (!find_help(cmd) || strcmp(cmd, "help") == 0) {
    fprintf(stderr, "berth: unknown command '%s' (try berth --help)\n", cmd);
    return BERTH_EXIT_USAGE;
  }
  /* COMMAND --help or -h anywhere */
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return command_help(cmd);
  if (strcmp(cmd, "onnx-test") != 0) {
    /* ONNX import options (--input, --keep-control-flow, --max-trip-count) apply to every
     * command that loads a PROGRAM; onnx-test parses its own. --input repeats; the others
     * may be given once. */
    for (int i = 2; i < argc; i++) {
      bool valued = strcmp(argv[i], "--max-trip-count") == 0 || strcmp(argv[i], "--input") == 0 ||
                    strcmp(argv[i], "--dynamic-bound") == 0;
      if ((strcmp(argv[i], "--max-trip-count") == 0 || strcmp(argv[i], "--keep-control-flow") == 0 ||
           strcmp(argv[i], "--dynamic-bound") == 0 || strcmp(argv[i], "--plain-layout") == 0 ||
           strcmp(argv[i], "--direct-3x3") == 0) &&
          !berth_cli_once(argv[i]))
        return BERTH_EXIT_USAGE;
      if (valued) i++;
    }
    if (berth_tool_onnx_args(&argc, argv) != 0) return BERTH_EXIT_USAGE;
  }
  if (strcmp(cmd, "run") == 0) return berth_cmd_run(argc - 2, argv + 2);
  if (strcmp(cmd, "check") == 0) return berth_cmd_check(argc - 2, argv + 2);
  if (strcmp(cmd, "plan") == 0) return berth_cmd_plan(argc - 2, argv + 2);
  if (strcmp(cmd, "fuzz") == 0) return berth_cmd_fuzz(argc - 2, argv + 2);
  if (strcmp(cmd, "compile") == 0) return berth_cmd_compile(argc - 2, argv + 2);
  if (strcmp(cmd, "dis") == 0) return berth_cmd_dis(argc - 2, argv + 2);
  if (strcmp(cmd, "ops") == 0) return berth_cmd_ops(argc - 2, argv + 2);
  if (strcmp(cmd, "bench") == 0) return berth_cmd_bench(argc - 2, argv + 2);
  return berth_cmd_onnx_test(argc - 2, argv + 2);
}

int main(int argc, char **argv) {
#if defined(__GLIBC__)
  /* A fixed mmap threshold: a model's constants (weights, their packed copies, the file
   * buffer) are mapped and go back to the system when freed. glibc's default threshold
   * slides up past the first large buffer freed, after which freed weights stay in the heap
   * and a compile of ResNet-50 held ~470 MB after its import instead of ~130 MB. */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  /* what went to stdout must have arrived: a full disk or a closed pipe is an error */
  return berth_cli_finish_stdout(dispatch(argc, argv));
}
