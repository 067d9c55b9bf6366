/* Inside labd's queue only (queue.c): statements with bound values, and rows as JSON.  Each
 * function prepares, binds, steps and finalizes one statement; errors as negative errnos with
 * err saying why (history/sql.h's sql_fail).  Nothing here prints. */
#pragma once
#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* A value to bind: an integer, text (a NULL string binds NULL) or NULL. */
struct queue_db_val {
	enum { QUEUE_DB_INT, QUEUE_DB_TEXT, QUEUE_DB_NULL } kind;
	sqlite3_int64 i;
	const char *s;
};

#define VINT(x) ((struct queue_db_val){ .kind = QUEUE_DB_INT, .i = (x) })
#define VTEXT(x) ((struct queue_db_val){ .kind = QUEUE_DB_TEXT, .s = (x) })
#define VNULL ((struct queue_db_val){ .kind = QUEUE_DB_NULL })
/* The values of ?1, ?2, ... as the two arguments (array, length) the functions below take. */
#define VALS(...)                                                                              \
	(const struct queue_db_val[]){ __VA_ARGS__ },                                          \
		sizeof((const struct queue_db_val[]){ __VA_ARGS__ }) / sizeof(struct queue_db_val)

/* Run a statement that returns no rows: how many rows it changed, or a negative errno. */
int queue_db_exec(sqlite3 *db, const char *sql, const char *what, const struct queue_db_val *v,
		  size_t n, struct lab_error *err);
/* The first column of the first row as an integer; dflt when there is no row. */
int queue_db_int(sqlite3 *db, const char *sql, const struct queue_db_val *v, size_t n,
		 int64_t dflt, int64_t *out, struct lab_error *err);

enum queue_db_kind {
	QUEUE_DB_VALUE, /* integer, text or null as it is */
	QUEUE_DB_BOOL,
	QUEUE_DB_JSON,  /* JSON text this program stored, parsed (-EBADMSG when it is not) */
};

/* A column of a row and the key it gets in the row's object. */
struct queue_db_col {
	const char *name;
	enum queue_db_kind kind;
};

/* Every row of sql as a JSON array (*out, new): with cols, each row an object of its first
 * ncols columns; with cols NULL, each row its first column's value. */
int queue_db_rows(sqlite3 *db, const char *sql, const struct queue_db_val *v, size_t n,
		  const struct queue_db_col *cols, size_t ncols, json_t **out,
		  struct lab_error *err);

/* s as a JSON string; a string that is not UTF-8 (an error text from anywhere) becomes an
 * ASCII copy with '?' for every byte above 0x7f rather than no string at all.  NULL: ENOMEM. */
json_t *queue_db_text(const char *s);
