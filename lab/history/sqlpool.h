/* Read-only connections to one of the lab's SQLite files, shared by threads: labd's pages and
 * listings read through them, so that a page being rendered never holds the one writing
 * connection a submission waits for, and two pages read at once.  In WAL mode readers block
 * neither the writer nor each other; each read sees every transaction committed before it
 * began.  Nothing here prints. */
#pragma once
#include <sqlite3.h>
#include <stddef.h>

#include "history/sql.h"
#include "util/error.h"

struct sql_pool;

/* n read-only connections to path, a file of kind that sql_open already opened, checked and
 * migrated (the pool writes nothing, so it can do neither). */
int sql_pool_open(const char *path, const struct sql_kind *kind, size_t n,
		  struct sql_pool **out, struct lab_error *err);
void sql_pool_close(struct sql_pool *p);

/* A free connection (waiting for one when all are in use) with a read transaction begun: the
 * statements run on it until sql_pool_put see one snapshot of the file. */
int sql_pool_get(struct sql_pool *p, sqlite3 **db, struct lab_error *err);
/* End db's read transaction and give it back. */
void sql_pool_put(struct sql_pool *p, sqlite3 *db);
