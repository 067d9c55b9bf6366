/* `lab nightly`: see nightly.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/bisect_class.h"
#include "analysis/changepoint.h"
#include "analysis/modelfit.h"
#include "analysis/series.h"
#include "proto/workload.h"
#include "regress/bisect.h"
#include "regress/git.h"
#include "regress/nightly.h"
#include "regress/trial.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"

#define LEDGER_MAX (64u << 20)
#define REPORT_MAX (64u << 20)
/* Suspects one job's night confirms at most (each costs a side-by-side run). */
#define MAX_SUSPECTS 8

struct nctx {
	const struct nightly_opts *o;
	const struct nightly_cfg *cfg;
	struct nightly_ledger ledger;
	char night[32];
	char *msg;
	size_t len;
	struct nightly_summary *sum;
};

static void progress(struct nctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct nctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	progress_vemit(c->o->env.progress, c->o->env.progress_ud, fmt, ap);
	va_end(ap);
}

static int load_ledger(struct nctx *c)
{
	_cleanup_free_ char *path = fs_join(c->o->out, "ledger.json");
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	int r;

	if (!path)
		return -ENOMEM;
	if (fs_exists(path) && (r = jsonio_load_file(path, LEDGER_MAX, &j, &err)) < 0) {
		error_set_file(&err, path);
		error_format(&err, c->msg, c->len);
		return -EINVAL;
	}
	if ((r = nightly_ledger_from_json(j, &c->ledger, &err)) < 0) {
		error_set_file(&err, path);
		error_format(&err, c->msg, c->len);
		return r;
	}
	return 0;
}

static int save_ledger(struct nctx *c)
{
	_cleanup_free_ char *path = fs_join(c->o->out, "ledger.json");
	_cleanup_json_ json_t *j = nightly_ledger_to_json(&c->ledger);
	int r;

	if (!path || !j)
		return -ENOMEM;
	if ((r = jsonio_write_file(path, j)) < 0)
		snprintf(c->msg, c->len, "cannot write %s: %s", path, strerror(-r));
	return r;
}

static struct ktry_opts kopts(const struct nctx *c, const struct nightly_target *t)
{
	return (struct ktry_opts){ .env = c->o->env, .job_file = t->job_file,
				   .timing = c->cfg->timing, .parallel = c->cfg->parallel };
}

static json_t *load_report(const char *path)
{
	json_t *j = NULL;

	jsonio_load_file(path, REPORT_MAX, &j, NULL);
	return j;
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

/* ---- tonight ----------------------------------------------------------------------------- */

static int run_tonight(struct nctx *c, const struct nightly_target *t, const json_t *tmpl,
		       const char *head, const char *jdir, struct nightly_night *n)
{
	char dir[PATH_MAX + 64], vpath[PATH_MAX + 128], label[32];
	const char *vp = vpath, *lp = label;
	struct ktry_opts ko = kopts(c, t);
	_cleanup_json_ json_t *rep = NULL;
	json_t *runs, *run;
	size_t i;
	int r;

	snprintf(dir, sizeof(dir), "%s/run", jdir);
	snprintf(label, sizeof(label), "%.12s", head);
	if ((r = fs_mkdir_p(dir, 0755)) < 0 ||
	    (r = ktry_write(tmpl, head, NULL, dir, t->variant, vpath, sizeof(vpath))) < 0)
		return snprintf(c->msg, c->len, "cannot write in %s: %s", dir, strerror(-r)), r;
	if ((r = ktry_run(&ko, t->job, &vp, &lp, 1, c->cfg->boots, dir, c->msg, c->len)) < 0)
		return r;
	snprintf(n->report, sizeof(n->report), "%s/%s/run/report.json", c->night, t->job->name);
	snprintf(vpath, sizeof(vpath), "%s/report.json", dir);
	if (c->o->on_report)
		c->o->on_report(c->o->report_ud, vpath);
	rep = load_report(vpath);
	runs = json_object_get(rep, "runs");
	json_array_foreach(runs, i, run)
		if (!strcmp(json_string_value(json_object_get(run, "status")) ?: "", "ok"))
			n->ok = 1;
	return 0;
}

/* ---- the series of nights ------------------------------------------------------------------ */

/* The ledger's ok nights of this job and variant (indexes), tonight last. */
static size_t nights_of(const struct nctx *c, const struct nightly_target *t, size_t *idx)
{
	size_t k = 0;

	for (size_t i = 0; i < c->ledger.n; i++) {
		const struct nightly_night *n = &c->ledger.nights[i];

		if (n->ok && !strcmp(n->job, t->job->name) && !strcmp(n->variant, t->variant))
			idx[k++] = i;
	}
	return k;
}

/* Every night's report in s, labelled by its position ("0", "1", ...). */
static int add_nights(struct nctx *c, struct series_set *s, const size_t *idx, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char path[PATH_MAX * 2], label[32];
		_cleanup_json_ json_t *rep = NULL;
		struct lab_error err = { 0 };

		snprintf(path, sizeof(path), "%s/%s", c->o->out, c->ledger.nights[idx[k]].report);
		snprintf(label, sizeof(label), "%zu", k);
		if (!(rep = load_report(path)))
			continue; /* a report removed by hand: that night is left out */
		if (series_add_report(s, rep, path, label, &err) < 0) {
			error_format(&err, c->msg, c->len);
			return -EINVAL;
		}
	}
	return 0;
}

struct suspect {
	size_t key;               /* in the nights' series set */
	char name[1024], id[200]; /* the series in words, and in the ledger */
	size_t night;             /* position in the nights of this job */
	struct cp_change ch;
	int confirmed;
	struct bclass_diff d;
	char why[160];
};

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

static int night_series_get(const struct nctx *c, const struct series_set *s, size_t key,
			    size_t n, struct night_series *ns)
{
	const struct series_what *g = &s->groups[s->keys[key].group];
	int r = 0;

	*ns = (struct night_series){ .nights = calloc(n + 1, sizeof(*ns->nights)),
				     .vals = calloc(n + 1, sizeof(*ns->vals)), .n = n,
				     .cfg = { .window = c->cfg->window,
					      .threshold_pct = c->cfg->threshold_pct,
					      .higher = g->higher,
					      .kind = series_unit_is_rate(g->unit) ? STATS_HARMONIC
										    : STATS_ARITHMETIC } };
	if (!ns->nights || !ns->vals) {
		night_series_free(ns);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n && r == 0; k++) {
		char label[32];
		size_t v;

		snprintf(label, sizeof(label), "%zu", k);
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
static enum modelfit key_fit(const struct nctx *c, const struct series_set *s, size_t key,
			     char *why, size_t len)
{
	const struct series_what *g = &s->groups[s->keys[key].group];
	const char *timing = NULL;
	unsigned cpus = 0;

	for (size_t v = 0; v < s->nr_variants; v++) {
		const char *t = series_variant_timing(&s->variants[v]);
		unsigned h = s->variants[v].host_cpus;

		if (t && timing && strcmp(t, timing))
			timing = c->cfg->timing;
		else if (t && !timing)
			timing = t;
		cpus = h && (!cpus || h < cpus) ? h : cpus;
	}
	return modelfit_series(timing ? timing : c->cfg->timing, cpus, g->workload, g->params,
			       g->metric, s->keys[key].tasks, why, len);
}

/* cp_suspects for one series over the nights; appends to sus. */
static int series_suspects(struct nctx *c, struct series_set *s, size_t key, const size_t *idx,
			   size_t n, struct suspect *sus, size_t *nsus)
{
	_cleanup_free_ unsigned *tries = calloc(n + 1, sizeof(*tries));
	struct cp_change out[MAX_SUSPECTS];
	struct night_series ns;
	char id[200];
	size_t found = 0;
	int r;

	if (!tries)
		return -ENOMEM;
	if ((r = night_series_get(c, s, key, n, &ns)) < 0)
		return r;
	series_id(s, key, id, sizeof(id));
	for (size_t k = 0; k < n; k++)
		tries[k] = nightly_tries_get(&c->ledger.nights[idx[k]], id);
	r = cp_suspects(ns.nights, n, &ns.cfg, tries, out, MAX_SUSPECTS, &found);
	for (size_t k = 0; r == 0 && k < found && *nsus < MAX_SUSPECTS; k++) {
		struct suspect *su = &sus[(*nsus)++];

		*su = (struct suspect){ .key = key, .night = out[k].at, .ch = out[k] };
		series_key_name(s, key, su->name, sizeof(su->name));
		snprintf(su->id, sizeof(su->id), "%s", id);
	}
	night_series_free(&ns);
	return r;
}

/* ---- confirmation ------------------------------------------------------------------------ */

/* Night j's kernel and night j - 1's, side by side; each suspect of night j judged. */
static int confirm_night(struct nctx *c, const struct nightly_target *t, const json_t *tmpl,
			 const char *jdir, const size_t *idx, size_t j, struct suspect *sus,
			 size_t nsus, json_t *report)
{
	const struct nightly_night *good = &c->ledger.nights[idx[j - 1]];
	const struct nightly_night *bad = &c->ledger.nights[idx[j]];
	char dir[PATH_MAX + 64], da[PATH_MAX + 80], db[PATH_MAX + 80];
	char va[PATH_MAX + 128], vb[PATH_MAX + 128], la[40], lb[40], rpath[PATH_MAX + 96];
	const char *vars[2] = { va, vb }, *labels[2] = { la, lb };
	struct ktry_opts ko = kopts(c, t);
	_cleanup_json_ json_t *rep = NULL;
	struct series_set s;
	struct lab_error err = { 0 };
	int r;

	if (!strcmp(good->commit, bad->commit)) {
		for (size_t k = 0; k < nsus; k++)
			if (sus[k].night == j)
				snprintf(sus[k].why, sizeof(sus[k].why), "the same kernel as the night "
					 "before (%.12s): not a kernel change", bad->commit);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/confirm-%s", jdir, bad->night);
	snprintf(da, sizeof(da), "%s/a", dir);
	snprintf(db, sizeof(db), "%s/b", dir);
	snprintf(la, sizeof(la), "good-%.12s", good->commit);
	snprintf(lb, sizeof(lb), "suspect-%.12s", bad->commit);
	if ((r = fs_mkdir_p(da, 0755)) < 0 || (r = fs_mkdir_p(db, 0755)) < 0 ||
	    (r = ktry_write(tmpl, good->commit, NULL, da, t->variant, va, sizeof(va))) < 0 ||
	    (r = ktry_write(tmpl, bad->commit, NULL, db, t->variant, vb, sizeof(vb))) < 0)
		return snprintf(c->msg, c->len, "cannot write in %s: %s", dir, strerror(-r)), r;
	progress(c, "%s: confirming night %s (%.12s) against %s (%.12s), %u boots each",
		 t->job->name, bad->night, bad->commit, good->night, good->commit,
		 c->cfg->confirm_boots);
	if ((r = ktry_run(&ko, t->job, vars, labels, 2, c->cfg->confirm_boots, dir, c->msg,
			  c->len)) < 0)
		return r;
	snprintf(rpath, sizeof(rpath), "%s/report.json", dir);
	if (c->o->on_report)
		c->o->on_report(c->o->report_ud, rpath);
	series_init(&s);
	if (!(rep = load_report(rpath)) || series_add_report(&s, rep, rpath, NULL, &err) < 0) {
		series_free(&s);
		return snprintf(c->msg, c->len, "cannot read %s", rpath), -EIO;
	}
	for (size_t k = 0; k < nsus; k++) {
		struct suspect *su = &sus[k];
		size_t key, ia = bclass_variant(&s, la), ib = bclass_variant(&s, lb);
		char name[1024];

		if (su->night != j)
			continue;
		for (key = 0; key < s.nr_keys; key++) {
			series_key_name(&s, key, name, sizeof(name));
			if (!strcmp(name, su->name))
				break;
		}
		if (key == s.nr_keys || ia == (size_t)-1 || ib == (size_t)-1 ||
		    bclass_diff(&s, key, ia, ib, c->cfg->threshold_pct, &su->d, &err) < 0) {
			snprintf(su->why, sizeof(su->why), "the confirmation measured no %s on both "
				 "sides", su->id);
			continue;
		}
		su->confirmed = su->d.verdict == VERDICT_REGRESSION ||
				su->d.verdict == VERDICT_IMPROVEMENT;
		snprintf(su->why, sizeof(su->why), "side by side: %+.2f %% [%+.2f, %+.2f] (%s)",
			 su->d.row.change_pct, su->d.row.ci_pct_lo, su->d.row.ci_pct_hi,
			 verdict_name(su->d.verdict));
	}
	json_object_set_new(report, "dir", json_string(dir + strlen(c->o->out) + 1));
	series_free(&s);
	return 0;
}

/* ---- an alarm: bisection ------------------------------------------------------------------ */

static int bisect_alarm(struct nctx *c, const struct nightly_target *t, const char *jdir,
			const struct nightly_night *good, const struct nightly_night *bad,
			const struct suspect *su, struct series_set *s, json_t *alarm)
{
	const struct series_what *g = &s->groups[s->keys[su->key].group];
	struct bisect_params p = { .threshold_pct = c->cfg->threshold_pct,
				   .boots = c->cfg->bisect_boots, .max_tries = c->cfg->bisect_tries,
				   .check_revert = c->cfg->bisect_revert,
				   .parallel = c->cfg->parallel, .tasks = s->keys[su->key].tasks };
	struct bisect_run_opts bo;
	struct bisect_run_summary bs;
	char dir[PATH_MAX + 64];
	int r;

	snprintf(p.job_file, sizeof(p.job_file), "%s", t->job_file);
	snprintf(p.variant_file, sizeof(p.variant_file), "%s", t->variant_file);
	snprintf(p.variant, sizeof(p.variant), "%s", t->variant);
	snprintf(p.repo, sizeof(p.repo), "%s", t->repo);
	snprintf(p.good_ref, sizeof(p.good_ref), "%s", good->commit);
	snprintf(p.bad_ref, sizeof(p.bad_ref), "%s", bad->commit);
	snprintf(p.good, sizeof(p.good), "%s", good->commit);
	snprintf(p.bad, sizeof(p.bad), "%s", bad->commit);
	snprintf(p.workload, sizeof(p.workload), "%s", g->workload);
	snprintf(p.metric, sizeof(p.metric), "%s", g->metric);
	snprintf(p.timing, sizeof(p.timing), "%s", c->cfg->timing);
	if (sha256_file_hex(t->job_file, p.job_sha256) < 0)
		return snprintf(c->msg, c->len, "cannot read %s", t->job_file), -EIO;
	snprintf(dir, sizeof(dir), "%s/bisect", jdir);
	bo = (struct bisect_run_opts){ .env = c->o->env, .p = &p, .job = t->job, .dir = dir };
	progress(c, "%s: bisecting %.12s..%.12s on %s", t->job->name, good->commit, bad->commit,
		 su->id);
	r = bisect_run(&bo, &bs, c->msg, c->len);
	json_object_set_new(alarm, "bisect", json_pack("{s:s, s:s?, s:s?, s:s}", "dir",
		dir + strlen(c->o->out) + 1, "answer", r == 0 && bs.answer != BISECT_ANSWER_NONE
		? bisect_answer_name(bs.answer) : NULL, "culprit", bs.culprit[0] ? bs.culprit : NULL,
		"reason", r == 0 ? bs.reason : c->msg));
	if (r == 0 && bs.answer == BISECT_ANSWER_FOUND) {
		c->sum->bisected++;
		if (!c->sum->culprit[0])
			snprintf(c->sum->culprit, sizeof(c->sum->culprit), "%s", bs.culprit);
	}
	/* A bisection that could not finish leaves the alarm standing; the night goes on. */
	return r == -EINTR || r == -ENOMEM ? r : 0;
}

/* ---- one job's night ------------------------------------------------------------------------ */

static json_t *change_json(const struct cp_change *ch)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:s}",
			 "at", (json_int_t)ch->at, "before", ch->before, "after", ch->after,
			 "change_pct", ch->change_pct, "ci_lo_pct", isfinite(ch->ci_lo_pct)
			 ? ch->ci_lo_pct : 0.0, "ci_hi_pct", isfinite(ch->ci_hi_pct)
			 ? ch->ci_hi_pct : 0.0, "p", ch->p, "boots_before",
			 (json_int_t)ch->boots_before, "boots_after", (json_int_t)ch->boots_after,
			 "verdict", verdict_name(ch->verdict));
}

/* Per primary series: the nights' means and the change points, for the report and the
 * dashboard's trend. */
static json_t *series_json(struct nctx *c, struct series_set *s, const size_t *idx, size_t n)
{
	json_t *a = json_array();

	for (size_t key = 0; a && key < s->nr_keys; key++) {
		const struct series_what *g = &s->groups[s->keys[key].group];
		json_t *nights, *pts;
		struct cp_change out[16];
		struct night_series ns;
		size_t found = 0;
		char name[1024], id[200], why[512];
		enum modelfit fit;

		if (!workload_metric_is_primary(g->workload, g->metric) ||
		    night_series_get(c, s, key, n, &ns) < 0)
			continue;
		nights = json_array();
		pts = json_array();
		for (size_t k = 0; k < n; k++) {
			const struct nightly_night *ni = &c->ledger.nights[idx[k]];
			struct stats_summary sum;
			int have = ns.nights[k].n &&
				   stats_summarize(ns.nights[k].v, ns.nights[k].n, ns.cfg.kind,
						   &sum) == 0;

			json_array_append_new(nights, json_pack("{s:s, s:s, s:o, s:I}", "night",
				ni->night, "commit", ni->commit, "mean", have ? json_real(sum.mean)
				: json_null(), "boots", (json_int_t)ns.nights[k].n));
		}
		/* Blind to the series: no change point is looked for, none is "no change". */
		fit = key_fit(c, s, key, why, sizeof(why));
		if (fit != MODELFIT_OUTSIDE && cp_detect(ns.nights, n, &ns.cfg, out, 16, &found) == 0)
			for (size_t k = 0; k < found && k < 16; k++)
				json_array_append_new(pts, change_json(&out[k]));
		night_series_free(&ns);
		series_key_name(s, key, name, sizeof(name));
		series_id(s, key, id, sizeof(id));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:s, s:s?}",
						   "name", name, "id", id, "unit", g->unit,
						   "higher", g->higher, "nights", nights,
						   "change_points", pts, "model_fit",
						   modelfit_name(fit),
						   "outside_model", why[0] ? why : NULL));
	}
	return a;
}

static json_t *suspect_json(const struct suspect *su, const struct nightly_night *night)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:b, s:s, s:s?}", "series", su->name, "id",
			 su->id, "night", night->night, "commit", night->commit, "fast_check",
			 change_json(&su->ch), "confirmed", su->confirmed, "why", su->why,
			 "verdict", su->confirmed ? verdict_name(su->d.verdict) : NULL);
}

/* Suspects, their confirmations, alarms and bisections of one job's night; the series and
 * change points for the report. */
static int judge(struct nctx *c, const struct nightly_target *t, const json_t *tmpl,
		 const char *jdir, json_t *rep)
{
	_cleanup_free_ size_t *idx = calloc(c->ledger.n + 1, sizeof(*idx));
	struct suspect sus[MAX_SUSPECTS];
	json_t *jsus = json_array(), *confs = json_array(), *alarms = json_array();
	struct series_set s;
	size_t n, nsus = 0;
	int r = 0;

	if (!idx)
		return -ENOMEM;
	n = nights_of(c, t, idx);
	series_init(&s);
	json_object_set_new(rep, "suspects", jsus);
	json_object_set_new(rep, "confirmations", confs);
	json_object_set_new(rep, "alarms", alarms);
	if ((r = add_nights(c, &s, idx, n)) < 0)
		goto out;
	for (size_t key = 0; key < s.nr_keys && r == 0; key++) {
		const struct series_what *g = &s.groups[s.keys[key].group];

		char why[512];

		if (!workload_metric_is_primary(g->workload, g->metric))
			continue;
		/* A series the model cannot show is not searched: what moves it there is not what
		 * it measures, and a quiet one is no evidence of no change. */
		if (key_fit(c, &s, key, why, sizeof(why)) == MODELFIT_OUTSIDE) {
			c->sum->outside++;
			progress(c, "%s: outside this timing model, not searched: %s", t->job->name,
				 why);
			continue;
		}
		r = series_suspects(c, &s, key, idx, n, sus, &nsus);
	}
	for (size_t k = 0; k < nsus && r == 0; k++) {
		size_t j = sus[k].night, first = k;
		json_t *conf;

		for (size_t m = 0; m < k; m++)
			if (sus[m].night == j)
				first = m;
		if (first != k || j == 0)
			continue; /* night j confirmed once for all its suspects */
		c->sum->suspects++;
		conf = json_pack("{s:s, s:s}", "night", c->ledger.nights[idx[j]].night, "against",
				 c->ledger.nights[idx[j - 1]].night);
		r = confirm_night(c, t, tmpl, jdir, idx, j, sus, nsus, conf);
		json_array_append_new(confs, conf);
	}
	for (size_t k = 0; k < nsus && r == 0; k++) {
		struct suspect *su = &sus[k];
		struct nightly_night *night = &c->ledger.nights[idx[su->night]];
		json_t *alarm;

		json_array_append_new(jsus, suspect_json(su, night));
		nightly_tries_add(night, su->id);
		if (!su->confirmed)
			continue;
		c->sum->confirmed++;
		if (su->d.verdict != VERDICT_REGRESSION)
			continue;
		c->sum->regressions++;
		alarm = json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f}", "series", su->name, "night",
				  night->night, "commit", night->commit, "last_good",
				  c->ledger.nights[idx[su->night - 1]].commit, "change_pct",
				  su->d.row.change_pct, "ci_lo_pct", su->d.row.ci_pct_lo,
				  "ci_hi_pct", su->d.row.ci_pct_hi);
		progress(c, "%s: REGRESSION confirmed on %s: %s %+.2f %% at %.12s", t->job->name,
			 night->night, su->id, su->d.row.change_pct, night->commit);
		if (c->cfg->bisect && !night->alarm)
			r = bisect_alarm(c, t, jdir, &c->ledger.nights[idx[su->night - 1]], night, su,
					 &s, alarm);
		if (!night->alarm)
			night->alarm = json_incref(alarm);
		json_array_append_new(alarms, alarm);
	}
	json_object_set_new(rep, "series", series_json(c, &s, idx, n));
out:
	series_free(&s);
	return r;
}

static int do_job(struct nctx *c, const struct nightly_target *t)
{
	char jdir[PATH_MAX + 128], head[65], subject[256] = "";
	_cleanup_json_ json_t *tmpl = NULL, *rep = NULL;
	_cleanup_free_ char *rpath = NULL;
	struct nightly_night night = { 0 };
	struct lab_error err = { 0 };
	const char *ref = c->o->at ? c->o->at : c->cfg->branch;
	int r;

	if ((r = bgit_resolve(t->repo, ref, head, &err)) < 0) {
		error_format(&err, c->msg, c->len);
		return r;
	}
	bgit_subject(t->repo, head, subject, sizeof(subject));
	snprintf(jdir, sizeof(jdir), "%s/%s/%s", c->o->out, c->night, t->job->name);
	if (fs_exists(jdir))
		return snprintf(c->msg, c->len, "%s exists: night %s of %s was measured already",
				jdir, c->night, t->job->name), -EEXIST;
	if ((r = ktry_template(t->variant_file, t->repo, head, &tmpl, c->msg, c->len)) < 0)
		return r;
	progress(c, "%s: night %s, %s at %.12s %s", t->job->name, c->night, t->variant, head,
		 subject);
	snprintf(night.night, sizeof(night.night), "%s", c->night);
	snprintf(night.job, sizeof(night.job), "%s", t->job->name);
	snprintf(night.variant, sizeof(night.variant), "%s", t->variant);
	snprintf(night.commit, sizeof(night.commit), "%s", head);
	snprintf(night.subject, sizeof(night.subject), "%s", subject[0] ? subject : "-");
	if ((r = run_tonight(c, t, tmpl, head, jdir, &night)) < 0)
		return r;
	if ((r = nightly_ledger_add(&c->ledger, &night)) < 0 || (r = save_ledger(c)) < 0)
		return r;
	if (!night.ok)
		c->sum->failed++;
	rep = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b}", "schema", NIGHTLY_SCHEMA,
			"night", c->night, "job", t->job->name, "variant", t->variant, "commit",
			head, "subject", night.subject, "report", night.report, "ok", night.ok);
	if (!rep)
		return -ENOMEM;
	json_object_set_new(rep, "config", json_pack("{s:f, s:I, s:I, s:I, s:s}", "threshold_pct",
		c->cfg->threshold_pct, "window", (json_int_t)c->cfg->window, "boots",
		(json_int_t)c->cfg->boots, "confirm_boots", (json_int_t)c->cfg->confirm_boots,
		"timing", c->cfg->timing));
	r = judge(c, t, tmpl, jdir, rep);
	if (r == 0 || r == -EINTR) {
		int w = save_ledger(c);

		rpath = fs_join(jdir, "nightly.json");
		if (w == 0 && rpath && (w = jsonio_write_file(rpath, rep)) < 0)
			snprintf(c->msg, c->len, "cannot write %s: %s", rpath, strerror(-w));
		if (w == 0 && rpath && !c->sum->report[0])
			snprintf(c->sum->report, sizeof(c->sum->report), "%s", rpath);
		if (r == 0)
			r = w;
	}
	return r;
}

int nightly_run(const struct nightly_opts *o, struct nightly_summary *sum, char *msg,
		size_t len)
{
	struct nctx c = { .o = o, .cfg = o->cfg, .msg = msg, .len = len, .sum = sum };
	int r;

	memset(sum, 0, sizeof(*sum));
	msg[0] = '\0';
	if (o->night) {
		snprintf(c.night, sizeof(c.night), "%s", o->night);
	} else {
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(c.night, sizeof(c.night), "%Y%m%d-%H%M%S", &tm);
	}
	/* Every ref resolves before anything is written. */
	for (unsigned i = 0; i < o->cfg->nr_jobs; i++) {
		struct lab_error err = { 0 };
		char head[65];

		if ((r = bgit_resolve(o->targets[i].repo, o->at ? o->at : o->cfg->branch, head,
				      &err)) < 0) {
			error_format(&err, msg, len);
			return r;
		}
	}
	if ((r = fs_mkdir_p(o->out, 0755)) < 0) {
		snprintf(msg, len, "cannot create %s: %s", o->out, strerror(-r));
		return r;
	}
	if ((r = load_ledger(&c)) < 0)
		return r;
	for (unsigned i = 0; i < o->cfg->nr_jobs && r == 0; i++) {
		if (o->env.interrupt && *o->env.interrupt) {
			r = -EINTR;
			break;
		}
		r = do_job(&c, &o->targets[i]);
		sum->jobs++;
	}
	nightly_ledger_free(&c.ledger);
	return r;
}
