/* Job parsing and validation, data-driven.
 *
 * lab/tests/data/job-errors/NAME.json must fail with the one line in NAME.expected:
 * "PATH: REASON", prefixed by "FILE: " when the error is about another file than the job
 * (a topology file the job names; FILE relative to the repo root).
 * lab/tests/data/job-ok/NAME.json must parse to the JSON in NAME.expected (job_dump below).
 *
 * Topology names resolve to configs/topologies/NAME.json under the repo root ($LAB_ROOT or
 * "."); a reference holding '/' is a path relative to the repo root.  Every configs/NAME.json
 * must parse too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/job.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

static int test_loader(const char *ref, void *userdata, json_t **out, struct lab_error *err)
{
	const char *root = userdata;
	_cleanup_free_ char *rel = NULL, *path = NULL;

	if (strchr(ref, '/'))
		rel = strdup(ref);
	else if (asprintf(&rel, "configs/topologies/%s.json", ref) < 0)
		rel = NULL;
	if (!rel)
		return -ENOMEM;
	path = fs_join(root, rel);
	if (!path)
		return -ENOMEM;
	/* The lab reads a path beside the job's file: the shipped jobs' directory is configs/. */
	if (!fs_exists(path) && strchr(ref, '/')) {
		_cleanup_free_ char *configs = fs_join(root, "configs");

		free(path);
		if (!configs || !(path = fs_join(configs, ref)))
			return -ENOMEM;
	}
	if (!fs_exists(path))
		return error_set(err, "topology", "no topology named \"%s\" (looked in %s)", ref,
				 rel);
	return jsonio_load_file(path, TESTUTIL_MAX_FILE, out, err);
}

/* "PATH: MSG", with "FILE: " first when the error is about a file other than the job. */
static void error_line(const struct lab_error *e, const char *job_file, char *buf, size_t len)
{
	const char *file = e->file;
	const char *root = testutil_root();
	size_t rl = strlen(root);

	if (strcmp(file, job_file) == 0)
		file = "";
	else if (strncmp(file, root, rl) == 0 && file[rl] == '/')
		file += rl + 1;
	snprintf(buf, len, "%s%s%s%s%s", file, file[0] ? ": " : "", e->path,
		 e->path[0] ? ": " : "", e->msg);
}

static json_t *job_dump(const struct job *job)
{
	json_t *wl = json_array();

	for (unsigned i = 0; wl && i < job->nr_workloads; i++) {
		const struct job_workload *w = &job->workloads[i];

		json_t *o = json_pack("{s:s,s:O,s:f}", "name", w->name, "params", w->params,
				      "timeout_s", w->timeout_s);

		/* Only when off, so that the other cases' dumps stay as they were. */
		if (o && w->no_aslr)
			json_object_set_new(o, "aslr", json_false());
		if (json_array_append_new(wl, o) < 0) {
			json_decref(wl);
			return NULL;
		}
	}
	return json_pack("{s:s,s:s,s:s,s:o,s:{s:s,s:s},s:I,s:o,s:{s:f,s:f},s:s}", "name",
			 job->name, "topology_ref", job->topology_ref, "topology_name",
			 job->topo.name, "topology", topology_to_report_json(&job->topo, 1),
			 "kernel", "image", job->kernels[0].image, "cmdline",
			 job->kernels[0].cmdline, "repeats", (json_int_t)job->repeats, "workloads", wl,
			 "timeouts",
			 "boot_s", job->boot_timeout_s, "progress_s", job->progress_timeout_s,
			 "fault", fault_name(job->fault));
}

static void run_case(const char *dir, const char *name, int want_ok)
{
	_cleanup_free_ char *jpath = fs_join(dir, name);
	_cleanup_free_ char *expected = NULL;
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = {0};
	struct job job;
	char got[sizeof(struct lab_error) + 8]; /* file, path and msg with separators */
	int r;

	memset(&job, 0, sizeof(job));
	expected = testutil_read_expected(jpath, name);
	if (!expected)
		return;
	/* As the CLI does: one error struct from loading the job file through validation. */
	r = jsonio_load_file(jpath, TESTUTIL_MAX_FILE, &j, &err);
	if (r == 0)
		r = job_from_json(j, test_loader, (void *)testutil_root(), &job, &err);
	error_line(&err, jpath, got, sizeof(got));

	if (!want_ok) {
		testutil_check_error(name, r, got, expected);
		tap_ok(r < 0 && job.nr_workloads == 0 && !job.workloads && !job.topo.nodes,
		       "%s: struct left empty", name);
		if (r == 0)
			job_free(&job);
		return;
	}
	if (!tap_ok(r == 0, "%s: parses%s%s", name, r ? ": " : "", r ? got : ""))
		return;

	_cleanup_json_ json_t *have = job_dump(&job);

	testutil_check_json(name, "job", have, expected);
	job_free(&job);
	tap_ok(job.workloads == NULL && job.topo.nodes == NULL, "%s: job_free empties it", name);
}

static void run_dir(const char *rel, int want_ok)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, rel);
	if (!tap_ok(d.n > 0, "data directory %s has cases", d.dir))
		return;
	for (int i = 0; i < d.n; i++)
		run_case(d.dir, d.ents[i]->d_name, want_ok);
}

/* lab/tests/data/job-plan/NAME.json: the runs in order with each one's knobs (job_plan_json)
 * must equal NAME.expected: knob sets interleave like kernels, a variant's knobs over the
 * job's, and a job's "required": true requires the knobs its knob sets add (required-all). */
static void run_plans(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "lab/tests/data/job-plan");
	if (!tap_ok(d.n > 0, "data directory %s has cases", d.dir))
		return;
	for (int i = 0; i < d.n; i++) {
		const char *name = d.ents[i]->d_name;
		_cleanup_free_ char *jpath = fs_join(d.dir, name);
		_cleanup_free_ char *expected = testutil_read_expected(jpath, name);
		_cleanup_json_ json_t *j = NULL, *plan = NULL;
		struct lab_error err = {0};
		struct job job;
		int r;

		memset(&job, 0, sizeof(job));
		if (!expected)
			continue;
		r = jsonio_load_file(jpath, TESTUTIL_MAX_FILE, &j, &err);
		if (r == 0)
			r = job_from_json(j, test_loader, (void *)testutil_root(), &job, &err);
		if (!tap_ok(r == 0, "%s: parses (%s: %s)", name, err.path, err.msg))
			continue;
		plan = job_plan_json(&job);
		testutil_check_json(name, "plan", plan, expected);
		job_free(&job);
	}
}

/* Every shipped job file parses. */
static void run_configs(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "configs");
	tap_ok(d.n >= 1, "configs/ has job files (%d)", d.n);
	for (int i = 0; i < d.n; i++) {
		_cleanup_free_ char *path = fs_join(d.dir, d.ents[i]->d_name);
		_cleanup_json_ json_t *j = NULL;
		struct lab_error err = {0};
		char line[sizeof(struct lab_error) + 8];
		struct job job;
		int r = jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err);

		if (r == 0)
			r = job_from_json(j, test_loader, (void *)testutil_root(), &job, &err);
		error_line(&err, path, line, sizeof(line));
		tap_ok(r == 0, "configs/%s parses%s%s", d.ents[i]->d_name, r ? ": " : "",
		       r ? line : "");
		if (r == 0)
			job_free(&job);
	}
}

/* "parallel": absent and "auto" are 0 (decided at run time), a number is kept, also under
 * "auto" timing (the run cuts it to 1 should the model turn out host-clocked). */
static void run_parallel(void)
{
	static const char *const cases[][2] = {
		{ "", "0" },
		{ ",\"parallel\":\"auto\"", "0" },
		{ ",\"parallel\":3,\"timing\":\"icount\"", "3" },
		{ ",\"parallel\":2", "2" },
		{ ",\"parallel\":1,\"timing\":\"tcg\"", "1" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		_cleanup_json_ json_t *j = NULL;
		struct lab_error err = {0};
		struct job job;
		int r;

		snprintf(text, sizeof(text),
			 "{\"name\":\"x\",\"topology\":{\"sockets\":1,\"cores\":2,"
			 "\"node_memory_mib\":256},\"kernel\":{\"image\":\"/k\"},"
			 "\"workloads\":[{\"name\":\"pft\"}]%s}", cases[i][0]);
		jsonio_load_string(text, &j, &err);
		r = job_from_json(j, NULL, NULL, &job, &err);
		tap_ok(r == 0 && job.parallel == (unsigned)atoi(cases[i][1]),
		       "parallel%s: %s (%s)", cases[i][0], cases[i][1], r ? err.msg : "parsed");
		if (r == 0)
			job_free(&job);
	}
}

/* The widest sweep of any workload: what lab run's overcommit warning looks at. */
static void run_max_tasks(void)
{
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = {0};
	struct job job;
	int r;

	jsonio_load_string("{\"name\":\"x\",\"topology\":{\"sockets\":1,\"cores\":8,"
			   "\"node_memory_mib\":512},\"kernel\":{\"image\":\"/k\"},"
			   "\"workloads\":[{\"name\":\"pft\",\"params\":{\"tasks\":[1,4]}},"
			   "{\"name\":\"page_fault1\",\"params\":{\"tasks\":\"per-cpu\"}},"
			   "{\"name\":\"pft\",\"params\":{\"tasks\":[2]}}]}",
			   &j, &err);
	r = job_from_json(j, NULL, NULL, &job, &err);
	tap_ok(r == 0 && job_max_tasks(&job) == 8, "job_max_tasks: [1,4], per-cpu (8), [2] -> 8 (%s)",
	       r ? err.msg : "parsed");
	if (r == 0)
		job_free(&job);
}

/* "numa_cost": "auto" becomes the contention model (a quantum then allowed), the reference is
 * kept for the caller to read (lab/run/jobload.c), and job_set_numa_preset() parses, fits and
 * keys the preset: errors inside it in its file, a misfit in the job's. */
static void run_numa(void)
{
	_cleanup_json_ json_t *j = NULL, *wsm = testutil_load("configs/numa/wsm-ex-4s.json");
	_cleanup_json_ json_t *clx = testutil_load("configs/numa/clx-2s.json");
	_cleanup_json_ json_t *bad = json_deep_copy(wsm);
	struct lab_error err = {0};
	struct job job;
	int r;

	jsonio_load_string("{\"name\":\"x\",\"topology\":\"4s-8c\",\"kernel\":{\"image\":\"/k\"},"
			   "\"workloads\":[{\"name\":\"pft\"}],\"numa_cost\":\"wsm-ex-4s\","
			   "\"quantum\":250}",
			   &j, &err);
	r = job_from_json(j, test_loader, (void *)testutil_root(), &job, &err);
	if (!tap_ok(r == 0 && job.timing == TIMING_QUANTUM && job.quantum == 250 &&
			    !strcmp(job.numa_cost, "wsm-ex-4s") && !job.numa.name[0],
		    "numa_cost: auto is quantum, the name kept, the preset not read (%s)",
		    r ? err.msg : "parsed"))
		return;
	snprintf(err.file, sizeof(err.file), "job.json");
	json_object_set_new(json_object_get(json_object_get(bad, "paths"), "remote"), "hop",
			    json_true());
	r = job_set_numa_preset(&job, bad, "configs/numa/bad.json", &err);
	tap_ok(r == -EINVAL && !strcmp(err.file, "configs/numa/bad.json") &&
		       !strcmp(err.path, "numa_cost.paths.remote.hop") && !job.numa.name[0],
	       "numa_cost: an error inside the preset names its file (%s: %s: %s)", err.file,
	       err.path, err.msg);
	snprintf(err.file, sizeof(err.file), "job.json");
	r = job_set_numa_preset(&job, clx, "configs/numa/clx-2s.json", &err);
	tap_ok(r == -EINVAL && !strcmp(err.file, "job.json") && !strcmp(err.path, "numa_cost") &&
		       !strcmp(err.msg, "preset clx-2s is for 2 nodes, topology 4s-8c has 4"),
	       "numa_cost: a misfit is the job's, naming both (%s: %s: %s)", err.file, err.path,
	       err.msg);
	r = job_set_numa_preset(&job, wsm, "configs/numa/wsm-ex-4s.json", &err);
	tap_ok(r == 0 && !strcmp(job.numa.name, "wsm-ex-4s") && strlen(job.numa_sha256) == 64,
	       "numa_cost: wsm-ex-4s fits 4s-8c, key %.12s", job.numa_sha256);
	job_free(&job);
	tap_ok(!job.numa.name[0] && !job.numa.paths, "numa_cost: job_free frees the preset");
}

static void run_misc(void)
{
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = {0};
	struct job job;

	tap_ok(strcmp(fault_name(FAULT_NONE), "none") == 0 &&
		       strcmp(fault_name(FAULT_PANIC), "panic") == 0 &&
		       strcmp(fault_name(FAULT_HANG), "hang") == 0 &&
		       strcmp(fault_name((enum fault)42), "unknown") == 0,
	       "fault_name");

	/* Without a loader a topology name cannot be resolved, but an inline one is fine. */
	jsonio_load_string("{\"name\":\"x\",\"topology\":\"4s-8c\",\"kernel\":{\"image\":\"/k\"},"
			   "\"workloads\":[{\"name\":\"pft\"}]}",
			   &j, &err);
	tap_ok(job_from_json(j, NULL, NULL, &job, &err) == -EINVAL &&
		       strcmp(err.path, "topology") == 0,
	       "no loader: %s: %s", err.path, err.msg);
	tap_ok(job_from_json(j, NULL, NULL, &job, NULL) == -EINVAL, "NULL error pointer allowed");
	run_parallel();
	run_max_tasks();
	run_numa();
}

int main(void)
{
	run_dir("lab/tests/data/job-errors", 0);
	run_dir("lab/tests/data/job-ok", 1);
	run_plans();
	run_configs();
	run_misc();
	return tap_done();
}
