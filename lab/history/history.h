/* The history index: every report indexed in SQLite, so that runs and series can be listed
 * and followed over time without reading every report again.  The report files stay the
 * source of truth: the index holds what history_rows_from_report (rows.h) makes of each, and
 * can always be dropped and rebuilt from them.
 *
 * One file (by default STATE/history.db, `lab history --help`), WAL mode, foreign keys on,
 * schema version in PRAGMA user_version and brought up to date by the migrations in
 * history.c on open (migrate.h); a file of a newer version is refused, never touched.  Every
 * statement is prepared, every value bound.  A report is keyed by its path (made absolute)
 * and the sha256 of its bytes: indexing an unchanged file does nothing, a changed one
 * replaces its rows.  Nothing here prints. */
#pragma once
#include <stddef.h>

#include "analysis/noise.h"
#include "history/rows.h"
#include "util/error.h"

#define HISTORY_DB_NAME "history.db"

/* An open index. */
struct history;

/* Open (and with create, make: the file and its directory) the index at path, migrated to
 * this lab's schema version.  -ENOENT without create when there is no file; -EPROTO when the
 * file is of a newer schema version; -EBADMSG when it is not an SQLite database; -EIO, -EBUSY
 * (another process held it past the busy timeout), -EACCES, -ENOMEM.  err says why. */
int history_open(const char *path, int create, struct history **out, struct lab_error *err);
void history_close(struct history *h);
/* The schema version this lab writes. */
int history_schema_version(void);

/* One write transaction around many history_index_file calls: one commit instead of one per
 * report, and other processes see all of it or none. */
int history_begin(struct history *h, struct lab_error *err);
int history_commit(struct history *h, struct lab_error *err);
void history_rollback(struct history *h);
/* Drop every table and create the schema afresh (inside history_begin: a rebuild that fails
 * leaves the old index). */
int history_reset(struct history *h, struct lab_error *err);

enum history_indexed {
	HISTORY_ADDED,       /* a report not indexed before */
	HISTORY_REPLACED,    /* its file changed: the rows were replaced */
	HISTORY_UNCHANGED,   /* same path and bytes as indexed: nothing done */
	HISTORY_SKIPPED,     /* unreadable, too large, not JSON, another schema, malformed: err
			      * says why; rows of an earlier version of the file are removed */
};

/* Index the report file at path (read at most RUNREPORT_MAX_SIZE bytes).  0 with *what set,
 * also for a report that was skipped; a negative errno only when the index itself failed. */
int history_index_file(struct history *h, const char *path, enum history_indexed *what,
		       struct lab_error *err);

/* What to list; NULL or 0 fields do not filter. */
struct history_filter {
	const char *job;
	const char *kernel;     /* a run's kernel label (rows.h) */
	const char *timing;
	const char *workload;   /* series only */
	const char *metric;     /* series only */
	int primary;            /* series only: primary metrics only */
	long limit;             /* reports at most, newest first; <= 0: all */
};

/* The newest points of one series, oldest first, for its threshold of noise
 * (analysis/noise.h). */
#define HISTORY_NOISE_MAX 200
struct history_noise {
	struct noise_point p[HISTORY_NOISE_MAX];  /* p[i].kernel points into kernel[i] */
	char kernel[HISTORY_NOISE_MAX][HISTORY_HEX];
	size_t n;
};
/* The newest HISTORY_NOISE_MAX points of the series of key k under the timing model key
 * timing (exactly), each with its kernel's content identity (the image that booted, else the
 * build key), leaving out the reports whose paths are in exclude (the ones being compared:
 * a comparison does not learn from itself).  0 or a negative errno (err says why). */
int history_noise_points(struct history *h, const struct history_key *k, const char *timing,
			 const char *const *exclude, size_t nr_exclude, struct history_noise *out,
			 struct lab_error *err);

/* The reports, newest first (by "created"), each with its runs (series counted, not loaded);
 * a report is listed when one of its runs has the kernel and one the timing model asked for.
 * *out to free with history_reports_free. */
int history_list(struct history *h, const struct history_filter *f, struct history_report **out,
		 size_t *n, struct lab_error *err);
/* The series of the reports, sorted by series (key and timing model) and within one by time
 * (created, then report id and path): the points history_points_json groups.  *out to free
 * with history_points_free. */
int history_series(struct history *h, const struct history_filter *f,
		   struct history_point **out, size_t *n, struct lab_error *err);
