#include "analysis/charts.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/projseries.h"
#include "analysis/scalefit.h"
#include "analysis/stats.h"
#include "proto/workload.h"
#include "util/cleanup.h"

/* Groups in chart order, each with its keys in task order. */
struct layout {
	size_t *groups;      /* group indexes, sorted */
	size_t *keys;        /* keys bucketed by group, task order inside a bucket */
	size_t *start;       /* bucket of group g: keys[start[g] .. start[g + 1]) */
};

static void layout_free(struct layout *l)
{
	free(l->groups);
	free(l->keys);
	free(l->start);
}

/* A primary metric's place in its workload's list (most important first); other metrics
 * after every primary one. */
static size_t metric_rank(const struct series_what *w)
{
	size_t n = 0;
	const struct workload_metric *m = workload_primary(w->workload, &n);

	for (size_t i = 0; m && i < n; i++)
		if (!strcmp(m[i].name, w->metric))
			return i;
	return (size_t)-1;
}

/* Primary metrics first (the dashboard's first screen), then by topology, workload, params,
 * and the metric's rank. */
static int group_cmp(const void *x, const void *y, void *ud)
{
	const struct series_set *s = ud;
	const struct series_what *a = &s->groups[*(const size_t *)x];
	const struct series_what *b = &s->groups[*(const size_t *)y];
	size_t ra = metric_rank(a), rb = metric_rank(b);
	int c;

	if ((ra == (size_t)-1) != (rb == (size_t)-1))
		return ra == (size_t)-1 ? 1 : -1;
	if ((c = strcmp(a->topology, b->topology)) || (c = strcmp(a->workload, b->workload)) ||
	    (c = strcmp(a->params_text, b->params_text)))
		return c;
	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(a->metric, b->metric);
}

static int layout_build(const struct series_set *s, struct layout *l)
{
	_cleanup_free_ size_t *sorted = series_sorted_keys(s);
	_cleanup_free_ size_t *fill = calloc(s->nr_groups + 1, sizeof(*fill));

	l->groups = malloc((s->nr_groups + 1) * sizeof(*l->groups));
	l->keys = malloc((s->nr_keys + 1) * sizeof(*l->keys));
	l->start = calloc(s->nr_groups + 1, sizeof(*l->start));
	if (!sorted || !fill || !l->groups || !l->keys || !l->start)
		return -ENOMEM;
	for (size_t g = 0; g < s->nr_groups; g++)
		l->groups[g] = g;
	qsort_r(l->groups, s->nr_groups, sizeof(*l->groups), group_cmp, (void *)s);
	for (size_t k = 0; k < s->nr_keys; k++)
		l->start[s->keys[k].group + 1]++;
	for (size_t g = 0; g < s->nr_groups; g++)
		l->start[g + 1] += l->start[g];
	/* sorted is in task order within a group, so the buckets are too. */
	for (size_t i = 0; i < s->nr_keys; i++) {
		size_t g = s->keys[sorted[i]].group;

		l->keys[l->start[g] + fill[g]++] = sorted[i];
	}
	return 0;
}

/* Null for values a chart cannot place (undefined or unbounded). */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *point(double x, const double *v, size_t n, const char *unit)
{
	enum stats_mean kind = STATS_ARITHMETIC;
	struct stats_summary sum;

	if (series_unit_is_rate(unit)) {
		kind = STATS_HARMONIC;
		for (size_t i = 0; i < n; i++)
			if (v[i] <= 0)
				kind = STATS_ARITHMETIC;
	}
	if (stats_summarize(v, n, kind, &sum) < 0)
		return NULL;
	return json_pack("{s:f,s:f,s:o,s:o,s:I}", "x", x, "y", sum.mean, "lo", num(sum.ci_lo), "hi",
			 num(sum.ci_hi), "n", (json_int_t)n);
}

json_t *charts_changed_params(const struct series_what *w)
{
	const struct workload_def *def = workload_find(w->workload);
	json_t *out = json_object(), *v;
	const char *k;

	json_object_foreach(w->params, k, v)
		if (out && !(def && workload_param_is_default(def, k, v)))
			json_object_set(out, k, v);
	return out;
}

static json_t *chart_base(const struct series_set *s, const struct layout *l, size_t g,
			  const char *kind, size_t id)
{
	const struct series_what *w = &s->groups[g];
	char cid[32], title[512];
	size_t counts = l->start[g + 1] - l->start[g];

	snprintf(cid, sizeof(cid), "c%zu", id);
	snprintf(title, sizeof(title), "%s: %s", w->workload, w->metric);
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:o,s:b,s:I,s:b,s:s,s:s,s:s,s:[]}", "id", cid,
			 "kind", kind, "title", title, "topology", w->topology, "workload",
			 w->workload, "params", w->params, "changed", charts_changed_params(w), "primary",
			 metric_rank(w) != (size_t)-1, "task_counts", (json_int_t)counts, "table",
			 !strcmp(kind, "scaling") && counts == 1, "metric", w->metric, "unit",
			 w->unit, "better", w->higher ? "higher" : "lower", "lines");
}

static int append_line(json_t *chart, json_t *line)
{
	if (!line)
		return -ENOMEM;
	if (json_array_size(json_object_get(line, "points")) == 0) {
		json_decref(line);
		return 0;
	}
	return json_array_append_new(json_object_get(chart, "lines"), line) < 0 ? -ENOMEM : 0;
}

/* The scalability law fitted to variant v's curve, drawn over the measured task counts only;
 * an empty line (left out) when it cannot be fitted (analysis/scalefit.h). */
static json_t *fit_line(const struct series_set *s, size_t g, size_t v)
{
	struct usl_fit f;
	const char *why;
	char label[400];
	json_t *pts;

	if (scalefit_variant(s, g, v, &f, &why) < 0)
		return json_pack("{s:s,s:[]}", "label", "", "points");
	snprintf(label, sizeof(label), "%s: USL fit, sigma %.3g, kappa %.3g (descriptive)",
		 s->variants[v].label, f.sigma, f.kappa);
	pts = json_array();
	for (unsigned n = f.n_min; pts && n <= f.n_max; n++)
		if (json_array_append_new(pts, json_pack("{s:I,s:f,s:n,s:n,s:i}", "x", (json_int_t)n,
							 "y", usl_at(&f, n), "lo", "hi", "n", 0)) < 0) {
			json_decref(pts);
			pts = NULL;
		}
	return pts ? json_pack("{s:s,s:I,s:b,s:o}", "label", label, "variant", (json_int_t)v,
			       "fit", 1, "points", pts) : NULL;
}

/* The measured mean at 1 task of a line just built, or NAN. */
static double at_one_task(const json_t *line)
{
	const json_t *p;
	size_t i;

	json_array_foreach(json_object_get(line, "points"), i, p)
		if (json_number_value(json_object_get(p, "x")) == 1.0)
			return json_number_value(json_object_get(p, "y"));
	return NAN;
}

static int projection_point(const json_t *pts, unsigned n, double y1, json_t *out)
{
	const json_t *p = json_array_get(pts, n - 1);
	double lo = json_number_value(json_object_get(p, "speedup_p5"));
	double mid = json_number_value(json_object_get(p, "speedup_p50"));
	double hi = json_number_value(json_object_get(p, "speedup_p95"));

	return json_array_append_new(out, json_pack("{s:I,s:f,s:f,s:f,s:i}", "x", (json_int_t)n,
						    "y", y1 * mid, "lo", y1 * lo, "hi", y1 * hi,
						    "n", 0)) < 0 ? -ENOMEM : 0;
}

/* Variant v's projection (analysis/projseries.h) as a line: its speed-up band times the
 * measured 1-task mean, at 1, 2, 4, ... and the target's size.  An empty line (left out)
 * when there is none, the metric is not a throughput or there is no 1-task point. */
static json_t *projection_line(const struct series_set *s, size_t g, size_t v,
			       const json_t *measured, const json_t *projections)
{
	const struct series_what *w = &s->groups[g];
	const json_t *ps = projections ? projseries_find(projections, s->variants[v].label,
						       w->workload) : NULL;
	const json_t *proj = json_object_get(ps, "projection");
	const json_t *pts = json_object_get(proj, "points");
	const json_t *inputs = json_object_get(proj, "inputs");
	double y1 = at_one_task(measured);
	unsigned nmax = (unsigned)json_array_size(pts);
	char label[400];
	json_t *out;

	if (!ps || !nmax || !w->higher || !series_unit_is_rate(w->unit) || !(y1 > 0))
		return json_pack("{s:s,s:[]}", "label", "", "points");
	snprintf(label, sizeof(label), "%s: PROJECTION to %s, %s lock (not measured)",
		 s->variants[v].label,
		 json_string_value(json_object_get(inputs, "target")),
		 json_string_value(json_object_get(json_object_get(proj, "model"), "lock")));
	if (!(out = json_array()))
		return NULL;
	for (unsigned n = 1;; n = n * 2 > nmax ? nmax : n * 2) {
		if (projection_point(pts, n, y1, out) < 0) {
			json_decref(out);
			return NULL;
		}
		if (n == nmax)
			break;
	}
	return json_pack("{s:s,s:I,s:b,s:o}", "label", label, "variant", (json_int_t)v,
			 "projection", 1, "points", out);
}

static json_t *scaling_chart(const struct series_set *s, const struct layout *l, size_t g,
			     size_t id, const json_t *projections)
{
	_cleanup_json_ json_t *c = chart_base(s, l, g, "scaling", id);
	json_t *proj;
	int drawn;

	for (size_t v = 0; c && v < s->nr_variants; v++) {
		json_t *line = json_pack("{s:s,s:I,s:[]}", "label", s->variants[v].label, "variant",
					 (json_int_t)v, "points");
		json_t *pts = json_object_get(line, "points");
		int fail = !line;

		for (size_t i = l->start[g]; !fail && i < l->start[g + 1]; i++) {
			const struct series *se = series_get(s, l->keys[i], v);

			fail = se && json_array_append_new(pts, point(s->keys[l->keys[i]].tasks, se->v,
								      se->n, s->groups[g].unit)) < 0;
		}
		if (fail) {
			json_decref(line);
			return NULL;
		}
		proj = projection_line(s, g, v, line, projections);
		drawn = json_array_size(json_object_get(proj, "points")) > 0;
		if (append_line(c, line) < 0 || append_line(c, fit_line(s, g, v)) < 0) {
			json_decref(proj);
			return NULL;
		}
		if (append_line(c, proj) < 0)
			return NULL;
		/* A projection is a curve to draw even beside a single measured task count. */
		if (drawn && (json_object_set_new(c, "projected", json_true()) < 0 ||
		     json_object_set_new(c, "table", json_false()) < 0))
			return NULL;
	}
	return TAKE_PTR(c);
}

/* One series' samples split by report (they were added report by report, so each report's
 * samples are contiguous), ordered by the report's creation time. */
struct span {
	long long t;
	size_t report, from, n;
};

static int span_cmp(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->report < b->report ? -1 : a->report > b->report;
}

static json_t *trend_points(const struct series_set *s, const struct series *se, const char *unit)
{
	_cleanup_free_ struct span *sp = calloc(se->n + 1, sizeof(*sp));
	json_t *pts = json_array();
	size_t nsp = 0;

	if (!sp || !pts) {
		json_decref(pts);
		return NULL;
	}
	for (size_t i = 0; i < se->n; i++) {
		if (nsp && sp[nsp - 1].report == se->report[i]) {
			sp[nsp - 1].n++;
			continue;
		}
		sp[nsp++] = (struct span){ .t = s->reports[se->report[i]].created_t,
					   .report = se->report[i], .from = i, .n = 1 };
	}
	qsort(sp, nsp, sizeof(*sp), span_cmp);
	for (size_t i = 0; i < nsp; i++) {
		json_t *p;

		if (sp[i].t < 0)
			continue;
		p = point((double)sp[i].t * 1000, se->v + sp[i].from, sp[i].n, unit);
		if (!p || json_object_set_new(p, "report",
					      json_string(s->reports[sp[i].report].id)) < 0 ||
		    json_array_append_new(pts, p) < 0) {
			json_decref(pts);
			return NULL;
		}
	}
	return pts;
}

static json_t *trend_chart(const struct series_set *s, const struct layout *l, size_t g,
			   size_t id)
{
	_cleanup_json_ json_t *c = chart_base(s, l, g, "trend", id);

	for (size_t i = l->start[g]; c && i < l->start[g + 1]; i++) {
		unsigned tasks = s->keys[l->keys[i]].tasks;

		for (size_t v = 0; v < s->nr_variants; v++) {
			const struct series *se = series_get(s, l->keys[i], v);
			char label[320];
			json_t *pts;

			if (!se)
				continue;
			snprintf(label, sizeof(label), "%s, %u task%s", s->variants[v].label, tasks,
				 tasks == 1 ? "" : "s");
			pts = trend_points(s, se, s->groups[g].unit);
			if (!pts || append_line(c, json_pack("{s:s,s:I,s:I,s:o}", "label", label,
							     "variant", (json_int_t)v, "tasks",
							     (json_int_t)tasks, "points", pts)) < 0)
				return NULL;
		}
	}
	return TAKE_PTR(c);
}

size_t charts_distinct_dates(const struct series_set *s)
{
	_cleanup_json_ json_t *seen = json_object();

	for (size_t i = 0; seen && i < s->nr_series; i++)
		for (size_t k = 0; k < s->series[i].n; k++) {
			const struct series_report *r = &s->reports[s->series[i].report[k]];

			if (r->created_t >= 0)
				json_object_set_new(seen, r->created, json_true());
		}
	return json_object_size(seen);
}

json_t *charts_json(const struct series_set *s, const json_t *projections)
{
	struct layout l = { 0 };
	json_t *charts = json_array(), *c;
	int trend = charts_distinct_dates(s) >= 2;
	size_t id = 0;

	if (!charts || layout_build(s, &l) < 0)
		goto oom;
	for (size_t i = 0; i < s->nr_groups; i++) {
		c = scaling_chart(s, &l, l.groups[i], id++, projections);
		if (json_array_append_new(charts, c) < 0)
			goto oom;
	}
	for (size_t i = 0; trend && i < s->nr_groups; i++) {
		c = trend_chart(s, &l, l.groups[i], id++);
		if (json_array_append_new(charts, c) < 0)
			goto oom;
	}
	layout_free(&l);
	return json_pack("{s:o}", "charts", charts);
oom:
	layout_free(&l);
	json_decref(charts);
	return NULL;
}
