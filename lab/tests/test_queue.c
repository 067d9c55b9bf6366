/* labd's job queue (lab/daemon/queue.h) in a temporary directory: jobs submitted, read,
 * listed (newest first, by state, limited), claimed in order, progressed, finished and
 * cancelled (queued, running, ended, unknown); the event log read since a seq, per job and
 * limited, its data with sorted keys; queue_wait woken by another thread and timing out;
 * restart recovery (runs started and not ended recorded as interrupted, over two restarts; a
 * job cancelled before the crash ends cancelled); everything still there after reopening; a
 * newer file, another program's database and a file that is no database refused; 50 threads
 * submitting at once. */
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/queue.h"
#include "testutil.h"
#include "util/clock.h"

static char tmp[] = "/tmp/numalab-test-queue.XXXXXX";

static int64_t submit(struct queue *q, const char *name, const char *out_dir)
{
	_cleanup_json_ json_t *job = json_pack("{s:s, s:i, s:[s]}", "name", name, "boots", 1,
					       "kernels", "host");
	struct lab_error err = { 0 };
	int64_t id = -1;

	if (queue_submit(q, job, name, out_dir, NULL, NULL, &id, &err) < 0)
		printf("# submit %s: %s\n", name, err.msg);
	return id;
}

static json_t *get(struct queue *q, int64_t id, int with_job)
{
	struct lab_error err = { 0 };
	json_t *j = NULL;

	if (queue_get(q, id, with_job, &j, &err) < 0)
		printf("# get %lld: %s\n", (long long)id, err.msg);
	return j;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static json_int_t num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -999;
}

static int state_is(struct queue *q, int64_t id, const char *state)
{
	_cleanup_json_ json_t *j = get(q, id, 0);

	return !strcmp(str(j, "state"), state);
}

/* "2026-12-01T01:02:03Z" */
static int is_time(const json_t *v)
{
	const char *s = json_string_value(v);
	struct tm tm;
	const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;

	return end && !*end && strlen(s) == 20;
}

/* The events of job (0: all) with seq > since, as "type,type,...". */
static void event_types(struct queue *q, int64_t since, int64_t job, char *buf, size_t len)
{
	_cleanup_json_ json_t *ev = NULL;
	struct lab_error err = { 0 };
	size_t i, at = 0;
	int64_t last;
	json_t *e;

	buf[0] = '\0';
	if (queue_events(q, since, job, 0, &ev, &last, &err) < 0)
		return (void)snprintf(buf, len, "error: %s", err.msg);
	json_array_foreach(ev, i, e)
		at += snprintf(buf + at, at < len ? len - at : 0, "%s%s", i ? "," : "", str(e, "type"));
}

/* The compact JSON text of j (a static buffer). */
static const char *text(const json_t *j)
{
	static char buf[512];
	char *s = j ? json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

	snprintf(buf, sizeof(buf), "%s", s ? s : "(null)");
	free(s);
	return buf;
}

/* The data of job's latest event. */
static json_t *last_data(struct queue *q, int64_t job)
{
	_cleanup_json_ json_t *ev = NULL;
	int64_t last;

	if (queue_events(q, 0, job, 0, &ev, &last, NULL) < 0 || !json_array_size(ev))
		return NULL;
	return json_incref(json_object_get(json_array_get(ev, json_array_size(ev) - 1), "data"));
}

static int64_t last_seq(struct queue *q)
{
	int64_t last = -1;

	if (queue_last_seq(q, &last, NULL) < 0)
		return -1;
	return last;
}

static void test_states(void)
{
	enum queue_state s = QUEUE_QUEUED;

	tap_ok(!strcmp(queue_state_name(QUEUE_CANCELLED), "cancelled") &&
		       queue_state_parse("running", &s) == 0 && s == QUEUE_RUNNING &&
		       queue_state_parse("asleep", &s) == -EINVAL && queue_state_parse(NULL, &s) == -EINVAL,
	       "state names and their parsing");
}

static void test_submit(struct queue *q, int64_t id[3])
{
	_cleanup_json_ json_t *a = NULL, *b = NULL, *c = NULL, *list = NULL, *two = NULL;
	_cleanup_json_ json_t *queued = NULL, *running = NULL;
	_cleanup_free_ char *want_dir = NULL;
	struct lab_error err = { 0 };
	char *real = realpath(tmp, NULL);
	int64_t id0 = 0;

	id[0] = submit(q, "a", NULL);
	id[1] = submit(q, "b", "/somewhere/b");
	id[2] = submit(q, "c", NULL);
	tap_ok(id[0] > 0 && id[1] > id[0] && id[2] > id[1], "three jobs submitted: ids %lld %lld %lld",
	       (long long)id[0], (long long)id[1], (long long)id[2]);
	a = get(q, id[0], 1);
	b = get(q, id[1], 0);
	if (real && asprintf(&want_dir, "%s/state/labd/jobs/%lld/report", real, (long long)id[0]) < 0)
		want_dir = NULL;
	free(real);
	tap_ok(a && num(a, "id") == id[0] && !strcmp(str(a, "name"), "a") &&
		       !strcmp(str(a, "state"), "queued") && is_time(json_object_get(a, "created")) &&
		       json_is_null(json_object_get(a, "started")) &&
		       json_is_null(json_object_get(a, "ended")) &&
		       json_is_null(json_object_get(a, "exit")) &&
		       json_is_null(json_object_get(a, "error")) &&
		       json_is_false(json_object_get(a, "cancel_requested")),
	       "get: id, name, queued, created, nothing started or ended: %s", text(a));
	tap_ok(want_dir && !strcmp(str(a, "out_dir"), want_dir),
	       "no out_dir given: jobs/ID/report beside the queue file (%s)", str(a, "out_dir"));
	tap_ok(!strcmp(str(json_object_get(a, "job"), "name"), "a") &&
		       num(json_object_get(a, "job"), "boots") == 1,
	       "with_job: the submitted job");
	tap_ok(b && !json_object_get(b, "job") && !strcmp(str(b, "out_dir"), "/somewhere/b"),
	       "without: no job; the out_dir given is kept");
	tap_ok(queue_list(q, -1, 0, &list, &err) == 0 && json_array_size(list) == 3 &&
		       num(json_array_get(list, 0), "id") == id[2] &&
		       num(json_array_get(list, 2), "id") == id[0] &&
		       !json_object_get(json_array_get(list, 0), "job"),
	       "list: newest first, without the job");
	tap_ok(queue_list(q, -1, 2, &two, &err) == 0 && json_array_size(two) == 2 &&
		       num(json_array_get(two, 1), "id") == id[1], "list: a limit");
	tap_ok(queue_list(q, QUEUE_QUEUED, 0, &queued, &err) == 0 && json_array_size(queued) == 3 &&
		       queue_list(q, QUEUE_RUNNING, 0, &running, &err) == 0 &&
		       json_array_size(running) == 0, "list: by state");
	tap_ok(queue_list(q, 99, 0, &running, &err) == -EINVAL, "list: an unknown state: -EINVAL");
	tap_ok(queue_submit(q, json_object_get(json_object_get(a, "job"), "kernels"), "x", NULL, NULL, NULL, &id0,
			    &err) == -EINVAL, "submit a job that is no JSON object: -EINVAL");
}

static void test_unknown(struct queue *q)
{
	struct lab_error err = { 0 };
	json_t *j = NULL;
	int was = -1;

	int r = queue_get(q, 999, 0, &j, &err);

	tap_ok(r == -ENOENT && !j && strstr(err.msg, "999"),
	       "get an unknown id: -ENOENT (%s)", err.msg);
	tap_ok(queue_cancel(q, 999, &was, &err) == -ENOENT, "cancel an unknown id: -ENOENT");
	tap_ok(queue_finish(q, 999, QUEUE_DONE, 0, NULL, &err) == -ENOENT,
	       "finish an unknown id: -ENOENT");
	tap_ok(queue_cancel_requested(q, 999) == -ENOENT, "cancel_requested of an unknown id: -ENOENT");
	tap_ok(queue_set_runs(q, 999, 1, 1, &err) == -ENOENT, "set_runs of an unknown id: -ENOENT");
	tap_ok(queue_event(q, 999, "progress", NULL, NULL, &err) == -ENOENT,
	       "an event of an unknown job: -ENOENT");
	tap_ok(queue_interrupted_runs(q, 999, &j, &err) == -ENOENT,
	       "interrupted runs of an unknown job: -ENOENT");
}

static void test_claim_finish(struct queue *q, const int64_t id[3])
{
	_cleanup_json_ json_t *job = NULL, *job2 = NULL, *a = NULL, *done = NULL, *runs = NULL;
	struct lab_error err = { 0 };
	int64_t got = 0, got2 = 0;
	char types[256];
	int r;

	tap_ok(queue_claim(q, &got, &job, &err) == 0 && got == id[0] &&
		       !strcmp(str(job, "name"), "a"), "claim: the oldest queued job, with its JSON");
	tap_ok(queue_claim(q, &got2, &job2, &err) == 0 && got2 == id[1], "claim: then the next");
	tap_ok(state_is(q, id[0], "running") && state_is(q, id[1], "running") &&
		       state_is(q, id[2], "queued"), "claimed jobs are running");
	tap_ok(queue_set_runs(q, id[0], 3, 1, &err) == 0 && queue_set_runs(q, id[0], -1, 2, &err) == 0,
	       "set_runs");
	a = get(q, id[0], 0);
	tap_ok(num(a, "runs_planned") == 3 && num(a, "runs_done") == 2 &&
		       is_time(json_object_get(a, "started")), "... planned kept at -1, done set, "
							      "started: %s", text(a));
	tap_ok(queue_finish(q, id[0], QUEUE_QUEUED, 0, NULL, &err) == -EINVAL,
	       "finish as queued: -EINVAL");
	r = queue_finish(q, id[2], QUEUE_DONE, 0, NULL, &err);
	tap_ok(r == -EINVAL, "finish a queued job: -EINVAL (%s)", err.msg);
	tap_ok(queue_finish(q, id[0], QUEUE_DONE, 0, NULL, &err) == 0 && state_is(q, id[0], "done"),
	       "finish: done");
	json_decref(a);
	a = get(q, id[0], 0);
	done = last_data(q, id[0]);
	tap_ok(is_time(json_object_get(a, "ended")) && num(a, "exit") == 0 &&
		       !strcmp(text(done), "{\"error\":null,\"exit\":0,\"state\":\"done\"}"),
	       "... ended, exit 0, event done %s", text(done));
	tap_ok(queue_finish(q, id[0], QUEUE_FAILED, 1, "x", &err) == -EALREADY,
	       "finish an ended job: -EALREADY");
	event_types(q, 0, id[0], types, sizeof(types));
	tap_ok(!strcmp(types, "accepted,started,done"), "its events: %s", types);
	tap_ok(queue_interrupted_runs(q, id[0], &runs, &err) == 0 && json_array_size(runs) == 0,
	       "no interrupted runs: []");
}

static void test_cancel(struct queue *q, const int64_t id[3])
{
	_cleanup_json_ json_t *b = NULL, *c = NULL, *none = NULL, *done = NULL;
	struct lab_error err = { 0 };
	int was = -1, r;
	int64_t got = 0;
	char types[256];

	tap_ok(queue_cancel(q, id[2], &was, &err) == 0 && was == 0 && state_is(q, id[2], "cancelled"),
	       "cancel a queued job: cancelled at once");
	c = get(q, id[2], 0);
	event_types(q, 0, id[2], types, sizeof(types));
	tap_ok(json_is_true(json_object_get(c, "cancel_requested")) &&
		       is_time(json_object_get(c, "ended")) && !strcmp(types, "accepted,cancel,done"),
	       "... ended, its events: %s", types);
	tap_ok(queue_cancel_requested(q, id[1]) == 0, "cancel_requested of a running job: 0");
	tap_ok(queue_cancel(q, id[1], &was, &err) == 0 && was == 1 && state_is(q, id[1], "running"),
	       "cancel a running job: still running");
	tap_ok(queue_cancel_requested(q, id[1]) == 1, "... with cancel_requested");
	tap_ok(queue_finish(q, id[1], QUEUE_CANCELLED, 143, "stopped \xff", &err) == 0 &&
		       state_is(q, id[1], "cancelled"), "... until the worker finishes it");
	b = get(q, id[1], 0);
	done = last_data(q, id[1]);
	tap_ok(num(b, "exit") == 143 && !strcmp(str(b, "error"), "stopped ?") &&
		       !strcmp(text(done),
			       "{\"error\":\"stopped ?\",\"exit\":143,\"state\":\"cancelled\"}"),
	       "... its exit and error (not UTF-8: '?'), event done %s", text(done));
	r = queue_cancel(q, id[0], &was, &err);
	tap_ok(r == -EALREADY && strstr(err.msg, "done"),
	       "cancel a done job: -EALREADY (%s)", err.msg);
	tap_ok(queue_cancel(q, id[2], &was, &err) == -EALREADY, "cancel a cancelled job: -EALREADY");
	tap_ok(queue_claim(q, &got, &none, &err) == -ENOENT && !none,
	       "claim with nothing queued: -ENOENT");
}

/* The stored text of the latest event (another connection, as an outsider would read it). */
static void raw_data(const char *db, char *buf, size_t len)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;

	buf[0] = '\0';
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, "SELECT data FROM events ORDER BY seq DESC LIMIT 1", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
}

static void test_events(struct queue *q, const char *db, const int64_t id[3])
{
	_cleanup_json_ json_t *all = NULL, *some = NULL, *none = NULL;
	_cleanup_json_ json_t *data = json_pack("{s:i, s:s}", "zeta", 1, "alpha", "x");
	struct lab_error err = { 0 };
	int64_t last = 0, last2 = 0, seq = 0, prev = 0;
	int increasing = 1, r;
	size_t i;
	json_t *e;
	char raw[256];

	r = queue_events(q, 0, 0, 0, &all, &last, &err);
	tap_ok(r == 0 && json_array_size(all) > 0, "events since 0: %zu", json_array_size(all));
	json_array_foreach(all, i, e) {
		increasing &= num(e, "seq") > prev && is_time(json_object_get(e, "time")) &&
			      json_object_get(e, "data") != NULL;
		prev = num(e, "seq");
	}
	tap_ok(increasing && last == prev, "... seq strictly increasing, each with a time; last %lld",
	       (long long)last);
	r = queue_events(q, num(json_array_get(all, 1), "seq"), id[1], 2, &some, &last2, &err);
	tap_ok(r == 0 && json_array_size(some) == 2 && last2 == last &&
		       num(json_array_get(some, 0), "job") == id[1] &&
		       num(json_array_get(some, 1), "job") == id[1] &&
		       num(json_array_get(some, 0), "seq") > num(json_array_get(all, 1), "seq"),
	       "since N, one job's, limit 2: %s", text(some));
	tap_ok(queue_events(q, last, 0, 0, &none, &last2, &err) == 0 && json_array_size(none) == 0 &&
		       last2 == last, "since the last: none, last still %lld", (long long)last2);
	tap_ok(queue_last_seq(q, &last2, &err) == 0 && last2 == last,
	       "queue_last_seq says the same: %lld", (long long)last2);
	r = queue_event(q, 0, "hello", data, &seq, &err);
	tap_ok(r == 0 && seq == last + 1 && last_seq(q) == seq,
	       "the daemon's own event (job 0): seq %lld", (long long)seq);
	raw_data(db, raw, sizeof(raw));
	tap_ok(!strcmp(raw, "{\"alpha\":\"x\",\"zeta\":1}"), "its data stored with sorted keys: %s",
	       raw);
	tap_ok(queue_event(q, 0, "", NULL, NULL, &err) == -EINVAL &&
		       queue_event(q, -1, "x", NULL, NULL, &err) == -EINVAL,
	       "no type, a negative job: -EINVAL");
}

static void test_counts(struct queue *q)
{
	_cleanup_json_ json_t *c = NULL;
	struct lab_error err = { 0 };

	int r = queue_counts(q, &c, &err);

	tap_ok(r == 0 && num(c, "queued") == 0 && num(c, "running") == 0 &&
		       num(c, "done") == 1 && num(c, "cancelled") == 2 && num(c, "failed") == 0 &&
		       !json_object_get(c, "interrupted"),
	       "counts: %s", text(c));
}

/* ---- queue_wait ------------------------------------------------------------------------ */

struct poster {
	struct queue *q;
	int r;
};

static void *post_later(void *arg)
{
	struct poster *p = arg;

	usleep(200 * 1000);
	p->r = queue_event(p->q, 0, "tick", NULL, NULL, NULL);
	return NULL;
}

static void test_wait(struct queue *q)
{
	struct poster p = { .q = q, .r = -1 };
	int64_t last = last_seq(q);
	double t0 = clock_now_s(), took;
	pthread_t th;
	int r;

	tap_ok(queue_wait(q, last - 1, 5) == 1 && clock_now_s() - t0 < 1,
	       "wait with an event after since: 1 at once");
	t0 = clock_now_s();
	r = queue_wait(q, last, 0.3);
	took = clock_now_s() - t0;
	tap_ok(r == 0 && took >= 0.29 && took < 2, "wait with none: 0 after the timeout (%.2f s)",
	       took);
	t0 = clock_now_s();
	if (!tap_ok(pthread_create(&th, NULL, post_later, &p) == 0, "a thread to post"))
		return;
	r = queue_wait(q, last, 10);
	took = clock_now_s() - t0;
	pthread_join(th, NULL);
	tap_ok(r == 1 && p.r == 0 && took >= 0.15 && took < 5,
	       "another thread adds an event: woken with 1 (%.2f s)", took);
}

/* ---- recovery ---------------------------------------------------------------------------- */

static void run_event(struct queue *q, int64_t id, const char *type, int index)
{
	_cleanup_json_ json_t *d = json_pack("{s:i, s:i}", "index", index, "total", 5);

	if (queue_event(q, id, type, d, NULL, NULL) < 0)
		tap_ok(0, "event %s %d", type, index);
}

static int64_t claim_id(struct queue *q)
{
	_cleanup_json_ json_t *job = NULL;
	int64_t id = -1;

	queue_claim(q, &id, &job, NULL);
	return id;
}

static void test_recover(struct queue *q, int64_t *d, int64_t *e)
{
	_cleanup_json_ json_t *runs = NULL, *runs2 = NULL, *data = NULL, *done = NULL;
	_cleanup_json_ json_t *before = NULL, *after = NULL, *ejob = NULL;
	struct lab_error err = { 0 };
	unsigned n = 99;
	int was = -1, r;
	char types[256];

	*d = submit(q, "d", NULL);
	tap_ok(claim_id(q) == *d, "recover: job d running");
	run_event(q, *d, "run-started", 0);
	run_event(q, *d, "run-ended", 0);
	run_event(q, *d, "run-started", 1);
	run_event(q, *d, "run-started", 2);
	run_event(q, *d, "run-ended", 2);
	before = get(q, *d, 0);
	r = queue_recover(q, &n, &err);
	tap_ok(r == 0 && n == 1 && state_is(q, *d, "queued"),
	       "a running job is queued again (%u recovered)", n);
	data = last_data(q, *d);
	tap_ok(!strcmp(text(data), "{\"runs\":[1]}"), "... event interrupted with the run started "
						       "and not ended: %s", text(data));
	r = queue_interrupted_runs(q, *d, &runs, &err);
	tap_ok(r == 0 && !strcmp(text(runs), "[1]"),
	       "interrupted runs: %s", text(runs));
	/* Times are to the second: the second start must come in a later one to tell. */
	sleep(1);
	tap_ok(claim_id(q) == *d, "claimed again");
	after = get(q, *d, 0);
	tap_ok(!strcmp(str(before, "started"), str(after, "started")),
	       "... started is still the first start's (%s)", str(after, "started"));
	run_event(q, *d, "run-started", 3);
	*e = submit(q, "e", NULL);
	tap_ok(claim_id(q) == *e && queue_cancel(q, *e, &was, &err) == 0 && was == 1,
	       "job e running, its cancel requested");
	run_event(q, *e, "run-started", 0);
	r = queue_recover(q, &n, &err);
	tap_ok(r == 0 && n == 2, "a second restart: %u recovered", n);
	r = queue_interrupted_runs(q, *d, &runs2, &err);
	tap_ok(r == 0 && !strcmp(text(runs2), "[1,3]"),
	       "d's interrupted runs over both restarts: %s (1 not again)", text(runs2));
	tap_ok(state_is(q, *d, "queued") && state_is(q, *e, "cancelled"),
	       "d queued, e (cancel requested before the crash) cancelled");
	event_types(q, 0, *e, types, sizeof(types));
	done = last_data(q, *e);
	ejob = get(q, *e, 0);
	tap_ok(!strcmp(types, "accepted,started,cancel,run-started,interrupted,done") &&
		       !strcmp(str(done, "state"), "cancelled") && is_time(json_object_get(ejob, "ended")),
	       "e's events: %s; done: %s", types, text(done));
	n = 99;
	tap_ok(queue_recover(q, &n, &err) == 0 && n == 0, "nothing running: nothing recovered");
}

/* ---- files --------------------------------------------------------------------------------- */

/* Every job (with its JSON) and every event, as text. */
static char *snapshot(struct queue *q)
{
	_cleanup_json_ json_t *list = NULL, *ev = NULL, *all = json_array();
	int64_t last;
	size_t i;
	json_t *j;

	if (!all || queue_list(q, -1, 0, &list, NULL) < 0 ||
	    queue_events(q, 0, 0, 0, &ev, &last, NULL) < 0)
		return NULL;
	json_array_foreach(list, i, j)
		json_array_append_new(all, get(q, num(j, "id"), 1));
	json_array_append(all, ev);
	return json_dumps(all, JSON_SORT_KEYS | JSON_COMPACT);
}

static void test_reopen(struct queue **q, const char *db)
{
	_cleanup_free_ char *before = snapshot(*q), *after = NULL;
	_cleanup_json_ json_t *newest = NULL;
	struct lab_error err = { 0 };
	int64_t last = last_seq(*q), id;

	queue_list(*q, -1, 1, &newest, NULL);
	queue_close(*q);
	*q = NULL;
	tap_ok(queue_open(db, q, &err) == 0, "reopened");
	if (!*q)
		return;
	after = snapshot(*q);
	tap_ok(before && after && !strcmp(before, after), "every job and event is still there");
	id = submit(*q, "f", NULL);
	tap_ok(id == num(json_array_get(newest, 0), "id") + 1 && last_seq(*q) == last + 1,
	       "the next job and event continue the numbering");
}

static void set_sql(const char *db, const char *sql)
{
	sqlite3 *h = NULL;

	if (sqlite3_open(db, &h) == SQLITE_OK)
		sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
}

static void test_refused(void)
{
	static const char junk[] = "not a database, but longer than SQLite's 100-byte header......."
				   "................................................................";
	_cleanup_free_ char *newer = fs_join(tmp, "newer.db"), *other = fs_join(tmp, "other.db");
	_cleanup_free_ char *junkf = fs_join(tmp, "junk.db");
	struct lab_error err = { 0 };
	struct queue *q = NULL;
	int r;

	tap_ok(queue_open(newer, &q, &err) == 0, "a new queue file");
	queue_close(q);
	q = NULL;
	set_sql(newer, "PRAGMA user_version = 1000");
	r = queue_open(newer, &q, &err);
	tap_ok(r == -EPROTO && !q && strstr(err.msg, "newer") && !strcmp(err.file, newer),
	       "a newer user_version: -EPROTO (%s)", err.msg);
	set_sql(other, "CREATE TABLE jobs (x); PRAGMA user_version = 1");
	r = queue_open(other, &q, &err);
	tap_ok(r == -EBADMSG && !q && strstr(err.msg, "labd queue"),
	       "another program's database: -EBADMSG (%s)", err.msg);
	fs_write_atomic(junkf, junk, sizeof(junk) - 1);
	r = queue_open(junkf, &q, &err);
	tap_ok(r == -EBADMSG && !q, "a file that is no SQLite: -EBADMSG (%s)", err.msg);
}

/* ---- threads --------------------------------------------------------------------------- */

#define NR_THREADS 50

struct submitter {
	struct queue *q;
	int64_t id;
};

static void *submit_one(void *arg)
{
	struct submitter *s = arg;

	s->id = submit(s->q, "many", NULL);
	return NULL;
}

static void test_threads(struct queue *q)
{
	struct submitter s[NR_THREADS];
	pthread_t th[NR_THREADS];
	_cleanup_json_ json_t *ev = NULL;
	int64_t since = last_seq(q), last;
	int started = 0, distinct = 1, accepted = 0;
	size_t i;
	json_t *e;

	for (int k = 0; k < NR_THREADS; k++) {
		s[k] = (struct submitter){ .q = q, .id = -1 };
		started += pthread_create(&th[k], NULL, submit_one, &s[k]) == 0;
	}
	for (int k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	for (int k = 0; k < NR_THREADS; k++)
		for (int l = 0; l < k; l++)
			distinct &= s[k].id > 0 && s[k].id != s[l].id;
	tap_ok(started == NR_THREADS && distinct && s[0].id > 0,
	       "%d threads submitting at once: %d distinct ids", NR_THREADS, NR_THREADS);
	queue_events(q, since, 0, 0, &ev, &last, NULL);
	json_array_foreach(ev, i, e)
		accepted += !strcmp(str(e, "type"), "accepted");
	tap_ok(accepted == NR_THREADS && json_array_size(ev) == NR_THREADS,
	       "... and %d events accepted", accepted);
}

int main(void)
{
	_cleanup_free_ char *db = NULL;
	struct queue *q = NULL;
	struct lab_error err = { 0 };
	int64_t id[3], d, e;

	if (!mkdtemp(tmp))
		return tap_ok(0, "mkdtemp"), tap_done();
	db = fs_join(tmp, "state/labd/" QUEUE_DB_NAME);
	test_states();
	if (!tap_ok(db && queue_open(db, &q, &err) == 0, "a new queue in %s", tmp)) {
		printf("# %s\n", err.msg);
		return tap_done();
	}
	test_submit(q, id);
	test_unknown(q);
	test_claim_finish(q, id);
	test_cancel(q, id);
	test_events(q, db, id);
	test_counts(q);
	test_wait(q);
	test_recover(q, &d, &e);
	test_reopen(&q, db);
	test_threads(q);
	queue_close(q);
	test_refused();
	fs_rm_rf(tmp);
	return tap_done();
}
