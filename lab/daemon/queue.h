/* labd's durable job queue and event log, in SQLite (WAL): one file, STATE/labd/queue.db.
 *
 * A job is the submitted job JSON (kept verbatim) and its state:
 *   queued -> running -> done | failed | cancelled
 *   running -> interrupted (labd died while it ran; queue_recover() puts it back to queued
 *   with the runs that had started recorded as interrupted, so it continues with its next run;
 *   or to cancelled when its cancel had been requested)
 *   queued -> cancelled (queue_cancel before it started)
 * Times are ISO 8601 UTC to the second ("2026-12-01T01:02:03Z"); JSON is stored with sorted
 * keys.  Errors are negative errnos with err (when not NULL) saying why.
 * Every change of state and everything the worker reports is an event with a sequence number
 * (the table's rowid: strictly increasing, never reused), so a client can follow a job with
 * "events since N".  Schema version in PRAGMA user_version; a newer file is refused.
 * Every statement prepared, every value bound.  Nothing here prints.  One struct queue may be
 * used by several threads at once (the API's and the worker's): each call holds its mutex. */
#pragma once
#include <jansson.h>
#include <stdint.h>

#include "util/error.h"

#define QUEUE_DB_NAME "queue.db"

enum queue_state {
	QUEUE_QUEUED,
	QUEUE_RUNNING,
	QUEUE_DONE,        /* the job ran; its report's status may still be a failed run */
	QUEUE_FAILED,      /* the lab could not run it (lab error) */
	QUEUE_CANCELLED,
	QUEUE_INTERRUPTED, /* only between a crash and queue_recover(): never stored (a job left
			    * "running" is one), never listed or counted */
};

const char *queue_state_name(enum queue_state s);
/* -EINVAL for an unknown name. */
int queue_state_parse(const char *name, enum queue_state *out);

struct queue;

/* Open (creating file and directory) the queue at path; -EPROTO for a newer schema, -EBADMSG
 * for a file that is not SQLite, -EBUSY when locked past the busy timeout. */
int queue_open(const char *path, struct queue **out, struct lab_error *err);
void queue_close(struct queue *q);

/* A new queued job; job is the submitted JSON object (stored with sorted keys; else -EINVAL),
 * name its "name" (may be NULL), out_dir where its report goes (NULL: DIR/jobs/ID/report, DIR
 * the queue file's directory made absolute, i.e. STATE/labd), host_class the class of host it
 * asked for (NULL: any), who the user who submitted it (labd knows it on its unix socket,
 * from the peer's credentials; NULL: unknown), shown by the pages.  *id is the new job's id
 * (> 0, never reused).  Adds an event "accepted" {"name", "host_class" (when given)}.  One
 * commit: a submission is one write to disk. */
int queue_submit(struct queue *q, const json_t *job, const char *name, const char *out_dir,
		 const char *host_class, const char *who, int64_t *id, struct lab_error *err);
/* The id the backend gave the job (the Slurm job id), so that a restarted labd finds it
 * again.  -ENOENT for no job. */
int queue_set_backend_id(struct queue *q, int64_t id, const char *backend_id,
			 struct lab_error *err);

/* One job as JSON: {"id", "name", "state", "created", "started" (its first start), "ended"
 * (ISO 8601 UTC or null), "out_dir", "runs_planned" (null until known), "runs_done" (0 at
 * first), "exit" (the worker's exit code or null), "error" (or null), "cancel_requested"
 * (bool), "host_class" (or null), "backend_id" (the Slurm job id, or null), "who" (who
 * submitted it, queue_set_submitter, or null)}; with_job adds
 * "job" (the submitted JSON).  -ENOENT when there is no such job. */
int queue_get(struct queue *q, int64_t id, int with_job, json_t **out, struct lab_error *err);
/* Jobs (a JSON array of what queue_get makes, without "job"), newest first, at most limit
 * (0: 1000), only those in state when state >= 0 (-EINVAL for no state). */
int queue_list(struct queue *q, int state, unsigned limit, json_t **out, struct lab_error *err);
/* The same of the jobs named name in state, newest first, at most limit (0: 1000): what the
 * pages' estimate of a running job is made from (without listing every other job). */
int queue_list_named(struct queue *q, enum queue_state state, const char *name, unsigned limit,
		     json_t **out, struct lab_error *err);

/* The oldest queued job becomes running: *id and its stored job JSON (new reference), or
 * -ENOENT when none is queued.  Adds an event "started" (data null; also when a recovered job
 * starts again: queue_recover counts runs from the latest one). */
int queue_claim(struct queue *q, int64_t *id, json_t **job, struct lab_error *err);
/* A running job ends: state DONE, FAILED or CANCELLED, the worker's exit code (or -1: null)
 * and an error text (may be NULL; bytes that are not UTF-8 become '?').  Adds an event "done"
 * {"state", "exit", "error"}.  -ENOENT for no job, -EALREADY for one that ended, -EINVAL for
 * one that is not running or another state. */
int queue_finish(struct queue *q, int64_t id, enum queue_state state, int exit_code,
		 const char *error, struct lab_error *err);
/* What `lab run`'s exit code (lab's one table, util/exitcode.h; 128+N a signal) makes of a
 * job that ran: DONE for a verdict (0, 1, 3: the report says the rest), FAILED for bad input
 * or a lab error or a signal. */
enum queue_state queue_state_of_exit(int code);
/* Progress the worker saw: runs planned and done so far (either may be -1: unchanged).
 * -ENOENT for no job.  Adds no event. */
int queue_set_runs(struct queue *q, int64_t id, int planned, int done, struct lab_error *err);

/* Cancel: a queued job becomes cancelled at once (*was_running 0); a running job gets
 * cancel_requested set (*was_running 1: the worker stops it and calls queue_finish);
 * -EALREADY for a job that already ended, -ENOENT for none.  Adds an event "cancel"
 * {"was_running"}, and for a queued job then "done" {"state": "cancelled", "exit": null,
 * "error": null}: whoever follows a job sees its end as "done" in every case. */
int queue_cancel(struct queue *q, int64_t id, int *was_running, struct lab_error *err);
/* Whether cancel was requested for a running job (0/1), or a negative errno (-ENOENT). */
int queue_cancel_requested(struct queue *q, int64_t id);

/* Append an event of type (not empty) for job (0: the daemon's own; else an existing job,
 * -ENOENT otherwise) with data (any JSON value, stored with sorted keys; may be NULL; not
 * taken).  *seq (may be NULL) gets its sequence number.  Wakes queue_wait. */
int queue_event(struct queue *q, int64_t job, const char *type, const json_t *data,
		int64_t *seq, struct lab_error *err);
/* Events with seq > since, oldest first, at most limit (0: 1000), only job's when job > 0:
 * [{"seq", "time", "job", "type", "data"}].  *last gets the highest seq in the log (so a
 * client that got nothing can wait from there). */
int queue_events(struct queue *q, int64_t since, int64_t job, unsigned limit, json_t **out,
		 int64_t *last, struct lab_error *err);

/* The highest sequence number in the event log into *last (0 for an empty log). */
int queue_last_seq(struct queue *q, int64_t *last, struct lab_error *err);

/* After a restart: every job still "running" was cut short.  Each becomes queued again, with
 * an event "interrupted" {"runs": [I...]} saying which runs had started and not ended since
 * its latest "started" event (from its "run-started"/"run-ended" events, by their "index");
 * those indices are returned per job by queue_interrupted_runs so the worker records them as
 * interrupted instead of running them twice.  A job whose cancel had been requested becomes
 * cancelled instead (after its "interrupted" event, an event "done").  *n gets how many jobs
 * were recovered.  Call it once, before the worker claims anything. */
int queue_recover(struct queue *q, unsigned *n, struct lab_error *err);
/* The run indices (JSON array of integers, ascending, each once; new reference) recorded as
 * cut short for job by queue_recover, over all its restarts; an empty array when none;
 * -ENOENT for no job. */
int queue_interrupted_runs(struct queue *q, int64_t id, json_t **out, struct lab_error *err);

/* Block until the log has an event with seq > since or timeout_s passed (events added
 * through this struct queue wake it at once; a timeout is cut to a day): 1 when there is one,
 * 0 on timeout, or a negative errno. */
int queue_wait(struct queue *q, int64_t since, double timeout_s);

/* The queued jobs' ids, oldest first (the order the worker claims them), at most
 * QUEUE_MAX_QUEUED: *ids the caller's to free.  A job's place in line is its index + 1. */
#define QUEUE_MAX_QUEUED 100000
int queue_queued_ids(struct queue *q, int64_t **ids, size_t *n, struct lab_error *err);

/* Counts per state, every state but "interrupted" (also at 0): {"queued": N, "running": N,
 * "done": N, "failed": N, "cancelled": N}. */
int queue_counts(struct queue *q, json_t **out, struct lab_error *err);
