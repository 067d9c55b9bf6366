/* The NUMA cost plugin's output made a run's "numa_cost" object (core/numarun.h). */
#include "core/numarun.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonio.h"
#include "util/jsonpath.h"

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static const char *const top_keys[] = {"charged", "directory_full", "lines", "stall_failed"};
static const char *const vcpu_keys[] = {"accesses",        "charged",         "forwarded",
					"invalidations",   "node",            "transfers_local",
					"transfers_remote", "vcpu"};
static const char *const window_keys[] = {"charged",	 "clock",	    "forwarded", "id",
					  "tasks",	 "transfers_local", "transfers_remote"};
/* The per-vCPU counters a run's totals sum. */
static const char *const summed_keys[] = {"accesses", "forwarded", "invalidations",
					  "transfers_local", "transfers_remote"};

/* Each of keys in object o at path, a non-negative integer.  Keys the lab does not know are
 * left alone (numarun_report copies only these). */
static int counts_ok(const json_t *o, const char *path, const char *const *keys, size_t n,
		     struct lab_error *err)
{
	if (!json_is_object(o))
		return error_set(err, path, "must be an object");
	for (size_t k = 0; k < n; k++) {
		const json_t *v = json_object_get(o, keys[k]);
		char q[JSONPATH_LEN];

		jsonpath_key(q, sizeof(q), path, keys[k]);
		if (!v)
			return error_set(err, q, "required");
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return error_set(err, q, "must be a non-negative integer");
	}
	return 0;
}

static json_int_t ival(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* node_of[v]: the node of vCPU v in t (every vCPU is in one node: core/topology.c). */
static unsigned *vcpu_nodes(const struct topology *t)
{
	unsigned *node_of = calloc(t->vcpus ? t->vcpus : 1, sizeof(*node_of));

	for (unsigned i = 0; node_of && i < t->nr_nodes; i++)
		for (unsigned c = 0; c < t->nodes[i].nr_cpus; c++)
			if (t->nodes[i].cpus[c] < t->vcpus)
				node_of[t->nodes[i].cpus[c]] = i;
	return node_of;
}

static int check_vcpus(const json_t *vcpus, const struct topology *t, struct lab_error *err)
{
	_cleanup_free_ unsigned *node_of = NULL;
	const json_t *e;
	size_t i;
	int r;

	if (!json_is_array(vcpus))
		return error_set(err, "vcpus", "must be an array, one entry per vCPU");
	if (json_array_size(vcpus) != t->vcpus)
		return error_set(err, "vcpus", "must have one entry per vCPU: %u, not %zu", t->vcpus,
				 json_array_size(vcpus));
	if (!(node_of = vcpu_nodes(t)))
		return -ENOMEM;
	json_array_foreach(vcpus, i, e) {
		char q[JSONPATH_LEN], k[JSONPATH_LEN];

		jsonpath_index(q, sizeof(q), "vcpus", i);
		if ((r = counts_ok(e, q, vcpu_keys, NR(vcpu_keys), err)) < 0)
			return r;
		if (ival(e, "vcpu") != (json_int_t)i) {
			jsonpath_key(k, sizeof(k), q, "vcpu");
			return error_set(err, k, "must be %zu: one entry per vCPU, in order", i);
		}
		if (ival(e, "node") != (json_int_t)node_of[i]) {
			jsonpath_key(k, sizeof(k), q, "node");
			return error_set(err, k, "must be %u, the node of vCPU %zu in topology %s",
					 node_of[i], i, t->name);
		}
	}
	return 0;
}

static int check_windows(const json_t *windows, struct lab_error *err)
{
	const json_t *w;
	size_t i;
	int r;

	if (!json_is_array(windows) || json_array_size(windows) > NUMARUN_MAX_WINDOWS)
		return error_set(err, "windows", "must be an array of at most %u",
				 NUMARUN_MAX_WINDOWS);
	json_array_foreach(windows, i, w) {
		char q[JSONPATH_LEN];

		jsonpath_index(q, sizeof(q), "windows", i);
		if ((r = counts_ok(w, q, window_keys, NR(window_keys), err)) < 0)
			return r;
	}
	return 0;
}

int numarun_parse(const char *text, size_t len, const struct topology *t, json_t **out,
		  struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL;
	int r;

	*out = NULL;
	if ((r = jsonio_load_doc(text, len, NUMARUN_MAX_BYTES, NUMARUN_SCHEMA, &j, err)) < 0 ||
	    (r = counts_ok(j, "", top_keys, NR(top_keys), err)) < 0 ||
	    (r = check_vcpus(json_object_get(j, "vcpus"), t, err)) < 0 ||
	    (r = check_windows(json_object_get(j, "windows"), err)) < 0)
		return r;
	*out = json_incref(j);
	return 0;
}

/* o's keys as integers (checked by numarun_parse) into a new object; NULL on ENOMEM. */
static json_t *copy_counts(const json_t *o, const char *const *keys, size_t n)
{
	json_t *c = json_object();

	for (size_t k = 0; c && k < n; k++)
		if (json_object_set_new(c, keys[k], json_integer(ival(o, keys[k]))) < 0) {
			json_decref(c);
			return NULL;
		}
	return c;
}

static json_t *copy_array(const json_t *a, const char *const *keys, size_t n)
{
	json_t *c = json_array(), *e;
	size_t i;

	json_array_foreach(a, i, e)
		if (!c || json_array_append_new(c, copy_counts(e, keys, n)) < 0) {
			json_decref(c);
			return NULL;
		}
	return c;
}

/* The sum of key over the vCPUs, held at JSON's largest integer rather than wrapped. */
static json_int_t vcpu_sum(const json_t *vcpus, const char *key)
{
	uint64_t sum = 0;
	const json_t *e;
	size_t i;

	json_array_foreach(vcpus, i, e) {
		uint64_t v = (uint64_t)ival(e, key);

		sum = sum + v < sum || sum + v > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : sum + v;
	}
	return (json_int_t)sum;
}

json_t *numarun_report(const json_t *plugin, const struct numa_preset *p, const char *sha256)
{
	const json_t *vcpus = json_object_get(plugin, "vcpus");
	_cleanup_json_ json_t *o = json_pack("{s:s,s:s,s:f,s:b,s:o*,s:o*}", "preset", p->name,
					     "sha256", sha256, "ipns", p->ipns.value, "estimate",
					     numapreset_is_estimate(p), "vcpus",
					     copy_array(vcpus, vcpu_keys, NR(vcpu_keys)), "windows",
					     copy_array(json_object_get(plugin, "windows"),
							window_keys, NR(window_keys)));

	if (!o || !json_object_get(o, "vcpus") || !json_object_get(o, "windows"))
		return NULL;
	for (size_t k = 0; k < NR(top_keys); k++)
		if (json_object_set_new(o, top_keys[k], json_integer(ival(plugin, top_keys[k]))) < 0)
			return NULL;
	for (size_t k = 0; k < NR(summed_keys); k++)
		if (json_object_set_new(o, summed_keys[k], json_integer(vcpu_sum(vcpus,
										 summed_keys[k]))) < 0)
			return NULL;
	return TAKE_PTR(o);
}

/* One line of nm: "ADDRESS TYPE NAME"; a defined function of the dynamic table is T, or W
 * (weak), or i (indirect). */
static int line_exports(const char *line, size_t len, const char *symbol)
{
	size_t n = strlen(symbol), a = strspn(line, "0123456789abcdefABCDEF");
	const char *name;

	if (a == 0 || a + 3 > len || line[a] != ' ' || !strchr("TWi", line[a + 1]) ||
	    line[a + 2] != ' ')
		return 0;
	name = line + a + 3;
	len -= a + 3;
	return len >= n && !memcmp(name, symbol, n) && (len == n || name[n] == '@');
}

int numarun_nm_exports(const char *nm_text, const char *symbol)
{
	for (const char *l = nm_text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len && l[len - 1] == '\r')
			len--;
		if (line_exports(l, len, symbol))
			return 1;
		l = nl ? nl + 1 : NULL;
	}
	return 0;
}
