/* lab job logs ID [--follow] [--json]: a job's events from labd's log (labd_cli.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/labd_cli.h"
#include "util/cleanup.h"

/* One command line a process: what the table writes to. */
static int follow;

static const struct cli_opt options[] = {
	OPT_FLAG(0, "follow", &follow,
		 "then wait for more until the job ends (Ctrl-C stops following, not the job)"),
	OPT_GROUP(labd_cli_opts),
	OPT_END(),
};

void cmd_logs_help(void)
{
	cli_synopsis("job logs", "ID", options);
	printf("\nThe events of a job of labd's queue, oldest first, one line each: time, type\n"
	       "(accepted, started, progress, run-started, run-ended, cancel, interrupted,\n"
	       "done), what happened.  --json prints each event as labd sends it, one JSON\n"
	       "object a line.  Each option at length: man lab, \"OPTIONS OF LAB JOB\".\n"
	       "\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab job logs 7\n"
	       "  lab job logs 7 --follow       # until the job ends\n"
	       "  lab job logs 7 --json\n\n"
	       "Exit status: 0 ok; 4 labd is not running or failed; 2 bad arguments or no such\n"
	       "job.\n");
}

static void print_event(void *ud, const json_t *ev)
{
	const struct labd_cli *l = ud;
	char line[1400];

	if (l->json) {
		_cleanup_free_ char *s = json_dumps(ev, JSON_SORT_KEYS | JSON_COMPACT);

		if (s)
			printf("%s\n", s);
	} else {
		labd_event_text(ev, line, sizeof(line));
		printf("%s\n", line);
	}
	/* Followed through a pipe (| tee), a line is worth seeing when it happens. */
	fflush(stdout);
}

int cmd_logs(int argc, char **argv)
{
	struct labd_cli l = { 0 };
	_cleanup_json_ json_t *j = NULL;
	char path[96];
	int first, rc;
	int64_t id;

	follow = 0;
	first = labd_cli_parse(&l, argc, argv, options);
	if (first < 0)
		return EXIT_BAD_INPUT;
	if ((rc = labd_cli_one_id(argc, argv, first, &id)) != EXIT_OK ||
	    (rc = labd_cli_open(&l)) != EXIT_OK)
		return rc;
	/* The job first: an unknown ID is an error, not an empty log. */
	labd_cli_job_path(path, sizeof(path), id, "");
	rc = labd_cli_call(&l, "GET", path, NULL, LABD_ANSWER_MAX, LABD_TIMEOUT_S, NULL, &j);
	if (rc == EXIT_OK)
		rc = labd_cli_events(&l, id, follow, print_event, &l);
	labd_cli_close(&l);
	return rc;
}
