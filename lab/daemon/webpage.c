/* labd's pages, pure (webpage.h). */
#include "daemon/webpage.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analysis/html.h"
#include "util/cleanup.h"
#include "util/strbuf.h"

/* ---- small readers of the views' JSON ------------------------------------------------- */

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static long long num(const json_t *o, const char *k, long long def)
{
	const json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

/* "YYYY-MM-DDTHH:MM:SSZ" as seconds since the epoch; -EINVAL for anything else. */
static int iso_secs(const char *s, long long *t)
{
	struct tm tm = { 0 };
	char z = 0;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &z) != 7 || z != 'Z')
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*t = (long long)timegm(&tm);
	return 0;
}

/* A duration for people: "42 s", "7 min", "2 h 5 min". */
static void duration(struct strbuf *sb, double s)
{
	long long m = llround(s / 60.0);

	if (s < 90)
		strbuf_appendf(sb, "%.0f s", s < 0 ? 0 : s);
	else if (m < 120)
		strbuf_appendf(sb, "%lld min", m);
	else
		strbuf_appendf(sb, "%lld h %lld min", m / 60, m % 60);
}

/* ---- the frame of every page ------------------------------------------------------------ */

static void page_open(struct strbuf *sb, const char *title)
{
	strbuf_append(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			  "<meta name=\"viewport\" content=\"width=device-width\">\n<title>labd: ");
	html_escape(sb, title);
	strbuf_append(sb, "</title>\n<link rel=\"stylesheet\" href=\"/ui/web.css\">\n</head>\n"
			  "<body>\n<nav><a href=\"/ui/\">queue</a> <a href=\"/ui/trends\">trends</a> "
			  "<a href=\"/ui/alerts\">alerts</a></nav>\n<main>\n<h1>");
	html_escape(sb, title);
	strbuf_append(sb, "</h1>\n");
}

/* live: the page follows events (web.js) from the log's sequence number last, job's only
 * when job > 0. */
static int page_close(struct strbuf *sb, int live, long long job, long long last, char **out)
{
	strbuf_append(sb, "</main>\n");
	if (live)
		strbuf_appendf(sb, "<div id=\"live\" hidden data-job=\"%lld\" data-last=\"%lld\">"
				   "</div>\n<script src=\"/ui/web.js\"></script>\n", job, last);
	strbuf_append(sb, "</body>\n</html>\n");
	return strbuf_take(sb, out);
}

/* A table cell of text, "-" for none. */
static void td(struct strbuf *sb, const char *s)
{
	strbuf_append(sb, "<td>");
	html_escape(sb, s && s[0] ? s : "-");
	strbuf_append(sb, "</td>");
}

/* The markup lit, then the text s escaped. */
static void lit_text(struct strbuf *sb, const char *lit, const char *s)
{
	strbuf_append(sb, lit);
	html_escape(sb, s);
}

/* A paragraph of class cls saying s. */
static void para(struct strbuf *sb, const char *cls, const char *s)
{
	strbuf_appendf(sb, "<p class=\"%s\">", cls);
	html_escape(sb, s);
	strbuf_append(sb, "</p>\n");
}

static void td_job_link(struct strbuf *sb, long long id)
{
	strbuf_appendf(sb, "<td><a href=\"/ui/jobs/%lld\">%lld</a></td>", id, id);
}

/* ---- progress ------------------------------------------------------------------------- */

void webpage_progress(const json_t *job, const json_t *events, const json_t *past,
		      const char *now, struct webpage_progress *out)
{
	long long t_now = 0, t_run = -1, sum = 0;
	const json_t *ev;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->runs_total = num(job, "runs_planned", -1);
	out->runs_done = num(job, "runs_done", 0);
	/* The events say more than the queue's counters, which the worker sets at the end of
	 * each run and starts again after a restart.  Run indices are the job's own (a resumed
	 * job goes on from where it was cut short), so runs done are those before the latest
	 * run that started, or up to the latest that ended: right also from a log tail cut
	 * short. */
	json_array_foreach(events, i, ev) {
		const char *type = str(ev, "type");
		const json_t *d = json_object_get(ev, "data");
		long idx = (long)num(d, "index", -1);

		if (!type)
			continue;
		if (!strcmp(type, "run-started")) {
			out->runs_total = num(d, "total", out->runs_total);
			out->runs_done = idx > out->runs_done ? idx : out->runs_done;
			if (iso_secs(str(ev, "time"), &t_run) < 0)
				t_run = -1;
		} else if (!strcmp(type, "run-ended")) {
			out->runs_total = num(d, "total", out->runs_total);
			out->runs_done = idx + 1 > out->runs_done ? idx + 1 : out->runs_done;
			t_run = -1;
		} else if (!strcmp(type, "started") || !strcmp(type, "interrupted")) {
			t_run = -1;
		} else if (!strcmp(type, "progress") && str(d, "msg")) {
			snprintf(out->step, sizeof(out->step), "%s", str(d, "msg"));
		}
	}
	/* The estimate: seconds a run took in the finished jobs of the same name, times the
	 * runs to go, less what the current run has had. */
	json_array_foreach(past, i, ev) {
		long long a, b, runs = num(ev, "runs_done", 0);

		if (runs > 0 && iso_secs(str(ev, "started"), &a) == 0 &&
		    iso_secs(str(ev, "ended"), &b) == 0 && b >= a) {
			sum += (b - a) * 1000 / runs;
			out->past++;
		}
	}
	if (out->past && out->runs_total >= 0 && iso_secs(now, &t_now) == 0) {
		double per_run = (double)sum / 1000.0 / out->past;
		double left = per_run * (double)(out->runs_total - out->runs_done);

		if (t_run >= 0 && t_now > t_run)
			left -= (double)(t_now - t_run) < per_run ? (double)(t_now - t_run) : per_run;
		out->has_eta = 1;
		out->eta_s = left > 0 ? left : 0;
	}
}

static void progress_html(struct strbuf *sb, const json_t *run)
{
	const json_t *job = json_object_get(run, "job");
	struct webpage_progress p;

	webpage_progress(job, json_object_get(run, "events"), json_object_get(run, "past"),
			 str(run, "now"), &p);
	strbuf_append(sb, "<div class=\"progress\">\n<p>");
	if (p.runs_total >= 0) {
		strbuf_appendf(sb, "<progress value=\"%ld\" max=\"%ld\"></progress> ", p.runs_done,
			       p.runs_total > 0 ? p.runs_total : 1);
		strbuf_appendf(sb, "runs done: <b class=\"done\">%ld</b>, to go: <b class=\"togo\">"
				   "%ld</b> of %ld", p.runs_done,
			       p.runs_total > p.runs_done ? p.runs_total - p.runs_done : 0,
			       p.runs_total);
	} else {
		strbuf_appendf(sb, "runs done: <b class=\"done\">%ld</b> (how many in all is not "
				   "known yet)", p.runs_done);
	}
	strbuf_append(sb, "</p>\n<p>now: <span class=\"step\">");
	html_escape(sb, p.step[0] ? p.step : "(no progress line yet)");
	strbuf_append(sb, "</span></p>\n<p>estimate: <span class=\"eta\">");
	if (p.has_eta) {
		duration(sb, p.eta_s);
		strbuf_appendf(sb, " to go (from %u finished job%s of this name)", p.past,
			       p.past == 1 ? "" : "s");
	} else {
		strbuf_append(sb, "no estimate (no finished job of this name in the queue's history)");
	}
	strbuf_append(sb, "</span></p>\n</div>\n");
}

/* ---- the queue ------------------------------------------------------------------------- */

int webpage_queue(const json_t *view, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const json_t *jobs = json_object_get(view, "jobs"), *run = json_object_get(view, "running");
	const json_t *j;
	size_t i;

	page_open(&sb, "queue");
	strbuf_append(&sb, "<section id=\"running\" data-live>\n<h2>running</h2>\n");
	if (json_is_object(run)) {
		j = json_object_get(run, "job");
		strbuf_appendf(&sb, "<p>job <a href=\"/ui/jobs/%lld\">%lld</a> ", num(j, "id", 0),
			       num(j, "id", 0));
		html_escape(&sb, str(j, "name"));
		strbuf_append(&sb, ", since ");
		html_escape(&sb, str(j, "started"));
		strbuf_append(&sb, "</p>\n");
		progress_html(&sb, run);
	} else {
		strbuf_append(&sb, "<p>no job runs now</p>\n");
	}
	strbuf_append(&sb, "</section>\n<section id=\"queue\" data-live>\n<h2>jobs</h2>\n"
			   "<table>\n<thead><tr><th>id</th><th>name</th><th>who</th><th>class</th>"
			   "<th>state</th><th>position</th><th>Slurm job</th><th>runs</th>"
			   "<th>submitted</th><th>ended</th></tr></thead>\n<tbody>\n");
	json_array_foreach(jobs, i, j) {
		const char *st = str(j, "state");

		if (i >= WEBPAGE_MAX_JOBS)
			break;
		strbuf_append(&sb, st && !strcmp(st, "running") ? "<tr class=\"running\">" : "<tr>");
		td_job_link(&sb, num(j, "id", 0));
		td(&sb, str(j, "name"));
		td(&sb, str(j, "who"));
		td(&sb, str(j, "host_class"));
		td(&sb, st);
		if (num(j, "position", 0) > 0)
			strbuf_appendf(&sb, "<td>%lld</td>", num(j, "position", 0));
		else
			td(&sb, NULL);
		td(&sb, str(j, "backend_id"));
		if (num(j, "runs_planned", -1) >= 0)
			strbuf_appendf(&sb, "<td>%lld/%lld</td>", num(j, "runs_done", 0),
				       num(j, "runs_planned", 0));
		else
			td(&sb, NULL);
		td(&sb, str(j, "created"));
		td(&sb, str(j, "ended"));
		strbuf_append(&sb, "</tr>\n");
	}
	if (!json_array_size(jobs))
		strbuf_append(&sb, "<tr><td colspan=\"10\">no jobs</td></tr>\n");
	strbuf_append(&sb, "</tbody>\n</table>\n");
	if (json_array_size(jobs) > WEBPAGE_MAX_JOBS)
		strbuf_appendf(&sb, "<p>the newest %d jobs are shown (lab job list for all)</p>\n",
			       WEBPAGE_MAX_JOBS);
	strbuf_append(&sb, "</section>\n");
	return page_close(&sb, 1, 0, num(view, "last", 0), out);
}

/* ---- a job ------------------------------------------------------------------------------ */

/* What one event says, as lab job logs says it (escaped). */
static void event_what(struct strbuf *sb, const json_t *ev)
{
	const char *type = str(ev, "type");
	const json_t *d = json_object_get(ev, "data");
	_cleanup_free_ char *js = NULL;

	if (!type)
		return;
	if (!strcmp(type, "progress")) {
		html_escape(sb, str(d, "msg"));
	} else if (!strcmp(type, "run-started") || !strcmp(type, "run-ended")) {
		strbuf_appendf(sb, "run %lld of %lld", num(d, "index", 0) + 1, num(d, "total", 0));
		if (str(d, "status")) {
			strbuf_append(sb, ": ");
			html_escape(sb, str(d, "status"));
		}
		if (str(d, "reason") && str(d, "reason")[0]) {
			strbuf_append(sb, " (");
			html_escape(sb, str(d, "reason"));
			strbuf_append(sb, ")");
		}
	} else if (d && !json_is_null(d)) {
		js = json_dumps(d, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
		html_escape(sb, js);
	}
}

static void job_facts(struct strbuf *sb, const json_t *job)
{
	static const char *const keys[] = { "name", "state", "host_class", "backend_id", "created",
					     "started", "ended", "error", "out_dir" };
	static const char *const words[] = { "name", "state", "class", "Slurm job", "submitted",
					     "started", "ended", "error", "report directory" };

	strbuf_append(sb, "<table class=\"facts\">\n");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		strbuf_appendf(sb, "<tr><th>%s</th>", words[i]);
		td(sb, str(job, keys[i]));
		strbuf_append(sb, "</tr>\n");
	}
	strbuf_append(sb, "<tr><th>runs</th>");
	if (num(job, "runs_planned", -1) >= 0)
		strbuf_appendf(sb, "<td>%lld of %lld</td>", num(job, "runs_done", 0),
			       num(job, "runs_planned", 0));
	else
		strbuf_appendf(sb, "<td>%lld</td>", num(job, "runs_done", 0));
	strbuf_append(sb, "</tr>\n<tr><th>exit</th>");
	if (num(job, "exit", -1000) != -1000)
		strbuf_appendf(sb, "<td>%lld</td>", num(job, "exit", 0));
	else
		td(sb, NULL);
	strbuf_append(sb, "</tr>\n</table>\n");
}

int webpage_job(const json_t *view, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const json_t *job = json_object_get(view, "job"), *evs = json_object_get(view, "events");
	const char *st = str(job, "state");
	long long id = num(job, "id", 0);
	size_t i, n = json_array_size(evs), first = n > WEBPAGE_MAX_LOG ? n - WEBPAGE_MAX_LOG : 0;
	int ended = st && strcmp(st, "queued") && strcmp(st, "running");
	char title[64];

	snprintf(title, sizeof(title), "job %lld", id);
	page_open(&sb, title);
	strbuf_append(&sb, "<section id=\"facts\" data-live>\n");
	job_facts(&sb, job);
	if (st && !strcmp(st, "running"))
		progress_html(&sb, view);
	if (st && !strcmp(st, "done"))
		strbuf_appendf(&sb, "<p><a class=\"dashboard\" href=\"/v1/jobs/%lld/dashboard\">its "
				    "report's dashboard</a> (<a href=\"/v1/jobs/%lld/report\">"
				    "report.json</a>)</p>\n", id, id);
	strbuf_append(&sb, "</section>\n<section id=\"log\" data-live>\n<h2>log</h2>\n");
	if (first)
		strbuf_appendf(&sb, "<p>its last %d lines (lab job logs %lld for all)</p>\n",
			       WEBPAGE_MAX_LOG, id);
	strbuf_append(&sb, "<pre class=\"log\">");
	for (i = first; i < n; i++) {
		const json_t *ev = json_array_get(evs, i);

		html_escape(&sb, str(ev, "time"));
		strbuf_append(&sb, "  ");
		html_escape(&sb, str(ev, "type"));
		strbuf_append(&sb, "  ");
		event_what(&sb, ev);
		strbuf_append(&sb, "\n");
	}
	strbuf_append(&sb, "</pre>\n</section>\n");
	/* An ended job's page has nothing more to follow. */
	return page_close(&sb, !ended, id, num(view, "last", 0), out);
}

/* ---- trends: one inline SVG chart per series, drawn here ------------------------------- */

#define SVG_W 640
#define SVG_H 180
#define SVG_PAD 36

static void series_title(struct strbuf *sb, const json_t *s)
{
	html_escape(sb, str(s, "workload"));
	lit_text(sb, " ", str(s, "metric"));
	strbuf_appendf(sb, " @%lld tasks", num(s, "tasks", 0));
	lit_text(sb, " (", str(s, "topology"));
	lit_text(sb, ", ", str(s, "timing"));
	strbuf_append(sb, ")");
}

static double point_mean(const json_t *pts, size_t i)
{
	const json_t *m = json_object_get(json_array_get(pts, i), "mean");

	return json_is_number(m) ? json_number_value(m) : NAN;
}

static void svg_chart(struct strbuf *sb, const json_t *s)
{
	const json_t *pts = json_object_get(s, "points"), *changes = json_object_get(s, "changes");
	const json_t *c;
	size_t n = json_array_size(pts), i;
	double lo = INFINITY, hi = -INFINITY, span, x, y;
	int drawn = 0;

	for (i = 0; i < n; i++) {
		double v = point_mean(pts, i);

		if (isfinite(v)) {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	if (!(lo <= hi)) {
		strbuf_append(sb, "<p>no points with a value</p>\n");
		return;
	}
	span = hi - lo > 0 ? hi - lo : (fabs(hi) > 0 ? fabs(hi) * 0.1 : 1);
	lo -= span * 0.1;
	span *= 1.2;
#define SX(k) (SVG_PAD + (n > 1 ? (double)(k) * (SVG_W - 2 * SVG_PAD) / (double)(n - 1) \
				: (SVG_W - 2 * SVG_PAD) / 2.0))
#define SY(v) (SVG_H - SVG_PAD / 2 - ((v) - lo) * (SVG_H - SVG_PAD) / span)
	strbuf_appendf(sb, "<svg class=\"trend\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
			   "role=\"img\">\n<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" "
			   "height=\"%d\"/>\n", SVG_W, SVG_H, SVG_W, SVG_H, SVG_PAD / 2, SVG_PAD / 2,
		       SVG_W - SVG_PAD, SVG_H - SVG_PAD);
	strbuf_appendf(sb, "<text class=\"axis\" x=\"2\" y=\"%d\">%.4g</text>\n<text class=\"axis\" "
			   "x=\"2\" y=\"%d\">%.4g</text>\n", SVG_PAD / 2 + 10, lo + span,
		       SVG_H - SVG_PAD / 2 - 2, lo);
	json_array_foreach(changes, i, c) {
		long long at = num(c, "at", -1);
		const json_t *pct = json_object_get(c, "change_pct");

		if (at < 0 || (size_t)at >= n)
			continue;
		x = (SX(at - 1 >= 0 ? at - 1 : 0) + SX(at)) / 2;
		strbuf_appendf(sb, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				   "y2=\"%d\"/><text class=\"change\" x=\"%.1f\" y=\"%d\">%+.1f %%"
				   "</text>\n", x, SVG_PAD / 2, x, SVG_H - SVG_PAD / 2, x + 3,
			       SVG_PAD / 2 + 22, json_is_number(pct) ? json_number_value(pct) : 0.0);
	}
	strbuf_append(sb, "<polyline class=\"line\" points=\"");
	for (i = 0; i < n; i++) {
		double v = point_mean(pts, i);

		if (isfinite(v))
			strbuf_appendf(sb, "%s%.1f,%.1f", drawn++ ? " " : "", SX(i), SY(v));
	}
	strbuf_append(sb, "\"/>\n");
	for (i = 0; i < n; i++) {
		const json_t *p = json_array_get(pts, i);
		double v = point_mean(pts, i);

		if (!isfinite(v))
			continue;
		x = SX(i);
		y = SY(v);
		strbuf_appendf(sb, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>",
			       x, y);
		html_escape(sb, str(p, "created"));
		strbuf_appendf(sb, ": %.6g (", v);
		html_escape(sb, str(p, "kernel"));
		lit_text(sb, ", ", str(p, "report"));
		strbuf_append(sb, ")</title></circle>\n");
	}
	strbuf_append(sb, "</svg>\n");
#undef SX
#undef SY
}

/* The alerts nightly raised on this series: theirs is named "WORKLOAD.METRIC@TASKS#HASH" (the
 * hash of the ledger's own key, which the index does not keep), so a series' alerts are those
 * of its job with that prefix; two series that differ only in their parameters share them. */
static void series_alerts(struct strbuf *sb, const json_t *s, const json_t *alerts)
{
	const json_t *pts = json_object_get(s, "points"), *a;
	const char *job = str(json_array_get(pts, 0), "job");
	char prefix[600];
	size_t i;
	int n = 0;

	snprintf(prefix, sizeof(prefix), "%s.%s@%lld#", str(s, "workload") ? str(s, "workload") : "",
		 str(s, "metric") ? str(s, "metric") : "", num(s, "tasks", 0));
	json_array_foreach(json_object_get(alerts, "alerts"), i, a) {
		const char *sid = str(a, "series"), *ajob = str(a, "job");
		const json_t *pct = json_object_get(a, "change_pct");

		if (!sid || strncmp(sid, prefix, strlen(prefix)) || !job || !ajob || strcmp(job, ajob))
			continue;
		strbuf_append(sb, n++ ? "" : "<ul class=\"alerts\">\n");
		strbuf_appendf(sb, "<li><a href=\"/ui/alerts?show=all#alert-%lld\">alert %lld</a>: ",
			       num(a, "id", 0), num(a, "id", 0));
		html_escape(sb, str(a, "direction"));
		if (json_is_number(pct))
			strbuf_appendf(sb, " %+.1f %%", json_number_value(pct));
		lit_text(sb, ", night ", str(a, "night"));
		lit_text(sb, " (", str(a, "commit"));
		lit_text(sb, "), ", str(a, "state"));
		if (str(a, "culprit"))
			lit_text(sb, "; its bisection: ", str(a, "culprit"));
		strbuf_append(sb, "</li>\n");
	}
	if (n)
		strbuf_append(sb, "</ul>\n");
}

int webpage_trends(const json_t *series, const json_t *alerts, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const json_t *list = json_object_get(series, "series"), *s, *c;
	size_t i, k;

	page_open(&sb, "trends");
	if (!json_array_size(list))
		strbuf_append(&sb, "<p>no series in the history index yet (lab history index, or "
				   "lab nightly)</p>\n");
	json_array_foreach(list, i, s) {
		const json_t *pts = json_object_get(s, "points");
		size_t n = json_array_size(pts);

		strbuf_append(&sb, "<section class=\"series\">\n<h2>");
		series_title(&sb, s);
		strbuf_append(&sb, "</h2>\n");
		svg_chart(&sb, s);
		strbuf_appendf(&sb, "<p>%zu point%s, %s is better", n, n == 1 ? "" : "s",
			       str(s, "better") && !strcmp(str(s, "better"), "higher") ? "higher"
										       : "lower");
		if (n) {
			strbuf_append(&sb, "; the last: ");
			html_escape(&sb, str(json_array_get(pts, n - 1), "created"));
			strbuf_appendf(&sb, " %.6g ", point_mean(pts, n - 1));
			html_escape(&sb, str(s, "unit"));
		}
		strbuf_append(&sb, "</p>\n");
		json_array_foreach(json_object_get(s, "changes"), k, c) {
			long long at = num(c, "at", -1);
			const json_t *pct = json_object_get(c, "change_pct");

			strbuf_append(&sb, "<p class=\"changed\">change point before ");
			html_escape(&sb, at >= 0 ? str(json_array_get(pts, (size_t)at), "created") : NULL);
			strbuf_appendf(&sb, ": %+.1f %%</p>\n",
				       json_is_number(pct) ? json_number_value(pct) : 0.0);
		}
		if (str(s, "outside_model"))
			para(&sb, "note", str(s, "outside_model"));
		series_alerts(&sb, s, alerts);
		strbuf_append(&sb, "</section>\n");
	}
	return page_close(&sb, 0, 0, 0, out);
}

/* ---- alerts, each with its form --------------------------------------------------------- */

static const char *const alert_states[] = { "new", "acknowledged", "invalid", "fixed" };

static void alert_form(struct strbuf *sb, const json_t *a, const char *show)
{
	const char *st = str(a, "state");

	strbuf_appendf(sb, "<form method=\"post\" action=\"/ui/alerts/%lld\">"
			   "<input type=\"hidden\" name=\"show\" value=\"", num(a, "id", 0));
	html_escape(sb, show);
	strbuf_append(sb, "\"><select name=\"state\">");
	for (size_t i = 0; i < 4; i++)
		strbuf_appendf(sb, "<option%s>%s</option>",
			       st && !strcmp(st, alert_states[i]) ? " selected" : "", alert_states[i]);
	strbuf_append(sb, "</select> <input name=\"commit\" size=\"12\" maxlength=\"64\" "
			  "placeholder=\"commit (fixed)\"> <input name=\"note\" size=\"24\" "
			  "maxlength=\"500\" placeholder=\"note\"> <input name=\"by\" size=\"10\" "
			  "maxlength=\"100\" placeholder=\"who\"> <button>set</button></form>");
}

int webpage_alerts(const json_t *alerts, const char *show, const char *note, char **out)
{
	static const char *const shows[] = { "new", "acknowledged", "invalid", "fixed", "all" };
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const json_t *list = json_object_get(alerts, "alerts"), *a;
	size_t i;

	page_open(&sb, "alerts");
	strbuf_append(&sb, "<p class=\"filter\">show:");
	for (i = 0; i < 5; i++)
		strbuf_appendf(&sb, " <a href=\"/ui/alerts?show=%s\"%s>%s</a>", shows[i],
			       show && !strcmp(show, shows[i]) ? " class=\"here\"" : "", shows[i]);
	strbuf_append(&sb, "</p>\n");
	if (note)
		para(&sb, "said", note);
	strbuf_append(&sb, "<table>\n<thead><tr><th>id</th><th>raised</th><th>source</th>"
			   "<th>job</th><th>series</th><th>night</th><th>commit</th><th>change</th>"
			   "<th>culprit</th><th>state</th><th>by</th><th>at</th><th>note</th>"
			   "<th>set</th></tr></thead>\n<tbody>\n");
	json_array_foreach(list, i, a) {
		const json_t *pct = json_object_get(a, "change_pct");

		strbuf_appendf(&sb, "<tr id=\"alert-%lld\"><td>%lld</td>", num(a, "id", 0),
			       num(a, "id", 0));
		td(&sb, str(a, "raised_at"));
		td(&sb, str(a, "source"));
		td(&sb, str(a, "job"));
		td(&sb, str(a, "series"));
		td(&sb, str(a, "night"));
		td(&sb, str(a, "commit"));
		if (json_is_number(pct))
			strbuf_appendf(&sb, "<td>%+.1f %% ", json_number_value(pct));
		else
			strbuf_append(&sb, "<td>");
		html_escape(&sb, str(a, "direction"));
		strbuf_append(&sb, "</td>");
		td(&sb, str(a, "culprit"));
		strbuf_append(&sb, "<td class=\"state\">");
		html_escape(&sb, str(a, "state"));
		if (str(a, "fixed_by")) {
			strbuf_append(&sb, " by ");
			html_escape(&sb, str(a, "fixed_by"));
		}
		strbuf_append(&sb, "</td>");
		td(&sb, str(a, "who"));
		td(&sb, str(a, "at"));
		td(&sb, str(a, "note"));
		strbuf_append(&sb, "<td>");
		alert_form(&sb, a, show);
		strbuf_append(&sb, "</td></tr>\n");
	}
	if (!json_array_size(list))
		strbuf_append(&sb, "<tr><td colspan=\"14\">no alerts</td></tr>\n");
	strbuf_append(&sb, "</tbody>\n</table>\n");
	return page_close(&sb, 0, 0, 0, out);
}

int webpage_error(unsigned code, const char *msg, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	char title[32];

	snprintf(title, sizeof(title), "error %u", code);
	page_open(&sb, title);
	para(&sb, "error", msg);
	return page_close(&sb, 0, 0, 0, out);
}
