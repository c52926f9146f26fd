/* Commands of the berth tool and the option parsing they share. */
#ifndef BERTH_TOOLS_CLI_H
#define BERTH_TOOLS_CLI_H

#include "plan/plan.h"

#include <stdbool.h>

int berth_cmd_run(int argc, char **argv);
int berth_cmd_check(int argc, char **argv);
int berth_cmd_plan(int argc, char **argv);
int berth_cmd_fuzz(int argc, char **argv);
int berth_cmd_plan_csv(int argc, char **argv);
int berth_cmd_compile(int argc, char **argv);
int berth_cmd_dis(int argc, char **argv);
int berth_cmd_onnx_test(int argc, char **argv);

/* Parses a planner option at argv[*i] (advancing *i past its value). Returns 1 if it was
 * one, 0 if not, -1 after printing an error. */
int berth_cli_plan_option(int argc, char **argv, int *i, berth_plan_options_t *opt);

/* Parses --max-steps N at argv[*i] (the step limit of both interpreters, loop iterations
 * per call: berth/runtime.h, BERTH_RUNTIME_DEFAULT_MAX_STEPS). Returns 1 if it was that
 * option, 0 if not, -1 after printing an error. */
int berth_cli_max_steps_option(int argc, char **argv, int *i, uint64_t *max_steps);

#endif
