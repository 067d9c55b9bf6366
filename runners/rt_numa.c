/* CPUs and their nodes, memory policy and the placement check.  Raw syscalls rather than
 * libnuma: the runners are static and the guest has no libraries. */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "rt_bench.h"
#include "util/fs.h"

/* <linux/mempolicy.h> values; stable kernel ABI. */
#define RT_MPOL_PREFERRED 1
#define RT_MPOL_BIND 2
#define RT_MPOL_INTERLEAVE 3

#define NODE_DIR "/sys/devices/system/node"
#define PLACE_BATCH 512

static int rt_node_cpus(unsigned node, unsigned **cpus, size_t *n)
{
	char path[128];
	_cleanup_free_ char *s = NULL;
	int r;

	snprintf(path, sizeof(path), NODE_DIR "/node%u/cpulist", node);
	r = fs_read_file(path, 1 << 20, &s, NULL);
	return r < 0 ? r : rt_parse_cpulist(s, cpus, n);
}

/* Which nodes exist and which have memory, from the "possible"/"has_memory" masks. */
static void rt_nodes_scan(struct rt_cpus *c)
{
	_cleanup_free_ char *s = NULL, *m = NULL;
	_cleanup_free_ unsigned *ids = NULL, *mem = NULL;
	size_t n = 0, nm = 0;

	c->nr_nodes = 1;
	c->mem_nodes = 1;
	if (fs_read_file(NODE_DIR "/online", 4096, &s, NULL) < 0 ||
	    rt_parse_cpulist(s, &ids, &n) < 0 || n == 0)
		return;
	c->nr_nodes = ids[n - 1] + 1 > RT_MAX_NODES ? RT_MAX_NODES : ids[n - 1] + 1;
	if (fs_read_file(NODE_DIR "/has_memory", 4096, &m, NULL) < 0 ||
	    rt_parse_cpulist(m, &mem, &nm) < 0)
		return;
	c->mem_nodes = 0;
	for (size_t i = 0; i < nm; i++)
		if (mem[i] < RT_MAX_NODES)
			c->mem_nodes |= 1ULL << mem[i];
	if (!c->mem_nodes)
		c->mem_nodes = 1;
}

int rt_cpus_load(struct rt_cpus *c)
{
	cpu_set_t set;

	memset(c, 0, sizeof(*c));
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	c->cpu = calloc(CPU_SETSIZE, sizeof(*c->cpu));
	c->node = calloc(CPU_SETSIZE, sizeof(*c->node));
	if (!c->cpu || !c->node) {
		rt_cpus_free(c);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set)) {
			c->node[c->n] = -1;
			c->cpu[c->n++] = i;
		}
	rt_nodes_scan(c);
	for (unsigned nd = 0; nd < c->nr_nodes; nd++) {
		_cleanup_free_ unsigned *cpus = NULL;
		size_t k;

		if (rt_node_cpus(nd, &cpus, &k) < 0)
			continue;
		for (size_t j = 0; j < k; j++)
			for (size_t i = 0; i < c->n; i++)
				if (c->cpu[i] == cpus[j])
					c->node[i] = (int)nd;
	}
	/* No node directories (a kernel without NUMA): everything is node 0. */
	for (size_t i = 0; i < c->n; i++)
		if (c->node[i] < 0 && c->nr_nodes == 1)
			c->node[i] = 0;
	return 0;
}

void rt_cpus_free(struct rt_cpus *c)
{
	free(c->cpu);
	free(c->node);
	memset(c, 0, sizeof(*c));
}

int rt_raise_nofile(unsigned long want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur >= want)
		return 0;
	if (rl.rlim_max < want)
		rl.rlim_max = want; /* only root may; then the soft limit stays what it can be */
	rl.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
		return 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -errno : -EMFILE;
}

static int rt_policy(enum rt_membind m, int node, uint64_t mem_nodes, int *mode,
		     unsigned long *mask)
{
	switch (m) {
	case RT_MEMBIND_BIND:
	case RT_MEMBIND_LOCAL:
		if (node < 0 || node >= RT_MAX_NODES)
			return -EINVAL;
		*mode = m == RT_MEMBIND_BIND ? RT_MPOL_BIND : RT_MPOL_PREFERRED;
		*mask = 1UL << node;
		return 0;
	case RT_MEMBIND_INTERLEAVE:
		*mode = RT_MPOL_INTERLEAVE;
		*mask = (unsigned long)mem_nodes;
		return 0;
	default:
		return 1; /* nothing to do */
	}
}

/* maxnode is one more than the bits in the mask: the kernel's get_nodes() drops one. */
int rt_membind_task(enum rt_membind m, int node, uint64_t mem_nodes)
{
	unsigned long mask;
	int mode, r = rt_policy(m, node, mem_nodes, &mode, &mask);

	if (r)
		return r < 0 ? r : 0;
	return syscall(SYS_set_mempolicy, mode, &mask, 8 * sizeof(mask) + 1) < 0 ? -errno : 0;
}

int rt_membind_range(void *addr, size_t len, enum rt_membind m, int node, uint64_t mem_nodes)
{
	unsigned long mask;
	int mode, r = rt_policy(m, node, mem_nodes, &mode, &mask);

	if (r)
		return r < 0 ? r : 0;
	return syscall(SYS_mbind, addr, len, mode, &mask, 8 * sizeof(mask) + 1, 0) < 0 ? -errno
										    : 0;
}

void rt_place_query(const void *addr, size_t len, size_t page, unsigned long max_samples,
		    int node, struct rt_place *p)
{
	size_t pages = page ? len / page : 0, stride;
	void *batch[PLACE_BATCH];
	int status[PLACE_BATCH];

	memset(p, 0, sizeof(*p));
	if (!addr || pages == 0 || max_samples == 0)
		return;
	stride = pages > max_samples ? (pages + max_samples - 1) / max_samples : 1;
	for (size_t i = 0; i < pages;) {
		unsigned long cnt = 0;

		for (; i < pages && cnt < PLACE_BATCH; i += stride)
			batch[cnt++] = (char *)addr + i * page;
		if (syscall(SYS_move_pages, 0, cnt, batch, NULL, status, 0) < 0) {
			p->err = -errno;
			return;
		}
		for (unsigned long k = 0; k < cnt; k++) {
			if (status[k] < 0) {
				p->absent++; /* -ENOENT: not faulted in (or -EFAULT) */
				continue;
			}
			p->sampled++;
			p->local += status[k] == node;
		}
	}
}
