/* labd's durable job queue and event log (queue.h): SQLite through lab/history/sql.h. */
#include "daemon/queue.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/queue_db.h"
#include "history/sql.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/exitcode.h"
#include "util/fs.h"

/* Marks the file as labd's queue (PRAGMA application_id, "nlqu"). */
#define QUEUE_APP_ID 0x6e6c7175
#define STR_(x) #x
#define STR(x) STR_(x)

/* labd is one process per state dir (its lock file) with one writing connection: another
 * writer is only someone with the sqlite3 shell or a backup, worth waiting for a while. */
#define QUEUE_BUSY_MS 10000
/* A listing's size when the caller gives none. */
#define QUEUE_LIMIT 1000
/* The longest queue_wait: a timeout beyond it is cut (no overflow of the deadline). */
#define QUEUE_WAIT_MAX_S 86400.0

/* The time of a row: SQLite's clock in UTC, ISO 8601 to the second. */
#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/* The schema, in order; never edit a step that was released: add one.  AUTOINCREMENT: a job
 * id or an event seq is never reused, even after the newest row went. */
static const struct migration migrations[] = {
	{ 1,
	  "CREATE TABLE jobs ("
	  " id INTEGER PRIMARY KEY AUTOINCREMENT,"
	  " name TEXT,"
	  " state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed',"
	  "  'cancelled', 'interrupted')),"
	  " created TEXT NOT NULL, started TEXT, ended TEXT,"
	  " out_dir TEXT,"
	  " runs_planned INTEGER, runs_done INTEGER NOT NULL DEFAULT 0,"
	  " exit_code INTEGER, error TEXT,"
	  " cancel_requested INTEGER NOT NULL DEFAULT 0,"
	  " job TEXT NOT NULL);"                 /* the submitted JSON, sorted keys */
	  "CREATE INDEX jobs_state ON jobs (state, id);"
	  "CREATE TABLE events ("
	  " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
	  " time TEXT NOT NULL,"
	  " job INTEGER NOT NULL,"               /* 0: the daemon's own */
	  " type TEXT NOT NULL,"
	  " data TEXT);"                         /* JSON, sorted keys; NULL: none */
	  "CREATE INDEX events_job ON events (job, seq);"
	  "PRAGMA application_id = " STR(QUEUE_APP_ID) ";"
	  "PRAGMA user_version = 1;" },
	{ 2,
	  "ALTER TABLE jobs ADD COLUMN host_class TEXT;"   /* asked for at submit; NULL: any */
	  "ALTER TABLE jobs ADD COLUMN backend_id TEXT;"   /* e.g. the Slurm job id */
	  "PRAGMA user_version = 2;" },
	{ 3,
	  "ALTER TABLE jobs ADD COLUMN submitted_by TEXT;" /* the submitter's user; NULL: unknown */
	  "PRAGMA user_version = 3;" },
};

#define NR_MIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))

static const struct sql_kind queue_kind = {
	.app_id = QUEUE_APP_ID,
	.what = "a labd queue",
	.busy_ms = QUEUE_BUSY_MS,
	.steps = migrations,
	.nr_steps = NR_MIGRATIONS,
};

/* Two connections: the calls that change something take lock and db; those that only read
 * (the pages, the API's listings, the worker's look at the queue) take rlock and rdb, so that
 * a submission never waits behind a page's query, nor a page behind a commit's fsync (WAL: a
 * read sees the commits made before it began). */
struct queue {
	sqlite3 *db;
	sqlite3 *rdb;
	char *dir;              /* the file's directory, absolute: default out_dirs below it */
	pthread_mutex_t lock;   /* held by every call that writes, and by queue_wait */
	pthread_mutex_t rlock;  /* held by every call that only reads */
	pthread_cond_t added;   /* broadcast when a call that added events ends */
	int own;                /* the unit of work begin() started (sql_begin's own) */
	int new_events;         /* this call added events */
};

static const char *const state_names[] = {
	[QUEUE_QUEUED] = "queued",       [QUEUE_RUNNING] = "running",
	[QUEUE_DONE] = "done",           [QUEUE_FAILED] = "failed",
	[QUEUE_CANCELLED] = "cancelled", [QUEUE_INTERRUPTED] = "interrupted",
};

#define NR_STATES ((int)(sizeof(state_names) / sizeof(state_names[0])))

const char *queue_state_name(enum queue_state s)
{
	return (int)s >= 0 && (int)s < NR_STATES ? state_names[s] : "unknown";
}

int queue_state_parse(const char *name, enum queue_state *out)
{
	for (int i = 0; name && i < NR_STATES; i++)
		if (!strcmp(name, state_names[i])) {
			*out = (enum queue_state)i;
			return 0;
		}
	return -EINVAL;
}

enum queue_state queue_state_of_exit(int code)
{
	return code == EXIT_BAD_INPUT || code >= EXIT_LAB_ERROR ? QUEUE_FAILED : QUEUE_DONE;
}

static int state_ended(enum queue_state s)
{
	return s == QUEUE_DONE || s == QUEUE_FAILED || s == QUEUE_CANCELLED;
}

/* ---- rows ------------------------------------------------------------------------------ */

static const struct queue_db_col job_cols[] = {
	{ "id", QUEUE_DB_VALUE },        { "name", QUEUE_DB_VALUE },
	{ "state", QUEUE_DB_VALUE },     { "created", QUEUE_DB_VALUE },
	{ "started", QUEUE_DB_VALUE },   { "ended", QUEUE_DB_VALUE },
	{ "out_dir", QUEUE_DB_VALUE },   { "runs_planned", QUEUE_DB_VALUE },
	{ "runs_done", QUEUE_DB_VALUE }, { "exit", QUEUE_DB_VALUE },
	{ "error", QUEUE_DB_VALUE },     { "cancel_requested", QUEUE_DB_BOOL },
	{ "host_class", QUEUE_DB_VALUE }, { "backend_id", QUEUE_DB_VALUE },
	{ "who", QUEUE_DB_VALUE },
	{ "job", QUEUE_DB_JSON },        /* last: left out unless asked for */
};
#define JOB_COLS                                                                               \
	"SELECT id, name, state, created, started, ended, out_dir, runs_planned, runs_done,"   \
	" exit_code, error, cancel_requested, host_class, backend_id, submitted_by, job FROM jobs"
#define NR_JOB_COLS (sizeof(job_cols) / sizeof(job_cols[0]))

static const struct queue_db_col event_cols[] = {
	{ "seq", QUEUE_DB_VALUE },  { "time", QUEUE_DB_VALUE }, { "job", QUEUE_DB_VALUE },
	{ "type", QUEUE_DB_VALUE }, { "data", QUEUE_DB_JSON },
};
#define NR_EVENT_COLS (sizeof(event_cols) / sizeof(event_cols[0]))

static int no_job(struct lab_error *err, int64_t id)
{
	error_set(err, "", "no job %lld", (long long)id);
	return -ENOENT;
}

/* ---- calls: a unit of work under lock, a read under rlock ----------------------------- */

static int begin(struct queue *q, struct lab_error *err)
{
	int r;

	pthread_mutex_lock(&q->lock);
	r = sql_begin(q->db, &q->own, err);
	if (r < 0)
		pthread_mutex_unlock(&q->lock);
	return r;
}

/* End the unit begin() started: commit when r >= 0, else roll back; then wake queue_wait's
 * callers when it added events.  r, or the commit's error. */
static int end(struct queue *q, int r, struct lab_error *err)
{
	int e = sql_end(q->db, q->own, r >= 0, err);

	if (r >= 0 && e < 0)
		r = e;
	if (r >= 0 && q->new_events)
		pthread_cond_broadcast(&q->added);
	q->new_events = 0;
	pthread_mutex_unlock(&q->lock);
	return r;
}

/* A call that only reads: rdb in one read transaction, under rlock. */
static int read_begin(struct queue *q, struct lab_error *err)
{
	int r;

	pthread_mutex_lock(&q->rlock);
	if ((r = sql_read_begin(q->rdb, err)) < 0)
		pthread_mutex_unlock(&q->rlock);
	return r;
}

static int read_end(struct queue *q, int r)
{
	sql_read_end(q->rdb);
	pthread_mutex_unlock(&q->rlock);
	return r;
}

static int add_event(struct queue *q, int64_t job, const char *type, const json_t *data,
		     int64_t *seq, struct lab_error *err)
{
	_cleanup_free_ char *text = NULL;
	int r;

	if (data && !(text = json_dumps(data, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY)))
		return -ENOMEM;
	r = queue_db_exec(q->db, "INSERT INTO events (time, job, type, data)"
				 " VALUES (" NOW ", ?1, ?2, ?3)", "adding an event",
			  VALS(VINT(job), VTEXT(type), VTEXT(text)), err);
	if (r < 0)
		return r;
	if (seq)
		*seq = sqlite3_last_insert_rowid(q->db);
	q->new_events = 1;
	return 0;
}

/* add_event with data made by json_pack (NULL: it failed), taken. */
static int add_event_new(struct queue *q, int64_t job, const char *type, json_t *data,
			 struct lab_error *err)
{
	_cleanup_json_ json_t *d = data;

	return d ? add_event(q, job, type, d, NULL, err) : -ENOMEM;
}

/* A job's state and cancel_requested (may be NULL); -ENOENT when there is no such job. */
static int job_state(struct queue *q, int64_t id, enum queue_state *state, int *cancel,
		     struct lab_error *err)
{
	static const struct queue_db_col cols[] = { { "state", QUEUE_DB_VALUE },
						    { "cancel", QUEUE_DB_BOOL } };
	_cleanup_json_ json_t *rows = NULL;
	json_t *row;
	int r = queue_db_rows(q->db, "SELECT state, cancel_requested FROM jobs WHERE id = ?1",
			      VALS(VINT(id)), cols, 2, &rows, err);

	if (r < 0)
		return r;
	if (!(row = json_array_get(rows, 0)))
		return no_job(err, id);
	if (cancel)
		*cancel = json_is_true(json_object_get(row, "cancel"));
	if (queue_state_parse(json_string_value(json_object_get(row, "state")), state) == 0)
		return 0;
	error_set(err, "", "job %lld is in an unknown state", (long long)id);
	return -EBADMSG;
}

/* The state of a job that has not ended: -EALREADY for one that has, -ENOENT for none. */
static int live_job(struct queue *q, int64_t id, enum queue_state *now, struct lab_error *err)
{
	int r = job_state(q, id, now, NULL, err);

	if (r == 0 && state_ended(*now)) {
		error_set(err, "", "job %lld already ended (%s)", (long long)id,
			  queue_state_name(*now));
		r = -EALREADY;
	}
	return r;
}

/* The job ends in state (exit < 0 and error NULL: none), with an event "done". */
static int end_job(struct queue *q, int64_t id, enum queue_state state, int exit_code,
		   const char *error, struct lab_error *err)
{
	int r = queue_db_exec(q->db, "UPDATE jobs SET state = ?2, ended = " NOW ","
				     " exit_code = ?3, error = ?4 WHERE id = ?1", "ending a job",
			      VALS(VINT(id), VTEXT(queue_state_name(state)),
				   exit_code < 0 ? VNULL : VINT(exit_code), VTEXT(error)), err);

	if (r < 0)
		return r;
	return add_event_new(q, id, "done",
			     json_pack("{s:s, s:o, s:o}", "state", queue_state_name(state), "exit",
				       exit_code < 0 ? json_null() : json_integer(exit_code),
				       "error", error ? queue_db_text(error) : json_null()),
			     err);
}

/* ---- opening ----------------------------------------------------------------------------- */

static int init_sync(struct queue *q)
{
	pthread_condattr_t attr;
	int r;

	if ((r = pthread_mutex_init(&q->lock, NULL)) != 0 ||
	    (r = pthread_mutex_init(&q->rlock, NULL)) != 0)
		return -r;
	if ((r = pthread_condattr_init(&attr)) != 0)
		return -r;
	/* queue_wait's deadline on the monotonic clock: a changed wall clock moves no timeout. */
	r = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (r == 0)
		r = pthread_cond_init(&q->added, &attr);
	pthread_condattr_destroy(&attr);
	return -r;
}

/* The absolute directory of path (it exists: sql_open made it). */
static int file_dir(const char *path, char **out, struct lab_error *err)
{
	_cleanup_free_ char *dir = fs_dirname(path);
	int r;

	if (!dir)
		return -ENOMEM;
	if ((*out = realpath(dir, NULL)))
		return 0;
	r = -errno;
	error_set(err, "", "cannot resolve its directory %s: %s", dir, strerror(-r));
	return r;
}

int queue_open(const char *path, struct queue **out, struct lab_error *err)
{
	struct queue *q;
	int r, rc;

	*out = NULL;
	error_set_file(err, path);
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	if ((r = init_sync(q)) < 0) {
		free(q);
		return r;
	}
	r = sql_open(path, 1, &queue_kind, &q->db, err);
	/* The queue is the daemon's memory: a commit is on disk before the call returns, also
	 * in WAL mode (whose default would only keep the file consistent). */
	if (r == 0 && (rc = sqlite3_exec(q->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL)))
		r = sql_fail(q->db, rc, "setting synchronous", err);
	if (r == 0)
		r = sql_open_reader(path, &queue_kind, &q->rdb, err);
	if (r == 0)
		r = file_dir(path, &q->dir, err);
	if (r < 0) {
		queue_close(q);
		return r;
	}
	*out = q;
	return 0;
}

void queue_close(struct queue *q)
{
	if (!q)
		return;
	sqlite3_close(q->rdb);
	sqlite3_close(q->db);
	pthread_cond_destroy(&q->added);
	pthread_mutex_destroy(&q->rlock);
	pthread_mutex_destroy(&q->lock);
	free(q->dir);
	free(q);
}

/* ---- jobs -------------------------------------------------------------------------------- */

static int insert_job(struct queue *q, const char *text, const char *name, const char *out_dir,
		      const char *host_class, const char *who, int64_t *id, struct lab_error *err)
{
	_cleanup_free_ char *dflt = NULL;
	int r = queue_db_exec(q->db, "INSERT INTO jobs (name, state, created, out_dir, job,"
				     " host_class, submitted_by) VALUES (?1, 'queued', " NOW ", ?2,"
				     " ?3, ?4, ?5)", "adding the job",
			      VALS(VTEXT(name), VTEXT(out_dir), VTEXT(text), VTEXT(host_class),
				   VTEXT(who)), err);

	if (r < 0)
		return r;
	*id = sqlite3_last_insert_rowid(q->db);
	if (out_dir)
		return 0;
	/* Its id is known only now. */
	if (asprintf(&dflt, "%s/jobs/%lld/report", q->dir, (long long)*id) < 0)
		return -ENOMEM;
	r = queue_db_exec(q->db, "UPDATE jobs SET out_dir = ?2 WHERE id = ?1",
			  "setting the report directory", VALS(VINT(*id), VTEXT(dflt)), err);
	return r < 0 ? r : 0;
}

int queue_submit(struct queue *q, const json_t *job, const char *name, const char *out_dir,
		 const char *host_class, const char *who, int64_t *id, struct lab_error *err)
{
	_cleanup_free_ char *text = NULL;
	int r;

	if (!json_is_object(job))
		return error_set(err, "", "a job must be a JSON object");
	if (!(text = json_dumps(job, JSON_SORT_KEYS | JSON_COMPACT)))
		return -ENOMEM;
	if ((r = begin(q, err)) < 0)
		return r;
	r = insert_job(q, text, name, out_dir, host_class, who, id, err);
	if (r == 0)
		r = add_event_new(q, *id, "accepted",
				  json_pack("{s:o, s:s?}", "name",
					    name ? queue_db_text(name) : json_null(), "host_class",
					    host_class),
				  err);
	return end(q, r, err);
}

/* One text column of job id set (sql binds the id as ?1 and value as ?2). */
static int set_text(struct queue *q, int64_t id, const char *sql, const char *what,
		    const char *value, struct lab_error *err)
{
	int r = begin(q, err);

	if (r < 0)
		return r;
	r = queue_db_exec(q->db, sql, what, VALS(VINT(id), VTEXT(value)), err);
	if (r == 0)
		r = no_job(err, id);
	return end(q, r < 0 ? r : 0, err);
}

int queue_set_backend_id(struct queue *q, int64_t id, const char *backend_id,
			 struct lab_error *err)
{
	return set_text(q, id, "UPDATE jobs SET backend_id = ?2 WHERE id = ?1",
			"recording the backend's job id", backend_id, err);
}

/* rows as sql and its values make them, in one unit of work (a call that only reads). */
static int read_rows(struct queue *q, const char *sql, const struct queue_db_val *v, size_t n,
		     const struct queue_db_col *cols, size_t ncols, json_t **out,
		     struct lab_error *err)
{
	_cleanup_json_ json_t *rows = NULL;
	int r = read_begin(q, err);

	if (r < 0)
		return r;
	r = read_end(q, queue_db_rows(q->rdb, sql, v, n, cols, ncols, &rows, err));
	if (r == 0)
		*out = TAKE_PTR(rows);
	return r;
}

int queue_get(struct queue *q, int64_t id, int with_job, json_t **out, struct lab_error *err)
{
	_cleanup_json_ json_t *rows = NULL;
	int r = read_rows(q, JOB_COLS " WHERE id = ?1", VALS(VINT(id)), job_cols,
			  NR_JOB_COLS - !with_job, &rows, err);

	if (r < 0)
		return r;
	if (!json_array_size(rows))
		return no_job(err, id);
	*out = json_incref(json_array_get(rows, 0));
	return 0;
}

int queue_list(struct queue *q, int state, unsigned limit, json_t **out, struct lab_error *err)
{
	if (state >= NR_STATES)
		return error_set(err, "", "unknown state %d", state);
	return read_rows(q, JOB_COLS " WHERE ?1 IS NULL OR state = ?1 ORDER BY id DESC LIMIT ?2",
			 VALS(state < 0 ? VNULL : VTEXT(state_names[state]),
			      VINT(limit ? limit : QUEUE_LIMIT)),
			 job_cols, NR_JOB_COLS - 1, out, err);
}

int queue_list_named(struct queue *q, enum queue_state state, const char *name, unsigned limit,
		     json_t **out, struct lab_error *err)
{
	if ((unsigned)state >= NR_STATES)
		return error_set(err, "", "unknown state %d", (int)state);
	return read_rows(q, JOB_COLS " WHERE state = ?1 AND name = ?2 ORDER BY id DESC LIMIT ?3",
			 VALS(VTEXT(state_names[state]), VTEXT(name),
			      VINT(limit ? limit : QUEUE_LIMIT)),
			 job_cols, NR_JOB_COLS - 1, out, err);
}

static int claim(struct queue *q, int64_t *id, json_t **job, struct lab_error *err)
{
	static const struct queue_db_col cols[] = { { "id", QUEUE_DB_VALUE },
						    { "job", QUEUE_DB_JSON } };
	_cleanup_json_ json_t *rows = NULL;
	json_t *row;
	int r = queue_db_rows(q->db, "SELECT id, job FROM jobs WHERE state = 'queued'"
				     " ORDER BY id LIMIT 1", NULL, 0, cols, 2, &rows, err);

	if (r < 0)
		return r;
	if (!(row = json_array_get(rows, 0))) {
		error_set(err, "", "no job is queued");
		return -ENOENT;
	}
	*id = json_integer_value(json_object_get(row, "id"));
	/* started: the first start's, kept when a recovered job starts again. */
	r = queue_db_exec(q->db, "UPDATE jobs SET state = 'running',"
				 " started = coalesce(started, " NOW ") WHERE id = ?1",
			  "starting the job", VALS(VINT(*id)), err);
	if (r >= 0)
		r = add_event(q, *id, "started", NULL, NULL, err);
	if (r == 0)
		*job = json_incref(json_object_get(row, "job"));
	return r;
}

int queue_claim(struct queue *q, int64_t *id, json_t **job, struct lab_error *err)
{
	int r = begin(q, err);

	*job = NULL;
	if (r < 0)
		return r;
	r = end(q, claim(q, id, job, err), err);
	if (r < 0 && *job) {
		json_decref(*job);
		*job = NULL;
	}
	return r;
}

static int finish(struct queue *q, int64_t id, enum queue_state state, int exit_code,
		  const char *error, struct lab_error *err)
{
	enum queue_state now;
	int r = live_job(q, id, &now, err);

	if (r < 0)
		return r;
	if (now != QUEUE_RUNNING)
		return error_set(err, "", "job %lld is not running (%s)", (long long)id,
				 queue_state_name(now));
	return end_job(q, id, state, exit_code, error, err);
}

int queue_finish(struct queue *q, int64_t id, enum queue_state state, int exit_code,
		 const char *error, struct lab_error *err)
{
	int r;

	if (!state_ended(state))
		return error_set(err, "", "a job cannot end as %s", queue_state_name(state));
	if ((r = begin(q, err)) < 0)
		return r;
	return end(q, finish(q, id, state, exit_code, error, err), err);
}

int queue_set_runs(struct queue *q, int64_t id, int planned, int done, struct lab_error *err)
{
	int r = begin(q, err);

	if (r < 0)
		return r;
	r = queue_db_exec(q->db, "UPDATE jobs SET runs_planned = coalesce(?2, runs_planned),"
				 " runs_done = coalesce(?3, runs_done) WHERE id = ?1",
			  "setting the runs",
			  VALS(VINT(id), planned < 0 ? VNULL : VINT(planned),
			       done < 0 ? VNULL : VINT(done)), err);
	if (r == 0)
		r = no_job(err, id);
	return end(q, r < 0 ? r : 0, err);
}

/* ---- cancel ------------------------------------------------------------------------------ */

static int cancel_job(struct queue *q, int64_t id, int *was_running, struct lab_error *err)
{
	enum queue_state now;
	int r = live_job(q, id, &now, err);

	if (r < 0)
		return r;
	*was_running = now != QUEUE_QUEUED;
	r = queue_db_exec(q->db, "UPDATE jobs SET cancel_requested = 1 WHERE id = ?1",
			  "cancelling", VALS(VINT(id)), err);
	if (r >= 0)
		r = add_event_new(q, id, "cancel",
				  json_pack("{s:b}", "was_running", *was_running), err);
	/* A queued job has no worker to stop it: it ends here. */
	if (r == 0 && !*was_running)
		r = end_job(q, id, QUEUE_CANCELLED, -1, NULL, err);
	return r;
}

int queue_cancel(struct queue *q, int64_t id, int *was_running, struct lab_error *err)
{
	int r = begin(q, err);

	*was_running = 0;
	return r < 0 ? r : end(q, cancel_job(q, id, was_running, err), err);
}

int queue_cancel_requested(struct queue *q, int64_t id)
{
	enum queue_state state;
	int cancel = 0, r = begin(q, NULL);

	if (r < 0)
		return r;
	r = end(q, job_state(q, id, &state, &cancel, NULL), NULL);
	return r < 0 ? r : cancel;
}

/* ---- events ------------------------------------------------------------------------------ */

int queue_event(struct queue *q, int64_t job, const char *type, const json_t *data,
		int64_t *seq, struct lab_error *err)
{
	enum queue_state state;
	int r;

	if (job < 0 || !type || !type[0])
		return error_set(err, "", "an event needs a type and a job id >= 0");
	if ((r = begin(q, err)) < 0)
		return r;
	r = job ? job_state(q, job, &state, NULL, err) : 0;
	if (r == 0)
		r = add_event(q, job, type, data, seq, err);
	return end(q, r, err);
}

static int last_seq(sqlite3 *db, int64_t *last, struct lab_error *err)
{
	return queue_db_int(db, "SELECT coalesce(max(seq), 0) FROM events", NULL, 0, 0, last,
			    err);
}

static int events(sqlite3 *db, int64_t since, int64_t job, unsigned limit, json_t **out,
		  int64_t *last, struct lab_error *err)
{
	int r = queue_db_rows(db, "SELECT seq, time, job, type, data FROM events"
				     " WHERE seq > ?1 AND (?2 <= 0 OR job = ?2) ORDER BY seq LIMIT ?3",
			      VALS(VINT(since), VINT(job), VINT(limit ? limit : QUEUE_LIMIT)),
			      event_cols, NR_EVENT_COLS, out, err);

	return r < 0 ? r : last_seq(db, last, err);
}

int queue_last_seq(struct queue *q, int64_t *last, struct lab_error *err)
{
	int r = read_begin(q, err);

	return r < 0 ? r : read_end(q, last_seq(q->rdb, last, err));
}

int queue_events(struct queue *q, int64_t since, int64_t job, unsigned limit, json_t **out,
		 int64_t *last, struct lab_error *err)
{
	_cleanup_json_ json_t *rows = NULL;
	int r = read_begin(q, err);

	if (r < 0)
		return r;
	r = read_end(q, events(q->rdb, since, job, limit, &rows, last, err));
	if (r == 0)
		*out = TAKE_PTR(rows);
	return r;
}

int queue_wait(struct queue *q, int64_t since, double timeout_s)
{
	struct timespec until =
		clock_deadline(timeout_s < QUEUE_WAIT_MAX_S ? timeout_s : QUEUE_WAIT_MAX_S);
	int64_t last = 0;
	int r;

	pthread_mutex_lock(&q->lock);
	/* Wake-ups can be spurious or for events of no interest: the log says, not the signal. */
	while ((r = last_seq(q->db, &last, NULL)) == 0 && last <= since)
		if (pthread_cond_timedwait(&q->added, &q->lock, &until) == ETIMEDOUT) {
			r = last_seq(q->db, &last, NULL);
			break;
		}
	pthread_mutex_unlock(&q->lock);
	return r < 0 ? r : last > since;
}

/* ---- restart recovery ------------------------------------------------------------------ */

/* The runs of job ?1 that started and did not end since its latest start. */
static const char CUT_RUNS_SQL[] =
	"WITH since AS (SELECT coalesce(max(seq), 0) AS seq FROM events"
	"  WHERE job = ?1 AND type = 'started'),"
	" ev AS (SELECT type, json_extract(data, '$.index') AS i FROM events"
	"  WHERE job = ?1 AND seq > (SELECT seq FROM since)"
	"  AND type IN ('run-started', 'run-ended'))"
	" SELECT i FROM ev WHERE type = 'run-started' AND typeof(i) = 'integer'"
	" EXCEPT SELECT i FROM ev WHERE type = 'run-ended' ORDER BY 1";

static int recover_one(struct queue *q, int64_t id, struct lab_error *err)
{
	_cleanup_json_ json_t *runs = NULL;
	enum queue_state state;
	int cancel = 0, r = job_state(q, id, &state, &cancel, err);

	if (r == 0)
		r = queue_db_rows(q->db, CUT_RUNS_SQL, VALS(VINT(id)), NULL, 0, &runs, err);
	if (r == 0)
		r = add_event_new(q, id, "interrupted", json_pack("{s:O}", "runs", runs), err);
	if (r < 0)
		return r;
	/* Cancelled before the crash: the user wanted it stopped, and it is. */
	if (cancel)
		return end_job(q, id, QUEUE_CANCELLED, -1, "labd stopped while it ran", err);
	r = queue_db_exec(q->db, "UPDATE jobs SET state = 'queued' WHERE id = ?1",
			  "re-queueing the job", VALS(VINT(id)), err);
	return r < 0 ? r : 0;
}

static int recover(struct queue *q, unsigned *n, struct lab_error *err)
{
	_cleanup_json_ json_t *ids = NULL;
	int r = queue_db_rows(q->db, "SELECT id FROM jobs WHERE state IN ('running', 'interrupted')"
				     " ORDER BY id", NULL, 0, NULL, 0, &ids, err);

	for (size_t i = 0; r == 0 && i < json_array_size(ids); i++)
		r = recover_one(q, json_integer_value(json_array_get(ids, i)), err);
	if (r == 0)
		*n = (unsigned)json_array_size(ids);
	return r;
}

int queue_recover(struct queue *q, unsigned *n, struct lab_error *err)
{
	int r = begin(q, err);

	*n = 0;
	return r < 0 ? r : end(q, recover(q, n, err), err);
}

static int interrupted_runs(struct queue *q, int64_t id, json_t **out, struct lab_error *err)
{
	enum queue_state state;
	int r = job_state(q, id, &state, NULL, err);

	if (r < 0)
		return r;
	return queue_db_rows(q->db, "SELECT DISTINCT r.value"
				    " FROM events, json_each(events.data, '$.runs') r"
				    " WHERE events.job = ?1 AND events.type = 'interrupted'"
				    " AND r.type = 'integer' ORDER BY 1",
			     VALS(VINT(id)), NULL, 0, out, err);
}

int queue_interrupted_runs(struct queue *q, int64_t id, json_t **out, struct lab_error *err)
{
	_cleanup_json_ json_t *runs = NULL;
	int r = begin(q, err);

	if (r < 0)
		return r;
	r = end(q, interrupted_runs(q, id, &runs, err), err);
	if (r == 0)
		*out = TAKE_PTR(runs);
	return r;
}

/* ---- counts ------------------------------------------------------------------------------ */

int queue_queued_ids(struct queue *q, int64_t **ids, size_t *n, struct lab_error *err)
{
	static const struct queue_db_col cols[] = { { "id", QUEUE_DB_VALUE } };
	_cleanup_json_ json_t *rows = NULL;
	json_t *row;
	size_t i;
	int r = read_rows(q, "SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT ?1",
			  VALS(VINT(QUEUE_MAX_QUEUED)), cols, 1, &rows, err);

	*ids = NULL;
	*n = 0;
	if (r < 0)
		return r;
	if (!(*ids = calloc(json_array_size(rows) + 1, sizeof(**ids))))
		return -ENOMEM;
	json_array_foreach(rows, i, row)
		(*ids)[i] = json_integer_value(json_object_get(row, "id"));
	*n = json_array_size(rows);
	return 0;
}

int queue_counts(struct queue *q, json_t **out, struct lab_error *err)
{
	static const struct queue_db_col cols[] = { { "state", QUEUE_DB_VALUE },
						    { "n", QUEUE_DB_VALUE } };
	_cleanup_json_ json_t *rows = NULL, *o = json_object();
	int r = o ? read_rows(q, "SELECT state, count(*) FROM jobs GROUP BY state", NULL, 0, cols,
			      2, &rows, err) : -ENOMEM;
	size_t i;
	json_t *row;

	/* Every state a job rests in, also at 0; "interrupted" is never stored (queue.h). */
	for (int s = 0; r == 0 && s < NR_STATES; s++)
		if (s != QUEUE_INTERRUPTED && json_object_set_new(o, state_names[s], json_integer(0)))
			r = -ENOMEM;
	json_array_foreach(rows, i, row)
		if (r == 0 && json_object_set(o, json_string_value(json_object_get(row, "state")),
					      json_object_get(row, "n")) < 0)
			r = -ENOMEM;
	if (r == 0)
		*out = TAKE_PTR(o);
	return r;
}
