/* Read-only SQLite connections shared by threads (sqlpool.h). */
#include "history/sqlpool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct sql_pool {
	pthread_mutex_t lock;
	pthread_cond_t freed;   /* a connection came back */
	size_t n;
	sqlite3 **db;
	unsigned char *busy;    /* busy[i]: db[i] is handed out */
};

static int open_reader(const char *path, const struct sql_kind *kind, sqlite3 **db,
		       struct lab_error *err)
{
	/* NOMUTEX: the pool hands a connection to one thread at a time. */
	int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc != SQLITE_OK)
		return sql_fail(*db, rc, "cannot open for reading", err);
	sqlite3_busy_timeout(*db, kind->busy_ms);
	sqlite3_db_config(*db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(*db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	return 0;
}

int sql_pool_open(const char *path, const struct sql_kind *kind, size_t n,
		  struct sql_pool **out, struct lab_error *err)
{
	struct sql_pool *p;
	int r = 0;

	*out = NULL;
	if (!n)
		return -EINVAL;
	if (!(p = calloc(1, sizeof(*p))))
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->freed, NULL);
	p->db = calloc(n, sizeof(*p->db));
	p->busy = calloc(n, 1);
	if (!p->db || !p->busy)
		r = -ENOMEM;
	/* sqlite3_open_v2 gives a handle also when it fails: counted, to be closed. */
	for (size_t i = 0; r == 0 && i < n; i++) {
		r = open_reader(path, kind, &p->db[i], err);
		p->n = i + 1;
	}
	if (r < 0) {
		sql_pool_close(p);
		return r;
	}
	*out = p;
	return 0;
}

void sql_pool_close(struct sql_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		sqlite3_close(p->db[i]);
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->lock);
	free(p->db);
	free(p->busy);
	free(p);
}

int sql_pool_get(struct sql_pool *p, sqlite3 **db, struct lab_error *err)
{
	size_t i;
	int rc;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		for (i = 0; i < p->n && p->busy[i]; i++)
			;
		if (i < p->n)
			break;
		pthread_cond_wait(&p->freed, &p->lock);
	}
	p->busy[i] = 1;
	pthread_mutex_unlock(&p->lock);
	*db = p->db[i];
	/* A deferred BEGIN takes its snapshot at the first read: every statement until put
	 * then sees the same file. */
	rc = sqlite3_exec(*db, "BEGIN", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		return 0;
	rc = sql_fail(*db, rc, "starting a read", err);
	sql_pool_put(p, *db);
	*db = NULL;
	return rc;
}

void sql_pool_put(struct sql_pool *p, sqlite3 *db)
{
	/* Reads change nothing: a COMMIT that fails has nothing to lose, ROLLBACK ends it. */
	if (!sqlite3_get_autocommit(db) && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->n; i++)
		if (p->db[i] == db)
			p->busy[i] = 0;
	pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->lock);
}
