/* lab job status ID [--json]: one job of labd's queue (labd_cli.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/labd_cli.h"
#include "util/cleanup.h"
#include "util/text.h"

void cmd_status_help(void)
{
	cli_synopsis("job status", "ID", labd_cli_opts);
	printf("\nOne job of labd's queue: its state, runs done of planned, its times, where its\n"
	       "report is (on labd's machine), the error that failed it, a cancel asked for.\n"
	       "--json prints labd's JSON of the job, the submitted job included.  Each option\n"
	       "at length: man lab, \"OPTIONS OF LAB JOB\".\n\nOPTIONS\n");
	opt_print(stdout, labd_cli_opts);
	printf("\nEXAMPLES\n"
	       "  lab job status 7\n"
	       "  lab job status 7 --json\n\n"
	       "Exit status: 0 ok (whatever the job's state); 4 labd is not running or failed;\n"
	       "2 bad arguments or no such job.\n");
}

/* A string member for a terminal: only printable characters, "-" for none. */
static void field(const json_t *j, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(j, key));

	text_clean_copy(buf, len, s && s[0] ? s : "-");
}

static void print_job(const json_t *j)
{
	char name[128], state[32], created[64], started[64], ended[64], out[1024], err[1024];
	const json_t *ex = json_object_get(j, "exit");

	field(j, "name", name, sizeof(name));
	field(j, "state", state, sizeof(state));
	field(j, "created", created, sizeof(created));
	field(j, "started", started, sizeof(started));
	field(j, "ended", ended, sizeof(ended));
	field(j, "out_dir", out, sizeof(out));
	field(j, "error", err, sizeof(err));
	printf("job %" JSON_INTEGER_FORMAT " (%s): %s, %" JSON_INTEGER_FORMAT " of %"
	       JSON_INTEGER_FORMAT " run(s) done\n", json_integer_value(json_object_get(j, "id")),
	       name, state, json_integer_value(json_object_get(j, "runs_done")),
	       json_integer_value(json_object_get(j, "runs_planned")));
	printf("  created  %s\n  started  %s\n  ended    %s\n", created, started, ended);
	if (strcmp(out, "-"))
		printf("  report   %s/report.json\n", out);
	if (json_is_integer(ex))
		printf("  exit     %" JSON_INTEGER_FORMAT "\n", json_integer_value(ex));
	if (strcmp(err, "-"))
		printf("  error    %s\n", err);
	if (json_is_true(json_object_get(j, "cancel_requested")))
		printf("  cancel requested\n");
}

int cmd_status(int argc, char **argv)
{
	struct labd_cli l = { 0 };
	_cleanup_json_ json_t *j = NULL;
	int rc = labd_cli_job_request(&l, argc, argv, "GET", "", &j);

	if (rc != EXIT_OK)
		return rc;
	if (l.json)
		return labd_cli_print_json(j);
	print_job(j);
	return EXIT_OK;
}
