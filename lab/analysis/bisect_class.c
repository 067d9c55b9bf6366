/* One bisection measurement against the ends: see bisect_class.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bisect_class.h"
#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/strbuf.h"

size_t bclass_variant(const struct series_set *s, const char *label)
{
	for (size_t i = 0; i < s->nr_variants; i++)
		if (!strcmp(s->variants[i].label, label))
			return i;
	return (size_t)-1;
}

/* What the reports measured, for an error about a pick that is not there. */
static void list_metrics(const struct series_set *s, const char *workload, struct strbuf *sb)
{
	for (size_t g = 0; g < s->nr_groups; g++) {
		const struct series_what *w = &s->groups[g];
		int seen = 0;

		if (workload && strcmp(w->workload, workload))
			continue;
		for (size_t h = 0; h < g && !seen; h++)
			seen = !strcmp(s->groups[h].workload, w->workload) &&
			       !strcmp(s->groups[h].metric, w->metric);
		if (!seen)
			strbuf_appendf(sb, "%s%s.%s", sb->len ? ", " : "", w->workload, w->metric);
	}
}

int bclass_find_key(const struct series_set *s, const struct bclass_pick *pick, size_t *key,
		    struct lab_error *err)
{
	const char *wl = pick->workload, *metric = pick->metric;
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	size_t best = (size_t)-1, nprim = 0;
	long group = -1;

	if (!s->nr_groups) {
		error_set(err, "", "the reports have no workload results");
		return -ENOENT;
	}
	if (!wl)
		wl = s->groups[0].workload;
	if (!metric) {
		const struct workload_metric *p = workload_primary(wl, &nprim);

		if (!p || !nprim) {
			error_set(err, "", "workload %s has no primary metric", wl);
			return -ENOENT;
		}
		metric = p[0].name;
	}
	for (size_t g = 0; g < s->nr_groups && group < 0; g++)
		if (!strcmp(s->groups[g].workload, wl) && !strcmp(s->groups[g].metric, metric))
			group = (long)g;
	if (group < 0) {
		list_metrics(s, NULL, &sb);
		error_set(err, "", "the reports have no %s.%s; they have: %s", wl, metric,
			  sb.len ? sb.buf : "nothing");
		return -ENOENT;
	}
	for (size_t k = 0; k < s->nr_keys; k++) {
		const struct series_key *sk = &s->keys[k];

		if (sk->group != (size_t)group || (pick->tasks && sk->tasks != pick->tasks))
			continue;
		if (best == (size_t)-1 || sk->tasks > s->keys[best].tasks)
			best = k;
	}
	if (best == (size_t)-1) {
		for (size_t k = 0; k < s->nr_keys; k++)
			if (s->keys[k].group == (size_t)group)
				strbuf_appendf(&sb, "%s%u", sb.len ? ", " : "", s->keys[k].tasks);
		error_set(err, "", "%s.%s was not measured with %u tasks; it was with %s", wl,
			  metric, pick->tasks, sb.len ? sb.buf : "none");
		return -ENOENT;
	}
	*key = best;
	return 0;
}

int bclass_diff(const struct series_set *s, size_t key, size_t va, size_t vb,
		double threshold_pct, struct bclass_diff *out, struct lab_error *err)
{
	struct comparison c;
	struct verdict_input in;
	int r, found = 0;

	memset(out, 0, sizeof(*out));
	if (!series_get(s, key, va) || !series_get(s, key, vb))
		return -ENOENT;
	if ((r = compare_variants(s, va, vb, threshold_pct, 0, &c, err)) < 0)
		return r;
	for (size_t i = 0; i < c.nr_rows && !found; i++)
		if (c.rows[i].key == key) {
			out->row = c.rows[i];
			found = 1;
		}
	compare_free(&c);
	if (!found)
		return -ENOENT;
	/* This series alone is tested: its q is its p. */
	in = (struct verdict_input){ .tested = out->row.tested, .change_pct = out->row.change_pct,
				     .ci_lo_pct = out->row.ci_pct_lo,
				     .ci_hi_pct = out->row.ci_pct_hi,
				     .q = out->row.tested ? out->row.d.p : NAN };
	out->verdict = verdict_decide(&in, threshold_pct);
	out->raw_pct = out->row.a.mean != 0
			       ? (out->row.b.mean - out->row.a.mean) / fabs(out->row.a.mean) * 100
			       : NAN;
	out->dir = out->row.change_pct > 0 ? 1 : out->row.change_pct < 0 ? -1 : 0;
	return 0;
}

/* The change lies beyond the threshold, in direction dir (+1 better, -1 worse). */
static int beyond(const struct bclass_diff *d, int dir)
{
	return d->verdict == (dir > 0 ? VERDICT_IMPROVEMENT : VERDICT_REGRESSION);
}

enum bisect_class bclass_end(const struct bclass_diff *bad_vs_good)
{
	if (beyond(bad_vs_good, 1) || beyond(bad_vs_good, -1))
		return BISECT_CLASS_BAD;
	return bad_vs_good->verdict == VERDICT_NO_CHANGE ? BISECT_CLASS_GOOD
							 : BISECT_CLASS_INCONCLUSIVE;
}

enum bisect_class bclass_commit(const struct bclass_diff *vs_good, const struct bclass_diff *vs_bad,
				int dir)
{
	int like_bad = beyond(vs_good, dir), like_good = beyond(vs_bad, -dir);

	if (dir == 0 || like_bad == like_good)
		return BISECT_CLASS_INCONCLUSIVE;
	return like_bad ? BISECT_CLASS_BAD : BISECT_CLASS_GOOD;
}

int bclass_boot_values(const struct series_set *s, size_t key, size_t v, double **out, size_t *n)
{
	const struct series *se = series_get(s, key, v);
	const struct series_what *g = &s->groups[s->keys[key].group];
	struct boot_stats st;
	double *m;
	int r;

	*out = NULL;
	*n = 0;
	if (!se || !se->n)
		return 0;
	if (!(m = malloc(se->n * sizeof(*m))))
		return -ENOMEM;
	r = boots_aggregate(se->boot, se->v, se->n, boots_mean_kind(g->unit, se->v, se->n), m, &st);
	if (r < 0) {
		free(m);
		return r;
	}
	*out = m;
	*n = st.boots;
	return 0;
}

/* {"culprit_deltas_absent": why}: the bisection's document says why it has no deltas rather
 * than leaving a reader to guess whether they were looked for. */
static int culprit_absent(json_t **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int culprit_absent(json_t **out, const char *fmt, ...)
{
	char why[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	*out = json_pack("{s:s}", "culprit_deltas_absent", why);
	return *out ? 0 : -ENOMEM;
}

int bclass_culprit_deltas(const struct series_set *s, size_t parent, size_t culprit,
			  const struct bclass_pick *pick, json_t **out, struct strbuf *text)
{
	struct lab_error err = { 0 };
	struct comparison c;
	const struct deltas_workload *w;
	char msg[sizeof(err.file) + sizeof(err.path) + sizeof(err.msg) + 8];
	json_t *d;
	size_t key;
	int r;

	*out = NULL;
	if (parent >= s->nr_variants || culprit >= s->nr_variants)
		return culprit_absent(out, "%s was not measured",
				      parent >= s->nr_variants ? "the culprit's parent"
							       : "the culprit");
	if (bclass_find_key(s, pick, &key, &err) < 0) {
		error_format(&err, msg, sizeof(msg));
		return culprit_absent(out, "%s", msg);
	}
	/* The threshold decides the rows' verdicts only; the deltas do not depend on it. */
	r = compare_variants(s, parent, culprit, COMPARE_DEFAULT_THRESHOLD_PCT, 0, &c, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		return culprit_absent(out, "the culprit cannot be compared with its parent: %s",
				      msg);
	}
	w = compare_deltas_of(&c, &s->groups[s->keys[key].group]);
	if (!w) {
		r = culprit_absent(out, "no deltas were read for %s", s->groups[s->keys[key].group]
								   .workload);
		compare_free(&c);
		return r;
	}
	d = deltas_json(w);
	if (d && json_object_set_new(d, "against", json_string("the culprit's parent")) == 0)
		*out = json_pack("{s:o}", "culprit_deltas", d);
	else
		json_decref(d);
	if (*out && text && deltas_any(w)) {
		deltas_text(text, w, 0);
		strbuf_append(text, "  (A: the culprit's parent, B: the culprit)\n");
	}
	compare_free(&c);
	return *out && (!text || !text->err) ? 0 : -ENOMEM;
}
