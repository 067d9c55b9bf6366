/* Jobs from files and from JSON (jobload.h).  A "topology": "NAME" resolves to
 * topologies/NAME.json beside the job, then configs/topologies/NAME.json found as
 * util/checkout.h says ($LAB_ROOT, the lab binary's checkout, the current directory). */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/memfit.h"
#include "core/memplan.h"
#include "core/runresume.h"
#include "run/hostload.h"
#include "run/jobload.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/hostkernel.h"
#include "util/jsonio.h"
#include "util/text.h"

#define TOPOLOGY_MAX_SIZE (4u << 20)

/* No file for a name: say where it was looked for, the nearest name and every known one in
 * dirs (each a directory of NAME.json files; "" skipped). */
static int name_unknown(const char *key, const char *what, const char *ref, const char *looked,
			const char *const *dirs, size_t nr_dirs, struct lab_error *err)
{
	char names[64][64], list[1024] = "";
	const char *ptr[64], *near;
	size_t n = 0;

	for (size_t d = 0; d < nr_dirs; d++)
		if (dirs[d][0])
			n += fs_json_names(dirs[d], names + n, 64 - n);
	for (size_t i = 0; i < n; i++) {
		ptr[i] = names[i];
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 names[i]);
	}
	near = text_nearest(ref, ptr, n);
	return error_set(err, key, "no %s named \"%s\" (looked in %s)%s%s%s; known: %s", what, ref,
			 looked, near ? ": did you mean \"" : "", near ? near : "",
			 near ? "\"?" : "", n ? list : "none");
}

/* No topology ref: beside the job, then the lab's configs/topologies. */
static int topology_unknown(const char *ref, const char *job_dir, const char *looked,
			    struct lab_error *err)
{
	char beside[PATH_MAX + 16], lab[PATH_MAX] = "";
	const char *dirs[] = {beside, lab};

	snprintf(beside, sizeof(beside), "%s/topologies", job_dir);
	if (checkout_find("configs/topologies", lab, sizeof(lab)) < 0)
		lab[0] = '\0';
	return name_unknown("topology", "topology", ref, looked, dirs, 2, err);
}

static int load_topology(const char *ref, void *ud, json_t **out, struct lab_error *err)
{
	const char *job_dir = ud;
	char beside[PATH_MAX + 64], rel[PATH_MAX], found[PATH_MAX + 64];

	if (strchr(ref, '/') || strstr(ref, ".json")) {
		snprintf(beside, sizeof(beside), "%s%s%s", ref[0] == '/' ? "" : job_dir,
			 ref[0] == '/' ? "" : "/", ref);
		if (fs_exists(beside))
			return jsonio_load_file(beside, TOPOLOGY_MAX_SIZE, out, err);
	} else {
		snprintf(beside, sizeof(beside), "%s/topologies/%s.json", job_dir, ref);
		if (fs_exists(beside))
			return jsonio_load_file(beside, TOPOLOGY_MAX_SIZE, out, err);
		snprintf(rel, sizeof(rel), "configs/topologies/%s.json", ref);
		if (checkout_find(rel, found, sizeof(found)) == 0)
			return jsonio_load_file(found, TOPOLOGY_MAX_SIZE, out, err);
	}
	return topology_unknown(ref, job_dir, beside, err);
}

int jobload_topology_json(const char *ref, const char *dir, json_t **out, struct lab_error *err)
{
	return load_topology(ref, (void *)dir, out, err);
}

int jobload_topology(const char *ref, const char *dir, struct topology *t, struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL;
	int r = load_topology(ref, (void *)dir, &j, err);

	return r < 0 ? r : topology_from_json(j, "topology", t, err);
}

int jobload_numa_path(const char *ref, const char *job_dir, char *path, size_t len,
		      struct lab_error *err)
{
	char rel[PATH_MAX], lab[PATH_MAX] = "";
	const char *dirs[] = {lab};

	if (job_numa_is_path(ref))
		return (size_t)snprintf(path, len, "%s%s%s", ref[0] == '/' ? "" : job_dir,
					ref[0] == '/' ? "" : "/", ref) < len ? 0 : -ENAMETOOLONG;
	snprintf(rel, sizeof(rel), "configs/numa/%s.json", ref);
	if (checkout_find(rel, path, len) == 0)
		return 0;
	if (checkout_find("configs/numa", lab, sizeof(lab)) < 0)
		lab[0] = '\0';
	return name_unknown("numa_cost", "NUMA preset", ref, path, dirs, 1, err);
}

#define NUMA_PRESET_MAX_SIZE (1u << 20)

/* "numa_cost": the file jobload_numa_path finds read here; what it says is core's
 * (job_set_numa_preset). */
static int load_numa_preset(struct job *job, const char *job_dir, struct lab_error *err)
{
	char path[PATH_MAX + 64];
	_cleanup_json_ json_t *j = NULL;
	struct lab_error load = { 0 };
	int r;

	if (!job->numa_cost[0])
		return 0;
	if ((r = jobload_numa_path(job->numa_cost, job_dir, path, sizeof(path), err)) < 0)
		return r == -ENAMETOOLONG ? error_set(err, "numa_cost", "path too long") : r;
	r = jsonio_load_file(path, NUMA_PRESET_MAX_SIZE, &j, &load);
	if (r < 0)
		return error_set(err, "numa_cost", "preset file %s: %s", path, load.msg);
	return job_set_numa_preset(job, j, path, err);
}

/* The guest's memory plan (core/memplan.h) against this host's MemAvailable (-EINVAL naming
 * the JSON path and the numbers when a node is too small for its vCPUs or the whole guest
 * and QEMU do not fit), then the workloads' against each node of the guest (memfit): a job
 * that cannot fit is refused before anything boots. */
static int check_memory(const struct job *job, struct lab_error *err)
{
	unsigned long total, avail;
	struct memplan plan;
	int r = hostload_memory(&total, &avail);

	if (r < 0)
		return r;
	memplan_build(&job->topo, &plan);
	r = memplan_check(&plan, "topology", avail, total, err);
	return r < 0 ? r : memfit_check_job(job, err);
}

/* A kernel given as a glob with no "name" is labelled by what it resolves to on this host
 * ("vmlinuz-6.1.0-57-amd64"), never the glob: labels are what booted.  One that resolves to
 * nothing keeps the glob; the run says why it cannot boot. */
static void label_globs(struct job *job)
{
	for (unsigned i = 0; i < job->nr_kernels; i++) {
		struct job_kernel *k = &job->kernels[i];
		char path[PATH_MAX];
		const char *base;

		if (k->variant[0] || !strpbrk(k->label, "*?[") ||
		    hostkernel_pick(k->image, path, sizeof(path)) < 0)
			continue;
		base = strrchr(path, '/');
		snprintf(k->label, sizeof(k->label), "%.63s", base ? base + 1 : path);
	}
}

int jobload_json(const json_t *j, const char *job_dir, struct job *job, struct lab_error *err)
{
	/* labd validates in its API threads and reads jobs in its worker: one at a time, since
	 * job parsing (topologies, variants, globs) is not known to be reentrant. */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	int r;

	pthread_mutex_lock(&lock);
	r = job_from_json(j, load_topology, (void *)job_dir, job, err);
	if (r == 0)
		label_globs(job);
	/* A job that parsed is the caller's to free, except when its preset or the memory
	 * checks refuse it.  The preset first: a job error, where the memory is this host's. */
	if (r == 0 && ((r = load_numa_preset(job, job_dir, err)) < 0 ||
		       (r = check_memory(job, err)) < 0))
		job_free(job);
	pthread_mutex_unlock(&lock);
	return r;
}

int jobload_file_as_run(const char *path, const json_t *kernels, struct job *job,
			char sha256[65], json_t **as_run, struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL;
	_cleanup_free_ char *dir = fs_dirname(path);
	int r;

	if (!dir)
		return -ENOMEM;
	r = jsonio_load_file(path, JOBLOAD_MAX_SIZE, &j, err);
	if (r == 0 && kernels && json_is_object(j)) {
		json_object_del(j, "kernel");
		if (json_object_set(j, "kernels", (json_t *)kernels) < 0)
			r = -ENOMEM;
	}
	if (r == 0 && sha256 && runresume_job_sha256(j, sha256) < 0)
		r = error_set(err, "", "out of memory");
	if (r == 0) {
		error_set_file(err, path);
		r = jobload_json(j, dir, job, err);
	}
	if (r == 0 && as_run)
		*as_run = json_incref(j);
	return r;
}
