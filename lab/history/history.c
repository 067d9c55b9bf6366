/* The history index: opening, the schema and its migrations, indexing report files
 * (history.h).  The queries are in query.c. */
#include "history/history.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/runreport.h"
#include "history/history_db.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"

/* Marks the file as this lab's (PRAGMA application_id, "nlhx"), so that --db pointed at
 * another program's SQLite file is refused instead of getting tables added or dropped. */
#define HISTORY_APP_ID 0x6e6c6878
#define STR_(x) #x
#define STR(x) STR_(x)

/* How long a writer waits for another (a `lab run` indexing while a rebuild runs). */
#define HISTORY_BUSY_MS 30000

/* The schema, in order; never edit a step that was released: add one.  Every table created
 * here is dropped by RESET_SQL but the alerts' (alerts.h: set by people, not made from
 * reports), which are therefore created "IF NOT EXISTS": a reset migrates from 0 again. */
static const struct migration migrations[] = {
	{ 1,
	  "CREATE TABLE reports ("
	  " id INTEGER PRIMARY KEY,"
	  " path TEXT NOT NULL UNIQUE,"        /* absolute */
	  " sha256 TEXT NOT NULL,"             /* of the file's bytes */
	  " report_id TEXT, created TEXT, job TEXT, status TEXT, schema TEXT);"
	  "CREATE INDEX reports_created ON reports (created);"
	  "CREATE TABLE runs ("
	  " report INTEGER NOT NULL REFERENCES reports (id) ON DELETE CASCADE,"
	  " idx INTEGER NOT NULL, status TEXT, kernel TEXT NOT NULL, variant TEXT, release TEXT,"
	  " source TEXT, source_commit TEXT, build_key TEXT, timing TEXT NOT NULL, accel TEXT,"
	  " uri TEXT, qemu_version TEXT, contended INTEGER NOT NULL,"
	  " guests_at_once INTEGER NOT NULL,"
	  " PRIMARY KEY (report, idx));"
	  "CREATE INDEX runs_kernel ON runs (kernel);"
	  "CREATE TABLE series ("
	  " report INTEGER NOT NULL REFERENCES reports (id) ON DELETE CASCADE,"
	  " kernel TEXT NOT NULL, timing TEXT NOT NULL, topology TEXT NOT NULL,"
	  " workload TEXT NOT NULL, params TEXT NOT NULL, tasks INTEGER NOT NULL,"
	  " metric TEXT NOT NULL, unit TEXT NOT NULL,"
	  " better TEXT NOT NULL CHECK (better IN ('higher', 'lower')),"
	  " is_primary INTEGER NOT NULL, mean_kind TEXT NOT NULL,"
	  " boots INTEGER NOT NULL, n_values INTEGER NOT NULL,"
	  " mean REAL, cv_between REAL, cv_within REAL);"   /* NULL: undefined */
	  "CREATE INDEX series_report ON series (report);"
	  "CREATE INDEX series_metric ON series (workload, metric);"
	  "PRAGMA application_id = " STR(HISTORY_APP_ID) ";"
	  "PRAGMA user_version = 1;" },
	/* What exactly booted (reports' kernel.image_sha256 and config_sha256). */
	{ 2,
	  "ALTER TABLE runs ADD COLUMN image_sha256 TEXT;"
	  "ALTER TABLE runs ADD COLUMN config_sha256 TEXT;"
	  "PRAGMA user_version = 2;" },
	/* Nightly's alerts and their triage (alerts.h). */
	{ 3,
	  "CREATE TABLE IF NOT EXISTS alerts ("
	  " id INTEGER PRIMARY KEY,"
	  " source TEXT NOT NULL, ledger TEXT NOT NULL, job TEXT NOT NULL, series TEXT NOT NULL,"
	  " night TEXT NOT NULL, commit_sha TEXT NOT NULL,"
	  " direction TEXT NOT NULL CHECK (direction IN ('regression', 'improvement')),"
	  " change_pct REAL, culprit TEXT, report TEXT, raised_at TEXT NOT NULL,"
	  " state TEXT NOT NULL CHECK (state IN ('new', 'acknowledged', 'invalid', 'fixed')),"
	  " fixed_by TEXT, who TEXT, at TEXT, note TEXT, reopened INTEGER NOT NULL DEFAULT 0,"
	  " UNIQUE (ledger, job, series, night));"
	  "CREATE TABLE IF NOT EXISTS alert_events ("
	  " id INTEGER PRIMARY KEY,"
	  " alert INTEGER NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,"
	  " at TEXT NOT NULL, who TEXT, state TEXT NOT NULL, fixed_by TEXT, note TEXT);"
	  "PRAGMA user_version = 3;" },
};

#define NR_MIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))

/* Children first: dropping a parent would check the children's references. */
static const char RESET_SQL[] = "DROP TABLE IF EXISTS series; DROP TABLE IF EXISTS runs;"
				"DROP TABLE IF EXISTS reports; PRAGMA user_version = 0;";

int history_schema_version(void)
{
	return migrations[NR_MIGRATIONS - 1].version;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h);
}

static const struct sql_kind history_kind = {
	.app_id = HISTORY_APP_ID,
	.what = "a history index",
	.busy_ms = HISTORY_BUSY_MS,
	.steps = migrations,
	.nr_steps = NR_MIGRATIONS,
};

int history_open(const char *path, int create, struct history **out, struct lab_error *err)
{
	struct history *h;
	int r;

	*out = NULL;
	error_set_file(err, path);
	if (!create && !fs_exists(path)) {
		error_set(err, "", "no history index yet ('lab history rebuild' makes one)");
		return -ENOENT;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	r = sql_open(path, create, &history_kind, &h->db, err);
	if (r < 0) {
		free(h);
		return r;
	}
	*out = h;
	return 0;
}

int history_begin(struct history *h, struct lab_error *err)
{
	int rc = sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sql_fail(h->db, rc, "starting a transaction", err);
}

int history_commit(struct history *h, struct lab_error *err)
{
	return sql_end(h->db, 1, 1, err);
}

void history_rollback(struct history *h)
{
	sql_end(h->db, 1, 0, NULL);
}

int history_reset(struct history *h, struct lab_error *err)
{
	int rc = sqlite3_exec(h->db, RESET_SQL, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return sql_fail(h->db, rc, "dropping the index", err);
	return sql_migrate(h->db, migrations, NR_MIGRATIONS, err);
}

/* ---- writing one report's rows ------------------------------------------------------- */

static int insert_report(struct history *h, const struct history_report *r,
			 sqlite3_int64 *id, struct lab_error *err)
{
	sqlite3_stmt *st = NULL;
	int e = sql_prepare(h->db, "INSERT INTO reports (path, sha256, report_id, created, job, "
				   "status, schema) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st, err);

	if (e < 0)
		return e;
	sql_bind_text(st, 1, r->path);
	sql_bind_text(st, 2, r->sha256);
	sql_bind_text(st, 3, r->id);
	sql_bind_text(st, 4, r->created);
	sql_bind_text(st, 5, r->job);
	sql_bind_text(st, 6, r->status);
	sql_bind_text(st, 7, r->schema);
	e = sql_step_done(h->db, st, "adding the report", err);
	*id = sqlite3_last_insert_rowid(h->db);
	sqlite3_finalize(st);
	return e;
}

static void bind_run(sqlite3_stmt *st, sqlite3_int64 id, const struct history_report *r,
		     size_t i)
{
	const struct history_run *u = &r->runs[i];

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, u->index);
	sql_bind_text(st, 3, u->status);
	sql_bind_text(st, 4, u->kernel);
	sql_bind_text(st, 5, u->variant);
	sql_bind_text(st, 6, u->release);
	sql_bind_text(st, 7, u->source);
	sql_bind_text(st, 8, u->commit);
	sql_bind_text(st, 9, u->build_key);
	sql_bind_text(st, 10, u->timing);
	sql_bind_text(st, 11, u->accel);
	sql_bind_text(st, 12, u->uri);
	sql_bind_text(st, 13, u->qemu);
	sqlite3_bind_int(st, 14, u->contended);
	sqlite3_bind_int64(st, 15, u->guests_at_once);
	sql_bind_text(st, 16, u->image_sha256);
	sql_bind_text(st, 17, u->config_sha256);
}

static const char RUN_SQL[] =
	"INSERT INTO runs (report, idx, status, kernel, variant, release, source, source_commit,"
	" build_key, timing, accel, uri, qemu_version, contended, guests_at_once, image_sha256,"
	" config_sha256)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";

static void bind_series(sqlite3_stmt *st, sqlite3_int64 id, const struct history_report *r,
			size_t i)
{
	const struct history_series *s = &r->series[i];

	sqlite3_bind_int64(st, 1, id);
	sql_bind_text(st, 2, s->kernel);
	sql_bind_text(st, 3, s->timing);
	sqlite3_bind_text(st, 4, s->key.topology, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, s->key.workload, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, s->key.params, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, s->key.tasks);
	sqlite3_bind_text(st, 8, s->key.metric, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, s->key.unit, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 10, s->key.higher ? "higher" : "lower", -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 11, s->key.primary);
	sqlite3_bind_text(st, 12, s->mean_kind == STATS_HARMONIC ? "harmonic" : "arithmetic", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(st, 13, (sqlite3_int64)s->boots);
	sqlite3_bind_int64(st, 14, (sqlite3_int64)s->values);
	sql_bind_real(st, 15, s->mean);
	sql_bind_real(st, 16, s->cv_between);
	sql_bind_real(st, 17, s->cv_within);
}

static const char SERIES_SQL[] =
	"INSERT INTO series (report, kernel, timing, topology, workload, params, tasks, metric,"
	" unit, better, is_primary, mean_kind, boots, n_values, mean, cv_between, cv_within)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";

/* n rows of report id by one statement: bind(st, id, r, i) binds row i. */
static int insert_rows(struct history *h, const char *sql, sqlite3_int64 id,
		       const struct history_report *r, size_t n,
		       void (*bind)(sqlite3_stmt *, sqlite3_int64, const struct history_report *,
				    size_t),
		       struct lab_error *err)
{
	sqlite3_stmt *st = NULL;
	int e = sql_prepare(h->db, sql, &st, err);

	for (size_t i = 0; e == 0 && i < n; i++) {
		bind(st, id, r, i);
		e = sql_step_done(h->db, st, "adding a row", err);
	}
	sqlite3_finalize(st);
	return e;
}

/* Remove the rows of path (its runs and series go with it: ON DELETE CASCADE). */
static int forget(struct history *h, const char *path, struct lab_error *err)
{
	sqlite3_stmt *st = NULL;
	int e = sql_prepare(h->db, "DELETE FROM reports WHERE path = ?1", &st, err);

	if (e == 0) {
		sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
		e = sql_step_done(h->db, st, "removing a report", err);
	}
	sqlite3_finalize(st);
	return e;
}

/* Replace the rows of r->path by r's, as one unit. */
static int store(struct history *h, const struct history_report *r, struct lab_error *err)
{
	sqlite3_int64 id = 0;
	int own, e;

	if ((e = sql_begin(h->db, &own, err)) < 0)
		return e;
	e = forget(h, r->path, err);
	if (e == 0)
		e = insert_report(h, r, &id, err);
	if (e == 0)
		e = insert_rows(h, RUN_SQL, id, r, r->nr_runs, bind_run, err);
	if (e == 0)
		e = insert_rows(h, SERIES_SQL, id, r, r->nr_series, bind_series, err);
	if (e < 0) {
		sql_end(h->db, own, 0, NULL);
		return e;
	}
	return sql_end(h->db, own, 1, err);
}

/* ---- indexing a file ------------------------------------------------------------------ */

/* The hash path was indexed with: *had 0 when it was not. */
static int lookup(struct history *h, const char *path, char sha[HISTORY_HEX], int *had,
		  struct lab_error *err)
{
	sqlite3_stmt *st = NULL;
	int e = sql_prepare(h->db, "SELECT sha256 FROM reports WHERE path = ?1", &st, err), rc;

	*had = 0;
	if (e < 0)
		return e;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		sql_column_text(st, 0, sha, HISTORY_HEX);
		*had = 1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_fail(h->db, rc, "looking up", err);
}

/* A report that cannot be indexed: its rows from an earlier version go, err says why. */
static int skip(struct history *h, const char *path, int had, struct lab_error *err)
{
	struct lab_error ignored = { 0 };
	int e = had ? forget(h, path, &ignored) : 0;

	if (e < 0)
		*err = ignored;
	return e;
}

/* The file's bytes and their hash; 1 when it cannot be read (err says why). */
static int read_bytes(const char *path, char **buf, size_t *len, char sha[HISTORY_HEX],
		      struct lab_error *err)
{
	int r = fs_read_file(path, RUNREPORT_MAX_SIZE, buf, len);

	if (r == -ENOMEM)
		return r;
	if (r == -EFBIG)
		return error_set(err, "", "larger than %u bytes", RUNREPORT_MAX_SIZE), 1;
	if (r < 0)
		return error_set(err, "", "cannot read: %s", strerror(-r)), 1;
	return sha256_hex(*buf, *len, sha);
}

int history_index_file(struct history *h, const char *path, enum history_indexed *what,
		       struct lab_error *err)
{
	char real[PATH_MAX], sha[HISTORY_HEX], old[HISTORY_HEX];
	_cleanup_free_ char *buf = NULL;
	_cleanup_json_ json_t *doc = NULL;
	struct history_report rows;
	size_t len = 0;
	int had, r;

	*what = HISTORY_SKIPPED;
	error_set_file(err, path);
	/* One key per file however it is named (reports/x, ./reports/x, a symlink). */
	if (!realpath(path, real)) {
		error_set(err, "", "cannot resolve the path: %s", strerror(errno));
		return 0;
	}
	if ((r = lookup(h, real, old, &had, err)) < 0)
		return r;
	if ((r = read_bytes(real, &buf, &len, sha, err)) != 0)
		return r < 0 ? r : skip(h, real, had, err);
	if (had && !strcmp(old, sha)) {
		*what = HISTORY_UNCHANGED;
		return 0;
	}
	if (jsonio_load_buf(buf, len, &doc, err) < 0)
		return skip(h, real, had, err);
	r = history_rows_from_report(doc, real, sha, &rows, err);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return skip(h, real, had, err);
	r = store(h, &rows, err);
	history_report_free(&rows);
	if (r == 0)
		*what = had ? HISTORY_REPLACED : HISTORY_ADDED;
	return r;
}
