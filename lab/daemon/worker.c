/* labd's worker (worker.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include "core/outcome.h"
#include "daemon/worker.h"
#include "daemon/worker_slurm.h"
#include "run/jobload.h"
#include "run/plan.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/exitcode.h"
#include "util/fs.h"
#include "util/spawn.h"
#include "util/text.h"

/* Idle, the worker sleeps until an event: a submission adds one, and so does worker_stop. */
#define WORKER_IDLE_WAIT_S 300.0
#define WORKER_CANCEL_POLL_S 0.5
#define LINE_PREFIX "lab: "

/* "run K/N: booting ...", "run K/N: STATUS (REASON) boot ...", "run K/N: STATUS, not
 * booted: WHY", "run K/N: STATUS, not run again: WHY" (lab/run/engine.c's and resume.c's
 * progress lines); anything else is progress. */
json_t *worker_line_event(const char *line, const char **type)
{
	unsigned k = 0, n = 0;
	int off = -1;
	const char *rest, *p;
	char status[32];
	enum outcome o;
	size_t sl;

	*type = "progress";
	if (!strncmp(line, LINE_PREFIX, strlen(LINE_PREFIX)))
		line += strlen(LINE_PREFIX);
	if (sscanf(line, "run %u/%u: %n", &k, &n, &off) != 2 || off < 0 || k == 0 || k > n)
		return json_pack("{s:s}", "msg", line);
	rest = line + off;
	if (!strncmp(rest, "booting ", 8)) {
		*type = "run-started";
		return json_pack("{s:I, s:I}", "index", (json_int_t)(k - 1), "total", (json_int_t)n);
	}
	sl = strspn(rest, "abcdefghijklmnopqrstuvwxyz-");
	if (sl == 0 || sl >= sizeof(status) || (rest[sl] != ' ' && rest[sl] != ','))
		return json_pack("{s:s}", "msg", line);
	memcpy(status, rest, sl);
	status[sl] = '\0';
	/* Only an outcome ends a run ("run 1/3: kept from the earlier report" does not). */
	if (outcome_parse(status, &o) < 0)
		return json_pack("{s:s}", "msg", line);
	p = rest + sl;
	*type = "run-ended";
	if (p[0] == ' ' && p[1] == '(') {
		const char *end = strstr(p, ") boot ");
		size_t rl = end ? (size_t)(end - p - 2) : strlen(p + 2);

		return json_pack("{s:I, s:I, s:s, s:s%}", "index", (json_int_t)(k - 1), "total",
				 (json_int_t)n, "status", status, "reason", p + 2, rl);
	}
	p += strspn(p, ", ");
	return json_pack("{s:I, s:I, s:s, s:s}", "index", (json_int_t)(k - 1), "total",
			 (json_int_t)n, "status", status, "reason", p);
}

/* One line for labd's log through w->log (the worker itself never prints). */
static void __attribute__((format(printf, 2, 3))) worker_log(struct worker *w, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (!w->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	w->log(line);
}

static void worker_on_line(void *ud, const char *raw)
{
	struct worker *w = ud;
	const char *type;
	/* jansson takes only UTF-8: a line with a byte of a guest's that is not (a console
	 * quoted in a message) was dropped whole; now that byte alone becomes '?'. */
	_cleanup_free_ char *line = strdup(raw);
	_cleanup_json_ json_t *data = NULL;
	struct lab_error err = { 0 };

	if (!line)
		return;
	text_utf8_sanitize(line, strlen(line));
	if (!(data = worker_line_event(line, &type)))
		return;
	/* Every line is progress (what `lab job submit --wait` shows); a run's start and end are
	 * also events of their own, for programs. */
	if (strcmp(type, "progress")) {
		const char *msg = strncmp(line, LINE_PREFIX, strlen(LINE_PREFIX))
					  ? line : line + strlen(LINE_PREFIX);
		_cleanup_json_ json_t *p = json_pack("{s:s}", "msg", msg);

		queue_event(w->q, w->job, "progress", p, NULL, &err);
	}
	queue_event(w->q, w->job, type, data, NULL, &err);
	if (!strcmp(type, "run-started"))
		queue_set_runs(w->q, w->job, (int)json_integer_value(json_object_get(data, "total")),
			       -1, &err);
	else if (!strcmp(type, "run-ended"))
		queue_set_runs(w->q, w->job, -1, (int)++w->runs_ended, &err);
	worker_log(w, "job %lld: %s", (long long)w->job, line);
}

/* Watches for a cancel of the job under way and for the end of the grace period; woken at
 * once when the job ends (worker_run). */
static void *worker_watch(void *arg)
{
	struct worker *w = arg;

	pthread_mutex_lock(&w->wlock);
	while (w->current > 0 && !w->interrupt) {
		struct timespec until;

		if (queue_cancel_requested(w->q, w->current) == 1 ||
		    (w->stopping && clock_now_s() >= w->stop_at)) {
			w->interrupt = 1;
			break;
		}
		until = clock_deadline(WORKER_CANCEL_POLL_S);
		pthread_cond_timedwait(&w->wcond, &w->wlock, &until);
	}
	pthread_mutex_unlock(&w->wlock);
	return NULL;
}

/* "I,J,K" of the job's runs cut short by earlier crashes, or "" when none. */
static void interrupted_arg(struct worker *w, int64_t id, char *buf, size_t len)
{
	_cleanup_json_ json_t *runs = NULL;
	struct lab_error err = { 0 };
	size_t i, n = 0;
	json_t *v;

	buf[0] = '\0';
	if (queue_interrupted_runs(w->q, id, &runs, &err) < 0)
		return;
	json_array_foreach(runs, i, v) {
		int k = snprintf(buf + n, len - n, "%s%lld", n ? "," : "",
				 (long long)json_integer_value(v));

		if (k < 0 || (size_t)k >= len - n)
			break;
		n += (size_t)k;
	}
}

/* ---- the Slurm backend's hooks ---- */

static void slurm_line(void *ud, const char *line)
{
	worker_on_line(ud, line);
}

static void slurm_log(void *ud, const char *msg)
{
	worker_log(ud, "%s", msg);
}

static int slurm_stop(void *ud)
{
	struct worker *w = ud;

	if (queue_cancel_requested(w->q, w->job) == 1)
		return 1;
	return w->stopping ? 2 : 0;
}

static void slurm_submitted(void *ud, long long sid)
{
	struct worker *w = ud;
	struct lab_error err = { 0 };
	char id[32];
	_cleanup_json_ json_t *data = json_pack("{s:I}", "slurm_job", (json_int_t)sid);

	snprintf(id, sizeof(id), "%lld", sid);
	queue_set_backend_id(w->q, w->job, id, &err);
	queue_event(w->q, w->job, "submitted", data, NULL, &err);
}

/* --time: twice the history's estimate and half an hour for builds and boots, else labd's
 * default. */
static unsigned slurm_time(struct worker *w, const json_t *info)
{
	struct lab_error err = { 0 };
	struct job job;
	char rep[256];
	double s;
	unsigned t = w->slurm_time_min;
	_cleanup_free_ char *dir = fs_dirname(json_string_value(json_object_get(info, "out_dir")));

	memset(&job, 0, sizeof(job));
	if (jobload_json(json_object_get(info, "job"), dir ? dir : ".", &job, &err) < 0)
		return t;
	if (plan_estimate(w->state_dir, &job, &s, rep, sizeof(rep)) == 0)
		t = (unsigned)ceil(2 * s * job.repeats * job.nr_kernels / 60) + 30;
	job_free(&job);
	return t;
}

/* One job as a Slurm batch job; *end says how it ended. */
static void worker_run_slurm(struct worker *w, const json_t *info, char *const *argv,
			     const char *jobdir, struct worker_job_end *end)
{
	char output[PATH_MAX + 16];
	const char *known = json_string_value(json_object_get(info, "backend_id"));
	struct worker_slurm_job j = {
		.id = w->job, .known = known ? atoll(known) : 0, .script = w->slurm_script,
		.output = output, .workdir = jobdir,
		.host_class = json_string_value(json_object_get(info, "host_class")),
		.partition = w->slurm_partition, .time_min = slurm_time(w, info), .cmd = argv,
	};
	struct worker_slurm_hooks h = { .line = slurm_line, .log = slurm_log, .stop = slurm_stop,
					.submitted = slurm_submitted, .ud = w };

	snprintf(output, sizeof(output), "%s/slurm.out", jobdir);
	worker_slurm_run(&j, &h, end);
}

/* One job as a child lab run on this machine. */
static void worker_run_local(struct worker *w, char *const *argv, struct worker_job_end *end)
{
	struct spawn_job s = { .argv = argv, .log_fd = -1, .line = worker_on_line, .ud = w,
			       .interrupt = &w->interrupt };
	pthread_t watch;
	int st = 0, r, watching = pthread_create(&watch, NULL, worker_watch, w) == 0;

	r = spawn_run(&s, &st);
	pthread_mutex_lock(&w->wlock);
	w->current = 0;
	pthread_cond_signal(&w->wcond);
	pthread_mutex_unlock(&w->wlock);
	if (watching)
		pthread_join(watch, NULL);
	end->exit_code = r < 0 ? -1 : st;
	if (w->stopping && w->interrupt) {
		end->left_running = 1; /* the next labd continues it with its next run */
	} else if (queue_cancel_requested(w->q, w->job) == 1) {
		end->state = QUEUE_CANCELLED;
		snprintf(end->why, sizeof(end->why), "cancelled");
	} else if (r < 0) {
		end->state = QUEUE_FAILED;
		snprintf(end->why, sizeof(end->why), "%s", strerror(-r));
	} else if ((end->state = queue_state_of_exit(st)) == QUEUE_FAILED) {
		snprintf(end->why, sizeof(end->why), "%s", s.tail_len ? s.tail : "lab run failed");
	}
}

static void worker_run(struct worker *w, int64_t id)
{
	_cleanup_json_ json_t *info = NULL;
	struct lab_error err = { 0 };
	struct worker_job_end end = { .state = QUEUE_DONE, .exit_code = -1 };
	char jobfile[PATH_MAX + 16], out_dir[PATH_MAX], intr[4096];

	if (queue_get(w->q, id, w->slurm, &info, &err) < 0) {
		queue_finish(w->q, id, QUEUE_FAILED, -1, err.msg, &err);
		return;
	}
	snprintf(out_dir, sizeof(out_dir), "%s",
		 json_string_value(json_object_get(info, "out_dir")));
	/* The API wrote job.json beside the report directory. */
	_cleanup_free_ char *jobdir = fs_dirname(out_dir);
	snprintf(jobfile, sizeof(jobfile), "%s/job.json", jobdir ? jobdir : ".");
	interrupted_arg(w, id, intr, sizeof(intr));
	const char *klass = json_string_value(json_object_get(info, "host_class"));
	/* On a Slurm node lab run keeps its own state (its libvirt, KVM verdict and lock, which
	 * the node's epilog and health check watch); only the job's directory is shared. */
	char *argv[14] = { (char *)w->lab_exe, "run", jobfile, "--out", out_dir, "--state",
			   (char *)(w->slurm ? w->slurm_node_state : w->state_dir), "--resume",
			   NULL };
	int argc = 8;

	if (intr[0]) {
		argv[argc++] = "--interrupted";
		argv[argc++] = intr;
	}
	if (klass && klass[0]) { /* a label in the report; Slurm chose the node by it */
		argv[argc++] = "--host-class";
		argv[argc++] = (char *)klass;
	}
	w->job = id;
	w->runs_ended = 0;
	w->interrupt = 0;
	w->current = id;
	worker_log(w, "job %lld: started%s%s", (long long)id,
		intr[0] ? "; runs cut short before, not run again: " : "", intr);
	if (w->slurm) {
		worker_run_slurm(w, info, argv, jobdir ? jobdir : ".", &end);
		w->current = 0;
	} else {
		worker_run_local(w, argv, &end);
	}
	if (end.left_running) {
		/* Left "running": the next labd continues it (its next run, or its Slurm job). */
		worker_log(w, "job %lld: %s", (long long)id,
			   w->slurm ? "left to Slurm by labd's shutdown" : "interrupted by shutdown");
		return;
	}
	queue_finish(w->q, id, end.state, end.exit_code, end.why[0] ? end.why : NULL, &err);
	worker_log(w, "job %lld: %s (exit %d)", (long long)id, queue_state_name(end.state),
		   end.exit_code);
}

/* The highest sequence number in the event log, 0 when unknown (the idle wait then ends at
 * the first event, which is merely early). */
static int64_t worker_last_seq(struct worker *w)
{
	int64_t last = 0;

	if (queue_last_seq(w->q, &last, NULL) < 0)
		return 0;
	return last;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!w->stopping) {
		_cleanup_json_ json_t *job = NULL;
		struct lab_error err = { 0 };
		/* Read before the claim: a job submitted after it is an event after this. */
		int64_t id = 0, last = worker_last_seq(w);
		int r = queue_claim(w->q, &id, &job, &err);

		if (r == 0) {
			worker_run(w, id);
			continue;
		}
		if (r != -ENOENT) {
			worker_log(w, "the queue: %s", err.msg[0] ? err.msg : strerror(-r));
			sleep(1);
			continue;
		}
		if (queue_wait(w->q, last, WORKER_IDLE_WAIT_S) < 0)
			sleep(1);
	}
	return NULL;
}

int worker_start(struct worker *w)
{
	pthread_condattr_t ca;
	int r;

	pthread_mutex_init(&w->wlock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wcond, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&w->thread, NULL, worker_main, w);
	if (r != 0)
		return -r;
	w->started = 1;
	return 0;
}

void worker_stop(struct worker *w, unsigned n)
{
	struct lab_error err = { 0 };
	unsigned i, any = 0;

	for (i = 0; i < n; i++) {
		w[i].stop_at = clock_now_s() + w[i].grace_s;
		w[i].stopping = 1;
		any |= w[i].started;
	}
	if (!any)
		return;
	/* An event of the daemon's own wakes the idle workers at once (and says when labd
	 * stopped in the log). */
	queue_event(w[0].q, 0, "stopping", NULL, NULL, &err);
	for (i = 0; i < n; i++) {
		if (!w[i].started)
			continue;
		pthread_join(w[i].thread, NULL);
		w[i].started = 0;
		pthread_cond_destroy(&w[i].wcond);
		pthread_mutex_destroy(&w[i].wlock);
	}
}

int64_t worker_current(const struct worker *w)
{
	return w->current;
}
