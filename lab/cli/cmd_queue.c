/* lab job list [--state S] [--limit N] [--json]: labd's jobs, newest first (labd_cli.h). */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/labd_cli.h"
#include "util/cleanup.h"
#include "util/text.h"

/* One command line a process: what the tables write to. */
static struct {
	struct labd_cli l;
	const char *state;
	unsigned limit;
} args;

/* --state is a job's state, not the state directory of the run environment's group.  labd
 * says whether it is one; --limit's bound is labd's. */
static const struct cli_opt options[] = {
	OPT_STRING(0, "state", &args.state, "S",
		   "only jobs in this state: queued, running, done, failed or cancelled"),
	OPT_UINT(0, "limit", &args.limit, "N", 1, 100000, "at most N jobs (labd's default: 1000)"),
	OPT_GROUP(labd_cli_opts),
	OPT_END(),
};

void cmd_queue_help(void)
{
	memset(&args, 0, sizeof(args));
	cli_synopsis("job list", NULL, options);
	printf("\nThe jobs of labd's queue, newest first, one line each: ID, state, runs done of\n"
	       "planned, when it was created, its name (see 'lab job submit --help').\n"
	       "Each option at length: man lab, \"OPTIONS OF LAB JOB LIST\".\n\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab job list\n"
	       "  lab job list --state running\n"
	       "  lab job list --state failed --limit 20 --json\n\n"
	       "Exit status: 0 ok (also when no job is listed); 4 labd is not running or failed;\n"
	       "2 bad arguments.\n");
}

/* "/v1/jobs[?state=S][&limit=N]", S escaped: labd says whether it is a state. */
static char *list_path(CURL *h)
{
	char *st = args.state ? curl_easy_escape(h, args.state, 0) : NULL, *p = NULL;
	char lim[48] = "";

	if (args.state && !st)
		return NULL;
	if (args.limit)
		snprintf(lim, sizeof(lim), "%slimit=%u", st ? "&" : "?", args.limit);
	if (asprintf(&p, "/v1/jobs%s%s%s", st ? "?state=" : "", st ? st : "", lim) < 0)
		p = NULL;
	curl_free(st);
	return p;
}

static void print_row(const json_t *j)
{
	char name[128], state[32], created[64], runs[48];
	const char *s;

	s = json_string_value(json_object_get(j, "name"));
	text_clean_copy(name, sizeof(name), s && s[0] ? s : "-");
	s = json_string_value(json_object_get(j, "state"));
	text_clean_copy(state, sizeof(state), s ? s : "?");
	s = json_string_value(json_object_get(j, "created"));
	text_clean_copy(created, sizeof(created), s ? s : "-");
	snprintf(runs, sizeof(runs), "%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT,
		 json_integer_value(json_object_get(j, "runs_done")),
		 json_integer_value(json_object_get(j, "runs_planned")));
	printf("%6" JSON_INTEGER_FORMAT "  %-10s %-8s %-20s  %s%s\n",
	       json_integer_value(json_object_get(j, "id")), state, runs, created, name,
	       json_is_true(json_object_get(j, "cancel_requested")) ? " (cancel requested)" : "");
}

static void print_table(const json_t *jobs)
{
	size_t i;
	json_t *j;

	if (!json_array_size(jobs)) {
		printf("no jobs\n");
		return;
	}
	printf("%6s  %-10s %-8s %-20s  %s\n", "ID", "STATE", "RUNS", "CREATED", "NAME");
	json_array_foreach(jobs, i, j)
		print_row(j);
}

int cmd_queue(int argc, char **argv)
{
	_cleanup_json_ json_t *j = NULL;
	_cleanup_free_ char *path = NULL;
	int first, rc;

	memset(&args, 0, sizeof(args));
	if ((first = labd_cli_parse(&args.l, argc, argv, options)) < 0)
		return EXIT_BAD_INPUT;
	if (first != argc) {
		cli_usage_err("unexpected argument '%s'", argv[first]);
		return EXIT_BAD_INPUT;
	}
	if ((rc = labd_cli_open(&args.l)) != EXIT_OK)
		return rc;
	path = list_path(args.l.c.curl);
	rc = path ? labd_cli_call(&args.l, "GET", path, NULL, LABD_ANSWER_MAX, LABD_TIMEOUT_S,
				  NULL, &j)
		  : (cli_err("out of memory"), EXIT_LAB_ERROR);
	labd_cli_close(&args.l);
	if (rc != EXIT_OK)
		return rc;
	if (args.l.json)
		return labd_cli_print_json(j);
	print_table(json_object_get(j, "jobs"));
	return EXIT_OK;
}
