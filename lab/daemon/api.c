/* labd's HTTP/JSON API on libmicrohttpd (api.h; the routes in lab/daemon/API.md).  One
 * thread per connection, so that a long poll of /v1/events may simply block; connections,
 * bodies and waits are bounded. */
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/slurmfmt.h"
#include "daemon/api.h"
#include "daemon/apireq.h"
#include "daemon/labdata.h"
#include "daemon/slurm.h"
#include "daemon/web.h"
#include "history/alerts.h"
#include "run/jobload.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/spawn.h"

#define JSON_FLAGS (JSON_SORT_KEYS | JSON_COMPACT)
#define DASHBOARD_TIMEOUT_S 120.0

struct api_listener {
	const struct api_ctx *ctx;
	struct api_server *srv;
	char token[256];       /* empty: no token needed (the unix socket) */
	struct MHD_Daemon *d;
};

struct api_server {
	struct api_listener unix_l, tcp_l;
	volatile int stopping;
};

/* One request's state across the handler's calls: the body as it arrives. */
struct api_req {
	char *body;
	size_t len;
	int too_large;
};

/* ---- responses ------------------------------------------------------------------------ */

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned code, const char *type,
			       char *data, size_t len)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result r;

	if (!resp) {
		free(data);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	r = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	return r;
}

/* j is taken.  Out of memory, the connection is closed (MHD_NO): there is nothing to say it
 * with. */
static enum MHD_Result respond_json(struct MHD_Connection *conn, unsigned code, json_t *j)
{
	_cleanup_free_ char *text = j ? json_dumps(j, JSON_FLAGS) : NULL;
	size_t n = text ? strlen(text) : 0;
	char *body = text ? malloc(n + 1) : NULL;

	json_decref(j);
	if (!body)
		return MHD_NO;
	/* A newline ends the body, as every JSON text the lab writes. */
	memcpy(body, text, n);
	body[n] = '\n';
	return respond(conn, code, "application/json", body, n + 1);
}

static enum MHD_Result respond_error(struct MHD_Connection *conn, unsigned code,
				     const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static enum MHD_Result respond_error(struct MHD_Connection *conn, unsigned code,
				     const char *path, const char *fmt, ...)
{
	char msg[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return respond_json(conn, code,
			    json_pack("{s:s, s:o}", "error", msg, "path",
				      path && path[0] ? json_string(path) : json_null()));
}

/* A lab_error from the queue as a 500 (or 404/409 for the errnos that mean so). */
static enum MHD_Result respond_queue_error(struct MHD_Connection *conn, int r,
					   const struct lab_error *err)
{
	unsigned code = r == -ENOENT ? MHD_HTTP_NOT_FOUND
			: r == -EALREADY ? MHD_HTTP_CONFLICT
					 : MHD_HTTP_INTERNAL_SERVER_ERROR;

	return respond_error(conn, code, NULL, "%s",
			     err->msg[0] ? err->msg : strerror(r < 0 ? -r : r));
}

/* ---- request helpers ------------------------------------------------------------------ */

/* A query argument as apireq_number() reads it. */
static int arg_i64(struct MHD_Connection *conn, const char *name, int64_t def, int64_t *out)
{
	return apireq_number(MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name), def,
			     out);
}

static int token_ok(const struct api_listener *l, struct MHD_Connection *conn)
{
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_AUTHORIZATION);

	return apireq_bearer_ok(l->token, h);
}

/* A browser on the TCP listener holds the token in a cookie (page_login), which it also sends
 * with requests other pages of the same site start.  So the cookie opens what cannot change
 * anything, GETs, and the pages' own forms (web.c checks their Origin); the JSON API's POSTs
 * still need the Authorization header, which no other page can make a browser send. */
static int cookie_ok(const struct api_listener *l, struct MHD_Connection *conn, const char *url,
		     const char *method)
{
	const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Cookie");
	char tok[256];

	if (apireq_cookie(h, WEB_TOKEN_COOKIE, tok, sizeof(tok)) < 0 ||
	    !apireq_token_eq(l->token, tok))
		return 0;
	return !strcmp(method, "GET") || (!strcmp(method, "POST") && web_is_page(url));
}

/* ?token=T on a page, T the token: the browser may keep it (page_login). */
static int login_ok(const struct api_listener *l, struct MHD_Connection *conn, const char *url,
		    const char *method)
{
	const char *t = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");

	return t && !strcmp(method, "GET") && web_is_page(url) && apireq_cookie_safe(l->token) &&
	       apireq_token_eq(l->token, t);
}

/* ---- routes ----------------------------------------------------------------------------- */

static enum MHD_Result get_health(const struct api_listener *l, struct MHD_Connection *conn)
{
	const struct api_ctx *ctx = l->ctx;
	struct lab_error err = { 0 };
	json_t *counts = NULL;
	int64_t cur = ctx->current_job ? ctx->current_job(ctx->ud) : 0;
	int r = queue_counts(ctx->q, &counts, &err);

	if (r < 0)
		return respond_queue_error(conn, r, &err);
	return respond_json(conn, MHD_HTTP_OK,
			    json_pack("{s:b, s:s, s:s, s:o, s:{s:o}}", "ok", 1, "version",
				      ctx->version, "state_dir", ctx->state_dir, "counts", counts,
				      "worker", "job", cur > 0 ? json_integer(cur) : json_null()));
}

/* The job's directory under jobs_dir, made now, with job.json in it. */
static int submit_dir(const struct api_ctx *ctx, const json_t *job, char *dir, size_t len)
{
	_cleanup_free_ char *file = NULL;
	char *text;
	int r;

	if ((r = fs_mkdir_p(ctx->jobs_dir, 0750)) < 0)
		return r;
	snprintf(dir, len, "%s/job-XXXXXX", ctx->jobs_dir);
	if (!mkdtemp(dir))
		return -errno;
	file = fs_join(dir, "job.json");
	text = json_dumps(job, JSON_SORT_KEYS | JSON_INDENT(2));
	if (!file || !text) {
		free(text);
		fs_rm_rf(dir);
		return -ENOMEM;
	}
	r = fs_write_atomic(file, text, strlen(text));
	free(text);
	if (r < 0)
		fs_rm_rf(dir);
	return r;
}

/* ?class=C: a node feature some Slurm node has (checked now, so that a job nothing can run
 * is refused at submit, naming the feature); labd's own worker has no classes. */
static int check_class(const struct api_ctx *ctx, const char *klass, char *msg, size_t len)
{
	_cleanup_json_ json_t *nodes = NULL;
	struct lab_error err = { 0 };
	char have[1024];

	if (!klass)
		return 0;
	if (!ctx->slurm) {
		snprintf(msg, len, "class: this labd runs jobs itself (--backend local); host "
			 "classes are Slurm node features (labd --backend slurm)");
		return -EINVAL;
	}
	if (!slurmfmt_feature_ok(klass)) {
		snprintf(msg, len, "class: \"%.80s\" is not a feature name ([A-Za-z0-9_.-], at most "
			 "%d bytes)", klass, SLURM_FEATURE_MAX);
		return -EINVAL;
	}
	if (slurm_nodes(&nodes, &err) < 0) {
		snprintf(msg, len, "class: cannot ask Slurm for its nodes: %s", err.msg);
		return -EIO;
	}
	if (!slurmfmt_feature_known(nodes, klass, have, sizeof(have))) {
		snprintf(msg, len, "class: no Slurm node has the feature \"%s\" (features: %s)",
			 klass, have[0] ? have : "none");
		return -EINVAL;
	}
	return 0;
}

/* The request's body as JSON (duplicate keys refused), or NULL with *res the answer (413,
 * 400) naming it what. */
static json_t *body_json(struct MHD_Connection *conn, const struct api_req *req, const char *what,
			 enum MHD_Result *res)
{
	json_error_t jerr;
	json_t *j;

	if (req->too_large) {
		*res = respond_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, NULL,
				     "%s: larger than %u bytes", what, API_MAX_BODY);
		return NULL;
	}
	j = json_loadb(req->body ? req->body : "", req->len, JSON_REJECT_DUPLICATES, &jerr);
	if (!j)
		*res = respond_error(conn, MHD_HTTP_BAD_REQUEST, NULL,
				     "%s: not valid JSON: line %d: %s", what, jerr.line, jerr.text);
	return j;
}

/* Who is at the other end of the unix socket: its peer's user ("" when unknown, and on TCP,
 * where the token says who may, not who is). */
static void peer_user(const struct api_listener *l, struct MHD_Connection *conn, char *out,
		      size_t len)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct passwd pw, *res = NULL;
	struct ucred uc;
	socklen_t sl = sizeof(uc);
	char buf[1024];

	out[0] = 0;
	if (l->token[0] || !ci ||
	    getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &uc, &sl) < 0 || sl != sizeof(uc))
		return;
	if (getpwuid_r(uc.uid, &pw, buf, sizeof(buf), &res) == 0 && res)
		snprintf(out, len, "%s", res->pw_name);
	else
		snprintf(out, len, "uid %u", (unsigned)uc.uid);
}

static enum MHD_Result post_job(const struct api_listener *l, struct MHD_Connection *conn,
				const struct api_req *req)
{
	const struct api_ctx *ctx = l->ctx;
	struct lab_error err = { 0 };
	_cleanup_json_ json_t *j = NULL;
	struct job job;
	enum MHD_Result res;
	char dir[PATH_MAX], out_dir[PATH_MAX + 16], msg[1200], who[128];
	const char *klass;
	int64_t id = 0;
	int r;

	if (!(j = body_json(conn, req, "job", &res)))
		return res;
	memset(&job, 0, sizeof(job));
	klass = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "class");
	if ((r = check_class(ctx, klass, msg, sizeof(msg))) < 0)
		return respond_error(conn, r == -EIO ? MHD_HTTP_SERVICE_UNAVAILABLE
						     : MHD_HTTP_BAD_REQUEST, "class", "%s", msg);
	r = jobload_json(j, ctx->jobs_dir, &job, &err);
	if (r < 0) {
		/* The words `lab run` prints for the same job, the file being the request. */
		error_set_file(&err, "job");
		error_format(&err, msg, sizeof(msg));
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, err.path, "%s", msg);
	}
	job_free(&job);
	if ((r = submit_dir(ctx, j, dir, sizeof(dir))) < 0)
		return respond_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				     "cannot keep the job under %s: %s", ctx->jobs_dir, strerror(-r));
	snprintf(out_dir, sizeof(out_dir), "%s/report", dir);
	peer_user(l, conn, who, sizeof(who)); /* the pages' "who" */
	r = queue_submit(ctx->q, j, json_string_value(json_object_get(j, "name")), out_dir, klass,
			 who[0] ? who : NULL, &id, &err);
	if (r < 0) {
		fs_rm_rf(dir);
		return respond_queue_error(conn, r, &err);
	}
	return respond_json(conn, MHD_HTTP_CREATED,
			    json_pack("{s:I, s:s}", "id", (json_int_t)id, "state", "queued"));
}

static enum MHD_Result get_jobs(const struct api_listener *l, struct MHD_Connection *conn)
{
	const char *st = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "state");
	struct lab_error err = { 0 };
	enum queue_state s = QUEUE_QUEUED;
	json_t *list = NULL;
	int64_t limit;
	int r;

	if (st && queue_state_parse(st, &s) < 0)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, "state",
				     "state: unknown state \"%.64s\"", st);
	if (arg_i64(conn, "limit", 0, &limit) < 0 || limit > 100000)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, "limit",
				     "limit: must be a number from 0 to 100000");
	r = queue_list(l->ctx->q, st ? (int)s : -1, (unsigned)limit, &list, &err);
	if (r < 0)
		return respond_queue_error(conn, r, &err);
	return respond_json(conn, MHD_HTTP_OK, json_pack("{s:o}", "jobs", list));
}

static enum MHD_Result get_job(const struct api_listener *l, struct MHD_Connection *conn,
			       int64_t id)
{
	struct lab_error err = { 0 };
	json_t *j = NULL;
	int r = queue_get(l->ctx->q, id, 1, &j, &err);

	if (r < 0)
		return respond_queue_error(conn, r, &err);
	return respond_json(conn, MHD_HTTP_OK, j);
}

static enum MHD_Result post_cancel(const struct api_listener *l, struct MHD_Connection *conn,
				   int64_t id)
{
	struct lab_error err = { 0 };
	int running = 0;
	int r = queue_cancel(l->ctx->q, id, &running, &err);

	if (r == -EALREADY)
		return respond_error(conn, MHD_HTTP_CONFLICT, NULL, "job %lld already ended",
				     (long long)id);
	if (r < 0)
		return respond_queue_error(conn, r, &err);
	return respond_json(conn, MHD_HTTP_OK,
			    json_pack("{s:I, s:s, s:b}", "id", (json_int_t)id, "state",
				      running ? "running" : "cancelled", "cancel_requested", 1));
}

/* The job's report directory, from the queue (never from the request). */
static int job_out_dir(const struct api_listener *l, int64_t id, char *dir, size_t len,
		       struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL;
	const char *d;
	int r = queue_get(l->ctx->q, id, 0, &j, err);

	if (r < 0)
		return r;
	d = json_string_value(json_object_get(j, "out_dir"));
	if (!d || !d[0])
		return -ENOENT;
	snprintf(dir, len, "%s", d);
	return 0;
}

static enum MHD_Result get_report(const struct api_listener *l, struct MHD_Connection *conn,
				  int64_t id)
{
	struct lab_error err = { 0 };
	char dir[PATH_MAX], path[PATH_MAX + 16];
	char *data = NULL;
	size_t len = 0;
	int r = job_out_dir(l, id, dir, sizeof(dir), &err);

	if (r < 0)
		return respond_queue_error(conn, r, &err);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	r = fs_read_file(path, API_MAX_REPORT, &data, &len);
	if (r == -ENOENT)
		return respond_error(conn, MHD_HTTP_NOT_FOUND, NULL,
				     "job %lld has no report yet (it is written after each run)",
				     (long long)id);
	if (r < 0)
		return respond_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "%s: %s", path,
				     strerror(-r));
	return respond(conn, MHD_HTTP_OK, "application/json", data, len);
}

/* The dashboard `lab report` makes of the job's report, made afresh for each request (it
 * changes while the job runs). */
static enum MHD_Result get_dashboard(const struct api_listener *l, struct MHD_Connection *conn,
				     int64_t id)
{
	struct lab_error err = { 0 };
	char dir[PATH_MAX], html[PATH_MAX + 32], report[PATH_MAX + 16];
	_cleanup_free_ char *out = NULL;
	char *data = NULL;
	size_t len = 0;
	int st = 0, r = job_out_dir(l, id, dir, sizeof(dir), &err);

	if (r < 0)
		return respond_queue_error(conn, r, &err);
	snprintf(report, sizeof(report), "%s/report.json", dir);
	if (!fs_exists(report))
		return respond_error(conn, MHD_HTTP_NOT_FOUND, NULL,
				     "job %lld has no report yet", (long long)id);
	snprintf(html, sizeof(html), "%s/.dashboard-%lx.html", dir, (unsigned long)pthread_self());
	char *argv[] = { (char *)l->ctx->lab_exe, "report", dir, "-o", html, NULL };
	r = spawn_capture(argv, 64 * 1024, DASHBOARD_TIMEOUT_S, &out, &st);
	if (r == 0 && st == 0)
		r = fs_read_file(html, API_MAX_REPORT, &data, &len);
	unlink(html);
	if (r < 0 || st != 0)
		return respond_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
				     "lab report failed (exit %d): %.400s", st, out ? out : "");
	return respond(conn, MHD_HTTP_OK, "text/html; charset=utf-8", data, len);
}

/* Events after since; with none yet, wait up to timeout seconds (in slices, so that a
 * stopping server does not wait for a long poll). */
static enum MHD_Result get_events(const struct api_listener *l, struct MHD_Connection *conn)
{
	struct lab_error err = { 0 };
	int64_t since, job, timeout, limit, last = 0;
	json_t *ev = NULL;
	int r;

	if (arg_i64(conn, "since", 0, &since) < 0)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, "since",
				     "since: must be a sequence number (a non-negative integer)");
	if (arg_i64(conn, "job", 0, &job) < 0)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, "job",
				     "job: must be a job id (a positive integer)");
	if (arg_i64(conn, "timeout", 0, &timeout) < 0 || timeout > (int64_t)API_MAX_WAIT_S)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, "timeout",
				     "timeout: must be 0 to %.0f seconds", API_MAX_WAIT_S);
	if (arg_i64(conn, "limit", 0, &limit) < 0 || limit > 100000)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, "limit",
				     "limit: must be a number from 0 to 100000");
	for (int64_t waited = 0;;) {
		r = queue_events(l->ctx->q, since, job, (unsigned)limit, &ev, &last, &err);
		if (r < 0)
			return respond_queue_error(conn, r, &err);
		if (json_array_size(ev) > 0 || waited >= timeout || l->srv->stopping)
			break;
		json_decref(ev);
		ev = NULL;
		/* Any new event wakes the wait; one of another job means looking again. */
		queue_wait(l->ctx->q, last > since ? last : since, 1.0);
		waited++;
	}
	return respond_json(conn, MHD_HTTP_OK,
			    json_pack("{s:o, s:I}", "events", ev, "last", (json_int_t)last));
}

/* ---- alerts and trends: the history index's, through labdata.h (as the pages) -------- */

/* GET /v1/alerts[?show=new|acknowledged|invalid|fixed|all] (default new). */
static enum MHD_Result get_alerts(const struct api_listener *l, struct MHD_Connection *conn)
{
	const char *show = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "show");
	int state = show && strcmp(show, "all") ? alert_state_from_name(show) : show ? -1 : 0;
	struct lab_error err = { 0 };
	json_t *j = NULL;
	int r;

	if (show && strcmp(show, "all") && state < 0)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, "show",
				     "show: new, acknowledged, invalid, fixed or all");
	r = labdata_alerts(l->ctx->state_dir, state, &j, &err);
	if (r < 0)
		return respond_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "%s", err.msg);
	return respond_json(conn, MHD_HTTP_OK, j);
}

/* POST /v1/alerts/ID {"state", "note"?, "by"?, "commit"?}: its triage. */
static enum MHD_Result post_alert(const struct api_listener *l, struct MHD_Connection *conn,
				  const char *rest, const struct api_req *req)
{
	_cleanup_json_ json_t *j = NULL;
	struct apireq_alert a;
	struct lab_error err = { 0 };
	enum MHD_Result res;
	char msg[256];
	int64_t id;
	int r;

	if (apireq_id(rest, strlen(rest), &id) < 0)
		return respond_error(conn, MHD_HTTP_NOT_FOUND, NULL, "no such alert");
	if (!(j = body_json(conn, req, "body", &res)))
		return res;
	if (apireq_alert(j, &a, msg, sizeof(msg)) < 0)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, NULL, "%s", msg);
	r = labdata_alert_set(l->ctx->state_dir, id, &a, "api", &err);
	if (r == -ENOENT)
		return respond_error(conn, MHD_HTTP_NOT_FOUND, NULL, "no such alert");
	if (r == -EINVAL)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, err.path, "%s", err.msg);
	if (r < 0)
		return respond_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "%s", err.msg);
	return respond_json(conn, MHD_HTTP_OK, json_pack("{s:I, s:s}", "id", (json_int_t)id,
							 "state", alert_state_name(a.state)));
}

/* GET /v1/trends: the series the trends page draws, with their change points. */
static enum MHD_Result get_trends(const struct api_listener *l, struct MHD_Connection *conn)
{
	struct lab_error err = { 0 };
	json_t *j = NULL;
	int r = labdata_series(l->ctx->state_dir, &j, &err);

	if (r < 0)
		return respond_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "%s", err.msg);
	return respond_json(conn, MHD_HTTP_OK, j);
}

/* ---- pages (web.h) ---------------------------------------------------------------------- */

static enum MHD_Result serve_page(const struct api_listener *l, struct MHD_Connection *conn,
				  const char *url, const char *method, const struct api_req *req)
{
	struct web_request rq = {
		.method = method,
		.url = url,
		.show = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "show"),
		.set = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "set"),
		.origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin"),
		.host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST),
		.body = req->body,
		.len = req->len,
		.too_large = req->too_large || req->len > WEB_MAX_FORM,
	};
	struct web_answer a;
	struct MHD_Response *resp;
	enum MHD_Result r;
	char peer[128];

	peer_user(l, conn, peer, sizeof(peer));
	rq.peer = peer;
	web_serve(l->ctx, &rq, &a);
	resp = MHD_create_response_from_buffer(a.len, a.body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(a.body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, a.type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	/* The pages load nothing from elsewhere and are framed by no one. */
	MHD_add_response_header(resp, "Content-Security-Policy",
				"default-src 'self'; style-src 'self'; img-src 'self' data:; "
				"frame-ancestors 'none'; form-action 'self'");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (a.location[0])
		MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, a.location);
	r = MHD_queue_response(conn, a.code, resp);
	MHD_destroy_response(resp);
	return r;
}

/* GET /ui/...?token=T on TCP: the token checked, kept by the browser in a cookie (HttpOnly,
 * SameSite=Strict: never sent with a request another site starts), and the page asked again
 * without it in its address. */
static enum MHD_Result page_login(const struct api_listener *l, struct MHD_Connection *conn,
				  const char *url)
{
	char cookie[400];
	struct MHD_Response *resp = MHD_create_response_from_buffer(0, NULL,
								    MHD_RESPMEM_PERSISTENT);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	snprintf(cookie, sizeof(cookie), "%s=%s; Path=/; HttpOnly; SameSite=Strict",
		 WEB_TOKEN_COOKIE, l->token);
	MHD_add_response_header(resp, "Set-Cookie", cookie);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, url);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	r = MHD_queue_response(conn, MHD_HTTP_SEE_OTHER, resp);
	MHD_destroy_response(resp);
	return r;
}

/* ---- dispatch --------------------------------------------------------------------------- */

static enum MHD_Result route_job(const struct api_listener *l, struct MHD_Connection *conn,
				 const char *method, const char *rest, int is_get, int is_post)
{
	const char *sub;
	int64_t id;

	if (apireq_job_path(rest, &id, &sub) < 0)
		return respond_error(conn, MHD_HTTP_NOT_FOUND, NULL, "no such job");
	if (!sub[0])
		return is_get ? get_job(l, conn, id) : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, "%s: not allowed here", method);
	if (!strcmp(sub, "cancel"))
		return is_post ? post_cancel(l, conn, id)
			       : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
					       "cancel takes POST");
	if (!strcmp(sub, "report"))
		return is_get ? get_report(l, conn, id)
			      : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
					      "report takes GET");
	if (!strcmp(sub, "dashboard"))
		return is_get ? get_dashboard(l, conn, id)
			      : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
					      "dashboard takes GET");
	return respond_error(conn, MHD_HTTP_NOT_FOUND, NULL, "no such resource");
}

static enum MHD_Result route(const struct api_listener *l, struct MHD_Connection *conn,
			     const char *url, const char *method, const struct api_req *req)
{
	int is_get = !strcmp(method, "GET"), is_post = !strcmp(method, "POST");

	if (!strcmp(url, "/v1/health"))
		return is_get ? get_health(l, conn)
			      : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
					      "health takes GET");
	if (!strcmp(url, "/v1/jobs"))
		return is_get    ? get_jobs(l, conn)
		       : is_post ? post_job(l, conn, req)
				 : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
						 "jobs takes GET or POST");
	if (!strcmp(url, "/v1/events"))
		return is_get ? get_events(l, conn)
			      : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
					      "events takes GET");
	if (!strncmp(url, "/v1/jobs/", 9))
		return route_job(l, conn, method, url + 9, is_get, is_post);
	if (!strcmp(url, "/v1/alerts"))
		return is_get ? get_alerts(l, conn)
			      : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
					      "alerts takes GET");
	if (!strcmp(url, "/v1/trends"))
		return is_get ? get_trends(l, conn)
			      : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
					      "trends takes GET");
	if (web_is_page(url))
		return serve_page(l, conn, url, method, req);
	if (!strncmp(url, "/v1/alerts/", 11))
		return is_post ? post_alert(l, conn, url + 11, req)
			       : respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
					       "an alert takes POST");
	return respond_error(conn, MHD_HTTP_NOT_FOUND, NULL, "no such resource: %.200s", url);
}

/* The largest body url takes: a page's form is small. */
static size_t body_max(const char *url)
{
	return web_is_page(url) ? WEB_MAX_FORM : API_MAX_BODY;
}

/* Whether a request announces a body larger than url takes. */
static int announced_too_large(struct MHD_Connection *conn, const char *url)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);

	return apireq_length_over(cl, body_max(url));
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	const struct api_listener *l = cls;
	struct api_req *req = *con_cls;

	(void)version;
	if (!req) {
		req = calloc(1, sizeof(*req));
		if (!req)
			return MHD_NO;
		*con_cls = req;
		if (l->token[0] && login_ok(l, conn, url, method))
			return page_login(l, conn, url);
		if (!token_ok(l, conn) && !cookie_ok(l, conn, url, method))
			return respond_error(conn, MHD_HTTP_UNAUTHORIZED, NULL,
					     "a bearer token is needed (Authorization: Bearer ...)");
		/* Refused before it is read: the connection is closed after the answer. */
		if (announced_too_large(conn, url))
			return respond_error(conn, MHD_HTTP_CONTENT_TOO_LARGE, NULL,
					     "body: larger than %zu bytes", body_max(url));
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (!req->too_large && req->len + *upload_size <= body_max(url)) {
			char *b = realloc(req->body, req->len + *upload_size + 1);

			if (!b)
				return MHD_NO;
			req->body = b;
			memcpy(req->body + req->len, upload, *upload_size);
			req->len += *upload_size;
		} else {
			req->too_large = 1; /* chunked, without a length: counted as it comes */
		}
		*upload_size = 0;
		return MHD_YES;
	}
	return route(l, conn, url, method, req);
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct api_req *req = *con_cls;

	(void)cls;
	(void)conn;
	(void)toe;
	if (req) {
		free(req->body);
		free(req);
		*con_cls = NULL;
	}
}

/* libmicrohttpd's own messages would go to stderr; the daemon does not print from here. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

/* A connection's memory pool holds its request's headers (a body is copied out as it comes):
 * 64 KiB, not more, since libmicrohttpd maps and clears the whole pool for every connection
 * (256 KiB made a third of a page's time page faults and memset). */
static int listener_start(struct api_listener *l, int fd)
{
	l->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
					MHD_USE_ITC,
				0, NULL, NULL, handle, l, MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)API_CONNECTION_LIMIT,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)API_CONNECTION_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
				MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
				MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL, MHD_OPTION_END);
	return l->d ? 0 : -EIO;
}

int api_start(const struct api_ctx *ctx, int unix_fd, int tcp_fd, const char *token,
	      struct api_server **out)
{
	struct api_server *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->unix_l = (struct api_listener){ .ctx = ctx, .srv = s };
	s->tcp_l = (struct api_listener){ .ctx = ctx, .srv = s };
	if (token)
		snprintf(s->tcp_l.token, sizeof(s->tcp_l.token), "%s", token);
	r = listener_start(&s->unix_l, unix_fd);
	if (r == 0 && tcp_fd >= 0 && !s->tcp_l.token[0])
		r = -EINVAL; /* never TCP without a token */
	if (r == 0 && tcp_fd >= 0)
		r = listener_start(&s->tcp_l, tcp_fd);
	if (r < 0) {
		api_stop(s);
		return r;
	}
	*out = s;
	return 0;
}

void api_stop(struct api_server *s)
{
	if (!s)
		return;
	s->stopping = 1;
	if (s->unix_l.d)
		MHD_stop_daemon(s->unix_l.d);
	if (s->tcp_l.d)
		MHD_stop_daemon(s->tcp_l.d);
	free(s);
}
