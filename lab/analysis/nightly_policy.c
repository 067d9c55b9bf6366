/* `lab nightly`'s decisions: see nightly_policy.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/modelfit.h"
#include "analysis/nightly_policy.h"
#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/sha256.h"

/* Change points of one series the report lists at most. */
#define REPORT_POINTS 16

/* The ledger's ok nights of this job and variant (indexes), tonight last. */
static size_t nights_of(const struct nightly_ledger *l, const char *job, const char *variant,
			size_t *idx)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct nightly_night *n = &l->nights[i];

		if (n->ok && !strcmp(n->job, job) && !strcmp(n->variant, variant))
			idx[k++] = i;
	}
	return k;
}

int npolicy_init(struct npolicy *p, const struct nightly_cfg *cfg, struct nightly_ledger *l,
		 const char *job, const char *variant)
{
	*p = (struct npolicy){ .cfg = cfg, .ledger = l, .idx = calloc(l->n + 1, sizeof(*p->idx)),
			       .suspects = json_array(), .confirmations = json_array(),
			       .alarms = json_array() };
	if (!p->idx || !p->suspects || !p->confirmations || !p->alarms) {
		npolicy_free(p);
		return -ENOMEM;
	}
	p->n = nights_of(l, job, variant, p->idx);
	return 0;
}

void npolicy_free(struct npolicy *p)
{
	free(p->idx);
	free(p->outside);
	json_decref(p->suspects);
	json_decref(p->confirmations);
	json_decref(p->alarms);
	memset(p, 0, sizeof(*p));
}

void npolicy_night_label(size_t k, char *buf, size_t len)
{
	snprintf(buf, len, "%zu", k);
}

/* A series' identity in the ledger: short, and the same every night. */
static void series_id(const struct series_set *s, size_t key, char *buf, size_t len)
{
	const struct series_what *g = &s->groups[s->keys[key].group];
	char name[1024], hex[65];

	series_key_name(s, key, name, sizeof(name));
	sha256_hex(name, strlen(name), hex);
	snprintf(buf, len, "%s.%s@%u#%.8s", g->workload, g->metric, s->keys[key].tasks, hex);
}

/* ---- the series of nights ------------------------------------------------------------------ */

/* One series over the nights: each night's per-boot values (night k is labelled "k" in s),
 * and the change-point configuration both the suspects and the report's change points use. */
struct night_series {
	struct cp_night *nights;
	double **vals;
	size_t n;
	struct cp_config cfg;
};

static void night_series_free(struct night_series *ns)
{
	for (size_t k = 0; ns->vals && k < ns->n; k++)
		free(ns->vals[k]);
	free(ns->vals);
	free(ns->nights);
}

static int night_series_get(const struct npolicy *p, size_t key, struct night_series *ns)
{
	const struct series_set *s = p->s;
	const struct series_what *g = &s->groups[s->keys[key].group];
	size_t n = p->n;
	int r = 0;

	*ns = (struct night_series){ .nights = calloc(n + 1, sizeof(*ns->nights)),
				     .vals = calloc(n + 1, sizeof(*ns->vals)), .n = n,
				     .cfg = { .window = p->cfg->window,
					      .threshold_pct = p->cfg->threshold_pct,
					      .higher = g->higher, .kind = STATS_ARITHMETIC } };
	if (series_unit_is_rate(g->unit))
		ns->cfg.kind = STATS_HARMONIC;
	if (!ns->nights || !ns->vals) {
		night_series_free(ns);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n && r == 0; k++) {
		char label[32];
		size_t v;

		npolicy_night_label(k, label, sizeof(label));
		v = bclass_variant(s, label);
		if (v != (size_t)-1)
			r = bclass_boot_values(s, key, v, &ns->vals[k], &ns->nights[k].n);
		ns->nights[k].v = ns->vals[k];
		/* A rate with a zero boot cannot be on the reciprocal scale. */
		for (size_t b = 0; b < ns->nights[k].n; b++)
			if (!(ns->vals[k][b] > 0))
				ns->cfg.kind = STATS_ARITHMETIC;
	}
	if (r < 0)
		night_series_free(ns);
	return r;
}

/* Whether the nights' timing model can show what series key depends on (analysis/
 * modelfit.h): the model the nights ran under (the configuration's when they differ or none
 * is known), on the fewest host CPUs any of them had. */
static enum modelfit key_fit(const struct npolicy *p, size_t key, char *why, size_t len)
{
	const struct series_set *s = p->s;
	const struct series_what *g = &s->groups[s->keys[key].group];
	const char *timing = NULL;
	unsigned cpus = 0;

	for (size_t v = 0; v < s->nr_variants; v++) {
		const char *t = series_variant_timing(&s->variants[v]);
		unsigned h = s->variants[v].host_cpus;

		if (t && timing && strcmp(t, timing))
			timing = p->cfg->timing;
		else if (t && !timing)
			timing = t;
		cpus = h && (!cpus || h < cpus) ? h : cpus;
	}
	return modelfit_series(timing ? timing : p->cfg->timing, cpus, g->workload, g->params,
			       g->metric, s->keys[key].tasks, why, len);
}

/* cp_suspects for one series over the nights; appends to p->sus. */
static int series_suspects(struct npolicy *p, size_t key)
{
	_cleanup_free_ unsigned *tries = calloc(p->n + 1, sizeof(*tries));
	struct cp_change out[NPOLICY_MAX_SUSPECTS];
	struct night_series ns;
	char id[200];
	size_t found = 0;
	int r;

	if (!tries)
		return -ENOMEM;
	if ((r = night_series_get(p, key, &ns)) < 0)
		return r;
	series_id(p->s, key, id, sizeof(id));
	for (size_t k = 0; k < p->n; k++)
		tries[k] = nightly_tries_get(&p->ledger->nights[p->idx[k]], id);
	r = cp_suspects(ns.nights, p->n, &ns.cfg, tries, out, NPOLICY_MAX_SUSPECTS, &found);
	for (size_t k = 0; r == 0 && k < found && p->nsus < NPOLICY_MAX_SUSPECTS; k++) {
		struct npolicy_suspect *su = &p->sus[p->nsus++];

		*su = (struct npolicy_suspect){ .key = key, .night = out[k].at, .ch = out[k] };
		series_key_name(p->s, key, su->name, sizeof(su->name));
		snprintf(su->id, sizeof(su->id), "%s", id);
	}
	night_series_free(&ns);
	return r;
}

/* The suspect nights, each once, in the order their first suspect came; the first night has
 * none before it to be measured against. */
static void plan_confirmations(struct npolicy *p)
{
	for (size_t k = 0; k < p->nsus; k++) {
		size_t j = p->sus[k].night, first = k;

		for (size_t m = 0; m < k; m++)
			if (p->sus[m].night == j)
				first = m;
		if (first == k && j != 0)
			p->confirm[p->nconfirm++] = j;
	}
}

int npolicy_search(struct npolicy *p, const struct series_set *s)
{
	int r = 0;

	p->s = s;
	if (!(p->outside = calloc(s->nr_keys + 1, sizeof(*p->outside))))
		return -ENOMEM;
	for (size_t key = 0; key < s->nr_keys && r == 0; key++) {
		const struct series_what *g = &s->groups[s->keys[key].group];
		struct npolicy_outside *o = &p->outside[p->nout];

		if (!workload_metric_is_primary(g->workload, g->metric))
			continue;
		/* A series the model cannot show is not searched: what moves it there is not what
		 * it measures, and a quiet one is no evidence of no change. */
		if (key_fit(p, key, o->why, sizeof(o->why)) == MODELFIT_OUTSIDE) {
			o->key = key;
			p->nout++;
			p->counts.outside++;
			continue;
		}
		r = series_suspects(p, key);
	}
	if (r == 0)
		plan_confirmations(p);
	return r;
}

/* ---- confirmation ------------------------------------------------------------------------ */

json_t *npolicy_confirm_get(struct npolicy *p, size_t k, struct npolicy_confirm *c)
{
	size_t j = p->confirm[k];
	json_t *conf;

	*c = (struct npolicy_confirm){ .night = j, .good = &p->ledger->nights[p->idx[j - 1]],
				       .bad = &p->ledger->nights[p->idx[j]] };
	snprintf(c->good_label, sizeof(c->good_label), "good-%.12s", c->good->commit);
	snprintf(c->bad_label, sizeof(c->bad_label), "suspect-%.12s", c->bad->commit);
	c->same_kernel = !strcmp(c->good->commit, c->bad->commit);
	p->counts.suspects++;
	for (size_t m = 0; c->same_kernel && m < p->nsus; m++)
		if (p->sus[m].night == j)
			snprintf(p->sus[m].why, sizeof(p->sus[m].why), "the same kernel as the "
				 "night before (%.12s): not a kernel change", c->bad->commit);
	conf = json_pack("{s:s, s:s}", "night", c->bad->night, "against", c->good->night);
	if (conf && json_array_append_new(p->confirmations, conf) < 0)
		return NULL;
	return conf;
}

/* The key of the series called name in s, or s->nr_keys. */
static size_t key_named(const struct series_set *s, const char *name)
{
	char have[1024];
	size_t key;

	for (key = 0; key < s->nr_keys; key++) {
		series_key_name(s, key, have, sizeof(have));
		if (!strcmp(have, name))
			break;
	}
	return key;
}

void npolicy_confirm_judge(struct npolicy *p, const struct npolicy_confirm *c,
			   const struct series_set *s)
{
	size_t ia = bclass_variant(s, c->good_label), ib = bclass_variant(s, c->bad_label);

	for (size_t k = 0; k < p->nsus; k++) {
		struct npolicy_suspect *su = &p->sus[k];
		struct lab_error err = { 0 };
		size_t key;

		if (su->night != c->night)
			continue;
		key = key_named(s, su->name);
		if (key == s->nr_keys || ia == (size_t)-1 || ib == (size_t)-1 ||
		    bclass_diff(s, key, ia, ib, p->cfg->threshold_pct, &su->d, &err) < 0) {
			snprintf(su->why, sizeof(su->why),
				 "the confirmation measured no %s on both sides", su->id);
			continue;
		}
		su->confirmed = su->d.verdict == VERDICT_REGRESSION ||
				su->d.verdict == VERDICT_IMPROVEMENT;
		snprintf(su->why, sizeof(su->why), "side by side: %+.2f %% [%+.2f, %+.2f] (%s)",
			 su->d.row.change_pct, su->d.row.ci_pct_lo, su->d.row.ci_pct_hi,
			 verdict_name(su->d.verdict));
	}
}

/* ---- the verdicts -------------------------------------------------------------------------- */

/* by: what named a change point of a series ("search", "confirmation"); NULL in a suspect's
 * fast check. */
static json_t *change_json(const struct cp_change *ch, const char *by)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:s, s:s*}",
			 "at", (json_int_t)ch->at, "before", ch->before, "after", ch->after,
			 "change_pct", ch->change_pct, "ci_lo_pct", isfinite(ch->ci_lo_pct)
			 ? ch->ci_lo_pct : 0.0, "ci_hi_pct", isfinite(ch->ci_hi_pct)
			 ? ch->ci_hi_pct : 0.0, "p", ch->p, "boots_before",
			 (json_int_t)ch->boots_before, "boots_after", (json_int_t)ch->boots_after,
			 "verdict", verdict_name(ch->verdict), "by", by);
}

static json_t *suspect_json(const struct npolicy_suspect *su, const struct nightly_night *night)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:b, s:s, s:s?}", "series", su->name, "id",
			 su->id, "night", night->night, "commit", night->commit, "fast_check",
			 change_json(&su->ch, NULL), "confirmed", su->confirmed, "why", su->why,
			 "verdict", su->confirmed ? verdict_name(su->d.verdict) : NULL);
}

void npolicy_settle(struct npolicy *p, size_t k, struct npolicy_alarm *a)
{
	const struct npolicy_suspect *su = &p->sus[k];
	struct nightly_night *night = &p->ledger->nights[p->idx[su->night]];

	*a = (struct npolicy_alarm){ .bad = night };
	json_array_append_new(p->suspects, suspect_json(su, night));
	/* Unless the night counts NIGHTLY_MAX_SERIES series already: then this one is not
	 * counted, and the change-point scan may name it again. */
	nightly_tries_add(night, su->id);
	if (!su->confirmed)
		return;
	p->counts.confirmed++;
	if (su->d.verdict != VERDICT_REGRESSION)
		return;
	p->counts.regressions++;
	a->regression = 1;
	a->good = &p->ledger->nights[p->idx[su->night - 1]];
	a->alarm = json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f}", "series", su->name, "night",
			     night->night, "commit", night->commit, "last_good", a->good->commit,
			     "change_pct", su->d.row.change_pct, "ci_lo_pct", su->d.row.ci_pct_lo,
			     "ci_hi_pct", su->d.row.ci_pct_hi);
	/* A night's first alarm (raised tonight or a night before) is the one its ledger entry
	 * keeps, and the only one bisected. */
	a->bisect = p->cfg->bisect && !night->alarm;
	if (!night->alarm)
		night->alarm = json_incref(a->alarm);
	if (json_array_append_new(p->alarms, a->alarm) < 0)
		a->alarm = NULL;
}

void npolicy_bisect_params(const struct npolicy *p, size_t k, struct bisect_params *bp)
{
	const struct npolicy_suspect *su = &p->sus[k];
	const struct series_what *g = &p->s->groups[p->s->keys[su->key].group];
	const char *good = p->ledger->nights[p->idx[su->night - 1]].commit;
	const char *bad = p->ledger->nights[p->idx[su->night]].commit;

	*bp = (struct bisect_params){ .threshold_pct = p->cfg->threshold_pct,
				      .boots = p->cfg->bisect_boots,
				      .max_tries = p->cfg->bisect_tries,
				      .check_revert = p->cfg->bisect_revert,
				      .parallel = p->cfg->parallel,
				      .tasks = p->s->keys[su->key].tasks };
	snprintf(bp->good_ref, sizeof(bp->good_ref), "%s", good);
	snprintf(bp->bad_ref, sizeof(bp->bad_ref), "%s", bad);
	snprintf(bp->good, sizeof(bp->good), "%s", good);
	snprintf(bp->bad, sizeof(bp->bad), "%s", bad);
	snprintf(bp->workload, sizeof(bp->workload), "%s", g->workload);
	snprintf(bp->metric, sizeof(bp->metric), "%s", g->metric);
	snprintf(bp->timing, sizeof(bp->timing), "%s", p->cfg->timing);
}

int npolicy_bisected(struct npolicy *p, json_t *alarm, const struct npolicy_bisection *b)
{
	const char *answer = b->r == 0 && b->answer != BISECT_ANSWER_NONE
			     ? bisect_answer_name(b->answer) : NULL;

	json_object_set_new(alarm, "bisect", json_pack("{s:s, s:s?, s:s?, s:s}", "dir", b->dir,
		"answer", answer, "culprit", b->culprit[0] ? b->culprit : NULL,
		"reason", b->r == 0 ? b->reason : b->error));
	if (b->r == 0 && b->answer == BISECT_ANSWER_FOUND) {
		p->counts.bisected++;
		if (!p->counts.culprit[0])
			snprintf(p->counts.culprit, sizeof(p->counts.culprit), "%s", b->culprit);
	}
	/* A bisection that could not finish leaves the alarm standing; the night goes on. */
	return b->r == -EINTR || b->r == -ENOMEM ? b->r : 0;
}

/* ---- the report's series ------------------------------------------------------------------- */

/* Each night's mean of the series. */
static json_t *nights_json(const struct npolicy *p, const struct night_series *ns)
{
	json_t *nights = json_array();

	for (size_t k = 0; nights && k < p->n; k++) {
		const struct nightly_night *ni = &p->ledger->nights[p->idx[k]];
		const struct cp_night *cn = &ns->nights[k];
		struct stats_summary sum;
		int have = cn->n && stats_summarize(cn->v, cn->n, ns->cfg.kind, &sum) == 0;

		json_array_append_new(nights, json_pack("{s:s, s:s, s:o, s:I}", "night", ni->night,
			"commit", ni->commit, "mean", have ? json_real(sum.mean) : json_null(),
			"boots", (json_int_t)cn->n));
	}
	return nights;
}

/* The change points of series key: the windowed search's, and every confirmed suspect of the
 * series the search did not name.  The search adjusts for every night it tests, so a change on
 * tonight, with only tonight's few boots after it, can be too weak for it while the fast check
 * (one test) flagged it and the side-by-side run confirmed it: a measured change all the same,
 * drawn where it is.  Such a point carries the confirmation's figures. */
static json_t *change_points_json(const struct npolicy *p, size_t key,
				  const struct night_series *ns)
{
	struct cp_change out[REPORT_POINTS];
	json_t *pts = json_array();
	size_t found = 0;

	if (cp_detect(ns->nights, p->n, &ns->cfg, out, REPORT_POINTS, &found) < 0)
		found = 0;
	for (size_t k = 0; pts && k < found && k < REPORT_POINTS; k++)
		json_array_append_new(pts, change_json(&out[k], "search"));
	for (size_t i = 0; pts && i < p->nsus; i++) {
		const struct npolicy_suspect *su = &p->sus[i];
		struct cp_change c = su->ch;
		size_t k;

		if (su->key != key || !su->confirmed)
			continue;
		for (k = 0; k < found && k < REPORT_POINTS && out[k].at != su->night; k++)
			;
		if (k < found && k < REPORT_POINTS)
			continue;
		c.at = su->night;
		c.before = su->d.row.a.mean;
		c.after = su->d.row.b.mean;
		c.boots_before = su->d.row.a.n;
		c.boots_after = su->d.row.b.n;
		c.change_pct = su->d.row.change_pct;
		c.ci_lo_pct = su->d.row.ci_pct_lo;
		c.ci_hi_pct = su->d.row.ci_pct_hi;
		c.p = su->d.row.d.p;
		c.verdict = su->d.verdict;
		json_array_append_new(pts, change_json(&c, "confirmation"));
	}
	return pts;
}

static json_t *one_series_json(const struct npolicy *p, size_t key, struct night_series *ns)
{
	const struct series_what *g = &p->s->groups[p->s->keys[key].group];
	char name[1024], id[200], why[512];
	enum modelfit fit;
	json_t *pts;

	/* Blind to the series: no change point is looked for, none is "no change". */
	fit = key_fit(p, key, why, sizeof(why));
	pts = fit == MODELFIT_OUTSIDE ? json_array() : change_points_json(p, key, ns);
	series_key_name(p->s, key, name, sizeof(name));
	series_id(p->s, key, id, sizeof(id));
	return json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:s, s:s?}", "name", name, "id", id,
			 "unit", g->unit, "higher", g->higher, "nights", nights_json(p, ns),
			 "change_points", pts, "model_fit", modelfit_name(fit), "outside_model",
			 why[0] ? why : NULL);
}

json_t *npolicy_series_json(const struct npolicy *p)
{
	json_t *a = json_array();

	for (size_t key = 0; a && p->s && key < p->s->nr_keys; key++) {
		const struct series_what *g = &p->s->groups[p->s->keys[key].group];
		struct night_series ns;

		if (!workload_metric_is_primary(g->workload, g->metric) ||
		    night_series_get(p, key, &ns) < 0)
			continue;
		json_array_append_new(a, one_series_json(p, key, &ns));
		night_series_free(&ns);
	}
	return a;
}

int npolicy_night_ok(const json_t *report)
{
	json_t *run;
	size_t i;

	json_array_foreach(json_object_get(report, "runs"), i, run)
		if (!strcmp(json_string_value(json_object_get(run, "status")) ?: "", "ok"))
			return 1;
	return 0;
}
