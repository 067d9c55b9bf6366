#include "core/topology.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonpath.h"

#define TOPO_MAX_NODE_MEMORY_MIB 16777216ULL /* 16 TiB per node */
#define TOPO_LOCAL_DISTANCE 10
#define TOPO_REMOTE_DISTANCE 20
#define TOPO_MAX_DISTANCE 255

static const char *const topology_keys[] = {
	"name", "sockets", "dies", "cores", "threads", "vcpus", "node_memory_mib", "nodes",
	"distances", NULL,
};
static const char *const node_keys[] = {"id", "cpus", "memory_mib", NULL};

/* 1 when v is a JSON integer in [min, max]. */
static int int_in_range(const json_t *v, long long min, long long max, unsigned long long *out)
{
	json_int_t x;

	if (!json_is_integer(v))
		return 0;
	x = json_integer_value(v);
	if (x < min || x > max)
		return 0;
	*out = (unsigned long long)x;
	return 1;
}

static int name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 63)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

int topology_cpulist(const unsigned *cpus, unsigned n, char *buf, unsigned long len)
{
	size_t used = 0;

	if (!buf || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	for (unsigned i = 0; i < n;) {
		unsigned j = i;
		int w;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j == i)
			w = snprintf(buf + used, len - used, "%s%u", used ? "," : "", cpus[i]);
		else
			w = snprintf(buf + used, len - used, "%s%u-%u", used ? "," : "", cpus[i],
				     cpus[j]);
		if (w < 0)
			return -EINVAL;
		if ((size_t)w >= len - used)
			return -ENOSPC; /* buf holds a truncated, NUL-terminated prefix */
		used += (size_t)w;
		i = j + 1;
	}
	return 0;
}

/* Collects one node's CPUs while checking them against the other nodes. */
struct cpu_collect {
	const struct topology *t;
	int *owner; /* per vCPU: node index or -1 */
	unsigned node;
	unsigned *cpus; /* room for t->vcpus */
	unsigned n;
	const char *path; /* ".cpus" path, for errors */
	struct lab_error *err;
};

static int collect_cpu(struct cpu_collect *c, unsigned cpu)
{
	if (c->owner[cpu] == (int)c->node)
		return error_set(c->err, c->path, "CPU %u is listed twice", cpu);
	if (c->owner[cpu] >= 0)
		return error_set(c->err, c->path, "CPU %u is also in node %d", cpu, c->owner[cpu]);
	c->owner[cpu] = (int)c->node;
	c->cpus[c->n++] = cpu;
	return 0;
}

/* Reads a decimal number at *s (no sign), saturating far above any CPU number. */
static int cpulist_number(const char **s, unsigned long *out)
{
	const char *p = *s;
	unsigned long v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if (v <= 10UL * TOPO_MAX_VCPUS)
			v = v * 10 + (unsigned long)(*p - '0');
	*out = v;
	*s = p;
	return 0;
}

/* Up to 64 bytes of s for quoting in a message, control characters shown as '?'. */
static void quote_excerpt(char out[65], const char *s)
{
	size_t i;

	for (i = 0; i < 64 && s[i]; i++)
		out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	out[i] = '\0';
}

static int collect_cpulist(struct cpu_collect *c, const char *s)
{
	const char *p = s;
	char q[65];

	quote_excerpt(q, s);
	if (!*s)
		return error_set(c->err, c->path, "must list at least one CPU");
	for (;;) {
		const char *first = p;
		unsigned long a, b;

		if (cpulist_number(&p, &a) < 0)
			return error_set(c->err, c->path,
					 "invalid CPU list \"%s\": expected a number at offset %zu",
					 q, (size_t)(p - s));
		/* Quote the number as written: a saturated value would mislead. */
		if (a >= c->t->vcpus)
			return error_set(c->err, c->path, "CPU %.*s is out of range 0..%u",
					 (int)(p - first < 32 ? p - first : 32), first,
					 c->t->vcpus - 1);
		b = a;
		if (*p == '-') {
			p++;
			if (cpulist_number(&p, &b) < 0)
				return error_set(
					c->err, c->path,
					"invalid CPU list \"%s\": expected a number at offset %zu", q,
					(size_t)(p - s));
			if (b < a)
				return error_set(c->err, c->path,
						 "invalid CPU list \"%s\": range %lu-%lu is backwards",
						 q, a, b);
			if (b >= c->t->vcpus) /* the first CPU of the range that does not exist */
				return error_set(c->err, c->path, "CPU %u is out of range 0..%u",
						 c->t->vcpus, c->t->vcpus - 1);
		}
		for (unsigned long cpu = a; cpu <= b; cpu++) {
			int r = collect_cpu(c, (unsigned)cpu);

			if (r < 0)
				return r;
		}
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return error_set(c->err, c->path,
					 "invalid CPU list \"%s\": unexpected '%c' at offset %zu", q,
					 (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f ? *p : '?',
					 (size_t)(p - s));
		p++;
	}
}

static int collect_cpuarray(struct cpu_collect *c, const json_t *arr)
{
	size_t i;
	json_t *v;

	if (json_array_size(arr) == 0)
		return error_set(c->err, c->path, "must list at least one CPU");
	json_array_foreach(arr, i, v) {
		unsigned long long cpu;
		char p[JSONPATH_LEN];
		int r;

		if (!int_in_range(v, 0, (long long)c->t->vcpus - 1, &cpu)) {
			jsonpath_index(p, sizeof(p), c->path, i);
			return error_set(c->err, p, "must be a CPU number 0..%u", c->t->vcpus - 1);
		}
		r = collect_cpu(c, (unsigned)cpu);
		if (r < 0)
			return r;
	}
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

static int parse_memory(const json_t *v, const char *path, unsigned long *out,
			struct lab_error *err)
{
	unsigned long long m;

	if (!v)
		return error_set(err, path, "required");
	if (!int_in_range(v, 1, (long long)TOPO_MAX_NODE_MEMORY_MIB, &m)) {
		if (json_is_integer(v) && json_integer_value(v) > 0)
			return error_set(err, path, "must be at most %llu (16 TiB)",
					 TOPO_MAX_NODE_MEMORY_MIB);
		return error_set(err, path, "must be a positive integer");
	}
	*out = (unsigned long)m;
	return 0;
}

static int parse_node(const json_t *jn, const char *path, unsigned idx, struct topology *t,
		      int *owner, struct lab_error *err)
{
	struct topo_node *node = &t->nodes[idx];
	char p[JSONPATH_LEN];
	const json_t *v;
	int r;

	r = jsonpath_check_object(jn, path, node_keys, err);
	if (r < 0)
		return r;
	node->id = idx;
	v = json_object_get(jn, "id");
	if (v && !(json_is_integer(v) && json_integer_value(v) == (json_int_t)idx)) {
		jsonpath_key(p, sizeof(p), path, "id");
		return error_set(err, p, "must be %u (node ids are 0..n-1 in order)", idx);
	}

	jsonpath_key(p, sizeof(p), path, "cpus");
	v = json_object_get(jn, "cpus");
	if (!v)
		return error_set(err, p, "required");
	node->cpus = calloc(t->vcpus, sizeof(*node->cpus));
	if (!node->cpus)
		return -ENOMEM;
	struct cpu_collect c = {
		.t = t, .owner = owner, .node = idx, .cpus = node->cpus, .path = p, .err = err,
	};
	if (json_is_string(v))
		r = collect_cpulist(&c, json_string_value(v));
	else if (json_is_array(v))
		r = collect_cpuarray(&c, v);
	else
		r = error_set(err, p,
			      "must be a CPU list string like \"0-3,8\" or an array of CPU numbers");
	node->nr_cpus = c.n;
	if (r < 0)
		return r;
	qsort(node->cpus, node->nr_cpus, sizeof(*node->cpus), cmp_unsigned);

	jsonpath_key(p, sizeof(p), path, "memory_mib");
	return parse_memory(json_object_get(jn, "memory_mib"), p, &node->memory_mib, err);
}

/* One node per socket, each with that socket's CPUs in QEMU's CPU index order. */
static int default_nodes(const json_t *j, const char *path, struct topology *t, int *owner,
			 struct lab_error *err)
{
	unsigned per_socket = t->dies * t->cores * t->threads;
	unsigned long mem;
	char p[JSONPATH_LEN];
	int r;

	jsonpath_key(p, sizeof(p), path, "node_memory_mib");
	if (!json_object_get(j, "node_memory_mib"))
		return error_set(err, p, "required when nodes is absent");
	r = parse_memory(json_object_get(j, "node_memory_mib"), p, &mem, err);
	if (r < 0)
		return r;
	if (t->sockets > TOPO_MAX_NODES) {
		jsonpath_key(p, sizeof(p), path, "nodes");
		return error_set(err, p, "required when there are more than %d sockets",
				 TOPO_MAX_NODES);
	}
	t->nodes = calloc(t->sockets, sizeof(*t->nodes));
	if (!t->nodes)
		return -ENOMEM;
	t->nr_nodes = t->sockets;
	for (unsigned s = 0; s < t->sockets; s++) {
		struct topo_node *node = &t->nodes[s];

		node->id = s;
		node->memory_mib = mem;
		node->cpus = calloc(per_socket, sizeof(*node->cpus));
		if (!node->cpus)
			return -ENOMEM;
		node->nr_cpus = per_socket;
		for (unsigned i = 0; i < per_socket; i++) {
			node->cpus[i] = s * per_socket + i;
			owner[s * per_socket + i] = (int)s;
		}
	}
	return 0;
}

static int parse_distances(const json_t *jd, const char *path, struct topology *t,
			   struct lab_error *err)
{
	unsigned n = t->nr_nodes;
	char p[JSONPATH_LEN];

	t->distances = calloc((size_t)n * n, sizeof(*t->distances));
	if (!t->distances)
		return -ENOMEM;
	if (!jd) {
		for (unsigned a = 0; a < n; a++)
			for (unsigned b = 0; b < n; b++)
				t->distances[a * n + b] =
					a == b ? TOPO_LOCAL_DISTANCE : TOPO_REMOTE_DISTANCE;
		return 0;
	}
	jsonpath_key(p, sizeof(p), path, "distances");
	int shape_ok = json_is_array(jd) && json_array_size(jd) == n;

	for (unsigned a = 0; shape_ok && a < n; a++) {
		const json_t *row = json_array_get(jd, a);

		shape_ok = json_is_array(row) && json_array_size(row) == n;
	}
	if (!shape_ok)
		return error_set(err, p, "must be a %ux%u matrix", n, n);
	for (unsigned a = 0; a < n; a++) {
		char row_path[JSONPATH_LEN];

		jsonpath_index(row_path, sizeof(row_path), p, a);
		for (unsigned b = 0; b < n; b++) {
			const json_t *v = json_array_get(json_array_get(jd, a), b);
			unsigned long long d;
			char q[JSONPATH_LEN];

			jsonpath_index(q, sizeof(q), row_path, b);
			if (a == b) {
				if (!int_in_range(v, TOPO_LOCAL_DISTANCE, TOPO_LOCAL_DISTANCE, &d))
					return error_set(err, q, "must be %d (local distance)",
							 TOPO_LOCAL_DISTANCE);
			} else if (!int_in_range(v, TOPO_LOCAL_DISTANCE + 1, TOPO_MAX_DISTANCE, &d)) {
				return error_set(err, q, "must be an integer %d..%d",
						 TOPO_LOCAL_DISTANCE + 1, TOPO_MAX_DISTANCE);
			}
			t->distances[a * n + b] = (unsigned)d;
		}
	}
	return 0;
}

static int parse_dim(const json_t *j, const char *path, const char *key, int required,
		     unsigned *out, struct lab_error *err)
{
	const json_t *v = json_object_get(j, key);
	unsigned long long x;
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), path, key);
	if (!v) {
		if (required)
			return error_set(err, p, "required");
		*out = 1;
		return 0;
	}
	if (!int_in_range(v, 1, TOPO_MAX_VCPUS, &x))
		return error_set(err, p, "must be an integer 1..%d", TOPO_MAX_VCPUS);
	*out = (unsigned)x;
	return 0;
}

/* "nodes": each node parsed, and every vCPU in one of them: QEMU would otherwise put it in
 * node 0 on its own and the guest would not see the layout that was asked for. */
static int parse_nodes(const json_t *j, const json_t *v, const char *path, struct topology *t,
		       int *owner, struct lab_error *err)
{
	_cleanup_free_ unsigned *missing = NULL;
	size_t n = json_array_size(v);
	unsigned nr_missing = 0;
	char p[JSONPATH_LEN];
	int r;

	jsonpath_key(p, sizeof(p), path, "nodes");
	if (json_object_get(j, "node_memory_mib")) {
		jsonpath_key(p, sizeof(p), path, "node_memory_mib");
		return error_set(err, p, "only allowed when nodes is absent");
	}
	if (!json_is_array(v) || n < 1 || n > TOPO_MAX_NODES)
		return error_set(err, p, "must be an array of 1..%d nodes", TOPO_MAX_NODES);
	t->nodes = calloc(n, sizeof(*t->nodes));
	if (!t->nodes)
		return -ENOMEM;
	t->nr_nodes = (unsigned)n;
	for (unsigned i = 0; i < t->nr_nodes; i++) {
		char q[JSONPATH_LEN];

		jsonpath_index(q, sizeof(q), p, i);
		r = parse_node(json_array_get(v, i), q, i, t, owner, err);
		if (r < 0)
			return r;
	}
	if (!(missing = malloc(t->vcpus * sizeof(*missing))))
		return -ENOMEM;
	for (unsigned c = 0; c < t->vcpus; c++)
		if (owner[c] < 0)
			missing[nr_missing++] = c;
	if (nr_missing) {
		char list[400];

		if (topology_cpulist(missing, nr_missing, list, sizeof(list)) == -ENOSPC)
			snprintf(list + sizeof(list) - 4, 4, "...");
		return error_set(err, p, "%s %s %s in no node", nr_missing == 1 ? "CPU" : "CPUs",
				 list, nr_missing == 1 ? "is" : "are");
	}
	return 0;
}

static int topology_parse(const json_t *j, const char *path, struct topology *t,
			  struct lab_error *err)
{
	_cleanup_free_ int *owner = NULL;
	unsigned long long product;
	const json_t *v;
	char p[JSONPATH_LEN];
	int r;

	r = jsonpath_check_object(j, path, topology_keys, err);
	if (r < 0)
		return r;

	v = json_object_get(j, "name");
	if (v) {
		jsonpath_key(p, sizeof(p), path, "name");
		if (!json_is_string(v) || !name_valid(json_string_value(v)))
			return error_set(err, p, "must match [A-Za-z0-9._-]{1,63}");
		snprintf(t->name, sizeof(t->name), "%s", json_string_value(v));
	}

	if ((r = parse_dim(j, path, "sockets", 1, &t->sockets, err)) < 0 ||
	    (r = parse_dim(j, path, "dies", 0, &t->dies, err)) < 0 ||
	    (r = parse_dim(j, path, "cores", 1, &t->cores, err)) < 0 ||
	    (r = parse_dim(j, path, "threads", 0, &t->threads, err)) < 0)
		return r;
	product = (unsigned long long)t->sockets * t->dies * t->cores * t->threads;
	if (product > TOPO_MAX_VCPUS)
		return error_set(err, path, "sockets*dies*cores*threads = %llu vCPUs, must be 1..%d",
				 product, TOPO_MAX_VCPUS);
	t->vcpus = (unsigned)product;
	v = json_object_get(j, "vcpus");
	if (v && !(json_is_integer(v) && json_integer_value(v) == (json_int_t)t->vcpus)) {
		jsonpath_key(p, sizeof(p), path, "vcpus");
		return error_set(err, p, "must equal sockets*dies*cores*threads = %u", t->vcpus);
	}

	owner = malloc(t->vcpus * sizeof(*owner));
	if (!owner)
		return -ENOMEM;
	for (unsigned i = 0; i < t->vcpus; i++)
		owner[i] = -1;

	v = json_object_get(j, "nodes");
	r = v ? parse_nodes(j, v, path, t, owner, err) : default_nodes(j, path, t, owner, err);
	if (r < 0)
		return r;
	return parse_distances(json_object_get(j, "distances"), path, t, err);
}

int topology_from_json(const json_t *j, const char *path, struct topology *t,
		       struct lab_error *err)
{
	struct topology tmp;
	int r;

	memset(&tmp, 0, sizeof(tmp));
	memset(t, 0, sizeof(*t));
	r = topology_parse(j, path ? path : "", &tmp, err);
	if (r < 0) {
		topology_free(&tmp);
		return r;
	}
	*t = tmp;
	return 0;
}

void topology_free(struct topology *t)
{
	if (!t)
		return;
	if (t->nodes)
		for (unsigned i = 0; i < t->nr_nodes; i++)
			free(t->nodes[i].cpus);
	free(t->nodes);
	free(t->distances);
	memset(t, 0, sizeof(*t));
}

unsigned long topology_memory_mib(const struct topology *t)
{
	unsigned long sum = 0;

	for (unsigned i = 0; i < t->nr_nodes; i++)
		sum += t->nodes[i].memory_mib;
	return sum;
}

json_t *topology_to_report_json(const struct topology *t, int with_cpu_topology)
{
	_cleanup_json_ json_t *o = json_pack("{s:[],s:[]}", "nodes", "distances");
	json_t *nodes, *dist;

	if (!o)
		return NULL;
	nodes = json_object_get(o, "nodes");
	dist = json_object_get(o, "distances");
	for (unsigned i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		json_t *cpus = json_array(), *row = json_array();
		int fail = !cpus || !row;

		for (unsigned c = 0; !fail && c < n->nr_cpus; c++)
			fail = json_array_append_new(cpus, json_integer(n->cpus[c])) < 0;
		for (unsigned b = 0; !fail && t->distances && b < t->nr_nodes; b++)
			fail = json_array_append_new(row, json_integer(
								  t->distances[i * t->nr_nodes + b])) < 0;
		if (fail) {
			json_decref(cpus);
			json_decref(row);
			return NULL;
		}
		/* "o" steals cpus, also on failure; *_append_new releases its value on failure. */
		if (json_array_append_new(nodes, json_pack("{s:I,s:o,s:I}", "id", (json_int_t)n->id,
							   "cpus", cpus, "memory_mib",
							   (json_int_t)n->memory_mib)) < 0) {
			json_decref(row);
			return NULL;
		}
		if (json_array_append_new(dist, row) < 0)
			return NULL;
	}
	if (with_cpu_topology &&
	    json_object_update_new(o, json_pack("{s:I,s:I,s:I,s:I,s:I}", "sockets",
						(json_int_t)t->sockets, "dies", (json_int_t)t->dies,
						"cores", (json_int_t)t->cores, "threads",
						(json_int_t)t->threads, "vcpus",
						(json_int_t)t->vcpus)) < 0)
		return NULL;
	return TAKE_PTR(o);
}
