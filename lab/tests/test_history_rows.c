/* Reports -> the rows of the history index (lab/history/rows.h), pure.
 *
 * Each report below is turned into rows and the rows into JSON, compared byte for byte with
 * lab/tests/golden/history-rows-NAME.json (UPDATE_GOLDEN=1 rewrites them); the facts the index
 * exists for are also checked one by one, so that a golden file cannot quietly bless a wrong
 * value.  Inputs: the synthetic and real reports of lab/tests/data/compare/, a kernel-variant
 * A/B report under icount with build keys and a contended run (data/history/variant-ab.json),
 * and the run `lab run` writes in the report tests (golden/report-run-quick.json) put into a
 * report.  Reports that cannot be read fail with the file and the JSON path. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/runreport.h"
#include "history/rows.h"
#include "testutil.h"

/* rows of the report doc, as file NAME.json; the golden history-rows-NAME.json. */
static int rows_of(json_t *doc, const char *name, struct history_report *r)
{
	struct lab_error err = { 0 };
	char file[64], golden[96];
	_cleanup_json_ json_t *j = NULL;
	_cleanup_free_ char *text = NULL;

	snprintf(file, sizeof(file), "%s.json", name);
	if (!tap_ok(doc && history_rows_from_report(doc, file, "0123abcd", r, &err) == 0,
		    "%s: rows made", name)) {
		printf("# %s: %s: %s\n", err.file, err.path, err.msg);
		return -1;
	}
	j = history_report_json(r);
	text = j ? jsonio_dumps(j) : NULL;
	snprintf(golden, sizeof(golden), "history-rows-%s.json", name);
	testutil_golden(golden, text);
	return 0;
}

static const struct history_series *find(const struct history_report *r, const char *kernel,
					 const char *metric, unsigned tasks)
{
	for (size_t i = 0; i < r->nr_series; i++)
		if (!strcmp(r->series[i].kernel, kernel) && !strcmp(r->series[i].key.metric, metric) &&
		    r->series[i].key.tasks == tasks)
			return &r->series[i];
	return NULL;
}

static void test_variant_ab(void)
{
	_cleanup_json_ json_t *doc = testutil_load("lab/tests/data/history/variant-ab.json");
	struct history_report r;
	const struct history_series *s;

	if (rows_of(doc, "variant-ab", &r) < 0)
		return;
	tap_ok(!strcmp(r.id, "20261103-000000-variant-ab") && !strcmp(r.job, "variant-ab") &&
		       !strcmp(r.created, "2026-11-03T00:00:00Z") && !strcmp(r.status, "ok") &&
		       !strcmp(r.schema, RUNREPORT_SCHEMA) && !strcmp(r.sha256, "0123abcd"),
	       "variant-ab: the report's id, job, created, status, schema and hash");
	tap_ok(r.nr_runs == 4 && !strcmp(r.runs[0].kernel, "base") &&
		       !strcmp(r.runs[1].kernel, "patched") && r.runs[3].index == 3,
	       "variant-ab: 4 runs, A B A B");
	tap_ok(!strcmp(r.runs[0].commit, "0123456789abcdef0123456789abcdef01234567") &&
		       !strncmp(r.runs[0].source, "git:", 4) && !strncmp(r.runs[0].build_key, "1f0c", 4),
	       "variant-ab: a git source's commit and the build key");
	tap_ok(!r.runs[1].commit[0] && !strncmp(r.runs[1].source, "debian:", 7),
	       "variant-ab: a Debian source has no commit");
	tap_ok(!strcmp(r.runs[0].timing, "icount") && r.runs[0].guests_at_once == 2 &&
		       !strcmp(r.runs[0].qemu, "10.0.2") && !strcmp(r.runs[0].uri, "qemu:///embed"),
	       "variant-ab: timing model, guests at once, QEMU and URI");
	tap_ok(!r.runs[2].contended && r.runs[3].contended, "variant-ab: run 3 was contended");
	s = find(&r, "base", "faults_per_s", 2);
	tap_ok(s && s->boots == 2 && s->values == 2 && s->key.primary && s->key.higher &&
		       s->mean_kind == STATS_HARMONIC && !strcmp(s->timing, "icount") &&
		       isfinite(s->cv_between) && isnan(s->cv_within),
	       "variant-ab: base faults_per_s: 2 boots, primary, harmonic, CV between only");
	tap_ok(s && !strcmp(s->key.params, "{\"memory_mib\":64,\"mode\":\"threads\",\"thp\":false}"),
	       "variant-ab: params as canonical JSON without tasks and repetitions");
	s = find(&r, "patched", "sys_s", 2);
	tap_ok(s && !s->key.primary && !s->key.higher && s->mean_kind == STATS_ARITHMETIC,
	       "variant-ab: sys_s is not primary, lower is better, arithmetic");
	history_report_free(&r);
}

static void test_compare_reports(void)
{
	static const char *const names[] = { "ab", "real-ab", "real-quick", "a" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char rel[128];
		_cleanup_json_ json_t *doc = NULL;
		struct history_report r;

		snprintf(rel, sizeof(rel), "lab/tests/data/compare/%s.json", names[i]);
		doc = testutil_load(rel);
		if (rows_of(doc, names[i], &r) < 0)
			continue;
		if (!strcmp(names[i], "a")) {
			/* Before labels and timing models: the release names the kernel, the
			 * accelerator the model. */
			const struct history_series *s = find(&r, "6.12.0-synthetic", "faults_per_s", 1);

			tap_ok(!strcmp(r.runs[0].kernel, "6.12.0-synthetic") &&
				       !strcmp(r.runs[0].timing, "tcg") && !r.runs[0].variant[0],
			       "a: an old report: kernel from the release, timing from host.accel");
			tap_ok(s && s->boots == 3 && !strcmp(s->timing, "tcg"),
			       "a: 3 boots of one kernel in one series");
		}
		history_report_free(&r);
	}
}

/* The run of a real `lab run` (the report tests' golden) inside a report. */
static void test_run_quick(void)
{
	_cleanup_json_ json_t *run = testutil_load("lab/tests/golden/report-run-quick.json");
	_cleanup_json_ json_t *doc = json_pack("{s:s,s:s,s:s,s:{s:s},s:s,s:[O]}", "schema",
					       RUNREPORT_SCHEMA, "id", "20261130-042738-quick",
					       "created", "2026-11-30T04:27:38Z", "job", "name",
					       "quick", "status", "ok", "runs", run);
	struct history_report r;

	if (!run || rows_of(doc, "run-quick", &r) < 0)
		return;
	tap_ok(r.nr_runs == 1 && !strcmp(r.runs[0].kernel, "6.1.0-57-amd64") &&
		       !strcmp(r.runs[0].timing, "tcg") && r.nr_series > 0,
	       "run-quick: one run of the host kernel under tcg, %zu series", r.nr_series);
	history_report_free(&r);
}

/* Documents the series reader refuses: the error names the file and what is wrong. */
static void test_refused(void)
{
	static const struct {
		const char *json, *path, *msg;
	} cases[] = {
		{ "[1, 2]", "", "a report must be a JSON object" },
		{ "{\"schema\": \"numalab.report/2\", \"runs\": []}", "schema",
		  "is \"numalab.report/2\"; this lab reads \"numalab.report/1\"" },
		{ "{\"runs\": []}", "schema", "required" },
		{ "{\"schema\": \"numalab.report/1\", \"runs\": {}}", "runs", "must be an array" },
		{ "{\"schema\": \"numalab.report/1\", \"runs\": [7]}", "runs[0]", "must be an object" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_json_ json_t *doc = json_loads(cases[i].json, 0, NULL);
		struct lab_error err = { 0 };
		struct history_report r;
		int e = history_rows_from_report(doc, "bad.json", "00", &r, &err);

		if (!tap_ok(e == -EINVAL && !strcmp(err.file, "bad.json") &&
				    !strcmp(err.path, cases[i].path) && strstr(err.msg, cases[i].msg),
			    "refused: %s -> %s: %s", cases[i].json, cases[i].path, cases[i].msg))
			printf("# got %d: %s: %s: %s\n", e, err.file, err.path, err.msg);
	}
}

/* runs[run].workloads[0].results[0].metrics[metric].value of doc, or NULL. */
static json_t *metric_value(json_t *doc, size_t run, const char *metric)
{
	json_t *w = json_array_get(json_object_get(json_array_get(json_object_get(doc, "runs"), run),
						   "workloads"), 0);
	json_t *res = json_array_get(json_object_get(w, "results"), 0);

	return json_object_get(json_object_get(json_object_get(res, "metrics"), metric), "value");
}

/* Values each finite can overflow once added: refused with a reason, never a crash. */
static void test_overflow(void)
{
	_cleanup_json_ json_t *doc = testutil_load("lab/tests/data/compare/a.json");
	json_t *v0 = metric_value(doc, 0, "sys_s"), *v1 = metric_value(doc, 1, "sys_s");
	struct lab_error err = { 0 };
	struct history_report r;
	int e;

	if (!tap_ok(v0 && v1, "overflow: the fixture has the values"))
		return;
	/* Two boots of 1e308 s: their mean overflows. */
	json_real_set(v0, 1e308);
	json_real_set(v1, 1e308);
	e = history_rows_from_report(doc, "big.json", "00", &r, &err);
	if (!tap_ok(e == -EINVAL && !strcmp(err.file, "big.json") &&
			    strstr(err.msg, "cannot be summarised"),
		    "overflow: refused with a reason (%s)", err.msg))
		printf("# got %d\n", e);
}

/* A point of the history by hand: its series' model fit and the text head that says it. */
static void fit_case(const char *timing, const char *workload, const char *params,
		     const char *metric, unsigned tasks, enum modelfit want, const char *text_has)
{
	struct history_point p = { .path = NULL };
	_cleanup_free_ char *text = NULL;
	char why[512];
	enum modelfit got;

	snprintf(p.s.timing, sizeof(p.s.timing), "%s", timing);
	snprintf(p.s.key.workload, sizeof(p.s.key.workload), "%s", workload);
	snprintf(p.s.key.metric, sizeof(p.s.key.metric), "%s", metric);
	snprintf(p.s.key.topology, sizeof(p.s.key.topology), "4s-8c");
	snprintf(p.s.key.unit, sizeof(p.s.key.unit), "x");
	snprintf(p.s.kernel, sizeof(p.s.kernel), "k");
	p.s.key.params = (char *)params;
	p.s.key.tasks = tasks;
	got = history_point_fit(&p, why, sizeof(why));
	tap_ok(got == want && history_points_text(&p, 1, &text) == 0 &&
		       (text_has ? strstr(text, text_has) != NULL
				 : !strstr(text, "outside this model")),
	       "fit: %s %s %s at %u tasks: %d, head %s", timing, workload, metric, tasks, got,
	       text_has ? text_has : "silent");
}

/* History says where its series' model is blind, as lab compare does (issue: outside this
 * model in history and nightly): a flat line under icount is no "no change". */
static void test_fit(void)
{
	fit_case("icount", "mmap_contention", "{\"mappers\":1}", "faults_per_s", 4,
		 MODELFIT_OUTSIDE, "  outside this model: mmap_contention faults_per_s depends on "
		 "lock contention and parallel speed-up with 5 threads at once");
	fit_case("icount", "pft", "{\"memory_mib\":64}", "faults_per_s", 4, MODELFIT_PARTLY,
		 "  partly outside this model: ");
	fit_case("icount", "pft", "{\"memory_mib\":64}", "faults_per_s", 1, MODELFIT_INSIDE, NULL);
	fit_case("quantum-q1000", "mmap_contention", "{\"mappers\":1}", "faults_per_s", 4,
		 MODELFIT_INSIDE, NULL);
	fit_case("tcg", "pft", NULL, "faults_per_s", 8, MODELFIT_INSIDE, NULL);
}

int main(void)
{
	test_fit();
	test_variant_ab();
	test_compare_reports();
	test_run_quick();
	test_refused();
	test_overflow();
	return tap_done();
}
