/* A bisection measurement against the ends (lab/analysis/bisect_class.h) and the parameters a
 * bisection keeps (lab/core/bisect_params.h).
 *
 * Inputs: the synthetic reports of lab/tests/data/compare/ (b.json's pft faults/s at 4 tasks is
 * about 9 % below a.json's), labelled as the good end, the bad end and the commit measured.
 * The parameters' JSON is compared with lab/tests/golden/bisect-params.json (UPDATE_GOLDEN=1 rewrites it).
 * Why a culprit moved: the profiled fixtures of lab/tests/data/deltas/ (testutil_deltas.h), A
 * labelled the culprit's parent and B the culprit; the planted case's JSON and lines are
 * compared with lab/tests/golden/bisect-culprit-deltas.{json,txt}. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/bisect_class.h"
#include "core/bisect_params.h"
#include "testutil.h"
#include "testutil_deltas.h"

#define DATA "lab/tests/data/compare/"

/* good = a.json, bad = bad_file, this = this_file (NULL: none). */
static int load3(struct series_set *s, const char *bad_file, const char *this_file)
{
	_cleanup_json_ json_t *g = testutil_load(DATA "a.json");
	_cleanup_json_ json_t *b = testutil_load(bad_file);
	_cleanup_json_ json_t *t = this_file ? testutil_load(this_file) : NULL;
	struct lab_error err = { 0 };

	series_init(s);
	if (!g || !b || (this_file && !t))
		return -EINVAL;
	if (series_add_report(s, g, "good.json", "good", &err) < 0 ||
	    series_add_report(s, b, "bad.json", "bad", &err) < 0 ||
	    (t && series_add_report(s, t, "this.json", "this", &err) < 0)) {
		printf("# %s\n", err.msg);
		return -EINVAL;
	}
	return 0;
}

static void test_pick(void)
{
	struct series_set s;
	struct lab_error err = { 0 };
	struct bclass_pick def = { 0 }, four = { .tasks = 4 }, two = { .tasks = 2 };
	struct bclass_pick sys = { .workload = "pft", .metric = "sys_s", .tasks = 1 };
	struct bclass_pick nope = { .metric = "nope" };
	size_t k;

	if (!tap_ok(load3(&s, DATA "b.json", NULL) == 0, "reports load"))
		return;
	tap_ok(bclass_find_key(&s, &def, &k, &err) == 0 && s.keys[k].tasks == 4 &&
	       !strcmp(s.groups[s.keys[k].group].metric, "faults_per_s"),
	       "default: the first workload's first primary metric, the largest task count");
	tap_ok(bclass_find_key(&s, &four, &k, &err) == 0 && s.keys[k].tasks == 4, "tasks 4");
	tap_ok(bclass_find_key(&s, &sys, &k, &err) == 0 && s.keys[k].tasks == 1 &&
	       !strcmp(s.groups[s.keys[k].group].metric, "sys_s"), "a metric named, 1 task");
	err = (struct lab_error){ 0 };
	tap_ok(bclass_find_key(&s, &two, &k, &err) == -ENOENT &&
	       strstr(err.msg, "not measured with 2 tasks; it was with 1, 4"),
	       "a task count not measured: says which were (%s)", err.msg);
	err = (struct lab_error){ 0 };
	tap_ok(bclass_find_key(&s, &nope, &k, &err) == -ENOENT && strstr(err.msg, "pft.nope") &&
	       strstr(err.msg, "pft.faults_per_s"),
	       "an unknown metric: lists those there are (%s)", err.msg);
	tap_ok(bclass_variant(&s, "bad") == 1 && bclass_variant(&s, "x") == (size_t)-1,
	       "variants by label");
	series_free(&s);
}

/* The class of this_file between good (a.json) and bad_file, on pft faults/s at 4 tasks. */
static enum bisect_class commit_class(const char *bad_file, const char *this_file,
				      double thr, struct bclass_diff *vg)
{
	struct series_set s;
	struct lab_error err = { 0 };
	struct bclass_pick pick = { .tasks = 4 };
	struct bclass_diff ends, vb;
	enum bisect_class c = (enum bisect_class)-1;
	size_t k;

	if (load3(&s, bad_file, this_file) == 0 && bclass_find_key(&s, &pick, &k, &err) == 0 &&
	    bclass_diff(&s, k, 0, 1, thr, &ends, &err) == 0 &&
	    bclass_diff(&s, k, 0, 2, thr, vg, &err) == 0 &&
	    bclass_diff(&s, k, 1, 2, thr, &vb, &err) == 0)
		c = bclass_commit(vg, &vb, ends.dir);
	series_free(&s);
	return c;
}

static void test_classes(void)
{
	struct series_set s;
	struct lab_error err = { 0 };
	struct bclass_pick pick = { .tasks = 4 };
	struct bclass_diff d, vg;
	double *v = NULL;
	size_t k, n = 0;

	if (load3(&s, DATA "b.json", NULL) < 0 || bclass_find_key(&s, &pick, &k, &err) < 0) {
		tap_ok(0, "reports load");
		series_free(&s);
		return;
	}
	int r = bclass_diff(&s, k, 0, 1, 1.0, &d, &err);

	tap_ok(r == 0 && d.verdict == VERDICT_REGRESSION && d.dir == -1 && d.raw_pct < -8 &&
	       d.raw_pct > -11, "bad end ~9%% below the good end: a regression beyond 1%% (%.2f %%, "
	       "%s, dir %d)", d.raw_pct, verdict_name(d.verdict), d.dir);
	tap_ok(bclass_end(&d) == BISECT_CLASS_BAD, "the bad end is bad");
	tap_ok(bclass_diff(&s, k, 0, 1, 50.0, &d, &err) == 0 && bclass_end(&d) == BISECT_CLASS_GOOD,
	       "with a 50%% threshold the ends do not differ: good (no-difference)");
	tap_ok(bclass_boot_values(&s, k, 0, &v, &n) == 0 && n == 3 && v && v[0] > 0,
	       "per-boot values of the good end: 3 boots");
	free(v);
	tap_ok(bclass_diff(&s, k, 0, 7, 1.0, &d, &err) == -ENOENT, "an unknown variant: -ENOENT");
	series_free(&s);

	tap_ok(commit_class(DATA "b.json", DATA "a.json", 1.0, &vg) == BISECT_CLASS_GOOD,
	       "a commit measuring like the good end is good");
	enum bisect_class c = commit_class(DATA "b.json", DATA "b.json", 1.0, &vg);

	tap_ok(c == BISECT_CLASS_BAD && vg.raw_pct < -8,
	       "a commit measuring like the bad end is bad (%s, %.2f %%)", bisect_class_name(c),
	       vg.raw_pct);
	/* Both ends alike: a commit cannot be placed on either side. */
	tap_ok(commit_class(DATA "a.json", DATA "b.json", 1.0, &vg) == BISECT_CLASS_INCONCLUSIVE,
	       "ends that do not differ place no commit: inconclusive");
}

/* The rule itself, on hand-made verdicts. */
static void test_rule(void)
{
	struct bclass_diff g = { 0 }, b = { 0 };

	g.verdict = VERDICT_REGRESSION;
	b.verdict = VERDICT_NO_CHANGE;
	tap_ok(bclass_commit(&g, &b, -1) == BISECT_CLASS_BAD, "regression bisect: worse than good, like bad: bad");
	g.verdict = VERDICT_NO_CHANGE;
	b.verdict = VERDICT_IMPROVEMENT;
	tap_ok(bclass_commit(&g, &b, -1) == BISECT_CLASS_GOOD, "like good, better than bad: good");
	g.verdict = VERDICT_REGRESSION;
	tap_ok(bclass_commit(&g, &b, -1) == BISECT_CLASS_INCONCLUSIVE,
	       "half-way (beyond both ends): inconclusive");
	g.verdict = VERDICT_INCONCLUSIVE;
	b.verdict = VERDICT_INCONCLUSIVE;
	tap_ok(bclass_commit(&g, &b, -1) == BISECT_CLASS_INCONCLUSIVE, "too few boots: inconclusive");
	g.verdict = VERDICT_IMPROVEMENT;
	b.verdict = VERDICT_NO_CHANGE;
	tap_ok(bclass_commit(&g, &b, 1) == BISECT_CLASS_BAD,
	       "an improvement is bisected the same way: better than good, like bad: bad");
	tap_ok(bclass_commit(&g, &b, 0) == BISECT_CLASS_INCONCLUSIVE, "no direction: inconclusive");
	g.verdict = VERDICT_INSUFFICIENT;
	tap_ok(bclass_end(&g) == BISECT_CLASS_INCONCLUSIVE, "an end with too few boots: inconclusive");
}

static void test_params(void)
{
	struct bisect_params p = {
		.job_file = "/lab/job.json", .job_sha256 = "ab", .variant_file = "/lab/v.json",
		.variant = "v", .repo = "/src/linux", .good_ref = "v6.12", .bad_ref = "HEAD",
		.good = "1111111111111111111111111111111111111111",
		.bad = "2222222222222222222222222222222222222222", .workload = "pft",
		.metric = "faults_per_s", .tasks = 8, .threshold_pct = 2, .boots = 3,
		.max_tries = 3, .check_revert = 1, .timing = "icount", .parallel = 2,
	}, q;
	_cleanup_json_ json_t *j = bisect_params_to_json(&p);
	_cleanup_free_ char *text = j ? jsonio_dumps(j) : NULL;
	struct lab_error err = { 0 };

	testutil_golden("bisect-params.json", text);
	tap_ok(j && bisect_params_from_json(j, &q, &err) == 0 && !memcmp(&p, &q, sizeof(p)),
	       "params: JSON and back gives the same struct");
	json_object_set_new(j, "boots", json_integer(1));
	err = (struct lab_error){ 0 };
	tap_ok(bisect_params_from_json(j, &q, &err) == -EINVAL && !strcmp(err.path, "boots"),
	       "params: boots 1 refused at \"boots\" (%s)", err.msg);
	json_object_set_new(j, "boots", json_integer(3));
	json_object_set_new(json_object_get(j, "good"), "commit", json_string("v6.12"));
	err = (struct lab_error){ 0 };
	tap_ok(bisect_params_from_json(j, &q, &err) == -EINVAL && !strcmp(err.path, "good.commit"),
	       "params: a good end that is not a commit name refused (%s)", err.path);
	json_object_set_new(j, "schema", json_string("numalab.bisect-params/9"));
	err = (struct lab_error){ 0 };
	tap_ok(bisect_params_from_json(j, &q, &err) == -EINVAL && !strcmp(err.path, "schema"),
	       "params: another schema refused");
}

/* The case's A as "parent" and B as "culprit" (B's runs on accel, when given), and the
 * culprit's deltas against its parent on pick; *out and text to be freed.  0, or -EINVAL. */
static int culprit_case(const char *name, const char *accel, const struct bclass_pick *pick,
			json_t **out, struct strbuf *text)
{
	_cleanup_json_ json_t *a = NULL, *b = NULL;
	struct lab_error err = { 0 };
	struct series_set s;
	json_t *run;
	size_t i;
	int r = -EINVAL;

	*out = NULL;
	series_init(&s);
	if (deltas_case_load(name, &a, &b) < 0)
		return -EINVAL;
	json_array_foreach(json_object_get(b, "runs"), i, run)
		if (accel)
			json_object_set_new(json_object_get(run, "host"), "accel", json_string(accel));
	if (series_add_report(&s, a, "parent.json", "parent", &err) == 0 &&
	    series_add_report(&s, b, "culprit.json", "culprit", &err) == 0)
		r = bclass_culprit_deltas(&s, bclass_variant(&s, "parent"),
					  bclass_variant(&s, "culprit"), pick, out, text);
	else
		printf("# %s: %s\n", name, err.msg);
	series_free(&s);
	return r;
}

/* The string key of o, or "". */
static const char *str_of(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

static void test_culprit_deltas(void)
{
	static const struct bclass_pick pick = { .tasks = 4 }, nope = { .metric = "nope" };
	_cleanup_strbuf_ struct strbuf text = STRBUF_INIT, quiet = STRBUF_INIT, none = STRBUF_INIT;
	_cleanup_json_ json_t *out = NULL, *aa = NULL, *one = NULL, *tm = NULL, *np = NULL;
	_cleanup_free_ char *js = NULL;
	const json_t *d;
	struct series_set empty;
	int r;

	if (!tap_ok(culprit_case("planted", NULL, &pick, &out, &text) == 0, "culprit: planted"))
		return;
	d = json_object_get(out, "culprit_deltas");
	tap_ok(d && !json_object_get(out, "culprit_deltas_absent") &&
	       !strcmp(str_of(d, "against"), "the culprit's parent") &&
	       json_is_false(json_object_get(d, "deciding")) &&
	       !strcmp(str_of(json_array_get(json_object_get(d, "profile"), 0), "symbol"),
		       "do_anonymous_page"),
	       "culprit: its deltas against its parent, do_anonymous_page first, not deciding");
	tap_ok(text.buf && strstr(text.buf, "  why it moved (not deciding; per fault, boots A 3, "
					    "B 3):\n    do_anonymous_page  +52.0 insns/fault") &&
	       strstr(text.buf, "(A: the culprit's parent, B: the culprit)\n"),
	       "culprit: the summary's lines, A the parent and B the culprit");
	js = json_dumps(out, JSON_INDENT(2) | JSON_SORT_KEYS);
	testutil_golden("bisect-culprit-deltas.json", js);
	testutil_golden("bisect-culprit-deltas.txt", text.buf);

	r = culprit_case("aa", NULL, &pick, &aa, &quiet);
	tap_ok(r == 0 && json_array_size(json_object_get(json_object_get(aa, "culprit_deltas"),
							 "profile")) == 0 && quiet.len == 0,
	       "culprit: nothing stands out (A/A): deltas with no line, no summary lines");
	r = culprit_case("one-side", NULL, &pick, &one, &none);
	tap_ok(r == 0 && strstr(str_of(one, "culprit_deltas_absent"),
				"cannot be compared with its parent") &&
	       strstr(str_of(one, "culprit_deltas_absent"), "profile") && none.len == 0,
	       "culprit: a side compare refuses (one profiled): the reason instead (%s)",
	       str_of(one, "culprit_deltas_absent"));
	r = culprit_case("planted", "kvm", &pick, &tm, NULL);
	tap_ok(r == 0 && strstr(str_of(tm, "culprit_deltas_absent"),
				"cannot be compared with its parent") &&
	       strstr(str_of(tm, "culprit_deltas_absent"), "kvm"),
	       "culprit: different timing models: the reason instead (%s)",
	       str_of(tm, "culprit_deltas_absent"));
	r = culprit_case("planted", NULL, &nope, &np, NULL);
	tap_ok(r == 0 && strstr(str_of(np, "culprit_deltas_absent"), "pft.nope"),
	       "culprit: a series the reports lack: the reason instead (%s)",
	       str_of(np, "culprit_deltas_absent"));
	json_decref(out);
	series_init(&empty);
	r = bclass_culprit_deltas(&empty, (size_t)-1, (size_t)-1, &pick, &out, NULL);
	tap_ok(r == 0 && !strcmp(str_of(out, "culprit_deltas_absent"),
				 "the culprit's parent was not measured"),
	       "culprit: a parent not measured: said so");
	series_free(&empty);
}

int main(void)
{
	test_pick();
	test_classes();
	test_rule();
	test_params();
	test_culprit_deltas();
	return tap_done();
}
