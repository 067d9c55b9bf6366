/* `lab export`: a report's figures in other tools' formats (lab/analysis/export.h).  Every
 * figure is a series' mean over its boots, each boot's repetitions averaged first, harmonic
 * for rates: the same rule `lab compare` uses (verdict.h, boots_summarize).  Pure. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/export.h"
#include "analysis/verdict.h"
#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/strbuf.h"

#define KCIDB_ORIGIN "numalab"

/* One series of one variant, summarised per boot. */
struct export_point {
	const struct series_what *g;
	unsigned tasks;
	const char *label;
	double *means;          /* per boot, in boot order; owned */
	struct boot_stats bs;
	struct stats_summary sum;
	enum stats_mean kind;
};

static int point_get(const struct series_set *s, size_t key, size_t variant,
		     struct export_point *p)
{
	const struct series *x = series_get(s, key, variant);

	memset(p, 0, sizeof(*p));
	if (!x || !x->n)
		return 0;
	p->g = &s->groups[s->keys[key].group];
	p->tasks = s->keys[key].tasks;
	p->label = s->variants[variant].label;
	p->kind = boots_mean_kind(p->g->unit, x->v, x->n);
	p->means = calloc(x->n, sizeof(double));
	if (!p->means)
		return -ENOMEM;
	if (boots_summarize(x->boot, x->v, x->n, p->kind, p->means, &p->bs, &p->sum) < 0) {
		free(p->means);
		p->means = NULL;
		return 0; /* a series with no finite figure is left out */
	}
	return 1;
}

/* ---- KCIDB v5.3 ----------------------------------------------------------------------- */

/* KCIDB's test status for a run's outcome: the code faulty (FAIL), the test broke (ERROR),
 * the harness failed (MISS). */
static const char *kcidb_status(const char *outcome)
{
	if (!strcmp(outcome, "ok"))
		return "PASS";
	if (!strcmp(outcome, "panic") || !strcmp(outcome, "boot-failure") ||
	    !strcmp(outcome, "hang"))
		return "FAIL";
	if (!strcmp(outcome, "workload-failure"))
		return "ERROR";
	return "MISS";
}

/* A KCIDB path element: [a-zA-Z0-9_-], anything else becomes '_'. */
static void path_part(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < len; i++) {
		char c = src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '_' || c == '-' ? c : '_';
	}
	dst[i] = '\0';
}

static json_t *kcidb_build(const char *rid, const char *label, const json_t *kernel,
			   int booted)
{
	const json_t *build = json_object_get(kernel, "build");
	char id[512];

	snprintf(id, sizeof(id), KCIDB_ORIGIN ":%s:%s", rid, label);
	return json_pack("{s:s, s:s+, s:s, s:s, s:s, s:s, s:{s:o*, s:o*, s:o*, s:o*}}", "id", id,
			 "checkout_id", KCIDB_ORIGIN ":", rid, "origin", KCIDB_ORIGIN,
			 "architecture", "x86_64", "config_name", label, "status",
			 booted ? "PASS" : "FAIL", "misc", "variant",
			 json_deep_copy(json_object_get(kernel, "variant")), "release",
			 json_deep_copy(json_object_get(kernel, "release")), "build_key",
			 json_deep_copy(json_object_get(build, "key")), "source",
			 json_deep_copy(json_object_get(build, "source")));
}

/* The builds (one a label, in run order) and one boot test a run. */
static int kcidb_runs(const json_t *doc, const char *rid, const char *created, json_t *builds,
		      json_t *tests)
{
	const json_t *runs = json_object_get(doc, "runs"), *run;
	_cleanup_json_ json_t *seen = json_object();
	size_t i;

	if (!seen)
		return -ENOMEM;
	json_array_foreach(runs, i, run) {
		char buf[256], id[600];
		const char *label = series_run_label(run, buf, sizeof(buf));
		const char *st = json_string_value(json_object_get(run, "status"));
		int booted = st && strcmp(st, "build-failure");
		json_t *b = json_object_get(seen, label);

		if (!b) {
			b = kcidb_build(rid, label, json_object_get(run, "kernel"), booted);
			if (!b || json_object_set_new(seen, label, b) < 0 ||
			    json_array_append(builds, b) < 0)
				return -ENOMEM;
		} else if (booted) {
			json_object_set_new(b, "status", json_string("PASS"));
		}
		snprintf(id, sizeof(id), KCIDB_ORIGIN ":%s:%s:boot:%zu", rid, label, i);
		if (json_array_append_new(tests, json_pack(
			    "{s:s, s:s, s:s, s:s, s:s, s:s, s:s?}", "id", id, "build_id",
			    json_string_value(json_object_get(b, "id")), "origin", KCIDB_ORIGIN, "path", KCIDB_ORIGIN ".boot", "status",
			    kcidb_status(st ? st : ""), "start_time", created, "comment",
			    json_string_value(json_object_get(run, "reason")))) < 0)
			return -ENOMEM;
	}
	return 0;
}

static json_t *kcidb_test(const char *rid, const struct export_point *p, size_t n,
			  const char *created, const char *timing)
{
	char id[800], path[256], w[64], m[96];

	path_part(w, sizeof(w), p->g->workload);
	path_part(m, sizeof(m), p->g->metric);
	snprintf(path, sizeof(path), KCIDB_ORIGIN ".%s.%s", w, m);
	snprintf(id, sizeof(id), KCIDB_ORIGIN ":%s:%s:%zu", rid, p->label, n);
	return json_pack("{s:s, s:s+++, s:s, s:s, s:s, s:s, s:{s:f, s:s}, s:{s:s, s:{s:s, s:I, "
			 "s:O}}, s:{s:I, s:s, s:o*, s:b}}",
			 "id", id, "build_id", KCIDB_ORIGIN ":", rid, ":", p->label, "origin",
			 KCIDB_ORIGIN, "path", path, "status", "DONE", "start_time", created,
			 "number", "value", p->sum.mean, "unit", p->g->unit, "environment",
			 "comment", p->g->topology, "misc", "timing", timing ? timing : "unknown",
			 "tasks", (json_int_t)p->tasks, "params", p->g->params, "misc", "boots",
			 (json_int_t)p->bs.boots, "mean",
			 p->kind == STATS_HARMONIC ? "harmonic" : "arithmetic", "cv_between",
			 isfinite(p->bs.cv_between) ? json_real(p->bs.cv_between) : NULL, "primary",
			 workload_metric_is_primary(p->g->workload, p->g->metric));
}

/* One DONE test a primary series and variant, its mean as the number. */
static int kcidb_series(const struct series_set *s, const char *rid, const char *created,
			json_t *tests)
{
	_cleanup_free_ size_t *keys = series_sorted_keys(s);
	size_t n = 0;

	if (!keys && s->nr_keys)
		return -ENOMEM;
	for (size_t k = 0; k < s->nr_keys; k++) {
		const struct series_what *g = &s->groups[s->keys[keys[k]].group];

		if (!workload_metric_is_primary(g->workload, g->metric))
			continue;
		for (size_t v = 0; v < s->nr_variants; v++) {
			struct export_point p;
			int r = point_get(s, keys[k], v, &p);

			if (r < 0)
				return r;
			if (r == 0)
				continue;
			r = json_array_append_new(tests, kcidb_test(rid, &p, n++, created,
						  series_variant_timing(&s->variants[v])));
			free(p.means);
			if (r < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int export_kcidb(const struct series_set *s, const json_t *doc, json_t **out)
{
	const char *rid = json_string_value(json_object_get(doc, "id"));
	const char *created = json_string_value(json_object_get(doc, "created"));
	const json_t *job = json_object_get(doc, "job");
	_cleanup_json_ json_t *builds = json_array(), *tests = json_array(), *o = NULL;
	char cid[512];
	int r;

	if (!rid || !created)
		return -EINVAL;
	if (!builds || !tests)
		return -ENOMEM;
	if ((r = kcidb_runs(doc, rid, created, builds, tests)) < 0 ||
	    (r = kcidb_series(s, rid, created, tests)) < 0)
		return r;
	snprintf(cid, sizeof(cid), KCIDB_ORIGIN ":%s", rid);
	o = json_pack("{s:{s:i, s:i}, s:[{s:s, s:s, s:s, s:b, s:s+, s:{s:O*, s:O*, s:O*}}], s:O, "
		      "s:O}",
		      "version", "major", 5, "minor", 3, "checkouts", "id", cid, "origin",
		      KCIDB_ORIGIN, "start_time", created, "valid", 1, "comment", "lab run ",
		      json_string_value(json_object_get(job, "name")) ?
			      json_string_value(json_object_get(job, "name")) : "?",
		      "misc", "job", json_object_get(job, "name"), "lab",
		      json_object_get(doc, "lab"), "status", json_object_get(doc, "status"),
		      "builds", builds, "tests", tests);
	if (!o)
		return -ENOMEM;
	*out = json_incref(o);
	return 0;
}

/* ---- LKP: one result a variant, series group and task count -------------------------- */

static json_t *lkp_result(const struct export_point *p)
{
	return json_pack("{s:s, s:s, s:O, s:I, s:s, s:{}}", "kernel", p->label, "testcase",
			 p->g->workload, "params", p->g->params, "tasks", (json_int_t)p->tasks,
			 "topology", p->g->topology, "stats");
}

static int lkp_add(json_t *results, const struct export_point *p)
{
	json_t *last = json_array_get(results, json_array_size(results) - 1);
	json_t *vals = json_array();
	char key[256];

	if (!vals)
		return -ENOMEM;
	/* a new result when the kernel, group or task count changes */
	if (!last || strcmp(json_string_value(json_object_get(last, "kernel")), p->label) ||
	    strcmp(json_string_value(json_object_get(last, "testcase")), p->g->workload) ||
	    !json_equal(json_object_get(last, "params"), p->g->params) ||
	    json_integer_value(json_object_get(last, "tasks")) != (json_int_t)p->tasks ||
	    strcmp(json_string_value(json_object_get(last, "topology")), p->g->topology)) {
		last = lkp_result(p);
		if (!last || json_array_append_new(results, last) < 0) {
			json_decref(vals);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < p->bs.boots; i++)
		json_array_append_new(vals, json_real(p->means[i]));
	snprintf(key, sizeof(key), "%s.%s", p->g->workload, p->g->metric);
	return json_object_set_new(json_object_get(last, "stats"), key, vals) < 0 ? -ENOMEM : 0;
}

int export_lkp(const struct series_set *s, json_t **out)
{
	_cleanup_free_ size_t *keys = series_sorted_keys(s);
	_cleanup_json_ json_t *results = json_array();

	if ((!keys && s->nr_keys) || !results)
		return -ENOMEM;
	for (size_t v = 0; v < s->nr_variants; v++)
		for (size_t k = 0; k < s->nr_keys; k++) {
			struct export_point p;
			int r = point_get(s, keys[k], v, &p);

			if (r > 0) {
				r = lkp_add(results, &p);
				free(p.means);
			}
			if (r < 0)
				return r;
		}
	*out = json_pack("{s:O}", "results", results);
	return *out ? 0 : -ENOMEM;
}

/* ---- CSV: one row a boot -------------------------------------------------------------- */


static void csv_point(struct strbuf *sb, const char *rid, const struct export_point *p)
{
	for (size_t i = 0; i < p->bs.boots; i++) {
		char num[64];

		strbuf_append_csv(sb, rid, ",");
		strbuf_append_csv(sb, p->label, ",");
		strbuf_append_csv(sb, p->g->topology, ",");
		strbuf_append_csv(sb, p->g->workload, ",");
		strbuf_append_csv(sb, p->g->params_text, ",");
		snprintf(num, sizeof(num), "%u", p->tasks);
		strbuf_append_csv(sb, num, ",");
		strbuf_append_csv(sb, p->g->metric, ",");
		strbuf_append_csv(sb, p->g->unit, ",");
		strbuf_append_csv(sb, workload_metric_is_primary(p->g->workload, p->g->metric) ?
					      "1" : "0", ",");
		snprintf(num, sizeof(num), "%zu", i);
		strbuf_append_csv(sb, num, ",");
		snprintf(num, sizeof(num), "%.10g", p->means[i]);
		strbuf_append_csv(sb, num, "\r\n");
	}
}

int export_csv(const struct series_set *s, const char *rid, int header, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ size_t *keys = series_sorted_keys(s);

	if (!keys && s->nr_keys)
		return -ENOMEM;
	if (header)
		strbuf_append(&sb, "report,kernel,topology,workload,params,tasks,metric,unit,"
				   "primary,boot,value\r\n");
	for (size_t v = 0; v < s->nr_variants; v++)
		for (size_t k = 0; k < s->nr_keys; k++) {
			struct export_point p;
			int r = point_get(s, keys[k], v, &p);

			if (r > 0) {
				csv_point(&sb, rid, &p);
				free(p.means);
			}
			if (r < 0)
				return r;
		}
	return strbuf_take(&sb, out);
}

/* ---- KCIDB: a bisection's culprit as an issue ------------------------------------------ */

/* The step that measured commit sha last (its verdict is the one that counted), or NULL. */
static const json_t *bisect_step_of(const json_t *bisect, const char *sha)
{
	const json_t *steps = json_object_get(bisect, "steps"), *st, *found = NULL;
	size_t i;

	json_array_foreach(steps, i, st) {
		const char *s = json_string_value(json_object_get(json_object_get(st, "commit"),
								  "sha"));

		if (s && !strcmp(s, sha) && json_is_null(json_object_get(st, "reverted")))
			found = st;
	}
	return found;
}

int export_kcidb_bisect(const json_t *bisect, const json_t *params, json_t **out)
{
	const json_t *culprit = json_object_get(bisect, "culprit");
	const json_t *series = json_object_get(params, "series"), *step;
	const char *sha = json_string_value(json_object_get(culprit, "sha"));
	const char *subject = json_string_value(json_object_get(culprit, "subject"));
	const char *variant = json_string_value(json_object_get(params, "variant"));
	const char *metric = json_string_value(json_object_get(series, "metric"));
	const char *workload = json_string_value(json_object_get(series, "workload"));
	char id[160], bid[256], subj[512];
	json_t *o;

	const char *answer = json_string_value(json_object_get(bisect, "answer"));

	if (!sha || !answer || strcmp(answer, "found"))
		return -ENOENT;
	snprintf(id, sizeof(id), KCIDB_ORIGIN ":bisect:%s", sha);
	snprintf(bid, sizeof(bid), "%s:%s", id, variant ? variant : "kernel");
	snprintf(subj, sizeof(subj), "%s%s%s changed at %.12s (\"%s\")", workload ? workload : "",
		 workload ? "." : "", metric ? metric : "a figure", sha, subject ? subject : "");
	step = bisect_step_of(bisect, sha);
	o = json_pack("{s:{s:i, s:i}, s:[{s:s, s:s, s:s, s:b, s:s?}], s:[{s:s, s:s, s:s, s:s, "
		      "s:s?}], s:[{s:s, s:i, s:s, s:{s:b}, s:s?, s:s, s:{s:O*, s:O*, s:O*, "
		      "s:O*}}], s:[{s:s+, s:s, s:i, s:s, s:s, s:b}]}",
		      "version", "major", 5, "minor", 3,
		      "checkouts", "id", id, "origin", KCIDB_ORIGIN, "git_commit_hash", sha, "valid",
		      1, "comment", subject,
		      "builds", "id", bid, "checkout_id", id, "origin", KCIDB_ORIGIN, "status",
		      "PASS", "config_name", variant,
		      "issues", "id", id, "version", 1, "origin", KCIDB_ORIGIN, "culprit", "code", 1,
		      "comment", json_string_value(json_object_get(bisect, "reason")),
		      "report_subject", subj, "misc", "series", series, "change_pct",
		      json_object_get(step, "change_pct"), "revert",
		      json_object_get(bisect, "revert"), "timing",
		      json_object_get(params, "timing"),
		      "incidents", "id", id, ":culprit", "issue_id", id, "issue_version", 1,
		      "origin", KCIDB_ORIGIN, "build_id", bid, "present", 1);
	if (!o)
		return -ENOMEM;
	*out = o;
	return 0;
}
