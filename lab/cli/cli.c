/* What the commands share: the one error shape, the help texts' printing, the exit codes'
 * mapping for `git bisect run`. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/cleanup.h"

/* The command line's name for messages, "compare" or "job status" (cli_set_name). */
static char cmd_name[64] = "";

volatile sig_atomic_t cli_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	cli_interrupted = 1;
}

void cli_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void cli_progress(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "lab: %s\n", msg);
}

void cli_set_name(const char *name)
{
	snprintf(cmd_name, sizeof(cmd_name), "%s", name);
}

static void verr(const char *fmt, va_list ap, int usage)
{
	fprintf(stderr, cmd_name[0] ? "lab %s: " : "lab: ", cmd_name);
	vfprintf(stderr, fmt, ap);
	if (usage)
		fprintf(stderr, " (see 'lab %s --help')", cmd_name);
	fputc('\n', stderr);
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(fmt, ap, 0);
	va_end(ap);
}

void cli_usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(fmt, ap, 1);
	va_end(ap);
}

int cli_parse_with(int argc, char **argv, const struct cli_opt *opts,
		   int (*allow)(const struct cli_opt *o, struct opt_error *e))
{
	struct opt_error e;
	int r = parseopt(argc, argv, opts, allow, &e);

	if (r < 0 && e.usage)
		cli_usage_err("%s", e.msg);
	else if (r < 0)
		cli_err("%s", e.msg);
	return r;
}

int cli_parse(int argc, char **argv, const struct cli_opt *opts)
{
	return cli_parse_with(argc, argv, opts, NULL);
}

void cli_synopsis(const char *cmd, const char *operands, const struct cli_opt *opts)
{
	char prog[96];

	snprintf(prog, sizeof(prog), "lab %s", cmd);
	opt_synopsis(stdout, prog, operands, opts);
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

/* The lines of text from the first that starts with "EXAMPLES" to the next empty one. */
static void print_examples(FILE *t)
{
	char line[512];
	int in = 0;

	while (fgets(line, sizeof(line), t)) {
		if (!in && !strncmp(line, "EXAMPLES", 8))
			in = 1;
		else if (in && line[0] == '\n')
			break;
		if (in)
			fputs(line, stdout);
	}
}

/* -h: the usage paragraph and EXAMPLES of --help's text, caught from the help function on
 * a temporary file (the help functions print to stdout). */
static int help_brief(void (*help)(void))
{
	_cleanup_fclose_ FILE *t = tmpfile();
	char line[512];
	int saved;

	fflush(stdout);
	if (!t || (saved = dup(STDOUT_FILENO)) < 0)
		return -1;
	dup2(fileno(t), STDOUT_FILENO);
	help();
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(t);
	while (fgets(line, sizeof(line), t) && line[0] != '\n')
		fputs(line, stdout);
	fputc('\n', stdout);
	print_examples(t);
	printf("\n'lab %s --help' says all of it.\n", cmd_name);
	return 0;
}

int cli_help(void (*help)(void), const char *arg)
{
	if (!strcmp(arg, "-h") && help_brief(help) == 0)
		return EXIT_OK;
	help();
	fputs("\n" EXIT_TABLE_HELP, stdout);
	return EXIT_OK;
}
