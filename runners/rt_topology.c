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

/* MemTotal of the node's meminfo in MiB, rounded to nearest; -1 if unreadable. */
static long topo_managed_mib(const char *root, unsigned node)
{
	_cleanup_free_ char *path = NULL, *s = NULL;
	unsigned long kb;
	const char *p;

	if (asprintf(&path, "%s" NODE_DIR "/node%u/meminfo", root, node) < 0 ||
	    fs_read_file(path, SMALL_FILE_MAX, &s, NULL) < 0 || !(p = strstr(s, "MemTotal:")) ||
	    sscanf(p, "MemTotal: %lu kB", &kb) != 1)
		return -1;
	return (long)((kb + 512) / 1024);
}

/* Sum the "present" pages of each node's zones into pages[node]. */
static int topo_present_pages(const char *root, unsigned long *pages, size_t nr_nodes)
{
	_cleanup_free_ char *path = NULL, *s = NULL;
	char *save = NULL;
	long node = -1;
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
			node = n < nr_nodes ? (long)n : -1;
			continue;
		}
		/* The exact word: "present_early_pages" and friends must not count. */
		if (node >= 0 && sscanf(line, " %31s %lu", word, &v) == 2 &&
		    !strcmp(word, "present"))
			pages[node] += v;
	}
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

static int topo_add_node(const char *root, unsigned id, unsigned long present_pages,
			 json_t *nodes, json_t *dist)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);
	unsigned long long present_mib = (present_pages * page + (1ULL << 19)) >> 20;
	long managed = topo_managed_mib(root, id);
	_cleanup_free_ char *cpulist = NULL;
	json_t *cpus, *d;

	if (asprintf(&cpulist, NODE_DIR "/node%u/cpulist", id) < 0)
		return -ENOMEM;
	cpus = topo_cpulist(root, cpulist);
	d = topo_distances(root, id);
	if (!cpus || !d || managed < 0) {
		json_decref(cpus);
		json_decref(d);
		return -EIO;
	}
	if (json_array_append_new(nodes, json_pack("{s:I, s:o, s:I, s:I}", "id", (json_int_t)id,
						   "cpus", cpus, "memory_mib",
						   (json_int_t)present_mib, "managed_mib",
						   (json_int_t)managed)) < 0) {
		json_decref(d);
		return -ENOMEM;
	}
	return json_array_append_new(dist, d) < 0 ? -ENOMEM : 0;
}

int rt_topology_json(const char *root, json_t **out)
{
	_cleanup_free_ char *dir = NULL;
	_cleanup_free_ unsigned long *present = NULL;
	_cleanup_json_ json_t *t = NULL;
	struct dirent **ents = NULL;
	unsigned long max_id = 0;
	int n, r = 0;

	if (asprintf(&dir, "%s" NODE_DIR, root) < 0)
		return -ENOMEM;
	n = scandir(dir, &ents, topo_node_filter, topo_node_cmp);
	if (n < 0)
		n = 0; /* a kernel without NUMA: report no nodes, the host flags the mismatch */
	if (n > 0)
		max_id = strtoul(ents[n - 1]->d_name + 4, NULL, 10); /* sorted: last is largest */
	present = calloc(max_id + 1, sizeof(*present));
	t = json_pack("{s:s, s:[], s:[], s:o}", CHANNEL_KEY_TYPE, CHANNEL_T_TOPOLOGY, "nodes",
		      "distances", "online_cpus", topo_cpulist(root, "/sys/devices/system/cpu/online"));
	if (!present || !t)
		r = -ENOMEM;
	if (r == 0)
		r = topo_present_pages(root, present, max_id + 1);
	for (int i = 0; i < n; i++) {
		unsigned id = (unsigned)strtoul(ents[i]->d_name + 4, NULL, 10);

		if (r == 0)
			r = topo_add_node(root, id, present[id], json_object_get(t, "nodes"),
					  json_object_get(t, "distances"));
		free(ents[i]);
	}
	free(ents);
	if (r < 0)
		return r;
	*out = t;
	t = NULL;
	return 0;
}
