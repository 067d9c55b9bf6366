/* lab compare A [B] [--json] [--threshold PCT] [--all-metrics] [--labels BASE,OTHER...]: A/B
 * verdicts on two kernel variants, or on chosen labels of one report set. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/projseries.h"
#include "cli/cli.h"
#include "cli/learned.h"
#include "cli/projopts.h"
#include "cli/report_decision.h"
#include "cli/report_files.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

#define MAX_LABELS 16

enum compare_format { FORMAT_TEXT, FORMAT_MARKDOWN, FORMAT_CSV, FORMAT_JSON };

struct compare_args {
	const char *a, *b;
	char *labels[MAX_LABELS]; /* --labels, split in place (pointers into labels_arg) */
	char labels_arg[1024];
	size_t nr_labels;
	int verbose, all_metrics, json;
	int format;      /* enum compare_format: the index in format_names */
	int git_bisect;  /* --git-bisect: exit codes for `git bisect run` */
	double threshold;
	int threshold_set;   /* --threshold given: it overrules the report's job's */
	int learned;         /* --threshold learned */
	struct projopts proj;
	json_t *projections; /* projseries_json's, or NULL */
};

/* One command line a process: what the table writes to. */
static struct compare_args args;

/* "BASE,OTHER,...": 2..MAX_LABELS non-empty names, none twice. */
static int parse_labels(const char *s, struct compare_args *a)
{
	char *save = NULL;

	if (snprintf(a->labels_arg, sizeof(a->labels_arg), "%s", s) >= (int)sizeof(a->labels_arg))
		return -EINVAL;
	a->nr_labels = 0;
	for (char *t = strtok_r(a->labels_arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (a->nr_labels == MAX_LABELS)
			return -EINVAL;
		for (size_t i = 0; i < a->nr_labels; i++)
			if (!strcmp(a->labels[i], t))
				return -EINVAL;
		a->labels[a->nr_labels++] = t;
	}
	return a->nr_labels >= 2 ? 0 : -EINVAL;
}

static int opt_labels(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	char what[64];

	if (parse_labels(arg, &args) == 0)
		return 0;
	snprintf(what, sizeof(what), "2 to %d different labels (BASE,OTHER,...)", MAX_LABELS);
	return opt_invalid(o, arg, what, e);
}

/* "learned", or a number >= 0 (0: nothing can show equivalence). */
static int opt_threshold(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	char *end = NULL;
	double v;

	args.threshold_set = 1;
	if (!strcmp(arg, "learned")) {
		args.learned = 1;
		return 0;
	}
	v = strtod(arg, &end);
	if (end == arg || *end || !(v >= 0) || !isfinite(v))
		return opt_invalid(o, arg, "\"learned\" or a number >= 0", e);
	args.learned = 0;
	args.threshold = v;
	return 0;
}

/* In enum compare_format's order. */
static const char *const format_names[] = { "text", "markdown", "csv", "json", NULL };

static const struct cli_opt options[] = {
	OPT_FLAG('v', "verbose", &args.verbose, "every metric, with boots, CVs and q"),
	OPT_CHOICE(0, "format", &args.format, "F", format_names,
		   "text, markdown (a table), csv (every series) or json"),
	OPT_FLAG(0, "json", &args.json, "--format json (schema numalab.compare/2)"),
	OPT_CALL(0, "threshold", NULL, "PCT|learned", opt_threshold,
		 "the minimum effect that matters, in % (default 1, or the job's); learned: each series' own"),
	OPT_FLAG(0, "all-metrics", &args.all_metrics,
		 "let every metric decide, not only the primary ones"),
	OPT_CALL(0, "labels", NULL, "LIST", opt_labels,
		 "with only A: BASE,OTHER,...: the labels to compare"),
	OPT_FLAG(0, "git-bisect", &args.git_bisect, "exit codes for `git bisect run`"),
	OPT_GROUP(projopts_opts),
	OPT_END(),
};

/* The defaults, also what --help shows. */
static void set_defaults(void)
{
	memset(&args, 0, sizeof(args));
	args.threshold = COMPARE_DEFAULT_THRESHOLD_PCT;
	projopts_init();
}

/* For CI and nightly jobs: "B is worse", and "cannot tell yet" (never a silent pass). */
void cmd_compare_help(void)
{
	set_defaults();
	cli_synopsis("compare", "A [B]", options);
	printf("\nDecides whether kernel B is worse, better or the same as kernel A.  A and B\n"
	       "are reports or directories of them, all their runs pooled per side; with only\n"
	       "A, each kernel variant of its reports against the first (or --labels).  Per\n"
	       "workload, task count and primary metric: Welch's test on the per-boot means,\n"
	       "the %% change with its 95%% interval, and a verdict: regression, improvement,\n"
	       "no-change, inconclusive (more boots would decide), insufficient-data or\n"
	       "outside-model.  Kernel warnings (WARNING, lockdep, RCU stalls, lockups,\n"
	       "KASAN ...) are listed under the table, two lines a site:\n"
	       "  new in B: warning, B in 2 of 2 boots, A in 0 of 2 boots\n"
	       "    WARNING: CPU: 1 PID: 1 at mm/memory.c:4755 do_anonymous_page+0x3a/0x5c0\n"
	       "\"new in B\" (A never printed it) is a regression by itself, whatever the\n"
	       "figures say; \"gone in B\" and \"in both\" are shown, not deciding; \"one side\n"
	       "only\": the other side's reports predate warnings.  Under a workload that\n"
	       "moved (-v: every workload), \"why it moved\": the profile's symbols whose\n"
	       "instructions per fault (or op) changed beyond the boots' spread, and counters\n"
	       "(vmstat, lock) that did.  Not deciding: they say where the instructions went.\n"
	       "The default output fits 80 columns for a mail, the decision on the last\n"
	       "line.  Each option at length: man lab, \"OPTIONS OF LAB COMPARE\".\n"
	       "\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab compare reports/ID\n"
	       "  lab compare reports/base reports/patched --format markdown\n"
	       "  lab compare reports/ID -v --threshold 2\n"
	       "  lab compare reports/ID --json --project-from reports/COUNTED \\\n"
	       "              --site do_huge_pmd_anonymous_page+\n\n"
	       "Exit status: 0 decided, no regression; 1 a regression (or B had failed runs\n"
	       "and A none, or a new kernel warning); 2 bad input: unreadable reports,\n"
	       "another schema, different workloads, topologies, timing models or host\n"
	       "classes, or no series in common; 3 undecided: no regression seen, but a\n"
	       "deciding metric is inconclusive, has too little data (run more boots) or is\n"
	       "outside the timing model; 4 the lab failed.  With --git-bisect, for `git\n"
	       "bisect run`: 0 good, 1 bad (a regression), 125 skip (undecided), 128 stop\n"
	       "(bad input, lab error).\n");
}

static int parse_args(int argc, char **argv)
{
	int first;

	set_defaults();
	if ((first = cli_parse(argc, argv, options)) < 0)
		return -EINVAL;
	if (args.json)
		args.format = FORMAT_JSON;
	if (argc - first < 1 || argc - first > 2) {
		cli_usage_err("expected A [B]");
		return -EINVAL;
	}
	projopts_get(&args.proj);
	if (projopts_check(&args.proj) < 0)
		return -EINVAL;
	args.a = argv[first];
	args.b = argc - first == 2 ? argv[first + 1] : NULL;
	if (args.b && args.nr_labels) {
		cli_err("--labels picks labels of one report set: give only A");
		return -EINVAL;
	}
	return 0;
}

static int fail_input(const struct lab_error *err)
{
	char msg[1400];

	error_format(err, msg, sizeof(msg));
	cli_err("%s", msg);
	return EXIT_BAD_INPUT;
}

static int load_one(struct report_files *f, struct series_set *s, struct lab_error *err)
{
	int r;

	for (size_t i = 0; i < f->n; i++)
		if ((r = series_add_report(s, f->doc[i], f->path[i], NULL, err)) < 0)
			return r;
	if (s->nr_variants < 2) {
		memset(err, 0, sizeof(*err));
		return error_set(err, "", "%s holds one kernel variant (%s): give two reports, or "
					  "reports of two variants",
				 f->n == 1 ? f->path[0] : "the input",
				 s->nr_variants ? s->variants[0].label : "no runs");
	}
	return 0;
}

/* The pairs to compare, as variant indexes: (0, v) for every other variant, or with --labels
 * (BASE, OTHER) for each OTHER; a label the reports lack is bad input naming those they have. */
static int pick_pairs(const struct compare_args *a, const struct series_set *s, size_t *base,
		      size_t *other, size_t *n, struct lab_error *err)
{
	char known[512] = "";
	size_t idx[MAX_LABELS];

	*base = 0;
	*n = 0;
	if (!a->nr_labels) {
		for (size_t v = 1; v < s->nr_variants; v++)
			other[(*n)++] = v;
		return 0;
	}
	for (size_t i = 0; i < a->nr_labels; i++) {
		size_t v = 0;

		while (v < s->nr_variants && strcmp(s->variants[v].label, a->labels[i]))
			v++;
		if (v == s->nr_variants) {
			for (size_t k = 0; k < s->nr_variants; k++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
					 k ? ", " : "", s->variants[k].label);
			return error_set(err, "", "--labels: no runs labelled \"%s\" (the reports hold: %s)",
					 a->labels[i], known);
		}
		idx[i] = v;
	}
	*base = idx[0];
	for (size_t i = 1; i < a->nr_labels; i++)
		other[(*n)++] = idx[i];
	return 0;
}

static int print_result(const struct series_set *s, const struct comparison *c, size_t n,
			const struct compare_args *a)
{
	_cleanup_free_ char *out = NULL;
	int r;

	if (a->format == FORMAT_JSON) {
		_cleanup_json_ json_t *j = compare_json(s, c, n);

		/* Under its own key, beside the comparisons, never in them. */
		if (j && a->projections &&
		    json_object_set(j, "projections", a->projections) < 0)
			return -ENOMEM;
		out = j ? jsonio_dumps(j) : NULL;
		if (!out)
			return -ENOMEM;
		printf("%s\n", out);
		return 0;
	}
	if (a->projections && a->format != FORMAT_CSV) {
		_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

		if (projseries_text(a->projections, &sb) < 0)
			return -ENOMEM;
		printf("%s\n", sb.buf);
	}
	if (a->format == FORMAT_CSV)
		r = compare_csv(s, c, n, &out);
	else if (a->verbose && a->format == FORMAT_TEXT)
		r = compare_text(s, c, n, &out);
	else
		r = compare_brief(s, c, n, a->format == FORMAT_MARKDOWN, &out);
	if (r < 0)
		return -ENOMEM;
	fputs(out, stdout);
	return 0;
}

static int run_compare(const struct compare_args *a, struct series_set *s,
		       struct report_files *f)
{
	double threshold = a->threshold;
	int learned = a->learned;
	struct lab_error err = { 0 };
	struct comparison *c = NULL;
	_cleanup_free_ size_t *other = NULL;
	size_t na, n = 0, base, np;
	enum compare_decision d;
	int r = 0;

	if (report_files_add(f, a->a, &err) < 0)
		return fail_input(&err);
	na = f->n;
	if (a->b && report_files_add(f, a->b, &err) < 0)
		return fail_input(&err);
	if (report_files_read(f, &err) < 0)
		return fail_input(&err);
	r = a->b ? report_files_sides(f, na, s, &err) : load_one(f, s, &err);
	if (r == -ENOMEM)
		return cli_err("out of memory"), EXIT_LAB_ERROR;
	if (r < 0)
		return fail_input(&err);
	other = calloc(s->nr_variants, sizeof(*other));
	c = calloc(s->nr_variants, sizeof(*c));
	if (!c || !other) {
		free(c);
		return EXIT_LAB_ERROR;
	}
	err = (struct lab_error){ 0 }; /* loading left the last file's name in it */
	if (!a->threshold_set)
		cli_report_threshold(s, &threshold, &learned);
	cli_report_sequential(s);
	if ((r = cli_learned_fill(s, learned)) < 0) {
		free(c);
		return cli_err("out of memory"), EXIT_LAB_ERROR;
	}
	if (pick_pairs(a, s, &base, other, &np, &err) < 0) {
		free(c);
		return fail_input(&err);
	}
	for (size_t i = 0; i < np; i++, n++) {
		r = compare_variants(s, base, other[i], threshold, a->all_metrics, &c[n], &err);
		if (r < 0)
			break;
	}
	d = compare_decide_all(c, n);
	if (r == 0)
		r = print_result(s, c, n, a);
	for (size_t i = 0; i < n; i++)
		compare_free(&c[i]);
	free(c);
	if (r == -EINVAL)
		return fail_input(&err);
	if (r < 0)
		return cli_err("%s", strerror(-r)), EXIT_LAB_ERROR;
	return report_decision_exit(d);
}

int cmd_compare(int argc, char **argv)
{
	struct report_files f = { 0 };
	struct series_set s;
	int rc;

	if (parse_args(argc, argv) < 0)
		return args.git_bisect ? EXIT_GIT_ABORT : EXIT_BAD_INPUT;
	if ((rc = projopts_series(&args.proj, &args.projections)) < 0) {
		rc = rc == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
		return args.git_bisect ? cli_git_bisect(rc, 0) : rc;
	}
	series_init(&s);
	rc = run_compare(&args, &s, &f);
	json_decref(args.projections);
	series_free(&s);
	report_files_free(&f);
	return args.git_bisect ? cli_git_bisect(rc, rc == EXIT_REGRESSION) : rc;
}
