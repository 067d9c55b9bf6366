/* lab/analysis/verdict.c against expectations computed independently in Python
 * (lab/tests/data/verdict/cases.json, written by make-expected.py beside it): boot-level
 * aggregation, Benjamini-Hochberg q-values, verdicts with equivalence, boots needed. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/verdict.h"
#include "testutil.h"

#define MAX_VALUES 64
#define REL_TOL 1e-12

static int check(const char *name, const char *what, double got, double want)
{
	if (tap_ok(testutil_close(got, want, REL_TOL), "%s: %s", name, what))
		return 1;
	printf("# got %.17g, want %.17g\n", got, want);
	return 0;
}

static void test_aggregate(const json_t *cases)
{
	size_t i, j;
	json_t *c;

	json_array_foreach(cases, i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		const json_t *bj = json_object_get(c, "boots"), *vj = json_object_get(c, "values");
		const json_t *e = json_object_get(c, "expect"), *em = json_object_get(e, "means");
		enum stats_mean kind = strcmp(json_string_value(json_object_get(c, "kind")),
					      "harmonic") ? STATS_ARITHMETIC : STATS_HARMONIC;
		size_t boot[MAX_VALUES], n = json_array_size(vj);
		double v[MAX_VALUES], means[MAX_VALUES];
		struct boot_stats st;
		json_t *x;

		if (!tap_ok(n && n <= MAX_VALUES && json_array_size(bj) == n, "%s: case", name))
			continue;
		json_array_foreach(vj, j, x) {
			v[j] = json_number_value(x);
			boot[j] = (size_t)json_integer_value(json_array_get(bj, j));
		}
		if (!tap_ok(boots_aggregate(boot, v, n, kind, means, &st) == 0, "%s: aggregates",
			    name))
			continue;
		tap_ok(st.boots == (size_t)json_integer_value(json_object_get(e, "boots")) &&
			       st.values == n && json_array_size(em) == st.boots,
		       "%s: %zu boots of %zu values", name, st.boots, st.values);
		json_array_foreach(em, j, x) {
			char what[32];

			snprintf(what, sizeof(what), "boot %zu mean", j);
			if (j < st.boots)
				check(name, what, means[j], json_number_value(x));
		}
		check(name, "within-boot CV", st.cv_within, testutil_num(json_object_get(e, "cv_within")));
		check(name, "between-boot CV", st.cv_between, testutil_num(json_object_get(e, "cv_between")));
	}
}

static void test_fdr(const json_t *cases)
{
	size_t i, j;
	json_t *c, *x;

	json_array_foreach(cases, i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		const json_t *pj = json_object_get(c, "p"), *ej = json_object_get(c, "expect");
		double p[MAX_VALUES], q[MAX_VALUES];
		size_t n = json_array_size(pj);

		json_array_foreach(pj, j, x)
			p[j] = testutil_num(x);
		if (!tap_ok(verdict_fdr_bh(p, n, q) == 0, "%s: adjusts", name))
			continue;
		json_array_foreach(ej, j, x) {
			char what[32];

			snprintf(what, sizeof(what), "q[%zu]", j);
			check(name, what, q[j], testutil_num(x));
		}
		/* In place gives the same. */
		verdict_fdr_bh(p, n, p);
		tap_ok(memcmp(p, q, n * sizeof(*p)) == 0 || n == 0, "%s: in place", name);
	}
}

static void test_decide(const json_t *cases)
{
	size_t i;
	json_t *c;

	json_array_foreach(cases, i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		struct verdict_input in = {
			.tested = json_is_true(json_object_get(c, "tested")),
			.change_pct = testutil_num(json_object_get(c, "change_pct")),
			.ci_lo_pct = testutil_num(json_object_get(c, "ci_lo_pct")),
			.ci_hi_pct = testutil_num(json_object_get(c, "ci_hi_pct")),
			.q = testutil_num(json_object_get(c, "q")),
		};
		const char *want = json_string_value(json_object_get(c, "expect"));
		const char *got = verdict_name(
			verdict_decide(&in, testutil_num(json_object_get(c, "threshold_pct"))));

		if (!tap_ok(!strcmp(got, want), "%s: %s", name, want))
			printf("# got %s\n", got);
	}
}

static void test_needed(const json_t *cases)
{
	size_t i;
	json_t *c;

	json_array_foreach(cases, i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		size_t want = (size_t)json_integer_value(json_object_get(c, "expect"));
		size_t got = verdict_boots_needed(
			testutil_num(json_object_get(c, "cv_a_pct")), testutil_num(json_object_get(c, "cv_b_pct")),
			testutil_num(json_object_get(c, "threshold_pct")),
			(size_t)json_integer_value(json_object_get(c, "have")));

		if (!tap_ok(got == want, "%s: %zu boots a side", name, want))
			printf("# got %zu\n", got);
	}
}

static void test_bad_input(void)
{
	size_t boot[2] = {0, 1};
	double v[2] = {1.0, -1.0}, means[2];
	struct boot_stats st;

	tap_ok(boots_aggregate(boot, v, 0, STATS_ARITHMETIC, means, &st) == -EINVAL,
	       "no values: -EINVAL");
	tap_ok(boots_aggregate(boot, v, 2, STATS_HARMONIC, means, &st) == -EINVAL,
	       "a rate <= 0: -EINVAL");
	v[1] = NAN;
	tap_ok(boots_aggregate(boot, v, 2, STATS_ARITHMETIC, means, &st) == -EINVAL,
	       "a NaN value: -EINVAL");
	tap_ok(!strcmp(verdict_name(VERDICT__COUNT), "?"), "an unknown verdict has a name");
}

static void test_mean_kind(void)
{
	size_t boot[4] = {0, 0, 1, 1};
	double v[4] = {4.0, 4.0, 2.0, 2.0}, means[4];
	struct boot_stats bs;
	struct stats_summary sum;

	tap_ok(boots_mean_kind("faults/s", v, 4) == STATS_HARMONIC, "a rate: harmonic");
	tap_ok(boots_mean_kind("s", v, 4) == STATS_ARITHMETIC, "a time: arithmetic");
	v[3] = 0;
	tap_ok(boots_mean_kind("ops/s", v, 4) == STATS_ARITHMETIC,
	       "a rate with a 0 among its values: arithmetic (no reciprocal)");
	v[3] = 2.0;
	tap_ok(boots_summarize(boot, v, 4, STATS_HARMONIC, means, &bs, &sum) == 0 &&
		       bs.boots == 2 && sum.n == 2 && fabs(sum.mean - 8.0 / 3) < 1e-12,
	       "summarized: 2 boots of 4 and 2, harmonic mean of the boot means 8/3");
}

int main(void)
{
	_cleanup_free_ char *path = fs_join(testutil_root(), "lab/tests/data/verdict/cases.json");
	_cleanup_json_ json_t *doc = NULL;
	struct lab_error err = {0};

	if (!path || jsonio_load_file(path, TESTUTIL_MAX_FILE, &doc, &err) < 0) {
		tap_ok(0, "read %s: %s", path ? path : "cases.json", err.msg);
		return tap_done();
	}
	test_aggregate(json_object_get(doc, "aggregate"));
	test_fdr(json_object_get(doc, "fdr"));
	test_decide(json_object_get(doc, "decide"));
	test_needed(json_object_get(doc, "boots_needed"));
	test_bad_input();
	test_mean_kind();
	return tap_done();
}
