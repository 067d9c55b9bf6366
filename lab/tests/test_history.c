/* The history index (lab/history/history.h) in a temporary directory: reports indexed, listed
 * and followed over time; unchanged files skipped, changed ones replaced; corrupt, truncated,
 * foreign, empty, huge-number and unreadable reports skipped with a reason; a rebuild (and a
 * second index built from the same files) gives the same answers; a rebuild that fails leaves
 * the old index.  The migrations (history/sql.h): an older file is brought up to date, a step
 * that fails leaves it as it was, a newer one or another program's database is refused.  The
 * text of both listings is compared with lab/tests/golden/history-{list,series}.txt and the
 * JSON with history-series.json (UPDATE_GOLDEN=1 rewrites them). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "core/runreport.h"
#include "history/history.h"
#include "history/sql.h"
#include "testutil.h"

static char tmp[] = "/tmp/numalab-test-history.XXXXXX";

/* Good reports: the fixtures, each as reports/NAME/report.json. */
static const char *const good[] = {
	"compare/a.json", "compare/b.json", "compare/ab.json", "compare/real-ab.json",
	"compare/real-quick.json", "history/variant-ab.json",
};
#define NR_GOOD (sizeof(good) / sizeof(good[0]))

static const char nul_report[] = "{\"schema\": \"numalab.report/1\", \"runs\": []}\0garbage";

/* Bad ones: content (len bytes; 0: up to its NUL), and what the reason must say. */
static const struct {
	const char *name, *text;
	size_t len;
	const char *why;
} bad[] = {
	{ "corrupt", "\x7f" "ELF\x01\x02 not json", 0, "invalid JSON" },
	{ "truncated", "{\"schema\": \"numalab.report/1\", \"runs\": [{\"index\": 0, \"sta", 0,
	  "invalid JSON" },
	{ "foreign", "{\"schema\": \"other.report/3\", \"runs\": []}", 0, "this lab reads" },
	{ "empty", "", 0, "invalid JSON" },
	{ "huge-real", "{\"schema\": \"numalab.report/1\", \"runs\": [], \"x\": 1e999}", 0,
	  "invalid JSON" },
	{ "huge-int", "{\"schema\": \"numalab.report/1\", \"runs\": [], \"x\": 1234567890123456789012}",
	  0, "invalid JSON" },
	{ "array", "[{\"schema\": \"numalab.report/1\"}]", 0, "must be a JSON object" },
	/* A NUL after a whole report: the bytes count, not the C string. */
	{ "nul", nul_report, sizeof(nul_report) - 1, "invalid JSON" },
};
#define NR_BAD (sizeof(bad) / sizeof(bad[0]))

static char *path_of(const char *name)
{
	char *p = NULL;

	return asprintf(&p, "%s/reports/%s/report.json", tmp, name) < 0 ? NULL : p;
}

static int put(const char *name, const char *data, size_t len)
{
	_cleanup_free_ char *p = path_of(name);
	_cleanup_free_ char *dir = p ? fs_dirname(p) : NULL;

	return !dir || fs_mkdir_p(dir, 0755) < 0 ? -1 : fs_write_atomic(p, data, len);
}

static int copy_fixture(const char *rel, const char *name)
{
	_cleanup_free_ char *src = NULL, *data = NULL;
	size_t len;

	if (asprintf(&src, "%s/lab/tests/data/%s", testutil_root(), rel) < 0 ||
	    fs_read_file(src, RUNREPORT_MAX_SIZE, &data, &len) < 0)
		return -1;
	return put(name, data, len);
}

static void fixture_name(size_t i, char *buf, size_t len)
{
	const char *slash = strrchr(good[i], '/');

	snprintf(buf, len, "%.*s", (int)(strlen(slash + 1) - 5), slash + 1);
}

static int make_reports(void)
{
	char name[64];

	for (size_t i = 0; i < NR_GOOD; i++) {
		fixture_name(i, name, sizeof(name));
		if (copy_fixture(good[i], name) < 0)
			return -1;
	}
	for (size_t i = 0; i < NR_BAD; i++)
		if (put(bad[i].name, bad[i].text, bad[i].len ? bad[i].len : strlen(bad[i].text)) < 0)
			return -1;
	return 0;
}

/* Index one report; *what back.  A lab error is a failed test point. */
static enum history_indexed index_one(struct history *h, const char *name,
				      struct lab_error *err)
{
	_cleanup_free_ char *p = path_of(name);
	enum history_indexed what = HISTORY_SKIPPED;

	memset(err, 0, sizeof(*err));
	if (!p || history_index_file(h, p, &what, err) < 0)
		tap_ok(0, "%s: the index failed: %s", name, err->msg);
	return what;
}

static int index_all(struct history *h, unsigned *added, unsigned *skipped)
{
	struct lab_error err;
	char name[64];

	*added = *skipped = 0;
	for (size_t i = 0; i < NR_GOOD; i++) {
		fixture_name(i, name, sizeof(name));
		*added += index_one(h, name, &err) == HISTORY_ADDED;
	}
	for (size_t i = 0; i < NR_BAD; i++)
		*skipped += index_one(h, bad[i].name, &err) == HISTORY_SKIPPED;
	return 0;
}

/* Every answer of the index as one string: the JSON of the listing and of the series. */
static char *answers(struct history *h, const struct history_filter *f)
{
	struct history_report *r = NULL;
	struct history_point *p = NULL;
	struct lab_error err = { 0 };
	size_t nr = 0, np = 0;
	char *out = NULL;

	if (history_list(h, f, &r, &nr, &err) == 0 && history_series(h, f, &p, &np, &err) == 0) {
		_cleanup_json_ json_t *j = json_pack("{s:o,s:o}", "list", history_list_json(r, nr),
						     "series", history_points_json(p, np));

		out = j ? jsonio_dumps(j) : NULL;
	}
	history_reports_free(r, nr);
	history_points_free(p, np);
	return out;
}

static size_t count_listed(struct history *h, const struct history_filter *f)
{
	struct history_report *r = NULL;
	struct lab_error err = { 0 };
	size_t n = 0;

	if (history_list(h, f, &r, &n, &err) < 0)
		printf("# list: %s\n", err.msg);
	history_reports_free(r, n);
	return n;
}

static void test_skipped(struct history *h)
{
	for (size_t i = 0; i < NR_BAD; i++) {
		_cleanup_free_ char *p = path_of(bad[i].name);
		struct lab_error err;
		enum history_indexed w = index_one(h, bad[i].name, &err);

		if (!tap_ok(w == HISTORY_SKIPPED && strstr(err.msg, bad[i].why) && p &&
				    strstr(err.file, bad[i].name),
			    "%s: skipped, the reason names the file and says \"%s\"", bad[i].name,
			    bad[i].why))
			printf("# got %d: %s: %s: %s\n", w, err.file, err.path, err.msg);
	}
}

static void test_list(struct history *h)
{
	struct history_filter f = { 0 };
	struct history_report *r = NULL;
	struct lab_error err = { 0 };
	size_t n = 0;

	int e = history_list(h, &f, &r, &n, &err);

	tap_ok(e == 0 && n == NR_GOOD, "list: %zu reports", n);
	tap_ok(n >= 2 && strcmp(r[0].created, r[n - 1].created) >= 0 &&
		       !strcmp(r[0].id, "20261130-045015-yl-ab"),
	       "list: newest first (%s)", n ? r[0].id : "");
	history_reports_free(r, n);
	f.job = "synthetic";
	tap_ok(count_listed(h, &f) == 3, "list --job synthetic: a, b and ab");
	f = (struct history_filter){ .kernel = "patched" };
	tap_ok(count_listed(h, &f) == 2, "list --kernel patched: ab and variant-ab");
	f = (struct history_filter){ .timing = "icount" };
	tap_ok(count_listed(h, &f) == 1, "list --timing icount: variant-ab");
	f = (struct history_filter){ .limit = 2 };
	tap_ok(count_listed(h, &f) == 2, "list --limit 2");
	f = (struct history_filter){ .job = "no such job" };
	tap_ok(count_listed(h, &f) == 0, "list of a job never run: nothing");
}

static void test_series(struct history *h)
{
	struct history_filter f = { .job = "synthetic", .metric = "faults_per_s", .primary = 1 };
	struct history_point *p = NULL;
	struct lab_error err = { 0 };
	size_t n = 0, lines = 1;
	int e = history_series(h, &f, &p, &n, &err);

	if (!tap_ok(e == 0 && n > 0, "series: %zu points", n))
		return;
	for (size_t i = 1; i < n; i++)
		if (!history_point_same_series(&p[i - 1], &p[i]))
			lines++;
		else if (strcmp(p[i - 1].created, p[i].created) > 0)
			tap_ok(0, "series: point %zu goes back in time", i);
	tap_ok(lines == 3 && n == 6, "series: 1 and 4 tasks over a and b, 2 tasks of ab's 2 kernels");
	tap_ok(!strcmp(p[0].created, "2026-11-01T00:00:00Z") && p[0].s.boots == 3 &&
		       p[0].s.key.primary && !strcmp(p[0].s.key.metric, "faults_per_s"),
	       "series: the first point is a's 3 boots");
	/* Paths are the temporary directory's: the goldens get a fixed one. */
	for (size_t i = 0; i < n; i++) {
		free(p[i].path);
		p[i].path = strdup("reports/X/report.json");
	}
	{
		_cleanup_json_ json_t *j = history_points_json(p, n);
		_cleanup_free_ char *js = j ? jsonio_dumps(j) : NULL, *text = NULL;

		testutil_golden("history-series.json", js);
		testutil_golden("history-series.txt", history_points_text(p, n, &text) == 0 ? text
										       : NULL);
	}
	history_points_free(p, n);
}

static void test_list_text(struct history *h)
{
	struct history_filter f = { 0 };
	struct history_report *r = NULL;
	struct lab_error err = { 0 };
	_cleanup_free_ char *text = NULL;
	size_t n = 0;

	if (history_list(h, &f, &r, &n, &err) < 0)
		return (void)tap_ok(0, "list: %s", err.msg);
	for (size_t i = 0; i < n; i++) {
		free(r[i].path);
		r[i].path = strdup("reports/X/report.json");
	}
	testutil_golden("history-list.txt", history_list_text(r, n, &text) == 0 ? text : NULL);
	history_reports_free(r, n);
}

/* Changed files are read again, unchanged ones not; a file gone bad loses its rows. */
static void test_reindex(struct history *h)
{
	struct history_filter f = { .job = "synthetic" };
	struct lab_error err;
	_cleanup_free_ char *p = path_of("b");
	_cleanup_free_ char *text = NULL;
	size_t len;

	tap_ok(index_one(h, "a", &err) == HISTORY_UNCHANGED, "a again: unchanged, skipped");
	if (!p || fs_read_file(p, RUNREPORT_MAX_SIZE, &text, &len) < 0)
		return (void)tap_ok(0, "read b");
	memcpy(strstr(text, "2026-11-02T00:00:00Z"), "2026-11-09", 10);
	fs_write_atomic(p, text, len);
	tap_ok(index_one(h, "b", &err) == HISTORY_REPLACED, "b changed: replaced");
	tap_ok(count_listed(h, &f) == 3, "b replaced, not added twice");
	put("b", "{", 1);
	tap_ok(index_one(h, "b", &err) == HISTORY_SKIPPED, "b corrupt: skipped");
	tap_ok(count_listed(h, &f) == 2, "... and its old rows removed");
	put("b", text, len);
	tap_ok(index_one(h, "b", &err) == HISTORY_ADDED, "b good again: added");
}

/* Drop and re-create from the files: the same answers; a failed rebuild keeps the old. */
static void test_rebuild(struct history *h, const char *db2)
{
	struct history_filter all = { 0 }, some = { .kernel = "base", .primary = 1 };
	_cleanup_free_ char *before = answers(h, &all), *before_some = answers(h, &some);
	_cleanup_free_ char *after = NULL, *after_some = NULL, *fresh = NULL, *rolled = NULL;
	struct history *h2 = NULL;
	struct lab_error err = { 0 };
	unsigned added, skipped;

	tap_ok(history_begin(h, &err) == 0 && history_reset(h, &err) == 0 &&
		       count_listed(h, &all) == 0,
	       "rebuild: the index is empty after the reset");
	history_rollback(h);
	rolled = answers(h, &all);
	tap_ok(before && rolled && !strcmp(before, rolled), "a rebuild rolled back keeps the index");
	tap_ok(history_begin(h, &err) == 0 && history_reset(h, &err) == 0 &&
		       index_all(h, &added, &skipped) == 0 && history_commit(h, &err) == 0,
	       "rebuild: reset, every report indexed, committed");
	tap_ok(added == NR_GOOD && skipped == NR_BAD, "rebuild: %u added, %u skipped", added,
	       skipped);
	after = answers(h, &all);
	after_some = answers(h, &some);
	tap_ok(before && after && !strcmp(before, after), "rebuild: the same answers");
	tap_ok(before_some && after_some && !strcmp(before_some, after_some),
	       "rebuild: the same answers to a filtered query");
	if (history_open(db2, 1, &h2, &err) == 0 && index_all(h2, &added, &skipped) == 0)
		fresh = answers(h2, &all);
	tap_ok(fresh && after && !strcmp(fresh, after),
	       "a second index from the same files: the same answers");
	history_close(h2);
}

/* ---- migrations ------------------------------------------------------------------------ */

static const struct migration steps[] = {
	{ 1, "CREATE TABLE t (a INTEGER); PRAGMA user_version = 1;" },
	{ 2, "ALTER TABLE t ADD COLUMN b TEXT; UPDATE t SET b = 'x'; PRAGMA user_version = 2;" },
};

static int version_of(sqlite3 *db)
{
	int v = -1;

	sql_query_int(db, "PRAGMA user_version", &v, NULL);
	return v;
}

static void test_migrate(const char *file)
{
	sqlite3 *db = NULL;
	struct lab_error err = { 0 };
	int n = -1;
	const struct migration failing[] = {
		steps[0], steps[1],
		{ 3, "CREATE TABLE u (x); INSERT INTO nowhere VALUES (1); PRAGMA user_version = 3;" },
	};
	const struct migration forgetful[] = { steps[0], steps[1], { 3, "CREATE TABLE v (x);" } };

	if (!tap_ok(sqlite3_open(file, &db) == SQLITE_OK, "migrate: a database"))
		return;
	tap_ok(sql_migrate(db, steps, 1, &err) == 0 && version_of(db) == 1, "migrate 0 -> 1");
	sqlite3_exec(db, "INSERT INTO t (a) VALUES (7)", NULL, NULL, NULL);
	tap_ok(sql_migrate(db, steps, 2, &err) == 0 && version_of(db) == 2,
	       "an older file (1) is migrated to 2");
	tap_ok(sql_query_int(db, "SELECT count(*) FROM t WHERE a = 7 AND b = 'x'", &n, &err) == 0 &&
		       n == 1, "... its rows kept and migrated");
	tap_ok(sql_migrate(db, steps, 2, &err) == 0 && version_of(db) == 2, "up to date: nothing");
	tap_ok(sql_migrate(db, failing, 3, &err) == -EIO && strstr(err.msg, "version 3") &&
		       version_of(db) == 2,
	       "a failing step: -EIO naming its version, the file stays at 2");
	tap_ok(sql_query_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'u'", &n, &err) ==
			       0 && n == 0, "... and nothing of the failed step is left");
	tap_ok(sql_migrate(db, forgetful, 3, &err) == -EIO && strstr(err.msg, "user_version") &&
		       version_of(db) == 2, "a step that does not set its version is refused");
	sqlite3_exec(db, "PRAGMA user_version = 5", NULL, NULL, NULL);
	tap_ok(sql_migrate(db, steps, 2, &err) == -EPROTO && strstr(err.msg, "newer") &&
		       version_of(db) == 5, "a newer file (5 > 2): -EPROTO, not touched");
	sqlite3_close(db);
}

static void set_version(const char *file, const char *sql)
{
	sqlite3 *db = NULL;

	if (sqlite3_open(file, &db) == SQLITE_OK)
		sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
}

static int version_at(const char *file)
{
	sqlite3 *db = NULL;
	int v = -1;

	if (sqlite3_open(file, &db) == SQLITE_OK)
		v = version_of(db);
	sqlite3_close(db);
	return v;
}

static void test_open(const char *dir)
{
	static const char junk[] = "not a database, but longer than SQLite's 100-byte header......."
				   "................................................................";
	_cleanup_free_ char *newer = fs_join(dir, "newer.db"), *other = fs_join(dir, "other.db");
	_cleanup_free_ char *text = fs_join(dir, "text.db"), *none = fs_join(dir, "none/h.db");
	struct history *h = NULL;
	struct lab_error err = { 0 };
	int e;

	tap_ok(history_open(none, 0, &h, &err) == -ENOENT && !h, "no file, not created: -ENOENT");
	tap_ok(history_open(newer, 1, &h, &err) == 0, "a new index (version %d)",
	       history_schema_version());
	history_close(h);
	h = NULL;
	tap_ok(version_at(newer) == history_schema_version(), "... is at this lab's version");
	set_version(newer, "PRAGMA user_version = 1000");
	e = history_open(newer, 1, &h, &err);
	tap_ok(e == -EPROTO && !h && strstr(err.msg, "newer lab") && !strcmp(err.file, newer),
	       "an index of a newer lab is refused, named: %s", err.msg);
	tap_ok(version_at(newer) == 1000, "... and left at its version");
	set_version(other, "CREATE TABLE reports (x); PRAGMA user_version = 3");
	e = history_open(other, 1, &h, &err);
	tap_ok(e == -EBADMSG && strstr(err.msg, "something else"),
	       "another program's database is refused: %s", err.msg);
	fs_write_atomic(text, junk, sizeof(junk) - 1);
	e = history_open(text, 1, &h, &err);
	tap_ok(e == -EBADMSG && !h, "a file that is no database: %s", err.msg);
}

/* sql_open_reader: a second connection that reads while the writer holds its write lock (WAL),
 * sees the last commit, is refused on another program's file, and cannot write. */
static void test_reader(const char *dir)
{
	static const struct migration marked[] = {
		{ 1, "CREATE TABLE t (a INTEGER); PRAGMA application_id = 7; PRAGMA user_version = 1;" },
	};
	static const struct sql_kind kind = { 7, "a test file", 100, marked, 1 };
	_cleanup_free_ char *file = fs_join(dir, "reader.db"), *other = fs_join(dir, "other.db");
	struct lab_error err = { 0 };
	sqlite3 *w = NULL, *rd = NULL;
	int n = -1, rc;

	if (!tap_ok(sql_open(file, 1, &kind, &w, &err) == 0 &&
			    sql_open_reader(file, &kind, &rd, &err) == 0,
		    "reader: a writer and a reader on one file"))
		goto out;
	sqlite3_exec(w, "INSERT INTO t (a) VALUES (1)", NULL, NULL, NULL);
	sqlite3_exec(w, "BEGIN IMMEDIATE; INSERT INTO t (a) VALUES (2)", NULL, NULL, NULL);
	rc = sql_read_begin(rd, &err) ?: sql_query_int(rd, "SELECT count(*) FROM t", &n, &err);
	tap_ok(rc == 0 && n == 1,
	       "a read while the writer holds its lock: no wait, the last commit (%d row)", n);
	sql_read_end(rd);
	sqlite3_exec(w, "COMMIT", NULL, NULL, NULL);
	rc = sql_query_int(rd, "SELECT count(*) FROM t", &n, &err);
	tap_ok(rc == 0 && n == 2, "the next read sees the commit (%d rows)", n);
	rc = sqlite3_exec(rd, "INSERT INTO t (a) VALUES (3)", NULL, NULL, NULL);
	tap_ok(rc == SQLITE_READONLY, "the reader cannot write (%s)", sqlite3_errstr(rc));
	sqlite3_close(rd);
	rd = NULL;
	tap_ok(sql_open_reader(other, &kind, &rd, &err) == -EBADMSG && !rd,
	       "another program's file is refused: %s", err.msg);
out:
	sqlite3_close(rd);
	sqlite3_close(w);
}

int main(void)
{
	_cleanup_free_ char *db = NULL, *db2 = NULL, *mig = NULL;
	struct history *h = NULL;
	struct lab_error err = { 0 };
	unsigned added, skipped;

	if (!mkdtemp(tmp))
		return tap_ok(0, "mkdtemp"), tap_done();
	db = fs_join(tmp, "state/history.db");
	db2 = fs_join(tmp, "second.db");
	mig = fs_join(tmp, "migrate.db");
	if (!tap_ok(db && db2 && mig && make_reports() == 0, "reports written to %s/reports", tmp))
		return tap_done();
	if (history_open(db, 1, &h, &err) < 0)
		printf("# %s: %s\n", err.file, err.msg);
	if (!tap_ok(h != NULL, "index created with its directory"))
		return tap_done();
	index_all(h, &added, &skipped);
	tap_ok(added == NR_GOOD, "%u of %zu good reports added", added, NR_GOOD);
	test_skipped(h);
	test_list(h);
	test_series(h);
	test_list_text(h);
	test_reindex(h);
	test_rebuild(h, db2);
	history_close(h);
	test_migrate(mig);
	test_open(tmp);
	test_reader(tmp);
	fs_rm_rf(tmp);
	return tap_done();
}
