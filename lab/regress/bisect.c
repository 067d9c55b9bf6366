/* `lab bisect`'s work: see regress/bisect.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/bisect_class.h"
#include "analysis/series.h"
#include "regress/bisect.h"
#include "regress/git.h"
#include "regress/trial.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

/* Largest step report read back (a report of BISECT_MAX_BOOTS_STEP boots is far smaller). */
#define STEP_REPORT_MAX (64u << 20)

struct bctx {
	const struct bisect_run_opts *o;
	const struct bisect_params *p;
	struct bisect b;
	json_t *tmpl;             /* the variant, source filled in per step */
	struct bclass_pick pick;
	char series[512];
	json_t *followed;         /* the series as its parts: {"workload", "metric", "tasks",
				   * "unit", "better"} (bisect.json's "followed") */
	json_t *measured;         /* per step: {"dir", "timing", "contended", "builds"...} */
	unsigned builds, boots;
	double build_s, t0;
	json_t *why;              /* once over with a culprit: {"culprit_deltas"...} or
				   * {"culprit_deltas_absent"...} (analysis/bisect_class.h) */
	struct strbuf why_text;   /* its lines for the summary */
	char *msg;
	size_t len;
};

static void progress(struct bctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct bctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	progress_vemit(c->o->env.progress, c->o->env.progress_ud, fmt, ap);
	va_end(ap);
}

static int fail(struct bctx *c, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct bctx *c, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->msg, c->len, fmt, ap);
	va_end(ap);
	return r;
}

static void step_dir(const struct bctx *c, size_t k, size_t commit, enum bisect_role role,
		     char *buf, size_t len)
{
	snprintf(buf, len, "%s/steps/%03zu-%.12s-%s", c->o->dir, k + 1, c->b.commits[commit].sha,
		 bisect_role_name(role));
}

/* ---- one measurement --------------------------------------------------------------------- */

static json_t *load_report(const char *dir)
{
	_cleanup_free_ char *path = fs_join(dir, "report.json");
	json_t *j = NULL;

	if (path)
		jsonio_load_file(path, STEP_REPORT_MAX, &j, NULL);
	return j;
}

/* What the build and the boots of a step's report came to. */
struct step_read {
	enum bisect_outcome outcome;
	unsigned ok_boots;
	int built;                /* make ran (not a cache hit) */
	double build_s;
	char key[65], text[65];
	char timing[16];
	unsigned contended;
};

static void read_step(json_t *rep, int revert, struct step_read *s)
{
	json_t *runs = json_object_get(rep, "runs"), *run;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->outcome = BISECT_OUTCOME_BOOT_FAILURE;
	json_array_foreach(runs, i, run) {
		json_t *b = json_object_get(json_object_get(run, "kernel"), "build");
		const char *failed = json_string_value(json_object_get(b, "failed"));
		const char *st = json_string_value(json_object_get(run, "status"));
		const char *tm = json_string_value(json_object_get(json_object_get(
			json_object_get(run, "host"), "timing"), "model"));

		if (failed) {
			s->outcome = revert && !strcmp(failed, "patch") ? BISECT_OUTCOME_NO_REVERT
									 : BISECT_OUTCOME_BUILD_FAILURE;
			/* make ran and failed: a build the bisection paid for (its time is not
			 * in the report) */
			s->built = !strcmp(failed, "build");
			return;
		}
		if (i == 0 && json_is_object(b)) {
			const char *k = json_string_value(json_object_get(b, "key"));
			const char *t = json_string_value(json_object_get(b, "text_sha256"));

			s->built = json_is_false(json_object_get(b, "cached"));
			s->build_s = json_number_value(json_object_get(b, "build_s"));
			snprintf(s->key, sizeof(s->key), "%s", k ? k : "");
			snprintf(s->text, sizeof(s->text), "%s", t ? t : "");
		}
		if (tm)
			snprintf(s->timing, sizeof(s->timing), "%s", tm);
		if (json_is_true(json_object_get(json_object_get(json_object_get(run, "host"),
								  "noise"), "contended")))
			s->contended++;
		if (st && !strcmp(st, "ok"))
			s->ok_boots++;
	}
	if (s->ok_boots)
		s->outcome = BISECT_OUTCOME_OK;
}

/* Add the report in dir to s under label; what went wrong in err. */
static int add_report(struct series_set *s, const char *dir, const char *label,
		      struct lab_error *err)
{
	_cleanup_json_ json_t *rep = load_report(dir);

	if (!rep) {
		error_set(err, "", "cannot read %s/report.json", dir);
		return -EIO;
	}
	return series_add_report(s, rep, dir, label, err);
}

static int add_dir(struct bctx *c, struct series_set *s, const char *dir, const char *label)
{
	struct lab_error err = { 0 };
	int r = add_report(s, dir, label, &err);

	if (r < 0)
		error_format(&err, c->msg, c->len);
	return r;
}

static int add_step(struct bctx *c, struct series_set *s, size_t k, const char *label)
{
	char dir[PATH_MAX + 128];

	step_dir(c, k, c->b.steps[k].commit, c->b.steps[k].role, dir, sizeof(dir));
	return add_dir(c, s, dir, label);
}

/* The ends' reports (good, bad) and, under "this", the measured step's with (for a commit in
 * the bisect phase) its earlier tries: a commit measured again pools its boots. */
static int gather(struct bctx *c, struct series_set *s, const char *cur_dir,
		  const struct bisect_next *nx)
{
	int r = 0;

	for (size_t k = 0; k < c->b.n_steps && r == 0; k++) {
		const struct bisect_step *st = &c->b.steps[k];

		if (st->outcome != BISECT_OUTCOME_OK)
			continue;
		if (st->role == BISECT_ROLE_GOOD_END)
			r = add_step(c, s, k, "good");
		else if (st->role == BISECT_ROLE_BAD_END)
			r = add_step(c, s, k, nx->role == BISECT_ROLE_BAD_END ? "this" : "bad");
		else if (nx->role == BISECT_ROLE_STEP && st->role == BISECT_ROLE_STEP &&
			 st->commit == nx->commit)
			r = add_step(c, s, k, "this");
	}
	if (r == 0)
		r = add_dir(c, s, cur_dir, nx->role == BISECT_ROLE_GOOD_END ? "good" : "this");
	return r;
}

static int fill_values(struct series_set *s, size_t key, size_t v, struct bisect_measure *m,
		       double **vals)
{
	const struct series_what *g = &s->groups[s->keys[key].group];
	struct stats_summary sum;
	size_t n;
	int r = bclass_boot_values(s, key, v, vals, &n);

	if (r < 0)
		return r;
	m->n = n;
	m->samples = *vals;
	m->mean = m->ci_lo = m->ci_hi = NAN;
	if (n && stats_summarize(*vals, n, boots_mean_kind(g->unit, *vals, n), &sum) == 0) {
		m->mean = sum.mean;
		m->ci_lo = sum.ci_lo;
		m->ci_hi = sum.ci_hi;
	}
	return 0;
}

/* The class of the measured step against the ends, and its numbers. */
static int classify(struct bctx *c, const char *cur_dir, const struct bisect_next *nx,
		    struct bisect_measure *m, double **vals)
{
	struct series_set s;
	struct lab_error err = { 0 };
	struct bclass_diff ends, vg, vb;
	size_t key, good, bad, me;
	int r;

	series_init(&s);
	if ((r = gather(c, &s, cur_dir, nx)) < 0)
		goto out;
	if ((r = bclass_find_key(&s, &c->pick, &key, &err)) < 0) {
		error_format(&err, c->msg, c->len);
		r = -EINVAL;
		goto out;
	}
	if (!c->series[0]) {
		const struct series_what *g = &s.groups[s.keys[key].group];

		series_key_name(&s, key, c->series, sizeof(c->series));
		json_decref(c->followed);
		c->followed = json_pack("{s:s, s:s, s:I, s:s, s:s}", "workload", g->workload,
					"metric", g->metric, "tasks", (json_int_t)s.keys[key].tasks,
					"unit", g->unit, "better", g->higher ? "higher" : "lower");
	}
	good = bclass_variant(&s, "good");
	bad = bclass_variant(&s, "bad");
	me = bclass_variant(&s, nx->role == BISECT_ROLE_GOOD_END ? "good" : "this");
	if ((r = fill_values(&s, key, me, m, vals)) < 0)
		goto out;
	m->change_pct = NAN;
	if (nx->role == BISECT_ROLE_GOOD_END) {
		m->class = BISECT_CLASS_GOOD;
		goto out;
	}
	if (!m->n) {
		/* Booted, but the series has no value: the workload failed in every boot. */
		m->outcome = BISECT_OUTCOME_BOOT_FAILURE;
		goto out;
	}
	if (nx->role == BISECT_ROLE_BAD_END) {
		if ((r = bclass_diff(&s, key, good, me, c->p->threshold_pct, &ends, &err)) < 0)
			goto diff_failed;
		m->change_pct = ends.raw_pct;
		m->class = bclass_end(&ends);
		goto out;
	}
	if ((r = bclass_diff(&s, key, good, bad, c->p->threshold_pct, &ends, &err)) < 0 ||
	    (r = bclass_diff(&s, key, good, me, c->p->threshold_pct, &vg, &err)) < 0 ||
	    (r = bclass_diff(&s, key, bad, me, c->p->threshold_pct, &vb, &err)) < 0)
		goto diff_failed;
	m->change_pct = vg.raw_pct;
	m->class = bclass_commit(&vg, &vb, ends.dir);
	goto out;
diff_failed:
	if (err.msg[0])
		error_format(&err, c->msg, c->len);
	else
		snprintf(c->msg, c->len, "cannot compare the boots: %s", strerror(-r));
out:
	series_free(&s);
	return r;
}

/* The culprit's .text against its parent's, from any build of the parent seen so far. */
static int text_identical(const struct bctx *c, size_t culprit, const char *text)
{
	if (!text[0] || culprit == 0)
		return 0;
	for (size_t k = 0; k < c->b.n_steps; k++) {
		const struct bisect_step *st = &c->b.steps[k];

		if (st->commit == culprit - 1 && st->role != BISECT_ROLE_REVERT &&
		    st->text_sha256[0])
			return !strcmp(st->text_sha256, text);
	}
	return 0;
}

static int run_step(struct bctx *c, const char *dir, const char *variant_path,
		    const char *label)
{
	const struct bisect_params *p = c->p;
	struct ktry_opts ko = { .env = c->o->env, .job_file = p->job_file, .timing = p->timing,
				.parallel = p->parallel };

	return ktry_run(&ko, c->o->job, &variant_path, &label, 1, p->boots, dir, c->msg, c->len);
}

static int measure(struct bctx *c, const struct bisect_next *nx, struct bisect_measure *m,
		   double **vals, struct step_read *sr)
{
	const struct bisect_params *p = c->p;
	size_t cur = c->b.n_steps;
	const char *sha = c->b.commits[nx->commit].sha;
	char dir[PATH_MAX + 128], vpath[PATH_MAX + 256], patch[PATH_MAX + 64], label[64];
	_cleanup_json_ json_t *rep = NULL;
	struct lab_error err = { 0 };
	int revert = nx->role == BISECT_ROLE_REVERT, r;

	step_dir(c, cur, nx->commit, nx->role, dir, sizeof(dir));
	fs_rm_rf(dir); /* a step that was under way when the bisection stopped */
	if ((r = fs_mkdir_p(dir, 0755)) < 0)
		return fail(c, r, "cannot create %s: %s", dir, strerror(-r));
	snprintf(label, sizeof(label), "%.12s", sha);
	if (revert) {
		const char *culprit = c->b.commits[nx->reverted].sha;

		snprintf(patch, sizeof(patch), "%s/revert-%.12s.patch", c->o->dir, culprit);
		if ((r = bgit_revert_patch(c->p->repo, culprit, patch, &err)) < 0) {
			error_format(&err, c->msg, c->len);
			return r;
		}
		snprintf(label, sizeof(label), "%.12s-revert-%.12s", sha, culprit);
	}
	if ((r = ktry_write(c->tmpl, sha, revert ? patch : NULL, dir, p->variant, vpath,
			    sizeof(vpath))) < 0)
		return fail(c, r, "cannot write the step's variant in %s: %s", dir, strerror(-r));
	if ((r = run_step(c, dir, vpath, label)) < 0)
		return r;
	if (!(rep = load_report(dir)))
		return fail(c, -EIO, "the step wrote no readable %s/report.json", dir);
	read_step(rep, revert, sr);
	*m = (struct bisect_measure){ .commit = nx->commit, .outcome = sr->outcome,
				      .mean = NAN, .ci_lo = NAN, .ci_hi = NAN,
				      .change_pct = NAN, .kernel_key = sr->key[0] ? sr->key : NULL,
				      .text_sha256 = sr->text[0] ? sr->text : NULL };
	if (sr->outcome == BISECT_OUTCOME_OK && (r = classify(c, dir, nx, m, vals)) < 0)
		return r;
	if (nx->role == BISECT_ROLE_CULPRIT)
		m->text_identical = text_identical(c, nx->commit, sr->text);
	return 0;
}

/* ---- the log and the result ---------------------------------------------------------------- */

/* The reports that stand for commit's figures under label: every verify measurement of it
 * in role vrole (a try measured again pools its boots, as gather's do), else its last good
 * measurement in another role (not the revert's, which is the bad end patched).  None: s has
 * no variant label. */
static int add_commit(struct bctx *c, struct series_set *s, size_t commit,
		      enum bisect_role vrole, const char *label, struct lab_error *err)
{
	size_t last = BISECT_NONE;
	char dir[PATH_MAX + 128];
	int r = 0, added = 0;

	for (size_t k = 0; k < c->b.n_steps && r == 0; k++) {
		const struct bisect_step *st = &c->b.steps[k];

		if (st->commit != commit || st->outcome != BISECT_OUTCOME_OK ||
		    st->role == BISECT_ROLE_REVERT)
			continue;
		if (st->role != vrole) {
			last = k;
			continue;
		}
		step_dir(c, k, commit, st->role, dir, sizeof(dir));
		r = add_report(s, dir, label, err);
		added = 1;
	}
	if (r == 0 && !added && last != BISECT_NONE) {
		step_dir(c, last, commit, c->b.steps[last].role, dir, sizeof(dir));
		r = add_report(s, dir, label, err);
	}
	return r;
}

/* Why the culprit moved, once a bisection over names one: its deltas against its parent's
 * (analysis/bisect_class.h), for bisect.json and the summary.  A report that cannot be read
 * is a reason in the document, not a failed bisection: the answer stands without them. */
static int explain_culprit(struct bctx *c)
{
	size_t culprit = c->b.result.culprit;
	struct series_set s;
	struct lab_error err = { 0 };
	char msg[sizeof(err.file) + sizeof(err.path) + sizeof(err.msg) + 8];
	int r;

	if (c->why || c->b.phase != BISECT_PHASE_DONE || culprit == BISECT_NONE || culprit == 0)
		return 0;
	series_init(&s);
	if ((r = add_commit(c, &s, culprit - 1, BISECT_ROLE_PARENT, "parent", &err)) < 0 ||
	    (r = add_commit(c, &s, culprit, BISECT_ROLE_CULPRIT, "culprit", &err)) < 0) {
		if (r == -ENOMEM)
			goto out;
		error_format(&err, msg, sizeof(msg));
		c->why = json_pack("{s:s}", "culprit_deltas_absent", msg);
		r = c->why ? 0 : -ENOMEM;
	} else {
		r = bclass_culprit_deltas(&s, bclass_variant(&s, "parent"),
					  bclass_variant(&s, "culprit"), &c->pick, &c->why,
					  &c->why_text);
	}
out:
	series_free(&s);
	return r;
}

/* bisect.json: the engine's document, with each step's directory and how it was measured, the
 * series followed, what the bisection was asked and what it cost. */
static int write_outputs(struct bctx *c)
{
	_cleanup_free_ char *log = NULL, *lpath = fs_join(c->o->dir, "bisect.log");
	_cleanup_free_ char *jpath = fs_join(c->o->dir, "bisect.json");
	_cleanup_json_ json_t *doc = NULL;
	json_t *steps;
	char host[256] = "";
	size_t i;
	json_t *st;
	int r;

	if (!lpath || !jpath || (r = bisect_log_format(&c->b, &log)) < 0 ||
	    (r = bisect_to_json(&c->b, &doc)) < 0 || (r = explain_culprit(c)) < 0)
		return fail(c, -ENOMEM, "out of memory");
	if ((r = fs_write_atomic(lpath, log, strlen(log))) < 0)
		return fail(c, r, "cannot write %s: %s", lpath, strerror(-r));
	gethostname(host, sizeof(host) - 1);
	steps = json_object_get(doc, "steps");
	json_array_foreach(steps, i, st)
		json_object_update(st, json_array_get(c->measured, i));
	json_object_set_new(doc, "params", bisect_params_to_json(c->p));
	json_object_set_new(doc, "series", json_string(c->series));
	if (c->followed)
		json_object_set(doc, "followed", c->followed);
	json_object_set_new(doc, "host", json_string(host));
	json_object_set_new(doc, "cost", json_pack("{s:I, s:I, s:I, s:f, s:f}", "measurements",
						   (json_int_t)c->b.n_steps, "builds",
						   (json_int_t)c->builds, "boots",
						   (json_int_t)c->boots, "build_s", c->build_s,
						   "wall_s", clock_now_s() - c->t0));
	if (c->why)
		json_object_update(doc, c->why);
	if ((r = jsonio_write_file(jpath, doc)) < 0)
		return fail(c, r, "cannot write %s: %s", jpath, strerror(-r));
	return 0;
}

static json_t *measured_json(const struct bctx *c, size_t k, const struct step_read *sr)
{
	char dir[PATH_MAX + 128];
	const char *rel;

	step_dir(c, k, c->b.steps[k].commit, c->b.steps[k].role, dir, sizeof(dir));
	rel = dir + strlen(c->o->dir) + 1;
	return json_pack("{s:s, s:s?, s:b, s:f, s:I, s:I}", "dir", rel,
			 "timing", sr->timing[0] ? sr->timing : NULL, "built", sr->built,
			 "build_s", sr->build_s, "boots_ok", (json_int_t)sr->ok_boots,
			 "boots_contended", (json_int_t)sr->contended);
}

/* ---- start, resume --------------------------------------------------------------------- */

/* On resume: the log replayed, the cost and per-step facts read back from the step reports. */
static int resume(struct bctx *c)
{
	_cleanup_free_ char *lpath = fs_join(c->o->dir, "bisect.log"), *text = NULL;
	struct lab_error err = { 0 };
	size_t len = 0;
	int r;

	if (!lpath)
		return -ENOMEM;
	if ((r = fs_read_file(lpath, BISECT_LOG_MAX, &text, &len)) < 0)
		return fail(c, -EINVAL, "cannot read %s: %s", lpath, strerror(-r));
	if ((r = bisect_log_replay(&c->b, text, len, &err)) < 0) {
		char e[600];

		error_format(&err, e, sizeof(e));
		return fail(c, -EINVAL, "%s: %s", lpath, e);
	}
	for (size_t k = 0; k < c->b.n_steps; k++) {
		char dir[PATH_MAX + 128];
		_cleanup_json_ json_t *rep = NULL;
		struct step_read sr = { 0 };

		step_dir(c, k, c->b.steps[k].commit, c->b.steps[k].role, dir, sizeof(dir));
		if ((rep = load_report(dir)))
			read_step(rep, c->b.steps[k].role == BISECT_ROLE_REVERT, &sr);
		c->builds += sr.built;
		c->build_s += sr.built ? sr.build_s : 0;
		c->boots += sr.ok_boots;
		json_array_append_new(c->measured, measured_json(c, k, &sr));
	}
	progress(c, "resuming: %zu step(s) replayed from %s", c->b.n_steps, lpath);
	return 0;
}

static int load_template(struct bctx *c)
{
	char vpath[PATH_MAX + 128];
	struct lab_error err = { 0 };
	int r;

	snprintf(vpath, sizeof(vpath), "%s/%s.json", c->o->dir, c->p->variant);
	if ((r = jsonio_load_file(vpath, 1u << 20, &c->tmpl, &err)) < 0) {
		error_format(&err, c->msg, c->len);
		return -EINVAL;
	}
	return 0;
}

static int start(struct bctx *c, size_t n)
{
	_cleanup_free_ char *ppath = fs_join(c->o->dir, "params.json");
	_cleanup_json_ json_t *pj = bisect_params_to_json(c->p);
	char vpath[PATH_MAX + 128];
	int r;

	if ((r = ktry_template(c->p->variant_file, c->p->repo, c->p->good, &c->tmpl, c->msg,
			       c->len)) < 0)
		return r;
	if (!ppath || !pj)
		return -ENOMEM;
	if ((r = jsonio_write_file(ppath, pj)) < 0)
		return fail(c, r, "cannot write %s: %s", ppath, strerror(-r));
	snprintf(vpath, sizeof(vpath), "%s/%s.json", c->o->dir, c->p->variant);
	if ((r = jsonio_write_file(vpath, c->tmpl)) < 0)
		return fail(c, r, "cannot write %s: %s", vpath, strerror(-r));
	progress(c, "bisecting %zu commits %.12s..%.12s of %s", n, c->p->good, c->p->bad,
		 c->p->repo);
	return write_outputs(c);
}

/* ---- the loop ------------------------------------------------------------------------------ */

static void say_next(struct bctx *c, const struct bisect_next *nx)
{
	const struct bisect_commit *cm = &c->b.commits[nx->commit];

	if (nx->phase == BISECT_PHASE_BISECT)
		progress(c, "step %zu: %.12s %s (%zu commits left, about %u step(s)), %u boot(s)",
			 c->b.n_steps + 1, cm->sha, cm->subject, nx->left, nx->steps, c->p->boots);
	else
		progress(c, "step %zu: %s %.12s %s%s%.12s, %u boot(s)%s", c->b.n_steps + 1,
			 bisect_role_name(nx->role), cm->sha, cm->subject,
			 nx->reverted != BISECT_NONE ? ", reverting " : "",
			 nx->reverted != BISECT_NONE ? c->b.commits[nx->reverted].sha : "",
			 c->p->boots, nx->try > 1 ? " (again)" : "");
}

static int loop(struct bctx *c)
{
	struct bisect_next nx;
	int r;

	for (bisect_next(&c->b, &nx); nx.phase != BISECT_PHASE_DONE; bisect_next(&c->b, &nx)) {
		_cleanup_free_ double *vals = NULL;
		struct bisect_measure m;
		struct step_read sr;
		struct lab_error err = { 0 };
		const struct bisect_step *st;

		double t0 = clock_now_s();

		if (c->o->env.interrupt && *c->o->env.interrupt)
			return -EINTR;
		say_next(c, &nx);
		if ((r = measure(c, &nx, &m, &vals, &sr)) < 0)
			return r;
		if ((r = bisect_record(&c->b, &m, &err)) < 0) {
			error_format(&err, c->msg, c->len);
			return r;
		}
		c->builds += sr.built;
		c->build_s += sr.built ? sr.build_s : 0;
		c->boots += sr.ok_boots;
		json_array_append_new(c->measured, measured_json(c, c->b.n_steps - 1, &sr));
		st = &c->b.steps[c->b.n_steps - 1];
		progress(c, "step %zu: %.12s %s: %s (%.0f s)", c->b.n_steps,
			 c->b.commits[st->commit].sha, bisect_mark_name(st->verdict), st->reason,
			 clock_now_s() - t0);
		if ((r = write_outputs(c)) < 0)
			return r;
	}
	return 0;
}

static void summarize(struct bctx *c, struct bisect_run_summary *sum)
{
	const struct bisect_result *res = &c->b.result;

	sum->answer = c->b.phase == BISECT_PHASE_DONE ? res->answer : BISECT_ANSWER_NONE;
	snprintf(sum->reason, sizeof(sum->reason), "%s", res->reason);
	if (sum->answer != BISECT_ANSWER_NONE && res->culprit != BISECT_NONE) {
		snprintf(sum->culprit, sizeof(sum->culprit), "%s", c->b.commits[res->culprit].sha);
		snprintf(sum->culprit_subject, sizeof(sum->culprit_subject), "%s",
			 c->b.commits[res->culprit].subject);
	}
	snprintf(sum->series, sizeof(sum->series), "%s", c->series);
	snprintf(sum->why, sizeof(sum->why), "%s", c->why_text.len ? c->why_text.buf : "");
	snprintf(sum->result, sizeof(sum->result), "%s/bisect.json", c->o->dir);
	snprintf(sum->log, sizeof(sum->log), "%s/bisect.log", c->o->dir);
	sum->commits = (unsigned)c->b.n;
	sum->measurements = (unsigned)c->b.n_steps;
	sum->builds = c->builds;
	sum->boots = c->boots;
	sum->build_s = c->build_s;
	sum->wall_s = clock_now_s() - c->t0;
}

int bisect_run(const struct bisect_run_opts *o, struct bisect_run_summary *sum, char *msg,
	       size_t len)
{
	const struct bisect_params *p = o->p;
	struct bctx c = { .o = o, .p = p, .msg = msg, .len = len, .t0 = clock_now_s(),
			  .why_text = STRBUF_INIT,
			  .pick = { .workload = p->workload[0] ? p->workload : NULL,
				    .metric = p->metric[0] ? p->metric : NULL,
				    .tasks = p->tasks } };
	struct bisect_config cfg = { .threshold_pct = p->threshold_pct, .max_tries = p->max_tries,
				     .check_revert = p->check_revert };
	_cleanup_free_ struct bisect_commit_in *commits = NULL;
	_cleanup_free_ char *buf = NULL, *steps = fs_join(o->dir, "steps");
	struct lab_error err = { 0 };
	size_t n = 0;
	int r, inited = 0;

	memset(sum, 0, sizeof(*sum));
	msg[0] = '\0';
	if (!steps || !(c.measured = json_array()))
		return -ENOMEM;
	if ((r = bgit_check_repo(p->repo, &err)) < 0 ||
	    (r = bgit_commits(p->repo, p->good, p->bad, &commits, &n, &buf, &err)) < 0) {
		error_format(&err, msg, len);
		r = -EINVAL;
		goto out;
	}
	if ((r = bisect_init(&c.b, commits, n, &cfg, &err)) < 0) {
		error_format(&err, msg, len);
		goto out;
	}
	inited = 1;
	if ((r = fs_mkdir_p(steps, 0755)) < 0) {
		snprintf(msg, len, "cannot create %s: %s", steps, strerror(-r));
		goto out;
	}
	r = o->resume ? load_template(&c) : start(&c, n);
	if (r == 0 && o->resume)
		r = resume(&c);
	if (r == 0)
		r = loop(&c);
	if (r == 0 || r == -EINTR) {
		int w = write_outputs(&c);

		summarize(&c, sum);
		if (w < 0)
			r = w;
	}
out:
	if (inited)
		bisect_free(&c.b);
	json_decref(c.tmpl);
	json_decref(c.measured);
	json_decref(c.followed);
	json_decref(c.why);
	strbuf_free(&c.why_text);
	if (r == -EINTR)
		snprintf(msg, len, "interrupted: resume with 'lab bisect resume %s'", o->dir);
	return r;
}
