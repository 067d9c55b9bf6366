/* The read-only connections of history/sqlpool.h on a WAL file in a temporary directory: a
 * read sees what was committed before it began; a read holds its snapshot while the writer
 * commits and sees the commit at its next get; a read goes on while the writer holds a write
 * transaction open (what labd's pages need: a submission never waits for a page, nor a page
 * for a submission); with every connection handed out, a get waits for a put; a reader cannot
 * write; a file that is not there is refused. */
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "history/sql.h"
#include "history/sqlpool.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/fs.h"

static char tmp[] = "/tmp/numalab-test-sqlpool.XXXXXX";

static const struct migration steps[] = {
	{ 1, "CREATE TABLE t (v INTEGER); PRAGMA user_version = 1;" },
};
static const struct sql_kind kind = {
	.app_id = 0, .what = "a test file", .busy_ms = 2000, .steps = steps, .nr_steps = 1,
};

static int count(sqlite3 *db)
{
	int n = -1;

	return sql_query_int(db, "SELECT count(*) FROM t", &n, NULL) == 0 ? n : -1;
}

static int insert(sqlite3 *db)
{
	return sqlite3_exec(db, "INSERT INTO t VALUES (1)", NULL, NULL, NULL);
}

struct waiter {
	struct sql_pool *p;
	int got;        /* set once its get returned */
};

static void *get_one(void *arg)
{
	struct waiter *w = arg;
	sqlite3 *db = NULL;

	if (sql_pool_get(w->p, &db, NULL) == 0) {
		__atomic_store_n(&w->got, 1, __ATOMIC_SEQ_CST);
		sql_pool_put(w->p, db);
	}
	return NULL;
}

static void test_blocking(const char *path)
{
	struct sql_pool *p = NULL;
	struct waiter w = { 0 };
	sqlite3 *held = NULL;
	pthread_t t;

	if (!tap_ok(sql_pool_open(path, &kind, 1, &p, NULL) == 0, "a pool of one"))
		return;
	tap_ok(sql_pool_get(p, &held, NULL) == 0, "its one connection handed out");
	w.p = p;
	pthread_create(&t, NULL, get_one, &w);
	usleep(200000);
	tap_ok(!__atomic_load_n(&w.got, __ATOMIC_SEQ_CST), "a second get waits while it is out");
	sql_pool_put(p, held);
	pthread_join(t, NULL);
	tap_ok(w.got, "... and returns once it is put back");
	sql_pool_close(p);
}

int main(void)
{
	_cleanup_free_ char *path = NULL, *missing = NULL;
	struct sql_pool *p = NULL, *none = NULL;
	struct lab_error err = { 0 };
	sqlite3 *w = NULL, *r = NULL;

	if (!mkdtemp(tmp))
		return tap_ok(0, "mkdtemp"), tap_done();
	path = fs_join(tmp, "test.db");
	missing = fs_join(tmp, "none/test.db");
	if (!tap_ok(sql_open(path, 1, &kind, &w, &err) == 0, "the writer opens %s", path) ||
	    !tap_ok(sql_pool_open(path, &kind, 4, &p, &err) == 0, "a pool of 4 readers")) {
		printf("# %s\n", err.msg);
		return tap_done();
	}
	tap_ok(insert(w) == SQLITE_OK, "the writer commits a row");
	tap_ok(sql_pool_get(p, &r, NULL) == 0 && count(r) == 1, "a read sees the committed row");
	tap_ok(insert(w) == SQLITE_OK, "the writer commits another while the read is open");
	tap_ok(count(r) == 1, "the open read keeps its snapshot");
	tap_ok(insert(r) != SQLITE_OK, "a reader cannot write");
	sql_pool_put(p, r);
	tap_ok(sql_pool_get(p, &r, NULL) == 0 && count(r) == 2, "its next get sees the new row");
	sql_pool_put(p, r);

	tap_ok(sqlite3_exec(w, "BEGIN IMMEDIATE; INSERT INTO t VALUES (2)", NULL, NULL, NULL) ==
		       SQLITE_OK, "the writer holds a write transaction open");
	tap_ok(sql_pool_get(p, &r, NULL) == 0 && count(r) == 2,
	       "a read goes on beside it and sees only what was committed");
	sql_pool_put(p, r);
	tap_ok(sqlite3_exec(w, "COMMIT", NULL, NULL, NULL) == SQLITE_OK, "the writer commits");
	tap_ok(sql_pool_get(p, &r, NULL) == 0 && count(r) == 3, "the next read sees it");
	sql_pool_put(p, r);
	sql_pool_close(p);

	test_blocking(path);
	tap_ok(sql_pool_open(missing, &kind, 2, &none, &err) < 0 && !none,
	       "a pool on a file that is not there: refused (%s)", err.msg);
	tap_ok(sql_pool_open(path, &kind, 0, &none, NULL) == -EINVAL, "a pool of none: -EINVAL");
	sqlite3_close(w);
	fs_rm_rf(tmp);
	return tap_done();
}
