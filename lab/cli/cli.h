/* The `lab` command table: one entry per subcommand, each in its own file. */
#pragma once
#include <jansson.h>

#include "util/error.h"

/* Exit codes shared by all subcommands (git-like: 0 ok, 2 usage/bad input). */
#define EXIT_OK 0
#define EXIT_LAB_ERROR 1
#define EXIT_BAD_INPUT 2
#define EXIT_RUN_FAILED 3

struct lab_cmd {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
	void (*help)(void);
};

int cmd_run(int argc, char **argv);
void cmd_run_help(void);
int cmd_doctor(int argc, char **argv);
void cmd_doctor_help(void);
int cmd_image(int argc, char **argv);
void cmd_image_help(void);
int cmd_kernel(int argc, char **argv);
void cmd_kernel_help(void);
int cmd_compare(int argc, char **argv);
void cmd_compare_help(void);
int cmd_report(int argc, char **argv);
void cmd_report_help(void);
int cmd_history(int argc, char **argv);
void cmd_history_help(void);
/* Add a report `lab run` wrote to the history index in state_dir (lab history): best effort,
 * a failure is a warning on stderr, never the run's. */
void cli_history_add(const char *state_dir, const char *report);

/* Prints "lab: " + message to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* True when argv[i] is -h/--help. */
int cli_is_help(const char *a);
/* A topology loader for job_from_json: names resolve to topologies/NAME.json beside the job,
 * then configs/topologies/NAME.json found as util/checkout.h says. */
struct cli_topo_ctx {
	const char *job_dir;
};
int cli_load_topology(const char *ref, void *ud, json_t **out, struct lab_error *err);
