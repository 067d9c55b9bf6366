/* Whether a job's workloads fit in each node of its guest (core/memfit.c).
 *
 * lab/tests/data/memfit/NAME.json are jobs; NAME.expected is either the JSON of their fit
 * (memfit_to_json) when they fit, or the one error line "PATH: MSG" users see when they do
 * not.  Then every job the lab ships or runs in its tests must fit (configs/, configs/seeds/,
 * configs/bench/, configs/nightly/'s jobs are those, lab/tests/data/jobs/), and the
 * footprints of the runners one by one.  lab/tests/data/job-ok/ is not among them: those are
 * parser cases, never booted (big-512 binds 8 GiB to 2 GiB nodes). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memfit.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

/* Topology names as the lab resolves them: beside the job, then configs/topologies/. */
static int loader(const char *ref, void *ud, json_t **out, struct lab_error *err)
{
	const char *dir = ud;
	_cleanup_free_ char *beside = NULL, *rel = NULL, *shipped = NULL;

	if (strchr(ref, '/') || strstr(ref, ".json")) {
		beside = fs_join(dir, ref);
		return jsonio_load_file(beside, TESTUTIL_MAX_FILE, out, err);
	}
	if (asprintf(&rel, "topologies/%s.json", ref) < 0 || !(beside = fs_join(dir, rel)))
		return -ENOMEM;
	if (fs_exists(beside))
		return jsonio_load_file(beside, TESTUTIL_MAX_FILE, out, err);
	free(rel);
	if (asprintf(&rel, "configs/topologies/%s.json", ref) < 0 ||
	    !(shipped = fs_join(testutil_root(), rel)))
		return -ENOMEM;
	return jsonio_load_file(shipped, TESTUTIL_MAX_FILE, out, err);
}

/* Load and check one job: 0 when it parsed and fits, -EINVAL (err set) when it parsed and
 * does not fit, 1 when it does not parse (a job-error case: nothing to check). */
static int fit_file(const char *dir, const char *name, json_t **fit, struct lab_error *err)
{
	_cleanup_free_ char *path = fs_join(dir, name);
	_cleanup_json_ json_t *j = NULL;
	struct memfit m;
	struct job job;
	int r;

	if (jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, err) < 0 ||
	    job_from_json(j, loader, (void *)dir, &job, err) < 0)
		return 1;
	memfit_build(&job, job.knobs, "knobs", &m);
	r = memfit_check_job(&job, err);
	if (fit)
		*fit = memfit_to_json(&m);
	job_free(&job);
	return r;
}

static void golden_case(const char *dir, const char *name)
{
	_cleanup_free_ char *path = fs_join(dir, name);
	_cleanup_free_ char *want = testutil_read_expected(path, name);
	_cleanup_json_ json_t *fit = NULL;
	struct lab_error err = {0};
	char got[sizeof(err.path) + sizeof(err.msg) + 4];
	int r;

	if (!want)
		return;
	r = fit_file(dir, name, &fit, &err);
	if (r == 1) {
		tap_ok(0, "%s: parses: %s: %s", name, err.path, err.msg);
		return;
	}
	snprintf(got, sizeof(got), "%s: %s", err.path, err.msg);
	if (want[0] == '{')
		testutil_check_json(name, "fit", r == 0 ? fit : NULL, want);
	else
		testutil_check_error(name, r, got, want);
}

static void golden(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "lab/tests/data/memfit");
	tap_ok(d.n >= 6, "lab/tests/data/memfit has cases (%d)", d.n);
	for (int i = 0; i < d.n; i++)
		golden_case(d.dir, d.ents[i]->d_name);
}

/* Nothing the lab ships or tests with is refused. */
static void every_job_fits(void)
{
	static const char *const dirs[] = {"configs", "configs/seeds", "configs/bench",
					   "configs/nightly", "lab/tests/data/jobs"};
	int jobs = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		_cleanup_json_dir_ struct testutil_json_dir d;

		testutil_json_dir_open(&d, dirs[i]);
		for (int k = 0; k < d.n; k++) {
			struct lab_error err = {0};
			int r = fit_file(d.dir, d.ents[k]->d_name, NULL, &err);

			if (r == 1)
				continue;
			jobs++;
			tap_ok(r == 0, "%s/%s fits%s%s%s%s", dirs[i], d.ents[k]->d_name,
			       r ? ": " : "", err.path, r ? ": " : "", r ? err.msg : "");
		}
	}
	tap_ok(jobs >= 20, "%d shipped and test jobs checked", jobs);
}

static unsigned long long kib(const char *name, const char *params, unsigned n, int *bound)
{
	struct job_workload w = {0};
	struct lab_error err = {0};
	unsigned long long k;

	snprintf(w.name, sizeof(w.name), "%s", name);
	if (jsonio_load_string(params, &w.params, &err) < 0)
		return 0;
	k = memfit_task_kib(&w, n, bound);
	json_decref(w.params);
	return k;
}

/* One task's footprint per runner: what it maps and touches, plus page tables (1/512). */
static void footprints(void)
{
	static const struct {
		const char *name, *params;
		unsigned tasks;
		unsigned long long kib;
		int bound;
	} c[] = {
		{"page_fault1", "{\"memory_mib\":128,\"membind\":\"bind\"}", 2, 131072 + 256, 1},
		{"page_fault2", "{\"memory_mib\":128,\"membind\":\"bind\"}", 2, 262144 + 512, 1},
		{"page_fault3", "{\"memory_mib\":128,\"membind\":\"local\"}", 1, 131072 + 256, 0},
		{"pft", "{\"memory_mib\":64,\"membind\":\"bind\"}", 8, 65536 + 128, 1},
		{"pft", "{\"memory_mib\":64,\"memory_split\":true,\"membind\":\"bind\"}", 8,
		 8192 + 16, 1},
		{"memscale", "{\"memory_mib\":64,\"huge\":\"nothp\",\"stride_kib\":4,"
			     "\"membind\":\"bind\"}", 1, 65536 + 128, 1},
		{"memscale", "{\"memory_mib\":64,\"huge\":\"nothp\",\"stride_kib\":64,"
			     "\"membind\":\"bind\"}", 1, 4096 + 8, 1},
		{"memscale", "{\"memory_mib\":64,\"huge\":\"thp\",\"stride_kib\":2048,"
			     "\"membind\":\"bind\"}", 1, 65536 + 128, 1},
		{"memscale", "{\"memory_mib\":64,\"huge\":\"hugetlb\",\"stride_kib\":4,"
			     "\"membind\":\"bind\"}", 1, 0, 1},
		{"mmap_contention", "{\"memory_mib\":16,\"membind\":\"none\"}", 4, 16384 + 32, 0},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int bound = -1;
		unsigned long long got = kib(c[i].name, c[i].params, c[i].tasks, &bound);

		tap_ok(got == c[i].kib && bound == c[i].bound, "%s %s x%u: %llu KiB a task, %s",
		       c[i].name, c[i].params, c[i].tasks, c[i].kib,
		       c[i].bound ? "bound" : "any node");
		if (got != c[i].kib || bound != c[i].bound)
			printf("# got %llu KiB, bound %d\n", got, bound);
	}
}

int main(void)
{
	golden();
	every_job_fits();
	footprints();
	return tap_done();
}
