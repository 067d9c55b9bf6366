/* lab report DIR|FILE... [-o FILE] [--title TEXT] [--threshold PCT]: the HTML dashboard. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dashboard.h"
#include "cli/cli.h"
#include "cli/projopts.h"
#include "cli/report_files.h"
#include "core/nightly_cfg.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

/* The scripts and styles every page embeds, beside the lab's sources (util/checkout.h):
 * read at run time rather than compiled in, so lab/scripts/vendor-charts.sh can refresh the
 * chart library without a rebuild, the same way topologies are found. */
#define ASSET_MAX_SIZE (4u << 20)
static const char *const asset_files[] = {
	"lab/report/vendor/chart.umd.min.js",
	"lab/report/vendor/chartjs-chart-error-bars.umd.min.js",
	"lab/report/dashboard.js",
	"lab/report/dashboard.css",
};
#define NR_ASSETS (sizeof(asset_files) / sizeof(asset_files[0]))

struct report_args {
	const char *out, *title;
	double threshold;
	int first, argc;
	char **argv;
	struct projopts proj;
	json_t *projections; /* projseries_json's, or NULL */
};

/* One command line a process: what the table writes to. */
static struct report_args args;

static const struct cli_opt options[] = {
	OPT_STRING('o', "out", &args.out, "FILE", "the page (also --output)"),
	OPT_STRING(0, "output", &args.out, "FILE", NULL),
	OPT_STRING(0, "title", &args.title, "TEXT", "page title"),
	OPT_DOUBLE(0, "threshold", &args.threshold, "PCT", 0, 0,
		   "the minimum effect that matters, in %"),
	OPT_GROUP(projopts_opts),
	OPT_END(),
};

/* The defaults, also what --help shows. */
static void set_defaults(void)
{
	memset(&args, 0, sizeof(args));
	args.out = "dashboard.html";
	args.title = "numalab dashboard";
	args.threshold = COMPARE_DEFAULT_THRESHOLD_PCT;
	projopts_init();
}

void cmd_report_help(void)
{
	set_defaults();
	cli_synopsis("report", "DIR|FILE...", options);
	printf("\nWrites one self-contained HTML dashboard (no network needed to view it) of the\n"
	       "reports given: report files, directories holding report.json, or directories\n"
	       "whose subdirectories do (such as reports/).  It shows the reports, an A/B table\n"
	       "of every kernel variant against the first one that ran the same workloads (as\n"
	       "'lab compare' computes it, with verdict colours), scaling curves, trends and\n"
	       "every run.  Exactly two arguments are two sides, as in 'lab compare A B'.  A\n"
	       "directory of 'lab nightly' (it holds ledger.json) adds its trends.  Each\n"
	       "option at length: man lab, \"OPTIONS OF LAB REPORT\".\n\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab report reports/                     # every report under reports/\n"
	       "  lab report reports/ID -o ab.html --title \"per-VMA lock A/B\"\n"
	       "  lab report reports/nightly/mm-example --threshold 2\n"
	       "  lab report reports/ID --project-from reports/COUNTED \\\n"
	       "             --site do_huge_pmd_anonymous_page+\n\n"
	       "Exit status: 0 written, 2 bad input (unreadable or invalid report), 4 lab error.\n");
}

static int parse_args(int argc, char **argv)
{
	set_defaults();
	if ((args.first = cli_parse(argc, argv, options)) < 0)
		return -EINVAL;
	if (args.first >= argc) {
		cli_usage_err("expected one or more report files or directories");
		return -EINVAL;
	}
	projopts_get(&args.proj);
	if (projopts_check(&args.proj) < 0)
		return -EINVAL;
	args.argc = argc;
	args.argv = argv;
	return 0;
}

static int bad_input(const char *what, const struct lab_error *err)
{
	char msg[1400];

	error_format(err, msg, sizeof(msg));
	cli_err("%s%s", what, msg);
	return EXIT_BAD_INPUT;
}

/* A `lab nightly` directory (it holds ledger.json): each job's latest night report goes to
 * nightly, and that night's run report to f. */
static int load_nightly(const char *dir, struct report_files *f, json_t *nightly)
{
	_cleanup_free_ char *lpath = fs_join(dir, "ledger.json");
	_cleanup_json_ json_t *j = NULL;
	struct nightly_ledger l = { 0 };
	struct lab_error err = { 0 };
	int r;

	if (!lpath)
		return EXIT_LAB_ERROR;
	if ((r = jsonio_load_file(lpath, 64u << 20, &j, &err)) < 0 ||
	    (r = nightly_ledger_from_json(j, &l, &err)) < 0) {
		error_set_file(&err, lpath);
		return bad_input("", &err);
	}
	for (size_t i = l.n; i-- > 0;) {
		const struct nightly_night *n = &l.nights[i];
		char path[PATH_MAX * 2];
		json_t *doc = NULL, *d;
		size_t k;
		int seen = 0;

		json_array_foreach(nightly, k, d)
			seen |= !strcmp(json_string_value(json_object_get(d, "job")) ?: "", n->job);
		if (seen)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s/nightly.json", dir, n->night, n->job);
		if (jsonio_load_file(path, 64u << 20, &doc, &err) < 0)
			continue; /* a night cut short: the one before it has a report */
		json_array_append_new(nightly, doc);
		snprintf(path, sizeof(path), "%s/%s", dir, n->report);
		if (fs_exists(path) && report_files_add(f, path, &err) < 0) {
			nightly_ledger_free(&l);
			return bad_input("", &err);
		}
	}
	nightly_ledger_free(&l);
	return EXIT_OK;
}

static int load(const struct report_args *a, struct report_files *f, struct series_set *s,
		json_t *nightly)
{
	struct lab_error err = { 0 };
	int sides = a->argc - a->first == 2, r;
	size_t na = 0;

	for (int i = a->first; i < a->argc; i++) {
		_cleanup_free_ char *ledger = fs_join(a->argv[i], "ledger.json");

		if (ledger && fs_exists(ledger)) {
			if ((r = load_nightly(a->argv[i], f, nightly)) != EXIT_OK)
				return r;
			sides = 0;
			continue;
		}
		if (report_files_add(f, a->argv[i], &err) < 0)
			return bad_input("", &err);
		if (i == a->first)
			na = f->n;
	}
	if (report_files_read(f, &err) < 0)
		return bad_input("", &err);
	/* Two report arguments are two sides, as in `lab compare A B`. */
	if (sides) {
		r = report_files_sides(f, na, s, &err);
		if (r == -ENOMEM)
			return EXIT_LAB_ERROR;
		return r < 0 ? bad_input("", &err) : EXIT_OK;
	}
	for (size_t i = 0; i < f->n; i++) {
		r = series_add_report(s, f->doc[i], f->path[i], NULL, &err);
		if (r == -ENOMEM)
			return EXIT_LAB_ERROR;
		if (r < 0)
			return bad_input("", &err);
	}
	return EXIT_OK;
}

static int read_assets(char *text[NR_ASSETS])
{
	for (size_t i = 0; i < NR_ASSETS; i++) {
		char path[PATH_MAX + 64];
		int r = checkout_find(asset_files[i], path, sizeof(path));

		if (r == 0)
			r = fs_read_file(path, ASSET_MAX_SIZE, &text[i], NULL);
		if (r < 0) {
			cli_err("cannot read %s: %s (run from the checkout, or set LAB_ROOT; "
				"lab/scripts/vendor-charts.sh restores the vendored chart library)",
				path, strerror(-r));
			return r;
		}
	}
	return 0;
}

static int write_page(const struct report_args *a, const struct series_set *s,
		      const struct comparison *c, size_t nc, const char *note,
		      const json_t *nightly)
{
	char *text[NR_ASSETS] = { 0 };
	_cleanup_free_ char *html = NULL;
	struct dashboard_input in = { .set = s, .cmp = c, .nr_cmp = nc, .title = a->title,
				      .cmp_note = note && note[0] ? note : NULL,
				      .nightly = json_array_size(nightly) ? nightly : NULL,
				      .projections = a->projections };
	int r = read_assets(text);

	if (r == 0) {
		struct dashboard_assets as = { .chart_js = text[0], .errorbars_js = text[1],
					       .page_js = text[2], .css = text[3] };

		r = dashboard_html(&in, &as, &html);
		if (r == -EINVAL)
			cli_err("an embedded script or style could end its HTML element "
				"early; refusing to write the page");
	}
	for (size_t i = 0; i < NR_ASSETS; i++)
		free(text[i]);
	if (r < 0)
		return EXIT_LAB_ERROR;
	r = fs_write_atomic(a->out, html, strlen(html));
	if (r < 0) {
		cli_err("cannot write %s: %s", a->out, strerror(-r));
		return EXIT_LAB_ERROR;
	}
	printf("dashboard: %s (%zu reports, %zu kernel variants, %zu bytes)\n", a->out,
	       s->nr_reports, s->nr_variants, strlen(html));
	return EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_files f = { 0 };
	_cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
	struct comparison *c = NULL;
	_cleanup_json_ json_t *nightly = json_array();
	struct series_set s;
	size_t nc = 0;
	int rc;

	if (parse_args(argc, argv) < 0)
		return EXIT_BAD_INPUT;
	if (!nightly)
		return EXIT_LAB_ERROR;
	if ((rc = projopts_series(&args.proj, &args.projections)) < 0)
		return rc == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	series_init(&s);
	rc = load(&args, &f, &s, nightly);
	if (rc == EXIT_OK) {
		c = calloc(s.nr_variants + 1, sizeof(*c));
		if (!c || compare_all(&s, args.threshold, 0, c, &nc, &note) < 0)
			rc = EXIT_LAB_ERROR;
	}
	if (rc == EXIT_OK)
		rc = write_page(&args, &s, c, nc, note.buf, nightly);
	for (size_t i = 0; i < nc; i++)
		compare_free(&c[i]);
	free(c);
	series_free(&s);
	report_files_free(&f);
	json_decref(args.projections);
	return rc;
}
