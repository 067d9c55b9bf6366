/* configs/seeds/ (issue 3): every seed job parses, comes as a small (-4s-8c) and a full-size
 * (-full) pair, and fits its guest: per node, the huge page pool the knobs reserve plus what
 * the tasks placed on that node fault in stays under 90% of the node's memory, and a HUGETLB
 * workload finds its pages in the node's pool (tasks go to CPUs in order, as the runners pin
 * them, and their memory is bound to the CPU's node).
 * Topology names resolve as the CLI does: configs/seeds/topologies/NAME.json beside the jobs,
 * else configs/topologies/NAME.json. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/job.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

#define SEEDS "configs/seeds"

static int seed_loader(const char *ref, void *userdata, json_t **out, struct lab_error *err)
{
	const char *const dirs[] = {SEEDS "/topologies", "configs/topologies"};

	(void)userdata;
	for (size_t i = 0; i < 2; i++) {
		_cleanup_free_ char *rel = NULL, *path = NULL;

		if (asprintf(&rel, "%s/%s.json", dirs[i], ref) < 0)
			return -ENOMEM;
		path = fs_join(testutil_root(), rel);
		if (path && fs_exists(path))
			return jsonio_load_file(path, TESTUTIL_MAX_FILE, out, err);
	}
	return error_set(err, "topology", "no topology named \"%s\"", ref);
}

static long long max_tasks(const json_t *params)
{
	long long m = 0;
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(params, "tasks"), i, e)
		m = json_integer_value(e) > m ? json_integer_value(e) : m;
	return m;
}

/* MiB the tasks of workload w put on node nd. */
static double node_need(const struct job *job, const struct job_workload *w, unsigned nd)
{
	long long n = max_tasks(w->params), on = 0;
	double mib = (double)json_integer_value(json_object_get(w->params, "memory_mib"));

	if (json_is_true(json_object_get(w->params, "memory_split")))
		mib /= (double)(n ? n : 1);
	for (long long t = 0; t < n; t++) {
		unsigned cpu = (unsigned)(t % job->topo.vcpus);

		for (unsigned c = 0; c < job->topo.nodes[nd].nr_cpus; c++)
			on += job->topo.nodes[nd].cpus[c] == cpu;
	}
	return (double)on * mib;
}

static double node_pool(const struct job *job, unsigned nd)
{
	json_t *h = job->knobs ? json_object_get(job->knobs, "nr_hugepages") : NULL;

	if (json_is_array(h))
		return 2.0 * (double)json_integer_value(json_array_get(h, nd));
	if (json_is_integer(h)) /* the kernel spreads a total over the nodes */
		return 2.0 * (double)json_integer_value(h) / job->topo.nr_nodes;
	return 0;
}

static void check_fits(const char *name, const struct job *job)
{
	int fits = 1;

	for (unsigned nd = 0; nd < job->topo.nr_nodes; nd++) {
		double cap = 0.9 * (double)job->topo.nodes[nd].memory_mib, pool = node_pool(job, nd);

		for (unsigned i = 0; i < job->nr_workloads; i++) {
			const char *huge = json_string_value(
				json_object_get(job->workloads[i].params, "huge"));
			double need = node_need(job, &job->workloads[i], nd);

			/* MAP_HUGETLB takes its pages from the pool: the pool must hold them. */
			if (huge && !strcmp(huge, "hugetlb")) {
				if (need > pool) {
					printf("# %s: node %u: workloads[%u] needs %.0f MiB of huge "
					       "pages, the pool has %.0f\n", name, nd, i, need, pool);
					fits = 0;
				}
				continue;
			}
			if (pool + need > cap) {
				printf("# %s: node %u: huge page pool %.0f MiB + workloads[%u] %.0f MiB > "
				       "90%% of %lu MiB\n", name, nd, pool, i, need,
				       job->topo.nodes[nd].memory_mib);
				fits = 0;
			}
		}
	}
	tap_ok(fits, "%s: every workload fits its nodes beside the huge page pool", name);
}

static void check_one(const char *dir, const char *name, int *small, int *full)
{
	_cleanup_free_ char *path = fs_join(dir, name);
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = {0};
	struct job job;
	size_t n = strlen(name);
	int r = jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err);

	memset(&job, 0, sizeof(job));
	if (r == 0)
		r = job_from_json(j, seed_loader, NULL, &job, &err);
	if (!tap_ok(r == 0, "%s parses%s%s%s%s", name, r ? ": " : "", err.path,
		    err.path[0] ? ": " : "", r ? err.msg : ""))
		return;
	if (n > 11 && !strcmp(name + n - 11, "-4s-8c.json")) {
		(*small)++;
		tap_ok(job.topo.vcpus == 8 && job.topo.nr_nodes == 4, "%s: runs on 4s-8c", name);
	} else if (n > 10 && !strcmp(name + n - 10, "-full.json")) {
		(*full)++;
		tap_ok(job.topo.vcpus >= 64, "%s: a big topology (%u vCPUs)", name, job.topo.vcpus);
	} else {
		tap_ok(0, "%s: named NNN-what-4s-8c.json or NNN-what-full.json", name);
	}
	check_fits(name, &job);
	job_free(&job);
}

int main(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;
	int small = 0, full = 0;

	testutil_json_dir_open(&d, SEEDS);
	if (!tap_ok(d.n >= 2, "%s has seed jobs (%d)", SEEDS, d.n))
		return tap_done();
	for (int i = 0; i < d.n; i++)
		check_one(d.dir, d.ents[i]->d_name, &small, &full);
	tap_ok(small == full, "every seed experiment has a small and a full-size job (%d, %d)",
	       small, full);
	return tap_done();
}
