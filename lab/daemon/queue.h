/* labd's durable job queue and event log, in SQLite (WAL): one file, STATE/labd/queue.db.
 *
 * A job is the submitted job JSON (kept verbatim) and its state:
 *   queued -> running -> done | failed | cancelled
 *   running -> interrupted (labd died while it ran; queue_recover() puts it back to queued
 *   with the runs that had started recorded as interrupted, so it continues with its next run)
 *   queued -> cancelled (queue_cancel before it started)
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
	QUEUE_INTERRUPTED, /* only between a crash and queue_recover() */
};

const char *queue_state_name(enum queue_state s);
/* -EINVAL for an unknown name. */
int queue_state_parse(const char *name, enum queue_state *out);

struct queue;

/* Open (creating file and directory) the queue at path; -EPROTO for a newer schema, -EBADMSG
 * for a file that is not SQLite, -EBUSY when locked past the busy timeout. */
int queue_open(const char *path, struct queue **out, struct lab_error *err);
void queue_close(struct queue *q);

/* A new queued job; job is the submitted JSON (stored with sorted keys), name its "name"
 * (may be NULL), out_dir where its report goes.  *id is the new job's id (> 0).  Adds an
 * event "accepted". */
int queue_submit(struct queue *q, const json_t *job, const char *name, const char *out_dir,
		 int64_t *id, struct lab_error *err);

/* One job as JSON: {"id", "name", "state", "created", "started", "ended" (ISO 8601 UTC or
 * null), "out_dir", "runs_planned", "runs_done", "exit" (the worker's exit code or null),
 * "error" (or null), "cancel_requested" (bool)}; with_job adds "job" (the submitted JSON).
 * -ENOENT when there is no such job. */
int queue_get(struct queue *q, int64_t id, int with_job, json_t **out, struct lab_error *err);
/* Jobs, newest first, at most limit (0: 1000), only those in state when state >= 0. */
int queue_list(struct queue *q, int state, unsigned limit, json_t **out, struct lab_error *err);

/* The oldest queued job becomes running: *id and its stored job JSON (new reference), or
 * -ENOENT when none is queued.  Adds an event "started". */
int queue_claim(struct queue *q, int64_t *id, json_t **job, struct lab_error *err);
/* A running job ends: state DONE, FAILED or CANCELLED, the worker's exit code (or -1) and
 * an error text (may be NULL).  Adds an event "done" with them. */
int queue_finish(struct queue *q, int64_t id, enum queue_state state, int exit_code,
		 const char *error, struct lab_error *err);
/* Progress the worker saw: runs planned and done so far (either may be -1: unchanged). */
int queue_set_runs(struct queue *q, int64_t id, int planned, int done, struct lab_error *err);

/* Cancel: a queued job becomes cancelled at once (*was_running 0); a running job gets
 * cancel_requested set (*was_running 1: the worker stops it and calls queue_finish);
 * -EALREADY for a job that already ended, -ENOENT for none.  Adds an event "cancel". */
int queue_cancel(struct queue *q, int64_t id, int *was_running, struct lab_error *err);
/* Whether cancel was requested for a running job (0/1), or a negative errno. */
int queue_cancel_requested(struct queue *q, int64_t id);

/* Append an event of type for job (0: the daemon's own) with data (may be NULL; not taken).
 * *seq (may be NULL) gets its sequence number. */
int queue_event(struct queue *q, int64_t job, const char *type, const json_t *data,
		int64_t *seq, struct lab_error *err);
/* Events with seq > since, oldest first, at most limit (0: 1000), only job's when job > 0:
 * [{"seq", "time", "job", "type", "data"}].  *last gets the highest seq in the log (so a
 * client that got nothing can wait from there). */
int queue_events(struct queue *q, int64_t since, int64_t job, unsigned limit, json_t **out,
		 int64_t *last, struct lab_error *err);

/* After a restart: every job still "running" was cut short.  Each becomes queued again, with
 * an event "interrupted" whose data says which runs had started and not ended (from its
 * "run-started"/"run-ended" events); those indices are returned per job by
 * queue_interrupted_runs so the worker records them as interrupted instead of running them
 * twice.  *n gets how many jobs were recovered. */
int queue_recover(struct queue *q, unsigned *n, struct lab_error *err);
/* The run indices (JSON array of integers, new reference) recorded as cut short for job by
 * queue_recover, over all its restarts; an empty array when none. */
int queue_interrupted_runs(struct queue *q, int64_t id, json_t **out, struct lab_error *err);

/* Block until the log has an event with seq > since or timeout_s passed (events added
 * through this struct queue wake it at once): 1 when there is one, 0 on timeout. */
int queue_wait(struct queue *q, int64_t since, double timeout_s);

/* Counts per state: {"queued": N, "running": N, ...}. */
int queue_counts(struct queue *q, json_t **out, struct lab_error *err);
