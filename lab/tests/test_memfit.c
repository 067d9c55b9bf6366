/* Whether a job's workloads fit in each node of its guest (core/memfit.c).
 *
 * lab/tests/data/memfit/NAME.json are jobs; NAME.expected is either the JSON of their fit
 * (memfit_to_json) when they fit, or the one error line "PATH: MSG" users see when they do
 * not (issue-28: issue 28's job, page_fault1 at 128 MiB on one node of 1 CPU and 256 MiB, fits;
 * its topology and 2n-2c-384 are in topologies/ there).  Then the reserve for the guest
 * against what guests were measured to hold (measured/, lab/tests/bench-memfit.sh).  Then
 * every job the lab ships or runs in its tests must fit (configs/, configs/seeds/,
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

/* What the guest itself held of a node at a workload's start, MiB rounded up: the node's
 * memory less what a task bound there could still take (runners/PROTOCOL.md, "nodes" of
 * workload-start). */
static long long held_mib(unsigned long memory_mib, const json_t *at)
{
	long long can = json_integer_value(json_object_get(at, "free_kib")) +
			json_integer_value(json_object_get(at, "pcp_kib")) -
			json_integer_value(json_object_get(at, "kept_kib"));

	return ((long long)memory_mib * 1024 - can + 1023) / 1024;
}

/* One boot's starts against the reserve m: the starts, and in *over how many nodes held more
 * than the reserve less its margin; the most the kernel image's node held into worst[]. */
static int boot_held(const char *topo, size_t b, const json_t *boot, const struct memfit *m,
		     long long *worst, int *over)
{
	const json_t *kj = json_object_get(boot, "kernel_node"), *start, *at;
	json_int_t kn = json_is_integer(kj) ? json_integer_value(kj) : -1;
	int starts = 0;
	size_t k, i;

	json_array_foreach(json_object_get(boot, "starts"), k, start) {
		starts++;
		json_array_foreach(start, i, at) {
			unsigned id = (unsigned)json_integer_value(json_object_get(at, "id"));
			long long held, room;

			if (id >= m->nr_nodes)
				continue;
			held = held_mib(m->nodes[id].memory_mib, at);
			room = (long long)(m->nodes[id].guest_mib - MEMFIT_MARGIN_MIB);
			if (held > room) {
				(*over)++;
				printf("# %s boot %zu start %zu node %u: held %lld MiB, the reserve "
				       "less its margin %lld\n", topo, b, k, id, held, room);
			}
			if (id == kn && held > worst[id])
				worst[id] = held;
		}
	}
	return starts;
}

/* One topology's boots against the reserve memfit makes on it.  No node at any start may
 * hold more than the reserve less its margin; and the reserve must not be far above what
 * guests hold: on every node that held the kernel image in some boot (the case the reserve
 * is made for), the most held there is at most MEMFIT_TEST_SLACK_MIB below the reserve less
 * the margin. */
#define MEMFIT_TEST_SLACK_MIB 10

static void measured_topology(const char *file, const json_t *t)
{
	const char *topo = json_string_value(json_object_get(t, "topology"));
	_cleanup_free_ char *dir = fs_join(testutil_root(), "lab/tests/data/memfit");
	_cleanup_json_ json_t *jj = NULL;
	long long worst[TOPO_MAX_NODES];
	struct lab_error err = {0};
	int starts = 0, over = 0, tight = 0;
	struct memfit m;
	struct job job;
	const json_t *boot;
	size_t b;

	jj = json_pack("{s:s,s:s,s:{s:s},s:[{s:s,s:{s:i,s:[i]}}]}", "name", "measured",
		       "topology", topo ? topo : "", "kernel", "image", "/boot/vmlinuz-*",
		       "workloads", "name", "pft", "params", "memory_mib", 1, "tasks", 1);
	if (!tap_ok(jj && job_from_json(jj, loader, dir, &job, &err) == 0, "%s: %s loads%s%s",
		    file, topo ? topo : "?", err.msg[0] ? ": " : "", err.msg))
		return;
	memfit_build(&job, job.knobs, "knobs", &m);
	for (unsigned i = 0; i < TOPO_MAX_NODES; i++)
		worst[i] = -1;
	json_array_foreach(json_object_get(t, "boots"), b, boot)
		starts += boot_held(topo, b, boot, &m, worst, &over);
	tap_ok(starts > 0 && over == 0, "%s: %s: no node at any start (%d) held more than the "
	       "reserve less its %lu MiB margin", file, topo, starts, MEMFIT_MARGIN_MIB);
	for (unsigned i = 0; i < m.nr_nodes; i++) {
		long long room = (long long)(m.nodes[i].guest_mib - MEMFIT_MARGIN_MIB);

		if (worst[i] < 0)
			continue;
		tight++;
		printf("# %s node %u: reserve %lu MiB = %lld + margin %lu; held at most %lld with "
		       "the kernel image there\n", topo, i, m.nodes[i].guest_mib, room,
		       MEMFIT_MARGIN_MIB, worst[i]);
		tap_ok(room - worst[i] <= MEMFIT_TEST_SLACK_MIB, "%s: %s node %u with the kernel "
		       "image: the reserve less its margin (%lld MiB) is at most %d above the most "
		       "held (%lld)", file, topo, i, room, MEMFIT_TEST_SLACK_MIB, worst[i]);
	}
	tap_ok(worst[0] >= 0, "%s: %s: node 0 held the kernel image in a boot (nokaslr), %d "
	       "node(s) did in all", file, topo, tight);
	job_free(&job);
}

/* lab/tests/data/memfit/measured/: what guests held of each node (lab/tests/bench-memfit.sh). */
static void measured(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;
	int topologies = 0;

	testutil_json_dir_open(&d, "lab/tests/data/memfit/measured");
	for (int i = 0; i < d.n; i++) {
		_cleanup_free_ char *path = fs_join(d.dir, d.ents[i]->d_name);
		_cleanup_json_ json_t *j = NULL;
		struct lab_error err = {0};
		size_t k;
		json_t *t;

		if (!tap_ok(jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err) == 0, "%s: %s",
			    d.ents[i]->d_name, err.msg))
			continue;
		json_array_foreach(json_object_get(j, "topologies"), k, t) {
			measured_topology(d.ents[i]->d_name, t);
			topologies++;
		}
	}
	tap_ok(topologies >= 6, "measured data on %d topologies", topologies);
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
	measured();
	every_job_fits();
	footprints();
	return tap_done();
}
