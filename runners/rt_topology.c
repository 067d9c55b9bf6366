/* The NUMA topology the running kernel sees, from sysfs and /proc/zoneinfo (PROTOCOL.md).
 * Shared so that runners can place work by node without re-parsing sysfs their own way. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"
#include "util/fs.h"

#define NODE_DIR "/sys/devices/system/node"
#define ZONEINFO_MAX (64 * 1024 * 1024) /* per-CPU pagesets make it big on 512 CPUs */
#define SMALL_FILE_MAX (1024 * 1024)

static json_t *topo_cpulist(const char *root, const char *path)
{
	_cleanup_free_ char *full = NULL, *s = NULL;
	_cleanup_free_ unsigned *cpus = NULL;
	size_t n;
	json_t *a;

	if (asprintf(&full, "%s%s", root, path) < 0)
		return NULL;
	if (fs_read_file(full, SMALL_FILE_MAX, &s, NULL) < 0 || rt_parse_cpulist(s, &cpus, &n) < 0)
		return NULL;
	a = json_array();
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer(cpus[i]));
	return a;
}

static json_t *topo_distances(const char *root, unsigned node)
{
	_cleanup_free_ char *path = NULL, *s = NULL;
	json_t *a;
	char *p, *end;

	if (asprintf(&path, "%s" NODE_DIR "/node%u/distance", root, node) < 0 ||
	    fs_read_file(path, SMALL_FILE_MAX, &s, NULL) < 0 || !(a = json_array()))
		return NULL;
	for (p = s;; p = end) {
		unsigned long d = strtoul(p, &end, 10);

		if (end == p)
			break;
		json_array_append_new(a, json_integer((json_int_t)d));
	}
	return a;
}

/* The node's meminfo, read whole ("Node 0 MemTotal:  524800 kB" lines). */
static char *topo_meminfo(const char *root, unsigned node)
{
	_cleanup_free_ char *path = NULL;
	char *s = NULL;

	if (asprintf(&path, "%s" NODE_DIR "/node%u/meminfo", root, node) < 0 ||
	    fs_read_file(path, SMALL_FILE_MAX, &s, NULL) < 0)
		return NULL;
	return s;
}

/* One field of a node's meminfo ("MemFree"), kB; -1 when absent. */
static long long topo_meminfo_kb(const char *meminfo, const char *key)
{
	char pat[32];
	unsigned long long kb;
	const char *p;

	snprintf(pat, sizeof(pat), " %s:", key);
	if (!meminfo || !(p = strstr(meminfo, pat)) || sscanf(p + strlen(pat), " %llu kB", &kb) != 1)
		return -1;
	return (long long)kb;
}

/* Per node, from its zones in /proc/zoneinfo: the present pages; the pages of its free
 * memory a user allocation bound to the node cannot take: in each zone the min watermark
 * plus the lowmem reserve against the highest zone (the allocator's check before it fails
 * and the OOM killer runs), at most what the zone has free; the free pages on the CPUs'
 * lists (pagesets: not in MemFree, drained before the OOM killer runs); the page frames it
 * spans. */
struct topo_zones {
	unsigned long present, kept, pcp;
	unsigned long long start_pfn, end_pfn; /* the pages the node's zones span; end 0: none */
};

struct topo_zone {
	long node;                         /* -1: not a node we count */
	unsigned long free, min, protection;
	unsigned long long start_pfn, spanned;
};

static void topo_zone_end(struct topo_zone *z, struct topo_zones *sums)
{
	unsigned long kept = z->min + z->protection;
	struct topo_zones *n = z->node >= 0 ? &sums[z->node] : NULL;

	if (n)
		n->kept += kept < z->free ? kept : z->free;
	if (n && z->spanned) {
		if (!n->end_pfn || z->start_pfn < n->start_pfn)
			n->start_pfn = z->start_pfn;
		if (z->start_pfn + z->spanned > n->end_pfn)
			n->end_pfn = z->start_pfn + z->spanned;
	}
	*z = (struct topo_zone){.node = -1};
}

/* "protection: (0, 1976, 1976, 1976, 1976)": the largest, the reserve against the highest
 * zone a user allocation may come from. */
static unsigned long topo_protection(const char *s)
{
	unsigned long max = 0;

	for (const char *p = strchr(s, '('); p && *p && *p != ')'; p++) {
		char *end;
		unsigned long v = strtoul(p + 1, &end, 10);

		if (end == p + 1)
			break;
		max = v > max ? v : max;
		p = end - 1;
		if (*end != ',')
			break;
	}
	return max;
}

static int topo_zones_read(const char *root, struct topo_zones *sums, size_t nr_nodes)
{
	_cleanup_free_ char *path = NULL, *s = NULL;
	struct topo_zone z = {.node = -1};
	char *save = NULL;
	int r;

	if (asprintf(&path, "%s/proc/zoneinfo", root) < 0)
		return -ENOMEM;
	r = fs_read_file(path, ZONEINFO_MAX, &s, NULL);
	if (r < 0)
		return r;
	for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long v;
		unsigned n;
		char word[32];

		if (sscanf(line, "Node %u, zone", &n) == 1) {
			topo_zone_end(&z, sums);
			z.node = n < nr_nodes ? (long)n : -1;
			continue;
		}
		if (z.node < 0)
			continue;
		if (sscanf(line, " pages free %lu", &v) == 1)
			z.free = v;
		else if (strstr(line, "protection:"))
			z.protection = topo_protection(line);
		else if (sscanf(line, " %31s %lu", word, &v) != 2)
			continue;
		/* The exact words: "present_early_pages" and friends must not count. */
		else if (!strcmp(word, "present"))
			sums[z.node].present += v;
		else if (!strcmp(word, "count:"))
			sums[z.node].pcp += v; /* a CPU's pageset: free pages on its lists */
		else if (!strcmp(word, "min"))
			z.min = v;
		else if (!strcmp(word, "spanned"))
			z.spanned = v;
		else if (!strcmp(word, "start_pfn:"))
			z.start_pfn = v;
	}
	topo_zone_end(&z, sums);
	return 0;
}

static int topo_node_filter(const struct dirent *d)
{
	unsigned long id;

	return !strncmp(d->d_name, "node", 4) &&
	       rt_parse_ulong(d->d_name + 4, 0, 65535, &id) == 0;
}

static int topo_node_cmp(const struct dirent **a, const struct dirent **b)
{
	unsigned long x = strtoul((*a)->d_name + 4, NULL, 10);
	unsigned long y = strtoul((*b)->d_name + 4, NULL, 10);

	return x < y ? -1 : x > y;
}

/* The ids of the nodes in sysfs, ascending (none for a kernel without NUMA), and their sums
 * from /proc/zoneinfo indexed by id (*sums has the largest id + 1 entries). */
struct topo_nodes {
	unsigned *ids;
	size_t n;
	struct topo_zones *sums;
};

static void topo_nodes_free(struct topo_nodes *t)
{
	free(t->ids);
	free(t->sums);
}

static int topo_nodes_read(const char *root, struct topo_nodes *t)
{
	_cleanup_free_ char *dir = NULL;
	struct dirent **ents = NULL;
	unsigned long max_id = 0;
	int n;

	memset(t, 0, sizeof(*t));
	if (asprintf(&dir, "%s" NODE_DIR, root) < 0)
		return -ENOMEM;
	n = scandir(dir, &ents, topo_node_filter, topo_node_cmp);
	if (n < 0)
		n = 0; /* a kernel without NUMA: no nodes, the host flags the mismatch */
	t->ids = calloc((size_t)n + 1, sizeof(*t->ids));
	for (int i = 0; i < n; i++) {
		if (t->ids)
			t->ids[t->n++] = (unsigned)strtoul(ents[i]->d_name + 4, NULL, 10);
		free(ents[i]);
	}
	free(ents);
	if (t->n)
		max_id = t->ids[t->n - 1]; /* sorted: the last is the largest */
	t->sums = calloc(max_id + 1, sizeof(*t->sums));
	if (!t->ids || !t->sums)
		return -ENOMEM;
	return topo_zones_read(root, t->sums, max_id + 1);
}

static int topo_add_node(const char *root, unsigned id, unsigned long present_pages,
			 json_t *nodes, json_t *dist)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);
	unsigned long long present_mib = (present_pages * page + (1ULL << 19)) >> 20;
	_cleanup_free_ char *cpulist = NULL, *meminfo = topo_meminfo(root, id);
	long long total = topo_meminfo_kb(meminfo, "MemTotal");
	json_t *cpus, *d;

	if (asprintf(&cpulist, NODE_DIR "/node%u/cpulist", id) < 0)
		return -ENOMEM;
	cpus = topo_cpulist(root, cpulist);
	d = topo_distances(root, id);
	if (!cpus || !d || total < 0) {
		json_decref(cpus);
		json_decref(d);
		return -EIO;
	}
	/* managed_mib: MemTotal, rounded to nearest. */
	if (json_array_append_new(nodes, json_pack("{s:I, s:o, s:I, s:I}", "id", (json_int_t)id,
						   "cpus", cpus, "memory_mib",
						   (json_int_t)present_mib, "managed_mib",
						   (json_int_t)((total + 512) / 1024))) < 0) {
		json_decref(d);
		return -ENOMEM;
	}
	return json_array_append_new(dist, d) < 0 ? -ENOMEM : 0;
}

/* The node whose zones span the kernel image's first byte ("Kernel code" in /proc/iomem;
 * KASLR picks it at boot), or -1: unknown (no such line, or its address hidden as 0). */
static long topo_kernel_node(const char *root, const struct topo_nodes *t)
{
	_cleanup_free_ char *path = NULL, *s = NULL;
	unsigned long long start, end, pfn;
	const char *p;

	if (asprintf(&path, "%s/proc/iomem", root) < 0 ||
	    fs_read_file(path, SMALL_FILE_MAX, &s, NULL) < 0 || !(p = strstr(s, " : Kernel code")))
		return -1;
	while (p > s && p[-1] != '\n')
		p--;
	if (sscanf(p, " %llx-%llx", &start, &end) != 2 || !start)
		return -1;
	pfn = start / (unsigned long long)sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < t->n; i++) {
		const struct topo_zones *z = &t->sums[t->ids[i]];

		if (pfn >= z->start_pfn && pfn < z->end_pfn)
			return (long)t->ids[i];
	}
	return -1;
}

int rt_topology_json(const char *root, json_t **out)
{
	_cleanup_json_ json_t *t = NULL;
	struct topo_nodes nodes;
	int r = topo_nodes_read(root, &nodes);
	long kernel_node = r == 0 ? topo_kernel_node(root, &nodes) : -1;

	t = json_pack("{s:s, s:[], s:[], s:o}", CHANNEL_KEY_TYPE, CHANNEL_T_TOPOLOGY, "nodes",
		      "distances", "online_cpus", topo_cpulist(root, "/sys/devices/system/cpu/online"));
	if (r == 0 && !t)
		r = -ENOMEM;
	if (r == 0 && kernel_node >= 0 &&
	    json_object_set_new(t, "kernel_node", json_integer(kernel_node)) < 0)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < nodes.n; i++)
		r = topo_add_node(root, nodes.ids[i], nodes.sums[nodes.ids[i]].present,
				  json_object_get(t, "nodes"), json_object_get(t, "distances"));
	topo_nodes_free(&nodes);
	if (r < 0)
		return r;
	*out = TAKE_PTR(t);
	return 0;
}

int rt_node_memory_json(const char *root, json_t **out)
{
	unsigned long long page_kib = (unsigned long long)sysconf(_SC_PAGESIZE) / 1024;
	_cleanup_json_ json_t *a = json_array();
	struct topo_nodes nodes;
	int r = topo_nodes_read(root, &nodes);

	if (r == 0 && !a)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < nodes.n; i++) {
		unsigned id = nodes.ids[i];
		_cleanup_free_ char *meminfo = topo_meminfo(root, id);
		long long free_kb = topo_meminfo_kb(meminfo, "MemFree");
		long long used_kb = topo_meminfo_kb(meminfo, "MemUsed");

		if (free_kb < 0 || used_kb < 0)
			r = -EIO;
		else if (json_array_append_new(a, json_pack("{s:I, s:I, s:I, s:I, s:I}", "id",
				(json_int_t)id, "free_kib", (json_int_t)free_kb, "used_kib",
				(json_int_t)used_kb, "kept_kib",
				(json_int_t)(nodes.sums[id].kept * page_kib), "pcp_kib",
				(json_int_t)(nodes.sums[id].pcp * page_kib))) < 0)
			r = -ENOMEM;
	}
	topo_nodes_free(&nodes);
	if (r < 0)
		return r;
	*out = TAKE_PTR(a);
	return 0;
}
