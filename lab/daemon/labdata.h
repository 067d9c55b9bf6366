/* What labd's JSON API (api.c) and its pages (web.c) read and change: one data layer, so that
 * a page never shows what the API would not say, and a form on a page changes an alert
 * through the very call POST /v1/alerts/ID makes.  Jobs come from the queue (queue.h) as they
 * are; alerts and series from the history index in the state directory (history/).  Every
 * list is bounded.  Nothing here prints; errors are negative errnos with err saying why. */
#pragma once
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/apireq.h"
#include "daemon/queue.h"
#include "util/error.h"

/* At most this many alerts in one answer (newest first). */
#define LABDATA_MAX_ALERTS 1000
/* At most this many series, and points of each (the newest), in the trends. */
#define LABDATA_MAX_SERIES 200
#define LABDATA_MAX_POINTS 500
/* The change a trend's change point must reach to be drawn, in percent. */
#define LABDATA_CP_THRESHOLD_PCT 5.0
/* At most this many events of a job's log tail, and finished jobs for an estimate. */
#define LABDATA_MAX_TAIL 200
#define LABDATA_MAX_PAST 20

/* {"schema": "numalab.alerts/1", "alerts": [...]}: the alerts in state (< 0: all), newest
 * first, at most LABDATA_MAX_ALERTS; an empty list when there is no index yet. */
int labdata_alerts(const char *state_dir, int state, json_t **out, struct lab_error *err);

/* Alert id set as a says (apireq_alert: state, note, by, commit), by a->by or else by_default,
 * now.  -ENOENT for no such alert (or no index), -EINVAL with err.path for a refused value. */
int labdata_alert_set(const char *state_dir, int64_t id, const struct apireq_alert *a,
		      const char *by_default, struct lab_error *err);

/* {"schema": "numalab.history-series/1", "series": [...]} as `lab history series --json`
 * prints it, primary metrics only, at most LABDATA_MAX_SERIES series of at most
 * LABDATA_MAX_POINTS points each, every series with "changes": [{"at" (the index of the first
 * point after the change), "before", "after", "change_pct"}], the change points of its
 * points' means (analysis/changepoint.h, one value a night); an empty list without an index. */
int labdata_series(const char *state_dir, json_t **out, struct lab_error *err);

/* The last LABDATA_MAX_TAIL events of job id, oldest first (the job's log: its progress lines
 * are events), and *last the highest sequence number of the whole log (where a follower
 * starts).  -ENOENT for no such job. */
int labdata_job_tail(struct queue *q, int64_t id, json_t **out, int64_t *last,
		     struct lab_error *err);

/* Up to LABDATA_MAX_PAST jobs named name that are done, newest first (queue_list_named): what
 * an estimate of a running job of that name is made from.  An empty array for no name. */
int labdata_past_jobs(struct queue *q, const char *name, json_t **out, struct lab_error *err);

/* Each queued job of jobs (a list of the queue's, any order) gets "position": its place in
 * line, 1 for the next the worker claims (the oldest queued), counted over the whole queue
 * (not only the jobs listed; up to QUEUE_MAX_QUEUED of them). */
int labdata_positions(struct queue *q, json_t *jobs, struct lab_error *err);
