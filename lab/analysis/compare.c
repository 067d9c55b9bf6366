#include "analysis/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/strbuf.h"

/* How many series only one side has are named in the text table (JSON has them all). */
#define TEXT_ONLY_LIST 8

static const char *const verdict_names[VERDICT__COUNT] = {
	[VERDICT_NO_CHANGE] = "no-change",
	[VERDICT_IMPROVEMENT] = "improvement",
	[VERDICT_REGRESSION] = "regression",
	[VERDICT_INSUFFICIENT] = "insufficient-data",
};

const char *verdict_name(enum verdict v)
{
	return v < VERDICT__COUNT ? verdict_names[v] : "?";
}

void compare_free(struct comparison *c)
{
	free(c->rows);
	free(c->only_a);
	free(c->only_b);
	memset(c, 0, sizeof(*c));
}

int compare_failed(const struct comparison *c)
{
	return c->beyond > 0 || c->outcome_regression;
}

/* ---- consistency of the two sides ---------------------------------------------------- */

/* The first workload (as "topology / name params") of x that y lacks, or NULL. */
static const char *first_missing(const json_t *x, const json_t *y)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)x, k, v)
		if (!json_object_get(y, k))
			return k;
	return NULL;
}

static int check_workloads(const struct series_set *s, size_t va, size_t vb,
			   struct lab_error *err)
{
	const struct series_variant *a = &s->variants[va], *b = &s->variants[vb];
	const char *only_a = first_missing(a->workloads, b->workloads);
	const char *only_b = first_missing(b->workloads, a->workloads);

	if (!only_a && !only_b)
		return 0;
	return error_set(err, "", "A (%s) and B (%s) ran different workloads:%s%s%s%s%s", a->label,
			 b->label, only_a ? " only A ran " : "", only_a ? only_a : "",
			 only_a && only_b ? ";" : "", only_b ? " only B ran " : "",
			 only_b ? only_b : "");
}

/* ---- rows ----------------------------------------------------------------------------- */

static int all_positive(const struct series *x)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i] <= 0)
			return 0;
	return 1;
}

static void relative(struct compare_row *row, int higher)
{
	double ma = row->a.mean, dir = higher ? 1 : -1, lo, hi;

	row->change_pct = row->ci_pct_lo = row->ci_pct_hi = NAN;
	if (ma == 0)
		return;
	/* + 0.0 turns -0 (no change of a lower-is-better metric) into 0. */
	row->change_pct = dir * (row->b.mean - ma) / fabs(ma) * 100 + 0.0;
	if (!row->tested)
		return;
	lo = row->d.ci_lo / fabs(ma) * 100;
	hi = row->d.ci_hi / fabs(ma) * 100;
	row->ci_pct_lo = (higher ? lo : -hi) + 0.0;
	row->ci_pct_hi = (higher ? hi : -lo) + 0.0;
}

static void judge(struct compare_row *row, int higher, double threshold_pct)
{
	double better = (higher ? 1 : -1) * row->d.diff;

	row->verdict = VERDICT_NO_CHANGE;
	if (!row->tested)
		row->verdict = VERDICT_INSUFFICIENT;
	else if (row->d.p < 1 - STATS_LEVEL && better > 0)
		row->verdict = VERDICT_IMPROVEMENT;
	else if (row->d.p < 1 - STATS_LEVEL && better < 0)
		row->verdict = VERDICT_REGRESSION;
	row->beyond_threshold = row->verdict == VERDICT_REGRESSION &&
				(isnan(row->change_pct) || -row->change_pct > threshold_pct);
}

static int fill_row(const struct series_set *s, size_t key, const struct series *a,
		    const struct series *b, double threshold_pct, struct compare_row *row)
{
	const struct series_what *g = &s->groups[s->keys[key].group];
	int r;

	memset(row, 0, sizeof(*row));
	row->key = key;
	row->mean = series_unit_is_rate(g->unit) && all_positive(a) && all_positive(b)
			    ? STATS_HARMONIC
			    : STATS_ARITHMETIC;
	if ((r = stats_summarize(a->v, a->n, row->mean, &row->a)) < 0 ||
	    (r = stats_summarize(b->v, b->n, row->mean, &row->b)) < 0)
		return r;
	r = stats_welch(a->v, a->n, b->v, b->n, row->mean, &row->d);
	if (r < 0 && r != -EDOM)
		return r;
	row->tested = r == 0;
	relative(row, g->higher);
	judge(row, g->higher, threshold_pct);
	return 0;
}

static int no_overlap(const struct series_set *s, const struct comparison *c,
		      struct lab_error *err)
{
	char ka[256] = "", kb[256] = "";

	if (c->nr_only_a)
		series_key_name(s, c->only_a[0], ka, sizeof(ka));
	if (c->nr_only_b)
		series_key_name(s, c->only_b[0], kb, sizeof(kb));
	if (!c->nr_only_a && !c->nr_only_b)
		return error_set(err, "", "neither A (%s) nor B (%s) has a metric sample: no "
					  "workload finished ok",
				 s->variants[c->va].label, s->variants[c->vb].label);
	return error_set(err, "", "A (%s) and B (%s) share no series: A has %zu%s%s%s, B has %zu%s%s%s",
			 s->variants[c->va].label, s->variants[c->vb].label, c->nr_only_a,
			 ka[0] ? " (first: " : "", ka, ka[0] ? ")" : "", c->nr_only_b,
			 kb[0] ? " (first: " : "", kb, kb[0] ? ")" : "");
}

int compare_variants(const struct series_set *s, size_t va, size_t vb, double threshold_pct,
		     struct comparison *out, struct lab_error *err)
{
	_cleanup_free_ size_t *keys = series_sorted_keys(s);
	size_t n = s->nr_keys ? s->nr_keys : 1;
	int r;

	memset(out, 0, sizeof(*out));
	out->va = va;
	out->vb = vb;
	out->threshold_pct = threshold_pct;
	if ((r = check_workloads(s, va, vb, err)) < 0)
		return r;
	out->rows = calloc(n, sizeof(*out->rows));
	out->only_a = calloc(n, sizeof(*out->only_a));
	out->only_b = calloc(n, sizeof(*out->only_b));
	if (!keys || !out->rows || !out->only_a || !out->only_b) {
		compare_free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_keys; i++) {
		const struct series *a = series_get(s, keys[i], va), *b = series_get(s, keys[i], vb);
		struct compare_row *row = &out->rows[out->nr_rows];

		if (!a || !b) {
			if (a)
				out->only_a[out->nr_only_a++] = keys[i];
			if (b)
				out->only_b[out->nr_only_b++] = keys[i];
			continue;
		}
		if ((r = fill_row(s, keys[i], a, b, threshold_pct, row)) < 0) {
			compare_free(out);
			return r;
		}
		out->count[row->verdict]++;
		out->beyond += (unsigned)row->beyond_threshold;
		out->nr_rows++;
	}
	out->outcome_regression = s->variants[vb].failed > 0 && s->variants[va].failed == 0;
	if (out->nr_rows == 0 && !out->outcome_regression) {
		r = no_overlap(s, out, err);
		compare_free(out);
		return r;
	}
	return 0;
}

/* The first variant before v that ran the same workloads on the same topologies, or v. */
static size_t baseline_of(const struct series_set *s, size_t v)
{
	for (size_t u = 0; u < v; u++)
		if (json_equal(s->variants[u].workloads, s->variants[v].workloads))
			return u;
	return v;
}

int compare_all(const struct series_set *s, double threshold_pct, struct comparison *c,
		size_t *n, struct strbuf *note)
{
	*n = 0;
	if (s->nr_variants < 2)
		strbuf_appendf(note, "All runs are of one kernel variant (%s): nothing to compare.\n",
			       s->nr_variants ? s->variants[0].label : "none");
	for (size_t v = 1; v < s->nr_variants; v++) {
		struct lab_error err = { 0 };
		size_t u = baseline_of(s, v);
		char msg[1400];
		int r;

		if (u == v) {
			strbuf_appendf(note, "%s: no variant before it ran the same workloads; not "
					     "compared.\n", s->variants[v].label);
			continue;
		}
		r = compare_variants(s, u, v, threshold_pct, &c[*n], &err);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			error_format(&err, msg, sizeof(msg));
			strbuf_appendf(note, "%s not compared: %s\n", s->variants[v].label, msg);
			continue;
		}
		(*n)++;
	}
	return note->err;
}

/* ---- JSON ----------------------------------------------------------------------------- */

/* Not-a-number and infinite values (undefined, unbounded) are null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *key_json(const struct series_set *s, size_t key)
{
	const struct series_what *g = &s->groups[s->keys[key].group];

	return json_pack("{s:s,s:s,s:O,s:I,s:s,s:s,s:s}", "topology", g->topology, "workload",
			 g->workload, "params", g->params, "tasks", (json_int_t)s->keys[key].tasks,
			 "metric", g->metric, "unit", g->unit, "better",
			 g->higher ? "higher" : "lower");
}

static json_t *summary_json(const struct stats_summary *x)
{
	return json_pack("{s:I,s:o,s:o,s:o,s:[o,o]}", "n", (json_int_t)x->n, "mean", num(x->mean),
			 "stddev", num(x->stddev), "cv", num(x->cv), "ci95", num(x->ci_lo),
			 num(x->ci_hi));
}

json_t *compare_row_json(const struct series_set *s, const struct compare_row *r)
{
	json_t *o = key_json(s, r->key);
	int fail = !o;

	fail = fail || json_object_set_new(o, "mean", json_string(r->mean == STATS_HARMONIC
									  ? "harmonic"
									  : "arithmetic")) < 0;
	fail = fail || json_object_set_new(o, "a", summary_json(&r->a)) < 0;
	fail = fail || json_object_set_new(o, "b", summary_json(&r->b)) < 0;
	fail = fail || json_object_set_new(o, "diff", num(r->b.mean - r->a.mean)) < 0;
	fail = fail || json_object_set_new(o, "change_pct", num(r->change_pct)) < 0;
	fail = fail || json_object_set_new(o, "ci95_pct", json_pack("[o,o]", num(r->ci_pct_lo),
								    num(r->ci_pct_hi))) < 0;
	fail = fail || json_object_set_new(o, "ci95", r->tested ? json_pack("[o,o]", num(r->d.ci_lo),
								       num(r->d.ci_hi))
							  : json_pack("[n,n]")) < 0;
	fail = fail || json_object_set_new(o, "t", r->tested ? num(r->d.t) : json_null()) < 0;
	fail = fail || json_object_set_new(o, "df", r->tested ? num(r->d.df) : json_null()) < 0;
	fail = fail || json_object_set_new(o, "p", r->tested ? num(r->d.p) : json_null()) < 0;
	fail = fail || json_object_set_new(o, "verdict", json_string(verdict_name(r->verdict))) < 0;
	fail = fail || json_object_set_new(o, "beyond_threshold",
					   json_boolean(r->beyond_threshold)) < 0;
	if (fail) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *side_json(const struct series_variant *v)
{
	return json_pack("{s:s,s:I,s:I,s:I,s:O}", "variant", v->label, "reports",
			 (json_int_t)v->reports, "runs", (json_int_t)v->runs, "failed_runs",
			 (json_int_t)v->failed, "statuses", v->statuses);
}

static json_t *keys_json(const struct series_set *s, const size_t *keys, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, key_json(s, keys[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *one_json(const struct series_set *s, const struct comparison *c)
{
	json_t *rows = json_array(), *o;

	for (size_t i = 0; rows && i < c->nr_rows; i++)
		if (json_array_append_new(rows, compare_row_json(s, &c->rows[i])) < 0) {
			json_decref(rows);
			return NULL;
		}
	if (!rows)
		return NULL;
	o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:b,s:{s:I,s:I,s:I,s:I,s:I}}", "a",
		      side_json(&s->variants[c->va]), "b", side_json(&s->variants[c->vb]), "rows",
		      rows, "only_a", keys_json(s, c->only_a, c->nr_only_a), "only_b",
		      keys_json(s, c->only_b, c->nr_only_b), "outcome_regression",
		      c->outcome_regression, "summary", "improvement",
		      (json_int_t)c->count[VERDICT_IMPROVEMENT], "regression",
		      (json_int_t)c->count[VERDICT_REGRESSION], "no-change",
		      (json_int_t)c->count[VERDICT_NO_CHANGE], "insufficient-data",
		      (json_int_t)c->count[VERDICT_INSUFFICIENT], "beyond_threshold",
		      (json_int_t)c->beyond);
	return o;
}

json_t *compare_json(const struct series_set *s, const struct comparison *c, size_t n)
{
	json_t *arr = json_array(), *reports = json_array();
	int failed = 0;

	for (size_t i = 0; arr && i < n; i++) {
		failed |= compare_failed(&c[i]);
		if (json_array_append_new(arr, one_json(s, &c[i])) < 0)
			goto oom;
	}
	for (size_t i = 0; reports && i < s->nr_reports; i++)
		if (json_array_append_new(reports,
					  json_pack("{s:s,s:s,s:s}", "file", s->reports[i].file,
						    "id", s->reports[i].id, "created",
						    s->reports[i].created)) < 0)
			goto oom;
	if (!arr || !reports)
		goto oom;
	return json_pack("{s:s,s:f,s:f,s:o,s:o,s:b}", "schema", COMPARE_SCHEMA, "level",
			 STATS_LEVEL, "threshold_pct", n ? c[0].threshold_pct : 0.0, "comparisons",
			 arr, "reports", reports, "regression", failed);
oom:
	json_decref(arr);
	json_decref(reports);
	return NULL;
}

/* ---- text ----------------------------------------------------------------------------- */

static const char *fmt_num(char *buf, size_t len, double v)
{
	if (isnan(v))
		return "-";
	if (isinf(v))
		return v > 0 ? "inf" : "-inf";
	snprintf(buf, len, "%.4g", v);
	return buf;
}

static const char *fmt_pct(char *buf, size_t len, double v, int sign)
{
	if (isnan(v))
		return "-";
	if (isinf(v))
		return v > 0 ? "+inf%" : "-inf%";
	snprintf(buf, len, sign ? "%+.2f%%" : "%.1f%%", v);
	return buf;
}

static void text_side(struct strbuf *sb, const char *name, const struct series_variant *v)
{
	const char *k;
	json_t *c;
	int first = 1;

	strbuf_appendf(sb, "%s: %s  (%zu report%s, %u run%s:", name, v->label, v->reports,
		       v->reports == 1 ? "" : "s", v->runs, v->runs == 1 ? "" : "s");
	json_object_foreach(v->statuses, k, c) {
		strbuf_appendf(sb, "%s %s %lld", first ? "" : ",", k,
			       (long long)json_integer_value(c));
		first = 0;
	}
	strbuf_append(sb, ")\n");
}

static int metric_width(const struct series_set *s, const struct comparison *c)
{
	size_t w = 6;

	for (size_t i = 0; i < c->nr_rows; i++) {
		size_t l = strlen(s->groups[s->keys[c->rows[i].key].group].metric);

		w = l > w ? l : w;
	}
	return (int)w;
}

static void text_row(struct strbuf *sb, const struct series_set *s, const struct compare_row *r,
		     int mw)
{
	const struct series_what *g = &s->groups[s->keys[r->key].group];
	char b[10][48], ci[100];

	if (r->tested)
		snprintf(ci, sizeof(ci), "[%s, %s]", fmt_pct(b[8], 48, r->ci_pct_lo, 1),
			 fmt_pct(b[9], 48, r->ci_pct_hi, 1));
	else
		snprintf(ci, sizeof(ci), "-");
	strbuf_appendf(sb, "%6u  %-*s  %-10.32s %-5s %3zu %10s %9s %6s %3zu %10s %9s %6s %9s  %-20s %7s  %s\n",
		       s->keys[r->key].tasks, mw, g->metric, g->unit,
		       r->mean == STATS_HARMONIC ? "harm" : "arith", r->a.n,
		       fmt_num(b[0], 48, r->a.mean), fmt_num(b[1], 48, r->a.stddev),
		       fmt_pct(b[2], 48, r->a.cv * 100, 0), r->b.n, fmt_num(b[3], 48, r->b.mean),
		       fmt_num(b[4], 48, r->b.stddev), fmt_pct(b[5], 48, r->b.cv * 100, 0),
		       fmt_pct(b[6], 48, r->change_pct, 1), ci,
		       r->tested ? fmt_num(b[7], 48, r->d.p) : "-", verdict_name(r->verdict));
}

static void text_only(struct strbuf *sb, const struct series_set *s, const char *side,
		      const size_t *keys, size_t n)
{
	char name[512];

	if (!n)
		return;
	strbuf_appendf(sb, "%zu series only in %s:\n", n, side);
	for (size_t i = 0; i < n && i < TEXT_ONLY_LIST; i++) {
		series_key_name(s, keys[i], name, sizeof(name));
		strbuf_appendf(sb, "  %s\n", name);
	}
	if (n > TEXT_ONLY_LIST)
		strbuf_appendf(sb, "  ... (%zu more; --json lists them all)\n", n - TEXT_ONLY_LIST);
}

static void text_one(struct strbuf *sb, const struct series_set *s, const struct comparison *c)
{
	const struct series_what *prev = NULL;
	int mw = metric_width(s, c);

	text_side(sb, "A", &s->variants[c->va]);
	text_side(sb, "B", &s->variants[c->vb]);
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct series_what *g = &s->groups[s->keys[c->rows[i].key].group];

		if (!prev || strcmp(prev->topology, g->topology) || strcmp(prev->workload, g->workload) ||
		    strcmp(prev->params_text, g->params_text)) {
			strbuf_appendf(sb, "\n%s %s on %s\n", g->workload, g->params_text, g->topology);
			strbuf_appendf(sb, "%6s  %-*s  %-10s %-5s %3s %10s %9s %6s %3s %10s %9s %6s %9s  %-20s %7s  %s\n",
				       "tasks", mw, "metric", "unit", "mean", "n", "A mean", "sd", "cv",
				       "n", "B mean", "sd", "cv", "change", "95% CI of change", "p",
				       "verdict");
		}
		prev = g;
		text_row(sb, s, &c->rows[i], mw);
	}
	strbuf_append(sb, "\n");
	text_only(sb, s, "A", c->only_a, c->nr_only_a);
	text_only(sb, s, "B", c->only_b, c->nr_only_b);
	strbuf_appendf(sb, "summary: %u regression%s (%u beyond the %g%% threshold), %u improvement%s, "
			   "%u no change, %u with fewer than 2 samples a side\n",
		       c->count[VERDICT_REGRESSION], c->count[VERDICT_REGRESSION] == 1 ? "" : "s",
		       c->beyond, c->threshold_pct, c->count[VERDICT_IMPROVEMENT],
		       c->count[VERDICT_IMPROVEMENT] == 1 ? "" : "s", c->count[VERDICT_NO_CHANGE],
		       c->count[VERDICT_INSUFFICIENT]);
	if (c->outcome_regression)
		strbuf_appendf(sb, "outcome regression: %u of B's %u runs failed, none of A's\n",
			       s->variants[c->vb].failed, s->variants[c->vb].runs);
}

int compare_text(const struct series_set *s, const struct comparison *c, size_t n, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_append(&sb, "\n");
		text_one(&sb, s, &c[i]);
	}
	strbuf_append(&sb, "\nchange and its 95% CI: % of A's mean, signed so that + is better. mean: "
			   "harm = harmonic\n(rates, /s; tested on reciprocals), arith = "
			   "arithmetic. Significant: Welch p < 0.05.\n");
	return strbuf_take(&sb, out);
}
