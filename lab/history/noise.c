/* One series' points with their kernels' content identities, for the threshold of noise a
 * series learns from its history (history.h, analysis/noise.h).  A fixed statement, every
 * value bound. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
#include "history/history_db.h"

/* The newest points of the series, newest first (reversed below): exactly its key and
 * timing model; each kernel label's identity from its report's first run of that label:
 * the image that booted, else the build key. */
static const char NOISE_SQL[] =
	"SELECT s.mean, (SELECT COALESCE(NULLIF(u.image_sha256, ''), u.build_key) FROM runs u"
	"  WHERE u.report = s.report AND u.kernel = s.kernel ORDER BY u.idx LIMIT 1), r.path"
	" FROM series s JOIN reports r ON r.id = s.report"
	" WHERE s.timing = ?1 AND s.topology = ?2 AND s.workload = ?3 AND s.params = ?4"
	" AND s.tasks = ?5 AND s.metric = ?6 AND s.mean IS NOT NULL"
	" ORDER BY r.created DESC, r.report_id DESC, r.path DESC, s.kernel DESC LIMIT ?7";

static int excluded(const char *path, const char *const *exclude, size_t n)
{
	for (size_t i = 0; path && i < n; i++)
		if (exclude[i] && !strcmp(path, exclude[i]))
			return 1;
	return 0;
}

static int noise_rows(struct history *h, sqlite3_stmt *st, const char *const *exclude,
		      size_t nr_exclude, struct history_noise *out, struct lab_error *err)
{
	int rc = SQLITE_DONE;

	while (out->n < HISTORY_NOISE_MAX && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *path = sqlite3_column_text(st, 2);
		size_t i = out->n;

		if (excluded((const char *)path, exclude, nr_exclude))
			continue;
		sql_column_text(st, 1, out->kernel[i], sizeof(out->kernel[i]));
		out->p[i] = (struct noise_point){ sql_column_real(st, 0), out->kernel[i] };
		out->n++;
	}
	if (out->n < HISTORY_NOISE_MAX && rc != SQLITE_DONE)
		return sql_fail(h->db, rc, "reading a series' history", err);
	/* Oldest first, as noise_learn pairs them. */
	for (size_t i = 0; i < out->n / 2; i++) {
		size_t j = out->n - 1 - i;
		struct noise_point t = out->p[i];
		char k[HISTORY_HEX];

		out->p[i] = out->p[j];
		out->p[j] = t;
		memcpy(k, out->kernel[i], sizeof(k));
		memcpy(out->kernel[i], out->kernel[j], sizeof(k));
		memcpy(out->kernel[j], k, sizeof(k));
		out->p[i].kernel = out->kernel[i];
		out->p[j].kernel = out->kernel[j];
	}
	return 0;
}

int history_noise_points(struct history *h, const struct history_key *k, const char *timing,
			 const char *const *exclude, size_t nr_exclude, struct history_noise *out,
			 struct lab_error *err)
{
	sqlite3_stmt *st = NULL;
	int e;

	out->n = 0;
	e = sql_prepare(h->db, NOISE_SQL, &st, err);
	if (e == 0) {
		sql_bind_text(st, 1, timing);
		sql_bind_text(st, 2, k->topology);
		sql_bind_text(st, 3, k->workload);
		sql_bind_text(st, 4, k->params);
		sqlite3_bind_int64(st, 5, k->tasks);
		sql_bind_text(st, 6, k->metric);
		/* Room for the excluded reports' points too: one per label of each. */
		sqlite3_bind_int64(st, 7, HISTORY_NOISE_MAX + 64 * (sqlite3_int64)nr_exclude);
		e = noise_rows(h, st, exclude, nr_exclude, out, err);
	}
	sqlite3_finalize(st);
	if (e < 0)
		out->n = 0;
	return e;
}
