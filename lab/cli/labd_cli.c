/* The labd client commands' shared part (labd_cli.h). */
#include "cli/labd_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "util/cleanup.h"
#include "util/jsonio.h"
#include "util/text.h"

/* One command line a process: what the group's table writes to. */
static struct {
	struct labd_target t;
	int json;
} where;

const struct cli_opt labd_cli_opts[] = {
	OPT_FLAG(0, "json", &where.json, "labd's JSON on stdout, keys sorted"),
	OPT_STRING(0, "socket", &where.t.socket, "PATH",
		   "labd's unix socket (default $LAB_SOCKET, else " LABD_SOCKET_DEFAULT ")"),
	OPT_STRING(0, "url", &where.t.url, "URL",
		   "a labd on TCP instead, http://HOST:PORT (default $LAB_URL)"),
	OPT_STRING(0, "token-file", &where.t.token_file, "F",
		   "the bearer token for --url, in a file only you can read (default "
		   "$LAB_TOKEN_FILE)"),
	OPT_END(),
};

int labd_cli_parse(struct labd_cli *l, int argc, char **argv, const struct cli_opt *opts)
{
	int first;

	memset(&where, 0, sizeof(where));
	first = cli_parse(argc, argv, opts);
	l->t = where.t;
	l->json = where.json;
	return first;
}

static void print_error(const struct lab_error *err)
{
	char msg[1200];

	/* An error in a job file is said as `lab run` says it: file, JSON path, reason. */
	error_format(err, msg, sizeof(msg));
	cli_err("%s", msg);
}

int labd_cli_open(struct labd_cli *l)
{
	struct lab_error err = { 0 };
	int r;

	if (l->t.socket && l->t.url) {
		cli_err("--socket and --url exclude each other");
		return EXIT_BAD_INPUT;
	}
	r = labd_client_open(&l->c, &l->t, &err);
	if (r < 0) {
		print_error(&err);
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	return EXIT_OK;
}

void labd_cli_close(struct labd_cli *l)
{
	labd_client_close(&l->c);
}

int labd_cli_one_id(int argc, char **argv, int first, int64_t *id)
{
	char *end;

	if (first != argc - 1) {
		cli_usage_err("expected one job ID");
		return EXIT_BAD_INPUT;
	}
	errno = 0;
	*id = argv[first][0] >= '0' && argv[first][0] <= '9' ? strtoll(argv[first], &end, 10) : 0;
	if (*id > 0 && !errno && !*end)
		return EXIT_OK;
	cli_err("a job ID is a positive number, not '%s'", argv[first]);
	return EXIT_BAD_INPUT;
}

void labd_cli_job_path(char *buf, size_t len, int64_t id, const char *suffix)
{
	snprintf(buf, len, "/v1/jobs/%" PRId64 "%s", id, suffix);
}

/* What an error status means for the exit code: labd refused what it was asked. */
static int refused(long status)
{
	return status == 400 || status == 404 || status == 409 || status == 413 || status == 422;
}

int labd_cli_call(struct labd_cli *l, const char *method, const char *path, const json_t *body,
		  size_t max, long timeout_s, const char *file, json_t **out)
{
	_cleanup_json_ json_t *a = NULL;
	struct lab_error err = { 0 };
	long st = 0;
	int r = labd_request(&l->c, method, path, body, max, timeout_s, &st, &a, &err);

	*out = NULL;
	if (r < 0) {
		if (!err.msg[0])
			error_set(&err, "", "%s", strerror(-r));
		print_error(&err);
		return EXIT_LAB_ERROR;
	}
	if (st >= 200 && st < 300) {
		*out = TAKE_PTR(a);
		return EXIT_OK;
	}
	labd_error_from(a, st, &err);
	if (st == 401 || st == 403)
		snprintf(err.path, sizeof(err.path), "%s", "token (--token-file)");
	else
		error_set_file(&err, file);
	print_error(&err);
	return refused(st) ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
}

int labd_cli_job_request(struct labd_cli *l, int argc, char **argv, const char *method,
			 const char *suffix, json_t **out)
{
	int first = labd_cli_parse(l, argc, argv, labd_cli_opts), rc;
	char path[96];
	int64_t id;

	*out = NULL;
	if (first < 0)
		return EXIT_BAD_INPUT;
	if ((rc = labd_cli_one_id(argc, argv, first, &id)) != EXIT_OK ||
	    (rc = labd_cli_open(l)) != EXIT_OK)
		return rc;
	labd_cli_job_path(path, sizeof(path), id, suffix);
	rc = labd_cli_call(l, method, path, NULL, LABD_ANSWER_MAX, LABD_TIMEOUT_S, NULL, out);
	labd_cli_close(l);
	return rc;
}

int labd_cli_print_json(const json_t *j)
{
	_cleanup_free_ char *s = jsonio_dumps(j);

	if (!s) {
		cli_err("out of memory");
		return EXIT_LAB_ERROR;
	}
	printf("%s\n", s);
	return EXIT_OK;
}

int labd_state_ended(const char *state)
{
	return state && (!strcmp(state, "done") || !strcmp(state, "failed") ||
			 !strcmp(state, "cancelled"));
}

/* ---- events -------------------------------------------------------------------------- */

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static json_int_t num(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* "I, J" from an array of run indices. */
static void runs_list(const json_t *a, char *buf, size_t len)
{
	size_t i, used = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(a, i, v) {
		int n = snprintf(buf + used, len - used, "%s%" JSON_INTEGER_FORMAT, i ? ", " : "",
				 json_integer_value(v));

		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

static void done_text(const json_t *d, char *buf, size_t len)
{
	const json_t *ex = json_object_get(d, "exit");
	const char *e = str(d, "error");
	char code[32] = "";

	if (json_is_integer(ex))
		snprintf(code, sizeof(code), ", exit %" JSON_INTEGER_FORMAT, json_integer_value(ex));
	snprintf(buf, len, "%s%s%s%s", str(d, "state"), code, e[0] ? ": " : "", e);
}

void labd_event_what(const json_t *ev, char *buf, size_t len)
{
	const char *type = str(ev, "type");
	const json_t *d = json_object_get(ev, "data");
	_cleanup_free_ char *other = NULL;
	char raw[1024], runs[256];

	if (!strcmp(type, "progress"))
		snprintf(raw, sizeof(raw), "%s", str(d, "msg"));
	else if (!strcmp(type, "accepted") || !strcmp(type, "started"))
		snprintf(raw, sizeof(raw), "job %" JSON_INTEGER_FORMAT " %s", num(ev, "job"), type);
	else if (!strcmp(type, "run-started"))
		snprintf(raw, sizeof(raw), "run %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT
			 " started", num(d, "index") + 1, num(d, "total")); /* index from 0 */
	else if (!strcmp(type, "run-ended"))
		snprintf(raw, sizeof(raw), "run %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT
			 ": %s%s%s", num(d, "index") + 1, num(d, "total"), str(d, "status"),
			 str(d, "reason")[0] ? ": " : "", str(d, "reason"));
	else if (!strcmp(type, "cancel"))
		snprintf(raw, sizeof(raw), "cancel requested");
	else if (!strcmp(type, "interrupted")) {
		runs_list(json_object_get(d, "runs"), runs, sizeof(runs));
		snprintf(raw, sizeof(raw), "labd restarted: run(s) %s cut short, recorded as "
			 "interrupted; the job goes on with its next run", runs[0] ? runs : "none");
	} else if (!strcmp(type, "done"))
		done_text(d, raw, sizeof(raw));
	else {
		other = d ? json_dumps(d, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
		snprintf(raw, sizeof(raw), "%s", other ? other : "");
	}
	text_clean_copy(buf, len, raw);
}

/* An event's time as labd gives it: ISO 8601 text, or seconds since the epoch. */
static void event_time(const json_t *t, char *buf, size_t len)
{
	time_t s = (time_t)json_number_value(t);
	struct tm tm;

	if (json_is_string(t))
		text_clean_copy(buf, len, json_string_value(t));
	else if (json_is_number(t) && gmtime_r(&s, &tm))
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(buf, len, "-");
}

void labd_event_text(const json_t *ev, char *buf, size_t len)
{
	char when[64], type[32], what[1024];

	event_time(json_object_get(ev, "time"), when, sizeof(when));
	text_clean_copy(type, sizeof(type), str(ev, "type"));
	labd_event_what(ev, what, sizeof(what));
	snprintf(buf, len, "%s  %-11s  %s", when, type, what);
}

/* The job's state, to end a follow that no "done" event ends (a job cancelled while
 * queued).  1 ended, 0 not, or minus an exit code. */
static int job_ended(struct labd_cli *l, int64_t id)
{
	_cleanup_json_ json_t *j = NULL;
	char path[64];
	int rc;

	labd_cli_job_path(path, sizeof(path), id, "");
	rc = labd_cli_call(l, "GET", path, NULL, LABD_ANSWER_MAX, LABD_TIMEOUT_S, NULL, &j);
	if (rc != EXIT_OK)
		return -rc;
	return labd_state_ended(str(j, "state"));
}

/* One batch of events after *since: each to fn, *since moved on.  *done when the job's
 * "done" is among them; *ask when its state may have ended without one (no events came, or
 * a cancel did: a queued job cancelled has no "done"); *empty when there were none. */
static int events_batch(struct labd_cli *l, int64_t id, long wait_s, int64_t *since,
			labd_event_fn fn, void *ud, int *done, int *ask, int *empty)
{
	_cleanup_json_ json_t *a = NULL;
	const json_t *evs;
	char path[128];
	size_t i;
	json_t *ev;
	int rc;

	snprintf(path, sizeof(path), "/v1/events?since=%" PRId64 "&job=%" PRId64 "&timeout=%ld",
		 *since, id, wait_s);
	rc = labd_cli_call(l, "GET", path, NULL, LABD_ANSWER_MAX, wait_s + LABD_TIMEOUT_S,
			   NULL, &a);
	if (rc != EXIT_OK)
		return rc;
	evs = json_object_get(a, "events");
	*empty = json_array_size(evs) == 0;
	*ask = *empty;
	json_array_foreach(evs, i, ev) {
		json_int_t seq = num(ev, "seq");

		if (seq <= *since)
			continue; /* never the same event twice, whatever labd sends */
		*since = seq;
		fn(ud, ev);
		*done |= !strcmp(str(ev, "type"), "done");
		*ask |= !strcmp(str(ev, "type"), "cancel");
	}
	/* Nothing new: wait from the log's end, not from before events of other jobs. */
	if (*empty && num(a, "last") > *since)
		*since = num(a, "last");
	return EXIT_OK;
}

int labd_cli_events(struct labd_cli *l, int64_t id, int follow, labd_event_fn fn, void *ud)
{
	int64_t since = 0;
	int done = 0, ask = 0, empty = 0, rc, e;

	/* The log so far at once; then, following, long polls. */
	for (long wait_s = 0;; wait_s = LABD_POLL_S) {
		rc = events_batch(l, id, follow ? wait_s : 0, &since, fn, ud, &done, &ask, &empty);
		if (rc != EXIT_OK || done || (!follow && empty))
			return rc;
		if (follow && ask && (e = job_ended(l, id)) != 0)
			return e < 0 ? -e : EXIT_OK;
	}
}
