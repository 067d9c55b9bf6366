/* The dashboard's chart sections: see dashboard_charts.h. */
#include "analysis/dashboard_charts.h"

#include <stdio.h>
#include <string.h>

#include "analysis/format.h"
#include "analysis/html.h"
#include "util/cleanup.h"

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

void dashboard_params_legend(struct strbuf *sb, const json_t *changed, const json_t *all)
{
	_cleanup_free_ char *text = json_dumps(all, JSON_COMPACT | JSON_SORT_KEYS);
	const char *k;
	json_t *v;
	int first = 1;

	strbuf_append(sb, "<span class=\"params\" title=\"every parameter: ");
	html_escape(sb, text);
	strbuf_append(sb, "\">");
	if (!json_object_size(changed))
		strbuf_append(sb, "default parameters");
	json_object_foreach((json_t *)changed, k, v) {
		_cleanup_free_ char *val = json_is_string(v) ? NULL
							    : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		html_escapef(sb, "%s%s=%s", first ? "" : " ", k,
			     json_is_string(v) ? json_string_value(v) : val ? val : "?");
		first = 0;
	}
	strbuf_append(sb, "</span>");
}

static void caption(struct strbuf *sb, const json_t *spec)
{
	strbuf_append(sb, "<figcaption><b>");
	html_escape(sb, str(spec, "title"));
	strbuf_append(sb, "</b> ");
	/* a nightly series has none: its name says what it ran */
	if (json_object_get(spec, "changed"))
		dashboard_params_legend(sb, json_object_get(spec, "changed"),
					json_object_get(spec, "params"));
	if (json_is_true(json_object_get(spec, "projected")))
		strbuf_append(sb, " <span class=\"projection\">with a PROJECTION (dotted, not "
				  "measured)</span>");
	strbuf_append(sb, "<br><span class=\"topo\">");
	html_escape(sb, str(spec, "topology"));
	strbuf_append(sb, "</span> · ");
	html_escapef(sb, "%s, %s is better", str(spec, "unit"), str(spec, "better"));
	strbuf_append(sb, "</figcaption>");
}

static const char *num(char *buf, size_t len, const json_t *v)
{
	return json_is_number(v) ? format_number(buf, len, json_number_value(v), "%.4g",
						 "unbounded", "-unbounded")
				 : "-";
}

/* One task count: the means as a table (kernel, tasks, mean, 95% CI, n). */
static void table(struct strbuf *sb, const json_t *spec)
{
	size_t i;
	json_t *line;

	strbuf_append(sb, "<table class=\"one\"><thead><tr><th>kernel</th><th>tasks</th>"
			  "<th>mean</th><th>95% CI</th><th>n</th></tr></thead><tbody>\n");
	json_array_foreach(json_object_get(spec, "lines"), i, line) {
		const json_t *p = json_array_get(json_object_get(line, "points"), 0);
		char x[32], y[32], lo[32], hi[32];

		strbuf_append(sb, "<tr><td>");
		html_escape(sb, str(line, "label"));
		strbuf_appendf(sb, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>",
			       num(x, sizeof(x), json_object_get(p, "x")),
			       num(y, sizeof(y), json_object_get(p, "y")));
		if (json_is_number(json_object_get(p, "lo")))
			strbuf_appendf(sb, "<td class=\"n\">%s to %s</td>",
				       num(lo, sizeof(lo), json_object_get(p, "lo")),
				       num(hi, sizeof(hi), json_object_get(p, "hi")));
		else
			strbuf_append(sb, "<td class=\"n\">-</td>");
		strbuf_appendf(sb, "<td class=\"n\">%lld</td></tr>\n",
			       (long long)json_integer_value(json_object_get(p, "n")));
	}
	strbuf_append(sb, "</tbody></table>");
}

/* Shown unfolded: a primary metric's chart, and a chart with a projection on it (the one
 * place the projection is drawn beside its measured points; it decides nothing). */
static int unfolded(const json_t *c)
{
	return json_is_true(json_object_get(c, "primary")) ||
	       json_is_true(json_object_get(c, "projected"));
}

/* The figures of one kind; top 1 or 0: only the unfolded (or the folded) ones, -1: all. */
static size_t figures(struct strbuf *sb, const json_t *charts, const char *kind, int top)
{
	size_t i, n = 0;
	json_t *c;

	json_array_foreach(charts, i, c) {
		if (strcmp(str(c, "kind"), kind) || (top >= 0 && unfolded(c) != top))
			continue;
		n++;
		strbuf_append(sb, "<figure class=\"chart\">");
		caption(sb, c);
		if (!json_is_true(json_object_get(c, "table"))) {
			strbuf_append(sb, "<div class=\"box\"><canvas id=\"");
			html_escape(sb, str(c, "id"));
			strbuf_append(sb, "\"></canvas></div>");
		} else {
			table(sb, c);
		}
		strbuf_append(sb, "</figure>\n");
	}
	return n;
}

static size_t count(const json_t *charts, const char *kind, int top)
{
	size_t i, n = 0;
	json_t *c;

	json_array_foreach(charts, i, c)
		n += !strcmp(str(c, "kind"), kind) && unfolded(c) == top;
	return n;
}

void dashboard_chart_figures(struct strbuf *sb, const json_t *charts, const char *kind)
{
	figures(sb, charts, kind, -1);
}

/* The primary metrics' figures (and any with a projection) in a grid, the others folded under
 * them. */
static void kind_section(struct strbuf *sb, const json_t *charts, const char *kind)
{
	size_t others = count(charts, kind, 0);

	strbuf_append(sb, "<div class=\"grid\">\n");
	if (!figures(sb, charts, kind, 1))
		strbuf_append(sb, "<p class=\"note\">No primary metric in these reports.</p>\n");
	strbuf_append(sb, "</div>\n");
	if (!others)
		return;
	strbuf_appendf(sb, "<details class=\"other-charts\"><summary>Other metrics (%zu; they do "
			   "not decide a verdict)</summary>\n<div class=\"grid\">\n", others);
	figures(sb, charts, kind, 0);
	strbuf_append(sb, "</div></details>\n");
}

void dashboard_charts_sections(struct strbuf *sb, const json_t *charts)
{
	strbuf_append(sb, "<section id=\"scaling\"><h2>Scaling</h2>\n<p class=\"legend\">The "
			  "primary metrics (they decide a verdict), and any throughput with a "
			  "projection beside it (it does not): mean against task count, one "
			  "line per kernel; error bars: 95% CI of the mean (none with one sample). "
			  "A series of one task count is a table. Under each title: the parameters "
			  "that differ from the workload's defaults (hover for all).</p>\n");
	kind_section(sb, charts, "scaling");
	strbuf_append(sb, "</section>\n");
	if (!count(charts, "trend", 1) && !count(charts, "trend", 0))
		return;
	strbuf_append(sb, "<section id=\"trend\"><h2>Trend</h2>\n<p class=\"legend\">Mean per "
			  "report against the report's creation time, one line per kernel and task "
			  "count.</p>\n");
	kind_section(sb, charts, "trend");
	strbuf_append(sb, "</section>\n");
}

static void projection_row(struct strbuf *sb, const json_t *se)
{
	const json_t *p = json_object_get(se, "projection"), *m = json_object_get(se, "measured");
	const json_t *pts = json_object_get(p, "points"), *knee = json_object_get(p, "knee");
	const json_t *last = json_array_get(pts, json_array_size(pts) - 1);
	char a[32], b[32], c[32];

	strbuf_append(sb, "<tr><td>");
	html_escape(sb, str(se, "label"));
	strbuf_append(sb, "</td><td>");
	html_escape(sb, str(se, "workload"));
	if (!json_is_object(p)) {
		strbuf_append(sb, "</td><td colspan=\"3\">not projected: ");
		html_escape(sb, str(se, "why"));
		strbuf_append(sb, "</td></tr>\n");
		return;
	}
	strbuf_appendf(sb, "</td><td class=\"n\">%s / %s</td>",
		       num(a, sizeof(a), json_object_get(m, "insn_inside")),
		       num(b, sizeof(b), json_object_get(m, "insn_outside")));
	if (json_is_object(knee))
		strbuf_appendf(sb, "<td class=\"n\">%s [%s, %s]</td>",
			       num(a, sizeof(a), json_object_get(knee, "p50")),
			       num(b, sizeof(b), json_object_get(knee, "p5")),
			       num(c, sizeof(c), json_object_get(knee, "p95")));
	else
		strbuf_append(sb, "<td>none: a lock per task, nobody waits at it</td>");
	strbuf_appendf(sb, "<td class=\"n\">%s at %lld CPUs [%s, %s]</td></tr>\n",
		       num(a, sizeof(a), json_object_get(last, "speedup_p50")),
		       (long long)json_integer_value(json_object_get(last, "cpus")),
		       num(b, sizeof(b), json_object_get(last, "speedup_p5")),
		       num(c, sizeof(c), json_object_get(last, "speedup_p95")));
}

void dashboard_projections_section(struct strbuf *sb, const json_t *projections)
{
	const json_t *se, *first = NULL;
	size_t i;

	if (!projections)
		return;
	json_array_foreach(json_object_get(projections, "series"), i, se)
		if (json_is_object(first = json_object_get(se, "projection")))
			break;
	strbuf_append(sb, "<section id=\"projection\"><h2>Projection</h2>\n<p class=\"legend\">"
			  "PROJECTIONS, not measurements; they never enter a verdict. The "
			  "throughput of a workload whose cost is one shared spinlock, from the "
			  "instructions inside and outside it counted at ");
	html_escape(sb, str(projections, "site"));
	strbuf_append(sb, " in ");
	html_escape(sb, str(projections, "from"));
	strbuf_append(sb, " (1 task), by exact mean-value analysis to ");
	html_escape(sb, json_is_object(first) ? str(json_object_get(first, "inputs"), "target")
					      : "the target");
	strbuf_append(sb, "; bands 5-95 % over the priors' draws, not confidence intervals. "
			  "Dotted on the scaling charts of the series' throughputs (metrics in /s), "
			  "scaled to the measured 1-task mean.</p>\n"
			  "<table class=\"projection\"><thead><tr><th>kernel</th><th>workload</th>"
			  "<th>instructions inside / outside</th><th>knee (CPUs)</th>"
			  "<th>speed-up</th></tr></thead><tbody>\n");
	json_array_foreach(json_object_get(projections, "series"), i, se)
		projection_row(sb, se);
	strbuf_append(sb, "</tbody></table></section>\n");
}
