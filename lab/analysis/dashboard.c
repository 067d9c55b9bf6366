#include "analysis/dashboard.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/charts.h"
#include "analysis/dashboard_charts.h"
#include "analysis/dashboard_runs.h"
#include "analysis/format.h"
#include "analysis/html.h"
#include "core/timing.h"
#include "util/cleanup.h"

/* Offline by construction: nothing may be fetched, only inline scripts and styles run. */
#define CSP "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " \
	    "img-src data:"

static void esc(struct strbuf *sb, const char *s)
{
	html_escape(sb, s);
}

static int embeddable(const char *code, const char *end_tag)
{
	for (const char *p = code; *p; p++)
		if (*p == '<' && (!strncasecmp(p, end_tag, strlen(end_tag)) || !strncmp(p, "<!--", 4)))
			return 0;
	return 1;
}

static const char *fmt_num(char *buf, size_t len, double v)
{
	return format_number(buf, len, v, "%.4g", "unbounded", "-unbounded");
}

static const char *fmt_pct(char *buf, size_t len, double v)
{
	return format_number(buf, len, v, "%+.2f%%", "+unbounded", "-unbounded");
}

/* ---- reports and A/B tables ---------------------------------------------------------- */

static void report_labels(const struct series_report *r, struct strbuf *sb)
{
	_cleanup_json_ json_t *seen = json_object();
	json_t *runs = json_object_get(r->doc, "runs"), *run;
	size_t i;

	json_array_foreach(runs, i, run) {
		char buf[256];
		const char *l = series_run_label(run, buf, sizeof(buf));

		if (!seen || json_object_get(seen, l))
			continue;
		json_object_set_new(seen, l, json_true());
		if (json_object_size(seen) > 1)
			strbuf_append(sb, ", ");
		esc(sb, l);
	}
}

static void reports_section(struct strbuf *sb, const struct series_set *s)
{
	strbuf_append(sb, "<section id=\"reports\"><h2>Reports</h2>\n<table><thead><tr><th>id</th>"
			  "<th>created</th><th>job</th><th>status</th><th>runs</th>"
			  "<th>kernel variants</th><th>file</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < s->nr_reports; i++) {
		const struct series_report *r = &s->reports[i];
		const char *st = json_string_value(json_object_get(r->doc, "status"));

		strbuf_append(sb, "<tr><td><a href=\"#report-");
		strbuf_appendf(sb, "%zu\">", i);
		esc(sb, r->id);
		strbuf_append(sb, "</a></td><td>");
		esc(sb, r->created);
		strbuf_append(sb, "</td><td>");
		esc(sb, r->job);
		strbuf_append(sb, "</td><td class=\"st-");
		esc(sb, st);
		strbuf_append(sb, "\">");
		esc(sb, st);
		strbuf_appendf(sb, "</td><td>%zu</td><td>",
			       json_array_size(json_object_get(r->doc, "runs")));
		report_labels(r, sb);
		strbuf_append(sb, "</td><td class=\"file\">");
		esc(sb, r->file);
		strbuf_append(sb, "</td></tr>\n");
	}
	strbuf_append(sb, "</tbody></table></section>\n");
}

static void side_cells(struct strbuf *sb, const struct stats_summary *x,
		       const struct boot_stats *b)
{
	char a[48], c[48], w[48];

	strbuf_appendf(sb, "<td class=\"n\">%zu</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			   "<td class=\"n\">%s</td>",
		       b->boots, fmt_num(a, sizeof(a), x->mean),
		       isnan(b->cv_between) ? "-"
					    : (snprintf(c, sizeof(c), "%.2f%%", b->cv_between * 100), c),
		       isnan(b->cv_within) ? "-"
					   : (snprintf(w, sizeof(w), "%.2f%%", b->cv_within * 100), w));
}

static void ab_row(struct strbuf *sb, const struct series_set *s, const struct compare_row *r)
{
	const struct series_what *g = &s->groups[s->keys[r->key].group];
	char a[48], b[48], c[48], q[48];

	strbuf_append(sb, "<tr class=\"v-");
	strbuf_append(sb, verdict_name(r->verdict));
	strbuf_appendf(sb, "\"><td class=\"n\">%u</td><td>", s->keys[r->key].tasks);
	esc(sb, g->metric);
	strbuf_append(sb, "</td><td>");
	esc(sb, g->unit);
	strbuf_appendf(sb, "</td><td>%s</td>", r->mean == STATS_HARMONIC ? "harmonic" : "arithmetic");
	side_cells(sb, &r->a, &r->ab);
	side_cells(sb, &r->b, &r->bb);
	strbuf_appendf(sb, "<td class=\"n\">%s</td><td class=\"n\">", fmt_pct(a, sizeof(a), r->change_pct));
	if (r->tested)
		strbuf_appendf(sb, "[%s, %s]", fmt_pct(b, sizeof(b), r->ci_pct_lo),
			       fmt_pct(c, sizeof(c), r->ci_pct_hi));
	else
		strbuf_append(sb, "-");
	strbuf_appendf(sb, "</td><td class=\"n\">%s</td><td class=\"verdict\">%s",
		       r->tested ? fmt_num(q, sizeof(q), r->q) : "-", verdict_name(r->verdict));
	if (r->boots_needed > VERDICT_MAX_BOOTS_NEEDED)
		strbuf_appendf(sb, " (needs &gt; %d boots a side)", VERDICT_MAX_BOOTS_NEEDED);
	else if (r->boots_needed)
		strbuf_appendf(sb, " (needs ~%zu boots a side)", r->boots_needed);
	/* Outside the model, or a change that is the instructions' alone: say why, in place. */
	if (r->fit_why[0]) {
		strbuf_append(sb, "<div class=\"fit\">");
		esc(sb, r->fit_why);
		strbuf_append(sb, "</div>");
	}
	if (r->robust_why[0]) {
		strbuf_append(sb, "<div class=\"fit\">not decided: ");
		esc(sb, r->robust_why);
		strbuf_append(sb, "</div>");
	}
	strbuf_append(sb, "</td></tr>\n");
}

/* The rows of one family (deciding or not) as a table, a heading per workload block. */
static void ab_rows(struct strbuf *sb, const struct series_set *s, const struct comparison *c,
		    int deciding)
{
	const struct series_what *prev = NULL;

	strbuf_append(sb, "<table class=\"ab\"><thead><tr><th>tasks</th><th>metric</th>"
			  "<th>unit</th><th>mean</th><th>A boots</th><th>A mean</th><th>A cv</th>"
			  "<th>A cv in boot</th><th>B boots</th><th>B mean</th><th>B cv</th>"
			  "<th>B cv in boot</th><th>change</th><th>95% CI of change</th><th>q</th>"
			  "<th>verdict</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct series_what *g = &s->groups[s->keys[c->rows[i].key].group];

		if ((c->rows[i].primary || c->all_metrics) != deciding)
			continue;
		/* Rows come sorted by topology, workload and params: one heading per block. */
		if (!prev || strcmp(prev->topology, g->topology) ||
		    strcmp(prev->workload, g->workload) || strcmp(prev->params_text, g->params_text)) {
			_cleanup_json_ json_t *ch = charts_changed_params(g);

			strbuf_append(sb, "<tr class=\"group\"><th colspan=\"16\">");
			esc(sb, g->workload);
			strbuf_append(sb, " ");
			dashboard_params_legend(sb, ch, g->params);
			strbuf_append(sb, " on ");
			esc(sb, g->topology);
			strbuf_append(sb, "</th></tr>\n");
		}
		prev = g;
		ab_row(sb, s, &c->rows[i]);
	}
	strbuf_append(sb, "</tbody></table>\n");
}

/* What the comparison's timing model measures and cannot show: every figure's meaning. */
static void ab_timing(struct strbuf *sb, const struct comparison *c)
{
	enum timing_model m;
	unsigned q;
	char numa[TIMING_NUMA_HEX + 1];
	const struct timing_info *t =
		c->timing && timing_parse_key(c->timing, &m, &q, numa) == 0 ? timing_info(m) : NULL;

	strbuf_append(sb, "<p class=\"timing\">Timing model: <strong>");
	esc(sb, t ? t->title : (c->timing ? c->timing : "unknown"));
	strbuf_append(sb, "</strong>");
	if (t && t->rounds)
		strbuf_appendf(sb, ", quantum %u instructions", q);
	/* hex digits only: nothing to escape */
	if (t && numa[0])
		strbuf_appendf(sb, ", with the NUMA cost model's charges (preset key %s)", numa);
	if (t) {
		strbuf_append(sb, ". It measures ");
		esc(sb, t->measures);
		strbuf_append(sb, "; it cannot ");
		esc(sb, t->cannot);
		strbuf_append(sb, ".");
	}
	strbuf_append(sb, "</p>\n");
}

/* "3 of 5", or "not scanned" for a side whose reports predate warnings. */
static void warn_boots(struct strbuf *sb, const struct warn_site *w, unsigned scanned)
{
	if (scanned)
		strbuf_appendf(sb, "<td>%u of %u</td>", w ? w->boots : 0, scanned);
	else
		strbuf_append(sb, "<td>not scanned</td>");
}

/* The kernel warnings of the two sides, a row a site, with the first report's excerpt: a
 * new one in B is a regression by itself (analysis/warndiff.h).  Console text is the
 * guest's: escaped. */
static void ab_warnings(struct strbuf *sb, const struct warn_diff *d)
{
	if (!d->nr_rows)
		return;
	strbuf_append(sb, "<table class=\"warnings\"><caption>Kernel warnings</caption>\n<tr>"
			  "<th>change</th><th>kind</th><th>B boots</th><th>A boots</th>"
			  "<th>first line</th></tr>\n");
	for (size_t i = 0; i < d->nr_rows; i++) {
		const struct warn_row *r = &d->rows[i];
		const struct warn_site *w = r->b ? r->b : r->a;

		strbuf_appendf(sb, "<tr class=\"w-%s\"><td>%s</td><td>%s</td>",
			       warn_change_name(r->change), warn_change_name(r->change),
			       kwarn_kind_name(w->kind));
		warn_boots(sb, r->b, d->b_scanned);
		warn_boots(sb, r->a, d->a_scanned);
		strbuf_append(sb, "<td><details><summary>");
		esc(sb, w->first_line);
		strbuf_append(sb, "</summary><pre>");
		esc(sb, w->excerpt ? w->excerpt : "");
		strbuf_append(sb, "</pre></details></td></tr>\n");
	}
	strbuf_append(sb, "</table>\n");
}

/* A number of a deltas table: prec decimals, signed (sign) and with a suffix; undefined
 * when it is not finite (a relative change from 0: "new"). */
static void delta_cell(struct strbuf *sb, double v, int prec, int sign, const char *suffix,
		       const char *undefined)
{
	if (isfinite(v))
		strbuf_appendf(sb, sign ? "<td>%+.*f%s</td>" : "<td>%.*f%s</td>", prec, v, suffix);
	else
		strbuf_appendf(sb, "<td>%s</td>", undefined);
}

static void delta_row(struct strbuf *sb, const char *kind, const char *name,
		      const struct deltas_row *r, int profile)
{
	strbuf_appendf(sb, "<tr><td>%s</td><td>", kind);
	esc(sb, name);
	strbuf_append(sb, "</td>");
	delta_cell(sb, r->a, 3, 0, "", "");
	delta_cell(sb, r->b, 3, 0, "", "");
	delta_cell(sb, r->delta, 3, 1, "", "");
	delta_cell(sb, r->rel_pct, 1, 1, " %", "new");
	if (profile) {
		delta_cell(sb, r->incl_delta, 3, 1, "", "");
		delta_cell(sb, r->incl_rel_pct, 1, 1, " %", "new");
	} else {
		strbuf_append(sb, "<td></td><td></td>");
	}
	strbuf_append(sb, "</tr>\n");
}

/* Why a workload's figures moved (analysis/deltas.h), a table a workload that has any: not
 * deciding.  Symbol and counter names are the reports': escaped. */
static void ab_deltas(struct strbuf *sb, const struct series_set *s, const struct comparison *c)
{
	const struct series_what *prev = NULL;

	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct series_what *g = &s->groups[s->keys[c->rows[i].key].group];
		const struct deltas_workload *w;
		const char *unit;
		char name[DELTAS_NAME_MAX + 32];

		if (prev && compare_same_workload(prev, g))
			continue;
		prev = g;
		if (!deltas_any(w = compare_deltas_of(c, g)))
			continue;
		unit = deltas_unit_name(w->unit) ? deltas_unit_name(w->unit) : "op";
		strbuf_append(sb, "<table class=\"deltas\"><caption>Why it moved (not deciding: "
				  "where the instructions went): ");
		esc(sb, g->workload);
		strbuf_append(sb, " on ");
		esc(sb, g->topology);
		strbuf_appendf(sb, "</caption>\n<tr><th>source</th><th>name</th><th>A /%s</th>"
				   "<th>B /%s</th><th>&Delta;</th><th>&Delta; %%</th>"
				   "<th>incl &Delta;</th><th>incl &Delta; %%</th></tr>\n",
			       unit, unit);
		if (w->profile_absent && (w->a_profiled || w->b_profiled)) {
			strbuf_append(sb, "<tr><td colspan=\"8\">no profile lines: ");
			esc(sb, w->profile_absent);
			strbuf_append(sb, "</td></tr>\n");
		}
		for (size_t k = 0; k < w->nr_profile; k++)
			delta_row(sb, "self insns", w->profile[k].name, &w->profile[k], 1);
		for (size_t k = 0; k < w->nr_counters; k++) {
			const struct deltas_row *r = &w->counters[k];

			snprintf(name, sizeof(name), "%s %s", r->name, r->figure);
			delta_row(sb, r->source, name, r, 0);
		}
		strbuf_append(sb, "</table>\n");
	}
}

static void ab_table(struct strbuf *sb, const struct series_set *s, const struct comparison *c)
{
	const struct series_variant *va = &s->variants[c->va], *vb = &s->variants[c->vb];
	unsigned other = 0;

	for (int i = 0; i < VERDICT__COUNT; i++)
		other += c->count_other[i];
	strbuf_append(sb, "<h3>B: ");
	esc(sb, vb->label);
	strbuf_append(sb, " against A: ");
	esc(sb, va->label);
	strbuf_appendf(sb, "</h3>\n<p class=\"decision d-%s\">Decision: <strong>%s</strong>",
		       compare_decision_name(c->decision), compare_decision_name(c->decision));
	if (c->decision == COMPARE_UNDECIDED && c->boots_needed > VERDICT_MAX_BOOTS_NEEDED)
		strbuf_appendf(sb, " (more than %d boots a side would be needed at this spread)",
			       VERDICT_MAX_BOOTS_NEEDED);
	else if (c->decision == COMPARE_UNDECIDED && c->boots_needed)
		strbuf_appendf(sb, " (about %zu boots a side would decide it)", c->boots_needed);
	strbuf_appendf(sb, ". %s metrics: %u regression(s), %u improvement(s), %u no change, %u "
			   "inconclusive, %u with too little data; threshold %g%%.",
		       c->all_metrics ? "All" : "Primary", c->count[VERDICT_REGRESSION],
		       c->count[VERDICT_IMPROVEMENT], c->count[VERDICT_NO_CHANGE],
		       c->count[VERDICT_INCONCLUSIVE], c->count[VERDICT_INSUFFICIENT],
		       c->threshold_pct);
	if (c->count[VERDICT_OUTSIDE_MODEL])
		strbuf_appendf(sb, " <strong class=\"v-outside-model\">%u outside this timing "
				   "model</strong>: it cannot show what they depend on (below), so "
				   "no verdict is made on them.", c->count[VERDICT_OUTSIDE_MODEL]);
	if (c->outcome_regression)
		strbuf_append(sb, " <strong class=\"v-regression\">Outcome regression: B had failed "
				  "runs, A none.</strong>");
	if (c->warn.nr_new)
		strbuf_appendf(sb, " <strong class=\"v-regression\">%u new kernel warning(s) in B "
				   "(below).</strong>", c->warn.nr_new);
	strbuf_appendf(sb, "</p>\n<p class=\"summary\">A: %u runs (%u failed, %u on a contended "
			   "host), B: %u runs (%u failed, %u on a contended host); %zu series only "
			   "in A, %zu only in B.</p>\n",
		       va->runs, va->failed, va->contended, vb->runs, vb->failed, vb->contended,
		       c->nr_only_a, c->nr_only_b);
	ab_timing(sb, c);
	ab_warnings(sb, &c->warn);
	ab_rows(sb, s, c, 1);
	ab_deltas(sb, s, c);
	if (other) {
		strbuf_appendf(sb, "<details class=\"other\"><summary>Other metrics (%u; shown, they "
				   "do not decide)</summary>\n", other);
		ab_rows(sb, s, c, 0);
		strbuf_append(sb, "</details>\n");
	}
}

static void ab_section(struct strbuf *sb, const struct dashboard_input *in)
{
	strbuf_append(sb, "<section id=\"ab\"><h2>A/B comparison</h2>\n");
	if (in->cmp_note) {
		const char *l = in->cmp_note;

		strbuf_append(sb, "<ul class=\"note\">");
		while (*l) {
			size_t len = strcspn(l, "\n");
			_cleanup_free_ char *line = strndup(l, len);

			strbuf_append(sb, "<li>");
			esc(sb, line);
			strbuf_append(sb, "</li>");
			l += len + (l[len] == '\n');
		}
		strbuf_append(sb, "</ul>\n");
	}
	for (size_t i = 0; i < in->nr_cmp; i++)
		ab_table(sb, in->set, &in->cmp[i]);
	if (in->nr_cmp)
		strbuf_append(sb, "<p class=\"legend\">The boot is the unit: a run's repetitions are "
				  "averaged first; cv is between boots, cv in boot within one. change "
				  "and its 95% CI: % of A's mean, signed so that + is better. Rates "
				  "(/s): harmonic means, Welch test on the reciprocals; other units: "
				  "arithmetic means. q: p adjusted for the false discovery rate "
				  "(Benjamini-Hochberg). A change counts when q &lt; 0.05 and the whole CI "
				  "lies beyond the threshold; no change: the CI lies inside "
				  "&plusmn;threshold.</p>\n");
	strbuf_append(sb, "</section>\n");
}

/* ---- nightly trends ------------------------------------------------------------------ */

/* One chart spec of kind "nightly" per series of a night report: the per-night means (x: the
 * night's position), and the change points as marks.  Values come from the report and are
 * checked here: a non-number is left out, never drawn. */
static json_t *nightly_spec(const json_t *doc, const json_t *ser, size_t k)
{
	json_t *nights = json_object_get(ser, "nights"), *pts = json_object_get(ser, "change_points");
	json_t *means = json_array(), *marks = json_array(), *names = json_array(), *n, *cp;
	char id[64], title[1200];
	size_t i;

	json_array_foreach(nights, i, n) {
		const char *night = json_string_value(json_object_get(n, "night"));
		const char *commit = json_string_value(json_object_get(n, "commit"));
		char label[128];

		snprintf(label, sizeof(label), "%s %.12s", night ? night : "?", commit ? commit : "");
		json_array_append_new(names, json_string(label));
		if (json_is_number(json_object_get(n, "mean")))
			json_array_append_new(means, json_pack("{s:I, s:O, s:O, s:n, s:n, s:s}",
				"x", (json_int_t)i, "y", json_object_get(n, "mean"), "n",
				json_object_get(n, "boots"), "lo", "hi", "report", label));
	}
	json_array_foreach(pts, i, cp) {
		json_t *at = json_object_get(cp, "at");
		json_t *m = json_object_get(json_array_get(nights, (size_t)json_integer_value(at)),
					    "mean");

		if (json_is_integer(at) && json_is_number(m))
			json_array_append_new(marks, json_pack("{s:O, s:O, s:i, s:n, s:n, s:s}", "x",
				at, "y", m, "n", 0, "lo", "hi", "report",
				json_string_value(json_object_get(cp, "verdict")) ?: "change"));
	}
	snprintf(id, sizeof(id), "nightly-%zu", k);
	/* A series the nights' model is blind to carries no change points: say so in its head. */
	snprintf(title, sizeof(title), "%s%s", json_string_value(json_object_get(ser, "name")) ?: "?",
		 !strcmp(json_string_value(json_object_get(ser, "model_fit")) ?: "", "outside")
		 ? " (outside this timing model: not searched)" : "");
	return json_pack("{s:s, s:s, s:s, s:s?, s:s, s:s, s:{}, s:o, s:[{s:s, s:i, s:s, s:o}, "
			 "{s:s, s:i, s:s, s:b, s:o}]}",
			 "id", id, "kind", "nightly", "title", title, "unit", json_string_value(json_object_get(ser, "unit")),
			 "better", json_is_true(json_object_get(ser, "higher")) ? "higher" : "lower",
			 "topology", json_string_value(json_object_get(doc, "job")) ?: "", "params",
			 "nights", names, "lines", "label", "mean of the night's boots", "tasks", 0,
			 "variant", "night", "points", means, "label", "change point", "tasks", 1,
			 "variant", "mark", "marks", 1, "points", marks);
}

static void nightly_specs(const json_t *docs, json_t *charts)
{
	size_t i, j, k = 0;
	const json_t *doc, *ser;

	json_array_foreach(docs, i, doc)
		json_array_foreach(json_object_get(doc, "series"), j, ser)
			json_array_append_new(charts, nightly_spec(doc, ser, k++));
}

/* Alarms with their bisections: links go to the bisection's result next to the page. */
static void nightly_alarms(struct strbuf *sb, const json_t *doc)
{
	const json_t *alarms = json_object_get(doc, "alarms"), *a;
	size_t i;

	if (!json_array_size(alarms)) {
		strbuf_append(sb, "<p>No confirmed regression on the latest night.</p>\n");
		return;
	}
	strbuf_append(sb, "<table><thead><tr><th>night</th><th>series</th><th>change</th>"
			  "<th>last good</th><th>commit</th><th>bisection</th><th>culprit</th>"
			  "</tr></thead><tbody>\n");
	json_array_foreach(alarms, i, a) {
		const json_t *b = json_object_get(a, "bisect");
		const char *dir = json_string_value(json_object_get(b, "dir"));
		char pct[32];

		strbuf_append(sb, "<tr><td>");
		esc(sb, json_string_value(json_object_get(a, "night")));
		strbuf_append(sb, "</td><td>");
		esc(sb, json_string_value(json_object_get(a, "series")));
		strbuf_appendf(sb, "</td><td>%s</td><td><code>", fmt_pct(pct, sizeof(pct),
			       json_number_value(json_object_get(a, "change_pct"))));
		esc(sb, json_string_value(json_object_get(a, "last_good")));
		strbuf_append(sb, "</code></td><td><code>");
		esc(sb, json_string_value(json_object_get(a, "commit")));
		strbuf_append(sb, "</code></td><td>");
		if (dir) {
			strbuf_append(sb, "<a href=\"");
			esc(sb, dir);
			strbuf_append(sb, "/bisect.json\">");
			esc(sb, json_string_value(json_object_get(b, "answer")) ?: "unfinished");
			strbuf_append(sb, "</a> (<a href=\"");
			esc(sb, dir);
			strbuf_append(sb, "/bisect.log\">log</a>, <a href=\"");
			esc(sb, dir);
			strbuf_append(sb, "/steps/\">steps</a>)");
		} else {
			strbuf_append(sb, "not bisected");
		}
		strbuf_append(sb, "</td><td><code>");
		esc(sb, json_string_value(json_object_get(b, "culprit")) ?: "-");
		strbuf_append(sb, "</code></td></tr>\n");
	}
	strbuf_append(sb, "</tbody></table>\n");
}

static void nightly_section(struct strbuf *sb, const json_t *docs, const json_t *charts)
{
	size_t i;
	const json_t *doc;

	if (!json_array_size(docs))
		return;
	strbuf_append(sb, "<section id=\"nightly\"><h2>Nightly</h2>\n<p class=\"legend\">Per "
			  "primary series the mean of each night's boots, oldest first; triangles: "
			  "change points (a windowed Welch test, the whole 95% interval beyond the "
			  "threshold).</p>\n");
	json_array_foreach(docs, i, doc) {
		strbuf_append(sb, "<h3>");
		esc(sb, json_string_value(json_object_get(doc, "job")));
		strbuf_append(sb, " &middot; ");
		esc(sb, json_string_value(json_object_get(doc, "variant")));
		strbuf_append(sb, " &middot; night ");
		esc(sb, json_string_value(json_object_get(doc, "night")));
		strbuf_append(sb, "</h3>\n");
		nightly_alarms(sb, doc);
	}
	strbuf_append(sb, "<div class=\"grid\">\n");
	dashboard_chart_figures(sb, charts, "nightly");
	strbuf_append(sb, "</div></section>\n");
}

/* ---- per-run panel ------------------------------------------------------------------- */

/* ---- the page -------------------------------------------------------------------------- */

static void head(struct strbuf *sb, const struct dashboard_input *in, const char *css,
		 int trend)
{
	strbuf_append(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			  "<meta http-equiv=\"Content-Security-Policy\" content=\"" CSP "\">\n"
			  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			  "<title>");
	esc(sb, in->title);
	strbuf_append(sb, "</title>\n<style>\n");
	strbuf_append(sb, css);
	strbuf_append(sb, "</style></head>\n<body data-status=\"loading\">\n<header><h1>");
	esc(sb, in->title);
	strbuf_appendf(sb, "</h1><p class=\"meta\">%zu report(s), %zu kernel variant(s), %zu "
			   "series.</p>\n<nav><a href=\"#ab\">A/B</a> <a href=\"#scaling\">scaling"
			   "</a>%s%s <a href=\"#reports\">reports</a> <a href=\"#runs\">runs</a></nav>"
			   "</header>\n",
		       in->set->nr_reports, in->set->nr_variants, in->set->nr_keys,
		       trend ? " <a href=\"#trend\">trend</a>" : "",
		       in->projections ? " <a href=\"#projection\">projection</a>" : "");
}

static void scripts(struct strbuf *sb, const json_t *charts, const struct dashboard_assets *a)
{
	_cleanup_free_ char *data = json_dumps(charts, JSON_COMPACT | JSON_SORT_KEYS);

	if (!data) {
		sb->err = sb->err ? sb->err : -ENOMEM;
		return;
	}
	strbuf_append(sb, "<noscript><p>The charts need JavaScript.</p></noscript>\n"
			  "<script type=\"application/json\" id=\"lab-data\">");
	html_script_json(sb, data);
	strbuf_append(sb, "</script>\n<script>\n");
	strbuf_append(sb, a->chart_js);
	strbuf_append(sb, "\n</script>\n<script>\n");
	strbuf_append(sb, a->errorbars_js);
	strbuf_append(sb, "\n</script>\n<script>\n");
	strbuf_append(sb, a->page_js);
	strbuf_append(sb, "\n</script>\n");
}

int dashboard_html(const struct dashboard_input *in, const struct dashboard_assets *a,
		   char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_json_ json_t *charts = NULL;

	if (!embeddable(a->chart_js, "</script") || !embeddable(a->errorbars_js, "</script") ||
	    !embeddable(a->page_js, "</script") || !embeddable(a->css, "</style"))
		return -EINVAL;
	charts = charts_json(in->set, in->projections);
	if (!charts)
		return -ENOMEM;
	if (in->nightly)
		nightly_specs(in->nightly, json_object_get(charts, "charts"));
	head(&sb, in, a->css, charts_distinct_dates(in->set) >= 2);
	nightly_section(&sb, in->nightly, json_object_get(charts, "charts"));
	ab_section(&sb, in);
	dashboard_charts_sections(&sb, json_object_get(charts, "charts"));
	dashboard_projections_section(&sb, in->projections);
	reports_section(&sb, in->set);
	dashboard_runs_section(&sb, in->set);
	scripts(&sb, charts, a);
	strbuf_append(&sb, "</body></html>\n");
	return strbuf_take(&sb, out);
}
