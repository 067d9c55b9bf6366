/* lab compare A [B] [--json] [--threshold PCT]: A/B statistics of two kernel variants. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "cli/cli.h"
#include "cli/report_files.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

/* For CI and nightly jobs: the one status that says "B is worse". */
#define EXIT_REGRESSION 1

void cmd_compare_help(void)
{
	printf("usage: lab compare A [B] [--json] [--threshold PCT]\n\n"
	       "Compares the workload metrics of kernel B against kernel A.  A and B are report\n"
	       "files or directories (a directory holding report.json, or one whose\n"
	       "subdirectories do, such as reports/); all their runs are pooled per side.  With\n"
	       "only A, its reports must hold two or more kernel variants (runs[].kernel.label,\n"
	       "else .variant, else the kernel release): each is compared against the first.\n\n"
	       "Per workload, task count and metric: n, mean, stddev, coefficient of variation,\n"
	       "the %% change (signed so that + is better), the 95%% confidence interval of the\n"
	       "difference (Welch) and its p-value, and a verdict: improvement, regression,\n"
	       "no-change, or insufficient-data (fewer than 2 samples a side).  Rates (units\n"
	       "ending in /s) use harmonic means, tested on reciprocals; the rest arithmetic\n"
	       "means.  Significant: p < 0.05.  With many series some will cross that by\n"
	       "chance (about 1 in 20 of unchanged ones): repeat runs before acting on one.\n\n"
	       "  --json           print JSON (schema numalab.compare/1, keys sorted)\n"
	       "  --threshold PCT  only regressions worse than PCT %% fail (default 0)\n\n"
	       "Exit status: 0 no significant regression beyond the threshold, 1 there is one\n"
	       "(or B had failed runs and A none; or the lab failed), 2 bad input: unreadable\n"
	       "reports, another schema, different workloads or topologies, or no series in\n"
	       "common.\n");
}

struct compare_args {
	const char *a, *b;
	int json;
	double threshold;
};

static int parse_threshold(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "threshold", required_argument, NULL, 't' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j': a->json = 1; break;
		case 't':
			if (parse_threshold(optarg, &a->threshold) < 0) {
				cli_err("compare: --threshold must be a non-negative number (percent)");
				return -EINVAL;
			}
			break;
		default: return -EINVAL;
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		cli_err("compare: expected A [B] (see 'lab compare --help')");
		return -EINVAL;
	}
	a->a = argv[optind];
	a->b = argc - optind == 2 ? argv[optind + 1] : NULL;
	return 0;
}

static int fail_input(const struct lab_error *err)
{
	char msg[1400];

	error_format(err, msg, sizeof(msg));
	cli_err("compare: %s", msg);
	return EXIT_BAD_INPUT;
}

/* Two sides: every run of A's reports is variant "A"'s, every run of B's "B"'s.  The labels
 * are the kernels' own when each side has one and they differ, else "A (...)", "B (...)". */
static int load_two(struct report_files *f, size_t na, struct series_set *s,
		    struct lab_error *err)
{
	char la[200], lb[200], va[256], vb[256];
	unsigned ca, cb;
	int r;

	series_labels(f->doc, na, la, sizeof(la), &ca);
	series_labels(f->doc + na, f->n - na, lb, sizeof(lb), &cb);
	if (ca == 1 && cb == 1 && strcmp(la, lb)) {
		snprintf(va, sizeof(va), "%s", la);
		snprintf(vb, sizeof(vb), "%s", lb);
	} else {
		snprintf(va, sizeof(va), "A (%s)", la);
		snprintf(vb, sizeof(vb), "B (%s)", lb);
	}
	for (size_t i = 0; i < f->n; i++)
		if ((r = series_add_report(s, f->doc[i], f->path[i], i < na ? va : vb, err)) < 0)
			return r;
	return 0;
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

static int print_result(const struct series_set *s, const struct comparison *c, size_t n,
			int as_json)
{
	_cleanup_free_ char *out = NULL;

	if (as_json) {
		_cleanup_json_ json_t *j = compare_json(s, c, n);

		out = j ? jsonio_dumps(j) : NULL;
		if (!out)
			return -ENOMEM;
		printf("%s\n", out);
		return 0;
	}
	if (compare_text(s, c, n, &out) < 0)
		return -ENOMEM;
	fputs(out, stdout);
	return 0;
}

static int run_compare(const struct compare_args *a, struct series_set *s,
		       struct report_files *f)
{
	struct lab_error err = { 0 };
	struct comparison *c = NULL;
	size_t na, n = 0;
	int r, failed = 0;

	if (report_files_add(f, a->a, &err) < 0)
		return fail_input(&err);
	na = f->n;
	if (a->b && report_files_add(f, a->b, &err) < 0)
		return fail_input(&err);
	if (report_files_read(f, &err) < 0)
		return fail_input(&err);
	r = a->b ? load_two(f, na, s, &err) : load_one(f, s, &err);
	if (r == -ENOMEM)
		return cli_err("compare: out of memory"), EXIT_LAB_ERROR;
	if (r < 0)
		return fail_input(&err);
	c = calloc(s->nr_variants, sizeof(*c));
	if (!c)
		return EXIT_LAB_ERROR;
	err = (struct lab_error){ 0 }; /* loading left the last file's name in it */
	for (size_t v = 1; v < s->nr_variants; v++, n++) {
		r = compare_variants(s, 0, v, a->threshold, &c[n], &err);
		if (r < 0)
			break;
		failed |= compare_failed(&c[n]);
	}
	if (r == 0)
		r = print_result(s, c, n, a->json);
	for (size_t i = 0; i < n; i++)
		compare_free(&c[i]);
	free(c);
	if (r == -EINVAL)
		return fail_input(&err);
	if (r < 0)
		return cli_err("compare: %s", strerror(-r)), EXIT_LAB_ERROR;
	return failed ? EXIT_REGRESSION : EXIT_OK;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { 0 };
	struct report_files f = { 0 };
	struct series_set s;
	int rc;

	if (parse_args(argc, argv, &a) < 0)
		return EXIT_BAD_INPUT;
	series_init(&s);
	rc = run_compare(&a, &s, &f);
	series_free(&s);
	report_files_free(&f);
	return rc;
}
