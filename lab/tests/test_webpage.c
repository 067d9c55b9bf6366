/* labd's pages (lab/daemon/webpage.h), pure: each page against its golden file
 * (lab/tests/golden/web-*.html; UPDATE_GOLDEN=1 rewrites them) from views holding hostile
 * strings (markup, quotes, '&', control bytes, invalid UTF-8 in a job's name, a class, a
 * Slurm id, a console line, a kernel label, an alert's note), which must come out as text: no
 * tag of theirs, valid UTF-8, no control byte.  The running job's progress and estimate; "no
 * estimate" without finished jobs.  The form and cookie readers of the pages' requests
 * (daemon/apireq.h). */
#include <errno.h>
#include <string.h>

#include "daemon/apireq.h"
#include "daemon/webpage.h"
#include "testutil.h"
#include "util/text.h"

#define EVIL "<script>alert(1)</script>\"'&amp;"

static json_t *bad(const char *s)
{
	return json_string_nocheck(s);
}

static json_t *event(long long seq, const char *time, const char *type, json_t *data)
{
	json_t *e = json_pack("{s:I, s:s, s:I, s:s}", "seq", (json_int_t)seq, "time", time, "job",
			      (json_int_t)7, "type", type);

	json_object_set_new(e, "data", data ? data : json_null());
	return e;
}

static json_t *job(long long id, const char *state, const char *started, const char *ended,
		   int planned, int done)
{
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:I, s:o}", "id", (json_int_t)id, "name",
			      "pft-nightly", "state", state, "created", "2026-12-07T09:00:00Z",
			      "runs_done", (json_int_t)done, "runs_planned",
			      planned >= 0 ? json_integer(planned) : json_null());

	json_object_set_new(j, "started", started ? json_string(started) : json_null());
	json_object_set_new(j, "ended", ended ? json_string(ended) : json_null());
	return j;
}

/* The running job 7: 3 runs, the first ended, the second started at 10:01:00; its log has a
 * console line of a guest with markup, control bytes and bytes that are not UTF-8. */
static json_t *running_view(int with_past)
{
	json_t *j = job(7, "running", "2026-12-07T10:00:00Z", NULL, 3, 1);
	json_t *ev = json_array(), *past = json_array();

	json_object_set_new(j, "name", bad(EVIL));
	json_object_set_new(j, "host_class", bad("big\"mem' & <b>"));
	json_object_set_new(j, "backend_id", bad("4242\x1b[31m\x01"));
	json_array_append_new(ev, event(10, "2026-12-07T10:00:00Z", "started", NULL));
	json_array_append_new(ev, event(11, "2026-12-07T10:00:01Z", "run-started",
					json_pack("{s:i, s:i}", "index", 0, "total", 3)));
	json_array_append_new(ev, event(12, "2026-12-07T10:00:59Z", "run-ended",
					json_pack("{s:i, s:i, s:s, s:s}", "index", 0, "total", 3,
						  "status", "ok", "reason", "")));
	json_array_append_new(ev, event(13, "2026-12-07T10:01:00Z", "run-started",
					json_pack("{s:i, s:i}", "index", 1, "total", 3)));
	json_array_append_new(ev, event(14, "2026-12-07T10:01:05Z", "progress",
					json_pack("{s:o}", "msg",
						  bad("console: \xff\xfe<img src=x onerror=alert(1)> "
						      "\xe2\x82 & \x1b[2J done \xc3\xa9"))));
	if (with_past) {
		/* 2 runs in 200 s and 4 in 400 s: 100 s a run. */
		json_array_append_new(past, job(3, "done", "2026-12-06T10:00:00Z",
						"2026-12-06T10:03:20Z", 2, 2));
		json_array_append_new(past, job(5, "done", "2026-12-06T11:00:00Z",
						"2026-12-06T11:06:40Z", 4, 4));
	}
	return json_pack("{s:o, s:o, s:o, s:I, s:s}", "job", j, "events", ev, "past", past, "last",
			 (json_int_t)14, "now", "2026-12-07T10:02:00Z");
}

/* What a page must be, whatever it was given: no tag of the hostile strings, valid UTF-8, no
 * control byte but newlines. */
static void clean(const char *name, const char *html)
{
	int ctl = 0;

	for (const char *p = html; p && *p; p++)
		ctl |= ((unsigned char)*p < 0x20 && *p != '\n') || *p == 0x7f;
	tap_ok(html && !strstr(html, "<script>alert") && !strstr(html, "<img") &&
	       !strstr(html, "<b>") && !strstr(html, "<i>") && !strstr(html, "<x>"),
	       "%s: no tag of the data's", name);
	tap_ok(html && text_utf8_valid(html), "%s: valid UTF-8", name);
	tap_ok(!ctl, "%s: no control byte", name);
}

static void pages(void)
{
	_cleanup_json_ json_t *run = running_view(1), *qv = NULL, *done = NULL, *series = NULL;
	_cleanup_json_ json_t *alerts = NULL;
	_cleanup_free_ char *q = NULL, *jp = NULL, *dp = NULL, *tp = NULL, *ap = NULL, *ep = NULL;
	json_t *jobs = json_array(), *pts = json_array();

	json_array_append(jobs, json_object_get(run, "job"));
	json_array_append_new(jobs, json_pack("{s:I, s:s, s:s, s:I, s:I}", "id", (json_int_t)9, "name",
					      "c", "state", "queued", "runs_done", (json_int_t)0,
					      "position", (json_int_t)2));
	json_array_append_new(jobs, json_pack("{s:I, s:s, s:s, s:I, s:I}", "id", (json_int_t)8, "name",
					      "b", "state", "queued", "runs_done", (json_int_t)0,
					      "position", (json_int_t)1));
	json_array_append_new(jobs, job(5, "done", "2026-12-06T11:00:00Z", "2026-12-06T11:06:40Z",
					4, 4));
	qv = json_pack("{s:o, s:O, s:I}", "jobs", jobs, "running", run, "last", (json_int_t)14);
	tap_ok(webpage_queue(qv, &q) == 0, "the queue");
	testutil_golden("web-queue.html", q);
	clean("queue", q);
	tap_ok(q && strstr(q, "<td>queued</td><td>1</td>") && strstr(q, "<td>queued</td><td>2</td>"),
	       "the queued jobs' positions as the view gives them");
	tap_ok(webpage_job(run, &jp) == 0, "a running job");
	testutil_golden("web-job-running.html", jp);
	clean("running job", jp);
	tap_ok(jp && strstr(jp, "data-job=\"7\" data-last=\"14\"") && !strstr(jp, "/dashboard"),
	       "a running job's page follows its events, links no dashboard yet");

	done = json_pack("{s:o, s:[], s:[], s:I, s:s}", "job",
			 job(5, "done", "2026-12-06T11:00:00Z", "2026-12-06T11:06:40Z", 4, 4),
			 "events", "past", "last", (json_int_t)20, "now", "2026-12-07T10:02:00Z");
	tap_ok(webpage_job(done, &dp) == 0 && strstr(dp, "href=\"/v1/jobs/5/dashboard\"") &&
	       !strstr(dp, "web.js"), "a finished job links its dashboard and follows nothing");

	for (int i = 0; i < 6; i++) {
		char created[32];

		snprintf(created, sizeof(created), "2026-12-0%dT01:00:00Z", i + 1);
		json_array_append_new(pts, json_pack("{s:s, s:f, s:s, s:o, s:s}", "created", created,
						     "mean", i < 3 ? 1000.0 + i : 700.0 + i, "report",
						     "r\"1<x>", "kernel", bad("v6.12<b>\xff"), "job",
						     "pft-nightly"));
	}
	series = json_pack("{s:s, s:[{s:s, s:o, s:s, s:i, s:s, s:s, s:s, s:o, s:[{s:i, s:f}]}]}",
			   "schema", "numalab.history-series/1", "series", "workload", "pft", "metric",
			   bad("faults_per_s<script>"), "topology", "4s-8c", "tasks", 8, "timing",
			   "quantum", "better", "higher", "unit", "ops/s", "points", pts, "changes",
			   "at", 3, "change_pct", -30.1);
	alerts = json_pack("{s:s, s:[{s:i, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:f, s:s, s:s, "
			   "s:o, s:s}]}", "schema", "numalab.alerts/1", "alerts", "id", 3,
			   "raised_at", "2026-12-07T01:00:00Z", "source", "mm", "job", "pft", "series",
			   bad("pft.x@8\x1b[31m<i>#"), "night", "n04", "commit", "7f3c769c",
			   "direction", "regression", "change_pct", -26.9, "state", "acknowledged",
			   "who", "jane", "note", bad(EVIL " \xff"), "at", "2026-12-07T08:00:00Z");
	/* One more, of the series the trends draw (its job and WORKLOAD.METRIC@TASKS#), with its
	 * bisection's culprit. */
	json_array_append_new(json_object_get(alerts, "alerts"),
			      json_pack("{s:i, s:s, s:s, s:o, s:s, s:s, s:f, s:s, s:s}", "id", 4,
					"job", "pft-nightly", "series",
					"pft.faults_per_s<script>@8#fed041aa", "culprit",
					bad("deadbeef<b>\xff"), "night", "n09", "commit", "89abcdef",
					"change_pct", -30.1, "direction", "regression", "state",
					"new"));
	tap_ok(webpage_trends(series, alerts, &tp) == 0, "the trends");
	testutil_golden("web-trends.html", tp);
	clean("trends", tp);
	tap_ok(tp && strstr(tp, "<svg") && strstr(tp, "class=\"change\"") &&
	       strstr(tp, "<circle") && !strstr(tp, "<script"),
	       "an inline SVG chart with its points and its change point, no script");
	tap_ok(tp && strstr(tp, "alert-4\">alert 4</a>") && strstr(tp, "its bisection: deadbeef") &&
	       !strstr(tp, "alert-3\""), "under it the alert of its series and job, not another's");

	tap_ok(webpage_alerts(alerts, "all", "alert 3: acknowledged <b>", &ap) == 0, "the alerts");
	testutil_golden("web-alerts.html", ap);
	clean("alerts", ap);
	tap_ok(ap && strstr(ap, "<form method=\"post\" action=\"/ui/alerts/3\">") &&
	       strstr(ap, "<option selected>acknowledged</option>"),
	       "each alert has its form, its state selected");
	tap_ok(webpage_error(404, EVIL, &ep) == 0 && strstr(ep, "&lt;script&gt;"), "an error page");
}

static void progress(void)
{
	_cleanup_json_ json_t *with = running_view(1), *without = running_view(0);
	_cleanup_free_ char *page = NULL;
	struct webpage_progress p;

	webpage_progress(json_object_get(with, "job"), json_object_get(with, "events"),
			 json_object_get(with, "past"), "2026-12-07T10:02:00Z", &p);
	tap_ok(p.runs_done == 1 && p.runs_total == 3, "runs done 1 of 3 (%ld of %ld)", p.runs_done,
	       p.runs_total);
	tap_ok(p.has_eta && p.past == 2 && p.eta_s > 139.9 && p.eta_s < 140.1,
	       "estimate: 100 s a run, 2 to go, 60 s into the current one: 140 s (%.1f)", p.eta_s);
	tap_ok(strstr(p.step, "console:") != NULL, "the step: the latest progress line");
	webpage_progress(json_object_get(without, "job"), json_object_get(without, "events"),
			 json_object_get(without, "past"), "2026-12-07T10:02:00Z", &p);
	tap_ok(!p.has_eta, "no finished job of its name: no estimate");
	{
		/* A resumed job's log tail that begins at its run 3 of 4: runs 0-2 are behind. */
		_cleanup_json_ json_t *ev = json_pack("[{s:s, s:s, s:{s:i, s:i}}]", "type",
						      "run-started", "time", "2026-12-07T10:00:00Z",
						      "data", "index", 2, "total", 4);

		webpage_progress(json_object_get(without, "job"), ev, NULL, "2026-12-07T10:02:00Z", &p);
		tap_ok(p.runs_done == 2 && p.runs_total == 4,
		       "runs done from the run indices, also from a tail cut short (%ld of %ld)",
		       p.runs_done, p.runs_total);
	}
	tap_ok(webpage_job(without, &page) == 0 && strstr(page, "no estimate"),
	       "... and the page says so");
}

static void requests(void)
{
	const char *body = "show=all&state=fixed&note=a+b%26c%3Cx%3E&commit=abc&state=new";
	char v[16], big[4];

	tap_ok(apireq_form(body, strlen(body), "note", v, sizeof(v)) == 0 && !strcmp(v, "a b&c<x>"),
	       "a form field, + and %%XX decoded (%s)", v);
	tap_ok(apireq_form(body, strlen(body), "state", v, sizeof(v)) == 0 && !strcmp(v, "fixed"),
	       "a repeated field: the first counts");
	tap_ok(apireq_form(body, strlen(body), "by", v, sizeof(v)) == -ENOENT, "absent: -ENOENT");
	tap_ok(apireq_form("note=%zz", 8, "note", v, sizeof(v)) == -EINVAL &&
	       apireq_form("note=%4", 7, "note", v, sizeof(v)) == -EINVAL,
	       "a bad escape: -EINVAL");
	tap_ok(apireq_form("note=a%0Ab", 10, "note", v, sizeof(v)) == -EINVAL &&
	       apireq_form("note=a%00b", 10, "note", v, sizeof(v)) == -EINVAL,
	       "a line break or a NUL decoded: -EINVAL");
	tap_ok(apireq_form("note=abcdef", 11, "note", big, sizeof(big)) == -E2BIG, "too long: -E2BIG");
	tap_ok(apireq_form("xnote=1&note=2", 14, "note", v, sizeof(v)) == 0 && !strcmp(v, "2"),
	       "a field whose name ends like another's is not it");
	tap_ok(apireq_cookie("a=1; labd_token=s3cret; b=2", "labd_token", v, sizeof(v)) == 0 &&
	       !strcmp(v, "s3cret"), "a cookie among others");
	tap_ok(apireq_cookie("xlabd_token=1", "labd_token", v, sizeof(v)) == -ENOENT &&
	       apireq_cookie(NULL, "labd_token", v, sizeof(v)) == -ENOENT, "no such cookie");
	tap_ok(apireq_cookie_safe("numalab-test-token-0123456789") &&
	       !apireq_cookie_safe("a;b") && !apireq_cookie_safe("a b"), "cookie-safe tokens");
	tap_ok(apireq_same_origin("http://127.0.0.1:8080", "127.0.0.1:8080") &&
	       !apireq_same_origin("http://evil.example", "127.0.0.1:8080") &&
	       !apireq_same_origin(NULL, "labd") && !apireq_same_origin("http://labd", NULL),
	       "same origin: the Host's, exactly");
	tap_ok(apireq_token_eq("t0k", "t0k") && !apireq_token_eq("t0k", "t0") &&
	       !apireq_token_eq("t0k", NULL) && apireq_token_eq("", NULL), "tokens compared");
}

int main(void)
{
	pages();
	progress();
	requests();
	return tap_done();
}
