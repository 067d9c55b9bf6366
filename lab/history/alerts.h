/* Alerts and their triage, in the history index's SQLite file: every confirmed change
 * `lab nightly` raises is an alert with a state a person sets (new, acknowledged, invalid,
 * fixed by a commit), who set it, when, and a note; every change of state is kept as an event.
 * Unlike the rest of the index these rows are not made from report files and cannot be
 * rebuilt from them: `lab history rebuild` keeps them (history.c's reset drops only what the
 * reports make).
 *
 * Raising the same alert again (same ledger, job, series and night: a night judged again,
 * a ledger replayed) changes nothing.  A new alert of a series whose last alert was fixed
 * reopens that one (state new, the event says on which night it regressed again) instead of
 * adding a second.  Only a new or reopened alert counts as new: what nightly's exit status and
 * its mail count. */
#pragma once
#include <stddef.h>

#include <jansson.h>

#include "history/history.h"

enum alert_state { ALERT_NEW, ALERT_ACKNOWLEDGED, ALERT_INVALID, ALERT_FIXED, ALERT__COUNT };

#define ALERT_NOTE_MAX 500

struct history_alert {
	long long id;
	char source[128];     /* the nightly configuration's name */
	char ledger[1024];    /* its ledger's directory (absolute): one watch, whatever its name */
	char job[128], series[200];   /* the series' id (pft.faults_per_s@2#fed041aa) */
	char night[64], commit[65];   /* where it was confirmed */
	char direction[16];   /* regression | improvement */
	double change_pct;    /* the confirmation's */
	char culprit[65];     /* its bisection's, "" none */
	char report[1024];    /* the night's nightly.json */
	char raised_at[32];   /* ISO 8601 UTC */
	enum alert_state state;
	char fixed_by[65];    /* state fixed: the commit */
	char who[128], at[32], note[ALERT_NOTE_MAX + 1];  /* the last change of state */
	unsigned reopened;    /* times it was reopened */
};

const char *alert_state_name(enum alert_state s);
/* -1 when name is none of them. */
int alert_state_from_name(const char *name);

/* a (its id, state and triage fields ignored) raised at time at: *id the alert's, *is_new 1
 * when it is new or was reopened.  0 or a negative errno (err says why). */
int history_alert_raise(struct history *h, const struct history_alert *a, const char *at,
			long long *id, int *is_new, struct lab_error *err);

/* Alert id set to state s by who at time at, with note (NULL: none) and, for fixed, the commit
 * fixed_by (required then: -EINVAL otherwise).  -ENOENT when there is no such alert. */
int history_alert_set(struct history *h, long long id, enum alert_state s, const char *who,
		      const char *note, const char *fixed_by, const char *at,
		      struct lab_error *err);

/* The alerts, newest first; state < 0: every state.  *out to free(). */
int history_alerts_list(struct history *h, int state, struct history_alert **out, size_t *n,
			struct lab_error *err);

/* The alerts as JSON (schema HISTORY_ALERTS_SCHEMA), and as text, one line each. */
#define HISTORY_ALERTS_SCHEMA "numalab.alerts/1"
json_t *history_alerts_json(const struct history_alert *a, size_t n);
int history_alerts_text(const struct history_alert *a, size_t n, char **out);
