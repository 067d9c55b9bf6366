/* The `lab` command table: one entry per subcommand, each in its own file. */
#pragma once
#include <jansson.h>
#include <signal.h>
#include <stddef.h>

#include "util/error.h"
#include "util/parseopt.h"

#include "util/exitcode.h"

/* A command's exit code (util/exitcode.h) as `git bisect run` reads it: 0 good; bad (1) when
 * the command says the commit is bad (a regression, a panicking kernel); 125 skip when it
 * cannot tell (undecided, runs failed otherwise); 128 stop (bad input, the lab failed). */
int cli_git_bisect(int code, int bad);

struct lab_cmd {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
	void (*help)(void);
	int group;             /* verbs of its own (lab job VERB): fn answers their --help */
	const char *alias_of;  /* an old name kept for one release: "job submit" */
};

/* A table entry: command NAME runs fn, fn##_help its --help. */
#define LAB_CMD(n, s, f, ...) { .name = n, .summary = s, .fn = f, .help = f##_help, __VA_ARGS__ }

/* lab job VERB: labd's queue (cmd_job.c: submit, list, status, logs, cancel). */
int cmd_job(int argc, char **argv);
void cmd_job_help(void);
/* One verb's --help ("status"), the exit-code table after it: EXIT_OK, or EXIT_BAD_INPUT
 * (said) when there is no such verb. */
int cmd_job_help_verb(const char *verb);

int cmd_run(int argc, char **argv);
void cmd_run_help(void);
int cmd_doctor(int argc, char **argv);
void cmd_doctor_help(void);
int cmd_image(int argc, char **argv);
void cmd_image_help(void);
int cmd_kernel(int argc, char **argv);
void cmd_kernel_help(void);
int cmd_qemu(int argc, char **argv);
void cmd_qemu_help(void);
int cmd_compare(int argc, char **argv);
void cmd_compare_help(void);
int cmd_report(int argc, char **argv);
void cmd_report_help(void);
int cmd_hosts(int argc, char **argv);
void cmd_hosts_help(void);
int cmd_ab(int argc, char **argv);
void cmd_ab_help(void);
int cmd_project(int argc, char **argv);
void cmd_project_help(void);
int cmd_show(int argc, char **argv);
void cmd_show_help(void);
int cmd_export(int argc, char **argv);
void cmd_export_help(void);
int cmd_mail(int argc, char **argv);
void cmd_mail_help(void);
int cmd_bundle(int argc, char **argv);
void cmd_bundle_help(void);
int cmd_rerun(int argc, char **argv);
void cmd_rerun_help(void);
int cmd_history(int argc, char **argv);
void cmd_history_help(void);
/* The clients of labd, the lab's daemon (lab/cli/labd_cli.h). */
int cmd_submit(int argc, char **argv);
void cmd_submit_help(void);
int cmd_queue(int argc, char **argv);
void cmd_queue_help(void);
int cmd_status(int argc, char **argv);
void cmd_status_help(void);
int cmd_cancel(int argc, char **argv);
void cmd_cancel_help(void);
int cmd_logs(int argc, char **argv);
void cmd_logs_help(void);
/* lab web: labd's pages through a loopback port (cmd_web.c). */
int cmd_web(int argc, char **argv);
void cmd_web_help(void);
/* Add a report `lab run` wrote to the history index in state_dir (lab history): best effort,
 * a failure is a warning on stderr, never the run's. */
void cli_history_add(const char *state_dir, const char *report);
/* A confirmed change of nightly as an alert of the history index (history/alerts.h): 1 new or
 * reopened, 0 raised before, negative when it could not be recorded (said as a warning). */
struct nightly_alert;
int cli_history_alert(const char *state_dir, const struct nightly_alert *a);

struct job;
/* Parse a job file as `lab run` does (its topology, its memory plan against this host); an
 * error is printed (file, JSON path, reason) and returned. */
int cli_load_job(const char *file, struct job *job);
/* A variant name (kernels/NAME.json) or path (from base) -> absolute file in out (PATH_MAX). */
int cli_variant_file(const char *ref, const char *base, char *out, size_t len);
/* The variant in file must parse and have a git source: its name, and its repository (absolute,
 * PATH_MAX). */
int cli_variant_git(const char *file, char *name, size_t nlen, char *repo);
int cmd_bisect(int argc, char **argv);
int cmd_nightly(int argc, char **argv);
void cmd_nightly_help(void);
void cmd_bisect_help(void);

/* Set by SIGINT, SIGTERM and SIGHUP once cli_catch_signals() ran: the engines see it (their
 * options' interrupt), destroy their guests, keep what finished and stop, where a signal's
 * default would kill the lab with guests and half-written files behind it. */
extern volatile sig_atomic_t cli_interrupted;
void cli_catch_signals(void);
/* The progress printer every command hands its engine: "lab: MSG" on stderr. */
void cli_progress(void *ud, const char *msg);

/* Errors have one shape, "lab CMD: message", CMD the command line's name (cli_set_name:
 * "compare", "job status"; main sets it before a command runs). */
void cli_set_name(const char *name);
/* "lab CMD: " + message on stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: cli_err's line ending "(see 'lab CMD --help')". */
void cli_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A command's help: arg "--help" the whole text and the exit-code table, "-h" its usage and
 * EXAMPLES only.  EXIT_OK. */
int cli_help(void (*help)(void), const char *arg);
/* parseopt() (util/parseopt.h) with its error said in lab's one shape, a usage error
 * pointing to --help: the index of the first operand, or -EINVAL (the command exits 2). */
int cli_parse(int argc, char **argv, const struct cli_opt *opts);
int cli_parse_with(int argc, char **argv, const struct cli_opt *opts,
		   int (*allow)(const struct cli_opt *o, struct opt_error *e));
/* "usage: lab CMD OPERANDS [--option VALUE]..." from the table, on stdout. */
void cli_synopsis(const char *cmd, const char *operands, const struct cli_opt *opts);
/* True when argv[i] is -h/--help. */
int cli_is_help(const char *a);
