/* lab job cancel ID [--json]: stop a job of labd's queue (labd_cli.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/labd_cli.h"
#include "util/cleanup.h"

void cmd_cancel_help(void)
{
	cli_synopsis("job cancel", "ID", labd_cli_opts);
	printf("\nCancels a job of labd's queue: a queued one at once (it never runs), a running\n"
	       "one as Ctrl-C interrupts `lab run` (the run under way recorded as interrupted,\n"
	       "the runs that ended kept in its report).  --json prints labd's answer:\n"
	       "{\"id\", \"state\", \"cancel_requested\"}.  Each option at length: man lab,\n"
	       "\"OPTIONS OF LAB JOB\".\n\nOPTIONS\n");
	opt_print(stdout, labd_cli_opts);
	printf("\nEXAMPLES\n"
	       "  lab job cancel 7\n"
	       "  lab job cancel 7 --json\n\n"
	       "Exit status: 0 cancelled or being stopped; 4 labd is not running or failed;\n"
	       "2 bad arguments, no such job, or a job that already ended.\n");
}

int cmd_cancel(int argc, char **argv)
{
	struct labd_cli l = { 0 };
	_cleanup_json_ json_t *j = NULL;
	const char *state;
	int rc = labd_cli_job_request(&l, argc, argv, "POST", "/cancel", &j);

	if (rc != EXIT_OK)
		return rc;
	if (l.json)
		return labd_cli_print_json(j);
	state = json_string_value(json_object_get(j, "state"));
	if (state && !strcmp(state, "running"))
		printf("job %" JSON_INTEGER_FORMAT ": running, being stopped (its guest is "
		       "destroyed, the run under way recorded as interrupted)\n",
		       json_integer_value(json_object_get(j, "id")));
	else
		printf("job %" JSON_INTEGER_FORMAT ": cancelled\n",
		       json_integer_value(json_object_get(j, "id")));
	return EXIT_OK;
}
