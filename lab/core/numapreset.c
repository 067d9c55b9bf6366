#include "core/numapreset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonpath.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/text.h"

static const char *const preset_keys[] = {
	"name", "machine", "nodes", "ipns", "paths", "matrix", NULL,
};
static const char *const ipns_keys[] = {"value", "estimate", "source", NULL};
static const char *const path_keys[] = {"c2c", "mem", NULL};
static const char *const latency_keys[] = {"ns", "estimate", "source", NULL};

static int chars_valid(const char *s, size_t max, const char *allowed)
{
	size_t n = strlen(s);

	return n >= 1 && n <= max && strspn(s, allowed) == n;
}

static int parse_name(const json_t *j, const char *path, struct numa_preset *p,
		      struct lab_error *err)
{
	const json_t *v = json_object_get(j, "name");
	char q[JSONPATH_LEN];

	jsonpath_key(q, sizeof(q), path, "name");
	if (!v)
		return error_set(err, q, "required");
	if (!json_is_string(v) ||
	    !chars_valid(json_string_value(v), 63,
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"))
		return error_set(err, q, "must match [A-Za-z0-9._-]{1,63}");
	snprintf(p->name, sizeof(p->name), "%s", json_string_value(v));
	return 0;
}

/* A required non-empty string at path.key, copied into *out. */
static int parse_text(const json_t *j, const char *path, const char *key, char **out,
		      struct lab_error *err)
{
	const json_t *v = json_object_get(j, key);
	char q[JSONPATH_LEN];

	jsonpath_key(q, sizeof(q), path, key);
	if (!v)
		return error_set(err, q, "required");
	if (!json_is_string(v) || !json_string_length(v))
		return error_set(err, q, "must be a non-empty string");
	*out = strdup(json_string_value(v));
	return *out ? 0 : -ENOMEM;
}

static int parse_nodes(const json_t *j, const char *path, struct numa_preset *p,
		       struct lab_error *err)
{
	const json_t *v = json_object_get(j, "nodes");
	char q[JSONPATH_LEN];

	jsonpath_key(q, sizeof(q), path, "nodes");
	if (!v)
		return error_set(err, q, "required");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > NUMACOST_MAX_NODES)
		return error_set(err, q, "must be an integer 1..%d", NUMACOST_MAX_NODES);
	p->nr_nodes = (unsigned)json_integer_value(v);
	return 0;
}

/* What a figure is, for its error messages. */
struct figure_kind {
	const char *const *keys; /* its object's keys, the first that of its number */
	double max;
	const char *what;
};

static const struct figure_kind ipns_kind = {ipns_keys, NUMACOST_MAX_IPNS,
					     "instruction-times per ns"};
static const struct figure_kind latency_kind = {latency_keys, NUMACOST_MAX_NS, "a latency in ns"};

/* {NUMBER, "estimate", "source"} at path.key into *f. */
static int parse_figure(const json_t *j, const char *path, const char *key,
			const struct figure_kind *k, struct numa_figure *f, struct lab_error *err)
{
	const json_t *o = json_object_get(j, key), *v;
	char q[JSONPATH_LEN], vq[JSONPATH_LEN];
	int r;

	jsonpath_key(q, sizeof(q), path, key);
	if (!o)
		return error_set(err, q, "required");
	if ((r = jsonpath_check_object(o, q, k->keys, err)) < 0)
		return r;
	jsonpath_key(vq, sizeof(vq), q, k->keys[0]);
	v = json_object_get(o, k->keys[0]);
	if (!v)
		return error_set(err, vq, "required");
	if (!json_is_number(v) || !(json_number_value(v) >= 0 && json_number_value(v) <= k->max))
		return error_set(err, vq, "must be %s, 0..%g", k->what, k->max);
	f->value = json_number_value(v);
	jsonpath_key(vq, sizeof(vq), q, "estimate");
	v = json_object_get(o, "estimate");
	if (!v)
		return error_set(err, vq, "required");
	if (!json_is_boolean(v))
		return error_set(err, vq, "must be true or false");
	f->estimate = json_is_true(v);
	return parse_text(o, q, "source", &f->source, err);
}

static int parse_path(const char *name, const json_t *v, const char *path, struct numa_path *pp,
		      struct lab_error *err)
{
	int r;

	if (!chars_valid(name, NUMAPRESET_PATH_NAME - 1, "abcdefghijklmnopqrstuvwxyz0123456789_"))
		return error_set(err, path, "a path's name must match [a-z0-9_]{1,%d}",
				 NUMAPRESET_PATH_NAME - 1);
	snprintf(pp->name, sizeof(pp->name), "%s", name);
	if ((r = jsonpath_check_object(v, path, path_keys, err)) < 0 ||
	    (r = parse_figure(v, path, "c2c", &latency_kind, &pp->c2c, err)) < 0)
		return r;
	return parse_figure(v, path, "mem", &latency_kind, &pp->mem, err);
}

static int parse_paths(const json_t *j, const char *path, struct numa_preset *p,
		       struct lab_error *err)
{
	const json_t *paths = json_object_get(j, "paths");
	char q[JSONPATH_LEN];
	const char *name;
	json_t *v;

	jsonpath_key(q, sizeof(q), path, "paths");
	if (!paths)
		return error_set(err, q, "required");
	if (!json_is_object(paths) || json_object_size(paths) < 1 ||
	    json_object_size(paths) > NUMAPRESET_MAX_PATHS)
		return error_set(err, q, "must be an object of 1..%d paths", NUMAPRESET_MAX_PATHS);
	p->paths = calloc(json_object_size(paths), sizeof(*p->paths));
	if (!p->paths)
		return -ENOMEM;
	json_object_foreach((json_t *)paths, name, v) {
		char pq[JSONPATH_LEN];
		int r;

		jsonpath_key(pq, sizeof(pq), q, name);
		r = parse_path(name, v, pq, &p->paths[p->nr_paths++], err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One cell of the matrix: a path's name. */
static int parse_cell(const json_t *v, const char *path, const struct numa_preset *p,
		      unsigned *out, struct lab_error *err)
{
	const char *names[NUMAPRESET_MAX_PATHS], *near;

	if (!json_is_string(v))
		return error_set(err, path, "must be the name of one of paths");
	for (unsigned i = 0; i < p->nr_paths; i++) {
		names[i] = p->paths[i].name;
		if (!strcmp(names[i], json_string_value(v))) {
			*out = i;
			return 0;
		}
	}
	near = text_nearest(json_string_value(v), names, p->nr_paths);
	if (near)
		return error_set(err, path, "unknown path \"%.64s\" (did you mean \"%s\"?)",
				 json_string_value(v), near);
	return error_set(err, path, "unknown path \"%.64s\"", json_string_value(v));
}

static int matrix_shape_ok(const json_t *m, unsigned n)
{
	if (!json_is_array(m) || json_array_size(m) != n)
		return 0;
	for (unsigned a = 0; a < n; a++) {
		const json_t *row = json_array_get(m, a);

		if (!json_is_array(row) || json_array_size(row) != n)
			return 0;
	}
	return 1;
}

static int parse_matrix(const json_t *j, const char *path, struct numa_preset *p,
			struct lab_error *err)
{
	const json_t *m = json_object_get(j, "matrix");
	unsigned n = p->nr_nodes;
	char q[JSONPATH_LEN];

	jsonpath_key(q, sizeof(q), path, "matrix");
	if (!m)
		return error_set(err, q, "required");
	if (!matrix_shape_ok(m, n))
		return error_set(err, q, "must be a %ux%u matrix of path names (nodes is %u)", n, n,
				 n);
	p->matrix = calloc((size_t)n * n, sizeof(*p->matrix));
	if (!p->matrix)
		return -ENOMEM;
	for (unsigned a = 0; a < n; a++) {
		char rq[JSONPATH_LEN];

		jsonpath_index(rq, sizeof(rq), q, a);
		for (unsigned b = 0; b < n; b++) {
			char cq[JSONPATH_LEN];
			int r;

			jsonpath_index(cq, sizeof(cq), rq, b);
			r = parse_cell(json_array_get(json_array_get(m, a), b), cq, p,
				       &p->matrix[a * n + b], err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* A path no cell names is most likely a typo in a cell that happened to name another. */
static int check_used(const char *path, const struct numa_preset *p, struct lab_error *err)
{
	size_t n2 = (size_t)p->nr_nodes * p->nr_nodes;

	for (unsigned k = 0; k < p->nr_paths; k++) {
		char q[JSONPATH_LEN], pq[JSONPATH_LEN];
		size_t i = 0;

		while (i < n2 && p->matrix[i] != k)
			i++;
		if (i < n2)
			continue;
		jsonpath_key(q, sizeof(q), path, "paths");
		jsonpath_key(pq, sizeof(pq), q, p->paths[k].name);
		return error_set(err, pq, "no cell of matrix names it");
	}
	return 0;
}

static int preset_parse(const json_t *j, const char *path, struct numa_preset *p,
			struct lab_error *err)
{
	int r;

	if ((r = jsonpath_check_object(j, path, preset_keys, err)) < 0 ||
	    (r = parse_name(j, path, p, err)) < 0 ||
	    (r = parse_text(j, path, "machine", &p->machine, err)) < 0 ||
	    (r = parse_nodes(j, path, p, err)) < 0 ||
	    (r = parse_figure(j, path, "ipns", &ipns_kind, &p->ipns, err)) < 0 ||
	    (r = parse_paths(j, path, p, err)) < 0 || (r = parse_matrix(j, path, p, err)) < 0)
		return r;
	return check_used(path, p, err);
}

int numapreset_from_json(const json_t *j, const char *path, struct numa_preset *p,
			 struct lab_error *err)
{
	struct numa_preset tmp;
	int r;

	memset(&tmp, 0, sizeof(tmp));
	memset(p, 0, sizeof(*p));
	r = preset_parse(j, path ? path : "", &tmp, err);
	if (r < 0) {
		numapreset_free(&tmp);
		return r;
	}
	*p = tmp;
	return 0;
}

void numapreset_free(struct numa_preset *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->nr_paths; i++) {
		free(p->paths[i].c2c.source);
		free(p->paths[i].mem.source);
	}
	free(p->paths);
	free(p->machine);
	free(p->ipns.source);
	free(p->matrix);
	memset(p, 0, sizeof(*p));
}

int numapreset_is_estimate(const struct numa_preset *p)
{
	size_t n2 = (size_t)p->nr_nodes * p->nr_nodes;

	if (p->ipns.estimate)
		return 1;
	for (size_t i = 0; i < n2; i++)
		if (p->paths[p->matrix[i]].c2c.estimate || p->paths[p->matrix[i]].mem.estimate)
			return 1;
	return 0;
}

/* The figure of path k that c2c (mem = 0) or DRAM (mem = 1) takes. */
static const struct numa_figure *path_figure(const struct numa_preset *p, unsigned k, int mem)
{
	return mem ? &p->paths[k].mem : &p->paths[k].c2c;
}

void numapreset_matrix_ns(const struct numa_preset *p, int mem, double *out)
{
	for (size_t i = 0; i < (size_t)p->nr_nodes * p->nr_nodes; i++)
		out[i] = path_figure(p, p->matrix[i], mem)->value;
}

static void figure_text(struct strbuf *sb, const char *what, const struct numa_figure *f)
{
	strbuf_appendf(sb, " %s %.10g %s", what, f->value, f->estimate ? "estimate" : "measured");
}

static int cmp_path_name(const void *a, const void *b)
{
	return strcmp((*(const struct numa_path *const *)a)->name,
		      (*(const struct numa_path *const *)b)->name);
}

char *numapreset_canonical(const struct numa_preset *p)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const struct numa_path *sorted[NUMAPRESET_MAX_PATHS];
	unsigned n = p->nr_nodes;
	char *out = NULL;

	strbuf_appendf(&sb, "%s\nname %s\nnodes %u\nipns %.10g %s\n", NUMAPRESET_SCHEMA, p->name,
		       n, p->ipns.value, p->ipns.estimate ? "estimate" : "measured");
	/* By name: the file's order of its paths decides nothing. */
	for (unsigned i = 0; i < p->nr_paths; i++)
		sorted[i] = &p->paths[i];
	qsort(sorted, p->nr_paths, sizeof(sorted[0]), cmp_path_name);
	for (unsigned i = 0; i < p->nr_paths; i++) {
		strbuf_appendf(&sb, "path %s", sorted[i]->name);
		figure_text(&sb, "c2c", &sorted[i]->c2c);
		figure_text(&sb, "mem", &sorted[i]->mem);
		strbuf_append(&sb, "\n");
	}
	for (unsigned a = 0; a < n; a++) {
		strbuf_appendf(&sb, "row %u", a);
		for (unsigned b = 0; b < n; b++)
			strbuf_appendf(&sb, " %s", p->paths[p->matrix[a * n + b]].name);
		strbuf_append(&sb, "\n");
	}
	return strbuf_take(&sb, &out) < 0 ? NULL : out;
}

int numapreset_sha256(const struct numa_preset *p, char out[65])
{
	_cleanup_free_ char *text = numapreset_canonical(p);

	if (!text)
		return -ENOMEM;
	return sha256_hex(text, strlen(text), out);
}

static const char *topo_name(const struct topology *t)
{
	return t->name[0] ? t->name : "(inline)";
}

/* The first pair of nodes seen at one distance, and its latency: the pairs at that distance
 * must all have it. */
struct dist_class {
	unsigned distance, a, b;
	double ns;
};

/* path.matrix[a][b] */
static void cell_path(char *buf, size_t len, const char *path, unsigned a, unsigned b)
{
	char k[JSONPATH_LEN], row[JSONPATH_LEN];

	jsonpath_key(k, sizeof(k), path, "matrix");
	jsonpath_index(row, sizeof(row), k, a);
	jsonpath_index(buf, len, row, b);
}

/* Sorts t's node pairs into classes by distance; -EINVAL when one pair's latency differs from
 * its class's. */
static int shape_classes(const struct numa_preset *p, const char *path, int mem,
			 const struct topology *t, struct dist_class *cls, unsigned *nr,
			 struct lab_error *err)
{
	unsigned n = p->nr_nodes, nc = 0;

	for (unsigned a = 0; a < n; a++)
		for (unsigned b = 0; b < n; b++) {
			unsigned d = t->distances[a * n + b], k = 0;
			double ns = path_figure(p, p->matrix[a * n + b], mem)->value;
			char q[JSONPATH_LEN];

			while (k < nc && cls[k].distance != d)
				k++;
			if (k == nc) {
				cls[nc++] = (struct dist_class){.distance = d, .a = a, .b = b, .ns = ns};
				continue;
			}
			if (cls[k].ns == ns)
				continue;
			cell_path(q, sizeof(q), path, a, b);
			return error_set(err, q,
					 "does not fit topology %s: its distances[%u][%u] and "
					 "[%u][%u] are both %u, but preset %s's %s latency is %g ns "
					 "here and %g ns there",
					 topo_name(t), a, b, cls[k].a, cls[k].b, d, p->name,
					 mem ? "mem" : "c2c", ns, cls[k].ns);
		}
	*nr = nc;
	return 0;
}

static int check_shape(const struct numa_preset *p, const char *path, int mem,
		       const struct topology *t, struct lab_error *err)
{
	size_t n2 = (size_t)p->nr_nodes * p->nr_nodes;
	_cleanup_free_ struct dist_class *cls = calloc(n2, sizeof(*cls));
	unsigned nc = 0;
	int r;

	if (!cls)
		return -ENOMEM;
	r = shape_classes(p, path, mem, t, cls, &nc, err);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < nc; i++)
		for (unsigned k = 0; k < nc; k++) {
			const struct dist_class *near = &cls[i], *far = &cls[k];
			char q[JSONPATH_LEN];

			if (!(far->distance > near->distance && far->ns < near->ns))
				continue;
			cell_path(q, sizeof(q), path, far->a, far->b);
			return error_set(err, q,
					 "does not fit topology %s: its distances[%u][%u] = %u is "
					 "more than [%u][%u] = %u, but preset %s's %s latency is "
					 "%g ns here, less than %g ns there",
					 topo_name(t), far->a, far->b, far->distance, near->a,
					 near->b, near->distance, p->name, mem ? "mem" : "c2c",
					 far->ns, near->ns);
		}
	return 0;
}

int numapreset_check_topology(const struct numa_preset *p, const char *path,
			      const struct topology *t, struct lab_error *err)
{
	char q[JSONPATH_LEN];
	int r;

	if (!path)
		path = "";
	if (p->nr_nodes != t->nr_nodes) {
		jsonpath_key(q, sizeof(q), path, "nodes");
		return error_set(err, q, "preset %s is for %u nodes, topology %s has %u", p->name,
				 p->nr_nodes, topo_name(t), t->nr_nodes);
	}
	r = check_shape(p, path, 0, t, err);
	if (r < 0)
		return r;
	return check_shape(p, path, 1, t, err);
}

/* t's vCPUs' nodes in QEMU's order (vcpu_node: t->vcpus entries) and each node's bytes
 * (node_mem: t->nr_nodes), as the model and the plugin's configuration take them. */
static void topology_layout(const struct topology *t, unsigned *vcpu_node, uint64_t *node_mem)
{
	for (unsigned i = 0; i < t->nr_nodes; i++) {
		node_mem[i] = (uint64_t)t->nodes[i].memory_mib << 20;
		for (unsigned c = 0; c < t->nodes[i].nr_cpus; c++)
			vcpu_node[t->nodes[i].cpus[c]] = i;
	}
}

int numapreset_model_new(const struct numa_preset *p, const char *path, const struct topology *t,
			 uint64_t below_4g, unsigned max_lines, struct numacost **out,
			 struct lab_error *err)
{
	size_t n2 = (size_t)p->nr_nodes * p->nr_nodes;
	_cleanup_free_ unsigned *vcpu_node = NULL;
	_cleanup_free_ uint64_t *node_mem = NULL;
	_cleanup_free_ double *c2c = NULL, *mem = NULL;
	int r = numapreset_check_topology(p, path, t, err);

	if (r < 0)
		return r;
	if (t->vcpus > NUMACOST_MAX_VCPUS)
		return error_set(err, path ? path : "",
				 "the NUMA cost model takes at most %d vCPUs, topology %s has %u",
				 NUMACOST_MAX_VCPUS, topo_name(t), t->vcpus);
	vcpu_node = calloc(t->vcpus, sizeof(*vcpu_node));
	node_mem = calloc(t->nr_nodes, sizeof(*node_mem));
	c2c = calloc(n2, sizeof(*c2c));
	mem = calloc(n2, sizeof(*mem));
	if (!vcpu_node || !node_mem || !c2c || !mem)
		return -ENOMEM;
	topology_layout(t, vcpu_node, node_mem);
	numapreset_matrix_ns(p, 0, c2c);
	numapreset_matrix_ns(p, 1, mem);
	struct numacost_config cfg = {
		.nr_vcpus = t->vcpus, .nr_nodes = t->nr_nodes, .vcpu_node = vcpu_node,
		.node_mem = node_mem, .below_4g = below_4g, .c2c_ns = c2c, .mem_ns = mem,
		.ipns = p->ipns.value, .max_lines = max_lines,
	};
	return numacost_new(&cfg, out);
}

/* One line of the plugin's configuration: its name and the nodes x nodes latencies. */
static void cfg_matrix(struct strbuf *sb, const char *name, const struct numa_preset *p, int mem)
{
	size_t n2 = (size_t)p->nr_nodes * p->nr_nodes;

	strbuf_append(sb, name);
	for (size_t i = 0; i < n2; i++)
		strbuf_appendf(sb, " %.17g", path_figure(p, p->matrix[i], mem)->value);
	strbuf_append(sb, "\n");
}

char *numapreset_plugin_cfg(const struct numa_preset *p, const struct topology *t,
			    uint64_t below_4g)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ unsigned *vcpu_node = NULL;
	_cleanup_free_ uint64_t *node_mem = NULL;
	char *out = NULL;

	if (p->nr_nodes != t->nr_nodes || !t->vcpus)
		return NULL;
	vcpu_node = calloc(t->vcpus, sizeof(*vcpu_node));
	node_mem = calloc(t->nr_nodes, sizeof(*node_mem));
	if (!vcpu_node || !node_mem)
		return NULL;
	topology_layout(t, vcpu_node, node_mem);
	strbuf_appendf(&sb, "%s\nvcpus %u\nnodes %u\nvcpu_node", NUMAPRESET_CFG_SCHEMA, t->vcpus,
		       t->nr_nodes);
	for (unsigned v = 0; v < t->vcpus; v++)
		strbuf_appendf(&sb, " %u", vcpu_node[v]);
	strbuf_append(&sb, "\nnode_mem");
	for (unsigned i = 0; i < t->nr_nodes; i++)
		strbuf_appendf(&sb, " %llu", (unsigned long long)node_mem[i]);
	/* above_4g_start 0: QEMU's default, NUMACOST_4G (only AMD's 1 TiB hole moves it, and
	 * the lab's guests are not given one). */
	strbuf_appendf(&sb, "\nbelow_4g %llu\nabove_4g_start 0\nipns %.17g\n",
		       (unsigned long long)below_4g, p->ipns.value);
	cfg_matrix(&sb, "c2c", p, 0);
	cfg_matrix(&sb, "mem", p, 1);
	/* 0: the plugin's default directory (NUMACOST_DEFAULT_LINES). */
	strbuf_append(&sb, "max_lines 0\n");
	return strbuf_take(&sb, &out) < 0 ? NULL : out;
}
