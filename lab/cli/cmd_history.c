/* lab history [list|series|rebuild|index|alerts] ...: the index of reports
 * (lab/history/history.h); rebuild and index write it in history_write.c, alerts is
 * cmd_history_alerts.c's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/history_alerts.h"
#include "cli/history_write.h"
#include "cli/runenv.h"
#include "history/history.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

enum verb { LIST, SERIES, REBUILD, INDEX, ALERTS };

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
	       "  alerts    nightly's alerts and their triage (below)\n"
	       "Each option at length: man lab, \"OPTIONS OF LAB HISTORY\".\n\nOPTIONS\n",
	       DEFAULT_REPORTS);
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab history --job quick --limit 10\n"
	       "  lab history series --job ab-vma-lock --workload pft --primary\n"
	       "  lab history rebuild reports/\n\n"
	       "Exit status: 0 ok (also when reports were skipped); 4 lab error (the index\n"
	       "could not be opened or written, or it is of a newer lab); 2 bad arguments or a\n"
	       "report argument that names nothing.\n\n");
	cmd_history_alerts_help();
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
	static const char *const names[] = { "list", "series", "rebuild", "index", "alerts" };

	*v = LIST;
	if (argc < 2 || argv[1][0] == '-')
		return 0;
	for (int i = 0; i < 5; i++)
		if (!strcmp(argv[1], names[i])) {
			*v = (enum verb)i;
			return 1;
		}
	cli_err("'%s' is not a history command: list, series, rebuild, index or alerts (see "
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

int cmd_history(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "alerts"))
		return cmd_history_alerts(argc - 1, argv + 1);
	if (parse(argc, argv) < 0)
		return EXIT_BAD_INPUT;
	if (args.verb == LIST || args.verb == SERIES)
		return query(&args);
	return cli_history_write(args.db, args.verb == REBUILD, args.files, args.nr_files);
}
