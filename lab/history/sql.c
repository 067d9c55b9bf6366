#include "history/sql.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/fs.h"
#include "util/text.h"

int sql_fail(sqlite3 *db, int rc, const char *what, struct lab_error *err)
{
	error_set(err, "", "%s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	switch (rc & 0xff) {
	case SQLITE_NOMEM: return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED: return -EBUSY;
	case SQLITE_READONLY:
	case SQLITE_PERM: return -EACCES;
	case SQLITE_CANTOPEN: return -ENOENT;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT: return -EBADMSG;
	default: return -EIO;
	}
}

int sql_begin(sqlite3 *db, int *own, struct lab_error *err)
{
	int rc;

	*own = sqlite3_get_autocommit(db);
	rc = sqlite3_exec(db, *own ? "BEGIN IMMEDIATE" : "SAVEPOINT work", NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : sql_fail(db, rc, "starting a transaction", err);
}

int sql_end(sqlite3 *db, int own, int ok, struct lab_error *err)
{
	static const char *const sql[2][2] = {
		{ "ROLLBACK TO work; RELEASE work", "RELEASE work" },
		{ "ROLLBACK", "COMMIT" },
	};
	int rc = sqlite3_exec(db, sql[own != 0][ok != 0], NULL, NULL, NULL);

	if (rc == SQLITE_OK || !ok)
		return 0;
	rc = sql_fail(db, rc, "committing", err);
	/* A failed COMMIT can leave the transaction open: end it, the work is lost either way. */
	if (own && !sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int sql_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, struct lab_error *err)
{
	int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : sql_fail(db, rc, "preparing a statement", err);
}

int sql_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s && s[0] ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT)
			 : sqlite3_bind_null(st, i);
}

int sql_bind_real(sqlite3_stmt *st, int i, double v)
{
	return isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

int sql_step_done(sqlite3 *db, sqlite3_stmt *st, const char *what, struct lab_error *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(db, rc, what, err);
}

void sql_column_text(sqlite3_stmt *st, int i, char *dst, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	text_clean_copy(dst, len, s ? (const char *)s : "");
}

double sql_column_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int sql_query_int(sqlite3 *db, const char *sql, int *out, struct lab_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : sql_fail(db, rc, "reading the file", err);
}

static int apply_steps(sqlite3 *db, const struct migration *steps, size_t n, int from,
		       struct lab_error *err)
{
	for (size_t i = 0; i < n; i++) {
		char *msg = NULL;
		int rc, v;

		if (steps[i].version <= from)
			continue;
		rc = sqlite3_exec(db, steps[i].sql, NULL, NULL, &msg);
		if (rc != SQLITE_OK) {
			error_set(err, "", "schema migration to version %d failed: %s",
				  steps[i].version, msg ? msg : sqlite3_errstr(rc));
			sqlite3_free(msg);
			return -EIO;
		}
		if ((rc = sql_query_int(db, "PRAGMA user_version", &v, err)) < 0)
			return rc;
		if (v != steps[i].version) {
			error_set(err, "", "schema migration to version %d ended at version %d (the "
					   "step must set user_version)", steps[i].version, v);
			return -EIO;
		}
	}
	return 0;
}

int sql_migrate(sqlite3 *db, const struct migration *steps, size_t n, struct lab_error *err)
{
	int own, from, r, last = n ? steps[n - 1].version : 0;

	if ((r = sql_begin(db, &own, err)) < 0)
		return r;
	r = sql_query_int(db, "PRAGMA user_version", &from, err);
	if (r == 0 && from > last) {
		error_set(err, "", "the file is at schema version %d, newer than this lab's %d: a "
				   "newer lab wrote it; use that lab, or another file", from, last);
		r = -EPROTO;
	}
	if (r == 0)
		r = apply_steps(db, steps, n, from, err);
	if (r < 0) {
		sql_end(db, own, 0, NULL);
		return r;
	}
	return sql_end(db, own, 1, err);
}

/* A file that is neither new (no tables, version 0) nor marked as ours is another program's. */
static int check_ours(sqlite3 *db, const struct sql_kind *kind, struct lab_error *err)
{
	int app, version, tables, r;

	if ((r = sql_query_int(db, "PRAGMA application_id", &app, err)) < 0 ||
	    (r = sql_query_int(db, "PRAGMA user_version", &version, err)) < 0 ||
	    (r = sql_query_int(db, "SELECT count(*) FROM sqlite_master", &tables, err)) < 0)
		return r;
	if (app == kind->app_id || (app == 0 && version == 0 && tables == 0))
		return 0;
	error_set(err, "", "an SQLite database of something else (application_id %d, version %d, "
			   "%d schema objects), not %s: not touched", app, version, tables,
		  kind->what);
	return -EBADMSG;
}

static void harden(sqlite3 *db, int busy_ms)
{
	sqlite3_busy_timeout(db, busy_ms);
	/* The file may come from anywhere (--db): no schema-borne SQL functions, no writable
	 * schema tricks. */
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
}

static int configure(sqlite3 *db, int busy_ms, struct lab_error *err)
{
	int rc;

	harden(db, busy_ms);
	rc = sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(db, rc, "enabling foreign keys", err);
	/* WAL: readers do not block the writer; the first statement that reads the file, so a
	 * file that is no database fails here. */
	rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : sql_fail(db, rc, "opening", err);
}

static int make_dir(const char *path, struct lab_error *err)
{
	_cleanup_free_ char *dir = fs_dirname(path);
	int r;

	if (!dir)
		return -ENOMEM;
	r = fs_mkdir_p(dir, 0755);
	if (r < 0)
		error_set(err, "", "cannot create its directory %s: %s", dir, strerror(-r));
	return r;
}

int sql_open(const char *path, int create, const struct sql_kind *kind, sqlite3 **db,
	     struct lab_error *err)
{
	int rc, r;

	*db = NULL;
	if (create && (r = make_dir(path, err)) < 0)
		return r;
	rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
			     NULL);
	r = rc == SQLITE_OK ? 0 : sql_fail(*db, rc, "cannot open", err);
	if (r == 0)
		r = configure(*db, kind->busy_ms, err);
	if (r == 0)
		r = check_ours(*db, kind, err);
	if (r == 0)
		r = sql_migrate(*db, kind->steps, kind->nr_steps, err);
	if (r < 0) {
		sqlite3_close(*db);
		*db = NULL;
	}
	return r;
}

int sql_open_reader(const char *path, const struct sql_kind *kind, sqlite3 **db,
		    struct lab_error *err)
{
	int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL);
	int r = rc == SQLITE_OK ? 0 : sql_fail(*db, rc, "cannot open", err);

	if (r == 0) {
		harden(*db, kind->busy_ms);
		r = check_ours(*db, kind, err);
	}
	if (r < 0) {
		sqlite3_close(*db);
		*db = NULL;
	}
	return r;
}

int sql_read_begin(sqlite3 *db, struct lab_error *err)
{
	int rc = sqlite3_exec(db, "BEGIN DEFERRED", NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sql_fail(db, rc, "starting a read", err);
}

void sql_read_end(sqlite3 *db)
{
	/* Nothing was written: ending it cannot lose anything, and cannot fail a reader. */
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}
