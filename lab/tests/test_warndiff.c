/* Kernel warnings in an A/B (lab/analysis/warndiff.h through compare.c): each case in
 * lab/tests/data/warndiff/NAME.json gives the warnings of A's and B's runs ("a", "b": one
 * entry a run, a runs[].warnings array or null for a run whose report predates them), put
 * into the runs of a real A/B report (lab/tests/data/compare/real-ab.json, two boots a
 * side); `lab compare`'s short form and the comparison's "warnings" JSON are compared with
 * lab/tests/golden/warndiff-NAME.{txt,json}; UPDATE_GOLDEN=1 rewrites them. */
#include "analysis/compare.h"
#include "analysis/dashboard.h"
#include "testutil.h"

#define DATA "lab/tests/data/warndiff"
#define REPORT "lab/tests/data/compare/real-ab.json"

/* The case's warnings into the report's runs: the n-th run of a label gets side[n]. */
static int plant(json_t *doc, const json_t *c)
{
	const char *labels[2] = { "deb-a", "deb-b" };
	const char *sides[2] = { "a", "b" };
	unsigned seen[2] = { 0, 0 };
	size_t i;
	json_t *run;

	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		const char *l = json_string_value(json_object_get(json_object_get(run, "kernel"),
								  "label"));
		for (int k = 0; k < 2; k++) {
			json_t *w;

			if (!l || strcmp(l, labels[k]))
				continue;
			w = json_array_get(json_object_get(c, sides[k]), seen[k]++);
			if (!w)
				return -EINVAL;
			if (json_is_null(w))
				json_object_del(run, "warnings");
			else
				json_object_set(run, "warnings", w);
		}
	}
	return 0;
}

static void one(const char *name)
{
	_cleanup_free_ char *path = NULL, *text = NULL, *js = NULL, *gt = NULL, *gj = NULL;
	_cleanup_json_ json_t *c = NULL, *doc = testutil_load(REPORT), *all = NULL;
	struct lab_error err = { 0 };
	struct series_set s;
	struct comparison cmp;
	const json_t *j;

	if (asprintf(&path, DATA "/%s.json", name) < 0 || !(c = testutil_load(path)) || !doc ||
	    !tap_ok(plant(doc, c) == 0, "%s: planted", name))
		return;
	series_init(&s);
	if (tap_ok(series_add_report(&s, doc, "r.json", NULL, &err) == 0 &&
			   compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &cmp,
					    &err) == 0,
		   "%s: compared (%s %s)", name, err.path, err.msg)) {
		tap_ok(compare_brief(&s, &cmp, 1, 0, &text) == 0, "%s: brief", name);
		all = compare_json(&s, &cmp, 1);
		j = json_object_get(json_array_get(json_object_get(all, "comparisons"), 0),
				    "warnings");
		js = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
		if (asprintf(&gt, "warndiff-%s.txt", name) >= 0)
			testutil_golden(gt, text);
		if (asprintf(&gj, "warndiff-%s.json", name) >= 0)
			testutil_golden(gj, js);
		compare_free(&cmp);
	}
	series_free(&s);
}

/* Console text with markup stays text in the dashboard's warnings table. */
static void hostile(void)
{
	static const struct dashboard_assets assets = { .chart_js = "", .errorbars_js = "",
							.page_js = "", .css = "" };
	_cleanup_json_ json_t *c = testutil_load(DATA "/hostile.json"), *doc = testutil_load(REPORT);
	_cleanup_free_ char *html = NULL;
	struct lab_error err = { 0 };
	struct series_set s;
	struct comparison cmp;
	int ok = 0;

	if (!c || !doc || plant(doc, c) < 0)
		return;
	series_init(&s);
	if (series_add_report(&s, doc, "r.json", NULL, &err) == 0 &&
	    compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &cmp, &err) == 0) {
		struct dashboard_input in = { .set = &s, .cmp = &cmp, .nr_cmp = 1, .title = "t" };

		ok = dashboard_html(&in, &assets, &html) == 0 && strstr(html, "Kernel warnings") &&
		     !strstr(html, "<img src=x") && !strstr(html, "<script>alert") &&
		     strstr(html, "&lt;img src=x onerror=alert(1)&gt;");
		compare_free(&cmp);
	}
	series_free(&s);
	tap_ok(ok, "hostile: the dashboard's warnings table escapes console text");
}

/* The decision each case must come to: only a new warning (in most of B's boots) makes a
 * regression of it. */
static void decisions(void)
{
	static const struct {
		const char *name;
		enum compare_decision d;
		unsigned nr_new, nr_gone;
	} want[] = {
		{ "new", COMPARE_REGRESSION, 1, 0 },  { "two-new", COMPARE_REGRESSION, 2, 0 },
		{ "gone", COMPARE_UNDECIDED, 0, 1 },  { "both", COMPARE_UNDECIDED, 0, 0 },
		{ "unscanned", COMPARE_UNDECIDED, 0, 0 }, { "half-scanned", COMPARE_UNDECIDED, 0, 0 },
		{ "none", COMPARE_UNDECIDED, 0, 0 }, { "sporadic", COMPARE_UNDECIDED, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		_cleanup_free_ char *path = NULL;
		_cleanup_json_ json_t *c = NULL, *doc = testutil_load(REPORT);
		struct lab_error err = { 0 };
		struct series_set s;
		struct comparison cmp;
		int ok = 0;

		if (asprintf(&path, DATA "/%s.json", want[i].name) < 0 || !(c = testutil_load(path)) ||
		    !doc || plant(doc, c) < 0)
			continue;
		series_init(&s);
		if (series_add_report(&s, doc, "r.json", NULL, &err) == 0 &&
		    compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &cmp, &err) == 0) {
			ok = cmp.decision == want[i].d && cmp.warn.nr_new == want[i].nr_new &&
			     cmp.warn.nr_gone == want[i].nr_gone;
			compare_free(&cmp);
		}
		series_free(&s);
		tap_ok(ok, "%s: decision %s, %u new, %u gone", want[i].name,
		       compare_decision_name(want[i].d), want[i].nr_new, want[i].nr_gone);
	}
}

int main(void)
{
	static const char *const cases[] = { "new", "two-new", "gone", "both", "unscanned",
					     "half-scanned", "none", "sporadic" };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		one(cases[i]);
	decisions();
	hostile();
	return tap_done();
}
