/* The text tables of `lab history` and `lab history series` (rows.h).  Pure.  Every string
 * from a report went through text_clean_copy, so none can move a terminal's cursor. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analysis/format.h"
#include "history/rows.h"
#include "util/cleanup.h"
#include "util/strbuf.h"
#include "util/text.h"

/* The distinct values of one run field, comma-separated in order of first appearance. */
static void run_values(const struct history_report *r, size_t off, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->nr_runs; i++) {
		const char *v = (const char *)&r->runs[i] + off;
		int seen = 0;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(v, (const char *)&r->runs[k] + off);
		if (!seen && v[0] && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", v);
	}
}

static int width(const struct history_report *r, size_t n, size_t off, int min)
{
	int w = min;

	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen((const char *)&r[i] + off);

		w = l > w ? l : w;
	}
	return w;
}

int history_list_text(const struct history_report *r, size_t n, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	int wid = width(r, n, offsetof(struct history_report, id), 2);
	int wjob = width(r, n, offsetof(struct history_report, job), 3);
	int wst = width(r, n, offsetof(struct history_report, status), 6);

	strbuf_appendf(&sb, "%-20s  %-*s  %-*s  %-*s  %4s  %-7s  %s\n", "created", wid, "id", wjob,
		       "job", wst, "status", "runs", "timing", "kernels  report");
	for (size_t i = 0; i < n; i++) {
		char kernels[512], timing[128], path[PATH_MAX];

		run_values(&r[i], offsetof(struct history_run, kernel), kernels, sizeof(kernels));
		run_values(&r[i], offsetof(struct history_run, timing), timing, sizeof(timing));
		/* The path is the file system's, kept exact for JSON: cleaned here. */
		text_clean_copy(path, sizeof(path), r[i].path ? r[i].path : "");
		strbuf_appendf(&sb, "%-20s  %-*s  %-*s  %-*s  %4zu  %-7s  %s  %s\n", r[i].created,
			       wid, r[i].id, wjob, r[i].job, wst, r[i].status, r[i].nr_runs,
			       timing[0] ? timing : "-", kernels[0] ? kernels : "-", path);
	}
	return strbuf_take(&sb, out);
}

static const char *fmt_num(char *buf, size_t len, double v)
{
	return format_number(buf, len, v, "%.6g", "inf", "-inf");
}

static const char *fmt_pct(char *buf, size_t len, double v)
{
	return format_number(buf, len, 100 * v, "%.2f%%", "inf", "-inf");
}

static void group_head(struct strbuf *sb, const struct history_point *p)
{
	const struct history_key *k = &p->s.key;
	enum modelfit fit;
	char why[512];

	strbuf_appendf(sb, "%s %s on %s, %u tasks, %s (%s, %s is better%s), %s\n", k->workload,
		       k->params ? k->params : "{}", k->topology, k->tasks, k->metric, k->unit,
		       k->higher ? "higher" : "lower", k->primary ? ", primary" : "", p->s.timing);
	fit = history_point_fit(p, why, sizeof(why));
	if (fit == MODELFIT_OUTSIDE)
		strbuf_appendf(sb, "  outside this model: %s; its means say nothing of it\n", why);
	else if (fit == MODELFIT_PARTLY)
		strbuf_appendf(sb, "  partly outside this model: %s; a change is real, a flat line "
			       "is not \"no change\"\n", why);
	strbuf_appendf(sb, "  %-20s  %-16s  %5s  %12s  %10s  %10s  %s\n", "created", "kernel",
		       "boots", "mean", "cv between", "cv within", "report");
}

int history_points_text(const struct history_point *p, size_t n, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		char m[32], cb[32], cw[32];

		if (i == 0 || !history_point_same_series(&p[i - 1], &p[i]))
			group_head(&sb, &p[i]);
		strbuf_appendf(&sb, "  %-20s  %-16s  %5zu  %12s  %10s  %10s  %s\n", p[i].created,
			       p[i].s.kernel, p[i].s.boots, fmt_num(m, sizeof(m), p[i].s.mean),
			       fmt_pct(cb, sizeof(cb), p[i].s.cv_between),
			       fmt_pct(cw, sizeof(cw), p[i].s.cv_within), p[i].report_id);
	}
	return strbuf_take(&sb, out);
}
