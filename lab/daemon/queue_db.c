/* Statements with bound values and rows as JSON, for labd's queue (queue_db.h). */
#include "daemon/queue_db.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "history/sql.h"
#include "util/cleanup.h"

static int bind_one(sqlite3_stmt *st, int i, const struct queue_db_val *v)
{
	if (v->kind == QUEUE_DB_INT)
		return sqlite3_bind_int64(st, i, v->i);
	if (v->kind == QUEUE_DB_TEXT && v->s)
		return sqlite3_bind_text(st, i, v->s, -1, SQLITE_TRANSIENT);
	return sqlite3_bind_null(st, i);
}

static int prepare(sqlite3 *db, const char *sql, const struct queue_db_val *v, size_t n,
		   sqlite3_stmt **st, struct lab_error *err)
{
	int r = sql_prepare(db, sql, st, err), rc;

	for (size_t i = 0; r == 0 && i < n; i++)
		if ((rc = bind_one(*st, (int)i + 1, &v[i])) != SQLITE_OK)
			r = sql_fail(db, rc, "binding a value", err);
	if (r < 0) {
		sqlite3_finalize(*st);
		*st = NULL;
	}
	return r;
}

int queue_db_exec(sqlite3 *db, const char *sql, const char *what, const struct queue_db_val *v,
		  size_t n, struct lab_error *err)
{
	sqlite3_stmt *st = NULL;
	int r = prepare(db, sql, v, n, &st, err);

	if (r == 0)
		r = sql_step_done(db, st, what, err);
	sqlite3_finalize(st);
	return r < 0 ? r : sqlite3_changes(db);
}

int queue_db_int(sqlite3 *db, const char *sql, const struct queue_db_val *v, size_t n,
		 int64_t dflt, int64_t *out, struct lab_error *err)
{
	sqlite3_stmt *st = NULL;
	int r = prepare(db, sql, v, n, &st, err), rc;

	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : dflt;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_fail(db, rc, "reading", err);
}

json_t *queue_db_text(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j || !(copy = strdup(s)))
		return j;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

static int col_json(sqlite3_stmt *st, int i, enum queue_db_kind kind, json_t **out)
{
	/* The type first: reading the value as text would convert it. */
	int type = sqlite3_column_type(st, i);
	const char *text;
	json_error_t je;

	switch (type) {
	case SQLITE_NULL:
		*out = json_null();
		return 0;
	case SQLITE_INTEGER:
		*out = kind == QUEUE_DB_BOOL ? json_boolean(sqlite3_column_int64(st, i))
					     : json_integer(sqlite3_column_int64(st, i));
		return *out ? 0 : -ENOMEM;
	}
	if (!(text = (const char *)sqlite3_column_text(st, i)))
		return -ENOMEM;
	if (kind != QUEUE_DB_JSON) {
		*out = queue_db_text(text);
		return *out ? 0 : -ENOMEM;
	}
	*out = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
	return *out ? 0 : -EBADMSG;
}

static int row_json(sqlite3_stmt *st, const struct queue_db_col *cols, size_t n, json_t **out)
{
	_cleanup_json_ json_t *o = NULL;
	json_t *v;
	int r;

	if (!cols)
		return col_json(st, 0, QUEUE_DB_VALUE, out);
	if (!(o = json_object()))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if ((r = col_json(st, (int)i, cols[i].kind, &v)) < 0)
			return r;
		if (json_object_set_new(o, cols[i].name, v) < 0)
			return -ENOMEM;
	}
	*out = TAKE_PTR(o);
	return 0;
}

int queue_db_rows(sqlite3 *db, const char *sql, const struct queue_db_val *v, size_t n,
		  const struct queue_db_col *cols, size_t ncols, json_t **out,
		  struct lab_error *err)
{
	_cleanup_json_ json_t *a = json_array();
	sqlite3_stmt *st = NULL;
	int r = a ? prepare(db, sql, v, n, &st, err) : -ENOMEM, rc = SQLITE_DONE;
	json_t *row;

	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((r = row_json(st, cols, ncols, &row)) == 0 && json_array_append_new(a, row) < 0)
			r = -ENOMEM;
	sqlite3_finalize(st);
	if (r == -EBADMSG)
		error_set(err, "", "a stored JSON value is broken");
	if (r == 0 && rc != SQLITE_DONE)
		r = sql_fail(db, rc, "reading", err);
	if (r == 0)
		*out = TAKE_PTR(a);
	return r;
}
