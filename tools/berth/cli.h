/* Commands of the berth tool and the option parsing they share. */
#ifndef BERTH_TOOLS_CLI_H
#define BERTH_TOOLS_CLI_H

#include "berth/compiler.h"
#include "berth/outfile.h"

#include <stdbool.h>
#include <stdio.h>

/* Exit statuses, one rule for every command: 0 success; 1 the command ran and failed (a
 * file cannot be read or written, a program or input is invalid, a call or check fails);
 * 2 the command line is wrong (unknown command or option, a missing or malformed option
 * value, an option given twice, a missing or extra operand). */
#define BERTH_EXIT_FAIL 1
#define BERTH_EXIT_USAGE 2

int berth_cmd_run(int argc, char **argv);
int berth_cmd_check(int argc, char **argv);
int berth_cmd_plan(int argc, char **argv);
int berth_cmd_fuzz(int argc, char **argv);
int berth_cmd_plan_csv(int argc, char **argv);
int berth_cmd_compile(int argc, char **argv);
int berth_cmd_dis(int argc, char **argv);
int berth_cmd_onnx_test(int argc, char **argv);
int berth_cmd_ops(int argc, char **argv);
int berth_cmd_bench(int argc, char **argv);

/* Parses a planner option at argv[*i] (advancing *i past its value) into opt (its strings
 * point into argv). Returns 1 if it was one, 0 if not, -1 after printing an error. */
int berth_cli_plan_option(int argc, char **argv, int *i, berth_compile_options_t *opt);

/* Parses --max-steps N at argv[*i] (the step limit of both interpreters, loop iterations
 * per call: berth/runtime.h, BERTH_RUNTIME_DEFAULT_MAX_STEPS). Returns 1 if it was that
 * option, 0 if not, -1 after printing an error. */
int berth_cli_max_steps_option(int argc, char **argv, int *i, uint64_t *max_steps);

/* cli_common.c. Records that option opt was given; false after printing "berth: OPT given
 * twice" if it already was (every option may be given once, except --call and --input). */
bool berth_cli_once(const char *opt);

/* Checks a --pools rule list (key=pool,... with key an op name, input or output, pool
 * 0..BERTH_MAX_POOLS-1, each key once); false after printing what is wrong. */
bool berth_cli_check_pools(const char *opt, const char *rules);

/* Takes the options every command accepts (--max-input-size SIZE) out of argv; -1 after
 * printing an error. */
int berth_cli_global_args(int *argc, char **argv);

/* Output files through berth_outfile (complete or absent), printing "berth: cannot write
 * PATH: reason" on failure: open returns NULL, close and commit return 1 (commit also frees o
 * on failure). */
berth_outfile_t *berth_cli_out_open(const char *path);
int berth_cli_out_close(berth_outfile_t *o);
int berth_cli_out_commit(berth_outfile_t *o);

/* Flushes and closes stdout at exit; returns rc, or 1 after printing "berth: cannot write
 * standard output: ..." when something written there was lost. */
int berth_cli_finish_stdout(int rc);

/* Progress of long work on stderr, only when stderr is a terminal (never in pipes, files
 * or CI logs): one line rewritten in place, at most five times a second; force shows it
 * whatever the time since the last. berth_cli_progress_end clears it (call it before
 * printing anything else to a terminal, and at the end). */
void berth_cli_progress(bool force, const char *fmt, ...) BERTH_PRINTF_LIKE(2, 3);
void berth_cli_progress_end(void);
/* Before planning: says on a terminal that search or exact may take a while (budgets of a
 * second or more); clear it with berth_cli_progress_end. */
void berth_cli_planning_note(const berth_compile_options_t *opt);

/* Writes s as a JSON string literal (quotes, backslashes and control characters escaped). */
void berth_cli_json_string(FILE *f, const char *s);

#endif
