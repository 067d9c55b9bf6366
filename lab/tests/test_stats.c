/* lab/analysis/stats.c against expectations computed independently with SciPy
 * (lab/tests/data/stats/cases.json, written by make-expected.py beside it). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/stats.h"
#include "testutil.h"

#define MAX_VALUES 64
/* GSL and SciPy compute t quantiles and tails by different algorithms; both are good to far
 * better than this, and a wrong formula is off by far more. */
#define REL_TOL 1e-8

static int check(const char *name, const char *what, double got, const json_t *want)
{
	double w = testutil_num(want);

	if (tap_ok(testutil_close(got, w, REL_TOL), "%s: %s", name, what))
		return 1;
	printf("# got %.17g, want %.17g\n", got, w);
	return 0;
}

static size_t load_values(const json_t *arr, double *x)
{
	size_t i, n = 0;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (n < MAX_VALUES)
			x[n++] = json_number_value(v);
	return n;
}

static void check_summary(const char *name, const char *side, const double *x, size_t n,
			  enum stats_mean kind, const json_t *e)
{
	struct stats_summary s;
	char what[64];
	int r = stats_summarize(x, n, kind, &s);

	snprintf(what, sizeof(what), "%s summarized", side);
	if (!tap_ok(r == 0, "%s: %s", name, what))
		return;
	tap_ok(s.n == (size_t)json_integer_value(json_object_get(e, "n")), "%s: %s n", name, side);
	snprintf(what, sizeof(what), "%s mean", side);
	check(name, what, s.mean, json_object_get(e, "mean"));
	snprintf(what, sizeof(what), "%s stddev", side);
	check(name, what, s.stddev, json_object_get(e, "stddev"));
	snprintf(what, sizeof(what), "%s cv", side);
	check(name, what, s.cv, json_object_get(e, "cv"));
	snprintf(what, sizeof(what), "%s 95%% CI low", side);
	check(name, what, s.ci_lo, json_array_get(json_object_get(e, "ci"), 0));
	snprintf(what, sizeof(what), "%s 95%% CI high", side);
	check(name, what, s.ci_hi, json_array_get(json_object_get(e, "ci"), 1));
}

static void check_welch(const char *name, const double *a, size_t na, const double *b,
			size_t nb, enum stats_mean kind, const json_t *e)
{
	struct stats_diff d;
	int r = stats_welch(a, na, b, nb, kind, &d);

	if (json_is_null(e)) {
		tap_ok(r == -EDOM, "%s: Welch refuses fewer than two values a side", name);
		return;
	}
	if (!tap_ok(r == 0, "%s: Welch computed", name))
		return;
	check(name, "difference", d.diff, json_object_get(e, "diff"));
	check(name, "CI of difference, low", d.ci_lo, json_array_get(json_object_get(e, "ci"), 0));
	check(name, "CI of difference, high", d.ci_hi, json_array_get(json_object_get(e, "ci"), 1));
	check(name, "t", d.t, json_object_get(e, "t"));
	check(name, "df", d.df, json_object_get(e, "df"));
	check(name, "p-value", d.p, json_object_get(e, "p"));
}

static void run_case(const json_t *c)
{
	const char *name = json_string_value(json_object_get(c, "name"));
	const char *kind_s = json_string_value(json_object_get(c, "kind"));
	enum stats_mean kind = kind_s && !strcmp(kind_s, "harmonic") ? STATS_HARMONIC
								      : STATS_ARITHMETIC;
	const json_t *e = json_object_get(c, "expect");
	double a[MAX_VALUES], b[MAX_VALUES];
	size_t na = load_values(json_object_get(c, "a"), a);
	size_t nb = load_values(json_object_get(c, "b"), b);

	check_summary(name, "A", a, na, kind, json_object_get(e, "a"));
	check_summary(name, "B", b, nb, kind, json_object_get(e, "b"));
	check_welch(name, a, na, b, nb, kind, json_object_get(e, "welch"));
}

static void test_refusals(void)
{
	double ok[] = { 1, 2 }, zero[] = { 0, 1 }, nan_[] = { NAN, 1 }, inf_[] = { INFINITY, 1 };
	struct stats_summary s;
	struct stats_diff d;

	tap_ok(stats_summarize(ok, 0, STATS_ARITHMETIC, &s) == -EINVAL, "no values: -EINVAL");
	tap_ok(stats_summarize(zero, 2, STATS_HARMONIC, &s) == -EINVAL,
	       "harmonic mean of a zero rate: -EINVAL");
	tap_ok(stats_summarize(zero, 2, STATS_ARITHMETIC, &s) == 0, "arithmetic mean of 0 is fine");
	tap_ok(stats_summarize(nan_, 2, STATS_ARITHMETIC, &s) == -EINVAL, "NaN: -EINVAL");
	tap_ok(stats_welch(ok, 2, inf_, 2, STATS_ARITHMETIC, &d) == -EINVAL, "inf: -EINVAL");
	tap_ok(stats_welch(ok, 1, ok, 2, STATS_ARITHMETIC, &d) == -EDOM, "one value: -EDOM");
	tap_ok(fabs(stats_harmonic_mean(ok, 2) - 4.0 / 3.0) < 1e-15, "harmonic mean of 1, 2 = 4/3");
}

int main(void)
{
	_cleanup_free_ char *path = fs_join(testutil_root(), "lab/tests/data/stats/cases.json");
	_cleanup_json_ json_t *cases = NULL;
	struct lab_error err = { 0 };
	size_t i;
	json_t *c;

	if (!tap_ok(path && jsonio_load_file(path, TESTUTIL_MAX_FILE, &cases, &err) == 0 &&
			    json_array_size(cases) > 0,
		    "load %s", path ? path : "cases.json"))
		return tap_done();
	json_array_foreach(cases, i, c)
		run_case(c);
	test_refusals();
	return tap_done();
}
