/* Alerts and their triage (alerts.h).  The tables are created by history.c's migration 3. */
#include "history/alerts.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/history_db.h"
#include "util/cleanup.h"
#include "util/strbuf.h"
#include "util/text.h"

static const char *const state_names[ALERT__COUNT] = { "new", "acknowledged", "invalid",
						       "fixed" };

const char *alert_state_name(enum alert_state s)
{
	return (unsigned)s < ALERT__COUNT ? state_names[s] : "?";
}

int alert_state_from_name(const char *name)
{
	for (int i = 0; i < ALERT__COUNT; i++)
		if (name && !strcmp(name, state_names[i]))
			return i;
	return -1;
}

static void finalize(sqlite3_stmt **st)
{
	sqlite3_finalize(*st);
}
#define _cleanup_stmt_ __attribute__((cleanup(finalize)))

/* Every change of state, kept. */
static int add_event(sqlite3 *db, long long id, const char *at, const char *who,
		     enum alert_state s, const char *fixed_by, const char *note,
		     struct lab_error *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r = sql_prepare(db, "INSERT INTO alert_events (alert, at, who, state, fixed_by, note) "
			    "VALUES (?, ?, ?, ?, ?, ?)", &st, err);

	if (r < 0)
		return r;
	sqlite3_bind_int64(st, 1, id);
	sql_bind_text(st, 2, at);
	sql_bind_text(st, 3, who);
	sql_bind_text(st, 4, alert_state_name(s));
	sql_bind_text(st, 5, fixed_by);
	sql_bind_text(st, 6, note);
	return sql_step_done(db, st, "recording the alert's event", err);
}

/* The id and state of the alert of a's series on a's night (night non-NULL), or of its
 * newest alert (night NULL).  1 found, 0 none. */
static int find(sqlite3 *db, const struct history_alert *a, const char *night, long long *id,
		int *state, char *direction, size_t dlen, struct lab_error *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	char s[32];
	int r = sql_prepare(db, night ? "SELECT id, state, direction FROM alerts WHERE ledger = ? "
					"AND job = ? AND series = ? AND night = ?"
				      : "SELECT id, state, direction FROM alerts WHERE ledger = ? "
					"AND job = ? AND series = ? ORDER BY id DESC LIMIT 1",
			    &st, err);

	if (r < 0)
		return r;
	sql_bind_text(st, 1, a->ledger);
	sql_bind_text(st, 2, a->job);
	sql_bind_text(st, 3, a->series);
	if (night)
		sql_bind_text(st, 4, night);
	r = sqlite3_step(st);
	if (r == SQLITE_DONE)
		return 0;
	if (r != SQLITE_ROW)
		return sql_fail(db, r, "reading the alerts", err);
	*id = sqlite3_column_int64(st, 0);
	sql_column_text(st, 1, s, sizeof(s));
	*state = alert_state_from_name(s);
	sql_column_text(st, 2, direction, dlen);
	return 1;
}

static int insert(sqlite3 *db, const struct history_alert *a, const char *at, long long *id,
		  struct lab_error *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r = sql_prepare(db, "INSERT INTO alerts (source, ledger, job, series, night, "
			    "commit_sha, direction, change_pct, culprit, report, raised_at, state, "
			    "who, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'new', 'nightly', ?)",
			    &st, err);

	if (r < 0)
		return r;
	sql_bind_text(st, 1, a->source);
	sql_bind_text(st, 2, a->ledger);
	sql_bind_text(st, 3, a->job);
	sql_bind_text(st, 4, a->series);
	sql_bind_text(st, 5, a->night);
	sql_bind_text(st, 6, a->commit);
	sql_bind_text(st, 7, a->direction);
	sql_bind_real(st, 8, a->change_pct);
	sql_bind_text(st, 9, a->culprit);
	sql_bind_text(st, 10, a->report);
	sql_bind_text(st, 11, at);
	sql_bind_text(st, 12, at);
	if ((r = sql_step_done(db, st, "adding the alert", err)) < 0)
		return r;
	*id = sqlite3_last_insert_rowid(db);
	return add_event(db, *id, at, "nightly", ALERT_NEW, NULL, "raised", err);
}

/* The commit alert id was fixed by, into buf ("?" unknown). */
static int fixed_by_of(sqlite3 *db, long long id, char *buf, size_t len, struct lab_error *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r = sql_prepare(db, "SELECT ifnull(fixed_by, '?') FROM alerts WHERE id = ?", &st, err);

	if (r < 0)
		return r;
	sqlite3_bind_int64(st, 1, id);
	if ((r = sqlite3_step(st)) != SQLITE_ROW)
		return sql_fail(db, r, "reading the alert", err);
	sql_column_text(st, 0, buf, len);
	return 0;
}

/* New again; the note says after which fix (the state's own field is cleared). */
static int reopen(sqlite3 *db, long long id, const struct history_alert *a, const char *at,
		  struct lab_error *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	char note[256], fix[65];
	int r = fixed_by_of(db, id, fix, sizeof(fix), err);

	if (r == 0)
		r = sql_prepare(db, "UPDATE alerts SET state = 'new', reopened = reopened + 1, "
				"who = 'nightly', at = ?, note = ?, fixed_by = NULL WHERE id = ?",
				&st, err);
	if (r < 0)
		return r;
	snprintf(note, sizeof(note), "reopened: regressed again on night %.64s (%.12s), %+.2f %%, "
		 "after its fix by %.12s", a->night, a->commit, a->change_pct, fix);
	sql_bind_text(st, 1, at);
	sql_bind_text(st, 2, note);
	sqlite3_bind_int64(st, 3, id);
	if ((r = sql_step_done(db, st, "reopening the alert", err)) < 0)
		return r;
	return add_event(db, id, at, "nightly", ALERT_NEW, NULL, note, err);
}

static int raise_in(sqlite3 *db, const struct history_alert *a, const char *at, long long *id,
		    int *is_new, struct lab_error *err)
{
	char dir[16] = "";
	int state = -1, r;

	*is_new = 0;
	if ((r = find(db, a, a->night, id, &state, dir, sizeof(dir), err)) != 0)
		return r < 0 ? r : 0;
	if ((r = find(db, a, NULL, id, &state, dir, sizeof(dir), err)) < 0)
		return r;
	*is_new = 1;
	if (r == 1 && state == ALERT_FIXED && !strcmp(dir, a->direction))
		return reopen(db, *id, a, at, err);
	return insert(db, a, at, id, err);
}

int history_alert_raise(struct history *h, const struct history_alert *a, const char *at,
			long long *id, int *is_new, struct lab_error *err)
{
	int own, r;

	if ((r = sql_begin(h->db, &own, err)) < 0)
		return r;
	r = raise_in(h->db, a, at, id, is_new, err);
	return sql_end(h->db, own, r == 0, err) < 0 ? -EIO : r;
}

int history_alert_set(struct history *h, long long id, enum alert_state s, const char *who,
		      const char *note, const char *fixed_by, const char *at,
		      struct lab_error *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int own, r;

	if ((unsigned)s >= ALERT__COUNT)
		return error_set(err, "state", "no such state");
	if (s == ALERT_FIXED && (!fixed_by || !fixed_by[0]))
		return error_set(err, "fixed_by", "fixed needs the commit that fixed it");
	if ((note && (strlen(note) > ALERT_NOTE_MAX || text_has_control_chars(note))) ||
	    (who && (strlen(who) > 127 || text_has_control_chars(who))) ||
	    (fixed_by && (strlen(fixed_by) > 64 || text_has_control_chars(fixed_by))))
		return error_set(err, "note", "too long (%d at most) or with control characters",
				 ALERT_NOTE_MAX);
	if ((r = sql_begin(h->db, &own, err)) < 0)
		return r;
	r = sql_prepare(h->db, "UPDATE alerts SET state = ?, fixed_by = ?, who = ?, at = ?, "
			"note = ? WHERE id = ?", &st, err);
	if (r == 0) {
		sql_bind_text(st, 1, alert_state_name(s));
		sql_bind_text(st, 2, s == ALERT_FIXED ? fixed_by : NULL);
		sql_bind_text(st, 3, who);
		sql_bind_text(st, 4, at);
		sql_bind_text(st, 5, note);
		sqlite3_bind_int64(st, 6, id);
		r = sql_step_done(h->db, st, "setting the alert's state", err);
	}
	if (r == 0 && sqlite3_changes(h->db) == 0) {
		error_set(err, "", "no alert %lld", id);
		r = -ENOENT;
	}
	if (r == 0)
		r = add_event(h->db, id, at, who, s, s == ALERT_FIXED ? fixed_by : NULL, note, err);
	return sql_end(h->db, own, r == 0, err) < 0 ? -EIO : r;
}

static void row(sqlite3_stmt *st, struct history_alert *a)
{
	char s[32];
	int i = 1;

	memset(a, 0, sizeof(*a));
	a->id = sqlite3_column_int64(st, 0);
	sql_column_text(st, i++, a->source, sizeof(a->source));
	sql_column_text(st, i++, a->ledger, sizeof(a->ledger));
	sql_column_text(st, i++, a->job, sizeof(a->job));
	sql_column_text(st, i++, a->series, sizeof(a->series));
	sql_column_text(st, i++, a->night, sizeof(a->night));
	sql_column_text(st, i++, a->commit, sizeof(a->commit));
	sql_column_text(st, i++, a->direction, sizeof(a->direction));
	a->change_pct = sql_column_real(st, i++);
	sql_column_text(st, i++, a->culprit, sizeof(a->culprit));
	sql_column_text(st, i++, a->report, sizeof(a->report));
	sql_column_text(st, i++, a->raised_at, sizeof(a->raised_at));
	sql_column_text(st, i++, s, sizeof(s));
	a->state = (enum alert_state)alert_state_from_name(s);
	sql_column_text(st, i++, a->fixed_by, sizeof(a->fixed_by));
	sql_column_text(st, i++, a->who, sizeof(a->who));
	sql_column_text(st, i++, a->at, sizeof(a->at));
	sql_column_text(st, i++, a->note, sizeof(a->note));
	a->reopened = (unsigned)sqlite3_column_int(st, i);
}

int history_alerts_list(struct history *h, int state, struct history_alert **out, size_t *n,
			struct lab_error *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	struct history_alert *a = NULL;
	size_t cap = 0;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = sql_prepare(h->db, "SELECT id, source, ledger, job, series, night, commit_sha, direction, "
			     "change_pct, culprit, report, raised_at, state, fixed_by, who, at, "
			     "note, reopened FROM alerts WHERE ?1 IS NULL OR state = ?1 "
			     "ORDER BY id DESC", &st, err)) < 0)
		return r;
	sql_bind_text(st, 1, state >= 0 ? alert_state_name((enum alert_state)state) : NULL);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			struct history_alert *g = realloc(a, (cap = cap ? 2 * cap : 16) * sizeof(*a));

			if (!g) {
				free(a);
				return -ENOMEM;
			}
			a = g;
		}
		row(st, &a[(*n)++]);
	}
	if (r != SQLITE_DONE) {
		free(a);
		*n = 0;
		return sql_fail(h->db, r, "reading the alerts", err);
	}
	*out = a;
	return 0;
}

/* ---- out --------------------------------------------------------------------------------- */

static json_t *one_json(const struct history_alert *a)
{
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:s?, s:s, s:s, s:s, "
			 "s:s?, s:s?, s:s?, s:s?, s:I}",
			 "id", (json_int_t)a->id, "source", a->source, "ledger", a->ledger, "job",
			 a->job, "series",
			 a->series, "night", a->night, "commit", a->commit, "direction",
			 a->direction, "change_pct", isfinite(a->change_pct)
			 ? json_real(a->change_pct) : json_null(), "culprit",
			 a->culprit[0] ? a->culprit : NULL, "report", a->report, "raised_at",
			 a->raised_at, "state", alert_state_name(a->state), "fixed_by",
			 a->fixed_by[0] ? a->fixed_by : NULL, "who", a->who[0] ? a->who : NULL,
			 "at", a->at[0] ? a->at : NULL, "note", a->note[0] ? a->note : NULL,
			 "reopened", (json_int_t)a->reopened);
}

json_t *history_alerts_json(const struct history_alert *a, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < n; i++)
		if (json_array_append_new(arr, one_json(&a[i])) < 0) {
			json_decref(arr);
			return NULL;
		}
	return arr ? json_pack("{s:s, s:o}", "schema", HISTORY_ALERTS_SCHEMA, "alerts", arr) : NULL;
}

int history_alerts_text(const struct history_alert *a, size_t n, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	if (!n)
		strbuf_append(&sb, "no alerts\n");
	for (size_t i = 0; i < n; i++) {
		char series[200], note[ALERT_NOTE_MAX + 1], who[128];

		text_clean_copy(series, sizeof(series), a[i].series);
		text_clean_copy(note, sizeof(note), a[i].note);
		text_clean_copy(who, sizeof(who), a[i].who);
		strbuf_appendf(&sb, "#%-4lld %-12s %-10s %+7.2f %%  %s  night %s  %.12s%s%.12s\n",
			       a[i].id, alert_state_name(a[i].state), a[i].direction,
			       a[i].change_pct, series, a[i].night, a[i].commit,
			       a[i].culprit[0] ? "  culprit " : "", a[i].culprit);
		if (a[i].state != ALERT_NEW || a[i].reopened)
			strbuf_appendf(&sb, "      %s by %s at %s%s%.12s%s%s\n",
				       a[i].state == ALERT_NEW ? "new again" : alert_state_name(a[i].state),
				       who, a[i].at,
				       a[i].fixed_by[0] ? ", fixed by " : "", a[i].fixed_by,
				       note[0] ? ": " : "", note);
	}
	return strbuf_take(&sb, out);
}
