/* labd's one data layer for its API and its pages (labdata.h). */
#include "daemon/labdata.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/changepoint.h"
#include "history/alerts.h"
#include "history/history.h"
#include "util/cleanup.h"
#include "util/clock.h"

static int open_history(const char *state_dir, struct history **h, struct lab_error *err)
{
	char db[PATH_MAX + 32];

	snprintf(db, sizeof(db), "%s/%s", state_dir, HISTORY_DB_NAME);
	return history_open(db, 0, h, err);
}

int labdata_alerts(const char *state_dir, int state, json_t **out, struct lab_error *err)
{
	struct history_alert *a = NULL;
	struct history *h = NULL;
	size_t n = 0;
	int r = open_history(state_dir, &h, err);

	if (r == 0)
		r = history_alerts_list(h, state, &a, &n, err);
	history_close(h);
	if (r == -ENOENT)
		r = 0, n = 0; /* no index yet: no alerts */
	if (r < 0) {
		free(a);
		return r;
	}
	*out = history_alerts_json(a, n < LABDATA_MAX_ALERTS ? n : LABDATA_MAX_ALERTS);
	free(a);
	return *out ? 0 : -ENOMEM;
}

int labdata_alert_set(const char *state_dir, int64_t id, const struct apireq_alert *a,
		      const char *by_default, struct lab_error *err)
{
	struct history *h = NULL;
	char at[CLOCK_ISO_LEN];
	int r;

	clock_utc_iso(at, sizeof(at));
	r = open_history(state_dir, &h, err);
	if (r == 0)
		r = history_alert_set(h, id, (enum alert_state)a->state, a->by ? a->by : by_default,
				      a->note, a->commit, at, err);
	history_close(h);
	return r;
}

static int str_is(const json_t *v, const char *want)
{
	return json_is_string(v) && !strcmp(json_string_value(v), want);
}

/* One series' change points, of its points' means taken as one value a night (the index
 * keeps each report's summary, not its boots: the windows then compare nights). */
static int series_changes(json_t *s)
{
	json_t *pts = json_object_get(s, "points"), *changes = json_array();
	size_t n = json_array_size(pts), found = 0;
	_cleanup_free_ struct cp_night *nights = calloc(n ? n : 1, sizeof(*nights));
	_cleanup_free_ double *v = calloc(n ? n : 1, sizeof(*v));
	_cleanup_free_ struct cp_change *c = calloc(n ? n : 1, sizeof(*c));
	struct cp_config cfg = {
		.threshold_pct = LABDATA_CP_THRESHOLD_PCT,
		.higher = str_is(json_object_get(s, "better"), "higher"),
		.kind = str_is(json_object_get(s, "mean_kind"), "harmonic") ? STATS_HARMONIC
									     : STATS_ARITHMETIC,
	};

	if (!changes || !nights || !v || !c) {
		json_decref(changes);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *m = json_object_get(json_array_get(pts, i), "mean");

		v[i] = json_is_number(m) ? json_number_value(m) : NAN;
		nights[i] = (struct cp_night){ .v = &v[i], .n = isfinite(v[i]) ? 1 : 0 };
	}
	/* Too few nights, or values the test refuses: no change points, the points still drawn. */
	if (n >= 3 && cp_detect(nights, n, &cfg, c, n, &found) < 0)
		found = 0;
	for (size_t i = 0; i < found && i < n; i++)
		json_array_append_new(changes, json_pack("{s:I, s:f, s:f, s:f}", "at",
							 (json_int_t)c[i].at, "before", c[i].before,
							 "after", c[i].after, "change_pct",
							 c[i].change_pct));
	return json_object_set_new(s, "changes", changes);
}

/* Keep the newest LABDATA_MAX_POINTS points of s (they come oldest first). */
static void series_trim(json_t *s)
{
	json_t *pts = json_object_get(s, "points");

	while (json_array_size(pts) > LABDATA_MAX_POINTS)
		json_array_remove(pts, 0);
}

int labdata_series(const char *state_dir, json_t **out, struct lab_error *err)
{
	struct history_filter f = { .primary = 1 };
	struct history_point *p = NULL;
	struct history *h = NULL;
	json_t *all, *list;
	size_t n = 0;
	int r = open_history(state_dir, &h, err);

	if (r == 0)
		r = history_series(h, &f, &p, &n, err);
	history_close(h);
	if (r == -ENOENT)
		r = 0, n = 0;
	if (r < 0) {
		history_points_free(p, n);
		return r;
	}
	all = history_points_json(p, n);
	history_points_free(p, n);
	list = json_object_get(all, "series");
	if (!all || !list) {
		json_decref(all);
		return -ENOMEM;
	}
	while (json_array_size(list) > LABDATA_MAX_SERIES)
		json_array_remove(list, LABDATA_MAX_SERIES);
	for (size_t i = 0; i < json_array_size(list); i++) {
		series_trim(json_array_get(list, i));
		if ((r = series_changes(json_array_get(list, i))) < 0) {
			json_decref(all);
			return r;
		}
	}
	*out = all;
	return 0;
}

int labdata_job_tail(struct queue *q, int64_t id, json_t **out, int64_t *last,
		     struct lab_error *err)
{
	_cleanup_json_ json_t *job = NULL;
	json_t *tail = json_array();
	int64_t since = 0;
	int r = queue_get(q, id, 0, &job, err);

	if (r < 0 || !tail) {
		json_decref(tail);
		return r < 0 ? r : -ENOMEM;
	}
	/* Pages of the job's events, oldest first, the newest LABDATA_MAX_TAIL kept. */
	for (;;) {
		json_t *ev = NULL, *e;
		size_t i;

		if ((r = queue_events(q, since, id, 1000, &ev, last, err)) < 0) {
			json_decref(tail);
			return r;
		}
		json_array_foreach(ev, i, e) {
			json_array_append(tail, e);
			since = json_integer_value(json_object_get(e, "seq"));
		}
		while (json_array_size(tail) > LABDATA_MAX_TAIL)
			json_array_remove(tail, 0);
		i = json_array_size(ev);
		json_decref(ev);
		if (i < 1000)
			break;
	}
	*out = tail;
	return 0;
}

int labdata_past_jobs(struct queue *q, const char *name, json_t **out, struct lab_error *err)
{
	if (!name)
		return (*out = json_array()) ? 0 : -ENOMEM;
	return queue_list_named(q, QUEUE_DONE, name, LABDATA_MAX_PAST, out, err);
}

static int id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int labdata_positions(struct queue *q, json_t *jobs, struct lab_error *err)
{
	_cleanup_free_ int64_t *ids = NULL;
	size_t i, n = 0;
	json_t *j;
	/* One query of the queued ids, oldest first, and a search each: the page is read often,
	 * and the queue may be long (a page load once listed 1000 queued jobs in full and
	 * matched every listed job against each: the queue page's p99 was 120 ms under load). */
	int r = queue_queued_ids(q, &ids, &n, err);

	if (r < 0)
		return r;
	json_array_foreach(jobs, i, j) {
		int64_t id = json_integer_value(json_object_get(j, "id"));
		const int64_t *at = n ? bsearch(&id, ids, n, sizeof(*ids), id_cmp) : NULL;

		if (at && json_object_set_new(j, "position", json_integer(at - ids + 1)) < 0)
			return -ENOMEM;
	}
	return 0;
}
