/* `lab compare`'s short forms (lab/analysis/compare.h): the deciding series in at most 80
 * columns with the decision on the last line, as plain text or a markdown table, for a mail
 * or a cover letter; and every series as CSV for other tools.  The full table is
 * compare_text.c's (-v).  Pure. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/format.h"
#include "analysis/modelfit.h"
#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/strbuf.h"

#define BRIEF_WIDTH 80

/* One row's cells, as printed. */
struct brief_cells {
	char tasks[12], metric[64], a[24], b[24], change[24], ci[48], verdict[24];
};

enum { COL_TASKS, COL_METRIC, COL_A, COL_B, COL_CHANGE, COL_CI, COL_VERDICT, NR_COLS };

static const char *const col_head[NR_COLS] = { "tasks", "metric", "A mean", "B mean",
					       "change", "95% CI", "verdict" };

/* A percentage in as few characters as its size allows: +0.42, -67.8, -1213. */
static void pct_short(char *buf, size_t len, double v, const char *suffix)
{
	int prec = fabs(v) < 10 ? 2 : fabs(v) < 100 ? 1 : 0;

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "%sinf", v > 0 ? "+" : "-");
	else
		snprintf(buf, len, "%+.*f%s", prec, v, suffix);
}

static void row_cells(const struct series_set *s, const struct compare_row *r,
		      struct brief_cells *c)
{
	char lo[16], hi[16];

	snprintf(c->tasks, sizeof(c->tasks), "%u", s->keys[r->key].tasks);
	snprintf(c->metric, sizeof(c->metric), "%s", s->groups[s->keys[r->key].group].metric);
	format_number(c->a, sizeof(c->a), r->a.mean, "%.4g", "inf", "-inf");
	format_number(c->b, sizeof(c->b), r->b.mean, "%.4g", "inf", "-inf");
	pct_short(c->change, sizeof(c->change), r->change_pct, "%");
	pct_short(lo, sizeof(lo), r->ci_pct_lo, "");
	pct_short(hi, sizeof(hi), r->ci_pct_hi, "");
	if (r->tested)
		snprintf(c->ci, sizeof(c->ci), "[%s,%s]", lo, hi);
	else
		snprintf(c->ci, sizeof(c->ci), "-");
	snprintf(c->verdict, sizeof(c->verdict), "%s", verdict_name(r->verdict));
}

static const char *cell(const struct brief_cells *c, int col)
{
	const char *v[NR_COLS] = { c->tasks, c->metric, c->a, c->b, c->change, c->ci, c->verdict };

	return v[col];
}

/* text wrapped at BRIEF_WIDTH, every line after the first indented by indent spaces. */
static void append_wrapped(struct strbuf *sb, const char *text, int indent)
{
	int col = 0, words = 0;

	while (*text) {
		size_t w = strcspn(text, " ");

		if (words && col + 1 + (int)w > BRIEF_WIDTH) {
			strbuf_appendf(sb, "\n%*s", indent, "");
			col = indent;
			words = 0;
		}
		if (words) {
			strbuf_append(sb, " ");
			col++;
		}
		strbuf_appendn(sb, text, w);
		col += (int)w;
		words++;
		text += w;
		text += strspn(text, " ");
	}
	strbuf_append(sb, "\n");
}

/* "mmap_contention mappers=1 map_kib=64 on 8 vCPUs (...), 4 nodes": only the parameters that
 * differ from the workload's defaults. */
void compare_heading(struct strbuf *sb, const struct series_what *g, int markdown)
{
	_cleanup_strbuf_ struct strbuf h = STRBUF_INIT;
	const struct workload_def *w = workload_find(g->workload);
	_cleanup_free_ char *text = NULL;
	const char *k;
	json_t *v;

	strbuf_appendf(&h, markdown ? "**%s**" : "%s", g->workload);
	json_object_foreach(g->params, k, v) {
		_cleanup_free_ char *val = NULL;

		if (w && workload_param_is_default(w, k, v))
			continue;
		val = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		if (json_is_string(v))
			strbuf_appendf(&h, " %s=%s", k, json_string_value(v));
		else
			strbuf_appendf(&h, " %s=%s", k, val ? val : "?");
	}
	if (strbuf_take(&h, &text) < 0)
		return;
	/* the topology stays whole: on the heading's line when it fits, else on its own */
	if (strlen(text) + strlen(" on ") + strlen(g->topology) <= BRIEF_WIDTH) {
		strbuf_appendf(sb, "%s on %s\n", text, g->topology);
		return;
	}
	append_wrapped(sb, text, 4);
	strbuf_appendf(sb, "    on %s\n", g->topology);
}

/* Column k's heading: the interval's at its level (a sequential look's is wider). */
static const char *head(int k, const char *ci_head)
{
	return k == COL_CI ? ci_head : col_head[k];
}

static void table_text(struct strbuf *sb, const struct brief_cells *cells, size_t n,
		       const char *ci_head)
{
	int w[NR_COLS];

	for (int k = 0; k < NR_COLS; k++) {
		w[k] = (int)strlen(head(k, ci_head));
		for (size_t i = 0; i < n; i++) {
			int l = (int)strlen(cell(&cells[i], k));

			w[k] = l > w[k] ? l : w[k];
		}
	}
	for (size_t i = 0; i <= n; i++)
		for (int k = 0; k < NR_COLS; k++) {
			const char *v = i ? cell(&cells[i - 1], k) : head(k, ci_head);
			/* numbers to the right, words to the left */
			int left = k == COL_METRIC || k == COL_CI || k == COL_VERDICT;

			if (k == NR_COLS - 1)
				strbuf_appendf(sb, "%s\n", v);
			else
				strbuf_appendf(sb, left ? "%-*s " : "%*s ", w[k], v);
		}
}

static void table_markdown(struct strbuf *sb, const struct brief_cells *cells, size_t n,
			   const char *ci_head)
{
	strbuf_appendf(sb, "\n| tasks | metric | A mean | B mean | change | %s | verdict |\n"
			   "|---:|---|---:|---:|---:|---|---|\n", ci_head);
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < NR_COLS; k++)
			strbuf_appendf(sb, "| %s ", cell(&cells[i], k));
		strbuf_append(sb, "|\n");
	}
}

/* Whether a deciding row of the workload of rows [i, j) moved: only there do the deltas say
 * why (-v shows them under every workload). */
static int moved(const struct comparison *c, size_t i, size_t j)
{
	for (; i < j; i++)
		if ((c->rows[i].primary || c->all_metrics) &&
		    (c->rows[i].verdict == VERDICT_REGRESSION ||
		     c->rows[i].verdict == VERDICT_IMPROVEMENT))
			return 1;
	return 0;
}

/* The deciding rows, a table under each workload heading; under a workload that moved, why
 * (analysis/deltas.h). */
static int brief_rows(struct strbuf *sb, const struct series_set *s, const struct comparison *c,
		      int markdown)
{
	_cleanup_free_ struct brief_cells *cells = calloc(c->nr_rows ? c->nr_rows : 1,
							  sizeof(*cells));
	size_t i = 0;
	char ci_head[24];

	if (!cells)
		return -ENOMEM;
	if (c->alpha < VERDICT_FDR)
		snprintf(ci_head, sizeof(ci_head), "%.1f%% CI", 100 * (1 - c->alpha));
	else
		snprintf(ci_head, sizeof(ci_head), "95%% CI");
	while (i < c->nr_rows) {
		const struct series_what *g = &s->groups[s->keys[c->rows[i].key].group];
		size_t n = 0, j = i;

		for (; j < c->nr_rows && compare_same_workload(g, &s->groups[s->keys[c->rows[j].key].group]);
		     j++)
			if (c->rows[j].primary || c->all_metrics)
				row_cells(s, &c->rows[j], &cells[n++]);
		if (n) {
			strbuf_append(sb, "\n");
			compare_heading(sb, g, markdown);
			if (markdown)
				table_markdown(sb, cells, n, ci_head);
			else
				table_text(sb, cells, n, ci_head);
		}
		if (n && moved(c, i, j) && deltas_any(compare_deltas_of(c, g))) {
			/* markdown: a paragraph of its own, not a table row */
			if (markdown)
				strbuf_append(sb, "\n");
			deltas_text(sb, compare_deltas_of(c, g), markdown);
		}
		i = j;
	}
	return 0;
}

static void side(struct strbuf *sb, const char *name, const struct series_variant *v, int lw)
{
	strbuf_appendf(sb, "%s: %-*s %u run%s, %u failed, %zu report%s", name, lw, v->label,
		       v->runs, v->runs == 1 ? "" : "s", v->failed, v->reports,
		       v->reports == 1 ? "" : "s");
	if (v->contended)
		strbuf_appendf(sb, "; %u on a contended host", v->contended);
	strbuf_append(sb, "\n");
}

static void counts(struct strbuf *sb, const unsigned *n)
{
	static const enum verdict order[] = { VERDICT_REGRESSION, VERDICT_IMPROVEMENT,
					      VERDICT_NO_CHANGE, VERDICT_INCONCLUSIVE,
					      VERDICT_INSUFFICIENT, VERDICT_OUTSIDE_MODEL };
	static const char *const words[] = { "regression", "improvement", "no change",
					     "inconclusive", "too little data",
					     "outside this model" };
	int first = 1;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!n[order[i]])
			continue;
		strbuf_appendf(sb, "%s%u %s%s", first ? "" : ", ", n[order[i]], words[i],
			       n[order[i]] > 1 && i < 2 ? "s" : "");
		first = 0;
	}
}

/* Deciding rows with a change whose size the model does not fix (modelfit_size_bound). */
static unsigned size_bound(const struct series_set *s, const struct comparison *c)
{
	unsigned n = 0;

	for (size_t i = 0; c->timing && i < c->nr_rows; i++) {
		const struct compare_row *r = &c->rows[i];
		const struct series_what *g = &s->groups[s->keys[r->key].group];

		n += (r->primary || c->all_metrics) &&
		     (r->verdict == VERDICT_REGRESSION || r->verdict == VERDICT_IMPROVEMENT) &&
		     modelfit_size_bound(c->timing, g->workload, g->params, g->metric,
					 s->keys[r->key].tasks);
	}
	return n;
}

/* The deciding series' learned thresholds of noise (analysis/noise.h) beside the fixed one,
 * and whether they decided. */
static void learned_notes(struct strbuf *sb, const struct series_set *s,
			  const struct comparison *c)
{
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct compare_row *r = &c->rows[i];
		const struct series_what *g = &s->groups[s->keys[r->key].group];

		if (!(r->primary || c->all_metrics) || !r->learned.changes)
			continue;
		strbuf_appendf(sb, "- learned threshold of %s %s at %u task%s: +-%.3g%% (%s the fixed "
				   "%g%%), from %zu changes of %zu kernel%s measured again%s.\n",
			       g->workload, g->metric, s->keys[r->key].tasks, s->keys[r->key].tasks == 1 ? "" : "s",
			       r->learned.threshold_pct, r->learned_used ? "deciding, not" : "beside",
			       c->threshold_pct, r->learned.changes, r->learned.kernels,
			       r->learned.kernels == 1 ? "" : "s",
			       r->learned_used ? "" : "; --threshold learned decides by it");
	}
}

/* What the reader needs before the decision: the model's blind spot, why it is undecided,
 * failed runs, what -v would add. */
static void notes(struct strbuf *sb, const struct series_set *s, const struct comparison *c)
{
	_cleanup_strbuf_ struct strbuf t = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;
	unsigned other = 0;

	for (int i = 0; i < VERDICT__COUNT; i++)
		other += c->count_other[i];
	if (c->count[VERDICT_OUTSIDE_MODEL])
		strbuf_appendf(&t, "- outside this model: %u deciding series depend on what %s "
				   "cannot show (%s); run them under --timing quantum.\n",
			       c->count[VERDICT_OUTSIDE_MODEL], c->timing,
			       modelfit_blind(c->timing));
	if (size_bound(s, c))
		strbuf_appendf(&t, "- %u changes found depend on lock contention: under %s their "
				   "direction is the model's finding, their size depends on the "
				   "quantum (configs/seeds/README.md, \"The quantum\").\n",
			       size_bound(s, c), c->timing);
	if (c->decision == COMPARE_UNDECIDED && c->boots_needed > VERDICT_MAX_BOOTS_NEEDED)
		strbuf_appendf(&t, "- more than %d boots a side would be needed at this spread.\n",
			       VERDICT_MAX_BOOTS_NEEDED);
	else if (c->decision == COMPARE_UNDECIDED && c->boots_needed)
		strbuf_appendf(&t, "- about %zu boots a side would decide it.\n", c->boots_needed);
	if (c->outcome_regression)
		strbuf_appendf(&t, "- %u of B's %u runs failed, none of A's.\n",
			       s->variants[c->vb].failed, s->variants[c->vb].runs);
	if (other) {
		strbuf_appendf(&t, "- %u other metrics not shown (-v): ", other);
		counts(&t, c->count_other);
		strbuf_append(&t, ".\n");
	}
	if (c->nr_only_a || c->nr_only_b)
		strbuf_appendf(&t, "- series only in A: %zu, only in B: %zu (-v names them).\n",
			       c->nr_only_a, c->nr_only_b);
	if (c->alpha < VERDICT_FDR)
		strbuf_appendf(&t, "- sequential: boots ran in rounds until decided, so every "
				   "look is judged by Pocock's repeated intervals over %u looks "
				   "(%.1f%%): 5%% error whenever it stopped.\n",
			       s->seq_looks, 100 * (1 - c->alpha));
	if (c->use_learned)
		strbuf_appendf(&t, "- change: %% of A's mean, + is better; it counts when q < %.3g "
				   "and the CI lies beyond the series' learned threshold where it "
				   "has one (below), else +-%g%%.\n", c->alpha, c->threshold_pct);
	else
		strbuf_appendf(&t, "- change: %% of A's mean, + is better; it counts when q < %.3g "
				   "and the CI lies beyond +-%g%%.\n", c->alpha, c->threshold_pct);
	learned_notes(&t, s, c);
	if (strbuf_take(&t, &text) < 0)
		return;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		append_wrapped(sb, line, 2);
}

static int brief_one(struct strbuf *sb, const struct series_set *s, const struct comparison *c,
		     int markdown)
{
	const struct series_variant *a = &s->variants[c->va], *b = &s->variants[c->vb];
	int lw = (int)(strlen(a->label) > strlen(b->label) ? strlen(a->label) : strlen(b->label));
	int r;

	lw = lw > 30 ? 30 : lw;
	side(sb, "A", a, lw);
	side(sb, "B", b, lw);
	strbuf_appendf(sb, "timing model %s, threshold %g%%%s%s%s\n", c->timing ? c->timing : "unknown",
		       c->threshold_pct, c->use_learned ? " (learned where known)" : "",
		       c->host_class && c->host_class[0] ? ", host class " : "",
		       c->host_class ? c->host_class : "");
	if ((r = brief_rows(sb, s, c, markdown)) < 0)
		return r;
	strbuf_append(sb, "\n");
	if (c->warn.nr_rows) {
		warn_diff_text(sb, &c->warn, markdown);
		strbuf_append(sb, "\n");
	}
	notes(sb, s, c);
	return 0;
}

static void decision(struct strbuf *sb, const struct comparison *c, size_t n)
{
	unsigned total[VERDICT__COUNT] = { 0 }, warned = 0;

	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < VERDICT__COUNT; k++)
			total[k] += c[i].count[k];
		warned += c[i].warn.nr_new;
	}
	strbuf_appendf(sb, "decision: %s (", compare_decision_name(compare_decide_all(c, n)));
	counts(sb, total);
	if (warned)
		strbuf_appendf(sb, "; %u new kernel warning%s", warned, warned == 1 ? "" : "s");
	strbuf_append(sb, ")\n");
}

int compare_brief(const struct series_set *s, const struct comparison *c, size_t n,
		  int markdown, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	int r;

	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_append(&sb, "\n");
		if ((r = brief_one(&sb, s, &c[i], markdown)) < 0)
			return r;
	}
	/* markdown: a paragraph of its own, not the last list item's continuation */
	if (markdown)
		strbuf_append(&sb, "\n");
	decision(&sb, c, n);
	return strbuf_take(&sb, out);
}


static void csv_num(struct strbuf *sb, double v)
{
	char b[48] = "";

	if (!isnan(v))
		snprintf(b, sizeof(b), "%.10g", v);
	strbuf_append_csv(sb, b, ",");
}

static void csv_row(struct strbuf *sb, const struct series_set *s, const struct comparison *c,
		    const struct compare_row *r)
{
	const struct series_what *g = &s->groups[s->keys[r->key].group];
	char tasks[16], na[16], nb[16];

	snprintf(tasks, sizeof(tasks), "%u", s->keys[r->key].tasks);
	snprintf(na, sizeof(na), "%zu", r->ab.boots);
	snprintf(nb, sizeof(nb), "%zu", r->bb.boots);
	strbuf_append_csv(sb, s->variants[c->va].label, ",");
	strbuf_append_csv(sb, s->variants[c->vb].label, ",");
	strbuf_append_csv(sb, c->timing ? c->timing : "", ",");
	strbuf_append_csv(sb, g->topology, ",");
	strbuf_append_csv(sb, g->workload, ",");
	strbuf_append_csv(sb, g->params_text, ",");
	strbuf_append_csv(sb, tasks, ",");
	strbuf_append_csv(sb, g->metric, ",");
	strbuf_append_csv(sb, g->unit, ",");
	strbuf_append_csv(sb, r->primary ? "1" : "0", ",");
	strbuf_append_csv(sb, r->mean == STATS_HARMONIC ? "harmonic" : "arithmetic", ",");
	strbuf_append_csv(sb, na, ",");
	csv_num(sb, r->a.mean);
	strbuf_append_csv(sb, nb, ",");
	csv_num(sb, r->b.mean);
	csv_num(sb, r->change_pct);
	csv_num(sb, r->tested ? r->ci_pct_lo : NAN);
	csv_num(sb, r->tested ? r->ci_pct_hi : NAN);
	csv_num(sb, r->q);
	strbuf_append_csv(sb, verdict_name(r->verdict), "\r\n");
}

int compare_csv(const struct series_set *s, const struct comparison *c, size_t n, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	strbuf_append(&sb, "a,b,timing,topology,workload,params,tasks,metric,unit,primary,mean,"
			   "a_boots,a_mean,b_boots,b_mean,change_pct,ci_lo_pct,ci_hi_pct,q,"
			   "verdict\r\n");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < c[i].nr_rows; k++)
			csv_row(&sb, s, &c[i], &c[i].rows[k]);
	return strbuf_take(&sb, out);
}
