#include "analysis/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/modelfit.h"
#include "analysis/robust.h"
#include "analysis/scalefit.h"
#include "core/timing.h"
#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/strbuf.h"

/* How many series only one side has are named in the text table (JSON has them all). */
#define TEXT_ONLY_LIST 8

static const char *const decision_names[] = {
	[COMPARE_OK] = "ok",
	[COMPARE_REGRESSION] = "regression",
	[COMPARE_UNDECIDED] = "undecided",
};

const char *compare_decision_name(enum compare_decision d)
{
	return (unsigned)d <= COMPARE_UNDECIDED ? decision_names[d] : "?";
}

int compare_same_workload(const struct series_what *a, const struct series_what *b)
{
	return !strcmp(a->topology, b->topology) && !strcmp(a->workload, b->workload) &&
	       !strcmp(a->params_text, b->params_text);
}

void compare_free(struct comparison *c)
{
	free(c->rows);
	free(c->only_a);
	free(c->only_b);
	deltas_diff_free(&c->deltas);
	memset(c, 0, sizeof(*c));
}

enum compare_decision compare_decide_all(const struct comparison *c, size_t n)
{
	enum compare_decision d = COMPARE_OK;

	for (size_t i = 0; i < n; i++) {
		if (c[i].decision == COMPARE_REGRESSION)
			return COMPARE_REGRESSION;
		if (c[i].decision == COMPARE_UNDECIDED)
			d = COMPARE_UNDECIDED;
	}
	return d;
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

/* Two timing keys of one model and quantum that differ only in the NUMA cost model's preset
 * (core/timing.h). */
static int numa_only(const char *a, const char *b)
{
	char na[TIMING_NUMA_HEX + 1], nb[TIMING_NUMA_HEX + 1];
	enum timing_model ma, mb;
	unsigned qa, qb;

	return timing_parse_key(a, &ma, &qa, na) == 0 && timing_parse_key(b, &mb, &qb, nb) == 0 &&
	       ma == mb && qa == qb && strcmp(na, nb);
}

/* Both sides ran under one and the same timing model: figures of different models measure
 * different things (lab/core/timing.h), and pooling them hides that. */
static int check_timing(const struct series_set *s, size_t va, size_t vb, const char **timing,
			struct lab_error *err)
{
	const struct series_variant *v[2] = {&s->variants[va], &s->variants[vb]};
	const char *t[2];

	for (int i = 0; i < 2; i++) {
		_cleanup_free_ char *mix = json_dumps(v[i]->timings, JSON_COMPACT | JSON_SORT_KEYS);

		t[i] = series_variant_timing(v[i]);
		if (!t[i])
			return error_set(err, "", "%s (%s) mixes runs of different timing models "
						  "(runs per model: %s): figures of different models "
						  "cannot be pooled; compare runs of one model",
					 i ? "B" : "A", v[i]->label, mix ? mix : "?");
	}
	if (strcmp(t[0], t[1]) && numa_only(t[0], t[1]))
		return error_set(err, "", "A (%s) ran under %s and B (%s) under %s: the NUMA cost "
					  "model's charges differ (another preset, or charges on one "
					  "side only), so their figures cannot be compared; run both "
					  "sides with one \"numa_cost\"",
				 v[0]->label, t[0], v[1]->label, t[1]);
	if (strcmp(t[0], t[1]))
		return error_set(err, "", "A (%s) ran under the %s timing model and B (%s) under %s: "
					  "figures of different timing models measure different "
					  "things and cannot be compared; run both sides under one "
					  "model (the job's \"timing\")",
				 v[0]->label, t[0], v[1]->label, t[1]);
	*timing = t[0];
	return 0;
}

/* Runs of one instrumented kind (n of a variant's runs) are never pooled with plain ones, and
 * an instrumented side is never compared with a plain one. */
struct instrument {
	const char *runs_of, *paren, *plain, *is, *why;
};

static int check_instrument(const struct series_variant *const v[2], const unsigned n[2],
			    const struct instrument *k, struct lab_error *err)
{
	for (int i = 0; i < 2; i++)
		if (n[i] && n[i] != v[i]->runs)
			return error_set(err, "", "%s (%s) mixes runs %s (%u%s) and %s (%u): they "
					 "cannot be pooled", i ? "B" : "A", v[i]->label, k->runs_of,
					 n[i], k->paren, k->plain, v[i]->runs - n[i]);
	if (!n[0] != !n[1])
		return error_set(err, "", "%s (%s) is %s and %s (%s) is not: %s",
				 n[0] ? "A" : "B", n[0] ? v[0]->label : v[1]->label, k->is,
				 n[0] ? "B" : "A", n[0] ? v[1]->label : v[0]->label, k->why);
	return 0;
}

/* Under tcg the profile's plugin slows the guest: such profiled runs are neither pooled nor
 * compared with plain ones (series.c counts only those; under quantum or icount the same
 * seed gives the same figures with and without it). */
static int check_profiled(const struct series_variant *const v[2], struct lab_error *err)
{
	static const char why[] = "under a host-clock model the profile's plugin slows the "
				  "guest, so their timings cannot be compared; compare profiled runs "
				  "with profiled runs, or profile under quantum";

	for (int i = 0; i < 2; i++)
		if (v[i]->profiled && v[i]->unprofiled)
			return error_set(err, "", "%s (%s) mixes runs with the instruction profile "
					 "(%u) and without it (%u): they cannot be pooled",
					 i ? "B" : "A", v[i]->label, v[i]->profiled,
					 v[i]->unprofiled);
	if ((v[0]->profiled && v[1]->unprofiled) || (v[1]->profiled && v[0]->unprofiled))
		return error_set(err, "", "%s (%s) is run with the instruction profile (info.profile "
				 "in its results) and %s (%s) is not: %s",
				 v[0]->profiled ? "A" : "B", v[0]->profiled ? v[0]->label : v[1]->label,
				 v[0]->profiled ? "B" : "A", v[0]->profiled ? v[1]->label : v[0]->label,
				 why);
	return 0;
}

/* A lock-counting twin runs with lockdep, which changes how every lock is taken and
 * inflates hold times; the lock-instruction counter calls into QEMU on every translated block,
 * which slows the guest; so does the profile's under tcg.  Each kind is compared with its own
 * kind only. */
static int check_lockdep(const struct series_set *s, size_t va, size_t vb,
			 struct lab_error *err)
{
	static const struct instrument twin = {
		"of a lock-counting twin", ", with lockdep", "of a plain kernel",
		"a lock-counting twin (lockdep: /proc/lock_stat in its results)",
		"lockdep changes how locks are taken and inflates hold times, so their figures "
		"cannot be compared; compare a twin with a twin"};
	static const struct instrument counted = {
		"with the lock-instruction counter", "", "without it",
		"run with the lock-instruction counter (info.lock_insns in its results)",
		"the counter slows every translated block, so their timings cannot be compared; "
		"compare counted runs with counted runs"};
	const struct series_variant *const v[2] = {&s->variants[va], &s->variants[vb]};
	const unsigned dep[2] = {v[0]->lockdep, v[1]->lockdep};
	const unsigned ins[2] = {v[0]->lock_insns, v[1]->lock_insns};
	int r = check_instrument(v, dep, &twin, err);

	if (r == 0)
		r = check_instrument(v, ins, &counted, err);
	return r < 0 ? r : check_profiled(v, err);
}

/* Both sides ran on hosts of one class (each run's host.class, `lab run --host-class`, what
 * labd's Slurm backend passes on): a difference between two kinds of
 * machine is not the kernel's. */
static int check_class(const struct series_set *s, size_t va, size_t vb, const char **klass,
		       struct lab_error *err)
{
	const struct series_variant *v[2] = {&s->variants[va], &s->variants[vb]};
	const char *c[2];

	for (int i = 0; i < 2; i++) {
		_cleanup_free_ char *mix = json_dumps(v[i]->classes, JSON_COMPACT | JSON_SORT_KEYS);

		c[i] = series_variant_class(v[i]);
		if (!c[i])
			return error_set(err, "", "%s (%s) mixes runs on hosts of different classes "
						  "(runs per class: %s): compare runs of one class",
					 i ? "B" : "A", v[i]->label, mix ? mix : "?");
	}
	if (strcmp(c[0], c[1]))
		return error_set(err, "", "A (%s) ran on host class %s and B (%s) on %s: a "
					  "difference between two kinds of machine is not the "
					  "kernel's; run both sides on one class (lab job submit "
					  "--class C)",
				 v[0]->label, c[0][0] ? c[0] : "(none)", v[1]->label,
				 c[1][0] ? c[1] : "(none)");
	*klass = c[0];
	return 0;
}

/* ---- rows ----------------------------------------------------------------------------- */

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

/* The rank test, the bootstrap interval and the modes of the per-boot means ma, mb. */
static void robust_row(struct compare_row *row, const double *ma, const double *mb, int higher,
		       double threshold_pct)
{
	size_t na = row->ab.boots, nb = row->bb.boots;
	double lo, hi;

	row->rank_p = row->boot_lo_pct = row->boot_hi_pct = NAN;
	if (!row->tested)
		return;
	row->rank_p = robust_mw_p(ma, na, mb, nb);
	if (robust_boot_ci(ma, na, mb, nb, row->mean, &lo, &hi) == 0) {
		row->boot_lo_pct = (higher ? lo : -hi) + 0.0;
		row->boot_hi_pct = (higher ? hi : -lo) + 0.0;
	}
	robust_two_modes(ma, na, threshold_pct, &row->modes_gap_pct[0]);
	robust_two_modes(mb, nb, threshold_pct, &row->modes_gap_pct[1]);
}

static int fill_row(const struct series_set *s, size_t key, const struct series *a,
		    const struct series *b, double threshold_pct, double alpha,
		    struct compare_row *row)
{
	const struct series_what *g = &s->groups[s->keys[key].group];
	_cleanup_free_ double *ma = malloc(a->n * sizeof(*ma)), *mb = malloc(b->n * sizeof(*mb));
	int r;

	memset(row, 0, sizeof(*row));
	if (!ma || !mb)
		return -ENOMEM;
	row->key = key;
	row->primary = workload_metric_is_primary(g->workload, g->metric);
	/* One scale for both sides: harmonic only when each side's values allow it. */
	row->mean = boots_mean_kind(g->unit, a->v, a->n) == STATS_HARMONIC &&
				    boots_mean_kind(g->unit, b->v, b->n) == STATS_HARMONIC
			    ? STATS_HARMONIC
			    : STATS_ARITHMETIC;
	if ((r = boots_summarize(a->boot, a->v, a->n, row->mean, ma, &row->ab, &row->a)) < 0 ||
	    (r = boots_summarize(b->boot, b->v, b->n, row->mean, mb, &row->bb, &row->b)) < 0)
		return r;
	row->q = NAN;
	if (row->ab.boots >= VERDICT_MIN_BOOTS && row->bb.boots >= VERDICT_MIN_BOOTS) {
		r = stats_welch_at(ma, row->ab.boots, mb, row->bb.boots, row->mean, 1 - alpha,
				   &row->d);
		if (r < 0 && r != -EDOM)
			return r;
		row->tested = r == 0;
	}
	relative(row, g->higher);
	row->threshold_pct = threshold_pct;
	if (s->learned && s->learned[key].changes) {
		row->learned = s->learned[key];
		row->learned_used = s->use_learned;
		if (row->learned_used)
			row->threshold_pct = row->learned.threshold_pct;
	}
	robust_row(row, ma, mb, g->higher, row->threshold_pct);
	return 0;
}

/* What the timing model cannot show about the row's series (analysis/modelfit.h).  Hosts:
 * the fewer CPUs of the two sides. */
static void fit_row(const struct series_set *s, const struct comparison *c,
		    struct compare_row *row)
{
	const struct series_what *g = &s->groups[s->keys[row->key].group];
	unsigned ca = s->variants[c->va].host_cpus, cb = s->variants[c->vb].host_cpus;
	unsigned cpus = !ca ? cb : !cb ? ca : ca < cb ? ca : cb;

	row->fit = modelfit_series(c->timing, cpus, g->workload, g->params, g->metric,
				   s->keys[row->key].tasks, row->fit_why, sizeof(row->fit_why));
}

/* A model blind to what a series depends on says nothing about it, or (a series that also
 * counts instructions) nothing when it finds no change: never "no change". */
static void apply_fit(struct compare_row *row)
{
	if (row->fit == MODELFIT_OUTSIDE ||
	    (row->fit == MODELFIT_PARTLY && row->verdict == VERDICT_NO_CHANGE)) {
		row->verdict = VERDICT_OUTSIDE_MODEL;
		row->boots_needed = 0;
	}
}

/* Benjamini-Hochberg within one family of rows (primary or not), then every row's verdict. */
static int judge_family(struct comparison *c, int primary)
{
	_cleanup_free_ double *p = calloc(c->nr_rows + 1, sizeof(*p));
	_cleanup_free_ size_t *idx = calloc(c->nr_rows + 1, sizeof(*idx));
	size_t n = 0;
	int r;

	if (!p || !idx)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_rows; i++)
		if (c->rows[i].primary == primary) {
			p[n] = c->rows[i].tested ? c->rows[i].d.p : NAN;
			idx[n++] = i;
		}
	if ((r = verdict_fdr_bh(p, n, p)) < 0)
		return r;
	for (size_t k = 0; k < n; k++) {
		struct compare_row *row = &c->rows[idx[k]];
		struct verdict_input in = {
			.tested = row->tested, .change_pct = row->change_pct,
			.ci_lo_pct = row->ci_pct_lo, .ci_hi_pct = row->ci_pct_hi, .q = p[k],
		};
		size_t have = row->ab.boots < row->bb.boots ? row->ab.boots : row->bb.boots;

		row->q = p[k];
		/* A mean of 0 leaves no relative change: such a row can only be undecided. */
		row->verdict = isnan(row->change_pct) && row->tested ? VERDICT_INCONCLUSIVE
								     : verdict_decide_at(&in, row->threshold_pct,
											 c->alpha);
		row->verdict = robust_overrule(row->verdict, row->ab.boots, row->bb.boots,
					       row->rank_p, row->boot_lo_pct, row->boot_hi_pct,
					       row->modes_gap_pct, row->threshold_pct, row->robust_why,
					       sizeof(row->robust_why));
		if (row->verdict == VERDICT_INCONCLUSIVE || row->verdict == VERDICT_INSUFFICIENT)
			row->boots_needed = verdict_boots_needed(100 * row->ab.cv_between,
								 100 * row->bb.cv_between,
								 row->threshold_pct, have);
		apply_fit(row);
	}
	return 0;
}

static void decide(struct comparison *c)
{
	/* A kernel warning B prints and A never did decides by itself (analysis/warndiff.h). */
	int undecided = 0, regression = c->outcome_regression || c->warn.nr_new;

	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct compare_row *row = &c->rows[i];
		int deciding = row->primary || c->all_metrics;

		if (!deciding) {
			c->count_other[row->verdict]++;
			continue;
		}
		c->count[row->verdict]++;
		regression |= row->verdict == VERDICT_REGRESSION;
		undecided |= row->verdict == VERDICT_OUTSIDE_MODEL;
		if (row->verdict == VERDICT_INCONCLUSIVE || row->verdict == VERDICT_INSUFFICIENT) {
			undecided = 1;
			if (row->boots_needed > c->boots_needed)
				c->boots_needed = row->boots_needed;
		}
	}
	c->decision = regression ? COMPARE_REGRESSION
				 : undecided ? COMPARE_UNDECIDED : COMPARE_OK;
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
		     int all_metrics, struct comparison *out, struct lab_error *err)
{
	_cleanup_free_ size_t *keys = series_sorted_keys(s);
	size_t n = s->nr_keys ? s->nr_keys : 1;
	int r;

	memset(out, 0, sizeof(*out));
	out->va = va;
	out->vb = vb;
	out->threshold_pct = threshold_pct;
	out->use_learned = s->use_learned && s->learned;
	out->alpha = s->seq_alpha > 0 && s->seq_alpha < VERDICT_FDR ? s->seq_alpha : VERDICT_FDR;
	out->all_metrics = all_metrics;
	if ((r = check_workloads(s, va, vb, err)) < 0 ||
	    (r = check_timing(s, va, vb, &out->timing, err)) < 0 ||
	    (r = check_lockdep(s, va, vb, err)) < 0 ||
	    (r = check_class(s, va, vb, &out->host_class, err)) < 0)
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
		if ((r = fill_row(s, keys[i], a, b, out->threshold_pct, out->alpha, row)) < 0) {
			compare_free(out);
			return r;
		}
		fit_row(s, out, row);
		out->nr_rows++;
	}
	out->outcome_regression = s->variants[vb].failed > 0 && s->variants[va].failed == 0;
	warn_diff_make(&s->variants[va].warn, s->variants[va].runs, &s->variants[vb].warn,
		       s->variants[vb].runs, &out->warn);
	if ((r = deltas_diff_make(&s->variants[va].deltas, &s->variants[vb].deltas,
				  &out->deltas)) < 0) {
		compare_free(out);
		return r;
	}
	if (out->nr_rows == 0 && !out->outcome_regression) {
		r = no_overlap(s, out, err);
		compare_free(out);
		return r;
	}
	if ((r = judge_family(out, 1)) < 0 || (r = judge_family(out, 0)) < 0) {
		compare_free(out);
		return r;
	}
	decide(out);
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

int compare_all(const struct series_set *s, double threshold_pct, int all_metrics,
		struct comparison *c, size_t *n, struct strbuf *note)
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
		r = compare_variants(s, u, v, threshold_pct, all_metrics, &c[*n], &err);
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

static json_t *boots_json(const struct boot_stats *b)
{
	return json_pack("{s:I,s:I,s:o,s:o}", "boots", (json_int_t)b->boots, "values",
			 (json_int_t)b->values, "cv_within", num(b->cv_within), "cv_between",
			 num(b->cv_between));
}

/* The series' learned threshold, whether it decided, and what it was learned from; null
 * when its history taught none. */
static json_t *learned_json(const struct compare_row *r)
{
	if (!r->learned.changes)
		return json_null();
	return json_pack("{s:o,s:b,s:I,s:I,s:o,s:o}", "threshold_pct",
			 num(r->learned.threshold_pct), "used", r->learned_used, "changes",
			 (json_int_t)r->learned.changes, "kernels", (json_int_t)r->learned.kernels,
			 "q1_pct", num(r->learned.q1_pct), "q3_pct", num(r->learned.q3_pct));
}

json_t *compare_row_json(const struct series_set *s, const struct compare_row *r)
{
	json_t *o = key_json(s, r->key);
	json_t *a = summary_json(&r->a), *b = summary_json(&r->b);
	json_t *ba = boots_json(&r->ab), *bb = boots_json(&r->bb);
	int fail = !o || !a || !b || !ba || !bb;

	/* Each side: the statistics of its per-boot means plus how the boots spread. */
	fail = fail || json_object_update(a, ba) < 0;
	fail = fail || json_object_update(b, bb) < 0;
	json_decref(ba);
	json_decref(bb);
	fail = fail || json_object_set_new(o, "mean", json_string(r->mean == STATS_HARMONIC
									  ? "harmonic"
									  : "arithmetic")) < 0;
	fail = fail || json_object_set_new(o, "primary", json_boolean(r->primary)) < 0;
	fail = fail || json_object_set(o, "a", a) < 0;
	fail = fail || json_object_set(o, "b", b) < 0;
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
	fail = fail || json_object_set_new(o, "q", num(r->q)) < 0;
	fail = fail || json_object_set_new(o, "verdict", json_string(verdict_name(r->verdict))) < 0;
	fail = fail || json_object_set_new(o, "outside_model", r->fit_why[0] ? json_string(r->fit_why)
									      : json_null()) < 0;
	fail = fail || json_object_set_new(o, "rank_p", num(r->rank_p)) < 0;
	fail = fail || json_object_set_new(o, "bootstrap_ci95_pct",
					   json_pack("[o,o]", num(r->boot_lo_pct),
						     num(r->boot_hi_pct))) < 0;
	fail = fail || json_object_set_new(o, "modes_gap_pct",
					   json_pack("[o,o]", num(r->modes_gap_pct[0] > 0 ? r->modes_gap_pct[0] : NAN),
						     num(r->modes_gap_pct[1] > 0 ? r->modes_gap_pct[1] : NAN))) < 0;
	fail = fail || json_object_set_new(o, "overruled", r->robust_why[0] ? json_string(r->robust_why)
									   : json_null()) < 0;
	fail = fail || json_object_set_new(o, "threshold_pct", num(r->threshold_pct)) < 0;
	fail = fail || json_object_set_new(o, "threshold_learned", learned_json(r)) < 0;
	fail = fail || json_object_set_new(o, "boots_needed",
					   r->boots_needed ? json_integer((json_int_t)r->boots_needed)
							   : json_null()) < 0;
	json_decref(a);
	json_decref(b);
	if (fail) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *side_json(const struct series_variant *v)
{
	return json_pack("{s:s,s:I,s:I,s:I,s:O,s:O,s:I}", "variant", v->label, "reports",
			 (json_int_t)v->reports, "runs", (json_int_t)v->runs, "failed_runs",
			 (json_int_t)v->failed, "statuses", v->statuses, "timing", v->timings,
			 "contended_runs", (json_int_t)v->contended);
}

static json_t *counts_json(const unsigned *count)
{
	json_t *o = json_object();

	for (int i = 0; o && i < VERDICT__COUNT; i++)
		if (json_object_set_new(o, verdict_name((enum verdict)i),
					json_integer(count[i])) < 0) {
			json_decref(o);
			return NULL;
		}
	return o;
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

const struct deltas_workload *compare_deltas_of(const struct comparison *c,
						const struct series_what *g)
{
	return deltas_find(&c->deltas, g->topology, g->workload, g->params_text);
}

/* A workload a row group: its name, params and topology, and why its figures moved. */
static json_t *workloads_json(const struct series_set *s, const struct comparison *c)
{
	const struct series_what *prev = NULL;
	json_t *a = json_array();

	for (size_t i = 0; a && i < c->nr_rows; i++) {
		const struct series_what *g = &s->groups[s->keys[c->rows[i].key].group];

		if (prev && compare_same_workload(prev, g))
			continue;
		prev = g;
		if (json_array_append_new(a, json_pack("{s:s,s:O,s:s,s:o}", "workload", g->workload,
						       "params", g->params, "topology",
						       g->topology, "deltas",
						       deltas_json(compare_deltas_of(c, g)))) < 0) {
			json_decref(a);
			return NULL;
		}
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
	o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:b,s:b,s:o,s:o,s:s,s:s,s:o}", "a",
		      side_json(&s->variants[c->va]), "b", side_json(&s->variants[c->vb]), "rows",
		      rows, "only_a", keys_json(s, c->only_a, c->nr_only_a), "only_b",
		      keys_json(s, c->only_b, c->nr_only_b), "outcome_regression",
		      c->outcome_regression, "all_metrics", c->all_metrics, "summary",
		      counts_json(c->count), "summary_other", counts_json(c->count_other),
		      "timing", c->timing ? c->timing : "unknown", "decision",
		      compare_decision_name(c->decision), "boots_needed",
		      c->boots_needed ? json_integer((json_int_t)c->boots_needed) : json_null());
	if (o && c->host_class && c->host_class[0])
		json_object_set_new(o, "host_class", json_string(c->host_class));
	if (o && (json_object_set_new(o, "warnings", warn_diff_json(&c->warn)) < 0 ||
		  json_object_set_new(o, "workloads", workloads_json(s, c)) < 0)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *compare_json(const struct series_set *s, const struct comparison *c, size_t n)
{
	json_t *arr = json_array(), *reports = json_array();

	for (size_t i = 0; arr && i < n; i++)
		if (json_array_append_new(arr, one_json(s, &c[i])) < 0)
			goto oom;
	for (size_t i = 0; reports && i < s->nr_reports; i++)
		if (json_array_append_new(reports,
					  json_pack("{s:s,s:s,s:s}", "file", s->reports[i].file,
						    "id", s->reports[i].id, "created",
						    s->reports[i].created)) < 0)
			goto oom;
	if (!arr || !reports)
		goto oom;
	/* The scaling fits are descriptive: beside the comparisons, never in them. */
	return json_pack("{s:s,s:f,s:f,s:f,s:s,s:o,s:o,s:b,s:s,s:o,s:o}", "schema", COMPARE_SCHEMA,
			 "level", n ? 1 - c[0].alpha : STATS_LEVEL, "fdr", n ? c[0].alpha : VERDICT_FDR,
			 "threshold_pct",
			 n ? c[0].threshold_pct : 0.0, "threshold",
			 n && c[0].use_learned ? "learned" : "fixed", "comparisons", arr, "reports", reports,
			 "regression", compare_decide_all(c, n) == COMPARE_REGRESSION, "decision",
			 compare_decision_name(compare_decide_all(c, n)), "scaling_fits",
			 scalefit_all_json(s), "sequential",
			 n && c[0].alpha < VERDICT_FDR
				 ? json_pack("{s:f,s:I}", "alpha", c[0].alpha, "looks",
					     (json_int_t)s->seq_looks)
				 : json_null());
oom:
	json_decref(arr);
	json_decref(reports);
	return NULL;
}

