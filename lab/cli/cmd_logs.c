/* lab job logs ID [--follow] [--json]: a job's events from labd's log (labd_cli.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/labd_cli.h"
#include "util/cleanup.h"

void cmd_logs_help(void)
{
	printf("usage: lab job logs ID [--follow] [--json]\n"
	       "                [--socket PATH | --url URL [--token-file F]]\n\n"
	       "The events of a job of labd's queue (see 'lab job submit --help'), oldest\n"
	       "first, one line each: time, type, what happened.  Types: accepted, started,\n"
	       "progress (the lines `lab run` prints: kernel builds, run K/N booting, its\n"
	       "outcome), run-started, run-ended (outcome and reason), cancel, interrupted\n"
	       "(labd restarted during these runs: recorded as interrupted, not run again),\n"
	       "done (the job's final state, the exit code of its `lab run`, the error of a\n"
	       "failed job).\n\n"
	       "  --follow          then wait for more until the job ends (long polls of %ld s;\n"
	       "                    Ctrl-C stops following, not the job)\n"
	       "  --json            each event as labd sends it, one JSON object a line (keys\n"
	       "                    sorted): {\"data\", \"job\", \"seq\", \"time\", \"type\"}\n"
	       LABD_CLI_OPTIONS_HELP "\n"
	       "EXAMPLES\n"
	       "  lab job logs 7\n"
	       "  lab job logs 7 --follow       # until the job ends\n"
	       "  lab job logs 7 --json\n\n"
	       "Exit status: 0 ok; 4 labd is not running or failed; 2 bad arguments or no such\n"
	       "job.\n", LABD_POLL_S);
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
	int follow = 0, first, rc;
	int64_t id;

	first = labd_cli_getopt_flag(&l, argc, argv, "follow", &follow);
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
