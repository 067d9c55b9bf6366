/* The text table of `lab compare` (lab/analysis/compare.h): primary metrics first, the decision
 * they make, then the other metrics folded below.  Pure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/modelfit.h"
#include "analysis/format.h"
#include "util/cleanup.h"
#include "util/strbuf.h"

/* How many series only one side has are named in the text table (JSON has them all). */
#define TEXT_ONLY_LIST 8

static const char *fmt_num(char *buf, size_t len, double v)
{
	return format_number(buf, len, v, "%.4g", "inf", "-inf");
}

static const char *fmt_pct(char *buf, size_t len, double v, int sign)
{
	return format_number(buf, len, v, sign ? "%+.2f%%" : "%.1f%%", "+inf%", "-inf%");
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
	strbuf_append(sb, ")");
	if (v->contended)
		strbuf_appendf(sb, ", %u measured on a contended host", v->contended);
	strbuf_append(sb, "\n");
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

static const char *fmt_needed(char *buf, size_t len, const struct compare_row *r)
{
	if (!r->boots_needed)
		return "";
	if (r->boots_needed > VERDICT_MAX_BOOTS_NEEDED)
		snprintf(buf, len, " (needs > %d boots a side)", VERDICT_MAX_BOOTS_NEEDED);
	else
		snprintf(buf, len, " (needs ~%zu boots a side)", r->boots_needed);
	return buf;
}

static void text_row(struct strbuf *sb, const struct series_set *s, const struct compare_row *r,
		     int mw)
{
	const struct series_what *g = &s->groups[s->keys[r->key].group];
	char b[12][48], ci[100], need[64];

	if (r->tested)
		snprintf(ci, sizeof(ci), "[%s, %s]", fmt_pct(b[8], 48, r->ci_pct_lo, 1),
			 fmt_pct(b[9], 48, r->ci_pct_hi, 1));
	else
		snprintf(ci, sizeof(ci), "-");
	strbuf_appendf(sb, "%6u  %-*s  %-10.32s %-5s %3zu %10s %6s %6s %3zu %10s %6s %6s %9s  %-20s %7s  %s%s\n",
		       s->keys[r->key].tasks, mw, g->metric, g->unit,
		       r->mean == STATS_HARMONIC ? "harm" : "arith", r->ab.boots,
		       fmt_num(b[0], 48, r->a.mean), fmt_pct(b[1], 48, r->ab.cv_between * 100, 0),
		       fmt_pct(b[2], 48, r->ab.cv_within * 100, 0), r->bb.boots,
		       fmt_num(b[3], 48, r->b.mean), fmt_pct(b[4], 48, r->bb.cv_between * 100, 0),
		       fmt_pct(b[5], 48, r->bb.cv_within * 100, 0),
		       fmt_pct(b[6], 48, r->change_pct, 1), ci,
		       r->tested ? fmt_num(b[7], 48, r->q) : "-", verdict_name(r->verdict),
		       fmt_needed(need, sizeof(need), r));
	/* Welch's verdict overruled by the rank test, the bootstrap or the modes. */
	if (r->robust_why[0])
		strbuf_appendf(sb, "%6s  ^ not decided: %s\n", "", r->robust_why);
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

/* The rows of one family (deciding or not), grouped under workload headings; under each
 * workload's deciding rows, why its figures moved (analysis/deltas.h). */
static void text_rows(struct strbuf *sb, const struct series_set *s, const struct comparison *c,
		      int deciding)
{
	const struct series_what *prev = NULL;
	int mw = metric_width(s, c);

	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct series_what *g = &s->groups[s->keys[c->rows[i].key].group];

		if ((c->rows[i].primary || c->all_metrics) != deciding)
			continue;
		if (!prev || !compare_same_workload(prev, g)) {
			if (prev && deciding)
				deltas_text(sb, compare_deltas_of(c, prev), 0);
			strbuf_appendf(sb, "\n%s %s on %s\n", g->workload, g->params_text, g->topology);
			strbuf_appendf(sb, "%6s  %-*s  %-10s %-5s %3s %10s %6s %6s %3s %10s %6s %6s %9s  %-20s %7s  %s\n",
				       "tasks", mw, "metric", "unit", "mean", "n", "A mean", "cv", "cv-in",
				       "n", "B mean", "cv", "cv-in", "change", "95% CI of change", "q",
				       "verdict");
		}
		prev = g;
		text_row(sb, s, &c->rows[i], mw);
		if (c->rows[i].learned.changes)
			strbuf_appendf(sb, "%6s  learned threshold +-%.3g%% from %zu changes of %zu "
					   "kernel%s measured again: %s\n", "",
				       c->rows[i].learned.threshold_pct, c->rows[i].learned.changes,
				       c->rows[i].learned.kernels,
				       c->rows[i].learned.kernels == 1 ? "" : "s",
				       c->rows[i].learned_used ? "it decided this row"
							       : "beside the fixed one");
	}
	if (prev && deciding)
		deltas_text(sb, compare_deltas_of(c, prev), 0);
}

static void text_counts(struct strbuf *sb, const unsigned *n)
{
	strbuf_appendf(sb, "%u regression%s, %u improvement%s, %u no change, %u inconclusive, %u with "
			   "too little data",
		       n[VERDICT_REGRESSION], n[VERDICT_REGRESSION] == 1 ? "" : "s",
		       n[VERDICT_IMPROVEMENT], n[VERDICT_IMPROVEMENT] == 1 ? "" : "s",
		       n[VERDICT_NO_CHANGE], n[VERDICT_INCONCLUSIVE], n[VERDICT_INSUFFICIENT]);
	if (n[VERDICT_OUTSIDE_MODEL])
		strbuf_appendf(sb, ", %u outside this model", n[VERDICT_OUTSIDE_MODEL]);
}

/* What the model cannot show, once, when a deciding row depends on it. */
static void text_fit(struct strbuf *sb, const struct comparison *c)
{
	const char *first = NULL;
	unsigned n = 0;

	for (size_t i = 0; i < c->nr_rows; i++)
		if (c->rows[i].fit_why[0] && (c->rows[i].primary || c->all_metrics)) {
			first = first ? first : c->rows[i].fit_why;
			n++;
		}
	if (!n)
		return;
	strbuf_appendf(sb, "  outside this model: %u deciding series depend on what %s cannot "
			   "show (%s).  No verdict where that is all they measure, and never \"no "
			   "change\": a change found in the others counts instructions only.  "
			   "First: %s\n",
		       n, c->timing, modelfit_blind(c->timing), first);
}

static void text_decision(struct strbuf *sb, const struct series_set *s,
			  const struct comparison *c)
{
	strbuf_appendf(sb, "decision: %s", compare_decision_name(c->decision));
	if (c->decision == COMPARE_UNDECIDED) {
		if (c->boots_needed > VERDICT_MAX_BOOTS_NEEDED)
			strbuf_appendf(sb, " (more than %d boots a side would be needed at this "
					   "spread: use the deterministic timing model or a larger "
					   "--threshold)", VERDICT_MAX_BOOTS_NEEDED);
		else if (c->boots_needed)
			strbuf_appendf(sb, " (about %zu boots a side would decide it)",
				       c->boots_needed);
		else if (!c->count[VERDICT_OUTSIDE_MODEL])
			strbuf_append(sb, " (at least 2 boots a side are needed)");
		if (c->count[VERDICT_OUTSIDE_MODEL])
			strbuf_appendf(sb, " (%u deciding series outside this timing model: run "
					   "them under one that shows what they depend on, e.g. "
					   "--timing quantum)", c->count[VERDICT_OUTSIDE_MODEL]);
	}
	strbuf_append(sb, "\n  deciding metrics: ");
	text_counts(sb, c->count);
	strbuf_append(sb, "\n");
	text_fit(sb, c);
	if (c->outcome_regression)
		strbuf_appendf(sb, "  outcome regression: %u of B's %u runs failed, none of A's\n",
			       s->variants[c->vb].failed, s->variants[c->vb].runs);
	if (c->warn.nr_new)
		strbuf_appendf(sb, "  kernel warnings: %u new in B (a regression whatever the "
				   "figures say)\n", c->warn.nr_new);
	if (c->warn.nr_rows) {
		strbuf_append(sb, "\n");
		warn_diff_text(sb, &c->warn, 0);
	}
}

static void text_one(struct strbuf *sb, const struct series_set *s, const struct comparison *c)
{
	unsigned other = 0;

	for (int i = 0; i < VERDICT__COUNT; i++)
		other += c->count_other[i];
	text_side(sb, "A", &s->variants[c->va]);
	text_side(sb, "B", &s->variants[c->vb]);
	strbuf_appendf(sb, "timing model: %s; threshold %g%%%s\n", c->timing ? c->timing : "unknown",
		       c->threshold_pct, c->use_learned ? ", a series' learned one where it has one"
							: "");
	if (c->host_class && c->host_class[0])
		strbuf_appendf(sb, "host class: %s\n", c->host_class);
	if (c->alpha < VERDICT_FDR)
		strbuf_appendf(sb, "sequential: intervals at %.1f%%, q below %.3g (Pocock, %u looks)\n",
			       100 * (1 - c->alpha), c->alpha, s->seq_looks);
	strbuf_append(sb, c->all_metrics ? "\nevery metric decides (--all-metrics):\n"
					 : "\nprimary metrics (they decide):\n");
	text_rows(sb, s, c, 1);
	strbuf_append(sb, "\n");
	text_decision(sb, s, c);
	if (other) {
		strbuf_append(sb, "\nother metrics (shown, they do not decide; --all-metrics):\n");
		text_rows(sb, s, c, 0);
		strbuf_append(sb, "\n  other metrics: ");
		text_counts(sb, c->count_other);
		strbuf_append(sb, "\n");
	}
	strbuf_append(sb, "\n");
	text_only(sb, s, "A", c->only_a, c->nr_only_a);
	text_only(sb, s, "B", c->only_b, c->nr_only_b);
}

int compare_text(const struct series_set *s, const struct comparison *c, size_t n, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_append(&sb, "\n");
		text_one(&sb, s, &c[i]);
	}
	strbuf_append(&sb, "\nn: boots (repetitions inside a boot are averaged first). cv: between "
			   "boots; cv-in: within a boot.\nchange and its 95% CI: % of A's mean, "
			   "signed so that + is better. mean: harm = harmonic (rates, /s;\ntested on "
			   "reciprocals), arith = arithmetic. q: Welch p adjusted for the false "
			   "discovery rate\n(Benjamini-Hochberg) within the deciding and the other "
			   "metrics. A change counts when q < 0.05\nand the whole CI lies beyond the threshold; "
			   "no change: the CI lies inside +-threshold.\n");
	return strbuf_take(&sb, out);
}
