#include "core/memfit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/jsonpath.h"

/* Where the guest's own share of a node comes from (memfit.h names the parts).  Measured with
 * lab/tests/bench-memfit.sh: TCG boots of the host's Debian 6.1 kernel on the shipped
 * topologies and two small ones (lab/tests/data/memfit/topologies/), several with KASLR and
 * one with nokaslr each.  As each workload starts the agent reads what a task bound to each
 * node could still take there (runners/PROTOCOL.md, workload-start); the node's memory less
 * that is what the guest holds of it.  The figures are lab/tests/data/memfit/measured/;
 * lab/tests/test_memfit.c checks that no node of any boot held more than the reserve less
 * MEMFIT_MARGIN_MIB, and that where the kernel image was, the reserve is at most 10 MiB above
 * the most held there.  From the figures (MiB; "held" at the later of the two starts):
 * - MemTotal falls short of each node by 1/64 of it (struct pages) and about 1/4 per vCPU on
 *   it (per-CPU areas), of the node with the first MiB by 1-2 more (the firmware's);
 * - the kernel keeps its min watermark free: 25 of each 512 MiB node of 4s-8c, 28 of the
 *   larger nodes (with THP 22 MiB for each of the guest's 5 zones, at most 5 % of its memory,
 *   spread by size), 2.4 of the 256 MiB guest, which has no THP; the node of the DMA zone
 *   keeps 2-5 more, the DMA zone's reserve against the zone above (1/256 of it);
 * - a node with neither the kernel image, the boot nor the bounce buffer held 40 with 2 vCPUs
 *   (4s-8c), 69 with 16 (4s-64c), 87 with 32 (4s-128c), 144 with 64 (4s-256c): beside the
 *   parts above, 5.5 and 1.25 per vCPU on it (slab, stacks, per-CPU data); the free pages
 *   on the CPUs' lists (up to 1 MiB a CPU) are not counted, the allocator drains them;
 * - the node KASLR loads the kernel image on holds 42-44 more; in 4s-8c each node was that
 *   node in some boot;
 * - the node of CPUs 0 and 1 holds 29 more with 8 vCPUs, 35 with 128, 48 with 256: the
 *   initramfs's files (12) and what the boot allocates there, some of it for each CPU; with
 *   the two CPUs on two nodes (2n-2c-384) either got 9 to 23 of it;
 * - the node with the end of the RAM holds 3 more with 64 vCPUs, 5 with 128, 10 with 256;
 * - with RAM above 4 GiB (a guest of 2816 MiB or more: q35 puts what is beyond 2 GiB there),
 *   the node with the RAM just below 2 GiB holds the 64 MiB bounce buffer (swiotlb at
 *   1946-2014 MiB: node 1 of 4s-64c and 4s-128c, node 0 of 4s-256c);
 * - a bound task gets the rest: page_fault1 bound to the node of 1n-1c-256, whose guest held
 *   89 there, ran with 166 MiB and was OOM-killed with 168; on node 0 of 4s-8c with the
 *   kernel image (held 112) it ran with 394 and was killed with 398.
 * MEMFIT_MARGIN_MIB (16) is for what a workload's start cannot show: the runner itself (1-2
 * MiB in those runs), each task's kernel memory (stack and task struct, some 30 KiB a task:
 * 512 tasks would take most of it, on the node the runner forks them from) and kernels other
 * than the one measured.  Jobs that fill the nodes to the reserve ran: pft with 2 processes
 * of 186 MiB a node on 4s-8c (nokaslr: node 0 needs 510 of 512) and 16 of 51 MiB a node on
 * 4s-64c.  The check used to keep 64 + 1 per vCPU + 1/64 + 48 + 16 of every node: by the
 * measurement too little on the 1 GiB nodes of 4s-64c and 4s-128c (160 and 176 where node 1
 * held 172 and 194), too much on small guests (issue 28's job, page_fault1 at 128 MiB on one
 * node of 1 CPU and 256 MiB, was refused and runs). */

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

/* q35 (lab/core/domain.c) lays the guest's RAM out node after node from address 0; with at
 * least MEMFIT_Q35_HIGH_FROM_MIB of it, the first MEMFIT_Q35_LOW_MIB lie below 4 GiB and the
 * rest above.  The kernel's zones: DMA (the first 16 MiB), DMA32 (the rest below 4 GiB),
 * Normal (above). */
#define MEMFIT_Q35_HIGH_FROM_MIB 2816ul
#define MEMFIT_Q35_LOW_MIB 2048ul
#define MEMFIT_DMA_MIB 16ul

struct node_span {
	unsigned long start, end; /* MiB of the guest's RAM, in the order q35 lays it out */
};

static unsigned long low_mib(unsigned long total)
{
	return total >= MEMFIT_Q35_HIGH_FROM_MIB ? MEMFIT_Q35_LOW_MIB : total;
}

unsigned long long memfit_below_4g(const struct topology *t)
{
	return (unsigned long long)low_mib(topology_memory_mib(t)) << 20;
}

static unsigned node_zones(struct node_span s, unsigned long low)
{
	unsigned long dma32_start = s.start > MEMFIT_DMA_MIB ? s.start : MEMFIT_DMA_MIB;

	return (s.start < MEMFIT_DMA_MIB) + (dma32_start < (s.end < low ? s.end : low)) +
	       (s.end > low);
}

/* Whether the guest runs with THP: the kernel turns it off below 512 MiB of memory
 * (mm/huge_memory.c) unless a knob turns it on (thp_enabled, any mthp_enabled size). */
static int thp_on(unsigned long total_mib, const json_t *knobs)
{
	const json_t *thp = json_object_get(knobs, "thp_enabled"), *v;
	const char *size;

	if (total_mib >= 512 || (json_is_string(thp) && strcmp(json_string_value(thp), "never")))
		return 1;
	json_object_foreach((json_t *)json_object_get(knobs, "mthp_enabled"), size, v)
		if (json_is_string(v) && strcmp(json_string_value(v), "never"))
			return 1;
	return 0;
}

/* The min watermarks, KiB: min_free_kbytes, sqrt(16 x the memory in KiB), at most 256 MiB
 * (mm/page_alloc.c), which THP raises to 11 pageblocks (22 MiB) per zone below Movable, at
 * most 5 % of the memory (mm/khugepaged.c).  The kernel spreads it over the zones by their
 * size. */
static unsigned long long watermark_kib(unsigned zones, unsigned long total_mib, int thp)
{
	unsigned long long total_kib = (unsigned long long)total_mib << 10;
	unsigned long long huge = 22ull * 1024 * zones;
	unsigned long long dflt = (unsigned long long)sqrt(16.0 * (double)total_kib);

	if (huge > total_kib / 20)
		huge = total_kib / 20;
	if (dflt > 256ull * 1024)
		dflt = 256ull * 1024;
	return thp && huge > dflt ? huge : dflt;
}

/* What the guest holds of node i, KiB (memfit.h, and above): wm is all the nodes' min
 * watermarks; the boot ran on the nodes of CPUs 0 and 1, cpu0 and cpu1. */
static unsigned long long node_kib(const struct topology *t, const struct node_span *span,
				   unsigned i, unsigned long long wm, int cpu0, int cpu1)
{
	unsigned long total = span[t->nr_nodes - 1].end, low = low_mib(total);
	unsigned long long mem = t->nodes[i].memory_mib, kib = (mem << 10) / MEMFIT_STRUCT_PAGE_DIV;
	unsigned zones = node_zones(span[i], low);

	kib += wm * mem / total;
	/* Each lower zone keeps 1/256 of the zones above it on the node from them. */
	kib += (zones > 1 ? zones - 1 : 0) * (mem << 10) / 256;
	if (span[i].start < MEMFIT_DMA_MIB)
		kib += MEMFIT_FIRMWARE_MIB << 10;
	kib += MEMFIT_NODE_KIB + (unsigned long long)MEMFIT_VCPU_KIB * t->nodes[i].nr_cpus;
	kib += MEMFIT_KERNEL_MIB << 10;
	if ((int)i == cpu0 || (int)i == cpu1)
		kib += ((cpu0 == cpu1 || cpu1 < 0 ? MEMFIT_BOOT_MIB : MEMFIT_BOOT_ONE_MIB) << 10) +
		       (unsigned long long)MEMFIT_BOOT_VCPU_KIB * t->vcpus;
	if (total > low && span[i].end > low - MEMFIT_SWIOTLB_WINDOW_MIB && span[i].start < low)
		kib += MEMFIT_SWIOTLB_MIB << 10;
	if (span[i].end == total)
		kib += (unsigned long long)MEMFIT_TOP_VCPU_KIB * t->vcpus;
	return kib;
}

/* The guest's own share of each node and the margin, MiB. */
static void guest_share(const struct topology *t, const json_t *knobs, unsigned long *guest_mib)
{
	unsigned n = t->nr_nodes < TOPO_MAX_NODES ? t->nr_nodes : TOPO_MAX_NODES, zones = 0;
	unsigned long total = topology_memory_mib(t), start = 0;
	unsigned short node_of[TOPO_MAX_VCPUS];
	unsigned ncpus = cpu_nodes(t, node_of);
	int cpu0 = ncpus > 0 ? node_of[0] : -1, cpu1 = ncpus > 1 ? node_of[1] : -1;
	struct node_span span[TOPO_MAX_NODES];
	unsigned long long wm;

	for (unsigned i = 0; i < n; i++) {
		span[i] = (struct node_span){start, start + t->nodes[i].memory_mib};
		start = span[i].end;
		zones += node_zones(span[i], low_mib(total));
	}
	wm = watermark_kib(zones, total, thp_on(total, knobs));
	for (unsigned i = 0; i < n; i++)
		guest_mib[i] = (unsigned long)div_up(node_kib(t, span, i, wm, cpu0, cpu1), 1024) +
			       MEMFIT_MARGIN_MIB;
}

static void build_nodes(const struct job *job, const json_t *knobs, struct memfit *m)
{
	unsigned long guest[TOPO_MAX_NODES];
	unsigned mem_nodes = 0;

	m->nr_nodes = job->topo.nr_nodes < TOPO_MAX_NODES ? job->topo.nr_nodes : TOPO_MAX_NODES;
	guest_share(&job->topo, knobs, guest);
	for (unsigned i = 0; i < m->nr_nodes; i++)
		mem_nodes += job->topo.nodes[i].memory_mib > 0;
	for (unsigned i = 0; i < m->nr_nodes; i++) {
		struct memfit_node *n = &m->nodes[i];

		n->id = job->topo.nodes[i].id;
		n->memory_mib = job->topo.nodes[i].memory_mib;
		n->guest_mib = guest[i];
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
				 "beside the guest's own %lu MiB and a margin of %lu need %lu MiB of its "
				 "%lu%s", n->id, n->pool_mib, n->guest_mib - MEMFIT_MARGIN_MIB,
				 MEMFIT_MARGIN_MIB, node_need_mib(n), n->memory_mib, others);
	w = &job->workloads[n->worst];
	foot = memfit_task_kib(w, n->worst_tasks, &bound);
	snprintf(path, sizeof(path), "workloads[%d].params.memory_mib", n->worst);
	return error_set(err, path,
			 "%s with %u tasks binds %lu MiB to node %u (%llu task(s) there x %lu MiB%s), "
			 "more than fits: node %u needs %lu MiB of its %lu (that + the guest's own "
			 "%lu + a margin of %lu + huge pages %lu)%s; use a smaller memory_mib or fewer "
			 "tasks per node",
			 w->name, n->worst_tasks, mib_up(n->bound_kib), n->id,
			 foot ? n->bound_kib / foot : 0, mib_up(foot),
			 !strcmp(w->name, "page_fault2") ? ", its file and its private copy" : "",
			 n->id, node_need_mib(n), n->memory_mib, n->guest_mib - MEMFIT_MARGIN_MIB,
			 MEMFIT_MARGIN_MIB, n->pool_mib, others);
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
			 "guest has left: %lu MiB on %u node(s) after the guest's own %lu, a margin "
			 "of %lu on each node and huge pages %lu; use a smaller memory_mib or fewer "
			 "tasks",
			 job->workloads[m->spill_worst].name, m->spill_tasks, mib_up(m->spill_kib),
			 json_string_value(json_object_get(job->workloads[m->spill_worst].params,
							   "membind")),
			 left, m->nr_nodes, guest - m->nr_nodes * MEMFIT_MARGIN_MIB, MEMFIT_MARGIN_MIB,
			 pool);
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
