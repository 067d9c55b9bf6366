/* labd's pages as HTML, pure: JSON in (what labdata.h and the queue say), a page out, no I/O,
 * so that each page is tested against a golden file (lab/tests/test_webpage.c).  Every string
 * that came from a job, a label, a report or a guest's console is escaped (analysis/html.h:
 * markup as text, control bytes and invalid UTF-8 as U+FFFD); numbers are formatted here.
 * Lists are cut to the bounds below; the callers bound what they read.  The tables, the
 * forms and the trend charts (inline SVG drawn here) need no JavaScript; /ui/web.js
 * (lab/report/web.js) only follows a page live: see web.c for why by long poll. */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* Rows of the queue's table at most, and lines of a job's log tail. */
#define WEBPAGE_MAX_JOBS 200
#define WEBPAGE_MAX_LOG 200

/* A running job's progress, from its events (run-started/run-ended since its latest start,
 * progress for the step) and, for an estimate, the past jobs of its name that are done. */
struct webpage_progress {
	long runs_done, runs_total;   /* total -1 while unknown */
	char step[512];               /* the latest progress line, "" none */
	int has_eta;                  /* 0: "no estimate" */
	double eta_s;                 /* seconds to go */
	unsigned past;                /* finished jobs the estimate is made from */
};
/* job (queue_get's JSON), its events (oldest first), past (done jobs of its name), now (ISO
 * 8601 UTC: the clock is the caller's).  Pure. */
void webpage_progress(const json_t *job, const json_t *events, const json_t *past,
		      const char *now, struct webpage_progress *out);

/* Each makes a whole page into *out (to free): 0 or -ENOMEM.
 * The queue: view {"jobs": [JOB...] (newest first; a queued one with its "position" in line,
 * labdata_positions), "running": {"job", "events", "past", "last"} or null, "now", "last"
 * (the event log's highest seq: where the page follows from)}. */
int webpage_queue(const json_t *view, char **out);
/* A job: view {"job", "events" (its log tail), "past", "last", "now"}. */
int webpage_job(const json_t *view, char **out);
/* The trends: labdata_series()'s JSON, and under each series the alerts (labdata_alerts()'s
 * JSON, every state) nightly raised on it: the confirmed changes and their bisections. */
int webpage_trends(const json_t *series, const json_t *alerts, char **out);
/* The alerts: labdata_alerts()'s JSON, show the state listed ("new", ..., "all"), note a line
 * to say above the table (NULL none: what a form just did). */
int webpage_alerts(const json_t *alerts, const char *show, const char *note, char **out);
/* A page saying an error: its status code and text. */
int webpage_error(unsigned code, const char *msg, char **out);
