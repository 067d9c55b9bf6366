/* lab history [list|series|rebuild|index] ...: the index of reports (lab/history/history.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/report_files.h"
#include "history/history.h"
#include "run/engine.h"
#include "util/cleanup.h"
#include "util/jsonio.h"
#include "util/statedir.h"

/* Where `lab run` writes reports unless told otherwise (lab/run/engine.c). */
#define DEFAULT_REPORTS "reports"

void cmd_history_help(void)
{
	printf("usage: lab history [list] [--job NAME] [--kernel LABEL] [--timing MODEL]\n"
	       "                   [--limit N] [--json] [--db FILE]\n"
	       "       lab history series [--job NAME] [--kernel LABEL] [--timing MODEL]\n"
	       "                   [--workload W] [--metric M] [--primary] [--json] [--db FILE]\n"
	       "       lab history rebuild [DIR|FILE...] [--db FILE]\n"
	       "       lab history index FILE|DIR... [--db FILE]\n\n"
	       "Every report is indexed in an SQLite file: its job, status and runs (kernel\n"
	       "label, variant, release, source commit and build key, timing model, host,\n"
	       "contended or not), and per series (workload, params, task count, metric) of\n"
	       "each kernel its summary over boots: boots, mean of the per-boot means\n"
	       "(harmonic for rates), CV between and within boots, as `lab compare` computes\n"
	       "them.  The report files stay the source of truth: the index can always be\n"
	       "rebuilt from them.  `lab run` adds each report it writes.\n\n"
	       "  list      the reports, newest first, one line each (the default)\n"
	       "  series    per series and timing model, its summaries over time (oldest first)\n"
	       "  rebuild   drop the index and index the reports again (default: %s/, as\n"
	       "            `lab run` writes them), forgetting reports whose files are gone;\n"
	       "            nothing changes when an argument names no file or directory\n"
	       "  index     add reports, or read again those whose files changed\n\n"
	       "Report arguments are files, directories holding report.json, or directories\n"
	       "whose subdirectories do.  A report that cannot be read (corrupt, truncated,\n"
	       "another schema, too large) is named on stderr with the reason, skipped and\n"
	       "counted.\n\n"
	       "  --job NAME       only this job's reports\n"
	       "  --kernel LABEL   only runs (series) of this kernel: its label in the job, else\n"
	       "                   its variant, else its release\n"
	       "  --timing MODEL   only runs (series) of this timing model: kvm, tcg, icount,\n"
	       "                   quantum (every quantum) or one quantum, e.g. quantum-q1000\n"
	       "  --limit N        list at most N reports\n"
	       "  --workload W     series: only this workload's\n"
	       "  --metric M       series: only this metric's\n"
	       "  --primary        series: only primary metrics (those that decide a\n"
	       "                   comparison)\n"
	       "  --json           print JSON, keys sorted (schemas %s,\n"
	       "                   %s)\n"
	       "  --db FILE        the index (default $LAB_STATE_DIR/%s, see\n"
	       "                   'lab run --help')\n\n"
	       "EXAMPLES\n"
	       "  lab history --job quick --limit 10\n"
	       "  lab history series --job ab-vma-lock --workload pft --primary\n"
	       "  lab history rebuild reports/\n\n"
	       "Exit status: 0 ok (also when reports were skipped); 4 lab error (the index\n"
	       "could not be opened or written, or it is of a newer lab); 2 bad arguments or a\n"
	       "report argument that names nothing.\n",
	       DEFAULT_REPORTS, HISTORY_LIST_SCHEMA, HISTORY_SERIES_SCHEMA, HISTORY_DB_NAME);
}

enum verb { LIST, SERIES, REBUILD, INDEX };

struct hargs {
	enum verb verb;
	struct history_filter f;
	int json;
	char db[PATH_MAX];
	char **files;
	int nr_files;
};

/* Options that only some verbs take: o (the option's letter) against the verb. */
static int option_fits(int o, enum verb v)
{
	if (o == 'd')
		return 1;
	if (v == REBUILD || v == INDEX)
		return 0;
	if (o == 'l')
		return v == LIST;
	if (o == 'w' || o == 'm' || o == 'p')
		return v == SERIES;
	return 1;
}

static int parse_limit(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || end == s || *end || *out < 1 ? -EINVAL : 0;
}

static int parse_verb(int argc, char **argv, enum verb *v)
{
	static const char *const names[] = { "list", "series", "rebuild", "index" };

	*v = LIST;
	if (argc < 2 || argv[1][0] == '-')
		return 0;
	for (int i = 0; i < 4; i++)
		if (!strcmp(argv[1], names[i])) {
			*v = (enum verb)i;
			return 1;
		}
	cli_err("'%s' is not a history command: list, series, rebuild or index (see "
		"'lab history --help')", argv[1]);
	return -EINVAL;
}

static int parse_option(int c, struct hargs *a)
{
	switch (c) {
	case 'j': a->json = 1; return 0;
	case 'J': a->f.job = optarg; return 0;
	case 'k': a->f.kernel = optarg; return 0;
	case 't': a->f.timing = optarg; return 0;
	case 'w': a->f.workload = optarg; return 0;
	case 'm': a->f.metric = optarg; return 0;
	case 'p': a->f.primary = 1; return 0;
	case 'd': snprintf(a->db, sizeof(a->db), "%s", optarg); return 0;
	case 'l':
		if (parse_limit(optarg, &a->f.limit) == 0)
			return 0;
		cli_err("--limit must be a positive number");
		return -EINVAL;
	default: return -EINVAL;
	}
}

static int parse(int argc, char **argv, struct hargs *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },       { "job", required_argument, NULL, 'J' },
		{ "kernel", required_argument, NULL, 'k' }, { "timing", required_argument, NULL, 't' },
		{ "limit", required_argument, NULL, 'l' }, { "workload", required_argument, NULL, 'w' },
		{ "metric", required_argument, NULL, 'm' }, { "primary", no_argument, NULL, 'p' },
		{ "db", required_argument, NULL, 'd' },     { 0 },
	};
	int skip = parse_verb(argc, argv, &a->verb), c, li = 0;

	if (skip < 0)
		return -EINVAL;
	argc -= skip;
	argv += skip;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", opts, &li)) != -1) {
		if (c == '?' || c == ':') {
			cli_bad_option(c, argv);
			return -EINVAL;
		}
		if (!option_fits(c, a->verb)) {
			cli_usage_err("--%s does not apply here",
				opts[li].name);
			return -EINVAL;
		}
		if (parse_option(c, a) < 0)
			return -EINVAL;
	}
	a->files = argv + optind;
	a->nr_files = argc - optind;
	if (a->nr_files && (a->verb == LIST || a->verb == SERIES)) {
		cli_usage_err("unexpected argument '%s'", a->files[0]);
		return -EINVAL;
	}
	if (!a->nr_files && a->verb == INDEX) {
		cli_err("index: expected report files or directories");
		return -EINVAL;
	}
	return 0;
}

static void default_db(char *buf, size_t len)
{
	char state[PATH_MAX];

	statedir_default(state, sizeof(state));
	snprintf(buf, len, "%s/%s", state, HISTORY_DB_NAME);
}

static void print_error(const char *what, const struct lab_error *err)
{
	char msg[1400];

	error_format(err, msg, sizeof(msg));
	cli_err("%s%s", what, msg);
}

/* ---- list and series ------------------------------------------------------------------ */

/* The listing as the user asked for it: JSON (with a newline) or text. */
static int render(const struct hargs *a, const struct history_report *r,
		  const struct history_point *p, size_t n, char **out)
{
	_cleanup_json_ json_t *j = NULL;
	_cleanup_free_ char *s = NULL;

	*out = NULL;
	if (!a->json)
		return a->verb == LIST ? history_list_text(r, n, out) : history_points_text(p, n, out);
	j = a->verb == LIST ? history_list_json(r, n) : history_points_json(p, n);
	s = j ? jsonio_dumps(j) : NULL;
	if (!s || asprintf(out, "%s\n", s) < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int print_rendered(const struct hargs *a, const struct history_report *r,
			  const struct history_point *p, size_t n)
{
	_cleanup_free_ char *out = NULL;

	if (render(a, r, p, n, &out) < 0) {
		cli_err("out of memory");
		return EXIT_LAB_ERROR;
	}
	fputs(out, stdout);
	return EXIT_OK;
}

static int show(struct history *h, const struct hargs *a)
{
	struct lab_error err = { 0 };
	struct history_report *r = NULL;
	struct history_point *p = NULL;
	size_t n = 0;
	int e, rc;

	e = a->verb == LIST ? history_list(h, &a->f, &r, &n, &err)
			    : history_series(h, &a->f, &p, &n, &err);
	if (e < 0) {
		print_error("", &err);
		return EXIT_LAB_ERROR;
	}
	rc = print_rendered(a, r, p, n);
	if (r)
		history_reports_free(r, n);
	if (p)
		history_points_free(p, n);
	return rc;
}

static int query(const struct hargs *a)
{
	struct lab_error err = { 0 };
	struct history *h = NULL;
	int e = history_open(a->db, 0, &h, &err), rc;

	/* No index yet is an empty history, said once on stderr. */
	if (e == -ENOENT) {
		print_error("", &err);
		return a->json ? print_rendered(a, NULL, NULL, 0) : EXIT_OK;
	}
	if (e < 0) {
		print_error("", &err);
		return EXIT_LAB_ERROR;
	}
	rc = show(h, a);
	history_close(h);
	return rc;
}

/* ---- rebuild and index ---------------------------------------------------------------- */

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The report files the arguments name.  A directory without any is said, not refused: an
 * empty history is a history. */
static int collect(const struct hargs *a, struct report_files *f)
{
	char *def[] = { DEFAULT_REPORTS };
	char **args = a->nr_files ? a->files : def;
	int n = a->nr_files ? a->nr_files : 1;

	for (int i = 0; i < n; i++) {
		struct lab_error err = { 0 };
		int r = report_files_add(f, args[i], &err);

		if (r == -ENOENT && is_dir(args[i])) {
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
static int fill(struct history *h, const struct hargs *a, const struct report_files *f,
		unsigned *count, struct lab_error *err)
{
	int e = history_begin(h, err);

	if (e == 0 && a->verb == REBUILD)
		e = history_reset(h, err);
	if (e == 0)
		e = index_files(h, f, count, err);
	if (e < 0) {
		history_rollback(h);
		return e;
	}
	return history_commit(h, err);
}

static int write_index(const struct hargs *a)
{
	struct report_files f = { 0 };
	struct lab_error err = { 0 };
	struct history *h = NULL;
	unsigned count[HISTORY_SKIPPED + 1] = { 0 };
	int rc = collect(a, &f), e = 0;

	if (rc == EXIT_OK && (e = history_open(a->db, 1, &h, &err)) == 0)
		e = fill(h, a, &f, count, &err);
	history_close(h);
	report_files_free(&f);
	if (rc != EXIT_OK)
		return rc;
	if (e < 0) {
		print_error("", &err);
		return EXIT_LAB_ERROR;
	}
	if (a->verb == REBUILD)
		printf("%s: rebuilt, %u report%s indexed, %u skipped\n", a->db, count[HISTORY_ADDED],
		       count[HISTORY_ADDED] == 1 ? "" : "s", count[HISTORY_SKIPPED]);
	else
		printf("%s: %u added, %u replaced, %u unchanged, %u skipped\n", a->db,
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

int cmd_history(int argc, char **argv)
{
	struct hargs a = { 0 };

	if (parse(argc, argv, &a) < 0)
		return EXIT_BAD_INPUT;
	if (!a.db[0])
		default_db(a.db, sizeof(a.db));
	if (a.verb == LIST || a.verb == SERIES)
		return query(&a);
	return write_index(&a);
}
