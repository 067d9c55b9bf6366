/* labd's pages (web.h): the data read through labdata.h and the queue, the HTML made by
 * webpage.h.
 *
 * Live updates are a long poll of the JSON API's own GET /v1/events (web.js), not server-sent
 * events: labd serves one thread per connection with at most API_CONNECTION_LIMIT of them, so
 * an event stream held open by every tab would hold a thread each for as long as the tab
 * lives, while a long poll ends within 25 s and the next one is a new request; it is also the
 * route `lab job logs --follow` already uses, bounded and tested, and needs nothing new in the
 * server.  When an event comes the script fetches the page again and swaps its live sections,
 * so the HTML is made in one place (webpage.c), never again in JavaScript. */
#include "daemon/web.h"

#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/apireq.h"
#include "daemon/labdata.h"
#include "daemon/webpage.h"
#include "history/alerts.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/text.h"

#define HTML "text/html; charset=utf-8"
/* The assets are small; anything larger is not ours. */
#define WEB_MAX_ASSET (256u << 10)

int web_is_page(const char *url)
{
	return !strcmp(url, "/") || !strcmp(url, "/ui") || !strncmp(url, "/ui/", 4);
}

static int answer_page(struct web_answer *a, unsigned code, int r, char *page)
{
	a->code = code;
	a->type = HTML;
	if (r < 0) {
		a->code = MHD_HTTP_INTERNAL_SERVER_ERROR;
		a->type = "text/plain; charset=utf-8";
		page = strdup("out of memory\n");
	}
	a->body = page;
	a->len = page ? strlen(page) : 0;
	return 0;
}

static int answer_error(struct web_answer *a, unsigned code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int answer_error(struct web_answer *a, unsigned code, const char *fmt, ...)
{
	char msg[1400];
	char *page = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r = webpage_error(code, msg, &page);
	return answer_page(a, code, r, page);
}

/* An error of the data layer: 404 for -ENOENT, else 500. */
static int answer_data_error(struct web_answer *a, int r, const struct lab_error *err)
{
	return answer_error(a, r == -ENOENT ? MHD_HTTP_NOT_FOUND : MHD_HTTP_INTERNAL_SERVER_ERROR,
			    "%s", err->msg[0] ? err->msg : strerror(-r));
}

/* A job's part of a view: its log tail, the past jobs of its name, where to follow from. */
static int job_view(const struct api_ctx *ctx, json_t *view, int64_t id, struct lab_error *err)
{
	_cleanup_json_ json_t *running = json_string("running");
	json_t *job = NULL, *tail = NULL, *past = NULL;
	char now[CLOCK_ISO_LEN];
	int64_t last = 0, newest = 0;
	/* Where the page follows from first (as page_queue's): what changes after is then
	 * what wakes it. */
	int r = queue_last_seq(ctx->q, &last, err);

	if (r == 0)
		r = queue_get(ctx->q, id, 0, &job, err);
	if (r == 0)
		r = labdata_job_tail(ctx->q, id, &tail, &newest, err);
	/* An estimate only for a running job: the others need no past. */
	if (r == 0 && json_equal(json_object_get(job, "state"), running))
		r = labdata_past_jobs(ctx->q, json_string_value(json_object_get(job, "name")), &past,
				      err);
	else if (r == 0 && !(past = json_array()))
		r = -ENOMEM;
	clock_utc_iso(now, sizeof(now));
	if (r == 0 && (json_object_set_new(view, "job", job) < 0 ||
		       json_object_set_new(view, "events", tail) < 0 ||
		       json_object_set_new(view, "past", past) < 0 ||
		       json_object_set_new(view, "last", json_integer(last)) < 0 ||
		       json_object_set_new(view, "now", json_string(now)) < 0))
		r = -ENOMEM;
	else if (r < 0) {
		json_decref(job);
		json_decref(tail);
		json_decref(past);
	}
	return r;
}

static int page_queue(const struct api_ctx *ctx, struct web_answer *a)
{
	_cleanup_json_ json_t *view = json_object(), *run = json_object();
	struct lab_error err = { 0 };
	json_t *jobs = NULL, *j;
	char *page = NULL;
	int64_t last = 0, running = 0;
	size_t i;
	/* Where the page follows from is read first: an event while the rest is read is then
	 * one the page has or one it is woken by, never one it misses. */
	int r = view && run ? queue_last_seq(ctx->q, &last, &err) : -ENOMEM;

	if (r == 0)
		r = queue_list(ctx->q, -1, WEBPAGE_MAX_JOBS + 1, &jobs, &err);
	if (r == 0)
		r = json_object_set_new(view, "jobs", jobs) < 0 ? -ENOMEM : 0;
	if (r == 0)
		r = labdata_positions(ctx->q, jobs, &err);
	/* The running job the worker claimed first (the oldest: the list is newest first). */
	json_array_foreach(json_object_get(view, "jobs"), i, j) {
		const char *st = json_string_value(json_object_get(j, "state"));

		if (st && !strcmp(st, "running"))
			running = json_integer_value(json_object_get(j, "id"));
	}
	if (r == 0 && running > 0)
		r = job_view(ctx, run, running, &err);
	if (r == 0 && (json_object_set(view, "running", running > 0 ? run : json_null()) < 0 ||
		       json_object_set_new(view, "last", json_integer(last)) < 0))
		r = -ENOMEM;
	if (r < 0)
		return answer_data_error(a, r, &err);
	r = webpage_queue(view, &page);
	return answer_page(a, MHD_HTTP_OK, r, page);
}

static int page_job(const struct api_ctx *ctx, const char *rest, struct web_answer *a)
{
	_cleanup_json_ json_t *view = json_object();
	struct lab_error err = { 0 };
	char *page = NULL;
	int64_t id;
	int r;

	if (apireq_id(rest, strlen(rest), &id) < 0)
		return answer_error(a, MHD_HTTP_NOT_FOUND, "no such job");
	r = view ? job_view(ctx, view, id, &err) : -ENOMEM;
	if (r < 0)
		return answer_data_error(a, r, &err);
	r = webpage_job(view, &page);
	return answer_page(a, MHD_HTTP_OK, r, page);
}

static int page_trends(const struct api_ctx *ctx, struct web_answer *a)
{
	_cleanup_json_ json_t *series = NULL, *alerts = NULL;
	struct lab_error err = { 0 };
	char *page = NULL;
	int r = labdata_series(ctx->state_dir, &series, &err);

	if (r == 0)
		r = labdata_alerts(ctx->state_dir, -1, &alerts, &err);
	if (r < 0)
		return answer_data_error(a, r, &err);
	r = webpage_trends(series, alerts, &page);
	return answer_page(a, MHD_HTTP_OK, r, page);
}

/* show: the state listed (NULL: new; "all": every one); -1 all, -2 not a state. */
static int show_state(const char *show)
{
	if (!show)
		return ALERT_NEW;
	if (!strcmp(show, "all"))
		return -1;
	return alert_state_from_name(show) < 0 ? -2 : alert_state_from_name(show);
}

static int page_alerts(const struct api_ctx *ctx, const struct web_request *rq,
			struct web_answer *a)
{
	_cleanup_json_ json_t *alerts = NULL;
	struct lab_error err = { 0 };
	char *page = NULL, said[64] = "";
	int64_t set;
	int state = show_state(rq->show), r;

	if (state == -2)
		return answer_error(a, MHD_HTTP_BAD_REQUEST,
				    "show: new, acknowledged, invalid, fixed or all");
	r = labdata_alerts(ctx->state_dir, state, &alerts, &err);
	if (r < 0)
		return answer_data_error(a, r, &err);
	if (rq->set && apireq_id(rq->set, strlen(rq->set), &set) == 0)
		snprintf(said, sizeof(said), "alert %lld was set", (long long)set);
	r = webpage_alerts(alerts, rq->show ? rq->show : "new", said[0] ? said : NULL, &page);
	return answer_page(a, MHD_HTTP_OK, r, page);
}

/* POST /ui/alerts/ID, a form: its fields made the JSON body POST /v1/alerts/ID takes, read by
 * the same apireq_alert() and set by the same labdata_alert_set(); then back to the list. */
static int form_alert(const struct api_ctx *ctx, const struct web_request *rq, const char *rest,
		       struct web_answer *a)
{
	static const char *const fields[] = { "state", "note", "by", "commit" };
	_cleanup_json_ json_t *j = json_object();
	struct apireq_alert al;
	struct lab_error err = { 0 };
	char v[ALERT_NOTE_MAX + 1], show[32] = "new", msg[256];
	int64_t id;
	int r;

	if (apireq_id(rest, strlen(rest), &id) < 0)
		return answer_error(a, MHD_HTTP_NOT_FOUND, "no such alert");
	if (rq->too_large)
		return answer_error(a, MHD_HTTP_CONTENT_TOO_LARGE, "the form is larger than %d bytes",
				    WEB_MAX_FORM);
	if (!j)
		return answer_error(a, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	for (size_t i = 0; i < 4; i++) {
		r = apireq_form(rq->body ? rq->body : "", rq->len, fields[i], v, sizeof(v));
		if (r == -EINVAL || r == -E2BIG)
			return answer_error(a, MHD_HTTP_BAD_REQUEST, "%s: %s", fields[i],
					    r == -E2BIG ? "too long" : "malformed, or a control "
								       "character in it");
		if (r == 0 && !text_utf8_valid(v))
			return answer_error(a, MHD_HTTP_BAD_REQUEST, "%s: not UTF-8", fields[i]);
		/* An empty field of a form is a field not filled in. */
		if (r == 0 && v[0] && json_object_set_new(j, fields[i], json_string(v)) < 0)
			return answer_error(a, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	if (apireq_form(rq->body ? rq->body : "", rq->len, "show", v, sizeof(v)) == 0 &&
	    show_state(v) != -2)
		snprintf(show, sizeof(show), "%s", v);
	if (apireq_alert(j, &al, msg, sizeof(msg)) < 0)
		return answer_error(a, MHD_HTTP_BAD_REQUEST, "%s", msg);
	/* Who, when the form does not say: the socket's peer (lab web's user), else "web". */
	r = labdata_alert_set(ctx->state_dir, id, &al, rq->peer && rq->peer[0] ? rq->peer : "web",
			      &err);
	if (r == -ENOENT)
		return answer_error(a, MHD_HTTP_NOT_FOUND, "no such alert");
	if (r < 0)
		return answer_error(a, r == -EINVAL ? MHD_HTTP_BAD_REQUEST
						    : MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err.msg);
	/* 303: the browser asks for the list with GET, and a reload does not post again.  The
	 * list says which alert was set by its number alone: no text of a request is shown back
	 * on a page. */
	a->code = MHD_HTTP_SEE_OTHER;
	a->type = "text/plain; charset=utf-8";
	snprintf(a->location, sizeof(a->location), "/ui/alerts?show=%s&set=%lld#alert-%lld", show,
		 (long long)id, (long long)id);
	a->body = strdup("see the alerts\n");
	a->len = a->body ? strlen(a->body) : 0;
	return 0;
}

/* /ui/web.css, /ui/web.js: lab/report/ of the lab's checkout (or its installed data). */
static int asset(const char *name, const char *type, struct web_answer *a)
{
	char rel[64], path[PATH_MAX];
	char *data = NULL;
	size_t len = 0;
	int r;

	snprintf(rel, sizeof(rel), "lab/report/%s", name);
	r = checkout_find(rel, path, sizeof(path));
	if (r == 0)
		r = fs_read_file(path, WEB_MAX_ASSET, &data, &len);
	if (r < 0)
		return answer_error(a, MHD_HTTP_NOT_FOUND, "%s: %s", rel, strerror(-r));
	a->code = MHD_HTTP_OK;
	a->type = type;
	a->body = data;
	a->len = len;
	return 0;
}

static int route(const struct api_ctx *ctx, const struct web_request *rq, struct web_answer *a)
{
	const char *url = rq->url, *sub = !strncmp(url, "/ui/", 4) ? url + 4 : "";
	int is_get = !strcmp(rq->method, "GET") || !strcmp(rq->method, "HEAD");
	int is_post = !strcmp(rq->method, "POST");

	if (is_post && !strncmp(sub, "alerts/", 7)) {
		/* A form may come from this page only: a browser names the page's origin, and
		 * one of another site (a form posted across sites) is refused.  A client that
		 * is no browser sends no Origin; on TCP it holds the token. */
		if (rq->origin && !apireq_same_origin(rq->origin, rq->host))
			return answer_error(a, MHD_HTTP_FORBIDDEN,
					    "a form from another origin (%.100s) is refused",
					    rq->origin);
		return form_alert(ctx, rq, sub + 7, a);
	}
	if (!is_get)
		return answer_error(a, MHD_HTTP_METHOD_NOT_ALLOWED, "%s: pages take GET",
				    rq->method);
	if (!sub[0])
		return page_queue(ctx, a);
	if (!strncmp(sub, "jobs/", 5))
		return page_job(ctx, sub + 5, a);
	if (!strcmp(sub, "trends"))
		return page_trends(ctx, a);
	if (!strcmp(sub, "alerts"))
		return page_alerts(ctx, rq, a);
	if (!strcmp(sub, "web.css"))
		return asset("web.css", "text/css; charset=utf-8", a);
	if (!strcmp(sub, "web.js"))
		return asset("web.js", "text/javascript; charset=utf-8", a);
	return answer_error(a, MHD_HTTP_NOT_FOUND, "no such page");
}

void web_serve(const struct api_ctx *ctx, const struct web_request *rq, struct web_answer *a)
{
	memset(a, 0, sizeof(*a));
	(void)route(ctx, rq, a);
}
