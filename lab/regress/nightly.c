/* `lab nightly`: see nightly.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/mail.h"
#include "analysis/nightly_policy.h"
#include "analysis/series.h"
#include "regress/bisect.h"
#include "regress/git.h"
#include "regress/nightly.h"
#include "regress/trial.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/mailfmt.h"
#include "util/sha256.h"

#define LEDGER_MAX (64u << 20)
#define REPORT_MAX (64u << 20)

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

/* ---- tonight ----------------------------------------------------------------------------- */

static int run_tonight(struct nctx *c, const struct nightly_target *t, const json_t *tmpl,
		       const char *head, const char *jdir, struct nightly_night *n)
{
	char dir[PATH_MAX + 64], vpath[PATH_MAX + 128], label[32];
	const char *vp = vpath, *lp = label;
	struct ktry_opts ko = kopts(c, t);
	_cleanup_json_ json_t *rep = NULL;
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
	n->ok = npolicy_night_ok(rep);
	return 0;
}

/* ---- the series of nights ------------------------------------------------------------------ */

/* Every night's report in s, labelled as the policy reads them. */
static int add_nights(struct nctx *c, struct series_set *s, const struct npolicy *p)
{
	for (size_t k = 0; k < p->n; k++) {
		char path[PATH_MAX * 2], label[32];
		_cleanup_json_ json_t *rep = NULL;
		struct lab_error err = { 0 };

		snprintf(path, sizeof(path), "%s/%s", c->o->out,
			 p->ledger->nights[p->idx[k]].report);
		npolicy_night_label(k, label, sizeof(label));
		if (!(rep = load_report(path)))
			continue; /* a report removed by hand: that night is left out */
		if (series_add_report(s, rep, path, label, &err) < 0) {
			error_format(&err, c->msg, c->len);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- confirmation ------------------------------------------------------------------------ */

/* cf's two kernels side by side in dir (A B A B, confirm_boots each); *rpath gets the report. */
static int confirm_run(struct nctx *c, const struct nightly_target *t, const json_t *tmpl,
		       const struct npolicy_confirm *cf, const char *dir, char *rpath, size_t len)
{
	char da[PATH_MAX + 80], db[PATH_MAX + 80], va[PATH_MAX + 128], vb[PATH_MAX + 128];
	const char *vars[2] = { va, vb }, *labels[2] = { cf->good_label, cf->bad_label };
	struct ktry_opts ko = kopts(c, t);
	int r;

	snprintf(da, sizeof(da), "%s/a", dir);
	snprintf(db, sizeof(db), "%s/b", dir);
	if ((r = fs_mkdir_p(da, 0755)) < 0 || (r = fs_mkdir_p(db, 0755)) < 0 ||
	    (r = ktry_write(tmpl, cf->good->commit, NULL, da, t->variant, va, sizeof(va))) < 0 ||
	    (r = ktry_write(tmpl, cf->bad->commit, NULL, db, t->variant, vb, sizeof(vb))) < 0)
		return snprintf(c->msg, c->len, "cannot write in %s: %s", dir, strerror(-r)), r;
	progress(c, "%s: confirming night %s (%.12s) against %s (%.12s), %u boots each",
		 t->job->name, cf->bad->night, cf->bad->commit, cf->good->night, cf->good->commit,
		 c->cfg->confirm_boots);
	if ((r = ktry_run(&ko, t->job, vars, labels, 2, c->cfg->confirm_boots, dir, c->msg,
			  c->len)) < 0)
		return r;
	snprintf(rpath, len, "%s/report.json", dir);
	if (c->o->on_report)
		c->o->on_report(c->o->report_ud, rpath);
	return 0;
}

/* The k-th suspect night the policy confirms: measured (unless it has the kernel of the night
 * before), and its suspects judged. */
static int confirm(struct nctx *c, const struct nightly_target *t, const json_t *tmpl,
		   const char *jdir, struct npolicy *p, size_t k)
{
	char dir[PATH_MAX + 64], rpath[PATH_MAX + 96];
	_cleanup_json_ json_t *rep = NULL;
	struct npolicy_confirm cf;
	struct series_set s;
	struct lab_error err = { 0 };
	json_t *conf = npolicy_confirm_get(p, k, &cf);
	int r;

	if (cf.same_kernel)
		return 0;
	snprintf(dir, sizeof(dir), "%s/confirm-%s", jdir, cf.bad->night);
	if ((r = confirm_run(c, t, tmpl, &cf, dir, rpath, sizeof(rpath))) < 0)
		return r;
	series_init(&s);
	if (!(rep = load_report(rpath)) || series_add_report(&s, rep, rpath, NULL, &err) < 0) {
		series_free(&s);
		return snprintf(c->msg, c->len, "cannot read %s", rpath), -EIO;
	}
	npolicy_confirm_judge(p, &cf, &s);
	json_object_set_new(conf, "dir", json_string(dir + strlen(c->o->out) + 1));
	series_free(&s);
	return 0;
}

/* ---- an alarm: bisection ------------------------------------------------------------------ */

/* The culprit's mail (lab mail's, analysis/mail.h) beside its bisection, as an mbox for git
 * send-email or mutt: nothing is sent.  A mail that cannot be written is said, and the night
 * goes on. */
static int culprit_mail(struct nctx *c, const char *dir)
{
	_cleanup_free_ char *file = fs_join(dir, "bisect.json"), *msg = NULL, *mbox = NULL;
	_cleanup_free_ char *out = fs_join(dir, NIGHTLY_MAIL);
	_cleanup_json_ json_t *doc = NULL;
	struct lab_error err = { 0 };
	struct mail_opts mo = { 0 };
	char date[64];
	int r;

	if (!file || !out)
		return -ENOMEM;
	clock_rfc5322(date, sizeof(date));
	mo.date = date;
	if ((r = jsonio_load_file(file, 64u << 20, &doc, &err)) < 0 ||
	    (r = mail_bisect(doc, &mo, &msg, &err)) < 0 || (r = mailfmt_mbox(msg, &mbox)) < 0 ||
	    (r = fs_write_atomic(out, mbox, strlen(mbox))) < 0) {
		progress(c, "no mail for the culprit: %s", err.msg[0] ? err.msg : strerror(-r));
		return r;
	}
	progress(c, "the culprit's mail: %s (lab mail)", out);
	return 0;
}

static int bisect_alarm(struct nctx *c, const struct nightly_target *t, const char *jdir,
			struct npolicy *p, size_t k, const struct npolicy_alarm *a,
			struct bisect_run_summary *out)
{
	struct bisect_params bp;
	struct bisect_run_opts bo;
	struct bisect_run_summary bs;
	char dir[PATH_MAX + 64];
	int r;

	npolicy_bisect_params(p, k, &bp);
	snprintf(bp.job_file, sizeof(bp.job_file), "%s", t->job_file);
	snprintf(bp.variant_file, sizeof(bp.variant_file), "%s", t->variant_file);
	snprintf(bp.variant, sizeof(bp.variant), "%s", t->variant);
	snprintf(bp.repo, sizeof(bp.repo), "%s", t->repo);
	if (sha256_file_hex(t->job_file, bp.job_sha256) < 0)
		return snprintf(c->msg, c->len, "cannot read %s", t->job_file), -EIO;
	snprintf(dir, sizeof(dir), "%s/bisect", jdir);
	bo = (struct bisect_run_opts){ .env = c->o->env, .p = &bp, .job = t->job, .dir = dir };
	progress(c, "%s: bisecting %.12s..%.12s on %s", t->job->name, a->good->commit,
		 a->bad->commit, p->sus[k].id);
	r = bisect_run(&bo, &bs, c->msg, c->len);
	*out = bs;
	if (r == 0 && bs.culprit[0] && a->alarm && culprit_mail(c, dir) == 0)
		json_object_set_new(a->alarm, "mail", json_pack("s++", dir + strlen(c->o->out) + 1,
								 "/", NIGHTLY_MAIL));
	return npolicy_bisected(p, a->alarm, &(struct npolicy_bisection){
		.dir = dir + strlen(c->o->out) + 1, .r = r, .answer = bs.answer,
		.culprit = bs.culprit, .reason = bs.reason, .error = c->msg });
}

/* ---- one job's night ------------------------------------------------------------------------ */

/* A confirmed change as an alert of the history index: 1 when it is new (or reopened). */
static int raise_alert(struct nctx *c, const struct nightly_target *t, const char *jdir,
		       const struct npolicy_suspect *su, const struct nightly_night *night,
		       const char *culprit)
{
	_cleanup_free_ char *report = fs_join(jdir, "nightly.json");
	struct nightly_alert al = {
		.source = c->cfg->name, .ledger = c->o->out, .job = t->job->name, .series = su->id,
		.night = night->night, .commit = night->commit,
		.direction = su->d.verdict == VERDICT_REGRESSION ? "regression" : "improvement",
		.culprit = culprit, .report = report ? report : "",
		.change_pct = su->d.row.change_pct,
	};
	int r;

	if (!c->o->on_alert)
		return 1;
	r = c->o->on_alert(c->o->report_ud, &al);
	if (r == 0)
		progress(c, "%s: the alert of %s on %s was raised before: not new", t->job->name,
			 su->id, night->night);
	return r != 0;
}

/* Suspect k settled: recorded; a confirmed change an alert, a confirmed regression bisected. */
static int settle(struct nctx *c, const struct nightly_target *t, const char *jdir,
		  struct npolicy *p, size_t k)
{
	const struct npolicy_suspect *su = &p->sus[k];
	struct npolicy_alarm a;

	struct bisect_run_summary bs = { 0 };
	int r = 0;

	npolicy_settle(p, k, &a);
	if (!su->confirmed)
		return 0;
	if (a.regression) {
		progress(c, "%s: REGRESSION confirmed on %s: %s %+.2f %% at %.12s", t->job->name,
			 a.bad->night, su->id, su->d.row.change_pct, a.bad->commit);
		r = a.bisect ? bisect_alarm(c, t, jdir, p, k, &a, &bs) : 0;
	}
	if (r == 0 && raise_alert(c, t, jdir, su, a.bad, bs.culprit) && a.regression)
		c->sum->new_regressions++;
	return r;
}

static void count(struct nctx *c, const struct npolicy_counts *n)
{
	c->sum->suspects += n->suspects;
	c->sum->confirmed += n->confirmed;
	c->sum->regressions += n->regressions;
	c->sum->bisected += n->bisected;
	c->sum->outside += n->outside;
	if (!c->sum->culprit[0])
		snprintf(c->sum->culprit, sizeof(c->sum->culprit), "%s", n->culprit);
}

/* Suspects, their confirmations, alarms and bisections of one job's night, as the policy
 * (lab/analysis/nightly_policy.h) decides them; the series and change points for the
 * report. */
static int judge(struct nctx *c, const struct nightly_target *t, const json_t *tmpl,
		 const char *jdir, json_t *rep)
{
	struct npolicy p;
	struct series_set s;
	int r;

	if ((r = npolicy_init(&p, c->cfg, &c->ledger, t->job->name, t->variant)) < 0)
		return r;
	series_init(&s);
	json_object_set(rep, "suspects", p.suspects);
	json_object_set(rep, "confirmations", p.confirmations);
	json_object_set(rep, "alarms", p.alarms);
	if ((r = add_nights(c, &s, &p)) < 0)
		goto out;
	r = npolicy_search(&p, &s);
	for (size_t k = 0; k < p.nout; k++)
		progress(c, "%s: outside this timing model, not searched: %s", t->job->name,
			 p.outside[k].why);
	for (size_t k = 0; k < p.nconfirm && r == 0; k++)
		r = confirm(c, t, tmpl, jdir, &p, k);
	for (size_t k = 0; k < p.nsus && r == 0; k++)
		r = settle(c, t, jdir, &p, k);
	json_object_set_new(rep, "series", npolicy_series_json(&p));
out:
	count(c, &p.counts);
	npolicy_free(&p);
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
