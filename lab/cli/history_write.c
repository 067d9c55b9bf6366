/* lab history rebuild and index, and lab run's report added: report files into the history
 * index (history_write.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/history_write.h"
#include "cli/report_files.h"
#include "history/alerts.h"
#include "util/clock.h"
#include "regress/nightly.h"
#include "history/history.h"

static void print_error(const char *what, const struct lab_error *err)
{
	char msg[1400];

	error_format(err, msg, sizeof(msg));
	cli_err("%s%s", what, msg);
}

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The report files the arguments name.  A directory without any is said, not refused: an
 * empty history is a history. */
static int collect(char **files, int nr_files, struct report_files *f)
{
	char *def[] = { DEFAULT_REPORTS };
	char **paths = nr_files ? files : def;
	int n = nr_files ? nr_files : 1;

	for (int i = 0; i < n; i++) {
		struct lab_error err = { 0 };
		int r = report_files_add(f, paths[i], &err);

		if (r == -ENOENT && is_dir(paths[i])) {
			print_error("", &err);
			continue;
		}
		if (r < 0) {
			print_error("", &err);
			return r == -ENOMEM ? EXIT_LAB_ERROR : EXIT_BAD_INPUT;
		}
	}
	return EXIT_OK;
}

/* Every file into the index; count[what] per file.  A report skipped is said on stderr; a
 * negative errno (err set) only when the index failed. */
static int index_files(struct history *h, const struct report_files *f, unsigned *count,
		       struct lab_error *err)
{
	for (size_t i = 0; i < f->n; i++) {
		enum history_indexed w;
		int e;

		memset(err, 0, sizeof(*err));
		if ((e = history_index_file(h, f->path[i], &w, err)) < 0)
			return e;
		count[w]++;
		if (w == HISTORY_SKIPPED)
			print_error("skipped ", err);
	}
	return 0;
}

/* One transaction: a rebuild that fails (or is interrupted) leaves the old index. */
static int fill(struct history *h, int rebuild, const struct report_files *f, unsigned *count,
		struct lab_error *err)
{
	int e = history_begin(h, err);

	if (e == 0 && rebuild)
		e = history_reset(h, err);
	if (e == 0)
		e = index_files(h, f, count, err);
	if (e < 0) {
		history_rollback(h);
		return e;
	}
	return history_commit(h, err);
}

int cli_history_write(const char *db, int rebuild, char **files, int nr_files)
{
	struct report_files f = { 0 };
	struct lab_error err = { 0 };
	struct history *h = NULL;
	unsigned count[HISTORY_SKIPPED + 1] = { 0 };
	int rc = collect(files, nr_files, &f), e = 0;

	if (rc == EXIT_OK && (e = history_open(db, 1, &h, &err)) == 0)
		e = fill(h, rebuild, &f, count, &err);
	history_close(h);
	report_files_free(&f);
	if (rc != EXIT_OK)
		return rc;
	if (e < 0) {
		print_error("", &err);
		return EXIT_LAB_ERROR;
	}
	if (rebuild)
		printf("%s: rebuilt, %u report%s indexed, %u skipped\n", db, count[HISTORY_ADDED],
		       count[HISTORY_ADDED] == 1 ? "" : "s", count[HISTORY_SKIPPED]);
	else
		printf("%s: %u added, %u replaced, %u unchanged, %u skipped\n", db,
		       count[HISTORY_ADDED], count[HISTORY_REPLACED], count[HISTORY_UNCHANGED],
		       count[HISTORY_SKIPPED]);
	return EXIT_OK;
}

void cli_history_add(const char *state_dir, const char *report)
{
	struct lab_error err = { 0 };
	struct history *h = NULL;
	enum history_indexed w = HISTORY_SKIPPED;
	char db[PATH_MAX], msg[1400];
	int e;

	snprintf(db, sizeof(db), "%s/%s", state_dir, HISTORY_DB_NAME);
	e = history_open(db, 1, &h, &err);
	if (e == 0)
		e = history_index_file(h, report, &w, &err);
	history_close(h);
	if (e == 0 && w != HISTORY_SKIPPED)
		return;
	error_format(&err, msg, sizeof(msg));
	cli_err("warning: the report is not in the history index %s: %s", db, msg);
}

int cli_history_alert(const char *state_dir, const struct nightly_alert *a)
{
	struct history_alert al = { .change_pct = a->change_pct };
	struct lab_error err = { 0 };
	struct history *h = NULL;
	char db[PATH_MAX], msg[1400], at[CLOCK_ISO_LEN];
	long long id = 0;
	int is_new = 1, e;

	snprintf(al.source, sizeof(al.source), "%s", a->source);
	snprintf(al.ledger, sizeof(al.ledger), "%s", a->ledger);
	snprintf(al.job, sizeof(al.job), "%s", a->job);
	snprintf(al.series, sizeof(al.series), "%s", a->series);
	snprintf(al.night, sizeof(al.night), "%s", a->night);
	snprintf(al.commit, sizeof(al.commit), "%s", a->commit);
	snprintf(al.direction, sizeof(al.direction), "%s", a->direction);
	snprintf(al.culprit, sizeof(al.culprit), "%s", a->culprit ? a->culprit : "");
	snprintf(al.report, sizeof(al.report), "%s", a->report);
	clock_utc_iso(at, sizeof(at));
	snprintf(db, sizeof(db), "%s/%s", state_dir, HISTORY_DB_NAME);
	e = history_open(db, 1, &h, &err);
	if (e == 0)
		e = history_alert_raise(h, &al, at, &id, &is_new, &err);
	history_close(h);
	if (e == 0)
		return is_new;
	error_format(&err, msg, sizeof(msg));
	cli_err("warning: the alert is not in the history index %s (counted as new): %s", db, msg);
	return e;
}
