/* The history index's queries (history.h): reports with their runs, and series over time.
 * Filters are bound parameters of fixed statements ("?1 IS NULL OR ..."), never SQL text. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
#include "history/history_db.h"

/* Room for one more element in a growable array. */
static int grow(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void **arr = arrp;
	size_t ncap = *cap ? *cap * 2 : 32;
	void *p;

	if (n < *cap)
		return 0;
	if (ncap > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
	*arr = p;
	*cap = ncap;
	return 0;
}

static char *column_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return strdup(s ? (const char *)s : "");
}

/* ---- reports and their runs ----------------------------------------------------------- */

static const char LIST_SQL[] =
	"SELECT r.id, r.path, r.sha256, r.report_id, r.created, r.job, r.status, r.schema,"
	" (SELECT count(*) FROM series s WHERE s.report = r.id)"
	" FROM reports r"
	" WHERE (?1 IS NULL OR r.job = ?1)"
	" AND (?2 IS NULL OR EXISTS (SELECT 1 FROM runs u WHERE u.report = r.id AND u.kernel = ?2))"
	" AND (?3 IS NULL OR EXISTS (SELECT 1 FROM runs u WHERE u.report = r.id AND (u.timing = ?3 OR u.timing LIKE ?3 || '-q%')))"
	" ORDER BY r.created DESC, r.report_id DESC, r.path"
	" LIMIT ?4";

static const char RUNS_SQL[] =
	"SELECT idx, status, kernel, variant, release, source, source_commit, build_key, timing,"
	" accel, uri, qemu_version, contended, guests_at_once, image_sha256, config_sha256"
	" FROM runs WHERE report = ?1 ORDER BY idx";

static void read_run(sqlite3_stmt *st, struct history_run *u)
{
	u->index = (unsigned)sqlite3_column_int64(st, 0);
	sql_column_text(st, 1, u->status, sizeof(u->status));
	sql_column_text(st, 2, u->kernel, sizeof(u->kernel));
	sql_column_text(st, 3, u->variant, sizeof(u->variant));
	sql_column_text(st, 4, u->release, sizeof(u->release));
	sql_column_text(st, 5, u->source, sizeof(u->source));
	sql_column_text(st, 6, u->commit, sizeof(u->commit));
	sql_column_text(st, 7, u->build_key, sizeof(u->build_key));
	sql_column_text(st, 8, u->timing, sizeof(u->timing));
	sql_column_text(st, 9, u->accel, sizeof(u->accel));
	sql_column_text(st, 10, u->uri, sizeof(u->uri));
	sql_column_text(st, 11, u->qemu, sizeof(u->qemu));
	u->contended = sqlite3_column_int(st, 12) != 0;
	u->guests_at_once = (unsigned)sqlite3_column_int64(st, 13);
	sql_column_text(st, 14, u->image_sha256, sizeof(u->image_sha256));
	sql_column_text(st, 15, u->config_sha256, sizeof(u->config_sha256));
}

static int load_runs(struct history *h, sqlite3_stmt *st, sqlite3_int64 id,
		     struct history_report *r, struct lab_error *err)
{
	size_t cap = 0;
	int rc;

	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (grow(&r->runs, &cap, r->nr_runs, sizeof(*r->runs)) < 0) {
			sqlite3_reset(st);
			return -ENOMEM;
		}
		read_run(st, &r->runs[r->nr_runs++]);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(h->db, rc, "reading runs", err);
}

static int read_report(sqlite3_stmt *st, struct history_report *r)
{
	r->path = column_dup(st, 1);
	sql_column_text(st, 2, r->sha256, sizeof(r->sha256));
	sql_column_text(st, 3, r->id, sizeof(r->id));
	sql_column_text(st, 4, r->created, sizeof(r->created));
	sql_column_text(st, 5, r->job, sizeof(r->job));
	sql_column_text(st, 6, r->status, sizeof(r->status));
	sql_column_text(st, 7, r->schema, sizeof(r->schema));
	r->nr_series = (size_t)sqlite3_column_int64(st, 8);
	return r->path ? 0 : -ENOMEM;
}

static void bind_filter(sqlite3_stmt *st, const struct history_filter *f)
{
	/* "" filters like NULL: nothing is stored as "" (sql_bind_text). */
	sql_bind_text(st, 1, f->job);
	sql_bind_text(st, 2, f->kernel);
	sql_bind_text(st, 3, f->timing);
}

static int list_rows(struct history *h, sqlite3_stmt *st, sqlite3_stmt *runs,
		     struct history_report **out, size_t *n, struct lab_error *err)
{
	size_t cap = 0;
	int rc = SQLITE_DONE, e = 0;

	while (e == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((e = grow(out, &cap, *n, sizeof(**out))) < 0)
			break;
		e = read_report(st, &(*out)[(*n)++]);
		if (e == 0)
			e = load_runs(h, runs, sqlite3_column_int64(st, 0), &(*out)[*n - 1], err);
	}
	if (e == 0 && rc != SQLITE_DONE)
		e = sql_fail(h->db, rc, "listing reports", err);
	return e;
}

int history_list(struct history *h, const struct history_filter *f, struct history_report **out,
		 size_t *n, struct lab_error *err)
{
	sqlite3_stmt *st = NULL, *runs = NULL;
	int e;

	*out = NULL;
	*n = 0;
	e = sql_prepare(h->db, LIST_SQL, &st, err);
	if (e == 0)
		e = sql_prepare(h->db, RUNS_SQL, &runs, err);
	if (e == 0) {
		bind_filter(st, f);
		sqlite3_bind_int64(st, 4, f->limit > 0 ? f->limit : -1);
		e = list_rows(h, st, runs, out, n, err);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(runs);
	if (e < 0) {
		history_reports_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return e;
}

/* ---- series over time ----------------------------------------------------------------- */

static const char SERIES_SQL[] =
	"SELECT s.kernel, s.timing, s.topology, s.workload, s.params, s.tasks, s.metric, s.unit,"
	" s.better, s.is_primary, s.mean_kind, s.boots, s.n_values, s.mean, s.cv_between,"
	" s.cv_within, r.report_id, r.created, r.job, r.path"
	" FROM series s JOIN reports r ON r.id = s.report"
	" WHERE (?1 IS NULL OR r.job = ?1) AND (?2 IS NULL OR s.kernel = ?2)"
	" AND (?3 IS NULL OR s.timing = ?3 OR s.timing LIKE ?3 || '-q%') AND (?4 IS NULL OR s.workload = ?4)"
	" AND (?5 IS NULL OR s.metric = ?5) AND (?6 = 0 OR s.is_primary = 1)"
	/* The series (what history_point_same_series compares) first, then time. */
	" ORDER BY s.timing, s.topology, s.workload, s.params, s.tasks, s.metric, s.unit,"
	" s.better, r.created, r.report_id, r.path, s.kernel";

static int read_point(sqlite3_stmt *st, struct history_point *p)
{
	struct history_series *s = &p->s;
	const unsigned char *kind = sqlite3_column_text(st, 10);
	const unsigned char *better = sqlite3_column_text(st, 8);

	sql_column_text(st, 0, s->kernel, sizeof(s->kernel));
	sql_column_text(st, 1, s->timing, sizeof(s->timing));
	sql_column_text(st, 2, s->key.topology, sizeof(s->key.topology));
	sql_column_text(st, 3, s->key.workload, sizeof(s->key.workload));
	s->key.params = column_dup(st, 4);
	s->key.tasks = (unsigned)sqlite3_column_int64(st, 5);
	sql_column_text(st, 6, s->key.metric, sizeof(s->key.metric));
	sql_column_text(st, 7, s->key.unit, sizeof(s->key.unit));
	s->key.higher = better && !strcmp((const char *)better, "higher");
	s->key.primary = sqlite3_column_int(st, 9) != 0;
	s->mean_kind = kind && !strcmp((const char *)kind, "harmonic") ? STATS_HARMONIC
									: STATS_ARITHMETIC;
	s->boots = (size_t)sqlite3_column_int64(st, 11);
	s->values = (size_t)sqlite3_column_int64(st, 12);
	s->mean = sql_column_real(st, 13);
	s->cv_between = sql_column_real(st, 14);
	s->cv_within = sql_column_real(st, 15);
	sql_column_text(st, 16, p->report_id, sizeof(p->report_id));
	sql_column_text(st, 17, p->created, sizeof(p->created));
	sql_column_text(st, 18, p->job, sizeof(p->job));
	p->path = column_dup(st, 19);
	return s->key.params && p->path ? 0 : -ENOMEM;
}

static int series_rows(struct history *h, sqlite3_stmt *st, struct history_point **out,
		       size_t *n, struct lab_error *err)
{
	size_t cap = 0;
	int rc = SQLITE_DONE, e = 0;

	while (e == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((e = grow(out, &cap, *n, sizeof(**out))) == 0)
			e = read_point(st, &(*out)[(*n)++]);
	}
	if (e == 0 && rc != SQLITE_DONE)
		e = sql_fail(h->db, rc, "listing series", err);
	return e;
}

int history_series(struct history *h, const struct history_filter *f,
		   struct history_point **out, size_t *n, struct lab_error *err)
{
	sqlite3_stmt *st = NULL;
	int e;

	*out = NULL;
	*n = 0;
	e = sql_prepare(h->db, SERIES_SQL, &st, err);
	if (e == 0) {
		bind_filter(st, f);
		sql_bind_text(st, 4, f->workload);
		sql_bind_text(st, 5, f->metric);
		sqlite3_bind_int(st, 6, f->primary != 0);
		e = series_rows(h, st, out, n, err);
	}
	sqlite3_finalize(st);
	if (e < 0) {
		history_points_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return e;
}
