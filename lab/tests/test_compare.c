/* Reports -> series -> A/B comparison -> JSON, text, chart data and dashboard HTML.
 *
 * Inputs are synthetic reports in lab/tests/data/compare/ (written once by
 * lab/tests/make-reports.py; B's faults_per_s is 10% below A's).  Outputs are compared byte for
 * byte with lab/tests/golden/{compare-ab.json,compare-ab.txt,compare-ab-brief.{txt,md},compare-ab.csv,charts-ab.json,dashboard-ab.html};
 * UPDATE_GOLDEN=1 rewrites them.  Reader errors are data-driven: lab/tests/data/series-errors/
 * NAME.json must fail with the "path: reason" line in NAME.expected. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/charts.h"
#include "analysis/compare.h"
#include "analysis/sequential.h"
#include "analysis/dashboard.h"
#include "analysis/html.h"
#include "analysis/precision.h"
#include "testutil.h"
#include "util/strbuf.h"

#define DATA "lab/tests/data/compare/"

static const struct dashboard_assets test_assets = {
	.chart_js = "/* chart.js */", .errorbars_js = "/* error bars */",
	.page_js = "/* page */", .css = "/* css */",
};

/* A set of two reports, each under a forced variant label. */
static int two(struct series_set *s, json_t *a, json_t *b)
{
	struct lab_error err = { 0 };
	int r;

	series_init(s);
	r = series_add_report(s, a, "a.json", "base", &err);
	if (r == 0)
		r = series_add_report(s, b, "b.json", "patched", &err);
	if (r < 0)
		printf("# %s: %s: %s\n", err.file, err.path, err.msg);
	return r;
}

static const struct series_what *row_what(const struct series_set *s, const struct compare_row *r)
{
	return &s->groups[s->keys[r->key].group];
}

static void test_regression(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "a.json"), *b = testutil_load(DATA "b.json");
	_cleanup_free_ char *text = NULL, *js = NULL, *cj = NULL, *html = NULL;
	_cleanup_json_ json_t *j = NULL, *charts = NULL;
	struct series_set s;
	struct comparison c;
	struct lab_error err = { 0 };
	int regress_ok = 1, others_ok = 1;

	if (!tap_ok(two(&s, a, b) == 0, "10%%: reports load"))
		return;
	if (!tap_ok(compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err) == 0, "10%%: compared")) {
		series_free(&s);
		return;
	}
	tap_ok(c.nr_rows == 6 && !c.nr_only_a && !c.nr_only_b, "10%%: 2 task counts x 3 metrics");
	for (size_t i = 0; i < c.nr_rows; i++) {
		const struct compare_row *r = &c.rows[i];

		if (!strcmp(row_what(&s, r)->metric, "faults_per_s"))
			regress_ok &= r->verdict == VERDICT_REGRESSION && r->primary &&
				      r->mean == STATS_HARMONIC && r->ci_pct_lo < -10 + 5 &&
				      r->ci_pct_hi > -10 - 5 && r->change_pct < 0 && r->q < 0.05 &&
				      r->ab.boots == 3 && r->bb.boots == 3;
		else
			others_ok &= r->verdict != VERDICT_REGRESSION && !r->primary &&
				     r->mean == STATS_ARITHMETIC;
	}
	tap_ok(regress_ok, "10%%: faults_per_s (primary) is a harmonic-mean regression around "
			   "-10%%, 3 boots a side");
	tap_ok(others_ok, "10%%: no other metric regressed; they are not primary; times are "
			  "arithmetic");
	tap_ok(c.decision == COMPARE_REGRESSION && !strcmp(c.timing, "tcg"),
	       "10%%: the decision is a regression (exit 1), timing model tcg");
	j = compare_json(&s, &c, 1);
	js = j ? jsonio_dumps(j) : NULL;
	testutil_golden("compare-ab.json", js);
	testutil_golden("compare-ab.txt", compare_text(&s, &c, 1, &text) == 0 ? text : NULL);
	{
		_cleanup_free_ char *brief = NULL, *md = NULL, *csv = NULL;

		testutil_golden("compare-ab-brief.txt",
				compare_brief(&s, &c, 1, 0, &brief) == 0 ? brief : NULL);
		testutil_golden("compare-ab-brief.md",
				compare_brief(&s, &c, 1, 1, &md) == 0 ? md : NULL);
		testutil_golden("compare-ab.csv", compare_csv(&s, &c, 1, &csv) == 0 ? csv : NULL);
	}
	charts = charts_json(&s, NULL);
	cj = charts ? jsonio_dumps(charts) : NULL;
	tap_ok(json_array_size(json_object_get(charts, "charts")) == 6,
	       "charts: 3 scaling + 3 trend (two creation dates)");
	testutil_golden("charts-ab.json", cj);
	struct dashboard_input in = { .set = &s, .cmp = &c, .nr_cmp = 1, .title = "test" };

	testutil_golden("dashboard-ab.html", dashboard_html(&in, &test_assets, &html) == 0 ? html : NULL);
	compare_free(&c);
	series_free(&s);
}

static void test_threshold(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "a.json"), *b = testutil_load(DATA "b.json");
	struct series_set s;
	struct comparison c;
	struct lab_error err = { 0 };

	if (two(&s, a, b) < 0)
		return;
	if (compare_variants(&s, 0, 1, 25, 0, &c, &err) == 0) {
		tap_ok(c.count[VERDICT_NO_CHANGE] == 2 && c.decision == COMPARE_OK,
		       "threshold 25%%: the 10%% change lies inside +-25%%: no change, exit 0");
		compare_free(&c);
	}
	/* The 4-task interval, [-14.8, -1.7] %, lies beyond 1.5 % but not beyond 5 %. */
	if (compare_variants(&s, 0, 1, 1.5, 0, &c, &err) == 0) {
		tap_ok(c.count[VERDICT_REGRESSION] == 2 && c.decision == COMPARE_REGRESSION,
		       "threshold 1.5%%: both intervals lie beyond it: regression");
		compare_free(&c);
	}
	if (compare_variants(&s, 0, 1, 5, 0, &c, &err) == 0) {
		tap_ok(c.count[VERDICT_REGRESSION] == 1 && c.count[VERDICT_INCONCLUSIVE] == 1 &&
			       c.decision == COMPARE_REGRESSION,
		       "threshold 5%%: one interval reaches inside it: one regression, one "
		       "inconclusive");
		compare_free(&c);
	}
	if (compare_variants(&s, 0, 1, 1.5, 1, &c, &err) == 0) {
		tap_ok(c.all_metrics && c.count[VERDICT_REGRESSION] == 2 &&
			       c.count[VERDICT_REGRESSION] + c.count[VERDICT_NO_CHANGE] +
					       c.count[VERDICT_INCONCLUSIVE] + c.count[VERDICT_IMPROVEMENT] +
					       c.count[VERDICT_INSUFFICIENT] == c.nr_rows,
		       "--all-metrics: every row decides");
		compare_free(&c);
	}
	series_free(&s);
}

/* Thresholds learned per series (analysis/noise.h) set on the series_set: shown beside the
 * fixed one; with use_learned, a row with one is judged by it, a row without by the fixed. */
static void test_learned(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "a.json"), *b = testutil_load(DATA "b.json");
	_cleanup_free_ char *brief = NULL, *text = NULL;
	struct series_set s;
	struct comparison c;
	struct lab_error err = { 0 };
	size_t fps = (size_t)-1, learned_rows = 0, judged = 0;

	if (two(&s, a, b) < 0)
		return;
	s.learned = calloc(s.nr_keys, sizeof(*s.learned));
	/* faults_per_s at the first task count learned +-25 % (a noisy series); the rest none. */
	for (size_t k = 0; s.learned && k < s.nr_keys && fps == (size_t)-1; k++)
		if (!strcmp(s.groups[s.keys[k].group].metric, "faults_per_s"))
			fps = k;
	if (!tap_ok(fps != (size_t)-1, "learned: a faults_per_s series")) {
		series_free(&s);
		return;
	}
	s.learned[fps] = (struct noise_learned){ .changes = 12, .kernels = 2, .q1_pct = 5,
						 .q3_pct = 10, .threshold_pct = 17.5 };
	if (compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err) == 0) {
		for (size_t i = 0; i < c.nr_rows; i++) {
			learned_rows += c.rows[i].learned.changes > 0;
			judged += c.rows[i].learned_used || c.rows[i].threshold_pct != 1.0;
		}
		tap_ok(learned_rows == 1 && !judged && !c.use_learned &&
			       c.decision == COMPARE_REGRESSION,
		       "learned, not asked for: shown on its row, every row judged by +-1 %%, "
		       "still a regression");
		testutil_golden("compare-learned-beside.txt",
				compare_brief(&s, &c, 1, 0, &brief) == 0 ? brief : NULL);
		compare_free(&c);
	}
	s.use_learned = 1;
	if (compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err) == 0) {
		const struct compare_row *r = NULL, *other = NULL;

		for (size_t i = 0; i < c.nr_rows; i++)
			if (c.rows[i].key == fps)
				r = &c.rows[i];
			else if (c.rows[i].primary)
				other = &c.rows[i];
		tap_ok(r && other && r->learned_used && r->threshold_pct == 17.5 &&
			       r->verdict == VERDICT_NO_CHANGE && !other->learned_used &&
			       other->threshold_pct == 1.0 && other->verdict == VERDICT_REGRESSION,
		       "learned, asked for: its row judged by +-17.5 %% (the 10 %% change is no "
		       "change), the row without one by +-1 %% (a regression)");
		free(brief);
		brief = NULL;
		testutil_golden("compare-learned-used.txt",
				compare_brief(&s, &c, 1, 0, &brief) == 0 ? brief : NULL);
		testutil_golden("compare-learned-used-v.txt",
				compare_text(&s, &c, 1, &text) == 0 ? text : NULL);
		compare_free(&c);
	}
	series_free(&s);
}

/* A sequential A/B's set (series_set.seq_alpha, analysis/sequential.h): wider intervals, a
 * change needs q below the look's level, and the output says so. */
static void test_sequential_level(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "a.json"), *b = testutil_load(DATA "b.json");
	_cleanup_free_ char *brief = NULL;
	_cleanup_json_ json_t *j = NULL;
	struct series_set s;
	struct comparison fixed, seq;
	struct lab_error err = { 0 };
	int wider = 1;

	if (two(&s, a, b) < 0)
		return;
	if (compare_variants(&s, 0, 1, 5, 0, &fixed, &err) < 0) {
		series_free(&s);
		return;
	}
	s.seq_looks = 5;
	s.seq_alpha = seq_look_alpha(5);
	if (compare_variants(&s, 0, 1, 5, 0, &seq, &err) == 0) {
		for (size_t i = 0; i < seq.nr_rows; i++)
			wider &= !seq.rows[i].tested ||
				 (seq.rows[i].ci_pct_lo < fixed.rows[i].ci_pct_lo &&
				  seq.rows[i].ci_pct_hi > fixed.rows[i].ci_pct_hi);
		tap_ok(fabs(seq.alpha - 0.0158) < 0.0001 && wider,
		       "sequential, 5 looks: alpha %.4f, every interval wider than the 95 %% one",
		       seq.alpha);
		tap_ok(fixed.count[VERDICT_REGRESSION] == 1 && seq.count[VERDICT_REGRESSION] == 0 &&
			       seq.decision == COMPARE_UNDECIDED,
		       "... at +-5 %%: the regression a fixed design found at 95 %% is not yet "
		       "one at 98.4 %% (undecided: more rounds)");
		j = compare_json(&s, &seq, 1);
		tap_ok(j && json_real_value(json_object_get(json_object_get(j, "sequential"),
							    "alpha")) == seq.alpha &&
			       json_integer_value(json_object_get(json_object_get(j, "sequential"),
								  "looks")) == 5,
		       "... JSON: sequential.alpha and looks");
		testutil_golden("compare-sequential-brief.txt",
				compare_brief(&s, &seq, 1, 0, &brief) == 0 ? brief : NULL);
		compare_free(&seq);
	}
	compare_free(&fixed);
	series_free(&s);
}

static void test_identical(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "a.json");
	struct series_set s;
	struct comparison c;
	struct lab_error err = { 0 };
	int same = 1;

	/* Three boots a side with ~2 % noise give a 95 % interval of about +-4.5 %: wide enough
	 * to show equivalence within 10 %, not within 1 %. */
	if (two(&s, a, a) < 0 || compare_variants(&s, 0, 1, 10, 0, &c, &err) < 0) {
		tap_ok(0, "identical: compared");
		series_free(&s);
		return;
	}
	for (size_t i = 0; i < c.nr_rows; i++)
		same &= c.rows[i].verdict == VERDICT_NO_CHANGE && c.rows[i].d.p == 1 &&
			c.rows[i].change_pct == 0;
	tap_ok(c.nr_rows == 6 && same && c.decision == COMPARE_OK,
	       "identical, threshold 10%%: every row no-change with p = 1, exit 0");
	compare_free(&c);
	if (compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err) == 0)
		tap_ok(c.count[VERDICT_INCONCLUSIVE] == 2 && c.decision == COMPARE_UNDECIDED &&
			       c.boots_needed > 3,
		       "identical, threshold 1%%: inconclusive, needs %zu boots a side (exit 3)",
		       c.boots_needed);
	compare_free(&c);
	if (compare_variants(&s, 0, 1, 0, 0, &c, &err) == 0)
		tap_ok(c.count[VERDICT_INCONCLUSIVE] == 2 && c.decision == COMPARE_UNDECIDED,
		       "identical with threshold 0: nothing can show equivalence: undecided");
	compare_free(&c);
	series_free(&s);
}

static void test_one_report(void)
{
	_cleanup_json_ json_t *ab = testutil_load(DATA "ab.json");
	struct series_set s;
	struct comparison c;
	struct lab_error err = { 0 };
	int ok = 1;

	series_init(&s);
	if (!tap_ok(series_add_report(&s, ab, "ab.json", NULL, &err) == 0 && s.nr_variants == 2 &&
			    !strcmp(s.variants[0].label, "base") &&
			    !strcmp(s.variants[1].label, "patched"),
		    "one report, two variants labelled by kernel.label in run order")) {
		series_free(&s);
		return;
	}
	if (compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err) == 0) {
		for (size_t i = 0; i < c.nr_rows; i++)
			ok &= (c.rows[i].verdict == VERDICT_IMPROVEMENT) ==
			      !strcmp(row_what(&s, &c.rows[i])->metric, "sys_s");
		tap_ok(c.nr_rows == 2 && ok && c.rows[0].a.n == 2 && c.rows[0].ab.boots == 2,
		       "interleaved A/B: 20%% less sys_s is an improvement, the rest unchanged");
		compare_free(&c);
	}
	series_free(&s);
}

static void test_insufficient_and_outcome(void)
{
	_cleanup_json_ json_t *one = testutil_load(DATA "one.json"), *a = testutil_load(DATA "a.json");
	_cleanup_json_ json_t *b = json_deep_copy(a);
	struct series_set s;
	struct comparison c;
	struct lab_error err = { 0 };

	if (two(&s, one, one) == 0 && compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err) == 0) {
		tap_ok(c.count[VERDICT_INSUFFICIENT] + c.count_other[VERDICT_INSUFFICIENT] ==
				       c.nr_rows &&
			       c.nr_rows && c.decision == COMPARE_UNDECIDED,
		       "one boot a side: insufficient-data and undecided (exit 3), never a pass");
		compare_free(&c);
	}
	series_free(&s);
	json_object_set_new(json_array_get(json_object_get(b, "runs"), 2), "status",
			    json_string("panic"));
	if (two(&s, a, b) == 0 && compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err) == 0) {
		tap_ok(c.outcome_regression && c.count[VERDICT_REGRESSION] == 0 &&
			       c.decision == COMPARE_REGRESSION,
		       "B panicked where A did not: outcome regression, exit 1");
		compare_free(&c);
	}
	series_free(&s);
}

/* every: info.KEY = {} in every result of the first workload of every run; else the first
 * run's taken away again (a side that mixes the two kinds). */
static void results_info(json_t *rep, const char *key, int every)
{
	json_t *run, *res;
	size_t i, k;

	json_array_foreach(json_object_get(rep, "runs"), i, run) {
		json_array_foreach(json_object_get(json_array_get(json_object_get(run, "workloads"),
								  0), "results"), k, res) {
			if (every)
				json_object_set_new(json_object_get(res, "info"), key, json_object());
			else
				json_object_del(json_object_get(res, "info"), key);
		}
		if (!every)
			break;
	}
}

static void expect_error(const char *what, json_t *a, json_t *b, const char *want)
{
	struct series_set s;
	struct comparison c;
	struct lab_error err = { 0 };
	int r = two(&s, a, b);

	if (r == 0)
		r = compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err);
	if (!tap_ok(r == -EINVAL && strstr(err.msg, want), "%s: error says \"%s\"", what, want))
		printf("# got r=%d: %s\n", r, err.msg);
	if (r == 0)
		compare_free(&c);
	series_free(&s);
}

static void test_bad_pairs(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "a.json");
	_cleanup_json_ json_t *b = json_deep_copy(a), *d = json_deep_copy(a);
	json_t *run, *res;
	size_t i, k;

	json_array_foreach(json_object_get(b, "runs"), i, run)
		json_object_set_new(json_object_get(json_array_get(json_object_get(run, "workloads"), 0),
						    "params"),
				    "memory_mib", json_integer(128));
	expect_error("different params", a, b,
		     "A (base) and B (patched) ran different workloads: only A ran 8 vCPUs (4s x 1d "
		     "x 2c x 1t), 4 nodes / pft {\"memory_mib\":64,");
	json_array_foreach(json_object_get(d, "runs"), i, run)
		json_array_foreach(json_object_get(json_array_get(json_object_get(run, "workloads"), 0),
						   "results"),
				   k, res)
			json_object_set_new(res, "tasks", json_integer(16));
	expect_error("no common task count", a, d,
		     "A (base) and B (patched) share no series: A has 6 (first: pft");
	/* Timing models: B all under icount, then B mixing the two. */
	json_decref(b);
	b = json_deep_copy(a);
	json_array_foreach(json_object_get(b, "runs"), i, run)
		json_object_set_new(json_object_get(run, "host"), "timing",
				    json_pack("{s:s}", "model", "icount"));
	expect_error("other timing model", a, b,
		     "A (base) ran under the tcg timing model and B (patched) under icount: "
		     "figures of different timing models measure different things");
	json_object_del(json_object_get(json_array_get(json_object_get(b, "runs"), 0), "host"),
			"timing");
	expect_error("mixed timing models", a, b,
		     "B (patched) mixes runs of different timing models (runs per model: "
		     "{\"icount\":2,\"tcg\":1})");
	/* A lock-counting twin (a result with info.lock_stat) against a plain kernel, then a
	 * side mixing the two. */
	json_decref(b);
	b = json_deep_copy(a);
	results_info(b, "lock_stat", 1);
	expect_error("a twin against a plain kernel", a, b,
		     "B (patched) is a lock-counting twin (lockdep: /proc/lock_stat in its results) "
		     "and A (base) is not");
	results_info(b, "lock_stat", 0);
	expect_error("a twin mixed with a plain kernel", a, b,
		     "B (patched) mixes runs of a lock-counting twin (2, with lockdep) and of a "
		     "plain kernel (1)");
	/* The same for runs with the lock-instruction counter (info.lock_insns). */
	json_decref(b);
	b = json_deep_copy(a);
	results_info(b, "lock_insns", 1);
	expect_error("counted runs against plain ones", a, b,
		     "B (patched) is run with the lock-instruction counter (info.lock_insns in its "
		     "results) and A (base) is not");
	results_info(b, "lock_insns", 0);
	expect_error("counted runs mixed with plain ones", a, b,
		     "B (patched) mixes runs with the lock-instruction counter (2) and without it "
		     "(1)");
	/* Host classes (labels, lab run --host-class): B on another class, then A mixing two. */
	json_decref(b);
	b = json_deep_copy(a);
	json_array_foreach(json_object_get(b, "runs"), i, run)
		json_object_set_new(json_object_get(run, "host"), "class", json_string("epyc-2s"));
	expect_error("other host class", a, b,
		     "A (base) ran on host class (none) and B (patched) on epyc-2s: a "
		     "difference between two kinds of machine is not the kernel's");
	json_decref(d);
	d = json_deep_copy(b);
	json_object_set_new(json_object_get(json_array_get(json_object_get(d, "runs"), 0), "host"),
			    "class", json_string("xeon-4s"));
	expect_error("mixed host classes", d, b,
		     "A (base) mixes runs on hosts of different classes (runs per class: "
		     "{\"epyc-2s\":2,\"xeon-4s\":1})");
	/* One class on both sides: compared, and the class is in the comparison. */
	{
		struct series_set st;
		struct comparison c;
		struct lab_error err = { 0 };
		_cleanup_json_ json_t *a2 = json_deep_copy(b);
		int r = two(&st, a2, b);

		json_array_foreach(json_object_get(a2, "runs"), i, run)
			json_object_set_new(json_object_get(run, "host"), "class",
					    json_string("epyc-2s"));
		series_free(&st);
		r = two(&st, a2, b);
		if (r == 0)
			r = compare_variants(&st, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err);
		tap_ok(r == 0 && c.host_class && !strcmp(c.host_class, "epyc-2s"),
		       "one host class both sides: compared, host_class epyc-2s (%s)", err.msg);
		if (r == 0)
			compare_free(&c);
		series_free(&st);
	}
}

/* The boot is the unit: six repetitions inside one boot a side are one sample each, so a 3 %
 * drop that pooled repetitions would call significant is "insufficient-data" here. */
static void test_boot_unit(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "reps-a.json"), *b = testutil_load(DATA "reps-b.json");
	struct series_set s;
	struct comparison c;
	struct lab_error err = { 0 };
	const struct compare_row *r = NULL;

	if (two(&s, a, b) < 0 ||
	    compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err) < 0) {
		tap_ok(0, "boot unit: compared (%s)", err.msg);
		series_free(&s);
		return;
	}
	for (size_t i = 0; i < c.nr_rows; i++)
		if (c.rows[i].primary)
			r = &c.rows[i];
	tap_ok(r && r->ab.boots == 1 && r->ab.values == 6 && r->a.n == 1 && !r->tested &&
		       r->verdict == VERDICT_INSUFFICIENT && !isnan(r->ab.cv_within) &&
		       isnan(r->ab.cv_between),
	       "boot unit: 6 repetitions in 1 boot are 1 sample; within-boot CV only");
	tap_ok(c.decision == COMPARE_UNDECIDED && c.boots_needed == 0,
	       "boot unit: undecided, and the spread between boots is unknown");
	compare_free(&c);
	series_free(&s);
}

/* series_labels names the sides of `lab compare A B`; compare_all pairs the variants of
 * `lab report`. */
static void test_labels_and_baselines(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "a.json"), *ab = testutil_load(DATA "ab.json");
	_cleanup_json_ json_t *other = json_deep_copy(a);
	_cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
	json_t *docs[2] = { a, ab }, *run;
	struct comparison c[3];
	struct series_set s;
	char buf[64], tiny[8];
	unsigned count;
	size_t n = 9, i;

	series_labels(docs, 2, buf, sizeof(buf), &count);
	tap_ok(count == 3 && !strcmp(buf, "6.12.0-synthetic, base, patched"),
	       "labels of two reports, in order of first appearance");
	series_labels(docs + 1, 1, tiny, sizeof(tiny), &count);
	tap_ok(count == 2 && !strcmp(tiny, "base, p"), "labels cut to the buffer, all counted");
	series_labels(docs, 0, buf, sizeof(buf), &count);
	tap_ok(count == 0 && !strcmp(buf, ""), "no reports, no labels");

	series_init(&s);
	series_add_report(&s, ab, "ab.json", NULL, &(struct lab_error){ 0 });
	tap_ok(compare_all(&s, 0, 0, c, &n, &note) == 0 && n == 1 && c[0].va == 0 && c[0].vb == 1 &&
		       !note.len,
	       "two variants of the same workloads: one comparison, no note");
	while (n)
		compare_free(&c[--n]);
	series_free(&s);

	json_array_foreach(json_object_get(other, "runs"), i, run)
		json_object_set_new(json_object_get(json_array_get(json_object_get(run, "workloads"), 0),
						    "params"),
				    "memory_mib", json_integer(128));
	if (two(&s, a, other) == 0)
		tap_ok(compare_all(&s, 0, 0, c, &n, &note) == 0 && n == 0 &&
			       !strcmp(note.buf, "patched: no variant before it ran the same "
						 "workloads; not compared.\n"),
		       "a variant of other workloads has no baseline: a note says so");
	series_free(&s);
	strbuf_free(&note);
	series_init(&s);
	series_add_report(&s, a, "a.json", NULL, &(struct lab_error){ 0 });
	tap_ok(compare_all(&s, 0, 0, c, &n, &note) == 0 && n == 0 &&
		       !strcmp(note.buf, "All runs are of one kernel variant (6.12.0-synthetic): "
					 "nothing to compare.\n"),
	       "one variant: nothing to compare");
	series_free(&s);
}

static void test_reader_errors(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "lab/tests/data/series-errors");
	if (!tap_ok(d.n > 0, "series-errors: cases found"))
		return;
	for (int i = 0; i < d.n; i++) {
		_cleanup_free_ char *path = fs_join(d.dir, d.ents[i]->d_name);
		_cleanup_free_ char *want = testutil_read_expected(path, d.ents[i]->d_name);
		_cleanup_json_ json_t *j = NULL;
		struct lab_error err = { 0 };
		struct series_set s;
		char got[1200];
		int r;

		if (!want || jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err) < 0)
			continue;
		series_init(&s);
		r = series_add_report(&s, j, "f.json", NULL, &err);
		snprintf(got, sizeof(got), "%s%s%s", err.path, err.path[0] ? ": " : "", err.msg);
		testutil_check_error(d.ents[i]->d_name, r, got, want);
		tap_ok(!strcmp(err.file, "f.json"), "%s: the error names the file", d.ents[i]->d_name);
		series_free(&s);
	}
}

static json_t *hostile_report(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "one.json");
	const char *evil = "</script><script>alert(1)</script>\"><img src=x onerror=alert(2)>\x01";
	json_t *run = json_array_get(json_object_get(a, "runs"), 0);
	json_t *wl = json_array_get(json_object_get(run, "workloads"), 0);
	json_t *res = json_array_get(json_object_get(wl, "results"), 0);
	json_t *metrics = json_object_get(res, "metrics");

	if (!run)
		return NULL;
	json_object_set_new(a, "id", json_string(evil));
	json_object_set_new(json_object_get(a, "job"), "name", json_string(evil));
	json_object_set_new(run, "status", json_string("panic"));
	json_object_set_new(run, "reason", json_string(evil));
	json_object_set_new(run, "console_excerpt", json_string(evil));
	/* The warnings' strings as the reader takes them: no control characters. */
	json_object_set_new(run, "warnings", json_pack("[{s:i,s:s,s:s,s:s,s:s}]", "count", 2,
						       "excerpt", "</pre><script>alert(3)</script>",
						       "first_line", "x", "kind", "kasan", "where",
						       "<img src=y onerror=alert(4)>"));
	json_object_set_new(run, "knobs", json_pack("{s:b,s:s,s:[{s:s,s:s,s:i,s:n,s:s}]}", "ok", 0,
						    "error", evil, "knobs", "name", evil,
						    "requested", evil, "before", 1, "after",
						    "status", evil));
	json_object_set_new(json_object_get(run, "kernel"), "label", json_string(evil));
	json_object_set_new(json_object_get(wl, "params"), "mode", json_string(evil));
	json_object_set(metrics, "<!--x</script>", json_object_get(metrics, "sys_s"));
	return json_incref(a);
}

static void test_dashboard_escaping(void)
{
	_cleanup_json_ json_t *h = hostile_report();
	_cleanup_free_ char *html = NULL;
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	struct series_set s;
	struct lab_error err = { 0 };
	struct dashboard_input in = { .title = "<b>t</b>" };
	struct dashboard_assets bad = test_assets;
	const char *data, *end;
	int r;

	series_init(&s);
	in.set = &s;
	if (!tap_ok(h && series_add_report(&s, h, "<evil>.json", NULL, &err) == 0,
		    "hostile report loads"))
		goto out;
	r = dashboard_html(&in, &test_assets, &html);
	if (!tap_ok(r == 0, "hostile report: page written"))
		goto out;
	tap_ok(!strstr(html, "<script>alert") && !strstr(html, "<img") && !strstr(html, "<b>t") &&
		       !strstr(html, "\x01"),
	       "hostile report: no markup from report data reaches the page");
	tap_ok(strstr(html, "kasan · &lt;img src=y") && strstr(html, "&lt;/pre&gt;&lt;script&gt;"),
	       "hostile report: its kernel warning shown, escaped");
	tap_ok(strstr(html, "&lt;/script&gt;&lt;script&gt;alert(1)") != NULL,
	       "hostile report: its text is shown escaped");
	tap_ok(strstr(html, "<table class=\"knobs\">") != NULL, "knobs shown as a table");
	data = strstr(html, "id=\"lab-data\">");
	end = data ? strstr(data, "</script>") : NULL;
	tap_ok(data && end && !memchr(data + 14, '<', (size_t)(end - data - 14)),
	       "hostile report: the chart data holds no '<'");
	bad.chart_js = "x = '</SCRIPT>';";
	tap_ok(dashboard_html(&in, &bad, &html) == -EINVAL, "a script holding </script is refused");
	bad = test_assets;
	bad.page_js = "/* <!-- */";
	tap_ok(dashboard_html(&in, &bad, &html) == -EINVAL, "a script holding <!-- is refused");
	bad = test_assets;
	bad.css = "</style>";
	tap_ok(dashboard_html(&in, &bad, &html) == -EINVAL, "a style holding </style is refused");
	html_escape(&sb, "a<b>&\"'\x01\xc3\xa9");
	tap_ok(sb.buf && !strcmp(sb.buf, "a&lt;b&gt;&amp;&quot;&#39;\xef\xbf\xbd\xc3\xa9"),
	       "html_escape: markup characters, control characters, UTF-8 kept");
	strbuf_free(&sb);
	html_script_json(&sb, "[\"</script>&\"]");
	tap_ok(sb.buf && !strcmp(sb.buf, "[\"\\u003c/script\\u003e\\u0026\"]"),
	       "html_script_json: < > & as \\u escapes");
out:
	series_free(&s);
}

/* Labels and metric names with control characters cannot reach the terminal table raw. */
static void test_text_control_chars(void)
{
	_cleanup_json_ json_t *a = hostile_report();
	_cleanup_json_ json_t *b = json_deep_copy(a);
	_cleanup_free_ char *text = NULL;
	struct series_set s;
	struct comparison c;
	struct lab_error err = { 0 };
	int clean = 1;

	json_object_set_new(json_object_get(json_array_get(json_object_get(b, "runs"), 0), "kernel"),
			    "label", json_string("\x1b[2Jfake\nline"));
	series_init(&s);
	if (!a || series_add_report(&s, a, "a", NULL, &err) < 0 ||
	    series_add_report(&s, b, "b", NULL, &err) < 0 ||
	    compare_variants(&s, 0, 1, 0, 0, &c, &err) < 0) {
		tap_ok(0, "control characters: compared (%s)", err.msg);
		series_free(&s);
		return;
	}
	if (compare_text(&s, &c, 1, &text) == 0)
		for (const char *p = text; *p; p++)
			clean &= (unsigned char)*p >= 0x20 || *p == '\n';
	tap_ok(text && clean && strstr(text, "B: ?[2Jfake?line") && strstr(text, "<!--x</script>"),
	       "control characters in labels and metric names are shown as '?' in the text table");
	compare_free(&c);
	series_free(&s);
}

/* Adaptive repetitions: the widest interval of a primary metric's mean over boots. */
static void test_precision(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "a.json"), *one = testutil_load(DATA "one.json");
	_cleanup_json_ json_t *bad = json_pack("[{s:s}]", "status", "ok");
	json_t *runs = json_object_get(a, "runs");
	struct precision_status st;

	tap_ok(precision_check(runs, 20, &st) == 0 && st.reached && st.series == 2 &&
		       st.worst_pct > 1 && st.worst_pct < 20 && strstr(st.worst, "faults_per_s"),
	       "precision: 3 boots with ~2 %% noise are within +-20 %% (widest +-%.2f %%, %s)",
	       st.worst_pct, st.worst);
	tap_ok(precision_check(runs, 1, &st) == 0 && !st.reached && st.worst_pct > 1,
	       "precision: ... but not within +-1 %%");
	tap_ok(precision_check(json_object_get(one, "runs"), 50, &st) == 0 && !st.reached &&
		       isinf(st.worst_pct),
	       "precision: one boot has no interval: not reached");
	tap_ok(precision_check(bad, 50, &st) == -EINVAL,
	       "precision: a malformed run is refused");
}

/* Every run of rep under the contention model with timing key key. */
static void set_timing_key(json_t *rep, const char *key)
{
	json_t *run;
	size_t i;

	json_array_foreach(json_object_get(rep, "runs"), i, run)
		json_object_set_new(json_object_get(run, "host"), "timing",
				    json_pack("{s:s,s:s}", "model", "quantum", "key", key));
}

/* Runs of one job under two NUMA cost presets, or with and without the charges, are two
 * models: never compared, never pooled into one side. */
static void test_numa_presets(void)
{
	_cleanup_json_ json_t *a = testutil_load(DATA "a.json");
	_cleanup_json_ json_t *b = json_deep_copy(a), *c = json_deep_copy(a);
	struct series_set s;
	struct comparison cmp;
	struct lab_error err = { 0 };
	int r;

	set_timing_key(a, "quantum-q1000-numa-0123456789ab");
	set_timing_key(b, "quantum-q1000-numa-ba9876543210");
	expect_error("two NUMA presets", a, b,
		     "A (base) ran under quantum-q1000-numa-0123456789ab and B (patched) under "
		     "quantum-q1000-numa-ba9876543210: the NUMA cost model's charges differ "
		     "(another preset, or charges on one side only), so their figures cannot be "
		     "compared; run both sides with one \"numa_cost\"");
	set_timing_key(b, "quantum-q1000");
	expect_error("NUMA charges on one side", a, b,
		     "A (base) ran under quantum-q1000-numa-0123456789ab and B (patched) under "
		     "quantum-q1000: the NUMA cost model's charges differ");
	set_timing_key(b, "quantum-q250-numa-0123456789ab");
	expect_error("one preset, two quanta", a, b,
		     "A (base) ran under the quantum-q1000-numa-0123456789ab timing model and B "
		     "(patched) under quantum-q250-numa-0123456789ab");
	/* Two reports of one job for B, each under its preset: not pooled. */
	set_timing_key(b, "quantum-q1000-numa-0123456789ab");
	set_timing_key(c, "quantum-q1000-numa-ba9876543210");
	r = two(&s, a, b);
	if (r == 0)
		r = series_add_report(&s, c, "c.json", "patched", &err);
	if (r == 0)
		r = compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &cmp, &err);
	if (!tap_ok(r == -EINVAL &&
			    strstr(err.msg, "B (patched) mixes runs of different timing models (runs "
					    "per model: {\"quantum-q1000-numa-0123456789ab\":3,"
					    "\"quantum-q1000-numa-ba9876543210\":3})"),
		    "two presets on one side: not pooled, said so"))
		printf("# got r=%d: %s\n", r, err.msg);
	if (r == 0)
		compare_free(&cmp);
	series_free(&s);
	/* ... and the same preset on both sides compares. */
	set_timing_key(c, "quantum-q1000-numa-0123456789ab");
	r = two(&s, a, c);
	if (r == 0)
		r = compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &cmp, &err);
	tap_ok(r == 0 && !strcmp(cmp.timing, "quantum-q1000-numa-0123456789ab"),
	       "one preset on both sides: compared under %s", r == 0 ? cmp.timing : err.msg);
	if (r == 0)
		compare_free(&cmp);
	series_free(&s);
}

int main(void)
{
	test_regression();
	test_threshold();
	test_learned();
	test_sequential_level();
	test_identical();
	test_one_report();
	test_insufficient_and_outcome();
	test_bad_pairs();
	test_numa_presets();
	test_boot_unit();
	test_precision();
	test_labels_and_baselines();
	test_reader_errors();
	test_dashboard_escaping();
	test_text_control_chars();
	return tap_done();
}
