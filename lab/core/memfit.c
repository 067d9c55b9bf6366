#include "core/memfit.h"

#include <stdio.h>
#include <string.h>

#include "core/memplan.h"
#include "util/jsonpath.h"

/* Where the guest's own share of a node comes from (TCG boots of configs/topologies/4s-8c
 * with the host's Debian 6.1 kernel; the nodes' MemTotal as the agent's topology line reports
 * it, "managed_mib", and the OOM killer's report of node 0 on the console):
 * - every node's MemTotal is 9-10 MiB short of its 512 MiB: the struct page array, 1/64 of
 *   the node, and the firmware's holes (MEMFIT_STRUCT_PAGE_DIV);
 * - one node, a different one from boot to boot (KASLR), is 53 MiB short: the kernel image
 *   and what the boot allocates beside it, 44 MiB more.  Any node can be that one, so every
 *   node keeps MEMFIT_KERNEL_MIB (48) for it;
 * - what the running guest holds on a node is memplan's minimum, 64 MiB + 1 MiB per vCPU
 *   there.  Measured on node 0 when the OOM killer struck (issue 18's job: page_fault2, 2
 *   tasks of 128 MiB bound there): 24 MiB the kernel keeps free (the min watermark, raised
 *   for THP), 10 MiB the initramfs's files, 27 MiB slab, stacks and page tables: 61 MiB;
 * - MEMFIT_MARGIN_MIB (16) for what varies.
 * Together 138 MiB of a 512 MiB node with 2 vCPUs, against 71 MiB measured on node 0 of that
 * guest (115 when the kernel image is there too).  page_fault2 was killed holding 221 MiB of
 * private copies and as much of its files on node 0, 441 MiB: this check asks 513 + 138 MiB
 * there and refuses it, while 2 tasks of page_fault1 or page_fault3 (257 + 138 MiB) ran to
 * the end in the same guest and pass. */

/* The footprints, from the runners (runners/PROTOCOL.md, configs/README.md):
 * - pft: each task's object (memory_mib, or memory_mib / tasks with memory_split) is touched
 *   in full whatever `touch` says (write, memset and mlock all fault every page); with
 *   `shared` the one object is the tasks' ranges, each faulted by its own task, so its pages
 *   follow that task's policy like a private object's.
 * - memscale: memory_mib per task, but only the pages its stride touches: one 4 KiB page per
 *   stride_kib with "nothp", up to a 2 MiB page per stride otherwise (THP may back each
 *   touch).  "hugetlb" takes its pages from the pool the knobs reserve, counted as the pool.
 * - page_fault1: memory_mib of private anonymous memory per task; page_fault3: the task's
 *   file in /tmp (tmpfs: page cache, allocated under the task's policy), memory_mib;
 *   page_fault2: that file and, as each page is written through the private mapping, its
 *   private copy: twice memory_mib.
 * - mmap_contention: memory_mib per faulting thread; the mappers never touch what they map.
 * Plus page tables, 8 bytes per 4 KiB page mapped, on the task's node too.
 * Placement: task i runs on the runner's i-th CPU (modulo their count, in ascending order:
 * the agent starts runners on every CPU) and binds its memory to that CPU's node.  Unpinned
 * tasks (pin "none") bind to the node they happen to start on: fork balancing spreads new
 * tasks over idle CPUs, so they are counted like pinned ones, an estimate. */

static long long param_int(const json_t *p, const char *k)
{
	return json_integer_value(json_object_get(p, k));
}

static int param_is(const json_t *p, const char *k, const char *v)
{
	const char *s = json_string_value(json_object_get(p, k));

	return s && !strcmp(s, v);
}

static unsigned long long div_up(unsigned long long a, unsigned long long b)
{
	return (a + b - 1) / b;
}

/* Pages memscale touches: one per stride, each a 4 KiB page or (THP) up to a 2 MiB one. */
static unsigned long long memscale_kib(const json_t *p, unsigned long long mem)
{
	unsigned long long stride = (unsigned long long)param_int(p, "stride_kib");
	unsigned long long page = param_is(p, "huge", "nothp") ? 4 : MEMFIT_HUGEPAGE_KIB;
	unsigned long long touched = div_up(mem, stride ? stride : 1) * page;

	return touched < mem ? touched : mem;
}

unsigned long long memfit_task_kib(const struct job_workload *w, unsigned n, int *bound)
{
	const json_t *p = w->params;
	unsigned long long mem = (unsigned long long)param_int(p, "memory_mib") << 10, foot = mem;

	*bound = param_is(p, "membind", "bind");
	if (!strcmp(w->name, "pft") && json_is_true(json_object_get(p, "memory_split")))
		foot = mem = mem / (n ? n : 1) / 4 * 4;
	else if (!strcmp(w->name, "memscale") && param_is(p, "huge", "hugetlb"))
		return 0;
	else if (!strcmp(w->name, "memscale"))
		foot = memscale_kib(p, mem);
	else if (!strcmp(w->name, "page_fault2"))
		foot = 2 * mem;
	return foot + div_up(foot, 512);
}

/* The node of each CPU the runner may use, in ascending CPU order. */
static unsigned cpu_nodes(const struct topology *t, unsigned short *node_of)
{
	unsigned n = 0;

	for (unsigned cpu = 0; cpu < TOPO_MAX_VCPUS; cpu++)
		for (unsigned i = 0; i < t->nr_nodes && i < TOPO_MAX_NODES; i++)
			for (unsigned k = 0; k < t->nodes[i].nr_cpus; k++)
				if (t->nodes[i].cpus[k] == cpu)
					node_of[n++] = (unsigned short)i;
	return n;
}

static unsigned long pool_mib(const struct job *job, const json_t *knobs, unsigned i,
			      unsigned mem_nodes)
{
	const json_t *v = json_object_get(knobs, "nr_hugepages");
	unsigned long long pages;

	if (json_is_array(v))
		pages = (unsigned long long)json_integer_value(json_array_get(v, i));
	else /* a total: the kernel spreads it over the nodes with memory, round robin */
		pages = job->topo.nodes[i].memory_mib && mem_nodes
				? div_up((unsigned long long)json_integer_value(v), mem_nodes) : 0;
	return (unsigned long)(pages * MEMFIT_HUGEPAGE_KIB >> 10);
}

static void build_nodes(const struct job *job, const json_t *knobs, struct memfit *m)
{
	struct memplan plan;
	unsigned mem_nodes = 0;

	memplan_build(&job->topo, &plan);
	for (unsigned i = 0; i < plan.nr_nodes; i++)
		mem_nodes += plan.nodes[i].memory_mib > 0;
	m->nr_nodes = plan.nr_nodes;
	for (unsigned i = 0; i < plan.nr_nodes; i++) {
		struct memfit_node *n = &m->nodes[i];

		n->id = plan.nodes[i].id;
		n->memory_mib = plan.nodes[i].memory_mib;
		n->guest_mib = plan.nodes[i].min_mib + n->memory_mib / MEMFIT_STRUCT_PAGE_DIV +
			       MEMFIT_KERNEL_MIB + MEMFIT_MARGIN_MIB;
		n->pool_mib = pool_mib(job, knobs, i, mem_nodes);
		n->worst = -1;
	}
}

/* Workload wi with n tasks: what it binds to each node, or places anywhere. */
static void add_sweep(struct memfit *m, const struct job *job, unsigned wi, unsigned n,
		      const unsigned short *node_of, unsigned ncpus)
{
	unsigned tasks_on[TOPO_MAX_NODES] = {0};
	int bound;
	unsigned long long foot = memfit_task_kib(&job->workloads[wi], n, &bound);

	if (!bound) {
		if (foot * n > m->spill_kib) {
			m->spill_kib = (unsigned long)(foot * n);
			m->spill_worst = (int)wi;
			m->spill_tasks = n;
		}
		return;
	}
	for (unsigned i = 0; i < n && ncpus; i++)
		tasks_on[node_of[i % ncpus]]++;
	for (unsigned nd = 0; nd < m->nr_nodes; nd++) {
		struct memfit_node *node = &m->nodes[nd];

		if (tasks_on[nd] && foot * tasks_on[nd] > node->bound_kib) {
			node->bound_kib = (unsigned long)(foot * tasks_on[nd]);
			node->worst = (int)wi;
			node->worst_tasks = n;
		}
	}
}

void memfit_build(const struct job *job, const json_t *knobs, const char *knobs_path,
		  struct memfit *m)
{
	unsigned short node_of[TOPO_MAX_VCPUS];
	unsigned ncpus;

	memset(m, 0, sizeof(*m));
	m->spill_worst = -1;
	snprintf(m->pool_path, sizeof(m->pool_path), "%s.nr_hugepages", knobs_path);
	build_nodes(job, knobs, m);
	ncpus = cpu_nodes(&job->topo, node_of);
	for (unsigned wi = 0; wi < job->nr_workloads; wi++) {
		size_t k;
		json_t *e;

		json_array_foreach(json_object_get(job->workloads[wi].params, "tasks"), k, e)
			add_sweep(m, job, wi, (unsigned)json_integer_value(e), node_of, ncpus);
	}
}

static unsigned long mib_up(unsigned long long kib)
{
	return (unsigned long)div_up(kib, 1024);
}

static unsigned long node_need_mib(const struct memfit_node *n)
{
	return n->guest_mib + n->pool_mib + mib_up(n->bound_kib);
}

/* "; node 2 needs 700 MiB of its 512" for each node over but first (at most 3 more). */
static void others_over(const struct memfit *m, unsigned first, char *buf, size_t len)
{
	size_t used = 0;
	unsigned shown = 0, more = 0;

	buf[0] = '\0';
	for (unsigned i = first + 1; i < m->nr_nodes; i++) {
		const struct memfit_node *n = &m->nodes[i];

		if (node_need_mib(n) <= n->memory_mib)
			continue;
		if (shown++ >= 3) {
			more++;
			continue;
		}
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "; node %u needs %lu MiB of its %lu", n->id, node_need_mib(n),
					 n->memory_mib);
	}
	if (more && used < len)
		snprintf(buf + used, len - used, "; and %u more node(s)", more);
}

static int node_error(const struct job *job, const struct memfit *m, unsigned i,
		      struct lab_error *err)
{
	const struct memfit_node *n = &m->nodes[i];
	const struct job_workload *w;
	char path[JSONPATH_LEN], others[160];
	unsigned long long foot;
	int bound;

	others_over(m, i, others, sizeof(others));
	if (n->worst < 0)
		return error_set(err, m->pool_path,
				 "the huge page pool does not fit on node %u: %lu MiB of huge pages "
				 "beside the guest's own %lu MiB need %lu MiB of its %lu%s", n->id,
				 n->pool_mib, n->guest_mib, node_need_mib(n), n->memory_mib, others);
	w = &job->workloads[n->worst];
	foot = memfit_task_kib(w, n->worst_tasks, &bound);
	snprintf(path, sizeof(path), "workloads[%d].params.memory_mib", n->worst);
	return error_set(err, path,
			 "%s with %u tasks binds %lu MiB to node %u (%llu task(s) there x %lu MiB%s), "
			 "more than fits: node %u needs %lu MiB of its %lu (that + the guest's own "
			 "%lu + huge pages %lu)%s; use a smaller memory_mib or fewer tasks per node",
			 w->name, n->worst_tasks, mib_up(n->bound_kib), n->id,
			 foot ? n->bound_kib / foot : 0, mib_up(foot),
			 !strcmp(w->name, "page_fault2") ? ", its file and its private copy" : "",
			 n->id, node_need_mib(n), n->memory_mib, n->guest_mib, n->pool_mib, others);
}

/* What all nodes have left for memory that may go anywhere. */
static unsigned long left_mib(const struct memfit *m, unsigned long *guest, unsigned long *pool)
{
	unsigned long left = 0;

	*guest = *pool = 0;
	for (unsigned i = 0; i < m->nr_nodes; i++) {
		const struct memfit_node *n = &m->nodes[i];

		*guest += n->guest_mib;
		*pool += n->pool_mib;
		if (n->memory_mib > n->guest_mib + n->pool_mib)
			left += n->memory_mib - n->guest_mib - n->pool_mib;
	}
	return left;
}

int memfit_check(const struct job *job, const struct memfit *m, struct lab_error *err)
{
	unsigned long guest, pool, left = left_mib(m, &guest, &pool);
	char path[JSONPATH_LEN];

	for (unsigned i = 0; i < m->nr_nodes; i++)
		if (node_need_mib(&m->nodes[i]) > m->nodes[i].memory_mib)
			return node_error(job, m, i, err);
	if (mib_up(m->spill_kib) <= left)
		return 0;
	snprintf(path, sizeof(path), "workloads[%d].params.memory_mib", m->spill_worst);
	return error_set(err, path,
			 "%s with %u tasks needs %lu MiB (membind \"%s\": any node), more than the "
			 "guest has left: %lu MiB on %u node(s) after the guest's own %lu and huge "
			 "pages %lu; use a smaller memory_mib or fewer tasks",
			 job->workloads[m->spill_worst].name, m->spill_tasks, mib_up(m->spill_kib),
			 json_string_value(json_object_get(job->workloads[m->spill_worst].params,
							   "membind")),
			 left, m->nr_nodes, guest, pool);
}

json_t *memfit_to_json(const struct memfit *m)
{
	json_t *nodes = json_array();

	for (unsigned i = 0; nodes && i < m->nr_nodes; i++) {
		const struct memfit_node *n = &m->nodes[i];

		if (json_array_append_new(nodes, json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "id",
			(json_int_t)n->id, "memory_mib", (json_int_t)n->memory_mib, "guest_mib",
			(json_int_t)n->guest_mib, "pool_mib", (json_int_t)n->pool_mib, "bound_mib",
			(json_int_t)mib_up(n->bound_kib), "need_mib", (json_int_t)node_need_mib(n),
			"worst", (json_int_t)n->worst)) < 0) {
			json_decref(nodes);
			return NULL;
		}
	}
	return json_pack("{s:o*,s:I,s:I}", "nodes", nodes, "spill_mib",
			 (json_int_t)mib_up(m->spill_kib), "spill_worst", (json_int_t)m->spill_worst);
}

int memfit_check_job(const struct job *job, struct lab_error *err)
{
	struct memfit fit;
	int r;

	/* Each kernel's runs with their own knobs (a knob set may reserve huge pages). */
	for (unsigned i = 0; i < (job->nr_kernels ? job->nr_kernels : 1); i++) {
		const struct job_kernel *k = job->nr_kernels ? &job->kernels[i] : NULL;
		const json_t *own = k ? json_object_get(k->own_knobs, "nr_hugepages") : NULL;
		char path[JSONPATH_LEN];

		snprintf(path, sizeof(path), "%s%s", own ? k->path : "", own ? ".knobs" : "knobs");
		memfit_build(job, job_kernel_knobs(job, k), path, &fit);
		if ((r = memfit_check(job, &fit, err)) < 0)
			return r;
	}
	return 0;
}
