/* `lab run --resume` (lab/core/runresume.c): the job's identity, the --interrupted list, an
 * earlier report checked (each way one can be wrong names its JSON path) and planned, and an
 * interrupted run's record (golden report-run-interrupted.json, which test_report_schema.sh
 * validates against reports/report.schema.json). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runresume.h"
#include "testutil.h"

static int load_topo(const char *ref, void *ud, json_t **out, struct lab_error *err)
{
	char path[512];

	(void)ud;
	snprintf(path, sizeof(path), "configs/topologies/%s.json", ref);
	return jsonio_load_file(path, TESTUTIL_MAX_FILE, out, err);
}

/* The job of file (below the repo root) with "repeats" set when repeats > 0. */
static int load_job(const char *file, unsigned repeats, struct job *job, char sha[65])
{
	_cleanup_json_ json_t *j = testutil_load(file);
	struct lab_error err = { 0 };

	if (!j || (repeats && json_object_set_new(j, "repeats", json_integer(repeats)) < 0))
		return -EINVAL;
	if (job_from_json(j, load_topo, NULL, job, &err) < 0) {
		printf("# %s: %s: %s\n", file, err.path, err.msg);
		return -EINVAL;
	}
	return runresume_job_sha256(j, sha);
}

static void job_identity(void)
{
	_cleanup_json_ json_t *a = NULL, *b = NULL, *c = NULL;
	struct lab_error err = { 0 };
	char ha[65] = "", hb[65] = "", hc[65] = "";

	jsonio_load_string("{\"name\": \"q\", \"repeats\": 3, \"w\": [1, 2.5]}", &a, &err);
	jsonio_load_string("{\"w\":[1,2.5],\n  \"repeats\":3,\"name\":\"q\"}", &b, &err);
	jsonio_load_string("{\"name\": \"q\", \"repeats\": 4, \"w\": [1, 2.5]}", &c, &err);
	tap_ok(a && b && c && runresume_job_sha256(a, ha) == 0 && runresume_job_sha256(b, hb) == 0 &&
		       runresume_job_sha256(c, hc) == 0, "job sha256 computed");
	tap_ok(!strcmp(ha, hb), "job sha256: layout and key order do not matter");
	tap_ok(strcmp(ha, hc) != 0, "job sha256: another repeats is another job");
	/* `printf '%s' '{"name":"q","repeats":3,"w":[1,2.5]}' | sha256sum` */
	tap_ok(!strcmp(ha, "71bdf5ec20153d45ce620845af3f83d6bc3674073f2ba44f293b50e133cf1547"),
	       "job sha256: of the JSON text with keys sorted, no whitespace (%s)", ha);
}

struct idx_case {
	const char *in;
	const char *want; /* "1,3" as parsed, or the error's start */
};

static void indices(void)
{
	static const struct idx_case cases[] = {
		{ "1", "1" },
		{ "2,0", "0,2" },
		{ "1,1,0", "0,1" },
		{ "", "" },
		{ "0002", "2" },
		{ "3", "--interrupted: run index 3 is out of range: the job has 3 run(s), 0..2" },
		{ "1,", "--interrupted: \"\" is not a run index" },
		{ ",1", "--interrupted: \"\" is not a run index" },
		{ "1,,2", "--interrupted: \"\" is not a run index" },
		{ "-1", "--interrupted: \"-1\" is not a run index" },
		{ " 1", "--interrupted: \" 1\" is not a run index" },
		{ "1x", "--interrupted: \"1x\" is not a run index" },
		{ "99999999999", "--interrupted: \"99999999999\" is not a run index" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct idx_case *c = &cases[i];
		struct lab_error err = { 0 };
		_cleanup_free_ unsigned *v = NULL;
		unsigned n = 0;
		char got[600] = "";
		int r = runresume_parse_indices(c->in, 3, &v, &n, &err);

		for (unsigned k = 0; r == 0 && k < n; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", k ? "," : "",
				 v[k]);
		if (r < 0)
			error_format(&err, got, sizeof(got));
		if (!tap_ok(!strncmp(got, c->want, strlen(c->want)) && (r == 0) == !strchr(c->want, '-'),
			    "--interrupted \"%s\": %s", c->in, c->want))
			printf("# got r=%d: %s\n", r, got);
	}
}

/* A report of the job (sha) with the runs given as JSON text. */
static json_t *report(const char *sha, const char *runs)
{
	_cleanup_free_ char *text = NULL;
	struct lab_error err = { 0 };
	json_t *j = NULL;

	if (asprintf(&text, "{\"schema\": \"numalab.report/1\", \"id\": \"20260101-000000-quick\", "
			    "\"created\": \"2026-01-01T00:00:00Z\", \"status\": \"ok\", \"job\": "
			    "{\"name\": \"quick\", \"file\": \"q.json\", \"repeats\": 3, "
			    "\"sha256\": \"%s\"}, \"runs\": %s}", sha, runs) < 0)
		return NULL;
	if (jsonio_load_string(text, &j, &err) < 0)
		printf("# report: %s\n", err.msg);
	return j;
}

/* Runs that lost their host (infra-error, end host-lost) run again; other infra-errors stay. */
static void plan_host_lost(const struct job *job, const char *sha)
{
	_cleanup_json_ json_t *rep = report(
		sha, "[{\"index\": 0, \"status\": \"ok\"}, "
		     "{\"index\": 1, \"status\": \"infra-error\", \"end\": \"host-lost\"}, "
		     "{\"index\": 2, \"status\": \"infra-error\", \"end\": \"interrupted\"}]");
	struct runresume res;
	struct lab_error err = { 0 };
	int r = runresume_plan(rep, job, sha, NULL, 0, &res, &err);

	tap_ok(r == 0 && res.action[0] == RUNRESUME_KEEP && res.action[1] == RUNRESUME_RUN &&
		       res.action[2] == RUNRESUME_KEEP && json_array_size(res.runs) == 2,
	       "a run that lost its host runs again; ok and interrupted runs are kept");
	runresume_free(&res);
}

static void plan_ok(const struct job *job, const char *sha)
{
	static const unsigned intr[] = { 1, 2 };
	_cleanup_json_ json_t *rep = report(sha, "[{\"index\": 2, \"status\": \"hang\", \"x\": 2}, "
						 "{\"index\": 0, \"status\": \"ok\", \"x\": 0}]");
	struct runresume res;
	struct lab_error err = { 0 };
	unsigned runs = 0, ok = 0;
	enum outcome worst = OUTCOME_OK;
	int r = runresume_plan(rep, job, sha, intr, 2, &res, &err);

	if (!tap_ok(r == 0, "a report of this job is planned")) {
		printf("# %s: %s\n", err.path, err.msg);
		runresume_free(&res);
		return;
	}
	tap_ok(res.total == 3 && res.action[0] == RUNRESUME_KEEP &&
		       res.action[1] == RUNRESUME_INTERRUPTED && res.action[2] == RUNRESUME_KEEP,
	       "runs 0 and 2 kept; 1 interrupted; 2, also listed as interrupted, kept as recorded");
	tap_ok(json_array_size(res.runs) == 2 &&
		       json_integer_value(json_object_get(json_array_get(res.runs, 0), "x")) == 0 &&
		       json_integer_value(json_object_get(json_array_get(res.runs, 1), "x")) == 2,
	       "kept runs in index order, as they were");
	tap_ok(!strcmp(res.id, "20260101-000000-quick") && !strcmp(res.created, "2026-01-01T00:00:00Z"),
	       "the report's id and created time kept");
	runresume_count(&res, &runs, &ok, &worst);
	tap_ok(runs == 2 && ok == 1 && worst == OUTCOME_HANG, "kept runs counted: 2 runs, 1 ok, hang");
	runresume_free(&res);

	r = runresume_plan(NULL, job, sha, intr, 1, &res, &err);
	tap_ok(r == 0 && res.action[0] == RUNRESUME_RUN && res.action[1] == RUNRESUME_INTERRUPTED &&
		       res.action[2] == RUNRESUME_RUN && json_array_size(res.runs) == 0 && !res.id[0],
	       "no report yet: the interrupted run recorded, the others run, a fresh id");
	runresume_free(&res);
}

struct bad_case {
	const char *runs;   /* the report's runs, or NULL for the whole report in head */
	const char *head;   /* the whole report when runs is NULL */
	const char *want;   /* the error line's start */
};

static void plan_bad(const struct job *job, const char *sha)
{
	static const struct bad_case cases[] = {
		{ "{}", NULL, "runs: must be an array" },
		{ "[{\"index\": 0, \"status\": \"ok\"}, 3]", NULL, "runs[1]: must be an object" },
		{ "[{\"index\": \"0\", \"status\": \"ok\"}]", NULL,
		  "runs[0].index: must be an integer 0..2: the job has 3 run(s)" },
		{ "[{\"index\": 1.0, \"status\": \"ok\"}]", NULL, "runs[0].index: must be an integer" },
		{ "[{\"index\": 3, \"status\": \"ok\"}]", NULL, "runs[0].index: must be an integer" },
		{ "[{\"index\": -1, \"status\": \"ok\"}]", NULL, "runs[0].index: must be an integer" },
		{ "[{\"status\": \"ok\"}]", NULL, "runs[0].index: must be an integer" },
		{ "[{\"index\": 0, \"status\": \"ok\"}, {\"index\": 0, \"status\": \"ok\"}]", NULL,
		  "runs[1].index: 0 again: a run is recorded once" },
		{ "[{\"index\": 0, \"status\": \"fine\"}]", NULL, "runs[0].status: must be a run status" },
		{ "[{\"index\": 0}]", NULL, "runs[0].status: must be a run status" },
		{ NULL, "[]", "must be a JSON object" },
		{ NULL, "{\"schema\": \"numalab.report/2\"}", "schema: must be \"numalab.report/1\"" },
		{ NULL, "{\"schema\": \"numalab.report/1\", \"job\": {\"name\": \"quick\"}, \"runs\": []}",
		  "job.sha256: missing: the report does not say which job it is of" },
		{ NULL, "{\"schema\": \"numalab.report/1\", \"job\": {\"sha256\": \"00ff\"}, \"runs\": []}",
		  "job.sha256: the report is of another job (00ff..., this job's " },
		{ NULL, "{\"schema\": \"numalab.report/1\", \"job\": {\"sha256\": \"@\"}, \"runs\": []}",
		  "id: must be a string" },
		{ NULL, "{\"schema\": \"numalab.report/1\", \"id\": \"x\", \"job\": {\"sha256\": \"@\"}, "
			"\"runs\": []}", "created: must be a time" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		_cleanup_json_ json_t *rep = NULL;
		struct lab_error err = { 0 };
		struct runresume res;
		char got[1200] = "";
		int r;

		if (c->runs) {
			rep = report(sha, c->runs);
		} else if (jsonio_load_string(c->head, &rep, &err) == 0) {
			json_t *jj = json_object_get(rep, "job");
			const char *s = json_string_value(json_object_get(jj, "sha256"));

			if (s && !strcmp(s, "@")) /* this job's */
				json_object_set_new(jj, "sha256", json_string(sha));
		}
		r = runresume_plan(rep, job, sha, NULL, 0, &res, &err);
		runresume_free(&res);
		error_format(&err, got, sizeof(got));
		if (!tap_ok(r == -EINVAL && !strncmp(got, c->want, strlen(c->want)),
			    "refused (%s): %s", c->runs ? c->runs : c->head, c->want))
			printf("# got r=%d: %s\n", r, got);
	}
}

static void plan_precision(const struct job *quick, const char *sha)
{
	static const unsigned intr[] = { 5 };
	struct job job = { 0 };
	char psha[65];
	struct lab_error err = { 0 };
	struct runresume res;
	_cleanup_json_ json_t *rep = NULL;
	int r;

	r = runresume_plan(NULL, quick, sha, intr, 1, &res, &err);
	runresume_free(&res);
	tap_ok(r == -EINVAL && strstr(err.msg, "run index 5 is out of range"),
	       "an interrupted index past the job's runs is refused: %s", err.msg);
	if (!tap_ok(load_job("lab/tests/data/jobs/icount.json", 0, &job, psha) == 0,
		    "icount.json (a \"precision\" job) parses"))
		return;
	rep = report(psha, "[{\"index\": 0, \"status\": \"ok\"}]");
	memset(&err, 0, sizeof(err));
	r = runresume_plan(rep, &job, psha, NULL, 0, &res, &err);
	runresume_free(&res);
	tap_ok(r == -EINVAL && !strcmp(err.path, "precision") && strstr(err.msg, "cannot be resumed"),
	       "a \"precision\" job with a report to continue is refused: %s", err.msg);
	r = runresume_plan(NULL, &job, psha, NULL, 0, &res, &err);
	runresume_free(&res);
	tap_ok(r == 0, "... but with nothing to continue it is a normal run");
	job_free(&job);
}

static void interrupted_golden(const struct job *job)
{
	struct run_record rec = { .index = 1, .repeat = 1, .job = job,
				  .host = { "tcg", "test", "10.0.2", "11.3.0", "qemu:///embed" } };
	_cleanup_json_ json_t *j = NULL, *j2 = NULL;
	_cleanup_free_ char *got = NULL;

	snprintf(rec.kernel_image, sizeof(rec.kernel_image), "/boot/vmlinuz");
	snprintf(rec.kernel_cmdline, sizeof(rec.kernel_cmdline), "console=ttyS0");
	j = runresume_interrupted_json(&rec, 1);
	got = j ? jsonio_dumps(j) : NULL;
	testutil_golden("report-run-interrupted.json", got);
	tap_ok(j && !strcmp(json_string_value(json_object_get(j, "status")), "infra-error") &&
		       !strcmp(json_string_value(json_object_get(j, "end")), "interrupted") &&
		       !strcmp(json_string_value(json_object_get(j, "reason")), RUNRESUME_REASON),
	       "an interrupted run: infra-error, end interrupted, the reason");
	j2 = runresume_interrupted_json(&rec, 0);
	tap_ok(j2 && !strcmp(json_string_value(json_object_get(j2, "console")), ""),
	       "... its console \"\" when the stopped run left none");
}

int main(void)
{
	struct job job = { 0 };
	char sha[65];

	job_identity();
	indices();
	if (!tap_ok(load_job("configs/quick.json", 3, &job, sha) == 0, "quick.json x 3 parses"))
		return tap_done();
	plan_ok(&job, sha);
	plan_host_lost(&job, sha);
	plan_bad(&job, sha);
	plan_precision(&job, sha);
	interrupted_golden(&job);
	job_free(&job);
	return tap_done();
}
