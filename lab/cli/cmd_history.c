/* lab history [list|series|rebuild|index] ...: the index of reports (lab/history/history.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/report_files.h"
#include "cli/runenv.h"
#include "history/history.h"
#include "run/engine.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

/* Where `lab run` writes reports unless told otherwise (lab/run/engine.c). */
#define DEFAULT_REPORTS "reports"

enum verb { LIST, SERIES, REBUILD, INDEX };

struct hargs {
	enum verb verb;
	struct history_filter f;
	int json;
	unsigned limit;
	const char *db_opt;
	char db[PATH_MAX];
	char **files;
	int nr_files;
};

/* One command line a process: what the tables write to (--state: the run environment's). */
static struct hargs args;

static const struct cli_opt filter_opts[] = {
	OPT_STRING(0, "job", &args.f.job, "NAME", "only this job's reports"),
	OPT_STRING(0, "kernel", &args.f.kernel, "LABEL",
		   "only runs (series) of this kernel: label, variant or release"),
	OPT_STRING(0, "timing", &args.f.timing, "MODEL",
		   "only runs (series) of this timing model (quantum-q1000: one quantum)"),
	OPT_END(),
};

static const struct cli_opt limit_opts[] = {
	OPT_UINT(0, "limit", &args.limit, "N", 1, 1000000, "list at most N reports"),
	OPT_END(),
};

static const struct cli_opt series_only[] = {
	OPT_STRING(0, "workload", &args.f.workload, "W", "series: only this workload's"),
	OPT_STRING(0, "metric", &args.f.metric, "M", "series: only this metric's"),
	OPT_FLAG(0, "primary", &args.f.primary, "series: only primary metrics"),
	OPT_END(),
};

static const struct cli_opt json_opts[] = {
	OPT_FLAG(0, "json", &args.json, "print JSON, keys sorted (schemas " HISTORY_LIST_SCHEMA
		 ", " HISTORY_SERIES_SCHEMA ")"),
	OPT_END(),
};

/* What every verb takes; rebuild and index take nothing else. */
static const struct cli_opt index_opts[] = {
	OPT_STRING(0, "db", &args.db_opt, "FILE", "the index (default STATE/" HISTORY_DB_NAME ")"),
	OPT_GROUP(cli_state_opts),
	OPT_END(),
};

/* Each verb's options: its synopsis, and what parse() lets it take. */
static const struct cli_opt list_opts[] = {
	OPT_GROUP(filter_opts), OPT_GROUP(limit_opts), OPT_GROUP(json_opts), OPT_GROUP(index_opts),
	OPT_END(),
};

static const struct cli_opt series_opts[] = {
	OPT_GROUP(filter_opts), OPT_GROUP(series_only), OPT_GROUP(json_opts),
	OPT_GROUP(index_opts), OPT_END(),
};

static const struct cli_opt options[] = {
	OPT_GROUP(filter_opts), OPT_GROUP(limit_opts), OPT_GROUP(series_only),
	OPT_GROUP(json_opts), OPT_GROUP(index_opts), OPT_END(),
};

void cmd_history_help(void)
{
	memset(&args, 0, sizeof(args));
	cli_synopsis("history", "[list]", list_opts);
	cli_synopsis("history series", NULL, series_opts);
	cli_synopsis("history rebuild", "[DIR|FILE...]", index_opts);
	cli_synopsis("history index", "FILE|DIR...", index_opts);
	printf("\nEvery report is indexed in an SQLite file: its job, status and runs, and per\n"
	       "series of each kernel its summary over boots, as `lab compare` computes it.\n"
	       "The report files stay the source of truth: the index can always be rebuilt\n"
	       "from them.  `lab run` adds each report it writes.\n"
	       "  list      the reports, newest first, one line each (the default)\n"
	       "  series    per series and timing model, its summaries over time\n"
	       "  rebuild   drop the index and index the reports again (default: %s/)\n"
	       "  index     add reports, or read again those whose files changed\n"
	       "Each option at length: man lab, \"OPTIONS OF LAB HISTORY\".\n\nOPTIONS\n",
	       DEFAULT_REPORTS);
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab history --job quick --limit 10\n"
	       "  lab history series --job ab-vma-lock --workload pft --primary\n"
	       "  lab history rebuild reports/\n\n"
	       "Exit status: 0 ok (also when reports were skipped); 4 lab error (the index\n"
	       "could not be opened or written, or it is of a newer lab); 2 bad arguments or a\n"
	       "report argument that names nothing.\n");
}

static int table_has(const struct cli_opt *t, const struct cli_opt *o)
{
	for (; t->kind != CLI_OPT_END; t++)
		if (t == o || (t->kind == CLI_OPT_GROUP && table_has(t->group, o)))
			return 1;
	return 0;
}

/* The parser's question: does the verb take option o. */
static int option_fits(const struct cli_opt *o, struct opt_error *e)
{
	const struct cli_opt *verb_opts[] = { list_opts, series_opts, index_opts, index_opts };
	int r;

	if (table_has(verb_opts[args.verb], o))
		return 0;
	r = opt_error_set(e, "--%s does not apply here", o->name);
	e->usage = 1;
	return r;
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

static int parse(int argc, char **argv)
{
	int skip, first;

	memset(&args, 0, sizeof(args));
	if ((skip = parse_verb(argc, argv, &args.verb)) < 0)
		return -EINVAL;
	argc -= skip;
	argv += skip;
	if ((first = cli_parse_with(argc, argv, options, option_fits)) < 0)
		return -EINVAL;
	args.f.limit = args.limit;
	args.files = argv + first;
	args.nr_files = argc - first;
	if (args.nr_files && (args.verb == LIST || args.verb == SERIES)) {
		cli_usage_err("unexpected argument '%s'", args.files[0]);
		return -EINVAL;
	}
	if (!args.nr_files && args.verb == INDEX) {
		cli_err("index: expected report files or directories");
		return -EINVAL;
	}
	if (args.db_opt)
		snprintf(args.db, sizeof(args.db), "%s", args.db_opt);
	else
		snprintf(args.db, sizeof(args.db), "%s/%s", cli_runenv_state(), HISTORY_DB_NAME);
	return 0;
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
	char **paths = a->nr_files ? a->files : def;
	int n = a->nr_files ? a->nr_files : 1;

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
	if (parse(argc, argv) < 0)
		return EXIT_BAD_INPUT;
	if (args.verb == LIST || args.verb == SERIES)
		return query(&args);
	return write_index(&args);
}
