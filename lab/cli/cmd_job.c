/* lab job VERB: the clients of labd, the lab's daemon (labd_cli.h), grouped as git groups
 * `git remote add|remove`.  The verbs' old top-level names are aliases in main.c's table. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/labd_cli.h"

static const struct lab_cmd verbs[] = {
	LAB_CMD("submit", "queue a job file (--wait: follow it to its end)", cmd_submit),
	LAB_CMD("list", "the queue's jobs, newest first", cmd_queue),
	LAB_CMD("status", "one job: state, runs, times, report, error", cmd_status),
	LAB_CMD("logs", "a job's events (--follow: until it ends)", cmd_logs),
	LAB_CMD("cancel", "cancel a queued job, or stop a running one", cmd_cancel),
};

#define NR_VERBS (sizeof(verbs) / sizeof(verbs[0]))

void cmd_job_help(void)
{
	cli_synopsis("job", "VERB [ARGS]", labd_cli_opts);
	printf("\nlabd's queue: jobs run one measuring guest at a time on a shared machine and\n"
	       "survive a restart (labd(8)).\n\n");
	for (size_t i = 0; i < NR_VERBS; i++)
		printf("  %-7s %s\n", verbs[i].name, verbs[i].summary);
	printf("\nOPTIONS (every verb; each at length: man lab, \"OPTIONS OF LAB JOB\")\n");
	opt_print(stdout, labd_cli_opts);
	printf("\nEXAMPLES\n"
	       "  lab job submit configs/quick.json --wait\n"
	       "  lab job list --state running\n"
	       "  lab job logs 7 --follow\n\n"
	       "'lab job VERB --help' describes one verb.\n");
}

static const struct lab_cmd *verb_find(const char *name)
{
	for (size_t i = 0; i < NR_VERBS; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

int cmd_job_help_verb(const char *name)
{
	const struct lab_cmd *v = verb_find(name);
	char full[32];

	if (!v) {
		cli_usage_err("'%s' is not a job verb", name);
		return EXIT_BAD_INPUT;
	}
	snprintf(full, sizeof(full), "job %s", v->name);
	cli_set_name(full);
	return cli_help(v->help, "--help");
}

int cmd_job(int argc, char **argv)
{
	const struct lab_cmd *v;
	char name[32];

	if (argc < 2) {
		cli_usage_err("expected a verb: submit, list, status, logs or cancel");
		return EXIT_BAD_INPUT;
	}
	if (cli_is_help(argv[1]))
		return cli_help(cmd_job_help, argv[1]);
	v = verb_find(argv[1]);
	if (!v) {
		cli_usage_err("'%s' is not a job verb (submit, list, status, logs, cancel)",
			      argv[1]);
		return EXIT_BAD_INPUT;
	}
	snprintf(name, sizeof(name), "job %s", v->name);
	cli_set_name(name);
	for (int k = 2; k < argc; k++)
		if (cli_is_help(argv[k]))
			return cli_help(v->help, argv[k]);
	return v->fn(argc - 1, argv + 1);
}
