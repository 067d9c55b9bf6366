/* `lab show REPORT`: one report as text (lab/analysis/show.h), the `perf report --stdio` of
 * the lab: what ran, how each run ended, and the primary metrics per label and task count.
 * Pure. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/format.h"
#include "analysis/show.h"
#include "analysis/verdict.h"
#include "core/kwarn.h"
#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/text.h"

/* Labels shown side by side; a report of more is shown in groups of this many. */
#define SHOW_LABEL_COLS 3
#define SHOW_COL 16

static const char *str(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s && s[0] ? s : dflt;
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The NUMA cost model's preset, when the runs were charged with one. */
static void numa_header(struct strbuf *sb, const json_t *nc)
{
	char preset[80];

	if (!json_is_object(nc))
		return;
	text_clean_copy(preset, sizeof(preset), str(nc, "preset", "?"));
	strbuf_appendf(sb, "NUMA costs: preset %s, %g instruction-times a ns (sha256 %.12s)\n",
		       preset, num(nc, "ipns"), str(nc, "sha256", "?"));
}

/* What the NUMA cost plugin counted in a run. */
static void numa_run(struct strbuf *sb, const json_t *nc)
{
	if (!json_is_object(nc))
		return;
	strbuf_appendf(sb, "       NUMA: %.0f cache-line transfers (%.0f across nodes), %.0f "
		       "instruction-times charged\n", num(nc, "transfers_local") +
		       num(nc, "transfers_remote"), num(nc, "transfers_remote"), num(nc, "charged"));
}

static void header(struct strbuf *sb, const json_t *doc)
{
	const json_t *job = json_object_get(doc, "job"), *lab = json_object_get(doc, "lab");
	const json_t *runs = json_object_get(doc, "runs"), *r0 = json_array_get(runs, 0);
	const json_t *timing = json_object_get(json_object_get(r0, "host"), "timing");
	char id[128], name[128];

	text_clean_copy(id, sizeof(id), str(doc, "id", "?"));
	text_clean_copy(name, sizeof(name), str(job, "name", "?"));
	strbuf_appendf(sb, "report %s: job %s, %s, status %s\n", id, name,
		       str(doc, "created", "?"), str(doc, "status", "?"));
	/* the key (quantum-q1000) names a quantum too; older reports: the model or the accel */
	strbuf_appendf(sb, "timing model %s", r0 ? str(timing, "key", series_run_timing(r0)) : "-");
	if (lab)
		strbuf_appendf(sb, "; lab %s (commit %s)", str(lab, "version", "?"),
			       str(lab, "commit", "?"));
	strbuf_append(sb, "\n");
	numa_header(sb, json_object_get(timing, "numa_cost"));
}

/* A run's kernel warnings on one line under it, when it has any.  The report came through
 * series_add_report, which refuses one whose warnings core/kwarn.h does not accept: read here
 * again only to list them per run. */
static void run_warnings(struct strbuf *sb, const json_t *r, size_t i)
{
	struct kwarn_list l;
	char path[32];

	snprintf(path, sizeof(path), "runs[%zu]", i);
	if (kwarn_list_from_json(r, path, &l, NULL) == 0 && l.n) {
		strbuf_append(sb, "       kernel warnings:");
		for (unsigned k = 0; k < l.n; k++)
			strbuf_appendf(sb, "%s %s %s x%u", k ? "," : "",
				       kwarn_kind_name(l.items[k].kind), l.items[k].where,
				       l.items[k].count);
		if (l.dropped)
			strbuf_appendf(sb, "; %u more not listed", l.dropped);
		strbuf_append(sb, "\n");
	}
	kwarn_list_free(&l);
}

/* One line a run: index, label, status, boot and total seconds, the reason when not ok, its
 * kernel warnings when it has any. */
static void runs_table(struct strbuf *sb, const json_t *doc)
{
	const json_t *runs = json_object_get(doc, "runs"), *r;
	size_t i;

	strbuf_appendf(sb, "\n%zu run%s:\n  %3s  %-20s %-16s %7s %8s\n", json_array_size(runs),
		       json_array_size(runs) == 1 ? "" : "s", "run", "kernel", "status", "boot s",
		       "total s");
	json_array_foreach(runs, i, r) {
		const json_t *t = json_object_get(r, "timings");
		char lb[256], label[24], reason[160], b0[32], b1[32];

		text_clean_copy(label, sizeof(label), series_run_label(r, lb, sizeof(lb)));
		format_number(b0, sizeof(b0), num(t, "boot_s"), "%.1f", "inf", "-inf");
		format_number(b1, sizeof(b1), num(t, "total_s"), "%.1f", "inf", "-inf");
		strbuf_appendf(sb, "  %3zu  %-20s %-16s %7s %8s\n", i, label, str(r, "status", "?"),
			       b0, b1);
		numa_run(sb, json_object_get(r, "numa_cost"));
		if (strcmp(str(r, "status", ""), "ok")) {
			text_clean_copy(reason, sizeof(reason), str(r, "reason", ""));
			strbuf_appendf(sb, "       %s\n", reason);
		}
		run_warnings(sb, r, i);
	}
}

/* The mean over boots of variant v's series of key k (harmonic for rates), NAN without one. */
static double series_mean(const struct series_set *s, size_t k, size_t v)
{
	const struct series *x = series_get(s, k, v);
	_cleanup_free_ double *means = x && x->n ? calloc(x->n, sizeof(double)) : NULL;
	struct boot_stats bs;
	struct stats_summary sum;

	if (!means || boots_summarize(x->boot, x->v, x->n, boots_mean_kind(
				      s->groups[s->keys[k].group].unit, x->v, x->n), means, &bs,
				      &sum) < 0)
		return NAN;
	return sum.mean;
}

/* The primary metrics: a table under each workload, one column a label (SHOW_LABEL_COLS at
 * a time). */
static void metrics(struct strbuf *sb, const struct series_set *s, const size_t *keys)
{
	for (size_t v0 = 0; v0 < s->nr_variants; v0 += SHOW_LABEL_COLS) {
		size_t v1 = v0 + SHOW_LABEL_COLS < s->nr_variants ? v0 + SHOW_LABEL_COLS
								  : s->nr_variants;
		const struct series_what *last = NULL;

		for (size_t i = 0; i < s->nr_keys; i++) {
			size_t gi = s->keys[keys[i]].group;
			const struct series_what *g = &s->groups[gi];
			char b[32];

			if (!workload_metric_is_primary(g->workload, g->metric))
				continue;
			if (!last || strcmp(last->topology, g->topology) ||
			    strcmp(last->workload, g->workload) ||
			    strcmp(last->params_text, g->params_text)) {
				strbuf_append(sb, "\n");
				compare_heading(sb, g, 0);
				strbuf_appendf(sb, "%5s %-22s", "tasks", "metric (mean of boots)");
				for (size_t v = v0; v < v1; v++)
					strbuf_appendf(sb, " %*.*s", SHOW_COL, SHOW_COL,
						       s->variants[v].label);
				strbuf_append(sb, "\n");
				last = g;
			}
			strbuf_appendf(sb, "%5u %-22.22s", s->keys[keys[i]].tasks, g->metric);
			for (size_t v = v0; v < v1; v++)
				strbuf_appendf(sb, " %*s", SHOW_COL,
					       format_number(b, sizeof(b), series_mean(s, keys[i], v),
							     "%.4g", "inf", "-inf"));
			strbuf_append(sb, "\n");
		}
	}
}

int show_report(const json_t *doc, const struct series_set *s, struct strbuf *sb)
{
	_cleanup_free_ size_t *keys = series_sorted_keys(s);

	if (!keys && s->nr_keys)
		return -ENOMEM;
	header(sb, doc);
	runs_table(sb, doc);
	if (s->nr_keys)
		metrics(sb, s, keys);
	else
		strbuf_append(sb, "\nno figures: no run reported a workload result\n");
	return 0;
}
