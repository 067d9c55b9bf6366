/* SQLite plumbing of the lab's files (the history index, labd's queue): opening one, errors
 * as negative errnos, transactions that nest, bound values, and schema migrations.  Nothing
 * here prints.
 *
 * Migrations are an ordered table of SQL steps; the version a file is at is its PRAGMA
 * user_version.  Each step's SQL sets user_version to its own version as its last statement:
 * PRAGMA takes no bound parameters, so the number is part of the step's constant text, never
 * formatted in. */
#pragma once
#include <sqlite3.h>
#include <stddef.h>

#include "util/error.h"

/* An SQLite result code as a negative errno; err gets "WHAT: db's message". */
int sql_fail(sqlite3 *db, int rc, const char *what, struct lab_error *err);

/* Start a unit of work: outside a transaction BEGIN IMMEDIATE (take the write lock first, so
 * that two processes queue on the busy timeout instead of one failing to upgrade a read),
 * inside one a savepoint.  *own says which, for sql_end. */
int sql_begin(sqlite3 *db, int *own, struct lab_error *err);
/* Commit (ok) or roll back the unit sql_begin started.  Rolling back never fails the caller. */
int sql_end(sqlite3 *db, int own, int ok, struct lab_error *err);

int sql_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, struct lab_error *err);
/* "" binds NULL (absent), as does a non-finite double (SQLite has no NaN). */
int sql_bind_text(sqlite3_stmt *st, int i, const char *s);
int sql_bind_real(sqlite3_stmt *st, int i, double v);
/* Step a statement that returns no rows, then reset it for the next use. */
int sql_step_done(sqlite3 *db, sqlite3_stmt *st, const char *what, struct lab_error *err);
/* Column i as text into dst (cut, "" for NULL); as a double (NAN for NULL). */
void sql_column_text(sqlite3_stmt *st, int i, char *dst, size_t len);
double sql_column_real(sqlite3_stmt *st, int i);

struct migration {
	int version;        /* 1, 2, ...: the version the file is at after this step */
	const char *sql;    /* statements, ending with "PRAGMA user_version = VERSION;" */
};

/* The integer the constant statement sql returns (a PRAGMA, a count). */
int sql_query_int(sqlite3 *db, const char *sql, int *out, struct lab_error *err);
/* Bring db up to steps[n-1].version: every step newer than the file, in order, in one unit of
 * work (sql_begin), so that a failing step leaves the file as it was.  -EPROTO when the file's
 * version is newer than the last step (written by a newer lab: never touched); -EIO when a
 * step fails or does not end at its version; err says which. */
int sql_migrate(sqlite3 *db, const struct migration *steps, size_t n, struct lab_error *err);

/* What kind of file the lab keeps in SQLite. */
struct sql_kind {
	int app_id;                      /* its PRAGMA application_id: the file is this lab's */
	const char *what;                /* "a history index", for messages */
	int busy_ms;                     /* how long a writer waits for another */
	const struct migration *steps;   /* its schema (sql_migrate) */
	size_t nr_steps;
};

/* Open (with create: make the file and its directory) path as a file of kind: busy timeout,
 * defensive mode, foreign keys, WAL, then refused unless new or marked with kind's app_id
 * (-EBADMSG: another program's, or no SQLite file at all), then migrated (sql_migrate:
 * -EPROTO for a newer file).  *db is closed again on failure; err says why. */
int sql_open(const char *path, int create, const struct sql_kind *kind, sqlite3 **db,
	     struct lab_error *err);
/* A second, read-only connection to a file this process opened with sql_open: for readers
 * that must not queue behind the writer's commits (in WAL mode a read never waits for a
 * writer, and sees every commit made before it began).  The same checks as sql_open; no
 * migration (the writer's open did it). */
int sql_open_reader(const char *path, const struct sql_kind *kind, sqlite3 **db,
		    struct lab_error *err);
/* A read transaction (BEGIN DEFERRED: no write lock): the statements between the two see one
 * snapshot. */
int sql_read_begin(sqlite3 *db, struct lab_error *err);
void sql_read_end(sqlite3 *db);
