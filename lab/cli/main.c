/* lab: the numalab command line.  Subcommands live in one table, git-style; the job group's
 * verbs in cmd_job.c's. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/text.h"
#include "util/version.h"

static int cmd_version(int argc, char **argv);
static void cmd_version_help(void);
static int cmd_help(int argc, char **argv);
static void cmd_help_help(void);

/* alias_of: an old name kept for one release, dispatched as that command line. */
static const struct lab_cmd commands[] = {
	LAB_CMD("run", "boot guests for a job file and write a report", cmd_run),
	LAB_CMD("ab", "an A/B of a patch against a kernel variant, in one command", cmd_ab),
	LAB_CMD("compare", "A/B statistics of two kernel variants' reports", cmd_compare),
	LAB_CMD("show", "one report as text: runs, outcomes, primary metrics, decision", cmd_show),
	LAB_CMD("project", "a PROJECTION of one shared lock's workload to N CPUs", cmd_project),
	LAB_CMD("report", "write an HTML dashboard of reports", cmd_report),
	LAB_CMD("export", "a report's figures for other tools: KCIDB, LKP, CSV", cmd_export),
	LAB_CMD("mail", "a bisection's culprit or an A/B as a mail to act on (0-day's shape)", cmd_mail),
	LAB_CMD("bundle", "a report and everything its runs used, as one archive to send", cmd_bundle),
	LAB_CMD("rerun", "a bundle's runs again, its figures against the original's", cmd_rerun),
	LAB_CMD("history", "the index of reports: list runs, follow series over time", cmd_history),
	LAB_CMD("kernel", "build and list kernel variants (kernels/), cached by content", cmd_kernel),
	LAB_CMD("image", "build and list guest disk images (images/), cached by recipe", cmd_image),
	LAB_CMD("qemu", "build the contention model's QEMU (images/qemu/), cached by content", cmd_qemu),
	LAB_CMD("bisect", "find the kernel commit that changed a job's figure", cmd_bisect),
	LAB_CMD("nightly", "measure a branch head, check it against history, bisect regressions", cmd_nightly),
	LAB_CMD("job", "labd's queue: job submit, list, status, logs, cancel", cmd_job, .group = 1),
	LAB_CMD("web", "labd's pages in a browser: prints the URL, forwards a local port", cmd_web),
	LAB_CMD("hosts", "this host, or a Slurm cluster's nodes: state, class, capacity", cmd_hosts),
	LAB_CMD("doctor", "check this host and say how to fix what is missing", cmd_doctor),
	LAB_CMD("version", "the lab's version and the commit it was built from", cmd_version),
	LAB_CMD("help", "the commands, or one command's help", cmd_help),
	{ .name = "submit", .alias_of = "job submit" },
	{ .name = "queue", .alias_of = "job list" },
	{ .name = "status", .alias_of = "job status" },
	{ .name = "cancel", .alias_of = "job cancel" },
	{ .name = "logs", .alias_of = "job logs" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: lab <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!commands[i].alias_of)
			fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nold names, kept for one release:");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (commands[i].alias_of)
			fprintf(f, "%s %s", i && commands[i - 1].alias_of ? "," : "", commands[i].name);
	fprintf(f, " (now 'lab job ...')\n\n"
		   "EXAMPLES\n"
		   "  lab run configs/ab-vma-lock.json     # an A/B: both kernels, interleaved\n"
		   "  lab compare reports/ID               # its verdict\n"
		   "  lab report reports/ID                # its dashboard\n\n"
		   "'lab help <command>' or 'lab <command> --help' describes one command.\n\n"
		   EXIT_TABLE_HELP);
}

static void cmd_version_help(void)
{
	printf("usage: lab version | lab --version\n\n"
	       "The lab's version and the commit it was built from (\"-dirty\": with uncommitted\n"
	       "changes; \"unknown\": not built from a git checkout).  Every report records both\n"
	       "in its \"lab\" object.\n\n"
	       "EXAMPLES\n"
	       "  lab --version\n"
	       "  jq .lab reports/ID/report.json    # the lab that wrote a report\n");
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		cli_usage_err("takes no arguments");
		return EXIT_BAD_INPUT;
	}
	printf("lab %s (commit %s)\n", version_lab(), version_commit());
	return EXIT_OK;
}

/* The command called name, or NULL. */
static const struct lab_cmd *command_find(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* "did you mean 'compare'?" for a typo (util/text.h's rule). */
static const char *command_nearest(const char *name)
{
	const char *names[NR_COMMANDS];

	for (size_t i = 0; i < NR_COMMANDS; i++)
		names[i] = commands[i].name;
	return text_nearest(name, names, NR_COMMANDS);
}

static void not_a_command(const char *name)
{
	const char *near = command_nearest(name);

	cli_set_name("");
	if (near)
		cli_err("'%s' is not a lab command; did you mean '%s'? See 'lab --help'.", name,
			near);
	else
		cli_err("'%s' is not a lab command. See 'lab --help'.", name);
}

static void cmd_help_help(void)
{
	printf("usage: lab help [COMMAND [VERB]]\n\n"
	       "The list of commands, or COMMAND's --help (a job verb's: lab help job VERB).\n\n"
	       "EXAMPLES\n"
	       "  lab help\n"
	       "  lab help compare\n"
	       "  lab help job submit\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct lab_cmd *c;

	if (argc < 2) {
		usage(stdout);
		return EXIT_OK;
	}
	c = command_find(argv[1]);
	/* lab help job status: a verb of a group */
	if (c && c->group && argc == 3)
		return cmd_job_help_verb(argv[2]);
	if (argc > 2) {
		cli_usage_err("expected at most one command");
		return EXIT_BAD_INPUT;
	}
	if (!c) {
		not_a_command(argv[1]);
		return EXIT_BAD_INPUT;
	}
	if (c->alias_of) {
		printf("'lab %s' is an old name of 'lab %s'.\n\n", c->name, c->alias_of);
		return cmd_job_help_verb(c->alias_of + strlen("job "));
	}
	cli_set_name(c->name);
	return cli_help(c->help, "--help");
}

static int dispatch(const struct lab_cmd *c, int argc, char **argv)
{
	cli_set_name(c->name);
	if (!c->group)
		for (int k = 1; k < argc; k++)
			if (cli_is_help(argv[k]))
				return cli_help(c->help, argv[k]);
	return c->fn(argc, argv);
}

int main(int argc, char **argv)
{
	const struct lab_cmd *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_BAD_INPUT;
	}
	if (cli_is_help(argv[1]))
		return usage(stdout), EXIT_OK;
	if (!strcmp(argv[1], "--version"))
		argv[1] = "version";
	c = command_find(argv[1]);
	if (!c) {
		not_a_command(argv[1]);
		return EXIT_BAD_INPUT;
	}
	if (c->alias_of) {
		/* "lab status 7" is "lab job status 7": argv[0] becomes "job", argv[1] the verb. */
		argv[0] = "job";
		argv[1] = (char *)c->alias_of + strlen("job ");
		return dispatch(command_find("job"), argc, argv);
	}
	return dispatch(c, argc - 1, argv + 1);
}
