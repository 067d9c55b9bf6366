/* `lab nightly`'s decisions (lab/analysis/nightly_policy.h) on recorded ledgers.
 *
 * lab/tests/data/nightly/policy/NAME.json is one job's night as lab/regress/nightly.c meets it:
 *   "config"   the nightly configuration (lab/core/nightly_cfg.h parses it)
 *   "job", "variant"   the job judged
 *   "run"      what every report measured: workload, params, task count, metrics (unit,
 *              better), timing model, host CPUs
 *   "ledger"   the ledger as `lab nightly` writes it, tonight's night last
 *   "boots"    each report's per-boot values by metric ({REPORT: {METRIC: [v, ...]}}); a
 *              report not there is one removed by hand
 *   "confirm"  what the side-by-side run of a suspect night measures ({NIGHT: {"good": ...,
 *              "suspect": ...}})
 *   "bisect"   what a bisection answers ({"answer", "culprit", "reason"})
 *   "expect"   the counts the case is about, checked apart from the golden file;
 *              "change_points_by": {SOURCE: N}, the series' change points each source named; and
 *              "fast_check_missed": NIGHT, a night no suspect on the ledger as it was then
 * The reports are made of those values, and the night is judged in the order nightly.c asks;
 * what is decided (nightly.json's suspects, confirmations, alarms and series; the series not
 * searched; the counts; each bisection asked; the ledger after) is compared with
 * lab/tests/golden/nightly-NAME.json (UPDATE_GOLDEN=1 rewrites them). */
#include <errno.h>
#include <string.h>

#include "analysis/nightly_policy.h"
#include "core/runreport.h"
#include "testutil.h"

#define DATA "lab/tests/data/nightly/policy"

/* One case loaded. */
struct ncase {
	const char *name;
	json_t *j;                /* the case file */
	struct nightly_cfg cfg;
	struct nightly_ledger ledger;
	const char *job, *variant, *tonight;
};

/* One run of the case's workload: the b-th value of each metric in vals, labelled label. */
static json_t *make_run(const json_t *run, const json_t *vals, size_t b, const char *label)
{
	const json_t *m = json_object_get(run, "metrics"), *def;
	json_t *metrics = json_object(), *params = json_deep_copy(json_object_get(run, "params"));
	json_int_t tasks = json_integer_value(json_object_get(run, "tasks"));
	const char *name;

	json_object_foreach((json_t *)m, name, def) {
		const json_t *v = json_array_get(json_object_get(vals, name), b);

		if (v)
			json_object_set_new(metrics, name, json_pack("{s:O, s:O, s:O}",
				"unit", json_object_get(def, "unit"),
				"better", json_object_get(def, "better"), "value", v));
	}
	json_object_set_new(params, "tasks", json_pack("[I]", tasks));
	return json_pack("{s:s, s:{s:s}, s:{s:{s:i, s:i, s:i, s:i, s:i, s:[{}, {}]}}, "
			 "s:{s:{s:O}, s:{s:{s:O?}}}, s:[{s:O, s:o, s:s, s:[{s:I, s:o}]}]}",
			 "status", "ok", "kernel", "label", label, "topology", "requested",
			 "vcpus", 4, "sockets", 2, "dies", 1, "cores", 2, "threads", 1, "nodes",
			 "host", "timing", "key", json_object_get(run, "timing"), "noise", "before",
			 "cpus", json_object_get(run, "host_cpus"), "workloads", "name",
			 json_object_get(run, "workload"), "params", params, "status", "ok",
			 "results", "tasks", tasks, "metrics", metrics);
}

/* Boots in vals: its longest list of values. */
static size_t boots_in(const json_t *vals)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	json_object_foreach((json_t *)vals, k, v)
		n = json_array_size(v) > n ? json_array_size(v) : n;
	return n;
}

/* The boots of vals (one run each), or of two sides interleaved (A B A B). */
static json_t *make_report(const json_t *run, const json_t *a, const char *la, const json_t *b,
			   const char *lb)
{
	json_t *runs = json_array();
	size_t na = boots_in(a), nb = boots_in(b);

	for (size_t i = 0; i < na || i < nb; i++) {
		if (i < na)
			json_array_append_new(runs, make_run(run, a, i, la));
		if (i < nb)
			json_array_append_new(runs, make_run(run, b, i, lb));
	}
	return json_pack("{s:s, s:o}", "schema", RUNREPORT_SCHEMA, "runs", runs);
}

static int case_load(struct ncase *c, const char *name)
{
	_cleanup_free_ char *rel = NULL;
	struct lab_error err = { 0 };
	const json_t *nights;

	memset(c, 0, sizeof(*c));
	c->name = name;
	if (asprintf(&rel, "%s/%s", DATA, name) < 0 || !(c->j = testutil_load(rel)))
		return -EINVAL;
	if (nightly_cfg_from_json(json_object_get(c->j, "config"), &c->cfg, &err) < 0 ||
	    nightly_ledger_from_json(json_object_get(c->j, "ledger"), &c->ledger, &err) < 0) {
		printf("# %s: %s: %s\n", name, err.path, err.msg);
		return -EINVAL;
	}
	nights = json_object_get(json_object_get(c->j, "ledger"), "nights");
	c->job = json_string_value(json_object_get(c->j, "job"));
	c->variant = json_string_value(json_object_get(c->j, "variant"));
	c->tonight = json_string_value(json_object_get(json_array_get(nights,
		json_array_size(nights) - 1), "night"));
	return c->job && c->variant && c->tonight ? 0 : -EINVAL;
}

static void case_free(struct ncase *c)
{
	nightly_ledger_free(&c->ledger);
	json_decref(c->j);
}

/* The reports of p's nights into s, as nightly.c's add_nights reads them from OUT/. */
static int add_nights(const struct ncase *c, const struct npolicy *p, struct series_set *s)
{
	const json_t *boots = json_object_get(c->j, "boots"), *run = json_object_get(c->j, "run");
	struct lab_error err = { 0 };

	for (size_t k = 0; k < p->n; k++) {
		const char *path = p->ledger->nights[p->idx[k]].report;
		const json_t *vals = json_object_get(boots, path);
		_cleanup_json_ json_t *rep = NULL;
		char label[32];

		npolicy_night_label(k, label, sizeof(label));
		if (!vals)
			continue;
		rep = make_report(run, vals, "-", NULL, NULL);
		if (!rep || series_add_report(s, rep, path, label, &err) < 0) {
			printf("# %s: %s: %s\n", c->name, err.path, err.msg);
			return -EINVAL;
		}
	}
	return 0;
}

/* The k-th confirmation: measured from "confirm" (unless the same kernel) and judged. */
static int confirm(const struct ncase *c, struct npolicy *p, size_t k, json_t *asked)
{
	const json_t *cf = NULL;
	struct npolicy_confirm cc;
	json_t *conf = npolicy_confirm_get(p, k, &cc);
	_cleanup_json_ json_t *rep = NULL;
	struct lab_error err = { 0 };
	struct series_set s;
	char dir[256];
	int r = 0;

	json_array_append_new(asked, json_pack("{s:s, s:s, s:s, s:b}", "night", cc.bad->night,
		"good", cc.good_label, "suspect", cc.bad_label, "same_kernel", cc.same_kernel));
	if (cc.same_kernel)
		return 0;
	cf = json_object_get(json_object_get(c->j, "confirm"), cc.bad->night);
	if (!tap_ok(cf != NULL, "%s: the confirmation of night %s is recorded", c->name,
		    cc.bad->night))
		return -ENOENT;
	rep = make_report(json_object_get(c->j, "run"), json_object_get(cf, "good"),
			  cc.good_label, json_object_get(cf, "suspect"), cc.bad_label);
	series_init(&s);
	if (!rep)
		r = -ENOMEM;
	else if ((r = series_add_report(&s, rep, "confirm.json", NULL, &err)) < 0)
		printf("# %s: confirmation: %s: %s\n", c->name, err.path, err.msg);
	else
		npolicy_confirm_judge(p, &cc, &s);
	snprintf(dir, sizeof(dir), "%s/%s/confirm-%s", c->tonight, c->job, cc.bad->night);
	json_object_set_new(conf, "dir", json_string(dir));
	series_free(&s);
	return r;
}

static enum bisect_answer answer_named(const char *name)
{
	for (int a = BISECT_ANSWER_NONE; a <= BISECT_ANSWER_END_FAILED; a++)
		if (name && !strcmp(bisect_answer_name((enum bisect_answer)a), name))
			return (enum bisect_answer)a;
	return BISECT_ANSWER_NONE;
}

/* Suspect k settled; an alarm to bisect gets "bisect"'s answer. */
static int settle(const struct ncase *c, struct npolicy *p, size_t k, json_t *bisections)
{
	const json_t *b = json_object_get(c->j, "bisect");
	struct npolicy_alarm a;
	struct bisect_params bp;
	char dir[256];

	npolicy_settle(p, k, &a);
	if (!a.bisect)
		return 0;
	npolicy_bisect_params(p, k, &bp);
	json_array_append_new(bisections, bisect_params_to_json(&bp));
	snprintf(dir, sizeof(dir), "%s/%s/bisect", c->tonight, c->job);
	return npolicy_bisected(p, a.alarm, &(struct npolicy_bisection){
		.dir = dir, .r = 0, .answer = answer_named(json_string_value(json_object_get(b,
		"answer"))), .culprit = json_string_value(json_object_get(b, "culprit")) ?: "",
		.reason = json_string_value(json_object_get(b, "reason")) ?: "", .error = "" });
}

static json_t *counts_json(const struct npolicy_counts *n)
{
	return json_pack("{s:i, s:i, s:i, s:i, s:i, s:s}", "suspects", n->suspects, "confirmed",
			 n->confirmed, "regressions", n->regressions, "bisected", n->bisected,
			 "outside", n->outside, "culprit", n->culprit);
}

/* What the night decided, as one document. */
static json_t *decisions(const struct ncase *c, struct npolicy *p, const struct series_set *s,
			 json_t *asked, json_t *bisections)
{
	json_t *nights = json_array(), *outside = json_array();
	char name[1024];

	for (size_t k = 0; k < p->n; k++)
		json_array_append_new(nights, json_string(c->ledger.nights[p->idx[k]].night));
	for (size_t k = 0; k < p->nout; k++) {
		series_key_name(s, p->outside[k].key, name, sizeof(name));
		json_array_append_new(outside, json_pack("{s:s, s:s}", "series", name, "why",
							 p->outside[k].why));
	}
	return json_pack("{s:o, s:o, s:{s:O, s:O, s:O, s:o}, s:O, s:O, s:o, s:o}", "nights",
			 nights, "outside", outside, "report", "suspects", p->suspects,
			 "confirmations", p->confirmations, "alarms", p->alarms, "series",
			 npolicy_series_json(p), "measured", asked, "bisections", bisections,
			 "counts", counts_json(&p->counts), "ledger",
			 nightly_ledger_to_json(&c->ledger));
}

/* The night judged in nightly.c's order; the decisions, or NULL. */
static json_t *judge(struct ncase *c)
{
	_cleanup_json_ json_t *asked = json_array(), *bisections = json_array();
	struct npolicy p;
	struct series_set s;
	json_t *out = NULL;
	int r;

	if (npolicy_init(&p, &c->cfg, &c->ledger, c->job, c->variant) < 0)
		return NULL;
	series_init(&s);
	r = add_nights(c, &p, &s);
	if (r == 0)
		r = npolicy_search(&p, &s);
	for (size_t k = 0; k < p.nconfirm && r == 0; k++)
		r = confirm(c, &p, k, asked);
	for (size_t k = 0; k < p.nsus && r == 0; k++)
		r = settle(c, &p, k, bisections);
	if (r == 0)
		out = decisions(c, &p, &s, asked, bisections);
	else
		printf("# %s: judging stopped: %s\n", c->name, strerror(-r));
	npolicy_free(&p);
	series_free(&s);
	return out;
}

/* "fast_check_missed": NIGHT: on the ledger as it was that night (cut after it), the night
 * was no suspect of the fast check, nor of anything. */
static void check_missed(const struct ncase *c, const char *night)
{
	struct nightly_ledger then = c->ledger;
	struct npolicy p;
	struct series_set s;
	size_t at = c->ledger.n;
	int r;

	for (size_t i = 0; i < c->ledger.n; i++)
		if (!strcmp(c->ledger.nights[i].night, night))
			at = i;
	if (!tap_ok(at < c->ledger.n, "%s: night %s is in the ledger", c->name, night))
		return;
	then.n = at + 1;   /* the same nights, read only */
	if (npolicy_init(&p, &c->cfg, &then, c->job, c->variant) < 0)
		return;
	series_init(&s);
	r = add_nights(c, &p, &s);
	if (r == 0)
		r = npolicy_search(&p, &s);
	tap_ok(r == 0 && p.n == at + 1 && p.nsus == 0,
	       "%s: night %s was no suspect of its own night's fast check", c->name, night);
	npolicy_free(&p);
	series_free(&s);
}

/* How many change points of the report's series each source named: {"search": N, ...}. */
static json_t *change_points_by(const json_t *got)
{
	const json_t *series = json_object_get(json_object_get(got, "report"), "series"), *ser, *cp;
	json_t *by = json_object();
	size_t i, j;

	json_array_foreach((json_t *)series, i, ser)
		json_array_foreach(json_object_get(ser, "change_points"), j, cp) {
			const char *src = json_string_value(json_object_get(cp, "by"));
			json_int_t n = json_integer_value(json_object_get(by, src ? src : "?"));

			json_object_set_new(by, src ? src : "?", json_integer(n + 1));
		}
	return by;
}

/* The counts "expect" names match what was decided. */
static void check_expect(const struct ncase *c, const json_t *got)
{
	const json_t *want = json_object_get(c->j, "expect"), *v;
	const json_t *counts = json_object_get(got, "counts");
	const char *k;

	tap_ok(json_object_size(want) > 0, "%s: says what it expects", c->name);
	json_object_foreach((json_t *)want, k, v) {
		const json_t *have = json_object_get(counts, k);

		if (!strcmp(k, "fast_check_missed")) {
			check_missed(c, json_string_value(v));
			continue;
		}

		if (!strcmp(k, "change_points_by"))
			have = change_points_by(got);
		else if (!strcmp(k, "alarms"))
			have = json_integer((json_int_t)json_array_size(json_object_get(
				json_object_get(got, "report"), "alarms")));
		else if (!strcmp(k, "suspect_series"))
			have = json_integer((json_int_t)json_array_size(json_object_get(
				json_object_get(got, "report"), "suspects")));
		else
			json_incref((json_t *)have);
		if (!tap_ok(have && json_equal(have, v), "%s: %s", c->name, k)) {
			_cleanup_free_ char *s = have ? json_dumps(have, JSON_ENCODE_ANY) : NULL;

			printf("# got %s\n", s ? s : "nothing");
		}
		json_decref((json_t *)have);
	}
}

static void run_case(const char *file)
{
	char name[128], golden[160];
	_cleanup_free_ char *text = NULL;
	_cleanup_json_ json_t *got = NULL;
	struct ncase c;

	snprintf(name, sizeof(name), "%.*s", (int)(strlen(file) - 5), file);
	if (!tap_ok(case_load(&c, file) == 0, "%s: loads", name)) {
		case_free(&c);
		return;
	}
	c.name = name;
	got = judge(&c);
	if (tap_ok(got != NULL, "%s: judged", name)) {
		check_expect(&c, got);
		text = jsonio_dumps(got);
		snprintf(golden, sizeof(golden), "nightly-%s.json", name);
		testutil_golden(golden, text);
	}
	case_free(&c);
}

/* The night a run measured: some run ok. */
static void night_ok(void)
{
	_cleanup_json_ json_t *ok = json_pack("{s:[{s:s}, {s:s}]}", "runs", "status", "failed",
					      "status", "ok");
	_cleanup_json_ json_t *failed = json_pack("{s:[{s:s}]}", "runs", "status", "timeout");

	tap_ok(npolicy_night_ok(ok) && !npolicy_night_ok(failed) && !npolicy_night_ok(NULL),
	       "a night measured when some run is ok; none, or no report: failed");
}

int main(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	night_ok();
	testutil_json_dir_open(&d, DATA);
	tap_ok(d.n >= 6, "%s has the cases (%d)", DATA, d.n);
	for (int i = 0; i < d.n; i++)
		run_case(d.ents[i]->d_name);
	return tap_done();
}
