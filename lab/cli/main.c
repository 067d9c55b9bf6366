/* lab: the numalab command line.  Subcommands live in one table, git-style. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct lab_cmd commands[] = {
	{ "run", "boot guests for a job file and write a report", cmd_run, cmd_run_help },
	{ "doctor", "check this host and say how to fix what is missing", cmd_doctor,
	  cmd_doctor_help },
	{ "image", "build and list guest disk images (images/), cached by recipe", cmd_image,
	  cmd_image_help },
	{ "kernel", "build and list kernel variants (kernels/), cached by content", cmd_kernel,
	  cmd_kernel_help },
	{ "qemu", "build the contention model's QEMU (images/qemu/), cached by content", cmd_qemu,
	  cmd_qemu_help },
	{ "compare", "A/B statistics of two kernel variants' reports", cmd_compare,
	  cmd_compare_help },
	{ "report", "write an HTML dashboard of reports", cmd_report, cmd_report_help },
	{ "hosts", "the pool of libvirt hosts: state, class, capacity, what runs there", cmd_hosts,
	  cmd_hosts_help },
	{ "history", "the index of reports: list runs, follow series over time", cmd_history,
	  cmd_history_help },
	{ "bisect", "find the kernel commit that changed a job's figure", cmd_bisect,
	  cmd_bisect_help },
	{ "nightly", "measure a branch head, check it against history, bisect regressions",
	  cmd_nightly, cmd_nightly_help },
	{ "submit", "queue a job in labd, the lab's daemon (--wait: follow it)", cmd_submit,
	  cmd_submit_help },
	{ "queue", "list labd's jobs, newest first", cmd_queue, cmd_queue_help },
	{ "status", "one job of labd's queue", cmd_status, cmd_status_help },
	{ "cancel", "cancel a job of labd's queue", cmd_cancel, cmd_cancel_help },
	{ "logs", "a labd job's events (--follow: until it ends)", cmd_logs, cmd_logs_help },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

void cli_err(const char *fmt, ...)
{
	va_list ap;

	fputs("lab: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_git_bisect(int code, int bad)
{
	if (code == EXIT_OK)
		return EXIT_GIT_GOOD;
	if (bad)
		return EXIT_GIT_BAD;
	return code == EXIT_UNDECIDED ? EXIT_GIT_SKIP : EXIT_GIT_ABORT;
}

int cli_is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: lab <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'lab <command> --help' describes one command.\n\n" EXIT_TABLE_HELP);
}

int main(int argc, char **argv)
{
	if (argc < 2 || cli_is_help(argv[1])) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_BAD_INPUT : EXIT_OK;
	}
	if (!strcmp(argv[1], "help") && argc == 3)
		argv[1] = argv[2], argv[2] = "--help";
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		for (int k = 2; k < argc; k++)
			if (cli_is_help(argv[k])) {
				commands[i].help();
				fputs("\n" EXIT_TABLE_HELP, stdout);
				return EXIT_OK;
			}
		return commands[i].fn(argc - 1, argv + 1);
	}
	cli_err("'%s' is not a lab command. See 'lab --help'.", argv[1]);
	return EXIT_BAD_INPUT;
}
