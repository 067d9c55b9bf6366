/* lab job list [--state S] [--limit N] [--json]: labd's jobs, newest first (labd_cli.h). */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/labd_cli.h"
#include "util/cleanup.h"
#include "util/text.h"

#define OPT_STATE 1
#define OPT_LIMIT 2

void cmd_queue_help(void)
{
	printf("usage: lab job list [--state S] [--limit N] [--json]\n"
	       "                 [--socket PATH | --url URL [--token-file F]]\n\n"
	       "The jobs of labd's queue, newest first, one line each: ID, state, runs done of\n"
	       "planned, when it was created, its name (see 'lab job submit --help').\n\n"
	       "  --state S         only jobs in this state: queued, running, done, failed or\n"
	       "                    cancelled\n"
	       "  --limit N         at most N jobs (labd's default: 1000)\n"
	       "  --json            labd's JSON, {\"jobs\": [...]} (keys sorted)\n"
	       LABD_CLI_OPTIONS_HELP "\n"
	       "EXAMPLES\n"
	       "  lab job list\n"
	       "  lab job list --state running\n"
	       "  lab job list --state failed --limit 20 --json\n\n"
	       "Exit status: 0 ok (also when no job is listed); 4 labd is not running or failed;\n"
	       "2 bad arguments.\n");
}

struct qargs {
	const char *state;
	long limit;
};

static int own_option(void *ud, int opt, const char *arg)
{
	struct qargs *a = ud;
	char *end;

	if (opt == OPT_STATE) {
		a->state = arg;
		return 0;
	}
	errno = 0;
	a->limit = strtol(arg, &end, 10);
	if (errno || end == arg || *end || a->limit < 1) {
		cli_err("--limit must be a positive number");
		return -EINVAL;
	}
	return 0;
}

/* "/v1/jobs[?state=S][&limit=N]", S escaped: labd says whether it is a state. */
static char *list_path(const struct qargs *a, CURL *h)
{
	char *st = a->state ? curl_easy_escape(h, a->state, 0) : NULL, *p = NULL;
	char lim[48] = "";

	if (a->state && !st)
		return NULL;
	if (a->limit)
		snprintf(lim, sizeof(lim), "%slimit=%ld", st ? "&" : "?", a->limit);
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
	static const struct option opts[] = {
		LABD_CLI_OPTIONS,
		{ "state", required_argument, NULL, OPT_STATE },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ 0 },
	};
	struct labd_cli l = { 0 };
	struct qargs a = { 0 };
	_cleanup_json_ json_t *j = NULL;
	_cleanup_free_ char *path = NULL;
	int first = labd_cli_getopt(&l, argc, argv, opts, own_option, &a), rc;

	if (first < 0)
		return EXIT_BAD_INPUT;
	if (first != argc) {
		cli_usage_err("unexpected argument '%s'", argv[first]);
		return EXIT_BAD_INPUT;
	}
	if ((rc = labd_cli_open(&l)) != EXIT_OK)
		return rc;
	path = list_path(&a, l.c.curl);
	rc = path ? labd_cli_call(&l, "GET", path, NULL, LABD_ANSWER_MAX, LABD_TIMEOUT_S,
				  NULL, &j)
		  : (cli_err("out of memory"), EXIT_LAB_ERROR);
	labd_cli_close(&l);
	if (rc != EXIT_OK)
		return rc;
	if (l.json)
		return labd_cli_print_json(j);
	print_table(json_object_get(j, "jobs"));
	return EXIT_OK;
}
