/* Why it moved (lab/analysis/deltas.h through compare.c): each case in
 * lab/tests/data/deltas/NAME.json planted into a synthetic A/B where B regresses
 * (testutil_deltas.h says how).  `lab compare`'s short form, -v and the comparison's
 * "workloads" JSON are compared with lab/tests/golden/deltas-NAME.{txt,json}; UPDATE_GOLDEN=1
 * rewrites them. */
#include "analysis/compare.h"
#include "analysis/dashboard.h"
#include "testutil.h"
#include "testutil_deltas.h"

#define REPORTS DELTAS_REPORTS

/* The case's A/B compared; 0 when it was (cmp and s then to be freed). */
static int compared(const char *name, struct series_set *s, struct comparison *cmp)
{
	_cleanup_json_ json_t *a = NULL, *b = NULL;
	struct lab_error err = { 0 };

	series_init(s);
	if (deltas_case_load(name, &a, &b) < 0)
		return -EINVAL;
	if (series_add_report(s, a, "a.json", "base", &err) < 0 ||
	    series_add_report(s, b, "b.json", "patched", &err) < 0 ||
	    compare_variants(s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, cmp, &err) < 0) {
		printf("# %s: %s %s\n", name, err.path, err.msg);
		series_free(s);
		return -EINVAL;
	}
	return 0;
}

static void mark_deterministic(json_t *doc)
{
	json_t *run;
	size_t i;

	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		json_t *host = json_object_get(run, "host");

		if (!json_object_get(host, "timing"))
			json_object_set_new(host, "timing", json_object());
		json_object_set_new(json_object_get(host, "timing"), "deterministic", json_true());
	}
}

/* A profiled side against a plain one: refused under a host-clock model, where the profile's
 * plugin slows the guest (compare.c, check_profiled); compared under a deterministic one,
 * where it changes no figure, B's lines then absent with the reason. */
static void one_side(void)
{
	_cleanup_json_ json_t *a = NULL, *b = NULL;
	struct lab_error err = { 0 };
	struct series_set s;
	struct comparison cmp;
	const struct deltas_workload *w;
	int r;

	printf("# one-side: the refusal expected below\n");
	r = compared("one-side", &s, &cmp);
	tap_ok(r == -EINVAL, "one-side, host-clock runs: A profiled, B not: refused");
	if (r == 0) {
		compare_free(&cmp);
		series_free(&s);
	}
	if (deltas_case_load("one-side", &a, &b) < 0)
		return;
	mark_deterministic(a);
	mark_deterministic(b);
	series_init(&s);
	r = series_add_report(&s, a, "a.json", "base", &err) == 0 &&
	    series_add_report(&s, b, "b.json", "patched", &err) == 0 &&
	    compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &cmp, &err) == 0;
	w = r && cmp.deltas.n ? &cmp.deltas.w[0] : NULL;
	tap_ok(w && w->profile_absent && !strcmp(w->profile_absent, "B was not profiled"),
	       "one-side, deterministic runs: compared, \"B was not profiled\" (%s)", err.msg);
	if (r)
		compare_free(&cmp);
	series_free(&s);
}

static void one(const char *name, int markdown)
{
	_cleanup_free_ char *brief = NULL, *verbose = NULL, *md = NULL, *txt = NULL, *js = NULL,
			    *gt = NULL, *gj = NULL, *gm = NULL;
	_cleanup_json_ json_t *all = NULL;
	struct series_set s;
	struct comparison cmp;

	if (!tap_ok(compared(name, &s, &cmp) == 0, "%s: compared", name))
		return;
	if (compare_brief(&s, &cmp, 1, 0, &brief) == 0 && compare_text(&s, &cmp, 1, &verbose) == 0 &&
	    asprintf(&txt, "%s\n---- -v ----\n%s", brief, verbose) < 0)
		txt = NULL;
	all = compare_json(&s, &cmp, 1);
	js = json_dumps(json_object_get(json_array_get(json_object_get(all, "comparisons"), 0),
					"workloads"),
			JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!strcmp(name, "planted"))
		tap_ok(brief && strstr(brief, "\n  why it moved (not deciding; per fault, boots A 3, "
					      "B 3):\n    do_anonymous_page  +52.0 insns/fault "
					      "(+4.1 %), incl +60.3 (+2.0 %)\n"),
		       "planted: do_anonymous_page's line first, under the regression");
	if (asprintf(&gt, "deltas-%s.txt", name) >= 0)
		testutil_golden(gt, txt);
	if (asprintf(&gj, "deltas-%s.json", name) >= 0)
		testutil_golden(gj, js);
	if (markdown && compare_brief(&s, &cmp, 1, 1, &md) == 0 &&
	    asprintf(&gm, "deltas-%s.md", name) >= 0)
		testutil_golden(gm, md);
	compare_free(&cmp);
	series_free(&s);
}

/* The listed lines of each case, and that they never change the decision. */
static void listed(void)
{
	static const struct {
		const char *name;
		size_t profile, counters;
		const char *first, *absent;
	} want[] = {
		{ "planted", 2, 0, "do_anonymous_page", NULL },
		{ "aa", 0, 0, NULL, NULL },
		{ "counters", 0, 4, "thp_fault_alloc", "neither side was profiled" },
		{ "no-ops", 0, 0, NULL,
		  "no per-op figure (no page_faults or ops metric)" },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct series_set s;
		struct comparison cmp;
		const struct deltas_workload *w;
		const struct deltas_row *first;
		int ok;

		if (compared(want[i].name, &s, &cmp) < 0)
			continue;
		w = cmp.deltas.n == 1 ? &cmp.deltas.w[0] : NULL;
		first = !w ? NULL : w->nr_profile ? w->profile : w->nr_counters ? w->counters : NULL;
		ok = w && w->nr_profile == want[i].profile && w->nr_counters == want[i].counters &&
		     (!want[i].first || (first && !strcmp(first->name, want[i].first))) &&
		     (want[i].absent ? w->profile_absent && !strcmp(w->profile_absent,
								     want[i].absent)
				     : !w->profile_absent) &&
		     cmp.decision == COMPARE_REGRESSION;
		tap_ok(ok, "%s: %zu profile lines, %zu counters, first %s, decision unchanged",
		       want[i].name, want[i].profile, want[i].counters,
		       want[i].first ? want[i].first : "-");
		compare_free(&cmp);
		series_free(&s);
	}
}

/* An info.profile of two malformed entries (skipped) and n symbols, names of len (> 6) bytes:
 * the number, then c; self and incl i % 7. */
static json_t *profile_of(size_t n, size_t len, char c)
{
	json_t *syms = json_array();
	char *name = malloc(len + 1), digits[16];

	json_array_append_new(syms, json_pack("{s:s,s:s,s:n}", "symbol", "bad", "self", "12",
					      "incl"));
	json_array_append_new(syms, json_string("not an object"));
	for (size_t i = 0; name && i < n; i++) {
		memset(name, c, len);
		name[len] = '\0';
		snprintf(digits, sizeof(digits), "%06zu", i);
		memcpy(name, digits, 6);
		json_array_append_new(syms, json_pack("{s:s,s:f,s:f}", "symbol", name, "self",
						      (double)(i % 7), "incl", (double)(i % 7)));
	}
	free(name);
	return json_pack("{s:{s:o}}", "profile", "symbols", syms);
}

/* The ops metric (1 each) into every result of doc's runs' first workload. */
static void ops_everywhere(json_t *doc)
{
	json_t *run, *res;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "runs"), i, run)
		json_array_foreach(json_object_get(json_array_get(json_object_get(run, "workloads"),
								  0), "results"), k, res)
			json_object_set_new(json_object_get(res, "metrics"), "ops",
					    json_pack("{s:f,s:s,s:s}", "value", 1.0, "unit", "ops",
						      "better", "higher"));
}

/* Hostile and oversized input: names escaped in the dashboard, cut to DELTAS_NAME_MAX - 1
 * bytes, symbols bounded, malformed values skipped. */
static void hostile(void)
{
	static const struct dashboard_assets assets = { .chart_js = "", .errorbars_js = "",
							.page_js = "", .css = "" };
	_cleanup_json_ json_t *a = testutil_load(REPORTS "a.json"), *b = testutil_load(REPORTS "b.json");
	_cleanup_json_ json_t *big = profile_of(DELTAS_SYMBOLS_MAX + 500, 300, 'x');
	_cleanup_free_ char *html = NULL;
	struct lab_error err = { 0 };
	struct series_set s;
	struct comparison cmp;
	json_t *run;
	size_t i;
	int ok = 0, k = 0;

	if (!a || !b || !big)
		return;
	ops_everywhere(a);
	ops_everywhere(b);
	/* Both lists complete (self_cutoff 0: nothing left out), so each side's symbols that the
	 * other never lists count 0 there. */
	json_object_set_new(json_object_get(big, "profile"), "self_cutoff", json_integer(0));
	/* A: the big profile; B: the same with an evil symbol far ahead of the rest */
	json_array_foreach(json_object_get(a, "runs"), i, run) {
		json_t *res = json_array_get(json_object_get(json_array_get(json_object_get(run,
								"workloads"), 0), "results"), 0);
		json_object_update(json_object_get(res, "info"), big);
		json_object_set_new(json_object_get(res, "info"), "vmstat",
				    json_pack("{s:s,s:n}", "pgfault", "many", "numa_hit"));
	}
	json_array_foreach(json_object_get(b, "runs"), i, run) {
		json_t *res = json_array_get(json_object_get(json_array_get(json_object_get(run,
								"workloads"), 0), "results"), 0);
		json_t *info = json_object_get(res, "info");

		json_object_set_new(info, "profile",
				    json_pack("{s:[{s:s,s:f,s:f}],s:i}", "symbols", "symbol",
					      "<img src=x onerror=alert(1)>", "self", 500.0 + (double)k++,
					      "incl", 500.0, "self_cutoff", 0));
	}
	series_init(&s);
	if (series_add_report(&s, a, "a.json", "base", &err) == 0 &&
	    series_add_report(&s, b, "b.json", "patched", &err) == 0 &&
	    compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &cmp, &err) == 0) {
		struct dashboard_input in = { .set = &s, .cmp = &cmp, .nr_cmp = 1, .title = "t" };
		const struct deltas_workload *w = cmp.deltas.n ? &cmp.deltas.w[0] : NULL;

		/* A's first DELTAS_SYMBOLS_MAX entries, less the two malformed ones, and B's */
		tap_ok(w && w->symbols == DELTAS_SYMBOLS_MAX - 2 + 1 &&
			       w->nr_profile == DELTAS_PROFILE_ROWS,
		       "oversized: %d entries a result read, %d lines listed (%zu, %zu)",
		       DELTAS_SYMBOLS_MAX, DELTAS_PROFILE_ROWS, w ? w->symbols : 0,
		       w ? w->nr_profile : 0);
		tap_ok(w && w->unit == DELTAS_UNIT_OP && w->nr_profile &&
			       !strcmp(w->profile[0].name,
								 "<img src=x onerror=alert(1)>"),
		       "the ops metric is the unit when there is no page_faults");
		ok = 1;
		for (size_t r = 0; w && r < w->nr_profile; r++)
			ok &= strlen(w->profile[r].name) == DELTAS_NAME_MAX - 1 || r == 0;
		tap_ok(w && ok, "long names cut to %d bytes", DELTAS_NAME_MAX - 1);
		ok = dashboard_html(&in, &assets, &html) == 0 && strstr(html, "Why it moved") &&
		     !strstr(html, "<img src=x") &&
		     strstr(html, "&lt;img src=x onerror=alert(1)&gt;");
		tap_ok(ok, "hostile: the dashboard's deltas table escapes symbol names");
		compare_free(&cmp);
	} else {
		tap_ok(0, "hostile: compared (%s %s)", err.path, err.msg);
	}
	series_free(&s);
}

int main(void)
{
	static const char *const cases[] = { "planted", "aa", "counters", "no-ops" };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		one(cases[i], i == 0);
	listed();
	hostile();
	one_side();
	return tap_done();
}
