/* The projections of a lock-counted report's series (lab/analysis/projseries.h), pure:
 * lab/tests/data/projinput/lock-insns-ab.json (configs/lock-insns.json as measured) gives two
 * projected series: no-split-pmd-ptlock (its site took one lock all 4 tasks shared) and
 * baseline (4 split locks at 4 tasks, one per task: private, a line without a knee); with
 * baseline's 4-task counts made 2 locks of 2 vCPUs, baseline is not projected, with the
 * reason; every object says it is a projection; a report without counts gives no series.  The JSON and text match
 * lab/tests/golden/projseries.{json,txt} (UPDATE_GOLDEN=1 rewrites them; frozen priors of
 * lab/tests/data/projection/priors.json, 200 draws to 4s-64c).  On the dashboard's data
 * (analysis/charts.h) the projection is a line of its own, marked, at 1, 2, 4 ... 64 CPUs,
 * its band the speed-up's times the measured 1-task mean, on the throughput's chart only
 * (lab/tests/data/scalefit/usl.json, relabelled, holds the measured curve), and it makes a
 * one-task-count chart a chart rather than a table. */
#include <math.h>
#include <string.h>

#include "analysis/charts.h"
#include "analysis/projseries.h"
#include "analysis/series.h"
#include "testutil.h"
#include "util/jsonio.h"

#define COUNTED "lab/tests/data/projinput/lock-insns-ab.json"
#define PRIORS "lab/tests/data/projection/priors.json"
#define MEASURED "lab/tests/data/scalefit/usl.json"
#define NOSPLIT "no-split-pmd-ptlock"

#define WINDOW "lab/tests/data/projinput/window-quantum.json"

static json_t *project_with(const json_t *counted, const struct proj_priors *pr,
			    const json_t *window)
{
	struct projseries_opts o = {
		.from = COUNTED, .site = "do_huge_pmd_anonymous_page+", .priors = pr,
		.in = { .sockets = 4, .cpus_per_socket = 16, .nmax = 64, .draws = 200, .seed = 1 },
		.label = { .target = "4s-64c", .priors = PRIORS },
		.window = window, .window_from = window ? WINDOW : NULL,
	};

	return projseries_json(counted, &o);
}

static json_t *project(const json_t *counted, const struct proj_priors *pr)
{
	return project_with(counted, pr, NULL);
}

/* Z from the contention model's 1-task window: both series measured with it, said so. */
static void test_window(const json_t *counted, const struct proj_priors *pr)
{
	_cleanup_json_ json_t *win = testutil_load(WINDOW), *doc = NULL;
	const json_t *ns;

	doc = win ? project_with(counted, pr, win) : NULL;
	ns = json_object_get(json_array_get(json_object_get(doc, "series"), 1), "measured");
	tap_ok(ns && fabs(json_number_value(json_object_get(ns, "insn_outside")) -
			  (4727046.5 / 16 - 32831.0 / 32)) < 1e-6 &&
		       strstr(json_string_value(json_object_get(ns, "outside_from")),
			      "the 1-task window of " WINDOW),
	       "--outside-from: no-split's Z from the window, %s",
	       json_string_value(json_object_get(ns, "outside_from")));
}

static void test_series(const json_t *doc)
{
	const json_t *series = json_object_get(doc, "series");
	const json_t *base = json_array_get(series, 0), *ns = json_array_get(series, 1);
	const json_t *m = json_object_get(ns, "measured");
	_cleanup_free_ char *js = jsonio_dumps(doc);
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	tap_ok(json_array_size(series) == 2 && json_is_true(json_object_get(doc, "projection")) &&
		       !strcmp(json_string_value(json_object_get(doc, "schema")),
			       PROJSERIES_SCHEMA),
	       "two series, the document marked a projection");
	const json_t *bp = json_object_get(base, "projection");
	const json_t *b64 = json_array_get(json_object_get(bp, "points"), 63);

	tap_ok(!strcmp(json_string_value(json_object_get(base, "label")), "baseline") &&
		       json_is_true(json_object_get(base, "projected")) &&
		       !strcmp(json_string_value(json_object_get(json_object_get(bp, "model"),
								 "lock")), "private") &&
		       json_is_null(json_object_get(bp, "knee")) &&
		       json_real_value(json_object_get(b64, "speedup_p5")) == 64 &&
		       json_real_value(json_object_get(b64, "speedup_p95")) == 64,
	       "baseline: a lock per task, projected as private: no knee, speed-up 64 at 64");
	tap_ok(json_is_true(json_object_get(ns, "projected")) &&
		       fabs(json_number_value(json_object_get(m, "insn_inside")) - 32831.0 / 32) <
			       1e-9 &&
		       json_integer_value(json_object_get(m, "shared_max_cpus")) == 4,
	       "no-split: projected from S = 32831 / 32 instructions, one lock of 4 vCPUs");
	tap_ok(json_is_true(json_object_get(json_object_get(ns, "projection"), "projection")) &&
		       json_array_size(json_object_get(json_object_get(ns, "projection"),
						       "points")) == 64,
	       "... its projection marked one, 64 CPUs");
	tap_ok(projseries_find(doc, NOSPLIT, "memscale") == ns &&
		       projseries_find(doc, "baseline", "memscale") == base &&
		       !projseries_find(doc, NOSPLIT, "pft"),
	       "find: the projected series by label and workload");
	testutil_golden("projseries.json", js);
	testutil_golden("projseries.txt", projseries_text(doc, &sb) == 0 ? sb.buf : NULL);
	tap_ok(sb.buf && !strncmp(sb.buf, "PROJECTION, not measured", 24),
	       "text: the word PROJECTION first");
}

/* usl.json's runs labelled no-split-pmd-ptlock, the counts' workload renamed pft: one variant
 * with a measured 1-task mean to scale the band by. */
static const json_t *chart_of(const json_t *charts, const char *metric)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(charts, "charts"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "metric")), metric))
			return c;
	return NULL;
}

static const json_t *projection_line(const json_t *chart)
{
	const json_t *l;
	size_t i;

	json_array_foreach(json_object_get(chart, "lines"), i, l)
		if (json_is_true(json_object_get(l, "projection")))
			return l;
	return NULL;
}

static void test_charts(json_t *counted, const struct proj_priors *pr)
{
	_cleanup_json_ json_t *measured = testutil_load(MEASURED), *doc = NULL, *charts = NULL;
	const json_t *run, *wl, *line, *pts, *c;
	struct lab_error err = { 0 };
	struct series_set s;
	double y1 = NAN, sp_lo, sp_hi;
	size_t i, k;

	json_array_foreach(json_object_get(measured, "runs"), i, run)
		json_object_set_new(json_object_get(run, "kernel"), "label", json_string(NOSPLIT));
	json_array_foreach(json_object_get(counted, "runs"), i, run)
		json_array_foreach(json_object_get(run, "workloads"), k, wl)
			json_object_set_new((json_t *)wl, "name", json_string("pft"));
	doc = project(counted, pr);
	series_init(&s);
	if (!tap_ok(doc && series_add_report(&s, measured, MEASURED, NULL, &err) == 0,
		    "the measured curve and the projection of its label"))
		goto out;
	charts = charts_json(&s, doc);
	c = chart_of(charts, "faults_per_s");
	line = projection_line(c);
	pts = json_object_get(line, "points");
	tap_ok(line && json_is_true(json_object_get(c, "projected")) &&
		       strstr(json_string_value(json_object_get(line, "label")), "PROJECTION") &&
		       json_array_size(pts) == 7,
	       "faults_per_s: a projection line, marked and labelled, at 1, 2, ... 64 CPUs");
	json_array_foreach(json_object_get(c, "lines"), i, line)
		if (!json_object_get(line, "fit") && !json_object_get(line, "projection"))
			y1 = json_number_value(json_object_get(json_array_get(
				json_object_get(line, "points"), 0), "y"));
	sp_lo = json_number_value(json_object_get(json_array_get(json_object_get(json_object_get(
		json_array_get(json_object_get(doc, "series"), 1), "projection"), "points"), 63),
		"speedup_p5"));
	sp_hi = json_number_value(json_object_get(json_array_get(json_object_get(json_object_get(
		json_array_get(json_object_get(doc, "series"), 1), "projection"), "points"), 63),
		"speedup_p95"));
	tap_ok(fabs(json_number_value(json_object_get(json_array_get(pts, 0), "y")) - y1) <
			       1e-6 * y1 &&
		       fabs(json_number_value(json_object_get(json_array_get(pts, 6), "lo")) -
			    y1 * sp_lo) < 1e-6 * y1 &&
		       fabs(json_number_value(json_object_get(json_array_get(pts, 6), "hi")) -
			    y1 * sp_hi) < 1e-6 * y1 &&
		       json_integer_value(json_object_get(json_array_get(pts, 6), "x")) == 64,
	       "... at 1 CPU the measured mean (%.0f); at 64 its speed-up band times it", y1);
	tap_ok(!projection_line(chart_of(charts, "sys_s")) &&
		       !json_object_get(chart_of(charts, "sys_s"), "projected"),
	       "sys_s (not a throughput): no projection");
out:
	series_free(&s);
}

/* Baseline's 4-task counts made two locks of two vCPUs each: neither one lock all tasks share
 * nor one per task, so not projected, with the reason, and not found (test_charts renamed the
 * workload pft). */
static void test_not_projected(json_t *counted, const struct proj_priors *pr)
{
	_cleanup_json_ json_t *doc = NULL;
	const json_t *run, *wl, *res, *site, *base;
	size_t i, k, m, n;

	json_array_foreach(json_object_get(counted, "runs"), i, run) {
		if (strcmp(json_string_value(json_object_get(json_object_get(run, "kernel"),
							     "label")), "baseline"))
			continue;
		json_array_foreach(json_object_get(run, "workloads"), k, wl)
			json_array_foreach(json_object_get(wl, "results"), m, res) {
				if (json_integer_value(json_object_get(res, "tasks")) != 4)
					continue;
				json_array_foreach(json_object_get(json_object_get(json_object_get(
					res, "info"), "lock_insns"), "sites"), n, site) {
					json_object_set_new((json_t *)site, "locks", json_integer(2));
					json_object_set_new((json_t *)site, "max_cpus_per_lock",
							    json_integer(2));
				}
			}
	}
	doc = project(counted, pr);
	base = json_array_get(json_object_get(doc, "series"), 0);
	tap_ok(base && json_is_false(json_object_get(base, "projected")) &&
		       json_is_null(json_object_get(base, "projection")) &&
		       strstr(json_string_value(json_object_get(base, "why")), "took 2 lock(s)") &&
		       !projseries_find(doc, "baseline", "pft"),
	       "2 locks of 2 vCPUs at 4 tasks: not projected, why: %s",
	       base ? json_string_value(json_object_get(base, "why")) : "(none)");
}

int main(void)
{
	_cleanup_json_ json_t *counted = testutil_load(COUNTED), *pj = testutil_load(PRIORS);
	_cleanup_json_ json_t *doc = NULL, *none = NULL, *empty = json_pack("{s:[]}", "runs");
	struct proj_priors pr;
	struct lab_error err = { 0 };

	if (!tap_ok(counted && pj && projpriors_from_json(pj, &pr, &err) == 0,
		    "%s and %s load", COUNTED, PRIORS))
		return tap_done();
	doc = project(counted, &pr);
	if (tap_ok(doc != NULL, "projected"))
		test_series(doc);
	none = project(empty, &pr);
	tap_ok(none && json_array_size(json_object_get(none, "series")) == 0,
	       "a report without lock counts: no series");
	test_window(counted, &pr);
	test_charts(counted, &pr);
	test_not_projected(counted, &pr);
	return tap_done();
}
